//! PTX floating-point semantics on raw bits, as an H200 (sm_90) computes them.
//!
//! Pure functions of register bits (u16/u32/u64 in, bits out; NaN payloads never pass through host
//! floats) that the simulator calls per lane: IEEE add/sub/mul/fma/div/rcp/sqrt in every PTX
//! rounding mode for f32 and f64 ([`mod@f32`], [`mod@f64`]), f16/bf16 scalars and packed pairs
//! ([`mod@f16`], [`bf16`], [`f16x2`], [`bf16x2`]), min/max (with `.NaN`), abs/neg/copysign, `testp` and every
//! `setp` comparison, all of `cvt` ([`cvt`]), and the `.approx` instructions ([`approx`]). `.sat`
//! clamps to [0, 1] with NaN to +0. Correctly rounded operations are exact for every input: values
//! are decoded to integers and rounded once (module `format`), with the host's native f32/f64
//! arithmetic as the fast path for `.rn`.
//!
//! The hardware is the reference: `isa/tests/fp_oracle.rs` compares every function with what an
//! H200 computed (`isa/tests/hw/fp_oracle.cu`, results in `isa/tests/hw/fp_oracle_h200.txt`), and
//! the rules below where PTX leaves a choice open, or where the H200 departs from the PTX text,
//! come from that oracle (each is cited where it is implemented):
//! - `.ftz` flushes subnormal operands, and results that are tiny *before* rounding, to
//!   sign-preserving zero: `mul.rn.ftz.f32(0x00800000, 0x3F7FFFFF)` = +0 although the product
//!   rounds to 2^-126 (IEEE tininess after rounding would keep it).
//! - NaN results: f32 arithmetic returns 0x7FFFFFFF, f16/bf16 0x7FFF, fp8 0x7F. f64 passes a NaN
//!   operand's payload on, quieted, with a precedence per instruction (`add`/`sub`/`mul`/`min`/`max`:
//!   `b` first; `fma`: `b`, `c`, `a`; `div`: `a`), `abs`/`neg` quiet an f64 NaN and keep its
//!   sign, and a NaN made from numbers is 0xFFF8000000000000.
//! - `cvt` keeps the sign and payload of a NaN when f64 is its source or destination, writes the
//!   destination's canonical NaN otherwise (tf32: 0x7FFFE000), except that f32 → f32 and
//!   bf16 → f32 move the bits and `cvt.rna.tf32.f32` rounds the bit pattern itself.
//!
//! The `.approx` models and the tolerances PTX documents for them (hardware is compared with the
//! documented bound, or with the model where the model follows the hardware further):
//! - `rcp.approx.f32`: ≤ 1 ulp; model: correctly rounded (H200: within 1 ulp of it).
//! - `div.approx.f32`: ≤ 2 ulp for |b| in [2^-126, 2^126]; model: `a × rcp(b)` with the reciprocal
//!   flushed like MUFU.RCP, so 2^126 < |b| gives ±0 (NaN for infinite a), as PTX documents; without
//!   `.ftz` a subnormal `b` is first scaled by 2^24 with `a` (H200: `div.approx.f32(0, 1)` = +0).
//!   H200: within 2 ulp of the model.
//! - `div.full.f32`: ≤ 2 ulp over the full range; model: correctly rounded (H200: within 2 ulp).
//! - `sqrt.approx.f32`: relative error ≤ 2^-23; `rsqrt.approx.f32`: relative ≤ 2^-22.9; models:
//!   correctly rounded (H200: within 1 ulp).
//! - `ex2.approx.f32`: ≤ 2 ulp; `lg2.approx.f32`: absolute ≤ 2^-22 on (0.5, 2), relative ≤ 2^-22
//!   elsewhere; models: 2^x and log2 x in f64 (libm) rounded once to f32 (H200: `ex2` within 2
//!   ulp; `lg2` within its bounds, far more ulps off near 1 where only the absolute bound holds).
//! - `sin/cos.approx.f32`: absolute ≤ 2^-20.5 on [-2π, 2π], ≤ 2^-14.7 on [-100π, 100π], no bound
//!   beyond; model: the H200's reduction, `a × 1/(2π)` in f32 with round-toward-zero (FMUL.RZ),
//!   its fraction of a turn truncated to 25 fixed-point bits (one's complement within odd
//!   quadrants), then sin of that angle correctly rounded. H200: within 2^-22 absolute of the
//!   model on every input (MUFU's evaluation error), e.g. ±0 for |a| < 2π·2^-25.
//! - `tanh.approx.f32`: relative ≤ 2^-11; model: correctly rounded via f64 (H200: relative error
//!   up to 2^-16.6, 115 ulp).
//! - `rcp.approx.ftz.f64`, `rsqrt.approx.ftz.f64`: PTX gives no bound ("gross approximation" on the
//!   upper 32 bits, lower word zero); model: the upper word's function with f32 precision (rounded
//!   to nearest, 23 fraction bits, f64 exponent range) truncated to its 20 fraction bits (H200:
//!   equal, or one unit of the upper word off where MUFU's error crosses a truncation boundary).
//! - `rsqrt.approx.f64`: no documented bound; model: 1/√a rounded via the exact √a (H200: within
//!   1 ulp).
//! - `ex2.approx.f16`: relative ≤ 2^-9.9; `ex2.approx.ftz.bf16`: relative ≤ 2^-7;
//!   `tanh.approx.f16`: absolute ≤ 2^-10.987; `tanh.approx.bf16`: absolute ≤ 2^-8; models:
//!   correctly rounded via f64 (H200: within 1 ulp).

