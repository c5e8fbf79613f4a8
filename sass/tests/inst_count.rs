//! Warp-level SASS instructions executed in SASS mode against the H200's: the main dataset's
//! `smsp__inst_executed.sum` (ncu) and the executed-SASS dataset's per-instruction counts
//! (`validate/data/h200/sass/`, ncu's source page), for every workload that lowers. No CUDA
//! tools needed (committed listings). The tables print with
//! `cargo test --release -p warpsim-sass --test inst_count -- --nocapture`.

use std::path::PathBuf;

use warpsim_workloads::Workload;

fn data(rel: &str) -> serde_json::Value {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../validate/data/h200").join(rel);
    serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap()
}

/// The workload's kernel lowered from its committed listing, or `None` (PTX fallback).
fn program(w: &Workload) -> Option<warpsim_isa::Program> {
    let text = w.committed_sass("sm_90").or_else(|| w.committed_sass("sm_90a"))?;
    let ptx = warpsim_isa::load(&w.ptx, "kernel.ptx").ok()?.into_iter().find(|p| p.name == w.manifest.entry)?;
    warpsim_sass::lower::lower_listing(text, &w.manifest.entry, &ptx).ok()
}

/// Executed warp instructions per SASS instruction, from a functional SASS run.
fn executed(w: &Workload) -> Option<Vec<u64>> {
    let o = warpsim_sim::launch::run_functional_with(w, 132, vec![program(w)?]).ok()?;
    o.check.passed().then_some(o.functional?.executed)
}

fn pct(sim: f64, hw: f64) -> f64 {
    if hw == 0.0 {
        if sim == 0.0 {
            0.0
        } else {
            100.0
        }
    } else {
        100.0 * (sim - hw) / hw
    }
}

/// (workload, ncu, SASS mode) for every workload of a dataset that lowers, and those that fall back.
fn compare(rel: &str) -> (Vec<(String, f64, f64)>, Vec<String>) {
    let mut rows = Vec::new();
    let mut skipped = Vec::new();
    for m in data(rel)["workloads"].as_array().unwrap() {
        let name = m["name"].as_str().unwrap();
        let Some(hw) = m["counters"]["smsp__inst_executed.sum"].as_f64() else { continue };
        let Ok(w) = Workload::bundled(name) else { continue };
        match executed(&w) {
            Some(e) => rows.push((name.to_string(), hw, e.iter().sum::<u64>() as f64)),
            None => skipped.push(name.to_string()),
        }
    }
    (rows, skipped)
}

fn within(r: &[(String, f64, f64)], p: f64) -> usize {
    r.iter().filter(|(_, hw, sim)| pct(*sim, *hw).abs() <= p).count()
}

#[test]
fn instruction_counts_match_the_h200() {
    // The datasets' smsp__inst_executed.sum per workload (main, blind sets, memory probes).
    let mut all = Vec::new();
    for rel in ["2026-11-30.json", "blind/2026-11-30.json", "blind3/2026-12-01.json", "blind4/2026-12-01.json", "blind5/2026-12-04.json", "blind6/2026-12-05.json", "membench/2026-12-01.json"] {
        let (rows, skipped) = compare(rel);
        println!("{rel}: smsp__inst_executed.sum, SASS mode vs ncu on the H200");
        println!("  {:<32} {:>14} {:>14} {:>8}", "workload", "ncu", "sass mode", "error");
        for (n, hw, sim) in &rows {
            println!("  {n:<32} {hw:>14.0} {sim:>14.0} {:>7.2}%", pct(*sim, *hw));
        }
        let mape = rows.iter().map(|(_, hw, sim)| pct(*sim, *hw).abs()).sum::<f64>() / rows.len().max(1) as f64;
        println!(
            "  {} workloads in SASS mode: {} within 2%, {} within 10%, MAPE {mape:.2}%; {} fall back to PTX ({})",
            rows.len(),
            within(&rows, 2.0),
            within(&rows, 10.0),
            skipped.len(),
            skipped.join(", ")
        );
        all.extend(rows);
    }
    println!("all datasets: {} of {} lowered workloads within 2% of ncu", within(&all, 2.0), all.len());

    // Executed-SASS dataset: per instruction, in listing order.
    let sass = data("sass/2026-11-30.json");
    let mut exact = 0;
    let mut compared = 0;
    let mut totals = Vec::new();
    for d in sass["workloads"].as_array().unwrap() {
        let name = d["name"].as_str().unwrap();
        let Ok(w) = Workload::bundled(name) else { continue };
        let Some(sim) = executed(&w) else { continue };
        let hw: Vec<(String, u64)> = d["sass"].as_array().unwrap().iter().map(|i| (i["text"].as_str().unwrap().to_string(), i["executed"].as_u64().unwrap_or(0))).collect();
        compared += 1;
        let same = hw.len() <= sim.len() && hw.iter().zip(&sim).all(|((_, h), s)| h == s);
        if same {
            exact += 1;
        }
        let differing: Vec<String> = hw.iter().zip(&sim).enumerate().filter(|(_, ((_, h), s))| h != *s).map(|(i, ((t, h), s))| format!("{:#06x} `{t}` {h} vs {s}", i * 16)).collect();
        totals.push((name.to_string(), hw.iter().map(|x| x.1).sum::<u64>() as f64, sim.iter().sum::<u64>() as f64, differing, hw.len()));
    }
    println!("executed-SASS dataset (per-instruction counts, listing order):");
    for (n, hw, sim, diff, len) in &totals {
        println!("  {n:<32} {hw:>14.0} {sim:>14.0} {:>7.2}%  {} of {len} instructions differ", pct(*sim, *hw), diff.len());
        for d in diff.iter().take(4) {
            println!("      {d} (H200 vs SASS mode)");
        }
    }
    println!("  {compared} workloads compared, {exact} with every instruction's count equal");
    assert!(!all.is_empty() && compared > 0);
    // A regression guard on the must-show (within 2% on at least 90%), over what lowers.
    assert!(within(&all, 2.0) * 100 >= all.len() * 90, "{} of {} within 2%", within(&all, 2.0), all.len());
}
