#include "options.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int options_parse_u64(const char *s, uint64_t *v)
{
    if (!s || !*s || *s == '-')
        return -1;
    errno = 0;
    char *end = NULL;
    unsigned long long x = strtoull(s, &end, 0);
    if (errno != 0 || !end || *end != '\0')
        return -1;
    *v = (uint64_t)x;
    return 0;
}

static int parse_int(const char *s, int lo, int hi, int *v)
{
    if (!s || !*s)
        return -1;
    errno = 0;
    char *end = NULL;
    long x = strtol(s, &end, 10);
    if (errno != 0 || *end != '\0' || x < lo || x > hi)
        return -1;
    *v = (int)x;
    return 0;
}

/* The value of an option: after '=' when given so, else the next argument. */
static int take_value(int argc, char **argv, int *i, const char **val, const char *opt,
                      char *err, size_t errn)
{
    if (*val)
        return 0;
    if (*i + 1 >= argc) {
        snprintf(err, errn, "%s needs a value (see ./grade --help)", opt);
        return -1;
    }
    *val = argv[++*i];
    return 0;
}

/* "3" or "3,4,5": the stages to grade (0 to 31). 0 on success. */
static int parse_stages(const char *val, grade_options *o)
{
    unsigned mask = 0;
    int count = 0, last = -1;
    for (const char *p = val;; p++) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        char item[8];
        int s;
        if (len == 0 || len >= sizeof item)
            return -1; /* an empty or overlong item: "3,", ",4", "1,,2" */
        memcpy(item, p, len);
        item[len] = '\0';
        if (parse_int(item, 0, 31, &s) != 0)
            return -1;
        count += !(mask & (1u << s));
        mask |= 1u << s;
        last = s;
        if (!comma)
            break;
        p = comma;
    }
    o->stage_mask = mask;
    o->stage = count == 1 ? last : -1;
    return 0;
}

