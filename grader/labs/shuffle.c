/* grader/labs/shuffle.c: lab 3's specification — three operations (a float
 * sum, int scans, a stream compaction), their stages, points and thresholds,
 * inputs and checks.
 *
 * Sums (stages 1, 2) use lab 2's inputs and tolerance (grader/labs/reduce.c).
 * Scans and the compaction use ints, two sets at every size: uniform in
 * [-4, 5], and runs of random length (1 to 4096) that are all positive or all
 * non-positive, so whole tiles are kept or dropped by the compaction. Both
 * are compared exactly with the CPU's result. Outputs are filled with the
 * byte 0x80 before each call: 0x80808080 is below any prefix sum of these
 * inputs (|sum| <= 5 * 2^28), so an element still holding it was not written.
 *
 * Thresholds, from the reference's ratios on an H200 (handouts/3-shuffle.md),
 * about 0.80 of each or less: stage 2 1.50x over the given shared-memory sum
 * (it reached 1.88x) and 80% of CUB (99.5%); stage 5 5x over the one-block scan
 * (280x); stage 6 1.15x over stage 5 (1.44x) and 60% of CUB (96%); stage 7,
 * the only compaction, 50% of CUB's select alone (82%). Stages 3 and 4, the
 * building blocks, are graded for correctness and their speed reported.
 *
 * Stage 2's speed comes from its loads, not its shuffles: on an H200
 * (grader/tests/bench_shuffle.cu, one run) stage 1 finished with shuffles
 * made 1.05x over stage 1, stage 2's loop finished with stage 1's tree 1.92x,
 * stage 2 1.91x. No speed threshold can show the shuffles, so its technique
 * (SHFL in its kernels) is required built in: without it a correct, fast
 * stage 2 is TECHNIQUE MISSING (a config can make it a hint). */
#define _GNU_SOURCE
#include "shuffle_lab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/compare.h"
#include "../../common/hostmem.h"
#include "../../common/par.h"
#include "../../common/rng.h"
#include "../../labs/3-shuffle/shuffle.h"
#include "../ceiling.h"
#include "../ceilings/ceilings.h"
#include "../gbuf.h"
#include "../lab.h"
#include "../patch.h"
#include "../policy.h"
#include "../results.h"
#include "lab_util.h"
#include "../timings.h"
#include "reduce_lab.h"

#define CUB_REDUCE "CUB DeviceReduce::Sum"
#define CUB_SCAN "CUB DeviceScan::InclusiveSum"
#define CUB_SELECT "CUB DeviceSelect::If"
#define MEMCPY "cudaMemcpy D2D" /* a segmented scan moves what a copy moves, nothing more */

/* What lab 3 alone knows about a stage (lab.h). */
struct lab_stage_extra {
    enum shuffle_op op; /* what it computes */
};

static const lab_stage shuffle_stages[] = {
    {
        .title = "device scan, one block (given)",
        .symbol = "scan_one_block",
        .given = 1,
        .ceiling = CUB_SCAN,
        .extra = &(const struct lab_stage_extra){.op = SHUFFLE_SCAN},
        .reference = 7,
    },
    {
        .title = "block sum in shared memory (given)",
        .symbol = "reduce_shared",
        .given = 1,
        .ceiling = CUB_REDUCE,
        .extra = &(const struct lab_stage_extra){.op = SHUFFLE_SUM},
        .reference = 2308,
    },
    {
        .title = "warp-shuffle sum",
        .symbol = "reduce_shuffle",
        .points_correct = 10,
        .points_speed = 10,
        .min_speedup = 1.50,
        LAB_BASES(1),
        .min_ceiling = 0.80,
        .ceiling = CUB_REDUCE,
        .extra = &(const struct lab_stage_extra){.op = SHUFFLE_SUM},
        .reference = 4324,
        .technique = {{"SHFL", "warp shuffles (SHFL)"}},
        .technique_required = 1,
        .hint = "Each warp should sum its values with five __shfl_down_sync steps (offsets 16, 8, 4, 2, 1), "
                "lane 0 writing the warp's sum to a small shared array that warp 0 then sums: one "
                "__syncthreads() per block. The shuffles alone gain little: the speed comes from a grid "
                "sized to the GPU with several float4 loads per thread in flight, as in lab 2's stage 7.",
    },
    {
        .title = "warp scan (segments of 32)",
        .symbol = "scan_warp",
        .points_correct = 10,
        .ceiling = MEMCPY,
        .extra = &(const struct lab_stage_extra){.op = SHUFFLE_SCAN32},
        .reference = 2774,
        .technique = {{"SHFL.UP", "upward warp shuffles (SHFL.UP)"}},
    },
    {
        .title = "block scan (segments of 1024)",
        .symbol = "scan_block",
        .points_correct = 10,
        .ceiling = MEMCPY,
        .extra = &(const struct lab_stage_extra){.op = SHUFFLE_SCAN1K},
        .reference = 3941,
        .technique = {{"SHFL", "warp shuffles (SHFL)"}},
    },
    {
        .title = "device scan, multi-pass",
        .symbol = "scan_multipass",
        .points_correct = 10,
        .points_speed = 10,
        .min_speedup = 5.0,
        LAB_BASES(0),
        .ceiling = CUB_SCAN,
        .extra = &(const struct lab_stage_extra){.op = SHUFFLE_SCAN},
        .reference = 2049,
        .hint = "All three passes should use the whole GPU: one block per tile in the first and last pass "
                "(a tile of a few thousand elements, loaded with int4s by whole warps), and the same "
                "function, recursively, for the tile totals. A single block for any big pass brings it "
                "back to stage 0's speed.",
    },
    {
        .title = "single-pass scan (look-back)",
        .symbol = "scan_lookback",
        .points_correct = 10,
        .points_speed = 10,
        .min_speedup = 1.15,
        LAB_BASES(5),
        .min_ceiling = 0.60,
        .ceiling = CUB_SCAN,
        .extra = &(const struct lab_stage_extra){.op = SHUFFLE_SCAN},
        .reference = 2952,
        .technique = {{"SHFL", "warp shuffles (SHFL)"}},
        .hint = "One pass: each element read once and written once. Check that tiles are numbered by an "
                "atomicAdd on a counter (not blockIdx.x), that a tile publishes its aggregate before it "
                "looks back, and that the look-back reads 32 predecessors at once with a whole warp "
                "rather than one by one with a single thread.",
    },
    {
        .title = "stream compaction (ballot, popc)",
        .symbol = "compact_positive",
        .points_correct = 10,
        .points_speed = 10,
        .min_ceiling = 0.50,
        .ceiling = CUB_SELECT,
        .extra = &(const struct lab_stage_extra){.op = SHUFFLE_COMPACT},
        .reference = 1460,
        .technique = {{"VOTE", "warp ballots (VOTE)"}, {"POPC", "population counts (POPC)"}},
        .hint = "Count with __ballot_sync(FULL_MASK, x > 0) and __popc(mask & lanes_below) in registers "
                "rather than scanning flags written to memory, chain the tiles' counts with stage 6's "
                "look-back, and read the input with int4 loads: the input should be read once.",
    },
};
#define N_STAGES ((int)(sizeof shuffle_stages / sizeof shuffle_stages[0]))

