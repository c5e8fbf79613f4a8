// "Blind" workloads: ordinary kernels of the kinds real applications run (softmax, layer norm,
// direct convolution, a shared-memory sort, GEMV; later a block scan, a byte histogram, ELLPACK
// SpMV, tiled n-body and a k-means assignment step), written without looking at the simulator's
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

// --- inclusive scan of u32 per 1024-element block: 4 elements per thread in a 16-byte vector, ---
// a shfl.up scan of the threads' sums in each warp, then a scan of the 8 warp totals in shared
// memory (by warp 0). Wrapping 32-bit sums.
#define SCAN_THREADS 256
#define SCAN_PER_THREAD 4
#define SCAN_ELEMS (SCAN_THREADS * SCAN_PER_THREAD)
#define SCAN_WARPS (SCAN_THREADS / 32)

struct alignas(16) U32x4 {
    unsigned x, y, z, w;
};

extern "C" __global__ void prefix_sum_blocks(const U32x4* __restrict__ in, U32x4* __restrict__ out)
{
    __shared__ unsigned warp_total[SCAN_WARPS];
    unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    size_t i = (size_t)blockIdx.x * SCAN_THREADS + threadIdx.x;
    U32x4 v = in[i];
    v.y += v.x;
    v.z += v.y;
    v.w += v.z;
    unsigned s = v.w;  // inclusive scan of the threads' sums within the warp
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        unsigned t = __shfl_up_sync(0xffffffffu, s, d);
        if (lane >= d) s += t;
    }
    if (lane == 31) warp_total[warp] = s;
    __syncthreads();
    if (warp == 0) {
        unsigned t = lane < SCAN_WARPS ? warp_total[lane] : 0u;
#pragma unroll
        for (int d = 1; d < SCAN_WARPS; d <<= 1) {
            unsigned u = __shfl_up_sync(0xffffffffu, t, d);
            if (lane >= d) t += u;
        }
        if (lane < SCAN_WARPS) warp_total[lane] = t;
    }
    __syncthreads();
    unsigned offset = s - v.w + (warp > 0 ? warp_total[warp - 1] : 0u);
    v.x += offset;
    v.y += offset;
    v.z += offset;
    v.w += offset;
    out[i] = v;
}

// --- 256-bin histogram of bytes: each thread reads 4 bytes per 32-bit load (grid-stride), -----
// counts them with shared-memory atomics, then each block adds its bins to the global histogram.
#define HIST_BINS 256

extern "C" __global__ void histogram256_smem(const unsigned* __restrict__ words, unsigned* __restrict__ bins, int nwords)
{
    __shared__ unsigned h[HIST_BINS];
    for (int k = threadIdx.x; k < HIST_BINS; k += blockDim.x) h[k] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < nwords; i += gridDim.x * blockDim.x) {
        unsigned w = words[i];
        atomicAdd(&h[w & 0xffu], 1u);
        atomicAdd(&h[(w >> 8) & 0xffu], 1u);
        atomicAdd(&h[(w >> 16) & 0xffu], 1u);
        atomicAdd(&h[w >> 24], 1u);
    }
    __syncthreads();
    for (int k = threadIdx.x; k < HIST_BINS; k += blockDim.x) {
        unsigned c = h[k];
        if (c) atomicAdd(&bins[k], c);
    }
}

// --- SpMV in ELLPACK format: ELL_WIDTH nonzeros per row, stored column-major (entry k of row r --
// at k * rows + r, so a warp's loads of one k are coalesced); one thread per row, fmaf in k order.
#define ELL_WIDTH 16

extern "C" __global__ void spmv_ell(const int* __restrict__ cols, const float* __restrict__ vals,
                                    const float* __restrict__ x, float* __restrict__ y, int rows)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float acc = 0.0f;
#pragma unroll
    for (int k = 0; k < ELL_WIDTH; k++) {
        int c = cols[k * rows + r];
        acc = fmaf(vals[k * rows + r], x[c], acc);
    }
    y[r] = acc;
}

// --- all-pairs gravitational acceleration: one thread per body, bodies staged through shared --
// memory in tiles of NBODY_TILE (pos.w = mass). a_i = sum_j m_j d / (|d|^2 + eps2)^(3/2),
// d = p_j - p_i, including j = i (d = 0 adds nothing).
#define NBODY_TILE 256

struct alignas(16) F32x4 {
    float x, y, z, w;
};

extern "C" __global__ void nbody_tile(const F32x4* __restrict__ pos, F32x4* __restrict__ acc, int n, float eps2)
{
    __shared__ F32x4 tile[NBODY_TILE];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    F32x4 p = pos[i];
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
    for (int base = 0; base < n; base += NBODY_TILE) {
        for (int k = threadIdx.x; k < NBODY_TILE; k += blockDim.x) tile[k] = pos[base + k];
        __syncthreads();
#pragma unroll 8
        for (int j = 0; j < NBODY_TILE; j++) {
            F32x4 q = tile[j];
            float dx = q.x - p.x, dy = q.y - p.y, dz = q.z - p.z;
            float r2 = fmaf(dx, dx, fmaf(dy, dy, fmaf(dz, dz, eps2)));
            float inv = rsqrtf(r2);
            float s = q.w * inv * inv * inv;
            ax = fmaf(dx, s, ax);
            ay = fmaf(dy, s, ay);
            az = fmaf(dz, s, az);
        }
        __syncthreads();
    }
    F32x4 a = {ax, ay, az, 0.0f};
    acc[i] = a;
}

// --- k-means assignment step: each 2-D point gets the index of its nearest centroid ----------
// (squared distance fmaf(dy, dy, dx * dx), first minimum wins ties); centroids in shared memory,
// grid-stride over the points.
#define KMEANS_K 16

struct alignas(8) F32x2 {
    float x, y;
};

extern "C" __global__ void kmeans_assign(const F32x2* __restrict__ points, const F32x2* __restrict__ centroids,
                                         unsigned* __restrict__ labels, int n)
{
    __shared__ F32x2 c[KMEANS_K];
    if (threadIdx.x < KMEANS_K) c[threadIdx.x] = centroids[threadIdx.x];
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        F32x2 p = points[i];
        float best = 0.0f;
        unsigned label = 0;
#pragma unroll
        for (int k = 0; k < KMEANS_K; k++) {
            float dx = p.x - c[k].x, dy = p.y - c[k].y;
            float d = fmaf(dy, dy, dx * dx);
            if (k == 0 || d < best) {
                best = d;
                label = k;
            }
        }
        labels[i] = label;
    }
}
