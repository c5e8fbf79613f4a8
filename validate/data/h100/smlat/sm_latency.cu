// Per-SM memory latency and per-SM run time of one-wave kernels (one CTA per SM).
//
// Why: on one-wave memory-bound kernels the H200's elapsed cycles exceed the SMs' mean active
// cycles by 14-24% (membench mlp_ld1_l2_w8, mlp_ld4_l2_w8: sm__cycles_active.avg 124 k and 55 k
// against 144 k and 72 k elapsed), where the simulator's SMs all finish together (3-6 k cycles of
// launch). Compute-bound one-wave kernels show no such gap (ffma_ilp8, nbody_f64_rsqrt). This
// measures whether some SMs see longer memory latency than others, and how the per-SM run time of
// the mlp loops spreads.
//
// Kernels (one CTA per SM, grid = number of SMs, %smid recorded):
//   chase_l2:   lane 0 chases its CTA's own ring of 512 lines (64 KiB; all CTAs 8.25 MiB) with
//               ld.global.cg (L2 only): pass 0 warms, passes 1-2 are timed (clock64 per step).
//   chase_dram: lane 0 chases 2048 lines drawn at random from its CTA's own 8 MiB region (cold:
//               the L2 is flushed by a 512 MiB memset before the launch), one pass.
//   sum1 / sum4: the membench stream_sum_1 / stream_sum_4 loops (8 warps per SM, 16 passes over
//               8.25 MiB), each CTA recording its own clock64 run time and globaltimer start/end.
// Output (stdout, CSV): kernel,run,cta,smid,value,t_start_ns,t_end_ns. value = cycles per step
// for the chases, the CTA's cycles for the sums; times relative to the run's earliest start.
//
// Build: nvcc -arch=sm_90 -O3 -o sm_latency sm_latency.cu
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>
#include <random>
#include <algorithm>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1); } } while (0)

__device__ __forceinline__ unsigned smid() { unsigned r; asm volatile("mov.u32 %0, %%smid;" : "=r"(r)); return r; }
__device__ __forceinline__ unsigned long long gtime() { unsigned long long r; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(r)); return r; }

struct Rec { unsigned long long smid, value, t0, t1; };

__global__ void chase(const unsigned* __restrict__ ring, const unsigned* __restrict__ starts, int steps, int passes, Rec* out, unsigned* sink)
{
    if (threadIdx.x != 0) return;
    unsigned long long t0 = gtime();
    unsigned p = starts[blockIdx.x];
    long long timed = 0;
    for (int pass = 0; pass < passes; pass++) {
        long long c0 = clock64();
        for (int i = 0; i < steps; i++) p = __ldcg(ring + p);
        long long c1 = clock64();
        if (pass > 0 || passes == 1) timed += c1 - c0;
    }
    int n = passes > 1 ? (passes - 1) * steps : steps;
    out[blockIdx.x] = Rec{smid(), (unsigned long long)(timed * 100 / n), t0, gtime()};
    if (p == 0xFFFFFFFFu) sink[0] = p;
}

template <int U>
__global__ void stream_sum(const unsigned* buf, unsigned* outv, int lines, int reps, Rec* out)
{
    __shared__ long long c0;
    __shared__ unsigned long long t0;
    if (threadIdx.x == 0) { c0 = clock64(); t0 = gtime(); }
    __syncthreads();
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int threads = gridDim.x * blockDim.x;
    unsigned s = 0;
    for (int r = 0; r < reps; r++) {
        if (U == 1) {
#pragma unroll 1
            for (int l = t; l < lines; l += threads) s += buf[l];
        } else {
#pragma unroll 1
            for (int l = t; l < lines; l += 4 * threads) {
                unsigned a = buf[l], b = buf[l + threads], c = buf[l + 2 * threads], d = buf[l + 3 * threads];
                s += (a + b) + (c + d);
            }
        }
    }
    outv[t] = s;
    __syncthreads();
    if (threadIdx.x == 0) out[blockIdx.x] = Rec{smid(), (unsigned long long)(clock64() - c0), t0, gtime()};
}

static void print(const char* k, int run, std::vector<Rec>& r)
{
    unsigned long long t = ~0ull;
    for (auto& x : r) t = std::min(t, x.t0);
    for (size_t i = 0; i < r.size(); i++)
        printf("%s,%d,%zu,%llu,%llu,%llu,%llu\n", k, run, i, r[i].smid, r[i].value, r[i].t0 - t, r[i].t1 - t);
}

