/* Adversarial case: stage 1 loads another library at run time (here to find
 * the real cudaEventElapsedTime). Rejected.
 * needs-gpu: no
 * expect-exit: 1
 * expect-output: REJECTED: it calls dlopen()
 */
#include <dlfcn.h>

#define transpose_naive_read transpose_naive_read_reference
#include "../../../solutions/1-transpose/transpose.cu"
#undef transpose_naive_read

extern "C" lab_status transpose_naive_read(const float *d_in, float *d_out, int rows, int cols,
                                           cudaStream_t stream)
{
    void *h = dlopen("libcudart.so", RTLD_NOW);
    (void)h;
    return transpose_naive_read_reference(d_in, d_out, rows, cols, stream);
}
