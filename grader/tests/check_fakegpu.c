/* check_fakegpu.c: ./grade's grading path on a machine without a GPU. The
 * grader runs from a copy in build/tests/fakegpu/root over a CUDA runtime
 * whose GPU is the host (grader/tests/fakegpu/cudart.c), beside C stand-ins
 * for its own CUDA libraries, and grades lab libraries written in C whose
 * stages are right, wrong or broken in known ways: every stage must get its
 * verdict, its message and its points. Timing follows the time each stage
 * declares (fakegpu_spend), so speed verdicts are decided too: by
 * grade-small, the same grader with labs that time a small size
 * (grader/tests/fakegpu/small_labs.c; GRADE_SMALL names another build). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lab.h"
#include "../sandbox.h"
#include "tests.h"

#define FAKEGPU "build/tests/fakegpu"
#define OUT_MAX (256 * 1024)

static char out[OUT_MAX];
static char root_grade[600], root_small[600], libdir[300];

static const char *small_path(void)
{
    const char *g = getenv("GRADE_SMALL");
    return g && *g ? g : FAKEGPU "/grade-small";
}

/* The grader, copied beside its stand-in build/ceilings/ (it finds those
 * next to its own executable). 0, or -1 when the fake GPU is not built. */
static int fakegpu_ready(void)
{
    char cwd[256];
    if (!getcwd(cwd, sizeof cwd) || access(FAKEGPU "/root/build/ceilings/devcheck.so", R_OK) != 0)
        return -1;
    snprintf(libdir, sizeof libdir, "%s/" FAKEGPU, cwd);
    snprintf(root_grade, sizeof root_grade, "%s/root/grade", libdir);
    snprintf(root_small, sizeof root_small, "%s/root/grade-small", libdir);
    char cmd[2600];
    snprintf(cmd, sizeof cmd, "cp -f '%s' '%s' && cp -f '%s' '%s'", grade_path(), root_grade,
             small_path(), root_small);
    return system(cmd) == 0 ? 0 : -1;
}

/* Grades lab `lab` with grader `grader` and the library lab<lab>-<name>.so
 * and up to 4 more arguments (NULL-terminated); returns the exit status,
 * output in out. */
static int grade_with(char *grader, const char *lab, const char *name, const char *a1,
                      const char *a2, const char *a3, const char *a4)
{
    char lib[600], ld[600];
    snprintf(lib, sizeof lib, "%s/%s-%s.so", libdir, lab, name);
    snprintf(ld, sizeof ld, "LD_LIBRARY_PATH=%s", libdir);
    const char *env[] = {ld, NULL};
    char *argv[12] = {grader, (char *)lab, "--lib", lib, "--seed", "0x5eed"};
    int n = 6;
    const char *more[] = {a1, a2, a3, a4};
    for (int i = 0; i < 4 && more[i]; i++)
        argv[n++] = (char *)more[i];
    argv[n] = NULL;
    return run_command(argv, env, out, sizeof out);
}

static int fake_grade(const char *lab, const char *name, const char *a1, const char *a2,
                      const char *a3, const char *a4)
{
    return grade_with(root_grade, lab, name, a1, a2, a3, a4);
}

/* The same on a fake GPU of compute capability cc ("75" for 7.5). */
static int fake_grade_on(const char *cc, const char *lab, const char *name, const char *a1,
                         const char *a2, const char *a3)
{
    setenv("FAKEGPU_CC", cc, 1);
    int rc = fake_grade(lab, name, a1, a2, a3, NULL);
    unsetenv("FAKEGPU_CC");
    return rc;
}

/* The same with the labs' timed sizes small: the speed tests run. */
static int small_grade(const char *lab, const char *name)
{
    return grade_with(root_small, lab, name, NULL, NULL, NULL, NULL);
}

/* What an assertion shows of the output: its last 3,000 bytes, which hold
 * the scoreboard and "What to fix". Check ends the test process (exit 2,
 * "Message string too long") for a message much longer, and the failure
 * would be lost. */
static const char *shown(void)
{
    size_t n = strlen(out);
    return n > 3000 ? out + n - 3000 : out;
}

#define HAS(text) ck_assert_msg(strstr(out, text) != NULL, "output lacks \"%s\":\n%s", text, shown())
/* Not built: the test is counted as skipped, never as passed. */
#define SKIP_UNLESS_READY()                                                                   \
    do {                                                                                      \
        if (fakegpu_ready() != 0) {                                                           \
            test_skip("fakegpu: build/tests/fakegpu is not built");                           \
            return;                                                                           \
        }                                                                                     \
    } while (0)

/* Right stages: full marks, every stage correct at every small size. */
START_TEST(lab1_right_stages_pass)
{
    SKIP_UNLESS_READY();
    int rc = fake_grade("lab1", "good", "--quick", NULL, NULL, NULL);
    ck_assert_msg(rc == 0, "exit %d:\n%s", rc, shown());
    HAS("GPU:  Fake GPU (host memory), compute capability 9.0, 132 SMs");
    HAS("seed: 0x5eed (replay with --seed 0x5eed)");
    HAS("stage 5  4x4 per thread, float4 access      correct");
    HAS("100%: Checks: 6, Failures: 0, Errors: 0");
    HAS("Score: 50/50");
}
END_TEST

/* Wrong results, unwritten outputs and bad statuses: each its verdict, at
 * the first size that shows it, with the seed to replay it. */
