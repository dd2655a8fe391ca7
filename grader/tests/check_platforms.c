/* check_platforms.c: what the grading platforms receive from ./grade and the
 * Makefile, from the outside and without a GPU: GitHub Classroom's payload
 * when nothing was graded, the student copy's one grading workflow (its
 * steps, and its step scripts run when the course's grader cannot grade:
 * a payload for every lab all the same), a run
 * read back with --from (the identity, and every format agreeing with it),
 * make autolab's single scores line, make bench without a GPU. */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../json.h"
#include "../report.h"
#include "tests.h"

static char out[256 * 1024];

#define HAS(text) ck_assert_msg(strstr(out, text) != NULL, "output lacks \"%s\":\n%s", text, out)

static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

/* Runs a shell command line from the repository root. */
static int shell(const char *const *env, const char *cmd)
{
    char *argv[] = {"/bin/sh", "-c", (char *)cmd, NULL};
    return run_command(argv, env, out, sizeof out);
}

/* Decodes standard base64 (no line breaks) into out (NUL-ended); its length. */
static size_t unbase64(const char *in, char *dst, size_t n)
{
    static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t o = 0;
    unsigned v = 0;
    int bits = 0;
    for (; *in && *in != '=' && *in != '\n' && o + 1 < n; in++) {
        const char *p = strchr(abc, *in);
        ck_assert_msg(p != NULL, "not base64: '%c'", *in);
        v = v << 6 | (unsigned)(p - abc);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            dst[o++] = (char)(v >> bits & 0xff);
        }
    }
    dst[o] = '\0';
    return o;
}

/* A payload as a step output holds it (base64), decoded into doc and parsed;
 * checks the fields every payload has. */
static json *payload_parse(const char *b64, char *doc, size_t n)
{
    unbase64(b64, doc, n);
    char err[128];
    json *j = json_parse(doc, err, sizeof err);
    ck_assert_msg(j != NULL, "%s:\n%s", err, doc);
    classroom_payload_check(j);
    return j;
}

/* The Classroom payload ./grade appended to the $GITHUB_OUTPUT file at path,
 * parsed (its text left in doc); checks the fields every payload has. */
static json *payload_text_in(const char *path, char *doc, size_t n)
{
    static char text[65536];
    ck_assert_int_eq(read_text(path, text, sizeof text), 0);
    ck_assert_msg(strncmp(text, "result=", 7) == 0, "no result= line in %s:\n%s", path, text);
    ck_assert_int_eq(count(text, "result="), 1);
    return payload_parse(text + 7, doc, n);
}

static json *payload_in(const char *path)
{
    static char doc[65536];
    return payload_text_in(path, doc, sizeof doc);
}

/* Nothing graded: no GPU, a usage error, a lab that did not build. The
 * reporter still gets a payload: 0 points of the lab's, in error, saying why. */
START_TEST(classroom_payload_when_nothing_graded)
{
    char dir[] = "/tmp/cudalabs-classroomXXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char output[128], setting[160], log[128], log_setting[160];
    snprintf(output, sizeof output, "%s/github_output", dir);
    snprintf(setting, sizeof setting, "GITHUB_OUTPUT=%s", output);
    const char *no_gpu[] = {"CUDA_VISIBLE_DEVICES=-1", setting, NULL};

    char *argv[] = {(char *)grade_path(), "lab1", "--solutions", "--classroom", NULL};
    ck_assert_int_eq(run_command(argv, no_gpu, out, sizeof out), 77);
    json *j = payload_in(output);
    ck_assert_str_eq(json_string(json_get(j, "status"), ""), "error");
    ck_assert_int_eq((int)json_number(json_get(j, "max_score"), -1), 80);
    const json *t = &json_get(j, "tests")->items[0];
    ck_assert_int_eq((int)json_number(json_get(t, "score"), -1), 0);
    ck_assert_str_eq(json_string(json_get(t, "status"), ""), "error");
    ck_assert_ptr_nonnull(strstr(json_string(json_get(t, "message"), ""), "no usable CUDA GPU"));
    json_free(j);

    unlink(output);
    char *bad[] = {(char *)grade_path(), "lab9", "--classroom", NULL};
    ck_assert_int_eq(run_command(bad, no_gpu, out, sizeof out), 2);
    j = payload_in(output);
    t = &json_get(j, "tests")->items[0];
    ck_assert_ptr_nonnull(strstr(json_string(json_get(t, "message"), ""), "unknown lab 'lab9'"));
    json_free(j);

    /* The build failed, so there is no library: the log's end is in the message. */
    unlink(output);
    snprintf(log, sizeof log, "%s/build.log", dir);
    snprintf(log_setting, sizeof log_setting, "GRADE_BUILD_LOG=%s", log);
    FILE *f = fopen(log, "w");
    fputs("labs/1-transpose/transpose.cu(57): error: expected a \";\"\n", f);
    fclose(f);
    char copy[128], cmd[400];
    snprintf(copy, sizeof copy, "%s/grade", dir);
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", grade_path(), copy);
    ck_assert_int_eq(system(cmd), 0);
    const char *built_nothing[] = {setting, log_setting, NULL};
    char *unbuilt[] = {copy, "lab1", "--classroom", NULL};
    ck_assert_int_eq(run_command(unbuilt, built_nothing, out, sizeof out), 2);
    j = payload_in(output);
    ck_assert_int_eq((int)json_number(json_get(j, "max_score"), -1), 80);
    const char *msg = json_string(json_get(&json_get(j, "tests")->items[0], "message"), "");
    ck_assert_ptr_nonnull(strstr(msg, "is not built yet"));
    ck_assert_ptr_nonnull(strstr(msg, "transpose.cu(57): error: expected a \";\""));
    json_free(j);
    ck_assert_int_eq(remove_tree(dir), 0);
}
END_TEST

