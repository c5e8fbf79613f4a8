//! The load/store unit and the SM's side of the memory system: shared-memory banks and data
//! path, the constant cache, the L1 (tag and data stages, sectors, write-through), its miss slots
//! (MSHRs, with merges of loads into an outstanding fill), local memory's lane interleaving and
//! the compiler's spill code, and the requests to L2 with the tokens that track their responses
//! until [`Sm::deliver`] releases the waiting registers or scoreboard barrier.

use warpsim_isa::inst::{AtomOp, Op};
use warpsim_isa::types::{CacheOp, Ty};

use crate::banks;
use crate::coalescer::{coalesce, Txn, LINE, SECTOR};
use crate::exec::{AsyncEvent, MemTrace, TraceSpace};
use crate::fault::Fault;
use crate::l2::{AtomShape, MemReq, ReqKind};
use crate::memory::LOCAL_WINDOW;

use super::pipes::IssueInfo;
use super::{Dep, Sm, PENDING};

/// Outstanding memory responses of one warp instruction (or one asynchronous copy).
pub(super) struct Token {
    pub(super) warp: usize,
    pub(super) regs: Vec<u32>,
    pub(super) outstanding: u32,
    pub(super) ready: u64,
    pub(super) dep: Dep,
    /// mbarrier events to apply when the data has arrived (TMA, bulk copies).
    pub(super) actions: Vec<AsyncEvent>,
    /// The copy group (kind, id) the request belongs to.
    pub(super) group: Option<(usize, u64)>,
    /// Machine code: the scoreboard barrier the response releases.
    pub(super) sb: Option<u8>,
}

/// A request leaving this SM for the memory system.
#[derive(Debug, Clone, Copy)]
pub struct OutReq {
    pub req: MemReq,
    pub token: Option<u32>,
    /// The request holds one of the SM's L1 miss slots until its data returns.
    pub mshr: bool,
}

/// The distinct addresses of the lanes in `mask`, each with how many of them name it, in the
/// order of their first lane.
#[allow(clippy::needless_range_loop)] // lane-indexed arrays side by side
fn lanes_per_address(addr: &[u64; 32], mask: u32) -> Vec<(u64, u16)> {
    let mut seen: Vec<(u64, u16)> = Vec::new();
    for l in 0..32 {
        if mask >> l & 1 == 1 {
            match seen.iter_mut().find(|x| x.0 == addr[l]) {
                Some(x) => x.1 += 1,
                None => seen.push((addr[l], 1)),
            }
        }
    }
    seen
}

/// One lane's address per lane of an atomic, merged into one L2 request per line (in `txns`);
/// returns each request's shape: same-address lanes serialize there, in rounds.
fn atomic_txns(addr: &[u64; 32], mask: u32, size: u32, txns: &mut Vec<Txn>) -> Vec<AtomShape> {
    txns.clear();
    let seen = lanes_per_address(addr, mask);
    for &(a, _) in &seen {
        let line = a & !(LINE - 1);
        let bit = 1u8 << ((a % LINE) / SECTOR);
        match txns.iter_mut().position(|t| t.line == line) {
            Some(i) => txns[i].sectors |= bit,
            None => txns.push(Txn { line, sectors: bit, bytes: 0 }),
        }
    }
    let mut atom_shape: Vec<AtomShape> = Vec::new();
    for t in txns.iter() {
        atom_shape.push(AtomShape::of(seen.iter().filter(|x| x.0 & !(LINE - 1) == t.line).copied(), size));
    }
    atom_shape
}

