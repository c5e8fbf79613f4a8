//! Integer and bit-manipulation semantics, per lane, as the PTX ISA defines them.
//!
//! Values travel as `u64` holding the operand's bits (the low `ty.bits()` bits are significant);
//! results are returned truncated to the result width. Cases the ISA leaves undefined take the
//! value NVIDIA hardware produces (integer division by zero: quotient all ones for unsigned,
//! −1 or +1 by the dividend's sign for signed… see [`div`]; remainder by zero: the dividend), so
//! programs that rely on them behave as on the GPU.

use crate::types::Ty;

#[inline]
fn sx(ty: Ty, v: u64) -> i64 {
    Ty::extend(signed_of(ty), v) as i64
}

#[inline]
fn signed_of(ty: Ty) -> Ty {
    match ty.bits() {
        8 => Ty::S8,
        16 => Ty::S16,
        32 => Ty::S32,
        _ => Ty::S64,
    }
}

#[inline]
fn trunc(ty: Ty, v: u64) -> u64 {
    v & ty.mask()
}

/// `add` / `sub` with optional `.sat` (s32 only: clamps to the signed range).
pub fn add(ty: Ty, a: u64, b: u64, sat: bool) -> u64 {
    if sat && ty.is_signed() {
        let r = (sx(ty, a) as i128) + (sx(ty, b) as i128);
        return trunc(ty, clamp_signed(ty, r) as u64);
    }
    trunc(ty, a.wrapping_add(b))
}

pub fn sub(ty: Ty, a: u64, b: u64, sat: bool) -> u64 {
    if sat && ty.is_signed() {
        let r = (sx(ty, a) as i128) - (sx(ty, b) as i128);
        return trunc(ty, clamp_signed(ty, r) as u64);
    }
    trunc(ty, a.wrapping_sub(b))
}

fn clamp_signed(ty: Ty, r: i128) -> i128 {
    let b = ty.bits();
    let (lo, hi) = (-(1i128 << (b - 1)), (1i128 << (b - 1)) - 1);
    r.clamp(lo, hi)
}

/// Which part of a product `mul`/`mad` keep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    Lo,
    Hi,
    Wide,
}

/// The full product of two `ty` values as a 128-bit integer (signed or unsigned by `ty`).
fn full_product(ty: Ty, a: u64, b: u64) -> u128 {
    if ty.is_signed() {
        ((sx(ty, a) as i128) * (sx(ty, b) as i128)) as u128
    } else {
        (trunc(ty, a) as u128) * (trunc(ty, b) as u128)
    }
}

/// `mul.{lo,hi,wide}`.
pub fn mul(ty: Ty, part: Part, a: u64, b: u64) -> u64 {
    let p = full_product(ty, a, b);
    let w = ty.bits();
    match part {
        Part::Lo => trunc(ty, p as u64),
        Part::Hi => trunc(ty, (p >> w) as u64),
        Part::Wide => {
            if w >= 64 {
                p as u64
            } else {
                (p as u64) & ((1u128 << (2 * w)) - 1) as u64
            }
        }
    }
}

/// `mad.{lo,hi,wide}{.sat}`: `.sat` applies to `.hi.s32` (clamps the 64-bit sum's high part).
pub fn mad(ty: Ty, part: Part, a: u64, b: u64, c: u64, sat: bool) -> u64 {
    let w = ty.bits();
    match part {
        Part::Lo => trunc(ty, mul(ty, Part::Lo, a, b).wrapping_add(c)),
        Part::Wide => {
            let wt = if w >= 32 { Ty::B64 } else { Ty::B32 };
            trunc(wt, mul(ty, Part::Wide, a, b).wrapping_add(c))
        }
        Part::Hi => {
            if sat && ty.is_signed() {
                // PTX: mad.hi.sat.s32 computes (a*b)>>32 + c with signed saturation.
                let hi = (full_product(ty, a, b) as i128) >> w;
                let r = hi + sx(ty, c) as i128;
                trunc(ty, clamp_signed(ty, r) as u64)
            } else {
                trunc(ty, mul(ty, Part::Hi, a, b).wrapping_add(c))
            }
        }
    }
}

