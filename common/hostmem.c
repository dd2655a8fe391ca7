/* hostmem.c: see hostmem.h. */
#define _GNU_SOURCE
#include "hostmem.h"

#include <stdlib.h>
#include <sys/mman.h>

void *hostmem_alloc(size_t bytes)
{
    if (bytes < HOSTMEM_HUGE)
        return malloc(bytes ? bytes : 1);
    size_t whole = (bytes + HOSTMEM_HUGE - 1) / HOSTMEM_HUGE * HOSTMEM_HUGE;
    if (whole < bytes) /* wrapped around */
        return NULL;
    void *p = NULL;
    if (posix_memalign(&p, HOSTMEM_HUGE, whole) != 0)
        return NULL;
#ifdef MADV_HUGEPAGE
    /* Advice only: a kernel without huge pages refuses it (EINVAL) and the
     * buffer stays on small pages. */
    (void)madvise(p, whole, MADV_HUGEPAGE);
#endif
    return p;
}
