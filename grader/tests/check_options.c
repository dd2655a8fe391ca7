#define _GNU_SOURCE
#include <string.h>

#include "../options.h"
#include "tests.h"

static int parse(grade_options *o, char *err, const char *a1, const char *a2, const char *a3,
                 const char *a4)
{
    char *argv[6] = {"grade", (char *)a1, (char *)a2, (char *)a3, (char *)a4, NULL};
    int argc = 1;
    while (argc < 5 && argv[argc])
        argc++;
    return options_parse(argc, argv, o, err, 256);
}

START_TEST(defaults)
{
    grade_options o;
    char err[256];
    ck_assert_int_eq(parse(&o, err, NULL, NULL, NULL, NULL), 0);
    ck_assert_int_eq(o.n_labs, 0);
    ck_assert_int_eq(o.stage, -1);
    ck_assert_int_eq(o.reps, OPT_MIN_REPS);
    ck_assert_int_eq(o.seed_given, 0);
}
END_TEST

/* --stage takes one stage or a list; a bad list is a usage error. */
START_TEST(stage_lists)
{
    grade_options o;
    char err[256];
    ck_assert_int_eq(parse(&o, err, "--stage", "3,5,3", NULL, NULL), 0);
    ck_assert_uint_eq(o.stage_mask, (1u << 3) | (1u << 5));
    ck_assert_int_eq(o.stage, -1);
    ck_assert_int_eq(parse(&o, err, "--stage=4", NULL, NULL, NULL), 0);
    ck_assert_uint_eq(o.stage_mask, 1u << 4);
    ck_assert_int_eq(o.stage, 4);
    ck_assert_int_eq(parse(&o, err, "lab1", NULL, NULL, NULL), 0);
    ck_assert_uint_eq(o.stage_mask, 0);
    const char *bad[] = {"3,", ",", "3,x", "32", "1,,2"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        ck_assert_msg(parse(&o, err, "--stage", bad[k], NULL, NULL) == -1, "%s", bad[k]);
        ck_assert_ptr_nonnull(strstr(err, "3,4,5"));
    }
}
END_TEST

START_TEST(lab_stage_seed)
{
    grade_options o;
    char err[256];
    ck_assert_int_eq(parse(&o, err, "lab1", "--stage", "3", "--seed=0x1f"), 0);
    ck_assert_int_eq(o.n_labs, 1);
    ck_assert_str_eq(o.labs[0], "lab1");
    ck_assert_int_eq(o.stage, 3);
    ck_assert_int_eq(o.seed_given, 1);
    ck_assert_uint_eq(o.seed, 31);
    ck_assert_int_eq(parse(&o, err, "--seed", "18446744073709551615", NULL, NULL), 0);
    ck_assert_uint_eq(o.seed, UINT64_MAX);
}
END_TEST

START_TEST(flags)
{
    grade_options o;
    char err[256];
    ck_assert_int_eq(parse(&o, err, "--list", "--solutions", "--gpu-info", "-h"), 0);
    ck_assert(o.list && o.solutions && o.gpu_info && o.help);
    ck_assert_int_eq(parse(&o, err, "lab1", "--json", "out.json", NULL), 0);
    ck_assert_str_eq(o.json, "out.json");
    ck_assert_int_eq(parse(&o, err, "lab1", "--quick", NULL, NULL), 0);
    ck_assert_int_eq(o.quick, 1);
    ck_assert_int_eq(parse(&o, err, "lab1", "--reps", "50", NULL), 0);
    ck_assert_int_eq(o.reps, 50);
}
END_TEST

