/* green.c: the green context behind --sms (green.h). The sequence is the
 * driver's (CUDA Driver API, "Green Contexts"): the device's SM resource
 * (cuDeviceGetDevResource), one group of N SMs split off it
 * (cuDevSmResourceSplitByCount), a descriptor (cuDevResourceGenerateDesc),
 * the green context (cuGreenCtxCreate), and the CUcontext made from it
 * (cuCtxFromGreenCtx) set current (cuCtxSetCurrent).
 *
 * Streams: a stream made with cudaStreamCreate (or cuStreamCreate) while
 * that CUcontext is current belongs to the green context (the driver's
 * documentation of cuStreamGetGreenCtx and cuStreamGetCtx says so), and so
 * does the NULL stream; so the grader's stream, a lab's own streams (lab 5)
 * and the libraries' streams all run on the N SMs. The documentation names
 * two ways work may reach more SMs than provisioned, never fewer: MPS with
 * CUDA_MPS_ACTIVE_THREAD_PERCENTAGE, and on compute capability 9.x a
 * loaded module that uses dynamic parallelism (2 more SMs, shared). */
#define _GNU_SOURCE
#include "green.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

int green_check(int want, int total, int min_size, int align, char *err, size_t errn)
{
    if (align < 1)
        align = 1;
    if (min_size < 1)
        min_size = 1;
    int lo = want / align * align; /* the nearest counts the driver can give */
    int hi = (want + align - 1) / align * align;
    int top = total / align * align;
    if (lo < min_size)
        lo = 0;
    if (hi < min_size)
        hi = (min_size + align - 1) / align * align;
    if (hi > top)
        hi = 0;
    if (want <= top && want == hi && want >= min_size)
        return 0;
    if (want > total)
        snprintf(err, errn, "--sms %d: this GPU has %d SMs; try --sms %d or fewer (a T4 has 40)",
                 want, total, top);
    else if (lo && hi && lo != hi)
        snprintf(err, errn,
                 "--sms %d: this GPU gives a green context its SMs in groups of %d, at least %d; "
                 "try --sms %d or --sms %d",
                 want, align, min_size, lo, hi);
    else
        snprintf(err, errn,
                 "--sms %d: this GPU gives a green context its SMs in groups of %d, at least %d "
                 "and at most %d; try --sms %d",
                 want, align, min_size, top, lo ? lo : hi ? hi : top);
    return GREEN_REFUSED;
}

#if defined(__has_include)
#if __has_include(<cuda.h>)
#include <cuda.h>
#endif
#endif

#if defined(CUDA_VERSION) && CUDA_VERSION >= 12040

typedef CUresult (*init_fn)(unsigned);
typedef CUresult (*device_get_fn)(CUdevice *, int);
typedef CUresult (*get_resource_fn)(CUdevice, CUdevResource *, CUdevResourceType);
typedef CUresult (*split_fn)(CUdevResource *, unsigned *, const CUdevResource *, CUdevResource *,
                             unsigned, unsigned);
typedef CUresult (*desc_fn)(CUdevResourceDesc *, CUdevResource *, unsigned);
typedef CUresult (*green_create_fn)(CUgreenCtx *, CUdevResourceDesc, CUdevice, unsigned);
typedef CUresult (*from_green_fn)(CUcontext *, CUgreenCtx);
typedef CUresult (*set_current_fn)(CUcontext);
typedef CUresult (*error_name_fn)(CUresult, const char **);
typedef CUresult (*get_current_fn)(CUcontext *);
typedef CUresult (*stream_green_fn)(CUstream, CUgreenCtx *);

/* What green_enter made, for green_verify. */
static void *made_lib;
static CUgreenCtx made_green;
static CUcontext made_ctx;

/* "cuGreenCtxCreate failed: CUDA_ERROR_..." */
static int failed(void *lib, const char *call, CUresult r, char *err, size_t errn)
{
    const char *name = NULL;
    error_name_fn error_name = (error_name_fn)dlsym(lib, "cuGetErrorName");
    if (!error_name || error_name(r, &name) != CUDA_SUCCESS || !name)
        name = "an unknown error";
    snprintf(err, errn, "%s failed: %s (%d)", call, name, (int)r);
    return GREEN_UNAVAILABLE;
}