/// `mul24.{lo,hi}` / `mad24`: 24-bit operands, 48-bit product; `.hi` keeps bits 47..16.
pub fn mul24(ty: Ty, hi: bool, a: u64, b: u64) -> u64 {
    let (x, y) = if ty.is_signed() {
        (((a << 40) as i64 >> 40) as i128, ((b << 40) as i64 >> 40) as i128)
    } else {
        ((a & 0xFF_FFFF) as i128, (b & 0xFF_FFFF) as i128)
    };
    let p = x * y;
    trunc(Ty::B32, if hi { (p >> 16) as u64 } else { p as u64 })
}

/// `sad`: |a − b| + c.
pub fn sad(ty: Ty, a: u64, b: u64, c: u64) -> u64 {
    let d = if ty.is_signed() { sx(ty, a).abs_diff(sx(ty, b)) } else { trunc(ty, a).abs_diff(trunc(ty, b)) };
    trunc(ty, d.wrapping_add(c))
}

/// `div`: truncating division. By zero (undefined in PTX): unsigned gives all ones; signed gives
/// −1 for a non-negative dividend and 1 for a negative one (what the SASS division sequence
/// produces). `MIN / −1` wraps to `MIN`.
pub fn div(ty: Ty, a: u64, b: u64) -> u64 {
    if ty.is_signed() {
        let (x, y) = (sx(ty, a), sx(ty, b));
        if y == 0 {
            return trunc(ty, if x >= 0 { u64::MAX } else { 1 });
        }
        trunc(ty, x.wrapping_div(y) as u64)
    } else {
        let (x, y) = (trunc(ty, a), trunc(ty, b));
        if y == 0 {
            return ty.mask();
        }
        x / y
    }
}

/// `rem`: remainder with the dividend's sign; by zero gives the dividend.
pub fn rem(ty: Ty, a: u64, b: u64) -> u64 {
    if ty.is_signed() {
        let (x, y) = (sx(ty, a), sx(ty, b));
        if y == 0 {
            return trunc(ty, x as u64);
        }
        trunc(ty, x.wrapping_rem(y) as u64)
    } else {
        let (x, y) = (trunc(ty, a), trunc(ty, b));
        if y == 0 {
            return x;
        }
        x % y
    }
}

pub fn abs(ty: Ty, a: u64) -> u64 {
    trunc(ty, sx(ty, a).wrapping_abs() as u64)
}

pub fn neg(ty: Ty, a: u64) -> u64 {
    trunc(ty, a.wrapping_neg())
}

/// `min`/`max` for integer types (`.relu` clamps a signed result at 0).
pub fn minmax(ty: Ty, max: bool, a: u64, b: u64, relu: bool) -> u64 {
    let r = if ty.is_signed() {
        let (x, y) = (sx(ty, a), sx(ty, b));
        let r = if max { x.max(y) } else { x.min(y) };
        (if relu { r.max(0) } else { r }) as u64
    } else {
        let (x, y) = (trunc(ty, a), trunc(ty, b));
        if max {
            x.max(y)
        } else {
            x.min(y)
        }
    };
    trunc(ty, r)
}

pub fn popc(ty: Ty, a: u64) -> u64 {
    trunc(ty, a).count_ones() as u64
}

pub fn clz(ty: Ty, a: u64) -> u64 {
    let w = ty.bits();
    (trunc(ty, a).leading_zeros() - (64 - w)) as u64
}

