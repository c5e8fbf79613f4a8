// y[i] = a * x[i] + y[i], in place. nvcc contracts the expression to one fma.rn.f32.
extern "C" __global__ void saxpy(float a, const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
