/* Adversarial case (lab 5): stage 2 cuts the job into chunks over streams but
 * waits for each chunk before queueing the next, so nothing overlaps: correct,
 * and no faster than one stream. Its speed test must fail (on the speedup, or
 * on the overlap the trace shows). Runs once lab 5 is open.
 * lab: 5
 * expect: 2 correctness PASS
 * expect: 2 speed TOO SLOW
 * grade-args: --stage 2
 */
#define overlap_run overlap_run_reference
#include "../../../solutions/5-streams/streams.cu"
#undef overlap_run

extern "C" lab_status overlap_run(const streams_job *job, void *state)
{
    stage_state *s = static_cast<stage_state *>(state);
    int chunks = job->chunks > 0 ? job->chunks : 1;
    size_t per = (job->n + chunks - 1) / chunks;
    for (int c = 0; c < chunks; c++) {
        size_t begin = (size_t)c * per, end = begin + per < job->n ? begin + per : job->n;
        if (begin >= end)
            break;
        cudaStream_t st = s->stream[c % s->streams];
        if (!enqueue_chunk(job, s, st, begin, end) || cudaStreamSynchronize(st) != cudaSuccess)
            return LAB_ERROR; /* wrong: waits before the next chunk can start */
    }
    return LAB_OK;
}
