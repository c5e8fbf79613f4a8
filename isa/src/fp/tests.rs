//! Tests of the public fp API: hand-computed edge cases, then property tests against LLVM's APFloat
//! (`rustc_apfloat`, used only here), an independent correctly rounded implementation.

use super::cvt::{self, FloatMods, FloatType, IntType};
use super::{approx, bf16, bf16x2, f16, f16x2, f32, f64, CmpOp, IntRounding, Rounding, TestOp};
use proptest::prelude::*;
use rustc_apfloat::ieee::{
    BFloat, Double, Float8E4M3FN, Float8E5M2, Half, IeeeFloat, Quad, Semantics, Single,
};
use rustc_apfloat::{Float, FloatConvert, Round, Status, StatusAnd};

const ROUNDINGS: [Rounding; 5] = [
    Rounding::Rn,
    Rounding::Rna,
    Rounding::Rz,
    Rounding::Rm,
    Rounding::Rp,
];
const RN: Rounding = Rounding::Rn;

fn b32(x: std::primitive::f32) -> u32 {
    x.to_bits()
}
fn b64(x: std::primitive::f64) -> u64 {
    x.to_bits()
}

// ---------------------------------------------------------------------------------------------
// Hand-computed edge cases.

#[test]
fn ties_and_directed_rounding() {
    let one = b32(1.0);
    let half_ulp = b32(2f32.powi(-24));
    assert_eq!(f32::add(one, half_ulp, Rounding::Rn, false, false), one);
    assert_eq!(
        f32::add(one, half_ulp, Rounding::Rna, false, false),
        one + 1
    );
    assert_eq!(f32::add(one, half_ulp, Rounding::Rp, false, false), one + 1);
    assert_eq!(
        f32::add(one | 1, half_ulp, Rounding::Rn, false, false),
        one + 2
    );
    assert_eq!(
        f32::sub(one, half_ulp, Rounding::Rm, false, false),
        b32(1.0 - 2f32.powi(-24))
    );
    assert_eq!(
        f32::sub(one, half_ulp, Rounding::Rz, false, false),
        b32(1.0 - 2f32.powi(-24))
    );
    // 1/3 in every direction.
    let third = f32::div(one, b32(3.0), Rounding::Rn, false);
    assert_eq!(third, 0x3EAA_AAAB);
    assert_eq!(f32::div(one, b32(3.0), Rounding::Rz, false), 0x3EAA_AAAA);
    assert_eq!(
        f32::div(b32(-1.0), b32(3.0), Rounding::Rm, false),
        0xBEAA_AAAB
    );
    assert_eq!(
        f64::div(b64(1.0), b64(3.0), Rounding::Rp, false,),
        0x3FD5_5555_5555_5556
    );
    assert_eq!(
        f64::sqrt(b64(2.0), Rounding::Rz, false),
        0x3FF6_A09E_667F_3BCC
    );
    assert_eq!(
        f64::sqrt(b64(2.0), Rounding::Rp, false),
        0x3FF6_A09E_667F_3BCD
    );
}

#[test]
fn signed_zeros() {
    let (p, n) = (0u32, 0x8000_0000u32);
    assert_eq!(f32::add(n, n, RN, false, false), n);
    assert_eq!(f32::add(n, p, RN, false, false), p);
    assert_eq!(f32::add(n, p, Rounding::Rm, false, false), n);
    assert_eq!(f32::sub(b32(1.5), b32(1.5), RN, false, false), p);
    assert_eq!(f32::sub(b32(1.5), b32(1.5), Rounding::Rm, false, false), n);
    assert_eq!(f64::fma(b64(-1.0), 0, 0, Rounding::Rz, false, false), 0);
    assert_eq!(
        f64::fma(b64(-1.0), 0, 0, Rounding::Rm, false, false),
        1 << 63
    );
    assert_eq!(f32::sqrt(n, RN, false), n);
    assert_eq!(f32::mul(n, b32(3.0), Rounding::Rp, false, false), n);
    assert_eq!(f32::rcp(n, RN, false), 0xFF80_0000);
    assert_eq!(f32::min(p, n, false, false), n);
    assert_eq!(f32::min(n, p, false, false), n);
    assert_eq!(f32::max(n, p, false, false), p);
    assert_eq!(f64::max(1 << 63, 0, false, false), 0);
    assert!(f32::setp(CmpOp::Eq, n, p, false));
    assert!(!f32::setp(CmpOp::Lt, n, p, false));
}

#[test]
fn overflow_per_rounding() {
    let max = 0x7F7F_FFFFu32;
    let run = |r, neg: bool| {
        let m = if neg { max | 0x8000_0000 } else { max };
        f32::add(m, m, r, false, false)
    };
    assert_eq!(run(Rounding::Rn, false), 0x7F80_0000);
    assert_eq!(run(Rounding::Rz, false), max);
    assert_eq!(run(Rounding::Rm, false), max);
    assert_eq!(run(Rounding::Rp, false), 0x7F80_0000);
    assert_eq!(run(Rounding::Rm, true), 0xFF80_0000);
    assert_eq!(run(Rounding::Rp, true), 0xFF7F_FFFF);
    assert_eq!(
        f64::mul(0x7FEF_FFFF_FFFF_FFFF, b64(2.0), Rounding::Rz, false, false),
        0x7FEF_FFFF_FFFF_FFFF
    );
    assert_eq!(f16::mul(0x7BFF, 0x4000, RN, false, false), 0x7C00);
}

