/* check_lablist.c: the list of labs (grader/labs/labs.def) is the one list.
 * The registry and the Makefile are derived from it; every other place that
 * names the labs is checked against it here: each lab's files, grader/profile,
 * ./grade's usage text, the Classroom workflow and the README's table. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../lab.h"
#include "tests.h"

#define LIST "grader/labs/labs.def"
#define WORKFLOW ".github/workflows/classroom.yml"

typedef struct listed {
    int number;
    char name[32];
} listed;

static char text[256 * 1024];

/* The labs of labs.def, in order, into l; their count. */
static int read_list(listed *l)
{
    ck_assert_msg(read_text(LIST, text, sizeof text) == 0, "cannot read " LIST);
    int n = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        if (strncmp(line, "LAB(", 4) != 0)
            continue;
        ck_assert_msg(n < LAB_MAX, LIST " lists more than LAB_MAX (%d) labs", LAB_MAX);
        char close = 0;
        ck_assert_msg(sscanf(line, "LAB(%d, %31[a-z0-9_]%c", &l[n].number, l[n].name, &close) == 3 &&
                          close == ')',
                      LIST ": '%s' is not LAB(number, name)", line);
        n++;
    }
    return n;
}

/* Runs a shell command line; its output into text. */
static int sh(const char *cmd)
{
    char *argv[] = {"/bin/sh", "-c", (char *)cmd, NULL};
    return run_command(argv, NULL, text, sizeof text);
}

#define HAS(what)                                                                                 \
    ck_assert_msg(strstr(text, what) != NULL, "lacks \"%s\":\n%.4000s", what, text)

START_TEST(registry_follows_the_list)
{
    listed l[LAB_MAX];
    int n = read_list(l);
    ck_assert_int_eq(n, lab_count);
    ck_assert_int_le(lab_count, LAB_MAX);
    for (int i = 0; i < n; i++) {
        const lab_spec *spec = lab_table[i];
        char dir[48], lab[16];
        snprintf(dir, sizeof dir, "%d-%s", l[i].number, l[i].name);
        snprintf(lab, sizeof lab, "lab%d", l[i].number);
        ck_assert_msg(l[i].number == i + 1, LIST ": lab %d is at position %d: number them 1, 2, 3, ...",
                      l[i].number, i + 1);
        ck_assert_int_eq(spec->number, l[i].number);
        ck_assert_str_eq(spec->name, l[i].name);
        ck_assert_str_eq(spec->dir, dir);
        ck_assert_int_eq(lab_position(l[i].number), i);
        ck_assert_ptr_eq(lab_find(lab), spec);
        ck_assert_ptr_eq(lab_find(l[i].name), spec);
    }
    ck_assert_int_eq(lab_position(0), -1);
    ck_assert_int_eq(lab_position(n + 1), -1);
}
END_TEST

START_TEST(every_lab_has_its_files)
{
    listed l[LAB_MAX];
    int n = read_list(l);
    for (int i = 0; i < n; i++) {
        const char *name = l[i].name;
        char dir[48], path[160];
        snprintf(dir, sizeof dir, "%d-%s", l[i].number, name);
        const char *const files[] = {"labs/%s/%s.cu", "labs/%s/%s.h", "solutions/%s/%s.cu",
                                     "handouts/%s%.0s.md"};
        for (int f = 0; f < (int)(sizeof files / sizeof files[0]); f++) {
            snprintf(path, sizeof path, files[f], dir, name);
            ck_assert_msg(access(path, R_OK) == 0, "lab %d: %s is missing", l[i].number, path);
        }
        snprintf(path, sizeof path, "grader/labs/%s.c", name);
        ck_assert_msg(access(path, R_OK) == 0, "lab %d: its spec %s is missing", l[i].number, path);
    }
}
END_TEST

/* The course's copy of each lab's given stages (grader/given/<name>_given.cu,
 * timed in place of the submission's): every paragraph below its opening
 * comment and include is the skeleton's, word for word and in order, and it
 * defines every given stage of the lab. */
/* The given stage's function `name`, as the skeleton defines it (from its
 * extern "C" line to the closing brace at the start of a line), is in the
 * copy word for word: a change to it in the skeleton that the copy lacks
 * fails here, even one that adds a paragraph. */
static void check_given_function(const char *path, const char *given, const char *sk,
                                 const char *skeleton, const char *name, int stage)
{
    char def[128];
    snprintf(def, sizeof def, " %s(", name);
    const char *at = strstr(skeleton, def);
    ck_assert_msg(at != NULL, "%s does not define %s() (given stage %d)", sk, name, stage);
    const char *start = at;
    while (start > skeleton && start[-1] != '\n')
        start--;
    ck_assert_msg(strncmp(start, "extern \"C\"", 10) == 0,
                  "%s: the first mention of %s() is not its extern \"C\" definition", sk, name);
    const char *end = strstr(at, "\n}\n");
    ck_assert_msg(end != NULL, "%s: %s() has no closing brace at the start of a line", sk, name);
    size_t len = (size_t)(end + 3 - start);
    char fn[8192];
    ck_assert_msg(len < sizeof fn, "%s: %s() is %zu bytes", sk, name, len);
    memcpy(fn, start, len);
    fn[len] = '\0';
    ck_assert_msg(strstr(given, fn) != NULL,
                  "%s: %s(), given stage %d, differs from the skeleton's (%s):\n%s", path, name,
                  stage, sk, fn);
}

