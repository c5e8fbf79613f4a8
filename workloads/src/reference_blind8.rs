//! CPU references of the eighth batch of blind workloads (`suite/blind8/`): kernels in the style
//! of PolyBench/GPU, Rodinia, Parboil, SHOC, the CUDA SDK and Pannotia/Lonestar-style graph codes.
//! Registered in [`crate::references`]; atax's column kernel uses blind4's `col_dots` and 3mm's
//! first product the generic `matmul`.
//!
//! The float references follow the kernels' f32 operations as nvcc 13.0 compiled them (`mul_add`
//! where the PTX has `fma.rn.f32`, each other operation rounded to f32), so their checks are
//! bitwise. Where the PTX leaves a `mul.f32` feeding an `add`/`sub.f32` that ptxas then fuses into
//! one FFMA (Rodinia's Fan2, SHOC's `lj1 * r6inv - lj2`), PTX and SASS round differently: Fan2's
//! inputs are small integers (exact either way), and the Lennard-Jones reference follows the SASS
//! (fused) and is checked with a tolerance. The graph and histogram results are integer sums,
//! minima and counts: order-free.

use crate::reference::{count, expected, fl, iv, expect_min, f32_at, index_at, initial, int_at, scalar_f32, shape, Expected, RefCtx, RefError};

/// The first `n` elements of a buffer as f32.
fn f32s(c: &RefCtx, name: &str, n: usize) -> Result<Vec<f32>, RefError> {
    expect_min(c, name, n)?;
    let col = c.column(name)?;
    (0..n).map(|i| f32_at(&col, name, i)).collect()
}

/// The first `n` elements of an integer buffer as i64.
fn ints(c: &RefCtx, name: &str, n: usize) -> Result<Vec<i64>, RefError> {
    expect_min(c, name, n)?;
    let col = c.column(name)?;
    (0..n).map(|i| int_at(&col, name, i).map(|v| v as i64)).collect()
}

/// A CSR `row_ptr` of `n + 1` offsets, non-decreasing from 0 and within `col_idx`.
fn csr_rows(c: &RefCtx, n: usize) -> Result<Vec<usize>, RefError> {
    let rp = ints(c, "row_ptr", n + 1)?;
    let edges = c.spec("col_idx")?.len as i64;
    if rp[0] != 0 || rp.windows(2).any(|w| w[0] > w[1]) || rp[n] > edges {
        return Err(shape("row_ptr must rise from 0 to at most len(col_idx)"));
    }
    Ok(rp.into_iter().map(|v| v as usize).collect())
}

// --- PolyBench gesummv ------------------------------------------------------------------------

/// Per row i < n: `tmp[i]` and `y[i]` accumulate `fma(a[i][j], x[j], .)` (b for y) for j in order
/// from their initial values, then `y[i] = fma(alpha, tmp[i], beta * y[i])`.
pub(crate) fn gesummv(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let n = count(c, "n")?;
    let (alpha, beta) = (scalar_f32(c, "alpha")?, scalar_f32(c, "beta")?);
    expect_min(c, "a", n * n)?;
    expect_min(c, "b", n * n)?;
    let (a, b) = (c.column("a")?, c.column("b")?);
    let x = f32s(c, "x", n)?;
    let (mut y, mut tmp) = (initial(c, "y")?, initial(c, "tmp")?);
    if y.len() < n || tmp.len() < n {
        return Err(shape(format!("y and tmp need {n} elements")));
    }
    let (y0, t0) = (f32s(c, "y", n)?, f32s(c, "tmp", n)?);
    for i in 0..n {
        let (mut t, mut s) = (t0[i], y0[i]);
        for (j, &xj) in x.iter().enumerate() {
            t = f32_at(&a, "a", i * n + j)?.mul_add(xj, t);
            s = f32_at(&b, "b", i * n + j)?.mul_add(xj, s);
        }
        tmp[i] = fl(t);
        y[i] = fl(alpha.mul_add(t, beta * s));
    }
    Ok(vec![expected("y", y), expected("tmp", tmp)])
}

// --- PolyBench fdtd-2d, the hz step -----------------------------------------------------------

