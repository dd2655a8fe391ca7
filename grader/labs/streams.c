/* grader/labs/streams.c: lab 5's specification — host-to-host SAXPY and a
 * heavy polynomial (labs/5-streams/streams.h).
 *
 * Unlike the other labs, a stage here is three functions (<name>_setup,
 * <name>_run, <name>_teardown; the table's symbol is the run) and is timed
 * by the wall clock from the call of run to its return (host_timed). The
 * spec's setup allocates the host buffers in the kind each stage of the test
 * needs (the stage and the stages it is compared with), calls their setups
 * (untimed), and picks the heavy job's degree so that its kernel takes about
 * as long as the copies on this machine.
 *
 * Every timed call sees inputs no call saw before: after the input set is
 * loaded, PATCHES elements of x and as many of y (at random positions) are
 * moved by 0.75, in every host buffer of the test; the check then expects
 * the outputs of the patched inputs at those positions and at the sampled
 * ones, and checks (on all cores) that x and y hold exactly what was loaded
 * plus the patch. The next prepare writes y's old values back (x is
 * reloaded whole). A correctness call checks every output; a heavy one on
 * the GPU, in double precision (the ceiling library's check_poly).
 *
 * Thresholds: 0.73 to 0.86 of the reference's ratios on an H200 (handout):
 * stage 2 1.15x of 1.36x, stage 3 0.85x of 0.99x, stage 5 1.3x of 1.77x. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/compare.h"
#include "../../common/rng.h"
#include "../../common/hostmem.h"
#include "../../labs/5-streams/streams.h"
#include "../ceiling.h"
#include "../ceilings/ceilings.h"
#include "../lab.h"
#include "../patch.h"
#include "../policy.h"
#include "../trace.h"
#include "lab_util.h"
#include "../timings.h"
#include "../../common/par.h"
#include "streams_lab.h"

#define CEILING "everything overlapped (the grader's own three lanes)"

enum host_kind { PAGEABLE, PINNED, MAPPED, KINDS };
static const char *const kind_name[KINDS] = {"pageable", "pinned", "mapped pinned"};

/* What lab 5 alone knows about a stage (lab.h). */
struct lab_stage_extra {
    enum host_kind kind; /* the host memory its buffers are */
    int heavy;           /* 1: the compute-heavier job */
    /* The share of the copy time that must hide behind other work (0: not
     * checked): SAXPY can hide its copies out under its copies in (a third of
     * the copy time, up to two thirds counting both ways); the heavy job
     * hides them under its kernels. */
    double overlap;
};

static const lab_stage streams_stages[] = {
    {
        .title = "pageable, synchronous copies (given)",
        .symbol = "pageable_run",
        .given = 1,
        .extra = &(const struct lab_stage_extra){.kind = PAGEABLE},
        .reference = 9,
    },
    {
        .title = "pinned memory, one stream",
        .symbol = "pinned_run",
        .points_correct = 10,
        .points_speed = 10,
        .min_ceiling = 0.50,
        .extra = &(const struct lab_stage_extra){.kind = PINNED},
        .reference = 54,
        .hint = "Queue the copies in with cudaMemcpyAsync, the kernel and the copy out on one stream made "
                "in setup, and wait for that stream once at the end; the buffers you get are pinned, so "
                "the copies run at the full PCIe rate.",
    },
    {
        .title = "chunks over streams",
        .symbol = "overlap_run",
        .points_correct = 10,
        .points_speed = 10,
        .min_speedup = 1.15,
        LAB_BASES(1),
        .extra = &(const struct lab_stage_extra){.kind = PINNED, .overlap = 0.25},
        .reference = 73,
        .hint = "Cut n into job->chunks pieces and give each piece's copy in, kernel and copy out to one "
                "of a few streams, round-robin, without waiting in between: the copies in of one chunk "
                "then run while another chunk's copy out does. Wait for all streams only at the end.",
    },
    {
        .title = "zero-copy (mapped memory)",
        .symbol = "zero_copy_run",
        .points_correct = 10,
        .points_speed = 10,
        .min_speedup = 0.85,
        LAB_BASES(2),
        .extra = &(const struct lab_stage_extra){.kind = MAPPED},
        .reference = 73,
        .hint = "Get the device's view of x, y and out with cudaHostGetDevicePointer in setup and run "
                "the kernel on them directly, with a grid large enough to keep many coalesced accesses "
                "in flight across PCIe.",
    },
    {
        .title = "heavy kernel, one stream (given)",
        .symbol = "heavy_serial_run",
        .given = 1,
        .extra = &(const struct lab_stage_extra){.kind = PINNED, .heavy = 1},
        .reference = 26,
    },
    {
        .title = "heavy kernel over streams",
        .symbol = "heavy_overlap_run",
        .points_correct = 10,
        .points_speed = 10,
        .min_speedup = 1.3,
        LAB_BASES(4),
        .extra = &(const struct lab_stage_extra){.kind = PINNED, .heavy = 1, .overlap = 0.40},
        .reference = 46,
        .hint = "Run your stage 2 on the heavy job; with a kernel as long as the copies, chunks over "
                "streams should approach the longest lane instead of the sum. Try 8 to 16 chunks.",
    },
};
#define N_STAGES ((int)(sizeof streams_stages / sizeof streams_stages[0]))

/* n, and the chunk count the stages get (not a divisor of n, or more than n). */
static const size_t sizes_n[] = {1, 1000, ((size_t)1 << 20) + 7, (size_t)1 << 25};
static const int sizes_chunks[] = {5, 3, 7, 8};
#define N_SIZES ((int)(sizeof sizes_n / sizeof sizes_n[0]))
#define BENCH_SIZE (N_SIZES - 1)
#define A 2.5f
#define PATCHES 16 /* elements of x, and of y, patched before each timed call */

static float c_saxpy[2] = {0.0f, 1.0f};
static float c_heavy[STREAMS_MAX_DEGREE + 1];

static void make_coefficients(void)
{
    for (int k = 0; k <= STREAMS_MAX_DEGREE; k++) /* 1, -1/2, 1/3, ...: |poly| stays small */
        c_heavy[k] = (k % 2 ? -1.0f : 1.0f) / (float)(k + 1);
}

/* Two input sets for x, one for y, per size; made in the parent. */
typedef struct host_data {
    uint64_t seed;
    int made;
    float *x[2], *y;
} host_data;

static host_data cache[N_SIZES];

static void host_data_free(host_data *h)
{
    free(h->x[0]);
    free(h->x[1]);
    free(h->y);
    memset(h, 0, sizeof *h);
}

