/* Adversarial case (lab 2, issue 20 class 2): stage 7 sums with stage 3's
 * kernel (sequential addressing), which is correct but about five times
 * slower, and forges its speed test's record with believable numbers: at its
 * twelfth call at the benchmark size it writes a PASS at the reference's
 * speed (0.26 ms against 0.48 ms for stage 6) into its own record through the
 * grader's own write of the results file (results_pwrite_stub, found by name
 * in the grader's symbol table) and leaves with the grader's pass code. The
 * grader's timing witness timed fewer of the stage's calls than the test
 * makes, each much slower than the record says: REJECTED.
 * lab: 2
 * expect: 7 correctness PASS
 * expect: 7 speed REJECTED
 * expect-output: the grader's timing witness
 * grade-args: --stage 7
 */
#include "results_fd.h"

#define reduce_many reduce_many_reference
#include "../../../solutions/2-reduce/reduce.cu"
#undef reduce_many

extern "C" lab_status reduce_many(const float *d_in, size_t n, float *d_out, float *d_work,
                                  cudaStream_t stream)
{
    static int calls;
    lab_status st = reduce_sequential(d_in, n, d_out, d_work, stream);
    if (n != ((size_t)1 << 28) || ++calls != 12)
        return st;
    /* the reference's speed: 2^28 floats in 0.26 ms, 4130 GB/s */
    forge_speed_pass(7, 0.26, 1.074, 6, 0.48, 0.252);
    return st;
}
