/* fake_libcuda.c: a stand-in for libcuda.so.1 with just the driver calls of
 * --sms (grader/green.c), for check_green.c on a machine without a GPU. It
 * pretends to be an H200 as the driver describes it to green contexts (132
 * SMs, groups of 8, at least 8) and writes each call it gets to a log the
 * test reads. Built twice: as is, and with FAKE_CUDA_OLD a driver older than
 * CUDA 12.4 (no green contexts). The test loads it by its path; green.c's
 * dlopen("libcuda.so.1") then finds it by its soname. */
#include <cuda.h>
#include <stdio.h>
#include <string.h>

const char *fake_cuda_log(void);
static char log_text[1024];

static void note(const char *what)
{
    size_t len = strlen(log_text);
    snprintf(log_text + len, sizeof log_text - len, "%s%s", len ? " " : "", what);
}

const char *fake_cuda_log(void)
{
    return log_text;
}

#define FAKE_SMS 132
#define FAKE_GROUP 8

static int ctx_of_green; /* the fake green context's CUcontext is this address */
static CUcontext current;

CUresult CUDAAPI cuInit(unsigned int flags)
{
    (void)flags;
    note("cuInit");
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGet(CUdevice *device, int ordinal)
{
    note("cuDeviceGet");
    *device = ordinal;
    return ordinal == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

CUresult CUDAAPI cuCtxSetCurrent(CUcontext ctx)
{
    note(ctx == (CUcontext)&ctx_of_green ? "cuCtxSetCurrent(green)" : "cuCtxSetCurrent(other)");
    current = ctx;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxGetCurrent(CUcontext *ctx)
{
    *ctx = current;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuGetErrorName(CUresult error, const char **name)
{
    *name = error == CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION
                ? "CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION"
                : "CUDA_ERROR_UNKNOWN";
    return CUDA_SUCCESS;
}

#ifndef FAKE_CUDA_OLD

static int green_made; /* the fake green context is this address */

CUresult CUDAAPI cuDeviceGetDevResource(CUdevice device, CUdevResource *resource,
                                        CUdevResourceType type)
{
    (void)device;
    note("cuDeviceGetDevResource");
    if (type != CU_DEV_RESOURCE_TYPE_SM)
        return CUDA_ERROR_INVALID_RESOURCE_TYPE;
    memset(resource, 0, sizeof *resource);
    resource->type = CU_DEV_RESOURCE_TYPE_SM;
    resource->sm.smCount = FAKE_SMS;
    resource->sm.minSmPartitionSize = FAKE_GROUP;
    resource->sm.smCoscheduledAlignment = FAKE_GROUP;
    return CUDA_SUCCESS;
}

/* As the driver documents it: the count rounded up to the granularity. */
CUresult CUDAAPI cuDevSmResourceSplitByCount(CUdevResource *result, unsigned int *nbGroups,
                                             const CUdevResource *input, CUdevResource *remaining,
                                             unsigned int useFlags, unsigned int minCount)
{
    (void)remaining;
    char what[80];
    snprintf(what, sizeof what, "cuDevSmResourceSplitByCount(%u,flags=%u)", minCount, useFlags);
    note(what);
    unsigned got = (minCount + FAKE_GROUP - 1) / FAKE_GROUP * FAKE_GROUP;
    if (got < FAKE_GROUP)
        got = FAKE_GROUP;
    if (got > input->sm.smCount)
        return CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION;
    memset(result, 0, sizeof *result);
    result->type = CU_DEV_RESOURCE_TYPE_SM;
    result->sm.smCount = got;
    *nbGroups = 1;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDevResourceGenerateDesc(CUdevResourceDesc *desc, CUdevResource *resources,
                                           unsigned int n)
{
    char what[80];
    snprintf(what, sizeof what, "cuDevResourceGenerateDesc(%u SMs)",
             n == 1 ? resources[0].sm.smCount : 0);
    note(what);
    *desc = (CUdevResourceDesc)resources;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuGreenCtxCreate(CUgreenCtx *green, CUdevResourceDesc desc, CUdevice dev,
                                  unsigned int flags)
{
    (void)desc;
    (void)dev;
    note(flags == CU_GREEN_CTX_DEFAULT_STREAM ? "cuGreenCtxCreate(default stream)"
                                              : "cuGreenCtxCreate(other flags)");
    *green = (CUgreenCtx)&green_made;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxFromGreenCtx(CUcontext *ctx, CUgreenCtx green)
{
    note("cuCtxFromGreenCtx");
    *ctx = green == (CUgreenCtx)&green_made ? (CUcontext)&ctx_of_green : NULL;
    return CUDA_SUCCESS;
}

/* A stream passed as 1 is the green context's; any other is not. */
CUresult CUDAAPI cuStreamGetGreenCtx(CUstream stream, CUgreenCtx *green)
{
    *green = stream == (CUstream)1 ? (CUgreenCtx)&green_made : NULL;
    return CUDA_SUCCESS;
}

#endif
