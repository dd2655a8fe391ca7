/* lab_util.c: see lab_util.h. */
#include "lab_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "../../common/compare.h"
#include "../../common/par.h"
#include "reduce_lab.h"

int lab_fail_cuda(check_outcome *out, cudaError_t err, const char *what)
{
    out->v = V_SETUP_ERROR;
    snprintf(out->msg, sizeof out->msg, "the grader could not %s: %s (%s)%s", what,
             cudaGetErrorName(err), cudaGetErrorString(err),
             err == cudaErrorMemoryAllocation ? "; is another program using the GPU's memory?"
                                              : "");
    return -1;
}

uint64_t lab_digest(uint64_t h, const void *p, size_t bytes)
{
    const unsigned char *b = p;
    size_t i = 0;
    for (; i + 8 <= bytes; i += 8) { /* 64 bits at a time, FNV-1a's step */
        uint64_t w;
        memcpy(&w, b + i, 8);
        h = (h ^ w) * 0x100000001b3ull;
    }
    for (; i < bytes; i++)
        h = (h ^ b[i]) * 0x100000001b3ull;
    return (h ^ (uint64_t)bytes) * 0x100000001b3ull;
}

size_t lab_held(uint64_t *d, const void *p, size_t bytes)
{
    if (!p)
        return 0;
    *d = lab_digest(*d, p, bytes);
    return bytes;
}

int lab_no_memory(check_outcome *out, const char *for_what)
{
    out->v = V_SETUP_ERROR;
    snprintf(out->msg, sizeof out->msg, "out of host memory%s", for_what ? for_what : "");
    return -1;
}

int lab_host_buffer(void **p, size_t bytes, check_outcome *out)
{
    *p = malloc(bytes ? bytes : 4);
    return *p ? 0 : lab_no_memory(out, " for the outputs read back");
}

/* ---- staged copies ---- */

#define STAGE_BYTES ((size_t)16 << 20)
#define STAGE_DIRECT ((size_t)4 << 20) /* copies up to this size go straight */

static struct {
    void *buf[2];
    cudaEvent_t done[2];
    cudaStream_t stream;
    int ready, tried; /* set up once per process; a failed set-up is not retried */
} staging;

/* The staging stream does not follow the grader's stream or the legacy one:
 * every copy starts once the device is idle (all current callers have
 * synchronised already; this keeps it so for any later one). */
static cudaError_t staging_init(void)
{
    cudaError_t err = cudaDeviceSynchronize();
    if (err != cudaSuccess)
        return err;
    if (staging.tried) /* plain copies from then on, when the set-up failed */
        return staging.ready ? cudaSuccess : cudaErrorMemoryAllocation;
    staging.tried = 1;
    err = cudaStreamCreateWithFlags(&staging.stream, cudaStreamNonBlocking);
    for (int i = 0; i < 2 && err == cudaSuccess; i++) {
        err = cudaMallocHost(&staging.buf[i], STAGE_BYTES);
        if (err == cudaSuccess)
            err = cudaEventCreateWithFlags(&staging.done[i], cudaEventDisableTiming);
    }
    staging.ready = err == cudaSuccess;
    return err;
}

/* A cudaMemcpy from pageable memory may return before its DMA has reached
 * the device (CUDA's "API synchronization behavior"), and the grader's stream
 * does not wait for the legacy stream that copy is on: a stage, or a copy on
 * the device, could read what has not landed yet. Seen under --sms 40 on the
 * H200: lab 4's C at M 64, N 4096 lost its last rows, and the references got
 * WRONG RESULT. So a direct copy is waited for before this returns. */
static cudaError_t direct_to_device(void *d, const void *h, size_t bytes)
{
    cudaError_t err = cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice);
    cudaError_t sync = cudaDeviceSynchronize();
    return err != cudaSuccess ? err : sync;
}

cudaError_t lab_to_device(void *d, const void *h, size_t bytes)
{
    if (bytes <= STAGE_DIRECT || staging_init() != cudaSuccess)
        return direct_to_device(d, h, bytes);
    cudaError_t err = cudaSuccess;
    for (size_t off = 0, i = 0; off < bytes && err == cudaSuccess; off += STAGE_BYTES, i++) {
        size_t len = bytes - off < STAGE_BYTES ? bytes - off : STAGE_BYTES;
        int k = (int)(i % 2);
        err = cudaEventSynchronize(staging.done[k]); /* its last upload has left */
        if (err != cudaSuccess)
            break;
        par_memcpy(staging.buf[k], (const char *)h + off, len);
        err = cudaMemcpyAsync((char *)d + off, staging.buf[k], len, cudaMemcpyHostToDevice,
                              staging.stream);
        if (err == cudaSuccess)
            err = cudaEventRecord(staging.done[k], staging.stream);
    }
    cudaError_t sync = cudaStreamSynchronize(staging.stream);
    return err != cudaSuccess ? err : sync;
}

