/* analytics.c: a class's results, read back from the --json files of a batch
 * (grader/batch writes one per student): per lab and stage, how many passed,
 * the median speedup and its spread, a histogram, and the timings that look
 * implausible and deserve a look by hand. */
#define _GNU_SOURCE
#include "analytics.h"

#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/stats.h"
#include "json.h"
#include "lab.h"

#define MAX_STUDENTS 4096

typedef struct stage_stats {
    char title[80];
    int seen, correct_graded, correct_pass, speed_graded, speed_pass;
    double *speedups;
    char **who; /* the student of each speedup */
    int n_speedups;
} stage_stats;

typedef struct class_stats {
    char lab_name[32], unit[16], ceiling[40];
    int students;
    stage_stats st[LAB_MAX_STAGES];
} class_stats;

/* Speedup histogram buckets (upper edges). */
static const double edges[] = {0.5, 0.8, 1.0, 1.2, 1.5, 2.0, 3.0, INFINITY};
#define N_EDGES ((int)(sizeof edges / sizeof edges[0]))

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = size >= 0 ? malloc((size_t)size + 1) : NULL;
    if (text) {
        size_t got = fread(text, 1, (size_t)size, f);
        text[got] = '\0';
    }
    fclose(f);
    return text;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void add_speedup(stage_stats *s, double v, const char *student)
{
    double *more = realloc(s->speedups, (size_t)(s->n_speedups + 1) * sizeof *more);
    if (!more)
        return;
    s->speedups = more;
    char **names = realloc(s->who, (size_t)(s->n_speedups + 1) * sizeof *names);
    if (!names)
        return;
    s->who = names;
    s->who[s->n_speedups] = strdup(student);
    s->speedups[s->n_speedups++] = v;
}

/* One student's file: counts into stats; notes what looks implausible. */
static void take_file(const json *doc, const char *student, class_stats *labs, FILE *flags,
                      int *n_flags)
{
    const json *arr = json_get(doc, "labs");
    for (int l = 0; arr && arr->type == JSON_ARRAY && l < arr->n; l++) {
        const json *lab = &arr->items[l];
        const int number = (int)json_number(json_get(lab, "lab"), 0);
        const int at = lab_position(number);
        if (at < 0)
            continue;
        class_stats *c = &labs[at];
        c->students++;
        snprintf(c->lab_name, sizeof c->lab_name, "%s", json_string(json_get(lab, "name"), "?"));
        snprintf(c->unit, sizeof c->unit, "%s", json_string(json_get(lab, "unit"), ""));
        snprintf(c->ceiling, sizeof c->ceiling, "%s", json_string(json_get(lab, "ceiling"), "the ceiling"));
        /* Results written before the field existed: the rule was 10%. */
        const double over = json_number(json_get(lab, "impossible_over"), 1.10);
        const json *stages = json_get(lab, "stages");
        for (int k = 0; stages && stages->type == JSON_ARRAY && k < stages->n; k++) {
            const json *st = &stages->items[k];
            int s = (int)json_number(json_get(st, "stage"), -1);
            if (s < 0 || s >= LAB_MAX_STAGES)
                continue;
            stage_stats *ss = &c->st[s];
            ss->seen++;
            snprintf(ss->title, sizeof ss->title, "%s", json_string(json_get(st, "title"), ""));
            const json *corr = json_get(st, "correctness"), *speed = json_get(st, "speed");
            if (corr && strcmp(json_string(json_get(corr, "verdict"), ""), "NOT AVAILABLE") == 0)
                continue; /* this student's GPU could not grade the stage */
            if (corr) {
                ss->correct_graded++;
                ss->correct_pass += strcmp(json_string(json_get(corr, "verdict"), ""), "PASS") == 0;
            }
            const json *timed = NULL;
            if (speed) {
                ss->speed_graded++;
                const char *v = json_string(json_get(speed, "verdict"), "");
                ss->speed_pass += strcmp(v, "PASS") == 0;
                if (strcmp(v, "IMPOSSIBLE") == 0 || strcmp(v, "TIMING ANOMALY") == 0) {
                    fprintf(flags, "  %s, lab %d stage %d: the grader said %s\n", student, number,
                            s, v);
                    (*n_flags)++;
                }
                timed = json_get(speed, "timing");
                double sp = json_number(json_get(timed, "speedup"), NAN);
                if (timed && isfinite(sp) && sp > 0)
                    add_speedup(ss, sp, student);
            }
            if (!timed && corr)
                timed = json_get(corr, "timing");
            double pct = json_number(json_get(timed, "pct_ceiling"), NAN);
            /* As the grader's own IMPOSSIBLE rule (10% above the ceiling is noise
             * no more, except where the lab allows more). */
            if (timed && isfinite(pct) && pct > 100.0 * over) {
                fprintf(flags, "  %s, lab %d stage %d: %.0f %s is %.0f%% of %s measured in the same run\n",
                        student, number, s, json_number(json_get(timed, "throughput"), 0), c->unit,
                        pct, c->ceiling);
                (*n_flags)++;
            }
        }
    }
}

