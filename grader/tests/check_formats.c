#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../formats.h"
#include "../json.h"
#include "../report.h"
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
    return (run_summary){specs, &res, 1, &dev, 0xabc, 0, NULL, NULL};
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

/* Graded tests in a run (passed_only: those that passed). */
/* The graded tests of a run: all of them (which 0), those that passed (1),
 * those NOT AVAILABLE (2) or those skipped for any reason (3). */
static int count_tests(const run_summary *r, int which)
{
    int n = 0;
    for (int l = 0; l < r->n_labs; l++)
        for (int s = 0; s < LAB_MAX_STAGES; s++)
            for (int k = 0; k < TEST_KINDS; k++) {
                const test_record *t = &r->res[l].t[s][k];
                n += t->graded && (which == 0 || (which == 1 && t->v == V_PASS) ||
                                   (which == 2 && verdict_neutral(t->v)) ||
                                   (which == 3 && (verdict_neutral(t->v) || t->v == V_SKIPPED)));
            }
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
    ck_assert_ptr_nonnull(strstr(buf, "<testsuites name=\"cuda-labs\" tests=\"8\" failures=\"2\" errors=\"0\" skipped=\"1\">"));
    ck_assert_int_eq(count(buf, "<testcase "), 8);
    ck_assert_int_eq(count(buf, "<failure "), 2);
    /* The speed test skipped because its stage is wrong is skipped, with the reason. */
    ck_assert_int_eq(count(buf, "<skipped message=\""), 1);
    ck_assert_ptr_null(strstr(buf, "type=\"SKIPPED\""));
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

/* A stage the sandbox refused failed on its own account: a failure with no
 * points, not an error of the grading. */
START_TEST(rejected_is_a_failure)
{
    run_summary r = summary();
    res.t[1][TEST_CORRECT].v = V_REJECTED;
    strcpy(res.t[1][TEST_CORRECT].msg, "it tried to start another process (syscall clone)");
    write_with(format_junit, &r);
    ck_assert(xml_well_nested(buf));
    ck_assert_int_eq(count(buf, "<error "), 0);
    ck_assert_int_eq(count(buf, "<failure "), 3);
    ck_assert_ptr_nonnull(strstr(buf, "REJECTED"));
    ck_assert_ptr_nonnull(strstr(buf, "syscall clone"));
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
    ck_assert_ptr_nonnull(strstr(buf, "not ok 8 - lab1 stage 5 (4x4 per thread, float4 access): speed # SKIP"));
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
    ck_assert_ptr_nonnull(strstr(buf, "\"output_format\": \"text\", \"test_output_format\": \"text\""));
    ck_assert_int_eq(count(buf, "\"output_format\": \"text\""), 9);
}
END_TEST

START_TEST(classroom_payload)
{
    run_summary r = summary();
    write_with(format_classroom, &r);
    ck_assert(json_balanced(buf));
    const char *head = "{\"version\": 1, \"status\": \"fail\", \"max_score\": 70, \"tests\": [";
    ck_assert(strncmp(buf, head, strlen(head)) == 0);
    /* 70 points in entries of 10: the reporter's console counts entries. */
    ck_assert_int_eq(count(buf, "\"score\": "), 7);
    ck_assert_int_eq(count(buf, "\"status\": \"pass\", \"score\": 10"), 4);
    ck_assert_int_eq(count(buf, "\"line_no\": 0"), 7);
    ck_assert_ptr_nonnull(strstr(buf, "\"message\": \"WRONG RESULT: at 33 x 65"));
}
END_TEST

/* ---- real consumers ----
 * Each format is read by a program that reads it for real, where this
 * machine has one (.ci/run installs them): xmllint against a JUnit schema
 * and python3-junitparser; PyYAML and npm's tap-parser for TAP; python3's
 * json for Gradescope's documented fields. A consumer that is missing leaves
 * its test out, counted as skipped (formats_skipped_count), never as passed. */

extern const lab_spec lab_streams;

static lab_results rich_res[2];
static const lab_spec *rich_specs[] = {&lab_transpose, &lab_streams};

/* Two labs and every kind of outcome: passed, too slow, wrong, skipped, a
 * timeout, a stage this GPU cannot grade (NOT AVAILABLE), a message with
 * quotes, markup and a newline, and lab 5's ceiling name, which holds an
 * apostrophe. */
static run_summary rich_run(void)
{
    fixture_results(&rich_res[0]);
    test_record *t1 = &rich_res[0].t[1][TEST_CORRECT];
    t1->v = V_TIMEOUT;
    strcpy(t1->msg, "killed after 40 s: the kernel's loop never ended");
    strcpy(rich_res[0].t[5][TEST_PERF].msg, "not timed: stage 5 is not correct yet (WRONG RESULT)");
    strcpy(rich_res[0].t[5][TEST_CORRECT].msg,
           "at 33 x 65: got \"NaN\" where 'x' & <y> were\nexpected (template <unsigned BLOCK>)");
    memset(&rich_res[1], 0, sizeof rich_res[1]);
    for (int s = 0; s < LAB_MAX_STAGES; s++)
        for (int k = 0; k < TEST_KINDS; k++)
            rich_res[1].t[s][k].base = -1;
    for (int s = 0; s < lab_streams.n_stages; s++) {
        test_record *c = &rich_res[1].t[s][TEST_CORRECT];
        *c = (test_record){.graded = 1, .state = STATE_FINISHED, .v = V_PASS, .base = -1};
        if (lab_streams.stages[s].points_speed == 0)
            continue;
        const lab_stage *st = &lab_streams.stages[s];
        rich_res[1].t[s][TEST_PERF] = (test_record){
            .graded = 1, .state = STATE_FINISHED, .v = s % 2 ? V_PASS : V_SLOW, .timed = 1,
            .reps = 20, .median_ms = 12.5, .throughput = 40, .pct_ceiling = 71.4,
            .ceiling_throughput = 56, .base = st->n_base ? st->base[0] : -1, .speedup = 1.2,
            .min_speedup = st->min_speedup, .min_ceiling = st->min_ceiling};
    }
    /* Lab 5's stage 4 is given (no points): as a stage gated by capability. */
    rich_res[1].t[4][TEST_CORRECT].v = V_NOT_AVAILABLE;
    strcpy(rich_res[1].t[4][TEST_CORRECT].msg,
           "needs compute capability 8.0 (this GPU, Test GPU, has 7.5): not graded, no points lost");
    memset(&dev, 0, sizeof dev);
    strcpy(dev.name, "Test GPU <H200>");
    return (run_summary){rich_specs, rich_res, 2, &dev, 0xabc, 3.5, NULL, NULL};
}

static char tmpdir[64];
static char doc_path[128];

/* Writes the rich run in one format to a file of its own; returns its path. */
static const char *rich_file(int (*fn)(FILE *, const run_summary *), const char *name)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/cudalabs-consumerXXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmpdir));
    snprintf(doc_path, sizeof doc_path, "%s/%s", tmpdir, name);
    run_summary r = rich_run();
    FILE *f = fopen(doc_path, "w");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(fn(f, &r), 0);
    ck_assert_int_eq(fclose(f), 0);
    return doc_path;
}

