//! Format-generic IEEE arithmetic on raw bits: exact integer arithmetic on decoded operands, then one
//! rounding through [`Format::round`]. Every function takes the operand bits of one [`Format`] and
//! returns bits of the same format; `ftz` flushes subnormal operands before and results after.

use super::format::{bit_len, shift_round, Format, Val, F32};
use super::{CmpOp, Rounding, TestOp};

/// Sign of an exact zero sum of operands with signs `p` and `q` (IEEE 754 §6.3).
fn zero_sum_sign(p: bool, q: bool, rnd: Rounding) -> bool {
    if p == q {
        p
    } else {
        rnd == Rounding::Rm
    }
}

/// Exact `x + y` of two nonzero numbers; `None` when it is exactly zero.
///
/// The larger operand is placed with its top bit at bit 125; the smaller is shifted to the same scale
/// and, if bits fall off the bottom, they are jammed into bit 0. A jam happens only when the smaller's
/// top lies ≥ 21 bits below the larger's (operand significands are at most 106 bits), so the sum keeps
/// its top at bit ≥ 124 and the jam bit stays far below any rounding position.
fn add_nums(x: (bool, i32, u128), y: (bool, i32, u128)) -> Option<(bool, i32, u128)> {
    let top = |(_, e, s): (bool, i32, u128)| e + bit_len(s);
    let (a, b) = if top(x) >= top(y) { (x, y) } else { (y, x) };
    let la = 126 - bit_len(a.2);
    let e = a.1 - la;
    let sa = a.2 << la;
    let sb = if b.1 >= e {
        b.2 << (b.1 - e)
    } else {
        match e - b.1 {
            d @ 0..=127 => (b.2 >> d) | (b.2 & ((1 << d) - 1) != 0) as u128,
            _ => 1,
        }
    };
    let (neg, sig) = if a.0 == b.0 {
        (a.0, sa + sb)
    } else if sa >= sb {
        (a.0, sa - sb)
    } else {
        (b.0, sb - sa)
    };
    (sig != 0).then_some((neg, e, sig))
}

/// `x + y` rounded; NaN operands give the format's default NaN (callers resolve NaN operands first).
pub(crate) fn sum(f: Format, x: Val, y: Val, rnd: Rounding, ftz: bool) -> u64 {
    match (x, y) {
        (Val::Nan, _) | (_, Val::Nan) => f.default_nan(),
        (Val::Inf { neg: p }, Val::Inf { neg: q }) if p != q => f.default_nan(),
        (Val::Inf { neg }, _) | (_, Val::Inf { neg }) => f.inf(neg),
        (Val::Zero { neg: p }, Val::Zero { neg: q }) => f.zero(zero_sum_sign(p, q, rnd)),
        (Val::Zero { .. }, Val::Num { neg, exp, sig })
        | (Val::Num { neg, exp, sig }, Val::Zero { .. }) => f.round(neg, exp, sig, rnd, ftz, false),
        (
            Val::Num {
                neg: p,
                exp: ep,
                sig: sp,
            },
            Val::Num {
                neg: q,
                exp: eq,
                sig: sq,
            },
        ) => match add_nums((p, ep, sp), (q, eq, sq)) {
            Some((neg, exp, sig)) => f.round(neg, exp, sig, rnd, ftz, false),
            None => f.zero(rnd == Rounding::Rm),
        },
    }
}

/// The exact product; `Val::Nan` for 0 × ∞.
pub(crate) fn product(x: Val, y: Val) -> Val {
    let neg = x.neg() ^ y.neg();
    match (x, y) {
        (Val::Nan, _) | (_, Val::Nan) => Val::Nan,
        (Val::Inf { .. }, Val::Zero { .. }) | (Val::Zero { .. }, Val::Inf { .. }) => Val::Nan,
        (Val::Inf { .. }, _) | (_, Val::Inf { .. }) => Val::Inf { neg },
        (Val::Zero { .. }, _) | (_, Val::Zero { .. }) => Val::Zero { neg },
        (
            Val::Num {
                exp: ea, sig: sa, ..
            },
            Val::Num {
                exp: eb, sig: sb, ..
            },
        ) => Val::Num {
            neg,
            exp: ea + eb,
            sig: sa * sb,
        },
    }
}

