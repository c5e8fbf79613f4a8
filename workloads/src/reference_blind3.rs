//! CPU references of the third batch of blind workloads (`suite/blind3/`): probes (a pointer
//! chase per thread, FFMA chains, a shuffle block sum, a register-spilling mix) and PolyBench /
//! Rodinia-style kernels (atax's row walk, syrk, covariance's mean and centring, a hotspot step,
//! pathfinder, batched Needleman-Wunsch, a backprop layer, one BFS level, SRAD's coefficients).
//! Registered in [`crate::references`]; the two transposes and the atomic counters use the
//! generic `transpose` and `histogram`.
//!
//! The PTX of every float kernel here has its products already contracted by nvcc into
//! `fma.rn.f32` (no `mul.f32` feeds an `add.f32`/`sub.f32`, so ptxas has nothing left to fuse),
//! which makes the f32 operation order fixed: `chase_threads`, `ffma_chains`, `shfl_block_sums`,
//! `spill_mix64`, `row_dots`, `syrk`, `column_center`, `pathfinder`, `nw_scores` and `bfs_level`
//! mimic it (or are integer) and are checked bitwise. `hotspot_step` and `srad_coeffs` compute in
//! f64 and `layer_forward` applies the sigmoid (the kernel's `expf`) in f64, for tolerance checks.
//! Compile-time constants of the kernels are either `[check.params]` entries or constants here
//! (keep them in step with `suite/blind3/kernel.cu`).

use crate::dtype::Value;
use crate::reference::{count, expect_min, int, scalar_f32, shape, Expected, RefCtx, RefError};

fn floats(c: &RefCtx, name: &str) -> Result<Vec<f32>, RefError> {
    Ok(c.values(name)?.into_iter().map(|v| v.as_f64() as f32).collect())
}

fn ints(c: &RefCtx, name: &str) -> Result<Vec<i64>, RefError> {
    Ok(c.values(name)?.into_iter().map(|v| int(v) as i64).collect())
}

fn out_f64(buffer: &str, values: impl IntoIterator<Item = f64>) -> Expected {
    Expected {
        buffer: buffer.into(),
        values: values.into_iter().map(|v| Some(Value::Float(v))).collect(),
    }
}

fn out_int(buffer: &str, values: impl IntoIterator<Item = i64>) -> Expected {
    Expected {
        buffer: buffer.into(),
        values: values.into_iter().map(|v| Some(Value::Int(v.into()))).collect(),
    }
}

/// Buffer `name` must hold exactly `want` elements.
fn expect_len(c: &RefCtx, name: &str, want: usize) -> Result<(), RefError> {
    let got = c.spec(name)?.len as usize;
    if got != want {
        return Err(shape(format!("`{name}` has {got} elements, expected {want}")));
    }
    Ok(())
}

// --- pointer chase, one chain per thread ---------------------------------------------------

/// `out[t]` = the element index reached from `t * start_stride` after `steps` steps `j = next[j]`
/// (u32 index arithmetic, as the kernel).
pub(crate) fn chase_threads(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let steps = c.scalar_int("steps")?.max(0);
    let stride = c.scalar_int("start_stride")? as u32;
    let threads = c.spec("out")?.len as u32;
    let len = c.spec("next")?.len;
    let mut out = Vec::with_capacity(threads as usize);
    for t in 0..threads {
        let mut j = t.wrapping_mul(stride);
        for _ in 0..steps {
            if u64::from(j) >= len {
                return Err(shape(format!("thread {t}: index {j} outside next (len {len})")));
            }
            j = int(c.element("next", j.into())?) as u32;
        }
        out.push(i64::from(j));
    }
    Ok(vec![out_int("out", out)])
}

// --- FFMA chains -------------------------------------------------------------------------

