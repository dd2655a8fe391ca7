#define _GNU_SOURCE
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

static int parse_whole(const char *v, int *out)
{
    char *end = NULL;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (errno || end == v || *end || x < 0 || x > 100000)
        return -1;
    *out = (int)x;
    return 0;
}

int config_parse(FILE *f, const char *name, grade_config *c, char *err, size_t errn)
{
    memset(c, 0, sizeof *c);
    char line[512];
    int no = 0;
    while (fgets(line, sizeof line, f)) {
        no++;
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        char *s = trim(line);
        if (!*s)
            continue;
        char *eq = strchr(s, '=');
        if (!eq) {
            snprintf(err, errn, "%s:%d: expected lab.stage.key = value, as in lab1.s3.min_speedup = 1.2",
                     name, no);
            return -1;
        }
        *eq = '\0';
        char *key = trim(s), *value = trim(eq + 1);
        char lab_name[32], stage_text[16], field[32];
        if (sscanf(key, "%31[^.].%15[^.].%31s", lab_name, stage_text, field) != 3) {
            snprintf(err, errn, "%s:%d: '%s' is not lab.stage.key (e.g. lab1.s3.min_speedup)", name,
                     no, key);
            return -1;
        }
        const lab_spec *spec = lab_find(lab_name);
        if (!spec || !spec->available || lab_position(spec->number) < 0) {
            snprintf(err, errn, "%s:%d: no such lab '%s' (./grade --list shows the labs)", name, no,
                     lab_name);
            return -1;
        }
        const char *st = stage_text[0] == 's' ? stage_text + 1 : stage_text;
        int stage = -1;
        if (parse_whole(st, &stage) != 0 || stage >= spec->n_stages) {
            snprintf(err, errn, "%s:%d: lab%d has stages s0 to s%d, not '%s'", name, no,
                     spec->number, spec->n_stages - 1, stage_text);
            return -1;
        }
        stage_override *o = &c->o[lab_position(spec->number)][stage];
        int speed_key = strcmp(field, "points_speed") == 0 || strcmp(field, "min_speedup") == 0 ||
                        strcmp(field, "min_ceiling") == 0;
        const lab_stage *ls = &spec->stages[stage];
        if (speed_key && ls->n_base == 0 &&
            (ls->min_ceiling <= 0 || strcmp(field, "min_speedup") == 0)) {
            snprintf(err, errn,
                     ls->min_ceiling > 0
                         ? "%s:%d: lab%d stage %d is held to a share of its ceiling, not to an "
                           "earlier stage: use min_ceiling"
                         : "%s:%d: lab%d stage %d has no earlier stage to compare its speed with: "
                           "only points_correct and graded apply to it",
                     name, no, spec->number, stage);
            return -1;
        }
        if (!*value) {
            snprintf(err, errn, "%s:%d: %s has no value", name, no, key);
            return -1;
        }
        if (strcmp(field, "points_correct") == 0 || strcmp(field, "points_speed") == 0) {
            int v;
            if (parse_whole(value, &v) != 0) {
                snprintf(err, errn, "%s:%d: %s must be a whole number of points, not '%s'", name,
                         no, field, value);
                return -1;
            }
            if (field[7] == 'c') {
                o->has_points_correct = 1;
                o->points_correct = v;
            } else {
                o->has_points_speed = 1;
                o->points_speed = v;
            }
        } else if (strcmp(field, "min_speedup") == 0) {
            char *end = NULL;
            double v = strtod(value, &end);
            if (end == value || *end || !(v > 0) || !isfinite(v)) {
                snprintf(err, errn, "%s:%d: min_speedup must be a number above 0, not '%s'", name,
                         no, value);
                return -1;
            }
            o->has_min_speedup = 1;
            o->min_speedup = v;
        } else if (strcmp(field, "min_ceiling") == 0) {
            char *end = NULL;
            double v = strtod(value, &end);
            if (end == value || *end || !(v >= 0 && v <= 1)) {
                snprintf(err, errn,
                         "%s:%d: min_ceiling must be a fraction from 0 to 1 (0.8 = 80%% of the "
                         "ceiling), not '%s'",
                         name, no, value);
                return -1;
            }
            o->has_min_ceiling = 1;
            o->min_ceiling = v;
        } else if (strcmp(field, "technique") == 0) {
            if (!lab_stage_techniques(ls)) {
                snprintf(err, errn,
                         "%s:%d: lab%d stage %d has no technique the grader checks (./grade "
                         "--list shows them)",
                         name, no, spec->number, stage);
                return -1;
            }
            if (strcmp(value, "required") != 0 && strcmp(value, "hint") != 0) {
                snprintf(err, errn, "%s:%d: technique must be required or hint, not '%s'", name,
                         no, value);
                return -1;
            }
            o->has_technique = 1;
            o->technique_required = value[0] == 'r';
        } else if (strcmp(field, "sanitizer") == 0) {
            if (strcmp(value, "required") != 0 && strcmp(value, "no") != 0) {
                snprintf(err, errn, "%s:%d: sanitizer must be required or no, not '%s'", name, no,
                         value);
                return -1;
            }
            o->has_sanitizer = 1;
            o->sanitizer_required = value[0] == 'r';
        } else if (strcmp(field, "graded") == 0) {
            if (strcmp(value, "yes") != 0 && strcmp(value, "no") != 0) {
                snprintf(err, errn, "%s:%d: graded must be yes or no, not '%s'", name, no, value);
                return -1;
            }
            o->has_graded = 1;
            o->graded = value[0] == 'y';
        } else {
            snprintf(err, errn,
                     "%s:%d: unknown key '%s' (points_correct, points_speed, min_speedup, "
                     "min_ceiling, graded, technique, sanitizer)",
                     name, no, field);
            return -1;
        }
    }
    return 0;
}

