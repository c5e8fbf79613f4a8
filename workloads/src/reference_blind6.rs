//! CPU references of the sixth batch of blind workloads (`suite/blind6/`): kernels in the style
//! of third-party benchmark suites (PolyBench/GPU, Rodinia, the CUDA SDK) that exercise double
//! precision, `__constant__` tables, a `__device__` ticket counter, switch jump tables, 64-bit
//! atomics and barrier reductions. Registered in [`crate::references`]; the double CSR SpMV uses
//! the generic `spmv_csr`.
//!
//! Most checks are bitwise: the inputs are small integers where sums are taken, so every f64 (and
//! f32) sum is exact in any order, and the references otherwise follow the kernels' operations
//! (`f64::mul_add` where nvcc contracted to `fma.rn.f64`; division and square root are correctly
//! rounded on both sides). The N-body step (`rsqrt`) and Black-Scholes (`log`, `exp`) go through
//! approximations the CPU does not mimic: those two manifests use a tolerance. The k-means
//! centres and weights and the Black-Scholes coefficients are `__constant__` arrays with
//! initializers in `kernel.cu`; [`kmeans_centre`], [`KMEANS_WEIGHT`], [`BS_CND`] and [`BS_RATE`]
//! are the same numbers.

use crate::dtype::Value;
use crate::reference::{count, expected, iv, expect_min, f32_at, initial, int_at, shape, Column, Expected, RefCtx, RefError};
use crate::reference_blind3::bfs_step;

fn f64_at(col: &Column, name: &str, i: usize) -> Result<f64, RefError> {
    col.get(i)
        .map(|v| v.as_f64())
        .ok_or_else(|| shape(format!("`{name}[{i}]` out of range (len {})", col.len())))
}

fn scalar_f64(c: &RefCtx, name: &str) -> Result<f64, RefError> {
    Ok(c.scalar(name)?.as_f64())
}

fn fv(x: f64) -> Option<Value> {
    Some(Value::Float(x))
}

// --- PolyBench GEMM in double ----------------------------------------------------------------

/// `c = beta c + sum_k alpha a[i][k] b[k][j]` (a ni × nk, b nk × nj, c ni × nj, row-major), in
/// the kernel's order: `c *= beta`, then `c = fma(alpha * a, b, c)` per k.
pub(crate) fn gemm_f64(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let (ni, nj, nk) = (count(c, "ni")?, count(c, "nj")?, count(c, "nk")?);
    let (alpha, beta) = (scalar_f64(c, "alpha")?, scalar_f64(c, "beta")?);
    expect_min(c, "a", ni * nk)?;
    expect_min(c, "b", nk * nj)?;
    expect_min(c, "c", ni * nj)?;
    let (a, b, c0) = (c.column("a")?, c.column("b")?, c.column("c")?);
    let a: Vec<f64> = (0..ni * nk).map(|i| f64_at(&a, "a", i)).collect::<Result<_, _>>()?;
    let b: Vec<f64> = (0..nk * nj).map(|i| f64_at(&b, "b", i)).collect::<Result<_, _>>()?;
    let mut values = initial(c, "c")?;
    for i in 0..ni {
        for j in 0..nj {
            let mut acc = f64_at(&c0, "c", i * nj + j)? * beta;
            for k in 0..nk {
                acc = (alpha * a[i * nk + k]).mul_add(b[k * nj + j], acc);
            }
            values[i * nj + j] = fv(acc);
        }
    }
    Ok(vec![expected("c", values)])
}

// --- Jacobi-2D step with a per-block convergence flag ----------------------------------------

