// "Blind" workloads: ordinary kernels of the kinds real applications run (softmax, layer norm,
// direct convolution, a shared-memory sort, GEMV), written without looking at the simulator's
// timing model and never used to calibrate or develop it. They exist to measure its accuracy on
// kernels it was not tuned on. Plain CUDA C, no headers; compile-time row widths like the
// templated kernels of ML frameworks.

// --- softmax over rows: one warp per row, the row held in registers -----------------------------
#define SOFTMAX_COLS 1024
#define SOFTMAX_PER_LANE (SOFTMAX_COLS / 32)

extern "C" __global__ void softmax_rows(const float* __restrict__ in, float* __restrict__ out, int rows)
{
    int row = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    int lane = threadIdx.x & 31;
    if (row >= rows) return;
    const float* x = in + (size_t)row * SOFTMAX_COLS;
    float v[SOFTMAX_PER_LANE];
#pragma unroll
    for (int k = 0; k < SOFTMAX_PER_LANE; k++) v[k] = x[lane + 32 * k];
    float m = v[0];
#pragma unroll
    for (int k = 1; k < SOFTMAX_PER_LANE; k++) m = fmaxf(m, v[k]);
#pragma unroll
    for (int d = 16; d > 0; d >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, d));
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < SOFTMAX_PER_LANE; k++) {
        v[k] = __expf(v[k] - m);
        s += v[k];
    }
#pragma unroll
    for (int d = 16; d > 0; d >>= 1) s += __shfl_xor_sync(0xffffffffu, s, d);
    float inv = 1.0f / s;
    float* y = out + (size_t)row * SOFTMAX_COLS;
#pragma unroll
    for (int k = 0; k < SOFTMAX_PER_LANE; k++) y[lane + 32 * k] = v[k] * inv;
}

// --- layer normalization: one 128-thread block per row ------------------------------------------
#define LN_COLS 512
#define LN_THREADS 128
#define LN_PER_THREAD (LN_COLS / LN_THREADS)

// Sum over the block: butterfly shuffles in each warp, then the warps' sums through shared memory.
__device__ __forceinline__ float ln_block_sum(float v, float* partial)
{
#pragma unroll
    for (int d = 16; d > 0; d >>= 1) v += __shfl_xor_sync(0xffffffffu, v, d);
    if ((threadIdx.x & 31) == 0) partial[threadIdx.x >> 5] = v;
    __syncthreads();
    float t = 0.0f;
#pragma unroll
    for (int w = 0; w < LN_THREADS / 32; w++) t += partial[w];
    __syncthreads();  // partial is reused by the next reduction
    return t;
}

extern "C" __global__ void layernorm_rows(const float* __restrict__ in, const float* __restrict__ gamma,
                                          const float* __restrict__ beta, float* __restrict__ out, float eps)
{
    __shared__ float partial[LN_THREADS / 32];
    const float* x = in + (size_t)blockIdx.x * LN_COLS;
    float v[LN_PER_THREAD];
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < LN_PER_THREAD; k++) {
        v[k] = x[threadIdx.x + LN_THREADS * k];
        s += v[k];
    }
    float mean = ln_block_sum(s, partial) * (1.0f / LN_COLS);
    float q = 0.0f;
#pragma unroll
    for (int k = 0; k < LN_PER_THREAD; k++) {
        float d = v[k] - mean;
        q = fmaf(d, d, q);
    }
    float rstd = rsqrtf(ln_block_sum(q, partial) * (1.0f / LN_COLS) + eps);
    float* y = out + (size_t)blockIdx.x * LN_COLS;
#pragma unroll
    for (int k = 0; k < LN_PER_THREAD; k++) {
        int c = threadIdx.x + LN_THREADS * k;
        y[c] = fmaf((v[k] - mean) * rstd, gamma[c], beta[c]);
    }
}

// --- direct 3x3 convolution, single channel, zero padding: one thread per output ----------------
// Taps in row-major order (dy, then dx), each an fmaf into one accumulator; taps outside the
// image are skipped (the zero padding).
extern "C" __global__ void conv2d_3x3(const float* __restrict__ in, const float* __restrict__ w,
                                      float* __restrict__ out, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    float acc = 0.0f;
#pragma unroll
    for (int dy = -1; dy <= 1; dy++) {
        int yy = y + dy;
        if (yy < 0 || yy >= height) continue;
#pragma unroll
        for (int dx = -1; dx <= 1; dx++) {
            int xx = x + dx;
            if (xx < 0 || xx >= width) continue;
            acc = fmaf(w[(dy + 1) * 3 + (dx + 1)], in[yy * width + xx], acc);
        }
    }
    out[y * width + x] = acc;
}

// --- bitonic sort in shared memory: each block sorts 2 * blockDim.x keys ascending --------------
#define BITONIC_THREADS 1024
#define BITONIC_KEYS (2 * BITONIC_THREADS)

extern "C" __global__ void bitonic_sort_smem(const unsigned* __restrict__ in, unsigned* __restrict__ out)
{
    __shared__ unsigned s[BITONIC_KEYS];
    unsigned tid = threadIdx.x;
    size_t base = (size_t)blockIdx.x * BITONIC_KEYS;
    s[tid] = in[base + tid];
    s[tid + BITONIC_THREADS] = in[base + tid + BITONIC_THREADS];
    __syncthreads();
    for (unsigned k = 2; k <= BITONIC_KEYS; k <<= 1) {
        for (unsigned j = k >> 1; j > 0; j >>= 1) {
            unsigned i = 2 * tid - (tid & (j - 1));  // lower element of this thread's pair
            bool ascending = (i & k) == 0;
            unsigned a = s[i], b = s[i + j];
            if ((a > b) == ascending) {
                s[i] = b;
                s[i + j] = a;
            }
            __syncthreads();
        }
    }
    out[base + tid] = s[tid];
    out[base + tid + BITONIC_THREADS] = s[tid + BITONIC_THREADS];
}

// --- GEMV y = A x, A row-major: one warp per row, lane-strided (coalesced) loads ----------------
extern "C" __global__ void gemv_rows(const float* __restrict__ A, const float* __restrict__ x,
                                     float* __restrict__ y, int rows, int cols)
{
    int row = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    int lane = threadIdx.x & 31;
    if (row >= rows) return;
    const float* a = A + (size_t)row * cols;
    float acc = 0.0f;
    for (int c = lane; c < cols; c += 32) acc = fmaf(a[c], x[c], acc);
#pragma unroll
    for (int d = 16; d > 0; d >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, d);
    if (lane == 0) y[row] = acc;
}
