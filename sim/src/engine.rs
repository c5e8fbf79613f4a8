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
use crate::placement::Layout;
use crate::gpc::Gpc;
use crate::counters::{Counter, Stall};
use crate::sm::{IssueTable, Sm, SmStats, PENDING};
use crate::watchdog::{Limits, Watch};

/// How to run.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Worker threads for SM stepping (results do not depend on it).
    pub threads: usize,
    /// Registers per thread for occupancy (`launch__registers_per_thread`).
    pub regs_per_thread: u32,
    /// The compiler's spill code, issued as local-memory traffic (`IssueTable::new`).
    pub spills: warpsim_workloads::Spills,
    /// When the watchdog stops the run (cycle and wall-clock budgets, forward progress).
    pub limits: Limits,
}

/// When a CTA ran, and where.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
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
    /// Warp-cycles over all warp states (what `stalls` are fractions of).
    pub stall_cycles: u64,
    /// L2 sector lookups, hits and misses (what the hit rate is over).
    pub l2_lookups: u64,
}

impl TimingResult {
    /// A sequence of launches run one after another as one result: cycles, instructions,
    /// host seconds and CTA lists (each launch's spans shifted by the cycles before it) add up;
    /// counters combine by [`crate::counters::combine_launches`]; warp-state fractions are of
    /// all launches' warp-cycles; occupancy is the first launch's. One launch is itself.
    pub fn sequence<'a>(launches: impl IntoIterator<Item = &'a TimingResult>) -> TimingResult {
        let launches: Vec<&TimingResult> = launches.into_iter().collect();
        if let [one] = launches.as_slice() {
            return (*one).clone();
        }
        let with_lookups: Vec<BTreeMap<String, f64>> = launches
            .iter()
            .map(|r| {
                let mut c = r.counters.clone();
                c.insert(crate::counters::L2_LOOKUPS.to_string(), r.l2_lookups as f64);
                c
            })
            .collect();
        let mut counters = crate::counters::combine_launches(&with_lookups);
        counters.remove(crate::counters::L2_LOOKUPS);
        let stall_cycles: u64 = launches.iter().map(|r| r.stall_cycles).sum();
        let stalls = Stall::ALL
            .iter()
            .map(|s| {
                let cycles: f64 = launches.iter().map(|r| r.stalls.iter().find(|(n, _)| n == s.name()).map_or(0.0, |x| x.1) * r.stall_cycles as f64).sum();
                (s.name().to_string(), if stall_cycles > 0 { cycles / stall_cycles as f64 } else { 0.0 })
            })
            .collect();
        let mut ctas = Vec::new();
        let mut before = 0;
        for r in &launches {
            ctas.extend(r.ctas.iter().map(|c| CtaSpan { start: c.start + before, end: c.end + before, ..*c }));
            before += r.cycles;
        }
        let first = launches.first();
        TimingResult {
            cycles: before,
            counters,
            stalls,
            warp_instructions: launches.iter().map(|r| r.warp_instructions).sum(),
            ctas,
            occupancy_ctas_per_sm: first.map_or(0, |r| r.occupancy_ctas_per_sm),
            occupancy_limiter: first.map_or_else(String::new, |r| r.occupancy_limiter.clone()),
            sim_seconds: launches.iter().map(|r| r.sim_seconds).sum(),
            stall_cycles,
            l2_lookups: launches.iter().map(|r| r.l2_lookups).sum(),
        }
    }

    /// A counter's value (0 when the run did not produce it, which a registered counter always is).
    pub fn get(&self, c: Counter) -> f64 {
        self.counters.get(c.name()).copied().unwrap_or(0.0)
    }
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
    // This launch's printf calls, whatever earlier launches of the kernel printed.
    let printed_before = k.printf.calls();
    let bad = |msg: String| Fault::global(&k.prog.name, FaultKind::BadLaunch(msg));
    let occ: Occupancy = occupancy(&cfg, k.dims.threads_per_cta(), opts.regs_per_thread, k.smem_bytes).map_err(bad)?;
    let table = Arc::new(IssueTable::new(&k.prog, &cfg, &opts.spills));
    let nsm = cfg.sm.count.max(1);
    let layout = Layout::new(&cfg.sm);
    let mut gpcs: Vec<Gpc> = (0..layout.gpcs())
        .map(|g| Gpc { sms: layout.sms(g).map(|i| Sm::new(i, Arc::clone(&cfg), Arc::clone(&k), Arc::clone(&table), occ.l1_bytes)).collect(), arena: Default::default() })
        .collect();
    let mut memsys = MemSys::new(&cfg);
    let d = k.dims;
    let per_cluster = d.cluster_size() as usize;
    let smallest = (0..layout.gpcs()).map(|g| layout.sms(g).len()).min().unwrap_or(1);
    if per_cluster > occ.ctas_per_sm as usize * smallest {
        return Err(bad(format!("a cluster of {per_cluster} CTAs does not fit in one GPC of {smallest} SMs")));
    }
    let [cx, cy, cz] = d.cluster;
    let nclusters = [d.grid[0] / cx, d.grid[1] / cy, d.grid[2] / cz];
    let total_clusters = nclusters.iter().map(|&x| x as u64).product::<u64>();
    // The CTAs of cluster `c`, by rank (x fastest), as linear CTA ids.
    let cluster_ctas = |c: u64| -> Vec<u64> {
        let (kx, ky, kz) = (c % nclusters[0] as u64, (c / nclusters[0] as u64) % nclusters[1] as u64, c / (nclusters[0] as u64 * nclusters[1] as u64));
        let mut v = Vec::with_capacity(per_cluster);
        for rz in 0..cz as u64 {
            for ry in 0..cy as u64 {
                for rx in 0..cx as u64 {
                    let (x, y, z) = (kx * cx as u64 + rx, ky * cy as u64 + ry, kz * cz as u64 + rz);
                    v.push(x + d.grid[0] as u64 * (y + d.grid[1] as u64 * z));
                }
            }
        }
        v
    };
    let mut next_cluster = 0u64;
    let mut rr = 0usize;
    let mut spans: Vec<CtaSpan> = Vec::new();
    let mut start_of: BTreeMap<u64, (u32, u64)> = BTreeMap::new();
    // Dispatch while any SM has room: single CTAs where the dispatcher's plan puts them
    // (`placement`); a cluster of CTAs whole to the GPC whose least loaded SM has the most free
    // slots, ties round robin.
    let per_sm = occ.ctas_per_sm as usize;
    let dispatch = |gpcs: &mut Vec<Gpc>, next_cluster: &mut u64, rr: &mut usize, start_of: &mut BTreeMap<u64, (u32, u64)>| {
        if *next_cluster >= total_clusters {
            return;
        }
        if per_cluster == 1 {
            let mut resident: Vec<u32> = gpcs.iter().flat_map(|g| g.sms.iter().map(|s| s.resident_ctas() as u32)).collect();
            for sm in layout.plan(&mut resident, per_sm as u32, total_clusters - *next_cluster) {
                let g = &mut gpcs[layout.gpc_of(sm) as usize];
                let local = (sm - g.sms[0].id) as usize;
                for (sm, cta, t) in g.place(&d, &cluster_ctas(*next_cluster), vec![local], occ.res, k.smem_bytes) {
                    start_of.insert(cta, (sm, t));
                }
                *next_cluster += 1;
            }
            return;
        }
        let n = gpcs.len();
        let mut order: Vec<usize> = Vec::with_capacity(n);
        while *next_cluster < total_clusters {
            let ctas = cluster_ctas(*next_cluster);
            order.clear();
            order.extend((0..n).map(|step| (*rr + step) % n));
            order.sort_by_key(|&g| std::cmp::Reverse(gpcs[g].most_free(per_sm)));
            let Some((g, sm_of)) = order.iter().find_map(|&g| gpcs[g].room(per_sm, ctas.len()).map(|v| (g, v))) else { break };
            *rr = g + 1;
            for (sm, cta, t) in gpcs[g].place(&d, &ctas, sm_of, occ.res, k.smem_bytes) {
                start_of.insert(cta, (sm, t));
            }
            *next_cluster += 1;
        }
    };
    dispatch(&mut gpcs, &mut next_cluster, &mut rr, &mut start_of);
    let pool = rayon::ThreadPoolBuilder::new().num_threads(opts.threads.max(1)).build().map_err(|e| bad(e.to_string()))?;
    let w = window(&cfg);
    let mut watch = Watch::new(&opts.limits);
    let mut now = 0u64;
    let mut end = 0u64;
    let mut drain = 0u64;
    let (mut order, mut sorted, mut counts) = (Vec::new(), Vec::new(), Vec::new());
    loop {
        let until = now + w;
        let faults: Vec<Fault> = if opts.threads > 1 {
            let base: &DeviceMemory = mem;
            pool.install(|| gpcs.par_iter_mut().filter_map(|g| g.run_window(until, base).err()).collect())
        } else {
            gpcs.iter_mut().filter_map(|g| g.run_window(until, mem).err()).collect()
        };
        if let Some(f) = faults.into_iter().next() {
            // GPCs are visited in order, so the first fault is the lowest GPC's.
            return Err(f);
        }
        // Memory requests, in (cycle, SM, issue order): the keys are sorted, not the requests.
        order.clear();
        for id in 0..nsm {
            let sm = sm_at(&mut gpcs, id);
            order.extend(sm.outbox.iter().enumerate().map(|(seq, r)| (r.req.t, id, seq as u32)));
        }
        sort_by_cycle(&mut order, &mut sorted, &mut counts);
        for &(_, id, seq) in &sorted {
            let sm = sm_at(&mut gpcs, id);
            let r = sm.outbox[seq as usize];
            let done = memsys.access(&r.req);
            if r.mshr {
                sm.mshr_answered(done);
            }
            // Stores and atomics must drain before the kernel completes.
            drain = drain.max(done);
            sm.deliver(r.token, r.req.line, done, r.req.kind == ReqKind::Read);
        }
        // Global writes and atomics, in (cycle, SM, issue order).
        order.clear();
        for id in 0..nsm {
            let sm = sm_at(&mut gpcs, id);
            sm.outbox.clear();
            order.extend(sm.log.effects.iter().enumerate().map(|(seq, e)| (e.cycle(), id, seq as u32)));
        }
        sort_by_cycle(&mut order, &mut sorted, &mut counts);
        for &(_, id, seq) in &sorted {
            let sm = sm_at(&mut gpcs, id);
            match sm.log.effects[seq as usize] {
                Effect::Write { addr, off, len, .. } => mem.write(addr, &sm.log.arena[off as usize..off as usize + len as usize]),
                Effect::Atomic { warp, a, .. } => {
                    let old = a.perform(mem).map_err(|e| Fault::global(&k.prog.name, FaultKind::Unsupported(e.to_string())))?;
                    match (a.dst, a.dst_hi) {
                        (Some(lo), Some(hi)) => {
                            sm.deliver_value(warp, a.lane, lo, old & 0xFFFF_FFFF);
                            sm.deliver_value(warp, a.lane, hi, old >> 32);
                        }
                        (Some(dst), None) => sm.deliver_value(warp, a.lane, dst, old),
                        _ => {}
                    }
                }
            }
        }
        for sm in gpcs.iter_mut().flat_map(|g| g.sms.iter_mut()) {
            sm.log.clear();
            for (cta, t) in std::mem::take(&mut sm.finished) {
                sm.release_resources(occ.res);
                let (smid, start) = start_of.remove(&cta).unwrap_or((sm.id, 0));
                spans.push(CtaSpan { sm: smid, cta, start, end: t });
                end = end.max(t);
            }
        }
        dispatch(&mut gpcs, &mut next_cluster, &mut rr, &mut start_of);
        let all = || gpcs.iter().flat_map(|g| g.sms.iter());
        if next_cluster >= total_clusters && all().all(|s| s.idle()) {
            break;
        }
        // Skip idle stretches.
        let next = all().map(|s| s.next_event()).min().unwrap_or(PENDING);
        let pending = all().any(|s| s.has_pending());
        now = until;
        if next == PENDING && !pending {
            let waiters = gpcs.iter().flat_map(|g| g.sms.iter().flat_map(|s| s.waiters(&g.arena))).collect();
            return Err(Fault::global(&k.prog.name, FaultKind::Deadlock(waiters)));
        }
        if next != PENDING && next > now {
            now = next;
        }
        if let Some(f) = crate::watchdog::timing_step(&mut watch, now, &gpcs, mem, &k, spans.len() as u64, next_cluster) {
            return Err(f);
        }
    }
    let sms: Vec<Sm> = {
        let mut v: Vec<Sm> = gpcs.into_iter().flat_map(|g| g.sms).collect();
        v.sort_by_key(|s| s.id);
        v
    };
    spans.sort_by_key(|s| (s.cta, s.sm));
    let cycles = end.max(drain) + cfg.misc.launch_overhead as u64 + printf_cycles(&cfg, k.printf.calls() - printed_before);
    memsys.count_launch_reads(&cfg, table.code_instructions());
    Ok(result(&cfg, &sms, &memsys, cycles, spans, &occ, opts, t0.elapsed().as_secs_f64()))
}

