/* rng.h: a small, fast, seeded random number generator (splitmix64).
 * The grader draws every graded input from it, so a printed seed replays a run
 * exactly. No rand(), no time seeds. */
#ifndef CUDA_LABS_RNG_H
#define CUDA_LABS_RNG_H

#include <stddef.h>
#include <stdint.h>

typedef struct rng {
    uint64_t state;
} rng;

void rng_seed(rng *r, uint64_t seed);
uint64_t rng_next(rng *r);
/* Derives an independent seed from a base seed and a stream number
 * (e.g. one stream per graded size), so sizes do not share data. */
uint64_t rng_derive(uint64_t seed, uint64_t stream);
/* Uniform float in [lo, hi), 24 random mantissa bits. */
float rng_uniform(rng *r, float lo, float hi);
void rng_fill_uniform(rng *r, float *x, size_t n, float lo, float hi);
/* Fills [0, n) on all cores in blocks of RNG_BLOCK elements: fn(ctx, r, b, e)
 * makes elements [b, e) of one block from r, a generator seeded with
 * rng_derive(seed, block number), so the values do not depend on the number
 * of threads. */
#define RNG_BLOCK ((size_t)1 << 16)
void rng_par_blocks(uint64_t seed, size_t n, void (*fn)(void *ctx, rng *r, size_t b, size_t e),
                    void *ctx);
/* rng_fill_uniform, that way. */
void rng_fill_uniform_par(uint64_t seed, float *x, size_t n, float lo, float hi);
/* Uniform integer in [0, bound), bound > 0. */
uint64_t rng_below(rng *r, uint64_t bound);
/* A fresh seed from the operating system (getrandom); 0 on success. */
int rng_os_seed(uint64_t *seed);

#endif
