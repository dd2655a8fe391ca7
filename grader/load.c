/* load.c: a run read back from the JSON that ./grade --json wrote, so charts,
 * reports and other formats can be made again later, without a GPU
 * (./grade --from FILE). */
#define _GNU_SOURCE
#include "load.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

static verdict verdict_from(const char *name)
{
    for (int v = 0; v < V_COUNT; v++)
        if (strcmp(verdict_name((verdict)v), name) == 0)
            return (verdict)v;
    return V_NOT_RUN;
}

/* The seconds of each phase (--timings), as written by report_json. */
static void take_seconds(const json *j, double *tm)
{
    for (int p = 0; p < TM_COUNT; p++)
        tm[p] = json_number(json_get(j, tm_phase_key(p)), 0);
}

static void take_test(const json *j, test_record *t)
{
    t->graded = 1;
    t->state = STATE_FINISHED;
    t->size = -1;
    t->base = -1;
    t->v = verdict_from(json_string(json_get(j, "verdict"), ""));
    snprintf(t->msg, sizeof t->msg, "%s", json_string(json_get(j, "message"), ""));
    t->fault = strcmp(json_string(json_get(j, "fault"), "grader"), "submission") == 0
                   ? FAULT_SUBMISSION
                   : FAULT_GRADER;
    snprintf(t->kernels, sizeof t->kernels, "%s", json_string(json_get(j, "kernels"), ""));
    snprintf(t->missing_technique, sizeof t->missing_technique, "%s",
             json_string(json_get(j, "missing_technique"), ""));
    take_seconds(json_get(j, "seconds"), t->tm);
    const json *tm = json_get(j, "timing");
    if (!tm)
        return;
    t->timed = 1;
    t->reps = (int)json_number(json_get(tm, "reps"), 0);
    t->median_ms = json_number(json_get(tm, "median_ms"), 0);
    t->p10_ms = json_number(json_get(tm, "p10_ms"), 0);
    t->p90_ms = json_number(json_get(tm, "p90_ms"), 0);
    t->wall_ms = json_number(json_get(tm, "wall_ms"), 0);
    t->throughput = json_number(json_get(tm, "throughput"), 0);
    t->ceiling_ms = json_number(json_get(tm, "ceiling_ms"), 0);
    t->ceiling_throughput = json_number(json_get(tm, "ceiling_throughput"), 0);
    t->pct_ceiling = json_number(json_get(tm, "pct_ceiling"), 0);
    t->base = (int)json_number(json_get(tm, "base"), -1);
    t->base_ms = json_number(json_get(tm, "base_ms"), 0);
    t->speedup = json_number(json_get(tm, "speedup"), 0);
    t->min_speedup = json_number(json_get(tm, "min_speedup"), 0);
    t->min_ceiling = json_number(json_get(tm, "min_ceiling"), 0);
}

/* A number of the stage object, else of the test it names, else fallback. */
static double recorded(const json *st, const char *key, const char *test, const char *test_key,
                       double fallback)
{
    const json *t = test ? json_get(st, test) : NULL;
    if (t && strcmp(test_key, "max_points") != 0)
        t = json_get(t, "timing");
    return json_number(json_get(st, key), json_number(json_get(t, test_key), fallback));
}

/* The stage's rules as graded: points and thresholds from the record. */
static void take_stage_rules(const json *st, lab_stage *stage)
{
    stage->points_correct =
        (int)recorded(st, "points_correct", "correctness", "max_points", stage->points_correct);
    stage->points_speed =
        (int)recorded(st, "points_speed", "speed", "max_points", stage->points_speed);
    stage->min_speedup = recorded(st, "min_speedup", "speed", "min_speedup", stage->min_speedup);
    stage->min_ceiling = recorded(st, "min_ceiling", "speed", "min_ceiling", stage->min_ceiling);
}

