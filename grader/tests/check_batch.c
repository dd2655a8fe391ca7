/* check_batch.c: grader/batch and the Slurm array from the outside. Every lab
 * is batch-graded over four submissions (the reference, the skeleton, one
 * that does not build, one without the lab file): with the GPU hidden, the
 * gradebook must say "not graded: no GPU" for the two that build, never a
 * score, and the batch must fail with one line; on a GPU (the GPU suite) the
 * reference gets full marks and the skeleton zero. A fake grader shows every
 * grader-side fault is booked as "not graded". grade-array.sbatch runs under
 * a real single-node Slurm where one can start (skipped, not passed, where
 * not). */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lab.h"
#include "../report.h"
#include "tests.h"

#define OUT_MAX (64 * 1024)

static char out[OUT_MAX];

#define HAS(text) ck_assert_msg(strstr(out, text) != NULL, "output lacks \"%s\":\n%s", text, out)
/* HAS, of a message formatted as printf does. */
#define HAS_F(...)                                 \
    do {                                           \
        char has_text_[2048];                      \
        snprintf(has_text_, sizeof has_text_, __VA_ARGS__); \
        HAS(has_text_);                            \
    } while (0)
#define BOOK_HAS(book, text) \
    ck_assert_msg(strstr(book, text) != NULL, "gradebook lacks \"%s\":\n%s", text, book)

/* The labs there are; with only_selected (on a GPU), those TEST_LABS selects
 * ("2,3") that this GPU can run (not lab 7 off compute capability 9.0). */
static int labs_of(int only_selected, const lab_spec **specs)
{
    const char *sel = getenv("TEST_LABS");
    int n = 0;
    for (int i = 0; i < lab_count && n < LAB_MAX; i++) {
        if (!lab_table[i]->available)
            continue;
        char num[8];
        snprintf(num, sizeof num, "%d", lab_table[i]->number);
        if (only_selected && ((sel && *sel && !strstr(sel, num)) ||
                              !test_lab_runs_here(lab_table[i])))
            continue;
        specs[n++] = lab_table[i];
    }
    return n;
}

static const char *here(void)
{
    static char cwd[256];
    if (!getcwd(cwd, sizeof cwd))
        strcpy(cwd, ".");
    return cwd;
}

/* DIR/subs/{reference/src,skeleton,broken,nofile} for one lab. */
static void make_submissions(const char *dir, const lab_spec *spec)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "set -e; cd %s && mkdir -p subs/reference/src subs/skeleton subs/broken subs/nofile && "
             "cp %s/solutions/%d-%s/%s.cu subs/reference/src/ && "
             "cp %s/labs/%d-%s/%s.cu subs/skeleton/ && "
             "echo 'this is not C++' > subs/broken/%s.cu && echo notes > subs/nofile/README",
             dir, here(), spec->number, spec->name, spec->name, here(),
             spec->number, spec->name, spec->name, spec->name);
    ck_assert_int_eq(system(cmd), 0);
}

/* grader/batch --lab N over DIR/subs into DIR/results; its exit status. The
 * environment: no make flags of the `make test` around us (ARCH=all would
 * build each student for six GPUs), and hide_gpu hides every GPU. */
static int run_batch(const char *dir, int lab, int hide_gpu, const char *grade, const char *timeout,
                     const char *stages)
{
    char subs[300], res[300], num[8];
    snprintf(subs, sizeof subs, "%s/subs", dir);
    snprintf(res, sizeof res, "%s/results", dir);
    snprintf(num, sizeof num, "%d", lab);
    char grade_env[400];
    snprintf(grade_env, sizeof grade_env, "GRADE=%s", grade ? grade : "");
    const char *env[] = {"MAKEFLAGS=", "MFLAGS=", "MAKELEVEL=", "ARCH=native", grade_env,
                         hide_gpu ? "CUDA_VISIBLE_DEVICES=-1" : NULL, NULL};
    char *argv[14] = {"grader/batch",        "--lab",  num, "--out", res, "--seed", "0x5",
                      "--timeout", (char *)(timeout ? timeout : "1800")};
    int n = 9;
    if (stages) {
        argv[n++] = "--stage";
        argv[n++] = (char *)stages;
    }
    argv[n++] = subs;
    argv[n] = NULL;
    return run_command(argv, env, out, sizeof out);
}

/* The gradebook has this line (printf's format and arguments). */
__attribute__((format(printf, 2, 3))) static void book_has_line(const char *book, const char *fmt,
                                                                ...)
{
    char line[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    BOOK_HAS(book, line);
}

static void read_book(const char *dir, char *book, size_t n)
{
    char path[400];
    snprintf(path, sizeof path, "%s/results/gradebook.csv", dir);
    ck_assert_msg(read_text(path, book, n) == 0, "no gradebook:\n%s", out);
    ck_assert_ptr_nonnull(strstr(book, "student,lab,score,max_score,status\n"));
}

/* The i-th lab (of all, or of TEST_LABS on a GPU) batch-graded over the four
 * submissions in a fresh dir, the exit status checked (1 when the GPU is
 * hidden: two students not graded; 0 on a GPU), the two that never reach the
 * grader checked in the gradebook. */
static const lab_spec *batch_of_four(int i, int hide_gpu, char *dir, int want_rc)
{
    const lab_spec *specs[LAB_MAX];
    labs_of(!hide_gpu, specs);
    const lab_spec *spec = specs[i];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    make_submissions(dir, spec);
    /* On a GPU, one stage: the first the students write that earns points
     * (the path is the same for every stage, and solutions_full_marks grades
     * them all). */
    char stage[16] = "";
    for (int s = 0; !hide_gpu && !stage[0] && s < spec->n_stages; s++)
        if (!spec->stages[s].given && spec->stages[s].points_correct > 0)
            snprintf(stage, sizeof stage, "%d", s);
    int rc = run_batch(dir, spec->number, hide_gpu, NULL, NULL, stage[0] ? stage : NULL);
    ck_assert_msg(rc == want_rc, "lab %d: exit %d:\n%s", spec->number, rc, out);
    static char book[8192];
    read_book(dir, book, sizeof book);
    book_has_line(book, "broken,lab%d,0,,build failed\n", spec->number);
    book_has_line(book, "nofile,lab%d,0,,no lab file\n", spec->number);
    return spec;
}

/* With the GPU hidden: the two that build are not graded, with the reason;
 * the two that do not are the students' own results. */
START_TEST(batch_without_gpu)
{
    char dir[] = "/tmp/cudalabs-batchXXXXXX";
    const lab_spec *spec = batch_of_four(_i, 1, dir, 1);
    HAS("seed 0x5 for every student");
    HAS("batch: 2 of 4 students not graded, for reasons not theirs (no GPU): "
        "fix the cause and grade them again\n");
    static char book[8192];
    read_book(dir, book, sizeof book);
    book_has_line(book, "reference,lab%d,,,not graded: no GPU\n", spec->number);
    book_has_line(book, "skeleton,lab%d,,,not graded: no GPU\n", spec->number);
    /* Nothing of a run that was not a grade is left for class analytics. */
    char json_path[400];
    snprintf(json_path, sizeof json_path, "%s/results/reference.json", dir);
    ck_assert_int_ne(access(json_path, F_OK), 0);
    /* The merge step (Slurm's last job) says the same and fails the same way. */
    char res[300];
    snprintf(res, sizeof res, "%s/results", dir);
    char num[8];
    snprintf(num, sizeof num, "%d", spec->number);
    char *merge[] = {"grader/batch", "--merge", "--lab", num, "--out", res, NULL};
    ck_assert_int_eq(run_command(merge, NULL, out, sizeof out), 1);
    HAS("2 of 4 students not graded");
    ck_assert_int_eq(remove_tree(dir), 0);
}
END_TEST

/* On a GPU, for real: the reference gets full marks, the skeleton none. */
START_TEST(batch_on_gpu)
{
    char dir[] = "/tmp/cudalabs-batchXXXXXX";
    const lab_spec *spec = batch_of_four(_i, 0, dir, 0);
    static char book[8192];
    read_book(dir, book, sizeof book);
    char *ref = strstr(book, "\nreference,");
    ck_assert_ptr_nonnull(ref);
    int got = -1, max = -1;
    char status[64] = "";
    ck_assert_int_eq(sscanf(ref, "\nreference,lab%*d,%d,%d,%63[^\n]", &got, &max, status), 3);
    ck_assert_msg(got == max && max > 0 && strcmp(status, "all passed") == 0,
                  "lab %d reference: %d/%d %s\n%s", spec->number, got, max, status, book);
    book_has_line(book, "skeleton,lab%d,0,%d,some tests failed\n", spec->number, max);
    fputs(book, stdout); /* the measured record */
    ck_assert_int_eq(remove_tree(dir), 0);
}
END_TEST

/* A fake grader behaves as the first line of the student's file says, so each
 * fault on the grader's side can be shown without a GPU: it crashes, hangs,
 * writes no results, or cannot load its reference library (a SETUP ERROR of
 * the grader's); a SETUP ERROR of the student's is graded; and the real
 * grader's refusals before grading (a stage function missing, a library
 * REJECTED) are the student's 0, as a failed build is. */
static const char fake_grade[] =
    "#!/bin/sh\n"
    "json=\n"
    "while [ $# -gt 0 ]; do [ \"$1\" = --json ] && json=$2; shift; done\n"
    "case \"$(head -n 1 \"$(dirname \"$0\")/labs/2-reduce/reduce.cu\")\" in\n"
    "  *crash*) kill -SEGV $$ ;;\n"
    "  *killed*) kill -KILL $$ ;;\n"
    "  *hang*) exec sleep 60 ;;\n"
    "  *silent*) exit 0 ;;\n"
    "  *ceiling*) v='SETUP ERROR' score=0 code=1 fault=grader\n"
    "     m='cannot load /w/build/ceilings/lab2.so (No such file, or worse): run make again' ;;\n"
    "  *renamed*) v='SETUP ERROR' score=30 code=1 fault=submission\n"
    "     m='the lab library has no function reduce_interleaved() (stage 1)' ;;\n"
    "  *hidesgpu*) v='SETUP ERROR' score=0 code=1 fault=submission\n"
    "     m='could not allocate the input buffer: cudaErrorMemoryAllocation (out of memory). "
    "This happened after your library was loaded' ;;\n"
    "  *nofunc*) echo 'grade: /w/build/lab2.so has no function reduce_interleaved() (stage 1). "
    "It is declared in labs/2-reduce/reduce.h: was it renamed, made static, or not compiled as "
    "extern \"C\"? Rebuild with `make lab2`.' >&2; exit 1 ;;\n"
    "  *prerejected*) printf 'grade: /w/build/lab2.so is REJECTED: it calls cublasSgemm, from "
    "cuBLAS, which this lab has you write.\\nNothing was graded.\\n'; exit 1 ;;\n"
    "  *wronglib*) exec \"$CUDA_LABS_REAL_GRADE\" lab2 --lib \"$CUDA_LABS_OTHER_LIB\" --json "
    "\"$json\" ;;\n"
    "  *ghostfunc*) echo 'grade: /w/build/lab2.so has no function reduce_imaginary() (stage 1). "
    "Rebuild with `make lab2`.' >&2; exit 1 ;;\n"
    "  *latestage*) echo 'grade: /w/build/lab2.so has no function reduce_many() (stage 7). "
    "Rebuild with `make lab2`.' >&2; exit 1 ;;\n"
    "  *ctrlbytes*) printf 'grade: /w/build/lab2.so is REJECTED: it calls cu\\015da\\033[2J\\377X(), "
    "from the driver, \\042quoted\\042.\\nNothing was graded.\\n'; exit 1 ;;\n"
    "  *mixedup*) printf 'grade: /w/build/lab2.so is REJECTED: it calls cudaMallocZ has no "
    "function reduce_imaginary() (stage 1)().\\nNothing was graded.\\n'; exit 1 ;;\n"
    "  *afterheader*) printf 'CUDA Labs grader\\ngrade: /w/build/lab2.so has no function "
    "reduce_interleaved() (stage 1).\\n'; exit 1 ;;\n"
    "  *indented*) echo '      | grade: /w/build/lab2.so has no function f() (stage 1).'; "
    "exit 1 ;;\n"
    "  *tamper*) echo '# changed' >> \"$CUDA_LABS_COURSE_FILE\"; v=FAIL score=30 code=1 "
    "fault=submission m='a stage that wrote a course file' ;;\n"
    "  *unguarded*) exec \"$CUDA_LABS_REAL_GRADE\" --from \"$CUDA_LABS_FIXTURE3\" --json \"$json\" ;;\n"
    "  *realfault*) exec \"$CUDA_LABS_REAL_GRADE\" --from \"$CUDA_LABS_FIXTURE2\" --json \"$json\" ;;\n"
    "  *real*) exec \"$CUDA_LABS_REAL_GRADE\" --from \"$CUDA_LABS_FIXTURE\" --json \"$json\" ;;\n"
    "  *) exit 3 ;;\n"
    "esac\n"
    "printf '{\"seed\": \"0x5\", \"labs\": [\\n  {\"lab\": 2, \"stages\": [\\n    {\"stage\": 1, "
    "\"correctness\": {\"verdict\": \"%s\", \"message\": \"%s\", \"points\": 0, \"max_points\": "
    "10, \"fault\": \"%s\"}}]}],\\n \"score\": %s, \"max_score\": 110}\\n' \"$v\" \"$m\" "
    "\"$fault\" \"$score\" > \"$json\"\n"
    "exit $code\n";

/* DIR/subs/STUDENT/reduce.cu: lab 2's skeleton under a first line that tells
 * the fake grader what to do. */
static void fake_submission(const char *dir, const char *student, const char *kind)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "set -e; mkdir -p %s/subs/%s && { echo '// %s'; cat labs/2-reduce/reduce.cu; } "
             "> %s/subs/%s/reduce.cu",
             dir, student, kind, dir, student);
    ck_assert_int_eq(system(cmd), 0);
}

