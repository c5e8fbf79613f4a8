// What a CTA costs to launch on the H200, by CTA size. Two kernels, each launched over a sweep of
// block sizes (32..1024 threads) and grid sizes:
//   empty - each thread tests one word (never true) and exits: the launch and retirement alone
//   copy  - out[i] = in[i] over 16 Mi floats (membench-free stream_copy shape), one element per
//           thread, grid = 16 Mi / block: the same bytes in CTAs of every size
// Run under ncu (gpc__cycles_elapsed.max, sm__cycles_active.avg per launch):
//   nvcc -arch=sm_90 -O3 -o cta_launch cta_launch.cu
//   ncu --clock-control none --metrics gpc__cycles_elapsed.max,sm__cycles_active.avg --csv ./cta_launch
// stdout also prints each launch's event time (median of 5, after a warm-up).
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>

extern "C" __global__ void empty(int* flag)
{
    if (flag[0] == 12345) flag[1 + threadIdx.x] = blockIdx.x;
}

extern "C" __global__ void copy(const float* in, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i];
}

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e)); exit(1); } } while (0)

int main(int argc, char** argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 5;
    const int n = 1 << 24;
    float *in, *out; int* flag;
    CK(cudaMalloc(&in, n * 4)); CK(cudaMalloc(&out, n * 4)); CK(cudaMalloc(&flag, 4096 * 4));
    CK(cudaMemset(in, 1, n * 4)); CK(cudaMemset(flag, 0, 4096 * 4));
    cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
    const int blocks[] = {32, 64, 128, 256, 512, 1024};
    printf("kernel,block,grid,us_median\n");
    for (int k = 0; k < 2; k++) {
        for (int bs : blocks) {
            std::vector<int> grids;
            if (k == 0) grids = {132 * 16, 132 * 64}; else grids = {n / bs};
            for (int g : grids) {
                std::vector<float> t;
                for (int r = 0; r <= reps; r++) {
                    CK(cudaEventRecord(a));
                    if (k == 0) empty<<<g, bs>>>(flag); else copy<<<g, bs>>>(in, out, n);
                    CK(cudaEventRecord(b)); CK(cudaEventSynchronize(b)); CK(cudaGetLastError());
                    float ms; CK(cudaEventElapsedTime(&ms, a, b));
                    if (r > 0) t.push_back(ms * 1e3f);
                }
                std::sort(t.begin(), t.end());
                printf("%s,%d,%d,%.2f\n", k == 0 ? "empty" : "copy", bs, g, t[t.size() / 2]);
            }
        }
    }
    return 0;
}
