//! Reports: sweep results or one run turned into `warpsim-reports` figures and a summary page.
//!
//! For a sweep, everything is seen from a baseline design point (the sweep's `[baseline]`, the
//! report's `--baseline`, or each axis's first value on the first preset): for every numeric
//! swept key, cycles, GPU time relative to the baseline and IPC against that key with the other keys at the baseline (one line per
//! workload, raw and normalised to the baseline value); for every axis, presets included, the
//! speedup in GPU time (cycles / clock: presets' clocks differ) of each value over the baseline; the stall breakdown and a roofline of the baseline
//! point. The roofline's roofs come from the preset's configuration (FP32/FP64 pipes, tensor
//! cores, L2 and DRAM bandwidth at the SM clock); each workload sits at its simulated FLOPs (ncu's
//! `smsp__sass_thread_inst_executed_op_*` counters, tensor-core work not included) per DRAM byte.
//! For one run (`warpsim run --json`): the CTA timeline with occupancy, and the stall breakdown.
//! For a whole program (`warpsim exec --report FILE.json`): every launch on the device timeline,
//! one row per stream, labelled by demangled kernel name, and a table of the launches.
//! This module converts and lays out; the drawing is `warpsim-reports`'.

use std::collections::BTreeMap;
use std::path::Path;

use warpsim_reports::{
    launch_timeline, roofline, speedup_bars, stacked_bars, summary_page, sweep_curves, timeline, BarValue, Cell, Ceiling, Column, CtaSpan, FigureRef, LaunchSpan,
    FigureSpec, Machine, Occupancy, OccupancySample, ReportError, RooflinePoint, Section, StackSegment, SummaryPaths, SweepOptions,
    SweepPoint, Table, TableOptions, Timeline, Written, MAX_SERIES,
};
use warpsim_sim::config::ArchConfig;
use warpsim_sim::counters::Counter;
use warpsim_sim::flops;
use warpsim_sim::record::RunRecord;

use crate::results::{Results, ResultsError, Row, Status};
use crate::spec::same_value;

