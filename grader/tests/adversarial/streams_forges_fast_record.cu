/* Adversarial case (lab 5, issue 20 class 2): stage 5 is the given stage 4's
 * code under stage 5's names (everything one after the other: correct, 1.0x
 * its base), and makes every timed call the test asks for (22). On the call
 * after them it writes a PASS into the test's record through the grader's own
 * write, with times that are all faster than the host witness's windows and
 * agree with each other (the stage 8 ms, its base 15 ms: 1.88x; the ceiling
 * 5 ms), and leaves with the grader's pass code. A host witness's window also
 * holds the waking of both processes, so a record faster than it is no
 * contradiction; but the verdict is decided again from the witness's own
 * times, where stage 5 is as slow as its base: TOO SLOW.
 * lab: 5
 * grade-args: --stage 5
 * expect: 5 correctness PASS
 * expect: 5 speed TOO SLOW
 * expect-output: by the times of the grader's timing witness
 */
#include "results_fd.h"

#define heavy_overlap_setup heavy_overlap_setup_reference
#define heavy_overlap_run heavy_overlap_run_reference
#define heavy_overlap_teardown heavy_overlap_teardown_reference
#include "../../../solutions/5-streams/streams.cu"
#undef heavy_overlap_setup
#undef heavy_overlap_run
#undef heavy_overlap_teardown

extern "C" lab_status heavy_overlap_setup(const streams_job *job, void **state)
{
    return heavy_serial_setup(job, state);
}

/* At the timed size, the speed test's 22 calls and then its full check. */
extern "C" lab_status heavy_overlap_run(const streams_job *job, void *state)
{
    static int calls;
    lab_status st = heavy_serial_run(job, state);
    if (job->n == ((size_t)1 << 25) && ++calls == 23)
        forge_speed_pass(5, 8.0, 12.0 * (double)job->n / 1e9, 4, 15.0, 5.0);
    return st;
}

extern "C" void heavy_overlap_teardown(void *state)
{
    heavy_serial_teardown(state);
}
