// arch: sm_90a
// Warpgroup MMA (wgmma, sm_90a) on f16 inputs with f32 accumulators. The inputs are small
// integers (randint), so every f32 sum is exact and the results are bitwise the references.
//
// wgmma_gemm: C (M x N) = A (M x K) B^T, B given N x K: both operands K-major. One warpgroup (128
// threads) per CTA computes a 64 x 128 tile; K runs in 64-wide boxes that TMA loads with the
// 128-byte swizzle (128-byte rows, the whole K box in one swizzle span) into two 1024-byte
// aligned stages, each with an mbarrier (expect_tx = both boxes). Per stage: wgmma.fence, four
// wgmma.mma_async m64n128k16 (descriptors: 128B swizzle, SBO = 1024 bytes between 8-row core
// matrix groups, LBO unused = 16; the k-th step starts 32 bytes further into the swizzled rows; the
// very first step has scale-d = false, D = A B), wgmma.commit_group, wgmma.wait_group 0, a block
// barrier, then thread 0 refills the stage. Accumulator layout (per warp w of the group, lane l):
// d[4j + {0,1}] = row 16w + l/4, columns 8j + 2(l%4) + {0,1}; d[4j + {2,3}] = row + 8.
//
// ws_wgmma_gemm: the same product, warp-specialized in the CUTLASS sm90 style: 384 threads,
// warpgroup 0 the producer (setmaxnreg.dec to 40 registers; one elected lane issues the TMA loads),
// warpgroups 1 and 2 the consumers (setmaxnreg.inc to 232) computing rows 0-63 / 64-127 of a
// 128 x 128 tile. STAGES = 4 stages of A (128 x 64) + B (128 x 64) boxes (32 KiB) with full
// (count 1, expect_tx) and empty (count 8: one arrive per consumer warp after its wgmmas completed)
// mbarriers; parities start at 0 (consumers, full) and 1 (producer, empty) and flip when the stage
// index wraps. 132096 bytes of dynamic shared memory (4 x 32 KiB + 1 KiB alignment slack).
//
// wgmma_lat_n8 / wgmma_lat_n128: one warpgroup, A (64 x 16) and B (N x 16) copied by the threads
// into shared memory in the no-swizzle K-major layout (8 x 16-byte core matrices, [row group][k
// group][8 rows][16 bytes]: LBO = 128 bytes between the two k core matrices, SBO = 256 bytes
// between row groups), fence.proxy.async so the tensor cores (async proxy) see the generic
// writes, then a dependent chain of `iters` steps (wgmma.fence, one m64nNk16 wgmma accumulating
// into the same registers, commit_group, wait_group 0): C = iters * A B^T, and thread 0 records
// the chain's clock64 cycles.

#include "../include/hopper.cuh"

constexpr int BM = 64, BN = 128, BK = 64;
constexpr unsigned A_BYTES = BM * BK * 2;              // 8 KiB box of A
constexpr unsigned B_BYTES = BN * BK * 2;              // 16 KiB box of B
constexpr unsigned STAGE_BYTES = A_BYTES + B_BYTES;    // a multiple of 1024

__device__ __forceinline__ void wgmma_fence()
{
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
}

__device__ __forceinline__ void wgmma_commit()
{
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}

template <int N>
__device__ __forceinline__ void wgmma_wait()
{
    asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
}

/// Shared-memory matrix descriptor: start address, leading and stride byte offsets (>> 4 each),
/// base offset 0, swizzle mode in bits 62-63 (0 none, 1 = 128B).
__device__ __forceinline__ unsigned long long smem_desc(unsigned addr, unsigned lbo, unsigned sbo, unsigned swizzle)
{
    return (unsigned long long)((addr & 0x3FFFF) >> 4) | ((unsigned long long)((lbo & 0x3FFFF) >> 4) << 16) |
           ((unsigned long long)((sbo & 0x3FFFF) >> 4) << 32) | ((unsigned long long)swizzle << 62);
}

/// D (+)= A B^T for one m64n128k16 step, A and B from shared memory (descriptors); D = A B^T
/// when `accumulate` is 0 (the scale-d predicate).
__device__ __forceinline__ void wgmma_m64n128k16(float (&d)[64], unsigned long long a_desc,
                                                 unsigned long long b_desc, int accumulate)
{
    asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %66, 0;\n\t"
                 "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 "
                 "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, %64, %65, p, 1, 1, 0, 0;\n\t}"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
                 : "l"(a_desc), "l"(b_desc), "r"(accumulate));
}

/// D (+)= A B^T for one m64n8k16 step, A and B from shared memory (descriptors); D = A B^T
/// when `accumulate` is 0 (the scale-d predicate).
__device__ __forceinline__ void wgmma_m64n8k16(float (&d)[4], unsigned long long a_desc,
                                                 unsigned long long b_desc, int accumulate)
{
    asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %6, 0;\n\t"
                 "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 "
                 "{%0, %1, %2, %3}, %4, %5, p, 1, 1, 0, 0;\n\t}"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "l"(a_desc), "l"(b_desc), "r"(accumulate));
}

