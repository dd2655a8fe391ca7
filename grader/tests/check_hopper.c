/* check_hopper.c: lab 7's pure parts. BF16 rounding to nearest even; the
 * graded inputs are BF16 values, the same in the floats the reference reads
 * and the bits the stages read (Bt transposed); a timed call's patch of
 * 32-bit words becomes lab 4's float patches at the right elements, so the
 * expected C of a patched call is the reference of the patched inputs; an
 * FP32 sum of the exact BF16 products passes lab 4's float32 bound, and an
 * accumulator rounded to BF16 or a dropped tail of K does not; the spec's
 * table holds the thresholds, bases and capability gates the handout states. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/rng.h"
#include "../lab.h"
#include "../labs/gemm_lab.h"
#include "../labs/hopper_lab.h"
#include "../verdict.h"
#include "tests.h"

extern const lab_spec lab_hopper;

START_TEST(bf16_rounds_to_nearest_even)
{
    ck_assert_float_eq(hopper_bf16_round(1.0f), 1.0f);
    ck_assert_float_eq(hopper_bf16_round(-0.375f), -0.375f);
    /* halfway: to the even neighbour */
    ck_assert_float_eq(hopper_bf16_round(1.0f + 0x1p-8f), 1.0f);
    ck_assert_float_eq(hopper_bf16_round(1.0f + 0x1p-7f + 0x1p-8f), 1.0f + 0x1p-6f);
    /* above and below halfway */
    ck_assert_float_eq(hopper_bf16_round(1.0f + 0x1p-8f + 0x1p-20f), 1.0f + 0x1p-7f);
    ck_assert_float_eq(hopper_bf16_round(1.0f + 0x1p-8f - 0x1p-20f), 1.0f);
    /* float32's range, not FP16's */
    ck_assert_float_eq(hopper_bf16_round(0x1p100f), 0x1p100f);
    ck_assert_float_eq(hopper_bf16_round(0x1p-100f), 0x1p-100f);
    ck_assert(isnan(hopper_bf16_round(NAN)));
    ck_assert_uint_eq(hopper_bf16_bits(1.0f), 0x3F80);
    ck_assert_uint_eq(hopper_bf16_bits(-2.0f), 0xC000);
    ck_assert_float_eq(hopper_bf16_float(0x3F80), 1.0f);
    ck_assert_float_eq(hopper_bf16_float(hopper_bf16_bits(3.14159f)), hopper_bf16_round(3.14159f));
}
END_TEST

typedef struct inputs {
    int M, N, K;
    float *A, *B;
    uint16_t *hA, *hBt;
} inputs;

static void make_inputs(inputs *in, int M, int N, int K, uint64_t seed)
{
    in->M = M, in->N = N, in->K = K;
    in->A = malloc((size_t)M * K * sizeof(float));
    in->B = malloc((size_t)K * N * sizeof(float));
    in->hA = malloc((size_t)M * K * sizeof(uint16_t));
    in->hBt = malloc((size_t)N * K * sizeof(uint16_t));
    ck_assert(in->A && in->B && in->hA && in->hBt);
    rng r;
    rng_seed(&r, seed);
    hopper_fill_inputs(M, N, K, in->A, in->B, in->hA, in->hBt, &r);
}

static void free_inputs(inputs *in)
{
    free(in->A), free(in->B), free(in->hA), free(in->hBt);
}

START_TEST(inputs_are_bf16_in_both_layouts)
{
    inputs in, again;
    make_inputs(&in, 37, 29, 24, 5);
    make_inputs(&again, 37, 29, 24, 5);
    int beyond_fp16 = 0;
    for (int i = 0; i < in.M; i++)
        for (int k = 0; k < in.K; k++) {
            size_t e = (size_t)i * in.K + k;
            ck_assert_float_eq(in.A[e], hopper_bf16_round(in.A[e]));
            ck_assert_float_eq(in.A[e], hopper_bf16_float(in.hA[e]));
            beyond_fp16 |= fabsf(in.A[e]) > 65504.0f;
        }
    for (int k = 0; k < in.K; k++)
        for (int j = 0; j < in.N; j++) {
            float b = in.B[(size_t)k * in.N + j];
            ck_assert_float_eq(b, hopper_bf16_round(b));
            ck_assert_float_eq(b, hopper_bf16_float(in.hBt[(size_t)j * in.K + k]));
        }
    ck_assert_msg(beyond_fp16, "no row of A beyond FP16's range");
    ck_assert_mem_eq(in.hA, again.hA, (size_t)in.M * in.K * sizeof(uint16_t));
    ck_assert_mem_eq(in.hBt, again.hBt, (size_t)in.N * in.K * sizeof(uint16_t));
    free_inputs(&in);
    free_inputs(&again);
}
END_TEST

