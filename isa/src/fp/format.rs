//! Binary floating-point formats as data, decoding of raw bits, and the one rounding routine that
//! every correctly rounded operation in this module ends in.
//!
//! A value in flight is `(-1)^neg × sig × 2^exp` with an integer `sig`; rounding it to a [`Format`]
//! is integer shifting, so every format (f64 down to e4m3) shares one exact code path.

use super::Rounding;

/// How a format writes the NaN that an operation produces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NanRule {
    /// Every NaN result is this one pattern (f32, f16, bf16, tf32, fp8 on Hopper).
    Canonical(u64),
    /// A NaN operand is passed on quieted with its payload and sign (PTX: "NaN payloads are supported
    /// for double-precision instructions"; which operand wins is the caller's, see
    /// [`Format::nan_result`]); a NaN made from non-NaN operands is `invalid`.
    Propagate { invalid: u64 },
}

/// A binary interchange-style format: 1 sign bit, `exp_bits`, `man_bits` stored fraction bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Format {
    pub exp_bits: u32,
    pub man_bits: u32,
    /// False for OCP e4m3 ("FN"): no infinities, and only S.1111.111 is NaN.
    pub has_inf: bool,
    pub nan: NanRule,
}

pub(crate) const F64: Format = Format {
    exp_bits: 11,
    man_bits: 52,
    has_inf: true,
    // H200 oracle: the NaN that f64 arithmetic makes from non-NaN operands (0·∞, ∞−∞, 0/0, √−x)
    // is the negative quiet NaN, e.g. `add.rn.f64(+∞, −∞)` = `sqrt.rn.f64(−1)` = 0xFFF8000000000000.
    nan: NanRule::Propagate {
        invalid: 0xFFF8_0000_0000_0000,
    },
};
pub(crate) const F32: Format = Format {
    exp_bits: 8,
    man_bits: 23,
    has_inf: true,
    nan: NanRule::Canonical(0x7FFF_FFFF),
};
// The canonical NaN of f16/bf16 arithmetic (H200 oracle: `add.rn.f16(0x7C01, 0x3C00)` = 0x7FFF).
pub(crate) const F16: Format = Format {
    exp_bits: 5,
    man_bits: 10,
    has_inf: true,
    nan: NanRule::Canonical(0x7FFF),
};
pub(crate) const BF16: Format = Format {
    exp_bits: 8,
    man_bits: 7,
    has_inf: true,
    nan: NanRule::Canonical(0x7FFF),
};
/// tf32 as rounded: 10 fraction bits with the f32 exponent range. cvt stores it in an f32 container
/// (shifted up 13 bits), so its canonical NaN is 0x7FFFE000 there (H200 oracle:
/// `cvt.rn.tf32.f32(NaN)` = 0x7FFFE000).
pub(crate) const TF32: Format = Format {
    exp_bits: 8,
    man_bits: 10,
    has_inf: true,
    nan: NanRule::Canonical(0x3_FFFF),
};
// The NaN that cvt writes for e4m3/e5m2, 0x7F (S.1111.111 in both; H200 oracle:
// `cvt.rn.satfinite.e4m3x2.f32` of a NaN).
pub(crate) const E4M3: Format = Format {
    exp_bits: 4,
    man_bits: 3,
    has_inf: false,
    nan: NanRule::Canonical(0x7F),
};
pub(crate) const E5M2: Format = Format {
    exp_bits: 5,
    man_bits: 2,
    has_inf: true,
    nan: NanRule::Canonical(0x7F),
};
/// The 1.11.20 upper word of an f64, as `rcp.approx.ftz.f64` and `rsqrt.approx.ftz.f64` compute it.
pub(crate) const F64_HI: Format = Format {
    exp_bits: 11,
    man_bits: 20,
    has_inf: true,
    nan: NanRule::Canonical(0x7FFF_FFFF),
};
/// f32 precision over the f64 exponent range: the intermediate result of MUFU.RCP64H/RSQ64H before
/// they truncate it to [`F64_HI`].
pub(crate) const F64_HI23: Format = Format {
    exp_bits: 11,
    man_bits: 23,
    has_inf: true,
    nan: NanRule::Canonical(0x3_FFFF_FFFF),
};

/// A decoded operand. `Num` is `(-1)^neg × sig × 2^exp` with `sig > 0`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Val {
    Nan,
    Inf { neg: bool },
    Zero { neg: bool },
    Num { neg: bool, exp: i32, sig: u128 },
}

impl Val {
    pub fn neg(self) -> bool {
        match self {
            Val::Nan => false,
            Val::Inf { neg } | Val::Zero { neg } | Val::Num { neg, .. } => neg,
        }
    }

