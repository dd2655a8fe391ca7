/* grader/labs/conv.c: lab 6's specification — the stages, layers, inputs and
 * checks of the forward convolution (labs/6-conv/conv.h).
 *
 * Every graded layer of conv_layers (conv_ref.c) is a correctness size; the
 * one timed is the ResNet-style 3 x 3 layer with C = K = 128 on 28 x 28,
 * except for stage 4, timed on the deep and small layer (below). The
 * inputs are uniform in [-1, 1); the expected output and each output's scale
 * come from one double-precision reference per layer, made once in the
 * parent (conv_ref.c, which also holds the tolerance and the judgement).
 *
 * Thresholds: 0.61 to 0.76 of the reference's ratios on an H200 for stages
 * 1-3 (2.5x of 3.28x, 1.5x of 2.25x, 1.25x of 2.05x; handout). Stage 4's
 * split-K only pays where the output makes too few tiles to fill the GPU, so
 * it is timed on the deep and small layer (C = 2048, 7 x 7, K = 512: four
 * 128 x 128 tiles), against cuBLAS at that layer's GEMM shape alone. On an
 * H200 the reference made 28.2-39.4% of cuBLAS there (10 runs; cuBLAS moved
 * from 16.3 to 22.5 TFLOP/s) and 15.6-15.7x over stage 3. Graded once each,
 * variants of it: stage 3 called as it is made 1.8%, NHWC without the split
 * 1.8%, a split into 4 (16 blocks) 7.8%, into 16 (64 blocks) 18.3%. It needs
 * 12%: a split that gives a good part of the SMs work. Not a speedup over
 * stage 3: a student's stage 3 may split the depth too (the handout offers
 * it), and a stage 3 slowed on this layer alone would inflate one.
 *
 * Timed calls: before each, PATCHES words of the input and as many of the
 * filter get new values (512 to 1024 in magnitude, either sign, against
 * inputs in [-1, 1)) at random positions, so a stage that returns an earlier
 * output gets every output those words reach wrong by far more than the
 * tolerance: all K channels around a patched input pixel, a whole output
 * plane of every image for a patched filter weight. The check adds the
 * patches' effect to the expected outputs (exactly, in double), and checks
 * on the GPU that the input and the filter hold exactly what was loaded plus
 * the patch. Once timed calls have begun, the next prepare loads the input
 * and the filter whole again from device copies.
 *
 * Speed tests with the timing witness (grader/witness.h): the witness writes
 * a fresh input and filter, uniform in [-1, 1), before each timed call and
 * checks the output in whole channels and whole pixels it draws then
 * (witness_check, below). */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/rng.h"
#include "../../common/hostmem.h"
#include "../../labs/6-conv/conv.h"
#include "../ceiling.h"
#include "../ceilings/ceilings.h"
#include "../gbuf.h"
#include "../lab.h"
#include "../patch.h"
#include "../policy.h"
#include "../results.h"
#include "conv_lab.h"
#include "lab_util.h"
#include "../timings.h"