extern "C" __global__ void __launch_bounds__(128)
wgmma_gemm(const __grid_constant__ TensorMap a_map, const __grid_constant__ TensorMap b_map, float* C, int n, int k)
{
    extern __shared__ unsigned char dyn_smem[];   // 2 stages + 1 KiB of alignment slack
    __shared__ alignas(8) unsigned long long full[2];
    const unsigned base = (smem_u32(dyn_smem) + 1023) & ~1023u;   // 128B swizzle: 1024-byte aligned
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    const int k_tiles = k / BK;

    if (threadIdx.x == 0) {
        mbar_init(smem_u32(&full[0]), 1);
        mbar_init(smem_u32(&full[1]), 1);
        fence_mbarrier_init();
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int s = 0; s < 2 && s < k_tiles; ++s) {
            const unsigned bar = smem_u32(&full[s]), stage = base + s * STAGE_BYTES;
            mbar_arrive_expect_tx(bar, STAGE_BYTES);
            tma_load_2d(stage, &a_map, s * BK, m0, bar);
            tma_load_2d(stage + A_BYTES, &b_map, s * BK, n0, bar);
        }
    }

    float d[BN / 2];
#pragma unroll
    for (int i = 0; i < BN / 2; ++i) d[i] = 0.0f;
    for (int kt = 0; kt < k_tiles; ++kt) {
        const int s = kt & 1;
        const unsigned stage = base + s * STAGE_BYTES;
        mbar_wait(smem_u32(&full[s]), (kt >> 1) & 1);
        wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < BK / 16; ++kk)
            wgmma_m64n128k16(d, smem_desc(stage + kk * 32, 16, 1024, 1),
                             smem_desc(stage + A_BYTES + kk * 32, 16, 1024, 1), kt > 0 || kk > 0);
        wgmma_commit();
        wgmma_wait<0>();
        __syncthreads();   // all four warps' wgmmas have finished reading stage s
        if (threadIdx.x == 0 && kt + 2 < k_tiles) {
            const unsigned bar = smem_u32(&full[s]);
            mbar_arrive_expect_tx(bar, STAGE_BYTES);
            tma_load_2d(stage, &a_map, (kt + 2) * BK, m0, bar);
            tma_load_2d(stage + A_BYTES, &b_map, (kt + 2) * BK, n0, bar);
        }
    }

    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int row = m0 + 16 * warp + lane / 4;
#pragma unroll
    for (int j = 0; j < BN / 8; ++j) {
        const int col = n0 + 8 * j + 2 * (lane % 4);
        *(float2*)&C[(size_t)row * n + col] = make_float2(d[4 * j], d[4 * j + 1]);
        *(float2*)&C[(size_t)(row + 8) * n + col] = make_float2(d[4 * j + 2], d[4 * j + 3]);
    }
}

constexpr int WS_STAGES = 4, WS_BM = 128, WS_BN = 128;
constexpr unsigned WS_A_BYTES = WS_BM * BK * 2;            // 16 KiB box of A (128 rows)
constexpr unsigned WS_STAGE_BYTES = WS_A_BYTES + WS_BN * BK * 2;
constexpr int WS_CONSUMER_WARPS = 8;

