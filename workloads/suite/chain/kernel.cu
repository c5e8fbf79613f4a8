// Arithmetic latency and throughput: CHAINS independent dependent chains per thread, each stepped
// `iters` times (one chain = latency, eight = throughput). out[t] = sum of the chains (summed left
// to right), cycles[warp] = timed cycles. Chain c starts at x[t] + c.

#include "../include/chains.cuh"

template <int CHAINS>
__device__ void ffma(const float* x, float* out, unsigned long long* cycles, float a, float b, int iters)
{
    run_chains<CHAINS>(x, out, cycles, iters, [](float x0, int c) { return x0 + (float)c; },
                       [=](float v) { return fmaf(v, a, b); });
}

template <int CHAINS>
__device__ void imad(const unsigned* x, unsigned* out, unsigned long long* cycles, unsigned a, unsigned b, int iters)
{
    run_chains<CHAINS>(x, out, cycles, iters, [](unsigned x0, int c) { return x0 + c; },
                       [=](unsigned v) { return v * a + b; });
}

extern "C" __global__ void ffma_lat(const float* x, float* out, unsigned long long* cycles, float a, float b, int iters)
{
    ffma<1>(x, out, cycles, a, b, iters);
}

extern "C" __global__ void ffma_tput(const float* x, float* out, unsigned long long* cycles, float a, float b, int iters)
{
    ffma<8>(x, out, cycles, a, b, iters);
}

extern "C" __global__ void imad_lat(const unsigned* x, unsigned* out, unsigned long long* cycles, unsigned a, unsigned b, int iters)
{
    imad<1>(x, out, cycles, a, b, iters);
}

extern "C" __global__ void imad_tput(const unsigned* x, unsigned* out, unsigned long long* cycles, unsigned a, unsigned b, int iters)
{
    imad<8>(x, out, cycles, a, b, iters);
}
