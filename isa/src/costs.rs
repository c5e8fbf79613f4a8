//! Machine-op costs ("ptxas-aware lowering"): how many SASS instructions one PTX instruction
//! becomes.
//!
//! ptxas rewrites PTX heavily: register moves and immediate moves vanish into operands,
//! `cvta.to.global` is the identity, address arithmetic fuses into the memory instruction's
//! addressing mode (`[R + imm]`, `[R.X4 + UR]`, `IMAD.WIDE` absorbing the following 64-bit add),
//! 64-bit integer arithmetic takes two 32-bit operations, and IEEE division, remainders and
//! square roots become multi-instruction sequences. Two things do not fold, as the H200's
//! executed SASS shows (validate/data/h200/sass/): every `ld.param` is an `LDC`/`ULDC` from the
//! constant bank, and every warp starts with a two-instruction prologue. Each PTX instruction
//! falls in a [`Class`]; a [`CostTable`] gives each class's machine ops (defaults here, fitted
//! values in a preset's `machine_ops` table, from `warpsim validate calibrate`). The timing
//! model issues that many slots for the instruction (a fused one costs no slot and no latency)
//! and counts them in `smsp__inst_executed.sum`, so the simulated instruction stream has the
//! size of the SASS one.

use crate::ast::Space;
use crate::inst::{flag, Base, Inst, Op, Opnd};
use crate::program::Program;
use crate::types::Ty;

/// What ptxas does with a PTX instruction, as far as the instruction count goes. Each class has a
/// default machine-op count ([`Class::default_ops`]); a preset's `machine_ops` table (fitted by
/// `warpsim validate calibrate` against ncu's `smsp__inst_executed.sum` on the H200) can replace it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Class {
    /// Once per warp at kernel entry: ptxas's prologue (`LDC R1, c[0x28]`, the stack pointer,
    /// and `ULDC.64 UR4, c[0x208]`, the global-memory descriptor). Charged to instruction 0.
    Entry,
    /// `ld.param` of a kernel parameter: one `LDC`/`ULDC` from the constant bank (a device
    /// function's parameters are registers: reading one is a [`Class::Move`]).
    LdParam,
    /// `mov` of a special register: `S2R`, `S2UR`, `CS2R` or an `LDC` of `%ntid`/`%nctaid`.
    MovSpecial,
    /// Register, immediate and symbol-address moves: they fold into operands.
    Move,
    /// `cvta.to.global` and friends: the identity on sm_70+.
    Cvta,
    /// Integer zero extension or truncation: free.
    CvtZeroExtend,
    /// Integer sign extension: one shift.
    CvtSignExtend,
    /// `div.approx/.full.f32`: `MUFU.RCP` and a multiply.
    DivF32Approx,
    /// IEEE `div.rn.f32`: the Newton sequence.
    DivF32,
    DivF64,
    /// 32-bit (and narrower) integer `div`/`rem`.
    DivInt,
    DivInt64,
    /// IEEE `sqrt`/`rcp` (not `.approx`), f32.
    SqrtF32,
    SqrtF64,
    /// 64-bit integer add/sub/min/max/neg/abs/logic: two 32-bit operations.
    Int64,
    /// 64-bit shifts.
    Shift64,
    /// 64-bit `mul.lo`/`mad.lo` (not `.wide`).
    Mul64,
    /// 64-bit integer comparisons.
    Setp64,
    /// `sin`/`cos.approx.f32`: `FMUL.RZ` (range reduction) and `MUFU.SIN`/`COS` (H200 SASS of
    /// `sfu_sin`; `cos` assumed alike).
    SfuRangeReduced,
    /// `ex2`/`rsqrt.approx.f32` without `.ftz`: `MUFU` inside a denormal guard, `FSETP`, a
    /// predicated `FMUL` before and one after (H200 SASS of `sfu_ex2`, `sfu_rsqrt`); with `.ftz`
    /// they are a bare `MUFU`.
    SfuDenormalGuard,
    /// `rsqrt.approx.f64`: `MUFU.RSQ64H` and one Newton step in FP64 (DMUL, DFMA), a range check
    /// whose rare side calls a subroutine, and the moves and BSSY/BSYNC around it: 14 SASS
    /// instructions on the common path (ptxas 13.0, sm_90).
    RsqrtF64,
    /// Everything else: one SASS instruction.
    Other,
}

