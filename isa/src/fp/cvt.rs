//! `cvt`: every conversion between PTX integer and floating-point types, rounded once from the exact
//! source value (so f64 → f16 never goes through f32), with `.ftz`, `.sat`, `.satfinite` and `.relu`.
//!
//! Integer results are returned as the destination type's value in a u64: sign-extended for signed
//! types (as PTX writes a wider destination register), zero-extended otherwise. Integer sources use
//! the low bits of `a` for the source type's width.

use super::core;
use super::format::{Format, NanRule, Val, BF16, E4M3, E5M2, F16, F32, F64, TF32};
use super::{IntRounding, Rounding};

/// A PTX floating-point type as a `cvt` operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FloatType {
    F16,
    Bf16,
    F32,
    F64,
    /// `.tf32`: f32 container, 10 fraction bits, the 13 low bits zero. Only a destination in PTX.
    Tf32,
    /// OCP fp8 e4m3 (no infinities); PTX converts it only in packed `x2` forms (see [`pack2_f32`]).
    E4m3,
    /// OCP fp8 e5m2.
    E5m2,
}

impl FloatType {
    /// The format values are rounded to.
    fn format(self) -> Format {
        match self {
            FloatType::F16 => F16,
            FloatType::Bf16 => BF16,
            FloatType::F32 => F32,
            FloatType::F64 => F64,
            FloatType::Tf32 => TF32,
            FloatType::E4m3 => E4M3,
            FloatType::E5m2 => E5M2,
        }
    }
    /// The format of the register bits (tf32 lives in an f32 container).
    fn container(self) -> Format {
        match self {
            FloatType::Tf32 => F32,
            t => t.format(),
        }
    }
    /// Rounded bits of [`FloatType::format`] to register bits.
    fn store(self, bits: u64) -> u64 {
        match self {
            FloatType::Tf32 => bits << (F32.man_bits - TF32.man_bits),
            _ => bits,
        }
    }
}

/// A PTX integer type as a `cvt` operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IntType {
    U8,
    U16,
    U32,
    U64,
    S8,
    S16,
    S32,
    S64,
}

impl IntType {
    pub fn bits(self) -> u32 {
        match self {
            IntType::U8 | IntType::S8 => 8,
            IntType::U16 | IntType::S16 => 16,
            IntType::U32 | IntType::S32 => 32,
            IntType::U64 | IntType::S64 => 64,
        }
    }
    pub fn signed(self) -> bool {
        matches!(
            self,
            IntType::S8 | IntType::S16 | IntType::S32 | IntType::S64
        )
    }
    fn min(self) -> i128 {
        if self.signed() {
            -(1i128 << (self.bits() - 1))
        } else {
            0
        }
    }
    fn max(self) -> i128 {
        (1i128 << (self.bits() - self.signed() as u32)) - 1
    }
    /// The value of the low `bits()` bits of `a`.
    fn value(self, a: u64) -> i128 {
        let shift = 64 - self.bits();
        if self.signed() {
            ((a << shift) as i64 >> shift) as i128
        } else {
            ((a << shift) >> shift) as i128
        }
    }
    /// `v` wrapped to this type, then extended to 64 bits by its signedness.
    fn store(self, v: i128) -> u64 {
        self.value(v as u64) as u64
    }
}

/// Modifiers of a conversion with a floating-point destination.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FloatMods {
    /// `.ftz`: flush f32 subnormal inputs and f32 subnormal results (PTX: it applies to f32 only).
    pub ftz: bool,
    /// `.sat`: clamp to [0, 1], NaN → +0.
    pub sat: bool,
    /// `.satfinite`: overflow and infinities give ±largest finite; NaN stays NaN.
    pub satfinite: bool,
    /// `.relu`: negatives (and −0.0) → +0.0, NaN → canonical NaN.
    pub relu: bool,
}

