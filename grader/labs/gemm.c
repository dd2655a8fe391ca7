/* grader/labs/gemm.c: lab 4's specification — the stages, sizes, inputs and
 * checks of SGEMM, C = alpha A B + beta C (row-major).
 *
 * Two cases at every size, on the same A and B (gemm_fill_inputs: mostly
 * uniform in [-1, 1), with rows and columns that tell FP16, BF16 and TF32
 * from float32):
 *  - alpha = 1, beta = 0, with the old C filled with NaN: every element must
 *    be written, and, as in BLAS, C must not be read when beta is 0;
 *  - alpha = 0.75, beta = -0.5, with a random old C: beta must be applied.
 * The expected results and each element's scale come from one double-
 * precision reference of A B and |A| |B| per size (gemm_ref.c), made once in
 * the parent; the tolerance is in gemm_ref.c.
 *
 * Timed calls: before each, PATCHES words of A and as many of B get new
 * values at random positions, about a thousand times their row's (column's)
 * largest value, so a stage that returns an earlier C gets whole rows and
 * columns of it wrong by far more than the tolerance. The check adds the
 * patches' effect on those rows and columns to the expected C (exactly, in
 * double), and checks on the GPU that A and B hold exactly what was loaded
 * plus the patch. Once timed calls have begun, each prepare loads A and B
 * whole again, from copies on the GPU.
 *
 * Speed tests with the timing witness (grader/witness.h): the witness writes
 * a new A and B, uniform in [-1, 1), before every timed call, which is given
 * case 0 (alpha 1, beta 0, C poisoned with NaN), and checks C afterwards in
 * rows and columns it draws then (witness_check, below). */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/compare.h"
#include "../../common/hostmem.h"
#include "../../common/rng.h"
#include "../../labs/4-gemm/gemm.h"
#include "../ceiling.h"
#include "../ceilings/ceilings.h"
#include "../gbuf.h"
#include "../lab.h"
#include "../patch.h"
#include "../policy.h"
#include "../results.h"
#include "gemm_lab.h"
#include "lab_util.h"
#include "../timings.h"

#define CUBLAS "cuBLAS SGEMM (FP32)"
#define CUBLAS_TF32 "cuBLAS SGEMM (TF32 tensor cores)"
#define TENSOR_STAGE 8

