// How long after an mbarrier arrive a warp suspended in try_wait resumes, on one SM.
//
// Why: membench-style mbarrier_pingpong (two warps, arrive on one barrier, wait on the other,
// 1000 round trips) runs 18% fast in the model (193.4 k cycles on the H200, 157.9 k simulated):
// about 95 cycles per half trip against 77. This splits the half trip: warp 1 sits in
// `mbarrier.try_wait.parity` (suspended) while warp 0 reads clock64, spins a while, reads it
// again and arrives (count 32, all lanes); warp 1 reads clock64 when its try_wait returns true.
// clock64 is the SM's counter, so the two warps' readings compare. Also timed: a try_wait on a
// phase already complete (one warp, back to back), and arrive alone.
//
// Output (stdout, CSV): what,i,cycles. Build: nvcc -arch=sm_90 -O3 -o mbar_latency mbar_latency.cu
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1); } } while (0)

__device__ __forceinline__ unsigned smem(const void* p) { return (unsigned)__cvta_generic_to_shared(p); }
__device__ __forceinline__ void mbar_init(unsigned a, unsigned n) { asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(a), "r"(n) : "memory"); }
__device__ __forceinline__ void mbar_arrive(unsigned a) { asm volatile("{ .reg .b64 s; mbarrier.arrive.shared::cta.b64 s, [%0]; }" :: "r"(a) : "memory"); }
__device__ __forceinline__ bool mbar_try(unsigned a, unsigned parity)
{
    unsigned ok;
    asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }" : "=r"(ok) : "r"(a), "r"(parity) : "memory");
    return ok;
}

constexpr int ITERS = 256;

__global__ void wake(long long* out)
{
    __shared__ alignas(8) unsigned long long bar, back;
    __shared__ long long t_arrive[ITERS];
    const unsigned b = smem(&bar), k = smem(&back);
    if (threadIdx.x == 0) { mbar_init(b, 32); mbar_init(k, 32); }
    __syncthreads();
    const int warp = threadIdx.x / 32;
    for (int it = 0; it < ITERS; it++) {
        if (warp == 0) {
            long long t = clock64();
            while (clock64() - t < 2000) { }          // warp 1 is asleep in try_wait by now
            long long ta = clock64();
            mbar_arrive(b);
            if (threadIdx.x == 0) t_arrive[it] = ta;
            while (!mbar_try(k, it & 1)) { }          // warp 1 has recorded its time
        } else {
            while (!mbar_try(b, it & 1)) { }
            long long tb = clock64();
            __syncwarp();
            if (threadIdx.x == 32) out[it] = tb;
            mbar_arrive(k);
        }
    }
    __syncthreads();
    for (int i = threadIdx.x; i < ITERS; i += blockDim.x) out[i] -= t_arrive[i];
    if (threadIdx.x == 0) {
        // A try_wait on a completed phase, and an arrive, back to back (one warp).
        long long t0 = clock64();
        bool done = true;
        for (int i = 0; i < 64; i++) done &= mbar_try(b, 1 - (ITERS & 1));
        long long t1 = clock64();
        out[ITERS] = (t1 - t0) / 64 + (done ? 0 : 1000000);
    }
}

int main()
{
    long long* d;
    CK(cudaMalloc(&d, (ITERS + 1) * 8));
    long long h[ITERS + 1];
    printf("what,i,cycles\n");
    for (int run = 0; run < 3; run++) {
        wake<<<1, 64>>>(d);
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
        for (int i = 0; i < ITERS; i++) printf("arrive_to_wake,%d,%lld\n", run * ITERS + i, h[i]);
        printf("try_wait_done,%d,%lld\n", run, h[ITERS]);
    }
    return 0;
}
