/* patch.h: fresh inputs for every timed call. A lab's inputs are loaded from
 * a few input sets; before each timed call a handful of input words at
 * random positions get new values (a patch), so no call sees inputs another
 * call saw, and a stage that keeps an earlier result instead of computing
 * gets the patched elements wrong. The lab's check then expects the outputs
 * of the patched inputs (it knows the positions and the values) and checks,
 * on the GPU, that the input still holds exactly what was loaded.
 * The kernels are in grader/ceilings/devcheck.cu (build/ceilings/devcheck.so),
 * loaded in the grading child on first use. */
#ifndef CUDA_LABS_PATCH_H
#define CUDA_LABS_PATCH_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#include "../common/rng.h"
#include "lab.h"

#define PATCH_MAX 64

typedef struct patch_set {
    int n;                    /* words patched by the last patch_pick; 0: none */
    uint64_t idx[PATCH_MAX];  /* their word positions, distinct and ascending */
    uint32_t val[PATCH_MAX];  /* the words written there (set by the lab) */
    uint64_t *d_idx;          /* device copies, made by patch_apply */
    uint32_t *d_val;
    unsigned long long *d_res; /* two words: mismatches, first mismatch */
    unsigned long long *h_res; /* pinned */
} patch_set;

/* Picks n (<= PATCH_MAX) distinct positions in [0, words) from r, ascending,
 * into p->idx; at most `words` of them. The caller sets p->val[k] before
 * patch_apply. No CUDA. */
void patch_pick(patch_set *p, int n, size_t words, rng *r);
/* Picks n distinct positions in [0, words) that lie in the word range
 * [first + k * stride, first + k * stride + len) of some k: for patches
 * that must keep to a region (e.g. the interior of rows). No CUDA. */
void patch_pick_strided(patch_set *p, int n, size_t words, size_t first, size_t stride,
                        size_t len, rng *r);
/* Forgets the patch (prepare calls it: a reload undoes the patch). */
static inline void patch_clear(patch_set *p)
{
    p->n = 0;
}
/* Writes the patch into d_buf (a buffer of 32-bit words) on s. 0, or -1
 * with out filled (a grader fault: SETUP ERROR). */
int patch_apply(patch_set *p, void *d_buf, cudaStream_t s, check_outcome *out);
/* Compares d_now (words) with d_orig, the copy it was loaded from, allowing
 * exactly the patch. Waits for s. -1: unchanged; >= 0: the first word that
 * changed; -2 with out filled when the check itself failed. */
long long patch_unchanged(patch_set *p, const void *d_now, const void *d_orig, size_t words,
                          cudaStream_t s, check_outcome *out);
/* The value at word i of the host input h (words) after the patch. */
uint32_t patch_word(const patch_set *p, const uint32_t *h, size_t i);
/* The patch's word at position i, or -1 when i is not patched (binary search). */
int patch_find(const patch_set *p, size_t i);
void patch_free(patch_set *p);
/* Loads the kernels from path instead of build/ceilings/devcheck.so beside
 * the grader (for tests). 0, or -1 with err filled. */
int patch_load_library(const char *path, char *err, size_t n);

/* ---- outputs compared on the GPU ----
 * What a check expects of an output after a patch, compared on the GPU with
 * no read-back (a read-back and the lab's own host check follow only when
 * something differs, to say what). Expected word i is expect[i], unless i is
 * an override position (then its word), plus, for outputs that accumulate
 * (scans), the deltas at delta positions in [start of i's segment, i]
 * (32-bit wrapping integer sums; seg 0: one segment). */
#define EXPECT_MAX (2 * PATCH_MAX)
typedef struct expect_patch {
    uint64_t seg;
    int no;                   /* overrides, ascending positions */
    uint64_t opos[EXPECT_MAX];
    uint32_t oval[EXPECT_MAX];
    int nd;                   /* deltas, ascending positions */
    uint64_t dpos[EXPECT_MAX];
    uint32_t delta[EXPECT_MAX];
    /* device side, made on first use */
    uint64_t *d_opos, *d_dpos;
    uint32_t *d_oval, *d_dcum;
    unsigned long long *d_res, *h_res;
} expect_patch;

static inline void expect_clear(expect_patch *e, uint64_t seg)
{
    e->seg = seg;
    e->no = e->nd = 0;
}
/* Adds an override or a delta; positions may come in any order (sorted by
 * expect_compare and expect_word's first use: call expect_sort after the
 * last add). A second override at a position replaces the first; deltas at
 * one position add. 0, or -1 when full. No CUDA. */
