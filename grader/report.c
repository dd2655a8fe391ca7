#include "report.h"

#include <math.h>
#include <string.h>

void report_replay(char *buf, size_t n, const lab_spec *spec, int stage, uint64_t seed,
                   int solutions, const char *lib)
{
    int k = snprintf(buf, n, "./grade lab%d --stage %d --seed 0x%llx", spec->number, stage,
                     (unsigned long long)seed);
    if (k < 0 || (size_t)k >= n)
        return;
    if (lib)
        snprintf(buf + k, n - (size_t)k, " --lib %s", lib);
    else if (solutions)
        snprintf(buf + k, n - (size_t)k, " --solutions");
}

static const test_record *rec(const lab_results *res, int stage, int kind)
{
    return &res->t[stage][kind];
}

void report_live_line(FILE *f, const lab_spec *spec, const lab_results *res, int stage)
{
    const test_record *c = rec(res, stage, TEST_CORRECT);
    const test_record *p = rec(res, stage, TEST_PERF);
    fprintf(f, "  stage %d  %-34s ", stage, spec->stages[stage].title);
    if (c->v != V_PASS) {
        fprintf(f, "%s\n", verdict_name(c->v));
        return;
    }
    fprintf(f, "correct");
    const test_record *t = p->graded ? p : c;
    if (p->graded && p->v != V_PASS && !p->timed) {
        fprintf(f, ", speed %s\n", verdict_name(p->v));
        return;
    }
    if (t->timed)
        fprintf(f, ", %.0f %s (%.0f%% of %s)", t->throughput, spec->unit, t->pct_ceiling,
                lab_ceiling_name(spec, stage));
    if (p->graded && p->timed && p->base >= 0)
        fprintf(f, ", %.2fx over stage %d", p->speedup, p->base);
    if (p->graded)
        fprintf(f, " -> %s", p->v == V_PASS ? "fast enough" : verdict_name(p->v));
    fputc('\n', f);
}

static void fmt_points(char *buf, size_t n, int got, int max)
{
    if (max == 0)
        snprintf(buf, n, "-");
    else
        snprintf(buf, n, "%d/%d", got, max);
}

int report_progress_text(char *buf, size_t n, const lab_spec *spec, const lab_results *res,
                         int *stage, int *kind)
{
    static const char *const phases[] = {"starting", "loading the library", "making the data",
                                          "running", "checking", "timing"};
    for (int s = 0; s < spec->n_stages; s++)
        for (int k = 0; k < TEST_KINDS; k++) {
            const test_record *t = rec(res, s, k);
            if (t->state != STATE_RUNNING)
                continue;
            char sz[128] = "";
            if (t->size >= 0 && t->size < spec->n_sizes) {
                spec->size_text(t->size, sz + 2, sizeof sz - 2);
                sz[0] = ',';
                sz[1] = ' ';
            }
            int p = t->phase >= 0 && t->phase <= PHASE_TIMING ? t->phase : 0;
            snprintf(buf, n, "  stage %d  %s: %s%s: %s", s, spec->stages[s].title,
                     k == TEST_CORRECT ? "correctness" : "speed", sz, phases[p]);
            *stage = s;
            *kind = k;
            return 1;
        }
    return 0;
}