static char consumer_out[65536];

/* Runs a consumer; its output is in consumer_out; fails the test unless it
 * exits 0. */
static void consume(char *const argv[])
{
    int rc = run_command(argv, NULL, consumer_out, sizeof consumer_out);
    ck_assert_msg(rc == 0, "%s exited %d:\n%s", argv[0], rc, consumer_out);
}

static void done_with_file(void)
{
    ck_assert_int_eq(remove_tree(tmpdir), 0);
}

/* The first of the usual places that holds an executable, or NULL. */
static const char *find_program(const char *const *places)
{
    for (; *places; places++)
        if (access(*places, X_OK) == 0)
            return *places;
    return NULL;
}

/* A python3 that can import module (Debian's first: apt installs there). */
static const char *python_with(const char *module)
{
    static const char *const pythons[] = {"/usr/bin/python3", "/usr/local/bin/python3", NULL};
    char code[128];
    snprintf(code, sizeof code, "import %s", module);
    for (const char *const *p = pythons; *p; p++) {
        char *argv[] = {(char *)*p, "-c", code, NULL};
        if (access(*p, X_OK) == 0 && run_command(argv, NULL, consumer_out, 256) == 0)
            return *p;
    }
    return NULL;
}

#define TAP_PARSER "build/npm/node_modules/tap-parser"
static const char *xmllint, *py_junit, *py_yaml, *py_json, *node;
static int consumers_missing;

