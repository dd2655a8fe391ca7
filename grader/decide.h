/* decide.h: every verdict the grader decides, in one place. Pure functions
 * (no CUDA, no processes, no files): the child's speed and sanity verdicts
 * from its measurements, the parent's verdict on a test that Check stopped,
 * the demotions after the run (compute-sanitizer, the technique check), the
 * stages this GPU cannot grade, and the summary of the whole run, so that
 * the summary line and the scoreboard are written from the same records. */
#ifndef CUDA_LABS_DECIDE_H
#define CUDA_LABS_DECIDE_H

#include <stddef.h>

#include "../common/devinfo.h"
#include "lab.h"
#include "results.h"
#include "verdict.h"

/* ---- in the grading child ---- */

/* Wall time beyond this many ms, for event time event_ms, is a TIMING
 * ANOMALY: work the events on the grader's stream did not see. */
static inline double decide_anomaly_bound(double event_ms)
{
    return 1.5 * event_ms + 1.0;
}

/* Whether the speed test of stage may be timed, from its correctness test:
 * V_PASS, or V_SKIPPED with the reason in msg. */
verdict decide_perf_start(const test_record *corr, int stage, char *msg, size_t n);

/* In a run cut to part of the GPU (--sms), a stage is IMPOSSIBLE only above
 * this many times its ceiling, whatever the lab allows otherwise. The
 * ceilings that are libraries (cudaMemcpy, CUB) do not keep their speed per
 * SM in a green context; measured on the H200, the reference solutions beat
 * them by up to 1.12x (lab 1 stage 5) and 1.21x (lab 3 stage 6) at 40 SMs,
 * and by 1.39x (lab 3 stage 6) at 16. */
#define DECIDE_CUT_IMPOSSIBLE_OVER 2.0

/* The factor over the ceiling beyond which a stage is IMPOSSIBLE: the lab's
 * (lab_impossible_over), at least DECIDE_CUT_IMPOSSIBLE_OVER in a cut run. */
double decide_impossible_over(const lab_spec *spec, int cut);

/* A measurement summarised in rec (median and wall time, throughput and the
 * ceiling's): V_PASS when it can be believed, else V_TIMING_ANOMALY or
 * V_IMPOSSIBLE, with the message in msg. cut: the run grades on part of the
 * GPU's SMs (--sms). */
verdict decide_timing(const lab_spec *spec, int stage, const test_record *rec, int cut, char *msg,
                      size_t n);

/* The speed verdict of stage from its believable measurement in rec
 * (speedup over rec->base, pct_ceiling, throughput): V_PASS or V_SLOW, with
 * the message in msg. A stage with no base is held to its ceiling alone. */
verdict decide_speed(const lab_spec *spec, int stage, const test_record *rec, char *msg,
                     size_t n);

/* ---- in the parent, before the tests ---- */

/* No stage is graded on a speedup below this: a copy of its base measures
 * about 1.0x. */
#define DECIDE_SPEEDUP_FLOOR 1.10

/* The speedup stage st needs on a GPU (or in a --sms run) of sms SMs: its
 * min_speedup; for a stage whose gain grows with the SM count
 * (min_speedup_per_sm), the smaller of that and min_speedup_per_sm x sms.
 * 0 when that is below DECIDE_SPEEDUP_FLOOR: on so few SMs a correct stage
 * cannot be told from its base by speed, so its speed is not graded. */
double decide_min_speedup(const lab_stage *st, int sms);

/* The fewest SMs on which stage st's speed is graded (1 for any count). */
int decide_min_sms(const lab_stage *st);

/* The fewest SMs on which stage st needs its whole min_speedup (1 for a
 * stage whose threshold does not follow the SM count). */
int decide_full_sms(const lab_stage *st);

/* ---- in the parent, after the tests ---- */

/* Folds what Check saw (its result type and message) into the record: a
 * child that did not finish on its own is a TIMEOUT, a CRASH, an EARLY EXIT
 * or REJECTED (a refused system call); a pass the grader never recorded is
 * an EARLY EXIT too. The record keeps Check's result type (check_result) for
 * decide_summary. */
void decide_after_check(test_record *t, int ck_rtype, const char *ck_msg, double timeout_s,
                        const char *size_text);

/* A record as its child left it, made safe for the parent to read, before
 * anything reads it: its texts end inside their arrays, and it has no times
 * unless may_time (a speed test, or the correctness test of a stage whose
 * speed is only reported); a size, base stage, phase or state the grader
 * never writes (the library wrote the record through the grader's own
 * write) makes it REJECTED, with those fields reset. n_sizes, n_stages:
 * the lab's. */
void decide_read_back(test_record *t, int n_sizes, int n_stages, int may_time);

/* A stage this GPU cannot grade: NOT AVAILABLE, no points either way. */
void decide_not_available(test_record *t, const lab_spec *spec, int stage, const devinfo *dev);

/* A correct stage that an instructor requires clean under compute-sanitizer,
 * with a finding: SANITIZER FINDING. Only a PASS is demoted; 1 if it was. */
int decide_sanitizer_finding(test_record *t, int lab, int stage);

/* A passed test of a stage whose kernels lack the technique an instructor
 * requires (technique: its description): TECHNIQUE MISSING. Only a PASS is
 * demoted; 1 if it was. */
int decide_no_technique(test_record *t, int lab, const char *technique);

/* How much longer a base stage may take as the base of a later stage's speed
 * test than in its own test before that speedup is not believed: each time
 * taken against the ceiling timed beside it in the same test (the same
 * ceiling at the same size), which takes out a GPU that was slower during one
 * test than the other; DECIDE_BASE_DRIFT_RAW where there is no such ceiling.
 * Measured on the H200 (the references, every lab, 2026-12-03): 0.991 to
 * 1.013 against the ceiling; as raw times 0.996 to 1.007 in the labs timed by
 * events and 1.045 in lab 5, timed host to host, whose GPU ran slower in one
 * of its tests (its ceiling, too, took 1.05x as long). */
#define DECIDE_BASE_DRIFT 1.10
#define DECIDE_BASE_DRIFT_RAW 1.25

/* A speed test's base that ran slower there than in its own test (more than
 * the bounds above): a stage can run slowly only while the next one is
 * compared with it, and the paired speedup then says nothing. Each such pass
 * is decided again on the base's own time (its speed test's, whatever its
 * verdict, else its timed correctness test's, at the same size) and demoted
 * to TOO SLOW when that speedup falls short. A base with no time of its own
 * in the run (its speed test was not run, or stopped before it was timed) is
 * not compared. Returns the tests demoted. */
int decide_base_drift(const lab_spec *spec, lab_results *res);

/* The run's tests as Check counts them, from the final records: a test that
 * Check passed and a later check demoted is a failure here too. */
typedef struct decide_tally {
    int checks, failures, errors;
} decide_tally;
void decide_summary(const lab_results *res, int n_labs, decide_tally *tally);
/* "100%: Checks: 12, Failures: 0, Errors: 0", as Check's srunner_print
 * writes it (CK_MINIMAL). */
void decide_summary_line(const decide_tally *tally, char *buf, size_t n);

#endif