pub mod approx;
mod arith;
mod core;
pub mod cvt;
mod format;
#[cfg(test)]
mod tests;

/// Rounding of a floating-point result (`.rn .rna .rz .rm .rp`). `Rna` (ties away from zero) exists
/// in PTX only for `cvt.rna.tf32.f32`; the functions here accept it everywhere.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rounding {
    Rn,
    Rna,
    Rz,
    Rm,
    Rp,
}

/// Rounding to an integral value (`.rni .rzi .rmi .rpi`) for float→int `cvt` and `cvt.rni.f32.f32`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IntRounding {
    Rni,
    Rzi,
    Rmi,
    Rpi,
}

impl IntRounding {
    fn float(self) -> Rounding {
        match self {
            IntRounding::Rni => Rounding::Rn,
            IntRounding::Rzi => Rounding::Rz,
            IntRounding::Rmi => Rounding::Rm,
            IntRounding::Rpi => Rounding::Rp,
        }
    }
}

/// `setp`/`set` comparison operators for floating point. The ordered ones (`Eq` … `Ge`) are false
/// when either operand is NaN, the unordered ones (`Equ` … `Geu`) true; `Num`: neither is NaN,
/// `Nan`: either is. −0.0 equals +0.0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Equ,
    Neu,
    Ltu,
    Leu,
    Gtu,
    Geu,
    Num,
    Nan,
}

/// `testp` properties. Zeros count as normal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TestOp {
    Finite,
    Infinite,
    Number,
    NotANumber,
    Normal,
    Subnormal,
}