/// Why a report could not be made.
#[derive(Debug, thiserror::Error)]
pub enum ReportFailure {
    #[error(transparent)]
    Results(#[from] ResultsError),
    #[error(transparent)]
    Figure(#[from] ReportError),
    #[error("{0}")]
    Input(String),
}

/// Choices of the report command.
#[derive(Debug, Clone, Default)]
pub struct ReportOptions {
    /// Page title (default: the sweep's title).
    pub title: Option<String>,
    /// Overrides of the baseline point: `arch` or a swept key, with one of its values.
    pub baseline: Vec<(String, String)>,
}

/// What a report wrote.
#[derive(Debug, Clone)]
pub struct Report {
    pub page: SummaryPaths,
    pub figures: Vec<Written>,
}

/// Workloads per figure: lines of a sweep plot, groups of a bar chart.
const PER_FIGURE: usize = 10;

/// Makes the report of `input` — `results.csv`/`results.json` of a sweep, the JSON of
/// `warpsim run --json` or the report of `warpsim exec --report` — in `dir`. A CSV takes its sweep header (title, baseline, fixed
/// overrides) from the `results.json` beside it when there is one.
pub fn report(input: &Path, opts: &ReportOptions, dir: &Path) -> Result<Report, ReportFailure> {
    let is_json = input.extension().is_some_and(|e| e == "json");
    if is_json {
        let text = std::fs::read_to_string(input).map_err(|source| ResultsError::Io { path: input.into(), source })?;
        let v: serde_json::Value = serde_json::from_str(&text)
            .map_err(|e| ReportFailure::Input(format!("{}: not JSON: {e}", input.display())))?;
        if v.get("program").is_some() {
            return exec_report(&v, input, opts, dir);
        }
        if v.get("rows").is_none() {
            return run_report(&v, input, opts, dir);
        }
    }
    let mut results = Results::read(input)?;
    if results.header.is_none() {
        let beside = input.with_extension("json");
        if let Ok(j) = Results::read(&beside) {
            if j.rows.len() == results.rows.len() {
                results.header = j.header;
            }
        }
    }
    sweep_report(&results, opts, dir)
}

/// The baseline point: arch and one value per key.
struct Baseline {
    arch: String,
    values: Vec<String>,
}

impl Baseline {
    fn describe(&self, keys: &[String]) -> String {
        let mut parts = vec![format!("arch = {}", self.arch)];
        parts.extend(keys.iter().zip(&self.values).map(|(k, v)| format!("{k} = {v}")));
        parts.join(", ")
    }
}

/// What may differ from the baseline in a slice of the results.
#[derive(Clone, Copy, PartialEq)]
enum Free {
    Nothing,
    Arch,
    Key(usize),
}

fn baseline(results: &Results, opts: &ReportOptions) -> Result<Baseline, ReportFailure> {
    let first = results.rows.first().ok_or_else(|| ReportFailure::Input("the results have no rows".into()))?;
    let mut b = Baseline { arch: first.arch.clone(), values: first.values.clone() };
    let header = results.header.as_ref().map(|h| h.baseline.clone()).unwrap_or_default();
    for (k, v) in header.iter().chain(opts.baseline.iter().map(|(k, v)| (k, v))) {
        let (slot, seen): (&mut String, Vec<&String>) = if k == "arch" {
            (&mut b.arch, results.rows.iter().map(|r| &r.arch).collect())
        } else {
            let i = results.keys.iter().position(|x| x == k).ok_or_else(|| {
                ReportFailure::Input(format!("baseline `{k}` is not swept; the swept keys are: arch, {}", results.keys.join(", ")))
            })?;
            (&mut b.values[i], results.rows.iter().map(|r| &r.values[i]).collect())
        };
        *slot = seen
            .into_iter()
            .find(|x| same_value(x, v))
            .ok_or_else(|| ReportFailure::Input(format!("baseline `{k}` = {v} is not a value of the sweep")))?
            .clone();
    }
    Ok(b)
}

/// Whether `r` sits at the baseline on every axis but `free`.
fn on_slice(r: &Row, b: &Baseline, free: Free) -> bool {
    (free == Free::Arch || r.arch == b.arch) && r.values.iter().zip(&b.values).enumerate().all(|(i, (v, bv))| free == Free::Key(i) || v == bv)
}

/// The axis label of a configuration key, with the unit its name implies, and the factor its
/// values are plotted at: sizes of 1 MiB and more in KiB are shown in MiB.
fn key_axis(key: &str, values: &[f64]) -> (String, f64) {
    if let Some(stem) = key.strip_suffix("_kib").filter(|_| values.iter().all(|v| *v >= 1024.0)) {
        return (format!("{stem} (MiB)"), 1.0 / 1024.0);
    }
    let unit = [("_kib", "KiB"), ("_mhz", "MHz"), ("_gbs", "GB/s"), ("_bytes", "bytes"), ("latency", "cycles"), ("penalty", "cycles")]
        .iter()
        .find(|(suffix, _)| key.ends_with(suffix))
        .map(|(_, u)| *u);
    match unit {
        Some(u) => (format!("{key} ({u})"), 1.0),
        None => (key.to_string(), 1.0),
    }
}

fn file_stem(s: &str) -> String {
    s.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' }).collect()
}

/// Splits workloads into balanced chunks of at most [`PER_FIGURE`].
fn chunks(names: &[String]) -> Vec<&[String]> {
    let n = names.len().div_ceil(PER_FIGURE).max(1);
    let size = names.len().div_ceil(n).max(1);
    names.chunks(size).collect()
}

/// `" (part i of n)"` when a figure is split.
fn part(i: usize, n: usize) -> String {
    if n > 1 { format!(" (part {} of {n})", i + 1) } else { String::new() }
}

fn first_seen<'a>(it: impl Iterator<Item = &'a str>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for s in it {
        if !out.iter().any(|o| o == s) {
            out.push(s.to_string());
        }
    }
    out
}

fn ok(r: &Row) -> bool {
    r.m.status == Status::Ok && r.m.cycles.is_some()
}

/// Height of a bar chart over these workloads: room for their names, written vertically, and
/// for a legend of `series` entries above the plot (about five to a row).
fn bar_height(names: &[String], series: usize) -> f64 {
    let longest = names.iter().map(|n| n.chars().count()).max().unwrap_or(0) as f64;
    let legend_rows = if series > 1 { series.div_ceil(5) as f64 } else { 0.0 };
    (2.2 + 0.06 * longest + 0.2 * legend_rows).clamp(2.8, 5.0)
}

/// Whether values spread enough for a log axis.
fn wide(values: impl Iterator<Item = f64> + Clone, ratio: f64) -> bool {
    let lo = values.clone().fold(f64::INFINITY, f64::min);
    let hi = values.fold(0.0, f64::max);
    lo > 0.0 && hi / lo >= ratio
}

/// Writes the report of a sweep.
pub fn sweep_report(results: &Results, opts: &ReportOptions, dir: &Path) -> Result<Report, ReportFailure> {
    let title = opts
        .title
        .clone()
        .or_else(|| results.header.as_ref().map(|h| h.title.clone()).filter(|t| !t.is_empty()))
        .unwrap_or_else(|| "warpsim sweep".into());
    let mut r = SweepReport { results, b: baseline(results, opts)?, fig_dir: dir.join("figures"), figures: Vec::new() };
    let mut sections = vec![overview(results, &r.b)];
    for ki in 0..results.keys.len() {
        if let Some(s) = r.curves(ki)? {
            sections.push(s);
        }
    }
    let speedups = r.speedups()?;
    if !speedups.figures.is_empty() {
        sections.push(speedups);
    }
    sections.push(r.baseline_point()?);
    sections.push(Section { heading: "All runs".into(), tables: vec![runs_table(results)], ..Section::default() });
    let page = summary_page(dir, &title, &sections, &TableOptions { thousands: true })?;
    Ok(Report { page, figures: r.figures })
}

/// A sweep report being written: the results, the baseline and the figures so far.
struct SweepReport<'a> {
    results: &'a Results,
    b: Baseline,
    fig_dir: std::path::PathBuf,
    figures: Vec<Written>,
}

