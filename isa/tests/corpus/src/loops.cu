// Loops: counted, unrolled (full, partial, none), data-dependent while/do-while,
// nested loops with break/continue, grid-stride loops, 64-bit induction variables.
// Compiles for sm_75+.

extern "C" __global__ void saxpy_grid_stride(int n, float a, const float *__restrict__ x,
                                             float *__restrict__ y)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        y[i] = a * x[i] + y[i];
}

extern "C" __global__ void unroll_full(const float *in, float *out)
{
    float acc = 0.0f;
#pragma unroll
    for (int k = 0; k < 16; ++k)
        acc = fmaf(in[threadIdx.x * 16 + k], (float)(k + 1), acc);
    out[threadIdx.x] = acc;
}

extern "C" __global__ void unroll_partial(const int *in, int *out, int n)
{
    int acc = 0;
#pragma unroll 4
    for (int k = 0; k < n; ++k)
        acc += in[k * blockDim.x + threadIdx.x] * (k ^ 3);
    out[threadIdx.x] = acc;
}

// `#pragma unroll 1` makes nvcc emit `.pragma "nounroll";` in front of the loop's back edge.
extern "C" __global__ void no_unroll(const float *in, float *out, int n)
{
    float acc = 1.0f;
#pragma unroll 1
    for (int k = 0; k < n; ++k)
        acc = acc * in[k] + 0.5f;
    out[threadIdx.x] = acc;
}

// Data-dependent trip count per thread: divergent loop exit (Collatz steps).
extern "C" __global__ void collatz_steps(const unsigned *start, unsigned *steps, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned long long v = start[i];
    unsigned s = 0;
    while (v != 1ull && s < 10000u) {
        v = (v & 1ull) ? 3ull * v + 1ull : v >> 1;
        ++s;
    }
    steps[i] = s;
}

extern "C" __global__ void nested_break_continue(const int *m, int rows, int cols, int *first_neg)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    int found = -1;
    for (int c = 0; c < cols; ++c) {
        int v = m[r * cols + c];
        if (v == 0) continue;
        if (v < 0) { found = c; break; }
        for (int k = 0; k < (v & 7); ++k) {
            if (m[(r + k) % rows * cols] == v) { found = -2 - k; goto done; }
        }
    }
done:
    first_neg[r] = found;
}

extern "C" __global__ void do_while_bits(const unsigned long long *in, int *out)
{
    unsigned long long x = in[threadIdx.x];
    int n = 0;
    do {
        x &= x - 1;
        ++n;
    } while (x);
    out[threadIdx.x] = n;
}

// 64-bit induction variable and a large stride.
extern "C" __global__ void strided_sum64(const double *x, long long n, long long stride, double *out)
{
    double s = 0.0;
    for (long long i = threadIdx.x; i < n; i += stride)
        s += x[i];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
