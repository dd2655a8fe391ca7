/* runner.c: the graded tests. Everything below test bodies runs in a forked
 * child (Check's fork mode); the parent only builds the suite. */
#define _GNU_SOURCE
#include "proc.h"
#include "runner.h"

#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <unistd.h>

#include "../common/devinfo.h"
#include "../common/rng.h"
#include "../common/stats.h"
#include "../common/timing.h"
#include "ceiling.h"
#include "ceilings/ceilings.h"
#include "decide.h"
#include "gbuf.h"
#include "green.h"
#include "launch_trace.h"
#include "options.h"
#include "policy.h"
#include "probe.h"
#include "sandbox.h"
#include "timings.h"
#include "trace.h"
#include "labs/lab_util.h"
#include "witness.h"

#define MAX_RUNS OPT_MAX_LABS
#define WARMUP_CALLS 2
#define MAX_TIMED (1 + LAB_MAX_BASES + 1) /* the stage, its bases, the ceiling */

#ifdef CUDA_LABS_COVERAGE
void __gcov_dump(void); /* from libgcov, linked into coverage builds only */
#endif

/* What lab status values mean; the lab headers define the same numbers. */
enum { STATUS_OK = 0, STATUS_TODO = 1, STATUS_ERROR = 2 };

static grade_run *runs[MAX_RUNS];
static int n_runs;

/* Parent side: the live line after each stage. Unchecked fixtures run in the
 * parent, once per TCase, in order; this queue says which stage just ended. */
static void (*after_stage_fn)(const grade_run *run, int stage);
static struct {
    int run, stage;
} tcase_order[MAX_RUNS * LAB_MAX_STAGES];
static int tcase_count, tcase_done;
static double last_tcase_end; /* tm_now() when the last TCase ended, or the run began */

void runner_start_clock(void)
{
    last_tcase_end = tm_now();
}

static void after_tcase(void)
{
    if (tcase_done < tcase_count) {
        int k = tcase_done++;
        double now = tm_now();
        lab_results *res = runs[tcase_order[k].run]->res;
        res->stage_wall[tcase_order[k].stage] = now - last_tcase_end;
        res->wall += now - last_tcase_end;
        last_tcase_end = now;
        if (after_stage_fn)
            after_stage_fn(runs[tcase_order[k].run], tcase_order[k].stage);
    }
}

uint64_t runner_size_seed(uint64_t seed, int stage, int size)
{
    (void)stage; /* every stage sees the same inputs at a size: easier to compare */
    return rng_derive(seed, 1000u + (uint64_t)size);
}

/* ---- writing to the results page ---- */

static void rec_progress(test_record *rec, int size, int phase)
{
    results_open();
    rec->size = size;
    rec->phase = phase;
    results_close();
}

/* Ends the test: records the verdict, then either leaves with the pass code
 * or fails the Check test with the message. Never returns. */
/* Set in the child once the lab library is about to be loaded: code of the
 * submission may have run from then on (its constructors first). */
static int library_loaded;

__attribute__((noreturn, format(printf, 3, 4))) static void finish(test_record *rec, verdict v,
                                                                   const char *fmt, ...)
{
    char msg[VERDICT_MSG];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    tm_enter(TM_OTHER);
    results_open();
    rec->v = v;
    rec->after_library = v == V_SETUP_ERROR && library_loaded;
    snprintf(rec->msg, sizeof rec->msg, "%s", msg);
    tm_totals(rec->tm);
    rec->state = STATE_FINISHED;
    results_close();
    fflush(NULL);
#ifdef CUDA_LABS_COVERAGE
    __gcov_dump(); /* _exit() skips the dump a coverage build does at exit */
#endif
    if (v == V_PASS)
        _exit(GRADE_PASS_EXIT);
    ck_abort_msg("%s: %s", verdict_name(v), msg);
    _exit(1); /* not reached */
}

static void finish_outcome(test_record *rec, const check_outcome *o)
{
    finish(rec, o->v, "%s", o->msg);
}

/* ---- the child's environment ---- */

typedef struct child_env {
    void *lib;
    void *given; /* the course's copy of the given stages (given_open). In grading, never
                  * NULL for a lab that has given stages (a missing copy is a SETUP ERROR
                  * before the library loads); NULL for one that has none
                  * (--profile-once runs the student's copy, with no child_env) */
    cudaStream_t stream;
    gpu_timer timer;
    l2_flusher flush;
    devinfo dev;
    rng rng;
    rng patch_rng; /* the positions and values of the timed calls' patches */
    int audit_ready; /* CUPTI recorded once before the lab library was loaded */
    devcheck_mark_fn *mark; /* the grader's marker kernel (devcheck.so) */
    witness *witness; /* a speed test's timing witness (witness.h), or NULL */
    int unwitnessed;  /* 1: the next calls are the grader's own, checked by this process
                       * against inputs it loaded (the call after the timing loop) */
} child_env;

static char output_dir[256];

static int audit_start(child_env *env, char *why, size_t n);

void runner_set_output_dir(const char *dir)
{
    snprintf(output_dir, sizeof output_dir, "%s", dir ? dir : "");
}

void runner_output_path(char *buf, size_t n, const lab_spec *spec, int stage, int kind)
{
    snprintf(buf, n, "%s/lab%d.s%d.%s.out", output_dir, spec->number, stage,
             kind == TEST_CORRECT ? "correct" : "speed");
}

size_t runner_output_cap(void)
{
    size_t results = results_region_size();
    return results > RUNNER_OUTPUT_CAP ? results : RUNNER_OUTPUT_CAP;
}

/* Student code may print, but only into this test's own file, and no more
 * than runner_output_cap() bytes: past that, writes fail with EFBIG (SIGXFSZ
 * is ignored) and the stage goes on. No core files either. */
static void limit_child(const lab_spec *spec, int stage, int kind)
{
    struct rlimit core = {0, 0};
    setrlimit(RLIMIT_CORE, &core);
    if (output_dir[0]) {
        char path[512];
        runner_output_path(path, sizeof path, spec, stage, kind);
        fflush(NULL);
        int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0600);
        if (fd >= 0) {
            dup2(fd, STDOUT_FILENO);
            dup2(fd, STDERR_FILENO);
            close(fd);
        }
    }
    /* No input: a terminal inherited as stdin would let the library push
     * keystrokes into the shell that started the grader (the filter refuses
     * TIOCSTI too). */
    int null = open("/dev/null", O_RDONLY);
    if (null >= 0) {
        dup2(null, STDIN_FILENO);
        if (null != STDIN_FILENO)
            close(null);
    }
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit fsize = {runner_output_cap(), runner_output_cap()};
    setrlimit(RLIMIT_FSIZE, &fsize);
    /* A second guard behind the symbol check (which refuses fork, clone and
     * thread creation by name): a library that reaches them anyway cannot
     * flood the machine. Where /proc is missing, no limit. */
    proc_limit_threads(RUNNER_THREAD_HEADROOM);
}

#define MAX_PARENT_FDS 16
static int parent_fds[MAX_PARENT_FDS], n_parent_fds;

void runner_close_in_children(int fd)
{
    if (fd >= 0 && n_parent_fds < MAX_PARENT_FDS)
        parent_fds[n_parent_fds++] = fd;
}

void runner_close_in_children_end(int fd)
{
    for (int i = 0; fd >= 0 && i < n_parent_fds; i++)
        if (parent_fds[i] == fd) {
            parent_fds[i] = parent_fds[--n_parent_fds];
            return;
        }
}

/* The record of this child's test, for the SIGSYS handler. */
static test_record *sandboxed_rec;

/* The sandbox refused a call of the lab library (sandbox.h): the test's
 * verdict, then the child ends (the handler exits). */
static void on_rejected(const char *what, const char *syscall_name)
{
    test_record *rec = sandboxed_rec;
    if (!rec)
        return;
    rec->v = V_REJECTED;
    snprintf(rec->msg, sizeof rec->msg,
             "it tried to %s (syscall %s). A stage runs inside the grader's process and may "
             "only launch its work on the GPU; the grader refuses anything that could change "
             "how it grades (its own memory, its results, other processes).",
             what, syscall_name);
    rec->state = STATE_FINISHED;
    results_close();
#ifdef CUDA_LABS_COVERAGE
    __gcov_dump();
#endif
}

/* An address in the course's copy of the given stages (given_open), once
 * loaded: its image is guarded like the grader's own. */
static const void *given_image;

/* This child's Landlock rules on files are set (child_files). */
static int files_bound;

int runner_sandbox_child(test_record *rec, char *err, size_t errn)
{
    sandbox_spec sb;
    void *page;
    size_t bytes;
    if (sandbox_prepare(&sb) != 0) {
        snprintf(err, errn, "the grader's image was not found");
        return -1;
    }
    if (results_sealed_region(&page, &bytes) == 0)
        sandbox_add_range(&sb, page, bytes, "the grader's results page");
    if (given_image)
        sandbox_add_object(&sb, given_image, "the course's copy of the given stages");
    int fd;
    uintptr_t ip;
    uint64_t offset, record;
    if (results_writer(&fd, &ip, &offset, &record) == 0)
        sandbox_guard_results(&sb, fd, ip, offset, record);
    sb.refuse_truncating_open = files_bound && sandbox_files_abi() < 3;
    sandboxed_rec = rec;
    return sandbox_install(&sb, on_rejected, err, errn);
}

