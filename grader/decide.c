#define _GNU_SOURCE
#include "decide.h"

#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

/* ---- in the grading child ---- */

verdict decide_perf_start(const test_record *corr, int stage, char *msg, size_t n)
{
    if (corr->state != STATE_FINISHED) {
        snprintf(msg, n, "not timed: the correctness test of stage %d did not finish", stage);
        return V_SKIPPED;
    }
    if (corr->v != V_PASS) {
        snprintf(msg, n, "not timed: stage %d is not correct yet (%s)", stage,
                 verdict_name(corr->v));
        return V_SKIPPED;
    }
    return V_PASS;
}

/* Event time far below wall time means work ran where the events did not see
 * it (another stream, a host thread); a speed above the ceiling cannot be. */
double decide_impossible_over(const lab_spec *spec, int cut)
{
    const double over = lab_impossible_over(spec);
    return cut && over < DECIDE_CUT_IMPOSSIBLE_OVER ? DECIDE_CUT_IMPOSSIBLE_OVER : over;
}

verdict decide_timing(const lab_spec *spec, int stage, const test_record *rec, int cut, char *msg,
                      size_t n)
{
    if (rec->wall_ms > decide_anomaly_bound(rec->median_ms)) {
        snprintf(msg, n,
                 "the stage took %.3f ms by the clock but only %.3f ms by CUDA events on the "
                 "grader's stream: work seems to run elsewhere (another stream, a host thread). "
                 "Launch every kernel on the stream you are given.",
                 rec->wall_ms, rec->median_ms);
        return V_TIMING_ANOMALY;
    }
    const double over = decide_impossible_over(spec, cut);
    if (rec->throughput > over * rec->ceiling_throughput) {
        char times[32] = ""; /* "2.5 times ", where the lab allows more than noise */
        if (over > 1.10)
            snprintf(times, sizeof times, "%.1f times ", over);
        snprintf(msg, n,
                 "%.0f %s is more than %sthe %s ceiling measured in the same run (%.0f %s): the "
                 "stage cannot be doing all of its work",
                 rec->throughput, spec->unit, times, lab_ceiling_name(spec, stage),
                 rec->ceiling_throughput, spec->unit);
        return V_IMPOSSIBLE;
    }
    return V_PASS;
}

verdict decide_speed(const lab_spec *spec, int stage, const test_record *rec, char *msg,
                     size_t n)
{
    const lab_stage *st = &spec->stages[stage];
    const char *ceiling = lab_ceiling_name(spec, stage);
    if (rec->speedup < st->min_speedup) {
        snprintf(msg, n,
                 "%.2fx over stage %d (%s); this stage needs %.2fx. It runs at %.0f %s, %.0f%% of "
                 "%s.",
                 rec->speedup, rec->base, spec->stages[rec->base].title, st->min_speedup,
                 rec->throughput, spec->unit, rec->pct_ceiling, ceiling);
        return V_SLOW;
    }
    if (st->n_base == 0 && rec->pct_ceiling < 100.0 * st->min_ceiling) {
        snprintf(msg, n, "%.0f%% of %s (%.0f %s); this stage needs %.0f%%", rec->pct_ceiling,
                 ceiling, rec->throughput, spec->unit, 100.0 * st->min_ceiling);
        return V_SLOW;
    }
    if (st->n_base == 0) {
        snprintf(msg, n, "%.0f%% of %s (needs %.0f%%)", rec->pct_ceiling, ceiling,
                 100.0 * st->min_ceiling);
        return V_PASS;
    }
    if (st->min_ceiling > 0 && rec->pct_ceiling < 100.0 * st->min_ceiling) {
        snprintf(msg, n,
                 "%.0f%% of %s (%.0f %s); this stage needs %.0f%% as well as %.2fx over stage %d "
                 "(it has %.2fx)",
                 rec->pct_ceiling, ceiling, rec->throughput, spec->unit, 100.0 * st->min_ceiling,
                 st->min_speedup, rec->base, rec->speedup);
        return V_SLOW;
    }
    if (st->min_ceiling > 0) {
        snprintf(msg, n, "%.2fx over stage %d (needs %.2fx) and %.0f%% of %s (needs %.0f%%)",
                 rec->speedup, rec->base, st->min_speedup, rec->pct_ceiling, ceiling,
                 100.0 * st->min_ceiling);
        return V_PASS;
    }
    snprintf(msg, n, "%.2fx over stage %d (needs %.2fx)", rec->speedup, rec->base,
             st->min_speedup);
    return V_PASS;
}

