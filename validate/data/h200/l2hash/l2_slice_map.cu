// Which L2 slice holds which line, measured by contention (H200, nvcc -arch=sm_90 -O3).
//
// `pair` floods two lines a and b with whole-line REDs (32 lanes, 32 words, one request each),
// alternating between them. If both lines are homed in one slice, the slice applies all the
// requests and the kernel takes about as long as flooding one line; on two slices, about half.
// 1. t(0,k): line 0 against every line k of the first 2 MiB (16384 lines), min of 2 launches.
// 2. classes: lines come in quads {k, k+1, k+4, k+5} (k = 8j or 8j+2) on one slice (t(0,k)
//    shows it for line 0's slice). One line per quad, the unit, is sorted into slices: it joins
//    the first known representative r with t(r,k) above the threshold (midway between t(0,0)
//    and the median of t(0,k)) twice more on a second look, else becomes a representative.
//    Each unit's quad is checked: t(k, k+1), t(k, k+4), t(k, k+5) high and t(k, k+2) low.
//    Units of the first 2 MiB all; then the first 256 units of the pages at 2, 6 and 14 MiB,
//    warmed first, against the same representatives (does the map repeat per 2 MiB page?).
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e)); exit(1); } } while (0)

__global__ void pair(unsigned* base, unsigned a, unsigned b, int iters)
{
    unsigned lane = threadIdx.x & 31, w = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    for (int i = 0; i < iters; i++) {
        unsigned line = ((w + i) & 1) ? b : a;
        atomicAdd(&base[(size_t)line * 32 + lane], 1u);
    }
}

static unsigned* g_base;
static cudaEvent_t e0, e1;
static const int GRID = 132, BLOCK = 128, ITERS = 16;

static float once(unsigned a, unsigned b)
{
    CK(cudaEventRecord(e0));
    pair<<<GRID, BLOCK>>>(g_base, a, b, ITERS);
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    float ms;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    return ms * 1000.f;
}

static float t2(unsigned a, unsigned b) { return std::min(once(a, b), once(a, b)); }

int main(int argc, char** argv)
{
    const char* dir = argc > 1 ? argv[1] : ".";
    int n_adapt = argc > 2 ? atoi(argv[2]) : 4096;  // units (quads)
    size_t bytes = (size_t)16 << 20;  // 16 MiB: 8 pages of 2 MiB
    char* raw;
    CK(cudaMalloc(&raw, bytes + (2u << 20)));
    CK(cudaMemset(raw, 0, bytes + (2u << 20)));
    g_base = (unsigned*)(((uintptr_t)raw + (2u << 20) - 1) & ~(uintptr_t)((2u << 20) - 1));
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    for (int i = 0; i < 20; i++) once(0, 1);

    char path[512];
    snprintf(path, sizeof path, "%s/pairs0.csv", dir);
    FILE* f = fopen(path, "w");
    fprintf(f, "k,us\n");
    std::vector<float> t0(16384);
    for (unsigned k = 0; k < 16384; k++) {
        t0[k] = t2(0, k);
        fprintf(f, "%u,%.3f\n", k, t0[k]);
    }
    fclose(f);
    std::vector<float> s(t0.begin() + 1, t0.end());
    std::nth_element(s.begin(), s.begin() + s.size() / 2, s.end());
    float med = s[s.size() / 2], same = t0[0], thr = 0.5f * (med + same);
    fprintf(stderr, "t(0,0) %.2f us, median t(0,k) %.2f us, threshold %.2f\n", same, med, thr);

    std::vector<unsigned> reps;
    snprintf(path, sizeof path, "%s/classes.csv", dir);
    f = fopen(path, "w");
    fprintf(f, "line,class,tests,quad_ok\n");
    auto classify = [&](unsigned k, bool grow) {
        int tests = 0, cls = -1;
        for (size_t r = 0; r < reps.size() && cls < 0; r++) {
            tests++;
            if (once(reps[r], k) > thr) {
                tests += 2;
                if (t2(reps[r], k) > thr) cls = (int)r;
            }
        }
        if (cls < 0 && grow) { reps.push_back(k); cls = (int)reps.size() - 1; }
        bool quad = t2(k, k + 1) > thr && t2(k, k + 4) > thr && t2(k, k + 5) > thr && t2(k, k + 2) < thr;
        fprintf(f, "%u,%d,%d,%d\n", k, cls, tests, quad ? 1 : 0);
    };
    for (unsigned u = 0; u < (unsigned)n_adapt && reps.size() <= 256; u++) classify((u >> 1) * 8 + (u & 1) * 2, true);
    fprintf(stderr, "%zu classes over %d units\n", reps.size(), n_adapt);
    for (unsigned page : {1u, 3u, 7u}) {
        for (unsigned l = 0; l < 1024; l++) once(page * 16384 + l, page * 16384 + l);
        for (unsigned u = 0; u < 256; u++) classify(page * 16384 + (u >> 1) * 8 + (u & 1) * 2, false);
    }
    fclose(f);
    return 0;
}
