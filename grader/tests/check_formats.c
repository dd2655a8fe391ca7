#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "../formats.h"
#include "tests.h"

extern const lab_spec lab_transpose;

static lab_results res;
static const lab_spec *specs[] = {&lab_transpose};
static devinfo dev;
static char buf[32768];

static run_summary summary(void)
{
    fixture_results(&res);
    memset(&dev, 0, sizeof dev);
    strcpy(dev.name, "Test GPU <H200>");
    return (run_summary){specs, &res, 1, &dev, 0xabc};
}

static void write_with(int (*fn)(FILE *, const run_summary *), const run_summary *r)
{
    memset(buf, 0, sizeof buf);
    FILE *f = fmemopen(buf, sizeof buf - 1, "w");
    ck_assert_int_eq(fn(f, r), 0);
    fclose(f);
}

static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

START_TEST(base64_vectors)
{
    char out[64];
    ck_assert_str_eq(format_base64((const unsigned char *)"", 0, out), "");
    ck_assert_str_eq(format_base64((const unsigned char *)"f", 1, out), "Zg==");
    ck_assert_str_eq(format_base64((const unsigned char *)"fo", 2, out), "Zm8=");
    ck_assert_str_eq(format_base64((const unsigned char *)"foo", 3, out), "Zm9v");
    ck_assert_str_eq(format_base64((const unsigned char *)"foobar", 6, out), "Zm9vYmFy");
    const unsigned char bin[] = {0xff, 0xfe, 0x00};
    ck_assert_str_eq(format_base64(bin, 3, out), "//4A");
}
END_TEST

START_TEST(xml_escape)
{
    char out[128];
    ck_assert_str_eq(format_xml_escape("a<b & \"c\" 'd'>", out, sizeof out),
                     "a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt;");
    ck_assert_str_eq(format_xml_escape("x\x01y", out, sizeof out), "x y");
}
END_TEST

START_TEST(junit_document)
{
    run_summary r = summary();
    write_with(format_junit, &r);
    ck_assert(xml_well_nested(buf));
    ck_assert_ptr_nonnull(strstr(buf, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>"));
    ck_assert_ptr_nonnull(strstr(buf, "<testsuites name=\"cuda-labs\" tests=\"8\" failures=\"3\" errors=\"0\">"));
    ck_assert_int_eq(count(buf, "<testcase "), 8);
    ck_assert_int_eq(count(buf, "<failure "), 3);
    ck_assert_int_eq(count(buf, "<error "), 0);
    ck_assert_ptr_nonnull(strstr(buf, "type=\"WRONG RESULT\""));
    ck_assert_ptr_nonnull(strstr(buf, "value=\"Test GPU &lt;H200&gt;\""));
    ck_assert_ptr_nonnull(strstr(buf, "<property name=\"score\" value=\"40/70\"/>"));
    ck_assert_ptr_nonnull(strstr(buf, "2500 GB/s, 59.3% of cudaMemcpy D2D, 2.50x over stage 2"));
}
END_TEST

/* A timeout is an error, not a failure, in JUnit and for Classroom. */
START_TEST(faults_are_errors)
{
    run_summary r = summary();
    res.t[1][TEST_CORRECT].v = V_TIMEOUT;
    strcpy(res.t[1][TEST_CORRECT].msg, "killed after 40 s");
    write_with(format_junit, &r);
    ck_assert(xml_well_nested(buf));
    ck_assert_int_eq(count(buf, "<error "), 1);
    ck_assert_ptr_nonnull(strstr(buf, "errors=\"1\""));
    write_with(format_classroom, &r);
    ck_assert_ptr_nonnull(strstr(buf, "\"status\": \"error\", \"max_score\": 70"));
}
END_TEST

START_TEST(tap_document)
{
    run_summary r = summary();
    write_with(format_tap, &r);
    const char *head = "TAP version 13\n1..8\n";
    ck_assert(strncmp(buf, head, strlen(head)) == 0);
    ck_assert_int_eq(count(buf, "\nok "), 5);
    ck_assert_int_eq(count(buf, "\nnot ok "), 3);
    ck_assert_ptr_nonnull(strstr(buf, "not ok 7 - lab1 stage 5 (4x4 per thread, float4 access): correctness\n"));
    ck_assert_ptr_nonnull(strstr(buf, "  verdict: WRONG RESULT\n"));
    ck_assert_ptr_nonnull(strstr(buf, "# seed 0xabc, score 40/70"));
}
END_TEST

START_TEST(gradescope_document)
{
    run_summary r = summary();
    write_with(format_gradescope, &r);
    ck_assert(json_balanced(buf));
    ck_assert_ptr_nonnull(strstr(buf, "{\"score\": 40, "));
    ck_assert_int_eq(count(buf, "\"max_score\": "), 8);
    ck_assert_int_eq(count(buf, "\"status\": \"failed\""), 3);
    ck_assert_int_eq(count(buf, "\"status\": \"passed\""), 5);
    ck_assert_ptr_nonnull(strstr(buf, "\"visibility\": \"visible\""));
    ck_assert_ptr_nonnull(strstr(buf, "Test GPU <H200>"));
}
END_TEST

START_TEST(classroom_payload)
{
    run_summary r = summary();
    write_with(format_classroom, &r);
    ck_assert(json_balanced(buf));
    const char *head = "{\"version\": 1, \"status\": \"fail\", \"max_score\": 70, \"tests\": [";
    ck_assert(strncmp(buf, head, strlen(head)) == 0);
    ck_assert_int_eq(count(buf, "\"score\": "), 8);
    ck_assert_ptr_nonnull(strstr(buf, "\"status\": \"pass\", \"score\": 10"));
    ck_assert_ptr_nonnull(strstr(buf, "\"message\": \"WRONG RESULT: at 33 x 65"));
}
END_TEST

START_TEST(autolab_line)
{
    run_summary r = summary();
    write_with(format_autolab, &r);
    ck_assert_str_eq(buf, "{\"scores\": {\"lab1\": 40}}\n");
}
END_TEST

Suite *make_formats_suite(void)
{
    Suite *s = suite_create("formats");
    TCase *tc = tcase_create("formats");
    tcase_add_test(tc, base64_vectors);
    tcase_add_test(tc, xml_escape);
    tcase_add_test(tc, junit_document);
    tcase_add_test(tc, faults_are_errors);
    tcase_add_test(tc, tap_document);
    tcase_add_test(tc, gradescope_document);
    tcase_add_test(tc, classroom_payload);
    tcase_add_test(tc, autolab_line);
    suite_add_tcase(s, tc);
    return s;
}
