//! `warpsim validate ...`: argument parsing and printing for the hardware loop. The work (the
//! CUDA runner, the dry run, the ncu merge) is in the warpsim-validate crate; validate/README.md
//! documents the dataset and validate/collect.sh the collection on a GPU machine.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use warpsim_validate::correlate::Registers;
use warpsim_validate::published::Published;
use warpsim_validate::{chain, run_all, Cuda, Dataset, DryRun, Options, RefStatus};

#[derive(Subcommand)]
pub enum ValidateCmd {
    /// Run workloads on GPU 0 through the CUDA driver (loaded at run time) and write a dataset.
    GpuRun(GpuRunArgs),
    /// Everything gpu-run does except the driver calls, the simulator standing in for the GPU.
    SelfCheck(SelfCheckArgs),
    /// Add ncu counters to a gpu-run dataset; writes FILE.json and FILE.csv.
    Merge(MergeArgs),
    /// Simulate every measured workload and compare cycles and counters with the dataset.
    Correlate(CorrelateArgs),
    /// Turn the ncu source pages `validate/sass.sh` collected into an executed-SASS dataset.
    SassImport(SassImportArgs),
    /// Simulate the papers' microbenchmark figures on their presets (group:micro) and compare:
    /// a per-preset table of published vs simulated, and one figure per generation.
    Published(PublishedArgs),
    /// Fit a preset's machine-op counts, latencies and bandwidths to the dataset; write the
    /// calibrated preset (`--out sim/presets/hopper-h200.toml` regenerates the shipped one).
    Calibrate(CalibrateArgs),
}

#[derive(Args)]
pub struct CalibrateArgs {
    /// The preset to start from (a name or a TOML file): its datasheet values are replaced.
    #[arg(long, default_value = "hopper-h200-datasheet")]
    base: String,
    /// Name of the calibrated preset.
    #[arg(long, default_value = "hopper-h200")]
    name: String,
    /// Hardware dataset (default: the newest `validate/data/h200/*.json` of this checkout).
    #[arg(long, value_name = "FILE.json")]
    data: Option<PathBuf>,
    /// Where the calibrated preset goes (default validate/out/NAME.toml).
    #[arg(long, value_name = "FILE.toml")]
    out: Option<PathBuf>,
    /// Simulations run in parallel (the result does not depend on it).
    #[arg(long, default_value_t = 2)]
    threads: usize,
    /// The code the knobs' microbenchmarks run as while they are fitted (`ptx`, or `sass`: see
    /// `warpsim run --isa`); the machine-op fit always counts PTX.
    #[arg(long, value_enum, default_value = "ptx")]
    isa: crate::isa_mode::Isa,
}

#[derive(Args)]
pub struct PublishedArgs {
    /// The published dataset: a directory of *.toml or one file (default: validate/data/published
    /// of this checkout).
    #[arg(long, value_name = "DIR|FILE.toml")]
    data: Option<PathBuf>,
    /// Only these presets (repeatable; default: every preset the dataset anchors).
    #[arg(long, value_name = "PRESET")]
    arch: Vec<String>,
    /// Where published.md, published.json and the figures go (nothing written without it).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Simulations run in parallel (results do not depend on it).
    #[arg(long, default_value_t = 2)]
    threads: usize,
}

#[derive(Args)]
pub struct SassImportArgs {
    /// `sass.sh`'s output directory (reads dynamic/chunk-K.csv and .log, K = 0, 1, ...).
    #[arg(long, value_name = "DIR")]
    dir: PathBuf,
    /// The dataset to write.
    #[arg(long, value_name = "FILE.json")]
    out: PathBuf,
    /// A provenance line to record in the dataset's notes (repeatable).
    #[arg(long)]
    note: Vec<String>,
}

