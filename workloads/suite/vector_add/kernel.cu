// c[i] = a[i] + b[i]: the streaming baseline (3 x 4 bytes per element, one f32 add).
extern "C" __global__ void vector_add(const float* a, const float* b, float* c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
