/* Adversarial case (lab 6, replay): stage 1 keeps its output of the last
 * layer in a __device__ array and, when called again with the same
 * pointers and shape, copies it out instead of convolving, spinning on
 * %globaltimer to look like a tiled convolution. The correctness test calls
 * each layer once with its own input, then once more with the checking
 * witness's fresh input and filter, on the same buffers: the kept output is
 * stale there (as in every timed call): caught in the correctness test.
 * lab: 6
 * grade-args: --stage 1
 * expect: 1 correctness WRONG RESULT
 * expect: 1 speed SKIPPED
 * expect-output: checking witness
 */
#define conv_direct_tiled conv_direct_tiled_reference
#include "../../../solutions/6-conv/conv.cu"
#undef conv_direct_tiled

#define MAX_OUT (32 * 128 * 28 * 28) /* the timed layer's output */
__device__ float kept[MAX_OUT];

__global__ void spin(unsigned long long ns)
{
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    while (t - t0 < ns);
}

extern "C" lab_status conv_direct_tiled(conv_shape l, const float *d_in, const float *d_filter,
                                        float *d_out, void *d_work, cudaStream_t stream)
{
    static const float *last_in, *last_filter;
    static int last_c, last_k, last_h;
    size_t outs = (size_t)l.N * l.K * ((l.H + 2 * l.pad - l.R) / l.stride + 1) *
                  ((l.W + 2 * l.pad - l.S) / l.stride + 1);
    float *k_ptr;
    cudaGetSymbolAddress((void **)&k_ptr, kept);
    if (outs > MAX_OUT)
        return conv_direct_tiled_reference(l, d_in, d_filter, d_out, d_work, stream);
    if (d_in == last_in && d_filter == last_filter && l.C == last_c && l.K == last_k &&
        l.H == last_h) {
        spin<<<1, 1, 0, stream>>>(40000000ull); /* 40 ms: about a tiled stage's time */
        cudaMemcpyAsync(d_out, k_ptr, outs * sizeof(float), cudaMemcpyDeviceToDevice, stream);
        return LAB_OK;
    }
    lab_status st = conv_direct_tiled_reference(l, d_in, d_filter, d_out, d_work, stream);
    cudaMemcpyAsync(k_ptr, d_out, outs * sizeof(float), cudaMemcpyDeviceToDevice, stream);
    last_in = d_in, last_filter = d_filter, last_c = l.C, last_k = l.K, last_h = l.H;
    return st;
}
