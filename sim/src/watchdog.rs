//! The watchdog: a kernel that will never finish is stopped with a report, in both modes.
//!
//! Two limits apply to every run. A **budget**: simulated cycles (the functional runner's clock
//! is warp instructions) and wall-clock seconds. And **forward progress**: every few thousand
//! cycles the machine's architectural state is fingerprinted — registers, SIMT stacks, local and
//! shared memory, barriers, the count of global-memory changes, finished and dispatched CTAs,
//! but not program counters — and when every resident warp kept issuing (or sat at a barrier, or,
//! in the timing model, waited for its turn while a greedy scheduler kept picking a spinning warp)
//! for [`Limits::stall_cycles`] while the fingerprint stayed the same, the warps are spinning: a
//! branch to itself, a poll of a flag nothing sets, an mbarrier wait that never completes. A warp
//! that waits on memory instead of issuing, or copies still in flight, hold the verdict back, so
//! slow memory is never mistaken for a spin. Either way the run ends with
//! [`FaultKind::Watchdog`](crate::FaultKind::Watchdog): the kernel, the warps still running with
//! their PTX line, the loop each is in (its innermost backward branch) and what the loop polls
//! (the address each load or mbarrier test in it reads, named by allocation). The watchdog only
//! reads state, so a run it does not stop is cycle for cycle the run without it.

use std::collections::HashMap;
use std::fmt;
use std::time::{Duration, Instant};

use warpsim_isa::ast::Space;
use warpsim_isa::inst::{Base, MbarOp, Op, Opnd};
use warpsim_isa::program::{Program, SymKind};

use crate::cta::CtaShared;
use crate::fault::{Fault, FaultKind};
use crate::gpc::Gpc;
use crate::kernel::Kernel;
use crate::memory::{self, DeviceMemory};
use crate::warp::{Warp, WarpState};

/// Default cycle budget: 2^32 cycles, 120× the longest run of the bundled suite on any of the 13
/// presets (`syrk_naive` on tesla-g80, 35.4 M cycles) and 350× its most warp instructions in a
/// functional run (`stream_copy`, 12.1 M).
pub const DEFAULT_MAX_CYCLES: u64 = 1 << 32;
/// Default wall-clock budget per run: an hour, 45× the slowest bundled run measured
/// (`stream_copy` on hopper-h200, 77 s on a shared core).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(3600);
/// Default forward-progress window: 2^17 cycles, over a hundred DRAM round trips in which every
/// warp issued and nothing changed.
pub const DEFAULT_STALL_CYCLES: u64 = 1 << 17;
/// Warps named one by one in a report; the rest are counted.
pub const REPORTED_WARPS: usize = 12;

/// When a run is stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Simulated cycles (the functional runner: warp instructions).
    pub max_cycles: u64,
    /// Wall-clock time; `None` for no limit.
    pub timeout: Option<Duration>,
    /// Cycles (warp instructions) of issuing without forward progress.
    pub stall_cycles: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { max_cycles: DEFAULT_MAX_CYCLES, timeout: Some(DEFAULT_TIMEOUT), stall_cycles: DEFAULT_STALL_CYCLES }
    }
}

/// A wall-clock budget as written (`--timeout 90`, `timeout = 0.5`): a positive number of seconds.
pub fn parse_seconds(s: &str) -> Result<Duration, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v > 0.0 && v < 1e12 => Ok(Duration::from_secs_f64(v)),
        _ => Err(format!("`{s}`: expected a positive number of seconds")),
    }
}

/// Why the watchdog stopped a run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Stop {
    /// Warps issued for this many cycles without changing any state.
    NoProgress { cycles: u64 },
    /// The cycle budget was spent.
    MaxCycles(u64),
    /// The wall-clock budget was spent.
    Timeout(Duration),
}

/// A warp still running when the watchdog stopped the kernel.
#[derive(Debug, Clone, PartialEq)]
pub struct Spinner {
    pub cta: [u32; 3],
    pub warp: u32,
    /// PTX position (and source line) of the warp's next instruction.
    pub pc_line: String,
    /// The innermost loop around it, `file:first-last`, or empty when it is in none.
    pub in_loop: String,
    /// What the loop reads: each load or mbarrier test with the address it reads for this warp.
    pub polls: String,
    /// Whether one of those reads is of global memory.
    pub polls_global: bool,
}

