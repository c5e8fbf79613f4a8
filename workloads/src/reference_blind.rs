//! CPU references of the "blind" workloads (`suite/blind/`): softmax and layer normalization over
//! rows, a direct 3x3 convolution, a per-block sort, a GEMV, an ELLPACK SpMV, all-pairs n-body
//! accelerations and a k-means assignment step. Registered in [`crate::references`];
//! `prefix_sum_blocks` and `histogram256_smem` use the generic `block_scan` and `histogram`.
//!
//! `conv2d_3x3`, `gemv_rows`, `spmv_ell` and `kmeans_assign` mimic the kernels' f32 operation
//! order (`f32::mul_add` is the correctly rounded `fma.rn.f32`; f32 addition is commutative bit for
//! bit, so a butterfly of `shfl.xor` adds is reproduced by simulating the 32 lanes), so their checks
//! are bitwise. `softmax_rows`, `layernorm_rows` and `nbody_tile` use `ex2.approx` /
//! `rsqrt.approx` in the kernel and compute in f64 here, for a tolerance check. Each kernel's
//! compile-time sizes are `[check.params]` entries (`cols`, `chunk`, `width`, `k`; keep them in
//! step with `suite/blind/kernel.cu`).

use crate::dtype::Value;
use crate::reference::{int, Expected, RefCtx, RefError};

fn shape(msg: impl Into<String>) -> RefError {
    RefError::Shape(msg.into())
}

fn floats(c: &RefCtx, name: &str) -> Result<Vec<f32>, RefError> {
    Ok(c.values(name)?.into_iter().map(|v| v.as_f64() as f32).collect())
}

fn out_f64(buffer: &str, values: impl IntoIterator<Item = f64>) -> Vec<Expected> {
    vec![Expected {
        buffer: buffer.into(),
        values: values.into_iter().map(|v| Some(Value::Float(v))).collect(),
    }]
}

/// `rows` full rows of `cols` elements in `len` elements, or a Shape error naming `what`.
fn rows_of(what: &str, len: usize, cols: usize) -> Result<usize, RefError> {
    if !len.is_multiple_of(cols) {
        return Err(shape(format!("{what}: {len} elements are not whole rows of {cols}")));
    }
    Ok(len / cols)
}

// --- softmax ---------------------------------------------------------------------------------

/// Softmax of each `cols`-element row, in f64.
pub(crate) fn softmax(x: &[f32], cols: usize) -> Vec<f64> {
    let mut out = Vec::with_capacity(x.len());
    for row in x.chunks(cols) {
        let m = row.iter().fold(f64::NEG_INFINITY, |m, &v| m.max(v as f64));
        let e: Vec<f64> = row.iter().map(|&v| (v as f64 - m).exp()).collect();
        let s: f64 = e.iter().sum();
        out.extend(e.iter().map(|v| v / s));
    }
    out
}

/// `out` = row-wise softmax of `in` (`rows` rows of `cols`), f64.
pub(crate) fn softmax_rows(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let cols = c.count_param("cols")?;
    let rows = c.scalar_int("rows")?.max(0) as usize;
    let x = floats(c, "in")?;
    let n = c.spec("out")?.len as usize;
    if x.len() < rows * cols || n != rows * cols {
        return Err(shape(format!(
            "softmax of {rows} x {cols}: in has {}, out {n} elements",
            x.len()
        )));
    }
    Ok(out_f64("out", softmax(&x[..rows * cols], cols)))
}

// --- layer normalization ---------------------------------------------------------------------

/// Layer norm of each `cols`-element row in f64: `(x - mean) / sqrt(var + eps) * gamma + beta`,
/// with the biased variance (mean of squared deviations).
pub(crate) fn layernorm(x: &[f32], gamma: &[f32], beta: &[f32], eps: f64, cols: usize) -> Vec<f64> {
    let mut out = Vec::with_capacity(x.len());
    for row in x.chunks(cols) {
        let mean = row.iter().map(|&v| v as f64).sum::<f64>() / cols as f64;
        let var = row.iter().map(|&v| (v as f64 - mean).powi(2)).sum::<f64>() / cols as f64;
        let rstd = 1.0 / (var + eps).sqrt();
        out.extend(
            row.iter()
                .enumerate()
                .map(|(j, &v)| (v as f64 - mean) * rstd * gamma[j] as f64 + beta[j] as f64),
        );
    }
    out
}

