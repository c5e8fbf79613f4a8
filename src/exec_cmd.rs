//! `warpsim exec`: runs an unmodified CUDA program (built with `nvcc -cudart shared`) on the
//! simulator. The program's `libcudart.so.13` is resolved to warpsim-cudart through a private
//! directory on `LD_LIBRARY_PATH` holding a link under the real soname; the resolved
//! architecture configuration travels as a TOML file, the report path and threads as
//! environment variables (warpsim_cudart::ENV_*). The program's exit status is the command's.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

#[derive(clap::Args)]
pub struct ExecArgs {
    #[command(flatten)]
    arch: crate::ArchArgs,
    /// Write the launches (kernel, grid, block, cycles, time, counters) as JSON here.
    #[arg(long, value_name = "FILE.json")]
    report: Option<PathBuf>,
    /// Worker threads of the timing model (results do not depend on it); all cores by default.
    #[arg(long, value_parser = crate::thread_count())]
    threads: Option<usize>,
    /// The program and its arguments (after `--`).
    #[arg(required = true, trailing_var_arg = true, allow_hyphen_values = true, value_name = "PROGRAM")]
    program: Vec<String>,
}

/// warpsim-cudart's shared library: `WARPSIM_CUDART` if set, else next to this executable or in
/// its `deps/` (where cargo leaves a dependency's cdylib; `-p warpsim-cudart` builds the one
/// beside), the newer of the two.
fn library() -> Result<PathBuf> {
    if let Some(p) = std::env::var_os("WARPSIM_CUDART") {
        return Ok(PathBuf::from(p));
    }
    let exe = std::env::current_exe().context("cannot locate the warpsim executable")?;
    let dir = exe.parent().unwrap_or(Path::new("."));
    let candidates = [dir.join(warpsim_cudart::LIBRARY_FILE), dir.join("deps").join(warpsim_cudart::LIBRARY_FILE)];
    let modified = |p: &PathBuf| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    candidates.iter().filter(|p| p.is_file()).max_by_key(|p| modified(p)).cloned().with_context(|| {
        format!("{} not found next to {} (build it: cargo build --release -p warpsim-cudart; or set WARPSIM_CUDART)", warpsim_cudart::LIBRARY_FILE, exe.display())
    })
}

pub fn run(a: ExecArgs) -> Result<()> {
    let cfg = crate::arch_config(&a.arch)?;
    let lib = std::fs::canonicalize(library()?).context("cannot resolve the warpsim-cudart library")?;
    let dir = std::env::temp_dir().join(format!("warpsim-exec-{}", std::process::id()));
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let result = run_in(&a, &cfg, &lib, &dir);
    let _ = std::fs::remove_dir_all(&dir);
    let code = result?;
    if code != 0 {
        std::process::exit(code);
    }
    Ok(())
}

/// Runs the program with `dir` as the private library and configuration directory; returns its
/// exit status.
fn run_in(a: &ExecArgs, cfg: &warpsim_sim::config::ArchConfig, lib: &Path, dir: &Path) -> Result<i32> {
    std::os::unix::fs::symlink(lib, dir.join(warpsim_cudart::SONAME)).context("cannot link the runtime library")?;
    let config = dir.join("config.toml");
    let what = format!("`warpsim exec` of {}", a.program[0]);
    std::fs::write(&config, warpsim_sim::presets::dump_config(cfg, &what))?;
    let report = dir.join("report.json");
    let path = match std::env::var_os("LD_LIBRARY_PATH") {
        Some(p) if !p.is_empty() => {
            let mut v = dir.as_os_str().to_owned();
            v.push(":");
            v.push(p);
            v
        }
        _ => dir.as_os_str().to_owned(),
    };
    let mut cmd = std::process::Command::new(&a.program[0]);
    cmd.args(&a.program[1..])
        .env("LD_LIBRARY_PATH", path)
        .env(warpsim_cudart::ENV_CONFIG, &config)
        .env(warpsim_cudart::ENV_REPORT, &report);
    if let Some(t) = a.threads {
        cmd.env(warpsim_cudart::ENV_THREADS, t.to_string());
    }
    let status = cmd.status().with_context(|| format!("cannot run {}", a.program[0]))?;
    let Ok(text) = std::fs::read_to_string(&report) else {
        bail!(
            "{} did not load the simulator's libcudart.so.13 (build it with `nvcc -cudart shared`; a static runtime, nvcc's default, cannot be replaced){}",
            a.program[0],
            status.code().map_or(String::new(), |c| format!("; it exited with {c}"))
        );
    };
    let r: warpsim_cudart::report::Report = serde_json::from_str(&text).context("the runtime's report does not parse")?;
    let (us, cycles) = r.totals();
    if let Some(sig) = std::os::unix::process::ExitStatusExt::signal(&status) {
        eprintln!("warpsim exec: {} was killed by signal {sig}; the report is written at exit, so it lists no launches", a.program[0]);
    } else {
        eprintln!("warpsim exec: {} launches on {}, {cycles} cycles, {us:.2} µs of simulated kernel time", r.launches.len(), r.arch);
    }
    if let Some(out) = &a.report {
        std::fs::write(out, text).with_context(|| format!("cannot write {}", out.display()))?;
    }
    // A signal's death is reported as the shell does (128 + signal).
    Ok(status.code().unwrap_or_else(|| 128 + std::os::unix::process::ExitStatusExt::signal(&status).unwrap_or(0)))
}
