//! Element types of device buffers and scalar arguments, and exact conversions between numbers and
//! their little-endian bit patterns.
//!
//! Every value that crosses the manifest/device boundary goes through here: a TOML number becomes
//! the bits of a `DType` (integers wrap to the type's width, floats round to nearest-even, computed
//! from the f64 directly so there is never a double rounding), and the bits read back from a device
//! buffer decode to a [`Value`] for comparison and display. f16 and bf16 are implemented here from
//! their IEEE-754 parameters; no half-precision crate is involved, so the bytes never depend on a
//! crate version.

use serde::Deserialize;
use std::fmt;

/// Element type of a buffer, a scalar argument or a tensor map (the manifest's `dtype` strings).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DType {
    U8,
    S8,
    U16,
    S16,
    U32,
    S32,
    U64,
    S64,
    F16,
    Bf16,
    F32,
    F64,
}

/// A decoded element: integers exactly (i128 holds every u64 and s64), floats as f64 (exact for
/// f16, bf16 and f32).
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Value {
    Int(i128),
    Float(f64),
}

impl Value {
    /// The value as f64 (integers convert with rounding beyond 2^53).
    pub fn as_f64(self) -> f64 {
        match self {
            Value::Int(i) => i as f64,
            Value::Float(f) => f,
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Int(i) => write!(f, "{i}"),
            Value::Float(x) => write!(f, "{x:e}"),
        }
    }
}

impl DType {
    /// Size of one element in bytes.
    pub fn size(self) -> usize {
        match self {
            DType::U8 | DType::S8 => 1,
            DType::U16 | DType::S16 | DType::F16 | DType::Bf16 => 2,
            DType::U32 | DType::S32 | DType::F32 => 4,
            DType::U64 | DType::S64 | DType::F64 => 8,
        }
    }

    /// True for f16, bf16, f32 and f64.
    pub fn is_float(self) -> bool {
        matches!(self, DType::F16 | DType::Bf16 | DType::F32 | DType::F64)
    }