int expect_override(expect_patch *e, uint64_t i, uint32_t word);
int expect_delta(expect_patch *e, uint64_t i, uint32_t delta);
void expect_sort(expect_patch *e);
/* Expected word i (host mirror of the GPU rule, for messages and tests). */
uint32_t expect_word(const expect_patch *e, const uint32_t *expect, uint64_t i);
/* Compares d_out (words) with d_expect and the patch on the GPU; waits for
 * s. -1: every word as expected; >= 0: the first that is not; -2 with out
 * filled when the comparison itself failed (SETUP ERROR). */
long long expect_compare(expect_patch *e, const void *d_out, const void *d_expect, size_t words,
                         cudaStream_t s, check_outcome *out);
void expect_free(expect_patch *e);

/* Outputs checked against the (verified) device input itself, on the GPU;
 * each waits for s. -1: all as it should be; >= 0: the first output word
 * that is not; -2 with out filled when the check itself failed.
 * d_out (cols x rows) is the transpose of d_in (rows x cols), bit for bit;
 * copy: d_out is d_in. */
long long devcheck_transpose_on_gpu(const void *d_out, const void *d_in, size_t rows, size_t cols,
                                    int copy, cudaStream_t s, check_outcome *out);
/* d_out is the inclusive scan of d_in (32-bit wrapping), restarting every
 * seg elements (0: one scan). */
long long devcheck_scan_on_gpu(const void *d_out, const void *d_in, size_t n, size_t seg,
                               cudaStream_t s, check_outcome *out);
/* The sum of d_in (n floats) and of their magnitudes, in double: 0, or -1
 * with out filled (the check itself failed). */
int devcheck_sum_on_gpu(const float *d_in, size_t n, double *sum, double *sum_abs, cudaStream_t s,
                        check_outcome *out);
/* d_out starts with the elements of d_in (n ints) that are > 0, in their
 * order; *kept = how many there are (d_out's words past them are not read). */
long long devcheck_compact_on_gpu(const int *d_out, const int *d_in, size_t n, size_t *kept,
                                  cudaStream_t s, check_outcome *out);
/* d_C (M x N floats) is d_A (M x K) times d_B (K x N), all row-major, in
 * rows[0..nr) and cols[0..nc) of C (DEVCHECK_GEMM_PICKS at most each), each
 * element there within t1 * scale (+ t2 * scale when t2 != 0), scale its
 * sum of |a||b| (the timing witness of lab 4, which draws the rows and
 * columns after the call). */
long long devcheck_gemm_on_gpu(const float *d_C, const float *d_A, const float *d_B, size_t M,
                               size_t N, size_t K, double t1, double t2, const uint32_t *rows,
                               int nr, const uint32_t *cols, int nc, cudaStream_t s,
                               check_outcome *out);
/* The same for lab 7: d_C = d_A d_Bt^T, with d_A (M x K) and d_Bt (N x K)
 * BF16 and K-major (K even). */
long long devcheck_gemm_bf16_on_gpu(const float *d_C, const void *d_A, const void *d_Bt, size_t M,
                                    size_t N, size_t K, double t1, double t2,
                                    const uint32_t *rows, int nr, const uint32_t *cols, int nc,
                                    cudaStream_t s, check_outcome *out);
/* d_y (N K P Q floats) is the convolution of d_x (N C H W) with d_w
 * (K C R S) (shape: N, C, H, W, K, R, S, stride, pad), in the output
 * channels chans[0..nk) and the pixels pixels[0..np) ((n P + p) Q + q),
 * DEVCHECK_CONV_PICKS at most each, each output there within t1 * scale,
 * scale its sum of |x||w| (the timing witness of lab 6). */
long long devcheck_conv_on_gpu(const float *d_y, const float *d_x, const float *d_w,
                               const int shape[9], double t1, const uint32_t *chans, int nk,
                               const uint32_t *pixels, int np, cudaStream_t s, check_outcome *out);

/* d_got (rows x cols floats) is within the tolerance t1 * scale
 * (+ t2 * scale when t2 != 0) of the expected values d_exact, with their
 * scales d_scale, the rule of compare_all_within in the same double
 * operations: a float output that rounds (lab 4). In the override rows and
 * columns (device arrays, each a whole row or column long, rows first) the
 * expected values are those instead: the ones a patched input changed. */
typedef struct within_overrides {
    int n_rows, n_cols;
    const uint64_t *row, *col;           /* their numbers */
    const double *row_exact, *row_scale; /* n_rows x cols */
    const double *col_exact, *col_scale; /* n_cols x rows */
} within_overrides;
long long devcheck_within_on_gpu(const float *d_got, const double *d_exact, const double *d_scale,
                                 size_t rows, size_t cols, double t1, double t2,
                                 const within_overrides *o, cudaStream_t s, check_outcome *out);

#endif