START_TEST(lab1_wrong_stages_get_their_verdicts)
{
    SKIP_UNLESS_READY();
    int rc = fake_grade("lab1", "faults", "--quick", NULL, NULL, NULL);
    ck_assert_msg(rc == 1, "exit %d:\n%s", rc, shown());
    HAS("stage 1 (naive, reads coalesced), correctness: WRONG RESULT");
    HAS("at 1 x 1: 1 of 1 output elements are wrong; the first is out[0][0] (element 0)");
    HAS("replay: ./grade lab1 --stage 1 --seed 0x5eed --lib ");
    HAS("stage 2 (naive, writes coalesced), correctness: NOT WRITTEN");
    HAS("out[0][0] (element 0) was never written");
    HAS("transpose_padded() returned LAB_ERROR at 1 x 1");
    HAS("transpose_vectorized() returned 7 at 1 x 1, which is neither LAB_OK nor LAB_TODO");
    HAS("33%: Checks: 6, Failures: 4, Errors: 0");
    HAS("Score: 10/50");
}
END_TEST

/* Launch errors, GPU faults, stages not written, writes past the output and
 * a changed input. */
START_TEST(lab1_broken_stages_get_their_verdicts)
{
    SKIP_UNLESS_READY();
    int rc = fake_grade("lab1", "crash", "--quick", NULL, NULL, NULL);
    ck_assert_msg(rc == 1, "exit %d:\n%s", rc, shown());
    HAS("stage 1 (naive, reads coalesced), correctness: LAUNCH ERROR");
    HAS("could not start: cudaErrorInvalidConfiguration (invalid configuration argument). This "
        "GPU allows at most 1024 threads per block");
    HAS("stage 2 (naive, writes coalesced), correctness: GPU FAULT");
    HAS("the GPU stopped with cudaErrorIllegalAddress");
    HAS("stage 3 (shared-memory tile): not implemented yet. transpose_tiled() returned LAB_TODO");
    HAS("stage 4 (padded tile (no bank conflicts)), correctness: OUT OF BOUNDS");
    HAS("the output d_out was written right after its end (element 1; it has 1 elements)");
    HAS("stage 5 (4x4 per thread, float4 access), correctness: INPUT MODIFIED");
    HAS("the input d_in was changed, first at in[0][0]");
    HAS("Score: 0/50");
}
END_TEST

/* One stage of a run, machine-readable: the JSON has the stage's verdict. */
START_TEST(lab1_one_stage_json)
{
    SKIP_UNLESS_READY();
    char json[] = "/tmp/cudalabs-fakegpuXXXXXX";
    int fd = mkstemp(json);
    ck_assert_int_ge(fd, 0);
    close(fd);
    int rc = fake_grade("lab1", "faults", "--quick", "--stage", "1", NULL);
    ck_assert_msg(rc == 1, "exit %d:\n%s", rc, shown());
    rc = fake_grade("lab1", "faults", "--quick", "--stage", "2", NULL);
    HAS("NOT WRITTEN");
    ck_assert_msg(strstr(out, "WRONG RESULT") == NULL, "stage 1 was graded too:\n%s", shown());
    char arg[64];
    snprintf(arg, sizeof arg, "--json=%s", json);
    rc = fake_grade("lab1", "good", "--quick", "--stage", "3", arg);
    ck_assert_msg(rc == 0, "exit %d:\n%s", rc, shown());
    FILE *f = fopen(json, "r");
    ck_assert_ptr_nonnull(f);
    static char text[OUT_MAX];
    size_t got = fread(text, 1, sizeof text - 1, f);
    text[got] = '\0';
    fclose(f);
    unlink(json);
    ck_assert_msg(strstr(text, "\"PASS\"") != NULL, "no PASS in the JSON:\n%s", text);
    ck_assert_msg(strstr(text, "transpose_tiled") != NULL, "no stage 3 in the JSON:\n%s", text);
}
END_TEST

/* Reads the --json file at path into text (NUL-terminated) and removes it. */
static void take_json(const char *path, char *text, size_t n)
{
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    size_t got = fread(text, 1, n - 1, f);
    text[got] = '\0';
    fclose(f);
    unlink(path);
}

/* A stage timed at a size of its own (lab 6's stage 4, LAB_TIMED_AT): it and
 * its ceiling are timed there, and the JSON says where; the lab's other
 * stages at the lab's size. grade-small moves stage 4's own size to
 * the one before the lab's (small_labs.c). */
START_TEST(a_stage_timed_at_its_own_size)
{
    SKIP_UNLESS_READY();
    static char text[OUT_MAX];
    const char *expect[2][2] = {{"3", "\"size\": \"5 x 5, no padding"},
                                {"4", "\"size\": \"1 x 1 filter, odd sizes"}};
    for (int k = 0; k < 2; k++) {
        char json[] = "/tmp/cudalabs-fakegpuXXXXXX";
        int fd = mkstemp(json);
        ck_assert_int_ge(fd, 0);
        close(fd);
        char arg[64];
        snprintf(arg, sizeof arg, "--json=%s", json);
        int rc = grade_with(root_small, "lab6", "good", "--stage", expect[k][0], arg, NULL);
        ck_assert_msg(rc == 0, "stage %s: exit %d:\n%s", expect[k][0], rc, shown());
        take_json(json, text, sizeof text);
        ck_assert_msg(strstr(text, expect[k][1]) != NULL, "stage %s: no %s in the JSON:\n%s",
                      expect[k][0], expect[k][1], text);
    }
    HAS("  4  NHWC, split-K (deep layer)         yes                      0   100.0%  -");
}
END_TEST

