// Special registers and timing: clock()/clock64() (%clock, %clock64), %globaltimer, %smid/%nsmid,
// %gridid, %warpid, %ctaid/%nctaid/%tid/%ntid in all dimensions, %envreg, %pm0 counters,
// __nanosleep (nanosleep.u32), prefetch / prefetchu (L1/L2), __launch_bounds__ (-> .maxntid,
// .minnctapersm), __maxnreg__ (-> .maxnreg) and a kernel that does nothing (empty body).
// Compiles for sm_75+.

extern "C" __global__ void __launch_bounds__(256, 2) timing(unsigned long long *out, const float *data)
{
    long long t0 = clock64();
    unsigned c0 = (unsigned)clock();
    unsigned long long g0, g1;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g0));
    unsigned smid, nsmid, gridid_lo, envreg;
    unsigned long long gridid;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
    asm volatile("mov.u32 %0, %%nsmid;" : "=r"(nsmid));
    asm volatile("mov.u64 %0, %%gridid;" : "=l"(gridid));
    asm volatile("mov.u32 %0, %%globaltimer_lo;" : "=r"(gridid_lo));
    asm volatile("mov.u32 %0, %%envreg0;" : "=r"(envreg));
    unsigned pm;
    asm volatile("mov.u32 %0, %%pm0;" : "=r"(pm));
    asm volatile("prefetch.global.L2 [%0];" :: "l"(data + 64));
    asm volatile("prefetch.global.L1 [%0];" :: "l"(data + 128));
    asm volatile("prefetchu.L1 [%0];" :: "l"(data));
#if __CUDA_ARCH__ >= 800
    asm volatile("prefetch.global.L2::evict_last [%0];" :: "l"(data + 256));
#endif
    float s = 0.0f;
    for (int k = 0; k < 8; ++k) s += data[threadIdx.x + k * 32];
    __nanosleep(100);
    __nanosleep((unsigned)threadIdx.x);
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g1));
    long long t1 = clock64();
    unsigned c1 = (unsigned)clock();
    unsigned long long *o = out + 10 * (blockIdx.x * blockDim.x + threadIdx.x);
    o[0] = (unsigned long long)(t1 - t0);
    o[1] = c1 - c0;
    o[2] = g1 - g0;
    o[3] = smid | ((unsigned long long)nsmid << 32);
    o[4] = gridid ^ gridid_lo;
    o[5] = envreg + pm;
    o[6] = (unsigned long long)__float_as_uint(s);
    o[7] = threadIdx.x | threadIdx.y << 10 | (unsigned long long)threadIdx.z << 20;
    o[8] = blockIdx.x | blockIdx.y << 16 | (unsigned long long)blockIdx.z << 32;
    o[9] = blockDim.x * blockDim.y * blockDim.z + gridDim.x * gridDim.y * gridDim.z;
}

extern "C" __global__ void __maxnreg__(32) max_regs(float *x)
{
    x[threadIdx.x] = x[threadIdx.x] * 2.0f + 1.0f;
}

extern "C" __global__ void __launch_bounds__(64) empty_kernel() {}

extern "C" __global__ void params_only(int a, long long b, float c, double d, char e, short f, bool g,
                                       unsigned char h, float2 v2, double4_32a v4, int *p)
{
    p[0] = a + (int)b + (int)c + (int)d + e + f + g + h + (int)(v2.x + v2.y) + (int)(v4.x + v4.w);
}

struct alignas(16) ParamBlock {
    float m[4][4];
    int n;
    char tag[3];
};

extern "C" __global__ void struct_param(ParamBlock pb, float *out)
{
    out[threadIdx.x] = pb.m[threadIdx.x & 3][(threadIdx.x >> 2) & 3] * pb.n + pb.tag[threadIdx.x % 3];
}
