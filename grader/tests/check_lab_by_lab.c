/* check_lab_by_lab.c: what ./grade relies on to grade several labs one after
 * another (grader/main.c): each lab's pregenerated data is freed by its
 * release() and made again, byte for byte, from the same seed; one Check
 * runner adds up the tests of suites run one at a time; and the big host
 * buffers are advised for huge pages, so forking a child per test stays
 * cheap while a lab's data is held. No GPU. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../common/hostmem.h"
#include "../lab.h"
#include "../runner.h"
#include "tests.h"

/* The sizes a unit test can afford (work in the lab's unit, x 1e9): the
 * CPU references of the larger ones take seconds to minutes on a small
 * machine. Every lab has at least two. */
static int small(const lab_spec *spec, int size)
{
    return spec->work(0, size) <= 1e-3;
}

START_TEST(release_frees_and_pregenerate_repeats)
{
    const lab_spec *spec = lab_table[_i];
    if (!spec->pregenerate)
        return; /* no cache: nothing to release */
    ck_assert_msg(spec->release && spec->held, "lab %d pregenerates but has no release/held",
                  spec->number);
    const uint64_t seed = 0x5eed1234abcdull, other = 0x5eed1234abceull;
    uint64_t first[32] = {0};
    int made = 0;
    ck_assert_int_le(spec->n_sizes, 32);
    for (int size = 0; size < spec->n_sizes; size++) {
        if (!small(spec, size))
            continue;
        ck_assert_int_eq(spec->pregenerate(size, runner_size_seed(seed, 0, size), 2), 0);
        size_t b = spec->held(size, &first[size]);
        ck_assert_msg(b > 0, "lab %d size %d: pregenerate made nothing", spec->number, size);
        made++;
    }
    ck_assert_msg(made >= 2, "lab %d: only %d small sizes", spec->number, made);

    for (int size = 0; size < spec->n_sizes; size++)
        spec->release(size);
    for (int size = 0; size < spec->n_sizes; size++)
        ck_assert_msg(spec->held(size, NULL) == 0, "lab %d size %d still held after release",
                      spec->number, size);

    for (int size = 0; size < spec->n_sizes; size++) {
        if (!small(spec, size))
            continue;
        uint64_t again = 0, changed = 0;
        ck_assert_int_eq(spec->pregenerate(size, runner_size_seed(seed, 0, size), 2), 0);
        ck_assert_uint_gt(spec->held(size, &again), 0);
        ck_assert_msg(again == first[size], "lab %d size %d: other data from the same seed",
                      spec->number, size);
        /* The digest reads the data: another seed gives another one. */
        ck_assert_int_eq(spec->pregenerate(size, runner_size_seed(other, 0, size), 2), 0);
        ck_assert_uint_gt(spec->held(size, &changed), 0);
        ck_assert_msg(changed != first[size], "lab %d size %d: the digest misses the seed",
                      spec->number, size);
    }
    for (int size = 0; size < spec->n_sizes; size++)
        spec->release(size);
    for (int size = 0; size < spec->n_sizes; size++)
        ck_assert_uint_eq(spec->held(size, NULL), 0);
}
END_TEST

/* Tests of the runner below, not of the suite. */
START_TEST(passes_on_purpose)
{
    ck_assert_int_ge(_i, 0);
}
END_TEST

START_TEST(fails_on_purpose)
{
    ck_assert_msg(_i < 0, "failed on purpose");
}
END_TEST

/* grader/main.c runs one suite per lab with srunner_run on one runner and
 * reads the totals after the last: Check must add them up across runs. */
