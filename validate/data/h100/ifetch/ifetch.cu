// Instruction fetch: how fast an SM sub-partition (SMSP) issues straight-line code as the code its
// warps run outgrows the instruction caches. Each warp runs a loop whose body is N independent
// FFMAs (8 accumulators, so a warp alone could issue one a cycle), `reps` times. K copies of the
// loop, each with its own immediates (distinct machine code), and warp i of a CTA runs copy
// (i / 4) % K: the w warps of each SMSP run K different loops, so the code an SMSP runs at once is
// K x N x 16 bytes. One CTA of 128 x w threads per SM, 132 CTAs (w = 16: two CTAs of 1024 per SM).
// Per warp: %smid, clock64 around the loop. Per SM: IPC per SMSP = the SM's warps' FFMAs / 4 /
// (last end - first start). Rows: N, K, w, reps, SMs, IPC per SMSP (median, min, max over SMs),
// cycles per SM (median). K = 0 rows: `chain` (one dependent FFMA chain per warp, the code_chain
// probes' shape) instead.
// Build: nvcc -arch=sm_90 -O3 -o ifetch ifetch.cu     Run: ./ifetch [scale] > ifetch.csv
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <vector>
#include <cuda_runtime.h>

template <int N, int C>
__device__ __forceinline__ void body(float (&a)[8], float x, int reps)
{
#pragma unroll 1
    for (int r = 0; r < reps; r++) {
#pragma unroll
        for (int j = 0; j < N; j++) a[j & 7] = fmaf(a[j & 7], x, (float)(C * 8 + (j & 7) + 1) * 0.0009765625f);
    }
}

template <int N, int K>
__global__ void ifetch(float* out, long long* rec, int reps, float x)
{
    float a[8];
#pragma unroll
    for (int i = 0; i < 8; i++) a[i] = (float)threadIdx.x * 0.001f + (float)i;
    int copy = ((threadIdx.x >> 5) >> 2) % (K > 0 ? K : 1);
    unsigned smid;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
    __syncthreads();
    long long t0 = clock64();
    switch (copy) {
    case 0: body<N, 0>(a, x, reps); break;
    case 1: if (K > 1) body<N, 1>(a, x, reps); break;
    case 2: if (K > 2) body<N, 2>(a, x, reps); break;
    case 3: if (K > 3) body<N, 3>(a, x, reps); break;
    }
    long long t1 = clock64();
    float s = 0.f;
#pragma unroll
    for (int i = 0; i < 8; i++) s += a[i];
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    out[t] = s;
    if ((threadIdx.x & 31) == 0) {
        long long* r = rec + (size_t)(t >> 5) * 3;
        r[0] = smid;
        r[1] = t0;
        r[2] = t1;
    }
}

// The code_chain probes' shape (membench code_chain_N): one dependent FFMA chain per warp,
// v = fmaf(v, a, b) with a and b in registers, N unrolled steps per pass.
template <int N>
__global__ void chain(float* out, long long* rec, int reps, float a, float b)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    float v = (float)t * 0.001f;
    // a and b in per-thread registers, as code_chain_N has them (threadIdx.x >> 10 is 0).
    a = __int_as_float(__float_as_int(a) ^ (int)(threadIdx.x >> 10));
    b = __int_as_float(__float_as_int(b) ^ (int)(threadIdx.x >> 10));
    unsigned smid;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
    __syncthreads();
    long long t0 = clock64();
#pragma unroll 1
    for (int r = 0; r < reps; r++) {
#pragma unroll
        for (int j = 0; j < N; j++) v = fmaf(v, a, b);
    }
    long long t1 = clock64();
    out[t] = v;
    if ((threadIdx.x & 31) == 0) {
        long long* q = rec + (size_t)(t >> 5) * 3;
        q[0] = smid;
        q[1] = t0;
        q[2] = t1;
    }
}

static float* out;
static long long* rec;
static std::vector<long long> h(132 * 64 * 3);

template <int N, int K>
void run(int w, double scale)
{
    int reps = std::max(2, (int)(262144.0 * scale / N));
    // 128 x w threads per SM: one CTA, or for w = 16 two CTAs of 1024 threads on each SM.
    int ctas = w > 8 ? 132 * (w / 8) : 132, threads = w > 8 ? 1024 : 128 * w;
    if constexpr (K == 0)
        chain<N><<<ctas, threads>>>(out, rec, reps, 0.999f, 0.001f);
    else
        ifetch<N, K><<<ctas, threads>>>(out, rec, reps, 0.999f);
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess || cudaGetLastError() != cudaSuccess) {
        printf("# %d,%d,%d: %s\n", N, K, w, cudaGetErrorString(e));
        return;
    }
    cudaMemcpy(h.data(), rec, (size_t)132 * 4 * w * 3 * 8, cudaMemcpyDeviceToHost);
    std::vector<long long> lo(132, -1), hi(132, -1);
    std::vector<int> cnt(132, 0);
    for (int k = 0; k < 132 * 4 * w; k++) {
        int s = (int)h[k * 3];
        if (s < 0 || s >= 132) continue;
        lo[s] = lo[s] < 0 ? h[k * 3 + 1] : std::min(lo[s], h[k * 3 + 1]);
        hi[s] = std::max(hi[s], h[k * 3 + 2]);
        cnt[s]++;
    }
    std::vector<double> ipc, cyc;
    for (int s = 0; s < 132; s++)
        if (cnt[s] > 0) {
            double insts = (double)cnt[s] * N * reps / 4.0;
            ipc.push_back(insts / (double)(hi[s] - lo[s]));
            cyc.push_back((double)(hi[s] - lo[s]));
        }
    std::sort(ipc.begin(), ipc.end());
    std::sort(cyc.begin(), cyc.end());
    printf("%d,%d,%d,%d,%zu,%.4f,%.4f,%.4f,%.0f\n", N, K, w, reps, ipc.size(), ipc[ipc.size() / 2], ipc.front(), ipc.back(), cyc[cyc.size() / 2]);
    fflush(stdout);
}

template <int N>
void sweep(double scale)
{
    const int ws[] = {1, 2, 4, 8, 16};
    for (int w : ws) run<N, 1>(w, scale);
    for (int w : ws) if (w >= 2) run<N, 2>(w, scale);
    for (int w : ws) if (w >= 4) run<N, 4>(w, scale);
}

int main(int argc, char** argv)
{
    double scale = argc > 1 ? atof(argv[1]) : 1.0;
    cudaMalloc(&out, 132 * 2048 * 4);
    cudaMalloc(&rec, 132 * 64 * 3 * 8);
    printf("n,k,warps_per_smsp,reps,sms,ipc_per_smsp_median,ipc_per_smsp_min,ipc_per_smsp_max,cycles_median\n");
    const int cw[] = {1, 2, 4, 8, 16};
    for (int w : cw) run<64, 0>(w, scale);
    for (int w : cw) run<1024, 0>(w, scale);
    sweep<64>(scale);
    sweep<128>(scale);
    sweep<256>(scale);
    sweep<384>(scale);
    sweep<512>(scale);
    sweep<768>(scale);
    sweep<1024>(scale);
    sweep<1536>(scale);
    sweep<2048>(scale);
    sweep<4096>(scale);
    sweep<8192>(scale);
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) { fprintf(stderr, "%s\n", cudaGetErrorString(e)); return 1; }
    return 0;
}
