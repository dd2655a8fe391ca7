/* A lab library that uses what the labs teach, for check_policy.c: the
 * contract check must accept it. cp.async, an inline-PTX mma.sync, atomics,
 * __launch_bounds__, dynamic shared memory, CUB's block-level reduction
 * inside a kernel of its own (with a cub:: template argument), and names
 * that merely contain "cub" or "cute" (cube, cuteness). Built for sm_80 and
 * newer instructions only where the architecture has them. */
#include <cub/block/block_reduce.cuh>
#include <cuda_runtime.h>

template <int N> struct cube {
    static __device__ float of(float x) { return N * x * x * x; }
};

template <int N> __global__ void __launch_bounds__(256) cube_kernel(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] = cube<N>::of(x[i]);
}

namespace cuteness {
__global__ void scale(float *x, float a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(&x[0], a * x[i]);
}
} // namespace cuteness

namespace {
/* Copies through dynamic shared memory with cp.async where the GPU has it. */
__global__ void staged_copy(const float *in, float *out, int n)
{
    extern __shared__ float tile[];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    if (i < n) {
        unsigned dst = (unsigned)__cvta_generic_to_shared(&tile[threadIdx.x]);
        asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(dst), "l"(in + i));
    }
    asm volatile("cp.async.wait_all;\n" ::);
#else
    if (i < n)
        tile[threadIdx.x] = in[i];
#endif
    __syncthreads();
    if (i < n)
        out[i] = tile[threadIdx.x];
}
} // namespace

/* One m16n8k8 TF32 mma.sync per warp, in inline PTX (sm_80 and newer). */
static __global__ void mma_kernel(const unsigned *a, const unsigned *b, float *c)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    int l = threadIdx.x;
    float d0 = 0, d1 = 0, d2 = 0, d3 = 0;
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, "
                 "{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                 : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
                 : "r"(a[4 * l]), "r"(a[4 * l + 1]), "r"(a[4 * l + 2]), "r"(a[4 * l + 3]),
                   "r"(b[2 * l]), "r"(b[2 * l + 1]));
    c[4 * l] = d0;
    c[4 * l + 1] = d1;
    c[4 * l + 2] = d2;
    c[4 * l + 3] = d3;
#else
    (void)a;
    (void)b;
    (void)c;
#endif
}

/* A block sum with CUB's block-level reduction, in a kernel of this library
 * (its name carries cub:: only in its template argument). */
template <class reduce> __global__ void __launch_bounds__(128) block_sum(const float *in, float *out)
{
    __shared__ typename reduce::TempStorage temp;
    float v = reduce(temp).Sum(in[blockIdx.x * 128 + threadIdx.x]);
    if (threadIdx.x == 0)
        atomicAdd(out, v);
}

extern "C" int legit_stage(float *x, const unsigned *a, const unsigned *b, float *c, int n,
                           cudaStream_t stream)
{
    int blocks = (n + 255) / 256;
    cube_kernel<3><<<blocks, 256, 0, stream>>>(x, n);
    cuteness::scale<<<blocks, 256, 0, stream>>>(x, 2.0f, n);
    staged_copy<<<blocks, 256, 256 * sizeof(float), stream>>>(x, c, n);
    mma_kernel<<<1, 32, 0, stream>>>(a, b, c);
    block_sum<cub::BlockReduce<float, 128>><<<n / 128, 128, 0, stream>>>(x, c);
    return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
