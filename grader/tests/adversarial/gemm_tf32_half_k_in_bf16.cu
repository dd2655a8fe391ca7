/* Adversarial case (lab 4, lower precision): as
 * gemm_tf32_bf16_probes_fixed, but BF16 for the first half of K only, the
 * rest as the tensor cores read float bits (TF32, chopped): twice TF32's
 * error on half of each sum, and the probe crossings redone in float32.
 * The tiles of C still hold too many elements near the bound.
 * lab: 4
 * grade-args: --stage 8
 * expect: 8 correctness WRONG RESULT
 * expect: 8 speed SKIPPED
 * expect-output: for some of K or some of C
 */
#define REST_OF_K tf32_bits_of
#define BF16_PART(K) ((K) / 2)
#include "gemm_tf32_bf16_probes_fixed.cu"