/* Check's channel to its parent: a file it made and unlinked (check_msg.c),
 * which the test's child writes its messages into and the parent reads when
 * the child has ended. A library that wrote bytes of its own there made the
 * grading parent stop with "Bad message type" (exit 2) or crash, so that no
 * result was written at all (a review, 2026-12-03). Verdicts come from the
 * results page, so from the start of the test on (Check has written what
 * it writes before the test's function runs), every unlinked file the child
 * holds points at /dev/null: Check's is the only one; memory files, the
 * results file and the course's library copies among them, are not unlinked
 * files, and CUDA has not started. What Check writes later (its failure
 * text, a test's duration) is lost, the exit status it reads is not. */
static void mute_unlinked_files(void)
{
    int null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
    DIR *d = opendir("/proc/self/fd");
    if (null_fd < 0 || !d) {
        if (null_fd >= 0)
            close(null_fd);
        if (d)
            closedir(d);
        return;
    }
    static const char gone[] = " (deleted)";
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        int fd = atoi(e->d_name);
        if (fd <= 2 || fd == null_fd || fd == dirfd(d))
            continue;
        char path[64], link[512];
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
        ssize_t n = readlink(path, link, sizeof link - 1);
        if (n <= (ssize_t)(sizeof gone - 1))
            continue;
        link[n] = '\0';
        if (link[0] == '/' && strncmp(link, "/memfd:", 7) != 0 &&
            strcmp(link + n - (sizeof gone - 1), gone) == 0)
            dup2(null_fd, fd); /* keeps the number, and its close-on-exec flag is cleared */
    }
    closedir(d);
    close(null_fd);
}

/* The seccomp filter, before the lab library is loaded. A kernel that
 * refuses it costs a warning (in the stage's output), not the test. */
static void child_sandbox(grade_run *run, test_record *rec)
{
    char err[200];
    if (run->sandbox && runner_sandbox_child(rec, err, sizeof err) != 0)
        fprintf(stderr, "grade: warning: no sandbox in this test: %s\n", err);
}

/* --sms: this child's green context (grader/green.h), made current. A
 * failure here is the grader's or the machine's (no code of the submission
 * has run): a SETUP ERROR never charged to the student. */
static cudaError_t child_green(grade_run *run, test_record *rec)
{
    char why[VERDICT_MSG - 96];
    if (green_enter(run->sms, why, sizeof why) != 0)
        finish(rec, V_SETUP_ERROR, "could not make the green context of --sms %d: %s", run->sms,
               why);
    return cudaSuccess;
}

/* Files (Landlock, sandbox.h): from here on this child, the threads CUDA
 * starts in it and the lab library cannot create, change or remove a file
 * outside /dev/null, the GPU's files and /proc/self (and /dev/shm where CUDA
 * needs it, FILES_WITH_SHM). Its output
 * file is already open. Before CUDA starts: Landlock binds only the calling
 * thread and the threads started after it, and a library can run code on
 * the driver's threads (a host function in a stream). A coverage build also
 * keeps its folder writable. */
static void child_files(const grade_run *run)
{
    if (!run->files)
        return;
    const char *writable[3] = {probe_files_writable(run->files), NULL, NULL};
#ifdef CUDA_LABS_COVERAGE_DIR
    writable[writable[0] != NULL] = CUDA_LABS_COVERAGE_DIR;
#endif
    char err[200];
    int rc = sandbox_restrict_files(writable, err, sizeof err);
    if (rc < 0)
        fprintf(stderr, "grade: warning: files are not guarded in this test: %s\n", err);
    files_bound = rc == 0;
    int threads = proc_count_threads();
    if (threads > 1) /* a change that let CUDA start first: its threads are not bound */
        fprintf(stderr, "grade: warning: files are not guarded in this test: %d threads ran "
                        "before the rules, and only one is bound by them\n", threads);
}

/* The record of the test this child runs (for witness_lost). */
static test_record *child_rec;

/* The witness stopped answering in the middle of a test: the grader's fault
 * (the parent decides, as for any SETUP ERROR after the library loaded). */
__attribute__((noreturn)) static void witness_lost(const char *why)
{
    finish(child_rec, V_SETUP_ERROR, "%s", why);
}

int runner_witnessed(const grade_run *run, int stage, int kind)
{
    const lab_spec *spec = run->spec;
    const int has = spec->host_timed ? spec->host_witness != NULL : spec->witness != NULL;
    const int test = kind == TEST_PERF || kind == TEST_CORRECT;
    return run->witness && test && has && run->sandbox && !run->plain_buffers && run->sms == 0 &&
           stage >= 0 && stage < spec->n_stages;
}

/* Whether the correctness test of stage grades size: every size, but with
 * --quick only the small ones. */
static int graded_size(const grade_run *run, int stage, int size)
{
    return !run->quick || run->spec->work(stage, size) <= RUNNER_QUICK_WORK;
}

static test_record *child_start(grade_run *run, test_record *shared, child_env *env, int stage,
                                int kind)
{
    for (int i = 0; i < n_parent_fds; i++)
        close(parent_fds[i]);
    if (run->sandbox) /* not under compute-sanitizer, whose files these may be */
        mute_unlinked_files(); /* before CUDA, whose own files stay as they are */
    tm_start(TM_STARTUP);
    /* A speed test's witness: forked before CUDA, before the library, and
     * while the results page is still writable here (its record is its own). */
    witness *wit = NULL;
    if (runner_witnessed(run, stage, kind)) {
        /* Every module loaded when it is registered, in both processes: a
         * module loaded lazily at its kernel's first launch waits for the
         * GPU, and a witnessed call is launched while its stream waits for
         * the witness's go (a deadlock). A host witness's go is a message. */
        if (!run->spec->host_timed)
            setenv("CUDA_MODULE_LOADING", "EAGER", 1);
        int size = lab_timed_size(run->spec, stage);
        if (kind == TEST_CORRECT) { /* one checked call at each size the test grades */
            uint32_t sizes = 0;
            for (int z = 0; z < run->spec->n_sizes && z < 32; z++)
                if (graded_size(run, stage, z))
                    sizes |= 1u << z;
            wit = witness_fork_check(run->spec, stage, sizes, run->seed,
                                     &run->res->check_witness[stage]);
        } else {
            wit = witness_fork(run->spec, stage, size, runner_size_seed(run->seed, stage, size),
                               WARMUP_CALLS + run->reps, WARMUP_CALLS, &run->res->witness[stage]);
        }
    }
    results_enter_child(); /* read-only for good; the grader writes through results_close */
    test_record *rec = results_own(shared);
    child_rec = rec;
    limit_child(run->spec, stage, kind);
    /* Run as root, no capabilities from here on, before CUDA starts its
     * threads: capabilities are each thread's own, and a library can run
     * code on CUDA's threads (sandbox.h). */
    if (run->sandbox)
        sandbox_drop_capabilities();
    child_files(run);
    if (run->plain_buffers)
        gbuf_set_guard(0);
    memset(env, 0, sizeof *env);
    env->witness = wit;
    results_open();
    rec->state = STATE_RUNNING;
    rec->graded = 1;
    results_close();
    rec_progress(rec, -1, PHASE_LOAD);
    rng_seed(&env->rng, rng_derive(run->seed, 7000u + 100u * (uint64_t)kind + (uint64_t)stage));
    rng_seed(&env->patch_rng, rng_derive(run->seed, 9000u + 100u * (uint64_t)kind + (uint64_t)stage));
    /* CUDA first, before any code of the library runs: a constructor that
     * hides the GPU (CUDA_VISIBLE_DEVICES) or resets it then changes nothing
     * here, and a failure up to this point is the grader's or the machine's.
     * With --sms the green context comes before the runtime's first call and
     * replaces cudaSetDevice, which would make the whole GPU current again. */
    cudaError_t err = run->sms > 0 ? child_green(run, rec) : cudaSetDevice(0);
    if (err == cudaSuccess)
        err = devinfo_query(&env->dev, 0);
    env->dev.sms_used = run->sms;
    if (err == cudaSuccess)
        err = cudaStreamCreate(&env->stream);
    if (err == cudaSuccess)
        err = gpu_timer_create(&env->timer);
    if (err == cudaSuccess)
        err = l2_flusher_init(&env->flush);
    if (err != cudaSuccess)
        finish(rec, V_SETUP_ERROR, "could not start CUDA: %s (%s)", cudaGetErrorName(err),
               cudaGetErrorString(err));
    char why[VERDICT_MSG - 64];
    if (run->sms > 0 && green_verify(env->stream, why, sizeof why) != 0)
        finish(rec, V_SETUP_ERROR, "--sms %d: %s", run->sms, why);
    if (ceiling_preload(run->spec->number, why, sizeof why) != 0)
        finish(rec, V_SETUP_ERROR, "%s", why);
    /* The speed test's witness meets this child and measures the hand-off;
     * where it cannot, the test is timed as before and the witness's record
     * says why (the lab's report repeats it). */
    if (env->witness && witness_connect(env->witness, env->stream, why, sizeof why) != 0 &&
        kind == TEST_PERF) /* a correctness test's witness is reported with the speed tests' */
        fprintf(stderr, "grade: this test is timed without its witness: %s\n", why);
    size_t arena_bytes = 0;
    void *arena = witness_arena(env->witness, &arena_bytes);
    lab_set_host_arena(arena, arena_bytes); /* a host witness's: the setup's buffers go there */
    static const char *const mark_sym[] = {"devcheck_mark"};
    void *mark = NULL;
    if (ceiling_load("devcheck", mark_sym, &mark, 1, why, sizeof why) != 0)
        finish(rec, V_SETUP_ERROR, "%s", why);
    env->mark = (devcheck_mark_fn *)mark;
    /* The kernel audit's CUPTI, started and stopped once before the lab
     * library is loaded: a failure here is the machine's (no CUPTI, a
     * profiler attached) and the stage is graded without the audit; once it
     * has worked, a failure during a stage's call is the stage's doing. */
    if (run->spec->forbidden_calls == policy_stream_stage_rules && stage >= 0 &&
        !run->spec->stages[stage].given)
        env->audit_ready = audit_start(env, why, sizeof why);
    if (lab_has_given(run->spec)) {
        env->given = given_open(run->spec->number, why, sizeof why);
        if (!env->given)
            finish(rec, V_SETUP_ERROR, "%s", why);
        given_image = dlsym(env->given, run->spec->stages[lab_first_given(run->spec)].symbol);
    }
    /* From here on, a SETUP ERROR may be the library's doing: the record
     * says so (library_loaded), and so does a mark the library cannot take
     * back, written before the sandbox that would refuse the write. */
    results_mark(&run->res->loading[stage][kind]);
    child_sandbox(run, rec);
    library_loaded = 1;
    env->lib = dlopen(run->load[0] ? run->load : run->lib, RTLD_NOW | RTLD_LOCAL);
    if (!env->lib)
        finish(rec, V_SETUP_ERROR, "could not load the lab library %s: %s", run->lib, dlerror());
    tm_enter(TM_OTHER);
    return rec;
}

