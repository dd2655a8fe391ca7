/* Adversarial case (lab 2): stage 7's block sums come from CUB's
 * AgentReduce (the per-block part of cub::DeviceReduce: vectorised loads,
 * the block reduction, the even share of tiles) inside a kernel with the
 * student's name, with the header reached through cub/block/.. so that the
 * include line does not read "cub/agent". The line table names the
 * header's directory (nvcc resolves the ".."; the grader would too):
 * rejected before anything runs.
 * lab: 2
 * needs-gpu: no
 * expect-exit: 1
 * expect-output: REJECTED: its GPU code was compiled in part from
 * expect-output: cub/agent
 * expect-output: CUB's device-wide algorithms
 */
#define reduce_many reduce_many_reference
#include "../../../solutions/2-reduce/reduce.cu"
#undef reduce_many

#include <cub/block/../agent/agent_reduce.cuh>

namespace {
constexpr int AGENT_THREADS = 256, AGENT_ITEMS = 16;
using Policy = cub::AgentReducePolicy<AGENT_THREADS, AGENT_ITEMS, float, 4, cub::BLOCK_REDUCE_WARP_REDUCTIONS,
                                      cub::LOAD_LDG>;
using Agent = cub::detail::reduce::AgentReduce<Policy, const float *, float *, int, ::cuda::std::plus<>, float>;
} // namespace

/* Block b sums [b * per_block, min(n, (b + 1) * per_block)). */
__global__ void __launch_bounds__(AGENT_THREADS) my_block_sums(const float *in, int n, int per_block, float *sums)
{
    __shared__ typename Agent::TempStorage tmp;
    int begin = blockIdx.x * per_block, end = min(n, begin + per_block);
    float s = Agent(tmp, in, ::cuda::std::plus<>{}).ConsumeRange(begin, end);
    if (threadIdx.x == 0)
        sums[blockIdx.x] = s;
}

extern "C" lab_status reduce_many(const float *d_in, size_t n, float *d_out, float *d_work,
                                  cudaStream_t stream)
{
    const int tile = AGENT_THREADS * AGENT_ITEMS;
    int blocks = (int)((n + tile - 1) / tile);
    if (blocks <= 1) {
        my_block_sums<<<1, AGENT_THREADS, 0, stream>>>(d_in, (int)n, (int)n, d_out);
        return LAB_OK;
    }
    my_block_sums<<<blocks, AGENT_THREADS, 0, stream>>>(d_in, (int)n, tile, d_work);
    my_block_sums<<<1, AGENT_THREADS, 0, stream>>>(d_work, blocks, blocks, d_out);
    return LAB_OK;
}
