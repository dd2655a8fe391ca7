/* check_arch.c: every architecture we build for, checked without a GPU.
 * `make arch-build` compiles every skeleton, solution, ceiling, adversarial
 * case and arch test case for sm_75 ... sm_120 (build/arch/sm_XX/, ptxas's
 * resource report beside each cubin) and builds the launch recorder
 * (grader/tests/arch/launches.c), which runs a lab library's host code over a
 * fake CUDA runtime that pretends to be that architecture's GPU. This suite:
 * - every source was built for every architecture (a source that does not
 *   compile for one fails the build itself);
 * - every launch a reference stage makes (solutions, and the given stages of
 *   the skeletons), at the recorder's sizes, fits the architecture: threads
 *   per block, grid, the kernel's own __launch_bounds__, registers per block
 *   (registers x threads, allocated per warp), shared memory per block
 *   (static + dynamic, with cudaFuncSetAttribute's opt-in) and per SM (with
 *   the 1 KB reserved per block); a refused cudaFuncSetAttribute or a stage
 *   that returns LAB_ERROR on that GPU fails too;
 * - no kernel a reference stage launches spills registers;
 * - the arch test cases (grader/tests/arch/limits_cases.cu) fail exactly
 *   where they should, so a failure here is not a test that cannot fail.
 * It writes the table of build/arch/table.md (make arch-table puts it into
 * handouts/instructors.md).
 *
 * What it cannot see: a launch shape that depends on data a kernel computed
 * (none in the labs); registers and shared memory the driver adds when it
 * JIT-compiles PTX for a newer GPU than we built for; occupancy beyond the
 * occupancy calculator's rules (shared-memory carveout choices, the register
 * file's split over the SM's four partitions); ceilings (CUB, cuBLAS) and
 * adversarial cases are built and their resources listed, but their launches
 * are not recorded. Without the builds every test here is reported skipped. */
#define _GNU_SOURCE
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../lab.h"
#include "arch/archinfo.h"
#include "tests.h"

#define ARCH_DIR "build/arch"
#define MAX_KERNELS 512
#define OUT_BYTES (1 << 20)

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* Skips the running test (and returns 1) when make arch-build has not run. */
static int builds_missing(const arch_limits *a)
{
    char dir[128];
    snprintf(dir, sizeof dir, ARCH_DIR "/sm_%d", a->sm);
    if (exists(ARCH_DIR "/launches") && exists(dir))
        return 0;
    char why[256];
    snprintf(why, sizeof why, "arch sm_%d: no builds in %s (run make arch-build, or make arch-check)",
             a->sm, dir);
    test_skip(why);
    return 1;
}

/* Does any stage of spec run on architecture sm? Lab 7's code exists for
 * sm_90a alone (every stage min_cc = max_cc = 90): make arch-build builds it
 * only there, and only there is it checked. */
static int lab_runs_on(const lab_spec *spec, int sm)
{
    for (int s = 0; s < spec->n_stages; s++)
        if (lab_stage_available(&spec->stages[s], sm / 10, sm % 10))
            return 1;
    return 0;
}

/* "_Z18tensor_core_kernelILb0ELi2EEviiifPKfS1_fPf" -> "tensor_core_kernel<false, 2>":
 * enough of the Itanium mangling for the labs' kernels (bool and int template
 * arguments); anything else keeps "<...>". Names without _Z stay as they are. */
