/* devcheck.cu: the grader's own small kernels for the timed calls (not a
 * ceiling: it lives with them because it is built and loaded the same way,
 * in the grading child). Before each timed call a few input words are
 * changed at random positions (patch_scatter), so no two calls see the same
 * inputs; after it, the input is checked on the GPU against the copy it was
 * loaded from, with the patch allowed for (patch_verify), without reading it
 * back to the host. grader/patch.c calls these; see grader/patch.h. */
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stdint.h>

/* The grader's marker (ceilings.h): one thread waits hold_ns on the GPU's
 * clock. Its name, unmangled, is what CUPTI's list is searched for. */
extern "C" __global__ void cuda_labs_audit_mark(unsigned hold_ns)
{
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    while (t - t0 < hold_ns);
}

extern "C" int devcheck_mark(cudaStream_t s, unsigned hold_ns)
{
    cuda_labs_audit_mark<<<1, 1, 0, s>>>(hold_ns);
    return (int)cudaGetLastError();
}

/* The timing witness's fresh inputs (grader/witness.h): word i of buf is
 * drawn from seed and i alone, new for every call, and has the distribution
 * of the lab's own first input set (of its uniform part in labs 4 and 7,
 * without the scaled and probe rows; and the calls the witness does not
 * time carry patches: instructors.md says what that tells a stage)
 * (ceilings.h, DEVCHECK_FILL_*, checked against these at the end):
 *   UNIFORM: a float lo + (hi - lo) u, u uniform in [0, 1) in steps of 2^-24
 *            (rng_uniform's rule, common/rng.c);
 *   INTS:    an int uniform in [lo, hi];
 *   BF16:    two BF16 values, each UNIFORM's float rounded to BF16 (to
 *            nearest, ties to even), the first in the low half (lab 7's
 *            inputs: lab 4's rounded). */
#define FILL_UNIFORM 0
#define FILL_INTS 1
#define FILL_BF16 2

__device__ uint64_t splitmix(uint64_t seed, uint64_t i)
{
    uint64_t z = seed + (i + 1) * 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

__global__ void witness_fill_kernel(uint32_t *buf, uint64_t n, uint64_t seed, int kind, float lo,
                                    float hi, int ilo, uint32_t span)
{
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (uint64_t)gridDim.x * blockDim.x) {
        uint64_t z = splitmix(seed, i);
        uint32_t m = (uint32_t)(z & 0xffffff);
        if (kind == FILL_INTS) {
            buf[i] = (uint32_t)(ilo + (int)(uint32_t)((z >> 32) % span));
            continue;
        }
        float v = __fadd_rn(lo, __fmul_rn(hi - lo, (float)m * 5.9604644775390625e-8f));
        v = v < hi ? v : lo;
        if (kind == FILL_BF16) {
            uint32_t m2 = (uint32_t)((z >> 32) & 0xffffff);
            float v2 = __fadd_rn(lo, __fmul_rn(hi - lo, (float)m2 * 5.9604644775390625e-8f));
            v2 = v2 < hi ? v2 : lo;
            buf[i] = (uint32_t)__bfloat16_as_ushort(__float2bfloat16_rn(v)) |
                     (uint32_t)__bfloat16_as_ushort(__float2bfloat16_rn(v2)) << 16;
            continue;
        }
        buf[i] = __float_as_uint(v);
    }
}

static unsigned grid_for(uint64_t n)
{
    int sms = 0, dev = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    uint64_t want = (n + 255) / 256;
    unsigned blocks = (unsigned)(want < (uint64_t)sms * 8 ? want : (uint64_t)sms * 8);
    return blocks ? blocks : 1;
}

extern "C" int devcheck_fill(void *buf, uint64_t n_words, uint64_t seed, int kind, double lo,
                             double hi, cudaStream_t s)
{
    if (kind == FILL_INTS && !(hi >= lo && hi - lo < 4294967295.0))
        return (int)cudaErrorInvalidValue;
    uint32_t span = kind == FILL_INTS ? (uint32_t)(hi - lo) + 1u : 1u;
    witness_fill_kernel<<<grid_for(n_words), 256, 0, s>>>((uint32_t *)buf, n_words, seed, kind,
                                                        (float)lo, (float)hi, (int)lo, span);
    return (int)cudaGetLastError();
}

/* buf[idx[k]] = val[k] for every k < p. */
__global__ void patch_scatter_kernel(uint32_t *buf, const uint64_t *idx, const uint32_t *val,
                                     int p)
{
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < p)
        buf[idx[k]] = val[k];
}

