#include "gbuf.h"

#include <stdlib.h>
#include <string.h>

#include "../common/rng.h"

long long gbuf_first_diff(const unsigned char *a, const unsigned char *b, size_t n)
{
    if (memcmp(a, b, n) == 0)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i])
            return (long long)i;
    return -1;
}

static size_t guard_bytes = GBUF_GUARD;

void gbuf_set_guard(size_t bytes) { guard_bytes = bytes; }

cudaError_t gbuf_alloc(gbuf *b, size_t bytes, uint64_t seed)
{
    memset(b, 0, sizeof *b);
    b->bytes = bytes;
    b->guard = guard_bytes;
    b->h_pattern = malloc(2 * b->guard + 8);
    b->h_check = malloc(2 * b->guard + 8);
    if (!b->h_pattern || !b->h_check) {
        gbuf_free(b);
        return cudaErrorMemoryAllocation;
    }
    rng r;
    rng_seed(&r, seed);
    for (size_t i = 0; i < 2 * b->guard; i += 8) {
        uint64_t v = rng_next(&r);
        memcpy(b->h_pattern + i, &v, 8);
    }
    cudaError_t err = cudaMalloc((void **)&b->d_base, bytes + 2 * b->guard);
    if (err != cudaSuccess) {
        b->d_base = NULL;
        gbuf_free(b);
        return err;
    }
    b->d = b->d_base + b->guard;
    if (b->guard == 0)
        return cudaSuccess;
    err = cudaMemcpy(b->d_base, b->h_pattern, b->guard, cudaMemcpyHostToDevice);
    if (err == cudaSuccess)
        err = cudaMemcpy(b->d_base + b->guard + bytes, b->h_pattern + b->guard, b->guard,
                         cudaMemcpyHostToDevice);
    /* Both copies come from pageable memory and may still be landing when
     * cudaMemcpy returns (lab_util.c's direct_to_device says why that matters). */
    cudaError_t sync = cudaDeviceSynchronize();
    return err != cudaSuccess ? err : sync;
}

cudaError_t gbuf_poison(gbuf *b, cudaStream_t s)
{
    return gbuf_fill(b, 0xFF, s);
}

cudaError_t gbuf_fill(gbuf *b, unsigned char byte, cudaStream_t s)
{
    return cudaMemsetAsync(b->d, byte, b->bytes, s);
}

int gbuf_guards_changed(const gbuf *b, long long *offset, cudaError_t *err)
{
    *err = cudaSuccess;
    if (b->guard == 0)
        return 0;
    *err = cudaMemcpy(b->h_check, b->d_base, b->guard, cudaMemcpyDeviceToHost);
    if (*err == cudaSuccess)
        *err = cudaMemcpy(b->h_check + b->guard, b->d_base + b->guard + b->bytes, b->guard,
                          cudaMemcpyDeviceToHost);
    if (*err != cudaSuccess)
        return -1;
    long long before = gbuf_first_diff(b->h_pattern, b->h_check, b->guard);
    if (before >= 0) {
        *offset = before - (long long)b->guard;
        return 1;
    }
    long long after = gbuf_first_diff(b->h_pattern + b->guard, b->h_check + b->guard, b->guard);
    if (after >= 0) {
        *offset = (long long)b->bytes + after;
        return 1;
    }
    return 0;
}

void gbuf_free(gbuf *b)
{
    if (b->d_base)
        cudaFree(b->d_base);
    free(b->h_pattern);
    free(b->h_check);
    memset(b, 0, sizeof *b);
}
