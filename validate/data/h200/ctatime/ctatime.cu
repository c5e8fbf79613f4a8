// Per-warp start and end times, and the SM, of two blind kernels the model runs fast (timing
// revision 35, SASS mode): blind4 row_l2_normalize (-33%: the H200's elapsed cycles are 2.0x its
// SMs' mean active cycles, the model's 1.6x) and blind6 bfs_level_sync_or (-38%, counters right).
// The kernels' bodies are the suites' own (workloads/suite/blind4 and blind6 kernel.cu); each warp's
// lane 0 records %smid and %globaltimer (ns, one clock for all SMs) and clock64 before and after
// the body. Same grids, blocks and inputs as the manifests (bfs: the simulator's inputs, dumped:
// see README). Each kernel runs 4 times, each after a 256 MiB memset that flushes the L2 as
// `warpsim validate gpu-run` does; every record of every run is printed.
// Build: nvcc -arch=sm_90 -O3 -lineinfo -o ctatime ctatime.cu      Run: ./ctatime DIR > out.csv
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

struct Rec { unsigned sm, pad; unsigned long long g0, g1; long long c0, c1; };

__device__ __forceinline__ unsigned smid() { unsigned s; asm volatile("mov.u32 %0, %%smid;" : "=r"(s)); return s; }
__device__ __forceinline__ unsigned long long gtime() { unsigned long long t; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); return t; }

__device__ __forceinline__ void rec_start(Rec* r) {
    if ((threadIdx.x & 31) == 0) { Rec* x = r + (blockIdx.x * blockDim.x + threadIdx.x) / 32; x->sm = smid(); x->g0 = gtime(); x->c0 = clock64(); }
}
__device__ __forceinline__ void rec_end(Rec* r) {
    if ((threadIdx.x & 31) == 0) { Rec* x = r + (blockIdx.x * blockDim.x + threadIdx.x) / 32; x->c1 = clock64(); x->g1 = gtime(); }
}

__device__ __forceinline__ void row_l2_body(const float* in, float* out, int rows, int cols)
{
    int row = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    int lane = threadIdx.x & 31;
    if (row >= rows) return;
    const float* src = in + (size_t)row * cols;
    float* dst = out + (size_t)row * cols;
    float s = 0.0f;
    for (int c = lane; c < cols; c += 32) {
        float v = src[c];
        s += v * v;
    }
    for (int d = 16; d > 0; d >>= 1) s += __shfl_xor_sync(0xffffffffu, s, d);
    float inv = 1.0f / sqrtf(s);
    for (int c = lane; c < cols; c += 32) dst[c] = src[c] * inv;
}

extern "C" __global__ void row_l2_normalize_t(const float* in, float* out, int rows, int cols, Rec* r)
{
    rec_start(r);
    row_l2_body(in, out, rows, cols);
    rec_end(r);
}

__device__ __forceinline__ void bfs_body(const int *row_ptr, const int *col_idx, int *level, int *flags, int n, int cur)
{
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    int changed = 0, front = 0;
    if (v < n && level[v] == cur) {
        front = 1;
        for (int e = row_ptr[v]; e < row_ptr[v + 1]; e++) {
            int u = col_idx[e];
            if (level[u] < 0) {
                level[u] = cur + 1;
                changed = 1;
            }
        }
    }
    int cnt = __syncthreads_count(front);
    int any = __syncthreads_or(changed);
    if (threadIdx.x == 0) {
        if (cnt)
            atomicAdd(&flags[1], cnt);
        if (any)
            flags[0] = 1;
    }
}

extern "C" __global__ void bfs_level_sync_t(const int *row_ptr, const int *col_idx, int *level, int *flags, int n, int cur, Rec* r)
{
    rec_start(r);
    bfs_body(row_ptr, col_idx, level, flags, n, cur);
    rec_end(r);
}

