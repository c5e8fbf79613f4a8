// Does a store make the next load of the same warp wait? atax_cols (a DRAM load after each store
// of y[j]), row_l2_normalize's second pass (an L2 load after each store) and gesummv (L1 hits with
// two stores per iteration) all run 20-30% slower on the hardware than in the model, which lets a
// load leave as soon as it issues whatever stores came before it.
//
// Every warp of a one-CTA-per-SM grid (132 CTAs, w warps each) chases its own ring of lines: all
// 32 lanes load the same word (one sector request), the value is the next line's offset.
//   mode 0: the chase alone.
//   mode 1: after each load, the warp stores a whole line (32 lanes, coalesced) of its own output
//           region, a fresh line each step (atax's and row_l2_normalize's shape).
//   mode 2: as 1, one lane stores one word.
//   mode 3: as 1, the store goes to the same line every step.
//   mode 4: as 1, but the store comes before the load and stores the step count, not the loaded
//           value: nothing but ordering could make the load wait for it.
// level 0: ring of 64 lines per warp re-walked (L1 hits, ld.global.ca), level 1: the same with
// ld.global.cg (L2 hits), level 2: fresh lines from DRAM (4096 steps over the warp's 4 MiB, cold).
// Output (stdout, CSV): level,mode,warps_per_sm,steps,cycles_per_step_median,cycles_per_step_max
// Build: nvcc -arch=sm_90 -O3 -o stload stload.cu     Run: ./stload > stload.csv
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <random>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1); } } while (0)

__device__ __forceinline__ unsigned ldx(const unsigned* p, int cg)
{
    unsigned v;
    if (cg) asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    else asm volatile("ld.global.ca.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

__global__ void stload(const unsigned* ring, unsigned* out, long long* rec, int level, int mode, int steps, size_t ring_words)
{
    unsigned lane = threadIdx.x & 31, warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const unsigned* r = ring + (size_t)warp * ring_words;
    unsigned* o = out + (size_t)warp * 4096u * 32u;
    int cg = level != 0;
    unsigned p = 0;
    if (level != 2)
        for (int i = 0; i < 64; i++) p = ldx(r + p, cg);  // warm: one pass over the ring
    __syncthreads();
    long long t0 = clock64();
    for (int i = 0; i < steps; i++) {
        if (mode == 4) asm volatile("st.global.u32 [%0], %1;" :: "l"(o + (size_t)(i & 4095) * 32u + lane), "r"((unsigned)i) : "memory");
        p = ldx(r + p, cg);
        if (mode == 1) asm volatile("st.global.u32 [%0], %1;" :: "l"(o + (size_t)(i & 4095) * 32u + lane), "r"(p) : "memory");
        if (mode == 2 && lane == 0) asm volatile("st.global.u32 [%0], %1;" :: "l"(o + (size_t)(i & 4095) * 32u), "r"(p) : "memory");
        if (mode == 3) asm volatile("st.global.u32 [%0], %1;" :: "l"(o + lane), "r"(p) : "memory");
    }
    long long t1 = clock64();
    if (lane == 0) {
        rec[warp * 2] = t1 - t0;
        rec[warp * 2 + 1] = p;
    }
}

int main()
{
    const int sms = 132, maxw = 16;
    const size_t warps = (size_t)sms * maxw;
    const size_t dram_words = (size_t)1 << 20;  // 4 MiB per warp for level 2
    unsigned *ring, *out;
    long long* rec;
    CK(cudaMalloc(&ring, warps * dram_words * 4));   // 8.25 GiB at 16 warps per SM
    CK(cudaMalloc(&out, warps * 4096 * 32 * 4));
    CK(cudaMalloc(&rec, warps * 16));
    unsigned char* flush;
    CK(cudaMalloc(&flush, (size_t)512 << 20));
    std::mt19937 rng(7);
    // Level 0/1 rings: 64 lines per warp in random order (offsets in words, within the warp's ring).
    // Level 2: 4096 lines of the warp's 4 MiB in random order.
    std::vector<unsigned> small(64 * 32), big(dram_words);
    std::vector<unsigned> ord(64);
    for (int i = 0; i < 64; i++) ord[i] = i;
    std::shuffle(ord.begin() + 1, ord.end(), rng);
    for (int i = 0; i < 64; i++) small[ord[i] * 32] = ord[(i + 1) % 64] * 32;
    std::vector<unsigned> ord2(8192);
    for (int i = 0; i < 8192; i++) ord2[i] = i;
    std::shuffle(ord2.begin() + 1, ord2.end(), rng);
    for (int i = 0; i < 8192; i++) big[(size_t)ord2[i] * 128] = ord2[(i + 1) % 8192] * 128;  // 512 B apart
    printf("level,mode,warps_per_sm,steps,cycles_per_step_median,cycles_per_step_max\n");
    std::vector<long long> h(warps * 2);
    const int ws[] = {1, 8, 16};
    for (int level = 0; level < 3; level++) {
        size_t rw = level == 2 ? dram_words : 64 * 32;
        std::vector<unsigned>& src = level == 2 ? big : small;
        for (size_t w = 0; w < warps; w++) CK(cudaMemcpy(ring + w * rw, src.data(), rw * 4, cudaMemcpyHostToDevice));
        for (int mode = 0; mode < 5; mode++)
            for (int w : ws) {
                int steps = level == 2 ? 2048 : 1024;
                CK(cudaMemset(flush, mode, (size_t)512 << 20));
                stload<<<sms, w * 32>>>(ring, out, rec, level, mode, steps, rw);
                CK(cudaDeviceSynchronize());
                CK(cudaMemcpy(h.data(), rec, (size_t)sms * w * 16, cudaMemcpyDeviceToHost));
                std::vector<double> c;
                for (int k = 0; k < sms * w; k++) c.push_back((double)h[k * 2] / steps);
                std::sort(c.begin(), c.end());
                printf("%d,%d,%d,%d,%.1f,%.1f\n", level, mode, w, steps, c[c.size() / 2], c.back());
                fflush(stdout);
            }
    }
    return 0;
}