static const lab_stage gemm_stages[] = {
    {
        .title = "naive, threads walk M (given)",
        .symbol = "gemm_naive",
        .given = 1,
        .ceiling = CUBLAS,
        .reference = 0.50,
    },
    {
        .title = "coalesced, threads walk N",
        .symbol = "gemm_coalesced",
        .points_correct = 10,
        .points_speed = 5,
        .min_speedup = 2.0,
        LAB_BASES(0),
        .ceiling = CUBLAS,
        .refused_ops = {GEMM_TENSOR_OPS, GEMM_TENSOR_TEXT},
        .reference = 5.9,
        .hint = "Consecutive threads (threadIdx.x) should take consecutive columns j of C: then a warp "
                "reads one element of A (a broadcast) and 32 neighbouring elements of B, and writes 32 "
                "neighbouring elements of C.",
    },
    {
        .title = "shared-memory tiles",
        .symbol = "gemm_shared",
        .points_correct = 10,
        .points_speed = 5,
        .min_speedup = 1.15,
        LAB_BASES(1),
        .ceiling = CUBLAS,
        .refused_ops = {GEMM_TENSOR_OPS, GEMM_TENSOR_TEXT},
        .reference = 8.7,
        .technique = {{"LDS", "shared-memory loads (LDS)"}},
        .hint = "Each block should load a tile of A and a tile of B into shared memory once, "
                "__syncthreads(), and let every thread read them many times; check both loads are "
                "coalesced (threadIdx.x along a row) and that the k-loop steps by the tile size.",
    },
    {
        .title = "1D thread tile",
        .symbol = "gemm_tile_1d",
        .points_correct = 10,
        .points_speed = 5,
        .min_speedup = 1.45,
        LAB_BASES(2),
        .ceiling = CUBLAS,
        .refused_ops = {GEMM_TENSOR_OPS, GEMM_TENSOR_TEXT},
        .reference = 16.1,
        .hint = "Each thread should keep TM results in registers and, for each k, load one element of B "
                "into a register and reuse it TM times against a column of A's tile: fewer shared loads "
                "per multiply-add.",
    },
    {
        .title = "2D register blocking",
        .symbol = "gemm_tile_2d",
        .points_correct = 10,
        .points_speed = 5,
        .min_speedup = 1.4,
        LAB_BASES(3),
        .ceiling = CUBLAS,
        .refused_ops = {GEMM_TENSOR_OPS, GEMM_TENSOR_TEXT},
        .reference = 29.9,
        .hint = "Each thread should compute an 8 x 8 block: per k, load 8 values of A and 8 of B into "
                "registers and do 64 multiply-adds from them (an outer product). Check that the result "
                "array is fully unrolled (no local memory: nvcc -Xptxas -v says 0 bytes spill) and that "
                "two blocks fit on an SM: __launch_bounds__(256, 2) caps the registers at 128.",
    },
    {
        .title = "vectorised, A transposed",
        .symbol = "gemm_vectorized",
        .points_correct = 10,
        .points_speed = 5,
        .min_speedup = 1.0,
        LAB_BASES(4),
        .ceiling = CUBLAS,
        .refused_ops = {GEMM_TENSOR_OPS, GEMM_TENSOR_TEXT},
        .reference = 31.6,
        .technique = {{"LDS.128", "16-byte shared-memory loads (LDS.128)"},
                      {"LDG.128", "16-byte global loads (LDG.E.128)"}},
        .hint = "Load A and B with float4, store A's tile transposed (As[k][m]) so the inner loop reads "
                "A's column as float4s too; the SASS should show LDG.E.128 and LDS.128.",
    },
    {
        .title = "double buffering",
        .symbol = "gemm_double_buffer",
        .points_correct = 10,
        .points_speed = 5,
        .min_speedup = 1.0,
        LAB_BASES(5),
        .ceiling = CUBLAS,
        .refused_ops = {GEMM_TENSOR_OPS, GEMM_TENSOR_TEXT},
        .reference = 37.6,
        .hint = "Load the next tiles (into registers or a second shared buffer) before computing on the "
                "current ones, so memory and arithmetic overlap; one __syncthreads() per tile.",
    },
    {
        .title = "warp tiling",
        .symbol = "gemm_warp_tile",
        .points_correct = 10,
        .points_speed = 10,
        .min_speedup = 1.0,
        LAB_BASES(6),
        .min_ceiling = 0.65,
        .ceiling = CUBLAS,
        .refused_ops = {GEMM_TENSOR_OPS, GEMM_TENSOR_TEXT},
        .reference = 43.9,
        .hint = "Give each warp a sub-tile of the block (e.g. 64 x 32) and each thread a few small "
                "blocks inside it, so a warp's shared loads hit few distinct addresses; aim for most of "
                "cuBLAS. __launch_bounds__(256, 2) keeps two blocks on each SM.",
    },
    {
        .title = "tensor cores (TF32, bonus)",
        .symbol = "gemm_tensor_core",
        .points_correct = 5,
        .points_speed = 5,
        .min_ceiling = 0.25,
        .ceiling = CUBLAS_TF32,
        .min_cc = 80, /* TF32 mma.sync and cp.async need compute capability 8.0 */
        .reference = 132,
        .technique = {{"HMMA.TF32", "TF32 tensor-core instructions (HMMA with .TF32)"}},
        .refused_ops = {GEMM_BELOW_TF32_OPS, GEMM_BELOW_TF32_TEXT},
        .hint = "Let each warp own a 64 x 64 tile and issue mma.sync.m16n8k8 (TF32) from fragments it "
                "loads from shared memory itself; double-buffer the tiles with cp.async and pad the rows "
                "so fragment loads avoid bank conflicts. A plain wmma kernel (16 x 16 x 8 fragments "
                "through load_matrix_sync) reached only about 8% of cuBLAS TF32 on an H200, far below "
                "the 25% needed; wmma would need the same big warp tiles, padding and pipeline, which "
                "we have measured only with mma.sync.",
    },
};
#define N_STAGES ((int)(sizeof gemm_stages / sizeof gemm_stages[0]))

