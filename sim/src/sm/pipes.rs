//! Functional-unit pipes: where each instruction issues and how long it holds its pipe.
//!
//! Every sub-partition has one of each pipe (FP32, INT, IMAD, FP64, FP16, SFU, conversion, ALU,
//! branch, warp collectives, LSU, tensor, uniform), each free again `32 / lanes` cycles per
//! machine op after an issue; an instruction's result follows after the pipe's latency. The
//! [`IssueTable`], decoded once per kernel, gives each instruction its pipe, machine-op cost,
//! scoreboard registers and spill code; `Sm::timing` picks the latency model of its class
//! (fixed pipe latency, shared memory, constant cache, L1/L2, tensor core).

use warpsim_isa::ast::Space;
use warpsim_isa::control::{Control, Pipe as Unit};
use warpsim_isa::inst::{flag, AtomOp, Class, Inst, MatrixOp, Op};
use warpsim_isa::program::Program;
use warpsim_workloads::Spills;

use crate::config::{ArchConfig, Pipe};
use crate::exec::TraceSpace;
use crate::fault::Fault;

use super::{Dep, Sm};


/// Where an instruction issues: one pipe (an index into `SubPart::pipe_free`), or, for an
/// integer add or subtract of PTX mode that ptxas may emit as IADD3 (INT pipe) or IMAD.IADD (the
/// IMAD/FMA-heavy pipe), whichever of the two is free.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Issue {
    To(Unit),
    IntOrImul,
}
/// Pipes: every [`Unit`].
pub(super) const NUNITS: usize = 13;

pub(super) fn unit_of(c: Class) -> Unit {
    match c {
        Class::IntArith | Class::Logic => Unit::Int,
        Class::IntMul | Class::IntDiv => Unit::Imul,
        Class::Fp32 => Unit::Fp32,
        Class::Fp64 => Unit::Fp64,
        Class::Fp16 => Unit::Fp16,
        Class::Sfu => Unit::Sfu,
        Class::Conv => Unit::Conv,
        Class::Move | Class::ConstParam | Class::Misc | Class::Barrier => Unit::Alu,
        Class::Control => Unit::Branch,
        Class::Warp => Unit::Warp,
        Class::LoadGlobal | Class::StoreGlobal | Class::LoadShared | Class::StoreShared | Class::LocalMem | Class::Atomic | Class::Async => {
            Unit::Lsu
        }
        Class::Tensor => Unit::Tensor,
    }
}

pub(super) fn pipe(cfg: &ArchConfig, u: Unit) -> &Pipe {
    let p = &cfg.pipes;
    match u {
        // Its latency figure is the ALU's; its occupancy is one cycle whatever the lanes.
        Unit::Uniform => &p.alu,
        Unit::Fp32 => &p.fp32,
        Unit::Int => &p.int,
        Unit::Imul => &p.imul,
        Unit::Fp64 => &p.fp64,
        Unit::Fp16 => &p.fp16,
        Unit::Sfu => &p.sfu,
        Unit::Conv => &p.conv,
        Unit::Alu => &p.alu,
        Unit::Branch => &p.branch,
        Unit::Warp => &p.warp,
        Unit::Lsu => &p.lsu,
        Unit::Tensor => &p.tensor,
    }
}

/// What the scheduler looks up on every issue attempt, decoded once per kernel and shared by
/// the SMs.
pub struct IssueTable {
    pub(super) insts: Vec<IssueInfo>,
    /// Scoreboard registers, `IssueInfo::regs` ranges into it.
    pub(super) regs: Vec<u32>,
    /// Per-thread bytes of spill slots in local memory.
    pub(super) spill_frame: u64,
    /// Spill reloads and stores in the whole kernel.
    pub(super) spill_total: (u64, u64),
    /// Machine code with control bits (SASS mode): each instruction's, which the scheduler
    /// issues by instead of the register scoreboard; empty for PTX.
    pub(super) ctl: Vec<Control>,
}

