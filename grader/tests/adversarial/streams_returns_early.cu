/* Adversarial case (lab 5): stage 1 queues its copies and kernel and returns
 * without waiting for the stream. Its results do arrive, a little later, so
 * the grader must look at out the moment run returns. Runs once lab 5 is open.
 * lab: 5
 * expect: 1 correctness NOT WRITTEN
 * expect-output: run returned before out was complete
 * grade-args: --stage 1
 */
#define pinned_run pinned_run_reference
#include "../../../solutions/5-streams/streams.cu"
#undef pinned_run

extern "C" lab_status pinned_run(const streams_job *job, void *state)
{
    stage_state *s = static_cast<stage_state *>(state);
    return enqueue_chunk(job, s, s->stream[0], 0, job->n) ? LAB_OK : LAB_ERROR; /* no wait */
}
