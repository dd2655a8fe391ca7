/* verdict.h: every outcome a graded test can have, with its name. */
#ifndef CUDA_LABS_VERDICT_H
#define CUDA_LABS_VERDICT_H

#define VERDICT_MSG 640

typedef enum verdict {
    V_NOT_RUN = 0,
    V_PASS,            /* correct / fast enough */
    V_SLOW,            /* correct but below the speedup threshold */
    V_TODO,            /* the stage returned LAB_TODO: not implemented yet */
    V_WRONG,           /* output differs from the CPU reference */
    V_NOT_WRITTEN,     /* output elements still hold the poison */
    V_NAN,             /* output holds NaN or infinity */
    V_OUT_OF_BOUNDS,   /* a guard zone around a buffer changed */
    V_INPUT_MODIFIED,  /* an input buffer changed */
    V_LAUNCH_ERROR,    /* cudaGetLastError after the stage */
    V_GPU_FAULT,       /* sticky error at the synchronise after the stage */
    V_STAGE_ERROR,     /* the stage returned LAB_ERROR or an unknown status */
    V_TIMEOUT,         /* killed after the stage's time limit */
    V_CRASH,           /* killed by a signal */
    V_EARLY_EXIT,      /* the process ended inside student code */
    V_TIMING_ANOMALY,  /* event time and wall time disagree */
    V_IMPOSSIBLE,      /* faster than the measured ceiling */
    V_SKIPPED,         /* not graded because something it needs failed */
    V_SETUP_ERROR,     /* the grader could not set up (library, memory, CUDA) */
    V_NO_TECHNIQUE,    /* correct, but its kernels lack the technique an instructor requires */
    V_SANITIZER,       /* correct, but compute-sanitizer found a problem (an instructor requires it clean) */
    V_NOT_AVAILABLE,   /* not graded: the stage's technique needs a newer GPU; no points either way */
    V_REJECTED,        /* the stage did what the contract forbids: a call the sandbox refused
                          (tampering), a library's kernel, work on another stream */
    V_COUNT
} verdict;

/* "PASS", "WRONG RESULT", ... */
const char *verdict_name(verdict v);

/* Neither passed nor failed: nothing could be graded on this GPU (NOT
 * AVAILABLE). Reports list it, count it with the skipped tests, and never as a
 * failure; it carries no points. */
static inline int verdict_neutral(verdict v)
{
    return v == V_NOT_AVAILABLE;
}

#endif
