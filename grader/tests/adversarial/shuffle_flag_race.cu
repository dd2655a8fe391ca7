/* Adversarial case (lab 3): stage 6 keeps each tile's flag and value in two
 * separate words and publishes the flag first. A tile looking back can see
 * "prefix ready" and read a value that is not written yet (or is still the
 * aggregate): the flag and the value must travel together, in one 64-bit
 * word, or the value must be written and fenced before the flag.
 * lab: 3
 * expect: 6 correctness WRONG RESULT
 * grade-args: --stage 6
 */
#define scan_lookback scan_lookback_reference
#include "../../../solutions/3-shuffle/shuffle.cu"
#undef scan_lookback

__device__ int racy_look_back(volatile int *flag, volatile int *value, long long tile)
{
    int prefix = 0;
    for (long long p = tile - 1; p >= 0; p--) {
        int f;
        while ((f = flag[p]) == 0) {
        }
        prefix += value[p]; /* the value may not be there yet */
        if (f == 2)
            break;
    }
    return prefix;
}

__device__ void publish_flag_first(volatile int *flag, volatile int *value, long long tile, int f,
                                   int v)
{
    flag[tile] = f;
    __threadfence();
    __nanosleep(2000);
    value[tile] = v;
}

__global__ void __launch_bounds__(TILE_THREADS)
    racy_scan_kernel(const int *__restrict__ in, size_t n, int *__restrict__ out, int *flags,
                     int *values, unsigned *counter)
{
    __shared__ int prefix;
    long long tile = next_tile(counter);
    const unsigned warp = threadIdx.x >> 5;
    size_t warp_base = (size_t)tile * TILE_ITEMS + (size_t)warp * WARP_ITEMS;
    int4 v[ROUNDS];
    load_warp_items(in, n, warp_base, v);
    int tile_total;
    int in_tile = tile_warp_prefix(scan_warp_items(v), &tile_total);
    if (threadIdx.x == 0) {
        int before = 0;
        if (tile > 0) {
            publish_flag_first(flags, values, tile, 1, tile_total);
            before = racy_look_back(flags, values, tile);
        }
        publish_flag_first(flags, values, tile, 2, before + tile_total);
        prefix = before;
    }
    __syncthreads();
    add_to_items(v, in_tile + prefix);
    if (warp_base < n)
        store_warp_items(out, n, warp_base, v);
}

extern "C" lab_status scan_lookback(const int *d_in, size_t n, int *d_out, void *d_work,
                                    cudaStream_t stream)
{
    size_t tiles = (n + TILE_ITEMS - 1) / TILE_ITEMS;
    int *flags = (int *)d_work, *values = flags + tiles;
    unsigned *counter = (unsigned *)(values + tiles);
    cudaMemsetAsync(d_work, 0, (2 * tiles + 1) * sizeof(int), stream);
    racy_scan_kernel<<<(unsigned)tiles, TILE_THREADS, 0, stream>>>(d_in, n, d_out, flags, values,
                                                                   counter);
    return LAB_OK;
}