/// `out` = layer norm of each `cols`-element row of `in` with per-column `gamma`, `beta`.
pub(crate) fn layernorm_rows(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let cols = c.count_param("cols")?;
    let eps = c.scalar("eps")?.as_f64() as f32 as f64;
    let (x, gamma, beta) = (floats(c, "in")?, floats(c, "gamma")?, floats(c, "beta")?);
    if gamma.len() < cols || beta.len() < cols {
        return Err(shape(format!("gamma and beta need {cols} elements")));
    }
    let n = c.spec("out")?.len as usize;
    rows_of("out", n, cols)?;
    if x.len() < n {
        return Err(shape(format!("in has {} elements, out {n}", x.len())));
    }
    Ok(out_f64("out", layernorm(&x[..n], &gamma, &beta, eps, cols)))
}

// --- 3x3 convolution -------------------------------------------------------------------------

/// The kernel's order: taps (dy, dx) row-major from (-1, -1), each `acc = fmaf(w, in, acc)` from
/// 0, taps outside the `width` x `height` image skipped.
pub(crate) fn conv3x3(x: &[f32], w: &[f32; 9], width: usize, height: usize) -> Vec<f32> {
    let mut out = vec![0.0f32; width * height];
    for y in 0..height {
        for xo in 0..width {
            let mut acc = 0.0f32;
            for dy in 0..3 {
                let Some(yy) = (y + dy).checked_sub(1).filter(|&yy| yy < height) else { continue };
                for dx in 0..3 {
                    let Some(xx) = (xo + dx).checked_sub(1).filter(|&xx| xx < width) else { continue };
                    acc = w[dy * 3 + dx].mul_add(x[yy * width + xx], acc);
                }
            }
            out[y * width + xo] = acc;
        }
    }
    out
}

/// `out` = 3x3 convolution (zero padding) of the `width` x `height` image `in` with weights `w`.
pub(crate) fn conv2d_3x3(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let (width, height) = (c.scalar_int("width")?.max(0) as usize, c.scalar_int("height")?.max(0) as usize);
    let x = floats(c, "in")?;
    let w: [f32; 9] = floats(c, "w")?
        .get(..9)
        .and_then(|s| s.try_into().ok())
        .ok_or_else(|| shape("w needs 9 weights"))?;
    let n = c.spec("out")?.len as usize;
    if x.len() < width * height || n != width * height {
        return Err(shape(format!(
            "conv of {height} x {width}: in has {}, out {n} elements",
            x.len()
        )));
    }
    Ok(out_f64("out", conv3x3(&x, &w, width, height).into_iter().map(f64::from)))
}

// --- per-block sort --------------------------------------------------------------------------

/// `out` = `in` with every `chunk`-element chunk sorted ascending (integers).
pub(crate) fn sort_chunks(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let chunk = c.count_param("chunk")?;
    let mut keys: Vec<i128> = c.values("in")?.into_iter().map(int).collect();
    let n = c.spec("out")?.len as usize;
    rows_of("out", n, chunk)?;
    if keys.len() < n {
        return Err(shape(format!("in has {} elements, out {n}", keys.len())));
    }
    keys.truncate(n);
    for ch in keys.chunks_mut(chunk) {
        ch.sort_unstable();
    }
    Ok(vec![Expected {
        buffer: "out".into(),
        values: keys.into_iter().map(|k| Some(Value::Int(k))).collect(),
    }])
}

// --- GEMV ------------------------------------------------------------------------------------

/// One warp's dot product as the kernel computes it: lane l accumulates
/// `fmaf(a[c], x[c], acc)` over c = l, l+32, ... from 0, then a `shfl.xor` butterfly
/// (16, 8, 4, 2, 1) of f32 adds; lane 0's result.
pub(crate) fn warp_dot(a: &[f32], x: &[f32]) -> f32 {
    let mut lanes = [0.0f32; 32];
    for (c, (&av, &xv)) in a.iter().zip(x).enumerate() {
        lanes[c % 32] = av.mul_add(xv, lanes[c % 32]);
    }
    for d in [16, 8, 4, 2, 1] {
        let prev = lanes;
        for (l, v) in lanes.iter_mut().enumerate() {
            *v = prev[l] + prev[l ^ d];
        }
    }
    lanes[0]
}

