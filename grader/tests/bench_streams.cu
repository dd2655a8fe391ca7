/* bench_streams.cu: lab 5's reference solution, every stage timed host to
 * host (wall clock around run, after an untimed setup and one untimed run),
 * its output checked against a double-precision reference, next to the
 * bounds the grader will use: pinned bandwidth each way and both ways at
 * once, the kernel alone, and from them the serial and the ideal overlap
 * times (grader/labs/streams_lab.c). Lab 5 is not open yet: this is where its
 * reference is measured first.
 * make bench (GPU needed); build/bench_streams [log2 n] [chunks] [reps].
 * build/bench_streams degree [log2 n] [times]: the heavy job's degree as the
 * grader picks it (grader/labs/streams.c), by the grader's own ceiling
 * library (build/ceilings/lab5.so), that many times, and nothing else. */
#include <chrono>
#include <dlfcn.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

extern "C" {
#include "../labs/streams_lab.h"
}
#include "../../solutions/5-streams/streams.cu"
#include "bench_timing.cuh"

enum host_kind { PAGEABLE, PINNED, MAPPED };

struct stage_entry {
    const char *name;
    host_kind kind;
    bool heavy;
    streams_setup_fn setup;
    streams_run_fn run;
    streams_teardown_fn teardown;
};

static const stage_entry stages[] = {
    {"0 pageable, synchronous (given)", PAGEABLE, false, pageable_setup, pageable_run, pageable_teardown},
    {"1 pinned, one stream", PINNED, false, pinned_setup, pinned_run, pinned_teardown},
    {"2 chunks over streams", PINNED, false, overlap_setup, overlap_run, overlap_teardown},
    {"3 zero-copy (mapped)", MAPPED, false, zero_copy_setup, zero_copy_run, zero_copy_teardown},
    {"4 heavy, one stream (given)", PINNED, true, heavy_serial_setup, heavy_serial_run, heavy_serial_teardown},
    {"5 heavy, over streams", PINNED, true, heavy_overlap_setup, heavy_overlap_run, heavy_overlap_teardown},
};

/* The indices checked: all of them for SAXPY; for the heavy job (thousands
 * of multiply-adds each, in double on one core) both ends, every 613th, and
 * 64 on each side of every chunk boundary. */
static std::vector<size_t> checked_indices(size_t n, bool heavy, int chunks)
{
    std::vector<size_t> idx;
    if (!heavy) {
        for (size_t i = 0; i < n; i++)
            idx.push_back(i);
        return idx;
    }
    for (size_t i = 0; i < n; i += 613)
        idx.push_back(i);
    size_t per = (n + chunks - 1) / chunks;
    for (int c = 0; c <= chunks; c++)
        for (size_t d = 0; d < 128; d++) {
            size_t i = (size_t)c * per + d;
            if (i >= 64 && i - 64 < n)
                idx.push_back(i - 64);
        }
    for (size_t i = 0; i < 4096 && i < n; i++) {
        idx.push_back(i);
        idx.push_back(n - 1 - i);
    }
    return idx;
}

/* Outputs outside the tolerance among idx (a double-precision Horner
 * reference); *worst gets the largest error. */
static size_t count_wrong(const streams_job *job, const std::vector<size_t> &idx, double *worst)
{
    size_t wrong = 0;
    *worst = 0;
    for (size_t i : idx) {
        double p = job->c[job->degree];
        for (int k = job->degree - 1; k >= 0; k--)
            p = p * job->x[i] + job->c[k];
        double exact = job->a * p + job->y[i], err = fabs((double)job->out[i] - exact);
        if (!(err <= 4e-7 * (2 * job->degree + 4) * (fabs(exact) + 2.0)))
            wrong++;
        if (err > *worst)
            *worst = err;
    }
    return wrong;
}