static void short_name(const char *m, char *buf, size_t n)
{
    char *end;
    if (strncmp(m, "_Z", 2) != 0 || !(m[2] >= '0' && m[2] <= '9')) {
        snprintf(buf, n, "%.*s", (int)(n - 1), m);
        return;
    }
    long len = strtol(m + 2, &end, 10);
    int w = snprintf(buf, n, "%.*s", (int)len, end);
    const char *p = end + len;
    if (*p != 'I' || w < 0 || (size_t)w >= n)
        return;
    char args[128] = "";
    size_t used = 0;
    p++;
    while (*p == 'L' && used < sizeof args - 16) {
        int v;
        char type = p[1];
        if (sscanf(p + 2, "%d", &v) != 1)
            break;
        used += (size_t)snprintf(args + used, sizeof args - used, "%s%s", used ? ", " : "",
                                 type == 'b' ? (v ? "true" : "false") : "");
        if (type != 'b')
            used += (size_t)snprintf(args + used, sizeof args - used, "%d", v);
        p = strchr(p, 'E');
        if (!p)
            break;
        p++;
    }
    if (p && *p == 'E')
        snprintf(buf + w, n - (size_t)w, "<%s>", args);
    else
        snprintf(buf + w, n - (size_t)w, "<...>");
}

/* The ptxas log and the PTX of kind/name for architecture a. */
static int read_res(const arch_limits *a, const char *kind_name, kernel_res *k, char *log,
                    char *ptx, size_t n)
{
    snprintf(log, n, ARCH_DIR "/sm_%d/%s.ptxas", a->sm, kind_name);
    snprintf(ptx, n, ARCH_DIR "/sm_%d/%s.ptx", a->sm, kind_name);
    return kernel_res_read(log, ptx, k, MAX_KERNELS);
}

typedef struct finding {
    int failures;
    char text[8192];
} finding;

static void note_failure(finding *f, const char *fmt, const char *a, const char *b,
                         const char *c)
{
    char line[1024];
    snprintf(line, sizeof line, fmt, a, b, c);
    if (strstr(f->text, line)) /* the same launch at another size */
        return;
    size_t used = strlen(f->text);
    if (used < sizeof f->text - 1)
        snprintf(f->text + used, sizeof f->text - used, "%s", line);
    f->failures++;
}

/* Spills found by this suite when it was written (CUDA 13.0), in lab 4's
 * reference, on architectures it had not been measured on (everything was
 * measured on an H200, sm_90, where neither spills). Listed, not hidden:
 * they are in the table as FAILS, and a listed spill that goes away fails
 * the test too, so this list stays true. Removing one needs the kernel's
 * register cap (__launch_bounds__(256, 2) = 128 registers) weighed against
 * its speed on a GPU of that architecture. Any other spill fails. */
static const struct {
    int sm;
    const char *kernel;
} known_spills[] = {
    {75, "_Z14tile_2d_kerneliiifPKfS0_fPf"},   {80, "_Z14tile_2d_kerneliiifPKfS0_fPf"},
    {86, "_Z14tile_2d_kerneliiifPKfS0_fPf"},   {89, "_Z14tile_2d_kerneliiifPKfS0_fPf"},
    {100, "_Z16warp_tile_kerneliiifPKfS0_fPf"}, {120, "_Z16warp_tile_kerneliiifPKfS0_fPf"},
};

static int known_spill(int sm, const char *kernel)
{
    for (size_t i = 0; i < sizeof known_spills / sizeof known_spills[0]; i++)
        if (known_spills[i].sm == sm && strcmp(known_spills[i].kernel, kernel) == 0)
            return 1;
    return 0;
}

/* Runs the recorder on one library of lab `spec` for architecture a and
 * checks what it saw. Stages: every stage (reference = 1: every stage must
 * return LAB_OK) or only the given ones and LAB_TODO for the rest (skeleton);
 * a stage NOT AVAILABLE on a may return anything but LAB_OK from the reference.
 * Rows for the table go to rows (may be NULL). */