#[test]
fn subnormals_and_ftz() {
    let min_sub = 1u32;
    let min_norm = 0x0080_0000u32;
    let half = b32(0.5);
    // 2^-150 is a tie between 0 and 2^-149: even is 0.
    assert_eq!(f32::mul(min_sub, half, RN, false, false), 0);
    assert_eq!(f32::mul(min_sub, half, Rounding::Rp, false, false), min_sub);
    assert_eq!(f32::mul(min_norm, half, RN, false, false), 0x0040_0000);
    assert_eq!(f32::mul(min_norm, half, RN, true, false), 0);
    assert_eq!(
        f32::mul(min_norm | 0x8000_0000, half, RN, true, false),
        0x8000_0000
    );
    // ftz flushes operands: a subnormal is zero, so subnormal × ∞ is NaN and subnormal + 1 = 1.
    assert_eq!(f32::mul(min_sub, 0x7F80_0000, RN, true, false), 0x7FFF_FFFF);
    assert_eq!(
        f32::add(min_sub, b32(1.0), Rounding::Rp, true, false),
        b32(1.0)
    );
    assert_eq!(
        f32::add(min_sub, b32(1.0), Rounding::Rp, false, false),
        b32(1.0) + 1
    );
    // Subnormal results of the soft path (directed rounding) and of the native path agree.
    assert_eq!(
        f32::fma(min_norm, half, 0, Rounding::Rz, false, false),
        0x0040_0000
    );
    assert_eq!(f32::fma(min_norm, half, 0, Rounding::Rz, true, false), 0);
    assert_eq!(f32::min(min_sub, 0x8000_0000, true, false), 0x8000_0000);
    assert!(f32::setp(CmpOp::Eq, min_sub, 0, true));
    assert!(!f32::setp(CmpOp::Eq, min_sub, 0, false));
    assert_eq!(f32::abs(0x8000_0001, true), 0);
    assert_eq!(f32::neg(0x8000_0001, false), 1);
    // f16 subnormals: 2^-24 × 0.5 ties to 0; with ftz every subnormal is zero.
    assert_eq!(f16::mul(0x0001, 0x3800, RN, false, false), 0);
    assert_eq!(f16::add(0x0001, 0x0001, RN, false, false), 0x0002);
    assert_eq!(f16::add(0x0001, 0x0001, RN, true, false), 0);
}

/// `.ftz` flushes a result that is tiny before rounding, even where rounding would reach the smallest
/// normal (values from the H200 oracle; the fma and f16x2 lines apply the same rule).
#[test]
fn ftz_judges_tininess_before_rounding() {
    let (min_norm, below_one) = (0x0080_0000u32, 0x3F7F_FFFFu32);
    let neg = 0x8000_0000u32;
    // 2^-126 × (1 − 2^-24) rounds (to nearest, or up) to 2^-126 without ftz.
    assert_eq!(f32::mul(min_norm, below_one, RN, false, false), min_norm);
    assert_eq!(f32::mul(min_norm, below_one, RN, true, false), 0);
    assert_eq!(f32::mul(below_one, min_norm, RN, true, false), 0);
    assert_eq!(f32::mul(min_norm | neg, below_one, RN, true, false), neg);
    assert_eq!(f32::mul(min_norm, below_one, Rounding::Rp, true, false), 0);
    assert_eq!(
        f32::mul(min_norm | neg, below_one, Rounding::Rm, true, false),
        neg
    );
    assert_eq!(f32::div(min_norm, 0x3F80_0001, Rounding::Rp, true), 0);
    assert_eq!(
        f32::div(min_norm | neg, 0x3F80_0001, Rounding::Rm, true),
        neg
    );
    assert_eq!(
        f32::fma(min_norm, below_one, 0, Rounding::Rp, true, false),
        0
    );
    assert_eq!(f16::mul(0x0400, 0x3BFF, RN, false, false), 0x0400);
    assert_eq!(f16::mul(0x0400, 0x3BFF, RN, true, false), 0);
    assert_eq!(
        f16x2::mul(0x8400_0400, 0x3BFF_3BFF, RN, true, false),
        0x8000_0000
    );
    // Exactly the smallest normal is kept.
    assert_eq!(f32::mul(min_norm, b32(1.0), RN, true, false), min_norm);
}

#[test]
fn saturation() {
    assert_eq!(f32::add(b32(0.5), b32(0.75), RN, false, true), b32(1.0));
    assert_eq!(f32::add(b32(-1.0), b32(0.5), RN, false, true), 0);
    assert_eq!(f32::mul(0x7F80_0000, 0, RN, false, true), 0);
    assert_eq!(f32::mul(0x8000_0000, b32(1.0), RN, false, true), 0);
    assert_eq!(
        f32::fma(b32(0.5), b32(0.5), b32(0.125), Rounding::Rz, false, true),
        b32(0.375)
    );
    assert_eq!(f16::add(0x3C00, 0x3C00, RN, false, true), 0x3C00);
}