/// Converts a decoded value into format `df`: one rounding; `src_nan` are the source bits of a NaN.
/// A NaN keeps its sign and payload (shifted into place), quieted, when f64 is the source or the
/// destination, and becomes `df`'s canonical NaN between other formats (H200 oracle:
/// `cvt.rn.f32.f64(0xFFF8000000000003)` = 0xFFC00000, `cvt.rn.f16.f64(0x7FF8000000000000)` = 0x7E00,
/// `cvt.f64.f16(0xFC6F)` = 0xFFF9BC0000000000, but `cvt.rn.f16.f32(0xFFC00003)` = 0x7FFF).
pub(crate) fn convert_val(
    sf: Format,
    df: Format,
    v: Val,
    src_nan: u64,
    rnd: Rounding,
    ftz: bool,
    satfinite: bool,
) -> u64 {
    match v {
        Val::Nan => match (sf.nan, df.nan) {
            (NanRule::Canonical(_), NanRule::Canonical(n)) => n,
            _ if !df.has_inf => df.default_nan(),
            _ => {
                let payload = src_nan & (sf.quiet_bit() - 1);
                let payload = match df.man_bits.checked_sub(sf.man_bits) {
                    Some(widen) => payload << widen,
                    None => payload >> (sf.man_bits - df.man_bits),
                };
                df.inf(sf.is_neg(src_nan)) | df.quiet_bit() | (payload & (df.quiet_bit() - 1))
            }
        },
        Val::Inf { neg } if satfinite => df.max_finite(neg),
        Val::Inf { neg } if df.has_inf => df.inf(neg),
        Val::Inf { .. } => df.default_nan(),
        Val::Zero { neg } => df.zero(neg),
        Val::Num { neg, exp, sig } => df.round(neg, exp, sig, rnd, ftz, satfinite),
    }
}

/// Bits of format `sf` to format `df` (no `.relu`/`.sat`), flushing input and result as asked.
pub(crate) fn convert(
    sf: Format,
    df: Format,
    a: u64,
    rnd: Rounding,
    ftz_in: bool,
    ftz_out: bool,
) -> u64 {
    let host = if sf == F64 && df == F32 && rnd == Rounding::Rn {
        f64_to_f32_rn(a, ftz_in, ftz_out)
    } else if sf == F32 && df == F64 {
        f32_to_f64(a, ftz_in)
    } else {
        None
    };
    host.unwrap_or_else(|| convert_val(sf, df, sf.decode(a, ftz_in), a, rnd, ftz_out, false))
}

/// [`convert`] from f32 to f64 (exact) by the host's conversion; `None` leaves NaNs and subnormals
/// flushed on input to the exact path.
#[inline]
fn f32_to_f64(a: u64, ftz_in: bool) -> Option<u64> {
    let x = f32::from_bits(F32.mask(a) as u32);
    (!(x.is_nan() || ftz_in && x.is_subnormal())).then(|| (x as f64).to_bits())
}

/// [`convert`] from f64 to f32 to nearest by the host's conversion, which rounds to nearest even
/// as IEEE 754 requires (subnormal results and overflow to infinity included); `None` leaves NaNs,
/// subnormals flushed on input and results flushed on output (at most the smallest normal, which
/// may have been tiny before rounding) to the exact path.
#[inline]
fn f64_to_f32_rn(a: u64, ftz_in: bool, ftz_out: bool) -> Option<u64> {
    let x = f64::from_bits(a);
    if x.is_nan() || ftz_in && x.is_subnormal() {
        return None;
    }
    let r = (x as f32).to_bits();
    if ftz_out && r & !F32.sign_bit() as u32 <= F32.min_normal() as u32 {
        return None;
    }
    Some(r as u64)
}

/// Applies `.relu` and `.sat` to a result in `dst`'s register format. A NaN result already is the
/// destination's NaN, which `.relu` keeps (H200 oracle: `cvt.rn.relu.tf32.f32(NaN)` = 0x7FFFE000).
fn finish(dst: FloatType, r: u64, m: FloatMods) -> u64 {
    let f = dst.container();
    let r = if m.relu && !f.is_nan(r) {
        core::relu(f, r)
    } else {
        r
    };
    if m.sat {
        core::saturate(f, r)
    } else {
        r
    }
}

/// Whether `cvt` from `src` to `dst` without `.ftz`/`.satfinite` is a move of the register bits, as
/// f32 → f32 and bf16 → f32 (the upper half of an f32) are: a NaN then passes unchanged, not even
/// quieted (H200 oracle: `cvt.f32.f32(0x7F800001)` = 0x7F800001, `cvt.f32.bf16(0x7F81)` =
/// 0x7F810000). Other exact widenings convert, e5m2 → f16 included although it too is a bit prefix
/// (`cvt.rn.f16x2.e5m2x2` of 0x7D gives 0x7FFF).
fn moves_bits(src: FloatType, dst: FloatType) -> bool {
    matches!(
        (src, dst),
        (FloatType::F32 | FloatType::Bf16, FloatType::F32)
    )
}

