// Which SMs share a request coalescer, and whether its window is time or room. One warp per CTA,
// one CTA per SM (132 CTAs). CTA 0 and CTA `partner` read the same 1024 lines (128 KiB) as lrc.cu
// does (ld.global.cg, whole lines, 8 in flight, 4 passes); the partner first spins `stagger`
// cycles. With noise = 1 every other CTA reads its own 1024 private lines meanwhile (traffic no
// coalescer can merge, filling any table of recent lines); with noise = 0 they exit at once.
// The L2 looks up 2 x 16384 sectors for the pair (+ 130 x 16384 of noise) without merging,
// 16384 + 16384 / merge-limit... with it: the ncu pass's lts__t_sectors_srcunit_tex_op_read says
// how many of the partner's reads merged. Part A: partner = 1 ... 131, stagger 0, no noise (which
// CTAs share CTA 0's coalescer). Part B: partners 1, 8, 16, stagger 0 ... 8000, noise 0 and 1.
// Also prints each CTA's %smid (first launch). Build: nvcc -arch=sm_90 -O3 -o lrc2 lrc2.cu
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

__device__ __forceinline__ unsigned ldcg(const unsigned* p)
{
    unsigned v;
    asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(p));
    return v;
}

extern "C" __global__ void lrc2(const unsigned* buf, unsigned* sink, int* smids, int partner, int stagger, int noise)
{
    const int lines = 1024;
    int b = blockIdx.x;
    if (threadIdx.x == 0) {
        int s;
        asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
        smids[b] = s;
    }
    bool pair = b == 0 || b == partner;
    if (!pair && !noise) return;
    const unsigned* set = buf + (size_t)(pair ? 0 : b) * lines * 32u + threadIdx.x;
    if (b == partner) {
        long long s0 = clock64();
        while (clock64() - s0 < (long long)stagger) {
        }
    }
    unsigned acc = 0;
    for (int r = 0; r < 4; r++) {
        for (int i = 0; i < lines; i += 8) {
            unsigned a[8];
#pragma unroll
            for (int k = 0; k < 8; k++) a[k] = ldcg(set + (size_t)(i + k) * 32u);
#pragma unroll
            for (int k = 0; k < 8; k++) acc += a[k];
        }
    }
    if (acc == 0x7fffffffu) sink[0] = 1;  // the buffer is zeros: never
}

int main()
{
    const int ctas = 132, lines = 1024;
    unsigned *buf, *sink;
    int* smids;
    cudaMalloc(&buf, (size_t)ctas * lines * 128);
    cudaMemset(buf, 0, (size_t)ctas * lines * 128);
    cudaMalloc(&sink, 4);
    cudaMalloc(&smids, ctas * sizeof(int));
    printf("part,partner,stagger,noise\n");
    for (int p = 1; p < ctas; p++) {
        lrc2<<<ctas, 32>>>(buf, sink, smids, p, 0, 0);
        printf("A,%d,0,0\n", p);
    }
    const int partners[] = {1, 8, 16};
    const int staggers[] = {0, 250, 500, 1000, 2000, 4000, 8000};
    for (int noise = 0; noise < 2; noise++)
        for (int p : partners)
            for (int s : staggers) {
                lrc2<<<ctas, 32>>>(buf, sink, smids, p, s, noise);
                printf("B,%d,%d,%d\n", p, s, noise);
            }
    cudaDeviceSynchronize();
    std::vector<int> h(ctas);
    cudaMemcpy(h.data(), smids, ctas * sizeof(int), cudaMemcpyDeviceToHost);
    fprintf(stderr, "smid of CTA 0..131:");
    for (int b = 0; b < ctas; b++) fprintf(stderr, " %d", h[b]);
    fprintf(stderr, "\n");
    cudaError_t err = cudaDeviceSynchronize();
    if (err != cudaSuccess) fprintf(stderr, "CUDA error: %s\n", cudaGetErrorString(err));
    return 0;
}