/// `y = A x`, A `rows` x `cols` row-major, in the kernel's f32 order (see [`warp_dot`]).
pub(crate) fn gemv_rows(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let (rows, cols) = (c.scalar_int("rows")?.max(0) as usize, c.scalar_int("cols")?.max(0) as usize);
    let (a, x) = (floats(c, "A")?, floats(c, "x")?);
    if a.len() < rows * cols || x.len() < cols || (c.spec("y")?.len as usize) != rows {
        return Err(shape(format!(
            "gemv of {rows} x {cols}: A has {}, x {}, y {} elements",
            a.len(),
            x.len(),
            c.spec("y")?.len
        )));
    }
    let y = (0..rows).map(|r| warp_dot(&a[r * cols..][..cols], &x[..cols]) as f64);
    Ok(out_f64("y", y))
}

// --- SpMV, ELLPACK ---------------------------------------------------------------------------

/// `y = A x` for an ELL matrix of `width` entries per row stored column-major (entry k of row r
/// at `k * rows + r`), in the kernel's order: `acc = fmaf(vals, x[col], acc)` for k = 0, 1, ...
/// from 0. `None` for a column index outside `x`.
pub(crate) fn ell_spmv(cols: &[i128], vals: &[f32], x: &[f32], rows: usize, width: usize) -> Option<Vec<f32>> {
    (0..rows)
        .map(|r| {
            (0..width).try_fold(0.0f32, |acc, k| {
                let c = usize::try_from(cols[k * rows + r]).ok()?;
                Some(vals[k * rows + r].mul_add(*x.get(c)?, acc))
            })
        })
        .collect()
}

/// `y = A x`, A in ELLPACK (`cols`, `vals`: `width` x `rows`, column-major), f32 as the kernel.
pub(crate) fn spmv_ell(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let width = c.count_param("width")?;
    let rows = c.scalar_int("rows")?.max(0) as usize;
    let cols: Vec<i128> = c.values("cols")?.into_iter().map(int).collect();
    let (vals, x) = (floats(c, "vals")?, floats(c, "x")?);
    let ny = c.spec("y")?.len as usize;
    if cols.len() < rows * width || vals.len() < rows * width || ny != rows {
        return Err(shape(format!(
            "ELL of {rows} rows x {width}: cols has {}, vals {}, y {ny} elements",
            cols.len(),
            vals.len()
        )));
    }
    let y = ell_spmv(&cols, &vals, &x, rows, width).ok_or_else(|| shape("a column index is outside x"))?;
    Ok(out_f64("y", y.into_iter().map(f64::from)))
}

// --- n-body ----------------------------------------------------------------------------------

/// Gravitational accelerations in f64: body i (x, y, z, mass in `pos[4i..4i + 4]`) gets
/// `sum_j m_j d / (|d|^2 + eps2)^(3/2)` with `d = p_j - p_i` (j = i included: it adds 0), as
/// (ax, ay, az, 0).
pub(crate) fn nbody(pos: &[f32], eps2: f64) -> Vec<f64> {
    let p: Vec<[f64; 4]> = pos.chunks_exact(4).map(|b| [b[0], b[1], b[2], b[3]].map(f64::from)).collect();
    let mut out = Vec::with_capacity(4 * p.len());
    for pi in &p {
        let mut a = [0.0f64; 3];
        for pj in &p {
            let d = [pj[0] - pi[0], pj[1] - pi[1], pj[2] - pi[2]];
            let r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + eps2;
            let s = pj[3] / (r2 * r2.sqrt());
            for k in 0..3 {
                a[k] += d[k] * s;
            }
        }
        out.extend([a[0], a[1], a[2], 0.0]);
    }
    out
}

