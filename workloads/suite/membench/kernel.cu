// membench: memory-shape microbenchmarks at study scale (working sets of 1 MiB to 128 MiB, so the
// 50 MiB L2 and DRAM matter), FIT workloads for the L1/L2/DRAM model: strided loads and stores,
// partial-sector (byte, 2-byte) stores, row vs column walks, random gathers and a permutation
// scatter, global atomics (RED, returning atomicAdd, a CAS retry loop), an L2-capacity sweep and
// a CSR SpMV over power-law rows. Plain CUDA C, no headers, `extern "C"` entry points; 32-bit
// words everywhere (u32 unless said otherwise). Grid-stride loops let one wave of CTAs cover a
// large buffer. The manifests (suite/membench/*.toml) pick sizes and strides through the scalars.

typedef unsigned int u32;

// --- strided loads: out[i] = in[i * stride + offset] --------------------------------------------
// A warp's load touches min(32, 4 * stride) sectors (4-byte words); stride 32 gives one line per
// lane, 128 MiB of address range for 1 Mi elements.
extern "C" __global__ void load_strided(const u32* in, u32* out, int n, int stride, int offset)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        out[i] = in[(long long)i * stride + offset];
}

// --- strided and narrow stores: out[i * stride] = in[i] -----------------------------------------
// 4-byte words at word stride 1, 2, 8, 32 (a warp's store writes 4..32 sectors, each partly at
// stride >= 2), and 1- and 2-byte stores (a warp writes 32 / 64 contiguous bytes, one byte or one
// half-word per lane: every lane's write is a partial sector).
extern "C" __global__ void store_strided(const u32* in, u32* out, int n, int stride)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        out[(long long)i * stride] = in[i];
}

extern "C" __global__ void store_u8(const u32* in, unsigned char* out, int n, int stride)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        out[(long long)i * stride] = (unsigned char)in[i];
}

extern "C" __global__ void store_u16(const u32* in, unsigned short* out, int n, int stride)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        out[(long long)i * stride] = (unsigned short)in[i];
}

// --- row and column walks of a row-major matrix ------------------------------------------------
// Thread t sums `len` words from base(t) = (t % m) * s0 + (t / m) * s1, stepping by ks:
//   row walk:    m = rows, s0 = cols, s1 = len, ks = 1     (each lane walks its own row segment:
//                a warp's load touches 32 lines, each line reused by its lane for 32 steps)
//   column walk: m = cols, s0 = 1, s1 = len * cols, ks = cols (lanes on adjacent columns:
//                every load is one coalesced 128-byte line)
extern "C" __global__ void walk_sum(const u32* a, u32* out, int threads, int m, int s0, int s1, int len, int ks)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= threads) return;
    const u32* p = a + (long long)(t % m) * s0 + (long long)(t / m) * s1;
    u32 s = 0;
    for (int k = 0; k < len; k++) s += p[(long long)k * ks];
    out[t] = s;
}

// --- random gather and permutation scatter -----------------------------------------------------
// gather: out[i] = in[idx[i]] with idx uniform over the footprint (each lane its own sector);
// scatter: out[perm[i]] = in[i] with perm a permutation (coalesced reads, random 4-byte writes).
extern "C" __global__ void gather(const u32* idx, const u32* in, u32* out, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        out[i] = in[idx[i]];
}

extern "C" __global__ void scatter(const u32* perm, const u32* in, u32* out, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        out[perm[i]] = in[i];
}

// --- global atomics ------------------------------------------------------------------------------
// red_bins: counters[i % nbins] += in[i] with the result unused (red.global.add.u32): nbins = 1,
// every update on one word; 32, one line per warp, all warps on it; 4096, 128 lines; 1 Mi, one
// update per word (no contention).
extern "C" __global__ void red_bins(const u32* in, u32* counters, int n, int nbins)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&counters[i % nbins], in[i]);
}

