/* trace.c: see trace.h. Built with CUPTI's headers when the Makefile finds
 * them (HAVE_CUPTI); the library itself is opened with dlopen, so the grader
 * starts on machines without it. */
#define _GNU_SOURCE
#include "trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Dark time an honest call can show. The grader's marker holds the stream
 * while the host reaches the stage's first launch, so a call of the
 * references on an H200 shows 3 to 15 us (and its first call in a process,
 * which loads the kernels, up to 2 ms: it is made again). More is either
 * work the audit did not see or a GPU left waiting: host work inside the
 * call (cudaGetDeviceProperties takes milliseconds), a busy host, another
 * program on the GPU. The two cannot be told apart from the records, so dark
 * time alone is only reported; it rejects a call only when the stage has
 * nothing recorded at all in a window that long (an honest stage's own
 * kernels and copies are always recorded). Hidden work of the benchmark's
 * size is 186 us (cuBLAS's 4096^3 BF16 GEMM on an H200) to 2.7 ms (its
 * SGEMM). */
#define DARK_FREE_MS 0.1
#define DARK_SHARE 0.5

int trace_window_suspect(const trace_window *w, char *why, size_t n)
{
    if (w->marks != 2) {
        snprintf(why, n,
                 "CUPTI recorded %d marker kernel%s around the call where the grader launched 2: "
                 "its kernel recording was switched off, or a kernel of the same name launched",
                 w->marks, w->marks == 1 ? "" : "s");
        return TRACE_TAMPERED;
    }
    if (w->dark_ms <= DARK_FREE_MS || w->dark_ms <= DARK_SHARE * w->window_ms)
        return TRACE_CLEAN;
    int nothing = w->operations == 0 && !w->operations_lost;
    if (nothing)
        snprintf(why, n,
                 "for %.0f us of the %.0f us between the grader's marker kernels the GPU ran no "
                 "kernel, copy or memset that CUPTI recorded, and nothing of the stage's was "
                 "recorded at all: either it launched nothing while its host code ran that long, "
                 "or its work ran around the recording",
                 w->dark_ms * 1e3, w->window_ms * 1e3);
    else
        snprintf(why, n,
                 "for %.0f us of the %.0f us between the grader's marker kernels the GPU ran no "
                 "kernel, copy or memset that CUPTI recorded (%d recorded beside that time%s)",
                 w->dark_ms * 1e3, w->window_ms * 1e3, w->operations,
                 w->operations_lost ? ", and more than the grader keeps" : "");
    return nothing ? TRACE_TAMPERED : TRACE_DARK;
}

#ifndef HAVE_CUPTI

int trace_begin(char *err, size_t errn)
{
    snprintf(err, errn, "the grader was built without CUPTI's headers");
    return -1;
}

int trace_end(span *s, int max, char *err, size_t errn)
{
    (void)s, (void)max;
    snprintf(err, errn, "the grader was built without CUPTI's headers");
    return -1;
}

int trace_kernel_names(const char **names, int *counts, int max)
{
    (void)names, (void)counts, (void)max;
    return 0;
}

void trace_set_mark(const char *name)
{
    (void)name;
}

int trace_dark(trace_window *w)
{
    memset(w, 0, sizeof *w);
    return 0;
}

#else

#include <dlfcn.h>

#include <cuda_runtime_api.h>
#include <cupti.h>

#include "toolkit.h"

#if CUPTI_API_VERSION >= 130000
typedef CUpti_ActivityKernel10 kernel_record;
typedef CUpti_ActivityMemcpy6 memcpy_record;
#else
typedef CUpti_ActivityKernel9 kernel_record;
typedef CUpti_ActivityMemcpy5 memcpy_record;
#endif


static struct {
    int loaded, registered;
    CUptiResult (*register_callbacks)(CUpti_BuffersCallbackRequestFunc,
                                      CUpti_BuffersCallbackCompleteFunc);
    CUptiResult (*enable)(CUpti_ActivityKind);
    CUptiResult (*disable)(CUpti_ActivityKind);
    CUptiResult (*flush_all)(uint32_t);
    CUptiResult (*next_record)(uint8_t *, size_t, CUpti_Activity **);
} cupti;

#define MAX_SPANS 4096
static struct {
    uint32_t stream;
    span_kind kind;
    uint64_t start, end;
} raw[MAX_SPANS];
static int n_raw;
/* Every kernel seen, by name, with how many times it ran; names_lost counts
 * kernels whose name did not fit (more distinct names than the table). */
static struct {
    char *name;
    int count;
} names_seen[TRACE_MAX_NAMES];
static int n_names, names_lost;