/// `cvt.rna{.satfinite}.tf32.f32` as the H200 computes it: integer arithmetic on the register. Half a
/// tf32 ulp is added to the bit pattern and the 13 low bits are cleared; `.satfinite` then takes one
/// tf32 ulp off a result whose exponent is all ones. On numbers this is rounding half away from zero,
/// overflowing to infinity or, under `.satfinite`, to the largest finite; a NaN's bits are rounded
/// the same way (H200 oracle: 0x7F800001 → 0x7F800000, and 0x7FC00000 → 0x7FBFE000 under
/// `.satfinite`).
fn rna_tf32(a: u64, satfinite: bool) -> u64 {
    let ulp = 1 << (F32.man_bits - TF32.man_bits);
    let r = F32.mask(a + ulp / 2) & !(ulp - 1);
    if satfinite && F32.inf(false) & !r == 0 {
        r - ulp
    } else {
        r
    }
}

/// `cvt{.frnd}{.ftz}{.sat}{.relu}{.satfinite}.dst.src` between floating-point types. Widening is
/// exact and ignores `rnd`. A NaN keeps its sign and payload, quieted, when f64 is the source or the
/// destination, and becomes the destination's canonical NaN otherwise, except that f32 → f32 and
/// bf16 → f32 move the bits unchanged and `cvt.rna.tf32.f32` rounds a NaN's bit pattern like a
/// number's. `.ftz` on an f32 source also makes a NaN canonical first (H200 oracle:
/// `cvt.ftz.f64.f32(0xFFC00003)` = 0x7FFFFFFFE0000000, the canonical f32 NaN widened).
pub fn f2f(src: FloatType, dst: FloatType, a: u64, rnd: Rounding, m: FloatMods) -> u64 {
    let sf = src.container();
    let r = if moves_bits(src, dst) && !m.ftz && !m.satfinite {
        sf.mask(a) << (dst.container().man_bits - sf.man_bits)
    } else if (src, dst, rnd) == (FloatType::F32, FloatType::Tf32, Rounding::Rna) {
        rna_tf32(F32.flush(a, m.ftz), m.satfinite)
    } else {
        let ftz_in = m.ftz && src == FloatType::F32;
        let a = if ftz_in && F32.is_nan(a) {
            F32.default_nan()
        } else {
            a
        };
        let ftz_out = m.ftz && dst == FloatType::F32;
        let v = sf.decode(a, ftz_in);
        dst.store(convert_val(
            sf,
            dst.format(),
            v,
            a,
            rnd,
            ftz_out,
            m.satfinite,
        ))
    };
    finish(dst, r, m)
}

/// `cvt.irnd{.ftz}{.sat}.t.t`: rounds to an integral value kept in the same floating-point type.
pub fn f2f_integral(ty: FloatType, a: u64, rnd: IntRounding, ftz: bool, sat: bool) -> u64 {
    let f = ty.container();
    let a = f.flush(a, ftz);
    let r = match f.decode(a, false) {
        Val::Nan => f.nan_result(&[a]),
        Val::Num { neg, exp, sig } if exp < 0 => match core::integral(neg, exp, sig, rnd.float()) {
            0 => f.zero(neg),
            mag => f.round(neg, 0, mag, Rounding::Rn, false, false),
        },
        _ => a,
    };
    if sat {
        core::saturate(f, r)
    } else {
        r
    }
}

/// `cvt.irnd{.ftz}.int.float`: rounds to an integer and clamps to the destination's range (PTX
/// saturates float → int by default). NaN gives 0, or `1 << (bits − 1)` when the source is f64 or the
/// destination is 64-bit (PTX ISA, "Integer Notes"). `.ftz` applies to f32 sources only.
pub fn f2i(src: FloatType, dst: IntType, a: u64, rnd: IntRounding, ftz: bool) -> u64 {
    let f = src.container();
    let v: i128 = match f.decode(a, ftz && src == FloatType::F32) {
        Val::Nan if src == FloatType::F64 || dst.bits() == 64 => 1 << (dst.bits() - 1),
        Val::Nan | Val::Zero { .. } => 0,
        Val::Inf { neg } => {
            if neg {
                dst.min()
            } else {
                dst.max()
            }
        }
        Val::Num { neg, exp, sig } => {
            let mag = core::integral(neg, exp, sig, rnd.float()) as i128;
            (if neg { -mag } else { mag }).clamp(dst.min(), dst.max())
        }
    };
    dst.store(v)
}

