// Which L2 partition each slice sits in, seen from each SM (H200, nvcc -arch=sm_90 -O3).
//
// One thread of one CTA of a 132-CTA launch (the others exit at once) times a chain of 32
// dependent returning atomicAdds on one line of each slice (the first line of each class in
// classes.csv, `l2_slice_map.cu`): atomics are applied at the line's home, so a slice in the SM's
// own partition answers sooner than one across the partition link. 264 launches, CTA k % 132
// measuring in launch k (%smid is recorded). Output `partition.csv`: launch, smid, class, line,
// cycles per atomic.
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e)); exit(1); } } while (0)

__global__ void probe(unsigned* base, const unsigned* lines, int n, unsigned* smid, unsigned long long* cyc, int who)
{
    if (threadIdx.x != 0 || (int)blockIdx.x != who) return;
    unsigned s;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
    *smid = s;
    unsigned v = 0;
    for (int c = 0; c < n; c++) {
        unsigned* p = base + (size_t)lines[c] * 32;
        v = atomicAdd(p + (v > 0xFFFFFFF0u ? 1 : 0), 1u);  // warm: the line is in the L2 now
        long long t0 = clock64();
        for (int i = 0; i < 32; i++) v = atomicAdd(p + (v > 0xFFFFFFF0u ? 1 : 0), 1u);
        long long t1 = clock64();
        cyc[c] = (unsigned long long)(t1 - t0) + (v > 0xFFFFFFF0u ? 1 : 0);
    }
}

int main(int argc, char** argv)
{
    const char* classes = argv[1];
    const char* out = argv[2];
    std::vector<unsigned> rep;
    FILE* f = fopen(classes, "r");
    char buf[256];
    fgets(buf, sizeof buf, f);
    unsigned line; int cls, tests, quad;
    while (fscanf(f, "%u,%d,%d,%d", &line, &cls, &tests, &quad) == 4)
        if (cls >= 0 && line < 16384 && cls == (int)rep.size()) rep.push_back(line);
    fclose(f);
    int n = (int)rep.size();
    fprintf(stderr, "%d slices\n", n);
    char* raw;
    CK(cudaMalloc(&raw, (4u << 20)));
    CK(cudaMemset(raw, 0, (4u << 20)));
    unsigned* base = (unsigned*)(((uintptr_t)raw + (2u << 20) - 1) & ~(uintptr_t)((2u << 20) - 1));
    unsigned *d_lines, *d_smid;
    unsigned long long* d_cyc;
    CK(cudaMalloc(&d_lines, n * 4));
    CK(cudaMalloc(&d_smid, 4));
    CK(cudaMalloc(&d_cyc, n * 8));
    CK(cudaMemcpy(d_lines, rep.data(), n * 4, cudaMemcpyHostToDevice));
    FILE* o = fopen(out, "w");
    fprintf(o, "launch,smid,class,line,cycles\n");
    std::vector<unsigned long long> cyc(n);
    for (int l = 0; l < 264; l++) {
        probe<<<132, 32>>>(base, d_lines, n, d_smid, d_cyc, l % 132);
        CK(cudaDeviceSynchronize());
        unsigned s;
        CK(cudaMemcpy(&s, d_smid, 4, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(cyc.data(), d_cyc, n * 8, cudaMemcpyDeviceToHost));
        for (int c = 0; c < n; c++) fprintf(o, "%d,%u,%d,%u,%.1f\n", l, s, c, rep[c], cyc[c] / 32.0);
    }
    fclose(o);
    return 0;
}