int results_load(const char *path, loaded_lab *out, lab_results *res, int max_labs,
                 int *n_labs, devinfo *dev, uint64_t *seed, double *elapsed_s, char *unguarded,
                 size_t unguardedn, char *err, size_t errn)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errn, "cannot read %s", path);
        return -1;
    }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = size >= 0 ? malloc((size_t)size + 1) : NULL;
    size_t got = text ? fread(text, 1, (size_t)size, f) : 0;
    fclose(f);
    if (!text) {
        snprintf(err, errn, "out of memory reading %s", path);
        return -1;
    }
    text[got] = '\0';
    char why[256];
    json *doc = json_parse(text, why, sizeof why);
    free(text);
    if (!doc) {
        snprintf(err, errn, "%s is not a results file of ./grade --json: %s", path, why);
        return -1;
    }
    memset(dev, 0, sizeof *dev);
    const json *gpu = json_get(doc, "gpu");
    snprintf(dev->name, sizeof dev->name, "%s", json_string(json_get(gpu, "name"), ""));
    sscanf(json_string(json_get(gpu, "compute_capability"), "0.0"), "%d.%d", &dev->cc_major,
           &dev->cc_minor);
    dev->sms = (int)json_number(json_get(gpu, "sms"), 0);
    dev->sms_used = (int)json_number(json_get(gpu, "sms_used"), 0);
    dev->driver_version = (int)json_number(json_get(gpu, "driver"), 0);
    dev->runtime_version = (int)json_number(json_get(gpu, "runtime"), 0);
    *seed = strtoull(json_string(json_get(doc, "seed"), "0"), NULL, 0);
    *elapsed_s = json_number(json_get(doc, "elapsed_s"), 0);
    if (unguarded && unguardedn)
        snprintf(unguarded, unguardedn, "%s", json_string(json_get(doc, "unguarded"), ""));

    *n_labs = 0;
    const json *labs = json_get(doc, "labs");
    for (int l = 0; labs && labs->type == JSON_ARRAY && l < labs->n && *n_labs < max_labs; l++) {
        char name[16];
        snprintf(name, sizeof name, "%d", (int)json_number(json_get(&labs->items[l], "lab"), 0));
        const lab_spec *spec = lab_find(name);
        if (!spec || !spec->available)
            continue;
        loaded_lab *lab = &out[*n_labs];
        lab->spec = *spec;
        for (int s = 0; s < spec->n_stages; s++)
            lab->stages[s] = spec->stages[s];
        lab->spec.stages = lab->stages;
        snprintf(lab->library, sizeof lab->library, "%s",
                 json_string(json_get(&labs->items[l], "library"), ""));
        lab_results *r = &res[*n_labs];
        memset(r, 0, sizeof *r);
        r->magic = RESULTS_MAGIC;
        r->lab = spec->number;
        for (int s = 0; s < LAB_MAX_STAGES; s++)
            for (int k = 0; k < TEST_KINDS; k++) {
                r->t[s][k].size = -1;
                r->t[s][k].base = -1;
            }
        const json *secs = json_get(&labs->items[l], "seconds");
        take_seconds(json_get(secs, "before"), r->parent_tm);
        r->after_wall = json_number(json_get(secs, "after"), 0);
        r->wall = json_number(json_get(secs, "wall"), 0);
        const json *walls = json_get(secs, "stage_wall");
        for (int s = 0; walls && walls->type == JSON_ARRAY && s < walls->n && s < LAB_MAX_STAGES; s++)
            r->stage_wall[s] = json_number(&walls->items[s], 0);
        const json *stages = json_get(&labs->items[l], "stages");
        for (int k = 0; stages && stages->type == JSON_ARRAY && k < stages->n; k++) {
            const json *st = &stages->items[k];
            int s = (int)json_number(json_get(st, "stage"), -1);
            if (s < 0 || s >= spec->n_stages)
                continue;
            take_stage_rules(st, &lab->stages[s]);
            if (json_get(st, "correctness"))
                take_test(json_get(st, "correctness"), &r->t[s][TEST_CORRECT]);
            if (json_get(st, "speed"))
                take_test(json_get(st, "speed"), &r->t[s][TEST_PERF]);
        }
        (*n_labs)++;
    }
    json_free(doc);
    if (*n_labs == 0) {
        snprintf(err, errn, "%s holds no results of an available lab", path);
        return -1;
    }
    return 0;
}