/// For i < nx - 1, j < ny - 1: `hz[i][j] = fma(((ex[i][j+1] - ex[i][j]) + ey[i+1][j]) - ey[i][j],
/// -0.7f, hz[i][j])` (ex nx × (ny+1), ey (nx+1) × ny, hz nx × ny, row-major); the last row and
/// column of hz unchanged.
pub(crate) fn fdtd_hz(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let (nx, ny) = (count(c, "nx")?, count(c, "ny")?);
    let ex = f32s(c, "ex", nx * (ny + 1))?;
    let ey = f32s(c, "ey", (nx + 1) * ny)?;
    let h0 = f32s(c, "hz", nx * ny)?;
    let mut hz = initial(c, "hz")?;
    for i in 0..nx.saturating_sub(1) {
        for j in 0..ny.saturating_sub(1) {
            let s = ((ex[i * (ny + 1) + j + 1] - ex[i * (ny + 1) + j]) + ey[(i + 1) * ny + j]) - ey[i * ny + j];
            hz[i * ny + j] = fl(s.mul_add(-0.7f32, h0[i * ny + j]));
        }
    }
    Ok(vec![expected("hz", hz)])
}

// --- Rodinia gaussian, Fan2 -------------------------------------------------------------------

/// Elimination of column t (`size` × `size`, row-major): for rows i > t and columns j >= t,
/// `a[i][j] -= m[i][t] a[t][j]`; `b[i] -= m[i][t] b[t]`. One rounding per update (ptxas fuses the
/// product into the subtraction; the checked inputs are small integers, exact either way).
pub(crate) fn gauss_fan2(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let size = count(c, "size")?;
    let t = count(c, "t")?;
    if t >= size {
        return Err(shape(format!("t = {t} must be below size = {size}")));
    }
    let m = f32s(c, "m", size * size)?;
    let a0 = f32s(c, "a", size * size)?;
    let b0 = f32s(c, "b", size)?;
    let (mut a, mut b) = (initial(c, "a")?, initial(c, "b")?);
    for i in t + 1..size {
        let mult = m[i * size + t];
        for j in t..size {
            a[i * size + j] = fl((-mult).mul_add(a0[t * size + j], a0[i * size + j]));
        }
        b[i] = fl((-mult).mul_add(b0[t], b0[i]));
    }
    Ok(vec![expected("a", a), expected("b", b)])
}

// --- Rodinia nn -------------------------------------------------------------------------------

/// `distances[r] = sqrtf(fma(lat - lat_r, lat - lat_r, (lng - lng_r)^2))` for the records
/// `locations[2r], locations[2r+1]` (struct {lat, lng}), r < numRecords; f32, sqrt correctly rounded.
pub(crate) fn nn_euclid(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let n = count(c, "numRecords")?;
    let (lat, lng) = (scalar_f32(c, "lat")?, scalar_f32(c, "lng")?);
    expect_min(c, "locations", 2 * n)?;
    let loc = c.column("locations")?;
    let mut out = initial(c, "distances")?;
    if out.len() < n {
        return Err(shape(format!("distances needs {n} elements")));
    }
    for (r, slot) in out.iter_mut().enumerate().take(n) {
        let dx = lat - f32_at(&loc, "locations", 2 * r)?;
        let dy = lng - f32_at(&loc, "locations", 2 * r + 1)?;
        *slot = fl(dx.mul_add(dx, dy * dy).sqrt());
    }
    Ok(vec![expected("distances", out)])
}

// --- Rodinia backprop, adjust_weights ---------------------------------------------------------

