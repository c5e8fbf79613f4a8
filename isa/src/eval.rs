//! Per-lane evaluation of ALU instructions: a decoded [`Inst`] plus its source values → results.
//!
//! The simulator reads sources (registers, immediates, special registers, symbol addresses) and
//! calls [`eval`] per active lane; everything arithmetic, logical, comparing, selecting and
//! converting lives here, dispatching to [`crate::int`] and [`crate::fp`]. Memory, control,
//! synchronization and warp-collective instructions are the simulator's. Forms that decode but
//! have no meaning (e.g. `div.f16`) are reported as errors naming the form.

use crate::fp::{self, cvt, CmpOp, IntRounding, Rounding, TestOp};
use crate::inst::{flag, Inst, Op};
use crate::machine::{self, MachineOp};
use crate::int::{self, Part, PrmtMode};
use crate::types::{BoolOp, Cmp, Rnd, Ty};

/// Results of one lane: the value, a second value (the `q` predicate of `setp p|q`, the carry
/// out of `.cc` forms) .
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Out {
    pub v: u64,
    pub v2: u64,
    /// A third result: the second carry predicate of SASS `IADD3`.
    pub v3: u64,
    pub carry: bool,
}

impl Out {
    fn v(v: u64) -> Out {
        Out { v, ..Out::default() }
    }
}

/// An instruction form with no defined meaning.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unsupported instruction form: {0}")]
pub struct Unsupported(pub String);

fn unsupported(inst: &Inst) -> Unsupported {
    let tys: Vec<&str> = inst.m.types.iter().map(|t| t.name()).collect();
    Unsupported(format!("{}.{}", crate::decode::op_name(inst.op), tys.join(".")))
}

fn rounding(r: Option<Rnd>) -> Rounding {
    match r {
        Some(Rnd::Rz) | Some(Rnd::Rzi) => Rounding::Rz,
        Some(Rnd::Rm) | Some(Rnd::Rmi) => Rounding::Rm,
        Some(Rnd::Rp) | Some(Rnd::Rpi) => Rounding::Rp,
        Some(Rnd::Rna) => Rounding::Rna,
        _ => Rounding::Rn,
    }
}

fn int_rounding(r: Option<Rnd>) -> IntRounding {
    match r {
        Some(Rnd::Rni) | Some(Rnd::Rn) => IntRounding::Rni,
        Some(Rnd::Rmi) | Some(Rnd::Rm) => IntRounding::Rmi,
        Some(Rnd::Rpi) | Some(Rnd::Rp) => IntRounding::Rpi,
        _ => IntRounding::Rzi,
    }
}

/// The float comparison of a PTX comparison operator (unsigned-integer forms as their ordered one).
pub fn fcmp(c: Cmp) -> CmpOp {
    match c {
        Cmp::Eq => CmpOp::Eq,
        Cmp::Ne => CmpOp::Ne,
        Cmp::Lt | Cmp::Lo => CmpOp::Lt,
        Cmp::Le | Cmp::Ls => CmpOp::Le,
        Cmp::Gt | Cmp::Hi => CmpOp::Gt,
        Cmp::Ge | Cmp::Hs => CmpOp::Ge,
        Cmp::Equ => CmpOp::Equ,
        Cmp::Neu => CmpOp::Neu,
        Cmp::Ltu => CmpOp::Ltu,
        Cmp::Leu => CmpOp::Leu,
        Cmp::Gtu => CmpOp::Gtu,
        Cmp::Geu => CmpOp::Geu,
        Cmp::Num => CmpOp::Num,
        Cmp::Nan => CmpOp::Nan,
    }
}

fn float_type(t: Ty) -> Option<cvt::FloatType> {
    Some(match t {
        Ty::F16 => cvt::FloatType::F16,
        Ty::Bf16 => cvt::FloatType::Bf16,
        Ty::F32 => cvt::FloatType::F32,
        Ty::F64 => cvt::FloatType::F64,
        Ty::Tf32 => cvt::FloatType::Tf32,
        Ty::E4m3 => cvt::FloatType::E4m3,
        Ty::E5m2 => cvt::FloatType::E5m2,
        _ => return None,
    })
}

fn int_type(t: Ty) -> Option<cvt::IntType> {
    Some(match t {
        Ty::U8 | Ty::B8 => cvt::IntType::U8,
        Ty::U16 | Ty::B16 => cvt::IntType::U16,
        Ty::U32 | Ty::B32 => cvt::IntType::U32,
        Ty::U64 | Ty::B64 => cvt::IntType::U64,
        Ty::S8 => cvt::IntType::S8,
        Ty::S16 => cvt::IntType::S16,
        Ty::S32 => cvt::IntType::S32,
        Ty::S64 => cvt::IntType::S64,
        _ => return None,
    })
}

