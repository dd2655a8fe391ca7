/* conv_ref.c: lab 6's reference on the CPU and its judgement of an output.
 *
 * Each output is a dot product of length C R S (the window of the input that
 * the filter covers, zeros where it hangs over the padding), so the accuracy
 * argument of lab 4 carries over with K replaced by C R S: the grader accepts
 * |got - exact| <= (4 sqrt(C R S) + 8) u scale, scale = the sum of |x| |w|
 * over the window, u = 2^-24. The work is shared among threads by (n, k)
 * pairs; for each (n, k, c, r, s) the loop over the output row runs over q,
 * contiguous in the input when the stride is 1. */
#define _GNU_SOURCE
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3")
#endif
#include "conv_lab.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../common/compare.h"
#include "../verdict.h"

/* N, C, H, W, K, R, S, stride, pad */
const conv_named_layer conv_layers[] = {
    {"tiny, odd, stride 2", {2, 3, 5, 7, 5, 3, 3, 2, 1}},
    {"1 x 1 filter, odd sizes", {3, 17, 9, 11, 13, 1, 1, 1, 0}},
    {"5 x 5, no padding", {2, 8, 13, 13, 6, 5, 5, 1, 0}},
    {"3 x 3, C = K = 64, 56 x 56", {32, 64, 56, 56, 64, 3, 3, 1, 1}},
    {"3 x 3, C = K = 128, 28 x 28", {32, 128, 28, 28, 128, 3, 3, 1, 1}},
    {"3 x 3, C = K = 256, 14 x 14", {32, 256, 14, 14, 256, 3, 3, 1, 1}},
    {"1 x 1, C = 256, K = 64, 56 x 56", {32, 256, 56, 56, 64, 1, 1, 1, 0}},
    {"7 x 7 stride 2, C = 3, K = 64, 224 x 224", {32, 3, 224, 224, 64, 7, 7, 2, 3}},
    {"3 x 3, K = 27 (odd), C = 64, 56 x 56", {32, 64, 56, 56, 27, 3, 3, 1, 1}},
    {"3 x 3, K = 4 (tiny), C = 64, 56 x 56", {32, 64, 56, 56, 4, 3, 3, 1, 1}},
    {"deep and small: C = 2048, 7 x 7, K = 512", {1, 2048, 7, 7, 512, 3, 3, 1, 1}},
};
const int conv_n_layers = (int)(sizeof conv_layers / sizeof conv_layers[0]);

int conv_out_h(const conv_layer *l)
{
    return (l->H + 2 * l->pad - l->R) / l->stride + 1;
}

int conv_out_w(const conv_layer *l)
{
    return (l->W + 2 * l->pad - l->S) / l->stride + 1;
}

size_t conv_out_elems(const conv_layer *l)
{
    return (size_t)l->N * l->K * conv_out_h(l) * conv_out_w(l);
}

typedef struct job {
    const conv_problem *p;
    double *exact, *scale;
    int first, last; /* (n, k) pairs, as n * K + k */
} job;

static void *ref_pairs(void *arg)
{
    job *j = arg;
    const conv_layer *l = &j->p->l;
    const int P = conv_out_h(l), Q = conv_out_w(l);
    for (int nk = j->first; nk < j->last; nk++) {
        int n = nk / l->K, k = nk % l->K;
        double *acc = j->exact + (size_t)nk * P * Q, *mag = j->scale + (size_t)nk * P * Q;
        memset(acc, 0, (size_t)P * Q * sizeof(double));
        memset(mag, 0, (size_t)P * Q * sizeof(double));
        for (int c = 0; c < l->C; c++) {
            const float *x = j->p->x + ((size_t)n * l->C + c) * l->H * l->W;
            for (int r = 0; r < l->R; r++)
                for (int s = 0; s < l->S; s++) {
                    double wv = j->p->w[(((size_t)k * l->C + c) * l->R + r) * l->S + s];
                    double aw = fabs(wv);
                    /* The output columns q whose window column stays inside. */
                    int q0 = 0, q1 = Q;
                    while (q0 < Q && q0 * l->stride - l->pad + s < 0)
                        q0++;
                    while (q1 > q0 && (q1 - 1) * l->stride - l->pad + s >= l->W)
                        q1--;
                    for (int pp = 0; pp < P; pp++) {
                        int h = pp * l->stride - l->pad + r;
                        if (h < 0 || h >= l->H)
                            continue;
                        const float *row = x + (size_t)h * l->W - l->pad + s;
                        double *ar = acc + (size_t)pp * Q, *mr = mag + (size_t)pp * Q;
                        for (int q = q0; q < q1; q++) {
                            double v = row[q * l->stride];
                            ar[q] += wv * v;
                            mr[q] += aw * fabs(v);
                        }
                    }
                }
        }
    }
    return NULL;
}