/* Hands the lab library to a spec whose stages are more than one function
 * (lab 5: setup, run, teardown). */
static void give_library(const lab_spec *spec, void *lib, void *given)
{
    if (spec->use_library)
        spec->use_library(lib, given ? given : lib);
}

/* Stage `stage`'s function: a given stage's from the course's copy when it
 * is built, so that a submission cannot slow it; every other from the lab
 * library. */
static void *stage_fn(grade_run *run, test_record *rec, child_env *env, int stage)
{
    give_library(run->spec, env->lib, env->given);
    const char *sym = run->spec->stages[stage].symbol;
    if (run->spec->stages[stage].given) {
        void *fn = dlsym(env->given, sym);
        if (!fn)
            finish(rec, V_SETUP_ERROR,
                   "the course's copy of the given stages has no function %s() (stage %d): run "
                   "make again",
                   sym, stage);
        return fn;
    }
    void *fn = dlsym(env->lib, sym);
    if (!fn)
        finish(rec, V_SETUP_ERROR, "the lab library has no function %s() (stage %d)", sym, stage);
    return fn;
}

/* ---- one call, exactly as the timing loop makes it ---- */

typedef struct call_result {
    int status;
    cudaError_t launch, sync;
    double event_ms, wall_ms;
    char foreign[400]; /* the audit: a kernel that ran without a launch the trace saw */
    char audit_broken[200]; /* the audit: CUPTI, ready before, failed during the call */
    char dark[300]; /* the audit: GPU time no record covers, or a marker missing or faked */
    int dark_kind;  /* TRACE_CLEAN, TRACE_DARK (reported) or TRACE_TAMPERED (REJECTED) */
    int audit_tries; /* audited calls made for this one (a dark one is made again) */
    int witnessed;   /* the timing witness loaded its input, timed it and checks its output */
} call_result;

/* ---- the kernel audit ----
 * The launch trace sees what the lab library launches through the CUDA
 * runtime it was linked with. A library it reached some other way (cuBLAS,
 * which the GEMM, conv and Hopper children hold for their ceilings and
 * which launches through its own copy of the runtime; anything that calls
 * the driver) launches kernels the trace never sees. CUPTI sees every kernel
 * the GPU runs, so an audited call lists both and compares them name by
 * name: each kernel that ran must have been launched, as often, through the
 * trace. Audited: every correctness call of a student's stage, and one call
 * at a random place in each speed test's loop (not timed; meant to look like
 * the timed calls from the stage's side, though instructors.md lists what
 * still tells them apart). Labs whose stages own their streams (lab 5) are
 * not audited: their stages may do more than launch kernels, and their
 * overlap check uses CUPTI itself. */

static int audit_wanted(const grade_run *run, int stage)
{
    return stage >= 0 && !run->spec->stages[stage].given &&
           run->spec->forbidden_calls == policy_stream_stage_rules;
}

/* The grader's marker kernel on the stage's stream, busy for hold_ns; the
 * launch trace holds, so it counts nowhere as the stage's. */
static void grader_mark(child_env *env, unsigned hold_ns)
{
    launch_trace_hold(1);
    env->mark(env->stream, hold_ns);
    launch_trace_hold(0);
}

/* How long the marker before each call holds the stream: longer than the
 * host takes from there to the stage's first launch (15 to 50 us on the
 * H200's host with CUPTI recording; a slower host may take a few times that). */
#define HOLD_NS 200000u

/* Said once per test when CUPTI cannot record (no CUPTI, a profiler or the
 * sanitizer attached): the stage is graded without the audit. */
static void audit_unavailable(const char *why)
{
    static int said;
    if (!said++)
        printf("kernels not audited: %s\n", why);
}

/* CUPTI started and stopped once (child_start, before the lab library is
 * loaded), around one of the grader's marker kernels: 1 when it recorded the
 * marker, else 0 and the stage's output says why (no CUPTI, a profiler or
 * the sanitizer attached, a runtime CUPTI does not see). */
static int audit_start(child_env *env, char *why, size_t n)
{
    span none[1];
    trace_set_mark(DEVCHECK_MARK_NAME);
    if (trace_begin(why, n) == 0) {
        grader_mark(env, 0);
        trace_window w;
        if (trace_end(none, 1, why, n) >= 0) {
            if (trace_dark(&w) == 1)
                return 1;
            snprintf(why, n, "CUPTI did not record the grader's own marker kernel");
        }
    }
    audit_unavailable(why);
    return 0;
}

/* After an audited call: the first kernel CUPTI saw run more often than the
 * trace saw it launched, into cr->foreign. */
static void audit_compare(call_result *cr)
{
    const char *names[TRACE_MAX_NAMES + 1];
    int counts[TRACE_MAX_NAMES + 1];
    int n = trace_kernel_names(names, counts, TRACE_MAX_NAMES + 1);
    trace_window w;
    int marks = trace_dark(&w);
    for (int i = 0; i < n; i++) /* the grader's markers were not launched by the stage */
        if (strcmp(names[i], DEVCHECK_MARK_NAME) == 0)
            counts[i] -= marks < 2 ? marks : 2;
    launch_trace_audit(names, counts, n, cr->foreign, sizeof cr->foreign);
    cr->dark_kind = trace_window_suspect(&w, cr->dark, sizeof cr->dark);
    int unnamed;
    if (launch_trace_audit_count(DEVCHECK_MARK_NAME, &unnamed) > 0) { /* a marker of its own */
        cr->dark_kind = TRACE_TAMPERED;
        snprintf(cr->dark, sizeof cr->dark,
                 "the stage launched a kernel named %s, the name of the grader's own marker "
                 "kernel (rename yours)", DEVCHECK_MARK_NAME);
    }
    if (getenv("CUDA_LABS_AUDIT_LOG")) /* the figures, for measuring margins (instructors.md) */
        fprintf(stderr, "audit: window %.1f us, dark %.1f us, %d operations, %d markers%s\n",
                w.window_ms * 1e3, w.dark_ms * 1e3, w.operations, w.marks,
                cr->dark_kind == TRACE_TAMPERED ? " (tampered)"
                : cr->dark_kind == TRACE_DARK   ? " (dark)"
                                                : "");
}


/* An audited call with dark time, or one that looks tampered with, is made
 * again, up to AUDIT_TRIES calls in all, its inputs loaded again (the same
 * input set in a correctness test, patched afresh in a speed test): a host
 * that stalled once (the first call's loading of the module, a busy moment)
 * leaves dark time once. */
#define AUDIT_TRIES 3
_Static_assert(AUDIT_TRIES - 1 == WITNESS_MAX_UNTIMED, "the witness counts the tries after the first");

/* Whether the timing witness loads the next call's inputs and checks its
 * output: every call of a witnessed speed test while the grader's own calls
 * are not under way. The audited call is then one of the timed calls
 * (checked_call), with fresh inputs loaded while its stream waits, so its
 * inputs, its stream and the order of calls do not tell it apart. */
