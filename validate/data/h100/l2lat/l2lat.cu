// L2 hit latency by footprint and concurrency. l1lines (mode 1, dependent) reads 307 cycles per
// ld.global.cg load with one warp per SM and 370-404 with 4-32, at request rates far below any
// throughput limit, while the model stays at ~300: is it the footprint (replicas of far-partition
// lines in the near partition that do not all fit) or the number of warps?
//
// Every warp of `ctas` CTAs (one per SM while ctas <= 132) chases its own ring of `lines` lines
// (random order, 128 B apart) with ld.global.cg: a warm-up pass over the ring, then `steps` timed
// steps; each configuration launches twice (launch 0 right after its ring's cudaMemcpy, launch 1
// on what launch 0 left). Footprint = ctas x warps x lines x 128 B. Output (stdout, CSV):
// launch,ctas,warps_per_cta,lines_per_warp,footprint_kib,steps,cycles_per_step_median,cycles_per_step_max
// Build: nvcc -arch=sm_90 -O3 -o l2lat l2lat.cu     Run: ./l2lat > l2lat.csv
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <random>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1); } } while (0)

__global__ void l2lat(const unsigned* ring, long long* rec, int lines, int steps)
{
    unsigned warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const unsigned* r = ring + (size_t)warp * lines * 32u;
    unsigned p = 0;
    for (int i = 0; i < lines; i++) asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(p) : "l"(r + p) : "memory");
    __syncthreads();
    long long t0 = clock64();
    for (int i = 0; i < steps; i++) asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(p) : "l"(r + p) : "memory");
    long long t1 = clock64();
    if ((threadIdx.x & 31) == 0) {
        rec[warp * 2] = t1 - t0;
        rec[warp * 2 + 1] = p;
    }
}

int main()
{
    const size_t max_words = (size_t)64 << 20;  // 256 MiB of rings
    unsigned* ring;
    long long* rec;
    CK(cudaMalloc(&ring, max_words * 4));
    CK(cudaMalloc(&rec, 132 * 32 * 16));
    std::mt19937 rng(3);
    printf("launch,ctas,warps_per_cta,lines_per_warp,footprint_kib,steps,cycles_per_step_median,cycles_per_step_max\n");
    struct C { int ctas, warps, lines; };
    std::vector<C> cs;
    for (int lines : {32, 256, 2048, 16384})
        for (int ctas : {1, 132})
            for (int warps : {1, 4, 16}) {
                size_t words = (size_t)ctas * warps * lines * 32;
                if (words <= max_words) cs.push_back({ctas, warps, lines});
            }
    std::vector<unsigned> host;
    std::vector<long long> h(132 * 32 * 2);
    for (const C& c : cs) {
        size_t nw = (size_t)c.ctas * c.warps;
        host.assign(nw * c.lines * 32, 0);
        std::vector<unsigned> ord(c.lines);
        for (size_t w = 0; w < nw; w++) {
            for (int i = 0; i < c.lines; i++) ord[i] = i;
            std::shuffle(ord.begin() + 1, ord.end(), rng);
            unsigned* base = host.data() + w * c.lines * 32;
            for (int i = 0; i < c.lines; i++) base[ord[i] * 32] = ord[(i + 1) % c.lines] * 32;
        }
        CK(cudaMemcpy(ring, host.data(), host.size() * 4, cudaMemcpyHostToDevice));
        int steps = 2048;
        // launch 0 follows the ring's cudaMemcpy; launch 1 runs again on what launch 0 left
        for (int launch = 0; launch < 2; launch++) {
            l2lat<<<c.ctas, c.warps * 32>>>(ring, rec, c.lines, steps);
            CK(cudaDeviceSynchronize());
            CK(cudaMemcpy(h.data(), rec, nw * 16, cudaMemcpyDeviceToHost));
            std::vector<double> v;
            for (size_t k = 0; k < nw; k++) v.push_back((double)h[k * 2] / steps);
            std::sort(v.begin(), v.end());
            printf("%d,%d,%d,%d,%zu,%d,%.1f,%.1f\n", launch, c.ctas, c.warps, c.lines, nw * c.lines * 128 / 1024, steps, v[v.size() / 2], v.back());
            fflush(stdout);
        }
    }
    return 0;
}
