/* check_grade.c: ./grade from the outside. The first suite needs no GPU (bad
 * arguments, missing libraries, no GPU at all); the second grades on a GPU:
 * the solutions must get full marks, the skeleton must fail every stage
 * cleanly, and every adversarial submission in grader/tests/adversarial must
 * get the verdicts written in its header. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../lab.h"
#include "../proc.h"
#include "../report.h"
#include "tests.h"

#define OUT_MAX (256 * 1024)
#define ADV_DIR "grader/tests/adversarial"
#define MAX_CASES 128

const char *grade_path(void)
{
    const char *g = getenv("GRADE");
    return g && *g ? g : "./grade";
}

static char out[OUT_MAX];

/* Runs ./grade with up to 8 arguments (NULL-terminated). */
static int grade(const char *const *env, const char *a1, ...)
{
    char *argv[12] = {(char *)grade_path()};
    int n = 1;
    va_list ap;
    va_start(ap, a1);
    for (const char *a = a1; a && n < 11; a = va_arg(ap, const char *))
        argv[n++] = (char *)a;
    va_end(ap);
    argv[n] = NULL;
    return run_command(argv, env, out, sizeof out);
}

#define HAS(text) ck_assert_msg(strstr(out, text) != NULL, "output lacks \"%s\":\n%s", text, out)

/* ---- without a GPU ---- */

START_TEST(help_and_list)
{
    ck_assert_int_eq(grade(NULL, "--help", NULL), 0);
    HAS("usage: ./grade");
    ck_assert_int_eq(grade(NULL, "--list", NULL), 0);
    HAS("transpose_vectorized");
    HAS(">= 1.50x over stage 6, and >= 80% of CUB DeviceReduce::Sum");
    HAS("pinned_run");
    HAS("conv_nhwc");
    HAS("technique: upward warp shuffles (SHFL.UP)");
}
END_TEST

START_TEST(usage_errors_exit_2)
{
    ck_assert_int_eq(grade(NULL, "lab9", NULL), 2);
    HAS("unknown lab 'lab9'");
    ck_assert_int_eq(grade(NULL, "--bogus", NULL), 2);
    HAS("unknown option '--bogus'");
    ck_assert_int_eq(grade(NULL, "lab1", "--solutions", "--stage", "9", NULL), 2);
    HAS("no stage 9");
    ck_assert_int_eq(grade(NULL, "lab1", "--lib", "/nonexistent/lab.so", NULL), 2);
    HAS("cannot find the library /nonexistent/lab.so");
    ck_assert_int_eq(grade(NULL, "lab1", "--seed", "banana", NULL), 2);
    HAS("--seed wants");
}
END_TEST

START_TEST(config_file)
{
    char path[] = "/tmp/cudalabs-cfgXXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    const char good[] = "lab1.s2.graded = no\nlab1.s5.min_speedup = 1.25\n";
    ck_assert_int_eq(write(fd, good, sizeof good - 1), (int)sizeof good - 1);
    close(fd);
    ck_assert_int_eq(grade(NULL, "--list", "--config", path, NULL), 0);
    HAS("transpose_naive_write    not graded (config)");
    HAS(">= 1.25x over stage 4");
    FILE *f = fopen(path, "w");
    fputs("# fine\nlab1.s5.min_speedup = quick\n", f);
    fclose(f);
    ck_assert_int_eq(grade(NULL, "lab1", "--solutions", "--config", path, NULL), 2);
    HAS(":2: min_speedup must be a number above 0, not 'quick'");
    unlink(path);
    ck_assert_int_eq(grade(NULL, "--list", "--config", "/nonexistent.cfg", NULL), 2);
    HAS("cannot read the config /nonexistent.cfg");
}
END_TEST

/* --from: a recorded run reported again, with a chart and a page; no GPU. */
START_TEST(from_recorded_results)
{
    static lab_results res;
    fixture_results(&res);
    extern const lab_spec lab_transpose;
    const lab_spec *specs[] = {&lab_transpose};
    const char *libs[] = {"build/lab1.so"};
    char dir[] = "/tmp/cudalabs-fromXXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char json[300], html[300], plots[300], svg[400];
    snprintf(json, sizeof json, "%s/run.json", dir);
    snprintf(html, sizeof html, "%s/report.html", dir);
    snprintf(plots, sizeof plots, "%s/charts", dir);
    snprintf(svg, sizeof svg, "%s/lab1-transpose.svg", plots);
    FILE *f = fopen(json, "w");
    ck_assert_int_eq(report_json(f, specs, &res, 1, NULL, 0x77, libs), 0);
    fclose(f);
    ck_assert_int_eq(grade(NULL, "--from", json, "--plot", plots, "--html", html, NULL), 1);
    HAS("Score: 40/70");
    HAS("stage 5 (4x4 per thread, float4 access), correctness: WRONG RESULT");
    HAS("hint: Padding removes the conflict");
    char text[65536];
    ck_assert_int_eq(read_text(svg, text, sizeof text), 0);
    ck_assert(xml_well_nested(text));
    ck_assert_int_eq(read_text(html, text, sizeof text), 0);
    ck_assert_ptr_nonnull(strstr(text, "<!DOCTYPE html>"));
    /* Not a results file: one clear line. */
    ck_assert_int_eq(grade(NULL, "--from", "Makefile", NULL), 2);
    HAS("Makefile is not a results file of ./grade --json");
    ck_assert_int_eq(remove_tree(dir), 0);
}
END_TEST

