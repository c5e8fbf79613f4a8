// blind6: the sixth batch of blind workloads (third-party-suite style: double precision,
// __constant__ tables, __device__ variables, switch jump tables, 64-bit atomics, barrier
// reductions). Plain CUDA C, extern "C", no headers. See README.md.

// ---------------------------------------------------------------------------------------------
// 1. PolyBench/GPU GEMM, DATA_TYPE double: C = alpha A B + beta C, one thread per C element,
//    C read and written through memory in the k loop as PolyBench's gemm_kernel does.
extern "C" __global__ void gemm_f64(int ni, int nj, int nk, double alpha, double beta,
                                    const double *a, const double *b, double *c)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if ((i < ni) && (j < nj)) {
        c[i * nj + j] *= beta;
        for (int k = 0; k < nk; k++) {
            c[i * nj + j] += alpha * a[i * nk + k] * b[k * nj + j];
        }
    }
}

// ---------------------------------------------------------------------------------------------
// 2. Jacobi-2D step in double, 32 x 8 threads per 32 x 32 tile (4 rows per thread), and a
//    per-block convergence flag through __syncthreads_and.
extern "C" __global__ void jacobi2d_f64(const double *A, double *B, int *conv, int nx, int ny,
                                        double tol)
{
    int j = blockIdx.x * 32 + threadIdx.x;
    int i0 = blockIdx.y * 32 + threadIdx.y;
    int ok = 1;
    for (int r = 0; r < 4; r++) {
        int i = i0 + 8 * r;
        if (i >= 1 && i < ny - 1 && j >= 1 && j < nx - 1) {
            double v = 0.2 * (A[i * nx + j] + A[i * nx + j - 1] + A[i * nx + j + 1] +
                              A[(i + 1) * nx + j] + A[(i - 1) * nx + j]);
            B[i * nx + j] = v;
            ok &= (fabs(v - A[i * nx + j]) <= tol);
        }
    }
    int all = __syncthreads_and(ok);
    if (threadIdx.x == 0 && threadIdx.y == 0)
        conv[blockIdx.y * gridDim.x + blockIdx.x] = all;
}

// ---------------------------------------------------------------------------------------------
// 3. PolyBench correlation, mean and stddev of each column (float data, double statistics):
//    one thread per column, two passes down the column.
extern "C" __global__ void corr_col_stats(const float *data, double *mean, double *stddev, int m,
                                          int n, double float_n, double eps)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < m) {
        double s = 0.0;
        for (int i = 0; i < n; i++)
            s += data[i * m + j];
        double mu = s / float_n;
        double v = 0.0;
        for (int i = 0; i < n; i++) {
            double d = data[i * m + j] - mu;
            v += d * d;
        }
        double sd = sqrt(v / float_n);
        sd = (sd <= eps) ? 1.0 : sd;
        mean[j] = mu;
        stddev[j] = sd;
    }
}

// ---------------------------------------------------------------------------------------------
// 4. Rodinia k-means membership: cluster centres in __constant__ memory (as Rodinia's
//    c_clusters), features flipped (feature-major), a per-cluster weight read at the thread's
//    own nearest index.
#define KM_MAX_CLUSTERS 6
#define KM_MAX_FEATURES 16
__constant__ float c_clusters[KM_MAX_CLUSTERS * KM_MAX_FEATURES] = {
    0.0f, 3.0f, 6.0f, 9.0f, 12.0f, 15.0f, 2.0f, 5.0f, 8.0f, 11.0f, 14.0f, 1.0f, 4.0f, 7.0f, 10.0f, 13.0f,
    5.0f, 9.0f, 13.0f, 1.0f, 5.0f, 9.0f, 13.0f, 10.0f, 14.0f, 2.0f, 6.0f, 10.0f, 14.0f, 2.0f, 15.0f, 3.0f,
    10.0f, 15.0f, 4.0f, 9.0f, 7.0f, 12.0f, 1.0f, 15.0f, 4.0f, 9.0f, 14.0f, 12.0f, 1.0f, 6.0f, 4.0f, 9.0f,
    15.0f, 5.0f, 11.0f, 10.0f, 0.0f, 15.0f, 5.0f, 4.0f, 10.0f, 0.0f, 15.0f, 5.0f, 4.0f, 10.0f, 9.0f, 15.0f,
    4.0f, 11.0f, 11.0f, 2.0f, 2.0f, 9.0f, 9.0f, 9.0f, 0.0f, 0.0f, 7.0f, 7.0f, 14.0f, 14.0f, 14.0f, 5.0f,
    9.0f, 1.0f, 2.0f, 3.0f, 11.0f, 12.0f, 13.0f, 14.0f, 6.0f, 7.0f, 8.0f, 0.0f, 1.0f, 2.0f, 3.0f, 11.0f};
__constant__ float c_weight[KM_MAX_CLUSTERS] = {1.0f, 2.0f, 0.5f, 4.0f, 0.25f, 8.0f};