void report_table(FILE *f, const lab_spec *spec, const lab_results *res)
{
    char unit_col[16];
    snprintf(unit_col, sizeof unit_col, "%s", spec->unit);
    fprintf(f, "\n  %-2s %-34s %-16s %9s %8s  %-15s %6s  %6s\n", "#", "stage", "correct",
            unit_col, "% ceil", "speedup", "needs", "points");
    /* The ceilings measured, by name (a lab may have one per kind of stage). */
    const char *ceil_name[LAB_MAX_STAGES];
    double ceil_best[LAB_MAX_STAGES];
    int n_ceil = 0;
    for (int s = 0; s < spec->n_stages; s++) {
        const test_record *c = rec(res, s, TEST_CORRECT);
        const test_record *p = rec(res, s, TEST_PERF);
        if (!c->graded && !p->graded)
            continue;
        const test_record *t = p->timed ? p : c;
        double ceiling = 0;
        char thr[16] = "-", pct[16] = "-", spd[32] = "-", needs[16] = "-", pts[16];
        if (t->timed) {
            snprintf(thr, sizeof thr, "%.0f", t->throughput);
            snprintf(pct, sizeof pct, "%.1f%%", t->pct_ceiling);
            ceiling = t->ceiling_throughput;
        }
        if (ceiling > 0) {
            const char *name = lab_ceiling_name(spec, s);
            int k = 0;
            while (k < n_ceil && strcmp(ceil_name[k], name) != 0)
                k++;
            if (k == n_ceil) {
                ceil_name[n_ceil] = name;
                ceil_best[n_ceil++] = 0;
            }
            if (ceiling > ceil_best[k])
                ceil_best[k] = ceiling;
        }
        if (p->timed && p->base >= 0)
            snprintf(spd, sizeof spd, "%.2fx over %d", p->speedup, p->base);
        else if (p->graded && p->v != V_NOT_RUN && p->v != V_PASS)
            snprintf(spd, sizeof spd, "%s", verdict_name(p->v));
        if (spec->stages[s].points_speed > 0 && spec->stages[s].n_base == 0)
            snprintf(needs, sizeof needs, "%.0f%%", 100.0 * spec->stages[s].min_ceiling);
        else if (spec->stages[s].points_speed > 0 && spec->stages[s].min_ceiling > 0)
            snprintf(needs, sizeof needs, "%.2fx+%.0f%%", spec->stages[s].min_speedup,
                     100.0 * spec->stages[s].min_ceiling);
        else if (spec->stages[s].points_speed > 0)
            snprintf(needs, sizeof needs, "%.2fx", spec->stages[s].min_speedup);
        int got = results_points(spec, s, TEST_CORRECT, c) + results_points(spec, s, TEST_PERF, p);
        int max = (c->graded ? results_test_max(spec, s, TEST_CORRECT, c) : 0) +
                  (p->graded ? results_test_max(spec, s, TEST_PERF, p) : 0);
        fmt_points(pts, sizeof pts, got, max);
        const char *cv = c->v == V_PASS ? "yes" : verdict_name(c->v);
        if (p->timed && p->v != V_PASS && p->v != V_SLOW) /* timing-time failures show here */
            snprintf(spd, sizeof spd, "%s", verdict_name(p->v));
        fprintf(f, "  %-2d %-34s %-16s %9s %8s  %-15s %6s  %6s\n", s, spec->stages[s].title, cv,
                thr, pct, spd, needs, pts);
    }
    for (int k = 0; k < n_ceil; k++)
        fprintf(f, "  ceiling: %s at %.0f %s, measured in this run\n", ceil_name[k],
                ceil_best[k], spec->unit);
    for (int s = 0; s < spec->n_stages; s++)
        if (verdict_neutral(rec(res, s, TEST_CORRECT)->v))
            fprintf(f, "  stage %d not available on this GPU: %s\n", s,
                    rec(res, s, TEST_CORRECT)->msg);
}

/* A failure worth its own entry under "What to fix": graded, not passed, and
 * not a speed test skipped because its own stage is not correct. */
static int listed_failure(const lab_results *res, int s, int k)
{
    const test_record *t = rec(res, s, k);
    if (!t->graded || t->v == V_PASS || verdict_neutral(t->v))
        return 0;
    return !(k == TEST_PERF && t->v == V_SKIPPED && rec(res, s, TEST_CORRECT)->graded &&
             rec(res, s, TEST_CORRECT)->v != V_PASS);
}

/* Same verdict and same message: one cause (a reference library the grader
 * cannot load fails every stage alike), listed once. */
static int same_failure(const test_record *a, const test_record *b)
{
    return a->v == b->v && a->v != V_TODO && strcmp(a->msg, b->msg) == 0;
}

