/* Adversarial case (lab 4, replay): stage 1 multiplies A and B once per
 * size and keeps A B in a __device__ array; when called again with the
 * same pointers and sizes it only applies alpha and beta to the kept
 * product, and spins on %globaltimer to look as fast as a coalesced GEMM.
 * The correctness test's own calls at a size keep A and B, but its checking
 * witness's call after them gets fresh ones, so the kept product is stale
 * there (and in every timed call, which gets fresh or patched inputs): the
 * correctness test fails on the witness's finding, and the speed test it let
 * run is not graded.
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
__device__ float kept[MAX_ELEMS]; /* A B of the last size multiplied */

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
    size_t mn = (size_t)M * N;
    if (mn > MAX_ELEMS)
        return gemm_coalesced_reference(M, N, K, alpha, d_A, d_B, beta, d_C, stream);
    if (d_A != last_a || d_B != last_b || M != last_m || N != last_n || K != last_k) {
        float *k_ptr;
        cudaGetSymbolAddress((void **)&k_ptr, kept);
        lab_status st = gemm_coalesced_reference(M, N, K, 1.0f, d_A, d_B, 0.0f, k_ptr, stream);
        if (st != LAB_OK)
            return st;
        last_a = d_A, last_b = d_B, last_m = M, last_n = N, last_k = K;
    } else {
        spin<<<1, 1, 0, stream>>>((unsigned long long)(2.0 * M * N * K / 5e12 * 1e9)); /* 5 TFLOP/s */
    }
    from_kept<<<(unsigned)((mn + 255) / 256), 256, 0, stream>>>((int)mn, alpha, beta, d_C);
    return LAB_OK;
}
