//! Cross-check the bundled suite's references on a real GPU without the `validate` crate.
//!
//! `gpu_cross_check export DIR` writes, per bundled workload, `DIR/<name>/launch.txt` (entry,
//! PTX path, grid, block, dynamic smem, buffers, args) and `in_<i>.bin` (the non-zero chunks of
//! buffer i as records of u64 offset, u64 length, bytes). `workloads/tools/gpu_run.py DIR` launches
//! each one through the CUDA driver (ctypes) and writes `out_<i>.bin`; `gpu_cross_check check DIR`
//! then prints each workload's check report and exits non-zero if any fails.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;
use warpsim_workloads::{bundled_names, Arg, CheckStatus, Workload};

fn export(dir: &Path) -> std::io::Result<()> {
    for name in bundled_names() {
        let w = Workload::bundled(name).map_err(std::io::Error::other)?;
        let d = dir.join(name);
        std::fs::create_dir_all(&d)?;
        let l = &w.launch;
        let mut t = format!(
            "entry {}\nptx {}\ngrid {} {} {}\nblock {} {} {}\nsmem {}\n",
            w.manifest.entry,
            w.ptx_path.display(),
            l.grid[0],
            l.grid[1],
            l.grid[2],
            l.block[0],
            l.block[1],
            l.block[2],
            l.dynamic_smem
        );
        for (i, (b, data)) in w.manifest.buffers.iter().zip(&w.inputs).enumerate() {
            t += &format!("buffer {} {} {}\n", b.name, b.bytes(), b.output as u8);
            let mut f =
                std::io::BufWriter::new(std::fs::File::create(d.join(format!("in_{i}.bin")))?);
            for (off, bytes) in data.chunks() {
                f.write_all(&off.to_le_bytes())?;
                f.write_all(&(bytes.len() as u64).to_le_bytes())?;
                f.write_all(bytes)?;
            }
        }
        for a in &w.manifest.args {
            t += &match a {
                Arg::Buffer { index } => format!("arg buffer {index}\n"),
                Arg::Scalar { dtype, bits, .. } => {
                    format!("arg scalar {} {bits:x}\n", dtype.size())
                }
                Arg::TensorMap(_) => {
                    return Err(std::io::Error::other(format!(
                        "{name}: tensor maps are not exported"
                    )))
                }
            };
        }
        std::fs::write(d.join("launch.txt"), t)?;
    }
    Ok(())
}

fn check(dir: &Path) -> std::io::Result<bool> {
    let mut all_pass = true;
    for name in bundled_names() {
        let w = Workload::bundled(name).map_err(std::io::Error::other)?;
        let mut outputs = Vec::new();
        for (i, b) in w
            .manifest
            .buffers
            .iter()
            .enumerate()
            .filter(|(_, b)| b.output)
        {
            match std::fs::read(dir.join(name).join(format!("out_{i}.bin"))) {
                Ok(bytes) => outputs.push((b.name.as_str(), bytes)),
                Err(e) => println!("{name}: no output `{}`: {e}", b.name),
            }
        }
        let report = w.check(&w.inputs, outputs.iter().map(|(n, b)| (*n, b.as_slice())));
        all_pass &= report.status == CheckStatus::Pass;
        print!("{report}");
    }
    Ok(all_pass)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let result = match (args.get(1).map(String::as_str), args.get(2)) {
        (Some("export"), Some(dir)) => export(Path::new(dir)).map(|_| true),
        (Some("check"), Some(dir)) => check(Path::new(dir)),
        _ => {
            eprintln!("usage: gpu_cross_check export|check DIR");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("gpu_cross_check: {e}");
            ExitCode::FAILURE
        }
    }
}