    /// The same value with its sign flipped (NaN stays NaN).
    pub fn negate(self) -> Val {
        match self {
            Val::Nan => Val::Nan,
            Val::Inf { neg } => Val::Inf { neg: !neg },
            Val::Zero { neg } => Val::Zero { neg: !neg },
            Val::Num { neg, exp, sig } => Val::Num {
                neg: !neg,
                exp,
                sig,
            },
        }
    }
}

/// Number of significant bits of `x` (0 for 0).
pub(crate) fn bit_len(x: u128) -> i32 {
    128 - x.leading_zeros() as i32
}

/// `sig / 2^shift` rounded to an integer in direction `rnd` for a value of sign `neg`.
/// The result may be one past the kept width (a carry out of rounding up).
pub(crate) fn shift_round(sig: u128, shift: u32, neg: bool, rnd: Rounding) -> u128 {
    // (kept, rem, half): rem compared with half decides the nearest modes; rem ≠ 0 means inexact.
    let (kept, rem, half) = match shift {
        0 => (sig, 0, 1),
        // Everything lies below half (sig < 2^128 ≤ 2^(shift−1)); rem stands for "nonzero".
        129.. => (0, (sig != 0) as u128, 2),
        128 => (0, sig, 1 << 127),
        s => (sig >> s, sig & ((1 << s) - 1), 1u128 << (s - 1)),
    };
    let up = match rnd {
        Rounding::Rn => rem > half || (rem == half && kept & 1 == 1),
        Rounding::Rna => rem >= half,
        Rounding::Rz => false,
        Rounding::Rp => rem != 0 && !neg,
        Rounding::Rm => rem != 0 && neg,
    };
    kept + up as u128
}

impl Format {
    pub const fn width(self) -> u32 {
        1 + self.exp_bits + self.man_bits
    }
    pub const fn bias(self) -> i32 {
        (1 << (self.exp_bits - 1)) - 1
    }
    /// Unbiased exponent of the smallest normal number.
    pub const fn emin(self) -> i32 {
        1 - self.bias()
    }
    #[inline]
    pub const fn sign_bit(self) -> u64 {
        1 << (self.exp_bits + self.man_bits)
    }
    #[inline]
    const fn man_mask(self) -> u64 {
        (1 << self.man_bits) - 1
    }
    #[inline]
    const fn exp_field(self, bits: u64) -> u64 {
        (bits >> self.man_bits) & ((1 << self.exp_bits) - 1)
    }
    #[inline]
    const fn exp_all_ones(self) -> u64 {
        (1 << self.exp_bits) - 1
    }
    /// Bits of the format's width only (callers may hand in wider registers).
    #[inline]
    pub const fn mask(self, bits: u64) -> u64 {
        bits & (self.sign_bit() | (self.sign_bit() - 1))
    }

    #[inline]
    pub fn is_nan(self, bits: u64) -> bool {
        let e = self.exp_field(bits);
        let m = bits & self.man_mask();
        e == self.exp_all_ones()
            && if self.has_inf {
                m != 0
            } else {
                m == self.man_mask()
            }
    }
    #[inline]
    pub fn is_subnormal(self, bits: u64) -> bool {
        self.exp_field(bits) == 0 && bits & self.man_mask() != 0
    }
    pub fn is_neg(self, bits: u64) -> bool {
        bits & self.sign_bit() != 0
    }

    pub fn zero(self, neg: bool) -> u64 {
        if neg {
            self.sign_bit()
        } else {
            0
        }
    }
    pub fn inf(self, neg: bool) -> u64 {
        self.zero(neg) | (self.exp_all_ones() << self.man_bits)
    }
    pub fn max_finite(self, neg: bool) -> u64 {
        let body = if self.has_inf {
            ((self.exp_all_ones() - 1) << self.man_bits) | self.man_mask()
        } else {
            (self.exp_all_ones() << self.man_bits) | (self.man_mask() - 1)
        };
        self.zero(neg) | body
    }
    pub fn one(self) -> u64 {
        (self.bias() as u64) << self.man_bits
    }

    /// The NaN an operation returns when it makes one from non-NaN operands.
    #[inline]
    pub fn default_nan(self) -> u64 {
        match self.nan {
            NanRule::Canonical(n) | NanRule::Propagate { invalid: n } => n,
        }
    }