/* A GPU that lacks a stage's technique: the stage is NOT AVAILABLE, with the
 * capability it needs, and no points lost; with nothing left to grade the
 * grader exits 77, a skip and never a failure (lab 4's stage 8 on 7.5; lab
 * 7, whole, on 8.0 and 10.0). A lab with no stage to grade makes no inputs:
 * lab 7's CPU reference once took 19 s here for nothing (over a minute
 * under make coverage), now the run ends at once, well inside the limit. */
START_TEST(stages_this_gpu_cannot_run)
{
    SKIP_UNLESS_READY();
    /* Stage 8 on 9.0 passes in the speed cases above; on 7.5 it is not graded. */
    int rc = fake_grade_on("75", "lab4", "good", "--quick", "--stage", "8");
    ck_assert_msg(rc == 77, "exit %d:\n%s", rc, shown());
    HAS("compute capability 7.5");
    HAS("needs compute capability 8.0 (this GPU, Fake GPU (host memory), has 7.5): not graded, "
        "no points lost");
    HAS("nothing was graded");
    ck_assert_ptr_null(strstr(out, "WRONG RESULT"));

    const char *ccs[] = {"80", "100"};
    for (int i = 0; i < 2; i++) {
        rc = fake_grade_on(ccs[i], "lab7", "good", NULL, NULL, NULL);
        ck_assert_msg(rc == 77, "lab 7 on %s: exit %d:\n%s", ccs[i], rc, shown());
        HAS("needs compute capability 9.0");
        HAS("nothing was graded");
        ck_assert_ptr_null(strstr(out, "WRONG RESULT"));
        ck_assert_ptr_null(strstr(out, "correct,"));
    }
}
END_TEST

/* Lab 2: right sums pass; a sum short of an element, an unwritten d_out and
 * a NaN each get their verdict and their explanation. */
START_TEST(lab2_sums)
{
    SKIP_UNLESS_READY();
    int rc = fake_grade("lab2", "good", "--quick", NULL, NULL, NULL);
    ck_assert_msg(rc == 0, "exit %d:\n%s", rc, shown());
    HAS("Score: 70/70");
    rc = fake_grade("lab2", "faults", "--quick", NULL, NULL, NULL);
    ck_assert_msg(rc == 1, "exit %d:\n%s", rc, shown());
    HAS("stage 1 (interleaved, divergent), correctness: WRONG RESULT");
    HAS("at n = 2: d_out[0] = ");
    HAS("part of the input (or of the partial sums) was left out");
    HAS("stage 2 (interleaved, strided index), correctness: NOT WRITTEN");
    HAS("stage 3 (sequential addressing), correctness: NAN IN OUTPUT");
    HAS("Score: 40/70");
}
END_TEST

/* The timing witness (on unless CUDA_LABS_WITNESS=0) needs two CUDA
 * contexts and the driver's stream memory operations; this fake GPU has
 * neither. Its speed tests are then timed as without it, to the same marks,
 * and the report says so once; turned off, the report says nothing of it. */
START_TEST(a_witness_that_cannot_start_costs_nothing)
{
    SKIP_UNLESS_READY();
    setenv("CUDA_LABS_WITNESS", "0", 1);
    int rc = small_grade("lab1", "good");
    ck_assert_msg(rc == 0, "exit %d:\n%s", rc, shown());
    ck_assert_msg(!strstr(out, "witness"), "%s", shown());
    const char *score = strstr(out, "Score: ");
    ck_assert_ptr_nonnull(score);
    char without[32];
    snprintf(without, sizeof without, "%.*s", (int)strcspn(score, "\n"), score);
    unsetenv("CUDA_LABS_WITNESS");
    rc = small_grade("lab1", "good");
    ck_assert_msg(rc == 0, "exit %d:\n%s", rc, shown());
    HAS("speed tests were timed without the grader's timing witness (no stream memory "
        "operations in this driver): as before, by the test's own process alone.");
    HAS(without);
}
END_TEST

/* The median the report gives after key, in ms: at least the stage's own
 * sleep of ms, and (on a machine busy with other tests) less than 25% over. */
static void median_near(const char *key, double ms)
{
    const char *p = strstr(out, key);
    ck_assert_msg(p != NULL, "output lacks \"%s\":\n%s", key, shown());
    double got = strtod(p + strlen(key), NULL);
    ck_assert_msg(got >= ms && got < 1.25 * ms, "%s%.4f ms, expected %.1f ms to %.1f ms", key, got,
                  ms, 1.25 * ms);
}

/* Lab 5's host witness times every call of a speed test and checks its
 * output: the report shows each test's calls, and the witness's findings
 * (stage 3's kept outputs) are in it. Without the witness, the forged
 * record of LAB5_CHEATS's stage 5 stands: it is the witness that catches
 * it (instructors.md). Where the stages could not take the witness's
 * memory as they take their own, it stays out. */
START_TEST(lab5_host_witness_times_and_checks)
{
    SKIP_UNLESS_READY();
    int rc = grade_with(root_small, "lab5", "cheats", "--timings", NULL, NULL, NULL);
    ck_assert_msg(rc == 1, "exit %d:\n%s", rc, shown());
    HAS("stage 1: hand-off ");
    HAS("stage 1 22 calls, median ");
    median_near("stage 3 22 calls, median ", 19.2); /* the stage sleeps 19.2 ms */
    HAS("(some wrong)");
    median_near("stage 5 11 calls, median ", 80);
    setenv("CUDA_LABS_WITNESS", "0", 1);
    rc = small_grade("lab5", "cheats");
    unsetenv("CUDA_LABS_WITNESS");
    ck_assert_msg(rc == 1, "exit %d:\n%s", rc, shown());
    ck_assert_msg(!strstr(out, "stage 5 (heavy kernel over streams), speed"), "%s", shown());
    HAS("Score: 70/80");
    /* A GPU whose registered memory's host pointers are not its own: lab 5 is
     * timed without the witness, to the same marks, and the report says why. */
    setenv("FAKEGPU_NO_HOST_POINTERS", "1", 1);
    rc = small_grade("lab5", "good");
    unsetenv("FAKEGPU_NO_HOST_POINTERS");
    ck_assert_msg(rc == 0, "exit %d:\n%s", rc, shown());
    HAS("timed without the grader's timing witness (this GPU cannot use the host pointers of "
        "registered memory");
    HAS("Score: 80/80");
}
END_TEST

