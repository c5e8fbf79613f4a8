// Special-function unit: 4 independent chains per thread of sin.approx (__sinf), ex2.approx
// (exp2f of -v/2) or rsqrt.approx (rsqrtf), each a contraction so errors do not grow.
// out[t] = sum of the chains, cycles[warp] = timed cycles. Chain c starts at x[t] + c/4.
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
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    float v[CHAINS];
#pragma unroll
    for (int c = 0; c < CHAINS; ++c) v[c] = x[t] + (float)c * 0.25f;
    long long t0 = clock64();
    for (int k = 0; k < iters; ++k) {
#pragma unroll
        for (int c = 0; c < CHAINS; ++c) v[c] = op<OP>(v[c]);
    }
    long long t1 = clock64();
    float s = v[0];
#pragma unroll
    for (int c = 1; c < CHAINS; ++c) s += v[c];
    out[t] = s;
    if ((threadIdx.x & 31) == 0) cycles[t / 32] = (unsigned long long)(t1 - t0);
}

extern "C" __global__ void sfu_sin(const float* x, float* out, unsigned long long* cycles, int iters) { sfu<0>(x, out, cycles, iters); }
extern "C" __global__ void sfu_ex2(const float* x, float* out, unsigned long long* cycles, int iters) { sfu<1>(x, out, cycles, iters); }
extern "C" __global__ void sfu_rsqrt(const float* x, float* out, unsigned long long* cycles, int iters) { sfu<2>(x, out, cycles, iters); }
