/* timings.h: where grading time goes. A process (a grading child, or the
 * parent while it makes inputs) is always in one phase; switching phase
 * charges the seconds since the last switch to the phase it leaves. The
 * runner switches around its own steps; a lab spec switches to
 * TM_INPUTS or TM_REFERENCE around the host work it does. --timings prints
 * the totals per stage, and the JSON carries them. No CUDA here. */
#ifndef CUDA_LABS_TIMINGS_H
#define CUDA_LABS_TIMINGS_H

#include <stdio.h>

enum tm_phase {
    TM_STARTUP = 0, /* loading the library, creating the CUDA context and stream */
    TM_INPUTS,      /* random inputs made on the host */
    TM_REFERENCE,   /* the CPU reference (expected outputs) */
    TM_UPLOAD,      /* device buffers, uploads, the rest of a size's set-up */
    TM_CALLS,       /* correctness calls of the stage */
    TM_CHECKS,      /* checks of correctness calls' outputs, guards and inputs */
    TM_RELOAD,      /* inputs reloaded and outputs poisoned between timed calls */
    TM_TIMED,       /* timed calls of the stage and the stages it must beat */
    TM_CEILING,     /* timed calls of the ceiling */
    TM_TIMED_CHECKS,/* checks of timed calls' outputs */
    TM_OTHER,       /* the rest: fork, exit, teardown, what no phase above names */
    TM_COUNT
};

/* Zeroes this process's totals and starts the clock in phase p. */
void tm_start(int p);
/* Charges the time since the last switch to the current phase and makes p
 * current; returns the phase it left, so a caller can go back to it. */
int tm_enter(int p);
/* This process's totals so far (the current phase charged up to now). */
void tm_totals(double secs[TM_COUNT]);
/* Seconds on a monotonic clock. */
double tm_now(void);

const char *tm_phase_name(int p);  /* "start-up" */
const char *tm_phase_key(int p);   /* "startup", for JSON */

#endif