static int host_data_make(host_data *h, int size, uint64_t seed)
{
    size_t n = sizes_n[size];
    h->seed = seed;
    h->x[0] = hostmem_alloc(n * sizeof(float));
    h->x[1] = hostmem_alloc(n * sizeof(float));
    h->y = hostmem_alloc(n * sizeof(float));
    if (!h->x[0] || !h->x[1] || !h->y) {
        host_data_free(h);
        return -1;
    }
    rng r;
    rng_seed(&r, rng_derive(seed, (uint64_t)size));
    rng_fill_uniform(&r, h->x[0], n, -1.0f, 1.0f);
    rng_fill_uniform(&r, h->x[1], n, -1.0f, 1.0f);
    rng_fill_uniform(&r, h->y, n, -1.0f, 1.0f);
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
    size_t n = sizes_n[size];
    uint64_t d = LAB_DIGEST_START;
    size_t bytes = lab_held(&d, h->x[0], n * sizeof(float));
    bytes += lab_held(&d, h->x[1], n * sizeof(float));
    bytes += lab_held(&d, h->y, n * sizeof(float));
    if (digest && bytes)
        *digest = d;
    return bytes;
}

struct lab_ctx {
    int size, chunks, heavy, degree;
    size_t n;
    host_data own;
    const host_data *h;
    float *x[KINDS], *y[KINDS], *out[KINDS]; /* the kinds this test needs */
    int need[KINDS];
    /* In a speed test with the host witness: x, y and out are its arena's
     * (lab_host_witness), and registered[k] says which of kind k's three the
     * setup pinned. */
    void *arena;
    int registered[KINDS][3];
    streams_job job[N_STAGES];
    void *state[N_STAGES];
    streams_teardown_fn teardown[N_STAGES];
    int set_up[N_STAGES];
    /* The heavy job's checked outputs: indices, and per input set the exact
     * value and the scale of its rounding error. */
    size_t *idx, n_idx;
    double *exact[2], *scale[2];
    long calls[N_STAGES];
    long early[N_STAGES]; /* run returned before out was complete: the first such index + 1 */
    patch_set px, py; /* timed calls: the patched positions and values of x and y */
    ceiling_streams_check_fn *ceiling_check;
    void *ceiling;
    ceiling_streams_fn *ceiling_run;
    ceiling_streams_destroy_fn *ceiling_destroy;
};

static void size_text(int size, char *buf, size_t n)
{
    snprintf(buf, n, "n = %zu, %d chunks", sizes_n[size], sizes_chunks[size]);
}

/* GB per call: x and y in, out back. */
static double work(int stage, int size)
{
    (void)stage;
    return 12.0 * (double)sizes_n[size] / 1e9;
}

static float *host_alloc(size_t n, int kind)
{
    if (kind == PAGEABLE)
        return malloc(n * sizeof(float));
    void *p = NULL;
    return cudaHostAlloc(&p, n * sizeof(float),
                         kind == MAPPED ? cudaHostAllocMapped : cudaHostAllocDefault) == cudaSuccess
               ? p
               : NULL;
}

static void host_free(float *p, int kind)
{
    if (!p)
        return;
    if (kind == PAGEABLE)
        free(p);
    else
        cudaFreeHost(p);
}

/* The host memory kinds a test of `stage` uses: its own and its bases'. */
static void test_kinds(int stage, int need[KINDS])
{
    memset(need, 0, KINDS * sizeof *need);
    need[streams_stages[stage].extra->kind] = 1;
    for (int b = 0; b < streams_stages[stage].n_base; b++)
        need[streams_stages[streams_stages[stage].base[b]].extra->kind] = 1;
}

/* The host witness's arena: x, y and out of each kind the test uses, in the
 * order of the kinds, each a whole number of huge pages. */
static size_t arena_slot(int size)
{
    size_t b = sizes_n[size] * sizeof(float);
    return (b + HOSTMEM_HUGE - 1) / HOSTMEM_HUGE * HOSTMEM_HUGE;
}

static size_t arena_bytes(int stage, int size)
{
    int need[KINDS], kinds = 0;
    test_kinds(stage, need);
    for (int k = 0; k < KINDS; k++)
        kinds += need[k];
    return (size_t)kinds * 3 * arena_slot(size);
}

/* Buffer which (0 x, 1 y, 2 out) of kind in the arena of stage's test; kind
 * is one the test uses (the witness takes calls of no other stage). */
static float *arena_buf(void *arena, int stage, int size, int kind, int which)
{
    int need[KINDS], before = 0;
    test_kinds(stage, need);
    if (kind < 0 || kind >= KINDS || !need[kind] || which < 0 || which > 2)
        abort(); /* never: a buffer outside the arena */
    for (int k = 0; k < kind; k++)
        before += need[k];
    return (float *)((char *)arena + ((size_t)before * 3 + (size_t)which) * arena_slot(size));
}

static void teardown(lab_ctx *c)
{
    if (!c)
        return;
    for (int s = 0; s < N_STAGES; s++)
        if (c->set_up[s] && c->teardown[s])
            c->teardown[s](c->state[s]);
    cudaDeviceSynchronize();
    for (int k = 0; k < KINDS; k++) {
        float *buf[3] = {c->x[k], c->y[k], c->out[k]};
        for (int b = 0; b < 3; b++)
            if (!c->arena)
                host_free(buf[b], k);
            else if (c->registered[k][b])
                cudaHostUnregister(buf[b]);
    }
    if (c->ceiling && c->ceiling_destroy)
        c->ceiling_destroy(c->ceiling);
    free(c->idx);
    for (int v = 0; v < 2; v++) {
        free(c->exact[v]);
        free(c->scale[v]);
    }
    host_data_free(&c->own);
    patch_free(&c->px);
    patch_free(&c->py);
    free(c);
}

/* The outputs a timed call's check reads (every 613th, 4096 at each end, and
 * 64 on each side of every chunk boundary), and for the heavy job, which is
 * too slow to recompute in full, their exact values for both input sets. */