START_TEST(junit_valid_against_schema)
{
    const char *path = rich_file(format_junit, "junit.xml");
    char *argv[] = {(char *)xmllint, "--noout", "--schema", "grader/tests/junit.xsd",
                    (char *)path, NULL};
    consume(argv);
    ck_assert_ptr_nonnull(strstr(consumer_out, "validates"));
    /* The schema can fail: a second outcome in one testcase is refused. */
    FILE *f = fopen(path, "w");
    fputs("<testsuites><testsuite name=\"x\" tests=\"1\"><testcase name=\"t\">"
          "<skipped/><failure/></testcase></testsuite></testsuites>\n", f);
    fclose(f);
    ck_assert_int_ne(run_command(argv, NULL, consumer_out, sizeof consumer_out), 0);
    done_with_file();
}
END_TEST

static const char junit_reader[] =
    "import sys\n"
    "from junitparser import JUnitXml, TestSuite, Skipped, Failure, Error\n"
    "xml = JUnitXml.fromfile(sys.argv[1])\n"
    "for suite in xml:\n"
    "    n = {'failure': 0, 'error': 0, 'skipped': 0, 'passed': 0}\n"
    "    for case in suite:\n"
    "        kinds = [type(r).__name__.lower() for r in case.result]\n"
    "        assert len(kinds) <= 1, kinds\n"
    "        n[kinds[0] if kinds else 'passed'] += 1\n"
    "        if kinds == ['skipped']:\n"
    "            assert case.result[0].message, 'a skipped test says why'\n"
    "        if kinds and kinds[0] in ('failure', 'error'):\n"
    "            assert case.result[0].type, 'a failure names its verdict'\n"
    "    assert (suite.tests, suite.failures, suite.errors, suite.skipped) == "
    "(len(suite), n['failure'], n['error'], n['skipped']), suite.name\n"
    "    print('%s tests=%d failures=%d errors=%d skipped=%d passed=%d' % (suite.name, suite.tests,"
    " suite.failures, suite.errors, suite.skipped, n['passed']))\n";

START_TEST(junit_read_by_junitparser)
{
    const char *path = rich_file(format_junit, "junit.xml");
    char *argv[] = {(char *)py_junit, "-c", (char *)junit_reader, (char *)path, NULL};
    consume(argv);
    ck_assert_msg(strstr(consumer_out,
                         "lab1-transpose tests=8 failures=2 errors=1 skipped=1 passed=4") != NULL,
                  "%s", consumer_out);
    /* lab 5: one speed test too slow; its stage 4 NOT AVAILABLE is skipped, not failed */
    ck_assert_msg(strstr(consumer_out,
                         "lab5-streams tests=10 failures=1 errors=0 skipped=1 passed=8") != NULL,
                  "%s", consumer_out);
    done_with_file();
}
END_TEST

/* Every YAML block of the TAP stream, parsed by PyYAML: a mapping with the
 * verdict and points, and the messages and metrics exactly as written. */
static const char tap_yaml_reader[] =
    "import sys, yaml\n"
    "lines = open(sys.argv[1]).read().split('\\n')\n"
    "blocks, block = [], None\n"
    "for line in lines:\n"
    "    if line == '  ---':\n"
    "        block = []\n"
    "    elif line == '  ...':\n"
    "        blocks.append(yaml.safe_load('\\n'.join(block)))\n"
    "        block = None\n"
    "    elif block is not None:\n"
    "        block.append(line[2:])\n"
    "for b in blocks:\n"
    "    assert isinstance(b, dict) and 'verdict' in b and 'points' in b, b\n"
    "    for key in ('message', 'metrics'):\n"
    "        if key in b:\n"
    "            print(key + ': ' + b[key])\n"
    "print('blocks: %d' % len(blocks))\n";

