/* Adversarial case (lab 7, replay): stage 1 keeps C, and copies of A and
 * Bt, in __device__ memory from its first call at a size. On every later
 * call it compares A and Bt with its copies, and recomputes only the rows
 * of C whose row of A changed and the columns whose row of Bt changed; when
 * more than 64 changed it bets on replaying the kept C anyway. Then it
 * spins on %globaltimer to look like a TMA + wgmma GEMM. The patches of the
 * grader's own timed inputs change 8 rows and columns at most, so without
 * the timing witness this would pass. The witness loads a fresh A and Bt
 * before every timed call, and before its checking call at each size of the
 * correctness test, so the replayed C is wrong in every row and column it
 * samples: caught there already, at the first size. Built for sm_90a, as
 * lab 7 is.
 * lab: 7
 * grade-args: --stage 1
 * expect: 1 correctness WRONG RESULT
 * expect: 1 speed SKIPPED
 * expect-output: checking witness
 */
#define hopper_tma_wgmma hopper_tma_wgmma_reference
#include "../../../solutions/7-hopper/hopper.cu"
#undef hopper_tma_wgmma
#include "pace.cuh"

#define MAX_ELEMS (4096 * 4096)
#define MAX_DIM 4096
#define LIMIT 64
__device__ float kept[MAX_ELEMS];
__device__ unsigned kept_a[MAX_ELEMS / 2], kept_b[MAX_ELEMS / 2]; /* two BF16 a word */
__device__ int row_flag[MAX_DIM], col_flag[MAX_DIM], changed;
__device__ int row_list[LIMIT], col_list[LIMIT], n_rows, n_cols; /* the lines to recompute */

__global__ void clear_flags(int M, int N)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < M)
        row_flag[t] = 0;
    if (t < N)
        col_flag[t] = 0;
    if (t == 0)
        changed = n_rows = n_cols = 0;
}

/* copy: the first call (take X as it is); else flag and list the row (of
 * A, or of Bt: a column of C) of each word that differs. */
__global__ void compare(const unsigned *X, unsigned *keep, size_t n, int words_a_row, int *flags,
                        int *list, int *listed, int copy)
{
    for (size_t e = (size_t)blockIdx.x * blockDim.x + threadIdx.x; e < n;
         e += (size_t)gridDim.x * blockDim.x) {
        unsigned x = X[e];
        if (copy) {
            keep[e] = x;
            continue;
        }
        if (x == keep[e])
            continue;
        keep[e] = x;
        int line = (int)(e / words_a_row);
        if (atomicExch(&flags[line], 1) == 0) {
            atomicAdd(&changed, 1);
            int at = atomicAdd(listed, 1);
            if (at < LIMIT)
                list[at] = line;
        }
    }
}

__device__ float bf16_value(unsigned h)
{
    return __uint_as_float((h & 0xffffu) << 16);
}

/* Block (b, l): listed line l (rows, then columns), its elements b * 8 to
 * b * 8 + 7, a warp each. */
__global__ void recompute(int M, int N, int K, const unsigned *A, const unsigned *Bt)
{
    if (changed > LIMIT)
        return;
    int l = blockIdx.y, t = blockIdx.x * 8 + threadIdx.x / 32, lane = threadIdx.x % 32, i, j;
    if (l < LIMIT) {
        if (l >= n_rows || t >= N)
            return;
        i = row_list[l], j = t;
    } else {
        if (l - LIMIT >= n_cols || t >= M)
            return;
        i = t, j = col_list[l - LIMIT];
    }
    const unsigned *a = A + (size_t)i * (K / 2), *b = Bt + (size_t)j * (K / 2);
    float x = 0;
    for (int w = lane; w < K / 2; w += 32)
        x += bf16_value(a[w]) * bf16_value(b[w]) + bf16_value(a[w] >> 16) * bf16_value(b[w] >> 16);
    for (int d = 16; d > 0; d /= 2)
        x += __shfl_down_sync(0xffffffffu, x, d);
    if (lane == 0)
        kept[(size_t)i * N + j] = x;
}

extern "C" lab_status hopper_tma_wgmma(int M, int N, int K, const unsigned short *d_A,
                                       const unsigned short *d_Bt, float *d_C,
                                       hopper_tensor_map_fn tensor_map, cudaStream_t stream)
{
    static const unsigned short *last_a, *last_b;
    static int last_m, last_n, last_k;
    size_t mn = (size_t)M * N, mk = (size_t)M * K, nk = (size_t)N * K;
    if (mn > MAX_ELEMS || mk > MAX_ELEMS || nk > MAX_ELEMS || M > MAX_DIM || N > MAX_DIM)
        return hopper_tma_wgmma_reference(M, N, K, d_A, d_Bt, d_C, tensor_map, stream);
    float *k_ptr;
    unsigned *ka, *kb;
    int *rows, *cols, *rlist, *clist, *nr, *nc;
    cudaGetSymbolAddress((void **)&k_ptr, kept);
    cudaGetSymbolAddress((void **)&ka, kept_a);
    cudaGetSymbolAddress((void **)&kb, kept_b);
    cudaGetSymbolAddress((void **)&rows, row_flag);
    cudaGetSymbolAddress((void **)&cols, col_flag);
    cudaGetSymbolAddress((void **)&rlist, row_list);
    cudaGetSymbolAddress((void **)&clist, col_list);
    cudaGetSymbolAddress((void **)&nr, n_rows);
    cudaGetSymbolAddress((void **)&nc, n_cols);
    int first = d_A != last_a || d_Bt != last_b || M != last_m || N != last_n || K != last_k;
    if (first) {
        lab_status st = hopper_tma_wgmma_reference(M, N, K, d_A, d_Bt, k_ptr, tensor_map, stream);
        if (st != LAB_OK)
            return st;
        last_a = d_A, last_b = d_Bt, last_m = M, last_n = N, last_k = K;
    }
    int most = M > N ? M : N;
    clear_flags<<<(most + 255) / 256, 256, 0, stream>>>(M, N);
    compare<<<1024, 256, 0, stream>>>((const unsigned *)d_A, ka, mk / 2, K / 2, rows, rlist, nr,
                                      first);
    compare<<<1024, 256, 0, stream>>>((const unsigned *)d_Bt, kb, nk / 2, K / 2, cols, clist, nc,
                                      first);
    if (!first) {
        recompute<<<dim3((unsigned)((most + 7) / 8), 2 * LIMIT), 256, 0, stream>>>(
            M, N, K, (const unsigned *)d_A, (const unsigned *)d_Bt);
        /* with the copies around it, about 0.3 ms at 4096^3: 450 TFLOP/s */
        spin<<<1, 1, 0, stream>>>((unsigned long long)(2.0 * M * N * K / 1000e12 * 1e9));
    }
    cudaMemcpyAsync(d_C, k_ptr, mn * sizeof(float), cudaMemcpyDeviceToDevice, stream);
    return LAB_OK;
}