/* Is word i one of the p sorted patch positions, holding its patched word? */
__device__ bool patched_as_expected(uint64_t i, uint32_t word, const uint64_t *idx,
                                    const uint32_t *val, int p)
{
    int lo = 0, hi = p - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (idx[mid] == i)
            return val[mid] == word;
        if (idx[mid] < i)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return false;
}

/* res[0]: how many words of now differ from orig other than as the patch
 * says; res[1]: the first of them (starts at ~0). Then every patch position
 * is checked for its word, so a changed patched word counts too. */
__global__ void patch_verify_kernel(const uint32_t *now, const uint32_t *orig, uint64_t n,
                                    const uint64_t *idx, const uint32_t *val, int p,
                                    unsigned long long *res)
{
    uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    unsigned long long bad = 0, first = ~0ull;
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        uint32_t w = now[i];
        if (w != orig[i] && !patched_as_expected(i, w, idx, val, p)) {
            bad++;
            if (i < first)
                first = i;
        }
    }
    if (bad) {
        atomicAdd(&res[0], bad);
        atomicMin(&res[1], first);
    }
}

__global__ void patch_positions_kernel(const uint32_t *now, const uint64_t *idx,
                                       const uint32_t *val, int p, unsigned long long *res)
{
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < p && now[idx[k]] != val[k]) {
        atomicAdd(&res[0], 1ull);
        atomicMin(&res[1], (unsigned long long)idx[k]);
    }
}

extern "C" int devcheck_scatter(void *buf, const uint64_t *d_idx, const uint32_t *d_val, int p,
                                cudaStream_t s)
{
    if (p <= 0)
        return 0;
    patch_scatter_kernel<<<(p + 255) / 256, 256, 0, s>>>((uint32_t *)buf, d_idx, d_val, p);
    return (int)cudaGetLastError();
}

/* Queues the check of now against orig (n words) on s; res (device, two
 * words) is reset first. The caller reads res back after s is done. */
extern "C" int devcheck_verify(const void *now, const void *orig, uint64_t n, const uint64_t *d_idx,
                               const uint32_t *d_val, int p, unsigned long long *res,
                               cudaStream_t s)
{
    cudaError_t err = cudaMemsetAsync(res, 0, sizeof(unsigned long long), s);
    if (err == cudaSuccess)
        err = cudaMemsetAsync(res + 1, 0xff, sizeof(unsigned long long), s);
    if (err != cudaSuccess)
        return (int)err;
    int sms = 0, dev = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    uint64_t want = (n + 255) / 256;
    unsigned blocks = (unsigned)(want < (uint64_t)sms * 8 ? want : (uint64_t)sms * 8);
    if (blocks == 0)
        blocks = 1;
    patch_verify_kernel<<<blocks, 256, 0, s>>>((const uint32_t *)now, (const uint32_t *)orig, n,
                                               d_idx, d_val, p, res);
    if (p > 0)
        patch_positions_kernel<<<(p + 255) / 256, 256, 0, s>>>((const uint32_t *)now, d_idx, d_val,
                                                              p, res);
    return (int)cudaGetLastError();
}

/* ---- outputs: compared on the GPU with what the check expects ----
 * The expected word i is expect[i], unless i is one of the sorted override
 * positions opos (then oval), plus, for outputs that accumulate (scans), the
 * sum of the deltas at the sorted positions dpos that lie in [segment start
 * of i, i] (dcum: their inclusive prefix sums, in 32-bit wrapping integer
 * arithmetic). seg == 0: one segment. */
struct expect_desc {
    const uint32_t *expect;
    uint64_t n, seg;
    const uint64_t *opos;
    const uint32_t *oval;
    int no;
    const uint64_t *dpos;
    const uint32_t *dcum;
    int nd;
};