/* The fake grader, written to DIR/fake-grade (its path into grade). */
static void write_fake_grade(const char *dir, char *grade, size_t n)
{
    snprintf(grade, n, "%s/fake-grade", dir);
    FILE *f = fopen(grade, "w");
    ck_assert_ptr_nonnull(f);
    fputs(fake_grade, f);
    fclose(f);
    ck_assert_int_eq(chmod(grade, 0755), 0);
}

START_TEST(batch_books_grader_faults)
{
    char dir[] = "/tmp/cudalabs-batchXXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    const char *kinds[] = {"crash",   "killed", "hang",      "silent",    "ceiling",
                           "renamed", "hidesgpu", "odd",     "real",      "realfault",
                           "nofunc",  "prerejected", "indented", "wronglib"};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        fake_submission(dir, kinds[i], kinds[i]);
    char grade[400];
    write_fake_grade(dir, grade, sizeof grade);
    FILE *f;
    /* "real": the results file as the grader writes it (./grade --from a
     * recorded run, 40 of 70 points), so the batch reads the real format. */
    char fixture[400], real[4096];
    snprintf(fixture, sizeof fixture, "%s/fixture.json", dir);
    static lab_results res;
    fixture_results(&res);
    extern const lab_spec lab_transpose;
    const lab_spec *specs[] = {&lab_transpose};
    f = fopen(fixture, "w");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(report_json_run(f, specs, &res, 1, NULL, 0x5, NULL, 1.5, NULL), 0);
    fclose(f);
    /* "realfault": the same run with a SETUP ERROR of the grader's in stage 1
     * (before the library was loaded), in the real format. */
    char fixture2[400];
    snprintf(fixture2, sizeof fixture2, "%s/fixture2.json", dir);
    static lab_results res2;
    fixture_results(&res2);
    res2.t[1][TEST_CORRECT].v = V_SETUP_ERROR; /* stage 1 passed in the first */
    res2.t[1][TEST_CORRECT].fault = FAULT_GRADER;
    snprintf(res2.t[1][TEST_CORRECT].msg, sizeof res2.t[1][TEST_CORRECT].msg,
             "could not start CUDA: cudaErrorNoDevice (no \"CUDA-capable\" device)");
    f = fopen(fixture2, "w");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(report_json_run(f, specs, &res2, 1, NULL, 0x5, NULL, 1.5, NULL), 0);
    fclose(f);
    setenv("CUDA_LABS_FIXTURE2", fixture2, 1);
    ck_assert_ptr_nonnull(realpath(grade_path(), real));
    setenv("CUDA_LABS_REAL_GRADE", real, 1);
    setenv("CUDA_LABS_FIXTURE", fixture, 1);
    /* "wronglib": the real grader given lab 1's library as lab 2's, which
     * it refuses before grading, in its own words. */
    char other[4096];
    ck_assert_ptr_nonnull(realpath("build/lab1.so", other));
    setenv("CUDA_LABS_OTHER_LIB", other, 1);
    int rc = run_batch(dir, 2, 1, grade, "10", NULL);
    ck_assert_msg(rc == 1, "exit %d:\n%s", rc, out);
    static char book[8192];
    read_book(dir, book, sizeof book);
    BOOK_HAS(book, "crash,lab2,,,not graded: the grader crashed (signal 11)\n");
    BOOK_HAS(book, "hang,lab2,,,not graded: the grader ran past --timeout (10 s)\n");
    BOOK_HAS(book, "killed,lab2,,,\"not graded: the grader was killed (signal 9: still running 30 s "
                   "after --timeout (10 s), or out of memory)\"\n");
    BOOK_HAS(book, "silent,lab2,,,not graded: the grader wrote no results (exit 0)\n");
    BOOK_HAS(book, "ceiling,lab2,,,\"not graded: SETUP ERROR on the grader's side: cannot load "
                   "/w/build/ceilings/lab2.so (No such file, or worse): run make again\"\n");
    BOOK_HAS(book, "odd,lab2,,,not graded: the grader failed (exit 3)\n");
    BOOK_HAS(book, "renamed,lab2,30,110,some tests failed\n");
    BOOK_HAS(book, "hidesgpu,lab2,0,110,some tests failed\n"); /* the submission's doing */
    BOOK_HAS(book, "realfault,lab2,,,\"not graded: SETUP ERROR on the grader's side: could not "
                   "start CUDA: cudaErrorNoDevice (no \\\"\"CUDA-capable\\\"\" device)\"\n");
    BOOK_HAS(book, "real,lab2,40,70,some tests failed\n");
    /* The real grader's refusals before grading, a missing stage function or
     * a REJECTED library, are the submission's, like a failed build: 0. A
     * stage's output, which the grader shows indented, is not a refusal. */
    BOOK_HAS(book, "nofunc,lab2,0,,refused before grading: the library has no function "
                   "reduce_interleaved() (stage 1)\n");
    BOOK_HAS(book, "prerejected,lab2,0,,\"refused before grading: REJECTED: it calls "
                   "cublasSgemm, from cuBLAS, which this lab has you write.\"\n");
    BOOK_HAS(book, "indented,lab2,,,not graded: the grader wrote no results (exit 1)\n");
    BOOK_HAS(book, "wronglib,lab2,0,,refused before grading: the library has no function "
                   "reduce_one_block() (stage 0)\n");
    /* One line at the end, each reason once. */
    HAS("batch: 8 of 14 students not graded, for reasons not theirs");
    char *last = strstr(out, "not graded, for reasons not theirs");
    ck_assert_ptr_nonnull(last);
    ck_assert_ptr_null(strstr(last + 1, "not graded, for reasons not theirs"));
    ck_assert_int_eq(remove_tree(dir), 0);
}
END_TEST

