// Double-precision SASS lowering check (sass/tests/fp64.rs): every f64 operation nvcc emits for
// these, each result in its own slot, so that SASS mode and PTX mode can be compared bitwise.
// Regenerate (CUDA 13.0.88 from tools/setup_cuda_wheels.sh):
//   nvcc -arch=sm_80 -ptx -lineinfo -o kernel.ptx kernel.cu
//   for t in sm_80 sm_90; do ptxas -arch=$t -lineinfo -o k.cubin kernel.ptx &&
//     nvdisasm -c -hex -gi -gp k.cubin | tr -s " " > kernel.$t.sass; done
#define K 40
extern "C" __global__ void fp64_ops(const double* a, const double* b, const double* c, const float* f,
                                    const long long* l, double* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double x = a[i], y = b[i], z = c[i];
    double* o = out + (size_t)i * K;
    o[0] = x + y;
    o[1] = x - y;
    o[2] = x * y;
    o[3] = fma(x, y, z);
    o[4] = fma(-x, y, z);
    o[5] = fma(x, fabs(y), -z);
    o[6] = x / y;
    o[7] = 1.0 / y;
    o[8] = sqrt(x);
    o[9] = rsqrt(y);
    o[10] = fmin(x, y);
    o[11] = fmax(x, y);
    o[12] = -x;
    o[13] = fabs(y);
    o[14] = x * 0.5 + 3.0;
    o[15] = (double)(x < y) + 2.0 * (x <= y) + 4.0 * (x > y) + 8.0 * (x >= y) + 16.0 * (x == y) + 32.0 * (x != y) +
            64.0 * isnan(x) + 128.0 * isinf(y) + 256.0 * !(x < y) + 512.0 * !(x >= y);
    o[16] = floor(x);
    o[17] = ceil(y);
    o[18] = trunc(x);
    o[19] = rint(y);
    o[20] = (double)f[i];
    float g = (float)x;
    o[21] = __longlong_as_double((long long)__float_as_int(g));
    o[22] = __longlong_as_double((long long)__float_as_int(__double2float_rz(y)));
    o[23] = __longlong_as_double((long long)(int)x);
    o[24] = __longlong_as_double((long long)(unsigned)y);
    o[25] = __longlong_as_double((long long)x);
    o[26] = __longlong_as_double((long long)(unsigned long long)y);
    o[27] = __longlong_as_double((long long)__double2int_rn(x));
    o[28] = __longlong_as_double(__double2ll_rd(y));
    o[29] = (double)(int)l[i];
    o[30] = (double)l[i];
    o[31] = (double)(unsigned long long)l[i];
    o[32] = (double)(unsigned)l[i];
    o[33] = __longlong_as_double((long long)__float_as_int((float)l[i]));
    o[34] = __longlong_as_double((long long)__float_as_int((float)(unsigned long long)l[i]));
    o[35] = __longlong_as_double((long long)__float_as_int(__ll2float_rz(l[i])));
    o[36] = __longlong_as_double((long long)(long long)f[i]);
    o[37] = __longlong_as_double((long long)(unsigned long long)f[i]);
    o[38] = __dadd_rz(x, y) + __dmul_ru(x, z) + __fma_rd(x, y, z);
    o[39] = copysign(x, y) + (x > 0 ? x : -y);
}