/// A float comparison of two values of type `t` (ftz honoured).
fn float_cmp(t: Ty, c: Cmp, a: u64, b: u64, ftz: bool) -> Option<bool> {
    let op = fcmp(c);
    Some(match t {
        Ty::F32 => fp::f32::setp(op, a as u32, b as u32, ftz),
        Ty::F64 => fp::f64::setp(op, a, b, ftz),
        Ty::F16 => fp::f16::setp(op, a as u16, b as u16, ftz),
        Ty::Bf16 => fp::bf16::setp(op, a as u16, b as u16, ftz),
        _ => return None,
    })
}

fn compare(inst: &Inst, t: Ty, a: u64, b: u64) -> Option<bool> {
    let c = inst.m.cmp?;
    if t.is_float() {
        float_cmp(t, c, a, b, inst.m.has(flag::FTZ))
    } else {
        Some(int::compare(t, c, a, b))
    }
}

/// A comparison's result `x` combined with the predicate `c` by `setp`'s boolean operator.
pub fn combine(op: Option<BoolOp>, x: bool, c: bool) -> bool {
    match op {
        None => x,
        Some(BoolOp::And) => x && c,
        Some(BoolOp::Or) => x || c,
        Some(BoolOp::Xor) => x ^ c,
    }
}

/// Applies a binary float operation of any float type (scalar or packed).
macro_rules! float_dispatch {
    ($t:expr, $f:ident, [$($v:expr),*], ($($arg:expr),*), $inst:expr) => {
        match $t {
            Ty::F32 => fp::f32::$f($($v as u32,)* $($arg),*) as u64,
            Ty::F64 => fp::f64::$f($($v,)* $($arg),*),
            Ty::F16 => fp::f16::$f($($v as u16,)* $($arg),*) as u64,
            Ty::Bf16 => fp::bf16::$f($($v as u16,)* $($arg),*) as u64,
            Ty::F16x2 => fp::f16x2::$f($($v as u32,)* $($arg),*) as u64,
            Ty::Bf16x2 => fp::bf16x2::$f($($v as u32,)* $($arg),*) as u64,
            _ => return Err(unsupported($inst)),
        }
    };
}

fn prmt_mode(n: u8) -> PrmtMode {
    match n {
        1 => PrmtMode::F4e,
        2 => PrmtMode::B4e,
        3 => PrmtMode::Rc8,
        4 => PrmtMode::Ecl,
        5 => PrmtMode::Ecr,
        6 => PrmtMode::Rc16,
        _ => PrmtMode::Default,
    }
}

fn part(inst: &Inst) -> Part {
    if inst.m.has(flag::WIDE) {
        Part::Wide
    } else if inst.m.has(flag::HI) {
        Part::Hi
    } else {
        Part::Lo
    }
}

/// Evaluates an ALU instruction for one lane. `s` holds the source operands in order (after the
/// destinations; PTX instructions have at most four, SASS ones six); `carry` is the lane's CC.CF
/// flag.
pub fn eval(inst: &Inst, s: &[u64; 6], carry: bool) -> Result<Out, Unsupported> {
    let m = &inst.m;
    if m.neg | m.not | m.abs != 0 && !matches!(inst.op, Op::Machine(MachineOp::Iadd3 { .. })) {
        return eval_modified(inst, &machine::apply_operand_mods(inst, s), carry);
    }
    eval_modified(inst, s, carry)
}

