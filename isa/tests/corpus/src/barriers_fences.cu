// Block barriers and memory ordering: __syncthreads (bar.sync 0), __syncthreads_count/and/or
// (bar.red.popc / bar.red.and / bar.red.or), named barriers via inline PTX (bar.sync id, n;
// bar.arrive id, n; barrier.sync / barrier.arrive / barrier.red with counts), __syncwarp,
// fences (membar.cta / membar.gl / membar.sys, fence.acq_rel.*, fence.sc.*), volatile accesses.
// Compiles for sm_75+.

extern "C" __global__ void bar_red(const int *in, int *out)
{
    int v = in[blockIdx.x * blockDim.x + threadIdx.x];
    int cnt = __syncthreads_count(v > 0);
    int all = __syncthreads_and(v != 0);
    int any = __syncthreads_or(v < 0);
    __syncthreads();
    if (threadIdx.x == 0) {
        out[blockIdx.x * 3 + 0] = cnt;
        out[blockIdx.x * 3 + 1] = all;
        out[blockIdx.x * 3 + 2] = any;
    }
}

// Producer/consumer warp specialisation with named barriers: warps 0-1 produce into shared memory,
// warps 2-3 consume. Barrier 1 = "full", barrier 2 = "empty"; each involves all 128 threads, the
// producers `bar.arrive` on "full" and `bar.sync` on "empty", the consumers the other way round.
extern "C" __global__ void __launch_bounds__(128) named_barriers(const float *in, float *out, int iters)
{
    __shared__ float buf[64];
    int t = threadIdx.x;
    bool producer = t < 64;
    for (int it = 0; it < iters; ++it) {
        if (producer) {
            if (it > 0) asm volatile("bar.sync 2, 128;" ::: "memory");
            buf[t] = in[it * 64 + t] * 2.0f;
            asm volatile("bar.arrive 1, 128;" ::: "memory");
        } else {
            asm volatile("bar.sync 1, 128;" ::: "memory");
            out[it * 64 + (t - 64)] = buf[t - 64] + 1.0f;
            if (it + 1 < iters) asm volatile("bar.arrive 2, 128;" ::: "memory");
        }
    }
    // barrier.* spelling (sm_70+), with a register barrier id and count
    unsigned id = 3, n = 128;
    asm volatile("barrier.sync %0, %1;" :: "r"(id), "r"(n) : "memory");
    asm volatile("barrier.sync.aligned 4;" ::: "memory");
    asm volatile("bar.warp.sync 0xffffffff;" ::: "memory");
    int pred_all;
    asm volatile("{\n\t.reg .pred p, q;\n\t"
                 "setp.ne.u32 p, %1, 0;\n\t"
                 "barrier.red.and.pred q, 5, 128, p;\n\t"
                 "selp.u32 %0, 1, 0, q;\n\t}"
                 : "=r"(pred_all) : "r"(t));
    unsigned popc;
    asm volatile("{\n\t.reg .pred p;\n\t"
                 "setp.lt.u32 p, %1, 17;\n\t"
                 "bar.red.popc.u32 %0, 6, p;\n\t}"
                 : "=r"(popc) : "r"(t));
    if (t == 0) out[iters * 64] = (float)(pred_all + (int)popc);
}

__device__ volatile int g_flag;
__device__ int g_payload[32];

extern "C" __global__ void fences(int *out)
{
    int t = threadIdx.x;
    if (blockIdx.x == 0) {
        g_payload[t & 31] = t * 7;
        __threadfence_block();
        __threadfence();
        __threadfence_system();
        if (t == 0) g_flag = 1;                     // st.volatile.global
    } else {
        int f = g_flag;                             // ld.volatile.global
        __threadfence();
        out[blockIdx.x * blockDim.x + t] = f ? g_payload[t & 31] : -1;
    }
    asm volatile("fence.acq_rel.cta;" ::: "memory");
    asm volatile("fence.acq_rel.gpu;" ::: "memory");
    asm volatile("fence.sc.sys;" ::: "memory");
    asm volatile("membar.cta;" ::: "memory");
    __syncwarp(0xffffffffu);
}