static int witness_checks(const child_env *env)
{
    return !env->unwitnessed && witness_active(env->witness);
}

/* stage < 0 calls the ceiling (the grader's own reference operation). Every
 * call, graded or timed, sees the same thing: no persisting window, a cold L2,
 * poisoned outputs (done by prepare). The start event is queued behind the L2
 * flush and the marker's hold, so the GPU is still busy while the host
 * launches the stage: the host's launch latency stays out of the measured
 * time. cr->audit_tries counts on from what the caller set (0 for a first
 * call; audit_again). untimed: a call the timing witness checks but does not
 * time or count among the test's calls (an audited call made again after
 * dark time). */
static void timed_call(grade_run *run, child_env *env, lab_ctx *ctx, int stage, int owner,
                       void *fn, int audit, int untimed, call_result *cr)
{
    const lab_spec *spec = run->spec;
    int tries = cr->audit_tries;
    memset(cr, 0, sizeof *cr);
    l2_reset_persisting(env->stream);
    cudaStreamSynchronize(env->stream); /* inputs loaded, outputs poisoned */
    cudaGetLastError();                 /* start with no pending error */
    launch_trace_reset();
    /* An audited call starts CUPTI (which waits for the GPU) before the
     * flush, so that at the stage's entry its stream is as busy as in any
     * other call (instructors.md lists what still tells the calls apart). */
    audit = audit && env->audit_ready;
    cr->audit_tries = tries + (audit != 0);
    char why[160];
    if (audit && trace_begin(why, sizeof why) != 0) {
        snprintf(cr->audit_broken, sizeof cr->audit_broken, "%s", why);
        audit = 0;
    }
    /* A witnessed call (every call of a speed test's stage, its ceiling and
     * its bases): the witness loads a fresh input, poisons the output and
     * flushes L2, and holds the stream until the call is queued, which keeps
     * the host's latency out of the measured time as the marker does. The
     * audited call is one of the timed ones (checked_call); its first marker
     * waits for the witness's go, and holds nothing: the stream is held
     * already. */
    cr->witnessed = witness_checks(env);
    if (cr->witnessed && spec->host_timed) { /* the flush outside the host witness's window */
        l2_flush(&env->flush, env->stream);
        cudaStreamSynchronize(env->stream);
    }
    if (cr->witnessed) {
        if (witness_begin(env->witness, stage, untimed, env->stream, why, sizeof why) != 0)
            witness_lost(why);
        if (audit)
            grader_mark(env, 0);
    } else {
        l2_flush(&env->flush, env->stream);
        if (spec->host_timed) /* the stage's own streams would not wait for the flush */
            cudaStreamSynchronize(env->stream);
        else /* every call: the GPU busy while the host reaches the stage's first launch
              * (so the host's latency is outside the measured time, and an audited
              * call's stream looks like any other's); an audited call's first marker */
            grader_mark(env, HOLD_NS);
    }
    gpu_timer_start(&env->timer, env->stream);
    /* Stages of labs that run on the grader's stream launch nothing elsewhere. */
    launch_trace_expect_stream(stage >= 0 && spec->forbidden_calls == policy_stream_stage_rules,
                               env->stream);
    if (audit)
        launch_trace_audit_reset();
    double t0 = wall_ms();
    cr->status = stage >= 0 ? spec->call(ctx, stage, fn, env->stream)
                            : spec->call_ceiling(ctx, owner, env->stream);
    launch_trace_expect_stream(0, NULL);
    launch_trace_audit_stop();
    cr->launch = cudaGetLastError();
    if (audit) /* the second marker, behind the stage's work */
        grader_mark(env, 0);
    gpu_timer_stop(&env->timer, env->stream);
    /* A GPU witness's window ends on the stream, so the message goes before
     * the wait; a host witness's ends with the message, which goes once all
     * of the call's work is done, as the call's wall time ends there. */
    if (cr->witnessed && !spec->host_timed)
        witness_queued(env->witness, env->stream);
    cr->sync = cudaDeviceSynchronize();
    if (cr->witnessed && spec->host_timed)
        witness_queued(env->witness, env->stream);
    double t_synced = wall_ms(); /* a witnessed call's wall time ends here, not after its checks */
    /* After a fault the witness's stream may wait for good: the test ends on
     * the fault, and the witness with it. */
    if (cr->witnessed && cr->sync == cudaSuccess && witness_end(env->witness, why, sizeof why) != 0)
        witness_lost(why);
    if (audit) {
        span none[1];
        if (trace_end(none, 1, why, sizeof why) < 0)
            snprintf(cr->audit_broken, sizeof cr->audit_broken, "%s", why);
        else
            audit_compare(cr);
    }
    /* A witnessed call's wall time ends with its stream, less the witness's
     * own part of the wait (its input and its hand-off). */
    cr->wall_ms = cr->witnessed ? t_synced - t0 - witness_overhead_ms(env->witness)
                                : wall_ms() - t0;
    float ms = 0;
    if (spec->host_timed)
        cr->event_ms = cr->wall_ms; /* host to host: the clock is the measure */
    else if (cr->sync == cudaSuccess && gpu_timer_elapsed_ms(&env->timer, &ms) == cudaSuccess)
        cr->event_ms = ms;
}

/* 1 when an audited call's only finding was dark time (or a look of
 * tampering) and it may be made again: the caller loads the inputs again and
 * calls once more. */
static int audit_again(const call_result *cr)
{
    return cr->dark_kind != TRACE_CLEAN && cr->audit_tries < AUDIT_TRIES &&
           cr->launch == cudaSuccess && cr->sync == cudaSuccess && !cr->foreign[0] &&
           !cr->audit_broken[0] && cr->status == STATUS_OK;
}

/* "stage N (title) at SIZE, in the last of K audited calls: what the audit
 * found" (the figures are the last try's). */
static void audit_finding(char *buf, size_t n, int stage, const lab_spec *spec, const char *size,
                          const call_result *cr)
{
    if (cr->audit_tries > 1)
        snprintf(buf, n, "stage %d (%s) at %s, in the last of %d audited calls: %s", stage,
                 spec->stages[stage].title, size, cr->audit_tries, cr->dark);
    else
        snprintf(buf, n, "stage %d (%s) at %s, in an audited call: %s", stage,
                 spec->stages[stage].title, size, cr->dark);
}

/* Dark time beside recorded work, in the last of an audited call's tries:
 * reported in the stage's output (once per test), never counted against it,
 * since a GPU left waiting looks the same as hidden work. */
static void audit_report_dark(int stage, const lab_spec *spec, const char *size,
                              const call_result *cr)
{
    static int said;
    char finding[VERDICT_MSG];
    if (said++)
        return;
    audit_finding(finding, sizeof finding, stage, spec, size, cr);
    printf("kernel audit inconclusive (not counted against the stage): %s. Work hidden from the "
           "audit would show this; so does a GPU left waiting: host work inside the stage "
           "(cudaGetDeviceProperties takes milliseconds: use cudaDeviceGetAttribute, once, in "
           "a static; no printing, no cudaMemcpy round trips), a busy machine, or another "
           "program on the GPU.\n",
           finding);
}

/* Adds the kernels the last call launched to the record's list, and marks
 * the list partial when some could not be listed (sass_refuse then reads
 * every kernel of the library). Written only when something changed: it
 * runs after every timed call of the stage. */
static void note_kernels(test_record *rec)
{
    char names[4 * sizeof rec->kernels], list[sizeof rec->kernels];
    size_t need = launch_trace_kernels(names, sizeof names);
    snprintf(list, sizeof list, "%s", rec->kernels);
    int partial = need >= sizeof names || launch_trace_kernels_partial();
    partial |= results_merge_names(list, sizeof list, names) > 0;
    if (strcmp(list, rec->kernels) == 0 && (!partial || rec->kernels_partial))
        return;
    results_open();
    memcpy(rec->kernels, list, sizeof list);
    rec->kernels_partial |= partial;
    results_close();
}

/* What the launch trace saw the stage do that it must not: launch a kernel
 * of CUB, Thrust, CUTLASS or CuTe (the symbol check before grading sees
 * those first; this holds for kernels it could not see), or put work on
 * another stream than the one it was given. 0 when neither. */
static int launch_trace_refused(const lab_spec *spec, int stage, check_outcome *out)
{
    char what[320];
    const char *lib = launch_trace_borrowed(what, sizeof what);
    if (lib) {
        out->v = V_REJECTED;
        snprintf(out->msg, sizeof out->msg,
                 "stage %d (%s) launched %s, a kernel of %s: the lab asks for a kernel of your "
                 "own. Write the stage's kernels yourself.",
                 stage, spec->stages[stage].title, what, lib);
        return -1;
    }
    if (launch_trace_foreign_stream(what, sizeof what)) {
        out->v = V_REJECTED;
        snprintf(out->msg, sizeof out->msg,
                 "stage %d (%s) put %s, not on the stream it was given: work on another stream "
                 "escapes the grader's timing. Launch every kernel, memset and copy on the "
                 "stage's stream argument.",
                 stage, spec->stages[stage].title, what);
        return -1;
    }
    return 0;
}

