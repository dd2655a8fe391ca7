/* The launch trace sees the configuration of a lab library's <<<...>>>
 * launches: here stage 1 of the solution, called directly (without a GPU
 * the launch itself fails, after the configuration was recorded; with one
 * it runs, on buffers of its own). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "../../labs/1-transpose/transpose.h"
#include "../launch_trace.h"
#include "tests.h"

START_TEST(records_grid_and_block)
{
    void *lib = dlopen("build/solutions/lab1.so", RTLD_NOW | RTLD_LOCAL);
    ck_assert_msg(lib != NULL, "%s", dlerror());
    void *sym = dlsym(lib, "transpose_naive_read");
    ck_assert_ptr_nonnull(sym);
    transpose_fn fn;
    memcpy(&fn, &sym, sizeof fn);
    launch_trace_reset();
    launch_config lc;
    ck_assert_int_eq(launch_trace_last(&lc), 0);
    int gpus = 0;
    float *in = NULL, *out = NULL;
    if (cudaGetDeviceCount(&gpus) != cudaSuccess)
        gpus = 0;
    if (gpus > 0) {
        ck_assert_int_eq(cudaMalloc((void **)&in, 100 * 200 * sizeof(float)), cudaSuccess);
        ck_assert_int_eq(cudaMalloc((void **)&out, 100 * 200 * sizeof(float)), cudaSuccess);
    }
    cudaGetLastError();
    fn(in, out, 100, 200, 0); /* 200 columns over x, 100 rows over y, blocks of 32 x 8 */
    ck_assert_int_eq(launch_trace_last(&lc), 1);
    ck_assert_uint_eq(lc.grid[0], 7);
    ck_assert_uint_eq(lc.grid[1], 13);
    ck_assert_uint_eq(lc.grid[2], 1);
    ck_assert_uint_eq(lc.block[0], 32);
    ck_assert_uint_eq(lc.block[1], 8);
    ck_assert_uint_eq(lc.shared_bytes, 0);
    /* The launch itself went through the grader's __cudaLaunchKernel too
     * (CUDA 13 stubs call it). With a GPU the kernel is named as its machine
     * code is (mangled); without one it has no handle, so no name either. */
    ck_assert_int_eq(launch_trace_kernel_count(), 1);
    char names[64];
    size_t len = launch_trace_kernels(names, sizeof names);
    if (gpus > 0) {
        ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
        ck_assert_str_eq(names, "_Z17naive_read_kernelPKfPfii");
        ck_assert_uint_eq(len, strlen(names));
        cudaFree(in);
        cudaFree(out);
    } else {
        ck_assert_uint_eq(len, 0);
        ck_assert_str_eq(names, "");
    }
}
END_TEST

/* Stands for a kernel: only its address is passed on (and fails without a GPU). */
static void side_kernel(void) {}

/* The trace sees the stream of every launch, memset and copy while a stage
 * runs; without a GPU the calls fail after the trace saw them. */