static double now_ms()
{
    return std::chrono::duration<double, std::milli>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

static float *host_alloc(size_t n, host_kind kind)
{
    void *p = nullptr;
    if (kind == PAGEABLE)
        return static_cast<float *>(malloc(n * sizeof(float)));
    cudaError_t e = cudaHostAlloc(&p, n * sizeof(float),
                                  kind == MAPPED ? cudaHostAllocMapped : cudaHostAllocDefault);
    return e == cudaSuccess ? static_cast<float *>(p) : nullptr;
}

static void host_free(float *p, host_kind kind)
{
    if (kind == PAGEABLE)
        free(p);
    else
        cudaFreeHost(p);
}

/* GB/s of one large copy, or of the two directions at once (both = 1:
 * counts the bytes of both). */
static double copy_gbps(float *h_a, float *h_b, float *d_a, float *d_b, size_t bytes, int dir,
                        int reps)
{
    cudaStream_t s0, s1;
    cudaStreamCreate(&s0);
    cudaStreamCreate(&s1);
    double best = 1e30;
    for (int r = 0; r < reps + 1; r++) {
        double t0 = now_ms();
        if (dir != 1)
            cudaMemcpyAsync(d_a, h_a, bytes, cudaMemcpyHostToDevice, s0);
        if (dir != 0)
            cudaMemcpyAsync(h_b, d_b, bytes, cudaMemcpyDeviceToHost, s1);
        cudaDeviceSynchronize();
        double t = now_ms() - t0;
        if (r > 0 && t < best)
            best = t;
    }
    cudaStreamDestroy(s0);
    cudaStreamDestroy(s1);
    return (dir == 2 ? 2.0 : 1.0) * bytes / (best * 1e-3) / 1e9;
}

/* The kernel alone on device buffers, ms (best of reps). */
static double kernel_ms(const streams_job *job, float *d_x, float *d_y, float *d_out, int reps)
{
    cudaMemcpyToSymbol(coeff, job->c, (job->degree + 1) * sizeof(float));
    double best = 1e30;
    for (int r = 0; r < reps + 1; r++) {
        double t0 = now_ms();
        poly_kernel<<<grid_for(job->n), THREADS>>>(d_x, d_y, d_out, job->n, job->a, job->degree);
        cudaDeviceSynchronize();
        double t = now_ms() - t0;
        if (r > 0 && t < best)
            best = t;
    }
    return best;
}

/* The heavy job's coefficients, as the grader's make_coefficients makes them. */
static void heavy_coefficients(float *c)
{
    for (int k = 0; k <= STREAMS_MAX_DEGREE; k++)
        c[k] = (k % 2 ? -1.0f : 1.0f) / (float)(k + 1);
}

/* The degree the grader picks, `times` times over: the copies alone and
 * the kernel at degree 256 (best of 3 each, by the ceiling library), then
 * 256 copies / kernel, rounded to a multiple of 64. */
static int grader_degree(int log2n, int times)
{
    void *lib = dlopen("build/ceilings/lab5.so", RTLD_NOW | RTLD_LOCAL);
    auto create = lib ? (int (*)(void **, size_t, float, const float *))dlsym(lib, "ceiling_streams_create") : nullptr;
    auto time_of = lib ? (double (*)(void *, int, int, int))dlsym(lib, "ceiling_streams_time") : nullptr;
    auto destroy = lib ? (void (*)(void *))dlsym(lib, "ceiling_streams_destroy") : nullptr;
    if (!create || !time_of || !destroy) {
        printf("cannot load build/ceilings/lab5.so (%s): make ceilings\n", dlerror());
        return 1;
    }
    static float c_heavy[STREAMS_MAX_DEGREE + 1];
    heavy_coefficients(c_heavy);
    void *h = nullptr;
    if (create(&h, (size_t)1 << log2n, 2.5f, c_heavy) != 0) {
        printf("the ceiling library could not set up n = 2^%d\n", log2n);
        return 1;
    }
    for (int t = 0; t < times; t++) {
        double copies = time_of(h, 0, 0, 3), k256 = time_of(h, 1, 256, 3);
        double raw = 256.0 * copies / k256;
        int d = (int)(raw / 64.0 + 0.5) * 64;
        printf("degree, n = 2^%d: copies %.3f ms, kernel at degree 256 %.3f ms, %.0f before "
               "rounding, %d after\n",
               log2n, copies, k256, raw, d < 64 ? 64 : d > STREAMS_MAX_DEGREE ? STREAMS_MAX_DEGREE : d);
    }
    destroy(h);
    return 0;
}

int main(int argc, char **argv)
{
    if (bench_no_gpu("bench_streams"))
        return 77;
    if (argc > 1 && strcmp(argv[1], "degree") == 0)
        return grader_degree(argc > 2 ? atoi(argv[2]) : 25, argc > 3 ? atoi(argv[3]) : 3);
    int log2n = argc > 1 ? atoi(argv[1]) : 26;
    int chunks = argc > 2 ? atoi(argv[2]) : 8;
    int reps = argc > 3 ? atoi(argv[3]) : 5;
    size_t n = (size_t)1 << log2n, bytes = n * sizeof(float);
    printf("n = 2^%d (%zu MiB per array), %d chunks, best of %d runs\n", log2n, bytes >> 20,
           chunks, reps);

    /* The bounds' ingredients, measured with pinned buffers of our own. */
    float *h_a = host_alloc(n, PINNED), *h_b = host_alloc(n, PINNED);
    float *d_x, *d_y, *d_out;
    if (!h_a || !h_b || cudaMalloc(&d_x, bytes) || cudaMalloc(&d_y, bytes) ||
        cudaMalloc(&d_out, bytes)) {
        printf("out of memory\n");
        return 1;
    }
    memset(h_a, 0, bytes);
    memset(h_b, 0, bytes);
    double h2d = copy_gbps(h_a, h_b, d_x, d_out, bytes, 0, reps);
    double d2h = copy_gbps(h_a, h_b, d_x, d_out, bytes, 1, reps);
    double both = copy_gbps(h_a, h_b, d_x, d_out, bytes, 2, reps);
    printf("pinned: host to device %.1f GB/s, device to host %.1f GB/s, both at once %.1f GB/s\n",
           h2d, d2h, both);
    host_free(h_a, PINNED);
    host_free(h_b, PINNED);

    /* SAXPY, and a heavy polynomial whose kernel takes about as long as the copies. */
    static float c_saxpy[2] = {0.0f, 1.0f};
    static float c_heavy[STREAMS_MAX_DEGREE + 1];
    heavy_coefficients(c_heavy);
    streams_job saxpy = {n, 2.5f, 1, c_saxpy, chunks, nullptr, nullptr, nullptr};
    streams_job heavy = saxpy;
    heavy.c = c_heavy;
    heavy.degree = 256;
    double copies_ms = streams_serial_ms(2.0 * bytes, (double)bytes, 0.0, h2d, d2h);
    double k256 = kernel_ms(&heavy, d_x, d_y, d_out, reps);
    int degree = (int)(256 * copies_ms / k256);
    heavy.degree = degree < 1 ? 1 : degree > STREAMS_MAX_DEGREE ? STREAMS_MAX_DEGREE : degree;
    double k_saxpy = kernel_ms(&saxpy, d_x, d_y, d_out, reps);
    double k_heavy = kernel_ms(&heavy, d_x, d_y, d_out, reps);
    printf("copies alone %.2f ms; kernel alone: SAXPY %.3f ms, heavy (degree %d) %.2f ms\n",
           copies_ms, k_saxpy, heavy.degree, k_heavy);
    cudaFree(d_x);
    cudaFree(d_y);
    cudaFree(d_out);

    std::vector<float> hx(n), hy(n);
    srand(5);
    for (size_t i = 0; i < n; i++) {
        hx[i] = 2.0f * rand() / (float)RAND_MAX - 1.0f;
        hy[i] = 2.0f * rand() / (float)RAND_MAX - 1.0f;
    }
    double times[6] = {0};
    int failures = 0;
    for (int si = 0; si < 6; si++) {
        const stage_entry &st = stages[si];
        streams_job job = st.heavy ? heavy : saxpy;
        float *x = host_alloc(n, st.kind), *y = host_alloc(n, st.kind), *out = host_alloc(n, st.kind);
        if (!x || !y || !out) {
            printf("  %-34s host memory short\n", st.name);
            return 1;
        }
        memcpy(x, hx.data(), bytes);
        memcpy(y, hy.data(), bytes);
        job.x = x, job.y = y, job.out = out;
        double worst = 0;
        void *state = nullptr;
        lab_status ls = st.setup(&job, &state);
        double best = 1e30;
        for (int r = 0; ls == LAB_OK && r < reps + 1; r++) {
            memset(out, 0xff, bytes); /* NaN */
            double t0 = now_ms();
            ls = st.run(&job, state);
            double t = now_ms() - t0;
            if (r > 0 && t < best)
                best = t;
        }
        size_t wrong = ls == LAB_OK ? count_wrong(&job, checked_indices(n, st.heavy, chunks), &worst) : 0;
        if (state)
            st.teardown(state);
        host_free(x, st.kind);
        host_free(y, st.kind);
        host_free(out, st.kind);
        if (ls != LAB_OK || wrong) {
            printf("  %-34s FAILED (status %d, %zu wrong, %s)\n", st.name, (int)ls, wrong,
                   cudaGetErrorString(cudaGetLastError()));
            failures++;
            continue;
        }
        times[si] = best;
        double gbps = 3.0 * bytes / (best * 1e-3) / 1e9;
        double kms = st.heavy ? k_heavy : k_saxpy;
        double serial = streams_serial_ms(2.0 * bytes, (double)bytes, kms, h2d, d2h);
        double bound = streams_overlap_bound_ms(2.0 * bytes, (double)bytes, kms, h2d, d2h, both);
        printf("  %-34s %8.2f ms  %6.1f GB/s end to end  serial bound %5.1f%%  overlap bound %5.1f%%",
               st.name, best, gbps, 100 * serial / best, 100 * bound / best);
        if (si == 2 || si == 3 || si == 5)
            printf("  %.2fx over stage %d", times[si == 3 ? 2 : si - 1] / best, si == 3 ? 2 : si - 1);
        printf("  (worst error %.2g)\n", worst);
    }
    cudaError_t e = cudaDeviceSynchronize();
    printf("%s, %d failures\n", cudaGetErrorString(e), failures);
    return e != cudaSuccess || failures;
}