/// [`eval`] on sources whose operand modifiers are already applied (as a caller looping over
/// lanes does column by column with [`machine::modify_operand`]).
pub fn eval_modified(inst: &Inst, s: &[u64; 6], carry: bool) -> Result<Out, Unsupported> {
    let m = &inst.m;
    if let Op::Machine(op) = inst.op {
        let (v, v2, v3) = machine::eval(op, inst, s);
        return Ok(Out { v, v2, v3, carry: false });
    }
    let t = m.ty();
    let (a, b, c) = (s[0], s[1], s[2]);
    let ftz = m.has(flag::FTZ);
    let sat = m.has(flag::SAT);
    let rnd = rounding(m.rnd);
    let f = t.is_float();
    let v = match inst.op {
        Op::Add | Op::Sub if !f => {
            if m.has(flag::CC) {
                let (v, co) = if inst.op == Op::Add { int::add_carry(t, a, b, false) } else { int::sub_carry(t, a, b, true) };
                return Ok(Out { v, carry: co, ..Out::default() });
            }
            if inst.op == Op::Add {
                int::add(t, a, b, sat)
            } else {
                int::sub(t, a, b, sat)
            }
        }
        Op::Addc | Op::Subc => {
            let (v, co) = if inst.op == Op::Addc { int::add_carry(t, a, b, carry) } else { int::sub_carry(t, a, b, carry) };
            return Ok(Out { v, carry: if m.has(flag::CC) { co } else { carry }, ..Out::default() });
        }
        Op::Add => float_dispatch!(t, add, [a, b], (rnd, ftz, sat), inst),
        Op::Sub => float_dispatch!(t, sub, [a, b], (rnd, ftz, sat), inst),
        Op::Mul if f => float_dispatch!(t, mul, [a, b], (rnd, ftz, sat), inst),
        Op::Mul => int::mul(t, part(inst), a, b),
        Op::Mad | Op::Fma if f => float_dispatch!(t, fma, [a, b, c], (rnd, ftz, sat), inst),
        Op::Mad if m.has(flag::CC) => {
            let p = int::mul(t, part(inst), a, b);
            let (v, co) = int::add_carry(if part(inst) == Part::Wide { Ty::U64 } else { t }, p, c, false);
            return Ok(Out { v, carry: co, ..Out::default() });
        }
        Op::Mad => int::mad(t, part(inst), a, b, c, sat),
        Op::Madc => {
            let p = int::mul(t, part(inst), a, b);
            let (v, co) = int::add_carry(if part(inst) == Part::Wide { Ty::U64 } else { t }, p, c, carry);
            return Ok(Out { v, carry: if m.has(flag::CC) { co } else { carry }, ..Out::default() });
        }
        Op::Mul24 => int::mul24(t, m.has(flag::HI), a, b),
        Op::Mad24 => int::add(Ty::B32, int::mul24(t, m.has(flag::HI), a, b), c, false),
        Op::Sad => int::sad(t, a, b, c),
        Op::Div if f => match t {
            Ty::F32 if m.has(flag::APPROX) => fp::approx::div_f32(a as u32, b as u32, ftz) as u64,
            Ty::F32 if m.has(flag::FULL) => fp::approx::div_full_f32(a as u32, b as u32, ftz) as u64,
            Ty::F32 => fp::f32::div(a as u32, b as u32, rnd, ftz) as u64,
            Ty::F64 => fp::f64::div(a, b, rnd, ftz),
            _ => return Err(unsupported(inst)),
        },
        Op::Div => int::div(t, a, b),
        Op::Rem => int::rem(t, a, b),
        Op::Abs if f => float_dispatch!(t, abs, [a], (ftz), inst),
        Op::Abs => int::abs(t, a),
        Op::Neg if f => float_dispatch!(t, neg, [a], (ftz), inst),
        Op::Neg => int::neg(t, a),
        Op::Min if f => float_dispatch!(t, min, [a, b], (ftz, m.has(flag::NAN)), inst),
        Op::Max if f => float_dispatch!(t, max, [a, b], (ftz, m.has(flag::NAN)), inst),
        Op::Min | Op::Max if matches!(t, Ty::U16x2 | Ty::S16x2) => {
            let ht = if t == Ty::S16x2 { Ty::S16 } else { Ty::U16 };
            let lo = int::minmax(ht, inst.op == Op::Max, a & 0xFFFF, b & 0xFFFF, m.has(flag::RELU));
            let hi = int::minmax(ht, inst.op == Op::Max, (a >> 16) & 0xFFFF, (b >> 16) & 0xFFFF, m.has(flag::RELU));
            lo | hi << 16
        }
        Op::Min | Op::Max => int::minmax(t, inst.op == Op::Max, a, b, m.has(flag::RELU)),
        Op::Video(v) => video(inst, v, a, b, c),
        Op::Popc => int::popc(t, a),
        Op::Clz => int::clz(t, a),
        Op::Bfind => int::bfind(t, a, m.has(flag::SHIFTAMT)),
        Op::Brev => int::brev(t, a),
        Op::Bfe => int::bfe(t, a, b, c),
        Op::Bfi => int::bfi(t, a, b, c, s[3]),
        Op::Fns => int::fns(a, b, c),
        Op::Prmt => int::prmt(prmt_mode(m.num), a, b, c),
        Op::Lop3 => int::lop3(a, b, c, s[3]),
        Op::And if t == Ty::Pred => ((a != 0) && (b != 0)) as u64,
        Op::Or if t == Ty::Pred => ((a != 0) || (b != 0)) as u64,
        Op::Xor if t == Ty::Pred => ((a != 0) ^ (b != 0)) as u64,
        Op::Not if t == Ty::Pred => (a == 0) as u64,
        Op::And => a & b & t.mask(),
        Op::Or => (a | b) & t.mask(),
        Op::Xor => (a ^ b) & t.mask(),
        Op::Not => !a & t.mask(),
        Op::Cnot => (a & t.mask() == 0) as u64,
        Op::Shl => int::shl(t, a, b),
        Op::Shr => int::shr(t, a, b),
        Op::Shf => int::shf(m.has(flag::LEFT), m.has(flag::WRAP), a, b, c),
        Op::Dp4a => int::dp4a(m.ty().is_signed(), m.ty2().is_signed(), a, b, c),
        Op::Dp2a => int::dp2a(m.has(flag::HI), m.ty().is_signed(), m.ty2().is_signed(), a, b, c),
        Op::Bmsk => int::bmsk(m.has(flag::WRAP), a, b),
        Op::Szext => int::szext(t.is_signed(), m.has(flag::WRAP), a, b),
        Op::Rcp => match t {
            Ty::F32 if m.has(flag::APPROX) => fp::approx::rcp_f32(a as u32, ftz) as u64,
            Ty::F32 => fp::f32::rcp(a as u32, rnd, ftz) as u64,
            Ty::F64 if m.has(flag::APPROX) => fp::approx::rcp_ftz_f64(a),
            Ty::F64 => fp::f64::rcp(a, rnd, ftz),
            _ => return Err(unsupported(inst)),
        },
        Op::Sqrt => match t {
            Ty::F32 if m.has(flag::APPROX) => fp::approx::sqrt_f32(a as u32, ftz) as u64,
            Ty::F32 => fp::f32::sqrt(a as u32, rnd, ftz) as u64,
            Ty::F64 => fp::f64::sqrt(a, rnd, ftz),
            _ => return Err(unsupported(inst)),
        },
        Op::Rsqrt => match t {
            Ty::F32 => fp::approx::rsqrt_f32(a as u32, ftz) as u64,
            Ty::F64 if ftz => fp::approx::rsqrt_ftz_f64(a),
            Ty::F64 => fp::approx::rsqrt_f64(a),
            _ => return Err(unsupported(inst)),
        },
        Op::Sin if t == Ty::F32 => fp::approx::sin_f32(a as u32, ftz) as u64,
        Op::Cos if t == Ty::F32 => fp::approx::cos_f32(a as u32, ftz) as u64,
        Op::Lg2 if t == Ty::F32 => fp::approx::lg2_f32(a as u32, ftz) as u64,
        Op::Ex2 => match t {
            Ty::F32 => fp::approx::ex2_f32(a as u32, ftz) as u64,
            Ty::F16 => fp::approx::ex2_f16(a as u16) as u64,
            Ty::Bf16 => fp::approx::ex2_ftz_bf16(a as u16) as u64,
            Ty::F16x2 => fp::approx::ex2_f16x2(a as u32) as u64,
            Ty::Bf16x2 => fp::approx::ex2_ftz_bf16x2(a as u32) as u64,
            _ => return Err(unsupported(inst)),
        },
        Op::Tanh => match t {
            Ty::F32 => fp::approx::tanh_f32(a as u32) as u64,
            Ty::F16 => fp::approx::tanh_f16(a as u16) as u64,
            Ty::Bf16 => fp::approx::tanh_bf16(a as u16) as u64,
            Ty::F16x2 => fp::approx::tanh_f16x2(a as u32) as u64,
            Ty::Bf16x2 => fp::approx::tanh_bf16x2(a as u32) as u64,
            _ => return Err(unsupported(inst)),
        },
        Op::Copysign => match t {
            Ty::F32 => fp::f32::copysign(a as u32, b as u32) as u64,
            Ty::F64 => fp::f64::copysign(a, b),
            _ => return Err(unsupported(inst)),
        },
        Op::Testp => {
            let op = [TestOp::Finite, TestOp::Infinite, TestOp::Number, TestOp::NotANumber, TestOp::Normal, TestOp::Subnormal]
                [m.num.min(5) as usize];
            (match t {
                Ty::F32 => fp::f32::testp(op, a as u32),
                Ty::F64 => fp::f64::testp(op, a),
                _ => return Err(unsupported(inst)),
            }) as u64
        }
        Op::Setp => {
            let x = compare(inst, t, a, b).ok_or_else(|| unsupported(inst))?;
            let cpred = c != 0;
            return Ok(Out { v: combine(m.bool_op, x, cpred) as u64, v2: combine(m.bool_op, !x, cpred) as u64, ..Out::default() });
        }
        Op::Set => {
            // set.cmp{.bool}.dtype.stype d, a, b{, c}
            let st = m.ty2();
            let x = combine(m.bool_op, compare(inst, st, a, b).ok_or_else(|| unsupported(inst))?, c != 0);
            match t {
                Ty::F32 => {
                    if x {
                        0x3F80_0000
                    } else {
                        0
                    }
                }
                _ => {
                    if x {
                        t.mask()
                    } else {
                        0
                    }
                }
            }
        }
        Op::Selp => {
            if c != 0 {
                a
            } else {
                b
            }
        }
        Op::Slct => {
            let ct = m.ty2();
            let take_a = if ct == Ty::F32 {
                // NaN selects b; -0.0 counts as >= 0.
                fp::f32::setp(CmpOp::Ge, c as u32, 0, ftz)
            } else {
                (c as u32 as i32) >= 0
            };
            if take_a {
                a
            } else {
                b
            }
        }
        Op::Mov => a,
        // `cvt.rn.f16x2.f32 d, a, b` (and bf16x2, e4m3x2, e5m2x2): two f32 into a packed pair.
        Op::Cvt if matches!(m.ty(), Ty::F16x2 | Ty::Bf16x2 | Ty::E4m3x2 | Ty::E5m2x2) && m.ty2() == Ty::F32 => cvt_pack(inst, a, b, c)?,
        Op::Cvt => cvt_value(inst, a)?,
        Op::CvtPack => cvt_pack(inst, a, b, c)?,
        _ => return Err(unsupported(inst)),
    };
    Ok(Out::v(v))
}

