//! Functional SASS over the bundled suite, from the committed listings (no CUDA tools): every
//! workload's kernels lower (clusters, TMA multicast and wgmma included) and pass their checks
//! on the simulator; a kernel that did not would fail to lower with a located error (the
//! caller's fallback to PTX mode), which this test does not accept. The coverage, the
//! first unlowered opcode of each of the rest, and the outputs that differ from PTX mode's are
//! printed (`cargo test --release -p warpsim-sass --test functional -- --nocapture`).

use std::collections::BTreeMap;

use warpsim_workloads::{bundled_names, Workload};

/// A workload's listing (sm_90, or sm_90a for the arch-specific kernels).
fn listing(w: &Workload) -> Option<&'static str> {
    w.committed_sass("sm_90").or_else(|| w.committed_sass("sm_90a"))
}

#[test]
fn bundled_suite_runs_in_sass_mode() {
    let mut passed = Vec::new();
    let mut failed = Vec::new();
    let mut unlowered: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut differs = Vec::new();
    let names = bundled_names();
    for name in &names {
        let w = Workload::bundled(name).unwrap();
        let file = w.ptx_path.display().to_string();
        let module = warpsim_isa::load(&w.ptx, &file).unwrap();
        let Some(text) = listing(&w) else {
            unlowered.entry("(no listing)".into()).or_default().push(name.to_string());
            continue;
        };
        // One program per launch of the sequence, each its own entry's SASS.
        let progs: Result<Vec<_>, _> = w
            .manifest
            .launches
            .iter()
            .map(|l| {
                let ptx = module.iter().find(|p| p.name == l.entry).unwrap();
                warpsim_sass::lower::lower_listing(text, &l.entry, ptx).map_err(|e| (l.entry.clone(), e))
            })
            .collect();
        let progs = match progs {
            Ok(p) => p,
            Err((entry, e)) => {
                assert!(e.to_string().contains(&entry), "{name}: the error names the kernel: {e}");
                unlowered.entry(e.opcode.clone()).or_default().push(format!("{name} ({})", e.reason));
                continue;
            }
        };
        match warpsim_sim::launch::run_functional_with(&w, 132, progs) {
            Ok(o) if o.check.passed() => {
                passed.push(name.to_string());
                let p = warpsim_sim::launch::run_functional(&w, 132).unwrap();
                for ((n, a), (_, b)) in o.outputs.iter().zip(&p.outputs) {
                    if a != b {
                        let words = a.chunks(4).zip(b.chunks(4)).filter(|(x, y)| x != y).count();
                        differs.push(format!("{name}.{n}: {words} of {} words", a.len() / 4));
                    }
                }
            }
            Ok(o) => failed.push(format!("{name}: {}", o.check)),
            Err(e) => failed.push(format!("{name}: {e}")),
        }
    }
    println!("SASS mode: {} of {} workloads lower and pass; {} lower and fail; {} fall back to PTX", passed.len(), names.len(), failed.len(), unlowered.values().map(Vec::len).sum::<usize>());
    for (op, ws) in &unlowered {
        println!("  first unlowered opcode {op}: {} ({})", ws.len(), ws.join(", "));
    }
    println!("outputs differing from PTX mode ({}):", differs.len());
    for d in &differs {
        println!("  {d}");
    }
    assert!(failed.is_empty(), "{} lowered but failed:\n{}", failed.len(), failed.join("\n"));
    assert!(unlowered.is_empty(), "every bundled workload lowers; these fall back to PTX: {unlowered:?}");
    assert_eq!(passed.len(), names.len());
}

