// The same float expressions as float_math.cu's library calls, compiled with -use_fast_math
// (see the corpus-flags line): division becomes div.full/div.approx, sqrt sqrt.approx, transcendental
// functions their .approx.ftz SFU forms, and every f32 op gains .ftz. Compiles for sm_75+.
// corpus-flags: -use_fast_math

extern "C" __global__ void fastmath_ops(const float *a, const float *b, float *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float x = a[i], y = b[i];
    float r = x / y + sqrtf(fabsf(x)) + 1.0f / y + rsqrtf(fabsf(y) + 1.0f);
    r += sinf(x) + cosf(y) + expf(x * 0.1f) + logf(fabsf(y) + 1.0f) + powf(fabsf(x), 1.5f) + tanf(x);
    r += exp10f(y * 0.01f) + log2f(fabsf(x) + 1.0f) + tanhf(x) + x * y + fmaf(x, y, r);
    double d = (double)x / (double)y;                     // f64 is not affected by -use_fast_math
    out[i] = r + (float)d;
}