int conv_reference(const conv_problem *p, double *exact, double *scale)
{
    int pairs = p->l.N * p->l.K;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int threads = cpus < 1 ? 1 : cpus > 64 ? 64 : (int)cpus;
    if (threads > pairs)
        threads = pairs;
    pthread_t tid[64];
    job jobs[64];
    int made[64] = {0};
    for (int t = 0; t < threads; t++) {
        jobs[t] = (job){p, exact, scale, (int)((long long)pairs * t / threads),
                        (int)((long long)pairs * (t + 1) / threads)};
        made[t] = pthread_create(&tid[t], NULL, ref_pairs, &jobs[t]) == 0;
        if (!made[t])
            ref_pairs(&jobs[t]); /* no thread: do it here */
    }
    for (int t = 0; t < threads; t++)
        if (made[t])
            pthread_join(tid[t], NULL);
    return 0;
}

/* The tolerance is this factor times the output's scale. */
static double tolerance_factor(const conv_layer *l)
{
    double len = (double)l->C * l->R * l->S;
    return (4.0 * sqrt(len) + 8.0) * ldexp(1.0, -24);
}

double conv_tolerance(const conv_layer *l, double scale)
{
    return tolerance_factor(l) * scale;
}

/* Is output (n, k, p, q) on a border that the padding reaches? */
static int on_padded_border(const conv_layer *l, int p, int q, int P, int Q)
{
    if (l->pad == 0)
        return 0;
    int rows = (l->pad + l->stride - 1) / l->stride, cols = rows;
    return p < rows || p >= P - rows || q < cols || q >= Q - cols;
}

int conv_judge(const conv_problem *p, const double *exact, const double *scale, const float *got,
               char *msg, size_t msgn)
{
    const conv_layer *l = &p->l;
    const int P = conv_out_h(l), Q = conv_out_w(l);
    const size_t n = conv_out_elems(l);
    if (compare_all_within(exact, scale, got, n, tolerance_factor(l), 0.0)) /* the common case */
        return V_PASS;
    size_t wrong = 0, unwritten = 0, nans = 0, border = 0, first = n;
    double worst_rel = 0; /* the largest error of a wrong output, in units of its scale */
    for (size_t e = 0; e < n; e++) {
        float g = got[e];
        int bad = isnan(g) || isinf(g) || fabs((double)g - exact[e]) > conv_tolerance(l, scale[e]);
        if (!bad)
            continue;
        wrong++;
        if (first == n)
            first = e;
        if (compare_is_unwritten(g))
            unwritten++;
        else if (isnan(g) || isinf(g))
            nans++;
        else if (scale[e] > 0)
            worst_rel = fmax(worst_rel, fabs((double)g - exact[e]) / scale[e]);
        int pp = (int)(e / Q % P), q = (int)(e % Q);
        border += on_padded_border(l, pp, q, P, Q);
    }
    if (!wrong)
        return V_PASS;
    int fn = (int)(first / ((size_t)l->K * P * Q)), fk = (int)(first / ((size_t)P * Q) % l->K);
    int fp = (int)(first / Q % P), fq = (int)(first % Q);
    if (unwritten == wrong) {
        snprintf(msg, msgn,
                 "%zu of %zu outputs were never written, the first out[%d][%d][%d][%d] (n, k, p, "
                 "q). Does the grid cover every output, P = %d rows and Q = %d columns of each "
                 "of the N x K = %d x %d planes?",
                 unwritten, n, fn, fk, fp, fq, P, Q, l->N, l->K);
        return V_NOT_WRITTEN;
    }
    if (nans) {
        snprintf(msg, msgn,
                 "%zu of %zu outputs are NaN or infinite, the first wrong out[%d][%d][%d][%d] "
                 "(expected %.7g): an input read outside its array, or a workspace element "
                 "never written?",
                 nans, n, fn, fk, fp, fq, exact[first]);
        return V_NAN;
    }
    /* Written in NHWC order (n, p, q, k) instead of NCHW? */
    size_t as_nhwc = 0, sample = 0;
    for (size_t e = 0; e < n && sample < 4096; e += 1 + n / 4096, sample++) {
        size_t nn = e / ((size_t)l->K * P * Q), kk = e / ((size_t)P * Q) % l->K;
        size_t pq = e % ((size_t)P * Q);
        size_t nhwc = (nn * P * Q + pq) * l->K + kk;
        as_nhwc += fabs((double)got[nhwc] - exact[e]) <= conv_tolerance(l, scale[e]);
    }
    if (l->K > 1 && P * Q > 1 && as_nhwc == sample) {
        snprintf(msg, msgn,
                 "the outputs are right but in NHWC order (out[n][p][q][k]); d_out must be "
                 "NCHW, out[n][k][p][q]: transpose back, or write each output to "
                 "((n K + k) P + p) Q + q");
        return V_WRONG;
    }
    char why[220] = "";
    if (border == wrong)
        snprintf(why, sizeof why,
                 " Every wrong output is on the border the padding reaches (pad = %d): inputs "
                 "outside the image must count as 0, and the window starts at p * stride - pad.",
                 l->pad);
    else if (worst_rel <= 4.0 * ldexp(1.0, -11)) /* within what 10-bit mantissas give */
        snprintf(why, sizeof why,
                 " The errors are small but far above float32 rounding: are the input and the "
                 "filter rounded to a lower precision (FP16, BF16, TF32 tensor cores)?");
    snprintf(msg, msgn,
             "%zu of %zu outputs are wrong; the first is out[%d][%d][%d][%d] (n, k, p, q) = %.7g, "
             "expected %.7g.%s",
             wrong, n, fn, fk, fp, fq, got[first], exact[first], why);
    return V_WRONG;
}

