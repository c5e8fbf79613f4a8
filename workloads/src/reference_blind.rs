//! CPU references of the "blind" workloads (`suite/blind/`): softmax and layer normalization over
//! rows, a direct 3x3 convolution, a per-block sort and a GEMV. Registered in
//! [`crate::references`].
//!
//! `conv2d_3x3` and `gemv_rows` mimic the kernels' f32 operation order (`f32::mul_add` is the
//! correctly rounded `fma.rn.f32`; f32 addition is commutative bit for bit, so a butterfly of
//! `shfl.xor` adds is reproduced by simulating the 32 lanes), so their checks are bitwise.
//! `softmax_rows` and `layernorm_rows` use `ex2.approx` / `rsqrt.approx` in the kernel and compute
//! in f64 here, for a tolerance check. Each kernel's compile-time row width is a
//! `[check.params] cols` entry (keep it in step with `suite/blind/kernel.cu`).

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
}