// red_lines / atom_lines: counters[(i % nlines) * 32] += in[i]: every lane of a warp updates its
// own 128-byte line (one word each) for nlines >= 32, so a slice's atomic unit sees one-word
// requests; nlines sweeps how many lines (and slices) share the 1 Mi updates. atom_lines uses
// the old value (ATOM, not RED): a flag nobody sets unless a counter wraps.
extern "C" __global__ void red_lines(const u32* in, u32* counters, int n, int nlines)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&counters[(i % nlines) * 32], in[i]);
}

extern "C" __global__ void atom_lines(const u32* in, u32* counters, u32* flag, int n, int nlines)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        u32 old = atomicAdd(&counters[(i % nlines) * 32], in[i]);
        if (old == 0xFFFFFFFFu) flag[0] = 1;
    }
}

// red_f32_bins / red_f32_lines: the same reductions on f32 (`red.global.add.f32`), whose adds
// the L2 may apply differently from integer ones. Inputs are small integers: exact sums.
extern "C" __global__ void red_f32_bins(const float* in, float* counters, int n, int nbins)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&counters[i % nbins], in[i]);
}

extern "C" __global__ void red_f32_lines(const float* in, float* counters, int n, int nlines)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&counters[(i % nlines) * 32], in[i]);
}

// red64_lines / redmax64_lines: the red_lines walk on 64-bit counters, one per 128-byte line
// (counters[(i % nlines) * 16]): `red.global.add.u64` and `red.global.max.s64`, whose L2 atomic
// unit may take longer than a 32-bit add's. The max adds 3 in[i] - 2^40 (negative: signed).
extern "C" __global__ void red64_lines(const u32* in, unsigned long long* counters, int n, int nlines)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&counters[(i % nlines) * 16], (unsigned long long)in[i]);
}

extern "C" __global__ void redmax64_lines(const u32* in, long long* counters, int n, int nlines)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicMax(&counters[(i % nlines) * 16], (long long)in[i] * 3 - (1ll << 40));
}

// atomic_ticket: the returned old value is used (atom.global.add.u32): update i takes ticket
// t = atomicAdd(&counters[b], 1), b = i % nbins, and writes b + 1 to out[b + t * nbins]. Whatever
// the order, the tickets of counter b are 0 .. count_b - 1, so out[j] = j % nbins + 1 for j < n.
extern "C" __global__ void atomic_ticket(u32* counters, u32* out, int n, int nbins)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        u32 b = i % nbins;
        u32 t = atomicAdd(&counters[b], 1u);
        out[b + (long long)t * nbins] = b + 1;
    }
}

// cas_fadd: counters[i % nbins] += in[i] in f32 through an atomicCAS retry loop (the pre-sm_20
// idiom for a float atomic): lanes of one warp on one word serialise, one success per round.
// Inputs are small integers, so every sum is exact and independent of the order.
extern "C" __global__ void cas_fadd(const float* in, float* counters, int n, int nbins)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        u32* p = (u32*)&counters[i % nbins];
        float v = in[i];
        u32 old = *p, assumed;
        do {
            assumed = old;
            old = atomicCAS(p, assumed, __float_as_uint(__uint_as_float(assumed) + v));
        } while (assumed != old);
    }
}

// --- L2-capacity sweep ---------------------------------------------------------------------------
// `reps` passes over `lines` words `stride` words apart (stride 32: one 4-byte word per 128-byte
// line), each pass a grid-stride loop, loads with ld.global.cg (L2 only: L1 would hold the small
// footprints). Every pass touches every line once, so from the second pass on the L2 hit rate
// says whether `lines * 128` bytes fit. One load in flight per thread (the add waits for it), but
// each warp load asks for 32 sectors: the same memory-level parallelism for every footprint.
// out[t] = the thread's u32 sum.
extern "C" __global__ void line_sweep(const u32* buf, u32* out, int lines, int reps, int stride)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int threads = gridDim.x * blockDim.x;
    u32 s = 0;
    for (int r = 0; r < reps; r++)
        for (int l = t; l < lines; l += threads) s += __ldcg(&buf[(long long)l * stride]);
    out[t] = s;
}

