/* check_gemm.c: lab 4's CPU reference and judgement. Float32 results in the
 * orders GPU kernels use must pass; a result that ignores beta, one that skips
 * the last partial tile of K, one computed from inputs rounded to FP16, and
 * unwritten or NaN elements must fail, each with its explanation. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

static void kernel(fixture *f, int tile, int k_end, int use_beta, int fp16)
{
    const gemm_problem *p = &f->p;
    for (int i = 0; i < p->M; i++)
        for (int j = 0; j < p->N; j++) {
            float total = 0.0f;
            for (int k0 = 0; k0 < k_end; k0 += tile) {
                float part = 0.0f;
                for (int k = k0; k < k0 + tile && k < k_end; k++) {
                    float a = p->A[(size_t)i * p->K + k], b = p->B[(size_t)k * p->N + j];
                    if (fp16) {
                        a = round_fp16(a);
                        b = round_fp16(b);
                    }
                    part = fmaf(a, b, part);
                }
                total += part;
            }
            float c = p->alpha * total;
            if (use_beta && p->beta != 0.0f)
                c = fmaf(p->beta, p->C0[(size_t)i * p->N + j], c);
            f->got[(size_t)i * p->N + j] = c;
        }
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
    tcase_add_test(tc, sizes_and_stages);
    suite_add_tcase(s, tc);
    return s;
}
