/* grader/labs/reduce.c: lab 2's specification — the stages, their points and
 * thresholds, the graded sizes, how inputs are made and how a sum is judged.
 *
 * Inputs. Two sets at every size, both checked: signed uniform values in
 * [-0.9, 1.1) and a heavy-tailed set (|x| = 1/sqrt(u), Pareto with infinite
 * variance, positive with probability 0.55) whose few huge values cancel,
 * so the order of additions matters. Both have a positive mean, so the exact
 * sum is far from zero: an all-zero output never passes, and one constant
 * cannot match both sets.
 *
 * Tolerance. The expected sum is computed in double precision (exact to far
 * below float resolution here). A float sum in any tree-like order is off by
 * at most about ceil(log2 n) * u * sum|x| (u = 2^-24); in practice, over the
 * summation orders students write (trees, grid-stride loops, a few hundred
 * atomicAdds of block sums) the error stays under 6 u sum|x| (measured on the
 * CPU over many seeds, grader/tests/check_labs.c repeats it). The grader
 * accepts |got - exact| <= (8 + log2(n) / 2) * u * sum|x|: several times
 * that, and far below one element of the input at the small sizes, where
 * lost elements show. One float accumulator over the whole input (an
 * atomicAdd per element) drifts further at large n; the handout says why.
 *
 * Thresholds. Each stage is timed against the stage before it, at 2^28
 * floats. The reference solution's steps on an H200 (handouts/2-reduce.md has
 * the table; medians of ten runs) were 11.24x, 1.62x, 1.29x, 1.86x, 1.31x, 1.05x
 * and 1.95x; each threshold is 0.70 to 0.80 of that (stage 5: 1.05 of 1.31, 0.802), except
 * stage 1's, and never below 1.0 (no stage may be slower than the one
 * before): 3.0 (the whole GPU against one block; fewer SMs give less), 1.15,
 * 1.03, 1.30, 1.05, 1.0 and 1.5. Stage 7 must also reach
 * 80% of CUB's speed; the reference reaches 99%. */
#define _GNU_SOURCE
#include "reduce_lab.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/compare.h"
#include "../../common/hostmem.h"
#include "../../common/par.h"
#include "../../common/rng.h"
#include "../../labs/2-reduce/reduce.h"
#include "../ceiling.h"
#include "../ceilings/ceilings.h"
#include "../gbuf.h"
#include "../lab.h"
#include "../patch.h"
#include "lab_util.h"
#include "../timings.h"
#include "../policy.h"

/* Stage 0 is the given one-block kernel: graded for correctness with 0 points
 * and timed, so the table shows what one SM does alone. Every later stage
 * must beat the stage before it. */
