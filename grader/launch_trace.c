/* launch_trace.c: every <<<grid, block, shared, stream>>> in a lab library
 * calls the CUDA runtime's __cudaPushCallConfiguration first, and (CUDA 13)
 * __cudaGetKernel once per launch site and __cudaLaunchKernel for the launch
 * itself. The grade executable exports functions of those names
 * (grader/exports.map), which the dynamic linker binds the lab library to
 * ahead of libcudart's; they record what was asked for and hand the call on
 * to libcudart. The names are reserved (two underscores) because they are
 * CUDA's own; the signatures are those of CUDA's crt/device_functions.h. */
#define _GNU_SOURCE
#include "launch_trace.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include <cuda_runtime_api.h>

struct CUstream_st;
typedef unsigned (*push_fn)(dim3, dim3, size_t, struct CUstream_st *);
typedef cudaError_t (*get_kernel_fn)(cudaKernel_t *, const void *);
typedef cudaError_t (*launch_fn)(cudaKernel_t, dim3, dim3, void **, size_t, cudaStream_t);

static launch_config last;
static int launches;

/* Kernel handles and the host functions they stand for (from
 * __cudaGetKernel), and the handles launched since the reset. */
#define MAX_KERNELS 256
static struct {
    cudaKernel_t handle;
    const void *fn;
} known[MAX_KERNELS];
static int n_known;
static cudaKernel_t launched[LAUNCH_TRACE_MAX_NAMES];
static int n_launched;

void launch_trace_reset(void)
{
    launches = 0;
    n_launched = 0;
}

int launch_trace_last(launch_config *out)
{
    if (launches > 0)
        *out = last;
    return launches;
}

static void *real_symbol(const char *name)
{
    return dlsym(RTLD_NEXT, name);
}

unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shared_bytes,
                                     struct CUstream_st *stream);

unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shared_bytes,
                                     struct CUstream_st *stream)
{
    static push_fn real;
    if (!real) {
        void *sym = real_symbol("__cudaPushCallConfiguration");
        memcpy(&real, &sym, sizeof real);
    }
    last = (launch_config){{grid.x, grid.y, grid.z}, {block.x, block.y, block.z}, shared_bytes};
    launches++;
    return real ? real(grid, block, shared_bytes, stream) : 1u;
}

cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *fn);

cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *fn)
{
    static get_kernel_fn real;
    if (!real) {
        void *sym = real_symbol("__cudaGetKernel");
        memcpy(&real, &sym, sizeof real);
    }
    cudaError_t err = real ? real(kernel, fn) : cudaErrorNotSupported;
    if (err == cudaSuccess && kernel && n_known < MAX_KERNELS) {
        known[n_known].handle = *kernel;
        known[n_known++].fn = fn;
    }
    return err;
}

static void note_launch(cudaKernel_t kernel)
{
    for (int i = 0; i < n_launched; i++)
        if (launched[i] == kernel)
            return;
    if (n_launched < LAUNCH_TRACE_MAX_NAMES)
        launched[n_launched++] = kernel;
}

/* Both entry points below note the kernel and pass the launch on to the
 * runtime's own function of the same name, found once. */
static cudaError_t forward_launch(launch_fn *real, const char *name, cudaKernel_t kernel, dim3 grid,
                                  dim3 block, void **args, size_t shared_bytes, cudaStream_t stream)
{
    if (!*real) {
        void *sym = real_symbol(name);
        memcpy(real, &sym, sizeof *real);
    }
    note_launch(kernel);
    return *real ? (*real)(kernel, grid, block, args, shared_bytes, stream) : cudaErrorNotSupported;
}

cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block, void **args,
                               size_t shared_bytes, cudaStream_t stream);

cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block, void **args,
                               size_t shared_bytes, cudaStream_t stream)
{
    static launch_fn real;
    return forward_launch(&real, "__cudaLaunchKernel", kernel, grid, block, args, shared_bytes,
                          stream);
}

cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 grid, dim3 block, void **args,
                                    size_t shared_bytes, cudaStream_t stream);

cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 grid, dim3 block, void **args,
                                    size_t shared_bytes, cudaStream_t stream)
{
    static launch_fn real;
    return forward_launch(&real, "__cudaLaunchKernel_ptsz", kernel, grid, block, args,
                          shared_bytes, stream);
}

int launch_trace_kernel_count(void)
{
    return n_launched;
}

size_t launch_trace_kernels(char *buf, size_t n)
{
    size_t used = 0;
    if (n)
        buf[0] = '\0';
    for (int i = 0; i < n_launched; i++) {
        const void *fn = NULL;
        for (int k = 0; k < n_known && !fn; k++)
            if (known[k].handle == launched[i])
                fn = known[k].fn;
        Dl_info info;
        const char *name = NULL;
        if (fn && dladdr(fn, &info) && info.dli_sname && info.dli_saddr == fn)
            name = info.dli_sname; /* the kernel's mangled name: its host stub's symbol */
        else if (fn && cudaFuncGetName(&name, fn) != cudaSuccess)
            name = NULL;
        if (!name)
            continue;
        int w = snprintf(used < n ? buf + used : NULL, used < n ? n - used : 0, "%s%s",
                         used ? "," : "", name);
        if (w > 0)
            used += (size_t)w;
    }
    return used;
}