#define CEILING "cuBLAS SGEMM at the layer's GEMM shape"
#define CEILING_DEEP "cuBLAS SGEMM at the deep layer's GEMM shape" /* stage 4's */
#define DEEP_LAYER 10 /* C = 2048, 7 x 7, K = 512, N = 1: stage 4 is timed here */
static const lab_stage conv_stages[] = {
    {
        .title = "direct, one thread per output (given)",
        .symbol = "conv_direct",
        .given = 1,
        .reference = 1.9,
    },
    {
        .title = "direct, tiled in shared memory",
        .symbol = "conv_direct_tiled",
        .refused_ops = {CONV_REFUSED_OPS, CONV_REFUSED_TEXT},
        .points_correct = 10,
        .points_speed = 10,
        .min_speedup = 2.5,
        LAB_BASES(0),
        .reference = 6.2,
        .hint = "Stage the input patch under a tile of outputs (with its halo of R - 1 rows and S - 1 "
                "columns) and the filters of a few output channels in shared memory, once per input "
                "channel, and let each thread make several output channels from them.",
    },
    {
        .title = "im2col + GEMM",
        .symbol = "conv_im2col_gemm",
        .refused_ops = {CONV_REFUSED_OPS, CONV_REFUSED_TEXT},
        .points_correct = 10,
        .points_speed = 10,
        .min_speedup = 1.5,
        LAB_BASES(1),
        .reference = 13.9,
        .hint = "Write the input windows as a (C R S) x (N P Q) matrix in d_work with coalesced stores, "
                "then multiply the filter matrix (K x C R S) by it with your tiled GEMM from lab 4.",
    },
    {
        .title = "implicit GEMM",
        .symbol = "conv_implicit_gemm",
        .refused_ops = {CONV_REFUSED_OPS, CONV_REFUSED_TEXT},
        .points_correct = 10,
        .points_speed = 10,
        .min_speedup = 1.25,
        LAB_BASES(2),
        .reference = 28.7,
        .hint = "Keep the GEMM of stage 2 but gather each element of the window matrix from the input "
                "as the tiles are loaded: no im2col pass over memory. Work out (c, r, s) for a thread's "
                "rows once per tile and step it, instead of dividing for every element.",
    },
    {
        .title = "NHWC, split-K (deep layer)",
        .symbol = "conv_nhwc",
        .refused_ops = {CONV_REFUSED_OPS, CONV_REFUSED_TEXT},
        .points_correct = 10,
        .points_speed = 10,
        .min_ceiling = 0.12,
        LAB_TIMED_AT(DEEP_LAYER),
        .ceiling = CEILING_DEEP,
        .reference = 6.4,
        .hint = "The deep layer's output (K = 512 by 49 pixels) makes only a few output tiles, too few "
                "blocks for the GPU: split the depth C R S over gridDim.z as well, each block adding its "
                "partial sums into the output (zeroed first) with atomicAdd, so that every SM has work. "
                "Transpose the input to NHWC in d_work so that a thread's rows (r, s, c) are "
                "neighbouring channels (one 16-byte load).",
    },
};
#define N_STAGES ((int)(sizeof conv_stages / sizeof conv_stages[0]))
#define BENCH_LAYER 4 /* 3 x 3, C = K = 128, 28 x 28, N = 32 */
#define PATCHES 4      /* words of the input, and of the filter, patched per timed call */

typedef struct host_data {
    uint64_t seed;
    int made;
    float *x, *w;
    double *exact, *scale;
} host_data;

static host_data cache[16];

static conv_shape shape_of(int size)
{
    const conv_layer *l = &conv_layers[size].l;
    conv_shape s = {l->N, l->C, l->H, l->W, l->K, l->R, l->S, l->stride, l->pad};
    return s;
}

static size_t in_elems(const conv_layer *l)
{
    return (size_t)l->N * l->C * l->H * l->W;
}

static size_t filter_elems(const conv_layer *l)
{
    return (size_t)l->K * l->C * l->R * l->S;
}

static void host_data_free(host_data *h)
{
    free(h->x);
    free(h->w);
    free(h->exact);
    free(h->scale);
    memset(h, 0, sizeof *h);
}

static int host_data_make(host_data *h, int size, uint64_t seed)
{
    const conv_layer *l = &conv_layers[size].l;
    size_t out = conv_out_elems(l);
    h->seed = seed;
    h->x = hostmem_alloc(in_elems(l) * sizeof(float));
    h->w = hostmem_alloc(filter_elems(l) * sizeof(float));
    h->exact = hostmem_alloc(out * sizeof(double));
    h->scale = hostmem_alloc(out * sizeof(double));
    if (!h->x || !h->w || !h->exact || !h->scale) {
        host_data_free(h);
        return -1;
    }
    rng r;
    rng_seed(&r, rng_derive(seed, (uint64_t)size));
    rng_fill_uniform(&r, h->x, in_elems(l), -1.0f, 1.0f);
    rng_fill_uniform(&r, h->w, filter_elems(l), -1.0f, 1.0f);
    conv_problem p = {*l, h->x, h->w};
    int prev = tm_enter(TM_REFERENCE), rc = conv_reference(&p, h->exact, h->scale);
    tm_enter(prev);
    if (rc != 0) {
        host_data_free(h);
        return -1;
    }
    h->made = 1;
    return 0;
}

