/* formats.h: the result model written for other tools: JUnit XML, TAP,
 * Gradescope's results.json, GitHub Classroom's reporter payload, Autolab's
 * scores line. Pure host code, unit-tested on hand-made records. */
#ifndef CUDA_LABS_FORMATS_H
#define CUDA_LABS_FORMATS_H

#include <stdint.h>
#include <stdio.h>

#include "../common/devinfo.h"
#include "lab.h"
#include "results.h"

/* Everything a writer needs: the labs graded, their results, the run. */
typedef struct run_summary {
    const lab_spec *const *specs;
    const lab_results *res;
    int n_labs;
    const devinfo *dev;
    uint64_t seed;
    double elapsed_s;        /* the grading run's wall time; 0 when unknown */
    const char *source_root; /* where labs/ is, for the lines of stage functions; NULL: none */
    const char *unguarded;   /* what of the sandbox was off (main.c); NULL or "": nothing */
} run_summary;

int format_junit(FILE *f, const run_summary *r);
int format_tap(FILE *f, const run_summary *r);
int format_gradescope(FILE *f, const run_summary *r);
/* The JSON payload of GitHub Classroom's grading reporter (before base64). */
int format_classroom(FILE *f, const run_summary *r);
/* {"scores": {"lab1": 80}}: Autolab reads the last line of the output. */
int format_autolab(FILE *f, const run_summary *r);

/* Appends result=<base64 of format_classroom> to $GITHUB_OUTPUT, or prints it
 * when that is unset: the step output the reporter reads. 0 on success. */
int format_classroom_output(const run_summary *r);
/* A Gradescope results.json with no tests, for a run that never graded: the
 * messages it printed (said), its exit status, and the end of the build log
 * named by $GRADE_BUILD_LOG. */
void format_gradescope_fallback(const char *path, int rc, const char *said);
/* The Classroom payload of a run that never graded: one test in error, 0
 * points out of max_score, with the same text; what names it ("lab1"). 0 on
 * success. */
int format_classroom_fallback(int rc, const char *said, const char *what, int max_score);
/* The first line (from 1) of the file at path where symbol is followed by
 * '(', or 0. */
int format_source_line(const char *path, const char *symbol);

/* Standard base64 of n bytes into out (4 * ceil(n / 3) + 1 bytes); returns out. */
char *format_base64(const unsigned char *in, size_t n, char *out);
/* XML text escaping into buf; returns buf. */
const char *format_xml_escape(const char *s, char *buf, size_t n);

#endif
