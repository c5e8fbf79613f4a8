// What ends a merge window of the L2 request coalescer. One warp per CTA, one CTA per SM; CTAs
// 0-15 share one GPC (lrc2). Readers of the shared set A (1024 lines, as lrc.cu: ld.global.cg,
// whole lines, 8 in flight, 4 passes): CTAs 0 ... k-1, reader j spinning j x stagger cycles
// first. Background in the same GPC (CTAs k ... 15), from the start: bg = 0 none, 1 each its own
// private 1024 lines, 2 all the same second set B (1024 lines), 3 the set A itself at stagger 0.
// ncu: lts__t_sectors_srcunit_tex_op_read minus the background's own lookups says how A's
// readers merged. Build: nvcc -arch=sm_90 -O3 -o lrc4 lrc4.cu
#include <cstdio>
#include <cuda_runtime.h>

__device__ __forceinline__ unsigned ldcg(const unsigned* p)
{
    unsigned v;
    asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(p));
    return v;
}

extern "C" __global__ void lrc4(const unsigned* buf, unsigned* sink, int k, int stagger, int bg)
{
    const int lines = 1024;
    int b = blockIdx.x;
    if (b >= 16 || (b >= k && bg == 0)) return;
    size_t set = 0;
    if (b >= k) set = bg == 1 ? (size_t)(2 + b) : bg == 2 ? 1 : 0;
    const unsigned* p = buf + set * lines * 32u + threadIdx.x;
    if (b < k) {
        long long s0 = clock64();
        while (clock64() - s0 < (long long)b * stagger) {
        }
    }
    unsigned acc = 0;
    for (int r = 0; r < 4; r++) {
        for (int i = 0; i < lines; i += 8) {
            unsigned a[8];
#pragma unroll
            for (int q = 0; q < 8; q++) a[q] = ldcg(p + (size_t)(i + q) * 32u);
#pragma unroll
            for (int q = 0; q < 8; q++) acc += a[q];
        }
    }
    if (acc == 0x7fffffffu) sink[0] = 1;  // the buffer is zeros: never
}

int main()
{
    unsigned *buf, *sink;
    cudaMalloc(&buf, 18 * 1024 * 128);
    cudaMemset(buf, 0, 18 * 1024 * 128);
    cudaMalloc(&sink, 4);
    printf("k,stagger,bg\n");
    const int pair_staggers[] = {4000, 8000, 16000, 32000, 64000};
    for (int bg = 0; bg < 4; bg++)
        for (int s : pair_staggers) {
            lrc4<<<132, 32>>>(buf, sink, 2, s, bg);
            printf("2,%d,%d\n", s, bg);
        }
    const int ks[] = {3, 4, 5, 6};
    const int staggers[] = {0, 8000, 16000};
    for (int k : ks)
        for (int s : staggers) {
            lrc4<<<132, 32>>>(buf, sink, k, s, 0);
            printf("%d,%d,0\n", k, s);
        }
    cudaError_t err = cudaDeviceSynchronize();
    if (err != cudaSuccess) fprintf(stderr, "CUDA error: %s\n", cudaGetErrorString(err));
    return 0;
}