START_TEST(bad_values)
{
    grade_options o;
    char err[256];
    ck_assert_int_eq(parse(&o, err, "--stage", "x", NULL, NULL), -1);
    ck_assert_ptr_nonnull(strstr(err, "--stage"));
    ck_assert_int_eq(parse(&o, err, "--stage", NULL, NULL, NULL), -1);
    ck_assert_ptr_nonnull(strstr(err, "needs a value"));
    ck_assert_int_eq(parse(&o, err, "--seed", "-5", NULL, NULL), -1);
    ck_assert_int_eq(parse(&o, err, "--seed", "12abc", NULL, NULL), -1);
    ck_assert_int_eq(parse(&o, err, "--reps", "5", NULL, NULL), -1); /* below the minimum */
    ck_assert_ptr_nonnull(strstr(err, "20"));
    ck_assert_int_eq(parse(&o, err, "--frobnicate", NULL, NULL, NULL), -1);
    ck_assert_ptr_nonnull(strstr(err, "unknown option '--frobnicate'"));
}
END_TEST

START_TEST(config_and_calibration)
{
    grade_options o;
    char err[256];
    ck_assert_int_eq(parse(&o, err, "--config", "c.cfg", NULL, NULL), 0);
    ck_assert_str_eq(o.config, "c.cfg");
    ck_assert_double_eq(o.fraction, 0.8);
    ck_assert_int_eq(parse(&o, err, "--calibrate", "out.cfg", NULL, NULL), -1);
    ck_assert_ptr_nonnull(strstr(err, "add --solutions"));
    ck_assert_int_eq(parse(&o, err, "--solutions", "--calibrate", "out.cfg", "--fraction=0.7"), 0);
    ck_assert_double_eq_tol(o.fraction, 0.7, 1e-12);
    ck_assert_int_eq(parse(&o, err, "--fraction", "1.5", NULL, NULL), -1);
    ck_assert_int_eq(parse(&o, err, "--fraction", "0", NULL, NULL), -1);
    ck_assert_int_eq(parse(&o, err, "--junit", "j.xml", "--classroom", "--autolab"), 0);
    ck_assert_str_eq(o.junit, "j.xml");
    ck_assert(o.classroom && o.autolab);
}
END_TEST

START_TEST(lib_needs_one_lab)
{
    grade_options o;
    char err[256];
    ck_assert_int_eq(parse(&o, err, "--lib", "x.so", NULL, NULL), -1);
    ck_assert_int_eq(parse(&o, err, "lab1", "--lib", "x.so", "--solutions"), -1);
    ck_assert_int_eq(parse(&o, err, "lab1", "--lib", "x.so", NULL), 0);
    ck_assert_str_eq(o.lib, "x.so");
}
END_TEST

START_TEST(u64_parser)
{
    uint64_t v;
    ck_assert_int_eq(options_parse_u64("0", &v), 0);
    ck_assert_uint_eq(v, 0);
    ck_assert_int_eq(options_parse_u64("0xDEADbeef", &v), 0);
    ck_assert_uint_eq(v, 0xdeadbeefULL);
    ck_assert_int_eq(options_parse_u64("", &v), -1);
    ck_assert_int_eq(options_parse_u64(NULL, &v), -1);
    ck_assert_int_eq(options_parse_u64("99999999999999999999999", &v), -1);
}
END_TEST

START_TEST(usage_mentions_every_option)
{
    char buf[4096] = "";
    FILE *f = fmemopen(buf, sizeof buf - 1, "w");
    options_usage(f);
    fclose(f);
    const char *opts[] = {"--stage", "--seed", "--solutions", "--lib", "--reps", "--json",
                          "--list", "--gpu-info", "--help", "--quick", "--config", "--calibrate",
                          "--fraction", "--junit", "--tap", "--gradescope", "--classroom",
                          "--autolab", "--sanitize", "--sms", "77"};
    for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++)
        ck_assert_msg(strstr(buf, opts[i]), "usage lacks %s", opts[i]);
}
END_TEST

/* The switches that take no value each set what they say; the ones that
 * need company say what is missing. */