static int sample_outputs(lab_ctx *c)
{
    size_t n = c->n, per = (n + c->chunks - 1) / c->chunks, cap = n / 613 + 8192 + 128 * (c->chunks + 1);
    c->idx = malloc(cap * sizeof(size_t));
    if (!c->idx)
        return -1;
    size_t m = 0;
    for (size_t i = 0; i < n; i += 613)
        c->idx[m++] = i;
    for (size_t i = 0; i < 4096 && i < n; i++) {
        c->idx[m++] = i;
        c->idx[m++] = n - 1 - i;
    }
    for (int k = 1; k < c->chunks; k++)
        for (size_t d = 0; d < 128; d++) {
            size_t i = (size_t)k * per + d;
            if (i >= 64 && i - 64 < n)
                c->idx[m++] = i - 64;
        }
    c->n_idx = m;
    if (!c->heavy)
        return 0;
    for (int v = 0; v < 2; v++) {
        c->exact[v] = malloc(cap * sizeof(double));
        c->scale[v] = malloc(cap * sizeof(double));
        if (!c->exact[v] || !c->scale[v])
            return -1;
    }
    for (int v = 0; v < 2; v++)
        for (size_t j = 0; j < m; j++) {
            size_t i = c->idx[j];
            double x = c->h->x[v][i], p = c_heavy[c->degree], s = fabs(p);
            for (int k = c->degree - 1; k >= 0; k--) {
                p = p * x + c_heavy[k];
                s = s * fabs(x) + fabs(c_heavy[k]);
            }
            c->exact[v][j] = A * p + c->h->y[i];
            c->scale[v][j] = fabs(A) * s + fabs(c->h->y[i]);
        }
    return 0;
}

/* The lab library and the course's copy of the given stages (use_library):
 * stages here are three functions each. */
static void *lab_library, *given_library;

static void use_library(void *lib, void *given)
{
    lab_library = lib;
    given_library = given;
}

/* Finds stage s's setup and teardown next to its run, and calls the setup.
 * LAB_OK, or the failure with out filled. */
static int stage_setup(lab_ctx *c, int s, check_outcome *out)
{
    void *lib = streams_stages[s].given && given_library ? given_library : lab_library;
    const char *run = streams_stages[s].symbol;
    int len = (int)(strlen(run) - strlen("_run"));
    char name[96];
    snprintf(name, sizeof name, "%.*s_setup", len, run);
    streams_setup_fn set = lib ? (streams_setup_fn)dlsym(lib, name) : NULL;
    snprintf(name, sizeof name, "%.*s_teardown", len, run);
    c->teardown[s] = lib ? (streams_teardown_fn)dlsym(lib, name) : NULL;
    if (!set || !c->teardown[s]) {
        out->v = V_SETUP_ERROR;
        snprintf(out->msg, sizeof out->msg,
                 "the lab library has no %.*s_setup() or %.*s_teardown() (stage %d): every "
                 "stage of lab 5 is three functions",
                 len, run, len, run, s);
        return LAB_ERROR;
    }
    lab_status st = set(&c->job[s], &c->state[s]);
    c->set_up[s] = st == LAB_OK;
    if (st == LAB_TODO) {
        out->v = V_TODO;
        snprintf(out->msg, sizeof out->msg,
                 "stage %d (%s): not implemented yet. %.*s_setup() returned LAB_TODO; write the "
                 "TODO(lab5.s%d) parts in labs/5-streams/streams.cu.",
                 s, streams_stages[s].title, len, run, s);
    } else if (st != LAB_OK) {
        cudaError_t err = cudaGetLastError();
        out->v = V_STAGE_ERROR;
        snprintf(out->msg, sizeof out->msg, "%.*s_setup() returned %s for n = %zu%s%s", len, run,
                 st == LAB_ERROR ? "LAB_ERROR" : "an unknown status", c->n,
                 err != cudaSuccess ? "; the last CUDA error: " : "",
                 err != cudaSuccess ? cudaGetErrorString(err) : "");
    }
    return st;
}

