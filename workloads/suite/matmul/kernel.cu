// C = A B for n x n row-major f32 matrices, one thread per C element, acc = fmaf(a, b, acc) in
// k order (so every variant gives bit-identical results). Naive: A and B from global memory.
// Tiled: T x T tiles staged in shared memory (two barriers per tile); n must be a multiple of T.
extern "C" __global__ void matmul_naive(const float* A, const float* B, float* C, int n)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= n || col >= n) return;
    float acc = 0.0f;
    for (int k = 0; k < n; ++k) acc = fmaf(A[row * n + k], B[k * n + col], acc);
    C[row * n + col] = acc;
}

template <int T>
__device__ void matmul_tiled(const float* A, const float* B, float* C, int n)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * T + ty;
    int col = blockIdx.x * T + tx;
    float acc = 0.0f;
    for (int t = 0; t < n; t += T) {
        As[ty][tx] = A[row * n + t + tx];
        Bs[ty][tx] = B[(t + ty) * n + col];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < T; ++k) acc = fmaf(As[ty][k], Bs[k][tx], acc);
        __syncthreads();
    }
    C[row * n + col] = acc;
}

extern "C" __global__ void matmul_tiled16(const float* A, const float* B, float* C, int n) { matmul_tiled<16>(A, B, C, n); }
extern "C" __global__ void matmul_tiled32(const float* A, const float* B, float* C, int n) { matmul_tiled<32>(A, B, C, n); }
