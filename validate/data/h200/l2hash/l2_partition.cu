// Which L2 partition each line's slice sits in, seen from each SM (H200, nvcc -arch=sm_90 -O3).
//
// One thread of one CTA of a 132-CTA launch (the others exit at once) times a chain of 16
// dependent returning atomicAdds on each of 512 lines: the first line of each quad (lines 8j and
// 8j + 2 share no slice with each other; `l2_slice_map.cu` showed lines k, k+1, k+4, k+5 on one
// slice) of the first 256 KiB of a 2 MiB-aligned buffer. Atomics are applied at the line's home,
// so a slice in the SM's own partition answers sooner than one across the partition link. The
// slice map depends on physical address bits, so this probe does not reuse classes.csv (another
// process, another physical page); it relates lines to SMs only. 132 launches, CTA k measuring in
// launch k (%smid recorded). Output: smid,line,cycles per atomic.
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e)); exit(1); } } while (0)

__global__ void probe(unsigned* base, int n, unsigned* smid, unsigned* cyc, int who)
{
    if (threadIdx.x != 0 || (int)blockIdx.x != who) return;
    unsigned s;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
    *smid = s;
    unsigned v = 0;
    for (int c = 0; c < n; c++) {
        unsigned line = (c >> 1) * 8 + (c & 1) * 2;
        unsigned* p = base + (size_t)line * 32;
        v = atomicAdd(p + (v > 0xFFFFFFF0u ? 1 : 0), 1u);  // warm: the line is in the L2 now
        long long t0 = clock64();
        for (int i = 0; i < 16; i++) v = atomicAdd(p + (v > 0xFFFFFFF0u ? 1 : 0), 1u);
        long long t1 = clock64();
        cyc[c] = (unsigned)(t1 - t0) + (v > 0xFFFFFFF0u ? 1 : 0);
    }
}

int main(int argc, char** argv)
{
    const char* out = argv[1];
    const int n = 512;
    char* raw;
    CK(cudaMalloc(&raw, (4u << 20)));
    CK(cudaMemset(raw, 0, (4u << 20)));
    unsigned* base = (unsigned*)(((uintptr_t)raw + (2u << 20) - 1) & ~(uintptr_t)((2u << 20) - 1));
    unsigned *d_smid, *d_cyc;
    CK(cudaMalloc(&d_smid, 4));
    CK(cudaMalloc(&d_cyc, n * 4));
    FILE* o = fopen(out, "w");
    fprintf(o, "smid,line,cycles\n");
    std::vector<unsigned> cyc(n);
    for (int l = 0; l < 132; l++) {
        probe<<<132, 32>>>(base, n, d_smid, d_cyc, l);
        CK(cudaDeviceSynchronize());
        unsigned s;
        CK(cudaMemcpy(&s, d_smid, 4, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(cyc.data(), d_cyc, n * 4, cudaMemcpyDeviceToHost));
        for (int c = 0; c < n; c++) fprintf(o, "%u,%u,%.1f\n", s, (c >> 1) * 8 + (c & 1) * 2, cyc[c] / 16.0);
    }
    fclose(o);
    return 0;
}
