//! One streaming multiprocessor in time: resident CTAs and warps, sub-partition schedulers, the
//! scoreboard, functional-unit pipes, shared memory banks, the L1 and the path to L2.
//!
//! Each cycle every sub-partition's scheduler picks an eligible warp (operands ready by the
//! scoreboard, pipe free, not blocked at a barrier) by its policy and issues it: the instruction
//! executes functionally right then (`exec::step`), and its timing follows from its class —
//! fixed pipe latency, shared-memory wavefronts, L1 hit latency, or an outstanding request to L2
//! whose completion arrives when the engine merges the window. When nothing can issue, the clock
//! skips to the next event. Stall cycles are attributed per warp to Nsight Compute's warp states.
//!
//! The files, one per hardware unit (each an `impl Sm` block over the fields of [`Sm`]):
//! - `mod.rs` — `Sm` itself: construction, CTA admission and retirement, the cycle loop and the
//!   issue of one instruction, CTA barriers, deadlock reports;
//! - `scheduler.rs` — the warp schedulers: eligibility, one function per `sm.scheduler` policy;
//! - `scoreboard.rs` — dependences: register ready times, SASS scoreboard barriers, stall
//!   classification ([`Dep`], [`PENDING`]);
//! - `pipes.rs` — functional-unit pipes and their occupancy per sub-partition, the per-kernel
//!   [`IssueTable`], the latency model by instruction class (`timing`);
//! - `lsu.rs` — the load/store unit: shared memory, constant cache, L1, miss slots, local memory
//!   and spill code, requests to L2 and the delivery of their responses;
//! - `async_copy.rs` — `cp.async` groups, bulk copies and TMA in time, mbarrier events, wakes;
//! - `tensor.rs` — tensor-core (`mma`, `wgmma`) timing.

mod async_copy;
mod lsu;
mod pipes;
mod scheduler;
mod scoreboard;
mod tensor;

use std::sync::Arc;

use warpsim_isa::control::{Control, Pipe as Unit, NO_REG};

use crate::cache::SectorCache;
use crate::coalescer::{Txn, LINE, SECTOR};
use crate::counters::Stall;
use crate::cluster::Arena;
use crate::cta::{Arrival, Release};
use crate::exec::{self, AsyncEvent, Env, MemTrace, Step};
use crate::fault::Fault;
use crate::kernel::Kernel;
use crate::memory::DeviceMemory;
use crate::overlay::{Log, View};
use crate::warp::{Warp, WarpState};
use crate::config::ArchConfig;

use async_copy::Group;
use lsu::Token;
pub use lsu::OutReq;
use pipes::{pipe, Branch, Issue, IssueInfo, SubPart, NUNITS};
pub use pipes::{spill_placement, IssueTable};
pub use scoreboard::{Dep, PENDING};

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
    /// L1 sector hits of global loads and stores (a store hits a sector present).
    pub l1_hit_sectors_global: u64,
    pub l1_requests_global_ld: u64,
    pub l1_sectors_global_st: u64,
    /// L1 sectors of global atomics that return a value, and of reductions (never hits).
    pub l1_sectors_global_atom: u64,
    pub l1_sectors_global_red: u64,
    pub smem_wavefronts: u64,
    pub smem_bank_conflicts: u64,
    /// Warp-cycles per warp state, indexed by [`Stall`].
    pub stall_cycles: [u64; Stall::ALL.len()],
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
    /// The warp sleeps in an `mbarrier.try_wait` (`SYNCS...TRYWAIT`): when woken it runs the
    /// instruction again to read the phase, which the hardware does inside the one suspended
    /// instruction, so the second pass is not counted (ncu counts one per wait: tma_latency).
    resumes_wait: bool,
    /// Machine code: the register the operand reuse cache holds per source slot ([`NO_REG`]).
    reuse_cache: [u8; 4],
}

