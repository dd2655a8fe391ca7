/* policy.h: the rules a lab library must follow, checked on its symbol table
 * before it is loaded (see policy.c for the lists and the reasons). */
#ifndef CUDA_LABS_POLICY_H
#define CUDA_LABS_POLICY_H

#include <stddef.h>

/* A function a library must not define or call: an exact name, or a prefix
 * when the pattern ends in '*'; shown as `shown` when set (for C++ names). */
typedef struct policy_rule {
    const char *pattern;
    const char *why;
    const char *shown;
} policy_rule;

/* The extra rules of labs whose stages run on the grader's stream and buffers
 * only: no allocation, synchronisation, timing or streams of their own.
 * Ends with a {NULL} entry. */
extern const policy_rule policy_stream_stage_rules[];
/* Lab 5's: a stage's setup allocates device buffers and streams and its run
 * waits for them; host memory, timing and L2 stay the grader's. */
extern const policy_rule policy_host_stage_rules[];

/* 0: the library may run. 1: REJECTED, the reason in why: it defines or
 * calls what it must not, holds kernels of CUB, Thrust, CUTLASS or CuTe
 * (read from .dynsym and .symtab: CUDA 13's kernel stubs are local), has no
 * .symtab (stripped), or its host code holds a raw system call. -1: the
 * library could not be read (why says so). POLICY_SETUP: the grading machine
 * cannot check it (objdump missing); why says so. lab_rules may be NULL. */
#define POLICY_SETUP 2
int policy_check(const char *lib, const policy_rule *lab_rules, char *why, size_t n);

/* The symbol rules alone, for one exported function name that the library
 * defines (defined = 1) or calls (0): 1 refused (why says why), 0 not. */
int policy_check_function(const char *name, int defined, const policy_rule *lab_rules, char *why,
                          size_t n);

#endif
