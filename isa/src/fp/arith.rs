//! The per-type layer under the public `f32`/`f64`/`f16`/`bf16` modules: one generic body per PTX
//! operation, with a native fast path where the host's IEEE arithmetic is the hardware's (round to
//! nearest on f32/f64), and the exact integer path of [`super::core`] everywhere else.

use super::core;
use super::format::{Format, BF16, F16, F32, F64};
use super::{CmpOp, Rounding, TestOp};

/// An operation with a correctly rounded native host implementation.
#[derive(Clone, Copy)]
pub(crate) enum NativeOp {
    Add,
    Sub,
    Mul,
    Div,
    Fma,
    Sqrt,
}

/// A scalar PTX floating-point type.
pub(crate) trait Kind {
    const FMT: Format;
    /// The round-to-nearest result of `op` computed by the host, for finite or infinite non-NaN
    /// operands already flushed as the instruction demands; `None` where the host has no such type.
    fn native(op: NativeOp, a: u64, b: u64, c: u64) -> Option<u64>;
}

pub(crate) struct K32;
pub(crate) struct K64;
pub(crate) struct K16;
pub(crate) struct KB16;

macro_rules! native_kind {
    ($k:ident, $fmt:expr, $t:ty, $bits:ty) => {
        impl Kind for $k {
            const FMT: Format = $fmt;
            #[inline]
            fn native(op: NativeOp, a: u64, b: u64, c: u64) -> Option<u64> {
                let [a, b, c] = [a, b, c].map(|x| <$t>::from_bits(x as $bits));
                let r = match op {
                    NativeOp::Add => a + b,
                    NativeOp::Sub => a - b,
                    NativeOp::Mul => a * b,
                    NativeOp::Div => a / b,
                    // std documents mul_add as one rounding of the exact a·b + c.
                    NativeOp::Fma => a.mul_add(b, c),
                    NativeOp::Sqrt => a.sqrt(),
                };
                Some(r.to_bits() as u64)
            }
        }
    };
}
native_kind!(K32, F32, f32, u32);
native_kind!(K64, F64, f64, u64);

macro_rules! soft_kind {
    ($k:ident, $fmt:expr) => {
        impl Kind for $k {
            const FMT: Format = $fmt;
            fn native(_: NativeOp, _: u64, _: u64, _: u64) -> Option<u64> {
                None
            }
        }
    };
}
soft_kind!(K16, F16);
soft_kind!(KB16, BF16);

/// Runs `op`: the native path for `.rn` when the type has one, else `soft`; then `.sat`. NaN operands
/// (their payload precedence) and `.ftz` results of the smallest normal magnitude (which may have
/// been tiny before rounding) are left to `soft`.
#[inline]
fn run<K: Kind, const N: usize>(
    op: NativeOp,
    ops: [u64; N],
    rnd: Rounding,
    ftz: bool,
    sat: bool,
    soft: impl FnOnce() -> u64,
) -> u64 {
    let f = K::FMT;
    let native = rnd == Rounding::Rn && !ops.iter().any(|&x| f.is_nan(x));
    let fast = native.then_some(()).and_then(|()| {
        let mut x = [0; 3];
        for (d, s) in x.iter_mut().zip(ops) {
            *d = f.flush(s, ftz);
        }
        let r = K::native(op, x[0], x[1], x[2])?;
        if f.is_nan(r) {
            Some(f.default_nan())
        } else if ftz && r & !f.sign_bit() == f.min_normal() {
            None
        } else {
            Some(f.flush(r, ftz))
        }
    });
    let r = fast.unwrap_or_else(soft);
    if sat {
        core::saturate(f, r)
    } else {
        r
    }
}

#[inline]
pub(crate) fn add<K: Kind>(a: u64, b: u64, rnd: Rounding, ftz: bool, sat: bool) -> u64 {
    run::<K, 2>(NativeOp::Add, [a, b], rnd, ftz, sat, || {
        core::add(K::FMT, a, b, rnd, ftz)
    })
}
#[inline]
pub(crate) fn sub<K: Kind>(a: u64, b: u64, rnd: Rounding, ftz: bool, sat: bool) -> u64 {
    run::<K, 2>(NativeOp::Sub, [a, b], rnd, ftz, sat, || {
        core::sub(K::FMT, a, b, rnd, ftz)
    })
}
#[inline]
pub(crate) fn mul<K: Kind>(a: u64, b: u64, rnd: Rounding, ftz: bool, sat: bool) -> u64 {
    run::<K, 2>(NativeOp::Mul, [a, b], rnd, ftz, sat, || {
        core::mul(K::FMT, a, b, rnd, ftz)
    })
}
#[inline]
pub(crate) fn fma<K: Kind>(a: u64, b: u64, c: u64, rnd: Rounding, ftz: bool, sat: bool) -> u64 {
    run::<K, 3>(NativeOp::Fma, [a, b, c], rnd, ftz, sat, || {
        core::fma(K::FMT, a, b, c, rnd, ftz)
    })
}
pub(crate) fn div<K: Kind>(a: u64, b: u64, rnd: Rounding, ftz: bool) -> u64 {
    run::<K, 2>(NativeOp::Div, [a, b], rnd, ftz, false, || {
        core::div(K::FMT, a, b, rnd, ftz)
    })
}
pub(crate) fn rcp<K: Kind>(a: u64, rnd: Rounding, ftz: bool) -> u64 {
    let one = K::FMT.one();
    run::<K, 2>(NativeOp::Div, [one, a], rnd, ftz, false, || {
        core::rcp(K::FMT, a, rnd, ftz)
    })
}
pub(crate) fn sqrt<K: Kind>(a: u64, rnd: Rounding, ftz: bool) -> u64 {
    run::<K, 1>(NativeOp::Sqrt, [a], rnd, ftz, false, || {
        core::sqrt(K::FMT, a, rnd, ftz)
    })
}
pub(crate) fn min<K: Kind>(a: u64, b: u64, ftz: bool, nan: bool) -> u64 {
    core::min_max(K::FMT, a, b, ftz, nan, false)
}
pub(crate) fn max<K: Kind>(a: u64, b: u64, ftz: bool, nan: bool) -> u64 {
    core::min_max(K::FMT, a, b, ftz, nan, true)
}
pub(crate) fn abs<K: Kind>(a: u64, ftz: bool) -> u64 {
    core::abs_neg(K::FMT, a, ftz, false)
}
pub(crate) fn neg<K: Kind>(a: u64, ftz: bool) -> u64 {
    core::abs_neg(K::FMT, a, ftz, true)
}
pub(crate) fn copysign<K: Kind>(a: u64, b: u64) -> u64 {
    core::copysign(K::FMT, a, b)
}
pub(crate) fn testp<K: Kind>(op: TestOp, a: u64) -> bool {
    core::testp(K::FMT, op, a)
}
pub(crate) fn setp<K: Kind>(op: CmpOp, a: u64, b: u64, ftz: bool) -> bool {
    core::setp(K::FMT, op, a, b, ftz)
}
