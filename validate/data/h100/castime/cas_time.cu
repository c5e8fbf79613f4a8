// CAS retry loops timed attempt by attempt (for the H200; written 2026-12-07). Every lane adds
// in[i] to counters[i % nbins] in f32 through an atomicCAS loop, as membench's cas_fadd does; the
// warp's lane 0 records, for each CAS the warp issues (up to MAXREC per warp): clock64 before the
// CAS, clock64 after its value is back, the lanes that succeeded (popc of the ballot), the lanes
// that tried, and %globaltimer. The model's CAS rows (cas_fadd_1_c1/_s8/_s64, cas_fadd_64_s8,
// blind5 cas_fadd_4) miss by -45% to +44% with the right attempt counts in some and not others:
// these records say what a round trip costs under contention and how successes are spaced.
// Output: castime.csv (one row per configuration: launch cycles by event, attempts, lane
// attempts, successes, CAS round trip p10/p50/p90/max, cycles between a warp's CASes p50,
// successes per attempt) and castime_<name>.bin (int64 records: warp-major, MAXREC x 5, then
// the warps' %smid).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1); } } while (0)
constexpr int MAXREC = 2048;

extern "C" __global__ void cas_time(const float* in, float* counters, int n, int nbins, long long* rec, long long* sms)
{
    const int gw = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const bool lead = (threadIdx.x & 31) == 0;
    int r = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        unsigned* p = (unsigned*)&counters[i % nbins];
        const float v = in[i];
        unsigned old = *p, assumed;
        bool done = false;
        while (!done) {
            assumed = old;
            const unsigned mask = __activemask();
            const long long t0 = clock64();
            old = atomicCAS(p, assumed, __float_as_uint(__uint_as_float(assumed) + v));
            done = old == assumed;
            const unsigned won = __ballot_sync(mask, done);
            const long long t1 = clock64();
            unsigned long long g;
            asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g));
            if ((threadIdx.x & 31) == __ffs(mask) - 1 && r < MAXREC) {
                long long* o = rec + ((long long)gw * MAXREC + r) * 5;
                o[0] = t0; o[1] = t1; o[2] = __popc(won); o[3] = __popc(mask); o[4] = (long long)g;
            }
            ++r;
        }
        r = __reduce_max_sync(__activemask(), (unsigned)r);  // the warp's attempts so far
    }
    if (lead) {
        unsigned s;
        asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
        sms[gw] = s;
    }
}

struct Config { const char* name; int grid, block, n, nbins; };

int main(int argc, char** argv)
{
    const char* dir = argc > 1 ? argv[1] : ".";
    const Config cfgs[] = {
        {"w1", 1, 32, 32, 1},        // cas_fadd_1_w1
        {"c1", 1, 256, 256, 1},      // cas_fadd_1_c1: 8 warps of one SM
        {"s8", 8, 32, 256, 1},       // cas_fadd_1_s8: one warp on each of 8 SMs
        {"s64", 64, 32, 2048, 1},    // cas_fadd_1_s64
        {"c1_64", 1, 256, 256, 64},  // cas_fadd_64_c1
        {"s8_64", 8, 256, 2048, 64}, // cas_fadd_64_s8
        {"w1_32", 1, 32, 32, 32},    // cas_fadd_32_w1: no contention
    };
    const int maxn = 2048;
    std::vector<float> hin(maxn);
    for (int i = 0; i < maxn; ++i) hin[i] = (float)(1 + i % 8);
    float *in, *counters; long long *rec, *sms;
    CK(cudaMalloc(&in, maxn * 4)); CK(cudaMalloc(&counters, 64 * 4));
    CK(cudaMemcpy(in, hin.data(), maxn * 4, cudaMemcpyHostToDevice));
    const int maxw = 64 * 8;
    CK(cudaMalloc(&rec, (size_t)maxw * MAXREC * 5 * 8)); CK(cudaMalloc(&sms, maxw * 8));
    cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
    char path[512];
    snprintf(path, sizeof path, "%s/castime.csv", dir);
    FILE* csv = fopen(path, "w");
    fprintf(csv, "name,grid,block,n,nbins,event_us,attempts,lane_attempts,successes,rt_p10,rt_p50,rt_p90,rt_max,gap_p50,succ_per_attempt\n");
    for (const Config& c : cfgs) {
        const int warps = c.grid * c.block / 32;
        std::vector<long long> h((size_t)warps * MAXREC * 5), hs(warps);
        float best = 1e30f;
        for (int rep = 0; rep < 4; ++rep) {
            CK(cudaMemset(counters, 0, 64 * 4));
            CK(cudaMemset(rec, 0, (size_t)warps * MAXREC * 5 * 8));
            CK(cudaEventRecord(e0));
            cas_time<<<c.grid, c.block>>>(in, counters, c.n, c.nbins, rec, sms);
            CK(cudaEventRecord(e1)); CK(cudaEventSynchronize(e1));
            float ms; CK(cudaEventElapsedTime(&ms, e0, e1));
            if (rep > 0 && ms < best) {  // keep the fastest timed launch's records
                best = ms;
                CK(cudaMemcpy(h.data(), rec, h.size() * 8, cudaMemcpyDeviceToHost));
                CK(cudaMemcpy(hs.data(), sms, warps * 8, cudaMemcpyDeviceToHost));
            }
        }
        std::vector<long long> rt, gap;
        long long attempts = 0, lanes = 0, succ = 0;
        for (int w = 0; w < warps; ++w)
            for (int k = 0; k < MAXREC; ++k) {
                const long long* o = &h[((size_t)w * MAXREC + k) * 5];
                if (o[1] == 0) break;
                ++attempts; lanes += o[3]; succ += o[2];
                rt.push_back(o[1] - o[0]);
                if (k > 0) gap.push_back(o[0] - h[((size_t)w * MAXREC + k - 1) * 5]);
            }
        auto q = [](std::vector<long long>& v, double f) { if (v.empty()) return 0LL; std::sort(v.begin(), v.end()); return v[std::min(v.size() - 1, (size_t)(f * v.size()))]; };
        fprintf(csv, "%s,%d,%d,%d,%d,%.3f,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%.4f\n", c.name, c.grid, c.block, c.n, c.nbins, best * 1000.0,
                attempts, lanes, succ, q(rt, .1), q(rt, .5), q(rt, .9), rt.empty() ? 0 : rt.back(), q(gap, .5), attempts ? (double)succ / attempts : 0.0);
        snprintf(path, sizeof path, "%s/castime_%s.bin", dir, c.name);
        FILE* b = fopen(path, "wb");
        fwrite(h.data(), 8, h.size(), b); fwrite(hs.data(), 8, hs.size(), b); fclose(b);
    }
    fclose(csv);
    return 0;
}