/// One metric of the sweep curves: file name, y label, value, normalised to the baseline.
/// Normalised figures divide GPU times, which stay comparable when a swept key moves the clock.
struct Metric {
    what: &'static str,
    y_label: &'static str,
    value: fn(&Row) -> Option<f64>,
    normalised: bool,
}

const METRICS: [Metric; 3] = [
    Metric { what: "cycles", y_label: "Cycles", value: |r| r.m.cycles.map(|c| c as f64), normalised: false },
    Metric { what: "time_norm", y_label: "GPU time / baseline time (×)", value: Row::time_us, normalised: true },
    Metric { what: "ipc", y_label: "IPC (inst. / active SM cycle)", value: |r| r.m.ipc, normalised: false },
];

impl Free {
    /// The row's value on this axis.
    fn value(self, r: &Row) -> &str {
        match self {
            Free::Key(i) => &r.values[i],
            _ => &r.arch,
        }
    }
}

impl SweepReport<'_> {
    /// What a figure holds fixed, drawn in its title so the image says it: the preset (unless
    /// the presets are the figure's axis), every other swept key at its baseline, and the
    /// sweep's `fixed` overrides.
    fn settings(&self, free: Free) -> String {
        let mut parts = Vec::new();
        if free != Free::Arch {
            parts.push(self.b.arch.clone());
        }
        let keys = self.results.keys.iter().zip(&self.b.values).enumerate();
        parts.extend(keys.filter(|(i, _)| free != Free::Key(*i)).map(|(_, (k, v))| format!("{k} = {v}")));
        if let Some(h) = &self.results.header {
            parts.extend(h.fixed.iter().map(|(k, v)| format!("{k} = {v}")));
        }
        parts.join(", ")
    }
}