/* M, N, K: small and awkward first, the benchmark last. */
static const int gemm_sizes[][3] = {
    {1, 1, 1},      {1, 4096, 1},   {17, 33, 65},  {127, 129, 131},
    {1000, 1003, 997}, {4096, 64, 4096}, {64, 4096, 64}, {4096, 4096, 4096},
};
#define N_SIZES ((int)(sizeof gemm_sizes / sizeof gemm_sizes[0]))
#define BENCH_SIZE (N_SIZES - 1)
#define VARIANTS 2
#define PATCHES 4 /* words of A, and of B, patched before each timed call */
static const float case_alpha[VARIANTS] = {1.0f, 0.75f};
static const float case_beta[VARIANTS] = {0.0f, -0.5f};

typedef struct host_data {
    uint64_t seed;
    int made;
    float *A, *B, *C0;                      /* C0: the old C of case 1 */
    double *exact[VARIANTS], *scale[VARIANTS];
} host_data;

static host_data cache[N_SIZES];

static void host_data_free(host_data *h)
{
    free(h->A);
    free(h->B);
    free(h->C0);
    for (int v = 0; v < VARIANTS; v++) {
        free(h->exact[v]);
        free(h->scale[v]);
    }
    memset(h, 0, sizeof *h);
}

static int host_data_make(host_data *h, int size, uint64_t seed)
{
    const int M = gemm_sizes[size][0], N = gemm_sizes[size][1], K = gemm_sizes[size][2];
    size_t mn = (size_t)M * N;
    h->seed = seed;
    h->A = hostmem_alloc((size_t)M * K * sizeof(float));
    h->B = hostmem_alloc((size_t)K * N * sizeof(float));
    h->C0 = hostmem_alloc(mn * sizeof(float));
    for (int v = 0; v < VARIANTS; v++) {
        h->exact[v] = hostmem_alloc(mn * sizeof(double));
        h->scale[v] = hostmem_alloc(mn * sizeof(double));
        if (!h->exact[v] || !h->scale[v])
            break;
    }
    if (!h->A || !h->B || !h->C0 || !h->exact[VARIANTS - 1] || !h->scale[VARIANTS - 1]) {
        host_data_free(h);
        return -1;
    }
    rng r;
    rng_seed(&r, seed);
    gemm_fill_inputs(M, N, K, h->A, h->B, &r);
    rng_fill_uniform(&r, h->C0, mn, -1.0f, 1.0f);
    /* One reference of A B (alpha 1, beta 0); the other case follows from it. */
    gemm_problem p = {M, N, K, 1.0f, 0.0f, h->A, h->B, NULL};
    int prev = tm_enter(TM_REFERENCE);
    int rc = gemm_reference(&p, h->exact[0], h->scale[0]);
    for (size_t e = 0; rc == 0 && e < mn; e++) {
        h->exact[1][e] = case_alpha[1] * h->exact[0][e] + case_beta[1] * (double)h->C0[e];
        h->scale[1][e] = fabs(case_alpha[1]) * h->scale[0][e] + fabs(case_beta[1]) * fabs(h->C0[e]);
    }
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
    const size_t M = (size_t)gemm_sizes[size][0], N = (size_t)gemm_sizes[size][1],
                 K = (size_t)gemm_sizes[size][2];
    uint64_t d = LAB_DIGEST_START;
    size_t bytes = lab_held(&d, h->A, M * K * sizeof(float));
    bytes += lab_held(&d, h->B, K * N * sizeof(float));
    bytes += lab_held(&d, h->C0, M * N * sizeof(float));
    for (int v = 0; v < VARIANTS; v++) {
        bytes += lab_held(&d, h->exact[v], M * N * sizeof(double));
        bytes += lab_held(&d, h->scale[v], M * N * sizeof(double));
    }
    if (digest && bytes)
        *digest = d;
    return bytes;
}

