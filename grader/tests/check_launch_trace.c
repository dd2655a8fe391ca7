#include <string.h>
/* The launch trace sees the configuration of a lab library's <<<...>>>
 * launches: here stage 1 of the solution, called directly (without a GPU
 * the launch itself fails, after the configuration was recorded; with one
 * it runs, on buffers of its own). */
#include <dlfcn.h>

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

Suite *make_launch_trace_suite(void)
{
    Suite *s = suite_create("launch_trace");
    TCase *tc = tcase_create("launch_trace");
    tcase_add_test(tc, records_grid_and_block);
    suite_add_tcase(s, tc);
    return s;
}