/// `acc` = all-pairs accelerations of the `n` bodies of `pos` (x, y, z, mass), softening `eps2`.
/// The kernel's f32 sums of n terms cancel heavily (the terms' magnitudes add up to far more than
/// the result), so its error against this is ~1e-4 at worst: the manifest's tolerance is 1e-3.
pub(crate) fn nbody_tile(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let n = c.scalar_int("n")?.max(0) as usize;
    let eps2 = c.scalar("eps2")?.as_f64() as f32 as f64;
    let pos = floats(c, "pos")?;
    let nacc = c.spec("acc")?.len as usize;
    if pos.len() < 4 * n || nacc != 4 * n {
        return Err(shape(format!("{n} bodies: pos has {}, acc {nacc} elements", pos.len())));
    }
    Ok(out_f64("acc", nbody(&pos[..4 * n], eps2)))
}

// --- k-means assignment ----------------------------------------------------------------------

/// Index of the nearest centroid of each 2-D point (interleaved x, y), as the kernel computes it:
/// `dx = px - cx`, `dy = py - cy` and `fmaf(dy, dy, dx * dx)` in f32, centroids in order, a
/// strictly smaller distance replacing the best (ties keep the lowest index).
pub(crate) fn nearest_centroid(points: &[f32], centroids: &[f32]) -> Vec<u32> {
    points
        .chunks_exact(2)
        .map(|p| {
            let mut best = (0u32, 0.0f32);
            for (k, c) in centroids.chunks_exact(2).enumerate() {
                let (dx, dy) = (p[0] - c[0], p[1] - c[1]);
                let d = dy.mul_add(dy, dx * dx);
                if k == 0 || d < best.1 {
                    best = (k as u32, d);
                }
            }
            best.0
        })
        .collect()
}

