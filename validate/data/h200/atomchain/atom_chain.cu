// Closed-loop L2 latency under load: every warp runs a dependent chain of ITERS warp-wide
// operations (each lane its own word of one 128-byte line, as atom_bins' warps do), the next
// line chosen from the previous result, over NLINES lines shared by all warps, with W warps on
// each of the device's SMs. With N warps in flight the round trip is about max(unloaded latency,
// N x (the busiest L2 slice's service time per request) / the slices the lines spread over), so
// the curve of round trip against W and NLINES measures the L2's atomic (op 0) and load (op 1,
// ld.global.cg) service rates directly: what the atomseries' whole-kernel times could not
// separate from burstier arrivals. Op 2 mixes the two in one launch: even warps run the atomic
// chain, odd warps the load chain on line ^ 4 (the same L2 slice: lines k, k+1, k+4, k+5 of each
// 1 KiB share one, validate/data/h200/l2hash; another line when NLINES <= 4, lines that also take
// atomics from 8 on): do loads wait behind a slice's atomics? Its rows are op 2 (the atomic
// warps) and op 3 (the load warps).
//
// Output: one CSV line per configuration: op,nlines,warps_per_sm,ctas,cycles_est (CUDA events x
// the SM clock), rt_mean,rt_p50,rt_p90,rt_max (cycles per operation, over warps: each warp's
// clock64 span / ITERS), sms_distinct (how many SMs the warps ran on).
// `atom_chain OP NLINES W [TWINS]` runs one configuration (for ncu); with no arguments, the sweep;
// `atom_chain twins` the twin test: TWINS = 1 takes lines 16 at a time with 16 skipped between
// (0-15, 32-47, ...: lines 32 apart are homed in different partitions, ../l2hash/partition.csv,
// so half the hot slices may be the other half's near slices), TWINS = 0 consecutive lines;
// op 4 is a reduction flood (no old value, no chain: cycles_est is what it measures).
// Build: nvcc -arch=sm_90 -O3 -lineinfo -o atom_chain atom_chain.cu
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <vector>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1); } } while (0)

constexpr int ITERS = 64;

extern "C" __global__ void atom_chain(unsigned* words, unsigned* flag, int nlines, int op, int twins, long long* out)
{
    const int lane = threadIdx.x & 31;
    const int gw = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    unsigned line = (unsigned)(gw * 37) % (unsigned)nlines;
    unsigned acc = 0;
    // Every line into the L2 first (the simulator starts each launch with a cold L2, as ncu's
    // cache flush leaves the device; here the warm-up launch has done it already).
    for (unsigned l = gw; l < (unsigned)nlines; l += gridDim.x * blockDim.x / 32)
        acc += __ldcg(words + (twins ? (l & 15) | (l >> 4) << 5 : l) * 32 + lane);
    __syncthreads();
    const long long t0 = clock64();
    for (int k = 0; k < ITERS; k++) {
        const bool atomic = op == 0 || (op == 2 && (gw & 1) == 0);
        const unsigned at = twins ? (line & 15) | (line >> 4) << 5 : line;
        unsigned* p = words + (atomic || op != 2 ? at : at ^ 4) * 32 + lane;
        if (op == 4) {
            atomicAdd(p, 1u);
            line = line + 1 == (unsigned)nlines ? 0 : line + 1;
            continue;
        }
        const unsigned v = atomic ? atomicAdd(p, 1u) : __ldcg(p);
        acc += v;
        line += 1 + (v >> 31);  // the next address waits for this result
        if (line >= (unsigned)nlines) line -= nlines;
    }
    const long long t1 = clock64();
    if (acc == 0xFFFFFFFFu) flag[0] = 1;
    if (lane == 0) {
        unsigned s;
        asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
        out[gw * 2] = t1 - t0;
        out[gw * 2 + 1] = s;
    }
}

static long long pct(std::vector<long long> v, double p)
{
    std::sort(v.begin(), v.end());
    return v[std::min(v.size() - 1, (size_t)(p * v.size()))];
}

int main(int argc, char** argv)
{
    int clock_khz = 0, nsm = 0;
    CK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
    CK(cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, 0));
    const int maxlines = 1 << 16;
    unsigned *words, *flag;
    long long* out;
    CK(cudaMalloc(&words, (size_t)maxlines * 128));
    CK(cudaMalloc(&flag, 8));
    CK(cudaMalloc(&out, (size_t)nsm * 64 * 2 * 8));
    CK(cudaMemset(words, 0, (size_t)maxlines * 128));
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    std::vector<int> ops = {0, 1, 2}, lines = {1, 4, 16, 64, 256, 1024, 4096, 65536}, ws = {1, 2, 4, 8, 16, 32, 64};
    std::vector<int> twinss = {0};
    if (argc == 2) {  // the twin test
        ops = {0, 4};
        lines = {16, 32, 64, 128};
        ws = {32, 64};
        twinss = {0, 1};
    } else if (argc >= 4) {
        ops = {atoi(argv[1])};
        lines = {atoi(argv[2])};
        ws = {atoi(argv[3])};
        twinss = {argc > 4 ? atoi(argv[4]) : 0};
    }
    printf("op,nlines,warps_per_sm,ctas,cycles_est,rt_mean,rt_p50,rt_p90,rt_max,sms_distinct%s\n", argc == 2 ? ",twins" : "");
    for (int tw : twinss)
    for (int op : ops)
        for (int nl : lines)
            for (int w : ws) {
                const int ctas = w <= 32 ? nsm : 2 * nsm, threads = w <= 32 ? 32 * w : 1024;
                const int warps = ctas * threads / 32;
                float ms = 0;
                for (int r = 0; r < 2; r++) {  // a warm-up (the lines into L2), then the recorded launch
                    CK(cudaEventRecord(a));
                    atom_chain<<<ctas, threads>>>(words, flag, nl, op, tw, out);
                    CK(cudaEventRecord(b));
                    CK(cudaEventSynchronize(b));
                    CK(cudaEventElapsedTime(&ms, a, b));
                }
                std::vector<long long> o((size_t)warps * 2);
                CK(cudaMemcpy(o.data(), out, o.size() * 8, cudaMemcpyDeviceToHost));
                for (int half = 0; half < (op == 2 ? 2 : 1); half++) {  // op 2: the atomic warps, then the load warps
                    std::vector<long long> rt;
                    std::set<long long> sms;
                    double sum = 0;
                    for (int k = half; k < warps; k += op == 2 ? 2 : 1) {
                        rt.push_back(o[2 * k] / ITERS);
                        sum += (double)o[2 * k] / ITERS;
                        sms.insert(o[2 * k + 1]);
                    }
                    printf("%d,%d,%d,%d,%.0f,%.1f,%lld,%lld,%lld,%zu", op + half, nl, w, ctas, ms * clock_khz,
                           sum / rt.size(), pct(rt, 0.5), pct(rt, 0.9), pct(rt, 1.0), sms.size());
                    printf(argc == 2 ? ",%d\n" : "\n", tw);
                }
                fflush(stdout);
            }
    return 0;
}
