//! Machine (SASS) operations that PTX has no instruction for, with their per-lane semantics.
//!
//! A lowered SASS program (`warpsim-sass`'s `lower`) uses the PTX [`Op`](crate::inst::Op)s
//! wherever one has the machine instruction's meaning (`IMAD` is `mad.lo.u32`, `ISETP` is
//! `setp` with its two destinations and combining predicate, `FFMA` is `fma.f32`, `F2I` is
//! `cvt`), and [`MachineOp`] for the rest: the three-input add with carry predicates, the
//! shifted add, the 64-bit funnel shifts, the truth-table ops with predicate results, the
//! MUFU forms that take their angle in turns, and the half-precision instructions whose sources
//! choose halves of a register ([`HalfSel`]) or whose packs no one PTX `cvt` writes. Sources are 32-bit register values (64-bit where
//! a pair is read) in SASS operand order; results are up to three values (a register and two
//! predicates). Operand modifiers (`-R`, `~R`, `|R|`, [`Mods::neg`](crate::inst::Mods)) are
//! applied by [`apply_operand_mods`] before the operation, except for `IADD3`, whose carries
//! need the raw operands. [`dispatch`] decodes an instruction once into its lane function, which
//! the caller runs per lane (the simulator in one loop over a warp's lanes, [`eval`] on one).
//! Everything here knows nothing of registers, lanes or memory.

use serde::Serialize;

use crate::inst::Inst;
use crate::types::{BoolOp, Cmp};

/// The bytes below a CTA's user shared memory that sm_90 machine code's shared addresses include
/// (the CTA window's reserved 1 KiB): a SASS shared address is the simulator's plus this.
pub const SHARED_RESERVED: u64 = 0x400;

/// A SASS operation (see the module docs; the sources are listed per variant).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum MachineOp {
    /// `IADD3{.X} d, p0, p1, a, b, c{, cin0, cin1}`: `d = a + b + c (+ cin0 + cin1)`, `p0`/`p1`
    /// the carry out (p0 set for a carry of 1 or more, p1 for 2). A negated source counts as
    /// `~x + 1` (so `a + -b` carries exactly when `a ≥ b`, as a 64-bit subtraction needs).
    Iadd3 { x: bool },
    /// `IMAD.HI{.U32} d, a, b, c`: the high word of `a × b + c:c+1` (the addend is the register
    /// pair starting at `c`, 64-bit).
    ImadHi { signed: bool },
    /// `IMAD.X d, a, b, c, cin`: `a × b + c + cin` (low word).
    ImadX,
    /// `LEA{.HI}{.X}{.SX32} d, p, a, b, c, shift, cin`: `.LO`: `(a << shift) + b`; `.HI`: the
    /// high word of `(c:a) << shift` plus `b` (`.SX32`: `c` is `a`'s sign); `.X` adds `cin`.
    /// `p` is the carry out of the 32-bit add.
    Lea { hi: bool, x: bool, sx32: bool },
    /// `SHF.{L,R}.{U32,S32,U64,S64}{.HI}{.W} d, a, shift, c`: the 64-bit funnel `c:a` shifted
    /// (right shifts of a signed type fill with `c`'s sign); the low or (`.HI`) high word.
    /// Shift amounts clamp to the type's width, or wrap modulo it with `.W`.
    Shf { left: bool, hi: bool, signed: bool, wide: bool, wrap: bool },
    /// `LOP3.LUT d, p, a, b, c, lut, q`: `d = lut(a, b, c)` bitwise, `p = (d ≠ 0) ∨ q`.
    Lop3,
    /// `PLOP3.LUT p, q, a, b, c, lut1, lut2`: two truth tables of three predicates.
    Plop3,
    /// `VIADDMNMX{.U32} d, a, b, c, pmin`: `min/max(a + b, c)` (min when `max` is false).
    AddMinMax { max: bool, signed: bool },
    /// `VIMNMX3{.U32} d, a, b, c, pmin`: min/max of three.
    MinMax3 { max: bool, signed: bool },
    /// `FCHK p, a, b`: whether `a / b` needs ptxas's IEEE slow path rather than the
    /// reciprocal-and-correct sequence. Modelled conservatively (the slow path is exact for
    /// every input, so only the path taken, never the quotient, depends on it): true unless `a`
    /// and `b` are normal and neither the quotient's exponent nor the sequence's intermediates
    /// (`a × 1/b`, `b × q`) can leave the normal range. A zero `a` takes the slow path: the fast
    /// one cannot give both `0 / -x` and `-0 / x` their -0 (H200 oracle, `div.rn.f32`).
    Fchk,
    /// `MUFU.SIN/COS d, t`: the sine or cosine of `t` turns (ptxas multiplies the angle by
    /// 1/(2π) with `FMUL.RZ` first), as [`crate::fp::approx::sin_f32`] models the SFU.
    MufuSinCos { cos: bool },
    /// `ISETP.cmp{.U32}.EX.bop p, q, a, b, c, chain`: the high-word step of a 64-bit compare.
    /// The high words `a`, `b` decide unless they are equal, where `chain` (the low words'
    /// `ISETP` of the same comparison, unsigned) does: `EQ` is `a = b ∧ chain`, `NE` is
    /// `a ≠ b ∨ chain`, the orderings `a ⋖ b ∨ (a = b ∧ chain)`. Then as `ISETP`: `p = r bop c`,
    /// `q = ¬r bop c`. Only the integer comparisons (`EQ NE LT LE GT GE`).
    IsetpEx { cmp: Cmp, signed: bool, bop: BoolOp },
    /// `MUFU.RCP64H/RSQ64H d, a`: the upper word of the reciprocal (square root) of the f64
    /// whose upper word is `a`, as `rcp/rsqrt.approx.ftz.f64` compute it
    /// ([`crate::fp::approx::rcp_ftz_f64`]); ptxas's division and square-root sequences refine it.
    Mufu64H { rsqrt: bool },
    /// `DSETP.MIN/MAX.AND p, q, a, b, PT`, ptxas's `min/max.f64`: `p` = the result is `a` (the
    /// smaller, or larger, with −0 < +0; the one that is not NaN), `q` = both are NaN (the
    /// result is then `b` quieted), so that `SEL`/`FSEL` on `p` and an `OR` of the quiet bit on
    /// `q` give what [`crate::fp`]'s `min_max` gives.
    DminMax { max: bool },
    /// `HADD2`/`HMUL2`/`HFMA2`/`HMNMX2{.BF16_V2}{.F32} d, a, b{, c}`: the operation on both
    /// 16-bit lanes of the packed sources, each source's halves chosen by its selector
    /// ([`HalfSel`]: `R2.H0_H0` reads the low half into both lanes). The format is the
    /// instruction's type ([`Ty::F16x2`](crate::types::Ty) or `Bf16x2`), so operand modifiers flip
    /// or clear both halves' sign bits before the selection; `.FTZ`, `.SAT`, `.RELU` and (for
    /// min/max) `.NAN` are the instruction's flags and mean what they mean in PTX, with the
    /// [`crate::fp`] functions PTX mode uses (H200 oracle: add/sub/mul/fma/min/max/neg/abs of
    /// f16 and bf16, the `.sat`, `.ftz`, `.relu` forms). `HalfOp::MinMax`'s third source is the
    /// predicate choosing min (true: `PT`) or max. With `f32` (`HADD2.F32`) each selected low
    /// lane is widened exactly to f32 and the operation is f32's, rounded to nearest, into the
    /// whole register (the widening `-RZ + Rb.H0_H0` is `cvt.f32.f16`, the only `.F32` form the
    /// oracle checks).
    Half2 { op: HalfOp, sel: [HalfSel; 3], f32: bool },
    /// `HSETP2{.BF16_V2}.cmp{.FTZ}.bop p, q, a, b, c`: the comparison of each lane of the
    /// selected halves, `p = lane0 bop c`, `q = lane1 bop c` (ptxas's `setp.cmp.f16x2 p|q`:
    /// `p` the low halves', `q` the high halves'; with both sources `.H0_H0` both are the low
    /// halves'). `.H_AND` (`p = lane0 ∧ lane1`) is not modelled.
    Hsetp2 { cmp: Cmp, bop: BoolOp, sel: [HalfSel; 2] },
    /// `MUFU.EX2/TANH.{F16,BF16} d, a.H1` (`.H0`): the approximation of one half of `a`
    /// (`hi`: the upper), zero-extended, as `ex2/tanh.approx.{f16,bf16}` compute it
    /// ([`crate::fp::approx`]); the type is the packed one, so a modifier flips both signs.
    MufuHalf { tanh: bool, hi: bool },
    /// `F2FP{.RELU}{.SATFINITE}.{F16,BF16,E4M3,E5M2}.F32.PACK_AB{_MERGE_C}{.RZ} d, a, b{, RZ}`:
    /// `a` and `b` converted from f32 (the instruction's rounding, `.rn` unless `.RZ`), `a` into
    /// the upper element and `b` the lower, as `cvt.frnd.{f16x2,bf16x2,e4m3x2,e5m2x2}.f32 d, a, b`
    /// ([`crate::fp::cvt::pack2_f32`]); `to` is the packed type. The fp8 forms fill the low 16
    /// bits (the lowering accepts only an `RZ` merge source, so the upper 16 are zero).
    F2fpPack { to: crate::types::Ty },
}