static int setup(lab_ctx **pctx, int stage, int size, uint64_t seed, int variants,
                 check_outcome *out)
{
    (void)variants;
    lab_ctx *c = calloc(1, sizeof *c);
    *pctx = c;
    if (!c)
        return lab_no_memory(out, NULL);
    if (c_heavy[0] == 0.0f)
        make_coefficients();
    c->size = size;
    c->n = sizes_n[size];
    c->chunks = sizes_chunks[size];
    c->heavy = streams_stages[stage].extra->heavy;
    c->h = &cache[size];
    if (!c->h->made || c->h->seed != seed) {
        int prev = tm_enter(TM_INPUTS), made = host_data_make(&c->own, size, seed);
        tm_enter(prev);
        if (made != 0)
            return lab_no_memory(out, " for the inputs");
        c->h = &c->own;
    }
    /* The stages of this test: the stage and the ones it is compared with. */
    int stages[1 + LAB_MAX_BASES], n_stages = 0;
    stages[n_stages++] = stage;
    for (int b = 0; b < streams_stages[stage].n_base; b++)
        stages[n_stages++] = streams_stages[stage].base[b];
    test_kinds(stage, c->need);
    size_t bytes = c->n * sizeof(float), have = 0;
    /* A speed test with the host witness: the buffers are its arena's, the
     * pinned kinds pinned here (cudaHostRegister, as cudaHostAlloc would). */
    c->arena = lab_host_arena(&have);
    if (c->arena && have < arena_bytes(stage, size)) {
        c->arena = NULL;
        out->v = V_SETUP_ERROR;
        snprintf(out->msg, sizeof out->msg,
                 "the timing witness's shared memory holds %zu bytes, and this test needs %zu."
                 LAB_NOT_YOURS,
                 have, arena_bytes(stage, size));
        return -1;
    }
    for (int k = 0; k < KINDS; k++) {
        if (!c->need[k])
            continue;
        if (c->arena) {
            float **buf[3] = {&c->x[k], &c->y[k], &c->out[k]};
            for (int b = 0; b < 3; b++) {
                *buf[b] = arena_buf(c->arena, stage, size, k, b);
                if (k == PAGEABLE)
                    continue;
                cudaError_t e = cudaHostRegister(*buf[b], arena_slot(size),
                                                 k == MAPPED ? cudaHostRegisterMapped
                                                             : cudaHostRegisterDefault);
                if (e != cudaSuccess) {
                    out->v = V_SETUP_ERROR;
                    snprintf(out->msg, sizeof out->msg,
                             "the grader could not pin its %.1f MiB %s buffers, shared with "
                             "its timing witness (cudaHostRegister: %s); grade with "
                             "CUDA_LABS_WITNESS=0 on this machine (handouts/instructors.md)."
                             LAB_NOT_YOURS,
                             bytes / 1048576.0, kind_name[k], cudaGetErrorString(e));
                    return -1;
                }
                c->registered[k][b] = 1;
            }
        } else {
            c->x[k] = host_alloc(c->n, k);
            c->y[k] = host_alloc(c->n, k);
            c->out[k] = host_alloc(c->n, k);
        }
        if (!c->x[k] || !c->y[k] || !c->out[k]) {
            out->v = V_SETUP_ERROR;
            snprintf(out->msg, sizeof out->msg,
                     "the grader could not allocate 3 x %.1f MiB of %s host memory: this "
                     "machine is short of host memory (pinned memory is limited by the system)."
                     LAB_NOT_YOURS,
                     bytes / 1048576.0, kind_name[k]);
            return -1;
        }
        memcpy(c->x[k], c->h->x[0], bytes);
        memcpy(c->y[k], c->h->y, bytes);
    }

    static const char *const syms[] = {"ceiling_streams_create", "ceiling_streams",
                                       "ceiling_streams_destroy", "ceiling_streams_set_degree",
                                       "ceiling_streams_time", "ceiling_streams_check"};
    void *fns[6];
    if (ceiling_load("lab5", syms, fns, 6, out->msg, sizeof out->msg) != 0) {
        out->v = V_SETUP_ERROR;
        return -1;
    }
    c->ceiling_run = (ceiling_streams_fn *)fns[1];
    c->ceiling_destroy = (ceiling_streams_destroy_fn *)fns[2];
    c->ceiling_check = (ceiling_streams_check_fn *)fns[5];
    if (((ceiling_streams_create_fn *)fns[0])(&c->ceiling, c->n, A, c_heavy) != 0) {
        c->ceiling = NULL;
        out->v = V_SETUP_ERROR;
        snprintf(out->msg, sizeof out->msg,
                 "the grader could not set up its own overlapped run (the ceiling) for %zu "
                 "elements",
                 c->n);
        return -1;
    }
    c->degree = 1;
    if (c->heavy) { /* a degree whose kernel takes about as long as the copies, in steps of 64 */
        ceiling_streams_time_fn *time_of = (ceiling_streams_time_fn *)fns[4];
        double copies = time_of(c->ceiling, 0, 0, 3), k256 = time_of(c->ceiling, 1, 256, 3);
        int d = k256 > 0 ? (int)(256.0 * copies / k256 / 64.0 + 0.5) * 64 : 256;
        c->degree = d < 64 ? 64 : d > STREAMS_MAX_DEGREE ? STREAMS_MAX_DEGREE : d;
    }
    if (sample_outputs(c) != 0)
        return lab_no_memory(out, " for the reference values");
    ((ceiling_streams_set_degree_fn *)fns[3])(c->ceiling, c->degree);

    /* The stage's own setup, untimed; the stages it is compared with are set
     * up on their first call, a warm-up call of the timing loop (so a
     * correctness test never depends on them). */
    for (int i = 0; i < n_stages; i++) {
        int t = stages[i], k = streams_stages[t].extra->kind;
        c->job[t] = (streams_job){c->n,      A,       c->heavy ? c->degree : 1,
                                  c->heavy ? c_heavy : c_saxpy,
                                  c->chunks, c->x[k], c->y[k], c->out[k]};
    }
    return stage_setup(c, stage, out) == LAB_OK ? 0 : -1;
}

/* Input set `variant` into every kind in use (y's patched elements put
 * back), and out poisoned with NaN. */
static int prepare(lab_ctx *c, int variant, cudaStream_t s, check_outcome *out)
{
    (void)s, (void)out;
    for (int k = 0; k < KINDS; k++)
        if (c->need[k]) {
            for (int j = 0; j < c->py.n; j++)
                c->y[k][c->py.idx[j]] = c->h->y[c->py.idx[j]];
            par_memcpy(c->x[k], c->h->x[variant], c->n * sizeof(float));
            par_memset(c->out[k], 0xff, c->n * sizeof(float));
        }
    patch_clear(&c->px);
    patch_clear(&c->py);
    return 0;
}

/* 0.75 away from v, towards 0: inside [-1, 1) still, and far enough that an
 * output of the old value is wrong by hundreds of times the tolerance. */
static float moved(float v)
{
    return v >= 0 ? v - 0.75f : v + 0.75f;
}

static void pick(patch_set *p, const float *h, size_t n, rng *r)
{
    patch_pick(p, PATCHES, n, r);
    for (int j = 0; j < p->n; j++) {
        float v = moved(h[p->idx[j]]);
        memcpy(&p->val[j], &v, 4);
    }
}

static int perturb(lab_ctx *c, int variant, rng *r, cudaStream_t s, check_outcome *out)
{
    (void)s, (void)out;
    pick(&c->px, c->h->x[variant], c->n, r);
    pick(&c->py, c->h->y, c->n, r);
    for (int k = 0; k < KINDS; k++)
        if (c->need[k]) {
            for (int j = 0; j < c->px.n; j++)
                memcpy(&c->x[k][c->px.idx[j]], &c->px.val[j], 4);
            for (int j = 0; j < c->py.n; j++)
                memcpy(&c->y[k][c->py.idx[j]], &c->py.val[j], 4);
        }
    return 0;
}

/* The first word of now (n words) that differs from orig other than as the
 * patch p says, on all cores; n when none. */
typedef struct diff_job {
    const uint32_t *now, *orig;
    const patch_set *p;
    size_t first;
} diff_job;

static int diff_slice(void *ctx, size_t begin, size_t end)
{
    diff_job *j = ctx;
    for (size_t i = begin; i < end;) {
        long long d = compare_first_diff_word(j->now + i, j->orig + i, (end - i) * 4);
        if (d < 0)
            break;
        size_t at = i + (size_t)d;
        int k = patch_find(j->p, at);
        if (k < 0 || j->p->val[k] != j->now[at]) {
            size_t seen = __atomic_load_n(&j->first, __ATOMIC_RELAXED);
            while (at < seen &&
                   !__atomic_compare_exchange_n(&j->first, &seen, at, 0, __ATOMIC_RELAXED,
                                                __ATOMIC_RELAXED))
                ;
            break;
        }
        i = at + 1;
    }
    return 0;
}

static size_t first_change(const float *now, const float *orig, size_t n, const patch_set *p)
{
    diff_job j = {(const uint32_t *)now, (const uint32_t *)orig, p, n};
    par_for(n, (size_t)1 << 18, diff_slice, &j);
    for (int k = 0; k < p->n; k++) /* a patched word changed back counts too */
        if (p->idx[k] < j.first && ((const uint32_t *)now)[p->idx[k]] != p->val[k])
            j.first = p->idx[k];
    return j.first;
}