/// The branches the SM's branch unit resolves after they issue (`Sm::resolve_branch`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Branch {
    /// Not a branch (or a call, a return, an exit).
    No,
    /// A branch to a label (`bra`, `BRA`): resolved only when it splits the warp.
    Direct,
    /// An indirect branch through a jump table (`brx.idx`, `BRX`).
    Indexed,
}

#[derive(Clone, Copy)]
pub(super) struct IssueInfo {
    /// Machine ops (`warpsim_isa::costs`); 0 for instructions ptxas folds away.
    pub(super) cost: u8,
    pub(super) unit: Issue,
    /// An mbarrier operation or a store to shared memory: may change cluster state warps sleep
    /// on (a store to global, local or parameter space cannot).
    pub(super) touches_cluster: bool,
    /// The registers the scoreboard checks: the uses, then the defs (a wgmma chain accumulates
    /// into D inside the tensor pipe, so it does not wait for D).
    pub(super) regs: (u32, u32),
    /// The FP-operation counter the instruction adds to ([`crate::flops::kind`]).
    pub(super) flops: Option<usize>,
    /// Spill reloads before it and spill stores after it (4-byte local accesses per lane), and
    /// the program-order index of its first of each: the k-th store writes slot k of the spill
    /// frame, and a reload reads the slot of the latest store before it, so a value is reloaded
    /// from where it was spilled, soon after.
    pub(super) spill_loads: u16,
    pub(super) spill_stores: u16,
    pub(super) spill_first: (u32, u32),
    /// A reduction (`RED`): what `reductions` says.
    pub(super) red: bool,
    /// A warp shuffle (`shfl.sync`).
    pub(super) shuffle: bool,
    /// A branch the SM's branch unit resolves after it issues (`Sm::resolve_branch`).
    pub(super) branch: Branch,
    /// A load or atomic of global, local or generic memory: it issues only while one of the
    /// SM's L1 miss slots (`l1.mshrs`) is free.
    pub(super) needs_mshr: bool,
}

/// Which atomics are reductions (`RED`: nothing returns, ncu counts `op_red`). In SASS mode
/// the opcode says (`REDG`/`RED` against `ATOMG`/`ATOM`, `PT, RZ` included). PTX's `red` is one;
/// an `atom` whose destination no instruction reads becomes one as ptxas 13.0.88 makes it for
/// sm_90 (`atomicAdd`/`Min`/`Max`/`Inc`/`Dec`/`And`/`Or`/`Xor` with the result unused:
/// `REDG.E.…`), except an exchange or a compare-and-swap (no `RED` form: `ATOMG.E.EXCH PT, RZ`)
/// and any atomic of a kernel with a memory fence (`membar`, `fence.sc`/`.acq_rel`: `MEMBAR`,
/// as `__threadfence` and its block form make: ptxas then keeps every atomic `ATOMG … PT, RZ`,
/// before the fence or after it; the threadFenceReduction pattern, blind6 `dot_f64_lastblock`,
/// whose three atomics per CTA the H200 counts as `op_atom`). `fence.proxy.*` and
/// `fence.mbarrier_init` make no `MEMBAR` and leave the `REDG`.
fn reductions(prog: &Program) -> impl Fn(&Inst) -> bool {
    let mut read = vec![false; prog.regs.len()];
    for r in prog.insts.iter().flat_map(|i| &i.uses) {
        read[*r as usize] = true;
    }
    let sass = !prog.control.is_empty();
    let fenced = prog.insts.iter().any(|i| match i.op {
        Op::Membar => true,
        Op::Fence => !i.m.has(flag::PROXY) && !i.m.has(flag::MBAR_INIT),
        _ => false,
    });
    move |inst: &Inst| match inst.op {
        Op::Red(_) => true,
        Op::Atom(AtomOp::Exch | AtomOp::Cas | AtomOp::CasFlag) => false,
        Op::Atom(_) => !sass && !fenced && inst.defs.iter().all(|&d| !read[d as usize]),
        _ => false,
    }
}

