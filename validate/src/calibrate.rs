//! Calibration: fits a preset to a hardware dataset and writes the calibrated preset.
//!
//! Two fits, both deterministic, so the same base preset and dataset always give the same file:
//!
//! 1. **Machine ops per PTX instruction class** (`machine_ops`, see `warpsim_isa::costs`). Every
//!    measured workload runs functionally once; its executed PTX instructions are counted per
//!    class (fused address arithmetic excluded, the per-warp prologue counted at instruction 0).
//!    Coordinate descent over integer counts then minimises the summed squared relative error
//!    of the predicted instruction count against ncu's `smsp__inst_executed.sum`, each class
//!    tried at every value from 0 to [`MAX_OPS`] and moved only when that lowers the objective
//!    by [`MIN_GAIN`], passes repeated until nothing changes. `other` stays 1 (the unit), classes
//!    no workload executes keep their defaults.
//! 2. **Latencies and bandwidths** ([`KNOBS`]), one at a time in a fixed order, each from the
//!    microbenchmark built to isolate it: the value in the knob's range whose simulated cycles
//!    match the measured ones (bisection on the mean log error, which every knob moves
//!    monotonically; the better of the last bracketing pair wins), in [`PASSES`] passes so that
//!    every knob is refitted once all the others are set.
//!    When no value in the range brings the error to zero (the model lacks the mechanism that
//!    sets those cycles), the datasheet value is kept and the preset says so.
//!
//! The output is the base preset's own TOML text with the fitted values edited in place
//! (toml_edit keeps every other line and comment), each fitted line's comment saying what it
//! was fitted to and what the datasheet value was, and a header naming the base and the dataset.

use rayon::prelude::*;
use toml_edit::{value, DocumentMut, Item, Table};
use warpsim_isa::costs::{program_classes, Class, CostTable};
use warpsim_sim::config::ArchConfig;
use warpsim_sim::presets::apply_overrides;
use warpsim_workloads::Workload;

use crate::correlate::Code;
use crate::dataset::{Dataset, RefStatus};
use crate::error::Error;

/// Largest machine-op count the fit tries for a class.
pub const MAX_OPS: u8 = 48;

/// Passes over [`KNOBS`]: a later knob moves an earlier knob's workload (a warmed L1 chase
/// still starts cold in the L2 and DRAM), so the second pass refits each with all the others set.
pub const PASSES: usize = 2;

/// Smallest relative drop of the fit's objective that moves a class off its current count.
pub const MIN_GAIN: f64 = 0.01;

/// A parameter fitted to microbenchmarks.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Knob {
    /// Key path in the preset.
    pub key: &'static str,
    /// Search range.
    pub lo: f64,
    pub hi: f64,
    /// The workloads whose cycles pin it.
    pub workloads: &'static [&'static str],
}

impl Knob {
    /// Whether the parameter is an integer (else a float rounded to 3 significant digits), as the
    /// parameter table declares it.
    pub fn integer(&self) -> bool {
        warpsim_sim::params::param(self.key).is_some_and(|p| p.ty == warpsim_sim::params::Ty::Int)
    }

    /// `v` as the preset writes the parameter (an integer parameter rounded).
    fn text(&self, v: f64) -> String {
        if self.integer() {
            format!("{}", v.round() as i64)
        } else {
            format!("{v}")
        }
    }
}

