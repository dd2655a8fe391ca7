/* pace.cuh: what a replaying case spins on to look as fast as an honest
 * stage: the GPU busy for ns nanoseconds of its global timer. */
#ifndef PACE_CUH
#define PACE_CUH

__global__ void spin(unsigned long long ns)
{
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    while (t - t0 < ns);
}

#endif