impl IssueTable {
    /// `spills`: the compiler's spill code for this kernel ([`spill_placement`] spreads it).
    pub fn new(prog: &Program, cfg: &ArchConfig, spills: &Spills) -> IssueTable {
        let costs = warpsim_isa::costs::program_costs(prog, &cfg.machine_ops.0);
        let reduction = reductions(prog);
        let (loads, stores) = (spill_placement(prog, &costs, spills.load_bytes / 4), spill_placement(prog, &costs, spills.store_bytes / 4));
        let mut regs = Vec::new();
        let mut first = (0u32, 0u32);
        let insts = prog
            .insts
            .iter()
            .zip(costs)
            .enumerate()
            .map(|(i, (inst, cost))| {
                let spill_first = first;
                first = (first.0 + u32::from(loads[i]), first.1 + u32::from(stores[i]));
                let accumulates = inst.op == Op::Matrix(MatrixOp::WgmmaMma);
                let start = regs.len() as u32;
                regs.extend(inst.uses.iter().chain(inst.defs.iter()).filter(|r| !(accumulates && inst.defs.contains(r))));
                IssueInfo {
                    cost,
                    unit: if let Some(c) = prog.control.get(i) {
                        Issue::To(c.pipe)
                    } else if cfg.pipes.iadd_on_imad && matches!(inst.op, Op::Add | Op::Sub) && inst.class == Class::IntArith {
                        Issue::IntOrImul
                    } else {
                        Issue::To(unit_of(inst.class))
                    },
                    touches_cluster: matches!(inst.op, Op::Mbarrier(_) | Op::St)
                        && inst.m.spaces.iter().any(|s| !matches!(s, Space::Global | Space::Local | Space::Param)),
                    regs: (start, regs.len() as u32),
                    flops: crate::flops::kind(inst),
                    spill_loads: loads[i],
                    spill_stores: stores[i],
                    spill_first,
                    red: reduction(inst),
                    shuffle: matches!(inst.op, Op::Shfl(_)),
                    branch: match inst.op {
                        Op::BrxIdx => Branch::Indexed,
                        Op::Bra => Branch::Direct,
                        _ => Branch::No,
                    },
                    needs_mshr: matches!(inst.op, Op::Ld | Op::Ldu | Op::Atom(_))
                        && matches!(inst.m.space(), Space::Global | Space::Local | Space::Generic),
                }
            })
            .collect();
        // Spill slots sit after the kernel's own local variables, as ptxas's stack frame does.
        let spill_frame = if spills.any() { u64::from(spills.stack_bytes.max(4)) } else { 0 };
        IssueTable { insts, regs, spill_frame, spill_total: (u64::from(first.0), u64::from(first.1)), ctl: prog.control.clone() }
    }

    /// The kernel's machine code in instructions: every PTX instruction's machine ops and the
    /// spill code (its static size, as ptxas lays it out; what instruction fetch reads).
    pub fn code_instructions(&self) -> u64 {
        let (loads, stores) = self.spill_total;
        self.insts.iter().map(|i| u64::from(i.cost)).sum::<u64>() + loads + stores
    }

    /// The pipe of the instruction at `pc` (the ALU beyond the program's end).
    pub(super) fn unit(&self, pc: u32) -> Issue {
        self.insts.get(pc as usize).map_or(Issue::To(Unit::Alu), |i| i.unit)
    }
}

