// Third batch of "blind" workloads: kernels written the way users bring them, never used to
// calibrate or develop the simulator's timing model. Two kinds:
//   probes      small kernels people write to measure one thing (a pointer chase, an FFMA chain,
//               a shuffle reduction, transposes, global atomics, register spills);
//   third-party benchmark-style kernels of the PolyBench and Rodinia kind (atax, syrk,
//               covariance, hotspot, pathfinder, Needleman-Wunsch, backprop, BFS, SRAD),
//               written here from the algorithms, not copied.
// Plain CUDA C, no headers, `extern "C"` entry points. The manifests carry no regs_per_thread: the
// simulator works registers out from the PTX.

// =================================================================================== probes ====

// --- pointer chase: one dependent chain per thread through a random cycle of 256-byte slots ----
// spread over 24 MiB (L2-sized: more than L1, less than the 50 MB L2). Thread t starts at element
// t * start_stride (a slot's first element) and follows next[] `steps` times.
extern "C" __global__ void chase_l2_threads(const unsigned* next, unsigned* out, int steps, unsigned start_stride)
{
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned j = t * start_stride;
    for (int i = 0; i < steps; i++) j = next[j];
    out[t] = j;
}

// --- FFMA: 8 independent chains per thread, v = v * a + b, the loop unrolled by 4 --------------
#define ILP_CHAINS 8

extern "C" __global__ void ffma_ilp8(const float* x, float* out, float a, float b, int iters)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float x0 = x[i];
    float v[ILP_CHAINS];
#pragma unroll
    for (int k = 0; k < ILP_CHAINS; k++) v[k] = x0 + (float)k;
#pragma unroll 4
    for (int it = 0; it < iters; it++) {
#pragma unroll
        for (int k = 0; k < ILP_CHAINS; k++) v[k] = v[k] * a + b;
    }
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < ILP_CHAINS; k++) s += v[k];
    out[i] = s;
}

// --- block sum: grid-stride partial sums, __shfl_down_sync per warp, warp sums through shared --
// memory, reduced again by warp 0; one float per block.
__device__ __forceinline__ float warp_sum_down(float v)
{
#pragma unroll
    for (int d = 16; d > 0; d >>= 1) v += __shfl_down_sync(0xffffffffu, v, d);
    return v;
}

extern "C" __global__ void shfl_block_reduce(const float* in, float* out, int n)
{
    __shared__ float warp_sums[32];
    float s = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) s += in[i];
    s = warp_sum_down(s);
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) warp_sums[warp] = s;
    __syncthreads();
    if (warp == 0) {
        s = lane < (int)(blockDim.x >> 5) ? warp_sums[lane] : 0.0f;
        s = warp_sum_down(s);
        if (lane == 0) out[blockIdx.x] = s;
    }
}

// --- transposes of a height x width f32 matrix: 64 x 64 tiles, 32 x 4 threads, each thread -----
// moving 2 columns x 16 rows. Naive: coalesced reads, writes strided by `height`. Tiled: through
// a shared tile padded to 65 columns (conflict-free column reads), coalesced both ways.
#define TR_TILE 64
#define TR_ROWS 4

extern "C" __global__ void transpose_rect_naive(const float* in, float* out, int width, int height)
{
    int x = blockIdx.x * TR_TILE + threadIdx.x;
    int y = blockIdx.y * TR_TILE + threadIdx.y;
    for (int j = 0; j < TR_TILE; j += TR_ROWS)
        for (int i = 0; i < TR_TILE; i += 32)
            out[(x + i) * height + (y + j)] = in[(y + j) * width + (x + i)];
}

extern "C" __global__ void transpose_rect_tiled(const float* in, float* out, int width, int height)
{
    __shared__ float tile[TR_TILE][TR_TILE + 1];
    int x = blockIdx.x * TR_TILE + threadIdx.x;
    int y = blockIdx.y * TR_TILE + threadIdx.y;
    for (int j = 0; j < TR_TILE; j += TR_ROWS)
        for (int i = 0; i < TR_TILE; i += 32)
            tile[threadIdx.y + j][threadIdx.x + i] = in[(y + j) * width + (x + i)];
    __syncthreads();
    x = blockIdx.y * TR_TILE + threadIdx.x;
    y = blockIdx.x * TR_TILE + threadIdx.y;
    for (int j = 0; j < TR_TILE; j += TR_ROWS)
        for (int i = 0; i < TR_TILE; i += 32)
            out[(y + j) * height + (x + i)] = tile[threadIdx.x + i][threadIdx.y + j];
}

// --- global atomics: count random keys into a few thousand counters (grid-stride) -------------
extern "C" __global__ void atomic_counters(const unsigned* keys, unsigned* counters, int n, unsigned ncounters)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&counters[keys[i] % ncounters], 1u);
}

// --- register pressure under __launch_bounds__(256, 4) (at most 64 registers): 64 live floats --
// per thread, mixed in fully unrolled loops, so ptxas spills to local memory.
#define SPILL_VALS 64
#define SPILL_ROUNDS 10