/// The watchdog's report.
#[derive(Debug, Clone, PartialEq)]
pub struct Runaway {
    pub stop: Stop,
    /// Cycle (functional: warp instruction) at which the run stopped.
    pub clock: u64,
    pub functional: bool,
    /// The first [`REPORTED_WARPS`] running warps, in CTA and warp order.
    pub warps: Vec<Spinner>,
    /// Running warps in all.
    pub total: usize,
    /// Distinct loops the running warps are in, with their warp counts (most warps first).
    pub loops: Vec<(String, usize)>,
    /// Functional runs: the clusters that were spinning side by side when the runner gave up
    /// (it sets a spinning cluster aside and runs the next, see [`crate::functional`]).
    pub spinning_clusters: usize,
}

impl fmt::Display for Runaway {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (unit, at) = if self.functional { ("warp instructions", "warp instruction") } else { ("cycles", "cycle") };
        match self.stop {
            Stop::NoProgress { cycles } => write!(
                f,
                "no forward progress for {cycles} {unit} (stopped at {at} {}): {} warps kept issuing or waiting to issue, but no register, local, shared or global memory or barrier changed",
                self.clock, self.total
            )?,
            Stop::MaxCycles(n) => write!(f, "still running after the budget of {n} {unit} (--max-cycles); {} warps running", self.total)?,
            Stop::Timeout(d) => write!(
                f,
                "still running after the wall-clock budget of {} s (--timeout), at {at} {}; {} warps running",
                d.as_secs_f64(),
                self.clock,
                self.total
            )?,
        }
        if self.functional && self.spinning_clusters > 0 {
            let n = self.spinning_clusters;
            let set = if n == 1 { "this cluster was the only one left to run".to_string() } else { format!("{n} clusters were spinning side by side") };
            write!(f, " (the functional runner sets a spinning cluster aside and runs the next; {set} and none changed global memory: a flag no CTA sets, or one a CTA set aside beyond them would set; the timing model runs resident CTAs together)")?;
        }
        let loops: Vec<String> = self.loops.iter().map(|(l, n)| format!("{l} ({n} warps)")).collect();
        if !loops.is_empty() {
            write!(f, "; loops: {}", loops.join(", "))?;
        }
        for s in &self.warps {
            write!(f, "\n  CTA ({},{},{}) warp {} at {}", s.cta[0], s.cta[1], s.cta[2], s.warp, s.pc_line)?;
            if !s.in_loop.is_empty() {
                write!(f, " in the loop {}", s.in_loop)?;
            }
            write!(f, ": {}", s.polls)?;
        }
        if self.total > self.warps.len() {
            write!(f, "\n  … and {} more warps", self.total - self.warps.len())?;
        }
        Ok(())
    }
}

/// A fast 64-bit fingerprint of machine state (not cryptographic: it detects change).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Fingerprint(u64);

impl Default for Fingerprint {
    fn default() -> Self {
        Fingerprint(0x243F_6A88_85A3_08D3)
    }
}

impl Fingerprint {
    #[inline]
    pub fn word(&mut self, x: u64) {
        self.0 = (self.0 ^ x).wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(29);
    }

    pub fn words(&mut self, xs: &[u64]) {
        for &x in xs {
            self.word(x);
        }
    }

