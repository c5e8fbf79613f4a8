//! The watchdog stops kernels that never finish (sim/tests/ptx/runaway.ptx) in both modes,
//! under the default limits and well within 120 s, naming the spinning warps, their loop and
//! what they poll; and the cycle and wall-clock budgets stop a real workload with a report.

use std::sync::Arc;
use std::time::{Duration, Instant};

use warpsim_sim::watchdog::{Limits, Stop};
use warpsim_sim::{Fault, FaultKind, Gpu, LaunchDims};

const GRID: u32 = 264;
const BLOCK: u32 = 256;

/// Runs `entry` of runaway.ptx on 264 CTAs of 256 threads (two waves' worth of warps on the
/// H200's 132 SMs) with a one-word `flag` buffer; timed on hopper-h200 (a greedy-then-oldest
/// scheduler: the oldest warp of each sub-partition spins, the others wait their turn) or functional.
fn run(entry: &str, timed: bool) -> (Fault, Duration) {
    let progs = warpsim_isa::load(include_str!("ptx/runaway.ptx"), "runaway.ptx").unwrap();
    let prog = Arc::new(progs.into_iter().find(|p| p.name == entry).unwrap());
    let mut g = Gpu::new(132);
    let flag = g.upload("flag", 4, &[]);
    let dims = LaunchDims { grid: [GRID, 1, 1], block: [BLOCK, 1, 1], cluster: [1, 1, 1], dynamic_smem: 0 };
    let t = Instant::now();
    let e = if timed {
        let cfg = Arc::new(warpsim_sim::presets::preset("hopper-h200").unwrap());
        let k = Arc::new(g.kernel(prog, dims, flag.to_le_bytes().to_vec()).unwrap());
        let opts = warpsim_sim::engine::RunOptions { threads: 1, regs_per_thread: 16, spills: Default::default(), limits: Limits::default() };
        warpsim_sim::engine::run(cfg, k, &mut g.mem, &opts).map(|_| ()).unwrap_err()
    } else {
        g.run_functional(prog, dims, flag.to_le_bytes().to_vec()).map(|_| ()).unwrap_err()
    };
    (e, t.elapsed())
}

/// The fault is the watchdog's no-progress stop, within 120 s; returns its message.
fn stopped(entry: &str, timed: bool) -> String {
    let (e, took) = run(entry, timed);
    let msg = e.to_string();
    let FaultKind::Watchdog(r) = &e.kind else { panic!("{entry}: not a watchdog stop: {msg}") };
    assert!(matches!(r.stop, Stop::NoProgress { .. }), "{msg}");
    assert!(took < Duration::from_secs(120), "{entry} took {took:?}");
    eprintln!("{entry} ({}): stopped in {took:.2?}", if timed { "timed" } else { "functional" });
    assert!(msg.starts_with(&format!("kernel `{entry}`: watchdog: no forward progress")), "{msg}");
    assert!(msg.contains("CTA (0,0,0) warp 0 at runaway.ptx:"), "{msg}");
    msg
}

#[test]
fn a_branch_to_itself_is_stopped_in_both_modes() {
    for timed in [true, false] {
        let msg = stopped("branch_self", timed);
        let warps = if timed { GRID * BLOCK / 32 } else { BLOCK / 32 };
        assert!(msg.contains(&format!("{warps} warps kept issuing or waiting to issue")), "{msg}");
        assert!(msg.contains("at runaway.ptx:15:2 in the loop runaway.ptx:15-15: reads no memory in the loop"), "{msg}");
        assert!(msg.contains(&format!("loops: runaway.ptx:15-15 ({warps} warps)")), "{msg}");
        // The first warps are listed, the rest counted: the report stays readable.
        assert!(msg.lines().count() <= warpsim_sim::watchdog::REPORTED_WARPS + 2, "{msg}");
    }
}

#[test]
fn a_spin_on_a_global_flag_nothing_sets_is_stopped_in_both_modes() {
    for timed in [true, false] {
        let msg = stopped("spin_flag", timed);
        assert!(msg.contains("in the loop runaway.ptx:29-31: polls global 0x7f0000000000 (`flag` + 0) by ld.global at runaway.ptx:29"), "{msg}");
        // The functional runner says how many clusters it had set aside spinning (one per SM).
        assert_eq!(msg.contains("132 clusters were spinning side by side and none changed global memory"), !timed, "{msg}");
    }
}

#[test]
fn a_spin_on_an_mbarrier_test_wait_that_never_completes_is_stopped_in_both_modes() {
    for timed in [true, false] {
        let msg = stopped("spin_test_wait", timed);
        assert!(msg.contains("in the loop runaway.ptx:47-48: polls the mbarrier at shared 0x0 (phase parity 0,"), "{msg}");
        assert!(msg.contains("of 4096 arrivals pending, tx-count 0 bytes) by mbarrier.test_wait at runaway.ptx:47"), "{msg}");
    }
}