static void check_library(const arch_limits *a, const lab_spec *spec, const char *lib,
                          const char *kind_name, int reference, FILE *rows, finding *f)
{
    static kernel_res k[MAX_KERNELS];
    char log[256], ptx[256], sm[16], lab[16];
    int n = read_res(a, kind_name, k, log, ptx, sizeof log);
    char where[320];
    snprintf(where, sizeof where, "sm_%d %s", a->sm, kind_name);
    if (n < 0) {
        note_failure(f, "%s: %s%s: not built\n", where, "", log);
        return;
    }
    snprintf(sm, sizeof sm, "%d", a->sm);
    snprintf(lab, sizeof lab, "%d", spec->number);
    char *argv[6 + LAB_MAX_STAGES + 1] = {ARCH_DIR "/launches", sm, lab, (char *)lib, log, ptx};
    int argc = 6;
    for (int s = 0; s < spec->n_stages; s++)
        argv[argc++] = (char *)spec->stages[s].symbol;
    argv[argc] = NULL;
    static char out[OUT_BYTES];
    int rc = run_command(argv, NULL, out, sizeof out);
    if (rc != 0) {
        note_failure(f, "%s: the launch recorder exited %s: %.300s\n", where,
                     rc == 1 ? "1" : "abnormally", out);
        return;
    }
    char seen[256][320]; /* stage, kernel and shape already in the table */
    int n_seen = 0;
    for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
        int st;
        char name[256], status[32], sym[128];
        arch_launch l;
        if (sscanf(line, "launch %d %255s %u %u %u %u %u %u %zu %lld", &st, name, &l.grid[0],
                   &l.grid[1], &l.grid[2], &l.block[0], &l.block[1], &l.block[2], &l.dyn_smem,
                   &l.optin) == 10) {
            if (st < 0 || st >= spec->n_stages)
                continue;
            int ref = reference || spec->stages[st].given;
            const kernel_res *r = kernel_res_find(k, n, name);
            char why[512] = "", sname[160], stage[200];
            short_name(name, sname, sizeof sname);
            snprintf(stage, sizeof stage, "%s (stage %d)", spec->stages[st].symbol, st);
            if (!r) {
                note_failure(f, "%s: %s launches %s, which ptxas did not compile\n", where,
                             stage, name);
                continue;
            }
            int bad = arch_check_launch(a, r, &l, why, sizeof why) != 0;
            if (bad)
                note_failure(f, "%s: %s: %s\n", where, stage, why);
            int spills = r->spill_stores > 0 || r->spill_loads > 0;
            if (ref && spills) {
                char s[320];
                snprintf(s, sizeof s, "%s spills: %d bytes of spill stores, %d of spill loads",
                         sname, r->spill_stores, r->spill_loads);
                if (!known_spill(a->sm, name))
                    note_failure(f, "%s: %s: %s\n", where, stage, s);
                bad = 1;
                snprintf(why, sizeof why, "%s (known, listed in check_arch.c)", s);
            } else if (ref && known_spill(a->sm, name)) {
                note_failure(f, "%s: %s: %s no longer spills: take it off known_spills\n",
                             where, stage, sname);
            }
            int threads = (int)(l.block[0] * l.block[1] * l.block[2]);
            char key[320];
            snprintf(key, sizeof key, "%d %s %d %zu", st, name, threads, l.dyn_smem);
            int dup = 0;
            for (int i = 0; i < n_seen && !dup; i++)
                dup = strcmp(seen[i], key) == 0;
            if (dup || !rows || n_seen >= 256)
                continue;
            snprintf(seen[n_seen++], sizeof seen[0], "%s", key);
            /* lab, stage, title, kernel, threads, dynamic smem, arch, cell, verdict */
            fprintf(rows, "%d\t%d\t%s\t%s\t%d\t%zu\t%d\t%d regs, %.1f KB, %d/SM%s\t%s\n",
                    spec->number, st, spec->stages[st].title, sname, threads, l.dyn_smem, a->sm,
                    r->regs, (r->smem + l.dyn_smem) / 1024.0,
                    arch_occupancy(a, r, threads, l.dyn_smem),
                    r->spill_stores ? ", SPILLS" : "", bad ? why : "ok");
        } else if (strncmp(line, "refused ", 8) == 0 || strncmp(line, "error ", 6) == 0) {
            note_failure(f, "%s: %s%s\n", where, line, "");
        } else if (sscanf(line, "stage %d %127s %31s", &st, sym, status) == 3) {
            /* A stage whose technique this architecture lacks (lab 4's stage 8
             * below 8.0) is NOT AVAILABLE there and never called by the grader;
             * called anyway, the reference must refuse, not run another
             * technique in silence. */
            int here = st < spec->n_stages &&
                       lab_stage_available(&spec->stages[st], a->sm / 10, a->sm % 10);
            int want_ok = here && (reference || spec->stages[st].given);
            if (!here && reference && strcmp(status, "LAB_OK") == 0)
                note_failure(f, "%s: %s returned %s where its stage is NOT AVAILABLE: the "
                                "reference falls back to another technique in silence\n",
                             where, sym, status);
            else if (here && (want_ok ? strcmp(status, "LAB_OK") != 0
                                      : strcmp(status, "LAB_OK") != 0 &&
                                            strcmp(status, "LAB_TODO") != 0))
                note_failure(f, "%s: %s returned %s on this GPU\n", where, sym, status);
        }
    }
}

