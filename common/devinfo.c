#include "devinfo.h"

#include <stdio.h>
#include <string.h>

cudaError_t devinfo_query(devinfo *d, int device)
{
    memset(d, 0, sizeof *d);
    cudaError_t err = cudaGetDeviceCount(&d->count);
    if (err != cudaSuccess)
        return err;
    if (d->count == 0)
        return cudaErrorNoDevice;
    struct cudaDeviceProp p;
    err = cudaGetDeviceProperties(&p, device);
    if (err != cudaSuccess)
        return err;
    snprintf(d->name, sizeof d->name, "%s", p.name);
    d->cc_major = p.major;
    d->cc_minor = p.minor;
    d->sms = p.multiProcessorCount;
    d->l2_bytes = p.l2CacheSize;
    d->max_threads_per_block = p.maxThreadsPerBlock;
    d->max_smem_per_block = (int)p.sharedMemPerBlock;
    d->max_smem_per_block_optin = (int)p.sharedMemPerBlockOptin;
    d->total_mem = p.totalGlobalMem;
    cudaDeviceGetAttribute(&d->watchdog, cudaDevAttrKernelExecTimeout, device);
    cudaDriverGetVersion(&d->driver_version);
    cudaRuntimeGetVersion(&d->runtime_version);
    return cudaSuccess;
}

const char *devinfo_label(const devinfo *d, const char *unknown, char *buf, size_t n)
{
    if (!d || !d->name[0])
        snprintf(buf, n, "%s", unknown);
    else if (d->sms_used > 0)
        snprintf(buf, n, "%s (%d of %d SMs, --sms)", d->name, d->sms_used, d->sms);
    else
        snprintf(buf, n, "%s", d->name);
    return buf;
}

void devinfo_format(const devinfo *d, char *buf, size_t n)
{
    snprintf(buf, n,
             "%s, compute capability %d.%d, %d SMs, %d MB L2, %.0f GB, driver %d.%d, "
             "runtime %d.%d, %s",
             d->name, d->cc_major, d->cc_minor, d->sms, d->l2_bytes >> 20,
             (double)d->total_mem / 1e9, d->driver_version / 1000,
             (d->driver_version % 1000) / 10, d->runtime_version / 1000,
             (d->runtime_version % 1000) / 10,
             d->watchdog ? "display watchdog ON (long kernels may be killed)"
                         : "no display watchdog");
    size_t len = strlen(buf);
    if (d->sms_used > 0 && len < n)
        snprintf(buf + len, n - len, "; graded on %d of the GPU's %d SMs (green context)",
                 d->sms_used, d->sms);
}