/* x and y (n each) hold ox and oy with the patches px and py: -1, or the
 * first element that does not with out filled (INPUT MODIFIED; by: who
 * loaded them, for the message). */
static long long inputs_as_loaded(const float *x, const float *y, const float *ox,
                                  const float *oy, size_t n, const patch_set *px,
                                  const patch_set *py, const char *by, check_outcome *out)
{
    const float *now[2] = {x, y}, *orig[2] = {ox, oy};
    const patch_set *ps[2] = {px, py};
    static const char *const names[2] = {"x", "y"};
    for (int m = 0; m < 2; m++) {
        size_t i = first_change(now[m], orig[m], n, ps[m]);
        if (i == n)
            continue;
        uint32_t want = patch_word(ps[m], (const uint32_t *)orig[m], i);
        float fw;
        memcpy(&fw, &want, 4);
        out->v = V_INPUT_MODIFIED;
        snprintf(out->msg, sizeof out->msg,
                 "%s was changed during the call, first at %s[%zu]: it held %.7g%s and then "
                 "held %.7g. A stage may only read x and y.",
                 names[m], names[m], i, fw, by, now[m][i]);
        return (long long)i;
    }
    return -1;
}

/* x and y of the stage's kind hold what was loaded plus the patch: 0, or -1
 * with INPUT MODIFIED. */
static int patched_inputs_unchanged(lab_ctx *c, int k, int variant, check_outcome *out)
{
    if (inputs_as_loaded(c->x[k], c->y[k], c->h->x[variant], c->h->y, c->n, &c->px, &c->py, "",
                         out) >= 0)
        return -1;
    return 0;
}

/* out[i]'s exact value and the bound on its rounding error, for inputs x, y,
 * of SAXPY (heavy 0) or the heavy job of that degree. */
static void expect_job(int heavy, int degree, double x, double y, double *want, double *tol)
{
    const double u = ldexp(1.0, -24);
    if (!heavy) {
        *want = (double)A * x + y;
        *tol = 4 * u * (fabs((double)A * x) + fabs(y)) + 1e-30;
        return;
    }
    double p = c_heavy[degree], s = fabs(p);
    for (int k = degree - 1; k >= 0; k--) {
        p = p * x + c_heavy[k];
        s = s * fabs(x) + fabs(c_heavy[k]);
    }
    *want = A * p + y;
    *tol = (2.0 * degree + 8) * u * (fabs(A) * s + fabs(y));
}

static void expect_at(const lab_ctx *c, double x, double y, double *want, double *tol)
{
    expect_job(c->heavy, c->degree, x, y, want, tol);
}

static int call(lab_ctx *c, int stage, void *fn, cudaStream_t s)
{
    (void)s;
    if (!c->set_up[stage]) { /* a stage compared with, on its first (warm-up) call */
        check_outcome ignored;
        int st = stage_setup(c, stage, &ignored);
        if (st != LAB_OK)
            return st;
    }
    c->calls[stage]++;
    int st = (int)((streams_run_fn)fn)(&c->job[stage], c->state[stage]);
    /* run must return with out complete: look, before anything else waits
     * for the GPU, at the last element of every chunk (the last to land). */
    size_t n = c->n, per = (n + c->chunks - 1) / c->chunks;
    const float *out = c->out[streams_stages[stage].extra->kind];
    for (size_t end = per; st == LAB_OK && !c->early[stage]; end += per) {
        size_t i = (end < n ? end : n) - 1;
        uint32_t bits; /* the float's bits, read without breaking aliasing */
        memcpy(&bits, &out[i], sizeof bits);
        if (bits == 0xffffffffu)
            c->early[stage] = (long)i + 1;
        if (end >= n)
            break;
    }
    return st;
}

/* The share of the copy time that must hide behind other work in stage stage. */
static double overlap_needed(int stage)
{
    return streams_stages[stage].extra->overlap;
}

/* One more run of the stage with CUPTI recording: prints the timeline (it
 * shows under the stage's line of the report) and fails a stage whose copies
 * ran one after the other. Only in a speed test (after its timing loop, when
 * the stage has run many times: a correctness test runs it twice per size),
 * at the timed size. 0, or -1 with out filled. */
static int overlap_check(lab_ctx *c, int stage, check_outcome *out)
{
    if (overlap_needed(stage) <= 0 || c->size != BENCH_SIZE || c->calls[stage] < 8)
        return 0;
    char err[160];
    span spans[512];
    int k = streams_stages[stage].extra->kind;
    memset(c->out[k], 0xff, c->n * sizeof(float));
    int n = -1;
    if (trace_begin(err, sizeof err) == 0) {
        lab_status st = ((streams_run_fn)dlsym(lab_library, streams_stages[stage].symbol))(
            &c->job[stage], c->state[stage]);
        n = trace_end(spans, 512, err, sizeof err);
        if (st != LAB_OK)
            n = -1, snprintf(err, sizeof err, "the traced run returned %d", (int)st);
    }
    if (n <= 0) {
        printf("overlap not measured: %s\n", n == 0 ? "no copy or kernel was seen" : err);
        return 0;
    }
    double hidden = streams_hidden_fraction(spans, n);
    char timeline[1600];
    streams_timeline(timeline, sizeof timeline, spans, n, 60);
    printf("overlap: %.0f%% of the copy time ran while other work ran too (H copy in, K kernel, "
           "D copy out):\n%s",
           100 * hidden, timeline);
    if (hidden >= overlap_needed(stage))
        return 0;
    out->v = V_SLOW;
    snprintf(out->msg, sizeof out->msg,
             "only %.0f%% of the copy time overlapped other work (this stage needs %.0f%%): the "
             "chunks' copies and kernels ran one after another. Queue each chunk on its own "
             "stream and do not wait between chunks; the timeline is under the stage's line.",
             100 * hidden, 100 * overlap_needed(stage));
    return -1;
}

static int call_ceiling(lab_ctx *c, int stage, cudaStream_t s)
{
    (void)stage, (void)s;
    return c->ceiling_run(c->ceiling);
}