void config_apply(const grade_config *c, const lab_spec *spec, lab_stage *stages,
                  stage_rules *rules)
{
    for (int s = 0; s < spec->n_stages; s++) {
        stages[s] = spec->stages[s];
        rules[s] = (stage_rules){.graded = 1,
                                 .technique_required = spec->stages[s].technique_required};
        const int at = lab_position(spec->number);
        if (!c || at < 0)
            continue;
        const stage_override *o = &c->o[at][s];
        if (o->has_points_correct)
            stages[s].points_correct = o->points_correct;
        if (o->has_points_speed)
            stages[s].points_speed = o->points_speed;
        if (o->has_min_speedup) {
            stages[s].min_speedup = o->min_speedup;
            stages[s].min_speedup_per_sm = 0; /* it holds on any SM count */
        }
        if (o->has_min_ceiling)
            stages[s].min_ceiling = o->min_ceiling;
        if (o->has_graded)
            rules[s].graded = o->graded;
        if (o->has_technique)
            rules[s].technique_required = o->technique_required;
        if (o->has_sanitizer)
            rules[s].sanitizer_required = o->sanitizer_required;
    }
}

int config_write_calibration(FILE *f, const lab_spec *const *specs, const lab_results *res,
                             int n_labs, double fraction, const devinfo *dev)
{
    char label[300];
    fprintf(f, "# CUDA Labs thresholds calibrated on %s (compute capability %d.%d):\n"
               "# %.2f x the speedups the reference solutions reached there.\n"
               "# Use with ./grade --config FILE.\n",
            devinfo_label(dev, "an unknown GPU", label, sizeof label), dev ? dev->cc_major : 0, dev ? dev->cc_minor : 0,
            fraction);
    for (int l = 0; l < n_labs; l++) {
        const lab_spec *spec = specs[l];
        for (int s = 0; s < spec->n_stages; s++) {
            const test_record *p = &res[l].t[s][TEST_PERF];
            if (spec->stages[s].points_speed == 0)
                continue;
            int has_base = spec->stages[s].n_base > 0; /* else held to its ceiling alone */
            if (!p->timed || (has_base && !(p->speedup > 0))) {
                fprintf(f, "# lab%d.s%d: not measured (%s); built-in thresholds kept\n",
                        spec->number, s, verdict_name(p->v));
                continue;
            }
            if (has_base) {
                double t = floor(fraction * p->speedup * 100.0) / 100.0;
                fprintf(f, "lab%d.s%d.min_speedup = %.2f   # measured %.2fx over stage %d; built in %.2f\n",
                        spec->number, s, t, p->speedup, p->base, spec->stages[s].min_speedup);
            }
            if (spec->stages[s].min_ceiling > 0 && p->pct_ceiling > 0) {
                double c = floor(fraction * p->pct_ceiling) / 100.0;
                if (c > 1.0)
                    c = 1.0;
                fprintf(f, "lab%d.s%d.min_ceiling = %.2f   # measured %.1f%% of %s; built in %.2f\n",
                        spec->number, s, c, p->pct_ceiling, lab_ceiling_name(spec, s),
                        spec->stages[s].min_ceiling);
            }
        }
    }
    return ferror(f) ? -1 : 0;
}
