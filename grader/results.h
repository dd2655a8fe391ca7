/* results.h: the result model. One lab_results per graded lab lives in a
 * MAP_SHARED page (a memory file) created by the parent before any test
 * forks. A child makes the page read-only for good before the lab library is
 * loaded (its sandbox then refuses to make it writable again, grader/sandbox.h)
 * and writes its own record through the file's descriptor, inside the
 * grader's own helpers, so results reach the parent even when the child later
 * crashes, hangs or exits. */
#ifndef CUDA_LABS_RESULTS_H
#define CUDA_LABS_RESULTS_H

#include <stddef.h>
#include <stdint.h>

#include "lab.h"
#include "timings.h"
#include "verdict.h"

enum test_kind { TEST_CORRECT = 0, TEST_PERF = 1, TEST_KINDS = 2 };
enum test_state { STATE_NOT_STARTED = 0, STATE_RUNNING, STATE_FINISHED };
/* Whose a SETUP ERROR is. The grader's unless shown otherwise: a grader
 * fault is never charged to a student. */
enum setup_fault { FAULT_GRADER = 0, FAULT_SUBMISSION = 1 };
enum test_phase { PHASE_START = 0, PHASE_LOAD, PHASE_SETUP, PHASE_RUN, PHASE_CHECK, PHASE_TIMING };

typedef struct test_record {
    int state;   /* enum test_state */
    int graded;  /* a Check test exists for it in this run */
    /* SETUP ERROR only: 1 when it happened after the lab library was loaded
     * (its code may have caused it); the parent then decides whose it is. */
    int after_library;
    int fault;   /* SETUP ERROR only: enum setup_fault, decided by the parent */
    /* Parent only: Check's result type for the test (CK_PASS, CK_FAILURE,
     * CK_ERROR; 0 when Check did not run it), for decide_summary. */
    int check_result;
    verdict v;
    int size;    /* size index being worked on (or that failed), -1 = none */
    int phase;   /* enum test_phase */
    char msg[VERDICT_MSG];
    /* Timing, valid when timed != 0 (perf tests, and the reported speed of
     * stages whose speed is not graded). Times in ms, medians over reps. */
    int timed;
    int reps;
    double median_ms, p10_ms, p90_ms, wall_ms;
    double throughput, ceiling_ms, ceiling_throughput, pct_ceiling;
    int base;            /* stage the speedup is measured over, -1 = none */
    double base_ms, speedup, min_speedup;
    double min_ceiling; /* fraction of the ceiling the stage must reach; 0 = none */
    /* The kernels the stage's own calls launched (correctness tests, and
     * the stage's timed calls in speed tests), comma-separated mangled names
     * (the launch trace), for the technique check and sass_refuse. */
    char kernels[1536]; /* 18 names of 84 characters, as lab 7's templates make */
    /* 1 when kernels misses some: a kernel the trace could not name, more
     * kernels than it keeps, or names longer than the list holds. */
    int kernels_partial;
    /* Correctness tests: the technique the stage's kernels lack, as its
     * description ("" when they have it or it was not checked). */
    char missing_technique[120];
    /* Seconds the test's child spent in each phase (timings.h), as far as
     * it got. */
    double tm[TM_COUNT];
} test_record;

/* What the timing witness of a speed test saw (grader/witness.h): a process
 * of the grader's own, forked by the test's child before it loaded the lab
 * library, that gave every timed call fresh inputs, timed it with its own
 * CUDA events and checked its outputs. Written by the witness alone: the
 * test's child cannot write it (results_writer). Roles: a stage's number, or
 * WITNESS_CEILING for the ceiling. */
#define WITNESS_ROLES (LAB_MAX_STAGES + 1)
#define WITNESS_CEILING LAB_MAX_STAGES
#define WITNESS_SAMPLES 256
enum witness_state {
    WITNESS_NONE = 0,    /* not used in this test */
    WITNESS_UNAVAILABLE, /* could not start (why says why): the test was timed as before */
    WITNESS_READY,       /* calibrated before the library was loaded */
};
typedef struct witness_record {
    int state;     /* enum witness_state */
    int broken;    /* the child broke the protocol (why says how) */
    char why[200];
    /* Calls of the stage the test must make (its warm-up and every repetition),
     * and how many first calls of each role are warm-ups, left out of medians. */
    int expected_calls, warmups;
    /* The hand-off's cost (ms), measured before the library was loaded around
     * calls that do nothing: the two switches between the processes' contexts
     * (what a window holds besides the call), and the whole wait the child
     * sees, the witness's loading of the input included (overhead_ms). */
    double handoff_lo_ms, handoff_hi_ms, overhead_ms;
    /* wrong: calls whose output or input was not as it should be; modified:
     * those of them whose input had changed. */
    int calls[WITNESS_ROLES], wrong[WITNESS_ROLES], modified[WITNESS_ROLES];
    int audited; /* audited calls of the stage made in addition to the test's calls (an
                  * audit's tries after its first), loaded and checked, not timed (not in
                  * calls) */
    float ms[WITNESS_ROLES][WITNESS_SAMPLES]; /* each role's first windows, in ms */
    char wrong_msg[VERDICT_MSG];              /* the first wrong call's finding (the stage's
                                               * own first, if it had one) */
    int wrong_role;                           /* whose it is */
    int wrong_v;                              /* its verdict (enum verdict) */
    char modified_msg[VERDICT_MSG];           /* the first changed input's */
    /* A correctness test's witness (witness_fork_check): the sizes it must
     * check, one call each (bit s: size s), set before the library is
     * loaded, and those it checked. 0 in a speed test's. */
    uint32_t sizes_expected, sizes_checked;
} witness_record;

