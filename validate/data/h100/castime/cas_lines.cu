// One warp, one lane: per line L of 64 consecutive lines (both L2 partitions: lines 0-31 of a
// 2 MiB page sit in one, 32-63 in the other on the H200), 16 dependent returning atomics of each
// kind on word 0 of L, clock64 around each (the next one's operand depends on the value back):
// kind 0 atomicAdd (ATOMG.ADD), 1 atomicCAS that succeeds (compare = the value just read back),
// 2 atomicCAS that fails (compare never matches), 3 atomicExch, 4 ld.global.cg (an L2 hit).
// Output lines.csv: smid,kind,line,min,median cycles. Asks whether a CAS's round trip is an ADD's
// (its near/far split per line shows the partition) or longer.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1); } } while (0)
constexpr int LINES = 64, REPS = 16, KINDS = 5;

extern "C" __global__ void cas_lines(unsigned* buf, long long* out, unsigned* smid)
{
    if (threadIdx.x != 0) return;
    unsigned v = 0;
    for (int k = 0; k < KINDS; ++k)
        for (int l = 0; l < LINES; ++l) {
            unsigned* p = buf + l * 32 + (v & 0);  // (v & 0): the address waits for the last value
            for (int r = 0; r < REPS; ++r) {
                const long long t0 = clock64();
                unsigned x;
                switch (k) {
                case 0: x = atomicAdd(p + (v & 0), 1u); break;
                case 1: x = atomicCAS(p + (v & 0), v, v + 1); break;
                case 2: x = atomicCAS(p + (v & 0), 0xFFFFFFFFu, v); break;
                case 3: x = atomicExch(p + (v & 0), v + 1); break;
                default: asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(x) : "l"(p + (v & 0))); break;
                }
                v = x;
                if (v == 0xFFFFFFFEu) buf[0] = 7;  // a branch on the value: the clock waits for it
                const long long t1 = clock64();
                out[(k * LINES + l) * REPS + r] = t1 - t0;
            }
        }
    unsigned s;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
    *smid = s;
}

int main(int argc, char** argv)
{
    const char* path = argc > 1 ? argv[1] : "lines.csv";
    unsigned *buf, *smid; long long* out;
    CK(cudaMalloc(&buf, 2 << 20)); CK(cudaMalloc(&out, KINDS * LINES * REPS * 8)); CK(cudaMalloc(&smid, 4));
    static long long h[KINDS * LINES * REPS];
    FILE* f = fopen(path, "w");
    fprintf(f, "launch,smid,kind,line,min,median\n");
    for (int launch = 0; launch < 3; ++launch) {
        CK(cudaMemset(buf, 0, 2 << 20));
        cas_lines<<<1, 32>>>(buf, out, smid);
        CK(cudaDeviceSynchronize());
        unsigned s; CK(cudaMemcpy(&s, smid, 4, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
        for (int k = 0; k < KINDS; ++k)
            for (int l = 0; l < LINES; ++l) {
                long long* v = h + (k * LINES + l) * REPS;
                std::sort(v + 1, v + REPS);  // the first touches the line cold
                fprintf(f, "%d,%u,%d,%d,%lld,%lld\n", launch, s, k, l, v[1], v[1 + (REPS - 1) / 2]);
            }
    }
    fclose(f);
    return 0;
}
