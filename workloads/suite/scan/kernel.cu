// Block-level inclusive scan of s32 (exact): each 256-thread block scans its 256 elements with
// warp shuffles (shfl.up), then adds the scanned warp totals passed through shared memory.
#define BLOCK 256

extern "C" __global__ void scan_block(const int* in, int* out, int n)
{
    __shared__ int warp_sums[BLOCK / 32];
    int i = blockIdx.x * BLOCK + threadIdx.x;
    unsigned lane = threadIdx.x & 31, warp = threadIdx.x / 32;
    int v = i < n ? in[i] : 0;
#pragma unroll
    for (int d = 1; d < 32; d *= 2) {
        int t = __shfl_up_sync(0xffffffffu, v, d);
        if (lane >= d) v += t;
    }
    if (lane == 31) warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        int w = lane < BLOCK / 32 ? warp_sums[lane] : 0;
#pragma unroll
        for (int d = 1; d < BLOCK / 32; d *= 2) {
            int t = __shfl_up_sync(0xffffffffu, w, d);
            if (lane >= d) w += t;
        }
        if (lane < BLOCK / 32) warp_sums[lane] = w;
    }
    __syncthreads();
    if (warp > 0) v += warp_sums[warp - 1];
    if (i < n) out[i] = v;
}
