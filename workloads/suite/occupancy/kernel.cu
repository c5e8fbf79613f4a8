// Occupancy cliffs.
// Registers: 48 live 32-bit values per thread mixed for 4 rounds. occ_regs_free lets ptxas use
// what it needs (~60 registers: 4 blocks of 256 per SM); occ_regs_capped has
// __launch_bounds__(256, 8), capping it at 32 registers (8 blocks per SM) at the price of spills.
// The reference (src/reference.rs, reg_pressure) must stay in step.
// Shared memory: occ_smem stages `words` words per block through dynamic shared memory and writes
// them back reversed; the manifest's dynamic_smem allocation (which may exceed what is touched)
// decides whether 1 or 2 blocks fit an SM.
#define VALUES 48
#define ROUNDS 4

__device__ __forceinline__ unsigned pressure(unsigned x)
{
    unsigned v[VALUES];
#pragma unroll
    for (unsigned k = 0; k < VALUES; ++k) v[k] = x * (2 * k + 1) + k;
#pragma unroll
    for (int r = 0; r < ROUNDS; ++r) {
#pragma unroll
        for (int k = 0; k < VALUES; ++k) v[k] += v[(k + 1) % VALUES] ^ (v[(k + 7) % VALUES] >> 3);
    }
    unsigned s = 0;
#pragma unroll
    for (unsigned k = 0; k < VALUES; ++k) s ^= v[k] + k;
    return s;
}

extern "C" __global__ void occ_regs_free(const unsigned* in, unsigned* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = pressure(in[i]);
}

extern "C" __global__ void __launch_bounds__(256, 8) occ_regs_capped(const unsigned* in, unsigned* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = pressure(in[i]);
}

extern "C" __global__ void occ_smem(const unsigned* in, unsigned* out, int words)
{
    extern __shared__ unsigned s[];
    const unsigned* src = in + (long long)blockIdx.x * words;
    unsigned* dst = out + (long long)blockIdx.x * words;
    for (int k = threadIdx.x; k < words; k += blockDim.x) s[k] = src[k];
    __syncthreads();
    for (int k = threadIdx.x; k < words; k += blockDim.x) dst[k] = s[words - 1 - k];
}