/// One thread of `ffma_ilp8`: chains `v_k = x + k` (f32 add), each stepped `iters` times by
/// `v = fmaf(v, a, b)`, then summed left to right from 0.
pub(crate) fn ffma_chains_of(x: f32, a: f32, b: f32, iters: usize, chains: usize) -> f32 {
    let mut v: Vec<f32> = (0..chains).map(|k| x + k as f32).collect();
    for _ in 0..iters {
        for vk in v.iter_mut() {
            *vk = vk.mul_add(a, b);
        }
    }
    v.iter().fold(0.0f32, |s, &vk| s + vk)
}

/// `out[i]` = [`ffma_chains_of`] `x[i]`.
pub(crate) fn ffma_chains(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let chains = c.count_param("chains")?;
    let (a, b) = (scalar_f32(c, "a")?, scalar_f32(c, "b")?);
    let iters = count(c, "iters")?;
    let x = floats(c, "x")?;
    let n = c.spec("out")?.len as usize;
    expect_min(c, "x", n)?;
    let out = x[..n].iter().map(|&x| ffma_chains_of(x, a, b, iters, chains) as f64);
    Ok(vec![out_f64("out", out)])
}

// --- shuffle block sums --------------------------------------------------------------------

/// `__shfl_down_sync` tree (16, 8, 4, 2, 1) of f32 adds over 32 lanes: lane l adds lane l + d,
/// or itself where l + d is past the warp (its result is then unused); lane 0's result.
pub(crate) fn shfl_down_sum(mut lanes: [f32; 32]) -> f32 {
    for d in [16, 8, 4, 2, 1] {
        let prev = lanes;
        for (l, v) in lanes.iter_mut().enumerate() {
            *v = prev[l] + prev[if l + d < 32 { l + d } else { l }];
        }
    }
    lanes[0]
}

/// The kernel's block sum for block `blk` of `blocks` x `threads`: thread t adds
/// `in[blk * threads + t + k * blocks * threads]` from 0, each warp reduces with
/// [`shfl_down_sum`], and warp 0 reduces the warp sums (lanes past the warp count hold 0).
pub(crate) fn shfl_block_sum(x: &[f32], blk: usize, blocks: usize, threads: usize) -> f32 {
    let mut warp_sums = [0.0f32; 32];
    for (w, sum) in warp_sums.iter_mut().enumerate().take(threads / 32) {
        let mut lanes = [0.0f32; 32];
        for (l, lane) in lanes.iter_mut().enumerate() {
            let t = w * 32 + l;
            let mut i = blk * threads + t;
            while i < x.len() {
                *lane += x[i];
                i += blocks * threads;
            }
        }
        *sum = shfl_down_sum(lanes);
    }
    shfl_down_sum(warp_sums)
}

/// `out[b]` = [`shfl_block_sum`] of the first `n` elements of `in` for each of the grid's blocks.
pub(crate) fn shfl_block_sums(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let n = count(c, "n")?;
    let (blocks, threads) = (c.manifest.launch().grid[0] as usize, c.manifest.launch().block[0] as usize);
    if c.manifest.launch().grid[1..] != [1, 1] || c.manifest.launch().block[1..] != [1, 1] || threads % 32 != 0 || threads > 1024 {
        return Err(shape("a 1D grid of 1D blocks of whole warps (at most 1024 threads)"));
    }
    expect_len(c, "out", blocks)?;
    expect_min(c, "in", n)?;
    let x = floats(c, "in")?;
    let out = (0..blocks).map(|b| shfl_block_sum(&x[..n], b, blocks, threads) as f64);
    Ok(vec![out_f64("out", out)])
}

// --- register-spilling mix -----------------------------------------------------------------

/// Values, rounds and neighbour offset of `spill_launch_bounds` (keep in step with kernel.cu).
const SPILL_VALS: usize = 64;
const SPILL_ROUNDS: usize = 10;
const SPILL_OFFSET: usize = 11;

