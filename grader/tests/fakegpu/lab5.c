/* lab5.c: lab 5's stages (labs/5-streams/streams.h) for the fake GPU
 * (cudart.c), done on the host. Lab 5 is timed by the wall clock, so each
 * run sleeps for what it would take on a GPU, ms[stage] milliseconds; the
 * ceiling sleeps STREAMS_CEILING_MS (streams_ceiling.c). Built as four
 * libraries:
 *   LAB5_GOOD   every stage correct and fast enough;
 *   LAB5_FAULTS stage 1 uses its own a, stage 2 is not written (LAB_TODO
 *               from setup), stage 3 leaves its last chunk out, stage 5 is
 *               barely faster than its base;
 *   LAB5_CHEATS every stage correct, but stage 5 is as slow as stage 4 and,
 *               at its twelfth call at the timed size (n = 1000), writes a
 *               PASS with LAB5_GOOD's time into its speed test's record
 *               through the grader's own write and leaves with the pass code
 *               (issue 20, class 2); stage 3, from its fifth call at that
 *               size, hands back the output of its fourth (a replay);
 *   LAB5_FORGES stage 2 gets a wrong (its own a) and writes NOT AVAILABLE
 *               into its correctness test's record through the grader's own
 *               write, and a constructor writes the same into its speed
 *               test's record: the verdict that takes a test's points out of
 *               the total, which only the grader's parent gives; stage 1
 *               leaves out the last element at n = 1000 and there writes
 *               a PASS into its correctness test's record through the
 *               grader's own write and leaves with the pass code; stage 5,
 *               right in its correctness test's own calls at n = 1000,
 *               hands back the second one's output in the third, the
 *               checking witness's; stage 3 writes a SETUP ERROR that says
 *               CUDA did not start (the grader's fault, were it true) into
 *               its correctness test's record, which says it came before the
 *               library was loaded;
 *   LAB5_RECORDS records the grader's parent must read safely: stage 1's
 *               correctness record says WRONG RESULT at size 2^29 (an index
 *               into the lab's table of sizes), stage 3's a SETUP ERROR
 *               whose message runs on past its array into the fields after
 *               it, which the parent appends to. */
#include <stddef.h>
#include <string.h>

#if defined(LAB5_CHEATS) || defined(LAB5_FORGES) || defined(LAB5_RECORDS)
#include "../adversarial/results_fd.h"
#endif

#include "../../../labs/5-streams/streams.h"
#include "fakegpu.h"
#include "host_ops.h"

#if defined(LAB5_FAULTS)
static const double ms[] = {96, 24, 17.6, 19.2, 80, 72};
#elif defined(LAB5_CHEATS)
static const double ms[] = {96, 24, 17.6, 19.2, 80, 80};
#else
static const double ms[] = {96, 24, 17.6, 19.2, 80, 40};
#endif

#if defined(LAB5_FORGES)
static const char forged_na[] = "needs compute capability 10.0: not graded, no points lost";

__attribute__((constructor)) static void forge_speed_test(void)
{
    if (forge_running_is(2, TEST_PERF))
        forge_verdict(2, TEST_PERF, V_NOT_AVAILABLE, forged_na);
}
#endif

#if defined(LAB5_RECORDS)
/* Writes a record of verdict v at size into the correctness test of stage,
 * its message and the fields after it up to base filled with 'A' when long,
 * and leaves with a failing exit code. */
static void forge_raw(int stage, verdict v, int size, int long_msg)
{
    uintptr_t stub = forge_grader_symbol("results_pwrite_stub");
    int fd = forge_find_results_fd();
    test_record rec;
    long off = forge_record(&rec, stage, TEST_CORRECT);
    rec.v = v;
    rec.size = size;
    if (long_msg)
        memset(rec.msg, 'A', offsetof(test_record, base) - offsetof(test_record, msg));
    if (stub && fd >= 0 &&
        ((forge_stub_fn *)stub)(fd, &rec, sizeof rec, off) == (long)sizeof rec)
        _exit(1);
}
#endif

