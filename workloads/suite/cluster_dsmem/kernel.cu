// Distributed shared memory in clusters of 4 CTAs (compile-time: __cluster_dims__(4, 1, 1), so the
// PTX carries .reqnctapercluster). CTA b owns slice b of `in` (N = 1024 u32). Each CTA copies its
// slice into shared memory, then a cluster barrier (barrier.cluster.arrive.release +
// wait.acquire) guarantees every CTA of the cluster is running and initialised. Through mapa
// addresses each thread then reads the next CTA's slice (ld.shared::cluster, rank + 1 mod 4),
// writes its own values into the next CTA's `theirs` array (st.shared::cluster), and adds its
// values into a counter in rank 0 (red.shared::cluster.add.u32). A second cluster barrier makes
// the remote writes visible, after which no CTA touches another's shared memory, so they may exit.
// pull[b] = slice of rank+1, push[b] = slice of rank-1 (what it wrote into us), sums[cluster] =
// wrapping sum of the cluster's four slices.

#include "../include/hopper.cuh"

constexpr int N = 1024;

extern "C" __global__ void __cluster_dims__(4, 1, 1) __launch_bounds__(256)
cluster_dsmem(const unsigned* in, unsigned* pull, unsigned* push, unsigned* sums)
{
    __shared__ unsigned mine[N];
    __shared__ unsigned theirs[N];
    __shared__ unsigned total;
    const unsigned rank = cluster_ctarank(), size = cluster_nctarank();
    const unsigned next = (rank + 1) % size;
    const size_t base = (size_t)blockIdx.x * N;

    if (threadIdx.x == 0) total = 0;
    for (int i = threadIdx.x; i < N; i += blockDim.x) mine[i] = in[base + i];
    cluster_sync();   // all CTAs of the cluster run and have filled `mine` and zeroed `total`

    const unsigned next_mine = mapa(smem_u32(mine), next);
    const unsigned next_theirs = mapa(smem_u32(theirs), next);
    const unsigned total0 = mapa(smem_u32(&total), 0);
    unsigned local = 0;
    for (int i = threadIdx.x; i < N; i += blockDim.x) {
        const unsigned v = mine[i];
        pull[base + i] = ld_cluster(next_mine + 4 * i);
        st_cluster(next_theirs + 4 * i, v);
        local += v;
    }
    red_add_cluster(total0, local);
    cluster_sync();   // remote stores and additions are done and visible

    for (int i = threadIdx.x; i < N; i += blockDim.x) push[base + i] = theirs[i];
    if (rank == 0 && threadIdx.x == 0) sums[cluster_id_x()] = total;
}