/* ---- patched inputs ---- */

size_t conv_patch_room(const conv_layer *l, int nx, int nw)
{
    return (size_t)nx * l->K * l->R * l->S +
           (size_t)nw * l->N * (size_t)conv_out_h(l) * conv_out_w(l);
}

static double word_value(uint32_t w)
{
    float x;
    memcpy(&x, &w, sizeof x);
    return x;
}

/* Word e of X after the sorted patch (idx, val, n). */
static double patched_word(const float *X, size_t e, const uint64_t *idx, const uint32_t *val,
                           int n)
{
    int lo = 0, hi = n - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (idx[mid] == e)
            return word_value(val[mid]);
        if (idx[mid] < e)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return X[e];
}

/* Visits every output a patch changes: apply 0 saves it, 1 adds the change.
 * x' w' - x w = (x' - x) w + x' (w' - w), and likewise for |x||w|. */
static size_t visit(const conv_problem *p, double *exact, double *scale, const uint64_t *ix,
                    const uint32_t *vx, int nx, const uint64_t *iw, const uint32_t *vw, int nw,
                    conv_saved *save, int apply)
{
    const conv_layer *l = &p->l;
    const int P = conv_out_h(l), Q = conv_out_w(l);
    size_t m = 0;
    for (int t = 0; t < nx; t++) {
        size_t e = ix[t];
        int wc = (int)(e % l->W), h = (int)(e / l->W % l->H), c = (int)(e / ((size_t)l->W * l->H) % l->C);
        int n = (int)(e / ((size_t)l->W * l->H * l->C));
        double x0 = p->x[e], x1 = word_value(vx[t]);
        for (int r = 0; r < l->R; r++)
            for (int s = 0; s < l->S; s++) {
                int ph = h + l->pad - r, qw = wc + l->pad - s;
                if (ph < 0 || qw < 0 || ph % l->stride || qw % l->stride)
                    continue;
                int pp = ph / l->stride, q = qw / l->stride;
                if (pp >= P || q >= Q)
                    continue;
                for (int k = 0; k < l->K; k++) {
                    size_t o = (((size_t)n * l->K + k) * P + pp) * Q + q;
                    double wv = p->w[(((size_t)k * l->C + c) * l->R + r) * l->S + s];
                    if (apply) {
                        exact[o] += (x1 - x0) * wv;
                        scale[o] += (fabs(x1) - fabs(x0)) * fabs(wv);
                    } else {
                        save[m++] = (conv_saved){o, exact[o], scale[o]};
                    }
                }
            }
    }
    for (int t = 0; t < nw; t++) {
        size_t e = iw[t];
        int s = (int)(e % l->S), r = (int)(e / l->S % l->R), c = (int)(e / ((size_t)l->S * l->R) % l->C);
        int k = (int)(e / ((size_t)l->S * l->R * l->C));
        double w0 = p->w[e], w1 = word_value(vw[t]);
        for (int n = 0; n < l->N; n++)
            for (int pp = 0; pp < P; pp++) {
                int h = pp * l->stride - l->pad + r;
                if (h < 0 || h >= l->H)
                    continue;
                for (int q = 0; q < Q; q++) {
                    int wc = q * l->stride - l->pad + s;
                    if (wc < 0 || wc >= l->W)
                        continue;
                    size_t o = (((size_t)n * l->K + k) * P + pp) * Q + q;
                    if (apply) {
                        size_t xe = (((size_t)n * l->C + c) * l->H + h) * l->W + wc;
                        double xv = patched_word(p->x, xe, ix, vx, nx);
                        exact[o] += xv * (w1 - w0);
                        scale[o] += fabs(xv) * (fabs(w1) - fabs(w0));
                    } else {
                        save[m++] = (conv_saved){o, exact[o], scale[o]};
                    }
                }
            }
    }
    return m;
}

size_t conv_patch_expect(const conv_problem *p, double *exact, double *scale, const uint64_t *ix,
                         const uint32_t *vx, int nx, const uint64_t *iw, const uint32_t *vw,
                         int nw, conv_saved *save)
{
    size_t m = visit(p, exact, scale, ix, vx, nx, iw, vw, nw, save, 0); /* all before any change */
    visit(p, exact, scale, ix, vx, nx, iw, vw, nw, NULL, 1);
    return m;
}

void conv_patch_undo(double *exact, double *scale, const conv_saved *save, size_t count)
{
    for (size_t i = 0; i < count; i++) { /* every saved value is the one before the patch */
        exact[save[i].e] = save[i].exact;
        scale[save[i].e] = save[i].scale;
    }
}