    /// The manifest spelling (`"u8"`, `"bf16"`, ...).
    pub fn name(self) -> &'static str {
        match self {
            DType::U8 => "u8",
            DType::S8 => "s8",
            DType::U16 => "u16",
            DType::S16 => "s16",
            DType::U32 => "u32",
            DType::S32 => "s32",
            DType::U64 => "u64",
            DType::S64 => "s64",
            DType::F16 => "f16",
            DType::Bf16 => "bf16",
            DType::F32 => "f32",
            DType::F64 => "f64",
        }
    }

    /// Inclusive range of an integer dtype; `None` for floats.
    pub fn int_range(self) -> Option<(i128, i128)> {
        let bits = 8 * self.size() as u32;
        match self {
            DType::U8 | DType::U16 | DType::U32 | DType::U64 => Some((0, (1i128 << bits) - 1)),
            DType::S8 | DType::S16 | DType::S32 | DType::S64 => {
                Some((-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1))
            }
            _ => None,
        }
    }

    fn mask(self) -> u64 {
        u64::MAX >> (64 - 8 * self.size() as u32)
    }

    /// Bits of an integer in this dtype: two's complement, wrapped to the dtype's width. For a
    /// float dtype the integer is converted as a float (rounded to nearest-even).
    pub fn encode_int(self, v: i128) -> u64 {
        if self.is_float() {
            self.encode_f64(v as f64)
        } else {
            (v as u64) & self.mask()
        }
    }

    /// Bits of a float in this dtype, rounded to nearest-even (overflow gives infinity, NaN gives
    /// the canonical quiet NaN). For an integer dtype the value is truncated toward zero and
    /// saturated (Rust's `as` semantics).
    pub fn encode_f64(self, v: f64) -> u64 {
        match self {
            DType::F64 => v.to_bits(),
            DType::F32 => (v as f32).to_bits() as u64,
            DType::F16 => round_to_format(v, 5, 10),
            DType::Bf16 => round_to_format(v, 8, 7),
            DType::U64 => v as u64,
            DType::S64 => (v as i64) as u64,
            _ => {
                let (lo, hi) = self.int_range().expect("integer dtype");
                self.encode_int((v as i128).clamp(lo, hi))
            }
        }
    }

    /// Bits of a [`Value`] in this dtype (see [`DType::encode_int`] and [`DType::encode_f64`]).
    pub fn encode(self, v: Value) -> u64 {
        match v {
            Value::Int(i) => self.encode_int(i),
            Value::Float(f) => self.encode_f64(f),
        }
    }

    /// Decode bits (low `8 * size` bits used) to a value, exactly.
    pub fn decode(self, bits: u64) -> Value {
        let bits = bits & self.mask();
        match self {
            DType::U8 | DType::U16 | DType::U32 | DType::U64 => Value::Int(bits as i128),
            DType::S8 => Value::Int(bits as u8 as i8 as i128),
            DType::S16 => Value::Int(bits as u16 as i16 as i128),
            DType::S32 => Value::Int(bits as u32 as i32 as i128),
            DType::S64 => Value::Int(bits as i64 as i128),
            DType::F16 => Value::Float(decode_format(bits, 5, 10)),
            DType::Bf16 => Value::Float(decode_format(bits, 8, 7)),
            DType::F32 => Value::Float(f32::from_bits(bits as u32) as f64),
            DType::F64 => Value::Float(f64::from_bits(bits)),
        }
    }

    /// Read element bits from the first `size` bytes of `bytes` (little-endian).
    pub fn read_bits(self, bytes: &[u8]) -> u64 {
        let mut b = [0u8; 8];
        b[..self.size()].copy_from_slice(&bytes[..self.size()]);
        u64::from_le_bytes(b)
    }

    /// Append the element's `size` little-endian bytes.
    pub fn push_bits(self, bits: u64, out: &mut Vec<u8>) {
        out.extend_from_slice(&bits.to_le_bytes()[..self.size()]);
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Round an f64 to nearest-even in a binary format with `ebits` exponent bits and `mbits`
/// mantissa bits (IEEE-754 layout, subnormals, infinities), returning its bit pattern.
///
/// The value is `n * 2^q` with `q` the format's quantum at the value's exponent (clamped at the
/// subnormal exponent), and the encoding is `((E + bias - 1) << mbits) + n`, which carries a
/// rounding overflow into the exponent and handles subnormals with the same formula.
fn round_to_format(v: f64, ebits: u32, mbits: u32) -> u64 {
    let sign = (v.to_bits() >> 63) << (ebits + mbits);
    let exp_all = ((1u64 << ebits) - 1) << mbits;
    if v.is_nan() {
        return exp_all | (1u64 << (mbits - 1));
    }
    let a = v.abs();
    if a.is_infinite() {
        return sign | exp_all;
    }
    let abits = a.to_bits();
    let biased = (abits >> 52) as i32;
    if biased == 0 {
        // zero or an f64 subnormal: far below every narrower format's smallest subnormal
        return sign;
    }
    let e = biased - 1023;
    let sig = (abits & ((1u64 << 52) - 1)) | (1u64 << 52);
    let bias = (1i32 << (ebits - 1)) - 1;
    let emin = 1 - bias;
    let big_e = e.max(emin);
    let shift = (big_e - mbits as i32) - (e - 52);
    let n = if shift >= 64 {
        0
    } else {
        let shift = shift as u32;
        let n = sig >> shift;
        let rem = sig & ((1u64 << shift) - 1);
        let half = 1u64 << (shift - 1);
        if rem > half || (rem == half && n & 1 == 1) {
            n + 1
        } else {
            n
        }
    };
    if n == 0 {
        return sign;
    }
    let enc = (((big_e + bias - 1) as u64) << mbits) + n;
    if enc >= exp_all {
        sign | exp_all
    } else {
        sign | enc
    }
}

/// Exact value of a bit pattern in the binary format of [`round_to_format`].
fn decode_format(bits: u64, ebits: u32, mbits: u32) -> f64 {
    let sign = if (bits >> (ebits + mbits)) & 1 == 1 {
        -1.0
    } else {
        1.0
    };
    let exp = ((bits >> mbits) & ((1u64 << ebits) - 1)) as i32;
    let mant = bits & ((1u64 << mbits) - 1);
    let bias = (1i32 << (ebits - 1)) - 1;
    if exp == (1 << ebits) - 1 {
        return if mant == 0 {
            sign * f64::INFINITY
        } else {
            f64::NAN
        };
    }
    let (m, e) = if exp == 0 {
        (mant as f64, 1 - bias - mbits as i32)
    } else {
        ((mant | (1u64 << mbits)) as f64, exp - bias - mbits as i32)
    };
    sign * m * 2f64.powi(e)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn f16_known_values() {
        assert_eq!(DType::F16.encode_f64(1.0), 0x3c00);
        assert_eq!(DType::F16.encode_f64(-2.0), 0xc000);
        assert_eq!(DType::F16.encode_f64(65504.0), 0x7bff);
        assert_eq!(DType::F16.encode_f64(65520.0), 0x7c00); // rounds up to infinity
        assert_eq!(DType::F16.encode_f64(2f64.powi(-24)), 0x0001); // smallest subnormal
        assert_eq!(DType::F16.encode_f64(2f64.powi(-25)), 0x0000); // tie to even: zero
        assert_eq!(DType::F16.encode_f64(1.5 * 2f64.powi(-25)), 0x0001);
        assert_eq!(DType::F16.encode_f64(1.0 + 2f64.powi(-11)), 0x3c00); // tie to even
        assert_eq!(DType::F16.encode_f64(1.0 + 3.0 * 2f64.powi(-11)), 0x3c02);
        assert_eq!(DType::F16.encode_f64(f64::NAN), 0x7e00);
        assert_eq!(DType::F16.decode(0x3555), Value::Float(0.333251953125));
    }

    #[test]
    fn bf16_known_values() {
        assert_eq!(DType::Bf16.encode_f64(1.0), 0x3f80);
        assert_eq!(DType::Bf16.encode_f64(-0.0), 0x8000);
        assert_eq!(DType::Bf16.encode_f64(3.140625), 0x4049);
        assert_eq!(DType::Bf16.encode_f64(f64::INFINITY), 0x7f80);
    }

    #[test]
    fn integers_wrap_and_decode_signed() {
        assert_eq!(DType::U8.encode_int(256 + 7), 7);
        assert_eq!(DType::S8.encode_int(-1), 0xff);
        assert_eq!(DType::S8.decode(0xff), Value::Int(-1));
        assert_eq!(DType::S32.decode(0x8000_0000), Value::Int(-(1 << 31)));
        assert_eq!(DType::U64.decode(u64::MAX), Value::Int(u64::MAX as i128));
        assert_eq!(DType::S16.int_range(), Some((-32768, 32767)));
    }

    proptest! {
        /// The generic rounding, instantiated as binary32, agrees with the hardware `as f32`.
        #[test]
        fn generic_rounding_matches_f32(bits in any::<u64>()) {
            let v = f64::from_bits(bits);
            prop_assume!(!v.is_nan());
            prop_assert_eq!(round_to_format(v, 8, 23), (v as f32).to_bits() as u64);
        }

        /// Every f16 and bf16 pattern (NaN aside) survives decode then encode.
        #[test]
        fn half_roundtrip(bits in 0u64..0x10000) {
            for d in [DType::F16, DType::Bf16] {
                let v = d.decode(bits).as_f64();
                if !v.is_nan() {
                    prop_assert_eq!(d.encode_f64(v), bits);
                }
            }
        }
    }
}