/* The students grader/batch recorded without a result file (their
 * submission did not build, had no lab file, timed out): its
 * <student>.status files with no <student>.json beside them. */
/* The names of the files in dir that end in suffix, sorted (at most
 * MAX_STUDENTS); *names to free, each name too. The count, or -1 when the
 * folder cannot be opened. */
static int list_files(const char *dir, const char *suffix, char ***names)
{
    *names = NULL;
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int n = 0;
    size_t sl = strlen(suffix);
    struct dirent *e;
    while ((e = readdir(d)) && n < MAX_STUDENTS) {
        size_t len = strlen(e->d_name);
        if (len <= sl || strcmp(e->d_name + len - sl, suffix) != 0)
            continue;
        char **more = realloc(*names, (size_t)(n + 1) * sizeof *more);
        if (!more)
            break;
        *names = more;
        if (!(more[n] = strdup(e->d_name)))
            break;
        n++;
    }
    closedir(d);
    if (n)
        qsort(*names, (size_t)n, sizeof **names, by_name);
    return n;
}

static void without_results(const char *dir, FILE *out)
{
    char **names;
    int n = list_files(dir, ".status", &names), shown = 0;
    for (int i = 0; i < n; i++) {
        int len = (int)strlen(names[i]) - 7;
        char path[4096];
        snprintf(path, sizeof path, "%s/%.*s.json", dir, len, names[i]);
        if (access(path, F_OK) != 0) {
            snprintf(path, sizeof path, "%s/%s", dir, names[i]);
            char *status = read_file(path);
            if (status)
                status[strcspn(status, "\n")] = '\0';
            if (!shown++)
                fprintf(out, "Without results (from grader/batch; see their .log files):\n");
            fprintf(out, "  %.*s: %s\n", len, names[i],
                    status && status[0] ? status : "no status");
            free(status);
        }
        free(names[i]);
    }
    free(names);
}