/* C = A B in double, then rounded to float: a result within any bound. */
static void product(const float *A, const float *B, int M, int N, int K, float *C)
{
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double s = 0;
            for (int k = 0; k < K; k++)
                s += (double)A[(size_t)i * K + k] * B[(size_t)k * N + j];
            C[(size_t)i * N + j] = (float)s;
        }
}

/* Words of A (bt 0) or Bt (bt 1) patched on the bits, then read as floats in
 * lab 4's layout (B K x N). */
static void apply_words(const inputs *in, int bt, const uint64_t *idx, const uint32_t *val,
                        int n, float *X)
{
    size_t elems = (size_t)(bt ? in->N : in->M) * in->K;
    uint16_t *bits = malloc(elems * sizeof *bits);
    ck_assert_ptr_nonnull(bits);
    memcpy(bits, bt ? in->hBt : in->hA, elems * sizeof *bits);
    for (int p = 0; p < n; p++) {
        bits[2 * idx[p]] = (uint16_t)(val[p] & 0xFFFF);
        bits[2 * idx[p] + 1] = (uint16_t)(val[p] >> 16);
    }
    for (size_t e = 0; e < elems; e++) {
        size_t row = e / (size_t)in->K, k = e % (size_t)in->K;
        if (bt)
            X[k * (size_t)in->N + row] = hopper_bf16_float(bits[e]);
        else
            X[e] = hopper_bf16_float(bits[e]);
    }
    free(bits);
}

START_TEST(patched_words_are_lab4_patches)
{
    inputs in;
    const int M = 9, N = 11, K = 24;
    make_inputs(&in, M, N, K, 11);
    /* words: in A two in one row (both halves of a row's patch) and one in
     * another; in Bt one per row, given ascending as patch_pick gives them */
    const uint64_t ia[] = {3, 4, 40}, ib[] = {1, 13, 100};
    uint32_t va[3], vb[3];
    for (int p = 0; p < 3; p++) {
        va[p] = (uint32_t)hopper_bf16_bits(600.0f + p) | (uint32_t)hopper_bf16_bits(-700.0f) << 16;
        vb[p] = (uint32_t)hopper_bf16_bits(-900.0f) | (uint32_t)hopper_bf16_bits(512.0f + p) << 16;
    }
    uint64_t fia[6], fib[6];
    uint32_t fva[6], fvb[6];
    hopper_patch_floats(ia, va, 3, K, N, 0, fia, fva);
    hopper_patch_floats(ib, vb, 3, K, N, 1, fib, fvb);
    for (int p = 1; p < 6; p++) {
        ck_assert_uint_gt(fia[p], fia[p - 1]);
        ck_assert_uint_gt(fib[p], fib[p - 1]);
    }
    /* word 13 of Bt: elements 26 and 27, row j = 1, k = 2 and 3: B[2][1], B[3][1] */
    int found = 0;
    for (int p = 0; p < 6; p++)
        found += fib[p] == (uint64_t)2 * N + 1 || fib[p] == (uint64_t)3 * N + 1;
    ck_assert_int_eq(found, 2);

    float *A2 = malloc((size_t)M * K * sizeof(float)), *B2 = malloc((size_t)K * N * sizeof(float));
    float *got = malloc((size_t)M * N * sizeof(float)), *old = malloc((size_t)M * N * sizeof(float));
    double *exact = malloc((size_t)M * N * sizeof(double)),
           *scale = malloc((size_t)M * N * sizeof(double));
    double *save = malloc(2 * (size_t)6 * (M + N) * sizeof(double));
    ck_assert(A2 && B2 && got && old && exact && scale && save);
    apply_words(&in, 0, ia, va, 3, A2);
    apply_words(&in, 1, ib, vb, 3, B2);
    product(A2, B2, M, N, K, got);
    product(in.A, in.B, M, N, K, old);
    gemm_problem p = {M, N, K, 1.0f, 0.0f, in.A, in.B, NULL};
    ck_assert_int_eq(gemm_reference(&p, exact, scale), 0);
    /* the patched inputs' C passes, the unpatched inputs' C does not */
    ck_assert(gemm_patched_within(&p, exact, scale, got, fia, fva, 6, fib, fvb, 6, GEMM_TC_SUM,
                                  save));
    ck_assert(!gemm_patched_within(&p, exact, scale, old, fia, fva, 6, fib, fvb, 6, GEMM_TC_SUM,
                                   save));
    char msg[512];
    gemm_patch_expect(&p, exact, scale, fia, fva, 6, fib, fvb, 6, save);
    ck_assert_int_eq(gemm_judge(&p, exact, scale, got, GEMM_TC_SUM, msg, sizeof msg), V_PASS);
    ck_assert_int_ne(gemm_judge(&p, exact, scale, old, GEMM_TC_SUM, msg, sizeof msg), V_PASS);
    gemm_patch_undo(&p, exact, scale, fia, 6, fib, 6, save);
    ck_assert_int_eq(gemm_judge(&p, exact, scale, old, GEMM_TC_SUM, msg, sizeof msg), V_PASS);
    free(A2), free(B2), free(got), free(old), free(exact), free(scale), free(save);
    free_inputs(&in);
}
END_TEST