/* Lab 2 stage 1 is measured against one block, which runs on one SM: on a
 * GPU with fewer SMs it needs less (0.07x per SM), on too few its speed is
 * not graded and its points are not counted; a config's threshold holds on
 * any count. */
START_TEST(a_threshold_that_follows_the_sm_count)
{
    SKIP_UNLESS_READY();
    setenv("FAKEGPU_SMS", "32", 1);
    int rc = small_grade("lab2", "good");
    ck_assert_msg(rc == 0, "exit %d:\n%s", rc, shown());
    HAS("32 SMs, 1 MB L2");
    HAS("lab 2 stage 1: its gain over stage 0 grows with the number of SMs, so on 32 SMs it "
        "needs 2.24x (0.07x per SM; 3.00x on 43 or more)");
    HAS("  1  interleaved, divergent             yes                      0     6.7%  4.00x over "
        "0     2.24x   15/15");
    HAS("Score: 110/110");

    setenv("FAKEGPU_SMS", "12", 1);
    rc = small_grade("lab2", "good");
    ck_assert_msg(rc == 0, "exit %d:\n%s", rc, shown());
    HAS("12 SMs are too few to tell it from stage 0 by speed: its speed is reported, not graded "
        "(from 16 SMs up), no points lost");
    HAS("  1  interleaved, divergent             yes                      0     6.7%  -          "
        "          -   10/10");
    HAS("Score: 105/105");

    char cfg[] = "/tmp/cudalabs-sms-XXXXXX";
    int fd = mkstemp(cfg);
    ck_assert_int_ge(fd, 0);
    const char *text = "lab2.s1.min_speedup = 5\n";
    ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    setenv("FAKEGPU_SMS", "32", 1);
    rc = grade_with(root_small, "lab2", "good", "--config", cfg, NULL, NULL);
    unsetenv("FAKEGPU_SMS");
    unlink(cfg);
    ck_assert_msg(rc == 1, "exit %d:\n%s", rc, shown());
    ck_assert_ptr_null(strstr(out, "grows with the number of SMs"));
    HAS("4.00x over stage 0 (one block (given)); this stage needs 5.00x.");
}
END_TEST

/* The given stages are timed from the course's copy beside the grader
 * (root/build/ceilings/lab2-given.so, here lab 2's good library), not from
 * the submission: one that slows its given stage 0 and hands in stage 0's
 * code as stage 1 gets 1.00x. Without the copy nothing falls back to the
 * submission's: the header says so and the tests are SETUP ERROR (the
 * grader's side, never charged). */
START_TEST(given_stages_from_the_course_copy)
{
    SKIP_UNLESS_READY();
    int rc = small_grade("lab2", "slowgiven");
    ck_assert_msg(rc == 1, "exit %d:\n%s", rc, shown());
    /* The two cost the same; the host's own time puts the ratio's last digit
     * either side of 1.00x. */
    const char *r = strstr(out, "x over stage 0 (one block (given)); this stage needs 3.00x.");
    ck_assert_msg(r && r - out >= 4, "no ratio over stage 0:\n%s", shown());
    double ratio = atof(r - 4);
    ck_assert_msg(ratio > 0.95 && ratio < 1.05, "stage 1 at %.2fx over the course's stage 0:\n%s",
                  ratio, shown());
    ck_assert_ptr_null(strstr(out, "is not built"));

    char given[700], off[720];
    snprintf(given, sizeof given, "%s/root/build/ceilings/lab2-given.so", libdir);
    snprintf(off, sizeof off, "%s.off", given);
    ck_assert_int_eq(rename(given, off), 0);
    rc = small_grade("lab2", "slowgiven");
    ck_assert_int_eq(rename(off, given), 0);
    ck_assert_msg(rc != 0, "exit %d:\n%s", rc, shown());
    HAS("lab 2: the course's copy of its given stages (build/ceilings/lab2-given.so), which the "
        "grader runs in place of yours, is not built: run make lab2");
    HAS("lab2-given.so, the course's copy of lab 2's given stages, is not built: run make lab2");
    HAS("SETUP ERROR");
    ck_assert_ptr_null(strstr(out, "4.00x"));
}
END_TEST

/* The speed tests: a lab graded by grade-small with one of its C libraries
 * (grader/tests/fakegpu/lab<N>.c), its exit status, and what its output
 * must hold (verdicts, messages, figures and the score). */
typedef struct speed_case {
    const char *lab, *name;
    int rc;
    const char *has[8];
} speed_case;