START_TEST(tap_yaml_blocks_parse)
{
    const char *path = rich_file(format_tap, "run.tap");
    char *argv[] = {(char *)py_yaml, "-c", (char *)tap_yaml_reader, (char *)path, NULL};
    consume(argv);
    char text[65536];
    ck_assert_int_eq(read_text(path, text, sizeof text), 0);
    char want[32];
    snprintf(want, sizeof want, "blocks: %d", count(text, "\n  ---\n"));
    ck_assert_msg(strstr(consumer_out, want) != NULL, "%s\n%s", want, consumer_out);
    ck_assert_msg(strstr(consumer_out, "of everything overlapped (the grader's own three lanes)"),
                  "%s", consumer_out);
    ck_assert_msg(strstr(consumer_out, "got \"NaN\" where 'x' & <y> were expected"), "%s",
                  consumer_out);
    done_with_file();
}
END_TEST

static const char tap_reader[] =
    "const {Parser} = require(process.argv[2]);\n"
    "const out = {asserts: [], extra: []};\n"
    "const p = new Parser(final => {\n"
    "  out.final = final;\n"
    "  const bad = out.asserts.filter(a => !a.ok && !a.skip && !(a.diag && a.diag.verdict));\n"
    "  console.log('count=' + final.count + ' pass=' + final.pass + ' skip=' + final.skip +\n"
    "              ' extra=' + out.extra.length + ' undiagnosed=' + bad.length +\n"
    "              ' bailout=' + final.bailout);\n"
    "});\n"
    "p.on('assert', a => out.asserts.push(a));\n"
    "p.on('extra', e => out.extra.push(e));\n"
    "p.end(require('fs').readFileSync(process.argv[1], 'utf8'));\n";

START_TEST(tap_read_by_tap_parser)
{
    const char *path = rich_file(format_tap, "run.tap");
    char parser[PATH_MAX];
    ck_assert_ptr_nonnull(realpath(TAP_PARSER, parser));
    char *argv[] = {(char *)node, "-e", (char *)tap_reader, (char *)path, parser, NULL};
    consume(argv);
    run_summary r = rich_run();
    char want[128];
    /* tap-parser counts an "ok ... # SKIP" line (NOT AVAILABLE) as passed and skipped, a
     * "not ok ... # SKIP" one (SKIPPED after a failure) as skipped only. */
    snprintf(want, sizeof want, "count=%d pass=%d skip=%d extra=0 undiagnosed=0 bailout=false",
             count_tests(&r, 0), count_tests(&r, 1) + count_tests(&r, 2), count_tests(&r, 3));
    ck_assert_msg(strstr(consumer_out, want) != NULL, "want %s\n%s", want, consumer_out);
    done_with_file();
}
END_TEST

/* Gradescope's documented results.json: the fields it names, of the types and
 * values it lists, and nothing else; the tests' scores add up to the score. */
static const char gradescope_reader[] =
    "import sys, json\n"
    "d = json.load(open(sys.argv[1]))\n"
    "num = (int, float)\n"
    "fmt = {'text', 'html', 'simple_format', 'md', 'ansi'}\n"
    "vis = {'hidden', 'after_due_date', 'after_published', 'visible'}\n"
    "top = {'score': num, 'execution_time': num, 'output': str, 'output_format': fmt,\n"
    "       'test_output_format': fmt, 'test_name_format': fmt, 'visibility': vis,\n"
    "       'stdout_visibility': vis, 'extra_data': dict, 'tests': list, 'leaderboard': list}\n"
    "per = {'score': num, 'max_score': num, 'status': {'passed', 'failed'}, 'name': str,\n"
    "       'name_format': fmt, 'number': str, 'output': str, 'output_format': fmt,\n"
    "       'tags': list, 'visibility': vis, 'extra_data': dict}\n"
    "def check(obj, spec, where):\n"
    "    for k, v in obj.items():\n"
    "        assert k in spec, '%s: unknown field %s' % (where, k)\n"
    "        want = spec[k]\n"
    "        if isinstance(want, set):\n"
    "            assert v in want, '%s: %s = %r' % (where, k, v)\n"
    "        else:\n"
    "            assert isinstance(v, want) and not isinstance(v, bool), '%s: %s' % (where, k)\n"
    "check(d, top, 'results.json')\n"
    "for i, t in enumerate(d['tests']):\n"
    "    check(t, per, 'test %d' % i)\n"
    "    assert 0 <= t['score'] <= t['max_score']\n"
    "assert sum(t['score'] for t in d['tests']) == d['score']\n"
    "print('score=%g tests=%d output_format=%s' % (d['score'], len(d['tests']), "
    "d['output_format']))\n";