/* Turns a call's status and CUDA errors into an outcome; 0 when all is well. */
static int call_outcome(grade_run *run, child_env *env, int stage, int owner,
                        const call_result *cr, const char *size, check_outcome *out)
{
    const lab_spec *spec = run->spec;
    const char *sym = stage >= 0 ? spec->stages[stage].symbol : lab_ceiling_name(spec, owner);
    if (stage >= 0 && cr->status == STATUS_TODO) {
        out->v = V_TODO;
        snprintf(out->msg, sizeof out->msg,
                 "stage %d (%s): not implemented yet. %s() returned LAB_TODO; write the "
                 "TODO(lab%d.s%d) parts in labs/%s/%s.cu and return LAB_OK.",
                 stage, spec->stages[stage].title, sym, spec->number, stage, spec->dir, spec->name);
        return -1;
    }
    if (cr->launch != cudaSuccess) {
        char asked[200] = "";
        launch_config lc;
        if (stage >= 0 && launch_trace_last(&lc) > 0)
            snprintf(asked, sizeof asked,
                     " Its last launch asked for grid (%u, %u, %u), block (%u, %u, %u) = %llu "
                     "threads, and %zu bytes of dynamic shared memory.",
                     lc.grid[0], lc.grid[1], lc.grid[2], lc.block[0], lc.block[1], lc.block[2],
                     (unsigned long long)lc.block[0] * lc.block[1] * lc.block[2],
                     lc.shared_bytes);
        out->v = V_LAUNCH_ERROR;
        snprintf(out->msg, sizeof out->msg,
                 "a kernel launched by %s() at %s could not start: %s (%s).%s This GPU allows at "
                 "most %d threads per block and %d bytes of shared memory per block (%d after "
                 "cudaFuncSetAttribute).",
                 sym, size, cudaGetErrorName(cr->launch), cudaGetErrorString(cr->launch), asked,
                 env->dev.max_threads_per_block, env->dev.max_smem_per_block,
                 env->dev.max_smem_per_block_optin);
        return -1;
    }
    if (cr->sync != cudaSuccess) {
        out->v = V_GPU_FAULT;
        snprintf(out->msg, sizeof out->msg,
                 "the GPU stopped with %s (%s) while running %s() at %s. An illegal or "
                 "misaligned address in a kernel is the usual cause: check every index against "
                 "its bounds, or run the stage under compute-sanitizer (make sanitize LAB=%d).",
                 cudaGetErrorName(cr->sync), cudaGetErrorString(cr->sync), sym, size,
                 spec->number);
        return -1;
    }
    if (stage >= 0 && launch_trace_refused(spec, stage, out) != 0)
        return -1;
    if (stage >= 0 && cr->audit_broken[0]) {
        out->v = V_REJECTED;
        snprintf(out->msg, sizeof out->msg,
                 "stage %d (%s) at %s: the kernel audit failed in an audited call (%s), after "
                 "it had worked when the test started. A stage may not touch the profiling "
                 "interface (CUPTI) or the grader's memory; if yours does neither, report this "
                 "(a replay audits the same correctness calls, but another call of the speed "
                 "test).",
                 stage, spec->stages[stage].title, size, cr->audit_broken);
        return -1;
    }
    if (stage >= 0 && cr->foreign[0]) {
        out->v = V_REJECTED;
        snprintf(out->msg, sizeof out->msg,
                 "stage %d (%s) ran %s on the GPU at %s without launching it through the CUDA "
                 "runtime (kernels of cuBLAS, cuDNN and code that calls the driver run that way): "
                 "the lab asks for kernels of your own, launched with <<<...>>> or "
                 "cudaLaunchKernel.",
                 stage, spec->stages[stage].title, cr->foreign, size);
        return -1;
    }
    if (stage >= 0 && cr->status == STATUS_OK && cr->dark_kind == TRACE_TAMPERED) {
        char finding[VERDICT_MSG];
        audit_finding(finding, sizeof finding, stage, spec, size, cr);
        out->v = V_REJECTED;
        snprintf(out->msg, sizeof out->msg,
                 "%.*s. The kernels you launch with <<<...>>> or cudaLaunchKernel are always "
                 "recorded; a stage may not switch off or get around the profiling interface "
                 "(CUPTI) the grader audits with. If yours does neither, report this.",
                 (int)(sizeof out->msg - 260), finding);
        return -1;
    }
    if (stage >= 0 && cr->status == STATUS_OK && cr->dark_kind == TRACE_DARK)
        audit_report_dark(stage, spec, size, cr);
    char why[160];
    if (stage >= 0 && run->sms > 0 && green_verify(env->stream, why, sizeof why) != 0) {
        out->v = V_STAGE_ERROR;
        snprintf(out->msg, sizeof out->msg,
                 "after %s() at %s, %s. This run grades on %d SMs (--sms) through a CUDA "
                 "context the grader made; a stage must keep the context it is called in "
                 "(no cudaSetDevice, cudaDeviceReset or driver context calls)",
                 sym, size, why, run->sms);
        return -1;
    }
    if (stage >= 0 && cr->status != STATUS_OK) {
        out->v = V_STAGE_ERROR;
        if (cr->status == STATUS_ERROR)
            snprintf(out->msg, sizeof out->msg, "%s() returned LAB_ERROR at %s", sym, size);
        else
            snprintf(out->msg, sizeof out->msg,
                     "%s() returned %d at %s, which is neither LAB_OK nor LAB_TODO", sym,
                     cr->status, size);
        return -1;
    }
    if (stage < 0 && cr->status != 0) {
        out->v = V_SETUP_ERROR;
        snprintf(out->msg, sizeof out->msg, "the reference %s failed at %s", sym, size);
        return -1;
    }
    return 0;
}

/* ---- timing ---- */

typedef struct timed_fn {
    int stage; /* -1: the ceiling */
    void *fn;
    double *ms, *wall;
} timed_fn;

/* Every x[i] / y[i] (i < k) beyond t by the margin, on one side: 1; else 0. */
static int clearly_one_side(int k, const double *x, const double *y, double t, double margin)
{
    const double m = 1.0 + margin;
    int above = 1, below = 1;
    for (int i = 0; i < k; i++) {
        if (!(x[i] >= t * m * y[i]))
            above = 0;
        if (!(x[i] * m <= t * y[i]))
            below = 0;
    }
    return above || below;
}

int runner_settled(int k, const double *stage_ms, const double *wall_ms,
                   const double *const *base_ms, int n_bases, const double *ceiling_ms,
                   double min_speedup, double min_ceiling, double impossible_over)
{
    if (k < RUNNER_FAR_REPS)
        return 0;
    /* From RUNNER_MIN_REPS pairs on, a margin of RUNNER_SETTLE_MARGIN on the
     * thresholds (and none beyond their own on the sanity checks) is enough;
     * from RUNNER_FAR_REPS, every decision must be RUNNER_FAR_MARGIN away. */
    const int far = k < RUNNER_MIN_REPS;
    const double margin = far ? RUNNER_FAR_MARGIN : RUNNER_SETTLE_MARGIN;
    const double sanity = far ? RUNNER_FAR_MARGIN : 0.0;
    for (int b = 0; b < n_bases; b++)
        if (min_speedup > 0 && !clearly_one_side(k, base_ms[b], stage_ms, min_speedup, margin))
            return 0;
    if (min_ceiling > 0 && !clearly_one_side(k, ceiling_ms, stage_ms, min_ceiling, margin))
        return 0;
    /* The sanity checks hold a margin of their own (IMPOSSIBLE is 10% or more
     * above the ceiling, TIMING ANOMALY 50% and 1 ms above the event time):
     * every pair on one side of them is enough. */
    if (!clearly_one_side(k, ceiling_ms, stage_ms, impossible_over, sanity))
        return 0;
    int below = 1, above = 1; /* TIMING ANOMALY: wall beyond decide_anomaly_bound */
    for (int i = 0; i < k; i++) {
        double bound = decide_anomaly_bound(stage_ms[i]);
        below &= wall_ms[i] * (1.0 + sanity) <= bound;
        above &= wall_ms[i] > bound * (1.0 + sanity);
    }
    return below || above;
}

/* The guard zones of the buffers the timing witness checks (the inputs and
 * the outputs) and of the workspace; 0, or -1 with out filled (OUT OF
 * BOUNDS). */
static int witnessed_guards(const lab_spec *spec, lab_ctx *ctx, check_outcome *out)
{
    const gbuf *b[WITNESS_INS + WITNESS_OUTS] = {NULL};
    spec->witness->buffers(ctx, &b[0], &b[WITNESS_INS]);
    for (int i = 0; i < WITNESS_INS + WITNESS_OUTS; i++)
        if (b[i] && lab_guard_check(b[i], spec->witness->names[i], b[i]->bytes / 4, out) != 0)
            return -1;
    const gbuf *work = spec->witness->workspace ? spec->witness->workspace(ctx) : NULL;
    if (work && lab_guard_check(work, "the workspace d_work", work->bytes / 4, out) != 0)
        return -1;
    return 0;
}