static const lab_stage reduce_stages[] = {
    {
        .title = "one block (given)",
        .symbol = "reduce_one_block",
        .given = 1,
        .reference = 38,
    },
    {
        .title = "interleaved, divergent",
        .symbol = "reduce_interleaved",
        .points_correct = 10,
        .points_speed = 5,
        .min_speedup = 3.0,
        /* One block of stage 0 runs on one SM; stage 1 spreads over all of
         * them. Measured with --sms on the H200, the reference made 0.086x
         * per SM (1.38x on 16, 2.76x on 32, 3.45x on 40, 11.35x on 132), so
         * it needs 0.07x per SM below 43 SMs, and its speed is graded from
         * 16 SMs up (decide_min_speedup). */
        .min_speedup_per_sm = 0.07,
        LAB_BASES(0),
        .reference = 416,
        .technique = {{"LDS", "shared-memory loads (LDS)"}},
        .hint = "Stage 1 should use the whole GPU: one block per blockDim.x elements (a grid of "
                "ceil(n / 256) blocks), each writing its block's sum to d_work, then the same kernel over "
                "those sums until one block is left. If it is barely faster than one block, check that the "
                "grid really has that many blocks.",
    },
    {
        .title = "interleaved, strided index",
        .symbol = "reduce_strided",
        .points_correct = 10,
        .points_speed = 5,
        .min_speedup = 1.15,
        LAB_BASES(1),
        .reference = 675,
        .hint = "The point of stage 2 is that the working threads are the first ones: thread tid works on "
                "index = 2 * s * tid (only while index < blockDim.x), so whole warps either work or skip a "
                "step. A branch on tid % (2 * s) is still stage 1.",
    },
    {
        .title = "sequential addressing",
        .symbol = "reduce_sequential",
        .points_correct = 10,
        .points_speed = 5,
        .min_speedup = 1.03,
        LAB_BASES(2),
        .reference = 870,
        .technique = {{"LDS", "shared-memory loads (LDS)"}},
        .hint = "Fold the shared array in half: s runs from blockDim.x / 2 down to 1, and thread tid < s "
                "adds sdata[tid + s]. A warp then reads 32 consecutive words, one per bank; ncu's "
                "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum should drop to about zero.",
    },
    {
        .title = "first add during load",
        .symbol = "reduce_first_add",
        .points_correct = 10,
        .points_speed = 5,
        .min_speedup = 1.30,
        LAB_BASES(3),
        .reference = 1616,
        .hint = "Each block should now cover 2 * blockDim.x elements and launch half as many blocks: "
                "thread tid adds in[i] and in[i + blockDim.x] (both loads coalesced) before the tree. "
                "Check that reduce_in_passes gets per_block = 2 * threads.",
    },
    {
        .title = "unrolled last warp",
        .symbol = "reduce_unroll_warp",
        .points_correct = 10,
        .points_speed = 5,
        .min_speedup = 1.05,
        LAB_BASES(4),
        .reference = 2116,
        .hint = "Stop the shared-memory loop at s = 64 (s > 32) and let warp 0 finish with __syncwarp() "
                "between each read and write, with no __syncthreads() and no tid < s test inside. A "
                "__syncthreads() left in the warp steps costs as much as before.",
    },
    {
        .title = "complete unroll (template)",
        .symbol = "reduce_unroll_all",
        .points_correct = 10,
        .points_speed = 5,
        .min_speedup = 1.0,
        LAB_BASES(5),
        .reference = 2217,
        .hint = "Make the block size a template parameter (template <unsigned BLOCK>) and write each step "
                "as if (BLOCK >= 512) { ... } so the compiler removes the loop; launch the instance "
                "matching your block size. Runtime blockDim.x inside the steps keeps the loop alive.",
    },
    {
        .title = "many elements per thread, float4",
        .symbol = "reduce_many",
        .points_correct = 10,
        .points_speed = 10,
        .min_speedup = 1.50,
        LAB_BASES(6),
        .min_ceiling = 0.80,
        .reference = 4325,
        .technique = {{"LDG.128", "16-byte global loads (LDG.E.128)"}},
        .hint = "Size the grid to the GPU (SMs x blocks per SM, from cudaOccupancyMaxActiveBlocksPerMultiprocessor), "
                "let each thread loop over the input with a stride of gridDim.x * blockDim.x float4s, "
                "issuing several float4 loads before adding any, and finish the few hundred block sums "
                "with one more small launch. Thousands of blocks, or one float per load, leave it short of "
                "the ceiling.",
    },
};

/* Small and awkward sizes first, so most bugs show quickly; the benchmark last. */
static const size_t reduce_sizes[] = {
    1, 2, 31, 32, 33, 1000, (size_t)1 << 20, ((size_t)1 << 20) + 7, 1000003, (size_t)1 << 28,
};
#define N_SIZES ((int)(sizeof reduce_sizes / sizeof reduce_sizes[0]))
#define BENCH_SIZE (N_SIZES - 1)
#define VARIANTS 2 /* uniform, heavy-tailed: both checked at every size */

double reduce_tolerance(size_t n, double sum_abs)
{
    double u = ldexp(1.0, -24);
    return (8.0 + 0.5 * log2((double)(n > 1 ? n : 1))) * u * sum_abs;
}

/* Inputs are made by rng_par_blocks (blocks from streams of their own, on
 * all cores); the sums add blocks' sums in order, so the result does not
 * depend on the number of threads. */
#define INPUT_BLOCK RNG_BLOCK

typedef struct input_job {
    float *x;
    int variant;
    uint64_t seed;
    double *sums; /* two per block: sum, sum of magnitudes */
} input_job;

static void make_block(void *ctx, rng *r, size_t b, size_t e)
{
    const input_job *j = ctx;
    if (j->variant == 0) {
        rng_fill_uniform(r, j->x + b, e - b, -0.9f, 1.1f);
        return;
    }
    for (size_t i = b; i < e; i++) {
        /* u in (0, 1]: 53 random bits, never 0 */
        double u = ((double)(rng_next(r) >> 11) + 1.0) * ldexp(1.0, -53);
        double m = 1.0 / sqrt(u);
        j->x[i] = (float)((rng_next(r) >> 11) * ldexp(1.0, -53) < 0.45 ? -m : m);
    }
}

