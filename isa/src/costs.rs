//! Machine-op costs ("ptxas-aware lowering"): how many SASS instructions one PTX instruction
//! becomes.
//!
//! ptxas rewrites PTX heavily: register moves and immediate moves vanish into operands, kernel
//! parameters are read straight from the constant bank (`ld.param` folds away), `cvta.to.global`
//! is the identity, address arithmetic fuses into the memory instruction's addressing mode
//! (`[R + imm]`, `[R.X4 + UR]`, `IMAD.WIDE` absorbing the following 64-bit add), 64-bit integer
//! arithmetic takes two 32-bit operations, and IEEE division, remainders and square roots become
//! multi-instruction sequences. The timing model issues `machine_ops` slots for each PTX
//! instruction (a folded instruction costs no slot and no latency) and counts them in
//! `smsp__inst_executed.sum`, so the simulated instruction stream has the size of the SASS one.
//! These are first-principles counts from SASS listings of nvcc 13 for sm_90; `warpsim validate
//! calibrate` refines them against Nsight Compute's instruction counts.

use crate::ast::Space;
use crate::inst::{flag, Base, Inst, Op, Opnd};
use crate::program::Program;
use crate::types::Ty;

/// SASS instructions issued for one execution of `inst` on its own (without fusion with its
/// neighbours; see [`program_costs`]).
pub fn machine_ops(inst: &Inst) -> u8 {
    let m = &inst.m;
    let ty = m.ty();
    let wide64 = ty.bits() == 64 && !ty.is_float();
    let src = inst.src();
    match inst.op {
        Op::Mov => match src.first() {
            Some(Opnd::Special(_)) => 1,
            // Register copies, immediates and shared-symbol addresses fold into operands.
            _ => 0,
        },
        Op::Ld | Op::Ldu if m.space() == Space::Param => 0,
        Op::St if m.space() == Space::Param => 0,
        Op::Cvta if m.has(flag::TO) || m.space() == Space::Global => 0,
        Op::Cvt => {
            let (d, s) = (m.ty(), m.ty2());
            if !d.is_float() && !s.is_float() {
                // Integer widening/narrowing: zero-extension and truncation are free; sign
                // extension is one shift.
                (d.bits() > s.bits() && s.is_signed()) as u8
            } else {
                1
            }
        }
        Op::Div | Op::Rem => match ty {
            Ty::F32 if m.has(flag::APPROX) || m.has(flag::FULL) => 2,
            Ty::F32 => 9,
            Ty::F64 => 12,
            _ if wide64 => 40,
            _ => 10,
        },
        Op::Sqrt | Op::Rcp if !m.has(flag::APPROX) => {
            if ty == Ty::F64 {
                10
            } else {
                5
            }
        }
        Op::Add | Op::Sub | Op::Min | Op::Max | Op::Neg | Op::Abs | Op::And | Op::Or | Op::Xor | Op::Not if wide64 => 2,
        Op::Shl | Op::Shr if wide64 => 2,
        Op::Mul | Op::Mad if wide64 => 3,
        Op::Setp if wide64 => 2,
        _ => 1,
    }
}

/// The base register of an address operand.
fn is_address_operand(o: &Opnd) -> Option<u32> {
    match o {
        Opnd::Addr { base: Base::Reg(r), .. } => Some(*r),
        _ => None,
    }
}

/// Machine ops of every instruction of a program, with address arithmetic fused into the memory
/// instructions that consume it:
/// - an integer `add`/`sub` whose result is only ever used as a load/store address becomes part
///   of the addressing mode (`[R + imm]`, `[R + UR]`);
/// - a `shl` by 1–4 (or `mul.lo` by 2, 4, 8, 16) feeding only such fused adds becomes the scaled
///   index (`[R.X4 + UR]`);
/// - a 64-bit `add` whose other operand is a `mul.wide` used only there folds into that
///   `IMAD.WIDE`.
pub fn program_costs(p: &Program) -> Vec<u8> {
    let n = p.insts.len();
    let mut cost: Vec<u8> = p.insts.iter().map(machine_ops).collect();
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
    for (c, f) in cost.iter_mut().zip(folded) {
        if f {
            *c = 0;
        }
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
        let c: Vec<u8> = p.insts.iter().map(machine_ops).collect();
        assert_eq!(c, vec![0, 0, 1, 0, 2, 1, 9, 0, 1, 1]);
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
        assert_eq!(program_costs(&p), vec![1, 0, 1, 0, 0, 1, 1, 1, 1]);
    }
}