cudaError_t lab_to_host(void *h, const void *d, size_t bytes)
{
    if (bytes <= STAGE_DIRECT || staging_init() != cudaSuccess)
        return cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost);
    cudaError_t err = cudaSuccess;
    size_t chunks = (bytes + STAGE_BYTES - 1) / STAGE_BYTES;
    /* Chunk i lands in buffer i % 2 while the host empties chunk i - 1. */
    for (size_t i = 0; i <= chunks && err == cudaSuccess; i++) {
        if (i < chunks) {
            size_t off = i * STAGE_BYTES, len = bytes - off < STAGE_BYTES ? bytes - off : STAGE_BYTES;
            err = cudaMemcpyAsync(staging.buf[i % 2], (const char *)d + off, len,
                                  cudaMemcpyDeviceToHost, staging.stream);
            if (err == cudaSuccess)
                err = cudaEventRecord(staging.done[i % 2], staging.stream);
        }
        if (i > 0 && err == cudaSuccess) {
            size_t off = (i - 1) * STAGE_BYTES;
            size_t len = bytes - off < STAGE_BYTES ? bytes - off : STAGE_BYTES;
            err = cudaEventSynchronize(staging.done[(i - 1) % 2]);
            if (err == cudaSuccess)
                par_memcpy((char *)h + off, staging.buf[(i - 1) % 2], len);
        }
    }
    if (err != cudaSuccess) /* no copy may still be landing in the staging buffers */
        cudaStreamSynchronize(staging.stream);
    return err;
}

int lab_device_copies(void **d, const void *const *h, int n, size_t bytes, check_outcome *out)
{
    for (int v = 0; v < n; v++) {
        cudaError_t err = cudaMalloc(&d[v], bytes ? bytes : 4);
        if (err != cudaSuccess) {
            d[v] = NULL;
            return lab_fail_cuda(out, err, "allocate the input copies");
        }
        err = lab_to_device(d[v], h[v], bytes);
        if (err != cudaSuccess)
            return lab_fail_cuda(out, err, "upload the inputs");
    }
    return 0;
}

long long lab_input_changed(const gbuf *b, const void *original, size_t bytes, void *scratch,
                            check_outcome *out)
{
    cudaError_t err = lab_to_host(scratch, b->d, bytes);
    if (err != cudaSuccess) {
        lab_fail_cuda(out, err, "read the input back");
        return -2;
    }
    return compare_first_diff_word(original, scratch, bytes);
}

long long lab_input_word_changed(patch_set *p, const gbuf *b, const void *d_orig,
                                 const void *h_orig, size_t words, void *scratch, cudaStream_t s,
                                 uint32_t *was, uint32_t *now, check_outcome *out)
{
    if (!p) {
        long long w = lab_input_changed(b, h_orig, words * 4, scratch, out);
        if (w >= 0) {
            *was = ((const uint32_t *)h_orig)[w];
            *now = ((const uint32_t *)scratch)[w];
        }
        return w;
    }
    long long w = patch_unchanged(p, b->d, d_orig, words, s, out);
    if (w < 0)
        return w;
    *was = patch_word(p, (const uint32_t *)h_orig, (size_t)w);
    cudaError_t err = cudaMemcpy(now, (const uint32_t *)b->d + w, sizeof *now,
                                 cudaMemcpyDeviceToHost);
    if (err != cudaSuccess) {
        lab_fail_cuda(out, err, "read the changed input word back");
        return -2;
    }
    return w;
}

