/* hostmem.h: the grader's large host buffers (inputs and expected outputs
 * made in the parent before it forks a child per test). fork() copies the
 * page tables of every mapping the parent holds; on 4 KiB pages that is one
 * entry per 4 KiB, measured at 0.3 s per fork with 8 GB held. A buffer from
 * hostmem_alloc is aligned to 2 MiB and advised for transparent huge pages
 * (madvise MADV_HUGEPAGE), so where the kernel allows them (the "madvise" or
 * "always" setting of /sys/kernel/mm/transparent_hugepage/enabled) each
 * 2 MiB takes one entry: 7 ms per fork with 8 GB. Where it does not, the
 * buffer is plain memory and works the same. No CUDA. */
#ifndef CUDA_LABS_HOSTMEM_H
#define CUDA_LABS_HOSTMEM_H

#include <stddef.h>

/* The huge page size asked for, and the smallest buffer that asks. */
#define HOSTMEM_HUGE ((size_t)2 << 20)

/* Like malloc (not zeroed; NULL when out of memory; free() it): buffers of
 * HOSTMEM_HUGE bytes or more start on a 2 MiB boundary, are rounded up to a
 * whole number of huge pages and are advised for huge pages. The pages are
 * made where they are first written, so a parallel fill (par_for,
 * rng_fill_uniform_par) makes them on all cores. */
void *hostmem_alloc(size_t bytes);

#endif