static int pregenerate(int size, uint64_t seed, int variants)
{
    (void)variants;
    if (size < 0 || size >= conv_n_layers)
        return -1;
    host_data_free(&cache[size]);
    return host_data_make(&cache[size], size, seed);
}

static void release(int size)
{
    if (size >= 0 && size < (int)(sizeof cache / sizeof cache[0]))
        host_data_free(&cache[size]);
}

static size_t held(int size, uint64_t *digest)
{
    if (size < 0 || size >= conv_n_layers || size >= (int)(sizeof cache / sizeof cache[0]))
        return 0;
    const host_data *h = &cache[size];
    const conv_layer *l = &conv_layers[size].l;
    size_t out = conv_out_elems(l);
    uint64_t d = LAB_DIGEST_START;
    size_t bytes = lab_held(&d, h->x, in_elems(l) * sizeof(float));
    bytes += lab_held(&d, h->w, filter_elems(l) * sizeof(float));
    bytes += lab_held(&d, h->exact, out * sizeof(double));
    bytes += lab_held(&d, h->scale, out * sizeof(double));
    if (digest && bytes)
        *digest = d;
    return bytes;
}

struct lab_ctx {
    int size;
    conv_shape shape;
    host_data own;
    const host_data *h;
    gbuf x, w, y, work;
    float *h_got;
    /* Timed calls: the patches, device copies of x and w as loaded (made on
     * the first patch), the stream they went on, the outputs they change. */
    patch_set px, pw;
    void *d_x0, *d_w0;
    cudaStream_t stream;
    conv_saved *save;
    void *ceiling;
    ceiling_conv_fn *ceiling_run;
    ceiling_conv_destroy_fn *ceiling_destroy;
};

static void size_text(int size, char *buf, size_t n)
{
    const conv_layer *l = &conv_layers[size].l;
    snprintf(buf, n, "%s (N %d, C %d, %d x %d, K %d, %d x %d, stride %d, pad %d)",
             conv_layers[size].name, l->N, l->C, l->H, l->W, l->K, l->R, l->S, l->stride,
             l->pad);
}

/* TFLOP per call: a multiply and an add per output and (c, r, s). */
static double work(int stage, int size)
{
    (void)stage;
    const conv_layer *l = &conv_layers[size].l;
    return 2.0 * (double)conv_out_elems(l) * l->C * l->R * l->S / 1e12;
}

static void teardown(lab_ctx *c)
{
    if (!c)
        return;
    gbuf_free(&c->x);
    gbuf_free(&c->w);
    gbuf_free(&c->y);
    gbuf_free(&c->work);
    host_data_free(&c->own);
    patch_free(&c->px);
    patch_free(&c->pw);
    if (c->d_x0)
        cudaFree(c->d_x0);
    if (c->d_w0)
        cudaFree(c->d_w0);
    free(c->save);
    if (c->h_got)
        free(c->h_got);
    if (c->ceiling && c->ceiling_destroy)
        c->ceiling_destroy(c->ceiling);
    free(c);
}