/// `cvt.frnd{.sat}{.relu}{.satfinite}.float.int`.
pub fn i2f(src: IntType, dst: FloatType, a: u64, rnd: Rounding, m: FloatMods) -> u64 {
    let df = dst.format();
    let v = src.value(a);
    let r = if v == 0 {
        0
    } else {
        let ftz_out = m.ftz && dst == FloatType::F32;
        dst.store(df.round(v < 0, 0, v.unsigned_abs(), rnd, ftz_out, m.satfinite))
    };
    finish(dst, r, m)
}

/// `cvt{.sat}.dst.src` between integer types: the source value (sign- or zero-extended from its
/// width), clamped to the destination's range with `.sat`, else wrapped to its width.
pub fn i2i(src: IntType, dst: IntType, a: u64, sat: bool) -> u64 {
    let v = src.value(a);
    dst.store(if sat {
        v.clamp(dst.min(), dst.max())
    } else {
        v
    })
}

/// The packed destinations of two-input `cvt`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PackedType {
    F16x2,
    Bf16x2,
    /// Requires `.satfinite` in PTX.
    E4m3x2,
    /// Requires `.satfinite` in PTX.
    E5m2x2,
}

impl PackedType {
    fn element(self) -> FloatType {
        match self {
            PackedType::F16x2 => FloatType::F16,
            PackedType::Bf16x2 => FloatType::Bf16,
            PackedType::E4m3x2 => FloatType::E4m3,
            PackedType::E5m2x2 => FloatType::E5m2,
        }
    }
}

/// `cvt.frnd{.relu}{.satfinite}.{f16x2,bf16x2,e4m3x2,e5m2x2}.f32 d, a, b`: `a` converted into the
/// upper element, `b` into the lower (PTX order).
pub fn pack2_f32(dst: PackedType, a: u32, b: u32, rnd: Rounding, m: FloatMods) -> u32 {
    let t = dst.element();
    let w = t.format().width();
    let one = |x: u32| f2f(FloatType::F32, t, x as u64, rnd, m) as u32;
    one(a) << w | one(b)
}

/// An fp8 format of the packed fp8 ↔ f16x2 conversions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Fp8 {
    E4m3,
    E5m2,
}

impl Fp8 {
    fn float_type(self) -> FloatType {
        match self {
            Fp8::E4m3 => FloatType::E4m3,
            Fp8::E5m2 => FloatType::E5m2,
        }
    }
}

/// `cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.f16x2 d, a`: the upper f16 of `a` into the upper byte.
pub fn f8x2_from_f16x2(dst: Fp8, a: u32, relu: bool) -> u16 {
    let m = FloatMods {
        satfinite: true,
        relu,
        ..FloatMods::default()
    };
    let one = |x: u32| {
        f2f(
            FloatType::F16,
            dst.float_type(),
            (x & 0xFFFF) as u64,
            Rounding::Rn,
            m,
        ) as u16
    };
    one(a >> 16) << 8 | one(a)
}

/// `cvt.rn{.relu}.f16x2.{e4m3x2,e5m2x2} d, a` (exact): the upper byte of `a` into the upper f16.
pub fn f16x2_from_f8x2(src: Fp8, a: u16, relu: bool) -> u32 {
    let m = FloatMods {
        relu,
        ..FloatMods::default()
    };
    let one = |x: u16| {
        f2f(
            src.float_type(),
            FloatType::F16,
            (x & 0xFF) as u64,
            Rounding::Rn,
            m,
        ) as u32
    };
    one(a >> 8) << 16 | one(a)
}

#[cfg(test)]
mod tests {
    use super::{
        f16x2_from_f8x2, f2f, f2f_integral, f2i, f8x2_from_f16x2, i2f, i2i, pack2_f32, FloatMods,
        FloatType, Fp8, IntType, PackedType,
    };
    use crate::fp::{IntRounding, Rounding};
    use FloatType::*;
    use IntRounding::*;
    use IntType::*;

    const NONE: FloatMods = FloatMods {
        ftz: false,
        sat: false,
        satfinite: false,
        relu: false,
    };

