/* Adversarial case (lab 6, issue 20 class 1): stage 1 is right in the call
 * the correctness test checks itself at each layer, and in the second call
 * at "3 x 3, C = K = 64, 56 x 56", the one the checking witness loads and
 * checks after it, it writes zero over one output, the last pixel of the
 * last channel of the last image, as an edge bug would. No record is
 * touched: the test writes its own PASS. The witness checks every output
 * channel at that layer (a sample of 16 of the 64 channels and 16 pixels,
 * drawn with replacement, found this output about 22% of the time): WRONG
 * RESULT, and the speed test it let run is not graded.
 * lab: 6
 * expect: 1 correctness WRONG RESULT
 * expect: 1 speed SKIPPED
 * expect-output: checking witness
 * grade-args: --stage 1
 */
#define conv_direct_tiled conv_direct_tiled_reference
#include "../../../solutions/6-conv/conv.cu"
#undef conv_direct_tiled

__global__ void spoil_last(float *out, size_t n)
{
    out[n - 1] = 0.0f;
}

extern "C" lab_status conv_direct_tiled(conv_shape l, const float *d_in, const float *d_filter,
                                        float *d_out, void *d_work, cudaStream_t stream)
{
    static int calls;
    lab_status st = conv_direct_tiled_reference(l, d_in, d_filter, d_out, d_work, stream);
    const int P = (l.H + 2 * l.pad - l.R) / l.stride + 1, Q = (l.W + 2 * l.pad - l.S) / l.stride + 1;
    if (l.N == 32 && l.C == 64 && l.K == 64 && l.H == 56 && l.R == 3 && ++calls == 2)
        spoil_last<<<1, 1, 0, stream>>>(d_out, (size_t)l.N * l.K * P * Q);
    return st;
}