/// Defines the public module of one scalar type over the generic bodies in `arith`.
macro_rules! scalar_module {
    ($(#[$doc:meta])* $m:ident, $kind:ty, $bits:ty) => {
        $(#[$doc])*
        pub mod $m {
            use super::arith::{self, Kind};
            use super::{CmpOp, Rounding, TestOp};
            type K = $kind;

            /// `add{.rnd}{.ftz}{.sat}`.
            #[inline]
            pub fn add(a: $bits, b: $bits, rnd: Rounding, ftz: bool, sat: bool) -> $bits {
                arith::add::<K>(a.into(), b.into(), rnd, ftz, sat) as $bits
            }
            /// `sub{.rnd}{.ftz}{.sat}`.
            #[inline]
            pub fn sub(a: $bits, b: $bits, rnd: Rounding, ftz: bool, sat: bool) -> $bits {
                arith::sub::<K>(a.into(), b.into(), rnd, ftz, sat) as $bits
            }
            /// `mul{.rnd}{.ftz}{.sat}`.
            #[inline]
            pub fn mul(a: $bits, b: $bits, rnd: Rounding, ftz: bool, sat: bool) -> $bits {
                arith::mul::<K>(a.into(), b.into(), rnd, ftz, sat) as $bits
            }
            /// `fma{.rnd}{.ftz}{.sat}` and `mad{.rnd}` (sm_20+): one rounding of the exact `a·b + c`.
            #[inline]
            pub fn fma(a: $bits, b: $bits, c: $bits, rnd: Rounding, ftz: bool, sat: bool) -> $bits {
                arith::fma::<K>(a.into(), b.into(), c.into(), rnd, ftz, sat) as $bits
            }
            /// `div{.rnd}{.ftz}` (IEEE).
            pub fn div(a: $bits, b: $bits, rnd: Rounding, ftz: bool) -> $bits {
                arith::div::<K>(a.into(), b.into(), rnd, ftz) as $bits
            }
            /// `rcp{.rnd}{.ftz}` (IEEE).
            pub fn rcp(a: $bits, rnd: Rounding, ftz: bool) -> $bits {
                arith::rcp::<K>(a.into(), rnd, ftz) as $bits
            }
            /// `sqrt{.rnd}{.ftz}` (IEEE).
            pub fn sqrt(a: $bits, rnd: Rounding, ftz: bool) -> $bits {
                arith::sqrt::<K>(a.into(), rnd, ftz) as $bits
            }
            /// `min{.ftz}{.NaN}`: −0.0 < +0.0; one NaN operand is ignored unless `nan`.
            pub fn min(a: $bits, b: $bits, ftz: bool, nan: bool) -> $bits {
                arith::min::<K>(a.into(), b.into(), ftz, nan) as $bits
            }
            /// `max{.ftz}{.NaN}`: −0.0 < +0.0; one NaN operand is ignored unless `nan`.
            pub fn max(a: $bits, b: $bits, ftz: bool, nan: bool) -> $bits {
                arith::max::<K>(a.into(), b.into(), ftz, nan) as $bits
            }
            /// `abs{.ftz}`.
            pub fn abs(a: $bits, ftz: bool) -> $bits {
                arith::abs::<K>(a.into(), ftz) as $bits
            }
            /// `neg{.ftz}`.
            pub fn neg(a: $bits, ftz: bool) -> $bits {
                arith::neg::<K>(a.into(), ftz) as $bits
            }
            /// `copysign d, a, b`: the sign of `a` on the magnitude of `b`.
            pub fn copysign(a: $bits, b: $bits) -> $bits {
                arith::copysign::<K>(a.into(), b.into()) as $bits
            }
            /// `testp.op`.
            pub fn testp(op: TestOp, a: $bits) -> bool {
                arith::testp::<K>(op, a.into())
            }
            /// `setp.op{.ftz}` (the comparison only; predicate combining is the caller's).
            pub fn setp(op: CmpOp, a: $bits, b: $bits, ftz: bool) -> bool {
                arith::setp::<K>(op, a.into(), b.into(), ftz)
            }
            /// The `.relu` modifier on a result of this type (`fma.relu`, `cvt.relu`): negative
            /// values and −0.0 become +0.0, NaN becomes the canonical NaN.
            pub fn relu(a: $bits) -> $bits {
                super::core::relu(K::FMT, a.into()) as $bits
            }
        }
    };
}

scalar_module!(
    /// `.f32` instructions. NaN results are 0x7FFFFFFF.
    f32, arith::K32, u32
);
scalar_module!(
    /// `.f64` instructions. PTX has no `.ftz`/`.sat` on f64 (pass `false`; they are honoured if set).
    /// A NaN operand is returned quieted with its payload and sign (of several, `b`'s for
    /// add/sub/mul/min/max, `b`'s then `c`'s for fma, `a`'s for div); a NaN made from numbers is
    /// 0xFFF8000000000000.
    f64, arith::K64, u64
);
scalar_module!(
    /// `.f16` instructions (PTX allows only `.rn`; other roundings are computed exactly as well).
    /// NaN results are 0x7FFF.
    f16, arith::K16, u16
);
scalar_module!(
    /// `.bf16` instructions (PTX allows only `.rn` and no `.ftz`/`.sat`; pass `false`).
    /// NaN results are 0x7FFF.
    bf16, arith::KB16, u16
);

/// Defines a packed-pair module: each operation applied to the low halves (element 0) and the high
/// halves (element 1) independently.
macro_rules! pair_module {
    ($(#[$doc:meta])* $m:ident, $s:ident) => {
        $(#[$doc])*
        pub mod $m {
            use super::{$s, Rounding};

            fn lanes(x: u32) -> [u16; 2] {
                [x as u16, (x >> 16) as u16]
            }
            fn pack([lo, hi]: [u16; 2]) -> u32 {
                lo as u32 | (hi as u32) << 16
            }
            fn map1(a: u32, f: impl Fn(u16) -> u16) -> u32 {
                pack(lanes(a).map(f))
            }
            fn map2(a: u32, b: u32, f: impl Fn(u16, u16) -> u16) -> u32 {
                let (a, b) = (lanes(a), lanes(b));
                pack([f(a[0], b[0]), f(a[1], b[1])])
            }

            /// `add{.rnd}{.ftz}{.sat}` per lane.
            pub fn add(a: u32, b: u32, rnd: Rounding, ftz: bool, sat: bool) -> u32 {
                map2(a, b, |x, y| $s::add(x, y, rnd, ftz, sat))
            }
            /// `sub{.rnd}{.ftz}{.sat}` per lane.
            pub fn sub(a: u32, b: u32, rnd: Rounding, ftz: bool, sat: bool) -> u32 {
                map2(a, b, |x, y| $s::sub(x, y, rnd, ftz, sat))
            }
            /// `mul{.rnd}{.ftz}{.sat}` per lane.
            pub fn mul(a: u32, b: u32, rnd: Rounding, ftz: bool, sat: bool) -> u32 {
                map2(a, b, |x, y| $s::mul(x, y, rnd, ftz, sat))
            }
            /// `fma{.rnd}{.ftz}{.sat}` per lane.
            pub fn fma(a: u32, b: u32, c: u32, rnd: Rounding, ftz: bool, sat: bool) -> u32 {
                let c = lanes(c);
                let lo = $s::fma(a as u16, b as u16, c[0], rnd, ftz, sat);
                let hi = $s::fma((a >> 16) as u16, (b >> 16) as u16, c[1], rnd, ftz, sat);
                pack([lo, hi])
            }
            /// `min{.ftz}{.NaN}` per lane.
            pub fn min(a: u32, b: u32, ftz: bool, nan: bool) -> u32 {
                map2(a, b, |x, y| $s::min(x, y, ftz, nan))
            }
            /// `max{.ftz}{.NaN}` per lane.
            pub fn max(a: u32, b: u32, ftz: bool, nan: bool) -> u32 {
                map2(a, b, |x, y| $s::max(x, y, ftz, nan))
            }
            /// `abs{.ftz}` per lane.
            pub fn abs(a: u32, ftz: bool) -> u32 {
                map1(a, |x| $s::abs(x, ftz))
            }
            /// `neg{.ftz}` per lane.
            pub fn neg(a: u32, ftz: bool) -> u32 {
                map1(a, |x| $s::neg(x, ftz))
            }
            /// `.relu` per lane.
            pub fn relu(a: u32) -> u32 {
                map1(a, $s::relu)
            }
        }
    };
}

pair_module!(
    /// `.f16x2` instructions: a u32 holding two f16, element 0 in the low half.
    f16x2, f16
);
pair_module!(
    /// `.bf16x2` instructions: a u32 holding two bf16, element 0 in the low half.
    bf16x2, bf16
);
