/* grader/main.c: ./grade. The parent parses arguments, checks the libraries
 * exist and define every stage, asks a child whether there is a GPU, builds
 * one Check suite per lab and runs the suites in fork mode, one lab at a
 * time, each with its own inputs made just before and freed right after. It
 * never calls CUDA itself: a CUDA call before fork() breaks CUDA in every
 * child. */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <stdarg.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../common/rng.h"
#include "analytics.h"
#include "buildlog.h"
#include "ceiling.h"
#include "chart.h"
#include "config.h"
#include "decide.h"
#include "elfsym.h"
#include "formats.h"
#include "html.h"
#include "load.h"
#include "lab.h"
#include "options.h"
#include "policy.h"
#include "probe.h"
#include "sandbox.h"
#include "sanitize.h"
#include "sass.h"
#include "report.h"
#include "results.h"
#include "runner.h"
#include "witness.h"
#include "timings.h"

enum { EXIT_ALL_PASSED = 0, EXIT_FAILED = 1, EXIT_USAGE = 2, EXIT_NO_GPU = 77 };

/* What main() needs once grade_main has returned, to write the results
 * files that must exist however the run ended: messages that ended it early
 * are printed and also kept (said), so that a results file (--gradescope,
 * Classroom) can carry them when grading never started. */
typedef struct fallback {
    char said[4096];
    const char *gradescope_path;
    int gradescope_written;
    int autolab_wanted, autolab_written;
    int classroom_wanted, classroom_written;
    /* The labs asked for, as a name ("lab1", "lab1, lab2") and the points
     * they are worth: what a Classroom payload says when nothing was graded. */
    char asked_names[128];
    int asked_max;
    char autolab_zeros[256]; /* the labs asked for, at 0 points */
} fallback;

__attribute__((format(printf, 3, 4))) static void say(fallback *fb, FILE *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char text[2048];
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    fputs(text, f);
    size_t used = strlen(fb->said);
    snprintf(fb->said + used, sizeof fb->said - used, "%s", text);
}

/* The repository root: the folder that holds this executable. */
static void find_root(char *root, size_t n)
{
    char exe[PATH_MAX];
    ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (k <= 0) {
        snprintf(root, n, ".");
        return;
    }
    exe[k] = '\0';
    snprintf(root, n, "%s", dirname(exe));
}

/* Check scales every time limit by $CK_TIMEOUT_MULTIPLIER; so do our messages. */
static double timeout_multiplier(void)
{
    const char *m = getenv("CK_TIMEOUT_MULTIPLIER");
    double v = m ? strtod(m, NULL) : 1.0;
    return v > 0 ? v : 1.0;
}

/* Check reads a few variables that would change what the grader runs or
 * where it writes: CK_RUN_SUITE=grade-gpu, set for `make test`, would reach
 * a ./grade started inside it and select none of the grader's own suites
 * ("no test ran"). The grader decides these itself, so it drops them; only
 * CK_TIMEOUT_MULTIPLIER (above) is honoured. */