static int setup(lab_ctx **pctx, int stage, int size, uint64_t seed, int variants,
                 check_outcome *out)
{
    (void)stage, (void)variants;
    lab_ctx *c = calloc(1, sizeof *c);
    *pctx = c;
    if (!c)
        return lab_no_memory(out, NULL);
    c->size = size;
    c->shape = shape_of(size);
    const conv_layer *l = &conv_layers[size].l;
    c->h = &cache[size];
    if (!c->h->made || c->h->seed != seed) {
        int prev = tm_enter(TM_INPUTS), made = host_data_make(&c->own, size, seed);
        tm_enter(prev);
        if (made != 0)
            return lab_no_memory(out, " for the layer's data");
        c->h = &c->own;
    }
    size_t ny = conv_out_elems(l);
    rng r;
    rng_seed(&r, rng_derive(seed, 66));
    cudaError_t err = gbuf_alloc(&c->x, in_elems(l) * 4, rng_next(&r));
    if (err == cudaSuccess)
        err = gbuf_alloc(&c->w, filter_elems(l) * 4, rng_next(&r));
    if (err == cudaSuccess)
        err = gbuf_alloc(&c->y, ny * 4, rng_next(&r));
    if (err == cudaSuccess)
        err = gbuf_alloc(&c->work, conv_work_bytes(c->shape), rng_next(&r));
    if (err != cudaSuccess)
        return lab_fail_cuda(out, err, "allocate the layer's buffers");
    if (lab_host_buffer((void **)&c->h_got, ny * 4, out) != 0)
        return -1;
    err = lab_to_device(c->x.d, c->h->x, in_elems(l) * 4);
    if (err == cudaSuccess)
        err = lab_to_device(c->w.d, c->h->w, filter_elems(l) * 4);
    if (err != cudaSuccess)
        return lab_fail_cuda(out, err, "upload the input and the filter");
    static const char *const syms[] = {"ceiling_conv_create", "ceiling_conv",
                                       "ceiling_conv_destroy"};
    void *fns[3];
    if (ceiling_load("lab6", syms, fns, 3, out->msg, sizeof out->msg) != 0) {
        out->v = V_SETUP_ERROR;
        return -1;
    }
    c->ceiling_run = (ceiling_conv_fn *)fns[1];
    c->ceiling_destroy = (ceiling_conv_destroy_fn *)fns[2];
    int dims[9] = {l->N, l->C, l->H, l->W, l->K, l->R, l->S, l->stride, l->pad};
    if (((ceiling_conv_create_fn *)fns[0])(&c->ceiling, dims, c->x.d, c->w.d, c->y.d) != 0) {
        out->v = V_SETUP_ERROR;
        snprintf(out->msg, sizeof out->msg,
                 "the grader could not set up its reference convolution (the ceiling)");
        return -1;
    }
    return 0;
}

/* The output and the scratch space are NaN before every call. */
static int prepare(lab_ctx *c, int variant, cudaStream_t s, check_outcome *out)
{
    (void)variant;
    const conv_layer *l = &conv_layers[c->size].l;
    /* Once timed calls have begun, the input and the filter whole again from
     * their copies (the timing witness loads inputs of its own into them). */
    const lab_input in[2] = {
        {c->x.d, c->d_x0, c->h->x, in_elems(l) * 4, &c->px},
        {c->w.d, c->d_w0, c->h->w, filter_elems(l) * 4, &c->pw},
    };
    if (lab_restore_inputs(in, 2, s, "reload the input and the filter", out) != 0)
        return -1;
    cudaError_t err = gbuf_poison(&c->y, s);
    if (err == cudaSuccess)
        err = gbuf_poison(&c->work, s);
    if (err != cudaSuccess)
        return lab_fail_cuda(out, err, "poison the output");
    return 0;
}

static uint32_t patch_value(rng *r)
{
    float v = rng_uniform(r, 512.0f, 1024.0f) * (rng_below(r, 2) ? -1.0f : 1.0f);
    uint32_t w;
    memcpy(&w, &v, 4);
    return w;
}