    /// The NaN an operation returns given its operands, listed in the order of precedence the
    /// operation gives their NaNs: under [`NanRule::Propagate`] the first NaN among them, quieted,
    /// else the canonical NaN.
    pub fn nan_result(self, operands: &[u64]) -> u64 {
        match self.nan {
            NanRule::Canonical(n) => n,
            NanRule::Propagate { invalid } => operands
                .iter()
                .find(|&&x| self.is_nan(x))
                .map_or(invalid, |&x| self.mask(x) | self.quiet_bit()),
        }
    }

    pub fn quiet_bit(self) -> u64 {
        1 << (self.man_bits - 1)
    }

    /// The smallest positive normal number.
    #[inline]
    pub fn min_normal(self) -> u64 {
        1 << self.man_bits
    }

    /// Flushes a subnormal to sign-preserving zero when `ftz` is set.
    #[inline]
    pub fn flush(self, bits: u64, ftz: bool) -> u64 {
        let bits = self.mask(bits);
        if ftz && self.is_subnormal(bits) {
            bits & self.sign_bit()
        } else {
            bits
        }
    }

    pub fn decode(self, bits: u64, ftz: bool) -> Val {
        let bits = self.mask(bits);
        let neg = self.is_neg(bits);
        let e = self.exp_field(bits);
        let m = bits & self.man_mask();
        if self.is_nan(bits) {
            Val::Nan
        } else if self.has_inf && e == self.exp_all_ones() {
            Val::Inf { neg }
        } else if e == 0 && (m == 0 || ftz) {
            Val::Zero { neg }
        } else if e == 0 {
            Val::Num {
                neg,
                exp: self.emin() - self.man_bits as i32,
                sig: m as u128,
            }
        } else {
            let exp = e as i32 - self.bias() - self.man_bits as i32;
            Val::Num {
                neg,
                exp,
                sig: (m | (1 << self.man_bits)) as u128,
            }
        }
    }

    /// Encodes a value exactly representable in this format (zeros, infinities, results of
    /// [`Format::round`]); NaN encodes as [`Format::default_nan`].
    pub fn encode_special(self, v: Val) -> u64 {
        match v {
            Val::Nan => self.default_nan(),
            Val::Inf { neg } => self.inf(neg),
            Val::Zero { neg } => self.zero(neg),
            Val::Num { neg, exp, sig } => self.round(neg, exp, sig, Rounding::Rn, false, false),
        }
    }

