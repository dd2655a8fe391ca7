/* config.h: an instructor's changes to the built-in stage table, read from a
 * small text file (./grade --config FILE), and the calibrated file that
 * ./grade --solutions --calibrate FILE writes.
 *
 *     # one setting per line: lab.stage.key = value
 *     lab1.s3.min_speedup = 0.85
 *     lab1.s4.points_speed = 15
 *     lab1.s2.graded = no
 *
 * Keys: points_correct, points_speed (whole numbers >= 0), min_speedup (a number
 * > 0), min_ceiling (the fraction of the ceiling a stage must also reach, 0 to 1;
 * 0 turns it off), graded (yes or no: whether the stage is graded at all),
 * technique (required or hint: whether a correct stage whose kernels lack the
 * technique it teaches loses its speed points, or its correctness points when
 * it has none for speed; hint only names it; the default is the stage's
 * technique_required, hint but for lab 3's stage 2), sanitizer
 * (required or no: whether a correct stage is also run under compute-
 * sanitizer's four tools after grading, and fails its correctness test on a
 * finding). */
#ifndef CUDA_LABS_CONFIG_H
#define CUDA_LABS_CONFIG_H

#include <stdio.h>

#include "../common/devinfo.h"
#include "lab.h"
#include "results.h"

typedef struct stage_override {
    int has_points_correct, points_correct;
    int has_points_speed, points_speed;
    int has_min_speedup;
    double min_speedup;
    int has_min_ceiling;
    double min_ceiling;
    int has_graded, graded;
    int has_technique, technique_required;
    int has_sanitizer, sanitizer_required;
} stage_override;

/* What a config decides about a stage beyond its table entry. */
typedef struct stage_rules {
    int graded;             /* graded at all */
    int technique_required; /* its technique costs points when missing */
    int sanitizer_required; /* a sanitizer finding fails its correctness */
} stage_rules;

typedef struct grade_config {
    stage_override o[LAB_MAX][LAB_MAX_STAGES]; /* by the lab's position (lab_position) */
} grade_config;

/* Reads settings from f; name is used in messages. 0 on success, else -1 with
 * "name:LINE: what is wrong" in err. */
int config_parse(FILE *f, const char *name, grade_config *c, char *err, size_t errn);

/* The lab's stage table with the overrides applied, into stages (n_stages
 * entries), and each stage's rules. */
void config_apply(const grade_config *c, const lab_spec *spec, lab_stage *stages,
                  stage_rules *rules);

/* Writes a config whose thresholds are fraction x the speedups the solutions
 * reached in res (rounded down to 0.01), with the GPU and the measurements as
 * comments. Stages without a measured speedup keep their built-in threshold. */
int config_write_calibration(FILE *f, const lab_spec *const *specs, const lab_results *res,
                             int n_labs, double fraction, const devinfo *dev);

#endif
