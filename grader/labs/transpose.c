/* grader/labs/transpose.c: lab 1's specification — the stages, their points and
 * thresholds, the graded sizes, and how inputs are made and outputs checked.
 *
 * Thresholds are speedups over the stage named in `base`, set well under what
 * the reference solution reaches on an H200 (handouts/1-transpose.md has the
 * measured table and the reasoning), so a sound implementation passes on any
 * recent GPU:
 *  - stage 3 over the faster naive stage: 0.80. On the H200 the tile with its
 *    32-way bank conflicts only matches the write-coalesced naive kernel
 *    (1.02x), whose strided reads the caches absorb; the threshold asks that
 *    the tile not lose, and stage 4 shows what the tile is worth;
 *  - stage 4 over stage 3: 1.40 (the reference: 1.93x);
 *  - stage 5 over stage 4: 1.10 (the reference: about 1.2x). A threshold at
 *    or below 1.0 would let a stage that just calls the one before it pass. */
#define _GNU_SOURCE
#include "transpose_lab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/compare.h"
#include "../../common/hostmem.h"
#include "../../common/par.h"
#include "../../common/cuda_check.h"
#include "../../common/rng.h"
#include "../../labs/1-transpose/transpose.h"
#include "../ceilings/ceilings.h"
#include "../gbuf.h"
#include "../lab.h"
#include "../patch.h"
#include "lab_util.h"
#include "../timings.h"
#include "../policy.h"
#include "../results.h"

/* stage 0 is the given copy kernel: graded for correctness with 0 points and
 * timed, so the table shows what a simple kernel reaches on this GPU. */
static const lab_stage transpose_stages[] = {
    {
        .title = "copy kernel (given)",
        .symbol = "transpose_copy",
        .given = 1,
        .reference = 4147,
    },
    {
        .title = "naive, reads coalesced",
        .symbol = "transpose_naive_read",
        .points_correct = 10,
        .reference = 534,
    },
    {
        .title = "naive, writes coalesced",
        .symbol = "transpose_naive_write",
        .points_correct = 10,
        .reference = 1666,
    },
    {
        .title = "shared-memory tile",
        .symbol = "transpose_tiled",
        .points_correct = 10,
        .points_speed = 10,
        .min_speedup = 0.80,
        LAB_BASES(1, 2),
        .reference = 1693,
        .technique = {{"STS", "shared-memory stores (STS)"}, {"LDS", "shared-memory loads (LDS)"}},
        .hint = "The tile should make both global accesses coalesced: threadIdx.x must walk along a row "
                "when reading the input tile AND when writing the output tile (the transpose happens in "
                "shared memory, tile[threadIdx.x][j]), with one __syncthreads() between the two loops. "
                "Also check the block is 32 x 8 and each thread moves 4 elements.",
    },
    {
        .title = "padded tile (no bank conflicts)",
        .symbol = "transpose_padded",
        .points_correct = 10,
        .points_speed = 10,
        .min_speedup = 1.40,
        LAB_BASES(3),
        .reference = 3272,
        .technique = {{"STS", "shared-memory stores (STS)"}, {"LDS", "shared-memory loads (LDS)"}},
        .hint = "Padding removes the conflict only where a warp reads a column: declare "
                "float tile[32][33] and keep the write loop reading tile[threadIdx.x][j]. ncu's "
                "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum should drop to about zero.",
    },
    {
        .title = "4x4 per thread, float4 access",
        .symbol = "transpose_vectorized",
        .points_correct = 10,
        .points_speed = 10,
        .min_speedup = 1.10,
        LAB_BASES(4),
        .reference = 3931,
        .technique = {{"LDG.128|STG.128", "16-byte global loads or stores (LDG.E.128, STG.E.128)"}},
        .hint = "Check that the float4 path runs at the benchmark size (8192 x 8192 is a multiple of 4, "
                "so it must not fall back to stage 4), that each thread issues all its float4 loads "
                "before it uses any of them, and that the float4 stores to shared memory are "
                "conflict-free (swizzle the slot index; padding by one float breaks 16-byte alignment).",
    },
};

/* Small and awkward shapes first, so most bugs show quickly; the benchmark last. */
static const int transpose_sizes[][2] = {
    {1, 1}, {33, 65}, {1, 4097}, {4097, 1}, {4097, 31}, {1000, 1003}, {8192, 4096}, {8192, 8192},
};
#define N_SIZES ((int)(sizeof transpose_sizes / sizeof transpose_sizes[0]))
#define BENCH_SIZE (N_SIZES - 1)
#define MAX_VARIANTS 2

