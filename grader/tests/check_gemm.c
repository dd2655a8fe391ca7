/* check_gemm.c: lab 4's CPU reference and judgement. Float32 results in the
 * orders GPU kernels use must pass; a result that ignores beta, one that skips
 * the last partial tile of K, one computed from inputs rounded to FP16, and
 * unwritten or NaN elements must fail, each with its explanation. On the
 * graded inputs (gemm_fill_inputs) TF32 fails a float32 stage, and FP16 and
 * BF16 fail the TF32 stage, which TF32 passes; a timed call's patch changes
 * the expected C exactly as a full reference of the patched inputs does, and
 * an earlier C is rejected. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/compare.h"
#include "../../common/rng.h"
#include "../lab.h"
#include "../labs/gemm_lab.h"
#include "../verdict.h"
#include "tests.h"

typedef struct fixture {
    gemm_problem p;
    float *A, *B, *C0, *got;
    double *exact, *scale;
} fixture;

static void make(fixture *f, int M, int N, int K, float alpha, float beta, uint64_t seed)
{
    rng r;
    rng_seed(&r, seed);
    f->A = malloc((size_t)M * K * sizeof(float));
    f->B = malloc((size_t)K * N * sizeof(float));
    f->C0 = malloc((size_t)M * N * sizeof(float));
    f->got = malloc((size_t)M * N * sizeof(float));
    f->exact = malloc((size_t)M * N * sizeof(double));
    f->scale = malloc((size_t)M * N * sizeof(double));
    rng_fill_uniform(&r, f->A, (size_t)M * K, -1.0f, 1.0f);
    rng_fill_uniform(&r, f->B, (size_t)K * N, -1.0f, 1.0f);
    rng_fill_uniform(&r, f->C0, (size_t)M * N, -1.0f, 1.0f);
    f->p = (gemm_problem){M, N, K, alpha, beta, f->A, f->B, f->C0};
    ck_assert_int_eq(gemm_reference(&f->p, f->exact, f->scale), 0);
}

static void drop(fixture *f)
{
    free(f->A);
    free(f->B);
    free(f->C0);
    free(f->got);
    free(f->exact);
    free(f->scale);
}

/* A float32 kernel: each element a float FMA chain over k in tiles of `tile`,
 * the tiles' sums added in float; `k_end` < K skips the tail; `use_beta` 0
 * ignores beta; fp16 rounds the inputs to 11 significant bits first. */
static float round_fp16(float x)
{
    if (x == 0.0f)
        return x;
    int e;
    double m = frexp(x, &e);           /* x = m 2^e, 0.5 <= |m| < 1 */
    m = nearbyint(m * 2048.0) / 2048.0; /* 11 significant bits */
    return (float)ldexp(m, e);
}

/* The formats a kernel may round A and B to. */
enum { F32, FP16_MANTISSA, TF32_RNA, BF16_RNE, FP16_FULL, TF32_CHOP };

static float from_bits(uint32_t b)
{
    float x;
    memcpy(&x, &b, 4);
    return x;
}

static uint32_t bits_of(float x)
{
    uint32_t b;
    memcpy(&b, &x, 4);
    return b;
}

static float round_to(float x, int format)
{
    uint32_t b = bits_of(x);
    switch (format) {
    case FP16_MANTISSA:
        return round_fp16(x);
    case TF32_RNA: /* as cvt.rna.tf32.f32: to nearest, ties away from zero */
        return from_bits((b + 0x1000u) & ~0x1FFFu);
    case BF16_RNE:
        return from_bits((b + 0x7FFFu + ((b >> 16) & 1u)) & 0xFFFF0000u);
    case TF32_CHOP: /* float bits handed to the tensor cores as they are */
        return from_bits(b & ~0x1FFFu);
    case FP16_FULL: /* __float2half_rn: overflow to infinity, subnormals below 2^-14 */
        if (fabsf(x) >= 65520.0f)
            return x > 0 ? INFINITY : -INFINITY;
        if (fabsf(x) < ldexpf(1.0f, -14))
            return (float)ldexp(nearbyint(ldexp(x, 24)), -24);
        return round_fp16(x);
    default:
        return x;
    }
}

/* C of problem p into got, as a kernel would make it: tiles of k, inputs
 * rounded to `low` for k < k_split and to `high` after. */
static void kernel_mixed(const gemm_problem *p, float *got, int tile, int k_end, int use_beta,
                         int k_split, int low, int high)
{
    for (int i = 0; i < p->M; i++)
        for (int j = 0; j < p->N; j++) {
            float total = 0.0f;
            for (int k0 = 0; k0 < k_end; k0 += tile) {
                float part = 0.0f;
                for (int k = k0; k < k0 + tile && k < k_end; k++) {
                    int format = k < k_split ? low : high;
                    part = fmaf(round_to(p->A[(size_t)i * p->K + k], format),
                                round_to(p->B[(size_t)k * p->N + j], format), part);
                }
                total += part;
            }
            float c = p->alpha * total;
            if (use_beta && p->beta != 0.0f)
                c = fmaf(p->beta, p->C0[(size_t)i * p->N + j], c);
            got[(size_t)i * p->N + j] = c;
        }
}

/* ... with every input rounded to `format`. */
static void kernel_on(const gemm_problem *p, float *got, int tile, int k_end, int use_beta,
                      int format)
{
    kernel_mixed(p, got, tile, k_end, use_beta, 0, format, format);
}

static void kernel(fixture *f, int tile, int k_end, int use_beta, int fp16)
{
    kernel_on(&f->p, f->got, tile, k_end, use_beta, fp16 ? FP16_MANTISSA : F32);
}

