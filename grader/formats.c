#define _GNU_SOURCE
#include "formats.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

/* One graded test, as every format sees it. */
typedef struct test_item {
    const lab_spec *spec;
    int stage, kind;
    const test_record *t;
    char name[160];
    int points, max_points;
    const char *status; /* "pass", "fail" or "error" */
} test_item;

/* The test ended in a fault of the submission (it could not be judged on its
 * merits), rather than with a wrong or slow result. */
static int is_error(verdict v)
{
    return v == V_TIMEOUT || v == V_CRASH || v == V_GPU_FAULT || v == V_EARLY_EXIT ||
           v == V_SETUP_ERROR || v == V_LAUNCH_ERROR;
}

/* Calls fn for every graded test, in order; returns how many there were. */
static int each_test(const run_summary *r, void (*fn)(const test_item *, int index, void *),
                     void *arg)
{
    int index = 0;
    for (int l = 0; l < r->n_labs; l++) {
        const lab_spec *spec = r->specs[l];
        for (int s = 0; s < spec->n_stages; s++)
            for (int k = 0; k < TEST_KINDS; k++) {
                const test_record *t = &r->res[l].t[s][k];
                if (!t->graded)
                    continue;
                test_item it = {spec, s, k, t, "", results_points(spec, s, k, t),
                                results_max_points(spec, s, k), "pass"};
                snprintf(it.name, sizeof it.name, "lab%d stage %d (%s): %s", spec->number, s,
                         spec->stages[s].title, k == TEST_CORRECT ? "correctness" : "speed");
                if (t->v != V_PASS)
                    it.status = is_error(t->v) ? "error" : "fail";
                if (fn)
                    fn(&it, index, arg);
                index++;
            }
    }
    return index;
}

static void totals(const run_summary *r, int *got, int *max, int *failed, int *errors)
{
    *got = *max = *failed = *errors = 0;
    for (int l = 0; l < r->n_labs; l++) {
        int g, m;
        report_score(r->specs[l], &r->res[l], &g, &m);
        *got += g;
        *max += m;
        for (int s = 0; s < r->specs[l]->n_stages; s++)
            for (int k = 0; k < TEST_KINDS; k++) {
                const test_record *t = &r->res[l].t[s][k];
                if (!t->graded || t->v == V_PASS)
                    continue;
                if (is_error(t->v))
                    (*errors)++;
                else
                    (*failed)++;
            }
    }
}

/* "2104 GB/s, 49.8% of cudaMemcpy D2D, 1.94x over stage 3 (needs 1.40x)" */
static void metrics_text(const test_item *it, char *buf, size_t n)
{
    const test_record *t = it->t;
    buf[0] = '\0';
    if (!t->timed)
        return;
    int k = snprintf(buf, n, "%.0f %s, %.1f%% of %s", t->throughput, it->spec->unit,
                     t->pct_ceiling, lab_ceiling_name(it->spec, it->stage));
    if (k > 0 && (size_t)k < n && t->base >= 0)
        k += snprintf(buf + k, n - (size_t)k, ", %.2fx over stage %d (needs %.2fx)", t->speedup,
                      t->base, t->min_speedup);
    if (k > 0 && (size_t)k < n && t->min_ceiling > 0)
        snprintf(buf + k, n - (size_t)k, " (needs %.0f%% of the ceiling)", 100.0 * t->min_ceiling);
}

/* ---- JUnit XML ---- */

const char *format_xml_escape(const char *s, char *buf, size_t n)
{
    size_t o = 0;
    if (n == 0)
        return buf;
    for (; s && *s && o + 7 < n; s++) {
        const char *rep = NULL;
        switch (*s) {
        case '&': rep = "&amp;"; break;
        case '<': rep = "&lt;"; break;
        case '>': rep = "&gt;"; break;
        case '"': rep = "&quot;"; break;
        case '\'': rep = "&apos;"; break;
        default: break;
        }
        if (rep) {
            size_t len = strlen(rep);
            memcpy(buf + o, rep, len);
            o += len;
        } else if ((unsigned char)*s < 0x20 && *s != '\n' && *s != '\t') {
            buf[o++] = ' '; /* control characters are not allowed in XML 1.0 */
        } else {
            buf[o++] = *s;
        }
    }
    buf[o] = '\0';
    return buf;
}

static void junit_case(const test_item *it, int index, void *arg)
{
    FILE *f = arg;
    (void)index;
    char name[400], msg[2 * VERDICT_MSG + 64], metrics[200], esc[400];
    format_xml_escape(it->name, name, sizeof name);
    fprintf(f, "    <testcase classname=\"lab%d.%s\" name=\"%s\" time=\"%.6f\">\n",
            it->spec->number, it->spec->name, name, it->t->timed ? it->t->median_ms / 1e3 : 0.0);
    if (it->t->v != V_PASS) {
        format_xml_escape(it->t->msg, msg, sizeof msg);
        fprintf(f, "      <%s type=\"%s\" message=\"%s\">%s</%s>\n",
                is_error(it->t->v) ? "error" : "failure", verdict_name(it->t->v), msg, msg,
                is_error(it->t->v) ? "error" : "failure");
    }
    metrics_text(it, metrics, sizeof metrics);
    if (metrics[0])
        fprintf(f, "      <system-out>%s</system-out>\n",
                format_xml_escape(metrics, esc, sizeof esc));
    fprintf(f, "    </testcase>\n");
}

