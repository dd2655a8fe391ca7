/* runner.h: turns a lab spec into a Check suite whose tests run in forked
 * children. The parent never calls CUDA; each child loads the lab library,
 * creates its own CUDA context, grades one test and reports through the
 * shared results page. */
#ifndef CUDA_LABS_RUNNER_H
#define CUDA_LABS_RUNNER_H

#include <check.h>
#include <stdint.h>

#include "lab.h"
#include "results.h"

/* A test that got to the grader's own "passed" ends its child with this code;
 * Check is told to expect it, so a stage that calls exit(0) cannot pass. */
#define GRADE_PASS_EXIT 93

/* --quick grades only sizes whose work is at most this many GB per call. */
#define RUNNER_QUICK_WORK 0.05

typedef struct grade_run {
    const lab_spec *spec;
    lab_results *res;    /* in the shared page */
    char lib[4200];      /* the lab library to grade (a path of up to PATH_MAX + 64) */
    char load[4200];     /* what a child loads for it: its sealed copy (library_snapshot),
                          * or lib itself where none could be made */
    uint64_t seed;
    int reps;
    unsigned stage_mask; /* bit s: stage s is graded; 0: all stages */
    const int *graded;   /* graded[s] == 0: stage s is left out (--config); NULL: all */
    int quick;           /* sizes up to RUNNER_QUICK_WORK, no timing */
    int plain_buffers;   /* no guard zones: under compute-sanitizer */
    int sandbox;         /* each child installs the seccomp filter (grader/sandbox.h) */
    int witness;         /* speed tests get a timing witness where the lab has one (witness.h;
                          * unless CUDA_LABS_WITNESS=0) */
    int files;           /* each child sets the Landlock rules on files first: FILES_* (probe.h) */
    int sms;             /* --sms: each child grades in a green context of this many SMs; 0: all */
    int gpu_sms;         /* the GPU's own SM count (with sms: the timeouts grow by gpu_sms/sms) */
    char suite[32];      /* its suite's name, set by runner_suite: "lab3" (unique in a run) */
} grade_run;

/* Registers run (it must outlive the suite's run) and builds its suite, named
 * run->suite (srunner_run runs it alone): one
 * TCase per stage, holding the correctness test and, when the stage's speed
 * is graded, the performance test. after_stage, if set, is called in the
 * parent after each stage's tests (for the live line). */
Suite *runner_suite(grade_run *run, void (*after_stage)(const grade_run *run, int stage));
/* A file descriptor of the parent's that no test child may keep (the pipe
 * the technique check reads cuobjdump from): each child closes it first. */
void runner_close_in_children(int fd);
/* The parent is about to close fd: children stop closing that number, which
 * a later file of the parent's (Check's message file of the next lab) may
 * reuse. */
void runner_close_in_children_end(int fd);
/* Starts the clock that times each stage's tests from the parent (the
 * results' stage_wall and wall): call it just before running each suite. */
void runner_start_clock(void);

/* Student output: each test's stdout and stderr go to their own file in this
 * folder, cut at RUNNER_OUTPUT_CAP bytes (a file-size limit in the child). */
#define RUNNER_OUTPUT_CAP 65536
/* The limit itself: RUNNER_OUTPUT_CAP, or the size of the results file when
 * that is larger (several labs in one run), since the child writes its
 * record into that file under the same limit on file size. */
size_t runner_output_cap(void);

/* A grading child may start this many processes and threads beyond what its
 * user runs when it starts (RLIMIT_NPROC): plenty for CUDA's own threads,
 * few enough to stop a fork bomb early. Root is not held to it. */
#define RUNNER_THREAD_HEADROOM 1024
void runner_set_output_dir(const char *dir);
/* The output file of one test. */
void runner_output_path(char *buf, size_t n, const lab_spec *spec, int stage, int kind);

/* Seconds one test of stage `stage` may take before it is a TIMEOUT: start-up
 * and data per size, plus every call the test makes (each input set at every
 * size; warm-up and reps timed calls of the stage, its bases and the ceiling)
 * at the lab's floor_throughput. The longer of the correctness and speed tests. */
double runner_stage_timeout(const lab_spec *spec, int stage, int reps, int quick);

/* runner_stage_timeout for a run: with --sms N of a GPU's M SMs, M/N times
 * as long (a stage may be that much slower on N SMs). Pure. */
double runner_timeout(const grade_run *run, int stage);

/* Timed repetitions stop early, after at least RUNNER_MIN_REPS of them (or
 * RUNNER_FAR_REPS, see below), once
 * every decision the timing feeds is clear by RUNNER_SETTLE_MARGIN in every
 * one of the pairs so far: each base's ratio base/stage on the same side of
 * min_speedup, the ratio ceiling/stage on the same side of min_ceiling (when
 * set); and, with no margin beyond their own, the ratio ceiling/stage on
 * one side of impossible_over (IMPOSSIBLE) and wall time on one side of the
 * TIMING ANOMALY bound. All k pairs on one side make a
 * distribution-free confidence interval of the median (99.8% at k = 10) lie
 * wholly beyond the margin; a close call takes every repetition. Pure. */
#define RUNNER_MIN_REPS 10
#define RUNNER_SETTLE_MARGIN 0.10
/* Earlier still, after RUNNER_FAR_REPS pairs, when every decision (the
 * sanity checks' too) is clear by RUNNER_FAR_MARGIN (50%) in every pair: a
 * stage 281x over a 5x threshold, or at 60% of its ceiling, needs no more.
 * A verdict could differ only if the median pair lay 1.5x away from every
 * one of the five measured. */
#define RUNNER_FAR_REPS 5
#define RUNNER_FAR_MARGIN 0.50
int runner_settled(int k, const double *stage_ms, const double *wall_ms,
                   const double *const *base_ms, int n_bases, const double *ceiling_ms,
                   double min_speedup, double min_ceiling, double impossible_over);

/* Seeds derived from the run's seed: one per graded size, one per timing run,
 * so --seed replays every input exactly. */
uint64_t runner_size_seed(uint64_t seed, int stage, int size);
/* Whether test (stage, kind) of run gets a witness (witness.h): with
 * run->witness, the speed and correctness tests of a lab that has one (a
 * GPU witness, or lab 5's host witness), graded with the
 * sandbox on, with no compute-sanitizer (plain buffers) and no green context
 * (--sms). */
int runner_witnessed(const grade_run *run, int stage, int kind);

/* In a grading child, after results_enter_child and results_own: installs
 * the sandbox (grader/sandbox.h) over the grader's image, the results
 * page and the results file's descriptor (results_writer), reporting a refused call into rec as REJECTED. 0, or -1 with the
 * reason in err. child_start calls it before loading the lab library; the
 * tests call it to install the filter exactly as the grader does. */
int runner_sandbox_child(test_record *rec, char *err, size_t errn);

/* Runs stage `stage` of the library once at the lab's timed size, in this
 * process (no children, nothing timed), and checks it: for a profiler that
 * should see the stage's kernels and nothing else. 0 when the stage ran and
 * was correct; msg says what happened. */
int runner_run_once(const lab_spec *spec, const char *lib, int stage, uint64_t seed, char *msg,
                    size_t msgn);

/* Parent side, after the run: decides whose each SETUP ERROR is
 * (test_record.fault) and says so in its message when it is the
 * submission's. */
void runner_settle_faults(const lab_spec *spec, lab_results *res);
/* Does a SETUP ERROR's message say the host or the GPU ran out of memory? */
int runner_memory_fault(const char *msg);

#endif
