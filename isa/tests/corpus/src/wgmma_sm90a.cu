// Hopper warpgroup MMA and register reallocation, sm_90a only (compiled with -arch=sm_90a; the body is
// guarded by __CUDA_ARCH_FEAT_SM90_ALL so the file also builds as an empty kernel elsewhere):
//  * wgmma.fence / wgmma.mma_async / wgmma.commit_group / wgmma.wait_group N (.sync.aligned)
//  * shared-memory descriptors (64-bit: start>>4, LBO, SBO, 128B swizzle) for A and B ("SS"),
//    A from registers ("RS"), f32 and f16 accumulators, bf16/f16/tf32/e4m3/e5m2/s8/u8 inputs,
//    the scale-d predicate, imm-scale-a/b (1 / -1) and transpose immediates, .satfinite for ints;
//    accumulator vectors of 8..32 registers in one `{...}` operand
//  * setmaxnreg.inc/.dec.sync.aligned.u32 (producer/consumer warpgroups)
//  * tensormap.replace (edit a CUtensorMap in shared memory) + fence.proxy.tensormap::generic
//  * stmatrix of the accumulator, fence.proxy.async before wgmma reads generic-proxy smem writes.
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda/std/cstdint>
using cuda::std::uint64_t;

__device__ __forceinline__ unsigned smem_u32(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }

// 128B-swizzle K-major descriptor
__device__ __forceinline__ uint64_t make_desc(const void *smem, unsigned lbo_bytes, unsigned sbo_bytes)
{
    uint64_t addr = smem_u32(smem);
    uint64_t d = 0;
    d |= (addr & 0x3FFFF) >> 4;
    d |= (uint64_t)((lbo_bytes & 0x3FFFF) >> 4) << 16;
    d |= (uint64_t)((sbo_bytes & 0x3FFFF) >> 4) << 32;
    d |= 1ull << 62;                                       // swizzle mode: 128B
    return d;
}

