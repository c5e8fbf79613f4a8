// out (width x height) = transpose of in (height x width), f32, 32 x 32 tiles with 32 x 8 thread
// blocks, each thread moving 4 elements (after M. Harris, "An Efficient Matrix Transpose in CUDA
// C/C++"). Naive: coalesced reads, strided writes. Shared: staged through tile[32][32], the column
// read is a 32-way bank conflict. Padded: tile[32][33], conflict free. Swizzled: tile[32][32]
// with the column index XOR the row, conflict free without padding.
#define TILE 32
#define ROWS 8

extern "C" __global__ void transpose_naive(const float* in, float* out, int width, int height)
{
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS) out[x * height + (y + j)] = in[(y + j) * width + x];
}

template <int PAD, bool SWIZZLE>
__device__ void transpose_tiled(const float* in, float* out, int width, int height)
{
    __shared__ float tile[TILE][TILE + PAD];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS) {
        int r = threadIdx.y + j;
        tile[r][SWIZZLE ? threadIdx.x ^ r : threadIdx.x] = in[(y + j) * width + x];
    }
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS) {
        int c = threadIdx.y + j;
        out[(y + j) * height + x] = tile[threadIdx.x][SWIZZLE ? c ^ threadIdx.x : c];
    }
}

extern "C" __global__ void transpose_shared(const float* in, float* out, int width, int height) { transpose_tiled<0, false>(in, out, width, height); }
extern "C" __global__ void transpose_padded(const float* in, float* out, int width, int height) { transpose_tiled<1, false>(in, out, width, height); }
extern "C" __global__ void transpose_swizzled(const float* in, float* out, int width, int height) { transpose_tiled<0, true>(in, out, width, height); }