    pub fn bytes(&mut self, b: &[u8]) {
        let mut chunks = b.chunks_exact(8);
        for c in &mut chunks {
            self.word(u64::from_le_bytes(c.try_into().expect("8-byte chunk")));
        }
        let mut tail = [0u8; 8];
        tail[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
        self.word(u64::from_le_bytes(tail) ^ (b.len() as u64) << 56);
    }

    /// A warp's architectural state, program counter aside (a spinning warp's pc moves).
    pub fn warp(&mut self, w: &Warp) {
        self.words(&w.regs);
        self.word(w.carry as u64);
        let n = w.stack.len();
        for (i, e) in w.stack.iter().enumerate() {
            self.word((e.rpc as u64) << 32 | e.mask as u64);
            if i + 1 < n {
                self.word(e.pc as u64);
            }
        }
        self.word(w.calls.len() as u64);
        for l in &w.local {
            self.bytes(l);
        }
        self.word(w.frame_base);
        self.word(w.exited as u64);
        self.word(w.cluster_phase as u64);
        self.word(match w.state {
            WarpState::Ready => 0,
            WarpState::AtBarrier(id) => 1 + id as u64,
            WarpState::AtClusterBarrier => 100,
            WarpState::AtMbarrier { off, phase, cta } => 200 ^ off << 8 ^ (phase as u64) << 40 ^ (cta as u64) << 48,
            WarpState::AtAsyncWait => 300,
            WarpState::Done => 400,
        });
    }

    /// A CTA's shared memory and barriers.
    pub fn cta(&mut self, c: &CtaShared) {
        self.bytes(&c.smem);
        for b in &c.bars {
            self.word((b.arrived as u64) << 32 | b.waiting.len() as u64);
        }
        self.word(c.live_threads as u64);
        self.word((c.cluster_arrived as u64) << 32 | c.cluster_phase as u64);
    }

    pub fn value(&self) -> u64 {
        self.0
    }
}

/// The instruction a running warp is at (a waiting one: the one it waits at).
fn at_pc(w: &Warp) -> u32 {
    match w.state {
        WarpState::Ready => w.pc(),
        s => s.waiting_pc(w.pc()),
    }
}

/// Whether a warp counts as spinning (it issued since the last look) or waiting on another warp.
fn blocked(w: &Warp) -> bool {
    matches!(w.state, WarpState::AtBarrier(_) | WarpState::AtClusterBarrier | WarpState::AtMbarrier { .. })
}

/// What a progress check sees: the cheap counters, each warp's issue count and whether it waits
/// at a barrier, and whether asynchronous work is in flight.
#[derive(Debug, Default)]
pub(crate) struct Look {
    /// Global-memory changes, CTAs finished and dispatched: any change is progress.
    pub counters: Vec<u64>,
    pub warps: Vec<(u64, bool)>,
    /// Copies or mbarrier events outstanding (their completion is progress to come).
    pub in_flight: bool,
}

impl Look {
    /// Warp `w`; `turn`: it waits only for its scheduler to pick it (the timing model), which
    /// counts as waiting on the warps that issue instead.
    pub fn warp(&mut self, w: &Warp, turn: bool) {
        self.warps.push((w.issued, blocked(w) || turn));
    }
}

/// Budgets and progress of one run.
pub(crate) struct Watch {
    limits: Limits,
    start: Instant,
    next: u64,
    since: u64,
    last: Option<(Look, Option<u64>)>,
}

impl Watch {
    pub fn new(limits: &Limits) -> Watch {
        Watch { limits: *limits, start: Instant::now(), next: Self::interval(limits), since: 0, last: None }
    }

    /// Cycles between progress checks: a quarter of the window.
    fn interval(l: &Limits) -> u64 {
        (l.stall_cycles / 4).max(1)
    }

    /// The budget, checked at `now` (cheap: every window or quantum).
    pub fn budget(&self, now: u64) -> Option<Stop> {
        if now > self.limits.max_cycles {
            return Some(Stop::MaxCycles(self.limits.max_cycles));
        }
        self.limits.timeout.filter(|&t| self.start.elapsed() > t).map(Stop::Timeout)
    }

    /// Whether a progress check is due at `now`.
    pub fn due(&self, now: u64) -> bool {
        now >= self.next
    }

    /// Forgets the state seen so far: the next checks are of other warps (the functional runner
    /// switching clusters), a window of their own.
    pub fn restart_window(&mut self) {
        self.last = None;
    }

    /// A progress check at `now`: `look` is what changed cheaply, `fingerprint` computes the
    /// full state (only when nothing cheap changed and every warp spun). Returns the stop when
    /// the warps have spun for the whole window without changing it.
    pub fn check(&mut self, now: u64, look: Look, fingerprint: impl FnOnce() -> u64) -> Option<Stop> {
        self.next = now + Self::interval(&self.limits);
        let spun = match &self.last {
            Some((prev, _)) => {
                prev.counters == look.counters
                    && prev.warps.len() == look.warps.len()
                    && !look.warps.is_empty()
                    && !look.in_flight
                    && prev.warps.iter().zip(&look.warps).all(|(a, b)| b.0 > a.0 || b.1)
                    && prev.warps.iter().zip(&look.warps).any(|(a, b)| b.0 > a.0)
            }
            None => false,
        };
        if !spun {
            self.since = now;
            self.last = Some((look, None));
            return None;
        }
        let fp = fingerprint();
        let same = self.last.as_ref().and_then(|l| l.1) == Some(fp);
        if !same {
            self.since = now;
        }
        self.last = Some((look, Some(fp)));
        (same && now - self.since >= self.limits.stall_cycles).then_some(Stop::NoProgress { cycles: now - self.since })
    }
}

/// The innermost loop around each pc (its first and last instruction), by backward branches.
struct Loops<'p> {
    prog: &'p Program,
    /// (target, branch) of every backward branch.
    back: Vec<(u32, u32)>,
    memo: HashMap<u32, Option<(u32, u32)>>,
}