/* Host inputs and expected outputs of one size: made once in the parent by
 * pregenerate (children share them through fork), or by setup on demand. */
typedef struct host_data {
    uint64_t seed;
    int variants;
    float *in[MAX_VARIANTS];     /* the inputs */
    float *expect[MAX_VARIANTS]; /* their transposes, computed here on the CPU */
} host_data;

static host_data cache[N_SIZES];

struct lab_ctx {
    int rows, cols;
    size_t n;
    int variants;
    host_data own; /* used when the cache does not hold this size */
    gbuf in, out;
    float *h_in[MAX_VARIANTS];     /* the inputs (in the cache or in own) */
    float *h_expect[MAX_VARIANTS]; /* their transposes */
    void *d_variant[MAX_VARIANTS]; /* device copies of the inputs, to reload quickly */
    float *h_got;                  /* pinned: outputs and inputs read back */
    patch_set patch;               /* timed calls: the patch of the input */
    cudaStream_t patch_stream;
};

static void size_text(int size, char *buf, size_t n)
{
    snprintf(buf, n, "%d x %d", transpose_sizes[size][0], transpose_sizes[size][1]);
}

/* Gigabytes moved per call: every element read once and written once. */
static double work(int stage, int size)
{
    (void)stage;
    return 2.0 * 4.0 * transpose_sizes[size][0] * (double)transpose_sizes[size][1] / 1e9;
}

/* CPU reference, in blocks of 64 x 64 so both sides stay in cache; bands of
 * 64 rows on all cores. */
typedef struct transpose_job {
    const float *in;
    float *out;
    int rows, cols;
} transpose_job;

static int transpose_band(void *ctx, size_t begin, size_t end)
{
    const transpose_job *j = ctx;
    const int B = 64, rows = j->rows, cols = j->cols;
    const float *in = j->in;
    float *out = j->out;
    for (int r0 = (int)begin; r0 < (int)end; r0 += B)
        for (int c0 = 0; c0 < cols; c0 += B)
            for (int r = r0; r < (int)end && r < r0 + B; r++)
                for (int c = c0; c < cols && c < c0 + B; c++)
                    out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
    return 0;
}

static void cpu_transpose(const float *in, float *out, int rows, int cols)
{
    transpose_job j = {in, out, rows, cols};
    par_for((size_t)rows, 64, transpose_band, &j);
}

static void host_data_free(host_data *h)
{
    for (int v = 0; v < MAX_VARIANTS; v++) {
        free(h->in[v]);
        free(h->expect[v]);
    }
    memset(h, 0, sizeof *h);
}

/* Random signed inputs, every element distinct in practice so that a wrong
 * index shows as a wrong value, and their transposes. */
static int host_data_make(host_data *h, int size, uint64_t seed, int variants)
{
    int rows = transpose_sizes[size][0], cols = transpose_sizes[size][1];
    size_t n = (size_t)rows * cols;
    h->seed = seed;
    h->variants = variants;
    for (int v = 0; v < variants; v++) {
        h->in[v] = hostmem_alloc(n * sizeof(float));
        h->expect[v] = hostmem_alloc(n * sizeof(float));
        if (!h->in[v] || !h->expect[v]) {
            host_data_free(h);
            return -1;
        }
        rng_fill_uniform_par(rng_derive(seed, (uint64_t)v), h->in[v], n, -1.0f, 1.0f);
        int prev = tm_enter(TM_REFERENCE);
        cpu_transpose(h->in[v], h->expect[v], rows, cols);
        tm_enter(prev);
    }
    return 0;
}

static int pregenerate(int size, uint64_t seed, int variants)
{
    if (size < 0 || size >= N_SIZES || variants < 1 || variants > MAX_VARIANTS)
        return -1;
    host_data_free(&cache[size]);
    return host_data_make(&cache[size], size, seed, variants);
}

static void release(int size)
{
    if (size >= 0 && size < N_SIZES)
        host_data_free(&cache[size]);
}

static size_t held(int size, uint64_t *digest)
{
    if (size < 0 || size >= N_SIZES)
        return 0;
    const host_data *h = &cache[size];
    size_t n = (size_t)transpose_sizes[size][0] * transpose_sizes[size][1];
    uint64_t d = LAB_DIGEST_START;
    size_t bytes = 0;
    for (int v = 0; v < MAX_VARIANTS; v++) {
        bytes += lab_held(&d, h->in[v], n * sizeof(float));
        bytes += lab_held(&d, h->expect[v], n * sizeof(float));
    }
    if (digest && bytes)
        *digest = d;
    return bytes;
}