impl Class {
    pub const ALL: [Class; 22] = [
        Class::Entry,
        Class::LdParam,
        Class::MovSpecial,
        Class::Move,
        Class::Cvta,
        Class::CvtZeroExtend,
        Class::CvtSignExtend,
        Class::DivF32Approx,
        Class::DivF32,
        Class::DivF64,
        Class::DivInt,
        Class::DivInt64,
        Class::SqrtF32,
        Class::SqrtF64,
        Class::Int64,
        Class::Shift64,
        Class::Mul64,
        Class::Setp64,
        Class::SfuRangeReduced,
        Class::SfuDenormalGuard,
        Class::RsqrtF64,
        Class::Other,
    ];

    /// The key of the class in a preset's `machine_ops` table.
    pub fn name(self) -> &'static str {
        match self {
            Class::Entry => "entry",
            Class::LdParam => "ld_param",
            Class::MovSpecial => "mov_special",
            Class::Move => "move",
            Class::Cvta => "cvta",
            Class::CvtZeroExtend => "cvt_zero_extend",
            Class::CvtSignExtend => "cvt_sign_extend",
            Class::DivF32Approx => "div_f32_approx",
            Class::DivF32 => "div_f32",
            Class::DivF64 => "div_f64",
            Class::DivInt => "div_int",
            Class::DivInt64 => "div_int64",
            Class::SqrtF32 => "sqrt_f32",
            Class::SqrtF64 => "sqrt_f64",
            Class::Int64 => "int64",
            Class::Shift64 => "shift64",
            Class::Mul64 => "mul64",
            Class::Setp64 => "setp64",
            Class::SfuRangeReduced => "sfu_range_reduced",
            Class::SfuDenormalGuard => "sfu_denormal_guard",
            Class::RsqrtF64 => "rsqrt_f64",
            Class::Other => "other",
        }
    }

    /// What the class covers, in one line (the parameter table's doc of `machine_ops.<name>`).
    pub fn doc(self) -> &'static str {
        match self {
            Class::Entry => "the kernel prologue (stack pointer, parameter base) once per thread",
            Class::LdParam => "`ld.param` (ptxas folds most into constant-bank operands)",
            Class::MovSpecial => "`mov` from a special register (`%tid`, `%ctaid`, S2R/S2UR)",
            Class::Move => "register-to-register `mov` (ptxas removes most by renaming)",
            Class::Cvta => "`cvta` address-space conversion (folds into the address)",
            Class::CvtZeroExtend => "integer zero extension",
            Class::CvtSignExtend => "integer sign extension (one shift)",
            Class::DivF32Approx => "`div.approx/.full.f32` (MUFU.RCP and a multiply)",
            Class::DivF32 => "IEEE `div.rn.f32` (the Newton sequence)",
            Class::DivF64 => "IEEE `div.rn.f64` (the Newton sequence in FP64)",
            Class::DivInt => "32-bit and narrower integer `div`/`rem`",
            Class::DivInt64 => "64-bit integer `div`/`rem` (a subroutine)",
            Class::SqrtF32 => "IEEE `sqrt`/`rcp` in f32 (not `.approx`)",
            Class::SqrtF64 => "IEEE `sqrt`/`rcp` in f64",
            Class::Int64 => "64-bit integer add/sub/min/max/neg/abs/logic (two 32-bit operations)",
            Class::Shift64 => "64-bit shifts",
            Class::Mul64 => "64-bit `mul.lo`/`mad.lo` (not `.wide`)",
            Class::Setp64 => "64-bit integer comparisons",
            Class::SfuRangeReduced => "`sin`/`cos.approx.f32` (range reduction and MUFU)",
            Class::SfuDenormalGuard => "`ex2`/`rsqrt.approx.f32` without `.ftz` (MUFU inside a denormal guard)",
            Class::RsqrtF64 => "`rsqrt.approx.f64` (MUFU.RSQ64H and a Newton step in FP64)",
            Class::Other => "every other instruction (one SASS instruction by default)",
        }
    }

    pub fn from_name(name: &str) -> Option<Class> {
        Class::ALL.into_iter().find(|c| c.name() == name)
    }

    /// First-principles counts from SASS listings of nvcc 13 for sm_90
    /// (validate/data/h200/sass/).
    pub fn default_ops(self) -> u8 {
        match self {
            Class::Entry => 2,
            Class::LdParam | Class::MovSpecial | Class::CvtSignExtend | Class::Other => 1,
            Class::Move | Class::Cvta | Class::CvtZeroExtend => 0,
            Class::DivF32Approx | Class::Int64 | Class::Shift64 | Class::Setp64 | Class::SfuRangeReduced => 2,
            Class::SfuDenormalGuard => 4,
            Class::DivF32 => 9,
            Class::DivF64 => 12,
            Class::RsqrtF64 => 14,
            Class::DivInt => 10,
            Class::DivInt64 => 40,
            Class::SqrtF32 => 5,
            Class::SqrtF64 => 10,
            Class::Mul64 => 3,
        }
    }
}