/// SIMD video instructions: `m.num` lanes of 8 (4 lanes), 16 (2) or 32 (1) bits; operand types
/// are `.dtype.atype.btype`. With `.add` the lane results are summed into `c`; otherwise they are
/// packed into the destination (the default `.b3210`/`.h10` mask; operand selectors and other
/// masks are not supported by the parser's operand syntax).
fn video(inst: &Inst, v: crate::inst::VideoOp, a: u64, b: u64, c: u64) -> u64 {
    use crate::inst::VideoOp as V;
    let m = &inst.m;
    let n = m.num.max(1) as u32;
    let bits = 32 / n;
    let (dt, at, bt) = (m.ty(), m.ty2(), m.types.get(2).copied().unwrap_or(m.ty2()));
    let lane = |x: u64, i: u32, signed: bool| -> i64 {
        let raw = (x >> (i * bits)) & ((1u64 << bits) - 1);
        if signed && bits < 64 && raw >> (bits - 1) & 1 == 1 {
            raw as i64 - (1i64 << bits)
        } else {
            raw as i64
        }
    };
    let (lo, hi) = if dt.is_signed() { (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1) } else { (0, (1i64 << bits) - 1) };
    let mut packed = 0u64;
    let mut sum = c as u32 as i64;
    for i in 0..n {
        let (x, y) = (lane(a, i, at.is_signed()), lane(b, i, bt.is_signed()));
        let r = match v {
            V::Add => x + y,
            V::Sub => x - y,
            V::Absdiff => (x - y).abs(),
            V::Min => x.min(y),
            V::Max => x.max(y),
            V::Avrg => (x + y + 1) >> 1,
        };
        let r = if m.has(flag::SAT) { r.clamp(lo, hi) } else { r };
        sum += r;
        packed |= ((r as u64) & ((1u64 << bits) - 1)) << (i * bits);
    }
    if m.has(flag::VIDEO_ADD) {
        sum as u32 as u64
    } else {
        packed
    }
}

