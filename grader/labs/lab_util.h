/* lab_util.h: what every lab specification's checks share: turning a CUDA
 * error into a SETUP ERROR outcome, and a guard-zone check with a message that
 * says where the stray write landed. Child side (CUDA calls). */
#ifndef CUDA_LABS_LAB_UTIL_H
#define CUDA_LABS_LAB_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#include "../gbuf.h"
#include "../lab.h"

/* Fills out with a SETUP ERROR "out of host memory<for_what>"; returns -1. */
int lab_no_memory(check_outcome *out, const char *for_what);
/* A host buffer for outputs read back (plain memory, free() it: reads go
 * through lab_to_host); 0, or -1 with out filled (*p = NULL). */
int lab_host_buffer(void **p, size_t bytes, check_outcome *out);
/* Copies between device and plain host memory, for the grader's large
 * transfers: through two small pinned buffers in turn, one being copied by
 * the GPU while the other is copied by the host's cores. Pinning a large
 * buffer costs more than the copy, and pageable copies run at a fraction of
 * the bus. Synchronous; small copies go straight through cudaMemcpy. */
cudaError_t lab_to_device(void *d, const void *h, size_t bytes);
cudaError_t lab_to_host(void *h, const void *d, size_t bytes);
/* Device copies of n host arrays of `bytes` each, for reloading inputs fast;
 * 0, or -1 with out filled (copies made so far stay in d for the teardown). */
int lab_device_copies(void **d, const void *const *h, int n, size_t bytes, check_outcome *out);

/* Reads `bytes` of device buffer b into scratch and compares them with what
 * the grader put there: the index of the first changed 4-byte word, -1 when
 * unchanged, -2 when reading failed (out filled). The caller words the
 * INPUT MODIFIED message. */
long long lab_input_changed(const gbuf *b, const void *original, size_t bytes, void *scratch,
                            check_outcome *out);

/* Checks n read-only inputs (device buffer bufs[i], named names[i], should
 * still hold hosts[i], bytes[i] long): 0 when all are unchanged; else -1
 * with INPUT MODIFIED, "<name> was changed, first at element <e>: <advice>"
 * (or another verdict when one cannot be read). */
int lab_inputs_unchanged(int n, const gbuf *const *bufs, const void *const *hosts,
                         const size_t *bytes, const char *const *names, const char *advice,
                         check_outcome *out);

/* A hash of host data, for a spec's held(): start from LAB_DIGEST_START and
 * fold in each array in turn. No CUDA. */
#define LAB_DIGEST_START 0xcbf29ce484222325ull
uint64_t lab_digest(uint64_t h, const void *p, size_t bytes);
/* One array of a held(): its bytes when p is held (not NULL), folded into *d;
 * 0 when it is not. */
size_t lab_held(uint64_t *d, const void *p, size_t bytes);

/* Fills out with "the grader could not <what>: <error>"; returns -1. */
int lab_fail_cuda(check_outcome *out, cudaError_t err, const char *what);
/* 0 when both guards of b (a buffer of elems floats called name) are intact;
 * else -1 with OUT OF BOUNDS (or a SETUP ERROR when they cannot be read). */
int lab_guard_check(const gbuf *b, const char *name, size_t elems, check_outcome *out);

#endif
