//! CPU references of the memory-shape microbenchmarks (`suite/membench/`): strided and narrow
//! stores, row / column walks, gather and permutation scatter, atomic tickets (the returning
//! `atomicAdd`), the signed 64-bit max over lines (`atomic_max_lines`), the L2-capacity line sweep, the store stream (`stream_fill`) and the two-pass row walk (`row_xor_max`). Registered in [`crate::references`]; the strided
//! loads use `strided_copy`, the RED and CAS atomics `atomic_bins` and the skewed SpMV `spmv_csr`.
//!
//! Every kernel here is integer (u32 wrapping) or moves words unchanged, so every check is bitwise.
//! The buffers reach 128 MiB: inputs are read as [`crate::reference::Column`]s (bytes, decoded per
//! element), never as a `Vec<Value>` of the whole buffer.

use crate::dtype::Value;
use crate::reference::{count, expect_min, initial, int_at, map_rows, shape, Expected, RefCtx, RefError};

/// The expected contents of `out`.
fn expect_out(values: Vec<Option<Value>>) -> Result<Vec<Expected>, RefError> {
    Ok(vec![Expected { buffer: "out".into(), values }])
}

/// Threads of the launch: a 1D grid of 1D blocks.
fn launch_threads(c: &RefCtx) -> Result<usize, RefError> {
    let m = c.manifest;
    if m.launch().grid[1..] != [1, 1] || m.launch().block[1..] != [1, 1] {
        return Err(shape("a 1D grid of 1D blocks"));
    }
    Ok(m.launch().grid[0] as usize * m.launch().block[0] as usize)
}

fn u32_value(v: u32) -> Option<Value> {
    Some(Value::Int(v as i128))
}

/// `out[i * stride] = in[i]` for `i < n`, truncated to out's element type; every other element of
/// `out` keeps its initial value.
pub(crate) fn strided_store(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let (n, stride) = (count(c, "n")?, count(c, "stride")?);
    let input = c.column("in")?;
    let dtype = c.spec("out")?.dtype;
    let mut values = initial(c, "out")?;
    for i in 0..n {
        let j = i * stride;
        let v = int_at(&input, "in", i)?;
        let slot = values
            .get_mut(j)
            .ok_or_else(|| shape(format!("out[{j}] out of range")))?;
        *slot = Some(dtype.decode(dtype.encode_int(v)));
    }
    expect_out(values)
}

/// `out[t] = sum_{k < len} a[(t % m) * s0 + (t / m) * s1 + k * ks]` (u32 wrapping) for
/// `t < threads`; elements past `threads` keep their initial value.
pub(crate) fn walk_sum(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let threads = count(c, "threads")?;
    let (m, s0, s1, len, ks) = (
        count(c, "m")?,
        count(c, "s0")?,
        count(c, "s1")?,
        count(c, "len")?,
        count(c, "ks")?,
    );
    if m == 0 {
        return Err(shape("`m` must be positive"));
    }
    let a = c.column("a")?;
    expect_min(c, "out", threads)?;
    let mut values = initial(c, "out")?;
    for (t, slot) in values.iter_mut().enumerate().take(threads) {
        let base = (t % m) * s0 + (t / m) * s1;
        let mut s = 0u32;
        for k in 0..len {
            s = s.wrapping_add(int_at(&a, "a", base + k * ks)? as u32);
        }
        *slot = u32_value(s);
    }
    expect_out(values)
}

/// `out[i] = in[idx[i]]` for `i < n`; the rest of `out` keeps its initial value.
pub(crate) fn gather(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let n = count(c, "n")?;
    let (idx, input) = (c.column("idx")?, c.column("in")?);
    expect_min(c, "out", n)?;
    let mut values = initial(c, "out")?;
    for (i, slot) in values.iter_mut().enumerate().take(n) {
        let j = int_at(&idx, "idx", i)?;
        let j = usize::try_from(j).map_err(|_| shape(format!("idx[{i}] = {j} is negative")))?;
        *slot = Some(Value::Int(int_at(&input, "in", j)?));
    }
    expect_out(values)
}