fn float_mods(inst: &Inst) -> cvt::FloatMods {
    cvt::FloatMods {
        ftz: inst.m.has(flag::FTZ),
        sat: inst.m.has(flag::SAT),
        satfinite: inst.m.has(flag::SATFINITE),
        relu: inst.m.has(flag::RELU),
    }
}

/// `cvt` of one source value (destination type first, source type second).
fn cvt_value(inst: &Inst, a: u64) -> Result<u64, Unsupported> {
    let m = &inst.m;
    let (dt, st) = (m.ty(), m.ty2());
    let fm = float_mods(inst);
    let packed = |t: Ty| match t {
        Ty::E4m3x2 => Some(cvt::Fp8::E4m3),
        Ty::E5m2x2 => Some(cvt::Fp8::E5m2),
        _ => None,
    };
    match (float_type(dt), float_type(st), int_type(dt), int_type(st)) {
        (Some(d), Some(s), _, _) => Ok(match m.rnd {
            Some(Rnd::Rni | Rnd::Rzi | Rnd::Rmi | Rnd::Rpi) if d == s => cvt::f2f_integral(d, a, int_rounding(m.rnd), fm.ftz, fm.sat),
            _ => cvt::f2f(s, d, a, rounding(m.rnd), fm),
        }),
        (None, Some(s), Some(d), _) => Ok(extend(cvt::f2i(s, d, a, int_rounding(m.rnd), fm.ftz), dt)),
        (Some(d), None, _, Some(s)) => Ok(cvt::i2f(s, d, a, rounding(m.rnd), fm)),
        (None, None, Some(d), Some(s)) => Ok(extend(cvt::i2i(s, d, a, fm.sat), dt)),
        _ => match (dt, st) {
            (Ty::F16x2, s) if packed(s).is_some() => Ok(cvt::f16x2_from_f8x2(packed(s).unwrap_or(cvt::Fp8::E4m3), a as u16, fm.relu) as u64),
            (d, Ty::F16x2) if packed(d).is_some() => Ok(cvt::f8x2_from_f16x2(packed(d).unwrap_or(cvt::Fp8::E4m3), a as u32, fm.relu) as u64),
            _ => Err(unsupported(inst)),
        },
    }
}

