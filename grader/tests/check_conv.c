/* check_conv.c: lab 6's CPU reference and judgement of a convolution. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/rng.h"
#include "../../labs/6-conv/conv.h"
#include "../lab.h"
#include "../labs/conv_lab.h"
#include "../verdict.h"
#include "tests.h"

typedef struct fixture {
    conv_problem p;
    float *x, *w, *got;
    double *exact, *scale;
    size_t n;
} fixture;

static void make(fixture *f, conv_layer l, uint64_t seed)
{
    rng r;
    rng_seed(&r, seed);
    size_t nx = (size_t)l.N * l.C * l.H * l.W, nw = (size_t)l.K * l.C * l.R * l.S;
    f->x = malloc(nx * sizeof(float));
    f->w = malloc(nw * sizeof(float));
    rng_fill_uniform(&r, f->x, nx, -1.0f, 1.0f);
    rng_fill_uniform(&r, f->w, nw, -1.0f, 1.0f);
    f->p = (conv_problem){l, f->x, f->w};
    f->n = conv_out_elems(&l);
    f->got = malloc(f->n * sizeof(float));
    f->exact = malloc(f->n * sizeof(double));
    f->scale = malloc(f->n * sizeof(double));
    ck_assert_int_eq(conv_reference(&f->p, f->exact, f->scale), 0);
}

static void drop(fixture *f)
{
    free(f->x);
    free(f->w);
    free(f->got);
    free(f->exact);
    free(f->scale);
}

/* A float32 direct convolution; clamp != 0 reads the nearest edge pixel
 * instead of 0 in the padding (a classic bug); nhwc writes n, p, q, k order. */
static void direct(fixture *f, int clamp, int nhwc)
{
    const conv_layer *l = &f->p.l;
    int P = conv_out_h(l), Q = conv_out_w(l);
    for (int n = 0; n < l->N; n++)
        for (int k = 0; k < l->K; k++)
            for (int p = 0; p < P; p++)
                for (int q = 0; q < Q; q++) {
                    float acc = 0.0f;
                    for (int c = 0; c < l->C; c++)
                        for (int r = 0; r < l->R; r++)
                            for (int s = 0; s < l->S; s++) {
                                int h = p * l->stride - l->pad + r, w = q * l->stride - l->pad + s;
                                if (clamp) {
                                    h = h < 0 ? 0 : h >= l->H ? l->H - 1 : h;
                                    w = w < 0 ? 0 : w >= l->W ? l->W - 1 : w;
                                } else if (h < 0 || h >= l->H || w < 0 || w >= l->W) {
                                    continue;
                                }
                                acc = fmaf(f->x[(((size_t)n * l->C + c) * l->H + h) * l->W + w],
                                           f->w[(((size_t)k * l->C + c) * l->R + r) * l->S + s],
                                           acc);
                            }
                    size_t e = nhwc ? (((size_t)n * P + p) * Q + q) * l->K + k
                                    : (((size_t)n * l->K + k) * P + p) * Q + q;
                    f->got[e] = acc;
                }
}

START_TEST(output_shapes)
{
    conv_layer stem = {1, 3, 224, 224, 64, 7, 7, 2, 3};
    ck_assert_int_eq(conv_out_h(&stem), 112);
    ck_assert_int_eq(conv_out_w(&stem), 112);
    conv_layer same = {2, 8, 14, 14, 16, 3, 3, 1, 1};
    ck_assert_int_eq(conv_out_h(&same), 14);
    ck_assert_uint_eq(conv_out_elems(&same), 2 * 16 * 14 * 14);
    conv_layer one = {1, 4, 5, 7, 3, 1, 1, 1, 0};
    ck_assert_int_eq(conv_out_w(&one), 7);
}
END_TEST

