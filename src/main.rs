//! The `warpsim` command line: argument parsing and printing only; the work happens in the
//! library crates.

use std::path::PathBuf;

use std::io::Write;

use anyhow::{Context, Result};

/// Prints a line to stdout; a closed pipe (`warpsim … | head`) ends the command quietly.
macro_rules! out {
    ($($t:tt)*) => {
        writeln!(std::io::stdout(), $($t)*)?
    };
}
use clap::{Parser, Subcommand};

mod exec_cmd;
mod isa_mode;
mod sweep_cmd;
mod validate_cmd;

#[derive(Parser)]
#[command(name = "warpsim", version, about = "Cycle-approximate NVIDIA GPU simulator (Tesla G80 to Hopper H200) running real PTX")]
struct Cli {
    /// A CUDA root whose ptxas / nvdisasm / cuobjdump to use (same as `WARPSIM_CUDA=DIR`;
    /// `WARPSIM_CUDA=none` turns toolchain discovery off). See `warpsim toolchain`.
    #[arg(long, global = true, value_name = "DIR")]
    cuda_root: Option<PathBuf>,
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Inspect PTX files.
    Ptx {
        #[command(subcommand)]
        cmd: PtxCmd,
    },
    /// Run a workload (a manifest path or a bundled name) and check its outputs.
    Run(RunArgs),
    /// Run a CUDA program built with `nvcc -cudart shared` on the simulator, unmodified:
    /// `warpsim exec [--arch P] [--report R.json] -- ./program args...`.
    Exec(exec_cmd::ExecArgs),
    /// List the bundled workloads.
    Workloads,
    /// The SASS ptxas makes of a workload or PTX file (Volta to Hopper): per instruction its pc,
    /// control bits (wait mask, read/write barrier, yield, stall, reuse), text and source line.
    Sass(SassArgs),
    /// The CUDA tools found (ptxas, nvdisasm, cuobjdump): versions, targets, presets they serve.
    Toolchain,
    /// Simulate the bundled suite in time and report simulation speed (warp-instructions/s).
    Bench {
        #[command(flatten)]
        arch: ArchArgs,
        /// Worker threads (1 measures per-core speed; at most 256).
        #[arg(long, default_value_t = 1, value_parser = thread_count())]
        threads: usize,
        /// Only these workloads (comma-separated).
        #[arg(long, value_delimiter = ',')]
        workloads: Vec<String>,
        /// The code to simulate (see `warpsim run --isa`); `ptx,sass` runs both, one after the
        /// other in this process, and prints the second's speed as a multiple of the first's.
        #[arg(long, value_enum, value_delimiter = ',', default_value = "sass")]
        isa: Vec<isa_mode::Isa>,
    },
    /// The configuration keys: type, unit, valid range, what reads them, a doc line (README:
    /// Configuration keys).
    Config {
        #[command(subcommand)]
        cmd: ConfigCmd,
    },
    /// The counters a timed run reports, like `ncu --query-metrics`: name, unit, how it
    /// aggregates across SMs, description (the registry in sim/src/counters.rs).
    Metrics {
        /// Print a JSON list of {name, unit, aggregation, doc}.
        #[arg(long)]
        json: bool,
    },
    /// List the architecture presets, show one, or compare two.
    Presets {
        #[command(subcommand)]
        cmd: Option<PresetCmd>,
    },
    /// Sweep configuration keys × presets × workloads in parallel; cached and resumable, shardable
    /// (`--shard`, `merge`, `--emit slurm`); writes tidy CSV and JSON (README: Sweeps and reports).
    #[command(args_conflicts_with_subcommands = true)]
    Sweep {
        #[command(subcommand)]
        cmd: Option<sweep_cmd::SweepCmd>,
        #[command(flatten)]
        args: sweep_cmd::SweepArgs,
    },
    /// Figures and a summary page (Markdown + HTML) from sweep results or `warpsim run --json`.
    Report(sweep_cmd::ReportArgs),
    /// The hardware loop: run workloads on a GPU, merge ncu counters (validate/README.md).
    Validate {
        #[command(subcommand)]
        cmd: validate_cmd::ValidateCmd,
    },
}