    /// Rounds `(-1)^neg × sig × 2^exp` to this format.
    ///
    /// Bit 0 of `sig` may be a sticky ("jam") bit standing for nonzero bits below it; callers that
    /// jam give `sig` at least `man_bits + 3` significant bits, so the jam bit always lies below the
    /// round bit. Subnormal results are formed at the fixed minimum exponent (so there is one rounding,
    /// no double rounding). `ftz` flushes a value that is tiny *before* rounding to signed zero, even
    /// where it would round up to the smallest normal (H200 oracle: `mul.rn.ftz.f32(0x00800000,
    /// 0x3F7FFFFF)` = +0, `div.rp.ftz.f32(0x00800000, 0x3F800001)` = +0,
    /// `mul.rn.ftz.f16(0x0400, 0x3BFF)` = +0). On overflow the direction decides between infinity
    /// and the largest finite; `satfinite` always gives the largest finite (and a format without
    /// infinities gives NaN without it).
    pub fn round(
        self,
        neg: bool,
        exp: i32,
        sig: u128,
        rnd: Rounding,
        ftz: bool,
        satfinite: bool,
    ) -> u64 {
        if sig == 0 {
            return self.zero(neg);
        }
        let m = self.man_bits as i32;
        // The value lies in [2^top, 2^(top+1)) (a jam bit never reaches the top bit).
        let top = exp + bit_len(sig) - 1;
        if ftz && top < self.emin() {
            return self.zero(neg);
        }
        let mut q = top.max(self.emin()) - m;
        let shift = q as i64 - exp as i64;
        let mut kept = if shift <= 0 {
            sig << (-shift) as u32
        } else {
            shift_round(sig, shift.min(200) as u32, neg, rnd)
        };
        if kept >> (m + 1) != 0 {
            kept >>= 1;
            q += 1;
        }
        if kept == 0 {
            return self.zero(neg);
        }
        if kept >> m == 0 {
            // Subnormal: only reached without ftz, as a subnormal result is tiny before rounding.
            return self.zero(neg) | kept as u64;
        }
        let biased = q + m + self.bias();
        let frac = kept as u64 & self.man_mask();
        let max_biased = self.exp_all_ones() as i32 - self.has_inf as i32;
        let overflow = biased > max_biased
            || (!self.has_inf && biased == max_biased && frac == self.man_mask());
        if overflow {
            let to_inf = match rnd {
                Rounding::Rn | Rounding::Rna => true,
                Rounding::Rz => false,
                Rounding::Rp => !neg,
                Rounding::Rm => neg,
            };
            return match (satfinite || !to_inf, self.has_inf) {
                (true, _) => self.max_finite(neg),
                (false, true) => self.inf(neg),
                (false, false) => self.default_nan(),
            };
        }
        self.zero(neg) | ((biased as u64) << self.man_bits) | frac
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decode_classes() {
        assert_eq!(F32.decode(0x7F80_0000, false), Val::Inf { neg: false });
        assert_eq!(F32.decode(0xFFC0_0000, false), Val::Nan);
        assert_eq!(F32.decode(0x8000_0001, true), Val::Zero { neg: true });
        assert_eq!(
            F32.decode(0x8000_0001, false),
            Val::Num {
                neg: true,
                exp: -149,
                sig: 1
            }
        );
        assert_eq!(
            F32.decode(0x3F80_0000, false),
            Val::Num {
                neg: false,
                exp: -23,
                sig: 1 << 23
            }
        );
        // e4m3: exponent all ones is a number unless the fraction is all ones.
        assert_eq!(
            E4M3.decode(0x7E, false),
            Val::Num {
                neg: false,
                exp: 8 - 3,
                sig: 0b1110
            }
        );
        assert_eq!(E4M3.decode(0x7F, false), Val::Nan);
    }

    #[test]
    fn round_overflow_per_direction() {
        // 2^128 in f32.
        let big = |r| F32.round(false, 128, 1, r, false, false);
        assert_eq!(big(Rounding::Rn), 0x7F80_0000);
        assert_eq!(big(Rounding::Rz), 0x7F7F_FFFF);
        assert_eq!(big(Rounding::Rm), 0x7F7F_FFFF);
        assert_eq!(big(Rounding::Rp), 0x7F80_0000);
        let nbig = |r| F32.round(true, 128, 1, r, false, false);
        assert_eq!(nbig(Rounding::Rm), 0xFF80_0000);
        assert_eq!(nbig(Rounding::Rp), 0xFF7F_FFFF);
        assert_eq!(
            F32.round(false, 128, 1, Rounding::Rn, false, true),
            0x7F7F_FFFF
        );
        // e4m3's largest is 448 = 0x7E; 464 is the tie with the missing 480 and goes to even (448);
        // above it the result overflows: NaN, or 448 under satfinite.
        assert_eq!(E4M3.round(false, 0, 448, Rounding::Rn, false, false), 0x7E);
        assert_eq!(E4M3.round(false, 0, 464, Rounding::Rn, false, false), 0x7E);
        assert_eq!(E4M3.round(false, 0, 465, Rounding::Rn, false, false), 0x7F);
        assert_eq!(E4M3.round(true, 0, 465, Rounding::Rn, false, true), 0xFE);
    }

    #[test]
    fn round_subnormal_ties_and_ftz() {
        // 1.5 × 2^-149 ties to even 2 × 2^-149; 0.5 × 2^-149 ties to 0.
        assert_eq!(F32.round(false, -150, 3, Rounding::Rn, false, false), 2);
        assert_eq!(F32.round(false, -150, 1, Rounding::Rn, false, false), 0);
        assert_eq!(
            F32.round(true, -150, 1, Rounding::Rm, false, false),
            0x8000_0001
        );
        assert_eq!(
            F32.round(true, -150, 1, Rounding::Rna, false, false),
            0x8000_0001
        );
        assert_eq!(F32.round(false, -150, 3, Rounding::Rn, true, false), 0);
        // (2^24 − 1) × 2^-150 rounds up to the smallest normal, but ftz flushes it: it is tiny
        // before rounding (H200 oracle: mul.rn.ftz.f32(0x00800000, 0x3F7FFFFF) = +0).
        assert_eq!(
            F32.round(false, -150, (1 << 24) - 1, Rounding::Rn, false, false),
            0x0080_0000
        );
        assert_eq!(
            F32.round(true, -150, (1 << 24) - 1, Rounding::Rp, true, false),
            0x8000_0000
        );
        assert_eq!(
            F32.round(false, -149, 1 << 23, Rounding::Rn, true, false),
            0x0080_0000
        );
        // Far below the smallest subnormal.
        assert_eq!(F64.round(false, -5000, 1, Rounding::Rp, false, false), 1);
        assert_eq!(F64.round(false, -5000, 1, Rounding::Rn, false, false), 0);
    }
}