struct lab_ctx {
    int M, N, K, tf32;
    host_data own;
    const host_data *h;
    gbuf A, B, C;
    int variant; /* the case loaded by prepare */
    /* Timed calls: the patches of A and B, device copies of A and B as loaded
     * (made on the first patch), the stream the patches went on, and room
     * for the rows and columns of the expected C they change. */
    patch_set pA, pB;
    void *d_A0, *d_B0;
    void *d_C0; /* the old C, on the device: case 1 reloads it from there */
    cudaStream_t stream;
    double *save;
    float *row_max, *col_max; /* of A's rows and B's columns, for the patch values */
    float *h_got;
    void *blas;
    ceiling_gemm_fn *blas_gemm;
    ceiling_gemm_destroy_fn *blas_destroy;
};

static void size_text(int size, char *buf, size_t n)
{
    snprintf(buf, n, "M %d, N %d, K %d", gemm_sizes[size][0], gemm_sizes[size][1],
             gemm_sizes[size][2]);
}

/* TFLOP per call: a multiply and an add per (i, j, k). */
static double work(int stage, int size)
{
    (void)stage;
    return 2.0 * gemm_sizes[size][0] * (double)gemm_sizes[size][1] * gemm_sizes[size][2] / 1e12;
}

static void teardown(lab_ctx *c)
{
    if (!c)
        return;
    gbuf_free(&c->A);
    gbuf_free(&c->B);
    gbuf_free(&c->C);
    host_data_free(&c->own);
    patch_free(&c->pA);
    patch_free(&c->pB);
    if (c->d_A0)
        cudaFree(c->d_A0);
    if (c->d_B0)
        cudaFree(c->d_B0);
    if (c->d_C0)
        cudaFree(c->d_C0);
    free(c->save);
    free(c->row_max);
    free(c->col_max);
    if (c->h_got)
        free(c->h_got);
    if (c->blas && c->blas_destroy)
        c->blas_destroy(c->blas);
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
    c->M = gemm_sizes[size][0];
    c->N = gemm_sizes[size][1];
    c->K = gemm_sizes[size][2];
    c->tf32 = stage == TENSOR_STAGE;
    c->h = &cache[size];
    if (!c->h->made || c->h->seed != seed) {
        int prev = tm_enter(TM_INPUTS), made = host_data_make(&c->own, size, seed);
        tm_enter(prev);
        if (made != 0)
            return lab_no_memory(out, " for the matrices");
        c->h = &c->own;
    }
    static const char *const syms[] = {"ceiling_gemm_create", "ceiling_gemm",
                                       "ceiling_gemm_destroy"};
    void *fns[3];
    if (ceiling_load("lab4", syms, fns, 3, out->msg, sizeof out->msg) != 0) {
        out->v = V_SETUP_ERROR;
        return -1;
    }
    c->blas_gemm = (ceiling_gemm_fn *)fns[1];
    c->blas_destroy = (ceiling_gemm_destroy_fn *)fns[2];
    if (((ceiling_gemm_create_fn *)fns[0])(&c->blas) != 0) {
        c->blas = NULL;
        out->v = V_SETUP_ERROR;
        snprintf(out->msg, sizeof out->msg, "the grader could not start cuBLAS");
        return -1;
    }
    size_t mn = (size_t)c->M * c->N;
    rng r;
    rng_seed(&r, rng_derive(seed, 77));
    cudaError_t err = gbuf_alloc(&c->A, (size_t)c->M * c->K * 4, rng_next(&r));
    if (err == cudaSuccess)
        err = gbuf_alloc(&c->B, (size_t)c->K * c->N * 4, rng_next(&r));
    if (err == cudaSuccess)
        err = gbuf_alloc(&c->C, mn * 4, rng_next(&r));
    if (err != cudaSuccess)
        return lab_fail_cuda(out, err, "allocate the matrices");
    if (lab_host_buffer((void **)&c->h_got, mn * 4, out) != 0)
        return -1;
    err = lab_to_device(c->A.d, c->h->A, (size_t)c->M * c->K * 4);
    if (err == cudaSuccess)
        err = lab_to_device(c->B.d, c->h->B, (size_t)c->K * c->N * 4);
    if (err != cudaSuccess)
        return lab_fail_cuda(out, err, "upload A and B");
    return 0;
}