/// A resident CTA: its cluster (in the GPC's arena), its rank there, and its warps.
struct CtaSlot {
    cluster: usize,
    rank: usize,
    warps: Vec<usize>,
    live_warps: u32,
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
    /// Cycle the SM's branch unit takes its next pass again: the passes of indirect branches
    /// and the splits of divergent direct ones queue there.
    branch_unit_free: u64,
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
            branch_unit_free: 0,
            spare: Vec::new(),
            launch_free: 0,
            l1_caches_global,
            warps: Vec::new(),
            resident: 0,
            ctas: Vec::new(),
            sps: (0..nsp).map(|_| SubPart { warps: Vec::new(), last: 0, pipe_free: [0; NUNITS], dispatch_free: 0 }).collect(),
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
    /// taking `sm.cta_launch_latency` cycles whatever the CTA's size (the H200 starts one every
    /// 156-162 cycles per SM for CTAs of 32 to 512 threads: `validate/data/h200/launch`).
    pub fn launch_slot(&mut self) -> u64 {
        let start = self.now.max(self.launch_free) + self.cfg.sm.cta_launch_latency as u64;
        self.launch_free = start;
        start
    }
    /// Places a CTA (rank `rank` of arena cluster `cluster`) on this SM; its warps may issue
    /// from `start`.
    pub fn admit(&mut self, cluster: usize, rank: usize, res: CtaRes, start: u64, first_warp_uid: u64) {
        let slot = match self.ctas.iter().position(|c| c.is_none()) {
            Some(i) => i,
            None => {
                self.ctas.push(None);
                self.ctas.len() - 1
            }
        };
        let mut wids = Vec::new();
        for s in 0..self.k.dims.warps_per_cta() {
            let wi = self.admit_warp(s, slot, start, first_warp_uid + s as u64);
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

    /// Places warp `s` of the CTA in slot `cta` in the first free warp slot, on the
    /// sub-partition the slot maps to, and returns the slot; a retired warp's buffers serve the
    /// new one (no allocation per warp).
    fn admit_warp(&mut self, s: u32, cta: usize, start: u64, uid: u64) -> usize {
        let k = &self.k;
        let threads = k.dims.threads_per_cta();
        let nregs = k.prog.regs.len();
        let frame0 = k.prog.funcs.first().map_or(0, |f| f.frame_size);
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
        let sp = wi % self.sps.len();
        self.warps[wi] = Some(TWarp {
            w,
            cta,
            sp,
            reg_ready,
            reg_dep,
            next: start,
            next_dep: Dep::Launch,
            unit: self.table.unit(0),
            needs_mshr: self.table.insts.first().is_some_and(|i| i.needs_mshr),
            accounted: self.now.min(start),
            age: self.next_age,
            uid,
            groups,
            waiting_groups: None,
            after_copies,
            wgmma_open: 0,
            wgmma_groups,
            sb,
            sb_dep: [Dep::None; 6],
            yielded: false,
            resumes_wait: false,
            reuse_cache: [NO_REG; 4],
        });
        self.next_age += 1;
        self.sps[sp].warps.push(wi);
        wi
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
    /// One step of the clock: due events, then an issue attempt on every sub-partition at
    /// `now`; the clock then moves to the next cycle, or skips to the next event (at most to
    /// `until`) when nothing issued.
    pub fn cycle(&mut self, until: u64, base: &DeviceMemory, arena: &mut Arena) -> Result<(), Fault> {
        let width = self.cfg.sm.issue_width.max(1);
        // An applied event may wake warps (the GPC wakes them after this step): the clock then
        // moves one cycle, not to the next event, so they issue when the event happened.
        let evented = self.process_events(arena);
        self.release_mshrs();
        if self.resident == 0 && self.events.is_empty() {
            // Nothing to issue and nothing due: the clock goes to the window's end.
            self.advance(until);
            return Ok(());
        }
        let mut issued = false;
        for sp in 0..self.sps.len() {
            if self.sps[sp].dispatch_free > self.now {
                continue;
            }
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
        if issued || evented {
            self.advance(self.now + 1);
        } else {
            let t = self.next_event();
            self.advance(if t >= until { until } else { t.max(self.now + 1) });
        }
        Ok(())
    }
    /// Issues warp `wi`'s next instruction at `self.now`: stall accounting, functional
    /// execution, pipe occupancy, latency, the scoreboard, then barriers and exits.
    fn issue(&mut self, wi: usize, base: &DeviceMemory, arena: &mut Arena) -> Result<(), Fault> {
        let now = self.now;
        let (pc, cta_slot, sp) = self.account_issue(wi, now);
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
        let depth = if info.branch != Branch::No { self.warps[wi].as_ref().map_or(0, |tw| tw.w.stack.len()) } else { 0 };
        let step = self.execute(wi, pc, cta_slot, &info, base, arena)?;
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
        let lat = lat + fp32_ops * self.cfg.pipes.fp32.latency as u64;
        // Folded instructions (address arithmetic, moves) have no latency of their own.
        let lat = if cost == 0 && self.trace.mask == 0 { 0 } else { lat };
        // The tensor pipe's occupancy is the matrix shape's (`matrix_timing`), not a lane count.
        if cost > 0 && unit != Unit::Tensor {
            self.occupy(sp, unit, occupancy, fp32_ops);
        }
        let done = if token.is_some() { None } else { Some(now + lat) };
        let ctl = self.table.ctl.get(pc as usize).copied();
        if let (Some(c), Some(tw)) = (&ctl, self.warps[wi].as_mut()) {
            let extra = bank_conflict_cycles(c, &mut tw.reuse_cache, self.cfg.sm.register_banks);
            if extra > 0 {
                self.sps[sp].dispatch_free = now + 1 + extra;
            }
        }
        match ctl {
            Some(c) => self.set_barriers(wi, &c, done, dep, p.latency as u64),
            None => self.set_registers(wi, pc, done, dep, cost.max(if cost == 0 { 0 } else { 1 }) + spill_ops),
        }
        if let Some(t) = token {
            if let Some(tok) = self.tokens[t as usize].as_mut() {
                tok.regs.extend_from_slice(&self.k.prog.insts[pc as usize].defs);
                tok.sb = ctl.and_then(|c| c.write_barrier);
            }
        }
        if info.branch != Branch::No {
            self.resolve_branch(wi, info.branch, depth);
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

    /// After a branch the SM's branch unit resolves (ncu's `branch_resolving`; its queue shows as
    /// `mio_throttle`), warp `wi` issues nothing until its pass is done, beyond the issue wait
    /// already set. `depth`: the warp's SIMT stack before the branch; a deeper one now means the
    /// branch split the warp's lanes.
    ///
    /// An indirect branch (`BRX`, `brx.idx`: a `switch` ptxas made a jump table of) waits for the
    /// passes queued before it (`misc.indexed_branch_issue_cycles` each), then takes
    /// `misc.indexed_branch_cycles`, and `misc.indexed_branch_split_cycles` more if it peeled off
    /// the lanes of one of several targets (the other lanes run the branch again). A direct
    /// branch costs nothing here unless it diverged; then it queues the same way
    /// (`misc.divergent_branch_issue_cycles`) and takes `misc.divergent_branch_cycles`.
    /// Measured by the `switch_table` and `switch_tree` probes on an H100
    /// (validate/data/h100/probes/2026-12-05.json): a uniform BRX costs its warp ~100 cycles of
    /// branch_resolving, each divergent pass ~225, and the SM runs about one pass per 7 cycles;
    /// 64 warps splitting at ~10 direct branches per case tree each run at about one split per 3
    /// cycles per SM.
    fn resolve_branch(&mut self, wi: usize, kind: Branch, depth: usize) {
        let m = &self.cfg.misc;
        let Some(tw) = self.warps[wi].as_mut() else { return };
        let split = tw.w.stack.len() > depth;
        let (unit, cycles) = match kind {
            Branch::Indexed => (m.indexed_branch_issue_cycles, m.indexed_branch_cycles + if split { m.indexed_branch_split_cycles } else { 0 }),
            Branch::Direct if split => (m.divergent_branch_issue_cycles, m.divergent_branch_cycles),
            Branch::Direct | Branch::No => return,
        };
        let start = self.branch_unit_free.max(self.now);
        self.branch_unit_free = start + u64::from(unit);
        let cost = start - self.now + u64::from(cycles);
        if cost > 0 {
            tw.next = tw.next.max(self.now) + cost;
            tw.next_dep = Dep::Branch;
        }
    }

    /// Executes the instruction at `pc` of warp `wi` functionally (against this window's
    /// overlay of device memory and the cluster's shared state) and counts it.
    fn execute(&mut self, wi: usize, pc: u32, cta_slot: usize, info: &IssueInfo, base: &DeviceMemory, arena: &mut Arena) -> Result<Step, Fault> {
        let now = self.now;
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
            let step = exec::step(&mut tw.w, &mut env)?;
            if std::mem::take(&mut tw.resumes_wait) {
                return Ok(step);
            }
            step
        };
        self.stats.warp_insts += 1;
        if info.shuffle {
            // SHFL runs in the shared-memory pipe: ncu counts one shared wavefront each (a CSR
            // SpMV reducing each row with five shuffles: 178810 wavefronts for 163840 shuffles
            // and 8448 warps' exits).
            self.stats.smem_wavefronts += 1;
        }
        self.stats.inst_executed += info.cost as u64;
        Ok(step)
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
                    tw.resumes_wait = true;
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
        // A completed CTA barrier passes the shared-memory pipe once: on the H200 ncu counts one
        // `l1tex__data_pipe_lsu_wavefronts_mem_shared` per CTA per barrier beyond the accesses
        // (the tree reductions' 9 `bar.sync` of 128 CTAs are reduce_first_add's 1152; smem_stride_*
        // one barrier in each of 66 CTAs: 66).
        self.stats.smem_wavefronts += 1;
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
        // A warp's exit passes through the shared-memory pipe once, twice in a block of more than
        // one dimension: on the H200, ncu's `l1tex__data_pipe_lsu_wavefronts_mem_shared` is
        // exactly one per warp in the 1-D-block kernels that touch no shared memory (saxpy, the
        // copies, the mlp and switch probes) and exactly two in the 15 of 2-D blocks
        // (transpose_naive, matmul_naive, stencil5, conv2d_3x3, gemm_f64_naive, ...). No block
        // with a z dimension was measured.
        self.stats.smem_wavefronts += 1;
        if self.k.dims.block[1] > 1 || self.k.dims.block[2] > 1 {
            self.stats.smem_wavefronts += 1;
        }
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
    /// Live warps of the resident CTAs, with their CTA's shared state and whether the warp waits
    /// only for its scheduler's turn (ready, no memory response outstanding: a greedy scheduler
    /// may pass it over for as long as an older warp spins) (for [`crate::watchdog`]).
    pub fn running<'a>(&'a self, arena: &'a Arena) -> impl Iterator<Item = (&'a crate::cta::CtaShared, &'a Warp, bool)> + 'a {
        self.warps.iter().flatten().filter(|tw| tw.w.state != WarpState::Done).filter_map(move |tw| {
            let slot = self.ctas[tw.cta].as_ref()?;
            let c = arena.clusters.get(slot.cluster)?.as_ref()?;
            let turn = tw.w.state == WarpState::Ready && tw.next != PENDING;
            Some((&c.ctas[slot.rank], &tw.w, turn))
        })
    }
}

/// Further cycles a machine instruction holds its sub-partition's dispatch to read its source
/// registers from `banks` register-file banks (register index mod `banks`), one read per bank
/// per cycle (0 banks: none), and the warp's operand reuse cache after it. A slot whose register
/// the cache holds reads no bank; each slot the instruction reads a register through keeps it
/// in the cache when marked `.reuse` and drops it otherwise; slots it does not read keep theirs
/// (the H200 shows no dispatch stall for `ffma_ilp8`, whose reused multiplicands outlive an
/// `ISETP` between two FFMAs).
fn bank_conflict_cycles(c: &Control, cache: &mut [u8; 4], banks: u32) -> u64 {
    let mut per_bank = [0u64; 4];
    let mut read = [NO_REG; 8];
    let mut n = 0;
    for (slot, &r) in c.srcs.iter().enumerate() {
        if r == NO_REG {
            continue;
        }
        if cache[slot] != r {
            let pair = [Some(r), (c.wide >> slot & 1 == 1).then(|| r.wrapping_add(1))];
            for reg in pair.into_iter().flatten() {
                if !read[..n].contains(&reg) {
                    read[n] = reg;
                    n += 1;
                    if banks > 0 {
                        per_bank[reg as usize % banks as usize] += 1;
                    }
                }
            }
        }
        cache[slot] = if c.reuse >> slot & 1 == 1 { r } else { NO_REG };
    }
    per_bank.iter().max().map_or(0, |&m| m.saturating_sub(1))
}

#[cfg(test)]
mod tests {
    use warpsim_isa::control::{Control, Pipe, NO_REG};

    use super::bank_conflict_cycles;

    fn ctl(srcs: [u8; 4], wide: u8, reuse: u8) -> Control {
        Control { stall: 1, yields: false, write_barrier: None, read_barrier: None, wait_mask: 0, depbar: None, pipe: Pipe::Fp32, srcs, wide, reuse }
    }

    #[test]
    fn a_bank_read_twice_costs_a_cycle_unless_the_reuse_cache_has_it() {
        const N: u8 = NO_REG;
        let mut cache = [N; 4];
        // code_chain's FFMA R6, R6, R2, R3: R6 and R2 in bank 0 of two.
        assert_eq!(bank_conflict_cycles(&ctl([6, 2, 3, N], 0, 0), &mut cache, 2), 1);
        assert_eq!(bank_conflict_cycles(&ctl([6, 2, 3, N], 0, 0), &mut cache, 4), 1, "6 and 2 share bank 2 of four too");
        assert_eq!(bank_conflict_cycles(&ctl([5, 2, 3, N], 0, 0), &mut cache, 4), 0);
        assert_eq!(bank_conflict_cycles(&ctl([6, 2, 3, N], 0, 0), &mut cache, 0), 0, "no banks modelled");
        // A register in two slots is read once.
        assert_eq!(bank_conflict_cycles(&ctl([5, 5, N, N], 0, 0), &mut cache, 2), 0);
        // ffma_ilp8: R2 and R3 kept (`.reuse`), an ISETP reading R6 in slot A between, then the
        // next FFMA reads only R14 from the banks.
        assert_eq!(bank_conflict_cycles(&ctl([20, 2, 3, N], 0, 0b110), &mut cache, 2), 1);
        assert_eq!(cache, [N, 2, 3, N]);
        assert_eq!(bank_conflict_cycles(&ctl([6, N, N, N], 0, 0), &mut cache, 2), 0);
        assert_eq!(bank_conflict_cycles(&ctl([14, 2, 3, N], 0, 0b110), &mut cache, 2), 0);
        // The same register in another slot is not a hit; a slot read without `.reuse` drops it.
        assert_eq!(bank_conflict_cycles(&ctl([2, 4, N, N], 0, 0), &mut cache, 2), 1);
        assert_eq!(cache, [N, N, 3, N]);
        // A 64-bit pair reads both banks.
        let mut cache = [N; 4];
        assert_eq!(bank_conflict_cycles(&ctl([6, 8, N, N], 0b11, 0), &mut cache, 2), 1);
    }
}