/// The fitted parameters, in fitting order (each fit sees the ones before it). Not fitted: the
/// FFMA and IMAD latencies. `ffma_lat`/`imad_lat` run a loop that ptxas unrolls 16 times where the
/// PTX unrolls it 4 times, so their cycles carry loop overhead the simulator issues 4 times as
/// often; fitting the latency to them would absorb that into a wrong latency (1 instead of the
/// 4.07 cycles measured in the literature). Nor `smem.wavefront_cycles`: `smem_stride_32` is bound
/// by the SM's one wavefront per cycle, so its cycles hardly move with it. The launch overhead is
/// pinned by four launch-bound kernels, not `launch_tiny` alone: a single warp's three lines land
/// near or far in the L2 by the placement hash, which moved its cycles by one far-hop (about 200)
/// and the fitted overhead of every small kernel with it. Nor `sm.cta_launch_latency`: it is
/// measured directly (`validate/data/h200/launch`: the cycles per CTA per SM of launch-bound
/// grids), where fitting it to `launch_wide` alone traded it against the launch overhead
/// (146 cycles and a 3159-cycle overhead; measured 160, the refitted overhead is 3139).
pub const KNOBS: [Knob; 13] = [
    Knob { key: "misc.launch_overhead", lo: 0.0, hi: 20000.0, workloads: &["launch_tiny", "vector_add", "saxpy", "copy_stride_1"] },
    Knob { key: "smem.latency", lo: 4.0, hi: 100.0, workloads: &["smem_stride_1"] },
    Knob { key: "l1.latency", lo: 8.0, hi: 200.0, workloads: &["chase_l1"] },
    Knob { key: "l2.hit_latency", lo: 50.0, hi: 480.0, workloads: &["chase_l2"] },
    Knob { key: "dram.latency", lo: 500.0, hi: 2000.0, workloads: &["chase_dram"] },
    Knob { key: "dram.bandwidth_gbs", lo: 200.0, hi: 10000.0, workloads: &["stream_copy_vec4"] },
    Knob { key: "l2.atomics_per_cycle_per_slice", lo: 0.02, hi: 8.0, workloads: &["atomic_global_1"] },
    Knob { key: "l2.atomic_sector_cycles", lo: 0.05, hi: 16.0, workloads: &["atomic_global_32"] },
    Knob { key: "misc.dsmem_latency", lo: 20.0, hi: 2000.0, workloads: &["dsmem_latency"] },
    Knob { key: "misc.mbarrier_latency", lo: 1.0, hi: 400.0, workloads: &["mbarrier_trywait"] },
    Knob { key: "misc.tma_latency", lo: 1.0, hi: 2000.0, workloads: &["tma_latency"] },
    Knob { key: "tensor.wgmma_base_latency", lo: 1.0, hi: 400.0, workloads: &["wgmma_latency"] },
    Knob { key: "tensor.wgmma_n_divisor", lo: 1.0, hi: 16.0, workloads: &["wgmma_latency_n128"] },
];

/// Every workload a knob is fitted to (the rest of the suite is held out).
pub fn calibration_workloads() -> Vec<&'static str> {
    KNOBS.iter().flat_map(|k| k.workloads.iter().copied()).collect()
}

/// One knob's result.
#[derive(Debug, Clone, PartialEq)]
pub struct KnobFit {
    pub knob: Knob,
    pub before: f64,
    pub after: f64,
    /// (workload, measured cycles, simulated cycles at `after`).
    pub cycles: Vec<(String, u64, u64)>,
    /// The error has one sign over the whole range (the model cannot match the measurement
    /// with this knob): `after` is the datasheet value, kept.
    pub at_bound: bool,
}

/// The machine-op fit's result.
#[derive(Debug, Clone, PartialEq)]
pub struct OpsFit {
    pub table: CostTable,
    /// Classes some workload executes (the others kept their defaults).
    pub fitted: Vec<Class>,
    /// Instruction-count MAPE (percent) before and after.
    pub mape_before: f64,
    pub mape_after: f64,
    pub workloads: usize,
}

/// A finished calibration.
#[derive(Debug, Clone)]
pub struct Calibration {
    pub ops: OpsFit,
    pub knobs: Vec<KnobFit>,
    pub config: ArchConfig,
    /// The calibrated preset's TOML text.
    pub text: String,
}

