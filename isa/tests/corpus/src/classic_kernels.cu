// Small "real" kernels of the kind the simulator's workload suite runs: shared-memory tiled SGEMM,
// two-level sum reduction (shared tree + warp shuffles + one atomic per block), Blelloch exclusive scan,
// 256-bin histogram with shared atomics, 2-D 5-point stencil, row softmax, and a bank-conflict probe
// with a runtime stride. Compiles for sm_75+.

#define TILE 16

extern "C" __global__ void sgemm_tiled(const float *A, const float *B, float *C, int M, int N, int K)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TILE) {
        As[threadIdx.y][threadIdx.x] = (row < M && k0 + threadIdx.x < K) ? A[row * K + k0 + threadIdx.x] : 0.0f;
        Bs[threadIdx.y][threadIdx.x] = (col < N && k0 + threadIdx.y < K) ? B[(k0 + threadIdx.y) * N + col] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }
    if (row < M && col < N) C[row * N + col] = acc;
}

extern "C" __global__ void reduce_sum(const float *in, float *out, int n)
{
    __shared__ float warp_sums[32];
    float s = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) s += in[i];
    for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) warp_sums[warp] = s;
    __syncthreads();
    if (warp == 0) {
        s = lane < (blockDim.x + 31) / 32 ? warp_sums[lane] : 0.0f;
        for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
        if (lane == 0) atomicAdd(out, s);
    }
}

extern "C" __global__ void blelloch_scan(const int *in, int *out, int n)     // one block, n = 2 * blockDim.x
{
    extern __shared__ int tmp[];
    int t = threadIdx.x, offset = 1;
    tmp[2 * t] = in[2 * t];
    tmp[2 * t + 1] = in[2 * t + 1];
    for (int d = n >> 1; d > 0; d >>= 1) {
        __syncthreads();
        if (t < d) {
            int ai = offset * (2 * t + 1) - 1, bi = offset * (2 * t + 2) - 1;
            tmp[bi] += tmp[ai];
        }
        offset *= 2;
    }
    if (t == 0) tmp[n - 1] = 0;
    for (int d = 1; d < n; d *= 2) {
        offset >>= 1;
        __syncthreads();
        if (t < d) {
            int ai = offset * (2 * t + 1) - 1, bi = offset * (2 * t + 2) - 1;
            int x = tmp[ai];
            tmp[ai] = tmp[bi];
            tmp[bi] += x;
        }
    }
    __syncthreads();
    out[2 * t] = tmp[2 * t];
    out[2 * t + 1] = tmp[2 * t + 1];
}

extern "C" __global__ void histogram256(const unsigned char *data, int n, unsigned *bins)
{
    __shared__ unsigned local[256];
    for (int i = threadIdx.x; i < 256; i += blockDim.x) local[i] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&local[data[i]], 1u);
    __syncthreads();
    for (int i = threadIdx.x; i < 256; i += blockDim.x)
        if (local[i]) atomicAdd(&bins[i], local[i]);
}

extern "C" __global__ void stencil5(const float *in, float *out, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x <= 0 || y <= 0 || x >= w - 1 || y >= h - 1) return;
    int i = y * w + x;
    out[i] = 0.2f * (in[i] + in[i - 1] + in[i + 1] + in[i - w] + in[i + w]);
}

extern "C" __global__ void softmax_rows(const float *in, float *out, int cols)
{
    const float *r = in + (size_t)blockIdx.x * cols;
    float *o = out + (size_t)blockIdx.x * cols;
    __shared__ float red[32];
    float m = -__int_as_float(0x7f800000);   // -inf without <cmath>
    for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, r[c]);
    for (int k = 16; k > 0; k >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, k));
    if ((threadIdx.x & 31) == 0) red[threadIdx.x >> 5] = m;
    __syncthreads();
    m = red[0];
    for (int w = 1; w < (int)(blockDim.x >> 5); ++w) m = fmaxf(m, red[w]);
    __syncthreads();
    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) s += __expf(r[c] - m);
    for (int k = 16; k > 0; k >>= 1) s += __shfl_xor_sync(0xffffffffu, s, k);
    if ((threadIdx.x & 31) == 0) red[threadIdx.x >> 5] = s;
    __syncthreads();
    s = 0.0f;
    for (int w = 0; w < (int)(blockDim.x >> 5); ++w) s += red[w];
    float inv = 1.0f / s;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) o[c] = __expf(r[c] - m) * inv;
}

extern "C" __global__ void bank_conflicts(float *out, int stride, int iters)
{
    __shared__ float s[32 * 33];
    int t = threadIdx.x;
    for (int i = t; i < 32 * 33; i += blockDim.x) s[i] = (float)i;
    __syncthreads();
    float acc = 0.0f;
    for (int k = 0; k < iters; ++k) acc += s[(t * stride + k) % (32 * 33)];
    out[blockIdx.x * blockDim.x + t] = acc;
}
