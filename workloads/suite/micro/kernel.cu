// Published-figure microbenchmarks (group:micro), built the way the dissection papers built them
// (Jia et al. 2018/2019, Mei & Chu 2017, Luo et al. 2024/2025): the timed region holds only the
// instructions being measured (absolute pointers, immediate offsets, unrolled by 32), one warp
// (one thread for the chases) measures latency, many warps measure bandwidth. Every kernel writes
// a checked value and clock64 deltas (timing outputs); the manifests' [figure] tables say how the
// deltas become the papers' units. Sizes come from the target's caches through the manifests'
// ${...} expressions (workloads/README.md, "Target-sized manifests").
//
// chase_ca / chase_cg (one block): `chain` holds a `chase` init (slot k's first u64 = the element
// index of the next slot). The block rewrites every slot as the absolute address of the next one,
// then streams `flush_lines` 128-byte lines of `flush` through L2 (.cg) to evict the chain when the
// chase is to reach DRAM; thread 0 follows p = *p `warmup` times, then `iters` timed times, with
// ld.global.ca (L1) or ld.global.cg (L2, DRAM). result = [final element index, cycles].
//
// smem_ways (one block): lane l's word is w = (l / ways) + (l % ways) * row_words (row_words = one
// row of banks), which holds its own shared address; each lane loads a = *a, a ways-way bank
// conflict (ways = 1: none). out[t] = the final address's byte offset, cycles[warp] = timed cycles.
//
// Chains (one warp): run_chains with one chain unrolled by 32: fma.rn.f32, mad.lo.u32, fma.rn.f64,
// fma.rn.f16x2, rsqrt/sin.approx.ftz.f32, ex2.approx.ftz.f32 of -v (2^-v converges; in SASS the
// negation is MUFU.EX2's operand modifier, in PTX a neg.f32 the step also counts), cvt f32 -> f16 -> f32, shfl.sync.idx from lane + a (the
// lane is loop-invariant, so it is computed before the timed loop).
//
// smem_bw_{4,8,16} / l1_bw (one block per SM): every warp loads 32 consecutive T per instruction,
// 16 instructions at immediate offsets per iteration (conflict-free), every word XORed into the
// thread's sum with lop3 (one ALU op per 4- or 8-byte load, two per 16-byte load: a word left
// unused would let ptxas narrow the load);
// l1_bw reads a 16 KiB global region with ld.global.ca after one warming pass. l2_bw: each block
// reads its own slice of `in` (.cg), a warming pass then `iters` timed passes. cycles[block] =
// block-wide timed cycles (barrier to barrier), out[t] = the thread's XOR.
//
// dram_copy: out = in, 16-byte vectors, grid-stride.

#include "../include/chains.cuh"

constexpr int UNROLL = 32;

template <bool L1>
__device__ __forceinline__ const unsigned long long* next(const unsigned long long* p)
{
    return (const unsigned long long*)(L1 ? __ldca(p) : __ldcg(p));
}

template <bool L1>
__device__ void chase(unsigned long long* chain, const unsigned* flush, unsigned long long* result, int stride_words,
                      int slots, int flush_lines, int warmup, int iters)
{
    for (int k = threadIdx.x; k < slots; k += blockDim.x) {
        unsigned long long* s = chain + (unsigned long long)k * stride_words;
        *s = (unsigned long long)(chain + *s);
    }
    unsigned x = 0;
    for (int k = threadIdx.x; k < flush_lines; k += blockDim.x) x ^= __ldcg(flush + (unsigned long long)k * 32);
    __syncthreads();
    if (threadIdx.x != 0) return;
    const unsigned long long* p = chain;
    for (int k = 0; k < warmup; ++k) p = next<L1>(p);
    long long t0 = clock64();
    for (int k = 0; k < iters; k += UNROLL) {
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) p = next<L1>(p);
    }
    long long t1 = clock64();
    result[0] = (unsigned long long)(p - chain) + x;
    result[1] = (unsigned long long)(t1 - t0);
}

extern "C" __global__ void chase_ca(unsigned long long* chain, const unsigned* flush, unsigned long long* result,
                                    int stride_words, int slots, int flush_lines, int warmup, int iters)
{
    chase<true>(chain, flush, result, stride_words, slots, flush_lines, warmup, iters);
}

extern "C" __global__ void chase_cg(unsigned long long* chain, const unsigned* flush, unsigned long long* result,
                                    int stride_words, int slots, int flush_lines, int warmup, int iters)
{
    chase<false>(chain, flush, result, stride_words, slots, flush_lines, warmup, iters);
}