/// w and oldw are (in + 1) × (hid + 1), row-major. For rows j in 1..=in and columns k in 1..=hid:
/// `dw = fma(0.3f delta[k], ly[j], 0.3f oldw[j][k])`, `w[j][k] += dw`, `oldw[j][k] = dw`; the bias
/// row: `db = fma(delta[k], 0.3f, 0.3f oldw[0][k])`, `w[0][k] += db`, `oldw[0][k] = db`.
/// Column 0 is unchanged. `in` must be a multiple of 16 (one 16 × 16 block per 16 rows).
pub(crate) fn bpnn_adjust(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let (hid, n_in) = (count(c, "hid")?, count(c, "in")?);
    let cols = hid + 1;
    let delta = f32s(c, "delta", cols)?;
    let ly = f32s(c, "ly", n_in + 1)?;
    let w0 = f32s(c, "w", (n_in + 1) * cols)?;
    let o0 = f32s(c, "oldw", (n_in + 1) * cols)?;
    let (mut w, mut oldw) = (initial(c, "w")?, initial(c, "oldw")?);
    const ETA: f32 = 0.3;
    const MOMENTUM: f32 = 0.3;
    for (j, &lyj) in ly.iter().enumerate().take(n_in + 1).skip(1) {
        for (k, &dk) in delta.iter().enumerate().take(hid + 1).skip(1) {
            let idx = j * cols + k;
            let dw = (ETA * dk).mul_add(lyj, MOMENTUM * o0[idx]);
            w[idx] = fl(w0[idx] + dw);
            oldw[idx] = fl(dw);
        }
    }
    for k in 1..=hid {
        let db = delta[k].mul_add(ETA, MOMENTUM * o0[k]);
        w[k] = fl(w0[k] + db);
        oldw[k] = fl(db);
    }
    Ok(vec![expected("w", w), expected("oldw", oldw)])
}

// --- Parboil-style JDS SpMV -------------------------------------------------------------------

/// Sorted row i < dim has an entry on every diagonal d < ndiags with `i < jds_ptr[d+1] -
/// jds_ptr[d]` (stopping at the first without), at `j = jds_ptr[d] + i`; `dst[perm[i]]` = the
/// f32 `fma(data[j], x[index[j]], .)` chain over those entries from 0.
pub(crate) fn spmv_jds(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let (dim, ndiags) = (count(c, "dim")?, count(c, "ndiags")?);
    let ptr = ints(c, "jds_ptr", ndiags + 1)?;
    let (data, index, perm) = (c.column("data")?, c.column("index")?, c.column("perm")?);
    let x = f32s(c, "x", c.spec("x")?.len as usize)?;
    let mut dst = initial(c, "dst")?;
    let mut seen = vec![false; dst.len()];
    for i in 0..dim {
        let mut sum = 0.0f32;
        for d in 0..ndiags {
            if i as i64 >= ptr[d + 1] - ptr[d] {
                break;
            }
            let j = usize::try_from(ptr[d] + i as i64).map_err(|_| shape("negative jds_ptr"))?;
            let col = index_at(&index, "index", j, x.len())?;
            sum = f32_at(&data, "data", j)?.mul_add(x[col], sum);
        }
        let r = index_at(&perm, "perm", i, dst.len())?;
        if std::mem::replace(&mut seen[r], true) {
            return Err(shape(format!("perm repeats row {r}")));
        }
        dst[r] = fl(sum);
    }
    Ok(vec![expected("dst", dst)])
}

// --- SHOC md, Lennard-Jones forces ------------------------------------------------------------

/// For atom i < inum (positions (x, y, z, w) in `position`), over neighbours
/// `jidx = neighList[j * inum + i]`, j < neighCount, other than i itself: d = p_i - p_j,
/// `r2 = fma(dz, dz, fma(dx, dx, dy * dy))`; if `r2 < cutsq`: `r = 1 / r2`, `r6 = r * r * r`,
/// `fc = (r * r6) * fma(r6, lj1, -lj2)` (ptxas's fused form), `f += d * fc` by fma, in order from
/// 0; `force[i] = (f, 0)`. All f32, as the SASS computes it.
pub(crate) fn md_lj(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let (nn, inum) = (count(c, "neighCount")?, count(c, "inum")?);
    let (cutsq, lj1, lj2) = (scalar_f32(c, "cutsq")?, scalar_f32(c, "lj1")?, scalar_f32(c, "lj2")?);
    let pos = f32s(c, "position", 4 * inum)?;
    expect_min(c, "neighList", nn * inum)?;
    let list = c.column("neighList")?;
    let mut force = initial(c, "force")?;
    if force.len() < 4 * inum {
        return Err(shape(format!("force needs {} elements", 4 * inum)));
    }
    for i in 0..inum {
        let mut f = [0.0f32; 3];
        for j in 0..nn {
            let k = index_at(&list, "neighList", j * inum + i, inum)?;
            if k == i {
                continue;
            }
            let d = [pos[4 * i] - pos[4 * k], pos[4 * i + 1] - pos[4 * k + 1], pos[4 * i + 2] - pos[4 * k + 2]];
            let r2 = d[2].mul_add(d[2], d[0].mul_add(d[0], d[1] * d[1]));
            if r2 < cutsq {
                let r = 1.0f32 / r2;
                let r6 = r * r * r;
                let fc = (r * r6) * r6.mul_add(lj1, -lj2);
                for (fa, da) in f.iter_mut().zip(d) {
                    *fa = da.mul_add(fc, *fa);
                }
            }
        }
        for (a, v) in f.into_iter().chain([0.0]).enumerate() {
            force[4 * i + a] = fl(v);
        }
    }
    Ok(vec![expected("force", force)])
}

