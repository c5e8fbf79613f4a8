//! The `.approx` (and `div.full`) instructions. Hardware evaluates these on the SFU (MUFU) with
//! tables whose exact bits are not public; each function here documents its model and PTX's
//! tolerance (collected in the [module docs](super)). Models are deterministic on every host: the
//! transcendental parts use the pure-Rust `libm`, evaluated in f64 and rounded once.

use super::core;
use super::cvt::convert;
use super::format::{Format, Val, BF16, F16, F32, F64, F64_HI, F64_HI23};
use super::Rounding;

/// The f64 bits of `func` of the value of `a` (format `f`, flushed when `ftz`); `None` for a NaN
/// operand or result.
fn eval_f64(f: Format, a: u64, ftz: bool, func: impl Fn(f64) -> f64) -> Option<u64> {
    let x = (!f.is_nan(a)).then(|| f64::from_bits(convert(f, F64, a, Rounding::Rn, ftz, false)))?;
    let y = func(x);
    (!y.is_nan()).then(|| y.to_bits())
}

/// `func` of the value of `a` (format `f`) evaluated in f64 and rounded to nearest in `f`; NaN
/// operands and results give `f`'s canonical NaN. `ftz` flushes operand and result.
fn via_f64(f: Format, a: u64, ftz: bool, func: impl Fn(f64) -> f64) -> u64 {
    eval_f64(f, a, ftz, func).map_or(f.default_nan(), |y| {
        convert(F64, f, y, Rounding::Rn, false, ftz)
    })
}

fn via_f64_32(a: u32, ftz: bool, func: impl Fn(f64) -> f64) -> u32 {
    via_f64(F32, a as u64, ftz, func) as u32
}

/// `rcp.approx{.ftz}.f32` (≤ 1 ulp): modelled correctly rounded.
pub fn rcp_f32(a: u32, ftz: bool) -> u32 {
    core::rcp(F32, a as u64, Rounding::Rn, ftz) as u32
}

/// 2^24 in f32: scales the smallest subnormal (2^-149) into the normal range.
const TWO_POW_24_F32: u64 = 0x4B80_0000;

/// `div.approx{.ftz}.f32`: `a × (1/b)` with the reciprocal flushed to zero like MUFU.RCP, so that
/// 2^126 < |b| gives ±0 (NaN for infinite `a`) as PTX documents; ≤ 2 ulp elsewhere. Without `.ftz`
/// a subnormal `b` is first scaled into the normal range together with `a` (H200 oracle:
/// `div.approx.f32(1, 3)` = 0x3EAAAAAB and `div.approx.f32(0, 1)` = +0, where MUFU.RCP alone would
/// give ∞ and NaN; `div.approx.ftz.f32(0, 1)` is NaN).
pub fn div_f32(a: u32, b: u32, ftz: bool) -> u32 {
    let (a, b) = (a as u64, b as u64);
    let scale = |x| core::mul(F32, x, TWO_POW_24_F32, Rounding::Rn, false);
    let (a, b) = if !ftz && F32.is_subnormal(b) {
        (scale(a), scale(b))
    } else {
        (a, b)
    };
    let r = core::rcp(F32, b, Rounding::Rn, true);
    core::mul(F32, a, r, Rounding::Rn, ftz) as u32
}

/// `div.full{.ftz}.f32` (≤ 2 ulp over the full range): modelled correctly rounded.
pub fn div_full_f32(a: u32, b: u32, ftz: bool) -> u32 {
    core::div(F32, a as u64, b as u64, Rounding::Rn, ftz) as u32
}

/// `sqrt.approx{.ftz}.f32` (relative error ≤ 2^-23): modelled correctly rounded.
pub fn sqrt_f32(a: u32, ftz: bool) -> u32 {
    core::sqrt(F32, a as u64, Rounding::Rn, ftz) as u32
}

fn rsqrt(x: f64) -> f64 {
    1.0 / libm::sqrt(x)
}

/// `rsqrt.approx{.ftz}.f32` (relative error ≤ 2^-22.9).
pub fn rsqrt_f32(a: u32, ftz: bool) -> u32 {
    via_f64_32(a, ftz, rsqrt)
}