START_TEST(runs_of_one_runner_add_up)
{
    /* As ./grade does: the outer run's selection and logs are not this one's. */
    static const char *const outer[] = {"CK_RUN_SUITE",     "CK_RUN_CASE",
                                        "CK_INCLUDE_TAGS",  "CK_EXCLUDE_TAGS",
                                        "CK_LOG_FILE_NAME", "CK_XML_LOG_FILE_NAME",
                                        "CK_TAP_LOG_FILE_NAME"};
    for (size_t i = 0; i < sizeof outer / sizeof outer[0]; i++)
        unsetenv(outer[i]);
    Suite *a = suite_create("lab1"), *b = suite_create("lab2");
    TCase *ta = tcase_create("lab1.s0"), *tb = tcase_create("lab2.s0");
    tcase_add_loop_test(ta, passes_on_purpose, 0, 2);
    tcase_add_loop_test(tb, passes_on_purpose, 0, 3);
    tcase_add_loop_test(tb, fails_on_purpose, 0, 1);
    suite_add_tcase(a, ta);
    suite_add_tcase(b, tb);
    SRunner *sr = srunner_create(a);
    srunner_add_suite(sr, b);
    srunner_set_fork_status(sr, CK_FORK);
    srunner_run(sr, "lab1", NULL, CK_SILENT);
    ck_assert_int_eq(srunner_ntests_run(sr), 2);
    ck_assert_int_eq(srunner_ntests_failed(sr), 0);
    srunner_run(sr, "lab2", NULL, CK_SILENT);
    ck_assert_int_eq(srunner_ntests_run(sr), 6);
    ck_assert_int_eq(srunner_ntests_failed(sr), 1);
    TestResult **trs = srunner_results(sr);
    ck_assert_ptr_nonnull(trs);
    ck_assert_str_eq(tr_tcname(trs[0]), "lab1.s0");
    ck_assert_str_eq(tr_tcname(trs[5]), "lab2.s0");
    ck_assert_int_eq(tr_rtype(trs[5]), CK_FAILURE);
    free(trs);
    /* The summary line ./grade prints counts both labs. */
    char text[256];
    check_summary_text(sr, text, sizeof text);
    ck_assert_msg(strstr(text, "83%: Checks: 6, Failures: 1, Errors: 0"), "%s", text);
    srunner_free(sr);
}
END_TEST

/* A lab named twice gets two suites of different names, so that running
 * one by name does not run the other. */
START_TEST(suite_names_are_unique)
{
    static grade_run r[3];
    const lab_spec *specs[3] = {lab_find("lab1"), lab_find("lab2"), lab_find("lab1")};
    SRunner *sr = NULL;
    for (int i = 0; i < 3; i++) {
        memset(&r[i], 0, sizeof r[i]);
        r[i].spec = specs[i];
        r[i].reps = 20;
        Suite *s = runner_suite(&r[i], NULL);
        ck_assert_ptr_nonnull(s);
        if (!sr)
            sr = srunner_create(s);
        else
            srunner_add_suite(sr, s);
    }
    srunner_free(sr);
    ck_assert_str_eq(r[0].suite, "lab1");
    ck_assert_str_eq(r[1].suite, "lab2");
    ck_assert_str_eq(r[2].suite, "lab1-2");
}
END_TEST

/* Where this kernel has transparent huge pages, the mapping of a big buffer
 * carries the advice (VmFlags "hg" in /proc/self/smaps); everywhere, it is
 * aligned to 2 MiB and usable to its last byte. */
static int advised(const void *p)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f)
        return -1;
    char line[512];
    int inside = 0, found = -1;
    uintptr_t a = (uintptr_t)p;
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' ')) {
            inside = a >= lo && a < hi;
            continue;
        }
        if (inside && strncmp(line, "VmFlags:", 8) == 0) {
            found = strstr(line, " hg") != NULL;
            break;
        }
    }
    fclose(f);
    return found;
}

START_TEST(big_buffers_ask_for_huge_pages)
{
    size_t bytes = 3 * HOSTMEM_HUGE + 12345;
    unsigned char *p = hostmem_alloc(bytes);
    ck_assert_ptr_nonnull(p);
    ck_assert_uint_eq((uintptr_t)p % HOSTMEM_HUGE, 0);
    memset(p, 0xab, bytes);
    ck_assert_uint_eq(p[bytes - 1], 0xab);
    if (access("/sys/kernel/mm/transparent_hugepage/enabled", R_OK) == 0)
        ck_assert_int_eq(advised(p), 1);
    free(p);
    unsigned char *q = hostmem_alloc(100); /* small: plain malloc */
    ck_assert_ptr_nonnull(q);
    q[99] = 1;
    free(q);
}
END_TEST

Suite *make_lab_by_lab_suite(void)
{
    Suite *s = suite_create("lab-by-lab");
    TCase *tc = tcase_create("lab-by-lab");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, release_frees_and_pregenerate_repeats, 0, lab_count);
    tcase_add_test(tc, runs_of_one_runner_add_up);
    tcase_add_test(tc, suite_names_are_unique);
    tcase_add_test(tc, big_buffers_ask_for_huge_pages);
    suite_add_tcase(s, tc);
    return s;
}
