// 256-bin histogram: each block counts into shared memory with atomicAdd (grid-stride over the
// input), then adds its bins to the global histogram with one atomicAdd per bin. bin = in[i] & 255.
// Exact: the result does not depend on the order of the atomics.
#define BINS 256

extern "C" __global__ void histogram_smem(const unsigned* in, unsigned* bins, int n)
{
    __shared__ unsigned h[BINS];
    for (int k = threadIdx.x; k < BINS; k += blockDim.x) h[k] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&h[in[i] & (BINS - 1)], 1u);
    __syncthreads();
    for (int k = threadIdx.x; k < BINS; k += blockDim.x)
        if (h[k]) atomicAdd(&bins[k], h[k]);
}
