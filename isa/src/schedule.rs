//! Instruction scheduling the way ptxas does it, in the one respect that matters most for timing:
//! loads are hoisted as early as their dependences allow within a basic block, so independent
//! long-latency loads are in flight together (nvcc's PTX interleaves each load with its use; the
//! SASS issues them back to back).
//!
//! The reordering is a list schedule of each block's dependence graph: register true, anti and
//! output dependences (predicates and the carry flag included), memory order between any store,
//! atomic or fence and every other memory access (loads may pass loads), and full barriers at
//! synchronization, control, clock reads and anything with side effects. Among ready
//! instructions, loads go first, then instructions computing load operands, then those heading
//! the longest chain of dependents (a transcendental, a division or an FP64 op counting four
//! steps), then the original order: independent chains interleave, as in ptxas's output, so
//! their latencies overlap (nvcc's PTX writes an unrolled loop's iterations one after another).
//! Functional results are unchanged.

use crate::ast::Space;
use crate::inst::{flag, Class, Inst, Op, Opnd};
use crate::program::Program;
use crate::types::SReg;

/// How an instruction orders against others.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Plain register computation.
    Alu,
    Load,
    /// A store, atomic or other memory write: ordered against every memory access.
    Store,
    /// Ordered against everything (barriers, fences, control, calls, clock reads, warp collectives,
    /// asynchronous machinery).
    Fence,
}

fn reads_clock(i: &Inst) -> bool {
    i.ops.iter().any(|o| matches!(o, Opnd::Special(SReg::Clock | SReg::ClockHi | SReg::Clock64 | SReg::Globaltimer | SReg::GlobaltimerLo | SReg::GlobaltimerHi)))
}

fn kind(i: &Inst) -> Kind {
    match i.op {
        Op::Ld | Op::Ldu if !i.m.has(flag::VOLATILE) && i.m.sem.is_none() => Kind::Load,
        Op::St | Op::Atom(_) | Op::Red(_) | Op::Prefetch => Kind::Store,
        _ if reads_clock(i) => Kind::Fence,
        _ if crate::eval::is_alu(i.op) || i.op == Op::Mov || i.op == Op::Cvta => {
            if i.m.has(flag::CC) || matches!(i.op, Op::Addc | Op::Subc | Op::Madc) {
                Kind::Fence
            } else {
                Kind::Alu
            }
        }
        _ => Kind::Fence,
    }
}

/// Whether two memory instructions may touch the same bytes: always, unless both name state
/// spaces and the spaces are disjoint (a `ld.global` never reads what a `st.shared` wrote; the
/// two shared-memory forms and generic addressing overlap everything they can map).
fn may_alias(a: &Inst, b: &Inst) -> bool {
    let class = |i: &Inst| match i.m.space() {
        Space::Shared | Space::SharedCluster => Some(0),
        Space::Global => Some(1),
        Space::Local => Some(2),
        Space::Const => Some(3),
        Space::Param => Some(4),
        _ => None,
    };
    match (class(a), class(b)) {
        (Some(x), Some(y)) => x == y,
        _ => true,
    }
}

