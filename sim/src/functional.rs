//! Functional execution of a whole grid, without timing.
//!
//! CTAs run cluster by cluster (a cluster's CTAs together, so distributed shared memory and
//! cluster barriers work); within a cluster, warps take turns in a fixed round-robin order with
//! a quantum of instructions, so the result is deterministic. Barriers block warps until their
//! phase completes; when no warp can move, the run stops with a deadlock fault that lists every
//! waiting warp and what it waits for.
//!
//! A cluster whose warps spin on global memory (the watchdog's no-progress verdict, with a global
//! load in the loop) is set aside and the next cluster runs: a flag that a later CTA sets
//! (producer and consumer CTAs, an inter-block lock) then arrives. Set-aside clusters resume,
//! oldest first, once global memory has changed since they were set aside; at most one cluster
//! per SM is set aside at a time, about what the GPU keeps resident. When every set-aside
//! cluster has seen no change and no new one may start, the run stops with the first one's
//! report. A kernel that never spins runs exactly as before, one cluster after another.

use warpsim_isa::inst::BarOp;

use crate::cta::{CtaShared, Release};
use crate::exec::{step, AsyncEvent, Env, MemTrace, Step};
use crate::exec_async::{apply_event, phase_of};
use crate::fault::{Fault, FaultKind, Waiter};
use crate::kernel::Kernel;
use crate::memory::DeviceMemory;
use crate::warp::{Warp, WarpState};
use crate::watchdog::{Limits, Stop, Watch};
use std::collections::VecDeque;

/// What a functional run did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FunctionalStats {
    pub warp_instructions: u64,
    pub ctas: u64,
    pub warps: u64,
    /// Warp instructions executed per PTX instruction (index = instruction).
    pub executed: Vec<u64>,
}

/// Instructions a warp runs before the next warp gets a turn.
const QUANTUM: u32 = 64;

/// Cluster-wide barrier state (`barrier.cluster.arrive/wait`).
#[derive(Default)]
struct ClusterBar {
    phase: u32,
    arrived: u32,
}

/// Writes a `bar.red` result into the released warps and marks them ready.
fn release(warps: &mut [Warp], k: &Kernel, r: Release) {
    for slot in r.warps {
        let w = &mut warps[slot as usize];
        w.state = WarpState::Ready;
        if let Some((reg, kind)) = w.pending_red.take() {
            let v = match kind {
                BarOp::RedPopc => r.popc as u64,
                BarOp::RedAnd => r.all as u64,
                _ => r.any as u64,
            };
            let ty = k.prog.regs[reg as usize].ty;
            let active = w.active();
            for l in 0..32 {
                if active >> l & 1 == 1 {
                    w.set_reg(reg, l, v & ty.mask());
                }
            }
        }
    }
}

/// Runs every CTA of the kernel to completion.
pub fn run(k: &Kernel, mem: &mut DeviceMemory, limits: &Limits) -> Result<FunctionalStats, Fault> {
    let mut watch = Watch::new(limits);
    let d = k.dims;
    let mut stats = FunctionalStats { executed: vec![0; k.prog.insts.len()], ..FunctionalStats::default() };
    let [cx, cy, cz] = d.cluster;
    let clusters = [d.grid[0] / cx, d.grid[1] / cy, d.grid[2] / cz];
    let total = clusters.iter().map(|&c| c as u64).product::<u64>();
    let mut trace = MemTrace::default();
    // Spinning clusters set aside, with global memory's change count when they were.
    let mut aside: VecDeque<(Cluster, Fault, u64)> = VecDeque::new();
    let most_aside = (k.nsm as usize).max(1);
    let mut next = 0u64;
    loop {
        let mut c = if next < total && aside.len() < most_aside {
            let i = next;
            next += 1;
            let (kx, rest) = ((i % clusters[0] as u64) as u32, i / clusters[0] as u64);
            let (ky, kz) = ((rest % clusters[1] as u64) as u32, (rest / clusters[1] as u64) as u32);
            let c = Cluster::new(k, [kx, ky, kz]);
            stats.ctas += c.ctas.len() as u64;
            stats.warps += c.warps.iter().map(|w| w.len() as u64).sum::<u64>();
            c
        } else {
            match aside.iter().position(|a| a.2 != mem.changes()) {
                Some(i) => aside.remove(i).expect("an index of aside").0,
                None => match aside.pop_front() {
                    Some((_, mut f, _)) => {
                        if let FaultKind::Watchdog(r) = &mut f.kind {
                            r.spinning_clusters = aside.len() + 1;
                        }
                        return Err(f);
                    }
                    None => return Ok(stats),
                },
            }
        };
        watch.restart_window();
        if let Some(f) = run_cluster(k, mem, &mut c, &mut trace, &mut stats, &mut watch)? {
            let changes = mem.changes();
            aside.push_back((c, f, changes));
        }
    }
}

