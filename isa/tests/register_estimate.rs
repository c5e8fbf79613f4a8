//! The register estimate against the real ptxas: `tests/data/ptxas_registers.csv` holds what
//! ptxas 13.0.88 reported (`ptxas -arch=sm_XX -v`, "Used N registers") for every kernel of the
//! repository's PTX, for sm_80 and sm_90 (`tools/ptxas_registers.py` writes it; this test needs no
//! ptxas). Each kernel is lowered, estimated with [`estimate_registers`] and capped by
//! [`register_cap`] of its directives exactly as a launch resolves it, and compared.
//!
//! A kernel compiled several ways (with and without `-lineinfo`, by nvcc and by NVRTC, for sm_75
//! and sm_80) often lowers to the same instructions; such copies count once per target, keyed by
//! a hash of the instructions (source positions left out), directives and target. `sm_90a` rows
//! count in the sm_90 set. The estimator's constants were fitted on `isa/tests/corpus` only;
//! `workloads/suite` and `sim/tests/ptx` are held out and reported separately.
//!
//! `cargo test --release -p warpsim-isa --test register_estimate -- --nocapture` prints MAPE,
//! median and the worst kernels per target.

use std::collections::hash_map::DefaultHasher;
use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};
use std::path::Path;

use warpsim_isa::liveness::{estimate_registers, register_cap};
use warpsim_isa::Program;

/// The measured MAPE (percent) per target set, and the margin the test allows above it.
const MAPE_SM90: f64 = 13.8;
const MAPE_SM80: f64 = 14.7;
const MARGIN: f64 = 0.5;

struct Row {
    file: String,
    entry: String,
    target: String,
    ptxas: u32,
    estimate: u32,
}

impl Row {
    fn ape(&self) -> f64 {
        (self.estimate as f64 - self.ptxas as f64).abs() / self.ptxas as f64
    }
    fn held_out(&self) -> bool {
        !self.file.starts_with("isa/tests/corpus/")
    }
}

/// Identity of a kernel's code: instructions without source positions, register types and
/// directives.
fn code_hash(p: &Program) -> u64 {
    let mut h = DefaultHasher::new();
    for i in &p.insts {
        format!("{:?}|{:?}|{:?}|{:?}", i.op, i.m, i.guard, i.ops).hash(&mut h);
    }
    for r in &p.regs {
        format!("{:?}", r.ty).hash(&mut h);
    }
    format!("{:?}", p.directives).hash(&mut h);
    h.finish()
}

fn mape(rows: &[&Row]) -> f64 {
    100.0 * rows.iter().map(|r| r.ape()).sum::<f64>() / rows.len().max(1) as f64
}

fn median(rows: &[&Row]) -> f64 {
    let mut v: Vec<f64> = rows.iter().map(|r| r.ape()).collect();
    v.sort_by(f64::total_cmp);
    100.0 * v.get(v.len() / 2).copied().unwrap_or(0.0)
}

#[test]
fn estimate_matches_ptxas_on_the_corpus() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let csv = std::fs::read_to_string(root.join("isa/tests/data/ptxas_registers.csv")).unwrap();
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap_or_else(|| panic!("no column {name}"));
    let (c_file, c_entry, c_target, c_regs) = (col("file"), col("entry"), col("target"), col("registers"));
    let mut programs: HashMap<String, Vec<Program>> = HashMap::new();
    let mut seen = HashSet::new();
    let mut rows = Vec::new();
    let t = std::time::Instant::now();
    for line in lines {
        let f: Vec<&str> = line.split(',').collect();
        let (file, entry) = (f[c_file], f[c_entry]);
        let target = if f[c_target].starts_with("sm_90") { "sm_90" } else { f[c_target] };
        let progs = programs.entry(file.to_string()).or_insert_with(|| {
            let src = std::fs::read_to_string(root.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
            warpsim_isa::load(&src, file).unwrap_or_else(|e| panic!("{e}"))
        });
        let p = progs.iter().find(|p| p.name == entry).unwrap_or_else(|| panic!("{file}: no kernel {entry}"));
        if !seen.insert((code_hash(p), target)) {
            continue;
        }
        let d = &p.directives;
        let estimate = estimate_registers(p).min(register_cap(d.maxnreg, d.maxntid.or(d.reqntid), d.minnctapersm));
        rows.push(Row { file: file.into(), entry: entry.into(), target: target.into(), ptxas: f[c_regs].parse().unwrap(), estimate });
    }
    println!("{} distinct (kernel, target) pairs from {} PTX files, estimated in {:.2} s", rows.len(), programs.len(), t.elapsed().as_secs_f64());
    let mut failures = Vec::new();
    for (target, limit) in [("sm_90", MAPE_SM90), ("sm_80", MAPE_SM80)] {
        let all: Vec<&Row> = rows.iter().filter(|r| r.target == target).collect();
        let fit: Vec<&Row> = all.iter().copied().filter(|r| !r.held_out()).collect();
        let held: Vec<&Row> = all.iter().copied().filter(|r| r.held_out()).collect();
        let held_out = match held.len() {
            0 => "none held out: workloads/suite and sim/tests are sm_90 PTX".to_string(),
            n => format!("held out workloads/suite + sim/tests: {n} kernels, MAPE {:.1}%", mape(&held)),
        };
        println!(
            "{target}: {} kernels, MAPE {:.1}%, median {:.1}% (fit set isa/tests/corpus: {} kernels, MAPE {:.1}%; {held_out})",
            all.len(),
            mape(&all),
            median(&all),
            fit.len(),
            mape(&fit)
        );
        let mut worst = all.clone();
        worst.sort_by(|a, b| b.ape().total_cmp(&a.ape()));
        for r in worst.iter().take(10) {
            println!("    {:>+5.0}%  ptxas {:>3}  estimate {:>3}  {} {}", 100.0 * (r.estimate as f64 / r.ptxas as f64 - 1.0), r.ptxas, r.estimate, r.file, r.entry);
        }
        if mape(&all) > limit + MARGIN {
            failures.push(format!("{target}: MAPE {:.1}% > {limit}% + {MARGIN}", mape(&all)));
        }
        for r in all.iter().filter(|r| r.estimate > 2 * r.ptxas || 2 * r.estimate < r.ptxas) {
            failures.push(format!("{target} {} {}: estimate {} vs ptxas {} (outside 2x)", r.file, r.entry, r.estimate, r.ptxas));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