int options_parse(int argc, char **argv, grade_options *o, char *err, size_t errn)
{
    memset(o, 0, sizeof *o);
    o->stage = -1;
    o->reps = OPT_MIN_REPS;
    o->fraction = 0.8;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        /* Options that take a value accept "--opt value" and "--opt=value". */
        const char *val = NULL;
        char name[32];
        const char *eq = strchr(a, '=');
        if (a[0] == '-' && a[1] == '-' && eq && (size_t)(eq - a) < sizeof name) {
            memcpy(name, a, (size_t)(eq - a));
            name[eq - a] = '\0';
            val = eq + 1;
            a = name;
        }
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            o->help = 1;
        } else if (strcmp(a, "--list") == 0) {
            o->list = 1;
        } else if (strcmp(a, "--solutions") == 0) {
            o->solutions = 1;
        } else if (strcmp(a, "--timings") == 0) {
            o->timings = 1;
        } else if (strcmp(a, "--quick") == 0) {
            o->quick = 1;
        } else if (strcmp(a, "--sanitize") == 0) {
            o->sanitize = 1;
        } else if (strcmp(a, "--profile-once") == 0) {
            o->profile_once = 1;
        } else if (strcmp(a, "--under-sanitizer") == 0) {
            o->under_sanitizer = 1;
            o->quick = 1;
        } else if (strcmp(a, "--gpu-info") == 0) {
            o->gpu_info = 1;
        } else if (strcmp(a, "--stage") == 0) {
            if (take_value(argc, argv, &i, &val, a, err, errn) != 0)
                return -1;
            if (parse_stages(val, o) != 0) {
                snprintf(err, errn,
                         "--stage wants a stage number such as 3, or several such as 3,4,5, not "
                         "'%s'",
                         val);
                return -1;
            }
        } else if (strcmp(a, "--seed") == 0) {
            if (take_value(argc, argv, &i, &val, a, err, errn) != 0)
                return -1;
            if (options_parse_u64(val, &o->seed) != 0) {
                snprintf(err, errn,
                         "--seed wants the number the grader printed (decimal or 0x...), not '%s'",
                         val);
                return -1;
            }
            o->seed_given = 1;
        } else if (strcmp(a, "--reps") == 0) {
            if (take_value(argc, argv, &i, &val, a, err, errn) != 0)
                return -1;
            if (parse_int(val, OPT_MIN_REPS, OPT_MAX_REPS, &o->reps) != 0) {
                snprintf(err, errn, "--reps wants a number from %d to %d, not '%s'", OPT_MIN_REPS,
                         OPT_MAX_REPS, val);
                return -1;
            }
        } else if (strcmp(a, "--sms") == 0) {
            if (take_value(argc, argv, &i, &val, a, err, errn) != 0)
                return -1;
            if (parse_int(val, 1, OPT_MAX_SMS, &o->sms) != 0) {
                snprintf(err, errn,
                         "--sms wants a number of SMs, 1 or more (for example 40, a T4's count; "
                         "./grade --gpu-info shows this GPU's), not '%s'",
                         val);
                return -1;
            }
        } else if (strcmp(a, "--lib") == 0) {
            if (take_value(argc, argv, &i, &val, a, err, errn) != 0)
                return -1;
            o->lib = val;
        } else if (strcmp(a, "--json") == 0 || strcmp(a, "--junit") == 0 ||
                   strcmp(a, "--tap") == 0 || strcmp(a, "--gradescope") == 0 ||
                   strcmp(a, "--plot") == 0 || strcmp(a, "--html") == 0 ||
                   strcmp(a, "--from") == 0) {
            if (take_value(argc, argv, &i, &val, a, err, errn) != 0)
                return -1;
            const char **dest = strcmp(a, "--json") == 0    ? &o->json
                                : strcmp(a, "--junit") == 0 ? &o->junit
                                : strcmp(a, "--tap") == 0   ? &o->tap
                                : strcmp(a, "--plot") == 0  ? &o->plot
                                : strcmp(a, "--html") == 0  ? &o->html
                                : strcmp(a, "--from") == 0  ? &o->from
                                                            : &o->gradescope;
            *dest = val;
        } else if (strcmp(a, "--config") == 0 || strcmp(a, "--calibrate") == 0 ||
                   strcmp(a, "--analyze") == 0 || strcmp(a, "--stability") == 0) {
            if (take_value(argc, argv, &i, &val, a, err, errn) != 0)
                return -1;
            *(strcmp(a, "--config") == 0      ? &o->config
              : strcmp(a, "--calibrate") == 0 ? &o->calibrate
              : strcmp(a, "--analyze") == 0   ? &o->analyze
                                              : &o->stability) = val;
        } else if (strcmp(a, "--fraction") == 0) {
            if (take_value(argc, argv, &i, &val, a, err, errn) != 0)
                return -1;
            char *end = NULL;
            o->fraction = strtod(val, &end);
            if (end == val || *end || !(o->fraction > 0 && o->fraction <= 1)) {
                snprintf(err, errn, "--fraction wants a number above 0 and at most 1, not '%s'",
                         val);
                return -1;
            }
        } else if (strcmp(a, "--classroom") == 0) {
            o->classroom = 1;
        } else if (strcmp(a, "--autolab") == 0) {
            o->autolab = 1;
        } else if (a[0] == '-') {
            snprintf(err, errn, "unknown option '%s' (see ./grade --help)", argv[i]);
            return -1;
        } else {
            if (o->n_labs == OPT_MAX_LABS) {
                snprintf(err, errn, "too many labs named (at most %d)", OPT_MAX_LABS);
                return -1;
            }
            o->labs[o->n_labs++] = a;
        }
    }
    if (o->profile_once && (o->stage < 0 || o->n_labs != 1)) {
        snprintf(err, errn, "--profile-once runs one stage: name one lab and --stage N");
        return -1;
    }
    if (o->calibrate && !o->solutions) {
        snprintf(err, errn, "--calibrate measures the reference solutions: add --solutions");
        return -1;
    }
    if (o->sms && (o->sanitize || o->profile_once || o->under_sanitizer)) {
        snprintf(err, errn, "--sms grades on part of the GPU: leave out --sanitize and "
                            "--profile-once");
        return -1;
    }
    if (o->sms && (o->from || o->analyze || o->stability)) {
        snprintf(err, errn, "--sms grades on part of the GPU; --from, --analyze and --stability "
                            "grade nothing (their results say which SMs they were made on)");
        return -1;
    }
    if (o->lib && (o->solutions || o->n_labs != 1)) {
        snprintf(err, errn, "--lib grades one library: name exactly one lab and no --solutions");
        return -1;
    }
    return 0;
}