/// `out[perm[i]] = in[i]` for `i < n`; `perm[..n]` must not repeat a target (the result would
/// depend on the order of the writes); untouched elements keep their initial value.
pub(crate) fn scatter(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let n = count(c, "n")?;
    let (perm, input) = (c.column("perm")?, c.column("in")?);
    let mut values = initial(c, "out")?;
    let mut written = vec![false; values.len()];
    for i in 0..n {
        let j = int_at(&perm, "perm", i)?;
        let j = usize::try_from(j)
            .ok()
            .filter(|&j| j < values.len())
            .ok_or_else(|| shape(format!("perm[{i}] = {j} outside `out`")))?;
        if std::mem::replace(&mut written[j], true) {
            return Err(shape(format!("perm repeats target {j}: not a permutation")));
        }
        values[j] = Some(Value::Int(int_at(&input, "in", i)?));
    }
    expect_out(values)
}

/// Atomic tickets: update `i < n` takes `t = counters[b]++` (b = i % nbins) and writes `b + 1` to
/// `out[b + t * nbins]`. Counter b's tickets are its initial value c_b .. c_b + count_b - 1 in
/// some order, so `counters[b] = c_b + count_b` and `out[b + (c_b + k) * nbins] = b + 1` for
/// `k < count_b`, whatever the order; the rest of `out` keeps its initial value.
pub(crate) fn atomic_ticket(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let (n, nbins) = (count(c, "n")?, count(c, "nbins")?);
    let start = c.column("counters")?;
    if nbins == 0 || start.len() < nbins {
        return Err(shape(format!(
            "`counters` has {} elements, nbins is {nbins}",
            start.len()
        )));
    }
    let mut counters = initial(c, "counters")?;
    let mut out = initial(c, "out")?;
    for (b, counter) in counters.iter_mut().enumerate().take(nbins) {
        let count = n / nbins + usize::from(b < n % nbins);
        let c0 = int_at(&start, "counters", b)? as u32;
        *counter = u32_value(c0.wrapping_add(count as u32));
        for k in 0..count as u32 {
            let j = b + c0.wrapping_add(k) as usize * nbins;
            let slot = out
                .get_mut(j)
                .ok_or_else(|| shape(format!("ticket store out[{j}] out of range")))?;
            *slot = u32_value(b as u32 + 1);
        }
    }
    Ok(vec![
        Expected {
            buffer: "counters".into(),
            values: counters,
        },
        Expected {
            buffer: "out".into(),
            values: out,
        },
    ])
}

/// The L2 sweep: thread t of T = grid * block threads sums (u32 wrapping) `buf[l * stride]` over
/// its grid-stride lines `l = t, t + T, ... < lines`, `reps` times: `out[t]`.
pub(crate) fn line_sweep(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let (lines, reps, stride) = (count(c, "lines")?, count(c, "reps")?, count(c, "stride")?);
    let threads = launch_threads(c)?;
    let buf = c.column("buf")?;
    expect_min(c, "out", threads)?;
    let mut values = initial(c, "out")?;
    for (t, slot) in values.iter_mut().enumerate().take(threads) {
        let mut s = 0u32;
        for l in (t..lines).step_by(threads) {
            s = s.wrapping_add(int_at(&buf, "buf", l * stride)? as u32);
        }
        *slot = u32_value(s.wrapping_mul(reps as u32));
    }
    expect_out(values)
}

/// The store stream: `out[i] = i ^ 0x9E3779B9` for `i < n` (every pass writes the same words);
/// the rest of `out` keeps its initial value.
pub(crate) fn stream_fill(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let n = count(c, "n")?;
    count(c, "reps")?;
    expect_min(c, "out", n)?;
    let mut values = initial(c, "out")?;
    for (i, slot) in values.iter_mut().enumerate().take(n) {
        *slot = u32_value(i as u32 ^ 0x9E37_79B9);
    }
    expect_out(values)
}