/* The number of sorted positions pos[0..n) that are <= x. */
__device__ int count_le(const uint64_t *pos, int n, uint64_t x)
{
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (pos[mid] <= x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

__device__ uint32_t expected_word(const expect_desc &d, uint64_t i)
{
    uint32_t w = d.expect[i];
    if (d.no > 0) {
        int k = count_le(d.opos, d.no, i);
        if (k > 0 && d.opos[k - 1] == i)
            w = d.oval[k - 1];
    }
    if (d.nd > 0) {
        uint64_t start = d.seg ? i - i % d.seg : 0;
        int hi = count_le(d.dpos, d.nd, i);
        int lo = start ? count_le(d.dpos, d.nd, start - 1) : 0;
        if (hi > lo)
            w += d.dcum[hi - 1] - (lo > 0 ? d.dcum[lo - 1] : 0u);
    }
    return w;
}

__global__ void expect_compare_kernel(const uint32_t *now, expect_desc d, unsigned long long *res)
{
    uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    unsigned long long bad = 0, first = ~0ull;
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < d.n; i += stride)
        if (now[i] != expected_word(d, i)) {
            bad++;
            if (i < first)
                first = i;
        }
    if (bad) {
        atomicAdd(&res[0], bad);
        atomicMin(&res[1], first);
    }
}

/* Queues the comparison of now (n words) with the expected words described
 * above on s; res (device, two words) is reset first: mismatches, first. */
extern "C" int devcheck_compare(const void *now, const void *expect, uint64_t n, uint64_t seg,
                                const uint64_t *opos, const uint32_t *oval, int no,
                                const uint64_t *dpos, const uint32_t *dcum, int nd,
                                unsigned long long *res, cudaStream_t s)
{
    cudaError_t err = cudaMemsetAsync(res, 0, sizeof(unsigned long long), s);
    if (err == cudaSuccess)
        err = cudaMemsetAsync(res + 1, 0xff, sizeof(unsigned long long), s);
    if (err != cudaSuccess)
        return (int)err;
    int sms = 0, dev = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    uint64_t want = (n + 255) / 256;
    unsigned blocks = (unsigned)(want < (uint64_t)sms * 8 ? want : (uint64_t)sms * 8);
    expect_desc d = {(const uint32_t *)expect, n, seg, opos, oval, no, dpos, dcum, nd};
    expect_compare_kernel<<<blocks ? blocks : 1, 256, 0, s>>>((const uint32_t *)now, d, res);
    return (int)cudaGetLastError();
}

/* ---- outputs checked against the inputs on the GPU ----
 * Once the input is known to hold what was loaded (devcheck_verify), these
 * check an output against that input directly: no expected copy at all. */

static int reset(unsigned long long *res, cudaStream_t s)
{
    cudaError_t err = cudaMemsetAsync(res, 0, sizeof(unsigned long long), s);
    if (err == cudaSuccess)
        err = cudaMemsetAsync(res + 1, 0xff, sizeof(unsigned long long), s);
    return (int)err;
}

__device__ void note_bad(unsigned long long bad, unsigned long long first, unsigned long long *res)
{
    if (bad) {
        atomicAdd(&res[0], bad);
        atomicMin(&res[1], first);
    }
}

/* out (cols x rows) is the transpose of in (rows x cols), word for word;
 * copy != 0: out is in. */
__global__ void transpose_check_kernel(const uint32_t *out, const uint32_t *in, uint64_t rows,
                                       uint64_t cols, int copy, unsigned long long *res)
{
    uint64_t n = rows * cols, stride = (uint64_t)gridDim.x * blockDim.x;
    unsigned long long bad = 0, first = ~0ull;
    for (uint64_t o = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; o < n; o += stride) {
        uint64_t src = copy ? o : (o % rows) * cols + o / rows; /* out[c][r] = in[r][c] */
        if (out[o] != in[src]) {
            bad++;
            if (o < first)
                first = o;
        }
    }
    note_bad(bad, first, res);
}

extern "C" int devcheck_transpose(const void *out, const void *in, uint64_t rows, uint64_t cols,
                                  int copy, unsigned long long *res, cudaStream_t s)
{
    int err = reset(res, s);
    if (err)
        return err;
    transpose_check_kernel<<<grid_for(rows * cols), 256, 0, s>>>(
        (const uint32_t *)out, (const uint32_t *)in, rows, cols, copy, res);
    return (int)cudaGetLastError();
}

/* out is the inclusive scan of in (32-bit wrapping integers), restarting
 * every seg elements (0: never): out[i] - out[i-1] == in[i]. */
__global__ void scan_check_kernel(const uint32_t *out, const uint32_t *in, uint64_t n, uint64_t seg,
                                  unsigned long long *res)
{
    uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    unsigned long long bad = 0, first = ~0ull;
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        bool starts = i == 0 || (seg && i % seg == 0);
        uint32_t before = starts ? 0u : out[i - 1];
        if (out[i] - before != in[i]) {
            bad++;
            if (i < first)
                first = i;
        }
    }
    note_bad(bad, first, res);
}

