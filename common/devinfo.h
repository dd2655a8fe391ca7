/* devinfo.h: what the grader reports about the GPU before grading. */
#ifndef CUDA_LABS_DEVINFO_H
#define CUDA_LABS_DEVINFO_H

#include <stddef.h>
#include <cuda_runtime_api.h>

typedef struct devinfo {
    int count;               /* devices visible */
    char name[256];
    int cc_major, cc_minor;
    int sms;
    int l2_bytes;
    int max_threads_per_block;
    int max_smem_per_block;       /* without opting in */
    int max_smem_per_block_optin; /* with cudaFuncSetAttribute */
    int watchdog;                 /* a display watchdog limits kernel run time */
    int driver_version, runtime_version; /* e.g. 13000 */
    size_t total_mem;
    int sms_used; /* --sms: graded on this many of the `sms` SMs (a green
                     context); 0: on the whole GPU. Set by the grader. */
} devinfo;

/* Fills *d for the given device (calls CUDA). */
cudaError_t devinfo_query(devinfo *d, int device);
/* One line: "NVIDIA H200, compute capability 9.0, 132 SMs, 60 MB L2, 140 GB,
 * driver 13.0, runtime 13.0, no display watchdog", and with sms_used set
 * "...; graded on 40 of the GPU's 132 SMs (green context)". Pure host code. */
void devinfo_format(const devinfo *d, char *buf, size_t n);
/* The GPU's name where a report names it, with the SMs of --sms when set:
 * "NVIDIA H200", or "NVIDIA H200 (40 of 132 SMs, --sms)"; `unknown` when d
 * is NULL or has no name. Returns buf. Pure host code. */
const char *devinfo_label(const devinfo *d, const char *unknown, char *buf, size_t n);

#endif