extern "C" __global__ void kmeans_point(const float *features, int *membership, float *score,
                                        int npoints, int nclusters, int nfeatures)
{
    int point_id = blockIdx.x * blockDim.x + threadIdx.x;
    if (point_id < npoints) {
        int index = 0;
        float min_dist = 3.0e38f;
        for (int i = 0; i < nclusters; i++) {
            float dist = 0;
            for (int l = 0; l < nfeatures; l++) {
                float d = features[l * npoints + point_id] - c_clusters[i * nfeatures + l];
                dist += d * d;
            }
            if (dist < min_dist) {
                min_dist = dist;
                index = i;
            }
        }
        membership[point_id] = index;
        score[point_id] = min_dist * c_weight[index];
    }
}

// ---------------------------------------------------------------------------------------------
// 5. A tiny interpreter: each element runs `nops` opcodes (ops[k * n + i]) on a u32 accumulator,
//    one switch per opcode.
extern "C" __global__ void opcode_interp(const int *ops, const unsigned *vals,
                                         unsigned *out, int n, int nops)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        unsigned acc = vals[i];
        unsigned b = (unsigned)i * 2654435761u;
        for (int k = 0; k < nops; k++) {
            switch (ops[k * n + i]) {
            case 0: acc += b; break;
            case 1: acc ^= b; break;
            case 2: acc *= 3u; break;
            case 3: acc = (acc >> 1) | (acc << 31); break;
            case 4: acc -= b; break;
            case 5: acc = acc * b + 1u; break;
            case 6: acc = min(acc, b * 7u); break;
            case 7: acc = (acc << 2) ^ b; break;
            case 8: acc = ~acc; break;
            case 9: acc = acc + (acc >> 7); break;
            default: break;
            }
            b = b * 1664525u + 1013904223u;
        }
        out[i] = acc;
    }
}

// ---------------------------------------------------------------------------------------------
// 6. Histogram with 64-bit counters (atomicAdd on unsigned long long) and a signed 64-bit
//    maximum per bin (atomicMax on long long), grid-stride.
extern "C" __global__ void histo_u64(const unsigned *keys, unsigned long long *bins,
                                     long long *maxes, int n, int nbins)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        unsigned k = keys[i];
        int bin = k % nbins;
        atomicAdd(&bins[bin], (unsigned long long)k + (1ull << 32));
        atomicMax(&maxes[bin], (long long)k * 3 - 3000000000ll);
    }
}

// ---------------------------------------------------------------------------------------------
// 7. Double-precision dot product and squared norm: per-thread sums, shared-memory
//    atomicAdd(double) per block, a global atomicAdd(double), and the last block (a ticket from
//    a __device__ counter, threadFenceReduction style) writes dot / sqrt(norm2).
__device__ unsigned int d_blocks_done = 0;

