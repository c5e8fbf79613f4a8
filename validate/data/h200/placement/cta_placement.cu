// Where the H200 puts a grid's CTAs and when each one runs: every CTA's thread 0 records its SM
// (%smid) and %globaltimer at entry and, after a barrier, at exit. Two kernels:
//   rows  - membench's row_xor_max body (one warp per 16 KiB row, the row read twice, out = in ^ max):
//           the shape of membench rows_xor_* and blind4 row_l2_normalize (8 warps, 128 KiB per CTA)
//   spin  - a fixed FFMA chain per thread (no memory): placement without memory effects
// Grids of 256 threads: 66, 132, 192, 200, 264, 396 CTAs. Each configuration runs once to warm up,
// then once recorded. Output (stdout, CSV): kernel,grid,cta,smid,start_ns,end_ns (ns from the
// launch's earliest entry), then one summary line per launch.
//   nvcc -arch=sm_90 -O3 -o cta_placement cta_placement.cu && ./cta_placement > placement.csv
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
typedef unsigned int u32;
typedef unsigned long long u64;

__device__ __forceinline__ u64 gtimer() { u64 t; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); return t; }
__device__ __forceinline__ u32 smid() { u32 s; asm volatile("mov.u32 %0, %%smid;" : "=r"(s)); return s; }

extern "C" __global__ void rows(const u32* in, u32* out, int nrows, int cols, u64* rec)
{
    u64 t0 = gtimer();
    int row = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    int lane = threadIdx.x & 31;
    if (row < nrows) {
        const u32* src = in + (size_t)row * cols;
        u32* dst = out + (size_t)row * cols;
        u32 m = 0;
        for (int c = lane; c < cols; c += 32) m = max(m, src[c]);
        for (int d = 16; d > 0; d >>= 1) m = max(m, __shfl_xor_sync(0xffffffffu, m, d));
        for (int c = lane; c < cols; c += 32) dst[c] = src[c] ^ m;
    }
    __syncthreads();
    if (threadIdx.x == 0) { rec[blockIdx.x * 3] = smid(); rec[blockIdx.x * 3 + 1] = t0; rec[blockIdx.x * 3 + 2] = gtimer(); }
}

extern "C" __global__ void spin(float* out, int iters, u64* rec)
{
    u64 t0 = gtimer();
    float a = threadIdx.x * 1e-3f, b = 1.0001f, c = 0.5f;
    for (int i = 0; i < iters; i++) { a = fmaf(a, b, c); c = fmaf(c, b, a); }
    if (a == 12345.0f) out[threadIdx.x] = c;
    __syncthreads();
    if (threadIdx.x == 0) { rec[blockIdx.x * 3] = smid(); rec[blockIdx.x * 3 + 1] = t0; rec[blockIdx.x * 3 + 2] = gtimer(); }
}

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e)); exit(1); } } while (0)

static void report(const char* k, int grid, std::vector<u64>& h)
{
    u64 t0 = ~0ull, t1 = 0;
    for (int i = 0; i < grid; i++) { t0 = std::min(t0, h[i * 3 + 1]); t1 = std::max(t1, h[i * 3 + 2]); }
    std::vector<int> per(256, 0);
    for (int i = 0; i < grid; i++) {
        printf("%s,%d,%d,%llu,%llu,%llu\n", k, grid, i, h[i * 3], h[i * 3 + 1] - t0, h[i * 3 + 2] - t0);
        per[h[i * 3] & 255]++;
    }
    int used = 0, most = 0;
    for (int s = 0; s < 256; s++) { used += per[s] > 0; most = std::max(most, per[s]); }
    fprintf(stderr, "%s grid %d: %d SMs used, at most %d CTAs on one, span %.1f us\n", k, grid, used, most, (t1 - t0) / 1e3);
}

int main()
{
    const int cols = 4096, maxgrid = 396, maxrows = maxgrid * 8;
    u32 *in, *out; u64* rec; float* fo;
    CK(cudaMalloc(&in, (size_t)maxrows * cols * 4));
    CK(cudaMalloc(&out, (size_t)maxrows * cols * 4));
    CK(cudaMalloc(&rec, maxgrid * 3 * 8));
    CK(cudaMalloc(&fo, 1024 * 4));
    std::vector<u32> h((size_t)maxrows * cols);
    for (size_t i = 0; i < h.size(); i++) h[i] = (u32)(i * 2654435761u) >> 8;
    CK(cudaMemcpy(in, h.data(), h.size() * 4, cudaMemcpyHostToDevice));
    printf("kernel,grid,cta,smid,start_ns,end_ns\n");
    const int grids[] = {66, 132, 192, 200, 264, 396};
    std::vector<u64> hr(maxgrid * 3);
    for (int g : grids) {
        for (int pass = 0; pass < 2; pass++) {
            rows<<<g, 256>>>(in, out, g * 8, cols, rec);
            CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
        }
        CK(cudaMemcpy(hr.data(), rec, g * 3 * 8, cudaMemcpyDeviceToHost));
        report("rows", g, hr);
        for (int pass = 0; pass < 2; pass++) {
            spin<<<g, 256>>>(fo, 20000, rec);
            CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
        }
        CK(cudaMemcpy(hr.data(), rec, g * 3 * 8, cudaMemcpyDeviceToHost));
        report("spin", g, hr);
    }
    return 0;
}
