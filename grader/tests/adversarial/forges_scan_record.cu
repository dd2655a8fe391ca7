/* Adversarial case (lab 3, issue 20 class 2): stage 6 scans with stage 5's
 * multi-pass kernels, which are correct but not its technique's speed, and
 * forges its speed test's record with believable numbers: at its fifteenth
 * call at the benchmark size it writes a PASS at the reference's speed
 * (0.72 ms against 1.04 ms for stage 5) into its own record through the
 * grader's own write of the results file (results_pwrite_stub, found by name
 * in the grader's symbol table) and leaves with the grader's pass code. The
 * grader's timing witness timed fewer of the stage's calls than the test
 * makes: REJECTED.
 * lab: 3
 * expect: 6 correctness PASS
 * expect: 6 speed REJECTED
 * expect-output: the grader's timing witness
 * grade-args: --stage 6
 */
#include "results_fd.h"

#define scan_lookback scan_lookback_reference
#include "../../../solutions/3-shuffle/shuffle.cu"
#undef scan_lookback

extern "C" lab_status scan_lookback(const int *d_in, size_t n, int *d_out, void *d_work,
                                    cudaStream_t stream)
{
    static int calls;
    lab_status st = scan_multipass(d_in, n, d_out, d_work, stream);
    if (n != ((size_t)1 << 28) || ++calls != 15)
        return st;
    /* the reference's speed: 2^28 ints read and written in 0.72 ms */
    forge_speed_pass(6, 0.72, 2.147, 5, 1.04, 0.69);
    return st;
}