/* Case 0: C filled with NaN (beta is 0, C must not be read); case 1: the old
 * C, copied on the device from a copy uploaded once (a copy from the host's
 * pageable memory took longer than most stages' calls). A stage that writes
 * to that copy changes only the inputs of later calls (its own, its bases'
 * and the ceiling's, which share this context): every check's expected C
 * comes from the host's C0, so nothing written there passes a check. */
static int prepare(lab_ctx *c, int variant, cudaStream_t s, check_outcome *out)
{
    c->variant = variant;
    size_t bytes = (size_t)c->M * c->N * 4;
    /* Once timed calls have begun, A and B whole again from their copies (the
     * timing witness loads inputs of its own into them). */
    const lab_input in[2] = {
        {c->A.d, c->d_A0, c->h->A, (size_t)c->M * c->K * 4, &c->pA},
        {c->B.d, c->d_B0, c->h->B, (size_t)c->K * c->N * 4, &c->pB},
    };
    if (lab_restore_inputs(in, 2, s, "reload A and B", out) != 0)
        return -1;
    if (variant == 1 && !c->d_C0) {
        const void *h[1] = {c->h->C0};
        if (lab_device_copies(&c->d_C0, h, 1, bytes, out) != 0)
            return -1;
    }
    cudaError_t err = variant == 0 ? gbuf_poison(&c->C, s)
                                   : cudaMemcpyAsync(c->C.d, c->d_C0, bytes,
                                                     cudaMemcpyDeviceToDevice, s);
    if (err != cudaSuccess)
        return lab_fail_cuda(out, err, "load C");
    return 0;
}

/* A patch value: 512 to 1024 times m (the largest magnitude of the row of
 * A, or the column of B, it goes into), either sign. */
static uint32_t patch_value(float m, rng *r)
{
    float v = (m > 0 ? m : 1.0f) * rng_uniform(r, 512.0f, 1024.0f);
    if (rng_below(r, 2))
        v = -v;
    uint32_t w;
    memcpy(&w, &v, 4);
    return w;
}

static int perturb(lab_ctx *c, int variant, rng *r, cudaStream_t s, check_outcome *out)
{
    (void)variant;
    size_t na = (size_t)c->M * c->K, nb = (size_t)c->K * c->N;
    if (!c->d_A0) { /* the copies the check compares with, untimed, once */
        const void *h[2] = {c->h->A, c->h->B};
        size_t save = 2 * (size_t)PATCHES * ((size_t)c->M + c->N);
        if (lab_device_copies(&c->d_A0, &h[0], 1, na * 4, out) != 0 ||
            lab_device_copies(&c->d_B0, &h[1], 1, nb * 4, out) != 0)
            return -1;
        c->save = malloc(save * sizeof *c->save);
        c->row_max = calloc((size_t)c->M, sizeof *c->row_max);
        c->col_max = calloc((size_t)c->N, sizeof *c->col_max);
        if (!c->save || !c->row_max || !c->col_max)
            return lab_no_memory(out, " for the patched rows");
        for (size_t e = 0; e < na; e++)
            c->row_max[e / c->K] = fmaxf(c->row_max[e / c->K], fabsf(c->h->A[e]));
        for (size_t e = 0; e < nb; e++)
            c->col_max[e % c->N] = fmaxf(c->col_max[e % c->N], fabsf(c->h->B[e]));
    }
    c->stream = s;
    patch_pick(&c->pA, PATCHES, na, r);
    for (int k = 0; k < c->pA.n; k++) /* a row of A: along K */
        c->pA.val[k] = patch_value(c->row_max[c->pA.idx[k] / c->K], r);
    patch_pick(&c->pB, PATCHES, nb, r);
    for (int k = 0; k < c->pB.n; k++) /* a column of B: along K */
        c->pB.val[k] = patch_value(c->col_max[c->pB.idx[k] % c->N], r);
    if (patch_apply(&c->pA, c->A.d, s, out) != 0 || patch_apply(&c->pB, c->B.d, s, out) != 0)
        return -1;
    return 0;
}

static int call(lab_ctx *c, int stage, void *fn, cudaStream_t s)
{
    (void)stage;
    return (int)((gemm_fn)fn)(c->M, c->N, c->K, case_alpha[c->variant], (const float *)c->A.d,
                              (const float *)c->B.d, case_beta[c->variant], (float *)c->C.d, s);
}