#[test]
fn nan_results() {
    let qnan = 0x7FC0_0000u32;
    let snan = 0x7F80_0001u32;
    assert_eq!(f32::add(snan, b32(1.0), RN, false, false), 0x7FFF_FFFF);
    assert_eq!(
        f32::add(0x7F80_0000, 0xFF80_0000, RN, false, false),
        0x7FFF_FFFF
    );
    assert_eq!(f32::div(0, 0, Rounding::Rz, false), 0x7FFF_FFFF);
    assert_eq!(f32::sqrt(b32(-1.0), RN, false), 0x7FFF_FFFF);
    assert_eq!(f32::min(qnan, b32(1.0), false, false), b32(1.0));
    assert_eq!(f32::max(b32(1.0), snan, false, false), b32(1.0));
    assert_eq!(f32::min(qnan, b32(1.0), false, true), 0x7FFF_FFFF);
    assert_eq!(f32::min(qnan, snan, false, false), 0x7FFF_FFFF);
    assert_eq!(f32::abs(0xFFC0_0001, false), 0x7FFF_FFFF);
    assert_eq!(f32::copysign(0x8000_0000, snan), snan | 0x8000_0000);
    assert_eq!(
        f32::mul(b32(1.0), qnan, Rounding::Rz, true, false),
        0x7FFF_FFFF
    );
    // f64 keeps payloads, quieted; with several NaN operands the H200 takes b's for add/sub/mul,
    // then c's then a's for fma, and a's for div (values from the H200 oracle, but for
    // fma(s, q, nq), which applies the rule).
    let (q, s, nq) = (
        0x7FF8_0000_0000_0000u64,
        0x7FF0_0000_0000_0001u64,
        0xFFF8_0000_0000_0003u64,
    );
    assert_eq!(
        f64::add(b64(1.0), s, RN, false, false),
        0x7FF8_0000_0000_0001
    );
    assert_eq!(f64::add(q, s, RN, false, false), 0x7FF8_0000_0000_0001);
    assert_eq!(f64::add(s, nq, Rounding::Rz, false, false), nq);
    assert_eq!(f64::sub(nq, q, RN, false, false), q);
    assert_eq!(f64::mul(s, q, Rounding::Rp, false, false), q);
    assert_eq!(f64::div(s, q, RN, false), 0x7FF8_0000_0000_0001);
    assert_eq!(f64::div(nq, s, Rounding::Rm, false), nq);
    assert_eq!(
        f64::fma(q, b64(1.0), s, RN, false, false),
        0x7FF8_0000_0000_0001
    );
    assert_eq!(f64::fma(s, q, nq, RN, false, false), q);
    assert_eq!(f64::fma(0, 0x7FF0_0000_0000_0000, q, RN, false, false), q);
    assert_eq!(f64::min(nq, s, false, false), 0x7FF8_0000_0000_0001);
    assert_eq!(f64::max(q, nq, false, false), nq);
    // A NaN made from numbers is the negative quiet NaN.
    for r in [RN, Rounding::Rz] {
        assert_eq!(
            f64::mul(0, 0x7FF0_0000_0000_0000, r, false, false),
            0xFFF8_0000_0000_0000
        );
        assert_eq!(
            f64::add(
                0x7FF0_0000_0000_0000,
                0xFFF0_0000_0000_0000,
                r,
                false,
                false
            ),
            0xFFF8_0000_0000_0000
        );
        assert_eq!(f64::sqrt(b64(-1.0), r, false), 0xFFF8_0000_0000_0000);
        assert_eq!(f64::div(0, 1 << 63, r, false), 0xFFF8_0000_0000_0000);
    }
    // abs/neg quiet an f64 NaN and keep its sign.
    assert_eq!(f64::abs(nq, false), nq);
    assert_eq!(f64::neg(s, false), 0x7FF8_0000_0000_0001);
    assert_eq!(f64::neg(q, false), q);
    assert_eq!(f16::add(0x7C01, 0x3C00, RN, false, false), 0x7FFF);
    assert_eq!(bf16::mul(0x7F80, 0, RN, false, false), 0x7FFF);
}

#[test]
fn comparisons_and_tests() {
    let nan = 0x7FC0_0000u32;
    let one = b32(1.0);
    let two = b32(2.0);
    let table = [
        (CmpOp::Eq, false, false, true),
        (CmpOp::Ne, true, false, false),
        (CmpOp::Lt, true, false, false),
        (CmpOp::Le, true, false, true),
        (CmpOp::Gt, false, false, false),
        (CmpOp::Ge, false, false, true),
        (CmpOp::Equ, false, true, true),
        (CmpOp::Neu, true, true, false),
        (CmpOp::Ltu, true, true, false),
        (CmpOp::Leu, true, true, true),
        (CmpOp::Gtu, false, true, false),
        (CmpOp::Geu, false, true, true),
        (CmpOp::Num, true, false, true),
        (CmpOp::Nan, false, true, false),
    ];
    for (op, one_two, with_nan, one_one) in table {
        assert_eq!(f32::setp(op, one, two, false), one_two, "{op:?} 1 2");
        assert_eq!(f32::setp(op, one, nan, false), with_nan, "{op:?} 1 NaN");
        assert_eq!(
            f64::setp(op, b64(1.0), b64(1.0), false),
            one_one,
            "{op:?} 1 1"
        );
    }
    assert!(f32::testp(TestOp::Normal, 0x8000_0000));
    assert!(f32::testp(TestOp::Subnormal, 0x8000_0001));
    assert!(!f32::testp(TestOp::Normal, 0x8000_0001));
    assert!(f32::testp(TestOp::Infinite, 0xFF80_0000));
    assert!(!f32::testp(TestOp::Finite, 0xFF80_0000));
    assert!(f64::testp(TestOp::NotANumber, 0x7FF0_0000_0000_0001));
    assert!(!f64::testp(TestOp::Number, 0x7FF0_0000_0000_0001));
    assert!(f16::setp(CmpOp::Gt, 0x3C00, 0xBC00, false));
}