/* make student-repo: one grading workflow, covering labs 1 to 6, in the form
 * the Classroom reporter accepts (runner names of letters and digits, each
 * with its step's result). */
START_TEST(student_copy_has_one_grading_workflow)
{
    char dir[] = "/tmp/cudalabs-workflowXXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char cmd[400], path[400];
    snprintf(cmd, sizeof cmd, "make --no-print-directory student-repo DEST=%s/copy", dir);
    ck_assert_msg(shell(NULL, cmd) == 0, "%s", out);
    snprintf(path, sizeof path, "%s/copy/.github/workflows", dir);
    DIR *d = opendir(path);
    ck_assert_ptr_nonnull(d);
    int files = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (e->d_name[0] != '.') {
            files++;
            ck_assert_str_eq(e->d_name, "classroom.yml");
        }
    closedir(d);
    ck_assert_int_eq(files, 1);
    snprintf(path, sizeof path, "%s/copy/.github/workflows/classroom.yml", dir);
    ck_assert_int_eq(read_text(path, out, sizeof out), 0);
    const char *runners = strstr(out, "runners: ");
    ck_assert_ptr_nonnull(runners);
    runners += strlen("runners: ");
    size_t len = strcspn(runners, "\n");
    int names = 0;
    for (size_t i = 0; i < len; i++)
        ck_assert_msg(isalnum((unsigned char)runners[i]) || (runners[i] == ',' && i > 0),
                      "runners: %.*s", (int)len, runners);
    for (int lab = 1; lab <= 6; lab++) {
        char want[160];
        snprintf(want, sizeof want, "id: lab%d\n", lab);
        HAS(want);
        snprintf(want, sizeof want, "./grade lab%d --classroom", lab);
        HAS(want);
        snprintf(want, sizeof want,
                 "LAB%d_RESULTS: \"${{ steps.lab%d.outputs.result || steps.notgraded.outputs.lab%d }}\"",
                 lab, lab, lab);
        HAS(want);
        snprintf(want, sizeof want, "lab%d", lab);
        names += memmem(runners, len, want, strlen(want)) != NULL;
    }
    ck_assert_int_eq(names, 6);
    ck_assert_int_eq(remove_tree(dir), 0);
}
END_TEST

/* ---- classroom.yml when nothing can be graded ----
 * The workflow is read by PyYAML, as Actions reads it, and handed to the
 * grader's own JSON reader. The scripts of its steps are then run as Actions
 * runs them (bash -e, the step's env, a file for $GITHUB_OUTPUT) in scratch
 * copies: the organisation variables unset, the course's checkout failed, a
 * TAMPERED copy, a lab step that left no payload. */
#define WORKFLOW ".github/workflows/classroom.yml"
#define NOT_GRADED "grader/platforms/classroom-not-graded"
#define REF_HEX "0123456789abcdef0123456789abcdef01234567"
static const char *const lab_ids[] = {"lab1", "lab2", "lab3", "lab4", "lab5", "lab6", "lab7"};
#define N_LAB_IDS ((int)(sizeof lab_ids / sizeof lab_ids[0]))

/* The workflow, parsed; NULL when no python3 has PyYAML (the test skipped). */
static json *workflow_read(void)
{
    static const char *const pythons[] = {"/usr/bin/python3", "/usr/local/bin/python3", NULL};
    static char text[256 * 1024];
    for (const char *const *p = pythons; *p; p++) {
        char *probe[] = {(char *)*p, "-c", "import json, yaml", NULL};
        if (access(*p, X_OK) != 0 || run_command(probe, NULL, text, sizeof text) != 0)
            continue;
        char *argv[] = {(char *)*p, "-c",
                        "import sys, json, yaml\n"
                        "json.dump(yaml.safe_load(open(sys.argv[1])), sys.stdout)\n",
                        WORKFLOW, NULL};
        ck_assert_msg(run_command(argv, NULL, text, sizeof text) == 0,
                      "PyYAML cannot read " WORKFLOW ":\n%s", text);
        char err[128];
        json *wf = json_parse(text, err, sizeof err);
        ck_assert_msg(wf != NULL, "%s", err);
        return wf;
    }
    test_skip("classroom.yml read as YAML: no python3 with PyYAML (python3-yaml; .ci/run "
              "installs it)");
    return NULL;
}

static const json *workflow_steps(const json *wf)
{
    const json *steps =
        json_get(json_get(json_get(wf, "jobs"), "run-autograding-tests"), "steps");
    ck_assert(steps && steps->type == JSON_ARRAY);
    return steps;
}