static const speed_case speed_cases[] = {
    /* Lab 1: every stage fast enough gets its speed points, with its speedup
     * over its base and its share of the ceiling as declared. */
    {"lab1", "good", 0,
     {"stage 3  shared-memory tile                 correct, 0 GB/s (33% of cudaMemcpy D2D), "
      "1.33x over stage 2 -> fast enough",
      "  4  padded tile (no bank conflicts)    yes                      0    55.6%  1.67x over "
      "3     1.40x   20/20",
      "ceiling: cudaMemcpy D2D at 0 GB/s, measured in this run",
      "100%: Checks: 9, Failures: 0, Errors: 0", "Score: 80/80"}},
    /* A stage whose base failed is not timed, and says which to fix first;
     * a failed correctness test leaves its speed test SKIPPED. */
    {"lab1", "faults", 1,
     {"- stage 3 (shared-memory tile), speed: SKIPPED",
      "not timed: stage 3 is measured against stage 2 (naive, writes coalesced), which did not "
      "pass its correctness test. Fix stage 2 first.",
      "22%: Checks: 9, Failures: 7, Errors: 0", "Score: 10/80"}},
    /* A base stage that runs slowly only while a later stage is compared
     * with it: the speedups measured against it are decided again on its
     * own test's time, where stages 4 and 5 (stage 3 again) gain nothing. */
    {"lab1", "baseslow", 1,
     {"- stage 4 (padded tile (no bank conflicts)), speed: TOO SLOW",
      "stage 3 (shared-memory tile), this test's base, took",
      "(2.00x as long, each against the ceiling timed beside it), so the speedup measured here "
      "cannot be believed. Against its own "
      "test's time this stage is 1.00x over it, and needs 1.40x.",
      "- stage 5 (4x4 per thread, float4 access), speed: TOO SLOW",
      "stage 4 (padded tile (no bank conflicts)), this test's base, took",
      "this stage is 1.00x over it, and needs 1.10x", "Score: 60/80"}},
    /* Lab 2: every threshold met, stage 7 also by its share of the ceiling. */
    {"lab2", "good", 0,
     {"  7  many elements per thread, float4   yes                      0    83.3%  3.75x over "
      "6    1.50x+80%   20/20",
      "Score: 110/110"}},
    /* A stage slower than its base is TOO SLOW with its hint, led by what was
     * measured, one faster than the ceiling IMPOSSIBLE, one behind a failed
     * base SKIPPED. (Stage 5 is declared 8% slower, 0.92x: at equal cost,
     * the host's own time made it 0.99x or 1.00x from run to run, and the
     * ratio's last digit is still the host's.) */
    {"lab2", "faults", 1,
     {"- stage 5 (unrolled last warp), speed: TOO SLOW",
      "x over stage 4 (first add during load); this stage needs 1.05x. It runs at 0 GB/s, "
      "15% of CUB DeviceReduce::Sum.",
      "hint: This stage is slower than the one it must beat. Stop the shared-memory loop at s = 64",
      "- stage 7 (many elements per thread, float4), speed: IMPOSSIBLE",
      "is more than the CUB DeviceReduce::Sum ceiling measured in the same run",
      "- stage 4 (first add during load), speed: SKIPPED", "Score: 45/110"}},
    /* Lab 3: its four ceilings each measured. */
    {"lab3", "good", 0,
     {"  6  single-pass scan (look-back)       yes                      0    66.7%  2.00x over "
      "5    1.15x+60%   20/20",
      "ceiling: CUB DeviceSelect::If at 0 GB/s, measured in this run", "Score: 100/100"}},
    /* A scan across its segments is WRONG RESULT where a segment starts, a
     * count one too many is named, a stage faster than its base but short
     * of its share of the ceiling is TOO SLOW with both figures. */
    {"lab3", "faults", 1,
     {"at n = 33: 1 of 33 elements are wrong; the first is d_out[32] = 15, expected 4 (the sum "
      "of d_in[32..32]). It is element 0 of the segment that starts at d_in[32]",
      "38% of CUB DeviceScan::InclusiveSum (0 GB/s); this stage needs 60% as well as 1.15x over "
      "stage 5 (it has 1.15x)",
      "at n = 1: d_count[0] = 2, expected 1 (the number of elements of d_in > 0)",
      "Score: 60/100"}},
    /* Lab 4: timed against cuBLAS in FP32 and TF32. */
    {"lab4", "good", 0,
     {"stage 8  tensor cores (TF32, bonus)         correct, 0 TFLOP/s (33% of cuBLAS SGEMM (TF32 "
      "tensor cores)) -> fast enough",
      "Score: 120/120"}},
    /* A GEMM without beta C is named as such, one that reads C when beta is
     * 0 leaves the grader's poison, warp tiling short of 65% of cuBLAS is
     * TOO SLOW with its hint. */
    {"lab4", "faults", 1,
     {"It equals alpha A B without beta C: is beta ignored? (alpha 0.75, beta -0.5)",
      "- stage 2 (shared-memory tiles), correctness: NOT WRITTEN",
      "53% of cuBLAS SGEMM (FP32) (0 TFLOP/s); this stage needs 65% as well as 1.00x over stage "
      "6 (it has 1.05x)",
      "hint: This stage reaches 53% of cuBLAS SGEMM (FP32) and needs 65%.", "Score: 75/120"}},
    /* Lab 5, timed by the wall clock (its C stages sleep). */
    {"lab5", "good", 0,
     {"stage 3  zero-copy (mapped memory)          correct, 0 GB/s (",
      "  1  pinned memory, one stream          yes", "Score: 80/80"}},
    /* A wrong a is WRONG RESULT with its chunk, a setup saying LAB_TODO NOT
     * IMPLEMENTED, a run that leaves its last chunk out returned "before
     * out was complete", a heavy stage barely faster than its base TOO SLOW. */
    {"lab5", "faults", 1,
     {"at n = 1, 5 chunks: 1 outputs are wrong; the first is out[0] = ",
      "overlap_setup() returned LAB_TODO; write the TODO(lab5.s2) parts in "
      "labs/5-streams/streams.cu",
      "at n = 1000, 3 chunks: run returned before out was complete: out[667] still held the "
      "grader's NaN when run returned",
      "- stage 5 (heavy kernel over streams), speed: TOO SLOW", "this stage needs 1.30x.",
      "hint: Run your stage 2 on the heavy job", "Score: 10/80"}},
    /* Lab 5's host witness (no CUDA: it runs here too): a stage that forges
     * its record through the grader's own write at its twelfth call is
     * REJECTED, as its witness timed 11 of its 22 calls; a stage that hands
     * back a kept output is WRONG RESULT (the witness found its timed
     * outputs wrong, and the check after timing finds the kept one). */
    {"lab5", "cheats", 1,
     {"- stage 5 (heavy kernel over streams), speed: REJECTED",
      "only 11 of the stage's 22 timed calls went through the grader's timing witness",
      "- stage 3 (zero-copy (mapped memory)), speed: WRONG RESULT", "Score: 60/80"}},
    /* Lab 5's checking witness and forged records: a stage that writes
     * NOT AVAILABLE into its own records (its tests' points would leave the
     * total) is REJECTED in both, and the stage measured against it is not
     * timed; a correctness PASS written at the second size is REJECTED, the
     * witness having checked one; a stage right in the test's own calls
     * that replays in the witness's is WRONG RESULT; a SETUP ERROR whose
     * record says it came before the library was loaded is the
     * submission's, as the grader's own mark says it came after. */
    {"lab5", "forges", 1,
     {"the test's record came back saying NOT AVAILABLE, a verdict only the grader's parent "
      "process gives",
      "the same in stage 2 (speed)",
      "checking witness, a separate process that checks one call at each size, checked 1 of "
      "the test's 2 sizes (1 call)",
      "- stage 5 (heavy kernel over streams), correctness: WRONG RESULT",
      "is detected). This happened after your library was loaded, and the GPU works without it",
      "Score: 0/80"}},
    /* Records the parent must read safely: one whose size indexes past the
     * lab's table is REJECTED (it crashed the parent before), one whose
     * message runs past its array is cut at its end (the parent appended to
     * it past the record before, and the next record read UNKNOWN), and
     * times a correctness test of a stage with speed points does not take
     * are not shown. */
    {"lab5", "records", 1,
     {"- stage 1 (pinned memory, one stream), correctness: REJECTED",
      "the test's record came back with a size the grader never writes",
      "  3  zero-copy (mapped memory)          SETUP ERROR              -        -  SKIPPED",
      "ceiling: everything overlapped (the grader's own three lanes) at 0 GB/s",
      "Score: 30/80"}},
    /* Lab 6: stage 4, timed at a size of its own against a ceiling of its
     * own alone, passes by 12% of that ceiling. */
    {"lab6", "good", 0,
     {"  4  NHWC, split-K (deep layer)         yes                      0   100.0%  -           "
      "       12%   20/20",
      "ceiling: cuBLAS SGEMM at the deep layer's GEMM shape at ", "Score: 80/80"}},
    /* A flipped filter is WRONG RESULT at the first layer with its position
     * (n, k, p, q), a stage over 2.5 times the ceiling IMPOSSIBLE, an
     * unwritten one NOT IMPLEMENTED. */
    {"lab6", "faults", 1,
     {"at tiny, odd, stride 2 (N 2, C 3, 5 x 7, K 5, 3 x 3, stride 2, pad 1): 120 of 120 outputs "
      "are wrong; the first is out[0][0][0][0] (n, k, p, q)",
      "is more than 2.5 times the cuBLAS SGEMM at the layer's GEMM shape ceiling measured in the "
      "same run",
      "conv_nhwc() returned LAB_TODO; write the TODO(lab6.s4) parts in labs/6-conv/conv.cu",
      "Score: 20/80"}},
    /* Lab 7 on a GPU of compute capability 9.0, with the grader's tensor maps. */
    {"lab7", "good", 0,
     {"  3  producer + 2 consumers, 128 x 256  yes                      0    66.", /* 1/1.5 */
      "2    1.10x+60%   25/25",
      "  4  persistent, C through TMA stores   yes                      0    83.", /* 1/1.2 */
      "1.08x+80%   25/25",
      "  5  TF32, lab 4's problem (bonus)",
      "Score: 100/100"}},
    /* B read in the wrong layout is WRONG RESULT at every element, and the
     * stage it is the base of is not timed; the TF32 stage computed in BF16
     * is WRONG RESULT with the likely cause. */
    {"lab7", "faults", 1,
     {"- stage 1 (TMA + wgmma, 64 x 128 tiles), correctness: WRONG RESULT",
      "at M 1, N 300, K 72: 300 of 300 elements of C are wrong",
      "not timed: stage 2 is measured against stage 1 (TMA + wgmma, 64 x 128 tiles), which did "
      "not pass its correctness test.",
      "50% of cuBLAS GEMM (BF16, FP32 accumulation) (0 TFLOP/s); this stage needs 60% as well "
      "as 1.10x over stage 2 (it has 2.25x)",
      "- stage 5 (TF32, lab 4's problem (bonus)), correctness: WRONG RESULT",
      "a lower precision than TF32", "Score: 45/100"}},
};
#define N_SPEED_CASES ((int)(sizeof speed_cases / sizeof speed_cases[0]))

