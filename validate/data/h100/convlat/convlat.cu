// Dependent-chain latencies of the conversion and division sequences ptxas emits (sm_90), one
// warp, clock64 around ITERS steps (2 warm-up launches, then 3 timed; the minimum is printed):
//   i2f_f2i   x = (int)(float)x  with cvt.rn.f32.s32 + cvt.rzi.s32.f32 (I2F + F2I per step)
//   i2f_rp    x = bits(I2F.RP(x)) >> 8: the rounding mode the division sequence uses, + a shift
//   f2i_ftz   x = F2I.FTZ.U32.TRUNC(float(x)) as the division's reciprocal step (+ I2F.U32)
//   rcp       f = rcp.approx.ftz(f) (MUFU.RCP)
//   udiv      x = x / d + 1 with d unknown at compile time (ptxas's whole u32 division)
//   sdiv      x = x / d + 1, signed (the sequence with IABS and sign fix-ups)
//   urem      x = x % d + k
// Output: kernel,cycles_per_step (CSV), and the SASS to check the chains is the cubin's.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); return 1; } } while (0)
constexpr int ITERS = 4096;

extern "C" __global__ void chain(int kind, unsigned seed, unsigned d, unsigned* out, long long* cyc) {
    unsigned x = seed + threadIdx.x;
    float f = 1.5f + threadIdx.x;
    long long t0 = clock64();
    switch (kind) {
    case 0:
        for (int i = 0; i < ITERS; ++i) { float g; asm volatile("cvt.rn.f32.s32 %0, %1;" : "=f"(g) : "r"(x)); asm volatile("cvt.rzi.s32.f32 %0, %1;" : "=r"(x) : "f"(g)); }
        break;
    case 1:
        for (int i = 0; i < ITERS; ++i) { float g; asm volatile("cvt.rp.f32.u32 %0, %1;" : "=f"(g) : "r"(x)); x = __float_as_uint(g) >> 8; }
        break;
    case 2:
        for (int i = 0; i < ITERS; ++i) { float g; asm volatile("cvt.rn.f32.u32 %0, %1;" : "=f"(g) : "r"(x)); asm volatile("cvt.rzi.ftz.u32.f32 %0, %1;" : "=r"(x) : "f"(g)); }
        break;
    case 3:
        for (int i = 0; i < ITERS; ++i) asm volatile("rcp.approx.ftz.f32 %0, %0;" : "+f"(f));
        x = __float_as_uint(f);
        break;
    case 4:
        for (int i = 0; i < ITERS; ++i) x = x / d + 1;
        break;
    case 5: {
        int y = (int)x;
        for (int i = 0; i < ITERS; ++i) y = y / (int)d + 1;
        x = (unsigned)y;
        break;
    }
    case 6:
        for (int i = 0; i < ITERS; ++i) x = x % d + 12345u;
        break;
    }
    long long t1 = clock64();
    out[threadIdx.x] = x;
    if (threadIdx.x == 0) cyc[0] = t1 - t0;
}

int main() {
    const char* names[] = {"i2f_f2i", "i2f_rp", "f2i_ftz", "rcp", "udiv", "sdiv", "urem"};
    unsigned* out; long long* cyc;
    CK(cudaMalloc(&out, 32 * 4)); CK(cudaMalloc(&cyc, 8));
    printf("kernel,cycles_per_step,min_cycles,iters\n");
    for (int k = 0; k < 7; ++k) {
        long long best = -1;
        for (int r = 0; r < 5; ++r) {
            chain<<<1, 32>>>(k, 1000003u, 7u, out, cyc);
            CK(cudaDeviceSynchronize());
            long long c; CK(cudaMemcpy(&c, cyc, 8, cudaMemcpyDeviceToHost));
            if (r >= 2 && (best < 0 || c < best)) best = c;
        }
        printf("%s,%.2f,%lld,%d\n", names[k], (double)best / ITERS, best, ITERS);
    }
    return 0;
}
