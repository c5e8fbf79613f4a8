//! CPU references of the fourth batch of blind workloads (`suite/blind4/`): memory-heavy kernels
//! of the kinds users bring (bicg's column walk, a windowed gather, a 3D 7-point stencil, a
//! keyed f32 histogram, a CAS-loop float max, an in-place update of one struct field, a row-wise
//! L2 normalisation). Registered in [`crate::references`]; the strided record read uses
//! `strided_copy`, the transpose `transpose`, the u64 scatter `scatter`, the thread-per-row SpMV
//! `spmv_csr`, the million-counter count `histogram` and the every-third-u16 store
//! `strided_store`.
//!
//! Every float input here is a small integer (or the kernel's values are only compared, as in
//! the CAS max), so every f32 sum and product is exact and the order of the operations does not
//! matter: the checks are bitwise. The references still follow the kernels' f32 operations
//! (`f32::mul_add` where nvcc contracted to `fma.rn.f32`), and `row_l2_normalize` does what the
//! kernel does after its exact sum: `sqrt.rn`, `rcp.rn` and one `mul` per element, each
//! correctly rounded in f32. Buffers reach 64 MiB: inputs are read as
//! [`crate::reference::Column`]s (bytes, decoded per element).

use crate::dtype::Value;
use crate::reference::{count, expect_min, f32_at, index_at, initial, int_at, map_rows, scalar_f32, shape, Expected, RefCtx, RefError};




fn expected_f32(buffer: &str, values: impl IntoIterator<Item = f32>) -> Expected {
    Expected {
        buffer: buffer.into(),
        values: values
            .into_iter()
            .map(|v| Some(Value::Float(v as f64)))
            .collect(),
    }
}

// --- bicg: s = A^T r, thread per column ------------------------------------------------------

/// `s[j] = sum_i r[i] * A[i][j]` (A nrows x ncols, row-major): an f32 `fmaf(r[i], A[i][j], acc)`
/// chain in row order from 0, as the kernel's loop.
pub(crate) fn col_dots(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let (nrows, ncols) = (count(c, "nrows")?, count(c, "ncols")?);
    expect_min(c, "A", nrows * ncols)?;
    expect_min(c, "r", nrows)?;
    expect_min(c, "s", ncols)?;
    let (a, r) = (c.column("A")?, c.column("r")?);
    let mut acc = vec![0.0f32; ncols];
    for i in 0..nrows {
        let ri = f32_at(&r, "r", i)?;
        for (j, s) in acc.iter_mut().enumerate() {
            *s = ri.mul_add(f32_at(&a, "A", i * ncols + j)?, *s);
        }
    }
    let mut values = initial(c, "s")?;
    for (slot, v) in values.iter_mut().zip(acc) {
        *slot = Some(Value::Float(v as f64));
    }
    Ok(vec![Expected {
        buffer: "s".into(),
        values,
    }])
}

// --- windowed gather -------------------------------------------------------------------------

/// `out[i] = table[(i / per_window) * window + local[i]]` for `i < n`; the rest of `out` keeps
/// its initial value.
pub(crate) fn window_gather(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let (n, per_window, window) = (count(c, "n")?, count(c, "per_window")?, count(c, "window")?);
    if per_window == 0 {
        return Err(shape("`per_window` must be positive"));
    }
    let (local, table) = (c.column("local")?, c.column("table")?);
    let mut values = initial(c, "out")?;
    if values.len() < n {
        return Err(shape(format!("`out` has {} elements, needs {n}", values.len())));
    }
    for (i, slot) in values.iter_mut().enumerate().take(n) {
        let j = (i / per_window) * window + index_at(&local, "local", i, usize::MAX)?;
        *slot = Some(Value::Int(int_at(&table, "table", j)?));
    }
    Ok(vec![Expected {
        buffer: "out".into(),
        values,
    }])
}

// --- 3D 7-point stencil ----------------------------------------------------------------------

