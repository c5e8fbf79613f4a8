// Cooperative groups: thread_block, static tiled_partition<32/16/8/4> (shfl with width/masks),
// dynamic tiled_partition, coalesced_threads() inside divergent code (activemask + popc-based ranks),
// labeled_partition / binary_partition (match.any), cg::reduce with plus/less/greater/bit_xor
// (redux.sync on sm_80+ for 32-bit ints, shuffle trees otherwise), inclusive/exclusive_scan,
// invoke_one, grid_group::sync (grid-wide barrier through global memory atomics and fences) and
// thread_block_tile<64> with block_tile_memory (sub-block tile barriers -> bar.sync id, n).
// Compiles for sm_75+.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
namespace cg = cooperative_groups;

extern "C" __global__ void tiles_and_reduce(const int *in, const float *fin, int *out, float *fout)
{
    cg::thread_block block = cg::this_thread_block();
    int v = in[block.group_index().x * block.size() + block.thread_rank()];
    float f = fin[block.group_index().x * block.size() + block.thread_rank()];
    auto warp = cg::tiled_partition<32>(block);
    auto t16 = cg::tiled_partition<16>(block);
    auto t8 = cg::tiled_partition<8>(warp);
    auto t4 = cg::tiled_partition<4>(t8);
    int s32 = cg::reduce(warp, v, cg::plus<int>());
    int mn16 = cg::reduce(t16, v, cg::less<int>());
    int mx8 = cg::reduce(t8, v, cg::greater<int>());
    unsigned x4 = cg::reduce(t4, (unsigned)v, cg::bit_xor<unsigned>());
    float fs = cg::reduce(warp, f, cg::plus<float>());
    int incl = cg::inclusive_scan(warp, v);
    int excl = cg::exclusive_scan(t16, v, cg::bit_or<int>());
    int bc = t8.shfl(v, 3) + t16.shfl_down(v, 1) + t4.shfl_xor(v, 2) + warp.shfl_up(v, 5);
    unsigned bal = warp.ballot(v > 0);
    int any = t16.any(v == 7), all = t8.all(v >= 0);
    unsigned mt = warp.match_any(v & 3);
    t16.sync();
    block.sync();
    int *o = out + 12 * (block.group_index().x * block.size() + block.thread_rank());
    o[0] = s32; o[1] = mn16; o[2] = mx8; o[3] = (int)x4; o[4] = incl; o[5] = excl; o[6] = bc;
    o[7] = (int)bal; o[8] = any + 2 * all; o[9] = (int)mt;
    o[10] = (int)(warp.meta_group_rank() * 100 + t8.meta_group_size() * 10 + t4.thread_rank());
    o[11] = (int)block.group_dim().x;
    fout[block.group_index().x * block.size() + block.thread_rank()] = fs;
}

extern "C" __global__ void dynamic_and_coalesced(const int *in, int *out)
{
    auto block = cg::this_thread_block();
    int t = block.thread_rank();
    int v = in[t];
    cg::thread_group tile = cg::tiled_partition(block, 8);   // runtime-sized tile
    int r = tile.thread_rank();
    tile.sync();
    int res = 0;
    if (v & 1) {                                             // divergent: only odd values here
        cg::coalesced_group act = cg::coalesced_threads();
        res = act.thread_rank() + 100 * (int)act.size();
        res += act.shfl(v, 0);                               // leader's value
        res += cg::reduce(act, v, cg::plus<int>());
        cg::invoke_one(act, [&] { atomicAdd(&out[1024], 1); });
    }
    auto warp = cg::tiled_partition<32>(block);
    auto lab = cg::labeled_partition(warp, v & 3);           // match.any based
    auto bin = cg::binary_partition(warp, v > 10);
    res += 1000 * lab.thread_rank() + 10000 * (int)bin.size() + r;
    out[t] = res;
}

// Grid-wide barrier (must be launched with cudaLaunchCooperativeKernel).
extern "C" __global__ void grid_sync(int *data, int n)
{
    cg::grid_group grid = cg::this_grid();
    unsigned long long i = grid.thread_rank();
    if (i < (unsigned long long)n) data[i] += 1;
    grid.sync();
    if (i < (unsigned long long)n) data[i] += data[(i + 1) % n];
    grid.sync();
    if (grid.thread_rank() == 0) data[n] = (int)grid.num_blocks();
}

// Tiles larger than a warp: block_tile_memory scratch + named barriers for each 64-thread tile.
extern "C" __global__ void __launch_bounds__(256) big_tiles(const float *in, float *out)
{
    __shared__ cg::block_tile_memory<256> scratch;
    cg::thread_block block = cg::this_thread_block(scratch);
    auto t64 = cg::tiled_partition<64>(block);
    auto t128 = cg::tiled_partition<128>(block);
    float v = in[block.group_index().x * 256 + block.thread_rank()];
    float s = cg::reduce(t64, v, cg::plus<float>());
    t64.sync();
    float m = cg::reduce(t128, v, cg::greater<float>());
    t128.sync();
    out[block.group_index().x * 256 + block.thread_rank()] = s + m + t64.shfl(v, 63);
}