impl<'a> SweepReport<'a> {
    /// Finished rows on the slice where only `free` leaves the baseline.
    fn slice(&self, free: Free) -> Vec<&'a Row> {
        let rows: &'a [Row] = &self.results.rows;
        rows.iter().filter(|r| ok(r) && on_slice(r, &self.b, free)).collect()
    }

    /// `<figures>/<name>` or, for part `i` of a split figure, `<name>_<i+1>`.
    fn stem(&self, name: &str, i: usize, parts: usize) -> std::path::PathBuf {
        self.fig_dir.join(if parts > 1 { format!("{name}_{}", i + 1) } else { name.to_string() })
    }

    fn add(&mut self, section: &mut Section, w: Written, caption: String) {
        section.figures.push(FigureRef::new(&w, caption));
        self.figures.push(w);
    }

    /// Cycles (raw and normalised) and IPC against swept key `ki`, if it is numeric with at
    /// least two values on its slice.
    fn curves(&mut self, ki: usize) -> Result<Option<Section>, ReportFailure> {
        let key = &self.results.keys[ki];
        let slice = self.slice(Free::Key(ki));
        let Some(xs) = slice.iter().map(|r| r.values[ki].parse::<f64>().ok()).collect::<Option<Vec<f64>>>() else { return Ok(None) };
        if first_seen(slice.iter().map(|r| r.values[ki].as_str())).len() < 2 {
            return Ok(None);
        }
        let (x_label, scale) = key_axis(key, &xs);
        let base_x = self.b.values[ki].parse::<f64>().unwrap_or(f64::NAN) * scale;
        let names = first_seen(slice.iter().map(|r| r.workload.as_str()));
        let groups = chunks(&names);
        let mut section = Section {
            heading: key.clone(),
            text: format!("Each line is one workload; {key} varies, everything else is at the baseline ({}).", self.b.describe_except(&self.results.keys, ki)),
            ..Section::default()
        };
        for m in &METRICS {
            for (gi, group) in groups.iter().enumerate() {
                let points: Vec<SweepPoint> = slice
                    .iter()
                    .filter(|r| group.contains(&r.workload))
                    .filter_map(|r| Some(SweepPoint { workload: r.workload.clone(), x: r.values[ki].parse::<f64>().ok()? * scale, y: (m.value)(r)? }))
                    .collect();
                // Normalising needs every line to have its baseline value.
                let has_base = |w: &str| points.iter().any(|p| p.workload == w && p.x == base_x && p.y > 0.0);
                let points: Vec<SweepPoint> = points.iter().filter(|p| !m.normalised || has_base(&p.workload)).cloned().collect();
                if points.is_empty() {
                    continue;
                }
                let mut spec = FigureSpec::new(self.settings(Free::Key(ki)), if group.len() > 4 { Column::Double } else { Column::Single }).x_label(x_label.clone()).y_label(m.y_label);
                spec.x_log = wide(xs.iter().copied(), 4.0);
                spec.y_log = m.what == "cycles" && wide(points.iter().map(|p| p.y), 30.0);
                let stem = self.stem(&format!("{}_vs_{}", m.what, file_stem(key)), gi, groups.len());
                let w = sweep_curves(&points, &SweepOptions { normalize_at: m.normalised.then_some(base_x) }, &spec, stem)?;
                let part = part(gi, groups.len());
                let arch = &self.b.arch;
                let caption = match m.what {
                    "time_norm" => format!("GPU time (cycles / clock.sm_mhz) against {key}, relative to {key} = {} (below 1: faster), on {arch}{part}.", self.b.values[ki]),
                    "ipc" => format!("IPC (machine instructions per active SM cycle, sm__inst_executed.avg.per_cycle_active) against {key}, on {arch}{part}."),
                    _ => format!("Simulated cycles against {key}, on {arch}{part}."),
                };
                self.add(&mut section, w, caption);
            }
        }
        Ok(Some(section))
    }

    /// For every axis (the presets, then each key) with 2 to [`MAX_SERIES`] + 1 values: the
    /// speedup of each value over the baseline's, the other axes at the baseline.
    fn speedups(&mut self) -> Result<Section, ReportFailure> {
        let mut section = Section { heading: "Speedups over the baseline".into(), ..Section::default() };
        let axes: Vec<Free> = std::iter::once(Free::Arch).chain((0..self.results.keys.len()).map(Free::Key)).collect();
        for axis in axes {
            let (name, base_value) = match axis {
                Free::Key(i) => (self.results.keys[i].clone(), self.b.values[i].clone()),
                _ => ("arch".to_string(), self.b.arch.clone()),
            };
            let slice = self.slice(axis);
            let values = first_seen(slice.iter().map(|r| axis.value(r)));
            if values.len() < 2 || values.len() > MAX_SERIES + 1 {
                continue;
            }
            let label = |v: &str| if axis == Free::Arch { v.to_string() } else { format!("{name} = {v}") };
            let base_label = label(&base_value);
            let with_base = first_seen(slice.iter().filter(|r| axis.value(r) == base_value).map(|r| r.workload.as_str()));
            let groups = chunks(&with_base);
            for (gi, group) in groups.iter().enumerate() {
                let bars: Vec<BarValue> = slice
                    .iter()
                    .filter(|r| group.contains(&r.workload))
                    .map(|r| BarValue { group: r.workload.clone(), series: label(axis.value(r)), value: r.time_us().unwrap_or(0.0) })
                    .collect();
                let presets = first_seen(slice.iter().filter(|r| group.contains(&r.workload)).map(|r| r.arch.as_str())).join(", ");
                let others = first_seen(bars.iter().map(|v| v.series.as_str()).filter(|s| *s != base_label));
                let title = match others.as_slice() {
                    [] => continue,
                    [one] => format!("{one} over {base_label}"),
                    _ => format!("Speedup over {base_label}"),
                };
                let settings = self.settings(axis);
                let title = if settings.is_empty() { title } else { format!("{title} ({settings})") };
                let spec = FigureSpec::new(title, Column::Double).height_in(bar_height(group, others.len())).y_label("Speedup (×)");
                let w = speedup_bars(&bars, &base_label, &spec, self.stem(&format!("speedup_{}", file_stem(&name)), gi, groups.len()))?;
                let caption = format!(
                    "Speedup in GPU time (baseline time / time, time = cycles / clock.sm_mhz, so presets with different clocks compare fairly) of each {name} over {base_label}{}; presets: {presets}; workloads missing at the baseline are left out.",
                    part(gi, groups.len())
                );
                self.add(&mut section, w, caption);
            }
        }
        Ok(section)
    }

    /// The stall breakdown and the roofline of the baseline point.
    fn baseline_point(&mut self) -> Result<Section, ReportFailure> {
        let at_base = self.slice(Free::Nothing);
        let mut section = Section { heading: "Baseline point".into(), text: format!("{}.", self.b.describe(&self.results.keys)), ..Section::default() };
        let names = first_seen(at_base.iter().map(|r| r.workload.as_str()));
        let groups = chunks(&names);
        for (gi, group) in groups.iter().enumerate() {
            let segments: Vec<StackSegment> = at_base
                .iter()
                .filter(|r| group.contains(&r.workload))
                .flat_map(|r| r.m.stalls.iter().map(|(s, v)| StackSegment { bar: r.workload.clone(), category: s.clone(), value: *v }))
                .collect();
            if segments.is_empty() {
                continue;
            }
            let spec = FigureSpec::new("", Column::Double).height_in(bar_height(group, 0)).y_label("Fraction of warp cycles");
            let w = stacked_bars(&segments, &spec, self.stem("stalls", gi, groups.len()))?;
            self.add(&mut section, w, format!("Warp states (Nsight Compute names) at the baseline point, on {}{}.", self.b.arch, part(gi, groups.len())));
        }
        match baseline_config(self.results, &self.b) {
            Ok(cfg) => {
                let (points, left_out) = roofline_points(&cfg, &at_base);
                let spec = FigureSpec::new("", Column::Double).height_in(3.4);
                let w = roofline(&machine(&cfg), &points, &spec, self.fig_dir.join("roofline"))?;
                let mut caption = format!("Roofline of {} at the baseline point: FP32+FP64+FP16 FLOPs (no tensor-core work) per DRAM byte.", cfg.name);
                if !left_out.is_empty() {
                    caption.push_str(&format!(" Not placed (no FP operations or no DRAM traffic): {}.", left_out.join(", ")));
                }
                self.add(&mut section, w, caption);
            }
            Err(why) => section.text.push_str(&format!("\n\nNo roofline: {why}.")),
        }
        Ok(section)
    }
}

