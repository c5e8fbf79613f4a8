//! SASS mode in time: the SM model issues machine code by its control bits, so changing the bits
//! changes the cycles the way the hardware's scheduling would (committed listings, no CUDA tools).

use warpsim_isa::Program;
use warpsim_sim::config::ArchConfig;
use warpsim_sim::watchdog::Limits;
use warpsim_workloads::Workload;

fn lowered(name: &str) -> (Workload, Program) {
    let w = Workload::bundled(name).unwrap();
    let ptx = warpsim_isa::load(&w.ptx, "kernel.ptx").unwrap().into_iter().find(|p| p.name == w.manifest.entry).unwrap();
    let text = w.committed_sass("sm_90").unwrap();
    let prog = warpsim_sass::lower::lower_listing(text, &w.manifest.entry, &ptx).unwrap();
    (w, prog)
}

/// Cycles and warp instructions of a timed run of `prog`.
fn timed(w: &Workload, cfg: &ArchConfig, prog: Program) -> (u64, u64) {
    let o = warpsim_sim::launch::run_timed_with(w, cfg, 1, &Limits::default(), vec![prog]).unwrap();
    assert!(o.check.passed(), "{}: {}", w.manifest.name, o.check);
    let t = o.timing.unwrap();
    (t.cycles, t.warp_instructions)
}

#[test]
fn stall_counts_pace_a_single_warp() {
    // ffma_lat: one warp, a dependent FFMA chain of 4096 that ptxas covers with stall counts
    // (fixed latency: no barrier). Two more stall cycles on every instruction cost the lone warp
    // two cycles per instruction it issues, except where it already waited longer on a barrier.
    // Register-bank conflicts (which hold the dispatch beyond a short stall count, and then hide
    // under a longer one) are off: this is the stall counts' test.
    let mut cfg = warpsim_sim::presets::preset("hopper-h200").unwrap();
    cfg.sm.register_banks = 0;
    let (w, prog) = lowered("ffma_lat");
    assert!(prog.control.len() == prog.insts.len() && prog.control.iter().any(|c| c.stall >= 4));
    let (base, n) = timed(&w, &cfg, prog.clone());
    let mut slower = prog;
    for c in &mut slower.control {
        c.stall = (c.stall.max(1) + 2).min(15);
    }
    let (c, n2) = timed(&w, &cfg, slower);
    assert_eq!(n, n2);
    let extra = c - base;
    println!("ffma_lat: {base} cycles, {c} with two more stall cycles each, {n} warp instructions");
    assert!(extra <= 2 * n && extra + 2 * 64 >= 2 * n, "{extra} more cycles for {n} instructions");
    // The chain itself: 4096 dependent FFMAs at ptxas's 4 cycles each.
    assert!(base > 4096 * 4, "{base} cycles");
}

#[test]
fn variable_latency_results_wait_on_their_barriers() {
    // chase_l2: a pointer chase through L2; each load's address is the previous load's result,
    // which the consumer waits for on a scoreboard barrier. Without the waits only the stall
    // counts remain and the loads overlap.
    let cfg = warpsim_sim::presets::preset("hopper-h200").unwrap();
    let (w, prog) = lowered("chase_l2");
    let (base, _) = timed(&w, &cfg, prog.clone());
    let mut unwaited = prog;
    for c in &mut unwaited.control {
        c.wait_mask = 0;
    }
    let (c, _) = timed(&w, &cfg, unwaited);
    println!("chase_l2: {base} cycles, {c} without the wait masks");
    assert!(c * 4 < base, "{c} cycles without waits, {base} with");
}
