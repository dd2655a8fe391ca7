/* Adversarial case: stage 4's tile kernel without its __syncthreads(): threads
 * read tile entries other warps may not have written yet. Often still correct
 * by luck; racecheck, run by --sanitize, reports the hazard.
 * grade-args: --sanitize --stage 4
 * expect-exit: 1
 * expect-output: racecheck FOUND
 * expect-output: racecheck, first report for stage 4
 */
#define transpose_padded transpose_padded_reference
#include "../../../solutions/1-transpose/transpose.cu"
#undef transpose_padded

__global__ void unsynced_kernel(const float *__restrict__ in, float *__restrict__ out, int rows,
                                int cols)
{
    __shared__ float tile[TILE][TILE + 1];
    int r0 = blockIdx.y * TILE, c0 = blockIdx.x * TILE;
    int c = c0 + threadIdx.x;
    for (int j = threadIdx.y; j < TILE; j += TILE_ROWS)
        if (r0 + j < rows && c < cols)
            tile[j][threadIdx.x] = in[(size_t)(r0 + j) * cols + c];
    /* the __syncthreads() that belongs here is missing */
    int r = r0 + threadIdx.x;
    for (int j = threadIdx.y; j < TILE; j += TILE_ROWS)
        if (c0 + j < cols && r < rows)
            out[(size_t)(c0 + j) * rows + r] = tile[threadIdx.x][j];
}

extern "C" lab_status transpose_padded(const float *d_in, float *d_out, int rows, int cols,
                                       cudaStream_t stream)
{
    dim3 block(TILE, TILE_ROWS);
    dim3 grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);
    unsynced_kernel<<<grid, block, 0, stream>>>(d_in, d_out, rows, cols);
    return LAB_OK;
}
