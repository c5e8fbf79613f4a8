//! The `.approx` (and `div.full`) instructions. Hardware evaluates these on the SFU (MUFU) with
//! tables whose exact bits are not public; each function here documents its model and PTX's
//! tolerance (collected in the [module docs](super)). Models are deterministic on every host: the
//! transcendental parts use the pure-Rust `libm`, evaluated in f64 and rounded once.

use super::core;
use super::cvt::convert;
use super::format::{Format, Val, BF16, F16, F32, F64, F64_HI};
use super::Rounding;

/// `func` of the value of `a` (format `f`) evaluated in f64 and rounded to nearest in `f`; NaN
/// operands and results give `f`'s canonical NaN. `ftz` flushes operand and result.
fn via_f64(f: Format, a: u64, ftz: bool, func: impl Fn(f64) -> f64) -> u64 {
    if f.is_nan(a) {
        return f.default_nan();
    }
    let x = f64::from_bits(convert(f, F64, a, Rounding::Rn, ftz, false));
    let y = func(x);
    if y.is_nan() {
        f.default_nan()
    } else {
        convert(F64, f, y.to_bits(), Rounding::Rn, false, ftz)
    }
}

fn via_f64_32(a: u32, ftz: bool, func: impl Fn(f64) -> f64) -> u32 {
    via_f64(F32, a as u64, ftz, func) as u32
}

/// `rcp.approx{.ftz}.f32` (≤ 1 ulp): modelled correctly rounded.
pub fn rcp_f32(a: u32, ftz: bool) -> u32 {
    core::rcp(F32, a as u64, Rounding::Rn, ftz) as u32
}

/// `div.approx{.ftz}.f32`: `a × (1/b)` with the reciprocal flushed to zero like MUFU.RCP, so that
/// 2^126 < |b| gives ±0 (NaN for infinite `a`) as PTX documents; ≤ 2 ulp elsewhere.
pub fn div_f32(a: u32, b: u32, ftz: bool) -> u32 {
    let r = core::rcp(F32, b as u64, Rounding::Rn, true);
    core::mul(F32, a as u64, r, Rounding::Rn, ftz) as u32
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

/// `sin`/`cos.approx{.ftz}.f32`: `t = a × 1/(2π)` in f32 with round-toward-zero, then sin/cos of
/// 2π·(t − round(t)). Infinite or NaN `a` gives NaN.
fn sin_cos(a: u32, ftz: bool, cos: bool) -> u32 {
    let a = F32.flush(a as u64, ftz);
    match F32.decode(a, false) {
        Val::Nan | Val::Inf { .. } => F32.default_nan() as u32,
        Val::Zero { .. } if cos => F32.one() as u32,
        Val::Zero { .. } => a as u32,
        Val::Num { .. } => {
            let t = core::mul(F32, a, INV_2PI_F32, Rounding::Rz, ftz);
            via_f64_32(t as u32, ftz, |t| {
                let turn = 2.0 * std::f64::consts::PI * (t - libm::rint(t));
                if cos {
                    libm::cos(turn)
                } else {
                    libm::sin(turn)
                }
            })
        }
    }
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

/// `func` on the upper word of `a` in 1.11.20 format with flush-to-zero, rounded to nearest 1.11.20
/// and placed in the upper word; NaN gives 0x7FFFFFFF00000000 (PTX).
fn upper_word(a: u64, func: impl Fn(f64) -> f64) -> u64 {
    via_f64(F64_HI, a >> 32, true, func) << 32
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
