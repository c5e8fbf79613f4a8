// Thread-block clusters and distributed shared memory (sm_90+): __cluster_dims__ (-> .explicitcluster,
// .reqnctapercluster), __launch_bounds__ with a max-cluster-size third argument (-> .maxclusterrank),
// cg::this_cluster(): sync (barrier.cluster.arrive/wait), block_rank, num_blocks, map_shared_rank
// (-> mapa), DSMEM loads/stores/atomics through generic and shared::cluster addresses; and the same in
// inline PTX: mapa.shared::cluster, ld/st/atom/red .shared::cluster, getctarank, barrier.cluster.arrive
// .release/.relaxed + wait.acquire, fence.acq_rel.cluster, and the cluster special registers
// (%cluster_ctarank, %cluster_nctarank, %clusterid, %nclusterid, %cluster_ctaid, %cluster_nctaid,
// %is_explicit_cluster).
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__device__ __forceinline__ unsigned smem_u32(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }

// Each CTA of a 2-CTA cluster histograms half the input into its own smem; then CTA 0 adds the
// partner's bins through DSMEM.
extern "C" __global__ void __cluster_dims__(2, 1, 1) cluster_histogram(const int *in, int n, int *bins)
{
    __shared__ int h[64];
    cg::cluster_group cluster = cg::this_cluster();
    unsigned rank = cluster.block_rank();
    for (int i = threadIdx.x; i < 64; i += blockDim.x) h[i] = 0;
    cluster.sync();
    int per = n / (int)cluster.num_blocks();
    for (int i = threadIdx.x; i < per; i += blockDim.x) atomicAdd(&h[in[rank * per + i] & 63], 1);
    cluster.sync();
    if (rank == 0) {
        int *remote = cluster.map_shared_rank(h, 1);            // generic address into CTA 1's smem
        for (int i = threadIdx.x; i < 64; i += blockDim.x) bins[blockIdx.x / 2 * 64 + i] = h[i] + remote[i];
        atomicAdd(&remote[0], 0);                               // DSMEM atomic through a generic pointer
    }
    cluster.sync();                                             // keep CTA 1's smem alive until read
}

// Cluster shape chosen at launch time (cudaLaunchKernelEx with a cluster attribute);
// at most 4 CTAs per cluster.
extern "C" __global__ void __launch_bounds__(128, 1, 4) cluster_ring(float *out)
{
    __shared__ float v[128];
    auto cluster = cg::this_cluster();
    unsigned r = cluster.block_rank(), nb = cluster.num_blocks();
    v[threadIdx.x] = (float)(r * 1000 + threadIdx.x);
    cluster.sync();
    float *next = cluster.map_shared_rank(v, (r + 1) % nb);
    float got = next[threadIdx.x];
    dim3 cid = cluster.block_index();
    dim3 cdim = cluster.dim_blocks();
    cluster.sync();
    out[blockIdx.x * 128 + threadIdx.x] = got + cid.x + cdim.x * 0.5f + cluster.thread_rank();
}

extern "C" __global__ void __cluster_dims__(4, 1, 1) cluster_inline_ptx(unsigned *out)
{
    __shared__ unsigned slot[4];
    __shared__ unsigned counter;
    unsigned ctarank, nctarank, clusterid_x, nclusterid_x, cctaid_x, cnctaid_y, explicit_cluster;
    asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(ctarank));
    asm("mov.u32 %0, %%cluster_nctarank;" : "=r"(nctarank));
    asm("mov.u32 %0, %%clusterid.x;" : "=r"(clusterid_x));
    asm("mov.u32 %0, %%nclusterid.x;" : "=r"(nclusterid_x));
    asm("mov.u32 %0, %%cluster_ctaid.x;" : "=r"(cctaid_x));
    asm("mov.u32 %0, %%cluster_nctaid.y;" : "=r"(cnctaid_y));
    asm("{\n\t.reg .pred p;\n\tmov.pred p, %%is_explicit_cluster;\n\tselp.u32 %0, 1, 0, p;\n\t}" : "=r"(explicit_cluster));
    if (threadIdx.x < 4) slot[threadIdx.x] = 0;
    if (threadIdx.x == 0) counter = 0;
    asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
    unsigned peer = (ctarank + 1) % nctarank;
    unsigned remote_slot, remote_ctr;
    asm("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote_slot) : "r"(smem_u32(&slot[ctarank])), "r"(peer));
    asm("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote_ctr) : "r"(smem_u32(&counter)), "r"(peer));
    if (threadIdx.x == 0) {
        asm volatile("st.shared::cluster.u32 [%0], %1;" :: "r"(remote_slot), "r"(ctarank + 100) : "memory");
        unsigned old;
        asm volatile("atom.shared::cluster.add.u32 %0, [%1], 1;" : "=r"(old) : "r"(remote_ctr) : "memory");
        slot[ctarank] += old;
        asm volatile("red.relaxed.cluster.shared::cluster.add.u32 [%0], 1;" :: "r"(remote_ctr) : "memory");
        asm volatile("fence.acq_rel.cluster;" ::: "memory");
    }
    asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
    asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
    unsigned back;
    asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(back) : "r"(remote_slot));
    unsigned who;
    asm("getctarank.shared::cluster.u32 %0, %1;" : "=r"(who) : "r"(remote_slot));
    unsigned long long gen = (unsigned long long)(void *)&slot[0], gremote;
    asm("mapa.u64 %0, %1, %2;" : "=l"(gremote) : "l"(gen), "r"(peer));   // generic-address form
    unsigned viag = *(volatile unsigned *)gremote;
    asm volatile("barrier.cluster.arrive;\n\tbarrier.cluster.wait;" ::: "memory");
    unsigned *o = out + 10 * (blockIdx.x * blockDim.x + threadIdx.x);
    o[0] = ctarank; o[1] = nctarank; o[2] = clusterid_x; o[3] = nclusterid_x; o[4] = cctaid_x;
    o[5] = cnctaid_y; o[6] = explicit_cluster; o[7] = back; o[8] = who; o[9] = viag + counter;
}
