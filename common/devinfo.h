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
} devinfo;

/* Fills *d for the given device (calls CUDA). */
cudaError_t devinfo_query(devinfo *d, int device);
/* One line: "NVIDIA H200, compute capability 9.0, 132 SMs, 60 MB L2, 140 GB,
 * driver 13.0, runtime 13.0, no display watchdog". Pure host code. */
void devinfo_format(const devinfo *d, char *buf, size_t n);

#endif
