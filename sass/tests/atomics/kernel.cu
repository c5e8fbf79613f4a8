// 64-bit and shared-memory-loop atomics and barrier reductions in SASS mode (sass/tests/atomics.rs),
// compared with PTX mode. Returned old values only where one warp owns the addresses (lanes are
// serialized in lane order in both modes; warps interleave differently), final memory after
// commutative updates everywhere.
// Regenerate (CUDA 13.0.88 from tools/setup_cuda_wheels.sh):
//   nvcc -arch=sm_80 -ptx -lineinfo -o kernel.ptx kernel.cu
//   ptxas -arch=sm_90 -lineinfo -o k.cubin kernel.ptx && nvdisasm -c -hex -gi -gp k.cubin | tr -s " " > kernel.sm_90.sass
//   sm_80 reads literals from bank 2: the same without -c, keeping only the `.nv.constant2.*` and
//   `.text.*` sections (and `.target`).
extern "C" __global__ void atomics64(unsigned long long* u, long long* s, double* d, unsigned long long* out,
                                     const int* sel) {
    int t = threadIdx.x, w = t / 32, i = blockIdx.x * blockDim.x + t;
    unsigned long long v = (unsigned long long)(i + 1) * 0x100000001ull;
    unsigned long long* uw = u + 64 * w;  // this warp's words
    out[8 * i + 0] = atomicAdd(&uw[t & 7], v);
    atomicAdd(&u[256 + (t & 3)], 3ull + (1ull << 40));
    out[8 * i + 1] = atomicCAS(&uw[16 + (t & 1)], (unsigned long long)t, v);
    out[8 * i + 2] = atomicExch(&uw[20], v);
    out[8 * i + 3] = atomicMax(&s[8 * w + (t & 3)], (long long)(t - 20) << 33);
    atomicMin(&s[32 + (t & 3)], (long long)(20 - i) << 35);
    out[8 * i + 4] = __double_as_longlong(atomicAdd(&d[8 * w + (t & 7)], 0.5 * t + 1e-3));
    atomicAdd(&d[64], 1.25);
    out[8 * i + 5] = atomicOr(&uw[24], 1ull << (t & 63)) ^ atomicAnd(&uw[25], ~(1ull << (2 * t))) ^ atomicXor(&uw[26], v);
    __shared__ unsigned long long sm[8];
    __shared__ double sd[4];
    if (t < 8) sm[t] = 0;
    if (t < 4) sd[t] = 0;
    __syncthreads();
    atomicAdd(&sm[t & 7], v);
    atomicAdd(&sd[t & 3], 0.25 * t);
    atomicMax(&sm[4 + (t & 3)], v);
    __syncthreads();
    int c = __syncthreads_count(sel[i] > 0) + __syncthreads_and(sel[i] > 2) * 1000 + __syncthreads_or(sel[i] > 5) * 100000;
    out[8 * i + 6] = c;
    if (t < 8) out[8 * i + 7] = sm[t] + __double_as_longlong(sd[t & 3]);
}
