//! Machine-op costs ("ptxas-aware lowering"): how many SASS instructions one PTX instruction
//! becomes.
//!
//! ptxas rewrites PTX heavily: register moves and immediate moves vanish into operands, kernel
//! parameters are read straight from the constant bank (`ld.param` folds away), `cvta.to.global`
//! is the identity, 64-bit integer arithmetic takes two 32-bit operations, and IEEE division,
//! remainders and square roots become multi-instruction sequences. The timing model issues
//! `machine_ops` issue slots for each PTX instruction and counts them in
//! `smsp__inst_executed.sum`, so the simulated instruction stream has the size of the SASS one.
//! These are first-principles counts from SASS listings of nvcc 13 for sm_90; `warpsim validate
//! calibrate` refines them against Nsight Compute's instruction counts.

use crate::ast::Space;
use crate::inst::{flag, Inst, Op, Opnd};
use crate::types::Ty;

/// SASS instructions issued for one execution of `inst` (0 for instructions that fold away).
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

#[cfg(test)]
mod tests {
    use super::*;

    fn ops_of(body: &str) -> Vec<u8> {
        let src = format!(
            ".version 9.0\n.target sm_90\n.entry k(.param .u64 p)\n{{\n.reg .pred %p;\n.reg .b32 %r<4>;\n.reg .b64 %rd<4>;\n.reg .f32 %f<4>;\n{body}\n}}\n"
        );
        crate::load(&src, "t.ptx").unwrap()[0].insts.iter().map(machine_ops).collect()
    }

    #[test]
    fn folding_and_expansion() {
        assert_eq!(
            ops_of(
                "ld.param.u64 %rd1, [p];\ncvta.to.global.u64 %rd2, %rd1;\nmov.u32 %r1, %tid.x;\nmov.u32 %r2, %r1;\n\
                 add.s64 %rd3, %rd2, 4;\nadd.s32 %r3, %r2, 1;\ndiv.rn.f32 %f1, %f2, %f3;\ncvt.u64.u32 %rd1, %r1;\ncvt.s64.s32 %rd1, %r1;\nret;"
            ),
            vec![0, 0, 1, 0, 2, 1, 9, 0, 1, 1]
        );
    }
}