static void teardown(lab_ctx *c)
{
    if (!c)
        return;
    gbuf_free(&c->in);
    gbuf_free(&c->out);
    host_data_free(&c->own);
    for (int v = 0; v < MAX_VARIANTS; v++) {
        if (c->d_variant[v])
            cudaFree(c->d_variant[v]);
    }
    if (c->h_got)
        free(c->h_got);
    patch_free(&c->patch);
    free(c);
}

static int setup(lab_ctx **pctx, int stage, int size, uint64_t seed, int variants,
                 check_outcome *out)
{
    (void)stage;
    lab_ctx *c = calloc(1, sizeof *c);
    *pctx = c;
    if (!c)
        return lab_no_memory(out, NULL);
    c->rows = transpose_sizes[size][0];
    c->cols = transpose_sizes[size][1];
    c->n = (size_t)c->rows * c->cols;
    c->variants = variants < 1 ? 1 : variants > MAX_VARIANTS ? MAX_VARIANTS : variants;
    size_t bytes = c->n * sizeof(float);

    const host_data *h = &cache[size];
    if (h->seed != seed || h->variants < c->variants) {
        int prev = tm_enter(TM_INPUTS), made = host_data_make(&c->own, size, seed, c->variants);
        tm_enter(prev);
        if (made != 0)
            return lab_no_memory(out, " for the inputs");
        h = &c->own;
    }
    for (int v = 0; v < c->variants; v++) {
        c->h_in[v] = h->in[v];
        c->h_expect[v] = h->expect[v];
    }
    rng r; /* guard patterns, from the same seed */
    rng_seed(&r, rng_derive(seed, 77));
    cudaError_t err = gbuf_alloc(&c->in, bytes, rng_next(&r));
    if (err != cudaSuccess)
        return lab_fail_cuda(out, err, "allocate the input buffer");
    err = gbuf_alloc(&c->out, bytes, rng_next(&r));
    if (err != cudaSuccess)
        return lab_fail_cuda(out, err, "allocate the output buffer");
    if (lab_host_buffer((void **)&c->h_got, bytes, out) != 0)
        return -1;
    if (c->variants == 1)
        return 0;
    const void *inputs[MAX_VARIANTS]; /* for timing: inputs reloaded on the GPU */
    for (int v = 0; v < c->variants; v++)
        inputs[v] = c->h_in[v];
    return lab_device_copies(c->d_variant, inputs, c->variants, bytes, out);
}

static int prepare(lab_ctx *c, int variant, cudaStream_t s, check_outcome *out)
{
    size_t bytes = c->n * sizeof(float);
    cudaError_t err;
    if (c->d_variant[variant])
        err = cudaMemcpyAsync(c->in.d, c->d_variant[variant], bytes, cudaMemcpyDeviceToDevice, s);
    else
        err = cudaMemcpyAsync(c->in.d, c->h_in[variant], bytes, cudaMemcpyHostToDevice, s);
    if (err == cudaSuccess)
        err = gbuf_poison(&c->out, s);
    if (err != cudaSuccess)
        return lab_fail_cuda(out, err, "load the input");
    patch_clear(&c->patch); /* the reload undid it */
    return 0;
}

void transpose_patch_values(const float *in, const uint64_t *idx, int k, rng *r, uint32_t *val)
{
    for (int j = 0; j < k; j++) {
        float now;
        do
            now = rng_uniform(r, -1.0f, 1.0f);
        while (now == 0.0f || now == in[idx[j]]);
        memcpy(&val[j], &now, sizeof now);
    }
}

size_t transpose_out_index(size_t i, int rows, int cols, int is_copy)
{
    return is_copy ? i : (i % (size_t)cols) * (size_t)rows + i / (size_t)cols;
}

int transpose_patched_ok(const float *expect, float *got, int rows, int cols, int is_copy,
                         const uint64_t *idx, const uint32_t *val, int k)
{
    float saved[PATCH_MAX];
    int ok = 1;
    if (k > PATCH_MAX)
        return 0;
    for (int j = 0; j < k; j++) { /* the patched words in place: then got must be expect */
        size_t o = transpose_out_index(idx[j], rows, cols, is_copy);
        saved[j] = got[o];
        ok &= memcmp(&got[o], &val[j], sizeof val[j]) == 0;
        got[o] = expect[o];
    }
    size_t n = (size_t)rows * (size_t)cols;
    ok = ok && compare_first_diff_word(expect, got, n * sizeof(float)) < 0;
    for (int j = k - 1; j >= 0; j--)
        got[transpose_out_index(idx[j], rows, cols, is_copy)] = saved[j];
    return ok;
}