/* What a tensor-core stage computes: the exact products (BF16 x BF16 fits
 * FP32) summed in FP32, k by k, over the first kmax of K; round_bf16 rounds
 * the final sum to BF16. */
static void fp32_sum(const inputs *in, int kmax, int round_bf16, float *C)
{
    for (int i = 0; i < in->M; i++)
        for (int j = 0; j < in->N; j++) {
            float s = 0;
            for (int k = 0; k < kmax; k++)
                s += in->A[(size_t)i * in->K + k] * in->B[(size_t)k * in->N + j];
            C[(size_t)i * in->N + j] = round_bf16 ? hopper_bf16_round(s) : s;
        }
}

static int judge(const inputs *in, const float *got)
{
    size_t mn = (size_t)in->M * in->N;
    double *exact = malloc(mn * sizeof *exact), *scale = malloc(mn * sizeof *scale);
    ck_assert(exact && scale);
    gemm_problem p = {in->M, in->N, in->K, 1.0f, 0.0f, in->A, in->B, NULL};
    ck_assert_int_eq(gemm_reference(&p, exact, scale), 0);
    char msg[512];
    int v = gemm_judge(&p, exact, scale, got, GEMM_TC_SUM, msg, sizeof msg);
    free(exact);
    free(scale);
    return v;
}

START_TEST(fp32_sums_pass_shortcuts_fail)
{
    inputs in;
    make_inputs(&in, 24, 40, 136, 3); /* 136 = 2 * 64 + 8: a tail of K */
    float *C = malloc((size_t)in.M * in.N * sizeof(float));
    ck_assert_ptr_nonnull(C);
    fp32_sum(&in, in.K, 0, C);
    ck_assert_int_eq(judge(&in, C), V_PASS);
    fp32_sum(&in, in.K, 1, C); /* the accumulator rounded to BF16 */
    ck_assert_int_ne(judge(&in, C), V_PASS);
    fp32_sum(&in, 128, 0, C); /* the tail of K dropped */
    ck_assert_int_ne(judge(&in, C), V_PASS);
    free(C);
    free_inputs(&in);
    make_inputs(&in, 8, 16, 4096, 9); /* long sums in FP32 stay inside the bound */
    C = malloc((size_t)in.M * in.N * sizeof(float));
    ck_assert_ptr_nonnull(C);
    fp32_sum(&in, in.K, 0, C);
    ck_assert_int_eq(judge(&in, C), V_PASS);
    fp32_sum(&in, in.K, 1, C); /* and the bound still sees a BF16 accumulator there */
    ck_assert_int_ne(judge(&in, C), V_PASS);
    free(C);
    free_inputs(&in);
}
END_TEST

/* The tensor cores may truncate as they add each k-step's products into the
 * accumulator. Where one product dominates (a timed call's patch: |C| is
 * about its scale), K / 16 truncations of up to one ulp each are allowed in
 * lab 7's BF16 stages; lab 4's float32 bound alone did not allow them (on
 * the H200 the given stage 0 was once off by about 270 u scale there, u = 2^-24,
 * against 264). */
