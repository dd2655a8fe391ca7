/* report.h: what the grader prints and writes, all from the result model.
 * Pure host code: unit-tested on hand-made records. */
#ifndef CUDA_LABS_REPORT_H
#define CUDA_LABS_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "../common/devinfo.h"
#include "lab.h"
#include "results.h"

/* "./grade lab1 --stage 3 --seed 0x1f" (+ --solutions or --lib PATH). */
void report_replay(char *buf, size_t n, const lab_spec *spec, int stage, uint64_t seed,
                   int solutions, const char *lib);

/* One line after a stage's tests ended. */
void report_live_line(FILE *f, const lab_spec *spec, const lab_results *res, int stage);

/* What is being graded right now, for a progress line: "stage 6  <title>  n =
 * 2^28: timing". Returns 1 with the text in buf when a test of this lab is
 * running (*stage, *kind say which), else 0. Integers and strings only: it is
 * called from the progress thread, which must not allocate. */
int report_progress_text(char *buf, size_t n, const lab_spec *spec, const lab_results *res,
                         int *stage, int *kind);

/* The scoreboard: a row per graded stage. */
void report_table(FILE *f, const lab_spec *spec, const lab_results *res);
/* --timings: where one lab's grading time went, in seconds per stage and
 * phase (both of a stage's tests together), then the parent's share and
 * the lab's total. */
void report_timings(FILE *f, const lab_spec *spec, const lab_results *res);

/* Every failed test: verdict, message, the command that replays it. */
void report_failures(FILE *f, const lab_spec *spec, const lab_results *res, uint64_t seed,
                     int solutions, const char *lib);

/* The likely cause of a missed speedup, for that lab and stage, from what was
 * measured; 1 when there is a hint (in buf). */
int report_hint(char *buf, size_t n, const lab_spec *spec, const lab_results *res, int stage,
                int kind);

/* Points earned and available in tests that ran. */
void report_score(const lab_spec *spec, const lab_results *res, int *got, int *max);

/* The same over n_labs labs. */
void report_score_labs(const lab_spec *const *specs, const lab_results *res, int n_labs,
                       int *got, int *max);

/* Tests that ran and did not pass. */
int report_failed_tests(const lab_spec *spec, const lab_results *res);

/* Everything as one JSON document; 0 on success. */
int report_json(FILE *f, const lab_spec *const *specs, const lab_results *res, int n_labs,
                const devinfo *dev, uint64_t seed, const char *const *libs);
/* The same, with the grading run's wall time (written when above 0). */
int report_json_run(FILE *f, const lab_spec *const *specs, const lab_results *res, int n_labs,
                    const devinfo *dev, uint64_t seed, const char *const *libs, double elapsed_s,
                    const char *unguarded);

/* JSON string escaping into buf; returns buf. */
const char *report_json_escape(const char *s, char *buf, size_t n);

#endif