/// Which 16-bit halves of a 32-bit register a half-precision instruction's source supplies to
/// its two lanes (nvdisasm's operand suffix).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum HalfSel {
    /// No suffix (`H1_H0`): the low half to lane 0, the high to lane 1.
    Both,
    /// `.H0_H0`: the low half to both lanes.
    Lo,
    /// `.H1_H1`: the high half to both lanes.
    Hi,
}

impl HalfSel {
    /// The packed pair the lanes see.
    #[inline(always)]
    pub fn select(self, v: u64) -> u32 {
        let v = v as u32;
        match self {
            HalfSel::Both => v,
            HalfSel::Lo => (v & 0xFFFF) * 0x1_0001,
            HalfSel::Hi => (v >> 16) * 0x1_0001,
        }
    }
}

/// The lane operation of [`MachineOp::Half2`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum HalfOp {
    /// `a + b`.
    Add,
    /// `a × b`.
    Mul,
    /// `a × b + c`, rounded once.
    Fma,
    /// min (third source true) or max of `a` and `b`.
    MinMax,
}

impl MachineOp {
    /// The SASS mnemonic family (for messages).
    pub fn name(self) -> &'static str {
        match self {
            MachineOp::Iadd3 { .. } => "IADD3",
            MachineOp::ImadHi { .. } => "IMAD.HI",
            MachineOp::ImadX => "IMAD.X",
            MachineOp::Lea { .. } => "LEA",
            MachineOp::Shf { .. } => "SHF",
            MachineOp::Lop3 => "LOP3.LUT",
            MachineOp::Plop3 => "PLOP3.LUT",
            MachineOp::AddMinMax { .. } => "VIADDMNMX",
            MachineOp::MinMax3 { .. } => "VIMNMX3",
            MachineOp::Fchk => "FCHK",
            MachineOp::MufuSinCos { cos: false } => "MUFU.SIN",
            MachineOp::MufuSinCos { cos: true } => "MUFU.COS",
            MachineOp::IsetpEx { .. } => "ISETP.EX",
            MachineOp::Mufu64H { rsqrt: false } => "MUFU.RCP64H",
            MachineOp::Mufu64H { rsqrt: true } => "MUFU.RSQ64H",
            MachineOp::DminMax { max: false } => "DSETP.MIN",
            MachineOp::DminMax { max: true } => "DSETP.MAX",
            MachineOp::Half2 { op: HalfOp::Add, .. } => "HADD2",
            MachineOp::Half2 { op: HalfOp::Mul, .. } => "HMUL2",
            MachineOp::Half2 { op: HalfOp::Fma, .. } => "HFMA2",
            MachineOp::Half2 { op: HalfOp::MinMax, .. } => "HMNMX2",
            MachineOp::Hsetp2 { .. } => "HSETP2",
            MachineOp::MufuHalf { tanh: false, .. } => "MUFU.EX2",
            MachineOp::MufuHalf { tanh: true, .. } => "MUFU.TANH",
            MachineOp::F2fpPack { .. } => "F2FP.PACK_AB",
        }
    }
}