int lab_input_as_loaded(patch_set *p, const gbuf *b, const void *d_orig, const void *h_orig,
                        size_t words, void *scratch, cudaStream_t s, int cols, int ints,
                        const char *advice, check_outcome *out)
{
    uint32_t was = 0, now = 0;
    long long w = lab_input_word_changed(p, b, d_orig, h_orig, words, scratch, s, &was, &now, out);
    if (w == -2)
        return -1;
    if (w < 0)
        return 0;
    char at[64], vals[96];
    if (cols > 0)
        snprintf(at, sizeof at, "in[%lld][%lld]", w / cols, w % cols);
    else
        snprintf(at, sizeof at, "d_in[%lld]", w);
    if (ints)
        snprintf(vals, sizeof vals, "was %d, now %d", (int)was, (int)now);
    else
        snprintf(vals, sizeof vals, "was %.7g, now %.7g", lab_as_float(was), lab_as_float(now));
    out->v = V_INPUT_MODIFIED;
    snprintf(out->msg, sizeof out->msg, "the input d_in was changed%s, first at %s (%s): %s",
             p ? " during a timed call" : "", at, vals, advice);
    return -1;
}

void lab_note_patched(check_outcome *out, int k)
{
    char note[200];
    int len = snprintf(note, sizeof note,
                       "in a timed call, whose input had %d elements changed just before it (a "
                       "result kept from an earlier call is wrong there): ",
                       k);
    if (len < 0 || (size_t)len >= sizeof note)
        return;
    size_t m = strlen(out->msg), room = sizeof out->msg - 1 - (size_t)len;
    if (m > room)
        m = room;
    memmove(out->msg + len, out->msg, m);
    memcpy(out->msg, note, (size_t)len);
    out->msg[(size_t)len + m] = '\0';
}

int lab_inputs_unchanged(int n, const gbuf *const *bufs, const void *const *hosts,
                         const size_t *bytes, const char *const *names, const char *advice,
                         check_outcome *out)
{
    for (int i = 0; i < n; i++) {
        void *scratch = malloc(bytes[i]);
        if (!scratch)
            return lab_no_memory(out, NULL);
        long long e = lab_input_changed(bufs[i], hosts[i], bytes[i], scratch, out);
        free(scratch);
        if (e == -2)
            return -1;
        if (e >= 0) {
            out->v = V_INPUT_MODIFIED;
            snprintf(out->msg, sizeof out->msg, "%s was changed, first at element %lld: %s",
                     names[i], e, advice);
            return -1;
        }
    }
    return 0;
}

int lab_guard_check(const gbuf *b, const char *name, size_t elems, check_outcome *out)
{
    long long off = 0;
    cudaError_t err = cudaSuccess;
    int bad = gbuf_guards_changed(b, &off, &err);
    if (bad < 0)
        return lab_fail_cuda(out, err, "read the guard zones back");
    if (!bad)
        return 0;
    out->v = V_OUT_OF_BOUNDS;
    if (off < 0)
        snprintf(out->msg, sizeof out->msg,
                 "memory %lld bytes before the start of %s was written (element %lld): an index "
                 "went negative",
                 -off, name, off / 4);
    else if (off == (long long)(elems * 4))
        snprintf(out->msg, sizeof out->msg,
                 "%s was written right after its end (element %lld; it has %zu elements): a "
                 "missing or wrong bounds check",
                 name, off / 4, elems);
    else
        snprintf(out->msg, sizeof out->msg,
                 "%s was written %lld bytes after its end (element %lld; it has %zu elements): a "
                 "missing or wrong bounds check",
                 name, off - (long long)(elems * 4), off / 4, elems);
    return -1;
}

int lab_unpatch(patch_set *p, void *d_buf, const void *h, cudaStream_t s, check_outcome *out)
{
    for (int k = 0; k < p->n; k++)
        memcpy(&p->val[k], (const uint32_t *)h + p->idx[k], 4);
    int rc = patch_apply(p, d_buf, s, out);
    patch_clear(p);
    return rc;
}

int lab_restore_inputs(const lab_input *in, int n, cudaStream_t s, const char *what,
                       check_outcome *out)
{
    for (int i = 0; i < n; i++) {
        if (in[i].d0) {
            cudaError_t err =
                cudaMemcpyAsync(in[i].d, in[i].d0, in[i].bytes, cudaMemcpyDeviceToDevice, s);
            if (err != cudaSuccess)
                return lab_fail_cuda(out, err, what);
            patch_clear(in[i].patches);
        } else if (lab_unpatch(in[i].patches, in[i].d, in[i].host, s, out) != 0) {
            return -1;
        }
    }
    return 0;
}