#[test]
fn packed_lanes() {
    // Element 0 in the low half: (1.0, 2.0) + (0.5, -2.0) = (1.5, -0.0 → +0.0 under rn).
    let a = 0x4000_3C00;
    let b = 0xC000_3800;
    assert_eq!(f16x2::add(a, b, RN, false, false), 0x0000_3E00);
    assert_eq!(f16x2::max(a, b, false, false), 0x4000_3C00);
    assert_eq!(f16x2::neg(a, false), 0xC000_BC00);
    assert_eq!(
        bf16x2::fma(0x3F80_4000, 0x4000_4000, 0x3F80_3F80, RN, false, false),
        0x4040_40A0
    );
    assert_eq!(bf16x2::relu(0x8000_BF80), 0);
}

#[test]
fn fma_is_fused() {
    // (1 + 2^-23)(1 − 2^-23) − 1 = −2^-46 exactly; a separate multiply would give 0.
    let a = b32(1.0 + 2f32.powi(-23));
    let b = b32(1.0 - 2f32.powi(-23));
    for r in ROUNDINGS {
        assert_eq!(
            f32::fma(a, b, b32(-1.0), r, false, false),
            b32(-(2f32.powi(-46)))
        );
    }
    assert_eq!(f32::mul(a, b, RN, false, false), b32(1.0));
}

// ---------------------------------------------------------------------------------------------
// Property tests against rustc_apfloat.

/// tf32 for the oracle: 8 exponent bits, 10 fraction bits.
struct Tf32S;
impl Semantics for Tf32S {
    const BITS: usize = 19;
    const EXP_BITS: usize = 8;
}
type Tf32 = IeeeFloat<Tf32S>;

fn round_of(r: Rounding) -> Round {
    match r {
        Rounding::Rn => Round::NearestTiesToEven,
        Rounding::Rna => Round::NearestTiesToAway,
        Rounding::Rz => Round::TowardZero,
        Rounding::Rm => Round::TowardNegative,
        Rounding::Rp => Round::TowardPositive,
    }
}

/// Bit patterns of a `w`-bit float with `e` exponent bits, weighted towards the interesting:
/// any bits; extreme exponents; short significands (exact ties); ±0, ±∞, NaNs.
fn fbits(e: u32, m: u32) -> BoxedStrategy<u64> {
    let w = 1 + e + m;
    let mask = if w == 64 { u64::MAX } else { (1 << w) - 1 };
    let emax = (1u64 << e) - 1;
    let field = move |sign: bool, ex: u64, man: u64| {
        (sign as u64) << (e + m) | ex << m | (man & ((1 << m) - 1))
    };
    let exps = prop_oneof![
        Just(0u64),
        Just(1),
        Just(2),
        Just(emax / 2),
        Just(emax / 2 + 1),
        Just(emax - 1),
        Just(emax),
        0..=emax
    ];
    prop_oneof![
        3 => any::<u64>().prop_map(move |x| x & mask),
        2 => (any::<bool>(), exps, any::<u64>()).prop_map(move |(s, ex, man)| field(s, ex, man)),
        2 => (any::<bool>(), 0..=emax, any::<u64>(), 1..=m.min(12)).prop_map(move |(s, ex, man, k)| {
            field(s, ex, man & !((1u64 << (m - k)) - 1))
        }),
        2 => (any::<bool>(), 0..=emax, any::<u64>(), 0..=m.min(12)).prop_map(move |(s, ex, man, k)| {
            field(s, ex, man | ((1u64 << (m - k)) - 1))
        }),
    ]
    .boxed()
}

fn any32() -> BoxedStrategy<u64> {
    fbits(8, 23)
}
fn any64() -> BoxedStrategy<u64> {
    fbits(11, 52)
}
fn any16() -> BoxedStrategy<u64> {
    fbits(5, 10)
}
fn anyb16() -> BoxedStrategy<u64> {
    fbits(8, 7)
}

/// What a type does with NaN results: canonical pattern, or f64's payload propagation (the first
/// NaN of the operands as listed, in the operation's order of precedence).
#[derive(Clone, Copy)]
enum Nan {
    Canonical(u64),
    F64,
}

impl Nan {
    fn expect(self, ops: &[u64]) -> u64 {
        match self {
            Nan::Canonical(n) => n,
            Nan::F64 => ops
                .iter()
                .find(|&&x| x & 0x7FF0_0000_0000_0000 == 0x7FF0_0000_0000_0000 && x << 12 != 0)
                .map_or(0xFFF8_0000_0000_0000, |&x| x | 1 << 51),
        }
    }
}

/// `x` with subnormals flushed to signed zero.
fn flush<F: Float>(x: F) -> F {
    if x.is_denormal() {
        F::ZERO.copy_sign(x)
    } else {
        x
    }
}

/// The expected bits of an arithmetic result computed by the oracle (operands flushed by the caller
/// when `ftz`): `v` rounded as asked and `rz` rounded toward zero, which is subnormal or zero exactly
/// when the exact result is tiny (below the smallest normal), what `.ftz` flushes before rounding.
fn expect<F: Float>(v: F, rz: F, ftz: bool, nan: Nan, ops: &[u64]) -> u64 {
    if v.is_nan() {
        nan.expect(ops)
    } else if ftz && (rz.is_denormal() || v.is_denormal()) {
        F::ZERO.copy_sign(v).to_bits() as u64
    } else {
        v.to_bits() as u64
    }
}

fn ap<F: Float>(bits: u64, ftz: bool) -> F {
    let x = F::from_bits(bits as u128);
    if ftz {
        flush(x)
    } else {
        x
    }
}

type Bin = fn(u64, u64, Rounding, bool) -> u64;
type Tern = fn(u64, u64, u64, Rounding, bool) -> u64;

