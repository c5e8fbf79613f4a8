// Two-pass sum reduction: pass 1 reduces each block's slice in shared memory (grid-stride loads,
// warp shuffles for the last 32), pass 2 reduces the per-block partials in one block. Timed with
// events; checked against the host's sum. Prints PASS or FAIL.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    printf("FAIL: %s: %s (%s)\n", #x, cudaGetErrorString(e_), cudaGetErrorName(e_)); return 1; } } while (0)

__device__ __forceinline__ long long warp_sum(long long v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    return v;
}

__global__ void partial_sums(const int *in, long long *partial, int n) {
    extern __shared__ long long warps[];
    long long v = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) v += in[i];
    v = warp_sum(v);
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (lane == 0) warps[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < blockDim.x / 32 ? warps[lane] : 0;
        v = warp_sum(v);
        if (lane == 0) partial[blockIdx.x] = v;
    }
}

__global__ void final_sum(const long long *partial, long long *out, int n) {
    __shared__ long long s[256];
    long long v = 0;
    for (int i = threadIdx.x; i < n; i += blockDim.x) v += partial[i];
    s[threadIdx.x] = v;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (threadIdx.x < stride) s[threadIdx.x] += s[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0) *out = s[0];
}

int main() {
    const int n = 1 << 18, threads = 256;
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    const int blocks = prop.multiProcessorCount * 2;
    printf("device: %s, %d SMs, sm_%d%d\n", prop.name, prop.multiProcessorCount, prop.major, prop.minor);
    int *h = (int *)malloc(n * sizeof(int));
    long long expect = 0;
    for (int i = 0; i < n; i++) { h[i] = (i * 7919) % 1000 - 500; expect += h[i]; }
    int *d_in; long long *d_partial, *d_out;
    CHECK(cudaMalloc(&d_in, n * sizeof(int)));
    CHECK(cudaMalloc(&d_partial, blocks * sizeof(long long)));
    CHECK(cudaMalloc(&d_out, sizeof(long long)));
    CHECK(cudaMemcpy(d_in, h, n * sizeof(int), cudaMemcpyHostToDevice));
    cudaEvent_t t0, t1;
    CHECK(cudaEventCreate(&t0));
    CHECK(cudaEventCreate(&t1));
    CHECK(cudaEventRecord(t0));
    partial_sums<<<blocks, threads, threads / 32 * sizeof(long long)>>>(d_in, d_partial, n);
    CHECK(cudaGetLastError());
    final_sum<<<1, 256>>>(d_partial, d_out, blocks);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(t1));
    CHECK(cudaEventSynchronize(t1));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, t0, t1));
    long long got = 0;
    CHECK(cudaMemcpy(&got, d_out, sizeof(got), cudaMemcpyDeviceToHost));
    printf("sum of %d ints: %lld (expected %lld), %.3f us\n", n, got, expect, ms * 1000);
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_partial));
    CHECK(cudaFree(d_out));
    free(h);
    if (got != expect || ms <= 0) { printf("FAIL\n"); return 1; }
    printf("PASS\n");
    return 0;
}