START_TEST(reference_is_exact)
{
    fixture f;
    make(&f, 3, 2, 2, 2.0f, 0.5f, 1);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 2; j++) {
            double s = 0, m = 0;
            for (int k = 0; k < 2; k++) {
                s += (double)f.A[i * 2 + k] * f.B[k * 2 + j];
                m += fabs((double)f.A[i * 2 + k] * f.B[k * 2 + j]);
            }
            ck_assert_double_eq_tol(f.exact[i * 2 + j], 2.0 * s + 0.5 * f.C0[i * 2 + j], 1e-12);
            ck_assert_double_eq_tol(f.scale[i * 2 + j], 2.0 * m + 0.5 * fabs(f.C0[i * 2 + j]),
                                    1e-12);
        }
    drop(&f);
}
END_TEST

static const int shapes[][3] = {{1, 1, 1}, {17, 33, 65}, {127, 129, 131}, {64, 96, 1024}};

START_TEST(float32_orders_pass)
{
    fixture f;
    const int *s = shapes[_i];
    make(&f, s[0], s[1], s[2], 1.25f, -0.5f, 7 + _i);
    char msg[VERDICT_MSG];
    int tiles[] = {1, 8, 32, 1 << 20};
    for (int t = 0; t < 4; t++) {
        kernel(&f, tiles[t], s[2], 1, 0);
        ck_assert_msg(gemm_judge(&f.p, f.exact, f.scale, f.got, 0, msg, sizeof msg) == V_PASS,
                      "shape %d tile %d: %s", _i, tiles[t], msg);
    }
    drop(&f);
}
END_TEST

START_TEST(wrong_results_fail)
{
    fixture f;
    char msg[VERDICT_MSG];
    make(&f, 64, 96, 1000, 1.0f, -0.5f, 3);
    kernel(&f, 32, 1000, 0, 0); /* beta ignored */
    ck_assert_int_eq(gemm_judge(&f.p, f.exact, f.scale, f.got, 0, msg, sizeof msg), V_WRONG);
    ck_assert_ptr_nonnull(strstr(msg, "is beta ignored"));
    kernel(&f, 32, 992, 1, 0); /* the last 8 of K skipped */
    ck_assert_int_eq(gemm_judge(&f.p, f.exact, f.scale, f.got, 0, msg, sizeof msg), V_WRONG);
    ck_assert_ptr_nonnull(strstr(msg, "partial tile of K"));
    kernel(&f, 32, 1000, 1, 1); /* inputs rounded to FP16 */
    ck_assert_int_eq(gemm_judge(&f.p, f.exact, f.scale, f.got, 0, msg, sizeof msg), V_WRONG);
    ck_assert_ptr_nonnull(strstr(msg, "lower precision"));
    /* ... which the tensor-core bound accepts. */
    ck_assert_int_eq(gemm_judge(&f.p, f.exact, f.scale, f.got, 1, msg, sizeof msg), V_PASS);
    kernel(&f, 32, 1000, 1, 0);
    f.got[5 * 96 + 7] += 0.5f; /* one element */
    ck_assert_int_eq(gemm_judge(&f.p, f.exact, f.scale, f.got, 0, msg, sizeof msg), V_WRONG);
    ck_assert_ptr_nonnull(strstr(msg, "1 of 6144 elements of C are wrong; the first is C[5][7]"));
    memset(f.got, 0xFF, 64 * 96 * sizeof(float));
    ck_assert_int_eq(gemm_judge(&f.p, f.exact, f.scale, f.got, 0, msg, sizeof msg),
                     V_NOT_WRITTEN);
    drop(&f);
    /* beta == 0 with NaN in the old C: reading it makes NaN. */
    make(&f, 8, 8, 8, 1.0f, 0.0f, 4);
    kernel(&f, 8, 8, 1, 0);
    f.got[3] = NAN;
    ck_assert_int_eq(gemm_judge(&f.p, f.exact, f.scale, f.got, 0, msg, sizeof msg), V_NAN);
    ck_assert_ptr_nonnull(strstr(msg, "do not read C when beta == 0"));
    drop(&f);
    /* 1 x 1 x 1 with B's one column below FP16's range (a graded input can
     * be): a skipped tail of K and FP16 both leave 0, and the message asks
     * about both. */
    make(&f, 1, 1, 1, 1.0f, 0.0f, 5);
    f.A[0] = 0.75f;
    f.B[0] = 0x1p-28f;
    ck_assert_int_eq(gemm_reference(&f.p, f.exact, f.scale), 0);
    f.got[0] = 0.0f;
    ck_assert_int_eq(gemm_judge(&f.p, f.exact, f.scale, f.got, 0, msg, sizeof msg), V_WRONG);
    ck_assert_msg(strstr(msg, "FP16") && strstr(msg, "is the last, partial tile of K skipped?"),
                  "%s", msg);
    drop(&f);
}
END_TEST

START_TEST(tolerance_grows_with_k)
{
    double u = ldexp(1.0, -24);
    ck_assert_double_eq_tol(gemm_tolerance(1, 1.0, 0), 12.0 * u, 1e-20);
    ck_assert_double_eq_tol(gemm_tolerance(4096, 1.0, 0), 264.0 * u, 1e-20);
    ck_assert(gemm_tolerance(4096, 1.0, 1) > 2.0 * ldexp(1.0, -11));
    ck_assert(gemm_tolerance(100, 2.0, 0) == 2.0 * gemm_tolerance(100, 1.0, 0));
}
END_TEST