#[derive(Args)]
pub struct CorrelateArgs {
    #[command(flatten)]
    arch: crate::ArchArgs,
    /// Hardware dataset (default: the newest `validate/data/h200/*.json` of this checkout).
    #[arg(long, value_name = "FILE.json")]
    data: Option<PathBuf>,
    /// Where the CSV, JSON and scatter plot go.
    #[arg(long, value_name = "DIR", default_value = "validate/out")]
    out: PathBuf,
    /// Workloads simulated in parallel (results do not depend on it).
    #[arg(long, default_value_t = 2)]
    threads: usize,
    /// Ignore the manifests' `regs_per_thread` (what ncu measured): registers come from ptxas for
    /// the preset's target, else the estimate, as for a user's kernel.
    #[arg(long)]
    no_manifest_registers: bool,
    /// The code to simulate (`ptx`, or `sass`: see `warpsim run --isa`); a workload SASS mode
    /// cannot run yet runs as PTX, counted in the summary.
    #[arg(long, value_enum, default_value = "sass")]
    isa: crate::isa_mode::Isa,
}

/// The newest dataset in the checkout's `validate/data/h200/`.
pub fn newest_dataset() -> Result<PathBuf> {
    Ok(Dataset::newest_in(&Path::new(env!("CARGO_MANIFEST_DIR")).join("validate/data/h200"))?)
}

#[derive(Args)]
pub struct Selection {
    /// Workloads to run: bundled names or manifest paths, comma-separated.
    #[arg(long, value_delimiter = ',', required_unless_present = "all", conflicts_with = "all")]
    workloads: Vec<String>,
    /// Every bundled workload (`warpsim workloads`).
    #[arg(long)]
    all: bool,
}

impl Selection {
    fn specs(&self) -> Vec<String> {
        if self.all {
            warpsim_workloads::bundled_names().into_iter().map(String::from).collect()
        } else {
            self.workloads.clone()
        }
    }
}

#[derive(Args)]
pub struct GpuRunArgs {
    #[command(flatten)]
    select: Selection,
    /// Write the dataset here.
    #[arg(long, value_name = "FILE.json")]
    out: Option<PathBuf>,
    /// Timed launches per workload, each after an L2 flush.
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..))]
    reps: u32,
    /// No timed launches: one launch per workload, outputs checked.
    #[arg(long)]
    no_timing: bool,
    /// Exactly one launch per workload (no L2 flush, no timing): the run to profile with ncu.
    #[arg(long)]
    profile_pass: bool,
    /// Do not compare the outputs with the simulator's functional run.
    #[arg(long)]
    no_sim: bool,
}

#[derive(Args)]
pub struct SelfCheckArgs {
    #[command(flatten)]
    select: Selection,
    /// Write the (dry-run) dataset here.
    #[arg(long, value_name = "FILE.json")]
    out: Option<PathBuf>,
}

#[derive(Args)]
pub struct MergeArgs {
    /// Dataset of the timed run (`gpu-run --out`).
    #[arg(long, value_name = "FILE.json")]
    run: PathBuf,
    /// Dataset of a run ncu profiled (`gpu-run --profile-pass --out`), giving the launch order;
    /// repeat for runs split over several processes, in the order of their --ncu files.
    /// Without it, the timed run's order is assumed.
    #[arg(long, value_name = "FILE.json")]
    profile: Vec<PathBuf>,
    /// `ncu --csv` output (details page) of a profiled run; repeatable, in order.
    #[arg(long, value_name = "FILE.csv")]
    ncu: Vec<PathBuf>,
    /// The merged dataset; the flat CSV goes next to it (same name, `.csv`).
    #[arg(long, value_name = "FILE.json")]
    out: PathBuf,
    /// A provenance line to record in the dataset's notes (repeatable).
    #[arg(long)]
    note: Vec<String>,
    /// Fold the merged workloads into this existing dataset (re-measured ones replace their
    /// records, new ones are added) instead of writing a dataset of their own.
    #[arg(long, value_name = "FILE.json")]
    update: Option<PathBuf>,
}

/// Prints one progress line and flushes, so a run under ncu or `tee` shows where it is.
fn progress(line: &str) {
    let mut o = std::io::stdout().lock();
    // A closed pipe stops the printing, not the run.
    let _ = writeln!(o, "{line}").and_then(|()| o.flush());
}