START_TEST(speed_verdicts)
{
    SKIP_UNLESS_READY();
    const speed_case *c = &speed_cases[_i];
    int rc = small_grade(c->lab, c->name);
    ck_assert_msg(rc == c->rc, "%s %s: exit %d:\n%s", c->lab, c->name, rc, shown());
    for (int k = 0; k < 8 && c->has[k]; k++)
        ck_assert_msg(strstr(out, c->has[k]) != NULL, "%s %s: output lacks \"%s\":\n%s", c->lab,
                      c->name, c->has[k], shown());
}
END_TEST

/* Student code in a grading child cannot change files: a library that
 * appends to the course's devcheck.so, plants a ceiling library for lab 1
 * and creates a file beside the grader is graded as the correct code it
 * otherwise is, and every file is as it was. The control, without the
 * sandbox, shows that the library does write them. */
static long file_size(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 ? (long)sb.st_size : -1;
}

/* Grades the "writes" library (fake_grade's arguments after it) and puts
 * back what it changed before anything is asserted, so that a failure does
 * not spoil the later tests' course files: its exit status, and in *changed
 * how many of the three course files it changed (devcheck.so grown, lab1.so
 * and tampered made). */
static int graded_writes(const char *a1, const char *a2, const char *a3, int *changed)
{
    char devcheck[700], planted[700], tampered[700];
    snprintf(devcheck, sizeof devcheck, "%s/root/build/ceilings/devcheck.so", libdir);
    snprintf(planted, sizeof planted, "%s/root/build/ceilings/lab1.so", libdir);
    snprintf(tampered, sizeof tampered, "%s/root/tampered", libdir);
    long size = file_size(devcheck);
    ck_assert_int_gt(size, 0);
    int rc = fake_grade("lab1", "writes", a1, a2, a3, NULL);
    long grown = file_size(devcheck), made = file_size(planted), made2 = file_size(tampered);
    ck_assert_int_eq(truncate(devcheck, size), 0);
    unlink(planted);
    unlink(tampered);
    *changed = (grown != size) + (made >= 0) + (made2 >= 0);
    return rc;
}