static std::vector<char> slurp(const char* dir, const char* name) {
    char p[512]; snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE* f = fopen(p, "rb"); if (!f) { fprintf(stderr, "cannot open %s\n", p); exit(1); }
    fseek(f, 0, SEEK_END); long n = ftell(f); fseek(f, 0, SEEK_SET);
    std::vector<char> b(n); if (fread(b.data(), 1, n, f) != (size_t)n) exit(1); fclose(f); return b;
}

static void dump(const char* kernel, int run, const std::vector<Rec>& h, int warps_per_cta) {
    for (size_t w = 0; w < h.size(); w++)
        printf("%s,%d,%zu,%zu,%u,%llu,%llu,%lld,%lld\n", kernel, run, w / warps_per_cta, w % warps_per_cta, h[w].sm, h[w].g0, h[w].g1, h[w].c0, h[w].c1);
}

int main(int argc, char** argv)
{
    const char* dir = argc > 1 ? argv[1] : ".";
    void* flush; cudaMalloc(&flush, 256u << 20);
    printf("kernel,run,cta,warp,sm,g0_ns,g1_ns,c0,c1\n");
    {   // row_l2_normalize: 1536 rows x 4096 f32, 192 x 256 threads
        const int rows = 1536, cols = 4096, warps = 192 * 8;
        std::vector<float> hin((size_t)rows * cols);
        for (size_t i = 0; i < hin.size(); i++) hin[i] = (float)((int)(i * 2654435761u % 17) - 8);
        float *in, *out; Rec* r; cudaMalloc(&in, hin.size() * 4); cudaMalloc(&out, hin.size() * 4); cudaMalloc(&r, warps * sizeof(Rec));
        cudaMemcpy(in, hin.data(), hin.size() * 4, cudaMemcpyHostToDevice);
        std::vector<Rec> h(warps);
        for (int run = 0; run < 4; run++) {
            cudaMemset(flush, run, 256u << 20);
            cudaMemset(r, 0, warps * sizeof(Rec));
            row_l2_normalize_t<<<192, 256>>>(in, out, rows, cols, r);
            cudaMemcpy(h.data(), r, warps * sizeof(Rec), cudaMemcpyDeviceToHost);
            dump("row_l2_normalize", run, h, 8);
        }
    }
    {   // bfs_level_sync_or: 250000 nodes, 2 Mi edges, 977 x 256 threads, cur = 2
        std::vector<char> rp = slurp(dir, "row_ptr.bin"), ci = slurp(dir, "col_idx.bin"), lv = slurp(dir, "level.bin");
        int* l = (int*)lv.data();
        for (size_t i = 0; i < lv.size() / 4; i++) if (l[i] == 3) l[i] = -1;  // the dump is after the run: 3 was -1
        int *row_ptr, *col_idx, *level, *flags; Rec* r; const int warps = 977 * 8;
        cudaMalloc(&row_ptr, rp.size()); cudaMalloc(&col_idx, ci.size()); cudaMalloc(&level, lv.size()); cudaMalloc(&flags, 8); cudaMalloc(&r, warps * sizeof(Rec));
        cudaMemcpy(row_ptr, rp.data(), rp.size(), cudaMemcpyHostToDevice);
        cudaMemcpy(col_idx, ci.data(), ci.size(), cudaMemcpyHostToDevice);
        std::vector<Rec> h(warps);
        for (int run = 0; run < 4; run++) {
            cudaMemcpy(level, lv.data(), lv.size(), cudaMemcpyHostToDevice);
            cudaMemset(flags, 0, 8);
            cudaMemset(flush, run, 256u << 20);
            cudaMemset(r, 0, warps * sizeof(Rec));
            bfs_level_sync_t<<<977, 256>>>(row_ptr, col_idx, level, flags, 250000, 2, r);
            cudaMemcpy(h.data(), r, warps * sizeof(Rec), cudaMemcpyDeviceToHost);
            dump("bfs_level_sync_or", run, h, 8);
        }
    }
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) { fprintf(stderr, "%s\n", cudaGetErrorString(e)); return 1; }
    return 0;
}