void report_failures(FILE *f, const lab_spec *spec, const lab_results *res, uint64_t seed,
                     int solutions, const char *lib)
{
    int header = 0, first_todo = -1;
    char todo_rest[128] = "";
    for (int s = 0; s < spec->n_stages; s++)
        for (int k = 0; k < TEST_KINDS; k++) {
            const test_record *t = rec(res, s, k);
            if (!listed_failure(res, s, k))
                continue;
            /* Already listed with an earlier test that failed the same way. */
            int seen = 0;
            for (int s2 = 0; s2 <= s && !seen; s2++)
                for (int k2 = 0; k2 < TEST_KINDS && !seen; k2++)
                    if ((s2 < s || k2 < k) && listed_failure(res, s2, k2) &&
                        same_failure(rec(res, s2, k2), t))
                        seen = 1;
            if (seen)
                continue;
            /* Stages not written yet: the first in full, the others in one line. */
            if (t->v == V_TODO && first_todo >= 0) {
                size_t used = strlen(todo_rest);
                snprintf(todo_rest + used, sizeof todo_rest - used, "%s%d", used ? ", " : "", s);
                continue;
            }
            if (!header) {
                fprintf(f, "\n  What to fix:\n");
                header = 1;
            }
            fprintf(f, "  - stage %d (%s), %s: %s\n      %s\n", s, spec->stages[s].title,
                    k == TEST_CORRECT ? "correctness" : "speed", verdict_name(t->v), t->msg);
            /* The later tests that failed the same way, in one line:
             * "the same in stages 2, 3 (correctness) and 3 (speed)". */
            char same[TEST_KINDS][128] = {"", ""};
            int n_same[TEST_KINDS] = {0, 0};
            for (int s2 = s; s2 < spec->n_stages; s2++)
                for (int k2 = 0; k2 < TEST_KINDS; k2++) {
                    if ((s2 == s && k2 <= k) || !listed_failure(res, s2, k2) ||
                        !same_failure(rec(res, s2, k2), t))
                        continue;
                    size_t used = strlen(same[k2]);
                    snprintf(same[k2] + used, sizeof same[k2] - used, "%s%d",
                             n_same[k2] ? ", " : "", s2);
                    n_same[k2]++;
                }
            if (n_same[TEST_CORRECT] + n_same[TEST_PERF])
                fprintf(f, "      the same in stage%s %s%s%s%s%s\n",
                        n_same[TEST_CORRECT] + n_same[TEST_PERF] > 1 ? "s" : "",
                        same[TEST_CORRECT], n_same[TEST_CORRECT] ? " (correctness)" : "",
                        n_same[TEST_CORRECT] && n_same[TEST_PERF] ? " and " : "",
                        same[TEST_PERF], n_same[TEST_PERF] ? " (speed)" : "");
            char hint[1024];
            if (report_hint(hint, sizeof hint, spec, res, s, k))
                fprintf(f, "      hint: %s\n", hint);
            if (t->v == V_TODO) {
                first_todo = s;
                continue; /* nothing to replay */
            }
            char replay[512];
            report_replay(replay, sizeof replay, spec, s, seed, solutions, lib);
            fprintf(f, "      replay: %s\n", replay);
        }
    if (todo_rest[0])
        fprintf(f, "  - stage%s %s: not implemented yet either; one stage at a time.\n",
                strchr(todo_rest, ',') ? "s" : "", todo_rest);
}

int report_hint(char *buf, size_t n, const lab_spec *spec, const lab_results *res, int stage,
                int kind)
{
    const test_record *t = rec(res, stage, kind);
    const lab_stage *st = &spec->stages[stage];
    buf[0] = '\0';
    if (kind != TEST_PERF || t->v != V_SLOW || !st->hint)
        return 0;
    /* What was measured decides how the hint starts. */
    char share[200];
    const char *lead;
    if (t->min_ceiling > 0 && (t->base < 0 || t->speedup >= t->min_speedup)) {
        snprintf(share, sizeof share, "This stage reaches %.0f%% of %s and needs %.0f%%. ",
                 t->pct_ceiling, lab_ceiling_name(spec, stage), 100.0 * t->min_ceiling);
        lead = share;
    } else if (t->speedup < 1.0)
        lead = "This stage is slower than the one it must beat. ";
    else if (t->pct_ceiling >= 80.0)
        lead = "This stage is already near the ceiling; the stage before it is fast too, so the "
               "gain left is small. ";
    else
        lead = "";
    snprintf(buf, n, "%s%s", lead, st->hint);
    return 1;
}

