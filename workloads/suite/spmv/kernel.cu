// Sparse matrix-vector product y = A x, A in CSR (row_ptr, col_idx, vals). Scalar: one thread per
// row (uncoalesced, load-imbalanced). Vector: one warp per row, lanes stride the row's entries
// and reduce with shuffles (coalesced).
extern "C" __global__ void spmv_csr_scalar(const int* row_ptr, const int* col_idx, const float* vals, const float* x, float* y, int rows)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float sum = 0.0f;
    for (int j = row_ptr[r]; j < row_ptr[r + 1]; ++j) sum += vals[j] * x[col_idx[j]];
    y[r] = sum;
}

extern "C" __global__ void spmv_csr_vector(const int* row_ptr, const int* col_idx, const float* vals, const float* x, float* y, int rows)
{
    int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    unsigned lane = threadIdx.x & 31;
    if (r >= rows) return;
    float sum = 0.0f;
    for (int j = row_ptr[r] + lane; j < row_ptr[r + 1]; j += 32) sum += vals[j] * x[col_idx[j]];
#pragma unroll
    for (int d = 16; d > 0; d >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, d);
    if (lane == 0) y[r] = sum;
}