START_TEST(not_a_library)
{
    ck_assert_int_eq(grade(NULL, "lab1", "--lib", "Makefile", NULL), 1);
    HAS("is not a 64-bit little-endian ELF file");
    /* A library without one of the lab's functions: said, and carried by the
     * Gradescope results that grading never started. */
    const char *json = "/tmp/cudalabs-nofunction-results.json";
    unlink(json);
    ck_assert_int_eq(grade(NULL, "lab1", "--lib", "build/lab2.so", "--gradescope", json, NULL), 1);
    HAS("build/lab2.so has no function transpose_");
    char doc[8192];
    ck_assert_int_eq(read_text(json, doc, sizeof doc), 0);
    unlink(json);
    ck_assert(json_balanced(doc));
    ck_assert_ptr_nonnull(strstr(doc, "has no function transpose_"));
}
END_TEST

/* The grading child's cap on processes and threads: set from what the user
 * runs now, and enforced (here as user nobody when the tests run as root,
 * since Linux does not hold root to it): a fork bomb stops after a few. */
START_TEST(thread_limit_stops_a_fork_bomb)
{
    ck_assert_int_ge(proc_user_threads((unsigned)getuid()), 1);
    ck_assert_int_eq(proc_user_threads(4000000000u), 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        if (getuid() == 0 && setuid(65534) != 0)
            _exit(3);
        long before = proc_user_threads((unsigned)getuid());
        struct rlimit lim;
        if (proc_limit_threads(8) != 0 || getrlimit(RLIMIT_NPROC, &lim) != 0 ||
            lim.rlim_cur != (rlim_t)(before + 8))
            _exit(4);
        pid_t kids[64];
        int started = 0;
        for (; started < 64; started++) {
            pid_t k = fork();
            if (k == 0) {
                pause();
                _exit(0);
            }
            if (k < 0)
                break;
            kids[started] = k;
        }
        for (int i = 0; i < started; i++)
            kill(kids[i], SIGKILL);
        while (wait(NULL) > 0)
            ;
        _exit(started >= 1 && started <= 8 ? 0 : 5);
    }
    int status = 0;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert(WIFEXITED(status));
    ck_assert_msg(WEXITSTATUS(status) == 0, "the child exited %d", WEXITSTATUS(status));
}
END_TEST

/* make with a lab that does not exist names the ones that do. */
START_TEST(make_unknown_lab)
{
    char *argv[] = {"/bin/sh", "-c", "make --no-print-directory lab9", NULL};
    ck_assert_int_eq(run_command(argv, NULL, out, sizeof out), 2);
    HAS("make: there is no lab9: the labs are lab1 lab2 lab3 lab4 lab5 lab6");
    char *bare[] = {"/bin/sh", "-c", "make --no-print-directory lab", NULL};
    ck_assert_int_eq(run_command(bare, NULL, out, sizeof out), 2);
    ck_assert_ptr_null(strstr(out, "lab.o"));
}
END_TEST

/* make profile's explanations, from a stand-in for ncu that prints one
 * kernel's row as ncu's CSV does; and its word on counters that need admin
 * rights. */
START_TEST(profile_in_plain_words)
{
    char *argv[] = {"grader/profile", "1", "3", NULL};
    const char *env[] = {"NCU=grader/tests/fake-ncu", NULL};
    ck_assert_int_eq(run_command(argv, env, out, sizeof out), 0);
    HAS("kernel tile_kernel<0>: 212.5 us, 65536 blocks of 256 threads, 32 registers per thread");
    HAS("memory bandwidth in use: 62% of the peak");
    HAS("global loads: 4.0 sectors per request. Coalesced");
    HAS("global stores: 32.0 sectors per request. The lanes of a warp write scattered addresses");
    HAS("shared-memory bank conflicts: 0.00 extra passes per load instruction, 7.50 per store "
        "(0 and 15728640 in all). Many: pad the tile");
    HAS("achieved occupancy: 88%");
    /* The compute labs speak of the FMA pipe; lab 4's tensor-core stage says
     * that pipe should be quiet. */
    char *gemm7[] = {"grader/profile", "4", "7", NULL};
    ck_assert_int_eq(run_command(gemm7, env, out, sizeof out), 0);
    HAS("FMA pipe busy: 3% of the cycles. The arithmetic units wait");
    ck_assert_ptr_null(strstr(out, "memory bandwidth in use"));
    char *gemm8[] = {"grader/profile", "4", "8", NULL};
    ck_assert_int_eq(run_command(gemm8, env, out, sizeof out), 0);
    HAS("FMA pipe busy: 3% of the cycles. This stage should do its multiply-adds on the tensor cores");
    const char *perm[] = {"NCU=grader/tests/fake-ncu", "FAKE_NCU=perm", NULL};
    ck_assert_int_eq(run_command(argv, perm, out, sizeof out), 3);
    HAS("needs\nadministrator rights");
    char *bad[] = {"grader/profile", "9", "3", NULL};
    ck_assert_int_eq(run_command(bad, env, out, sizeof out), 2);
    HAS("LAB is a number from 1 to 7, not '9'");
}
END_TEST