// --- CSR SpMV, one warp per row ------------------------------------------------------------------
// y = A x over rows of power-law lengths (row_ptr from suite/membench/skew_row_ptr.bin): lanes
// stride the row's entries (coalesced col_idx / vals, random x), then a shfl.xor butterfly. Warps
// loop over rows grid-stride. Small-integer values make every sum exact.
extern "C" __global__ void spmv_csr_warp(const int* row_ptr, const int* col_idx, const float* vals, const float* x, float* y, int rows)
{
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    int warps = (gridDim.x * blockDim.x) >> 5;
    int lane = threadIdx.x & 31;
    for (int r = warp; r < rows; r += warps) {
        float s = 0.0f;
        for (int j = row_ptr[r] + lane; j < row_ptr[r + 1]; j += 32) s += vals[j] * x[col_idx[j]];
#pragma unroll
        for (int d = 16; d > 0; d >>= 1) s += __shfl_xor_sync(0xffffffffu, s, d);
        if (lane == 0) y[r] = s;
    }
}

// --- launch footprint: kernels whose code is N FFMAs long ---------------------------------------
// out[t] = x[t] iterated v = fmaf(v, a, b) `iters` times, in passes of N unrolled steps (iters a
// multiple of N; 0 runs none of the long body). The L2 read sectors such a launch costs beyond its
// 256 bytes of data per warp measure what instruction fetch and the launch itself read through
// the L2, against code size (N), CTAs, and code that is present but never executed (iters = 0).
#define CODE_CHAIN(N)                                                                              \
    extern "C" __global__ void code_chain_##N(const float* x, float* out, float a, float b, int iters) \
    {                                                                                              \
        int t = blockIdx.x * blockDim.x + threadIdx.x;                                             \
        float v = x[t];                                                                            \
        for (int k = 0; k < iters; k += N) {                                                       \
            _Pragma("unroll") for (int j = 0; j < N; j++) v = fmaf(v, a, b);                       \
        }                                                                                          \
        out[t] = v;                                                                                \
    }
CODE_CHAIN(256)
CODE_CHAIN(1024)
CODE_CHAIN(4096)

// --- keyed reductions: bins[in[i]] += 1 with random keys (RED, result unused) --------------------
// A warp's 32 random keys over `len(bins)` words touch min(32, lines) lines with several lanes on
// each line when bins are few: the contended, multi-line RED requests of a real histogram.
extern "C" __global__ void red_keyed(const u32* in, u32* bins, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&bins[in[i]], 1u);
}

// --- permutation scatter of 8-byte words: out[perm[i]] = in[i] ----------------------------------
// Each lane's random write is a quarter of a sector (the 4-byte `scatter` writes an eighth).
extern "C" __global__ void scatter_u64(const u32* perm, const unsigned long long* in, unsigned long long* out, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        out[perm[i]] = in[i];
}

// --- returning atomics over bins: counters[i % nbins] += in[i], the old value used (ATOM) -------
// The `red_{K}` shape with the result read, without `atomic_ticket`'s output indexed by it (so
// repeated launches stay in bounds): a flag nobody sets unless a counter wraps.
extern "C" __global__ void atom_bins(const u32* in, u32* counters, u32* flag, int n, int nbins)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        u32 old = atomicAdd(&counters[i % nbins], in[i]);
        if (old == 0xFFFFFFFFu) flag[0] = 1;
    }
}

// --- two passes over rows, one warp per row: the row's max (lane-strided loads, shfl.xor
// butterfly), then out = in ^ max, the row read a second time. A 16 KiB row per warp: one CTA of
// 8 warps reads 128 KiB per pass, so whether the second pass finds the rows in L1 depends on how
// many CTAs share the SM.
extern "C" __global__ void row_xor_max(const u32* in, u32* out, int rows, int cols)
{
    int row = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    int lane = threadIdx.x & 31;
    if (row >= rows) return;
    const u32* src = in + (size_t)row * cols;
    u32* dst = out + (size_t)row * cols;
    u32 m = 0;
    for (int c = lane; c < cols; c += 32) m = max(m, src[c]);
    for (int d = 16; d > 0; d >>= 1) m = max(m, __shfl_xor_sync(0xffffffffu, m, d));
    for (int c = lane; c < cols; c += 32) dst[c] = src[c] ^ m;
}