/* Whose a refusal before grading is: the student's 0 when the function is
 * in the lab's header (also with control bytes and invalid UTF-8 in the
 * message, which become '?', and a quote, which the CSV escapes); the
 * grader's when the header does not declare it (a grader built from other
 * sources) or its stage is not one --stage grades, or when the line came
 * after the grader's header (student code may have run by then). Which of
 * the two texts comes first after the path decides. */
START_TEST(batch_books_refusals)
{
    char dir[] = "/tmp/cudalabs-batchXXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    const char *kinds[] = {"nofunc", "ghostfunc", "latestage", "ctrlbytes", "afterheader",
                           "mixedup"};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        fake_submission(dir, kinds[i], kinds[i]);
    char grade[400];
    write_fake_grade(dir, grade, sizeof grade);
    int rc = run_batch(dir, 2, 1, grade, "10", "1,2");
    ck_assert_msg(rc == 1, "exit %d:\n%s", rc, out);
    static char book[8192];
    read_book(dir, book, sizeof book);
    BOOK_HAS(book, "nofunc,lab2,0,,refused before grading: the library has no function "
                   "reduce_interleaved() (stage 1)\n");
    BOOK_HAS(book, "ghostfunc,lab2,,,\"not graded: the grader wants reduce_imaginary() (stage "
                   "1), which the lab's header in the students' trees does not declare: it was "
                   "built from other sources than this checkout's (GRADE= names another grader?): "
                   "grade with the one this checkout builds\"\n");
    BOOK_HAS(book, "latestage,lab2,,,\"not graded: the library has no function reduce_many() "
                   "(stage 7), a stage --stage 1,2 does not grade, and ./grade checks every "
                   "stage's function: ask for it back (the skeleton's stub will do), or grade "
                   "without --stage\"\n");
    BOOK_HAS(book, "ctrlbytes,lab2,0,,\"refused before grading: REJECTED: it calls cu?da?[2J?X(), "
                   "from the driver, \"\"quoted\"\".\"\n");
    BOOK_HAS(book, "afterheader,lab2,,,not graded: the grader wrote no results (exit 1)\n");
    /* A symbol name in a REJECTED message that reads like a missing function
     * (here, one the header does not declare) is still the REJECTED. */
    BOOK_HAS(book, "mixedup,lab2,0,,refused before grading: REJECTED: it calls cudaMallocZ has no "
                   "function reduce_imaginary() (stage 1)().\n");
    HAS("batch: 3 of 6 students not graded, for reasons not theirs");
    ck_assert_int_eq(remove_tree(dir), 0);
}
END_TEST

/* A small course of its own (this batch script, a Makefile, lab 2's files).
 * Its grader, built from the course's folder, wants to find in the
 * student's tree the header it was built from, the file with a space in its
 * name, no results folder, and no untracked file (unless the course is not a
 * git checkout: .not-git). A first line "// tamper MAKEFILE TOP MARKER" in
 * the student's file makes its grading append to the course's Makefile and
 * set an fsmonitor hook in the checkout at TOP that would touch MARKER;
 * "// rmtmp" makes it remove the batch's $TMPDIR. */
static const char course_makefile[] =
    "grade: labs/2-reduce/reduce.h grader/mkgrade\n"
    "\tsh grader/mkgrade\n"
    "build/ceilings/devcheck.so:\n"
    "\tmkdir -p build/ceilings && echo dev > $@\n"
    "build/lab2.so: labs/2-reduce/reduce.cu\n"
    "\tmkdir -p build && grep -q -v broken labs/2-reduce/reduce.cu && cp labs/2-reduce/reduce.cu $@\n";
static const char course_mkgrade[] =
    "h=$(cksum < labs/2-reduce/reduce.h)\n"
    "{ echo '#!/bin/sh'; echo \"want='$h'\"; cat grader/grade.in; } > grade && chmod +x grade\n";
static const char course_grade_in[] =
    "here=$(dirname \"$0\")\n"
    "set -- $(head -n 1 \"$here/labs/2-reduce/reduce.cu\") \"$@\"\n"
    "if [ \"$2\" = tamper ]; then\n"
    "  echo 'all: ; true' >> \"$3\"\n"
    "  printf '#!/bin/sh\\ntouch %s\\n' \"$5\" > \"$4/.git/fsm\" && chmod +x \"$4/.git/fsm\"\n"
    "  git -C \"$4\" config core.fsmonitor \"$4/.git/fsm\"\n"
    "fi\n"
    "rmtmp=$2\n"
    "while [ $# -gt 0 ]; do [ \"$1\" = --json ] && json=$2; shift; done\n"
    "[ \"$(cksum < \"$here/labs/2-reduce/reduce.h\")\" = \"$want\" ] || "
    "{ echo 'grade: the header is not the one I was built from'; exit 1; }\n"
    "[ -f \"$here/labs/2-reduce/data file.txt\" ] || { echo 'grade: a course file is missing'; "
    "exit 1; }\n"
    "[ ! -e \"$here/notes.txt\" ] || [ -e \"$here/.not-git\" ] || "
    "{ echo 'grade: an untracked file came along'; exit 1; }\n"
    "[ ! -e \"$here/results\" ] || { echo 'grade: the results came along'; exit 1; }\n"
    "[ ! -e \"$here/subs\" ] || { echo 'grade: the submissions came along'; exit 1; }\n"
    "[ ! -e \"$here/class.csv\" ] || { echo 'grade: the class list came along'; exit 1; }\n"
    "[ \"$rmtmp\" != hang ] || sleep 30\n"
    "printf '{\"labs\": [],\\n \"score\": 7, \"max_score\": 7}\\n' > \"$json\"\n"
    "[ \"$rmtmp\" != rmtmp ] || rm -rf \"$TMPDIR\"\n";

static void write_course_file(const char *dir, const char *name, const char *text)
{
    char path[400];
    snprintf(path, sizeof path, "%s/course/%s", dir, name);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(fputs(text, f) >= 0, 1);
    ck_assert_int_eq(fclose(f), 0);
}

/* DIR/course (committed to a git checkout of its own when in_git) and the
 * submissions DIR/subs/NAME/reduce.cu, NAME:FIRST-LINE each. The lab's
 * skeleton is a link to a file elsewhere in the course, which no student's
 * file may write through. */
static void make_course(const char *dir, int in_git, const char *const *subs, int n_subs)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "set -e; mkdir -p %s/course/grader %s/course/labs/2-reduce %s/subs && cp grader/batch "
             "%s/course/grader/",
             dir, dir, dir, dir);
    ck_assert_int_eq(system(cmd), 0);
    for (int i = 0; i < n_subs; i++) {
        const char *colon = strchr(subs[i], ':');
        snprintf(cmd, sizeof cmd, "set -e; cd %s/subs && mkdir %.*s && echo '%s' > %.*s/reduce.cu",
                 dir, (int)(colon - subs[i]), subs[i], colon + 1, (int)(colon - subs[i]), subs[i]);
        ck_assert_int_eq(system(cmd), 0);
    }
    write_course_file(dir, "Makefile", course_makefile);
    write_course_file(dir, "grader/mkgrade", course_mkgrade);
    write_course_file(dir, "grader/grade.in", course_grade_in);
    write_course_file(dir, "labs/2-reduce/reduce.h", "int reduce_one_block(void);\n");
    write_course_file(dir, "shared.cu", "// skeleton\n");
    snprintf(cmd, sizeof cmd, "ln -s %s/course/shared.cu %s/course/labs/2-reduce/reduce.cu", dir,
             dir);
    ck_assert_int_eq(system(cmd), 0);
    write_course_file(dir, "labs/2-reduce/data file.txt", "data\n");
    write_course_file(dir, "labs/2-reduce/old.txt", "old\n");
    write_course_file(dir, ".gitignore", "/build/\n/grade\n");
    if (in_git) {
        snprintf(cmd, sizeof cmd,
                 "set -e; cd %s/course && git init -q . && git add -A && "
                 "git -c user.name=t -c user.email=t@example.org commit -q -m course",
                 dir);
        ck_assert_int_eq(system(cmd), 0);
    } else {
        write_course_file(dir, ".not-git", "");
    }
}