START_TEST(gradescope_documented_fields)
{
    const char *path = rich_file(format_gradescope, "results.json");
    char *argv[] = {(char *)py_json, "-c", (char *)gradescope_reader, (char *)path, NULL};
    consume(argv);
    run_summary r = rich_run();
    char want[64];
    snprintf(want, sizeof want, "tests=%d output_format=text", count_tests(&r, 0));
    ck_assert_msg(strstr(consumer_out, want) != NULL, "%s", consumer_out);
    /* The fallback of a run that never graded follows the same rules. */
    format_gradescope_fallback(path, 77, "grade: no usable CUDA GPU.\n");
    consume(argv);
    ck_assert_msg(strstr(consumer_out, "score=0 tests=0 output_format=text"), "%s", consumer_out);
    done_with_file();
}
END_TEST

/* GitHub Classroom's reporter: the payload's fields and types, and both of
 * its totals (the console's share of passing tests times max_score, and the
 * sum of scores it posts) equal to the grader's score. */
static void check_classroom_payload(const run_summary *r, int want_lines)
{
    write_with(format_classroom, r);
    char err[128];
    json *doc = json_parse(buf, err, sizeof err);
    ck_assert_msg(doc != NULL, "%s:\n%s", err, buf);
    classroom_payload_check(doc);
    const json *tests = json_get(doc, "tests");
    int passed = 0, lines = 0;
    double posted = 0;
    for (int i = 0; i < tests->n; i++) {
        const json *t = &tests->items[i];
        passed += strcmp(json_string(json_get(t, "status"), ""), "pass") == 0;
        posted += json_number(json_get(t, "score"), 0);
        lines += json_number(json_get(t, "line_no"), 0) > 0;
    }
    {
        int got, max;
        report_score_labs(r->specs, r->res, r->n_labs, &got, &max);
        double max_score = json_number(json_get(doc, "max_score"), -1);
        ck_assert_double_eq(max_score, max);
        ck_assert_double_eq(posted, got);
        ck_assert_double_eq_tol((double)passed / tests->n * max_score, got, 1e-9);
    }
    if (want_lines)
        ck_assert_int_eq(lines, tests->n);
    json_free(doc);
}

START_TEST(classroom_totals_agree)
{
    run_summary r = summary();
    check_classroom_payload(&r, 0);
    r = rich_run();
    check_classroom_payload(&r, 0);
    /* With the repository at hand, every entry points at its stage's function. */
    r.source_root = ".";
    check_classroom_payload(&r, 1);
}
END_TEST

/* TAP: a message or metrics text with apostrophes stays one valid YAML
 * single-quoted scalar (lab 5's and lab 6's ceilings hold one). */
START_TEST(tap_quotes_doubled)
{
    run_summary r = rich_run();
    write_with(format_tap, &r);
    ck_assert_ptr_nonnull(strstr(buf, "of everything overlapped (the grader''s own three lanes)"));
    ck_assert_ptr_nonnull(strstr(buf, "  message: 'killed after 40 s: the kernel''s loop never ended'\n"));
    ck_assert_ptr_null(strstr(buf, "grader's"));
}
END_TEST

START_TEST(autolab_line)
{
    run_summary r = summary();
    write_with(format_autolab, &r);
    ck_assert_str_eq(buf, "{\"scores\": {\"lab1\": 40}}\n");
}
END_TEST

/* The Classroom payload goes to $GITHUB_OUTPUT as result=<base64 of the
 * JSON document>, to standard output without one, and a file that cannot be
 * opened is said (and fails). */