/* Calls every function warm-up + reps times, interleaved and in a rotating
 * order (A B C, B C A, ...) so drifts in clock or temperature hit all alike.
 * Checks the output of every call of student code. Returns -1 when all went
 * well, else the index of the function that failed, with *out filled. */
/* One call of the timing loop: fresh inputs (a random one of the input
 * sets), the call, its outcome and, for student code, the check of its
 * output. 0, or -1 with *out filled. */
static int checked_call(grade_run *run, child_env *env, test_record *rec, lab_ctx *ctx,
                        int variants, const timed_fn *t, int owner, int audit, const char *size,
                        call_result *cr, check_outcome *out)
{
    const lab_spec *spec = run->spec;
    int drawn = (int)rng_below(&env->rng, (uint64_t)variants), variant = drawn;
    /* In a witnessed test the audited call is one of the timed calls (the
     * first try; the rare tries after it are checked, not timed): an extra
     * call of the stage would show, to a stage that counts its own calls and
     * its base's, that the audit is over. Elsewhere it is a call of its own,
     * before the round's timed one (measure). */
    const int in_place = audit && witness_checks(env);
    double first_event = 0, first_wall = 0;
    cr->audit_tries = 0;
    do {
        /* A call the witness checks gets input set 0, whose parameters its
         * check assumes (lab 4's alpha and beta); its inputs are the witness's. */
        variant = witness_checks(env) ? 0 : drawn;
        tm_enter(TM_RELOAD);
        /* A host witness loads the input itself, in the shared buffers, and
         * this process must not write them then. */
        const int loaded = spec->host_timed && witness_checks(env);
        if (!loaded && spec->prepare(ctx, variant, env->stream, out) != 0)
            return -1;
        /* Every timed call, the ceiling's too (the same work before each call). */
        if (!loaded && spec->perturb &&
            spec->perturb(ctx, variant, &env->patch_rng, env->stream, out) != 0)
            return -1;
        tm_enter(t->stage >= 0 ? TM_TIMED : TM_CEILING);
        const int first = cr->audit_tries == 0;
        timed_call(run, env, ctx, t->stage, owner, t->fn, audit, audit && !(in_place && first), cr);
        if (first) {
            first_event = cr->event_ms;
            first_wall = cr->wall_ms;
        }
    } while (audit_again(cr));
    if (in_place) { /* the timed try's times */
        cr->event_ms = first_event;
        cr->wall_ms = first_wall;
    }
    tm_enter(TM_TIMED_CHECKS);
    if (call_outcome(run, env, t->stage, owner, cr, size, out) != 0)
        return -1;
    if (t->stage >= 0 && t->stage == owner)
        note_kernels(rec); /* the stage's own: a timed call may launch others than checked ones */
    /* A witnessed call's output is checked by the witness, against the input
     * it loaded (the child's own expectation is not that call's input); the
     * guard zones around its buffers are checked here. */
    if (t->stage >= 0 && cr->witnessed && spec->witness && witnessed_guards(spec, ctx, out) != 0)
        return -1;
    if (t->stage >= 0 && !cr->witnessed && spec->check(ctx, t->stage, variant, 0, out) != 0)
        return -1;
    return 0;
}

static int measure(grade_run *run, child_env *env, test_record *rec, lab_ctx *ctx, int variants,
                   timed_fn *f, int nf, int *reps, const lab_stage *st, const char *size,
                   check_outcome *out)
{
    const lab_spec *spec = run->spec;
    const int max_reps = *reps;
    /* The audited call: one more call of the stage, untimed, just before its
     * call in a random round of the loop or of the checks after it. */
    const int audit = audit_wanted(run, f[0].stage) && env->audit_ready;
    /* Its round comes from the operating system, not from the run's seed,
     * which is printed (a replay with --seed audits another call). */
    uint64_t pick = 0;
    if (getrandom(&pick, sizeof pick, 0) != (ssize_t)sizeof pick)
        pick = rng_derive(run->seed, 9100u + (uint64_t)f[0].stage) ^ (uint64_t)wall_ms();
    struct rng audit_rng;
    rng_seed(&audit_rng, pick);
    const int audit_round =
        audit ? (int)rng_below(&audit_rng, (uint64_t)(max_reps + WARMUP_CALLS)) - WARMUP_CALLS
              : max_reps;
    /* With the timing witness the audited call is the round's timed call
     * itself (checked_call), else one more call just before it. */
    const int in_place = witness_checks(env);
    for (int round = -WARMUP_CALLS; round < *reps; round++) {
        for (int k = 0; k < nf; k++) {
            int idx = (k + round + WARMUP_CALLS) % nf;
            timed_fn *t = &f[idx];
            call_result cr;
            const int audited = idx == 0 && round == audit_round;
            if (audited && !in_place &&
                checked_call(run, env, rec, ctx, variants, t, f[0].stage, 1, size, &cr, out) != 0)
                return idx;
            if (checked_call(run, env, rec, ctx, variants, t, f[0].stage, audited && in_place, size,
                             &cr, out) != 0)
                return idx;
            if (round >= 0) {
                t->ms[round] = cr.event_ms;
                t->wall[round] = cr.wall_ms;
            }
        }
        const double *bases[LAB_MAX_BASES];
        for (int b = 1; b < nf - 1; b++)
            bases[b - 1] = f[b].ms;
        /* A witnessed test makes every call: the witness then knows how many
         * of each there are (witness_judge), and none can be added. */
        if (round + 1 < *reps && !witness_checks(env) &&
            runner_settled(round + 1, f[0].ms, f[0].wall, bases, nf - 2, f[nf - 1].ms,
                           st ? st->min_speedup : 0, st ? st->min_ceiling : 0,
                           decide_impossible_over(spec, run->sms > 0))) {
            *reps = round + 1;
            break;
        }
    }
    /* Stopped early: the stage's outputs are still checked as many times as a
     * full measurement checks them (an intermittently wrong stage keeps every
     * chance to show it), and so are those of a base that this run does not
     * grade itself (--stage). The ceiling needs no more calls, nor the given
     * stages (the course's code, worth no points). */
    for (int round = *reps; round < max_reps; round++)
        for (int idx = 0; idx < nf - 1; idx++) {
            const timed_fn *t = &f[idx];
            if (spec->stages[t->stage].given ||
                (idx > 0 && run->res->t[t->stage][TEST_CORRECT].graded))
                continue;
            call_result cr;
            /* The audited call one more, as in the loop: every round keeps its
             * plain call, which the timing witness counts. */
            if (idx == 0 && round == audit_round &&
                checked_call(run, env, rec, ctx, variants, t, f[0].stage, 1, size, &cr, out) != 0)
                return idx;
            if (checked_call(run, env, rec, ctx, variants, t, f[0].stage, 0, size, &cr, out) != 0)
                return idx;
        }
    tm_enter(TM_OTHER);
    return -1;
}

static timed_fn *alloc_timed(int nf, int reps)
{
    timed_fn *f = calloc((size_t)nf, sizeof *f);
    if (!f)
        return NULL;
    for (int i = 0; i < nf; i++) {
        f[i].ms = calloc((size_t)reps, sizeof(double));
        f[i].wall = calloc((size_t)reps, sizeof(double));
        if (!f[i].ms || !f[i].wall) {
            for (int k = 0; k <= i; k++) { /* what was allocated so far */
                free(f[k].ms);
                free(f[k].wall);
            }
            free(f);
            return NULL;
        }
    }
    return f;
}

/* Fills the record's metrics from a measurement; f[0] is the stage, f[nf-1]
 * the ceiling, the ones between its bases. */
static void summarise(grade_run *run, test_record *rec, timed_fn *f, int nf, int reps)
{
    const lab_spec *spec = run->spec;
    double work = spec->work(f[0].stage, lab_timed_size(spec, f[0].stage));
    results_open();
    rec->timed = 1;
    rec->reps = reps;
    rec->median_ms = stats_median(f[0].ms, (size_t)reps);
    rec->p10_ms = stats_quantile(f[0].ms, (size_t)reps, 0.1);
    rec->p90_ms = stats_quantile(f[0].ms, (size_t)reps, 0.9);
    rec->wall_ms = stats_median(f[0].wall, (size_t)reps);
    rec->ceiling_ms = stats_median(f[nf - 1].ms, (size_t)reps);
    rec->throughput = rec->median_ms > 0 ? work / (rec->median_ms * 1e-3) : 0;
    rec->ceiling_throughput = rec->ceiling_ms > 0 ? work / (rec->ceiling_ms * 1e-3) : 0;
    rec->pct_ceiling = rec->median_ms > 0 ? 100.0 * rec->ceiling_ms / rec->median_ms : 0;
    rec->base = -1;
    for (int i = 1; i < nf - 1; i++) {
        double m = stats_median(f[i].ms, (size_t)reps);
        if (rec->base < 0 || m < rec->base_ms) {
            rec->base = f[i].stage;
            rec->base_ms = m;
            rec->speedup = stats_median_ratio(f[i].ms, f[0].ms, (size_t)reps);
        }
    }
    results_close();
}

