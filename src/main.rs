//! The `warpsim` command line: argument parsing and printing only; the work happens in the
//! library crates.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};

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
}

#[derive(Subcommand)]
enum PtxCmd {
    /// Parse and lower every kernel; print each entry with its instruction count and parameters.
    Check { file: PathBuf },
    /// Static instruction mix by class (and the most frequent opcodes) per kernel.
    Stats { file: PathBuf },
}

fn load_ptx(file: &PathBuf) -> Result<Vec<warpsim_isa::Program>> {
    let src = std::fs::read_to_string(file).with_context(|| format!("cannot read {}", file.display()))?;
    Ok(warpsim_isa::load(&src, &file.display().to_string())?)
}

fn main() -> std::process::ExitCode {
    match run(Cli::parse()) {
        Ok(()) => std::process::ExitCode::SUCCESS,
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
            println!("{}: {} kernel(s) OK", file.display(), progs.len());
            for p in &progs {
                println!("  {}", warpsim_isa::stats::summarize(p));
            }
        }
        Cmd::Ptx { cmd: PtxCmd::Stats { file } } => {
            for p in &load_ptx(&file)? {
                println!("{}", warpsim_isa::stats::mix(p));
            }
        }
    }
    Ok(())
}