static void note_name(const char *name)
{
    if (!name)
        name = "(a kernel CUPTI could not name)";
    for (int i = 0; i < n_names; i++)
        if (strcmp(names_seen[i].name, name) == 0) {
            names_seen[i].count++;
            return;
        }
    char *copy = n_names < TRACE_MAX_NAMES ? strdup(name) : NULL;
    if (!copy) {
        names_lost++;
        return;
    }
    names_seen[n_names].name = copy;
    names_seen[n_names++].count = 1;
}

static void forget_names(void)
{
    for (int i = 0; i < n_names; i++)
        free(names_seen[i].name);
    n_names = 0;
    names_lost = 0;
}

/* Set when CUPTI asked for a buffer the grader could not give: its records
 * were dropped, so what trace_end returns would be incomplete. */
static int buffer_lost;

/* For the audit's dark time (trace_dark): when the GPU was busy with anything
 * CUPTI recorded (a kernel, copy or memset, on any stream), and when the
 * grader's marker kernels ran. Operations beyond MAX_BUSY are not kept, so
 * their time counts as dark: the conservative side. */
#define MAX_BUSY 65536
static struct {
    uint64_t start, end;
} busy[MAX_BUSY];
static int n_busy, n_marks;
static uint64_t mark_first_end, mark_last_start, mark_first_start;
static const char *mark_name;

static void note_busy(uint64_t start, uint64_t end)
{
    if (n_busy < MAX_BUSY && end >= start) {
        busy[n_busy].start = start;
        busy[n_busy++].end = end;
    }
}

static void note_mark(uint64_t start, uint64_t end)
{
    if (n_marks == 0 || start < mark_first_start) {
        mark_first_start = start;
        mark_first_end = end;
    }
    if (n_marks == 0 || start > mark_last_start)
        mark_last_start = start;
    n_marks++;
}

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
    *size = (size_t)8 << 20;
    *buffer = aligned_alloc(8, *size);
    *max_records = 0;
    if (!*buffer)
        buffer_lost = 1;
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size,
                                     size_t valid)
{
    (void)ctx, (void)stream, (void)size;
    CUpti_Activity *rec = NULL;
    while (buffer && cupti.next_record(buffer, valid, &rec) == CUPTI_SUCCESS) {
        if (rec->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL ||
            rec->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
            const kernel_record *k = (const kernel_record *)rec;
            note_name(k->name);
            if (mark_name && k->name && strcmp(k->name, mark_name) == 0)
                note_mark(k->start, k->end);
            else
                note_busy(k->start, k->end);
        } else if (rec->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
            const memcpy_record *m = (const memcpy_record *)rec;
            note_busy(m->start, m->end);
        } else if (rec->kind == CUPTI_ACTIVITY_KIND_MEMSET) {
            const CUpti_ActivityMemset4 *m = (const CUpti_ActivityMemset4 *)rec;
            note_busy(m->start, m->end);
        }
        if (n_raw >= MAX_SPANS)
            continue; /* the names above still count every kernel */
        if (rec->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
            const memcpy_record *m = (const memcpy_record *)rec;
            if (m->copyKind != CUPTI_ACTIVITY_MEMCPY_KIND_HTOD &&
                m->copyKind != CUPTI_ACTIVITY_MEMCPY_KIND_DTOH)
                continue;
            raw[n_raw].kind = m->copyKind == CUPTI_ACTIVITY_MEMCPY_KIND_HTOD ? SPAN_H2D : SPAN_D2H;
            raw[n_raw].stream = m->streamId;
            raw[n_raw].start = m->start;
            raw[n_raw++].end = m->end;
        } else if (rec->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL ||
                   rec->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
            const kernel_record *k = (const kernel_record *)rec;
            raw[n_raw].kind = SPAN_KERNEL;
            raw[n_raw].stream = k->streamId;
            raw[n_raw].start = k->start;
            raw[n_raw++].end = k->end;
        }
    }
    free(buffer);
}

static int load(char *err, size_t errn)
{
    if (cupti.loaded)
        return cupti.loaded > 0 ? 0 : -1;
    const char *names[] = {CUDA_LABS_CUDA_HOME "/lib64/libcupti.so",
                           CUDA_LABS_CUDA_HOME "/extras/CUPTI/lib64/libcupti.so", "libcupti.so",
                           "libcupti.so.13", "libcupti.so.12"};
    void *lib = NULL;
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !lib; i++)
        lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    void *f[5] = {NULL};
    const char *syms[5] = {"cuptiActivityRegisterCallbacks", "cuptiActivityEnable",
                           "cuptiActivityDisable", "cuptiActivityFlushAll",
                           "cuptiActivityGetNextRecord"};
    for (int i = 0; lib && i < 5; i++)
        f[i] = dlsym(lib, syms[i]);
    if (!lib || !f[0] || !f[1] || !f[2] || !f[3] || !f[4]) {
        cupti.loaded = -1;
        snprintf(err, errn, "CUPTI (libcupti.so, part of the CUDA Toolkit) could not be loaded");
        return -1;
    }
    memcpy(&cupti.register_callbacks, &f[0], sizeof f[0]);
    memcpy(&cupti.enable, &f[1], sizeof f[1]);
    memcpy(&cupti.disable, &f[2], sizeof f[2]);
    memcpy(&cupti.flush_all, &f[3], sizeof f[3]);
    memcpy(&cupti.next_record, &f[4], sizeof f[4]);
    cupti.loaded = 1;
    return 0;
}