/// `ex2.approx{.ftz}.f32` (≤ 2 ulp).
pub fn ex2_f32(a: u32, ftz: bool) -> u32 {
    via_f64_32(a, ftz, libm::exp2)
}

/// `lg2.approx{.ftz}.f32` (absolute ≤ 2^-22 on (0.5, 2), relative ≤ 2^-22 elsewhere).
pub fn lg2_f32(a: u32, ftz: bool) -> u32 {
    via_f64_32(a, ftz, libm::log2)
}

/// 1/(2π) rounded to f32, the factor ptxas multiplies by before MUFU.SIN/COS.
const INV_2PI_F32: u64 = 0x3E22_F983;

/// Bits of the fixed-point fraction of a turn that MUFU.SIN/COS evaluate: 2 quadrant bits, then 23
/// bits within the quadrant.
const TURN_BITS: u32 = 25;
const QUADRANT_BITS: u32 = TURN_BITS - 2;

/// The fraction of a turn in `t` (f32 bits, sign ignored), truncated to [`TURN_BITS`] bits.
fn turn_fraction(t: u64) -> u128 {
    match F32.decode(t, false) {
        Val::Num { exp, sig, .. } => {
            let e = exp + TURN_BITS as i32;
            let fixed = if e >= 0 {
                sig.checked_shl(e as u32)
            } else {
                sig.checked_shr(e.unsigned_abs())
            };
            fixed.unwrap_or(0) & ((1 << TURN_BITS) - 1)
        }
        _ => 0,
    }
}

/// `sin`/`cos.approx{.ftz}.f32`, reduced as the H200 does: `t = a × 1/(2π)` in f32 with
/// round-toward-zero (FMUL.RZ), then MUFU.SIN/COS on the fraction of |t| truncated to a 25-bit
/// fixed-point turn (cos adds a quarter turn). Within an odd quadrant the 23 low bits are mirrored
/// by one's complement; the sign is `a`'s (sin only) flipped in the second half turn. The function
/// of the reduced angle is modelled correctly rounded (MUFU's own error is ≤ 2^-22 absolute on the
/// oracle's inputs). Infinite or NaN `a` gives NaN. H200 oracle: `sin.approx.f32(0xB4074DF7)` = −0
/// (−1.26e-7 is less than one 2^-25 turn), `sin.approx.f32(0x4B000001)` = −0 (a half turn),
/// `cos.approx.f32(0x4AD00000)` = −0 (a quarter turn), and `cos.approx.f32(0xBFC901D4)` =
/// 0x39E06FB8, 2286 rather than 2287 units of 2^-25 turn short of the quarter turn (the one's
/// complement).
fn sin_cos(a: u32, ftz: bool, cos: bool) -> u32 {
    let a = F32.flush(a as u64, ftz);
    if matches!(F32.decode(a, false), Val::Nan | Val::Inf { .. }) {
        return F32.default_nan() as u32;
    }
    let t = core::mul(F32, a, INV_2PI_F32, Rounding::Rz, ftz);
    mufu_sin_cos(t as u32, ftz, cos)
}

/// MUFU.SIN/COS of `t` turns (f32 bits): the SFU step of [`sin_f32`]/[`cos_f32`] after ptxas's
/// `FMUL.RZ` by 1/(2π), so a SASS program computes the same bits as the PTX instruction.
pub fn mufu_sin_cos(t: u32, ftz: bool, cos: bool) -> u32 {
    let t = F32.flush(t as u64, ftz);
    if matches!(F32.decode(t, false), Val::Nan | Val::Inf { .. }) {
        return F32.default_nan() as u32;
    }
    let quarter = 1u128 << QUADRANT_BITS;
    let k = (turn_fraction(t) + if cos { quarter } else { 0 }) & ((1 << TURN_BITS) - 1);
    let quadrant = k >> QUADRANT_BITS;
    let within = k & (quarter - 1);
    let m = if quadrant & 1 == 1 {
        quarter - 1 - within
    } else {
        within
    };
    let mag = libm::sin(std::f64::consts::FRAC_PI_2 * m as f64 / quarter as f64);
    let neg = (!cos && F32.is_neg(t)) ^ (quadrant >= 2);
    let r = convert(F64, F32, mag.to_bits(), Rounding::Rn, false, ftz);
    (r | F32.zero(neg)) as u32
}