/// Reorders every basic block of `p` (in place) and returns how many instructions moved.
pub fn schedule(p: &mut Program) -> usize {
    let mut moved = 0;
    let blocks = p.blocks.clone();
    for b in blocks {
        let (s, e) = (b.start as usize, b.end as usize);
        if e - s < 3 {
            continue;
        }
        // Keep a control transfer at the end of the block in place.
        let last_ctl = matches!(p.insts[e - 1].op, Op::Bra | Op::BrxIdx | Op::Ret | Op::Exit | Op::Trap | Op::Call);
        let end = if last_ctl { e - 1 } else { e };
        let n = end - s;
        if n < 2 {
            continue;
        }
        let kinds: Vec<Kind> = p.insts[s..end].iter().map(kind).collect();
        // preds[j] = number of unscheduled predecessors; succs[i] = dependents.
        let mut succs: Vec<Vec<usize>> = vec![Vec::new(); n];
        let mut preds = vec![0u32; n];
        for j in 0..n {
            let ij = &p.insts[s + j];
            for i in 0..j {
                let ii = &p.insts[s + i];
                let dep = kinds[i] == Kind::Fence
                    || kinds[j] == Kind::Fence
                    || (kinds[i] == Kind::Store && kinds[j] != Kind::Alu && may_alias(ii, ij))
                    || (kinds[j] == Kind::Store && kinds[i] != Kind::Alu && may_alias(ii, ij))
                    || ij.uses.iter().any(|r| ii.defs.contains(r))
                    || ij.defs.iter().any(|r| ii.uses.contains(r) || ii.defs.contains(r));
                if dep {
                    succs[i].push(j);
                    preds[j] += 1;
                }
            }
        }
        // Instructions computing a load's operands (addresses), directly or through others, run
        // early too (successors always come later in the block, so one backward sweep does it).
        let mut feeds_load = vec![false; n];
        for i in (0..n).rev() {
            feeds_load[i] = succs[i].iter().any(|&k| kinds[k] == Kind::Load || (kinds[k] == Kind::Alu && feeds_load[k]));
        }
        // Height: the longest chain of dependents below each instruction, a transcendental or
        // a division counting as several steps (ptxas issues the heads of independent chains
        // first, so their latencies overlap).
        let weight = |i: &Inst| match i.class {
            Class::Sfu | Class::IntDiv | Class::Fp64 => 4u32,
            _ => 1,
        };
        let mut height = vec![0u32; n];
        for i in (0..n).rev() {
            height[i] = weight(&p.insts[s + i]) + succs[i].iter().map(|&k| height[k]).max().unwrap_or(0);
        }
        let mut order = Vec::with_capacity(n);
        let mut ready: Vec<usize> = (0..n).filter(|&j| preds[j] == 0).collect();
        while !ready.is_empty() {
            // Loads first, then what feeds loads, then the longest chains, then original order.
            let pick = ready
                .iter()
                .enumerate()
                .min_by_key(|(_, &j)| (kinds[j] != Kind::Load, !feeds_load[j], std::cmp::Reverse(height[j]), j))
                .map(|(k, _)| k)
                .expect("ready is not empty");
            let j = ready.swap_remove(pick);
            order.push(j);
            for &k in &succs[j] {
                preds[k] -= 1;
                if preds[k] == 0 {
                    ready.push(k);
                }
            }
        }
        if order.iter().enumerate().any(|(a, &b)| a != b) {
            let old: Vec<Inst> = p.insts[s..end].to_vec();
            for (pos, &j) in order.iter().enumerate() {
                if pos != j {
                    moved += 1;
                }
                p.insts[s + pos] = old[j].clone();
            }
        }
    }
    moved
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::op_name;

    #[test]
    fn loads_hoist_above_independent_uses() {
        let src = r#"
.version 9.0
.target sm_90
.entry k(.param .u64 p)
{
    .reg .b64 %rd<6>;
    .reg .f32 %f<8>;
$L:
    ld.global.f32 %f1, [%rd1];
    ld.global.f32 %f2, [%rd2];
    fma.rn.f32 %f3, %f1, %f2, %f3;
    add.s64 %rd3, %rd1, 4;
    ld.global.f32 %f4, [%rd3];
    ld.global.f32 %f5, [%rd2+4];
    fma.rn.f32 %f3, %f4, %f5, %f3;
    st.global.f32 [%rd4], %f3;
    ld.global.f32 %f6, [%rd4];
    bra.uni $L;
}
"#;
        let mut p = crate::load(src, "t.ptx").unwrap().remove(0);
        schedule(&mut p);
        let ops: Vec<&str> = p.insts.iter().map(|i| op_name(i.op)).collect();
        // The second pair of loads moves above the first fma (ahead of the add computing one
        // of their addresses, which goes with it); the load after the store stays after it; the
        // branch stays last.
        assert_eq!(ops, ["ld", "ld", "ld", "add", "ld", "fma", "fma", "st", "ld", "bra"]);
    }

    #[test]
    fn independent_chains_interleave() {
        // Two dependent chains written one after the other (an unrolled loop's iterations in
        // nvcc's order): the heads go first, so each chain's latency hides behind the other's.
        let src = r#"
.version 9.0
.target sm_90
.entry k(.param .u64 p)
{
    .reg .f32 %f<8>;
    rsqrt.approx.f32 %f1, %f0;
    mul.f32 %f2, %f1, %f1;
    add.f32 %f3, %f2, %f0;
    rsqrt.approx.f32 %f4, %f0;
    mul.f32 %f5, %f4, %f4;
    add.f32 %f6, %f5, %f0;
    ret;
}
"#;
        let mut p = crate::load(src, "t.ptx").unwrap().remove(0);
        schedule(&mut p);
        let dsts: Vec<String> = p.insts.iter().filter(|i| i.ndst == 1).map(|i| format!("{}{:?}", op_name(i.op), i.defs)).collect();
        let first_two: Vec<&str> = dsts.iter().take(2).map(|s| &s[..5]).collect();
        assert_eq!(first_two, ["rsqrt", "rsqrt"], "{dsts:?}");
    }

    #[test]
    fn global_loads_pass_shared_stores_but_not_generic_ones() {
        // The transpose pattern: each global load's value goes to shared memory; ptxas issues
        // the loads back to back. A generic store may alias the global load and stays a barrier.
        let src = r#"
.version 9.0
.target sm_90
.entry k(.param .u64 p)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<6>;
    .reg .f32 %f<8>;
    ld.global.f32 %f1, [%rd1];
    st.shared.f32 [%r1], %f1;
    ld.global.f32 %f2, [%rd2];
    st.shared.f32 [%r1+4], %f2;
    ld.global.f32 %f3, [%rd3];
    st.f32 [%rd4], %f3;
    ld.global.f32 %f4, [%rd5];
    ret;
}
"#;
        let mut p = crate::load(src, "t.ptx").unwrap().remove(0);
        schedule(&mut p);
        let ops: Vec<String> = p.insts.iter().map(|i| format!("{}.{:?}", op_name(i.op), i.m.space())).collect();
        assert_eq!(
            ops,
            ["ld.Global", "ld.Global", "ld.Global", "st.Shared", "st.Shared", "st.Generic", "ld.Global", "ret.Generic"]
        );
    }
}