static FILE *open_rows(const arch_limits *a, const char *what)
{
    char path[128];
    snprintf(path, sizeof path, ARCH_DIR "/sm_%d/%s.tsv", a->sm, what);
    return fopen(path, "w");
}

/* The lab an adversarial case is graded as (its " * lab: N" line); 0 when
 * it names none. */
static int case_lab(const char *path)
{
    FILE *f = fopen(path, "r");
    char line[256];
    int lab = 0;
    while (f && !lab && fgets(line, sizeof line, f))
        if (sscanf(line, " * lab: %d", &lab) != 1)
            lab = 0;
    if (f)
        fclose(f);
    return lab;
}

/* Every source, built for this architecture (a lab's own sources, and its
 * adversarial cases, only where the lab runs: lab 7's for sm_90a). */
START_TEST(everything_built)
{
    const arch_limits *a = &arch_table[_i];
    if (builds_missing(a))
        return;
    static const char *const patterns[][2] = {
        {"labs/*/*.cu", "labs"},          {"solutions/*/*.cu", "solutions"},
        {"grader/ceilings/*.cu", "ceilings"}, {"grader/tests/adversarial/*.cu", "adversarial"},
        {"grader/tests/arch/*.cu", "cases"}};
    int missing = 0, built = 0;
    char first[512] = "";
    for (size_t p = 0; p < sizeof patterns / sizeof patterns[0]; p++) {
        glob_t g;
        if (glob(patterns[p][0], 0, NULL, &g) != 0)
            continue;
        for (size_t i = 0; i < g.gl_pathc; i++) {
            char name[256], path[512];
            const char *base = strrchr(g.gl_pathv[i], '/') + 1;
            if (p < 2) { /* labs/1-transpose/transpose.cu -> labs/lab1 */
                int number = atoi(g.gl_pathv[i] + strlen(patterns[p][1]) + 1);
                int at = lab_position(number);
                if (at >= 0 && !lab_runs_on(lab_table[at], a->sm))
                    continue;
                snprintf(name, sizeof name, "%s/lab%d", patterns[p][1], number);
            } else {
                int at = p == 3 ? lab_position(case_lab(g.gl_pathv[i])) : -1;
                if (at >= 0 && !lab_runs_on(lab_table[at], a->sm))
                    continue;
                snprintf(name, sizeof name, "%s/%.*s", patterns[p][1], (int)(strlen(base) - 3), base);
            }
            snprintf(path, sizeof path, ARCH_DIR "/sm_%d/%s.ptxas", a->sm, name);
            kernel_res k[MAX_KERNELS];
            if (kernel_res_read(path, NULL, k, MAX_KERNELS) < 0) {
                if (!missing++)
                    snprintf(first, sizeof first, "%s", path);
            } else {
                built++;
            }
        }
        globfree(&g);
    }
    ck_assert_msg(missing == 0, "sm_%d: %d sources not built (first: %s): run make arch-build",
                  a->sm, missing, first);
    ck_assert_int_gt(built, 60);
}
END_TEST