/// `B[i][j] = 0.2 (A[i][j] + A[i][j-1] + A[i][j+1] + A[i+1][j] + A[i-1][j])` inside the
/// ny × nx grid (B's border unchanged); `conv[by * gx + bx]` = 1 when every interior point of
/// the 32 × 32 tile (bx, by) has `|B - A| <= tol`, else 0 (gx = ceil(nx / 32)).
pub(crate) fn jacobi2d_f64(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let (nx, ny) = (count(c, "nx")?, count(c, "ny")?);
    let tol = scalar_f64(c, "tol")?;
    let (gx, gy) = (nx.div_ceil(32), ny.div_ceil(32));
    expect_min(c, "A", nx * ny)?;
    expect_min(c, "B", nx * ny)?;
    expect_min(c, "conv", gx * gy)?;
    let col = c.column("A")?;
    let a: Vec<f64> = (0..nx * ny).map(|i| f64_at(&col, "A", i)).collect::<Result<_, _>>()?;
    let mut b = initial(c, "B")?;
    let mut ok = vec![true; gx * gy];
    for i in 1..ny.saturating_sub(1) {
        for j in 1..nx - 1 {
            let v = 0.2 * (a[i * nx + j] + a[i * nx + j - 1] + a[i * nx + j + 1] + a[(i + 1) * nx + j] + a[(i - 1) * nx + j]);
            b[i * nx + j] = fv(v);
            if (v - a[i * nx + j]).abs() > tol {
                ok[(i / 32) * gx + j / 32] = false;
            }
        }
    }
    let mut conv = initial(c, "conv")?;
    for (slot, o) in conv.iter_mut().zip(ok) {
        *slot = iv(o as i128);
    }
    Ok(vec![expected("B", b), expected("conv", conv)])
}

// --- PolyBench correlation: column mean and standard deviation --------------------------------

/// Per column j of `data` (n × m f32, row-major): `mean = (f64 sum) / float_n`, `v` = the
/// `fma(d, d, v)` chain of `d = x - mean` down the column, `stddev = sqrt(v / float_n)`, 1 where
/// that is `<= eps`.
pub(crate) fn col_stats_f64(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let (m, n) = (count(c, "m")?, count(c, "n")?);
    let (float_n, eps) = (scalar_f64(c, "float_n")?, scalar_f64(c, "eps")?);
    expect_min(c, "data", n * m)?;
    let data = c.column("data")?;
    let (mut mean, mut sd) = (initial(c, "mean")?, initial(c, "stddev")?);
    if mean.len() < m || sd.len() < m {
        return Err(shape(format!("mean and stddev need {m} elements")));
    }
    let mut sum = vec![0.0f64; m];
    for i in 0..n {
        for (j, s) in sum.iter_mut().enumerate() {
            *s += f32_at(&data, "data", i * m + j)? as f64;
        }
    }
    let mu: Vec<f64> = sum.iter().map(|s| s / float_n).collect();
    let mut var = vec![0.0f64; m];
    for i in 0..n {
        for (j, v) in var.iter_mut().enumerate() {
            let d = f32_at(&data, "data", i * m + j)? as f64 - mu[j];
            *v = d.mul_add(d, *v);
        }
    }
    for j in 0..m {
        let s = (var[j] / float_n).sqrt();
        mean[j] = fv(mu[j]);
        sd[j] = fv(if s <= eps { 1.0 } else { s });
    }
    Ok(vec![expected("mean", mean), expected("stddev", sd)])
}

// --- Rodinia k-means membership, centres in constant memory ----------------------------------

/// Feature `f` of cluster `k` in `kernel.cu`'s `c_clusters` (6 × 16, integer-valued).
pub(crate) fn kmeans_centre(k: usize, f: usize) -> f32 {
    ((k * 5 + f * 3 + (k * f) % 7) % 16) as f32
}

/// `kernel.cu`'s `c_weight`.
pub(crate) const KMEANS_WEIGHT: [f32; 6] = [1.0, 2.0, 0.5, 4.0, 0.25, 8.0];

/// `membership[p]` = the nearest of `nclusters` centres of [`kmeans_centre`] (squared distance
/// over `nfeatures` features `features[l * npoints + p]`, f32, strictly smaller replaces: ties
/// keep the lowest), `score[p]` = that distance times [`KMEANS_WEIGHT`] of the cluster.
pub(crate) fn kmeans_const(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let (np, nc, nf) = (count(c, "npoints")?, count(c, "nclusters")?, count(c, "nfeatures")?);
    if nc == 0 || nc > 6 || nf > 16 {
        return Err(shape("the constant tables hold 6 clusters of 16 features"));
    }
    expect_min(c, "features", nf * np)?;
    let feat = c.column("features")?;
    let (mut mem, mut score) = (initial(c, "membership")?, initial(c, "score")?);
    if mem.len() < np || score.len() < np {
        return Err(shape(format!("membership and score need {np} elements")));
    }
    let mut pt = vec![0.0f32; nf];
    for p in 0..np {
        for (l, x) in pt.iter_mut().enumerate() {
            *x = f32_at(&feat, "features", l * np + p)?;
        }
        let (mut index, mut min_dist) = (0usize, 3.0e38f32);
        for k in 0..nc {
            let mut dist = 0.0f32;
            for (l, &x) in pt.iter().enumerate() {
                let d = x - kmeans_centre(k, l);
                dist = d.mul_add(d, dist);
            }
            if dist < min_dist {
                min_dist = dist;
                index = k;
            }
        }
        mem[p] = iv(index as i128);
        score[p] = fv((min_dist * KMEANS_WEIGHT[index]) as f64);
    }
    Ok(vec![expected("membership", mem), expected("score", score)])
}