    #[test]
    fn f32_to_s32_saturates_and_rounds_ties_to_even() {
        let c = |x: f32, r| f2i(F32, S32, x.to_bits() as u64, r, false) as i64;
        assert_eq!(c(2.5, Rni), 2);
        assert_eq!(c(3.5, Rni), 4);
        assert_eq!(c(-2.5, Rni), -2);
        assert_eq!(c(-0.5, Rni), 0);
        assert_eq!(c(-2.5, Rmi), -3);
        assert_eq!(c(-2.5, Rzi), -2);
        assert_eq!(c(2.1, Rpi), 3);
        assert_eq!(c(3e9, Rni), i32::MAX as i64);
        assert_eq!(c(-3e9, Rni), i32::MIN as i64);
        assert_eq!(c(f32::INFINITY, Rzi), i32::MAX as i64);
        assert_eq!(c(f32::NAN, Rni), 0);
        // Subnormal with .rpi gives 1, unless .ftz flushed it first.
        assert_eq!(f2i(F32, S32, 1, Rpi, false), 1);
        assert_eq!(f2i(F32, S32, 1, Rpi, true), 0);
        // Negative to unsigned clamps to 0; NaN from f64 or into 64 bits is the sign bit.
        assert_eq!(f2i(F32, U32, (-5.0f32).to_bits() as u64, Rni, false), 0);
        assert_eq!(
            f2i(F64, S32, f64::NAN.to_bits(), Rni, false),
            0xFFFF_FFFF_8000_0000
        );
        assert_eq!(
            f2i(F32, U64, f32::NAN.to_bits() as u64, Rni, false),
            1 << 63
        );
        assert_eq!(f2i(F16, S8, 0x7C00, Rni, false), 127);
        assert_eq!(f2i(F64, U64, (1.9e19f64).to_bits(), Rzi, false), u64::MAX);
    }

    #[test]
    fn integral_rounding_keeps_sign_and_ties_to_even() {
        let r = |x: f32, m| {
            f32::from_bits(f2f_integral(F32, x.to_bits() as u64, m, false, false) as u32)
        };
        assert_eq!(r(0.5, Rni).to_bits(), 0);
        assert_eq!(r(-0.5, Rni).to_bits(), 0x8000_0000);
        assert_eq!(r(1.5, Rni), 2.0);
        assert_eq!(r(2.5, Rni), 2.0);
        assert_eq!(r(-1.25, Rmi), -2.0);
        assert_eq!(r(-1.25, Rpi).to_bits(), (-1.0f32).to_bits());
        assert_eq!(r(-0.25, Rpi).to_bits(), 0x8000_0000);
        assert_eq!(r(8388609.0, Rni), 8388609.0);
        assert_eq!(
            f2f_integral(F64, 0x7FF0_0000_0000_0001, Rni, false, false),
            0x7FF8_0000_0000_0001
        );
    }

    #[test]
    fn f64_to_f16_rounds_once() {
        // 1 + 2^-11 + 2^-40: to f32 it would round to 1 + 2^-11 (a tie in f16 → 1.0), but the
        // exact value is above the tie, so f16 rounds up to 1 + 2^-10.
        let x = 1.0 + 2f64.powi(-11) + 2f64.powi(-40);
        assert_eq!(f2f(F64, F16, x.to_bits(), Rounding::Rn, NONE), 0x3C01);
        // Overflow by direction; satfinite.
        assert_eq!(
            f2f(F32, F16, 70000f32.to_bits() as u64, Rounding::Rn, NONE),
            0x7C00
        );
        assert_eq!(
            f2f(F32, F16, 70000f32.to_bits() as u64, Rounding::Rz, NONE),
            0x7BFF
        );
        let sf = FloatMods {
            satfinite: true,
            ..NONE
        };
        assert_eq!(
            f2f(
                F32,
                F16,
                f32::NEG_INFINITY.to_bits() as u64,
                Rounding::Rn,
                sf
            ),
            0xFBFF
        );
        // .ftz on cvt.f16.f32 flushes the f32 input, never the f16 result.
        let ftz = FloatMods { ftz: true, ..NONE };
        assert_eq!(f2f(F32, F16, 1, Rounding::Rp, ftz), 0);
        assert_eq!(f2f(F32, F16, 1, Rounding::Rp, NONE), 1);
        assert_eq!(f2f(F32, F16, 0x3380_0000, Rounding::Rn, ftz), 1); // 2^-24
    }

