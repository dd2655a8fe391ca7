/* fake_cudart.c: a CUDA runtime that pretends to be one GPU of a chosen
 * architecture and runs nothing, for `make arch-check` on machines without a
 * GPU. Built as build/arch/fakert/libcudart.so.<N> with the real runtime's
 * soname and symbol version, so that a lab library loaded by the launch
 * recorder (launches.c) binds to it instead of CUDA's: the lab's host code
 * runs for real (its choice of block size, grid and dynamic shared memory,
 * including choices it makes from cudaDeviceGetAttribute), every launch is
 * written down, and no kernel ever runs. Device memory is a range of
 * made-up addresses that is never dereferenced; copies and memsets do
 * nothing.
 *
 * What it cannot see: launches whose shape depends on data the kernels
 * would have computed (none in the labs: their shapes follow from sizes and
 * device attributes), and calls it does not define: those end the recorder
 * with the dynamic linker's "undefined symbol" (it loads libraries lazily),
 * which the test reports. The names with two underscores are the runtime's
 * own (crt/host_runtime.h). */
#define _GNU_SOURCE
#include "fake_cudart.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

static const arch_limits *arch;
static const kernel_res *res;
static int n_res;
static FILE *out;
static int stage = -1;

void fakert_configure(const arch_limits *a, const kernel_res *k, int n, FILE *o)
{
    arch = a;
    res = k;
    n_res = n;
    out = o;
}

void fakert_stage(int s)
{
    stage = s;
}

/* ---- registration: host stub -> kernel name ---------------------------------- */
#define MAX_FUNCS 512
static struct {
    const void *host;
    const char *name;
    long long optin; /* MaxDynamicSharedMemorySize set for it; -1: never */
} funcs[MAX_FUNCS];
static int n_funcs;

static int func_index(const void *host)
{
    for (int i = 0; i < n_funcs; i++)
        if (funcs[i].host == host)
            return i;
    return -1;
}

static const char *func_name(const void *host)
{
    int i = func_index(host);
    return i >= 0 ? funcs[i].name : "(unregistered)";
}

static const kernel_res *func_res(const void *host)
{
    const char *name = func_name(host);
    for (int i = 0; i < n_res; i++)
        if (strcmp(res[i].name, name) == 0)
            return &res[i];
    return NULL;
}

static void *fatbin_handle[1];

void **__cudaRegisterFatBinary(void *fat);
void **__cudaRegisterFatBinary(void *fat)
{
    (void)fat;
    return fatbin_handle;
}

void __cudaRegisterFatBinaryEnd(void **h);
void __cudaRegisterFatBinaryEnd(void **h)
{
    (void)h;
}

void __cudaUnregisterFatBinary(void **h);
void __cudaUnregisterFatBinary(void **h)
{
    (void)h;
}

void __cudaRegisterFunction(void **h, const char *host, char *dev, const char *name, int limit,
                            uint3 *tid, uint3 *bid, dim3 *bdim, dim3 *gdim, int *wsize);
void __cudaRegisterFunction(void **h, const char *host, char *dev, const char *name, int limit,
                            uint3 *tid, uint3 *bid, dim3 *bdim, dim3 *gdim, int *wsize)
{
    (void)h, (void)dev, (void)limit, (void)tid, (void)bid, (void)bdim, (void)gdim, (void)wsize;
    if (n_funcs < MAX_FUNCS && func_index(host) < 0) {
        funcs[n_funcs].host = host;
        funcs[n_funcs].name = name;
        funcs[n_funcs++].optin = -1;
    }
}

void __cudaRegisterVar(void **h, char *host, char *dev, const char *name, int ext, size_t size,
                       int constant, int global);
void __cudaRegisterVar(void **h, char *host, char *dev, const char *name, int ext, size_t size,
                       int constant, int global)
{
    (void)h, (void)host, (void)dev, (void)name, (void)ext, (void)size, (void)constant,
        (void)global;
}

/* ---- launches --------------------------------------------------------------- */
static dim3 pushed_grid, pushed_block;
static size_t pushed_shared;
static void *pushed_stream;

unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shared, void *stream);
unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shared, void *stream)
{
    pushed_grid = grid;
    pushed_block = block;
    pushed_shared = shared;
    pushed_stream = stream;
    return 0;
}