START_TEST(children_cannot_change_the_course_files)
{
    SKIP_UNLESS_READY();
    if (sandbox_files_abi() == 0) {
        test_skip("fakegpu: this kernel has no Landlock, so grading children may write files");
        return;
    }
    int changed = -1;
    int rc = graded_writes("--quick", NULL, NULL, &changed);
    ck_assert_msg(rc == 0, "exit %d:\n%s", rc, shown());
    HAS("Score: 50/50");
    ck_assert_int_eq(changed, 0);
    ck_assert_ptr_null(strstr(out, "files are not guarded"));
    ck_assert_ptr_null(strstr(out, "no Landlock"));

    setenv("CUDA_LABS_NO_SANDBOX", "1", 1);
    rc = graded_writes("--quick", "--stage", "1", &changed);
    unsetenv("CUDA_LABS_NO_SANDBOX");
    ck_assert_msg(rc == 0, "exit %d:\n%s", rc, shown());
    ck_assert_int_eq(changed, 3);
}
END_TEST

/* A library that goes for what lies around the grading child: Check's
 * channel to the grading parent (bytes of its own there made the parent stop
 * before it wrote any result), a descriptor the grader's invoker left open
 * (Landlock does not cover it), and the terminal or CI log that shows its
 * output (escape sequences, a GitHub Actions command, a scoreboard). It gets
 * its marks, the file stays empty, and its output is shown as inert text. */
START_TEST(a_hostile_library_reaches_nothing_around_it)
{
    SKIP_UNLESS_READY();
    char path[700];
    snprintf(path, sizeof path, "%s/root/inherited-%ld", libdir, (long)getpid());
    int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0600);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(dup2(fd, 200), 200); /* no close-on-exec: the grader inherits it */
    close(fd);
    int rc = fake_grade("lab1", "hostile", "--quick", NULL, NULL, NULL);
    close(200);
    struct stat sb;
    ck_assert_int_eq(stat(path, &sb), 0);
    unlink(path);
    ck_assert_msg(rc == 0, "exit %d:\n%s", rc, shown());
    HAS("Score: 50/50");
    ck_assert_msg(sb.st_size == 0, "the library wrote %ld bytes through an inherited descriptor",
                  (long)sb.st_size);
    HAS("      | \\x1b[2J\\x1b[8m## [set-output name=result;]forged\\x0dScore: 999/999");
    ck_assert_msg(strchr(out, '\033') == NULL && strchr(out, '\r') == NULL &&
                      strstr(out, "##[") == NULL,
                  "raw control bytes or a runner command in:\n%s", shown());
}
END_TEST

/* Under a CUDA tool (the run that --sanitize starts, make profile's, or one
 * with an injection library set) the grader keeps the descriptors it was
 * started with: the tool's library in the grading children talks to the
 * tool through them (on the H200 every compute-sanitizer run failed when the
 * grader closed them). A library that writes through one reaches it there,
 * as the filter and the rules on files are off under a tool anyway. */
static long written_through_200(const char *a1, const char *a2)
{
    char path[700];
    snprintf(path, sizeof path, "%s/root/kept-%ld", libdir, (long)getpid());
    int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0600);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(dup2(fd, 200), 200);
    close(fd);
    setenv("FAKEGPU_HOSTILE", "fd", 1);
    int rc = fake_grade("lab1", "hostile", "--quick", "--stage", "1", a1 ? a1 : a2);
    unsetenv("FAKEGPU_HOSTILE");
    close(200);
    struct stat sb;
    ck_assert_int_eq(stat(path, &sb), 0);
    unlink(path);
    ck_assert_msg(rc == 0, "exit %d:\n%s", rc, shown());
    return (long)sb.st_size;
}