/// The timing model runs SASS programs too (each SASS instruction one machine op), with the
/// same results and the instruction count a functional run gives.
#[test]
fn timing_mode_runs_sass() {
    let cfg = warpsim_sim::presets::preset("hopper-h200").unwrap();
    for name in ["vector_add", "divergent", "reduce_shuffle", "cpasync_gemm", "mma_gemm", "mbarrier_pingpong", "histogram256_smem", "device_call"] {
        let w = Workload::bundled(name).unwrap();
        let ptx = warpsim_isa::load(&w.ptx, "kernel.ptx").unwrap().into_iter().find(|p| p.name == w.manifest.entry).unwrap();
        let prog = warpsim_sass::lower::lower_listing(listing(&w).unwrap(), &w.manifest.entry, &ptx).unwrap();
        let f = warpsim_sim::launch::run_functional_with(&w, cfg.sm.count, vec![prog.clone()]).unwrap();
        let t = warpsim_sim::launch::run_timed_with(&w, &cfg, 1, &warpsim_sim::watchdog::Limits::default(), vec![prog]).unwrap();
        assert!(t.check.passed(), "{name}: {}", t.check);
        let timed = t.timing.unwrap().warp_instructions;
        let functional = f.functional.unwrap().warp_instructions;
        // mbarrier waits re-execute as often as the warp finds the phase incomplete, which
        // depends on timing.
        if name != "mbarrier_pingpong" {
            assert_eq!(timed, functional, "{name}: warp instructions timed vs functional");
        }
    }
}

/// A CAS retry loop's successful lanes leave it without waiting for the lanes still retrying
/// (ptxas's `YIELD` in the loop releases its `BSYNC`), as the H200 runs them: one warp of 32
/// one-element lanes on one word executes 425 warp instructions there (ncu,
/// validate/data/h200/membench/2026-12-03-atomics.json): 40 before the loop, 32 rounds of the
/// 6-instruction loop, and the 6 instructions after it once per success. Reconverging at the
/// `BSYNC` would run them once (and the `BSYNC` once per success): 269. Lanes on distinct words
/// all succeed together: 52 on both.
#[test]
fn cas_loop_exits_run_on_alone() {
    for (name, expect) in [("cas_fadd_1_w1", 424), ("cas_fadd_32_w1", 52)] {
        let w = Workload::bundled(name).unwrap();
        let ptx = warpsim_isa::load(&w.ptx, "kernel.ptx").unwrap().into_iter().find(|p| p.name == w.manifest.entry).unwrap();
        let prog = warpsim_sass::lower::lower_listing(listing(&w).unwrap(), &w.manifest.entry, &ptx).unwrap();
        let f = warpsim_sim::launch::run_functional_with(&w, 132, vec![prog]).unwrap();
        assert!(f.check.passed(), "{name}: {}", f.check);
        assert_eq!(f.functional.unwrap().warp_instructions, expect, "{name}");
    }
}

/// A warp asleep in `SYNCS.PHASECHK.TRANS64.TRYWAIT` wakes when its mbarrier's phase completes,
/// not at the end of the engine's time window: `tma_latency` (one thread, 1280 dependent TMA load
/// -> try_wait steps) takes the same cycles whatever the window (`misc.dsmem_latency` sets it;
/// the kernel has no DSMEM traffic), where it once ran 142 cycles a step slower with the 192-cycle
/// window than with a 50-cycle one. And the suspended try_wait counts once, as ncu counts it on
/// the H200 (103714 machine instructions, validate/data/h200/2026-11-30.json), not again when
/// it reads the completed phase.
#[test]
fn mbarrier_waiters_wake_when_the_phase_completes() {
    let w = Workload::bundled("tma_latency").unwrap();
    let ptx = warpsim_isa::load(&w.ptx, "kernel.ptx").unwrap().into_iter().find(|p| p.name == w.manifest.entry).unwrap();
    let prog = warpsim_sass::lower::lower_listing(listing(&w).unwrap(), &w.manifest.entry, &ptx).unwrap();
    let run = |window: u32| {
        let mut cfg = warpsim_sim::presets::preset("hopper-h200").unwrap();
        cfg.misc.dsmem_latency = window;
        let t = warpsim_sim::launch::run_timed_with(&w, &cfg, 1, &warpsim_sim::watchdog::Limits::default(), vec![prog.clone()]).unwrap();
        assert!(t.check.passed(), "{}", t.check);
        t.timing.unwrap()
    };
    let (a, b) = (run(192), run(48));
    assert_eq!(a.cycles, b.cycles);
    assert_eq!(a.counters["smsp__inst_executed.sum"], 103714.0);
}
