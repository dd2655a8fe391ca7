/* Adversarial case (lab 3): stage 6 computes an exclusive scan (each output
 * leaves out its own element) instead of an inclusive one.
 * lab: 3
 * expect: 6 correctness WRONG RESULT
 * expect-output: an exclusive scan where an inclusive one is asked for
 * grade-args: --stage 6
 */
#define scan_lookback scan_lookback_reference
#include "../../../solutions/3-shuffle/shuffle.cu"
#undef scan_lookback

__global__ void make_exclusive(const int *__restrict__ in, size_t n, int *__restrict__ out)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] -= in[i];
}

extern "C" lab_status scan_lookback(const int *d_in, size_t n, int *d_out, void *d_work,
                                    cudaStream_t stream)
{
    lab_status s = scan_lookback_reference(d_in, n, d_out, d_work, stream);
    make_exclusive<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(d_in, n, d_out);
    return s;
}