static void own_check_settings(void)
{
    static const char *const names[] = {
        "CK_RUN_SUITE",     "CK_RUN_CASE",     "CK_INCLUDE_TAGS",      "CK_EXCLUDE_TAGS",
        "CK_LOG_FILE_NAME", "CK_XML_LOG_FILE_NAME", "CK_TAP_LOG_FILE_NAME", "CK_FORK",
        "CK_VERBOSITY",     "CK_DEFAULT_TIMEOUT",
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        unsetenv(names[i]);
}

static int file_exists(const char *path) { return access(path, R_OK) == 0; }

static int gradable(const lab_spec *spec)
{
    return spec->available && spec->n_stages > 0;
}

static void lib_path(char *buf, size_t n, const char *root, const lab_spec *spec, int solutions)
{
    snprintf(buf, n, "%s/build/%slab%d.so", root, solutions ? "solutions/" : "", spec->number);
}

/* Did each stage use its technique? Read from the library's machine code
 * when the CUDA Toolkit's cuobjdump is there (nothing happens otherwise):
 * stages an instructor requires the technique of lose their points now, and
 * the lines naming what is missing are returned in *text, printed after the
 * failures (free it). */
/* The machine code is read (cuobjdump, a second or two) while the lab is
 * graded: cuobjdump starts before the inputs are made, a thread of the
 * parent reads what it prints, and the test children close their copy of
 * that pipe (runner_close_in_children). */
typedef struct sass_read {
    sass_pending pending;
    sass_code code;
    int ok;
    char err[256]; /* why the code could not be read, when not ok */
    pthread_t thread;
    int started;
} sass_read;

static void *read_sass(void *arg)
{
    sass_read *r = arg;
    r->ok = sass_finish(&r->pending, &r->code, r->err, sizeof r->err) == 0;
    return NULL;
}

/* cuobjdump reads lib (the library's sealed copy); messages name it shown. */
static void sass_begin(sass_read *r, const lab_spec *spec, const char *lib, const char *shown,
                       int device_sm)
{
    memset(r, 0, sizeof *r);
    r->pending.fd = -1;
    snprintf(r->err, sizeof r->err, "it was not read");
    if ((!lab_has_techniques(spec) && !lab_has_refused_ops(spec)) ||
        sass_start(lib, &r->pending, r->err, sizeof r->err) != 0)
        return;
    r->pending.lib = shown;
    r->pending.device_sm = device_sm; /* refused instructions: the code this GPU runs */
    runner_close_in_children(r->pending.fd);
    r->started = pthread_create(&r->thread, NULL, read_sass, r) == 0;
    if (!r->started) /* no thread to be had: read it now */
        read_sass(r);
}

static void sass_end(sass_read *r)
{
    if (r->started)
        pthread_join(r->thread, NULL);
    r->started = 0;
    /* Closed only now that no test child runs: each child closes this number,
     * which must not meanwhile have been given to another file of ours. */
    runner_close_in_children_end(r->pending.fd);
    sass_close(&r->pending);
}

static void technique_check(const lab_spec *spec, lab_results *res, sass_read *sass,
                            const int *required, char **text)
{
    *text = NULL;
    if (!lab_has_techniques(spec) && !lab_has_refused_ops(spec))
        return;
    size_t len = 0;
    FILE *f = open_memstream(text, &len);
    if (!f)
        return;
    if (!sass->ok) {
        sass_unchecked(f, spec, res, required, sass->err);
        fclose(f);
        return;
    }
    /* First the instructions a stage must not hold: a stage REJECTED for
     * them is not listed for a technique it lacks. */
    sass_refuse(spec, res, &sass->code);
    const lab_technique *missing[LAB_MAX_STAGES];
    sass_report(f, spec, res, &sass->code, missing);
    fclose(f);
    sass_require(spec, res, missing, required);
    sass_free(&sass->code);
    sass->ok = 0;
}

/* Stages a course requires to be clean under compute-sanitizer, and that
 * passed their correctness test, are run under it now; a finding fails
 * their correctness test. The sanitizer's report is printed as it runs. */
static void sanitizer_check(const lab_spec *spec, lab_results *res, const char *lib,
                            const int *required, uint64_t seed)
{
    for (int s = 0; required && s < spec->n_stages; s++) {
        test_record *rec = &res->t[s][TEST_CORRECT];
        if (!required[s] || rec->v != V_PASS) /* only a pass is demoted */
            continue;
        int rc = sanitize_lab(spec, lib, 1u << s, seed);
        if (rc == SANITIZE_NO_TOOL) {
            printf("  (stage %d: compute-sanitizer is missing, so its required check was not "
                   "run)\n",
                   s);
            continue;
        }
        if (rc != SANITIZE_FOUND)
            continue;
        results_open();
        decide_sanitizer_finding(rec, spec->number, s);
    }
}

/* Each lab's spec with the instructor's config applied (or the built-in
 * one), by the lab's position in the list of labs, and the rules the
 * config sets for its stages. */
enum { CONFIGURED_LABS = LAB_MAX };
typedef struct lab_configs {
    lab_spec spec[CONFIGURED_LABS];
    lab_stage stages[CONFIGURED_LABS][LAB_MAX_STAGES];
    int graded[CONFIGURED_LABS][LAB_MAX_STAGES];
    int technique[CONFIGURED_LABS][LAB_MAX_STAGES];
    int sanitizer[CONFIGURED_LABS][LAB_MAX_STAGES];
} lab_configs;

/* The slot of spec's lab in lc, or -1. */
static int config_slot(const lab_spec *spec)
{
    int i = lab_position(spec->number);
    return i >= 0 && i < CONFIGURED_LABS ? i : -1;
}

static const lab_spec *with_config(lab_configs *lc, const lab_spec *spec, const grade_config *c)
{
    int i = config_slot(spec);
    if (i < 0 || !gradable(spec))
        return spec;
    lc->spec[i] = *spec;
    stage_rules rules[LAB_MAX_STAGES];
    config_apply(c, spec, lc->stages[i], rules);
    for (int s = 0; s < spec->n_stages; s++) {
        lc->graded[i][s] = rules[s].graded;
        lc->technique[i][s] = rules[s].technique_required;
        lc->sanitizer[i][s] = rules[s].sanitizer_required;
    }
    lc->spec[i].stages = lc->stages[i];
    return &lc->spec[i];
}

/* Stages whose technique this GPU lacks (a min_cc above its compute
 * capability) are not graded: no tests, no points. Returns them as a mask of
 * stage bits; their records are written by not_available() once the results
 * page exists. */
static unsigned gate_by_capability(lab_configs *lc, const lab_spec *spec, const devinfo *dev)
{
    int i = config_slot(spec);
    unsigned gated = 0;
    if (i < 0 || spec->stages != lc->stages[i])
        return 0;
    for (int s = 0; s < spec->n_stages; s++)
        if (lc->graded[i][s] &&
            !lab_stage_available(&lc->stages[i][s], dev->cc_major, dev->cc_minor)) {
            lc->graded[i][s] = 0;
            lc->stages[i][s].points_correct = 0;
            lc->stages[i][s].points_speed = 0;
            gated |= 1u << s;
        }
    return gated;
}

/* Stages whose gain grows with the SM count (min_speedup_per_sm) need less
 * on a GPU, or in a --sms run, with fewer SMs than the table's threshold
 * assumes, and on too few their speed is reported, not graded (no points
 * either way). Returns the stages changed as a mask; *ungraded gets those
 * whose speed is not graded. */
static unsigned scale_by_sms(lab_configs *lc, const lab_spec *spec, int sms, unsigned *ungraded)
{
    int i = config_slot(spec);
    unsigned changed = 0;
    *ungraded = 0;
    if (i < 0 || spec->stages != lc->stages[i])
        return 0;
    for (int s = 0; s < spec->n_stages; s++) {
        lab_stage *st = &lc->stages[i][s];
        if (!lc->graded[i][s] || st->points_speed == 0 || st->min_speedup_per_sm <= 0)
            continue;
        double need = decide_min_speedup(st, sms);
        if (need == st->min_speedup)
            continue;
        changed |= 1u << s;
        if (need > 0) {
            st->min_speedup = need;
        } else {
            st->points_speed = 0;
            *ungraded |= 1u << s;
        }
    }
    return changed;
}

/* What scale_by_sms changed, said under the run's header. */
static void say_scaled(const lab_spec *spec, const lab_spec *table, unsigned changed,
                       unsigned ungraded, int sms)
{
    for (int s = 0; s < spec->n_stages; s++) {
        if (!(changed & (1u << s)))
            continue;
        const lab_stage *st = &spec->stages[s], *built = &table->stages[s];
        printf("  lab %d stage %d: its gain over stage %d grows with the number of SMs, ",
               spec->number, s, st->base[0]);
        if (ungraded & (1u << s))
            printf("and %d SMs are too few to tell it from stage %d by speed: its speed is "
                   "reported, not graded (from %d SMs up), no points lost\n",
                   sms, st->base[0], decide_min_sms(built));
        else
            printf("so on %d SMs it needs %.2fx (%.3gx per SM; %.2fx on %d or more)\n", sms,
                   st->min_speedup, built->min_speedup_per_sm, built->min_speedup,
                   decide_full_sms(built));
    }
}

static void not_available(const lab_spec *spec, lab_results *res, unsigned gated,
                          const devinfo *dev)
{
    for (int s = 0; s < spec->n_stages; s++)
        if (gated & (1u << s))
            decide_not_available(&res->t[s][TEST_CORRECT], spec, s, dev);
}

/* The config's rules for spec's stages (NULL: a lab with no slot). */
static const int *graded_mask(const lab_configs *lc, const lab_spec *spec)
{
    int i = config_slot(spec);
    return i >= 0 ? lc->graded[i] : NULL;
}

static const int *technique_mask(const lab_configs *lc, const lab_spec *spec)
{
    int i = config_slot(spec);
    return i >= 0 ? lc->technique[i] : NULL;
}

static const int *sanitizer_mask(const lab_configs *lc, const lab_spec *spec)
{
    int i = config_slot(spec);
    return i >= 0 ? lc->sanitizer[i] : NULL;
}

static void list_labs(lab_configs *lc, const grade_config *c)
{
    printf("CUDA Labs: the labs, their stages, points and speed thresholds.\n");
    for (int i = 0; i < lab_count; i++) {
        const lab_spec *spec = with_config(lc, lab_table[i], c);
        printf("\nlab%d  %-10s %s\n", spec->number, spec->name,
               spec->available ? "" : "(not available yet)");
        if (!spec->available)
            continue;
        for (int s = 0; s < spec->n_stages; s++) {
            const lab_stage *st = &spec->stages[s];
            if (!graded_mask(lc, spec)[s]) {
                printf("  stage %d  %-34s %-24s not graded (config)\n", s, st->title, st->symbol);
                continue;
            }
            printf("  stage %d  %-34s %-24s correct %2d", s, st->title, st->symbol,
                   st->points_correct);
            if (st->points_speed > 0 && st->n_base == 0) {
                printf("  speed %2d: >= %.0f%% of %s", st->points_speed, 100.0 * st->min_ceiling,
                       lab_ceiling_name(spec, s));
            } else if (st->points_speed > 0) {
                printf("  speed %2d: >= %.2fx over stage %d", st->points_speed, st->min_speedup,
                       st->base[0]);
                if (st->n_base > 1)
                    printf(" or %d, the faster", st->base[1]);
                if (st->min_ceiling > 0)
                    printf(", and >= %.0f%% of %s", 100.0 * st->min_ceiling,
                           lab_ceiling_name(spec, s));
                if (st->min_speedup_per_sm > 0)
                    printf(" (%.3gx per SM on fewer than %d SMs; not graded on fewer than %d)",
                           st->min_speedup_per_sm,
                           decide_full_sms(st), decide_min_sms(st));
            } else if (st->given) {
                printf("  (given; timed for reference)");
            } else {
                printf("  (speed reported)");
            }
            if (st->min_cc)
                printf("  (needs compute capability %d.%d%s)", st->min_cc / 10, st->min_cc % 10,
                       st->max_cc == st->min_cc ? " exactly" : "");
            printf("\n");
            if (st->timed_at) {
                char sz[128];
                spec->size_text(lab_timed_size(spec, s), sz, sizeof sz);
                printf("           timed at %s, where its technique pays\n", sz);
            }
            const int *sanitizer = sanitizer_mask(lc, spec);
            const int *technique = technique_mask(lc, spec);
            if (sanitizer && sanitizer[s])
                printf("           compute-sanitizer: required clean\n");
            for (int j = 0; j < lab_stage_techniques(st); j++)
                printf("           technique: %s%s\n", st->technique[j].text,
                       technique && technique[s] ? " (required)" : "");
        }
    }
}

/* Which lab did `make` build last? build/last-lab holds its number. */
static const lab_spec *last_built(const char *root)
{
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/build/last-lab", root);
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char name[32] = "";
    const lab_spec *spec = NULL;
    if (fscanf(f, "%31s", name) == 1)
        spec = lab_find(name);
    fclose(f);
    return spec;
}

/* The library must define every stage function. */
static int check_library(fallback *fb, const lab_spec *spec, const char *lib,
                         const char *make_hint)
{
    for (int s = 0; s < spec->n_stages; s++) {
        char err[512];
        int r = elf_defines_function(lib, spec->stages[s].symbol, err, sizeof err);
        if (r < 0) {
            say(fb, stderr, "grade: %s. Rebuild it with `%s`.\n", err, make_hint);
            return -1;
        }
        if (r == 0) {
            say(fb, stderr,
                "grade: %s has no function %s() (stage %d). It is declared in "
                "labs/%s/%s.h: was it renamed, made static, or not compiled as extern \"C\"? "
                "Rebuild with `%s`.\n",
                lib, spec->stages[s].symbol, s, spec->dir, spec->name, make_hint);
            return -1;
        }
    }
    return 0;
}

/* The runner whose results live_line reads: Check's callback after each
 * stage has no argument of ours. */
static SRunner *live_runner;

/* Folds Check's verdict on one test into the grader's record (timeouts,
 * signals and early exits are only seen by Check). */
static void merge_result(const grade_run *run, int stage, int kind, TestResult *tr)
{
    const lab_spec *spec = run->spec;
    test_record *t = &run->res->t[stage][kind];
    decide_read_back(t, spec->n_sizes, spec->n_stages,
                     kind == TEST_PERF || spec->stages[stage].points_speed == 0);
    char sz[128] = "";
    if (t->size >= 0)
        spec->size_text(t->size, sz, sizeof sz);
    double timeout = runner_timeout(run, stage) * timeout_multiplier();
    decide_after_check(t, tr_rtype(tr), tr_msg(tr), timeout, sz);
}

/* One line of what a stage printed, as text that cannot act on whatever
 * shows it: control bytes (escape sequences that move the cursor, hide or
 * redraw what follows, a carriage return that overwrites the line) and the
 * C1 controls in UTF-8 are written as \xNN, and "##[", which a GitHub
 * Actions runner reads anywhere in a line as a command of its own (setting a
 * step's output, say), as "## [". Other text, UTF-8 included, as it is. */
static void print_stage_line(const char *line)
{
    const unsigned char *p = (const unsigned char *)line;
    for (; *p; p++) {
        if (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) {
            printf("\\x%02x\\x%02x", p[0], p[1]);
            p++;
        } else if ((*p < 0x20 && *p != '\t') || *p == 0x7f) {
            printf("\\x%02x", *p);
        } else if (p[0] == '#' && p[1] == '#' && p[2] == '[') {
            fputs("## [", stdout);
            p += 2;
        } else {
            putchar(*p);
        }
    }
}

/* What the stage printed, under its line: at most OUTPUT_SHOWN bytes. */
#define OUTPUT_SHOWN 4096
static void show_output(const lab_spec *spec, int stage, int kind)
{
    char path[512];
    runner_output_path(path, sizeof path, spec, stage, kind);
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    static char text[OUTPUT_SHOWN + 1];
    size_t got = fread(text, 1, OUTPUT_SHOWN, f);
    fseek(f, 0, SEEK_END);
    long total = ftell(f);
    fclose(f);
    unlink(path);
    if (got == 0)
        return;
    text[got] = '\0';
    printf("      output of stage %d (%s):\n", stage, kind == TEST_CORRECT ? "correctness" : "speed");
    for (char *line = text, *nl; line && *line; line = nl ? nl + 1 : NULL) {
        nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        fputs("      | ", stdout);
        print_stage_line(line);
        putchar('\n');
    }
    if (total > (long)got)
        printf("      [output cut: %ld bytes shown of %ld kept; a stage may print at most %zu bytes]\n",
               (long)got, total, runner_output_cap());
}

static int perf_test_registered(const grade_run *run, int stage)
{
    return run->spec->stages[stage].points_speed > 0 && !run->quick;
}

/* ---- the progress line ----
 * On a terminal, a thread of the parent rewrites one line every quarter of a
 * second with what is being graded (stage, size, phase, seconds so far),
 * read from the results page. Check forks the test processes meanwhile, so
 * the thread uses write() alone (no stdio locks, no allocation) and a mutex
 * of its own that the children never touch. */
static struct {
    pthread_mutex_t lock;
    pthread_t thread;
    int started;
    volatile int stop;
    int shown; /* a progress line is on the screen */
    const grade_run *runs;
    int n_runs;
} progress = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void progress_clear_locked(void)
{
    static const char clear[] = "\r\033[K";
    if (progress.shown) {
        ssize_t w = write(STDOUT_FILENO, clear, sizeof clear - 1);
        (void)w; /* nothing to do about a failed write to a terminal */
    }
    progress.shown = 0;
}

static void *progress_loop(void *arg)
{
    (void)arg;
    int last_run = -1, last_stage = -1, last_kind = -1;
    time_t since = time(NULL);
    while (!progress.stop) {
        struct timespec pause = {0, 250 * 1000 * 1000};
        nanosleep(&pause, NULL);
        char line[400];
        int stage = -1, kind = -1, run = -1;
        for (int r = 0; r < progress.n_runs && run < 0; r++)
            if (report_progress_text(line, sizeof line - 32, progress.runs[r].spec,
                                     progress.runs[r].res, &stage, &kind))
                run = r;
        pthread_mutex_lock(&progress.lock);
        if (run >= 0 && !progress.stop) {
            if (run != last_run || stage != last_stage || kind != last_kind) {
                since = time(NULL);
                last_run = run, last_stage = stage, last_kind = kind;
            }
            size_t len = strlen(line);
            snprintf(line + len, sizeof line - len, " (%d s)\033[K", (int)(time(NULL) - since));
            if (write(STDOUT_FILENO, "\r", 1) == 1 && write(STDOUT_FILENO, line, strlen(line)) > 0)
                progress.shown = 1;
        }
        pthread_mutex_unlock(&progress.lock);
    }
    return NULL;
}

/* Starts the progress line when stdout is a terminal (never in logs, CI or
 * tests) and CUDA_LABS_NO_PROGRESS is not set. */
static void progress_start(const grade_run *runs, int n)
{
    if (!isatty(STDOUT_FILENO) || getenv("CUDA_LABS_NO_PROGRESS"))
        return;
    progress.runs = runs;
    progress.n_runs = n;
    fflush(stdout);
    progress.started = pthread_create(&progress.thread, NULL, progress_loop, NULL) == 0;
}

static void progress_stop(void)
{
    if (!progress.started)
        return;
    progress.stop = 1;
    pthread_join(progress.thread, NULL);
    progress.started = 0;
    progress_clear_locked();
}

/* After each stage (in the parent): merge Check's results for the stage's
 * tests, the last ones it ran, and print the stage's line. */
static void live_line(const grade_run *run, int stage)
{
    pthread_mutex_lock(&progress.lock);
    progress_clear_locked();
    int n = srunner_ntests_run(live_runner);
    TestResult **trs = srunner_results(live_runner);
    int kinds = perf_test_registered(run, stage) ? 2 : 1;
    for (int k = 0; trs && k < kinds && n - kinds + k >= 0; k++)
        merge_result(run, stage, k, trs[n - kinds + k]);
    free(trs);
    report_live_line(stdout, run->spec, run->res, stage);
    char serialised[1024];
    if (buildlog_serialised(run->lib, run->res->t[stage][TEST_CORRECT].kernels, serialised,
                            sizeof serialised) > 0)
        printf("      note: ptxas serialised %s: each waits for the one before, and the stage "
               "runs slower for it. make printed this when it built the library; see handout "
               "7, \"Grading, profiling, questions\".\n",
               serialised);
    for (int k = 0; k < kinds; k++)
        show_output(run->spec, stage, k);
    fflush(stdout);
    pthread_mutex_unlock(&progress.lock);
}

/* Every output file asked for on the command line, from one run's results
 * (graded now, or loaded with --from); returns how many could not be written. */
static int write_outputs(fallback *fb, const grade_options *o, const run_summary *summary,
                         const char *const *lib_names)
{
    int failed = 0;
    if (o->json) {
        FILE *f = fopen(o->json, "w");
        if (!f || report_json_run(f, summary->specs, summary->res, summary->n_labs, summary->dev,
                                  summary->seed, lib_names, summary->elapsed_s,
                                  summary->unguarded) != 0) {
            say(fb, stderr, "grade: cannot write %s: %s\n", o->json, strerror(errno));
            failed++;
        }
        if (f)
            fclose(f);
    }
    fb->gradescope_written = o->gradescope != NULL;
    const struct {
        const char *path;
        int (*write)(FILE *, const run_summary *);
    } files[] = {{o->junit, format_junit},
                 {o->tap, format_tap},
                 {o->gradescope, format_gradescope},
                 {o->html, report_html}};
    for (size_t k = 0; k < sizeof files / sizeof files[0]; k++) {
        if (!files[k].path)
            continue;
        FILE *f = fopen(files[k].path, "w");
        if (!f || files[k].write(f, summary) != 0) {
            say(fb, stderr, "grade: cannot write %s: %s\n", files[k].path, strerror(errno));
            failed++;
        }
        if (f)
            fclose(f);
    }
    for (int l = 0; o->plot && l < summary->n_labs; l++) {
        char path[PATH_MAX];
        mkdir(o->plot, 0755);
        snprintf(path, sizeof path, "%s/lab%d-%s.svg", o->plot, summary->specs[l]->number,
                 summary->specs[l]->name);
        FILE *f = fopen(path, "w");
        if (!f || chart_svg(f, summary->specs[l], &summary->res[l], summary->dev) != 0) {
            say(fb, stderr, "grade: cannot write %s: %s\n", path, strerror(errno));
            failed++;
        } else {
            printf("chart: %s\n", path);
        }
        if (f)
            fclose(f);
    }
    fb->classroom_written = o->classroom;
    if (o->classroom && format_classroom_output(summary) != 0)
        failed++;
    if (o->calibrate) {
        FILE *f = fopen(o->calibrate, "w");
        if (!f || config_write_calibration(f, summary->specs, summary->res, summary->n_labs,
                                           o->fraction, summary->dev) != 0) {
            say(fb, stderr, "grade: cannot write %s: %s\n", o->calibrate, strerror(errno));
            failed++;
        } else {
            printf("\nCalibrated thresholds (%.2f x the measured speedups) written to %s; grade "
                   "with --config %s.\n",
                   o->fraction, o->calibrate, o->calibrate);
        }
        if (f)
            fclose(f);
    }
    return failed;
}

/* --from FILE: a run read back from its JSON, reported again; no GPU. The
 * points and thresholds are the ones recorded (a --config given now still
 * applies on top), and the library names are kept. */
static int replay_from(fallback *fb, lab_configs *lc, const grade_options *o,
                       const grade_config *cfg)
{
    static loaded_lab loaded[OPT_MAX_LABS];
    static lab_results res[OPT_MAX_LABS];
    int n = 0;
    devinfo dev;
    uint64_t seed = 0;
    double elapsed_s = 0;
    char err[512];
    char unguarded_then[1024];
    if (results_load(o->from, loaded, res, OPT_MAX_LABS, &n, &dev, &seed, &elapsed_s,
                     unguarded_then, sizeof unguarded_then, err, sizeof err) != 0) {
        say(fb, stderr, "grade: %s\n", err);
        return EXIT_USAGE;
    }
    const lab_spec *specs[OPT_MAX_LABS];
    const char *libs[OPT_MAX_LABS];
    int got_all = 0, max_all = 0, failed = 0;
    char label[300];
    printf("Results of %s (GPU: %s, seed 0x%llx)\n", o->from,
           devinfo_label(&dev, "", label, sizeof label),
           (unsigned long long)seed);
    for (int i = 0; i < n; i++) {
        specs[i] = with_config(lc, &loaded[i].spec, cfg);
        libs[i] = loaded[i].library;
        printf("\nlab %d (%s)", specs[i]->number, specs[i]->name);
        report_table(stdout, specs[i], &res[i]);
        report_failures(stdout, specs[i], &res[i], seed, 0, NULL);
        int g, m;
        report_score(specs[i], &res[i], &g, &m);
        got_all += g;
        max_all += m;
        failed += report_failed_tests(specs[i], &res[i]);
    }
    run_summary summary = {specs, res, n, &dev, seed, elapsed_s, NULL, unguarded_then};
    failed += write_outputs(fb, o, &summary, libs);
    printf("Score: %d/%d\n", got_all, max_all);
    if (o->autolab) {
        format_autolab(stdout, &summary);
        fb->autolab_written = 1;
    }
    return failed ? EXIT_FAILED : EXIT_ALL_PASSED;
}

/* Remembers the labs asked for and the points they are worth (the stages
 * graded, speed tests left out with --quick, one stage with --stage);
 * configured: the specs went through with_config, so its graded mask holds. */
static void remember_asked(fallback *fb, const lab_configs *lc, const lab_spec *const *specs,
                           int n, const grade_options *o, int configured)
{
    size_t used = 0;
    fb->asked_names[0] = '\0';
    fb->asked_max = 0;
    for (int i = 0; i < n; i++) {
        const lab_spec *spec = specs[i];
        if (used < sizeof fb->asked_names)
            used += (size_t)snprintf(fb->asked_names + used, sizeof fb->asked_names - used,
                                     "%slab%d", i ? ", " : "", spec->number);
        const int *graded = configured ? graded_mask(lc, spec) : NULL;
        for (int s = 0; gradable(spec) && s < spec->n_stages; s++)
            if ((!o->stage_mask || (o->stage_mask & (1u << s))) && (!graded || graded[s]))
                fb->asked_max += spec->stages[s].points_correct +
                             (o->quick ? 0 : spec->stages[s].points_speed);
    }
}

/* Is size graded in this run by some stage? Not when no stage asked for is
 * graded here (graded: the config's and this GPU's, NULL: all; a lab whose
 * stages this GPU cannot run needs no inputs), nor when --quick leaves it
 * out for every one (the runner skips the same sizes). */
static int size_graded(const lab_spec *spec, int size, const grade_options *o, const int *graded)
{
    for (int s = 0; s < spec->n_stages; s++)
        if ((!o->stage_mask || (o->stage_mask & (1u << s))) && (!graded || graded[s]) &&
            (!o->quick || spec->work(s, size) <= RUNNER_QUICK_WORK))
            return 1;
    return 0;
}

/* Is some stage of spec timed at size (two input sets made there)? */
static int size_timed(const lab_spec *spec, int size)
{
    for (int s = 0; s < spec->n_stages; s++)
        if (lab_timed_size(spec, s) == size)
            return 1;
    return 0;
}

/* ---- one run of ./grade, phase by phase ----
 * Each phase returns GO_ON, or the exit status that ends the run. */
enum { GO_ON = -1 };

typedef struct session {
    fallback fb;
    lab_configs lc;
    grade_options o;
    grade_config config;
    const grade_config *cfg; /* &config with --config, else NULL: the built-in rules */
    char root[PATH_MAX];
    int n; /* the labs graded, in order: */
    const lab_spec *specs[OPT_MAX_LABS];
    char libs[OPT_MAX_LABS][PATH_MAX + 64];
    const char *lib_names[OPT_MAX_LABS];
    const char *loads[OPT_MAX_LABS]; /* each library's sealed copy (library_snapshot) */
    unsigned gated[OPT_MAX_LABS]; /* stages this GPU cannot grade */
    unsigned scaled[OPT_MAX_LABS], scaled_out[OPT_MAX_LABS]; /* scale_by_sms */
    int n_gated;                  /* labs with such stages */
    devinfo dev;
    char dev_line[512];
    int sandboxed;
    int files;               /* how far the children's Landlock rules go (FILES_*, probe.h) */
    int files_refused;       /* CUDA did not start under them, but did without */
    char files_why[256];
    char unguarded[1024];    /* what of the sandbox is off in this run, for --json; "" none */
    lab_results *res; /* the shared results page */
    grade_run runs[OPT_MAX_LABS];
    sass_read sass[OPT_MAX_LABS];
    SRunner *sr;
    char out_dir[32];
    struct timespec started;
    double preparing; /* seconds making and releasing inputs: not in the elapsed time */
} session;

/* What needs neither a lab nor a GPU: --help, --analyze, --stability, the
 * config, --list, --from, --gpu-info. */
static int without_labs(session *g)
{
    grade_options *o = &g->o;
    char err[512];
    g->fb.gradescope_path = o->gradescope;
    g->fb.autolab_wanted = o->autolab;
    g->fb.classroom_wanted = o->classroom;
    const lab_spec *named[OPT_MAX_LABS];
    int k = 0;
    for (int i = 0; i < o->n_labs; i++)
        if (lab_find(o->labs[i]))
            named[k++] = lab_find(o->labs[i]);
    remember_asked(&g->fb, &g->lc, named, k, o, 0);
    if (o->help) {
        options_usage(stdout);
        return EXIT_ALL_PASSED;
    }
    if (o->analyze) {
        if (analytics_report(o->analyze, stdout, err, sizeof err) != 0) {
            say(&g->fb, stderr, "grade: %s\n", err);
            return EXIT_USAGE;
        }
        return EXIT_ALL_PASSED;
    }
    if (o->stability) {
        int rc = analytics_stability(o->stability, stdout, err, sizeof err);
        if (rc < 0)
            say(&g->fb, stderr, "grade: %s\n", err);
        return rc < 0 ? EXIT_USAGE : rc ? EXIT_FAILED : EXIT_ALL_PASSED;
    }
    if (o->config) {
        FILE *f = fopen(o->config, "r");
        if (!f) {
            say(&g->fb, stderr, "grade: cannot read the config %s: %s\n", o->config,
                strerror(errno));
            return EXIT_USAGE;
        }
        int rc = config_parse(f, o->config, &g->config, err, sizeof err);
        fclose(f);
        if (rc != 0) {
            say(&g->fb, stderr, "grade: %s\n", err);
            return EXIT_USAGE;
        }
    }
    g->cfg = o->config ? &g->config : NULL;
    if (o->list) {
        list_labs(&g->lc, g->cfg);
        return EXIT_ALL_PASSED;
    }
    if (o->from)
        return replay_from(&g->fb, &g->lc, o, g->cfg);
    find_root(g->root, sizeof g->root);
    if (o->gpu_info) {
        devinfo d;
        int found = probe_gpu_sms(&d, o->sms, err, sizeof err);
        if (found == PROBE_SMS_REFUSED) {
            fprintf(stderr, "grade: %s\n", err);
            return EXIT_USAGE;
        }
        if (found != 0) {
            printf("no usable GPU: %s\n", err);
            return EXIT_NO_GPU;
        }
        char line[512];
        devinfo_format(&d, line, sizeof line);
        printf("GPU: %s\n", line);
        return EXIT_ALL_PASSED;
    }
    return GO_ON;
}

/* Which labs? Those named, every one built (all), or the one built last;
 * each with the instructor's config applied. */
static int choose_labs(session *g)
{
    const grade_options *o = &g->o;
    int n = 0;
    if (o->n_labs == 0) {
        const lab_spec *spec = last_built(g->root);
        if (!spec) {
            say(&g->fb, stderr, "grade: no lab has been built yet. Build one first, for example:\n"
                                "    make lab1 && ./grade\n");
            return EXIT_USAGE;
        }
        g->specs[n++] = spec;
    }
    for (int i = 0; i < o->n_labs; i++) {
        if (strcmp(o->labs[i], "all") == 0) {
            for (int k = 0; k < lab_count && n < OPT_MAX_LABS; k++) {
                char path[PATH_MAX + 64];
                lib_path(path, sizeof path, g->root, lab_table[k], o->solutions);
                if (lab_table[k]->available && file_exists(path))
                    g->specs[n++] = lab_table[k];
            }
            if (n == 0) {
                say(&g->fb, stderr, "grade: no lab is built yet: run `make %s` first.\n",
                    o->solutions ? "solutions" : "lab1");
                return EXIT_USAGE;
            }
            continue;
        }
        const lab_spec *spec = lab_find(o->labs[i]);
        if (!spec) {
            say(&g->fb, stderr, "grade: unknown lab '%s'. The labs are lab1 .. lab%d "
                                "(./grade --list shows them).\n",
                o->labs[i], lab_count);
            return EXIT_USAGE;
        }
        if (!gradable(spec)) {
            say(&g->fb, stderr, "grade: lab %d (%s) is not available yet.\n", spec->number,
                spec->name);
            return EXIT_USAGE;
        }
        g->specs[n++] = spec;
    }
    if (n == 1 && !gradable(g->specs[0])) {
        say(&g->fb, stderr, "grade: lab %d (%s) is not available yet.\n", g->specs[0]->number,
            g->specs[0]->name);
        return EXIT_USAGE;
    }
    g->n = n;
    for (int i = 0; i < n; i++)
        g->specs[i] = with_config(&g->lc, g->specs[i], g->cfg);
    remember_asked(&g->fb, &g->lc, g->specs, n, o, 1);
    char *zeros = g->fb.autolab_zeros;
    const size_t size = sizeof g->fb.autolab_zeros;
    size_t used = (size_t)snprintf(zeros, size, "{\"scores\": {");
    for (int i = 0; i < n && used < size; i++)
        used += (size_t)snprintf(zeros + used, size - used, "%s\"lab%d\": 0", i ? ", " : "",
                                 g->specs[i]->number);
    if (used < size)
        snprintf(zeros + used, size - used, "}}");
    return GO_ON;
}

/* Lab i's library: built, defines every stage, and passes the contract check. */
static int check_lab_library(session *g, int i)
{
    const grade_options *o = &g->o;
    const lab_spec *spec = g->specs[i];
    char *lib = g->libs[i];
    const size_t lib_size = sizeof g->libs[i];
    char hint[64];
    if (o->solutions)
        snprintf(hint, sizeof hint, "make solutions");
    else
        snprintf(hint, sizeof hint, "make lab%d", spec->number);
    if (o->lib) {
        if (!realpath(o->lib, lib)) {
            say(&g->fb, stderr, "grade: cannot find the library %s: %s\n", o->lib,
                strerror(errno));
            return EXIT_USAGE;
        }
    } else {
        lib_path(lib, lib_size, g->root, spec, o->solutions);
        if (!file_exists(lib)) {
            say(&g->fb, stderr, "grade: %s is not built yet: run `%s` first.\n", lib, hint);
            return EXIT_USAGE;
        }
    }
    g->lib_names[i] = lib;
    /* Before any child runs: what every child will load, and what the checks
     * below and the machine-code reading read, whatever student code does to
     * the files later (an earlier lab's children run before this lab's). */
    g->loads[i] = library_snapshot(lib);
    ceiling_snapshot(spec->number);
    if (o->stage_mask >> spec->n_stages) {
        int missing = spec->n_stages;
        while (!(o->stage_mask & (1u << missing)))
            missing++;
        say(&g->fb, stderr, "grade: lab %d has stages 0 to %d; there is no stage %d.\n",
            spec->number, spec->n_stages - 1, missing);
        return EXIT_USAGE;
    }
    if (check_library(&g->fb, spec, lib, hint) != 0)
        return EXIT_FAILED;
    char why[1024];
    int refused = policy_check(g->loads[i], spec->forbidden_calls, why, sizeof why);
    if (refused == POLICY_SETUP) {
        say(&g->fb, stdout, "grade: cannot check %s: %s.\nNothing was graded.\n", lib, why);
        return EXIT_FAILED;
    }
    if (refused != 0) {
        say(&g->fb, stdout, "grade: %s is REJECTED: %s\nNothing was graded.\n", lib, why);
        return EXIT_FAILED;
    }
    return GO_ON;
}

/* Is there a GPU (asked in a child), and which stages can it grade? Then the
 * seed. */
static int probe_device(session *g)
{
    grade_options *o = &g->o;
    char err[512];
    g->files = !o->under_sanitizer && !sandbox_disabled() ? FILES_STRICT : FILES_OFF;
    int files_wanted = g->files;
    int found = probe_gpu_files(&g->dev, o->sms, &g->files, g->files_why, sizeof g->files_why,
                                err, sizeof err);
    if (files_wanted && !g->files && found == 0)
        g->files_refused = 1;
    if (found == PROBE_SMS_REFUSED) {
        say(&g->fb, stderr, "grade: %s\nNothing was graded.\n", err);
        return EXIT_USAGE;
    }
    if (found != 0) {
        say(&g->fb, stdout, "grade: no usable CUDA GPU: %s.\n"
                            "Nothing was graded. The grader needs an NVIDIA GPU (compute "
                            "capability 7.5 or newer) and its driver; `nvidia-smi` should list "
                            "it.\n",
            err);
        return EXIT_NO_GPU;
    }
    for (int i = 0; i < g->n; i++) {
        g->gated[i] = gate_by_capability(&g->lc, g->specs[i], &g->dev);
        if (o->stage_mask)
            g->gated[i] &= o->stage_mask;
        g->n_gated += g->gated[i] != 0;
        g->scaled[i] = scale_by_sms(&g->lc, g->specs[i], g->dev.sms_used ? g->dev.sms_used : g->dev.sms,
                                    &g->scaled_out[i]);
        if (o->stage_mask)
            g->scaled[i] &= o->stage_mask;
    }
    if (g->n_gated) /* what a payload written without a grade may count: not those stages */
        remember_asked(&g->fb, &g->lc, g->specs, g->n, o, 1);
    if (!o->seed_given && rng_os_seed(&o->seed) != 0) {
        say(&g->fb, stderr, "grade: cannot read a random seed from the system: %s\n",
            strerror(errno));
        return EXIT_FAILED;
    }
    devinfo_format(&g->dev, g->dev_line, sizeof g->dev_line);
    return GO_ON;
}

/* --profile-once and --sanitize: the stages run, not graded. */
static int run_ungraded(session *g)
{
    const grade_options *o = &g->o;
    if (o->profile_once) {
        char msg[VERDICT_MSG + 64];
        int rc = runner_run_once(g->specs[0], g->libs[0], o->stage, o->seed, msg, sizeof msg);
        printf("%s\n", msg);
        return rc == 0 ? EXIT_ALL_PASSED : EXIT_FAILED;
    }
    if (o->sanitize) {
        printf("CUDA Labs grader, --sanitize\n  GPU:  %s\n  seed: 0x%llx\n", g->dev_line,
               (unsigned long long)o->seed);
        int worst = EXIT_ALL_PASSED;
        for (int i = 0; i < g->n; i++) {
            int rc = sanitize_lab(g->specs[i], g->libs[i], o->stage_mask, o->seed);
            if (rc != 0)
                worst = rc == SANITIZE_NO_TOOL ? EXIT_USAGE : EXIT_FAILED;
        }
        return worst;
    }
    return GO_ON;
}

/* The run's header, and the grading children's seccomp filter and Landlock
 * rules (grader/sandbox.h): said only when they are off. Under compute-sanitizer it
 * is never installed. What of them is off is also kept for --json
 * ("unguarded"), where grader/batch and --analyze read it: one of the cases
 * below at most, since each later one needs the filter on. */
static void print_header(session *g)
{
    const grade_options *o = &g->o;
    printf("CUDA Labs grader\n  GPU:  %s\n  seed: 0x%llx (replay with --seed 0x%llx)\n",
           g->dev_line, (unsigned long long)o->seed, (unsigned long long)o->seed);
    g->sandboxed = !o->under_sanitizer && !sandbox_disabled();
    const size_t un = sizeof g->unguarded;
    if (o->under_sanitizer)
        snprintf(g->unguarded, un, "graded under compute-sanitizer: no seccomp filter, no rules "
                                   "on files");
    if (!o->under_sanitizer && !g->sandboxed) {
        printf("  sandbox: OFF (CUDA_LABS_NO_SANDBOX is set): a submission could tamper with "
               "the grader; for debugging only, not a grade\n");
        snprintf(g->unguarded, un, "sandbox off (CUDA_LABS_NO_SANDBOX is set): no seccomp "
                                   "filter, no rules on files");
    }
    char sandbox_err[200];
    if (g->sandboxed && sandbox_probe(sandbox_err, sizeof sandbox_err) != 0) {
        printf("  sandbox: not available on this system (%s): grading goes on without it\n",
               sandbox_err);
        snprintf(g->unguarded, un, "sandbox not available (%s): no seccomp filter, no rules on "
                                   "files", sandbox_err);
        g->sandboxed = 0;
    }
    if (g->sandboxed) /* the children's memory, and this process's, closed to each other */
        prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    if (g->sandboxed && g->files_refused) {
        printf("  files: NOT guarded: CUDA does not start on this machine under the rules that "
               "keep a submission from writing files (%s), so they are off for this run; "
               "handouts/instructors.md, \"Write files where Landlock is not in force\"\n",
               g->files_why);
        snprintf(g->unguarded, un, "files not guarded: CUDA does not start under the rules (%s)",
                 g->files_why);
    } else if (g->sandboxed && g->files == FILES_WITH_SHM) {
        printf("  files: /dev/shm stays writable: CUDA does not start on this machine without it "
               "(%s), so a submission could fill it for the processes after it; "
               "handouts/instructors.md, \"Write files where Landlock is not in force\"\n",
               g->files_why);
        snprintf(g->unguarded, un, "/dev/shm writable: CUDA does not start without it (%s)",
                 g->files_why);
    } else if (g->sandboxed && sandbox_files_abi() == 0) {
        printf("  files: this kernel has no Landlock, so a submission could still write files "
               "the grader's user may write (the seccomp filter is on; handouts/instructors.md, "
               "\"Write files where Landlock is not in force\")\n");
        snprintf(g->unguarded, un, "files not guarded: this kernel has no Landlock");
    }
    for (int i = 0; i < g->n; i++)
        if (lab_has_given(g->specs[i]) && !given_built(g->specs[i]->number))
            printf("  lab %d: the course's copy of its given stages (build/ceilings/lab%d-given.so), "
                   "which the grader runs in place of yours, is not built: run make lab%d (its "
                   "tests stop with SETUP ERROR until then)\n",
                   g->specs[i]->number, g->specs[i]->number, g->specs[i]->number);
    const int sms = g->dev.sms_used ? g->dev.sms_used : g->dev.sms;
    for (int i = 0; i < g->n; i++)
        if (g->scaled[i])
            say_scaled(g->specs[i], lab_table[lab_position(g->specs[i]->number)], g->scaled[i],
                       g->scaled_out[i], sms);
}

/* The results page, and one Check suite per lab in one runner. */
static int build_suites(session *g)
{
    const grade_options *o = &g->o;
    g->res = results_map(g->n);
    if (!g->res) {
        say(&g->fb, stderr, "grade: cannot map the results page: %s\n", strerror(errno));
        return EXIT_FAILED;
    }
    for (int i = 0; i < g->n; i++)
        not_available(g->specs[i], &g->res[i], g->gated[i], &g->dev);
    for (int i = 0; i < g->n; i++) {
        grade_run *run = &g->runs[i];
        run->spec = g->specs[i];
        run->res = &g->res[i];
        run->res->lab = g->specs[i]->number;
        snprintf(run->lib, sizeof run->lib, "%s", g->libs[i]);
        snprintf(run->load, sizeof run->load, "%s", g->loads[i]);
        run->seed = o->seed;
        run->reps = o->reps;
        run->stage_mask = o->stage_mask;
        run->graded = graded_mask(&g->lc, g->specs[i]);
        run->quick = o->quick;
        run->plain_buffers = o->under_sanitizer;
        run->sandbox = g->sandboxed;
        run->witness = witness_wanted();
        run->files = g->sandboxed ? g->files : FILES_OFF;
        run->sms = o->sms;
        run->gpu_sms = g->dev.sms;
        Suite *s = runner_suite(run, live_line);
        if (!g->sr)
            g->sr = live_runner = srunner_create(s);
        else
            srunner_add_suite(g->sr, s);
    }
    srunner_set_fork_status(g->sr, CK_FORK);
    own_check_settings();
    snprintf(g->out_dir, sizeof g->out_dir, "/tmp/cudalabs-output-XXXXXX");
    if (mkdtemp(g->out_dir))
        runner_set_output_dir(g->out_dir);
    for (int i = 0; i < g->n; i++) {
        printf("\nlab %d (%s): %s\n", g->specs[i]->number, g->specs[i]->name, g->libs[i]);
        fflush(stdout);
    }
    return GO_ON;
}

/* Lab by lab: its inputs and expected outputs are made here (no CUDA) just
 * before its tests, shared by its children through fork, and released right
 * after, so that no child is forked from (and no moment holds) the data of
 * every lab. Meanwhile the library's machine code is read for the technique
 * check; the pipe stays open until the lab's children have run. One runner
 * holds every suite and adds up the tests of each srunner_run. */
static int run_suites(session *g)
{
    const grade_options *o = &g->o;
    clock_gettime(CLOCK_MONOTONIC, &g->started);
    progress_start(g->runs, g->n);
    for (int i = 0; i < g->n; i++) {
        const lab_spec *spec = g->specs[i];
        double t0 = tm_now();
        sass_begin(&g->sass[i], spec, g->loads[i], g->libs[i],
                   10 * g->dev.cc_major + g->dev.cc_minor);
        tm_start(TM_INPUTS);
        for (int size = 0; spec->pregenerate && size < spec->n_sizes; size++)
            if (size_graded(spec, size, o, graded_mask(&g->lc, spec)) &&
                spec->pregenerate(size, runner_size_seed(o->seed, 0, size),
                                  size_timed(spec, size) ? 2 : 1) != 0) {
                progress_stop();
                say(&g->fb, stderr, "grade: out of host memory for the inputs of lab %d\n",
                    spec->number);
                return EXIT_FAILED;
            }
        results_open(); /* the parent's: writable, kept so */
        tm_totals(g->res[i].parent_tm);
        g->preparing += tm_now() - t0;
        runner_start_clock();
        srunner_run(g->sr, g->runs[i].suite, NULL, CK_SILENT);
        t0 = tm_now();
        sass_end(&g->sass[i]);
        for (int size = 0; spec->release && size < spec->n_sizes; size++)
            spec->release(size);
        g->preparing += tm_now() - t0;
    }
    progress_stop();
    return GO_ON;
}

/* After the tests: the checks that can still demote a pass (faults settled,
 * compute-sanitizer, the technique), then lab i's scoreboard. Adds its points
 * to *got and *max; returns its failed tests. */
static int check_and_report(session *g, int i, int *got, int *max)
{
    const grade_options *o = &g->o;
    const lab_spec *spec = g->specs[i];
    lab_results *res = &g->res[i];
    char *techniques = NULL;
    double t0 = tm_now();
    runner_settle_faults(spec, res);
    char unwitnessed[200];
    int n_unwitnessed = witness_settle(spec, res, unwitnessed, sizeof unwitnessed);
    decide_base_drift(spec, res);
    sanitizer_check(spec, res, g->libs[i], sanitizer_mask(&g->lc, spec), o->seed);
    technique_check(spec, res, &g->sass[i], technique_mask(&g->lc, spec), &techniques);
    res->after_wall = tm_now() - t0;
    printf("\nlab %d (%s)", spec->number, spec->name);
    report_table(stdout, spec, res);
    report_failures(stdout, spec, res, o->seed, o->solutions, o->lib);
    if (techniques)
        fputs(techniques, stdout);
    free(techniques);
    if (n_unwitnessed > 0)
        printf("  %d speed test%s timed without the grader's timing witness (%s): as before, by "
               "the test's own process alone.\n",
               n_unwitnessed, n_unwitnessed > 1 ? "s were" : " was", unwitnessed);
    if (o->timings) {
        report_timings(stdout, spec, res);
        witness_report(stdout, spec, res);
    }
    int lab_got, lab_max;
    report_score(spec, res, &lab_got, &lab_max);
    *got += lab_got;
    *max += lab_max;
    return report_failed_tests(spec, res);
}

/* Every lab's scoreboard, the output files, the summary line (from the same
 * final records, so it agrees with the scoreboards) and the score. */
static int report_run(session *g)
{
    const grade_options *o = &g->o;
    int n_run = srunner_ntests_run(g->sr);
    rmdir(g->out_dir);
    int got_all = 0, max_all = 0, failed = 0;
    for (int i = 0; i < g->n; i++)
        failed += check_and_report(g, i, &got_all, &max_all);
    struct timespec ended;
    clock_gettime(CLOCK_MONOTONIC, &ended);
    double elapsed_s = (double)(ended.tv_sec - g->started.tv_sec) +
                       1e-9 * (double)(ended.tv_nsec - g->started.tv_nsec) - g->preparing;
    run_summary summary = {g->specs, g->res, g->n, &g->dev, o->seed, elapsed_s, g->root,
                           g->unguarded};
    failed += write_outputs(&g->fb, o, &summary, g->lib_names);
    printf("\n");
    if (o->quick)
        printf("--quick: small sizes only and nothing timed; this is not a grade.\n");
    decide_tally tally;
    decide_summary(g->res, g->n, &tally);
    char line[128];
    decide_summary_line(&tally, line, sizeof line);
    printf("%s\n", line);
    printf("Score: %d/%d\n", got_all, max_all);
    if (o->autolab) {
        format_autolab(stdout, &summary);
        g->fb.autolab_written = 1;
    }
    srunner_free(g->sr);
    results_unmap(g->res, g->n);
    if (n_run == 0 && g->n_gated) {
        say(&g->fb, stdout, "grade: this GPU cannot run the stages asked for (see NOT AVAILABLE "
                            "above), so nothing was graded.\n");
        return EXIT_NO_GPU;
    }
    if (n_run == 0) {
        say(&g->fb, stdout, "grade: no test ran, so nothing was graded.\n");
        return EXIT_FAILED;
    }
    return failed == 0 && tally.failures + tally.errors == 0 ? EXIT_ALL_PASSED : EXIT_FAILED;
}

static int grade_main(session *g, int argc, char **argv)
{
    char err[512];
    if (options_parse(argc, argv, &g->o, err, sizeof err) != 0) {
        say(&g->fb, stderr, "grade: %s\n", err);
        return EXIT_USAGE;
    }
    int rc = without_labs(g);
    if (rc == GO_ON)
        rc = choose_labs(g);
    for (int i = 0; rc == GO_ON && i < g->n; i++)
        rc = check_lab_library(g, i);
    if (rc == GO_ON)
        rc = probe_device(g);
    if (rc == GO_ON)
        rc = run_ungraded(g);
    if (rc != GO_ON)
        return rc;
    print_header(g);
    rc = build_suites(g);
    if (rc == GO_ON)
        rc = run_suites(g);
    return rc == GO_ON ? report_run(g) : rc;
}

/* Descriptors the invoker left open (a shell's 9>>file, a CI runner's or a
 * test harness's) would reach every grading child, and Landlock does not
 * cover a file opened before its rules: a library could write through them
 * (a review, 2026-12-03). The grader needs none of them: it starts with 0, 1
 * and 2 only. Not under a CUDA tool, whose library in this process and in
 * the grading children talks to the tool through descriptors it inherited
 * (on the H200, compute-sanitizer's runs all failed without them): the run
 * that --sanitize starts (--under-sanitizer), make profile's
 * (--profile-once), or any run with a CUDA injection library set; there the
 * seccomp filter and the rules on files are off as well. */
static int under_a_cuda_tool(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--under-sanitizer") == 0 || strcmp(argv[i], "--profile-once") == 0)
            return 1;
    const char *injection = getenv("CUDA_INJECTION64_PATH");
    return injection && *injection;
}

static void close_inherited(void)
{
#ifdef SYS_close_range
    if (syscall(SYS_close_range, 3u, ~0u, 0u) == 0)
        return;
#endif
    long max = sysconf(_SC_OPEN_MAX);
    for (int fd = 3; fd < (max > 0 && max < 65536 ? max : 65536); fd++)
        close(fd);
}

int main(int argc, char **argv)
{
    static session g; /* large: not on the stack */
    if (!under_a_cuda_tool(argc, argv))
        close_inherited();
    snprintf(g.fb.autolab_zeros, sizeof g.fb.autolab_zeros, "{\"scores\": {}}");
    int rc = grade_main(&g, argc, argv);
    const fallback *fb = &g.fb;
    if (fb->gradescope_path && !fb->gradescope_written)
        format_gradescope_fallback(fb->gradescope_path, rc, fb->said);
    if (fb->classroom_wanted && !fb->classroom_written) /* the reporter needs a payload, always */
        format_classroom_fallback(rc, fb->said, fb->asked_names[0] ? fb->asked_names : "grading",
                                  fb->asked_max);
    if (fb->autolab_wanted && !fb->autolab_written) /* Autolab reads the last line, always */
        printf("%s\n", fb->autolab_zeros);
    return rc;
}