/* The index of the step with this id, or -1. */
static int step_at(const json *steps, const char *id)
{
    for (int i = 0; i < steps->n; i++)
        if (strcmp(json_string(json_get(&steps->items[i], "id"), ""), id) == 0)
            return i;
    return -1;
}

/* A field of the step with this id, as text ("" when it has none). */
static const char *step_text(const json *steps, const char *id, const char *key)
{
    int i = step_at(steps, id);
    ck_assert_msg(i >= 0, "no step with id %s", id);
    return json_string(json_get(&steps->items[i], key), "");
}

static int may_fail(const json *steps, const char *id)
{
    const json *v = json_get(&steps->items[step_at(steps, id)], "continue-on-error");
    return v && v->type == JSON_BOOL && v->number == 1;
}

/* Runs after a failed step too: always() or !cancelled(), not the default
 * success(). */
static int after_failures(const char *cond)
{
    return strstr(cond, "always()") || strstr(cond, "!cancelled()");
}

/* Is word one of the space-separated words of list? */
static int has_word(const char *list, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = strstr(list, word); p; p = strstr(p + 1, word))
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
            return 1;
    return 0;
}

/* The steps in order, each gate allowed to fail, the labs run only behind
 * them, and every lab's payload for the reporter with a fallback. */
START_TEST(classroom_workflow_steps)
{
    json *wf = workflow_read();
    if (!wf)
        return;
    const json *steps = workflow_steps(wf);
    static const char *const order[] = {"pin",  "course", "integrity", "build",     "lab1",
                                        "lab2", "lab3",   "lab4",      "lab5",      "lab6",
                                        "lab7", "notgraded", "reporter", "fail"};
    int prev = -1;
    for (size_t k = 0; k < sizeof order / sizeof order[0]; k++) {
        int i = step_at(steps, order[k]);
        ck_assert_msg(i > prev, "step %s is missing or out of order", order[k]);
        prev = i;
    }
    ck_assert_int_eq(prev, steps->n - 1); /* "Not graded" is the job's last word */

    /* The job's own limit leaves room for every step's: a job cancelled at its
     * limit would hand the reporter nothing. */
    const json *job = json_get(json_get(wf, "jobs"), "run-autograding-tests");
    double steps_min = 0;
    for (int i = 0; i < steps->n; i++)
        steps_min += json_number(json_get(&steps->items[i], "timeout-minutes"), 0);
    double job_min = json_number(json_get(job, "timeout-minutes"), 0);
    ck_assert_msg(job_min >= steps_min + 15, "the job may run %g minutes, its lab steps %g",
                  job_min, steps_min);

    /* Each gate may fail without ending the job; each runs only after the one
     * before it succeeded; the labs only when all four did. */
    static const struct {
        const char *id, *cond;
    } gates[] = {{"pin", ""},
                 {"course", "steps.pin.outcome == 'success'"},
                 {"integrity", "steps.course.outcome == 'success'"},
                 {"build", "steps.integrity.outcome == 'success'"}};
    for (size_t k = 0; k < sizeof gates / sizeof gates[0]; k++) {
        ck_assert_msg(may_fail(steps, gates[k].id), "%s lacks continue-on-error", gates[k].id);
        ck_assert_str_eq(step_text(steps, gates[k].id, "if"), gates[k].cond);
    }
    for (int k = 0; k < N_LAB_IDS; k++) {
        char want[64];
        ck_assert_str_eq(step_text(steps, lab_ids[k], "if"), "steps.build.outcome == 'success'");
        ck_assert(may_fail(steps, lab_ids[k]));
        snprintf(want, sizeof want, "./grade %s --classroom", lab_ids[k]);
        ck_assert_ptr_nonnull(strstr(step_text(steps, lab_ids[k], "run"), want));
    }
    /* The payloads, the reporter and the last step run after failures too. */
    ck_assert(after_failures(step_text(steps, "notgraded", "if")));
    ck_assert(after_failures(step_text(steps, "reporter", "if")));
    const char *fail_if = step_text(steps, "fail", "if");
    ck_assert(after_failures(fail_if));
    ck_assert_ptr_nonnull(strstr(fail_if, "steps.notgraded.outputs.reason != ''"));
    ck_assert_ptr_nonnull(strstr(step_text(steps, "fail", "run"), "exit 1"));
    ck_assert(strncmp(step_text(steps, "reporter", "uses"),
                      "classroom-resources/autograding-grading-reporter@", 49) == 0);

    /* Every runner: a step id of letters and digits, and a payload from its
     * step or else from the step that writes the missing ones. */
    const json *rep = &steps->items[step_at(steps, "reporter")];
    const char *runners = json_string(json_get(json_get(rep, "with"), "runners"), "");
    const json *rep_env = json_get(rep, "env");
    const json *ng_env = json_get(&steps->items[step_at(steps, "notgraded")], "env");
    const char *labs = json_string(json_get(ng_env, "LABS"), "");
    const char *graded = json_string(json_get(ng_env, "GRADED"), "");
    int n = 0;
    for (const char *r = runners; *r; n++) {
        size_t len = strcspn(r, ",");
        char id[32], key[64], want[200];
        ck_assert(len > 0 && len < sizeof id);
        snprintf(id, sizeof id, "%.*s", (int)len, r);
        for (size_t i = 0; i < len; i++)
            ck_assert_msg(isalnum((unsigned char)id[i]), "runner \"%s\"", id);
        ck_assert_msg(step_at(steps, id) >= 0, "runner %s has no step", id);
        snprintf(key, sizeof key, "%s_RESULTS", id);
        for (char *c = key; *c; c++)
            *c = (char)toupper((unsigned char)*c);
        snprintf(want, sizeof want, "${{ steps.%s.outputs.result || steps.notgraded.outputs.%s }}",
                 id, id);
        ck_assert_str_eq(json_string(json_get(rep_env, key), ""), want);
        ck_assert_msg(has_word(labs, id), "LABS lacks %s: %s", id, labs);
        snprintf(want, sizeof want, "${{ steps.%s.outputs.result && '%s' }}", id, id);
        ck_assert_msg(strstr(graded, want) != NULL, "GRADED lacks %s: %s", id, graded);
        r += len + (r[len] == ',');
    }
    ck_assert_int_eq(n, N_LAB_IDS);
    ck_assert_int_eq(rep_env->n, N_LAB_IDS);
    ck_assert_int_eq(count(labs, "lab"), N_LAB_IDS);
    /* The scripts the cases below run are the steps' own: no expression is
     * filled in before they run. */
    static const char *const scripts[] = {"pin", "integrity", "notgraded", "fail"};
    for (size_t k = 0; k < sizeof scripts / sizeof scripts[0]; k++)
        ck_assert_ptr_null(strstr(step_text(steps, scripts[k], "run"), "${{"));
    json_free(wf);
}
END_TEST