extern "C" int devcheck_scan(const void *out, const void *in, uint64_t n, uint64_t seg,
                             unsigned long long *res, cudaStream_t s)
{
    int err = reset(res, s);
    if (err)
        return err;
    scan_check_kernel<<<grid_for(n), 256, 0, s>>>((const uint32_t *)out, (const uint32_t *)in, n,
                                                  seg, res);
    return (int)cudaGetLastError();
}

/* The exact sum of in (n floats) and the sum of their magnitudes, in double,
 * added to res[0] and res[1] (the caller zeroes them): the timing witness's
 * check of a sum (labs 2 and 3), which reduce_judge then holds the stage's
 * float to. Doubles add up 2^28 floats of this size with an error far below
 * the float tolerance, whatever the order the atomics take. */
__global__ void sum_kernel(const float *in, uint64_t n, double *res)
{
    __shared__ double part[2][256 / 32];
    double s = 0, a = 0;
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (uint64_t)gridDim.x * blockDim.x) {
        double x = in[i];
        s += x;
        a += fabs(x);
    }
    for (int o = 16; o > 0; o /= 2) {
        s += __shfl_down_sync(0xffffffffu, s, o);
        a += __shfl_down_sync(0xffffffffu, a, o);
    }
    if (threadIdx.x % 32 == 0) {
        part[0][threadIdx.x / 32] = s;
        part[1][threadIdx.x / 32] = a;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int w = 1; w < 256 / 32; w++) {
            s += part[0][w];
            a += part[1][w];
        }
        atomicAdd(&res[0], s);
        atomicAdd(&res[1], a);
    }
}

extern "C" int devcheck_sum(const float *in, uint64_t n, double *res, cudaStream_t s)
{
    cudaError_t err = cudaMemsetAsync(res, 0, 2 * sizeof(double), s);
    if (err != cudaSuccess)
        return (int)err;
    sum_kernel<<<grid_for(n), 256, 0, s>>>(in, n, res);
    return (int)cudaGetLastError();
}

/* A compaction (lab 3): out holds the elements of in that are > 0, in their
 * order. Checked in chunks of `chunk` elements (a multiple of 256): first
 * each chunk's kept elements are counted (kept[c]); the caller turns the
 * counts into each chunk's first place in out (first[c], an exclusive scan);
 * then a block a chunk finds each kept element's place and compares. */
__global__ void compact_count_kernel(const int *in, uint64_t n, uint32_t chunk, uint32_t *kept)
{
    __shared__ uint32_t total;
    if (threadIdx.x == 0)
        total = 0;
    __syncthreads();
    uint64_t c0 = (uint64_t)blockIdx.x * chunk;
    uint32_t k = 0;
    for (uint64_t i = c0 + threadIdx.x; i < n && i < c0 + chunk; i += blockDim.x)
        k += in[i] > 0;
    atomicAdd(&total, k);
    __syncthreads();
    if (threadIdx.x == 0)
        kept[blockIdx.x] = total;
}

/* 256 threads, each with chunk / 256 consecutive elements. */
__global__ void compact_check_kernel(const int *out, const int *in, uint64_t n, uint32_t chunk,
                                     const uint64_t *first, unsigned long long *res)
{
    const uint32_t per = chunk / 256;
    __shared__ uint32_t before[256];
    uint64_t b = (uint64_t)blockIdx.x * chunk + (uint64_t)threadIdx.x * per;
    uint32_t k = 0;
    for (uint32_t j = 0; j < per; j++)
        k += b + j < n && in[b + j] > 0;
    before[threadIdx.x] = k;
    __syncthreads();
    if (threadIdx.x == 0) { /* exclusive scan of 256 counts: plain and short */
        uint32_t run = 0;
        for (int t = 0; t < 256; t++) {
            uint32_t c = before[t];
            before[t] = run;
            run += c;
        }
    }
    __syncthreads();
    uint64_t at = first[blockIdx.x] + before[threadIdx.x];
    unsigned long long bad = 0, where = ~0ull;
    for (uint32_t j = 0; j < per && b + j < n; j++) {
        int x = in[b + j];
        if (x > 0) {
            if (out[at] != x) {
                bad++;
                if (at < where)
                    where = at;
            }
            at++;
        }
    }
    note_bad(bad, where, res);
}

extern "C" int devcheck_compact_count(const int *in, uint64_t n, uint32_t chunk, uint32_t *kept,
                                      cudaStream_t s)
{
    if (chunk == 0 || chunk % 256)
        return (int)cudaErrorInvalidValue;
    uint64_t chunks = (n + chunk - 1) / chunk;
    if (chunks == 0)
        return 0;
    compact_count_kernel<<<(unsigned)chunks, 256, 0, s>>>(in, n, chunk, kept);
    return (int)cudaGetLastError();
}