/// `out = in ^ m` per `cols`-element row, `m` the row's largest u32.
pub(crate) fn row_xor_max(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let out = map_rows(
        c,
        |col, i| int_at(col, "in", i).map(|v| v as u32),
        |row, out| {
            let m = row.iter().copied().max().unwrap_or(0);
            out.extend(row.iter().map(|&v| u32_value(v ^ m)));
        },
    )?;
    expect_out(out)
}

/// One case of the branch-divergence kernels' 12-case switch (`switch_case` in kernel.cu; any
/// other case is the default).
fn switch_case(v: u32, case: i128, k: u32) -> u32 {
    match case {
        0 => v.wrapping_mul(3).wrapping_add(1),
        1 => v ^ (v >> 3),
        2 => v.wrapping_add(0x9E37),
        3 => v.rotate_left(5),
        4 => v.wrapping_sub(k),
        5 => v.wrapping_mul(v).wrapping_add(7),
        6 => v ^ 0x55AA_55AA,
        7 => v.wrapping_add(v >> 1),
        8 => !v,
        9 => v.wrapping_mul(0x2545_F491),
        10 => v.min(0xC000_0000) + 5,
        11 => (v >> 7).wrapping_add(v.wrapping_mul(9)),
        _ => v - (v >> 2),
    }
}

/// The branch-divergence kernels: `out[i]` = `i` after `iters` cases, case k being
/// `(sel[i] + k) & 15` (`table` false: switch_tree) or `sel[(k & 3) * n + i]` (switch_table).
pub(crate) fn switch_ops(c: &RefCtx, table: bool) -> Result<Vec<Expected>, RefError> {
    let (n, iters) = (count(c, "n")?, count(c, "iters")?);
    let sel = c.column("sel")?;
    expect_min(c, "out", n)?;
    let mut values = initial(c, "out")?;
    for (i, slot) in values.iter_mut().enumerate().take(n) {
        let s = if table { 0 } else { int_at(&sel, "sel", i)? };
        let mut v = i as u32;
        for k in 0..iters {
            let case = if table { int_at(&sel, "sel", (k & 3) * n + i)? } else { (s + k as i128) & 15 };
            v = switch_case(v, case, k as u32);
        }
        *slot = u32_value(v);
    }
    expect_out(values)
}

/// The line walk of `red_lines` / `red64_lines`: `nlines` (at least 1) and the counters per
/// 128-byte line of the `counters` buffer's element type (32 of u32, 16 of u64).
pub(crate) fn line_counters(c: &RefCtx) -> Result<(usize, usize), RefError> {
    let size = c.spec("counters")?.dtype.size();
    Ok((c.scalar_int("nlines")?.max(1) as usize, 128 / size.max(1)))
}

/// `redmax64_lines`: `counters[(i mod nlines) * w] = max(counters[..], 3 in[i] - 2^40)` for every
/// element of `in`, signed, from the counters' initial values.
pub(crate) fn atomic_max_lines(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let (nl, w) = line_counters(c)?;
    let input = c.column("in")?;
    let spec = c.spec("counters")?;
    let mut counters: Vec<i128> = initial(c, "counters")?.into_iter().map(|v| v.map_or(0, crate::reference::int)).collect();
    if counters.is_empty() {
        return Err(shape("`counters` is empty"));
    }
    let len = counters.len();
    for i in 0..input.len() {
        let slot = (i % nl) * w % len;
        counters[slot] = counters[slot].max(int_at(&input, "in", i)? * 3 - (1 << 40));
    }
    let values = counters.into_iter().map(|v| crate::reference::wrap_int(spec.dtype, v)).collect();
    Ok(vec![Expected { buffer: "counters".into(), values }])
}
