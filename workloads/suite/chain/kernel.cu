// Arithmetic latency and throughput: CHAINS independent dependent chains per thread, each stepped
// `iters` times (one chain = latency, eight = throughput). out[t] = sum of the chains (summed left
// to right), cycles[warp] = timed cycles. Chain c starts at x[t] + c.
template <int CHAINS>
__device__ void ffma(const float* x, float* out, unsigned long long* cycles, float a, float b, int iters)
{
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    float v[CHAINS];
#pragma unroll
    for (int c = 0; c < CHAINS; ++c) v[c] = x[t] + (float)c;
    long long t0 = clock64();
    for (int k = 0; k < iters; ++k) {
#pragma unroll
        for (int c = 0; c < CHAINS; ++c) v[c] = fmaf(v[c], a, b);
    }
    long long t1 = clock64();
    float s = v[0];
#pragma unroll
    for (int c = 1; c < CHAINS; ++c) s += v[c];
    out[t] = s;
    if ((threadIdx.x & 31) == 0) cycles[t / 32] = (unsigned long long)(t1 - t0);
}

template <int CHAINS>
__device__ void imad(const unsigned* x, unsigned* out, unsigned long long* cycles, unsigned a, unsigned b, int iters)
{
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned v[CHAINS];
#pragma unroll
    for (int c = 0; c < CHAINS; ++c) v[c] = x[t] + c;
    long long t0 = clock64();
    for (int k = 0; k < iters; ++k) {
#pragma unroll
        for (int c = 0; c < CHAINS; ++c) v[c] = v[c] * a + b;
    }
    long long t1 = clock64();
    unsigned s = v[0];
#pragma unroll
    for (int c = 1; c < CHAINS; ++c) s += v[c];
    out[t] = s;
    if ((threadIdx.x & 31) == 0) cycles[t / 32] = (unsigned long long)(t1 - t0);
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