/// `bfind`: position of the most significant non-sign bit; 0xFFFFFFFF when none. `.shiftamt`
/// returns the left shift that would move it to the top.
pub fn bfind(ty: Ty, a: u64, shiftamt: bool) -> u64 {
    let w = ty.bits();
    let v = trunc(ty, a);
    let v = if ty.is_signed() && (v >> (w - 1)) & 1 == 1 { trunc(ty, !v) } else { v };
    if v == 0 {
        return 0xFFFF_FFFF;
    }
    let pos = 63 - v.leading_zeros() as u64;
    if shiftamt {
        (w as u64 - 1) - pos
    } else {
        pos
    }
}

pub fn brev(ty: Ty, a: u64) -> u64 {
    let w = ty.bits();
    trunc(ty, a).reverse_bits() >> (64 - w)
}

/// `bfe`: extract `len` bits at `pos` (both taken from the low 8 bits), sign-extending for signed
/// types.
pub fn bfe(ty: Ty, a: u64, pos: u64, len: u64) -> u64 {
    let w = ty.bits() as u64;
    let (pos, len) = (pos & 0xFF, len & 0xFF);
    let v = trunc(ty, a);
    let sbit = if ty.is_signed() && len > 0 {
        let i = (pos + len - 1).min(w - 1);
        (v >> i) & 1 == 1
    } else {
        false
    };
    let mut r = 0u64;
    for i in 0..w {
        let bit = if i < len && pos + i < w { (v >> (pos + i)) & 1 == 1 } else { sbit };
        if bit {
            r |= 1 << i;
        }
    }
    r
}

/// `bfi`: insert the low `len` bits of `a` into `b` at `pos`.
pub fn bfi(ty: Ty, a: u64, b: u64, pos: u64, len: u64) -> u64 {
    let w = ty.bits() as u64;
    let (pos, len) = (pos & 0xFF, len & 0xFF);
    let mut r = trunc(ty, b);
    for i in 0..len {
        if pos + i >= w {
            break;
        }
        let bit = (a >> i) & 1;
        r = (r & !(1 << (pos + i))) | (bit << (pos + i));
    }
    r
}

/// `fns.b32`: the bit position of the `offset`-th set bit of `mask` counting from `base`
/// (forward for positive offsets, backward for negative), 0xFFFFFFFF if none.
pub fn fns(mask: u64, base: u64, offset: u64) -> u64 {
    let mask = mask as u32;
    let base = base as u32 as i32;
    let off = offset as u32 as i32;
    if off == 0 {
        return if (0..32).contains(&base) && (mask >> base) & 1 == 1 { base as u64 } else { 0xFFFF_FFFF };
    }
    let mut count = 0;
    if off > 0 {
        for i in base.max(0)..32 {
            if (mask >> i) & 1 == 1 {
                count += 1;
                if count == off {
                    return i as u64;
                }
            }
        }
    } else {
        for i in (0..=base.min(31)).rev() {
            if (mask >> i) & 1 == 1 {
                count += 1;
                if count == -off {
                    return i as u64;
                }
            }
        }
    }
    0xFFFF_FFFF
}

/// Byte-permute modes of `prmt`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PrmtMode {
    Default,
    F4e,
    B4e,
    Rc8,
    Ecl,
    Ecr,
    Rc16,
}

/// `prmt.b32{.mode} d, a, b, c`.
pub fn prmt(mode: PrmtMode, a: u64, b: u64, c: u64) -> u64 {
    let bytes: [u8; 8] = ((a as u32) as u64 | ((b as u32 as u64) << 32)).to_le_bytes();
    let sel = c as u32;
    let pick = |i: u32| bytes[(i & 7) as usize];
    let out: [u8; 4] = match mode {
        PrmtMode::Default => {
            let mut o = [0u8; 4];
            for (k, ob) in o.iter_mut().enumerate() {
                let s = (sel >> (4 * k)) & 0xF;
                let v = pick(s & 7);
                *ob = if s & 8 != 0 { if v & 0x80 != 0 { 0xFF } else { 0 } } else { v };
            }
            o
        }
        PrmtMode::F4e => {
            let s = sel & 3;
            [pick(s), pick(s + 1), pick(s + 2), pick(s + 3)]
        }
        PrmtMode::B4e => {
            let s = sel & 3;
            [pick(s), pick(s.wrapping_sub(1) & 7), pick(s.wrapping_sub(2) & 7), pick(s.wrapping_sub(3) & 7)]
        }
        PrmtMode::Rc8 => {
            let v = pick(sel & 3);
            [v, v, v, v]
        }
        PrmtMode::Ecl => {
            let s = sel & 3;
            [pick(s), pick(s.max(1)), pick(s.max(2)), pick(3)]
        }
        PrmtMode::Ecr => {
            let s = sel & 3;
            [pick(0), pick(s.min(1)), pick(s.min(2)), pick(s)]
        }
        PrmtMode::Rc16 => {
            let s = (sel & 1) * 2;
            [pick(s), pick(s + 1), pick(s), pick(s + 1)]
        }
    };
    u32::from_le_bytes(out) as u64
}