/* The points of lab in the grader's table: its own payload when it cannot
 * grade (no GPU), whose text is left in doc. */
static int grader_payload(const char *lab, char *doc, size_t n)
{
    char dir[] = "/tmp/cudalabs-maxXXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char output[128], setting[160];
    snprintf(output, sizeof output, "%s/github_output", dir);
    snprintf(setting, sizeof setting, "GITHUB_OUTPUT=%s", output);
    const char *no_gpu[] = {"CUDA_VISIBLE_DEVICES=-1", setting, NULL};
    char *argv[] = {(char *)grade_path(), (char *)lab, "--classroom", NULL};
    ck_assert_int_eq(run_command(argv, no_gpu, out, sizeof out), 77);
    json *j = payload_text_in(output, doc, n);
    int max = (int)json_number(json_get(j, "max_score"), -1);
    json_free(j);
    ck_assert_int_eq(remove_tree(dir), 0);
    return max;
}

static int grader_max(const char *lab)
{
    static char doc[65536];
    return grader_payload(lab, doc, sizeof doc);
}

/* The value of key in $GITHUB_OUTPUT's text (key=value lines) into dst; 0
 * when there is no such line. A key written twice fails the test. */
static int output_value(const char *text, const char *key, char *dst, size_t n)
{
    size_t len = strlen(key);
    int found = 0;
    for (const char *p = text; *p; p += strcspn(p, "\n") + (p[strcspn(p, "\n")] == '\n')) {
        if (strncmp(p, key, len) != 0 || p[len] != '=')
            continue;
        ck_assert_msg(!found, "%s written twice:\n%s", key, text);
        found = 1;
        snprintf(dst, n, "%.*s", (int)strcspn(p + len + 1, "\n"), p + len + 1);
    }
    return found;
}

/* lab's payload in $GITHUB_OUTPUT's text: what the reporter reads, in error,
 * 0 points by both of the reporter's totals (the sum it posts, and passing
 * tests as a share of max_score on its console), worth max, and its message
 * holding reason. */
static void zero_payload(const char *outputs, const char *lab, int max, const char *reason)
{
    static char b64[65536], doc[65536];
    ck_assert_msg(output_value(outputs, lab, b64, sizeof b64), "no payload for %s:\n%s", lab,
                  outputs);
    json *j = payload_parse(b64, doc, sizeof doc);
    ck_assert_str_eq(json_string(json_get(j, "status"), ""), "error");
    ck_assert_int_eq((int)json_number(json_get(j, "max_score"), -1), max);
    const json *tests = json_get(j, "tests");
    double posted = 0;
    int passed = 0;
    for (int i = 0; i < tests->n; i++) {
        posted += json_number(json_get(&tests->items[i], "score"), -1);
        passed += strcmp(json_string(json_get(&tests->items[i], "status"), ""), "pass") == 0;
    }
    ck_assert_double_eq(posted, 0);
    ck_assert_int_eq(passed, 0);
    char name[64];
    snprintf(name, sizeof name, "%s: nothing was graded", lab);
    ck_assert_str_eq(json_string(json_get(&tests->items[0], "name"), ""), name);
    const char *msg = json_string(json_get(&tests->items[0], "message"), "");
    ck_assert_msg(strstr(msg, reason) != NULL, "%s: \"%s\" lacks \"%s\"", lab, msg, reason);
    json_free(j);
}

/* grader/platforms/classroom-not-graded: for each lab, the payload that
 * ./grade --classroom writes when it cannot grade, the same bytes but for the
 * message, which is the reason, made one line and escaped; each lab worth its
 * points in the table of the grader it is given (--list, no GPU needed), and
 * 0 when there is none. */
