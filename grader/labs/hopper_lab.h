/* hopper_lab.h: the pure parts of lab 7's specification (its inputs in BF16
 * and the patches of timed calls, in lab 4's terms), for the grader and the
 * unit tests. The reference and the judgement are lab 4's (gemm_lab.h): a
 * BF16 problem is a float32 problem whose inputs happen to be BF16 values. */
#ifndef CUDA_LABS_HOPPER_LAB_H
#define CUDA_LABS_HOPPER_LAB_H

#include <stddef.h>
#include <stdint.h>

struct rng;

/* x rounded to BF16 (8 significant bits), to nearest, ties to even; NaN
 * stays NaN, and the exponent range is float32's. */
float hopper_bf16_round(float x);
/* The 16 bits of hopper_bf16_round(x): the high half of its float32 bits. */
uint16_t hopper_bf16_bits(float x);

/* The graded inputs from r: lab 4's (gemm_fill_inputs: uniform in [-1, 1),
 * with rows of A beyond FP16's range and columns of B below it) rounded to
 * BF16. A (M x K) and B (K x N, row-major) as floats for the reference; hA
 * (M x K) and hBt (N x K, B transposed: K-major) as the BF16 bits the stages
 * read. */
void hopper_fill_inputs(int M, int N, int K, float *A, float *B, uint16_t *hA, uint16_t *hBt,
                        struct rng *r);

/* A timed call's patch of n 32-bit words of A (bt = 0: M x K BF16) or of Bt
 * (bt = 1: N x K BF16) at word positions idx with words val (low half the
 * element at even k, high half the next), as 2 n patches of lab 4's float
 * A (M x K) or B (K x N): element positions into fidx, float bits into fval.
 * K is even (a multiple of 8), so a word never straddles two rows. fidx
 * comes out ascending (with fval in step), as lab 4's lookups need. */
void hopper_patch_floats(const uint64_t *idx, const uint32_t *val, int n, int K, int N, int bt,
                         uint64_t *fidx, uint32_t *fval);

/* The float of BF16 bits b. */
static inline float hopper_bf16_float(uint16_t b)
{
    union {
        uint32_t u;
        float f;
    } x = {(uint32_t)b << 16};
    return x.f;
}

#endif