int main()
{
    int sms = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    fprintf(stderr, "%s, %d SMs, L2 %d B\n", prop.name, sms, prop.l2CacheSize);
    std::mt19937 rng(12345);
    // L2 rings: 512 lines per CTA, a random cycle through them; word index of line j of CTA k.
    const int L2L = 512, DRL = 2048;
    std::vector<unsigned> l2ring((size_t)sms * L2L * 32, 0), l2start(sms);
    for (int k = 0; k < sms; k++) {
        std::vector<unsigned> perm(L2L);
        for (int j = 0; j < L2L; j++) perm[j] = j;
        std::shuffle(perm.begin(), perm.end(), rng);
        for (int j = 0; j < L2L; j++) {
            unsigned from = (k * L2L + perm[j]) * 32, to = (k * L2L + perm[(j + 1) % L2L]) * 32;
            l2ring[from] = to;
        }
        l2start[k] = (k * L2L + perm[0]) * 32;
    }
    // DRAM rings: 2048 distinct random lines of each CTA's 8 MiB region.
    const size_t REG = 8u << 20, REGL = REG / 128;
    size_t drwords = (size_t)sms * REG / 4;
    std::vector<unsigned> drring(drwords, 0), drstart(sms);
    for (int k = 0; k < sms; k++) {
        std::vector<unsigned> lines(REGL);
        for (size_t j = 0; j < REGL; j++) lines[j] = j;
        std::shuffle(lines.begin(), lines.end(), rng);
        for (int j = 0; j < DRL; j++) {
            size_t from = (size_t)k * REGL * 32 + (size_t)lines[j] * 32, to = (size_t)k * REGL * 32 + (size_t)lines[(j + 1) % DRL] * 32;
            drring[from] = (unsigned)to;
        }
        drstart[k] = (unsigned)((size_t)k * REGL * 32 + (size_t)lines[0] * 32);
    }
    unsigned *dl2, *dl2s, *ddr, *ddrs, *sink, *flush, *buf, *outv;
    Rec* drec;
    const int LINES = sms * 256 * 64, REPS = 16;
    CK(cudaMalloc(&dl2, l2ring.size() * 4));
    CK(cudaMalloc(&dl2s, sms * 4));
    CK(cudaMalloc(&ddr, drwords * 4));
    CK(cudaMalloc(&ddrs, sms * 4));
    CK(cudaMalloc(&sink, 4));
    CK(cudaMalloc(&flush, 512u << 20));
    CK(cudaMalloc(&buf, (size_t)LINES * 4));
    CK(cudaMalloc(&outv, (size_t)sms * 256 * 4));
    CK(cudaMalloc(&drec, sms * sizeof(Rec)));
    CK(cudaMemcpy(dl2, l2ring.data(), l2ring.size() * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dl2s, l2start.data(), sms * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(ddr, drring.data(), drwords * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(ddrs, drstart.data(), sms * 4, cudaMemcpyHostToDevice));
    std::vector<unsigned> iota(LINES);
    for (int i = 0; i < LINES; i++) iota[i] = i;
    CK(cudaMemcpy(buf, iota.data(), (size_t)LINES * 4, cudaMemcpyHostToDevice));
    std::vector<Rec> rec(sms);
    printf("kernel,run,cta,smid,value,t_start_ns,t_end_ns\n");
    for (int run = 0; run < 3; run++) {
        CK(cudaMemset(flush, run, 512u << 20));
        chase<<<sms, 32>>>(dl2, dl2s, L2L * 4, 3, drec, sink);
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(rec.data(), drec, sms * sizeof(Rec), cudaMemcpyDeviceToHost));
        print("chase_l2", run, rec);
        CK(cudaMemset(flush, run + 7, 512u << 20));
        chase<<<sms, 32>>>(ddr, ddrs, DRL, 1, drec, sink);
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(rec.data(), drec, sms * sizeof(Rec), cudaMemcpyDeviceToHost));
        print("chase_dram", run, rec);
        CK(cudaMemset(flush, run + 3, 512u << 20));
        stream_sum<1><<<sms, 256>>>(buf, outv, LINES, REPS, drec);
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(rec.data(), drec, sms * sizeof(Rec), cudaMemcpyDeviceToHost));
        print("sum1", run, rec);
        CK(cudaMemset(flush, run + 5, 512u << 20));
        stream_sum<4><<<sms, 256>>>(buf, outv, LINES, REPS, drec);
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(rec.data(), drec, sms * sizeof(Rec), cudaMemcpyDeviceToHost));
        print("sum4", run, rec);
    }
    return 0;
}