/* Timed calls: 16 words move to 16 places of the output, none of them
 * holding what an earlier call wrote there. */
static int perturb(lab_ctx *c, int variant, rng *r, cudaStream_t s, check_outcome *out)
{
    if (!c->d_variant[variant]) { /* one input set here: its device copy, made once */
        const void *inputs[MAX_VARIANTS];
        for (int v = 0; v < c->variants; v++)
            inputs[v] = c->h_in[v];
        if (lab_device_copies(c->d_variant, inputs, c->variants, c->n * sizeof(float), out) != 0)
            return -1;
    }
    patch_pick(&c->patch, 16, c->n, r);
    transpose_patch_values(c->h_in[variant], c->patch.idx, c->patch.n, r, c->patch.val);
    c->patch_stream = s;
    return patch_apply(&c->patch, c->in.d, s, out);
}

static int call(lab_ctx *c, int stage, void *fn, cudaStream_t s)
{
    (void)stage;
    transpose_fn f = (transpose_fn)fn;
    return (int)f((const float *)c->in.d, (float *)c->out.d, c->rows, c->cols, s);
}

static int call_ceiling(lab_ctx *c, int stage, cudaStream_t s)
{
    (void)stage;
    return cudaMemcpyAsync(c->out.d, c->in.d, c->n * sizeof(float), cudaMemcpyDeviceToDevice, s) ==
                   cudaSuccess
               ? 0
               : -1;
}

/* "out[12][345]" for a flat index of a rows x cols matrix. */
static void index_text(char *buf, size_t n, const char *name, size_t i, int cols)
{
    snprintf(buf, n, "%s[%zu][%zu]", name, i / (size_t)cols, i % (size_t)cols);
}

/* Whether stage is the given copy kernel, whose output is its input. */
static int is_copy_stage(int stage)
{
    const int n = (int)(sizeof transpose_stages / sizeof transpose_stages[0]);
    return stage >= 0 && stage < n && transpose_stages[stage].symbol &&
           strcmp(transpose_stages[stage].symbol, "transpose_copy") == 0;
}

static int check(lab_ctx *c, int stage, int variant, int full, check_outcome *out)
{
    size_t bytes = c->n * sizeof(float);
    const int is_copy = is_copy_stage(stage);
    const char *out_name = "the output d_out";

    if (lab_guard_check(&c->out, out_name, c->n, out) || lab_guard_check(&c->in, "the input d_in", c->n, out))
        return -1;
    cudaError_t err;
    /* The input as loaded: read back in full, or in a timed call compared on
     * the GPU with its patch allowed for. */
    if (lab_input_as_loaded(full ? NULL : &c->patch, &c->in, c->d_variant[variant],
                            c->h_in[variant], c->n, c->h_got, c->patch_stream, c->cols, 0,
                            "a stage may only read its input", out) != 0)
        return -1;
    /* The input holds what it should: the output is checked against it on
     * the GPU, and read back only to say what is wrong (or to forgive the
     * sign of a zero, which the GPU's bitwise check does not). */
    long long bad = devcheck_transpose_on_gpu(c->out.d, c->in.d, (size_t)c->rows,
                                              (size_t)c->cols, is_copy,
                                              full ? 0 : c->patch_stream, out);
    if (bad == -2)
        return -1;
    if (bad == -1)
        return 0;
    err = lab_to_host(c->h_got, c->out.d, bytes);
    if (err != cudaSuccess)
        return lab_fail_cuda(out, err, "read the output back");
    const float *expect = is_copy ? c->h_in[variant] : c->h_expect[variant];
    const int patched = !full && c->patch.n > 0;
    if (patched ? transpose_patched_ok(expect, c->h_got, c->rows, c->cols, is_copy,
                                       c->patch.idx, c->patch.val, c->patch.n)
                : compare_first_diff_word(expect, c->h_got, bytes) < 0)
        return 0; /* bit-exact: a transpose moves values, it never rounds them */
    float *patched_expect = NULL; /* something is wrong: the expected output in full */
    if (patched) {
        patched_expect = malloc(bytes);
        if (!patched_expect)
            return lab_no_memory(out, " for the expected output");
        memcpy(patched_expect, expect, bytes);
        for (int j = 0; j < c->patch.n; j++)
            memcpy(&patched_expect[transpose_out_index(c->patch.idx[j], c->rows, c->cols,
                                                       is_copy)],
                   &c->patch.val[j], sizeof(float));
        expect = patched_expect;
    }
    compare_report rep;
    int same = compare_floats(expect, c->h_got, c->n, 0.0, 0.0, &rep);
    free(patched_expect);
    if (same)
        return 0; /* differs only in the sign of a zero */
    int out_cols = is_copy ? c->cols : c->rows; /* d_out is cols x rows */
    char at[64];
    index_text(at, sizeof at, "out", rep.first, out_cols);
    if (rep.unwritten == rep.mismatches) {
        out->v = V_NOT_WRITTEN;
        snprintf(out->msg, sizeof out->msg,
                 "%s (element %zu) was never written; %zu of %zu output elements were not "
                 "written. Does the grid cover the whole matrix, including partial tiles at the "
                 "edges?",
                 at, rep.first, rep.unwritten, rep.n);
    } else if (rep.first_unwritten || rep.nans > 0) {
        out->v = rep.nans > 0 ? V_NAN : V_NOT_WRITTEN;
        snprintf(out->msg, sizeof out->msg,
                 "%zu of %zu output elements are wrong, %zu never written and %zu NaN or "
                 "infinite; the first is %s (element %zu): expected %.7g, got %.7g",
                 rep.mismatches, rep.n, rep.unwritten, rep.nans, at, rep.first, rep.expected,
                 rep.got);
    } else {
        out->v = V_WRONG;
        snprintf(out->msg, sizeof out->msg,
                 "%zu of %zu output elements are wrong; the first is %s (element %zu): expected "
                 "%.7g, got %.7g. Check the index arithmetic: the output has %d rows of %d.",
                 rep.mismatches, rep.n, at, rep.first, rep.expected, rep.got,
                 is_copy ? c->rows : c->cols, out_cols);
    }
    if (patched)
        lab_note_patched(out, c->patch.n);
    return -1;
}