void report_score(const lab_spec *spec, const lab_results *res, int *got, int *max)
{
    *got = *max = 0;
    for (int s = 0; s < spec->n_stages; s++)
        for (int k = 0; k < TEST_KINDS; k++) {
            const test_record *t = rec(res, s, k);
            if (!t->graded)
                continue;
            *got += results_points(spec, s, k, t);
            *max += results_test_max(spec, s, k, t);
        }
}

void report_score_labs(const lab_spec *const *specs, const lab_results *res, int n_labs,
                       int *got, int *max)
{
    *got = *max = 0;
    for (int l = 0; l < n_labs; l++) {
        int g, m;
        report_score(specs[l], &res[l], &g, &m);
        *got += g;
        *max += m;
    }
}

int report_failed_tests(const lab_spec *spec, const lab_results *res)
{
    int n = 0;
    for (int s = 0; s < spec->n_stages; s++)
        for (int k = 0; k < TEST_KINDS; k++)
            if (rec(res, s, k)->graded && rec(res, s, k)->v != V_PASS &&
                !verdict_neutral(rec(res, s, k)->v))
                n++;
    return n;
}

const char *report_json_escape(const char *s, char *buf, size_t n)
{
    size_t o = 0;
    if (n == 0)
        return buf;
    for (; s && *s && o + 7 < n; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') {
            buf[o++] = '\\';
            buf[o++] = (char)ch;
        } else if (ch == '\n') {
            buf[o++] = '\\';
            buf[o++] = 'n';
        } else if (ch < 0x20) {
            o += (size_t)snprintf(buf + o, n - o, "\\u%04x", ch);
        } else {
            buf[o++] = (char)ch;
        }
    }
    buf[o] = '\0';
    return buf;
}

/* Short column heads for the phases of timings.h, in order. */
static const char *const tm_heads[TM_COUNT] = {"start", "inputs", "cpu-ref", "upload", "calls",
                                               "checks", "reload", "timed", "ceiling",
                                               "t-check", "other"};

void report_timings(FILE *f, const lab_spec *spec, const lab_results *res)
{
    fprintf(f, "\n  Where the time went, lab %d (%s), seconds:\n  %-5s", spec->number, spec->name,
            "stage");
    for (int p = 0; p < TM_COUNT; p++)
        fprintf(f, " %7s", tm_heads[p]);
    fprintf(f, " %7s\n", "wall");
    double sum[TM_COUNT] = {0}, walls = 0;
    for (int s = 0; s < spec->n_stages; s++) {
        const test_record *c = rec(res, s, TEST_CORRECT), *q = rec(res, s, TEST_PERF);
        if (!c->graded && !q->graded)
            continue;
        double row[TM_COUNT], known = 0;
        for (int p = 0; p < TM_COUNT; p++) {
            row[p] = c->tm[p] + q->tm[p];
            if (p != TM_OTHER)
                known += row[p];
        }
        /* Fork, exit and what no child recorded: the rest of the stage's wall time. */
        if (res->stage_wall[s] > known)
            row[TM_OTHER] = res->stage_wall[s] - known;
        fprintf(f, "  %-5d", s);
        for (int p = 0; p < TM_COUNT; p++) {
            fprintf(f, " %7.2f", row[p]);
            sum[p] += row[p];
        }
        fprintf(f, " %7.2f\n", res->stage_wall[s]);
        walls += res->stage_wall[s];
    }
    fprintf(f, "  %-5s", "all");
    for (int p = 0; p < TM_COUNT; p++)
        fprintf(f, " %7.2f", sum[p]);
    fprintf(f, " %7.2f\n", walls);
    double before = 0;
    for (int p = 0; p < TM_COUNT; p++)
        before += res->parent_tm[p];
    fprintf(f, "  before the stages (inputs made once, shared by every test): %.2f s (inputs %.2f, "
               "CPU reference %.2f)\n",
            before, res->parent_tm[TM_INPUTS], res->parent_tm[TM_REFERENCE]);
    fprintf(f, "  after the stages (technique and sanitizer checks): %.2f s\n", res->after_wall);
    fprintf(f, "  lab %d in all: %.1f s\n", spec->number, before + res->wall + res->after_wall);
}