/// One thread of `spill_launch_bounds`: `v[k] = fmaf(x, k + 1, k)`; `SPILL_ROUNDS` in-place
/// sweeps `v[k] = v[k] * 0.5 + v[(k + 11) % 64] * 0.25` (both products exact, one rounding);
/// then `s = fmaf(v[k], (k & 7) + 1, s)` from 0.
pub(crate) fn spill_mix(x: f32) -> f32 {
    let mut v: Vec<f32> = (0..SPILL_VALS).map(|k| x.mul_add((k + 1) as f32, k as f32)).collect();
    for _ in 0..SPILL_ROUNDS {
        for k in 0..SPILL_VALS {
            v[k] = v[k].mul_add(0.5, v[(k + SPILL_OFFSET) % SPILL_VALS] * 0.25);
        }
    }
    v.iter().enumerate().fold(0.0f32, |s, (k, &vk)| vk.mul_add(((k & 7) + 1) as f32, s))
}

/// `out[i]` = [`spill_mix`] `in[i]`.
pub(crate) fn spill_mix64(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let n = c.spec("out")?.len as usize;
    expect_min(c, "in", n)?;
    let x = floats(c, "in")?;
    Ok(vec![out_f64("out", x[..n].iter().map(|&x| spill_mix(x) as f64))])
}

// --- PolyBench: atax (row walk), syrk, covariance --------------------------------------------

/// `tmp[i] = sum_j A[i][j] x[j]` for the `nx` x `ny` row-major A: an `fmaf` chain in j order
/// from 0, as one thread per row computes it.
pub(crate) fn row_dots(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let (nx, ny) = (count(c, "nx")?, count(c, "ny")?);
    expect_min(c, "A", nx * ny)?;
    expect_min(c, "x", ny)?;
    expect_len(c, "tmp", nx)?;
    let (a, x) = (floats(c, "A")?, floats(c, "x")?);
    let tmp = (0..nx).map(|i| {
        a[i * ny..][..ny].iter().zip(&x).fold(0.0f32, |s, (&a, &x)| a.mul_add(x, s)) as f64
    });
    Ok(vec![out_f64("tmp", tmp)])
}

/// `C = alpha A Aᵀ + beta C` (A n x m, C n x n, row-major) as the naive kernel: `c = C * beta`,
/// then `c = fmaf(A[i][k] * alpha, A[j][k], c)` for k in order.
pub(crate) fn syrk(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let (n, m) = (count(c, "n")?, count(c, "m")?);
    let (alpha, beta) = (scalar_f32(c, "alpha")?, scalar_f32(c, "beta")?);
    expect_min(c, "A", n * m)?;
    expect_len(c, "C", n * n)?;
    let (a, c0) = (floats(c, "A")?, floats(c, "C")?);
    let mut out = Vec::with_capacity(n * n);
    for i in 0..n {
        let ai = &a[i * m..][..m];
        for j in 0..n {
            let aj = &a[j * m..][..m];
            let v = ai.iter().zip(aj).fold(c0[i * n + j] * beta, |acc, (&x, &y)| (x * alpha).mul_add(y, acc));
            out.push(v as f64);
        }
    }
    Ok(vec![out_f64("C", out)])
}

/// Column means of the `n` x `m` row-major `data` (an f32 sum down the column from 0, divided by
/// `float_n`, correctly rounded) and `data` with each column's mean subtracted (f32).
pub(crate) fn column_center(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let (m, n) = (count(c, "m")?, count(c, "n")?);
    let float_n = scalar_f32(c, "float_n")?;
    expect_len(c, "data", n * m)?;
    expect_len(c, "mean", m)?;
    let data = floats(c, "data")?;
    let mean: Vec<f32> = (0..m)
        .map(|j| (0..n).fold(0.0f32, |s, i| s + data[i * m + j]) / float_n)
        .collect();
    let centred = data.iter().enumerate().map(|(k, &v)| (v - mean[k % m]) as f64);
    Ok(vec![out_f64("data", centred), out_f64("mean", mean.iter().map(|&v| v as f64))])
}

// --- Rodinia: hotspot, pathfinder, Needleman-Wunsch, backprop, BFS, SRAD ---------------------