cudaError_t __cudaPopCallConfiguration(dim3 *grid, dim3 *block, size_t *shared, void *stream);
cudaError_t __cudaPopCallConfiguration(dim3 *grid, dim3 *block, size_t *shared, void *stream)
{
    *grid = pushed_grid;
    *block = pushed_block;
    *shared = pushed_shared;
    *(void **)stream = pushed_stream;
    return cudaSuccess;
}

cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *fn);
cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *fn)
{
    *kernel = (cudaKernel_t)(uintptr_t)fn;
    return cudaSuccess;
}

/* One line per launch: launch STAGE KERNEL GX GY GZ BX BY BZ DYN OPTIN. The
 * launch is refused (cudaErrorInvalidConfiguration) where a GPU would refuse
 * it, so the stage sees what it would see. */
static cudaError_t record(const void *fn, dim3 grid, dim3 block, size_t shared)
{
    int i = func_index(fn);
    long long optin = i >= 0 ? funcs[i].optin : -1;
    if (out)
        fprintf(out, "launch %d %s %u %u %u %u %u %u %zu %lld\n", stage, func_name(fn), grid.x,
                grid.y, grid.z, block.x, block.y, block.z, shared, optin);
    const kernel_res *k = func_res(fn);
    arch_launch l = {{grid.x, grid.y, grid.z}, {block.x, block.y, block.z}, shared, optin};
    char why[256];
    if (arch && k && arch_check_launch(arch, k, &l, why, sizeof why) != 0)
        return cudaErrorInvalidConfiguration;
    return cudaSuccess;
}

cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block, void **args,
                               size_t shared, cudaStream_t stream);
cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block, void **args,
                               size_t shared, cudaStream_t stream)
{
    (void)args, (void)stream;
    return record((const void *)kernel, grid, block, shared);
}

cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 grid, dim3 block, void **args,
                                    size_t shared, cudaStream_t stream);
cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 grid, dim3 block, void **args,
                                    size_t shared, cudaStream_t stream)
{
    (void)args, (void)stream;
    return record((const void *)kernel, grid, block, shared);
}

cudaError_t cudaLaunchKernel(const void *func, dim3 grid, dim3 block, void **args, size_t shared,
                             cudaStream_t stream)
{
    (void)args, (void)stream;
    return record(func, grid, block, shared);
}

cudaError_t cudaFuncSetAttribute(const void *func, enum cudaFuncAttribute attr, int value)
{
    int i = func_index(func);
    if (i < 0)
        return cudaErrorInvalidDeviceFunction;
    if (attr == cudaFuncAttributeMaxDynamicSharedMemorySize) {
        const kernel_res *k = func_res(func);
        int stat = k ? k->smem : 0;
        if (arch && value + stat > arch->smem_per_block) { /* refused, as by the runtime */
            if (out)
                fprintf(out, "refused %d %s %d bytes of dynamic shared memory (+ %d static): "
                             "sm_%d allows %d per block\n",
                        stage, funcs[i].name, value, stat, arch->sm, arch->smem_per_block);
            return cudaErrorInvalidValue;
        }
        funcs[i].optin = value;
    }
    return cudaSuccess;
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *blocks, const void *func,
                                                                  int threads, size_t dyn,
                                                                  unsigned flags)
{
    (void)flags;
    const kernel_res *k = func_res(func);
    if (!arch || !k)
        return cudaErrorInvalidDeviceFunction;
    *blocks = arch_occupancy(arch, k, threads, dyn);
    return cudaSuccess;
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, const void *func,
                                                          int threads, size_t dyn)
{
    return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(blocks, func, threads, dyn, 0);
}

/* ---- the device ---------------------------------------------------------------- */
cudaError_t cudaGetDevice(int *device)
{
    *device = 0;
    return cudaSuccess;
}

cudaError_t cudaSetDevice(int device)
{
    return device == 0 ? cudaSuccess : cudaErrorInvalidDevice;
}