#[derive(Subcommand)]
enum ConfigCmd {
    /// Every key of a configuration, from the parameter table (`sim/src/params.rs`).
    Keys {
        /// Add this preset's values (`default` in JSON, a column in the tables).
        #[arg(long)]
        arch: Option<String>,
        /// Print a JSON list of {key, type, unit, doc, range, timing, reads, default}.
        #[arg(long, conflicts_with = "markdown")]
        json: bool,
        /// Print a Markdown table (the one in sim/presets/README.md).
        #[arg(long)]
        markdown: bool,
    },
}

#[derive(Subcommand)]
enum PresetCmd {
    /// Print a preset as TOML (with its source comments).
    Show { name: String },
    /// Keys whose values differ between two presets.
    Diff { a: String, b: String },
}

/// Architecture selection shared by the commands that simulate in time.
#[derive(clap::Args, Clone)]
pub struct ArchArgs {
    /// Preset name (`warpsim presets`) or a preset TOML file.
    #[arg(long, default_value = "hopper-h200")]
    arch: String,
    /// Override a parameter by its key path, e.g. `--set l2.size_kib=51200` (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
}

#[derive(clap::Args)]
struct SassArgs {
    /// A workload manifest, a bundled workload's name, or a `.ptx` file; without one, the whole
    /// bundled suite (with --opcodes or --check).
    workload: Option<String>,
    /// Preset (`warpsim presets`) whose compute capability picks the SASS target (sm_70 ... sm_90a).
    #[arg(long, default_value = "hopper-h200")]
    arch: String,
    /// Print the parsed listing as JSON.
    #[arg(long)]
    json: bool,
    /// Print the opcodes with their counts instead of the listing.
    #[arg(long)]
    opcodes: bool,
    /// Check the decoded control bits against the code's dependences and print the summary.
    #[arg(long)]
    check: bool,
}

#[derive(clap::Args)]
struct RunArgs {
    /// A workload manifest (`.toml`) or the name of a bundled workload (`warpsim workloads`).
    workload: String,
    /// Execute functionally only (no timing model).
    #[arg(long)]
    functional: bool,
    /// Write every buffer after the run (inputs too) as raw little-endian `DIR/<name>.bin`.
    #[arg(long, value_name = "DIR")]
    dump: Option<PathBuf>,
    #[command(flatten)]
    arch: ArchArgs,
    /// Print the result as JSON (the timing model's record; not with --functional).
    #[arg(long, conflicts_with = "functional")]
    json: bool,
    /// Write the fully resolved configuration (every key, overrides applied) to FILE as TOML;
    /// `--arch FILE` reads it back.
    #[arg(long, value_name = "FILE")]
    dump_config: Option<PathBuf>,
    /// Worker threads for the timing model (results are identical for any count; at most 256,
    /// more than the GPCs of any preset, which are what run in parallel).
    #[arg(long, default_value_t = 1, value_parser = thread_count())]
    threads: usize,
    #[command(flatten)]
    limits: LimitArgs,
    /// The code to simulate: `ptx`, or `sass`, the machine code ptxas makes of the PTX (from
    /// ptxas + nvdisasm, or a bundled workload's committed listing); a kernel with an opcode
    /// SASS mode does not cover yet runs as PTX, with the reason.
    #[arg(long, value_enum, default_value = "sass")]
    isa: isa_mode::Isa,
}

/// The watchdog's budgets (README: Watchdog); a kernel that stops making progress is stopped
/// whatever they are.
#[derive(clap::Args, Clone)]
pub struct LimitArgs {
    /// Stop a run after this many simulated cycles (with --functional: warp instructions)
    /// [default: 2^32].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    max_cycles: Option<u64>,
    /// Stop a run after this many wall-clock seconds [default: 3600].
    #[arg(long, value_name = "SECONDS", value_parser = warpsim_sim::watchdog::parse_seconds)]
    timeout: Option<std::time::Duration>,
}

impl LimitArgs {
    fn limits(&self) -> warpsim_sim::watchdog::Limits {
        let mut l = warpsim_sim::watchdog::Limits::default();
        if let Some(n) = self.max_cycles {
            l.max_cycles = n;
        }
        if let Some(t) = self.timeout {
            l.timeout = Some(t);
        }
        l
    }
}

/// `--threads`: 1 to 256 (5000 threads failed to start as "Resource temporarily unavailable").
fn thread_count() -> clap::builder::RangedU64ValueParser<usize> {
    clap::builder::RangedU64ValueParser::<usize>::new().range(1..=256)
}

