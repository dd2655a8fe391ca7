/* The chart, the HTML report, and results read back with --from. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../chart.h"
#include "../formats.h"
#include "../html.h"
#include "../load.h"
#include "../report.h"
#include "tests.h"

extern const lab_spec lab_transpose;
extern const lab_spec lab_gemm;

static lab_results res;
static devinfo dev;

static void setup_run(const char *gpu)
{
    fixture_results(&res);
    /* Stage 3 is correct but its kernel lacks the shared-memory tile. */
    snprintf(res.t[3][TEST_CORRECT].kernels, sizeof res.t[3][TEST_CORRECT].kernels, "%s",
             "_Z12naive_kernelPKfPfii");
    snprintf(res.t[3][TEST_CORRECT].missing_technique,
             sizeof res.t[3][TEST_CORRECT].missing_technique, "%s",
             "shared-memory stores (STS)");
    /* Give the timed speed tests their base times, so thresholds can be drawn. */
    res.t[3][TEST_PERF].median_ms = 0.2;
    res.t[3][TEST_PERF].base_ms = 0.5;
    res.t[4][TEST_PERF].median_ms = 0.16;
    res.t[4][TEST_PERF].base_ms = 0.166;
    memset(&dev, 0, sizeof dev);
    snprintf(dev.name, sizeof dev.name, "%s", gpu);
    dev.cc_major = 9;
}

static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

static char page[65536];

/* Renders into page and returns it. */
static char *render(int (*fn)(FILE *, const void *), const void *arg)
{
    memset(page, 0, sizeof page);
    FILE *f = fmemopen(page, sizeof page - 1, "w");
    ck_assert_int_eq(fn(f, arg), 0);
    fclose(f);
    return page;
}

static int chart_fn(FILE *f, const void *arg)
{
    (void)arg;
    return chart_svg(f, &lab_transpose, &res, &dev);
}

static int html_fn(FILE *f, const void *arg)
{
    return report_html(f, arg);
}

START_TEST(chart_on_another_gpu)
{
    setup_run("NVIDIA RTX A6000");
    char *svg = render(chart_fn, NULL);
    ck_assert(xml_well_nested(svg));
    ck_assert(strncmp(svg, "<svg xmlns=\"http://www.w3.org/2000/svg\"", 39) == 0);
    ck_assert_ptr_nonnull(strstr(svg, "lab 1 (transpose) on NVIDIA RTX A6000"));
    /* Bars for the three timed stages: 0, 3 and 4, coloured by verdict. */
    ck_assert_int_eq(count(svg, "height=\"16\" fill=\""), 3);
    ck_assert_ptr_nonnull(strstr(svg, "fill=\"#5b84c4\"/>")); /* stage 0, speed reported */
    ck_assert_ptr_nonnull(strstr(svg, "fill=\"#3f9b6b\"/>")); /* stage 3, fast enough */
    ck_assert_ptr_nonnull(strstr(svg, "fill=\"#e0a030\"/>")); /* stage 4, too slow */
    /* Thresholds at base throughput x needed speedup, for stages 3 and 4. */
    ck_assert_int_eq(count(svg, "<title>needs "), 2);
    ck_assert_ptr_nonnull(strstr(svg, "needs 1.10x over stage 3"));
    ck_assert_ptr_nonnull(strstr(svg, "ceiling: cudaMemcpy D2D, 4216 GB/s"));
    ck_assert_ptr_nonnull(strstr(svg, ">WRONG RESULT<"));
    ck_assert_ptr_nonnull(strstr(svg, ">correct (not timed)<"));
    /* The reference was measured on an H200, not this GPU. */
    ck_assert_ptr_null(strstr(svg, "reference"));
}
END_TEST

/* Lab 4 on an H200: the reference marks carry one decimal below 10 (the
 * naive stage's 0.5 TFLOP/s must not read "0"). */
static int gemm_chart_fn(FILE *f, const void *arg)
{
    (void)arg;
    static lab_results g;
    memset(&g, 0, sizeof g);
    g.t[0][TEST_CORRECT] = (test_record){.graded = 1, .state = STATE_FINISHED, .v = V_PASS,
                                         .timed = 1, .throughput = 0.49, .ceiling_throughput = 50};
    g.t[8][TEST_CORRECT] = (test_record){.graded = 1, .state = STATE_FINISHED, .v = V_PASS};
    g.t[8][TEST_PERF] = (test_record){.graded = 1, .state = STATE_FINISHED, .v = V_PASS,
                                      .timed = 1, .throughput = 130, .ceiling_throughput = 300};
    return chart_svg(f, &lab_gemm, &g, &dev);
}

