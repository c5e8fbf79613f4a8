// Does a global atomic drop its line (or only its sector) from the issuing SM's L1?
//
// One CTA of one warp walks `lines` distinct 128-byte lines. Per line: the warp loads all 32
// words (4 sectors) through the L1 (plain LDG), lane 0 then updates word `word` of the line with
// an atomic of kind `op` (0: none, 1: atomicAdd whose result is used (ATOM), 2: atomicAdd whose
// result is unused (RED), 3: atomicCAS), and the warp loads the 32 words again. Without an
// invalidation the second load hits all 4 sectors; an atomic that drops its sector makes 1 of 4
// miss; one that drops the line, 4 of 4. `word` 0 puts the atomic in sector 0, 8 in sector 1.
// ncu's L1 load lookup hits/misses and L2 read sectors of each launch say which.
// Build: nvcc -arch=sm_90 -O3 -lineinfo -o atom_inval atom_inval.cu
// Run:   ./atom_inval            (prints one CSV row per configuration, events timing only)
//        ncu --clock-control none --csv --metrics ... ./atom_inval   (one launch per configuration)
#include <cstdio>
#include <cuda_runtime.h>

extern "C" __global__ void atom_inval(unsigned* buf, unsigned* out, int lines, int op, int word)
{
    unsigned lane = threadIdx.x, s = 0;
    for (int l = 0; l < lines; l++) {
        unsigned* line = buf + (size_t)l * 32;
        s += line[lane];
        __syncwarp();
        if (lane == 0) {
            if (op == 1) s += atomicAdd(&line[word], 1u);
            else if (op == 2) atomicAdd(&line[word], 1u);
            else if (op == 3) s += atomicCAS(&line[word], 0xffffffffu, 7u);
        }
        __syncwarp();
        s += line[lane];
    }
    out[lane] = s;
}

// Same-address lanes: one warp, lanes below `k` each chain 64 dependent atomics (op 0: CAS that
// succeeds for one lane per instruction, the loop shape of a CAS retry; 1: atomicAdd, ATOM; 2:
// ld.global.cg loads, the L2 hit latency near and far) on
// one word of line `line`; lane 0 writes the cycles per instruction. Lines 0-15 of the buffer
// put the word in slices of both partitions.
extern "C" __global__ void same_word(unsigned* buf, long long* out, int line, int k, int op)
{
    unsigned lane = threadIdx.x, v = 0;
    unsigned* p = buf + (size_t)line * 32;
    __syncwarp();
    long long t0 = clock64();
    if (lane < k) {
        for (int i = 0; i < 64; i++) {
            if (op == 0) v = atomicCAS(p, v, v + 1);
            else if (op == 1) v = atomicAdd(p, v & 1u);
            else v = __ldcg(p + (v >> 31));  // op 2: dependent L2 loads (the word stays 0)
        }
    }
    __syncwarp();
    long long t1 = clock64();
    if (lane == 0) out[0] = (t1 - t0) / 64 + (v & 0);
}

// Stale L1 data: CTA 0 loads word 0 of a line with a plain load (the line enters its SM's L1),
// raises flag 1; CTA 1 (another SM) waits for it, adds 1 to word 0 with an atomic (at the L2),
// raises flag 2; CTA 0 waits for flag 2 (atomic reads, not through the L1) and loads word 0 again
// with a plain load (`ld.global.ca`, inline PTX so that nvcc keeps it), then with `ld.global.cg` (L2). out = {first, plain
// reload, cg reload}: a plain reload of 0 while the cg one reads 1 is a stale L1 hit.
extern "C" __global__ void stale_read(unsigned* line, unsigned* flags, unsigned* out)
{
    if (threadIdx.x != 0) return;
    if (blockIdx.x == 0) {
        unsigned first, again, cg;
        asm volatile("ld.global.ca.u32 %0, [%1];" : "=r"(first) : "l"(line) : "memory");
        atomicExch(&flags[0], first + 1u);  // waits for the load; no fence (one might drop the L1)
        while (atomicAdd(&flags[32], 0u) == 0) {}
        asm volatile("ld.global.ca.u32 %0, [%1];" : "=r"(again) : "l"(line) : "memory");
        asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(cg) : "l"(line) : "memory");
        out[0] = first;
        out[1] = again;
        out[2] = cg;
    } else {
        while (atomicAdd(&flags[0], 0u) == 0) {}
        atomicAdd(&line[0], 1u);
        __threadfence();
        atomicExch(&flags[32], 1u);
    }
}

int main()
{
    const int lines = 4096;
    unsigned *buf, *out;
    cudaMalloc(&buf, lines * 128);
    cudaMalloc(&out, 128);
    cudaMemset(buf, 0, lines * 128);
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    printf("op,word,lines,us\n");
    const int ops[] = {0, 1, 2, 3};
    const int words[] = {0, 8};
    for (int op : ops)
        for (int w : words) {
            cudaEventRecord(a);
            atom_inval<<<1, 32>>>(buf, out, lines, op, w);
            cudaEventRecord(b);
            cudaEventSynchronize(b);
            float ms;
            cudaEventElapsedTime(&ms, a, b);
            printf("%d,%d,%d,%.1f\n", op, w, lines, ms * 1000);
        }
    long long* cyc;
    cudaMalloc(&cyc, 8);
    printf("same_word: op,line,k,cycles_per_instruction\n");
    const int ks[] = {1, 2, 4, 8, 16, 32};
    for (int op = 0; op < 3; op++)
        for (int line = 0; line < 16; line++)
            for (int k : ks) {
                long long c = 0;
                cudaMemset(buf, 0, lines * 128);
                same_word<<<1, 32>>>(buf, cyc, line, k, op);
                same_word<<<1, 32>>>(buf, cyc, line, k, op);
                cudaMemcpy(&c, cyc, 8, cudaMemcpyDeviceToHost);
                printf("%d,%d,%d,%lld\n", op, line, k, c);
            }
    unsigned host[3];
    printf("stale_read: trial,first,plain_reload,cg_reload\n");
    for (int trial = 0; trial < 8; trial++) {
        cudaMemset(buf, 0, lines * 128);
        stale_read<<<2, 32>>>(buf, buf + 1024, out);
        cudaMemcpy(host, out, 12, cudaMemcpyDeviceToHost);
        printf("%d,%u,%u,%u\n", trial, host[0], host[1], host[2]);
    }
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) { fprintf(stderr, "%s\n", cudaGetErrorString(e)); return 1; }
    return 0;
}