static void json_tm(FILE *f, const double *tm)
{
    fputc('{', f);
    for (int p = 0; p < TM_COUNT; p++)
        fprintf(f, "\"%s\": %.3f%s", tm_phase_key(p), isfinite(tm[p]) ? tm[p] : 0.0,
                p + 1 < TM_COUNT ? ", " : "");
    fputc('}', f);
}

static void json_num(FILE *f, const char *key, double v, int comma)
{
    if (isfinite(v))
        fprintf(f, "\"%s\": %.6g%s", key, v, comma ? ", " : "");
    else
        fprintf(f, "\"%s\": null%s", key, comma ? ", " : "");
}

static void json_test(FILE *f, const lab_spec *spec, int s, int k, const test_record *t)
{
    char esc[2 * (VERDICT_MSG > sizeof t->kernels ? VERDICT_MSG : sizeof t->kernels)];
    fprintf(f, "{\"verdict\": \"%s\", \"message\": \"%s\", \"points\": %d, \"max_points\": %d",
            verdict_name(t->v), report_json_escape(t->msg, esc, sizeof esc),
            results_points(spec, s, k, t), results_test_max(spec, s, k, t));
    if (t->v == V_SETUP_ERROR) /* whose fault: grader/batch leaves the grader's ungraded */
        fprintf(f, ", \"fault\": \"%s\"", t->fault == FAULT_SUBMISSION ? "submission" : "grader");
    if (t->kernels[0])
        fprintf(f, ", \"kernels\": \"%s\"", report_json_escape(t->kernels, esc, sizeof esc));
    if (t->missing_technique[0])
        fprintf(f, ", \"missing_technique\": \"%s\"",
                report_json_escape(t->missing_technique, esc, sizeof esc));
    fprintf(f, ", \"seconds\": ");
    json_tm(f, t->tm);
    if (t->timed) {
        fprintf(f, ", \"ceiling\": \"%s\"", report_json_escape(lab_ceiling_name(spec, s), esc, sizeof esc));
        char sz[128];
        spec->size_text(lab_timed_size(spec, s), sz, sizeof sz);
        fprintf(f, ", \"timing\": {\"size\": \"%s\", \"reps\": %d, ",
                report_json_escape(sz, esc, sizeof esc), t->reps);
        json_num(f, "median_ms", t->median_ms, 1);
        json_num(f, "p10_ms", t->p10_ms, 1);
        json_num(f, "p90_ms", t->p90_ms, 1);
        json_num(f, "wall_ms", t->wall_ms, 1);
        json_num(f, "throughput", t->throughput, 1);
        json_num(f, "ceiling_ms", t->ceiling_ms, 1);
        json_num(f, "ceiling_throughput", t->ceiling_throughput, 1);
        json_num(f, "pct_ceiling", t->pct_ceiling, 1);
        fprintf(f, "\"base\": %d, ", t->base);
        json_num(f, "base_ms", t->base_ms, 1);
        json_num(f, "speedup", t->speedup, 1);
        json_num(f, "min_speedup", t->min_speedup, 1);
        json_num(f, "min_ceiling", t->min_ceiling, 0);
        fputc('}', f);
    }
    fputc('}', f);
}

int report_json(FILE *f, const lab_spec *const *specs, const lab_results *res, int n_labs,
                const devinfo *dev, uint64_t seed, const char *const *libs)
{
    return report_json_run(f, specs, res, n_labs, dev, seed, libs, 0, NULL);
}