/* The measurement in rec believable? (decide_timing) 0, or -1 with *out filled. */
static int timing_sane(grade_run *run, int rec_stage, const test_record *rec, check_outcome *out)
{
    char msg[sizeof out->msg];
    verdict v = decide_timing(run->spec, rec_stage, rec, run->sms > 0, msg, sizeof msg);
    if (v == V_PASS)
        return 0;
    out->v = v;
    snprintf(out->msg, sizeof out->msg, "%s", msg);
    return -1;
}

/* ---- the tests ---- */

/* A correctness test's checking witness (witness.h): once the test's own
 * checks at size have passed, the buffers go to the witness and the stage is
 * called once more, audited as the test's calls are; the witness loads a
 * fresh input inside the call's window and checks the output, and the guard
 * zones are checked here. Nothing without a witness. */
static void witness_call(grade_run *run, child_env *env, test_record *rec, lab_ctx *ctx,
                         int stage, void *fn, int size, const char *sz)
{
    const lab_spec *spec = run->spec;
    if (!witness_active(env->witness))
        return;
    char why[200];
    check_outcome out = {V_NOT_RUN, ""};
    if (witness_attach(env->witness, spec, ctx, size, why, sizeof why) != 0)
        finish(rec, V_SETUP_ERROR, "%s", why);
    call_result cr;
    cr.audit_tries = 0;
    env->unwitnessed = 0;
    do {
        tm_enter(TM_UPLOAD);
        /* Input set 0, whose parameters the witness's check assumes; the
         * inputs themselves are the witness's. */
        if (spec->prepare(ctx, 0, env->stream, &out) != 0)
            finish_outcome(rec, &out);
        rec_progress(rec, size, PHASE_RUN);
        tm_enter(TM_CALLS);
        timed_call(run, env, ctx, stage, stage, fn, audit_wanted(run, stage), cr.audit_tries > 0,
                   &cr);
    } while (audit_again(&cr));
    env->unwitnessed = 1;
    if (call_outcome(run, env, stage, stage, &cr, sz, &out) != 0)
        finish_outcome(rec, &out);
    note_kernels(rec);
    tm_enter(TM_CHECKS);
    if (spec->witness && witnessed_guards(spec, ctx, &out) != 0) /* a host lab has none */
        finish(rec, out.v, "at %s, in the checking witness's call: %s", sz, out.msg);
}

static void correctness_body(grade_run *run, int stage)
{
    const lab_spec *spec = run->spec;
    child_env env;
    test_record *rec = child_start(run, &run->res->t[stage][TEST_CORRECT], &env, stage,
                                   TEST_CORRECT);
    void *fn = stage_fn(run, rec, &env, stage);
    const lab_stage *st = &spec->stages[stage];
    /* Speed reported, not graded: measure it here. */
    int timed_here = st->points_speed == 0 && !run->quick;
    int graded_sizes = 0;
    const int timed_size = lab_timed_size(spec, stage);

    /* The checking witness's calls are its own, one a size (witness_call). */
    env.unwitnessed = 1;
    for (int size = 0; size < spec->n_sizes; size++) {
        if (!graded_size(run, stage, size))
            continue;
        graded_sizes++;
        char sz[128];
        spec->size_text(size, sz, sizeof sz);
        check_outcome out = {V_NOT_RUN, ""};
        lab_ctx *ctx = NULL;
        rec_progress(rec, size, PHASE_SETUP);
        tm_enter(TM_UPLOAD);
        /* Every input set the lab checks, and two for timing. */
        int checked = spec->check_variants > 1 ? spec->check_variants : 1;
        int variants = timed_here && size == timed_size && checked < 2 ? 2 : checked;
        if (spec->setup(&ctx, stage, size, runner_size_seed(run->seed, stage, size), variants,
                        &out) != 0)
            finish_outcome(rec, &out);
        for (int v = 0; v < checked; v++) {
            call_result cr;
            cr.audit_tries = 0;
            do {
                tm_enter(TM_UPLOAD);
                if (spec->prepare(ctx, v, env.stream, &out) != 0)
                    finish_outcome(rec, &out);
                rec_progress(rec, size, PHASE_RUN);
                tm_enter(TM_CALLS);
                timed_call(run, &env, ctx, stage, stage, fn, audit_wanted(run, stage), 0, &cr);
            } while (audit_again(&cr));
            if (call_outcome(run, &env, stage, stage, &cr, sz, &out) != 0)
                finish_outcome(rec, &out); /* the message names the size already */
            note_kernels(rec);
            rec_progress(rec, size, PHASE_CHECK);
            tm_enter(TM_CHECKS);
            if (spec->check(ctx, stage, v, 1, &out) != 0)
                finish(rec, out.v, "at %s: %s", sz, out.msg);
        }

        if (timed_here && size == timed_size) {
            rec_progress(rec, size, PHASE_TIMING);
            int reps = run->reps;
            timed_fn *f = alloc_timed(2, reps);
            if (!f)
                finish(rec, V_SETUP_ERROR, "out of host memory for timing");
            f[0].stage = stage;
            f[0].fn = fn;
            f[1].stage = -1;
            if (measure(run, &env, rec, ctx, variants, f, 2, &reps, NULL, sz, &out) >= 0)
                finish(rec, out.v, "while timing at %s: %s", sz, out.msg);
            summarise(run, rec, f, 2, reps);
            if (timing_sane(run, stage, rec, &out) != 0)
                finish_outcome(rec, &out);
        }
        /* Last at each size: the witness's input stays in the buffers, and
         * nothing after it here expects the graded one. */
        witness_call(run, &env, rec, ctx, stage, fn, size, sz);
        tm_enter(TM_OTHER);
        spec->teardown(ctx);
    }
    finish(rec, V_PASS, "correct at %d sizes%s", graded_sizes, run->quick ? " (--quick)" : "");
}

static void perf_body(grade_run *run, int stage)
{
    const lab_spec *spec = run->spec;
    const lab_stage *st = &spec->stages[stage];
    const test_record *corr = &run->res->t[stage][TEST_CORRECT];
    child_env env;
    test_record *rec = child_start(run, &run->res->t[stage][TEST_PERF], &env, stage, TEST_PERF);
    results_open();
    rec->min_speedup = st->min_speedup;
    rec->min_ceiling = st->min_ceiling;
    results_close();
    char msg[VERDICT_MSG];
    if (decide_perf_start(corr, stage, msg, sizeof msg) != V_PASS)
        finish(rec, V_SKIPPED, "%s", msg);

    timed_fn *f = alloc_timed(MAX_TIMED, run->reps);
    if (!f)
        finish(rec, V_SETUP_ERROR, "out of host memory for timing");
    int nf = 0;
    f[nf].stage = stage;
    f[nf++].fn = stage_fn(run, rec, &env, stage);
    /* The bases: stages graded in this run must have passed their correctness
     * test (a base that hung would hang again); ungraded ones (--stage) are
     * checked on every timed call instead. */
    int failed_base = -1;
    for (int b = 0; b < st->n_base; b++) {
        int bs = st->base[b];
        const test_record *bc = &run->res->t[bs][TEST_CORRECT];
        if (bc->graded && (bc->state != STATE_FINISHED || bc->v != V_PASS)) {
            failed_base = bs;
            continue;
        }
        f[nf].stage = bs;
        f[nf++].fn = stage_fn(run, rec, &env, bs);
    }
    if (nf == 1 && failed_base >= 0) /* a stage with no base is held to its ceiling alone */
        finish(rec, V_SKIPPED,
               "not timed: stage %d is measured against stage %d (%s), which did not pass its "
               "correctness test. Fix stage %d first.",
               stage, failed_base, spec->stages[failed_base].title, failed_base);
    f[nf++].stage = -1; /* the ceiling */

    int size = lab_timed_size(spec, stage);
    char sz[128];
    spec->size_text(size, sz, sizeof sz);
    check_outcome out = {V_NOT_RUN, ""};
    lab_ctx *ctx = NULL;
    rec_progress(rec, size, PHASE_SETUP);
    tm_enter(TM_UPLOAD);
    if (spec->setup(&ctx, stage, size, runner_size_seed(run->seed, stage, size), 2, &out) != 0)
        finish_outcome(rec, &out);
    char why[200];
    if (witness_attach(env.witness, spec, ctx, size, why, sizeof why) != 0)
        finish(rec, V_SETUP_ERROR, "%s", why);

    rec_progress(rec, size, PHASE_TIMING);
    int reps = run->reps;
    int bad = measure(run, &env, rec, ctx, 2, f, nf, &reps, st, sz, &out);
    if (bad == 0)
        finish(rec, out.v, "while timing at %s: %s", sz, out.msg);
    if (bad > 0 && f[bad].stage >= 0) {
        int b = f[bad].stage;
        finish(rec, V_SKIPPED,
               "not timed: stage %d is measured against stage %d (%s), which failed: %s %s. "
               "Fix stage %d first.",
               stage, b, spec->stages[b].title, verdict_name(out.v), out.msg, b);
    }
    if (bad > 0)
        finish_outcome(rec, &out);

    /* One more graded call after the timing loop, checked in full here, on
     * the inputs this process loads (not the witness's). */
    env.unwitnessed = 1;
    rec_progress(rec, size, PHASE_CHECK);
    tm_enter(TM_RELOAD);
    if (spec->prepare(ctx, 1, env.stream, &out) != 0)
        finish_outcome(rec, &out);
    call_result cr;
    cr.audit_tries = 0;
    tm_enter(TM_CALLS);
    timed_call(run, &env, ctx, stage, stage, f[0].fn, 0, 0, &cr);
    tm_enter(TM_TIMED_CHECKS);
    if (call_outcome(run, &env, stage, stage, &cr, sz, &out) != 0)
        finish(rec, out.v, "after timing, at %s: %s", sz, out.msg);
    note_kernels(rec); /* every call of the stage counts, this untimed one too */
    if (spec->check(ctx, stage, 1, 1, &out))
        finish(rec, out.v, "after timing, at %s: %s", sz, out.msg);
    tm_enter(TM_OTHER);

    summarise(run, rec, f, nf, reps);
    if (timing_sane(run, stage, rec, &out) != 0)
        finish_outcome(rec, &out);
    spec->teardown(ctx);
    verdict v = decide_speed(spec, stage, rec, msg, sizeof msg);
    finish(rec, v, "%s", msg);
}

