/* Adversarial case (lab 2, slowed given stage): the given one-block sum
 * runs four times, and stage 1 is the given one-block code under stage 1's
 * name. Timed against the submission's copy of stage 0, stage 1 would be
 * 4x its base and pass the 3x; the grader times the course's copy of the
 * given stages, so stage 1 is 1x: caught.
 * lab: 2
 * grade-args: --stage 1
 * expect: 1 correctness PASS
 * expect: 1 speed TOO SLOW
 */
#define reduce_one_block reduce_one_block_course
#define reduce_interleaved reduce_interleaved_reference
#include "../../../solutions/2-reduce/reduce.cu"
#undef reduce_one_block
#undef reduce_interleaved

extern "C" lab_status reduce_one_block(const float *d_in, size_t n, float *d_out, float *d_work,
                                       cudaStream_t stream)
{
    for (int k = 0; k < 3; k++)
        reduce_one_block_course(d_in, n, d_out, d_work, stream);
    return reduce_one_block_course(d_in, n, d_out, d_work, stream);
}

extern "C" lab_status reduce_interleaved(const float *d_in, size_t n, float *d_out, float *d_work,
                                         cudaStream_t stream)
{
    return reduce_one_block_course(d_in, n, d_out, d_work, stream);
}
