//! Golden timing: the cycles and every counter of every bundled workload on `hopper-h200` (the
//! calibrated preset) and `volta-gv100`, pinned in `tests/golden/<preset>.txt`. Any change to the
//! timing model shows here as a diff to explain; after checking it, regenerate the files with
//! `WARPSIM_BLESS=1 cargo test --release -p warpsim-sim --test golden` and say why in the commit.
//! Workloads a preset cannot run (a missing feature) are pinned with the error's first line.
//! The `micro` group is left out: its workloads are sized per preset and pinned, as the papers'
//! figures they measure, by validate/tests/published.rs.

use std::fmt::Write as _;
use std::path::PathBuf;

use rayon::prelude::*;
use warpsim_workloads::{bundled_names, Workload};

/// One workload's golden lines.
fn fingerprint(name: &str, preset: &str) -> String {
    let cfg = warpsim_sim::presets::preset(preset).unwrap();
    let w = Workload::bundled(name).unwrap();
    let mut s = String::new();
    match warpsim_sim::launch::run_timed(&w, &cfg, 1) {
        Ok(o) => {
            let t = o.timing.expect("a timed run has a timing result");
            let check = if o.check.passed() { "pass" } else { "FAIL" };
            let _ = writeln!(s, "{name} cycles {} warp_instructions {} check {check}", t.cycles, t.warp_instructions);
            for (k, v) in &t.counters {
                let _ = writeln!(s, "{name}   {k} {v}");
            }
            for (k, v) in &t.stalls {
                let _ = writeln!(s, "{name}   stall {k} {v:.6}");
            }
        }
        Err(e) => {
            let first = e.to_string().lines().next().unwrap_or("").to_string();
            let _ = writeln!(s, "{name} error {first}");
        }
    }
    s
}

fn check(preset: &str) {
    let micro = warpsim_workloads::bundled_groups().remove("micro").unwrap_or_default();
    let names: Vec<&str> = bundled_names().into_iter().filter(|n| !micro.contains(n)).collect();
    let got: String = names.par_iter().map(|n| fingerprint(n, preset)).collect::<Vec<_>>().concat();
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("tests/golden/{preset}.txt"));
    if std::env::var_os("WARPSIM_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &got).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path).unwrap_or_default();
    if got != want {
        let (g, w): (Vec<&str>, Vec<&str>) = (got.lines().collect(), want.lines().collect());
        let mut diff = Vec::new();
        for i in 0..g.len().max(w.len()) {
            let (a, b) = (w.get(i).copied().unwrap_or("<none>"), g.get(i).copied().unwrap_or("<none>"));
            if a != b {
                diff.push(format!("- {a}\n+ {b}"));
            }
        }
        panic!(
            "{preset}: {} golden lines differ from {} (first 30 below); if the change is intended, \
             rerun with WARPSIM_BLESS=1 and explain it in the commit\n{}",
            diff.len(),
            path.display(),
            diff[..diff.len().min(30)].join("\n")
        );
    }
}

#[test]
fn hopper_h200_cycles_and_counters_are_pinned() {
    check("hopper-h200");
}

#[test]
fn volta_gv100_cycles_and_counters_are_pinned() {
    check("volta-gv100");
}