/* The graded inputs of one size (gemm.c's order: A, B, then C0). */
static void make_graded(fixture *f, int M, int N, int K, float alpha, float beta, uint64_t seed)
{
    make(f, M, N, K, alpha, beta, seed);
    rng r;
    rng_seed(&r, seed);
    gemm_fill_inputs(M, N, K, f->A, f->B, &r);
    rng_fill_uniform(&r, f->C0, (size_t)M * N, -1.0f, 1.0f);
    ck_assert_int_eq(gemm_reference(&f->p, f->exact, f->scale), 0);
}

/* Rows of A beyond FP16's range and columns of B below it, at least one of
 * each, and every value finite and normal. */
START_TEST(graded_inputs_have_every_kind)
{
    fixture f;
    make_graded(&f, 17, 33, 65, 1.0f, 0.0f, 21);
    int big = 0, tiny = 0;
    for (int i = 0; i < 17; i++) {
        float m = 0;
        for (int k = 0; k < 65; k++) {
            float a = f.A[i * 65 + k];
            ck_assert(isfinite(a) && (a == 0 || fabsf(a) >= FLT_MIN));
            m = fmaxf(m, fabsf(a));
        }
        big += m > 65504.0f;
    }
    for (int j = 0; j < 33; j++) {
        float m = 0;
        for (int k = 0; k < 65; k++)
            m = fmaxf(m, fabsf(f.B[k * 33 + j]));
        tiny += m < ldexpf(1.0f, -25);
    }
    ck_assert_int_ge(big, 1);
    ck_assert_int_ge(tiny, 1);
    drop(&f);
}
END_TEST

/* Graded inputs of shape sh, case v: alpha 1 and beta 0, or 0.75 and -0.5. */
static void make_variant(fixture *f, const int *sh, int v, uint64_t seed)
{
    make_graded(f, sh[0], sh[1], sh[2], v ? 0.75f : 1.0f, v ? -0.5f : 0.0f, seed);
}

/* Float32 in any order passes on the graded inputs, at every K; TF32 fails a
 * float32 stage there, even at K = 4096 where random signs would hide it;
 * FP16 (its range) and BF16 (its mantissa) fail the TF32 stage, which TF32
 * passes; each failure names a lower precision. */
static const int graded_shapes[][3] = {{17, 33, 65}, {40, 24, 997}, {24, 40, 4096}};

START_TEST(graded_inputs_tell_formats)
{
    fixture f;
    const int *sh = graded_shapes[_i];
    char msg[VERDICT_MSG];
    for (int v = 0; v < 2; v++) {
        make_variant(&f, sh, v, 30 + _i);
        int tiles[] = {1, 32, 1 << 20};
        for (int t = 0; t < 3; t++) {
            kernel_on(&f.p, f.got, tiles[t], sh[2], 1, F32);
            ck_assert_msg(gemm_judge(&f.p, f.exact, f.scale, f.got, 0, msg, sizeof msg) == V_PASS,
                          "float32, tile %d: %s", tiles[t], msg);
            ck_assert_msg(gemm_judge(&f.p, f.exact, f.scale, f.got, 1, msg, sizeof msg) == V_PASS,
                          "float32 in the TF32 stage, tile %d: %s", tiles[t], msg);
        }
        kernel_on(&f.p, f.got, 32, sh[2], 1, TF32_RNA);
        ck_assert_msg(gemm_judge(&f.p, f.exact, f.scale, f.got, 1, msg, sizeof msg) == V_PASS,
                      "TF32 in the TF32 stage: %s", msg);
        ck_assert_int_eq(gemm_judge(&f.p, f.exact, f.scale, f.got, 0, msg, sizeof msg), V_WRONG);
        ck_assert_msg(strstr(msg, "a lower precision"), "%s", msg);
        kernel_on(&f.p, f.got, 32, sh[2], 1, FP16_FULL);
        ck_assert_int_eq(gemm_judge(&f.p, f.exact, f.scale, f.got, 1, msg, sizeof msg), V_WRONG);
        ck_assert_msg(strstr(msg, "rounded to a lower precision (FP16, __half)"), "%s", msg);
        ck_assert_msg(gemm_judge(&f.p, f.exact, f.scale, f.got, 0, msg, sizeof msg) == V_WRONG,
                      "%s", msg);
        ck_assert_msg(strstr(msg, "rounded to a lower precision"), "%s", msg);
        kernel_on(&f.p, f.got, 32, sh[2], 1, BF16_RNE);
        ck_assert_int_eq(gemm_judge(&f.p, f.exact, f.scale, f.got, 1, msg, sizeof msg), V_WRONG);
        ck_assert_msg(strstr(msg, "a lower precision than TF32"), "%s", msg);
        drop(&f);
    }
}
END_TEST

/* The per-element bound cannot see BF16 away from the probes (random signs
 * cancel), so a BF16 stage that recomputed the probe crossings in float32
 * passed it. How the errors spread tells: TF32 (rounded, or chopped as the
 * tensor cores read float bits) and float32 pass; BF16, with the probe
 * crossings fixed, on all of K or on half of it, fails, naming the cause.
 * The rows and columns a timed call patched are not counted. */
static void kernel_split(const gemm_problem *p, float *got, int k_split, int low, int high)
{
    kernel_mixed(p, got, 32, p->K, 1, k_split, low, high);
}

/* What a cheating stage can see: a probe row (column) has one sign and
 * every magnitude in [1, 1.25). */
static int looks_like_probe(const float *x, int n, size_t stride)
{
    for (int k = 0; k < n; k++) {
        float v = x[(size_t)k * stride];
        if (!(fabsf(v) >= 1.0f && fabsf(v) < 1.25f) || (v > 0) != (x[0] > 0))
            return 0;
    }
    return 1;
}

