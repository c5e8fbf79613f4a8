// Divergent control flow: if/else chains, nested divergence, early return, selp/ternaries,
// dense switch statements (nvcc lowers them to `brx.idx` over a `.branchtargets` label list)
// and sparse switches (compare chains). Compiles for sm_75+.

extern "C" __global__ void divergent_if(const int *in, int *out)
{
    int t = threadIdx.x;
    int v = in[t];
    int r;
    if (t & 1) {
        r = v * 3;
        if (v > 10) r -= 7; else r += 11;
    } else if (t % 3 == 0) {
        r = v / 5;
    } else {
        r = -v;
    }
    out[t] = r;
}

extern "C" __global__ void early_return(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = in[i];
    if (v != v) { out[i] = 0.0f; return; }          // NaN
    if (v < 0.0f) { out[i] = -v; return; }
    out[i] = v > 1.0f ? 1.0f : v * v;
}

__device__ __noinline__ int dense_switch(int op, int a, int b)
{
    switch (op) {
    case 0: return a + b;
    case 1: return a - b;
    case 2: return a * b;
    case 3: return b ? a / b : 0;
    case 4: return a & b;
    case 5: return a | b;
    case 6: return a ^ b;
    case 7: return a << (b & 31);
    case 8: return a >> (b & 31);
    case 9: return a < b ? a : b;
    case 10: return a > b ? a : b;
    case 11: return ~a;
    default: return -1;
    }
}

// A tiny bytecode interpreter: the dense switch becomes a jump table (brx.idx).
extern "C" __global__ void interpreter(const unsigned char *code, int ncode, const int *init, int *out)
{
    int acc = init[threadIdx.x];
    int reg = threadIdx.x + 1;
    for (int pc = 0; pc < ncode; ++pc) {
        unsigned op = code[pc];
        switch (op) {
        case 0: acc += reg; break;
        case 1: acc -= reg; break;
        case 2: acc *= reg; break;
        case 3: reg = acc; break;
        case 4: acc = dense_switch(reg & 15, acc, reg); break;
        case 5: acc ^= 0x5a5a5a5a; break;
        case 6: reg += 1; break;
        case 7: acc = __brev(acc); break;
        case 8: if (acc & 1) pc += 1; break;
        case 9: acc >>= 1; break;
        default: acc = 0; break;
        }
    }
    out[threadIdx.x] = acc;
}

extern "C" __global__ void sparse_switch(const int *in, int *out)
{
    int v = in[threadIdx.x];
    int r;
    switch (v) {
    case -1000: r = 1; break;
    case 7: r = 2; break;
    case 123456: r = 3; break;
    case 1 << 30: r = 4; break;
    default: r = 0;
    }
    out[threadIdx.x] = r;
}

extern "C" __global__ void select_minmax(const float *a, const float *b, float *out, int *flags)
{
    int t = threadIdx.x;
    float x = a[t], y = b[t];
    bool p = x < y;
    bool q = (x == y) || (x > 2.0f && y < -2.0f);
    out[t] = p ? x : y;
    flags[t] = (p ? 1 : 0) | (q ? 2 : 0) | ((x != x) ? 4 : 0);
}

// NVVM (nvcc 13 / NVRTC 13) lowers C `switch` to compare trees, never to jump tables, so the
// indirect branch `brx.idx` with a `.branchtargets` list is written here in inline PTX. The
// function is __noinline__ so the asm labels appear exactly once in the module.
__device__ __noinline__ int jump_table(int sel, int a)
{
    int r;
    asm volatile("{\n\t"
                 ".reg .u32 idx;\n\t"
                 "and.b32 idx, %1, 3;\n\t"
                 "Ltargets: .branchtargets Lcase0, Lcase1, Lcase2, Lcase3;\n\t"
                 "brx.idx idx, Ltargets;\n"
                 "Lcase0:\n\t"
                 "add.s32 %0, %2, 100;\n\t"
                 "bra.uni Lend;\n"
                 "Lcase1:\n\t"
                 "mul.lo.s32 %0, %2, 3;\n\t"
                 "bra.uni Lend;\n"
                 "Lcase2:\n\t"
                 "neg.s32 %0, %2;\n\t"
                 "bra.uni Lend;\n"
                 "Lcase3:\n\t"
                 "shl.b32 %0, %2, 4;\n"
                 "Lend:\n\t"
                 "}"
                 : "=r"(r) : "r"(sel), "r"(a));
    return r;
}

extern "C" __global__ void indirect_branch(const int *sel, const int *a, int *out)
{
    int t = threadIdx.x;
    out[t] = jump_table(sel[t], a[t]);   // divergent indirect branch
}
