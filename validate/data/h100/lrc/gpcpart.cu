// Which L2 partition is each GPC's near one? (the model takes GPC mod 2: validate/data/h100/lrc)
// For each GPC g (the tester CTA of a 132-CTA grid that lands in it: CTAs 16g, and 114 for the
// last, as lrc7 and ../../h200/placement found), after a 256 MiB read has flushed the L2, one
// lane reads 512 cold lines one after another (each address depends on the previous value) and
// records each read's clock64 latency. A line homed in the tester's own partition costs a DRAM
// read; one homed in the other partition the near slice's miss and the far trip as well, so each
// line is fast for the GPCs of one partition and slow for the others. GPCs whose fast lines
// coincide share a partition. Output (stdout): gpc,line,cycles.
// Build: nvcc -arch=sm_90 -O3 -o gpcpart gpcpart.cu
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

extern "C" __global__ void flush(const uint4* big, size_t n, unsigned* sink)
{
    uint4 acc = make_uint4(0, 0, 0, 0);
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        uint4 v = big[i];
        acc.x ^= v.x;
    }
    if (acc.x == 0x7fffffffu) sink[0] = 1;
}

extern "C" __global__ void probe(const unsigned* lines, int tester, int nlines, unsigned* lat, int* smid)
{
    if (blockIdx.x != tester || threadIdx.x != 0) return;
    int s;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
    smid[0] = s;
    __shared__ volatile unsigned keep[1];
    unsigned dep = 0;
    for (int j = 0; j < nlines; j++) {
        const unsigned* p = lines + (size_t)j * 32 + dep;
        long long t0 = clock64();
        unsigned v;
        asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(p));
        keep[0] = v;  // the store waits for the value, and the clock read for the store
        dep = v;      // zero: the next address waits for this value too
        long long t1 = clock64();
        lat[j] = (unsigned)(t1 - t0);
    }
}

int main()
{
    const int nlines = 512;
    const size_t big_n = (256u << 20) / 16;
    uint4* big;
    unsigned *lines, *lat, *sink;
    int* smid;
    cudaMalloc(&big, big_n * 16);
    cudaMemset(big, 0, big_n * 16);
    cudaMalloc(&lines, nlines * 128);
    cudaMemset(lines, 0, nlines * 128);
    cudaMalloc(&lat, nlines * 4);
    cudaMalloc(&smid, 4);
    cudaMalloc(&sink, 4);
    const int testers[8] = {0, 16, 32, 48, 64, 80, 96, 114};
    std::vector<unsigned> h(nlines);
    printf("rep,gpc,smid,line,cycles\n");
    for (int rep = 0; rep < 2; rep++)
        for (int g = 0; g < 8; g++) {
            flush<<<264, 1024>>>(big, big_n, sink);
            probe<<<132, 32>>>(lines, testers[g], nlines, lat, smid);
            int s;
            cudaMemcpy(h.data(), lat, nlines * 4, cudaMemcpyDeviceToHost);
            cudaMemcpy(&s, smid, 4, cudaMemcpyDeviceToHost);
            for (int j = 0; j < nlines; j++) printf("%d,%d,%d,%d,%u\n", rep, g, s, j, h[j]);
        }
    cudaError_t err = cudaDeviceSynchronize();
    if (err != cudaSuccess) fprintf(stderr, "CUDA error: %s\n", cudaGetErrorString(err));
    return 0;
}