/// Checks `ours(a, b)` against `theirs`; `nan_order` are the operands in NaN precedence.
fn check_binary<F: Float>(
    ours: Bin,
    theirs: fn(F, F, Round) -> StatusAnd<F>,
    nan: Nan,
    (a, b): (u64, u64),
    nan_order: [u64; 2],
    ftzs: &[bool],
) {
    for &ftz in ftzs {
        for r in ROUNDINGS {
            let run = |r| theirs(ap(a, ftz), ap(b, ftz), r).value;
            let want = expect(
                run(round_of(r)),
                run(Round::TowardZero),
                ftz,
                nan,
                &nan_order,
            );
            let got = ours(a, b, r, ftz);
            assert_eq!(
                got, want,
                "{a:#x} {b:#x} {r:?} ftz={ftz}: got {got:#x} want {want:#x}"
            );
        }
    }
}

fn check_fma<F: Float>(ours: Tern, nan: Nan, a: u64, b: u64, c: u64, ftzs: &[bool]) {
    for &ftz in ftzs {
        for r in ROUNDINGS {
            let x: F = ap(a, ftz);
            let run = |r| x.mul_add_r(ap(b, ftz), ap(c, ftz), r).value;
            let want = expect(
                run(round_of(r)),
                run(Round::TowardZero),
                ftz,
                nan,
                &[b, c, a],
            );
            let got = ours(a, b, c, r, ftz);
            assert_eq!(
                got, want,
                "fma {a:#x} {b:#x} {c:#x} {r:?} ftz={ftz}: got {got:#x} want {want:#x}"
            );
        }
    }
}

macro_rules! binary_props {
    ($name:ident, $m:ident, $F:ty, $bits:ty, $strat:expr, $nan:expr, $ftzs:expr) => {
        proptest! {
            #![proptest_config(ProptestConfig::with_cases(3000))]
            #[test]
            fn $name(a in $strat, b in $strat, c in $strat) {
                check_binary::<$F>(|a, b, r, z| $m::add(a as $bits, b as $bits, r, z, false) as u64,
                    |x, y, r| x.add_r(y, r), $nan, (a, b), [b, a], $ftzs);
                check_binary::<$F>(|a, b, r, z| $m::sub(a as $bits, b as $bits, r, z, false) as u64,
                    |x, y, r| x.sub_r(y, r), $nan, (a, b), [b, a], $ftzs);
                check_binary::<$F>(|a, b, r, z| $m::mul(a as $bits, b as $bits, r, z, false) as u64,
                    |x, y, r| x.mul_r(y, r), $nan, (a, b), [b, a], $ftzs);
                check_binary::<$F>(|a, b, r, z| $m::div(a as $bits, b as $bits, r, z) as u64,
                    |x, y, r| x.div_r(y, r), $nan, (a, b), [a, b], $ftzs);
                check_fma::<$F>(|a, b, c, r, z| $m::fma(a as $bits, b as $bits, c as $bits, r, z, false) as u64,
                    $nan, a, b, c, $ftzs);
                // rcp is div with a numerator of one.
                let one = <$F>::from_u128(1).value.to_bits() as u64;
                check_binary::<$F>(|_, b, r, z| $m::rcp(b as $bits, r, z) as u64,
                    |x, y, r| x.div_r(y, r), $nan, (one, b), [b, one], $ftzs);
            }
        }
    };
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]
    /// f32 products of normal operands landing near the smallest normal or near overflow, where
    /// `mul` toward zero changes from the host path to the exact one.
    #[test]
    fn f32_mul_near_the_range_ends_matches_apfloat(
        (ma, mb) in (0u32..1 << 23, 0u32..1 << 23),
        (ea, d) in (1u32..255, -3i32..3),
        high: bool,
        sa: bool,
        sb: bool,
    ) {
        let target = if high { 254 } else { 1 } + d;
        let eb = (target - ea as i32 + 127).clamp(1, 254) as u32;
        let a = (sa as u32) << 31 | ea << 23 | ma;
        let b = (sb as u32) << 31 | eb << 23 | mb;
        check_binary::<Single>(|a, b, r, z| f32::mul(a as u32, b as u32, r, z, false) as u64,
            |x, y, r| x.mul_r(y, r), Nan::Canonical(0x7FFF_FFFF), (a as u64, b as u64), [b as u64, a as u64], &[false, true]);
    }
}

binary_props!(
    f32_matches_apfloat,
    f32,
    Single,
    u32,
    any32(),
    Nan::Canonical(0x7FFF_FFFF),
    &[false, true]
);
binary_props!(
    f64_matches_apfloat,
    f64,
    Double,
    u64,
    any64(),
    Nan::F64,
    &[false]
);
binary_props!(
    f16_matches_apfloat,
    f16,
    Half,
    u16,
    any16(),
    Nan::Canonical(0x7FFF),
    &[false, true]
);
binary_props!(
    bf16_matches_apfloat,
    bf16,
    BFloat,
    u16,
    anyb16(),
    Nan::Canonical(0x7FFF),
    &[false]
);