static int sum_slice(void *ctx, size_t begin, size_t end)
{
    const input_job *j = ctx;
    for (size_t b = begin; b < end; b += INPUT_BLOCK) {
        size_t e = b + INPUT_BLOCK < end ? b + INPUT_BLOCK : end;
        double s = 0, a = 0;
        for (size_t i = b; i < e; i++) {
            s += j->x[i];
            a += fabs(j->x[i]);
        }
        j->sums[2 * (b / INPUT_BLOCK)] = s;
        j->sums[2 * (b / INPUT_BLOCK) + 1] = a;
    }
    return 0;
}

void reduce_make_input(float *x, size_t n, int variant, uint64_t seed, double *sum,
                       double *sum_abs)
{
    size_t blocks = (n + INPUT_BLOCK - 1) / INPUT_BLOCK;
    double one[2], *sums = blocks > 1 ? malloc(2 * blocks * sizeof(double)) : one;
    input_job j = {x, variant, rng_derive(seed, (uint64_t)variant), sums ? sums : one};
    rng_par_blocks(j.seed, n, make_block, &j);
    for (;;) {
        double s = 0, a = 0;
        if (sums) {
            par_for(n, INPUT_BLOCK, sum_slice, &j);
            for (size_t b = 0; b < blocks; b++) {
                s += sums[2 * b];
                a += sums[2 * b + 1];
            }
        } else { /* no memory for the blocks' sums: one pass here */
            for (size_t i = 0; i < n; i++) {
                s += x[i];
                a += fabs(x[i]);
            }
        }
        /* Keep the exact sum well away from zero (rare with these means, but
         * possible at tiny n): then no constant 0 can pass. */
        if (fabs(s) > 16.0 * reduce_tolerance(n, a) && a > 0) {
            *sum = s;
            *sum_abs = a;
            if (sums != one)
                free(sums);
            return;
        }
        x[0] += 1.0f;
    }
}

int reduce_judge(double expect, double sum_abs, size_t n, float got, char *msg, size_t msgn)
{
    double tol = reduce_tolerance(n, sum_abs);
    uint32_t bits;
    memcpy(&bits, &got, sizeof bits);
    if (bits == COMPARE_UNWRITTEN) {
        snprintf(msg, msgn,
                 "d_out[0] was never written (it still holds the grader's NaN pattern; expected "
                 "%.9g). Does the last pass, the one with a single block, write to d_out "
                 "rather than to d_work?",
                 expect);
        return V_NOT_WRITTEN;
    }
    if (isnan(got) || isinf(got)) {
        snprintf(msg, msgn,
                 "d_out[0] is %s, expected %.9g. A NaN comes from adding something that is not "
                 "input: an element past n (check the bounds on every load, including the "
                 "second one of a first add), a d_work slot no pass wrote, or a shared-memory "
                 "slot read before it was written.",
                 isnan(got) ? "NaN" : "infinite", expect);
        return V_NAN;
    }
    double diff = fabs((double)got - expect);
    if (diff <= tol)
        return V_PASS;
    char why[200] = "";
    double ratio = (double)got / expect;
    if (got == 0.0f)
        snprintf(why, sizeof why, " A zero: the sum was never stored, or stored before it was complete.");
    else if (ratio > 0.0 && ratio < 0.999)
        snprintf(why, sizeof why,
                 " It is %.1f%% of the exact sum: part of the input (or of the partial sums) "
                 "was left out.",
                 100.0 * ratio);
    else if (ratio > 1.001)
        snprintf(why, sizeof why,
                 " It is %.1f%% of the exact sum: some elements or partial sums were added "
                 "twice.",
                 100.0 * ratio);
    snprintf(msg, msgn,
             "d_out[0] = %.9g, expected %.9g (off by %.3g; a float sum may be off by %.3g at "
             "this size).%s Common causes: the elements past the last full block "
             "(n is often not a multiple of the block size), a missing __syncthreads() between "
             "two steps of the tree, or a pass reading sums another block has not written yet.",
             got, expect, diff, tol, why);
    return V_WRONG;
}

void reduce_seen_add(reduce_seen *s, double sum)
{
    s->sum[s->next] = sum;
    s->next = (s->next + 1) % REDUCE_SEEN;
    if (s->n < REDUCE_SEEN)
        s->n++;
}

static double unit_draw(rng *r) /* uniform in [0, 1) */
{
    return (double)(rng_next(r) >> 11) * ldexp(1.0, -53);
}

