// How many SMs of a GPC, and of how many GPCs, merge their reads of the same lines, and how the
// merging fades with time between them. One warp per CTA, one CTA per SM (132 CTAs; the H100
// puts CTAs 16j ... 16j+15 in one GPC for j = 0, 1: lrc2). Readers: CTAs b with b % 16 < k and
// b / 16 < m (k SMs in each of m GPCs; the rest exit), all reading the same 1024 lines as lrc.cu
// (ld.global.cg, whole lines, 8 in flight, 4 passes); reader b first spins (b % 16) x stagger
// cycles. Lookups per line and pass = lts__t_sectors_srcunit_tex_op_read / 16384: k x m without
// merging. Build: nvcc -arch=sm_90 -O3 -o lrc3 lrc3.cu
#include <cstdio>
#include <cuda_runtime.h>

__device__ __forceinline__ unsigned ldcg(const unsigned* p)
{
    unsigned v;
    asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(p));
    return v;
}

extern "C" __global__ void lrc3(const unsigned* buf, unsigned* sink, int k, int m, int stagger)
{
    const int lines = 1024;
    int b = blockIdx.x;
    if (b % 16 >= k || b / 16 >= m) return;
    const unsigned* set = buf + threadIdx.x;
    long long s0 = clock64();
    while (clock64() - s0 < (long long)(b % 16) * stagger) {
    }
    unsigned acc = 0;
    for (int r = 0; r < 4; r++) {
        for (int i = 0; i < lines; i += 8) {
            unsigned a[8];
#pragma unroll
            for (int q = 0; q < 8; q++) a[q] = ldcg(set + (size_t)(i + q) * 32u);
#pragma unroll
            for (int q = 0; q < 8; q++) acc += a[q];
        }
    }
    if (acc == 0x7fffffffu) sink[0] = 1;  // the buffer is zeros: never
}

int main()
{
    unsigned *buf, *sink;
    cudaMalloc(&buf, 1024 * 128);
    cudaMemset(buf, 0, 1024 * 128);
    cudaMalloc(&sink, 4);
    printf("k,m,stagger\n");
    const int ks[] = {2, 4, 8, 16};
    const int ms[] = {1, 2, 8};
    const int ss[] = {0, 500, 2000, 8000};
    for (int m : ms)
        for (int k : ks)
            for (int s : ss) {
                lrc3<<<132, 32>>>(buf, sink, k, m, s);
                printf("%d,%d,%d\n", k, m, s);
            }
    cudaError_t err = cudaDeviceSynchronize();
    if (err != cudaSuccess) fprintf(stderr, "CUDA error: %s\n", cudaGetErrorString(err));
    return 0;
}