static int fix_probe_crossings(fixture *f)
{
    const gemm_problem *p = &f->p;
    int fixed = 0;
    for (int i = 0; i < p->M; i++) {
        if (!looks_like_probe(p->A + (size_t)i * p->K, p->K, 1))
            continue;
        for (int j = 0; j < p->N; j++)
            if (looks_like_probe(p->B + j, p->K, (size_t)p->N)) {
                f->got[(size_t)i * p->N + j] = (float)f->exact[(size_t)i * p->N + j];
                fixed++;
            }
    }
    return fixed;
}

static const int spread_shapes[][3] = {{17, 33, 65}, {40, 24, 997}, {64, 128, 2048}};

START_TEST(tf32_spread_tells_bf16)
{
    fixture f;
    const int *sh = spread_shapes[_i];
    char msg[VERDICT_MSG];
    for (int v = 0; v < 2; v++) {
        make_variant(&f, sh, v, 90 + _i);
        const gemm_problem *p = &f.p;
        const int ok[] = {F32, TF32_RNA, TF32_CHOP};
        /* the largest share each leaves here; over many seeds a review saw up
         * to 5% (rounded) and 16.4% (chopped), against the limit of 30% */
        const double most[] = {0.005, 0.06, 0.18};
        for (int t = 0; t < 3; t++) {
            kernel_split(p, f.got, 0, F32, ok[t]);
            ck_assert_msg(gemm_judge(p, f.exact, f.scale, f.got, 1, msg, sizeof msg) == V_PASS,
                          "format %d: %s", ok[t], msg);
            ck_assert_msg(gemm_tf32_spread(p, f.exact, f.scale, f.got, NULL, 0, NULL, 0, msg,
                                           sizeof msg) == V_PASS,
                          "format %d: %s", ok[t], msg);
            int r0, c0; /* the shares gemm_ref.c's comment and the message quote */
            double share = gemm_tf32_share(p, f.exact, f.scale, f.got, NULL, 0, NULL, 0, &r0, &c0);
            ck_assert_msg(share >= 0 && share <= most[t],
                          "format %d: share %.3f", ok[t], share);
        }
        for (int half = 0; half < 2; half++) {
            kernel_split(p, f.got, half ? p->K / 2 : p->K, BF16_RNE, TF32_CHOP);
            ck_assert_int_ge(fix_probe_crossings(&f), 1);
            int judged = gemm_judge(p, f.exact, f.scale, f.got, 1, msg, sizeof msg);
            if (sh[2] >= 2048) /* the gap: the bound alone passes it */
                ck_assert_msg(judged == V_PASS, "half %d: %s", half, msg);
            int r0, c0;
            double share = gemm_tf32_share(p, f.exact, f.scale, f.got, NULL, 0, NULL, 0, &r0, &c0);
            ck_assert_msg(share >= (half ? 0.40 : 0.50), "half %d: share %.3f", half, share);
            ck_assert_int_eq(gemm_tf32_spread(p, f.exact, f.scale, f.got, NULL, 0, NULL, 0, msg,
                                              sizeof msg),
                             V_WRONG);
            /* what the adversarial cases expect (gemm_tf32_bf16_probes_fixed,
             * gemm_tf32_half_k_in_bf16, tf32_bf16_probes_fixed_hopper) */
            ck_assert_msg(strstr(msg, "a lower precision than TF32"), "%s", msg);
            ck_assert_msg(strstr(msg, "within the tolerance"), "%s", msg);
            ck_assert_msg(strstr(msg, "the errors are spread as a precision below TF32 spreads "
                                      "them"),
                          "%s", msg);
            ck_assert_msg(strstr(msg, "for some of K or some of C"), "%s", msg);
        }
        /* Rows and columns where a timed call's patch landed: their elements
         * all near the bound (a patch's one large product), not counted. */
        kernel_split(p, f.got, 0, F32, TF32_CHOP);
        uint64_t ia[4], ib[4];
        for (int t = 0; t < 4; t++) {
            int i = t * (p->M / 4), j = t * (p->N / 4);
            ia[t] = (uint64_t)i * p->K + (uint64_t)t;
            ib[t] = (uint64_t)t * p->N + (uint64_t)j;
            for (int c = 0; c < p->N; c++)
                f.got[(size_t)i * p->N + c] =
                    (float)(f.exact[(size_t)i * p->N + c] + 9e-4 * f.scale[(size_t)i * p->N + c]);
            for (int r = 0; r < p->M; r++)
                f.got[(size_t)r * p->N + j] =
                    (float)(f.exact[(size_t)r * p->N + j] + 9e-4 * f.scale[(size_t)r * p->N + j]);
        }
        ck_assert_int_eq(gemm_judge(p, f.exact, f.scale, f.got, 1, msg, sizeof msg), V_PASS);
        if (p->M * p->N <= 40 * 24) /* 4 of a few rows and columns: counted, far too many */
            ck_assert_int_eq(gemm_tf32_spread(p, f.exact, f.scale, f.got, NULL, 0, NULL, 0, msg,
                                              sizeof msg),
                             V_WRONG);
        ck_assert_msg(gemm_tf32_spread(p, f.exact, f.scale, f.got, ia, 4, ib, 4, msg,
                                       sizeof msg) == V_PASS,
                      "%s", msg);
        drop(&f);
    }
}
END_TEST

/* Found on the H200 (a seed whose 1 x 1 x 1 inputs put column 0 of B below
 * FP16's range): a BF16 stage, off by a rounding there, was told "FP16 makes
 * 0". FP16 is named only when C looks flushed or infinite; the BF16 stage
 * gets the precision message, and an FP16 one still the FP16 message. */
