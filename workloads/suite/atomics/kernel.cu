// Global atomic contention: thread i adds in[i] to counters[i % nbins]. nbins = 1 sends every
// thread to one address; 32 gives each warp 32 distinct words of one line; large nbins spreads
// the updates. The return value is unused, so this is a reduction (red.global.add).
extern "C" __global__ void atomic_add_global(const unsigned* in, unsigned* counters, int n, int nbins)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&counters[i % nbins], in[i]);
}
