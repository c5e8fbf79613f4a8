// out[i] = in[i * stride + offset]: global-memory coalescing. With 4-byte words a warp's load
// touches 4 sectors at stride 1 and min(32, 4 * stride) sectors at larger strides; an offset
// that is not a multiple of 8 words spreads the warp's 128 bytes over an extra sector.
extern "C" __global__ void copy_strided(const float* in, float* out, int n, int stride, int offset)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[(long long)i * stride + offset];
}

// out[i] = in[i] in 16-byte vectors over a grid-stride loop: one wave of CTAs keeps every SM
// full for the whole copy, so DRAM bandwidth, not CTA launch, bounds it (stream_copy_vec4).
struct alignas(16) Vec4 {
    float x, y, z, w;
};

extern "C" __global__ void copy_vec4(const Vec4* in, Vec4* out, int n4)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += gridDim.x * blockDim.x) out[i] = in[i];
}
