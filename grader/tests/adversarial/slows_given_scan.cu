/* Adversarial case (lab 3, slowed given stage): the given one-block scan
 * runs four times, and stage 5 (multi-pass scan, measured against stage 0)
 * is the given one-block scan under stage 5's name. Against the
 * submission's slowed copy it would look 4x faster; against the course's
 * copy it is 1x: caught.
 * lab: 3
 * grade-args: --stage 5
 * expect: 5 correctness PASS
 * expect: 5 speed TOO SLOW
 */
#define scan_one_block scan_one_block_course
#define scan_multipass scan_multipass_reference
#include "../../../solutions/3-shuffle/shuffle.cu"
#undef scan_one_block
#undef scan_multipass

extern "C" lab_status scan_one_block(const int *d_in, size_t n, int *d_out, void *d_work,
                                     cudaStream_t stream)
{
    for (int k = 0; k < 3; k++)
        scan_one_block_course(d_in, n, d_out, d_work, stream);
    return scan_one_block_course(d_in, n, d_out, d_work, stream);
}

extern "C" lab_status scan_multipass(const int *d_in, size_t n, int *d_out, void *d_work,
                                     cudaStream_t stream)
{
    return scan_one_block_course(d_in, n, d_out, d_work, stream);
}
