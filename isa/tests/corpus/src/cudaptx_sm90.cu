// The same Hopper machinery written through libcu++ instead of hand-written asm (sm_90+): the
// cuda::ptx:: wrappers (mbarrier_init, mbarrier_arrive_expect_tx, mbarrier_try_wait_parity,
// cp_async_bulk_tensor, cp_async_bulk, cp_async_bulk_commit_group/wait_group_read, fence_proxy_async,
// st_async / red_async into a peer CTA's smem, get_sreg_*), and cuda::barrier<thread_scope_block>
// with cuda::device::barrier_arrive_tx + cuda::memcpy_async (which becomes cp.async.bulk on sm_90).
// The wrappers' asm has its own style: `{ .reg .pred P_OUT; ... selp.b32 %0, 1, 0, P_OUT; }`,
// `_` sinks and `.shared::cta` spellings, so this file complements mbarrier_tma_sm90.cu.
#include <cuda/ptx>
#include <cuda/barrier>
#include <cuda/std/utility>
#include <cooperative_groups.h>
#ifdef __CUDACC_RTC__
typedef struct alignas(64) CUtensorMap_st { unsigned long long opaque[16]; } CUtensorMap;
#else
#include <cuda.h>
#endif
namespace ptx = cuda::ptx;

extern "C" __global__ void __launch_bounds__(128) ptx_wrappers_tma(const __grid_constant__ CUtensorMap tmap,
                                                                  const float *src, float *dst)
{
    __shared__ alignas(128) float tile[32 * 32];
    __shared__ alignas(128) float lin[1024];
    __shared__ uint64_t bar;
    int t = threadIdx.x;
    if (t == 0) {
        ptx::mbarrier_init(&bar, 1);
        ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
        ptx::fence_proxy_async(ptx::space_shared);
    }
    __syncthreads();
    if (t == 0) {
        const int32_t coords[2] = {(int32_t)(blockIdx.x * 32), (int32_t)(blockIdx.y * 32)};
        ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, tile, &tmap, coords, &bar);
        ptx::cp_async_bulk(ptx::space_cluster, ptx::space_global, lin, src, sizeof(lin), &bar);
        (void)ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar,
                                             sizeof(tile) + sizeof(lin));
    }
    while (!ptx::mbarrier_try_wait_parity(&bar, 0)) {}
    float s = 0.0f;
    for (int i = t; i < 1024; i += 128) s += tile[i] + lin[i];
    lin[t] = s;
    ptx::fence_proxy_async(ptx::space_shared);
    __syncthreads();
    if (t == 0) {
        ptx::cp_async_bulk(ptx::space_global, ptx::space_shared, dst + blockIdx.x * 128, lin, 128 * sizeof(float));
        ptx::cp_async_bulk_commit_group();
        ptx::cp_async_bulk_wait_group_read(ptx::n32_t<0>());
    }
    uint32_t cid = ptx::get_sreg_clusterid_x(), smid = ptx::get_sreg_smid();
    if (t == 1) dst[gridDim.x * 128 + blockIdx.x] = (float)(cid + smid);
}

// st.async / red.async: push a value into the partner CTA's shared memory and signal its mbarrier.
extern "C" __global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(64) ptx_st_async(int *out)
{
    __shared__ int inbox[64];
    __shared__ int total;
    __shared__ uint64_t bar;
    unsigned rank = ptx::get_sreg_cluster_ctarank();
    if (threadIdx.x == 0) {
        ptx::mbarrier_init(&bar, 1);
        total = 0;
        ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
    }
    ptx::barrier_cluster_arrive(ptx::sem_release);
    ptx::barrier_cluster_wait(ptx::sem_acquire);
    if (threadIdx.x == 0)
        (void)ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar,
                                             64 * sizeof(int) + sizeof(int));
    ptx::barrier_cluster_arrive(ptx::sem_release);
    ptx::barrier_cluster_wait(ptx::sem_acquire);
    unsigned peer = rank ^ 1;
    auto cluster = cooperative_groups::this_cluster();
    int *remote_inbox = cluster.map_shared_rank(&inbox[threadIdx.x], peer);
    uint64_t *remote_bar = cluster.map_shared_rank(&bar, peer);
    int *remote_total = cluster.map_shared_rank(&total, peer);
    ptx::st_async(remote_inbox, (int32_t)(rank * 100 + threadIdx.x), remote_bar);
    if (threadIdx.x == 0) ptx::red_async(ptx::op_add, (uint32_t *)remote_total, 1u, remote_bar);
    while (!ptx::mbarrier_try_wait_parity(ptx::sem_acquire, ptx::scope_cluster, &bar, 0)) {}
    out[blockIdx.x * 64 + threadIdx.x] = inbox[threadIdx.x] + total;
    ptx::barrier_cluster_arrive(ptx::sem_release);
    ptx::barrier_cluster_wait(ptx::sem_acquire);
}

// cuda::barrier + memcpy_async with 16-byte alignment: on sm_90 this is a bulk copy that completes
// through the barrier's transaction count.
extern "C" __global__ void barrier_memcpy_tx(const int4 *src, int *dst)
{
    __shared__ alignas(16) int4 buf[256];
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    if (threadIdx.x == 0) init(&bar, blockDim.x);
    __syncthreads();
    cuda::barrier<cuda::thread_scope_block>::arrival_token tok;
    if (threadIdx.x == 0) {
        cuda::memcpy_async(buf, src + blockIdx.x * 256, cuda::aligned_size_t<16>(sizeof(buf)), bar);
        tok = cuda::device::barrier_arrive_tx(bar, 1, 0);
    } else {
        tok = bar.arrive();
    }
    bar.wait(cuda::std::move(tok));
    int4 v = buf[threadIdx.x % 256];
    dst[blockIdx.x * blockDim.x + threadIdx.x] = v.x + v.y + v.z + v.w;
}