impl Baseline {
    fn describe_except(&self, keys: &[String], except: usize) -> String {
        let mut parts = vec![format!("arch = {}", self.arch)];
        parts.extend(keys.iter().zip(&self.values).enumerate().filter(|(i, _)| *i != except).map(|(_, (k, v))| format!("{k} = {v}")));
        parts.join(", ")
    }
}

fn overview(results: &Results, b: &Baseline) -> Section {
    let count = |s: Status| results.rows.iter().filter(|r| r.m.status == s).count();
    let failed_checks = results.rows.iter().filter(|r| r.m.check == "fail").count();
    let mut text = format!(
        "{} runs: {} ok, {} unsupported on their preset, {} errors, {} failed their output check.",
        results.rows.len(),
        count(Status::Ok),
        count(Status::Unsupported),
        count(Status::Error),
        failed_checks
    );
    if let Some(h) = &results.header {
        let axes: Vec<String> = h.axes.iter().map(|a| format!("{} ∈ {{{}}}", a.key, a.values.join(", "))).collect();
        text.push_str(&format!("\n\nPresets: {}. Swept: {}.", h.archs.join(", "), if axes.is_empty() { "nothing".into() } else { axes.join("; ") }));
        if !h.fixed.is_empty() {
            let fixed: Vec<String> = h.fixed.iter().map(|(k, v)| format!("{k} = {v}")).collect();
            text.push_str(&format!(" Fixed: {}.", fixed.join(", ")));
        }
        text.push_str(&format!(" Simulator: {}; sweep id {}.", h.simulator, h.id));
    }
    text.push_str(&format!("\n\nBaseline point: {}.", b.describe(&results.keys)));
    let mut tables = Vec::new();
    let bad: Vec<&Row> = results.rows.iter().filter(|r| r.m.status != Status::Ok || r.m.check == "fail").collect();
    if !bad.is_empty() {
        let mut t = Table::new(["run", "arch"].into_iter().map(String::from).chain(results.keys.iter().cloned()).chain(["workload", "status", "why"].map(String::from)));
        for r in bad {
            let why = if r.m.status == Status::Ok { "output check failed".to_string() } else { r.m.message.clone() };
            let mut row: Vec<Cell> = vec![r.run.into(), r.arch.as_str().into()];
            row.extend(r.values.iter().map(|v| Cell::from(v.as_str())));
            row.extend([r.workload.as_str().into(), r.m.status.as_str().into(), why.into()]);
            t.rows.push(row);
        }
        tables.push(t);
    }
    Section { heading: "Overview".into(), text, tables, ..Section::default() }
}