/// Loads the preset (or file) and applies `--set` overrides.
pub fn arch_config(a: &ArchArgs) -> Result<warpsim_sim::config::ArchConfig> {
    use warpsim_sim::presets;
    let sets: Vec<(String, String)> = a.set.iter().map(|s| presets::parse_set(s)).collect::<Result<_, _>>()?;
    let base = if a.arch.ends_with(".toml") {
        let text = std::fs::read_to_string(&a.arch).with_context(|| format!("cannot read {}", a.arch))?;
        warpsim_sim::config::ArchConfig::from_toml(&text, &a.arch)?.to_value()
    } else {
        presets::preset_value(&a.arch)?
    };
    Ok(presets::apply_overrides(&base, &sets)?)
}

#[derive(Subcommand)]
enum PtxCmd {
    /// Parse and lower every kernel; print each entry with its instruction count and parameters.
    Check { file: PathBuf },
    /// Static instruction mix by class (and the most frequent opcodes) per kernel.
    Stats { file: PathBuf },
}

fn load_workload(spec: &str) -> Result<warpsim_workloads::Workload> {
    load_workload_for(spec, None)
}

/// A manifest file or bundled name, its `${...}` sizes expanded for `cfg` (default: the H200's).
fn load_workload_for(spec: &str, cfg: Option<&warpsim_sim::config::ArchConfig>) -> Result<warpsim_workloads::Workload> {
    let path = std::path::Path::new(spec);
    let w = match cfg {
        _ if !(spec.ends_with(".toml") || path.exists()) => {
            warpsim_workloads::Workload::bundled_for(spec, &cfg.map(warpsim_sim::launch::target).unwrap_or_default())?
        }
        Some(cfg) => warpsim_sim::launch::load_manifest_for(path, cfg)?,
        None => warpsim_sim::launch::load_manifest(path)?,
    };
    Ok(w)
}

/// Writes every buffer of the run, streamed from the device memory.
fn dump(dir: &PathBuf, w: &warpsim_workloads::Workload, o: &warpsim_sim::launch::Outcome) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    for (i, spec) in w.manifest.buffers.iter().enumerate() {
        let path = dir.join(format!("{}.bin", spec.name));
        let write = || -> std::io::Result<()> {
            let mut f = std::io::BufWriter::new(std::fs::File::create(&path)?);
            o.write_buffer(i, &mut f)?;
            std::io::Write::flush(&mut f)
        };
        write().with_context(|| format!("cannot write {}", path.display()))?;
    }
    // A note, on stderr: stdout is the result (one JSON document under --json).
    eprintln!("dumped {} buffers to {}", w.manifest.buffers.len(), dir.display());
    Ok(())
}