static int perturb(lab_ctx *c, int variant, rng *r, cudaStream_t s, check_outcome *out)
{
    (void)variant;
    const conv_layer *l = &conv_layers[c->size].l;
    if (!c->d_x0) { /* the copies the check compares with, untimed, once */
        const void *h[2] = {c->h->x, c->h->w};
        if (lab_device_copies(&c->d_x0, &h[0], 1, in_elems(l) * 4, out) != 0 ||
            lab_device_copies(&c->d_w0, &h[1], 1, filter_elems(l) * 4, out) != 0)
            return -1;
        c->save = malloc(conv_patch_room(l, PATCHES, PATCHES) * sizeof *c->save);
        if (!c->save)
            return lab_no_memory(out, " for the patched outputs");
    }
    c->stream = s;
    patch_pick(&c->px, PATCHES, in_elems(l), r);
    for (int k = 0; k < c->px.n; k++)
        c->px.val[k] = patch_value(r);
    patch_pick(&c->pw, PATCHES, filter_elems(l), r);
    for (int k = 0; k < c->pw.n; k++)
        c->pw.val[k] = patch_value(r);
    if (patch_apply(&c->px, c->x.d, s, out) != 0 || patch_apply(&c->pw, c->w.d, s, out) != 0)
        return -1;
    return 0;
}

static int call(lab_ctx *c, int stage, void *fn, cudaStream_t s)
{
    (void)stage;
    return (int)((conv_fn)fn)(c->shape, (const float *)c->x.d, (const float *)c->w.d,
                              (float *)c->y.d, c->work.d, s);
}

static int call_ceiling(lab_ctx *c, int stage, cudaStream_t s)
{
    (void)stage;
    return c->ceiling_run(c->ceiling, (const float *)c->x.d, (const float *)c->w.d,
                          (float *)c->y.d, s);
}

static int check(lab_ctx *c, int stage, int variant, int full, check_outcome *out)
{
    (void)stage, (void)variant;
    const conv_layer *l = &conv_layers[c->size].l;
    size_t ny = conv_out_elems(l);
    if (lab_guard_check(&c->y, "the output", ny, out) ||
        lab_guard_check(&c->x, "the input", in_elems(l), out) ||
        lab_guard_check(&c->w, "the filter", filter_elems(l), out) ||
        lab_guard_check(&c->work, "d_work", conv_work_bytes(c->shape) / 4, out))
        return -1;
    if (full) { /* the input and the filter unchanged */
        const gbuf *bufs[2] = {&c->x, &c->w};
        const void *hosts[2] = {c->h->x, c->h->w};
        size_t bytes[2] = {in_elems(l) * 4, filter_elems(l) * 4};
        const char *names[2] = {"the input", "the filter"};
        if (lab_inputs_unchanged(2, bufs, hosts, bytes, names,
                                 "a stage may only read them (copies go in d_work)", out) != 0)
            return -1;
    }
    int patched = c->px.n + c->pw.n > 0;
    static const char advice[] = "A stage may only read the input and the filter (copies go in "
                                 "d_work).";
    if (patched &&
        (lab_patched_unchanged(&c->px, &c->x, c->d_x0, c->h->x, in_elems(l), (size_t)l->W,
                               "the input", advice, c->stream, out) != 0 ||
         lab_patched_unchanged(&c->pw, &c->w, c->d_w0, c->h->w, filter_elems(l), (size_t)l->S,
                               "the filter", advice, c->stream, out) != 0))
        return -1;
    cudaError_t err = lab_to_host(c->h_got, c->y.d, ny * 4);
    if (err != cudaSuccess)
        return lab_fail_cuda(out, err, "read the output back");
    conv_problem p = {*l, c->h->x, c->h->w};
    size_t saved = 0;
    if (patched) /* the expected outputs of the patched inputs, undone below */
        saved = conv_patch_expect(&p, c->h->exact, c->h->scale, c->px.idx, c->px.val, c->px.n,
                                  c->pw.idx, c->pw.val, c->pw.n, c->save);
    int v = conv_judge(&p, c->h->exact, c->h->scale, c->h_got, out->msg, sizeof out->msg);
    if (patched)
        conv_patch_undo(c->h->exact, c->h->scale, c->save, saved);
    if (v == V_PASS)
        return 0;
    out->v = (verdict)v;
    return -1;
}