int analytics_report(const char *dir, FILE *out, char *err, size_t errn)
{
    char **names;
    int n = list_files(dir, ".json", &names);
    if (n < 0) {
        snprintf(err, errn, "cannot open the folder %s", dir);
        return -1;
    }

    static class_stats labs[LAB_MAX]; /* by the lab's position (lab_position) */
    memset(labs, 0, sizeof labs);
    char *flag_text = NULL, *bad_text = NULL, *open_text = NULL;
    size_t flag_len = 0, bad_len = 0, open_len = 0;
    FILE *flags = open_memstream(&flag_text, &flag_len);
    FILE *bad = open_memstream(&bad_text, &bad_len);
    FILE *unguarded = open_memstream(&open_text, &open_len); /* graded with the sandbox partly off */
    int n_flags = 0, n_bad = 0, n_read = 0, n_open = 0;
    for (int i = 0; i < n; i++) {
        char path[4096], why[256];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        char *text = read_file(path);
        json *doc = text ? json_parse(text, why, sizeof why) : NULL;
        if (!doc) {
            fprintf(bad, "  %s: %s\n", names[i], text ? why : "cannot be read");
            n_bad++;
        } else {
            names[i][strlen(names[i]) - 5] = '\0'; /* the student */
            take_file(doc, names[i], labs, flags, &n_flags);
            n_read++;
            const char *off = json_string(json_get(doc, "unguarded"), "");
            if (*off) {
                fprintf(unguarded, "  %s: %s\n", names[i], off);
                n_open++;
            }
        }
        json_free(doc);
        free(text);
    }
    fclose(flags);
    fclose(bad);
    fclose(unguarded);

    fprintf(out, "Class analytics: %d result file%s read from %s", n_read, n_read == 1 ? "" : "s",
            dir);
    fprintf(out, n_bad ? ", %d could not be:\n%s" : "\n", n_bad, bad_text);
    without_results(dir, out);
    for (int l = 0; l < lab_count; l++) {
        class_stats *c = &labs[l];
        if (!c->students)
            continue;
        fprintf(out, "\nlab %d (%s), %d student%s\n", lab_table[l]->number, c->lab_name,
                c->students, c->students == 1 ? "" : "s");
        fprintf(out, "  %-2s %-34s %-12s %-12s %s\n", "#", "stage", "correct", "fast enough",
                "speedup: median (p10-p90)");
        for (int s = 0; s < LAB_MAX_STAGES; s++) {
            stage_stats *ss = &c->st[s];
            if (!ss->seen)
                continue;
            char corr[32] = "-", fast[32] = "-", sp[64] = "-";
            if (ss->correct_graded)
                snprintf(corr, sizeof corr, "%d/%d", ss->correct_pass, ss->correct_graded);
            if (ss->speed_graded)
                snprintf(fast, sizeof fast, "%d/%d", ss->speed_pass, ss->speed_graded);
            if (ss->n_speedups)
                snprintf(sp, sizeof sp, "%.2fx (%.2f-%.2f)",
                         stats_median(ss->speedups, (size_t)ss->n_speedups),
                         stats_quantile(ss->speedups, (size_t)ss->n_speedups, 0.1),
                         stats_quantile(ss->speedups, (size_t)ss->n_speedups, 0.9));
            fprintf(out, "  %-2d %-34s %-12s %-12s %s\n", s, ss->title, corr, fast, sp);
            if (ss->n_speedups < 2)
                continue;
            /* A histogram of the speedups, and outliers far above the class. */
            int count[N_EDGES] = {0};
            for (int i = 0; i < ss->n_speedups; i++) {
                int b = 0;
                while (b < N_EDGES - 1 && ss->speedups[i] >= edges[b])
                    b++;
                count[b]++;
            }
            for (int b = 0; b < N_EDGES; b++) {
                if (!count[b])
                    continue;
                char range[32];
                if (b == 0)
                    snprintf(range, sizeof range, "below %.1fx", edges[0]);
                else if (isinf(edges[b]))
                    snprintf(range, sizeof range, "%.1fx and up", edges[b - 1]);
                else
                    snprintf(range, sizeof range, "%.1f-%.1fx", edges[b - 1], edges[b]);
                fprintf(out, "       %14s | ", range);
                for (int k = 0; k < count[b] && k < 60; k++)
                    fputc('#', out);
                fprintf(out, " %d\n", count[b]);
            }
        }
    }
    /* Speedups far above the rest of the class join the grader's own flags. */
    char *outliers = NULL;
    size_t outliers_len = 0;
    FILE *o = open_memstream(&outliers, &outliers_len);
    for (int l = 0; l < lab_count; l++)
        for (int s = 0; s < LAB_MAX_STAGES; s++) {
            stage_stats *ss = &labs[l].st[s];
            if (ss->n_speedups < 3)
                continue;
            double median = stats_median(ss->speedups, (size_t)ss->n_speedups);
            for (int i = 0; i < ss->n_speedups; i++)
                if (median > 0 && ss->speedups[i] > 3 * median) {
                    fprintf(o, "  %s, lab %d stage %d: %.2fx, over 3 times the class median (%.2fx)\n",
                            ss->who[i], lab_table[l]->number, s, ss->speedups[i], median);
                    n_flags++;
                }
        }
    fclose(o);
    if (n_flags)
        fprintf(out, "\nImplausible timings, to check by hand (%d):\n%s%s", n_flags,
                flag_text ? flag_text : "", outliers ? outliers : "");
    else
        fprintf(out, "\nImplausible timings: none.\n");
    free(outliers);
    if (n_open)
        fprintf(out, "\nGraded with part of the sandbox off, to grade again where all of it is on "
                     "(%d):\n%s",
                n_open, open_text);
    for (int l = 0; l < lab_count; l++)
        for (int s = 0; s < LAB_MAX_STAGES; s++) {
            for (int i = 0; i < labs[l].st[s].n_speedups; i++)
                free(labs[l].st[s].who[i]);
            free(labs[l].st[s].who);
            free(labs[l].st[s].speedups);
        }
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
    free(flag_text);
    free(bad_text);
    free(open_text);
    if (n_read == 0) {
        snprintf(err, errn, "no result file could be read in %s", dir);
        return -1;
    }
    return 0;
}

