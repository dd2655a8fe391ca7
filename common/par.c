/* par.c: see par.h. */
#define _GNU_SOURCE
#include "par.h"

#include <pthread.h>
#include <string.h>
#include <unistd.h>

#define PAR_MAX_THREADS 16

int par_threads(void)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    return cpus < 1 ? 1 : cpus > PAR_MAX_THREADS ? PAR_MAX_THREADS : (int)cpus;
}

typedef struct job {
    par_fn fn;
    void *ctx;
    size_t begin, end;
    int result;
} job;

static void *run_job(void *arg)
{
    job *j = arg;
    j->result = j->begin < j->end ? j->fn(j->ctx, j->begin, j->end) : 0;
    return NULL;
}

int par_for(size_t n, size_t grain, par_fn fn, void *ctx)
{
    if (grain == 0)
        grain = 1;
    size_t grains = (n + grain - 1) / grain;
    int threads = par_threads();
    if ((size_t)threads > grains)
        threads = (int)grains;
    if (threads <= 1)
        return n ? fn(ctx, 0, n) : 0;
    job jobs[PAR_MAX_THREADS];
    pthread_t tid[PAR_MAX_THREADS];
    int started[PAR_MAX_THREADS] = {0};
    for (int t = 0; t < threads; t++) {
        size_t g0 = grains * (size_t)t / (size_t)threads, g1 = grains * (size_t)(t + 1) / (size_t)threads;
        size_t b = g0 * grain, e = g1 * grain < n ? g1 * grain : n;
        jobs[t] = (job){fn, ctx, b, e, 0};
        if (t > 0) /* the caller takes the first run itself */
            started[t] = pthread_create(&tid[t], NULL, run_job, &jobs[t]) == 0;
    }
    run_job(&jobs[0]);
    int result = jobs[0].result;
    for (int t = 1; t < threads; t++) {
        if (started[t])
            pthread_join(tid[t], NULL);
        else
            run_job(&jobs[t]); /* no thread to be had: do it here */
        result |= jobs[t].result;
    }
    return result;
}

typedef struct mem_job {
    unsigned char *dst;
    const unsigned char *src;
    int c;
} mem_job;

static int copy_slice(void *ctx, size_t b, size_t e)
{
    mem_job *m = ctx;
    memcpy(m->dst + b, m->src + b, e - b);
    return 0;
}

static int set_slice(void *ctx, size_t b, size_t e)
{
    mem_job *m = ctx;
    memset(m->dst + b, m->c, e - b);
    return 0;
}

#define MEM_GRAIN ((size_t)4 << 20) /* bytes: below this one thread does it */

void par_memcpy(void *dst, const void *src, size_t bytes)
{
    mem_job m = {dst, src, 0};
    par_for(bytes, MEM_GRAIN, copy_slice, &m);
}

void par_memset(void *dst, int c, size_t bytes)
{
    mem_job m = {dst, NULL, c};
    par_for(bytes, MEM_GRAIN, set_slice, &m);
}