/* The reference against a plain loop in double, on a tiny layer. */
START_TEST(reference_is_exact)
{
    fixture f;
    conv_layer l = {2, 3, 5, 6, 4, 3, 3, 2, 1};
    make(&f, l, 11);
    int P = conv_out_h(&l), Q = conv_out_w(&l);
    for (int n = 0; n < 2; n++)
        for (int k = 0; k < 4; k++)
            for (int p = 0; p < P; p++)
                for (int q = 0; q < Q; q++) {
                    double s = 0, m = 0;
                    for (int c = 0; c < 3; c++)
                        for (int r = 0; r < 3; r++)
                            for (int t = 0; t < 3; t++) {
                                int h = p * 2 - 1 + r, w = q * 2 - 1 + t;
                                if (h < 0 || h >= 5 || w < 0 || w >= 6)
                                    continue;
                                double v = (double)f.x[((n * 3 + c) * 5 + h) * 6 + w] *
                                           f.w[((k * 3 + c) * 3 + r) * 3 + t];
                                s += v;
                                m += fabs(v);
                            }
                    size_t e = (((size_t)n * 4 + k) * P + p) * Q + q;
                    ck_assert_double_eq_tol(f.exact[e], s, 1e-12);
                    ck_assert_double_eq_tol(f.scale[e], m, 1e-12);
                }
    drop(&f);
}
END_TEST

START_TEST(judgements)
{
    fixture f;
    char msg[VERDICT_MSG];
    conv_layer l = {2, 16, 12, 12, 8, 3, 3, 1, 1};
    make(&f, l, 5);
    direct(&f, 0, 0);
    ck_assert_int_eq(conv_judge(&f.p, f.exact, f.scale, f.got, msg, sizeof msg), V_PASS);
    direct(&f, 1, 0); /* padding read as the edge pixel */
    ck_assert_int_eq(conv_judge(&f.p, f.exact, f.scale, f.got, msg, sizeof msg), V_WRONG);
    ck_assert_ptr_nonnull(strstr(msg, "on the border the padding reaches"));
    direct(&f, 0, 1); /* NHWC output */
    ck_assert_int_eq(conv_judge(&f.p, f.exact, f.scale, f.got, msg, sizeof msg), V_WRONG);
    ck_assert_ptr_nonnull(strstr(msg, "NHWC order"));
    direct(&f, 0, 0);
    f.got[100] += 0.25f;
    ck_assert_int_eq(conv_judge(&f.p, f.exact, f.scale, f.got, msg, sizeof msg), V_WRONG);
    ck_assert_ptr_nonnull(strstr(msg, "1 of 2304 outputs are wrong; the first is out[0][0][8][4]"));
    f.got[100] = NAN;
    ck_assert_int_eq(conv_judge(&f.p, f.exact, f.scale, f.got, msg, sizeof msg), V_NAN);
    /* Input and filter rounded to TF32 (10-bit mantissas, to nearest). */
    float *x = f.x, *w = f.w;
    size_t nx = (size_t)l.N * l.C * l.H * l.W, nw = (size_t)l.K * l.C * l.R * l.S;
    f.x = malloc(nx * sizeof(float));
    f.w = malloc(nw * sizeof(float));
    for (size_t i = 0; i < nx + nw; i++) {
        float v = i < nx ? x[i] : w[i - nx];
        uint32_t b;
        memcpy(&b, &v, 4);
        b = (b + 0x1000u) & ~0x1FFFu;
        memcpy(i < nx ? &f.x[i] : &f.w[i - nx], &b, 4);
    }
    direct(&f, 0, 0);
    free(f.x);
    free(f.w);
    f.x = x, f.w = w;
    ck_assert_int_eq(conv_judge(&f.p, f.exact, f.scale, f.got, msg, sizeof msg), V_WRONG);
    ck_assert_msg(strstr(msg, "rounded to a lower precision"), "%s", msg);
    memset(f.got, 0xFF, f.n * sizeof(float));
    ck_assert_int_eq(conv_judge(&f.p, f.exact, f.scale, f.got, msg, sizeof msg), V_NOT_WRITTEN);
    drop(&f);
}
END_TEST

/* A deeper layer, summed in another order (im2col's: c, r, s as one index
 * in float): passes. */
START_TEST(other_orders_pass)
{
    fixture f;
    char msg[VERDICT_MSG];
    conv_layer l = {1, 64, 9, 9, 6, 3, 3, 2, 1};
    make(&f, l, 9);
    int P = conv_out_h(&l), Q = conv_out_w(&l);
    for (int k = 0; k < l.K; k++)
        for (int p = 0; p < P; p++)
            for (int q = 0; q < Q; q++) {
                float part[4] = {0, 0, 0, 0}; /* four partial sums, as split-K would */
                int i = 0;
                for (int r = 0; r < 3; r++)
                    for (int s = 0; s < 3; s++)
                        for (int c = 0; c < l.C; c++, i++) {
                            int h = p * 2 - 1 + r, w = q * 2 - 1 + s;
                            if (h < 0 || h >= l.H || w < 0 || w >= l.W)
                                continue;
                            part[i % 4] += f.x[((size_t)c * l.H + h) * l.W + w] *
                                           f.w[(((size_t)k * l.C + c) * 3 + r) * 3 + s];
                        }
                f.got[((size_t)k * P + p) * Q + q] = (part[0] + part[1]) + (part[2] + part[3]);
            }
    ck_assert_int_eq(conv_judge(&f.p, f.exact, f.scale, f.got, msg, sizeof msg), V_PASS);
    drop(&f);
}
END_TEST

