// Warp-level primitives: shfl.sync (idx/up/down/bfly, with widths, on 32- and 64-bit types),
// vote.sync (ballot/any/all/uni), activemask, match.sync (any/all), __syncwarp with masks,
// redux.sync (__reduce_*_sync, sm_80+ only: guarded), %laneid / %lanemask_* special registers.
// Compiles for sm_75+ (redux parts only for sm_80+).

extern "C" __global__ void shuffle_all(const float *in, float *out, const double *din, double *dout,
                                       long long *lout)
{
    int t = threadIdx.x;
    float v = in[t];
    float s = v;
    // butterfly reduction
    for (int o = 16; o > 0; o >>= 1)
        s += __shfl_xor_sync(0xffffffffu, s, o);
    // inclusive scan with shfl.up
    float scan = v;
    for (int o = 1; o < 32; o <<= 1) {
        float n = __shfl_up_sync(0xffffffffu, scan, o);
        if ((t & 31) >= o) scan += n;
    }
    float dn = __shfl_down_sync(0xffffffffu, v, 3);
    float bc = __shfl_sync(0xffffffffu, v, 7);
    float w8 = __shfl_sync(0xffffffffu, v, 2, 8);          // width 8 sub-warps
    float u16 = __shfl_up_sync(0xffffffffu, v, 1, 16);
    float x4 = __shfl_xor_sync(0x0000ffffu, v, 1, 4);       // partial mask
    out[t] = s + scan + dn + bc + w8 + u16 + x4;

    double d = din[t];
    d += __shfl_down_sync(0xffffffffu, d, 1);               // 64-bit: two shfl of 32 bits
    dout[t] = d;
    long long l = (long long)t << 40;
    l = __shfl_sync(0xffffffffu, l, 31 - (t & 31));
    lout[t] = l;
}

extern "C" __global__ void vote_match(const int *in, unsigned *out)
{
    int t = threadIdx.x;
    int v = in[t];
    unsigned ballot = __ballot_sync(0xffffffffu, v > 0);
    int any = __any_sync(0xffffffffu, v == 42);
    int all = __all_sync(0xffffffffu, v >= 0);
    int uni = __uni_sync(0xffffffffu, v & 1);
    unsigned active = 0;
    if (v & 2) {                                            // divergent region
        active = __activemask();
        __syncwarp(active);
    }
    unsigned m_any = __match_any_sync(0xffffffffu, v & 7);
    int pred;
    unsigned m_all = __match_all_sync(0xffffffffu, v >> 4, &pred);
    unsigned long long v64 = (unsigned long long)v * 0x100000001ull;
    unsigned m_any64 = __match_any_sync(0xffffffffu, v64);
    out[t * 8 + 0] = ballot;
    out[t * 8 + 1] = any | (all << 1) | (uni << 2) | (pred << 3);
    out[t * 8 + 2] = active;
    out[t * 8 + 3] = m_any;
    out[t * 8 + 4] = m_all;
    out[t * 8 + 5] = m_any64;
    out[t * 8 + 6] = __popc(ballot & ((1u << (t & 31)) - 1u));   // rank among voters
    __syncwarp();
}

extern "C" __global__ void lane_registers(unsigned *out)
{
    unsigned lane, lt, le, gt, ge, eq, warpid, nwarpid;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
    asm volatile("mov.u32 %0, %%lanemask_lt;" : "=r"(lt));
    asm volatile("mov.u32 %0, %%lanemask_le;" : "=r"(le));
    asm volatile("mov.u32 %0, %%lanemask_gt;" : "=r"(gt));
    asm volatile("mov.u32 %0, %%lanemask_ge;" : "=r"(ge));
    asm volatile("mov.u32 %0, %%lanemask_eq;" : "=r"(eq));
    asm volatile("mov.u32 %0, %%warpid;" : "=r"(warpid));
    asm volatile("mov.u32 %0, %%nwarpid;" : "=r"(nwarpid));
    unsigned *o = out + 8 * threadIdx.x;
    o[0] = lane; o[1] = lt; o[2] = le; o[3] = gt; o[4] = ge; o[5] = eq; o[6] = warpid; o[7] = nwarpid;
}

// Inline PTX shuffle returning the predicate (the `%r|%p` destination form).
extern "C" __global__ void shfl_pred(const int *in, int *out)
{
    int v = in[threadIdx.x], r, ok;
    asm volatile("{\n\t.reg .pred p;\n\t"
                 "shfl.sync.up.b32 %0|p, %2, 1, 0, 0xffffffff;\n\t"
                 "selp.s32 %1, 1, 0, p;\n\t}"
                 : "=r"(r), "=r"(ok) : "r"(v));
    out[threadIdx.x] = ok ? r : -1;
}

extern "C" __global__ void warp_reduce_redux(const int *in, const unsigned *uin, int *out)
{
    int v = in[threadIdx.x];
    unsigned u = uin[threadIdx.x];
#if __CUDA_ARCH__ >= 800
    int sum = __reduce_add_sync(0xffffffffu, v);
    int mn = __reduce_min_sync(0xffffffffu, v);
    int mx = __reduce_max_sync(0xffffffffu, v);
    unsigned umn = __reduce_min_sync(0xffffffffu, u);
    unsigned umx = __reduce_max_sync(0xffffffffu, u);
    unsigned a = __reduce_and_sync(0xffffffffu, u);
    unsigned o = __reduce_or_sync(0xffffffffu, u);
    unsigned x = __reduce_xor_sync(0xffffffffu, u);
#else
    int sum = v, mn = v, mx = v;
    unsigned umn = u, umx = u, a = u, o = u, x = u;
    for (int s = 16; s > 0; s >>= 1) {
        sum += __shfl_xor_sync(0xffffffffu, sum, s);
        mn = min(mn, __shfl_xor_sync(0xffffffffu, mn, s));
        mx = max(mx, __shfl_xor_sync(0xffffffffu, mx, s));
        umn = min(umn, __shfl_xor_sync(0xffffffffu, umn, s));
        umx = max(umx, __shfl_xor_sync(0xffffffffu, umx, s));
        a &= __shfl_xor_sync(0xffffffffu, a, s);
        o |= __shfl_xor_sync(0xffffffffu, o, s);
        x ^= __shfl_xor_sync(0xffffffffu, x, s);
    }
#endif
    int *r = out + 8 * threadIdx.x;
    r[0] = sum; r[1] = mn; r[2] = mx; r[3] = (int)umn; r[4] = (int)umx; r[5] = (int)a; r[6] = (int)o; r[7] = (int)x;
}