START_TEST(no_gpu_exits_77)
{
    /* An invalid device index hides every GPU, so this holds on any machine. */
    const char *env[] = {"CUDA_VISIBLE_DEVICES=-1", NULL};
    ck_assert_int_eq(grade(env, "lab1", "--solutions", NULL), 77);
    HAS("no usable CUDA GPU");
    HAS("Nothing was graded");
    ck_assert_ptr_null(strstr(out, "Score:"));
    ck_assert_int_eq(grade(env, "--gpu-info", NULL), 77);
    HAS("no usable GPU");
    /* --sms asks for part of a GPU: with none, the same answer and status. */
    ck_assert_int_eq(grade(env, "lab1", "--solutions", "--sms", "40", NULL), 77);
    HAS("no usable CUDA GPU");
    ck_assert_ptr_null(strstr(out, "Score:"));
    ck_assert_int_eq(grade(env, "--gpu-info", "--sms", "16", NULL), 77);
    HAS("no usable GPU");
    /* Platforms still get their results: a results.json with the reason, and
     * Autolab's scores line last. */
    const char *json = "/tmp/cudalabs-nogpu-results.json";
    unlink(json);
    ck_assert_int_eq(grade(env, "lab1", "--solutions", "--gradescope", json, "--autolab", NULL),
                     77);
    size_t len = strlen(out);
    ck_assert(len > 1 && out[len - 1] == '\n');
    out[len - 1] = '\0';
    const char *last = strrchr(out, '\n');
    ck_assert_ptr_nonnull(last);
    ck_assert_str_eq(last + 1, "{\"scores\": {\"lab1\": 0}}"); /* the very last line */
    char doc[8192];
    ck_assert_int_eq(read_text(json, doc, sizeof doc), 0);
    unlink(json);
    ck_assert(json_balanced(doc));
    ck_assert_ptr_nonnull(strstr(doc, "{\"score\": 0, \"output\": \"Nothing was graded (grader exit status 77)"));
    ck_assert_ptr_nonnull(strstr(doc, "no usable CUDA GPU"));
}
END_TEST

/* A copy of the grader in an empty folder: nothing has been built there. */
START_TEST(nothing_built_yet)
{
    char dir[] = "/tmp/cudalabs-emptyXXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char copy[256], cmd[600];
    snprintf(copy, sizeof copy, "%s/grade", dir);
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", grade_path(), copy);
    ck_assert_int_eq(system(cmd), 0);
    char *argv[] = {copy, NULL};
    ck_assert_int_eq(run_command(argv, NULL, out, sizeof out), 2);
    HAS("no lab has been built yet");
    HAS("make lab1 && ./grade");
    char *argv2[] = {copy, "lab1", NULL};
    ck_assert_int_eq(run_command(argv2, NULL, out, sizeof out), 2);
    HAS("is not built yet: run `make lab1` first");
    char *argv3[] = {copy, "all", NULL};
    ck_assert_int_eq(run_command(argv3, NULL, out, sizeof out), 2);
    HAS("no lab is built yet");
    ck_assert_int_eq(remove_tree(dir), 0);
}
END_TEST

/* make student-repo: the committed tree without solutions/ and the tests. */
START_TEST(student_copy)
{
    const char *makes[] = {"/usr/bin/make", "/bin/make", "/usr/local/bin/make"};
    const char *make = NULL;
    for (size_t i = 0; i < sizeof makes / sizeof makes[0] && !make; i++)
        if (access(makes[i], X_OK) == 0)
            make = makes[i];
    ck_assert_msg(make != NULL, "no make found");
    char dir[] = "/tmp/cudalabs-studentXXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char dest[256], arg[300], path[400];
    snprintf(dest, sizeof dest, "%s/copy", dir);
    snprintf(arg, sizeof arg, "DEST=%s", dest);
    char *argv[] = {(char *)make, "--no-print-directory", "student-repo", arg, NULL};
    int rc = run_command(argv, NULL, out, sizeof out);
    ck_assert_msg(rc == 0, "exit %d:\n%s", rc, out);
    const char *present[] = {"labs/1-transpose/transpose.cu", "labs/1-transpose/transpose.h",
                             "handouts/1-transpose.md", "grader/main.c", "Makefile"};
    const char *absent[] = {"solutions", "grader/tests", ".ci", ".github/workflows/ci.yml",
                            "handouts/answers.md"};
    for (size_t i = 0; i < sizeof present / sizeof present[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dest, present[i]);
        ck_assert_msg(access(path, R_OK) == 0, "%s missing from the student copy", present[i]);
    }
    for (size_t i = 0; i < sizeof absent / sizeof absent[0]; i++) {
        ck_assert_msg(access(absent[i], F_OK) == 0, "%s is not in the repository", absent[i]);
        snprintf(path, sizeof path, "%s/%s", dest, absent[i]);
        ck_assert_msg(access(path, F_OK) != 0, "%s must not be in the student copy", absent[i]);
    }
    char *argv2[] = {(char *)make, "--no-print-directory", "-C", dest, "test", NULL};
    ck_assert_int_eq(run_command(argv2, NULL, out, sizeof out), 2);
    HAS("this is a student copy");
    /* A second copy into the same place is refused. */
    ck_assert_int_eq(run_command(argv, NULL, out, sizeof out), 2);
    HAS("exists already");
    ck_assert_int_eq(remove_tree(dir), 0);
}
END_TEST

