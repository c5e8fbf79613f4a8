// WMMA in SASS mode (sass/tests/wmma.rs): ptxas turns `wmma.mma` into `HMMA.16816` / `HMMA.1688`
// / `HMMA.1684` with no `mma.sync` in the PTX, so the lowering takes the form from the opcode.
// Each warp multiplies tiles loaded straight from global memory (row- and column-major A and B,
// a loaded or zero accumulator) and stores D row-major; small integer inputs keep every sum exact.
#include <mma.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
using namespace nvcuda;

// f16 x f16 -> f32, m16n16k16, K = 32 (two mma steps), A row-major, B col-major, C loaded.
extern "C" __global__ void wmma_f16_f32(const half *a, const half *b, const float *c, float *d)
{
    int w = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    const half *A = a + w * 16 * 32, *B = b + w * 32 * 16;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::load_matrix_sync(acc, c + w * 256, 16, wmma::mem_row_major);
    for (int k = 0; k < 32; k += 16) {
        wmma::load_matrix_sync(fa, A + k, 32);
        wmma::load_matrix_sync(fb, B + k, 32);
        wmma::mma_sync(acc, fa, fb, acc);
    }
    wmma::store_matrix_sync(d + w * 256, acc, 16, wmma::mem_row_major);
}

// f16 x f16 -> f16, m16n16k16, A col-major, B row-major, zero accumulator; D col-major.
extern "C" __global__ void wmma_f16_f16(const half *a, const half *b, half *d)
{
    int w = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::col_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, half> acc;
    wmma::fill_fragment(acc, __float2half(0.0f));
    wmma::load_matrix_sync(fa, a + w * 256, 16);
    wmma::load_matrix_sync(fb, b + w * 256, 16);
    wmma::mma_sync(acc, fa, fb, acc);
    wmma::store_matrix_sync(d + w * 256, acc, 16, wmma::mem_col_major);
}

// bf16 x bf16 -> f32, m32n8k16 (A 32x16 row-major, B 16x8 row-major), zero accumulator.
extern "C" __global__ void wmma_bf16(const __nv_bfloat16 *a, const __nv_bfloat16 *b, float *d)
{
    int w = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    wmma::fragment<wmma::matrix_a, 32, 8, 16, __nv_bfloat16, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 32, 8, 16, __nv_bfloat16, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 32, 8, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    wmma::load_matrix_sync(fa, a + w * 512, 16);
    wmma::load_matrix_sync(fb, b + w * 128, 8);
    wmma::mma_sync(acc, fa, fb, acc);
    wmma::store_matrix_sync(d + w * 256, acc, 8, wmma::mem_row_major);
}

// tf32 x tf32 -> f32, m16n16k8, A row-major, B col-major, C loaded.
extern "C" __global__ void wmma_tf32(const float *a, const float *b, const float *c, float *d)
{
    int w = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 8, float> acc;
    wmma::load_matrix_sync(fa, a + w * 128, 8);
    wmma::load_matrix_sync(fb, b + w * 128, 8);
    for (int i = 0; i < fa.num_elements; i++) fa.x[i] = wmma::__float_to_tf32(fa.x[i]);
    for (int i = 0; i < fb.num_elements; i++) fb.x[i] = wmma::__float_to_tf32(fb.x[i]);
    wmma::load_matrix_sync(acc, c + w * 256, 16, wmma::mem_row_major);
    wmma::mma_sync(acc, fa, fb, acc);
    wmma::store_matrix_sync(d + w * 256, acc, 16, wmma::mem_row_major);
}