/// `out = c0 * in + c1 * (x-1 + x+1 + y-1 + y+1 + z-1 + z+1)` inside an nx x ny x nz grid (x
/// fastest), `in` on its six faces; f32: the neighbour sum left to right, then
/// `fmaf(c0, in, c1 * sum)` (exact for the manifest's small-integer inputs in any order).
pub(crate) fn stencil7_3d(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let (nx, ny, nz) = (count(c, "nx")?, count(c, "ny")?, count(c, "nz")?);
    let (c0, c1) = (scalar_f32(c, "c0")?, scalar_f32(c, "c1")?);
    let total = nx * ny * nz;
    expect_min(c, "in", total)?;
    if c.spec("out")?.len as usize != total {
        return Err(shape(format!("`out` must have nx * ny * nz = {total} elements")));
    }
    let col = c.column("in")?;
    let v = (0..total)
        .map(|k| f32_at(&col, "in", k))
        .collect::<Result<Vec<f32>, _>>()?;
    let plane = nx * ny;
    let mut out = Vec::with_capacity(total);
    for z in 0..nz {
        for y in 0..ny {
            for x in 0..nx {
                let k = z * plane + y * nx + x;
                let edge = x == 0 || x + 1 == nx || y == 0 || y + 1 == ny || z == 0 || z + 1 == nz;
                out.push(if edge {
                    v[k]
                } else {
                    let nb = v[k - 1] + v[k + 1] + v[k - nx] + v[k + nx] + v[k - plane] + v[k + plane];
                    c0.mul_add(v[k], c1 * nb)
                });
            }
        }
    }
    Ok(vec![expected_f32("out", out)])
}

// --- keyed f32 histogram ---------------------------------------------------------------------

/// `bins[keys[i]] += w[i]` for `i < n` (f64 sums of the f32 weights from bins' initial values:
/// exact for integer weights, whatever order the atomics take).
pub(crate) fn keyed_sum(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let n = count(c, "n")?;
    let (keys, w, start) = (c.column("keys")?, c.column("w")?, c.column("bins")?);
    let mut bins = (0..start.len())
        .map(|b| f32_at(&start, "bins", b).map(f64::from))
        .collect::<Result<Vec<f64>, _>>()?;
    for i in 0..n {
        let b = index_at(&keys, "keys", i, bins.len())?;
        bins[b] += f64::from(f32_at(&w, "w", i)?);
    }
    Ok(vec![Expected {
        buffer: "bins".into(),
        values: bins.into_iter().map(|v| Some(Value::Float(v))).collect(),
    }])
}

// --- CAS-loop float max ----------------------------------------------------------------------

/// `maxes[i % nslots] = max(maxes[i % nslots], vals[i])` for `i < n` (f32 `<` as the kernel's
/// loop: a slot only grows; the result does not depend on the order).
pub(crate) fn slot_max(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let (n, nslots) = (count(c, "n")?, count(c, "nslots")?);
    let (vals, start) = (c.column("vals")?, c.column("maxes")?);
    if nslots == 0 || start.len() < nslots {
        return Err(shape(format!("`maxes` has {} elements, nslots is {nslots}", start.len())));
    }
    let mut maxes = (0..start.len())
        .map(|b| f32_at(&start, "maxes", b))
        .collect::<Result<Vec<f32>, _>>()?;
    for i in 0..n {
        let v = f32_at(&vals, "vals", i)?;
        let m = &mut maxes[i % nslots];
        if *m < v {
            *m = v;
        }
    }
    Ok(vec![expected_f32("maxes", maxes)])
}

// --- one field of 16-byte structs ------------------------------------------------------------

/// `p[4i + 3] = fmaf(p[4i], dt, p[4i + 3])` for `i < n` (struct {x, y, z, w}: w += x * dt); every
/// other element unchanged.
pub(crate) fn aos_field_axpy(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let n = count(c, "n")?;
    let dt = scalar_f32(c, "dt")?;
    expect_min(c, "p", 4 * n)?;
    let p = c.column("p")?;
    let mut values = initial(c, "p")?;
    for i in 0..n {
        let (x, w) = (f32_at(&p, "p", 4 * i)?, f32_at(&p, "p", 4 * i + 3)?);
        values[4 * i + 3] = Some(Value::Float(x.mul_add(dt, w) as f64));
    }
    Ok(vec![Expected {
        buffer: "p".into(),
        values,
    }])
}

// --- row-wise L2 normalisation ---------------------------------------------------------------

/// `out = in * (1 / sqrt(sum of squares of the row))` per `cols`-element row: the f32 sum of
/// squares (exact for small-integer inputs, so the lanes' order and the butterfly do not
/// matter), then `sqrt`, the reciprocal and one product per element, each rounded to f32.
pub(crate) fn row_l2_normalize(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let out = map_rows(
        c,
        |col, i| f32_at(col, "in", i),
        |row, out| {
            let s = row.iter().fold(0.0f32, |s, &v| v.mul_add(v, s));
            let inv = 1.0f32 / s.sqrt();
            out.extend(row.iter().map(|&v| v * inv));
        },
    )?;
    Ok(vec![expected_f32("out", out)])
}

#[cfg(test)]
mod tests {
    #[test]
    fn stencil_interior_is_exact_for_small_integers() {
        let (c0, c1) = (0.25f32, 0.125f32);
        let nb = 15.0f32 * 6.0;
        assert_eq!(c0.mul_add(15.0, c1 * nb), 15.0 * 0.25 + 90.0 * 0.125);
    }
}
