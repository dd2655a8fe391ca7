/* witness.c: the timing witness of a speed test (witness.h). */
#define _GNU_SOURCE
#include "witness.h"

#include <cuda.h>
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../common/stats.h"
#include "../common/timing.h"
#include "ceiling.h"
#include "ceilings/ceilings.h"
#include "decide.h"
#include "gbuf.h"
#include "patch.h"
#include "runner.h"

/* Hand-offs measured before the library is loaded, and how many of them
 * count (the first ones start things up). */
#define CALIBRATIONS 16
#define CALIBRATION_WARMUP 4
/* How long the child waits for an answer of the witness, which prepares a
 * call's input (a few milliseconds) or starts CUDA (a second or so). */
#define ANSWER_MS 60000

enum op {
    OP_HELLO = 1, /* witness: it has started; child: a test buffer's handle */
    OP_CAL,       /* child: a hand-off around nothing */
    OP_CALDONE,   /* child: the hand-offs are done */
    OP_BUF,       /* child: the graded input and output */
    OP_CALL,      /* child: a call of role, timed (or not: untimed) */
    OP_QUEUED,    /* child: the call is queued behind the witness's start event */
    OP_READY,     /* witness: the stream may wait on the start event */
    OP_DONE,      /* witness: the call is timed and checked */
    OP_FAIL,      /* witness: it cannot go on (why in text) */
};

typedef struct wmsg {
    int op;
    int role;
    int untimed;  /* CALL: an audited call of the stage made in addition to the
                   * test's calls: checked, not timed or counted */
    uint32_t seq; /* READY: the number the child's stream waits for */
    long param;   /* BUF, host witness: the figure the child's setup chose */
    int size;     /* BUF: the size of the buffers handed over */
    cudaIpcMemHandle_t mem[WITNESS_INS + WITNESS_OUTS]; /* BUF: each input, then each output */
    uint64_t off[WITNESS_INS + WITNESS_OUTS];
    char text[200];
} wmsg;

/* The page the two processes share, with two words in it: go, which the
 * witness's stream sets to a call's number once it has loaded the call's
 * input, and which the child's stream waits for; done, which the child's
 * stream sets behind the call, and which the witness's stream waits for
 * before its stop event. Both are written by the GPU (stream memory
 * operations) and mapped into each process's context. */
typedef struct shared_words {
    uint32_t go;
    uint32_t pad[15];
    uint32_t done;
} shared_words;

typedef CUresult wait_value_fn(CUstream, CUdeviceptr, cuuint32_t, unsigned int);
typedef CUresult write_value_fn(CUstream, CUdeviceptr, cuuint32_t, unsigned int);

struct witness {
    int sock;
    int active;
    int host;     /* a host witness (lab_spec.host_witness): messages, no CUDA */
    const lab_spec *spec;
    void *arena;  /* its shared host memory, arena_bytes long */
    size_t arena_bytes;
    shared_words *words;
    CUdeviceptr d_go, d_done;
    wait_value_fn *wait_value;
    write_value_fn *write_value;
    uint32_t seq; /* the call in flight */
    witness_record *rec;
};

/* The driver's stream memory operations, through the runtime; 0 or -1. */
static int memops(wait_value_fn **wait, write_value_fn **write)
{
    void *fn[2] = {NULL, NULL};
    const char *name[2] = {"cuStreamWaitValue32", "cuStreamWriteValue32"};
    for (int i = 0; i < 2; i++) {
        enum cudaDriverEntryPointQueryResult q;
        cudaError_t e = cudaGetDriverEntryPointByVersion(name[i], &fn[i], 12000,
                                                         cudaEnableDefault, &q);
        if (e != cudaSuccess || q != cudaDriverEntryPointSuccess || !fn[i])
            return -1;
    }
    memcpy(wait, &fn[0], sizeof fn[0]);
    memcpy(write, &fn[1], sizeof fn[1]);
    return 0;
}

/* The shared page, pinned and mapped for this process's context. */
static cudaError_t map_words(shared_words *words, CUdeviceptr *d_go, CUdeviceptr *d_done)
{
    cudaError_t e = cudaHostRegister(words, 4096, cudaHostRegisterMapped);
    void *d = NULL;
    if (e == cudaSuccess)
        e = cudaHostGetDevicePointer(&d, words, 0);
    if (e == cudaSuccess) {
        *d_go = (CUdeviceptr)(uintptr_t)d + offsetof(shared_words, go);
        *d_done = (CUdeviceptr)(uintptr_t)d + offsetof(shared_words, done);
    }
    return e;
}

static int send_msg(int fd, const wmsg *m)
{
    ssize_t w;
    do
        w = send(fd, m, sizeof *m, MSG_NOSIGNAL);
    while (w < 0 && errno == EINTR);
    return w == (ssize_t)sizeof *m ? 0 : -1;
}

/* One message within ms milliseconds (-1: no limit); 0, -1 when none came
 * because the other side ended (or an error), -2 when what came is not one of
 * ours, -3 when the time ran out. */
static int recv_msg(int fd, wmsg *m, int ms)
{
    struct pollfd p = {fd, POLLIN, 0};
    int r;
    do
        r = poll(&p, 1, ms);
    while (r < 0 && errno == EINTR);
    if (r == 0)
        return -3;
    if (r < 0)
        return -1;
    ssize_t got;
    do
        got = recv(fd, m, sizeof *m, 0);
    while (got < 0 && errno == EINTR);
    return got == (ssize_t)sizeof *m ? 0 : got <= 0 ? -1 : -2;
}

static void say(char *buf, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, n, fmt, ap);
    va_end(ap);
}

/* ---- the witness's side ---- */

typedef struct wside {
    const lab_spec *spec;
    int stage, size;
    int host;      /* a host witness: the buffers are arena's, the clock is the host's */
    void *arena;
    uint64_t seed; /* the size's input seed (a host witness's start) */
    uint64_t run_seed; /* a correctness test's host witness: the run's, for each size's */
    witness_record *rec;
    int sock;
    cudaStream_t s;
    cudaEvent_t e0, ego, e1; /* start; the child's go; stop */
    volatile uint32_t *flag; /* the gate: the stream waits until it reaches the call's number */
    CUdeviceptr d_flag;
    uint32_t gate;
    shared_words *words;
    CUdeviceptr d_go, d_done;
    wait_value_fn *wait_value;
    write_value_fn *write_value;
    devcheck_fill_fn *fill;
    l2_flusher flush;
    witness_layout lay;  /* what the buffers hold, and the input's kind */
    void *own_in[WITNESS_INS]; /* the witness's copy of each call's inputs */
    void *snap_in[WITNESS_INS], *snap_out[WITNESS_OUTS]; /* the graded buffers as they were at
                                                           * the stop event */
    void *in[WITNESS_INS], *out[WITNESS_OUTS]; /* the graded buffers, mapped from the child;
                                                 * before that, scratch buffers of the same
                                                 * size (the hand-off's) */
    int attached;
    /* A correctness test's witness (witness_fork_check): the buffers of one
     * size after another, one call of the stage each (pending: handed over,
     * not called yet), and the audit's tries after it (untimed_here). */
    int checking, pending, untimed_here;
    void *mapped[WITNESS_INS + WITNESS_OUTS]; /* what w_buffers opened, to close again */
    float cal[CALIBRATIONS], cal_full[CALIBRATIONS];
    float last_full; /* the last call's whole window, its input's loading included */
    int n_cal;
} wside;

/* The witness stops, its reason in its record: marked as unavailable (before
 * calibration, or the child gave up) or as broken (the child broke the
 * exchange after it). The child hears the reason too. */
__attribute__((noreturn)) static void w_stop(wside *w, int broken, const char *fmt, va_list ap)
{
    vsnprintf(w->rec->why, sizeof w->rec->why, fmt, ap);
    if (broken)
        w->rec->broken = 1;
    else
        w->rec->state = WITNESS_UNAVAILABLE;
    wmsg m = {.op = OP_FAIL};
    snprintf(m.text, sizeof m.text, "%s", w->rec->why);
    send_msg(w->sock, &m);
    _exit(0);
}

__attribute__((noreturn, format(printf, 2, 3))) static void w_unavailable(wside *w, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    w_stop(w, 0, fmt, ap);
}

