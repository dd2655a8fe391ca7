/* Adversarial case (lab 2, issue 20 class 2): stage 1 forges its own PASS.
 * It finds the grader's results page in /proc/self/maps, makes it writable
 * with an inline system call (assembled at run time in an executable page,
 * hidden_calls.h: no syscall instruction in its code, no mprotect import),
 * writes PASS into its record and leaves with the grader's pass code. The
 * sandbox refuses the mprotect.
 * lab: 2
 * expect: 1 correctness REJECTED
 * expect-output: it tried to make the grader's results page writable or executable (syscall mprotect)
 * grade-args: --stage 1
 */
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../../results.h"
#include "hidden_calls.h"

#define reduce_interleaved reduce_interleaved_reference
#include "../../../solutions/2-reduce/reduce.cu"
#undef reduce_interleaved

/* The start and length of the mapping whose line names the results file. */
static int find_results(uintptr_t *start, size_t *len)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512];
    int found = 0;
    while (f && !found && fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (strstr(line, "cuda-labs-results") && sscanf(line, "%lx-%lx", &lo, &hi) == 2) {
            *start = lo;
            *len = hi - lo;
            found = 1;
        }
    }
    if (f)
        fclose(f);
    return found;
}

extern "C" lab_status reduce_interleaved(const float *d_in, size_t n, float *d_out, float *d_work,
                                         cudaStream_t stream)
{
    uintptr_t start;
    size_t len;
    hidden_syscall_fn sys = hidden_trampoline();
    if (sys && find_results(&start, &len) &&
        sys(SYS_mprotect, (long)start, (long)len, (long)(PROT_READ | PROT_WRITE)) == 0) {
        /* Its record says PASS, then the grader's pass code (runner.h). */
        test_record *rec = &((lab_results *)start)->t[1][TEST_CORRECT];
        rec->v = V_PASS;
        rec->state = STATE_FINISHED;
        snprintf(rec->msg, sizeof rec->msg, "correct at every size");
        _exit(93);
    }
    return reduce_interleaved_reference(d_in, n, d_out, d_work, stream);
}
