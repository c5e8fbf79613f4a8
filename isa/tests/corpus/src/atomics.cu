// Atomics of every type, in global and shared memory: add/sub/exch/min/max/inc/dec/and/or/xor/cas
// on 32- and 64-bit integers, float and double add, f16 / f16x2 / bf16 / bf16x2 add, 16-bit CAS,
// scoped variants (_block, _system), `red` (result unused), and libcu++ cuda::atomic_ref with memory
// orders (atom.acquire/release/acq_rel/relaxed with .gpu/.cta/.sys scopes, ld.acquire, st.release).
// Compiles for sm_75+ (bf16 atomics are emulated with CAS loops below sm_80 by the headers).
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda/atomic>

struct Counters {
    int i;
    unsigned u;
    unsigned long long ull;
    long long ll;
    float f;
    double d;
};

extern "C" __global__ void global_atomics_int(int *gi, unsigned *gu, unsigned long long *gull,
                                              long long *gll, int *old_out)
{
    int t = threadIdx.x;
    int o = 0;
    o += atomicAdd(&gi[0], 1);
    o += atomicSub(&gi[1], t);
    o += atomicExch(&gi[2], t);
    o += atomicMin(&gi[3], -t);
    o += atomicMax(&gi[4], t);
    o += atomicAnd(&gi[5], ~(1 << (t & 31)));
    o += atomicOr(&gi[6], 1 << (t & 31));
    o += atomicXor(&gi[7], t * 0x9e3779b9);
    o += atomicCAS(&gi[8], t, t + 1);
    o += (int)atomicInc(&gu[0], 100u);
    o += (int)atomicDec(&gu[1], 100u);
    o += (int)atomicAdd(&gu[2], 3u);
    o += (int)atomicMin(&gu[3], (unsigned)t);
    o += (int)atomicMax(&gu[4], (unsigned)t);
    o += (int)atomicAdd(&gull[0], 1ull);
    o += (int)atomicExch(&gull[1], (unsigned long long)t << 33);
    o += (int)atomicCAS(&gull[2], 0ull, (unsigned long long)t);
    o += (int)atomicMin(&gull[3], (unsigned long long)t);
    o += (int)atomicMax(&gull[4], (unsigned long long)t);
    o += (int)atomicAnd(&gull[5], ~0ull >> (t & 63));
    o += (int)atomicOr(&gull[6], 1ull << (t & 63));
    o += (int)atomicXor(&gull[7], 0xdeadbeefcafef00dull);
    o += (int)atomicMin(&gll[0], -(long long)t);
    o += (int)atomicMax(&gll[1], (long long)t << 35);
    old_out[t] = o;
}

extern "C" __global__ void global_atomics_float(float *gf, double *gd, __half *gh, __half2 *gh2,
                                                __nv_bfloat16 *gb, __nv_bfloat162 *gb2, float *old_out)
{
    int t = threadIdx.x;
    float o = 0.0f;
    o += atomicAdd(&gf[0], 1.5f);
    o += atomicExch(&gf[1], (float)t);
    o += (float)atomicAdd(&gd[0], 0.25);
    o += __half2float(atomicAdd(&gh[0], __float2half(1.0f)));
    __half2 h2 = atomicAdd(&gh2[0], __floats2half2_rn(1.0f, 2.0f));
    o += __low2float(h2) + __high2float(h2);
    o += __bfloat162float(atomicAdd(&gb[0], __float2bfloat16(1.0f)));
    __nv_bfloat162 b2 = atomicAdd(&gb2[0], __floats2bfloat162_rn(0.5f, -0.5f));
    o += __low2float(b2) + __high2float(b2);
    old_out[t] = o;
}

// Results discarded: nvcc emits `red.*` instead of `atom.*`.
extern "C" __global__ void reductions_red(int *gi, unsigned long long *gull, float *gf, double *gd,
                                          __half2 *gh2)
{
    int t = threadIdx.x;
    atomicAdd(&gi[0], t);
    atomicOr(&gi[1], 1 << (t & 31));
    atomicMax(&gi[2], t);
    atomicAdd(&gull[0], (unsigned long long)t);
    atomicAdd(&gf[0], 0.5f);
    atomicAdd(&gd[0], 1.0);
    atomicAdd(&gh2[0], __floats2half2_rn(1.0f, 1.0f));
    atomicAdd_block(&gi[3], 1);
    atomicAdd_system(&gi[4], 1);
}