/* The layers are all there, each fits a 16 GB GPU with its im2col
 * workspace and the grader's copies, and the deep layer is deep. */
START_TEST(graded_layers)
{
    int three_by_three_big = 0, one_by_one = 0, stem = 0, odd_k = 0, tiny_k = 0, deep = 0;
    for (int i = 0; i < conv_n_layers; i++) {
        const conv_layer *l = &conv_layers[i].l;
        double in = (double)l->N * l->C * l->H * l->W, out = (double)conv_out_elems(l);
        double crs = (double)l->C * l->R * l->S, npq = out / l->K;
        double bytes = 4 * (3 * in + 3 * out + crs * npq + in); /* in + 2 copies, out + 2, work */
        ck_assert_msg(bytes < 12e9, "%s needs %.1f GB", conv_layers[i].name, bytes / 1e9);
        three_by_three_big += l->R == 3 && l->C >= 128 && l->K >= 128 && l->N == 32;
        one_by_one += l->R == 1 && l->N == 32;
        stem += l->R == 7 && l->stride == 2 && l->C == 3;
        odd_k += l->K == 27;
        tiny_k += l->K == 4;
        deep += crs > 100 * npq;
    }
    ck_assert_int_eq(three_by_three_big, 2);
    ck_assert(one_by_one && stem && odd_k && tiny_k && deep);
}
END_TEST

/* Lab 6's spec: one correctness size per graded layer, the 3 x 3 layer with
 * C = K = 128 timed, the work of a call, and scratch space for every stage's
 * copies (im2col alone; or the NHWC input, 256-byte aligned, and the KRSC
 * filter together). */
START_TEST(spec_matches_the_layers)
{
    extern const lab_spec lab_conv;
    ck_assert_int_eq(lab_conv.n_sizes, conv_n_layers);
    const conv_layer *b = &conv_layers[lab_conv.bench_size].l;
    ck_assert(b->R == 3 && b->C == 128 && b->K == 128 && b->H == 28 && b->N == 32);
    ck_assert_double_eq_tol(lab_conv.work(3, lab_conv.bench_size),
                            2.0 * 32 * 128 * 28 * 28 * 128 * 9 / 1e12, 1e-12);
    ck_assert_int_eq(lab_conv.n_stages, 5);
    ck_assert(lab_conv.stages[0].given);
    ck_assert(lab_conv.stages[4].min_ceiling > 0);
    ck_assert_int_eq(lab_conv.available, 1);
    char text[160];
    lab_conv.size_text(lab_conv.n_sizes - 1, text, sizeof text);
    ck_assert_str_eq(text, "deep and small: C = 2048, 7 x 7, K = 512 (N 1, C 2048, 7 x 7, K 512, "
                           "3 x 3, stride 1, pad 1)");
    for (int i = 0; i < conv_n_layers; i++) {
        const conv_layer *l = &conv_layers[i].l;
        conv_shape sh = {l->N, l->C, l->H, l->W, l->K, l->R, l->S, l->stride, l->pad};
        size_t im2col = (size_t)l->C * l->R * l->S * conv_out_elems(l) / l->K;
        size_t nhwc = ((size_t)l->N * l->C * l->H * l->W + 63) / 64 * 64;
        size_t filter = (size_t)l->K * l->C * l->R * l->S;
        ck_assert_uint_ge(conv_work_bytes(sh), 4 * im2col);
        ck_assert_uint_ge(conv_work_bytes(sh), 4 * (nhwc + filter));
        ck_assert_int_eq(conv_p(sh), conv_out_h(l));
        ck_assert_int_eq(conv_q(sh), conv_out_w(l));
    }
}
END_TEST