// --- graph kernels (CSR, one thread per node) -------------------------------------------------

/// For every node v < n with `frontier[v] != 0`, every edge e of v:
/// `dist_out[col_idx[e]] = min(dist_out[col_idx[e]], dist_in[v] + weight[e])` (s32): order-free.
pub(crate) fn sssp_push(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let n = count(c, "n")?;
    let rp = csr_rows(c, n)?;
    let (ci, wt) = (c.column("col_idx")?, c.column("weight")?);
    let (front, din) = (ints(c, "frontier", n)?, ints(c, "dist_in", n)?);
    let mut dist: Vec<i64> = ints(c, "dist_out", c.spec("dist_out")?.len as usize)?;
    for v in (0..n).filter(|&v| front[v] != 0) {
        for e in rp[v]..rp[v + 1] {
            let u = index_at(&ci, "col_idx", e, dist.len())?;
            let nd = (din[v] as i32).wrapping_add(int_at(&wt, "weight", e)? as i32) as i64;
            dist[u] = dist[u].min(nd);
        }
    }
    Ok(vec![expected("dist_out", dist.into_iter().map(|v| iv(v as i128)).collect())])
}

/// For every node v < n with out-degree g > 0: `next[col_idx[e]] += rank[v] / g` (u32 division
/// and wrapping sums) for each edge e of v, added to next's initial values: order-free.
pub(crate) fn pagerank_push(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let n = count(c, "n")?;
    let rp = csr_rows(c, n)?;
    let ci = c.column("col_idx")?;
    let rank = ints(c, "rank", n)?;
    let mut next: Vec<u32> = ints(c, "next", c.spec("next")?.len as usize)?.into_iter().map(|v| v as u32).collect();
    for v in 0..n {
        let g = (rp[v + 1] - rp[v]) as u32;
        if g == 0 {
            continue;
        }
        let share = rank[v] as u32 / g;
        for e in rp[v]..rp[v + 1] {
            let u = index_at(&ci, "col_idx", e, next.len())?;
            next[u] = next[u].wrapping_add(share);
        }
    }
    Ok(vec![expected("next", next.into_iter().map(|v| iv(v as i128)).collect())])
}

// --- byte histogram ---------------------------------------------------------------------------

/// `hist[byte] += 1` (u32, from hist's initial values) for every byte of the first
/// `4 * dataCount` bytes of `data` (32-bit words read as four bytes each, any order).
pub(crate) fn byte_histogram(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let words = count(c, "dataCount")?;
    let spec = c.spec("data")?;
    let bytes = words * 4;
    if spec.bytes() < bytes as u64 {
        return Err(shape(format!("data has {} bytes, needs {bytes}", spec.bytes())));
    }
    let mut hist: Vec<u32> = ints(c, "hist", c.spec("hist")?.len as usize)?.into_iter().map(|v| v as u32).collect();
    if hist.len() < 256 {
        return Err(shape("hist needs 256 bins"));
    }
    let data = c.column("data")?;
    let mut counts = [0u64; 256];
    let esize = spec.dtype.size();
    let mut buf = Vec::with_capacity(8);
    for i in 0..bytes / esize {
        let v = data.get(i).ok_or_else(|| shape(format!("data[{i}] out of range")))?;
        buf.clear();
        spec.dtype.push_bits(spec.dtype.encode(v), &mut buf);
        for &byte in &buf {
            counts[byte as usize] += 1;
        }
    }
    for (h, n) in hist.iter_mut().zip(counts) {
        *h = h.wrapping_add(n as u32);
    }
    Ok(vec![expected("hist", hist.into_iter().map(|v| iv(v as i128)).collect())])
}