const M32: u64 = 0xFFFF_FFFF;

/// Applies the source-operand modifiers of a machine instruction: a float type flips (`-`) or
/// clears (`|…|`) the sign bit of the value (bit 31, or bit 63 for f64, where a NaN passes
/// unchanged: the DADD datapath returns a NaN operand quieted with its own sign, H200 oracle
/// `neg.f64(0x7FF0000000000001)` = 0x7FF8000000000001 from ptxas's `DADD -RZ, -R`); integers
/// are negated (two's complement) or complemented in 32 bits. The type is the source's: a
/// conversion's second.
pub fn apply_operand_mods(inst: &Inst, s: &[u64; 6]) -> [u64; 6] {
    let mut out = *s;
    // Only the sources that carry a modifier: the others pass unchanged.
    let mut mods = inst.m.neg | inst.m.not | inst.m.abs;
    while mods != 0 {
        let i = mods.trailing_zeros() as usize;
        if let Some(v) = out.get_mut(i) {
            *v = modify_operand(inst, i, *v);
        }
        mods &= mods - 1;
    }
    out
}

/// [`apply_operand_mods`] for source `i` alone.
#[inline]
pub fn modify_operand(inst: &Inst, i: usize, v: u64) -> u64 {
    let m = &inst.m;
    let bit = 1u8 << i;
    let mut v = v;
    let ty = if matches!(inst.op, crate::inst::Op::Cvt) { m.ty2() } else { m.ty() };
    if ty == crate::types::Ty::F64 {
        const SIGN: u64 = 1 << 63;
        if v & !SIGN > 0x7FF0_0000_0000_0000 {
            return v;
        }
        if m.abs & bit != 0 {
            v &= !SIGN;
        }
        if m.neg & bit != 0 {
            v ^= SIGN;
        }
    } else if ty.is_float() {
        // The sign bits: both halves' of a packed pair, bit 15 of a half.
        let sign = match ty {
            crate::types::Ty::F16x2 | crate::types::Ty::Bf16x2 => 0x8000_8000,
            crate::types::Ty::F16 | crate::types::Ty::Bf16 => 0x8000,
            _ => 0x8000_0000,
        };
        if m.abs & bit != 0 {
            v &= !sign;
        }
        if m.neg & bit != 0 {
            v ^= sign;
        }
    } else {
        if m.not & bit != 0 {
            v = !v & M32;
        }
        if m.neg & bit != 0 {
            v = v.wrapping_neg() & M32;
        }
    }
    v
}

/// Results of one lane: a value and up to two predicates (0/1).
pub type Results = (u64, u64, u64);

/// What runs a machine operation's lane function `f` (sources in SASS order, already modified
/// by [`apply_operand_mods`] except for `IADD3`): on one lane's sources ([`eval`]) or in a loop
/// over a warp's lanes (the simulator's). [`dispatch`] matches the operation once and hands the
/// loop a function with its form fixed.
pub trait Apply {
    fn apply(self, f: impl Fn(&[u64; 6]) -> Results);
}

/// Evaluates a machine operation for one lane (`s`: the sources in SASS order, already modified
/// by [`apply_operand_mods`] except for `IADD3`).
pub fn eval(op: MachineOp, inst: &Inst, s: &[u64; 6]) -> Results {
    struct One<'a>(&'a [u64; 6], &'a mut Results);
    impl Apply for One<'_> {
        fn apply(self, f: impl Fn(&[u64; 6]) -> Results) {
            *self.1 = f(self.0);
        }
    }
    let mut r = (0, 0, 0);
    dispatch(op, inst, One(s, &mut r));
    r
}

fn sext32(x: u64) -> i64 {
    x as u32 as i32 as i64
}