START_TEST(classroom_output_where_it_goes)
{
    run_summary r = summary();
    write_with(format_classroom, &r);
    static char want[65536], got[65536];
    strcpy(want, "result=");
    format_base64((const unsigned char *)buf, strlen(buf), want + 7);
    strcat(want, "\n");
    char path[] = "/tmp/cudalabs-ghoutXXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    close(fd);
    setenv("GITHUB_OUTPUT", path, 1);
    ck_assert_int_eq(format_classroom_output(&r), 0);
    ck_assert_int_eq(read_text(path, got, sizeof got), 0);
    ck_assert_str_eq(got, want);
    /* no $GITHUB_OUTPUT: standard output (here redirected to the file) */
    unsetenv("GITHUB_OUTPUT");
    fflush(stdout);
    int saved = dup(STDOUT_FILENO);
    FILE *f = freopen(path, "w", stdout);
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(format_classroom_output(&r), 0);
    fflush(stdout);
    dup2(saved, STDOUT_FILENO);
    close(saved);
    ck_assert_int_eq(read_text(path, got, sizeof got), 0);
    ck_assert_str_eq(got, want);
    setenv("GITHUB_OUTPUT", "/nonexistent/folder/output", 1);
    ck_assert_ptr_nonnull(freopen(path, "w", stderr)); /* what it says, kept to look at */
    ck_assert_int_eq(format_classroom_output(&r), -1);
    ck_assert_int_eq(format_classroom_fallback(3, "no GPU", "lab1", 70), -1);
    fflush(stderr);
    ck_assert_int_eq(read_text(path, got, sizeof got), 0);
    ck_assert_str_eq(got, "grade: cannot append to /nonexistent/folder/output: No such file or "
                          "directory\ngrade: cannot append to /nonexistent/folder/output: No "
                          "such file or directory\n");
    unlink(path);
    unsetenv("GITHUB_OUTPUT");
    /* the Gradescope fallback into a folder that does not exist: nothing, no crash */
    format_gradescope_fallback("/nonexistent/folder/results.json", 3, "no GPU");
    ck_assert_int_ne(access("/nonexistent/folder/results.json", F_OK), 0);
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
    tcase_add_test(tc, rejected_is_a_failure);
    tcase_add_test(tc, tap_document);
    tcase_add_test(tc, gradescope_document);
    tcase_add_test(tc, classroom_payload);
    tcase_add_test(tc, autolab_line);
    tcase_add_test(tc, tap_quotes_doubled);
    tcase_add_test(tc, classroom_totals_agree);
    tcase_add_test(tc, classroom_output_where_it_goes);
    suite_add_tcase(s, tc);

    /* Real consumers, where this machine has them. */
    static const char *const xmllints[] = {"/usr/bin/xmllint", "/usr/local/bin/xmllint", NULL};
    static const char *const nodes[] = {"/usr/bin/node", "/usr/local/bin/node", NULL};
    xmllint = find_program(xmllints);
    node = access(TAP_PARSER "/package.json", R_OK) == 0 ? find_program(nodes) : NULL;
    py_junit = python_with("junitparser");
    py_yaml = python_with("yaml");
    py_json = python_with("json");
    const struct {
        const char *have;
        const TTest *test;
        const char *what;
    } consumers[] = {
        {xmllint, junit_valid_against_schema, "xmllint"},
        {py_junit, junit_read_by_junitparser, "python3-junitparser"},
        {py_yaml, tap_yaml_blocks_parse, "PyYAML"},
        {node, tap_read_by_tap_parser, "node with " TAP_PARSER},
        {py_json, gradescope_documented_fields, "python3"},
    };
    TCase *real = tcase_create("consumers");
    tcase_set_timeout(real, 60);
    for (size_t i = 0; i < sizeof consumers / sizeof consumers[0]; i++) {
        if (consumers[i].have) {
            tcase_add_test(real, consumers[i].test);
        } else {
            consumers_missing++;
            printf("format consumer missing: %s (its test is skipped; .ci/run installs it)\n",
                   consumers[i].what);
        }
    }
    suite_add_tcase(s, real);
    return s;
}

int formats_skipped_count(void)
{
    return consumers_missing;
}
