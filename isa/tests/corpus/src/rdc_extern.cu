// Separate compilation (compiled with -rdc=true; see the corpus-flags line): calls to an external
// device function (-> `.extern .func` prototype), external and managed variables
// (`.extern .global`, `.global .attribute(.managed)`), __device__ functions and variables that stay
// visible (`.visible .func`, `.visible .global`), weak template instances (`.weak .func`), and
// a kernel that references a device function defined in another translation unit by pointer.
// corpus-flags: -rdc=true

extern __device__ float external_scale(float x, int mode);       // defined elsewhere (not linked here)
extern __device__ int external_table[];                         // defined elsewhere
__device__ __managed__ int managed_counter = 5;
__device__ int visible_var = 42;
__device__ float visible_array[4] = {1.0f, 2.0f, 3.0f, 4.0f};

__device__ __noinline__ int visible_helper(int a, int b) { return a * b + visible_var; }

template <typename T>
__device__ __noinline__ T twice(T v) { return v + v; }

extern "C" __global__ void rdc_kernel(float *out, int *iout)
{
    int t = threadIdx.x;
    out[t] = external_scale(visible_array[t & 3], t) + twice(1.5f);
    iout[t] = visible_helper(t, external_table[t & 7]) + twice(t) + atomicAdd(&managed_counter, 1);
}
