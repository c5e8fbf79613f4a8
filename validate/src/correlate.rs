//! Correlation: the simulator against a hardware dataset, workload by workload.
//!
//! Every measured workload is simulated in time on the chosen preset (workloads in parallel,
//! each simulation deterministic), and compared on kernel cycles and on every counter both sides
//! name alike (Nsight Compute's names). The summary is what simulator papers report: MAPE,
//! median absolute error, Pearson r (of cycles and of log cycles), the worst workload, and the
//! instruction-count error that says how close the simulated instruction stream is to SASS.
//! Workloads whose GPU outputs failed their reference check are left out (their timing measured
//! something else), as are those the simulator cannot run; both are listed.
//!
//! Registers come as a user's run would get them: the manifest's figure, else ptxas's for the
//! preset's target (`warpsim-toolchain`), else the simulator's estimate. [`Registers::Compiler`]
//! drops the manifest's figure first, so the dataset measures what a user without a GPU gets; the
//! summary counts how often `launch__registers_per_thread` then equals ncu's.
//!
//! The code simulated is the caller's choice ([`Code`]): the workload's PTX, or a program the
//! caller gives per workload (the binary's `--isa sass`: the lowered machine code); each row says
//! which ran.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::Serialize;
use warpsim_reports::{Column, FigureSpec, ScatterOptions, ValidationPoint};
use warpsim_sim::config::ArchConfig;
use warpsim_toolchain::Toolchain;
use warpsim_workloads::{RegsSource, Workload};

use crate::dataset::{Dataset, RefStatus};
use crate::error::Error;

/// One workload compared.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Row {
    pub workload: String,
    pub measured_cycles: f64,
    pub simulated_cycles: f64,
    /// (simulated − measured) / measured, percent.
    pub cycle_error_pct: f64,
    pub measured_insts: Option<f64>,
    pub simulated_insts: Option<f64>,
    pub inst_error_pct: Option<f64>,
    /// Counters both sides report: (measured, simulated).
    pub counters: BTreeMap<String, (f64, f64)>,
    /// Where the simulated registers per thread came from (`manifest`, `ptxas 13.0.88, sm_90`,
    /// `estimated`).
    pub registers_source: String,
    /// The code simulated: `ptx` or `sass`.
    pub isa: &'static str,
}

/// Gives, per workload (registers already resolved), the program to simulate instead of the
/// workload's PTX, or `None` for the PTX.
pub type Code<'a> = &'a (dyn Fn(&mut Workload) -> Option<Vec<warpsim_isa::Program>> + Sync);

/// One counter over the workloads: errors relative to ncu's value, in percent, except for
/// percentages (`.pct` counters: hit rates, occupancy), whose error is the difference in points.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CounterSummary {
    pub counter: String,
    /// `%` (relative) or `points`.
    pub unit: &'static str,
    /// Workloads compared (a zero ncu value has no relative error and is not counted).
    pub n: usize,
    pub median_abs_error: f64,
    pub mean_abs_error: f64,
    pub worst: String,
    pub worst_error: f64,
}

/// The error of a simulated counter value against ncu's, in the counter's [`CounterSummary::unit`];
/// `None` where a relative error is undefined (ncu says 0).
pub fn counter_error(counter: &str, measured: f64, simulated: f64) -> Option<f64> {
    if counter.ends_with(".pct") {
        Some(simulated - measured)
    } else if measured == 0.0 {
        None
    } else {
        Some(rel(simulated, measured))
    }
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n == 0 {
        f64::NAN
    } else if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn counter_summaries(rows: &[Row]) -> Vec<CounterSummary> {
    let mut by: BTreeMap<&str, Vec<(&str, f64)>> = BTreeMap::new();
    for r in rows {
        for (k, &(m, s)) in &r.counters {
            if let Some(e) = counter_error(k, m, s) {
                by.entry(k).or_default().push((&r.workload, e));
            }
        }
    }
    by.into_iter()
        .map(|(k, errs)| {
            let mut abs: Vec<f64> = errs.iter().map(|e| e.1.abs()).collect();
            let worst = errs.iter().max_by(|a, b| a.1.abs().total_cmp(&b.1.abs())).copied().unwrap_or(("", 0.0));
            CounterSummary {
                counter: k.to_string(),
                unit: if k.ends_with(".pct") { "points" } else { "%" },
                n: errs.len(),
                mean_abs_error: abs.iter().sum::<f64>() / abs.len().max(1) as f64,
                median_abs_error: median(&mut abs),
                worst: worst.0.to_string(),
                worst_error: worst.1,
            }
        })
        .collect()
}

/// Which registers-per-thread figure the simulated runs use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Registers {
    /// The manifest's where it gives one (the bundled suite's: what ncu measured).
    Manifest,
    /// Never the manifest's: ptxas's for the preset's target, else the estimate.
    Compiler,
}