extern "C" __global__ void dot_f64(const double *x, const double *y, double *result, int n)
{
    __shared__ double s_dot, s_nrm;
    if (threadIdx.x == 0) {
        s_dot = 0.0;
        s_nrm = 0.0;
    }
    __syncthreads();
    double t = 0.0, q = 0.0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        t += x[i] * y[i];
        q += x[i] * x[i];
    }
    atomicAdd(&s_dot, t);
    atomicAdd(&s_nrm, q);
    __syncthreads();
    if (threadIdx.x == 0) {
        atomicAdd(&result[0], s_dot);
        atomicAdd(&result[1], s_nrm);
        __threadfence();
        unsigned ticket = atomicInc(&d_blocks_done, gridDim.x - 1);
        if (ticket == gridDim.x - 1) {
            volatile double *r = result;
            r[2] = r[0] / sqrt(r[1]);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// 8. One BFS level over CSR, thread per node: frontier nodes (level == cur) give unvisited
//    neighbours cur + 1; per block __syncthreads_count of the frontier and __syncthreads_or of
//    "changed", then flags[0] = 1 if anything changed and flags[1] += the frontier count.
extern "C" __global__ void bfs_level_sync(const int *row_ptr, const int *col_idx, int *level,
                                          int *flags, int n, int cur)
{
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    int changed = 0, front = 0;
    if (v < n && level[v] == cur) {
        front = 1;
        for (int e = row_ptr[v]; e < row_ptr[v + 1]; e++) {
            int u = col_idx[e];
            if (level[u] < 0) {
                level[u] = cur + 1;
                changed = 1;
            }
        }
    }
    int cnt = __syncthreads_count(front);
    int any = __syncthreads_or(changed);
    if (threadIdx.x == 0) {
        if (cnt)
            atomicAdd(&flags[1], cnt);
        if (any)
            flags[0] = 1;
    }
}

// ---------------------------------------------------------------------------------------------
// 9. N-body step in double: all-pairs accelerations through shared-memory tiles of the block's
//    size, rsqrt, then vel += a dt and pos_out = pos + vel dt.
extern "C" __global__ void nbody_f64(const double4 *pos, double4 *vel, double4 *pos_out, int n,
                                     double eps2, double dt)
{
    extern __shared__ double4 tile[];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    double4 p = pos[i];
    double ax = 0.0, ay = 0.0, az = 0.0;
    for (int base = 0; base < n; base += blockDim.x) {
        tile[threadIdx.x] = pos[base + threadIdx.x];
        __syncthreads();
        for (int j = 0; j < blockDim.x; j++) {
            double4 q = tile[j];
            double dx = q.x - p.x, dy = q.y - p.y, dz = q.z - p.z;
            double r2 = dx * dx + dy * dy + dz * dz + eps2;
            double inv = rsqrt(r2);
            double s = q.w * inv * inv * inv;
            ax += dx * s;
            ay += dy * s;
            az += dz * s;
        }
        __syncthreads();
    }
    double4 v = vel[i];
    v.x += ax * dt;
    v.y += ay * dt;
    v.z += az * dt;
    vel[i] = v;
    pos_out[i] = make_double4(p.x + v.x * dt, p.y + v.y * dt, p.z + v.z * dt, p.w);
}

// ---------------------------------------------------------------------------------------------
// 10. Black-Scholes (CUDA SDK style) in double, float inputs and outputs, the CND polynomial's
//     coefficients and a per-class riskless rate in __constant__ memory.
__constant__ double c_cnd[6] = {0.31938153, -0.356563782, 1.781477937, -1.821255978, 1.330274429,
                                0.39894228040143267794};
__constant__ double c_rate[8] = {0.01, 0.015, 0.02, 0.025, 0.03, 0.035, 0.04, 0.05};
__constant__ double c_vol = 0.30;

__device__ inline double cnd_f64(double d)
{
    double K = 1.0 / (1.0 + 0.2316419 * fabs(d));
    double cnd = c_cnd[5] * exp(-0.5 * d * d) *
                 (K * (c_cnd[0] + K * (c_cnd[1] + K * (c_cnd[2] + K * (c_cnd[3] + K * c_cnd[4])))));
    if (d > 0)
        cnd = 1.0 - cnd;
    return cnd;
}

extern "C" __global__ void blackscholes_f64(float *call, float *put, const float *S,
                                            const float *X, const float *T,
                                            const unsigned char *cls, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        double s = S[i], x = X[i], t = T[i];
        double R = c_rate[cls[i] & 7];
        double V = c_vol;
        double sqrtT = sqrt(t);
        double d1 = (log(s / x) + (R + 0.5 * V * V) * t) / (V * sqrtT);
        double d2 = d1 - V * sqrtT;
        double cndd1 = cnd_f64(d1);
        double cndd2 = cnd_f64(d2);
        double expRT = exp(-R * t);
        call[i] = (float)(s * cndd1 - x * expRT * cndd2);
        put[i] = (float)(x * expRT * (1.0 - cndd2) - s * (1.0 - cndd1));
    }
}

// ---------------------------------------------------------------------------------------------
// 11. CSR SpMV in double, vector kernel (a warp per row, Bell & Garland), warps grid-stride over
//     the rows, __shfl_down_sync on doubles.
extern "C" __global__ void spmv_csr_vec_f64(const int *row_ptr, const int *col_idx,
                                            const double *vals, const double *x, double *y,
                                            int rows)
{
    int lane = threadIdx.x & 31;
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    int nwarps = (gridDim.x * blockDim.x) >> 5;
    for (int r = warp; r < rows; r += nwarps) {
        double s = 0.0;
        for (int k = row_ptr[r] + lane; k < row_ptr[r + 1]; k += 32)
            s += vals[k] * x[col_idx[k]];
        for (int off = 16; off > 0; off >>= 1)
            s += __shfl_down_sync(0xffffffffu, s, off);
        if (lane == 0)
            y[r] = s;
    }
}

// ---------------------------------------------------------------------------------------------
// 12. Particles into grid cells: each cell holds a packed 64-bit word (count << 32 | smallest
//     particle id), updated with a 64-bit atomicCAS loop; cell from (int)(p * g) in double.
extern "C" __global__ void cell_cas64(const double *px, const double *py,
                                      unsigned long long *cells, int n, int gx, int gy)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        int cx = min((int)(px[i] * gx), gx - 1);
        int cy = min((int)(py[i] * gy), gy - 1);
        unsigned long long *cell = &cells[cy * gx + cx];
        unsigned long long old = *cell, assumed;
        do {
            assumed = old;
            unsigned cnt = (unsigned)(assumed >> 32) + 1u;
            unsigned lo = min((unsigned)assumed, (unsigned)i);
            old = atomicCAS(cell, assumed, ((unsigned long long)cnt << 32) | lo);
        } while (old != assumed);
    }
}