/// `sin.approx{.ftz}.f32` (absolute ≤ 2^-20.5 on [-2π, 2π], ≤ 2^-14.7 on [-100π, 100π]).
pub fn sin_f32(a: u32, ftz: bool) -> u32 {
    sin_cos(a, ftz, false)
}

/// `cos.approx{.ftz}.f32` (absolute ≤ 2^-20.5 on [-2π, 2π], ≤ 2^-14.7 on [-100π, 100π]).
pub fn cos_f32(a: u32, ftz: bool) -> u32 {
    sin_cos(a, ftz, true)
}

/// `tanh.approx.f32` (relative ≤ 2^-11; subnormals pass through).
pub fn tanh_f32(a: u32) -> u32 {
    via_f64_32(a, false, libm::tanh)
}

/// MUFU.RCP64H/RSQ64H: `func` of the upper word of `a` (1.11.20, subnormals flushed) with f32
/// precision, as MUFU.RCP/RSQ compute f32 (modelled: rounded to nearest with 23 fraction bits, here
/// over the f64 exponent range), then truncated to 20 fraction bits in the upper word; the lower word
/// is zero. A NaN gives 0x7FFFFFFF00000000 (PTX). H200 oracle: this matches 742 of 753
/// `rcp.approx.ftz.f64` and 401 of 408 `rsqrt.approx.ftz.f64` results, e.g. `rcp(2.5)` =
/// 0x3FD9999900000000 where rounding to nearest would give 0x3FD9999A00000000; the others are one unit of
/// the upper word off, where the exact result lies within an f32 ulp of a 20-bit boundary and
/// MUFU's own error takes it across.
fn upper_word(a: u64, func: impl Fn(f64) -> f64) -> u64 {
    let r = eval_f64(F64_HI, a >> 32, true, func).map_or(F64_HI.default_nan(), |y| {
        let y23 = convert(F64, F64_HI23, y, Rounding::Rn, false, true);
        convert(F64_HI23, F64_HI, y23, Rounding::Rz, false, true)
    });
    r << 32
}

/// `rcp.approx.ftz.f64`: a reciprocal of the upper 32 bits only, lower word of the result zero.
pub fn rcp_ftz_f64(a: u64) -> u64 {
    upper_word(a, |x| 1.0 / x)
}

/// `rsqrt.approx.ftz.f64`: a reciprocal square root of the upper 32 bits only, lower word zero.
pub fn rsqrt_ftz_f64(a: u64) -> u64 {
    upper_word(a, rsqrt)
}

/// `rsqrt.approx.f64` (software sequence on the GPU, no documented bound): 1/√a with two roundings.
/// NaN operands keep their payload.
pub fn rsqrt_f64(a: u64) -> u64 {
    if F64.is_nan(a) {
        return F64.nan_result(&[a]);
    }
    via_f64(F64, a, false, rsqrt)
}

/// `ex2.approx.f16` (relative ≤ 2^-9.9).
pub fn ex2_f16(a: u16) -> u16 {
    via_f64(F16, a as u64, false, libm::exp2) as u16
}

/// `ex2.approx.ftz.bf16` (relative ≤ 2^-7; subnormal operands count as zero).
pub fn ex2_ftz_bf16(a: u16) -> u16 {
    via_f64(BF16, a as u64, true, libm::exp2) as u16
}

/// `tanh.approx.f16` (absolute ≤ 2^-10.987).
pub fn tanh_f16(a: u16) -> u16 {
    via_f64(F16, a as u64, false, libm::tanh) as u16
}

/// `tanh.approx.bf16` (absolute ≤ 2^-8).
pub fn tanh_bf16(a: u16) -> u16 {
    via_f64(BF16, a as u64, false, libm::tanh) as u16
}

