// Level-synchronous breadth-first search on a CSR graph: a templated kernel expands the current
// frontier, the graph's size sits in __constant__ memory (cudaMemcpyToSymbol), a __device__ flag
// says whether the next frontier is empty (cudaMemcpyFromSymbol decides the host loop), and
// thread 0 prints each level with device printf. Checked against the host's BFS.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <queue>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    printf("FAIL: %s: %s\n", #x, cudaGetErrorString(e_)); return 1; } } while (0)

__constant__ int c_nodes;
__device__ int d_more;

template <typename Dist>
__global__ void expand(const int *row, const int *col, Dist *dist, const unsigned char *frontier,
                       unsigned char *next, Dist level) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v == 0) printf("level %d: expanding\n", (int)level);
    if (v >= c_nodes || !frontier[v]) return;
    for (int e = row[v]; e < row[v + 1]; e++) {
        int u = col[e];
        if (dist[u] < 0) {
            dist[u] = level + 1;
            next[u] = 1;
            d_more = 1;
        }
    }
}

__global__ void clear(unsigned char *f, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) f[i] = 0;
}

int main() {
    const int n = 3000, degree = 3;
    std::vector<int> row(n + 1), col;
    unsigned s = 12345;
    for (int v = 0; v < n; v++) {
        row[v] = col.size();
        col.push_back((v + 1) % n);
        for (int k = 1; k < degree; k++) { s = s * 1103515245u + 12345u; col.push_back((s >> 8) % n); }
    }
    row[n] = col.size();
    int *d_row, *d_col, *d_dist;
    unsigned char *f[2];
    CHECK(cudaMalloc(&d_row, (n + 1) * sizeof(int)));
    CHECK(cudaMalloc(&d_col, col.size() * sizeof(int)));
    CHECK(cudaMalloc(&d_dist, n * sizeof(int)));
    CHECK(cudaMalloc(&f[0], n));
    CHECK(cudaMalloc(&f[1], n));
    CHECK(cudaMemcpy(d_row, row.data(), (n + 1) * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_col, col.data(), col.size() * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpyToSymbol(c_nodes, &n, sizeof(int)));
    CHECK(cudaMemset(d_dist, 0xff, n * sizeof(int)));
    CHECK(cudaMemset(f[0], 0, n));
    CHECK(cudaMemset(f[1], 0, n));
    int zero = 0, one = 1;
    CHECK(cudaMemcpy(d_dist, &zero, sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(f[0], &one, 1, cudaMemcpyHostToDevice));
    int levels = 0, more = 1;
    const int threads = 128, blocks = (n + threads - 1) / threads;
    while (more) {
        CHECK(cudaMemcpyToSymbol(d_more, &zero, sizeof(int)));
        expand<int><<<blocks, threads>>>(d_row, d_col, d_dist, f[levels % 2], f[(levels + 1) % 2], levels);
        CHECK(cudaGetLastError());
        clear<<<blocks, threads>>>(f[levels % 2], n);
        CHECK(cudaMemcpyFromSymbol(&more, d_more, sizeof(int)));
        levels++;
    }
    std::vector<int> dist(n), ref(n, -1);
    CHECK(cudaMemcpy(dist.data(), d_dist, n * sizeof(int), cudaMemcpyDeviceToHost));
    std::queue<int> q;
    ref[0] = 0;
    q.push(0);
    int depth = 0;
    while (!q.empty()) {
        int v = q.front(); q.pop();
        for (int e = row[v]; e < row[v + 1]; e++)
            if (ref[col[e]] < 0) { ref[col[e]] = ref[v] + 1; depth = ref[col[e]] > depth ? ref[col[e]] : depth; q.push(col[e]); }
    }
    int wrong = 0;
    for (int v = 0; v < n; v++) wrong += dist[v] != ref[v];
    printf("BFS over %d nodes: %d levels (host depth %d), %d wrong distances\n", n, levels, depth, wrong);
    if (wrong || levels != depth + 1) { printf("FAIL\n"); return 1; }
    printf("PASS\n");
    return 0;
}
