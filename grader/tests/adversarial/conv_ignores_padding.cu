/* Adversarial case (lab 6): stage 3 gathers the input with its indices
 * clamped to the image ("replicate" padding) instead of reading zeros
 * outside it. Every interior output is right; the border ones are not, and
 * the message must say so. Runs once lab 6 is open.
 * lab: 6
 * expect: 3 correctness WRONG RESULT
 * expect: 3 speed SKIPPED
 * expect-output: Every wrong output is on the border the padding reaches
 * grade-args: --stage 3
 */
#define conv_implicit_gemm conv_implicit_gemm_reference
#include "../../../solutions/6-conv/conv.cu"
#undef conv_implicit_gemm

struct clamped_source : nchw_source {
    __device__ void rows(const column &col, int row, int end, float v[4]) const
    {
        for (int i = 0; i < 4; i++) {
            int c = (row + i) / (l.R * l.S), rs = (row + i) % (l.R * l.S);
            int ih = min(max(col.ih0 + rs / l.S, 0), l.H - 1); /* wrong: clamped */
            int iw = min(max(col.iw0 + rs % l.S, 0), l.W - 1);
            v[i] = col.img && row + i < end ? col.img[((size_t)c * l.H + ih) * l.W + iw] : 0.0f;
        }
    }
};

extern "C" lab_status conv_implicit_gemm(conv_shape l, const float *d_in, const float *d_filter,
                                         float *d_out, void *d_work, cudaStream_t stream)
{
    (void)d_work;
    int P = conv_p(l), Q = conv_q(l);
    clamped_source src;
    static_cast<nchw_source &>(src) = nchw_source{d_in, l, P, Q, l.N * P * Q};
    launch_gemm<clamped_source, false, false>(l, 1, l.C * l.R * l.S, d_filter, src, d_out, stream);
    return LAB_OK;
}