/* The timing witness (grader/witness.h): a fresh input and filter, uniform in
 * [-1, 1), before each timed call, whose output (poisoned with NaN) it
 * checks afterwards in WITNESS_PICKS output channels (every image and pixel
 * of each) and WITNESS_PICKS pixels (every channel of each), drawn then. A
 * channel reaches every input pixel and a pixel every filter weight, so an
 * output kept from an earlier call, or any part of the work left out, is
 * wrong where they look. The ceiling's calls are checked too: it writes the
 * product of two matrices of its own, every byte CEILING_CONV_BYTE
 * (grader/ceilings/conv.cu), into the output, which the witness checks as
 * lab 4's C, in WITNESS_PICKS whole rows and columns, against matrices of its
 * own filled the same way. */
#define WITNESS_PICKS 16

static const gbuf *witness_workspace(lab_ctx *c)
{
    return &c->work;
}

static void witness_buffers(lab_ctx *c, const gbuf **in, const gbuf **out)
{
    in[0] = &c->x;
    in[1] = &c->w;
    out[0] = &c->y;
    out[1] = NULL;
}

static void witness_layout_of(int stage, int size, witness_layout *wl)
{
    (void)stage;
    const conv_layer *l = &conv_layers[size].l;
    wl->in_bytes[0] = in_elems(l) * 4;
    wl->in_bytes[1] = filter_elems(l) * 4;
    wl->out_bytes[0] = conv_out_elems(l) * 4;
    wl->out_bytes[1] = 0;
    wl->poison[0] = 0xff; /* NaN, as prepare's gbuf_poison */
    wl->fill = DEVCHECK_FILL_UNIFORM;
    wl->lo = -1;
    wl->hi = 1;
}

/* Output (n, k, p, q) of the layer and its scale, from image n of the input
 * and filter k read back: for the message alone. */
static int witness_output(const float *d_x, const float *d_w, const conv_layer *l, int n, int k,
                          int op, int oq, double *v, double *sc)
{
    const size_t img = (size_t)l->C * l->H * l->W, crs = (size_t)l->C * l->R * l->S;
    float *x = malloc(img * 4), *w = malloc(crs * 4);
    int rc = -1;
    if (x && w &&
        cudaMemcpy(x, d_x + (size_t)n * img, img * 4, cudaMemcpyDeviceToHost) == cudaSuccess &&
        cudaMemcpy(w, d_w + (size_t)k * crs, crs * 4, cudaMemcpyDeviceToHost) == cudaSuccess) {
        *v = *sc = 0;
        for (int ch = 0; ch < l->C; ch++)
            for (int r = 0; r < l->R; r++)
                for (int q = 0; q < l->S; q++) {
                    int h = op * l->stride - l->pad + r, col = oq * l->stride - l->pad + q;
                    if (h < 0 || h >= l->H || col < 0 || col >= l->W)
                        continue;
                    double xw = (double)x[((size_t)ch * l->H + h) * l->W + col] *
                                w[((size_t)ch * l->R + r) * l->S + q];
                    *v += xw;
                    *sc += fabs(xw);
                }
        rc = 0;
    }
    free(x);
    free(w);
    return rc;
}

/* A ceiling call's output y (N P Q x K, row-major) against A B, A and B
 * filled as the ceiling's own matrices are (grader/ceilings/conv.cu), made
 * in the witness's process once per test. As witness_check. */