    /// NaN results, with the values of the H200 oracle.
    #[test]
    fn nan_conversions() {
        let rn = |s, d, a| f2f(s, d, a, Rounding::Rn, NONE);
        let ftz = FloatMods { ftz: true, ..NONE };
        // f64 on either side: sign and payload kept, quieted.
        assert_eq!(rn(F32, F64, 0xFFC0_0003), 0xFFF8_0000_6000_0000);
        assert_eq!(rn(F32, F64, 0x7F80_0001), 0x7FF8_0000_2000_0000);
        assert_eq!(rn(F16, F64, 0xFC6F), 0xFFF9_BC00_0000_0000);
        assert_eq!(rn(F64, F32, 0xFFF8_0000_0000_0003), 0xFFC0_0000);
        assert_eq!(rn(F64, F32, 0x7FF0_0000_0000_0001), 0x7FC0_0000);
        assert_eq!(rn(F64, F16, 0xFFF8_0000_0000_0003), 0xFE00);
        assert_eq!(rn(F64, Bf16, 0x7FF8_0000_0000_0000), 0x7FC0);
        // .ftz runs an f32 source through the f32 datapath: the NaN becomes canonical first.
        assert_eq!(
            f2f(F32, F64, 0xFFC0_0003, Rounding::Rn, ftz),
            0x7FFF_FFFF_E000_0000
        );
        // Other conversions write the canonical NaN; moves keep the bits.
        assert_eq!(rn(F32, F16, 0xFFC0_0003), 0x7FFF);
        assert_eq!(rn(F16, F32, 0x7C01), 0x7FFF_FFFF);
        assert_eq!(rn(F16, Bf16, 0xFE03), 0x7FFF);
        assert_eq!(rn(Bf16, F32, 0x7F81), 0x7F81_0000);
        assert_eq!(rn(F32, F32, 0x7F80_0001), 0x7F80_0001);
        assert_eq!(f2f(F32, F32, 0x7F80_0001, Rounding::Rn, ftz), 0x7FFF_FFFF);
        assert_eq!(f2f(Bf16, F32, 0xFFC3, Rounding::Rn, ftz), 0x7FFF_FFFF);
        // tf32: the canonical NaN in its container is 0x7FFFE000, which .relu keeps; .rna rounds
        // the NaN's bits like a number's.
        assert_eq!(rn(F32, Tf32, 0xFFC0_0003), 0x7FFF_E000);
        let relu = FloatMods { relu: true, ..NONE };
        assert_eq!(f2f(F32, Tf32, 0x7FC0_0000, Rounding::Rn, relu), 0x7FFF_E000);
        let rna = |a, satfinite| f2f(F32, Tf32, a, Rounding::Rna, FloatMods { satfinite, ..NONE });
        assert_eq!(rna(0x7F80_0001, false), 0x7F80_0000);
        assert_eq!(rna(0xFFC0_0003, false), 0xFFC0_0000);
        assert_eq!(rna(0x7F80_0001, true), 0x7F7F_E000);
        assert_eq!(rna(0x7FC0_0000, true), 0x7FBF_E000);
        assert_eq!(rna(0x7FF8_0000, true), 0x7FF7_E000);
        assert_eq!(rna(0xFF80_0000, true), 0xFF7F_E000);
        assert_eq!(rna(0x7F7F_FFFF, false), 0x7F80_0000);
        let sat = FloatMods { sat: true, ..NONE };
        assert_eq!(f2f(F32, F16, 0x7FC0_0000, Rounding::Rn, sat), 0);
        assert_eq!(
            f2f(F32, F16, (-3.0f32).to_bits() as u64, Rounding::Rn, sat),
            0
        );
        assert_eq!(
            f2f(F32, F16, 3.0f32.to_bits() as u64, Rounding::Rn, sat),
            0x3C00
        );
    }

