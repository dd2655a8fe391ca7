/* gbuf.h: a device buffer with guard zones. The student's pointer is framed by
 * GBUF_GUARD bytes on each side, filled with a random pattern; after every call
 * the grader reads them back, so a write past either end is caught even when
 * CUDA reports no error. */
#ifndef CUDA_LABS_GBUF_H
#define CUDA_LABS_GBUF_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#define GBUF_GUARD ((size_t)16384) /* bytes on each side; keeps 256-byte alignment */

/* Guard size for later allocations: GBUF_GUARD, or 0 under compute-sanitizer,
 * whose memcheck can only see accesses past the end of a whole allocation. */
void gbuf_set_guard(size_t bytes);

typedef struct gbuf {
    unsigned char *d_base; /* the allocation */
    void *d;               /* what the stage gets: d_base + GBUF_GUARD */
    size_t bytes;          /* usable bytes */
    size_t guard;             /* bytes of guard on each side */
    unsigned char *h_pattern; /* the guard pattern, 2 * guard bytes */
    unsigned char *h_check;   /* scratch for reading the guards back */
} gbuf;

cudaError_t gbuf_alloc(gbuf *b, size_t bytes, uint64_t seed);
/* Fills the usable bytes with 0xFF: every float reads as the "unwritten" NaN. */
cudaError_t gbuf_poison(gbuf *b, cudaStream_t s);
/* Fills the usable bytes with one byte value (0x80 makes every int INT32 0x80808080). */
cudaError_t gbuf_fill(gbuf *b, unsigned char byte, cudaStream_t s);
/* 0 when both guards are intact; 1 when one changed, with *offset = the first
 * changed byte relative to the buffer start (negative: before it; >= bytes:
 * after it); -1 when reading them failed (*err says why). Synchronous. */
int gbuf_guards_changed(const gbuf *b, long long *offset, cudaError_t *err);
void gbuf_free(gbuf *b);

/* Finds the first byte where a and b differ; -1 if none. Pure. */
long long gbuf_first_diff(const unsigned char *a, const unsigned char *b, size_t n);

#endif