/* A timed call's patch: the expected outputs move exactly as a full
 * reference of the patched input and filter says (an input pixel and a
 * filter weight of the same channel, so some outputs get both changes), the
 * patched inputs' output passes, an earlier output (a replay) fails, and the
 * undo restores every expected value. */
static const conv_layer patch_layers[] = {{2, 5, 9, 11, 6, 3, 3, 1, 1}, {2, 3, 12, 13, 4, 5, 5, 2, 2}};

START_TEST(patched_expectation_is_exact)
{
    fixture f, g;
    char msg[VERDICT_MSG];
    conv_layer l = patch_layers[_i];
    make(&f, l, 60 + _i);
    make(&g, l, 60 + _i);
    /* x[1][2][4][5] and x[0][0][0][0] (a corner, under the padding's reach); w[3][2][1][2]. */
    uint64_t ix[2] = {0, (((size_t)1 * l.C + 2) * l.H + 4) * l.W + 5};
    uint64_t iw[2] = {(((size_t)1 * l.C + 0) * l.R + 0) * l.S + 0,
                      (((size_t)3 * l.C + 2) * l.R + 1) * l.S + 2};
    float fx[2] = {700.0f, -900.5f}, fw[2] = {-613.25f, 1000.0f};
    uint32_t vx[2], vw[2];
    memcpy(vx, fx, sizeof vx);
    memcpy(vw, fw, sizeof vw);
    for (int t = 0; t < 2; t++) {
        g.x[ix[t]] = fx[t];
        g.w[iw[t]] = fw[t];
    }
    ck_assert_int_eq(conv_reference(&g.p, g.exact, g.scale), 0);
    double *exact0 = malloc(f.n * sizeof(double)), *scale0 = malloc(f.n * sizeof(double));
    memcpy(exact0, f.exact, f.n * sizeof(double));
    memcpy(scale0, f.scale, f.n * sizeof(double));
    conv_saved *save = malloc(conv_patch_room(&l, 2, 2) * sizeof *save);
    size_t saved = conv_patch_expect(&f.p, f.exact, f.scale, ix, vx, 2, iw, vw, 2, save);
    ck_assert_uint_le(saved, conv_patch_room(&l, 2, 2));
    size_t changed = 0;
    for (size_t e = 0; e < f.n; e++) {
        ck_assert_msg(fabs(f.exact[e] - g.exact[e]) <= 1e-12 * (1 + g.scale[e]), "exact at %zu", e);
        ck_assert_msg(fabs(f.scale[e] - g.scale[e]) <= 1e-12 * (1 + g.scale[e]), "scale at %zu", e);
        changed += f.exact[e] != exact0[e];
    }
    ck_assert_uint_ge(changed, (size_t)2 * l.K); /* at least the channels around each pixel */
    float *x0 = f.x, *w0 = f.w;
    f.x = g.x, f.w = g.w; /* the patched inputs' output */
    direct(&f, 0, 0);
    f.x = x0, f.w = w0;
    ck_assert_msg(conv_judge(&f.p, f.exact, f.scale, f.got, msg, sizeof msg) == V_PASS, "%s", msg);
    direct(&f, 0, 0); /* the unpatched inputs' output: a replay */
    ck_assert_int_eq(conv_judge(&f.p, f.exact, f.scale, f.got, msg, sizeof msg), V_WRONG);
    conv_patch_undo(f.exact, f.scale, save, saved);
    ck_assert(memcmp(exact0, f.exact, f.n * sizeof(double)) == 0);
    ck_assert(memcmp(scale0, f.scale, f.n * sizeof(double)) == 0);
    free(exact0);
    free(scale0);
    free(save);
    drop(&f);
    drop(&g);
}
END_TEST

Suite *make_conv_suite(void)
{
    Suite *s = suite_create("conv");
    TCase *tc = tcase_create("conv");
    tcase_add_test(tc, output_shapes);
    tcase_add_test(tc, reference_is_exact);
    tcase_add_test(tc, judgements);
    tcase_add_test(tc, other_orders_pass);
    tcase_add_test(tc, graded_layers);
    tcase_add_test(tc, spec_matches_the_layers);
    tcase_add_loop_test(tc, patched_expectation_is_exact, 0,
                        (int)(sizeof patch_layers / sizeof patch_layers[0]));
    suite_add_tcase(s, tc);
    return s;
}
