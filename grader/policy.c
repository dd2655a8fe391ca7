/* policy.c: what a lab library may define and call, read from its ELF symbol
 * table before anything of it runs. The rules follow the contract: stages
 * launch kernels on the grader's stream, and the grader alone allocates,
 * synchronises, times, and owns CUDA, the C library and the reference
 * libraries. */
#include "policy.h"

#include <stdio.h>
#include <string.h>

#include "borrowed.h"
#include "elfsym.h"
#include "hostcode.h"

typedef policy_rule rule;

/* Functions a library must not define: they would replace the real ones for
 * the grader too. */
static const rule no_define[] = {
    {"cuda*", "a CUDA runtime function: the grader times and checks with the real one", NULL},
    {"__cuda*", "a CUDA runtime function: the grader times and checks with the real one", NULL},
    {"cu*", "a CUDA driver function: the grader relies on the real one", NULL},
    {"malloc", "a C library function", NULL},
    {"free", "a C library function", NULL},
    {"calloc", "a C library function", NULL},
    {"realloc", "a C library function", NULL},
    {"memcpy", "a C library function", NULL},
    {"memcmp", "a C library function", NULL},
    {"memset", "a C library function", NULL},
    {"clock_gettime", "a C library function the grader times with", NULL},
    {"gettimeofday", "a C library function", NULL},
    {"exit", "a C library function", NULL},
    {"_exit", "a C library function", NULL},
    {"fork", "a C library function", NULL},
    {"mprotect", "a C library function", NULL},
    {"mmap", "a C library function", NULL},
    {"write", "a C library function", NULL},
    {"dlopen", "a C library function", NULL},
    {"dlsym", "a C library function", NULL},
    {"pthread_create", "a C library function", NULL},
    {"srunner_*", "a function of the Check library the grader runs on", NULL},
    {"tcase_*", "a function of the Check library the grader runs on", NULL},
    {"results_*", "a function of the grader", NULL},
    {"rng_*", "a function of the grader", NULL},
    {NULL, NULL, NULL},
};

#define HIDDEN_START                                                                               \
    "it runs code on a thread of the C library's, or when a timer fires, outside the calls the "   \
    "grader makes and times"

/* Functions no lab library may call. */
static const rule no_call[] = {
    {"fork", "stages do their work in kernels, not in other processes", NULL},
    {"vfork", "stages do their work in kernels, not in other processes", NULL},
    {"clone", "stages do their work in kernels, not in other processes", NULL},
    {"execve", "a lab library may not start programs", NULL},
    {"execv", "a lab library may not start programs", NULL},
    {"execvp", "a lab library may not start programs", NULL},
    {"execl", "a lab library may not start programs", NULL},
    {"execlp", "a lab library may not start programs", NULL},
    {"system", "a lab library may not start programs", NULL},
    {"popen", "a lab library may not start programs", NULL},
    {"posix_spawn", "a lab library may not start programs", NULL},
    {"posix_spawnp", "a lab library may not start programs", NULL},
    {"pthread_create", "stages do their work in kernels on the grader's stream, not on host threads", NULL},
    {"_ZNSt6thread*", "stages do their work in kernels on the grader's stream, not on host threads",
     "std::thread"},
    {"thrd_create", "stages do their work in kernels on the grader's stream, not on host threads",
     NULL},
    {"__clone*", "stages do their work in kernels, not in other processes or threads", NULL},
    /* The C library starts threads of its own for these, and timers run
     * code when they fire, not when the grader calls the stage: either can
     * put work on the GPU while the grader times something else. */
    {"timer_create", HIDDEN_START, NULL},
    {"timer_settime", HIDDEN_START, NULL},
    {"setitimer", HIDDEN_START, NULL},
    {"alarm", HIDDEN_START, NULL},
    {"ualarm", HIDDEN_START, NULL},
    {"mq_notify", HIDDEN_START, NULL},
    {"aio_*", HIDDEN_START, NULL},
    {"lio_listio*", HIDDEN_START, NULL},
    {"getaddrinfo_a", HIDDEN_START, NULL},
    {"dlopen", "a lab library may not load other code", NULL},
    {"dlmopen", "a lab library may not load other code", NULL},
    {"dlsym", "a lab library may not look up other code", NULL},
    {"dlvsym", "a lab library may not look up other code", NULL},
    {"mprotect", "a lab library may not change memory protection", NULL},
    {"ptrace", "a lab library may not trace processes", NULL},
    {"kill", "a lab library may not send signals", NULL},
    {"setrlimit", "a lab library may not change resource limits", NULL},
    {"prlimit", "a lab library may not change resource limits", NULL},
    {"prctl", "a lab library may not change its process", NULL},
    {"syscall", "a lab library may not call the operating system directly", NULL},
    /* The driver and the loader's lists reach code without dlsym: cuBLAS's
     * functions, cuMemAlloc and cuStreamCreate (around the rules on
     * allocation and streams), cuLaunchKernel (around the launch trace).
     * No lab needs them; one that did would get a helper from the grader. */
    {"cudaGetDriverEntryPoint*", "a lab library may not fetch CUDA driver functions: use the "
     "runtime API (cuda...), which the grader can see", NULL},
    {"cuGetProcAddress*", "a lab library may not fetch CUDA driver functions: use the runtime "
     "API (cuda...), which the grader can see", NULL},
    {"cu*", "a CUDA driver function: use the runtime API (cuda...), which the grader can see",
     NULL},
    {"cudaGetExportTable", "a lab library may not use the runtime's internal tables", NULL},
    {"cudaLibraryLoad*", "a lab library may not load other GPU code at run time", NULL},
    {"dl_iterate_phdr", "a lab library may not look through the libraries loaded in the process",
     NULL},
    {"_dl_find_object", "a lab library may not look through the libraries loaded in the process",
     NULL},
    {"dladdr", "a lab library may not look through the libraries loaded in the process", NULL},
    {"dladdr1", "a lab library may not look through the libraries loaded in the process", NULL},
    {"dlinfo", "a lab library may not look through the libraries loaded in the process", NULL},
    {"cublas*", "the grader owns cuBLAS (the ceiling); the lab is your own kernels", NULL},
    {"cublasLt*", "the grader owns cuBLAS (the ceiling); the lab is your own kernels", NULL},
    {"cudnn*", "the grader owns cuDNN (the ceiling); the lab is your own kernels", NULL},
    {NULL, NULL, NULL},
};