typedef struct lab_results {
    uint32_t magic;
    int lab;
    test_record t[LAB_MAX_STAGES][TEST_KINDS];
    witness_record witness[LAB_MAX_STAGES]; /* each stage's speed test */
    witness_record check_witness[LAB_MAX_STAGES]; /* each stage's correctness test */
    /* Written by the parent: seconds it spent making this lab's inputs (and
     * the references it makes with them), by phase; each stage's wall time
     * from the end of the stage before to the end of its last test (fork,
     * the children, exit); the lab's whole wall time. */
    double parent_tm[TM_COUNT];
    double stage_wall[LAB_MAX_STAGES];
    double wall;
    double after_wall; /* the technique and sanitizer checks after the stages */
    /* 1 once a test's process began to load the lab library: written by the
     * grading child just before its sandbox, through a write the sandbox
     * refuses from then on (results_mark), so neither the library nor
     * anything else in that process can take it back, whatever it writes into
     * the test's record (whose after_library says the same). */
    unsigned char loading[LAB_MAX_STAGES][TEST_KINDS];
} lab_results;

#define RESULTS_MAGIC 0x43554c42u /* "CULB" */

/* Shared anonymous mapping for n labs, zeroed; NULL on failure. */
lab_results *results_map(int n);
void results_unmap(lab_results *r, int n);
/* Every write to a test_record goes between these two calls. In the parent
 * they make the page writable and read-only again. In a grading child (after
 * results_enter_child) the record is the private copy results_own returned:
 * results_open does nothing and results_close writes the copy into the page
 * through the memory file's descriptor, with no mprotect. */
void results_open(void);
void results_close(void);
/* In a grading child, before student code: the page becomes read-only for
 * the rest of the child's life. */
void results_enter_child(void);
/* In a grading child: the private copy of the child's own record (shared),
 * which results_close writes back. Elsewhere: shared itself. */
test_record *results_own(test_record *shared);
/* In a grading child, before its sandbox: *byte, somewhere in the page
 * outside the child's own record, set to 1 (through the memory file where
 * there is one). */
void results_mark(unsigned char *byte);
/* In a grading child whose record is written through the memory file: the
 * file's descriptor, the address the kernel reports for the grader's one
 * write of it (the return address of its own syscall instruction, x86-64),
 * and the offset and size of that write, for the sandbox to allow that write
 * alone; 0. -1 elsewhere (no memory file, or another architecture: then the
 * sandbox leaves the descriptor be). */
int results_writer(int *fd, uintptr_t *ip, uint64_t *offset, uint64_t *bytes);
/* Bytes of the results file (0 before results_map). */
size_t results_region_size(void);
/* In a grading child whose page is never made writable again: the page, for
 * the sandbox to guard; 0. -1 where the page is written with mprotect (no
 * memory file: memfd_create is missing), so the sandbox must leave it be. */
int results_sealed_region(void **p, size_t *bytes);
/* Registers the mapping results_open/close protect (done by results_map). */
void results_set_region(void *p, size_t bytes);

/* Adds to the comma-separated list (n bytes) each comma-separated name of
 * names that it does not hold yet, as far as there is room. Returns how many
 * names found no room (or were too long to hold). */
int results_merge_names(char *list, size_t n, const char *names);
/* Whether the comma-separated list holds name (a string, len its length)
 * as one of its whole names. */
int results_names_has(const char *list, const char *name, size_t len);

/* Points a test earns: its max points when it passed, else 0. */
int results_points(const lab_spec *spec, int stage, int kind, const test_record *t);
int results_max_points(const lab_spec *spec, int stage, int kind);
/* What test t can earn: its stage's points, or none when this GPU could not
 * grade it (NOT AVAILABLE), whatever table or config is applied later. */
int results_test_max(const lab_spec *spec, int stage, int kind, const test_record *t);

#endif
