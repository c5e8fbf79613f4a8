// Special-function unit: 4 independent chains per thread of sin.approx (__sinf), ex2.approx
// (exp2f of -v/2) or rsqrt.approx (rsqrtf), each a contraction so errors do not grow.
// out[t] = sum of the chains, cycles[warp] = timed cycles. Chain c starts at x[t] + c/4.
#include "../include/chains.cuh"

#define CHAINS 4

template <int OP>
__device__ __forceinline__ float op(float v)
{
    if (OP == 0) return __sinf(v);
    if (OP == 1) return exp2f(v * -0.5f);
    return rsqrtf(v);
}

template <int OP>
__device__ void sfu(const float* x, float* out, unsigned long long* cycles, int iters)
{
    run_chains<CHAINS>(x, out, cycles, iters, [](float x0, int c) { return x0 + (float)c * 0.25f; },
                       [](float v) { return op<OP>(v); });
}

extern "C" __global__ void sfu_sin(const float* x, float* out, unsigned long long* cycles, int iters) { sfu<0>(x, out, cycles, iters); }
extern "C" __global__ void sfu_ex2(const float* x, float* out, unsigned long long* cycles, int iters) { sfu<1>(x, out, cycles, iters); }
extern "C" __global__ void sfu_rsqrt(const float* x, float* out, unsigned long long* cycles, int iters) { sfu<2>(x, out, cycles, iters); }