// --- opcode interpreter ----------------------------------------------------------------------

/// The interpreter's step: opcode `op` on accumulator `acc` with operand `b` (u32, wrapping);
/// opcodes outside 0..=9 leave it.
pub(crate) fn interp_op(op: i128, acc: u32, b: u32) -> u32 {
    match op {
        0 => acc.wrapping_add(b),
        1 => acc ^ b,
        2 => acc.wrapping_mul(3),
        3 => acc.rotate_right(1),
        4 => acc.wrapping_sub(b),
        5 => acc.wrapping_mul(b).wrapping_add(1),
        6 => acc.min(b.wrapping_mul(7)),
        7 => (acc << 2) ^ b,
        8 => !acc,
        9 => acc.wrapping_add(acc >> 7),
        _ => acc,
    }
}

/// `out[i]` = `vals[i]` after opcodes `ops[k * n + i]`, k < nops, each with operand b (from
/// `i * 2654435761`, then `b * 1664525 + 1013904223` after every step).
pub(crate) fn opcode_interp(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let (n, nops) = (count(c, "n")?, count(c, "nops")?);
    expect_min(c, "ops", n * nops)?;
    expect_min(c, "vals", n)?;
    let (ops, vals) = (c.column("ops")?, c.column("vals")?);
    let mut out = initial(c, "out")?;
    if out.len() < n {
        return Err(shape(format!("out needs {n} elements")));
    }
    for (i, slot) in out.iter_mut().enumerate().take(n) {
        let mut acc = int_at(&vals, "vals", i)? as u32;
        let mut b = (i as u32).wrapping_mul(2_654_435_761);
        for k in 0..nops {
            acc = interp_op(int_at(&ops, "ops", k * n + i)?, acc, b);
            b = b.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        }
        *slot = iv(acc as i128);
    }
    Ok(vec![expected("out", out)])
}

// --- 64-bit histogram ------------------------------------------------------------------------

/// For `i < n`, bin `b = keys[i] % nbins`: `bins[b] += keys[i] + 2^32` (u64, wrapping) and
/// `maxes[b] = max(maxes[b], 3 keys[i] - 3e9)` (s64): order-free.
pub(crate) fn histo_u64(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let (n, nbins) = (count(c, "n")?, count(c, "nbins")?);
    expect_min(c, "bins", nbins)?;
    expect_min(c, "maxes", nbins)?;
    let (keys, b0, m0) = (c.column("keys")?, c.column("bins")?, c.column("maxes")?);
    let mut bins: Vec<u64> = (0..b0.len()).map(|i| int_at(&b0, "bins", i).map(|v| v as u64)).collect::<Result<_, _>>()?;
    let mut maxes: Vec<i64> = (0..m0.len()).map(|i| int_at(&m0, "maxes", i).map(|v| v as i64)).collect::<Result<_, _>>()?;
    for i in 0..n {
        let k = int_at(&keys, "keys", i)? as u32;
        let b = (k % nbins as u32) as usize;
        bins[b] = bins[b].wrapping_add(k as u64 + (1u64 << 32));
        maxes[b] = maxes[b].max(k as i64 * 3 - 3_000_000_000);
    }
    Ok(vec![
        expected("bins", bins.into_iter().map(|v| iv(v as i128)).collect()),
        expected("maxes", maxes.into_iter().map(|v| iv(v as i128)).collect()),
    ])
}

// --- double dot product through atomics ------------------------------------------------------