START_TEST(bf16_below_fp16_range_is_precision)
{
    fixture f;
    char msg[VERDICT_MSG];
    int found = 0;
    for (uint64_t seed = 0; seed < 4000 && !found; seed++) {
        make_graded(&f, 1, 1, 1, 1.0f, 0.0f, seed);
        if (fabs(f.p.B[0]) > 0 && fabs(f.p.B[0]) < 0x1p-25) {
            found = 1;
            kernel_on(&f.p, f.got, 32, 1, 1, BF16_RNE);
            if (gemm_judge(&f.p, f.exact, f.scale, f.got, 1, msg, sizeof msg) == V_WRONG) {
                ck_assert_msg(strstr(msg, "a lower precision than TF32"), "seed %d: %s", (int)seed,
                              msg);
                ck_assert_msg(!strstr(msg, "FP16 makes"), "seed %d: %s", (int)seed, msg);
            }
            kernel_on(&f.p, f.got, 32, 1, 1, FP16_FULL);
            ck_assert_int_eq(gemm_judge(&f.p, f.exact, f.scale, f.got, 1, msg, sizeof msg), V_WRONG);
            ck_assert_msg(strstr(msg, "FP16"), "seed %d: %s", (int)seed, msg);
        }
        drop(&f);
    }
    ck_assert_msg(found, "no seed put column 0 of B below FP16's range");
}
END_TEST

/* B read in the wrong layout (as if it were N x K, row-major) on graded
 * inputs, whose rows of A beyond FP16's range hold the worst errors: the
 * message points at the layouts, not at FP16, since C is off everywhere.
 * A kernel whose only fault is FP16's range still hears about FP16. */
START_TEST(wrong_layout_is_not_blamed_on_fp16)
{
    fixture f;
    char msg[VERDICT_MSG];
    for (int v = 0; v < 2; v++) {
        make_graded(&f, 64, 64, 64, 1.0f, v ? 0.5f : 0.0f, 70 + v);
        const gemm_problem *p = &f.p;
        for (int i = 0; i < p->M; i++)
            for (int j = 0; j < p->N; j++) {
                double t = 0;
                for (int k = 0; k < p->K; k++)
                    t += (double)p->A[(size_t)i * p->K + k] * p->B[(size_t)j * p->K + k];
                float c = (float)(p->alpha * t);
                if (p->beta != 0.0f)
                    c += p->beta * p->C0[(size_t)i * p->N + j];
                f.got[(size_t)i * p->N + j] = c;
            }
        for (int tf32 = 0; tf32 < 2; tf32++) {
            ck_assert_int_eq(gemm_judge(p, f.exact, f.scale, f.got, tf32, msg, sizeof msg), V_WRONG);
            ck_assert_msg(strstr(msg, "check how each operand is laid out"), "%s", msg);
            ck_assert_msg(!strstr(msg, "FP16"), "%s", msg);
        }
        kernel_on(p, f.got, 32, p->K, 1, FP16_FULL);
        ck_assert_int_ne(gemm_judge(p, f.exact, f.scale, f.got, 1, msg, sizeof msg), V_PASS);
        ck_assert_msg(strstr(msg, "FP16"), "%s", msg);
        drop(&f);
        /* K = 40, not a multiple of 32: a skipped tail could leave C off
         * everywhere too, so the layouts are not named. */
        make_graded(&f, 64, 64, 40, 1.0f, 0.0f, 72 + v);
        kernel_on(&f.p, f.got, 32, 32, 1, F32);
        ck_assert_int_eq(gemm_judge(&f.p, f.exact, f.scale, f.got, 0, msg, sizeof msg), V_WRONG);
        ck_assert_msg(!strstr(msg, "laid out"), "%s", msg);
        drop(&f);
    }
}
END_TEST

/* A timed call's patch, as gemm.c makes it: a few words of A and of B, about
 * a thousand times their row's (column's) scale; one of A and one of B share
 * a k, so one element of C gets both changes and their product. */
static void patch_like_the_grader(const fixture *f, uint64_t *ia, uint32_t *va, uint64_t *ib,
                                  uint32_t *vb, rng *r)
{
    const gemm_problem *p = &f->p;
    size_t k = rng_below(r, (uint64_t)p->K);
    ia[0] = (size_t)rng_below(r, (uint64_t)p->M) * p->K + k;
    ia[1] = ia[0] + p->K <= (size_t)p->M * p->K - 1 ? ia[0] + p->K : ia[0] - p->K;
    ib[0] = k * p->N + rng_below(r, (uint64_t)p->N);
    ib[1] = (ib[0] + 7 * (size_t)p->N + 3) % ((size_t)p->K * p->N);
    if (ia[1] < ia[0]) {
        uint64_t t = ia[0];
        ia[0] = ia[1], ia[1] = t;
    }
    if (ib[1] < ib[0]) {
        uint64_t t = ib[0];
        ib[0] = ib[1], ib[1] = t;
    }
    for (int t = 0; t < 2; t++) {
        va[t] = bits_of((t ? -1.0f : 1.0f) * rng_uniform(r, 512.0f, 1024.0f) * 1.25f);
        vb[t] = bits_of((t ? 1.0f : -1.0f) * rng_uniform(r, 512.0f, 1024.0f));
    }
}

/* Copies of a fixture's expected values, to compare with after an undo. */
static double *kept(const double *x, size_t n)
{
    double *k = malloc(n * sizeof *k);
    ck_assert_ptr_nonnull(k);
    memcpy(k, x, n * sizeof *k);
    return k;
}