fn runs_table(results: &Results) -> Table {
    let mut t = Table::new(
        ["run", "arch"]
            .into_iter()
            .map(String::from)
            .chain(results.keys.iter().cloned())
            .chain(["workload", "status", "check", "cycles", "clock (MHz)", "time (µs)", "IPC", "warp instructions"].map(String::from)),
    );
    for r in &results.rows {
        let mut row: Vec<Cell> = vec![r.run.into(), r.arch.as_str().into()];
        row.extend(r.values.iter().map(|v| Cell::from(v.as_str())));
        row.extend([
            r.workload.as_str().into(),
            r.m.status.as_str().into(),
            r.m.check.as_str().into(),
            r.m.cycles.map_or(Cell::Empty, Cell::from),
            r.clock_mhz.map_or(Cell::Empty, |x| Cell::float(x, 1)),
            r.time_us().map_or(Cell::Empty, |x| Cell::float(x, 3)),
            r.m.ipc.map_or(Cell::Empty, |x| Cell::float(x, 3)),
            r.m.warp_instructions.map_or(Cell::Empty, Cell::from),
        ]);
        t.rows.push(row);
    }
    t
}

/// The configuration of the baseline point: its preset (or preset file) with the sweep's fixed
/// overrides and the baseline values.
fn baseline_config(results: &Results, b: &Baseline) -> Result<ArchConfig, String> {
    let base = if b.arch.ends_with(".toml") {
        let text = std::fs::read_to_string(&b.arch).map_err(|e| format!("cannot read {}: {e}", b.arch))?;
        ArchConfig::from_toml(&text, &b.arch).map_err(|e| e.to_string())?.to_value()
    } else {
        warpsim_sim::presets::preset_value(&b.arch).map_err(|e| e.to_string())?
    };
    let mut overrides: Vec<(String, String)> = results.header.as_ref().map(|h| h.fixed.clone().into_iter().collect()).unwrap_or_default();
    overrides.extend(results.keys.iter().cloned().zip(b.values.iter().cloned()));
    warpsim_sim::presets::apply_overrides(&base, &overrides).map_err(|e| e.to_string())
}

/// Peaks and bandwidths of a configuration, at its SM clock.
pub fn machine(cfg: &ArchConfig) -> Machine {
    let hz = cfg.clock.sm_mhz * 1e6;
    let per_sm = f64::from(cfg.sm.count) * f64::from(cfg.sm.sub_partitions);
    let mut compute = vec![Ceiling::new("FP32", per_sm * f64::from(cfg.pipes.fp32.lanes) * 2.0 * hz)];
    // Double precision arrived with compute capability 1.3 (GT200).
    if cfg.compute_capability >= [1, 3] {
        compute.push(Ceiling::new("FP64", per_sm * f64::from(cfg.pipes.fp64.lanes) * 2.0 * hz));
    }
    if cfg.features.tensor_cores {
        let v = f64::from(cfg.sm.count) * f64::from(cfg.tensor.fp16_fma_per_cycle) * 2.0 * hz;
        compute.push(Ceiling::new("FP16 tensor", v));
    }
    let l2 = f64::from(cfg.l2.slices) * cfg.l2.sectors_per_cycle_per_slice * warpsim_sim::coalescer::SECTOR as f64 * hz;
    let memory = vec![Ceiling::new("DRAM", cfg.dram.bandwidth_gbs * 1e9), Ceiling::new("L2", l2)];
    Machine { name: cfg.name.clone(), compute, memory }
}

/// FLOPs of a run from its FP counters.
fn flop_count(counters: &BTreeMap<String, f64>) -> f64 {
    flops::COUNTERS.iter().zip(flops::FLOPS_PER_INST).map(|(c, f)| counters.get(c.name()).copied().unwrap_or(0.0) * f).sum()
}

/// Roofline points of the baseline rows, and the workloads that cannot be placed.
fn roofline_points(cfg: &ArchConfig, rows: &[&Row]) -> (Vec<RooflinePoint>, Vec<String>) {
    let hz = cfg.clock.sm_mhz * 1e6;
    let (mut points, mut left_out) = (Vec::new(), Vec::new());
    for r in rows {
        let c = &r.m.counters;
        let flop = flop_count(c);
        let bytes = c.get(Counter::DramBytesRead.name()).copied().unwrap_or(0.0) + c.get(Counter::DramBytesWrite.name()).copied().unwrap_or(0.0);
        let seconds = r.m.cycles.unwrap_or(0) as f64 / hz;
        if flop > 0.0 && bytes > 0.0 && seconds > 0.0 {
            points.push(RooflinePoint { workload: r.workload.clone(), flop_per_byte: flop / bytes, flops_per_s: flop / seconds });
        } else {
            left_out.push(r.workload.clone());
        }
    }
    (points, left_out)
}