extern "C" __global__ void __launch_bounds__(384, 1)
ws_wgmma_gemm(const __grid_constant__ TensorMap a_map, const __grid_constant__ TensorMap b_map, float* C, int n, int k)
{
    extern __shared__ unsigned char dyn_smem[];   // WS_STAGES stages + 1 KiB of alignment slack
    __shared__ alignas(8) unsigned long long full[WS_STAGES];
    __shared__ alignas(8) unsigned long long empty[WS_STAGES];
    const unsigned base = (smem_u32(dyn_smem) + 1023) & ~1023u;
    const int m0 = blockIdx.y * WS_BM, n0 = blockIdx.x * WS_BN;
    const int k_tiles = k / BK;
    const int wg = threadIdx.x / 128, warp = threadIdx.x / 32, lane = threadIdx.x % 32;

    if (threadIdx.x == 0) {
        for (int s = 0; s < WS_STAGES; ++s) {
            mbar_init(smem_u32(&full[s]), 1);
            mbar_init(smem_u32(&empty[s]), WS_CONSUMER_WARPS);
        }
        fence_mbarrier_init();
    }
    __syncthreads();

    if (wg == 0) {
        asm volatile("setmaxnreg.dec.sync.aligned.u32 40;" ::: "memory");
        if (warp == 0 && elect_one()) {
            for (int kt = 0; kt < k_tiles; ++kt) {
                const int s = kt % WS_STAGES;
                const unsigned bar = smem_u32(&full[s]), stage = base + s * WS_STAGE_BYTES;
                mbar_wait(smem_u32(&empty[s]), ((kt / WS_STAGES) & 1) ^ 1);
                mbar_arrive_expect_tx(bar, WS_STAGE_BYTES);
                tma_load_2d(stage, &a_map, kt * BK, m0, bar);
                tma_load_2d(stage + WS_A_BYTES, &b_map, kt * BK, n0, bar);
            }
        }
        return;
    }

    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;" ::: "memory");
    const int c = wg - 1;   // consumer c computes rows 64c .. 64c+63 of the tile
    float d[BN / 2];
#pragma unroll
    for (int i = 0; i < BN / 2; ++i) d[i] = 0.0f;
    for (int kt = 0; kt < k_tiles; ++kt) {
        const int s = kt % WS_STAGES;
        const unsigned stage = base + s * WS_STAGE_BYTES;
        mbar_wait(smem_u32(&full[s]), (kt / WS_STAGES) & 1);
        wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < BK / 16; ++kk)
            wgmma_m64n128k16(d, smem_desc(stage + c * (64 * BK * 2) + kk * 32, 16, 1024, 1),
                             smem_desc(stage + WS_A_BYTES + kk * 32, 16, 1024, 1), kt > 0 || kk > 0);
        wgmma_commit();
        wgmma_wait<0>();
        if (lane == 0) mbar_arrive(smem_u32(&empty[s]));   // this warp is done reading stage s
    }

    const int row = m0 + 64 * c + 16 * (warp % 4) + lane / 4;
#pragma unroll
    for (int j = 0; j < BN / 8; ++j) {
        const int col = n0 + 8 * j + 2 * (lane % 4);
        *(float2*)&C[(size_t)row * n + col] = make_float2(d[4 * j], d[4 * j + 1]);
        *(float2*)&C[(size_t)(row + 8) * n + col] = make_float2(d[4 * j + 2], d[4 * j + 3]);
    }
}

/// Byte offset of element (r, k) of an R x 16 f16 K-major operand in the no-swizzle layout.
__device__ __forceinline__ unsigned interleaved_offset(unsigned r, unsigned k)
{
    return (((r / 8) * 2 + k / 8) * 8 + r % 8) * 16 + (k % 8) * 2;
}

template <int N>
__device__ __forceinline__ void wgmma_chain(const unsigned short* A, const unsigned short* B, float* C,
                                            unsigned long long* cycles, int iters)
{
    __shared__ alignas(128) unsigned short As[64 * 16];
    __shared__ alignas(128) unsigned short Bs[N * 16];
    for (int i = threadIdx.x; i < 64 * 16; i += blockDim.x)
        As[interleaved_offset(i / 16, i % 16) / 2] = A[i];
    for (int i = threadIdx.x; i < N * 16; i += blockDim.x)
        Bs[interleaved_offset(i / 16, i % 16) / 2] = B[i];
    fence_proxy_async_shared();   // generic writes -> async proxy
    __syncthreads();

    const unsigned long long a_desc = smem_desc(smem_u32(As), 128, 256, 0);
    const unsigned long long b_desc = smem_desc(smem_u32(Bs), 128, 256, 0);
    float d[N / 2];
#pragma unroll
    for (int i = 0; i < N / 2; ++i) d[i] = 0.0f;
    const long long t0 = clock64();
#pragma unroll 1
    for (int it = 0; it < iters; ++it) {
        wgmma_fence();   // the accumulators were last touched outside the async group
        if constexpr (N == 8) wgmma_m64n8k16(d, a_desc, b_desc, 1);
        else wgmma_m64n128k16(d, a_desc, b_desc, 1);
        wgmma_commit();
        wgmma_wait<0>();
    }
    const long long t1 = clock64();
    if (threadIdx.x == 0) cycles[0] = (unsigned long long)(t1 - t0);

    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int row = 16 * warp + lane / 4;
#pragma unroll
    for (int j = 0; j < N / 8; ++j) {
        const int col = 8 * j + 2 * (lane % 4);
        *(float2*)&C[row * N + col] = make_float2(d[4 * j], d[4 * j + 1]);
        *(float2*)&C[(row + 8) * N + col] = make_float2(d[4 * j + 2], d[4 * j + 3]);
    }
}

extern "C" __global__ void __launch_bounds__(128)
wgmma_lat_n8(const unsigned short* A, const unsigned short* B, float* C, unsigned long long* cycles, int iters)
{
    wgmma_chain<8>(A, B, C, cycles, iters);
}

extern "C" __global__ void __launch_bounds__(128)
wgmma_lat_n128(const unsigned short* A, const unsigned short* B, float* C, unsigned long long* cycles, int iters)
{
    wgmma_chain<128>(A, B, C, cycles, iters);
}