void reduce_patch_values(const float *x, size_t n, const uint64_t *idx, int k, reduce_seen *seen,
                         rng *r, uint32_t *val, double *sum, double *sum_abs)
{
    if (k <= 0)
        return;
    const double s0 = *sum, a0 = *sum_abs;
    /* Each word moves by m * [0.5, 1.5), m from 2^-12 sum|x| / k up to 64
     * times that: the sum moves by 2^-13 sum|x| or more, about 90 tolerances
     * at 2^28 (more at smaller n), never by more than half of itself. */
    const double base = ldexp(a0, -12) / k, cap = fabs(s0) / (3.0 * k);
    for (int t = 0;; t++) {
        double dir = rng_below(r, 2) ? 1.0 : -1.0, m = base * exp2(6.0 * unit_draw(r)), d = 0,
               da = 0;
        if (m > cap)
            m = cap;
        for (int j = 0; j < k; j++) {
            float old = x[idx[j]], now = (float)((double)old + dir * m * (0.5 + unit_draw(r)));
            d += (double)now - (double)old;
            da += fabs((double)now) - fabs((double)old);
            memcpy(&val[j], &now, sizeof now);
        }
        double ns = s0 + d, tol = reduce_tolerance(n, a0 + da);
        int ok = fabs(d) > 32.0 * tol;
        for (int i = 0; i < seen->n && ok; i++)
            ok = fabs(ns - seen->sum[i]) > 8.0 * tol;
        if (ok || t == 63) { /* 63: tiny n only, where the cap leaves little room */
            *sum = ns;
            *sum_abs = a0 + da;
            break;
        }
    }
    reduce_seen_add(seen, *sum);
}

/* Host inputs of one size and their exact sums: made once in the parent by
 * pregenerate (children share them through fork), or by setup on demand. */
typedef struct host_data {
    uint64_t seed;
    int made;
    float *in[VARIANTS];
    double sum[VARIANTS], sum_abs[VARIANTS];
} host_data;

static host_data cache[N_SIZES];

struct lab_ctx {
    size_t n;
    host_data own; /* used when the cache does not hold this size */
    const host_data *h;
    gbuf in, out, work;
    void *d_variant[VARIANTS]; /* device copies of the inputs, to reload quickly */
    float *h_got;              /* pinned: inputs read back */
    void *d_temp;              /* CUB's temporary storage */
    size_t temp_bytes;
    ceiling_reduce_sum_fn *cub_sum;
    /* Timed calls: the patch of the input and the sum it leads to. */
    patch_set patch;
    cudaStream_t patch_stream;
    double patched_sum, patched_abs;
    reduce_seen seen; /* every sum expected so far at this size */
};

static void size_text(int size, char *buf, size_t n)
{
    size_t v = reduce_sizes[size];
    if (v >= 1024 && (v & (v - 1)) == 0)
        snprintf(buf, n, "n = 2^%d", (int)log2((double)v));
    else if (v > 1024 && ((v - 7) & (v - 8)) == 0)
        snprintf(buf, n, "n = 2^%d + 7", (int)log2((double)(v - 7)));
    else
        snprintf(buf, n, "n = %zu", v);
}

/* Gigabytes read per call: every element once. */
static double work(int stage, int size)
{
    (void)stage;
    return 4.0 * (double)reduce_sizes[size] / 1e9;
}

static void host_data_free(host_data *h)
{
    for (int v = 0; v < VARIANTS; v++)
        free(h->in[v]);
    memset(h, 0, sizeof *h);
}

static int host_data_make(host_data *h, int size, uint64_t seed)
{
    size_t n = reduce_sizes[size];
    h->seed = seed;
    for (int v = 0; v < VARIANTS; v++) {
        h->in[v] = hostmem_alloc(n * sizeof(float));
        if (!h->in[v]) {
            host_data_free(h);
            return -1;
        }
        reduce_make_input(h->in[v], n, v, seed, &h->sum[v], &h->sum_abs[v]);
    }
    h->made = 1;
    return 0;
}