/* f's patched expectation against g's reference of the patched inputs. */
static void assert_expectation_matches(const fixture *f, const fixture *g, size_t mn)
{
    for (size_t e = 0; e < mn; e++) {
        ck_assert_msg(fabs(f->exact[e] - g->exact[e]) <= 1e-12 * g->scale[e], "exact at %zu", e);
        ck_assert_msg(fabs(f->scale[e] - g->scale[e]) <= 1e-12 * g->scale[e], "scale at %zu", e);
    }
}

/* After the undo, every bit as kept; frees the copies. */
static void assert_restored(const fixture *f, double *exact0, double *scale0, size_t mn)
{
    ck_assert(memcmp(exact0, f->exact, mn * sizeof(double)) == 0);
    ck_assert(memcmp(scale0, f->scale, mn * sizeof(double)) == 0);
    free(exact0);
    free(scale0);
}

START_TEST(patched_expectation_is_exact)
{
    fixture f, g;
    char msg[VERDICT_MSG];
    const int M = 37, N = 29, K = 300;
    make_graded(&f, M, N, K, 0.75f, -0.5f, 41);
    make_graded(&g, M, N, K, 0.75f, -0.5f, 41); /* to be patched */
    rng r;
    rng_seed(&r, 5);
    uint64_t ia[2], ib[2];
    uint32_t va[2], vb[2];
    patch_like_the_grader(&f, ia, va, ib, vb, &r);
    for (int t = 0; t < 2; t++) {
        memcpy(&g.A[ia[t]], &va[t], 4);
        memcpy(&g.B[ib[t]], &vb[t], 4);
    }
    ck_assert_int_eq(gemm_reference(&g.p, g.exact, g.scale), 0);
    size_t mn = (size_t)M * N;
    double *exact0 = kept(f.exact, mn), *scale0 = kept(f.scale, mn);
    double *save = malloc(2 * 2 * (size_t)(M + N) * sizeof(double));
    gemm_patch_expect(&f.p, f.exact, f.scale, ia, va, 2, ib, vb, 2, save);
    assert_expectation_matches(&f, &g, mn);
    size_t changed = 0;
    for (size_t e = 0; e < mn; e++)
        changed += f.exact[e] != exact0[e];
    ck_assert_uint_ge(changed, 2 * N + 2 * M - 8); /* two rows and two columns */
    /* The C of the patched inputs passes; the earlier C (a replay) fails. */
    kernel_on(&g.p, f.got, 32, K, 1, F32);
    ck_assert_msg(gemm_judge(&f.p, f.exact, f.scale, f.got, 0, msg, sizeof msg) == V_PASS, "%s",
                  msg);
    kernel_on(&f.p, f.got, 32, K, 1, F32);
    ck_assert_int_eq(gemm_judge(&f.p, f.exact, f.scale, f.got, 0, msg, sizeof msg), V_WRONG);
    ck_assert_int_eq(gemm_judge(&f.p, f.exact, f.scale, f.got, 1, msg, sizeof msg), V_WRONG);
    gemm_patch_undo(&f.p, f.exact, f.scale, ia, 2, ib, 2, save);
    assert_restored(&f, exact0, scale0, mn);
    free(save);
    drop(&f);
    drop(&g);
}
END_TEST

/* Patches that collide: two words in one row of A, two in one column of B,
 * and the row's k shared with the column's, so C's element at that row and
 * column gets four changes. The expectation is still that of the patched
 * inputs, and the undo gives back every bit. */
START_TEST(patched_expectation_with_collisions)
{
    fixture f, g;
    const int M = 33, N = 70, K = 45;
    make_graded(&f, M, N, K, -1.25f, 0.5f, 43);
    make_graded(&g, M, N, K, -1.25f, 0.5f, 43);
    rng r;
    rng_seed(&r, 9);
    size_t i = rng_below(&r, (uint64_t)M), j = rng_below(&r, (uint64_t)N);
    size_t k0 = 3 + rng_below(&r, 10), k1 = k0 + 20;
    uint64_t ia[3] = {i * K + k0, i * K + k1, (i + 1) % M * K + k1};
    uint64_t ib[3] = {k0 * N + j, k1 * N + j, k1 * N + (j + 5) % N};
    if (ia[2] < ia[1]) { /* ascending, as patch_pick gives them */
        uint64_t t = ia[2];
        ia[2] = ia[1], ia[1] = ia[0] < t ? t : ia[0], ia[0] = ia[0] < t ? ia[0] : t;
    }
    if (ib[2] < ib[1]) {
        uint64_t t = ib[2];
        ib[2] = ib[1], ib[1] = t;
    }
    uint32_t va[3], vb[3];
    for (int t = 0; t < 3; t++) {
        va[t] = bits_of((t & 1 ? -1.0f : 1.0f) * rng_uniform(&r, 512.0f, 1024.0f));
        vb[t] = bits_of((t & 1 ? 1.0f : -1.0f) * rng_uniform(&r, 512.0f, 1024.0f));
        memcpy(&g.A[ia[t]], &va[t], 4);
        memcpy(&g.B[ib[t]], &vb[t], 4);
    }
    ck_assert_int_eq(gemm_reference(&g.p, g.exact, g.scale), 0);
    size_t mn = (size_t)M * N;
    double *exact0 = kept(f.exact, mn), *scale0 = kept(f.scale, mn);
    double *save = malloc(2 * 3 * (size_t)(M + N) * sizeof(double));
    gemm_patch_expect(&f.p, f.exact, f.scale, ia, va, 3, ib, vb, 3, save);
    assert_expectation_matches(&f, &g, mn);
    ck_assert(f.exact[i * N + j] != exact0[i * N + j]);
    gemm_patch_undo(&f.p, f.exact, f.scale, ia, 3, ib, 3, save);
    assert_restored(&f, exact0, scale0, mn);
    free(save);
    drop(&f);
    drop(&g);
}
END_TEST

