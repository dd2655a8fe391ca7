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
#include "../patch.h"

/* Fills out with a SETUP ERROR "out of host memory<for_what>"; returns -1. */
int lab_no_memory(check_outcome *out, const char *for_what);
/* Ends a SETUP ERROR's message that is the machine's or the grader's whatever
 * the library did (runner_memory_fault matches it): it is never charged to
 * the submission. */
#define LAB_NOT_YOURS " This is the machine's or the grader's fault, not your submission's."

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

/* Is input buffer b (words 32-bit words) still what the grader loaded? With
 * p NULL (a full check) it is read back into scratch and compared with
 * h_orig; in a timed call it is compared on the GPU (patch_unchanged, on
 * stream s) with d_orig, the device copy it was loaded from, allowing exactly
 * patch p. -1 when unchanged; else the first word that changed, with the
 * word it should hold in *was and the word it holds in *now (in a timed call
 * only that word is read back); -2 with out filled when the check itself
 * failed. The caller words INPUT MODIFIED. */
long long lab_input_word_changed(patch_set *p, const gbuf *b, const void *d_orig,
                                 const void *h_orig, size_t words, void *scratch, cudaStream_t s,
                                 uint32_t *was, uint32_t *now, check_outcome *out);

/* lab_input_word_changed, worded: 0 when the input d_in is as loaded; else
 * -1 with INPUT MODIFIED, "the input d_in was changed[ during a timed call],
 * first at <where> (was <x>, now <y>): <advice>", where is in[r][c] for a
 * matrix of `cols` columns (d_in[i] when cols is 0) and the words are shown
 * as ints when ints, else floats. */
int lab_input_as_loaded(patch_set *p, const gbuf *b, const void *d_orig, const void *h_orig,
                        size_t words, void *scratch, cudaStream_t s, int cols, int ints,
                        const char *advice, check_outcome *out);

/* The float whose bits are w (an input word in a message). */
static inline float lab_as_float(uint32_t w)
{
    union {
        uint32_t u;
        float f;
    } x = {w};
    return x.f;
}

/* Puts "in a timed call, after k input elements were changed: " before the
 * message of a patched call's wrong result (kept from an earlier call?). */
void lab_note_patched(check_outcome *out, int k);

/* Timed calls (grader/patch.h). lab_unpatch writes the words patch p
 * replaced in d_buf back from the host copy h and forgets the patch (a
 * prepare that does not reload the whole input); 0, or -1 with out filled.
 * lab_patched_unchanged checks on the GPU that b (words long, rows of `cols`
 * words) holds d_orig, the copy it was loaded from, plus exactly the patch:
 * 0; else -1 with INPUT MODIFIED, "<name> was changed during a timed call,
 * first at element e (<name>[row][col]): it held x and now holds y.
 * <advice>" (or another verdict when the check fails). */
int lab_unpatch(patch_set *p, void *d_buf, const void *h, cudaStream_t s, check_outcome *out);
/* A graded input as prepare puts it back before a call: d (bytes long),
 * which the grader patches (patches) and the timing witness overwrites; d0,
 * a copy of it on the GPU made once timed calls have begun (NULL before),
 * or else host, the copy on the host. */
typedef struct lab_input {
    void *d;
    const void *d0, *host;
    size_t bytes;
    patch_set *patches;
} lab_input;
/* Each of the n inputs back as it was loaded: whole from its device copy
 * when it has one (what names the reload in an error), else its patches
 * undone from the host copy. 0, or -1 with out filled. */
int lab_restore_inputs(const lab_input *in, int n, cudaStream_t s, const char *what,
                       check_outcome *out);
int lab_patched_unchanged(patch_set *p, const gbuf *b, const void *d_orig, const void *h,
                          size_t words, size_t cols, const char *name, const char *advice,
                          cudaStream_t s, check_outcome *out);

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

/* The timing witness's check of a sum (labs 2 and 3): d_out[0], a float,
 * is the sum of d_in's n floats within reduce_tolerance; -1 when it is, 0
 * (the first wrong word) with out filled when not, -2 when the check failed.
 * Witness side (grader/witness.h). */
long long lab_witness_sum(const void *d_out, const void *d_in, size_t n, cudaStream_t s,
                          check_outcome *out);
/* The lines a witness's check samples (labs 4, 6, 7), drawn from the system
 * after the call: a[i] uniform below ma for i < na, b[i] below mb for
 * i < nb (na + nb at most LAB_WITNESS_MAX_PICKS). 0, or -2 with out filled
 * (SETUP ERROR). */
#define LAB_WITNESS_MAX_PICKS 32
int lab_witness_picks(uint32_t *a, int na, uint64_t ma, uint32_t *b, int nb, uint64_t mb,
                      check_outcome *out);
/* A correctness test's witness (its check's full) checks every output of
 * labs 4, 6 and 7, in whole lines, where the problem is at most this many
 * multiply-adds (2^33: every size but the 4096^3 benchmarks of labs 4 and
 * 7), and the sample above it. */
#define LAB_WITNESS_FULL_WORK 8589934592.0
/* Lines first, first + 1, ... below m into a, at most LAB_WITNESS_MAX_PICKS:
 * one batch of a full check. Returns how many. */
int lab_witness_lines(uint32_t *a, uint64_t first, uint64_t m);
/* For a witness's message: the element (i, j) of A B in double, from row i
 * of A (row-major, K columns) and column j of B (K x N), read back from the
 * GPU, in *x, and its scale (the sum of |a b|) in *sc; 0, or -1 when it
 * could not be read. lab_dot: the same from two rows on the host. */
int lab_gemm_element(const float *d_A, const float *d_B, int N, int K, long long i, long long j,
                     double *x, double *sc);
void lab_dot(const float *a, const float *b, int K, double *x, double *sc);

/* Child side: the shared host memory (bytes long) of a speed test timed by a
 * host witness (witness_arena), where the lab's setup puts the test's host
 * buffers; set by the runner before the setup, NULL (the default) when the
 * test has none. */
void lab_set_host_arena(void *arena, size_t bytes);
void *lab_host_arena(size_t *bytes);

#endif
