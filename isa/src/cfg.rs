//! Control-flow graph and reconvergence points.
//!
//! Basic blocks per function, edges from branches (`bra`, `brx.idx` tables), fall-through and
//! exits (`ret`, `exit`, `trap` to a virtual exit node), and immediate post-dominators computed
//! with petgraph's dominator algorithm on the reversed graph. A divergent branch reconverges at
//! the first instruction of its block's immediate post-dominator (the classic SIMT-stack rule);
//! a block with no path to an exit (an infinite loop) reconverges only at function exit.

use petgraph::algo::dominators;
use petgraph::graph::{DiGraph, NodeIndex};

use crate::inst::{flag, Inst, Op, Opnd};
use crate::program::{Block, Program, RECONV_EXIT};

/// Successor instruction indices of the branch at `pc` (not counting fall-through).
fn targets(p: &Program, pc: usize) -> Vec<u32> {
    let inst = &p.insts[pc];
    match inst.op {
        Op::Bra => inst.ops.iter().filter_map(|o| if let Opnd::Label(t) = o { Some(*t) } else { None }).collect(),
        Op::BrxIdx => inst
            .ops
            .iter()
            .filter_map(|o| if let Opnd::Table(t) = o { p.tables.get(*t as usize) } else { None })
            .flatten()
            .copied()
            .collect(),
        _ => Vec::new(),
    }
}

fn ends_block(op: Op) -> bool {
    matches!(op, Op::Bra | Op::BrxIdx | Op::Ret | Op::Exit | Op::Trap)
}

/// Whether control can fall through the instruction to the next one, for reconvergence: a
/// machine-code call that returns (`call_returns`) comes back there.
fn falls_through(p: &Program, pc: usize, end: usize) -> bool {
    passes(&p.insts[pc]) || call_returns(p, pc, end)
}

/// Whether control can go on to the next instruction, calls aside.
fn passes(i: &Inst) -> bool {
    match i.op {
        Op::Bra | Op::Ret | Op::Exit | Op::Trap => i.guard.is_some(),
        Op::BrxIdx => false,
        _ => true,
    }
}

/// Whether the instruction leaves the code: `ret`, `exit`, `trap`, and a machine-code return
/// (`flag::SUBROUTINE`), whose return points the calls' fall-throughs stand for.
fn leaves(p: &Program, pc: usize) -> bool {
    let i = &p.insts[pc];
    matches!(i.op, Op::Ret | Op::Exit | Op::Trap) || (i.op == Op::BrxIdx && i.m.has(flag::SUBROUTINE))
}

/// Whether the instruction at `pc` is a machine-code call (`flag::SUBROUTINE` on a `bra`) whose
/// code reaches a machine-code return before `end`. ptxas also "calls" code that only exits
/// (sm_80's `@P0 CALL.REL` to an `EXIT` closing a loop): such a call is a branch.
fn call_returns(p: &Program, pc: usize, end: usize) -> bool {
    let i = &p.insts[pc];
    if i.op != Op::Bra || !i.m.has(flag::SUBROUTINE) {
        return false;
    }
    let mut seen = vec![false; end];
    let mut todo: Vec<usize> = targets(p, pc).into_iter().map(|t| t as usize).collect();
    while let Some(at) = todo.pop() {
        if at >= end || std::mem::replace(&mut seen[at], true) {
            continue;
        }
        let j = &p.insts[at];
        if j.op == Op::BrxIdx && j.m.has(flag::SUBROUTINE) {
            return true;
        }
        // A nested call is taken to return (to the next instruction); a jump goes on at its
        // targets.
        let call = j.op == Op::Bra && j.m.has(flag::SUBROUTINE);
        if !call {
            todo.extend(targets(p, at).into_iter().map(|t| t as usize));
        }
        if call || passes(j) {
            todo.push(at + 1);
        }
    }
    false
}