static lab_status setup(int stage, const streams_job *job, void **state)
{
    (void)job;
#if defined(LAB5_FAULTS)
    if (stage == 2)
        return LAB_TODO;
#endif
    *state = NULL;
    (void)stage;
    return LAB_OK;
}

static lab_status run(int stage, const streams_job *job)
{
    size_t n = job->n;
    float a = job->a;
#if defined(LAB5_FAULTS)
    if (stage == 1)
        a = 2.0f;
    if (stage == 3 && job->chunks > 1)
        n -= n / (size_t)job->chunks;
#endif
#if defined(LAB5_RECORDS)
    if (stage == 1 && forge_running_is(1, TEST_CORRECT))
        forge_raw(1, V_WRONG, 1 << 29, 0);
    if (stage == 3 && forge_running_is(3, TEST_CORRECT))
        forge_raw(3, V_SETUP_ERROR, 0, 1);
#endif
#if defined(LAB5_FORGES)
    if (stage == 1 && n == 1000) {
        n--;
        if (forge_running_is(1, TEST_CORRECT))
            forge_correct_pass(1);
    }
    if (stage == 3 && forge_running_is(3, TEST_CORRECT))
        forge_verdict(3, TEST_CORRECT, V_SETUP_ERROR,
                      "could not start CUDA: cudaErrorNoDevice (no CUDA-capable device is "
                      "detected)");
    if (stage == 2) {
        a = 2.0f;
        if (forge_running_is(2, TEST_CORRECT))
            forge_verdict(2, TEST_CORRECT, V_NOT_AVAILABLE, forged_na);
    }
#endif
#if defined(LAB5_CHEATS)
    static int calls[6];
    static float kept[1000];
    if (n == 1000 && ++calls[stage] == 12 && stage == 5) /* 40 ms, as LAB5_GOOD's */
        forge_speed_pass(5, 40, 12.0 * 1000 / 1e9, 4, 80, 14.1);
    if (n == 1000 && stage == 3 && calls[3] > 4) {
        memcpy(job->out, kept, sizeof kept);
        sleep_ms(ms[stage]);
        return LAB_OK;
    }
#endif
    for (size_t i = 0; i < n; i++)
        job->out[i] = a * streams_poly(job->c, job->degree, job->x[i]) + job->y[i];
#if defined(LAB5_FORGES)
    static int calls5;
    static float kept5[1000];
    if (stage == 5 && n == 1000 && forge_running_is(5, TEST_CORRECT)) {
        if (++calls5 <= 2) /* the test's own calls, one an input set */
            memcpy(kept5, job->out, sizeof kept5);
        else /* the third, the checking witness's */
            memcpy(job->out, kept5, sizeof kept5);
    }
#endif
#if defined(LAB5_CHEATS)
    if (n == 1000 && stage == 3)
        memcpy(kept, job->out, sizeof kept);
#endif
    sleep_ms(ms[stage]);
    return LAB_OK;
}

#define STAGE(k, name)                                                                         \
    lab_status name##_setup(const streams_job *job, void **state);                             \
    lab_status name##_run(const streams_job *job, void *state);                                \
    void name##_teardown(void *state);                                                         \
    lab_status name##_setup(const streams_job *job, void **state)                              \
    {                                                                                          \
        return setup(k, job, state);                                                           \
    }                                                                                          \
    lab_status name##_run(const streams_job *job, void *state)                                 \
    {                                                                                          \
        (void)state;                                                                           \
        return run(k, job);                                                                    \
    }                                                                                          \
    void name##_teardown(void *state)                                                          \
    {                                                                                          \
        (void)state;                                                                           \
    }
STAGE(0, pageable)
STAGE(1, pinned)
STAGE(2, overlap)
STAGE(3, zero_copy)
STAGE(4, heavy_serial)
STAGE(5, heavy_overlap)