/// The NaN result when any of `ops` is NaN, else `then()`. `ops` are listed in the order of NaN
/// precedence, which matters only to f64 (payloads). H200 oracle, f64 with two NaN operands:
/// `add`/`sub`/`mul` return `b`'s payload (`add.rn.f64(0x7FF8000000000000, 0x7FF0000000000001)` =
/// 0x7FF8000000000001), `fma` prefers `b`, then `c`, then `a`
/// (`fma.rn.f64(0x7FF8000000000000, 1, 0x7FF0000000000001)` = 0x7FF8000000000001), while `div`
/// prefers `a` (`div.rn.f64(0x7FF0000000000001, 0x7FF8000000000000)` = 0x7FF8000000000001).
fn nan_or<const N: usize>(f: Format, ops: [u64; N], then: impl FnOnce() -> u64) -> u64 {
    if ops.iter().any(|&x| f.is_nan(x)) {
        f.nan_result(&ops)
    } else {
        then()
    }
}

pub(crate) fn add(f: Format, a: u64, b: u64, rnd: Rounding, ftz: bool) -> u64 {
    nan_or(f, [b, a], || {
        sum(f, f.decode(a, ftz), f.decode(b, ftz), rnd, ftz)
    })
}

pub(crate) fn sub(f: Format, a: u64, b: u64, rnd: Rounding, ftz: bool) -> u64 {
    nan_or(f, [b, a], || {
        sum(f, f.decode(a, ftz), f.decode(b, ftz).negate(), rnd, ftz)
    })
}

pub(crate) fn mul(f: Format, a: u64, b: u64, rnd: Rounding, ftz: bool) -> u64 {
    if f == F32 && rnd == Rounding::Rz {
        if let Some(r) = mul_f32_rz_host(a, b) {
            return r;
        }
    }
    nan_or(f, [b, a], || {
        match product(f.decode(a, ftz), f.decode(b, ftz)) {
            Val::Num { neg, exp, sig } => f.round(neg, exp, sig, rnd, ftz, false),
            v => f.encode_special(v),
        }
    })
}

/// [`mul`] of two normal f32 toward zero by the host (as `sin`/`cos.approx` reduce): the f64
/// product is exact, and its rounding to nearest, stepped one unit toward zero where it went away
/// from zero, is the result (overflow included: ∞ steps to the largest finite). `None` leaves
/// results of at most the smallest normal, which may be tiny, to the exact path; they alone
/// depend on `.ftz`.
fn mul_f32_rz_host(a: u64, b: u64) -> Option<u64> {
    let (x, y) = (f32::from_bits(F32.mask(a) as u32), f32::from_bits(F32.mask(b) as u32));
    if !x.is_normal() || !y.is_normal() {
        return None;
    }
    let p = x as f64 * y as f64;
    let mut r = (p as f32).to_bits();
    if (f32::from_bits(r) as f64).abs() > p.abs() {
        r -= 1;
    }
    (r & !F32.sign_bit() as u32 > F32.min_normal() as u32).then_some(r as u64)
}

pub(crate) fn fma(f: Format, a: u64, b: u64, c: u64, rnd: Rounding, ftz: bool) -> u64 {
    nan_or(f, [b, c, a], || {
        sum(
            f,
            product(f.decode(a, ftz), f.decode(b, ftz)),
            f.decode(c, ftz),
            rnd,
            ftz,
        )
    })
}