/* ---- stability: many runs of the same code ---- */

typedef struct run_stats {
    char title[80];
    int runs, failures;
    double min_speedup, min_ceiling; /* the thresholds it was graded by */
    int speed_graded, has_base;
    double speedup[ANALYTICS_MAX_RUNS], pct[ANALYTICS_MAX_RUNS];
    int n_speedup, n_pct;
} run_stats;

static void take_run(const json *doc, run_stats (*labs)[LAB_MAX_STAGES], char *gpu, size_t gpun)
{
    /* The GPU and, with --sms, the part of it: runs on other SMs are not the same code's
     * spread. */
    const json *g = json_get(doc, "gpu");
    int used = (int)json_number(json_get(g, "sms_used"), 0);
    if (used > 0)
        snprintf(gpu, gpun, "%s (%d of %d SMs, --sms)", json_string(json_get(g, "name"), "?"), used,
                 (int)json_number(json_get(g, "sms"), 0));
    else
        snprintf(gpu, gpun, "%s", json_string(json_get(g, "name"), "?"));
    const json *arr = json_get(doc, "labs");
    for (int l = 0; arr && arr->type == JSON_ARRAY && l < arr->n; l++) {
        const json *lab = &arr->items[l];
        const int at = lab_position((int)json_number(json_get(lab, "lab"), 0));
        const json *stages = json_get(lab, "stages");
        for (int k = 0; at >= 0 && stages &&
                        stages->type == JSON_ARRAY && k < stages->n;
             k++) {
            const json *st = &stages->items[k];
            int s = (int)json_number(json_get(st, "stage"), -1);
            if (s < 0 || s >= LAB_MAX_STAGES)
                continue;
            run_stats *r = &labs[at][s];
            snprintf(r->title, sizeof r->title, "%s", json_string(json_get(st, "title"), ""));
            const json *corr = json_get(st, "correctness"), *speed = json_get(st, "speed");
            const char *cv = json_string(json_get(corr, "verdict"), "");
            if (strcmp(cv, "NOT AVAILABLE") == 0)
                continue; /* not graded on that GPU: neither a run nor a failure */
            /* The stage's rules; files from before they were written there
             * carry them in the speed test's timing. */
            const json *rules = json_get(speed, "timing");
            r->min_speedup = json_number(json_get(st, "min_speedup"),
                                         json_number(json_get(rules, "min_speedup"), 0));
            r->min_ceiling = json_number(json_get(st, "min_ceiling"),
                                         json_number(json_get(rules, "min_ceiling"), 0));
            r->speed_graded = json_number(json_get(st, "points_speed"), speed ? 1 : 0) > 0;
            int failed = corr && strcmp(cv, "PASS") != 0;
            failed |= speed && strcmp(json_string(json_get(speed, "verdict"), ""), "PASS") != 0;
            r->failures += failed;
            r->runs++;
            const json *timed = json_get(speed ? speed : corr, "timing");
            double sp = json_number(json_get(timed, "speedup"), NAN);
            double pct = json_number(json_get(timed, "pct_ceiling"), NAN);
            if (json_number(json_get(timed, "base"), -1) >= 0 && isfinite(sp) &&
                r->n_speedup < ANALYTICS_MAX_RUNS) {
                r->has_base = 1;
                r->speedup[r->n_speedup++] = sp;
            }
            if (timed && isfinite(pct) && r->n_pct < ANALYTICS_MAX_RUNS)
                r->pct[r->n_pct++] = pct;
        }
    }
}

/* "min / median / max" of v, or "-" */
static void spread(char *buf, size_t n, const double *v, int k, const char *fmt)
{
    if (k == 0) {
        snprintf(buf, n, "-");
        return;
    }
    double lo = v[0], hi = v[0];
    for (int i = 1; i < k; i++) {
        lo = v[i] < lo ? v[i] : lo;
        hi = v[i] > hi ? v[i] : hi;
    }
    char a[16], b[16], c[16];
    snprintf(a, sizeof a, fmt, lo);
    snprintf(b, sizeof b, fmt, stats_median(v, (size_t)k));
    snprintf(c, sizeof c, fmt, hi);
    snprintf(buf, n, "%s / %s / %s", a, b, c);
}

static double min_of(const double *v, int k)
{
    double lo = INFINITY;
    for (int i = 0; i < k; i++)
        lo = v[i] < lo ? v[i] : lo;
    return lo;
}

