// arch: sm_90a  (ptxas advises sm_90a for .multicast::cluster; sm_90 accepts it too)
// TMA multicast in a cluster of C = 2 or 4 CTAs (manifest `cluster`, launch-time). Cluster k
// shares one 64 x 64 u32 tile (rows 64k .. 64k+63 of `in`, 16 KiB). Every CTA arms its own
// mbarrier for the whole tile, then CTA `rank` loads slice `rank` of it (64/C rows: the manifest's
// box is [64, 64/C]) with one multicast TMA load (.multicast::cluster, ctaMask = all C CTAs): the
// slice lands at the same shared-memory offset in every CTA of the cluster and each CTA's barrier
// (same offset) receives complete_tx for the bytes delivered to it. A CTA's barrier therefore
// completes after all C slices arrived, from C different issuers (the CUTLASS pattern). With
// `one_issuer` != 0, rank 0 issues all C multicast slices instead and the others only wait. Cluster barriers guard the
// start (every CTA's mbarrier is initialised before any peer's multicast can signal it) and the
// end (no CTA exits while a peer's multicast may still write into it). Each CTA writes its copy
// of the tile to out[b*4096 ...].

#include "../include/hopper.cuh"

constexpr int TILE_W = 64;
constexpr int TILE_H = 64;
constexpr unsigned TILE_BYTES = TILE_W * TILE_H * 4;

extern "C" __global__ void __launch_bounds__(128)
tma_multicast(const __grid_constant__ TensorMap in_map, uint4* out, int one_issuer)
{
    __shared__ alignas(128) uint4 tile[TILE_BYTES / 16];
    __shared__ alignas(8) unsigned long long full;
    const unsigned bar = smem_u32(&full);
    const unsigned rank = cluster_ctarank(), size = cluster_nctarank();
    const unsigned slice_rows = TILE_H / size;

    if (threadIdx.x == 0) {
        mbar_init(bar, 1);
        fence_mbarrier_init();   // visible to the cluster and to the async proxy
    }
    cluster_sync();
    if (threadIdx.x == 0) {
        mbar_arrive_expect_tx(bar, TILE_BYTES);   // the whole tile arrives here, in `size` slices
        const unsigned first = one_issuer ? 0 : rank;
        const unsigned last = one_issuer ? (rank == 0 ? size : 0) : rank + 1;
        for (unsigned slice = first; slice < last; ++slice)
            tma_load_2d_multicast(smem_u32(tile) + slice * slice_rows * TILE_W * 4, &in_map, 0,
                                  cluster_id_x() * TILE_H + slice * slice_rows, bar,
                                  (unsigned short)((1u << size) - 1));
    }
    mbar_wait(bar, 0);
    for (unsigned i = threadIdx.x; i < TILE_BYTES / 16; i += blockDim.x)
        out[(size_t)blockIdx.x * (TILE_BYTES / 16) + i] = tile[i];
    cluster_sync();
}