int format_junit(FILE *f, const run_summary *r)
{
    int got, max, failed, errors;
    totals(r, &got, &max, &failed, &errors);
    char esc[400];
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    fprintf(f, "<testsuites name=\"cuda-labs\" tests=\"%d\" failures=\"%d\" errors=\"%d\">\n",
            each_test(r, NULL, NULL), failed, errors);
    for (int l = 0; l < r->n_labs; l++) {
        run_summary one = {r->specs + l, r->res + l, 1, r->dev, r->seed};
        int g, m, fl, er;
        totals(&one, &g, &m, &fl, &er);
        fprintf(f, "  <testsuite name=\"lab%d-%s\" tests=\"%d\" failures=\"%d\" errors=\"%d\">\n",
                r->specs[l]->number, r->specs[l]->name, each_test(&one, NULL, NULL), fl, er);
        fprintf(f, "    <properties>\n");
        fprintf(f, "      <property name=\"seed\" value=\"0x%llx\"/>\n",
                (unsigned long long)r->seed);
        fprintf(f, "      <property name=\"gpu\" value=\"%s\"/>\n",
                format_xml_escape(r->dev ? r->dev->name : "", esc, sizeof esc));
        fprintf(f, "      <property name=\"score\" value=\"%d/%d\"/>\n", g, m);
        fprintf(f, "    </properties>\n");
        each_test(&one, junit_case, f);
        fprintf(f, "  </testsuite>\n");
    }
    fprintf(f, "</testsuites>\n");
    return ferror(f) ? -1 : 0;
}

/* ---- TAP 13 ---- */

static void tap_case(const test_item *it, int index, void *arg)
{
    FILE *f = arg;
    fprintf(f, "%s %d - %s\n", it->t->v == V_PASS ? "ok" : "not ok", index + 1, it->name);
    char metrics[200];
    metrics_text(it, metrics, sizeof metrics);
    if (it->t->v == V_PASS && !metrics[0])
        return;
    /* YAML block: single-quoted scalars, quotes doubled. */
    fprintf(f, "  ---\n  verdict: %s\n  points: %d/%d\n", verdict_name(it->t->v), it->points,
            it->max_points);
    if (it->t->v != V_PASS) {
        fprintf(f, "  message: '");
        for (const char *p = it->t->msg; *p; p++) {
            if (*p == '\'')
                fputs("''", f);
            else
                fputc(*p == '\n' ? ' ' : *p, f);
        }
        fprintf(f, "'\n");
    }
    if (metrics[0])
        fprintf(f, "  metrics: '%s'\n", metrics);
    fprintf(f, "  ...\n");
}

int format_tap(FILE *f, const run_summary *r)
{
    fprintf(f, "TAP version 13\n1..%d\n", each_test(r, NULL, NULL));
    each_test(r, tap_case, f);
    int got, max, failed, errors;
    totals(r, &got, &max, &failed, &errors);
    fprintf(f, "# seed 0x%llx, score %d/%d\n", (unsigned long long)r->seed, got, max);
    return ferror(f) ? -1 : 0;
}

/* ---- Gradescope results.json ---- */

static void gradescope_case(const test_item *it, int index, void *arg)
{
    FILE *f = arg;
    char name[400], out[2 * VERDICT_MSG + 400], text[VERDICT_MSG + 300], metrics[200];
    metrics_text(it, metrics, sizeof metrics);
    snprintf(text, sizeof text, "%s%s%s%s%s", verdict_name(it->t->v),
             it->t->msg[0] ? ": " : "", it->t->msg, metrics[0] ? "\n" : "", metrics);
    fprintf(f,
            "%s\n    {\"number\": \"%d\", \"name\": \"%s\", \"score\": %d, \"max_score\": %d, "
            "\"status\": \"%s\", \"output\": \"%s\", \"visibility\": \"visible\"}",
            index ? "," : "", index + 1, report_json_escape(it->name, name, sizeof name),
            it->points, it->max_points, it->t->v == V_PASS ? "passed" : "failed",
            report_json_escape(text, out, sizeof out));
}

