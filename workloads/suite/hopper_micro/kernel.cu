// Hopper microbenchmarks: clock64 deltas (timing outputs, never compared) plus a deterministic
// value that the references check.
//
// tma_latency (1 thread): step s arms an mbarrier with the box bytes, loads box s mod boxes of a
// 2D u32 tensor (row-major over the tiles_x x tiles_y box grid) with one TMA load, waits for the
// phase (parity s & 1) and adds element s mod 256 of the box to a sum. result[0] = the sum after
// warmup + iters steps, result[1] = cycles of the last `iters` steps (one load -> wait each).
//
// mbarrier_trywait (1 warp): each step, all 32 lanes arrive on an mbarrier of count 32 and wait
// (try_wait.parity) for the phase to complete. mbarrier_pingpong (2 warps): warp 0 arrives on
// `ping` and waits on `pong`, warp 1 waits on `ping` and arrives on `pong` (count 32 each): one
// step is a round trip between two warps. out = [phases completed (iters), test_wait.parity of
// the last completed parity (1), of the current phase's parity (0)]; cycles[0] = the loop.
//
// dsmem_chase (a 2-CTA cluster, 1 warp each): both CTAs copy the chase chain into shared memory,
// a cluster barrier, then CTA 0's thread 0 follows j = slots[j] through ld.shared::cluster on the
// mapa address of CTA `remote ? 1 : 0` (warmup, then iters timed steps); a second cluster barrier
// keeps CTA 1 resident until it is done. result = [final index, cycles].

#include "../include/hopper.cuh"

constexpr int BOX_W = 32;                       // tma_latency's box = [32, 8] (u32): 1 KiB
constexpr int BOX_H = 8;
constexpr unsigned BOX_ELEMS = BOX_W * BOX_H;
constexpr unsigned BOX_BYTES = BOX_ELEMS * 4;
constexpr int CHAIN = 4096;                     // dsmem_chase: u32 slots in shared memory (16 KiB)

extern "C" __global__ void __launch_bounds__(1)
tma_latency(const __grid_constant__ TensorMap in_map, unsigned long long* result, int tiles_x, int tiles_y,
            int warmup, int iters)
{
    __shared__ alignas(128) unsigned box[BOX_ELEMS];
    __shared__ alignas(8) unsigned long long full;
    const unsigned bar = smem_u32(&full);
    mbar_init(bar, 1);
    fence_mbarrier_init();
    const int tiles = tiles_x * tiles_y;
    unsigned sum = 0;
    long long t0 = clock64();
    for (int s = 0; s < warmup + iters; ++s) {
        if (s == warmup) t0 = clock64();
        const int tile = s % tiles;
        mbar_arrive_expect_tx(bar, BOX_BYTES);
        tma_load_2d(smem_u32(box), &in_map, (tile % tiles_x) * BOX_W, (tile / tiles_x) * BOX_H, bar);
        mbar_wait(bar, s & 1);
        sum += box[s % BOX_ELEMS];
    }
    const long long t1 = clock64();
    result[0] = sum;
    result[1] = (unsigned long long)(t1 - t0);
}

extern "C" __global__ void __launch_bounds__(32)
mbarrier_trywait(unsigned* out, unsigned long long* cycles, int iters)
{
    __shared__ alignas(8) unsigned long long barrier;
    const unsigned bar = smem_u32(&barrier);
    if (threadIdx.x == 0) mbar_init(bar, 32);
    __syncthreads();
    unsigned phases = 0;
    const long long t0 = clock64();
    for (int it = 0; it < iters; ++it) {
        mbar_arrive(bar);
        mbar_wait(bar, it & 1);
        ++phases;
    }
    const long long t1 = clock64();
    const unsigned last = mbar_test_wait(bar, (iters - 1) & 1), current = mbar_test_wait(bar, iters & 1);
    if (threadIdx.x == 0) {
        out[0] = phases;
        out[1] = last;
        out[2] = current;
        cycles[0] = (unsigned long long)(t1 - t0);
    }
}

extern "C" __global__ void __launch_bounds__(64)
mbarrier_pingpong(unsigned* out, unsigned long long* cycles, int iters)
{
    __shared__ alignas(8) unsigned long long ping, pong;
    const unsigned ping_bar = smem_u32(&ping), pong_bar = smem_u32(&pong);
    if (threadIdx.x == 0) {
        mbar_init(ping_bar, 32);
        mbar_init(pong_bar, 32);
    }
    __syncthreads();
    const bool first = threadIdx.x < 32;
    unsigned phases = 0;
    const long long t0 = clock64();
    for (int it = 0; it < iters; ++it) {
        if (first) {
            mbar_arrive(ping_bar);
            mbar_wait(pong_bar, it & 1);
        } else {
            mbar_wait(ping_bar, it & 1);
            mbar_arrive(pong_bar);
        }
        ++phases;
    }
    const long long t1 = clock64();
    if (threadIdx.x == 0) {   // warp 0 has seen pong complete `iters` phases
        out[0] = phases;
        out[1] = mbar_test_wait(pong_bar, (iters - 1) & 1);
        out[2] = mbar_test_wait(pong_bar, iters & 1);
        cycles[0] = (unsigned long long)(t1 - t0);
    }
}

extern "C" __global__ void __launch_bounds__(32)
dsmem_chase(const unsigned* chain, unsigned long long* result, int warmup, int iters, int remote)
{
    __shared__ unsigned slots[CHAIN];
    for (int i = threadIdx.x; i < CHAIN; i += blockDim.x) slots[i] = chain[i];
    cluster_sync();   // both CTAs run and have filled their slots
    if (cluster_ctarank() == 0 && threadIdx.x == 0) {
        const unsigned base = mapa(smem_u32(slots), remote ? 1 : 0);
        unsigned j = 0;
        for (int k = 0; k < warmup; ++k) j = ld_cluster(base + 4 * j);
        const long long t0 = clock64();
        for (int k = 0; k < iters; ++k) j = ld_cluster(base + 4 * j);
        const long long t1 = clock64();
        result[0] = j;
        result[1] = (unsigned long long)(t1 - t0);
    }
    cluster_sync();   // CTA 1's shared memory stays valid until CTA 0 is done with it
}