/* ---- in the parent, before the tests ---- */

double decide_min_speedup(const lab_stage *st, int sms)
{
    if (st->min_speedup_per_sm <= 0 || sms <= 0)
        return st->min_speedup;
    double need = st->min_speedup_per_sm * sms;
    if (need >= st->min_speedup)
        return st->min_speedup;
    return need < DECIDE_SPEEDUP_FLOOR ? 0 : need;
}

int decide_min_sms(const lab_stage *st)
{
    int sms = 1;
    while (sms < 100000 && decide_min_speedup(st, sms) == 0)
        sms++;
    return sms;
}

int decide_full_sms(const lab_stage *st)
{
    if (st->min_speedup_per_sm <= 0)
        return 1;
    return (int)ceil(st->min_speedup / st->min_speedup_per_sm);
}

/* ---- in the parent, after the tests ---- */

static const char *phase_text(int phase)
{
    switch (phase) {
    case PHASE_LOAD: return "loading the lab library";
    case PHASE_SETUP: return "setting up the data";
    case PHASE_RUN: return "running the stage";
    case PHASE_CHECK: return "checking the output";
    case PHASE_TIMING: return "timing the stage";
    default: return "starting";
    }
}

/* A record whose child did not finish on its own. */
static void stopped(test_record *t, int ck_failed, const char *ck_msg, double timeout_s,
                    const char *size_text)
{
    char where[160];
    if (size_text && *size_text)
        snprintf(where, sizeof where, "while %s at %s", phase_text(t->phase), size_text);
    else
        snprintf(where, sizeof where, "while %s", phase_text(t->phase));
    const char *m = ck_msg ? ck_msg : "";
    int sig = 0, status = 0;
    if (strstr(m, "timeout")) {
        t->v = V_TIMEOUT;
        snprintf(t->msg, sizeof t->msg,
                 "killed after %.0f s, the time limit for this stage, %s. A kernel that never "
                 "finishes (a loop whose bound is wrong, __syncthreads() inside a branch not all "
                 "threads take) or a host loop that never ends looks like this.",
                 timeout_s, where);
    } else if (sscanf(m, "Received signal %d", &sig) == 1 && sig == SIGSYS) {
        /* The sandbox's SIGSYS, with the grader's handler replaced, blocked or
         * ignored: the kernel ended the process itself. */
        t->v = V_REJECTED;
        snprintf(t->msg, sizeof t->msg,
                 "it made a system call the grader refuses, and the process was killed by "
                 "signal %d (%s) %s, with the grader's handler for it taken away. A stage may "
                 "only launch its work on the GPU.",
                 sig, strsignal(sig), where);
    } else if (sscanf(m, "Received signal %d", &sig) == 1) {
        t->v = V_CRASH;
        snprintf(t->msg, sizeof t->msg,
                 "the process died of signal %d (%s) %s. On the host side this is usually a bad "
                 "pointer: a device pointer dereferenced on the CPU, or an array overrun.",
                 sig, strsignal(sig), where);
    } else if (sscanf(m, "Early exit with return value %d", &status) == 1 || !ck_failed) {
        t->v = V_EARLY_EXIT;
        snprintf(t->msg, sizeof t->msg,
                 "the process exited (status %d) %s, before the grader finished: a stage must "
                 "return, never call exit().",
                 status, where);
    } else {
        t->v = V_CRASH;
        snprintf(t->msg, sizeof t->msg, "the test stopped %s: %s", where, m);
    }
    t->state = STATE_FINISHED;
}

