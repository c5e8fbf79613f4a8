// Branch divergence: each thread runs one of four integer loops of different lengths (8, 16, 32
// and 0 iterations). mode 0 picks the path from the data (in[i] & 3: all four paths in every
// warp, serialised); mode 1 from the warp index ((i >> 5) & 3: warp-uniform, no divergence).
// The reference in src/reference.rs (divergent_path) must stay in step with these loops.
extern "C" __global__ void divergent(const unsigned* in, unsigned* out, int n, int mode)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned v = in[i];
    unsigned path = mode == 0 ? (v & 3) : ((i >> 5) & 3);
    unsigned r;
    if (path == 0) {
        r = v;
        for (int k = 0; k < 8; ++k) r = r * 1664525u + 1013904223u;
    } else if (path == 1) {
        r = v ^ 0x9e3779b9u;
        for (unsigned k = 0; k < 16; ++k) r = (r << 5) ^ (r >> 3) ^ k;
    } else if (path == 2) {
        r = ~v;
        for (unsigned k = 0; k < 32; ++k) r += (r >> 1) ^ k;
    } else {
        r = v * 3u;
    }
    out[i] = r;
}