__attribute__((noreturn, format(printf, 2, 3))) static void w_broken(wside *w, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    w_stop(w, 1, fmt, ap);
}

/* The witness's buffers for w->lay: its copy of each input, the snapshots
 * of the graded buffers, and buffers that stand for the graded ones in the
 * hand-off (freed once it is measured). */
static cudaError_t w_alloc(wside *w)
{
    cudaError_t e = cudaSuccess;
    for (int i = 0; i < WITNESS_INS && e == cudaSuccess; i++)
        if (w->lay.in_bytes[i]) {
            e = cudaMalloc(&w->own_in[i], w->lay.in_bytes[i]);
            if (e == cudaSuccess)
                e = cudaMalloc(&w->in[i], w->lay.in_bytes[i]);
            if (e == cudaSuccess)
                e = cudaMalloc(&w->snap_in[i], w->lay.in_bytes[i]);
        }
    for (int i = 0; i < WITNESS_OUTS && e == cudaSuccess; i++)
        if (w->lay.out_bytes[i]) {
            e = cudaMalloc(&w->out[i], w->lay.out_bytes[i]);
            if (e == cudaSuccess)
                e = cudaMalloc(&w->snap_out[i], w->lay.out_bytes[i]);
        }
    return e;
}

static void w_start(wside *w)
{
    cudaError_t e = cudaSetDevice(0);
    if (e == cudaSuccess)
        e = cudaStreamCreateWithFlags(&w->s, cudaStreamNonBlocking);
    if (e == cudaSuccess)
        e = cudaEventCreate(&w->e0);
    if (e == cudaSuccess)
        e = cudaEventCreate(&w->e1);
    if (e == cudaSuccess)
        e = cudaEventCreate(&w->ego);
    void *h = NULL;
    if (e == cudaSuccess)
        e = cudaHostAlloc(&h, 64, cudaHostAllocMapped);
    void *d = NULL;
    if (e == cudaSuccess)
        e = cudaHostGetDevicePointer(&d, h, 0);
    if (e != cudaSuccess)
        w_unavailable(w, "CUDA: %s", cudaGetErrorString(e));
    w->flag = h;
    *w->flag = 0;
    w->d_flag = (CUdeviceptr)(uintptr_t)d;
    if (memops(&w->wait_value, &w->write_value) != 0)
        w_unavailable(w, "no stream memory operations in this driver");
    e = map_words(w->words, &w->d_go, &w->d_done);
    if (e != cudaSuccess)
        w_unavailable(w, "the page shared with the test cannot be mapped: %s",
                      cudaGetErrorString(e));
    static const char *const fill_sym[] = {"devcheck_fill"};
    void *fill = NULL;
    char why[200];
    if (ceiling_load("devcheck", fill_sym, &fill, 1, why, sizeof why) != 0)
        w_unavailable(w, "%s", why);
    w->fill = (devcheck_fill_fn *)fill;
    /* A correctness test's witness takes one size after another: its own
     * buffers are made here, before the library is loaded, for the largest
     * of each (no allocation of the witness's can fail later). */
    for (int size = 0; size < w->spec->n_sizes && size < 32; size++)
        if (size == w->size || (w->checking && (w->rec->sizes_expected >> size & 1u))) {
            witness_layout l;
            memset(&l, 0, sizeof l);
            w->spec->witness->layout(w->stage, size, &l);
            for (int i = 0; i < WITNESS_INS; i++)
                if (l.in_bytes[i] > w->lay.in_bytes[i])
                    w->lay.in_bytes[i] = l.in_bytes[i];
            for (int i = 0; i < WITNESS_OUTS; i++)
                if (l.out_bytes[i] > w->lay.out_bytes[i])
                    w->lay.out_bytes[i] = l.out_bytes[i];
        }
    e = l2_flusher_init(&w->flush);
    if (e == cudaSuccess)
        e = w_alloc(w);
    w->spec->witness->layout(w->stage, w->size, &w->lay);
    if (e != cudaSuccess)
        w_unavailable(w, "CUDA: %s", cudaGetErrorString(e));
    uint64_t probe;
    if (getrandom(&probe, sizeof probe, 0) != (ssize_t)sizeof probe)
        w_unavailable(w, "no random numbers from the system");
}

/* Waits for e1 (behind the child's call) and gives the window in ms: from
 * the child's go to the stop event (the call and the two switches between the
 * contexts). The whole window, the input's loading included, is kept in
 * last_full. */
static float w_window(wside *w)
{
    float ms = 0, full = 0;
    cudaError_t e = cudaEventSynchronize(w->e1);
    if (e == cudaSuccess)
        e = cudaEventElapsedTime(&ms, w->ego, w->e1);
    if (e == cudaSuccess)
        e = cudaEventElapsedTime(&full, w->e0, w->e1);
    if (e != cudaSuccess)
        w_broken(w, "the witness's own timing failed: %s", cudaGetErrorString(e));
    w->last_full = full;
    return ms;
}

/* The stream held at the gate until the child has queued its call; then
 * the start event, a fresh input (in the witness's copy and in the graded
 * buffer), the output poisoned, L2 flushed, and the child's go. The input is
 * written inside the window, after the start event: a call that starts early
 * (its stream let go some other way) finds no input yet. */
static void w_hold(wside *w)
{
    w->gate++;
    CUresult r = w->wait_value((CUstream)w->s, w->d_flag, w->gate, CU_STREAM_WAIT_VALUE_GEQ);
    cudaError_t e = r == CUDA_SUCCESS ? cudaEventRecord(w->e0, w->s) : cudaErrorUnknown;
    /* New seeds from the system for every call: no call foretells another. */
    uint64_t seed[WITNESS_INS];
    if (getrandom(seed, sizeof seed, 0) != (ssize_t)sizeof seed)
        w_broken(w, "no random numbers from the system");
    for (int i = 0; i < WITNESS_INS && e == cudaSuccess; i++)
        if (w->lay.in_bytes[i]) {
            e = (cudaError_t)w->fill(w->own_in[i], w->lay.in_bytes[i] / 4, seed[i], w->lay.fill,
                                     w->lay.lo, w->lay.hi, w->s);
            if (e == cudaSuccess)
                e = cudaMemcpyAsync(w->in[i], w->own_in[i], w->lay.in_bytes[i],
                                    cudaMemcpyDeviceToDevice, w->s);
        }
    for (int i = 0; i < WITNESS_OUTS && e == cudaSuccess; i++)
        if (w->lay.out_bytes[i])
            e = cudaMemsetAsync(w->out[i], w->lay.poison[i], w->lay.out_bytes[i], w->s);
    if (e == cudaSuccess)
        e = l2_flush(&w->flush, w->s);
    if (e == cudaSuccess &&
        w->write_value((CUstream)w->s, w->d_go, w->gate, CU_STREAM_WRITE_VALUE_DEFAULT) !=
            CUDA_SUCCESS)
        e = cudaErrorUnknown;
    if (e == cudaSuccess)
        e = cudaEventRecord(w->ego, w->s);
    if (e != cudaSuccess)
        w_broken(w, "the witness could not prepare a call: %s", cudaGetErrorString(e));
}

/* The child has queued its call: the stop event behind it, and right behind
 * that, in the same stream, copies of the graded buffers as they are then,
 * which the checks read (a call whose done was set early, before its work,
 * is checked on what it had written by the stop event); then the gate open. */
static float w_release(wside *w)
{
    cudaError_t e = w->wait_value((CUstream)w->s, w->d_done, w->gate, CU_STREAM_WAIT_VALUE_GEQ) ==
                            CUDA_SUCCESS
                        ? cudaSuccess
                        : cudaErrorUnknown;
    if (e == cudaSuccess)
        e = cudaEventRecord(w->e1, w->s);
    for (int i = 0; i < WITNESS_OUTS && e == cudaSuccess; i++)
        if (w->lay.out_bytes[i])
            e = cudaMemcpyAsync(w->snap_out[i], w->out[i], w->lay.out_bytes[i],
                                cudaMemcpyDeviceToDevice, w->s);
    for (int i = 0; i < WITNESS_INS && e == cudaSuccess; i++)
        if (w->lay.in_bytes[i])
            e = cudaMemcpyAsync(w->snap_in[i], w->in[i], w->lay.in_bytes[i],
                                cudaMemcpyDeviceToDevice, w->s);
    __atomic_store_n(w->flag, w->gate, __ATOMIC_SEQ_CST);
    if (e != cudaSuccess)
        w_broken(w, "the witness could not wait for the call: %s", cudaGetErrorString(e));
    return w_window(w);
}

