// Ampere-style multistage GEMM: C = A B (n x n, f32, row-major) with cp.async.cg 16-byte copies
// into a 3-stage shared-memory ring, one commit group per stage (cp.async.commit_group) and
// cp.async.wait_group STAGES-2 before computing on a stage. CTA tile 32 x 32, K step 16; block
// 32 x 8, thread (tx, ty) computes C[row0 + ty + 8j][col0 + tx] for j = 0..3, accumulating with
// fmaf in k order from 0, so the result is bitwise the `matmul` reference.

constexpr int BM = 32, BN = 32, BK = 16, STAGES = 3;

__device__ __forceinline__ unsigned smem_u32(const void* p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}

__device__ __forceinline__ void cp_async16(void* smem, const void* gmem)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;"
                 ::"r"(smem_u32(smem)), "l"(__cvta_generic_to_global(gmem)) : "memory");
}

__device__ __forceinline__ void cp_async_commit()
{
    asm volatile("cp.async.commit_group;" ::: "memory");
}

template <int N>
__device__ __forceinline__ void cp_async_wait()
{
    asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
}

extern "C" __global__ void __launch_bounds__(256)
cpasync_gemm(const float* A, const float* B, float* C, int n)
{
    __shared__ alignas(16) float As[STAGES][BM][BK];
    __shared__ alignas(16) float Bs[STAGES][BK][BN];
    const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * 32 + tx;
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    const int k_tiles = n / BK;

    // one 16-byte copy per thread per stage: threads 0..127 load A (32 x 16), 128..255 load B (16 x 32)
    auto load_stage = [&](int s, int kt) {
        if (tid < 128) {
            const int r = tid / 4, c = (tid % 4) * 4;
            cp_async16(&As[s][r][c], A + (size_t)(row0 + r) * n + kt * BK + c);
        } else {
            const int r = (tid - 128) / 8, c = ((tid - 128) % 8) * 4;
            cp_async16(&Bs[s][r][c], B + (size_t)(kt * BK + r) * n + col0 + c);
        }
    };

    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < k_tiles) load_stage(s, s);
        cp_async_commit();
    }
    float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int kt = 0; kt < k_tiles; ++kt) {
        cp_async_wait<STAGES - 2>();   // this thread's copies of stage kt have landed
        __syncthreads();               // everyone's have; and stage kt-1 is no longer being read
        const int next = kt + STAGES - 1;
        if (next < k_tiles) load_stage(next % STAGES, next);
        cp_async_commit();             // possibly empty: keeps one group per iteration
        const int s = kt % STAGES;
#pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
            const float b = Bs[s][kk][tx];
#pragma unroll
            for (int j = 0; j < 4; ++j) acc[j] = fmaf(As[s][ty + 8 * j][kk], b, acc[j]);
        }
    }
#pragma unroll
    for (int j = 0; j < 4; ++j) C[(size_t)(row0 + ty + 8 * j) * n + col0 + tx] = acc[j];
}