__device__ __forceinline__ unsigned lds(unsigned a)
{
    unsigned v;
    asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(a));
    return v;
}

extern "C" __global__ void smem_ways(unsigned* out, unsigned long long* cycles, int ways, int row_words, int iters)
{
    __shared__ unsigned s[1024];
    unsigned lane = threadIdx.x & 31;
    unsigned w = lane / ways + lane % ways * row_words;
    unsigned base = (unsigned)__cvta_generic_to_shared(s);
    s[w] = base + w * 4;
    __syncthreads();
    unsigned a = base + w * 4;
    long long t0 = clock64();
    for (int k = 0; k < iters; k += UNROLL) {
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) a = lds(a);
    }
    long long t1 = clock64();
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    out[t] = a - base;
    if (lane == 0) cycles[t / 32] = (unsigned long long)(t1 - t0);
}

#define CHAIN_KERNEL(NAME, T, STEP)                                                                  \
    extern "C" __global__ void NAME(const T* x, T* out, unsigned long long* cycles, T a, T b, int iters) \
    {                                                                                                \
        run_chains<1, UNROLL>(x, out, cycles, iters, [](T x0, int) { return x0; }, [=](T v) { STEP; }); \
    }

CHAIN_KERNEL(ffma_chain, float, return fmaf(v, a, b))
CHAIN_KERNEL(imad_chain, unsigned, return v * a + b)
CHAIN_KERNEL(dfma_chain, double, return fma(v, a, b))
CHAIN_KERNEL(hfma2_chain, unsigned, unsigned r; asm("fma.rn.f16x2 %0, %1, %2, %3;" : "=r"(r) : "r"(v), "r"(a), "r"(b)); return r)
CHAIN_KERNEL(rsqrt_chain, float, float r; asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(v)); return r)
CHAIN_KERNEL(sin_chain, float, float r; asm("sin.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(v)); return r)
CHAIN_KERNEL(ex2_chain, float, float r; asm("neg.f32 %0, %1;\n\tex2.approx.ftz.f32 %0, %0;" : "=f"(r) : "f"(v)); return r)
CHAIN_KERNEL(cvt_chain, float, unsigned short h; float r; asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(v));
             asm("cvt.f32.f16 %0, %1;" : "=f"(r) : "h"(h)); return r)
CHAIN_KERNEL(shfl_chain, unsigned, return __shfl_sync(0xffffffffu, v, (threadIdx.x + a) & 31))

// a ^ b ^ c in one lop3 (what ptxas makes of two XORs), so a wide load costs one or two ALU ops.
__device__ __forceinline__ unsigned xor3(unsigned a, unsigned b, unsigned c)
{
    unsigned r;
    asm("lop3.b32 %0, %1, %2, %3, 0x96;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
    return r;
}

// One conflict-free shared load of W bytes per lane at byte offset OFF from `a`, XORed into acc.
template <int W, int OFF>
__device__ __forceinline__ void smem_load(unsigned a, unsigned& acc)
{
    if (W == 4) {
        unsigned v;
        asm volatile("ld.shared.u32 %0, [%1+%2];" : "=r"(v) : "r"(a), "n"(OFF));
        acc ^= v;
    } else if (W == 8) {
        unsigned v0, v1;
        asm volatile("ld.shared.v2.u32 {%0, %1}, [%2+%3];" : "=r"(v0), "=r"(v1) : "r"(a), "n"(OFF));
        acc = xor3(acc, v0, v1);
    } else {
        unsigned v0, v1, v2, v3;
        asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4+%5];" : "=r"(v0), "=r"(v1), "=r"(v2), "=r"(v3) : "r"(a), "n"(OFF));
        acc = xor3(acc, xor3(v0, v1, v2), v3);
    }
}

template <int W, int U>
__device__ __forceinline__ void smem_loads(unsigned a, unsigned& acc)
{
    if constexpr (U > 0) {
        smem_load<W, (U - 1) * 32 * W>(a, acc);
        smem_loads<W, U - 1>(a, acc);
    }
}

constexpr int BW_LOADS = 16;

template <int W>
__device__ void smem_bw(unsigned* out, unsigned long long* cycles, int iters)
{
    __shared__ __align__(16) unsigned s[32 * BW_LOADS * 4];
    for (int k = threadIdx.x; k < 32 * BW_LOADS * 4; k += blockDim.x) s[k] = k * 2654435761u;
    unsigned a = (unsigned)__cvta_generic_to_shared(s) + (threadIdx.x & 31) * W;
    unsigned acc = 0;
    __syncthreads();
    long long t0 = clock64();
    for (int k = 0; k < iters; ++k) smem_loads<W, BW_LOADS>(a, acc);
    __syncthreads();
    long long t1 = clock64();
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
    if (threadIdx.x == 0) cycles[blockIdx.x] = (unsigned long long)(t1 - t0);
}

extern "C" __global__ void smem_bw_4(unsigned* out, unsigned long long* cycles, int iters) { smem_bw<4>(out, cycles, iters); }
extern "C" __global__ void smem_bw_8(unsigned* out, unsigned long long* cycles, int iters) { smem_bw<8>(out, cycles, iters); }
extern "C" __global__ void smem_bw_16(unsigned* out, unsigned long long* cycles, int iters) { smem_bw<16>(out, cycles, iters); }

// 16 bytes per lane from p + OFF (u32 elements) through ld.global.ca or .cg, XORed into acc.
template <bool L1, int OFF>
__device__ __forceinline__ void global_load(const unsigned* p, unsigned& acc)
{
    unsigned v0, v1, v2, v3;
    if (L1)
        asm volatile("ld.global.ca.v4.u32 {%0, %1, %2, %3}, [%4+%5];" : "=r"(v0), "=r"(v1), "=r"(v2), "=r"(v3) : "l"(p), "n"(OFF * 4));
    else
        asm volatile("ld.global.cg.v4.u32 {%0, %1, %2, %3}, [%4+%5];" : "=r"(v0), "=r"(v1), "=r"(v2), "=r"(v3) : "l"(p), "n"(OFF * 4));
    acc = xor3(acc, xor3(v0, v1, v2), v3);
}

template <bool L1, int U>
__device__ __forceinline__ void global_loads(const unsigned* p, unsigned& acc)
{
    if constexpr (U > 0) {
        global_load<L1, (U - 1) * 32 * 4>(p, acc);
        global_loads<L1, U - 1>(p, acc);
    }
}

// l1_bw: every block reads the same 16 KiB (each warp all of it, BW_LOADS loads of 512 B per
// pass, two passes per iteration); one warming pass first.
extern "C" __global__ void l1_bw(const unsigned* in, unsigned* out, unsigned long long* cycles, int iters)
{
    const unsigned* p = in + (threadIdx.x & 31) * 4;
    unsigned acc = 0;
    global_loads<true, BW_LOADS>(p, acc);
    global_loads<true, BW_LOADS>(p + 32 * 4 * BW_LOADS, acc);
    __syncthreads();
    long long t0 = clock64();
    for (int k = 0; k < iters; ++k) {
        global_loads<true, BW_LOADS>(p, acc);
        global_loads<true, BW_LOADS>(p + 32 * 4 * BW_LOADS, acc);
    }
    __syncthreads();
    long long t1 = clock64();
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
    if (threadIdx.x == 0) cycles[blockIdx.x] = (unsigned long long)(t1 - t0);
}

// l2_bw: block b reads `chunk` u32 from in + b * chunk, each warp a contiguous 8 KiB per pass
// step (BW_LOADS loads of 512 B), through ld.global.cg; a warming pass, then `iters` passes.
extern "C" __global__ void l2_bw(const unsigned* in, unsigned* out, unsigned long long* cycles, int chunk, int iters)
{
    const unsigned* base = in + (unsigned long long)blockIdx.x * chunk + (threadIdx.x & 31) * 4;
    const int warps = blockDim.x / 32, step = 32 * 4 * BW_LOADS;
    unsigned acc = 0;
    for (int o = (threadIdx.x / 32) * step; o < chunk; o += warps * step) global_loads<false, BW_LOADS>(base + o, acc);
    __syncthreads();
    long long t0 = clock64();
    for (int k = 0; k < iters; ++k)
        for (int o = (threadIdx.x / 32) * step; o < chunk; o += warps * step) global_loads<false, BW_LOADS>(base + o, acc);
    __syncthreads();
    long long t1 = clock64();
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
    if (threadIdx.x == 0) cycles[blockIdx.x] = (unsigned long long)(t1 - t0);
}

struct __align__(16) U4 { unsigned x, y, z, w; };

extern "C" __global__ void dram_copy(const U4* in, U4* out, unsigned long long n)
{
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n; i += (unsigned long long)gridDim.x * blockDim.x)
        out[i] = in[i];
}
