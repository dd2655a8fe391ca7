/* check_streams.c: lab 5's bound arithmetic and timeline rendering, its
 * spec, and the three functions of every stage in the skeleton and the
 * reference. */
#include <stdio.h>
#include <string.h>

#include "../elfsym.h"
#include "../lab.h"
#include "../labs/streams_lab.h"
#include "tests.h"

/* Three chunks' worth of work on two streams, one chunk each, offset by one
 * step: the second chunk's copy in runs under the first one's kernel. */
static const span pipeline[] = {
    {0, SPAN_H2D, 0, 1}, {0, SPAN_KERNEL, 1, 2}, {0, SPAN_D2H, 2, 3},
    {1, SPAN_H2D, 1, 2}, {1, SPAN_KERNEL, 2, 3}, {1, SPAN_D2H, 3, 4},
};

START_TEST(hidden_copy_time)
{
    /* Everything one after the other: nothing hidden. */
    span serial[] = {{0, SPAN_H2D, 0, 1}, {0, SPAN_KERNEL, 1, 2}, {0, SPAN_D2H, 2, 3}};
    ck_assert_double_eq_tol(streams_hidden_fraction(serial, 3), 0.0, 1e-12);
    /* Half of the copy time runs under another stream's work. */
    ck_assert_double_eq_tol(streams_hidden_fraction(pipeline, 6), 0.5, 1e-12);
    /* Copies in both directions at once hide each other. */
    span duplex[] = {{0, SPAN_H2D, 0, 2}, {1, SPAN_D2H, 1, 3}};
    ck_assert_double_eq_tol(streams_hidden_fraction(duplex, 2), 0.5, 1e-12);
    /* Two copies the same way on two streams do not hide each other. */
    span same[] = {{0, SPAN_H2D, 0, 2}, {1, SPAN_H2D, 0, 2}};
    ck_assert_double_eq_tol(streams_hidden_fraction(same, 2), 0.0, 1e-12);
    ck_assert_double_eq_tol(streams_hidden_fraction(NULL, 0), 0.0, 1e-12);
}
END_TEST

/* SAXPY moves 8 bytes in and 4 out per element: with copies that overlap
 * perfectly it can gain at most 1.5x over running them one after the other. */
START_TEST(overlap_bound)
{
    double n = 67108864.0; /* 2^26 floats */
    double serial = streams_serial_ms(8 * n, 4 * n, 0.0, 55, 55);
    double bound = streams_overlap_bound_ms(8 * n, 4 * n, 0.0, 55, 55, 110);
    ck_assert_double_eq_tol(serial / bound, 1.5, 1e-9);
    ck_assert_double_eq_tol(bound, 8 * n / 55e6, 1e-9); /* the copy-in lane */
    /* The H200's 89 GB/s for both directions at once still lets the copy-in
     * lane be the longest; a tighter shared limit becomes the bound. */
    ck_assert_double_eq_tol(streams_overlap_bound_ms(8 * n, 4 * n, 0.0, 55, 55, 89), bound, 1e-9);
    double shared = streams_overlap_bound_ms(8 * n, 4 * n, 0.0, 55, 55, 70);
    ck_assert_double_eq_tol(shared, 12 * n / 70e6, 1e-9);
    /* A kernel longer than every copy is the bound. */
    ck_assert_double_eq_tol(streams_overlap_bound_ms(8 * n, 4 * n, 50.0, 55, 55, 89), 50.0, 1e-12);
}
END_TEST

START_TEST(timeline_text)
{
    char buf[512];
    size_t need = streams_timeline(buf, sizeof buf, pipeline, 6, 8);
    ck_assert_uint_eq(need, strlen(buf));
    ck_assert_str_eq(buf, "  stream 0  |HHKKDD..|\n"
                          "  stream 1  |..HHKKDD|\n"
                          "             0       4.000 ms   H copy in, K kernel, D copy out\n");
    /* Too small a buffer: cut, never overrun, and the needed length is told. */
    char small[16];
    ck_assert_uint_eq(streams_timeline(small, sizeof small, pipeline, 6, 8), need);
    ck_assert_uint_eq(strlen(small), sizeof small - 1);
    ck_assert_uint_eq(streams_timeline(NULL, 0, pipeline, 6, 8), need);
}
END_TEST

extern const lab_spec lab_streams;

/* Timed host to host, n = 2^25 timed (384 MiB through PCIe per call), the
 * stages named by their run functions, zero-copy compared with the stage it
 * should match, the heavy overlap with the heavy serial stage. */
START_TEST(spec_is_host_timed)
{
    const lab_spec *l = &lab_streams;
    ck_assert_int_eq(l->host_timed, 1);
    ck_assert_int_eq(l->available, 1);
    ck_assert_int_eq(l->n_stages, 6);
    ck_assert_double_eq_tol(l->work(1, l->bench_size), 12.0 * 33554432 / 1e9, 1e-12);
    ck_assert_int_eq(l->stages[3].base[0], 2);
    ck_assert_int_eq(l->stages[5].base[0], 4);
    ck_assert(l->stages[0].given && l->stages[4].given);
    ck_assert(l->stages[1].min_ceiling > 0 && l->stages[1].n_base == 0);
    for (int s = 0; s < l->n_stages; s++) {
        size_t len = strlen(l->stages[s].symbol);
        ck_assert(len > 4 && strcmp(l->stages[s].symbol + len - 4, "_run") == 0);
    }
    char text[64];
    l->size_text(0, text, sizeof text);
    ck_assert_str_eq(text, "n = 1, 5 chunks"); /* more chunks than elements */
}
END_TEST

/* Both libraries that make test builds define <stage>_setup, _run and
 * _teardown for every stage. */
START_TEST(every_stage_is_three_functions)
{
    const char *libs[] = {"build/lab5.so", "build/solutions/lab5.so"};
    const char *suffix[] = {"_setup", "_run", "_teardown"};
    for (int i = 0; i < 2; i++)
        for (int s = 0; s < lab_streams.n_stages; s++)
            for (int f = 0; f < 3; f++) {
                const char *run = lab_streams.stages[s].symbol;
                char name[96], err[256] = "";
                snprintf(name, sizeof name, "%.*s%s", (int)(strlen(run) - 4), run, suffix[f]);
                ck_assert_msg(elf_defines_function(libs[i], name, err, sizeof err) == 1,
                              "%s: no %s %s", libs[i], name, err);
            }
}
END_TEST

Suite *make_streams_suite(void)
{
    Suite *s = suite_create("streams");
    TCase *tc = tcase_create("streams");
    tcase_add_test(tc, hidden_copy_time);
    tcase_add_test(tc, overlap_bound);
    tcase_add_test(tc, timeline_text);
    tcase_add_test(tc, spec_is_host_timed);
    tcase_add_test(tc, every_stage_is_three_functions);
    suite_add_tcase(s, tc);
    return s;
}