fn run_workload(a: RunArgs) -> Result<()> {
    // The preset gives the manifest's sizes, the target the registers are resolved for (the header
    // names them in both modes) and, with --functional, the launch limits and SM count.
    let cfg = arch_config(&a.arch)?;
    let mut w = load_workload_for(&a.workload, Some(&cfg))?;
    if let Some(path) = &a.dump_config {
        let what = format!("`warpsim run {}` on {}", a.workload, a.arch.arch);
        std::fs::write(path, warpsim_sim::presets::dump_config(&cfg, &what)).with_context(|| format!("cannot write {}", path.display()))?;
    }
    // Registers and spills from ptxas for the preset's target where the manifest gives none; a
    // SASS listing's own count fills what is still missing, and the one-line notice says when
    // the simulator has to estimate instead.
    let resolution = warpsim_toolchain::resolve(&mut w, cfg.compute_capability, warpsim_toolchain::Toolchain::from_env());
    let sass = isa_mode::program_for(&mut w, cfg.compute_capability, a.isa, &mut |fallback, line| {
        if fallback {
            eprintln!("{line}");
        } else if !a.json {
            let _ = writeln!(std::io::stdout(), "{line}");
        }
    });
    if let warpsim_toolchain::Resolution::Estimate(line) = resolution {
        if w.launches.iter().any(|l| l.regs_per_thread.is_none()) {
            eprintln!("note: {}: {line}", w.manifest.name);
        }
    }
    let regs = warpsim_sim::launch::registers_of(&w)?;
    if !a.json {
        for ((spec, l), regs) in w.sequence().zip(&regs) {
            let spills = if l.spills.any() {
                format!(", {} B spill stores / {} B spill loads", l.spills.store_bytes, l.spills.load_bytes)
            } else {
                String::new()
            };
            let repeat = if spec.repeat > 1 { format!(" x{}", spec.repeat) } else { String::new() };
            let swap = spec.swap.map_or(String::new(), |[x, y]| format!(", swapping `{}` and `{}`", w.manifest.buffers[x].name, w.manifest.buffers[y].name));
            out!(
                "workload {} ({}): kernel {}{repeat}, grid {:?}, block {:?}, {regs} registers/thread ({}){spills}{swap}",
                w.manifest.name,
                w.manifest_path.display(),
                spec.entry,
                l.grid,
                l.block,
                l.regs_source,
            );
        }
    }
    let limits = a.limits.limits();
    let o = match (sass, a.functional) {
        (None, true) => warpsim_sim::launch::run_functional_within(&w, &cfg, &limits)?,
        (None, false) => warpsim_sim::launch::run_timed_within(&w, &cfg, a.threads, &limits)?,
        (Some(p), true) => warpsim_sim::launch::run_functional_program(&w, &cfg, &limits, p)?,
        (Some(p), false) => warpsim_sim::launch::run_timed_with(&w, &cfg, a.threads, &limits, p)?,
    };
    match (&o.timing, a.json) {
        (Some(t), true) => {
            out!("{}", serde_json::to_string_pretty(&warpsim_sim::record::RunRecord::new(&w, &cfg, &o, t))?);
        }
        (Some(t), false) => {
            if o.launches.len() > 1 {
                for (n, (i, r)) in o.launches.iter().enumerate() {
                    let l = &w.launches[*i];
                    out!("launch {n}: {} grid {:?} block {:?}: {} cycles", w.manifest.launches[*i].entry, l.grid, l.block, r.cycles);
                }
            }
            print_timing(&cfg, t, o.seconds)?
        }
        (None, _) => {
            if let Some(f) = &o.functional {
                out!(
                    "functional: {} warp instructions, {} CTAs, {:.3} s ({:.2} M warp-inst/s)",
                    f.warp_instructions,
                    f.ctas,
                    o.seconds,
                    f.warp_instructions as f64 / o.seconds.max(1e-9) / 1e6
                );
            }
        }
    }
    if !a.json {
        out!("{}", o.check);
    }
    if let Some(dir) = &a.dump {
        dump(dir, &w, &o)?;
    }
    if !o.check.passed() && o.check.status != warpsim_workloads::CheckStatus::NotChecked {
        anyhow::bail!("output check failed");
    }
    Ok(())
}

fn print_timing(cfg: &warpsim_sim::config::ArchConfig, t: &warpsim_sim::engine::TimingResult, secs: f64) -> Result<()> {
    use warpsim_sim::counters::Counter;
    let mhz = cfg.clock.sm_mhz;
    out!(
        "{}: {} cycles = {:.3} µs at {mhz} MHz, IPC {:.2} per SM (machine ops per active cycle), occupancy {:.1}% of peak warps ({} CTAs/SM, limited by {})",
        cfg.name,
        t.cycles,
        warpsim_sim::record::gpu_time_us(t.cycles, mhz),
        t.get(Counter::IpcActive),
        t.get(Counter::WarpsActivePct),
        t.occupancy_ctas_per_sm,
        t.occupancy_limiter
    );
    out!(
        "simulated {} warp instructions in {:.3} s ({:.2} M warp-inst/s)",
        t.warp_instructions,
        secs,
        t.warp_instructions as f64 / secs.max(1e-9) / 1e6
    );
    let stalls: Vec<String> = t.stalls.iter().filter(|s| s.1 >= 0.005).map(|(n, f)| format!("{n} {:.1}%", 100.0 * f)).collect();
    out!("warp states: {}", stalls.join(", "));
    for (k, v) in &t.counters {
        out!("  {k:<56} {v:>16.1}");
    }
    Ok(())
}