static int call_ceiling(lab_ctx *c, int stage, cudaStream_t s)
{
    return c->blas_gemm(c->blas, stage == TENSOR_STAGE, c->M, c->N, c->K, case_alpha[c->variant],
                        (const float *)c->A.d, (const float *)c->B.d, case_beta[c->variant],
                        (float *)c->C.d, s);
}

static int check(lab_ctx *c, int stage, int variant, int full, check_outcome *out)
{
    size_t mn = (size_t)c->M * c->N;
    if (lab_guard_check(&c->C, "C", mn, out) ||
        lab_guard_check(&c->A, "A", (size_t)c->M * c->K, out) ||
        lab_guard_check(&c->B, "B", (size_t)c->K * c->N, out))
        return -1;
    cudaError_t err;
    if (full) { /* A and B unchanged */
        const gbuf *bufs[2] = {&c->A, &c->B};
        const void *hosts[2] = {c->h->A, c->h->B};
        size_t bytes[2] = {(size_t)c->M * c->K * 4, (size_t)c->K * c->N * 4};
        const char *names[2] = {"A", "B"};
        if (lab_inputs_unchanged(2, bufs, hosts, bytes, names, "a stage may only read A and B",
                                 out) != 0)
            return -1;
    }
    int patched = c->pA.n + c->pB.n > 0;
    if (patched && (lab_patched_unchanged(&c->pA, &c->A, c->d_A0, c->h->A, (size_t)c->M * c->K,
                                          (size_t)c->K, "A", "A stage may only read A and B.",
                                          c->stream, out) != 0 ||
                    lab_patched_unchanged(&c->pB, &c->B, c->d_B0, c->h->B, (size_t)c->K * c->N,
                                          (size_t)c->N, "B", "A stage may only read A and B.",
                                          c->stream, out) != 0))
        return -1;
    err = lab_to_host(c->h_got, c->C.d, mn * 4);
    if (err != cudaSuccess)
        return lab_fail_cuda(out, err, "read C back");
    gemm_problem p = {c->M, c->N, c->K, case_alpha[variant], case_beta[variant], c->h->A,
                      c->h->B, c->h->C0};
    int v = gemm_check_patched(&p, c->h->exact[variant], c->h->scale[variant], c->h_got,
                               c->pA.idx, c->pA.val, c->pA.n, c->pB.idx, c->pB.val, c->pB.n,
                               stage == TENSOR_STAGE ? GEMM_TF32 : GEMM_FP32, c->save, out->msg,
                               sizeof out->msg);
    if (v == V_PASS)
        return 0;
    out->v = (verdict)v;
    size_t len = strlen(out->msg);
    snprintf(out->msg + len, sizeof out->msg - len, " (alpha %g, beta %g)", case_alpha[variant],
             case_beta[variant]);
    return -1;
}

/* The timing witness (grader/witness.h): fresh A and B, uniform in [-1, 1),
 * before each timed call, whose C (alpha 1, beta 0, poisoned with NaN) it
 * checks in rows and columns it draws afterwards, WITNESS_PICKS of each. */
#define WITNESS_PICKS 16

static void witness_buffers(lab_ctx *c, const gbuf **in, const gbuf **out)
{
    in[0] = &c->A;
    in[1] = &c->B;
    out[0] = &c->C;
    out[1] = NULL;
}

static void witness_layout_of(int stage, int size, witness_layout *l)
{
    (void)stage;
    const size_t M = (size_t)gemm_sizes[size][0], N = (size_t)gemm_sizes[size][1],
                 K = (size_t)gemm_sizes[size][2];
    l->in_bytes[0] = M * K * 4;
    l->in_bytes[1] = K * N * 4;
    l->out_bytes[0] = M * N * 4;
    l->out_bytes[1] = 0;
    l->poison[0] = 0xff; /* NaN, as prepare's case 0 */
    l->fill = DEVCHECK_FILL_UNIFORM;
    l->lo = -1;
    l->hi = 1;
}

