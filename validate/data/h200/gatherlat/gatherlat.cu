// How long a warp waits for a load whose lanes touch n distinct lines (L2 hits), alone and with
// other warps loading the same way: the model serves a warp's lines side by side and completes
// the load with its slowest line, and runs scattered dependent loads (blind6 bfs_level_sync_or,
// blind3 bfs_level: every warp 1.7x faster than an H100 runs it, validate/data/h200/ctatime) fast.
//
// A 4 MiB table of zeros (L2-resident after a warm-up pass; ld.global.cg, or plain loads whose
// lines the L1 cannot keep: each warp walks 1 MiB). Per iteration, lane l of a warp loads word
// (l / n) of line (l % n) * 33 + it * 1031 * n of its warp's region (n lines, 33 lines apart),
// plus the previous value (0): a dependent chain. Lane 0 writes (clock64 after - before) / iters
// of the timed pass. Configurations: n = 1, 2, 4, 8, 16, 32; cg 0 / 1; 1 warp, 8 warps per SM on
// 132 SMs, 32 warps per SM on 132 SMs.
// Build: nvcc -arch=sm_90 -O3 -o gatherlat gatherlat.cu     Run: ./gatherlat > gatherlat.csv
#include <cstdio>
#include <cuda_runtime.h>

extern "C" __global__ void gather_lat(const unsigned* table, long long* out, int n, int iters, int cg, unsigned words)
{
    unsigned lane = threadIdx.x & 31, warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    unsigned region = (warp * 262144u) % words;  // 1 MiB apart, wrapping in the table
    unsigned v = 0;
    long long t0 = 0;
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) { __syncwarp(); t0 = clock64(); }
        for (int it = 0; it < iters; it++) {
            unsigned line = (lane % n) * 33u + (unsigned)it * 1031u * (unsigned)n;
            unsigned idx = (region + line * 32u + lane / n + v) % words;
            v = cg ? __ldcg(table + idx) : table[idx];
        }
    }
    __syncwarp();
    long long t1 = clock64();
    if (lane == 0) out[warp] = (t1 - t0) / iters + v;  // v is 0 (the table), but keeps the loads
}

int main()
{
    const unsigned words = 1u << 20;
    unsigned* table; long long* out;
    cudaMalloc(&table, words * 4);
    cudaMemset(table, 0, words * 4);
    const int max_warps = 132 * 32;
    cudaMalloc(&out, max_warps * 8);
    static long long h[132 * 32];
    printf("n,cg,ctas,threads,iters,warps,min,median,max\n");
    const int ns[] = {1, 2, 4, 8, 16, 32};
    const int cfg[3][2] = {{1, 32}, {132, 256}, {132, 1024}};
    for (int c = 0; c < 3; c++)
        for (int cg = 0; cg < 2; cg++)
            for (int n : ns) {
                int iters = 256, warps = cfg[c][0] * cfg[c][1] / 32;
                cudaMemset(out, 0, max_warps * 8);
                gather_lat<<<cfg[c][0], cfg[c][1]>>>(table, out, n, iters, cg, words);
                cudaMemcpy(h, out, warps * 8, cudaMemcpyDeviceToHost);
                long long mn = h[0], mx = h[0];
                for (int w = 0; w < warps; w++) { mn = h[w] < mn ? h[w] : mn; mx = h[w] > mx ? h[w] : mx; }
                // median by counting
                long long med = mn;
                for (int w = 0; w < warps; w++) { int below = 0; for (int u = 0; u < warps; u++) below += h[u] < h[w]; if (below == warps / 2) { med = h[w]; break; } }
                printf("%d,%d,%d,%d,%d,%d,%lld,%lld,%lld\n", n, cg, cfg[c][0], cfg[c][1], iters, warps, mn, med, mx);
            }
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) { fprintf(stderr, "%s\n", cudaGetErrorString(e)); return 1; }
    return 0;
}