/// What `calibrate` is told.
pub struct Inputs<'a> {
    /// Base preset name and TOML text (the datasheet preset).
    pub base_name: &'a str,
    pub base_text: &'a str,
    /// Name of the calibrated preset.
    pub name: &'a str,
    pub dataset: &'a Dataset,
    /// How the header names the dataset (a path relative to the repository).
    pub dataset_label: &'a str,
    pub threads: usize,
    /// The code each simulation runs (`None`: the workload's PTX), as `correlate` takes it: the
    /// binary's `--isa sass` fits the knobs to the machine code ptxas makes. The machine-op fit is
    /// PTX mode's own (it sets how PTX instructions count) and always runs on the PTX.
    pub code: Code<'a>,
    /// How the header names the code (`ptx`, `sass`).
    pub isa: &'a str,
}

fn err(message: String) -> Error {
    Error::Workload { workload: "calibrate".into(), message }
}

/// Measured cycles of a workload that passed its reference check on the GPU.
fn measured(ds: &Dataset, name: &str) -> Result<u64, Error> {
    let w = ds.workloads.iter().find(|w| w.name == name).ok_or_else(|| err(format!("the dataset has no `{name}`")))?;
    match (w.cycles, w.check) {
        (Some(c), check) if c > 0 && check != RefStatus::Fail => Ok(c),
        _ => Err(err(format!("`{name}` has no usable measured cycles in the dataset"))),
    }
}

/// Simulated cycles of bundled workloads on `cfg`, in the order given.
fn simulate(cfg: &ArchConfig, names: &[&str], code: Code) -> Result<Vec<u64>, Error> {
    names
        .par_iter()
        .map(|n| {
            let mut w = Workload::bundled(n).map_err(|e| err(format!("{n}: {e}")))?;
            let o = match code(&mut w) {
                Some(p) => warpsim_sim::launch::run_timed_with(&w, cfg, 1, &warpsim_sim::watchdog::Limits::default(), p)?,
                None => warpsim_sim::launch::run_timed(&w, cfg, 1)?,
            };
            o.timing.map(|t| t.cycles).ok_or_else(|| err(format!("{n}: no timing result")))
        })
        .collect()
}

/// Executed PTX warp instructions per class for one workload (functional run).
fn class_counts(name: &str, nsm: u32) -> Result<[u64; Class::ALL.len()], Error> {
    let w = Workload::bundled(name).map_err(|e| err(format!("{name}: {e}")))?;
    let progs = warpsim_isa::load(&w.ptx, &w.ptx_path.display().to_string())?;
    let prog = progs.iter().find(|p| p.name == w.manifest.entry).ok_or_else(|| err(format!("{name}: no entry")))?;
    let o = warpsim_sim::launch::run_functional(&w, nsm)?;
    let executed = o.functional.map(|f| f.executed).unwrap_or_default();
    let mut n = [0u64; Class::ALL.len()];
    for (c, e) in program_classes(prog).into_iter().zip(&executed) {
        if let Some(c) = c {
            n[c as usize] += e;
        }
    }
    n[Class::Entry as usize] += executed.first().copied().unwrap_or(0);
    Ok(n)
}

