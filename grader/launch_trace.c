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
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "borrowed.h"

struct CUstream_st;
typedef unsigned (*push_fn)(dim3, dim3, size_t, struct CUstream_st *);
typedef cudaError_t (*get_kernel_fn)(cudaKernel_t *, const void *);
typedef cudaError_t (*launch_fn)(cudaKernel_t, dim3, dim3, void **, size_t, cudaStream_t);

static launch_config last;
static int launches;
/* While held, the grader itself launches (the audit's markers): nothing is noted. */
static int held;

void launch_trace_hold(int on)
{
    held = on;
}

/* Kernel handles and the host functions they stand for (from
 * __cudaGetKernel), and the handles launched since the reset. */
#define MAX_KERNELS 256
static struct {
    cudaKernel_t handle;
    const void *fn;
} known[MAX_KERNELS];
static int n_known;
/* A launched kernel: its handle (<<<...>>> in CUDA 13) or its host function
 * (cudaLaunchKernel and the like). */
typedef struct launched_kernel {
    cudaKernel_t handle;
    const void *fn;
} launched_kernel;
static launched_kernel launched[LAUNCH_TRACE_MAX_NAMES];
static int n_launched;
static int launched_overflow; /* more distinct kernels than the table holds */

/* The audit's count: every launch the runtime accepted since
 * launch_trace_audit_reset, per kernel (overflow: launches of kernels beyond
 * the table, which then match nothing). */
#define MAX_AUDITED 256
static struct {
    launched_kernel k;
    int count;
} accepted[MAX_AUDITED];
static int n_accepted, accepted_overflow, auditing;

/* A launch into a stream being captured (into a graph) returns success but
 * runs nothing: it must not stand for a kernel that ran. Asked only while
 * auditing, so timed calls pay nothing for it. */
static void note_accepted(cudaKernel_t kernel, const void *fn, cudaError_t err,
                          cudaStream_t stream)
{
    enum cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusNone;
    if (err != cudaSuccess || !auditing || held ||
        cudaStreamIsCapturing(stream, &capturing) != cudaSuccess ||
        capturing != cudaStreamCaptureStatusNone)
        return;
    for (int i = 0; i < n_accepted; i++)
        if (accepted[i].k.handle == kernel && accepted[i].k.fn == fn) {
            accepted[i].count++;
            return;
        }
    if (n_accepted < MAX_AUDITED) {
        accepted[n_accepted].k = (launched_kernel){kernel, fn};
        accepted[n_accepted++].count = 1;
    } else {
        accepted_overflow++;
    }
}

void launch_trace_audit_reset(void)
{
    n_accepted = 0;
    accepted_overflow = 0;
    auditing = 1;
}

void launch_trace_audit_stop(void)
{
    auditing = 0;
}

/* The stream every launch must use while expecting is set, and the first
 * launch, memset or copy seen on another one. */
static int expecting;
static cudaStream_t expected;
static struct {
    int seen;
    char what[48];
    launched_kernel kernel;
    cudaStream_t stream;
    int per_thread; /* an entry point of --default-stream per-thread: 0 means its stream */
} foreign;

void launch_trace_reset(void)
{
    launches = 0;
    n_launched = 0;
    launched_overflow = 0;
    foreign.seen = 0;
}

void launch_trace_expect_stream(int on, void *stream)
{
    expecting = on;
    expected = (cudaStream_t)stream;
}

