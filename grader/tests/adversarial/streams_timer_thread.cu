/* Adversarial case (lab 5): host threads are refused by name (pthread_create,
 * std::thread), but the C library starts one of its own for a SIGEV_THREAD
 * timer. After each of its calls, stage 5 arms a timer that fires 1 ms
 * later, while the grader checks and reloads, and the timer's thread puts a
 * kernel that spins for 20 ms on every SM on a stream the stage made in
 * setup. Lab 5 is timed host to host, so the next timed call (the given
 * base's, or the ceiling's: the rotation never times this stage twice in a
 * row) pays for it, and stage 5's speedup and share of the ceiling grow at
 * will. timer_create and timer_settime are refused: rejected before anything
 * runs.
 * lab: 5
 * needs-gpu: no
 * expect-exit: 1
 * expect-output: REJECTED: it calls timer_create(): it runs code on a thread of the C library's
 */
#define heavy_overlap_run heavy_overlap_run_reference
#define heavy_overlap_setup heavy_overlap_setup_reference
#include "../../../solutions/5-streams/streams.cu"
#undef heavy_overlap_run
#undef heavy_overlap_setup
#include <signal.h>
#include <string.h>
#include <time.h>

#define HOG_MS 20.0

__global__ void hog(unsigned long long ns)
{
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    while (t - t0 < ns);
}

static cudaStream_t hog_stream;
static timer_t hog_timer;
static bool speed_test; /* the first call this process saw was at the benchmark size */

static void fire(union sigval)
{
    hog<<<1024, 128, 0, hog_stream>>>((unsigned long long)(HOG_MS * 1e6));
}

extern "C" lab_status heavy_overlap_setup(const streams_job *job, void **state)
{
    static bool first = true;
    if (first) {
        first = false;
        speed_test = job->n >= ((size_t)1 << 25);
        struct sigevent ev;
        memset(&ev, 0, sizeof ev);
        ev.sigev_notify = SIGEV_THREAD;
        ev.sigev_notify_function = fire;
        if (cudaStreamCreateWithFlags(&hog_stream, cudaStreamNonBlocking) != cudaSuccess ||
            timer_create(CLOCK_MONOTONIC, &ev, &hog_timer) != 0)
            speed_test = false;
    }
    return heavy_overlap_setup_reference(job, state);
}

extern "C" lab_status heavy_overlap_run(const streams_job *job, void *state)
{
    lab_status st = heavy_overlap_run_reference(job, state);
    if (speed_test) { /* one shot, 1 ms after we return: the grader's next call absorbs it */
        struct itimerspec its = {{0, 0}, {0, 1000000}};
        timer_settime(hog_timer, 0, &its, NULL);
    }
    return st;
}
