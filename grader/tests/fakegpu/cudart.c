/* cudart.c: a CUDA runtime whose GPU is the host, so that the grader's
 * decisions can be tested on a machine without one (grader/tests/check_fakegpu.c).
 * Built as build/tests/fakegpu/libcudart.so.<N> with the real runtime's soname
 * and symbol version; the grader binds to it through LD_LIBRARY_PATH.
 *
 * Device memory is host memory: cudaMalloc is an aligned malloc, copies and
 * memsets are memcpy and memset, done at once; streams and events are plain
 * handles. Stage libraries written in C (grader/tests/fakegpu/labN.c) do their
 * work on the pointers they are given and say how long a GPU would have taken
 * with fakegpu_spend(): events read a clock that is the host's clock plus
 * every time spent so far, so a stage's event time is what it declared (plus
 * the host's own time), and speed verdicts follow from the declarations.
 * fakegpu_fail makes the next launch fail, or the next synchronise and every
 * call after it (a sticky error), as a broken kernel would. */
#define _GNU_SOURCE
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>
#include <time.h>

#include "fakegpu.h"

static double spent_ms;
static cudaError_t pending, sticky;
static int faulting; /* a kernel is running into an illegal address: sticky at the next sync */

static cudaError_t sync_point(void)
{
    if (faulting)
        sticky = cudaErrorIllegalAddress;
    return sticky;
}

static double host_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

void fakegpu_spend(double ms)
{
    spent_ms += ms;
}

void fakegpu_fail(int launch, int sync)
{
    if (launch)
        pending = cudaErrorInvalidConfiguration;
    if (sync)
        faulting = 1;
}

/* ---- device ---------------------------------------------------------------- */
/* FAKEGPU_STARTS_BY_WRITING=PATH: like a driver that must write a file to
 * start (the real one names its threads in /proc/self/task), this GPU is
 * not there (cudaErrorOperatingSystem) unless PATH can be opened for
 * writing. */
cudaError_t cudaGetDeviceCount(int *count)
{
    const char *must = getenv("FAKEGPU_STARTS_BY_WRITING");
    if (must && *must) {
        FILE *f = fopen(must, "a");
        if (!f)
            return cudaErrorOperatingSystem;
        fclose(f);
    }
    *count = 1;
    return cudaSuccess;
}

cudaError_t cudaGetDevice(int *device)
{
    *device = 0;
    return cudaSuccess;
}

/* Like the real driver, starting the device starts a thread of its own
 * (here one that only waits): code that ran first in a grading child would
 * find more than one thread (runner.c's child_files says so). */
static void *driver_thread(void *arg)
{
    (void)arg;
    for (;;)
        pause();
    return NULL;
}

cudaError_t cudaSetDevice(int device)
{
    static int started;
    if (!started) {
        pthread_t t;
        started = pthread_create(&t, NULL, driver_thread, NULL) == 0;
    }
    return device == 0 ? cudaSuccess : cudaErrorInvalidDevice;
}

/* The compute capability it claims: 9.0, or FAKEGPU_CC ("75" for 7.5), so
 * that the stages a GPU cannot run are shown NOT AVAILABLE without one. */
static void fake_cc(int *major, int *minor)
{
    const char *v = getenv("FAKEGPU_CC");
    int cc = v && *v ? atoi(v) : 90;
    *major = cc / 10;
    *minor = cc % 10;
}

/* The SMs it claims: an H200's 132, or FAKEGPU_SMS, for the thresholds that
 * follow the SM count. */
static int fake_sms(void)
{
    const char *v = getenv("FAKEGPU_SMS");
    return v && atoi(v) > 0 ? atoi(v) : 132;
}

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *p, int device)
{
    if (device != 0)
        return cudaErrorInvalidDevice;
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "Fake GPU (host memory)");
    fake_cc(&p->major, &p->minor);
    p->multiProcessorCount = fake_sms();
    p->l2CacheSize = 1 << 20;
    p->maxThreadsPerBlock = 1024;
    p->sharedMemPerBlock = 48 << 10;
    p->sharedMemPerBlockOptin = 227 << 10;
    p->totalGlobalMem = (size_t)16 << 30;
    p->warpSize = 32;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device)
{
    (void)device;
    switch (attr) {
    case cudaDevAttrL2CacheSize:
        *value = 1 << 20;
        break;
    case cudaDevAttrMultiProcessorCount:
        *value = fake_sms();
        break;
    case cudaDevAttrComputeCapabilityMajor: {
        int minor;
        fake_cc(value, &minor);
        break;
    }
    case cudaDevAttrComputeCapabilityMinor: {
        int major;
        fake_cc(&major, value);
        break;
    }
    case cudaDevAttrMaxThreadsPerBlock:
        *value = 1024;
        break;
    case cudaDevAttrWarpSize:
        *value = 32;
        break;
    case cudaDevAttrCanUseHostPointerForRegisteredMem: /* host memory is this GPU's */
        *value = !getenv("FAKEGPU_NO_HOST_POINTERS");
        break;
    default:
        *value = 0;
    }
    return cudaSuccess;
}

