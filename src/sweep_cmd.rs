//! `warpsim sweep …`, `warpsim sweep merge …` and `warpsim report …`: argument parsing, the
//! progress bar and printing. The work (spec validation, cached parallel runs, shards, merge,
//! Slurm scripts, figures) is in the warpsim-sweep crate.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use warpsim_sweep::{execute, report, slurm, Cache, DirLock, Plan, ReportOptions, Results, Shard, Spec};

#[derive(Args)]
pub struct SweepArgs {
    /// A sweep file: presets, workloads, [sweep] lists and ranges, [set], [baseline]
    /// (reports/examples/README.md).
    #[arg(long, value_name = "FILE.toml")]
    spec: Option<PathBuf>,
    /// Presets or preset files, comma-separated (default: the sweep file's, else hopper-h200).
    #[arg(long, value_delimiter = ',')]
    arch: Vec<String>,
    /// Workloads, comma-separated: bundled names, `group:<suite dir>` (e.g. group:reduce),
    /// manifest paths, or `all` (the default).
    #[arg(long, value_delimiter = ',')]
    workloads: Vec<String>,
    /// Sweep a configuration key over values, e.g. `--set l2.size_kib=12288,24576,49152`
    /// (repeatable; replaces the sweep file's values for that key).
    #[arg(long = "set", value_name = "KEY=V1,V2,…")]
    set: Vec<String>,
    /// Output directory: results.csv, results.json and (by default) the cache.
    #[arg(short = 'o', long = "out", value_name = "DIR", default_value = "sweep-out")]
    out: PathBuf,
    /// Cache directory (default: DIR/cache); shards of one sweep may share it.
    #[arg(long, value_name = "DIR")]
    cache: Option<PathBuf>,
    /// Simulate every run again, overwriting its cache entry.
    #[arg(long)]
    fresh: bool,
    /// Run one slice: the runs whose index mod N is I.
    #[arg(long, value_name = "I/N")]
    shard: Option<String>,
    /// Simulations in parallel (default: every core; at most 1024); each one is single-threaded.
    #[arg(long, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=1024))]
    jobs: Option<usize>,
    /// No progress bar (it is hidden anyway when stderr is not a terminal).
    #[arg(short, long)]
    quiet: bool,
    /// Write job scripts instead of running: `slurm` writes DIR/sweep.sbatch (a job array of
    /// --shards tasks) and DIR/merge.sbatch.
    #[arg(long, value_name = "KIND", requires = "shards")]
    emit: Option<Emit>,
    /// Array tasks of the emitted job (with --emit).
    #[arg(long, value_name = "N", requires = "emit", value_parser = clap::value_parser!(u32).range(1..))]
    shards: Option<u32>,
    /// Budgets of each run (replace the sweep file's `max_cycles` and `timeout`).
    #[command(flatten)]
    limits: crate::LimitArgs,
    /// The code to simulate (see `warpsim run --isa`); part of each run's cache key.
    #[arg(long, value_enum, default_value = "sass")]
    isa: crate::isa_mode::Isa,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum Emit {
    Slurm,
}

#[derive(Subcommand)]
pub enum SweepCmd {
    /// Join shard results (each shard's results.json) into DIR/results.{csv,json}.
    Merge {
        #[arg(required = true, value_name = "RESULTS.json")]
        files: Vec<PathBuf>,
        #[arg(short = 'o', long = "out", value_name = "DIR")]
        out: PathBuf,
    },
}

#[derive(Args)]
pub struct ReportArgs {
    /// A sweep's results.csv or results.json, the output of `warpsim run WORKLOAD --json`, or the
    /// report of `warpsim exec --report FILE.json` (a timeline of its launches per stream).
    input: PathBuf,
    /// Directory for the figures (DIR/figures/*.png, *.svg) and DIR/index.md, DIR/index.html.
    #[arg(short = 'o', long = "out", value_name = "DIR")]
    out: PathBuf,
    /// The reference point: `arch=PRESET` or `KEY=VALUE` of a swept key (repeatable; default:
    /// the sweep's baseline, else each axis's first value).
    #[arg(long, value_name = "KEY=VALUE")]
    baseline: Vec<String>,
    /// Page title (default: the sweep's title).
    #[arg(long)]
    title: Option<String>,
}

/// The sweep as specified by the sweep file and the command line.
fn spec(a: &SweepArgs) -> Result<Spec> {
    let mut s = match &a.spec {
        Some(p) => Spec::from_file(p)?,
        None => Spec::default(),
    };
    if !a.arch.is_empty() {
        s.set_archs(a.arch.clone());
    }
    if !a.workloads.is_empty() {
        s.set_workloads(a.workloads.clone());
    }
    for arg in &a.set {
        s.set_axis(arg)?;
    }
    if let Some(n) = a.limits.max_cycles {
        s.max_cycles = Some(n);
    }
    if let Some(t) = a.limits.timeout {
        s.timeout = Some(t);
    }
    Ok(s)
}

pub fn run(cmd: Option<SweepCmd>, a: SweepArgs) -> Result<()> {
    if let Some(SweepCmd::Merge { files, out }) = cmd {
        return merge(&files, &out);
    }
    let shard: Option<Shard> = a.shard.as_deref().map(str::parse).transpose()?;
    let mut plan = Plan::new(&spec(&a)?)?;
    let isa = a.isa;
    plan.use_code(isa.name(), &|w, cc| {
        crate::isa_mode::program_for(w, cc, isa, &mut |fallback, line| {
            if fallback {
                eprintln!("{line}");
            }
        })
    });
    if let (Some(Emit::Slurm), Some(shards)) = (a.emit, a.shards) {
        return emit_slurm(&a, &plan, shards as usize);
    }
    let _lock = DirLock::acquire(&a.out)?;
    let runs = plan.runs(shard).len();
    let target = if a.quiet || !std::io::stderr().is_terminal() { ProgressDrawTarget::hidden() } else { ProgressDrawTarget::stderr() };
    let bar = ProgressBar::with_draw_target(Some(runs as u64), target);
    bar.set_style(ProgressStyle::with_template("{elapsed_precise} [{bar:32}] {pos}/{len} runs, ETA {eta} {msg}")?.progress_chars("=> "));
    let cache = Cache { dir: a.cache.clone().unwrap_or_else(|| a.out.join("cache")), fresh: a.fresh };
    let jobs = a.jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let cached = std::sync::atomic::AtomicUsize::new(0);
    let (results, summary) = execute(&plan, shard, &cache, jobs, &|row, from_cache| {
        let n = cached.fetch_add(usize::from(from_cache), std::sync::atomic::Ordering::Relaxed) + usize::from(from_cache);
        bar.set_message(format!("({n} cached) {} {}", row.arch, row.workload));
        bar.inc(1);
    })?;
    bar.finish_and_clear();
    let (csv, json) = results.write(&a.out)?;
    plan.write_configs(&a.out)?;
    let what = match shard {
        Some(s) => format!("shard {s} of "),
        None => String::new(),
    };
    let title = if plan.header.title.is_empty() { String::new() } else { format!(" \"{}\"", plan.header.title) };
    out!("sweep{title}: {what}{} design points × {} workloads; {summary}", plan.points.len(), plan.workloads.len());
    out!("wrote {} and {}", csv.display(), json.display());
    Ok(())
}

fn emit_slurm(a: &SweepArgs, plan: &Plan, shards: usize) -> Result<()> {
    let abs = |p: &PathBuf| std::path::absolute(p).with_context(|| format!("cannot resolve {}", p.display()));
    let mut args: Vec<String> = Vec::new();
    if let Some(p) = &a.spec {
        args.extend(["--spec".into(), abs(p)?.display().to_string()]);
    }
    for (flag, list) in [("--arch", &a.arch), ("--workloads", &a.workloads)] {
        if !list.is_empty() {
            args.extend([flag.to_string(), list.join(",")]);
        }
    }
    for s in &a.set {
        args.extend(["--set".to_string(), s.clone()]);
    }
    if let Some(n) = a.limits.max_cycles {
        args.extend(["--max-cycles".to_string(), n.to_string()]);
    }
    if let Some(t) = a.limits.timeout {
        args.extend(["--timeout".to_string(), t.as_secs_f64().to_string()]);
    }
    let out = abs(&a.out)?;
    let cwd = std::env::current_dir().context("no current directory")?;
    let exe = std::env::current_exe().context("cannot locate the warpsim binary")?;
    let cpus = a.jobs.unwrap_or(1);
    let (sweep, merge) = slurm::scripts(&exe, &cwd, &args, &out, shards, cpus, &plan.header.title, plan.header.runs);
    std::fs::create_dir_all(out.join("slurm")).with_context(|| format!("cannot create {}", out.join("slurm").display()))?;
    for (name, text) in [("sweep.sbatch", sweep), ("merge.sbatch", merge)] {
        let path = out.join(name);
        std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
        out!("wrote {}", path.display());
    }
    out!(
        "{} runs in {shards} shards; submit with:\n  jobid=$(sbatch --parsable {})\n  sbatch --dependency=afterok:$jobid {}",
        plan.header.runs,
        slurm::quote(&out.join("sweep.sbatch").display().to_string()),
        slurm::quote(&out.join("merge.sbatch").display().to_string())
    );
    Ok(())
}

fn merge(files: &[PathBuf], out: &std::path::Path) -> Result<()> {
    let _lock = DirLock::acquire(out)?;
    let parts = files.iter().map(|f| Ok((f.clone(), Results::read(f)?))).collect::<Result<Vec<_>>>()?;
    let (merged, missing) = Results::merge(&parts)?;
    let total = merged.header.as_ref().map_or(0, |h| h.runs);
    let (csv, json) = merged.write(out)?;
    out!("merged {} files: {} of {total} runs", files.len(), merged.rows.len());
    if missing > 0 {
        out!("warning: {missing} runs are in none of the files (a shard missing?)");
    }
    out!("wrote {} and {}", csv.display(), json.display());
    Ok(())
}

pub fn report_cmd(a: ReportArgs) -> Result<()> {
    let baseline = a
        .baseline
        .iter()
        .map(|b| match b.split_once('=') {
            Some((k, v)) if !k.trim().is_empty() => Ok((k.trim().to_string(), v.trim().to_string())),
            _ => bail!("--baseline {b}: expected KEY=VALUE, e.g. arch=hopper-h200 or l2.size_kib=61440"),
        })
        .collect::<Result<Vec<_>>>()?;
    let r = report(&a.input, &ReportOptions { title: a.title, baseline }, &a.out)?;
    for f in &r.figures {
        out!("wrote {}", f.png.display());
    }
    out!("wrote {} figures (PNG + SVG), {} and {}", r.figures.len(), r.page.markdown.display(), r.page.html.display());
    Ok(())
}