/// `result = [r0 + x.y, r1 + x.x, (r0 + x.y) / sqrt(r1 + x.x)]` over `i < n` (f64; exact sums of
/// small integers, so the order of the atomics does not matter).
pub(crate) fn dot_f64(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let n = count(c, "n")?;
    expect_min(c, "x", n)?;
    expect_min(c, "y", n)?;
    expect_min(c, "result", 3)?;
    let (x, y, r) = (c.column("x")?, c.column("y")?, c.column("result")?);
    let (mut dot, mut nrm) = (f64_at(&r, "result", 0)?, f64_at(&r, "result", 1)?);
    for i in 0..n {
        let (a, b) = (f64_at(&x, "x", i)?, f64_at(&y, "y", i)?);
        dot += a * b;
        nrm += a * a;
    }
    let mut values = initial(c, "result")?;
    values[0] = fv(dot);
    values[1] = fv(nrm);
    values[2] = fv(dot / nrm.sqrt());
    Ok(vec![expected("result", values)])
}

// --- BFS level with barrier reductions -------------------------------------------------------

/// One [`bfs_step`] from level `cur` over the first `n` nodes; `flags[0]` = 1 if any node got
/// `cur + 1` (else unchanged), `flags[1]` += the number of level-`cur` nodes.
pub(crate) fn bfs_level_sync(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let n = count(c, "n")?;
    let cur = c.scalar_int("cur")?;
    expect_min(c, "row_ptr", n + 1)?;
    expect_min(c, "flags", 2)?;
    let ints = |name: &str| -> Result<Vec<i64>, RefError> {
        let col = c.column(name)?;
        (0..col.len()).map(|i| int_at(&col, name, i).map(|v| v as i64)).collect()
    };
    let (rp, ci, level) = (ints("row_ptr")?, ints("col_idx")?, ints("level")?);
    if level.len() < n {
        return Err(shape(format!("level needs {n} elements")));
    }
    let (new_level, next) = bfs_step(&rp, &ci, &level[..n], cur).ok_or_else(|| shape("an edge outside the graph"))?;
    let mut values = initial(c, "level")?;
    for (slot, v) in values.iter_mut().zip(new_level) {
        *slot = iv(v as i128);
    }
    let flags0 = c.column("flags")?;
    let mut flags = initial(c, "flags")?;
    if next.iter().any(|&v| v != 0) {
        flags[0] = iv(1);
    }
    let front = level[..n].iter().filter(|&&v| v == cur).count() as i128;
    flags[1] = iv((int_at(&flags0, "flags", 1)? + front) as i32 as i128);
    Ok(vec![expected("level", values), expected("flags", flags)])
}

// --- N-body step in double -------------------------------------------------------------------

/// For `n` bodies `pos[i] = (x, y, z, m)`: `a_i = sum_j m_j d / (|d|^2 + eps2)^1.5` (d = p_j -
/// p_i, j over all bodies, itself included), `vel[i].xyz += a dt`, `pos_out[i] = (p + vel dt, m)`;
/// vel's w unchanged. Tolerance: the kernel's `rsqrt` is not the CPU's.
pub(crate) fn nbody_f64(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let n = count(c, "n")?;
    let (eps2, dt) = (scalar_f64(c, "eps2")?, scalar_f64(c, "dt")?);
    expect_min(c, "pos", 4 * n)?;
    expect_min(c, "vel", 4 * n)?;
    expect_min(c, "pos_out", 4 * n)?;
    let (pc, vc) = (c.column("pos")?, c.column("vel")?);
    let p: Vec<f64> = (0..4 * n).map(|i| f64_at(&pc, "pos", i)).collect::<Result<_, _>>()?;
    let (mut vel, mut out) = (initial(c, "vel")?, initial(c, "pos_out")?);
    for i in 0..n {
        let mut a = [0.0f64; 3];
        for j in 0..n {
            let d = [p[4 * j] - p[4 * i], p[4 * j + 1] - p[4 * i + 1], p[4 * j + 2] - p[4 * i + 2]];
            let r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + eps2;
            let s = p[4 * j + 3] / (r2 * r2.sqrt());
            for k in 0..3 {
                a[k] += d[k] * s;
            }
        }
        for k in 0..3 {
            let v = f64_at(&vc, "vel", 4 * i + k)? + a[k] * dt;
            vel[4 * i + k] = fv(v);
            out[4 * i + k] = fv(p[4 * i + k] + v * dt);
        }
        out[4 * i + 3] = fv(p[4 * i + 3]);
    }
    Ok(vec![expected("vel", vel), expected("pos_out", out)])
}

// --- Black-Scholes in double -----------------------------------------------------------------

