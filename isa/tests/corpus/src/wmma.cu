// Warp matrix multiply (nvcuda::wmma, mma.h): f16 inputs with f32 and f16 accumulators
// (m16n16k16, m32n8k16, m8n32k16), int8 (s8/u8 -> s32), sub-byte u4 and b1 (experimental, sm_75+),
// and from sm_80 on: tf32 (m16n16k8), bf16 (m16n16k16), f64 (m8n8k4). Row/col layouts, load with
// leading dimension, store_matrix_sync in both layouts, fill_fragment and per-element fragment access.
// -> wmma.load.a.sync.aligned.row.m16n16k16.global.f16 / wmma.mma.sync.aligned... / wmma.store.d...
// Compiles for sm_75+ (tf32/bf16/f64 kernels have empty bodies below sm_80).
#include <mma.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
using namespace nvcuda;

extern "C" __global__ void wmma_f16_f32(const half *a, const half *b, const float *c, float *d, int lda, int ldb)
{
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::load_matrix_sync(acc, c, 16, wmma::mem_row_major);
    for (int k = 0; k < lda; k += 16) {
        wmma::load_matrix_sync(fa, a + k, lda);
        wmma::load_matrix_sync(fb, b + k, ldb);
        wmma::mma_sync(acc, fa, fb, acc);
    }
    for (int i = 0; i < acc.num_elements; ++i) acc.x[i] = fmaxf(acc.x[i], 0.0f);   // relu on fragment
    wmma::store_matrix_sync(d, acc, 16, wmma::mem_col_major);
}

extern "C" __global__ void wmma_f16_f16_shapes(const half *a, const half *b, half *d)
{
    // accumulate in half, three shapes, operands staged through shared memory
    __shared__ half sa[32 * 16], sb[16 * 32];
    for (int i = threadIdx.x; i < 32 * 16; i += 32) { sa[i] = a[i]; sb[i] = b[i]; }
    __syncwarp();
    wmma::fragment<wmma::matrix_a, 32, 8, 16, half, wmma::row_major> a1;
    wmma::fragment<wmma::matrix_b, 32, 8, 16, half, wmma::row_major> b1;
    wmma::fragment<wmma::accumulator, 32, 8, 16, half> c1;
    wmma::fill_fragment(c1, __float2half(0.5f));
    wmma::load_matrix_sync(a1, sa, 16);
    wmma::load_matrix_sync(b1, sb, 8);
    wmma::mma_sync(c1, a1, b1, c1);
    wmma::store_matrix_sync(d, c1, 8, wmma::mem_row_major);
    wmma::fragment<wmma::matrix_a, 8, 32, 16, half, wmma::col_major> a2;
    wmma::fragment<wmma::matrix_b, 8, 32, 16, half, wmma::col_major> b2;
    wmma::fragment<wmma::accumulator, 8, 32, 16, half> c2;
    wmma::fill_fragment(c2, __float2half(0.0f));
    wmma::load_matrix_sync(a2, sa, 8);
    wmma::load_matrix_sync(b2, sb, 16);
    wmma::mma_sync(c2, a2, b2, c2);
    wmma::store_matrix_sync(d + 256, c2, 32, wmma::mem_col_major);
}

extern "C" __global__ void wmma_int8(const signed char *a, const signed char *b, const unsigned char *ua,
                                     const unsigned char *ub, int *d)
{
    wmma::fragment<wmma::matrix_a, 16, 16, 16, signed char, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, signed char, wmma::col_major> fb;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, unsigned char, wmma::row_major> ufa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, unsigned char, wmma::col_major> ufb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, int> acc;
    wmma::fill_fragment(acc, 0);
    wmma::load_matrix_sync(fa, a, 16);
    wmma::load_matrix_sync(fb, b, 16);
    wmma::mma_sync(acc, fa, fb, acc, true);           // saturating (.satfinite)
    wmma::load_matrix_sync(ufa, ua, 16);
    wmma::load_matrix_sync(ufb, ub, 16);
    wmma::mma_sync(acc, ufa, ufb, acc);
    wmma::store_matrix_sync(d, acc, 16, wmma::mem_row_major);
}

extern "C" __global__ void wmma_subbyte(const unsigned *a4, const unsigned *b4, const unsigned *a1, const unsigned *b1,
                                        int *d)
{
    using namespace nvcuda::wmma::experimental;
    wmma::fragment<wmma::matrix_a, 8, 8, 32, precision::u4, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 8, 8, 32, precision::u4, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 8, 8, 32, int> acc;
    wmma::fill_fragment(acc, 0);
    wmma::load_matrix_sync(fa, a4, 32);
    wmma::load_matrix_sync(fb, b4, 32);
    wmma::mma_sync(acc, fa, fb, acc);
    wmma::store_matrix_sync(d, acc, 8, wmma::mem_row_major);
    wmma::fragment<wmma::matrix_a, 8, 8, 128, precision::b1, wmma::row_major> ba;
    wmma::fragment<wmma::matrix_b, 8, 8, 128, precision::b1, wmma::col_major> bb;
    wmma::fragment<wmma::accumulator, 8, 8, 128, int> bacc;
    wmma::fill_fragment(bacc, 0);
    wmma::load_matrix_sync(ba, a1, 128);
    wmma::load_matrix_sync(bb, b1, 128);
    wmma::bmma_sync(bacc, ba, bb, bacc, wmma::experimental::bmmaBitOpXOR, wmma::experimental::bmmaAccumulateOpPOPC);
    wmma::store_matrix_sync(d + 64, bacc, 8, wmma::mem_row_major);
}

extern "C" __global__ void wmma_tf32_bf16_f64(const float *af, const float *bf, float *df,
                                              const __nv_bfloat16 *ab, const __nv_bfloat16 *bb, float *db,
                                              const double *ad, const double *bd, double *dd)
{
#if __CUDA_ARCH__ >= 800
    wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> ta;
    wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::col_major> tb;
    wmma::fragment<wmma::accumulator, 16, 16, 8, float> tc;
    wmma::fill_fragment(tc, 0.0f);
    wmma::load_matrix_sync(ta, af, 8);
    wmma::load_matrix_sync(tb, bf, 8);
    for (int i = 0; i < ta.num_elements; ++i) ta.x[i] = wmma::__float_to_tf32(ta.x[i]);   // cvt.rna.tf32.f32
    for (int i = 0; i < tb.num_elements; ++i) tb.x[i] = wmma::__float_to_tf32(tb.x[i]);
    wmma::mma_sync(tc, ta, tb, tc);
    wmma::store_matrix_sync(df, tc, 16, wmma::mem_row_major);

    wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> ba;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> bbf;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> bc;
    wmma::fill_fragment(bc, 0.0f);
    wmma::load_matrix_sync(ba, ab, 16);
    wmma::load_matrix_sync(bbf, bb, 16);
    wmma::mma_sync(bc, ba, bbf, bc);
    wmma::store_matrix_sync(db, bc, 16, wmma::mem_col_major);

    wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::row_major> da;
    wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::col_major> dbf;
    wmma::fragment<wmma::accumulator, 8, 8, 4, double> dc;
    wmma::fill_fragment(dc, 0.0);
    wmma::load_matrix_sync(da, ad, 4);
    wmma::load_matrix_sync(dbf, bd, 4);
    wmma::mma_sync(dc, da, dbf, dc);
    wmma::store_matrix_sync(dd, dc, 8, wmma::mem_row_major);
#endif
}