fn load(spec: &str) -> std::result::Result<warpsim_workloads::Workload, String> {
    crate::load_workload(spec).map_err(|e| format!("{e:#}"))
}

pub fn run(cmd: ValidateCmd) -> Result<()> {
    match cmd {
        ValidateCmd::GpuRun(a) => {
            let mut cuda = Cuda::open(&mut progress).map_err(|e| anyhow::anyhow!(chain(&e)))?;
            let reps = if a.no_timing || a.profile_pass { 0 } else { a.reps };
            let opts = Options { reps, compare_sim: !a.no_sim, profile_pass: a.profile_pass };
            let d = run_all(&mut cuda, &a.select.specs(), &load, &opts, &mut progress);
            finish(&d, a.out.as_deref())
        }
        ValidateCmd::SelfCheck(a) => {
            let opts = Options { reps: 0, compare_sim: true, profile_pass: false };
            let d = run_all(&mut DryRun::default(), &a.select.specs(), &load, &opts, &mut progress);
            finish(&d, a.out.as_deref())
        }
        ValidateCmd::Merge(a) => merge(a),
        ValidateCmd::Correlate(a) => correlate(a),
        ValidateCmd::SassImport(a) => sass_import(a),
        ValidateCmd::Calibrate(a) => calibrate(a),
        ValidateCmd::Published(a) => published(a),
    }
}

fn published(a: PublishedArgs) -> Result<()> {
    use warpsim_validate::published;
    let data = Published::load(&a.data.unwrap_or_else(published::default_dir))?;
    let rows = published::compare(&data, &a.arch, a.threads)?;
    let table = published::markdown(&rows);
    print!("{table}");
    if let Some(dir) = &a.out {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        std::fs::write(dir.join("published.md"), &table).with_context(|| format!("cannot write {}", dir.display()))?;
        let json = serde_json::to_string_pretty(&rows)?;
        std::fs::write(dir.join("published.json"), json).with_context(|| format!("cannot write {}", dir.display()))?;
        for stem in published::figures(&rows, dir)? {
            eprintln!("wrote {}.png / .svg", stem.display());
        }
    }
    Ok(())
}

fn calibrate(a: CalibrateArgs) -> Result<()> {
    let (base_name, base_text) = match warpsim_sim::presets::preset_source(&a.base) {
        Some(text) => (a.base.clone(), text.to_string()),
        None => (a.base.clone(), std::fs::read_to_string(&a.base).with_context(|| format!("`{}` is neither a preset nor a readable file", a.base))?),
    };
    let path = match a.data {
        Some(p) => p,
        None => newest_dataset()?,
    };
    let dataset = Dataset::load(&path)?;
    let cc = warpsim_sim::config::ArchConfig::from_toml(&base_text, &base_name)?.compute_capability;
    let code = crate::isa_mode::quiet(cc, a.isa);
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let label = path.canonicalize().ok().and_then(|p| p.strip_prefix(root).ok().map(Path::to_path_buf)).unwrap_or_else(|| path.clone());
    let inputs = warpsim_validate::calibrate::Inputs {
        base_name: &base_name,
        base_text: &base_text,
        name: &a.name,
        dataset: &dataset,
        dataset_label: &label.display().to_string(),
        threads: a.threads,
        code: &code,
        isa: a.isa.name(),
    };
    let c = warpsim_validate::calibrate::calibrate(&inputs, &mut progress)?;
    let out = a.out.unwrap_or_else(|| PathBuf::from(format!("validate/out/{}.toml", a.name)));
    if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    std::fs::write(&out, &c.text).with_context(|| format!("cannot write {}", out.display()))?;
    out!("wrote {} ({} parameters and {} instruction classes fitted)", out.display(), c.knobs.len(), c.ops.fitted.len());
    Ok(())
}