/// Fits machine ops per class to ncu's instruction counts.
pub fn fit_machine_ops(ds: &Dataset, start: &CostTable, nsm: u32) -> Result<OpsFit, Error> {
    const INSTS: &str = "smsp__inst_executed.sum";
    let targets: Vec<(&str, f64)> = ds
        .workloads
        .iter()
        .filter(|w| w.check != RefStatus::Fail)
        .filter_map(|w| w.counters.get(INSTS).filter(|&&x| x > 0.0).map(|&x| (w.name.as_str(), x)))
        .collect();
    let counts: Vec<[u64; Class::ALL.len()]> =
        targets.par_iter().map(|(n, _)| class_counts(n, nsm)).collect::<Result<_, _>>()?;
    let predict = |t: &CostTable, n: &[u64; Class::ALL.len()]| -> f64 {
        Class::ALL.iter().map(|&c| n[c as usize] as f64 * f64::from(t.get(c))).sum()
    };
    let cost = |t: &CostTable| -> f64 {
        targets.iter().zip(&counts).map(|((_, m), n)| (predict(t, n) / m - 1.0).powi(2)).sum()
    };
    let mape = |t: &CostTable| -> f64 {
        100.0 * targets.iter().zip(&counts).map(|((_, m), n)| (predict(t, n) / m - 1.0).abs()).sum::<f64>() / targets.len().max(1) as f64
    };
    let fitted: Vec<Class> =
        Class::ALL.into_iter().filter(|&c| c != Class::Other && counts.iter().any(|n| n[c as usize] > 0)).collect();
    let mut table = start.clone();
    let mape_before = mape(&table);
    for _pass in 0..20 {
        let mut changed = false;
        for &c in &fitted {
            let keep = table.get(c);
            let now = cost(&table);
            let mut best = (now, keep);
            for v in 0..=MAX_OPS {
                table.set(c, v);
                let j = cost(&table);
                if j < best.0 - 1e-12 {
                    best = (j, v);
                }
            }
            // A class moves only for a real gain ([`MIN_GAIN`]), so classes the data barely
            // constrains keep their first-principles counts.
            let v = if best.0 < now * (1.0 - MIN_GAIN) { best.1 } else { keep };
            table.set(c, v);
            changed |= v != keep;
        }
        if !changed {
            break;
        }
    }
    Ok(OpsFit { mape_after: mape(&table), table, fitted, mape_before, workloads: targets.len() })
}

/// Mean log error of `knob`'s workloads with the knob at `v`.
fn knob_error(base: &toml::Value, knob: &Knob, v: f64, measured: &[u64], code: Code) -> Result<(f64, Vec<u64>), Error> {
    let text = knob.text(v);
    let cfg = apply_overrides(base, &[(knob.key, text.as_str())]).map_err(|e| err(format!("{}: {e}", knob.key)))?;
    let sim = simulate(&cfg, knob.workloads, code)?;
    let e = sim.iter().zip(measured).map(|(&s, &m)| (s.max(1) as f64 / m as f64).ln()).sum::<f64>() / measured.len() as f64;
    Ok((e, sim))
}

/// Rounds to 3 significant digits.
fn round3(x: f64) -> f64 {
    if x == 0.0 {
        return 0.0;
    }
    let scale = 10f64.powi(2 - x.abs().log10().floor() as i32);
    (x * scale).round() / scale
}

/// Fits one knob on the configuration `base` (a TOML value tree).
fn fit_knob(base: &toml::Value, knob: &Knob, ds: &Dataset, before: f64, code: Code) -> Result<KnobFit, Error> {
    let measured: Vec<u64> = knob.workloads.iter().map(|n| measured(ds, n)).collect::<Result<_, _>>()?;
    let snap = |v: f64| if knob.integer() { v.round() } else { round3(v) };
    let (mut lo, mut hi) = (knob.lo, knob.hi);
    let (mut elo, mut slo) = knob_error(base, knob, lo, &measured, code)?;
    let (mut ehi, mut shi) = knob_error(base, knob, hi, &measured, code)?;
    let at_bound = elo.signum() == ehi.signum();
    if !at_bound {
        // Bisection keeps the sign change between lo and hi.
        for _ in 0..64 {
            let mid = snap(if knob.integer() { ((lo + hi) / 2.0).floor() } else { (lo + hi) / 2.0 });
            if mid <= lo || mid >= hi {
                break;
            }
            let (em, sm) = knob_error(base, knob, mid, &measured, code)?;
            if em.signum() == elo.signum() {
                (lo, elo, slo) = (mid, em, sm);
            } else {
                (hi, ehi, shi) = (mid, em, sm);
            }
        }
    }
    let (after, sim) = if at_bound {
        // The model cannot match the measurement anywhere in the range: keep the datasheet value
        // rather than a bound that would distort every other workload.
        (before, knob_error(base, knob, before, &measured, code)?.1)
    } else if elo.abs() <= ehi.abs() {
        (lo, slo)
    } else {
        (hi, shi)
    };
    let cycles = knob.workloads.iter().zip(&measured).zip(sim).map(|((n, &m), s)| (n.to_string(), m, s)).collect();
    Ok(KnobFit { knob: *knob, before, after: snap(after), cycles, at_bound })
}