START_TEST(switches_and_their_conditions)
{
    grade_options o;
    char err[256];
    ck_assert_int_eq(parse(&o, err, "--timings", "--quick", "--sanitize", NULL), 0);
    ck_assert_int_eq(o.timings, 1);
    ck_assert_int_eq(o.quick, 1);
    ck_assert_int_eq(o.sanitize, 1);
    ck_assert_int_eq(o.under_sanitizer, 0);
    ck_assert_int_eq(parse(&o, err, "--under-sanitizer", NULL, NULL, NULL), 0);
    ck_assert_int_eq(o.under_sanitizer, 1);
    ck_assert_int_eq(o.quick, 1); /* inside the sanitizer: small sizes, nothing timed */
    ck_assert_int_eq(o.timings, 0);
    ck_assert_int_eq(parse(&o, err, "--profile-once", "lab2", "--stage", "3"), 0);
    ck_assert_int_eq(o.profile_once, 1);
    ck_assert_int_eq(o.stage, 3);
    ck_assert_int_eq(parse(&o, err, "--profile-once", "lab2", NULL, NULL), -1);
    ck_assert_str_eq(err, "--profile-once runs one stage: name one lab and --stage N");
    ck_assert_int_eq(parse(&o, err, "--profile-once", "lab2", "lab3", "--stage=1"), -1);
    ck_assert_str_eq(err, "--profile-once runs one stage: name one lab and --stage N");
    char *argv[OPT_MAX_LABS + 2] = {"grade"};
    for (int i = 1; i <= OPT_MAX_LABS + 1; i++)
        argv[i] = "lab1";
    ck_assert_int_eq(options_parse(OPT_MAX_LABS + 1, argv, &o, err, sizeof err), 0);
    ck_assert_int_eq(o.n_labs, OPT_MAX_LABS);
    ck_assert_int_eq(options_parse(OPT_MAX_LABS + 2, argv, &o, err, sizeof err), -1);
    ck_assert_str_eq(err, "too many labs named (at most 8)");
}
END_TEST

/* --sms N: a count of SMs (this GPU's own is checked by the probe), only
 * where something is graded. Without it, the whole GPU. */
START_TEST(sms_count)
{
    grade_options o;
    char err[256];
    ck_assert_int_eq(parse(&o, err, NULL, NULL, NULL, NULL), 0);
    ck_assert_int_eq(o.sms, 0);
    ck_assert_int_eq(parse(&o, err, "all", "--solutions", "--sms", "40"), 0);
    ck_assert_int_eq(o.sms, 40);
    ck_assert_int_eq(parse(&o, err, "--sms=16", NULL, NULL, NULL), 0);
    ck_assert_int_eq(o.sms, 16);
    const char *bad[] = {"0", "-8", "x", "16x", ""};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        ck_assert_msg(parse(&o, err, "--sms", bad[k], NULL, NULL) == -1, "%s", bad[k]);
        char want[256];
        snprintf(want, sizeof want,
                 "--sms wants a number of SMs, 1 or more (for example 40, a T4's count; "
                 "./grade --gpu-info shows this GPU's), not '%s'",
                 bad[k]);
        ck_assert_str_eq(err, want);
    }
    ck_assert_int_eq(parse(&o, err, "--sms", NULL, NULL, NULL), -1);
    ck_assert_str_eq(err, "--sms needs a value (see ./grade --help)");
    ck_assert_int_eq(parse(&o, err, "--sms", "40", "--sanitize", NULL), -1);
    ck_assert_str_eq(err, "--sms grades on part of the GPU: leave out --sanitize and --profile-once");
    ck_assert_int_eq(parse(&o, err, "--sms", "40", "--from", "r.json"), -1);
    ck_assert_ptr_nonnull(strstr(err, "--from, --analyze and --stability grade nothing"));
}
END_TEST

Suite *make_options_suite(void)
{
    Suite *s = suite_create("options");
    TCase *tc = tcase_create("options");
    tcase_add_test(tc, defaults);
    tcase_add_test(tc, lab_stage_seed);
    tcase_add_test(tc, stage_lists);
    tcase_add_test(tc, flags);
    tcase_add_test(tc, bad_values);
    tcase_add_test(tc, config_and_calibration);
    tcase_add_test(tc, lib_needs_one_lab);
    tcase_add_test(tc, u64_parser);
    tcase_add_test(tc, usage_mentions_every_option);
    tcase_add_test(tc, switches_and_their_conditions);
    tcase_add_test(tc, sms_count);
    suite_add_tcase(s, tc);
    return s;
}