static long long witness_check(int role, int stage, int size, const void *const *d_out,
                               const void *const *ins, cudaStream_t s, check_outcome *out,
                               int full)
{
    const int M = gemm_sizes[size][0], N = gemm_sizes[size][1], K = gemm_sizes[size][2];
    /* The TF32 stage's test: the stage and its ceiling (cuBLAS TF32) are held to
     * TF32's bound; every other stage and its ceiling to float32's. */
    const int kind = (role == WITNESS_CEILING ? stage : role) == TENSOR_STAGE ? GEMM_TF32
                                                                               : GEMM_FP32;
    double t1, t2;
    gemm_tolerance_factors(K, kind, &t1, &t2);
    const float *A = ins[0], *B = ins[1], *C = d_out[0];
    long long bad = -1;
    if (full && (double)M * N * K <= LAB_WITNESS_FULL_WORK) { /* every row of C */
        uint32_t rows[LAB_WITNESS_MAX_PICKS];
        for (int r0 = 0; r0 < M && bad == -1; r0 += LAB_WITNESS_MAX_PICKS) {
            int nr = lab_witness_lines(rows, (uint64_t)r0, (uint64_t)M);
            bad = devcheck_gemm_on_gpu(C, A, B, (size_t)M, (size_t)N, (size_t)K, t1, t2, rows, nr,
                                       NULL, 0, s, out);
        }
    } else {
        uint32_t rows[WITNESS_PICKS], cols[WITNESS_PICKS];
        const int nr = M < WITNESS_PICKS ? M : WITNESS_PICKS,
                  nc = N < WITNESS_PICKS ? N : WITNESS_PICKS;
        if (lab_witness_picks(rows, nr, (uint64_t)M, cols, nc, (uint64_t)N, out) != 0)
            return -2;
        bad = devcheck_gemm_on_gpu(C, A, B, (size_t)M, (size_t)N, (size_t)K, t1, t2, rows, nr,
                                   cols, nc, s, out);
    }
    if (bad < 0)
        return bad;
    long long i = bad / N, j = bad % N;
    float got = 0;
    double x = 0, sc = 0;
    out->v = V_WRONG;
    if (cudaMemcpy(&got, C + bad, 4, cudaMemcpyDeviceToHost) != cudaSuccess ||
        lab_gemm_element(A, B, N, K, i, j, &x, &sc) != 0)
        snprintf(out->msg, sizeof out->msg,
                 "C[%lld][%lld] is not within the tolerance of A B's element (alpha 1, beta 0).",
                 i, j);
    else if (!isfinite(got))
        snprintf(out->msg, sizeof out->msg,
                 "C[%lld][%lld] is %g, and A B's element is %.7g (alpha 1, beta 0; the witness "
                 "filled C with NaN before the call, so a NaN there may be an element never "
                 "written).",
                 i, j, got, x);
    else
        snprintf(out->msg, sizeof out->msg,
                 "C[%lld][%lld] is %.7g, and A B's element is %.7g (off by %.3g; the tolerance "
                 "is %.3g) (alpha 1, beta 0).",
                 i, j, got, x, fabs((double)got - x), gemm_tolerance(K, sc, kind));
    return bad;
}

static const lab_witness gemm_witness = {
    .buffers = witness_buffers,
    .layout = witness_layout_of,
    .check = witness_check,
    .names = {"A", "B", "C", NULL},
};

const lab_spec lab_gemm = {
    .number = 4,
    .name = "gemm",
    .dir = "4-gemm",
    .available = 1,
    .stages = gemm_stages,
    .n_stages = N_STAGES,
    .n_sizes = N_SIZES,
    .bench_size = BENCH_SIZE,
    .check_variants = VARIANTS,
    .unit = "TFLOP/s",
    .ceiling_name = CUBLAS,
    .forbidden_calls = policy_stream_stage_rules,
    /* Each stage's .reference is the reference solution's speed on it, in
     * TFLOP/s at 4096^3 (handouts/4-gemm.md). */
    .reference_gpu = "NVIDIA H200",
    .floor_throughput = 0.05, /* TFLOP/s: the naive stage 0 at 4096^3, on a slow GPU */
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
    .witness = &gemm_witness,
};