/* Check passes the loop index; it encodes the run and the stage. */
START_TEST(test_correct)
{
    correctness_body(runs[_i / 100], _i % 100);
}
END_TEST

START_TEST(test_perf)
{
    perf_body(runs[_i / 100], _i % 100);
}
END_TEST

double runner_stage_timeout(const lab_spec *spec, int stage, int reps, int quick)
{
    const lab_stage *st = &spec->stages[stage];
    const double floor = spec->floor_throughput > 0 ? spec->floor_throughput : 1.0;
    const int checked = spec->check_variants > 1 ? spec->check_variants : 1;
    double correct = 10.0, work = 0; /* CUDA start-up and loading the library */
    for (int size = 0; size < spec->n_sizes; size++) {
        if (quick && spec->work(stage, size) > RUNNER_QUICK_WORK)
            continue;
        correct += 1.0; /* buffers and uploads */
        /* each input set, and the checking witness's call (witness_call) */
        work += (checked + 1) * spec->work(stage, size);
    }
    const double bench = spec->work(stage, lab_timed_size(spec, stage));
    const double rounds = WARMUP_CALLS + reps;
    if (!quick && st->points_speed == 0) /* speed reported: timed with the ceiling */
        work += 2 * rounds * bench;
    correct += work / floor;
    if (quick || st->points_speed == 0)
        return correct;
    int timed = 2 + st->n_base; /* the stage and the ceiling, and its bases */
    double perf = 12.0 + (timed * rounds + 1) * bench / floor;
    return perf > correct ? perf : correct;
}

double runner_timeout(const grade_run *run, int stage)
{
    double t = runner_stage_timeout(run->spec, stage, run->reps, run->quick);
    if (run->sms > 0 && run->gpu_sms > run->sms)
        t *= (double)run->gpu_sms / run->sms;
    return t;
}

Suite *runner_suite(grade_run *run, void (*after_stage)(const grade_run *run, int stage))
{
    if (n_runs == MAX_RUNS)
        return NULL;
    int r = n_runs;
    runs[n_runs++] = run;
    after_stage_fn = after_stage;
    const lab_spec *spec = run->spec;
    /* Check keeps the names it is given, not copies: they must outlive the
     * run (run->suite does). A lab named twice gets a second name. */
    static char tcase_names[MAX_RUNS][LAB_MAX_STAGES][32];
    int twice = 0;
    for (int k = 0; k < r; k++)
        twice += runs[k]->spec->number == spec->number;
    if (twice)
        snprintf(run->suite, sizeof run->suite, "lab%d-%d", spec->number, twice + 1);
    else
        snprintf(run->suite, sizeof run->suite, "lab%d", spec->number);
    Suite *s = suite_create(run->suite);
    for (int st = 0; st < spec->n_stages; st++) {
        if ((run->stage_mask && !(run->stage_mask & (1u << st))) || (run->graded && !run->graded[st]))
            continue;
        char *tname = tcase_names[r][st];
        snprintf(tname, sizeof tcase_names[r][st], "lab%d.s%d", spec->number, st);
        TCase *tc = tcase_create(tname);
        tcase_set_timeout(tc, runner_timeout(run, st));
        tcase_add_unchecked_fixture(tc, NULL, after_tcase);
        int i = r * 100 + st;
        tcase_add_loop_exit_test(tc, test_correct, GRADE_PASS_EXIT, i, i + 1);
        if (spec->stages[st].points_speed > 0 && !run->quick)
            tcase_add_loop_exit_test(tc, test_perf, GRADE_PASS_EXIT, i, i + 1);
        suite_add_tcase(s, tc);
        tcase_order[tcase_count].run = r;
        tcase_order[tcase_count++].stage = st;
    }
    return s;
}

int runner_run_once(const lab_spec *spec, const char *lib, int stage, uint64_t seed, char *msg,
                    size_t msgn)
{
    void *handle = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    void *fn = handle ? dlsym(handle, spec->stages[stage].symbol) : NULL;
    if (!fn) {
        snprintf(msg, msgn, "cannot run %s() from %s: %s", spec->stages[stage].symbol, lib,
                 handle ? "no such function" : dlerror());
        return -1;
    }
    give_library(spec, handle, NULL);
    const int size = lab_timed_size(spec, stage);
    char sz[128];
    spec->size_text(size, sz, sizeof sz);
    check_outcome out = {V_NOT_RUN, ""};
    lab_ctx *ctx = NULL;
    cudaStream_t stream = NULL;
    int rc = -1;
    if (cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess)
        snprintf(out.msg, sizeof out.msg, "no CUDA stream: %s",
                 cudaGetErrorString(cudaGetLastError()));
    else if (spec->setup(&ctx, stage, size, runner_size_seed(seed, stage, size), 1, &out) == 0 &&
             spec->prepare(ctx, 0, stream, &out) == 0 && cudaStreamSynchronize(stream) == cudaSuccess) {
        int status = spec->call(ctx, stage, fn, stream);
        cudaError_t err = cudaDeviceSynchronize();
        if (status != STATUS_OK || err != cudaSuccess)
            snprintf(out.msg, sizeof out.msg, "%s() returned %d; CUDA says %s",
                     spec->stages[stage].symbol, status, cudaGetErrorString(err));
        else if (spec->check(ctx, stage, 0, 1, &out) == 0)
            rc = 0;
    }
    snprintf(msg, msgn, "stage %d (%s) at %s, run once: %s%s", stage, spec->stages[stage].title,
             sz, rc == 0 ? "correct" : "failed: ", rc == 0 ? "" : out.msg);
    if (ctx)
        spec->teardown(ctx);
    if (stream)
        cudaStreamDestroy(stream);
    return rc;
}

int runner_memory_fault(const char *msg)
{
    return strstr(msg, "out of host memory") || strstr(msg, "cudaErrorMemoryAllocation") ||
           strstr(msg, LAB_NOT_YOURS);
}

/* Parent side, after the run: a SETUP ERROR before the lab library was
 * loaded is the grader's (or the machine's). One after it may be the
 * library's doing (a constructor that resets the GPU, or a stage that
 * breaks what the grader set up): it counts as the submission's when the GPU still works
 * without the library (a fresh probe, in a child of its own), and as the
 * grader's otherwise. Running out of memory stays the grader's: another
 * program on a shared GPU or machine can cause it as well as the library,
 * and a grader fault is never charged to a student (grader/batch leaves the
 * run ungraded, for the instructor to look at). */
void runner_settle_faults(const lab_spec *spec, lab_results *res)
{
    int probed = 0, gpu_ok = 0;
    for (int s = 0; s < spec->n_stages; s++)
        for (int k = 0; k < TEST_KINDS; k++) {
            test_record *t = &res->t[s][k];
            if (!t->graded || t->v != V_SETUP_ERROR)
                continue;
            t->fault = FAULT_GRADER;
            /* The mark, not the record alone: a library that writes its
             * record could say the error came before it was loaded. */
            if ((!t->after_library && !res->loading[s][k]) || runner_memory_fault(t->msg))
                continue;
            if (!probed) {
                devinfo d;
                char err[256];
                gpu_ok = probe_gpu(&d, err, sizeof err) == 0;
                probed = 1;
            }
            if (!gpu_ok)
                continue;
            t->fault = FAULT_SUBMISSION;
            size_t len = strlen(t->msg);
            snprintf(t->msg + len, sizeof t->msg - len,
                     ". This happened after your library was loaded, and the GPU works without it "
                     "(checked again), so it counts as your submission's: look at what your code "
                     "does when it is loaded or called (constructors, cudaDeviceReset, "
                     "environment variables, memory it holds)");
        }
}
