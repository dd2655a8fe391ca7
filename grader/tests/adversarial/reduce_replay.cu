/* Adversarial case (lab 2), replay: stage 7 keeps the sum of each input set
 * it has seen at a size in __device__ memory, keyed by n and a few input
 * words. When called on a matching input it writes the kept sum and spins on
 * %globaltimer for about the time a good reduction takes at that size, so
 * it looks fast but believable. Every correctness call is a new input, so
 * it passes; every timed call's input is patched, moving the sum far beyond
 * the tolerance, so a replayed sum is wrong. Graded without the timing
 * witness (as where it cannot start): with it, every timed input is new, no
 * key ever matches and nothing is replayed (reduce_stale is that case).
 * lab: 2
 * expect: 7 correctness PASS
 * expect: 7 speed WRONG RESULT
 * expect-output: kept from an earlier call
 * grade-args: --stage 7
 * grade-env: CUDA_LABS_WITNESS=0
 */
#define reduce_many reduce_many_reference
#include "../../../solutions/2-reduce/reduce.cu"
#undef reduce_many

#define SLOTS 4
#define SAMPLES 8

struct slot {
    unsigned long long n;
    unsigned key[SAMPLES];
    float sum;
    int used;
};
__device__ slot slots[SLOTS];
__device__ int hit; /* the slot replayed by this call, or -1 */

__device__ unsigned sample(const float *in, size_t n, int k)
{
    return __float_as_uint(in[n / SAMPLES * k]);
}

__device__ unsigned long long now_ns()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* One thread: a matching slot's sum goes out after a believable wait. */
__global__ void replay(const float *in, size_t n, float *out)
{
    hit = -1;
    for (int s = 0; s < SLOTS; s++) {
        bool same = slots[s].used && slots[s].n == n;
        for (int k = 0; k < SAMPLES && same; k++)
            same = slots[s].key[k] == sample(in, n, k);
        if (same) {
            hit = s;
            unsigned long long until = now_ns() + (unsigned long long)(n * 4 / 3800); /* 3.8 TB/s */
            while (now_ns() < until) {
            }
            out[0] = slots[s].sum;
            return;
        }
    }
}

__global__ void clear_hit()
{
    hit = -1;
}

/* The sum was computed (no hit): keep it in a free slot, unless this input
 * is kept already. */
__global__ void keep(const float *in, size_t n, const float *out)
{
    if (hit >= 0)
        return;
    for (int t = 0; t < SLOTS; t++) {
        bool same = slots[t].used && slots[t].n == n;
        for (int k = 0; k < SAMPLES && same; k++)
            same = slots[t].key[k] == sample(in, n, k);
        if (same)
            return;
    }
    int s = 0;
    while (s < SLOTS - 1 && slots[s].used)
        s++;
    slots[s].n = n;
    for (int k = 0; k < SAMPLES; k++)
        slots[s].key[k] = sample(in, n, k);
    slots[s].sum = out[0];
    slots[s].used = 1;
}

/* On a miss: the sum, as block sums added atomically into out[0]. */
__global__ void zero_on_miss(float *out)
{
    if (hit < 0)
        out[0] = 0.0f;
}

__global__ void sum_on_miss(const float *in, size_t n, float *out)
{
    __shared__ float part[256];
    if (hit >= 0)
        return;
    float acc = 0.0f;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        acc += in[i];
    part[threadIdx.x] = acc;
    __syncthreads();
    for (int s = 128; s > 0; s /= 2) {
        if (threadIdx.x < s)
            part[threadIdx.x] += part[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        atomicAdd(out, part[0]);
}

/* The host cannot see a hit: every other call at the benchmark size leaves
 * the decision to the GPU. */
extern "C" lab_status reduce_many(const float *d_in, size_t n, float *d_out, float *d_work,
                                  cudaStream_t stream)
{
    static int calls;
    if (n == ((size_t)1 << 28) && calls++ % 2 == 1) {
        replay<<<1, 1, 0, stream>>>(d_in, n, d_out);
        zero_on_miss<<<1, 1, 0, stream>>>(d_out);
        sum_on_miss<<<1024, 256, 0, stream>>>(d_in, n, d_out);
        keep<<<1, 1, 0, stream>>>(d_in, n, d_out);
        return LAB_OK;
    }
    lab_status s = reduce_many_reference(d_in, n, d_out, d_work, stream);
    if (n == ((size_t)1 << 28)) {
        clear_hit<<<1, 1, 0, stream>>>();
        keep<<<1, 1, 0, stream>>>(d_in, n, d_out);
    }
    return s;
}