void decide_read_back(test_record *t, int n_sizes, int n_stages, int may_time)
{
    if (!may_time) /* its times are not the grader's: none to report */
        t->timed = 0;
    t->msg[sizeof t->msg - 1] = '\0';
    t->kernels[sizeof t->kernels - 1] = '\0';
    t->missing_technique[sizeof t->missing_technique - 1] = '\0';
    const char *bad = t->size < -1 || t->size >= n_sizes      ? "size"
                      : t->base < -1 || t->base >= n_stages   ? "base stage"
                      : t->phase < PHASE_START || t->phase > PHASE_TIMING ? "phase"
                      : t->state < STATE_NOT_STARTED || t->state > STATE_FINISHED ? "state"
                                                                          : NULL;
    if (!bad)
        return;
    t->size = -1;
    t->base = -1;
    t->phase = PHASE_START;
    t->state = STATE_FINISHED;
    t->timed = 0;
    t->v = V_REJECTED;
    snprintf(t->msg, sizeof t->msg,
             "the test's record came back with a %s the grader never writes: something in your "
             "library wrote the record through the grader's own write of it. A stage may not "
             "touch the grader's results",
             bad);
}

/* The verdicts the grading child never writes: the parent gives them, from
 * what it sees of the child (TIMEOUT, CRASH, EARLY EXIT), from the GPU before
 * the test (NOT AVAILABLE) or after it (SANITIZER FINDING, TECHNIQUE
 * MISSING). One in a finished record was written by something else in the
 * child, through the grader's own write of its record; NOT AVAILABLE would
 * take the test's points out of the total. */
static int parent_only(int v)
{
    return v < 0 || v >= V_COUNT || v == V_NOT_RUN || v == V_TIMEOUT || v == V_CRASH ||
           v == V_EARLY_EXIT || v == V_SANITIZER || v == V_NO_TECHNIQUE || v == V_NOT_AVAILABLE;
}

void decide_after_check(test_record *t, int ck_rtype, const char *ck_msg, double timeout_s,
                        const char *size_text)
{
    const int ck_failed = ck_rtype != CK_PASS;
    t->graded = 1;
    /* The grader's own failing verdict is a failure, as Check counts them,
     * though Check saw no message of it (the child mutes the channel when
     * its test starts, runner.c) and called the exit an error. */
    if (t->state == STATE_FINISHED && t->v != V_PASS && ck_rtype == CK_ERROR)
        ck_rtype = CK_FAILURE;
    t->check_result = ck_rtype;
    if (t->state == STATE_FINISHED && parent_only((int)t->v)) {
        char said[24];
        snprintf(said, sizeof said, "%s", verdict_name(t->v));
        t->v = V_REJECTED;
        snprintf(t->msg, sizeof t->msg,
                 "the test's record came back saying %s, a verdict only the grader's parent "
                 "process gives and the grading process never writes: something in your library "
                 "wrote the record through the grader's own write of it. A stage may not touch "
                 "the grader's results",
                 said);
        return;
    }
    if (t->state != STATE_FINISHED) /* else the grader's own verdict stands */
        stopped(t, ck_failed, ck_msg, timeout_s, size_text);
    /* Check saw a pass the grader never recorded: the child left early (a
     * record found written by something else stays REJECTED). */
    if (!ck_failed && t->v != V_PASS && t->v != V_REJECTED)
        t->v = V_EARLY_EXIT;
}

void decide_not_available(test_record *t, const lab_spec *spec, int stage, const devinfo *dev)
{
    t->graded = 1;
    t->state = STATE_FINISHED;
    t->v = V_NOT_AVAILABLE;
    const lab_stage *st = &spec->stages[stage];
    snprintf(t->msg, sizeof t->msg,
             "needs compute capability %d.%d%s (this GPU, %s, has %d.%d): not graded, no "
             "points lost",
             st->min_cc / 10, st->min_cc % 10,
             st->max_cc == st->min_cc ? ", for which alone its code is built" : "", dev->name,
             dev->cc_major, dev->cc_minor);
}

int decide_sanitizer_finding(test_record *t, int lab, int stage)
{
    if (t->v != V_PASS)
        return 0;
    t->v = V_SANITIZER;
    snprintf(t->msg, sizeof t->msg,
             "correct, but compute-sanitizer reported a problem in this stage (its first "
             "report is printed above the scoreboard; ./grade lab%d --sanitize --stage %d "
             "shows it again), and this course requires the stage to be clean",
             lab, stage);
    return 1;
}

int decide_no_technique(test_record *t, int lab, const char *technique)
{
    if (t->v != V_PASS)
        return 0;
    t->v = V_NO_TECHNIQUE;
    snprintf(t->msg, sizeof t->msg,
             "correct, but its kernels have no %s, and this course requires the technique "
             "of this stage (cuobjdump -sass build/lab%d.so shows their code)",
             technique, lab);
    return 1;
}

