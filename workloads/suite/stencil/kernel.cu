// 2D 5-point stencil on a width x height f32 grid: out = c0*in + c1*(north+south+east+west) in
// the interior, out = in on the border. 2D blocks; neighbours come through L1.
extern "C" __global__ void stencil5(const float* in, float* out, int width, int height, float c0, float c1)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    int i = y * width + x;
    if (x == 0 || y == 0 || x == width - 1 || y == height - 1) {
        out[i] = in[i];
    } else {
        out[i] = c0 * in[i] + c1 * (in[i - width] + in[i + width] + in[i - 1] + in[i + 1]);
    }
}