/// Machine ops per class: the defaults, with a preset's fitted values over them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CostTable([u8; Class::ALL.len()]);

impl Default for CostTable {
    fn default() -> Self {
        CostTable(Class::ALL.map(Class::default_ops))
    }
}

impl CostTable {
    pub fn get(&self, c: Class) -> u8 {
        self.0[c as usize]
    }

    pub fn set(&mut self, c: Class, ops: u8) {
        self.0[c as usize] = ops;
    }

    /// The defaults with `overrides` (class name → machine ops) applied; an unknown name is
    /// returned as the error.
    pub fn with<'a>(overrides: impl IntoIterator<Item = (&'a str, u8)>) -> Result<Self, String> {
        let mut t = CostTable::default();
        for (name, ops) in overrides {
            t.set(Class::from_name(name).ok_or_else(|| name.to_string())?, ops);
        }
        Ok(t)
    }
}

/// The class of one PTX instruction on its own (without fusion with its neighbours; see
/// [`program_costs`]).
pub fn class(inst: &Inst) -> Class {
    let m = &inst.m;
    let ty = m.ty();
    let wide64 = ty.bits() == 64 && !ty.is_float();
    match inst.op {
        Op::Mov => match inst.src().first() {
            Some(Opnd::Special(_)) => Class::MovSpecial,
            _ => Class::Move,
        },
        Op::Ld | Op::Ldu if m.space() == Space::Param => Class::LdParam,
        Op::St if m.space() == Space::Param => Class::Move,
        Op::Cvta if m.has(flag::TO) || m.space() == Space::Global => Class::Cvta,
        Op::Cvt => {
            let (d, s) = (m.ty(), m.ty2());
            match (d.is_float() || s.is_float(), d.bits() > s.bits() && s.is_signed()) {
                (true, _) => Class::Other,
                (false, true) => Class::CvtSignExtend,
                (false, false) => Class::CvtZeroExtend,
            }
        }
        Op::Div | Op::Rem => match ty {
            Ty::F32 if m.has(flag::APPROX) || m.has(flag::FULL) => Class::DivF32Approx,
            Ty::F32 => Class::DivF32,
            Ty::F64 => Class::DivF64,
            _ if wide64 => Class::DivInt64,
            _ => Class::DivInt,
        },
        Op::Sqrt | Op::Rcp if !m.has(flag::APPROX) => {
            if ty == Ty::F64 {
                Class::SqrtF64
            } else {
                Class::SqrtF32
            }
        }
        Op::Add | Op::Sub | Op::Min | Op::Max | Op::Neg | Op::Abs | Op::And | Op::Or | Op::Xor | Op::Not if wide64 => Class::Int64,
        Op::Shl | Op::Shr if wide64 => Class::Shift64,
        Op::Mul | Op::Mad if wide64 => Class::Mul64,
        Op::Setp if wide64 => Class::Setp64,
        Op::Sin | Op::Cos if ty == Ty::F32 => Class::SfuRangeReduced,
        Op::Ex2 | Op::Rsqrt if ty == Ty::F32 && !m.has(flag::FTZ) => Class::SfuDenormalGuard,
        Op::Rsqrt if ty == Ty::F64 => Class::RsqrtF64,
        _ => Class::Other,
    }
}

/// The base register of an address operand.
fn is_address_operand(o: &Opnd) -> Option<u32> {
    match o {
        Opnd::Addr { base: Base::Reg(r), .. } => Some(*r),
        _ => None,
    }
}

