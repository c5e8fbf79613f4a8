// Fourth batch of "blind" workloads: memory-heavy kernels written the way users bring them, never
// used to calibrate or develop the simulator's timing model: strided record reads, a column walk
// (PolyBench bicg), a naive rectangular transpose, a windowed gather, a 64-bit scatter, a
// thread-per-row CSR SpMV over skewed rows, a 3D 7-point stencil, global atomics on few and on
// many addresses, a CAS loop, partial-sector stores, and a warp-per-row normalisation.
// Plain CUDA C, no headers, `extern "C"` entry points. The manifests carry no regs_per_thread: the
// simulator works registers out from the PTX.

// --- field 0 of an array of 48-byte records (12 words each): one word per record, grid-stride --
extern "C" __global__ void aos_field_extract(const unsigned* rec, unsigned* out, int n, int stride, int offset)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        out[i] = rec[i * stride + offset];
}

// --- bicg, the A^T r half: s[j] = sum_i r[i] * A[i][j] for a row-major nrows x ncols A; one ----
// thread per column walking down the rows (lanes on adjacent columns).
extern "C" __global__ void bicg_cols(const float* A, const float* r, float* s, int nrows, int ncols)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < ncols) {
        float acc = 0.0f;
        for (int i = 0; i < nrows; i++) acc += r[i] * A[i * ncols + j];
        s[j] = acc;
    }
}

// --- naive transpose of a height x width f32 matrix: 16 x 16 threads, each block a 16-wide, ----
// 128-tall tile, every thread moving 8 elements of one column; reads are 64-byte half-warp
// segments, writes land `height` floats apart.
#define TT_W 16
#define TT_H 128

extern "C" __global__ void transpose_tall_naive(const float* in, float* out, int width, int height)
{
    int x = blockIdx.x * TT_W + threadIdx.x;
    int y = blockIdx.y * TT_H + threadIdx.y;
    if (x >= width) return;
    for (int j = 0; j < TT_H; j += 16)
        if (y + j < height) out[x * height + (y + j)] = in[(y + j) * width + x];
}

// --- windowed gather: element i reads table[w * window + local[i]], w = i / per_window: --------
// neighbour lists stored as 16-bit offsets inside a cell of `window` words (a partly sorted
// index: random within each 4 KiB cell, cells in order).
extern "C" __global__ void gather_windowed(const unsigned short* local, const unsigned* table, unsigned* out, int n,
                                           int per_window, int window)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        int w = i / per_window;
        out[i] = table[w * window + local[i]];
    }
}

// --- scatter of 8-byte values through a permutation, grid-stride ------------------------------
extern "C" __global__ void scatter_u64(const unsigned* perm, const unsigned long long* in, unsigned long long* out,
                                       int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) out[perm[i]] = in[i];
}

// --- CSR SpMV, one thread per row (the textbook scalar kernel), grid-stride over rows ---------
extern "C" __global__ void spmv_csr_thread(const int* row_ptr, const int* col_idx, const float* vals, const float* x,
                                           float* y, int rows)
{
    for (int r = blockIdx.x * blockDim.x + threadIdx.x; r < rows; r += blockDim.x * gridDim.x) {
        float s = 0.0f;
        int end = row_ptr[r + 1];
        for (int k = row_ptr[r]; k < end; k++) s += vals[k] * x[col_idx[k]];
        y[r] = s;
    }
}

// --- 3D 7-point stencil, one thread per (x, y) marching through z; boundary cells copied -------
extern "C" __global__ void stencil7_3d(const float* in, float* out, int nx, int ny, int nz, float c0, float c1)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= nx || y >= ny) return;
    int plane = nx * ny;
    bool edge = x == 0 || x == nx - 1 || y == 0 || y == ny - 1;
    for (int z = 0; z < nz; z++) {
        int k = z * plane + y * nx + x;
        if (edge || z == 0 || z == nz - 1) {
            out[k] = in[k];
        } else {
            float nb = in[k - 1] + in[k + 1] + in[k - nx] + in[k + nx] + in[k - plane] + in[k + plane];
            out[k] = c0 * in[k] + c1 * nb;
        }
    }
}

// --- weighted histogram: atomicAdd of an f32 weight into one of 256 bins (few addresses) ------
extern "C" __global__ void hist_weighted_f32(const unsigned* keys, const float* w, float* bins, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&bins[keys[i]], w[i]);
}

// --- counting into a million counters: atomicAdd(&counts[key], 1) (many addresses) -----------
extern "C" __global__ void count_keys_1m(const unsigned* in, unsigned* bins, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&bins[in[i]], 1u);
}

// --- atomicMax for floats through an atomicCAS retry loop (no native f32 max), 16 slots --------
__device__ float atomic_max_f32(float* addr, float v)
{
    int* p = (int*)addr;
    int old = *p;
    while (__int_as_float(old) < v) {
        int assumed = old;
        old = atomicCAS(p, assumed, __float_as_int(v));
        if (old == assumed) break;
    }
    return __int_as_float(old);
}

extern "C" __global__ void cas_max_f32(const float* vals, float* maxes, int n, int nslots)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomic_max_f32(&maxes[i % nslots], vals[i]);
}

// --- partial-sector stores: channel 0 of an interleaved 3-channel u16 image (every third u16) --
extern "C" __global__ void store_u16_stride(const unsigned* in, unsigned short* out, int n, int stride)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        out[i * stride] = (unsigned short)in[i];
}

// --- one field of 16-byte structs updated in place: p.w += p.x * dt (reads 8, writes 4 bytes) -
struct Particle {
    float x, y, z, w;
};

extern "C" __global__ void aos_update_w(Particle* p, int n, float dt)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        p[i].w = p[i].w + p[i].x * dt;
}

// --- row-wise L2 normalisation, one warp per row: sum of squares (lane-strided, shfl.xor ------
// butterfly), then every element times 1 / sqrtf(sum), the row read a second time.
extern "C" __global__ void row_l2_normalize(const float* in, float* out, int rows, int cols)
{
    int row = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    int lane = threadIdx.x & 31;
    if (row >= rows) return;
    const float* src = in + (size_t)row * cols;
    float* dst = out + (size_t)row * cols;
    float s = 0.0f;
    for (int c = lane; c < cols; c += 32) {
        float v = src[c];
        s += v * v;
    }
    for (int d = 16; d > 0; d >>= 1) s += __shfl_xor_sync(0xffffffffu, s, d);
    float inv = 1.0f / sqrtf(s);
    for (int c = lane; c < cols; c += 32) dst[c] = src[c] * inv;
}