void options_usage(FILE *f)
{
    fputs("usage: ./grade [labN | all] [options]\n"
          "\n"
          "Grades a lab built with `make labN`: each stage's correctness, then its speed\n"
          "against the stage before it and against the GPU's ceiling. With no lab named,\n"
          "grades the lab that `make` built last.\n"
          "\n",
          f);
    /* The labs from the list of labs (grader/labs/labs.def). */
    fprintf(f, "  labN, N, name     the lab: lab%d .. lab%d, or its name (%s, %s, ...)\n",
            lab_table[0]->number, lab_table[lab_count - 1]->number, lab_table[0]->name,
            lab_table[lab_count > 1 ? 1 : 0]->name);
    fputs("  all               every lab that has been built\n"
          "  --stage N         grade stage N only (its speed is still compared with its base);\n"
          "                    --stage 3,4,5 grades those stages\n"
          "  --seed S          replay a run with the seed it printed (decimal or 0x...)\n"
          "  --solutions       grade the reference solutions (make solutions)\n"
          "  --lib PATH        grade this lab library instead of build/labN.so\n"
          "  --reps N          timed repetitions of each function (default and minimum 20)\n"
          "  --sms N           grade on N of the GPU's SMs only (a CUDA green context; the\n"
          "                    ceilings are measured on the same N): how a smaller GPU of\n"
          "                    the same kind would grade, e.g. --sms 40 (a T4's count).\n"
          "                    Models the SM count only, not a smaller GPU's memory\n"
          "                    bandwidth, L2 or clocks; needs CUDA 12.4 or newer\n"
          "  --quick           correctness at the small sizes only, nothing timed (fast;\n"
          "                    for debugging); not a grade\n"
          "  --timings         after each lab, the seconds each stage spent in each phase\n"
          "                    (start-up, inputs, CPU reference, calls, checks, timing)\n"
          "  --profile-once    with --stage N: run that stage once at the timed size and\n"
          "                    check it, nothing else (for a profiler: make profile)\n"
          "  --sanitize        run every stage at the small sizes under compute-sanitizer\n"
          "                    (memcheck, racecheck, synccheck, initcheck), show the first\n"
          "                    report of each; not a grade\n"
          "  --json FILE       also write every result and metric as JSON\n"
          "  --junit FILE      ... as JUnit XML (one testcase per stage and test)\n"
          "  --tap FILE        ... as TAP version 13\n"
          "  --gradescope FILE ... as Gradescope's results.json\n"
          "  --classroom       ... as GitHub Classroom's reporter payload: result=<base64>\n"
          "                    appended to $GITHUB_OUTPUT (or printed when it is unset)\n"
          "  --autolab         end with Autolab's scores line, {\"scores\": {...}}\n"
          "  --plot DIR        an SVG chart per lab in DIR: each stage's speed, the ceiling,\n"
          "                    the thresholds, and the reference's speed on an H200\n"
          "  --html FILE       one self-contained page: scoreboard, charts, what to fix\n"
          "  --from FILE       no grading: take the results from a --json FILE (to make\n"
          "                    charts, reports or other formats again, without a GPU)\n"
          "  --config FILE     points, thresholds and graded stages from FILE instead of the\n"
          "                    built-in table (handouts/instructors.md has the format)\n"
          "  --calibrate FILE  with --solutions: write a config whose thresholds are a\n"
          "                    fraction of the speedups measured on this GPU\n"
          "  --fraction X      that fraction, 0 < X <= 1 (default 0.8)\n"
          "  --analyze DIR     summarise a class's --json results in DIR (grader/batch\n"
          "                    writes them): passes, speedups, implausible timings\n"
          "  --stability DIR   summarise many --json runs of the same code in DIR (make\n"
          "                    stability): failures, speedup and % of ceiling min/median/\n"
          "                    max per stage, the margin to each threshold\n"
          "  --list            list the labs, their stages, points and thresholds\n"
          "  --gpu-info        show the GPU the grader would use, then stop\n"
          "  -h, --help        this text\n"
          "\n"
          "Exit status: 0 every graded test passed; 1 something failed; 2 usage error;\n"
          "77 no GPU found (nothing was graded).\n",
          f);
}