int trace_begin(char *err, size_t errn)
{
    if (load(err, errn) != 0)
        return -1;
    if (!cupti.registered) {
        if (cupti.register_callbacks(buffer_requested, buffer_completed) != CUPTI_SUCCESS) {
            snprintf(err, errn, "CUPTI would not take the grader's buffers");
            return -1;
        }
        cupti.registered = 1;
    }
    cudaDeviceSynchronize(); /* nothing of before in the record */
    n_raw = 0;
    buffer_lost = 0;
    n_busy = n_marks = 0;
    forget_names();
    if (cupti.enable(CUPTI_ACTIVITY_KIND_MEMCPY) != CUPTI_SUCCESS ||
        cupti.enable(CUPTI_ACTIVITY_KIND_MEMSET) != CUPTI_SUCCESS ||
        cupti.enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) != CUPTI_SUCCESS) {
        snprintf(err, errn, "CUPTI would not record copies and kernels (is a profiler attached?)");
        return -1;
    }
    return 0;
}

int trace_end(span *s, int max, char *err, size_t errn)
{
    if (cupti.loaded <= 0) {
        snprintf(err, errn, "tracing was not started");
        return -1;
    }
    cudaDeviceSynchronize();
    cupti.flush_all(0);
    cupti.disable(CUPTI_ACTIVITY_KIND_MEMCPY);
    cupti.disable(CUPTI_ACTIVITY_KIND_MEMSET);
    cupti.disable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    if (buffer_lost) {
        snprintf(err, errn, "CUPTI dropped records (the grader could not give it a buffer)");
        return -1;
    }
    uint64_t t0 = UINT64_MAX;
    for (int i = 0; i < n_raw; i++)
        if (raw[i].start < t0)
            t0 = raw[i].start;
    uint32_t streams[64];
    int n_streams = 0, n = 0;
    for (int i = 0; i < n_raw && n < max; i++) {
        int id = 0;
        while (id < n_streams && streams[id] != raw[i].stream)
            id++;
        if (id == n_streams && n_streams < 64)
            streams[n_streams++] = raw[i].stream;
        s[n].stream = id;
        s[n].kind = raw[i].kind;
        s[n].start = (double)(raw[i].start - t0) / 1e6;
        s[n++].end = (double)(raw[i].end - t0) / 1e6;
    }
    return n;
}

void trace_set_mark(const char *name)
{
    mark_name = name;
}

static int by_start(const void *a, const void *b)
{
    uint64_t x = ((const uint64_t *)a)[0], y = ((const uint64_t *)b)[0];
    return x < y ? -1 : x > y;
}

int trace_dark(trace_window *w)
{
    memset(w, 0, sizeof *w);
    w->marks = n_marks;
    if (n_marks < 2 || mark_last_start <= mark_first_end)
        return n_marks;
    uint64_t lo = mark_first_end, hi = mark_last_start;
    qsort(busy, (size_t)n_busy, sizeof busy[0], by_start);
    uint64_t covered = 0, upto = lo;
    for (int i = 0; i < n_busy; i++) {
        uint64_t s = busy[i].start > upto ? busy[i].start : upto;
        uint64_t e = busy[i].end < hi ? busy[i].end : hi;
        if (e > s) {
            covered += e - s;
            upto = e;
        }
        if (busy[i].start < hi && busy[i].end > lo)
            w->operations++;
    }
    w->window_ms = (double)(hi - lo) / 1e6;
    w->dark_ms = (double)(hi - lo - covered) / 1e6;
    w->operations_lost = n_busy == MAX_BUSY;
    return n_marks;
}

int trace_kernel_names(const char **names, int *counts, int max)
{
    int n = 0;
    for (int i = 0; i < n_names && n < max; i++, n++) {
        names[n] = names_seen[i].name;
        counts[n] = names_seen[i].count;
    }
    if (names_lost > 0 && n < max) {
        names[n] = "(more kernels than the grader keeps names of)";
        counts[n++] = names_lost;
    }
    return n;
}

#endif