/* ---- adversarial cases: the header of each .cu says what must happen ---- */

typedef struct adv_case {
    char name[64];
    int lab; /* the lab it is graded as ("lab: 2"); 1 when not said */
    int needs_gpu;
    int exit_code; /* -1: not checked */
    char env[4][128];
    int n_env;
    char args[4][64];
    int n_args;
    char output[4][160]; /* text the output must contain */
    int n_output;
    struct {
        int stage;
        char kind[16];
        char verdict[32];
    } expect[12];
    int n_expect;
} adv_case;

/* TEST_LABS="2,3" limits the GPU tests to those labs (a GPU run of every
 * lab takes over ten minutes); unset or empty: every lab. */
static int lab_selected(int lab)
{
    const char *list = getenv("TEST_LABS");
    if (!list || !*list)
        return 1;
    for (const char *p = list; *p;) {
        char *end;
        long n = strtol(p, &end, 10);
        if (end == p)
            p++;
        else {
            if (n == lab)
                return 1;
            p = end;
        }
    }
    return 0;
}

static adv_case cases[MAX_CASES];
static int n_cases, n_gpu_cases, n_left_out; /* left out: GPU cases of labs not selected */
static int n_unopened; /* cases of labs not open yet, GPU or not: not run */
static int gpu_case_index[MAX_CASES], cpu_case_index[MAX_CASES], n_cpu_cases;

static void trim(char *s)
{
    size_t n = strlen(s);
    while (n && (s[n - 1] == '\n' || s[n - 1] == ' ' || s[n - 1] == '\r'))
        s[--n] = '\0';
}

/* Reads the "key: value" lines of a case's header comment. */
static void load_case(const char *file, adv_case *c)
{
    memset(c, 0, sizeof *c);
    c->lab = 1;
    c->needs_gpu = 1;
    c->exit_code = -1;
    snprintf(c->name, sizeof c->name, "%.*s", (int)(strlen(file) - 3), file);
    char path[512];
    snprintf(path, sizeof path, "%s/%.400s", ADV_DIR, file); /* a file name: 255 at most */
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        trim(line);
        const char *p = line;
        while (*p == ' ' || *p == '*' || *p == '/')
            p++;
        if (strncmp(p, "expect:", 7) == 0 && c->n_expect < 12) {
            int k = c->n_expect;
            if (sscanf(p + 7, " %d %15s %31[^\n]", &c->expect[k].stage, c->expect[k].kind,
                       c->expect[k].verdict) == 3)
                c->n_expect++;
        } else if (strncmp(p, "expect-exit:", 12) == 0) {
            c->exit_code = atoi(p + 12);
        } else if (strncmp(p, "expect-output:", 14) == 0 && c->n_output < 4) {
            snprintf(c->output[c->n_output++], sizeof c->output[0], "%s", p + 15);
        } else if (strncmp(p, "grade-env:", 10) == 0 && c->n_env < 4) {
            snprintf(c->env[c->n_env++], sizeof c->env[0], "%s", p + 11);
        } else if (strncmp(p, "grade-args:", 11) == 0) {
            char *save = NULL, copy[256];
            snprintf(copy, sizeof copy, "%s", p + 11);
            for (char *t = strtok_r(copy, " ", &save); t && c->n_args < 4;
                 t = strtok_r(NULL, " ", &save))
                snprintf(c->args[c->n_args++], sizeof c->args[0], "%s", t);
        } else if (strncmp(p, "lab:", 4) == 0) {
            c->lab = atoi(p + 4);
        } else if (strncmp(p, "needs-gpu:", 10) == 0) {
            c->needs_gpu = strstr(p + 10, "no") == NULL;
        }
    }
    fclose(f);
}