static const size_t shuffle_sizes[] = {
    1, 31, 32, 33, 1000, ((size_t)1 << 20) + 7, 1000003, (size_t)1 << 28,
};
#define N_SIZES ((int)(sizeof shuffle_sizes / sizeof shuffle_sizes[0]))
#define BENCH_SIZE (N_SIZES - 1)
#define VARIANTS 2
#define INT_FILL 0x80 /* byte written over int outputs before each call */
#define INT_UNWRITTEN ((int)0x80808080u)

int shuffle_stage_op(int stage)
{
    return stage >= 0 && stage < N_STAGES ? (int)shuffle_stages[stage].extra->op : -1;
}

/* Made by rng_par_blocks, on all cores (a run of the second set ends where
 * its block does). */
typedef struct ints_job {
    int *x;
    int variant;
} ints_job;

static void ints_block(void *ctx, rng *r, size_t b, size_t e)
{
    const ints_job *j = ctx;
    for (size_t i = b; i < e;) {
        if (j->variant == 0) {
            j->x[i++] = (int)rng_below(r, 10) - 4;
            continue;
        }
        size_t len = 1 + (size_t)rng_below(r, 4096);
        int keep = (int)rng_below(r, 2);
        for (size_t k = 0; k < len && i < e; k++, i++)
            j->x[i] = keep ? 1 + (int)rng_below(r, 5) : -(int)rng_below(r, 5);
    }
}

void shuffle_make_ints(int *x, size_t n, int variant, uint64_t seed)
{
    ints_job j = {x, variant};
    rng_par_blocks(rng_derive(seed, 100u + (uint64_t)variant), n, ints_block, &j);
}

void shuffle_expected_scan(const int *x, size_t n, size_t segment, int *out)
{
    int sum = 0;
    for (size_t i = 0; i < n; i++) {
        if (segment && i % segment == 0)
            sum = 0;
        sum += x[i];
        out[i] = sum;
    }
}

size_t shuffle_expected_compact(const int *x, size_t n, int *out)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (x[i] > 0)
            out[k++] = x[i];
    return k;
}

typedef struct scan_job {
    const int *x, *got;
    size_t segment;
    size_t *offsets;
    const uint64_t *pidx; /* a patch: x[pidx[j]] reads as pval[j] */
    const uint32_t *pval;
    int np;
} scan_job;

