//! Counters the simulator must count exactly as Nsight Compute did on the H200 (the committed
//! dataset): shared-memory bank conflicts for word strides 1..32 and the transposes, and global
//! load/store sectors and requests of the coalescing workloads. These do not depend on timing,
//! only on addresses, so any difference is a modelling bug.

use std::path::Path;

use warpsim_validate::Dataset;
use warpsim_workloads::Workload;

fn dataset() -> Dataset {
    Dataset::load(&Dataset::newest_in(&Path::new(env!("CARGO_MANIFEST_DIR")).join("data/h200")).unwrap()).unwrap()
}

fn check(workloads: &[&str], counters: &[&str]) {
    let ds = dataset();
    let cfg = warpsim_sim::presets::preset("hopper-h200").unwrap();
    let mut bad = Vec::new();
    for name in workloads {
        let rec = ds.workloads.iter().find(|w| w.name == *name).unwrap_or_else(|| panic!("{name} not in the dataset"));
        let w = Workload::bundled(name).unwrap();
        let t = warpsim_sim::launch::run_timed(&w, &cfg, 1).unwrap().timing.unwrap();
        for c in counters {
            let (hw, sim) = (rec.counters[*c], t.counters[*c]);
            if hw != sim {
                bad.push(format!("{name}: {c}: H200 {hw}, simulated {sim}"));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn bank_conflicts_match_ncu_for_every_stride() {
    check(
        &["smem_stride_1", "smem_stride_2", "smem_stride_4", "smem_stride_8", "smem_stride_16", "smem_stride_32", "smem_broadcast", "transpose_shared", "transpose_padded", "transpose_swizzled"],
        &["l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum"],
    );
}

#[test]
fn global_sectors_and_requests_match_ncu() {
    check(
        &["copy_stride_1", "copy_stride_2", "copy_stride_4", "copy_stride_8", "copy_stride_32", "copy_offset_1", "copy_offset_8", "transpose_naive", "transpose_padded", "vector_add"],
        &[
            "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
            "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
            "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
        ],
    );
}

/// ncu's L1 hit rate counts a store to a sector already in the L1 as a hit and divides by the
/// sectors of loads and stores (`l1.store_allocate`): saxpy's stores of y hit the lines its
/// loads brought (33.33%), copy_offset_1's loads hit 9.72% over loads and stores, and the
/// mbarrier kernels' second store of a word hits (50%). Counting loads alone gave 0, 17.5 and 0.
#[test]
fn l1_hit_rate_counts_stores_as_ncu_does() {
    let ds = dataset();
    let cfg = warpsim_sim::presets::preset("hopper-h200").unwrap();
    let c = "l1tex__t_sector_hit_rate.pct";
    for name in ["saxpy", "copy_offset_1", "mbarrier_trywait", "chase_l1"] {
        let hw = ds.workloads.iter().find(|w| w.name == name).unwrap().counters[c];
        let sim = warpsim_sim::launch::run_timed(&Workload::bundled(name).unwrap(), &cfg, 1).unwrap().timing.unwrap().counters[c];
        assert!((hw - sim).abs() < 0.05, "{name}: H200 {hw}%, simulated {sim}%");
    }
}

/// ncu's per-resource occupancy limits for every workload of the dataset: CTA slots, warps
/// (and threads), and registers (warps granted per sub-partition). The shared-memory limit is
/// left out: it depends on the carve-out the driver picks, which is not yet modelled the
/// driver's way (the simulator picks the smallest carve-out that keeps the other limits).
#[test]
fn occupancy_limits_match_ncu_for_every_workload() {
    let ds = dataset();
    let cfg = warpsim_sim::presets::preset("hopper-h200").unwrap();
    let mut bad = Vec::new();
    for rec in &ds.workloads {
        let w = Workload::bundled(&rec.name).unwrap();
        let mut p = warpsim_sim::launch::prepare(&w, warpsim_sim::Gpu::of(&cfg)).unwrap();
        let k = p.kernel(0).unwrap();
        let occ = warpsim_sim::occupancy::occupancy(&cfg, k.dims.threads_per_cta(), p.launches[0].regs_per_thread, k.smem_bytes).unwrap();
        let l = occ.limits;
        for (c, sim) in [("blocks", l.blocks), ("warps", l.warps), ("registers", l.registers)] {
            let hw = rec.counters[&format!("launch__occupancy_limit_{c}")];
            if hw != f64::from(sim) {
                bad.push(format!("{}: launch__occupancy_limit_{c}: H200 {hw}, simulated {sim}", rec.name));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// `collect.sh` collects every counter of the simulator's registry and every warp state's ncu
/// metric, so each simulated counter has a measured one to line up with.
#[test]
fn collect_sh_collects_every_registered_counter() {
    use warpsim_sim::counters::{Counter, Stall};
    let script = include_str!("../collect.sh");
    let missing: Vec<&str> = Counter::ALL.iter().map(|c| c.name()).filter(|n| !script.contains(n)).collect();
    assert!(missing.is_empty(), "collect.sh does not collect {missing:?}");
    let stall_loop = script.split("for s in ").nth(1).and_then(|s| s.split("; do").next()).expect("collect.sh's stall loop");
    let states: Vec<&str> = stall_loop.split_whitespace().filter(|w| *w != "\\").collect();
    assert!(script.contains("smsp__average_warps_issue_stalled_%s_per_issue_active.ratio"));
    for s in Stall::ALL {
        assert!(states.contains(&s.name()), "collect.sh does not collect {}", s.ncu_metric());
    }
}