int green_enter(int sms, char *err, size_t errn)
{
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(err, errn, "no NVIDIA driver is installed on this machine (libcuda.so.1 not found)");
        return GREEN_UNAVAILABLE;
    }
    init_fn init = (init_fn)dlsym(lib, "cuInit");
    device_get_fn device_get = (device_get_fn)dlsym(lib, "cuDeviceGet");
    get_resource_fn get_resource = (get_resource_fn)dlsym(lib, "cuDeviceGetDevResource");
    split_fn split = (split_fn)dlsym(lib, "cuDevSmResourceSplitByCount");
    desc_fn make_desc = (desc_fn)dlsym(lib, "cuDevResourceGenerateDesc");
    green_create_fn create = (green_create_fn)dlsym(lib, "cuGreenCtxCreate");
    from_green_fn from_green = (from_green_fn)dlsym(lib, "cuCtxFromGreenCtx");
    set_current_fn set_current = (set_current_fn)dlsym(lib, "cuCtxSetCurrent");
    if (!init || !device_get || !set_current || !get_resource || !split || !make_desc ||
        !create || !from_green) {
        snprintf(err, errn,
                 "--sms is not available with this NVIDIA driver: green contexts need a driver "
                 "for CUDA 12.4 or newer (grade without --sms, or update the driver)");
        return GREEN_UNAVAILABLE;
    }
    CUresult r;
    CUdevice dev;
    if ((r = init(0)) != CUDA_SUCCESS)
        return failed(lib, "cuInit", r, err, errn);
    if ((r = device_get(&dev, 0)) != CUDA_SUCCESS)
        return failed(lib, "cuDeviceGet", r, err, errn);
    CUdevResource all, group;
    memset(&all, 0, sizeof all);
    memset(&group, 0, sizeof group);
    if ((r = get_resource(dev, &all, CU_DEV_RESOURCE_TYPE_SM)) != CUDA_SUCCESS)
        return failed(lib, "cuDeviceGetDevResource", r, err, errn);
    /* Headers before CUDA 13 have no minimum or alignment fields, and an
     * older driver may leave them 0: then only the count the split gives
     * can say. */
    int min_size = 0, align = 0;
#if CUDA_VERSION >= 13000
    min_size = (int)all.sm.minSmPartitionSize;
    align = (int)all.sm.smCoscheduledAlignment;
#endif
    int rc = green_check(sms, (int)all.sm.smCount, min_size, align, err, errn);
    if (rc != 0)
        return rc;
    /* One group of at least `sms` SMs: the driver rounds the count up to its
     * granularity (on compute capability 9.0 and newer groups of 8, at least
     * 8; on 8.x multiples of 2, at least 4; on 7.x multiples of 2), which is
     * why a count it would round is refused above and checked again here. */
    unsigned groups = 1;
    if ((r = split(&group, &groups, &all, NULL, 0, (unsigned)sms)) != CUDA_SUCCESS)
        return failed(lib, "cuDevSmResourceSplitByCount", r, err, errn);
    if (groups < 1 || (int)group.sm.smCount != sms) {
        snprintf(err, errn,
                 "--sms %d: this GPU can give a green context %u SMs, not %d; try --sms %u",
                 sms, groups < 1 ? 0u : group.sm.smCount, sms, groups < 1 ? 0u : group.sm.smCount);
        return GREEN_REFUSED;
    }
    CUdevResourceDesc desc;
    CUgreenCtx green;
    CUcontext ctx;
    if ((r = make_desc(&desc, &group, 1)) != CUDA_SUCCESS)
        return failed(lib, "cuDevResourceGenerateDesc", r, err, errn);
    if ((r = create(&green, desc, dev, CU_GREEN_CTX_DEFAULT_STREAM)) != CUDA_SUCCESS)
        return failed(lib, "cuGreenCtxCreate", r, err, errn);
    if ((r = from_green(&ctx, green)) != CUDA_SUCCESS)
        return failed(lib, "cuCtxFromGreenCtx", r, err, errn);
    if ((r = set_current(ctx)) != CUDA_SUCCESS)
        return failed(lib, "cuCtxSetCurrent", r, err, errn);
    made_lib = lib;
    made_green = green;
    made_ctx = ctx;
    return 0; /* the context lives as long as the process: one test per child */
}

int green_verify(void *stream, char *err, size_t errn)
{
    if (!made_lib) {
        snprintf(err, errn, "no green context was made");
        return -1;
    }
    get_current_fn get_current = (get_current_fn)dlsym(made_lib, "cuCtxGetCurrent");
    stream_green_fn stream_green = (stream_green_fn)dlsym(made_lib, "cuStreamGetGreenCtx");
    CUcontext cur = NULL;
    if (!get_current || get_current(&cur) != CUDA_SUCCESS || cur != made_ctx) {
        snprintf(err, errn, "the green context is no longer the current context");
        return -1;
    }
    CUgreenCtx owner = NULL;
    if (stream_green && stream_green((CUstream)stream, &owner) == CUDA_SUCCESS &&
        owner != made_green) {
        snprintf(err, errn, "the grader's stream does not belong to the green context");
        return -1;
    }
    return 0;
}

#else

int green_enter(int sms, char *err, size_t errn)
{
    (void)sms;
    snprintf(err, errn,
             "--sms is not available: the grader was built with a CUDA Toolkit older than 12.4, "
             "which has no green contexts (grade without --sms, or build with CUDA 12.4 or newer)");
    return GREEN_UNAVAILABLE;
}

int green_verify(void *stream, char *err, size_t errn)
{
    (void)stream;
    snprintf(err, errn, "no green context was made");
    return -1;
}

#endif
