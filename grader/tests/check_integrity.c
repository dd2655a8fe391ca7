/* check_integrity.c: grader/integrity, run from the course's copy as the
 * grading workflows run it, catches a student copy whose points table or
 * threshold was edited, a makefile slipped in front of the Makefile and a
 * grader file replaced by a link, names each one, and --restore puts the
 * course's files back; the student's own lab file is theirs to change. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests.h"

static char out[64 * 1024];

#define HAS(text) ck_assert_msg(strstr(out, text) != NULL, "output lacks \"%s\":\n%s", text, out)

static int sh(const char *fmt, const char *dir)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, fmt, dir, dir, dir, dir, dir, dir);
    return system(cmd);
}

START_TEST(integrity_catches_an_edited_grader)
{
    char dir[] = "/tmp/cudalabs-integrityXXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    /* Two student copies, as make student-repo writes them: the course's
     * (the template, checked out apart at a pinned commit) and the student's. */
    ck_assert_int_eq(sh("set -e; export MAKEFLAGS=; make -s --no-print-directory student-repo DEST=%s/course >/dev/null && "
                        "make -s --no-print-directory student-repo DEST=%s/student >/dev/null",
                        dir),
                     0);
    char checker[300], student[300];
    snprintf(checker, sizeof checker, "%s/course/grader/integrity", dir);
    snprintf(student, sizeof student, "%s/student", dir);
    char *check[] = {checker, student, NULL};
    char *restore[] = {checker, "--restore", student, NULL};
    int rc = run_command(check, NULL, out, sizeof out);
    ck_assert_msg(rc == 0, "exit %d:\n%s", rc, out);
    HAS("integrity: all ");
    HAS(" grader files are the course's");

    /* The student's own work is not the grader's. */
    ck_assert_int_eq(sh("echo '// mine' >> %s/student/labs/1-transpose/transpose.cu && "
                        "echo notes >> %s/student/handouts/1-transpose.md", dir), 0);
    ck_assert_int_eq(run_command(check, NULL, out, sizeof out), 0);

    /* More points for a naive stage, a lower threshold, a makefile that make
     * would read before the Makefile, a lab header replaced by a link. */
    ck_assert_int_eq(
        sh("set -e; cd %s/student && "
           "sed -i '/\"transpose_naive_read\"/{n;s/points_correct = 10,/points_correct = 100,/}' grader/labs/transpose.c && "
           "sed -i 's/min_speedup = 1.15,/min_speedup = 0.10,/' grader/labs/reduce.c && "
           "echo 'include Makefile' > GNUmakefile && "
           "mv labs/2-reduce/reduce.h %s/elsewhere.h && ln -s %s/elsewhere.h labs/2-reduce/reduce.h && "
           "! cmp -s grader/labs/transpose.c %s/course/grader/labs/transpose.c && "
           "! cmp -s grader/labs/reduce.c %s/course/grader/labs/reduce.c",
           dir),
        0);
    rc = run_command(check, NULL, out, sizeof out);
    ck_assert_msg(rc == 1, "exit %d:\n%s", rc, out);
    HAS("TAMPERED: 4 grader file(s) differ from the course's");
    HAS("  grader/labs/transpose.c (changed)\n");
    HAS("  grader/labs/reduce.c (changed)\n");
    HAS("  GNUmakefile (added)\n");
    HAS("  labs/2-reduce/reduce.h (a link)\n");
    ck_assert_ptr_null(strstr(out, "transpose.cu"));
    ck_assert_ptr_null(strstr(out, "handouts"));

    /* --restore: the same report, then the course's files in place. */
    ck_assert_int_eq(run_command(restore, NULL, out, sizeof out), 1);
    HAS("integrity: the course's grader files are in place");
    rc = run_command(check, NULL, out, sizeof out);
    ck_assert_msg(rc == 0, "after --restore: exit %d:\n%s", rc, out);
    /* ... and the student's lab file is still theirs. */
    ck_assert_int_eq(sh("grep -q '// mine' %s/student/labs/1-transpose/transpose.cu", dir), 0);
    ck_assert_int_eq(remove_tree(dir), 0);
}
END_TEST

/* A name is the student's to choose, newlines and control characters
 * included: it is printed escaped, so it can neither start a line of its own
 * (a GitHub Actions workflow command, ::error:: or ::set-output, starts a
 * line) nor break the report's lines, and --restore still removes it. */
