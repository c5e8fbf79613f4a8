// Returning atomics and reductions under contention: the membench `atom_bins` loop
// (counters[i % nbins] += in[i], 1 Mi updates, grid-stride) over a series of bin counts, with the
// old value read (ATOMG.E.ADD) or not (RED.E.ADD), at 8 and 62 warps per SM.
//
// Why: the model runs the H200's returning atomics over 128..1024 lines 26-38% fast
// (membench atom_bins_4096 -37%, atom_bins_1024 -27%, atom_bins_32k -26%) while the same shape
// over 1 or 4 lines (atom_bins_32/128) and over 32768 lines (atom_bins_1m) is within 9%; neither a
// per-SM limit on atomics in flight nor a per-slice rate fits all five (see the session note of
// 2026-12-05). This series gives the curve between them, REDs beside, to find the mechanism.
//
// Output (stdout, CSV): kind,nbins,grid,ms_median,ms_min,cycles_est (ms x the SM clock read
// from the device), 7 timed launches each after a warm-up. `atom_series once` launches each
// configuration once, for ncu (gpc__cycles_elapsed.max and the L2 atomic counters).
//
// Build: nvcc -arch=sm_90 -O3 -o atom_series atom_series.cu
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1); } } while (0)

__global__ void atom_bins(const unsigned* in, unsigned* counters, unsigned* flag, int n, int nbins)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        unsigned old = atomicAdd(&counters[i % nbins], in[i]);
        if (old == 0xFFFFFFFFu) flag[0] = 1;
    }
}

__global__ void red_bins(const unsigned* in, unsigned* counters, int n, int nbins)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&counters[i % nbins], in[i]);
}

int main(int argc, char** argv)
{
    // `atom_series once`: one launch per configuration (for ncu).
    const int reps = argc > 1 ? 1 : 7;
    const int n = 1 << 20;
    int clock_khz = 0, sms = 0;
    CK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    unsigned *in, *counters, *flag;
    CK(cudaMalloc(&in, n * 4));
    CK(cudaMalloc(&counters, n * 4));
    CK(cudaMalloc(&flag, 4));
    std::vector<unsigned> h(n);
    for (int i = 0; i < n; i++) h[i] = (i * 2654435761u) >> 28;
    CK(cudaMemcpy(in, h.data(), n * 4, cudaMemcpyHostToDevice));
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    printf("kind,nbins,grid,ms_median,ms_min,cycles_est\n");
    const int bins[] = {32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 131072, 1048576};
    const int grids[] = {1024, sms};
    for (int kind = 0; kind < 2; kind++)
        for (int g : grids)
            for (int nb : bins) {
                std::vector<float> t;
                for (int r = 0; r < reps + (reps > 1); r++) {
                    CK(cudaMemset(counters, 0, n * 4));
                    CK(cudaEventRecord(a));
                    if (kind == 0) atom_bins<<<g, 256>>>(in, counters, flag, n, nb);
                    else red_bins<<<g, 256>>>(in, counters, n, nb);
                    CK(cudaEventRecord(b));
                    CK(cudaEventSynchronize(b));
                    float ms;
                    CK(cudaEventElapsedTime(&ms, a, b));
                    if (r > 0 || reps == 1) t.push_back(ms);
                }
                std::sort(t.begin(), t.end());
                float med = t[t.size() / 2];
                printf("%s,%d,%d,%.5f,%.5f,%.0f\n", kind ? "red" : "atom", nb, g, med, t[0], med * clock_khz);
            }
    return 0;
}
