/* Adversarial case (lab 5, issue 20 class 2): stage 2 is stage 1's code
 * under stage 2's names (one stream, no overlap: correct, 1.0x its base),
 * and at its twelfth call at the timed size it writes a PASS into its speed
 * test's record through the grader's own write of the results file (found
 * by its name in the grader's symbol table), with the reference's times
 * (5.5 ms against stage 1's 7.45 ms, 1.35x), and leaves with the grader's
 * pass code. Lab 5 times itself on the host, and before its host witness
 * this forgery got full marks; the witness, a process of the grader's that
 * timed each call, saw 11 of the stage's 22 calls: REJECTED.
 * lab: 5
 * grade-args: --stage 2
 * expect: 2 correctness PASS
 * expect: 2 speed REJECTED
 * expect-output: went through the grader's timing witness
 */
#include "results_fd.h"

#define overlap_setup overlap_setup_reference
#define overlap_run overlap_run_reference
#define overlap_teardown overlap_teardown_reference
#include "../../../solutions/5-streams/streams.cu"
#undef overlap_setup
#undef overlap_run
#undef overlap_teardown

extern "C" lab_status overlap_setup(const streams_job *job, void **state)
{
    return pinned_setup(job, state);
}

extern "C" lab_status overlap_run(const streams_job *job, void *state)
{
    static int calls;
    lab_status st = pinned_run(job, state);
    if (job->n == ((size_t)1 << 25) && ++calls == 12) /* 12 n bytes a call */
        forge_speed_pass(2, 5.5, 12.0 * (double)job->n / 1e9, 1, 7.45, 4.6);
    return st;
}

extern "C" void overlap_teardown(void *state)
{
    pinned_teardown(state);
}
