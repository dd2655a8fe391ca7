/* shuffle_lab.h: the pure parts of lab 3's specification, for the unit tests. */
#ifndef CUDA_LABS_SHUFFLE_LAB_H
#define CUDA_LABS_SHUFFLE_LAB_H

#include <stddef.h>
#include <stdint.h>

#include "../../common/rng.h"

/* What a stage computes. */
enum shuffle_op {
    SHUFFLE_SUM,     /* float sum, as in lab 2 */
    SHUFFLE_SCAN32,  /* inclusive scan of each segment of 32 */
    SHUFFLE_SCAN1K,  /* inclusive scan of each segment of SHUFFLE_SEGMENT */
    SHUFFLE_SCAN,    /* inclusive scan of the whole array */
    SHUFFLE_COMPACT, /* the elements > 0, in order, and their count */
};

/* The operation of stage `stage`; -1 for no such stage. */
int shuffle_stage_op(int stage);
/* Int input set `variant` (0: uniform in [-4, 5]; 1: runs kept or dropped). */
void shuffle_make_ints(int *x, size_t n, int variant, uint64_t seed);
/* Inclusive scan restarting at every multiple of segment (0: never). */
void shuffle_expected_scan(const int *x, size_t n, size_t segment, int *out);
/* The elements > 0 of x, in order, into out; returns how many. */
size_t shuffle_expected_compact(const int *x, size_t n, int *out);
/* Fast checks, on all cores and with no expected array: 1 when got is the
 * (segmented) inclusive scan of x, checked as got[i] - got[i-1] == x[i]
 * inside a segment and got[i] == x[i] where one starts (exact in int32). */
int shuffle_scan_ok(const int *x, const int *got, size_t n, size_t segment);
/* A compaction's plan: how many elements of x are kept before each block of
 * SHUFFLE_BLOCK elements (offsets[b], n / SHUFFLE_BLOCK + 2 entries); returns
 * how many are kept in all. */
#define SHUFFLE_BLOCK ((size_t)1 << 16)
size_t shuffle_compact_plan(const int *x, size_t n, size_t *offsets);
/* 1 when got holds the kept elements of x in order (plan from above). */
int shuffle_compact_ok(const int *x, size_t n, const size_t *offsets, const int *got);
/* Replays. Before each timed call a few input words are patched
 * (grader/patch.h): new values for the words x[idx[0..*k)] (ascending
 * positions from patch_pick), each different from the word it replaces and
 * in [-4, 5] like every input (prefix sums stay far from the unwritten
 * pattern). For a compaction (op SHUFFLE_COMPACT) each position first moves
 * forward to the next kept element (> 0; at most SHUFFLE_BLOCK steps, else
 * dropped; duplicates dropped) and its new value stays > 0: what is kept, the
 * plan and the count stay as they were, and every patched word shows in the
 * output. *k becomes how many are left. */
void shuffle_patch_ints(const int *x, size_t n, int op, uint64_t *idx, int *k, rng *r,
                        uint32_t *val);
/* The fast checks of a patched input: as if x[idx[j]] were val[j] (j < k,
 * idx ascending). For the compaction the patch must keep every element's
 * side of the predicate (shuffle_patch_ints does), so the plan still holds. */
int shuffle_scan_ok_patched(const int *x, const int *got, size_t n, size_t segment,
                            const uint64_t *idx, const uint32_t *val, int k);
int shuffle_compact_ok_patched(const int *x, size_t n, const size_t *offsets, const int *got,
                               const uint64_t *idx, const uint32_t *val, int k);
/* Judge a scan's output (op: SHUFFLE_SCAN32, _SCAN1K or _SCAN) or a
 * compaction's: V_PASS, or a verdict with the message in msg. */
int shuffle_judge_scan(const int *in, const int *expect, const int *got, size_t n, int op,
                       char *msg, size_t msgn);
int shuffle_judge_compact(const int *expect, size_t k, const int *got, int got_count, char *msg,
                          size_t msgn);

#endif
