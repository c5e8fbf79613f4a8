// Ampere asynchronous copies and arrive/wait barriers (sm_80+): cp.async.ca/.cg with 4/8/16-byte
// sizes, src-size zero fill, L2 prefetch hints, commit_group / wait_group N / wait_all, cp.async.mbarrier.arrive;
// the C++ forms that generate them: __pipeline_memcpy_async / __pipeline_commit / __pipeline_wait_prior
// (cuda_pipeline.h), cuda::memcpy_async with cuda::barrier and with cuda::pipeline (libcu++), and
// cooperative_groups::memcpy_async + cg::wait; sm_80 mbarrier in inline PTX (init, arrive returning
// a state token, test_wait, arrive_drop, pending_count, inval). A double-buffered tiled copy-reduce
// kernel shows the typical multistage pipeline.
#include <cuda_pipeline.h>
#include <cuda/barrier>
#include <cuda/pipeline>
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
namespace cg = cooperative_groups;

__device__ __forceinline__ unsigned smem_u32(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }

extern "C" __global__ void cp_async_inline(const float4 *src, const float *src1, float *dst, int n_valid)
{
    __shared__ __align__(16) float4 s16[128];
    __shared__ __align__(8) float s8[256];
    __shared__ float s4[128];
    int t = threadIdx.x;
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(smem_u32(&s16[t])), "l"(&src[t]) : "memory");
    asm volatile("cp.async.ca.shared.global.L2::128B [%0], [%1], 8;" :: "r"(smem_u32(&s8[2 * t])), "l"(&src1[2 * t]) : "memory");
    asm volatile("cp.async.commit_group;" ::: "memory");
    // zero-fill tail: copy src-size bytes, fill the rest of the 4 with zeros
    int bytes = t < n_valid ? 4 : 0;
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;" :: "r"(smem_u32(&s4[t])), "l"(&src1[t]), "r"(bytes) : "memory");
    asm volatile("cp.async.cg.shared.global.L2::256B [%0], [%1], 16;" :: "r"(smem_u32(&s16[t ^ 1])), "l"(&src[t + 128]) : "memory");
    asm volatile("cp.async.commit_group;" ::: "memory");
    asm volatile("cp.async.wait_group 1;" ::: "memory");      // first group landed
    __syncthreads();
    float a = s16[t].x + s8[2 * t + 1];
    asm volatile("cp.async.wait_all;" ::: "memory");
    __syncthreads();
    dst[t] = a + s4[t] + s16[t ^ 1].w;
}

extern "C" __global__ void pipeline_primitives(const float *src, float *dst, int tiles)
{
    __shared__ float stage[2][256];
    int t = threadIdx.x;
    __pipeline_memcpy_async(&stage[0][t], &src[t], sizeof(float));
    __pipeline_commit();
    float acc = 0.0f;
    for (int k = 0; k < tiles; ++k) {
        if (k + 1 < tiles) __pipeline_memcpy_async(&stage[(k + 1) & 1][t], &src[(k + 1) * 256 + t], sizeof(float));
        __pipeline_commit();
        __pipeline_wait_prior(1);
        __syncthreads();
        acc += stage[k & 1][(t + 1) & 255];
        __syncthreads();
    }
    dst[blockIdx.x * 256 + t] = acc;
}

extern "C" __global__ void memcpy_async_barrier(const int *src, int *dst, int n)
{
    __shared__ __align__(16) int buf[512];
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    auto block = cg::this_thread_block();
    if (block.thread_rank() == 0) init(&bar, block.size());
    block.sync();
    cuda::memcpy_async(block, buf, src + blockIdx.x * 512, cuda::aligned_size_t<16>(sizeof(int) * 512), bar);
    bar.arrive_and_wait();
    int s = 0;
    for (int i = threadIdx.x; i < 512; i += blockDim.x) s += buf[i];
    auto token = bar.arrive();
    bar.wait(std::move(token));
    dst[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

extern "C" __global__ void cuda_pipeline_multistage(const float *src, float *dst, int tiles)
{
    constexpr int stages = 3;
    __shared__ __align__(16) float buf[stages][128];
    auto pipe = cuda::make_pipeline();                    // thread-scope pipeline
    int t = threadIdx.x;
    int fetched = 0;
    float acc = 0.0f;
    for (int k = 0; k < tiles; ++k) {
        for (; fetched < tiles && fetched < k + stages; ++fetched) {
            pipe.producer_acquire();
            cuda::memcpy_async(&buf[fetched % stages][t], &src[fetched * 128 + t], sizeof(float), pipe);
            pipe.producer_commit();
        }
        pipe.consumer_wait();
        acc = acc * 0.5f + buf[k % stages][t];
        pipe.consumer_release();
    }
    dst[t] = acc;
}

extern "C" __global__ void cg_memcpy_async(const float *src, float *dst)
{
    __shared__ __align__(16) float buf[1024];
    auto block = cg::this_thread_block();
    cg::memcpy_async(block, buf, src + blockIdx.x * 1024, sizeof(float) * 1024);
    cg::wait(block);
    float s = 0.0f;
    for (int i = threadIdx.x; i < 1024; i += block.size()) s += buf[i];
    dst[blockIdx.x * block.size() + threadIdx.x] = s;
}

extern "C" __global__ void mbarrier_sm80(const float *src, float *dst)
{
    __shared__ __align__(8) unsigned long long bar;
    __shared__ __align__(16) float buf[128];
    int t = threadIdx.x;
    unsigned b = smem_u32(&bar);
    if (t == 0) asm volatile("mbarrier.init.shared.b64 [%0], %1;" :: "r"(b), "r"(blockDim.x) : "memory");
    __syncthreads();
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" :: "r"(smem_u32(&buf[t])), "l"(&src[t]) : "memory");
    // the copy's completion counts as one arrival-without-increment on the barrier
    asm volatile("cp.async.mbarrier.arrive.noinc.shared.b64 [%0];" :: "r"(b) : "memory");
    unsigned long long state;
    asm volatile("mbarrier.arrive.shared.b64 %0, [%1];" : "=l"(state) : "r"(b) : "memory");
    unsigned done = 0;
    while (!done) {
        asm volatile("{\n\t.reg .pred p;\n\t"
                     "mbarrier.test_wait.shared.b64 p, [%1], %2;\n\t"
                     "selp.u32 %0, 1, 0, p;\n\t}"
                     : "=r"(done) : "r"(b), "l"(state) : "memory");
    }
    unsigned pending;
    asm volatile("mbarrier.pending_count.b64 %0, %1;" : "=r"(pending) : "l"(state));
    float v = buf[(t + 1) % blockDim.x];
    __syncthreads();
    if (t >= 64) asm volatile("mbarrier.arrive_drop.shared.b64 _, [%0];" :: "r"(b) : "memory");
    __syncthreads();
    if (t == 0) asm volatile("mbarrier.inval.shared.b64 [%0];" :: "r"(b) : "memory");
    dst[t] = v + (float)pending;
}
