//! One streaming multiprocessor in time: resident CTAs and warps, sub-partition schedulers, the
//! scoreboard, functional-unit pipes, shared memory banks, the L1 and the path to L2.
//!
//! Each cycle every sub-partition's scheduler picks an eligible warp (operands ready by the
//! scoreboard, pipe free, not blocked at a barrier) by its policy and issues it: the instruction
//! executes functionally right then (`exec::step`), and its timing follows from its class —
//! fixed pipe latency, shared-memory wavefronts, L1 hit latency, or an outstanding request to L2
//! whose completion arrives when the engine merges the window. When nothing can issue, the clock
//! skips to the next event. Stall cycles are attributed per warp to Nsight Compute's warp states.

use std::sync::Arc;

use warpsim_isa::ast::Space;
use warpsim_isa::control::{Control, Pipe as Unit};
use warpsim_isa::inst::{Class, MatrixOp, Op};
use warpsim_isa::types::CacheOp;
use warpsim_isa::program::Program;
use warpsim_workloads::Spills;

use crate::banks;
use crate::cache::SectorCache;
use crate::coalescer::{coalesce, Txn, LINE, SECTOR};
use crate::config::{ArchConfig, Pipe, SchedulerPolicy};
use crate::counters::Stall;
use crate::cluster::Arena;
use crate::cta::{Arrival, Release};
use crate::exec::{self, AsyncEvent, AsyncGroup, Env, MemTrace, Step, TraceSpace};
use crate::exec_async::{apply_event, phase_of};
use crate::fault::Fault;
use crate::kernel::Kernel;
use crate::l2::{AtomShape, MemReq, ReqKind};
use crate::memory::{DeviceMemory, LOCAL_WINDOW};
use crate::overlay::{Log, View};
use crate::warp::{Warp, WarpState};

/// Register ready time meaning "waiting for a memory response".
pub const PENDING: u64 = u64::MAX;

/// What a warp waits on (for stall attribution).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Dep {
    #[default]
    None,
    /// A fixed-latency ALU result.
    Fixed,
    /// Shared memory, SFU, warp collectives (the MIO path).
    Short,
    /// Global/local memory through L1TEX.
    Long,
    Barrier,
    /// The CTA was just launched.
    Launch,
}

/// The warp state a warp waiting on `d` is in (an index of `SmStats::stall_cycles`).
fn stall_index(d: Dep) -> usize {
    let s = match d {
        Dep::Fixed => Stall::Wait,
        Dep::Short => Stall::ShortScoreboard,
        Dep::Long => Stall::LongScoreboard,
        Dep::Barrier => Stall::Barrier,
        Dep::None | Dep::Launch => Stall::Misc,
    };
    s as usize
}

/// Where an instruction issues: one pipe (an index into `SubPart::pipe_free`), or, for an
/// integer add or subtract of PTX mode that ptxas may emit as IADD3 (INT pipe) or IMAD.IADD (the
/// IMAD/FMA-heavy pipe), whichever of the two is free.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Issue {
    To(Unit),
    IntOrImul,
}
/// Pipes: every [`Unit`].
const NUNITS: usize = 13;