/// A flag that a later CTA sets and an earlier one polls: the functional runner sets the spinning
/// CTA aside, runs the one that sets it, and resumes the first; the timing model, with both CTAs
/// resident, runs them together. Both finish.
#[test]
fn a_flag_a_later_cta_sets_finishes_in_both_modes() {
    let progs = warpsim_isa::load(include_str!("ptx/runaway.ptx"), "runaway.ptx").unwrap();
    let prog = Arc::new(progs.into_iter().find(|p| p.name == "cross_cta_flag").unwrap());
    let dims = LaunchDims { grid: [2, 1, 1], block: [32, 1, 1], cluster: [1, 1, 1], dynamic_smem: 0 };
    let mut g = Gpu::new(132);
    let flag = g.upload("flag", 4, &[]);
    let stats = g.run_functional(Arc::clone(&prog), dims, flag.to_le_bytes().to_vec()).unwrap();
    assert_eq!((stats.ctas, g.mem.read_uint(flag, 4)), (2, 1));
    let mut g = Gpu::new(132);
    let flag = g.upload("flag", 4, &[]);
    let cfg = Arc::new(warpsim_sim::presets::preset("hopper-h200").unwrap());
    let k = Arc::new(g.kernel(prog, dims, flag.to_le_bytes().to_vec()).unwrap());
    let opts = warpsim_sim::engine::RunOptions { threads: 1, regs_per_thread: 16, spills: Default::default(), limits: Limits::default() };
    warpsim_sim::engine::run(cfg, k, &mut g.mem, &opts).unwrap();
    assert_eq!(g.mem.read_uint(flag, 4), 1);
}

/// `try_wait` puts the warp to sleep on the barrier: nothing issues, and it is the deadlock
/// report, at once, that names the barrier.
#[test]
fn an_mbarrier_try_wait_that_never_completes_is_a_reported_deadlock() {
    for timed in [true, false] {
        let (e, took) = run("spin_try_wait", timed);
        let msg = e.to_string();
        assert!(matches!(e.kind, FaultKind::Deadlock(_)), "{msg}");
        assert!(msg.contains("runaway.ptx:64") && msg.contains("of 4096 arrivals pending"), "{msg}");
        // Thousands of waiting warps: 16 are listed, the rest counted.
        let waiting = if timed { GRID * BLOCK / 32 } else { BLOCK / 32 } as usize;
        assert!(msg.starts_with(&format!("kernel `spin_try_wait`: deadlock: no warp can make progress; {waiting} waiting:")), "{msg}");
        let listed = waiting.min(warpsim_sim::fault::REPORTED_WAITERS);
        assert_eq!(msg.lines().count(), 1 + listed + usize::from(waiting > listed), "{msg}");
        if timed {
            assert!(msg.ends_with(&format!("  … and {} more waiting warps\n", waiting - listed)), "{msg}");
        }
        assert!(took < Duration::from_secs(120), "{took:?}");
    }
}

/// A real workload under a cycle budget it cannot meet, and under a wall-clock budget of a
/// microsecond: stopped with the budget named and the running warps listed.
#[test]
fn the_cycle_and_wall_clock_budgets_stop_a_real_workload() {
    let w = warpsim_workloads::Workload::bundled("vector_add").unwrap();
    let cfg = warpsim_sim::presets::preset("hopper-h200").unwrap();
    let limits = Limits { max_cycles: 500, ..Limits::default() };
    let e = warpsim_sim::launch::run_timed_within(&w, &cfg, 1, &limits).map(|_| ()).unwrap_err().to_string();
    assert!(e.contains("watchdog: still running after the budget of 500 cycles (--max-cycles)"), "{e}");
    assert!(e.contains("CTA (0,0,0) warp 0 at "), "{e}");
    let e = warpsim_sim::launch::run_functional_within(&w, &cfg, &limits).map(|_| ()).unwrap_err().to_string();
    assert!(e.contains("still running after the budget of 500 warp instructions (--max-cycles)"), "{e}");
    let limits = Limits { timeout: Some(Duration::from_micros(1)), ..Limits::default() };
    let e = warpsim_sim::launch::run_timed_within(&w, &cfg, 1, &limits).map(|_| ()).unwrap_err().to_string();
    assert!(e.contains("still running after the wall-clock budget of 0.000001 s (--timeout)"), "{e}");
    // The defaults let it finish, with the cycles of a run without a watchdog (golden.rs pins them).
    assert!(warpsim_sim::launch::run_timed(&w, &cfg, 1).unwrap().check.passed());
}
