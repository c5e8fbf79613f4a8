// Device printf cost probe: the same kernel without printf, and with 1, 32, 256 and 1024 calls.
#include <cstdio>
#include <cuda_runtime.h>
__global__ void body(float *out, int prints, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float x = i;
    for (int k = 0; k < 64; k++) x = x * 1.0001f + 0.5f;
    if (i < n) out[i] = x;
    if (i < prints) printf("t%d %f\n", i, x);
}
int main() {
    float *d; int n = 3072;
    cudaMalloc(&d, n * sizeof(float));
    int counts[] = {0, 1, 32, 256, 1024, 0};
    for (int c : counts) { body<<<24, 128>>>(d, c, n); cudaDeviceSynchronize(); }
    float h[4]; cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    fprintf(stderr, "PASS %f\n", h[1]);
    return 0;
}