int format_gradescope(FILE *f, const run_summary *r)
{
    int got, max, failed, errors;
    totals(r, &got, &max, &failed, &errors);
    char gpu[300];
    fprintf(f,
            "{\"score\": %d, \"output\": \"CUDA Labs grader: %d/%d points on %s, seed 0x%llx\", "
            "\"visibility\": \"visible\", \"stdout_visibility\": \"visible\",\n  \"tests\": [",
            got, got, max,
            report_json_escape(r->dev ? r->dev->name : "an unknown GPU", gpu, sizeof gpu),
            (unsigned long long)r->seed);
    each_test(r, gradescope_case, f);
    fprintf(f, "\n  ]\n}\n");
    return ferror(f) ? -1 : 0;
}

/* ---- GitHub Classroom reporter payload ---- */

static void classroom_case(const test_item *it, int index, void *arg)
{
    FILE *f = arg;
    char name[400], msg[2 * VERDICT_MSG + 64];
    fprintf(f,
            "%s{\"name\": \"%s\", \"status\": \"%s\", \"score\": %d, \"message\": \"%s%s%s\"}",
            index ? ", " : "", report_json_escape(it->name, name, sizeof name), it->status,
            it->points, verdict_name(it->t->v), it->t->msg[0] ? ": " : "",
            report_json_escape(it->t->msg, msg, sizeof msg));
}

int format_classroom(FILE *f, const run_summary *r)
{
    int got, max, failed, errors;
    totals(r, &got, &max, &failed, &errors);
    const char *status = errors ? "error" : failed ? "fail" : "pass";
    fprintf(f, "{\"version\": 1, \"status\": \"%s\", \"max_score\": %d, \"tests\": [", status,
            max);
    each_test(r, classroom_case, f);
    fprintf(f, "]}");
    return ferror(f) ? -1 : 0;
}

char *format_base64(const unsigned char *in, size_t n, char *out)
{
    static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t o = 0;
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)in[i] << 16;
        if (i + 1 < n)
            v |= (unsigned)in[i + 1] << 8;
        if (i + 2 < n)
            v |= in[i + 2];
        out[o++] = abc[(v >> 18) & 63];
        out[o++] = abc[(v >> 12) & 63];
        out[o++] = i + 1 < n ? abc[(v >> 6) & 63] : '=';
        out[o++] = i + 2 < n ? abc[v & 63] : '=';
    }
    out[o] = '\0';
    return out;
}

/* ---- Autolab ---- */

int format_autolab(FILE *f, const run_summary *r)
{
    fprintf(f, "{\"scores\": {");
    for (int l = 0; l < r->n_labs; l++) {
        int got, max;
        report_score(r->specs[l], &r->res[l], &got, &max);
        fprintf(f, "%s\"lab%d\": %d", l ? ", " : "", r->specs[l]->number, got);
    }
    fprintf(f, "}}\n");
    return ferror(f) ? -1 : 0;
}

/* GitHub Classroom: the reporter reads a base64 JSON payload from a step
 * output named "result". */
int format_classroom_output(const run_summary *summary)
{
    char *json = NULL, *b64 = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&json, &len);
    if (!mem || format_classroom(mem, summary) != 0 || fclose(mem) != 0) {
        fprintf(stderr, "grade: cannot build the Classroom payload\n");
        free(json);
        return -1;
    }
    b64 = malloc(4 * (len / 3 + 1) + 1);
    if (!b64) {
        free(json);
        return -1;
    }
    format_base64((const unsigned char *)json, len, b64);
    const char *path = getenv("GITHUB_OUTPUT");
    FILE *f = path && *path ? fopen(path, "a") : stdout;
    int rc = 0;
    if (!f) {
        fprintf(stderr, "grade: cannot append to %s: %s\n", path, strerror(errno));
        rc = -1;
    } else {
        fprintf(f, "result=%s\n", b64);
        if (f != stdout)
            fclose(f);
    }
    free(json);
    free(b64);
    return rc;
}

/* A results.json with no tests, when grading never started: what the grader
 * said, and the end of the build log if the platform script names one. */
void format_gradescope_fallback(const char *path, int rc, const char *said)
{
    char text[8192];
    int k = snprintf(text, sizeof text, "Nothing was graded (grader exit status %d).\n%s", rc,
                     said);
    const char *log = getenv("GRADE_BUILD_LOG");
    FILE *b = log && *log ? fopen(log, "r") : NULL;
    if (b && k > 0 && (size_t)k < sizeof text) {
        fseek(b, 0, SEEK_END);
        long size = ftell(b);
        fseek(b, size > 3000 ? size - 3000 : 0, SEEK_SET);
        k += snprintf(text + k, sizeof text - (size_t)k, "\nThe end of the build log:\n");
        size_t got = fread(text + k, 1, sizeof text - (size_t)k - 1, b);
        text[(size_t)k + got] = '\0';
    }
    if (b)
        fclose(b);
    static char esc[2 * sizeof text];
    FILE *f = fopen(path, "w");
    if (!f)
        return;
    fprintf(f, "{\"score\": 0, \"output\": \"%s\", \"visibility\": \"visible\", \"tests\": []}\n",
            report_json_escape(text, esc, sizeof esc));
    fclose(f);
}
