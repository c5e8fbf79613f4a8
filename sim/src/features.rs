//! Which instructions an architecture can execute.
//!
//! Before a timed run the program is checked against the preset's feature flags: an instruction
//! the generation lacks (shuffles before Kepler, tensor cores before Volta, `ldmatrix` before
//! Turing, `cp.async`/`mbarrier`/`redux` before Ampere, TMA, clusters and `wgmma` before Hopper)
//! is an error naming the instruction, its PTX line, the preset and the first generation that has
//! it — rather than a simulation of hardware that never existed.

use warpsim_isa::ast::Space;
use warpsim_isa::inst::{AtomOp, CpOp, Inst, MatrixOp, Op, Opnd};
use warpsim_isa::program::Program;
use warpsim_isa::types::SReg;

use crate::config::{ArchConfig, Features};

/// A feature an instruction needs: its name, the flag, and the first generation with it.
struct Need {
    what: &'static str,
    has: fn(&Features) -> bool,
    first: &'static str,
}

const SHUFFLE: Need = Need { what: "warp shuffles", has: |f| f.shuffle, first: "Kepler (sm_30, kepler-gk110)" };
const VOTE: Need = Need { what: "warp votes and barrier reductions", has: |f| f.warp_vote, first: "Fermi (sm_20, fermi-gf100)" };
const FLOAT_ATOMICS: Need = Need { what: "floating-point atomics", has: |f| f.float_atomics, first: "Fermi (sm_20, fermi-gf100)" };
const TENSOR: Need = Need { what: "tensor cores", has: |f| f.tensor_cores, first: "Volta (sm_70, volta-gv100)" };
const LDMATRIX: Need = Need { what: "ldmatrix/stmatrix", has: |f| f.ldmatrix, first: "Turing (sm_75, turing-tu102)" };
const CP_ASYNC: Need = Need { what: "cp.async and mbarrier", has: |f| f.cp_async, first: "Ampere (sm_80, ampere-ga100)" };
const REDUX: Need = Need { what: "redux.sync", has: |f| f.redux, first: "Ampere (sm_80, ampere-ga100)" };
const TMA: Need = Need { what: "the tensor memory accelerator (bulk copies)", has: |f| f.tma, first: "Hopper (sm_90, hopper-h100)" };
const CLUSTERS: Need = Need { what: "thread block clusters", has: |f| f.clusters, first: "Hopper (sm_90, hopper-h100)" };
const WGMMA: Need = Need { what: "warpgroup MMA", has: |f| f.wgmma, first: "Hopper (sm_90a, hopper-h100)" };

fn need(i: &Inst) -> Option<&'static Need> {
    let cluster_reg = i.ops.iter().any(|o| {
        matches!(
            o,
            Opnd::Special(
                SReg::ClusterId(_)
                    | SReg::NclusterId(_)
                    | SReg::ClusterCtaid(_)
                    | SReg::ClusterNctaid(_)
                    | SReg::ClusterCtarank
                    | SReg::ClusterNctarank
                    | SReg::IsExplicitCluster
            )
        )
    });
    Some(match i.op {
        Op::Shfl(_) => &SHUFFLE,
        Op::Vote(_) | Op::Bar(_) if !matches!(i.op, Op::Bar(warpsim_isa::inst::BarOp::Sync | warpsim_isa::inst::BarOp::Arrive)) => &VOTE,
        Op::Atom(AtomOp::Add) | Op::Red(AtomOp::Add) if i.m.ty().is_float() => &FLOAT_ATOMICS,
        Op::Matrix(MatrixOp::Mma | MatrixOp::WmmaLoad | MatrixOp::WmmaStore | MatrixOp::WmmaMma) => &TENSOR,
        Op::Matrix(MatrixOp::Ldmatrix | MatrixOp::Stmatrix | MatrixOp::Movmatrix) => &LDMATRIX,
        Op::Matrix(_) | Op::Setmaxnreg => &WGMMA,
        Op::Cp(CpOp::Async | CpOp::AsyncCommit | CpOp::AsyncWaitGroup | CpOp::AsyncWaitAll | CpOp::AsyncMbarArrive) | Op::Mbarrier(_) => &CP_ASYNC,
        Op::Cp(_) | Op::Tensormap => &TMA,
        Op::Redux(_) => &REDUX,
        Op::BarrierCluster(_) | Op::Mapa | Op::Getctarank | Op::Elect => &CLUSTERS,
        _ if i.m.spaces.contains(&Space::SharedCluster) || cluster_reg => &CLUSTERS,
        _ => return None,
    })
}

/// Checks every instruction of `prog` against `cfg`'s features.
pub fn check(prog: &Program, cfg: &ArchConfig) -> Result<(), String> {
    for (pc, i) in prog.insts.iter().enumerate() {
        if let Some(n) = need(i) {
            if !(n.has)(&cfg.features) {
                return Err(format!(
                    "`{}` ({}) uses {}, which preset `{}` ({}) does not have; the first generation with it is {}",
                    warpsim_isa::decode::op_name(i.op),
                    prog.source_line(pc as u32),
                    n.what,
                    cfg.name,
                    cfg.generation,
                    n.first
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::presets::preset;

    fn prog(body: &str) -> Program {
        let src = format!(".version 9.0\n.target sm_90\n.entry k()\n{{\n.reg .b32 %r<4>;\n.reg .b64 %rd<4>;\n.reg .pred %p;\n{body}\nret;\n}}\n");
        warpsim_isa::load(&src, "t.ptx").unwrap().remove(0)
    }

    #[test]
    fn generations_reject_what_they_lack() {
        let shfl = prog("shfl.sync.bfly.b32 %r1, %r2, 1, 31, -1;");
        let e = check(&shfl, &preset("fermi-gf100").unwrap()).unwrap_err();
        assert!(e.contains("shfl.sync") && e.contains("fermi-gf100") && e.contains("Kepler"), "{e}");
        assert!(check(&shfl, &preset("kepler-gk110").unwrap()).is_ok());
        let mbar = prog("mbarrier.init.shared::cta.b64 [%rd1], 1;");
        let e = check(&mbar, &preset("volta-gv100").unwrap()).unwrap_err();
        assert!(e.contains("Ampere"), "{e}");
        let tma = prog("cp.async.bulk.commit_group;");
        let e = check(&tma, &preset("ampere-ga100").unwrap()).unwrap_err();
        assert!(e.contains("Hopper") && e.contains("ampere-ga100"), "{e}");
        assert!(check(&tma, &preset("hopper-h200").unwrap()).is_ok());
        let cl = prog("mov.u32 %r1, %cluster_ctarank;");
        assert!(check(&cl, &preset("ada-ad102").unwrap()).unwrap_err().contains("clusters"));
    }
}
