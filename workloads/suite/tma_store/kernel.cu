// TMA store epilogue. CTA (bx, by) computes boxes bx, by*tiles_per_cta .. +tiles_per_cta-1 of
// out = in*a + b (u32, wrapping) in shared memory, alternating between two buffers, and stores each
// box with one TMA store from thread 0: every thread fences its generic-proxy shared-memory writes
// against the async proxy (fence.proxy.async.shared::cta), a block barrier gathers them, then
// cp.async.bulk.tensor.2d.global.shared::cta.bulk_group and cp.async.bulk.commit_group. Before a
// buffer is rewritten its store from two boxes ago must have finished reading it:
// cp.async.bulk.wait_group.read 1 (at most the newest group still pending). At the end thread 0
// waits for all stores to complete (cp.async.bulk.wait_group 0) before the CTA exits.
// `in` is the box-padded source, gridDim.x * 64 columns; the tensor map describes `out`: box
// elements past its extent are not written (TMA stores skip out-of-bounds elements).

#include "../include/hopper.cuh"

constexpr int BOX_W = 64;                       // the manifest's box = [64, 32] (u32)
constexpr int BOX_H = 32;

extern "C" __global__ void __launch_bounds__(128)
tma_store(const __grid_constant__ TensorMap out_map, const unsigned* in, unsigned a, unsigned b, int tiles_per_cta)
{
    __shared__ alignas(128) unsigned box[2][BOX_H * BOX_W];
    const int bx = blockIdx.x;
    const int by0 = blockIdx.y * tiles_per_cta;
    const unsigned in_w = gridDim.x * BOX_W;

    for (int t = 0; t < tiles_per_cta; ++t) {
        const int s = t & 1;
        if (threadIdx.x == 0 && t >= 2) bulk_wait_group_read<1>();   // box t-2's store has read box[s]
        __syncthreads();
        for (int i = threadIdx.x; i < BOX_H * BOX_W; i += blockDim.x) {
            const int r = i / BOX_W, c = i % BOX_W;
            box[s][i] = in[(size_t)((by0 + t) * BOX_H + r) * in_w + bx * BOX_W + c] * a + b;
        }
        fence_proxy_async_shared();   // this thread's writes are visible to the TMA (async proxy)
        __syncthreads();
        if (threadIdx.x == 0) {
            tma_store_2d(&out_map, bx * BOX_W, (by0 + t) * BOX_H, smem_u32(box[s]));
            bulk_commit_group();
        }
    }
    if (threadIdx.x == 0) bulk_wait_group<0>();   // every store has completed before the CTA exits
}