/// Calls `run` with the lane function of `op` and `inst`'s modifiers (see [`Apply`]).
#[inline(always)]
pub fn dispatch(op: MachineOp, inst: &Inst, run: impl Apply) {
    match op {
        MachineOp::Iadd3 { x } => {
            let (neg, not) = (inst.m.neg, inst.m.not);
            run.apply(move |s| iadd3(x, neg, not, s))
        }
        MachineOp::ImadHi { signed } => run.apply(move |s| {
            let (a, b) = (s[0], s[1]);
            let p = if signed { (sext32(a) * sext32(b)) as u64 } else { (a & M32) * (b & M32) };
            ((p.wrapping_add(s[2]) >> 32) & M32, 0, 0)
        }),
        MachineOp::ImadX => run.apply(|s| ((s[0].wrapping_mul(s[1]).wrapping_add(s[2]).wrapping_add((s[3] != 0) as u64)) & M32, 0, 0)),
        MachineOp::Lea { hi, x, sx32 } => run.apply(move |s| lea(hi, x, sx32, s)),
        MachineOp::Shf { left, hi, signed, wide, wrap } => run.apply(move |s| (shf(left, hi, signed, wide, wrap, s), 0, 0)),
        MachineOp::Lop3 => run.apply(|s| {
            let d = crate::int::lop3(s[0], s[1], s[2], s[3]);
            (d, (d != 0 || s[4] != 0) as u64, 0)
        }),
        MachineOp::Plop3 => run.apply(|s| {
            let (a, b, c) = (s[0] & 1, s[1] & 1, s[2] & 1);
            (crate::int::lop3(a, b, c, s[3]) & 1, crate::int::lop3(a, b, c, s[4]) & 1, 0)
        }),
        MachineOp::AddMinMax { max, signed } => run.apply(move |s| (minmax(max, signed, s[0].wrapping_add(s[1]) & M32, s[2]), 0, 0)),
        MachineOp::MinMax3 { max, signed } => run.apply(move |s| (minmax(max, signed, minmax(max, signed, s[0], s[1]), s[2]), 0, 0)),
        MachineOp::Fchk => run.apply(|s| (fchk(s[0] as u32, s[1] as u32) as u64, 0, 0)),
        MachineOp::MufuSinCos { cos } => {
            let ftz = inst.m.has(crate::inst::flag::FTZ);
            run.apply(move |s| (crate::fp::approx::mufu_sin_cos(s[0] as u32, ftz, cos) as u64, 0, 0))
        }
        MachineOp::IsetpEx { cmp, signed, bop } => run.apply(move |s| isetp_ex(cmp, signed, bop, s)),
        MachineOp::Mufu64H { rsqrt } => run.apply(move |s| {
            let a = (s[0] & M32) << 32;
            let r = if rsqrt { crate::fp::approx::rsqrt_ftz_f64(a) } else { crate::fp::approx::rcp_ftz_f64(a) };
            (r >> 32, 0, 0)
        }),
        MachineOp::DminMax { max } => run.apply(move |s| dmin_max(max, s[0], s[1])),
        MachineOp::Half2 { op, sel, f32 } => {
            let h = HalfMods::of(inst);
            if f32 {
                run.apply(move |s| (half_f32(op, h.bf16, sel, s) as u64, 0, 0))
            } else {
                run.apply(move |s| (half2(op, h, sel, s) as u64, 0, 0))
            }
        }
        MachineOp::Hsetp2 { cmp, bop, sel } => {
            let h = HalfMods::of(inst);
            let fop = crate::eval::fcmp(cmp);
            run.apply(move |s| {
                let (a, b) = (sel[0].select(s[0]), sel[1].select(s[1]));
                let lane = |k: u32| {
                    let (x, y) = ((a >> k) as u16, (b >> k) as u16);
                    if h.bf16 {
                        crate::fp::bf16::setp(fop, x, y, h.ftz)
                    } else {
                        crate::fp::f16::setp(fop, x, y, h.ftz)
                    }
                };
                let c = s[2] & 1 != 0;
                let combine = |x: bool| crate::eval::combine(Some(bop), x, c) as u64;
                (combine(lane(0)), combine(lane(16)), 0)
            })
        }
        MachineOp::MufuHalf { tanh, hi } => {
            let bf16 = HalfMods::of(inst).bf16;
            run.apply(move |s| {
                let x = if hi { (s[0] >> 16) as u16 } else { s[0] as u16 };
                let r = match (tanh, bf16) {
                    (false, false) => crate::fp::approx::ex2_f16(x),
                    (false, true) => crate::fp::approx::ex2_ftz_bf16(x),
                    (true, false) => crate::fp::approx::tanh_f16(x),
                    (true, true) => crate::fp::approx::tanh_bf16(x),
                };
                (r as u64, 0, 0)
            })
        }
        MachineOp::F2fpPack { to } => {
            use crate::fp::cvt::{FloatMods, PackedType};
            let dst = match to {
                crate::types::Ty::Bf16x2 => PackedType::Bf16x2,
                crate::types::Ty::E4m3x2 => PackedType::E4m3x2,
                crate::types::Ty::E5m2x2 => PackedType::E5m2x2,
                _ => PackedType::F16x2,
            };
            let rnd = if inst.m.rnd == Some(crate::types::Rnd::Rz) { crate::fp::Rounding::Rz } else { crate::fp::Rounding::Rn };
            let fm = FloatMods { satfinite: inst.m.has(crate::inst::flag::SATFINITE), relu: inst.m.has(crate::inst::flag::RELU), ..FloatMods::default() };
            run.apply(move |s| (crate::fp::cvt::pack2_f32(dst, s[0] as u32, s[1] as u32, rnd, fm) as u64, 0, 0))
        }
    }
}

/// The format and flags of a half-precision machine instruction.
#[derive(Clone, Copy)]
struct HalfMods {
    bf16: bool,
    ftz: bool,
    sat: bool,
    relu: bool,
    nan: bool,
}

impl HalfMods {
    fn of(inst: &Inst) -> Self {
        use crate::inst::flag;
        let m = &inst.m;
        HalfMods {
            bf16: matches!(m.ty(), crate::types::Ty::Bf16x2 | crate::types::Ty::Bf16),
            ftz: m.has(flag::FTZ),
            sat: m.has(flag::SAT),
            relu: m.has(flag::RELU),
            nan: m.has(flag::NAN),
        }
    }
}

/// [`MachineOp::Half2`] on both lanes.
#[inline(always)]
fn half2(op: HalfOp, h: HalfMods, sel: [HalfSel; 3], s: &[u64; 6]) -> u32 {
    use crate::fp::{bf16, f16, Rounding::Rn};
    let (a, b, c) = (sel[0].select(s[0]), sel[1].select(s[1]), sel[2].select(s[2]));
    let lane = |k: u32| -> u32 {
        let (x, y, z) = ((a >> k) as u16, (b >> k) as u16, (c >> k) as u16);
        let r = if h.bf16 {
            match op {
                HalfOp::Add => bf16::add(x, y, Rn, h.ftz, h.sat),
                HalfOp::Mul => bf16::mul(x, y, Rn, h.ftz, h.sat),
                HalfOp::Fma => bf16::fma(x, y, z, Rn, h.ftz, h.sat),
                HalfOp::MinMax if s[2] & 1 != 0 => bf16::min(x, y, h.ftz, h.nan),
                HalfOp::MinMax => bf16::max(x, y, h.ftz, h.nan),
            }
        } else {
            match op {
                HalfOp::Add => f16::add(x, y, Rn, h.ftz, h.sat),
                HalfOp::Mul => f16::mul(x, y, Rn, h.ftz, h.sat),
                HalfOp::Fma => f16::fma(x, y, z, Rn, h.ftz, h.sat),
                HalfOp::MinMax if s[2] & 1 != 0 => f16::min(x, y, h.ftz, h.nan),
                HalfOp::MinMax => f16::max(x, y, h.ftz, h.nan),
            }
        };
        let r = match (h.relu, h.bf16) {
            (false, _) => r,
            (true, false) => f16::relu(r),
            (true, true) => bf16::relu(r),
        };
        r as u32
    };
    lane(16) << 16 | lane(0)
}

