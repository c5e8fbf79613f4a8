// Fifth batch of "blind" workloads: memory-heavy kernels written the way users bring them, never
// used to calibrate or develop the simulator's timing model: in-place read-modify-write (a whole
// array, and one word of each 8-byte pair), read-after-write through global memory inside one
// CTA, softmax-style rows read three times (a warp per row and a CTA per row), a naive u16
// transpose, a per-thread column sum, CAS retry loops (a float add, a keyed max with a pre-check,
// a bounded counter that claims slots), a gather with reuse and an ELLPACK-R SpMV with a few
// long rows.
// Plain CUDA C, no headers, `extern "C"` entry points. The manifests carry no regs_per_thread: the
// simulator works registers out from the PTX.

// --- in-place affine update of one array: a[i] = a[i] * c + d, grid-stride --------------------
extern "C" __global__ void affine_inplace(float* a, int n, float c, float d)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        a[i] = a[i] * c + d;
}

// --- one word of each 8-byte {key, val} pair updated in place: val += key & mask ---------------
struct KeyVal {
    unsigned key;
    unsigned val;
};

extern "C" __global__ void pair_val_add(KeyVal* kv, int n, unsigned mask)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        kv[i].val += kv[i].key & mask;
}

// --- two phases through global memory in one CTA: each thread writes the sum of its 4 input ----
// words to part[], __syncthreads(), then smooths with its neighbours' entries of the tile
// (1 2 1, the tile's ends use their own value), reading what other warps of the CTA just wrote.
// One 256-entry tile per CTA at a time, grid-stride over tiles.
#define SMOOTH_TILE 256

extern "C" __global__ void quad_smooth_gmem(const unsigned* in, unsigned* part, unsigned* out, int ntiles)
{
    int t = threadIdx.x;
    for (int tile = blockIdx.x; tile < ntiles; tile += gridDim.x) {
        int g = tile * SMOOTH_TILE + t;
        unsigned s = in[4 * g] + in[4 * g + 1] + in[4 * g + 2] + in[4 * g + 3];
        part[g] = s;
        __syncthreads();
        unsigned l = t > 0 ? part[g - 1] : s;
        unsigned r = t < SMOOTH_TILE - 1 ? part[g + 1] : s;
        out[g] = l + 2 * s + r;
    }
}

// --- softmax-shaped rows, one warp per row: a max pass, a "sum of exponentials" pass and a -----
// write pass, each reading the row again. The exponential is replaced by e = v - max + 128 (small
// integers stay exact, so the sums do not depend on the order); out = e * (1 / sum).
// Grid-stride over rows by warps.
extern "C" __global__ void softmax_shift_warp(const float* in, float* out, int rows, int cols)
{
    int lane = threadIdx.x & 31;
    int warps = (gridDim.x * blockDim.x) >> 5;
    for (int row = (blockIdx.x * blockDim.x + threadIdx.x) >> 5; row < rows; row += warps) {
        const float* src = in + (size_t)row * cols;
        float* dst = out + (size_t)row * cols;
        float m = -3.0e38f;
        for (int c = lane; c < cols; c += 32) m = fmaxf(m, src[c]);
        for (int d = 16; d > 0; d >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, d));
        float s = 0.0f;
        for (int c = lane; c < cols; c += 32) s += src[c] - m + 128.0f;
        for (int d = 16; d > 0; d >>= 1) s += __shfl_xor_sync(0xffffffffu, s, d);
        float inv = 1.0f / s;
        for (int c = lane; c < cols; c += 32) dst[c] = (src[c] - m + 128.0f) * inv;
    }
}

// --- the same rows, one CTA per row: block reductions through shared memory (warp shuffles, ---
// one partial per warp), grid-stride over rows by CTAs.
__device__ float block_max(float v, float* red)
{
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
    for (int d = 16; d > 0; d >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, d));
    if (lane == 0) red[warp] = v;
    __syncthreads();
    v = lane < nwarps ? red[lane] : -3.0e38f;
    for (int d = 16; d > 0; d >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, d));
    __syncthreads();
    return v;
}

__device__ float block_sum(float v, float* red)
{
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
    for (int d = 16; d > 0; d >>= 1) v += __shfl_xor_sync(0xffffffffu, v, d);
    if (lane == 0) red[warp] = v;
    __syncthreads();
    v = lane < nwarps ? red[lane] : 0.0f;
    for (int d = 16; d > 0; d >>= 1) v += __shfl_xor_sync(0xffffffffu, v, d);
    __syncthreads();
    return v;
}

