//! CPU references of the fifth batch of blind workloads (`suite/blind5/`): memory-heavy kernels
//! of the kinds users bring (an in-place affine update, one word of each 8-byte pair updated, a
//! smoothing step that reads back through global memory what its CTA just wrote, softmax-shaped
//! rows, u16 column sums, a CAS-loop keyed max, a CAS bounded bucket fill, an ELLPACK-R SpMV).
//! Registered in [`crate::references`]; the u16 transpose uses `transpose`, the gather `gather`
//! and the CAS-loop float adds blind4's `keyed_sum`.
//!
//! Every float input here is a small integer, so every f32 sum and product before the final
//! scaling is exact and the order of the operations does not matter: the checks are bitwise. The
//! references still follow the kernels' f32 operations (`f32::mul_add` where nvcc contracted to
//! `fma.rn.f32`); `softmax_shift_rows` rounds as the kernel does after its exact sums (`rcp.rn`,
//! then one `mul` per element). Integer kernels wrap in u32 like the GPU. Inputs are read as
//! [`crate::reference::Column`]s (bytes, decoded per element).

use crate::dtype::Value;
use crate::reference::{count, expected, expect_min, f32_at, index_at, initial, int_at, map_rows, scalar_f32, Column, Expected, RefCtx, RefError};



fn u32_at(col: &Column, name: &str, i: usize) -> Result<u32, RefError> {
    int_at(col, name, i).map(|v| v as u32)
}


fn f32s(values: impl IntoIterator<Item = f32>) -> Vec<Option<Value>> {
    values.into_iter().map(|v| Some(Value::Float(v as f64))).collect()
}

fn u32s(values: impl IntoIterator<Item = u32>) -> Vec<Option<Value>> {
    values.into_iter().map(|v| Some(Value::Int(v as i128))).collect()
}

// --- in-place affine update ------------------------------------------------------------------

/// `a[i] = fmaf(a[i], c, d)` for `i < n` (nvcc contracts `a * c + d`); the rest of `a` unchanged.
pub(crate) fn affine_inplace(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let n = count(c, "n")?;
    let (mul, add) = (scalar_f32(c, "c")?, scalar_f32(c, "d")?);
    expect_min(c, "a", n)?;
    let a = c.column("a")?;
    let mut values = initial(c, "a")?;
    for (i, slot) in values.iter_mut().enumerate().take(n) {
        *slot = Some(Value::Float(f32_at(&a, "a", i)?.mul_add(mul, add) as f64));
    }
    Ok(vec![expected("a", values)])
}

// --- one word of each {key, val} pair --------------------------------------------------------

/// `kv[2i + 1] += kv[2i] & mask` (u32, wrapping) for `i < n`; keys and the rest unchanged.
pub(crate) fn pair_val_add(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let n = count(c, "n")?;
    let mask = c.scalar_int("mask")? as u32;
    expect_min(c, "kv", 2 * n)?;
    let kv = c.column("kv")?;
    let mut values = initial(c, "kv")?;
    for i in 0..n {
        let (key, val) = (u32_at(&kv, "kv", 2 * i)?, u32_at(&kv, "kv", 2 * i + 1)?);
        values[2 * i + 1] = Some(Value::Int(val.wrapping_add(key & mask) as i128));
    }
    Ok(vec![expected("kv", values)])
}

// --- two-phase smoothing through global memory -----------------------------------------------

/// Per `tile`-entry tile (`ntiles` of them): `part[g] = in[4g] + .. + in[4g + 3]`, then
/// `out[g] = part[g - 1] + 2 part[g] + part[g + 1]` inside the tile, a tile's first / last entry
/// standing in for its missing left / right neighbour (u32, wrapping).
pub(crate) fn quad_smooth(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let (ntiles, tile) = (count(c, "ntiles")?, c.count_param("tile")?);
    let total = ntiles * tile;
    expect_min(c, "in", 4 * total)?;
    expect_min(c, "part", total)?;
    expect_min(c, "out", total)?;
    let input = c.column("in")?;
    let mut part = Vec::with_capacity(total);
    for g in 0..total {
        let mut s = 0u32;
        for k in 0..4 {
            s = s.wrapping_add(u32_at(&input, "in", 4 * g + k)?);
        }
        part.push(s);
    }
    let out = (0..total).map(|g| {
        let t = g % tile;
        let s = part[g];
        let l = if t > 0 { part[g - 1] } else { s };
        let r = if t + 1 < tile { part[g + 1] } else { s };
        l.wrapping_add(s.wrapping_mul(2)).wrapping_add(r)
    });
    let mut part_values = initial(c, "part")?;
    let mut out_values = initial(c, "out")?;
    for (slot, v) in part_values.iter_mut().zip(u32s(part.iter().copied())) {
        *slot = v;
    }
    for (slot, v) in out_values.iter_mut().zip(u32s(out)) {
        *slot = v;
    }
    Ok(vec![expected("part", part_values), expected("out", out_values)])
}

