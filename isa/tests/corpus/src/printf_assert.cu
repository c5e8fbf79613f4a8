// printf (-> `call.uni (retval), vprintf, (fmt, args)` with a local-memory argument buffer and
// format strings as `.global .align 1 .b8 $str[N]`), assert (-> __assertfail with file/line/function
// strings), __trap() (trap;), __brkpt() (brkpt;), inline `exit;` and `pmevent`.
// Compiles for sm_75+.
#ifndef __CUDACC_RTC__
#include <cstdio>
#include <cassert>
#endif

extern "C" __global__ void printf_kinds(const float *x, int n)
{
    int t = threadIdx.x;
    if (t == 0) printf("block %d of %d\n", blockIdx.x, gridDim.x);
    if (t < n) printf("t=%u x=%f d=%e ll=%lld p=%p s=%s c=%c\n", t, x[t], (double)x[t] * 2.0,
                      (long long)t << 40, (void *)x, "str", 'A' + (t & 15));
    printf("no args\n");
}

extern "C" __global__ void assert_and_trap(const int *in, int *out)
{
    int v = in[threadIdx.x];
    assert(v >= 0);
    assert(v < 1000 && "value in range");
    if (v == 999) __trap();
    if (v == 998) __brkpt();
    if (v == 997) asm volatile("exit;");
    if (v == 996) asm volatile("pmevent 1;");
    out[threadIdx.x] = v * 2;
}