fn unit_of(c: Class) -> Unit {
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

fn pipe(cfg: &ArchConfig, u: Unit) -> &Pipe {
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
    insts: Vec<IssueInfo>,
    /// Scoreboard registers, `IssueInfo::regs` ranges into it.
    regs: Vec<u32>,
    /// Per-thread bytes of spill slots in local memory.
    spill_frame: u64,
    /// Spill reloads and stores in the whole kernel.
    spill_total: (u64, u64),
    /// Machine code with control bits (SASS mode): each instruction's, which the scheduler
    /// issues by instead of the register scoreboard; empty for PTX.
    ctl: Vec<Control>,
}

#[derive(Clone, Copy)]
struct IssueInfo {
    /// Machine ops (`warpsim_isa::costs`); 0 for instructions ptxas folds away.
    cost: u8,
    unit: Issue,
    /// An mbarrier operation or a store to shared memory: may change cluster state warps sleep
    /// on (a store to global, local or parameter space cannot).
    touches_cluster: bool,
    /// The registers the scoreboard checks: the uses, then the defs (a wgmma chain accumulates
    /// into D inside the tensor pipe, so it does not wait for D).
    regs: (u32, u32),
    /// The FP-operation counter the instruction adds to ([`crate::flops::kind`]).
    flops: Option<usize>,
    /// Spill reloads before it and spill stores after it (4-byte local accesses per lane), and
    /// the program-order index of its first of each: the k-th store writes slot k of the spill
    /// frame, and a reload reads the slot of the latest store before it, so a value is reloaded
    /// from where it was spilled, soon after.
    spill_loads: u16,
    spill_stores: u16,
    spill_first: (u32, u32),
    /// An atomic whose destination no instruction reads (ptxas emits `RED`).
    red: bool,
    /// A warp shuffle (`shfl.sync`).
    shuffle: bool,
    /// A load or atomic of global, local or generic memory: it issues only while one of the
    /// SM's L1 miss slots (`l1.mshrs`) is free.
    needs_mshr: bool,
}

impl IssueTable {
    /// `spills`: the compiler's spill code for this kernel ([`spill_placement`] spreads it).
    pub fn new(prog: &Program, cfg: &ArchConfig, spills: &Spills) -> IssueTable {
        let costs = warpsim_isa::costs::program_costs(prog, &cfg.machine_ops.0);
        let mut read = vec![false; prog.regs.len()];
        for r in prog.insts.iter().flat_map(|i| &i.uses) {
            read[*r as usize] = true;
        }
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
                    red: matches!(inst.op, Op::Atom(_)) && inst.defs.iter().all(|&d| !read[d as usize]),
                    shuffle: matches!(inst.op, Op::Shfl(_)),
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
    fn unit(&self, pc: u32) -> Issue {
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

/// Per-SM event counters.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SmStats {
    /// Machine ops issued (`smsp__inst_executed`).
    pub inst_executed: u64,
    /// PTX warp instructions executed.
    pub warp_insts: u64,
    pub active_cycles: u64,
    /// Σ resident warps × cycles.
    pub warp_cycles: u64,
    pub l1_sectors_global_ld: u64,
    pub l1_hit_sectors_global_ld: u64,
    pub l1_requests_global_ld: u64,
    pub l1_sectors_global_st: u64,
    pub smem_wavefronts: u64,
    pub smem_bank_conflicts: u64,
    /// Warp-cycles per warp state, indexed by [`Stall`].
    pub stall_cycles: [u64; 8],
    pub ctas: u64,
    /// Thread-level FP operations by kind ([`crate::flops::COUNTERS`]).
    pub flops: [u64; 9],
}

/// A scheduled warp.
struct TWarp {
    w: Warp,
    cta: usize,
    sp: usize,
    reg_ready: Vec<u64>,
    reg_dep: Vec<Dep>,
    /// Earliest cycle the next instruction may issue, and why not earlier.
    next: u64,
    next_dep: Dep,
    /// The pipe the next instruction issues to.
    unit: Issue,
    /// The next instruction needs an L1 miss slot ([`IssueInfo::needs_mshr`]).
    needs_mshr: bool,
    /// Cycle after the last issue (stall accounting starts here).
    accounted: u64,
    age: u64,
    uid: u64,
    /// Asynchronous copy groups: [Ampere cp.async, bulk], oldest first.
    groups: [std::collections::VecDeque<Group>; 2],
    /// `wait_group` the warp sleeps in: (bulk, n).
    waiting_groups: Option<(usize, u32)>,
    /// `cp.async.mbarrier.arrive` events waiting for the warp's copies to finish.
    after_copies: Vec<AsyncEvent>,
    /// `wgmma`: completion of the open (uncommitted) batch and of committed groups, oldest first.
    wgmma_open: u64,
    wgmma_groups: std::collections::VecDeque<u64>,
    /// Machine code: the six scoreboard barriers, each the release cycles of the results and
    /// operand reads still counted on it (`PENDING` until a memory response gives the cycle),
    /// and what the latest one set on it waits for.
    sb: [Vec<u64>; 6],
    sb_dep: [Dep; 6],
    /// Machine code: the last instruction issued asked the scheduler to switch warps.
    yielded: bool,
}

/// The cycle from which at most `n` of a scoreboard barrier's counted releases are outstanding
/// (`PENDING` while that depends on a memory response).
fn barrier_free_at(times: &[u64], n: usize) -> u64 {
    if times.len() <= n {
        return 0;
    }
    if n == 0 {
        // A wait mask: every release (the common case, without sorting).
        return times.iter().copied().max().unwrap_or(0);
    }
    let mut t: Vec<u64> = times.to_vec();
    t.sort_unstable_by(|a, b| b.cmp(a));
    t[n]
}

/// One asynchronous copy group of a warp.
#[derive(Debug, Clone, Copy)]
struct Group {
    id: u64,
    outstanding: u32,
    committed: bool,
}

impl TWarp {
    /// Committed groups still in flight of one kind.
    fn pending_groups(&self, kind: usize) -> u32 {
        self.groups[kind].iter().filter(|g| g.committed && g.outstanding > 0).count() as u32
    }

    /// The open (uncommitted) group of a kind, created on demand.
    fn open_group(&mut self, kind: usize, id: u64) -> &mut Group {
        if self.groups[kind].back().is_none_or(|g| g.committed) {
            self.groups[kind].push_back(Group { id, outstanding: 0, committed: false });
        }
        self.groups[kind].back_mut().expect("just pushed")
    }
}

/// A resident CTA: its cluster (in the GPC's arena), its rank there, and its warps.
struct CtaSlot {
    cluster: usize,
    rank: usize,
    warps: Vec<usize>,
    live_warps: u32,
}

struct SubPart {
    warps: Vec<usize>,
    last: usize,
    pipe_free: [u64; NUNITS],
}

impl SubPart {
    /// The cycle an instruction issuing to `u` finds a pipe free.
    fn free_at(&self, u: Issue) -> u64 {
        match u {
            Issue::IntOrImul => self.pipe_free[Unit::Int as usize].min(self.pipe_free[Unit::Imul as usize]),
            Issue::To(u) => self.pipe_free[u as usize],
        }
    }

    /// The pipe an instruction issuing to `u` takes at `now`: `IntOrImul` takes the INT pipe when
    /// it is free, else the IMAD pipe.
    fn pipe_for(&self, u: Issue, now: u64) -> Unit {
        match u {
            Issue::IntOrImul if self.pipe_free[Unit::Int as usize] <= now => Unit::Int,
            Issue::IntOrImul => Unit::Imul,
            Issue::To(u) => u,
        }
    }
}

struct Token {
    warp: usize,
    regs: Vec<u32>,
    outstanding: u32,
    ready: u64,
    dep: Dep,
    /// mbarrier events to apply when the data has arrived (TMA, bulk copies).
    actions: Vec<AsyncEvent>,
    /// The copy group (kind, id) the request belongs to.
    group: Option<(usize, u64)>,
    /// Machine code: the scoreboard barrier the response releases.
    sb: Option<u8>,
}

/// A request leaving this SM for the memory system.
#[derive(Debug, Clone, Copy)]
pub struct OutReq {
    pub req: MemReq,
    pub token: Option<u32>,
    /// The request holds one of the SM's L1 miss slots until its data returns.
    pub mshr: bool,
}

/// Resources one CTA takes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CtaRes {
    pub threads: u32,
    pub warps: u32,
    pub regs: u32,
    pub smem: u32,
}

pub struct Sm {
    pub id: u32,
    pub now: u64,
    cfg: Arc<ArchConfig>,
    k: Arc<Kernel>,
    table: Arc<IssueTable>,
    warps: Vec<Option<TWarp>>,
    /// Warps of the resident CTAs that have not exited.
    resident: u64,
    ctas: Vec<Option<CtaSlot>>,
    sps: Vec<SubPart>,
    l1: SectorCache,
    l1_free: u64,
    /// Loads that hit an L1 line whose fill is outstanding (MSHR merges): line → (token, cycle).
    mshr_waiters: std::collections::HashMap<u64, Vec<(u32, u64)>>,
    /// L1 miss slots in use: requests sent this window (their return is not known yet), and
    /// the return cycles of those the memory system has answered, earliest first.
    mshr_sent: u32,
    mshr_release: std::collections::BinaryHeap<std::cmp::Reverse<u64>>,
    /// Cycle the shared-memory data path is free again.
    smem_free: u64,
    /// Retired warps whose buffers the next admitted warps reuse.
    spare: Vec<TWarp>,
    /// Cycle the CTA launcher is free again: an SM launches its CTAs one at a time.
    launch_free: u64,
    l1_caches_global: bool,
    tokens: Vec<Option<Token>>,
    free_tokens: Vec<u32>,
    pub outbox: Vec<OutReq>,
    pub log: Log,
    /// Linear ids of CTAs that finished in this window, with their end cycle.
    pub finished: Vec<(u64, u64)>,
    pub stats: SmStats,
    pub used: CtaRes,
    trace: MemTrace,
    asyncs: Vec<crate::exec::AsyncEvent>,
    txns: Vec<Txn>,
    next_age: u64,
    local_stride: u64,
    /// Timed mbarrier events: (cycle, sequence) → (CTA slot, event).
    events: std::collections::BinaryHeap<std::cmp::Reverse<(u64, u64)>>,
    event_slab: Vec<Option<(usize, AsyncEvent)>>,
    next_group: u64,
    /// `WARPSIM_TRACE_ISSUE=1`: print every issue to stderr (debugging aid).
    trace_issue: bool,
}

impl Sm {
    pub fn new(id: u32, cfg: Arc<ArchConfig>, k: Arc<Kernel>, table: Arc<IssueTable>, l1_bytes: u64) -> Sm {
        let nsp = cfg.sm.sub_partitions.max(1) as usize;
        let l1_caches_global = cfg.features.l1_caches_global;
        Sm {
            id,
            now: 0,
            l1: SectorCache::new(l1_bytes.max(LINE), LINE as u32, cfg.l1.assoc).with_fill_block(cfg.l1.sector / SECTOR as u32),
            l1_free: 0,
            mshr_waiters: std::collections::HashMap::new(),
            mshr_sent: 0,
            mshr_release: std::collections::BinaryHeap::new(),
            smem_free: 0,
            spare: Vec::new(),
            launch_free: 0,
            l1_caches_global,
            warps: Vec::new(),
            resident: 0,
            ctas: Vec::new(),
            sps: (0..nsp).map(|_| SubPart { warps: Vec::new(), last: 0, pipe_free: [0; NUNITS] }).collect(),
            tokens: Vec::new(),
            free_tokens: Vec::new(),
            outbox: Vec::new(),
            log: Log::default(),
            finished: Vec::new(),
            stats: SmStats::default(),
            used: CtaRes::default(),
            trace: MemTrace::default(),
            asyncs: Vec::new(),
            txns: Vec::new(),
            next_age: 0,
            local_stride: (k.local_limit + table.spill_frame).max(1),
            events: std::collections::BinaryHeap::new(),
            event_slab: Vec::new(),
            next_group: 0,
            trace_issue: std::env::var_os("WARPSIM_TRACE_ISSUE").is_some(),
            cfg,
            k,
            table,
        }
    }

    pub fn resident_ctas(&self) -> usize {
        self.ctas.iter().filter(|c| c.is_some()).count()
    }

    pub fn idle(&self) -> bool {
        self.resident_ctas() == 0
    }

    /// The cycle a CTA assigned now may start issuing: launches on an SM are serialized, each
    /// taking `sm.cta_launch_latency` cycles (fitted to `launch_wide`: 4224 one-warp CTAs).
    pub fn launch_slot(&mut self) -> u64 {
        let start = self.now.max(self.launch_free) + self.cfg.sm.cta_launch_latency as u64;
        self.launch_free = start;
        start
    }

    /// Places a CTA (rank `rank` of arena cluster `cluster`) on this SM; its warps may issue
    /// from `start`.
    pub fn admit(&mut self, cluster: usize, rank: usize, res: CtaRes, start: u64, first_warp_uid: u64) {
        let k = &self.k;
        let d = &k.dims;
        let threads = d.threads_per_cta();
        let slot = match self.ctas.iter().position(|c| c.is_none()) {
            Some(i) => i,
            None => {
                self.ctas.push(None);
                self.ctas.len() - 1
            }
        };
        let nregs = k.prog.regs.len();
        let frame0 = k.prog.funcs.first().map_or(0, |f| f.frame_size);
        let mut wids = Vec::new();
        let nsp = self.sps.len();
        for s in 0..d.warps_per_cta() {
            // A retired warp's buffers serve the new one (no allocation per warp).
            let (mut w, mut reg_ready, mut reg_dep, mut groups, mut after_copies, mut wgmma_groups, mut sb) = match self.spare.pop() {
                Some(mut t) => {
                    t.w.reset(s, threads, &k.prog);
                    (t.w, t.reg_ready, t.reg_dep, t.groups, t.after_copies, t.wgmma_groups, t.sb)
                }
                None => (Warp::new(s, threads, &k.prog), Vec::new(), Vec::new(), Default::default(), Vec::new(), Default::default(), Default::default()),
            };
            sb.iter_mut().for_each(Vec::clear);
            if frame0 > 0 {
                w.ensure_local(frame0);
            }
            reg_ready.clear();
            reg_ready.resize(nregs, 0);
            reg_dep.clear();
            reg_dep.resize(nregs, Dep::None);
            groups.iter_mut().for_each(|g: &mut std::collections::VecDeque<Group>| g.clear());
            after_copies.clear();
            wgmma_groups.clear();
            let wi = match self.warps.iter().position(|x| x.is_none()) {
                Some(i) => i,
                None => {
                    self.warps.push(None);
                    self.warps.len() - 1
                }
            };
            let sp = wi % nsp;
            self.warps[wi] = Some(TWarp {
                w,
                cta: slot,
                sp,
                reg_ready,
                reg_dep,
                next: start,
                next_dep: Dep::Launch,
                unit: self.table.unit(0),
                needs_mshr: self.table.insts.first().is_some_and(|i| i.needs_mshr),
                accounted: self.now.min(start),
                age: self.next_age,
                uid: first_warp_uid + s as u64,
                groups,
                waiting_groups: None,
                after_copies,
                wgmma_open: 0,
                wgmma_groups,
                sb,
                sb_dep: [Dep::None; 6],
                yielded: false,
            });
            self.next_age += 1;
            self.sps[sp].warps.push(wi);
            wids.push(wi);
        }
        let live_warps = wids.len() as u32;
        self.resident += live_warps as u64;
        self.ctas[slot] = Some(CtaSlot { cluster, rank, warps: wids, live_warps });
        self.used.threads += res.threads;
        self.used.warps += res.warps;
        self.used.regs += res.regs;
        self.used.smem += res.smem;
        self.stats.ctas += 1;
    }

    /// Advances the clock to `t`, accumulating occupancy.
    fn advance(&mut self, t: u64) {
        if t <= self.now {
            return;
        }
        let dt = t - self.now;
        let rw = self.resident;
        if rw > 0 {
            self.stats.active_cycles += dt;
            self.stats.warp_cycles += rw * dt;
        }
        self.now = t;
    }

    /// Earliest cycle the warp's next instruction may issue, from the scoreboard, and its pipe.
    fn refresh(&mut self, wi: usize) {
        let Some(tw) = self.warps[wi].as_mut() else { return };
        let pc = tw.w.pc();
        tw.unit = self.table.unit(pc);
        let Some(info) = self.table.insts.get(pc as usize) else { return };
        tw.needs_mshr = info.needs_mshr;
        let (mut t, mut dep) = (tw.next, tw.next_dep);
        if let Some(c) = self.table.ctl.get(pc as usize) {
            // Machine code: the stall count is in `next`; the wait mask and a DEPBAR name the
            // scoreboard barriers that must be released (the hardware has no register interlock).
            let waits = (0..6u8).filter(|b| c.wait_mask >> b & 1 == 1).map(|b| (b, 0)).chain(c.depbar.map(|(b, n)| (b, n as usize)));
            for (b, n) in waits {
                let Some(times) = tw.sb.get_mut(b as usize) else { continue };
                let now = self.now;
                times.retain(|&x| x > now);
                let free = barrier_free_at(times, n);
                if free > t {
                    t = free;
                    dep = tw.sb_dep[b as usize];
                }
            }
            tw.next = t;
            tw.next_dep = dep;
            return;
        }
        for &r in &self.table.regs[info.regs.0 as usize..info.regs.1 as usize] {
            let rr = tw.reg_ready[r as usize];
            if rr > t {
                t = rr;
                dep = tw.reg_dep[r as usize];
            }
        }
        tw.next = t;
        tw.next_dep = dep;
    }

    /// One step of the clock: due events, then an issue attempt on every sub-partition at
    /// `now`; the clock then moves to the next cycle, or skips to the next event (at most to
    /// `until`) when nothing issued.
    pub fn cycle(&mut self, until: u64, base: &DeviceMemory, arena: &mut Arena) -> Result<(), Fault> {
        let width = self.cfg.sm.issue_width.max(1);
        self.process_events(arena);
        self.release_mshrs();
        if self.resident == 0 && self.events.is_empty() {
            // Nothing to issue and nothing due: the clock goes to the window's end.
            self.advance(until);
            return Ok(());
        }
        let mut issued = false;
        for sp in 0..self.sps.len() {
            for _ in 0..width {
                match self.pick(sp) {
                    Some(wi) => {
                        self.issue(wi, base, arena)?;
                        issued = true;
                    }
                    None => break,
                }
            }
        }
        if issued {
            self.advance(self.now + 1);
        } else {
            let t = self.next_event();
            self.advance(if t >= until { until } else { t.max(self.now + 1) });
        }
        Ok(())
    }

    /// The earliest cycle any warp could issue (PENDING when none can without a memory response).
    pub fn next_event(&self) -> u64 {
        let mut t = self.events.peek().map_or(PENDING, |r| r.0 .0);
        // A warp waiting for a miss slot waits for the earliest answered one (or, when all are
        // unanswered, for the memory system at the window's end).
        let slot = if self.mshrs_full() { self.mshr_release.peek().map_or(PENDING, |r| r.0) } else { 0 };
        for sp in &self.sps {
            for &wi in &sp.warps {
                if let Some(tw) = &self.warps[wi] {
                    if tw.w.state == WarpState::Ready && tw.next != PENDING {
                        let needs = slot > 0 && tw.needs_mshr;
                        t = t.min(tw.next.max(sp.free_at(tw.unit)).max(if needs { slot } else { 0 }));
                    }
                }
            }
        }
        t
    }

    fn eligible(&self, sp: &SubPart, wi: usize) -> bool {
        let Some(tw) = &self.warps[wi] else { return false };
        if tw.w.state != WarpState::Ready || tw.next > self.now {
            return false;
        }
        sp.free_at(tw.unit) <= self.now && !(tw.needs_mshr && self.mshrs_full())
    }

    /// Whether every L1 miss slot is taken (the answered ones released up to `now`).
    fn mshrs_full(&self) -> bool {
        self.mshr_sent as usize + self.mshr_release.len() >= self.cfg.l1.mshrs as usize
    }

    /// Frees the miss slots whose data has returned by `now`.
    fn release_mshrs(&mut self) {
        while self.mshr_release.peek().is_some_and(|r| r.0 <= self.now) {
            self.mshr_release.pop();
        }
    }

    /// The memory system answered a request that held a miss slot: it frees at `done`.
    pub fn mshr_answered(&mut self, done: u64) {
        self.mshr_sent = self.mshr_sent.saturating_sub(1);
        self.mshr_release.push(std::cmp::Reverse(done));
    }

    fn pick(&mut self, spi: usize) -> Option<usize> {
        let sp = &self.sps[spi];
        let n = sp.warps.len();
        if n == 0 {
            return None;
        }
        let age = |wi: usize| self.warps[wi].as_ref().map_or(u64::MAX, |t| t.age);
        // The chosen warp's position in the sub-partition's list.
        let chosen = match self.cfg.sm.scheduler {
            SchedulerPolicy::Gto => {
                if sp.warps.get(sp.last).is_some_and(|&wi| self.eligible(sp, wi) && !self.warps[wi].as_ref().is_some_and(|t| t.yielded)) {
                    Some(sp.last)
                } else {
                    (0..n).filter(|&i| self.eligible(sp, sp.warps[i])).min_by_key(|&i| age(sp.warps[i]))
                }
            }
            SchedulerPolicy::Lrr => {
                let start = sp.last % n;
                (1..=n).map(|d| if start + d >= n { start + d - n } else { start + d }).find(|&i| self.eligible(sp, sp.warps[i]))
            }
            SchedulerPolicy::TwoLevel => {
                // Round robin over an active set of the oldest warps not stalled on memory.
                let active = self.cfg.sm.two_level_active.max(1) as usize;
                let mut cand: Vec<usize> = sp
                    .warps
                    .iter()
                    .copied()
                    .filter(|&wi| self.warps[wi].as_ref().is_some_and(|t| t.next_dep != Dep::Long || t.next <= self.now))
                    .collect();
                cand.sort_by_key(|&wi| age(wi));
                cand.truncate(active);
                let m = cand.len().max(1);
                let wi = (1..=m).filter_map(|d| cand.get((sp.last + d) % m).copied()).find(|&wi| self.eligible(sp, wi));
                wi.map(|wi| sp.warps.iter().position(|&x| x == wi).expect("candidates are warps of the list"))
            }
        }?;
        let sp = &mut self.sps[spi];
        sp.last = chosen;
        Some(sp.warps[chosen])
    }

    fn new_token(&mut self, t: Token) -> u32 {
        match self.free_tokens.pop() {
            Some(i) => {
                self.tokens[i as usize] = Some(t);
                i
            }
            None => {
                self.tokens.push(Some(t));
                (self.tokens.len() - 1) as u32
            }
        }
    }

    /// Issues warp `wi`'s next instruction at `self.now`.
    fn issue(&mut self, wi: usize, base: &DeviceMemory, arena: &mut Arena) -> Result<(), Fault> {
        let now = self.now;
        let (pc, cta_slot, sp) = {
            let tw = self.warps[wi].as_mut().expect("eligible warp exists");
            // Stall accounting for the cycles since the last issue.
            let ready = tw.next.min(now).max(tw.accounted);
            self.stats.stall_cycles[stall_index(tw.next_dep)] += ready - tw.accounted;
            self.stats.stall_cycles[Stall::NotSelected as usize] += now - ready;
            self.stats.stall_cycles[Stall::Selected as usize] += 1;
            tw.accounted = now + 1;
            (tw.w.pc(), tw.cta, tw.sp)
        };
        let info = self.table.insts[pc as usize];
        let cost = info.cost as u64;
        if self.trace_issue {
            eprintln!("{now:>10} sm{:<3} w{wi:<3} pc {pc:<5} {}", self.id, self.k.prog.source_line(pc));
        }
        let spill_mask = if info.spill_loads + info.spill_stores > 0 {
            self.warps[wi].as_ref().map_or(0, |tw| exec::exec_mask(&tw.w, &self.k.prog.insts[pc as usize]))
        } else {
            0
        };
        // Functional execution.
        let step = {
            let tw = self.warps[wi].as_mut().expect("warp exists");
            if let Some(f) = info.flops {
                self.stats.flops[f] += u64::from(exec::exec_mask(&tw.w, &self.k.prog.insts[pc as usize]).count_ones());
            }
            let cta = self.ctas[cta_slot].as_ref().expect("warp's CTA exists");
            let (cl, rank) = (cta.cluster, cta.rank);
            let mut view = View { base, log: &mut self.log, cycle: now, warp: wi as u32 };
            let mut env = Env {
                k: &self.k,
                gmem: &mut view,
                ctas: &mut arena.get(cl).ctas,
                me: rank,
                clock: now,
                trace: &mut self.trace,
                asyncs: &mut self.asyncs,
            };
            exec::step(&mut tw.w, &mut env)?
        };
        self.stats.warp_insts += 1;
        if info.shuffle {
            // SHFL runs in the shared-memory pipe: ncu counts one shared wavefront each (a CSR
            // SpMV reducing each row with five shuffles: 178810 wavefronts for 163840 shuffles
            // and 8448 warps' exits).
            self.stats.smem_wavefronts += 1;
        }
        self.stats.inst_executed += cost;
        let cl = self.ctas[cta_slot].as_ref().map_or(0, |c| c.cluster);
        if !self.asyncs.is_empty() {
            self.start_async(wi, cl);
        }
        if info.touches_cluster {
            arena.touch(cl);
        }
        // Timing.
        let unit = self.sps[sp].pipe_for(info.unit, now);
        let p = *pipe(&self.cfg, unit);
        // A multi-op SFU instruction is one MUFU among FP32 operations (range reduction, the
        // denormal guard, the multiply of div.approx): the SFU is held for the MUFU, the FP32
        // pipe for the rest, and the chain adds their latency.
        let fp32_ops = if unit == Unit::Sfu { cost.saturating_sub(1) } else { 0 };
        let occupancy = if unit == Unit::Uniform { 1 } else { (32 / p.lanes.max(1)).max(1) as u64 * (cost - fp32_ops).max(1) };
        let (lat, dep, token) = self.timing(wi, pc, unit, p.latency as u64)?;
        let (lat, spill_ops) = if spill_mask != 0 { self.spill_traffic(wi, pc, &info, spill_mask, lat)? } else { (lat, 0) };
        let fp32 = self.cfg.pipes.fp32;
        let lat = lat + fp32_ops * fp32.latency as u64;
        // Folded instructions (address arithmetic, moves) have no latency of their own.
        let lat = if cost == 0 && self.trace.mask == 0 { 0 } else { lat };
        // The tensor pipe's occupancy is the matrix shape's (`matrix_timing`), not a lane count.
        if cost > 0 && unit != Unit::Tensor {
            let spp = &mut self.sps[sp];
            spp.pipe_free[unit as usize] = spp.pipe_free[unit as usize].max(now) + occupancy;
            if fp32_ops > 0 {
                let f = &mut spp.pipe_free[Unit::Fp32 as usize];
                *f = (*f).max(now) + (32 / fp32.lanes.max(1)).max(1) as u64 * fp32_ops;
            }
        }
        let defs = &self.k.prog.insts[pc as usize].defs;
        let ctl = self.table.ctl.get(pc as usize).copied();
        if let Some(c) = ctl {
            // Machine code: the result's barrier releases at writeback, the operand barrier once
            // the pipe has read the operands; the next instruction waits out the stall count.
            let tw = self.warps[wi].as_mut().expect("warp exists");
            if let Some(b) = c.write_barrier {
                tw.sb[b as usize].push(if token.is_some() { PENDING } else { now + lat });
                tw.sb_dep[b as usize] = if dep == Dep::Long { Dep::Long } else { Dep::Short };
            }
            if let Some(b) = c.read_barrier {
                tw.sb[b as usize].push(now + p.latency as u64);
                if tw.sb[b as usize].len() == 1 {
                    tw.sb_dep[b as usize] = Dep::Short;
                }
            }
            tw.yielded = c.yields;
            let issue_done = now + u64::from(c.stall.max(1));
            if tw.next <= issue_done {
                tw.next = issue_done;
                tw.next_dep = Dep::Fixed;
            }
        } else {
            let tw = self.warps[wi].as_mut().expect("warp exists");
            for &r in defs {
                tw.reg_ready[r as usize] = if token.is_some() { PENDING } else { now + lat };
                tw.reg_dep[r as usize] = dep;
            }
            // `timing` may have pushed `next` further (wgmma.wait_group): keep that and its cause.
            let issue_done = now + cost.max(if cost == 0 { 0 } else { 1 }) + spill_ops;
            if tw.next <= issue_done {
                tw.next = issue_done;
                tw.next_dep = Dep::Fixed;
            }
        }
        if let Some(t) = token {
            if let Some(tok) = self.tokens[t as usize].as_mut() {
                tok.regs.extend_from_slice(defs);
                tok.sb = ctl.and_then(|c| c.write_barrier);
            }
        }
        self.after_step(wi, cta_slot, step, arena)?;
        self.refresh(wi);
        // Zero-cost instructions (folded by ptxas) take no issue slot: the warp may go again now.
        if cost == 0 {
            if let Some(tw) = self.warps[wi].as_mut() {
                tw.accounted = now;
                self.stats.stall_cycles[Stall::Selected as usize] -= 1;
            }
        }
        Ok(())
    }

    /// The compiler's spill code around the instruction at `pc`: its reloads (4-byte local loads
    /// of the lanes in `mask`, which the instruction waits for) and its spill stores (written
    /// through to L2, as local stores are), each one machine op through the L1 like any local
    /// access. Returns the instruction's latency with the reloads in it and the ops issued.
    fn spill_traffic(&mut self, wi: usize, pc: u32, info: &IssueInfo, mask: u32, lat: u64) -> Result<(u64, u64), Fault> {
        let own = std::mem::take(&mut self.trace);
        let slots = (self.table.spill_frame / 4).max(1);
        let base = self.k.local_limit;
        let mut reload = 0u64;
        let n = u64::from(info.spill_loads) + u64::from(info.spill_stores);
        let (loads, stores) = self.table.spill_total;
        for i in 0..n {
            let write = i >= u64::from(info.spill_loads);
            let k = if write {
                u64::from(info.spill_first.1) + i - u64::from(info.spill_loads)
            } else {
                ((u64::from(info.spill_first.0) + i) * stores / loads.max(1)).saturating_sub(1)
            };
            let a = base + k % slots * 4;
            self.trace = MemTrace { space: TraceSpace::Local, write, atomic: false, size: 4, mask, addr: [a; 32] };
            let (l, _, _) = self.global_timing(wi, pc)?;
            if !write {
                reload = reload.max(l);
            }
        }
        self.trace = own;
        self.stats.inst_executed += n;
        Ok((lat + reload, n))
    }

    /// Latency, dependency kind and (for memory responses) the token of an issued instruction.
    fn timing(&mut self, wi: usize, pc: u32, unit: Unit, pipe_lat: u64) -> Result<(u64, Dep, Option<u32>), Fault> {
        let now = self.now;
        let op = self.k.prog.insts[pc as usize].op;
        if let Op::Matrix(mx) = op {
            if !matches!(mx, MatrixOp::Ldmatrix | MatrixOp::Stmatrix) {
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
        let call_param = tr.space == TraceSpace::Local && inst.m.space() == warpsim_isa::ast::Space::Param;
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
                let c = banks::wavefronts(&tr.addr, tr.mask, tr.size, cfg.smem.banks, cfg.smem.bank_bytes, cfg.smem.half_warp);
                self.stats.smem_wavefronts += c.wavefronts as u64;
                self.stats.smem_bank_conflicts += c.conflicts() as u64;
                // The SM's shared memory moves one wavefront (banks × bank width bytes) per cycle;
                // a conflicted access also waits `wavefront_cycles` per extra wavefront.
                let wf = c.wavefronts.max(1) as u64;
                let extra = (wf - 1) * cfg.smem.wavefront_cycles as u64;
                let base_lat = if tr.atomic { cfg.misc.smem_atomic_latency } else { cfg.smem.latency } as u64;
                let lat = if tr.space == TraceSpace::Remote { cfg.misc.dsmem_latency as u64 } else { base_lat };
                // 8- and 16-byte accesses drain no faster than the data path where it is narrower
                // than a row of banks (Turing and Ada: 64 B/clk/SM).
                let row = cfg.smem.banks as u64 * cfg.smem.bank_bytes as u64;
                let path = cfg.smem.wide_bytes_per_cycle as u64;
                // Each wavefront leaves the banks every `bank_cycles` (two on Tesla and Fermi).
                let banks = wf * u64::from(cfg.smem.bank_cycles.max(1));
                let drain = if tr.size > 4 && path < row { banks.max((tr.mask.count_ones() as u64 * tr.size as u64).div_ceil(path.max(1))) } else { banks };
                let start = self.smem_free.max(now);
                self.smem_free = start + drain;
                Ok((start - now + lat + extra, Dep::Short, None))
            }
            TraceSpace::Const | TraceSpace::Param => {
                // The constant cache serves one address per cycle.
                let mut distinct = 0u64;
                let mut seen: [u64; 32] = [u64::MAX; 32];
                for l in 0..32 {
                    if tr.mask >> l & 1 == 1 && !seen[..distinct as usize].contains(&tr.addr[l]) {
                        seen[distinct as usize] = tr.addr[l];
                        distinct += 1;
                    }
                }
                Ok((cfg.misc.const_latency as u64 + distinct.saturating_sub(1), Dep::Short, None))
            }
            TraceSpace::Global | TraceSpace::Local => self.global_timing(wi, pc),
            TraceSpace::None => Ok((pipe_lat, Dep::Fixed, None)),
        }
    }

    /// Tensor-core timing: the pipe is busy for the warp's multiply-accumulates at the SM's rate
    /// (split over sub-partitions); `mma.sync` results come after the pipe latency scaled by the
    /// bytes of K, `wgmma` results after `base + N / divisor`; `wgmma.wait_group` waits for groups.
    fn matrix_timing(&mut self, wi: usize, pc: u32, mx: MatrixOp) -> (u64, Dep, Option<u32>) {
        let now = self.now;
        let (cfg, inst) = (&*self.cfg, &self.k.prog.insts[pc as usize]);
        let (m, n, k) = inst.m.shape.unwrap_or((16, 8, 16));
        let abytes = inst.m.types.get(1).map_or(2, |t| t.bytes().max(1)) as u64;
        // Rate in multiply-accumulates per cycle per sub-partition for this input width.
        let per_sp = cfg.tensor.fp16_fma_per_cycle as f64 / cfg.sm.sub_partitions.max(1) as f64 * 2.0 / abytes as f64;
        let sp = self.warps[wi].as_ref().map_or(0, |t| t.sp);
        let busy = |macs: u64| (macs as f64 / per_sp.max(1.0)).ceil() as u64;
        match mx {
            MatrixOp::Mma | MatrixOp::WmmaMma => {
                let occ = busy(m as u64 * n as u64 * k as u64);
                let pf = &mut self.sps[sp].pipe_free[Unit::Tensor as usize];
                *pf = (*pf).max(now) + occ.saturating_sub(1);
                let kbytes = k as i64 * abytes as i64;
                let lat = (cfg.pipes.tensor.latency as i64 + (kbytes - 32) / 2).max(4) as u64 + occ;
                (lat, Dep::Short, None)
            }
            MatrixOp::WgmmaMma => {
                // This warp's quarter of the warpgroup's M = 64 rows.
                let occ = busy(16 * n as u64 * k as u64);
                let pf = &mut self.sps[sp].pipe_free[Unit::Tensor as usize];
                let start = (*pf).max(now);
                *pf = start + occ;
                let done = start + cfg.tensor.wgmma_base_latency as u64 + n as u64 / cfg.tensor.wgmma_n_divisor.max(1) as u64;
                if let Some(tw) = self.warps[wi].as_mut() {
                    tw.wgmma_open = tw.wgmma_open.max(done);
                }
                (done - now, Dep::Short, None)
            }
            MatrixOp::WgmmaCommit => {
                if let Some(tw) = self.warps[wi].as_mut() {
                    let t = std::mem::take(&mut tw.wgmma_open);
                    tw.wgmma_groups.push_back(t);
                }
                (1, Dep::Fixed, None)
            }
            MatrixOp::WgmmaWait => {
                let n_keep = inst.ops.first().map_or(0, |o| if let warpsim_isa::inst::Opnd::Imm(v) = o { *v as usize } else { 0 });
                if let Some(tw) = self.warps[wi].as_mut() {
                    let mut t = 0;
                    while tw.wgmma_groups.len() > n_keep {
                        t = t.max(tw.wgmma_groups.pop_front().unwrap_or(0));
                    }
                    tw.next = tw.next.max(t);
                    tw.next_dep = Dep::Short;
                }
                (1, Dep::Fixed, None)
            }
            _ => (cfg.pipes.alu.latency as u64, Dep::Fixed, None),
        }
    }

    #[allow(clippy::needless_range_loop)] // lane/dimension-indexed arrays side by side
    fn global_timing(&mut self, wi: usize, pc: u32) -> Result<(u64, Dep, Option<u32>), Fault> {
        let now = self.now;
        let cfg = &*self.cfg;
        let cache_cg = self.k.prog.insts[pc as usize].m.cache == Some(CacheOp::Cg);
        let local = self.trace.space == TraceSpace::Local;
        let (write, atomic, mask, size) = (self.trace.write, self.trace.atomic, self.trace.mask, self.trace.size);
        let mut addr = self.trace.addr;
        if local {
            // Local memory is interleaved so that lanes reading the same offset are adjacent.
            let uid = self.warps[wi].as_ref().map_or(0, |t| t.uid);
            for (l, a) in addr.iter_mut().enumerate() {
                *a = LOCAL_WINDOW + (uid * self.local_stride + (*a & !3)) * 32 + l as u64 * 4 + (*a & 3);
            }
        }
        let coalescing = if local { crate::config::Coalescing::Sectors } else { cfg.coalescing };
        let mut txns = std::mem::take(&mut self.txns);
        let req_kind = if atomic {
            ReqKind::Atomic
        } else if write {
            ReqKind::Write
        } else {
            ReqKind::Read
        };
        // Atomics: one L2 request per line; same-address lanes serialize there, in rounds.
        let mut atom_shape: Vec<AtomShape> = Vec::new();
        if atomic {
            txns.clear();
            let mut seen: Vec<(u64, u16)> = Vec::new();
            for l in 0..32 {
                if mask >> l & 1 == 1 {
                    match seen.iter_mut().find(|x| x.0 == addr[l]) {
                        Some(x) => x.1 += 1,
                        None => seen.push((addr[l], 1)),
                    }
                }
            }
            for &(a, _) in &seen {
                let line = a & !(LINE - 1);
                let bit = 1u8 << ((a % LINE) / SECTOR);
                match txns.iter_mut().position(|t| t.line == line) {
                    Some(i) => txns[i].sectors |= bit,
                    None => txns.push(Txn { line, sectors: bit, bytes: 0 }),
                }
            }
            for t in &txns {
                atom_shape.push(AtomShape::of(seen.iter().filter(|x| x.0 & !(LINE - 1) == t.line).copied(), size));
            }
        } else {
            coalesce(coalescing, &addr, mask, size, &mut txns);
        }
        // The L1 moves its own sectors (`l1.sector`): a coarser one counts, and fills, the
        // aligned blocks of 32-byte sectors the warp touches.
        let sectors: u64 = txns.iter().map(|t| u64::from(self.l1.blocks(t.sectors))).sum();
        if !local && !atomic {
            if write {
                self.stats.l1_sectors_global_st += sectors;
            } else {
                self.stats.l1_sectors_global_ld += sectors;
                self.stats.l1_requests_global_ld += 1;
            }
        }
        // L1 data path throughput.
        // L1 tag and data stages: one lookup per line touched, the sectors at the data rate.
        let spc = cfg.l1.sectors_per_cycle.max(1) as u64;
        let lines = (txns.len() as u64).div_ceil(cfg.l1.lines_per_cycle.max(1) as u64);
        let l1_start = self.l1_free.max(now);
        self.l1_free = l1_start + sectors.div_ceil(spc).max(lines).max(1);
        let cacheable = !atomic && (local || (self.l1_caches_global && !cache_cg));
        let needs_data = !write || atomic;
        let mut ready = l1_start + cfg.l1.latency as u64;
        let mut token = None;
        let mut reqs = 0;
        for (ti, t) in txns.iter().enumerate() {
            let shape = atom_shape.get(ti).copied().unwrap_or_default();
            let (hit, miss, line_ready) = if cacheable && !write {
                let look = self.l1.access(t.line, t.sectors, false, true, PENDING);
                (look.hit, look.miss, look.ready)
            } else if cacheable && write {
                // Write-through; local stores also allocate.
                let look = self.l1.access(t.line, t.sectors, local, local, 0);
                (0, t.sectors, look.ready)
            } else {
                (0, t.sectors, 0)
            };
            if !local && !write && !atomic {
                self.stats.l1_hit_sectors_global_ld += u64::from(self.l1.blocks(hit));
            }
            let mut merged = false;
            if hit != 0 {
                if line_ready == PENDING {
                    merged = true;
                } else {
                    ready = ready.max(line_ready);
                }
            }
            if miss == 0 && !merged {
                continue;
            }
            if needs_data && token.is_none() {
                let dep = Dep::Long;
                token = Some(self.new_token(Token { warp: wi, regs: Vec::new(), outstanding: 0, ready, dep, actions: Vec::new(), group: None, sb: None }));
            }
            if miss != 0 {
                let req = MemReq { t: l1_start, sm: self.id, line: t.line, sectors: miss, full: if write { t.full_sectors() } else { 0 }, kind: req_kind, ops: shape.rounds, words: shape.words, lookups: shape.lookups, partial: shape.partial, red: self.table.insts[pc as usize].red };
                // A request whose data comes back holds a miss slot until it does.
                self.mshr_sent += u32::from(needs_data);
                self.outbox.push(OutReq { req, token: if needs_data { token } else { None }, mshr: needs_data });
                reqs += 1;
            } else if let Some(tk) = token {
                // Wait for the outstanding fill of this line (completed in `deliver`).
                self.mshr_waiters.entry(t.line).or_default().push((tk, l1_start));
                reqs += 1;
            }
        }
        self.txns = txns;
        if let Some(t) = token {
            if let Some(tok) = self.tokens[t as usize].as_mut() {
                tok.outstanding = reqs;
                tok.ready = ready;
            }
        }
        Ok((ready - now, Dep::Long, token))
    }

    /// Handles barriers and exits after an instruction.
    fn after_step(&mut self, wi: usize, cta_slot: usize, step: Step, arena: &mut Arena) -> Result<(), Fault> {
        let now = self.now;
        let (cl, rank) = self.ctas[cta_slot].as_ref().map_or((0, 0), |c| (c.cluster, c.rank));
        match step {
            Step::Continue => {}
            Step::Barrier(a) => self.arrive(wi, cta_slot, a, arena),
            Step::MbarWait { cta, off, phase } => {
                if let Some(tw) = self.warps[wi].as_mut() {
                    // `cta` is the rank of the barrier's CTA in the cluster.
                    tw.w.state = WarpState::AtMbarrier { cta: cta as u32, off, phase };
                }
                // The phase may have completed in this very cycle.
                arena.touch(cl);
            }
            Step::AsyncWait { bulk, n } => {
                if let Some(tw) = self.warps[wi].as_mut() {
                    if tw.pending_groups(bulk as usize) > n {
                        tw.w.state = WarpState::AtAsyncWait;
                        tw.waiting_groups = Some((bulk as usize, n));
                    }
                }
            }
            Step::ClusterArrive | Step::ClusterWait => {
                // The cluster barrier counts the warps of every CTA of the cluster, on any SM.
                let c = arena.get(cl);
                let tw = self.warps[wi].as_mut().expect("warp exists");
                if step == Step::ClusterArrive {
                    tw.w.cluster_phase = c.phase + 1;
                    c.arrived += 1;
                    if c.arrived >= c.live_warps {
                        c.arrived = 0;
                        c.phase += 1;
                        arena.touch(cl);
                    }
                } else if c.phase < tw.w.cluster_phase {
                    tw.w.state = WarpState::AtClusterBarrier;
                }
            }
            Step::Exited { lanes, done } => {
                let valid = self.warps[wi].as_ref().map_or(0, |t| t.w.valid);
                let shared = &mut arena.get(cl).ctas[rank];
                shared.live_threads = shared.live_threads.saturating_sub((lanes & valid).count_ones());
                let releases: Vec<Release> = (0..16).filter_map(|id| shared.check(id)).collect();
                for r in releases {
                    self.release(cta_slot, r);
                }
                if done {
                    self.retire_warp(wi, cta_slot, now, arena);
                }
            }
        }
        Ok(())
    }

    /// Turns an instruction's asynchronous copies into memory requests whose completion applies
    /// their mbarrier events or retires their copy group.
    fn start_async(&mut self, wi: usize, cl: usize) {
        let now = self.now;
        let mut mbar_events = Vec::new();
        for ev in std::mem::take(&mut self.asyncs) {
            match ev {
                AsyncEvent::CompleteTx { .. } => mbar_events.push(ev),
                AsyncEvent::ArriveAfterCopies { .. } => {
                    let tw = self.warps[wi].as_mut().expect("warp exists");
                    if tw.groups[0].iter().all(|g| g.outstanding == 0) {
                        self.schedule(now, cl, ev);
                    } else {
                        tw.after_copies.push(ev);
                    }
                }
                AsyncEvent::Commit { bulk } => {
                    let id = self.next_group;
                    self.next_group += 1;
                    let tw = self.warps[wi].as_mut().expect("warp exists");
                    tw.open_group(bulk as usize, id).committed = true;
                }
                AsyncEvent::Traffic { global, write, group } => {
                    let group_ref = match group {
                        AsyncGroup::Mbarrier => None,
                        AsyncGroup::CpAsync | AsyncGroup::Bulk => {
                            let kind = (group == AsyncGroup::Bulk) as usize;
                            let id = self.next_group;
                            self.next_group += 1;
                            let tw = self.warps[wi].as_mut().expect("warp exists");
                            let g = tw.open_group(kind, id);
                            g.outstanding += 1;
                            Some((kind, g.id))
                        }
                    };
                    let actions = if group == AsyncGroup::Mbarrier { std::mem::take(&mut mbar_events) } else { Vec::new() };
                    let t = self.new_token(Token { warp: wi, regs: Vec::new(), outstanding: global.len() as u32, ready: now, dep: Dep::Long, actions, group: group_ref, sb: None });
                    if global.is_empty() {
                        self.complete_token(t, cl);
                    }
                    let kind = if write { ReqKind::Write } else { ReqKind::Read };
                    for (line, _) in global {
                        let req = MemReq { t: now, sm: self.id, line, sectors: 0xF, full: 0xF, kind, ops: 0, words: 0, lookups: 0, partial: 0, red: false };
                        self.outbox.push(OutReq { req, token: Some(t), mshr: false });
                    }
                }
            }
        }
        // Events without traffic (shared → shared copies, st.async) complete after the latency.
        let lat = self.cfg.misc.dsmem_latency as u64;
        for ev in mbar_events {
            self.schedule(now + lat, cl, ev);
        }
    }

    /// Schedules an mbarrier event of cluster `cl` (the event names the CTA by rank).
    fn schedule(&mut self, t: u64, cl: usize, ev: AsyncEvent) {
        let i = self.event_slab.len() as u64;
        self.event_slab.push(Some((cl, ev)));
        self.events.push(std::cmp::Reverse((t, i)));
    }

    /// Applies the mbarrier events that are due.
    fn process_events(&mut self, arena: &mut Arena) {
        while let Some(&std::cmp::Reverse((t, i))) = self.events.peek() {
            if t > self.now {
                break;
            }
            self.events.pop();
            let Some((cl, ev)) = self.event_slab[i as usize].take() else { continue };
            if let AsyncEvent::CompleteTx { cta, mbar, .. } | AsyncEvent::ArriveAfterCopies { cta, mbar, .. } = ev {
                if let Some(c) = arena.clusters.get_mut(cl).and_then(|c| c.as_mut()) {
                    if let Some(shared) = c.ctas.get_mut(cta) {
                        apply_event(&mut shared.smem, mbar, &ev);
                    }
                }
                arena.touch(cl);
            }
        }
        if self.events.is_empty() {
            self.event_slab.clear();
        }
    }

    /// Wakes this SM's warps of cluster `cl` whose mbarrier phase or cluster barrier has moved
    /// on (the GPC calls it for every SM after a change to the cluster).
    pub fn wake(&mut self, arena: &Arena, cl: usize) {
        let now = self.now;
        // A woken `try_wait` runs again; in machine code its `SYNCS ... TRYWAIT` then pays the
        // round trip itself, through its scoreboard barrier, so the wake adds none.
        let wake_lat = if self.table.ctl.is_empty() { self.cfg.misc.mbarrier_latency as u64 } else { 0 };
        let (mbar_t, cbar_t) = (now + wake_lat, now + self.cfg.misc.cluster_barrier_latency as u64);
        let Some(c) = arena.clusters.get(cl).and_then(|c| c.as_ref()) else { return };
        for slot in self.ctas.iter().flatten().filter(|s| s.cluster == cl) {
            for &w in &slot.warps {
                let Some(tw) = self.warps[w].as_mut() else { continue };
                let wake = match tw.w.state {
                    WarpState::AtMbarrier { cta, off, phase } => {
                        c.ctas.get(cta as usize).is_some_and(|x| phase_of(&x.smem, off) != phase).then_some((mbar_t, Dep::Long))
                    }
                    WarpState::AtClusterBarrier if c.phase >= tw.w.cluster_phase => Some((cbar_t, Dep::Barrier)),
                    _ => None,
                };
                if let Some((t, dep)) = wake {
                    tw.w.state = WarpState::Ready;
                    tw.next = tw.next.max(t);
                    tw.next_dep = dep;
                }
            }
        }
    }

    /// A copy token's data has all arrived at `t`: schedule its mbarrier events or retire its
    /// group (waking `wait_group` sleepers and `cp.async.mbarrier.arrive`).
    fn complete_token(&mut self, ti: u32, cl: usize) {
        let Some(tok) = self.tokens[ti as usize].take() else { return };
        self.free_tokens.push(ti);
        let t = tok.ready.max(self.now) + self.cfg.misc.tma_latency as u64;
        for ev in tok.actions {
            self.schedule(t, cl, ev);
        }
        let Some((kind, id)) = tok.group else { return };
        let Some(tw) = self.warps[tok.warp].as_mut() else { return };
        if let Some(g) = tw.groups[kind].iter_mut().find(|g| g.id == id) {
            g.outstanding = g.outstanding.saturating_sub(1);
        }
        while tw.groups[kind].front().is_some_and(|g| g.committed && g.outstanding == 0) {
            tw.groups[kind].pop_front();
        }
        if let Some((k, n)) = tw.waiting_groups {
            if tw.pending_groups(k) <= n {
                tw.waiting_groups = None;
                tw.w.state = WarpState::Ready;
                tw.next = tw.next.max(tok.ready);
                tw.next_dep = Dep::Long;
            }
        }
        if kind == 0 && tw.groups[0].iter().all(|g| g.outstanding == 0) {
            let evs = std::mem::take(&mut tw.after_copies);
            for ev in evs {
                self.schedule(tok.ready, cl, ev);
            }
        }
    }

    fn arrive(&mut self, wi: usize, cta_slot: usize, a: Arrival, arena: &mut Arena) {
        if a.blocking {
            if let Some(tw) = self.warps[wi].as_mut() {
                tw.w.state = WarpState::AtBarrier(a.id);
            }
        }
        let (cl, rank) = self.ctas[cta_slot].as_ref().map_or((0, 0), |c| (c.cluster, c.rank));
        // Warp slot in the CTA ↔ SM warp index.
        let a = Arrival { warp: self.warps[wi].as_ref().map_or(0, |t| t.w.slot), ..a };
        if let Some(r) = arena.get(cl).ctas[rank].arrive(a) {
            self.release(cta_slot, r);
        }
    }

    fn release(&mut self, cta_slot: usize, r: Release) {
        let t = self.now + self.cfg.misc.barrier_latency as u64;
        let Some(cta) = self.ctas[cta_slot].as_ref() else { return };
        let wids: Vec<usize> = r.warps.iter().filter_map(|&s| cta.warps.get(s as usize).copied()).collect();
        for wi in wids {
            let Some(tw) = self.warps[wi].as_mut() else { continue };
            tw.w.state = WarpState::Ready;
            tw.next = tw.next.max(t);
            tw.next_dep = Dep::Barrier;
            if let Some((reg, kind)) = tw.w.pending_red.take() {
                let v = match kind {
                    warpsim_isa::inst::BarOp::RedPopc => r.popc as u64,
                    warpsim_isa::inst::BarOp::RedAnd => r.all as u64,
                    _ => r.any as u64,
                };
                let mask = self.k.prog.regs[reg as usize].ty.mask();
                let active = tw.w.active();
                for l in 0..32 {
                    if active >> l & 1 == 1 {
                        tw.w.set_reg(reg, l, v & mask);
                    }
                }
                tw.reg_ready[reg as usize] = t;
            }
        }
    }

    fn retire_warp(&mut self, wi: usize, cta_slot: usize, now: u64, arena: &mut Arena) {
        let sp = self.warps[wi].as_ref().map_or(0, |t| t.sp);
        // A warp's exit passes through the shared-memory pipe once: on the H200, ncu's
        // `l1tex__data_pipe_lsu_wavefronts_mem_shared` is exactly one per warp for 57 of the 62
        // kernels of the main and membench datasets that use (almost) no shared memory, 1.5-2x
        // for the other five.
        self.stats.smem_wavefronts += 1;
        if let Some(tw) = self.warps[wi].as_mut() {
            tw.w.state = WarpState::Done;
        }
        self.sps[sp].warps.retain(|&x| x != wi);
        self.sps[sp].last = 0;
        let cta = self.ctas[cta_slot].as_mut().expect("CTA exists");
        cta.live_warps -= 1;
        self.resident -= 1;
        let (cl, rank) = (cta.cluster, cta.rank);
        let c = arena.get(cl);
        c.live_warps -= 1;
        // A barrier.cluster phase waiting only for this warp completes now.
        if c.arrived > 0 && c.arrived >= c.live_warps {
            c.arrived = 0;
            c.phase += 1;
            arena.touch(cl);
        }
        if cta.live_warps == 0 {
            let cta = self.ctas[cta_slot].take().expect("CTA exists");
            for w in cta.warps {
                self.spare.extend(self.warps[w].take());
            }
            let c = arena.get(cl);
            let linear = c.ctas[rank].linear;
            c.running -= 1;
            if c.running == 0 {
                arena.clusters[cl] = None;
            }
            self.finished.push((linear, now + 1));
        }
    }

    /// Frees the resources of a finished CTA (called by the engine with the CTA's footprint).
    pub fn release_resources(&mut self, res: CtaRes) {
        self.used.threads -= res.threads;
        self.used.warps -= res.warps;
        self.used.regs -= res.regs;
        self.used.smem -= res.smem;
    }

    /// A memory response: completes one outstanding request of `token` at cycle `t` and fills the
    /// L1 line it was for.
    pub fn deliver(&mut self, token: Option<u32>, line: u64, t: u64, fill_l1: bool) {
        if fill_l1 {
            self.l1.set_ready(line, t);
            if let Some(ws) = self.mshr_waiters.remove(&line) {
                let hit = self.cfg.l1.latency as u64;
                for (tk, t0) in ws {
                    self.deliver(Some(tk), line, t.max(t0 + hit), false);
                }
            }
        }
        let Some(ti) = token else { return };
        let Some(tok) = self.tokens[ti as usize].as_mut() else { return };
        tok.ready = tok.ready.max(t);
        tok.outstanding = tok.outstanding.saturating_sub(1);
        if tok.outstanding > 0 {
            return;
        }
        if !tok.actions.is_empty() || tok.group.is_some() {
            let slot = self.warps[tok.warp].as_ref().map_or(0, |w| w.cta);
            let cl = self.ctas.get(slot).and_then(|c| c.as_ref()).map_or(0, |c| c.cluster);
            self.complete_token(ti, cl);
            return;
        }
        let tok = self.tokens[ti as usize].take().expect("token exists");
        self.free_tokens.push(ti);
        let ready = tok.ready.max(self.now);
        if let Some(tw) = self.warps[tok.warp].as_mut() {
            if let Some(times) = tok.sb.and_then(|b| tw.sb.get_mut(b as usize)) {
                if let Some(x) = times.iter_mut().find(|x| **x == PENDING) {
                    *x = ready;
                }
            }
            for r in tok.regs {
                if tw.reg_ready[r as usize] == PENDING {
                    tw.reg_ready[r as usize] = ready;
                    tw.reg_dep[r as usize] = tok.dep;
                }
            }
            if tw.next == PENDING {
                tw.next = self.now;
            }
        }
        self.refresh(tok.warp);
    }

    /// Writes a deferred atomic's old value into its warp's register.
    pub fn deliver_value(&mut self, warp: u32, lane: u8, reg: u32, v: u64) {
        let ty = self.k.prog.regs[reg as usize].ty;
        if let Some(tw) = self.warps.get_mut(warp as usize).and_then(|w| w.as_mut()) {
            let v = if ty.is_signed() { ty.extend(v) } else { v };
            tw.w.set_reg(reg, lane as usize, v & ty.mask());
        }
    }

    /// Warps that cannot issue, and what they wait for (for deadlock reports).
    pub fn waiters(&self, arena: &Arena) -> Vec<crate::fault::Waiter> {
        let mut out = Vec::new();
        for tw in self.warps.iter().flatten() {
            let Some(slot) = self.ctas[tw.cta].as_ref() else { continue };
            let Some(c) = arena.clusters.get(slot.cluster).and_then(|c| c.as_ref()) else { continue };
            let me = &c.ctas[slot.rank];
            let what = match tw.w.state {
                WarpState::AtBarrier(id) => {
                    let b = &me.bars[id as usize];
                    format!("barrier {id} ({} of {} threads arrived)", b.arrived, b.count.unwrap_or(me.live_threads))
                }
                WarpState::AtMbarrier { cta, off, phase } => {
                    crate::mbarrier::Mbar::read(&c.ctas[cta as usize].smem, off).describe_wait(off, &format!("cluster rank {cta}"), phase)
                }
                WarpState::AtClusterBarrier => format!("barrier.cluster.wait ({} of {} warps arrived)", c.arrived, c.live_warps),
                WarpState::AtAsyncWait => "an asynchronous copy group".to_string(),
                WarpState::Ready | WarpState::Done => continue,
            };
            out.push(crate::fault::Waiter {
                cta: me.id,
                warp: tw.w.slot,
                pc_line: self.k.prog.source_line(tw.w.state.waiting_pc(tw.w.pc())),
                what: format!("{what} on SM {}", self.id),
            });
        }
        out
    }

    /// Whether a warp is waiting for a memory response (so the engine must not declare deadlock).
    pub fn has_pending(&self) -> bool {
        self.tokens.iter().any(|t| t.is_some())
    }

    /// Live warps of the resident CTAs, with their CTA's shared state (for [`crate::watchdog`]).
    pub fn running<'a>(&'a self, arena: &'a Arena) -> impl Iterator<Item = (&'a crate::cta::CtaShared, &'a Warp)> + 'a {
        self.warps.iter().flatten().filter(|tw| tw.w.state != WarpState::Done).filter_map(move |tw| {
            let slot = self.ctas[tw.cta].as_ref()?;
            let c = arena.clusters.get(slot.cluster)?.as_ref()?;
            Some((&c.ctas[slot.rank], &tw.w))
        })
    }

    /// Whether copies or mbarrier events are in flight (their completion changes state).
    pub fn copies_in_flight(&self) -> bool {
        !self.events.is_empty() || self.tokens.iter().flatten().any(|t| !t.actions.is_empty() || t.group.is_some())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scoreboard_barrier_counts_its_releases() {
        let t = [10, 30, 20];
        // A wait mask waits for every release; DEPBAR.LE n for all but n of them.
        assert_eq!(barrier_free_at(&t, 0), 30);
        assert_eq!(barrier_free_at(&t, 1), 20);
        assert_eq!(barrier_free_at(&t, 2), 10);
        assert_eq!(barrier_free_at(&t, 3), 0);
        // A release still waiting for a memory response holds the barrier until it arrives.
        assert_eq!(barrier_free_at(&[PENDING, 5], 0), PENDING);
        assert_eq!(barrier_free_at(&[PENDING, 5], 1), 5);
        assert_eq!(barrier_free_at(&[], 0), 0);
    }
}
