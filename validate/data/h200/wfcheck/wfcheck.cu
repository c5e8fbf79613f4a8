// wfcheck: kernels written to test the shared-memory pipe counting rules of DESIGN.md ("The
// shared-memory pipe beyond ld/st.shared") on shapes none of the measured kernels had: blocks
// with a z dimension, named barriers, remote shared stores alone, 4-byte cp.async.
#include <cstdio>
#include <cuda_pipeline.h>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void copy3d(const float* in, float* out)
{
    unsigned t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    unsigned i = blockIdx.x * blockDim.x * blockDim.y * blockDim.z + t;
    out[i] = 2.0f * in[i];
}

extern "C" __global__ void named_bar(float* out)
{
    __shared__ float s[128];
    unsigned t = threadIdx.x;
    s[t] = (float)t;
    if (t < 64) {
        asm volatile("bar.sync 1, 64;");
        s[t] += s[63 - t];
        asm volatile("bar.sync 1, 64;");
    }
    __syncthreads();
    out[blockIdx.x * 128 + t] = s[127 - t];
}

extern "C" __global__ void __cluster_dims__(2, 1, 1) remote_store(float* out)
{
    __shared__ float s[512];
    cg::cluster_group cl = cg::this_cluster();
    unsigned t = threadIdx.x, peer = cl.block_rank() ^ 1;
    float* ps = cl.map_shared_rank(s, peer);
    for (int k = 0; k < 4; k++) ps[t + 128 * k] = (float)(t + k + blockIdx.x);
    cl.sync();
    float a = 0;
    for (int k = 0; k < 4; k++) a += s[t + 128 * k];
    out[blockIdx.x * 128 + t] = a;
}

extern "C" __global__ void cp_async4(const float* in, float* out)
{
    __shared__ float s[128];
    unsigned t = threadIdx.x;
    __pipeline_memcpy_async(&s[t], &in[blockIdx.x * 128 + t], 4);
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
    out[blockIdx.x * 128 + t] = s[127 - t];
}

int main()
{
    const int n = 64 * 128;
    float *in, *out;
    cudaMalloc(&in, n * 4);
    cudaMalloc(&out, n * 4);
    cudaMemset(in, 0, n * 4);
    copy3d<<<64, dim3(8, 4, 4)>>>(in, out);
    copy3d<<<64, dim3(32, 1, 4)>>>(in, out);
    copy3d<<<64, dim3(128, 1, 1)>>>(in, out);
    named_bar<<<64, 128>>>(out);
    remote_store<<<64, 128>>>(out);
    cp_async4<<<64, 128>>>(in, out);
    cudaError_t e = cudaDeviceSynchronize();
    printf("%s\n", cudaGetErrorString(e));
    return e != cudaSuccess;
}
