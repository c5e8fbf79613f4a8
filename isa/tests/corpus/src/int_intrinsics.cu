// Integer intrinsics: popc/clz/ffs/brev (32 and 64-bit), byte_perm (prmt), funnel shifts (shf.l/r .wrap/.clamp),
// mul24/umul24, mulhi/umulhi/mul64hi, sad/usad, dp4a/dp2a, hadd/rhadd, SIMD video ops (__vadd4,
// __vabsdiffu4, __vcmpgtu2 ...), bit-field extract/insert (bfe/bfi via inline PTX), carry chains from
// 128-bit arithmetic (add.cc / addc.cc / mad.hi.cc), integer division/remainder (div/rem s32/u32/s64/u64),
// saturating adds, abs/min/max, and DPX helpers (__vimax3_s32 etc., native on sm_90, emulated before).
// Compiles for sm_75+.
// corpus-nvrtc-flags: --device-int128

extern "C" __global__ void bit_ops(const unsigned *u, const unsigned long long *u64, int *out)
{
    int t = threadIdx.x;
    unsigned x = u[t], y = u[t + 1];
    unsigned long long X = u64[t];
    int *o = out + 16 * t;
    o[0] = __popc(x) + __popcll(X);
    o[1] = __clz(x) + __clzll(X);
    o[2] = __ffs(x) + __ffsll(X);
    o[3] = (int)__brev(x) ^ (int)(__brevll(X) >> 7);
    o[4] = (int)__byte_perm(x, y, 0x3210 + (t & 0x7777));
    o[5] = (int)__funnelshift_l(x, y, t) ^ (int)__funnelshift_r(x, y, t);
    o[6] = (int)__funnelshift_lc(x, y, t) ^ (int)__funnelshift_rc(x, y, t + 40);
    o[7] = __mul24((int)x, (int)y) + (int)__umul24(x, y);
    o[8] = __mulhi((int)x, (int)y) + (int)__umulhi(x, y);
    o[9] = (int)(__umul64hi(X, X + 1) ^ (unsigned long long)__mul64hi((long long)X, -7ll));
    o[10] = (int)__sad((int)x, (int)y, 5u) + (int)__usad(x, y, 9u);
    o[11] = __dp4a((int)x, (int)y, 7) + (int)__dp4a(x, y, 7u) + __dp2a_lo((int)x, (int)y, 1) + (int)__dp2a_hi(x, y, 2u);
    o[12] = __hadd((int)x, (int)y) + __rhadd((int)x, (int)y) + (int)__uhadd(x, y) + (int)__urhadd(x, y);
    o[13] = (int)(__vadd4(x, y) ^ __vabsdiffu4(x, y) ^ __vcmpgtu2(x, y) ^ __vsub2(x, y) ^ __vmaxs4(x, y) ^ __vavgu4(x, y));
    o[14] = abs((int)x) + min((int)x, (int)y) + (int)max(x, y) + (int)(llabs((long long)X) & 0xff) + (int)umin(x, 3u);
    o[15] = __vimax3_s32((int)x, (int)y, t) + __vimin3_u32(x, y, 77u) + __viaddmax_s32((int)x, (int)y, 0) +
            __vibmax_s32((int)x, (int)y, nullptr) + (int)__vimax_s16x2_relu(x, y);
}

extern "C" __global__ void bitfield_inline(const unsigned *u, unsigned *out)
{
    unsigned x = u[threadIdx.x], e, i, s;
    unsigned long long e64;
    int es;
    asm("bfe.u32 %0, %1, %2, %3;" : "=r"(e) : "r"(x), "r"(4), "r"(12));
    asm("bfe.s32 %0, %1, 8, 5;" : "=r"(es) : "r"(x));
    asm("bfe.u64 %0, %1, 3, 40;" : "=l"(e64) : "l"((unsigned long long)x << 20));
    asm("bfi.b32 %0, %1, %2, 16, 8;" : "=r"(i) : "r"(e), "r"(x));
    asm("bfind.u32 %0, %1;" : "=r"(s) : "r"(x));
    unsigned sh;
    asm("bfind.shiftamt.s32 %0, %1;" : "=r"(sh) : "r"(es));
    unsigned sz;
    asm("szext.wrap.s32 %0, %1, %2;" : "=r"(sz) : "r"(x), "r"(7u));     // sm_70+
    unsigned bm;
    asm("bmsk.clamp.b32 %0, %1, %2;" : "=r"(bm) : "r"(3u), "r"(9u));    // sm_70+
    unsigned pr;
    asm("prmt.b32.f4e %0, %1, %2, %3;" : "=r"(pr) : "r"(x), "r"(e), "r"(threadIdx.x));
    unsigned *o = out + 8 * threadIdx.x;
    o[0] = e; o[1] = (unsigned)es; o[2] = (unsigned)e64; o[3] = i; o[4] = s ^ sh; o[5] = sz; o[6] = bm; o[7] = pr;
}

