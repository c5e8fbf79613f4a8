// Texture and surface objects (bindless, passed as .u64 kernel parameters): tex1Dfetch, tex1D, tex2D,
// tex2DLod, tex2DGrad, tex3D, tex2DLayered, texCubemap, tex2Dgather (tld4), surf2Dread/surf2Dwrite
// (suld/sust with .trap/.clamp/.zero), surf1Dwrite, and txq/suq queries in inline PTX.
// -> tex.2d.v4.f32.f32 {..}, [%rd, {%f, %f}];  suld.b.2d.b32.trap {..}, [%rd, {%r, %r}]; ...
// Compiles for sm_75+.
#ifdef __CUDACC_RTC__
#include <texture_indirect_functions.h>
#include <surface_indirect_functions.h>
#endif

extern "C" __global__ void texture_fetches(cudaTextureObject_t t1, cudaTextureObject_t t2, cudaTextureObject_t t3,
                                           cudaTextureObject_t tl, cudaTextureObject_t tc, float4 *out)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    float u = (x + 0.5f) / 256.0f, v = (threadIdx.y + 0.5f) / 16.0f;
    float a = tex1Dfetch<float>(t1, x);
    float b = tex1D<float>(t1, u);
    float4 c = tex2D<float4>(t2, u, v);
    float4 d = tex2DLod<float4>(t2, u, v, 1.5f);
    float4 e = tex2DGrad<float4>(t2, u, v, make_float2(0.01f, 0.0f), make_float2(0.0f, 0.01f));
    float f = tex3D<float>(t3, u, v, 0.5f);
    float g = tex2DLayered<float>(tl, u, v, x & 3);
    float h = texCubemap<float>(tc, u - 0.5f, v - 0.5f, 1.0f);
    float4 q = tex2Dgather<float4>(t2, u, v, 1);           // tld4.g
    int4 i4 = tex1Dfetch<int4>(t1, x);
    out[x] = make_float4(a + b + c.x + d.y, e.z + f + g, h + q.w, (float)(i4.x + i4.w));
}

extern "C" __global__ void surfaces(cudaSurfaceObject_t s2, cudaSurfaceObject_t s1, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float v = surf2Dread<float>(s2, x * 4, y);
    float n = surf2Dread<float>(s2, (x + 1) * 4, y, cudaBoundaryModeClamp);
    float z = surf2Dread<float>(s2, x * 4, y + 1, cudaBoundaryModeZero);
    surf2Dwrite(v + n + z, s2, x * 4, y);
    uchar4 c = make_uchar4(x & 255, y & 255, 0, 255);
    surf1Dwrite(c, s1, x * 4, cudaBoundaryModeTrap);
    int width, height;
    asm("txq.width.b32 %0, [%1];" : "=r"(width) : "l"(s2));
    asm("suq.height.b32 %0, [%1];" : "=r"(height) : "l"(s2));
    if (x == 0 && y == 0) surf2Dwrite((float)(width + height), s2, 0, 0);
}