static int check(lab_ctx *c, int stage, int variant, int full, check_outcome *out)
{
    if (c->early[stage]) {
        out->v = V_NOT_WRITTEN;
        snprintf(out->msg, sizeof out->msg,
                 "run returned before out was complete: out[%ld] still held the grader's NaN "
                 "when run returned (it arrived later). The grader reads out as soon as run "
                 "returns: wait for your streams (cudaStreamSynchronize) before returning.",
                 c->early[stage] - 1);
        return -1;
    }
    if (full && overlap_check(c, stage, out) != 0)
        return -1;
    int k = streams_stages[stage].extra->kind;
    const float *got = c->out[k], *x = c->h->x[variant], *y = c->h->y;
    size_t n = c->n, per = (n + c->chunks - 1) / c->chunks;
    if (full && (memcmp(c->x[k], x, n * sizeof(float)) || memcmp(c->y[k], y, n * sizeof(float)))) {
        out->v = V_INPUT_MODIFIED;
        snprintf(out->msg, sizeof out->msg, "x or y was changed: a stage may only read them");
        return -1;
    }
    if (!full && patched_inputs_unchanged(c, k, variant, out) != 0)
        return -1;
    /* A correctness test reads every output; a timed call (full = 0) the
     * sampled ones and the patched ones, so that the check does not take
     * longer than the copies. */
    size_t count = full ? n : c->n_idx;
    size_t unwritten = 0, nans = 0, first = n;
    for (size_t j = 0; j < count; j++) {
        size_t i = full ? j : c->idx[j];
        uint32_t bits;
        memcpy(&bits, &got[i], 4);
        if (bits == 0xffffffffu || isnan(got[i]) || isinf(got[i])) {
            unwritten += bits == 0xffffffffu;
            nans += bits != 0xffffffffu;
            if (first == n || i < first)
                first = i;
        }
    }
    if (unwritten || nans) {
        out->v = unwritten ? V_NOT_WRITTEN : V_NAN;
        snprintf(out->msg, sizeof out->msg,
                 "%zu of %zu %soutputs were %s, the first out[%zu] (in chunk %zu of %d). Did run "
                 "wait for every stream before returning, and does every chunk, the last and "
                 "shorter one too, copy its results back?",
                 unwritten + nans, count, full ? "" : "checked ",
                 unwritten ? "never written" : "NaN or infinite", first, first / per, c->chunks);
        return -1;
    }
    size_t wrong = 0, bad = n;
    double want = 0;
    if (full && c->heavy) { /* every output, on the GPU */
        unsigned long long res[2];
        if (c->ceiling_check(c->ceiling, x, y, got, res) != 0) {
            out->v = V_SETUP_ERROR;
            snprintf(out->msg, sizeof out->msg,
                     "the grader could not check the outputs on the GPU (%s)",
                     cudaGetErrorString(cudaGetLastError()));
            return -1;
        }
        wrong = (size_t)res[0];
        if (wrong) {
            double tol;
            bad = (size_t)res[1];
            expect_at(c, x[bad], y[bad], &want, &tol);
        }
    } else if (full) { /* SAXPY: every output, here */
        for (size_t i = 0; i < n; i++) {
            double e, tol;
            expect_at(c, x[i], y[i], &e, &tol);
            if (!(fabs(got[i] - e) <= tol) && !wrong++)
                bad = i, want = e;
        }
    } else { /* the sampled outputs and the patched ones, of the patched inputs */
        const patch_set *px = &c->px, *py = &c->py;
        size_t m = c->n_idx + (size_t)px->n + (size_t)py->n;
        for (size_t j = 0; j < m; j++) {
            size_t i = j < c->n_idx ? c->idx[j]
                       : j < c->n_idx + (size_t)px->n ? px->idx[j - c->n_idx]
                                                      : py->idx[j - c->n_idx - px->n];
            int kx = patch_find(px, i), ky = patch_find(py, i);
            double e, tol;
            if (c->heavy && j < c->n_idx && kx < 0 && ky < 0) { /* made in setup */
                e = c->exact[variant][j];
                tol = (2.0 * c->degree + 8) * ldexp(1.0, -24) * c->scale[variant][j];
            } else {
                uint32_t wx = patch_word(px, (const uint32_t *)x, i);
                uint32_t wy = patch_word(py, (const uint32_t *)y, i);
                float fx, fy;
                memcpy(&fx, &wx, 4);
                memcpy(&fy, &wy, 4);
                expect_at(c, fx, fy, &e, &tol);
            }
            if (!(fabs(got[i] - e) <= tol) && (!wrong++ || i < bad)) /* not in index order */
                bad = i, want = e;
        }
    }
    if (!wrong)
        return 0;
    out->v = V_WRONG;
    snprintf(out->msg, sizeof out->msg,
             "%zu %soutputs are wrong; the first is out[%zu] = %.7g, expected %.7g (chunk %zu of "
             "%d, %zu from its start).%s",
             wrong, !full ? "checked " : "", bad, got[bad], want, bad / per, c->chunks,
             bad % per,
             bad % per == 0 || bad % per == per - 1
                 ? " It is at a chunk's edge: check each chunk's offset and length."
                 : "");
    return -1;
}

/* ---- The host witness (witness side: its own process, no CUDA, no lab_ctx) ----
 *
 * Every call of a stage gets, in its kind's buffers of the arena, a random
 * one of the two input sets, x and y loaded whole, out poisoned; then, once
 * the window's clock has started, PATCHES elements of x and of y moved by
 * 0.75 at positions drawn from the system's random numbers (which the
 * test's process never sees): work done before the window (by a kernel or
 * a host function left running) has the patched elements wrong. After the
 * call, at once: the patched elements and 4096 drawn then (work that goes on
 * after the call has returned has some of them wrong); then the last element
 * of every chunk (the last to land), every output for the poison, NaN or
 * infinity, x and y against what was loaded, and the values: every one of
 * SAXPY, and of the heavy job every chunk's first and last 64, each within
 * the bound of the correctness test. The patches are then undone. */
static struct {
    int stage, size, heavy, degree, chunks;
    size_t n, per;
    const host_data *h;
    host_data own;
    int v[KINDS];              /* the input set each kind's buffers hold */
    patch_set px[KINDS], py[KINDS];
} wit;

