//! The timing engine: SMs stepped in parallel over time windows, their memory traffic merged in
//! a fixed order, CTAs dispatched as SMs free up.
//!
//! A window is shorter than any latency by which one SM can affect another (an L2 round trip,
//! a DSMEM access), so within it every SM runs alone: its loads see the memory state of the
//! window start plus its own writes, its requests to L2 are queued, its writes and atomics are
//! logged. At the window's end the engine sorts all requests and effects by (cycle, SM, issue
//! order), runs them through the L2/DRAM model and device memory, and hands completions and
//! atomic results back. The order never depends on thread scheduling, so cycles and counters
//! are identical for 1 or N threads. Idle stretches are skipped.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

use rayon::prelude::*;

use crate::config::ArchConfig;
use crate::fault::{Fault, FaultKind};
use crate::kernel::Kernel;
use crate::l2::{MemSys, ReqKind};
use crate::memory::DeviceMemory;
use crate::occupancy::{occupancy, Occupancy};
use crate::overlay::Effect;
use crate::sm::{Sm, SmStats, PENDING, STALL_NAMES};

/// How to run.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Worker threads for SM stepping (results do not depend on it).
    pub threads: usize,
    /// Registers per thread for occupancy (`launch__registers_per_thread`).
    pub regs_per_thread: u32,
    /// Stop (with a watchdog fault) after this many simulated cycles.
    pub max_cycles: u64,
}

/// When a CTA ran, and where.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct CtaSpan {
    pub sm: u32,
    pub cta: u64,
    pub start: u64,
    pub end: u64,
}

/// The outcome of a timed run.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct TimingResult {
    pub cycles: u64,
    /// Counters under Nsight Compute's names.
    pub counters: BTreeMap<String, f64>,
    /// Fraction of warp-cycles per warp state (Nsight names), summing to 1.
    pub stalls: Vec<(String, f64)>,
    pub warp_instructions: u64,
    pub ctas: Vec<CtaSpan>,
    pub occupancy_ctas_per_sm: u32,
    pub occupancy_limiter: String,
    pub sim_seconds: f64,
}

/// Cycles per window: no cross-SM effect is faster than this.
fn window(cfg: &ArchConfig) -> u64 {
    let cross = [cfg.l2.hit_latency, cfg.misc.dsmem_latency, cfg.dram.latency]
        .into_iter()
        .filter(|&x| x > 0)
        .min()
        .unwrap_or(64) as u64;
    cross.clamp(8, 256)
}

