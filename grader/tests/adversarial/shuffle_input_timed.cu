/* Adversarial case (lab 3): stage 7 compacts correctly, but on its 4th to
 * 10th call at the benchmark size it also changes a word of its input (as a
 * stage that borrows d_in for flags and forgets one would). The correctness
 * test calls that size three times (two input sets, then the checking
 * witness's call), and the last timed call, the one checked in full, is
 * clean: only the check of every timed call's input sees it.
 * lab: 3
 * expect: 7 correctness PASS
 * expect: 7 speed INPUT MODIFIED
 * expect-output: changed during a timed call
 * grade-args: --stage 7
 */
#define compact_positive compact_positive_reference
#include "../../../solutions/3-shuffle/shuffle.cu"
#undef compact_positive

__global__ void scribble(int *in, size_t n)
{
    in[n / 2 + 12345] ^= 0x40;
}

extern "C" lab_status compact_positive(const int *d_in, size_t n, int *d_out, int *d_count,
                                       void *d_work, cudaStream_t stream)
{
    static int calls;
    lab_status s = compact_positive_reference(d_in, n, d_out, d_count, d_work, stream);
    if (n == ((size_t)1 << 28) && ++calls >= 4 && calls <= 10)
        scribble<<<1, 1, 0, stream>>>((int *)d_in, n);
    return s;
}