/// One explicit hotspot step in f64 over the `width` x `height` grid: `t + step_div_cap *
/// (p + (tS + tN - 2t) ry_1 + (tE + tW - 2t) rx_1 + (amb - t) rz_1)`, a missing neighbour at an
/// edge replaced by the cell itself.
pub(crate) fn hotspot(temp: &[f32], power: &[f32], width: usize, height: usize, k: [f64; 5]) -> Vec<f64> {
    let [step_div_cap, rx_1, ry_1, rz_1, amb] = k;
    let t = |x: usize, y: usize| temp[y * width + x] as f64;
    let mut out = Vec::with_capacity(width * height);
    for y in 0..height {
        let (yn, ys) = (y.saturating_sub(1), (y + 1).min(height - 1));
        for x in 0..width {
            let (xw, xe) = (x.saturating_sub(1), (x + 1).min(width - 1));
            let tc = t(x, y);
            let delta = step_div_cap
                * (power[y * width + x] as f64
                    + (t(x, ys) + t(x, yn) - 2.0 * tc) * ry_1
                    + (t(xe, y) + t(xw, y) - 2.0 * tc) * rx_1
                    + (amb - tc) * rz_1);
            out.push(tc + delta);
        }
    }
    out
}

/// `out` = one [`hotspot`] step of `temp` with `power`.
pub(crate) fn hotspot_step(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let (width, height) = (count(c, "width")?, count(c, "height")?);
    let cells = width * height;
    if cells == 0 {
        return Err(shape("an empty grid"));
    }
    expect_min(c, "temp", cells)?;
    expect_min(c, "power", cells)?;
    expect_len(c, "out", cells)?;
    let mut k = [0.0f64; 5];
    for (v, name) in k.iter_mut().zip(["step_div_cap", "rx_1", "ry_1", "rz_1", "amb"]) {
        *v = scalar_f32(c, name)? as f64;
    }
    let (temp, power) = (floats(c, "temp")?, floats(c, "power")?);
    Ok(vec![out_f64("out", hotspot(&temp, &power, width, height, k))])
}

/// The min-path DP: `rows` rows of `wall` (row-major, `cols` wide) on top of `src`; a cell adds its
/// wall cost to the least of the three cells above it, clamped at the edges (wrapping i32).
pub(crate) fn min_path(wall: &[i64], src: &[i64], cols: usize, rows: usize) -> Vec<i64> {
    let mut prev: Vec<i32> = src[..cols].iter().map(|&v| v as i32).collect();
    for r in 0..rows {
        prev = (0..cols)
            .map(|x| {
                let m = prev[x.saturating_sub(1)].min(prev[x]).min(prev[(x + 1).min(cols - 1)]);
                m.wrapping_add(wall[r * cols + x] as i32)
            })
            .collect();
    }
    prev.into_iter().map(i64::from).collect()
}

/// `dst` = [`min_path`] over `iteration` rows of `wall` from `src`.
pub(crate) fn pathfinder(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let (cols, rows) = (count(c, "cols")?, count(c, "iteration")?);
    if cols == 0 {
        return Err(shape("cols must be positive"));
    }
    expect_min(c, "wall", rows * cols)?;
    expect_min(c, "src", cols)?;
    expect_len(c, "dst", cols)?;
    let (wall, src) = (ints(c, "wall")?, ints(c, "src")?);
    Ok(vec![out_int("dst", min_path(&wall, &src, cols, rows))])
}

/// The Needleman-Wunsch score matrix ((n + 1) x (n + 1), row-major) of sequences `a` (rows) and
/// `b` (columns) with substitution matrix `subst` (`alphabet` x `alphabet`, `subst[a * alphabet + b]`)
/// and linear gap `penalty`: `H[i][0] = -i p`, `H[0][j] = -j p`,
/// `H[i][j] = max(H[i-1][j-1] + s(a_i, b_j), H[i-1][j] - p, H[i][j-1] - p)` (wrapping i32).
/// `None` for a residue outside the alphabet.
pub(crate) fn nw_matrix(a: &[i64], b: &[i64], subst: &[i64], alphabet: usize, penalty: i32) -> Option<Vec<i32>> {
    let n = a.len();
    let w = n + 1;
    let mut h = vec![0i32; w * w];
    for k in 1..=n {
        h[k * w] = -(k as i32).wrapping_mul(penalty);
        h[k] = -(k as i32).wrapping_mul(penalty);
    }
    let residue = |r: i64| usize::try_from(r).ok().filter(|&r| r < alphabet);
    for i in 1..=n {
        let ai = residue(a[i - 1])?;
        for j in 1..=n {
            let s = subst[ai * alphabet + residue(b[j - 1])?] as i32;
            let diag = h[(i - 1) * w + j - 1].wrapping_add(s);
            let up = h[(i - 1) * w + j].wrapping_sub(penalty);
            let left = h[i * w + j - 1].wrapping_sub(penalty);
            h[i * w + j] = diag.max(up).max(left);
        }
    }
    Some(h)
}