/// Runs a kernel in time on `cfg`, updating `mem` as the kernel does.
pub fn run(cfg: Arc<ArchConfig>, k: Arc<Kernel>, mem: &mut DeviceMemory, opts: &RunOptions) -> Result<TimingResult, Fault> {
    let t0 = Instant::now();
    let bad = |msg: String| Fault::global(&k.prog.name, FaultKind::BadLaunch(msg));
    let occ: Occupancy = occupancy(&cfg, k.dims.threads_per_cta(), opts.regs_per_thread, k.smem_bytes).map_err(bad)?;
    let costs: Arc<Vec<u8>> = Arc::new(warpsim_isa::costs::program_costs(&k.prog));
    let nsm = cfg.sm.count.max(1);
    let mut sms: Vec<Sm> =
        (0..nsm).map(|i| Sm::new(i, Arc::clone(&cfg), Arc::clone(&k), Arc::clone(&costs), occ.l1_bytes)).collect();
    let mut memsys = MemSys::new(&cfg);
    let total = k.dims.ctas();
    let launch = cfg.sm.cta_launch_latency as u64;
    let mut next_cta = 0u64;
    let mut spans: Vec<CtaSpan> = Vec::new();
    let mut start_of: BTreeMap<u64, (u32, u64)> = BTreeMap::new();
    let warps_per_cta = k.dims.warps_per_cta() as u64;
    // Initial dispatch: round robin over SMs, one CTA per SM per round.
    for _ in 0..occ.ctas_per_sm {
        for sm in sms.iter_mut() {
            if next_cta < total {
                sm.admit(next_cta, occ.res, launch, next_cta * warps_per_cta);
                start_of.insert(next_cta, (sm.id, 0));
                next_cta += 1;
            }
        }
    }
    let pool = rayon::ThreadPoolBuilder::new().num_threads(opts.threads.max(1)).build().map_err(|e| bad(e.to_string()))?;
    let w = window(&cfg);
    let mut now = 0u64;
    let mut end = 0u64;
    let mut drain = 0u64;
    let mut reqs = Vec::new();
    let mut effects = Vec::new();
    loop {
        let until = now + w;
        let faults: Vec<Fault> = if opts.threads > 1 {
            let base: &DeviceMemory = mem;
            pool.install(|| sms.par_iter_mut().filter_map(|sm| sm.run_window(until, base).err()).collect())
        } else {
            sms.iter_mut().filter_map(|sm| sm.run_window(until, mem).err()).collect()
        };
        if let Some(f) = faults.into_iter().next() {
            // SMs are visited in id order, so the first fault is the lowest SM's.
            return Err(f);
        }
        // Memory requests, in (cycle, SM, issue order).
        reqs.clear();
        for sm in sms.iter_mut() {
            for (seq, r) in sm.outbox.drain(..).enumerate() {
                reqs.push((r.req.t, r.req.sm, seq as u32, r));
            }
        }
        reqs.sort_unstable_by_key(|x| (x.0, x.1, x.2));
        for &(_, smi, _, r) in &reqs {
            let done = memsys.access(&r.req);
            // Stores and atomics must drain before the kernel completes.
            drain = drain.max(done);
            sms[smi as usize].deliver(r.token, r.req.line, done, r.req.kind == ReqKind::Read);
        }
        // Global writes and atomics, in (cycle, SM, issue order).
        effects.clear();
        for sm in sms.iter() {
            for (seq, e) in sm.log.effects.iter().enumerate() {
                effects.push((e.cycle(), sm.id, seq as u32, *e));
            }
        }
        effects.sort_unstable_by_key(|x| (x.0, x.1, x.2));
        for &(_, smi, _, e) in &effects {
            match e {
                Effect::Write { addr, off, len, .. } => {
                    let arena = &sms[smi as usize].log.arena;
                    mem.write(addr, &arena[off as usize..off as usize + len as usize]);
                }
                Effect::Atomic { warp, a, .. } => {
                    let old = a.perform(mem).map_err(|e| Fault::global(&k.prog.name, FaultKind::Unsupported(e.to_string())))?;
                    if let Some(dst) = a.dst {
                        sms[smi as usize].deliver_value(warp, a.lane, dst, old);
                    }
                }
            }
        }
        for sm in sms.iter_mut() {
            sm.log.clear();
        }
        // Retire finished CTAs and dispatch new ones (lowest SM first).
        for sm in sms.iter_mut() {
            for (cta, t) in std::mem::take(&mut sm.finished) {
                sm.release_resources(occ.res);
                let (smid, start) = start_of.remove(&cta).unwrap_or((sm.id, 0));
                spans.push(CtaSpan { sm: smid, cta, start, end: t });
                end = end.max(t);
            }
            while next_cta < total && sm.resident_ctas() < occ.ctas_per_sm as usize {
                let start = sm.now + launch;
                sm.admit(next_cta, occ.res, start, next_cta * warps_per_cta);
                start_of.insert(next_cta, (sm.id, sm.now));
                next_cta += 1;
            }
        }
        if next_cta >= total && sms.iter().all(|s| s.idle()) {
            break;
        }
        // Skip idle stretches.
        let next = sms.iter().map(|s| s.next_event()).min().unwrap_or(PENDING);
        let pending = sms.iter().any(|s| s.has_pending());
        now = until;
        if next == PENDING && !pending {
            let waiters = sms.iter().flat_map(|s| s.waiters()).collect();
            return Err(Fault::global(&k.prog.name, FaultKind::Deadlock(waiters)));
        }
        if next != PENDING && next > now {
            now = next;
        }
        if now > opts.max_cycles {
            return Err(Fault::global(&k.prog.name, FaultKind::Watchdog { instructions: sms.iter().map(|s| s.stats.warp_insts).sum() }));
        }
    }
    spans.sort_by_key(|s| (s.cta, s.sm));
    let cycles = end.max(drain) + cfg.misc.launch_overhead as u64;
    Ok(result(&cfg, &sms, &memsys, cycles, spans, &occ, opts, t0.elapsed().as_secs_f64()))
}