/// `labels` = nearest of the `k` centroids (f32 pairs) for each of the `n` points (f32 pairs).
pub(crate) fn kmeans_assign(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let k = c.count_param("k")?;
    let n = c.scalar_int("n")?.max(0) as usize;
    let (points, centroids) = (floats(c, "points")?, floats(c, "centroids")?);
    let nl = c.spec("labels")?.len as usize;
    if points.len() < 2 * n || centroids.len() < 2 * k || nl != n {
        return Err(shape(format!(
            "{n} points, {k} centroids: points has {}, centroids {}, labels {nl} elements",
            points.len(),
            centroids.len()
        )));
    }
    let labels = nearest_centroid(&points[..2 * n], &centroids[..2 * k]);
    Ok(vec![Expected {
        buffer: "labels".into(),
        values: labels.into_iter().map(|l| Some(Value::Int(l.into()))).collect(),
    }])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn softmax_rows_sum_to_one_and_keep_order() {
        let x: Vec<f32> = (0..64).map(|i| ((i * 37) % 19) as f32 * 0.25 - 2.0).collect();
        let y = softmax(&x, 16);
        for (row, xs) in y.chunks(16).zip(x.chunks(16)) {
            assert!((row.iter().sum::<f64>() - 1.0).abs() < 1e-12);
            for i in 0..16 {
                for j in 0..16 {
                    assert_eq!(xs[i] < xs[j], row[i] < row[j]);
                }
            }
        }
        // shift invariance
        let shifted: Vec<f32> = x.iter().map(|v| v + 3.0).collect();
        for (a, b) in softmax(&shifted, 16).iter().zip(&y) {
            assert!((a - b).abs() < 1e-12);
        }
    }

    #[test]
    fn layernorm_gives_mean_zero_variance_one() {
        let x: Vec<f32> = (0..32).map(|i| ((i * 7) % 11) as f32 - 4.0).collect();
        let ones = vec![1.0f32; 8];
        let zeros = vec![0.0f32; 8];
        for row in layernorm(&x, &ones, &zeros, 0.0, 8).chunks(8) {
            let mean = row.iter().sum::<f64>() / 8.0;
            let var = row.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / 8.0;
            assert!(mean.abs() < 1e-12 && (var - 1.0).abs() < 1e-12, "{mean} {var}");
        }
        // gamma scales, beta shifts
        let g = vec![2.0f32; 8];
        let b = vec![0.5f32; 8];
        let base = layernorm(&x, &ones, &zeros, 0.0, 8);
        for (v, w) in layernorm(&x, &g, &b, 0.0, 8).iter().zip(&base) {
            assert!((v - (2.0 * w + 0.5)).abs() < 1e-12);
        }
    }

    #[test]
    fn conv3x3_identity_box_and_padding() {
        let (w, h) = (5, 4);
        let x: Vec<f32> = (0..w * h).map(|i| i as f32).collect();
        let mut id = [0.0f32; 9];
        id[4] = 1.0;
        assert_eq!(conv3x3(&x, &id, w, h), x);
        let ones = conv3x3(&vec![1.0; w * h], &[1.0; 9], w, h);
        assert_eq!(ones[0], 4.0); // corner: 2 x 2 taps inside
        assert_eq!(ones[1], 6.0); // edge
        assert_eq!(ones[w + 1], 9.0); // interior
        // shift right by one: weight at (dx = -1) reads the left neighbour, zero at x = 0
        let mut left = [0.0f32; 9];
        left[3] = 1.0;
        let y = conv3x3(&x, &left, w, h);
        assert_eq!((y[0], y[1], y[w + 2]), (0.0, 0.0, (w + 1) as f32));
    }

    #[test]
    fn warp_dot_is_the_butterfly_of_lane_sums() {
        // exact small integers: any order gives the exact dot product
        let a: Vec<f32> = (0..100).map(|i| (i % 7) as f32 - 3.0).collect();
        let x: Vec<f32> = (0..100).map(|i| (i % 5) as f32).collect();
        let exact: f32 = a.iter().zip(&x).map(|(a, x)| a * x).sum();
        assert_eq!(warp_dot(&a, &x), exact);
        // rounding order: lanes 0 and 1 hold 1, lane 16 holds 2^24; the butterfly adds lanes 0
        // and 16 first (1 + 2^24 rounds to 2^24, ties to even) and lane 1's 1 last (rounds away
        // again), where a sequential sum 1 + 1 + 2^24 would be exact
        let mut a = vec![0.0f32; 32];
        a[0] = 1.0;
        a[16] = 16_777_216.0;
        a[1] = 1.0;
        let ones = vec![1.0f32; 32];
        assert_eq!(warp_dot(&a, &ones), 16_777_216.0);
        assert_eq!(a.iter().sum::<f32>(), 16_777_218.0);
    }

    #[test]
    fn ell_spmv_is_a_chain_of_fmas_in_entry_order() {
        // one row, entries 2^24, 1, 1 (x all ones): fmaf from 0 in order rounds 2^24 + 1 to 2^24
        // twice, where the other order would be exact
        let x = [1.0f32; 3];
        let y = ell_spmv(&[0, 1, 2], &[16_777_216.0, 1.0, 1.0], &x, 1, 3).unwrap();
        assert_eq!(y, [16_777_216.0]);
        let y = ell_spmv(&[0, 1, 2], &[1.0, 1.0, 16_777_216.0], &x, 1, 3).unwrap();
        assert_eq!(y, [16_777_218.0]);
        // column-major: rows 0 and 1 of width 2
        let y = ell_spmv(&[0, 1, 1, 0], &[1.0, 2.0, 3.0, 4.0], &[10.0, 100.0], 2, 2).unwrap();
        assert_eq!(y, [310.0, 240.0]);
        assert_eq!(ell_spmv(&[5], &[1.0], &x, 1, 1), None);
    }

    #[test]
    fn nearest_centroid_ties_and_nbody_symmetry() {
        let c = [0.0f32, 0.0, 2.0, 0.0, 0.0, 2.0, 2.0, 0.0];
        // (1, 0) ties centroids 0 and 1 (and 3, a duplicate of 1): the lowest index
        assert_eq!(nearest_centroid(&[1.0, 0.0, 1.9, 0.1, 0.1, 1.9], &c), [0, 1, 2]);
        // equal masses: equal and opposite accelerations
        let a = nbody(&[0.0, 0.0, 0.0, 1.0, 1.0, 2.0, 2.0, 1.0], 0.5);
        for k in 0..3 {
            assert!((a[k] + a[4 + k]).abs() < 1e-15 && a[k] > 0.0);
        }
        assert!((a[0] - 1.0 / 9.5f64.powf(1.5)).abs() < 1e-15);
    }
}
