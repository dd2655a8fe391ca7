/* Adversarial case (lab 6, replay): stage 1 keeps the output, and copies of
 * the input and the filter, in __device__ memory from its first call at a
 * layer. On every later call it compares the input and the filter with its
 * copies, and recomputes only the outputs a changed word reaches: every
 * output of a filter whose weights changed, and every output whose window
 * holds a changed input pixel. When more than 64 input pixels and filters
 * changed, it bets on replaying the kept output anyway. Then it spins on
 * %globaltimer to look like a tiled convolution. The patches of the
 * grader's own timed inputs change 8 words a call, so with the timing
 * witness off (CUDA_LABS_WITNESS=0) this passes. The witness loads a fresh
 * input and filter before every timed call, and before its checking call at
 * each layer of the correctness test, so the replayed output is wrong in
 * every channel and pixel it samples: caught there already, at the first
 * layer.
 * lab: 6
 * grade-args: --stage 1
 * expect: 1 correctness WRONG RESULT
 * expect: 1 speed SKIPPED
 * expect-output: checking witness
 */
#define conv_direct_tiled conv_direct_tiled_reference
#include "../../../solutions/6-conv/conv.cu"
#undef conv_direct_tiled
#include "pace.cuh"

#define MAX_X (32 * 128 * 28 * 28) /* the timed layer's input, and its output */
#define MAX_W (128 * 128 * 3 * 3)  /* its filter */
#define MAX_PIX (32 * 28 * 28)     /* its input pixels (n, h, w) */
#define MAX_K 128
#define LIMIT 64
__device__ float kept_y[MAX_X], kept_x[MAX_X], kept_w[MAX_W];
__device__ int pix_flag[MAX_PIX], k_flag[MAX_K], changed;

__global__ void clear_flags(int pixels, int K)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < pixels)
        pix_flag[t] = 0;
    if (t < K)
        k_flag[t] = 0;
    if (t == 0)
        changed = 0;
}

/* copy: the first call (take v as it is); else flag the pixel (n, h, w) or
 * the filter k of each word that differs. */
__global__ void compare(const float *v, float *keep, size_t n, int chw, int hw, int crs,
                        int is_filter, int copy)
{
    for (size_t e = (size_t)blockIdx.x * blockDim.x + threadIdx.x; e < n;
         e += (size_t)gridDim.x * blockDim.x) {
        float a = v[e];
        if (copy) {
            keep[e] = a;
            continue;
        }
        if (__float_as_uint(a) == __float_as_uint(keep[e]))
            continue;
        keep[e] = a;
        int *flag = is_filter ? &k_flag[e / crs] : &pix_flag[e / chw * hw + e % hw];
        if (atomicExch(flag, 1) == 0)
            atomicAdd(&changed, 1);
    }
}

/* Every output a changed word reaches, again; the rest stay as kept. */
__global__ void recompute(conv_shape l, int P, int Q, const float *x, const float *w)
{
    size_t idx = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= (size_t)l.N * l.K * P * Q || changed > LIMIT)
        return;
    int q = (int)(idx % Q), p = (int)(idx / Q % P), k = (int)(idx / ((size_t)P * Q) % l.K);
    int n = (int)(idx / ((size_t)P * Q * l.K));
    int hit = k_flag[k];
    for (int r = 0; r < l.R && !hit; r++)
        for (int s = 0; s < l.S && !hit; s++) {
            int ih = p * l.stride - l.pad + r, iw = q * l.stride - l.pad + s;
            hit = ih >= 0 && ih < l.H && iw >= 0 && iw < l.W &&
                  pix_flag[((size_t)n * l.H + ih) * l.W + iw];
        }
    if (!hit)
        return;
    float acc = 0.0f;
    for (int c = 0; c < l.C; c++)
        for (int r = 0; r < l.R; r++)
            for (int s = 0; s < l.S; s++) {
                int ih = p * l.stride - l.pad + r, iw = q * l.stride - l.pad + s;
                if (ih >= 0 && ih < l.H && iw >= 0 && iw < l.W)
                    acc += x[(((size_t)n * l.C + c) * l.H + ih) * l.W + iw] *
                           w[(((size_t)k * l.C + c) * l.R + r) * l.S + s];
            }
    kept_y[idx] = acc;
}

extern "C" lab_status conv_direct_tiled(conv_shape l, const float *d_in, const float *d_filter,
                                        float *d_out, void *d_work, cudaStream_t stream)
{
    static const float *last_in, *last_filter;
    static int last_n, last_c, last_k, last_h;
    const int P = (l.H + 2 * l.pad - l.R) / l.stride + 1, Q = (l.W + 2 * l.pad - l.S) / l.stride + 1;
    const size_t nx = (size_t)l.N * l.C * l.H * l.W, nw = (size_t)l.K * l.C * l.R * l.S,
                 ny = (size_t)l.N * l.K * P * Q, pixels = (size_t)l.N * l.H * l.W;
    if (nx > MAX_X || ny > MAX_X || nw > MAX_W || pixels > MAX_PIX || l.K > MAX_K)
        return conv_direct_tiled_reference(l, d_in, d_filter, d_out, d_work, stream);
    float *ky, *kx, *kw;
    cudaGetSymbolAddress((void **)&ky, kept_y);
    cudaGetSymbolAddress((void **)&kx, kept_x);
    cudaGetSymbolAddress((void **)&kw, kept_w);
    int first = d_in != last_in || d_filter != last_filter || l.N != last_n || l.C != last_c ||
                l.K != last_k || l.H != last_h;
    if (first) {
        lab_status st = conv_direct_tiled_reference(l, d_in, d_filter, ky, d_work, stream);
        if (st != LAB_OK)
            return st;
        last_in = d_in, last_filter = d_filter;
        last_n = l.N, last_c = l.C, last_k = l.K, last_h = l.H;
    }
    clear_flags<<<(unsigned)((pixels + 255) / 256), 256, 0, stream>>>((int)pixels, l.K);
    const int hw = l.H * l.W, chw = l.C * hw, crs = l.C * l.R * l.S;
    compare<<<1024, 256, 0, stream>>>(d_in, kx, nx, chw, hw, crs, 0, first);
    compare<<<1024, 256, 0, stream>>>(d_filter, kw, nw, chw, hw, crs, 1, first);
    if (!first) {
        recompute<<<(unsigned)((ny + 255) / 256), 256, 0, stream>>>(l, P, Q, d_in, d_filter);
        /* 0.6 ms on the timed layer: with the recomputation, about the
         * reference's tiled stage (6.2 TFLOP/s) */
        spin<<<1, 1, 0, stream>>>((unsigned long long)(2.0 * ny * crs / 12.3e12 * 1e9));
    }
    cudaMemcpyAsync(d_out, ky, ny * sizeof(float), cudaMemcpyDeviceToDevice, stream);
    return LAB_OK;
}