/* For labs whose stages run only on the grader's stream and buffers: the
 * contract says a stage never allocates, synchronises or times. */
#define NO_ALLOC "a stage must not allocate: the grader gives you every buffer"
#define NO_SYNC "a stage must not synchronise: the grader waits for your work and times it"
#define NO_STREAM "launch on the stream you are given: work elsewhere escapes the timing"
#define NO_TIMING "the grader does the timing"
#define NO_L2 "L2 settings would change what the grader measures"
/* cudaDeviceSetLimit also sets the persisting-L2 size; its other limits
 * (printf's buffer, the stack) are big enough for the labs as they are. */
#define NO_LIMIT                                                                                   \
    "it sets the persisting-L2 size too, which would change what the grader measures; the "      \
    "default printf buffer and stack are enough for the labs, so leave the limits as they "     \
    "are"
const rule policy_stream_stage_rules[] = {
    {"cudaMalloc*", NO_ALLOC, NULL},
    {"cudaHostAlloc", NO_ALLOC, NULL},
    {"cudaMallocHost", NO_ALLOC, NULL},
    {"cudaMallocManaged", NO_ALLOC, NULL},
    {"cudaStreamCreate*", NO_STREAM, NULL},
    {"cudaStreamWaitEvent", NO_STREAM, NULL},
    {"cudaStreamBeginCapture*", NO_STREAM, NULL},
    {"cudaGraph*", NO_STREAM, NULL},
    {"cudaLaunchHostFunc", NO_STREAM, NULL},
    {"cudaStreamAddCallback", NO_STREAM, NULL},
    {"cudaDeviceSynchronize", NO_SYNC, NULL},
    {"cudaStreamSynchronize", NO_SYNC, NULL},
    {"cudaEventSynchronize", NO_SYNC, NULL},
    {"cudaEventCreate*", NO_TIMING, NULL},
    {"cudaEventRecord*", NO_TIMING, NULL},
    {"cudaEventElapsedTime*", NO_TIMING, NULL},
    {"cudaStreamSetAttribute", NO_L2, NULL},
    {"cudaDeviceSetLimit", NO_LIMIT, NULL},
    {"cudaCtxResetPersistingL2Cache", NO_L2, NULL},
    {NULL, NULL, NULL},
};