extern "C" __global__ void __launch_bounds__(256, 4) spill_launch_bounds(const float* in, float* out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float x = in[i];
    float v[SPILL_VALS];
#pragma unroll
    for (int k = 0; k < SPILL_VALS; k++) v[k] = x * (float)(k + 1) + (float)k;
#pragma unroll
    for (int r = 0; r < SPILL_ROUNDS; r++) {
#pragma unroll
        for (int k = 0; k < SPILL_VALS; k++) v[k] = v[k] * 0.5f + v[(k + 11) % SPILL_VALS] * 0.25f;
    }
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < SPILL_VALS; k++) s += v[k] * (float)((k & 7) + 1);
    out[i] = s;
}

// ====================================================================== PolyBench-style ====

// --- atax, first kernel: tmp = A x, one thread per row walking its row (row-major A) ----------
extern "C" __global__ void atax_rows(const float* A, const float* x, float* tmp, int nx, int ny)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < nx) {
        float s = 0.0f;
        for (int j = 0; j < ny; j++) s += A[i * ny + j] * x[j];
        tmp[i] = s;
    }
}

// --- syrk, naive: C = alpha A A^T + beta C, A n x m, one thread per element of C --------------
extern "C" __global__ void syrk_naive(const float* A, float* C, float alpha, float beta, int n, int m)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < n && j < n) {
        float c = C[i * n + j] * beta;
        for (int k = 0; k < m; k++) c += alpha * A[i * m + k] * A[j * m + k];
        C[i * n + j] = c;
    }
}

// --- covariance, first step: column means of an n x m data matrix, then the data centred in ---
// place; one thread per column walking down it (coalesced across the warp).
extern "C" __global__ void covariance_center(float* data, float* mean, float float_n, int m, int n)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < m) {
        float s = 0.0f;
        for (int i = 0; i < n; i++) s += data[i * m + j];
        s /= float_n;
        mean[j] = s;
        for (int i = 0; i < n; i++) data[i * m + j] -= s;
    }
}

// ======================================================================== Rodinia-style ====

// --- hotspot: one explicit time step of the chip temperature grid from temperature and power, --
// the 5-point stencil with edge cells reusing themselves for missing neighbours; each thread
// walks HS_ROWS rows of one column, keeping north/centre/south in registers.
#define HS_ROWS 16

extern "C" __global__ void hotspot_step(const float* temp, const float* power, float* out, int width, int height,
                                        float step_div_cap, float rx_1, float ry_1, float rz_1, float amb)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y0 = (blockIdx.y * blockDim.y + threadIdx.y) * HS_ROWS;
    if (x >= width || y0 >= height) return;
    int xw = x > 0 ? x - 1 : x;
    int xe = x < width - 1 ? x + 1 : x;
    float tn = temp[(y0 > 0 ? y0 - 1 : y0) * width + x];
    float tc = temp[y0 * width + x];
    for (int r = 0; r < HS_ROWS && y0 + r < height; r++) {
        int y = y0 + r;
        int ys = y < height - 1 ? y + 1 : y;
        float ts = temp[ys * width + x];
        float tw = temp[y * width + xw];
        float te = temp[y * width + xe];
        float delta = step_div_cap * (power[y * width + x] + (ts + tn - 2.0f * tc) * ry_1 +
                                      (te + tw - 2.0f * tc) * rx_1 + (amb - tc) * rz_1);
        out[y * width + x] = tc + delta;
        tn = tc;
        tc = ts;
    }
}

// --- pathfinder: `iteration` rows of the min-path DP per launch in shared memory (pyramid): ----
// each 256-thread block owns 256 - 2 * iteration output columns plus a halo of `iteration` on
// each side; the computed region shrinks by one column per side per row. A cell adds its wall
// cost to the least of its three upper neighbours (clamped at the grid's edges).
#define PF_BLOCK 256

extern "C" __global__ void pathfinder_pyramid(const int* wall, const int* src, int* dst, int cols, int iteration)
{
    __shared__ int prev[PF_BLOCK];
    __shared__ int result[PF_BLOCK];
    int tx = threadIdx.x;
    int small_cols = PF_BLOCK - 2 * iteration;
    int blk_x = small_cols * blockIdx.x - iteration;  // global column of thread 0
    int xidx = blk_x + tx;
    int valid_min = blk_x < 0 ? -blk_x : 0;
    int valid_max = blk_x + PF_BLOCK > cols ? cols - 1 - blk_x : PF_BLOCK - 1;
    int w = tx - 1 < valid_min ? valid_min : tx - 1;
    int e = tx + 1 > valid_max ? valid_max : tx + 1;
    bool valid = tx >= valid_min && tx <= valid_max;
    if (valid) prev[tx] = src[xidx];
    __syncthreads();
    bool computed = false;
    for (int i = 0; i < iteration; i++) {
        computed = false;
        if (tx >= i + 1 && tx <= PF_BLOCK - i - 2 && valid) {
            computed = true;
            int left = prev[w], up = prev[tx], right = prev[e];
            int m = left < up ? left : up;
            m = m < right ? m : right;
            result[tx] = m + wall[i * cols + xidx];
        }
        __syncthreads();
        if (i == iteration - 1) break;
        if (computed) prev[tx] = result[tx];
        __syncthreads();
    }
    if (computed) dst[xidx] = result[tx];
}