START_TEST(tensor_core_truncation_is_allowed)
{
    inputs in;
    make_inputs(&in, 1, 1, 4096, 21);
    in.A[0] = 768.0f; /* a patch-like product: 768 times the rest's largest */
    in.B[0] = 1.0f;
    double exact, scale;
    gemm_problem p = {1, 1, in.K, 1.0f, 0.0f, in.A, in.B, NULL};
    ck_assert_int_eq(gemm_reference(&p, &exact, &scale), 0);
    ck_assert(fabs(exact) > 0.9 * scale);
    float c = (float)exact;
    float ulp = nextafterf(fabsf(c), INFINITY) - fabsf(c);
    float got = c - copysignf((float)(in.K / 16) * ulp, c); /* every k-step truncated by an ulp */
    char msg[512];
    ck_assert_int_eq(gemm_judge(&p, &exact, &scale, &got, GEMM_TC_SUM, msg, sizeof msg), V_PASS);
    ck_assert_int_eq(gemm_judge(&p, &exact, &scale, &got, GEMM_FP32, msg, sizeof msg), V_WRONG);
    got = c - copysignf((float)(in.K / 4) * ulp, c); /* four times that: wrong */
    ck_assert_int_eq(gemm_judge(&p, &exact, &scale, &got, GEMM_TC_SUM, msg, sizeof msg), V_WRONG);
    free_inputs(&in);
}
END_TEST

/* The table: what the handout and the skeleton state. */
START_TEST(spec_table)
{
    const lab_spec *l = &lab_hopper;
    ck_assert_int_eq(l->number, 7);
    ck_assert_str_eq(l->dir, "7-hopper");
    ck_assert_int_eq(l->available, 1);
    ck_assert_int_eq(l->n_stages, 6);
    static const double speedup[] = {0, 1.3, 1.15, 1.1, 1.08, 0};
    static const double share[] = {0, 0, 0, 0.6, 0.8, 0.7};
    int points = 0;
    for (int s = 0; s < l->n_stages; s++) {
        const lab_stage *st = &l->stages[s];
        ck_assert_int_eq(st->given, s == 0);
        ck_assert_int_eq(st->min_cc, 90);
        ck_assert_int_eq(st->max_cc, 90);
        ck_assert(lab_stage_available(st, 9, 0));
        ck_assert(!lab_stage_available(st, 8, 9));
        ck_assert(!lab_stage_available(st, 10, 0));
        ck_assert(st->min_speedup == speedup[s]);
        if (s > 0 && s < 5) {
            ck_assert_int_eq(st->n_base, 1);
            ck_assert_int_eq(st->base[0], s - 1);
        }
        if (s > 0) {
            ck_assert_int_gt(st->points_speed, 0);
            ck_assert_int_ge(lab_stage_techniques(st), 2); /* HGMMA and UTMALDG */
        }
        if (s == 5) { /* the bonus, another problem: held to cuBLAS TF32 alone */
            ck_assert_int_eq(st->n_base, 0);
            ck_assert_str_eq(lab_ceiling_name(l, s), "cuBLAS SGEMM (TF32 tensor cores)");
            ck_assert_str_eq(st->symbol, "hopper_tf32");
        }
        ck_assert(st->min_ceiling == share[s]);
        points += st->points_correct + st->points_speed;
    }
    ck_assert_int_eq(points, 100);
    /* every size: K a multiple of 8 (hopper.h); the benchmark size 4096^3 */
    for (int z = 0; z < l->n_sizes; z++) {
        char text[64];
        int M, N, K;
        l->size_text(z, text, sizeof text);
        ck_assert_int_eq(sscanf(text, "M %d, N %d, K %d", &M, &N, &K), 3);
        ck_assert_msg(K % 8 == 0 && K >= 8 && M >= 1 && N >= 1, "size %s", text);
    }
    char bench[64];
    l->size_text(l->bench_size, bench, sizeof bench);
    ck_assert_str_eq(bench, "M 4096, N 4096, K 4096");
    ck_assert(fabs(l->work(1, l->bench_size) - 2.0 * 4096.0 * 4096.0 * 4096.0 / 1e12) < 1e-12);
}
END_TEST

Suite *make_hopper_suite(void)
{
    Suite *s = suite_create("hopper");
    TCase *tc = tcase_create("hopper");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, bf16_rounds_to_nearest_even);
    tcase_add_test(tc, inputs_are_bf16_in_both_layouts);
    tcase_add_test(tc, patched_words_are_lab4_patches);
    tcase_add_test(tc, fp32_sums_pass_shortcuts_fail);
    tcase_add_test(tc, tensor_core_truncation_is_allowed);
    tcase_add_test(tc, spec_table);
    suite_add_tcase(s, tc);
    return s;
}