static int wit_start(int stage, int size, uint64_t seed, long param, char *why, size_t n)
{
    int heavy = streams_stages[stage].extra->heavy;
    /* The degrees setup chooses: multiples of 64 from 64, or the largest. */
    int ok = heavy ? param == STREAMS_MAX_DEGREE || (param >= 64 && param < STREAMS_MAX_DEGREE &&
                                                     param % 64 == 0)
                   : param == 1;
    if (!ok) {
        snprintf(why, n, "the test's setup gave the heavy job a degree of %ld, which the "
                         "grader's setup does not choose",
                 param);
        return -1;
    }
    if (c_heavy[0] == 0.0f)
        make_coefficients();
    wit.stage = stage;
    wit.size = size;
    wit.heavy = heavy;
    wit.degree = (int)param;
    wit.chunks = sizes_chunks[size];
    wit.n = sizes_n[size];
    wit.per = (wit.n + wit.chunks - 1) / wit.chunks;
    wit.h = &cache[size];
    if (!wit.h->made || wit.h->seed != seed) { /* made in this process, as the child does */
        host_data_free(&wit.own); /* a checking witness's, of the size before */
        if (host_data_make(&wit.own, size, seed) != 0) {
            snprintf(why, n, "no host memory for the inputs (3 x %zu MiB)",
                     wit.n * sizeof(float) >> 20);
            return -2;
        }
        wit.h = &wit.own;
    }
    return 0;
}

static void wit_load(void *arena, int role, uint64_t seed)
{
    int k = streams_stages[role].extra->kind;
    size_t bytes = wit.n * sizeof(float);
    rng r;
    rng_seed(&r, seed);
    int v = (int)rng_below(&r, 2);
    par_memcpy(arena_buf(arena, wit.stage, wit.size, k, 0), wit.h->x[v], bytes);
    par_memcpy(arena_buf(arena, wit.stage, wit.size, k, 1), wit.h->y, bytes);
    par_memset(arena_buf(arena, wit.stage, wit.size, k, 2), 0xff, bytes);
    wit.v[k] = v;
    patch_clear(&wit.px[k]);
    patch_clear(&wit.py[k]);
}

/* Inside the window: PATCHES elements of x and of y moved, at positions no
 * process but the witness knows until then. */
static void wit_patch(void *arena, int role, uint64_t seed)
{
    int k = streams_stages[role].extra->kind;
    float *x = arena_buf(arena, wit.stage, wit.size, k, 0);
    float *y = arena_buf(arena, wit.stage, wit.size, k, 1);
    rng r;
    rng_seed(&r, seed);
    pick(&wit.px[k], wit.h->x[wit.v[k]], wit.n, &r);
    pick(&wit.py[k], wit.h->y, wit.n, &r);
    for (int j = 0; j < wit.px[k].n; j++)
        memcpy(&x[wit.px[k].idx[j]], &wit.px[k].val[j], 4);
    for (int j = 0; j < wit.py[k].n; j++)
        memcpy(&y[wit.py[k].idx[j]], &wit.py[k].val[j], 4);
}

/* The poison, NaN or infinity in out, on all cores: the first, and counts. */
typedef struct unwritten_job {
    const uint32_t *got;
    size_t first, unwritten, nans;
} unwritten_job;

static int unwritten_slice(void *ctx, size_t begin, size_t end)
{
    unwritten_job *j = ctx;
    size_t un = 0, nan = 0, first = SIZE_MAX;
    for (size_t i = begin; i < end; i++) {
        uint32_t b = j->got[i];
        if (b == 0xffffffffu)
            un++;
        else if ((b & 0x7f800000u) == 0x7f800000u) /* NaN or infinite */
            nan++;
        else
            continue;
        if (first == SIZE_MAX)
            first = i;
    }
    if (un || nan) {
        __atomic_add_fetch(&j->unwritten, un, __ATOMIC_RELAXED);
        __atomic_add_fetch(&j->nans, nan, __ATOMIC_RELAXED);
        size_t seen = __atomic_load_n(&j->first, __ATOMIC_RELAXED);
        while (first < seen && !__atomic_compare_exchange_n(&j->first, &seen, first, 0,
                                                            __ATOMIC_RELAXED, __ATOMIC_RELAXED))
            ;
    }
    return 0;
}

/* Every SAXPY output against the loaded inputs, on all cores (a patched
 * element is judged again on its patched inputs afterwards). */
typedef struct saxpy_job {
    const float *got, *x, *y;
    const patch_set *px, *py;
    size_t first, wrong;
} saxpy_job;

static int saxpy_slice(void *ctx, size_t begin, size_t end)
{
    saxpy_job *j = ctx;
    size_t wrong = 0, first = SIZE_MAX;
    for (size_t i = begin; i < end; i++) {
        double e, tol;
        expect_job(0, 1, j->x[i], j->y[i], &e, &tol);
        if (fabs(j->got[i] - e) <= tol || patch_find(j->px, i) >= 0 || patch_find(j->py, i) >= 0)
            continue;
        if (!wrong++)
            first = i;
    }
    if (wrong) {
        __atomic_add_fetch(&j->wrong, wrong, __ATOMIC_RELAXED);
        size_t seen = __atomic_load_n(&j->first, __ATOMIC_RELAXED);
        while (first < seen && !__atomic_compare_exchange_n(&j->first, &seen, first, 0,
                                                            __ATOMIC_RELAXED, __ATOMIC_RELAXED))
            ;
    }
    return 0;
}

/* Whether out[i] is right for the loaded inputs with the patches; the
 * expected value in *want. */
static int wit_right_at(const float *got, const float *ox, const float *oy, const patch_set *px,
                        const patch_set *py, size_t i, double *want)
{
    uint32_t wx = patch_word(px, (const uint32_t *)ox, i), wy = patch_word(py, (const uint32_t *)oy, i);
    float fx, fy;
    memcpy(&fx, &wx, 4);
    memcpy(&fy, &wy, 4);
    double tol;
    expect_job(wit.heavy, wit.degree, fx, fy, want, &tol);
    return fabs(got[i] - *want) <= tol;
}

