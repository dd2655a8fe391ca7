/* Adversarial case (lab 3): stage 4 scans whole tiles of 4096 elements where
 * each segment of 1024 must start again from zero.
 * lab: 3
 * expect: 4 correctness WRONG RESULT
 * expect-output: starts again from zero
 * grade-args: --stage 4
 */
#define scan_block scan_block_reference
#include "../../../solutions/3-shuffle/shuffle.cu"
#undef scan_block

extern "C" lab_status scan_block(const int *d_in, size_t n, int *d_out, void *d_work,
                                 cudaStream_t stream)
{
    (void)d_work;
    size_t tiles = (n + TILE_ITEMS - 1) / TILE_ITEMS;
    for (size_t t = 0; t < tiles; t += 65535) {
        size_t count = tiles - t < 65535 ? tiles - t : 65535;
        size_t first = t * TILE_ITEMS, len = n - first;
        if (len > count * TILE_ITEMS)
            len = count * TILE_ITEMS;
        tile_scan_kernel<<<(unsigned)count, TILE_THREADS, 0, stream>>>(d_in + first, len,
                                                                       d_out + first, nullptr);
    }
    return LAB_OK;
}