/* The child gave up on the witness before the library was loaded: its
 * reason is the witness's. After that, it has ended its part. */
static void w_child_failed(wside *w, const wmsg *m)
{
    if (w->rec->state != WITNESS_READY)
        w_unavailable(w, "%.*s", (int)sizeof m->text, m->text);
    _exit(0);
}

static void w_expect(wside *w, wmsg *m, int op)
{
    int r = recv_msg(w->sock, m, -1);
    if (r == -1)
        _exit(0); /* the child has ended: the call counts say the rest */
    if (r != 0)
        w_broken(w, "a message the grader does not send (%d bytes)", (int)sizeof *m);
    if (m->op == OP_FAIL)
        w_child_failed(w, m);
    if (m->op != op)
        w_broken(w, "a message the grader does not send (%d, expected %d)", m->op, op);
}

/* One call's window: the stream held and the input loaded, the child told
 * which number its stream waits for, its call queued, the window timed. */
static float w_handoff(wside *w)
{
    wmsg m = {.op = OP_READY};
    w_hold(w);
    m.seq = w->gate;
    send_msg(w->sock, &m);
    /* A stage that waits for the GPU inside its call (a synchronous copy)
     * waits for its stream, which waits for the go: the gate opens after
     * 100 ms without the call queued, and the window holds that wait. */
    struct pollfd p = {w->sock, POLLIN, 0};
    int r;
    do
        r = poll(&p, 1, 100);
    while (r < 0 && errno == EINTR);
    if (r == 0)
        __atomic_store_n(w->flag, w->gate, __ATOMIC_SEQ_CST);
    w_expect(w, &m, OP_QUEUED);
    return w_release(w);
}

/* A host witness's window: from just before its go (READY, sent once the
 * input is loaded; role's patch is written in between, when role is a
 * stage) to the child's QUEUED, which it sends as soon as the call has
 * returned; on this process's clock. role < 0: no patch (calibration, the
 * ceiling). */
static float w_handoff_host(wside *w, int role, uint64_t seed)
{
    wmsg m = {.op = OP_READY};
    m.seq = ++w->gate;
    double t0 = wall_ms();
    if (role >= 0)
        w->spec->host_witness->patch(w->arena, role, seed);
    send_msg(w->sock, &m);
    w_expect(w, &m, OP_QUEUED);
    float ms = (float)(wall_ms() - t0);
    w->last_full = ms;
    return ms;
}

static void w_calibrate(wside *w)
{
    wmsg m = {.op = OP_DONE};
    float ms = w->host ? w_handoff_host(w, -1, 0) : w_handoff(w);
    if (w->n_cal < CALIBRATIONS) {
        w->cal_full[w->n_cal] = w->last_full;
        w->cal[w->n_cal++] = ms;
    }
    send_msg(w->sock, &m);
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

static void w_calibrated(wside *w)
{
    if (w->n_cal <= CALIBRATION_WARMUP)
        w_unavailable(w, "the hand-off was measured %d times", w->n_cal);
    float *c = w->cal + CALIBRATION_WARMUP, *f = w->cal_full + CALIBRATION_WARMUP;
    int k = w->n_cal - CALIBRATION_WARMUP;
    qsort(c, (size_t)k, sizeof *c, cmp_float);
    qsort(f, (size_t)k, sizeof *f, cmp_float);
    w->rec->handoff_lo_ms = c[0];
    w->rec->handoff_hi_ms = c[k - 1];
    /* A host witness's window holds no loading: the child's clock starts
     * after its go. */
    w->rec->overhead_ms = w->host ? 0 : f[0];
    w->rec->state = WITNESS_READY;
    if (w->host)
        return;
    /* The hand-off's scratch buffers are not needed again: their memory goes
     * back before the test allocates its own. */
    for (int i = 0; i < WITNESS_INS; i++) {
        cudaFree(w->in[i]);
        w->in[i] = NULL;
    }
    for (int i = 0; i < WITNESS_OUTS; i++) {
        cudaFree(w->out[i]);
        w->out[i] = NULL;
    }
}

typedef CUresult range_fn(CUdeviceptr *base, size_t *size, CUdeviceptr p);

static void w_buffers(wside *w, const wmsg *m)
{
    void *fn = NULL;
    enum cudaDriverEntryPointQueryResult q;
    if (cudaGetDriverEntryPointByVersion("cuMemGetAddressRange", &fn, 12000, cudaEnableDefault,
                                         &q) != cudaSuccess ||
        q != cudaDriverEntryPointSuccess || !fn)
        w_broken(w, "the witness cannot measure the graded buffers");
    range_fn *range;
    memcpy(&range, &fn, sizeof fn);
    void *p[WITNESS_INS + WITNESS_OUTS] = {NULL};
    size_t need[WITNESS_INS + WITNESS_OUTS];
    for (int i = 0; i < WITNESS_INS + WITNESS_OUTS; i++) /* an earlier size's */
        if (w->mapped[i]) {
            cudaIpcCloseMemHandle(w->mapped[i]);
            w->mapped[i] = NULL;
        }
    for (int i = 0; i < WITNESS_INS; i++)
        need[i] = w->lay.in_bytes[i];
    for (int i = 0; i < WITNESS_OUTS; i++)
        need[WITNESS_INS + i] = w->lay.out_bytes[i];
    for (int i = 0; i < WITNESS_INS + WITNESS_OUTS; i++) {
        if (!need[i])
            continue;
        cudaError_t e = cudaIpcOpenMemHandle(&p[i], m->mem[i], cudaIpcMemLazyEnablePeerAccess);
        if (e != cudaSuccess)
            w_broken(w, "the witness could not open the graded buffers: %s",
                     cudaGetErrorString(e));
        w->mapped[i] = p[i];
        CUdeviceptr base = 0;
        size_t size = 0;
        if (range(&base, &size, (CUdeviceptr)(uintptr_t)p[i]) != CUDA_SUCCESS ||
            m->off[i] > size || size - m->off[i] < need[i])
            w_broken(w, "a graded buffer smaller than the lab's (%zu bytes at %llu of %zu)",
                     need[i], (unsigned long long)m->off[i], size);
    }
    for (int i = 0; i < WITNESS_INS; i++)
        if (need[i])
            w->in[i] = (char *)p[i] + m->off[i];
    for (int i = 0; i < WITNESS_OUTS; i++)
        if (need[WITNESS_INS + i])
            w->out[i] = (char *)p[WITNESS_INS + i] + m->off[WITNESS_INS + i];
}

/* A host witness learns what the test's buffers hold once the child's setup
 * is done: the arena's buffers are the ones the stages get. */
static void w_host_start(wside *w, const wmsg *m)
{
    char why[200];
    int r = w->spec->host_witness->start(w->stage, w->size, w->seed, m->param, why, sizeof why);
    if (r == -2)
        w_unavailable(w, "%s", why);
    if (r != 0)
        w_broken(w, "%s", why);
}

/* A finding in a call of role (w_call counts the call once, however many
 * it has); it is kept when it is the first, or the first of the stage itself
 * (whose verdict quotes it). */
static void w_wrong(wside *w, int role, verdict v, const char *fmt, ...)
{
    if (w->rec->wrong_msg[0] && (role != w->stage || w->rec->wrong_role == w->stage))
        return;
    w->rec->wrong_role = role;
    w->rec->wrong_v = v;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->rec->wrong_msg, sizeof w->rec->wrong_msg, fmt, ap);
    va_end(ap);
}

/* A call's window in its role's record (an audited call made in addition to
 * the test's calls is counted apart, untimed). */
static void w_count(wside *w, const wmsg *m, int role, float ms)
{
    witness_record *rec = w->rec;
    if (m->untimed) {
        rec->audited++;
    } else {
        if (rec->calls[role] < WITNESS_SAMPLES)
            rec->ms[role][rec->calls[role]] = ms;
        rec->calls[role]++;
    }
}