/// Spreads `ops` spill accesses (4-byte, per thread) over the kernel's own instructions that
/// issue machine ops, evenly in program order: `ptxas -v` gives the static amount of spill code,
/// not where it sits, and a PTX instruction stands for the machine code around it. Straight-line
/// code runs each spill once per warp, as the H200 shows for `occ_regs_capped` (ncu: 349 more
/// instructions per warp than the PTX's, ptxas: 365 four-byte spill accesses); in a loop the
/// spills run every iteration, which is where ptxas puts them when the loop holds the pressure.
pub fn spill_placement(prog: &Program, costs: &[u8], ops: u32) -> Vec<u16> {
    let mut out = vec![0u16; prog.insts.len()];
    let body = prog.funcs.first().map_or(0..prog.insts.len(), |f| f.start as usize..f.end as usize);
    let sites: Vec<usize> = body.filter(|&i| costs.get(i).is_some_and(|&c| c > 0)).collect();
    let (n, ops) = (sites.len() as u64, u64::from(ops));
    for (k, &pc) in sites.iter().enumerate() {
        let k = k as u64;
        out[pc] = ((k + 1) * ops / n - k * ops / n).min(u16::MAX as u64) as u16;
    }
    out
}
pub(super) struct SubPart {
    pub(super) warps: Vec<usize>,
    pub(super) last: usize,
    pub(super) pipe_free: [u64; NUNITS],
    /// Cycle the dispatch is free again after an instruction's register-bank conflicts.
    pub(super) dispatch_free: u64,
}

impl SubPart {
    /// The cycle an instruction issuing to `u` finds a pipe free.
    pub(super) fn free_at(&self, u: Issue) -> u64 {
        match u {
            Issue::IntOrImul => self.pipe_free[Unit::Int as usize].min(self.pipe_free[Unit::Imul as usize]),
            Issue::To(u) => self.pipe_free[u as usize],
        }
    }

    /// The pipe an instruction issuing to `u` takes at `now`: `IntOrImul` takes the INT pipe when
    /// it is free, else the IMAD pipe.
    pub(super) fn pipe_for(&self, u: Issue, now: u64) -> Unit {
        match u {
            Issue::IntOrImul if self.pipe_free[Unit::Int as usize] <= now => Unit::Int,
            Issue::IntOrImul => Unit::Imul,
            Issue::To(u) => u,
        }
    }
}

impl Sm {
    /// Holds the pipes of an instruction issued to `unit` on sub-partition `sp`: `occupancy`
    /// cycles of `unit`, and the FP32 pipe for the `fp32_ops` around a multi-op SFU instruction.
    pub(super) fn occupy(&mut self, sp: usize, unit: Unit, occupancy: u64, fp32_ops: u64) {
        let now = self.now;
        let fp32 = self.cfg.pipes.fp32;
        let spp = &mut self.sps[sp];
        spp.pipe_free[unit as usize] = spp.pipe_free[unit as usize].max(now) + occupancy;
        if fp32_ops > 0 {
            let f = &mut spp.pipe_free[Unit::Fp32 as usize];
            *f = (*f).max(now) + (32 / fp32.lanes.max(1)).max(1) as u64 * fp32_ops;
        }
    }