static void load_cases(void)
{
    if (n_cases)
        return;
    DIR *d = opendir(ADV_DIR);
    if (!d)
        return;
    struct dirent *e;
    char names[MAX_CASES][64];
    int n = 0;
    while ((e = readdir(d)) && n < MAX_CASES) {
        size_t len = strlen(e->d_name);
        if (len > 3 && len < sizeof names[0] && strcmp(e->d_name + len - 3, ".cu") == 0)
            memcpy(names[n++], e->d_name, len + 1);
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof names[0], (int (*)(const void *, const void *))strcmp);
    for (int i = 0; i < n; i++) {
        load_case(names[i], &cases[n_cases]);
        int lab = cases[n_cases].lab;
        if (lab_position(lab) < 0 || !lab_table[lab_position(lab)]->available) /* written ahead of its lab: runs once the lab opens */
            n_unopened++;
        else if (cases[n_cases].needs_gpu && lab_selected(cases[n_cases].lab))
            gpu_case_index[n_gpu_cases++] = n_cases;
        else if (cases[n_cases].needs_gpu)
            n_left_out++;
        else
            cpu_case_index[n_cpu_cases++] = n_cases;
        n_cases++;
    }
}

/* The verdict of one test in ./grade --json output; "" when absent. */
static void json_verdict(const char *json, int stage, const char *kind, char *v, size_t n)
{
    v[0] = '\0';
    char key[64];
    snprintf(key, sizeof key, "{\"stage\": %d, ", stage);
    const char *s = strstr(json, key);
    if (!s)
        return;
    const char *end = strstr(s + 1, "{\"stage\": ");
    char field[64];
    snprintf(field, sizeof field, "\"%s\": {\"verdict\": \"", kind);
    const char *f = strstr(s, field);
    if (!f || (end && f > end))
        return;
    f += strlen(field);
    const char *q = strchr(f, '"');
    if (q)
        snprintf(v, n, "%.*s", (int)(q - f), f);
}

static void run_case(const adv_case *c)
{
    char lib[256], json[256];
    snprintf(lib, sizeof lib, "build/adversarial/%s.so", c->name);
    snprintf(json, sizeof json, "/tmp/cudalabs-%s-%d.json", c->name, (int)getpid());
    const char *env[6] = {NULL};
    for (int i = 0; i < c->n_env; i++)
        env[i] = c->env[i];
    char lab[16];
    snprintf(lab, sizeof lab, "lab%d", c->lab);
    char *argv[16] = {(char *)grade_path(), lab, "--lib", lib, "--json", json};
    int n = 6;
    int own_stage = 0;
    for (int i = 0; i < c->n_args; i++) {
        argv[n++] = (char *)c->args[i];
        own_stage |= strcmp(c->args[i], "--stage") == 0;
    }
    /* Only the stages the case expects something of, and the stages they are
     * timed against: their verdicts are what a whole run would give them (a
     * stage's tests depend on its own code and its bases' correctness). */
    char stages[64] = "";
    const lab_spec *spec = lab_find(lab);
    if (c->n_expect > 0 && !own_stage && spec) {
        unsigned mask = 0;
        for (int i = 0; i < c->n_expect; i++) {
            int s = c->expect[i].stage;
            if (s < 0 || s >= spec->n_stages)
                continue;
            mask |= 1u << s;
            for (int b = 0; b < spec->stages[s].n_base; b++)
                mask |= 1u << spec->stages[s].base[b];
        }
        size_t used = 0;
        for (int s = 0; s < spec->n_stages && used < sizeof stages; s++)
            if (mask & (1u << s))
                used += (size_t)snprintf(stages + used, sizeof stages - used, "%s%d",
                                         used ? "," : "", s);
        if (mask) {
            argv[n++] = "--stage";
            argv[n++] = stages;
        }
    }
    argv[n] = NULL;
    unlink(json);
    int rc = run_command(argv, env, out, sizeof out);
    if (c->exit_code >= 0)
        ck_assert_msg(rc == c->exit_code, "%s: exit %d, expected %d:\n%s", c->name, rc,
                      c->exit_code, out);
    else
        ck_assert_msg(rc == 1, "%s: exit %d, expected 1 (some test failed):\n%s", c->name, rc,
                      out);
    for (int i = 0; i < c->n_output; i++)
        ck_assert_msg(strstr(out, c->output[i]), "%s: output lacks \"%s\":\n%s", c->name,
                      c->output[i], out);
    ck_assert_msg(strstr(out, "grade: ") == NULL || c->n_expect == 0,
                  "%s: the grader complained:\n%s", c->name, out);
    if (c->n_expect == 0)
        return;
    static char doc[OUT_MAX];
    ck_assert_msg(read_text(json, doc, sizeof doc) == 0, "%s: no JSON written:\n%s", c->name, out);
    unlink(json);
    for (int i = 0; i < c->n_expect; i++) {
        char v[64];
        json_verdict(doc, c->expect[i].stage, c->expect[i].kind, v, sizeof v);
        const char *want = c->expect[i].verdict;
        int ok = want[0] == '!' ? (v[0] && strcmp(v, want + 1) != 0) : strcmp(v, want) == 0;
        ck_assert_msg(ok, "%s: stage %d %s is \"%s\", expected \"%s\"\n%s", c->name,
                      c->expect[i].stage, c->expect[i].kind, v, want, out);
    }
}