/* Fresh random bits from the system, for a host witness's call. */
static uint64_t w_random(wside *w)
{
    uint64_t r;
    if (getrandom(&r, sizeof r, 0) != (ssize_t)sizeof r)
        w_broken(w, "no random numbers from the system");
    return r;
}

/* One call of a host witness: the stage's input loaded into the arena
 * (the ceiling's buffers are its own), and patched once the window's clock
 * has started; the window timed; the output and inputs checked there,
 * against an input no call saw before (its seeds drawn now), at elements
 * drawn after the call. */
static void w_call_host(wside *w, const wmsg *m, int role, const char *at)
{
    const lab_host_witness *hw = w->spec->host_witness;
    const int stage = role != WITNESS_CEILING;
    if (stage)
        hw->load(w->arena, role, w_random(w));
    float ms = w_handoff_host(w, stage ? role : -1, stage ? w_random(w) : 0);
    w_count(w, m, role, ms);
    if (role != WITNESS_CEILING) {
        check_outcome out = {V_PASS, ""};
        long long bad = hw->check(w->arena, role, w_random(w), &out);
        if (bad == -2)
            w_broken(w, "the witness could not check the output: %s", out.msg);
        if (bad >= 0) {
            w_wrong(w, role, out.v, "%s%s", at, out.msg);
            w->rec->wrong[role]++;
            if (out.v == V_INPUT_MODIFIED && w->rec->modified[role]++ == 0 && role == w->stage)
                say(w->rec->modified_msg, sizeof w->rec->modified_msg, "%s%s", at, out.msg);
        }
    }
    if (w->checking) /* as w_call: checked once its output has been */
        w->rec->sizes_checked |= 1u << w->size;
    wmsg r = {.op = OP_DONE};
    send_msg(w->sock, &r);
}

/* Whether role (a stage, -1 the ceiling) is one the test of w's stage
 * calls: the stage, its bases and the ceiling. */
static int w_role_ok(const wside *w, int role)
{
    if (role == w->stage)
        return 1;
    if (w->checking) /* a correctness test calls the stage alone */
        return 0;
    if (role == -1)
        return 1;
    const lab_stage *st = &w->spec->stages[w->stage];
    for (int b = 0; b < st->n_base; b++)
        if (st->base[b] == role)
            return 1;
    return 0;
}

/* One call of the child's: its input loaded, its window timed (unless it is
 * an audited call of the stage made in addition to the test's calls), its
 * output and input checked. */
static void w_call(wside *w, const wmsg *m)
{
    if (!w->attached)
        w_broken(w, "a timed call before the graded buffers were handed over");
    if (!w_role_ok(w, m->role))
        w_broken(w, "a timed call of stage %d, which stage %d's test does not call", m->role,
                 w->stage);
    /* Audited calls made again are the runner's (up to WITNESS_MAX_UNTIMED
     * a test), of the stage itself; a host lab's calls are never audited. */
    if (m->untimed && (m->role != w->stage || w->host ||
                       (!w->checking && w->rec->audited >= WITNESS_MAX_UNTIMED)))
        w_broken(w, "an audited call of stage %d in stage %d's test that the grader does not make",
                 m->role, w->stage);
    /* A correctness test: one call a size, made again only as the audit's
     * tries after it. */
    if (w->checking && (m->untimed ? w->pending || w->untimed_here >= WITNESS_MAX_UNTIMED
                                   : !w->pending))
        w_broken(w, "a call of stage %d at a size whose buffers were not handed over for it",
                 m->role);
    if (w->checking) {
        if (m->untimed)
            w->untimed_here++;
        w->pending = 0;
    }
    int role = m->role < 0 ? WITNESS_CEILING : m->role;
    /* A correctness test's finding names its size. */
    char at[160] = "";
    if (w->checking) {
        char sz[128];
        w->spec->size_text(w->size, sz, sizeof sz);
        say(at, sizeof at, "at %s, ", sz);
    }
    if (w->host) {
        w_call_host(w, m, role, at);
        return;
    }
    float ms = w_handoff(w);
    w_count(w, m, role, ms);
    check_outcome out = {V_PASS, ""};
    const void *snaps[WITNESS_OUTS];
    for (int i = 0; i < WITNESS_OUTS; i++)
        snaps[i] = w->snap_out[i];
    const void *ins[WITNESS_INS];
    for (int i = 0; i < WITNESS_INS; i++)
        ins[i] = w->own_in[i];
    long long bad =
        w->spec->witness->check(role, w->stage, w->size, snaps, ins, w->s, &out, w->checking);
    if (bad == -2)
        w_broken(w, "the witness could not check the output: %s", out.msg);
    int wrong = bad >= 0;
    if (wrong)
        w_wrong(w, role, out.v, "%s%s", at, out.msg);
    /* Each input as it was at the stop event against what the call was
     * given; a call that changed two counts once. */
    for (int i = 0; i < WITNESS_INS; i++) {
        if (!w->lay.in_bytes[i])
            continue;
        check_outcome in = {V_PASS, ""};
        bad = devcheck_transpose_on_gpu(w->snap_in[i], w->own_in[i], 1, w->lay.in_bytes[i] / 4,
                                        1, w->s, &in);
        if (bad == -2)
            w_broken(w, "the witness could not check the input: %s", in.msg);
        if (bad < 0)
            continue;
        const char *name = w->spec->witness->names[i] ? w->spec->witness->names[i] : "an input";
        wrong = 1;
        w_wrong(w, role, V_INPUT_MODIFIED,
                "%s%s changed during the call: its word %lld no longer holds what the call was "
                "given. A stage may only read its inputs.",
                at, name, bad);
        if (w->rec->modified[role]++ == 0 && role == w->stage)
            say(w->rec->modified_msg, sizeof w->rec->modified_msg,
                "%s%s was changed during %s call, first at element %lld (the grader's %s "
                "witness compared it with the fresh input it loaded). A stage may only read its "
                "inputs; flags and partial results belong in a workspace, where the lab gives "
                "one.",
                at, name,
                m->untimed ? "an audited" : w->checking ? "the witness's" : "a timed", bad,
                w->checking ? "checking" : "timing");
        break;
    }
    w->rec->wrong[role] += wrong;
    /* The size counts as checked once its output has been (a test that ends
     * in the middle of the call leaves it unchecked). */
    if (w->checking)
        w->rec->sizes_checked |= 1u << w->size;
    wmsg r = {.op = OP_DONE};
    send_msg(w->sock, &r);
}

/* A correctness test's witness gets the buffers of its next size: one it
 * checks and has not checked, handed over after the call at the last one. */
static void w_next_size(wside *w, const wmsg *m)
{
    const int size = m->size;
    if (w->pending || size < 0 || size >= w->spec->n_sizes || size >= 32 ||
        !(w->rec->sizes_expected >> size & 1u) || (w->rec->sizes_checked >> size & 1u))
        w_broken(w, "the buffers of size %d handed over, which this test does not check now",
                 size);
    w->size = size;
    if (w->host) /* the arena holds the largest size's buffers; the size's own inputs */
        w->seed = runner_size_seed(w->run_seed, w->stage, size);
    else
        w->spec->witness->layout(w->stage, size, &w->lay); /* within what w_start made */
    w->pending = 1;
    w->untimed_here = 0;
}

