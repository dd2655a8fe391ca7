/* check_hostparts.c: host-side pieces that need no GPU: the JSON reader's
 * escapes and errors, the patch and expected-output bookkeeping of
 * grader/patch.h, the message helpers of grader/labs/lab_util.h, and the
 * build log's notes on serialised wgmma (grader/buildlog.h). */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../buildlog.h"
#include "../json.h"
#include "../labs/lab_util.h"
#include "../patch.h"
#include "../proc.h"
#include "../sass.h"
#include "tests.h"

/* Parses text, expecting failure; err must contain what. */
static void parse_fails(const char *text, const char *what)
{
    char err[160] = "";
    json *j = json_parse(text, err, sizeof err);
    ck_assert_msg(j == NULL, "%s parsed", text);
    ck_assert_msg(strstr(err, what) != NULL, "%s: error \"%s\" does not say \"%s\"", text, err,
                  what);
}

START_TEST(json_every_escape)
{
    char err[160] = "";
    json *j = json_parse("\"a\\/b\\bc\\fd\\re\\tf\\u00e9g\\u004A\"", err, sizeof err);
    ck_assert_msg(j != NULL, "%s", err);
    ck_assert_int_eq(j->type, JSON_STRING);
    /* \u00e9 is above 0x7f: '?'; \u004A is 'J' (upper-case hex digits) */
    ck_assert_str_eq(j->string, "a/b\bc\fd\re\tf?gJ");
    json_free(j);
}
END_TEST

START_TEST(json_long_strings_and_arrays_grow)
{
    char text[1024] = "[";
    for (int i = 0; i < 20; i++)
        strcat(text, i ? ",\"0123456789abcdefghijklmnopqrstuvwxyz\"" : "\"0123456789abcdefghij\"");
    strcat(text, "]");
    char err[160] = "";
    json *j = json_parse(text, err, sizeof err);
    ck_assert_msg(j != NULL, "%s", err);
    ck_assert_int_eq(j->n, 20);
    ck_assert_str_eq(j->items[0].string, "0123456789abcdefghij");
    ck_assert_str_eq(j->items[19].string, "0123456789abcdefghijklmnopqrstuvwxyz");
    json_free(j);
}
END_TEST

START_TEST(json_errors_say_what_and_where)
{
    parse_fails("\"\\u12G4\"", "bad \\u escape");
    parse_fails("\"\\x\"", "bad escape");
    parse_fails("{1: 2}", "expected a string");
    parse_fails("{\"a\" 1}", "expected ':'");
    parse_fails("{\"a\": }", "unexpected character at byte 6");
    parse_fails("[1 2]", "expected ',' or ']'");
    parse_fails("{\"a\": 1 \"b\"}", "expected ',' or '}'");
    parse_fails("-x", "bad number");
    char deep[200];
    memset(deep, '[', 100);
    deep[100] = '\0';
    parse_fails(deep, "nested too deeply");
    json_free(NULL); /* allowed, like free */
}
END_TEST

START_TEST(patch_library_errors_name_the_file)
{
    char err[256] = "";
    ck_assert_int_eq(patch_load_library("/nonexistent/devcheck.so", err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "cannot load /nonexistent/devcheck.so"));
    err[0] = '\0';
    /* a library without the kernels: the C library itself */
    ck_assert_int_eq(patch_load_library("libc.so.6", err, sizeof err), -1);
    ck_assert_str_eq(err, "libc.so.6 has no devcheck_scatter");
}
END_TEST

START_TEST(patch_free_resets)
{
    patch_set p;
    memset(&p, 0, sizeof p);
    p.n = 3;
    p.idx[0] = 7;
    patch_free(&p); /* no device buffers yet: nothing to release, all forgotten */
    ck_assert_int_eq(p.n, 0);
    ck_assert_uint_eq(p.idx[0], 0);
    ck_assert_int_eq(patch_find(&p, 7), -1);
    expect_patch *e = calloc(1, sizeof *e);
    ck_assert_ptr_nonnull(e);
    e->no = 2;
    expect_free(e);
    ck_assert_int_eq(e->no, 0);
    free(e);
}
END_TEST