/// One cluster's CTAs and warps, by rank (x fastest), and its barrier.
struct Cluster {
    ctas: Vec<CtaShared>,
    warps: Vec<Vec<Warp>>,
    cbar: ClusterBar,
    live_warps: u32,
}

impl Cluster {
    fn new(k: &Kernel, [kx, ky, kz]: [u32; 3]) -> Cluster {
        let d = k.dims;
        let [cx, cy, cz] = d.cluster;
        let threads = d.threads_per_cta();
        let frame0 = k.prog.funcs.first().map_or(0, |f| f.frame_size);
        let mut ctas = Vec::new();
        let mut warps: Vec<Vec<Warp>> = Vec::new();
        for rz in 0..cz {
            for ry in 0..cy {
                for rx in 0..cx {
                    let id = [kx * cx + rx, ky * cy + ry, kz * cz + rz];
                    let linear = id[0] as u64 + d.grid[0] as u64 * (id[1] as u64 + d.grid[1] as u64 * id[2] as u64);
                    let rank = rx + cx * (ry + cy * rz);
                    ctas.push(CtaShared::new(id, linear, k.smem_bytes, rank, (linear % k.nsm as u64) as u32, threads));
                    let ws: Vec<Warp> = (0..d.warps_per_cta())
                        .map(|s| {
                            let mut w = Warp::new(s, threads, &k.prog);
                            if frame0 > 0 {
                                w.ensure_local(frame0);
                            }
                            w
                        })
                        .collect();
                    warps.push(ws);
                }
            }
        }
        let live_warps = warps.iter().map(|w| w.len() as u32).sum();
        Cluster { ctas, warps, cbar: ClusterBar::default(), live_warps }
    }
}

/// Whether a watchdog stop is warps spinning on global memory (another cluster may set it).
fn spins_on_global(f: &Fault) -> bool {
    matches!(&f.kind, FaultKind::Watchdog(r) if matches!(r.stop, Stop::NoProgress { .. }) && r.warps.iter().any(|w| w.polls_global))
}

