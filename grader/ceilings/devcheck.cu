/* devcheck.cu: the grader's own small kernels for the timed calls (not a
 * ceiling: it lives with them because it is built and loaded the same way,
 * in the grading child). Before each timed call a few input words are
 * changed at random positions (patch_scatter), so no two calls see the same
 * inputs; after it, the input is checked on the GPU against the copy it was
 * loaded from, with the patch allowed for (patch_verify), without reading it
 * back to the host. grader/patch.c calls these; see grader/patch.h. */
#include <cuda_runtime.h>
#include <stdint.h>

/* buf[idx[k]] = val[k] for every k < p. */
__global__ void patch_scatter_kernel(uint32_t *buf, const uint64_t *idx, const uint32_t *val,
                                     int p)
{
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < p)
        buf[idx[k]] = val[k];
}

/* Is word i one of the p sorted patch positions, holding its patched word? */
__device__ bool patched_as_expected(uint64_t i, uint32_t word, const uint64_t *idx,
                                    const uint32_t *val, int p)
{
    int lo = 0, hi = p - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (idx[mid] == i)
            return val[mid] == word;
        if (idx[mid] < i)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return false;
}

/* res[0]: how many words of now differ from orig other than as the patch
 * says; res[1]: the first of them (starts at ~0). Then every patch position
 * is checked for its word, so a changed patched word counts too. */
__global__ void patch_verify_kernel(const uint32_t *now, const uint32_t *orig, uint64_t n,
                                    const uint64_t *idx, const uint32_t *val, int p,
                                    unsigned long long *res)
{
    uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    unsigned long long bad = 0, first = ~0ull;
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        uint32_t w = now[i];
        if (w != orig[i] && !patched_as_expected(i, w, idx, val, p)) {
            bad++;
            if (i < first)
                first = i;
        }
    }
    if (bad) {
        atomicAdd(&res[0], bad);
        atomicMin(&res[1], first);
    }
}

__global__ void patch_positions_kernel(const uint32_t *now, const uint64_t *idx,
                                       const uint32_t *val, int p, unsigned long long *res)
{
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < p && now[idx[k]] != val[k]) {
        atomicAdd(&res[0], 1ull);
        atomicMin(&res[1], (unsigned long long)idx[k]);
    }
}

extern "C" int devcheck_scatter(void *buf, const uint64_t *d_idx, const uint32_t *d_val, int p,
                                cudaStream_t s)
{
    if (p <= 0)
        return 0;
    patch_scatter_kernel<<<(p + 255) / 256, 256, 0, s>>>((uint32_t *)buf, d_idx, d_val, p);
    return (int)cudaGetLastError();
}

/* Queues the check of now against orig (n words) on s; res (device, two
 * words) is reset first. The caller reads res back after s is done. */
extern "C" int devcheck_verify(const void *now, const void *orig, uint64_t n, const uint64_t *d_idx,
                               const uint32_t *d_val, int p, unsigned long long *res,
                               cudaStream_t s)
{
    cudaError_t err = cudaMemsetAsync(res, 0, sizeof(unsigned long long), s);
    if (err == cudaSuccess)
        err = cudaMemsetAsync(res + 1, 0xff, sizeof(unsigned long long), s);
    if (err != cudaSuccess)
        return (int)err;
    int sms = 0, dev = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    uint64_t want = (n + 255) / 256;
    unsigned blocks = (unsigned)(want < (uint64_t)sms * 8 ? want : (uint64_t)sms * 8);
    if (blocks == 0)
        blocks = 1;
    patch_verify_kernel<<<blocks, 256, 0, s>>>((const uint32_t *)now, (const uint32_t *)orig, n,
                                               d_idx, d_val, p, res);
    if (p > 0)
        patch_positions_kernel<<<(p + 255) / 256, 256, 0, s>>>((const uint32_t *)now, d_idx, d_val,
                                                              p, res);
    return (int)cudaGetLastError();
}