/// `lop3.b32 d, a, b, c, immLut`: bitwise truth table.
pub fn lop3(a: u64, b: u64, c: u64, lut: u64) -> u64 {
    // Every set entry i of the table contributes the minterm whose (a, b, c) bits spell i.
    let pick = |x: u64, on: bool| if on { x } else { !x };
    (0..8u64).fold(0, |r, i| r | pick(a, i & 4 != 0) & pick(b, i & 2 != 0) & pick(c, i & 1 != 0) & (lut >> i & 1).wrapping_neg()) & 0xFFFF_FFFF
}

/// `shl`: shift amounts ≥ the width give 0.
pub fn shl(ty: Ty, a: u64, s: u64) -> u64 {
    if s >= ty.bits() as u64 {
        0
    } else {
        trunc(ty, a << s)
    }
}

/// `shr`: arithmetic for signed types (amounts ≥ width fill with the sign), logical otherwise.
pub fn shr(ty: Ty, a: u64, s: u64) -> u64 {
    let s = s.min(u32::MAX as u64) as u32;
    if ty.is_signed() {
        trunc(ty, (sx(ty, a) >> s.min(ty.bits() - 1)) as u64)
    } else if s >= ty.bits() {
        0
    } else {
        trunc(ty, a) >> s
    }
}

/// `shf.{l,r}.{wrap,clamp}.b32 d, a, b, c`: funnel shift of the 64-bit `b:a` by `c`.
pub fn shf(left: bool, wrap: bool, a: u64, b: u64, c: u64) -> u64 {
    let n = if wrap { (c as u32) & 31 } else { (c as u32).min(32) };
    let x = ((b as u32 as u64) << 32) | (a as u32 as u64);
    if left {
        ((x << n) >> 32) as u32 as u64
    } else {
        (x >> n) as u32 as u64
    }
}

/// `dp4a.atype.btype d, a, b, c`: four 8-bit products summed into `c` (32-bit).
pub fn dp4a(a_signed: bool, b_signed: bool, a: u64, b: u64, c: u64) -> u64 {
    let mut acc = c as u32 as i64;
    for i in 0..4 {
        let x = ((a >> (8 * i)) & 0xFF) as u8;
        let y = ((b >> (8 * i)) & 0xFF) as u8;
        let x = if a_signed { x as i8 as i64 } else { x as i64 };
        let y = if b_signed { y as i8 as i64 } else { y as i64 };
        acc += x * y;
    }
    acc as u32 as u64
}

/// `dp2a.{lo,hi}.atype.btype d, a, b, c`: two 16-bit × 8-bit products (bytes 0–1 or 2–3 of `b`).
pub fn dp2a(hi: bool, a_signed: bool, b_signed: bool, a: u64, b: u64, c: u64) -> u64 {
    let mut acc = c as u32 as i64;
    let base = if hi { 2 } else { 0 };
    for i in 0..2 {
        let x = ((a >> (16 * i)) & 0xFFFF) as u16;
        let y = ((b >> (8 * (base + i))) & 0xFF) as u8;
        let x = if a_signed { x as i16 as i64 } else { x as i64 };
        let y = if b_signed { y as i8 as i64 } else { y as i64 };
        acc += x * y;
    }
    acc as u32 as u64
}

