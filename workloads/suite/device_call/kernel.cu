// A non-inlined device-function call (.func + call.uni in PTX): out[i] = mix applied `rounds`
// times to in[i], round r mixing in r. The reference (src/reference.rs, mix) must stay in step.
__device__ __noinline__ unsigned mix(unsigned x, unsigned k)
{
    x ^= k;
    x *= 0x85ebca6bu;
    x ^= x >> 13;
    x *= 0xc2b2ae35u;
    x ^= x >> 16;
    return x;
}

extern "C" __global__ void device_call(const unsigned* in, unsigned* out, int n, int rounds)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned v = in[i];
    for (int r = 0; r < rounds; ++r) v = mix(v, r);
    out[i] = v;
}