START_TEST(chart_marks_the_reference_on_its_gpu)
{
    setup_run("NVIDIA H200");
    char *svg = render(chart_fn, NULL);
    ck_assert(xml_well_nested(svg));
    ck_assert_ptr_nonnull(strstr(svg, "reference solution"));
    ck_assert_ptr_nonnull(strstr(svg, "<title>reference: 1693 GB/s</title>"));
    svg = render(gemm_chart_fn, NULL);
    ck_assert(xml_well_nested(svg));
    ck_assert_ptr_nonnull(strstr(svg, "<title>reference: 0.5 TFLOP/s</title>"));
    ck_assert_ptr_nonnull(strstr(svg, "<title>reference: 132 TFLOP/s</title>"));
}
END_TEST

START_TEST(html_page)
{
    setup_run("NVIDIA RTX A6000");
    const lab_spec *specs[] = {&lab_transpose};
    run_summary r = {specs, &res, 1, &dev, 0xbeef, 0, NULL, NULL};
    char *html = render(html_fn, &r);
    ck_assert(strncmp(html, "<!DOCTYPE html>", 15) == 0);
    ck_assert_ptr_nonnull(strstr(html, "<h1>CUDA Labs results: 40/70 points</h1>"));
    ck_assert_ptr_nonnull(strstr(html, "<svg xmlns"));
    ck_assert_int_eq(count(html, "<table>"), count(html, "</table>"));
    ck_assert_int_eq(count(html, "<div class=\"fix\">"), 2); /* stage 4 slow, stage 5 wrong */
    ck_assert_ptr_nonnull(strstr(html, "hint: Padding removes the conflict"));
    ck_assert_ptr_nonnull(strstr(html, "./grade lab1 --stage 5 --seed 0xbeef"));
    ck_assert_ptr_nonnull(strstr(html, "float tile[32][33]"));
    ck_assert_ptr_nonnull(strstr(html, "<h3>Techniques</h3>"));
    ck_assert_ptr_nonnull(strstr(html, "<li>stage 3 (shared-memory tile): no shared-memory "
                                       "stores (STS)</li>"));
    /* Self-contained: nothing to fetch, nothing to run. */
    ck_assert_ptr_null(strstr(html, "<script"));
    ck_assert_ptr_null(strstr(html, "src="));
    ck_assert_ptr_null(strstr(html, "href="));
    ck_assert_ptr_null(strstr(html, "<link"));
}
END_TEST

/* Every verdict a test can end with is named on the page, not only coloured:
 * in the scoreboard for a correctness test, and next to the ratio for a
 * timed speed test (TECHNIQUE MISSING was an orange ratio alone). */
START_TEST(html_names_every_verdict)
{
    const lab_spec *specs[] = {&lab_transpose};
    run_summary r = {specs, &res, 1, &dev, 0xbeef, 0, NULL, NULL};
    for (int v = V_SLOW; v < V_COUNT; v++) {
        setup_run("NVIDIA RTX A6000");
        res.t[4][TEST_PERF].v = (verdict)v; /* timed, with a ratio */
        char *html = render(html_fn, &r);
        char cell[160];
        snprintf(cell, sizeof cell, "1.04x over 3: %s</td>", verdict_name((verdict)v));
        ck_assert_msg(strstr(html, cell) != NULL, "speed verdict %s is not named",
                      verdict_name((verdict)v));
        setup_run("NVIDIA RTX A6000");
        res.t[1][TEST_CORRECT].v = (verdict)v;
        html = render(html_fn, &r);
        snprintf(cell, sizeof cell, "\">%s</td>", verdict_name((verdict)v));
        ck_assert_msg(strstr(html, cell) != NULL, "correctness verdict %s is not named",
                      verdict_name((verdict)v));
    }
}
END_TEST

/* Lab 3 measures four ceilings: every dashed ceiling line carries its name
 * as text on the chart, not only as a tooltip. */
