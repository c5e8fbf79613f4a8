// Tensor-core GEMM with mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 and ldmatrix:
// C (M x N, f32) = A (M x K, f16, row-major) times B^T, B given as N x K (row-major, i.e. the
// "col" operand of the mma). The inputs are small integers, so every f32 sum is exact and the
// result is bitwise the `gemm_nt` reference whatever order the tensor cores add in.
// CTA tile 64 x 64, 4 warps of 32 x 32 (2 x 4 mma tiles each), K step 32 staged in shared memory
// (rows padded to 40 halves so the 8 row addresses of an ldmatrix hit distinct banks).
// Fragments: ldmatrix.x4 of A gives a0..a3 (rows 0-7/8-15 x k 0-7/8-15); ldmatrix.x4 of B's
// N x K rows gives b0, b1 of two n8 tiles; accumulator c0,c1 = row g, cols 2t, 2t+1 and c2,c3 =
// row g+8, with g = lane/4, t = lane%4.

constexpr int BM = 64, BN = 64, BK = 32, LDS = BK + 8;   // LDS: padded row, in halves

__device__ __forceinline__ unsigned smem_u32(const void* p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}

__device__ __forceinline__ void ldmatrix_x4(unsigned (&r)[4], const void* row_addr)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(smem_u32(row_addr)));
}

__device__ __forceinline__ void mma_16816(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1)
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

extern "C" __global__ void __launch_bounds__(128)
mma_gemm(const unsigned short* A, const unsigned short* B, float* C, int n, int k)
{
    __shared__ alignas(16) unsigned short As[BM * LDS];
    __shared__ alignas(16) unsigned short Bs[BN * LDS];
    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    const int wm = (warp / 2) * 32, wn = (warp % 2) * 32;
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;

    float acc[2][4][4];
#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j)
#pragma unroll
            for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.0f;

    for (int k0 = 0; k0 < k; k0 += BK) {
        // 64 rows x 32 halves = 256 chunks of 16 bytes per operand: 2 per thread each
#pragma unroll
        for (int c = tid; c < BM * BK / 8; c += 128) {
            const int r = c / (BK / 8), h = (c % (BK / 8)) * 8;
            *(uint4*)&As[r * LDS + h] = *(const uint4*)&A[(size_t)(row0 + r) * k + k0 + h];
            *(uint4*)&Bs[r * LDS + h] = *(const uint4*)&B[(size_t)(col0 + r) * k + k0 + h];
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < BK; kk += 16) {
            unsigned a[2][4], b[4][2];
#pragma unroll
            for (int mt = 0; mt < 2; ++mt)
                ldmatrix_x4(a[mt], &As[(wm + 16 * mt + lane % 16) * LDS + kk + (lane / 16) * 8]);
#pragma unroll
            for (int np = 0; np < 2; ++np) {
                unsigned r[4];
                ldmatrix_x4(r, &Bs[(wn + 16 * np + lane % 8 + (lane / 16) * 8) * LDS + kk + ((lane / 8) % 2) * 8]);
                b[2 * np][0] = r[0];
                b[2 * np][1] = r[1];
                b[2 * np + 1][0] = r[2];
                b[2 * np + 1][1] = r[3];
            }
#pragma unroll
            for (int mt = 0; mt < 2; ++mt)
#pragma unroll
                for (int nt = 0; nt < 4; ++nt) mma_16816(acc[mt][nt], a[mt], b[nt][0], b[nt][1]);
        }
        __syncthreads();
    }
    const int g = lane / 4, t = lane % 4;
#pragma unroll
    for (int mt = 0; mt < 2; ++mt)
#pragma unroll
        for (int nt = 0; nt < 4; ++nt) {
            const int r = row0 + wm + 16 * mt + g, c = col0 + wn + 8 * nt + 2 * t;
            *(float2*)&C[(size_t)r * n + c] = make_float2(acc[mt][nt][0], acc[mt][nt][1]);
            *(float2*)&C[(size_t)(r + 8) * n + c] = make_float2(acc[mt][nt][2], acc[mt][nt][3]);
        }
}