/// A value at a dotted key path of a TOML value tree.
fn value_at<'a>(v: &'a toml::Value, key: &str) -> Option<&'a toml::Value> {
    key.split('.').try_fold(v, |v, k| v.get(k))
}

/// Runs both fits on the base preset and renders the calibrated preset.
pub fn calibrate(inp: &Inputs, progress: &mut (dyn FnMut(&str) + Send)) -> Result<Calibration, Error> {
    let base_cfg = ArchConfig::from_toml(inp.base_text, inp.base_name).map_err(|e| err(e.to_string()))?;
    let pool = rayon::ThreadPoolBuilder::new().num_threads(inp.threads.max(1)).build().map_err(|e| err(e.to_string()))?;
    pool.install(|| {
        progress("fitting machine ops per PTX instruction class to ncu's instruction counts");
        let ops = fit_machine_ops(inp.dataset, &base_cfg.machine_ops.0, base_cfg.sm.count)?;
        progress(&format!(
            "  {} workloads: instruction-count MAPE {:.1}% -> {:.1}%",
            ops.workloads, ops.mape_before, ops.mape_after
        ));
        let mut cfg = base_cfg.clone();
        cfg.machine_ops.0 = ops.table.clone();
        let datasheet = base_cfg.to_value();
        let mut knobs = Vec::new();
        for pass in 1..=PASSES {
            progress(&format!("  pass {pass} of {PASSES} over the knobs"));
            knobs.clear();
            for knob in &KNOBS {
                let tree = cfg.to_value();
                let number = |t: &toml::Value| value_at(t, knob.key).and_then(|v| v.as_float().or(v.as_integer().map(|i| i as f64)));
                let before = number(&datasheet).ok_or_else(|| err(format!("no numeric `{}` in the preset", knob.key)))?;
                let fit = fit_knob(&tree, knob, inp.dataset, before, inp.code)?;
                let text = knob.text(fit.after);
                cfg = apply_overrides(&tree, &[(knob.key, text.as_str())]).map_err(|e| err(e.to_string()))?;
                let shown: Vec<String> = fit.cycles.iter().map(|(n, m, s)| format!("{n} {m} vs {s}")).collect();
                progress(&format!(
                    "  {:<40} {:>10} -> {:<10} ({}){}",
                    knob.key,
                    fit.before,
                    text,
                    shown.join(", "),
                    if fit.at_bound { " [no value in range matches: datasheet kept]" } else { "" }
                ));
                knobs.push(fit);
            }
        }
        cfg.name = inp.name.to_string();
        let text = render(inp, &ops, &knobs)?;
        let check = ArchConfig::from_toml(&text, inp.name).map_err(|e| err(format!("the calibrated preset does not load: {e}")))?;
        if check != cfg {
            return Err(err("the rendered preset differs from the fitted configuration".into()));
        }
        Ok(Calibration { ops, knobs, config: cfg, text })
    })
}