/// The class of every instruction of a program, `None` where address arithmetic fuses into the
/// memory instructions that consume it:
/// - an integer `add`/`sub` whose result is only ever used as a load/store address becomes part
///   of the addressing mode (`[R + imm]`, `[R + UR]`);
/// - a `shl` by 1–4 (or `mul.lo` by 2, 4, 8, 16) feeding only such fused adds becomes the scaled
///   index (`[R.X4 + UR]`);
/// - a 64-bit `add` whose other operand is a `mul.wide` used only there folds into that
///   `IMAD.WIDE`.
pub fn program_classes(p: &Program) -> Vec<Option<Class>> {
    let n = p.insts.len();
    // Uses of each register: (instruction, used as an address).
    let mut uses: Vec<Vec<(usize, bool)>> = vec![Vec::new(); p.regs.len()];
    let mut defs: Vec<Vec<usize>> = vec![Vec::new(); p.regs.len()];
    for (pc, i) in p.insts.iter().enumerate() {
        for &d in &i.defs {
            defs[d as usize].push(pc);
        }
        let mem = matches!(i.op, Op::Ld | Op::Ldu | Op::St | Op::Atom(_) | Op::Red(_));
        let mut roles: Vec<(u32, bool)> = Vec::new();
        for (k, o) in i.ops.iter().enumerate() {
            match is_address_operand(o) {
                Some(r) => roles.push((r, mem)),
                None if k >= i.ndst as usize => {
                    let mut rs = Vec::new();
                    o.regs(&mut rs);
                    roles.extend(rs.into_iter().map(|r| (r, false)));
                }
                None => {}
            }
        }
        if let Some(g) = i.guard {
            roles.push((g.reg, false));
        }
        for (r, as_addr) in roles {
            uses[r as usize].push((pc, as_addr));
        }
    }
    let single_def = |r: u32| defs[r as usize].len() == 1;
    let dst_reg = |i: &Inst| match i.ops.first() {
        Some(Opnd::Reg(r)) if i.ndst == 1 => Some(*r),
        _ => None,
    };
    let mut folded = vec![false; n];
    // Adds used only as addresses.
    for (pc, i) in p.insts.iter().enumerate() {
        if !matches!(i.op, Op::Add | Op::Sub) || i.m.ty().is_float() || i.guard.is_some() {
            continue;
        }
        let Some(d) = dst_reg(i) else { continue };
        if single_def(d) && !uses[d as usize].is_empty() && uses[d as usize].iter().all(|&(_, a)| a) {
            folded[pc] = true;
        }
    }
    // Scaled indices feeding only folded adds, and mul.wide + add.s64 pairs.
    for (pc, i) in p.insts.iter().enumerate() {
        let Some(d) = dst_reg(i) else { continue };
        let us = &uses[d as usize];
        if us.is_empty() || !single_def(d) || i.guard.is_some() {
            continue;
        }
        let scale = match (i.op, i.src().get(1)) {
            (Op::Shl, Some(Opnd::Imm(k))) => (1..=4).contains(k),
            (Op::Mul, Some(Opnd::Imm(k))) if !i.m.has(flag::WIDE) && !i.m.ty().is_float() => matches!(k, 2 | 4 | 8 | 16),
            _ => false,
        };
        if scale && us.iter().all(|&(u, _)| folded[u]) {
            folded[pc] = true;
        }
        if i.op == Op::Mul && i.m.has(flag::WIDE) && us.len() == 1 {
            let (u, _) = us[0];
            let ui = &p.insts[u];
            if ui.op == Op::Add && ui.m.ty().bits() == 64 && ui.guard.is_none() {
                folded[u] = true;
            }
        }
    }
    p.insts
        .iter()
        .zip(folded)
        .map(|(i, f)| {
            (!f).then(|| match class(i) {
                // A device function's parameters live in registers: reading one is a move.
                Class::LdParam if !reads_kernel_param(p, i) => Class::Move,
                c => c,
            })
        })
        .collect()
}

/// Whether `ld.param` reads one of the kernel's own parameters (the constant bank).
fn reads_kernel_param(p: &Program, i: &Inst) -> bool {
    i.src().iter().any(|o| matches!(o, Opnd::Addr { base: Base::Sym(s), .. } if p.params.contains(s)))
}

