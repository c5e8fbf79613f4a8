// Returning-atomic latency under load on the H200 (nvcc -arch=sm_90 -O3).
//
// CTA 0's lane 0 (the probe) times 64 dependent returning atomicAdds on one line of its own while
// the other CTAs (one per SM, W warps each) flood a set of K lines, 32 coalesced words per warp
// request, `iters` requests per warp, as returning atomics (ATOM, old value folded into a flag
// test), as reductions (RED), as plain L2 loads (ld.global.cg) or as CAS (the old value used), or
// with one word per line per lane (32 one-sector requests per warp instruction) as ATOM or CAS,
// or do nothing (idle): a CAS and an ATOM.ADD of the same shape, whole-line and one-sector, to
// tell whether the kind or the shape sets the cost of many-line atomics. The probe
// line is 8 MiB past the flooded ones. Output `atom_load.csv`: kind, lines, warps per SM, probe
// cycles per atomic (median of three launches), flood time per launch (us, event) and flood
// requests per microsecond.
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <vector>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e)); exit(1); } } while (0)

__global__ void flood(unsigned* base, unsigned* probe_line, int kind, int lines, int iters, unsigned* flag, unsigned long long* probe_cyc)
{
    int lane = threadIdx.x & 31;
    if (blockIdx.x == 0) {
        if (threadIdx.x != 0) return;
        unsigned v = atomicAdd(probe_line, 1u);
        long long t0 = clock64();
        for (int i = 0; i < 64; i++) v = atomicAdd(probe_line + (v > 0xFFFFFFF0u ? 1 : 0), 1u);
        long long t1 = clock64();
        *probe_cyc = (unsigned long long)(t1 - t0) + (v > 0xFFFFFFF0u ? 1 : 0);
        return;
    }
    int warp = (blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5));
    unsigned acc = 0;
    for (int i = 0; i < iters; i++) {
        unsigned* p = base + (size_t)((warp + i * 7) % lines) * 32 + lane;
        unsigned* q = base + (size_t)((warp * 32 + lane + i * 7) % lines) * 32;
        if (kind == 0) acc += atomicAdd(p, 1u);
        else if (kind == 1) atomicAdd(p, 1u);
        else if (kind == 2) acc += __ldcg(p);
        else if (kind == 4) acc += atomicCAS(p, acc, acc + 1u);
        else if (kind == 5) acc += atomicAdd(q, 1u);
        else if (kind == 6) acc += atomicCAS(q, acc, acc + 1u);
    }
    if (acc == 0xFFFFFFFFu) *flag = 1;
}

int main(int argc, char** argv)
{
    const char* out = argv[1];
    unsigned* base;
    CK(cudaMalloc(&base, 16u << 20));
    CK(cudaMemset(base, 0, 16u << 20));
    unsigned* probe_line = base + (8u << 20) / 4;
    unsigned* flag;
    unsigned long long* d_cyc;
    CK(cudaMalloc(&flag, 4));
    CK(cudaMalloc(&d_cyc, 8));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    FILE* o = fopen(out, "w");
    fprintf(o, "kind,lines,warps_per_sm,probe_cycles_per_atomic,flood_us,requests_per_us\n");
    const char* names[] = {"atom", "red", "ldcg", "idle", "cas", "atom_word_per_line", "cas_word_per_line"};
    int line_sets[] = {1, 4, 32, 128, 1024, 16384};
    int warp_sets[] = {1, 8, 32};
    for (int kind = 0; kind < 7; kind++)
        for (int li = 0; li < 6; li++)
            for (int wi = 0; wi < 3; wi++) {
                int lines = line_sets[li], w = warp_sets[wi];
                if (kind == 3 && (li > 0 || wi > 0)) continue;
                int iters = kind == 3 ? 0 : (lines <= 4 ? 8 : 64);
                std::vector<double> cyc;
                float us = 0;
                for (int rep = 0; rep < 3; rep++) {
                    CK(cudaEventRecord(e0));
                    flood<<<132, 32 * w>>>(base, probe_line, kind, lines, iters, flag, d_cyc);
                    CK(cudaEventRecord(e1));
                    CK(cudaEventSynchronize(e1));
                    CK(cudaGetLastError());
                    float t;
                    CK(cudaEventElapsedTime(&t, e0, e1));
                    us = rep == 0 ? t * 1000 : std::min(us, t * 1000);
                    unsigned long long c;
                    CK(cudaMemcpy(&c, d_cyc, 8, cudaMemcpyDeviceToHost));
                    cyc.push_back(c / 64.0);
                }
                std::sort(cyc.begin(), cyc.end());
                double req = 131.0 * w * iters;
                fprintf(o, "%s,%d,%d,%.1f,%.2f,%.1f\n", names[kind], lines, w, cyc[1], us, req / us);
            }
    fclose(o);
    return 0;
}