extern "C" __global__ void shared_atomics(const int *in, int *out, unsigned long long *out64, float *outf)
{
    __shared__ int s_i[32];
    __shared__ unsigned long long s_u64[4];
    __shared__ float s_f[4];
    __shared__ double s_d[2];
    __shared__ unsigned short s_u16[2];
    __shared__ __half2 s_h2;
    int t = threadIdx.x;
    if (t < 32) s_i[t] = 0;
    if (t < 4) { s_u64[t] = 0; s_f[t] = 0.0f; }
    if (t < 2) { s_d[t] = 0.0; s_u16[t] = 0; }
    if (t == 0) s_h2 = __floats2half2_rn(0.0f, 0.0f);
    __syncthreads();
    int v = in[blockIdx.x * blockDim.x + t];
    atomicAdd(&s_i[v & 31], 1);                  // histogram
    int old = atomicCAS(&s_i[0], 0, v);
    atomicExch(&s_i[1], old);
    atomicMin(&s_i[2], v);
    atomicMax(&s_i[3], v);
    atomicInc((unsigned *)&s_i[4], 7u);
    atomicAdd(&s_u64[0], (unsigned long long)v);
    unsigned long long prev = atomicCAS(&s_u64[1], 0ull, (unsigned long long)t + 1);
    atomicAdd(&s_f[0], 1.0f);
    atomicAdd(&s_d[0], (double)v);
    atomicCAS(&s_u16[0], (unsigned short)0, (unsigned short)t);   // 16-bit CAS (sm_70+)
    atomicAdd(&s_h2, __floats2half2_rn(0.5f, 0.25f));
    __syncthreads();
    if (t < 32) out[blockIdx.x * 32 + t] = s_i[t];
    if (t == 0) {
        out64[blockIdx.x * 2] = s_u64[0];
        out64[blockIdx.x * 2 + 1] = prev + s_u16[0];
        outf[blockIdx.x * 3] = s_f[0];
        outf[blockIdx.x * 3 + 1] = (float)s_d[0];
        outf[blockIdx.x * 3 + 2] = __low2float(s_h2);
    }
}

// libcu++ atomics with explicit memory orders and scopes.
extern "C" __global__ void atomic_ref_orders(int *flag, int *data, unsigned long long *ctr, int *out)
{
    cuda::atomic_ref<int, cuda::thread_scope_device> f(*flag);
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_system> c(*ctr);
    __shared__ int s;
    cuda::atomic_ref<int, cuda::thread_scope_block> sb(s);
    if (threadIdx.x == 0) sb.store(0, cuda::memory_order_relaxed);
    __syncthreads();
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        data[0] = 123;
        f.store(1, cuda::memory_order_release);
    }
    int seen = f.load(cuda::memory_order_acquire);
    int r = seen ? data[0] : -1;
    c.fetch_add(1, cuda::memory_order_relaxed);
    sb.fetch_add(1, cuda::memory_order_acq_rel);
    int expected = 0;
    f.compare_exchange_strong(expected, 2, cuda::memory_order_seq_cst);
    int mx = sb.fetch_max((int)threadIdx.x, cuda::memory_order_release);
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = r + expected + mx + sb.load(cuda::memory_order_acquire);
}

// NVVM never turns an unused atom into `red` (ptxas does that later), so `red` is written in inline PTX.
extern "C" __global__ void red_inline(int *gi, unsigned long long *gull, float *gf)
{
    int t = threadIdx.x;
    asm volatile("red.global.add.u32 [%0], %1;" :: "l"(gi), "r"(t) : "memory");
    asm volatile("red.global.max.s32 [%0+4], %1;" :: "l"(gi), "r"(t) : "memory");
    asm volatile("red.relaxed.gpu.global.and.b32 [%0+8], %1;" :: "l"(gi), "r"(~t) : "memory");
    asm volatile("red.release.sys.global.or.b32 [%0+12], %1;" :: "l"(gi), "r"(1 << (t & 31)) : "memory");
    asm volatile("red.global.add.u64 [%0], %1;" :: "l"(gull), "l"((unsigned long long)t) : "memory");
    asm volatile("red.global.add.f32 [%0], %1;" :: "l"(gf), "f"(0.5f) : "memory");
    asm volatile("red.global.inc.u32 [%0+16], %1;" :: "l"(gi), "r"(63) : "memory");
    __shared__ int s[2];
    if (t == 0) { s[0] = 0; s[1] = 0; }
    __syncthreads();
    unsigned sa = (unsigned)__cvta_generic_to_shared(s);
    asm volatile("red.shared.add.u32 [%0], %1;" :: "r"(sa), "r"(1) : "memory");
    asm volatile("red.shared.xor.b32 [%0+4], %1;" :: "r"(sa), "r"(t) : "memory");
    __syncthreads();
    if (t == 0) { gi[8] = s[0]; gi[9] = s[1]; }
}