/* The timing witness (grader/witness.h): it loads a fresh input into d_in
 * before each timed call and checks d_out against it after. */
static void witness_buffers(lab_ctx *c, const gbuf **in, const gbuf **out)
{
    in[0] = &c->in;
    in[1] = NULL;
    out[0] = &c->out;
    out[1] = NULL;
}

static void witness_layout_of(int stage, int size, witness_layout *l)
{
    (void)stage;
    l->in_bytes[1] = 0;
    l->in_bytes[0] = l->out_bytes[0] =
        (size_t)transpose_sizes[size][0] * (size_t)transpose_sizes[size][1] * 4;
    l->out_bytes[1] = 0;
    l->poison[0] = 0xff;
    l->fill = DEVCHECK_FILL_UNIFORM; /* as the grader's own inputs */
    l->lo = -1;
    l->hi = 1;
}

static long long witness_check(int role, int stage, int size, const void *const *d_out,
                               const void *const *ins, cudaStream_t s, check_outcome *out,
                               int full)
{
    (void)full; /* every output is checked in any case */
    const void *d_in = ins[0];
    (void)stage;
    int rows = transpose_sizes[size][0], cols = transpose_sizes[size][1];
    const int is_copy = role == WITNESS_CEILING || is_copy_stage(role);
    long long bad = devcheck_transpose_on_gpu(d_out[0], d_in, (size_t)rows, (size_t)cols, is_copy,
                                              s, out);
    if (bad >= 0) {
        int out_cols = is_copy ? cols : rows;
        char at[64];
        index_text(at, sizeof at, "out", (size_t)bad, out_cols);
        snprintf(out->msg, sizeof out->msg, "%s (element %lld) does not hold its input's value.",
                 at, bad);
    }
    return bad;
}

static const lab_witness transpose_witness = {
    .buffers = witness_buffers,
    .layout = witness_layout_of,
    .check = witness_check,
    .names = {"the input d_in", NULL, "the output d_out", NULL},
};

const lab_spec lab_transpose = {
    .number = 1,
    .name = "transpose",
    .dir = "1-transpose",
    .available = 1,
    .stages = transpose_stages,
    .n_stages = (int)(sizeof transpose_stages / sizeof transpose_stages[0]),
    .n_sizes = N_SIZES,
    .bench_size = BENCH_SIZE,
    .unit = "GB/s",
    .ceiling_name = "cudaMemcpy D2D",
    .forbidden_calls = policy_stream_stage_rules,
    /* Each stage's .reference is the reference solution's speed on it, in
     * GB/s (handouts/1-transpose.md). */
    .reference_gpu = "NVIDIA H200",
    .floor_throughput = 5, /* GB/s */
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
    .witness = &transpose_witness,
};