/// The headline numbers.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    pub arch: String,
    pub dataset: String,
    pub n: usize,
    pub mape_pct: f64,
    pub median_abs_error_pct: f64,
    pub pearson_r: f64,
    pub pearson_r_log: f64,
    pub worst: String,
    pub worst_error_pct: f64,
    pub within_25_pct: usize,
    pub inst_mape_pct: f64,
    /// MAPE over the workloads no calibration knob was fitted to (`calibrate::KNOBS`), and
    /// how many there are: the error on data the calibration did not see.
    pub held_out_mape_pct: f64,
    pub held_out_n: usize,
    /// Workloads whose simulated `launch__registers_per_thread` equals ncu's, of those where
    /// both are known.
    pub registers_equal: usize,
    pub registers_compared: usize,
    /// How many runs took their registers from each source.
    pub registers_sources: BTreeMap<String, usize>,
    /// How many runs simulated each code (`ptx`, `sass`).
    pub isa_runs: BTreeMap<&'static str, usize>,
    /// Workloads whose `smsp__inst_executed.sum` is within 2% of ncu's, of those compared.
    pub inst_within_2_pct: usize,
    pub inst_compared: usize,
    /// Every counter both sides report, summarised over the workloads.
    pub counters: Vec<CounterSummary>,
    /// (workload, why) of workloads left out.
    pub skipped: Vec<(String, String)>,
}

fn rel(sim: f64, hw: f64) -> f64 {
    if hw == 0.0 {
        0.0
    } else {
        100.0 * (sim - hw) / hw
    }
}

/// Simulates every usable workload of `ds` on `cfg` and compares.
pub fn correlate(ds: &Dataset, dataset_name: &str, cfg: &ArchConfig, registers: Registers, threads: usize, code: Code) -> (Vec<Row>, Summary) {
    let mut skipped = Vec::new();
    let mut todo = Vec::new();
    for w in &ds.workloads {
        match (w.cycles, w.check) {
            (None, _) => skipped.push((w.name.clone(), "no measured cycles".to_string())),
            (Some(_), RefStatus::Fail) => skipped.push((w.name.clone(), "the GPU's outputs failed the reference check".to_string())),
            (Some(c), _) => todo.push((w, c)),
        }
    }
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads.max(1)).build();
    let run = || -> Vec<Result<Row, (String, String)>> {
        todo.par_iter()
            .map(|(w, measured)| {
                let mut wl = Workload::bundled(&w.name).map_err(|e| (w.name.clone(), e.to_string()))?;
                if registers == Registers::Compiler {
                    for l in &mut wl.launches {
                        l.regs_per_thread = None;
                        l.regs_source = RegsSource::Estimate;
                    }
                }
                // An estimate is named in the row's `registers_source`; the notice line is the CLI's.
                let _ = warpsim_toolchain::resolve(&mut wl, cfg.compute_capability, Toolchain::from_env());
                let prog = code(&mut wl);
                let isa = if prog.is_some() { "sass" } else { "ptx" };
                let o = match prog {
                    Some(p) => warpsim_sim::launch::run_timed_with(&wl, cfg, 1, &warpsim_sim::watchdog::Limits::default(), p),
                    None => warpsim_sim::launch::run_timed(&wl, cfg, 1),
                }
                .map_err(|e| (w.name.clone(), e.to_string()))?;
                let t = o.timing.ok_or_else(|| (w.name.clone(), "no timing result".to_string()))?;
                let counters: BTreeMap<String, (f64, f64)> =
                    t.counters.iter().filter_map(|(k, v)| w.counters.get(k).map(|m| (k.clone(), (*m, *v)))).collect();
                let insts = counters.get(warpsim_sim::counters::Counter::InstExecuted.name()).copied();
                let measured = *measured as f64;
                Ok(Row {
                    workload: w.name.clone(),
                    measured_cycles: measured,
                    simulated_cycles: t.cycles as f64,
                    cycle_error_pct: rel(t.cycles as f64, measured),
                    measured_insts: insts.map(|x| x.0),
                    simulated_insts: insts.map(|x| x.1),
                    inst_error_pct: insts.map(|(m, s)| rel(s, m)),
                    counters,
                    registers_source: wl.launch().regs_source.to_string(),
                    isa,
                })
            })
            .collect()
    };
    let results = match pool {
        Ok(p) => p.install(run),
        Err(_) => run(),
    };
    let mut rows = Vec::new();
    for r in results {
        match r {
            Ok(row) => rows.push(row),
            Err(s) => skipped.push(s),
        }
    }
    let summary = summarize(&rows, cfg, dataset_name, skipped);
    (rows, summary)
}