impl Sm {
    pub(super) fn new_token(&mut self, t: Token) -> u32 {
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

    /// Whether every L1 miss slot is taken (the answered ones released up to `now`).
    pub(super) fn mshrs_full(&self) -> bool {
        self.mshr_sent as usize + self.mshr_release.len() >= self.cfg.l1.mshrs as usize
    }

    /// Frees the miss slots whose data has returned by `now`.
    pub(super) fn release_mshrs(&mut self) {
        while self.mshr_release.peek().is_some_and(|r| r.0 <= self.now) {
            self.mshr_release.pop();
        }
    }

    /// The memory system answered a request that held a miss slot: it frees at `done`.
    pub fn mshr_answered(&mut self, done: u64) {
        self.mshr_sent = self.mshr_sent.saturating_sub(1);
        self.mshr_release.push(std::cmp::Reverse(done));
    }

    /// Shared (or distributed shared) memory: the access's wavefronts through the banks and the
    /// SM's data path, after the accesses before it.
    pub(super) fn shared_timing(&mut self) -> (u64, Dep, Option<u32>) {
        let now = self.now;
        let (cfg, tr) = (&*self.cfg, &self.trace);
        let c = banks::wavefronts(&tr.addr, tr.mask, tr.size, cfg.smem.banks, cfg.smem.bank_bytes, cfg.smem.half_warp);
        // A load from another CTA's shared memory (distributed shared memory) comes back over the
        // SM-to-SM network: ncu counts it in neither SM's shared wavefronts (the H200's
        // dsmem_latency, 4096 remote loads of a pointer chase: 266 wavefronts; its local twin
        // 4394). Remote stores and reductions count (cluster_dsmem: 5139, 4872 with them, 3656
        // without).
        if tr.space != TraceSpace::Remote || tr.write || tr.atomic {
            self.stats.smem_wavefronts += c.wavefronts as u64;
            self.stats.smem_bank_conflicts += c.conflicts() as u64;
        }
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
        (start - now + lat + extra, Dep::Short, None)
    }

    /// PTX mode: the loop ptxas writes for a shared-memory atomic its hardware has no unit for
    /// (sm_75, sm_80, sm_89 and sm_90 listings of ptxas 13.0.88 alike: `atom`/`red.shared` of a
    /// float type — f32, f64, f16, bf16 — and the 64-bit ones other than `cas` and `exch`; the
    /// 32-bit integer ones are `ATOMS.ADD/MIN/INC/…`; Volta and the generations before it, which
    /// that ptxas does not target, are taken to be alike). Each pass loads the word (`LDS`),
    /// applies the operation and tries `ATOMS.CAST.SPIN`, then compares and branches back: one
    /// lane per address stores per pass, so the warp goes round as often as the most lanes on one
    /// address. Returns the latency the loop adds to the atomic's own (the load, the operation
    /// and the branch of every pass, the `ATOMS` of every pass after the first) and counts its
    /// further machine ops and shared-memory accesses; 0 for anything else, and in SASS mode
    /// (the listing holds the loop itself).
    pub(super) fn shared_atomic_loop(&mut self, pc: u32) -> u64 {
        /// Machine ops of one pass beyond the atomic: LDS, the address move, the operation,
        /// the compare (two for 64-bit words) and the branch.
        const PASS_OPS: u64 = 5;
        let inst = &self.k.prog.insts[pc as usize];
        let (op, ty) = match inst.op {
            Op::Atom(a) | Op::Red(a) => (a, inst.m.ty()),
            _ => return 0,
        };
        let looped = ty.is_float() || ty.bits() == 64 && !matches!(op, AtomOp::Cas | AtomOp::Exch | AtomOp::CasFlag);
        if !self.table.ctl.is_empty() || !self.trace.atomic || self.trace.space != TraceSpace::Shared || !looped {
            return 0;
        }
        let passes = lanes_per_address(&self.trace.addr, self.trace.mask).iter().map(|x| u64::from(x.1)).max().unwrap_or(1);
        let cfg = &*self.cfg;
        let op_lat = u64::from(if ty == Ty::F64 { cfg.pipes.fp64.latency } else if ty.is_float() { cfg.pipes.fp32.latency } else { cfg.pipes.int.latency });
        let pass = u64::from(cfg.smem.latency) + op_lat + u64::from(cfg.pipes.alu.latency);
        let wide = u64::from(ty.bits() == 64);
        // BSSY and BSYNC around the loop, each pass's ops, the ATOMS of the passes after the first.
        self.stats.inst_executed += 2 + passes * (PASS_OPS + wide) + (passes - 1);
        // Every pass reads the word and tries the store: two shared accesses, one of which the
        // atomic's own timing counted.
        self.stats.smem_wavefronts += 2 * passes - 1;
        self.smem_free += 2 * passes - 1;
        passes * pass + (passes - 1) * u64::from(cfg.misc.smem_atomic_latency)
    }

    /// The constant cache (constant and kernel-parameter space) serves one address per cycle.
    pub(super) fn const_timing(&self) -> (u64, Dep, Option<u32>) {
        let tr = &self.trace;
        let mut distinct = 0u64;
        let mut seen: [u64; 32] = [u64::MAX; 32];
        for l in 0..32 {
            if tr.mask >> l & 1 == 1 && !seen[..distinct as usize].contains(&tr.addr[l]) {
                seen[distinct as usize] = tr.addr[l];
                distinct += 1;
            }
        }
        (self.cfg.misc.const_latency as u64 + distinct.saturating_sub(1), Dep::Short, None)
    }

    /// The compiler's spill code around the instruction at `pc`: its reloads (4-byte local loads
    /// of the lanes in `mask`, which the instruction waits for) and its spill stores (written
    /// through to L2, as local stores are), each one machine op through the L1 like any local
    /// access. Returns the instruction's latency with the reloads in it and the ops issued.
    pub(super) fn spill_traffic(&mut self, wi: usize, pc: u32, info: &IssueInfo, mask: u32, lat: u64) -> Result<(u64, u64), Fault> {
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

    /// The traced access's lane addresses; local memory is interleaved so that lanes reading the
    /// same offset are adjacent.
    fn lane_addresses(&self, wi: usize, local: bool) -> [u64; 32] {
        let mut addr = self.trace.addr;
        if local {
            let uid = self.warps[wi].as_ref().map_or(0, |t| t.uid);
            for (l, a) in addr.iter_mut().enumerate() {
                *a = LOCAL_WINDOW + (uid * self.local_stride + (*a & !3)) * 32 + l as u64 * 4 + (*a & 3);
            }
        }
        addr
    }

    /// Counts a global access's L1 sectors and takes the L1's tag and data stages for it (one
    /// lookup per line touched, the sectors at the data rate); returns the sectors and the
    /// cycle the access enters the L1.
    fn l1_stages(&mut self, txns: &[Txn], local: bool, atomic: bool, write: bool, red: bool) -> (u64, u64) {
        let cfg = &*self.cfg;
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
        let spc = cfg.l1.sectors_per_cycle.max(1) as u64;
        let lines = (txns.len() as u64).div_ceil(cfg.l1.lines_per_cycle.max(1) as u64);
        // A global reduction's lines leave for the L2 one by one, slower than loads' lookups.
        let lines = if red { lines.max((txns.len() as f64 * cfg.l1.atomic_line_cycles).ceil() as u64) } else { lines };
        // A load or store over more than two lines holds the stage a little longer than its
        // lines' turns (`l1.request_cycles`: an H100 takes about n + 2 cycles for n lines).
        let lines = if txns.len() > 2 && !atomic { lines + u64::from(cfg.l1.request_cycles) } else { lines };
        let l1_start = self.l1_free.max(self.now);
        self.l1_free = l1_start + sectors.div_ceil(spc).max(lines).max(1);
        (sectors, l1_start)
    }

    /// One transaction's L1 lookup: the sectors it hits (a store: the sectors it found present)
    /// and misses, and when the hit ones are usable (`PENDING`: their fill is outstanding).
    fn l1_lookup(&mut self, t: &Txn, cacheable: bool, write: bool, local: bool) -> (u8, u8, u64) {
        if cacheable && !write {
            let look = self.l1.access(t.line, t.sectors, false, true, PENDING);
            (look.hit, look.miss, look.ready)
        } else if cacheable && write {
            // Write-through. Local stores allocate, and global ones where the L1 allocates the
            // bytes a store writes (`l1.store_allocate`): a partly written sector is fetched by
            // the read that needs it. `hit`: the sectors that were present, partly written ones
            // too (ncu counts such a store as a hit); the store waits for none of them.
            if !local && !self.cfg.l1.store_allocate {
                // No write-allocate: a present line is written through and stays.
                self.l1.access(t.line, t.sectors, false, false, 0);
                return (0, t.sectors, 0);
            }
            // Local stores write whole sectors (the lanes' words are interleaved).
            let full = if local { t.sectors } else { t.full_sectors() };
            (self.l1.write(t.line, t.sectors, full, true).hit, t.sectors, 0)
        } else {
            (0, t.sectors, 0)
        }
    }

    /// A global or local access through the L1: its latency (to the last hit sector, or through
    /// `deliver` for misses), and the token its misses' responses complete.
    pub(super) fn global_timing(&mut self, wi: usize, pc: u32) -> Result<(u64, Dep, Option<u32>), Fault> {
        let now = self.now;
        let cache_cg = self.k.prog.insts[pc as usize].m.cache == Some(CacheOp::Cg);
        let local = self.trace.space == TraceSpace::Local;
        let (write, atomic, mask, size) = (self.trace.write, self.trace.atomic, self.trace.mask, self.trace.size);
        let addr = self.lane_addresses(wi, local);
        let coalescing = if local { crate::config::Coalescing::Sectors } else { self.cfg.coalescing };
        let mut txns = std::mem::take(&mut self.txns);
        let req_kind = if atomic {
            ReqKind::Atomic
        } else if write {
            ReqKind::Write
        } else {
            ReqKind::Read
        };
        // Atomics: one L2 request per line; same-address lanes serialize there, in rounds.
        let atom_shape = if atomic {
            atomic_txns(&addr, mask, size, &mut txns)
        } else {
            coalesce(coalescing, &addr, mask, size, &mut txns);
            Vec::new()
        };
        let red = atomic && !local && self.table.insts[pc as usize].red;
        let (_, l1_start) = self.l1_stages(&txns, local, atomic, write, red);
        if atomic && !local {
            // ncu counts an atomic's L1 sectors per lookup at the L2 (one per same-address lane).
            let n: u64 = atom_shape.iter().map(|s| u64::from(s.lookups)).sum();
            if self.table.insts[pc as usize].red {
                self.stats.l1_sectors_global_red += n;
            } else {
                self.stats.l1_sectors_global_atom += n;
            }
        }
        if atomic && !local {
            // The L2 performs global atomics; the SM's own later loads must see their result, so
            // the L1 drops every line an atomic updates, all its sectors (an H100 reloading a line
            // after an ATOM, RED or CAS on one word misses 4 of 4: validate/data/h200/atominval).
            for t in &txns {
                self.l1.invalidate(t.line);
            }
        }
        let cacheable = !atomic && (local || (self.l1_caches_global && !cache_cg));
        let needs_data = !write || atomic;
        let mut ready = l1_start + self.cfg.l1.latency as u64;
        let mut token = None;
        let mut reqs = 0;
        // The tag stage takes a load's or store's lines in turn (`l1.lines_per_cycle`, and the
        // data stage's sectors): each line's hit, or its miss, starts in its own cycle. An
        // atomic's lines leave together (DESIGN.md, "Request rate": staggered, the fits got worse).
        let (lpc, spc) = (self.cfg.l1.lines_per_cycle.max(1) as u64, self.cfg.l1.sectors_per_cycle.max(1) as u64);
        let mut sectors_before = 0u64;
        for (ti, t) in txns.iter().enumerate() {
            let shape = atom_shape.get(ti).copied().unwrap_or_default();
            let line_start = if atomic { l1_start } else { l1_start + (ti as u64 / lpc).max(sectors_before / spc) };
            sectors_before += u64::from(self.l1.blocks(t.sectors));
            let (hit, miss, line_ready) = self.l1_lookup(t, cacheable, write, local);
            if !local && !atomic {
                self.stats.l1_hit_sectors_global += u64::from(self.l1.blocks(hit));
            }
            let hit = if write { 0 } else { hit };
            let mut merged = false;
            if hit != 0 {
                if line_ready == PENDING {
                    merged = true;
                } else {
                    ready = ready.max(line_ready).max(line_start + self.cfg.l1.latency as u64);
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
                let req = MemReq { t: line_start, sm: self.id, line: t.line, sectors: miss, full: if write { t.full_sectors() } else { 0 }, kind: req_kind, ops: shape.rounds, words: shape.words, lookups: shape.lookups, partial: shape.partial, red: self.table.insts[pc as usize].red };
                // A request whose data comes back holds a miss slot until it does.
                self.mshr_sent += u32::from(needs_data);
                self.outbox.push(OutReq { req, token: if needs_data { token } else { None }, mshr: needs_data });
                reqs += 1;
            } else if let Some(tk) = token {
                // Wait for the outstanding fill of this line (completed in `deliver`).
                self.mshr_waiters.entry(t.line).or_default().push((tk, line_start));
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

    /// Whether a warp is waiting for a memory response (so the engine must not declare deadlock).
    pub fn has_pending(&self) -> bool {
        self.tokens.iter().any(|t| t.is_some())
    }
}