/// `x / y` rounded, for decoded non-NaN operands.
pub(crate) fn quotient(f: Format, x: Val, y: Val, rnd: Rounding, ftz: bool) -> u64 {
    let neg = x.neg() ^ y.neg();
    match (x, y) {
        (Val::Nan, _) | (_, Val::Nan) => f.default_nan(),
        (Val::Inf { .. }, Val::Inf { .. }) | (Val::Zero { .. }, Val::Zero { .. }) => {
            f.default_nan()
        }
        (Val::Inf { .. }, _) | (_, Val::Zero { .. }) => f.inf(neg),
        (Val::Zero { .. }, _) | (_, Val::Inf { .. }) => f.zero(neg),
        (
            Val::Num {
                exp: ea, sig: sa, ..
            },
            Val::Num {
                exp: eb, sig: sb, ..
            },
        ) => {
            // sa·2^k has 126 bits, so the quotient has ≥ 126 − 64 bits: plenty beyond p + 2.
            let k = 126 - bit_len(sa);
            let num = sa << k;
            let sig = (num / sb) | !num.is_multiple_of(sb) as u128;
            f.round(neg, ea - k - eb, sig, rnd, ftz, false)
        }
    }
}

pub(crate) fn div(f: Format, a: u64, b: u64, rnd: Rounding, ftz: bool) -> u64 {
    nan_or(f, [a, b], || {
        quotient(f, f.decode(a, ftz), f.decode(b, ftz), rnd, ftz)
    })
}

pub(crate) fn rcp(f: Format, a: u64, rnd: Rounding, ftz: bool) -> u64 {
    nan_or(f, [a], || {
        quotient(f, f.decode(f.one(), false), f.decode(a, ftz), rnd, ftz)
    })
}

pub(crate) fn sqrt(f: Format, a: u64, rnd: Rounding, ftz: bool) -> u64 {
    nan_or(f, [a], || match f.decode(a, ftz) {
        Val::Zero { neg } => f.zero(neg),
        Val::Inf { neg: false } => f.inf(false),
        Val::Nan | Val::Inf { neg: true } | Val::Num { neg: true, .. } => f.default_nan(),
        Val::Num {
            neg: false,
            exp,
            sig,
        } => {
            // Scale to 125–126 bits with an even exponent; the root then has ≥ 62 bits.
            let mut k = 126 - bit_len(sig);
            if (exp - k) % 2 != 0 {
                k -= 1;
            }
            let m = sig << k;
            let s = m.isqrt();
            let root = s | (m != s * s) as u128;
            f.round(false, (exp - k) / 2, root, rnd, ftz, false)
        }
    })
}

/// The magnitude of `(-1)^neg × sig × 2^exp` rounded to an integer in direction `rnd` (`cvt.rni` and
/// friends), saturating at 2^127 − 1.
pub(crate) fn integral(neg: bool, exp: i32, sig: u128, rnd: Rounding) -> u128 {
    if exp >= 0 {
        if bit_len(sig) + exp > 127 {
            u128::MAX >> 1
        } else {
            sig << exp
        }
    } else {
        shift_round(sig, (-exp).min(200) as u32, neg, rnd)
    }
}

/// Clamps to [0.0, 1.0] (`.sat`): NaN and every negative value, −0.0 included, become +0.0.
pub(crate) fn saturate(f: Format, bits: u64) -> u64 {
    if f.is_nan(bits) || f.is_neg(bits) {
        0
    } else {
        bits.min(f.one())
    }
}

/// `.relu`: negative values (−0.0 included) become +0.0 and NaN becomes the canonical NaN.
pub(crate) fn relu(f: Format, bits: u64) -> u64 {
    if f.is_nan(bits) {
        f.default_nan()
    } else if f.is_neg(bits) {
        0
    } else {
        bits
    }
}

/// Sign-magnitude to an integer key ordered like the values, −0.0 just below +0.0.
fn order_key(f: Format, bits: u64) -> i64 {
    let mag = (bits & (f.sign_bit() - 1)) as i64;
    if f.is_neg(bits) {
        -mag - 1
    } else {
        mag
    }
}

