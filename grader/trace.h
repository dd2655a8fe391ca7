/* trace.h: what ran on the GPU, and when, during one call of a stage: its
 * copies and kernels with their streams, from CUPTI's activity records
 * (the library Nsight Systems reads them with). CUPTI is loaded at run time
 * from the CUDA Toolkit; where it is missing, tracing says so and lab 5
 * grades without its overlap check. */
#ifndef CUDA_LABS_TRACE_H
#define CUDA_LABS_TRACE_H

#include <stddef.h>

typedef enum span_kind { SPAN_H2D = 0, SPAN_KERNEL = 1, SPAN_D2H = 2 } span_kind;

/* One operation seen on the GPU: a copy or a kernel, on a stream, from start
 * to end (ms, from any common origin). */
typedef struct span {
    int stream;
    span_kind kind;
    double start, end;
} span;

/* Starts recording copies and kernels. 0, or -1 with why in err. */
int trace_begin(char *err, size_t errn);

/* Waits for the GPU, stops recording and writes what ran since trace_begin
 * into s (at most max spans, in ms from the first start; streams numbered
 * from 0 in order of appearance). Returns how many, or -1 with why in err. */
int trace_end(span *s, int max, char *err, size_t errn);

/* After trace_end: every kernel that ran on the GPU between trace_begin and
 * trace_end, whoever launched it (the lab library, a library it reached, the
 * driver), by its mangled name with how many times it ran. Returns how many
 * names were written (at most max); a last entry whose name starts with "("
 * stands for kernels beyond TRACE_MAX_NAMES distinct names, or unnamed ones.
 * 0 where CUPTI is not built in. */
#define TRACE_MAX_NAMES 256
int trace_kernel_names(const char **names, int *counts, int max);

/* The kernel audit's check that nothing ran unrecorded. The grader launches
 * a marker kernel named `name` just before and just after a stage's call;
 * trace_set_mark names it (NULL: none). After trace_end, trace_dark fills w
 * with the window from the end of the first marker to the start of the last
 * and how much of it no recorded kernel, copy or memset covered: time the GPU
 * was idle, or ran work CUPTI did not see. Returns how many markers ran. */
typedef struct trace_window {
    int marks;           /* marker kernels recorded */
    int operations;      /* recorded kernels, copies and memsets in the window */
    int operations_lost; /* 1: more than the grader keeps (their time counts as dark) */
    double window_ms, dark_ms;
} trace_window;
void trace_set_mark(const char *name);
int trace_dark(trace_window *w);

/* What w shows, with why filled when it is not TRACE_CLEAN:
 *   TRACE_TAMPERED  a marker missing or extra, or dark time with nothing of the
 *                   stage recorded at all: the recording was switched off, or
 *                   all the stage's work went around it;
 *   TRACE_DARK      dark time beside recorded work: hidden work, or a GPU left
 *                   waiting (host work in the call, a busy host, another
 *                   program on the GPU), which the records cannot tell apart;
 *   TRACE_CLEAN     no more dark time than an honest call's host latency.
 * On any machine (unit-tested). */
enum { TRACE_CLEAN = 0, TRACE_DARK = 1, TRACE_TAMPERED = 2 };
int trace_window_suspect(const trace_window *w, char *why, size_t n);

#endif
