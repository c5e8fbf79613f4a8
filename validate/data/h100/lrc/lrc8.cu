// Does a GPC's other traffic stop a pair from merging? (the coalescer's capacity)
// Grid of 16 CTAs of 1024 threads: CTAs 0-8 run in one GPC, 9-15 one per other GPC (lrc7).
// CTAs 0 and 1 (warp 0 each) read the same 1024 lines, whole lines with ld.global.cg, 8 in
// flight, 4 passes: 16384 tex lookups if every read of one merges with the other's, 32768 if
// none. Background: in CTAs 2-8 (same GPC: where = 0) or 9-15 (other GPCs: where = 1), `bgw`
// warps each read their own 64 lines (ld.global.cg, 8 in flight) `iters` times: lines nobody
// else reads, 4 lookups each, so the pair's lookups are the total less 4 x the background's
// reads. If the coalescer holds only so many reads at once, the pair merges less as bgw grows.
// Build: nvcc -arch=sm_90 -O3 -o lrc8 lrc8.cu. Output: one line per launch (stdout).
#include <cstdio>
#include <cuda_runtime.h>

__device__ __forceinline__ unsigned ldcg(const unsigned* p)
{
    unsigned v;
    asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(p));
    return v;
}

extern "C" __global__ void pairbg(const unsigned* shared_set, const unsigned* priv, unsigned* sink, int bgw, int where, int iters)
{
    int b = blockIdx.x, w = threadIdx.x / 32, lane = threadIdx.x % 32;
    unsigned acc = 0;
    if (b <= 1) {
        if (w != 0) return;
        const unsigned* set = shared_set + lane;
        for (int r = 0; r < 4; r++)
            for (int i = 0; i < 1024; i += 8) {
                unsigned a[8];
#pragma unroll
                for (int k = 0; k < 8; k++) a[k] = ldcg(set + (size_t)(i + k) * 32u);
#pragma unroll
                for (int k = 0; k < 8; k++) acc += a[k];
            }
    } else {
        int first = where == 0 ? 2 : 9;
        if (b < first || b >= first + 7 || w >= bgw) return;
        const unsigned* mine = priv + ((size_t)((b - first) * 32 + w) * 64) * 32 + lane;
        for (int it = 0; it < iters; it += 8) {
            unsigned a[8];
#pragma unroll
            for (int k = 0; k < 8; k++) a[k] = ldcg(mine + (size_t)((it + k) % 64) * 32u);
#pragma unroll
            for (int k = 0; k < 8; k++) acc += a[k];
        }
    }
    if (acc == 0x7fffffffu) sink[0] = 1;  // the buffers are zeros: never
}

int main()
{
    unsigned *set, *priv, *sink;
    cudaMalloc(&set, 1024 * 128);
    cudaMemset(set, 0, 1024 * 128);
    cudaMalloc(&priv, 7 * 32 * 64 * 128);
    cudaMemset(priv, 0, 7 * 32 * 64 * 128);
    cudaMalloc(&sink, 4);
    const int iters = 4096;
    printf("launch,bgw,where,iters,bg_lookups\n");
    int id = 0;
    for (int where : {0, 1})
        for (int bgw : {0, 1, 4, 8, 16, 32}) {
            if (where == 1 && bgw != 8 && bgw != 32) continue;
            pairbg<<<16, 1024>>>(set, priv, sink, bgw, where, iters);
            printf("%d,%d,%d,%d,%d\n", id++, bgw, where, iters, 7 * bgw * iters * 4);
        }
    cudaError_t err = cudaDeviceSynchronize();
    if (err != cudaSuccess) fprintf(stderr, "CUDA error: %s\n", cudaGetErrorString(err));
    return 0;
}