/// Device `printf` drains through one buffer for the whole GPU: a launch that prints pays
/// `misc.printf_launch_cycles` once and `misc.printf_line_cycles` per call, on top of its work
/// (H200: 51k cycles for the first line, ~530 per further line, whatever warp prints it).
fn printf_cycles(cfg: &ArchConfig, calls: u64) -> u64 {
    if calls == 0 {
        return 0;
    }
    u64::from(cfg.misc.printf_launch_cycles) + (calls - 1) * u64::from(cfg.misc.printf_line_cycles)
}

/// SM `id`: SMs are numbered GPC by GPC (`placement::Layout`), so it is the one of the last GPC
/// whose first SM is at most `id`.
fn sm_at(gpcs: &mut [Gpc], id: u32) -> &mut Sm {
    let g = gpcs.partition_point(|g| g.sms[0].id <= id) - 1;
    let first = gpcs[g].sms[0].id;
    let sm = &mut gpcs[g].sms[(id - first) as usize];
    debug_assert_eq!(sm.id, id);
    sm
}

/// Puts `keys` (cycle, SM, sequence), listed in (SM, sequence) order, into `out` in (cycle, SM,
/// sequence) order: a stable counting sort by cycle when the cycles span a short range (as they do
/// within a window), else a comparison sort.
fn sort_by_cycle(keys: &mut [(u64, u32, u32)], out: &mut Vec<(u64, u32, u32)>, counts: &mut Vec<u32>) {
    out.clear();
    let (lo, hi) = keys.iter().fold((u64::MAX, 0), |(lo, hi), k| (lo.min(k.0), hi.max(k.0)));
    let span = hi.saturating_sub(lo) as usize + 1;
    if keys.is_empty() || span > 4 * keys.len() + 4096 {
        keys.sort_unstable();
        out.extend_from_slice(keys);
        return;
    }
    counts.clear();
    counts.resize(span + 1, 0);
    for k in keys.iter() {
        counts[(k.0 - lo) as usize + 1] += 1;
    }
    for i in 1..=span {
        counts[i] += counts[i - 1];
    }
    out.resize(keys.len(), (0, 0, 0));
    for k in keys.iter() {
        let slot = &mut counts[(k.0 - lo) as usize];
        out[*slot as usize] = *k;
        *slot += 1;
    }
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
        s.l1_hit_sectors_global += t.l1_hit_sectors_global;
        s.l1_requests_global_ld += t.l1_requests_global_ld;
        s.l1_sectors_global_st += t.l1_sectors_global_st;
        s.l1_sectors_global_atom += t.l1_sectors_global_atom;
        s.l1_sectors_global_red += t.l1_sectors_global_red;
        s.smem_wavefronts += t.smem_wavefronts;
        s.smem_bank_conflicts += t.smem_bank_conflicts;
        for (a, b) in s.stall_cycles.iter_mut().zip(t.stall_cycles) {
            *a += b;
        }
        for (a, b) in s.flops.iter_mut().zip(t.flops) {
            *a += b;
        }
    }
    let mut c = BTreeMap::new();
    let mut put = |k: Counter, v: f64| {
        c.insert(k.name().to_string(), v);
    };
    put(Counter::CyclesElapsed, cycles as f64);
    put(Counter::InstExecuted, s.inst_executed as f64);
    let peak = s.active_cycles as f64 * cfg.sm.max_warps as f64;
    put(Counter::WarpsActivePct, if peak > 0.0 { 100.0 * s.warp_cycles as f64 / peak } else { 0.0 });
    put(Counter::SmCyclesActive, s.active_cycles as f64 / cfg.sm.count.max(1) as f64);
    put(Counter::DramBytesRead, ms.dram.bytes_read as f64);
    put(Counter::DramBytesWrite, ms.dram.bytes_written as f64);
    put(Counter::L2SectorsRead, ms.stats.sectors_read as f64);
    put(Counter::L2SectorsWrite, ms.stats.sectors_write as f64);
    put(Counter::L2SectorsAtom, ms.stats.sectors_atom as f64);
    put(Counter::L2SectorsRed, ms.stats.sectors_red as f64);
    let lts = ms.stats.sector_hits + ms.stats.sector_misses;
    put(Counter::L2SectorHitRate, if lts > 0 { 100.0 * ms.stats.sector_hits as f64 / lts as f64 } else { 0.0 });
    put(Counter::L1SectorsGlobalLd, s.l1_sectors_global_ld as f64);
    put(Counter::L1RequestsGlobalLd, s.l1_requests_global_ld as f64);
    put(Counter::L1SectorsGlobalSt, s.l1_sectors_global_st as f64);
    put(Counter::L1SectorsGlobalAtom, s.l1_sectors_global_atom as f64);
    put(Counter::L1SectorsGlobalRed, s.l1_sectors_global_red as f64);
    let l1_sectors = s.l1_sectors_global_ld + s.l1_sectors_global_st + s.l1_sectors_global_atom + s.l1_sectors_global_red;
    put(Counter::L1SectorHitRate, if l1_sectors > 0 { 100.0 * s.l1_hit_sectors_global as f64 / l1_sectors as f64 } else { 0.0 });
    put(Counter::SmemBankConflicts, s.smem_bank_conflicts as f64);
    put(Counter::SmemWavefronts, s.smem_wavefronts as f64);
    put(Counter::RegistersPerThread, opts.regs_per_thread as f64);
    put(Counter::OccupancyLimitBlocks, occ.limits.blocks as f64);
    put(Counter::OccupancyLimitWarps, occ.limits.warps as f64);
    put(Counter::OccupancyLimitRegisters, occ.limits.registers as f64);
    put(Counter::OccupancyLimitSharedMem, occ.limits.shared_mem as f64);
    for (counter, n) in crate::flops::COUNTERS.into_iter().zip(s.flops) {
        put(counter, n as f64);
    }
    put(Counter::IpcActive, if s.active_cycles > 0 { s.inst_executed as f64 / s.active_cycles as f64 } else { 0.0 });
    let total_stall: u64 = s.stall_cycles.iter().sum();
    let stalls = Stall::ALL
        .iter()
        .zip(s.stall_cycles)
        .map(|(n, v)| (n.name().to_string(), if total_stall > 0 { v as f64 / total_stall as f64 } else { 0.0 }))
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
        stall_cycles: total_stall,
        l2_lookups: lts,
    }
}

#[cfg(test)]
mod tests {
    use super::sort_by_cycle;

    proptest::proptest! {
        #[test]
        fn merge_order_is_cycle_sm_sequence(cycles in proptest::collection::vec((0u64..300, 0u32..8), 0..200), far in proptest::bool::ANY) {
            // Keys as the engine lists them: by SM, then issue order.
            let mut keys: Vec<(u64, u32, u32)> = cycles.iter().map(|&(c, sm)| (if far { c * 1_000_000 } else { c }, sm, 0)).collect();
            keys.sort_by_key(|k| k.1);
            for i in 0..keys.len() {
                keys[i].2 = keys[..i].iter().filter(|k| k.1 == keys[i].1).count() as u32;
            }
            let mut expect = keys.clone();
            expect.sort_unstable();
            let (mut out, mut counts) = (Vec::new(), Vec::new());
            sort_by_cycle(&mut keys, &mut out, &mut counts);
            proptest::prop_assert_eq!(out, expect);
        }
    }
}
