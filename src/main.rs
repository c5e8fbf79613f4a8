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

mod validate_cmd;

#[derive(Parser)]
#[command(name = "warpsim", version, about = "Cycle-approximate NVIDIA GPU simulator (Tesla G80 to Hopper H200) running real PTX")]
struct Cli {
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
    /// List the bundled workloads.
    Workloads,
    /// The hardware loop: run workloads on a GPU, merge ncu counters (validate/README.md).
    Validate {
        #[command(subcommand)]
        cmd: validate_cmd::ValidateCmd,
    },
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
}

#[derive(Subcommand)]
enum PtxCmd {
    /// Parse and lower every kernel; print each entry with its instruction count and parameters.
    Check { file: PathBuf },
    /// Static instruction mix by class (and the most frequent opcodes) per kernel.
    Stats { file: PathBuf },
}

fn load_workload(spec: &str) -> Result<warpsim_workloads::Workload> {
    let w = if spec.ends_with(".toml") || std::path::Path::new(spec).exists() {
        warpsim_workloads::Workload::load(spec)?
    } else {
        warpsim_workloads::Workload::bundled(spec)?
    };
    Ok(w)
}

fn dump(dir: &PathBuf, buffers: &[(String, Vec<u8>)]) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    for (name, bytes) in buffers {
        let path = dir.join(format!("{name}.bin"));
        std::fs::write(&path, bytes).with_context(|| format!("cannot write {}", path.display()))?;
    }
    out!("dumped {} buffers to {}", buffers.len(), dir.display());
    Ok(())
}

fn run_workload(a: RunArgs) -> Result<()> {
    let w = load_workload(&a.workload)?;
    let l = &w.launch;
    out!(
        "workload {} ({}): kernel {}, grid {:?}, block {:?}, {} registers/thread{}",
        w.manifest.name,
        w.manifest_path.display(),
        w.manifest.entry,
        l.grid,
        l.block,
        l.regs_per_thread,
        if l.regs_estimated { " (estimated)" } else { "" }
    );
    let o = warpsim_sim::launch::run_functional(&w, 132)?;
    if let Some(f) = &o.functional {
        out!(
            "functional: {} warp instructions, {} CTAs, {:.3} s ({:.2} M warp-inst/s)",
            f.warp_instructions,
            f.ctas,
            o.seconds,
            f.warp_instructions as f64 / o.seconds.max(1e-9) / 1e6
        );
    }
    out!("{}", o.check);
    if let Some(dir) = &a.dump {
        dump(dir, &o.buffers)?;
    }
    if !o.check.passed() && o.check.status != warpsim_workloads::CheckStatus::NotChecked {
        anyhow::bail!("output check failed");
    }
    Ok(())
}

fn load_ptx(file: &PathBuf) -> Result<Vec<warpsim_isa::Program>> {
    let src = std::fs::read_to_string(file).with_context(|| format!("cannot read {}", file.display()))?;
    Ok(warpsim_isa::load(&src, &file.display().to_string())?)
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

fn run(cli: Cli) -> Result<()> {
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
        Cmd::Validate { cmd } => validate_cmd::run(cmd)?,
        Cmd::Workloads => {
            for name in warpsim_workloads::bundled_names() {
                let w = warpsim_workloads::Workload::bundled(name)?;
                out!("{name:<24} {}", w.manifest.description.as_deref().unwrap_or(""));
            }
        }
    }
    Ok(())
}