int lab_patched_unchanged(patch_set *p, const gbuf *b, const void *d_orig, const void *h,
                          size_t words, size_t cols, const char *name, const char *advice,
                          cudaStream_t s, check_outcome *out)
{
    long long e = patch_unchanged(p, b->d, d_orig, words, s, out);
    if (e == -2)
        return -1;
    if (e < 0)
        return 0;
    uint32_t want = patch_word(p, h, (size_t)e), now = 0;
    cudaError_t err = cudaMemcpy(&now, (const uint32_t *)b->d + e, 4, cudaMemcpyDeviceToHost);
    if (err != cudaSuccess)
        return lab_fail_cuda(out, err, "read the changed input back");
    float fw, fn;
    memcpy(&fw, &want, 4);
    memcpy(&fn, &now, 4);
    size_t c = cols ? cols : 1;
    out->v = V_INPUT_MODIFIED;
    snprintf(out->msg, sizeof out->msg,
             "%s was changed during a timed call, first at element %lld (%s[%zu][%zu]): it held "
             "%.7g and now holds %.7g. %s",
             name, e, name, (size_t)e / c, (size_t)e % c, fw, fn, advice);
    return -1;
}

long long lab_witness_sum(const void *d_out, const void *d_in, size_t n, cudaStream_t s,
                          check_outcome *out)
{
    double sum, sum_abs;
    if (devcheck_sum_on_gpu(d_in, n, &sum, &sum_abs, s, out) != 0)
        return -2;
    float got;
    cudaError_t e = cudaMemcpy(&got, d_out, sizeof got, cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) {
        lab_fail_cuda(out, e, "read the sum back");
        return -2;
    }
    int v = reduce_judge(sum, sum_abs, n, got, out->msg, sizeof out->msg);
    if (v == V_PASS)
        return -1;
    out->v = (verdict)v;
    return 0;
}

int lab_witness_lines(uint32_t *a, uint64_t first, uint64_t m)
{
    int n = 0;
    for (uint64_t i = first; i < m && n < LAB_WITNESS_MAX_PICKS; i++)
        a[n++] = (uint32_t)i;
    return n;
}

int lab_witness_picks(uint32_t *a, int na, uint64_t ma, uint32_t *b, int nb, uint64_t mb,
                      check_outcome *out)
{
    /* At most 256 bytes: a read that size from the system's pool is never
     * cut short by a signal. */
    uint64_t r[LAB_WITNESS_MAX_PICKS];
    size_t bytes = (size_t)(na + nb) * sizeof *r;
    if (na < 0 || nb < 0 || na + nb > LAB_WITNESS_MAX_PICKS || ma == 0 || mb == 0 ||
        getrandom(r, bytes, 0) != (ssize_t)bytes) {
        out->v = V_SETUP_ERROR;
        snprintf(out->msg, sizeof out->msg, "no random numbers from the system");
        return -2;
    }
    for (int i = 0; i < na; i++)
        a[i] = (uint32_t)(r[i] % ma);
    for (int i = 0; i < nb; i++)
        b[i] = (uint32_t)(r[na + i] % mb);
    return 0;
}

int lab_gemm_element(const float *d_A, const float *d_B, int N, int K, long long i, long long j,
                     double *x, double *sc)
{
    float *a = malloc((size_t)K * 4), *b = malloc((size_t)K * 4);
    int rc = -1;
    if (a && b &&
        cudaMemcpy(a, d_A + (size_t)i * K, (size_t)K * 4, cudaMemcpyDeviceToHost) == cudaSuccess &&
        cudaMemcpy2D(b, 4, d_B + j, (size_t)N * 4, 4, (size_t)K, cudaMemcpyDeviceToHost) ==
            cudaSuccess) {
        lab_dot(a, b, K, x, sc);
        rc = 0;
    }
    free(a);
    free(b);
    return rc;
}

void lab_dot(const float *a, const float *b, int K, double *x, double *sc)
{
    *x = *sc = 0;
    for (int k = 0; k < K; k++) {
        *x += (double)a[k] * b[k];
        *sc += fabs((double)a[k] * b[k]);
    }
}

static void *host_arena;
static size_t host_arena_bytes;

void lab_set_host_arena(void *arena, size_t bytes)
{
    host_arena = arena;
    host_arena_bytes = arena ? bytes : 0;
}

void *lab_host_arena(size_t *bytes)
{
    *bytes = host_arena_bytes;
    return host_arena;
}
