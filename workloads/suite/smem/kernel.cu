// Shared-memory bank conflicts: each lane chases j = s[j] from j = lane * stride (mod 1024) over
// s[k] = k, so every iteration is a dependent load of the same addresses. Word stride s gives a
// gcd(s, 32)-way conflict; stride 0 is a broadcast. out[t] = final j, cycles[warp] = timed cycles.
extern "C" __global__ void smem_stride(unsigned* out, unsigned long long* cycles, int stride, int iters)
{
    __shared__ unsigned s[1024];
    for (int k = threadIdx.x; k < 1024; k += blockDim.x) s[k] = k;
    __syncthreads();
    unsigned lane = threadIdx.x & 31;
    unsigned j = (lane * stride) & 1023;
    long long t0 = clock64();
    for (int k = 0; k < iters; ++k) j = s[j];
    long long t1 = clock64();
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    out[t] = j;
    if (lane == 0) cycles[t / 32] = (unsigned long long)(t1 - t0);
}