/* The first look at a timed call's C that writes nothing (gemm_patched_within)
 * against the way it was done before: the expected C patched in place, then
 * compare_all_within. Its overrides must hold the patched expectation bit for
 * bit, and the two must agree whether the output is right or wrong, in a
 * patched row, a patched column, where they cross, or elsewhere. Patches
 * collide (rows and columns patched twice) in some iterations. */
START_TEST(patched_first_look_agrees)
{
    const int M = _i % 4 == 3 ? 150 : 41, N = 52, K = 37 + 8 * _i; /* 150: rows on 2+ threads */
    const float alpha = _i % 2 ? 0.75f : -1.5f, beta = _i % 3 ? 0.5f : 0.0f;
    const int tf32 = _i / 2 % 2;
    fixture f;
    make_graded(&f, M, N, K, alpha, beta, 100 + _i);
    size_t mn = (size_t)M * N;
    double *exact0 = kept(f.exact, mn), *scale0 = kept(f.scale, mn);
    rng r;
    rng_seed(&r, 200 + _i);
    enum { NP = 4 };
    uint64_t ia[NP], ib[NP];
    uint32_t va[NP], vb[NP];
    for (int t = 0; t < NP; t++) { /* iterations 1, 3, ...: rows and columns patched twice */
        size_t i = _i % 2 && t % 2 ? ia[t - 1] / K : rng_below(&r, (uint64_t)M);
        size_t j = _i % 2 && t % 2 ? ib[t - 1] % N : rng_below(&r, (uint64_t)N);
        size_t ka = rng_below(&r, (uint64_t)K), kb = rng_below(&r, (uint64_t)K);
        if (t == 0) /* A's patch in column k, B's in row k: the row needs the patched B */
            kb = ka;
        ia[t] = i * K + ka, ib[t] = kb * N + j;
        va[t] = bits_of((rng_below(&r, 2) ? -1.0f : 1.0f) * rng_uniform(&r, 512.0f, 1024.0f));
        vb[t] = bits_of((rng_below(&r, 2) ? -1.0f : 1.0f) * rng_uniform(&r, 512.0f, 1024.0f));
    }
    for (int a = 0; a < NP; a++) /* ascending and distinct, as patch_pick makes them */
        for (int b = a + 1; b < NP; b++) {
            if (ia[b] < ia[a]) {
                uint64_t x = ia[a];
                ia[a] = ia[b], ia[b] = x;
            }
            if (ib[b] < ib[a]) {
                uint64_t x = ib[a];
                ib[a] = ib[b], ib[b] = x;
            }
        }
    for (int t = 1; t < NP; t++) {
        if (ia[t] == ia[t - 1])
            ia[t] = ia[t - 1] + 1;
        if (ib[t] == ib[t - 1])
            ib[t] = ib[t - 1] + 1;
    }
    double *save = malloc(2 * NP * (size_t)(M + N) * sizeof(double));
    double *pe = NULL, *ps = NULL; /* the patched expectation, the old way */
    gemm_patch_expect(&f.p, f.exact, f.scale, ia, va, NP, ib, vb, NP, save);
    pe = kept(f.exact, mn), ps = kept(f.scale, mn);
    gemm_patch_undo(&f.p, f.exact, f.scale, ia, NP, ib, NP, save);
    double t1, t2;
    gemm_tolerance_factors(K, tf32, &t1, &t2);
    int outcomes[2] = {0, 0};
    for (int where = 0; where < 5; where++) {
        for (size_t e = 0; e < mn; e++)
            f.got[e] = (float)pe[e];
        size_t i = where == 1 || where == 3 ? ia[0] / K : (size_t)rng_below(&r, (uint64_t)M);
        size_t j = where == 2 || where == 3 ? ib[0] % N : (size_t)rng_below(&r, (uint64_t)N);
        size_t e = i * N + j;
        if (where < 4) { /* well outside (x3) or inside (x0.4), by turns */
            double tol = t1 * ps[e] + t2 * ps[e];
            f.got[e] = (float)(pe[e] + ((where + _i) % 2 ? 3.0 : 0.4) * tol);
        }
        int now = gemm_patched_within(&f.p, f.exact, f.scale, f.got, ia, va, NP, ib, vb, NP, tf32,
                                      save);
        ck_assert(memcmp(exact0, f.exact, mn * sizeof(double)) == 0); /* nothing written */
        ck_assert(memcmp(scale0, f.scale, mn * sizeof(double)) == 0);
        int before = compare_all_within(pe, ps, f.got, mn, t1, t2);
        ck_assert_msg(now == before, "where %d, C[%zu][%zu]: %d, before %d", where, i, j, now,
                      before);
        outcomes[now]++;
    }
    ck_assert_int_gt(outcomes[1], 0); /* the untouched C passes */
    ck_assert_int_eq(outcomes[0], 2);  /* and two of the four changed ones fail */
    /* The overrides in save: the patched rows' values, bit for bit. */
    size_t row0 = ia[0] / K;
    ck_assert(memcmp(save, pe + row0 * N, (size_t)N * sizeof(double)) == 0);
    ck_assert(memcmp(save + N, ps + row0 * N, (size_t)N * sizeof(double)) == 0);
    free(pe);
    free(ps);
    free(save);
    free(exact0);
    free(scale0);
    drop(&f);
}
END_TEST

/* gemm_check_patched, the flow both labs' checks share: a replayed C (the
 * unpatched result) fails the first look, and the slow way then calls it
 * WRONG RESULT; the patched problem's own C passes (every kind); and the
 * expected values are left exactly as they were. */