#[allow(clippy::too_many_arguments)]
fn result(
    cfg: &ArchConfig,
    sms: &[Sm],
    ms: &MemSys,
    cycles: u64,
    spans: Vec<CtaSpan>,
    occ: &Occupancy,
    opts: &RunOptions,
    secs: f64,
) -> TimingResult {
    let mut s = SmStats::default();
    for sm in sms {
        let t = &sm.stats;
        s.inst_executed += t.inst_executed;
        s.warp_insts += t.warp_insts;
        s.active_cycles += t.active_cycles;
        s.warp_cycles += t.warp_cycles;
        s.l1_sectors_global_ld += t.l1_sectors_global_ld;
        s.l1_hit_sectors_global_ld += t.l1_hit_sectors_global_ld;
        s.l1_requests_global_ld += t.l1_requests_global_ld;
        s.l1_sectors_global_st += t.l1_sectors_global_st;
        s.smem_wavefronts += t.smem_wavefronts;
        s.smem_bank_conflicts += t.smem_bank_conflicts;
        for (a, b) in s.stall_cycles.iter_mut().zip(t.stall_cycles) {
            *a += b;
        }
    }
    let mut c = BTreeMap::new();
    let mut put = |k: &str, v: f64| {
        c.insert(k.to_string(), v);
    };
    put("gpc__cycles_elapsed.max", cycles as f64);
    put("smsp__inst_executed.sum", s.inst_executed as f64);
    let peak = s.active_cycles as f64 * cfg.sm.max_warps as f64;
    put("sm__warps_active.avg.pct_of_peak_sustained_active", if peak > 0.0 { 100.0 * s.warp_cycles as f64 / peak } else { 0.0 });
    put("sm__cycles_active.avg", s.active_cycles as f64 / cfg.sm.count.max(1) as f64);
    put("dram__bytes_read.sum", ms.dram.bytes_read as f64);
    put("dram__bytes_write.sum", ms.dram.bytes_written as f64);
    put("lts__t_sectors_op_read.sum", ms.stats.sectors_read as f64);
    put("lts__t_sectors_op_write.sum", ms.stats.sectors_write as f64);
    put("lts__t_sectors_op_atom.sum", ms.stats.sectors_atom as f64);
    let lts = ms.stats.sector_hits + ms.stats.sector_misses;
    put("lts__t_sector_hit_rate.pct", if lts > 0 { 100.0 * ms.stats.sector_hits as f64 / lts as f64 } else { 0.0 });
    put("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", s.l1_sectors_global_ld as f64);
    put("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", s.l1_requests_global_ld as f64);
    put("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", s.l1_sectors_global_st as f64);
    put(
        "l1tex__t_sector_hit_rate.pct",
        if s.l1_sectors_global_ld > 0 { 100.0 * s.l1_hit_sectors_global_ld as f64 / s.l1_sectors_global_ld as f64 } else { 0.0 },
    );
    put("l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum", s.smem_bank_conflicts as f64);
    put("l1tex__data_pipe_lsu_wavefronts_mem_shared.sum", s.smem_wavefronts as f64);
    put("launch__registers_per_thread", opts.regs_per_thread as f64);
    put("launch__occupancy_limit_blocks", occ.ctas_per_sm as f64);
    put("sm__inst_executed.avg.per_cycle_active", if s.active_cycles > 0 { s.inst_executed as f64 / s.active_cycles as f64 } else { 0.0 });
    let total_stall: u64 = s.stall_cycles.iter().sum();
    let stalls = STALL_NAMES
        .iter()
        .zip(s.stall_cycles)
        .map(|(n, v)| (n.to_string(), if total_stall > 0 { v as f64 / total_stall as f64 } else { 0.0 }))
        .collect();
    TimingResult {
        cycles,
        counters: c,
        stalls,
        warp_instructions: s.warp_insts,
        ctas: spans,
        occupancy_ctas_per_sm: occ.ctas_per_sm,
        occupancy_limiter: occ.limiter.to_string(),
        sim_seconds: secs,
    }
}