static long long witness_check_ceiling(const conv_layer *l, const float *y, cudaStream_t s,
                                       check_outcome *out)
{
    static float *a, *b;
    static uint64_t made[3]; /* the M, N and K they were made for */
    const uint64_t N = (uint64_t)l->K, M = conv_out_elems(l) / N,
                   K = (uint64_t)l->C * l->R * l->S;
    if (made[0] != M || made[1] != N || made[2] != K) {
        cudaFree(a);
        cudaFree(b);
        a = b = NULL;
        made[0] = made[1] = made[2] = 0;
        cudaError_t e = cudaMalloc((void **)&a, M * K * 4);
        if (e == cudaSuccess)
            e = cudaMalloc((void **)&b, K * N * 4);
        if (e == cudaSuccess)
            e = cudaMemsetAsync(a, CEILING_CONV_BYTE, M * K * 4, s);
        if (e == cudaSuccess)
            e = cudaMemsetAsync(b, CEILING_CONV_BYTE, K * N * 4, s);
        if (e != cudaSuccess) {
            lab_fail_cuda(out, e, "make the ceiling's matrices for its check");
            return -2;
        }
        made[0] = M;
        made[1] = N;
        made[2] = K;
    }
    /* Every product is the same, so their rounding errors in float32 do not
     * cancel as random ones do: lab 4's bound (which grows with the square
     * root of the depth) is not theirs. The bound of any order of summation,
     * K u / (1 - K u) of the scale, is: a float32 sum of 18,432 of them, one
     * after the other, is 1.8 times lab 4's bound off and 0.05 times this
     * one. */
    const double u = ldexp(1.0, -24), t1 = (double)K * u / (1.0 - (double)K * u) + 8.0 * u,
                 t2 = 0.0;
    uint32_t rows[WITNESS_PICKS], cols[WITNESS_PICKS];
    const int nr = M < WITNESS_PICKS ? (int)M : WITNESS_PICKS,
              nc = N < WITNESS_PICKS ? (int)N : WITNESS_PICKS;
    if (lab_witness_picks(rows, nr, M, cols, nc, N, out) != 0)
        return -2;
    long long bad = devcheck_gemm_on_gpu(y, a, b, M, N, K, t1, t2, rows, nr, cols, nc, s, out);
    if (bad < 0)
        return bad;
    long long i = bad / (long long)N, j = bad % (long long)N;
    float got = 0;
    double x = 0, sc = 0;
    out->v = V_WRONG;
    if (cudaMemcpy(&got, y + bad, 4, cudaMemcpyDeviceToHost) != cudaSuccess ||
        lab_gemm_element(a, b, (int)N, (int)K, i, j, &x, &sc) != 0)
        x = NAN;
    snprintf(out->msg, sizeof out->msg,
             "its product of two matrices of its own, %llu x %llu, held %g at [%lld][%lld], "
             "where it should be %.7g",
             (unsigned long long)M, (unsigned long long)N, got, i, j, x);
    return bad;
}

