/* archinfo.h: what `make arch-check` knows about a GPU architecture without
 * one: its limits (from the CUDA Programming Guide), a kernel's resource use
 * (from ptxas -v and the kernel's PTX), and whether a launch of that kernel
 * fits. Pure C, no CUDA: used by the launch recorder (grader/tests/arch/
 * launches.c) and by the test (grader/tests/check_arch.c). */
#ifndef CUDA_LABS_ARCHINFO_H
#define CUDA_LABS_ARCHINFO_H

#include <stddef.h>

/* One compute capability's limits. */
typedef struct arch_limits {
    int sm;                  /* 75, 80, ... 120: the sm_XX we build for */
    int major, minor;        /* its compute capability */
    const char *example;     /* a GPU of that capability (its SM count below) */
    int sms;                 /* multiprocessors of that example GPU */
    int threads_per_sm;      /* resident threads per SM */
    int blocks_per_sm;       /* resident blocks per SM */
    int smem_per_sm;         /* bytes of shared memory per SM (largest carveout) */
    int smem_per_block;      /* bytes one block may have, opted in (cudaFuncSetAttribute) */
    int smem_reserved;       /* bytes the system keeps per block (counted against the SM) */
} arch_limits;

/* Limits common to every architecture we build for (7.5 to 12.0). */
enum {
    ARCH_THREADS_PER_BLOCK = 1024,
    ARCH_REGS_PER_SM = 65536,
    ARCH_REGS_PER_BLOCK = 65536,
    ARCH_SMEM_STATIC = 48 * 1024, /* static shared memory, and dynamic without opting in */
    ARCH_GRID_YZ = 65535,
};

extern const arch_limits arch_table[];
extern const int arch_count;
const arch_limits *arch_find(int sm);

/* One kernel of one build, as ptxas compiled it. */
typedef struct kernel_res {
    char name[256];    /* mangled */
    int regs;
    int smem;          /* static shared memory, bytes */
    int stack;         /* stack frame, bytes */
    int spill_stores;  /* bytes */
    int spill_loads;
    int maxntid;       /* __launch_bounds__'s first argument (.maxntid or .reqntid); 0: none */
    int minblocks;     /* its second (.minnctapersm); 0: none */
} kernel_res;

/* Reads a ptxas -v log (and, when ptx is not NULL, the PTX it compiled, for
 * the launch bounds) into k, at most max kernels. Returns the count, or -1
 * when the log cannot be read. */
int kernel_res_read(const char *ptxas_log, const char *ptx, kernel_res *k, int max);
const kernel_res *kernel_res_find(const kernel_res *k, int n, const char *name);

/* Registers a block of `threads` threads is given: per warp, regs x 32
 * rounded up to the allocation unit of 256. */
long long arch_block_regs(int regs, int threads);
/* Blocks of this kernel that fit on one SM at once (0: none fits), by the
 * occupancy calculator's rules: threads, blocks, registers, shared memory. */
int arch_occupancy(const arch_limits *a, const kernel_res *k, int threads, size_t dyn_smem);

/* One recorded launch. */
typedef struct arch_launch {
    unsigned grid[3], block[3];
    size_t dyn_smem;
    long long optin; /* what cudaFuncSetAttribute(MaxDynamicSharedMemorySize) allowed; -1: never set */
} arch_launch;

/* Checks one launch of kernel k on architecture a: 0 when it fits; else -1
 * with the first limit it breaks, in words, in why. */
int arch_check_launch(const arch_limits *a, const kernel_res *k, const arch_launch *l, char *why,
                      size_t whyn);

#endif