/// `score` = the [`nw_matrix`] of every pair: pair p aligns `seq_a[p n..][..n]` with
/// `seq_b[p n..][..n]`; the pairs' matrices one after another.
pub(crate) fn nw_scores(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let (n, alphabet) = (c.count_param("n")?, c.count_param("alphabet")?);
    let penalty = c.scalar_int("penalty")? as i32;
    let (sa, sb, subst) = (ints(c, "seq_a")?, ints(c, "seq_b")?, ints(c, "subst")?);
    if sa.len() % n != 0 || sb.len() != sa.len() || subst.len() < alphabet * alphabet {
        return Err(shape(format!(
            "seq_a ({}) and seq_b ({}) must be whole, equal numbers of {n}-residue sequences, subst ({}) {alphabet}²",
            sa.len(),
            sb.len(),
            subst.len()
        )));
    }
    let pairs = sa.len() / n;
    expect_len(c, "score", pairs * (n + 1) * (n + 1))?;
    let mut out = Vec::with_capacity(pairs * (n + 1) * (n + 1));
    for p in 0..pairs {
        let h = nw_matrix(&sa[p * n..][..n], &sb[p * n..][..n], &subst, alphabet, penalty)
            .ok_or_else(|| shape(format!("pair {p}: a residue outside the alphabet of {alphabet}")))?;
        out.extend(h.into_iter().map(i64::from));
    }
    Ok(vec![out_int("score", out)])
}

/// Threads per block of `backprop_forward` (keep in step with kernel.cu).
const BP_THREADS: usize = 256;

/// A hidden unit's pre-activation sum as the kernel computes it: thread t `fmaf`s
/// `w[i] * in[i]` for i = t, t + 256, ... from 0; a shared-memory tree (128, 64, ..., 1) adds
/// element t + stride into t; bias added last.
pub(crate) fn layer_sum(w: &[f32], x: &[f32], bias: f32) -> f32 {
    let mut partial = [0.0f32; BP_THREADS];
    for (i, (&w, &x)) in w.iter().zip(x).enumerate() {
        partial[i % BP_THREADS] = w.mul_add(x, partial[i % BP_THREADS]);
    }
    let mut stride = BP_THREADS / 2;
    while stride > 0 {
        for t in 0..stride {
            partial[t] += partial[t + stride];
        }
        stride /= 2;
    }
    partial[0] + bias
}

/// `out[j]` = sigmoid (in f64) of [`layer_sum`] of row j of `w` (`len(out)` x `n_in`) with `in`.
pub(crate) fn layer_forward(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let n_in = count(c, "n_in")?;
    let hidden = c.spec("out")?.len as usize;
    expect_min(c, "w", hidden * n_in)?;
    expect_min(c, "bias", hidden)?;
    expect_min(c, "in", n_in)?;
    let (w, bias, x) = (floats(c, "w")?, floats(c, "bias")?, floats(c, "in")?);
    let out = (0..hidden).map(|j| {
        let s = layer_sum(&w[j * n_in..][..n_in], &x[..n_in], bias[j]) as f64;
        1.0 / (1.0 + (-s).exp())
    });
    Ok(vec![out_f64("out", out)])
}

