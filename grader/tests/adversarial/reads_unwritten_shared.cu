/* Adversarial case: stage 3's tile kernel fills only 31 of the tile's 32
 * rows and then reads all 32, so one output column in 32 comes from
 * whatever an earlier block left in shared memory. compute-sanitizer's
 * initcheck watches global memory only, so the grader's own check must
 * catch it. What the stale words hold is up to the GPU (zeros, old values,
 * NaN patterns), so the verdict may be WRONG RESULT or NaN; either way the
 * stage fails and its speed is not timed, which is what is asserted.
 * expect: 3 speed SKIPPED
 * grade-args: --stage 3
 */
#define transpose_tiled transpose_tiled_reference
#include "../../../solutions/1-transpose/transpose.cu"
#undef transpose_tiled

__global__ void short_tile_kernel(const float *__restrict__ in, float *__restrict__ out, int rows,
                                  int cols)
{
    __shared__ float tile[TILE][TILE];
    int r0 = blockIdx.y * TILE, c0 = blockIdx.x * TILE, c = c0 + threadIdx.x;
    for (int j = threadIdx.y; j < TILE - 1; j += TILE_ROWS) /* wrong: row TILE - 1 never loaded */
        if (r0 + j < rows && c < cols)
            tile[j][threadIdx.x] = in[(size_t)(r0 + j) * cols + c];
    __syncthreads();
    int r = r0 + threadIdx.x;
    for (int j = threadIdx.y; j < TILE; j += TILE_ROWS)
        if (c0 + j < cols && r < rows)
            out[(size_t)(c0 + j) * rows + r] = tile[threadIdx.x][j];
}

extern "C" lab_status transpose_tiled(const float *d_in, float *d_out, int rows, int cols,
                                      cudaStream_t stream)
{
    dim3 grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);
    short_tile_kernel<<<grid, dim3(TILE, TILE_ROWS), 0, stream>>>(d_in, d_out, rows, cols);
    return LAB_OK;
}
