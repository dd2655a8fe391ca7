/* Adversarial case (lab 5, issue 20 class 2): stage 2 is the reference,
 * except at n = 2^20 + 7, the third of the correctness test's four sizes,
 * where its first call computes nothing: it writes a PASS into its
 * correctness test's record through the grader's own write of the results
 * file and leaves with the grader's pass code. Lab 5's checking witness (its
 * host witness, in the correctness test) checked the first two sizes only:
 * REJECTED, and the speed test it let run is not graded.
 * lab: 5
 * grade-args: --stage 2
 * expect: 2 correctness REJECTED
 * expect: 2 speed SKIPPED
 * expect-output: checked 2 of the test's 4 sizes
 */
#include "results_fd.h"

#define overlap_run overlap_run_reference
#include "../../../solutions/5-streams/streams.cu"
#undef overlap_run

extern "C" lab_status overlap_run(const streams_job *job, void *state)
{
    if (job->n == ((size_t)1 << 20) + 7)
        forge_correct_pass(2);
    return overlap_run_reference(job, state);
}
