/* Adversarial case (lab 6): stage 1 stages 4 input channels per step and
 * forgets the last, partial group, so it is right only when C is a multiple
 * of 4 (the ResNet layers) and wrong for C = 3 and C = 17. Runs once lab 6
 * is open.
 * lab: 6
 * expect: 1 correctness WRONG RESULT
 * expect: 1 speed SKIPPED
 * grade-args: --stage 1
 */
#define conv_direct_tiled conv_direct_tiled_reference
#include "../../../solutions/6-conv/conv.cu"
#undef conv_direct_tiled

enum { CG = 4 }; /* channels per step */

__global__ void grouped_kernel(conv_shape l, int P, int Q, const float *__restrict__ x,
                               const float *__restrict__ w, float *__restrict__ y)
{
    extern __shared__ float sm[]; /* CG patches, then CG x KB1 x R x S weights */
    const int PH = (TILE1 - 1) * l.stride + l.R, PW = (TILE1 - 1) * l.stride + l.S;
    const int RS = l.R * l.S, tid = threadIdx.y * TILE1 + threadIdx.x;
    float *wts = sm + CG * PH * PW;
    const int k_groups = (l.K + KB1 - 1) / KB1;
    const int n = blockIdx.z / k_groups, k0 = (blockIdx.z % k_groups) * KB1;
    const int p0 = blockIdx.y * TILE1, q0 = blockIdx.x * TILE1;
    float acc[KB1] = {0.0f};
    for (int c0 = 0; c0 + CG <= l.C; c0 += CG) { /* wrong: the tail c0 .. C - 1 is skipped */
        for (int e = tid; e < CG * PH * PW; e += TILE1 * TILE1) {
            int g = e / (PH * PW), ih = p0 * l.stride - l.pad + e % (PH * PW) / PW;
            int iw = q0 * l.stride - l.pad + e % PW;
            sm[e] = ih >= 0 && ih < l.H && iw >= 0 && iw < l.W
                        ? x[(((size_t)n * l.C + c0 + g) * l.H + ih) * l.W + iw]
                        : 0.0f;
        }
        for (int e = tid; e < CG * KB1 * RS; e += TILE1 * TILE1) {
            int g = e / (KB1 * RS), kb = e / RS % KB1;
            wts[e] = k0 + kb < l.K ? w[((size_t)(k0 + kb) * l.C + c0 + g) * RS + e % RS] : 0.0f;
        }
        __syncthreads();
        for (int g = 0; g < CG; g++)
            for (int rs = 0; rs < RS; rs++) {
                float v = sm[g * PH * PW + (threadIdx.y * l.stride + rs / l.S) * PW +
                             threadIdx.x * l.stride + rs % l.S];
                for (int kb = 0; kb < KB1; kb++)
                    acc[kb] += v * wts[(g * KB1 + kb) * RS + rs];
            }
        __syncthreads();
    }
    int p = p0 + threadIdx.y, q = q0 + threadIdx.x;
    if (p < P && q < Q)
        for (int kb = 0; kb < KB1; kb++)
            if (k0 + kb < l.K)
                y[(((size_t)n * l.K + k0 + kb) * P + p) * Q + q] = acc[kb];
}

extern "C" lab_status conv_direct_tiled(conv_shape l, const float *d_in, const float *d_filter,
                                        float *d_out, void *d_work, cudaStream_t stream)
{
    (void)d_work;
    int P = conv_p(l), Q = conv_q(l);
    int PH = (TILE1 - 1) * l.stride + l.R, PW = (TILE1 - 1) * l.stride + l.S;
    size_t smem = (size_t)CG * (PH * PW + KB1 * l.R * l.S) * sizeof(float);
    if (smem > 48 * 1024)
        return LAB_ERROR;
    dim3 grid(blocks_for(Q, TILE1), blocks_for(P, TILE1), l.N * blocks_for(l.K, KB1));
    grouped_kernel<<<grid, dim3(TILE1, TILE1), smem, stream>>>(l, P, Q, d_in, d_filter, d_out);
    return LAB_OK;
}
