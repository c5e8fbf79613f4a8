//! Floating-point operation counters, as Nsight Compute's roofline counts them.
//!
//! Every issued `add`/`sub`, `mul` and `fma`/`mad` on a half, single or double precision type
//! counts once per thread that executes it (active and predicated on), under the names of ncu's
//! `smsp__sass_thread_inst_executed_op_{h,f,d}{add,mul,fma}_pred_on.sum`. A roofline then takes
//! `add + mul + 2 × fma` FLOPs per precision. Packed `f16x2`/`bf16x2` instructions count once per
//! thread, as ncu's thread-instruction counters do; tensor-core instructions are not FP operations
//! here (ncu counts them on separate pipes).

use warpsim_isa::inst::{flag, Inst, Op};

use crate::counters::Counter;
use warpsim_isa::types::Ty;

/// The counters, indexed by [`kind`]: precision (half, single, double) × (add, mul, fma).
pub const COUNTERS: [Counter; 9] = [
    Counter::FlopsHadd,
    Counter::FlopsHmul,
    Counter::FlopsHfma,
    Counter::FlopsFadd,
    Counter::FlopsFmul,
    Counter::FlopsFfma,
    Counter::FlopsDadd,
    Counter::FlopsDmul,
    Counter::FlopsDfma,
];

/// FLOPs per counted thread instruction, by position in [`COUNTERS`].
pub const FLOPS_PER_INST: [f64; 9] = [1.0, 1.0, 2.0, 1.0, 1.0, 2.0, 1.0, 1.0, 2.0];

/// The [`COUNTERS`] index an instruction counts under, if it is a floating-point add, multiply or
/// fused multiply-add.
pub fn kind(i: &Inst) -> Option<usize> {
    if i.m.has(flag::FMA_MOVE) {
        return Some(2);
    }
    let op = match i.op {
        Op::Add | Op::Sub => 0,
        Op::Mul => 1,
        Op::Fma | Op::Mad => 2,
        _ => return None,
    };
    let precision = match i.m.ty() {
        Ty::F16 | Ty::F16x2 | Ty::Bf16 | Ty::Bf16x2 => 0,
        Ty::F32 => 1,
        Ty::F64 => 2,
        _ => return None,
    };
    Some(precision * 3 + op)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(body: &str) -> Vec<Option<&'static str>> {
        let src = format!(
            ".version 9.0\n.target sm_90\n.entry k()\n{{\n.reg .b32 %r<4>;\n.reg .f32 %f<4>;\n.reg .f64 %d<4>;\n.reg .b16 %h<4>;\n{body}\nret;\n}}\n"
        );
        let p = warpsim_isa::load(&src, "t.ptx").unwrap().remove(0);
        // In source order (lowering's scheduler may reorder independent instructions).
        let mut insts: Vec<_> = p.insts.iter().collect();
        insts.sort_by_key(|i| i.loc.ptx.line);
        insts.iter().map(|i| kind(i).map(|k| COUNTERS[k].name())).collect()
    }

    #[test]
    fn classifies_by_operation_and_precision() {
        let k = kinds(
            "add.f32 %f1, %f2, %f3;\nsub.f64 %d1, %d2, %d3;\nmul.rn.f32 %f1, %f2, %f3;\nfma.rn.f64 %d1, %d2, %d3, %d1;\n\
             mad.rn.f32 %f1, %f2, %f3, %f1;\nfma.rn.f16 %h1, %h2, %h3, %h1;\nadd.s32 %r1, %r2, %r3;\nmax.f32 %f1, %f2, %f3;",
        );
        let name = |s: &str| Some(COUNTERS.iter().map(|c| c.name()).find(|n| n.contains(&format!("op_{s}_"))).unwrap());
        assert_eq!(
            k[..8],
            [name("fadd"), name("dadd"), name("fmul"), name("dfma"), name("ffma"), name("hfma"), None, None]
        );
    }
}
