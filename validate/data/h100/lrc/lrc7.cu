// The suite's GEMMs on the coalescer: how many of their L2 reads merge, and where small grids go.
// Part A: grid G = 16 one-warp CTAs; CTA 0 and CTA `partner` read the same 1024 lines
// (ld.global.cg, whole lines, 8 in flight, 4 passes), the others exit at once: which partners
// share CTA 0's coalescer when the grid is small (lrc2 answered it for a full wave of 132).
// Part B: the bundled mma_gemm, cpasync_gemm, matmul_tiled32 and matmul_naive kernels, compiled
// from workloads/suite, each at its full grid and at sub-grids (one CTA; one row of CTAs, which
// share A's rows; one column, which share B's columns): L2 tex lookups of the full grid against
// the sum of its CTAs' own say how much merges. Part C: each CTA's %smid and %globaltimer at
// its start for grids of 16, 64 and 264 (128 threads): small grids' placement (validate/data/
// h200/placement has 66 CTAs and up, and every CTA starting within 0.2 us).
// Build: nvcc -arch=sm_90 -O3 -o lrc7 lrc7.cu (from this directory).
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

namespace mma {
#include "../../../../workloads/suite/mma_gemm/kernel.cu"
}
namespace cpa {
#include "../../../../workloads/suite/cpasync_gemm/kernel.cu"
}
namespace mm {
#include "../../../../workloads/suite/matmul/kernel.cu"
}

__device__ __forceinline__ unsigned ldcg(const unsigned* p)
{
    unsigned v;
    asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(p));
    return v;
}

extern "C" __global__ void pair(const unsigned* buf, unsigned* sink, int partner)
{
    const int lines = 1024;
    int b = blockIdx.x;
    if (b != 0 && b != partner) return;
    const unsigned* set = buf + threadIdx.x;
    unsigned acc = 0;
    for (int r = 0; r < 4; r++)
        for (int i = 0; i < lines; i += 8) {
            unsigned a[8];
#pragma unroll
            for (int k = 0; k < 8; k++) a[k] = ldcg(set + (size_t)(i + k) * 32u);
#pragma unroll
            for (int k = 0; k < 8; k++) acc += a[k];
        }
    if (acc == 0x7fffffffu) sink[0] = 1;  // the buffer is zeros: never
}

extern "C" __global__ void stamp(unsigned long long* t, int* smids)
{
    if (threadIdx.x == 0) {
        unsigned long long g;
        int s;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g));
        asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
        t[blockIdx.x] = g;
        smids[blockIdx.x] = s;
    }
    __syncthreads();
    long long s0 = clock64();
    while (clock64() - s0 < 20000) {
    }
}

int main()
{
    unsigned *buf, *sink;
    cudaMalloc(&buf, 1024 * 128);
    cudaMemset(buf, 0, 1024 * 128);
    cudaMalloc(&sink, 4);
    printf("part,kernel,gx,gy,partner\n");
    for (int g : {16})
        for (int p = 1; p < g; p++) {
            pair<<<g, 32>>>(buf, sink, p);
            printf("A,pair,%d,1,%d\n", g, p);
        }
    // Part B: inputs of ones (the values do not matter to the traffic).
    const int n = 256;
    void *A, *B, *C;
    cudaMalloc(&A, n * n * 4);
    cudaMalloc(&B, n * n * 4);
    cudaMalloc(&C, n * n * 4);
    cudaMemset(A, 0, n * n * 4);
    cudaMemset(B, 0, n * n * 4);
    struct G { int x, y; };
    for (G g : {G{1, 1}, G{4, 1}, G{1, 4}, G{2, 2}, G{4, 4}}) {
        mma::mma_gemm<<<dim3(g.x, g.y), 128>>>((const unsigned short*)A, (const unsigned short*)B, (float*)C, 256, 256);
        printf("B,mma_gemm,%d,%d,0\n", g.x, g.y);
    }
    for (G g : {G{1, 1}, G{4, 1}, G{1, 4}, G{2, 2}, G{4, 4}}) {
        cpa::cpasync_gemm<<<dim3(g.x, g.y), dim3(32, 8)>>>((const float*)A, (const float*)B, (float*)C, 128);
        printf("B,cpasync_gemm,%d,%d,0\n", g.x, g.y);
    }
    for (G g : {G{1, 1}, G{8, 1}, G{1, 8}, G{2, 2}, G{4, 4}, G{8, 8}}) {
        mm::matmul_tiled32<<<dim3(g.x, g.y), dim3(32, 32)>>>((const float*)A, (const float*)B, (float*)C, 256);
        printf("B,matmul_tiled32,%d,%d,0\n", g.x, g.y);
    }
    for (G g : {G{1, 1}, G{16, 1}, G{1, 16}, G{4, 4}, G{16, 16}}) {
        mm::matmul_naive<<<dim3(g.x, g.y), dim3(16, 16)>>>((const float*)A, (const float*)B, (float*)C, 256);
        printf("B,matmul_naive,%d,%d,0\n", g.x, g.y);
    }
    cudaDeviceSynchronize();
    // Part C (not profiled: ncu --kernel-name-base function -k regex:^(pair|mma|cpa|matmul)).
    unsigned long long* t;
    int* smids;
    cudaMalloc(&t, 264 * 8);
    cudaMalloc(&smids, 264 * 4);
    for (int g : {16, 64, 264})
        for (int rep = 0; rep < 3; rep++) {
            stamp<<<g, 128>>>(t, smids);
            std::vector<unsigned long long> ht(g);
            std::vector<int> hs(g);
            cudaMemcpy(ht.data(), t, g * 8, cudaMemcpyDeviceToHost);
            cudaMemcpy(hs.data(), smids, g * 4, cudaMemcpyDeviceToHost);
            unsigned long long t0 = ht[0];
            for (int b = 0; b < g; b++) t0 = ht[b] < t0 ? ht[b] : t0;
            fprintf(stderr, "C grid %d rep %d (cta:smid:ns after first)", g, rep);
            for (int b = 0; b < g; b++) fprintf(stderr, " %d:%d:%llu", b, hs[b], ht[b] - t0);
            fprintf(stderr, "\n");
        }
    cudaError_t err = cudaDeviceSynchronize();
    if (err != cudaSuccess) fprintf(stderr, "CUDA error: %s\n", cudaGetErrorString(err));
    return 0;
}
