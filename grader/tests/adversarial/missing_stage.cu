/* Adversarial case: a library that lost a stage function (here stage 3 was
 * made static, so the grader cannot find it). The grader must refuse it with
 * one clear line before touching the GPU.
 * needs-gpu: no
 * expect-exit: 1
 * expect-output: has no function transpose_tiled() (stage 3)
 */
#define transpose_tiled transpose_tiled_hidden
#include "../../../solutions/1-transpose/transpose.cu"