extern "C" int devcheck_compact_check(const int *out, const int *in, uint64_t n, uint32_t chunk,
                                      const uint64_t *first, unsigned long long *res,
                                      cudaStream_t s)
{
    if (chunk == 0 || chunk % 256)
        return (int)cudaErrorInvalidValue;
    int err = reset(res, s);
    if (err)
        return err;
    uint64_t chunks = (n + chunk - 1) / chunk;
    if (chunks == 0)
        return 0;
    compact_check_kernel<<<(unsigned)chunks, 256, 0, s>>>(out, in, n, chunk, first, res);
    return (int)cudaGetLastError();
}

/* ---- floating-point outputs checked within a tolerance (lab 4) ----
 * got[i][j] (rows x cols floats) passes when it is finite and
 * |got - exact| <= t1 * scale (+ t2 * scale when t2 != 0), the rule of
 * compare_all_within with the GEMM tolerance, in the same order of double
 * operations (no fused multiply-adds), so the GPU and the CPU agree on every
 * element. The expected values come from exact and scale, except in the
 * override rows (each cols values long) and columns (each rows values long),
 * where a patched input changed them: rows first, then columns. */
struct within_desc {
    const float *got;
    const double *exact, *scale;
    uint64_t rows, cols;
    double t1, t2;
    const uint64_t *orow; /* the override rows' numbers */
    const double *orow_exact, *orow_scale;
    int nor;
    const uint64_t *ocol;
    const double *ocol_exact, *ocol_scale;
    int noc;
};

__device__ bool within_ok(const within_desc &d, uint64_t e)
{
    uint64_t i = e / d.cols, j = e % d.cols;
    double x = d.exact[e], sc = d.scale[e];
    for (int k = 0; k < d.nor; k++)
        if (d.orow[k] == i) {
            x = d.orow_exact[k * d.cols + j];
            sc = d.orow_scale[k * d.cols + j];
        }
    for (int k = 0; k < d.noc; k++)
        if (d.ocol[k] == j) {
            x = d.ocol_exact[k * d.rows + i];
            sc = d.ocol_scale[k * d.rows + i];
        }
    float g = d.got[e];
    if (!isfinite(g))
        return false;
    double tol = __dmul_rn(d.t1, sc);
    if (d.t2 != 0.0)
        tol = __dadd_rn(tol, __dmul_rn(d.t2, sc));
    return !(fabs(__dsub_rn((double)g, x)) > tol);
}

__global__ void within_kernel(within_desc d, unsigned long long *res)
{
    uint64_t n = d.rows * d.cols, stride = (uint64_t)gridDim.x * blockDim.x;
    unsigned long long bad = 0, first = ~0ull;
    for (uint64_t e = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; e < n; e += stride)
        if (!within_ok(d, e)) {
            bad++;
            if (e < first)
                first = e;
        }
    note_bad(bad, first, res);
}

extern "C" int devcheck_within(const float *got, const double *exact, const double *scale,
                               uint64_t rows, uint64_t cols, double t1, double t2,
                               const uint64_t *orow, const double *orow_exact,
                               const double *orow_scale, int nor, const uint64_t *ocol,
                               const double *ocol_exact, const double *ocol_scale, int noc,
                               unsigned long long *res, cudaStream_t s)
{
    int err = reset(res, s);
    if (err)
        return err;
    within_desc d = {got,        exact, scale,      rows,       cols, t1,         t2,
                     orow,       orow_exact,        orow_scale, nor,  ocol,       ocol_exact,
                     ocol_scale, noc};
    within_kernel<<<grid_for(rows * cols), 256, 0, s>>>(d, res);
    return (int)cudaGetLastError();
}

/* ---- a GEMM's output checked in whole rows and columns (the timing
 * witness of lab 4) ----
 * C (M x N) against A (M x K) times B (K x N), all row-major floats, in the
 * sampled rows and columns of C alone: each element there is worked out in
 * double, with its scale (the sum of |a||b|), and passes when it is finite
 * and within t1 * scale (+ t2 * scale when t2 != 0), the rule of
 * within_ok. A stage cannot know which rows and columns are sampled: they
 * are drawn after its call. */
#define GEMM_COL_CHUNK 2048 /* B's column, a chunk at a time in shared memory */
#define GEMM_PICKS 32       /* DEVCHECK_GEMM_PICKS, checked at the end */