fn sass_import(a: SassImportArgs) -> Result<()> {
    let mut chunks = Vec::new();
    for k in 0.. {
        let csv = a.dir.join(format!("dynamic/chunk-{k}.csv"));
        if !csv.exists() {
            break;
        }
        let read = |p: &Path| std::fs::read_to_string(p).with_context(|| format!("cannot read {}", p.display()));
        chunks.push((csv.display().to_string(), read(&csv)?, read(&csv.with_extension("log"))?));
    }
    if chunks.is_empty() {
        bail!("no {}/dynamic/chunk-0.csv", a.dir.display());
    }
    let d = warpsim_validate::sass::import(&chunks, a.note)?;
    for w in &d.workloads {
        out!("{:<30} {:<24} {:>12} warp instructions", w.name, w.kernel, w.executed());
    }
    d.save(&a.out)?;
    out!("wrote {} ({} workloads)", a.out.display(), d.workloads.len());
    Ok(())
}

fn correlate(a: CorrelateArgs) -> Result<()> {
    let cfg = crate::arch_config(&a.arch)?;
    let path = match a.data {
        Some(p) => p,
        None => newest_dataset()?,
    };
    let ds = Dataset::load(&path)?;
    let name = path.display().to_string();
    let registers = if a.no_manifest_registers { Registers::Compiler } else { Registers::Manifest };
    let code = crate::isa_mode::quiet(cfg.compute_capability, a.isa);
    let (mut rows, s) = warpsim_validate::correlate::correlate(&ds, &name, &cfg, registers, a.threads, &code);
    rows.sort_by(|x, y| y.cycle_error_pct.abs().total_cmp(&x.cycle_error_pct.abs()));
    out!("{:<28} {:>12} {:>12} {:>8}   {:>12} {:>12} {:>8}", "workload", "measured", "simulated", "error", "inst (ncu)", "inst (sim)", "error");
    for r in &rows {
        let f = |x: Option<f64>| x.map_or("-".to_string(), |v| format!("{v:.0}"));
        let e = r.inst_error_pct.map_or("-".to_string(), |v| format!("{v:+.1}%"));
        out!(
            "{:<28} {:>12.0} {:>12.0} {:>+7.1}%   {:>12} {:>12} {:>8}",
            r.workload,
            r.measured_cycles,
            r.simulated_cycles,
            r.cycle_error_pct,
            f(r.measured_insts),
            f(r.simulated_insts),
            e
        );
    }
    for (w, why) in &s.skipped {
        out!("skipped {w}: {why}");
    }
    out!(
        "{} vs {}: {} workloads, MAPE {:.1}% ({:.1}% over the {} not used by calibrate), median |error| {:.1}%, Pearson r {:.4} (log cycles {:.4}), worst {} {:+.1}%, {} within ±25%; instruction-count MAPE {:.1}%",
        s.arch,
        s.dataset,
        s.n,
        s.mape_pct,
        s.held_out_mape_pct,
        s.held_out_n,
        s.median_abs_error_pct,
        s.pearson_r,
        s.pearson_r_log,
        s.worst,
        s.worst_error_pct,
        s.within_25_pct,
        s.inst_mape_pct
    );
    out!("{:<66} {:>4} {:>14} {:>12}  worst", "counter (error vs ncu: % relative; points for .pct)", "n", "median |err|", "mean |err|");
    for c in s.counters.iter().filter(|c| !c.counter.contains("average_warps_issue_stalled")) {
        let u = if c.unit == "points" { " pt" } else { "%" };
        out!("{:<66} {:>4} {:>12.1}{u:<2} {:>10.1}{u:<2}  {} {:+.1}{u}", c.counter, c.n, c.median_abs_error, c.mean_abs_error, c.worst, c.worst_error);
    }
    let runs: Vec<String> = s.isa_runs.iter().map(|(k, n)| format!("{n} {k}")).collect();
    out!("code simulated: {}; smsp__inst_executed.sum within 2% of ncu on {} of {}", runs.join(", "), s.inst_within_2_pct, s.inst_compared);
    let sources: Vec<String> = s.registers_sources.iter().map(|(k, n)| format!("{n} {k}")).collect();
    out!(
        "registers per thread: {}; launch__registers_per_thread equals ncu's on {} of {}",
        sources.join(", "),
        s.registers_equal,
        s.registers_compared
    );
    if s.registers_sources.contains_key("estimated") {
        let tc = warpsim_toolchain::Toolchain::from_env();
        let why = if tc.disabled { "WARPSIM_CUDA=none" } else { "no ptxas for the target" };
        out!("note: registers estimated from the PTX ({why}); for ptxas's figures: {}", warpsim_toolchain::discover::INSTALL_HINT);
    }
    let files = warpsim_validate::correlate::write(&a.out, &rows, &s)?;
    for f in files {
        out!("wrote {}", f.display());
    }
    Ok(())
}

