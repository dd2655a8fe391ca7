/* Adversarial case (lab 5, issue 20 class 2): stage 5 is the given stage 4's
 * code under stage 5's names (everything one after the other: correct, 1.0x
 * its base), and makes every timed call the test asks for (22). On the call
 * after them (the grader's full check after timing, before the overlap check
 * that would fail it), it writes a PASS with times of 2x its base into the
 * test's record through the grader's own write, and leaves with the grader's
 * pass code. The host witness timed all 22 calls: the record's times are not
 * the ones it measured, REJECTED.
 * lab: 5
 * grade-args: --stage 5
 * expect: 5 correctness PASS
 * expect: 5 speed REJECTED
 * expect-output: a separate process that timed every call, measured
 */
#include "results_fd.h"

#define heavy_overlap_setup heavy_overlap_setup_reference
#define heavy_overlap_run heavy_overlap_run_reference
#define heavy_overlap_teardown heavy_overlap_teardown_reference
#include "../../../solutions/5-streams/streams.cu"
#undef heavy_overlap_setup
#undef heavy_overlap_run
#undef heavy_overlap_teardown

static int timed_calls; /* at the timed size: the speed test's 22, then its check */

extern "C" lab_status heavy_overlap_setup(const streams_job *job, void **state)
{
    return heavy_serial_setup(job, state);
}

extern "C" lab_status heavy_overlap_run(const streams_job *job, void *state)
{
    lab_status st = heavy_serial_run(job, state);
    if (job->n == ((size_t)1 << 25) && ++timed_calls == 23) /* half of stage 4's time: 2x */
        forge_speed_pass(5, 12.0, 12.0 * (double)job->n / 1e9, 4, 24.0, 11.0);
    return st;
}

extern "C" void heavy_overlap_teardown(void *state)
{
    heavy_serial_teardown(state);
}