START_TEST(classroom_not_graded_script)
{
    static char lines[sizeof out], b64[65536], theirs[65536], ours[65536];
    char grade_setting[600];
    snprintf(grade_setting, sizeof grade_setting, "GRADE=%s", grade_path());
    const char *with_grader[] = {grade_setting, NULL};
    char *argv[] = {NOT_GRADED, "not graded: TAMPERED: \"a\\b\" 100%\nlab9=forged", "lab1",
                    "lab2", "lab3", "lab4", "lab5", "lab6", "lab7", NULL};
    ck_assert_int_eq(run_command(argv, with_grader, out, sizeof out), 0);
    memcpy(lines, out, sizeof lines);
    ck_assert_int_eq(count(lines, "\n"), N_LAB_IDS);
    ck_assert_ptr_null(strstr(lines, "lab9="));
    static const char cut[] = "\"message\": \"", tail[] = "\", \"filename\"";
    for (int k = 0; k < N_LAB_IDS; k++) {
        int max = grader_payload(lab_ids[k], theirs, sizeof theirs);
        ck_assert_int_gt(max, 0);
        zero_payload(lines, lab_ids[k], max, "not graded: TAMPERED: \"a\\b\" 100%lab9=forged");
        ck_assert(output_value(lines, lab_ids[k], b64, sizeof b64));
        json_free(payload_parse(b64, ours, sizeof ours));
        const char *a = strstr(theirs, cut), *b = strstr(ours, cut);
        ck_assert(a && b);
        ck_assert_msg(a - theirs == b - ours && strncmp(theirs, ours, (size_t)(a - theirs)) == 0,
                      "\n%s\n%s", theirs, ours);
        ck_assert_str_eq(strstr(a, tail), strstr(b, tail));
    }
    /* No grader to ask: each lab worth 0. */
    const char *no_grader[] = {"GRADE=/nonexistent/grade", NULL};
    char *two[] = {NOT_GRADED, "why", "lab2", "lab5", NULL};
    ck_assert_int_eq(run_command(two, no_grader, out, sizeof out), 0);
    ck_assert_int_eq(count(out, "\n"), 2);
    zero_payload(out, "lab2", 0, "why");
    zero_payload(out, "lab5", 0, "why");
    /* Usage: a reason and at least one lab's name. */
    char *none[] = {NOT_GRADED, "why", NULL};
    ck_assert_int_eq(run_command(none, no_grader, out, sizeof out), 2);
    char *bad[] = {NOT_GRADED, "why", "lab1", "lab1=x", NULL};
    ck_assert_int_eq(run_command(bad, no_grader, out, sizeof out), 2);
    ck_assert_msg(strncmp(out, "classroom-not-graded: 'lab1=x' is not a lab's name", 50) == 0 &&
                      count(out, "\n") == 1,
                  "%s", out); /* and no payload before it */
}
END_TEST

/* Runs the step id's script, saved in dir, as Actions runs it: bash -e in
 * folder cwd, with env (which names dir/output as $GITHUB_OUTPUT, emptied
 * first). */
static int step_run(const char *dir, const char *id, const char *cwd, const char *const *env)
{
    char script[300], output[300];
    snprintf(script, sizeof script, "%s/%s.sh", dir, id);
    snprintf(output, sizeof output, "%s/output", dir);
    FILE *f = fopen(output, "w");
    ck_assert_ptr_nonnull(f);
    fclose(f);
    char *argv[] = {"/bin/sh", "-c", "cd \"$1\" && exec bash -e \"$2\"", "step", (char *)cwd,
                    script, NULL};
    /* A workflow step has no GRADE of ours (make coverage sets one for the
     * test runner, relative to the project): the scripts find their grader. */
    const char *with[32] = {"GRADE="};
    int n = 1;
    for (int i = 0; env && env[i] && n < 31; i++)
        with[n++] = env[i];
    with[n] = NULL;
    return run_command(argv, with, out, sizeof out);
}

static char outputs[256 * 1024];

static void outputs_read(const char *dir)
{
    char path[300];
    snprintf(path, sizeof path, "%s/output", dir);
    ck_assert_int_eq(read_text(path, outputs, sizeof outputs), 0);
}

