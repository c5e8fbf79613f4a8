// blind8: the eighth batch of blind workloads (third-party-suite style: PolyBench/GPU, Rodinia,
// Parboil, SHOC, the CUDA SDK, Pannotia/Lonestar-style graph codes). Plain CUDA C, extern "C",
// no headers. Each kernel is written from the algorithm as those suites launch it; see README.md.

// ---------------------------------------------------------------------------------------------
// 1. PolyBench/GPU gesummv: y = alpha A x + beta B x. One thread per row; each lane walks its own
//    row of A and B (row-major), tmp and y accumulated through memory as PolyBench does.
extern "C" __global__ void gesummv_kernel(float alpha, float beta, const float *a, const float *b,
                                          const float *x, float *y, float *tmp, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        for (int j = 0; j < n; j++) {
            tmp[i] += a[i * n + j] * x[j];
            y[i] += b[i * n + j] * x[j];
        }
        y[i] = alpha * tmp[i] + beta * y[i];
    }
}

// ---------------------------------------------------------------------------------------------
// 2. PolyBench/GPU atax, second kernel: y = A^T tmp for an nx x ny matrix. One thread per column,
//    walking down it (coalesced across the warp), y accumulated through memory.
extern "C" __global__ void atax_kernel2(const float *A, float *y, const float *tmp, int nx, int ny)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < ny) {
        for (int i = 0; i < nx; i++)
            y[j] += A[i * ny + j] * tmp[i];
    }
}

// ---------------------------------------------------------------------------------------------
// 3. PolyBench/GPU fdtd-2d, third step of a time step: the magnetic field hz from the curl of the
//    electric fields (ex is nx x (ny+1), ey (nx+1) x ny, hz nx x ny). 32 x 8 blocks.
extern "C" __global__ void fdtd_step3_kernel(const float *ex, const float *ey, float *hz, int nx,
                                             int ny)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if ((i < nx - 1) && (j < ny - 1)) {
        hz[i * ny + j] = hz[i * ny + j] - 0.7f * (ex[i * (ny + 1) + (j + 1)] - ex[i * (ny + 1) + j] +
                                                  ey[(i + 1) * ny + j] - ey[i * ny + j]);
    }
}

// ---------------------------------------------------------------------------------------------
// 4. PolyBench/GPU 3mm, first product E = A B (ni x nk times nk x nj), one thread per element of E,
//    32 x 8 blocks, E cleared and accumulated through memory.
extern "C" __global__ void mm3_kernel1(const float *A, const float *B, float *E, int ni, int nj,
                                       int nk)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if ((i < ni) && (j < nj)) {
        E[i * nj + j] = 0;
        for (int k = 0; k < nk; ++k)
            E[i * nj + j] += A[i * nk + k] * B[k * nj + j];
    }
}

// ---------------------------------------------------------------------------------------------
// 5. Rodinia gaussian, Fan2: eliminate column t from the rows below it, a[i][j] -= m[i][t] a[t][j]
//    and b[i] -= m[i][t] b[t]. The grid covers the whole size x size matrix in 4 x 4 blocks for
//    every t (threads outside the trailing submatrix return); x walks rows, y columns.
extern "C" __global__ void gauss_fan2(const float *m, float *a, float *b, int size, int t)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x; // row t + 1 + row of the matrix
    int col = blockIdx.y * blockDim.y + threadIdx.y; // column t + col
    if (row >= size - 1 - t)
        return;
    if (col >= size - t)
        return;
    float mult = m[size * (row + 1 + t) + t];
    a[size * (row + 1 + t) + (col + t)] -= mult * a[size * t + (col + t)];
    if (col == 0)
        b[row + 1 + t] -= mult * b[t];
}

// ---------------------------------------------------------------------------------------------
// 6. Rodinia nn: Euclidean distance of every record (an array of {lat, lng} structs) to a target
//    point; the grid is 2D in Rodinia when it needs more than 65535 blocks, hence the index.
struct LatLong {
    float lat;
    float lng;
};

extern "C" __global__ void nn_euclid(const LatLong *d_locations, float *d_distances, int numRecords,
                                     float lat, float lng)
{
    int globalId = blockDim.x * (gridDim.x * blockIdx.y + blockIdx.x) + threadIdx.x;
    if (globalId < numRecords) {
        const LatLong *p = d_locations + globalId;
        d_distances[globalId] =
            sqrtf((lat - p->lat) * (lat - p->lat) + (lng - p->lng) * (lng - p->lng));
    }
}

// ---------------------------------------------------------------------------------------------
// 7. Rodinia backprop, weight adjustment of the input -> hidden layer: w is (in + 1) x (hid + 1)
//    row-major (row 0 and column 0 are the bias), one 16 x 16 block per 16 input units,
//    dw = eta delta[k] ly[j] + momentum oldw[j][k]; w += dw; oldw = dw. The blocks of row 0
//    also update the bias row.
#define BP_ETA 0.3f
#define BP_MOMENTUM 0.3f
#define BP_HEIGHT 16

extern "C" __global__ void bpnn_adjust_weights(const float *delta, int hid, const float *ly, int in,
                                               float *w, float *oldw)
{
    int j = BP_HEIGHT * blockIdx.y + threadIdx.y + 1; // input unit (row)
    int k = threadIdx.x + 1;                          // hidden unit (column)
    int idx = j * (hid + 1) + k;
    float dw = BP_ETA * delta[k] * ly[j] + BP_MOMENTUM * oldw[idx];
    w[idx] += dw;
    oldw[idx] = dw;
    __syncthreads();
    if (threadIdx.y == 0 && blockIdx.y == 0) {
        float db = BP_ETA * delta[k] + BP_MOMENTUM * oldw[k];
        w[k] += db;
        oldw[k] = db;
    }
}