START_TEST(integrity_escapes_file_names)
{
    char dir[] = "/tmp/cudalabs-integrityXXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    ck_assert_int_eq(sh("set -e; export MAKEFLAGS=; make -s --no-print-directory student-repo DEST=%s/course >/dev/null && "
                        "make -s --no-print-directory student-repo DEST=%s/student >/dev/null && "
                        "cd %s/student/grader && touch \"$(printf 'x\\n::error::forged')\" "
                        "\"$(printf 'y\\r\\033::set-output name=score::100,%%%%')\"",
                        dir),
                     0);
    char checker[300], student[300], summary[300], summary_env[320];
    snprintf(checker, sizeof checker, "%s/course/grader/integrity", dir);
    snprintf(student, sizeof student, "%s/student", dir);
    snprintf(summary, sizeof summary, "%s/summary.md", dir);
    snprintf(summary_env, sizeof summary_env, "GITHUB_STEP_SUMMARY=%s", summary);
    const char *env[] = {"GITHUB_ACTIONS=true", summary_env, NULL};
    char *check[] = {checker, student, NULL};
    char *restore[] = {checker, "--restore", student, NULL};
    int rc = run_command(check, env, out, sizeof out);
    ck_assert_msg(rc == 1, "exit %d:\n%s", rc, out);
    HAS("TAMPERED: 2 grader file(s) differ from the course's");
    HAS("\n  grader/x\\n::error::forged (added)\n");
    HAS("\n  grader/y\\r\\x1b::set-output name=score::100,% (added)\n");
    /* The annotations: the name's newline, colons, commas and percent signs
     * escaped as GitHub's workflow commands want them. */
    HAS("\n::error file=grader/x\\n%3A%3Aerror%3A%3Aforged::TAMPERED: grader/x\\n::error::forged (added): ");
    HAS("\n::error file=grader/y\\r\\x1b%3A%3Aset-output name=score%3A%3A100%2C%25::TAMPERED: "
        "grader/y\\r\\x1b::set-output name=score::100,%25 (added): ");
    /* No line but the annotations starts with "::", and no control
     * character but the line ends reaches the output. */
    for (const char *line = out; *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : "") {
        ck_assert_msg(strncmp(line, "::", 2) != 0 || strncmp(line, "::error file=", 13) == 0,
                      "a line starts a workflow command:\n%s", out);
        ck_assert_msg(line[0] != ' ' || strncmp(line, "  grader/", 9) == 0, "a stray line:\n%s", out);
    }
    for (const char *c = out; *c; c++)
        ck_assert_msg(*c == '\n' || (unsigned char)*c >= 0x20, "a control character:\n%s", out);
    char text[4096] = "";
    FILE *f = fopen(summary, "r");
    ck_assert_ptr_nonnull(f);
    size_t got = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[got] = '\0';
    ck_assert_msg(strstr(text, "- `grader/x\\n::error::forged` added\n") != NULL, "summary:\n%s", text);
    ck_assert_msg(strchr(text, '\r') == NULL && strchr(text, '\x1b') == NULL, "summary:\n%s", text);

    /* --restore removes both, whatever their names. */
    ck_assert_int_eq(run_command(restore, NULL, out, sizeof out), 1);
    rc = run_command(check, NULL, out, sizeof out);
    ck_assert_msg(rc == 0, "after --restore: exit %d:\n%s", rc, out);
    ck_assert_int_eq(remove_tree(dir), 0);
}
END_TEST

/* Every workflow that grades takes the course's grader at the pinned commit
 * and runs the course's integrity check before it builds anything. */
START_TEST(grading_workflows_check_integrity)
{
    char *argv[] = {"/bin/sh", "-c",
                    "n=0; for f in .github/workflows/*.yml; do "
                    "  grep -q '\\./grade' \"$f\" || continue; n=$((n + 1)); "
                    "  grep -q 'repository: ${{ vars.CUDA_LABS_COURSE_REPO }}' \"$f\" && "
                    "  grep -q 'ref: ${{ vars.CUDA_LABS_COURSE_REF }}' \"$f\" && "
                    "  awk '/integrity --restore/ { ok = 1 } /make lab|make labs|setup-command/ { if (!ok) bad = 1 } "
                    "       END { exit !(ok && !bad) }' \"$f\" || echo \"unchecked: $f\"; "
                    "done; echo \"grading workflows: $n\"",
                    NULL};
    ck_assert_int_eq(run_command(argv, NULL, out, sizeof out), 0);
    ck_assert_msg(strstr(out, "unchecked: ") == NULL, "a grading workflow without the check:\n%s", out);
    ck_assert_ptr_null(strstr(out, "grading workflows: 0\n"));
    HAS("grading workflows: ");
}
END_TEST

Suite *make_integrity_suite(void)
{
    Suite *s = suite_create("integrity");
    /* Each test copies the course and a student's tree; on a loaded
     * 2-core machine that took 57 s: room to spare. */
    TCase *tc = tcase_create("integrity");
    tcase_set_timeout(tc, 180);
    tcase_add_test(tc, integrity_catches_an_edited_grader);
    tcase_add_test(tc, integrity_escapes_file_names);
    tcase_add_test(tc, grading_workflows_check_integrity);
    suite_add_tcase(s, tc);
    return s;
}
