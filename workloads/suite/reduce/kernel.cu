// The reduction ladder (after M. Harris, "Optimizing Parallel Reduction in CUDA"), on s32 so the
// result is exact. Blocks of 256 threads; each block writes the sum of its chunk to out[blockIdx.x]
// (256 inputs per block for the first three, 512 for the rest, which add two inputs while loading).
#define BLOCK 256

// 1: interleaved addressing, divergent branch (tid % (2s) == 0).
extern "C" __global__ void reduce_interleaved_divergent(const int* in, int* out)
{
    __shared__ int s[BLOCK];
    unsigned tid = threadIdx.x;
    s[tid] = in[blockIdx.x * BLOCK + tid];
    __syncthreads();
    for (unsigned d = 1; d < BLOCK; d *= 2) {
        if (tid % (2 * d) == 0) s[tid] += s[tid + d];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = s[0];
}

// 2: interleaved addressing, strided index (no divergence, bank conflicts).
extern "C" __global__ void reduce_interleaved_strided(const int* in, int* out)
{
    __shared__ int s[BLOCK];
    unsigned tid = threadIdx.x;
    s[tid] = in[blockIdx.x * BLOCK + tid];
    __syncthreads();
    for (unsigned d = 1; d < BLOCK; d *= 2) {
        unsigned index = 2 * d * tid;
        if (index < BLOCK) s[index] += s[index + d];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = s[0];
}

// 3: sequential addressing (active threads contiguous, conflict free).
extern "C" __global__ void reduce_sequential(const int* in, int* out)
{
    __shared__ int s[BLOCK];
    unsigned tid = threadIdx.x;
    s[tid] = in[blockIdx.x * BLOCK + tid];
    __syncthreads();
    for (unsigned d = BLOCK / 2; d > 0; d >>= 1) {
        if (tid < d) s[tid] += s[tid + d];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = s[0];
}

// 4: first add during the global load (half the blocks).
extern "C" __global__ void reduce_first_add(const int* in, int* out)
{
    __shared__ int s[BLOCK];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * (2 * BLOCK) + tid;
    s[tid] = in[i] + in[i + BLOCK];
    __syncthreads();
    for (unsigned d = BLOCK / 2; d > 0; d >>= 1) {
        if (tid < d) s[tid] += s[tid + d];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = s[0];
}

// 5: as 4, with the last warp unrolled and synchronised by __syncwarp (no block barriers).
extern "C" __global__ void reduce_unroll_last_warp(const int* in, int* out)
{
    __shared__ int s[BLOCK];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * (2 * BLOCK) + tid;
    s[tid] = in[i] + in[i + BLOCK];
    __syncthreads();
    for (unsigned d = BLOCK / 2; d > 32; d >>= 1) {
        if (tid < d) s[tid] += s[tid + d];
        __syncthreads();
    }
    if (tid < 32) {
        int v = s[tid];
#pragma unroll
        for (unsigned d = 32; d > 0; d >>= 1) {
            v += s[tid + d];
            __syncwarp();
            s[tid] = v;
            __syncwarp();
        }
        if (tid == 0) out[blockIdx.x] = v;
    }
}

// 6: warp shuffles: each warp reduces in registers, warp sums meet in shared memory.
extern "C" __global__ void reduce_shuffle(const int* in, int* out)
{
    __shared__ int warp_sums[BLOCK / 32];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * (2 * BLOCK) + tid;
    int v = in[i] + in[i + BLOCK];
#pragma unroll
    for (int d = 16; d > 0; d >>= 1) v += __shfl_down_sync(0xffffffffu, v, d);
    if ((tid & 31) == 0) warp_sums[tid / 32] = v;
    __syncthreads();
    if (tid < 32) {
        v = tid < BLOCK / 32 ? warp_sums[tid] : 0;
#pragma unroll
        for (int d = 16; d > 0; d >>= 1) v += __shfl_down_sync(0xffffffffu, v, d);
        if (tid == 0) out[blockIdx.x] = v;
    }
}
