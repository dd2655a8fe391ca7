/* Adversarial case (lab 3), replay: stage 6 keeps its last scan at the
 * benchmark size in __device__ memory, with a few words of the input it came
 * from (read back with small cudaMemcpy calls). When a later call's input
 * matches those words (the same input set), it copies the kept scan out
 * instead of scanning. The correctness test calls the benchmark size once
 * per input set: all scanned, PASS. Every timed call's input is patched at
 * random places, so a replayed scan is wrong from the first patched element
 * on. Graded without the timing witness (as where it cannot start): with
 * it, every timed input is new and nothing is replayed (shuffle_scan_short
 * is that case).
 * lab: 3
 * expect: 6 correctness PASS
 * expect: 6 speed WRONG RESULT
 * expect-output: kept from an earlier call
 * grade-args: --stage 6
 * grade-env: CUDA_LABS_WITNESS=0
 */
#define scan_lookback scan_lookback_reference
#include "../../../solutions/3-shuffle/shuffle.cu"
#undef scan_lookback

#define KEPT_ELEMS ((size_t)1 << 28)
#define SAMPLES 8

__device__ int kept[KEPT_ELEMS];
static int kept_key[SAMPLES], have_key;

extern "C" lab_status scan_lookback(const int *d_in, size_t n, int *d_out, void *d_work,
                                    cudaStream_t stream)
{
    if (n != KEPT_ELEMS) /* only the benchmark size is worth keeping */
        return scan_lookback_reference(d_in, n, d_out, d_work, stream);
    int key[SAMPLES], same = have_key;
    for (int k = 0; k < SAMPLES; k++) {
        cudaMemcpy(&key[k], d_in + n / SAMPLES * k, sizeof(int), cudaMemcpyDeviceToHost);
        same &= key[k] == kept_key[k];
    }
    void *d_kept = NULL;
    cudaGetSymbolAddress(&d_kept, kept);
    if (same)
        return cudaMemcpyAsync(d_out, d_kept, n * sizeof(int), cudaMemcpyDeviceToDevice,
                               stream) == cudaSuccess
                   ? LAB_OK
                   : LAB_ERROR;
    lab_status s = scan_lookback_reference(d_in, n, d_out, d_work, stream);
    cudaMemcpyAsync(d_kept, d_out, n * sizeof(int), cudaMemcpyDeviceToDevice, stream);
    for (int k = 0; k < SAMPLES; k++)
        kept_key[k] = key[k];
    have_key = 1;
    return s;
}