START_TEST(classroom_workflow_without_a_grade)
{
    json *wf = workflow_read();
    if (!wf)
        return;
    const json *steps = workflow_steps(wf);
    char dir[] = "/tmp/cudalabs-notgradedXXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    static const char *const ids[] = {"pin", "integrity", "notgraded", "fail"};
    for (size_t k = 0; k < sizeof ids / sizeof ids[0]; k++) {
        char path[300];
        snprintf(path, sizeof path, "%s/%s.sh", dir, ids[k]);
        FILE *f = fopen(path, "w");
        ck_assert_ptr_nonnull(f);
        fputs(step_text(steps, ids[k], "run"), f);
        fclose(f);
    }
    json_free(wf);
    char gh[320], tmp[320], ws[300], cmd[2048], reason[4096];
    snprintf(gh, sizeof gh, "GITHUB_OUTPUT=%s/output", dir);
    snprintf(tmp, sizeof tmp, "RUNNER_TEMP=%s", dir);
    snprintf(ws, sizeof ws, "%s/ws", dir);
    ck_assert_int_eq(mkdir(ws, 0755), 0);
    const char *labs = "LABS=lab1 lab2 lab3 lab4 lab5 lab6 lab7";
    const char *none_graded = "GRADED=     "; /* six empty expressions, folded */

    /* 1. The organisation variables unset (Actions gives them as ""), or the
     * ref a branch: the pin fails, and every lab gets 0 points, saying so. */
    const char *unset[] = {gh, tmp, "REPO=", "REF=", NULL};
    ck_assert_int_eq(step_run(dir, "pin", ws, unset), 1);
    HAS("::error::Not graded: set the organisation variables CUDA_LABS_COURSE_REPO");
    const char *branch[] = {gh, tmp, "REPO=course/cuda-labs", "REF=main", NULL};
    ck_assert_int_eq(step_run(dir, "pin", ws, branch), 1);
    const char *pinned[] = {gh, tmp, "REPO=course/cuda-labs", "REF=" REF_HEX, NULL};
    ck_assert_int_eq(step_run(dir, "pin", ws, pinned), 0);
    const char *no_vars[] = {gh, tmp, "PIN=failure", "COURSE=skipped", "INTEGRITY=skipped",
                             "BUILD=skipped", "REPO=", "REF=", labs, none_graded, NULL};
    ck_assert_int_eq(step_run(dir, "notgraded", ws, no_vars), 0);
    outputs_read(dir);
    const char *why_vars =
        "not graded: the organisation variables CUDA_LABS_COURSE_REPO/REF are not set";
    for (int k = 0; k < N_LAB_IDS; k++)
        zero_payload(outputs, lab_ids[k], 0, why_vars);
    ck_assert(output_value(outputs, "reason", reason, sizeof reason));
    ck_assert(strncmp(reason, why_vars, strlen(why_vars)) == 0);
    /* ... and the job ends failed, with the reason. */
    char reason_setting[4200];
    snprintf(reason_setting, sizeof reason_setting, "REASON=%s", reason);
    const char *failing[] = {gh, tmp, reason_setting, NULL};
    ck_assert_int_eq(step_run(dir, "fail", ws, failing), 1);
    HAS("::error::not graded: the organisation variables CUDA_LABS_COURSE_REPO/REF are not set");

    /* 2. The course's checkout failed, and left a .course behind that must not
     * be used: the payloads come from the workflow itself, worth 0. */
    snprintf(cmd, sizeof cmd,
             "mkdir -p '%s/.course/grader/platforms' && "
             "printf '#!/bin/sh\\necho lab1=FORGED\\n' > '%s/.course/" NOT_GRADED "'",
             ws, ws);
    ck_assert_int_eq(shell(NULL, cmd), 0);
    const char *no_course[] = {gh, tmp, "PIN=success", "COURSE=failure", "INTEGRITY=skipped",
                               "BUILD=skipped", "REPO=course/cuda-labs", "REF=" REF_HEX, labs,
                               none_graded, NULL};
    ck_assert_int_eq(step_run(dir, "notgraded", ws, no_course), 0);
    outputs_read(dir);
    ck_assert_ptr_null(strstr(outputs, "FORGED"));
    for (int k = 0; k < N_LAB_IDS; k++)
        zero_payload(outputs, lab_ids[k], 0,
                     "not graded: the course repository course/cuda-labs could not be checked "
                     "out at " REF_HEX);
    ck_assert(output_value(outputs, "reason", reason, sizeof reason));

    /* 3. TAMPERED: a student copy with more points for a stage and a makefile
     * of its own, the course's copy in .course. The integrity step fails, and
     * every lab gets 0 of its points in the course's table (the course's
     * grader built for that), naming the files. */
    snprintf(cmd, sizeof cmd,
             "set -e; rm -rf '%s'; make -s --no-print-directory student-repo DEST='%s' >/dev/null "
             "&& make -s --no-print-directory student-repo DEST='%s/.course' >/dev/null && cd '%s' "
             "&& sed -i '/\"transpose_naive_read\"/{n;s/points_correct = 10,/points_correct = 100,/}' "
             "grader/labs/transpose.c && echo 'include Makefile' > GNUmakefile",
             ws, ws, ws, ws);
    const char *own_make[] = {"MAKEFLAGS=", "MAKELEVEL=", NULL};
    ck_assert_msg(shell(own_make, cmd) == 0, "%s", out);
    const char *plain[] = {gh, tmp, NULL};
    ck_assert_int_eq(step_run(dir, "integrity", ws, plain), 1);
    HAS("TAMPERED: 2 grader file(s)");
    const char *tampered[] = {gh, tmp, "PIN=success", "COURSE=success", "INTEGRITY=failure",
                              "BUILD=skipped", "REPO=course/cuda-labs", "REF=" REF_HEX, labs,
                              none_graded, "MAKEFLAGS=", "MAKELEVEL=", NULL};
    ck_assert_int_eq(step_run(dir, "notgraded", ws, tampered), 0);
    outputs_read(dir);
    for (int k = 0; k < N_LAB_IDS; k++)
        zero_payload(outputs, lab_ids[k], grader_max(lab_ids[k]),
                     "not graded: TAMPERED: grader/labs/transpose.c (changed), GNUmakefile "
                     "(added). These files belong to the grader: undo your changes");
    ck_assert(output_value(outputs, "reason", reason, sizeof reason));

    /* The course's grader in place (integrity passed) but not built. */
    const char *unbuilt[] = {gh, tmp, "PIN=success", "COURSE=success", "INTEGRITY=success",
                             "BUILD=failure", labs, none_graded, "MAKEFLAGS=", "MAKELEVEL=", NULL};
    ck_assert_int_eq(step_run(dir, "notgraded", ws, unbuilt), 0);
    outputs_read(dir);
    for (int k = 0; k < N_LAB_IDS; k++)
        zero_payload(outputs, lab_ids[k], grader_max(lab_ids[k]),
                     "not graded: the course's grader did not build");
    ck_assert(output_value(outputs, "reason", reason, sizeof reason));

    /* 4. The course's grader in place and built, but lab 5's step ended
     * without a payload (past its time limit): lab 5 alone gets one, and the
     * job is not marked "Not graded" (no reason). */
    snprintf(cmd, sizeof cmd, "cp '%s' '%s/grade'", grade_path(), ws);
    ck_assert_int_eq(shell(NULL, cmd), 0);
    const char *lab5_lost[] = {gh, tmp, "PIN=success", "COURSE=success", "INTEGRITY=success",
                               "BUILD=success", "REPO=course/cuda-labs", "REF=" REF_HEX, labs,
                               "GRADED=lab1 lab2 lab3 lab4  lab6 lab7", NULL};
    ck_assert_int_eq(step_run(dir, "notgraded", ws, lab5_lost), 0);
    outputs_read(dir);
    ck_assert_int_eq(count(outputs, "\n"), 1);
    ck_assert(!output_value(outputs, "reason", reason, sizeof reason));
    zero_payload(outputs, "lab5", grader_max("lab5"),
                 "not graded: this lab's grading step ended without a result");

    /* 5. Every lab graded: nothing is written. */
    const char *all_graded[] = {gh, tmp, "PIN=success", "COURSE=success", "INTEGRITY=success",
                                "BUILD=success", labs, "GRADED=lab1 lab2 lab3 lab4 lab5 lab6 lab7",
                                NULL};
    ck_assert_int_eq(step_run(dir, "notgraded", ws, all_graded), 0);
    outputs_read(dir);
    ck_assert_str_eq(outputs, "");
    ck_assert_int_eq(remove_tree(dir), 0);
}
END_TEST