START_TEST(given_stages_copy_the_skeleton)
{
    static char given[256 * 1024], skeleton[256 * 1024];
    for (int i = 0; i < lab_count; i++) {
        const lab_spec *spec = lab_table[i];
        char path[160], sk[160];
        snprintf(path, sizeof path, "grader/given/%s_given.cu", spec->name);
        snprintf(sk, sizeof sk, "labs/%s/%s.cu", spec->dir, spec->name);
        int has_given = 0;
        for (int s = 0; s < spec->n_stages; s++)
            has_given |= spec->stages[s].given;
        if (!has_given)
            continue;
        ck_assert_msg(read_text(path, given, sizeof given) == 0,
                      "lab %d has given stages but no %s", spec->number, path);
        ck_assert_int_eq(read_text(sk, skeleton, sizeof skeleton), 0);
        for (int s = 0; s < spec->n_stages; s++) {
            if (!spec->stages[s].given)
                continue;
            /* Lab 5's stages are three functions, <base>_setup, _run and _teardown. */
            const char *sym = spec->stages[s].symbol;
            size_t n = strlen(sym);
            int three = n > 4 && strcmp(sym + n - 4, "_run") == 0;
            const char *parts[] = {"_run", "_setup", "_teardown"};
            for (int k = 0; k < (three ? 3 : 1); k++) {
                char name[96];
                if (three)
                    snprintf(name, sizeof name, "%.*s%s", (int)(n - 4), sym, parts[k]);
                else
                    snprintf(name, sizeof name, "%s", sym);
                check_given_function(path, given, sk, skeleton, name, s);
            }
        }
        char *p = strstr(given, "\n\n"); /* after the opening comment and the include */
        ck_assert_msg(p != NULL, "%s: no opening comment", path);
        const char *from = skeleton; /* the paragraphs come in the skeleton's order */
        int paragraphs = 0;
        while (*p) {
            char *end = strstr(p, "\n\n");
            size_t len = end ? (size_t)(end - p) : strlen(p);
            char para[16 * 1024];
            ck_assert_msg(len < sizeof para, "%s: a paragraph of %zu bytes", path, len);
            memcpy(para, p, len);
            para[len] = '\0';
            while (len > 0 && para[len - 1] == '\n')
                para[--len] = '\0';
            if (len > 0) {
                paragraphs++;
                const char *at = strstr(from, para);
                ck_assert_msg(at, "%s: this paragraph is not in %s (or not in its order):\n%s",
                              path, sk, para);
                from = at + len;
            }
            p += len;
            while (*p == '\n')
                p++;
        }
        ck_assert_msg(paragraphs >= 3, "%s: %d paragraphs", path, paragraphs);
    }
}
END_TEST

/* make help shows the labs the Makefile read from the list. */
START_TEST(makefile_reads_the_list)
{
    listed l[LAB_MAX];
    int n = read_list(l);
    char want[128] = "(available:", first[32];
    for (int i = 0; i < n; i++)
        snprintf(want + strlen(want), sizeof want - strlen(want), " %d", l[i].number);
    strcat(want, ")");
    ck_assert_int_eq(sh("make --no-print-directory help"), 0);
    HAS(want);
    snprintf(first, sizeof first, "make lab%d .. lab%d ", l[0].number, l[n - 1].number);
    HAS(first);
    char next[64];
    snprintf(next, sizeof next, "make --no-print-directory lab%d", l[n - 1].number + 1);
    ck_assert_int_eq(sh(next), 2);
    HAS("there is no lab");
}
END_TEST

/* grader/profile takes every lab of the list and no other. */
START_TEST(profile_takes_every_lab)
{
    listed l[LAB_MAX];
    int n = read_list(l);
    char cmd[128], want[96];
    for (int i = 0; i < n; i++) {
        /* A bad stage is refused after the lab is accepted, before ncu runs. */
        snprintf(cmd, sizeof cmd, "grader/profile %d x", l[i].number);
        ck_assert_int_eq(sh(cmd), 2);
        HAS("STAGE is a stage number");
    }
    snprintf(cmd, sizeof cmd, "grader/profile %d 1", l[n - 1].number + 1);
    ck_assert_int_eq(sh(cmd), 2);
    snprintf(want, sizeof want, "LAB is a number from %d to %d, not '%d'", l[0].number,
             l[n - 1].number, l[n - 1].number + 1);
    HAS(want);
}
END_TEST