/// The base preset's text with the fitted values edited in.
fn render(inp: &Inputs, ops: &OpsFit, knobs: &[KnobFit]) -> Result<String, Error> {
    let mut doc: DocumentMut = inp.base_text.parse().map_err(|e| err(format!("{}: {e}", inp.base_name)))?;
    doc["name"] = value(inp.name);
    for k in knobs {
        let key = k.knob.key;
        let path: Vec<&str> = key.split('.').collect();
        let (last, tables) = path.split_last().ok_or_else(|| err(format!("empty key {key}")))?;
        let mut t: &mut Table = doc.as_table_mut();
        for seg in tables {
            t = t.get_mut(seg).and_then(Item::as_table_mut).ok_or_else(|| err(format!("no table for {key}")))?;
        }
        let old = t.get(last).and_then(|i| i.as_value()).ok_or_else(|| err(format!("no `{key}` in the base")))?;
        let old_comment = old.decor().suffix().and_then(|s| s.as_str()).unwrap_or("").trim().trim_start_matches('#').trim().to_string();
        let fitted: Vec<String> = k.cycles.iter().map(|(n, m, s)| format!("{n}: H200 {m} cyc, simulated {s}")).collect();
        let mut v = if k.knob.integer() { toml_edit::Value::from(k.after as i64) } else { toml_edit::Value::from(k.after) };
        let how = if k.at_bound { "not calibrated: no value in range matches" } else { "calibrated" };
        v.decor_mut().set_suffix(format!(
            "  # {how} [{}]; datasheet {}: {old_comment}",
            fitted.join("; "),
            fmt_num(k.before)
        ));
        t.insert(last, Item::Value(v));
    }
    let mut table = Table::new();
    for &c in &ops.fitted {
        let mut v = toml_edit::Value::from(i64::from(ops.table.get(c)));
        v.decor_mut().set_suffix(format!("  # calibrated; default {}", c.default_ops()));
        table.insert(c.name(), Item::Value(v));
    }
    table.decor_mut().set_prefix(format!(
        "\n# SASS instructions per PTX instruction class (warpsim_isa::costs), fitted to ncu's\n\
         # smsp__inst_executed.sum of {} workloads: instruction-count MAPE {:.1}% with the defaults,\n\
         # {:.1}% fitted. Classes no workload executes keep their defaults.\n",
        ops.workloads, ops.mape_before, ops.mape_after
    ));
    doc.as_table_mut().insert("machine_ops", Item::Table(table));
    let header = format!(
        "# GENERATED by `warpsim validate calibrate` from the `{}` preset and the H200 dataset\n\
         # {} ({} workloads); do not edit: change the base preset or the dataset and rerun\n\
         #   warpsim validate calibrate{} --out sim/presets/{}.toml\n\
         # (a test checks that this regenerates the file byte for byte). Each fitted key says\n\
         # what it was fitted to and keeps its datasheet value and source; every other line is the\n\
         # base preset's.\n#\n",
        inp.base_name,
        inp.dataset_label,
        inp.dataset.workloads.len(),
        if inp.isa == "ptx" { String::new() } else { format!(" --isa {}", inp.isa) },
        inp.name
    );
    Ok(header + &doc.to_string())
}

fn fmt_num(x: f64) -> String {
    if x.fract() == 0.0 {
        format!("{}", x as i64)
    } else {
        format!("{x}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding_and_knob_table() {
        assert_eq!(round3(3891.7), 3890.0);
        assert_eq!(round3(0.0123456), 0.0123);
        // Every knob names a key of the H200 preset, in range there.
        let v = warpsim_sim::presets::preset_value("hopper-h200").unwrap();
        for k in &KNOBS {
            let x = value_at(&v, k.key).unwrap_or_else(|| panic!("{} missing", k.key));
            assert!(x.is_integer() == k.integer() || x.is_float() != k.integer(), "{}", k.key);
            assert!(k.lo < k.hi && !k.workloads.is_empty(), "{}", k.key);
            for w in k.workloads {
                assert!(warpsim_workloads::bundled_names().contains(w), "{w}");
            }
            // The search range lies inside the range the parameter table allows.
            assert!(warpsim_sim::params::param(k.key).is_some(), "{} is not in the parameter table", k.key);
            for x in [k.lo, k.hi] {
                apply_overrides(&v, &[(k.key, k.text(x))]).unwrap_or_else(|e| panic!("{} = {x}: {e}", k.key));
            }
        }
    }
}