/// Writes the dataset if asked, prints the totals, and fails when a workload failed.
fn finish(d: &Dataset, out: Option<&Path>) -> Result<()> {
    if let Some(path) = out {
        d.save(path)?;
        out!("wrote {}", path.display());
    }
    let count = |s: RefStatus| d.workloads.iter().filter(|r| r.error.is_none() && r.check == s).count();
    let names = |keep: &dyn Fn(&warpsim_validate::WorkloadRecord) -> bool| -> Vec<&str> {
        d.workloads.iter().filter(|r| keep(r)).map(|r| r.name.as_str()).collect()
    };
    let errors = names(&|r| r.error.is_some());
    let timing = names(&|r| r.timing_error.is_some());
    let differ = names(&|r| r.sim_equal() == Some(false));
    let equal = d.workloads.iter().filter(|r| r.sim_equal() == Some(true)).count();
    let seconds: f64 = d.workloads.iter().map(|r| r.seconds).sum();
    out!(
        "{} workloads in {seconds:.1} s: {} PASS, {} FAIL, {} not checked, {} errors{}, {} timing errors{}",
        d.workloads.len(),
        count(RefStatus::Pass),
        count(RefStatus::Fail),
        count(RefStatus::NotChecked),
        errors.len(),
        list(&errors),
        timing.len(),
        list(&timing)
    );
    if d.method.sim_compared {
        out!(
            "outputs bitwise equal to the simulator: {equal}; differing (clock values do by nature): {}{}",
            differ.len(),
            list(&differ)
        );
    }
    let failed = count(RefStatus::Fail);
    if !errors.is_empty() || !timing.is_empty() || failed > 0 {
        bail!("{} workload(s) failed, {} could not be timed, {failed} failed their reference check", errors.len(), timing.len());
    }
    Ok(())
}

/// ` (a, b, c)`, or nothing for an empty list.
fn list(names: &[&str]) -> String {
    if names.is_empty() {
        String::new()
    } else {
        format!(" ({})", names.join(", "))
    }
}

fn merge(a: MergeArgs) -> Result<()> {
    let run = Dataset::load(&a.run)?;
    let profiles = a.profile.iter().map(|p| Dataset::load(p)).collect::<Result<Vec<_>, _>>()?;
    let mut reports = Vec::new();
    for path in &a.ncu {
        let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
        let report = warpsim_validate::ncu::parse(&text).with_context(|| path.display().to_string())?;
        out!("{}: {} profiled launches", path.display(), report.launches.len());
        reports.push(report);
    }
    let mut m = warpsim_validate::merge::merge(run, &profiles, &reports)?;
    // Provenance first, then the merge's warnings.
    m.dataset.notes.splice(0..0, a.note);
    for w in &m.warnings {
        out!("warning: {w}");
    }
    for r in &m.dataset.workloads {
        let cycles = r.cycles.map_or("-".into(), |c| c.to_string());
        let time = r.time_us_median.map_or("-".into(), |t| format!("{t:.2} us"));
        let clock = r.clock_ghz.map_or("-".into(), |g| format!("{g:.3} GHz"));
        out!("{:<30} {:>12} cycles  {:>12}  {:>10}  {} counters", r.name, cycles, time, clock, r.counters.len());
    }
    let dataset = match &a.update {
        Some(base) => warpsim_validate::merge::update(Dataset::load(base)?, m.dataset)?,
        None => m.dataset,
    };
    dataset.save(&a.out)?;
    let csv = a.out.with_extension("csv");
    dataset.save_csv(&csv)?;
    out!("wrote {} and {}", a.out.display(), csv.display());
    Ok(())
}