    #[test]
    fn tf32_and_fp8() {
        // 1 + 2^-11 exactly halfway between tf32 neighbours: rna rounds away, rn to even.
        let x = (1.0f32 + 2f32.powi(-11)).to_bits() as u64;
        assert_eq!(f2f(F32, Tf32, x, Rounding::Rna, NONE), 0x3F80_2000);
        assert_eq!(f2f(F32, Tf32, x, Rounding::Rn, NONE), 0x3F80_0000);
        let sf = FloatMods {
            satfinite: true,
            ..NONE
        };
        let p = pack2_f32(
            PackedType::E4m3x2,
            1000f32.to_bits(),
            (-1.0f32).to_bits(),
            Rounding::Rn,
            sf,
        );
        assert_eq!(p, 0x7EB8);
        let p = pack2_f32(
            PackedType::E5m2x2,
            f32::INFINITY.to_bits(),
            0x7FC0_0000,
            Rounding::Rn,
            sf,
        );
        assert_eq!(p, 0x7B7F);
        let p = pack2_f32(
            PackedType::F16x2,
            1.0f32.to_bits(),
            2.0f32.to_bits(),
            Rounding::Rn,
            NONE,
        );
        assert_eq!(p, 0x3C00_4000);
        assert_eq!(f16x2_from_f8x2(Fp8::E4m3, 0x7EB8, false), 0x5F00_BC00);
        assert_eq!(f8x2_from_f16x2(Fp8::E4m3, 0x5F00_BC00, true), 0x7E00);
        let relu = FloatMods { relu: true, ..NONE };
        assert_eq!(
            f2f(F32, Bf16, (-0.0f32).to_bits() as u64, Rounding::Rn, relu),
            0
        );
    }

    #[test]
    fn int_conversions() {
        assert_eq!(i2i(S8, S32, 0x80, false), 0xFFFF_FFFF_FFFF_FF80);
        assert_eq!(i2i(S8, U32, 0x80, false), 0xFFFF_FF80);
        assert_eq!(i2i(S32, U8, 0xFFFF_FFFF, true), 0);
        assert_eq!(i2i(U32, S16, 70000, true), 0x7FFF);
        assert_eq!(i2i(S64, S16, (-70000i64) as u64, true), (-32768i64) as u64);
        assert_eq!(i2i(U64, S64, u64::MAX, true), i64::MAX as u64);
        assert_eq!(i2i(U32, S16, 70000, false), 70000 & 0xFFFF);
        // 2^24 + 1 is a tie between f32 neighbours.
        assert_eq!(
            i2f(S32, F32, (1 << 24) + 1, Rounding::Rn, NONE),
            0x4B80_0000
        );
        assert_eq!(
            i2f(S32, F32, (1 << 24) + 1, Rounding::Rp, NONE),
            0x4B80_0001
        );
        assert_eq!(
            i2f(S64, F16, (-70000i64) as u64, Rounding::Rz, NONE),
            0xFBFF
        );
        assert_eq!(
            i2f(U64, F64, u64::MAX, Rounding::Rz, NONE),
            0x43EF_FFFF_FFFF_FFFF
        );
        assert_eq!(i2f(S8, Bf16, 0xFF, Rounding::Rn, NONE), 0xBF80);
    }

    proptest::proptest! {
        /// The host conversion agrees with the exact rounding wherever it is used.
        #[test]
        fn f64_to_f32_fast_path_is_exact(a in proptest::prelude::any::<u64>(), near in 0u32..3, ftz_in: bool, ftz_out: bool) {
            use super::super::format::{F32, F64};
            // Bias some inputs into the f32 range, subnormals and the smallest normal included.
            let a = match near {
                0 => a,
                1 => (a & 0x800F_FFFF_FFFF_FFFF) | ((0x370 + (a >> 52) % 0x110) << 52),
                _ => (a & 0x800F_FFFF_FFFF_FFFF) | ((0x368 + (a >> 52) % 0x20) << 52),
            };
            if let Some(fast) = super::f64_to_f32_rn(a, ftz_in, ftz_out) {
                let exact = super::convert_val(F64, F32, F64.decode(a, ftz_in), a, Rounding::Rn, ftz_out, false);
                proptest::prop_assert_eq!(fast, exact, "{:#x}", a);
            }
        }

        #[test]
        fn f32_to_f64_fast_path_is_exact(a in proptest::prelude::any::<u32>(), ftz_in: bool, rnd in 0u8..4) {
            use super::super::format::{F32, F64};
            let rnd = [Rounding::Rn, Rounding::Rz, Rounding::Rm, Rounding::Rp][rnd as usize];
            if let Some(fast) = super::f32_to_f64(a as u64, ftz_in) {
                let exact = super::convert_val(F32, F64, F32.decode(a as u64, ftz_in), a as u64, rnd, false, false);
                proptest::prop_assert_eq!(fast, exact, "{:#x}", a);
            }
        }
    }
}
