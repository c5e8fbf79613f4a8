// Warp-specialized producer/consumer pipeline: row sums of a u32 matrix (wrapping).
// CTA b owns rows 32b .. 32b+31 and walks them in 64-column boxes through STAGES = 4 shared-memory
// stages. Warp 0 is the producer: one lane, chosen by elect.sync, waits until a stage is empty
// (its `empty` mbarrier, parity starting at 1 so the first pass is free), arms the stage's `full`
// mbarrier with the box bytes and issues the TMA load. Warps 1 and 2 are consumers, 16 rows each:
// they wait on `full` (parity starting at 0), add the box into per-lane partial sums, and release
// the stage with one arrive per warp on `empty` (init count = CONSUMERS). Parities flip each time
// the stage index wraps. Finally each consumer warp reduces its 16 row sums with shuffles.
// rows = 32 * gridDim.x; columns = 64 * k_tiles; row_sums[r] = sum of row r.

#include "../include/hopper.cuh"

constexpr int STAGES = 4;
constexpr int CONSUMERS = 2;                    // consumer warps
constexpr int BOX_W = 64;                       // the manifest's box = [64, 32] (u32)
constexpr int BOX_H = 32;
constexpr int ROWS_PER_WARP = BOX_H / CONSUMERS;
constexpr unsigned BOX_BYTES = BOX_W * BOX_H * 4;

extern "C" __global__ void __launch_bounds__(32 * (1 + CONSUMERS))
ws_pipeline(const __grid_constant__ TensorMap in_map, unsigned* row_sums, int k_tiles)
{
    __shared__ alignas(128) unsigned tile[STAGES][BOX_H][BOX_W];
    __shared__ alignas(8) unsigned long long full[STAGES];
    __shared__ alignas(8) unsigned long long empty[STAGES];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;

    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) {
            mbar_init(smem_u32(&full[s]), 1);            // the producer's arrive.expect_tx
            mbar_init(smem_u32(&empty[s]), CONSUMERS);   // one arrive per consumer warp
        }
        fence_mbarrier_init();
    }
    __syncthreads();

    if (warp == 0) {
        if (elect_one()) {
            for (int k = 0; k < k_tiles; ++k) {
                const int s = k % STAGES;
                const unsigned phase = (k / STAGES) & 1;
                mbar_wait(smem_u32(&empty[s]), phase ^ 1);
                mbar_arrive_expect_tx(smem_u32(&full[s]), BOX_BYTES);
                tma_load_2d(smem_u32(tile[s]), &in_map, k * BOX_W, blockIdx.x * BOX_H, smem_u32(&full[s]));
            }
        }
    } else {
        const int row0 = (warp - 1) * ROWS_PER_WARP;
        unsigned acc[ROWS_PER_WARP];
#pragma unroll
        for (int r = 0; r < ROWS_PER_WARP; ++r) acc[r] = 0;
        for (int k = 0; k < k_tiles; ++k) {
            const int s = k % STAGES;
            const unsigned phase = (k / STAGES) & 1;
            mbar_wait(smem_u32(&full[s]), phase);
#pragma unroll
            for (int r = 0; r < ROWS_PER_WARP; ++r)
                acc[r] += tile[s][row0 + r][lane] + tile[s][row0 + r][lane + 32];
            __syncwarp();   // the whole warp has read stage s
            if (lane == 0) mbar_arrive(smem_u32(&empty[s]));
        }
#pragma unroll
        for (int r = 0; r < ROWS_PER_WARP; ++r) {
            unsigned v = acc[r];
            for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
            if (lane == 0) row_sums[blockIdx.x * BOX_H + row0 + r] = v;
        }
    }
}