// --- Needleman-Wunsch, batched: each 64-thread block scores one pair of 64-residue sequences, --
// the whole (65 x 65) matrix in shared memory, filled one anti-diagonal per step (thread t owns
// row t + 1), a 24 x 24 substitution matrix and a linear gap penalty; then written out.
#define NW_N 64
#define NW_ALPHA 24

extern "C" __global__ void nw_batched(const int* seq_a, const int* seq_b, const int* subst, int* score, int penalty)
{
    __shared__ int H[NW_N + 1][NW_N + 1];
    __shared__ int S[NW_ALPHA * NW_ALPHA];
    __shared__ int b[NW_N];
    int t = threadIdx.x;
    int pair = blockIdx.x;
    for (int k = t; k < NW_ALPHA * NW_ALPHA; k += NW_N) S[k] = subst[k];
    int a = seq_a[pair * NW_N + t];
    b[t] = seq_b[pair * NW_N + t];
    H[t + 1][0] = -(t + 1) * penalty;
    H[0][t + 1] = -(t + 1) * penalty;
    if (t == 0) H[0][0] = 0;
    __syncthreads();
    int i = t + 1;
    for (int d = 2; d <= 2 * NW_N; d++) {
        int j = d - i;
        if (j >= 1 && j <= NW_N) {
            int diag = H[i - 1][j - 1] + S[a * NW_ALPHA + b[j - 1]];
            int up = H[i - 1][j] - penalty;
            int left = H[i][j - 1] - penalty;
            int best = diag > up ? diag : up;
            H[i][j] = best > left ? best : left;
        }
        __syncthreads();
    }
    int* out = score + pair * (NW_N + 1) * (NW_N + 1);
    for (int k = t; k < (NW_N + 1) * (NW_N + 1); k += NW_N) out[k] = (&H[0][0])[k];
}

// --- backprop, layer forward: hidden unit j = sigmoid(bias_j + sum_i w[j][i] in[i]); one ------
// 256-thread block per hidden unit, strided partial dot products, a shared-memory tree.
#define BP_THREADS 256

extern "C" __global__ void backprop_forward(const float* w, const float* bias, const float* in, float* out, int n_in)
{
    __shared__ float partial[BP_THREADS];
    int j = blockIdx.x;
    const float* row = w + (size_t)j * n_in;
    float s = 0.0f;
    for (int i = threadIdx.x; i < n_in; i += BP_THREADS) s += row[i] * in[i];
    partial[threadIdx.x] = s;
    __syncthreads();
    for (int stride = BP_THREADS / 2; stride > 0; stride >>= 1) {
        if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[j] = 1.0f / (1.0f + expf(-(partial[0] + bias[j])));
}

// --- BFS, one level over a CSR graph: frontier nodes (level == cur) visit their neighbours; ----
// an unvisited one (level < 0) gets level cur + 1 and joins the next frontier.
extern "C" __global__ void bfs_level(const int* row_ptr, const int* col_idx, int* level, unsigned char* next,
                                     int n, int cur)
{
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < n && level[v] == cur) {
        int end = row_ptr[v + 1];
        for (int e = row_ptr[v]; e < end; e++) {
            int u = col_idx[e];
            if (level[u] < 0) {
                level[u] = cur + 1;
                next[u] = 1;
            }
        }
    }
}

// --- SRAD, first kernel: per pixel of a rows x cols image J, the four differences to the -------
// neighbours (clamped at the edges) and the diffusion coefficient from the instantaneous
// coefficient of variation against q0sqr, clamped to [0, 1]; grid-stride over the pixels.
extern "C" __global__ void srad_coeffs(const float* J, float* dN, float* dS, float* dW, float* dE, float* c,
                                       int rows, int cols, float q0sqr)
{
    for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < rows * cols; k += blockDim.x * gridDim.x) {
        int i = k / cols, j = k - i * cols;
        int iN = i > 0 ? i - 1 : 0, iS = i < rows - 1 ? i + 1 : rows - 1;
        int jW = j > 0 ? j - 1 : 0, jE = j < cols - 1 ? j + 1 : cols - 1;
        float Jc = J[k];
        float n = J[iN * cols + j] - Jc;
        float s = J[iS * cols + j] - Jc;
        float w = J[i * cols + jW] - Jc;
        float e = J[i * cols + jE] - Jc;
        float G2 = (n * n + s * s + w * w + e * e) / (Jc * Jc);
        float L = (n + s + w + e) / Jc;
        float num = 0.5f * G2 - (1.0f / 16.0f) * (L * L);
        float den = 1.0f + 0.25f * L;
        float qsqr = num / (den * den);
        den = (qsqr - q0sqr) / (q0sqr * (1.0f + q0sqr));
        float ck = 1.0f / (1.0f + den);
        ck = ck < 0.0f ? 0.0f : (ck > 1.0f ? 1.0f : ck);
        dN[k] = n;
        dS[k] = s;
        dW[k] = w;
        dE[k] = e;
        c[k] = ck;
    }
}
