// Per-request timing of returning atomics under contention: the membench `atom_bins` loop
// (counters[i % nbins] += in[i], 1 Mi updates, grid-stride, 256-thread CTAs) with clock64 read
// around each load and each atomic, by every warp's lane 0.
//
// Why: at 62 warps per SM the H200 runs this loop over 32-1024 lines 26-38% slower than the model
// (validate/data/h200/atomseries), ATOM more than RED, while the same loop over 1-16 lines (the
// L2 slices' atomic rate binds) and over 32768 lines (no contention) is within 8%; the kernel's
// cycles look like the uncontended time plus the hot slices' work, where the model overlaps them.
// Whole-kernel times cannot tell a longer atomic round trip from burstier arrivals or a stalled
// load path; these per-warp times can: each record is [t0: before the load, t1: the load's value
// used, t2: the atomic's old value used, globaltimer at t2 (ns)], and `sms` holds each warp's SM.
//
// Output: for each configuration, `atom_time_<nbins>_g<grid>.bin` (int64 records, warp-major,
// ITERS per warp, 4 values each; then one int64 SM id per warp) and one CSV line per
// configuration on stdout: kind,nbins,grid,cycles_est (CUDA events x the SM clock) and the
// median / p90 / max of the load and atomic latencies over all records.
//
// Build: nvcc -arch=sm_90 -O3 -lineinfo -o atom_time atom_time.cu
// The same kernel in the simulator: manifests.py writes warpsim manifests (PTX beside them);
// `warpsim run M.toml --dump DIR` leaves DIR/rec.bin and DIR/sms.bin in the same layout.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1); } } while (0)

constexpr int ITERS = 32;  // records per warp (4 iterations at 1024 CTAs, 31 at 132)

extern "C" __global__ void atom_time(const unsigned* in, unsigned* counters, unsigned* flag, int n, int nbins,
                                     long long* rec, long long* sms)
{
    const int tid = blockIdx.x * blockDim.x + threadIdx.x;
    const int gw = tid >> 5;
    const bool lead = (threadIdx.x & 31) == 0;
    int it = 0;
    for (int i = tid; i < n; i += gridDim.x * blockDim.x, ++it) {
        const long long t0 = clock64();
        const unsigned v = in[i];
        if (v == 0xFFFFFFFEu) flag[1] = 1;  // a branch on the value: the clock below waits for it
        const long long t1 = clock64();
        const unsigned old = atomicAdd(&counters[i % nbins], v);
        if (old == 0xFFFFFFFFu) flag[0] = 1;
        const long long t2 = clock64();
        unsigned long long g;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g));
        if (lead && it < ITERS) {
            long long* r = rec + ((long long)gw * ITERS + it) * 4;
            r[0] = t0;
            r[1] = t1;
            r[2] = t2;
            r[3] = (long long)g;
        }
    }
    if (lead) {
        unsigned s;
        asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
        sms[gw] = s;
    }
}

static long long pct(std::vector<long long>& v, double p)
{
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[std::min(v.size() - 1, (size_t)(p * v.size()))];
}

int main()
{
    const int n = 1 << 20;
    int clock_khz = 0, nsm = 0;
    CK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
    CK(cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, 0));
    unsigned *in, *counters, *flag;
    CK(cudaMalloc(&in, n * 4));
    CK(cudaMalloc(&counters, n * 4));
    CK(cudaMalloc(&flag, 8));
    std::vector<unsigned> h(n);
    for (int i = 0; i < n; i++) h[i] = (i * 2654435761u) >> 28;
    CK(cudaMemcpy(in, h.data(), n * 4, cudaMemcpyHostToDevice));
    const int maxw = 1024 * 256 / 32;
    long long *rec, *sms;
    CK(cudaMalloc(&rec, (size_t)maxw * ITERS * 4 * 8));
    CK(cudaMalloc(&sms, (size_t)maxw * 8));
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    printf("kind,nbins,grid,cycles_est,load_p50,load_p90,load_max,atom_p50,atom_p90,atom_max\n");
    const int bins[] = {32, 1024, 4096, 32768, 131072, 1048576};
    const int grids[] = {1024, nsm};
    for (int g : grids)
        for (int nb : bins) {
            const int warps = g * 256 / 32;
            float ms = 0;
            for (int r = 0; r < 2; r++) {  // a warm-up, then the recorded launch
                CK(cudaMemset(counters, 0, n * 4));
                CK(cudaMemset(rec, 0, (size_t)warps * ITERS * 4 * 8));
                CK(cudaEventRecord(a));
                atom_time<<<g, 256>>>(in, counters, flag, n, nb, rec, sms);
                CK(cudaEventRecord(b));
                CK(cudaEventSynchronize(b));
                CK(cudaEventElapsedTime(&ms, a, b));
            }
            std::vector<long long> r((size_t)warps * ITERS * 4), s(warps);
            CK(cudaMemcpy(r.data(), rec, r.size() * 8, cudaMemcpyDeviceToHost));
            CK(cudaMemcpy(s.data(), sms, s.size() * 8, cudaMemcpyDeviceToHost));
            char name[64];
            snprintf(name, sizeof name, "atom_time_%d_g%d.bin", nb, g);
            FILE* f = fopen(name, "wb");
            fwrite(r.data(), 8, r.size(), f);
            fwrite(s.data(), 8, s.size(), f);
            fclose(f);
            std::vector<long long> ld, at;
            for (size_t k = 0; k < r.size(); k += 4)
                if (r[k + 2] != 0) {
                    ld.push_back(r[k + 1] - r[k]);
                    at.push_back(r[k + 2] - r[k + 1]);
                }
            printf("atom,%d,%d,%.0f,%lld,%lld,%lld,%lld,%lld,%lld\n", nb, g, ms * clock_khz, pct(ld, 0.5), pct(ld, 0.9),
                   pct(ld, 1.0), pct(at, 0.5), pct(at, 0.9), pct(at, 1.0));
        }
    return 0;
}
