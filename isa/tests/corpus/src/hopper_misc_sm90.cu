// Other sm_90 features: programmatic dependent launch (cudaGridDependencySynchronize /
// cudaTriggerProgrammaticLaunchCompletion -> griddepcontrol.wait / .launch_dependents), elect.sync,
// L2 cache policies (createpolicy + .L2::cache_hint), cache-eviction-hinted loads/stores
// (ld.global.nc.L1::no_allocate.L2::256B, st.global.L1::no_allocate, .L2::evict_first), discard.global.L2,
// applypriority, vector f32 atomics/reductions (red.global.v4.f32.add, atom.global.v2.f32.add, sm_90),
// bf16x2 / f16x2 red, fp8 conversions (cvt.rn.satfinite.e4m3x2.f32, sm_89+), barrier.cta.* spellings,
// isspacep.shared::cluster, fence.proxy.async.global, and %clock_hi / %globaltimer_hi.
#include <cuda_bf16.h>
#ifdef __CUDACC_RTC__
// NVRTC does not declare the device runtime API; these are what cuda_device_runtime_api.h expands to.
__device__ __forceinline__ void cudaGridDependencySynchronize() { asm volatile("griddepcontrol.wait;" ::: "memory"); }
__device__ __forceinline__ void cudaTriggerProgrammaticLaunchCompletion() { asm volatile("griddepcontrol.launch_dependents;" :::); }
#endif

extern "C" __global__ void pdl_secondary(const float *produced, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float pre = i < n ? out[i] : 0.0f;                     // independent prologue
    cudaGridDependencySynchronize();                      // wait for the primary grid's memory
    if (i < n) out[i] = pre + produced[i];
}

extern "C" __global__ void pdl_primary(float *produced, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) produced[i] = (float)i * 0.5f;
    cudaTriggerProgrammaticLaunchCompletion();            // let the dependent grid start
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
    asm volatile("griddepcontrol.wait;" ::: "memory");
}

extern "C" __global__ void elect_and_hints(const float4 *in, float4 *out, const float *f, unsigned *leaders)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned is_leader, leader_lane;
    asm volatile("{\n\t.reg .pred p;\n\t"
                 "elect.sync %1|p, 0xffffffff;\n\t"
                 "selp.u32 %0, 1, 0, p;\n\t}"
                 : "=r"(is_leader), "=r"(leader_lane));
    asm volatile("{\n\t.reg .pred p;\n\telect.sync _|p, %0;\n\t@p st.global.u32 [%1], %0;\n\t}"
                 :: "r"(__activemask()), "l"(&leaders[blockIdx.x]) : "memory");
    unsigned long long pol_last, pol_first, pol_frac;
    asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(pol_last));
    asm volatile("createpolicy.fractional.L2::evict_first.L2::evict_unchanged.b64 %0, 0.5;" : "=l"(pol_frac));
    asm volatile("createpolicy.range.L2::evict_first.L2::evict_unchanged.b64 %0, [%1], %2, %3;"
                 : "=l"(pol_first) : "l"(in), "r"(4096u), "r"(8192u));
    float4 a;
    asm volatile("ld.global.nc.L1::no_allocate.L2::256B.v4.f32 {%0, %1, %2, %3}, [%4];"
                 : "=f"(a.x), "=f"(a.y), "=f"(a.z), "=f"(a.w) : "l"(&in[i]));
    float b;
    asm volatile("ld.global.L2::cache_hint.f32 %0, [%1], %2;" : "=f"(b) : "l"(&f[i]), "l"(pol_last));
    float c;
    asm volatile("ld.global.L1::evict_last.f32 %0, [%1];" : "=f"(c) : "l"(&f[i + 1]));
    float d;
    asm volatile("ld.relaxed.gpu.global.L2::cache_hint.f32 %0, [%1], %2;" : "=f"(d) : "l"(&f[i + 2]), "l"(pol_frac));
    float4 r = make_float4(a.x + b, a.y + c, a.z + d, a.w + (float)(is_leader + leader_lane));
    asm volatile("st.global.L1::no_allocate.v4.f32 [%0], {%1, %2, %3, %4};"
                 :: "l"(&out[i]), "f"(r.x), "f"(r.y), "f"(r.z), "f"(r.w) : "memory");
    asm volatile("st.global.L2::cache_hint.f32 [%0], %1, %2;" :: "l"(&out[i + blockDim.x].x), "f"(b), "l"(pol_first) : "memory");
    if (threadIdx.x == 0) {
        asm volatile("discard.global.L2 [%0], 128;" :: "l"(&in[blockIdx.x * 64 + 32]) : "memory");
        asm volatile("applypriority.global.L2::evict_normal [%0], 128;" :: "l"(&in[blockIdx.x * 64]) : "memory");
    }
}

extern "C" __global__ void vector_atomics(float *acc4, float *acc2, __nv_bfloat162 *bacc, unsigned *out)
{
    int t = threadIdx.x;
    float x = (float)t;
    asm volatile("red.global.v4.f32.add [%0], {%1, %2, %3, %4};" :: "l"(acc4), "f"(x), "f"(1.0f), "f"(-x), "f"(0.5f) : "memory");
    float o0, o1;
    asm volatile("atom.global.v2.f32.add {%0, %1}, [%2], {%3, %4};" : "=f"(o0), "=f"(o1) : "l"(acc2), "f"(x), "f"(2.0f) : "memory");
    __nv_bfloat162 v = __floats2bfloat162_rn(x, 1.0f);
    asm volatile("red.global.add.noftz.bf16x2 [%0], %1;" :: "l"(bacc), "r"(*reinterpret_cast<unsigned *>(&v)) : "memory");
    asm volatile("red.relaxed.gpu.global.add.noftz.v2.bf16x2 [%0], {%1, %1};" :: "l"(bacc + 2), "r"(*reinterpret_cast<unsigned *>(&v)) : "memory");
    unsigned short e4;
    asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;" : "=h"(e4) : "f"(x), "f"(-x));
    unsigned h2;
    asm("cvt.rn.f16x2.e4m3x2 %0, %1;" : "=r"(h2) : "h"(e4));
    unsigned sp;
    asm("{\n\t.reg .pred p;\n\tisspacep.shared::cluster p, %1;\n\tselp.u32 %0, 1, 0, p;\n\t}" : "=r"(sp) : "l"(acc2));
    unsigned chi, ghi;
    asm volatile("mov.u32 %0, %%clock_hi;" : "=r"(chi));
    asm volatile("mov.u32 %0, %%globaltimer_hi;" : "=r"(ghi));
    asm volatile("barrier.cta.sync.aligned 0;" ::: "memory");
    asm volatile("barrier.cta.arrive.aligned 1, 64;" ::: "memory");
    asm volatile("fence.proxy.async.global;" ::: "memory");
    asm volatile("fence.proxy.async;" ::: "memory");
    out[t] = (unsigned)o0 + (unsigned)o1 + h2 + sp + (chi ^ ghi);
}