START_TEST(a_cuda_tool_keeps_its_descriptors)
{
    SKIP_UNLESS_READY();
    ck_assert_int_eq(written_through_200("--under-sanitizer", NULL), 1);
    setenv("CUDA_INJECTION64_PATH", "/nonexistent/injection.so", 1);
    long kept = written_through_200(NULL, NULL);
    unsetenv("CUDA_INJECTION64_PATH");
    ck_assert_int_eq(kept, 1);
    /* the control: without a tool, the descriptor is closed */
    ck_assert_int_eq(written_through_200(NULL, NULL), 0);
}
END_TEST

/* A driver that cannot start under the rules on files (it must write a file
 * they forbid): the run grades without them and says so in its header,
 * rather than failing every test with SETUP ERROR. */
START_TEST(a_driver_that_must_write_files_still_grades)
{
    SKIP_UNLESS_READY();
    if (sandbox_files_abi() == 0) {
        test_skip("fakegpu: this kernel has no Landlock");
        return;
    }
    char must[700];
    snprintf(must, sizeof must, "%s/root/driver-scratch", libdir);
    setenv("FAKEGPU_STARTS_BY_WRITING", must, 1);
    int rc = fake_grade("lab1", "good", "--quick", NULL, NULL, NULL);
    unsetenv("FAKEGPU_STARTS_BY_WRITING");
    unlink(must);
    ck_assert_msg(rc == 0, "exit %d:\n%s", rc, shown());
    HAS("files: NOT guarded: CUDA does not start on this machine under the rules that keep a "
        "submission from writing files (");
    HAS("so they are off for this run");
    HAS("Score: 50/50");
}
END_TEST

/* A driver that must write beneath /dev/shm to start: the run keeps every
 * other rule (the "writes" library changes no course file), says that
 * /dev/shm stays writable, and --json records it ("unguarded") for
 * grader/batch and --analyze. Under the strict rules of a run whose driver
 * needs nothing there, the same driver would not start. */
START_TEST(a_driver_that_needs_dev_shm_keeps_the_rest)
{
    SKIP_UNLESS_READY();
    if (sandbox_files_abi() == 0 || access("/dev/shm", W_OK) != 0) {
        test_skip("fakegpu: this kernel has no Landlock, or there is no /dev/shm");
        return;
    }
    char must[128], json_path[700];
    snprintf(must, sizeof must, "/dev/shm/cudalabs-fakedriver-%ld", (long)getpid());
    snprintf(json_path, sizeof json_path, "%s/root/shm.json", libdir);
    setenv("FAKEGPU_STARTS_BY_WRITING", must, 1);
    int changed = -1;
    int rc = graded_writes("--quick", "--json", json_path, &changed);
    unsetenv("FAKEGPU_STARTS_BY_WRITING");
    unlink(must);
    ck_assert_msg(rc == 0, "exit %d:\n%s", rc, shown());
    HAS("files: /dev/shm stays writable: CUDA does not start on this machine without it (");
    HAS("Score: 50/50");
    ck_assert_int_eq(changed, 0);
    ck_assert_ptr_null(strstr(out, "NOT guarded"));
    char text[8192] = "";
    FILE *f = fopen(json_path, "r");
    ck_assert_ptr_nonnull(f);
    size_t got = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    unlink(json_path);
    text[got] = '\0';
    ck_assert_msg(strstr(text, "\"unguarded\": \"/dev/shm writable: CUDA does not start without "
                               "it (") != NULL, "%s", text);
    /* and a run with nothing off records nothing */
    rc = fake_grade("lab1", "good", "--quick", "--json", json_path, NULL);
    f = fopen(json_path, "r");
    ck_assert_ptr_nonnull(f);
    got = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    unlink(json_path);
    text[got] = '\0';
    ck_assert_msg(rc == 0, "exit %d:\n%s", rc, shown());
    ck_assert_msg(strstr(text, "unguarded") == NULL, "%s", text);
}
END_TEST

Suite *make_fakegpu_suite(void)
{
    Suite *s = suite_create("fakegpu");
    TCase *tc = tcase_create("lab1");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, lab1_right_stages_pass);
    tcase_add_test(tc, lab1_wrong_stages_get_their_verdicts);
    tcase_add_test(tc, lab1_broken_stages_get_their_verdicts);
    tcase_add_test(tc, lab1_one_stage_json);
    tcase_add_test(tc, lab2_sums);
    tcase_add_test(tc, a_stage_timed_at_its_own_size);
    tcase_add_test(tc, a_threshold_that_follows_the_sm_count);
    tcase_add_test(tc, a_witness_that_cannot_start_costs_nothing);
    tcase_add_test(tc, lab5_host_witness_times_and_checks);
    tcase_add_test(tc, given_stages_from_the_course_copy);
    tcase_add_test(tc, children_cannot_change_the_course_files);
    tcase_add_test(tc, a_hostile_library_reaches_nothing_around_it);
    tcase_add_test(tc, a_cuda_tool_keeps_its_descriptors);
    tcase_add_test(tc, a_driver_that_must_write_files_still_grades);
    tcase_add_test(tc, a_driver_that_needs_dev_shm_keeps_the_rest);
    suite_add_tcase(s, tc);
    TCase *cc = tcase_create("capability");
    tcase_set_timeout(cc, 30); /* nothing is graded: a lab that made its inputs anyway would not fit */
    tcase_add_test(cc, stages_this_gpu_cannot_run);
    suite_add_tcase(s, cc);
    TCase *speed = tcase_create("speed");
    tcase_set_timeout(speed, 120);
    tcase_add_loop_test(speed, speed_verdicts, 0, N_SPEED_CASES);
    suite_add_tcase(s, speed);
    return s;
}
