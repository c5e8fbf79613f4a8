// Half and bfloat16 arithmetic from cuda_fp16.h / cuda_bf16.h: scalar and packed (x2) add, mul, fma,
// fma with relu and saturation, min/max (with NaN propagation), comparisons, hexp2/h2sqrt/hrcp math,
// conversions f32<->f16/bf16 in every rounding mode, int<->half, bit reinterpretation, and fp8
// (cuda_fp8.h) packing. The headers implement most of this with inline PTX blocks of the form
// `{ .reg .b16 lo, hi; mov.b32 {lo, hi}, %r; ... }`. Below sm_80, bf16 arithmetic is emulated in f32 and bf16 fma is left out.
// Compiles for sm_75+.
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>

extern "C" __global__ void half_math(const __half2 *a, const __half2 *b, const __half *s, __half2 *out, __half *hout,
                                     float *fout, int *iout)
{
    int t = threadIdx.x;
    __half2 x = a[t], y = b[t];
    __half2 r = __hadd2(x, y);
    r = __hfma2(r, y, x);
    r = __hmul2(r, __hsub2(x, y));
    r = __hfma2_relu(r, x, y);
    r = __hadd2_sat(r, x);
    r = __hmax2(r, __hmin2(x, y));
    r = __hmax2_nan(r, x);
    r = h2exp2(r);
    r = h2sqrt(__habs2(r));
    r = __h2div(r, __hadd2(y, __float2half2_rn(1.0f)));
    r = __hneg2(r);
    __half2 cmp = __hlt2(x, y);
    bool both = __hbgt2(x, y);
    out[t] = __hadd2(r, cmp);
    __half h = s[t];
    __half q = __hfma(h, __float2half(2.0f), __hmul(h, h));
    q = __hdiv(q, __hadd(h, __ushort_as_half((unsigned short)0x3c00)));
    q = hrcp(q);
    q = hexp(q);
    hout[t] = __hmax(q, __low2half(x));
    fout[4 * t + 0] = __half2float(q);
    fout[4 * t + 1] = __low2float(r) + __high2float(r);
    fout[4 * t + 2] = __half2float(__float2half_rz(fout[4 * t + 1] * 3.0f));
    fout[4 * t + 3] = __half2float(__float2half_rd(1.0f / 3.0f)) + __half2float(__float2half_ru(1.0f / 3.0f));
    iout[3 * t + 0] = __half2int_rn(h) + __half2int_rz(h) + __half2int_rd(h) + __half2int_ru(h);
    iout[3 * t + 1] = (int)__half_as_ushort(__int2half_rn(t)) + (both ? 1 : 0) + __hisnan(h) + __hisinf(h);
    iout[3 * t + 2] = (int)__half2uint_rn(h) + (int)__half2short_rz(h) + (int)__half2ll_rn(h);
}

extern "C" __global__ void bf16_math(const __nv_bfloat162 *a, const __nv_bfloat162 *b, __nv_bfloat162 *out,
                                     float *fout)
{
    int t = threadIdx.x;
    __nv_bfloat162 x = a[t], y = b[t];
    __nv_bfloat162 r = __hadd2(x, y);
    r = __hmul2(r, x);
    r = __hmax2(r, __hmin2(x, y));
    __nv_bfloat16 h = __low2bfloat16(x);
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
    // fma.rn(.relu).bf16x2 and ex2.approx.ftz.bf16x2 exist from sm_80 / sm_90 on
    r = __hfma2(r, y, x);
    r = __hfma2_relu(r, x, y);
    r = h2exp2(r);
    __nv_bfloat16 g = __hfma(h, __float2bfloat16(1.5f), __high2bfloat16(y));
#else
    __nv_bfloat16 g = __hadd(__hmul(h, __float2bfloat16(1.5f)), __high2bfloat16(y));
#endif
    out[t] = __hsub2(r, y);
    fout[4 * t + 0] = __bfloat162float(g);
    fout[4 * t + 1] = __bfloat162float(__float2bfloat16_rz(fout[t] + 1.0f));
    fout[4 * t + 2] = __bfloat162float(__float2bfloat16_rd((float)t / 7.0f)) + __bfloat162float(__float2bfloat16_ru((float)t / 7.0f));
    __nv_bfloat162 p = __floats2bfloat162_rn(fout[t], -fout[t]);
    fout[4 * t + 3] = __low2float(p) * __high2float(p) + __bfloat162float(__double2bfloat16((double)t * 0.1));
}

extern "C" __global__ void conversions_f16(const float *f, const double *d, unsigned *packed, float *out)
{
    int t = threadIdx.x;
    __half2 h2 = __floats2half2_rn(f[2 * t], f[2 * t + 1]);
    __half hd = __double2half(d[t]);
    __nv_bfloat162 b2 = __float22bfloat162_rn(make_float2(f[2 * t], f[2 * t + 1]));
    __nv_fp8x2_storage_t e4 = __nv_cvt_float2_to_fp8x2(make_float2(f[2 * t], f[2 * t + 1]), __NV_SATFINITE, __NV_E4M3);
    __nv_fp8_storage_t e5 = __nv_cvt_float_to_fp8(f[t], __NV_SATFINITE, __NV_E5M2);
    __half_raw back = __nv_cvt_fp8_to_halfraw(e5, __NV_E5M2);
    packed[4 * t + 0] = *reinterpret_cast<unsigned *>(&h2);
    packed[4 * t + 1] = *reinterpret_cast<unsigned *>(&b2);
    packed[4 * t + 2] = (unsigned)e4 | ((unsigned)e5 << 16);
    packed[4 * t + 3] = back.x;
    float2 f2 = __half22float2(h2);
    out[t] = f2.x + f2.y + __half2float(hd) + __bfloat162float(__high2bfloat16(b2));
}