START_TEST(expect_overrides_and_deltas)
{
    expect_patch *e = calloc(1, sizeof *e);
    ck_assert_ptr_nonnull(e);
    /* the same position twice: the override is replaced, the delta added */
    ck_assert_int_eq(expect_override(e, 5, 100), 0);
    ck_assert_int_eq(expect_override(e, 5, 200), 0);
    ck_assert_int_eq(e->no, 1);
    ck_assert_int_eq(expect_delta(e, 2, 3), 0);
    ck_assert_int_eq(expect_delta(e, 2, 4), 0);
    ck_assert_int_eq(e->nd, 1);
    uint32_t expect[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    e->seg = 4; /* segments [0,4) and [4,8): the delta at 2 stays in the first */
    ck_assert_uint_eq(expect_word(e, expect, 1), 1);
    ck_assert_uint_eq(expect_word(e, expect, 3), 3 + 7);
    ck_assert_uint_eq(expect_word(e, expect, 5), 200);
    ck_assert_uint_eq(expect_word(e, expect, 6), 6);
    e->seg = 0; /* one segment: the delta reaches every later word */
    ck_assert_uint_eq(expect_word(e, expect, 6), 6 + 7);
    /* full: a new position is refused, a known one still changes */
    for (int k = 1; k < EXPECT_MAX; k++) {
        ck_assert_int_eq(expect_override(e, 1000 + (uint64_t)k, 1), 0);
        ck_assert_int_eq(expect_delta(e, 1000 + (uint64_t)k, 1), 0);
    }
    ck_assert_int_eq(expect_override(e, 9999, 1), -1);
    ck_assert_int_eq(expect_delta(e, 9999, 1), -1);
    ck_assert_int_eq(expect_override(e, 5, 300), 0);
    ck_assert_int_eq(expect_delta(e, 2, 1), 0);
    ck_assert_int_eq(e->no, EXPECT_MAX);
    ck_assert_int_eq(e->nd, EXPECT_MAX);
    free(e);
}
END_TEST

START_TEST(note_patched_goes_first_and_fits)
{
    check_outcome out = {V_WRONG, "output[3] is 2, expected 1"};
    lab_note_patched(&out, 5);
    ck_assert_str_eq(out.msg, "in a timed call, whose input had 5 elements changed just before it "
                              "(a result kept from an earlier call is wrong there): output[3] is "
                              "2, expected 1");
    /* a message that fills the buffer is cut, never overrun */
    memset(out.msg, 'x', sizeof out.msg - 1);
    out.msg[sizeof out.msg - 1] = '\0';
    lab_note_patched(&out, 12);
    ck_assert_uint_eq(strlen(out.msg), sizeof out.msg - 1);
    ck_assert_ptr_nonnull(strstr(out.msg, "had 12 elements changed"));
    ck_assert_int_eq(out.msg[sizeof out.msg - 2], 'x');
}
END_TEST

START_TEST(lab_failures_are_setup_errors)
{
    check_outcome out = {V_PASS, ""};
    ck_assert_int_eq(lab_no_memory(&out, " for the inputs"), -1);
    ck_assert_int_eq(out.v, V_SETUP_ERROR);
    ck_assert_str_eq(out.msg, "out of host memory for the inputs");
    ck_assert_int_eq(lab_no_memory(&out, NULL), -1);
    ck_assert_str_eq(out.msg, "out of host memory");
    out.v = V_PASS;
    ck_assert_int_eq(lab_fail_cuda(&out, cudaErrorMemoryAllocation, "allocate the output"), -1);
    ck_assert_int_eq(out.v, V_SETUP_ERROR);
    ck_assert_ptr_nonnull(strstr(out.msg, "the grader could not allocate the output: "
                                          "cudaErrorMemoryAllocation"));
    ck_assert_ptr_nonnull(strstr(out.msg, "; is another program using the GPU's memory?"));
    ck_assert_int_eq(lab_fail_cuda(&out, cudaErrorInvalidValue, "copy the input"), -1);
    ck_assert_ptr_null(strstr(out.msg, "another program"));
    void *p = NULL;
    ck_assert_int_eq(lab_host_buffer(&p, 0, &out), 0); /* even 0 bytes gets a buffer */
    ck_assert_ptr_nonnull(p);
    free(p);
}
END_TEST

/* The witness's sampled lines: each below its bound, both sets drawn, and
 * more picks than one short read of the system's pool gives refused as the
 * grader's own fault. */
START_TEST(witness_picks_in_range)
{
    uint32_t a[LAB_WITNESS_MAX_PICKS], b[LAB_WITNESS_MAX_PICKS];
    check_outcome out = {V_PASS, ""};
    int a_spread = 0, b_spread = 0;
    for (int round = 0; round < 8; round++) {
        ck_assert_int_eq(lab_witness_picks(a, 16, 7, b, 16, 1000003, &out), 0);
        for (int i = 0; i < 16; i++) {
            ck_assert_uint_lt(a[i], 7);
            ck_assert_uint_lt(b[i], 1000003);
            a_spread |= a[i] != a[0];
            b_spread |= b[i] != b[0];
        }
    }
    ck_assert(a_spread && b_spread); /* not one value over and over */
    ck_assert_int_eq(lab_witness_picks(a, 17, 7, b, 16, 9, &out), -2);
    ck_assert_int_eq(out.v, V_SETUP_ERROR);
    out.v = V_PASS;
    ck_assert_int_eq(lab_witness_picks(a, 1, 0, b, 1, 9, &out), -2);
    ck_assert_int_eq(out.v, V_SETUP_ERROR);
}
END_TEST

START_TEST(held_folds_only_what_is_held)
{
    uint64_t d = LAB_DIGEST_START;
    ck_assert_uint_eq(lab_held(&d, NULL, 64), 0);
    ck_assert_uint_eq(d, LAB_DIGEST_START);
    float a[3] = {1, 2, 3};
    ck_assert_uint_eq(lab_held(&d, a, sizeof a), sizeof a);
    ck_assert_uint_eq(d, lab_digest(LAB_DIGEST_START, a, sizeof a));
    ck_assert_uint_ne(d, LAB_DIGEST_START);
}
END_TEST

START_TEST(gbuf_free_of_host_parts)
{
    gbuf b;
    memset(&b, 0, sizeof b);
    b.h_pattern = malloc(32);
    b.h_check = malloc(32);
    b.bytes = 32;
    gbuf_free(&b); /* no device allocation: only the host parts go */
    ck_assert_ptr_null(b.h_pattern);
    ck_assert_ptr_null(b.h_check);
    ck_assert_uint_eq(b.bytes, 0);
}
END_TEST

/* sass_finish reads what a running cuobjdump prints; a shell stands in for it. */
static int finish_with(const char *script, sass_code *code, char *err, size_t errn)
{
    char *argv[] = {"/bin/sh", "-c", (char *)script, NULL};
    sass_pending p = {.lib = "lab9.so"};
    p.fd = proc_spawn(argv, NULL, &p.pid);
    ck_assert_int_ge(p.fd, 0);
    int rc = sass_finish(&p, code, err, errn);
    sass_close(&p);
    ck_assert_int_eq(p.fd, -1);
    sass_close(&p); /* twice is harmless */
    return rc;
}

START_TEST(sass_read_from_a_running_tool)
{
    sass_code code;
    char err[256] = "";
    ck_assert_msg(finish_with("printf '\\t\\tFunction : _Z4workPf\\n"
                              "        /*0000*/   LDS.U R9, [R4.X4] ;\\n"
                              "        /*0010*/   EXIT ;\\n'",
                              &code, err, sizeof err) == 0,
                  "%s", err);
    ck_assert_int_eq(code.n, 1);
    ck_assert_str_eq(code.k[0].name, "_Z4workPf");
    ck_assert_int_eq(sass_uses(&code, "_Z4workPf", "LDS"), 1);
    ck_assert_int_eq(sass_uses(&code, "_Z4workPf", "STS"), 0);
    sass_free(&code);
    ck_assert_int_eq(finish_with("echo no code here", &code, err, sizeof err), -1);
    ck_assert_str_eq(err, "cuobjdump -sass lab9.so found no kernels");
    ck_assert_int_eq(code.n, 0);
    ck_assert_int_eq(finish_with("echo broken; exit 1", &code, err, sizeof err), -1);
    ck_assert_str_eq(err, "cuobjdump -sass lab9.so failed");
    /* A file with no GPU code: either cuobjdump is missing here, or it fails on it. */
    err[0] = '\0';
    ck_assert_int_eq(sass_read_library("/bin/true", &code, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "cuobjdump was not found in ") == err ||
                      strcmp(err, "cuobjdump -sass /bin/true failed") == 0 ||
                      strcmp(err, "cuobjdump -sass /bin/true found no kernels") == 0,
                  "%s", err);
}
END_TEST

START_TEST(thread_limit_only_tightens)
{
    ck_assert_int_eq(proc_limit_threads(-1), -1);
    long now = proc_user_threads((unsigned)getuid());
    ck_assert_int_gt(now, 0);
    struct rlimit before, after;
    ck_assert_int_eq(getrlimit(RLIMIT_NPROC, &before), 0);
    ck_assert_int_eq(proc_limit_threads(100000), 0);
    ck_assert_int_eq(getrlimit(RLIMIT_NPROC, &after), 0);
    if (before.rlim_cur != RLIM_INFINITY && before.rlim_cur <= (rlim_t)(now + 100000))
        ck_assert_uint_eq(after.rlim_cur, before.rlim_cur); /* already tighter: kept */
    else
        ck_assert_uint_le(after.rlim_cur, (rlim_t)(now + 100000 + 64)); /* a few threads came and went */
    ck_assert_int_eq(proc_limit_threads(50), 0); /* tighter still */
    ck_assert_int_eq(getrlimit(RLIMIT_NPROC, &after), 0);
    ck_assert_uint_le(after.rlim_cur, (rlim_t)(now + 50 + 64));
    rlim_t tight = after.rlim_cur;
    ck_assert_int_eq(proc_limit_threads(100000), 0); /* never loosened again */
    ck_assert_int_eq(getrlimit(RLIMIT_NPROC, &after), 0);
    ck_assert_uint_eq(after.rlim_cur, tight);
}
END_TEST


/* ptxas's notes on serialised wgmma, from a library's build log: only for
 * the kernels named, with code, reason and the kernel's short name; the
 * reason keeps plain text only; no log, or no kernels, is none. */
START_TEST(buildlog_names_serialised_kernels)
{
    char dir[] = "/tmp/cudalabs-buildlogXXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char lib[300], log[320], out[1024];
    snprintf(lib, sizeof lib, "%s/lab7.so", dir);
    snprintf(log, sizeof log, "%s.log", lib);
    ck_assert_int_eq(buildlog_serialised(lib, "_Z7s5_tf32iii14CUtensorMap_stS_Pf", out, sizeof out),
                     0);
    ck_assert_str_eq(out, "");
    FILE *f = fopen(log, "w");
    ck_assert_ptr_nonnull(f);
    fputs("hopper.cu(12): warning #177-D: variable \"x\" was declared but never referenced\n"
          "ptxas info    : (C7513) Potential Performance Loss: wgmma.mma_async instructions are "
          "serialized due to non wgmma instructions defining input registers of a wgmma between "
          "start and end of the pipeline stage in the function '_Z7s5_tf32iii14CUtensorMap_stS_Pf'\n"
          "ptxas info    : (C7512) Potential Performance Loss: wgmma.mma_async instructions are "
          "serialized due to insufficient register\x1b[31m resources for the function "
          "'_Z13s12_tma_wgmmaILi128EEviii14CUtensorMap_stS0_Pf'\n"
          "ptxas info    : (C7510) Potential Performance Loss: wgmma.mma_async instructions are "
          "serialized due to the presence of Extern calls in the function 'other_kernel'\n",
          f);
    fclose(f);
    /* one kernel of the stage's */
    ck_assert_int_eq(buildlog_serialised(lib, "s0,_Z7s5_tf32iii14CUtensorMap_stS_Pf", out,
                                         sizeof out),
                     1);
    ck_assert_str_eq(out, "the wgmma of s5_tf32 (C7513: due to non wgmma instructions defining "
                          "input registers of a wgmma between start and end of the pipeline "
                          "stage)");
    /* two, in the log's order; the escape sequence's letters stay, its ESC and [ go */
    ck_assert_int_eq(buildlog_serialised(lib,
                                         "_Z13s12_tma_wgmmaILi128EEviii14CUtensorMap_stS0_Pf,"
                                         "other_kernel,_Z7s5_tf32iii14CUtensorMap_stS_Pf",
                                         out, sizeof out),
                     3);
    ck_assert_ptr_nonnull(strstr(out, "the wgmma of s5_tf32 (C7513: "));
    ck_assert_ptr_nonnull(strstr(out, "; the wgmma of s12_tma_wgmma (C7512: due to insufficient "
                                      "register31m resources)"));
    ck_assert_ptr_nonnull(strstr(out, "; the wgmma of other_kernel (C7510: due to the presence "
                                      "of Extern calls)"));
    ck_assert_ptr_null(strchr(out, '\x1b'));
    /* a prefix of a name is not the name; no kernels, none */
    ck_assert_int_eq(buildlog_serialised(lib, "_Z7s5_tf32", out, sizeof out), 0);
    ck_assert_int_eq(buildlog_serialised(lib, "", out, sizeof out), 0);
    ck_assert_int_eq(buildlog_serialised(NULL, "other_kernel", out, sizeof out), 0);
    /* a kernel name's other bytes are shown as '?' */
    f = fopen(log, "w");
    ck_assert_ptr_nonnull(f);
    fputs("ptxas info    : (C7512) Potential Performance Loss: wgmma.mma_async instructions are "
          "serialized due to insufficient register resources for the function 'k\x1b]0;x'\n",
          f);
    fclose(f);
    ck_assert_int_eq(buildlog_serialised(lib, "k\x1b]0;x", out, sizeof out), 1);
    ck_assert_str_eq(out, "the wgmma of k??0?x (C7512: due to insufficient register resources)");
    /* only a regular file is read: a FIFO (which would block) is none */
    unlink(log);
    ck_assert_int_eq(mkfifo(log, 0600), 0);
    ck_assert_int_eq(buildlog_serialised(lib, "k", out, sizeof out), 0);
    unlink(log);
    rmdir(dir);
}
END_TEST

Suite *make_hostparts_suite(void)
{
    Suite *s = suite_create("hostparts");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, json_every_escape);
    tcase_add_test(tc, json_long_strings_and_arrays_grow);
    tcase_add_test(tc, json_errors_say_what_and_where);
    tcase_add_test(tc, patch_library_errors_name_the_file);
    tcase_add_test(tc, patch_free_resets);
    tcase_add_test(tc, expect_overrides_and_deltas);
    tcase_add_test(tc, note_patched_goes_first_and_fits);
    tcase_add_test(tc, lab_failures_are_setup_errors);
    tcase_add_test(tc, witness_picks_in_range);
    tcase_add_test(tc, held_folds_only_what_is_held);
    tcase_add_test(tc, gbuf_free_of_host_parts);
    tcase_add_test(tc, sass_read_from_a_running_tool);
    tcase_add_test(tc, thread_limit_only_tightens);
    tcase_add_test(tc, buildlog_names_serialised_kernels);
    suite_add_tcase(s, tc);
    return s;
}