// --- memory-level parallelism: coalesced streams with a set number of loads in flight ------------
// The `line_sweep` sum at stride 1 (plain loads, through L1) with the loop shape fixed: one load per
// iteration (`stream_sum_1`, unroll 1: the next load issues after the sum waits on this one) or
// four independent loads per iteration (`stream_sum_4`; lines a multiple of 4 x the thread count).
// With warps per SM set by the grid these trace the loaded latency of DRAM (one pass over a
// buffer larger than the L2) and of L2 hits (many passes over 8 MiB): bytes in flight / bandwidth.
extern "C" __global__ void stream_sum_1(const u32* buf, u32* out, int lines, int reps, int stride)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int threads = gridDim.x * blockDim.x;
    u32 s = 0;
    for (int r = 0; r < reps; r++) {
#pragma unroll 1
        for (int l = t; l < lines; l += threads) s += buf[(long long)l * stride];
    }
    out[t] = s;
}

extern "C" __global__ void stream_sum_4(const u32* buf, u32* out, int lines, int reps, int stride)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int threads = gridDim.x * blockDim.x;
    u32 s = 0;
    for (int r = 0; r < reps; r++) {
#pragma unroll 1
        for (int l = t; l < lines; l += 4 * threads) {
            u32 a = buf[(long long)l * stride], b = buf[(long long)(l + threads) * stride];
            u32 c = buf[(long long)(l + 2 * threads) * stride], d = buf[(long long)(l + 3 * threads) * stride];
            s += (a + b) + (c + d);
        }
    }
    out[t] = s;
}

// stream_fill: coalesced stores only, out[i] = i ^ 0x9E3779B9 over a grid-stride loop, reps passes
// (each rewrites the same values), one store per iteration.
extern "C" __global__ void stream_fill(u32* out, int n, int reps)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int threads = gridDim.x * blockDim.x;
    for (int r = 0; r < reps; r++) {
#pragma unroll 1
        for (int i = t; i < n; i += threads) out[i] = (u32)i ^ 0x9E3779B9u;
    }
}

// --- Branch divergence: a switch as a compare tree and as a jump table -------------------------
// The same 12-case switch (+ default) `iters` times per element, two ways. switch_tree switches on
// (sel[i] + k) & 15, a value the compiler can bound: ptxas keeps nvcc's tree of compares and BRAs.
// switch_table switches on a loaded int, sel[(k & 3) * n + i]: ptxas turns the tree's leaves into
// BRX jump tables. sel = const gives every lane of a warp the same case (uniform branches); sel
// drawn from 0..d-1 gives d cases per warp per iteration. Measures what a divergent direct and
// indirect branch costs per extra target. out[i] = the u32 after the cases.
__device__ __forceinline__ u32 switch_case(u32 v, int c, int k)
{
    switch (c) {
    case 0: v = v * 3u + 1u; break;
    case 1: v ^= v >> 3; break;
    case 2: v += 0x9E37u; break;
    case 3: v = (v << 5) | (v >> 27); break;
    case 4: v -= (u32)k; break;
    case 5: v = v * v + 7u; break;
    case 6: v ^= 0x55AA55AAu; break;
    case 7: v += v >> 1; break;
    case 8: v = ~v; break;
    case 9: v = v * 0x2545F491u; break;
    case 10: v = min(v, 0xC0000000u) + 5u; break;
    case 11: v = (v >> 7) + v * 9u; break;
    default: v = v - (v >> 2); break;
    }
    return v;
}

extern "C" __global__ void switch_tree(const int* sel, u32* out, int n, int iters)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        u32 v = (u32)i;
        int s = sel[i];
        for (int k = 0; k < iters; k++) v = switch_case(v, (s + k) & 15, k);
        out[i] = v;
    }
}

extern "C" __global__ void switch_table(const int* sel, u32* out, int n, int iters)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        u32 v = (u32)i;
        for (int k = 0; k < iters; k++) v = switch_case(v, sel[(k & 3) * n + i], k);
        out[i] = v;
    }
}
