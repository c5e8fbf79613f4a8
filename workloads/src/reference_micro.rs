//! CPU references of the published-figure microbenchmarks (`suite/micro/`): the dependent chains
//! the older references do not cover (DFMA, HFMA2, EX2, f32 -> f16 -> f32 conversions, shuffles),
//! the bank-conflict sweep and the XOR sums of the bandwidth kernels. Registered in
//! [`crate::references`]; the chases use `pointer_chase`, FFMA / IMAD `ffma_chain` / `imad_chain`,
//! rsqrt / sin `sfu_rsqrt` / `sfu_sin` and the DRAM copy `copy`.

use crate::dtype::{DType, Value};
use crate::reference::{chain, f32v, shape, u32v, ui, Expected, RefCtx, RefError};

fn expect_out(values: Vec<Option<Value>>) -> Result<Vec<Expected>, RefError> {
    Ok(vec![Expected { buffer: "out".into(), values }])
}

fn out_len(c: &RefCtx) -> Result<usize, RefError> {
    Ok(c.spec("out")?.len as usize)
}

fn f16(bits: u32) -> f64 {
    DType::F16.decode(bits as u64).as_f64()
}

/// Both halves of `v` stepped by `fma.rn.f16x2` with `a`, `b`: the f64 product of two halves is
/// exact and the f64 sum with a half is exact at these kernels' magnitudes, so the one rounding
/// to f16 is the instruction's.
fn hfma2(v: u32, a: u32, b: u32) -> u32 {
    let half = |s: u32| {
        let (x, y, z) = (f16(v >> s & 0xffff), f16(a >> s & 0xffff), f16(b >> s & 0xffff));
        (DType::F16.encode_f64(x * y + z) as u32) << s
    };
    half(0) | half(16)
}

pub(crate) fn dfma_chain(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let (a, b) = (c.scalar("a")?.as_f64(), c.scalar("b")?.as_f64());
    chain(c, |x, k| x.as_f64() + k as f64, |v| v.mul_add(a, b), |s, v| s + v, |v| Some(Value::Float(v)))
}

pub(crate) fn hfma2_chain(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let (a, b) = (u32v(c.scalar("a")?), u32v(c.scalar("b")?));
    if c.count_param("chains")? != 1 {
        return Err(shape("hfma2_chain sums no chains: chains = 1"));
    }
    chain(c, |x, _| u32v(x), |v| hfma2(v, a, b), |s, _| s, ui)
}

pub(crate) fn ex2_chain(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    chain(c, |x, k| f32v(x) as f64 + k as f64, |v| (-v).exp2(), |s, v| s + v, |v| Some(Value::Float(v)))
}

pub(crate) fn cvt_chain(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let round = |v: f32| f16(DType::F16.encode_f64(v as f64) as u32) as f32;
    chain(c, |x, k| f32v(x) + k as f32, round, |s, v| s + v, |v| Some(Value::Float(v as f64)))
}

/// out[t] = x[warp's lane (lane + iters * a) mod 32]: each step takes the value of lane + a.
pub(crate) fn shfl_chain(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let (a, iters) = (c.scalar_int("a")?, c.scalar_int("iters")?.max(0));
    let x = c.column("x")?;
    let n = out_len(c)?;
    let values = (0..n)
        .map(|t| {
            let src = (t as i64 / 32) * 32 + (t as i64 % 32 + iters * a).rem_euclid(32);
            x.get(src as usize).map(|v| Value::Int(crate::reference::int(v)))
        })
        .collect();
    expect_out(values)
}

/// out[t] = the byte offset of lane t's word, (lane / ways) + (lane % ways) * row_words.
pub(crate) fn smem_ways(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let (ways, row) = (c.scalar_int("ways")?, c.scalar_int("row_words")?);
    if !(1..=32).contains(&ways) || !(16..=1024 / ways).contains(&row) {
        return Err(shape(format!("ways = {ways} must be 1..=32 and row_words = {row} 16..={} (the kernel's 1024 words)", 1024 / ways.max(1))));
    }
    let values = (0..out_len(c)?).map(|t| ui((4 * ((t as i64 % 32) / ways + (t as i64 % 32) % ways * row)) as u32)).collect();
    expect_out(values)
}

