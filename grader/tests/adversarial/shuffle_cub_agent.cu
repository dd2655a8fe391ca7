/* Adversarial case (lab 3): stage 6's single-pass scan is CUB's own, called
 * from two kernels with names of the student's: cub::ScanTileState (the
 * look-back descriptors) and cub::detail::scan::AgentScan (load, block scan,
 * decoupled look-back, store), the whole body of cub::DeviceScanKernel. CUB's
 * device code is force-inlined, so no symbol names CUB, and the kernels'
 * names (my_scan_init, my_scan_tiles) are the student's. The line table that
 * make's -lineinfo puts in the GPU code still names cub/agent/agent_scan.cuh:
 * rejected before anything runs.
 * lab: 3
 * needs-gpu: no
 * expect-exit: 1
 * expect-output: REJECTED: its GPU code was compiled in part from
 * expect-output: cub/agent
 * expect-output: CUB's device-wide algorithms
 */
#define scan_lookback scan_lookback_reference
#include "../../../solutions/3-shuffle/shuffle.cu"
#undef scan_lookback

#include <cub/agent/agent_scan.cuh>

namespace {
using Policy = cub::AgentScanPolicy<128, 15, int, cub::BLOCK_LOAD_WARP_TRANSPOSE, cub::LOAD_DEFAULT,
                                    cub::BLOCK_STORE_WARP_TRANSPOSE, cub::BLOCK_SCAN_WARP_SCANS>;
using Tiles = cub::ScanTileState<int>;
using Agent = cub::detail::scan::AgentScan<Policy, const int *, int *, ::cuda::std::plus<>,
                                           cub::NullType, int, int>;
constexpr int AGENT_TILE_ITEMS = 128 * 15;
} // namespace

__global__ void my_scan_init(Tiles t, int tiles)
{
    t.InitializeStatus(tiles);
}

__global__ void __launch_bounds__(128) my_scan_tiles(const int *in, int *out, Tiles t, int n)
{
    __shared__ typename Agent::TempStorage tmp;
    Agent(tmp, in, out, ::cuda::std::plus<>{}, cub::NullType{}).ConsumeRange(n, t, 0);
}

extern "C" lab_status scan_lookback(const int *d_in, size_t n, int *d_out, void *d_work,
                                    cudaStream_t stream)
{
    int tiles = (int)((n + AGENT_TILE_ITEMS - 1) / AGENT_TILE_ITEMS);
    Tiles t;
    t.Init(tiles, d_work, 0);
    my_scan_init<<<(tiles + 127) / 128, 128, 0, stream>>>(t, tiles);
    my_scan_tiles<<<tiles, 128, 0, stream>>>(d_in, d_out, t, (int)n);
    return LAB_OK;
}