/* The first patched word at or after i. */
static int patch_from(const scan_job *j, size_t i)
{
    int lo = 0, hi = j->np;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (j->pidx[mid] < i)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static inline int scan_word_bad(const scan_job *j, size_t i, int xi)
{
    int starts = i == 0 || (j->segment && i % j->segment == 0);
    uint32_t before = starts ? 0u : (uint32_t)j->got[i - 1];
    return (uint32_t)j->got[i] - before != (uint32_t)xi;
}

/* Runs between patched words go at full speed; the few patched words alone. */
static int scan_slice_bad(void *ctx, size_t begin, size_t end)
{
    const scan_job *j = ctx;
    int p = patch_from(j, begin);
    for (size_t i = begin; i < end;) {
        size_t stop = p < j->np && j->pidx[p] < end ? (size_t)j->pidx[p] : end;
        for (; i < stop; i++)
            if (scan_word_bad(j, i, j->x[i]))
                return 1;
        if (stop < end) {
            if (scan_word_bad(j, stop, (int)j->pval[p++]))
                return 1;
            i = stop + 1;
        }
    }
    return 0;
}

int shuffle_scan_ok_patched(const int *x, const int *got, size_t n, size_t segment,
                            const uint64_t *idx, const uint32_t *val, int k)
{
    scan_job j = {x, got, segment, NULL, idx, val, k};
    return !par_for(n, SHUFFLE_BLOCK, scan_slice_bad, &j);
}

int shuffle_scan_ok(const int *x, const int *got, size_t n, size_t segment)
{
    return shuffle_scan_ok_patched(x, got, n, segment, NULL, NULL, 0);
}

static int count_slice(void *ctx, size_t begin, size_t end)
{
    const scan_job *j = ctx;
    for (size_t b = begin; b < end; b += SHUFFLE_BLOCK) {
        size_t e = b + SHUFFLE_BLOCK < end ? b + SHUFFLE_BLOCK : end, k = 0;
        for (size_t i = b; i < e; i++)
            k += j->x[i] > 0;
        j->offsets[b / SHUFFLE_BLOCK + 1] = k;
    }
    return 0;
}

size_t shuffle_compact_plan(const int *x, size_t n, size_t *offsets)
{
    size_t blocks = (n + SHUFFLE_BLOCK - 1) / SHUFFLE_BLOCK;
    scan_job j = {x, NULL, 0, offsets, NULL, NULL, 0};
    offsets[0] = 0;
    par_for(n, SHUFFLE_BLOCK, count_slice, &j);
    for (size_t b = 1; b <= blocks; b++)
        offsets[b] += offsets[b - 1];
    return offsets[blocks];
}

static int compact_slice_bad(void *ctx, size_t begin, size_t end)
{
    const scan_job *j = ctx;
    size_t k = j->offsets[begin / SHUFFLE_BLOCK];
    int p = patch_from(j, begin);
    for (size_t i = begin; i < end;) {
        size_t stop = p < j->np && j->pidx[p] < end ? (size_t)j->pidx[p] : end;
        for (; i < stop; i++)
            if (j->x[i] > 0 && j->got[k++] != j->x[i])
                return 1;
        if (stop < end) {
            int xi = (int)j->pval[p++];
            if (xi > 0 && j->got[k++] != xi)
                return 1;
            i = stop + 1;
        }
    }
    return 0;
}

int shuffle_compact_ok_patched(const int *x, size_t n, const size_t *offsets, const int *got,
                               const uint64_t *idx, const uint32_t *val, int k)
{
    scan_job j = {x, got, 0, (size_t *)offsets, idx, val, k};
    return !par_for(n, SHUFFLE_BLOCK, compact_slice_bad, &j);
}

int shuffle_compact_ok(const int *x, size_t n, const size_t *offsets, const int *got)
{
    return shuffle_compact_ok_patched(x, n, offsets, got, NULL, NULL, 0);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

void shuffle_patch_ints(const int *x, size_t n, int op, uint64_t *idx, int *k, rng *r,
                        uint32_t *val)
{
    int m = 0;
    if (op == SHUFFLE_COMPACT) { /* onto kept elements, still ascending and distinct */
        for (int j = 0; j < *k; j++) {
            size_t i = (size_t)idx[j], steps = 0;
            while (x[i] <= 0 && steps++ < SHUFFLE_BLOCK)
                i = i + 1 < n ? i + 1 : 0;
            if (x[i] > 0)
                idx[m++] = i;
        }
        qsort(idx, (size_t)m, sizeof idx[0], cmp_u64);
        int d = 0;
        for (int j = 0; j < m; j++)
            if (d == 0 || idx[j] != idx[d - 1])
                idx[d++] = idx[j];
        m = d;
    } else {
        m = *k;
    }
    for (int j = 0; j < m; j++) {
        int old = x[idx[j]], now;
        if (op == SHUFFLE_COMPACT) /* 1..5, another one */
            now = 1 + (old - 1 + 1 + (int)rng_below(r, 4)) % 5;
        else /* -4..5, another one */
            now = -4 + (old + 4 + 1 + (int)rng_below(r, 9)) % 10;
        val[j] = (uint32_t)now;
    }
    *k = m;
}

static size_t segment_of(int op)
{
    return op == SHUFFLE_SCAN32 ? 32 : op == SHUFFLE_SCAN1K ? SHUFFLE_SEGMENT : 0;
}

int shuffle_judge_scan(const int *in, const int *expect, const int *got, size_t n, int op,
                       char *msg, size_t msgn)
{
    size_t first = n, wrong = 0, unwritten = 0;
    for (size_t i = 0; i < n; i++)
        if (got[i] != expect[i]) {
            if (first == n)
                first = i;
            wrong++;
            unwritten += got[i] == INT_UNWRITTEN;
        }
    if (!wrong)
        return V_PASS;
    size_t seg = segment_of(op);
    size_t start = seg ? first - first % seg : 0;
    if (unwritten == wrong) {
        snprintf(msg, msgn,
                 "%zu of %zu elements of d_out were never written, the first d_out[%zu]. Does "
                 "the grid cover the last, partial %s?",
                 unwritten, n, first, seg ? "segment" : "tile");
        return V_NOT_WRITTEN;
    }
    char why[220] = "";
    if (got[first] == expect[first] - in[first])
        snprintf(why, sizeof why,
                 " It equals the sum without d_in[%zu] itself: an exclusive scan where an "
                 "inclusive one is asked for?",
                 first);
    else if (got[first] == INT_UNWRITTEN)
        snprintf(why, sizeof why, " It was never written.");
    else if (!seg && first > 0 && got[first] == expect[first] - expect[first - 1])
        snprintf(why, sizeof why,
                 " It equals d_in[%zu] alone: the sum of everything before it is missing; is "
                 "this where one of your tiles starts?",
                 first);
    else if (seg)
        snprintf(why, sizeof why,
                 " It is element %zu of the segment that starts at d_in[%zu]; every segment "
                 "starts again from zero.",
                 first - start, start);
    else
        snprintf(why, sizeof why,
                 " Everything before it is right: if %zu is where one of your tiles starts, the "
                 "prefix of the tiles before is missing or was read too early.",
                 first);
    snprintf(msg, msgn, "%zu of %zu elements are wrong; the first is d_out[%zu] = %d, expected %d "
                        "(the sum of d_in[%zu..%zu]).%s",
             wrong, n, first, got[first], expect[first], start, first, why);
    return V_WRONG;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int shuffle_judge_compact(const int *expect, size_t k, const int *got, int got_count, char *msg,
                          size_t msgn)
{
    if (got_count == INT_UNWRITTEN) {
        snprintf(msg, msgn,
                 "d_count[0] was never written (expected %zu, the number of elements > 0). The "
                 "tile that finishes last in the chain writes it.",
                 k);
        return V_NOT_WRITTEN;
    }
    if (got_count < 0 || (size_t)got_count != k) {
        snprintf(msg, msgn, "d_count[0] = %d, expected %zu (the number of elements of d_in > 0)",
                 got_count, k);
        return V_WRONG;
    }
    size_t first = k;
    for (size_t j = 0; j < k; j++)
        if (got[j] != expect[j]) {
            first = j;
            break;
        }
    if (first == k)
        return V_PASS;
    if (got[first] == INT_UNWRITTEN) {
        snprintf(msg, msgn,
                 "d_out[%zu] was never written: the count is right (%zu) but kept element %zu "
                 "did not arrive. Is every tile's offset the number kept before it?",
                 first, k, first);
        return V_NOT_WRITTEN;
    }
    const char *order = "";
    if (k <= ((size_t)1 << 22)) { /* same elements, other order? */
        int *a = malloc(k * sizeof(int)), *b = malloc(k * sizeof(int));
        if (a && b) {
            memcpy(a, expect, k * sizeof(int));
            memcpy(b, got, k * sizeof(int));
            qsort(a, k, sizeof(int), cmp_int);
            qsort(b, k, sizeof(int), cmp_int);
            if (memcmp(a, b, k * sizeof(int)) == 0)
                order = " The kept elements are all there, but in another order: compaction "
                        "must keep the order of d_in (atomicAdd on a shared counter does not).";
        }
        free(a);
        free(b);
    }
    snprintf(msg, msgn, "d_out[%zu] = %d, expected %d (kept element %zu of %zu).%s", first,
             got[first], expect[first], first, k, order);
    return V_WRONG;
}

/* ---- host data, made once in the parent ---- */

typedef struct host_data {
    uint64_t seed;
    int made;
    float *f[VARIANTS]; /* the sums' inputs */
    double sum[VARIANTS], sum_abs[VARIANTS];
    int *x[VARIANTS]; /* the scans' and the compaction's inputs */
} host_data;

static host_data cache[N_SIZES];

static void host_data_free(host_data *h)
{
    for (int v = 0; v < VARIANTS; v++) {
        free(h->f[v]);
        free(h->x[v]);
    }
    memset(h, 0, sizeof *h);
}

static int host_data_make(host_data *h, int size, uint64_t seed)
{
    size_t n = shuffle_sizes[size];
    h->seed = seed;
    for (int v = 0; v < VARIANTS; v++) {
        h->f[v] = hostmem_alloc(n * sizeof(float));
        h->x[v] = hostmem_alloc(n * sizeof(int));
        if (!h->f[v] || !h->x[v]) {
            host_data_free(h);
            return -1;
        }
        reduce_make_input(h->f[v], n, v, seed, &h->sum[v], &h->sum_abs[v]);
        shuffle_make_ints(h->x[v], n, v, seed);
    }
    h->made = 1;
    return 0;
}

static int pregenerate(int size, uint64_t seed, int variants)
{
    (void)variants;
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
    size_t n = shuffle_sizes[size];
    uint64_t d = LAB_DIGEST_START;
    size_t bytes = 0;
    for (int v = 0; v < VARIANTS; v++) {
        bytes += lab_held(&d, h->f[v], n * sizeof(float));
        bytes += lab_held(&d, h->x[v], n * sizeof(int));
    }
    d = lab_digest(d, h->sum, sizeof h->sum);
    d = lab_digest(d, h->sum_abs, sizeof h->sum_abs);
    if (digest && bytes)
        *digest = d;
    return bytes;
}

struct lab_ctx {
    int op;
    size_t n;
    host_data own;
    const host_data *h;
    size_t *plan[VARIANTS]; /* compaction: shuffle_compact_plan of each input set */
    size_t kept[VARIANTS];  /* compaction: how many are kept */
    gbuf in, out, count, work;
    void *d_variant[VARIANTS];
    void *h_got; /* pinned: outputs and inputs read back */
    void *d_temp;
    size_t temp_bytes;
    ceiling_shuffle_sum_fn *cub_sum;
    ceiling_shuffle_scan_fn *cub_scan;
    ceiling_shuffle_select_fn *cub_select;
    /* Timed calls: the patch of the input, and for a sum the sum it leads to. */
    patch_set patch;
    cudaStream_t patch_stream;
    double patched_sum, patched_abs;
    reduce_seen seen; /* sums: every sum expected so far at this size */
};

static void size_text(int size, char *buf, size_t n)
{
    size_t v = shuffle_sizes[size];
    if (v == (size_t)1 << 28)
        snprintf(buf, n, "n = 2^28");
    else if (v == ((size_t)1 << 20) + 7)
        snprintf(buf, n, "n = 2^20 + 7");
    else
        snprintf(buf, n, "n = %zu", v);
}

/* Gigabytes per call: a sum and a compaction read n elements (the compaction's
 * writes depend on the data and are left out, as for CUB's figure); a scan
 * reads n and writes n. */
static double work(int stage, int size)
{
    int op = shuffle_stage_op(stage);
    double n = (double)shuffle_sizes[size];
    return (op == SHUFFLE_SUM || op == SHUFFLE_COMPACT ? 4.0 : 8.0) * n / 1e9;
}

static void teardown(lab_ctx *c)
{
    if (!c)
        return;
    gbuf_free(&c->in);
    gbuf_free(&c->out);
    gbuf_free(&c->count);
    gbuf_free(&c->work);
    host_data_free(&c->own);
    for (int v = 0; v < VARIANTS; v++) {
        free(c->plan[v]);
        if (c->d_variant[v])
            cudaFree(c->d_variant[v]);
    }
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
    (void)variants;
    lab_ctx *c = calloc(1, sizeof *c);
    *pctx = c;
    if (!c)
        return lab_no_memory(out, NULL);
    c->op = shuffle_stage_op(stage);
    c->n = shuffle_sizes[size];
    size_t bytes = c->n * 4; /* floats and ints alike */
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
    /* Scans are checked against their inputs alone (shuffle_scan_ok); a
     * compaction needs to know where each block's kept elements go. */
    int prev = tm_enter(TM_REFERENCE);
    if (c->op == SHUFFLE_COMPACT)
        for (int v = 0; v < VARIANTS; v++) {
            c->plan[v] = malloc((c->n / SHUFFLE_BLOCK + 2) * sizeof(size_t));
            if (!c->plan[v])
                return lab_no_memory(out, " for the expected output");
            c->kept[v] = shuffle_compact_plan(c->h->x[v], c->n, c->plan[v]);
        }
    tm_enter(prev);

    static const char *const syms[] = {"ceiling_shuffle_temp_bytes", "ceiling_shuffle_sum",
                                       "ceiling_shuffle_scan", "ceiling_shuffle_select"};
    void *fns[4];
    if (ceiling_load("lab3", syms, fns, 4, out->msg, sizeof out->msg) != 0) {
        out->v = V_SETUP_ERROR;
        return -1;
    }
    ceiling_shuffle_temp_bytes_fn *temp_bytes = (ceiling_shuffle_temp_bytes_fn *)fns[0];
    c->cub_sum = (ceiling_shuffle_sum_fn *)fns[1];
    c->cub_scan = (ceiling_shuffle_scan_fn *)fns[2];
    c->cub_select = (ceiling_shuffle_select_fn *)fns[3];

    rng r;
    rng_seed(&r, rng_derive(seed, 77));
    cudaError_t err = gbuf_alloc(&c->in, bytes, rng_next(&r));
    if (err != cudaSuccess)
        return lab_fail_cuda(out, err, "allocate the input buffer");
    err = gbuf_alloc(&c->out, c->op == SHUFFLE_SUM ? 4 : bytes, rng_next(&r));
    if (err != cudaSuccess)
        return lab_fail_cuda(out, err, "allocate the output buffer");
    err = gbuf_alloc(&c->count, 4, rng_next(&r));
    if (err != cudaSuccess)
        return lab_fail_cuda(out, err, "allocate the count");
    err = gbuf_alloc(&c->work, shuffle_work_bytes(c->n), rng_next(&r));
    if (err != cudaSuccess)
        return lab_fail_cuda(out, err, "allocate the workspace");
    if (lab_host_buffer(&c->h_got, bytes, out) != 0)
        return -1;
    if (temp_bytes(c->n, &c->temp_bytes) != 0)
        return lab_fail_cuda(out, cudaGetLastError(), "size CUB's temporary storage");
    err = cudaMalloc(&c->d_temp, c->temp_bytes ? c->temp_bytes : 1);
    if (err != cudaSuccess) {
        c->d_temp = NULL;
        return lab_fail_cuda(out, err, "allocate CUB's temporary storage");
    }
    const void *inputs[VARIANTS];
    for (int v = 0; v < VARIANTS; v++)
        inputs[v] = c->op == SHUFFLE_SUM ? (const void *)c->h->f[v] : (const void *)c->h->x[v];
    return lab_device_copies(c->d_variant, inputs, VARIANTS, bytes, out);
}

static int prepare(lab_ctx *c, int variant, cudaStream_t s, check_outcome *out)
{
    cudaError_t err = cudaMemcpyAsync(c->in.d, c->d_variant[variant], c->n * 4,
                                      cudaMemcpyDeviceToDevice, s);
    if (err == cudaSuccess)
        err = c->op == SHUFFLE_SUM ? gbuf_poison(&c->out, s) : gbuf_fill(&c->out, INT_FILL, s);
    if (err == cudaSuccess)
        err = gbuf_fill(&c->count, INT_FILL, s);
    if (err == cudaSuccess)
        err = gbuf_poison(&c->work, s);
    if (err != cudaSuccess)
        return lab_fail_cuda(out, err, "load the input");
    patch_clear(&c->patch); /* the reload undid it */
    return 0;
}

/* Timed calls: 16 words get new values. A sum moves by far more than its
 * tolerance, away from every sum expected before (reduce_patch_values); a
 * scan's patched elements change every later prefix of their segment; a
 * compaction's patched elements are kept ones, so they show in the output. */
static int perturb(lab_ctx *c, int variant, rng *r, cudaStream_t s, check_outcome *out)
{
    patch_pick(&c->patch, 16, c->n, r);
    if (c->op == SHUFFLE_SUM) {
        c->patched_sum = c->h->sum[variant];
        c->patched_abs = c->h->sum_abs[variant];
        reduce_patch_values(c->h->f[variant], c->n, c->patch.idx, c->patch.n, &c->seen, r,
                            c->patch.val, &c->patched_sum, &c->patched_abs);
    } else {
        shuffle_patch_ints(c->h->x[variant], c->n, c->op, c->patch.idx, &c->patch.n, r,
                           c->patch.val);
    }
    c->patch_stream = s;
    return patch_apply(&c->patch, c->in.d, s, out);
}

/* Calls stage `stage` (the graded one, or a base it is timed against, which
 * computes the same operation). */
static int call(lab_ctx *c, int stage, void *fn, cudaStream_t s)
{
    switch (shuffle_stage_op(stage)) {
    case SHUFFLE_SUM:
        return (int)((shuffle_reduce_fn)fn)((const float *)c->in.d, c->n, (float *)c->out.d,
                                            c->work.d, s);
    case SHUFFLE_COMPACT:
        return (int)((shuffle_compact_fn)fn)((const int *)c->in.d, c->n, (int *)c->out.d,
                                             (int *)c->count.d, c->work.d, s);
    default:
        return (int)((shuffle_scan_fn)fn)((const int *)c->in.d, c->n, (int *)c->out.d, c->work.d,
                                          s);
    }
}

static int call_ceiling(lab_ctx *c, int stage, cudaStream_t s)
{
    (void)stage;
    switch (c->op) {
    case SHUFFLE_SCAN32:
    case SHUFFLE_SCAN1K:
        return cudaMemcpyAsync(c->out.d, c->in.d, c->n * 4, cudaMemcpyDeviceToDevice, s) ==
                       cudaSuccess
                   ? 0
                   : -1;
    case SHUFFLE_SUM:
        return c->cub_sum((const float *)c->in.d, c->n, (float *)c->out.d, c->d_temp,
                          c->temp_bytes, s);
    case SHUFFLE_COMPACT:
        return c->cub_select((const int *)c->in.d, c->n, (int *)c->out.d, (int *)c->count.d,
                             c->d_temp, c->temp_bytes, s);
    default:
        return c->cub_scan((const int *)c->in.d, c->n, (int *)c->out.d, c->d_temp, c->temp_bytes,
                           s);
    }
}

/* A scan or compaction that failed its fast check: the expected output, made
 * now (from the patched input when `patched`), names what is wrong. */
static int judge_slowly(lab_ctx *c, int variant, int patched, int count, check_outcome *out)
{
    size_t bytes = c->n > 0 ? c->n * sizeof(int) : sizeof(int);
    int *expect = malloc(bytes), *x = patched ? malloc(bytes) : NULL;
    if (!expect || (patched && !x)) {
        free(expect);
        free(x);
        return lab_no_memory(out, " for the expected output");
    }
    const int *in = c->h->x[variant];
    if (patched) {
        memcpy(x, in, c->n * sizeof(int));
        for (int j = 0; j < c->patch.n; j++)
            x[c->patch.idx[j]] = (int)c->patch.val[j];
        in = x;
    }
    int v;
    if (c->op == SHUFFLE_COMPACT) {
        size_t k = shuffle_expected_compact(in, c->n, expect);
        v = shuffle_judge_compact(expect, k, (const int *)c->h_got, count, out->msg,
                                  sizeof out->msg);
    } else {
        shuffle_expected_scan(in, c->n, segment_of(c->op), expect);
        v = shuffle_judge_scan(in, expect, (const int *)c->h_got, c->n, c->op, out->msg,
                               sizeof out->msg);
    }
    free(expect);
    free(x);
    return v;
}

static int check(lab_ctx *c, int stage, int variant, int full, check_outcome *out)
{
    (void)stage;
    size_t bytes = c->n * 4;
    size_t out_elems = c->op == SHUFFLE_SUM ? 1 : c->n;
    if (lab_guard_check(&c->out, "the output d_out", out_elems, out) ||
        lab_guard_check(&c->count, "the count d_count", 1, out) ||
        lab_guard_check(&c->work, "the workspace d_work", shuffle_work_bytes(c->n) / 4, out) ||
        lab_guard_check(&c->in, "the input d_in", c->n, out))
        return -1;
    const void *h_in = c->op == SHUFFLE_SUM ? (const void *)c->h->f[variant]
                                            : (const void *)c->h->x[variant];
    cudaError_t err;
    /* The input as loaded: read back in full, or in a timed call compared on
     * the GPU with its patch allowed for. */
    if (lab_input_as_loaded(full ? NULL : &c->patch, &c->in, c->d_variant[variant], h_in, c->n,
                            c->h_got, c->patch_stream, 0, c->op != SHUFFLE_SUM,
                            "a stage may only read its input; flags and partial results go to "
                            "d_work",
                            out) != 0)
        return -1;
    const int patched = !full && c->patch.n > 0;
    const uint64_t *pidx = patched ? c->patch.idx : NULL;
    const uint32_t *pval = patched ? c->patch.val : NULL;
    const int np = patched ? c->patch.n : 0;
    int v;
    if (c->op == SHUFFLE_SUM) {
        float got;
        err = cudaMemcpy(&got, c->out.d, sizeof got, cudaMemcpyDeviceToHost);
        if (err != cudaSuccess)
            return lab_fail_cuda(out, err, "read the output back");
        v = reduce_judge(patched ? c->patched_sum : c->h->sum[variant],
                         patched ? c->patched_abs : c->h->sum_abs[variant], c->n, got, out->msg,
                         sizeof out->msg);
    } else if (c->op == SHUFFLE_COMPACT) {
        int count;
        err = cudaMemcpy(&count, c->count.d, sizeof count, cudaMemcpyDeviceToHost);
        if (err == cudaSuccess)
            err = lab_to_host(c->h_got, c->out.d, c->kept[variant] * 4);
        if (err != cudaSuccess)
            return lab_fail_cuda(out, err, "read the output back");
        if (count >= 0 && (size_t)count == c->kept[variant] &&
            shuffle_compact_ok_patched(c->h->x[variant], c->n, c->plan[variant],
                                       (const int *)c->h_got, pidx, pval, np))
            return 0;
        v = judge_slowly(c, variant, patched, count, out);
    } else {
        /* The input holds what it should: the scan is checked against it on
         * the GPU by its differences (as shuffle_scan_ok does on the host),
         * and read back only to say what is wrong. */
        long long bad = devcheck_scan_on_gpu(c->out.d, c->in.d, c->n, segment_of(c->op),
                                             full ? 0 : c->patch_stream, out);
        if (bad == -2)
            return -1;
        if (bad == -1)
            return 0;
        err = lab_to_host(c->h_got, c->out.d, bytes);
        if (err != cudaSuccess)
            return lab_fail_cuda(out, err, "read the output back");
        if (shuffle_scan_ok_patched(c->h->x[variant], (const int *)c->h_got, c->n,
                                    segment_of(c->op), pidx, pval, np))
            return 0;
        v = judge_slowly(c, variant, patched, 0, out);
    }
    if (v < 0) /* no memory for the expected output: out says so */
        return -1;
    if (v == V_PASS)
        return 0;
    out->v = (verdict)v;
    size_t len = strlen(out->msg);
    snprintf(out->msg + len, sizeof out->msg - len, " (input set %d: %s)", variant + 1,
             c->op == SHUFFLE_SUM ? (variant ? "heavy-tailed" : "uniform")
                                  : (variant ? "runs of kept and dropped" : "uniform"));
    if (patched)
        lab_note_patched(out, np);
    return -1;
}

/* The timing witness (grader/witness.h): a fresh input of the first set's
 * kind before each timed call (floats for a sum, ints in [-4, 5] for the
 * rest), and the output checked against it after. The ceiling computes what
 * the stage under test does, except for the segmented scans, whose ceiling
 * is a copy. */
static const gbuf *witness_workspace(lab_ctx *c)
{
    return &c->work;
}

static void witness_buffers(lab_ctx *c, const gbuf **in, const gbuf **out)
{
    in[0] = &c->in;
    in[1] = NULL;
    out[0] = &c->out;
    out[1] = c->op == SHUFFLE_COMPACT ? &c->count : NULL;
}

static void witness_layout_of(int stage, int size, witness_layout *l)
{
    int op = shuffle_stage_op(stage);
    size_t n = shuffle_sizes[size];
    l->in_bytes[1] = 0;
    l->in_bytes[0] = n * 4;
    l->out_bytes[0] = op == SHUFFLE_SUM ? 4 : n * 4;
    l->out_bytes[1] = op == SHUFFLE_COMPACT ? 4 : 0;
    /* as prepare: NaN over a sum, 0x80808080 over ints (no prefix sum of
     * these inputs reaches it) */
    l->poison[0] = op == SHUFFLE_SUM ? 0xff : INT_FILL;
    l->poison[1] = INT_FILL;
    if (op == SHUFFLE_SUM) { /* as reduce_make_input's first set */
        l->fill = DEVCHECK_FILL_UNIFORM;
        l->lo = -0.9;
        l->hi = 1.1;
    } else { /* as shuffle_make_ints's first set */
        l->fill = DEVCHECK_FILL_INTS;
        l->lo = -4;
        l->hi = 5;
    }
}

static long long witness_check(int role, int stage, int size, const void *const *d_out,
                               const void *const *ins, cudaStream_t s, check_outcome *out,
                               int full)
{
    (void)full; /* every output is checked in any case */
    const void *d_in = ins[0];
    int op = shuffle_stage_op(stage);
    size_t n = shuffle_sizes[size];
    if (op == SHUFFLE_SUM)
        return lab_witness_sum(d_out[0], d_in, n, s, out);
    long long bad;
    if (op == SHUFFLE_COMPACT) {
        size_t kept = 0;
        int count;
        bad = devcheck_compact_on_gpu(d_out[0], d_in, n, &kept, s, out);
        if (bad == -2)
            return -2;
        cudaError_t e = cudaMemcpy(&count, d_out[1], sizeof count, cudaMemcpyDeviceToHost);
        if (e != cudaSuccess) {
            lab_fail_cuda(out, e, "read the count back");
            return -2;
        }
        out->v = V_WRONG;
        if (count < 0 || (size_t)count != kept) {
            snprintf(out->msg, sizeof out->msg,
                     "*d_count is %d, but %zu elements of the input are > 0.", count, kept);
            return 0;
        }
        if (bad >= 0)
            snprintf(out->msg, sizeof out->msg,
                     "d_out[%lld] is not the input's kept element number %lld (the elements "
                     "> 0, in their order).",
                     bad, bad);
        return bad;
    }
    if (role == WITNESS_CEILING && (op == SHUFFLE_SCAN32 || op == SHUFFLE_SCAN1K)) {
        bad = devcheck_transpose_on_gpu(d_out[0], d_in, 1, n, 1, s, out);
        if (bad >= 0)
            snprintf(out->msg, sizeof out->msg, "the copy's d_out[%lld] is not d_in[%lld].", bad,
                     bad);
    } else {
        size_t seg = segment_of(op);
        bad = devcheck_scan_on_gpu(d_out[0], d_in, n, seg, s, out);
        if (bad >= 0 && seg)
            snprintf(out->msg, sizeof out->msg,
                     "d_out[%lld] is not the inclusive prefix sum of d_in over its segment (of "
                     "%zu elements).",
                     bad, seg);
        else if (bad >= 0)
            snprintf(out->msg, sizeof out->msg,
                     "d_out[%lld] is not the inclusive prefix sum of d_in[0..%lld].", bad, bad);
    }
    if (bad >= 0)
        out->v = V_WRONG;
    return bad;
}

static const lab_witness shuffle_witness = {
    .buffers = witness_buffers,
    .workspace = witness_workspace,
    .layout = witness_layout_of,
    .check = witness_check,
    .names = {"the input d_in", NULL, "the output d_out", "the count d_count"},
};

const lab_spec lab_shuffle = {
    .number = 3,
    .name = "shuffle",
    .dir = "3-shuffle",
    .available = 1,
    .stages = shuffle_stages,
    .n_stages = N_STAGES,
    .n_sizes = N_SIZES,
    .bench_size = BENCH_SIZE,
    .check_variants = VARIANTS,
    .unit = "GB/s",
    .ceiling_name = CUB_SCAN,
    .forbidden_calls = policy_stream_stage_rules,
    /* Each stage's .reference is the reference solution's speed on it, in
     * GB/s (handouts/3-shuffle.md). */
    .reference_gpu = "NVIDIA H200",
    .floor_throughput = 1, /* GB/s: the one-block scan of stage 0 runs at 7 on an H200 */
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
    .witness = &shuffle_witness,
};