/// Machine ops of every instruction of a program under `table`: its class's count (0 when
/// fused), plus the kernel-entry prologue on instruction 0.
pub fn program_costs(p: &Program, table: &CostTable) -> Vec<u8> {
    if p.is_machine_code() {
        // A SASS program: every instruction is one machine op, its prologue included.
        return vec![1; p.insts.len()];
    }
    let mut cost: Vec<u8> = program_classes(p).into_iter().map(|c| c.map_or(0, |c| table.get(c))).collect();
    if let Some(first) = cost.first_mut() {
        *first = first.saturating_add(table.get(Class::Entry));
    }
    cost
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prog(body: &str) -> Program {
        let src = format!(
            ".version 9.0\n.target sm_90\n.entry k(.param .u64 p)\n{{\n.reg .pred %p;\n.reg .b32 %r<8>;\n.reg .b64 %rd<8>;\n.reg .f32 %f<4>;\n{body}\n}}\n"
        );
        crate::load(&src, "t.ptx").unwrap().remove(0)
    }

    #[test]
    fn folding_and_expansion() {
        let p = prog(
            "ld.param.u64 %rd1, [p];\ncvta.to.global.u64 %rd2, %rd1;\nmov.u32 %r1, %tid.x;\nmov.u32 %r2, %r1;\n\
             add.s64 %rd3, %rd2, 4;\nadd.s32 %r3, %r2, 1;\ndiv.rn.f32 %f1, %f2, %f3;\ncvt.u64.u32 %rd1, %r1;\ncvt.s64.s32 %rd1, %r1;\nret;",
        );
        // In source order (lowering's scheduler may move the division up).
        let mut insts: Vec<&Inst> = p.insts.iter().collect();
        insts.sort_by_key(|i| i.loc.ptx.line);
        let c: Vec<u8> = insts.iter().map(|i| CostTable::default().get(class(i))).collect();
        assert_eq!(c, vec![1, 0, 1, 0, 2, 1, 9, 0, 1, 1]);
    }

    #[test]
    fn sfu_approximations_cost_what_ptxas_wraps_around_the_mufu() {
        // H200 SASS: ex2/rsqrt without .ftz sit in a denormal guard (FSETP, FMUL, MUFU, FMUL);
        // with .ftz a bare MUFU; sin is FMUL.RZ + MUFU.SIN.
        let p = prog(
            "ex2.approx.f32 %f1, %f2;\nex2.approx.ftz.f32 %f1, %f2;\nrsqrt.approx.f32 %f1, %f2;\n\
             rsqrt.approx.ftz.f32 %f1, %f2;\nsin.approx.f32 %f1, %f2;\ncos.approx.ftz.f32 %f1, %f2;\nret;",
        );
        let c: Vec<u8> = p.insts.iter().map(|i| CostTable::default().get(class(i))).collect();
        assert_eq!(c, vec![4, 1, 4, 1, 2, 2, 1]);
    }

    #[test]
    fn address_arithmetic_fuses() {
        // j = chain[j]: mul.wide + add.s64 → one IMAD.WIDE; the shared index shift and add fold
        // into LDS [R.X4 + UR]; an add also used as a value does not fold.
        let p = prog(
            "mul.wide.u32 %rd3, %r1, 4;\nadd.s64 %rd4, %rd2, %rd3;\nld.global.u32 %r2, [%rd4];\n\
             shl.b32 %r3, %r2, 2;\nadd.s32 %r4, %r5, %r3;\nld.shared.u32 %r6, [%r4];\n\
             add.s32 %r7, %r6, 8;\nst.shared.u32 [%r7], %r7;\nret;",
        );
        // Instruction 0 also carries the two-instruction prologue.
        assert_eq!(program_costs(&p, &CostTable::default()), vec![3, 0, 1, 0, 0, 1, 1, 1, 1]);
        let fitted = CostTable::with([("entry", 1), ("other", 2)]).unwrap();
        assert_eq!(program_costs(&p, &fitted), vec![3, 0, 2, 0, 0, 2, 2, 2, 2]);
    }

    #[test]
    fn class_names_round_trip() {
        for c in Class::ALL {
            assert_eq!(Class::from_name(c.name()), Some(c));
        }
        assert_eq!(CostTable::with([("ld_parm", 1)]).unwrap_err(), "ld_parm");
    }
}