static void note_stream(const char *what, cudaKernel_t handle, const void *fn, cudaStream_t stream,
                        int per_thread)
{
    if (held || !expecting || foreign.seen || (stream == expected && !(per_thread && !stream)))
        return;
    foreign.seen = 1;
    snprintf(foreign.what, sizeof foreign.what, "%s", what);
    foreign.kernel = (launched_kernel){handle, fn};
    foreign.stream = stream;
    foreign.per_thread = per_thread;
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
    if (!held) {
        last = (launch_config){{grid.x, grid.y, grid.z}, {block.x, block.y, block.z}, shared_bytes};
        launches++;
    }
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

static void note_launch(cudaKernel_t kernel, const void *fn)
{
    if (held)
        return;
    for (int i = 0; i < n_launched; i++)
        if (launched[i].handle == kernel && launched[i].fn == fn)
            return;
    if (n_launched < LAUNCH_TRACE_MAX_NAMES)
        launched[n_launched++] = (launched_kernel){kernel, fn};
    else
        launched_overflow = 1;
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
    note_launch(kernel, NULL);
    note_stream("a kernel launch", kernel, NULL, stream, strstr(name, "_ptsz") != NULL);
    cudaError_t err =
        *real ? (*real)(kernel, grid, block, args, shared_bytes, stream) : cudaErrorNotSupported;
    note_accepted(kernel, NULL, err, stream);
    return err;
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

/* The public launch functions and the asynchronous memset and copy: the
 * same bookkeeping, then the runtime's own function (found once). Their
 * _ptsz twins are what a file compiled for per-thread default streams calls. */
#define REAL(type, name)                                                                           \
    static type real_;                                                                             \
    if (!real_) {                                                                                  \
        void *sym = real_symbol(name);                                                             \
        memcpy(&real_, &sym, sizeof real_);                                                        \
    }

typedef cudaError_t (*public_launch_fn)(const void *, dim3, dim3, void **, size_t, cudaStream_t);
typedef cudaError_t (*launch_ex_fn)(const cudaLaunchConfig_t *, const void *, void **);
typedef cudaError_t (*memset_fn)(void *, int, size_t, cudaStream_t);
typedef cudaError_t (*memcpy_fn)(void *, const void *, size_t, enum cudaMemcpyKind, cudaStream_t);

static cudaError_t public_launch(const char *name, const void *fn, dim3 grid, dim3 block,
                                 void **args, size_t shared_bytes, cudaStream_t stream)
{
    /* one static pointer per name: the names are few and fixed */
    static struct {
        const char *name;
        public_launch_fn real;
    } reals[4];
    public_launch_fn real = NULL;
    for (int i = 0; i < 4 && !real; i++) {
        if (!reals[i].name) {
            void *sym = real_symbol(name);
            memcpy(&reals[i].real, &sym, sizeof reals[i].real);
            reals[i].name = name;
        }
        if (strcmp(reals[i].name, name) == 0)
            real = reals[i].real;
    }
    if (!held) {
        last = (launch_config){{grid.x, grid.y, grid.z}, {block.x, block.y, block.z}, shared_bytes};
        launches++;
    }
    note_launch(NULL, fn);
    note_stream(name, NULL, fn, stream, strstr(name, "_ptsz") != NULL);
    cudaError_t err =
        real ? real(fn, grid, block, args, shared_bytes, stream) : cudaErrorNotSupported;
    note_accepted(NULL, fn, err, stream);
    return err;
}

#define PUBLIC_LAUNCH(name)                                                                        \
    cudaError_t name(const void *fn, dim3 grid, dim3 block, void **args, size_t shared_bytes,     \
                     cudaStream_t stream);                                                         \
    cudaError_t name(const void *fn, dim3 grid, dim3 block, void **args, size_t shared_bytes,     \
                     cudaStream_t stream)                                                          \
    {                                                                                              \
        return public_launch(#name, fn, grid, block, args, shared_bytes, stream);                 \
    }
PUBLIC_LAUNCH(cudaLaunchKernel)
PUBLIC_LAUNCH(cudaLaunchKernel_ptsz)
PUBLIC_LAUNCH(cudaLaunchCooperativeKernel)
PUBLIC_LAUNCH(cudaLaunchCooperativeKernel_ptsz)

static cudaError_t launch_ex(launch_ex_fn real, const char *name, const cudaLaunchConfig_t *config,
                             const void *fn, void **args)
{
    if (config && !held) {
        last = (launch_config){{config->gridDim.x, config->gridDim.y, config->gridDim.z},
                               {config->blockDim.x, config->blockDim.y, config->blockDim.z},
                               config->dynamicSmemBytes};
        launches++;
        note_launch(NULL, fn);
        note_stream(name, NULL, fn, config->stream, strstr(name, "_ptsz") != NULL);
    }
    cudaError_t err = real ? real(config, fn, args) : cudaErrorNotSupported;
    if (config)
        note_accepted(NULL, fn, err, config->stream);
    return err;
}

cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *config, const void *fn, void **args)
{
    REAL(launch_ex_fn, "cudaLaunchKernelExC")
    return launch_ex(real_, "cudaLaunchKernelExC", config, fn, args);
}

cudaError_t cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t *config, const void *fn,
                                     void **args);
cudaError_t cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t *config, const void *fn, void **args)
{
    REAL(launch_ex_fn, "cudaLaunchKernelExC_ptsz")
    return launch_ex(real_, "cudaLaunchKernelExC_ptsz", config, fn, args);
}

cudaError_t cudaMemsetAsync(void *p, int value, size_t bytes, cudaStream_t stream)
{
    REAL(memset_fn, "cudaMemsetAsync")
    note_stream("cudaMemsetAsync", NULL, NULL, stream, 0);
    return real_ ? real_(p, value, bytes, stream) : cudaErrorNotSupported;
}

cudaError_t cudaMemsetAsync_ptsz(void *p, int value, size_t bytes, cudaStream_t stream);
cudaError_t cudaMemsetAsync_ptsz(void *p, int value, size_t bytes, cudaStream_t stream)
{
    REAL(memset_fn, "cudaMemsetAsync_ptsz")
    note_stream("cudaMemsetAsync", NULL, NULL, stream, 1);
    return real_ ? real_(p, value, bytes, stream) : cudaErrorNotSupported;
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind,
                            cudaStream_t stream)
{
    REAL(memcpy_fn, "cudaMemcpyAsync")
    note_stream("cudaMemcpyAsync", NULL, NULL, stream, 0);
    return real_ ? real_(dst, src, bytes, kind, stream) : cudaErrorNotSupported;
}

