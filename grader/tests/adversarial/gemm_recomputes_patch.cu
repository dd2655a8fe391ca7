/* Adversarial case (lab 4, replay): stage 1 keeps A B, and copies of A and
 * B, in __device__ memory from its first call at a size. On every later
 * call it compares A and B with its copies, and recomputes only the rows of
 * C whose row of A changed and the columns whose column of B changed; when
 * more than 64 changed it bets on replaying the kept product anyway. Then it
 * applies alpha and beta and spins on %globaltimer to look like a 5 TFLOP/s
 * GEMM. The patches of the grader's own timed inputs change 16 rows and
 * columns at most, so with the timing witness off (CUDA_LABS_WITNESS=0) this
 * passes: the gap instructors.md names. The witness loads fresh A and B
 * before every timed call, and before its checking call at each size of the
 * correctness test, so the replayed C is wrong in every row and column it
 * samples: caught there already, at the first size.
 * lab: 4
 * grade-args: --stage 1
 * expect: 1 correctness WRONG RESULT
 * expect: 1 speed SKIPPED
 * expect-output: checking witness
 */
#define gemm_coalesced gemm_coalesced_reference
#include "../../../solutions/4-gemm/gemm.cu"
#undef gemm_coalesced
#include "pace.cuh"

#define MAX_ELEMS (4096 * 4096)
#define MAX_DIM 4096
#define LIMIT 64
__device__ float kept[MAX_ELEMS], kept_a[MAX_ELEMS], kept_b[MAX_ELEMS];
__device__ int row_flag[MAX_DIM], col_flag[MAX_DIM], changed;

__global__ void clear_flags(int M, int N)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < M)
        row_flag[t] = 0;
    if (t < N)
        col_flag[t] = 0;
    if (t == 0)
        changed = 0;
}

/* copy: the first call (take X as it is); else flag what differs. */
__global__ void compare(const float *X, float *keep, size_t n, int cols, int by_row, int copy)
{
    for (size_t e = (size_t)blockIdx.x * blockDim.x + threadIdx.x; e < n;
         e += (size_t)gridDim.x * blockDim.x) {
        float x = X[e];
        if (copy) {
            keep[e] = x;
            continue;
        }
        if (__float_as_uint(x) == __float_as_uint(keep[e]))
            continue;
        keep[e] = x;
        int *flag = by_row ? &row_flag[e / cols] : &col_flag[e % cols];
        if (atomicExch(flag, 1) == 0)
            atomicAdd(&changed, 1);
    }
}

__global__ void recompute(int M, int N, int K, const float *A, const float *B)
{
    int i = blockIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= N || changed > LIMIT || !(row_flag[i] || col_flag[j]))
        return;
    float x = 0;
    for (int k = 0; k < K; k++)
        x += A[(size_t)i * K + k] * B[(size_t)k * N + j];
    kept[(size_t)i * N + j] = x;
}

__global__ void from_kept(int n, float alpha, float beta, float *C)
{
    int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e < n)
        C[e] = beta == 0.0f ? alpha * kept[e] : alpha * kept[e] + beta * C[e];
}


extern "C" lab_status gemm_coalesced(int M, int N, int K, float alpha, const float *d_A,
                                     const float *d_B, float beta, float *d_C, cudaStream_t stream)
{
    static const float *last_a, *last_b;
    static int last_m, last_n, last_k;
    size_t mn = (size_t)M * N, mk = (size_t)M * K, kn = (size_t)K * N;
    if (mn > MAX_ELEMS || mk > MAX_ELEMS || kn > MAX_ELEMS || M > MAX_DIM || N > MAX_DIM)
        return gemm_coalesced_reference(M, N, K, alpha, d_A, d_B, beta, d_C, stream);
    float *k_ptr, *ka, *kb;
    cudaGetSymbolAddress((void **)&k_ptr, kept);
    cudaGetSymbolAddress((void **)&ka, kept_a);
    cudaGetSymbolAddress((void **)&kb, kept_b);
    int first = d_A != last_a || d_B != last_b || M != last_m || N != last_n || K != last_k;
    if (first) {
        lab_status st = gemm_coalesced_reference(M, N, K, 1.0f, d_A, d_B, 0.0f, k_ptr, stream);
        if (st != LAB_OK)
            return st;
        last_a = d_A, last_b = d_B, last_m = M, last_n = N, last_k = K;
    }
    int most = M > N ? M : N;
    clear_flags<<<(most + 255) / 256, 256, 0, stream>>>(M, N);
    compare<<<1024, 256, 0, stream>>>(d_A, ka, mk, K, 1, first);
    compare<<<1024, 256, 0, stream>>>(d_B, kb, kn, N, 0, first);
    if (!first) {
        recompute<<<dim3((unsigned)((N + 255) / 256), (unsigned)M), 256, 0, stream>>>(M, N, K, d_A,
                                                                                   d_B);
        spin<<<1, 1, 0, stream>>>((unsigned long long)(2.0 * M * N * K / 5e12 * 1e9));
    }
    from_kept<<<(unsigned)((mn + 255) / 256), 256, 0, stream>>>((int)mn, alpha, beta, d_C);
    return LAB_OK;
}
