/* gemm_lab.h: the pure parts of lab 4's specification (its CPU reference and
 * judgement), for the grader and the unit tests. */
#ifndef CUDA_LABS_GEMM_LAB_H
#define CUDA_LABS_GEMM_LAB_H

#include <stddef.h>
#include <stdint.h>

/* The TF32 stages (lab 4's bonus, lab 7's bonus): tensor-core instructions
 * their kernels must not hold, those of a lower precision than TF32. FP16
 * with rows and columns scaled by powers of two has TF32's mantissa, so no
 * input tells it apart, at twice TF32's speed; BF16 on a share of the work
 * stays under the spread check's line. In SASS the TF32 forms carry .TF32
 * (HMMA.1688.F32.TF32, HGMMA.64x256x8.F32.TF32 on an H200); the FP16 form
 * has no input type (HMMA.16816.F32), BF16 has .BF16; IMMA/IGMMA are
 * integer, QMMA/QGMMA FP8, OMMA FP4, BMMA/BGMMA single bits; UTCIMMA,
 * UTCQMMA and UTCOMMA are Blackwell's tcgen05.mma of those kinds. Its
 * UTCHMMA is left to the inputs: kind::tf32 and kind::f16 give the same
 * UTCHMMA, the kind being in the instruction descriptor (ptxas 13.0,
 * sm_100a), so it cannot be told from the code. DMMA (FP64) is allowed. */
#define GEMM_BELOW_TF32_OPS                                                                        \
    "HMMA!TF32|HGMMA!TF32|IMMA|IGMMA|UTCIMMA|QMMA|QGMMA|UTCQMMA|OMMA|UTCOMMA|BMMA|BGMMA"
#define GEMM_BELOW_TF32_TEXT                                                                       \
    "tensor-core instructions below TF32's precision (HMMA or HGMMA without .TF32, for FP16 "   \
    "or BF16 inputs; IMMA, QMMA, QGMMA or their UTC forms for integer or FP8)"

/* The float32 stages (1 to 7) hold no tensor-core instruction but DMMA
 * (FP64): their bound is float32's, and their timed calls get the timing
 * witness's uniform inputs, on which TF32 over a share of K stays within it
 * often enough to pass a sample (instructors.md). 3xTF32, as accurate as
 * float32, is refused too: its speed would be IMPOSSIBLE against cuBLAS's
 * float32 anyway. */
#define GEMM_TENSOR_OPS                                                                            \
    "HMMA|HGMMA|UTCHMMA|IMMA|IGMMA|UTCIMMA|QMMA|QGMMA|UTCQMMA|OMMA|UTCOMMA|BMMA|BGMMA"
#define GEMM_TENSOR_TEXT                                                                           \
    "tensor-core instructions (HMMA, HGMMA or UTCHMMA, for TF32, FP16 or BF16 inputs; IMMA, "   \
    "QMMA or their UTC forms for integer or FP8), while stages 1 to 7 compute in float32 on the CUDA cores, as their "       \
    "ceiling does (tensor cores are stage 8's)"

struct rng;

/* One problem: C = alpha A B + beta C0, row-major, A M x K, B K x N. */
typedef struct gemm_problem {
    int M, N, K;
    float alpha, beta;
    const float *A, *B, *C0; /* C0 is not read when beta == 0 */
} gemm_problem;

/* exact[e] = the element in double precision, scale[e] = |alpha| (|A||B|)e +
 * |beta| |C0e|, for all M N elements. Uses every CPU; 0, or -1 when out of
 * memory. */
int gemm_reference(const gemm_problem *p, double *exact, double *scale);
/* What a stage computes, for its bound (the `kind` argument below):
 *  GEMM_FP32: float32 products and sums, rounded to nearest (lab 4's stages
 *   0 to 7): (4 sqrt(K) + 8) u scale, u = 2^-24;
 *  GEMM_TF32: inputs rounded to TF32 (lab 4's stage 8, lab 7's bonus): that
 *   plus 2 2^-11 scale;
 *  GEMM_TC_SUM: exact products (BF16 x BF16) summed by the tensor cores (lab
 *   7's stages 0 to 4), which may truncate: one truncation, up to one ulp of
 *   the accumulator (at most 2u scale), per k-step of 16 adds K/8 u scale.
 *   Found on the H200: the given mma.sync stage, an element of a patched row
 *   (one product far larger than the rest, so |C| is about its scale) at
 *   K = 4096 was off by about 270 u scale (0.151 against a tolerance of
 *   0.148), beyond the float32 bound's 264. */
enum { GEMM_FP32 = 0, GEMM_TF32 = 1, GEMM_TC_SUM = 2 };
/* How far a result of an element with this scale may be off (kind: one of
 * the GEMM_ kinds above). */
