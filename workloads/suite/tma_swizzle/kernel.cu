// One 2D TMA box load with 128-byte swizzle. The tensor map describes `in` (bf16, 64 x 64 boxes:
// 128-byte box rows, the largest the 128B swizzle allows); CTA (bx, by) loads box (bx, by) into a
// 1024-byte aligned shared buffer. The TMA stores 16-byte chunk j of box row r at chunk
// j ^ (r mod 8) of that row (shared-memory address bits [6:4] ^= bits [9:7]). The kernel reads the
// box back through that formula, applied to the absolute shared address, and writes a plain copy to
// `out` (so a wrong swizzle model breaks the copy), and writes the raw shared-memory image of its box
// to `smem_image` (box index by*gridDim.x + bx), so the byte layout itself is checked bit-exactly.

#include "../include/hopper.cuh"

constexpr int BOX_W = 64;                       // the manifest's box = [64, 64] (bf16)
constexpr int BOX_H = 64;
constexpr unsigned ROW_BYTES = BOX_W * 2;       // 128: one swizzle span
constexpr unsigned BOX_BYTES = ROW_BYTES * BOX_H;
constexpr unsigned CHUNKS = BOX_BYTES / 16;

extern "C" __global__ void __launch_bounds__(128)
tma_swizzle128(const __grid_constant__ TensorMap in_map, uint4* out, uint4* smem_image)
{
    __shared__ alignas(1024) uint4 box[CHUNKS];
    __shared__ alignas(8) unsigned long long full;
    const unsigned bar = smem_u32(&full);

    if (threadIdx.x == 0) {
        mbar_init(bar, 1);
        fence_mbarrier_init();
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        mbar_arrive_expect_tx(bar, BOX_BYTES);
        tma_load_2d(smem_u32(box), &in_map, blockIdx.x * BOX_W, blockIdx.y * BOX_H, bar);
    }
    mbar_wait(bar, 0);

    const unsigned base = smem_u32(box);
    const unsigned out_row_chunks = gridDim.x * (ROW_BYTES / 16);
    uint4* image = smem_image + (size_t)(blockIdx.y * gridDim.x + blockIdx.x) * CHUNKS;
    for (unsigned i = threadIdx.x; i < CHUNKS; i += blockDim.x) {
        const unsigned r = i / (ROW_BYTES / 16), j = i % (ROW_BYTES / 16);
        // where the TMA put chunk j of row r: the 128B swizzle of its unswizzled address
        const unsigned a = base + r * ROW_BYTES + j * 16;
        const unsigned swizzled = a ^ (((a >> 7) & 7) << 4);
        out[(size_t)(blockIdx.y * BOX_H + r) * out_row_chunks + blockIdx.x * (ROW_BYTES / 16) + j] =
            box[(swizzled - base) / 16];
        image[i] = box[i];
    }
}