/* For lab 5, whose stages own their streams and device buffers (made in
 * setup) and wait for their own work: the grader still owns the host
 * buffers, the timing and the L2 settings. */
#define NO_HOST_ALLOC "the grader gives x, y and out in the kind of host memory each stage needs"
const rule policy_host_stage_rules[] = {
    {"cudaMallocHost", NO_HOST_ALLOC, NULL},
    {"cudaHostAlloc", NO_HOST_ALLOC, NULL},
    {"cudaHostRegister", NO_HOST_ALLOC, NULL},
    {"cudaHostUnregister", NO_HOST_ALLOC, NULL},
    {"cudaMallocManaged", NO_HOST_ALLOC, NULL},
    {"cudaEventElapsedTime*", NO_TIMING, NULL},
    {"cudaStreamSetAttribute", NO_L2, NULL},
    {"cudaDeviceSetLimit", NO_LIMIT, NULL},
    {"cudaCtxResetPersistingL2Cache", NO_L2, NULL},
    {NULL, NULL, NULL},
};

static int matches(const char *pattern, const char *name)
{
    size_t n = strlen(pattern);
    if (n > 0 && pattern[n - 1] == '*')
        return strncmp(pattern, name, n - 1) == 0;
    return strcmp(pattern, name) == 0;
}

/* "cuda*" must not catch "cudaLabsHelper"-style names of the student's own?
 * It does, on purpose: names starting with cuda belong to CUDA. But the driver
 * rule "cu*" would catch "cube()": it applies only when a capital follows. */
static int driver_like(const char *name)
{
    return name[0] == 'c' && name[1] == 'u' && name[2] >= 'A' && name[2] <= 'Z';
}

/* Data a lab library must not use: the loader's list of loaded libraries. */
static const rule no_use_data[] = {
    {"_r_debug", "a lab library may not look through the libraries loaded in the process", NULL},
    {NULL, NULL, NULL},
};

typedef struct scan {
    const rule *lab_rules;
    char *why;
    size_t n;
    int rejected;
    /* A function of CUB, Thrust, CUTLASS or CuTe, a kernel that does the work
     * preferred (rank_of): reported before any other reason. */
    const char *borrowed_lib;
    char borrowed[200];
    int borrowed_kernel;
} scan;

/* 2: a kernel that does the work; 1: another kernel (CUB's EmptyKernel,
 * which it launches to learn the GPU's version); 0: a host function. */
static int rank_of(const char *shown)
{
    if (!borrowed_is_kernel_name(shown))
        return 0;
    const char *last = strrchr(shown, ':');
    return strcmp(last ? last + 1 : shown, "EmptyKernel") == 0 ? 1 : 2;
}

static void note_borrowed(scan *s, const char *name)
{
    char shown[200];
    const char *lib = borrowed_library(name, shown, sizeof shown);
    if (!lib)
        return;
    int kernel = rank_of(shown);
    /* EmptyKernel does no work, and <cub/cub.cuh> compiles it in even when
     * only a block- or warp-level primitive is used in a kernel of one's own,
     * which the labs allow. A device-wide algorithm brings kernels of rank 2. */
    if (kernel == 1)
        return;
    if (s->borrowed_lib && kernel <= s->borrowed_kernel)
        return;
    s->borrowed_lib = lib;
    s->borrowed_kernel = kernel;
    snprintf(s->borrowed, sizeof s->borrowed, "%s", shown);
}

static void visit(const elf_symbol *e, void *arg)
{
    scan *s = arg;
    const char *name = e->name;
    if (e->is_function && e->defined)
        note_borrowed(s, name);
    if (s->rejected)
        return;
    if (!e->is_function) {
        for (const rule *r = no_use_data; r->pattern && !e->defined; r++)
            if (matches(r->pattern, name)) {
                snprintf(s->why, s->n, "it uses %s: %s.", name, r->why);
                s->rejected = 1;
            }
        return;
    }
    if (e->from_symtab) /* the rules below are about what the library exports and imports */
        return;
    if (e->defined) {
        for (const rule *r = no_define; r->pattern; r++) {
            if (!matches(r->pattern, name))
                continue;
            if (strcmp(r->pattern, "cu*") == 0 && !driver_like(name))
                continue;
            snprintf(s->why, s->n, "it defines its own %s(), %s. Rename your function.", name,
                     r->why);
            s->rejected = 1;
            return;
        }
        return;
    }
    const rule *lists[2] = {no_call, s->lab_rules};
    for (int l = 0; l < 2; l++)
        for (const rule *r = lists[l]; r && r->pattern; r++)
            if (matches(r->pattern, name) &&
                (strcmp(r->pattern, "cu*") != 0 || driver_like(name))) {
                snprintf(s->why, s->n, "it calls %s(): %s.", r->shown ? r->shown : name, r->why);
                s->rejected = 1;
                return;
            }
}