/// `min`/`max` (`want_max`): a single NaN operand is ignored unless `nan` (`.NaN`), −0.0 < +0.0.
/// Two NaNs give `b`'s (H200 oracle: `min.f64(0xFFF8000000000003, 0x7FF0000000000001)` =
/// 0x7FF8000000000001).
pub(crate) fn min_max(f: Format, a: u64, b: u64, ftz: bool, nan: bool, want_max: bool) -> u64 {
    let (a, b) = (f.flush(a, ftz), f.flush(b, ftz));
    match (f.is_nan(a), f.is_nan(b)) {
        (true, true) => f.nan_result(&[b, a]),
        (true, false) | (false, true) if nan => f.default_nan(),
        (true, false) => b,
        (false, true) => a,
        (false, false) => {
            if (order_key(f, a) > order_key(f, b)) == want_max {
                a
            } else {
                b
            }
        }
    }
}

/// `abs` (`negate` false) or `neg` (true). Numbers only change their sign bit; a NaN is the NaN
/// result of the format: the canonical NaN (PTX: "unspecified NaN"), and for f64 the operand quieted
/// with its sign kept, as f64 `abs`/`neg` run on the DADD datapath (H200 oracle:
/// `neg.f64(0x7FF0000000000001)` = 0x7FF8000000000001, `abs.f64(0xFFF8000000000003)` =
/// 0xFFF8000000000003).
pub(crate) fn abs_neg(f: Format, a: u64, ftz: bool, negate: bool) -> u64 {
    let a = f.flush(a, ftz);
    if f.is_nan(a) {
        f.nan_result(&[a])
    } else if negate {
        a ^ f.sign_bit()
    } else {
        a & !f.sign_bit()
    }
}

pub(crate) fn copysign(f: Format, a: u64, b: u64) -> u64 {
    (f.mask(b) & !f.sign_bit()) | (a & f.sign_bit())
}

pub(crate) fn testp(f: Format, op: TestOp, a: u64) -> bool {
    let a = f.mask(a);
    let nan = f.is_nan(a);
    let inf = f.has_inf && a & !f.sign_bit() == f.inf(false);
    match op {
        TestOp::Finite => !nan && !inf,
        TestOp::Infinite => inf,
        TestOp::Number => !nan,
        TestOp::NotANumber => nan,
        TestOp::Normal => !nan && !inf && !f.is_subnormal(a),
        TestOp::Subnormal => f.is_subnormal(a),
    }
}

pub(crate) fn setp(f: Format, op: CmpOp, a: u64, b: u64, ftz: bool) -> bool {
    let (a, b) = (f.flush(a, ftz), f.flush(b, ftz));
    let unordered = f.is_nan(a) || f.is_nan(b);
    let zero = |x: u64| x & !f.sign_bit() == 0;
    let ord = if zero(a) && zero(b) {
        std::cmp::Ordering::Equal
    } else {
        order_key(f, a).cmp(&order_key(f, b))
    };
    use std::cmp::Ordering::{Equal, Greater, Less};
    let ordered = |want: &[std::cmp::Ordering]| !unordered && want.contains(&ord);
    let or_nan = |want: &[std::cmp::Ordering]| unordered || want.contains(&ord);
    match op {
        CmpOp::Eq => ordered(&[Equal]),
        CmpOp::Ne => ordered(&[Less, Greater]),
        CmpOp::Lt => ordered(&[Less]),
        CmpOp::Le => ordered(&[Less, Equal]),
        CmpOp::Gt => ordered(&[Greater]),
        CmpOp::Ge => ordered(&[Greater, Equal]),
        CmpOp::Equ => or_nan(&[Equal]),
        CmpOp::Neu => or_nan(&[Less, Greater]),
        CmpOp::Ltu => or_nan(&[Less]),
        CmpOp::Leu => or_nan(&[Less, Equal]),
        CmpOp::Gtu => or_nan(&[Greater]),
        CmpOp::Geu => or_nan(&[Greater, Equal]),
        CmpOp::Num => !unordered,
        CmpOp::Nan => unordered,
    }
}
