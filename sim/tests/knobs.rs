//! No dead knobs: every numeric key of the parameter table, halved and doubled (within its
//! range) on a workload chosen for it, changes the run — its cycles, a counter, or the launch's
//! admission (a limit that now refuses the launch). A key the timing model does not read says
//! so in [`NOT_TIMED`] with the reason; a new numeric key without a row fails the test, so a
//! parameter cannot be added that no model honours. Workloads are bundled ones, or
//! `tests/knobs/ops.toml` for operations the suite does not time (f64 division and square root,
//! `div.approx.f32`, 64-bit integer operations, f16x2 FMAs, returning shared atomics, an MMA
//! chain, one contended global word, device printf).

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::{Arc, Mutex};

use rayon::prelude::*;
use warpsim_sim::params::{self, Ty};
use warpsim_sim::presets;
use warpsim_workloads::Workload;

/// Key, preset, workload, and overrides the key needs to matter or to move within its rules
/// (`sm.two_level_active` only under the two-level scheduler; `sm.smem_kib` must be the last
/// carve-out unless there are none).
type Row = (&'static str, &'static str, &'static str, &'static [(&'static str, &'static str)]);

/// A base run's preset, workload and overrides.
type BaseKey = (&'static str, &'static str, &'static [(&'static str, &'static str)]);

const H200: &str = "hopper-h200";
const OPS: &str = "tests/knobs/ops.toml";

const ROWS: &[Row] = &[
    ("clock.sm_mhz", H200, "vector_add", &[]),
    ("sm.count", H200, "vector_add", &[]),
    ("sm.gpcs", H200, "vector_add", &[]),
    ("sm.sms_per_tpc", H200, "matmul_tiled32", &[]),
    ("sm.lone_sms", H200, "matmul_tiled32", &[]),
    ("sm.sub_partitions", H200, "vector_add", &[]),
    ("sm.issue_width", H200, "vector_add", &[]),
    ("sm.max_warps", H200, "vector_add", &[]),
    ("sm.max_ctas", H200, "vector_add", &[]),
    ("sm.max_threads", H200, "vector_add", &[]),
    ("sm.registers", H200, "vector_add", &[]),
    ("sm.reg_alloc_unit", H200, "sfu_sin", &[]),
    ("sm.max_regs_per_thread", H200, "ws_wgmma_gemm", &[]),
    ("sm.smem_kib", H200, "occ_smem_2_per_sm", &[("sm.smem_carveouts_kib", "[]"), ("sm.smem_per_cta_kib", "110")]),
    ("sm.smem_per_cta_kib", H200, "ws_wgmma_gemm", &[]),
    ("sm.smem_reserved_per_cta", H200, "gather_1m", &[]),
    ("sm.smem_alloc_unit", H200, "reduce_shuffle", &[]),
    ("sm.unified_l1_kib", H200, "gather_1m", &[]),
    ("sm.two_level_active", H200, "gather_1m", &[("sm.scheduler", "two-level")]),
    ("sm.cta_launch_latency", H200, "vector_add", &[]),
    ("pipes.fp32.lanes", H200, "sfu_sin", &[]),
    ("pipes.fp32.latency", H200, "ffma_lat", &[]),
    ("pipes.int.lanes", H200, "ffma_tput", &[]),
    ("pipes.int.latency", H200, "imad_lat", &[]),
    ("pipes.imul.lanes", H200, "imad_tput", &[]),
    ("pipes.imul.latency", H200, "imad_lat", &[]),
    ("pipes.fp64.lanes", H200, OPS, &[]),
    ("pipes.fp64.latency", H200, "micro_dfma", &[]),
    ("pipes.fp16.lanes", H200, OPS, &[]),
    ("pipes.fp16.latency", H200, "micro_hfma2", &[]),
    ("pipes.sfu.lanes", H200, "sfu_sin", &[]),
    ("pipes.sfu.latency", H200, "micro_sin", &[]),
    ("pipes.conv.lanes", H200, "mma_gemm", &[]),
    ("pipes.conv.latency", H200, "micro_cvt", &[]),
    ("pipes.alu.lanes", H200, "vector_add", &[]),
    ("pipes.alu.latency", H200, "vector_add", &[]),
    ("pipes.branch.lanes", H200, "imad_tput", &[]),
    ("pipes.warp.lanes", H200, "reduce_shuffle", &[]),
    ("pipes.warp.latency", H200, "micro_shfl", &[]),
    ("pipes.lsu.lanes", H200, "micro_smem_bw_16", &[]),
    ("pipes.tensor.latency", H200, OPS, &[]),
    ("tensor.fp16_fma_per_cycle", H200, "mma_gemm", &[]),
    ("tensor.wgmma_base_latency", H200, "wgmma_gemm", &[]),
    ("tensor.wgmma_n_divisor", H200, "wgmma_gemm", &[]),
    ("smem.banks", H200, "smem_stride_2", &[]),
    ("smem.bank_bytes", H200, "smem_stride_2", &[]),
    ("smem.latency", H200, "smem_stride_2", &[]),
    ("smem.wavefront_cycles", H200, "smem_stride_4", &[]),
    ("smem.bank_cycles", H200, "smem_stride_4", &[]),
    ("smem.wide_bytes_per_cycle", H200, "micro_smem_bw_16", &[]),
    ("l1.sector", H200, "gather_1m", &[]),
    ("l1.assoc", H200, "gather_1m", &[]),
    ("l1.latency", H200, "micro_chase_l1", &[]),
    ("l1.mshrs", H200, "gather_1m", &[]),
    ("l1.sectors_per_cycle", H200, "gather_1m", &[]),
    ("l1.lines_per_cycle", H200, "gather_1m", &[]),
    ("l1.request_cycles", H200, "gather_1m", &[]),
    ("l1.atomic_line_cycles", H200, "red_lines_4096_g16", &[]),
    ("l1.fixed_kib", "maxwell-gm200", "gather_1m", &[]),
    ("l2.slices", H200, "gather_1m", &[]),
    ("l2.placement_runs", H200, "red_lines_96", &[]),
    ("l2.slice_shared_line_bits", H200, "red_keyed_256", &[]),
    ("l2.assoc", H200, "l2_sweep_40m", &[]),
    ("l2.partitions", H200, "gather_1m", &[]),
    ("l2.promotion_bytes", H200, "gather_1m", &[]),
    ("l2.partial_ways", H200, "st_stride_2", &[]),
    ("l2.far_extra_latency", H200, "gather_1m", &[]),
    ("l2.size_kib", H200, "l2_sweep_40m", &[]),
    ("l2.hit_latency", H200, "gather_1m", &[]),
    ("l2.sectors_per_cycle_per_slice", H200, "gather_1m", &[]),
    ("l2.write_sectors_per_cycle_per_slice", H200, "mlp_st_l2_w8", &[]),
    ("l2.requests_per_cycle_per_slice", H200, "gather_1m", &[]),
    ("l2.mshrs_per_slice", H200, "gather_16m", &[]),
    ("l2.coalescer_merge", H200, "matmul_tiled32", &[]),
    ("l2.atomics_per_cycle_per_slice", H200, OPS, &[]),
    ("l2.atomic_request_cycles", H200, "atom_ret_4096", &[]),
    ("l2.atomic_partial_cycles", H200, "atom_lines_96", &[]),
    ("l2.atomic_sector_cycles", H200, "atomic_global_32", &[]),
    ("l2.atomic_far_passes", H200, "atom_ret_4096", &[]),
    ("l2.launch_read_sectors", H200, "vector_add", &[]),
    ("l2.code_read_sectors_per_instruction", H200, "vector_add", &[]),
    ("dram.channels", H200, "gather_1m", &[]),
    ("dram.banks", H200, "gather_16m", &[]),
    ("dram.row_bytes", H200, "gather_1m", &[]),
    ("dram.bandwidth_gbs", H200, "gather_1m", &[]),
    ("dram.latency", H200, "gather_1m", &[]),
    ("dram.row_miss_penalty", H200, "gather_1m", &[]),
    ("dram.activate_cycles", H200, "gather_1m", &[]),
    ("dram.reorder_window", H200, "gather_1m", &[]),
    ("dram.loaded_latency", H200, "ld_stride_1", &[]),
    ("dram.load_window", H200, "ld_stride_1", &[]),
    ("dram.burst_bytes", H200, "st_stride_32", &[]),
    ("misc.launch_overhead", H200, "vector_add", &[]),
    ("misc.printf_launch_cycles", H200, OPS, &[]),
    ("misc.printf_line_cycles", H200, OPS, &[]),
    ("misc.barrier_latency", H200, "reduce_shuffle", &[]),
    ("misc.atomic_extra_latency", H200, "atom_ret_4096", &[]),
    ("misc.smem_atomic_latency", H200, OPS, &[]),
    ("misc.const_latency", H200, "vector_add", &[]),
    ("misc.dsmem_latency", H200, "cluster_dsmem", &[]),
    ("misc.mbarrier_latency", H200, "tma_copy_double", &[]),
    ("misc.tma_latency", H200, "tma_copy_double", &[]),
    ("misc.cluster_barrier_latency", H200, "cluster_dsmem", &[]),
    ("misc.divergent_branch_cycles", H200, "divergent", &[]),
    ("misc.divergent_branch_issue_cycles", H200, "divergent", &[]),
    ("machine_ops.entry", H200, "vector_add", &[]),
    ("machine_ops.ld_param", H200, "vector_add", &[]),
    ("machine_ops.mov_special", H200, "vector_add", &[]),
    ("machine_ops.move", H200, "reduce_shuffle", &[]),
    ("machine_ops.cvta", H200, "vector_add", &[]),
    ("machine_ops.cvt_zero_extend", H200, "stencil5", &[]),
    ("machine_ops.cvt_sign_extend", H200, "stencil5", &[]),
    ("machine_ops.div_f32_approx", H200, OPS, &[]),
    ("machine_ops.div_f32", H200, "srad_coeffs", &[]),
    ("machine_ops.div_f64", H200, OPS, &[]),
    ("machine_ops.div_int", H200, "cluster_dsmem", &[]),
    ("machine_ops.div_int64", H200, OPS, &[]),
    ("machine_ops.sqrt_f32", H200, "row_l2_normalize", &[]),
    ("machine_ops.sqrt_f64", H200, OPS, &[]),
    ("machine_ops.int64", H200, "stencil5", &[]),
    ("machine_ops.shift64", H200, OPS, &[]),
    ("machine_ops.mul64", H200, OPS, &[]),
    ("machine_ops.setp64", H200, OPS, &[]),
    ("machine_ops.sfu_range_reduced", H200, "sfu_sin", &[]),
    ("machine_ops.sfu_denormal_guard", H200, "sfu_rsqrt", &[]),
    ("machine_ops.rsqrt_f64", H200, "nbody_f64_rsqrt", &[]),
    ("machine_ops.other", H200, "vector_add", &[]),
];

/// Numeric keys no timing model reads, and why (the parameter table says so too).
const NOT_TIMED: &[(&str, &str)] = &[
    ("pipes.tensor.lanes", "tensor throughput is tensor.fp16_fma_per_cycle; the lane count is shown only"),
    ("pipes.branch.latency", "a branch defines no register and the warp's next issue does not wait for it"),
];

/// Numeric keys only SASS mode reads; tests/run_cli.rs moves them with `--isa sass`.
const SASS_ONLY: &[&str] = &["pipes.lsu.latency", "sm.register_banks", "misc.mbarrier_wake_latency", "misc.indexed_branch_cycles", "misc.indexed_branch_split_cycles", "misc.indexed_branch_issue_cycles"];

/// What a run produced: cycles and counters, or the error that stopped it.
#[derive(PartialEq, Debug)]
enum Seen {
    Ran(u64, BTreeMap<String, String>),
    Refused(String),
}

fn workload(name: &str, cfg: &warpsim_sim::config::ArchConfig) -> Workload {
    let target = warpsim_sim::launch::target(cfg);
    if name.ends_with(".toml") {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(name);
        Workload::load_for(&path, &|_, _| Ok(()), &target).unwrap_or_else(|e| panic!("{name}: {e}"))
    } else {
        Workload::bundled_for(name, &target).unwrap_or_else(|e| panic!("{name}: {e}"))
    }
}

fn run(preset: &str, name: &str, sets: &[(String, String)]) -> Option<Seen> {
    let cfg = presets::preset_with_overrides(preset, sets).ok()?;
    let w = workload(name, &cfg);
    Some(match warpsim_sim::launch::run_timed(&w, &cfg, 1) {
        Ok(o) => {
            let t = o.timing.expect("a timed run has a timing result");
            Seen::Ran(t.cycles, t.counters.iter().map(|(k, v)| (k.to_string(), format!("{v}"))).collect())
        }
        Err(e) => Seen::Refused(e.to_string()),
    })
}

/// Half and double `value` (integers stay integers, at least 1 apart from 0).
fn moves(ty: Ty, value: &str) -> Vec<String> {
    match ty {
        Ty::Int => {
            let v: u64 = value.parse().unwrap_or_else(|_| panic!("integer {value}"));
            [v / 2, (v * 2).max(1)].iter().filter(|&&x| x != v).map(u64::to_string).collect()
        }
        Ty::Float => {
            let v: f64 = value.parse().unwrap_or_else(|_| panic!("float {value}"));
            if v == 0.0 { vec!["1.0".into()] } else { vec![format!("{}", v / 2.0), format!("{}", v * 2.0)] }
        }
        _ => Vec::new(),
    }
}

#[test]
fn every_numeric_key_moves_its_workload() {
    let numeric: Vec<&str> = params::table().iter().filter(|p| matches!(p.ty, Ty::Int | Ty::Float)).map(|p| p.key.as_str()).collect();
    let rows: HashMap<&str, &Row> = ROWS.iter().map(|r| (r.0, r)).collect();
    let untimed: HashMap<&str, &str> = NOT_TIMED.iter().copied().collect();
    let missing: Vec<&&str> = numeric.iter().filter(|k| !rows.contains_key(**k) && !untimed.contains_key(**k) && !SASS_ONLY.contains(k)).collect();
    assert!(missing.is_empty(), "numeric keys with no row in ROWS, NOT_TIMED or SASS_ONLY: {missing:?}");
    for (k, _) in NOT_TIMED {
        let p = params::param(k).unwrap_or_else(|| panic!("NOT_TIMED names no key {k}"));
        assert!(!p.timing(), "{k} is in NOT_TIMED but the table says the timing model reads it");
    }
    // One base run per (preset, workload, overrides), shared by the rows that use it.
    let bases: Mutex<HashMap<BaseKey, Arc<Seen>>> = Mutex::new(HashMap::new());
    let failures: Vec<String> = ROWS
        .par_iter()
        .filter_map(|&(key, preset, name, fixed)| {
            let p = params::param(key).unwrap_or_else(|| panic!("ROWS names no key {key}"));
            let with: Vec<(String, String)> = fixed.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
            let cfg = presets::preset_with_overrides(preset, &with).unwrap();
            let info = params::key_infos(Some(&cfg)).into_iter().find(|i| i.key == key).unwrap();
            let value = info.default.unwrap_or_else(|| panic!("{key} has no value in {preset}"));
            let cached = bases.lock().unwrap().get(&(preset, name, fixed)).cloned();
            let base = cached.unwrap_or_else(|| {
                let b = Arc::new(run(preset, name, &with).unwrap_or_else(|| panic!("{preset} with {with:?} does not validate")));
                bases.lock().unwrap().insert((preset, name, fixed), Arc::clone(&b));
                b
            });
            let tried: Vec<(String, Option<bool>)> = moves(p.ty, &value)
                .into_iter()
                .map(|v| {
                    let mut sets = with.clone();
                    sets.push((key.to_string(), v.clone()));
                    let moved = run(preset, name, &sets).map(|s| s != *base);
                    (v, moved)
                })
                .collect();
            (!tried.iter().any(|(_, m)| *m == Some(true))).then(|| format!("{key} on {name} ({preset}, {value}): unchanged at {tried:?} (None: out of range)"))
        })
        .collect();
    assert!(failures.is_empty(), "{} keys do not move their workload:\n{}", failures.len(), failures.join("\n"));
}