cudaError_t cudaDriverGetVersion(int *v)
{
    *v = CUDART_VERSION;
    return cudaSuccess;
}

cudaError_t cudaRuntimeGetVersion(int *v)
{
    *v = CUDART_VERSION;
    return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize(void)
{
    return sync_point();
}

cudaError_t cudaGetLastError(void)
{
    cudaError_t e = pending ? pending : sticky;
    pending = cudaSuccess;
    return e;
}

cudaError_t cudaPeekAtLastError(void)
{
    return pending ? pending : sticky;
}

const char *cudaGetErrorName(cudaError_t err)
{
    switch (err) {
    case cudaSuccess:
        return "cudaSuccess";
    case cudaErrorInvalidConfiguration:
        return "cudaErrorInvalidConfiguration";
    case cudaErrorIllegalAddress:
        return "cudaErrorIllegalAddress";
    case cudaErrorMemoryAllocation:
        return "cudaErrorMemoryAllocation";
    default:
        return "cudaErrorUnknown";
    }
}

const char *cudaGetErrorString(cudaError_t err)
{
    switch (err) {
    case cudaSuccess:
        return "no error";
    case cudaErrorInvalidConfiguration:
        return "invalid configuration argument";
    case cudaErrorIllegalAddress:
        return "an illegal memory access was encountered";
    case cudaErrorMemoryAllocation:
        return "out of memory";
    default:
        return "unknown error";
    }
}

cudaError_t cudaFuncGetName(const char **name, const void *func)
{
    (void)func;
    *name = "fake_kernel";
    return cudaSuccess;
}

cudaError_t cudaCtxResetPersistingL2Cache(void)
{
    return cudaSuccess;
}

/* ---- memory -------------------------------------------------------------------- */
cudaError_t cudaMalloc(void **p, size_t bytes)
{
    *p = NULL;
    if (posix_memalign(p, 256, bytes ? bytes : 1) != 0)
        return pending = cudaErrorMemoryAllocation;
    return cudaSuccess;
}

cudaError_t cudaFree(void *p)
{
    free(p);
    return cudaSuccess;
}

cudaError_t cudaMallocHost(void **p, size_t bytes)
{
    return cudaMalloc(p, bytes);
}

/* No other process shares this GPU: the timing witness (grader/witness.h)
 * finds no interprocess events and the speed tests are timed without it. */
cudaError_t cudaIpcGetEventHandle(cudaIpcEventHandle_t *h, cudaEvent_t e)
{
    (void)h, (void)e;
    return cudaErrorNotSupported;
}

cudaError_t cudaIpcOpenEventHandle(cudaEvent_t *e, cudaIpcEventHandle_t h)
{
    (void)e, (void)h;
    return cudaErrorNotSupported;
}

cudaError_t cudaIpcGetMemHandle(cudaIpcMemHandle_t *h, void *p)
{
    (void)h, (void)p;
    return cudaErrorNotSupported;
}

cudaError_t cudaIpcOpenMemHandle(void **p, cudaIpcMemHandle_t h, unsigned flags)
{
    (void)p, (void)h, (void)flags;
    return cudaErrorNotSupported;
}

cudaError_t cudaIpcCloseMemHandle(void *p)
{
    (void)p;
    return cudaErrorNotSupported;
}

cudaError_t cudaHostAlloc(void **p, size_t bytes, unsigned flags)
{
    (void)flags;
    return cudaMalloc(p, bytes);
}

cudaError_t cudaFreeHost(void *p)
{
    free(p);
    return cudaSuccess;
}

cudaError_t cudaHostRegister(void *p, size_t bytes, unsigned flags)
{
    (void)p, (void)bytes, (void)flags;
    return cudaSuccess; /* host memory is the fake GPU's memory */
}

cudaError_t cudaHostUnregister(void *p)
{
    (void)p;
    return cudaSuccess;
}

cudaError_t cudaHostGetDevicePointer(void **d, void *h, unsigned flags)
{
    (void)flags;
    *d = h;
    return cudaSuccess;
}

/* A device-to-device copy costs FAKEGPU_COPY_MS. */
cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind)
{
    if (sticky)
        return sticky;
    memmove(dst, src, bytes);
    if (kind == cudaMemcpyDeviceToDevice)
        fakegpu_spend(FAKEGPU_COPY_MS(bytes));
    return cudaSuccess;
}

cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                         size_t height, enum cudaMemcpyKind kind)
{
    for (size_t r = 0; r < height; r++) {
        cudaError_t e = cudaMemcpy((char *)dst + r * dpitch, (const char *)src + r * spitch, width,
                                   kind);
        if (e != cudaSuccess)
            return e;
    }
    return cudaSuccess;
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind,
                            cudaStream_t s)
{
    (void)s;
    return cudaMemcpy(dst, src, bytes, kind);
}

cudaError_t cudaMemset(void *p, int v, size_t bytes)
{
    if (sticky)
        return sticky;
    memset(p, v, bytes);
    return cudaSuccess;
}

cudaError_t cudaMemsetAsync(void *p, int v, size_t bytes, cudaStream_t s)
{
    (void)s;
    return cudaMemset(p, v, bytes);
}

/* ---- streams and events ------------------------------------------------------ */
static void *new_handle(size_t bytes)
{
    return calloc(1, bytes);
}

cudaError_t cudaStreamCreate(cudaStream_t *s)
{
    *s = new_handle(16);
    return cudaSuccess;
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned flags)
{
    (void)flags;
    return cudaStreamCreate(s);
}

cudaError_t cudaStreamDestroy(cudaStream_t s)
{
    free(s);
    return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t s)
{
    (void)s;
    return sync_point();
}

/* Nothing is ever captured into a graph here. */
cudaError_t cudaStreamIsCapturing(cudaStream_t s, enum cudaStreamCaptureStatus *status)
{
    (void)s;
    *status = cudaStreamCaptureStatusNone;
    return cudaSuccess;
}

cudaError_t cudaStreamSetAttribute(cudaStream_t s, cudaStreamAttrID attr,
                                   const cudaStreamAttrValue *v)
{
    (void)s, (void)attr, (void)v;
    return cudaSuccess;
}

cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned flags)
{
    (void)s, (void)e, (void)flags;
    return cudaSuccess;
}

cudaError_t cudaEventCreate(cudaEvent_t *e)
{
    *e = new_handle(sizeof(double));
    return cudaSuccess;
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned flags)
{
    (void)flags;
    return cudaEventCreate(e);
}

cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s)
{
    (void)s;
    *(double *)(void *)e = host_ms() + spent_ms;
    return cudaSuccess;
}

cudaError_t cudaEventSynchronize(cudaEvent_t e)
{
    (void)e;
    return sync_point();
}

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b)
{
    *ms = (float)(*(double *)(void *)b - *(double *)(void *)a);
    return sticky;
}

cudaError_t cudaEventDestroy(cudaEvent_t e)
{
    free(e);
    return cudaSuccess;
}

/* The driver's tensor-map maker (lab 7): the map holds the matrix's address,
 * which the C stages (lab7.c) do not need; its arguments are checked as the
 * driver checks them. */
static CUresult encode_tiled(CUtensorMap *map, CUtensorMapDataType type, cuuint32_t rank,
                             void *addr, const cuuint64_t *dims, const cuuint64_t *strides,
                             const cuuint32_t *box, const cuuint32_t *steps,
                             CUtensorMapInterleave il, CUtensorMapSwizzle sw,
                             CUtensorMapL2promotion l2, CUtensorMapFloatOOBfill oob)
{
    (void)type, (void)dims, (void)steps, (void)il, (void)sw, (void)l2, (void)oob;
    if (rank < 1 || rank > 5 || ((uintptr_t)addr & 15) != 0 || strides[0] % 16 != 0 ||
        box[0] > 256)
        return CUDA_ERROR_INVALID_VALUE;
    memset(map, 0, sizeof *map);
    memcpy(map, &addr, sizeof addr);
    return CUDA_SUCCESS;
}

/* No driver behind this runtime but the tensor-map maker: green contexts
 * (--sms) are refused. */
cudaError_t cudaGetDriverEntryPointByVersion(const char *symbol, void **fn, unsigned version,
                                             unsigned long long flags,
                                             enum cudaDriverEntryPointQueryResult *status)
{
    (void)version, (void)flags;
    if (strcmp(symbol, "cuTensorMapEncodeTiled") == 0) {
        CUresult (*f)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *, const cuuint64_t *,
                      const cuuint64_t *, const cuuint32_t *, const cuuint32_t *,
                      CUtensorMapInterleave, CUtensorMapSwizzle, CUtensorMapL2promotion,
                      CUtensorMapFloatOOBfill) = encode_tiled;
        memcpy(fn, &f, sizeof f);
        if (status)
            *status = cudaDriverEntryPointSuccess;
        return cudaSuccess;
    }
    *fn = NULL;
    if (status)
        *status = cudaDriverEntryPointSymbolNotFound;
    return cudaErrorNotSupported;
}