struct gemm_pick {
    uint32_t rows[GEMM_PICKS], cols[GEMM_PICKS];
    int nr, nc;
};

__device__ bool gemm_element_ok(float got, double x, double sc, double t1, double t2)
{
    if (!isfinite(got))
        return false;
    double tol = t1 * sc;
    if (t2 != 0.0)
        tol += t2 * sc;
    return !(fabs((double)got - x) > tol);
}

/* Both sums of a warp's lanes, in lane 0. */
__device__ void warp_sum2(double &x, double &sc)
{
    for (int d = 16; d > 0; d /= 2) {
        x += __shfl_down_sync(0xffffffffu, x, d);
        sc += __shfl_down_sync(0xffffffffu, sc, d);
    }
}

/* Block (r, b): row rows[r] of C, columns b * 256 to b * 256 + 255. */
__global__ void gemm_rows_kernel(const float *C, const float *A, const float *B, uint64_t N,
                                 uint64_t K, double t1, double t2, gemm_pick p,
                                 unsigned long long *res)
{
    uint64_t i = p.rows[blockIdx.x], j = (uint64_t)blockIdx.y * blockDim.x + threadIdx.x;
    if (j >= N)
        return;
    const float *a = A + i * K;
    double x = 0, sc = 0;
    for (uint64_t k = 0; k < K; k++) {
        double ab = (double)a[k] * (double)B[k * N + j];
        x += ab;
        sc += fabs(ab);
    }
    uint64_t e = i * N + j;
    note_bad(!gemm_element_ok(C[e], x, sc, t1, t2), e, res);
}

/* Block (c, b): column cols[c] of C, rows b * 8 to b * 8 + 7, a warp each;
 * the column of B goes through shared memory, a lane takes every 32nd k. */
__global__ void gemm_cols_kernel(const float *C, const float *A, const float *B, uint64_t M,
                                 uint64_t N, uint64_t K, double t1, double t2, gemm_pick p,
                                 unsigned long long *res)
{
    __shared__ float col[GEMM_COL_CHUNK];
    const uint64_t j = p.cols[blockIdx.x];
    const uint64_t i = (uint64_t)blockIdx.y * (blockDim.x / 32) + threadIdx.x / 32;
    const unsigned lane = threadIdx.x % 32;
    double x = 0, sc = 0;
    for (uint64_t k0 = 0; k0 < K; k0 += GEMM_COL_CHUNK) {
        uint64_t len = K - k0 < GEMM_COL_CHUNK ? K - k0 : GEMM_COL_CHUNK;
        __syncthreads();
        for (uint64_t k = threadIdx.x; k < len; k += blockDim.x)
            col[k] = B[(k0 + k) * N + j];
        __syncthreads();
        if (i < M)
            for (uint64_t k = lane; k < len; k += 32) {
                double ab = (double)A[i * K + k0 + k] * (double)col[k];
                x += ab;
                sc += fabs(ab);
            }
    }
    warp_sum2(x, sc);
    if (lane == 0 && i < M) {
        uint64_t e = i * N + j;
        note_bad(!gemm_element_ok(C[e], x, sc, t1, t2), e, res);
    }
}

/* The picks of C (M x N) into *p, and res reset on s: 0, or an error (for
 * picks outside C too). */
static int gemm_start(uint64_t M, uint64_t N, const uint32_t *rows, int nr, const uint32_t *cols,
                      int nc, gemm_pick *p, unsigned long long *res, cudaStream_t s)
{
    if (nr < 0 || nc < 0 || nr > GEMM_PICKS || nc > GEMM_PICKS)
        return (int)cudaErrorInvalidValue;
    *p = gemm_pick{};
    p->nr = nr;
    p->nc = nc;
    for (int r = 0; r < nr; r++)
        if ((p->rows[r] = rows[r]) >= M)
            return (int)cudaErrorInvalidValue;
    for (int c = 0; c < nc; c++)
        if ((p->cols[c] = cols[c]) >= N)
            return (int)cudaErrorInvalidValue;
    return reset(res, s);
}