static long long wit_check(void *arena, int role, uint64_t seed, check_outcome *out)
{
    int k = streams_stages[role].extra->kind;
    float *x = arena_buf(arena, wit.stage, wit.size, k, 0);
    float *y = arena_buf(arena, wit.stage, wit.size, k, 1);
    const float *got = arena_buf(arena, wit.stage, wit.size, k, 2);
    const float *ox = wit.h->x[wit.v[k]], *oy = wit.h->y;
    const patch_set *px = &wit.px[k], *py = &wit.py[k];
    const patch_set *ps[2] = {px, py};
    size_t n = wit.n, per = wit.per, bad = n;
    long long result = -1;
    double want = 0;
    /* Right away, before any long scan: the patched elements and 4096 drawn
     * now. Work still going on after the call has returned (a thread of the
     * library's) has some of them unwritten or wrong here, whatever it
     * finishes later. */
    size_t early = 0, early_at = n;
    rng r;
    rng_seed(&r, seed);
    for (int m = 0; m < 2; m++)
        for (int j = 0; j < ps[m]->n; j++) {
            size_t i = ps[m]->idx[j];
            double e;
            if (!wit_right_at(got, ox, oy, px, py, i, &e) && (!early++ || i < early_at))
                early_at = i, want = e;
        }
    size_t drawn[4096];
    for (int d = 0; d < 4096; d++) {
        size_t i = drawn[d] = (size_t)rng_below(&r, n);
        double e;
        if (!wit_right_at(got, ox, oy, px, py, i, &e) && (!early++ || i < early_at))
            early_at = i, want = e;
    }
    float early_got = early ? got[early_at] : 0;
    /* The last element of every chunk, the last to land. */
    for (size_t end = per;; end += per) {
        size_t i = (end < n ? end : n) - 1;
        uint32_t bits;
        memcpy(&bits, &got[i], 4);
        if (bits == 0xffffffffu) {
            out->v = V_NOT_WRITTEN;
            snprintf(out->msg, sizeof out->msg,
                     "out[%zu], the last element of chunk %zu of %d, still held the grader's NaN "
                     "when run had returned: run returned before out was complete.",
                     i, i / per, wit.chunks);
            result = (long long)i;
            goto undo;
        }
        if (end >= n)
            break;
    }
    unwritten_job u = {(const uint32_t *)got, SIZE_MAX, 0, 0};
    par_for(n, (size_t)1 << 18, unwritten_slice, &u);
    if (u.unwritten || u.nans) {
        out->v = u.unwritten ? V_NOT_WRITTEN : V_NAN;
        snprintf(out->msg, sizeof out->msg,
                 "%zu of %zu outputs were %s, the first out[%zu] (in chunk %zu of %d).",
                 u.unwritten + u.nans, n, u.unwritten ? "never written" : "NaN or infinite",
                 u.first, u.first / per, wit.chunks);
        result = (long long)u.first;
        goto undo;
    }
    result = inputs_as_loaded(x, y, ox, oy, n, px, py,
                              " (as the grader's witness loaded it)", out);
    if (result >= 0)
        goto undo;
    size_t wrong = 0;
    if (!wit.heavy) {
        saxpy_job j = {got, ox, oy, px, py, SIZE_MAX, 0};
        par_for(n, (size_t)1 << 18, saxpy_slice, &j);
        wrong = j.wrong;
        bad = j.first;
        if (wrong)
            wit_right_at(got, ox, oy, px, py, bad, &want);
    } else { /* every chunk's first and last 64, and the 4096 drawn above again when
              * some were wrong then */
        for (int d = 0; d < 4096 && early; d++) {
            size_t i = drawn[d];
            double e;
            if (!wit_right_at(got, ox, oy, px, py, i, &e) && (!wrong++ || i < bad))
                bad = i, want = e;
        }
        for (size_t start = 0; start < n; start += per) {
            size_t len = n - start < per ? n - start : per;
            for (size_t d = 0; d < len && d < 128; d++) {
                size_t i = len <= 128 || d < 64 ? start + d : start + len - 128 + d;
                double e;
                if (!wit_right_at(got, ox, oy, px, py, i, &e) && (!wrong++ || i < bad))
                    bad = i, want = e;
            }
        }
    }
    for (int m = 0; m < 2; m++) /* the patched elements, on the patched inputs */
        for (int j = 0; j < ps[m]->n; j++) {
            size_t i = ps[m]->idx[j];
            double e;
            if (!wit_right_at(got, ox, oy, px, py, i, &e) && (!wrong++ || i < bad))
                bad = i, want = e;
        }
    if (wrong) {
        out->v = V_WRONG;
        snprintf(out->msg, sizeof out->msg,
                 "%zu %soutputs were wrong; the first, out[%zu] = %.7g, should be %.7g (chunk %zu "
                 "of %d, %zu from its start)%s.",
                 wrong, wit.heavy ? "checked " : "", bad, got[bad], want, bad / per, wit.chunks,
                 bad % per, patch_find(px, bad) >= 0 || patch_find(py, bad) >= 0
                                 ? ", an element whose input the witness had just changed"
                                 : "");
        result = (long long)bad;
    } else if (early) {
        out->v = V_WRONG;
        snprintf(out->msg, sizeof out->msg,
                 "out[%zu] was %.7g when run had returned, and became right (%.7g) only later: "
                 "work on out went on after run returned. run must return once out is complete "
                 "(wait for every stream and every thread you started).",
                 early_at, early_got, want);
        result = (long long)early_at;
    }
undo: /* the inputs as loaded, for the child's own calls */
    for (int j = 0; j < px->n; j++)
        x[px->idx[j]] = ox[px->idx[j]];
    for (int j = 0; j < py->n; j++)
        y[py->idx[j]] = oy[py->idx[j]];
    return result;
}

static long wit_param(lab_ctx *c)
{
    return c->degree;
}

/* Zero-copy stages get mapped memory: from cudaHostAlloc without the
 * witness, whose host pointer is the device's too (unified addressing); in
 * the arena, registered, it is so only where the GPU can use the host
 * pointers of registered memory. */
static int wit_usable(char *why, size_t n)
{
    int can = 0;
    if (cudaDeviceGetAttribute(&can, cudaDevAttrCanUseHostPointerForRegisteredMem, 0) !=
            cudaSuccess ||
        !can) {
        cudaGetLastError();
        snprintf(why, n, "this GPU cannot use the host pointers of registered memory, and lab "
                         "5's buffers would then differ from the ones a stage gets without it");
        return -1;
    }
    return 0;
}

static const lab_host_witness streams_host_witness = {
    .arena_bytes = arena_bytes,
    .start = wit_start,
    .load = wit_load,
    .patch = wit_patch,
    .check = wit_check,
    .param = wit_param,
    .usable = wit_usable,
};

const lab_spec lab_streams = {
    .number = 5,
    .name = "streams",
    .dir = "5-streams",
    .available = 1,
    .stages = streams_stages,
    .n_stages = N_STAGES,
    .n_sizes = N_SIZES,
    .bench_size = BENCH_SIZE,
    .check_variants = 2,
    .unit = "GB/s",
    .ceiling_name = CEILING,
    .forbidden_calls = policy_host_stage_rules,
    /* Each stage's .reference is the reference solution's speed on it, in
     * GB/s end to end (handouts/5-streams.md). */
    .reference_gpu = "NVIDIA H200",
    .floor_throughput = 0.5, /* GB/s: pageable copies on a slow host */
    .host_timed = 1,
    .use_library = use_library,
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
    .host_witness = &streams_host_witness,
};