extern "C" __global__ void softmax_shift_cta(const float* in, float* out, int rows, int cols)
{
    __shared__ float red[32];
    for (int row = blockIdx.x; row < rows; row += gridDim.x) {
        const float* src = in + (size_t)row * cols;
        float* dst = out + (size_t)row * cols;
        float m = -3.0e38f;
        for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, src[c]);
        m = block_max(m, red);
        float s = 0.0f;
        for (int c = threadIdx.x; c < cols; c += blockDim.x) s += src[c] - m + 128.0f;
        s = block_sum(s, red);
        float inv = 1.0f / s;
        for (int c = threadIdx.x; c < cols; c += blockDim.x) dst[c] = (src[c] - m + 128.0f) * inv;
    }
}

// --- naive transpose of a height x width u16 matrix: 32 x 8 threads, each block a 32-wide, ----
// 64-tall tile, 8 elements per thread; a warp reads 64 contiguous bytes and writes 2 bytes to
// each of 32 rows of the output (`height` u16 apart).
#define TU_W 32
#define TU_H 64

extern "C" __global__ void transpose_u16_naive(const unsigned short* in, unsigned short* out, int width, int height)
{
    int x = blockIdx.x * TU_W + threadIdx.x;
    int y = blockIdx.y * TU_H + threadIdx.y;
    if (x >= width) return;
    for (int j = 0; j < TU_H; j += 8)
        if (y + j < height) out[x * height + y + j] = in[(y + j) * width + x];
}

// --- column sums of a row-major u16 matrix into u32, one thread per column walking down ------
// the rows (lanes on adjacent columns: a warp load is 64 bytes, rows `cols` u16 apart).
extern "C" __global__ void colsum_u16(const unsigned short* A, unsigned* sums, int rows, int cols)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= cols) return;
    unsigned s = 0;
    for (int i = 0; i < rows; i++) s += A[i * cols + j];
    sums[j] = s;
}

// --- f32 atomic add through an atomicCAS retry loop, into bins[keys[i]] (the idiom for a -------
// float or double add where no native atomic is wanted); integer weights keep every sum exact.
__device__ void cas_add_f32(float* addr, float v)
{
    unsigned* p = (unsigned*)addr;
    unsigned old = *p, assumed;
    do {
        assumed = old;
        old = atomicCAS(p, assumed, __float_as_uint(__uint_as_float(assumed) + v));
    } while (assumed != old);
}

extern "C" __global__ void cas_fadd_keyed(const unsigned* keys, const float* w, float* bins, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        cas_add_f32(&bins[keys[i]], w[i]);
}

// --- per-key u32 maximum through atomicCAS, with a plain read first: no CAS when the slot -----
// already holds at least v (the common case once the maxima have grown).
extern "C" __global__ void keyed_max_cas(const unsigned* keys, const unsigned* vals, unsigned* maxes, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        unsigned* p = &maxes[keys[i]];
        unsigned v = vals[i];
        unsigned cur = *p;
        while (cur < v) {
            unsigned prev = atomicCAS(p, cur, v);
            if (prev == cur) break;
            cur = prev;
        }
    }
}

// --- bounded bucket fill: each item claims the next of its bucket's `cap` slots with a CAS ----
// on the bucket's counter (no lock; items past the capacity are dropped) and marks the slot with
// key + 1. counts[k] ends at min(cap, items of key k), whatever the order.
extern "C" __global__ void bucket_fill_cas(const unsigned* keys, unsigned* counts, unsigned* fill, int n, unsigned cap)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        unsigned k = keys[i];
        unsigned old = counts[k];
        while (old < cap) {
            unsigned prev = atomicCAS(&counts[k], old, old + 1);
            if (prev == old) {
                fill[k * cap + old] = k + 1;
                break;
            }
            old = prev;
        }
    }
}

// --- gather through an index array: out[i] = table[idx[i]], grid-stride ----------------------
extern "C" __global__ void gather_u32(const unsigned* idx, const unsigned* table, unsigned* out, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        out[i] = table[idx[i]];
}

// --- ELLPACK-R SpMV, one thread per row: column-major padded cols/vals (entry k of row r at ----
// k * rows + r, coalesced across a warp's rows) and each row's length, so a row stops at its own
// end; a warp runs as long as its longest row.
extern "C" __global__ void spmv_ellr(const int* row_len, const int* cols, const float* vals, const float* x, float* y,
                                     int rows)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float acc = 0.0f;
    int len = row_len[r];
    for (int k = 0; k < len; k++) acc += vals[k * rows + r] * x[cols[k * rows + r]];
    y[r] = acc;
}