impl<'p> Loops<'p> {
    pub fn new(prog: &'p Program) -> Loops<'p> {
        let mut back = Vec::new();
        for (pc, i) in prog.insts.iter().enumerate() {
            if i.op == Op::Bra {
                for o in &i.ops {
                    if let Opnd::Label(t) = *o {
                        if t as usize <= pc {
                            back.push((t, pc as u32));
                        }
                    }
                }
            }
        }
        Loops { prog, back, memo: HashMap::new() }
    }

    pub fn around(&mut self, pc: u32) -> Option<(u32, u32)> {
        let back = &self.back;
        *self.memo.entry(pc).or_insert_with(|| back.iter().copied().filter(|&(t, b)| t <= pc && pc <= b).min_by_key(|&(t, b)| b - t))
    }

    /// Describes warp `w` of CTA `cta` for a report.
    pub fn spinner(&mut self, k: &Kernel, w: &Warp, cta: &CtaShared, mem: &DeviceMemory) -> Spinner {
        let pc = at_pc(w);
        let p = self.prog;
        let line = |pc: u32| p.insts.get(pc as usize).map_or_else(|| "?".to_string(), |i| i.loc.ptx.line.to_string());
        let (in_loop, polls, polls_global) = match self.around(pc) {
            Some((first, last)) => {
                let reads: Vec<(String, bool)> = (first..=last).filter_map(|q| poll(k, w, cta, mem, q)).collect();
                let global = reads.iter().any(|r| r.1);
                let reads: Vec<String> = reads.into_iter().map(|r| r.0).collect();
                let polls = if reads.is_empty() { "reads no memory in the loop".to_string() } else { format!("polls {}", reads.join("; ")) };
                (format!("{}:{}-{}", p.ptx_file, line(first), line(last)), polls, global)
            }
            None => (String::new(), waits(w), false),
        };
        Spinner { cta: cta.id, warp: w.slot, pc_line: p.source_line(pc), in_loop, polls, polls_global }
    }
}

/// What a warp outside any loop is doing.
fn waits(w: &Warp) -> String {
    match w.state {
        WarpState::AtBarrier(id) => format!("waits at barrier {id}"),
        WarpState::AtClusterBarrier => "waits at barrier.cluster.wait".to_string(),
        WarpState::AtMbarrier { off, .. } => format!("sleeps in mbarrier.try_wait on shared {off:#x}"),
        WarpState::AtAsyncWait => "waits for asynchronous copies".to_string(),
        WarpState::Ready | WarpState::Done => "not in a loop".to_string(),
    }
}

/// What the instruction at `pc` reads, if it is a load, an atomic or an mbarrier test, with
/// the address it reads for `w`'s first active lane, and whether that is global memory.
fn poll(k: &Kernel, w: &Warp, cta: &CtaShared, mem: &DeviceMemory, pc: u32) -> Option<(String, bool)> {
    let i = k.prog.insts.get(pc as usize)?;
    let mbar = matches!(i.op, Op::Mbarrier(MbarOp::TestWait | MbarOp::TryWait));
    if !(matches!(i.op, Op::Ld | Op::Ldu | Op::Atom(_)) || mbar) {
        return None;
    }
    let lane = (w.active().trailing_zeros() as usize).min(31);
    let (base, offset) = i.src().iter().find_map(|o| match o {
        Opnd::Addr { base, offset } => Some((*base, *offset)),
        _ => None,
    })?;
    let mut space = i.m.spaces.first().copied().unwrap_or(Space::Generic);
    let b = match base {
        Base::Sym(s) => {
            let sym = &k.prog.symbols[s as usize];
            match sym.kind {
                SymKind::Frame => w.frame_base + k.sym_addr[s as usize],
                SymKind::Shared | SymKind::DynShared if space == Space::Generic => {
                    space = Space::Shared;
                    k.sym_addr[s as usize]
                }
                _ => k.sym_addr[s as usize],
            }
        }
        Base::SymIndex(s, r) => k.sym_addr[s as usize].wrapping_add(w.reg(r, lane) & 0xFFFF_FFFF),
        b => b.value(|r| w.reg(r, lane)).unwrap_or(0),
    };
    let mut addr = b.wrapping_add(offset as u64);
    if space == Space::Generic {
        match memory::window_of(addr) {
            memory::Window::Shared => {
                addr -= memory::SHARED_WINDOW;
                space = Space::Shared;
            }
            memory::Window::Global => space = Space::Global,
            _ => {}
        }
    }
    let op = match i.op {
        Op::Mbarrier(MbarOp::TestWait) => "mbarrier.test_wait".to_string(),
        Op::Mbarrier(_) => "mbarrier.try_wait".to_string(),
        op => format!("{}.{}", warpsim_isa::decode::op_name(op), format!("{space:?}").to_lowercase()),
    };
    let at = format!("{op} at {}:{}", k.prog.ptx_file, i.loc.ptx.line);
    let what = match space {
        Space::Global => match mem.allocation_of(addr) {
            Some(a) => format!("global {addr:#x} (`{}` + {})", a.name, addr - a.base),
            None => format!("global {addr:#x} (in no allocation)"),
        },
        Space::Shared | Space::SharedCluster if mbar => {
            let off = addr & ((1 << memory::CLUSTER_RANK_SHIFT) - 1);
            let m = crate::mbarrier::Mbar::read(&cta.smem, off);
            format!(
                "the mbarrier at shared {off:#x} (phase parity {}, {} of {} arrivals pending, tx-count {} bytes)",
                m.phase as u8, m.pending, m.expected, m.tx
            )
        }
        Space::Shared | Space::SharedCluster => format!("shared {addr:#x}"),
        s => format!("{} {addr:#x}", format!("{s:?}").to_lowercase()),
    };
    Some((format!("{what} by {at}"), space == Space::Global))
}

/// Builds the report from every running warp `(CTA, warp)`, in CTA and warp order.
pub fn report<'a>(
    k: &Kernel,
    mem: &DeviceMemory,
    stop: Stop,
    clock: u64,
    functional: bool,
    running: impl Iterator<Item = (&'a CtaShared, &'a Warp)>,
) -> Runaway {
    let mut loops = Loops::new(&k.prog);
    let mut all: Vec<(u64, u32, &CtaShared, &Warp)> = running.map(|(c, w)| (c.linear, w.slot, c, w)).collect();
    all.sort_by_key(|x| (x.0, x.1));
    let mut counts: Vec<(String, usize)> = Vec::new();
    for (_, _, _, w) in &all {
        let pc = at_pc(w);
        let name = match loops.around(pc) {
            Some((first, last)) => {
                let line = |pc: u32| k.prog.insts[pc as usize].loc.ptx.line;
                format!("{}:{}-{}", k.prog.ptx_file, line(first), line(last))
            }
            None => "outside loops".to_string(),
        };
        match counts.iter_mut().find(|c| c.0 == name) {
            Some(c) => c.1 += 1,
            None => counts.push((name, 1)),
        }
    }
    counts.sort_by_key(|c| std::cmp::Reverse(c.1));
    let warps = all.iter().take(REPORTED_WARPS).map(|(_, _, c, w)| loops.spinner(k, w, c, mem)).collect();
    Runaway { stop, clock, functional, warps, total: all.len(), loops: counts, spinning_clusters: 0 }
}