    /// Latency, dependency kind and (for memory responses) the token of an issued instruction.
    pub(super) fn timing(&mut self, wi: usize, pc: u32, unit: Unit, pipe_lat: u64) -> Result<(u64, Dep, Option<u32>), Fault> {
        let op = self.k.prog.insts[pc as usize].op;
        if let Op::Matrix(mx) = op {
            // Fragment loads and stores move memory as the loads and stores they trace.
            if !matches!(mx, MatrixOp::Ldmatrix | MatrixOp::Stmatrix | MatrixOp::WmmaLoad | MatrixOp::WmmaStore) {
                return Ok(self.matrix_timing(wi, pc, mx));
            }
        }
        let cfg = &*self.cfg;
        let inst = &self.k.prog.insts[pc as usize];
        // An mbarrier operation that returns something (try_wait/test_wait's predicate, arrive's
        // state) answers after a round trip to the shared-memory unit (SYNCS in SASS).
        if matches!(op, Op::Mbarrier(_)) && !inst.defs.is_empty() {
            return Ok((cfg.misc.mbarrier_latency as u64, Dep::Short, None));
        }
        let tr = &self.trace;
        // Call-sequence parameters (`st.param`/`ld.param` on a frame slot) are registers in SASS.
        let call_param = tr.space == TraceSpace::Local && inst.m.space() == Space::Param;
        // A global or shared load, store or atomic whose guard is off in every lane still passes
        // the LSU's data stage: on the H200 ncu counts one shared-memory wavefront for it
        // (atom_bins' `@!P0 STG` after each ATOM: 32768 of its 40960; bfs_level's guarded stores;
        // the tree reductions' `@!P0 LDS`/`STS` once a warp's lanes have dropped out), and none
        // for a guarded-off `LDC` (atom_bins' `@!P0 LDC.64` beside that store).
        if tr.mask == 0
            && matches!(op, Op::Ld | Op::St | Op::Atom(_) | Op::Red(_))
            && matches!(inst.m.space(), Space::Global | Space::Generic | Space::Shared | Space::SharedCluster)
        {
            self.stats.smem_wavefronts += 1;
        }
        if tr.mask == 0 || tr.space == TraceSpace::None || call_param {
            let dep = match unit {
                Unit::Sfu | Unit::Warp | Unit::Conv => Dep::Short,
                _ => Dep::Fixed,
            };
            let lat = if op == Op::Bar(warpsim_isa::inst::BarOp::Sync) { 0 } else { pipe_lat };
            return Ok((lat, dep, None));
        }
        match tr.space {
            TraceSpace::Shared | TraceSpace::Remote => {
                let (lat, dep, token) = self.shared_timing();
                let extra = self.shared_atomic_loop(pc);
                if extra > 0 {
                    // The loop's branch waits for each pass: the warp issues nothing meanwhile.
                    if let Some(tw) = self.warps[wi].as_mut() {
                        tw.next = tw.next.max(self.now + lat + extra);
                        tw.next_dep = Dep::Short;
                    }
                }
                Ok((lat + extra, dep, token))
            }
            TraceSpace::Const | TraceSpace::Param => Ok(self.const_timing()),
            TraceSpace::Global | TraceSpace::Local => self.global_timing(wi, pc),
            TraceSpace::None => Ok((pipe_lat, Dep::Fixed, None)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::reductions;

    /// Which of a kernel's atomics are reductions, by `body`'s atomics in order.
    fn reds(body: &str) -> Vec<bool> {
        let src = format!(".version 9.0\n.target sm_90\n.entry k()\n{{\n.reg .b32 %r<4>;\n.reg .b64 %rd<4>;\n{body}\nret;\n}}\n");
        let prog = warpsim_isa::load(&src, "t.ptx").expect("PTX").remove(0);
        let red = reductions(&prog);
        prog.insts.iter().filter(|i| matches!(i.op, super::Op::Atom(_) | super::Op::Red(_))).map(|i| red(i)).collect()
    }

    #[test]
    fn unused_atomics_are_reductions_as_ptxas_makes_them() {
        // ptxas 13.0.88, sm_90: an unused add is `REDG`, a read one `ATOMG`, an unused exchange
        // or CAS stays `ATOMG … PT, RZ`, and `red` is `REDG`.
        let plain = "atom.global.add.u32 %r1, [%rd1], 1;\natom.global.add.u32 %r2, [%rd1], 1;\nadd.u32 %r3, %r2, 1;\n\
                     atom.global.exch.b32 %r1, [%rd1], 1;\natom.global.cas.b32 %r1, [%rd1], 1, 2;\nred.global.add.u32 [%rd1], 1;";
        assert_eq!(reds(plain), [true, false, false, false, true]);
        // A memory fence anywhere in the kernel keeps every atomic returning (`__threadfence`);
        // proxy and mbarrier-init fences make no `MEMBAR` and do not.
        for (fence, kept) in [("membar.gl;", true), ("fence.acq_rel.gpu;", true), ("membar.cta;", true), ("fence.proxy.async;", false), ("fence.mbarrier_init.release.cluster;", false)] {
            let body = format!("atom.global.add.u32 %r1, [%rd1], 1;\n{fence}\natom.global.inc.u32 %r1, [%rd1], 5;");
            assert_eq!(reds(&body), [!kept, !kept], "{fence}");
        }
    }
}
