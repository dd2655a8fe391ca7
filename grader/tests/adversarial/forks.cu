/* Adversarial case: stage 1 forks a helper process. Rejected.
 * needs-gpu: no
 * expect-exit: 1
 * expect-output: REJECTED: it calls fork()
 */
#include <unistd.h>

#define transpose_naive_read transpose_naive_read_reference
#include "../../../solutions/1-transpose/transpose.cu"
#undef transpose_naive_read

extern "C" lab_status transpose_naive_read(const float *d_in, float *d_out, int rows, int cols,
                                           cudaStream_t stream)
{
    if (fork() == 0)
        _exit(0);
    return transpose_naive_read_reference(d_in, d_out, rows, cols, stream);
}
