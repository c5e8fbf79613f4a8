// TMA + mbarrier double-buffered 2D copy. The tensor map describes `in` (u32, any 2D extent);
// CTA (bx, by) walks the column of boxes bx, box rows by*tiles_per_cta .. +tiles_per_cta-1,
// through two shared-memory stages with one mbarrier each: thread 0 arms the stage's barrier
// with the full box bytes (mbarrier.arrive.expect_tx) and issues the TMA load
// (cp.async.bulk.tensor.2d ... mbarrier::complete_tx::bytes); every thread waits on the
// barrier's phase parity (mbarrier.try_wait.parity), copies the box to `out`, and after a block
// barrier thread 0 refills the stage with the box two steps ahead. `out` is the box-padded image
// (gridDim.x * 64 columns): boxes reaching past the tensor bring TMA's zero fill with them, and
// the transaction count is still the full box (8 KiB), as the PTX ISA specifies.

#include "../include/hopper.cuh"

constexpr int BOX_W = 64;                       // the manifest's box = [64, 32] (u32)
constexpr int BOX_H = 32;
constexpr unsigned BOX_BYTES = BOX_W * BOX_H * 4;

extern "C" __global__ void __launch_bounds__(128)
tma_copy_double(const __grid_constant__ TensorMap in_map, unsigned* out, int tiles_per_cta)
{
    __shared__ alignas(128) uint4 stage[2][BOX_BYTES / 16];
    __shared__ alignas(8) unsigned long long full[2];
    const int bx = blockIdx.x;
    const int by0 = blockIdx.y * tiles_per_cta;
    const unsigned out_w = gridDim.x * BOX_W;

    if (threadIdx.x == 0) {
        mbar_init(smem_u32(&full[0]), 1);
        mbar_init(smem_u32(&full[1]), 1);
        fence_mbarrier_init();
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int s = 0; s < 2 && s < tiles_per_cta; ++s) {
            mbar_arrive_expect_tx(smem_u32(&full[s]), BOX_BYTES);
            tma_load_2d(smem_u32(stage[s]), &in_map, bx * BOX_W, (by0 + s) * BOX_H, smem_u32(&full[s]));
        }
    }
    for (int t = 0; t < tiles_per_cta; ++t) {
        const int s = t & 1;
        mbar_wait(smem_u32(&full[s]), (t >> 1) & 1);
        for (int i = threadIdx.x; i < (int)(BOX_BYTES / 16); i += blockDim.x) {
            const int r = i / (BOX_W / 4), c = i % (BOX_W / 4);
            uint4* row = (uint4*)(out + (size_t)((by0 + t) * BOX_H + r) * out_w + bx * BOX_W);
            row[c] = stage[s][i];
        }
        __syncthreads();   // every thread has read stage s before it is refilled
        if (threadIdx.x == 0 && t + 2 < tiles_per_cta) {
            mbar_arrive_expect_tx(smem_u32(&full[s]), BOX_BYTES);
            tma_load_2d(smem_u32(stage[s]), &in_map, bx * BOX_W, (by0 + t + 2) * BOX_H, smem_u32(&full[s]));
        }
    }
    if (threadIdx.x == 0) {   // every load has completed (all waited above): retire the barriers
        mbar_inval(smem_u32(&full[0]));
        mbar_inval(smem_u32(&full[1]));
    }
}
