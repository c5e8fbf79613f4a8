//! Register-pressure estimate: the most 32-bit registers live at once, from backward liveness
//! over the CFG. Used for `launch__registers_per_thread` (and so occupancy) when a workload does
//! not state the count ptxas chose. Predicates live in their own register file and are not
//! counted; 64-bit values take two registers; 16-bit values one. ptxas's own allocation also
//! depends on scheduling and rematerialization, so this is an estimate, documented as such.

use crate::inst::Inst;
use crate::program::Program;
use crate::types::Ty;

fn weight(ty: Ty) -> u32 {
    match ty {
        Ty::Pred => 0,
        t if t.bits() > 32 => t.bits().div_ceil(32),
        _ => 1,
    }
}

/// A growable bitset over register indices.
#[derive(Clone, PartialEq, Eq)]
struct Bits(Vec<u64>);

impl Bits {
    fn new(n: usize) -> Bits {
        Bits(vec![0; n.div_ceil(64)])
    }
    fn set(&mut self, i: u32) {
        self.0[i as usize / 64] |= 1 << (i % 64);
    }
    fn clear(&mut self, i: u32) {
        self.0[i as usize / 64] &= !(1 << (i % 64));
    }
    fn union(&mut self, o: &Bits) {
        for (a, b) in self.0.iter_mut().zip(&o.0) {
            *a |= b;
        }
    }
    fn weighted(&self, w: &[u32]) -> u32 {
        let mut sum = 0;
        for (k, &word) in self.0.iter().enumerate() {
            let mut m = word;
            while m != 0 {
                let b = m.trailing_zeros() as usize;
                m &= m - 1;
                sum += w[k * 64 + b];
            }
        }
        sum
    }
}

/// Estimated registers per thread (at least 2, at most 255), rounded up to ptxas's multiple of 8
/// only by the occupancy calculation, not here.
pub fn estimate_registers(p: &Program) -> u32 {
    let n = p.regs.len();
    let w: Vec<u32> = p.regs.iter().map(|r| weight(r.ty)).collect();
    let nb = p.blocks.len();
    if nb == 0 {
        return 2;
    }
    let block_of = |pc: u32| p.blocks.partition_point(|b| b.end <= pc);
    // Successors of each block.
    let succs: Vec<Vec<usize>> = p
        .blocks
        .iter()
        .enumerate()
        .map(|(bi, b)| {
            let last = &p.insts[b.end as usize - 1];
            let mut s: Vec<usize> = Vec::new();
            for o in &last.ops {
                match o {
                    crate::inst::Opnd::Label(t) => s.push(block_of(*t)),
                    crate::inst::Opnd::Table(t) => s.extend(p.tables[*t as usize].iter().map(|&x| block_of(x))),
                    _ => {}
                }
            }
            let falls = match last.op {
                crate::inst::Op::Bra | crate::inst::Op::Ret | crate::inst::Op::Exit | crate::inst::Op::Trap => last.guard.is_some(),
                crate::inst::Op::BrxIdx => false,
                _ => true,
            };
            if falls && bi + 1 < nb && p.blocks[bi + 1].start == b.end {
                s.push(bi + 1);
            }
            s
        })
        .collect();
    let mut live_in = vec![Bits::new(n); nb];
    let mut changed = true;
    while changed {
        changed = false;
        for bi in (0..nb).rev() {
            let live = walk_back(p, bi, &succs[bi], &live_in, |_, _| {});
            if live != live_in[bi] {
                live_in[bi] = live;
                changed = true;
            }
        }
    }
    // Max pressure at any instruction (live-out of the instruction plus its definitions).
    let mut best = 0;
    for bi in 0..nb {
        walk_back(p, bi, &succs[bi], &live_in, |i, live| {
            let mut here = live.clone();
            for &d in &i.defs {
                here.set(d);
            }
            best = best.max(here.weighted(&w));
        });
    }
    best.clamp(2, 255)
}

/// Walks block `bi` backwards from its live-out (the union of its successors' live-in sets),
/// calling `at(inst, live-out of inst)` before stepping over each instruction; returns the
/// block's live-in.
fn walk_back(p: &Program, bi: usize, succs: &[usize], live_in: &[Bits], mut at: impl FnMut(&Inst, &Bits)) -> Bits {
    let mut live = Bits::new(p.regs.len());
    for &s in succs {
        live.union(&live_in[s]);
    }
    let b = p.blocks[bi];
    for pc in (b.start..b.end).rev() {
        let i = &p.insts[pc as usize];
        at(i, &live);
        for &d in &i.defs {
            // A guarded definition does not kill the old value.
            if i.guard.is_none() {
                live.clear(d);
            }
        }
        for &u in &i.uses {
            live.set(u);
        }
    }
    live
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_simultaneously_live_values() {
        let src = r#"
.version 9.0
.target sm_90
.entry k(.param .u64 p)
{
    .reg .pred %p;
    .reg .b32 %r<8>;
    .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [p];
    mov.u32 %r1, 1;
    mov.u32 %r2, 2;
    mov.u32 %r3, 3;
    add.s32 %r4, %r1, %r2;
    add.s32 %r5, %r4, %r3;
    setp.eq.s32 %p, %r5, 0;
    st.global.u32 [%rd1], %r5;
    ret;
}
"#;
        let p = &crate::load(src, "t.ptx").unwrap()[0];
        // After `mov %r3`: rd1 (2 registers) and r1, r2, r3 are live → 5; `add %r4` can reuse r1's.
        assert_eq!(estimate_registers(p), 5);
    }
}
