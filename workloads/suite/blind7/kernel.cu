// blind7: memory-shaped kernels written as users write them, for measuring only (see README.md).
typedef unsigned int uint;

// 1. Naive transpose of a height x width f32 matrix: reads coalesced, writes a column each warp.
extern "C" __global__ void transpose_naive(const float *in, float *out, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height)
        out[(size_t)x * height + y] = in[(size_t)y * width + x];
}

// 2. Gather through an index array, two elements per thread.
extern "C" __global__ void gather_pairs(const int *idx, const uint *in, uint *out, int n)
{
    int i = 2 * (blockIdx.x * blockDim.x + threadIdx.x);
    if (i + 1 < n) {
        int a = idx[i], b = idx[i + 1];
        out[i] = in[a];
        out[i + 1] = in[b];
    } else if (i < n) {
        out[i] = in[idx[i]];
    }
}

// 3. Naive square matrix multiply, one output per thread, 16 x 16 blocks.
extern "C" __global__ void matmul_naive16(const float *A, const float *B, float *C, int n)
{
    int row = blockIdx.y * 16 + threadIdx.y;
    int col = blockIdx.x * 16 + threadIdx.x;
    if (row < n && col < n) {
        float acc = 0.0f;
        for (int k = 0; k < n; ++k)
            acc = fmaf(A[row * n + k], B[k * n + col], acc);
        C[row * n + col] = acc;
    }
}

// 4. 5-point stencil on a large f32 grid, borders copied.
extern "C" __global__ void stencil5_big(const float *in, float *out, int width, int height, float c0, float c1)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height)
        return;
    const float *row = in + (size_t)y * width;
    float centre = row[x];
    float v;
    if (x == 0 || y == 0 || x == width - 1 || y == height - 1)
        v = centre;
    else
        v = c0 * centre + c1 * (row[x - width] + row[x + width] + row[x - 1] + row[x + 1]);
    out[(size_t)y * width + x] = v;
}

// 5. Histogram into a few thousand global bins (atomicAdd, result unused), grid-stride.
extern "C" __global__ void histo_global(const uint *in, uint *bins, int n, int nbins)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&bins[in[i] % (uint)nbins], 1u);
}

// 6. Strided sums: thread t sums len words starting at (t % m) * s0 + (t / m) * s1, ks apart.
//    Row walks (s0 = row length, ks = 1) and column walks (s0 = 1, ks = row length).
extern "C" __global__ void strided_sums(const uint *a, uint *out, int threads, int m, int s0, int s1, int len, int ks)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= threads)
        return;
    const uint *p = a + (size_t)(t % m) * s0 + (size_t)(t / m) * s1;
    uint s = 0;
    for (int k = 0; k < len; k++)
        s += p[(size_t)k * ks];
    out[t] = s;
}

// 7. CSR SpMV, one thread per row, f64.
extern "C" __global__ void spmv_scalar_f64(const int *row_ptr, const int *col_idx, const double *vals,
                                           const double *x, double *y, int rows)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows) {
        double sum = 0.0;
        for (int j = row_ptr[r]; j < row_ptr[r + 1]; j++)
            sum += vals[j] * x[col_idx[j]];
        y[r] = sum;
    }
}

// 8. Widening strided store: out[i * stride] = in[i] as u64.
extern "C" __global__ void widen_strided(const uint *in, unsigned long long *out, int n, int stride)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[(size_t)i * stride] = in[i];
}