/// An integer `cvt` result of type `dt`: an 8- or 16-bit signed one sign-extended to 32 bits
/// (the register write keeps the register's width), as the H200 writes `cvt.rni.s8.f32` into a
/// 32-bit register (0xffffff80 for -128; oracle) and `F2I.S8` does.
fn extend(v: u64, dt: Ty) -> u64 {
    let w = dt.bits();
    if dt.is_signed() && w < 32 {
        (((v << (64 - w)) as i64 >> (64 - w)) as u64) & 0xFFFF_FFFF
    } else {
        v & dt.mask()
    }
}

/// Two-source `cvt` into a packed pair (`cvt.rn.f16x2.f32 d, a, b`: `a` in the upper half), and
/// `cvt.pack.sat`.
fn cvt_pack(inst: &Inst, a: u64, b: u64, c: u64) -> Result<u64, Unsupported> {
    let m = &inst.m;
    if inst.op == Op::CvtPack {
        // cvt.pack.sat.{u8,s8,u16,s16}.s32.b32 d, a, b, c: a, b saturated to the narrow type and
        // packed into the low half, c's low half shifted up.
        let dt = m.ty();
        let w = dt.bits();
        let sat = |x: u64| {
            let x = x as u32 as i32 as i64;
            let (lo, hi) = if dt.is_signed() { (-(1i64 << (w - 1)), (1i64 << (w - 1)) - 1) } else { (0, (1i64 << w) - 1) };
            (x.clamp(lo, hi) as u64) & dt.mask()
        };
        let packed = (sat(a) << w) | sat(b);
        return Ok(((c << (2 * w)) | packed) & 0xFFFF_FFFF);
    }
    let dst = match m.ty() {
        Ty::F16x2 => cvt::PackedType::F16x2,
        Ty::Bf16x2 => cvt::PackedType::Bf16x2,
        Ty::E4m3x2 => cvt::PackedType::E4m3x2,
        Ty::E5m2x2 => cvt::PackedType::E5m2x2,
        _ => return Err(unsupported(inst)),
    };
    Ok(cvt::pack2_f32(dst, a as u32, b as u32, rounding(m.rnd), float_mods(inst)) as u64)
}

/// The new memory value of an atomic read-modify-write (`atom`, `red`): `old` is the memory
/// value, `b` the operand, `c` the swap value of `cas`. Float `add` rounds to nearest; f32 adds
/// flush subnormals as PTX specifies for `atom.add.f32`, f16/bf16 adds honour `.noftz`.
pub fn atom(op: crate::inst::AtomOp, ty: Ty, old: u64, b: u64, c: u64, noftz: bool) -> Result<u64, Unsupported> {
    use crate::inst::AtomOp as A;
    let m = ty.mask();
    let bad = || Unsupported(format!("atom.{op:?}.{}", ty.name()).to_lowercase());
    Ok(match op {
        A::Add => match ty {
            Ty::F32 => fp::f32::add(old as u32, b as u32, Rounding::Rn, true, false) as u64,
            Ty::F64 => fp::f64::add(old, b, Rounding::Rn, false, false),
            Ty::F16 => fp::f16::add(old as u16, b as u16, Rounding::Rn, !noftz, false) as u64,
            Ty::Bf16 => fp::bf16::add(old as u16, b as u16, Rounding::Rn, false, false) as u64,
            Ty::F16x2 => fp::f16x2::add(old as u32, b as u32, Rounding::Rn, !noftz, false) as u64,
            Ty::Bf16x2 => fp::bf16x2::add(old as u32, b as u32, Rounding::Rn, false, false) as u64,
            _ => old.wrapping_add(b) & m,
        },
        A::Min | A::Max if ty.is_float() => match ty {
            Ty::F32 => (if op == A::Max { fp::f32::max } else { fp::f32::min })(old as u32, b as u32, false, false) as u64,
            Ty::F64 => (if op == A::Max { fp::f64::max } else { fp::f64::min })(old, b, false, false),
            Ty::F16 => (if op == A::Max { fp::f16::max } else { fp::f16::min })(old as u16, b as u16, false, false) as u64,
            Ty::Bf16 => (if op == A::Max { fp::bf16::max } else { fp::bf16::min })(old as u16, b as u16, false, false) as u64,
            Ty::F16x2 => (if op == A::Max { fp::f16x2::max } else { fp::f16x2::min })(old as u32, b as u32, false, false) as u64,
            Ty::Bf16x2 => (if op == A::Max { fp::bf16x2::max } else { fp::bf16x2::min })(old as u32, b as u32, false, false) as u64,
            _ => return Err(bad()),
        },
        A::Min | A::Max => int::minmax(ty, op == A::Max, old, b, false),
        A::Inc => {
            let (o, b) = (old & m, b & m);
            if o >= b {
                0
            } else {
                o + 1
            }
        }
        A::Dec => {
            let (o, b) = (old & m, b & m);
            if o == 0 || o > b {
                b
            } else {
                o - 1
            }
        }
        A::And => old & b & m,
        A::Or => (old | b) & m,
        A::Xor => (old ^ b) & m,
        A::Exch => b & m,
        A::Cas | A::CasFlag => {
            if old & m == b & m {
                c & m
            } else {
                old & m
            }
        }
    })
}

