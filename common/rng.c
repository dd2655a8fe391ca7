#define _GNU_SOURCE
#include "rng.h"
#include "par.h"

#include <errno.h>
#include <sys/random.h>

/* splitmix64 (Steele, Lea and Flood, 2014): one add and a 3-step mix per draw. */
static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void rng_seed(rng *r, uint64_t seed) { r->state = seed; }

uint64_t rng_next(rng *r)
{
    r->state += 0x9e3779b97f4a7c15ULL;
    return mix64(r->state);
}

uint64_t rng_derive(uint64_t seed, uint64_t stream)
{
    return mix64(seed ^ mix64(stream + 0x632be59bd9b4e019ULL));
}

float rng_uniform(rng *r, float lo, float hi)
{
    float unit = (float)(rng_next(r) >> 40) * (1.0f / 16777216.0f); /* [0, 1) */
    float x = lo + (hi - lo) * unit;
    return x < hi ? x : lo; /* rounding can reach hi; keep the interval half-open */
}

void rng_fill_uniform(rng *r, float *x, size_t n, float lo, float hi)
{
    for (size_t i = 0; i < n; i++)
        x[i] = rng_uniform(r, lo, hi);
}

typedef struct blocks_job {
    uint64_t seed;
    void (*fn)(void *ctx, rng *r, size_t b, size_t e);
    void *ctx;
} blocks_job;

static int blocks_slice(void *arg, size_t begin, size_t end)
{
    const blocks_job *j = arg;
    for (size_t b = begin; b < end; b += RNG_BLOCK) {
        rng r;
        rng_seed(&r, rng_derive(j->seed, b / RNG_BLOCK));
        j->fn(j->ctx, &r, b, end - b < RNG_BLOCK ? end : b + RNG_BLOCK);
    }
    return 0;
}

void rng_par_blocks(uint64_t seed, size_t n, void (*fn)(void *ctx, rng *r, size_t b, size_t e),
                    void *ctx)
{
    blocks_job j = {seed, fn, ctx};
    par_for(n, RNG_BLOCK, blocks_slice, &j);
}

typedef struct fill_job {
    float *x;
    float lo, hi;
} fill_job;

static void fill_block(void *ctx, rng *r, size_t b, size_t e)
{
    const fill_job *j = ctx;
    rng_fill_uniform(r, j->x + b, e - b, j->lo, j->hi);
}

void rng_fill_uniform_par(uint64_t seed, float *x, size_t n, float lo, float hi)
{
    fill_job j = {x, lo, hi};
    rng_par_blocks(seed, n, fill_block, &j);
}

uint64_t rng_below(rng *r, uint64_t bound)
{
    /* Rejection removes the modulo bias. */
    uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
    uint64_t v;
    do {
        v = rng_next(r);
    } while (v >= limit);
    return v % bound;
}

int rng_os_seed(uint64_t *seed)
{
    ssize_t got;
    do {
        got = getrandom(seed, sizeof *seed, 0);
    } while (got < 0 && errno == EINTR);
    return got == (ssize_t)sizeof *seed ? 0 : -1;
}