static int pregenerate(int size, uint64_t seed, int variants)
{
    (void)variants; /* both sets, always */
    if (size < 0 || size >= N_SIZES)
        return -1;
    host_data_free(&cache[size]);
    return host_data_make(&cache[size], size, seed);
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
    uint64_t d = LAB_DIGEST_START;
    size_t bytes = 0;
    for (int v = 0; v < VARIANTS; v++)
        bytes += lab_held(&d, h->in[v], reduce_sizes[size] * sizeof(float));
    d = lab_digest(d, h->sum, sizeof h->sum);
    d = lab_digest(d, h->sum_abs, sizeof h->sum_abs);
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
    gbuf_free(&c->work);
    host_data_free(&c->own);
    for (int v = 0; v < VARIANTS; v++)
        if (c->d_variant[v])
            cudaFree(c->d_variant[v]);
    if (c->h_got)
        free(c->h_got);
    if (c->d_temp)
        cudaFree(c->d_temp);
    patch_free(&c->patch);
    free(c);
}

static int setup(lab_ctx **pctx, int stage, int size, uint64_t seed, int variants,
                 check_outcome *out)
{
    (void)stage;
    (void)variants;
    lab_ctx *c = calloc(1, sizeof *c);
    *pctx = c;
    if (!c)
        return lab_no_memory(out, NULL);
    c->n = reduce_sizes[size];
    size_t bytes = c->n * sizeof(float);
    c->h = &cache[size];
    if (!c->h->made || c->h->seed != seed) {
        int prev = tm_enter(TM_INPUTS), made = host_data_make(&c->own, size, seed);
        tm_enter(prev);
        if (made != 0)
            return lab_no_memory(out, " for the inputs");
        c->h = &c->own;
    }
    for (int v = 0; v < VARIANTS; v++) /* what the correctness calls return */
        reduce_seen_add(&c->seen, c->h->sum[v]);

    static const char *const syms[] = {"ceiling_reduce_temp_bytes", "ceiling_reduce_sum"};
    void *fns[2];
    if (ceiling_load("lab2", syms, fns, 2, out->msg, sizeof out->msg) != 0) {
        out->v = V_SETUP_ERROR;
        return -1;
    }
    ceiling_reduce_temp_bytes_fn *temp_bytes = (ceiling_reduce_temp_bytes_fn *)fns[0];
    c->cub_sum = (ceiling_reduce_sum_fn *)fns[1];

    rng r; /* guard patterns, from the same seed */
    rng_seed(&r, rng_derive(seed, 77));
    cudaError_t err = gbuf_alloc(&c->in, bytes, rng_next(&r));
    if (err != cudaSuccess)
        return lab_fail_cuda(out, err, "allocate the input buffer");
    err = gbuf_alloc(&c->out, sizeof(float), rng_next(&r));
    if (err != cudaSuccess)
        return lab_fail_cuda(out, err, "allocate the output");
    err = gbuf_alloc(&c->work, reduce_work_floats(c->n) * sizeof(float), rng_next(&r));
    if (err != cudaSuccess)
        return lab_fail_cuda(out, err, "allocate the workspace");
    if (lab_host_buffer((void **)&c->h_got, bytes, out) != 0)
        return -1;
    if (temp_bytes(c->n, &c->temp_bytes) != 0)
        return lab_fail_cuda(out, cudaGetLastError(), "size CUB's temporary storage");
    err = cudaMalloc(&c->d_temp, c->temp_bytes ? c->temp_bytes : 1);
    if (err != cudaSuccess) {
        c->d_temp = NULL;
        return lab_fail_cuda(out, err, "allocate CUB's temporary storage");
    }
    const void *inputs[VARIANTS] = {c->h->in[0], c->h->in[1]};
    return lab_device_copies(c->d_variant, inputs, VARIANTS, bytes, out);
}

static int prepare(lab_ctx *c, int variant, cudaStream_t s, check_outcome *out)
{
    cudaError_t err = cudaMemcpyAsync(c->in.d, c->d_variant[variant], c->n * sizeof(float),
                                      cudaMemcpyDeviceToDevice, s);
    if (err == cudaSuccess)
        err = gbuf_poison(&c->out, s);
    if (err == cudaSuccess)
        err = gbuf_poison(&c->work, s);
    if (err != cudaSuccess)
        return lab_fail_cuda(out, err, "load the input");
    patch_clear(&c->patch); /* the reload undid it */
    return 0;
}

/* Timed calls: 16 words move the sum by far more than the tolerance, in a
 * direction and by an amount no earlier call saw (reduce_patch_values). */
static int perturb(lab_ctx *c, int variant, rng *r, cudaStream_t s, check_outcome *out)
{
    patch_pick(&c->patch, 16, c->n, r);
    c->patched_sum = c->h->sum[variant];
    c->patched_abs = c->h->sum_abs[variant];
    reduce_patch_values(c->h->in[variant], c->n, c->patch.idx, c->patch.n, &c->seen, r,
                        c->patch.val, &c->patched_sum, &c->patched_abs);
    c->patch_stream = s;
    return patch_apply(&c->patch, c->in.d, s, out);
}