/// Runs a cluster until it finishes (`None`) or spins on global memory (`Some`, the watchdog's
/// report; the cluster can resume later).
fn run_cluster(k: &Kernel, mem: &mut DeviceMemory, c: &mut Cluster, trace: &mut MemTrace, stats: &mut FunctionalStats, watch: &mut Watch) -> Result<Option<Fault>, Fault> {
    let Cluster { ctas, warps, cbar, live_warps } = c;
    let (ctas, warps) = (&mut ctas[..], &mut warps[..]);
    let mut asyncs = Vec::new();
    loop {
        // Before every round, the first of each cluster too: the budget spans the grid.
        if let Some(f) = crate::watchdog::functional_step(watch, stats.warp_instructions, k, mem, ctas, warps, (cbar.phase, cbar.arrived)) {
            return if spins_on_global(&f) { Ok(Some(f)) } else { Err(f) };
        }
        let mut progress = false;
        let mut all_done = true;
        // Wake warps whose mbarrier left the phase they sleep in.
        for w in warps.iter_mut().flatten() {
            if let WarpState::AtMbarrier { cta, off, phase } = w.state {
                if phase_of(&ctas[cta as usize].smem, off) != phase {
                    w.state = WarpState::Ready;
                }
            }
        }
        for ci in 0..ctas.len() {
            for wi in 0..warps[ci].len() {
                if warps[ci][wi].state != WarpState::Ready {
                    all_done &= warps[ci][wi].state == WarpState::Done;
                    continue;
                }
                all_done = false;
                for _ in 0..QUANTUM {
                    let clock = stats.warp_instructions;
                    if let Some(n) = stats.executed.get_mut(warps[ci][wi].pc() as usize) {
                        *n += 1;
                    }
                    let mut env = Env { k, gmem: mem, ctas, me: ci, clock, trace, asyncs: &mut asyncs };
                    let s = step(&mut warps[ci][wi], &mut env)?;
                    // Asynchronous copies complete at once here.
                    for ev in asyncs.drain(..) {
                        if let AsyncEvent::CompleteTx { cta, mbar, .. } | AsyncEvent::ArriveAfterCopies { cta, mbar, .. } = ev {
                            apply_event(&mut ctas[cta].smem, mbar, &ev);
                        }
                    }
                    stats.warp_instructions += 1;
                    progress = true;
                    match s {
                        Step::Continue | Step::AsyncWait { .. } => {}
                        Step::MbarWait { cta, off, phase } => {
                            warps[ci][wi].state = WarpState::AtMbarrier { cta: cta as u32, off, phase };
                            break;
                        }
                        Step::Barrier(a) => {
                            if a.blocking {
                                warps[ci][wi].state = WarpState::AtBarrier(a.id);
                            }
                            if let Some(r) = ctas[ci].arrive(a) {
                                release(&mut warps[ci], k, r);
                            }
                            if a.blocking {
                                break;
                            }
                        }
                        Step::Exited { lanes, done } => {
                            let w = &mut warps[ci][wi];
                            ctas[ci].live_threads = ctas[ci].live_threads.saturating_sub((lanes & w.valid).count_ones());
                            if done {
                                w.state = WarpState::Done;
                                *live_warps -= 1;
                                if cbar.arrived > 0 && cbar.arrived >= *live_warps {
                                    complete_cluster_phase(cbar, warps);
                                }
                            }
                            for id in 0..16 {
                                if let Some(r) = ctas[ci].check(id) {
                                    release(&mut warps[ci], k, r);
                                }
                            }
                            if done {
                                break;
                            }
                        }
                        Step::ClusterArrive => {
                            warps[ci][wi].cluster_phase = cbar.phase + 1;
                            cbar.arrived += 1;
                            if cbar.arrived >= *live_warps {
                                complete_cluster_phase(cbar, warps);
                            }
                        }
                        Step::ClusterWait => {
                            if cbar.phase < warps[ci][wi].cluster_phase {
                                warps[ci][wi].state = WarpState::AtClusterBarrier;
                                break;
                            }
                        }
                    }
                }
            }
        }
        if all_done {
            return Ok(None);
        }
        if !progress {
            return Err(deadlock(k, ctas, warps));
        }
    }
}

fn complete_cluster_phase(cbar: &mut ClusterBar, warps: &mut [Vec<Warp>]) {
    cbar.phase += 1;
    cbar.arrived = 0;
    for w in warps.iter_mut().flatten() {
        if w.state == WarpState::AtClusterBarrier {
            w.state = WarpState::Ready;
        }
    }
}

fn deadlock(k: &Kernel, ctas: &[CtaShared], warps: &[Vec<Warp>]) -> Fault {
    let mut waiters = Vec::new();
    for (ci, ws) in warps.iter().enumerate() {
        for w in ws {
            let what = match w.state {
                WarpState::AtBarrier(id) => {
                    let b = &ctas[ci].bars[id as usize];
                    let expected = b.count.unwrap_or(ctas[ci].live_threads);
                    format!("barrier {id} ({} of {expected} threads arrived)", b.arrived)
                }
                WarpState::AtClusterBarrier => "barrier.cluster.wait".to_string(),
                WarpState::AtMbarrier { cta, off, phase } => {
                    let c = &ctas[cta as usize];
                    crate::mbarrier::Mbar::read(&c.smem, off).describe_wait(off, &format!("CTA ({},{},{})", c.id[0], c.id[1], c.id[2]), phase)
                }
                WarpState::AtAsyncWait => "asynchronous copy group wait".to_string(),
                WarpState::Ready | WarpState::Done => continue,
            };
            let pc = w.state.waiting_pc(w.pc());
            waiters.push(Waiter { cta: ctas[ci].id, warp: w.slot, pc_line: k.prog.source_line(pc), what });
        }
    }
    Fault::global(&k.prog.name, FaultKind::Deadlock(waiters))
}