/* A run recorded with points and thresholds that are not today's table's
 * (an instructor's config, or a table changed since), read back. */
static lab_stage recorded_stages[LAB_MAX_STAGES];
static lab_spec recorded_lab;

static void record_run(const char *path)
{
    extern const lab_spec lab_transpose;
    recorded_lab = lab_transpose;
    for (int s = 0; s < lab_transpose.n_stages; s++)
        recorded_stages[s] = lab_transpose.stages[s];
    recorded_stages[3].points_speed = 15;  /* the table: 10 */
    recorded_stages[4].min_speedup = 1.37; /* the table: 1.40 */
    recorded_lab.stages = recorded_stages;
    static lab_results res;
    fixture_results(&res);
    res.t[4][TEST_PERF].min_speedup = 1.37;
    for (int p = 0; p < TM_COUNT; p++) { /* --timings' seconds travel too */
        res.t[3][TEST_PERF].tm[p] = 0.125 * (p + 1);
        res.parent_tm[p] = 0.5 * p;
    }
    for (int s = 0; s < lab_transpose.n_stages; s++)
        res.stage_wall[s] = 1.25 + s;
    res.wall = 17.5;
    res.after_wall = 0.75;
    const lab_spec *specs[] = {&recorded_lab};
    const char *libs[] = {"/home/student/build/lab1.so"};
    devinfo dev;
    memset(&dev, 0, sizeof dev);
    strcpy(dev.name, "NVIDIA H200");
    dev.cc_major = 9;
    dev.sms = 132;
    FILE *f = fopen(path, "w");
    ck_assert_int_eq(report_json_run(f, specs, &res, 1, &dev, 0x77, libs, 12.5, NULL), 0);
    fclose(f);
}