fn summarize(rows: &[Row], cfg: &ArchConfig, dataset: &str, skipped: Vec<(String, String)>) -> Summary {
    let errs: Vec<f64> = rows.iter().map(|r| r.cycle_error_pct.abs()).collect();
    let n = rows.len();
    let mut sorted = errs.clone();
    sorted.sort_by(f64::total_cmp);
    let median = if n == 0 { f64::NAN } else if n % 2 == 1 { sorted[n / 2] } else { (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0 };
    let linear = rows.iter().map(|r| (r.measured_cycles, r.simulated_cycles));
    let log = rows.iter().map(|r| (r.measured_cycles.ln(), r.simulated_cycles.ln()));
    let worst = rows.iter().max_by(|a, b| a.cycle_error_pct.abs().total_cmp(&b.cycle_error_pct.abs()));
    let inst: Vec<f64> = rows.iter().filter_map(|r| r.inst_error_pct.map(f64::abs)).collect();
    let regs: Vec<(f64, f64)> = rows.iter().filter_map(|r| r.counters.get(warpsim_sim::counters::Counter::RegistersPerThread.name()).copied()).collect();
    let mut registers_sources = BTreeMap::new();
    let mut isa_runs = BTreeMap::new();
    for r in rows {
        *registers_sources.entry(r.registers_source.clone()).or_insert(0) += 1;
        *isa_runs.entry(r.isa).or_insert(0) += 1;
    }
    let fitted = crate::calibrate::calibration_workloads();
    let held: Vec<f64> =
        rows.iter().filter(|r| !fitted.contains(&r.workload.as_str())).map(|r| r.cycle_error_pct.abs()).collect();
    Summary {
        arch: cfg.name.clone(),
        dataset: dataset.to_string(),
        n,
        mape_pct: errs.iter().sum::<f64>() / n.max(1) as f64,
        median_abs_error_pct: median,
        pearson_r: warpsim_reports::pearson(linear).unwrap_or(f64::NAN),
        pearson_r_log: warpsim_reports::pearson(log).unwrap_or(f64::NAN),
        worst: worst.map_or(String::new(), |w| w.workload.clone()),
        worst_error_pct: worst.map_or(0.0, |w| w.cycle_error_pct),
        within_25_pct: errs.iter().filter(|e| **e <= 25.0).count(),
        inst_mape_pct: inst.iter().sum::<f64>() / inst.len().max(1) as f64,
        held_out_mape_pct: held.iter().sum::<f64>() / held.len().max(1) as f64,
        held_out_n: held.len(),
        registers_equal: regs.iter().filter(|(m, s)| m == s).count(),
        registers_compared: regs.len(),
        registers_sources,
        isa_runs,
        inst_within_2_pct: inst.iter().filter(|e| **e <= 2.0).count(),
        inst_compared: inst.len(),
        counters: counter_summaries(rows),
        skipped,
    }
}

/// Tidy CSV row: one (workload, metric) pair.
#[derive(Serialize)]
struct Tidy<'a> {
    workload: &'a str,
    metric: &'a str,
    measured: f64,
    simulated: f64,
    rel_error_pct: f64,
}

/// Writes `correlate.csv` (tidy), `correlate.json` (rows + summary) and the scatter plot
/// (`scatter.png`/`.svg`) into `dir`; returns the files written.
pub fn write(dir: &Path, rows: &[Row], s: &Summary) -> Result<Vec<PathBuf>, Error> {
    let io = |path: &Path, e: std::io::Error| Error::Io { path: path.to_path_buf(), source: e };
    std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
    let mut tidy = Vec::new();
    for r in rows {
        tidy.push(Tidy { workload: &r.workload, metric: "cycles", measured: r.measured_cycles, simulated: r.simulated_cycles, rel_error_pct: r.cycle_error_pct });
        for (k, (m, v)) in &r.counters {
            tidy.push(Tidy { workload: &r.workload, metric: k, measured: *m, simulated: *v, rel_error_pct: rel(*v, *m) });
        }
    }
    let csv_path = dir.join("correlate.csv");
    let report = |e: warpsim_reports::ReportError| Error::Merge(e.to_string());
    warpsim_reports::write_csv(&csv_path, &tidy).map_err(report)?;
    let json_path = dir.join("correlate.json");
    #[derive(Serialize)]
    struct All<'a> {
        summary: &'a Summary,
        rows: &'a [Row],
    }
    warpsim_reports::write_json(&json_path, &All { summary: s, rows }).map_err(report)?;
    let points: Vec<ValidationPoint> = rows
        .iter()
        .map(|r| ValidationPoint { workload: r.workload.clone(), measured_cycles: r.measured_cycles, simulated_cycles: r.simulated_cycles })
        .collect();
    let spec = FigureSpec::new(format!("{} vs {} ({} workloads)", s.arch, "H200", s.n), Column::Double)
        .x_label("measured cycles (H200, gpc__cycles_elapsed.max)")
        .y_label(format!("simulated cycles ({})", s.arch));
    let fig = warpsim_reports::validation_scatter(&points, &ScatterOptions { error_band: 0.25, label_outliers: true }, &spec, dir.join("scatter"))
        .map_err(report)?;
    Ok(vec![csv_path, json_path, fig.png, fig.svg])
}
