/* check_platforms.c: what the grading platforms receive from ./grade and the
 * Makefile, from the outside and without a GPU: GitHub Classroom's payload
 * when nothing was graded, the student copy's one grading workflow, a run
 * read back with --from (the identity, and every format agreeing with it),
 * make autolab's single scores line, make bench without a GPU. */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* The Classroom payload ./grade appended to the $GITHUB_OUTPUT file at path,
 * parsed; checks the fields every payload has. */
static json *payload_in(const char *path)
{
    static char text[65536], doc[65536];
    ck_assert_int_eq(read_text(path, text, sizeof text), 0);
    ck_assert_msg(strncmp(text, "result=", 7) == 0, "no result= line in %s:\n%s", path, text);
    ck_assert_int_eq(count(text, "result="), 1);
    unbase64(text + 7, doc, sizeof doc);
    char err[128];
    json *j = json_parse(doc, err, sizeof err);
    ck_assert_msg(j != NULL, "%s:\n%s", err, doc);
    ck_assert_int_eq((int)json_number(json_get(j, "version"), 0), 1);
    const json *tests = json_get(j, "tests");
    ck_assert(tests && tests->type == JSON_ARRAY && tests->n >= 1);
    for (int i = 0; i < tests->n; i++) {
        ck_assert(json_get(&tests->items[i], "line_no") &&
                  json_get(&tests->items[i], "line_no")->type == JSON_NUMBER);
        ck_assert(json_get(&tests->items[i], "score") != NULL);
    }
    return j;
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
        snprintf(want, sizeof want, "LAB%d_RESULTS: \"${{ steps.lab%d.outputs.result }}\"", lab,
                 lab);
        HAS(want);
        snprintf(want, sizeof want, "lab%d", lab);
        names += memmem(runners, len, want, strlen(want)) != NULL;
    }
    ck_assert_int_eq(names, 6);
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
    ck_assert_int_eq(report_json_run(f, specs, &res, 1, &dev, 0x77, libs, 12.5), 0);
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
             "cp build/lab1.so '%s'/build/lab1.so && "
             "printf 'this is not CUDA;\\n' > '%s'/broken.cu",
             dir, grade_path(), dir, dir, dir, dir);
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
    tcase_add_test(tc, from_round_trip);
    tcase_add_test(tc, make_autolab_one_scores_line);
    tcase_add_test(tc, make_bench_without_gpu);
    suite_add_tcase(s, tc);
    return s;
}