// --- softmax-shaped rows ---------------------------------------------------------------------

/// Per `cols`-element row: `m` = the row's f32 max, `e = (v - m) + 128`, `s` = the f32 sum of the
/// e (exact for small integers, whatever the order), `out = e * (1 / s)` with the reciprocal and
/// the product each rounded to f32.
pub(crate) fn softmax_shift_rows(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let out = map_rows(
        c,
        |col, i| f32_at(col, "in", i),
        |row, out| {
            let m = row.iter().fold(-3.0e38f32, |m, &v| m.max(v));
            let s = row.iter().fold(0.0f32, |s, &v| s + (v - m + 128.0));
            let inv = 1.0f32 / s;
            out.extend(row.iter().map(|&v| (v - m + 128.0) * inv));
        },
    )?;
    Ok(vec![expected("out", f32s(out))])
}

// --- column sums -----------------------------------------------------------------------------

/// `sums[j] = sum_i A[i][j]` (A rows × cols, row-major), u32 wrapping.
pub(crate) fn col_sums(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let (rows, cols) = (count(c, "rows")?, count(c, "cols")?);
    expect_min(c, "A", rows * cols)?;
    expect_min(c, "sums", cols)?;
    let a = c.column("A")?;
    let mut acc = vec![0u32; cols];
    for i in 0..rows {
        for (j, s) in acc.iter_mut().enumerate() {
            *s = s.wrapping_add(u32_at(&a, "A", i * cols + j)?);
        }
    }
    let mut values = initial(c, "sums")?;
    for (slot, v) in values.iter_mut().zip(u32s(acc)) {
        *slot = v;
    }
    Ok(vec![expected("sums", values)])
}

// --- CAS-loop keyed max ----------------------------------------------------------------------

/// `maxes[keys[i]] = max(maxes[keys[i]], vals[i])` for `i < n` (u32; a slot only grows, so the
/// result does not depend on the order).
pub(crate) fn keyed_max(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let n = count(c, "n")?;
    let (keys, vals, start) = (c.column("keys")?, c.column("vals")?, c.column("maxes")?);
    let mut maxes = (0..start.len())
        .map(|k| u32_at(&start, "maxes", k))
        .collect::<Result<Vec<u32>, _>>()?;
    for i in 0..n {
        let k = index_at(&keys, "keys", i, maxes.len())?;
        maxes[k] = maxes[k].max(u32_at(&vals, "vals", i)?);
    }
    Ok(vec![expected("maxes", u32s(maxes))])
}

// --- CAS bounded bucket fill -----------------------------------------------------------------

/// For `i < n`, item i claims slot `counts[k]` of bucket `k = keys[i]` while it is below `cap`
/// (then `counts[k] += 1` and `fill[k * cap + slot] = k + 1`): whatever the order, bucket k ends
/// with `min(cap, start + items of k)` (from a start below cap) and slots `start..` of it marked.
pub(crate) fn bucket_fill(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let n = count(c, "n")?;
    let cap = count(c, "cap")?;
    let (keys, start) = (c.column("keys")?, c.column("counts")?);
    let buckets = start.len();
    expect_min(c, "fill", buckets * cap)?;
    let mut counts = (0..buckets)
        .map(|k| u32_at(&start, "counts", k))
        .collect::<Result<Vec<u32>, _>>()?;
    let mut fill = initial(c, "fill")?;
    for i in 0..n {
        let k = index_at(&keys, "keys", i, buckets)?;
        let slot = counts[k] as usize;
        if slot < cap {
            counts[k] += 1;
            fill[k * cap + slot] = Some(Value::Int(k as i128 + 1));
        }
    }
    Ok(vec![expected("counts", u32s(counts)), expected("fill", fill)])
}

// --- ELLPACK-R SpMV --------------------------------------------------------------------------

/// `y[r] = sum_{k < row_len[r]} vals[k*rows + r] * x[cols[k*rows + r]]`, an f32 `fmaf` chain in k
/// order from 0 (exact for small integers).
pub(crate) fn spmv_ellr(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let rows = count(c, "rows")?;
    expect_min(c, "row_len", rows)?;
    expect_min(c, "y", rows)?;
    let (len, cols, vals, x) = (c.column("row_len")?, c.column("cols")?, c.column("vals")?, c.column("x")?);
    let mut values = initial(c, "y")?;
    for (r, slot) in values.iter_mut().enumerate().take(rows) {
        let l = index_at(&len, "row_len", r, usize::MAX)?;
        let mut acc = 0.0f32;
        for k in 0..l {
            let e = k * rows + r;
            let col = index_at(&cols, "cols", e, x.len())?;
            acc = f32_at(&vals, "vals", e)?.mul_add(f32_at(&x, "x", col)?, acc);
        }
        *slot = Some(Value::Float(acc as f64));
    }
    Ok(vec![expected("y", values)])
}