START_TEST(from_round_trip)
{
    char dir[] = "/tmp/cudalabs-roundXXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char cmd[2048], a[128], b[128];
    snprintf(a, sizeof a, "%s/a.json", dir);
    snprintf(b, sizeof b, "%s/b.json", dir);
    record_run(a);
    snprintf(cmd, sizeof cmd,
             "%s --from %s --json %s --junit %s/j.xml --tap %s/t.tap --gradescope %s/g.json "
             "--html %s/h.html",
             grade_path(), a, b, dir, dir, dir, dir);
    ck_assert_int_eq(shell(NULL, cmd), 1); /* the run has failures */
    /* The scoreboard: the recorded threshold and points. */
    HAS("1.37x");
    HAS("25/25");
    HAS("Score: 45/75");
    ck_assert_ptr_null(strstr(out, "1.40x"));
    /* JSON -> --from -> JSON is the identity (the library's name included). */
    static char first[65536], second[65536];
    ck_assert_int_eq(read_text(a, first, sizeof first), 0);
    ck_assert_int_eq(read_text(b, second, sizeof second), 0);
    ck_assert_str_eq(first, second);
    ck_assert_ptr_nonnull(strstr(second, "\"library\": \"/home/student/build/lab1.so\""));
    ck_assert_ptr_nonnull(strstr(second, "\"timed\": 1.000"));
    ck_assert_ptr_nonnull(strstr(second, "\"stage_wall\": [1.250, 2.250"));
    /* Every format made from the run agrees on the threshold and the points. */
    const struct {
        const char *file, *threshold, *score;
    } formats[] = {{"j.xml", "needs 1.37x", "value=\"45/75\""},
                   {"t.tap", "needs 1.37x", "score 45/75"},
                   {"g.json", "needs 1.37x", "{\"score\": 45, "},
                   {"h.html", "<td>1.37x</td>", "45/75 points"}};
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++) {
        char path[200];
        snprintf(path, sizeof path, "%s/%s", dir, formats[i].file);
        ck_assert_int_eq(read_text(path, out, sizeof out), 0);
        HAS(formats[i].threshold);
        HAS(formats[i].score);
        ck_assert_msg(strstr(out, "1.40x") == NULL, "%s shows today's table", formats[i].file);
    }
    snprintf(cmd, sizeof cmd, "%s/g.json", dir);
    ck_assert_int_eq(read_text(cmd, out, sizeof out), 0);
    HAS("\"score\": 15, \"max_score\": 15");
    HAS("\"execution_time\": 12");
    ck_assert_int_eq(remove_tree(dir), 0);
}
END_TEST

/* make autolab with a handin that does not build, in a scratch copy that
 * holds an older, working build/lab1.so: the build log and one scores line,
 * 0 points, and the older library is neither graded nor left behind. */
START_TEST(make_autolab_one_scores_line)
{
    char dir[] = "/tmp/cudalabs-autolabXXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "cp -a Makefile labs '%s'/ && cp '%s' '%s'/grade && mkdir -p '%s'/build && "
             "mkdir -p '%s'/grader/labs && cp grader/labs/labs.def '%s'/grader/labs/ && "
             "cp build/lab1.so '%s'/build/lab1.so && "
             "printf 'this is not CUDA;\\n' > '%s'/broken.cu",
             dir, grade_path(), dir, dir, dir, dir, dir, dir);
    ck_assert_msg(shell(NULL, cmd) == 0, "%s", out);
    snprintf(cmd, sizeof cmd, "make --no-print-directory -C '%s' autolab LAB=1 HANDIN=broken.cu",
             dir);
    const char *own_make[] = {"MAKEFLAGS=", "MAKELEVEL=", NULL};
    ck_assert_int_eq(shell(own_make, cmd), 0);
    ck_assert_int_eq(count(out, "{\"scores\""), 1);
    size_t len = strlen(out);
    ck_assert(len > 1 && out[len - 1] == '\n');
    out[len - 1] = '\0';
    const char *last = strrchr(out, '\n');
    ck_assert_str_eq(last ? last + 1 : out, "{\"scores\": {\"lab1\": 0}}");
    HAS("error"); /* the compiler's, from the build log */
    ck_assert_ptr_null(strstr(out, "CUDA Labs grader"));
    ck_assert_ptr_null(strstr(out, "no usable CUDA GPU"));
    snprintf(cmd, sizeof cmd, "%s/build/lab1.so", dir);
    ck_assert_int_ne(access(cmd, F_OK), 0);
    ck_assert_int_eq(remove_tree(dir), 0);
}
END_TEST

/* make bench without a GPU: one line of ours, the recipe's status 77, and
 * nothing built or timed (no "inf GB/s"). GNU make itself then adds its
 * "Error 77" line and exits 2, as it does for every failed recipe. */
START_TEST(make_bench_without_gpu)
{
    /* Not a sub-make of `make test`: none of its flags or jobserver. */
    const char *no_gpu[] = {"CUDA_VISIBLE_DEVICES=-1", "MAKEFLAGS=", "MAKELEVEL=", NULL};
    ck_assert_int_eq(shell(no_gpu, "make --no-print-directory bench"), 2);
    ck_assert_int_eq(count(out, "make: bench times the reference solutions on a GPU"), 1);
    HAS("Nothing was built or timed.");
    HAS("Error 77");
    ck_assert_ptr_null(strstr(out, "GB/s"));
    ck_assert_ptr_null(strstr(out, "nvcc"));
    ck_assert_int_eq(count(out, "\n"), 2);
}
END_TEST

Suite *make_platforms_suite(void)
{
    Suite *s = suite_create("platforms");
    TCase *tc = tcase_create("platforms");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, classroom_payload_when_nothing_graded);
    tcase_add_test(tc, student_copy_has_one_grading_workflow);
    tcase_add_test(tc, classroom_workflow_steps);
    tcase_add_test(tc, classroom_not_graded_script);
    tcase_add_test(tc, classroom_workflow_without_a_grade);
    tcase_add_test(tc, from_round_trip);
    tcase_add_test(tc, make_autolab_one_scores_line);
    tcase_add_test(tc, make_bench_without_gpu);
    suite_add_tcase(s, tc);
    return s;
}