static void witness_main(wside *w)
{
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    /* CUDA only once the child has its context: on a GPU in exclusive-process
     * mode the second context fails, and it is then the witness's. */
    wmsg m;
    if (recv_msg(w->sock, &m, -1) != 0)
        _exit(0);
    if (m.op == OP_FAIL)
        w_child_failed(w, &m);
    if (m.op != OP_HELLO)
        w_unavailable(w, "a message the grader does not send (%d)", m.op);
    if (w->host) { /* no CUDA here: the arena is host memory, the clock the host's */
        w_random(w);
    } else {
        w_start(w);
        void *test = NULL;
        cudaError_t e = cudaIpcOpenMemHandle(&test, m.mem[0], cudaIpcMemLazyEnablePeerAccess);
        if (e != cudaSuccess)
            w_unavailable(w, "the test's memory does not open here: %s", cudaGetErrorString(e));
        cudaIpcCloseMemHandle(test);
    }
    m.op = OP_READY;
    send_msg(w->sock, &m);
    for (;;) {
        int r = recv_msg(w->sock, &m, -1);
        if (r == -1)
            _exit(0); /* the child has ended: every finding is in the record */
        if (r != 0)
            w_broken(w, "a message the grader does not send (a short one)");
        if (m.op == OP_FAIL)
            w_child_failed(w, &m);
        switch (m.op) {
        case OP_CAL:
            if (w->rec->state == WITNESS_READY)
                w_broken(w, "a hand-off to measure after the library was loaded");
            w_calibrate(w);
            break;
        case OP_CALDONE:
            if (w->rec->state == WITNESS_READY)
                w_broken(w, "the hand-off measured twice");
            w_calibrated(w);
            m.op = OP_DONE;
            send_msg(w->sock, &m);
            break;
        case OP_BUF:
            if (w->rec->state != WITNESS_READY || (w->attached && !w->checking))
                w_broken(w, "the graded buffers handed over twice");
            if (w->checking) /* a size this test checks, once, after the last one's call */
                w_next_size(w, &m);
            else if (m.size != w->size)
                w_broken(w, "the buffers of size %d handed over in a test timed at size %d",
                         m.size, w->size);
            if (w->host)
                w_host_start(w, &m);
            else
                w_buffers(w, &m);
            w->attached = 1;
            m.op = OP_READY;
            send_msg(w->sock, &m);
            break;
        case OP_CALL:
            w_call(w, &m);
            break;
        default:
            w_broken(w, "a message the grader does not send (%d)", m.op);
        }
    }
}

/* ---- the child's side ---- */

/* witness_fork, or with sizes (a mask) a correctness test's witness, which
 * checks one call at each of those sizes and starts at the first. */