/// Active warps per SM over time, from the CTA spans.
fn occupancy(run: &RunRecord) -> Occupancy {
    let mut events: BTreeMap<(u32, u64), i64> = (0..run.num_sms).map(|sm| ((sm, 0), 0)).collect();
    for c in &run.ctas {
        *events.entry((c.sm, c.start)).or_default() += i64::from(run.warps_per_cta);
        *events.entry((c.sm, c.end)).or_default() -= i64::from(run.warps_per_cta);
    }
    let (mut samples, mut level, mut sm_now) = (Vec::new(), 0i64, u32::MAX);
    for ((sm, cycle), delta) in events {
        if sm != sm_now {
            (sm_now, level) = (sm, 0);
        }
        level += delta;
        samples.push(OccupancySample { sm, cycle, active_warps: level.max(0) as u32 });
    }
    Occupancy { max_warps_per_sm: run.max_warps_per_sm, samples }
}

fn run_report(v: &serde_json::Value, input: &Path, opts: &ReportOptions, dir: &Path) -> Result<Report, ReportFailure> {
    let run: RunRecord = serde_json::from_value(v.clone()).map_err(|e| {
        ReportFailure::Input(format!(
            "{}: neither sweep results nor the output of `warpsim run WORKLOAD --json` (timed, from this version): {e}",
            input.display()
        ))
    })?;
    let fig_dir = dir.join("figures");
    let arch = run.arch.clone();
    let tl = Timeline {
        num_sms: run.num_sms,
        ctas: run.ctas.iter().map(|c| CtaSpan { sm: c.sm, cta: c.cta, start_cycle: c.start, end_cycle: c.end }).collect(),
        occupancy: Some(occupancy(&run)),
    };
    let spec = FigureSpec::new("", Column::Double).height_in(4.0).x_label("Cycle").y_label("SM");
    let t = timeline(&tl, &spec, fig_dir.join("timeline"))?;
    let segments: Vec<StackSegment> =
        run.stalls.iter().map(|(s, v)| StackSegment { bar: run.workload.clone(), category: s.clone(), value: *v }).collect();
    let s = stacked_bars(&segments, &FigureSpec::new("", Column::Single).y_label("Fraction of warp cycles"), fig_dir.join("stalls"))?;
    let get = |k: Counter| run.counters.get(k.name()).copied().unwrap_or(0.0);
    let text = format!(
        "{} on {arch}: {} cycles = {:.3} µs at {} MHz, IPC {:.2} per SM, {} warp instructions, occupancy {:.1}% of peak warps ({} CTAs per SM, limited by {}); output check: {}.",
        run.workload,
        run.cycles,
        run.time_us,
        run.clock_mhz,
        get(Counter::IpcActive),
        run.warp_instructions,
        get(Counter::WarpsActivePct),
        run.occupancy.ctas_per_sm,
        run.occupancy.limiter,
        run.check.to_lowercase()
    );
    let mut counters = Table::new(["counter", "value"]);
    for (k, v) in &run.counters {
        counters.rows.push(vec![k.as_str().into(), if v.fract() == 0.0 && v.abs() < 1e15 { Cell::Int(*v as i128) } else { Cell::float(*v, 3) }]);
    }
    let sections = vec![
        Section {
            heading: "Timeline".into(),
            text,
            figures: vec![FigureRef::new(&t, format!("CTAs on each of the {} SMs over time, and active warps per SM.", run.num_sms))],
            ..Section::default()
        },
        Section {
            heading: "Stalls and counters".into(),
            figures: vec![FigureRef::new(&s, "Warp states (Nsight Compute names), as fractions of warp cycles.")],
            tables: vec![counters],
            ..Section::default()
        },
    ];
    let title = opts.title.clone().unwrap_or_else(|| format!("{} on {arch}", run.workload));
    let page = summary_page(dir, &title, &sections, &TableOptions { thousands: true })?;
    Ok(Report { page, figures: vec![t, s] })
}