double gemm_tolerance(int K, double scale, int kind);
/* The same bound as t1 * scale (+ t2 * scale when t2 != 0), for the check
 * on the GPU, which repeats these operations in this order. */
void gemm_tolerance_factors(int K, int kind, double *t1, double *t2);
/* V_PASS, or the verdict for got (M N floats) with what is wrong in msg. */
int gemm_judge(const gemm_problem *p, const double *exact, const double *scale, const float *got,
               int kind, char *msg, size_t msgn);
/* The tensor-core stage's second look, once every element is within its
 * bound: V_PASS, or V_WRONG (msg says where) when, in some 64 x 64 tile of
 * C, more elements lie near the bound than TF32's rounding puts there: a
 * lower precision (BF16) for some of K or of C, even with the probe rows'
 * and columns' crossings recomputed. The rows of A patched at ia (na of
 * them) and the columns of B patched at ib are not counted. K < 16: V_PASS. */
int gemm_tf32_spread(const gemm_problem *p, const double *exact, const double *scale,
                     const float *got, const uint64_t *ia, int na, const uint64_t *ib, int nb,
                     char *msg, size_t msgn);
/* What gemm_tf32_spread judges: the largest share, over the tiles of C with
 * at least 256 counted elements, of elements off by more than 1.5 2^-10
 * scale / sqrt(K), and that tile's first row and column; -1 when no tile
 * counts (K < 16, or too few elements). A share above 0.30 fails. */
double gemm_tf32_share(const gemm_problem *p, const double *exact, const double *scale,
                       const float *got, const uint64_t *ia, int na, const uint64_t *ib, int nb,
                       int *tile_row, int *tile_col);

/* The graded A (M x K) and B (K x N), from r. Most rows of A and columns
 * of B are uniform in [-1, 1); a few rows of A are scaled beyond FP16's
 * range (2^17 to 2^20) and a few columns of B below it (2^-27 to 2^-30), so
 * that FP16 (which TF32 matches in mantissa but not in range) shows; and a
 * few rows of A and columns of B are "probes": one sign per row or column,
 * magnitudes in [1, 1.25) whose bits below TF32's and BF16's last kept bit
 * make both roundings go down, so an element of a probe row and a probe
 * column carries a rounding error of one sign in all of its K products
 * (TF32 in a float32 stage, BF16 in the TF32 stage: far beyond the bound).
 * Every element's K products share one power-of-two scale, so the per-
 * element tolerance holds as it does for uniform inputs. When M > 1 (N > 1)
 * at least one row (column) of each kind. */
void gemm_fill_inputs(int M, int N, int K, float *A, float *B, struct rng *r);

/* Timed calls patch a few words of A (positions ia, new words va, na of
 * them) and of B (ib, vb, nb) of the problem p (its A and B: the unpatched
 * inputs). gemm_patch_expect saves the rows of C that the patches of A
 * change and the columns that those of B change (2 (na N + nb M) doubles in
 * save), then adds the patches' effect to exact and scale (computed exactly,
 * in double); gemm_patch_undo puts the saved values back. */
void gemm_patch_expect(const gemm_problem *p, double *exact, double *scale, const uint64_t *ia,
                       const uint32_t *va, int na, const uint64_t *ib, const uint32_t *vb, int nb,
                       double *save);
void gemm_patch_undo(const gemm_problem *p, double *exact, double *scale, const uint64_t *ia,
                     int na, const uint64_t *ib, int nb, const double *save);
/* 1 when every element of got lies within the tolerance of the expected C of
 * the patched inputs, exactly when gemm_patch_expect and then the first look
 * of gemm_judge would say so; 0 otherwise (then judge the slow way, which
 * names what is wrong). Writes nothing to exact and scale; save as above. */
int gemm_patched_within(const gemm_problem *p, const double *exact, const double *scale,
                        const float *got, const uint64_t *ia, const uint32_t *va, int na,
                        const uint64_t *ib, const uint32_t *vb, int nb, int kind, double *save);

/* One call's C judged whole: gemm_patched_within's first look, else (with
 * the patches' expected C added by gemm_patch_expect, and undone after)
 * gemm_judge; then, for kind GEMM_TF32, gemm_tf32_spread. No patches: na =
 * nb = 0. V_PASS, or the verdict with what is wrong in msg. */
int gemm_check_patched(const gemm_problem *p, double *exact, double *scale, const float *got,
                       const uint64_t *ia, const uint32_t *va, int na, const uint64_t *ib,
                       const uint32_t *vb, int nb, int kind, double *save, char *msg, size_t msgn);

#endif
