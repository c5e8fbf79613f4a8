// The timed dependent-chain loop shared by the arithmetic and SFU microbenchmarks (chain, sfu):
// CHAINS independent chains per thread, chain c starting at start(x[t], c) and stepped `iters`
// times by v = step(v) between two clock64 reads (the loop body unrolled UNROLL times, so `iters`
// must be a multiple of UNROLL; 1 by default). out[t] = the chains summed left to right, and
// lane 0 of each warp writes the timed cycles to cycles[warp]. One chain measures latency, several
// throughput. Included as "../include/chains.cuh"; no CUDA headers (NVRTC ships none).
#ifndef WARPSIM_SUITE_CHAINS_CUH
#define WARPSIM_SUITE_CHAINS_CUH

template <int CHAINS, int UNROLL = 1, typename T, typename Start, typename Step>
__device__ void run_chains(const T* x, T* out, unsigned long long* cycles, int iters, Start start, Step step)
{
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    T v[CHAINS];
#pragma unroll
    for (int c = 0; c < CHAINS; ++c) v[c] = start(x[t], c);
    long long t0 = clock64();
    for (int k = 0; k < iters; k += UNROLL) {
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) {
#pragma unroll
            for (int c = 0; c < CHAINS; ++c) v[c] = step(v[c]);
        }
    }
    long long t1 = clock64();
    T s = v[0];
#pragma unroll
    for (int c = 1; c < CHAINS; ++c) s += v[c];
    out[t] = s;
    if ((threadIdx.x & 31) == 0) cycles[t / 32] = (unsigned long long)(t1 - t0);
}

#endif