/// [`MachineOp::Half2`] with `.F32`: lane 0 of the selected sources widened to f32, the f32
/// operation rounded to nearest.
fn half_f32(op: HalfOp, bf16: bool, sel: [HalfSel; 3], s: &[u64; 6]) -> u32 {
    use crate::fp::cvt::{f2f, FloatMods, FloatType};
    use crate::fp::{f32, Rounding::Rn};
    let from = if bf16 { FloatType::Bf16 } else { FloatType::F16 };
    let w = |i: usize| f2f(from, FloatType::F32, (sel[i].select(s[i]) & 0xFFFF) as u64, Rn, FloatMods::default()) as u32;
    match op {
        HalfOp::Add => f32::add(w(0), w(1), Rn, false, false),
        HalfOp::Mul => f32::mul(w(0), w(1), Rn, false, false),
        HalfOp::Fma => f32::fma(w(0), w(1), w(2), Rn, false, false),
        HalfOp::MinMax if s[2] & 1 != 0 => f32::min(w(0), w(1), false, false),
        HalfOp::MinMax => f32::max(w(0), w(1), false, false),
    }
}

/// [`MachineOp::IsetpEx`] on `[a, b, c, chain]`.
#[inline(always)]
fn isetp_ex(cmp: Cmp, signed: bool, bop: BoolOp, s: &[u64; 6]) -> Results {
    let (a, b) = if signed { (sext32(s[0]), sext32(s[1])) } else { ((s[0] & M32) as i64, (s[1] & M32) as i64) };
    let (c, chain) = (s[2] & 1 != 0, s[3] & 1 != 0);
    let r = match cmp {
        Cmp::Eq => a == b && chain,
        Cmp::Ne => a != b || chain,
        Cmp::Lt | Cmp::Le => a < b || (a == b && chain),
        Cmp::Gt | Cmp::Ge => a > b || (a == b && chain),
        // The lowering accepts only the integer comparisons.
        _ => false,
    };
    let combine = |x: bool| crate::eval::combine(Some(bop), x, c) as u64;
    (combine(r), combine(!r), 0)
}

/// [`MachineOp::DminMax`]: (the result is `a`, both are NaN).
fn dmin_max(max: bool, a: u64, b: u64) -> Results {
    let picked = if max { crate::fp::f64::max(a, b, false, false) } else { crate::fp::f64::min(a, b, false, false) };
    let nan = |x: u64| x & !(1 << 63) > 0x7FF0_0000_0000_0000;
    let both_nan = nan(a) && nan(b);
    ((!both_nan && picked == a) as u64, both_nan as u64, 0)
}

/// [`MachineOp::Iadd3`] (`neg`/`not`: the instruction's operand modifier masks).
#[inline(always)]
fn iadd3(x: bool, neg: u8, not: u8, s: &[u64; 6]) -> Results {
    let term = |i: usize| -> u64 {
        let v = s[i] & M32;
        let bit = 1u8 << i;
        if neg & bit != 0 {
            (!v & M32) + 1
        } else if not & bit != 0 {
            !v & M32
        } else {
            v
        }
    };
    let mut sum = term(0) + term(1) + term(2);
    if x {
        sum += (s[3] != 0) as u64 + (s[4] != 0) as u64;
    }
    let carry = sum >> 32;
    (sum & M32, (carry >= 1) as u64, (carry >= 2) as u64)
}

/// [`MachineOp::Lea`].
#[inline(always)]
fn lea(hi: bool, x: bool, sx32: bool, s: &[u64; 6]) -> Results {
    let (a, b) = (s[0], s[1]);
    let sh = (s[3] & 31) as u32;
    let shifted = if hi {
        let c = if sx32 { (sext32(a) >> 32) as u64 & M32 } else { s[2] & M32 };
        ((((c << 32) | (a & M32)) << sh) >> 32) & M32
    } else {
        ((a & M32) << sh) & M32
    };
    let sum = shifted + (b & M32) + if x { (s[4] != 0) as u64 } else { 0 };
    (sum & M32, sum >> 32 & 1, 0)
}

/// [`MachineOp::Shf`]: the shifted word.
#[inline(always)]
fn shf(left: bool, hi: bool, signed: bool, wide: bool, wrap: bool, s: &[u64; 6]) -> u64 {
    let width = if wide { 64 } else { 32 };
    let n = s[1] as u32;
    let n = if wrap { n & (width - 1) } else { n.min(width) };
    let v = ((s[2] & M32) << 32) | (s[0] & M32);
    let r = if left {
        if n >= 64 {
            0
        } else {
            v << n
        }
    } else if signed {
        ((v as i64) >> n.min(63)) as u64
    } else if n >= 64 {
        0
    } else {
        v >> n
    };
    if hi {
        r >> 32
    } else {
        r & M32
    }
}

/// [`MachineOp::Fchk`]: normal operands, the divisor's and the quotient's unbiased exponents
/// within ±125, the dividend's within [-102, 125] (the residual `a - b × q`, some 2^-24 of `a`,
/// must stay normal: H200 oracle, `div.rn.f32(0x816ed7f6, 0x016ed7f5)` is 0xbf800001 where the
/// fast sequence rounds to 0xbf800000).
fn fchk(a: u32, b: u32) -> bool {
    let exp = |x: u32| ((x >> 23) & 0xFF) as i32;
    let (ea, eb) = (exp(a), exp(b));
    let normal = |e: i32| (1..=254).contains(&e);
    if !normal(eb) || !normal(ea) {
        return true;
    }
    let (ua, ub) = (ea - 127, eb - 127);
    let q = ua - ub;
    !((-125..=125).contains(&q) && (-125..=125).contains(&ub) && (-102..=125).contains(&ua))
}

