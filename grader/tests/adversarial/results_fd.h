/* results_fd.h: helpers for the cases that forge a record through the
 * grader's results file (issue 20, class 2). The file's descriptor is found
 * as any submission can find it, by the name its /proc/self/fd link shows;
 * the record is the one of the test being graded, read from the file itself
 * (a read is allowed). Only the seccomp filter in the grading child
 * (grader/sandbox.c) stands between them and a forged PASS. */
#ifndef CUDA_LABS_RESULTS_FD_H
#define CUDA_LABS_RESULTS_FD_H

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../../results.h"

/* The grader's pass code (GRADE_PASS_EXIT, runner.h). */
#define FORGED_PASS_EXIT 93

/* The descriptor whose link names the results file; -1 when there is none. */
static inline int forge_find_results_fd(void)
{
    for (int fd = 0; fd < 1024; fd++) {
        char path[64], link[256];
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
        ssize_t n = readlink(path, link, sizeof link - 1);
        if (n > 0) {
            link[n] = '\0';
            if (strstr(link, "cuda-labs-results"))
                return fd;
        }
    }
    return -1;
}

/* Fills rec with a PASS for test (stage, kind) of the first lab in the file
 * and returns the record's offset in it. */
static inline long forge_record(test_record *rec, int stage, int kind)
{
    memset(rec, 0, sizeof *rec);
    rec->state = STATE_FINISHED;
    rec->graded = 1;
    rec->v = V_PASS;
    rec->size = -1;
    rec->base = -1;
    snprintf(rec->msg, sizeof rec->msg, "correct at every size");
    return (long)offsetof(lab_results, t) + (long)sizeof(test_record) * (stage * TEST_KINDS + kind);
}

#endif
