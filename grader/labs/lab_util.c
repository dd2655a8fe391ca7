/* lab_util.c: see lab_util.h. */
#include "lab_util.h"

#include <stdio.h>
#include <stdlib.h>

#include "../../common/compare.h"

int lab_fail_cuda(check_outcome *out, cudaError_t err, const char *what)
{
    out->v = V_SETUP_ERROR;
    snprintf(out->msg, sizeof out->msg, "the grader could not %s: %s (%s)%s", what,
             cudaGetErrorName(err), cudaGetErrorString(err),
             err == cudaErrorMemoryAllocation ? "; is another program using the GPU's memory?"
                                              : "");
    return -1;
}

int lab_no_memory(check_outcome *out, const char *for_what)
{
    out->v = V_SETUP_ERROR;
    snprintf(out->msg, sizeof out->msg, "out of host memory%s", for_what ? for_what : "");
    return -1;
}

int lab_pinned(void **p, size_t bytes, check_outcome *out)
{
    cudaError_t err = cudaMallocHost(p, bytes ? bytes : 4);
    if (err == cudaSuccess)
        return 0;
    *p = NULL;
    return lab_fail_cuda(out, err, "allocate pinned host memory");
}

int lab_device_copies(void **d, const void *const *h, int n, size_t bytes, check_outcome *out)
{
    for (int v = 0; v < n; v++) {
        cudaError_t err = cudaMalloc(&d[v], bytes ? bytes : 4);
        if (err != cudaSuccess) {
            d[v] = NULL;
            return lab_fail_cuda(out, err, "allocate the input copies");
        }
        err = cudaMemcpy(d[v], h[v], bytes, cudaMemcpyHostToDevice);
        if (err != cudaSuccess)
            return lab_fail_cuda(out, err, "upload the inputs");
    }
    return 0;
}

long long lab_input_changed(const gbuf *b, const void *original, size_t bytes, void *scratch,
                            check_outcome *out)
{
    cudaError_t err = cudaMemcpy(scratch, b->d, bytes, cudaMemcpyDeviceToHost);
    if (err != cudaSuccess) {
        lab_fail_cuda(out, err, "read the input back");
        return -2;
    }
    return compare_first_diff_word(original, scratch, bytes);
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
