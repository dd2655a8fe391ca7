/* scaled_fp16_mma.cuh: for the TF32 stages' adversarial cases (labs 4 and 7),
 * a GEMM on FP16 tensor cores that scales each row of A and each column of B
 * by a power of two first, so that FP16's range holds them: FP16 keeps
 * TF32's 10-bit mantissa, so the result is as accurate as TF32 rounded to
 * nearest and no input can tell the two apart, while FP16's mma runs twice
 * as fast as TF32's. To pass a check of the technique that only looks for
 * the TF32 instruction, the kernel also holds one TF32 mma.sync on a path it
 * never takes.
 *
 * One warp per 16 x 8 tile of C, mma.sync.m16n8k16 (FP16 in, FP32
 * accumulate), fragments read straight from global memory: slow, but this
 * case is about its machine code, not its speed. C = alpha A B + beta C,
 * row-major, A M x K, B K x N; scales in __device__ arrays (a stage may not
 * allocate), so M and N are at most SCALED_MAX. */
#include <cuda_fp16.h>

#define SCALED_MAX 8192

__device__ int scaled_row_exp[SCALED_MAX]; /* A's row i is multiplied by 2^scaled_row_exp[i] */
__device__ int scaled_col_exp[SCALED_MAX]; /* B's column j by 2^scaled_col_exp[j] */

/* The exponent that brings a largest magnitude m into [2^14, 2^15). */
__device__ int fp16_exponent(float m)
{
    int e;
    frexpf(m, &e); /* m = f 2^e, f in [0.5, 1) */
    return m > 0.0f ? 15 - e : 0;
}

__global__ void scale_rows(const float *A, int M, int K) /* one warp a row */
{
    int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32, lane = threadIdx.x % 32;
    if (row >= M)
        return;
    float m = 0.0f;
    for (int k = lane; k < K; k += 32)
        m = fmaxf(m, fabsf(A[(size_t)row * K + k]));
    for (int d = 16; d > 0; d /= 2)
        m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, d));
    if (lane == 0)
        scaled_row_exp[row] = fp16_exponent(m);
}

__global__ void scale_cols(const float *B, int K, int N) /* one thread a column */
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (col >= N)
        return;
    float m = 0.0f;
    for (int k = 0; k < K; k++)
        m = fmaxf(m, fabsf(B[(size_t)k * N + col]));
    scaled_col_exp[col] = fp16_exponent(m);
}

/* How the FP16 mma is compiled: inline, or (a case that defines
 * SCALED_FP16_CALLED before including this file) in a function of its own
 * that the kernel calls. */
#ifdef SCALED_FP16_CALLED
#define SCALED_FP16_MMA_FN __noinline__
#else
#define SCALED_FP16_MMA_FN __forceinline__
#endif

__device__ SCALED_FP16_MMA_FN void fp16_mma(float *c, unsigned a0, unsigned a1, unsigned a2,
                                            unsigned a3, unsigned b0, unsigned b1)
{
#if __CUDA_ARCH__ >= 800 /* the stage needs 8.0; older builds of this file do nothing */
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, "
                 "{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
#endif
}

__device__ __forceinline__ unsigned pack_fp16(float lo, float hi)
{
    __half2 h = __floats2half2_rn(lo, hi); /* lo in the low half */
    return *reinterpret_cast<unsigned *>(&h);
}

__global__ void scaled_fp16_kernel(int M, int N, int K, float alpha, const float *__restrict__ A,
                                   const float *__restrict__ B, float beta, float *__restrict__ C)
{
    const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    const int row0 = blockIdx.y * 16, col0 = (blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32) * 8;
    if (col0 >= N)
        return;
    const int r_lo = row0 + g, r_hi = row0 + g + 8, c_b = col0 + g;
    const int ea_lo = r_lo < M ? scaled_row_exp[r_lo] : 0, ea_hi = r_hi < M ? scaled_row_exp[r_hi] : 0;
    const int eb = c_b < N ? scaled_col_exp[c_b] : 0;
    auto a_at = [&](int r, int e, int k) {
        return r < M && k < K ? ldexpf(A[(size_t)r * K + k], e) : 0.0f;
    };
    auto b_at = [&](int k) { return c_b < N && k < K ? ldexpf(B[(size_t)k * N + c_b], eb) : 0.0f; };
    float c[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int k0 = 0; k0 < K; k0 += 16) {
        const int k = k0 + 2 * t;
        unsigned a0 = pack_fp16(a_at(r_lo, ea_lo, k), a_at(r_lo, ea_lo, k + 1));
        unsigned a1 = pack_fp16(a_at(r_hi, ea_hi, k), a_at(r_hi, ea_hi, k + 1));
        unsigned a2 = pack_fp16(a_at(r_lo, ea_lo, k + 8), a_at(r_lo, ea_lo, k + 9));
        unsigned a3 = pack_fp16(a_at(r_hi, ea_hi, k + 8), a_at(r_hi, ea_hi, k + 9));
        unsigned b0 = pack_fp16(b_at(k), b_at(k + 1)), b1 = pack_fp16(b_at(k + 8), b_at(k + 9));
        fp16_mma(c, a0, a1, a2, a3, b0, b1);
    }
#if __CUDA_ARCH__ >= 800
    if (K < 0) /* never: a TF32 instruction for the technique check to find */
        asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, "
                     "{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                     : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                     : "r"(0u), "r"(0u), "r"(0u), "r"(0u), "r"(0u), "r"(0u));
#endif
    const int cols[2] = {col0 + 2 * t, col0 + 2 * t + 1};
    for (int h = 0; h < 2; h++) { /* c[0], c[1]: row r_lo; c[2], c[3]: row r_hi */
        const int r = h ? r_hi : r_lo, ea = h ? ea_hi : ea_lo;
        for (int q = 0; q < 2; q++) {
            const int j = cols[q];
            if (r >= M || j >= N)
                continue;
            float v = ldexpf(c[2 * h + q], -(ea + scaled_col_exp[j]));
            size_t idx = (size_t)r * N + j;
            C[idx] = beta == 0.0f ? alpha * v : alpha * v + beta * C[idx];
        }
    }
}

static lab_status scaled_fp16_gemm(int M, int N, int K, float alpha, const float *d_A,
                                   const float *d_B, float beta, float *d_C, cudaStream_t stream)
{
    if (M > SCALED_MAX || N > SCALED_MAX)
        return LAB_ERROR;
    scale_rows<<<(M + 7) / 8, 256, 0, stream>>>(d_A, M, K);
    scale_cols<<<(N + 255) / 256, 256, 0, stream>>>(d_B, K, N);
    dim3 grid((unsigned)((N + 31) / 32), (unsigned)((M + 15) / 16));
    scaled_fp16_kernel<<<grid, 128, 0, stream>>>(M, N, K, alpha, d_A, d_B, beta, d_C);
    return LAB_OK;
}