int analytics_stability(const char *dir, FILE *out, char *err, size_t errn)
{
    char **names;
    int n = list_files(dir, ".json", &names);
    if (n < 0) {
        snprintf(err, errn, "cannot open the folder %s", dir);
        return -1;
    }
    static run_stats labs[LAB_MAX][LAB_MAX_STAGES]; /* by the lab's position */
    memset(labs, 0, sizeof labs);
    char gpu[128] = "?", first_gpu[128] = "", other_gpu[128] = "";
    int n_read = 0;
    for (int i = 0; i < n; i++) {
        char path[4096], why[256];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        char *text = read_file(path);
        json *doc = text ? json_parse(text, why, sizeof why) : NULL;
        if (doc) {
            take_run(doc, labs, gpu, sizeof gpu);
            if (!n_read)
                snprintf(first_gpu, sizeof first_gpu, "%s", gpu);
            else if (strcmp(gpu, first_gpu) != 0 && !other_gpu[0])
                snprintf(other_gpu, sizeof other_gpu, "%s", gpu);
            n_read++;
        } else {
            fprintf(out, "  %s could not be read: %s\n", names[i], text ? why : "no such file");
        }
        json_free(doc);
        free(text);
        free(names[i]);
    }
    free(names);
    if (n_read == 0) {
        snprintf(err, errn, "no result file could be read in %s", dir);
        return -1;
    }
    fprintf(out, "Stability: %d result file%s read from %s (GPU: %s)\n", n_read, n_read == 1 ? "" : "s",
            dir, gpu);
    if (other_gpu[0])
        fprintf(out, "  warning: these runs were not all made on the same GPU and SMs (%s, and "
                     "%s): their spread is not one GPU's; summarise each in a folder of its own\n",
                first_gpu, other_gpu);
    fprintf(out, "  margin: how far the worst run stayed above the threshold; '!' marks less "
                 "than 10%%\n");
    int failures = 0, close_calls = 0;
    for (int l = 0; l < lab_count; l++) {
        int shown = 0;
        for (int s = 0; s < LAB_MAX_STAGES; s++) {
            run_stats *r = &labs[l][s];
            if (!r->runs)
                continue;
            if (!shown++)
                fprintf(out, "\nlab %d\n  %-2s %-38s %4s %5s  %-22s %6s %7s  %-24s %5s %7s\n",
                        lab_table[l]->number, "#", "stage", "runs", "fails",
                        "speedup min/med/max", "needs", "margin", "% of ceiling min/med/max",
                        "needs", "margin");
            char sp[64], pc[64], needs_sp[16] = "-", needs_pc[16] = "-", m_sp[16] = "-",
                                                   m_pc[16] = "-";
            spread(sp, sizeof sp, r->speedup, r->n_speedup, "%.2f");
            spread(pc, sizeof pc, r->pct, r->n_pct, "%.1f");
            if (r->speed_graded && r->has_base && r->min_speedup > 0 && r->n_speedup) {
                double m = min_of(r->speedup, r->n_speedup) / r->min_speedup - 1;
                snprintf(needs_sp, sizeof needs_sp, "%.2fx", r->min_speedup);
                snprintf(m_sp, sizeof m_sp, "%+.0f%%%s", 100 * m, m < 0.10 ? " !" : "");
                close_calls += m < 0.10;
            }
            if (r->speed_graded && r->min_ceiling > 0 && r->n_pct) {
                double m = min_of(r->pct, r->n_pct) / (100 * r->min_ceiling) - 1;
                snprintf(needs_pc, sizeof needs_pc, "%.0f%%", 100 * r->min_ceiling);
                snprintf(m_pc, sizeof m_pc, "%+.0f%%%s", 100 * m, m < 0.10 ? " !" : "");
                close_calls += m < 0.10;
            }
            fprintf(out, "  %-2d %-38.38s %4d %5d  %-22s %6s %7s  %-24s %5s %7s\n", s, r->title,
                    r->runs, r->failures, sp, needs_sp, m_sp, pc, needs_pc, m_pc);
            failures += r->failures;
        }
    }
    fprintf(out, "\n%d failure%s in %d file%s; %d threshold%s with less than 10%% to spare.\n",
            failures, failures == 1 ? "" : "s", n_read, n_read == 1 ? "" : "s", close_calls,
            close_calls == 1 ? "" : "s");
    return failures ? 1 : 0;
}