/// A program's launches (`warpsim exec --report`): the device timeline and the launch table.
fn exec_report(v: &serde_json::Value, input: &Path, opts: &ReportOptions, dir: &Path) -> Result<Report, ReportFailure> {
    let r: warpsim_cudart::report::Report = serde_json::from_value(v.clone())
        .map_err(|e| ReportFailure::Input(format!("{}: not the report of `warpsim exec --report` (from this version): {e}", input.display())))?;
    if r.launches.is_empty() {
        return Err(ReportFailure::Input(format!("{}: `{}` launched no kernel", input.display(), r.program)));
    }
    let spans: Vec<LaunchSpan> = r.launches.iter().map(|l| LaunchSpan { stream: l.stream, kernel: l.kernel.clone(), start_us: l.start_us, time_us: l.time_us }).collect();
    let streams = spans.iter().map(|s| s.stream).max().unwrap_or(0) + 1;
    let spec = FigureSpec::new("", Column::Double).height_in((1.2 + 0.5 * streams as f64).min(6.0)).x_label("Device time (µs)").y_label("Stream");
    let t = launch_timeline(&spans, &spec, dir.join("figures").join("launches"))?;
    let (time, cycles) = r.totals();
    let mut table = Table::new(["#", "kernel", "stream", "grid", "block", "cycles", "start (µs)", "time (µs)"]);
    for (i, l) in r.launches.iter().enumerate() {
        table.rows.push(vec![
            Cell::Int(i as i128),
            l.kernel.as_str().into(),
            Cell::Int(l.stream as i128),
            format!("{:?}", l.grid).into(),
            format!("{:?}", l.block).into(),
            Cell::Int(i128::from(l.cycles)),
            Cell::float(l.start_us, 3),
            Cell::float(l.time_us, 3),
        ]);
    }
    let text = format!("`{}` on {}: {} kernel launches, {cycles} cycles, {time:.3} µs of kernel time.", r.program, r.arch, r.launches.len());
    let sections = vec![Section {
        heading: "Launches".into(),
        text,
        figures: vec![FigureRef::new(&t, format!("Every launch on the simulated device timeline, one row per stream ({streams}; 0 is the default stream)."))],
        tables: vec![table],
    }];
    let title = opts.title.clone().unwrap_or_else(|| format!("{} on {}", r.program, r.arch));
    let page = summary_page(dir, &title, &sections, &TableOptions { thousands: true })?;
    Ok(Report { page, figures: vec![t] })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axes_units_and_chunks() {
        assert_eq!(key_axis("l2.size_kib", &[1024.0, 65536.0]), ("l2.size (MiB)".to_string(), 1.0 / 1024.0));
        assert_eq!(key_axis("sm.smem_kib", &[100.0, 228.0]), ("sm.smem_kib (KiB)".to_string(), 1.0));
        assert_eq!(key_axis("dram.latency", &[1.0]).0, "dram.latency (cycles)");
        assert_eq!(key_axis("sm.count", &[1.0]).0, "sm.count");
        let names: Vec<String> = (0..23).map(|i| format!("w{i}")).collect();
        let sizes: Vec<usize> = chunks(&names).iter().map(|c| c.len()).collect();
        assert_eq!(sizes, [8, 8, 7]);
        assert_eq!(chunks(&names[..10]).len(), 1);
    }

    #[test]
    fn h200_roofs() {
        let m = machine(&warpsim_sim::presets::preset("hopper-h200").unwrap());
        let peak = |name: &str| m.compute.iter().chain(&m.memory).find(|c| c.name == name).unwrap().value;
        // 132 SMs × 128 FP32 lanes × 2 FLOP × the preset's clock.
        let hz = warpsim_sim::presets::preset("hopper-h200").unwrap().clock.sm_mhz * 1e6;
        assert_eq!(peak("FP32"), 132.0 * 128.0 * 2.0 * hz);
        assert_eq!(peak("FP64"), peak("FP32") / 2.0);
        // The calibrated DRAM bandwidth is what a 64 MiB copy sustains (2.57 TB/s).
        assert!(peak("DRAM") > 2e12 && peak("L2") > peak("DRAM"));
        let g80 = machine(&warpsim_sim::presets::preset("tesla-g80").unwrap());
        let names: Vec<&str> = g80.compute.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["FP32"], "G80: no FP64, no tensor cores");
    }

    #[test]
    fn occupancy_follows_the_cta_spans() {
        use warpsim_sim::engine::CtaSpan as Span;
        use warpsim_sim::record::{OccupancyRecord, SpillBytes};
        let run = RunRecord {
            workload: "w".into(),
            arch: "hopper-h200".into(),
            grid: [2, 1, 1],
            block: [256, 1, 1],
            num_sms: 2,
            max_warps_per_sm: 64,
            warps_per_cta: 8,
            registers_per_thread: 16,
            registers_source: "estimated".into(),
            spills: SpillBytes { store_bytes: 0, load_bytes: 0, stack_bytes: 0 },
            ctas: vec![Span { sm: 0, cta: 0, start: 10, end: 50 }, Span { sm: 0, cta: 1, start: 20, end: 50 }],
            cycles: 100,
            clock_mhz: 1980.0,
            time_us: 100.0 / 1980.0,
            counters: BTreeMap::new(),
            stalls: BTreeMap::new(),
            warp_instructions: 1,
            sim_seconds: 0.0,
            occupancy: OccupancyRecord { ctas_per_sm: 2, limiter: "threads".into() },
            check: "Pass".into(),
            launches: Vec::new(),
        };
        let samples: Vec<(u32, u64, u32)> = occupancy(&run).samples.iter().map(|s| (s.sm, s.cycle, s.active_warps)).collect();
        assert_eq!(samples, [(0, 0, 0), (0, 10, 8), (0, 20, 16), (0, 50, 0), (1, 0, 0)]);
    }
}