START_TEST(check_patched_judges_whole)
{
    const int M = 30, N = 40, K = 64;
    fixture f;
    make_graded(&f, M, N, K, 1.0f, 0.0f, 7);
    size_t mn = (size_t)M * N;
    uint64_t ia[1] = {5 * (uint64_t)K + 9}, ib[1] = {9 * (uint64_t)N + 17};
    uint32_t va[1] = {bits_of(800.0f)}, vb[1] = {bits_of(-900.0f)};
    double *save = malloc(2 * (size_t)(M + N) * sizeof(double));
    ck_assert_ptr_nonnull(save);
    double *exact0 = kept(f.exact, mn), *scale0 = kept(f.scale, mn);
    char msg[VERDICT_MSG];
    for (size_t e = 0; e < mn; e++) /* the unpatched C: a replayed result */
        f.got[e] = (float)f.exact[e];
    ck_assert_int_eq(gemm_patched_within(&f.p, f.exact, f.scale, f.got, ia, va, 1, ib, vb, 1,
                                         GEMM_FP32, save),
                     0);
    ck_assert_int_eq(gemm_check_patched(&f.p, f.exact, f.scale, f.got, NULL, NULL, 0, NULL, NULL,
                                        0, GEMM_FP32, save, msg, sizeof msg),
                     V_PASS); /* no patches: it is the right C */
    ck_assert_int_eq(gemm_check_patched(&f.p, f.exact, f.scale, f.got, ia, va, 1, ib, vb, 1,
                                        GEMM_FP32, save, msg, sizeof msg),
                     V_WRONG);
    ck_assert_msg(strstr(msg, "elements of C are wrong"), "%s", msg);
    ck_assert(memcmp(exact0, f.exact, mn * sizeof(double)) == 0);
    /* The patched inputs' C, rounded to float: passes in both kinds. */
    gemm_patch_expect(&f.p, f.exact, f.scale, ia, va, 1, ib, vb, 1, save);
    for (size_t e = 0; e < mn; e++)
        f.got[e] = (float)f.exact[e];
    gemm_patch_undo(&f.p, f.exact, f.scale, ia, 1, ib, 1, save);
    for (int kind = GEMM_FP32; kind <= GEMM_TC_SUM; kind++)
        ck_assert_int_eq(gemm_check_patched(&f.p, f.exact, f.scale, f.got, ia, va, 1, ib, vb, 1,
                                            kind, save, msg, sizeof msg),
                         V_PASS);
    /* One element of the patched row off by far more than its bound. */
    f.got[5 * (size_t)N + 3] += 1000.0f;
    ck_assert_int_eq(gemm_check_patched(&f.p, f.exact, f.scale, f.got, ia, va, 1, ib, vb, 1,
                                        GEMM_TF32, save, msg, sizeof msg),
                     V_WRONG);
    assert_restored(&f, exact0, scale0, mn);
    free(save);
    drop(&f);
}
END_TEST

extern const lab_spec lab_gemm;

/* The shapes, the benchmark 4096^3 (137 GFLOP per call). */
START_TEST(sizes_and_stages)
{
    const char *want[] = {"M 1, N 1, K 1",          "M 1, N 4096, K 1",    "M 17, N 33, K 65",
                          "M 127, N 129, K 131",    "M 1000, N 1003, K 997", "M 4096, N 64, K 4096",
                          "M 64, N 4096, K 64",     "M 4096, N 4096, K 4096"};
    ck_assert_int_eq(lab_gemm.n_sizes, 8);
    for (int i = 0; i < 8; i++) {
        char t[64];
        lab_gemm.size_text(i, t, sizeof t);
        ck_assert_str_eq(t, want[i]);
    }
    ck_assert_double_eq_tol(lab_gemm.work(1, 7), 0.137438953472, 1e-12);
    ck_assert_int_eq(lab_gemm.n_stages, 9);
    ck_assert_str_eq(lab_ceiling_name(&lab_gemm, 8), "cuBLAS SGEMM (TF32 tensor cores)");
    ck_assert_str_eq(lab_ceiling_name(&lab_gemm, 7), "cuBLAS SGEMM (FP32)");
    ck_assert_int_eq(lab_gemm.available, 1);
}
END_TEST

Suite *make_gemm_suite(void)
{
    Suite *s = suite_create("gemm");
    TCase *tc = tcase_create("gemm");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, reference_is_exact);
    tcase_add_loop_test(tc, float32_orders_pass, 0, (int)(sizeof shapes / sizeof shapes[0]));
    tcase_add_test(tc, wrong_results_fail);
    tcase_add_test(tc, tolerance_grows_with_k);
    tcase_add_test(tc, graded_inputs_have_every_kind);
    tcase_add_loop_test(tc, graded_inputs_tell_formats, 0,
                        (int)(sizeof graded_shapes / sizeof graded_shapes[0]));
    tcase_add_loop_test(tc, tf32_spread_tells_bf16, 0,
                        (int)(sizeof spread_shapes / sizeof spread_shapes[0]));
    tcase_add_test(tc, wrong_layout_is_not_blamed_on_fp16);
    tcase_add_test(tc, bf16_below_fp16_range_is_precision);
    tcase_add_test(tc, patched_expectation_is_exact);
    tcase_add_test(tc, patched_expectation_with_collisions);
    tcase_add_loop_test(tc, patched_first_look_agrees, 0, 8);
    tcase_add_test(tc, check_patched_judges_whole);
    tcase_add_test(tc, sizes_and_stages);
    suite_add_tcase(s, tc);
    return s;
}
