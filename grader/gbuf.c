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

cudaError_t gbuf_alloc(gbuf *b, size_t bytes, uint64_t seed)
{
    memset(b, 0, sizeof *b);
    b->bytes = bytes;
    b->h_pattern = malloc(2 * GBUF_GUARD);
    b->h_check = malloc(2 * GBUF_GUARD);
    if (!b->h_pattern || !b->h_check) {
        gbuf_free(b);
        return cudaErrorMemoryAllocation;
    }
    rng r;
    rng_seed(&r, seed);
    for (size_t i = 0; i < 2 * GBUF_GUARD; i += 8) {
        uint64_t v = rng_next(&r);
        memcpy(b->h_pattern + i, &v, 8);
    }
    cudaError_t err = cudaMalloc((void **)&b->d_base, bytes + 2 * GBUF_GUARD);
    if (err != cudaSuccess) {
        b->d_base = NULL;
        gbuf_free(b);
        return err;
    }
    b->d = b->d_base + GBUF_GUARD;
    err = cudaMemcpy(b->d_base, b->h_pattern, GBUF_GUARD, cudaMemcpyHostToDevice);
    if (err == cudaSuccess)
        err = cudaMemcpy(b->d_base + GBUF_GUARD + bytes, b->h_pattern + GBUF_GUARD, GBUF_GUARD,
                         cudaMemcpyHostToDevice);
    return err;
}

cudaError_t gbuf_poison(gbuf *b, cudaStream_t s)
{
    return cudaMemsetAsync(b->d, 0xFF, b->bytes, s);
}

int gbuf_guards_changed(const gbuf *b, long long *offset, cudaError_t *err)
{
    *err = cudaMemcpy(b->h_check, b->d_base, GBUF_GUARD, cudaMemcpyDeviceToHost);
    if (*err == cudaSuccess)
        *err = cudaMemcpy(b->h_check + GBUF_GUARD, b->d_base + GBUF_GUARD + b->bytes, GBUF_GUARD,
                          cudaMemcpyDeviceToHost);
    if (*err != cudaSuccess)
        return -1;
    long long before = gbuf_first_diff(b->h_pattern, b->h_check, GBUF_GUARD);
    if (before >= 0) {
        *offset = before - (long long)GBUF_GUARD;
        return 1;
    }
    long long after =
        gbuf_first_diff(b->h_pattern + GBUF_GUARD, b->h_check + GBUF_GUARD, GBUF_GUARD);
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