/* Stage b's own time at its timed size: its speed test's, whatever its
 * verdict (a base that spoils its own speed test still has this time), else
 * the time its correctness test reports; NULL when it has none. */
static const test_record *own_time(const lab_results *res, int b)
{
    const test_record *perf = &res->t[b][TEST_PERF], *corr = &res->t[b][TEST_CORRECT];
    if (perf->timed && perf->median_ms > 0)
        return perf;
    if (corr->timed && corr->median_ms > 0)
        return corr;
    return NULL;
}

int decide_base_drift(const lab_spec *spec, lab_results *res)
{
    int demoted = 0;
    for (int s = 0; s < spec->n_stages && s < LAB_MAX_STAGES; s++) {
        test_record *rec = &res->t[s][TEST_PERF];
        int b = rec->base;
        if (rec->v != V_PASS || !rec->timed || b < 0 || b >= spec->n_stages || b == s ||
            rec->base_ms <= 0 || rec->median_ms <= 0 ||
            lab_timed_size(spec, b) != lab_timed_size(spec, s))
            continue;
        const test_record *own = own_time(res, b);
        if (!own)
            continue;
        /* Against the ceiling of each test where both timed the same one. */
        const char *ceiling = lab_ceiling_name(spec, s), *own_ceiling = lab_ceiling_name(spec, b);
        int against = rec->ceiling_ms > 0 && own->ceiling_ms > 0 && ceiling && own_ceiling &&
                      strcmp(ceiling, own_ceiling) == 0;
        double scale = against ? rec->ceiling_ms / own->ceiling_ms : 1.0;
        double own_here = own->median_ms * scale; /* the base's own time, at this test's pace */
        if (rec->base_ms <= (against ? DECIDE_BASE_DRIFT : DECIDE_BASE_DRIFT_RAW) * own_here)
            continue;
        test_record again = *rec;
        again.base_ms = own_here;
        again.speedup = own_here / rec->median_ms;
        char why[VERDICT_MSG];
        if (decide_speed(spec, s, &again, why, sizeof why) == V_PASS)
            continue;
        results_open(); /* the grader's parent: the records stay writable for it */
        rec->v = V_SLOW;
        rec->speedup = again.speedup;
        snprintf(rec->msg, sizeof rec->msg,
                 "stage %d (%s), this test's base, took %.4g ms here but %.4g ms in its own "
                 "test (%.2fx as long%s), so the speedup measured here cannot be believed. "
                 "Against its own test's time this stage is %.2fx over it, and needs %.2fx. A "
                 "stage that runs slower only when a later stage is compared with it gains "
                 "nothing; if another program was using the GPU, grade again.",
                 b, spec->stages[b].title, rec->base_ms, own->median_ms, rec->base_ms / own_here,
                 against ? ", each against the ceiling timed beside it" : "", again.speedup,
                 spec->stages[s].min_speedup);
        demoted++;
    }
    return demoted;
}

void decide_summary(const lab_results *res, int n_labs, decide_tally *tally)
{
    memset(tally, 0, sizeof *tally);
    for (int l = 0; l < n_labs; l++)
        for (int s = 0; s < LAB_MAX_STAGES; s++)
            for (int k = 0; k < TEST_KINDS; k++) {
                const test_record *t = &res[l].t[s][k];
                if (!t->check_result) /* no Check test ran it */
                    continue;
                tally->checks++;
                if (t->check_result == CK_ERROR)
                    tally->errors++;
                else if (t->check_result != CK_PASS || t->v != V_PASS)
                    tally->failures++;
            }
}

void decide_summary_line(const decide_tally *tally, char *buf, size_t n)
{
    /* Check's percent_passed(), float and truncation alike. */
    int pct = 100;
    if (tally->failures || tally->errors)
        pct = tally->checks == 0
                  ? 0
                  : (int)((float)(tally->checks - (tally->failures + tally->errors)) /
                          (float)tally->checks * 100);
    snprintf(buf, n, "%d%%: Checks: %d, Failures: %d, Errors: %d", pct, tally->checks,
             tally->failures, tally->errors);
}