/// XOR of `words(lane)`'s elements of `get`, when the kernel's `passes` XORs of them leave one.
fn xor_passes(passes: i64, words: impl Iterator<Item = usize>, get: impl Fn(usize) -> Option<u32>) -> Option<Value> {
    let once = words.map(&get).try_fold(0u32, |acc, w| w.map(|w| acc ^ w))?;
    ui(if passes % 2 != 0 { once } else { 0 })
}

/// The 16 conflict-free loads of `width` bytes per lane of smem_bw over s[k] = k * 2654435761.
pub(crate) fn smem_bw(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let (w, iters) = (c.param("width")?, c.scalar_int("iters")?);
    if ![4, 8, 16].contains(&w) {
        return Err(shape(format!("width = {w}: 4, 8 or 16 bytes")));
    }
    let per = (w / 4) as usize;
    let values = (0..out_len(c)?)
        .map(|t| {
            let lane = t % 32;
            let words = (0..16).flat_map(move |u| (0..per).map(move |j| lane * per + u * 32 * per + j));
            xor_passes(iters, words, |k| Some((k as u32).wrapping_mul(2654435761)))
        })
        .collect();
    expect_out(values)
}

/// l1_bw: lane l XORs in[l*4 + h*2048 + u*128 + j] (h < 2, u < 16, j < 4) in a warming pass
/// and `iters` timed passes.
pub(crate) fn l1_bw(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let iters = c.scalar_int("iters")?;
    let input = c.column("in")?;
    let values = (0..out_len(c)?)
        .map(|t| {
            let lane = t % 32;
            let words = (0..2).flat_map(move |h| (0..16).flat_map(move |u| (0..4).map(move |j| lane * 4 + h * 2048 + u * 128 + j)));
            xor_passes(iters + 1, words, |k| input.get(k).map(u32v))
        })
        .collect();
    expect_out(values)
}

/// l2_bw: block b's warp w, lane l XORs in[b*chunk + o + l*4 + u*128 + j] for its offsets
/// o = w*2048, (w + warps)*2048, ... below chunk, in a warming pass and `iters` timed passes.
pub(crate) fn l2_bw(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let (chunk, iters) = (c.scalar_int("chunk")?.max(0) as usize, c.scalar_int("iters")?);
    let block = c.manifest.launch().block[0] as usize;
    if !block.is_multiple_of(32) || c.manifest.launch().block[1..] != [1, 1] {
        return Err(shape("l2_bw needs 1D blocks of whole warps"));
    }
    let warps = block / 32;
    let input = c.column("in")?;
    let values = (0..out_len(c)?)
        .map(|t| {
            let (b, w, lane) = (t / block, t % block / 32, t % 32);
            let offsets = (w * 2048..chunk).step_by(warps * 2048);
            let words = offsets.flat_map(move |o| (0..16).flat_map(move |u| (0..4).map(move |j| b * chunk + o + lane * 4 + u * 128 + j)));
            xor_passes(iters + 1, words, |k| input.get(k).map(u32v))
        })
        .collect();
    expect_out(values)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hfma2_rounds_each_half_once() {
        // 1.5 * 2 + 0.25 = 3.25 (0x4280) in the low half; 1 * 1 + 1 = 2 (0x4000) in the high half.
        assert_eq!(hfma2(0x3c00_3e00, 0x3c00_4000, 0x3c00_3400), 0x4000_4280);
        // 2049 is not an f16: 2048 + 1 rounds to even, 2048.
        assert_eq!(hfma2(0x6800, 0x3c00, 0x3c00) & 0xffff, 0x6800);
    }
}