cudaError_t cudaGetDeviceCount(int *count)
{
    *count = 1;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device)
{
    if (!arch || device != 0)
        return cudaErrorInvalidDevice;
    switch (attr) {
    case cudaDevAttrComputeCapabilityMajor: *value = arch->major; break;
    case cudaDevAttrComputeCapabilityMinor: *value = arch->minor; break;
    case cudaDevAttrMultiProcessorCount: *value = arch->sms; break;
    case cudaDevAttrMaxThreadsPerBlock: *value = ARCH_THREADS_PER_BLOCK; break;
    case cudaDevAttrMaxThreadsPerMultiProcessor: *value = arch->threads_per_sm; break;
    case cudaDevAttrMaxBlocksPerMultiprocessor: *value = arch->blocks_per_sm; break;
    case cudaDevAttrMaxSharedMemoryPerBlock: *value = ARCH_SMEM_STATIC; break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: *value = arch->smem_per_block; break;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor: *value = arch->smem_per_sm; break;
    case cudaDevAttrMaxRegistersPerBlock: *value = ARCH_REGS_PER_BLOCK; break;
    case cudaDevAttrMaxRegistersPerMultiprocessor: *value = ARCH_REGS_PER_SM; break;
    case cudaDevAttrWarpSize: *value = 32; break;
    default:
        /* Not modelled: say so, so the test can name it, and fail the call. */
        if (out)
            fprintf(out, "error stage %d asked for device attribute %d, which the fake runtime "
                         "does not model\n",
                    stage, (int)attr);
        return cudaErrorInvalidValue;
    }
    return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize(void)
{
    return cudaSuccess;
}

cudaError_t cudaGetLastError(void)
{
    return cudaSuccess;
}

cudaError_t cudaPeekAtLastError(void)
{
    return cudaSuccess;
}

const char *cudaGetErrorString(cudaError_t err)
{
    return err == cudaSuccess ? "no error" : "error (fake runtime)";
}

/* ---- memory: made-up device addresses, never dereferenced --------------------- */
static uintptr_t next_device = (uintptr_t)1 << 40;

cudaError_t cudaMalloc(void **p, size_t bytes)
{
    *p = (void *)next_device;
    next_device += (bytes + 0xffff) & ~(uintptr_t)0xffff; /* 64 KiB aligned, like cudaMalloc's 256 B+ */
    return cudaSuccess;
}

cudaError_t cudaFree(void *p)
{
    (void)p;
    return cudaSuccess;
}

cudaError_t cudaMallocHost(void **p, size_t bytes)
{
    *p = malloc(bytes ? bytes : 1);
    return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}

cudaError_t cudaHostAlloc(void **p, size_t bytes, unsigned flags)
{
    (void)flags;
    return cudaMallocHost(p, bytes);
}

cudaError_t cudaFreeHost(void *p)
{
    free(p);
    return cudaSuccess;
}

cudaError_t cudaHostGetDevicePointer(void **d, void *h, unsigned flags)
{
    (void)flags;
    *d = h;
    return cudaSuccess;
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind)
{
    (void)dst, (void)src, (void)bytes, (void)kind;
    return cudaSuccess;
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind,
                            cudaStream_t s)
{
    (void)dst, (void)src, (void)bytes, (void)kind, (void)s;
    return cudaSuccess;
}

cudaError_t cudaMemcpyToSymbol(const void *sym, const void *src, size_t bytes, size_t offset,
                               enum cudaMemcpyKind kind)
{
    (void)sym, (void)src, (void)bytes, (void)offset, (void)kind;
    return cudaSuccess;
}

cudaError_t cudaMemset(void *p, int v, size_t bytes)
{
    (void)p, (void)v, (void)bytes;
    return cudaSuccess;
}

cudaError_t cudaMemsetAsync(void *p, int v, size_t bytes, cudaStream_t s)
{
    (void)p, (void)v, (void)bytes, (void)s;
    return cudaSuccess;
}

/* ---- streams and events: handles only ------------------------------------------- */
static char handles[256];
static int next_handle;

static void *new_handle(void)
{
    return &handles[next_handle++ % (int)sizeof handles];
}

cudaError_t cudaStreamCreate(cudaStream_t *s)
{
    *s = (cudaStream_t)new_handle();
    return cudaSuccess;
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned flags)
{
    (void)flags;
    return cudaStreamCreate(s);
}

cudaError_t cudaStreamDestroy(cudaStream_t s)
{
    (void)s;
    return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t s)
{
    (void)s;
    return cudaSuccess;
}

cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned flags)
{
    (void)s, (void)e, (void)flags;
    return cudaSuccess;
}

cudaError_t cudaEventCreate(cudaEvent_t *e)
{
    *e = (cudaEvent_t)new_handle();
    return cudaSuccess;
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned flags)
{
    (void)flags;
    return cudaEventCreate(e);
}

cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s)
{
    (void)e, (void)s;
    return cudaSuccess;
}

cudaError_t cudaEventSynchronize(cudaEvent_t e)
{
    (void)e;
    return cudaSuccess;
}

cudaError_t cudaEventDestroy(cudaEvent_t e)
{
    (void)e;
    return cudaSuccess;
}
