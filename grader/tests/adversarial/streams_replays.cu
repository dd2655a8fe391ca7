/* Adversarial case (lab 5, replay): the heavy stage over streams keeps the
 * outputs of the last two input sets in device buffers made in its setup,
 * keyed by three elements of x (the first, the middle, the last); when x
 * matches one of them it copies that output back instead of running the
 * kernel, after a spin on %globaltimer. The two input sets alternate, so
 * before timed calls were patched this passed everything. The test's own
 * calls pass (each set computed once per size); the checking witness's call
 * at each size loads one of the sets with 16 elements of x and of y changed
 * (the keys seldom among them), gets a stale output and finds the changed
 * elements wrong: WRONG RESULT, and the speed test (whose timed calls got
 * stale outputs too) is not graded.
 * lab: 5
 * grade-args: --stage 5
 * expect: 5 correctness WRONG RESULT
 * expect: 5 speed SKIPPED
 * expect-output: checking witness
 */
#include <string.h>

#define heavy_overlap_setup heavy_overlap_setup_reference
#define heavy_overlap_run heavy_overlap_run_reference
#define heavy_overlap_teardown heavy_overlap_teardown_reference
#include "../../../solutions/5-streams/streams.cu"
#undef heavy_overlap_setup
#undef heavy_overlap_run
#undef heavy_overlap_teardown

struct replay_state {
    void *ref;
    float *kept[2];
    unsigned key[2][3];
    int valid[2], next;
};

__global__ void spin(unsigned long long ns)
{
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    while (t - t0 < ns);
}

static void key_of(const streams_job *job, unsigned key[3])
{
    memcpy(&key[0], &job->x[0], 4);
    memcpy(&key[1], &job->x[job->n / 2], 4);
    memcpy(&key[2], &job->x[job->n - 1], 4);
}

extern "C" lab_status heavy_overlap_setup(const streams_job *job, void **state)
{
    replay_state *s = new replay_state();
    *state = s;
    for (int i = 0; i < 2; i++)
        if (cudaMalloc(&s->kept[i], job->n * sizeof(float)) != cudaSuccess)
            return LAB_ERROR;
    return heavy_overlap_setup_reference(job, &s->ref);
}

extern "C" lab_status heavy_overlap_run(const streams_job *job, void *state)
{
    replay_state *s = static_cast<replay_state *>(state);
    unsigned key[3];
    key_of(job, key);
    for (int i = 0; i < 2; i++)
        if (s->valid[i] && memcmp(key, s->key[i], sizeof key) == 0) {
            spin<<<1, 1>>>(8000000ull); /* 8 ms: just slower than everything overlapped */
            cudaMemcpy(job->out, s->kept[i], job->n * sizeof(float), cudaMemcpyDeviceToHost);
            return cudaDeviceSynchronize() == cudaSuccess ? LAB_OK : LAB_ERROR;
        }
    lab_status st = heavy_overlap_run_reference(job, s->ref);
    int i = s->next;
    s->next ^= 1;
    cudaMemcpy(s->kept[i], job->out, job->n * sizeof(float), cudaMemcpyHostToDevice);
    memcpy(s->key[i], key, sizeof key);
    s->valid[i] = 1;
    return st;
}

extern "C" void heavy_overlap_teardown(void *state)
{
    replay_state *s = static_cast<replay_state *>(state);
    if (!s)
        return;
    if (s->ref)
        heavy_overlap_teardown_reference(s->ref);
    for (int i = 0; i < 2; i++)
        cudaFree(s->kept[i]);
    delete s;
}