START_TEST(sees_other_streams)
{
    /* The calls below pass made-up streams and pointers on: on a machine with
     * a GPU they must fail as they do without one, not reach the driver. This
     * test runs in a child of its own that has not started CUDA yet. */
    setenv("CUDA_VISIBLE_DEVICES", "", 1);
    void *lib = dlopen("build/solutions/lab1.so", RTLD_NOW | RTLD_LOCAL);
    ck_assert_msg(lib != NULL, "%s", dlerror());
    void *sym = dlsym(lib, "transpose_naive_read");
    transpose_fn fn;
    memcpy(&fn, &sym, sizeof fn);
    cudaStream_t given = (cudaStream_t)(uintptr_t)0x5a5a0; /* never used by CUDA: only compared */
    char msg[256];

    /* Not expecting: nothing is held against any stream. */
    launch_trace_reset();
    fn(NULL, NULL, 100, 200, 0);
    ck_assert_int_eq(launch_trace_foreign_stream(msg, sizeof msg), 0);

    /* <<<...>>> on the default stream while the stage had another one. */
    launch_trace_reset();
    launch_trace_expect_stream(1, NULL);
    fn(NULL, NULL, 100, 200, 0);
    ck_assert_int_eq(launch_trace_foreign_stream(msg, sizeof msg), 0); /* 0 was the given one */
    launch_trace_expect_stream(1, (void *)given);
    fn(NULL, NULL, 100, 200, 0);
    ck_assert_int_eq(launch_trace_foreign_stream(msg, sizeof msg), 1);
    ck_assert_msg(strncmp(msg, "a kernel launch", 15) == 0 &&
                      strstr(msg, "on the default stream (0)"),
                  "%s", msg);

    /* The public launch function, memset and copy, on the named streams. */
    launch_trace_reset();
    dim3 one = {1, 1, 1}, warp = {32, 1, 1};
    void *fp;
    void (*k)(void) = side_kernel;
    memcpy(&fp, &k, sizeof fp);
    cudaLaunchKernel(fp, one, warp, NULL, 0, cudaStreamLegacy);
    ck_assert_int_eq(launch_trace_foreign_stream(msg, sizeof msg), 1);
    ck_assert_msg(strncmp(msg, "cudaLaunchKernel", 16) == 0 && strstr(msg, "on cudaStreamLegacy"),
                  "%s", msg);
    launch_trace_reset();
    cudaMemsetAsync(NULL, 0, 4, cudaStreamPerThread);
    ck_assert_int_eq(launch_trace_foreign_stream(msg, sizeof msg), 1);
    ck_assert_str_eq(msg, "cudaMemsetAsync on cudaStreamPerThread");
    launch_trace_reset();
    cudaMemcpyAsync(NULL, NULL, 4, cudaMemcpyDeviceToDevice, (cudaStream_t)(uintptr_t)0x77770);
    ck_assert_int_eq(launch_trace_foreign_stream(msg, sizeof msg), 1);
    ck_assert_str_eq(msg, "cudaMemcpyAsync on a stream the grader did not give it");

    /* The given stream is fine; a reset forgets what was seen. */
    launch_trace_reset();
    fn(NULL, NULL, 100, 200, given);
    cudaMemsetAsync(NULL, 0, 4, given);
    ck_assert_int_eq(launch_trace_foreign_stream(msg, sizeof msg), 0);
    launch_trace_expect_stream(0, NULL);
    cudaMemsetAsync(NULL, 0, 4, cudaStreamPerThread);
    ck_assert_int_eq(launch_trace_foreign_stream(msg, sizeof msg), 0);
    /* The solution's kernels are its own. */
    ck_assert_ptr_null(launch_trace_borrowed(msg, sizeof msg));
}
END_TEST

/* The launch variants the runtime exports besides cudaLaunchKernel: their
 * configuration is recorded and their streams told apart (_ptsz: the
 * per-thread default stream, even when passed as 0). */
cudaError_t cudaLaunchKernel_ptsz(const void *, dim3, dim3, void **, size_t, cudaStream_t);
cudaError_t cudaLaunchCooperativeKernel_ptsz(const void *, dim3, dim3, void **, size_t,
                                             cudaStream_t);
cudaError_t cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t *, const void *, void **);
cudaError_t cudaMemsetAsync_ptsz(void *, int, size_t, cudaStream_t);
cudaError_t cudaMemcpyAsync_ptsz(void *, const void *, size_t, enum cudaMemcpyKind, cudaStream_t);