cudaError_t cudaMemcpyAsync_ptsz(void *dst, const void *src, size_t bytes,
                                 enum cudaMemcpyKind kind, cudaStream_t stream);
cudaError_t cudaMemcpyAsync_ptsz(void *dst, const void *src, size_t bytes,
                                 enum cudaMemcpyKind kind, cudaStream_t stream)
{
    REAL(memcpy_fn, "cudaMemcpyAsync_ptsz")
    note_stream("cudaMemcpyAsync", NULL, NULL, stream, 1);
    return real_ ? real_(dst, src, bytes, kind, stream) : cudaErrorNotSupported;
}

int launch_trace_kernel_count(void)
{
    return n_launched;
}

/* The mangled name of a launched kernel, or NULL. */
static const char *kernel_name(const launched_kernel *k)
{
    const void *fn = k->fn;
    for (int i = 0; i < n_known && !fn && k->handle; i++)
        if (known[i].handle == k->handle)
            fn = known[i].fn;
    Dl_info info;
    const char *name = NULL;
    /* The runtime's name first: the device function's, which CUPTI reports
     * too (the audit compares the two); an exported symbol at the stub's
     * address could be any name the library chose. */
    if (fn && cudaFuncGetName(&name, fn) == cudaSuccess && name)
        return name;
    if (fn && dladdr(fn, &info) && info.dli_sname && info.dli_saddr == fn)
        return info.dli_sname; /* the kernel's mangled name: its host stub's symbol */
    return NULL;
}

int launch_trace_kernels_partial(void)
{
    int partial = launched_overflow;
    for (int i = 0; i < n_launched && !partial; i++)
        partial = kernel_name(&launched[i]) == NULL;
    return partial;
}

size_t launch_trace_kernels(char *buf, size_t n)
{
    size_t used = 0;
    int full = 0;
    if (n)
        buf[0] = '\0';
    for (int i = 0; i < n_launched; i++) {
        const char *name = kernel_name(&launched[i]);
        if (!name)
            continue;
        size_t len = strlen(name) + (used ? 1 : 0);
        /* whole names only: a cut name would stand for a kernel that is not there */
        if (!full && used + len < n)
            snprintf(buf + used, n - used, "%s%s", used ? "," : "", name);
        else
            full = 1;
        used += len;
    }
    return used;
}

const char *launch_trace_borrowed(char *shown, size_t n)
{
    for (int i = 0; i < n_launched; i++) {
        const char *name = kernel_name(&launched[i]);
        const char *lib = name ? borrowed_library(name, shown, n) : NULL;
        if (lib)
            return lib;
    }
    return NULL;
}

int launch_trace_foreign_stream(char *msg, size_t n)
{
    if (!foreign.seen)
        return 0;
    char which[64];
    uintptr_t s = (uintptr_t)foreign.stream;
    if (foreign.per_thread && s == 0)
        snprintf(which, sizeof which, "the per-thread default stream");
    else if (s == 0)
        snprintf(which, sizeof which, "the default stream (0)");
    else if (s == (uintptr_t)cudaStreamLegacy)
        snprintf(which, sizeof which, "cudaStreamLegacy");
    else if (s == (uintptr_t)cudaStreamPerThread)
        snprintf(which, sizeof which, "cudaStreamPerThread");
    else
        snprintf(which, sizeof which, "a stream the grader did not give it");
    const char *name = foreign.kernel.handle || foreign.kernel.fn ? kernel_name(&foreign.kernel)
                                                                   : NULL;
    snprintf(msg, n, "%s%s%s on %s", foreign.what, name ? " of " : "", name ? name : "", which);
    return 1;
}

int launch_trace_audit(const char *const *names, const int *counts, int n, char *what,
                       size_t len)
{
    int unnamed = 0, spare = -1;
    if (len)
        what[0] = '\0';
    for (int i = 0; i < n; i++) {
        int seen = launch_trace_audit_count(names[i], &unnamed);
        if (spare < 0)
            spare = unnamed; /* launches of kernels the trace could not name */
        int extra = counts[i] - seen;
        if (extra <= 0)
            continue;
        if (extra <= spare) {
            spare -= extra;
            continue;
        }
        snprintf(what, len, "%.300s (%d time%s)", names[i], counts[i], counts[i] == 1 ? "" : "s");
        return 1;
    }
    return 0;
}

int launch_trace_audit_count(const char *name, int *unnamed)
{
    int count = 0;
    *unnamed = accepted_overflow;
    for (int i = 0; i < n_accepted; i++) {
        const char *k = kernel_name(&accepted[i].k);
        if (!k)
            *unnamed += accepted[i].count;
        else if (strcmp(k, name) == 0)
            count += accepted[i].count;
    }
    return count;
}