START_TEST(usage_names_the_labs)
{
    listed l[LAB_MAX];
    int n = read_list(l);
    char cmd[256], want[128];
    snprintf(cmd, sizeof cmd, "'%s' --help", grade_path());
    ck_assert_int_eq(sh(cmd), 0);
    snprintf(want, sizeof want, "the lab: lab%d .. lab%d, or its name (%s, %s, ...)", l[0].number,
             l[n - 1].number, l[0].name, l[1].name);
    HAS(want);
}
END_TEST

/* The Classroom workflow has a step per lab and names every lab in each of
 * its lists: the lists' text is compared whole, so a lab left out or one too
 * many both show. */
START_TEST(classroom_grades_every_lab)
{
    listed l[LAB_MAX];
    int n = read_list(l);
    char ids[160] = "", commas[160] = "", numbers[64] = "", line[256];
    for (int i = 0; i < n; i++) {
        snprintf(ids + strlen(ids), sizeof ids - strlen(ids), "%slab%d", i ? " " : "",
                 l[i].number);
        snprintf(commas + strlen(commas), sizeof commas - strlen(commas), "%slab%d", i ? "," : "",
                 l[i].number);
        snprintf(numbers + strlen(numbers), sizeof numbers - strlen(numbers), " %d", l[i].number);
    }
    static char wf[256 * 1024];
    ck_assert_msg(read_text(WORKFLOW, wf, sizeof wf) == 0, "cannot read " WORKFLOW);
    const char *const lists[] = {"          LABS: %s\n", "          runners: %s\n",
                                 "            for lab in%s; do\n"};
    const char *const values[] = {ids, commas, numbers};
    for (int k = 0; k < (int)(sizeof lists / sizeof lists[0]); k++) {
        snprintf(line, sizeof line, lists[k], values[k]);
        ck_assert_msg(strstr(wf, line) != NULL, WORKFLOW " lacks the line\n%s", line);
    }
    snprintf(line, sizeof line, "Every lab, %d to %d,", l[0].number, l[n - 1].number);
    ck_assert_msg(strstr(wf, line) != NULL, WORKFLOW "'s header lacks \"%s\"", line);
    for (int i = 0; i <= n; i++) {
        int num = i < n ? l[i].number : l[n - 1].number + 1; /* and the lab after the last */
        const char *const per_lab[] = {"      - name: lab%d\n",
                                       "        id: lab%d\n",
                                       "          make lab%d > results/lab%d-build.log",
                                       "./grade lab%d --classroom",
                                       /* no workflow command from the log while a lab is
                                        * graded: its stages' output is in it */
                                       "echo \"::stop-commands::$stop\"\n          "
                                       "GRADE_BUILD_LOG=results/lab%d-build.log ./grade lab%d "
                                       "--classroom --junit results/lab%d.xml --json "
                                       "results/lab%d.json | tee results/lab%d.log\n"
                                       "          echo \"::$stop::\"\n",
                                       "            ${{ steps.lab%d.outputs.result && 'lab%d' }}\n",
                                       "          LAB%d_RESULTS: \"${{ steps.lab%d.outputs.result"};
        for (int k = 0; k < (int)(sizeof per_lab / sizeof per_lab[0]); k++) {
            snprintf(line, sizeof line, per_lab[k], num, num, num, num, num); /* as many as a line uses */
            ck_assert_msg((strstr(wf, line) != NULL) == (i < n), WORKFLOW " %s the line\n%s",
                          i < n ? "lacks" : "has, for a lab not in " LIST ",", line);
        }
    }
}
END_TEST

/* The README's table of labs has a row per lab, in order, and no other. */
START_TEST(readme_table_lists_every_lab)
{
    listed l[LAB_MAX];
    int n = read_list(l);
    static char readme[256 * 1024];
    ck_assert_msg(read_text("README.md", readme, sizeof readme) == 0, "cannot read README.md");
    int rows = 0;
    for (char *line = strtok(readme, "\n"); line; line = strtok(NULL, "\n")) {
        int num = 0;
        if (sscanf(line, "| `lab%d` |", &num) != 1)
            continue;
        ck_assert_msg(rows < n, "README.md's table has a row for lab %d, which " LIST
                      " does not list", num);
        ck_assert_msg(num == l[rows].number, "README.md's table: row %d is lab %d, not lab %d",
                      rows + 1, num, l[rows].number);
        rows++;
    }
    ck_assert_msg(rows == n, "README.md's table has %d rows, " LIST " lists %d labs", rows, n);
}
END_TEST

Suite *make_lablist_suite(void)
{
    Suite *s = suite_create("lablist");
    TCase *tc = tcase_create("list");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, registry_follows_the_list);
    tcase_add_test(tc, every_lab_has_its_files);
    tcase_add_test(tc, given_stages_copy_the_skeleton);
    tcase_add_test(tc, makefile_reads_the_list);
    tcase_add_test(tc, profile_takes_every_lab);
    tcase_add_test(tc, usage_names_the_labs);
    tcase_add_test(tc, classroom_grades_every_lab);
    tcase_add_test(tc, readme_table_lists_every_lab);
    suite_add_tcase(s, tc);
    return s;
}