/// `kernel.cu`'s `c_cnd`: the CND polynomial's coefficients and 1 / sqrt(2 pi).
pub(crate) const BS_CND: [f64; 6] = [0.31938153, -0.356563782, 1.781477937, -1.821255978, 1.330274429, 0.398_942_280_401_432_7];
/// `kernel.cu`'s `c_rate` (riskless rate per option class) and `c_vol`.
pub(crate) const BS_RATE: [f64; 8] = [0.01, 0.015, 0.02, 0.025, 0.03, 0.035, 0.04, 0.05];
pub(crate) const BS_VOL: f64 = 0.30;

fn cnd(d: f64) -> f64 {
    let k = 1.0 / (1.0 + 0.2316419 * d.abs());
    let p = k * (BS_CND[0] + k * (BS_CND[1] + k * (BS_CND[2] + k * (BS_CND[3] + k * BS_CND[4]))));
    let c = BS_CND[5] * (-0.5 * d * d).exp() * p;
    if d > 0.0 {
        1.0 - c
    } else {
        c
    }
}

/// Black-Scholes call and put (f32 out) of options (S, X, T f32, rate `BS_RATE[cls & 7]`,
/// volatility `BS_VOL`), CND by the Abramowitz-Stegun polynomial as the CUDA SDK's, in f64.
pub(crate) fn blackscholes_f64(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let n = count(c, "n")?;
    for b in ["S", "X", "T", "cls"] {
        expect_min(c, b, n)?;
    }
    let (sc, xc, tc, cc) = (c.column("S")?, c.column("X")?, c.column("T")?, c.column("cls")?);
    let (mut call, mut put) = (initial(c, "call")?, initial(c, "put")?);
    if call.len() < n || put.len() < n {
        return Err(shape(format!("call and put need {n} elements")));
    }
    for i in 0..n {
        let (s, x, t) = (f32_at(&sc, "S", i)? as f64, f32_at(&xc, "X", i)? as f64, f32_at(&tc, "T", i)? as f64);
        let r = BS_RATE[(int_at(&cc, "cls", i)? & 7) as usize];
        let v = BS_VOL;
        let sqrt_t = t.sqrt();
        let d1 = ((s / x).ln() + (r + 0.5 * v * v) * t) / (v * sqrt_t);
        let d2 = d1 - v * sqrt_t;
        let (c1, c2) = (cnd(d1), cnd(d2));
        let ert = (-r * t).exp();
        call[i] = fv((s * c1 - x * ert * c2) as f32 as f64);
        put[i] = fv((x * ert * (1.0 - c2) - s * (1.0 - c1)) as f32 as f64);
    }
    Ok(vec![expected("call", call), expected("put", put)])
}

// --- particles into cells by 64-bit CAS ------------------------------------------------------

/// For `i < n`: cell `min((int)(py g_y), g_y - 1) * g_x + min((int)(px g_x), g_x - 1)` gets
/// `count + 1` in its high word and `min(low word, i)` in its low word (u64): order-free.
pub(crate) fn cell_cas64(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let (n, gx, gy) = (count(c, "n")?, count(c, "gx")?, count(c, "gy")?);
    expect_min(c, "px", n)?;
    expect_min(c, "py", n)?;
    expect_min(c, "cells", gx * gy)?;
    let (px, py, c0) = (c.column("px")?, c.column("py")?, c.column("cells")?);
    let mut cells: Vec<u64> = (0..c0.len()).map(|i| int_at(&c0, "cells", i).map(|v| v as u64)).collect::<Result<_, _>>()?;
    for i in 0..n {
        let cx = ((f64_at(&px, "px", i)? * gx as f64) as i32).min(gx as i32 - 1);
        let cy = ((f64_at(&py, "py", i)? * gy as f64) as i32).min(gy as i32 - 1);
        let k = usize::try_from(cy as i64 * gx as i64 + cx as i64)
            .ok()
            .filter(|&k| k < gx * gy)
            .ok_or_else(|| shape(format!("particle {i} outside the grid")))?;
        let old = cells[k];
        let cnt = ((old >> 32) as u32).wrapping_add(1);
        let lo = (old as u32).min(i as u32);
        cells[k] = ((cnt as u64) << 32) | lo as u64;
    }
    Ok(vec![expected("cells", cells.into_iter().map(|v| iv(v as i128)).collect())])
}