/// A 16-bit function applied to both halves of a packed pair.
fn pair(a: u32, f: fn(u16) -> u16) -> u32 {
    f(a as u16) as u32 | (f((a >> 16) as u16) as u32) << 16
}

/// `ex2.approx.f16x2`.
pub fn ex2_f16x2(a: u32) -> u32 {
    pair(a, ex2_f16)
}

/// `ex2.approx.ftz.bf16x2`.
pub fn ex2_ftz_bf16x2(a: u32) -> u32 {
    pair(a, ex2_ftz_bf16)
}

/// `tanh.approx.f16x2`.
pub fn tanh_f16x2(a: u32) -> u32 {
    pair(a, tanh_f16)
}

/// `tanh.approx.bf16x2`.
pub fn tanh_bf16x2(a: u32) -> u32 {
    pair(a, tanh_bf16)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(x: u32) -> f32 {
        f32::from_bits(x)
    }

    #[test]
    fn special_values_follow_the_ptx_tables() {
        assert_eq!(ex2_f32(0xFF80_0000, false), 0);
        assert_eq!(ex2_f32(0x8000_0000, false), 0x3F80_0000);
        assert_eq!(lg2_f32(0x8000_0000, false), 0xFF80_0000);
        assert_eq!(lg2_f32(0xBF80_0000, false), 0x7FFF_FFFF);
        assert_eq!(lg2_f32(1, true), 0xFF80_0000);
        assert_eq!(sin_f32(0x8000_0000, false), 0x8000_0000);
        assert_eq!(cos_f32(0x8000_0000, false), 0x3F80_0000);
        assert_eq!(sin_f32(0x7F80_0000, false), 0x7FFF_FFFF);
        assert_eq!(tanh_f32(0xFF80_0000), 0xBF80_0000);
        assert_eq!(tanh_f32(1), 1);
        assert_eq!(rsqrt_f32(0x8000_0000, false), 0xFF80_0000);
        assert_eq!(rcp_f32(0x8000_0000, false), 0xFF80_0000);
        assert_eq!(ex2_ftz_bf16(0x8001), 0x3F80);
        assert_eq!(rcp_ftz_f64(0x7FF8_0000_0000_0000), 0x7FFF_FFFF_0000_0000);
        assert_eq!(rcp_ftz_f64(0x8000_0001_0000_0000), 0xFFF0_0000_0000_0000);
        assert_eq!(rsqrt_ftz_f64(0xFFF0_0000_0000_0000), 0x7FFF_FFFF_0000_0000);
        assert_eq!(rcp_ftz_f64(2f64.to_bits() | 0xFFFF_FFFF), 0.5f64.to_bits());
    }

    #[test]
    fn div_approx_flushes_the_reciprocal_of_huge_divisors() {
        let big = 2f32.powi(127).to_bits();
        assert_eq!(div_f32(1f32.to_bits(), big, false), 0);
        assert_eq!(div_f32(f32::INFINITY.to_bits(), big, false), 0x7FFF_FFFF);
        assert_eq!(f(div_f32(3f32.to_bits(), 2f32.to_bits(), false)), 1.5);
        assert_eq!(
            div_full_f32(1f32.to_bits(), big, false),
            2f32.powi(-127).to_bits()
        );
    }

    /// Without `.ftz` a subnormal divisor is scaled with the dividend (values from the H200 oracle).
    #[test]
    fn div_approx_scales_subnormal_divisors() {
        assert_eq!(div_f32(0, 1, false), 0);
        assert_eq!(div_f32(0x8000_0000, 0x8000_0001, false), 0);
        assert_eq!(div_f32(1, 3, false), 0x3EAA_AAAB);
        assert_eq!(div_f32(0x3F80_0000, 0x007F_FFFF, false), 0x7E80_0001);
        assert_eq!(div_f32(0x0080_0000, 1, false), 0x4B00_0000);
        assert_eq!(div_f32(0x7F80_0000, 0x8000_0001, false), 0xFF80_0000);
        assert_eq!(div_f32(0, 0, false), 0x7FFF_FFFF);
        // .ftz flushes the divisor to zero instead.
        assert_eq!(div_f32(0, 1, true), 0x7FFF_FFFF);
        assert_eq!(div_f32(1, 1, true), 0x7FFF_FFFF);
        assert_eq!(div_f32(0x3F80_0000, 1, true), 0x7F80_0000);
    }

    /// The fixed-point turn of MUFU.SIN/COS (values from the H200 oracle unless noted).
    #[test]
    fn sin_cos_reduce_to_a_25_bit_turn() {
        // Below one 2^-25 turn the sine is a signed zero.
        assert_eq!(sin_f32(0xB407_4DF7, false), 0x8000_0000);
        assert_eq!(sin_f32(0x33DA_391B, false), 0);
        // One unit: sin(2π·2^-25) (the H200's MUFU gives 0x34491200, its own error).
        assert_eq!(sin_f32(0x3480_0000, false), 0x3449_0FDB);
        // Exact half and quarter turns: signed zeros and ±1 by quadrant.
        assert_eq!(sin_f32(0x4B00_0001, false), 0x8000_0000);
        assert_eq!(sin_f32(0xCA4E_698C, false), 0);
        assert_eq!(sin_f32(0x4AE0_0000, false), 0x3F80_0000);
        assert_eq!(sin_f32(0x4B80_0000, false), 0xBF80_0000);
        assert_eq!(cos_f32(0x4AD0_0000, false), 0x8000_0000);
        assert_eq!(cos_f32(0x4B7D_709D, false), 0);
        assert_eq!(cos_f32(0xCB4D_8000, false), 0xBF80_0000);
        assert_eq!(cos_f32(0x0000_0001, false), 0x3F80_0000);
        // 2286.5 units short of a quarter turn: the one's complement in the odd quadrant gives
        // 2286 units, sin(2π·2286/2^25) = 0x39E06D72 (the H200 gives 0x39E06FB8; 2287 would be
        // 0x39E08694).
        assert_eq!(cos_f32(0xBFC9_01D4, false), 0x39E0_6D72);
    }

    /// MUFU.RCP64H/RSQ64H truncate an f32-precision result to the upper word (values from the
    /// H200 oracle, where rounding to nearest would differ).
    #[test]
    fn upper_word_approximations_truncate() {
        assert_eq!(rcp_ftz_f64(0x4004_0000_0000_0000), 0x3FD9_9999_0000_0000);
        assert_eq!(rcp_ftz_f64(0xC004_0000_0000_0000), 0xBFD9_9999_0000_0000);
        assert_eq!(rcp_ftz_f64(0x430C_0000_0000_0000), 0x3CD2_4924_0000_0000);
        assert_eq!(rsqrt_ftz_f64(0x430C_0000_0000_0000), 0x3E61_1ACE_0000_0000);
        assert_eq!(rsqrt_ftz_f64(0x4217_0000_0000_0000), 0x3EDA_B099_0000_0000);
        // The huge reciprocal is tiny: flushed.
        assert_eq!(rcp_ftz_f64(0x7FEF_FFFF_FFFF_FFFF), 0);
        assert_eq!(rsqrt_ftz_f64(0xBFF0_0000_0000_0000), 0x7FFF_FFFF_0000_0000);
        assert_eq!(rcp_ftz_f64(0x7FF0_0000_0000_0001), 0);
    }

    #[test]
    fn sin_cos_are_close() {
        // PTX: absolute error ≤ 2^-20.5 on [-2π, 2π], ≤ 2^-14.7 on [-100π, 100π].
        for i in -20000..20000 {
            let x = i as f32 * 0.0157;
            let bound = if (x.abs() as std::primitive::f64) <= std::f64::consts::TAU {
                2f64.powf(-20.5)
            } else {
                2f64.powf(-14.7)
            };
            let s = f(sin_f32(x.to_bits(), false)) as f64;
            let c = f(cos_f32(x.to_bits(), false)) as f64;
            assert!((s - (x as f64).sin()).abs() < bound, "sin {x}");
            assert!((c - (x as f64).cos()).abs() < bound, "cos {x}");
        }
    }
}
