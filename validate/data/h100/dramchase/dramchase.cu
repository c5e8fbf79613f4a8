// One thread's pointer chase over a footprint F at stride S, visiting K nodes in sequential or
// random order, from a cold L2 (flushed by a 512 MiB memset) and then again warm (the nodes' lines
// in L2; address translation as the TLBs left it). It separates what a load costs in DRAM from
// what it costs to translate its address: JR's clean H100 chase reads 484 cycles, our own H200
// chase over 512 MiB 669, and the model has one DRAM latency for both (DESIGN.md, "One DRAM
// latency where the hardware shows two").
//
// F = 2, 8, 32, 128, 512, 1024 MiB; S = 128 B (a line), 4 KiB, 64 KiB, 2 MiB (a large page);
// order 0: node i+1 is the next slot (stride S), order 1: a random permutation of K slots drawn
// from the F/S there are. K = min(4096, F/S), rows with F/S < 16 are skipped. Loads are
// ld.global.cg (L2 only), so the warm pass measures the L2 hit plus translation.
// Output (stdout, CSV): footprint_mib,stride,order,nodes,cold_cycles_per_load,warm_cycles_per_load
// Build: nvcc -arch=sm_90 -O3 -o dramchase dramchase.cu     Run: ./dramchase > dramchase.csv
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>
#include <random>
#include <algorithm>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1); } } while (0)

__global__ void link(unsigned long long* table, const unsigned long long* offs, int k)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < k) table[offs[i] / 8] = offs[(i + 1) % k];
}

__global__ void chase(const unsigned long long* table, unsigned long long start, int k, long long* out)
{
    unsigned long long p = start;
    long long t0 = clock64();
    for (int i = 0; i < k; i++) {
        unsigned long long v;
        asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(v) : "l"(table + p / 8));
        p = v;
    }
    long long t1 = clock64();
    out[0] = t1 - t0;
    out[1] = (long long)p;
}

int main()
{
    const size_t big = (size_t)1024 << 20;
    unsigned long long *table, *offs;
    unsigned char* flush;
    long long* out;
    CK(cudaMalloc(&table, big));
    CK(cudaMalloc(&flush, (size_t)512 << 20));
    CK(cudaMalloc(&offs, 4096 * 8));
    CK(cudaMalloc(&out, 16));
    std::mt19937_64 rng(12345);
    printf("footprint_mib,stride,order,nodes,cold_cycles_per_load,warm_cycles_per_load\n");
    const size_t fs[] = {2, 8, 32, 128, 512, 1024};
    const size_t ss[] = {128, 4096, 65536, 2097152};
    for (size_t f : fs)
        for (size_t s : ss)
            for (int order = 0; order < 2; order++) {
                size_t slots = (f << 20) / s;
                if (slots < 16) continue;
                int k = (int)std::min<size_t>(4096, slots);
                std::vector<unsigned long long> o(k);
                if (order == 0) {
                    for (int i = 0; i < k; i++) o[i] = (unsigned long long)i * s;
                } else {
                    // k distinct slots drawn at random, in random order
                    std::vector<size_t> pick;
                    if (slots <= 65536) {
                        std::vector<size_t> all(slots);
                        for (size_t i = 0; i < slots; i++) all[i] = i;
                        std::shuffle(all.begin(), all.end(), rng);
                        pick.assign(all.begin(), all.begin() + k);
                    } else {
                        std::vector<size_t> seen;
                        while ((int)pick.size() < k) {
                            size_t c = rng() % slots;
                            if (std::find(pick.begin(), pick.end(), c) == pick.end()) pick.push_back(c);
                        }
                    }
                    for (int i = 0; i < k; i++) o[i] = pick[i] * s;
                }
                CK(cudaMemcpy(offs, o.data(), k * 8, cudaMemcpyHostToDevice));
                link<<<(k + 255) / 256, 256>>>(table, offs, k);
                CK(cudaMemset(flush, (int)(f & 0xff), (size_t)512 << 20));
                CK(cudaDeviceSynchronize());
                long long h[2];
                chase<<<1, 1>>>(table, o[0], k, out);
                CK(cudaMemcpy(h, out, 16, cudaMemcpyDeviceToHost));
                double cold = (double)h[0] / k;
                chase<<<1, 1>>>(table, o[0], k, out);
                CK(cudaMemcpy(h, out, 16, cudaMemcpyDeviceToHost));
                double warm = (double)h[0] / k;
                printf("%zu,%zu,%d,%d,%.1f,%.1f\n", f, s, order, k, cold, warm);
                fflush(stdout);
            }
    return 0;
}
