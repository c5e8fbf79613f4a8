// Operations no bundled workload times, for the knob sensitivity test (sim/tests/knobs.rs): each
// thread runs short dependent chains of the operations below and adds to one global word, one
// warp per block also chains returning shared-memory atomics and tensor-core MMAs, and four
// threads print.
// Regenerate: nvcc -arch=sm_90 -ptx -lineinfo -o ops.ptx ops.cu (CUDA 13.0.88, PyPI wheels).
#include <cstdio>
#include <cuda_fp16.h>
#include <mma.h>
using namespace nvcuda;

extern "C" __global__ void ops(double *d, float *f, unsigned long long *u, half *h, float *m, int n) {
    __shared__ int s[32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    double x = d[i];
    float y = f[i];
    unsigned long long z = u[i];
    half2 a0 = __half2half2(__float2half(y)), a1 = a0, a2 = a0, a3 = a0, b = __half2half2(__float2half(0.5f));
    if (threadIdx.x < 32) s[threadIdx.x] = 0;
    __syncthreads();
    int t = threadIdx.x;
    for (int k = 0; k < n; k++) {
        x = x / (x + 1.5);                   // div.rn.f64
        x = sqrt(x + 2.0);                   // sqrt.rn.f64
        y = __fdividef(y, y + 1.5f);         // div.approx.f32
        z = z / (z % 7 + 3);                 // div.u64, rem.u64
        z = (z * z) ^ (z >> (k & 7));        // mul.lo.u64, shr.u64
        if (z > 1000000000000ULL) z -= 12345; // setp.u64
        a0 = __hfma2(a0, b, b);              // four independent f16x2 chains
        a1 = __hfma2(a1, b, a0);
        a2 = __hfma2(a2, b, b);
        a3 = __hfma2(a3, b, a2);
        t = atomicAdd(&s[t & 31], 1) + threadIdx.x; // returning shared atomics, chained
        atomicAdd(&m[1023], 1.0f);          // one global word for every thread
    }
    if (threadIdx.x < 32) { // one warp: a chain of 16x16x16 MMAs on its own accumulator
        wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
        wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
        wmma::load_matrix_sync(fa, h, 16);
        wmma::load_matrix_sync(fb, h + 256, 16);
        wmma::fill_fragment(fc, 0.0f);
        for (int k = 0; k < n; k++) wmma::mma_sync(fc, fa, fb, fc);
        wmma::store_matrix_sync(m + blockIdx.x * 256, fc, 16, wmma::mem_row_major);
    }
    d[i] = x;
    f[i] = y + __low2float(a1) + __high2float(a3) + t;
    u[i] = z;
    if (i < 4) printf("ops %d\n", n);
}