fn minmax(max: bool, signed: bool, a: u64, b: u64) -> u64 {
    let ty = if signed { crate::types::Ty::S32 } else { crate::types::Ty::U32 };
    crate::int::minmax(ty, max, a & M32, b & M32, false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inst::{Class, Mods, Op, SrcLoc};
    use proptest::prelude::*;

    fn inst(op: MachineOp, neg: u8, not: u8) -> Inst {
        Inst {
            op: Op::Machine(op),
            m: Mods { neg, not, ..Mods::default() },
            guard: None,
            ops: Vec::new(),
            ndst: 0,
            class: Class::IntArith,
            loc: SrcLoc::default(),
            defs: Vec::new(),
            uses: Vec::new(),
        }
    }

    fn run(op: MachineOp, neg: u8, not: u8, s: [u64; 6]) -> Results {
        let i = inst(op, neg, not);
        let s = if matches!(op, MachineOp::Iadd3 { .. }) { s } else { apply_operand_mods(&i, &s) };
        eval(op, &i, &s)
    }

    #[test]
    fn iadd3_carries_and_negation() {
        let add = MachineOp::Iadd3 { x: false };
        assert_eq!(run(add, 0, 0, [0xFFFF_FFFF, 1, 0, 0, 0, 0]), (0, 1, 0));
        assert_eq!(run(add, 0, 0, [0xFFFF_FFFF, 0xFFFF_FFFF, 2, 0, 0, 0]), (0, 1, 1));
        // a + -b carries iff a >= b (no borrow).
        assert_eq!(run(add, 0b10, 0, [5, 5, 0, 0, 0, 0]), (0, 1, 0));
        assert_eq!(run(add, 0b10, 0, [4, 5, 0, 0, 0, 0]), (0xFFFF_FFFF, 0, 0));
        assert_eq!(run(add, 0b10, 0, [4, 0, 0, 0, 0, 0]), (4, 1, 0));
        let x = MachineOp::Iadd3 { x: true };
        assert_eq!(run(x, 0, 0b01, [0, 7, 0, 1, 0, 0]).0, 7);
    }

    #[test]
    fn isetp_ex_chains_64_bit_compares() {
        // 64-bit unsigned a >= b as the two ISETPs ptxas emits: the low words' GE.U32, then the
        // high words' GE.U32.EX with it as the chain.
        let ge = |a: u64, b: u64, signed: bool| {
            let lo = (a & M32) >= (b & M32);
            let op = MachineOp::IsetpEx { cmp: Cmp::Ge, signed, bop: BoolOp::And };
            run(op, 0, 0, [a >> 32, b >> 32, 1, lo as u64, 0, 0])
        };
        assert_eq!(ge(0x1_0000_0000, 0xFFFF_FFFF, false), (1, 0, 0));
        assert_eq!(ge(0x1_0000_0005, 0x1_0000_0006, false), (0, 1, 0));
        assert_eq!(ge(0x1_0000_0006, 0x1_0000_0006, false), (1, 0, 0));
        // Signed: -1 (all ones) < 1; unsigned it is the largest.
        assert_eq!(ge(u64::MAX, 1, true).0, 0);
        assert_eq!(ge(u64::MAX, 1, false).0, 1);
        let eq = MachineOp::IsetpEx { cmp: Cmp::Eq, signed: false, bop: BoolOp::Or };
        assert_eq!(run(eq, 0, 0, [7, 7, 0, 0, 0, 0]), (0, 1, 0));
        assert_eq!(run(eq, 0, 0, [7, 7, 0, 1, 0, 0]), (1, 0, 0));
        let ne = MachineOp::IsetpEx { cmp: Cmp::Ne, signed: false, bop: BoolOp::And };
        assert_eq!(run(ne, 0, 0, [7, 8, 1, 0, 0, 0]), (1, 0, 0));
        assert_eq!(run(ne, 0, 0, [7, 7, 1, 0, 0, 0]), (0, 1, 0));
    }

    #[test]
    fn lea_forms() {
        let lo = MachineOp::Lea { hi: false, x: false, sx32: false };
        assert_eq!(run(lo, 0, 0, [0x8000_0001, 0x10, 0, 2, 0, 0]), (0x14, 0, 0));
        // The carry is the 32-bit add's; bits shifted out of the low word are LEA.HI's.
        assert_eq!(run(lo, 0, 0, [0x4000_0000, 0xC000_0000, 0, 2, 0, 0]), (0xC000_0000, 0, 0));
        assert_eq!(run(lo, 0, 0, [0x4000_0000, 0xC000_0000, 0, 1, 0, 0]), (0x4000_0000, 1, 0));
        let hix = MachineOp::Lea { hi: true, x: true, sx32: false };
        // high word of (c:a) << 2 = (a >> 30) | (c << 2), plus b and the carry.
        assert_eq!(run(hix, 0, 0, [0xC000_0000, 0x100, 1, 2, 1, 0]).0, 0x100 + 0b111 + 1);
        let sx = MachineOp::Lea { hi: true, x: true, sx32: true };
        assert_eq!(run(sx, 0, 0, [0xFFFF_FFFF, 0x10, 0, 2, 0, 0]).0, (0x10 + 0xFFFF_FFFF) & 0xFFFF_FFFF);
    }

    #[test]
    fn funnel_shifts() {
        let r_u32_hi = MachineOp::Shf { left: false, hi: true, signed: false, wide: false, wrap: false };
        assert_eq!(run(r_u32_hi, 0, 0, [0, 3, 0x8000_0000, 0, 0, 0]).0, 0x1000_0000);
        let r_s32_hi = MachineOp::Shf { left: false, hi: true, signed: true, wide: false, wrap: false };
        assert_eq!(run(r_s32_hi, 0, 0, [0, 0x1f, 0x8000_0000, 0, 0, 0]).0, 0xFFFF_FFFF);
        let l_u32 = MachineOp::Shf { left: true, hi: false, signed: false, wide: false, wrap: false };
        assert_eq!(run(l_u32, 0, 0, [3, 4, 0, 0, 0, 0]).0, 0x30);
        let l_u64_hi = MachineOp::Shf { left: true, hi: true, signed: false, wide: true, wrap: false };
        assert_eq!(run(l_u64_hi, 0, 0, [0x8000_0000, 1, 1, 0, 0, 0]).0, 3);
    }

    #[test]
    fn truth_tables() {
        assert_eq!(run(MachineOp::Lop3, 0, 0, [0x3F, 0x1F, 0, 0xC0, 0, 0]), (0x1F, 1, 0));
        assert_eq!(run(MachineOp::Lop3, 0, 0, [0x20, 0x1F, 0, 0xC0, 0, 0]), (0, 0, 0));
        assert_eq!(run(MachineOp::Plop3, 0, 0, [1, 1, 1, 0x80, 0x8, 0]), (1, 0, 0));
    }

    #[test]
    fn fchk_flags_what_the_fast_division_cannot_do() {
        let f = |x: f32| x.to_bits() as u64;
        let chk = |a: u64, b: u64| run(MachineOp::Fchk, 0, 0, [a, b, 0, 0, 0, 0]).0;
        assert_eq!(chk(f(1.0), f(3.0)), 0);
        assert_eq!(chk(f(0.0), f(3.0)), 1);
        assert_eq!(chk(f(-0.0), f(3.0)), 1);
        assert_eq!(chk(0x816e_d7f6, 0x016e_d7f5), 1);
        assert_eq!(chk(f(1e-30), f(3.0)), 0);
        assert_eq!(chk(f(1.0), f(0.0)), 1);
        assert_eq!(chk(f(1.0), f(f32::INFINITY)), 1);
        assert_eq!(chk(f(f32::NAN), f(2.0)), 1);
        assert_eq!(chk(f(1e-40), f(2.0)), 1);
        assert_eq!(chk(f(1e30), f(1e-30)), 1);
    }

    #[test]
    fn min_max_and_imad_hi() {
        let amn = MachineOp::AddMinMax { max: false, signed: true };
        assert_eq!(run(amn, 0, 0, [5, 0xFFFF_FFFF, 10, 0, 0, 0]).0, 4);
        let m3 = MachineOp::MinMax3 { max: true, signed: false };
        assert_eq!(run(m3, 0, 0, [5, 0xFFFF_FFFF, 10, 0, 0, 0]).0, 0xFFFF_FFFF);
        let hi = MachineOp::ImadHi { signed: false };
        assert_eq!(run(hi, 0, 0, [0xFFFF_FFFF, 0xFFFF_FFFF, 0, 0, 0, 0]).0, 0xFFFF_FFFE);
        assert_eq!(run(hi, 0, 0, [0, 0, 7 << 32, 0, 0, 0]).0, 7);
        assert_eq!(run(MachineOp::ImadX, 0, 0, [0, 0, 5, 1, 0, 0]).0, 6);
    }

    fn typed(op: MachineOp, ty: crate::types::Ty, flags: u64, neg: u8, abs: u8) -> Inst {
        let mut i = inst(op, neg, 0);
        i.m.types = vec![ty];
        i.m.flags = flags;
        i.m.abs = abs;
        i
    }

    fn run_typed(i: &Inst, s: [u64; 6]) -> Results {
        let Op::Machine(op) = i.op else { unreachable!() };
        eval(op, i, &apply_operand_mods(i, &s))
    }

    #[test]
    fn half_selectors() {
        assert_eq!(HalfSel::Both.select(0x1234_5678), 0x1234_5678);
        assert_eq!(HalfSel::Lo.select(0x1234_5678), 0x5678_5678);
        assert_eq!(HalfSel::Hi.select(0xFFFF_1234_5678), 0x1234_1234);
    }

    #[test]
    fn half2_arithmetic_on_selected_halves() {
        use crate::inst::flag;
        use crate::types::Ty;
        use HalfSel::*;
        // 1.0 (0x3C00) in the low half, 2.0 (0x4000) in the high; 3.0 = 0x4200.
        let x = 0x4000_3C00;
        let add = |sel, flags, neg| run_typed(&typed(MachineOp::Half2 { op: HalfOp::Add, sel, f32: false }, Ty::F16x2, flags, neg, 0), [x, x, 0, 0, 0, 0]).0;
        assert_eq!(add([Both, Both, Both], 0, 0), 0x4400_4000);
        assert_eq!(add([Lo, Hi, Both], 0, 0), 0x4200_4200);
        assert_eq!(add([Hi, Hi, Both], 0, 0), 0x4400_4400);
        // a - b as HADD2 a, -b: 1 - 2 = -1 (0xBC00) in both lanes.
        assert_eq!(add([Lo, Hi, Both], 0, 0b10), 0xBC00_BC00);
        // .SAT clamps to [0, 1].
        assert_eq!(add([Lo, Hi, Both], flag::SAT, 0), 0x3C00_3C00);
        // |a| clears both signs before the selection: HADD2 d, |a|.H1_H1, -RZ.H0_H0 (abs).
        let abs = typed(MachineOp::Half2 { op: HalfOp::Add, sel: [Hi, Lo, Both], f32: false }, Ty::F16x2, 0, 0b10, 0b01);
        assert_eq!(run_typed(&abs, [0xC000_0000, 0, 0, 0, 0, 0]).0, 0x4000_4000);
        // fma with .RELU: 1 × -2 + 0 → +0; bf16 1.0 = 0x3F80, 2.0 = 0x4000, 3.0 = 0x4040.
        let fma = typed(MachineOp::Half2 { op: HalfOp::Fma, sel: [Lo, Lo, Lo], f32: false }, Ty::F16x2, flag::RELU, 0b010, 0);
        assert_eq!(run_typed(&fma, [0x3C00, 0x4000, 0, 0, 0, 0]).0, 0);
        let bfma = typed(MachineOp::Half2 { op: HalfOp::Fma, sel: [Both, Both, Both], f32: false }, Ty::Bf16x2, 0, 0, 0);
        assert_eq!(run_typed(&bfma, [0x3F80_4000, 0x3F80_3F80, 0x3F80_3F80, 0, 0, 0]).0, 0x4000_4040);
        // min (predicate true) and max; .NAN returns the canonical NaN.
        let mm = |flags, p| run_typed(&typed(MachineOp::Half2 { op: HalfOp::MinMax, sel: [Both, Both, Both], f32: false }, Ty::F16x2, flags, 0, 0), [0x7E00_3C00, 0x4000_4000, p, 0, 0, 0]).0;
        assert_eq!(mm(0, 1), 0x4000_3C00);
        assert_eq!(mm(0, 0), 0x4000_4000);
        assert_eq!(mm(flag::NAN, 1), 0x7FFF_3C00);
        // .F32: the widening HADD2.F32 d, -RZ, b.H0_H0 is cvt.f32.f16.
        let wide = typed(MachineOp::Half2 { op: HalfOp::Add, sel: [Both, Lo, Both], f32: true }, Ty::F16x2, 0, 0b01, 0);
        assert_eq!(run_typed(&wide, [0, 0xABCD_3C00, 0, 0, 0, 0]).0, 1f32.to_bits() as u64);
    }

    #[test]
    fn hsetp2_lanes_and_selectors() {
        use crate::types::Ty;
        use HalfSel::*;
        let set = |cmp, sel| typed(MachineOp::Hsetp2 { cmp, bop: BoolOp::And, sel }, Ty::F16x2, 0, 0, 0);
        // Lanes: 1 < 2 (low), 2 < 1 false (high).
        assert_eq!(run_typed(&set(Cmp::Lt, [Both, Both]), [0x4000_3C00, 0x3C00_4000, 1, 0, 0, 0]), (1, 0, 0));
        assert_eq!(run_typed(&set(Cmp::Lt, [Hi, Lo]), [0x4000_3C00, 0x3C00_4000, 1, 0, 0, 0]), (0, 0, 0));
        // NaN is unordered: NEU is true, the combining predicate false makes AND false.
        assert_eq!(run_typed(&set(Cmp::Neu, [Lo, Lo]), [0x7E00, 0x7E00, 1, 0, 0, 0]), (1, 1, 0));
        assert_eq!(run_typed(&set(Cmp::Neu, [Lo, Lo]), [0x7E00, 0x7E00, 0, 0, 0, 0]), (0, 0, 0));
    }

    #[test]
    fn f2fp_pack_and_mufu_halves() {
        use crate::inst::flag;
        use crate::types::{Rnd, Ty};
        let f = |x: f32| x.to_bits() as u64;
        let pack = |to, flags, rnd| {
            let mut i = typed(MachineOp::F2fpPack { to }, Ty::F32, flags, 0, 0);
            i.m.rnd = rnd;
            run_typed(&i, [f(1.0), f(-2.0), 0, 0, 0, 0]).0
        };
        assert_eq!(pack(Ty::F16x2, 0, None), 0x3C00_C000);
        assert_eq!(pack(Ty::Bf16x2, 0, None), 0x3F80_C000);
        assert_eq!(pack(Ty::F16x2, flag::RELU, None), 0x3C00_0000);
        // e4m3: 1.0 = 0x38, -2.0 = 0xC0.
        assert_eq!(pack(Ty::E4m3x2, flag::SATFINITE, None), 0x38C0);
        let third = |rnd| {
            let mut i = typed(MachineOp::F2fpPack { to: Ty::F16x2 }, Ty::F32, 0, 0, 0);
            i.m.rnd = rnd;
            run_typed(&i, [0, f(1.0 / 3.0), 0, 0, 0, 0]).0
        };
        assert_eq!(third(Some(Rnd::Rz)), 0x3555);
        assert_eq!(third(None), 0x3555);
        // ex2 of the high half: 2^1 = 2.
        let ex2 = typed(MachineOp::MufuHalf { tanh: false, hi: true }, Ty::F16x2, 0, 0, 0);
        assert_eq!(run_typed(&ex2, [0x3C00_0000, 0, 0, 0, 0, 0]).0, 0x4000);
        // A negated operand flips the selected half's sign: 2^-1.
        let nex2 = typed(MachineOp::MufuHalf { tanh: false, hi: true }, Ty::F16x2, 0, 1, 0);
        assert_eq!(run_typed(&nex2, [0x3C00_0000, 0, 0, 0, 0, 0]).0, 0x3800);
    }

    proptest! {
        /// IADD3 and IADD3.X chained over two words add 64-bit numbers (with a negated second
        /// operand: subtract), as ptxas uses them.
        #[test]
        fn iadd3_chain_is_64_bit_add(a in any::<u64>(), b in any::<u64>(), sub in any::<bool>()) {
            let (lo, p0, _) = run(MachineOp::Iadd3 { x: false }, if sub { 0b10 } else { 0 }, 0, [a & M32, b & M32, 0, 0, 0, 0]);
            let (hi, _, _) = run(MachineOp::Iadd3 { x: true }, 0, if sub { 0b10 } else { 0 }, [a >> 32, b >> 32, 0, p0, 0, 0]);
            let want = if sub { a.wrapping_sub(b) } else { a.wrapping_add(b) };
            prop_assert_eq!(hi << 32 | lo, want);
        }

        /// LEA + LEA.HI.X compute a 64-bit `(x << s) + base`, as ptxas forms addresses.
        #[test]
        fn lea_pair_is_64_bit_scaled_add(x in any::<u64>(), base in any::<u64>(), s in 0u64..32) {
            let (lo, p, _) = run(MachineOp::Lea { hi: false, x: false, sx32: false }, 0, 0, [x & M32, base & M32, 0, s, 0, 0]);
            let (hi, _, _) = run(MachineOp::Lea { hi: true, x: true, sx32: false }, 0, 0, [x & M32, base >> 32, x >> 32, s, p, 0]);
            prop_assert_eq!(hi << 32 | lo, (x << s).wrapping_add(base));
        }

        /// SHF.L.U64.HI / SHF.L.U32 and SHF.R.U64 / SHF.R.U32.HI shift 64-bit values.
        #[test]
        fn shf_pairs_are_64_bit_shifts(v in any::<u64>(), n in 0u64..32) {
            let l = |hi| run(MachineOp::Shf { left: true, hi, signed: false, wide: hi, wrap: false }, 0, 0, [v & M32, n, v >> 32, 0, 0, 0]).0;
            prop_assert_eq!(l(true) << 32 | l(false), v << n);
            let r = |hi, wide| run(MachineOp::Shf { left: false, hi, signed: false, wide, wrap: false }, 0, 0, [v & M32, n, v >> 32, 0, 0, 0]).0;
            prop_assert_eq!(r(true, false) << 32 | r(false, true), v >> n);
        }
    }
}