START_TEST(adversarial_cpu)
{
    run_case(&cases[cpu_case_index[_i]]);
}
END_TEST

START_TEST(adversarial_gpu)
{
    run_case(&cases[gpu_case_index[_i]]);
}
END_TEST

/* ---- on a GPU ---- */

/* The solutions' most intricate kernels are clean under all four sanitizer
 * tools: lab 1's vectorised tile, lab 2's warp-synchronous finish, lab 3's
 * look-back. */
static const char *const sanitized[][2] = {{"lab1", "5"}, {"lab2", "5"}, {"lab3", "6"}};

static int sanitized_index[sizeof sanitized / sizeof sanitized[0]], n_sanitized;
static int n_labs_left_out, n_labs_left_out_sanitized; /* not in TEST_LABS */

/* The labs that exist, by number: the GPU tests run once per lab. */
static int available_labs[LAB_MAX], n_available;

/* The labs this GPU cannot run (every stage NOT AVAILABLE: lab 7 off compute
 * capability 9.0): one test each, that the grader says so and grades nothing. */
static int elsewhere_labs[LAB_MAX], n_elsewhere, n_cases_elsewhere;

static void load_labs(void)
{
    if (n_available || n_elsewhere)
        return;
    for (int i = 0; i < lab_count && n_available < LAB_MAX; i++)
        if (lab_table[i]->available && lab_selected(lab_table[i]->number) &&
            !test_lab_runs_here(lab_table[i]))
            elsewhere_labs[n_elsewhere++] = lab_table[i]->number;
        else if (lab_table[i]->available && lab_selected(lab_table[i]->number))
            available_labs[n_available++] = lab_table[i]->number;
        else if (lab_table[i]->available)
            n_labs_left_out++;
    for (int k = 0; k < n_gpu_cases; k++) /* their cases are left out too */
        for (int e = 0; e < n_elsewhere; e++)
            n_cases_elsewhere += cases[gpu_case_index[k]].lab == elsewhere_labs[e];
    for (int i = 0; i < (int)(sizeof sanitized / sizeof sanitized[0]); i++)
        if (lab_selected(sanitized[i][0][3] - '0'))
            sanitized_index[n_sanitized++] = i;
        else
            n_labs_left_out_sanitized++;
}

START_TEST(solutions_full_marks)
{
    char lab[16], json[64];
    snprintf(lab, sizeof lab, "lab%d", available_labs[_i]);
    /* Kept: each run of the suite adds a run to what ./grade --stability reads. */
    snprintf(json, sizeof json, "build/test-results/solutions-%s.json", lab);
    mkdir("build/test-results", 0755);
    int rc = grade(NULL, lab, "--solutions", "--timings", "--json", json, NULL);
    ck_assert_msg(rc == 0, "%s: exit %d:\n%s", lab, rc, out);
    const char *s = strstr(out, "Score: ");
    ck_assert_ptr_nonnull(s);
    int got = -1, max = -2;
    ck_assert_int_eq(sscanf(s, "Score: %d/%d", &got, &max), 2);
    ck_assert_int_gt(max, 0);
    ck_assert_int_eq(got, max);
    HAS("100%: Checks:");
    HAS("seed: 0x");
    /* Every reference shows its stages' techniques in its machine code (the
     * TF32 stages: the .TF32 forms of HMMA and HGMMA). */
    ck_assert_msg(!strstr(out, "Techniques (read from the machine code"),
                  "%s: a reference lacks a technique:\n%s", lab, out);
    /* Print the table into the test log: it is the measured record. */
    fputs(out, stdout);
}
END_TEST

/* lab "labN", its skeleton's library and a JSON path of this process for
 * lab number n (tag names the test); the lab's spec. */
static const lab_spec *lab_files(int n, const char *tag, char lab[16], char lib[64],
                                 char json[64])
{
    snprintf(lab, 16, "lab%d", n);
    const lab_spec *spec = lab_find(lab);
    ck_assert_ptr_nonnull(spec);
    snprintf(lib, 64, "build/lab%d.so", spec->number);
    snprintf(json, 64, "/tmp/cudalabs-%s-%d.json", tag, (int)getpid());
    return spec;
}

/* Every stage to write says "not implemented" and earns nothing; the given
 * stages work as shipped; speed tests are skipped, not failed. Check's own
 * selection variables in the environment change nothing: the grader still
 * runs every stage. */