/// One watchdog step of the timing engine at cycle `now`: the budget, then (when due) a progress
/// check over every GPC's running warps. `finished` and `dispatched` count CTAs and clusters.
pub(crate) fn timing_step(w: &mut Watch, now: u64, gpcs: &[Gpc], mem: &DeviceMemory, k: &Kernel, finished: u64, dispatched: u64) -> Option<Fault> {
    let live = || gpcs.iter().flat_map(|g| g.sms.iter().flat_map(move |s| s.running(&g.arena)));
    let running = || live().map(|(c, w, _)| (c, w));
    let mut stop = w.budget(now);
    if stop.is_none() && w.due(now) {
        let mut look = Look { counters: vec![mem.changes(), finished, dispatched], ..Look::default() };
        look.in_flight = gpcs.iter().flat_map(|g| g.sms.iter()).any(|s| s.copies_in_flight());
        for (_, warp, turn) in live() {
            look.warp(warp, turn);
        }
        stop = w.check(now, look, || {
            let mut fp = Fingerprint::default();
            for g in gpcs {
                for c in g.arena.clusters.iter().flatten() {
                    fp.word((c.arrived as u64) << 32 | c.phase as u64);
                    c.ctas.iter().for_each(|cta| fp.cta(cta));
                }
            }
            running().for_each(|(_, warp)| fp.warp(warp));
            fp.value()
        });
    }
    stop.map(|s| Fault::global(&k.prog.name, FaultKind::Watchdog(Box::new(report(k, mem, s, now, false, running())))))
}

