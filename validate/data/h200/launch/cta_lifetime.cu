// Where a memory-bound CTA's lifetime goes on the H200: the one-element copy of cta_launch.cu
// split into its halves, over 16 Mi floats, one element per thread, CTAs of 128..1024 threads:
//   copy  - out[i] = in[i]
//   load  - v = in[i]; stores only if v is a NaN pattern that never occurs (the load must complete)
//   store - out[i] = i (no load)
// Under ncu (gpc__cycles_elapsed.max, sm__cycles_active.avg, the long-scoreboard and drain stalls):
//   nvcc -arch=sm_90 -O3 -o cta_lifetime cta_lifetime.cu
//   ncu --clock-control none --metrics ... --csv ./cta_lifetime
#include <cstdio>
#include <cstdlib>

extern "C" __global__ void copy(const float* in, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i];
}

extern "C" __global__ void load(const float* in, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = in[i];
        if (__float_as_uint(v) == 0x7fc01234u) out[i] = v;
    }
}

extern "C" __global__ void store(const float* in, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = (float)i;
}

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e)); exit(1); } } while (0)

int main()
{
    const int n = 1 << 24;
    float *in, *out;
    CK(cudaMalloc(&in, n * 4)); CK(cudaMalloc(&out, n * 4));
    CK(cudaMemset(in, 1, n * 4));
    const int blocks[] = {128, 256, 512, 1024};
    for (int k = 0; k < 3; k++)
        for (int bs : blocks) {
            if (k == 0) copy<<<n / bs, bs>>>(in, out, n);
            else if (k == 1) load<<<n / bs, bs>>>(in, out, n);
            else store<<<n / bs, bs>>>(in, out, n);
            CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
        }
    printf("done\n");
    return 0;
}