static witness *fork_witness(const lab_spec *spec, int stage, int size, uint64_t seed,
                             int expected_calls, int warmups, uint32_t sizes, witness_record *rec)
{
    memset(rec, 0, sizeof *rec);
    rec->expected_calls = expected_calls;
    rec->warmups = warmups;
    rec->sizes_expected = sizes;
    if (expected_calls > WITNESS_SAMPLES) { /* its medians would leave calls out */
        rec->state = WITNESS_UNAVAILABLE;
        say(rec->why, sizeof rec->why, "it keeps %d windows a role, and --reps asks for %d calls",
            WITNESS_SAMPLES, expected_calls);
        return NULL;
    }
    /* Until the witness says otherwise (READY once it has measured the
     * hand-off, or its own reason). */
    rec->state = WITNESS_UNAVAILABLE;
    say(rec->why, sizeof rec->why, "it stopped before it was ready");
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) {
        rec->state = WITNESS_UNAVAILABLE;
        say(rec->why, sizeof rec->why, "no socket pair: %s", strerror(errno));
        return NULL;
    }
    witness *w = calloc(1, sizeof *w);
    shared_words *words = mmap(NULL, sizeof(shared_words) < 4096 ? 4096 : sizeof(shared_words),
                               PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (words == MAP_FAILED) {
        free(w);
        w = NULL;
    }
    /* A host witness: the test's host buffers, shared (pages are made
     * where they are first written). */
    const int host = spec->host_timed;
    void *arena = NULL;
    size_t arena_bytes = host ? spec->host_witness->arena_bytes(stage, size) : 0;
    for (int z = 0; host && z < spec->n_sizes && z < 32; z++) /* a correctness test's: the largest */
        if (sizes >> z & 1u && spec->host_witness->arena_bytes(stage, z) > arena_bytes)
            arena_bytes = spec->host_witness->arena_bytes(stage, z);
    if (w && host) {
        arena = mmap(NULL, arena_bytes, PROT_READ | PROT_WRITE,
                     MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (arena == MAP_FAILED) {
            munmap(words, 4096);
            free(w);
            close(sv[0]);
            close(sv[1]);
            rec->state = WITNESS_UNAVAILABLE;
            say(rec->why, sizeof rec->why, "no shared memory for the test's %zu MiB of buffers: %s",
                arena_bytes >> 20, strerror(errno));
            return NULL;
        }
    }
    pid_t parent = getpid();
    pid_t pid = w ? fork() : -1;
    if (pid == 0) {
        /* The witness: gone with the child, whose own end is not its. */
        prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
        if (getppid() != parent)
            _exit(0);
        close(sv[0]);
        wside ws = {.spec = spec, .stage = stage, .size = size, .rec = rec, .sock = sv[1],
                    .words = words, .host = host, .arena = arena, .seed = seed,
                    .run_seed = seed, .checking = sizes != 0};
        witness_main(&ws);
        _exit(0);
    }
    close(sv[1]);
    if (pid < 0) {
        close(sv[0]);
        free(w);
        rec->state = WITNESS_UNAVAILABLE;
        say(rec->why, sizeof rec->why, "could not start: %s", strerror(errno));
        return NULL;
    }
    w->sock = sv[0];
    w->rec = rec;
    w->words = words;
    w->host = host;
    w->spec = spec;
    w->arena = arena;
    w->arena_bytes = arena_bytes;
    return w;
}

witness *witness_fork(const lab_spec *spec, int stage, int size, uint64_t seed,
                      int expected_calls, int warmups, witness_record *rec)
{
    return fork_witness(spec, stage, size, seed, expected_calls, warmups, 0, rec);
}

witness *witness_fork_check(const lab_spec *spec, int stage, uint32_t sizes, uint64_t seed,
                            witness_record *rec)
{
    int first = -1, n = 0;
    for (int size = 0; size < spec->n_sizes && size < 32; size++)
        if (sizes >> size & 1u) {
            if (first < 0)
                first = size;
            n++;
        }
    if (first < 0 || !(spec->host_timed ? (const void *)spec->host_witness
                                        : (const void *)spec->witness)) {
        memset(rec, 0, sizeof *rec);
        return NULL;
    }
    return fork_witness(spec, stage, first, seed, n, 0, sizes, rec);
}

void *witness_arena(const witness *w, size_t *bytes)
{
    if (!witness_active(w) || !w->host)
        return NULL;
    *bytes = w->arena_bytes;
    return w->arena;
}

/* The witness is not used from here on: the socket closed, so that it ends
 * (an exchange stopped half-way would leave its stream waiting). */
static int child_fail(witness *w, char *why, size_t n, const char *what, const wmsg *m)
{
    if (m && m->op == OP_FAIL)
        say(why, n, "%s: %s", what, m->text);
    else if (m)
        say(why, n, "%s: the grader's timing witness did not answer", what);
    else if (why != what)
        say(why, n, "%s", what);
    w->active = 0;
    if (w->sock >= 0) {
        wmsg f = {.op = OP_FAIL};
        snprintf(f.text, sizeof f.text, "%s", why);
        send_msg(w->sock, &f);
        close(w->sock);
    }
    w->sock = -1;
    return -1;
}

/* A host witness: met, and the hand-off (a message each way) measured. */
static int connect_host(witness *w, const lab_host_witness *hw, char *why, size_t n)
{
    if (hw->usable && hw->usable(why, n) != 0)
        return child_fail(w, why, n, why, NULL);
    wmsg m = {.op = OP_HELLO};
    if (send_msg(w->sock, &m) != 0 || recv_msg(w->sock, &m, ANSWER_MS) != 0 || m.op != OP_READY)
        return child_fail(w, why, n, "no timing witness", &m);
    for (int i = 0; i < CALIBRATIONS; i++) {
        m.op = OP_CAL;
        if (send_msg(w->sock, &m) != 0 || recv_msg(w->sock, &m, ANSWER_MS) != 0 ||
            m.op != OP_READY)
            return child_fail(w, why, n, "the timing witness's hand-off", &m);
        m.op = OP_QUEUED;
        send_msg(w->sock, &m);
        if (recv_msg(w->sock, &m, ANSWER_MS) != 0 || m.op != OP_DONE)
            return child_fail(w, why, n, "the timing witness's hand-off", &m);
    }
    m.op = OP_CALDONE;
    if (send_msg(w->sock, &m) != 0 || recv_msg(w->sock, &m, ANSWER_MS) != 0 || m.op != OP_DONE)
        return child_fail(w, why, n, "the timing witness's hand-off", &m);
    w->active = 1;
    return 0;
}

int witness_connect(witness *w, cudaStream_t s, char *why, size_t n)
{
    if (!w)
        return -1;
    wmsg m;
    memset(&m, 0, sizeof m);
    if (w->host)
        return connect_host(w, w->spec->host_witness, why, n);
    if (memops(&w->wait_value, &w->write_value) != 0) {
        say(m.text, sizeof m.text, "no stream memory operations in this driver");
        return child_fail(w, why, n, m.text, NULL);
    }
    void *test = NULL;
    cudaError_t e = map_words(w->words, &w->d_go, &w->d_done);
    m.op = OP_HELLO;
    if (e == cudaSuccess)
        e = cudaMalloc(&test, 4096);
    if (e == cudaSuccess)
        e = cudaIpcGetMemHandle(&m.mem[0], test);
    if (e != cudaSuccess) {
        say(m.text, sizeof m.text, "%s", cudaGetErrorString(e));
        return child_fail(w, why, n, m.text, NULL);
    }
    if (send_msg(w->sock, &m) != 0 || recv_msg(w->sock, &m, ANSWER_MS) != 0 || m.op != OP_READY) {
        cudaFree(test);
        return child_fail(w, why, n, "no timing witness", &m);
    }
    cudaFree(test);
    gpu_timer t;
    if (gpu_timer_create(&t) != cudaSuccess)
        return child_fail(w, why, n, "no timing witness", NULL);
    for (int i = 0; i < CALIBRATIONS; i++) {
        m.op = OP_CAL;
        if (send_msg(w->sock, &m) != 0 || recv_msg(w->sock, &m, ANSWER_MS) != 0 ||
            m.op != OP_READY)
            return child_fail(w, why, n, "the timing witness's hand-off", &m);
        uint32_t seq = m.seq;
        if (w->wait_value((CUstream)s, w->d_go, seq, CU_STREAM_WAIT_VALUE_GEQ) != CUDA_SUCCESS)
            return child_fail(w, why, n, "the timing witness's hand-off: a stream wait failed", NULL);
        gpu_timer_start(&t, s);
        gpu_timer_stop(&t, s);
        w->write_value((CUstream)s, w->d_done, seq, CU_STREAM_WRITE_VALUE_DEFAULT);
        m.op = OP_QUEUED;
        send_msg(w->sock, &m);
        cudaStreamSynchronize(s);
        if (recv_msg(w->sock, &m, ANSWER_MS) != 0 || m.op != OP_DONE)
            return child_fail(w, why, n, "the timing witness's hand-off", &m);
    }
    gpu_timer_destroy(&t);
    m.op = OP_CALDONE;
    if (send_msg(w->sock, &m) != 0 || recv_msg(w->sock, &m, ANSWER_MS) != 0 || m.op != OP_DONE)
        return child_fail(w, why, n, "the timing witness's hand-off", &m);
    w->active = 1;
    return 0;
}

int witness_attach(witness *w, const lab_spec *spec, lab_ctx *ctx, int size, char *why, size_t n)
{
    if (!witness_active(w))
        return 0;
    if (w->host) { /* the buffers are the arena's; the setup's one figure */
        wmsg m = {.op = OP_BUF, .param = spec->host_witness->param(ctx), .size = size};
        if (send_msg(w->sock, &m) != 0 || recv_msg(w->sock, &m, ANSWER_MS) != 0 ||
            m.op != OP_READY)
            return child_fail(w, why, n, "the timing witness", &m);
        return 0;
    }
    const gbuf *b[WITNESS_INS + WITNESS_OUTS] = {NULL};
    spec->witness->buffers(ctx, &b[0], &b[WITNESS_INS]);
    wmsg m = {.op = OP_BUF, .size = size};
    for (int i = 0; i < WITNESS_INS + WITNESS_OUTS; i++) {
        if (!b[i])
            continue;
        cudaError_t e = cudaIpcGetMemHandle(&m.mem[i], b[i]->d_base);
        if (e != cudaSuccess) {
            say(why, n, "the graded buffers cannot be shared with the timing witness: %s",
                cudaGetErrorString(e));
            w->active = 0;
            return -1;
        }
        m.off[i] = (uint64_t)((unsigned char *)b[i]->d - b[i]->d_base);
    }
    if (send_msg(w->sock, &m) != 0 || recv_msg(w->sock, &m, ANSWER_MS) != 0 || m.op != OP_READY)
        return child_fail(w, why, n, "the timing witness", &m);
    return 0;
}

int witness_active(const witness *w)
{
    return w && w->active;
}

double witness_overhead_ms(const witness *w)
{
    return witness_active(w) ? w->rec->overhead_ms : 0;
}

int witness_wanted(void)
{
    const char *v = getenv("CUDA_LABS_WITNESS");
    return !(v && strcmp(v, "0") == 0);
}

int witness_begin(witness *w, int role, int untimed, cudaStream_t s, char *why, size_t n)
{
    wmsg m = {.op = OP_CALL, .role = role, .untimed = untimed != 0};
    if (send_msg(w->sock, &m) != 0 || recv_msg(w->sock, &m, ANSWER_MS) != 0 || m.op != OP_READY)
        return child_fail(w, why, n, "the timing witness", &m);
    w->seq = m.seq;
    if (w->host) /* READY is the go */
        return 0;
    if (w->wait_value((CUstream)s, w->d_go, w->seq, CU_STREAM_WAIT_VALUE_GEQ) != CUDA_SUCCESS)
        return child_fail(w, why, n, "the timing witness: a stream wait failed", NULL);
    return 0;
}

void witness_queued(witness *w, cudaStream_t s)
{
    if (!w->host) /* a host witness's window ends with the message */
        w->write_value((CUstream)s, w->d_done, w->seq, CU_STREAM_WRITE_VALUE_DEFAULT);
    wmsg m = {.op = OP_QUEUED};
    send_msg(w->sock, &m);
}

int witness_end(witness *w, char *why, size_t n)
{
    wmsg m;
    if (recv_msg(w->sock, &m, ANSWER_MS) != 0 || m.op != OP_DONE)
        return child_fail(w, why, n, "the timing witness", &m);
    return 0;
}

/* ---- the parent's side ---- */

double witness_median(const witness_record *w, int role)
{
    int k = w->calls[role] < WITNESS_SAMPLES ? w->calls[role] : WITNESS_SAMPLES;
    int skip = w->warmups > 0 && w->warmups < k ? w->warmups : 0;
    k -= skip;
    if (k <= 0)
        return 0;
    float v[WITNESS_SAMPLES];
    memcpy(v, w->ms[role] + skip, (size_t)k * sizeof *v);
    qsort(v, (size_t)k, sizeof *v, cmp_float);
    return k % 2 ? v[k / 2] : 0.5 * ((double)v[k / 2 - 1] + v[k / 2]);
}

/* How far a time of the record may sit from the witness's before the two
 * contradict each other: 8% of it, at least 25 us, and twice the spread of
 * the hand-off the witness measured. */
static double slack(const witness_record *w, double ms)
{
    double s = 0.08 * ms;
    if (s < 0.025)
        s = 0.025;
    return s + 2 * (w->handoff_hi_ms - w->handoff_lo_ms);
}

/* The witness's time of one call of role: the median window less the
 * hand-off (the middle of its calibrated range); 0 when it saw none. */
static double seen_ms(const witness_record *w, int role)
{
    double m = witness_median(w, role);
    return m > 0 ? m - 0.5 * (w->handoff_lo_ms + w->handoff_hi_ms) : 0;
}

/* Whether the record's time ms of what (the stage, its base, the ceiling)
 * contradicts the witness's, seen; msg says how. A host witness's window
 * holds, besides the call, the waking of both processes, which a loaded host
 * stretches by milliseconds (6 ms a call in a niced test beside a busy one),
 * and the test's own clock runs inside that window: a record faster than the
 * window is no contradiction there, and the verdict is decided from the
 * window's times anyway. */
static int contradicts(const lab_spec *spec, const witness_record *w, double ms, double seen,
                       const char *what, char *msg, size_t n)
{
    if (fabs(ms - seen) <= slack(w, seen) || (spec->host_timed && ms < seen))
        return 0;
    say(msg, n,
        "this test's record says %s took %.4f ms a call, but the grader's timing witness, a "
        "separate process that timed every call, measured %.4f ms (its window less the "
        "%.4f-%.4f ms of its hand-off). The record was changed from the test's process.",
        what, ms, seen, w->handoff_lo_ms, w->handoff_hi_ms);
    return 1;
}

/* The witness's speedup of stage over base: the median of the ratios of
 * their calls' times taken in the same repetition (as the record's own
 * speedup is), each less the hand-off; 0 when there are none. */
static double seen_speedup(const witness_record *w, int base, int stage)
{
    int k = w->calls[stage] < w->calls[base] ? w->calls[stage] : w->calls[base];
    if (k > WITNESS_SAMPLES)
        k = WITNESS_SAMPLES;
    int skip = w->warmups > 0 && w->warmups < k ? w->warmups : 0;
    const double h = 0.5 * (w->handoff_lo_ms + w->handoff_hi_ms);
    double num[WITNESS_SAMPLES], den[WITNESS_SAMPLES];
    int m = 0;
    for (int i = skip; i < k; i++) {
        num[m] = w->ms[base][i] - h;
        den[m] = w->ms[stage][i] - h;
        m++;
    }
    double r = m > 0 ? stats_median_ratio(num, den, (size_t)m) : 0;
    return isfinite(r) && r > 0 ? r : 0;
}

/* c's times, and the figures made from them, replaced by the witness's. */
static void witness_times(const lab_spec *spec, int stage, const witness_record *w,
                          test_record *c)
{
    c->median_ms = seen_ms(w, stage);
    c->ceiling_ms = seen_ms(w, WITNESS_CEILING);
    if (c->base >= 0) {
        c->base_ms = seen_ms(w, c->base);
        c->speedup = seen_speedup(w, c->base, stage);
    }
    double work = spec->work ? spec->work(stage, lab_timed_size(spec, stage)) : 0;
    c->throughput = c->median_ms > 0 ? work / (c->median_ms * 1e-3) : 0;
    c->ceiling_throughput = c->ceiling_ms > 0 ? work / (c->ceiling_ms * 1e-3) : 0;
    c->pct_ceiling = c->median_ms > 0 ? 100.0 * c->ceiling_ms / c->median_ms : 0;
}

static int is_base(const lab_stage *st, int b)
{
    for (int i = 0; i < st->n_base; i++)
        if (st->base[i] == b)
            return 1;
    return 0;
}

verdict witness_judge(const lab_spec *spec, int stage, const test_record *rec,
                      const witness_record *w, char *msg, size_t n)
{
    msg[0] = '\0';
    if (w->state != WITNESS_READY || rec->state != STATE_FINISHED)
        return V_PASS;
    const lab_stage *st = &spec->stages[stage];
    /* Inputs changed and outputs the witness found wrong outweigh a time: a
     * pass, a stage found too slow, or times that cannot be right (a wrong
     * output explains those best) is not one (the input first, as the
     * child's own checks take them). */
    const int timed_verdict = rec->v == V_PASS || rec->v == V_SLOW || rec->v == V_IMPOSSIBLE ||
                              rec->v == V_TIMING_ANOMALY;
    /* The stage's calls the witness checked: the timed ones and any audited
     * call made in addition to them. */
    const int checked = w->calls[stage] + w->audited;
    if (w->modified[stage] > 0 && timed_verdict) {
        say(msg, n, "%s It happened in %d of the stage's %d calls in this test.", w->modified_msg,
            w->modified[stage], checked);
        return V_INPUT_MODIFIED;
    }
    if (w->wrong[stage] > 0 && timed_verdict) {
        say(msg, n,
            "%d of the stage's %d calls in this test gave a wrong output for the fresh input the "
            "grader's timing witness loaded before it: %s Look for what a timed call does "
            "differently: an output kept from an earlier call, work skipped when the input looks "
            "familiar, or a race or a lower precision that shows only there.",
            w->wrong[stage], checked, w->wrong_msg);
        /* An output never written or NaN keeps its own verdict, when the
         * finding quoted is the stage's. */
        if (w->wrong_role == stage && (w->wrong_v == V_NOT_WRITTEN || w->wrong_v == V_NAN))
            return (verdict)w->wrong_v;
        return V_WRONG;
    }
    if (rec->v != V_PASS)
        return V_PASS;
    if (w->broken) {
        say(msg, n,
            "the grader's timing witness, a separate process that times every call, had to stop: "
            "%s. Something in the test's process broke the grader's exchange with it.",
            w->why);
        return V_REJECTED;
    }
    for (int b = 0; b < st->n_base; b++)
        if (w->wrong[st->base[b]] > 0) {
            say(msg, n,
                "not timed: stage %d, which this stage is measured against, gave a wrong output "
                "in %d of its timed calls (checked by the grader's timing witness): %s Fix stage "
                "%d first.",
                st->base[b], w->wrong[st->base[b]], w->wrong_msg, st->base[b]);
            return V_SKIPPED;
        }
    if (w->wrong[WITNESS_CEILING] > 0) {
        say(msg, n, "the ceiling's output was wrong in a timed call (%s): the grader's own call "
                    "was changed from the test's process.",
            w->wrong_msg);
        return V_REJECTED;
    }
    /* Every call the test makes went through the witness. */
    if (!rec->timed || w->calls[stage] < w->expected_calls) {
        say(msg, n,
            "only %d of the stage's %d timed calls went through the grader's timing witness: "
            "the times in this test's record were not all measured by the grader.",
            w->calls[stage], w->expected_calls);
        return V_REJECTED;
    }
    /* And no others: a witnessed test does not stop early, so the stage, each
     * base and the ceiling are called the same number of times. More are
     * windows some other code asked for, which would move a median. */
    for (int r = 0; r < WITNESS_ROLES; r++)
        if (w->calls[r] != 0 && r != stage && r != WITNESS_CEILING && !is_base(st, r)) {
            say(msg, n,
                "the grader's timing witness timed %d calls of stage %d, which this test does "
                "not call: calls were asked of the witness from the test's process.",
                w->calls[r], r);
            return V_REJECTED;
        } else if (w->calls[r] != 0 && w->calls[r] != w->expected_calls) {
            char who[32];
            if (r == WITNESS_CEILING)
                say(who, sizeof who, "the ceiling");
            else
                say(who, sizeof who, "stage %d", r);
            say(msg, n,
                "the grader's timing witness timed %d calls of %s, and the test makes %d: "
                "calls were asked of the witness from the test's process.",
                w->calls[r], who, w->expected_calls);
            return V_REJECTED;
        }
    int base = rec->base;
    if (st->n_base > 0 ? !is_base(st, base) : base != -1) {
        say(msg, n,
            "this test's record measures the stage against stage %d, which is not one of its "
            "bases. The record was changed from the test's process.",
            base);
        return V_REJECTED;
    }
    if (w->calls[WITNESS_CEILING] <= w->warmups || (base >= 0 && w->calls[base] <= w->warmups)) {
        say(msg, n,
            "the %s's calls did not go through the grader's timing witness: the times in this "
            "test's record were not all measured by the grader.",
            base >= 0 && w->calls[base] <= w->warmups ? "base" : "ceiling");
        return V_REJECTED;
    }
    /* The record's times are the witness's, within the slack. */
    if (contradicts(spec, w, rec->median_ms, seen_ms(w, stage), "the stage", msg, n) ||
        contradicts(spec, w, rec->ceiling_ms, seen_ms(w, WITNESS_CEILING), "the ceiling", msg, n))
        return V_REJECTED;
    if (base >= 0) {
        double base_seen = seen_ms(w, base);
        if (contradicts(spec, w, rec->base_ms, base_seen, "its base", msg, n))
            return V_REJECTED;
        for (int b = 0; b < st->n_base; b++) {
            double other = seen_ms(w, st->base[b]);
            if (st->base[b] != base && w->calls[st->base[b]] > w->warmups &&
                other + slack(w, other) < base_seen) {
                say(msg, n,
                    "this test's record measures the stage against stage %d, but the grader's "
                    "timing witness timed stage %d faster (%.4f ms against %.4f ms), and the "
                    "speedup is over the faster base.",
                    base, st->base[b], other, base_seen);
                return V_REJECTED;
            }
        }
        double ratio = rec->median_ms > 0 ? rec->base_ms / rec->median_ms : 0;
        if (fabs(rec->speedup - ratio) > 0.10 * ratio + 0.02) {
            say(msg, n,
                "this test's record gives a speedup of %.2fx, but its own times (%.4f ms for the "
                "base, %.4f ms for the stage, as the grader's timing witness measured them) give "
                "%.2fx. The record was changed from the test's process.",
                rec->speedup, rec->base_ms, rec->median_ms, ratio);
            return V_REJECTED;
        }
    }
    /* The verdict again, in this process, from the witness's own times: the
     * record's may sit anywhere within the slack of them, and a record moved
     * to the edge of it in the stage's favour gains nothing. */
    test_record c = *rec;
    witness_times(spec, stage, w, &c);
    char why[VERDICT_MSG];
    verdict v = decide_timing(spec, stage, &c, 0, why, sizeof why);
    if (v == V_PASS)
        v = decide_speed(spec, stage, &c, why, sizeof why);
    if (v == V_PASS)
        msg[0] = '\0';
    else
        say(msg, n, "by the times of the grader's timing witness (%.4f ms a call): %s",
            c.median_ms, why);
    return v;
}

verdict witness_judge_check(int stage, const test_record *rec,
                            const witness_record *w, char *msg, size_t n)
{
    msg[0] = '\0';
    if (w->state != WITNESS_READY || rec->state != STATE_FINISHED || rec->v != V_PASS ||
        stage < 0 || stage >= WITNESS_ROLES - 1)
        return V_PASS;
    const int checked = w->calls[stage] + w->audited;
    if (w->modified[stage] > 0) {
        say(msg, n, "%s It happened in %d of the %d calls the witness checked.", w->modified_msg,
            w->modified[stage], checked);
        return V_INPUT_MODIFIED;
    }
    if (w->wrong[stage] > 0) {
        say(msg, n,
            "after this test's own checks, the grader's checking witness (a separate process "
            "that never loads your code) loaded a fresh input of its own and called the stage once "
            "more at each size, and %d of its %d calls (one a size, and any the audit made "
            "again) gave a wrong output: %s Look for what depends on the data or on the call: "
            "a race, an element read before it is written, or state kept from an earlier call.",
            w->wrong[stage], checked, w->wrong_msg);
        if (w->wrong_role == stage && (w->wrong_v == V_NOT_WRITTEN || w->wrong_v == V_NAN))
            return (verdict)w->wrong_v;
        return V_WRONG;
    }
    if (w->broken) {
        say(msg, n,
            "the grader's checking witness, a separate process that checks one call at each "
            "size, had to stop: %s. Something in the test's process broke the grader's "
            "exchange with it.",
            w->why);
        return V_REJECTED;
    }
    if (w->sizes_checked != w->sizes_expected || w->calls[stage] != w->expected_calls) {
        int got = 0, want = 0;
        for (int s = 0; s < 32; s++) {
            got += (int)(w->sizes_checked >> s & 1u);
            want += (int)(w->sizes_expected >> s & 1u);
        }
        say(msg, n,
            "this test's record says PASS, but the grader's checking witness, a separate process "
            "that checks one call at each size, checked %d of the test's %d sizes (%d call%s): "
            "the record was written from the test's process before its checks were done.",
            got, want, w->calls[stage], w->calls[stage] == 1 ? "" : "s");
        return V_REJECTED;
    }
    return V_PASS;
}

int witness_settle(const lab_spec *spec, lab_results *res, char *why, size_t n)
{
    int unavailable = 0;
    if (n)
        why[0] = '\0';
    /* Stages whose correctness PASS did not stand (a base comes before the
     * stages measured against it). */
    int overturned[LAB_MAX_STAGES] = {0};
    for (int s = 0; s < spec->n_stages && s < LAB_MAX_STAGES; s++) {
        /* The correctness test first: a speed test it let run is not graded. */
        test_record *corr = &res->t[s][TEST_CORRECT];
        char cmsg[VERDICT_MSG];
        verdict cv = witness_judge_check(s, corr, &res->check_witness[s], cmsg, sizeof cmsg);
        if (cv != V_PASS) {
            overturned[s] = 1;
            corr->v = cv;
            snprintf(corr->msg, sizeof corr->msg, "%s", cmsg);
            test_record *perf = &res->t[s][TEST_PERF];
            if (perf->graded && perf->state == STATE_FINISHED && perf->v != V_SKIPPED &&
                perf->v != V_REJECTED) { /* what it tried on its own stands */
                perf->v = V_SKIPPED;
                snprintf(perf->msg, sizeof perf->msg,
                         "not graded: its correctness test did not stand (%s).", verdict_name(cv));
            }
        }
        test_record *rec = &res->t[s][TEST_PERF];
        if (res->witness[s].state == WITNESS_UNAVAILABLE && unavailable++ == 0 && n)
            snprintf(why, n, "%s", res->witness[s].why);
        /* Measured against a base whose correctness PASS did not stand: not
         * timed, as the test itself would have decided (its only base, or the
         * faster of two, which its speedup is over). */
        const lab_stage *st = &spec->stages[s];
        int lost = -1;
        for (int b = 0; b < st->n_base; b++)
            if (st->base[b] >= 0 && st->base[b] < LAB_MAX_STAGES && overturned[st->base[b]] &&
                (st->n_base == 1 || rec->base == st->base[b]))
                lost = st->base[b];
        if (lost >= 0 && rec->graded && rec->state == STATE_FINISHED && rec->v != V_SKIPPED &&
            rec->v != V_REJECTED) {
            rec->v = V_SKIPPED;
            snprintf(rec->msg, sizeof rec->msg,
                     "not timed: stage %d is measured against stage %d (%s), whose correctness "
                     "test did not stand (%s). Fix stage %d first.",
                     s, lost, spec->stages[lost].title, verdict_name(res->t[lost][TEST_CORRECT].v),
                     lost);
            continue;
        }
        char msg[VERDICT_MSG];
        verdict v = witness_judge(spec, s, rec, &res->witness[s], msg, sizeof msg);
        /* A host witness's pass keeps the witness's times, not the record's,
         * which may be anything faster (contradicts): the checks after this
         * one (the base's drift between tests) and the report read them. */
        if (v == V_PASS && spec->host_timed && res->witness[s].state == WITNESS_READY &&
            rec->state == STATE_FINISHED && rec->v == V_PASS) {
            witness_times(spec, s, &res->witness[s], rec);
            continue;
        }
        if (v == V_PASS)
            continue;
        rec->v = v;
        snprintf(rec->msg, sizeof rec->msg, "%s", msg);
    }
    return unavailable;
}

void witness_report(FILE *f, const lab_spec *spec, const lab_results *res)
{
    int header = 0;
    for (int s = 0; s < spec->n_stages && s < LAB_MAX_STAGES; s++) {
        const witness_record *w = &res->witness[s];
        if (w->state == WITNESS_NONE)
            continue;
        if (!header++)
            fprintf(f, "\n  The timing witness of each speed test (windows: the call and the hand-off):\n");
        if (w->state != WITNESS_READY) {
            fprintf(f, "  stage %d: not used: %s\n", s, w->why);
            continue;
        }
        fprintf(f, "  stage %d: hand-off %.4f-%.4f ms;", s, w->handoff_lo_ms, w->handoff_hi_ms);
        for (int r = 0; r < WITNESS_ROLES; r++)
            if (w->calls[r] > 0) {
                if (r == WITNESS_CEILING)
                    fprintf(f, " ceiling");
                else
                    fprintf(f, " stage %d", r);
                fprintf(f, " %d calls, median %.4f ms%s;", w->calls[r], witness_median(w, r),
                        w->wrong[r] ? " (some wrong)" : "");
            }
        if (w->audited > 0)
            fprintf(f, " %d more audited call%s checked, not timed;", w->audited,
                    w->audited > 1 ? "s" : "");
        fprintf(f, "%s%s\n", w->broken ? " stopped: " : "", w->broken ? w->why : "");
    }
}