// ---------------------------------------------------------------------------------------------
// 8. Parboil-style SpMV in JDS (jagged diagonal) format: rows sorted longest first, entry d of
//    sorted row i at jds_ptr[d] + i (diagonal d holds jds_ptr[d+1] - jds_ptr[d] entries, one per
//    row longer than d), one thread per sorted row, the result scattered through the permutation.
extern "C" __global__ void spmv_jds(float *dst, const float *data, const int *index,
                                   const int *perm, const float *x, const int *jds_ptr, int dim,
                                   int ndiags)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < dim) {
        float sum = 0.0f;
        for (int d = 0; d < ndiags; d++) {
            int start = jds_ptr[d];
            if (i >= jds_ptr[d + 1] - start)
                break;
            int j = start + i;
            sum += data[j] * x[index[j]];
        }
        dst[perm[i]] = sum;
    }
}

// ---------------------------------------------------------------------------------------------
// 9. SHOC md: Lennard-Jones forces over a neighbour list stored neighbour-major
//    (neighList[j * inum + i]), float4 positions gathered by index; pairs beyond the cutoff add
//    nothing (and an atom is not its own neighbour).
extern "C" __global__ void md_lj_force(float4 *force, const float4 *position, int neighCount,
                                       const int *neighList, float cutsq, float lj1, float lj2,
                                       int inum)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= inum)
        return;
    float4 ipos = position[idx];
    float4 f = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    for (int j = 0; j < neighCount; j++) {
        int jidx = neighList[j * inum + idx];
        if (jidx == idx)
            continue;
        float4 jpos = position[jidx];
        float delx = ipos.x - jpos.x;
        float dely = ipos.y - jpos.y;
        float delz = ipos.z - jpos.z;
        float r2inv = delx * delx + dely * dely + delz * delz;
        if (r2inv < cutsq) {
            r2inv = 1.0f / r2inv;
            float r6inv = r2inv * r2inv * r2inv;
            float forceC = r2inv * r6inv * (lj1 * r6inv - lj2);
            f.x += delx * forceC;
            f.y += dely * forceC;
            f.z += delz * forceC;
        }
    }
    force[idx] = f;
}

// ---------------------------------------------------------------------------------------------
// 10. SSSP relaxation (Bellman-Ford step, push style): every frontier node v offers
//     dist_in[v] + w(v, u) to each out-neighbour u with atomicMin on dist_out (read one array,
//     write the other: the result does not depend on the order). One thread per node, CSR.
extern "C" __global__ void sssp_relax(const int *row_ptr, const int *col_idx, const int *weight,
                                     const unsigned char *frontier, const int *dist_in,
                                     int *dist_out, int n)
{
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < n && frontier[v]) {
        int d = dist_in[v];
        int end = row_ptr[v + 1];
        for (int e = row_ptr[v]; e < end; e++)
            atomicMin(&dist_out[col_idx[e]], d + weight[e]);
    }
}

// ---------------------------------------------------------------------------------------------
// 11. PageRank, push style in fixed point: every node splits its rank evenly (integer division)
//     over its out-edges and adds the share to each neighbour's next rank with atomicAdd (u32:
//     exact, any order). One thread per node, CSR.
extern "C" __global__ void pagerank_push(const int *row_ptr, const int *col_idx,
                                        const unsigned *rank, unsigned *next, int n)
{
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < n) {
        int start = row_ptr[v];
        int end = row_ptr[v + 1];
        if (end > start) {
            unsigned share = rank[v] / (unsigned)(end - start);
            for (int e = start; e < end; e++)
                atomicAdd(&next[col_idx[e]], share);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// 12. CUDA SDK-style 256-bin byte histogram: a sub-histogram per warp in shared memory (shared
//     atomics), the input read as 32-bit words (four bytes each) grid-stride, then each block adds
//     its warps' counts to the global histogram with atomicAdd. 192-thread blocks (6 warps).
#define HIST_BINS 256
#define HIST_WARPS 6

extern "C" __global__ void histogram256_warp(unsigned *d_hist, const unsigned *d_data,
                                            int dataCount)
{
    __shared__ unsigned s_hist[HIST_WARPS * HIST_BINS];
    unsigned *s_warp = s_hist + (threadIdx.x >> 5) * HIST_BINS;
    for (int i = threadIdx.x; i < HIST_WARPS * HIST_BINS; i += blockDim.x)
        s_hist[i] = 0;
    __syncthreads();
    for (int pos = blockIdx.x * blockDim.x + threadIdx.x; pos < dataCount;
         pos += blockDim.x * gridDim.x) {
        unsigned data = d_data[pos];
        atomicAdd(s_warp + ((data >> 0) & 0xFFU), 1U);
        atomicAdd(s_warp + ((data >> 8) & 0xFFU), 1U);
        atomicAdd(s_warp + ((data >> 16) & 0xFFU), 1U);
        atomicAdd(s_warp + ((data >> 24) & 0xFFU), 1U);
    }
    __syncthreads();
    for (int bin = threadIdx.x; bin < HIST_BINS; bin += blockDim.x) {
        unsigned sum = 0;
        for (int w = 0; w < HIST_WARPS; w++)
            sum += s_hist[w * HIST_BINS + bin];
        atomicAdd(&d_hist[bin], sum);
    }
}
