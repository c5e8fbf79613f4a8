// How fast an SM sends warp loads whose lanes touch n distinct lines, one sector each, past its L1
// to the L2 and back, when every line is an L1 miss and an L2 hit: the rate of the L1's miss path
// (lines per cycle per SM) with w warps per SM each keeping 4 loads in flight, and one warp's
// dependent latency. `ld.global.cg` keeps the lines out of the L1; unlike l1lines' mode 1 the four
// loads in flight never share a line (l1lines found `.cg` loads merging onto a fill in flight), so
// every line of every load is its own L2 request.
//
// Each warp owns 4n lines (n = 1 ... 32: up to 16 KiB; 132 SMs x 16 warps x 16 KiB = 33 MiB, in
// the L2 after the warm-up pass). Load q (0-3) of every iteration reads lines q*n ... q*n+n-1 of
// the warp's set, lane l line q*n + l % n; its j = l / n-th lane of that line reads sector j % s of
// it (s = 1, 2 or 4 sectors per line, n*s <= 32), word (j / s + it) & 7 of that sector.
// mode 0: .cg (L2 hits); mode 1: plain loads of the same lines (L1 hits once warm, for scale).
// Per warp: %smid, clock64 at the start and end of the timed pass (after an untimed warm-up pass
// and __syncthreads). Per SM: lines per cycle = its warps' loads x n / (last end - first start).
// Latency rows (dep = 1): one load per iteration whose address depends on the last.
// Build: nvcc -arch=sm_90 -O3 -o l2lines l2lines.cu     Run: ./l2lines > l2lines.csv
#include <cstdio>
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

extern "C" __global__ void l2lines(const unsigned* table, unsigned* sink, long long* rec, int n, int s, int iters, int mode, int dep)
{
    unsigned lane = threadIdx.x & 31, warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    unsigned smid;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
    int cg = mode == 0;
    const unsigned* set = table + (size_t)warp * 4096u;  // 16 KiB = 128 lines per warp
    unsigned line = lane % (unsigned)n, j = lane / (unsigned)n;
    unsigned sector = j % (unsigned)s, word0 = j / (unsigned)s;
    unsigned v = 0, acc = 0;
    long long t0 = 0;
    for (int pass = 0; pass < 2; pass++) {
        __syncthreads();
        if (pass == 1) t0 = clock64();
        for (int it = 0; it < iters; it++) {
            unsigned w = sector * 8u + ((word0 + (unsigned)it) & 7u);
            if (dep) {
                const unsigned* p = set + ((unsigned)(it & 3) * n + line) * 32u;
                v = ld(p + ((w + v) & 31u), cg);
            } else {
                unsigned a = ld(set + (0u * n + line) * 32u + w, cg);
                unsigned b = ld(set + (1u * n + line) * 32u + w, cg);
                unsigned c = ld(set + (2u * n + line) * 32u + w, cg);
                unsigned d = ld(set + (3u * n + line) * 32u + w, cg);
                acc += a ^ b ^ c ^ d;
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
    const size_t words = (size_t)132 * 16 * 4096u;  // 33 MiB
    unsigned *table, *sink;
    long long* rec;
    if (cudaMalloc(&table, words * 4) != cudaSuccess) { fprintf(stderr, "alloc\n"); return 1; }
    cudaMemset(table, 0, words * 4);
    cudaMalloc(&sink, 4096);
    cudaMalloc(&rec, 132 * 16 * 3 * 8);
    cudaFuncSetAttribute(l2lines, cudaFuncAttributePreferredSharedMemoryCarveout, 0);
    std::vector<long long> h(132 * 16 * 3);
    printf("mode,dep,n,sectors_per_line,warps_per_sm,iters,sms,lines_per_cycle_median,lines_per_cycle_min,lines_per_cycle_max,cycles_per_load_median\n");
    const int ns[] = {1, 2, 4, 8, 16, 32};
    const int ws[] = {1, 4, 8, 16};
    for (int dep = 0; dep < 2; dep++)
        for (int mode = 0; mode < 2; mode++)
            for (int w : ws)
                for (int n : ns)
                    for (int sp = 1; sp <= 4; sp *= 2) {
                    if (n * sp > 32 || (dep && sp > 1)) continue;
                    int iters = 256;
                    l2lines<<<132, w * 32>>>(table, sink, rec, n, sp, iters, mode, dep);
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
                    printf("%d,%d,%d,%d,%d,%d,%zu,%.4f,%.4f,%.4f,%.1f\n", mode, dep, n, sp, w, iters, r.size(), r[r.size() / 2], r.front(), r.back(), cyc[cyc.size() / 2]);
                }
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) { fprintf(stderr, "%s\n", cudaGetErrorString(e)); return 1; }
    return 0;
}
