//! The bundled suite runs functionally on the CPU and every workload passes its reference check.

use warpsim_workloads::{bundled_names, Workload};

#[test]
fn every_bundled_workload_passes_functionally() {
    let mut failed = Vec::new();
    let mut insts = 0u64;
    let t = std::time::Instant::now();
    for name in bundled_names() {
        let w = Workload::bundled(name).unwrap();
        match warpsim_sim::launch::run_functional(&w, 132) {
            Ok(o) => {
                insts += o.functional.map_or(0, |f| f.warp_instructions);
                if !o.check.passed() {
                    failed.push(format!("{name}: {}", o.check));
                }
            }
            Err(e) => failed.push(format!("{name}: {e}")),
        }
    }
    let s = t.elapsed().as_secs_f64();
    println!("suite: {} workloads, {insts} warp instructions in {s:.2} s ({:.2} M warp-inst/s)", bundled_names().len(), insts as f64 / s / 1e6);
    assert!(failed.is_empty(), "{} failed:\n{}", failed.len(), failed.join("\n"));
}
