// Whether reads of one line by several SMs at about the same time reach the L2's slices once or
// once per SM: the L2 request coalescer. One warp per CTA, one CTA per SM (132 CTAs); CTA b
// belongs to group b % groups and reads its group's 1024 lines (128 KiB), a whole line per warp
// load (32 lanes x 4 B: 4 sectors), 8 loads in flight, with ld.global.cg (L1 bypassed), `reps`
// passes (the first from DRAM, the rest L2 hits). So 132 / groups SMs share every line
// (groups = 132: none). CTA b first spins for (b / groups) x stagger cycles of its own clock, so
// that the SMs sharing a line ask for it `stagger` cycles apart (0: together).
// Without a coalescer the slices look up every SM's sectors (lts__t_sectors_srcunit_tex_op_read =
// l1tex__t_sectors_pipe_lsu_mem_global_op_ld, or more with two partitions); with one, the lookups
// fall with the sharing until its merge limit, and rise again with the stagger (its window).
// Columns: groups, sharing (SMs per line), stagger, reps, time (us, median of 5) and cycles of the
// slowest CTA (its clock64 from after the spin to its end).
// Build: nvcc -arch=sm_90 -O3 -o lrc lrc.cu     Run: ./lrc > lrc.csv
#include <cstdio>
#include <algorithm>
#include <vector>
#include <cuda_runtime.h>

__device__ __forceinline__ unsigned ldcg(const unsigned* p)
{
    unsigned v;
    asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(p));
    return v;
}

extern "C" __global__ void lrc(const unsigned* buf, unsigned* sink, long long* rec, int groups, int stagger, int reps)
{
    const int lines = 1024;
    int g = blockIdx.x % groups, rank = blockIdx.x / groups;
    const unsigned* set = buf + (size_t)g * lines * 32u + threadIdx.x;
    long long s0 = clock64();
    while (clock64() - s0 < (long long)rank * stagger) {
    }
    long long t0 = clock64();
    unsigned acc = 0;
    for (int r = 0; r < reps; r++) {
        for (int i = 0; i < lines; i += 8) {
            unsigned a[8];
#pragma unroll
            for (int k = 0; k < 8; k++) a[k] = ldcg(set + (size_t)(i + k) * 32u);
#pragma unroll
            for (int k = 0; k < 8; k++) acc += a[k];
        }
    }
    long long t1 = clock64();
    if (acc == 0x7fffffffu) sink[0] = 1;  // the buffer is zeros: never, but keeps the loads
    if (threadIdx.x == 0) rec[blockIdx.x] = t1 - t0;
}

int main()
{
    const int ctas = 132, lines = 1024;
    unsigned *buf, *sink;
    long long* rec;
    cudaMalloc(&buf, (size_t)ctas * lines * 128);
    cudaMemset(buf, 0, (size_t)ctas * lines * 128);
    cudaMalloc(&sink, 4);
    cudaMalloc(&rec, ctas * sizeof(long long));
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    printf("groups,sharing,stagger,reps,time_us,cycles_max\n");
    const int groups_list[] = {132, 66, 33, 22, 12, 6, 4, 1};
    const int stagger_list[] = {0, 500, 2000, 8000};
    for (int groups : groups_list) {
        for (int stagger : stagger_list) {
            if (groups == 132 && stagger != 0) continue;
            int reps = 4;
            std::vector<float> ts;
            long long cmax = 0;
            for (int k = 0; k < 5; k++) {
                cudaEventRecord(e0);
                lrc<<<ctas, 32>>>(buf, sink, rec, groups, stagger, reps);
                cudaEventRecord(e1);
                cudaEventSynchronize(e1);
                float ms;
                cudaEventElapsedTime(&ms, e0, e1);
                ts.push_back(ms * 1000);
                std::vector<long long> h(ctas);
                cudaMemcpy(h.data(), rec, ctas * sizeof(long long), cudaMemcpyDeviceToHost);
                if (k == 4) cmax = *std::max_element(h.begin(), h.end());
            }
            std::sort(ts.begin(), ts.end());
            printf("%d,%d,%d,%d,%.2f,%lld\n", groups, ctas / groups, stagger, reps, ts[2], cmax);
        }
    }
    cudaError_t err = cudaDeviceSynchronize();
    if (err != cudaSuccess) fprintf(stderr, "CUDA error: %s\n", cudaGetErrorString(err));
    return 0;
}