extern "C" __global__ void wide_arith(const unsigned long long *a, const unsigned long long *b,
                                      unsigned long long *out)
{
    int t = threadIdx.x;
    unsigned __int128 x = ((unsigned __int128)a[2 * t] << 64) | a[2 * t + 1];
    unsigned __int128 y = ((unsigned __int128)b[2 * t] << 64) | b[2 * t + 1];
    unsigned __int128 s = x + y;               // add.cc.u64 / addc.u64
    unsigned __int128 d = x - y;               // sub.cc / subc
    unsigned __int128 p = x * y;               // mul.lo / mul.hi / mad chains
    __int128 q = (__int128)x >> 3;
    out[8 * t + 0] = (unsigned long long)s;
    out[8 * t + 1] = (unsigned long long)(s >> 64);
    out[8 * t + 2] = (unsigned long long)d ^ (unsigned long long)(d >> 64);
    out[8 * t + 3] = (unsigned long long)p;
    out[8 * t + 4] = (unsigned long long)(p >> 64);
    out[8 * t + 5] = (unsigned long long)q;
    // explicit carry chain in inline PTX, 96-bit add
    unsigned r0, r1, r2;
    asm("add.cc.u32 %0, %3, %6;\n\t"
        "addc.cc.u32 %1, %4, %7;\n\t"
        "addc.u32 %2, %5, %8;"
        : "=r"(r0), "=r"(r1), "=r"(r2)
        : "r"((unsigned)a[t]), "r"((unsigned)(a[t] >> 32)), "r"(7u), "r"((unsigned)b[t]), "r"((unsigned)(b[t] >> 32)), "r"(9u));
    unsigned m0, m1;
    asm("mad.lo.cc.u32 %0, %2, %3, %4;\n\t"
        "madc.hi.u32 %1, %2, %3, 0;"
        : "=r"(m0), "=r"(m1) : "r"(r0), "r"(r1), "r"(r2));
    out[8 * t + 6] = ((unsigned long long)r2 << 32 | r1) ^ r0;
    out[8 * t + 7] = (unsigned long long)m1 << 32 | m0;
}

extern "C" __global__ void int_div_rem(const int *a, const int *b, const long long *la, const long long *lb,
                                       int *out, long long *lout)
{
    int t = threadIdx.x;
    int x = a[t], y = b[t] | 1;
    unsigned ux = (unsigned)x, uy = (unsigned)y;
    out[4 * t + 0] = x / y;
    out[4 * t + 1] = x % y;
    out[4 * t + 2] = (int)(ux / uy);
    out[4 * t + 3] = (int)(ux % uy) + x / 7 + x % 13 + (int)(ux / 1000u);
    long long X = la[t], Y = lb[t] | 1;
    lout[2 * t] = X / Y + (long long)((unsigned long long)X / (unsigned long long)Y);
    lout[2 * t + 1] = X % Y + (long long)((unsigned long long)X % 10ull);
}

extern "C" __global__ void saturating(const int *a, const int *b, int *out, short *sout, unsigned char *bout)
{
    int t = threadIdx.x;
    int x = a[t], y = b[t];
    int s;
    asm("add.sat.s32 %0, %1, %2;" : "=r"(s) : "r"(x), "r"(y));
    int d;
    asm("sub.sat.s32 %0, %1, %2;" : "=r"(d) : "r"(x), "r"(y));
    out[2 * t] = s;
    out[2 * t + 1] = d;
    sout[t] = (short)max(-32768, min(32767, x));
    bout[t] = (unsigned char)min(255, max(0, y));
}