fn load_ptx(file: &PathBuf) -> Result<Vec<warpsim_isa::Program>> {
    let bytes = std::fs::read(file).with_context(|| format!("cannot read {}", file.display()))?;
    let name = file.display().to_string();
    Ok(warpsim_isa::load(warpsim_isa::utf8(&bytes, &name)?, &name)?)
}

fn main() -> std::process::ExitCode {
    match run(Cli::parse()) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) if e.downcast_ref::<std::io::Error>().is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe) => {
            std::process::ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn toolchain_report() -> Result<()> {
    let tc = warpsim_toolchain::Toolchain::from_env();
    if tc.disabled {
        out!("toolchain discovery is off (WARPSIM_CUDA=none): registers are estimated from the PTX");
        return Ok(());
    }
    if tc.tools.is_empty() {
        out!("no CUDA tools found (searched --cuda-root/WARPSIM_CUDA, CUDA_HOME, CUDA_PATH, PATH, pip's nvidia wheels)");
    }
    for t in &tc.tools {
        let targets = if t.targets.is_empty() { String::new() } else { format!(", targets {}", t.targets.join(" ")) };
        out!("{:<10} {:<9} {} (found by {}){targets}", t.kind.binary(), t.version, t.path.display(), t.found_by);
    }
    for p in &tc.problems {
        out!("skipped: {p}");
    }
    let nvdisasm = tc.of(warpsim_toolchain::ToolKind::Nvdisasm).next();
    match nvdisasm {
        Some(t) => out!("SASS listings (`warpsim sass`, SASS mode): {} for sm_70..sm_90a (sm_70 read as sm_75); earlier presets are PTX-only", t.label()),
        None => out!("SASS listings (`warpsim sass`): no nvdisasm, bundled workloads use their committed sm_90 listings (install: {})", warpsim_toolchain::sass::NVDISASM_HINT),
    }
    out!("presets:");
    for name in warpsim_sim::presets::preset_names() {
        let p = warpsim_sim::presets::preset(name)?;
        let target = warpsim_toolchain::discover::sm_target(p.compute_capability);
        let ptxas = tc.ptxas_for(&target);
        // Which code `--isa sass` (the default) runs on this preset.
        let code = if p.compute_capability[0] < 7 {
            "PTX only (SASS mode is Volta to Hopper)"
        } else if ptxas.is_some() && nvdisasm.is_some() {
            "SASS mode"
        } else if p.compute_capability == [9, 0] {
            "SASS mode on the bundled suite (committed listings)"
        } else {
            "PTX (SASS mode needs ptxas + nvdisasm)"
        };
        match ptxas {
            Some(t) => out!("  {name:<22} {target:<7} {} ({}); {code}", t.label(), t.path.display()),
            None => out!("  {name:<22} {target:<7} no ptxas: registers estimated{}; {code}", warpsim_toolchain::discover::wheel_hint(p.compute_capability).map_or(String::new(), |h| format!(" (install: {h})"))),
        }
    }
    Ok(())
}

/// The listings `warpsim sass` shows: (what, listing) per PTX.
fn sass_listings(a: &SassArgs) -> Result<Vec<(String, warpsim_toolchain::sass::Listing)>> {
    use warpsim_toolchain::sass;
    let cc = warpsim_sim::presets::preset(&a.arch)?.compute_capability;
    let tc = warpsim_toolchain::Toolchain::from_env();
    let mut out = Vec::new();
    match &a.workload {
        Some(spec) if spec.ends_with(".ptx") => {
            let ptx = std::fs::read_to_string(spec).with_context(|| format!("cannot read {spec}"))?;
            out.push((spec.clone(), sass::listing(tc, &ptx, &sass::target_for(cc, &ptx))?));
        }
        Some(spec) => {
            let w = load_workload(spec)?;
            out.push((w.manifest.name.clone(), sass::for_workload(tc, &w, &sass::target_for(cc, &w.ptx))?));
        }
        None => {
            anyhow::ensure!(a.opcodes || a.check, "name a workload or PTX file, or use --opcodes / --check for the whole suite");
            let mut seen = std::collections::BTreeSet::new();
            for name in warpsim_workloads::bundled_names() {
                let w = warpsim_workloads::Workload::bundled(name)?;
                if seen.insert(w.ptx_path.clone()) {
                    match sass::for_workload(tc, &w, &sass::target_for(cc, &w.ptx)) {
                        Ok(l) => out.push((w.ptx_path.display().to_string(), l)),
                        Err(e @ sass::SassError::Rejected { .. }) => eprintln!("note: {}: {e}", w.ptx_path.display()),
                        Err(e) => return Err(e.into()),
                    }
                }
            }
        }
    }
    Ok(out)
}

fn sass_cmd(a: SassArgs) -> Result<()> {
    let mut counts = std::collections::BTreeMap::new();
    let mut report = warpsim_sass::check::Report::default();
    let mut modules = Vec::new();
    let listings = sass_listings(&a)?;
    let sources: std::collections::BTreeSet<String> = listings.iter().map(|(_, l)| format!("{} {}", l.target, l.source)).collect();
    for (what, l) in &listings {
        let m = warpsim_sass::parse(&l.text).with_context(|| format!("{what}: the {} listing ({})", l.target, l.source))?;
        for (op, n) in m.opcode_counts() {
            *counts.entry(op).or_insert(0) += n;
        }
        for k in &m.kernels {
            report.merge(warpsim_sass::check::kernel(k));
        }
        modules.push((what, l, m));
    }
    if a.json {
        let v: Vec<_> = modules.iter().map(|(what, l, m)| serde_json::json!({ "name": what, "target": l.target, "source": l.source, "module": m })).collect();
        out!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(());
    }
    if a.opcodes || a.check {
        out!("{} listing(s): {}", listings.len(), sources.into_iter().collect::<Vec<_>>().join("; "));
    }
    if a.check {
        out!(
            "{} instructions, {} barrier producers, {} dependences checked, {} violations ({:.3}%); fixed-latency dependences closer than 4 cycles: {} of {}",
            report.instructions,
            report.producers,
            report.dependences,
            report.violations.len(),
            report.violation_rate(),
            report.fixed_below(4),
            report.fixed_latency.values().sum::<usize>()
        );
        for v in &report.violations {
            out!("  {} {:#06x} {}: {}", v.kernel, v.pc, v.rule, v.detail);
        }
    }
    if a.opcodes {
        out!("{}", warpsim_sass::opcode_table(&counts).trim_end());
    }
    if !a.opcodes && !a.check {
        for (what, l, m) in &modules {
            out!("# {what}: {} ({})", l.target, l.source);
            for k in &m.kernels {
                out!("{}", warpsim_sass::table(k));
            }
        }
    }
    Ok(())
}

/// `warpsim bench`: each code's table and total, then (for two codes) the ratio of their speeds.
fn bench(arch: &ArchArgs, threads: usize, workloads: &[String], isas: &[isa_mode::Isa]) -> Result<()> {
    let cfg = arch_config(arch)?;
    let all = warpsim_workloads::bundled_names();
    let names: Vec<&str> = if workloads.is_empty() { all } else { workloads.iter().map(|s| s.as_str()).collect() };
    let cc = cfg.compute_capability;
    let mut speeds = Vec::new();
    for &isa in isas {
        let code = |w: &mut warpsim_workloads::Workload| {
            isa_mode::program_for(w, cc, isa, &mut |fallback, line| {
                if fallback {
                    eprintln!("{line}");
                }
            })
        };
        let rows = warpsim_sim::launch::bench(&names, &cfg, threads, &code)?;
        if isas.len() > 1 {
            out!("isa: {}", isa.name());
        }
        out!("{:<24} {:>14} {:>12} {:>9} {:>12}", "workload", "warp insts", "cycles", "seconds", "M inst/s");
        let (mut ti, mut ts) = (0u64, 0f64);
        for r in &rows {
            out!("{:<24} {:>14} {:>12} {:>9.3} {:>12.2}", r.workload, r.warp_instructions, r.cycles, r.seconds, r.warp_instructions as f64 / r.seconds.max(1e-9) / 1e6);
            ti += r.warp_instructions;
            ts += r.seconds;
        }
        let speed = ti as f64 / ts.max(1e-9) / 1e6;
        out!(
            "total: {} warp instructions in {:.2} s = {:.2} M warp-inst/s on {} thread(s) ({:.2} M per thread); peak memory {:.0} MiB",
            ti,
            ts,
            speed,
            threads,
            speed / threads.max(1) as f64,
            warpsim_sim::launch::peak_rss().unwrap_or(0) as f64 / 1048576.0
        );
        speeds.push((isa, speed));
    }
    if let [(a, sa), (b, sb)] = speeds[..] {
        out!("{} / {}: {:.3}x the warp-inst/s", b.name(), a.name(), sb / sa.max(1e-9));
    }
    Ok(())
}

fn run(cli: Cli) -> Result<()> {
    if let Some(root) = &cli.cuda_root {
        // Before anything asks for the toolchain (it is discovered once per process).
        std::env::set_var(warpsim_toolchain::discover::ENV_CUDA, root);
    }
    match cli.cmd {
        Cmd::Ptx { cmd: PtxCmd::Check { file } } => {
            let progs = load_ptx(&file)?;
            out!("{}: {} kernel(s) OK", file.display(), progs.len());
            for p in &progs {
                out!("  {}", warpsim_isa::stats::summarize(p));
            }
        }
        Cmd::Ptx { cmd: PtxCmd::Stats { file } } => {
            for p in &load_ptx(&file)? {
                out!("{}", warpsim_isa::stats::mix(p));
            }
        }
        Cmd::Run(a) => run_workload(a)?,
        Cmd::Exec(a) => exec_cmd::run(a)?,
        Cmd::Config { cmd: ConfigCmd::Keys { arch, json, markdown } } => {
            let cfg = arch.as_deref().map(warpsim_sim::presets::preset).transpose()?;
            if json {
                out!("{}", serde_json::to_string_pretty(&warpsim_sim::params::key_infos(cfg.as_ref()))?);
            } else if markdown {
                out!("{}", warpsim_sim::params::markdown(cfg.as_ref()).trim_end());
            } else {
                for k in warpsim_sim::params::key_infos(cfg.as_ref()) {
                    let value = k.default.map(|d| format!(" = {d}")).unwrap_or_default();
                    out!("{:<40} {:<14} {:<20} {:<10} {}{value}", k.key, k.ty, k.unit, if k.timing { "timing" } else { "-" }, k.doc);
                }
            }
        }
        Cmd::Metrics { json } => {
            let infos = warpsim_sim::counters::metric_infos();
            if json {
                out!("{}", serde_json::to_string_pretty(&infos)?);
            } else {
                out!("{:<64} {:<24} {:<7} description", "metric", "unit", "agg");
                for m in infos {
                    let agg = serde_json::to_value(m.aggregation)?;
                    out!("{:<64} {:<24} {:<7} {}", m.name, m.unit, agg.as_str().unwrap_or(""), m.doc);
                }
            }
        }
        Cmd::Presets { cmd: None } => {
            for name in warpsim_sim::presets::preset_names() {
                let p = warpsim_sim::presets::preset(name)?;
                out!("{name:<16} {}", p.description);
            }
        }
        Cmd::Presets { cmd: Some(PresetCmd::Show { name }) } => {
            let src = warpsim_sim::presets::preset_source(&name);
            match src {
                Some(text) => out!("{text}"),
                None => {
                    warpsim_sim::presets::preset(&name)?;
                }
            }
        }
        Cmd::Presets { cmd: Some(PresetCmd::Diff { a, b }) } => {
            let (pa, pb) = (warpsim_sim::presets::preset(&a)?, warpsim_sim::presets::preset(&b)?);
            let d = warpsim_sim::presets::diff(&pa, &pb);
            out!("{:<40} {:>24} {:>24}", "key", a, b);
            for (k, x, y) in d {
                out!("{k:<40} {x:>24} {y:>24}");
            }
        }
        Cmd::Bench { arch, threads, workloads, isa } => bench(&arch, threads, &workloads, &isa)?,
        Cmd::Validate { cmd } => validate_cmd::run(cmd)?,
        Cmd::Sweep { cmd, args } => sweep_cmd::run(cmd, args)?,
        Cmd::Report(a) => sweep_cmd::report_cmd(a)?,
        Cmd::Toolchain => toolchain_report()?,
        Cmd::Sass(a) => sass_cmd(a)?,
        Cmd::Workloads => {
            for name in warpsim_workloads::bundled_names() {
                let w = warpsim_workloads::Workload::bundled(name)?;
                out!("{name:<24} {}", w.manifest.description.as_deref().unwrap_or(""));
            }
        }
    }
    Ok(())
}