extern "C" int devcheck_gemm(const float *C, const float *A, const float *B, uint64_t M,
                             uint64_t N, uint64_t K, double t1, double t2, const uint32_t *rows,
                             int nr, const uint32_t *cols, int nc, unsigned long long *res,
                             cudaStream_t s)
{
    gemm_pick p;
    int err = gemm_start(M, N, rows, nr, cols, nc, &p, res, s);
    if (err)
        return err;
    if (nr > 0 && N > 0)
        gemm_rows_kernel<<<dim3((unsigned)nr, (unsigned)((N + 255) / 256)), 256, 0, s>>>(
            C, A, B, N, K, t1, t2, p, res);
    if (nc > 0 && M > 0)
        gemm_cols_kernel<<<dim3((unsigned)nc, (unsigned)((M + 7) / 8)), 256, 0, s>>>(
            C, A, B, M, N, K, t1, t2, p, res);
    return (int)cudaGetLastError();
}

/* ---- a BF16 GEMM's output checked in whole rows and columns (the timing
 * witness of lab 7) ----
 * C (M x N floats, row-major) against A (M x K) times Bt (N x K)
 * transposed, both BF16 and K-major (two elements a word; K even), in the
 * sampled rows and columns of C: each element there in double, a warp to an
 * element, with its scale, within t1 * scale (+ t2 * scale), as above. */
__global__ void gemm_bf16_kernel(const float *C, const uint32_t *A, const uint32_t *Bt,
                                 uint64_t M, uint64_t N, uint64_t K, double t1, double t2,
                                 gemm_pick p, unsigned long long *res)
{
    const uint64_t t = (uint64_t)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    const unsigned lane = threadIdx.x % 32;
    uint64_t i, j;
    if ((int)blockIdx.y < p.nr) { /* a row: its column t */
        if (t >= N)
            return;
        i = p.rows[blockIdx.y];
        j = t;
    } else { /* a column: its row t */
        if (t >= M)
            return;
        i = t;
        j = p.cols[blockIdx.y - p.nr];
    }
    const uint32_t *a = A + i * (K / 2), *b = Bt + j * (K / 2);
    double x = 0, sc = 0;
    for (uint64_t w = lane; w < K / 2; w += 32) {
        uint32_t aw = a[w], bw = b[w];
        for (int h = 0; h < 2; h++) {
            double ab = (double)__uint_as_float((aw >> (16 * h)) << 16) *
                        (double)__uint_as_float((bw >> (16 * h)) << 16);
            x += ab;
            sc += fabs(ab);
        }
    }
    warp_sum2(x, sc);
    if (lane == 0) {
        uint64_t e = i * N + j;
        note_bad(!gemm_element_ok(C[e], x, sc, t1, t2), e, res);
    }
}

extern "C" int devcheck_gemm_bf16(const float *C, const void *A, const void *Bt, uint64_t M,
                                  uint64_t N, uint64_t K, double t1, double t2,
                                  const uint32_t *rows, int nr, const uint32_t *cols, int nc,
                                  unsigned long long *res, cudaStream_t s)
{
    if (K % 2 != 0)
        return (int)cudaErrorInvalidValue;
    gemm_pick p;
    int err = gemm_start(M, N, rows, nr, cols, nc, &p, res, s);
    if (err)
        return err;
    const uint64_t line = nr > 0 && N > (nc > 0 ? M : 0) ? N : M;
    if (nr + nc > 0 && line > 0)
        gemm_bf16_kernel<<<dim3((unsigned)((line + 7) / 8), (unsigned)(nr + nc)), 256, 0, s>>>(
            C, (const uint32_t *)A, (const uint32_t *)Bt, M, N, K, t1, t2, p, res);
    return (int)cudaGetLastError();
}

/* ---- a convolution's output checked in whole channels and pixels (the
 * timing witness of lab 6) ----
 * y (N K P Q) against the convolution of x (N C H W) with w (K C R S), with
 * the layer's stride and zero padding, in the sampled output channels (all
 * N P Q outputs of each) and the sampled pixels (all K outputs of each, a
 * pixel being (n, p, q), numbered (n P + p) Q + q). Each output there is
 * worked out in double, a warp to an output, with its scale (the sum of
 * |x||w| over its window), and passes when it is finite and within
 * t1 * scale (gemm_element_ok). Drawn after the call, as lab 4's. */
#define CONV_PICKS 32 /* DEVCHECK_CONV_PICKS, checked at the end */

struct conv_pick {
    int N, C, H, W, K, R, S, stride, pad, P, Q;
    uint32_t chans[CONV_PICKS], pixels[CONV_PICKS];
    int nk, np;
};

/* Block (b, l): line l (a channel, then the pixels), its outputs b * 8 to
 * b * 8 + 7, a warp each; a lane takes every 32nd (c, r, s). */