static long long witness_check(int role, int stage, int size, const void *const *d_out,
                               const void *const *ins, cudaStream_t s, check_outcome *out,
                               int full)
{
    (void)stage;
    const conv_layer *l = &conv_layers[size].l;
    if (role == WITNESS_CEILING)
        return witness_check_ceiling(l, d_out[0], s, out);
    const int P = conv_out_h(l), Q = conv_out_w(l);
    const uint64_t npq = (uint64_t)l->N * P * Q;
    const int shape[9] = {l->N, l->C, l->H, l->W, l->K, l->R, l->S, l->stride, l->pad};
    const float *x = ins[0], *w = ins[1], *y = d_out[0];
    long long bad = -1;
    if (full && (double)npq * l->K * l->C * l->R * l->S <= LAB_WITNESS_FULL_WORK) {
        uint32_t chans[LAB_WITNESS_MAX_PICKS]; /* every output channel, whole */
        for (int k0 = 0; k0 < l->K && bad == -1; k0 += LAB_WITNESS_MAX_PICKS) {
            int nk = lab_witness_lines(chans, (uint64_t)k0, (uint64_t)l->K);
            bad = devcheck_conv_on_gpu(y, x, w, shape, conv_tolerance(l, 1.0), chans, nk, NULL, 0,
                                       s, out);
        }
    } else {
        uint32_t chans[WITNESS_PICKS], pixels[WITNESS_PICKS];
        if (lab_witness_picks(chans, WITNESS_PICKS, (uint64_t)l->K, pixels, WITNESS_PICKS, npq,
                              out) != 0)
            return -2;
        bad = devcheck_conv_on_gpu(y, x, w, shape, conv_tolerance(l, 1.0), chans, WITNESS_PICKS,
                                   pixels, WITNESS_PICKS, s, out);
    }
    if (bad < 0)
        return bad;
    const int n = (int)(bad / ((long long)l->K * P * Q)), k = (int)(bad / ((long long)P * Q) % l->K),
              op = (int)(bad / Q % P), oq = (int)(bad % Q);
    float got = 0;
    double v = 0, sc = 0;
    out->v = V_WRONG;
    if (cudaMemcpy(&got, y + bad, 4, cudaMemcpyDeviceToHost) != cudaSuccess ||
        witness_output(x, w, l, n, k, op, oq, &v, &sc) != 0)
        snprintf(out->msg, sizeof out->msg,
                 "out[%d][%d][%d][%d] (n, k, p, q) is not within the tolerance of the "
                 "convolution's output.",
                 n, k, op, oq);
    else if (!isfinite(got))
        snprintf(out->msg, sizeof out->msg,
                 "out[%d][%d][%d][%d] (n, k, p, q) is %g, and the convolution's output is %.7g "
                 "(the witness filled the output with NaN before the call, so a NaN there may be "
                 "an output never written).",
                 n, k, op, oq, got, v);
    else
        snprintf(out->msg, sizeof out->msg,
                 "out[%d][%d][%d][%d] (n, k, p, q) is %.7g, and the convolution's output is %.7g "
                 "(off by %.3g; the tolerance is %.3g).",
                 n, k, op, oq, got, v, fabs((double)got - v), conv_tolerance(l, sc));
    return bad;
}

static const lab_witness conv_witness = {
    .buffers = witness_buffers,
    .workspace = witness_workspace,
    .layout = witness_layout_of,
    .check = witness_check,
    .names = {"the input d_in", "the filter d_filter", "the output d_out", NULL},
};

const lab_spec lab_conv = {
    .number = 6,
    .name = "conv",
    .dir = "6-conv",
    .available = 1,
    .stages = conv_stages,
    .n_stages = N_STAGES,
    .n_sizes = 11,
    .bench_size = BENCH_LAYER,
    .check_variants = 1,
    .unit = "TFLOP/s",
    .ceiling_name = CEILING,
    .forbidden_calls = policy_stream_stage_rules,
    /* Each stage's .reference is the reference solution's speed on it, in
     * TFLOP/s on the timed layer (handouts/6-conv.md). */
    .reference_gpu = "NVIDIA H200",
    .floor_throughput = 0.01, /* TFLOP/s: the direct stage 0 on a slow GPU */
    /* cuBLAS at the layer's GEMM shape is a yardstick, not a bound: on the
     * H200 the reference's stage 3 ran at 91.8-103.3% of it in 10 runs
     * (handouts/instructors.md) and up to 110% in earlier ones, cuDNN's FFT
     * and Winograd algorithms at 2.0-2.3 times it (they do fewer
     * multiplications), and the FP32 peak is 1.9-2.5 times it. */
    .impossible_over = 2.5,
    .size_text = size_text,
    .work = work,
    .pregenerate = pregenerate,
    .release = release,
    .held = held,
    .setup = setup,
    .prepare = prepare,
    .perturb = perturb,
    .call = call,
    .call_ceiling = call_ceiling,
    .check = check,
    .teardown = teardown,
    .witness = &conv_witness,
};
