/* Adversarial case (lab 5, slowed given stage): the given heavy job on one
 * stream (stage 4) runs twice per call, and stage 5 is stage 4's code under
 * stage 5's names. Against the submission's slowed copy stage 5 would be
 * 2x its base and pass the 1.3x; against the course's copy it is 1x. Its
 * overlap check (none of the copies overlap) catches it first, so this case
 * mostly holds lab 5's mix of the course's stage 4 (setup, run, teardown)
 * beside the submission's stage 5 in one test.
 * lab: 5
 * grade-args: --stage 5
 * expect: 5 correctness PASS
 * expect: 5 speed TOO SLOW
 */
#define heavy_serial_run heavy_serial_run_course
#define heavy_overlap_setup heavy_overlap_setup_reference
#define heavy_overlap_run heavy_overlap_run_reference
#define heavy_overlap_teardown heavy_overlap_teardown_reference
#include "../../../solutions/5-streams/streams.cu"
#undef heavy_serial_run
#undef heavy_overlap_setup
#undef heavy_overlap_run
#undef heavy_overlap_teardown

extern "C" lab_status heavy_serial_run(const streams_job *job, void *state)
{
    lab_status s = heavy_serial_run_course(job, state);
    return s == LAB_OK ? heavy_serial_run_course(job, state) : s;
}

extern "C" lab_status heavy_overlap_setup(const streams_job *job, void **state)
{
    return heavy_serial_setup(job, state);
}

extern "C" lab_status heavy_overlap_run(const streams_job *job, void *state)
{
    return heavy_serial_run_course(job, state);
}

extern "C" void heavy_overlap_teardown(void *state)
{
    heavy_serial_teardown(state);
}