__global__ void conv_check_kernel(const float *y, const float *x, const float *w, double t1,
                                  conv_pick p, unsigned long long *res)
{
    const uint64_t npq = (uint64_t)p.N * p.P * p.Q;
    const uint64_t t = (uint64_t)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    const unsigned lane = threadIdx.x % 32;
    uint64_t pixel, k;
    if ((int)blockIdx.y < p.nk) { /* a channel: output t of its N P Q */
        if (t >= npq)
            return;
        k = p.chans[blockIdx.y];
        pixel = t;
    } else { /* a pixel: its channel t */
        if (t >= (uint64_t)p.K)
            return;
        k = t;
        pixel = p.pixels[blockIdx.y - p.nk];
    }
    const int n = (int)(pixel / ((uint64_t)p.P * p.Q)), op = (int)(pixel / p.Q % p.P),
              oq = (int)(pixel % p.Q);
    const int rs = p.R * p.S, crs = p.C * rs;
    const float *wk = w + k * (uint64_t)crs;
    double v = 0, sc = 0;
    for (int i = lane; i < crs; i += 32) {
        const int c = i / rs, r = i / p.S % p.R, s = i % p.S;
        const int h = op * p.stride - p.pad + r, col = oq * p.stride - p.pad + s;
        if (h < 0 || h >= p.H || col < 0 || col >= p.W)
            continue;
        double xw = (double)x[(((uint64_t)n * p.C + c) * p.H + h) * p.W + col] * (double)wk[i];
        v += xw;
        sc += fabs(xw);
    }
    warp_sum2(v, sc);
    if (lane == 0) {
        uint64_t e = (((uint64_t)n * p.K + k) * p.P + op) * p.Q + oq;
        note_bad(!gemm_element_ok(y[e], v, sc, t1, 0.0), e, res);
    }
}

extern "C" int devcheck_conv(const float *y, const float *x, const float *w, const int shape[9],
                             double t1, const uint32_t *chans, int nk, const uint32_t *pixels,
                             int np, unsigned long long *res, cudaStream_t s)
{
    conv_pick p = {};
    p.N = shape[0], p.C = shape[1], p.H = shape[2], p.W = shape[3], p.K = shape[4];
    p.R = shape[5], p.S = shape[6], p.stride = shape[7], p.pad = shape[8];
    if (nk < 0 || np < 0 || nk > CONV_PICKS || np > CONV_PICKS || p.N < 1 || p.C < 1 ||
        p.K < 1 || p.R < 1 || p.S < 1 || p.stride < 1 || p.pad < 0 ||
        p.H + 2 * p.pad < p.R || p.W + 2 * p.pad < p.S)
        return (int)cudaErrorInvalidValue;
    p.P = (p.H + 2 * p.pad - p.R) / p.stride + 1;
    p.Q = (p.W + 2 * p.pad - p.S) / p.stride + 1;
    const uint64_t npq = (uint64_t)p.N * p.P * p.Q;
    p.nk = nk;
    p.np = np;
    for (int i = 0; i < nk; i++)
        if ((p.chans[i] = chans[i]) >= (uint32_t)p.K)
            return (int)cudaErrorInvalidValue;
    for (int i = 0; i < np; i++)
        if ((p.pixels[i] = pixels[i]) >= npq)
            return (int)cudaErrorInvalidValue;
    int err = reset(res, s);
    if (err)
        return err;
    const uint64_t line = nk > 0 && npq > (uint64_t)p.K ? npq : (uint64_t)p.K;
    if (nk + np > 0)
        conv_check_kernel<<<dim3((unsigned)((line + 7) / 8), (unsigned)(nk + np)), 256, 0, s>>>(
            y, x, w, t1, p, res);
    return (int)cudaGetLastError();
}

/* Last, after every definition: each function above is checked against its
 * type in ceilings.h (a conflicting redeclaration does not compile). At the
 * top of lab 3's file it changed the code nvcc made (the library grew by
 * 94 KB) and CUB's scan and select ran 18% and 30% slower on the H200, which
 * made the solution IMPOSSIBLE against them; here it changes nothing. */
#include "ceilings.h"
static_assert(FILL_UNIFORM == DEVCHECK_FILL_UNIFORM && FILL_INTS == DEVCHECK_FILL_INTS &&
                  FILL_BF16 == DEVCHECK_FILL_BF16,
              "the fill kinds of ceilings.h");
static_assert(GEMM_PICKS == DEVCHECK_GEMM_PICKS, "the GEMM check's picks of ceilings.h");
static_assert(CONV_PICKS == DEVCHECK_CONV_PICKS, "the convolution check's picks of ceilings.h");