int policy_check_function(const char *name, int defined, const policy_rule *lab_rules, char *why,
                          size_t n)
{
    scan s = {lab_rules, why, n, 0, NULL, "", 0};
    elf_symbol e = {name, defined, 1, 0, 0};
    why[0] = '\0';
    visit(&e, &s);
    if (s.borrowed_lib && !s.rejected)
        snprintf(why, n, "it holds %s, from %s", s.borrowed, s.borrowed_lib);
    return s.rejected || s.borrowed_lib;
}

int policy_check(const char *lib, const policy_rule *lab_rules, char *why, size_t n)
{
    scan s = {lab_rules, why, n, 0, NULL, "", 0};
    char err[512];
    int rc = elf_each_symbol(lib, ELF_DYNSYM | ELF_SYMTAB, visit, &s, err, sizeof err);
    if (rc < 0) {
        snprintf(why, n, "%s", err);
        return -1;
    }
    if (s.borrowed_lib) { /* the most telling reason, before a call it makes (NVTX's dlsym) */
        int cub = strcmp(s.borrowed_lib, "CUB") == 0 || strcmp(s.borrowed_lib, "Thrust") == 0;
        /* Known by its name's shape alone (detail::...::Device...Kernel, how
         * CUB's kernels look with its namespace renamed): it may be the
         * student's own. */
        int by_shape = cub && strncmp(s.borrowed, "cub::", 5) != 0 &&
                       strncmp(s.borrowed, "thrust::", 8) != 0 && strstr(s.borrowed, "::cub::") == NULL;
        snprintf(why, n,
                 "it holds %s, %s from %s's headers (%s): the lab asks for kernels of your own, "
                 "not a library's.%s",
                 s.borrowed, s.borrowed_kernel ? "a kernel compiled in" : "code compiled in",
                 s.borrowed_lib,
                 cub ? "cub::DeviceReduce, DeviceScan, DeviceSelect and Thrust's algorithms "
                       "launch such kernels"
                     : "CUTLASS's and CuTe's GEMM and convolution templates launch such kernels",
                 by_shape ? " It is named the way CUB names its device-wide kernels "
                            "(detail::...::Device...Kernel); if the kernel is your own, give it "
                            "another name or take it out of the namespace called detail."
                          : "");
        return 1;
    }
    if (s.rejected)
        return 1;
    if (rc == 1) {
        snprintf(why, n,
                 "it has no full symbol table (.symtab): it was stripped, so the grader cannot "
                 "see which kernels it holds. Build it with make, which keeps the table, and do "
                 "not strip it.");
        return 1;
    }
    /* Code force-inlined into a kernel of the student's own name leaves no
     * name of the library's, but its source paths stay in the line table. */
    char path[300], err2[300];
    const char *from = borrowed_source(lib, path, sizeof path, err2, sizeof err2);
    if (!from && err2[0]) {
        snprintf(why, n, "%s", err2);
        return POLICY_SETUP;
    }
    if (from) {
        int cub = strcmp(from, "CUB") == 0, thrust = strcmp(from, "Thrust") == 0;
        snprintf(why, n,
                 "its GPU code was compiled in part from %s (the kernels' line table names it), "
                 "which holds %s: the lab asks for kernels of your own, not a library's, even "
                 "under a name of yours.%s",
                 path,
                 cub      ? "CUB's device-wide algorithms (the agents behind cub::DeviceReduce, "
                            "DeviceScan and DeviceSelect)"
                 : thrust ? "Thrust's own device-wide algorithms (its agents for reduce, scan, "
                            "unique and the like)"
                 : strcmp(from, "CUTLASS") == 0 ? "CUTLASS's templates"
                                                : "CuTe's templates",
                 cub || thrust ? " CUB's block- and warp-level primitives (cub/block, cub/warp) "
                                 "inside kernels of your own are allowed."
                               : "");
        return 1;
    }
    rc = hostcode_scan(lib, why, n);
    return rc < 0 ? POLICY_SETUP : rc;
}