/// Whether `eval` handles this opcode (the rest is executed by the simulator).
pub fn is_alu(op: Op) -> bool {
    matches!(
        op,
        Op::Add
            | Op::Sub
            | Op::Mul
            | Op::Mad
            | Op::Mul24
            | Op::Mad24
            | Op::Sad
            | Op::Div
            | Op::Rem
            | Op::Abs
            | Op::Neg
            | Op::Min
            | Op::Max
            | Op::Popc
            | Op::Clz
            | Op::Bfind
            | Op::Brev
            | Op::Bfe
            | Op::Bfi
            | Op::Fns
            | Op::Prmt
            | Op::Lop3
            | Op::And
            | Op::Or
            | Op::Xor
            | Op::Not
            | Op::Cnot
            | Op::Shl
            | Op::Shr
            | Op::Shf
            | Op::Dp4a
            | Op::Dp2a
            | Op::Addc
            | Op::Subc
            | Op::Madc
            | Op::Bmsk
            | Op::Szext
            | Op::Fma
            | Op::Rcp
            | Op::Sqrt
            | Op::Rsqrt
            | Op::Sin
            | Op::Cos
            | Op::Lg2
            | Op::Ex2
            | Op::Tanh
            | Op::Copysign
            | Op::Testp
            | Op::Setp
            | Op::Set
            | Op::Selp
            | Op::Slct
            | Op::Cvt
            | Op::CvtPack
            | Op::Video(_)
            | Op::Machine(_)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lower::load;

    /// Lowers a one-instruction kernel body and returns the instruction.
    fn inst(text: &str) -> Inst {
        let src = format!(
            ".version 9.0\n.target sm_90\n.entry k()\n{{\n.reg .pred %p<4>;\n.reg .b16 %h<4>;\n.reg .b32 %r<8>;\n.reg .f32 %f<8>;\n.reg .b64 %rd<8>;\n.reg .f64 %fd<8>;\n{text}\n}}\n"
        );
        load(&src, "t.ptx").unwrap().remove(0).insts.remove(0)
    }

    fn run(text: &str, s: [u64; 4]) -> u64 {
        eval(&inst(text), &[s[0], s[1], s[2], s[3], 0, 0], false).unwrap().v
    }

    #[test]
    fn arithmetic_dispatch() {
        assert_eq!(run("add.s32 %r1, %r2, %r3;", [5, (-7i32) as u32 as u64, 0, 0]), (-2i32) as u32 as u64);
        assert_eq!(run("add.rn.f32 %f1, %f2, %f3;", [1.5f32.to_bits() as u64, 2.25f32.to_bits() as u64, 0, 0]), 3.75f32.to_bits() as u64);
        assert_eq!(run("mul.wide.u32 %rd1, %r2, %r3;", [0xFFFF_FFFF, 2, 0, 0]), 0x1_FFFF_FFFE);
        assert_eq!(run("fma.rn.f64 %fd1, %fd2, %fd3, %fd4;", [2f64.to_bits(), 3f64.to_bits(), 1f64.to_bits(), 0]), 7f64.to_bits());
        assert_eq!(run("div.rn.f32 %f1, %f2, %f3;", [1f32.to_bits() as u64, 3f32.to_bits() as u64, 0, 0]), (1f32 / 3f32).to_bits() as u64);
        assert_eq!(run("cvt.rzi.s32.f32 %r1, %f2;", [(-2.7f32).to_bits() as u64, 0, 0, 0]), (-2i32) as u32 as u64);
        assert_eq!(run("cvt.rn.f32.s32 %f1, %r2;", [(-3i32) as u32 as u64, 0, 0, 0]), (-3f32).to_bits() as u64);
        // Two f32 into an f16x2 (b in the low half): cvt.rn.f16x2.f32 d, a, b.
        assert_eq!(run("cvt.rn.f16x2.f32 %r1, %f2, %f3;", [1f32.to_bits() as u64, 2f32.to_bits() as u64, 0, 0]), 0x3C00_4000);
        assert_eq!(run("cvt.u64.u32 %rd1, %r2;", [0xFFFF_FFFF, 0, 0, 0]), 0xFFFF_FFFF);
        assert_eq!(run("cvt.s64.s32 %rd1, %r2;", [0xFFFF_FFFF, 0, 0, 0]), u64::MAX);
        assert_eq!(run("cvt.u32.u64 %r1, %rd2;", [0x1_0000_0005, 0, 0, 0]), 5);
        assert_eq!(run("selp.b32 %r1, %r2, %r3, %p1;", [1, 2, 0, 0]), 2);
        assert_eq!(run("shr.s32 %r1, %r2, %r3;", [0x8000_0000, 4, 0, 0]), 0xF800_0000);
        assert_eq!(run("and.pred %p1, %p2, %p3;", [1, 0, 0, 0]), 0);
    }

    #[test]
    fn setp_pairs_and_combining() {
        let i = inst("setp.lt.and.s32 %p1|%p2, %r1, %r2, %p3;");
        let o = eval(&i, &[1, 2, 1, 0, 0, 0], false).unwrap();
        assert_eq!((o.v, o.v2), (1, 0));
        let o = eval(&i, &[3, 2, 1, 0, 0, 0], false).unwrap();
        assert_eq!((o.v, o.v2), (0, 1));
        let nan = 0x7FC0_0000u64;
        assert_eq!(run("setp.ltu.f32 %p1, %f1, %f2;", [nan, 0, 0, 0]), 1);
        assert_eq!(run("setp.lt.f32 %p1, %f1, %f2;", [nan, 0, 0, 0]), 0);
    }

    #[test]
    fn carry_chain() {
        let lo = inst("add.cc.u32 %r1, %r2, %r3;");
        let hi = inst("addc.u32 %r4, %r5, %r6;");
        let o = eval(&lo, &[0xFFFF_FFFF, 1, 0, 0, 0, 0], false).unwrap();
        assert!(o.carry);
        assert_eq!(eval(&hi, &[0; 6], o.carry).unwrap().v, 1);
    }

    #[test]
    fn simd_video_and_halves() {
        assert_eq!(run("vabsdiff4.u32.u32.u32 %r1, %r2, %r3, %r4;", [0x0A00_FF05, 0x0300_0109, 7, 0]), 0x0700_FE04);
        assert_eq!(run("vabsdiff4.u32.u32.u32.add %r1, %r2, %r3, %r4;", [0x0A00_FF05, 0x0300_0109, 7, 0]), 7 + 7 + 0xFE + 4);
        assert_eq!(run("max.s16x2 %r1, %r2, %r3;", [0xFFFF_0001, 0x0001_FFFF, 0, 0]), 0x0001_0001);
        assert_eq!(run("min.u16x2 %r1, %r2, %r3;", [0xFFFF_0001, 0x0001_FFFF, 0, 0]), 0x0001_0001);
    }

    #[test]
    fn atomics() {
        use crate::inst::AtomOp as A;
        assert_eq!(atom(A::Inc, Ty::U32, 5, 5, 0, false).unwrap(), 0);
        assert_eq!(atom(A::Inc, Ty::U32, 4, 5, 0, false).unwrap(), 5);
        assert_eq!(atom(A::Dec, Ty::U32, 0, 7, 0, false).unwrap(), 7);
        assert_eq!(atom(A::Cas, Ty::B32, 3, 3, 9, false).unwrap(), 9);
        assert_eq!(atom(A::Cas, Ty::B32, 4, 3, 9, false).unwrap(), 4);
        assert_eq!(atom(A::Max, Ty::S32, (-5i32) as u32 as u64, 2, 0, false).unwrap(), 2);
        assert_eq!(atom(A::Add, Ty::F32, 1f32.to_bits() as u64, 2f32.to_bits() as u64, 0, false).unwrap(), 3f32.to_bits() as u64);
        assert_eq!(atom(A::Add, Ty::U32, 0xFFFF_FFFF, 1, 0, false).unwrap(), 0);
    }

    #[test]
    fn unsupported_forms_are_errors() {
        let i = inst("div.rn.f32 %f1, %f2, %f3;");
        let mut bad = i.clone();
        bad.m.types = vec![Ty::F16];
        assert!(eval(&bad, &[0; 6], false).is_err());
    }
}
