// Single-precision math: fast intrinsics (__sinf/__cosf/__expf/__logf/__powf/__fdividef/__saturatef,
// -> sin/cos/ex2/lg2 .approx(.ftz)), rsqrtf/sqrtf/rcp, IEEE-rounded intrinsics (__fadd_rd, __fmul_ru,
// __fdiv_rn, __fsqrt_rz, __fmaf_rz, __frcp_rn ...), conversions with every rounding mode
// (__float2int_ru, __float2uint_rd, __float2ll_rn, __int2float_rz, __uint2float_ru ...), full-precision
// library calls (sinf with its Payne-Hanek slow path, expf, logf, powf, erff, lgammaf), classification,
// copysign/fmin/fmax/fdim, and hex float immediates (0fXXXXXXXX). Compiles for sm_75+.

extern "C" __global__ void fast_intrinsics(const float *x, float *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = x[i];
    float r = __sinf(v) + __cosf(v) + __tanf(v) + __expf(v) + __exp10f(v) + __logf(fabsf(v) + 1.0f) +
              __log2f(fabsf(v) + 2.0f) + __log10f(fabsf(v) + 3.0f) + __powf(fabsf(v), 1.7f);
    float s, c;
    __sincosf(v, &s, &c);
    r += s * c + __fdividef(v, 3.0f + c) + __saturatef(v) + rsqrtf(fabsf(v) + 1.0f) + sqrtf(fabsf(v));
    r += __frsqrt_rn(fabsf(v) + 0.5f) + exp2f(v) + 1.0f / v;
    out[i] = r;
}

extern "C" __global__ void ieee_rounding(const float *a, const float *b, float *out)
{
    int i = threadIdx.x;
    float x = a[i], y = b[i];
    float *o = out + 16 * i;
    o[0] = __fadd_rn(x, y);  o[1] = __fadd_rz(x, y);  o[2] = __fadd_ru(x, y);  o[3] = __fadd_rd(x, y);
    o[4] = __fmul_rn(x, y);  o[5] = __fmul_rz(x, y);  o[6] = __fmul_ru(x, y);  o[7] = __fmul_rd(x, y);
    o[8] = __fdiv_rn(x, y);  o[9] = __fdiv_rz(x, y);  o[10] = __fdiv_ru(x, y); o[11] = __fdiv_rd(x, y);
    o[12] = __fsqrt_rn(fabsf(x)) + __fsqrt_rz(fabsf(x)) + __fsqrt_ru(fabsf(y)) + __fsqrt_rd(fabsf(y));
    o[13] = __fmaf_rn(x, y, 1.0f) + __fmaf_rz(x, y, 1.0f) + __fmaf_ru(x, y, -1.0f) + __fmaf_rd(x, y, -1.0f);
    o[14] = __frcp_rn(x) + __frcp_rz(x) + __frcp_ru(y) + __frcp_rd(y);
    o[15] = __fsub_rn(x, y) + __fsub_ru(x, y) + x / y + sqrtf(y);
}

extern "C" __global__ void float_conversions(const float *a, int *iout, long long *lout, float *fout)
{
    int i = threadIdx.x;
    float x = a[i];
    int *o = iout + 12 * i;
    o[0] = __float2int_rn(x);  o[1] = __float2int_rz(x);  o[2] = __float2int_ru(x);  o[3] = __float2int_rd(x);
    o[4] = (int)__float2uint_rn(x); o[5] = (int)__float2uint_rz(x); o[6] = (int)__float2uint_ru(x);
    o[7] = (int)__float2uint_rd(x);
    o[8] = __float_as_int(x);
    o[9] = (int)x + (int)(unsigned)x + (int)(short)x + (int)(signed char)x;   // cvt.rzi.s32.f32 etc.
    o[10] = (int)__float2uint_rn(x * 65536.0f);
    o[11] = isnan(x) + 2 * isinf(x) + 4 * isfinite(x) + 8 * signbit(x);
    lout[2 * i] = __float2ll_rn(x) + __float2ll_rz(x) + __float2ll_ru(x) + __float2ll_rd(x);
    lout[2 * i + 1] = (long long)(__float2ull_rn(x) + __float2ull_rz(x));
    float *f = fout + 8 * i;
    f[0] = __int2float_rn(i * 16777219) + __int2float_rz(i * 16777219);
    f[1] = __int2float_ru(-i * 16777219) + __int2float_rd(-i * 16777219);
    f[2] = __uint2float_rn(0xffffff01u - i) + __uint2float_ru(0xffffff01u - i);
    f[3] = __ll2float_rn(-(long long)i << 40) + __ull2float_rz((unsigned long long)i << 50);
    f[4] = __int_as_float(0x7f800001 + i) + __uint_as_float(0x00000001u + i);    // NaN and denormal bits
    f[5] = rintf(x) + nearbyintf(x) + truncf(x) + floorf(x) + ceilf(x) + roundf(x);
    f[6] = copysignf(x, -1.0f) + fminf(x, 2.0f) + fmaxf(x, -2.0f) + fdimf(x, 1.0f) + fabsf(x);
    f[7] = __frcp_rn(x) * __fsqrt_rn(x);
}

extern "C" __global__ void precise_library(const float *a, float *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float x = a[i];
    float s, c;
    sincosf(x, &s, &c);                       // large |x| -> Payne-Hanek reduction in local memory
    float r = s + c + tanf(x) + expf(x) + logf(fabsf(x) + 1.0f) + powf(fabsf(x), 2.5f) + erff(x) + lgammaf(fabsf(x) + 1.0f);
    r += atan2f(x, 0.5f) + asinf(fminf(fabsf(x), 1.0f)) + coshf(x * 0.1f) + cbrtf(x) + hypotf(x, 3.0f) + fmodf(x, 1.5f);
    r += ldexpf(x, 3) + frexpf(x, (int *)&out[blockDim.x * gridDim.x + i]) + remainderf(x, 0.75f);
    out[i] = r;
}

// The ftz/sat/approx modifiers spelled out in inline PTX, plus special operands.
extern "C" __global__ void float_modifiers(const float *a, float *out)
{
    float x = a[threadIdx.x], r0, r1, r2, r3, r4, r5, r6, r7;
    asm("add.rn.ftz.sat.f32 %0, %1, 0f3F000000;" : "=f"(r0) : "f"(x));
    asm("mul.rz.ftz.f32 %0, %1, 0fBF800000;" : "=f"(r1) : "f"(x));
    asm("fma.rn.sat.f32 %0, %1, %1, 0f00000001;" : "=f"(r2) : "f"(x));
    asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r3) : "f"(x));
    asm("tanh.approx.f32 %0, %1;" : "=f"(r4) : "f"(x));
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r5) : "f"(x));
#if __CUDA_ARCH__ >= 800
    asm("min.NaN.f32 %0, %1, 0f7FC00000;" : "=f"(r6) : "f"(x));             // sm_80+
#else
    asm("min.ftz.f32 %0, %1, 0fFF800000;" : "=f"(r6) : "f"(x));
#endif
    asm("{ .reg .pred p; testp.finite.f32 p, %1; selp.f32 %0, 0f3F800000, 0f00000000, p; }" : "=f"(r7) : "f"(x));
    out[threadIdx.x] = r0 + r1 + r2 + r3 + r4 + r5 + r6 + r7;
}
