/* Adversarial case (lab 5, issue 20 class 2): stage 2 is stage 1's code
 * under stage 2's names (one stream: 1.0x its base). Stage 1 spins 2.5 ms
 * after its work once stage 2's setup has run in the test's process, that is
 * only as the base in stage 2's speed test, where the host witness then times
 * stage 2 at about 1.3x its base (1.15x needed). After the 22 timed calls
 * stage 2 writes a PASS whose base time is stage 1's time in its own test
 * (7.7 ms), its own and the ceiling's below the witness's (a host witness's
 * window also holds both processes' waking, so a record faster than it is no
 * contradiction), and leaves with the grader's pass code. The pass keeps the
 * witness's times, and the drift check then finds the base 1.3x slower here
 * than in its own test: TOO SLOW.
 * lab: 5
 * grade-args: --stage 1,2
 * expect: 1 speed PASS
 * expect: 2 correctness PASS
 * expect: 2 speed TOO SLOW
 * expect-output: so the speedup measured here cannot be believed
 */
#include "results_fd.h"

#include <time.h>

#define pinned_run pinned_run_reference
#define overlap_setup overlap_setup_reference
#define overlap_run overlap_run_reference
#define overlap_teardown overlap_teardown_reference
#include "../../../solutions/5-streams/streams.cu"
#undef pinned_run
#undef overlap_setup
#undef overlap_run
#undef overlap_teardown

static bool slowed; /* stage 2's setup has run in this process */

static double now_ms()
{
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

extern "C" lab_status pinned_run(const streams_job *job, void *state)
{
    lab_status st = pinned_run_reference(job, state);
    if (slowed)
        for (double t0 = now_ms(); now_ms() - t0 < 2.5;)
            ;
    return st;
}

extern "C" lab_status overlap_setup(const streams_job *job, void **state)
{
    slowed = true;
    return pinned_setup(job, state);
}

/* At the timed size, the speed test's 22 calls and then its full check. */
extern "C" lab_status overlap_run(const streams_job *job, void *state)
{
    static int calls;
    lab_status st = pinned_run_reference(job, state);
    if (job->n == ((size_t)1 << 25) && ++calls == 23)
        forge_speed_pass(2, 6.0, 12.0 * (double)job->n / 1e9, 1, 7.7, 5.0);
    return st;
}

extern "C" void overlap_teardown(void *state)
{
    pinned_teardown(state);
}
