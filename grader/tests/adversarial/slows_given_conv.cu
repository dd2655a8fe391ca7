/* Adversarial case (lab 6, slowed given stage): the given direct
 * convolution runs four times, and stage 1 is the given code under stage
 * 1's name. Against the submission's slowed copy it would be 4x its base;
 * against the course's copy it is 1x: caught.
 * lab: 6
 * grade-args: --stage 1
 * expect: 1 correctness PASS
 * expect: 1 speed TOO SLOW
 */
#define conv_direct conv_direct_course
#define conv_direct_tiled conv_direct_tiled_reference
#include "../../../solutions/6-conv/conv.cu"
#undef conv_direct
#undef conv_direct_tiled

extern "C" lab_status conv_direct(conv_shape l, const float *d_in, const float *d_filter,
                                  float *d_out, void *d_work, cudaStream_t stream)
{
    for (int k = 0; k < 3; k++)
        conv_direct_course(l, d_in, d_filter, d_out, d_work, stream);
    return conv_direct_course(l, d_in, d_filter, d_out, d_work, stream);
}

extern "C" lab_status conv_direct_tiled(conv_shape l, const float *d_in, const float *d_filter,
                                        float *d_out, void *d_work, cudaStream_t stream)
{
    return conv_direct_course(l, d_in, d_filter, d_out, d_work, stream);
}