static int call(lab_ctx *c, int stage, void *fn, cudaStream_t s)
{
    (void)stage;
    reduce_fn f = (reduce_fn)fn;
    return (int)f((const float *)c->in.d, c->n, (float *)c->out.d, (float *)c->work.d, s);
}

static int call_ceiling(lab_ctx *c, int stage, cudaStream_t s)
{
    (void)stage;
    return c->cub_sum((const float *)c->in.d, c->n, (float *)c->out.d, c->d_temp, c->temp_bytes,
                      s);
}

static int check(lab_ctx *c, int stage, int variant, int full, check_outcome *out)
{
    (void)stage;
    if (lab_guard_check(&c->out, "the output d_out", 1, out) ||
        lab_guard_check(&c->work, "the workspace d_work", reduce_work_floats(c->n), out) ||
        lab_guard_check(&c->in, "the input d_in", c->n, out))
        return -1;
    cudaError_t err;
    /* The input as loaded: read back in full, or in a timed call compared on
     * the GPU with its patch allowed for. */
    if (lab_input_as_loaded(full ? NULL : &c->patch, &c->in, c->d_variant[variant],
                            c->h->in[variant], c->n, c->h_got, c->patch_stream, 0, 0,
                            "a stage may only read its input; partial sums go to d_work",
                            out) != 0)
        return -1;
    float got;
    err = cudaMemcpy(&got, c->out.d, sizeof got, cudaMemcpyDeviceToHost);
    if (err != cudaSuccess)
        return lab_fail_cuda(out, err, "read the output back");
    int patched = !full && c->patch.n > 0;
    int v = reduce_judge(patched ? c->patched_sum : c->h->sum[variant],
                         patched ? c->patched_abs : c->h->sum_abs[variant], c->n, got, out->msg,
                         sizeof out->msg);
    if (v == V_PASS)
        return 0;
    out->v = (verdict)v;
    if (variant == 1) { /* say which input set: the heavy tail has its own traps */
        size_t len = strlen(out->msg);
        snprintf(out->msg + len, sizeof out->msg - len, " (the heavy-tailed input set)");
    }
    if (patched)
        lab_note_patched(out, c->patch.n);
    return -1;
}

/* The timing witness (grader/witness.h): a fresh input of the first set's
 * kind before each timed call, and the sum checked against it after. */
static const gbuf *witness_workspace(lab_ctx *c)
{
    return &c->work;
}

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
    l->in_bytes[0] = reduce_sizes[size] * sizeof(float);
    l->out_bytes[0] = sizeof(float);
    l->out_bytes[1] = 0;
    l->poison[0] = 0xff;
    l->fill = DEVCHECK_FILL_UNIFORM; /* as reduce_make_input's first set */
    l->lo = -0.9;
    l->hi = 1.1;
}

static long long witness_check(int role, int stage, int size, const void *const *d_out,
                               const void *const *ins, cudaStream_t s, check_outcome *out,
                               int full)
{
    (void)full; /* every output is checked in any case */
    const void *d_in = ins[0];
    (void)role;
    (void)stage;
    return lab_witness_sum(d_out[0], d_in, reduce_sizes[size], s, out);
}

static const lab_witness reduce_witness = {
    .buffers = witness_buffers,
    .workspace = witness_workspace,
    .layout = witness_layout_of,
    .check = witness_check,
    .names = {"the input d_in", NULL, "the output d_out", NULL},
};

const lab_spec lab_reduce = {
    .number = 2,
    .name = "reduce",
    .dir = "2-reduce",
    .available = 1,
    .stages = reduce_stages,
    .n_stages = (int)(sizeof reduce_stages / sizeof reduce_stages[0]),
    .n_sizes = N_SIZES,
    .bench_size = BENCH_SIZE,
    .check_variants = VARIANTS,
    .unit = "GB/s",
    .ceiling_name = "CUB DeviceReduce::Sum",
    .forbidden_calls = policy_stream_stage_rules,
    /* Each stage's .reference is the reference solution's speed on it, in
     * GB/s (handouts/2-reduce.md). */
    .reference_gpu = "NVIDIA H200",
    .floor_throughput = 4, /* GB/s: the one-block stage 0 runs at 38 on an H200 */
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
    .witness = &reduce_witness,
};