START_TEST(sees_every_launch_variant)
{
    setenv("CUDA_VISIBLE_DEVICES", "", 1); /* as above: the calls must not reach a GPU */
    cudaStream_t given = (cudaStream_t)(uintptr_t)0x5a5a0;
    void *fp;
    void (*k)(void) = side_kernel;
    memcpy(&fp, &k, sizeof fp);
    char msg[256];
    launch_config lc;
    dim3 one = {1, 1, 1}, warp = {32, 1, 1};

    launch_trace_reset();
    launch_trace_expect_stream(1, given);
    cudaLaunchConfig_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.gridDim = (dim3){2, 3, 1};
    cfg.blockDim = (dim3){64, 2, 1};
    cfg.dynamicSmemBytes = 128;
    cfg.stream = cudaStreamPerThread;
    cudaLaunchKernelExC(&cfg, fp, NULL);
    ck_assert_int_eq(launch_trace_last(&lc), 1);
    ck_assert_uint_eq(lc.grid[0], 2);
    ck_assert_uint_eq(lc.grid[1], 3);
    ck_assert_uint_eq(lc.block[0], 64);
    ck_assert_uint_eq(lc.block[1], 2);
    ck_assert_uint_eq(lc.shared_bytes, 128);
    ck_assert_int_eq(launch_trace_foreign_stream(msg, sizeof msg), 1);
    ck_assert_msg(strncmp(msg, "cudaLaunchKernelExC", 19) == 0 && strstr(msg, "on cudaStreamPerThread"),
                  "%s", msg);

    launch_trace_reset();
    launch_trace_expect_stream(1, given);
    cudaLaunchKernelExC(NULL, fp, NULL); /* no configuration: nothing to record */
    ck_assert_int_eq(launch_trace_last(&lc), 0);
    ck_assert_int_eq(launch_trace_foreign_stream(msg, sizeof msg), 0);
    cfg.stream = 0;
    cudaLaunchKernelExC_ptsz(&cfg, fp, NULL);
    ck_assert_int_eq(launch_trace_foreign_stream(msg, sizeof msg), 1);
    ck_assert_msg(strstr(msg, "on the per-thread default stream") != NULL, "%s", msg);

    const char *names[] = {"cudaLaunchKernel_ptsz", "cudaLaunchCooperativeKernel_ptsz",
                           "cudaLaunchCooperativeKernel on"};
    for (int v = 0; v < 4; v++) {
        launch_trace_reset();
        launch_trace_expect_stream(1, given);
        if (v == 0)
            cudaLaunchKernel_ptsz(fp, one, warp, NULL, 0, 0);
        else if (v == 1)
            cudaLaunchCooperativeKernel_ptsz(fp, one, warp, NULL, 0, 0);
        else if (v == 2)
            cudaLaunchCooperativeKernel(fp, one, warp, NULL, 0, cudaStreamLegacy);
        else
            cudaLaunchKernel_ptsz(fp, one, warp, NULL, 0, given); /* the given stream: fine */
        ck_assert_int_eq(launch_trace_last(&lc), 1);
        ck_assert_uint_eq(lc.block[0], 32);
        int seen = launch_trace_foreign_stream(msg, sizeof msg);
        ck_assert_int_eq(seen, v < 3);
        if (seen)
            ck_assert_msg(strncmp(msg, names[v], strlen(names[v])) == 0 &&
                              strstr(msg, v < 2 ? "on the per-thread default stream"
                                                : "on cudaStreamLegacy"),
                          "%d: %s", v, msg);
    }

    launch_trace_reset();
    launch_trace_expect_stream(1, given);
    cudaMemsetAsync_ptsz(NULL, 0, 4, 0);
    ck_assert_int_eq(launch_trace_foreign_stream(msg, sizeof msg), 1);
    ck_assert_str_eq(msg, "cudaMemsetAsync on the per-thread default stream");
    launch_trace_reset();
    launch_trace_expect_stream(1, given);
    cudaMemcpyAsync_ptsz(NULL, NULL, 4, cudaMemcpyDeviceToDevice, 0);
    ck_assert_int_eq(launch_trace_foreign_stream(msg, sizeof msg), 1);
    ck_assert_str_eq(msg, "cudaMemcpyAsync on the per-thread default stream");
    launch_trace_expect_stream(0, NULL);
}
END_TEST

Suite *make_launch_trace_suite(void)
{
    Suite *s = suite_create("launch_trace");
    TCase *tc = tcase_create("launch_trace");
    tcase_add_test(tc, records_grid_and_block);
    tcase_add_test(tc, sees_other_streams);
    tcase_add_test(tc, sees_every_launch_variant);
    suite_add_tcase(s, tc);
    return s;
}
