// Multi-launch workloads: kernels run as a sequence over shared buffers ([[launch]] tables).
// A two-pass reduction (per-block partial sums, then one block reducing the partials) and an
// iterative 2-D Jacobi stencil that ping-pongs two grids (`repeat` with `swap`).

// Pass 1: each block of 256 threads sums 512 elements (two per thread, then a tree in shared
// memory) into partial[blockIdx.x].
extern "C" __global__ void partial_sums(const float* in, float* partial, int n) {
    __shared__ float s[256];
    unsigned t = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x * 2 + t;
    float v = 0.0f;
    if (i < n) v = in[i];
    if (i + blockDim.x < n) v += in[i + blockDim.x];
    s[t] = v;
    __syncthreads();
    for (unsigned k = blockDim.x / 2; k > 0; k >>= 1) {
        if (t < k) s[t] += s[t + k];
        __syncthreads();
    }
    if (t == 0) partial[blockIdx.x] = s[0];
}

// Pass 2: one block of 256 threads: thread t sums partial[t], partial[t + 256], ... in order,
// then the same tree; out[0] is the total.
extern "C" __global__ void final_sum(const float* partial, float* out, int m) {
    __shared__ float s[256];
    unsigned t = threadIdx.x;
    float v = 0.0f;
    for (unsigned i = t; i < m; i += blockDim.x) v += partial[i];
    s[t] = v;
    __syncthreads();
    for (unsigned k = blockDim.x / 2; k > 0; k >>= 1) {
        if (t < k) s[t] += s[t + k];
        __syncthreads();
    }
    if (t == 0) out[0] = s[0];
}

// One Jacobi sweep over an nx x ny grid: b = the mean of a's four neighbours inside, a's value
// on the boundary.
extern "C" __global__ void jacobi(const float* a, float* b, int nx, int ny) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= nx || y >= ny) return;
    int i = y * nx + x;
    if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1) {
        b[i] = a[i];
        return;
    }
    b[i] = 0.25f * (((a[i - 1] + a[i + 1]) + a[i - nx]) + a[i + nx]);
}