/// One BFS level over a CSR graph: every node v with `level[v] == cur` gives each neighbour u
/// with `level[u] < 0` the level `cur + 1` and sets `next[u] = 1` (levels as they were before the
/// level: a node reached in this level is never a frontier node, so the order does not matter).
/// `None` for an edge outside the graph.
pub(crate) fn bfs_step(row_ptr: &[i64], col_idx: &[i64], level: &[i64], cur: i64) -> Option<(Vec<i64>, Vec<i64>)> {
    let n = level.len();
    let mut new_level = level.to_vec();
    let mut next = vec![0i64; n];
    for v in 0..n {
        if level[v] != cur {
            continue;
        }
        let (lo, hi) = (usize::try_from(row_ptr[v]).ok()?, usize::try_from(row_ptr[v + 1]).ok()?);
        for &u in col_idx.get(lo..hi)? {
            let u = usize::try_from(u).ok().filter(|&u| u < n)?;
            if level[u] < 0 {
                new_level[u] = cur + 1;
                next[u] = 1;
            }
        }
    }
    Some((new_level, next))
}

/// `level` and `next` after one [`bfs_step`] from level `cur` over the first `n` nodes.
pub(crate) fn bfs_level(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let n = count(c, "n")?;
    let cur = c.scalar_int("cur")?;
    expect_len(c, "level", n)?;
    expect_len(c, "next", n)?;
    expect_min(c, "row_ptr", n + 1)?;
    let (rp, ci, level) = (ints(c, "row_ptr")?, ints(c, "col_idx")?, ints(c, "level")?);
    let (level, next) = bfs_step(&rp, &ci, &level, cur).ok_or_else(|| shape("an edge outside the graph"))?;
    Ok(vec![out_int("level", level), out_int("next", next)])
}

/// SRAD's first kernel in f64 for the `rows` x `cols` image `j`: per pixel the differences to
/// the north, south, west and east neighbours (clamped at the edges) and the diffusion
/// coefficient `1 / (1 + (q² - q0²) / (q0² (1 + q0²)))` clamped to [0, 1], where
/// `q² = (G2 / 2 - L² / 16) / (1 + L / 4)²`, `G2 = |∇|² / J²`, `L = Σd / J`.
pub(crate) fn srad(j: &[f32], rows: usize, cols: usize, q0sqr: f64) -> [Vec<f64>; 5] {
    let mut out: [Vec<f64>; 5] = Default::default();
    for o in out.iter_mut() {
        o.reserve(rows * cols);
    }
    let px = |i: usize, k: usize| j[i * cols + k] as f64;
    for i in 0..rows {
        for k in 0..cols {
            let jc = px(i, k);
            let d = [
                px(i.saturating_sub(1), k) - jc,
                px((i + 1).min(rows - 1), k) - jc,
                px(i, k.saturating_sub(1)) - jc,
                px(i, (k + 1).min(cols - 1)) - jc,
            ];
            let g2 = d.iter().map(|v| v * v).sum::<f64>() / (jc * jc);
            let l = d.iter().sum::<f64>() / jc;
            let num = 0.5 * g2 - l * l / 16.0;
            let den = 1.0 + 0.25 * l;
            let qsqr = num / (den * den);
            let den = (qsqr - q0sqr) / (q0sqr * (1.0 + q0sqr));
            let coef = (1.0 / (1.0 + den)).clamp(0.0, 1.0);
            for (o, v) in out.iter_mut().zip([d[0], d[1], d[2], d[3], coef]) {
                o.push(v);
            }
        }
    }
    out
}