/* A shell command, formatted as printf does, that must succeed. */
static void shell(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void shell(const char *fmt, ...)
{
    char cmd[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    ck_assert_msg(system(cmd) == 0, "failed: %s", cmd);
}

/* A fresh temporary DIR with make_course's course in it, and RES, DIR/results
 * (where the course tests put the results unless they say otherwise). */
static void new_course(char dir[static 32], char res[static 300], int in_git,
                       const char *const *subs, int n_subs)
{
    strcpy(dir, "/tmp/cudalabs-batchXXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    make_course(dir, in_git, subs, n_subs);
    snprintf(res, 300, "%s/results", dir);
}

/* DIR/course/grader/batch --lab 2 --out RESULTS [--only K] over DIR/subs, or
 * over DIR/course/subs where the submissions were moved into the course. */
static int run_course_batch(const char *dir, const char *results, const char *only)
{
    char batch[300], subs[300];
    snprintf(batch, sizeof batch, "%s/course/grader/batch", dir);
    snprintf(subs, sizeof subs, "%s/course/subs", dir);
    if (access(subs, F_OK) != 0)
        snprintf(subs, sizeof subs, "%s/subs", dir);
    char *argv[12] = {batch, "--lab", "2", "--out", (char *)results, "--seed", "0x5"};
    int n = 7;
    if (only) {
        argv[n++] = "--only";
        argv[n++] = (char *)only;
    }
    argv[n++] = subs;
    argv[n] = NULL;
    const char *env[] = {"MAKEFLAGS=", "MFLAGS=", "MAKELEVEL=", "GRADE=", NULL};
    return run_command(argv, env, out, sizeof out);
}

/* DIR/course/grader/batch --lab 2 --out RESULTS --student NAME over DIR/subs. */
static int run_course_batch_student(const char *dir, const char *results, const char *name)
{
    char batch[300], subs[300];
    snprintf(batch, sizeof batch, "%s/course/grader/batch", dir);
    snprintf(subs, sizeof subs, "%s/subs", dir);
    char *argv[] = {batch,    "--lab",         "2",   "--out", (char *)results, "--seed", "0x5",
                    "--student", (char *)name, subs, NULL};
    const char *env[] = {"MAKEFLAGS=", "MFLAGS=", "MAKELEVEL=", "GRADE=", NULL};
    return run_command(argv, env, out, sizeof out);
}

/* run_course_batch with its exit status checked against WANT, then
 * RESULTS/gradebook.csv read into BOOK. */
static void course_book(const char *dir, const char *results, const char *only, int want,
                        char *book, size_t n)
{
    int rc = run_course_batch(dir, results, only);
    ck_assert_msg(rc == want, "exit %d:\n%s", rc, out);
    char path[400];
    snprintf(path, sizeof path, "%s/gradebook.csv", results);
    ck_assert_msg(read_text(path, book, n) == 0, "no gradebook:\n%s", out);
}

/* In a git checkout with changes not yet committed (a header edited, a file
 * deleted, untracked files), every student is graded in the course's
 * tracked files as they are now, so an instructor's uncommitted change
 * cannot set the grader against the students' trees, and the batch names
 * what it leaves out. A student whose grading writes one of those files
 * (the Makefile) is the last one graded, in this batch and in a later task
 * of the same batch (--only), and the fsmonitor hook that grading set in the
 * checkout never runs. */
START_TEST(batch_grades_in_the_checkouts_files)
{
    char dir[32], res[300], tamper[600];
    /* The name is known before the folder is made: mkdtemp's six letters. */
    const char *subs[] = {"amy:// student", tamper, "cat:// student"};
    strcpy(dir, "/tmp/cudalabs-batchXXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(tamper, sizeof tamper, "bea:// tamper %s/course/Makefile %s/course %s/hook-ran", dir,
             dir, dir);
    make_course(dir, 1, subs, 3);
    snprintf(res, sizeof res, "%s/results", dir);
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "set -e; cd %s/course && echo 'int reduce_two(void);' >> labs/2-reduce/reduce.h && "
             "rm labs/2-reduce/old.txt && echo mine > notes.txt && echo x > labs/2-reduce/extra.h",
             dir);
    ck_assert_int_eq(system(cmd), 0);
    char hook[300];
    snprintf(hook, sizeof hook, "%s/hook-ran", dir);
    static char book[4096];
    course_book(dir, res, NULL, 1, book, sizeof book);
    HAS("batch: the course's files differ from its last commit (labs/2-reduce/old.txt "
        "labs/2-reduce/reduce.h): the grader is built from them as they are now, and every "
        "student is graded in a copy of them as they are now");
    HAS("batch: tracked by git but not in this checkout (deleted, or outside a sparse checkout), "
        "so not in the students' trees: labs/2-reduce/old.txt\n");
    HAS("batch: not tracked by git, so not in the students' trees: labs/2-reduce/extra.h "
        "notes.txt (git add any the lab needs)\n");
    BOOK_HAS(book, "amy,lab2,7,7,all passed\n");
    /* bea's grading wrote the course's Makefile, which the students after
     * her would be built with: none of them is graded. */
    BOOK_HAS(book, "bea,lab2,7,7,all passed\n");
    BOOK_HAS(book, "cat,lab2,,,\"not graded: the course's files (Makefile) changed during the "
                   "batch, after bea was graded: a submission may have written them. Rebuild "
                   "them and grade the rest again\"\n");
    /* A later task of the batch, as a Slurm array runs it, after bea's. */
    int rc = run_course_batch(dir, res, "2");
    ck_assert_msg(rc == 1, "exit %d:\n%s", rc, out);
    char line[1024];
    snprintf(line, sizeof line,
             "not graded: the course's files (Makefile) differ from what the batch's first task "
             "found (%s/course.sums): a submission graded in an earlier task may have written "
             "them. If you changed them yourself, remove %s/course.sums and grade every student "
             "again\n",
             res, res);
    HAS(line);
    ck_assert_msg(access(hook, F_OK) != 0, "the fsmonitor hook ran:\n%s", out);
    /* The Makefile deleted from the checkout, with git still tracking it:
     * the batch says how to bring it back. */
    shell("rm %s/course/Makefile", dir);
    rc = run_course_batch(dir, res, NULL);
    ck_assert_msg(rc == 2, "exit %d:\n%s", rc, out);
    HAS_F("batch: Makefile is tracked by git but missing from the course's checkout (%s/course): "
          "restore it with git -C '%s/course' checkout -- 'Makefile'\n",
          dir, dir);
    ck_assert_int_eq(remove_tree(dir), 0);
}
END_TEST

/* When the lab's own skeleton does not build in a student's tree (here its
 * rule needs a file git does not track), no failed build is the student's:
 * they are "not graded". */
START_TEST(batch_books_a_course_that_does_not_build)
{
    char dir[32], res[300];
    const char *subs[] = {"amy:// broken", "bob:// broken"};
    new_course(dir, res, 1, subs, 2);
    char cmd[1024];
    shell("set -e; cd %s/course && echo x > labs/2-reduce/util.h && "
          "sed -i 's|^build/lab2.so: labs/2-reduce/reduce.cu|& labs/2-reduce/util.h|; "
          "s|&& cp labs|\\&\\& cp labs/2-reduce/util.h build/ \\&\\& cp labs|' Makefile && "
          "git -c user.name=t -c user.email=t@example.org commit -q -m util Makefile",
          dir);
    static char book[4096];
    course_book(dir, res, NULL, 1, book, sizeof book);
    char line[1024];
    snprintf(line, sizeof line,
             "amy,lab2,,,not graded: the course's own labs/2-reduce/reduce.cu does not build in "
             "a student's tree either (see %s/skeleton-build.log): does the copy lack files the "
             "lab needs? (the batch's first lines name the files it leaves out)\n",
             res);
    BOOK_HAS(book, line);
    BOOK_HAS(book, "bob,lab2,,,not graded: the course's own");
    HAS("batch: not tracked by git, so not in the students' trees: labs/2-reduce/util.h");
    /* Tracked, the file reaches the students, and a broken file is theirs. */
    snprintf(cmd, sizeof cmd, "cd %s/course && git add labs/2-reduce/util.h", dir);
    ck_assert_int_eq(system(cmd), 0);
    course_book(dir, res, NULL, 0, book, sizeof book);
    BOOK_HAS(book, "amy,lab2,0,,build failed\n");
    BOOK_HAS(book, "bob,lab2,0,,build failed\n");
    ck_assert_int_eq(remove_tree(dir), 0);
}
END_TEST

/* A grading that removes the batch's temporary folder (where each student's
 * tree is made, and the batch's own lists): the students after it are "not
 * graded", each with a status, and nothing of an earlier batch remains. */
START_TEST(batch_books_a_lost_temporary_folder)
{
    char dir[32], res[300], tmp[300];
    const char *subs[] = {"amy:// rmtmp", "bob:// student", "cat:// student"};
    new_course(dir, res, 1, subs, 3);
    snprintf(tmp, sizeof tmp, "%s/tmp", dir);
    ck_assert_int_eq(mkdir(tmp, 0700), 0);
    setenv("TMPDIR", tmp, 1);
    static char book[4096];
    course_book(dir, res, NULL, 1, book, sizeof book);
    unsetenv("TMPDIR");
    BOOK_HAS(book, "amy,lab2,7,7,all passed\n");
    char line[1024];
    snprintf(line, sizeof line,
             "bob,lab2,,,\"not graded: the course's files could not be copied to a new folder in "
             "%s (is it full, or gone? see %s/bob.log)\"\n",
             tmp, res);
    BOOK_HAS(book, line);
    BOOK_HAS(book, "cat,lab2,,,\"not graded: the course's files could not be copied");
    ck_assert_int_eq(remove_tree(dir), 0);
}
END_TEST

/* A course that is not a git checkout: every file but the build's, the
 * results and the submissions (here all inside the course) reaches the
 * students' trees. An --only past the class is refused with the count.
 * Inside a git checkout that does not track it, the batch refuses to start,
 * and a Slurm array task books its student "not graded" first, so that the
 * merged gradebook still has them. */
START_TEST(batch_grades_a_course_outside_git)
{
    char dir[32], res[300], cmd[1200];
    const char *subs[] = {"amy:// student", "bob:// student"};
    new_course(dir, res, 0, subs, 2);
    write_course_file(dir, "notes.txt", "mine\n");
    snprintf(res, sizeof res, "%s/course/results", dir);
    shell("mv %s/subs %s/course/subs", dir, dir);
    static char book[4096];
    course_book(dir, res, NULL, 0, book, sizeof book);
    BOOK_HAS(book, "amy,lab2,7,7,all passed\n");
    BOOK_HAS(book, "bob,lab2,7,7,all passed\n");
    char skeleton[400], path[400];
    snprintf(path, sizeof path, "%s/course/shared.cu", dir);
    ck_assert_int_eq(read_text(path, skeleton, sizeof skeleton), 0);
    ck_assert_str_eq(skeleton, "// skeleton\n");
    int rc = run_course_batch(dir, res, "2");
    ck_assert_msg(rc == 2, "exit %d:\n%s", rc, out);
    snprintf(cmd, sizeof cmd,
             "batch: --only 2: this batch's class (%s/class.list) has 2 students, numbered from 0 "
             "(is the Slurm array's range --array=0-<count-1>?)\n",
             res);
    HAS(cmd);
    snprintf(cmd, sizeof cmd, "cd %s && git init -q .", dir);
    ck_assert_int_eq(system(cmd), 0);
    rc = run_course_batch(dir, res, NULL);
    ck_assert_msg(rc == 2, "exit %d:\n%s", rc, out);
    const char *tmp = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    char why[1000];
    snprintf(why, sizeof why,
             "Makefile is not among the course's files to copy for each student (or %s was too "
             "full to list them): in a git checkout only the files git tracks are copied (this "
             "checkout's top is %s): add and commit the course's files there, or grade from a "
             "copy of the course outside any git checkout",
             tmp, dir);
    snprintf(cmd, sizeof cmd, "batch: %s\n", why);
    HAS(cmd);
    /* A task after the first (whose sums had the Makefile) says so too, and
     * books its student, whose result from before is set aside. */
    rc = run_course_batch(dir, res, "1");
    ck_assert_msg(rc == 2, "exit %d:\n%s", rc, out);
    HAS(why);
    snprintf(cmd, sizeof cmd,
             "batch: bob booked \"not graded: the batch could not start\" (their earlier files: "
             "%s/earlier-",
             res);
    HAS(cmd);
    snprintf(cmd, sizeof cmd,
             "outside any git checkout. It was there when the batch's first task began "
             "(%s/course.sums): if no one changed the course since, a submission graded in an "
             "earlier task may have removed it\n",
             res);
    HAS(cmd);
    char batch[300];
    snprintf(batch, sizeof batch, "%s/course/grader/batch", dir);
    char *merge[] = {batch, "--lab", "2", "--out", res, "--merge", NULL};
    rc = run_command(merge, NULL, out, sizeof out);
    ck_assert_msg(rc == 1, "exit %d:\n%s", rc, out);
    snprintf(path, sizeof path, "%s/gradebook.csv", res);
    ck_assert_int_eq(read_text(path, book, sizeof book), 0);
    BOOK_HAS(book, "amy,lab2,7,7,all passed\n");
    snprintf(cmd, sizeof cmd, "bob,lab2,,,\"not graded: the batch could not start: %s. It was there",
             why);
    BOOK_HAS(book, cmd);
    snprintf(path, sizeof path, "%s/bob.json", res);
    ck_assert_msg(access(path, F_OK) != 0, "bob's earlier result is still beside his status");
    shell("ls %s/earlier-*/bob.json > /dev/null", res);
    ck_assert_int_eq(remove_tree(dir), 0);
}
END_TEST

/* DIR/course/grader/batch --lab 2 with ARGS (NULL-ended, at most 8). */
static int course_batch_args(const char *dir, const char *const *args)
{
    char batch[300];
    snprintf(batch, sizeof batch, "%s/course/grader/batch", dir);
    char *argv[12] = {batch, "--lab", "2"};
    int n = 3;
    for (; *args && n < 11; args++)
        argv[n++] = (char *)*args;
    argv[n] = NULL;
    const char *env[] = {"MAKEFLAGS=", "MFLAGS=", "MAKELEVEL=", "GRADE=", NULL};
    return run_command(argv, env, out, sizeof out);
}

/* course_batch_args, whose exit status must be WANT. */
static void course_batch_expect(const char *dir, const char *const *args, int want)
{
    int rc = course_batch_args(dir, args);
    ck_assert_msg(rc == want, "exit %d, not %d:\n%s", rc, want, out);
}

/* What an instructor may get wrong, each refused before anyone is graded
 * (nothing half done, no student lost) or read as meant: --only with no
 * number, --only 01, a CSV line with no usable name or a name given twice,
 * the course itself as the submissions, the results inside the
 * submissions, and the submissions inside the course reached through a
 * link. */
START_TEST(batch_reads_what_it_is_given_with_care)
{
    char dir[32], res[300], arg[400], cmd[1200];
    const char *subs[] = {"amy:// student", "bob:// student"};
    new_course(dir, res, 0, subs, 2);
    snprintf(arg, sizeof arg, "%s/subs", dir);
    const char *no_value[] = {"--out", res, "--only", "", arg, NULL};
    ck_assert_int_eq(course_batch_args(dir, no_value), 2);
    HAS("batch: --only needs a value (grader/batch --help)\n");
    const char *leading_zero[] = {"--out", res, "--seed", "0x5", "--only", "01", arg, NULL};
    int rc = course_batch_args(dir, leading_zero);
    ck_assert_msg(rc == 0, "exit %d:\n%s", rc, out);
    HAS("batch: bob: all passed\n");
    ck_assert_ptr_null(strstr(out, "amy:"));
    static const char *const csvs[][2] = {
        {"amy,/x/a\n,/x/b\n", "\",/x/b\" (no usable student name before the comma)"},
        {"amy,/x/a\n../bob,/x/b\n", "\"../bob,/x/b\" (no usable student name before the comma)"},
        {"amy,/x/a\n amy ,/x/b\n", "\" amy ,/x/b\" (amy is named twice)"},
        {"Student, git_url\n.amy,/x/a\n", "\".amy,/x/a\" (a name that starts with a dot)"},
        {"amy\tlee,/x/a\n", "\"amy\\tlee,/x/a\" (a tab in the line)"},
        {"amy, \n", "\"amy, \" (no git URL after the comma)"},
        {"grader-build,/x/a\n", "\"grader-build,/x/a\" (grader-build is a name of the batch's own logs)"},
        {"\"Lee, Amy\",/x/a\n", "\"\"Lee, Amy\",/x/a\" (quotes: a quoted name or URL is not read as one field; write it without quotes, and a name without commas)"},
    };
    for (int i = 0; i < 8; i++) {
        snprintf(arg, sizeof arg, "%s/class.csv", dir);
        FILE *f = fopen(arg, "w");
        ck_assert_ptr_nonnull(f);
        fputs(csvs[i][0], f);
        fclose(f);
        const char *csv[] = {"--out", res, arg, NULL};
        rc = course_batch_args(dir, csv);
        ck_assert_msg(rc == 2, "csv %d: exit %d:\n%s", i, rc, out);
        snprintf(cmd, sizeof cmd, "batch: %s: %s: each line is student,git_url", arg, csvs[i][1]);
        HAS(cmd);
    }
    snprintf(arg, sizeof arg, "%s/class.csv", dir);
    FILE *f = fopen(arg, "w");
    ck_assert_ptr_nonnull(f);
    fputs("student,git_url\n# nobody yet\n", f);
    fclose(f);
    const char *empty[] = {"--out", res, arg, NULL};
    ck_assert_int_eq(course_batch_args(dir, empty), 2);
    HAS("class.csv holds no submissions: a folder of student folders, or a CSV of "
        "student,git_url lines\n");
    snprintf(cmd, sizeof cmd, "%s/no-such-results", dir);
    const char *merge_none[] = {"--out", cmd, "--merge", NULL};
    ck_assert_int_eq(course_batch_args(dir, merge_none), 2);
    HAS("batch: --merge: there is no results folder");
    ck_assert_int_ne(access(cmd, F_OK), 0);
    snprintf(arg, sizeof arg, "%s/subs", dir);
    const char *both[] = {"--out", res, "--only", "0", "--student", "amy", arg, NULL};
    ck_assert_int_eq(course_batch_args(dir, both), 2);
    HAS("batch: --only and --student each pick one student: give one of them\n");
    const char *nobody[] = {"--out", res, "--student", "zoe", arg, NULL};
    ck_assert_int_eq(course_batch_args(dir, nobody), 2);
    HAS("batch: --student zoe: ");
    HAS(" has no submission of that name");
    snprintf(arg, sizeof arg, "%s", dir);
    const char *course_itself[] = {"--out", res, arg, NULL};
    ck_assert_int_eq(course_batch_args(dir, course_itself), 2);
    HAS("holds the course itself");
    snprintf(cmd, sizeof cmd, "%s/course", dir);
    snprintf(arg, sizeof arg, "%s/subs", dir);
    const char *out_course[] = {"--out", cmd, arg, NULL};
    ck_assert_int_eq(course_batch_args(dir, out_course), 2);
    HAS("batch: the results folder");
    HAS("holds the course itself");
    /* The results inside the submissions are no student's; the submissions
     * inside the course, through a link to it, stay out of the trees (the
     * small course's grader fails a tree that has them). */
    snprintf(cmd, sizeof cmd, "set -e; mv %s/subs %s/course/subs && ln -s %s %s/link", dir, dir,
             dir, dir);
    ck_assert_int_eq(system(cmd), 0);
    snprintf(res, sizeof res, "%s/course/subs/results", dir);
    snprintf(arg, sizeof arg, "%s/link/course/subs", dir);
    const char *inside[] = {"--out", res, "--seed", "0x5", arg, NULL};
    rc = course_batch_args(dir, inside);
    ck_assert_msg(rc == 0, "exit %d:\n%s", rc, out);
    static char book[4096];
    snprintf(cmd, sizeof cmd, "%s/gradebook.csv", res);
    ck_assert_int_eq(read_text(cmd, book, sizeof book), 0);
    BOOK_HAS(book, "amy,lab2,7,7,all passed\n");
    BOOK_HAS(book, "bob,lab2,7,7,all passed\n");
    ck_assert_msg(strstr(book, "results,") == NULL, "the results were graded:\n%s", book);
    snprintf(cmd, sizeof cmd, "batch: %s is the results folder, not a student's\n", res);
    HAS(cmd);
    ck_assert_int_eq(remove_tree(dir), 0);
}
END_TEST

/* Every student keeps a line in the gradebook: student folders that are
 * links (to folders of one name, as an export may make them) are graded
 * under the links' names; a Slurm task killed while grading leaves its
 * student "not graded"; a CSV of the class kept inside the course is graded
 * from, and stays out of the students' trees. */
START_TEST(batch_keeps_every_student)
{
    char dir[32], res[300], cmd[1400], arg[400];
    const char *subs[] = {"amy:// student", "bob:// student"};
    new_course(dir, res, 0, subs, 2);
    shell("set -e; cd %s && mkdir -p store/a store/b && mv subs/amy store/a/lab2 && "
          "mv subs/bob store/b/lab2 && ln -s ../store/a/lab2 subs/amy && "
          "ln -s ../store/b/lab2 subs/bob",
          dir);
    static char book[4096];
    course_book(dir, res, NULL, 0, book, sizeof book);
    BOOK_HAS(book, "amy,lab2,7,7,all passed\n");
    BOOK_HAS(book, "bob,lab2,7,7,all passed\n");
    snprintf(cmd, sizeof cmd,
             "export GRADE= MAKEFLAGS= MFLAGS= MAKELEVEL=; "
             "cd %s && echo '// hang' > store/b/lab2/reduce.cu && timeout -s KILL 8 "
             "course/grader/batch --lab 2 --out %s --seed 0x5 --only 1 subs > /dev/null 2>&1; "
             "course/grader/batch --lab 2 --out %s --merge > /dev/null 2>&1",
             dir, res, res);
    ck_assert_int_ne(system(cmd), 0);
    snprintf(arg, sizeof arg, "%s/gradebook.csv", res);
    ck_assert_int_eq(read_text(arg, book, sizeof book), 0);
    BOOK_HAS(book, "amy,lab2,7,7,all passed\n");
    BOOK_HAS(book, "bob,lab2,,,\"not graded: the grading of this student did not finish (the "
                   "batch was stopped or killed, or ran out of its time limit): grade them "
                   "again\"\n");
    shell("set -e; cd %s && git init -q store/a/lab2 && git -C store/a/lab2 add -A && "
          "git -C store/a/lab2 -c user.name=t -c user.email=t@example.org commit -q -m a && "
          "printf 'student,git_url\\namy,%s/store/a/lab2\\nzed,%s/store/none\\n' > "
          "course/class.csv",
          dir, dir, dir);
    snprintf(arg, sizeof arg, "%s/course/class.csv", dir);
    snprintf(res, sizeof res, "%s/results-csv", dir);
    const char *csv[] = {"--out", res, "--seed", "0x5", arg, NULL};
    course_batch_expect(dir, csv, 1);
    HAS("batch: amy: all passed\n");
    /* A clone that fails (here: no repository at the URL) is not the
     * student's 0: the URL, the access and the network are the course's. */
    snprintf(arg, sizeof arg, "%s/gradebook.csv", res);
    ck_assert_int_eq(read_text(arg, book, sizeof book), 0);
    snprintf(cmd, sizeof cmd,
             "zed,lab2,,,\"not graded: git could not clone the student's URL (a wrong URL, no "
             "access to the repository, or the network: git's message is in the student's "
             ".log)\"\n");
    BOOK_HAS(book, cmd);
    ck_assert_int_eq(remove_tree(dir), 0);
}
END_TEST

/* The batch keeps the class, in --only's order, in RESULTS/class.list, and
 * its lab, seed and stages in RESULTS/batch.key; the gradebook follows the
 * class. The merge books a student on it whom no Slurm task graded (the
 * array's range too small) with the way to grade them. A task without
 * --seed takes the batch's. A later task that finds another class (a
 * folder added, which moves the numbers) stops and books the student the
 * class list numbered, setting their earlier result aside; --student grades
 * by name, one added late too (put at the end of the list), and only with
 * the batch's seed. A task with another seed is a new batch, which sets the
 * files of the one before aside, so that none of its results counts; a
 * result in RESULTS of someone not in the class is left out and named. A
 * student folder with a line break in its name is refused. */
START_TEST(batch_books_whom_no_task_graded)
{
    char dir[32], res[300], path[400], batch[300], subs_arg[300];
    const char *subs[] = {"amy:// student", "bob:// student", "cat:// student"};
    new_course(dir, res, 0, subs, 3);
    snprintf(subs_arg, sizeof subs_arg, "%s/subs", dir);
    int rc = run_course_batch(dir, res, "0");
    ck_assert_msg(rc == 0, "exit %d:\n%s", rc, out);
    const char *no_seed[] = {"--out", res, "--only", "2", subs_arg, NULL};
    course_batch_expect(dir, no_seed, 0);
    HAS("batch: the seed of the batch in ");
    HAS("seed 0x5 for every student");
    snprintf(batch, sizeof batch, "%s/course/grader/batch", dir);
    char *merge[] = {batch, "--lab", "2", "--out", res, "--merge", NULL};
    rc = run_command(merge, NULL, out, sizeof out);
    ck_assert_msg(rc == 1, "exit %d:\n%s", rc, out);
    HAS("batch: 1 of 3 students not graded, for reasons not theirs (1 never graded by any "
        "task)");
    static char book[4096];
    snprintf(path, sizeof path, "%s/gradebook.csv", res);
    ck_assert_int_eq(read_text(path, book, sizeof book), 0);
    ck_assert_str_eq(book, "student,lab,score,max_score,status\namy,lab2,7,7,all passed\n"
                           "bob,lab2,,,\"not graded: no task of this batch graded this student "
                           "(a Slurm array smaller than the class, or a batch stopped before "
                           "them?): grade them with --student bob\"\n"
                           "cat,lab2,7,7,all passed\n");
    /* A folder added before the batch is done, first in the listing: task 2
     * still grades cat, the class list's third, names abe for --student, and
     * sets cat's earlier result aside rather than deleting it. */
    shell("set -e; mkdir %s/subs/abe && echo '// student' > %s/subs/abe/reduce.cu", dir, dir);
    rc = run_course_batch(dir, res, "2");
    ck_assert_msg(rc == 0, "exit %d:\n%s", rc, out);
    HAS("batch: cat: all passed\n");
    HAS_F("batch: in %s/subs but not in this batch's class (%s/class.list), so no --only task "
          "grades them: abe: grade each with --student NAME",
          dir, res);
    HAS_F("batch: cat: their earlier files are set aside in %s/earlier-", res);
    shell("set -e; ls %s/earlier-*/cat.json %s/earlier-*/cat.status > /dev/null", res, res);
    /* One removed (or renamed) since the batch began: their task books
     * them, and the class list's end is no one. */
    shell("mv %s/subs/bob %s/bob-away", dir, dir);
    rc = run_course_batch(dir, res, "1");
    ck_assert_msg(rc == 2, "exit %d:\n%s", rc, out);
    HAS_F("batch: --only 1: bob, line 2 of this batch's class (%s/class.list), has no submission "
          "in %s/subs now (renamed or removed since the batch began?)",
          res, dir);
    HAS("batch: bob booked \"not graded: the batch could not start\"");
    shell("mv %s/bob-away %s/subs/bob", dir, dir);
    rc = run_course_batch(dir, res, "3");
    ck_assert_msg(rc == 2, "exit %d:\n%s", rc, out);
    HAS_F("batch: --only 3: this batch's class (%s/class.list) has 3 students, numbered from 0",
          res);
    /* By name: another seed is refused and takes no one's result; the
     * batch's seed grades the one added late and the others. */
    const char *other_seed[] = {"--out", res, "--seed", "0x9", "--student", "amy", subs_arg, NULL};
    course_batch_expect(dir, other_seed, 2);
    HAS_F("batch: --student amy: the batch in %s is lab 2 seed 0x5 stages all (%s/batch.key), "
          "and this run would be lab 2 seed 0x9 stages all",
          res, res);
    snprintf(path, sizeof path, "%s/amy.json", res);
    ck_assert_int_eq(access(path, F_OK), 0);
    rc = run_course_batch_student(dir, res, "abe");
    ck_assert_msg(rc == 0, "exit %d:\n%s", rc, out);
    HAS("batch: abe: all passed\n");
    HAS_F("batch: abe added at the end of %s/class.list (the others keep their numbers)\n", res);
    const char *names[] = {"bob", "cat"};
    for (int i = 0; i < 2; i++) {
        rc = run_course_batch_student(dir, res, names[i]);
        ck_assert_msg(rc == 0, "%s: exit %d:\n%s", names[i], rc, out);
    }
    snprintf(path, sizeof path, "%s/class.list", res);
    ck_assert_int_eq(read_text(path, book, sizeof book), 0);
    ck_assert_str_eq(book, "amy\nbob\ncat\nabe\n");
    rc = run_command(merge, NULL, out, sizeof out);
    ck_assert_msg(rc == 0, "exit %d:\n%s", rc, out);
    HAS("(4 students)");
    snprintf(path, sizeof path, "%s/gradebook.csv", res);
    ck_assert_int_eq(read_text(path, book, sizeof book), 0);
    ck_assert_str_eq(book, "student,lab,score,max_score,status\namy,lab2,7,7,all passed\n"
                           "bob,lab2,7,7,all passed\ncat,lab2,7,7,all passed\n"
                           "abe,lab2,7,7,all passed\n");
    /* A new batch (another seed, as a new Slurm array has), bob gone and
     * cat's file broken, whose array stops one short: cat's result of the
     * batch before is not counted. */
    shell("set -e; mv %s/subs/bob %s/bob; echo broken > %s/subs/cat/reduce.cu", dir, dir, dir);
    const char *t0[] = {"--out", res, "--seed", "0x6", "--only", "0", subs_arg, NULL};
    course_batch_expect(dir, t0, 0);
    HAS_F("batch: a new batch (lab 2 seed 0x6 stages all): the files of the one before in %s are "
          "set aside in %s/earlier-",
          res, res);
    const char *t1[] = {"--out", res, "--seed", "0x6", "--only", "1", subs_arg, NULL};
    course_batch_expect(dir, t1, 0);
    ck_assert_ptr_null(strstr(out, "a new batch"));
    shell("echo 'all passed' > %s/zoe.status", res);
    rc = run_command(merge, NULL, out, sizeof out);
    ck_assert_msg(rc == 1, "exit %d:\n%s", rc, out);
    HAS_F("batch: left out of the gradebook, not in this batch's class (%s/class.list): zoe "
          "(their files stay in %s)\n",
          res, res);
    ck_assert_int_eq(read_text(path, book, sizeof book), 0);
    ck_assert_str_eq(book, "student,lab,score,max_score,status\nabe,lab2,7,7,all passed\n"
                           "amy,lab2,7,7,all passed\ncat,lab2,,,\"not graded: no task of this "
                           "batch graded this student (a Slurm array smaller than the class, or "
                           "a batch stopped before them?): grade them with --student cat\"\n");
    shell("set -e; ls %s/earlier-*/bob.status %s/earlier-*/batch.key %s/earlier-*/gradebook.csv "
          "> /dev/null",
          res, res, res);
    /* A merge of a folder with no results is refused. */
    snprintf(path, sizeof path, "%s/empty", dir);
    shell("mkdir %s", path);
    char *merge_empty[] = {batch, "--lab", "2", "--out", path, "--merge", NULL};
    rc = run_command(merge_empty, NULL, out, sizeof out);
    ck_assert_msg(rc == 2, "exit %d:\n%s", rc, out);
    HAS("batch: no results in ");
    shell("mkdir \"$(printf '%s/subs/ann\\nlee')\"", dir);
    rc = run_course_batch(dir, res, NULL);
    ck_assert_msg(rc == 2, "exit %d:\n%s", rc, out);
    HAS_F("batch: %s/subs: the student folder \"ann?lee\" cannot be graded under its name (a "
          "line break in it): rename it\n",
          dir);
    ck_assert_int_eq(remove_tree(dir), 0);
}
END_TEST

/* The tasks of a batch find each student by name, compared as a string:
 * "42" is not "042", and a backslash in a name is a backslash. Their
 * messages and logs keep the task's own number. */
START_TEST(batch_finds_students_by_their_names)
{
    char dir[32], res[300];
    const char *subs[] = {"042:// student", "42:// student"};
    new_course(dir, res, 0, subs, 2);
    shell("cd %s/subs && mkdir 'ab\\nc' && echo '// student' > 'ab\\nc/reduce.cu'", dir);
    const char *names[] = {"042", "42", "ab\\nc"};
    for (int k = 0; k < 3; k++) {
        char num[4], line[64];
        snprintf(num, sizeof num, "%d", k);
        int rc = run_course_batch(dir, res, num);
        ck_assert_msg(rc == 0, "task %d: exit %d:\n%s", k, rc, out);
        snprintf(line, sizeof line, "batch: %s: all passed\n", names[k]);
        HAS(line);
    }
    int rc = run_course_batch_student(dir, res, "42");
    ck_assert_msg(rc == 0, "exit %d:\n%s", rc, out);
    HAS("batch: 42: their earlier files are set aside in ");
    HAS("batch: 42: all passed\n");
    /* A folder added since the batch began, first in the listing: task 2
     * grades the class list's third and keeps its own number. */
    shell("set -e; cd %s/subs && mkdir 0first && echo broken > 0first/reduce.cu", dir);
    rc = run_course_batch(dir, res, "2");
    ck_assert_msg(rc == 0, "exit %d:\n%s", rc, out);
    HAS("batch: ab\\nc: all passed\n");
    HAS("so no --only task grades them: 0first: grade each with --student NAME");
    char *merge[] = {NULL, "--lab", "2", "--out", res, "--merge", NULL};
    char batch[300], path[400];
    snprintf(batch, sizeof batch, "%s/course/grader/batch", dir);
    merge[0] = batch;
    rc = run_command(merge, NULL, out, sizeof out);
    ck_assert_msg(rc == 0, "exit %d:\n%s", rc, out);
    static char book[4096];
    snprintf(path, sizeof path, "%s/gradebook.csv", res);
    ck_assert_int_eq(read_text(path, book, sizeof book), 0);
    ck_assert_str_eq(book, "student,lab,score,max_score,status\n042,lab2,7,7,all passed\n"
                           "42,lab2,7,7,all passed\nab\\nc,lab2,7,7,all passed\n");
    ck_assert_int_eq(remove_tree(dir), 0);
}
END_TEST

/* Submissions kept inside a git checkout of the course, untracked or
 * committed, are neither named as files the lab may need nor copied into
 * any student's tree. */
START_TEST(batch_leaves_the_submissions_out)
{
    char dir[32], res[300], cmd[600];
    const char *subs[] = {"amy:// student", "bob:// student"};
    new_course(dir, res, 1, subs, 2);
    shell("mv %s/subs %s/course/subs", dir, dir);
    static char book[4096];
    course_book(dir, res, NULL, 0, book, sizeof book);
    ck_assert_msg(strstr(out, "subs/") == NULL, "the submissions are named:\n%s", out);
    BOOK_HAS(book, "amy,lab2,7,7,all passed\n");
    snprintf(cmd, sizeof cmd,
             "cd %s/course && git add subs && "
             "git -c user.name=t -c user.email=t@example.org commit -q -m subs",
             dir);
    ck_assert_int_eq(system(cmd), 0);
    course_book(dir, res, NULL, 0, book, sizeof book);
    BOOK_HAS(book, "amy,lab2,7,7,all passed\n");
    BOOK_HAS(book, "bob,lab2,7,7,all passed\n");
    ck_assert_int_eq(remove_tree(dir), 0);
}
END_TEST


/* A run with part of the sandbox off (here: the real grader's results, read
 * back by --from, with "unguarded" in them) is graded and its status says
 * what was off, one line at the end counts such students, and --analyze
 * lists them; with --require-sandbox the run is no grade (a fault on the
 * grader's side). The reason holds a quote and a comma, as a seccomp or
 * Landlock error may. */
START_TEST(batch_marks_runs_with_the_sandbox_off)
{
    char dir[] = "/tmp/cudalabs-batchXXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    fake_submission(dir, "open", "unguarded");
    fake_submission(dir, "shut", "real");
    char grade[400], fixture[400], fixture3[400], real[4096];
    write_fake_grade(dir, grade, sizeof grade);
    static lab_results res;
    fixture_results(&res);
    extern const lab_spec lab_transpose;
    const lab_spec *specs[] = {&lab_transpose};
    const char *off = "sandbox not available (\"seccomp\": Invalid argument, kernel 3.10)";
    snprintf(fixture, sizeof fixture, "%s/fixture.json", dir);
    snprintf(fixture3, sizeof fixture3, "%s/fixture3.json", dir);
    for (int k = 0; k < 2; k++) {
        FILE *f = fopen(k ? fixture3 : fixture, "w");
        ck_assert_ptr_nonnull(f);
        ck_assert_int_eq(report_json_run(f, specs, &res, 1, NULL, 0x5, NULL, 1.5, k ? off : NULL), 0);
        fclose(f);
    }
    setenv("CUDA_LABS_FIXTURE", fixture, 1);
    setenv("CUDA_LABS_FIXTURE3", fixture3, 1);
    ck_assert_ptr_nonnull(realpath(grade_path(), real));
    setenv("CUDA_LABS_REAL_GRADE", real, 1);
    int rc = run_batch(dir, 2, 1, grade, "10", NULL);
    ck_assert_msg(rc == 0, "exit %d:\n%s", rc, out);
    static char book[8192];
    read_book(dir, book, sizeof book);
    BOOK_HAS(book, "open,lab2,40,70,\"some tests failed (graded with part of the sandbox off: "
                   "sandbox not available (\"\"seccomp\"\": Invalid argument, kernel 3.10))\"\n");
    BOOK_HAS(book, "shut,lab2,40,70,some tests failed\n");
    HAS("batch: 1 of 2 students graded with part of the sandbox off (their status says what)");
    /* --analyze reads the same results folder. */
    char results[400];
    snprintf(results, sizeof results, "%s/results", dir);
    char *analyze[] = {real, "--analyze", results, NULL};
    ck_assert_int_eq(run_command(analyze, NULL, out, sizeof out), 0);
    HAS("Graded with part of the sandbox off, to grade again where all of it is on (1):\n"
        "  open: sandbox not available (\"seccomp\": Invalid argument, kernel 3.10)\n");
    ck_assert_ptr_null(strstr(out, "  shut: "));
    /* With --require-sandbox the same run is not a grade. */
    char subs[400];
    snprintf(subs, sizeof subs, "%s/subs", dir);
    char grade_env[500];
    snprintf(grade_env, sizeof grade_env, "GRADE=%s", grade);
    const char *env[] = {"MAKEFLAGS=", "MFLAGS=", "MAKELEVEL=", "ARCH=native", grade_env,
                         "CUDA_VISIBLE_DEVICES=-1", NULL};
    char *argv[] = {"grader/batch", "--lab", "2",  "--out",          results, "--seed", "0x5",
                    "--timeout",    "10",    "--require-sandbox", subs,    NULL};
    rc = run_command(argv, env, out, sizeof out);
    ck_assert_msg(rc == 1, "exit %d:\n%s", rc, out);
    read_book(dir, book, sizeof book);
    BOOK_HAS(book, "open,lab2,,,\"not graded: part of the sandbox was off (sandbox not available "
                   "(\"\"seccomp\"\": Invalid argument, kernel 3.10)) and --require-sandbox is set\"\n");
    BOOK_HAS(book, "shut,lab2,40,70,some tests failed\n");
    unsetenv("CUDA_LABS_FIXTURE3");
    ck_assert_int_eq(remove_tree(dir), 0);
}
END_TEST

/* Graded code runs as the user running the batch and can write the course's
 * files (the grader, its libraries) for the students after it: the batch
 * notices the change before the next student, grades no one more (a fault
 * on the grader's side, charged to no one) and names who came before. */
START_TEST(batch_stops_when_course_files_change)
{
    char dir[] = "/tmp/cudalabs-batchXXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    fake_submission(dir, "a-first", "tamper");
    fake_submission(dir, "b-next", "renamed");
    char grade[400];
    write_fake_grade(dir, grade, sizeof grade);
    setenv("CUDA_LABS_COURSE_FILE", grade, 1); /* the grader the batch copies to each student */
    int rc = run_batch(dir, 2, 1, grade, "10", NULL);
    unsetenv("CUDA_LABS_COURSE_FILE");
    ck_assert_msg(rc == 1, "exit %d:\n%s", rc, out);
    static char book[8192];
    read_book(dir, book, sizeof book);
    BOOK_HAS(book, "a-first,lab2,30,110,some tests failed\n");
    char line[1024];
    snprintf(line, sizeof line, "b-next,lab2,,,\"not graded: the course's files (%s", grade);
    BOOK_HAS(book, line);
    BOOK_HAS(book, "changed during the batch, after a-first was graded: a submission may have "
                   "written them. Rebuild them and grade the rest again\"\n");
    ck_assert_int_eq(remove_tree(dir), 0);
}
END_TEST

/* The Slurm array over three lab 1 submissions under a real, single-node
 * Slurm (grader/tests/slurm-array starts and stops it), or a skip with the
 * reason where Slurm cannot start here. */
START_TEST(slurm_array)
{
    char dir[] = "/tmp/cudalabs-slurmXXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    ck_assert_int_eq(chmod(dir, 0755), 0);
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "set -e; cd %s && mkdir -p subs/reference subs/skeleton subs/broken && "
             "cp %s/solutions/1-transpose/transpose.cu subs/reference/ && "
             "cp %s/labs/1-transpose/transpose.cu subs/skeleton/ && "
             "echo 'this is not C++' > subs/broken/transpose.cu",
             dir, here(), here());
    ck_assert_int_eq(system(cmd), 0);
    char subs[300];
    snprintf(subs, sizeof subs, "%s/subs", dir);
    char *argv[] = {"grader/tests/slurm-array", dir, subs, "1", NULL};
    const char *env[] = {"MAKEFLAGS=", "MFLAGS=", "MAKELEVEL=", "ARCH=native", NULL};
    int rc = run_command(argv, env, out, sizeof out);
    if (rc == 77) {
        char *why = strstr(out, "slurm test skipped: ");
        test_skip(why ? why : out);
        remove_tree(dir);
        return;
    }
    ck_assert_msg(rc == 0, "exit %d:\n%s", rc, out);
    static char book[8192];
    read_book(dir, book, sizeof book);
    BOOK_HAS(book, "broken,lab1,0,,build failed\n");
    /* A GPU that Slurm gives the task grades for real; otherwise no GPU. */
    char *gpu_argv[] = {(char *)grade_path(), "--gpu-info", NULL};
    static char info[4096];
    if (run_command(gpu_argv, NULL, info, sizeof info) == 0) {
        BOOK_HAS(book, "reference,lab1,80,80,all passed\n");
        BOOK_HAS(book, "skeleton,lab1,0,80,some tests failed\n");
    } else {
        BOOK_HAS(book, "reference,lab1,,,not graded: no GPU\n");
        BOOK_HAS(book, "skeleton,lab1,,,not graded: no GPU\n");
        /* The merge job failed with the one line. */
        char merge[400];
        snprintf(merge, sizeof merge, "%s/results/merge.out", dir);
        static char text[4096];
        ck_assert_int_eq(read_text(merge, text, sizeof text), 0);
        ck_assert_ptr_nonnull(strstr(text, "2 of 3 students not graded, for reasons not "
                                           "theirs (no GPU)"));
    }
    ck_assert_int_eq(remove_tree(dir), 0);
}
END_TEST

int batch_gpu_test_count(void)
{
    const lab_spec *specs[LAB_MAX];
    return labs_of(1, specs);
}

int batch_gpu_left_out_count(void)
{
    const lab_spec *specs[LAB_MAX];
    return labs_of(0, specs) - labs_of(1, specs);
}

Suite *make_batch_suite(void)
{
    const lab_spec *specs[LAB_MAX];
    Suite *s = suite_create("batch");
    TCase *tc = tcase_create("batch");
    tcase_set_timeout(tc, 240);
    tcase_add_loop_test(tc, batch_without_gpu, 0, labs_of(0, specs));
    tcase_add_test(tc, batch_books_grader_faults);
    tcase_add_test(tc, batch_books_refusals);
    tcase_add_test(tc, batch_grades_in_the_checkouts_files);
    tcase_add_test(tc, batch_books_a_course_that_does_not_build);
    tcase_add_test(tc, batch_grades_a_course_outside_git);
    tcase_add_test(tc, batch_leaves_the_submissions_out);
    tcase_add_test(tc, batch_keeps_every_student);
    tcase_add_test(tc, batch_books_whom_no_task_graded);
    tcase_add_test(tc, batch_finds_students_by_their_names);
    tcase_add_test(tc, batch_reads_what_it_is_given_with_care);
    tcase_add_test(tc, batch_books_a_lost_temporary_folder);
    tcase_add_test(tc, batch_stops_when_course_files_change);
    tcase_add_test(tc, batch_marks_runs_with_the_sandbox_off);
    tcase_add_test(tc, slurm_array);
    suite_add_tcase(s, tc);
    return s;
}

Suite *make_batch_gpu_suite(void)
{
    Suite *s = suite_create("batch-gpu");
    TCase *tc = tcase_create("batch-gpu");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, batch_on_gpu, 0, batch_gpu_test_count());
    suite_add_tcase(s, tc);
    return s;
}