/// One watchdog step of the functional runner after a round of the cluster's warps; the clock
/// is warp instructions, `cluster` the cluster barrier's (phase, arrivals).
pub(crate) fn functional_step(
    w: &mut Watch,
    now: u64,
    k: &Kernel,
    mem: &DeviceMemory,
    ctas: &[CtaShared],
    warps: &[Vec<Warp>],
    cluster: (u32, u32),
) -> Option<Fault> {
    let running = || ctas.iter().zip(warps).flat_map(|(c, ws)| ws.iter().filter(|w| w.state != WarpState::Done).map(move |w| (c, w)));
    let mut stop = w.budget(now);
    if stop.is_none() && w.due(now) {
        let done = warps.iter().flatten().filter(|w| w.state == WarpState::Done).count() as u64;
        let mut look = Look { counters: vec![mem.changes(), done], ..Look::default() };
        for (_, warp) in running() {
            look.warp(warp, false);
        }
        stop = w.check(now, look, || {
            let mut fp = Fingerprint::default();
            fp.word((cluster.0 as u64) << 32 | cluster.1 as u64);
            ctas.iter().for_each(|c| fp.cta(c));
            running().for_each(|(_, warp)| fp.warp(warp));
            fp.value()
        });
    }
    stop.map(|s| Fault::global(&k.prog.name, FaultKind::Watchdog(Box::new(report(k, mem, s, now, true, running())))))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn look(counters: &[u64], warps: &[(u64, bool)], in_flight: bool) -> Look {
        Look { counters: counters.to_vec(), warps: warps.to_vec(), in_flight }
    }

    /// Checks every 25 cycles with a 100-cycle window; `step(t)` gives the look and fingerprint.
    fn stops_at(step: impl Fn(u64) -> (Look, u64)) -> Option<u64> {
        let mut w = Watch::new(&Limits { stall_cycles: 100, ..Limits::default() });
        (1..=40).map(|i| i * 25).find(|&t| {
            let (l, fp) = step(t);
            w.check(t, l, || fp).is_some()
        })
    }

    #[test]
    fn spinning_warps_with_unchanged_state_are_stopped_after_the_window() {
        // Two warps issue every check, nothing changes: stopped 100 cycles after the first
        // fingerprint (taken at the second check).
        assert_eq!(stops_at(|t| (look(&[7, 0], &[(t, false), (t, false)], false), 42)), Some(150));
        // A warp at a barrier counts as waiting on the spinning one.
        assert_eq!(stops_at(|t| (look(&[7, 0], &[(t, false), (3, true)], false), 42)), Some(150));
    }

    #[test]
    fn any_change_waiting_warp_or_copy_in_flight_holds_the_verdict_back() {
        // The fingerprint changes.
        assert_eq!(stops_at(|t| (look(&[7, 0], &[(t, false)], false), t)), None);
        // A global-memory change (or a CTA finishing) every check.
        assert_eq!(stops_at(|t| (look(&[t, 0], &[(t, false)], false), 42)), None);
        // A warp waits on memory without issuing (slow memory is not a spin).
        assert_eq!(stops_at(|t| (look(&[7, 0], &[(t, false), (5, false)], false), 42)), None);
        // Asynchronous copies are in flight.
        assert_eq!(stops_at(|t| (look(&[7, 0], &[(t, false)], true), 42)), None);
        // Nobody issues at all: that is the deadlock detector's case, not a spin.
        assert_eq!(stops_at(|_| (look(&[7, 0], &[(5, true)], false), 42)), None);
    }

    #[test]
    fn budgets_and_seconds() {
        let w = Watch::new(&Limits { max_cycles: 10, timeout: None, ..Limits::default() });
        assert_eq!(w.budget(10), None);
        assert_eq!(w.budget(11), Some(Stop::MaxCycles(10)));
        let w = Watch::new(&Limits { timeout: Some(Duration::ZERO), ..Limits::default() });
        assert_eq!(w.budget(0), Some(Stop::Timeout(Duration::ZERO)));
        assert_eq!(parse_seconds("1.5"), Ok(Duration::from_millis(1500)));
        for bad in ["0", "-3", "nan", "inf", "x"] {
            assert!(parse_seconds(bad).is_err(), "{bad}");
        }
    }
}