START_TEST(chart_labels_every_ceiling)
{
    extern const lab_spec lab_shuffle;
    static lab_results three;
    memset(&three, 0, sizeof three);
    for (int s = 0; s < lab_shuffle.n_stages; s++) {
        three.t[s][TEST_CORRECT] = (test_record){.graded = 1, .state = STATE_FINISHED,
                                                 .v = V_PASS, .timed = 1, .throughput = 1000,
                                                 .pct_ceiling = 50, .base = -1,
                                                 .ceiling_throughput = 1500 + 500 * (s % 4)};
        three.t[s][TEST_PERF].base = -1;
    }
    memset(&dev, 0, sizeof dev);
    char *svg = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&svg, &len);
    ck_assert_int_eq(chart_svg(f, &lab_shuffle, &three, &dev), 0);
    fclose(f);
    ck_assert(xml_well_nested(svg));
    int lines = count(svg, "stroke-dasharray=\"4,3\" stroke-width=\"1.5\"><title>ceiling:");
    ck_assert_int_eq(lines, lab_shuffle.n_stages);
    int names = 0;
    for (int s = 0; s < lab_shuffle.n_stages; s++) {
        char label[260], esc[200];
        format_xml_escape(lab_ceiling_name(&lab_shuffle, s), esc, sizeof esc);
        snprintf(label, sizeof label, "fill=\"#444\">%s</text>", esc);
        ck_assert_msg(strstr(svg, label) != NULL, "no label for %s", esc);
        names += count(svg, label) > 0;
    }
    ck_assert_int_eq(count(svg, "font-size=\"10\" fill=\"#444\">"), lines);
    ck_assert_int_ge(names, 4);
    free(svg);
}
END_TEST

/* --json then --from gives the same run back. */
START_TEST(load_round_trip)
{
    setup_run("NVIDIA H200");
    char path[] = "/tmp/cudalabs-loadXXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    FILE *f = fdopen(fd, "w");
    const lab_spec *specs[] = {&lab_transpose};
    const char *libs[] = {"x.so"};
    ck_assert_int_eq(report_json(f, specs, &res, 1, &dev, 0x1234, libs), 0);
    fclose(f);
    static loaded_lab loaded[4];
    static lab_results back[4];
    int n = 0;
    devinfo d2;
    uint64_t seed = 0;
    char err[256];
    double elapsed = 0;
    ck_assert_int_eq(results_load(path, loaded, back, 4, &n, &d2, &seed, &elapsed, NULL, 0, err, sizeof err), 0);
    unlink(path);
    ck_assert_int_eq(n, 1);
    ck_assert_int_eq(loaded[0].spec.number, lab_transpose.number);
    ck_assert_str_eq(loaded[0].library, "x.so");
    ck_assert_uint_eq(seed, 0x1234);
    ck_assert_str_eq(d2.name, "NVIDIA H200");
    ck_assert_int_eq(d2.cc_major, 9);
    for (int s = 0; s < lab_transpose.n_stages; s++)
        for (int k = 0; k < TEST_KINDS; k++) {
            const test_record *a = &res.t[s][k], *b = &back[0].t[s][k];
            ck_assert_int_eq(a->graded, b->graded);
            if (!a->graded)
                continue;
            ck_assert_int_eq(a->v, b->v);
            ck_assert_str_eq(a->msg, b->msg);
            ck_assert_str_eq(a->kernels, b->kernels);
            ck_assert_str_eq(a->missing_technique, b->missing_technique);
            ck_assert_int_eq(a->timed, b->timed);
            ck_assert_double_eq_tol(a->throughput, b->throughput, 1e-3);
            ck_assert_double_eq_tol(a->speedup, b->speedup, 1e-6);
            ck_assert_int_eq(a->base, b->base);
        }
    int got, max;
    report_score(&lab_transpose, &back[0], &got, &max);
    ck_assert_int_eq(got, 40);
    ck_assert_int_eq(max, 70);
    ck_assert_int_eq(results_load("/nonexistent.json", loaded, back, 4, &n, &d2, &seed, &elapsed, NULL, 0, err, sizeof err), -1);
}
END_TEST

Suite *make_pictures_suite(void)
{
    Suite *s = suite_create("pictures");
    TCase *tc = tcase_create("pictures");
    tcase_add_test(tc, chart_on_another_gpu);
    tcase_add_test(tc, chart_marks_the_reference_on_its_gpu);
    tcase_add_test(tc, html_page);
    tcase_add_test(tc, load_round_trip);
    tcase_add_test(tc, html_names_every_verdict);
    tcase_add_test(tc, chart_labels_every_ceiling);
    suite_add_tcase(s, tc);
    return s;
}
