/* fixtures.c: results made by hand, shared by the report and format tests,
 * and Check's summary line of a run. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../json.h"
#include "../lab.h"
#include "tests.h"


/* See tests.h: 8 graded tests, 40 of 70 points. */
void fixture_results(lab_results *r)
{
    lab_results res;
    memset(&res, 0, sizeof res);
    for (int s = 0; s < LAB_MAX_STAGES; s++)
        for (int k = 0; k < TEST_KINDS; k++)
            res.t[s][k].base = -1;
    int correct[] = {0, 1, 3, 4};
    for (int i = 0; i < 4; i++) {
        test_record *c = &res.t[correct[i]][TEST_CORRECT];
        c->graded = 1;
        c->state = STATE_FINISHED;
        c->v = V_PASS;
    }
    test_record *c0 = &res.t[0][TEST_CORRECT];
    c0->timed = 1;
    c0->throughput = 3900;
    c0->pct_ceiling = 92.5;
    c0->ceiling_throughput = 4216;
    test_record *p3 = &res.t[3][TEST_PERF];
    *p3 = (test_record){.graded = 1, .state = STATE_FINISHED, .v = V_PASS, .timed = 1,
                        .throughput = 2500, .pct_ceiling = 59.3, .ceiling_throughput = 4216,
                        .base = 2, .speedup = 2.5, .min_speedup = 1.2};
    test_record *p4 = &res.t[4][TEST_PERF];
    *p4 = (test_record){.graded = 1, .state = STATE_FINISHED, .v = V_SLOW, .timed = 1,
                        .throughput = 2600, .pct_ceiling = 61.7, .ceiling_throughput = 4216,
                        .base = 3, .speedup = 1.04, .min_speedup = 1.1};
    strcpy(p4->msg, "1.04x over stage 3");
    test_record *c5 = &res.t[5][TEST_CORRECT];
    c5->graded = 1;
    c5->state = STATE_FINISHED;
    c5->v = V_WRONG;
    strcpy(c5->msg, "at 33 x 65: 12 of 2145 output elements are wrong");
    res.t[5][TEST_PERF].graded = 1;
    res.t[5][TEST_PERF].state = STATE_FINISHED;
    res.t[5][TEST_PERF].v = V_SKIPPED;
    *r = res;
}

int json_balanced(const char *s)
{
    int depth = 0, in_str = 0;
    for (const char *p = s; *p; p++) {
        if (in_str) {
            if (*p == '\\' && p[1])
                p++;
            else if (*p == '"')
                in_str = 0;
            continue;
        }
        if (*p == '"')
            in_str = 1;
        else if (*p == '{' || *p == '[')
            depth++;
        else if ((*p == '}' || *p == ']') && --depth < 0)
            return 0;
    }
    return depth == 0 && !in_str;
}

int read_text(const char *path, char *buf, size_t n)
{
    FILE *f = fopen(path, "r");
    if (!f || n == 0)
        return -1;
    size_t k = fread(buf, 1, n - 1, f);
    buf[k] = '\0';
    fclose(f);
    return 0;
}

/* Every opened element is closed in order; attributes and text skipped. */
int xml_well_nested(const char *s)
{
    char stack[32][64];
    int depth = 0;
    for (const char *p = strchr(s, '<'); p; p = strchr(p + 1, '<')) {
        const char *end = strchr(p, '>');
        if (!end)
            return 0;
        if (p[1] == '?')
            continue;
        int closing = p[1] == '/', self = end[-1] == '/';
        const char *name = p + 1 + closing;
        size_t len = strcspn(name, " />");
        if (len == 0 || len >= 64)
            return 0;
        if (closing) {
            if (depth == 0 || strncmp(stack[depth - 1], name, len) != 0 ||
                stack[depth - 1][len] != '\0')
                return 0;
            depth--;
        } else if (!self) {
            if (depth == 32)
                return 0;
            snprintf(stack[depth++], 64, "%.*s", (int)len, name);
        }
    }
    return depth == 0;
}

int remove_tree(const char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd);
}

/* See tests.h. The reporter (classroom-resources/autograding-grading-reporter,
 * src/main.js and the files it calls) decodes each step's payload, fails the
 * job on a status "fail" or "error", counts tests with status "pass" against
 * all tests (so there must be one), prints each test's name, line_no and, for
 * an error, its message, and posts the sum of the scores out of max_score. */
void classroom_payload_check(const json *doc)
{
    ck_assert(doc != NULL && doc->type == JSON_OBJECT);
    ck_assert_int_eq((int)json_number(json_get(doc, "version"), 0), 1);
    const char *status = json_string(json_get(doc, "status"), "");
    ck_assert_msg(!strcmp(status, "pass") || !strcmp(status, "fail") || !strcmp(status, "error"),
                  "status \"%s\"", status);
    const json *max = json_get(doc, "max_score");
    ck_assert(max && max->type == JSON_NUMBER && max->number >= 0);
    const json *tests = json_get(doc, "tests");
    ck_assert(tests && tests->type == JSON_ARRAY && tests->n > 0);
    static const char *const fields[] = {"name", "status", "score", "message", "filename",
                                         "line_no", "execution_time"};
    static const json_type types[] = {JSON_STRING, JSON_STRING, JSON_NUMBER, JSON_STRING,
                                      JSON_STRING, JSON_NUMBER, JSON_STRING};
    for (int i = 0; i < tests->n; i++) {
        const json *t = &tests->items[i];
        ck_assert_int_eq(t->n, (int)(sizeof fields / sizeof fields[0]));
        for (size_t k = 0; k < sizeof fields / sizeof fields[0]; k++) {
            const json *v = json_get(t, fields[k]);
            ck_assert_msg(v && v->type == types[k], "test %d: field %s", i, fields[k]);
        }
    }
}

void test_skip(const char *why)
{
    const char *path = getenv("CUDA_LABS_TEST_SKIPS");
    FILE *f = path && *path ? fopen(path, "a") : NULL;
    ck_assert_msg(f != NULL, "skipped, with nowhere to record it (CUDA_LABS_TEST_SKIPS): %s", why);
    fprintf(f, "%.*s\n", (int)strcspn(why, "\n"), why);
    fclose(f);
}

void check_summary_text(SRunner *sr, char *buf, size_t n)
{
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    fflush(stdout);
    int saved = dup(STDOUT_FILENO);
    dup2(fileno(f), STDOUT_FILENO);
    srunner_print(sr, CK_MINIMAL);
    fflush(stdout);
    dup2(saved, STDOUT_FILENO);
    close(saved);
    rewind(f);
    size_t got = fread(buf, 1, n - 1, f);
    buf[got] = '\0';
    fclose(f);
}

int test_lab_runs_here(const lab_spec *spec)
{
    const char *v = getenv("CUDA_LABS_TEST_GPU_CC");
    if (!v || !*v)
        return 1;
    int cc = atoi(v);
    for (int s = 0; s < spec->n_stages; s++)
        if (lab_stage_available(&spec->stages[s], cc / 10, cc % 10))
            return 1;
    return 0;
}