/// `dN`, `dS`, `dW`, `dE`, `c` = [`srad`] of `J`.
pub(crate) fn srad_coeffs(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let (rows, cols) = (count(c, "rows")?, count(c, "cols")?);
    if rows == 0 || cols == 0 {
        return Err(shape("an empty image"));
    }
    let q0sqr = scalar_f32(c, "q0sqr")? as f64;
    expect_min(c, "J", rows * cols)?;
    for name in ["dN", "dS", "dW", "dE", "c"] {
        expect_len(c, name, rows * cols)?;
    }
    let j = floats(c, "J")?;
    let [n, s, w, e, coef] = srad(&j, rows, cols, q0sqr);
    Ok(vec![out_f64("dN", n), out_f64("dS", s), out_f64("dW", w), out_f64("dE", e), out_f64("c", coef)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shfl_down_sum_is_lane_zero_of_the_tree() {
        let mut lanes = [0.0f32; 32];
        for (l, v) in lanes.iter_mut().enumerate() {
            *v = l as f32;
        }
        assert_eq!(shfl_down_sum(lanes), (0..32).sum::<i32>() as f32);
        // order: lane 0 adds lane 16 first, so 2^24 + 1 rounds away before lane 1's 1 arrives
        let mut lanes = [0.0f32; 32];
        lanes[0] = 16_777_216.0;
        lanes[16] = 1.0;
        lanes[1] = 1.0;
        assert_eq!(shfl_down_sum(lanes), 16_777_216.0);
    }

    #[test]
    fn min_path_clamps_at_the_edges() {
        // src [5 1 7], one wall row [1 1 1]: [min(5,1)+1, min(5,1,7)+1, min(1,7)+1]
        assert_eq!(min_path(&[1, 1, 1], &[5, 1, 7], 3, 1), [2, 2, 2]);
        assert_eq!(min_path(&[0, 0, 0, 3, 0, 9], &[4, 8, 6], 3, 2), [7, 4, 13]);
        assert_eq!(min_path(&[2], &[3], 1, 1), [5]);
    }

    #[test]
    fn nw_matrix_of_identical_and_different_sequences() {
        // identity substitution (match 1, mismatch -1), gap 1
        let subst = [1, -1, -1, 1];
        let h = nw_matrix(&[0, 1], &[0, 1], &subst, 2, 1).unwrap();
        assert_eq!(h, [0, -1, -2, -1, 1, 0, -2, 0, 2]);
        let h = nw_matrix(&[0, 0], &[1, 1], &subst, 2, 1).unwrap();
        assert_eq!(h[8], -2);
        assert!(nw_matrix(&[2], &[0], &subst, 2, 1).is_none());
    }

    #[test]
    fn bfs_step_marks_only_unvisited_neighbours() {
        // 0 -> 1, 2; 1 -> 3; 2 -> 0; 3 -> 0: levels [0, -1, 1, -1], cur 0: 1 reached, 2 kept
        let (level, next) = bfs_step(&[0, 2, 3, 4, 5], &[1, 2, 3, 0, 0], &[0, -1, 1, -1], 0).unwrap();
        assert_eq!(level, [0, 1, 1, -1]);
        assert_eq!(next, [0, 1, 0, 0]);
        assert!(bfs_step(&[0, 1], &[5], &[0], 0).is_none());
    }

    #[test]
    fn srad_of_a_flat_image_diffuses_fully() {
        // no gradient: q = 0, c = 1 / (1 - 1 / (1 + q0²)) clamped to 1; differences 0
        let [n, _, _, e, c] = srad(&[2.0; 6], 2, 3, 0.1);
        assert!(n.iter().chain(&e).all(|&d| d == 0.0));
        assert!(c.iter().all(|&c| c == 1.0));
        // a bright pixel: its own coefficient drops below 1
        let mut img = [1.0f32; 9];
        img[4] = 3.0;
        let [_, s, ..] = srad(&img, 3, 3, 0.1);
        assert_eq!(s[1], 2.0);
        let c = &srad(&img, 3, 3, 0.1)[4];
        assert!(c[4] < 1.0 && c[4] >= 0.0, "{}", c[4]);
    }

    #[test]
    fn spill_mix_and_ffma_chains_are_finite_and_depend_on_x() {
        assert!(spill_mix(0.5).is_finite());
        assert_ne!(spill_mix(0.5), spill_mix(0.25));
        // one chain, one step: fmaf(x, a, b)
        assert_eq!(ffma_chains_of(2.0, 3.0, 1.0, 1, 1), 7.0);
        // two chains from x and x + 1, no steps: 2x + 1
        assert_eq!(ffma_chains_of(2.0, 3.0, 1.0, 0, 2), 5.0);
    }
}