START_TEST(skeleton_fails_cleanly)
{
    char lab[16], lib[64], json[64];
    const lab_spec *spec = lab_files(available_labs[_i], "skeleton", lab, lib, json);
    const char *env[] = {"CK_RUN_SUITE=no-such-suite", "CK_RUN_CASE=no-such-case", NULL};
    int rc = grade(env, lab, "--lib", lib, "--json", json, NULL);
    ck_assert_msg(rc == 1, "%s: exit %d:\n%s", lab, rc, out);
    HAS("not implemented yet");
    HAS("Score: 0/");
    ck_assert_ptr_null(strstr(out, "TIMEOUT"));
    ck_assert_ptr_null(strstr(out, "CRASH"));
    static char doc[OUT_MAX];
    ck_assert_int_eq(read_text(json, doc, sizeof doc), 0);
    unlink(json);
    for (int s = 0; s < spec->n_stages; s++) {
        char v[64];
        json_verdict(doc, s, "correctness", v, sizeof v);
        const char *want = spec->stages[s].given ? "PASS" : "NOT IMPLEMENTED";
        ck_assert_msg(strcmp(v, want) == 0, "%s stage %d: %s, expected %s", lab, s, v, want);
        if (spec->stages[s].points_speed > 0) {
            json_verdict(doc, s, "speed", v, sizeof v);
            ck_assert_msg(strcmp(v, "SKIPPED") == 0, "%s stage %d speed: %s", lab, s, v);
        }
    }
}
END_TEST

/* A lab this GPU cannot run (lab 7 on any GPU but compute capability 9.0):
 * every stage NOT AVAILABLE with the capability it needs, nothing graded,
 * exit 77 (skipped, never a failure), for the solutions and the skeleton
 * alike. */
START_TEST(lab_not_available_here)
{
    char lab[16], lib[64], json[64];
    const lab_spec *spec = lab_files(elsewhere_labs[_i], "elsewhere", lab, lib, json);
    for (int skeleton = 0; skeleton < 2; skeleton++) {
        int rc = skeleton ? grade(NULL, lab, "--lib", lib, "--json", json, NULL)
                          : grade(NULL, lab, "--solutions", "--json", json, NULL);
        ck_assert_msg(rc == 77, "%s: exit %d:\n%s", lab, rc, out);
        HAS("nothing was graded");
        HAS("needs compute capability");
        static char doc[OUT_MAX];
        ck_assert_int_eq(read_text(json, doc, sizeof doc), 0);
        unlink(json);
        for (int s = 0; s < spec->n_stages; s++) {
            char v[64];
            json_verdict(doc, s, "correctness", v, sizeof v);
            ck_assert_msg(strcmp(v, "NOT AVAILABLE") == 0, "%s stage %d: %s", lab, s, v);
        }
    }
}
END_TEST

/* Several labs in one run are graded one after another, each with its own
 * inputs made just before its tests and freed after them (grader/main.c):
 * every lab's result is there, Check's summary counts them all, and each
 * lab's technique check (a cuobjdump pipe per lab, open while its tests run)
 * still reads its code. --quick and one stage keep it short. */
START_TEST(all_labs_in_one_run)
{
    char json[64];
    snprintf(json, sizeof json, "/tmp/cudalabs-all-%d.json", (int)getpid());
    int rc = grade(NULL, "all", "--solutions", "--quick", "--stage", "1", "--json", json, NULL);
    ck_assert_msg(rc == 0, "exit %d:\n%s", rc, out);
    static char doc[OUT_MAX];
    ck_assert_int_eq(read_text(json, doc, sizeof doc), 0);
    unlink(json);
    int labs = 0;
    const char *prev_header = out;
    for (int i = 0; i < lab_count; i++) {
        if (!lab_table[i]->available)
            continue;
        const int here = test_lab_runs_here(lab_table[i]);
        labs += here; /* a lab this GPU cannot run has no test in Check's count */
        int n = lab_table[i]->number;
        char key[32], header[64];
        /* In the printed order: the headers, then each lab's table. */
        snprintf(header, sizeof header, "\nlab %d (%s): ", n, lab_table[i]->name);
        const char *h = strstr(out, header);
        ck_assert_msg(h && h >= prev_header, "lab %d's header missing or out of order:\n%s", n,
                      out);
        prev_header = h;
        snprintf(key, sizeof key, "{\"lab\": %d, ", n);
        const char *l = strstr(doc, key);
        ck_assert_msg(l, "lab %d is not in the JSON:\n%s", n, doc);
        static char section[OUT_MAX];
        const char *end = strstr(l + 1, "{\"lab\": ");
        snprintf(section, sizeof section, "%.*s", end ? (int)(end - l) : (int)strlen(l), l);
        char v[64];
        json_verdict(section, 1, "correctness", v, sizeof v);
        const char *want = here ? "PASS" : "NOT AVAILABLE";
        ck_assert_msg(strcmp(v, want) == 0, "lab %d stage 1: \"%s\", expected %s\n%s", n, v, want,
                      out);
    }
    ck_assert_int_ge(labs, 2);
    char summary[64];
    snprintf(summary, sizeof summary, "100%%: Checks: %d, Failures: 0, Errors: 0", labs);
    HAS(summary);
    ck_assert_ptr_null(strstr(out, "grade: "));
}
END_TEST

START_TEST(solution_sanitizer_clean)
{
    const char *const *which = sanitized[sanitized_index[_i]];
    int rc = grade(NULL, which[0], "--solutions", "--sanitize", "--stage", which[1], NULL);
    ck_assert_msg(rc == 0, "%s: exit %d:\n%s", which[0], rc, out);
    HAS("memcheck clean  racecheck clean  synccheck clean  initcheck clean");
    HAS("4 sanitizer runs, 0 with findings");
}
END_TEST