int report_json_run(FILE *f, const lab_spec *const *specs, const lab_results *res, int n_labs,
                    const devinfo *dev, uint64_t seed, const char *const *libs, double elapsed_s,
                    const char *unguarded)
{
    char esc[512];
    int got_all = 0, max_all = 0;
    fprintf(f, "{\"seed\": \"0x%llx\", \"gpu\": {\"name\": \"%s\", \"compute_capability\": "
               "\"%d.%d\", \"sms\": %d, \"driver\": %d, \"runtime\": %d",
            (unsigned long long)seed, report_json_escape(dev ? dev->name : "", esc, sizeof esc),
            dev ? dev->cc_major : 0, dev ? dev->cc_minor : 0, dev ? dev->sms : 0,
            dev ? dev->driver_version : 0, dev ? dev->runtime_version : 0);
    if (dev && dev->sms_used) /* --sms: graded on this many of the "sms" (a green context) */
        fprintf(f, ", \"sms_used\": %d", dev->sms_used);
    fprintf(f, "},\n \"labs\": [");
    for (int l = 0; l < n_labs; l++) {
        const lab_spec *spec = specs[l];
        int got, max;
        report_score(spec, &res[l], &got, &max);
        got_all += got;
        max_all += max;
        fprintf(f, "%s\n  {\"lab\": %d, \"name\": \"%s\", \"library\": \"%s\", \"unit\": \"%s\", "
                   "\"ceiling\": \"%s\", \"impossible_over\": %.2f, \"score\": %d, "
                   "\"max_score\": %d, ",
                l ? "," : "", spec->number, spec->name,
                report_json_escape(libs ? libs[l] : "", esc, sizeof esc), spec->unit,
                spec->ceiling_name, lab_impossible_over(spec), got, max);
        fprintf(f, "\"seconds\": {\"before\": ");
        json_tm(f, res[l].parent_tm);
        fprintf(f, ", \"after\": %.3f, \"wall\": %.3f, \"stage_wall\": [", res[l].after_wall,
                res[l].wall);
        for (int s = 0; s < spec->n_stages; s++)
            fprintf(f, "%s%.3f", s ? ", " : "", res[l].stage_wall[s]);
        fprintf(f, "]}, \"stages\": [");
        int first = 1;
        for (int s = 0; s < spec->n_stages; s++) {
            const test_record *c = rec(&res[l], s, TEST_CORRECT);
            const test_record *p = rec(&res[l], s, TEST_PERF);
            if (!c->graded && !p->graded)
                continue;
            const lab_stage *st = &spec->stages[s];
            fprintf(f, "%s\n    {\"stage\": %d, \"title\": \"%s\", \"symbol\": \"%s\"", first ? "" : ",",
                    s, st->title, st->symbol);
            /* The rules it was graded by, so that --from reports them, not today's table. */
            fprintf(f, ", \"points_correct\": %d, \"points_speed\": %d, ", st->points_correct,
                    st->points_speed);
            json_num(f, "min_speedup", st->min_speedup, 1);
            json_num(f, "min_ceiling", st->min_ceiling, 0);
            first = 0;
            if (c->graded) {
                fprintf(f, ", \"correctness\": ");
                json_test(f, spec, s, TEST_CORRECT, c);
            }
            if (p->graded) {
                fprintf(f, ", \"speed\": ");
                json_test(f, spec, s, TEST_PERF, p);
            }
            fputc('}', f);
        }
        fprintf(f, "]}");
    }
    fprintf(f, "],\n \"score\": %d, \"max_score\": %d", got_all, max_all);
    if (elapsed_s > 0)
        fprintf(f, ", \"elapsed_s\": %.1f", elapsed_s);
    if (unguarded && *unguarded) { /* the sandbox was not all on: grader/batch flags the run */
        char text[2200];
        fprintf(f, ",\n \"unguarded\": \"%s\"", report_json_escape(unguarded, text, sizeof text));
    }
    fprintf(f, "}\n");
    return ferror(f) ? -1 : 0;
}