/// Checks `r` = sqrt(`x`) in direction `rnd` by exact squaring in the wider format `W`.
fn check_sqrt<F: Float + FloatConvert<W>, W: Float>(x: u64, r: u64, rnd: Rounding, nan: Nan) {
    let xf: F = F::from_bits(x as u128);
    if xf.is_nan() || (xf.is_negative() && !xf.is_zero()) {
        assert_eq!(r, nan.expect(&[x]), "sqrt({x:#x})");
        return;
    }
    if xf.is_zero() || xf.is_infinite() {
        assert_eq!(r, x, "sqrt({x:#x})");
        return;
    }
    let rf: F = F::from_bits(r as u128);
    let wide = |v: F| -> W { v.convert(&mut false).value };
    let sq = |v: W| v.mul_r(v, Round::NearestTiesToEven).value; // exact: W has > 2p + 1 bits
    let xw = wide(xf);
    let up = wide(rf.next_up().value);
    let down = wide(rf.next_down().value);
    let rw = wide(rf);
    let half = W::from_u128(2).value;
    let mid = |a: W, b: W| (a + b).value.div_r(half, Round::NearestTiesToEven).value;
    let le = |a: W, b: W| a.partial_cmp(&b) != Some(std::cmp::Ordering::Greater);
    let lt = |a: W, b: W| a.partial_cmp(&b) == Some(std::cmp::Ordering::Less);
    let ok = match rnd {
        Rounding::Rz | Rounding::Rm => le(sq(rw), xw) && lt(xw, sq(up)),
        Rounding::Rp => le(xw, sq(rw)) && lt(sq(down), xw),
        Rounding::Rn | Rounding::Rna => le(sq(mid(down, rw)), xw) && le(xw, sq(mid(rw, up))),
    };
    assert!(ok, "sqrt({x:#x}) {rnd:?} = {r:#x}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]
    #[test]
    fn sqrt_is_correctly_rounded(a in any32(), d in any64(), h in any16()) {
        for r in ROUNDINGS {
            check_sqrt::<Single, Double>(a, f32::sqrt(a as u32, r, false) as u64, r, Nan::Canonical(0x7FFF_FFFF));
            check_sqrt::<Double, Quad>(d, f64::sqrt(d, r, false), r, Nan::F64);
            check_sqrt::<Half, Single>(h, f16::sqrt(h as u16, r, false) as u64, r, Nan::Canonical(0x7FFF));
        }
    }
}

// --- cvt -------------------------------------------------------------------------------------

/// Dispatches a closure over the apfloat type of a [`FloatType`].
macro_rules! with_float {
    ($t:expr, $F:ident => $body:expr) => {
        match $t {
            FloatType::F16 => {
                type $F = Half;
                $body
            }
            FloatType::Bf16 => {
                type $F = BFloat;
                $body
            }
            FloatType::F32 => {
                type $F = Single;
                $body
            }
            FloatType::F64 => {
                type $F = Double;
                $body
            }
            FloatType::Tf32 => {
                type $F = Tf32;
                $body
            }
            FloatType::E4m3 => {
                type $F = Float8E4M3FN;
                $body
            }
            FloatType::E5m2 => {
                type $F = Float8E5M2;
                $body
            }
        }
    };
}

const FLOATS: [FloatType; 7] = [
    FloatType::F16,
    FloatType::Bf16,
    FloatType::F32,
    FloatType::F64,
    FloatType::Tf32,
    FloatType::E4m3,
    FloatType::E5m2,
];
const INTS: [IntType; 8] = [
    IntType::U8,
    IntType::U16,
    IntType::U32,
    IntType::U64,
    IntType::S8,
    IntType::S16,
    IntType::S32,
    IntType::S64,
];

/// The register bits of an oracle value of destination type `t`.
fn store(t: FloatType, bits: u128) -> u64 {
    match t {
        FloatType::Tf32 => (bits as u64) << 13,
        _ => bits as u64,
    }
}

/// The canonical NaN our cvt writes for a destination type (f64 destinations are checked apart).
fn cvt_nan(t: FloatType) -> u64 {
    match t {
        FloatType::F16 | FloatType::Bf16 => 0x7FFF,
        FloatType::F32 => 0x7FFF_FFFF,
        FloatType::Tf32 => 0x7FFF_E000,
        FloatType::F64 => 0xFFF8_0000_0000_0000,
        FloatType::E4m3 | FloatType::E5m2 => 0x7F,
    }
}

/// Checks the `cvt` of a NaN `a`: bf16/f32 → f32 move the bits; with f64 on either side the result is a quiet NaN of `a`'s sign, unless the destination has
/// no infinities (e4m3); other conversions give the canonical NaN. `cvt.rna.tf32.f32` rounds a
/// NaN's bits like a number's and is checked by hand (`cvt::tests::nan_conversions`).
fn check_cvt_nan(src: FloatType, dst: FloatType, a: u64, r: Rounding, got: u64, satfinite: bool) {
    use FloatType::{Bf16 as B16, E4m3 as E4, Tf32 as T, F32 as S, F64 as D};
    let neg = |t: FloatType, x: u64| with_float!(t, F => F::from_bits(x as u128).is_negative());
    let quiet_nan = |t: FloatType, x: u64| {
        with_float!(t, F => {
            let v = F::from_bits(x as u128);
            v.is_nan() && !v.is_signaling()
        })
    };
    match (src, dst) {
        (S, T) if r == Rounding::Rna => {}
        (S | B16, S) if !satfinite => {
            let shift = if src == B16 { 16 } else { 0 };
            assert_eq!(got, a << shift, "{src:?}->{dst:?} {a:#x}");
        }
        (D, E4) => assert_eq!(got, cvt_nan(dst), "{src:?}->{dst:?} {a:#x} {r:?}"),
        (D, _) | (_, D) => {
            // tf32 lives in an f32 register.
            let reg = |t| if t == T { S } else { t };
            assert!(
                quiet_nan(reg(dst), got),
                "{src:?}->{dst:?} {a:#x}: {got:#x}"
            );
            assert_eq!(
                neg(reg(src), a),
                neg(reg(dst), got),
                "{src:?}->{dst:?} {a:#x}: {got:#x}"
            );
        }
        _ => assert_eq!(got, cvt_nan(dst), "{src:?}->{dst:?} {a:#x} {r:?}"),
    }
}

/// Expected `cvt` of the exact value `v` (a Quad holding any source value) into `dst`.
fn expect_f2f(v: Quad, dst: FloatType, rnd: Rounding, satfinite: bool) -> Option<u64> {
    if v.is_nan() {
        return None; // NaN rules are checked separately
    }
    Some(with_float!(dst, F => {
        let r: StatusAnd<F> = v.convert_r(round_of(rnd), &mut false);
        let overflowed = r.status.contains(Status::OVERFLOW) || v.is_infinite();
        if satfinite && (overflowed || r.value.is_infinite()) {
            let l = F::largest();
            store(dst, if v.is_negative() { -l } else { l }.to_bits())
        } else if r.value.is_nan() {
            cvt_nan(dst)
        } else {
            store(dst, r.value.to_bits())
        }
    }))
}

fn quad_of(t: FloatType, bits: u64) -> Quad {
    with_float!(if t == FloatType::Tf32 { FloatType::F32 } else { t }, F => {
        let v: F = F::from_bits(bits as u128);
        v.convert(&mut false).value
    })
}

fn fbits_of(t: FloatType) -> BoxedStrategy<u64> {
    match t {
        FloatType::F16 => any16(),
        FloatType::Bf16 => anyb16(),
        FloatType::F32 | FloatType::Tf32 => any32(),
        FloatType::F64 => any64(),
        FloatType::E4m3 => fbits(4, 3),
        FloatType::E5m2 => fbits(5, 2),
    }
}

fn float_and_bits() -> impl Strategy<Value = (FloatType, u64)> {
    proptest::sample::select(FLOATS.to_vec()).prop_flat_map(|t| (Just(t), fbits_of(t)))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    #[test]
    fn cvt_float_to_float((src, a) in float_and_bits(), dst in proptest::sample::select(FLOATS.to_vec()),
                          satfinite in any::<bool>()) {
        let v = quad_of(src, a);
        for r in ROUNDINGS {
            // PTX converts to fp8 only with `.rn` (`cvt.rn.satfinite.e4m3x2.f32`); overflow under
            // directed rounding into a format without infinities has no PTX meaning to test.
            if matches!(dst, FloatType::E4m3 | FloatType::E5m2) && r != Rounding::Rn {
                continue;
            }
            let m = FloatMods { satfinite, ..FloatMods::default() };
            let got = cvt::f2f(src, dst, a, r, m);
            match expect_f2f(v, dst, r, satfinite) {
                Some(want) => prop_assert_eq!(got, want, "{:?}->{:?} {:#x} {:?}", src, dst, a, r),
                None => check_cvt_nan(src, dst, a, r, got, satfinite),
            }
        }
    }

    #[test]
    fn cvt_float_to_int((src, a) in float_and_bits(), dst in proptest::sample::select(INTS.to_vec())) {
        let v = quad_of(src, a);
        for (ir, r) in [(IntRounding::Rni, Rounding::Rn), (IntRounding::Rzi, Rounding::Rz),
                        (IntRounding::Rmi, Rounding::Rm), (IntRounding::Rpi, Rounding::Rp)] {
            let got = cvt::f2i(src, dst, a, ir, false);
            let bits = dst.bits();
            let (lo, hi) = if dst.signed() { (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1) } else { (0, (1i128 << bits) - 1) };
            let want: i128 = if v.is_nan() {
                if src == FloatType::F64 || bits == 64 { 1 << (bits - 1) } else { 0 }
            } else if v.is_infinite() || v.ilogb() > 120 {
                if v.is_negative() { lo } else { hi }
            } else {
                let i = v.round_to_integral(round_of(r)).value;
                i.to_i128(128).value.clamp(lo, hi)
            };
            let want = if dst.signed() { ((want as i64) << (64 - bits) >> (64 - bits)) as u64 }
                       else { want as u64 };
            prop_assert_eq!(got, want, "{:?}->{:?} {:#x} {:?}", src, dst, a, ir);
        }
    }

    #[test]
    fn cvt_int_to_float(a in any::<u64>(), small in -300i64..300, src in proptest::sample::select(INTS.to_vec()),
                        dst in proptest::sample::select(FLOATS.to_vec())) {
        for a in [a, small as u64] {
            let bits = src.bits();
            let v: i128 = if src.signed() { ((a << (64 - bits)) as i64 >> (64 - bits)) as i128 }
                          else { ((a << (64 - bits)) >> (64 - bits)) as i128 };
            for r in ROUNDINGS {
                let sat = dst == FloatType::E4m3;
                let got = cvt::i2f(src, dst, a, r, FloatMods { satfinite: sat, ..FloatMods::default() });
                let q = Quad::from_i128(v).value;
                prop_assert_eq!(Some(got), expect_f2f(q, dst, r, sat), "{:?}->{:?} {:#x} {:?}", src, dst, a, r);
            }
        }
    }

    #[test]
    fn cvt_integral((t, a) in proptest::sample::select(FLOATS[..4].to_vec()).prop_flat_map(|t| (Just(t), fbits_of(t)))) {
        let v = quad_of(t, a);
        for (ir, r) in [(IntRounding::Rni, Rounding::Rn), (IntRounding::Rzi, Rounding::Rz),
                        (IntRounding::Rmi, Rounding::Rm), (IntRounding::Rpi, Rounding::Rp)] {
            let got = cvt::f2f_integral(t, a, ir, false, false);
            if v.is_nan() {
                let f = with_float!(t, F => F::from_bits(got as u128).is_nan());
                prop_assert!(f);
            } else {
                let want = expect_f2f(v.round_to_integral(round_of(r)).value, t, Rounding::Rn, false);
                prop_assert_eq!(Some(got), want, "{:?} {:#x} {:?}", t, a, ir);
            }
        }
    }
}

// --- totality: every public function on arbitrary bits ----------------------------------------

const CMPS: [CmpOp; 14] = [
    CmpOp::Eq,
    CmpOp::Ne,
    CmpOp::Lt,
    CmpOp::Le,
    CmpOp::Gt,
    CmpOp::Ge,
    CmpOp::Equ,
    CmpOp::Neu,
    CmpOp::Ltu,
    CmpOp::Leu,
    CmpOp::Gtu,
    CmpOp::Geu,
    CmpOp::Num,
    CmpOp::Nan,
];
const TESTS: [TestOp; 6] = [
    TestOp::Finite,
    TestOp::Infinite,
    TestOp::Number,
    TestOp::NotANumber,
    TestOp::Normal,
    TestOp::Subnormal,
];
const IROUNDINGS: [IntRounding; 4] = [
    IntRounding::Rni,
    IntRounding::Rzi,
    IntRounding::Rmi,
    IntRounding::Rpi,
];

/// Calls every operation of a scalar module with all modifier combinations.
macro_rules! exercise_scalar {
    ($m:ident, $b:ty, $a:expr, $bb:expr, $c:expr) => {{
        let (a, b, c) = ($a as $b, $bb as $b, $c as $b);
        for r in ROUNDINGS {
            for ftz in [false, true] {
                for sat in [false, true] {
                    $m::add(a, b, r, ftz, sat);
                    $m::sub(a, b, r, ftz, sat);
                    $m::mul(a, b, r, ftz, sat);
                    $m::fma(a, b, c, r, ftz, sat);
                }
                $m::div(a, b, r, ftz);
                $m::rcp(a, r, ftz);
                $m::sqrt(a, r, ftz);
            }
        }
        for ftz in [false, true] {
            for nan in [false, true] {
                $m::min(a, b, ftz, nan);
                $m::max(a, b, ftz, nan);
            }
            $m::abs(a, ftz);
            $m::neg(a, ftz);
            for op in CMPS {
                $m::setp(op, a, b, ftz);
            }
        }
        $m::copysign(a, b);
        $m::relu(a);
        for op in TESTS {
            $m::testp(op, a);
        }
    }};
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]
    #[test]
    fn every_function_is_total(a in any::<u64>(), b in any::<u64>(), c in any::<u64>()) {
        exercise_scalar!(f32, u32, a, b, c);
        exercise_scalar!(f64, u64, a, b, c);
        exercise_scalar!(f16, u16, a, b, c);
        exercise_scalar!(bf16, u16, a, b, c);
        for ftz in [false, true] {
            f16x2::add(a as u32, b as u32, RN, ftz, true);
            f16x2::fma(a as u32, b as u32, c as u32, RN, ftz, true);
            bf16x2::min(a as u32, b as u32, ftz, true);
            approx::rcp_f32(a as u32, ftz);
            approx::div_f32(a as u32, b as u32, ftz);
            approx::div_full_f32(a as u32, b as u32, ftz);
            approx::sqrt_f32(a as u32, ftz);
            approx::rsqrt_f32(a as u32, ftz);
            approx::ex2_f32(a as u32, ftz);
            approx::lg2_f32(a as u32, ftz);
            approx::sin_f32(a as u32, ftz);
            approx::cos_f32(a as u32, ftz);
        }
        approx::tanh_f32(a as u32);
        approx::rcp_ftz_f64(a);
        approx::rsqrt_ftz_f64(a);
        approx::rsqrt_f64(a);
        approx::ex2_f16x2(a as u32);
        approx::ex2_ftz_bf16x2(a as u32);
        approx::tanh_f16x2(a as u32);
        approx::tanh_bf16x2(a as u32);
        let all = FloatMods { ftz: true, sat: true, satfinite: true, relu: true };
        for s in FLOATS {
            for d in FLOATS {
                for r in ROUNDINGS {
                    cvt::f2f(s, d, a, r, FloatMods::default());
                    cvt::f2f(s, d, a, r, all);
                }
            }
            for ir in IROUNDINGS {
                cvt::f2f_integral(s, a, ir, true, true);
                for i in INTS {
                    cvt::f2i(s, i, a, ir, true);
                }
            }
            for i in INTS {
                cvt::i2f(i, s, a, Rounding::Rp, all);
            }
        }
        for s in INTS {
            for d in INTS {
                cvt::i2i(s, d, a, true);
                cvt::i2i(s, d, a, false);
            }
        }
        for p in [cvt::PackedType::F16x2, cvt::PackedType::Bf16x2, cvt::PackedType::E4m3x2, cvt::PackedType::E5m2x2] {
            cvt::pack2_f32(p, a as u32, b as u32, Rounding::Rz, all);
        }
        for f in [cvt::Fp8::E4m3, cvt::Fp8::E5m2] {
            cvt::f8x2_from_f16x2(f, a as u32, true);
            cvt::f16x2_from_f8x2(f, a as u16, true);
        }
    }
}