Suite *make_grade_suite(void)
{
    load_cases();
    Suite *s = suite_create("grade");
    TCase *tc = tcase_create("grade");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, help_and_list);
    tcase_add_test(tc, usage_errors_exit_2);
    tcase_add_test(tc, not_a_library);
    tcase_add_test(tc, config_file);
    tcase_add_test(tc, from_recorded_results);
    tcase_add_test(tc, no_gpu_exits_77);
    tcase_add_test(tc, make_unknown_lab);
    tcase_add_test(tc, thread_limit_stops_a_fork_bomb);
    tcase_add_test(tc, profile_in_plain_words);
    tcase_add_test(tc, nothing_built_yet);
    tcase_add_test(tc, student_copy);
    if (n_cpu_cases)
        tcase_add_loop_test(tc, adversarial_cpu, 0, n_cpu_cases);
    suite_add_tcase(s, tc);
    return s;
}

int grade_unopened_count(void)
{
    load_cases();
    return n_unopened;
}

int grade_gpu_left_out_count(void)
{
    load_cases();
    load_labs();
    return 2 * n_labs_left_out + n_labs_left_out_sanitized + n_left_out + n_cases_elsewhere;
}

int grade_gpu_test_count(void)
{
    load_cases();
    load_labs();
    return 2 * n_available + n_sanitized + n_gpu_cases + 1; /* + all_labs_in_one_run */
}

/* The GPU suite has one TCase per lab ("lab3": its solutions, its skeleton,
 * its sanitizer cases, its adversarial cases), each timed from the parent by
 * its unchecked fixtures (run in order, in the parent), for the per-lab
 * summary lines. */
static double lab_began[LAB_MAX], lab_seconds[LAB_MAX];
static int labs_begun, labs_ended;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void lab_begins(void)
{
    if (labs_begun < LAB_MAX)
        lab_began[labs_begun++] = now_s();
}

static void lab_ends(void)
{
    if (labs_ended < labs_begun) {
        lab_seconds[labs_ended] = now_s() - lab_began[labs_ended];
        printf("GPU tests of lab%d done in %.0f s\n", available_labs[labs_ended],
               lab_seconds[labs_ended]);
        fflush(stdout);
        labs_ended++;
    }
}

static int case_lab_order(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    int d = cases[x].lab - cases[y].lab;
    return d ? d : x - y; /* by lab, then by name */
}

Suite *make_grade_gpu_suite(void)
{
    load_cases();
    load_labs();
    qsort(gpu_case_index, (size_t)n_gpu_cases, sizeof gpu_case_index[0], case_lab_order);
    Suite *s = suite_create("grade-gpu");
    for (int i = 0; i < n_available; i++) {
        int lab = available_labs[i];
        /* Check keeps the name it is given, not a copy: it must outlive the run. */
        static char names[LAB_MAX][16];
        char *name = names[i];
        snprintf(name, sizeof names[i], "lab%d", lab);
        TCase *tc = tcase_create(name);
        tcase_set_timeout(tc, 600);
        tcase_add_unchecked_fixture(tc, lab_begins, lab_ends);
        tcase_add_loop_test(tc, solutions_full_marks, i, i + 1);
        tcase_add_loop_test(tc, skeleton_fails_cleanly, i, i + 1);
        for (int k = 0; k < n_sanitized; k++)
            if (sanitized[sanitized_index[k]][0][3] - '0' == lab)
                tcase_add_loop_test(tc, solution_sanitizer_clean, k, k + 1);
        for (int k = 0; k < n_gpu_cases; k++)
            if (cases[gpu_case_index[k]].lab == lab)
                tcase_add_loop_test(tc, adversarial_gpu, k, k + 1);
        suite_add_tcase(s, tc);
    }
    if (n_elsewhere) {
        TCase *tc = tcase_create("elsewhere");
        tcase_set_timeout(tc, 120);
        tcase_add_loop_test(tc, lab_not_available_here, 0, n_elsewhere);
        suite_add_tcase(s, tc);
    }
    TCase *all = tcase_create("all");
    tcase_set_timeout(all, 300);
    tcase_add_test(all, all_labs_in_one_run);
    suite_add_tcase(s, all);
    return s;
}

void grade_gpu_summary(SRunner *sr)
{
    int n = srunner_ntests_run(sr);
    TestResult **trs = srunner_results(sr);
    for (int i = 0; trs && i < n_available; i++) {
        char name[16];
        snprintf(name, sizeof name, "lab%d", available_labs[i]);
        int ran = 0, failed = 0;
        for (int k = 0; k < n; k++)
            if (strcmp(tr_tcname(trs[k]), name) == 0) {
                ran++;
                failed += tr_rtype(trs[k]) != CK_PASS;
            }
        if (ran)
            printf("GPU %s: %d tests, %d passed, %d failed, %.0f s\n", name, ran, ran - failed,
                   failed, i < labs_ended ? lab_seconds[i] : 0.0);
    }
    free(trs);
}
