// Pointer chase: one thread follows chain[j] for `warmup` steps, then times `iters` more with
// clock64. result[0] = final index (deterministic), result[1] = cycles of the timed steps.
// chase_ca loads with ld.global.ca (cached in L1), chase_cg with ld.global.cg (L2 only).
template <bool L1>
__device__ __forceinline__ unsigned load(const unsigned* p)
{
    return L1 ? __ldca(p) : __ldcg(p);
}

template <bool L1>
__device__ void chase(const unsigned* chain, unsigned long long* result, int warmup, int iters)
{
    unsigned j = 0;
    for (int k = 0; k < warmup; ++k) j = load<L1>(chain + j);
    long long t0 = clock64();
    for (int k = 0; k < iters; ++k) j = load<L1>(chain + j);
    long long t1 = clock64();
    result[0] = j;
    result[1] = (unsigned long long)(t1 - t0);
}

extern "C" __global__ void chase_ca(const unsigned* chain, unsigned long long* result, int warmup, int iters)
{
    chase<true>(chain, result, warmup, iters);
}

extern "C" __global__ void chase_cg(const unsigned* chain, unsigned long long* result, int warmup, int iters)
{
    chase<false>(chain, result, warmup, iters);
}