/* The solutions, every stage: launches fit, nothing spills. */
START_TEST(references_fit)
{
    const arch_limits *a = &arch_table[_i];
    if (builds_missing(a))
        return;
    static finding f;
    FILE *rows = open_rows(a, "solutions");
    for (int i = 0; i < lab_count; i++) {
        char lib[64], kind[64];
        if (!lab_runs_on(lab_table[i], a->sm))
            continue;
        snprintf(lib, sizeof lib, "build/solutions/lab%d.so", lab_table[i]->number);
        snprintf(kind, sizeof kind, "solutions/lab%d", lab_table[i]->number);
        check_library(a, lab_table[i], lib, kind, 1, rows, &f);
    }
    if (rows)
        fclose(rows);
    ck_assert_msg(f.failures == 0, "sm_%d (%s): %d problems:\n%s", a->sm, a->example,
                  f.failures, f.text);
}
END_TEST

/* The skeletons: the given stages fit and do not spill; the rest say TODO. */
START_TEST(skeletons_fit)
{
    const arch_limits *a = &arch_table[_i];
    if (builds_missing(a))
        return;
    static finding f;
    for (int i = 0; i < lab_count; i++) {
        char lib[64], kind[64];
        if (!lab_runs_on(lab_table[i], a->sm))
            continue;
        snprintf(lib, sizeof lib, "build/lab%d.so", lab_table[i]->number);
        snprintf(kind, sizeof kind, "labs/lab%d", lab_table[i]->number);
        check_library(a, lab_table[i], lib, kind, 0, NULL, &f);
    }
    ck_assert_msg(f.failures == 0, "sm_%d: %d problems:\n%s", a->sm, f.failures, f.text);
}
END_TEST

/* The deliberate bad cases fail, each for its own reason, where they must. */
START_TEST(bad_cases_fail)
{
    const arch_limits *a = &arch_table[_i];
    if (builds_missing(a))
        return;
    static finding f;
    check_library(a, lab_find("1"), ARCH_DIR "/cases/limits_cases.so", "cases/limits_cases", 1,
                  NULL, &f);
    const char *t = f.text;
    ck_assert_msg(!strstr(t, "transpose_copy"), "sm_%d: the control case failed:\n%s", a->sm, t);
    ck_assert_msg(strstr(t, "transpose_naive_read (stage 1): spill_kernel spills: "),
                  "sm_%d: the spilling kernel passed:\n%s", a->sm, t);
    int small = a->smem_per_block < 100 * 1024;
    ck_assert_msg(!small || (strstr(t, "refused 2 _Z17big_shared_kernel") &&
                             strstr(t, "transpose_naive_write returned LAB_ERROR")),
                  "sm_%d: 100 KB of shared memory per block passed (limit %d):\n%s", a->sm,
                  a->smem_per_block, t);
    ck_assert_msg(small || !strstr(t, "naive_write"),
                  "sm_%d: 100 KB of shared memory per block failed (limit %d):\n%s", a->sm,
                  a->smem_per_block, t);
    ck_assert_msg(strstr(t, "transpose_tiled (stage 3):") && strstr(t, "registers per block"),
                  "sm_%d: registers x threads over 65536 passed:\n%s", a->sm, t);
    ck_assert_msg(strstr(t, "transpose_padded (stage 4): 512 threads per block, over the "
                            "kernel's __launch_bounds__(256)"),
                  "sm_%d: a launch over __launch_bounds__ passed:\n%s", a->sm, t);
}
END_TEST

/* The table of every architecture, from the rows references_fit wrote:
 * build/arch/table.md, a row per stage and kernel, a column per architecture. */
