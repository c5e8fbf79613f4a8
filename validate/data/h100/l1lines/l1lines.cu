// How fast an SM's L1 serves warp loads whose lanes touch n distinct lines, one sector each: the
// throughput (lines per cycle per SM) with w warps per SM each keeping 4 loads in flight, and the
// latency of one warp's dependent chain. Each warp has lines of its own (no sharing between warps).
//
// mode 0: plain loads of the same n lines every time (L1 hits after the warm-up pass).
// mode 1: ld.global.cg of the same n lines (L2 hits: the L1 is bypassed).
// mode 2: mode 0 plus, after each group of 4 loads, one coalesced store of a whole line of the
//         warp's own (write-through; gesummv's shape: tmp[i] and y[i] stored every iteration).
// mode 3: plain loads of fresh lines every iteration, n per load, from a region of 8 MiB per CTA
//         (1 GiB in all) walked once with no warm-up pass: L1 and L2 misses, read from DRAM.
// Lane l loads word ((l / n) + k) & 7 of line (l % n) of its warp's set: one sector per line.
// Per warp: %smid, clock64 at the start and end of the timed pass (after an untimed warm-up pass
// and __syncthreads). Per SM: lines per cycle = its warps' requests x n / (last end - first start).
// Latency rows (dep = 1): each load's address depends on the last (modes 0, 1, 3).
// Build: nvcc -arch=sm_90 -O3 -o l1lines l1lines.cu     Run: ./l1lines > l1lines.csv
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <vector>
#include <cuda_runtime.h>

__device__ __forceinline__ unsigned ld(const unsigned* p, int cg)
{
    unsigned v;
    if (cg) asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(p));
    else asm volatile("ld.global.u32 %0, [%1];" : "=r"(v) : "l"(p));
    return v;
}

extern "C" __global__ void l1lines(const unsigned* table, unsigned* sink, long long* rec, int n, int iters, int mode, int dep)
{
    unsigned lane = threadIdx.x & 31, wib = threadIdx.x >> 5, warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    unsigned smid;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
    int cg = mode == 1;
    // Mode 0-2: the warp's own 32 lines (4 KiB); mode 3: 8 MiB per CTA, 256 KiB per warp.
    const unsigned* set = mode == 3 ? table + (size_t)blockIdx.x * 2097152u + (size_t)wib * 65536u : table + (size_t)warp * 1024u;
    unsigned* out = sink + (size_t)warp * 32u;
    unsigned line = lane % (unsigned)n, word0 = lane / (unsigned)n;
    unsigned v = 0, acc = 0;
    long long t0 = 0;
    for (int pass = mode == 3 ? 1 : 0; pass < 2; pass++) {
        __syncthreads();
        if (pass == 1) t0 = clock64();
        for (int it = 0; it < iters; it++) {
            const unsigned* base = set + line * 32u + (mode == 3 ? (unsigned)it * (unsigned)n * 32u : 0u);
            if (dep) {
                v = ld(base + ((word0 + v) & 7u), cg);
            } else {
                unsigned a = ld(base + ((word0 + 0u) & 7u), cg);
                unsigned b = ld(base + ((word0 + 1u) & 7u), cg);
                unsigned c = ld(base + ((word0 + 2u) & 7u), cg);
                unsigned d = ld(base + ((word0 + 3u) & 7u), cg);
                acc += a ^ b ^ c ^ d;
                if (mode == 2) out[lane] = acc;
            }
        }
    }
    long long t1 = clock64();
    if (acc + v == 0x7fffffffu) sink[0] = 1;  // the table is zeros: never, but keeps the loads
    if (lane == 0) {
        rec[warp * 3] = smid;
        rec[warp * 3 + 1] = t0;
        rec[warp * 3 + 2] = t1;
    }
}

int main()
{
    const size_t words = (size_t)132 * 2097152u;  // 1056 MiB: mode 3's 8 MiB per CTA
    unsigned *table, *sink;
    long long* rec;
    if (cudaMalloc(&table, words * 4) != cudaSuccess) { fprintf(stderr, "alloc\n"); return 1; }
    cudaMemset(table, 0, words * 4);
    cudaMalloc(&sink, 132 * 32 * 32 * 4);
    cudaMalloc(&rec, 132 * 32 * 3 * 8);
    cudaFuncSetAttribute(l1lines, cudaFuncAttributePreferredSharedMemoryCarveout, 0);
    std::vector<long long> h(132 * 32 * 3);
    printf("mode,dep,n,warps_per_sm,iters,sms,lines_per_cycle_median,lines_per_cycle_min,lines_per_cycle_max,cycles_per_load_median\n");
    const int ns[] = {1, 2, 4, 8, 16, 32};
    const int ws[] = {1, 4, 8, 16, 32};
    for (int dep = 0; dep < 2; dep++)
        for (int mode = 0; mode < 4; mode++)
            for (int wi = 0; wi < 5; wi++)
                for (int n : ns) {
                    int w = ws[wi];
                    if (dep && mode == 2) continue;
                    int iters = mode == 3 ? 2048 / n : 256;
                    l1lines<<<132, w * 32>>>(table, sink, rec, n, iters, mode, dep);
                    cudaMemcpy(h.data(), rec, 132 * w * 3 * 8, cudaMemcpyDeviceToHost);
                    std::vector<long long> lo(132, -1), hi(132, -1);
                    std::vector<int> cnt(132, 0);
                    for (int k = 0; k < 132 * w; k++) {
                        int s = (int)h[k * 3];
                        if (s < 0 || s >= 132) continue;
                        lo[s] = lo[s] < 0 ? h[k * 3 + 1] : std::min(lo[s], h[k * 3 + 1]);
                        hi[s] = std::max(hi[s], h[k * 3 + 2]);
                        cnt[s]++;
                    }
                    std::vector<double> r, cyc;
                    for (int s = 0; s < 132; s++)
                        if (cnt[s] > 0) {
                            double loads = (double)cnt[s] * iters * (dep ? 1 : 4);
                            r.push_back(loads * n / (double)(hi[s] - lo[s]));
                            cyc.push_back((double)(hi[s] - lo[s]) / (loads / cnt[s]));
                        }
                    std::sort(r.begin(), r.end());
                    std::sort(cyc.begin(), cyc.end());
                    printf("%d,%d,%d,%d,%d,%zu,%.4f,%.4f,%.4f,%.1f\n", mode, dep, n, w, iters, r.size(), r[r.size() / 2], r.front(), r.back(), cyc[cyc.size() / 2]);
                }
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) { fprintf(stderr, "%s\n", cudaGetErrorString(e)); return 1; }
    return 0;
}