extern "C" __global__ void __launch_bounds__(384, 1) wgmma_gemm_tile(const __nv_bfloat16 *A, const __nv_bfloat16 *B,
                                                                    const unsigned *Aregs, float *C, int *Ci, unsigned *Ch)
{
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    __shared__ __align__(1024) __nv_bfloat16 sA[64 * 64];
    __shared__ __align__(1024) __nv_bfloat16 sB[64 * 64];
    __shared__ __align__(8) unsigned long long ready;
    int wg = threadIdx.x / 128;                            // warpgroup index: 0 = producer, 1-2 = consumers
    int t = threadIdx.x % 128;
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(smem_u32(&ready)), "r"(128) : "memory");
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
    if (wg == 0) {
        asm volatile("setmaxnreg.dec.sync.aligned.u32 40;" ::: "memory");
        for (int i = t; i < 64 * 64; i += 128) { sA[i] = A[i]; sB[i] = B[i]; }
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");   // generic smem writes -> async proxy
        asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(smem_u32(&ready)) : "memory");
        return;
    }
    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;" ::: "memory");
    asm volatile("{\n\t.reg .pred P1;\n"
                 "WAIT_READY:\n\t"
                 "mbarrier.try_wait.parity.shared::cta.b64 P1, [%0], 0;\n\t"
                 "@!P1 bra WAIT_READY;\n\t}" :: "r"(smem_u32(&ready)) : "memory");
    float d[32];
    for (int i = 0; i < 32; ++i) d[i] = 0.0f;
    uint64_t desc_a = make_desc(sA, 16, 1024), desc_b = make_desc(sB, 16, 1024);
    int scale_d = 0;
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
    for (int k = 0; k < 4; ++k) {                          // K = 64 in steps of 16 (32 bytes = +2 in desc units)
    asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %34, 0;\n\t"
                 "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 "
                 "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, %32, %33, p, 1, 1, 0, 1;\n\t}"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
                 : "l"(desc_a), "l"(desc_b), "r"(scale_d));
        desc_a += 2;
        desc_b += 2;
        scale_d = 1;
    }
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    // register-A variant with its own accumulator, overlapping the first group
    float e[16];
    for (int i = 0; i < 16; ++i) e[i] = 0.0f;
    unsigned a[4] = {Aregs[threadIdx.x * 4], Aregs[threadIdx.x * 4 + 1], Aregs[threadIdx.x * 4 + 2], Aregs[threadIdx.x * 4 + 3]};
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %21, 0;\n\t"
                 "wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 "
                 "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, {%16, %17, %18, %19}, %20, p, 1, -1, 1;\n\t}"
                 : "+f"(e[0]), "+f"(e[1]), "+f"(e[2]), "+f"(e[3]), "+f"(e[4]), "+f"(e[5]), "+f"(e[6]), "+f"(e[7]), "+f"(e[8]), "+f"(e[9]), "+f"(e[10]), "+f"(e[11]), "+f"(e[12]), "+f"(e[13]), "+f"(e[14]), "+f"(e[15])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(1));
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");   // the SS group is done
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    // other input types (descriptor contents reused only to show the syntax)
    unsigned h[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    float g[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    int q[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    asm volatile("wgmma.mma_async.sync.aligned.m64n32k16.f16.f16.f16 "
                 "{%0, %1, %2, %3, %4, %5, %6, %7}, %8, %9, 1, 1, 1, 0, 0;"
                 : "+r"(h[0]), "+r"(h[1]), "+r"(h[2]), "+r"(h[3]), "+r"(h[4]), "+r"(h[5]), "+r"(h[6]), "+r"(h[7])
                 : "l"(desc_a), "l"(desc_b));
    asm volatile("wgmma.mma_async.sync.aligned.m64n32k32.f32.e4m3.e5m2 "
                 "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, %16, %17, 1, 1, 1;"
                 : "+f"(e[0]), "+f"(e[1]), "+f"(e[2]), "+f"(e[3]), "+f"(e[4]), "+f"(e[5]), "+f"(e[6]), "+f"(e[7]), "+f"(e[8]), "+f"(e[9]), "+f"(e[10]), "+f"(e[11]), "+f"(e[12]), "+f"(e[13]), "+f"(e[14]), "+f"(e[15])
                 : "l"(desc_a), "l"(desc_b));
    asm volatile("wgmma.mma_async.sync.aligned.m64n16k8.f32.tf32.tf32 "
                 "{%0, %1, %2, %3, %4, %5, %6, %7}, %8, %9, 1, -1, 1;"
                 : "+f"(g[0]), "+f"(g[1]), "+f"(g[2]), "+f"(g[3]), "+f"(g[4]), "+f"(g[5]), "+f"(g[6]), "+f"(g[7])
                 : "l"(desc_a), "l"(desc_b));
    asm volatile("wgmma.mma_async.sync.aligned.m64n16k32.s32.s8.u8.satfinite "
                 "{%0, %1, %2, %3, %4, %5, %6, %7}, %8, %9, 0;"
                 : "+r"(q[0]), "+r"(q[1]), "+r"(q[2]), "+r"(q[3]), "+r"(q[4]), "+r"(q[5]), "+r"(q[6]), "+r"(q[7])
                 : "l"(desc_a), "l"(desc_b));
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    int row = (wg - 1) * 64 + (t / 32) * 16 + (t % 32) / 4;
    for (int i = 0; i < 32; ++i) C[row * 64 + i] = d[i] + (i < 16 ? e[i] : 0.0f) + (i < 8 ? g[i] : 0.0f);
    for (int i = 0; i < 8; ++i) { Ci[threadIdx.x * 8 + i] = q[i]; Ch[threadIdx.x * 8 + i] = h[i]; }
    // accumulator fragment back to smem with stmatrix (f16 pairs)
    asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};"
                 :: "r"(smem_u32(&sA[(t % 16) * 64 + (wg - 1) * 16])), "r"(h[0]), "r"(h[1]), "r"(h[2]), "r"(h[3]) : "memory");
#endif
}

// Patch the global address of a tensor map copied into shared memory, then publish it to the TMA unit.
extern "C" __global__ void tensormap_patch(const uint64_t *tmap_src, uint64_t *tmap_dst, const float *new_base)
{
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    __shared__ __align__(128) uint64_t tm[16];
    if (threadIdx.x < 16) tm[threadIdx.x] = tmap_src[threadIdx.x];
    __syncwarp();
    if (threadIdx.x == 0) {
        asm volatile("tensormap.replace.tile.global_address.shared::cta.b1024.b64 [%0], %1;"
                     :: "r"(smem_u32(tm)), "l"(new_base) : "memory");
        asm volatile("tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [%0], 1, %1;"
                     :: "r"(smem_u32(tm)), "r"(4096) : "memory");
    }
    __syncwarp();
    if (threadIdx.x < 16) tmap_dst[threadIdx.x] = tm[threadIdx.x];
    __syncwarp();
    if (threadIdx.x == 0) {
        asm volatile("fence.proxy.tensormap::generic.release.gpu;" ::: "memory");
        asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(tmap_dst) : "memory");
    }
#endif
}
