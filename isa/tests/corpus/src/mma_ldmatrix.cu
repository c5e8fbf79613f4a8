// Warp-level tensor-core instructions in inline PTX: ldmatrix (x1/x2/x4, .trans), movmatrix,
// mma.sync m16n8k8 f16 and m8n8k16 s8 (sm_75+); m16n8k16 f16/bf16, m16n8k8 tf32, m16n8k32 s8 with
// .satfinite, m8n8k4 f64, sparse mma.sp with metadata (sm_80+); stmatrix and e4m3 fp8 mma (sm_90 / sm_89+).
// Register vectors of 2-4 elements {%r1, %r2, %r3, %r4}. Compiles for sm_75+ (guarded parts).
#include <cuda_fp16.h>

__device__ __forceinline__ unsigned smem_u32(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }

extern "C" __global__ void ldmatrix_mma_f16(const half *A, const half *B, float *C)
{
    __shared__ __align__(16) half sA[16 * 16];
    __shared__ __align__(16) half sB[16 * 8];
    int lane = threadIdx.x;
    for (int i = lane; i < 256; i += 32) sA[i] = A[i];
    for (int i = lane; i < 128; i += 32) sB[i] = B[i];
    __syncwarp();
    unsigned a0, a1, a2, a3, b0, b1, t0;
    // 16x16 A tile: x4; each lane supplies one row address
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(a0), "=r"(a1), "=r"(a2), "=r"(a3) : "r"(smem_u32(&sA[(lane % 16) * 16 + (lane / 16) * 8])));
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];"
                 : "=r"(b0), "=r"(b1) : "r"(smem_u32(&sB[(lane % 16) * 8])));
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(t0) : "r"(smem_u32(&sB[(lane % 8) * 8])));
    float c0 = 0.f, c1 = 0.f, c2 = 0.f, c3 = 0.f;
    // two k=8 steps (sm_75 shape)
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5}, {%6}, {%0, %1, %2, %3};"
                 : "+f"(c0), "+f"(c1), "+f"(c2), "+f"(c3) : "r"(a0), "r"(a1), "r"(b0));
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5}, {%6}, {%0, %1, %2, %3};"
                 : "+f"(c0), "+f"(c1), "+f"(c2), "+f"(c3) : "r"(a2), "r"(a3), "r"(b1));
    unsigned m;
    asm volatile("movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;" : "=r"(m) : "r"(t0));
    unsigned h0 = 0, h1 = 0;
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16 {%0, %1}, {%2, %3}, {%4}, {%0, %1};"
                 : "+r"(h0), "+r"(h1) : "r"(a0), "r"(a1), "r"(m));
#if __CUDA_ARCH__ >= 800
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                 : "+f"(c0), "+f"(c1), "+f"(c2), "+f"(c3) : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
#endif
#if __CUDA_ARCH__ >= 900
    // write the f16 accumulator back with stmatrix (sm_90)
    __shared__ __align__(16) half sC[16 * 8];
    asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1, %2};"
                 :: "r"(smem_u32(&sC[(lane % 16) * 8])), "r"(h0), "r"(h1) : "memory");
    asm volatile("stmatrix.sync.aligned.m8n8.x1.trans.shared.b16 [%0], {%1};"
                 :: "r"(smem_u32(&sC[(lane % 8) * 8])), "r"(m) : "memory");
    __syncwarp();
    h0 ^= *reinterpret_cast<unsigned *>(&sC[lane * 2]);
#endif
    C[lane * 4 + 0] = c0; C[lane * 4 + 1] = c1; C[lane * 4 + 2] = c2; C[lane * 4 + 3] = c3 + (float)(h0 ^ h1);
}

extern "C" __global__ void mma_int8(const int *A, const int *B, int *C)
{
    int lane = threadIdx.x;
    int d0 = 0, d1 = 0;
    asm volatile("mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32 {%0, %1}, {%2}, {%3}, {%0, %1};"
                 : "+r"(d0), "+r"(d1) : "r"(A[lane]), "r"(B[lane]));
    asm volatile("mma.sync.aligned.m8n8k16.row.col.satfinite.s32.u8.s8.s32 {%0, %1}, {%2}, {%3}, {%0, %1};"
                 : "+r"(d0), "+r"(d1) : "r"(A[lane + 32]), "r"(B[lane + 32]));
#if __CUDA_ARCH__ >= 800
    int e0 = 0, e1 = 0, e2 = 0, e3 = 0;
    asm volatile("mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                 : "+r"(e0), "+r"(e1), "+r"(e2), "+r"(e3)
                 : "r"(A[lane]), "r"(A[lane + 32]), "r"(A[lane + 64]), "r"(A[lane + 96]), "r"(B[lane]), "r"(B[lane + 32]));
    d0 += e0 + e2;
    d1 += e1 + e3;
#endif
    C[lane * 2] = d0;
    C[lane * 2 + 1] = d1;
}

extern "C" __global__ void mma_ampere_types(const unsigned *A, const unsigned *B, const double *Ad, const double *Bd,
                                            const unsigned *meta, float *C, double *Cd)
{
#if __CUDA_ARCH__ >= 800
    int lane = threadIdx.x;
    float c[4] = {0.f, 0.f, 0.f, 0.f};
    // bf16 m16n8k16
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(A[lane]), "r"(A[lane + 32]), "r"(A[lane + 64]), "r"(A[lane + 96]), "r"(B[lane]), "r"(B[lane + 32]));
    // tf32 m16n8k8 (operands converted with cvt.rna.tf32.f32)
    unsigned ta[4], tb[2];
    for (int i = 0; i < 4; ++i) asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(ta[i]) : "f"(__uint_as_float(A[lane + 32 * i])));
    for (int i = 0; i < 2; ++i) asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(tb[i]) : "f"(__uint_as_float(B[lane + 32 * i])));
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(ta[0]), "r"(ta[1]), "r"(ta[2]), "r"(ta[3]), "r"(tb[0]), "r"(tb[1]));
    // 2:4 structured sparse f16, metadata register and sparsity selector immediate
    asm volatile("mma.sp.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9, %10, %11}, {%0, %1, %2, %3}, %12, 0x0;"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(A[lane]), "r"(A[lane + 32]), "r"(A[lane + 64]), "r"(A[lane + 96]),
                   "r"(B[lane]), "r"(B[lane + 32]), "r"(B[lane + 64]), "r"(B[lane + 96]), "r"(meta[lane]));
    double d0 = 0.0, d1 = 0.0;
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};"
                 : "+d"(d0), "+d"(d1) : "d"(Ad[lane]), "d"(Bd[lane]));
#if __CUDA_ARCH__ >= 890
    // fp8 (e4m3 x e5m2) m16n8k32, sm_89+
    asm volatile("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(A[lane]), "r"(A[lane + 32]), "r"(A[lane + 64]), "r"(A[lane + 96]), "r"(B[lane]), "r"(B[lane + 32]));
#endif
    for (int i = 0; i < 4; ++i) C[lane * 4 + i] = c[i];
    Cd[lane * 2] = d0;
    Cd[lane * 2 + 1] = d1;
#endif
}