START_TEST(write_table)
{
    if (builds_missing(&arch_table[0]))
        return;
    typedef struct row {
        char key[400], lab_stage[64], title[160], kernel[160], threads[16];
        char cell[8][96];
    } row;
    static row rows[400];
    int n = 0;
    char notes[8192] = "";
    for (int ai = 0; ai < arch_count && ai < 8; ai++) {
        char path[128], line[1024];
        snprintf(path, sizeof path, ARCH_DIR "/sm_%d/solutions.tsv", arch_table[ai].sm);
        FILE *in = fopen(path, "r");
        ck_assert_msg(in != NULL, "%s missing: the references_fit test did not run", path);
        while (fgets(line, sizeof line, in)) {
            line[strcspn(line, "\n")] = '\0';
            char *fld[9];
            int nf = 0;
            for (char *p = strtok(line, "\t"); p && nf < 9; p = strtok(NULL, "\t"))
                fld[nf++] = p;
            if (nf != 9)
                continue;
            char key[400];
            snprintf(key, sizeof key, "%s.%s.%s.%s.%s", fld[0], fld[1], fld[3], fld[4], fld[5]);
            int r = 0;
            while (r < n && strcmp(rows[r].key, key) != 0)
                r++;
            if (r == n && n < 400) {
                memset(&rows[n], 0, sizeof rows[n]);
                snprintf(rows[n].key, sizeof rows[n].key, "%s", key);
                snprintf(rows[n].lab_stage, sizeof rows[n].lab_stage, "%s.%s", fld[0], fld[1]);
                snprintf(rows[n].title, sizeof rows[n].title, "%s", fld[2]);
                snprintf(rows[n].kernel, sizeof rows[n].kernel, "%s", fld[3]);
                snprintf(rows[n].threads, sizeof rows[n].threads, "%s", fld[4]);
                n++;
            }
            if (r < n)
                snprintf(rows[r].cell[ai], sizeof rows[r].cell[ai], "%s%s%s", fld[7],
                         strcmp(fld[8], "ok") ? " **FAILS**" : "", "");
            if (strcmp(fld[8], "ok") != 0) {
                size_t u = strlen(notes);
                snprintf(notes + u, sizeof notes - u, "- sm_%s, lab %s stage %s, %s: %s\n",
                         fld[6], fld[0], fld[1], fld[3], fld[8]);
            }
        }
        fclose(in);
    }
    FILE *out = fopen(ARCH_DIR "/table.md", "w");
    ck_assert_ptr_nonnull(out);
    fprintf(out, "| lab.stage | stage | kernel | threads |");
    for (int ai = 0; ai < arch_count; ai++)
        fprintf(out, " sm_%d (%s) |", arch_table[ai].sm, arch_table[ai].example);
    fprintf(out, "\n|---|---|---|---|");
    for (int ai = 0; ai < arch_count; ai++)
        fprintf(out, "---|");
    fprintf(out, "\n");
    for (int r = 0; r < n; r++) {
        fprintf(out, "| %s | %s | `%s` | %s |", rows[r].lab_stage, rows[r].title, rows[r].kernel,
                rows[r].threads);
        for (int ai = 0; ai < arch_count; ai++)
            fprintf(out, " %s |", rows[r].cell[ai][0] ? rows[r].cell[ai] : "not launched");
        fprintf(out, "\n");
    }
    fprintf(out, "\n%s", notes[0] ? "Limits broken:\n\n" : "No reference launch breaks a limit "
                                                             "and no reference kernel spills on "
                                                             "any of these architectures.\n");
    fprintf(out, "%s", notes);
    fclose(out);
    ck_assert_int_gt(n, 20);
}
END_TEST

Suite *make_arch_suite(void)
{
    Suite *s = suite_create("arch");
    TCase *tc = tcase_create("arch");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, everything_built, 0, arch_count);
    tcase_add_loop_test(tc, references_fit, 0, arch_count);
    tcase_add_loop_test(tc, skeletons_fit, 0, arch_count);
    tcase_add_loop_test(tc, bad_cases_fail, 0, arch_count);
    tcase_add_test(tc, write_table);
    suite_add_tcase(s, tc);
    return s;
}
