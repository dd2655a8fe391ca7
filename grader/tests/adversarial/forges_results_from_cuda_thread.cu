/* Adversarial case (lab 1, issue 20 class 2): stage 1 runs code of its own
 * on the threads CUDA started before the seccomp filter was installed: a
 * signal handler, reached with tgkill (through libc's syscall() found by a
 * function pointer, hidden_calls.h). There it opens the grader's results
 * file again through /proc/self/fd and writes a PASS into its own record.
 * The file has mode 0, so only a thread with root's capabilities can open
 * it: in a grader run as root, CUDA's threads kept them (capabilities are
 * each thread's own) until the grading child gave them up before starting
 * CUDA. Now the open fails on every thread, the stage says so, and its
 * output is off by one in one element: WRONG RESULT. A forged record would
 * have shown PASS.
 * lab: 1
 * expect: 1 correctness WRONG RESULT
 * expect-output: ran the handler and could not open the results file again
 * grade-args: --stage 1
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>

#include "hidden_calls.h"
#include "results_fd.h"

#define transpose_naive_read transpose_naive_read_reference
#include "../../../solutions/1-transpose/transpose.cu"
#undef transpose_naive_read

static volatile sig_atomic_t ran, open_errno;
static volatile long forged_at;
static test_record forged;
static int results_fd;

static void on_signal(int sig)
{
    (void)sig;
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", results_fd);
    int again = open(path, O_RDWR);
    if (again >= 0 && pwrite(again, &forged, sizeof forged, forged_at) == (ssize_t)sizeof forged)
        _exit(FORGED_PASS_EXIT);
    open_errno = again >= 0 ? 0 : errno;
    ran = 1;
}

__global__ void off_by_one(float *out)
{
    out[0] += 1.0f;
}

extern "C" lab_status transpose_naive_read(const float *d_in, float *d_out, int rows, int cols,
                                           cudaStream_t stream)
{
    static int tried, reached, last_errno;
    hidden_syscall_fn sys = hidden_syscall();
    results_fd = forge_find_results_fd();
    if (!tried && sys && results_fd >= 0) {
        tried = 1;
        forged_at = forge_record(&forged, 1, TEST_CORRECT);
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sa.sa_flags = SA_RESTART; /* CUDA's threads go on with what they were doing */
        sigemptyset(&sa.sa_mask);
        sigaction(SIGUSR2, &sa, NULL);
        long self = sys(SYS_getpid), me = sys(SYS_gettid);
        DIR *task = opendir("/proc/self/task");
        for (struct dirent *e; task && (e = readdir(task));) {
            long tid = strtol(e->d_name, NULL, 10);
            if (tid <= 0 || tid == me)
                continue;
            ran = 0;
            sys(SYS_tgkill, self, tid, (long)SIGUSR2);
            for (int i = 0; i < 200 && !ran; i++) { /* up to 200 ms */
                struct timespec ms = {0, 1000000};
                nanosleep(&ms, NULL);
            }
            if (ran) {
                reached++;
                last_errno = open_errno;
            }
        }
        if (task)
            closedir(task);
        if (reached)
            fprintf(stderr, "forges_results_from_cuda_thread: %d of CUDA's threads ran the handler "
                            "and could not open the results file again (%s)\n",
                    reached, strerror(last_errno));
        else
            fprintf(stderr, "forges_results_from_cuda_thread: no other thread ran the handler\n");
    }
    lab_status st = transpose_naive_read_reference(d_in, d_out, rows, cols, stream);
    off_by_one<<<1, 1, 0, stream>>>(d_out);
    return st;
}
