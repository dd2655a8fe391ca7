/* options.h: the grader's command line. Parsing is pure (no I/O), so it is
 * unit-tested in grader/tests/check_options.c. */
#ifndef CUDA_LABS_OPTIONS_H
#define CUDA_LABS_OPTIONS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lab.h"

#define OPT_MAX_LABS LAB_MAX /* labs named on one command line */
#define OPT_MIN_REPS 20
#define OPT_MAX_REPS 1000
#define OPT_MAX_SMS 100000 /* --sms: the GPU's own count is checked in the probe */

typedef struct grade_options {
    const char *labs[OPT_MAX_LABS]; /* as typed: "lab1", "1", "transpose", "all" */
    int n_labs;
    int stage;          /* the one stage asked for; -1: every stage, or several */
    unsigned stage_mask; /* bit s: grade stage s; 0: every stage */
    uint64_t seed;
    int seed_given;
    int reps;           /* timed repetitions of each function */
    int solutions;      /* grade build/solutions/labN.so */
    const char *lib;    /* grade this library instead */
    const char *json;   /* write results as JSON here */
    const char *junit;  /* JUnit XML */
    const char *tap;    /* TAP 13 */
    const char *gradescope; /* Gradescope results.json */
    int classroom;      /* GitHub Classroom reporter payload ($GITHUB_OUTPUT or stdout) */
    const char *config;    /* points and thresholds that replace the built-in ones */
    const char *analyze;   /* summarise a folder of --json results, then stop */
    const char *stability; /* summarise a folder of runs of the same code, then stop */
    const char *plot;      /* write an SVG chart per lab into this folder */
    const char *html;      /* write a self-contained HTML report */
    const char *from;      /* take the results from this --json file instead of grading */
    const char *calibrate; /* with --solutions: write calibrated thresholds here */
    double fraction;       /* of the measured speedups, for --calibrate */
    int autolab;        /* Autolab's scores line, last */
    int quick;          /* small sizes only, nothing timed */
    int sanitize;       /* every stage under compute-sanitizer's four tools */
    int profile_once;   /* run --stage N once at the timed size, for a profiler */
    int under_sanitizer; /* internal: this run is inside compute-sanitizer */
    int timings;        /* print where the grading time went */
    int sms;            /* grade on this many SMs (a green context); 0: the whole GPU */
    int list, help, gpu_info;
} grade_options;

/* Returns 0 on success; -1 with a one-line reason in err. */
int options_parse(int argc, char **argv, grade_options *o, char *err, size_t errn);
/* Accepts decimal or 0x-prefixed hexadecimal; 0 on success. */
int options_parse_u64(const char *s, uint64_t *v);
void options_usage(FILE *f);

#endif