/// Basic blocks of the whole program and the reconvergence point of every instruction.
#[allow(clippy::needless_range_loop)] // lane/dimension-indexed arrays side by side
pub fn analyze(p: &Program) -> (Vec<Block>, Vec<u32>) {
    let mut blocks = Vec::new();
    let mut reconv = vec![RECONV_EXIT; p.insts.len()];
    for f in &p.funcs {
        let (s, e) = (f.start as usize, f.end as usize);
        if s == e {
            continue;
        }
        let mut leader = vec![false; e - s];
        leader[0] = true;
        for pc in s..e {
            for t in targets(p, pc) {
                if (s..e).contains(&(t as usize)) {
                    leader[t as usize - s] = true;
                }
            }
            if ends_block(p.insts[pc].op) && pc + 1 < e {
                leader[pc + 1 - s] = true;
            }
        }
        let starts: Vec<usize> = (s..e).filter(|&pc| leader[pc - s]).collect();
        let fb: Vec<Block> = starts
            .iter()
            .enumerate()
            .map(|(k, &st)| Block { start: st as u32, end: starts.get(k + 1).copied().unwrap_or(e) as u32 })
            .collect();
        let block_of = |pc: u32| fb.partition_point(|b| b.end <= pc);
        // Reversed graph: an edge b → a for every CFG edge a → b; node n = exit.
        let mut g: DiGraph<(), ()> = DiGraph::with_capacity(fb.len() + 1, fb.len() * 2);
        let nodes: Vec<NodeIndex> = (0..=fb.len()).map(|_| g.add_node(())).collect();
        let exit = nodes[fb.len()];
        for (bi, b) in fb.iter().enumerate() {
            let last = b.end as usize - 1;
            // A returning machine-code call's target and a machine-code return's return points
            // are not edges here (see `falls_through` and `leaves`).
            let ret = p.insts[last].op == Op::BrxIdx && p.insts[last].m.has(flag::SUBROUTINE);
            if !ret && !call_returns(p, last, e) {
                for t in targets(p, last) {
                    if (s..e).contains(&(t as usize)) {
                        g.add_edge(nodes[block_of(t)], nodes[bi], ());
                    }
                }
            }
            if leaves(p, last) {
                g.add_edge(exit, nodes[bi], ());
            }
            if falls_through(p, last, e) {
                if bi + 1 < fb.len() {
                    g.add_edge(nodes[bi + 1], nodes[bi], ());
                } else {
                    g.add_edge(exit, nodes[bi], ());
                }
            }
        }
        let dom = dominators::simple_fast(&g, exit);
        for (bi, b) in fb.iter().enumerate() {
            let last = b.end as usize - 1;
            reconv[last] = match dom.immediate_dominator(nodes[bi]) {
                Some(d) if d != exit => fb[d.index()].start,
                _ => RECONV_EXIT,
            };
        }
        for pc in s..e {
            if p.insts[pc].op == Op::Call {
                reconv[pc] = pc as u32 + 1;
            }
        }
        blocks.extend(fb);
    }
    (blocks, reconv)
}

#[cfg(test)]
mod tests {
    use crate::lower::load;
    use crate::program::RECONV_EXIT;

    #[test]
    fn if_else_reconverges_at_the_join() {
        let src = r#"
.version 9.0
.target sm_90
.entry k()
{
    .reg .pred %p;
    .reg .b32 %r<3>;
    setp.eq.s32 %p, %r1, 0;
    @%p bra $ELSE;
    add.s32 %r2, %r2, 1;
    bra.uni $JOIN;
$ELSE:
    add.s32 %r2, %r2, 2;
$JOIN:
    add.s32 %r2, %r2, 3;
    ret;
}
"#;
        let p = &load(src, "t.ptx").unwrap()[0];
        // pc: 0 setp, 1 @p bra, 2 add, 3 bra, 4 add (ELSE), 5 add (JOIN), 6 ret
        assert_eq!(p.blocks.len(), 4);
        assert_eq!(p.reconv[1], 5);
        assert_eq!(p.reconv[6], RECONV_EXIT);
    }

    #[test]
    fn loop_exit_branch_reconverges_after_the_loop() {
        let src = r#"
.version 9.0
.target sm_90
.entry k()
{
    .reg .pred %p;
    .reg .b32 %r<3>;
$LOOP:
    add.s32 %r1, %r1, 1;
    setp.lt.s32 %p, %r1, %r2;
    @%p bra $LOOP;
    ret;
}
"#;
        let p = &load(src, "t.ptx").unwrap()[0];
        assert_eq!(p.reconv[2], 3);
    }

    #[test]
    fn early_return_reconverges_at_exit() {
        let src = r#"
.version 9.0
.target sm_90
.entry k()
{
    .reg .pred %p;
    .reg .b32 %r<3>;
    setp.lt.s32 %p, %r1, %r2;
    @%p bra $END;
    add.s32 %r1, %r1, 1;
    ret;
$END:
    ret;
}
"#;
        let p = &load(src, "t.ptx").unwrap()[0];
        assert_eq!(p.reconv[1], RECONV_EXIT);
    }
}