/// Add with carry in; returns (sum, carry out) for `add.cc`/`addc{.cc}`.
pub fn add_carry(ty: Ty, a: u64, b: u64, cin: bool) -> (u64, bool) {
    let w = ty.bits();
    let s = (trunc(ty, a) as u128) + (trunc(ty, b) as u128) + cin as u128;
    (trunc(ty, s as u64), (s >> w) & 1 == 1)
}

/// Subtract with borrow; returns (difference, carry out) where carry = no borrow, as PTX's
/// `sub.cc` defines CC.CF (a − b − !cf semantics follow the hardware: borrow sets CF=0).
pub fn sub_carry(ty: Ty, a: u64, b: u64, cin: bool) -> (u64, bool) {
    // a − b − borrow == a + !b + carry (two's complement), carry out is the add's carry.
    add_carry(ty, a, trunc(ty, !b), cin)
}

/// `bmsk.{clamp,wrap}.b32 d, a, b`: a mask of `b` ones starting at bit `a`.
pub fn bmsk(wrap: bool, a: u64, b: u64) -> u64 {
    let (mut pos, mut len) = (a as u32, b as u32);
    if wrap {
        pos &= 31;
        len &= 31;
    } else {
        pos = pos.min(32);
        len = len.min(32);
    }
    let end = (pos + len).min(32);
    let m = |k: u32| if k >= 32 { u32::MAX } else { (1u32 << k) - 1 };
    (m(end) & !m(pos)) as u64
}

/// `szext.{clamp,wrap}.{s32,u32} d, a, b`: sign/zero extend the low `b` bits of `a`.
pub fn szext(signed: bool, wrap: bool, a: u64, b: u64) -> u64 {
    let n = if wrap { (b as u32) & 31 } else { (b as u32).min(32) };
    let a = a as u32;
    if n == 0 {
        return 0;
    }
    if n >= 32 {
        return a as u64;
    }
    let v = a & ((1u32 << n) - 1);
    if signed && (v >> (n - 1)) & 1 == 1 {
        (v | !((1u32 << n) - 1)) as u64
    } else {
        v as u64
    }
}

/// Integer comparison for `setp`/`set`/`slct` (`lo/ls/hi/hs` are the unsigned forms).
#[inline]
pub fn compare(ty: Ty, cmp: crate::types::Cmp, a: u64, b: u64) -> bool {
    use crate::types::Cmp::*;
    let (sa, sb) = (sx(ty, a), sx(ty, b));
    let (ua, ub) = (trunc(ty, a), trunc(ty, b));
    let signed = ty.is_signed();
    match cmp {
        Eq | Equ => ua == ub,
        Ne | Neu => ua != ub,
        Lt | Ltu => {
            if signed {
                sa < sb
            } else {
                ua < ub
            }
        }
        Le | Leu => {
            if signed {
                sa <= sb
            } else {
                ua <= ub
            }
        }
        Gt | Gtu => {
            if signed {
                sa > sb
            } else {
                ua > ub
            }
        }
        Ge | Geu => {
            if signed {
                sa >= sb
            } else {
                ua >= ub
            }
        }
        Lo => ua < ub,
        Ls => ua <= ub,
        Hi => ua > ub,
        Hs => ua >= ub,
        Num => true,
        Nan => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn edge_cases() {
        assert_eq!(div(Ty::U32, 7, 0), 0xFFFF_FFFF);
        assert_eq!(div(Ty::S32, 0x8000_0000, 0xFFFF_FFFF), 0x8000_0000);
        assert_eq!(rem(Ty::S32, (-7i32) as u32 as u64, 2), (-1i32) as u32 as u64);
        assert_eq!(bfind(Ty::U32, 0, false), 0xFFFF_FFFF);
        assert_eq!(bfind(Ty::S32, (-1i32) as u32 as u64, false), 0xFFFF_FFFF);
        assert_eq!(bfind(Ty::U32, 0x10, true), 27);
        assert_eq!(clz(Ty::B32, 1), 31);
        assert_eq!(clz(Ty::B64, 0), 64);
        assert_eq!(brev(Ty::B32, 1), 0x8000_0000);
        assert_eq!(bfe(Ty::S32, 0xF0, 4, 4), 0xFFFF_FFFF);
        assert_eq!(bfe(Ty::U32, 0xF0, 4, 4), 0xF);
        assert_eq!(bfe(Ty::U32, 0xF0, 40, 4), 0);
        assert_eq!(bfi(Ty::B32, 0xF, 0, 28, 8), 0xF000_0000);
        assert_eq!(shl(Ty::B32, 1, 32), 0);
        assert_eq!(shr(Ty::S32, 0x8000_0000, 40), 0xFFFF_FFFF);
        assert_eq!(shr(Ty::U32, 0x8000_0000, 31), 1);
        assert_eq!(shf(true, false, 0x8000_0000, 0, 1), 1);
        assert_eq!(shf(false, true, 0, 1, 33), 0x8000_0000);
        assert_eq!(prmt(PrmtMode::Default, 0x4433_2211, 0x8877_6655, 0x3210), 0x4433_2211);
        assert_eq!(prmt(PrmtMode::Default, 0x4433_2211, 0x8877_6655, 0x0007), 0x1111_1188);
        assert_eq!(prmt(PrmtMode::Default, 0x0000_0080, 0, 0x0008), 0x8080_80FF);
        assert_eq!(lop3(0xF0, 0xCC, 0xAA, 0x96), 0xF0 ^ 0xCC ^ 0xAA);
        assert_eq!(fns(0b1011_0000, 0, 2), 5);
        assert_eq!(fns(0b1011_0000, 7, (-2i32) as u32 as u64), 5);
        assert_eq!(dp4a(true, true, 0xFF01_0203, 0x0102_0304, 10), (10 + 3 * 4 + 2 * 3 + 1 * 2 - 1) as u64);
        assert_eq!(add(Ty::S32, 0x7FFF_FFFF, 1, true), 0x7FFF_FFFF);
        assert_eq!(add_carry(Ty::U32, 0xFFFF_FFFF, 1, false), (0, true));
        assert_eq!(sub_carry(Ty::U32, 0, 1, true), (0xFFFF_FFFF, false));
        assert_eq!(mul24(Ty::U32, false, 0x100_0001, 2), 2);
        assert_eq!(bmsk(false, 4, 8), 0xFF0);
        assert_eq!(szext(true, false, 0xF, 4), 0xFFFF_FFFF);
        assert_eq!(mad(Ty::S32, Part::Hi, 0x7FFF_FFFF, 0x7FFF_FFFF, 0x7FFF_FFFF, true), 0x7FFF_FFFF);
    }

    proptest! {
        #[test]
        fn mul_parts_match_i128(a: i32, b: i32, c: i64) {
            let (ua, ub) = (a as u32 as u64, b as u32 as u64);
            let p = a as i64 * b as i64;
            prop_assert_eq!(mul(Ty::S32, Part::Lo, ua, ub), p as u32 as u64);
            prop_assert_eq!(mul(Ty::S32, Part::Hi, ua, ub), (p >> 32) as u32 as u64);
            prop_assert_eq!(mul(Ty::S32, Part::Wide, ua, ub), p as u64);
            prop_assert_eq!(mad(Ty::S32, Part::Wide, ua, ub, c as u64, false), p.wrapping_add(c) as u64);
            let up = a as u32 as u64 * b as u32 as u64;
            prop_assert_eq!(mul(Ty::U32, Part::Hi, ua, ub), up >> 32);
        }

        #[test]
        fn div_rem_identity(a: i32, b: i32) {
            prop_assume!(b != 0);
            let (ua, ub) = (a as u32 as u64, b as u32 as u64);
            let q = div(Ty::S32, ua, ub) as u32 as i32;
            let r = rem(Ty::S32, ua, ub) as u32 as i32;
            prop_assert_eq!(q.wrapping_mul(b).wrapping_add(r), a);
            prop_assert_eq!(div(Ty::U32, ua, ub), (a as u32 / b as u32) as u64);
            prop_assert_eq!(rem(Ty::U64, a as u64, b as u64), a as u64 % b as u64);
        }

        #[test]
        fn bit_ops_match_std(a: u64, s in 0u64..80) {
            prop_assert_eq!(popc(Ty::B64, a), a.count_ones() as u64);
            prop_assert_eq!(clz(Ty::B32, a), (a as u32).leading_zeros() as u64);
            prop_assert_eq!(brev(Ty::B64, a), a.reverse_bits());
            prop_assert_eq!(shl(Ty::B32, a, s), if s < 32 { ((a as u32) << s) as u64 } else { 0 });
            prop_assert_eq!(shr(Ty::S64, a, s), ((a as i64) >> s.min(63)) as u64);
            prop_assert_eq!(shr(Ty::U16, a, s), if s < 16 { ((a as u16) >> s) as u64 } else { 0 });
        }

        #[test]
        fn bfe_bfi_roundtrip(a: u32, b: u32, pos in 0u64..32, len in 0u64..33) {
            let len = len.min(32 - pos);
            let ins = bfi(Ty::B32, a as u64, b as u64, pos, len);
            prop_assert_eq!(bfe(Ty::U32, ins, pos, len), if len == 0 { 0 } else { (a as u64) & ((1u64 << len) - 1) });
        }

        #[test]
        fn minmax_and_compare(a: i16, b: i16) {
            let (ua, ub) = (a as u16 as u64, b as u16 as u64);
            prop_assert_eq!(minmax(Ty::S16, true, ua, ub, false), a.max(b) as u16 as u64);
            prop_assert_eq!(minmax(Ty::U16, false, ua, ub, false), (a as u16).min(b as u16) as u64);
            prop_assert_eq!(compare(Ty::S16, crate::types::Cmp::Lt, ua, ub), a < b);
            prop_assert_eq!(compare(Ty::U16, crate::types::Cmp::Lt, ua, ub), (a as u16) < (b as u16));
            prop_assert_eq!(sad(Ty::S16, ua, ub, 0), (a as i32 - b as i32).unsigned_abs() as u16 as u64);
        }

        #[test]
        fn lop3_looks_up_each_bit_in_the_table(a: u64, b: u64, c: u64, lut: u8) {
            // The definition, bit by bit: bit i of the result is the table's entry at a_i b_i c_i
            // (the upper halves of the 64-bit sources are not read).
            let mut want = 0u64;
            for i in 0..32 {
                let idx = (((a >> i) & 1) << 2) | (((b >> i) & 1) << 1) | ((c >> i) & 1);
                want |= ((lut as u64 >> idx) & 1) << i;
            }
            prop_assert_eq!(lop3(a, b, c, lut as u64), want);
        }

        #[test]
        fn carries_chain_to_128_bit_add(a: u128, b: u128) {
            let (lo, c) = add_carry(Ty::U64, a as u64, b as u64, false);
            let (hi, _) = add_carry(Ty::U64, (a >> 64) as u64, (b >> 64) as u64, c);
            prop_assert_eq!(((hi as u128) << 64) | lo as u128, a.wrapping_add(b));
            let (lo, c) = sub_carry(Ty::U64, a as u64, b as u64, true);
            let (hi, _) = sub_carry(Ty::U64, (a >> 64) as u64, (b >> 64) as u64, c);
            prop_assert_eq!(((hi as u128) << 64) | lo as u128, a.wrapping_sub(b));
        }
    }
}
