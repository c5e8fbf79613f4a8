//! Cross-check the bundled suite's references on a real GPU without the `validate` crate.
//!
//! `gpu_cross_check export DIR [NAME...]` writes, per bundled workload (all, or the NAMEs given),
//! `DIR/<name>/launch.txt` (entry, PTX path, grid, block, cluster, dynamic smem, buffers, args)
//! and `in_<i>.bin` (the non-zero chunks of buffer i as records of u64 offset, u64 length, bytes).
//! `workloads/tools/gpu_run.py DIR` launches each one through the CUDA driver (ctypes; tensor maps
//! through cuTensorMapEncodeTiled, manifest clusters through cuLaunchKernelEx) and writes
//! `out_<i>.bin`; `gpu_cross_check check DIR [NAME...]` then prints each workload's check report,
//! plus the values of its timing outputs (clock64 cycles), and exits non-zero if any fails.
//!
//! launch.txt lines: `entry E`, `ptx PATH`, `grid X Y Z`, `block X Y Z`, `cluster X Y Z SOURCE`
//! (SOURCE `manifest`: launch with the cluster attribute; `ptx`: the kernel's own
//! `.reqnctapercluster`, or none, so a plain launch), `smem BYTES`, `buffer NAME BYTES OUTPUT`,
//! `arg buffer INDEX`, `arg scalar SIZE HEXBITS`, and `arg tensormap BUFFER DTYPE RANK dims..
//! strides.. box.. elem_strides.. INTERLEAVE SWIZZLE L2PROMOTION OOBFILL` with the CUDA driver's
//! enum values (CUtensorMapDataType, ...) and rank - 1 byte strides.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;
use warpsim_workloads::{
    bundled_names, references, Arg, CheckStatus, DType, Interleave, L2Promotion, OobFill, RefCtx,
    Swizzle, TensorMap, Workload,
};

/// The workloads named on the command line, or all bundled ones.
fn selected(names: &[String]) -> Vec<String> {
    if names.is_empty() {
        bundled_names().into_iter().map(String::from).collect()
    } else {
        names.to_vec()
    }
}

/// CUtensorMapDataType for a buffer dtype (signed 8/16-bit and unsigned types share bits).
fn tensor_dtype(d: DType) -> u32 {
    match d {
        DType::U8 | DType::S8 => 0,
        DType::U16 | DType::S16 => 1,
        DType::U32 => 2,
        DType::S32 => 3,
        DType::U64 => 4,
        DType::S64 => 5,
        DType::F16 => 6,
        DType::F32 => 7,
        DType::F64 => 8,
        DType::Bf16 => 9,
    }
}

fn tensor_map_line(t: &TensorMap) -> String {
    let join = |v: Vec<String>| v.join(" ");
    let interleave = match t.interleave {
        Interleave::None => 0,
        Interleave::B16 => 1,
        Interleave::B32 => 2,
    };
    let swizzle = match t.swizzle {
        Swizzle::None => 0,
        Swizzle::B32 => 1,
        Swizzle::B64 => 2,
        Swizzle::B128 => 3,
    };
    let l2 = match t.l2_promotion {
        L2Promotion::None => 0,
        L2Promotion::B64 => 1,
        L2Promotion::B128 => 2,
        L2Promotion::B256 => 3,
    };
    let oob = match t.oob_fill {
        OobFill::Zero => 0,
        OobFill::Nan => 1,
    };
    format!(
        "arg tensormap {} {} {} {} {} {} {} {interleave} {swizzle} {l2} {oob}\n",
        t.buffer,
        tensor_dtype(t.dtype),
        t.dims.len(),
        join(t.dims.iter().map(u64::to_string).collect()),
        join(t.strides.iter().map(u64::to_string).collect()),
        join(t.box_dims.iter().map(u32::to_string).collect()),
        join(t.elem_strides.iter().map(u32::to_string).collect()),
    )
}

fn export(dir: &Path, names: &[String]) -> std::io::Result<()> {
    for name in selected(names) {
        let w = Workload::bundled(&name).map_err(std::io::Error::other)?;
        if w.launches.len() > 1 {
            eprintln!("{name}: a launch sequence; the cross-check exports single launches only");
            continue;
        }
        let d = dir.join(&name);
        std::fs::create_dir_all(&d)?;
        let l = w.launch();
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
        t += &format!(
            "cluster {} {} {} {}\n",
            l.cluster[0],
            l.cluster[1],
            l.cluster[2],
            if w.manifest.launch().cluster.is_some() {
                "manifest"
            } else {
                "ptx"
            }
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
        for a in &w.manifest.launch().args {
            t += &match a {
                Arg::Buffer { index } => format!("arg buffer {index}\n"),
                Arg::Scalar { dtype, bits, .. } => {
                    format!("arg scalar {} {bits:x}\n", dtype.size())
                }
                Arg::TensorMap(t) => tensor_map_line(t),
            };
        }
        std::fs::write(d.join("launch.txt"), t)?;
    }
    Ok(())
}

/// The elements a workload's reference does not compare, per output buffer: whole timing buffers
/// and the open elements of mixed ones (clock64 cycles), with their values, for the record.
fn timing_values(w: &Workload, outputs: &[(&str, Vec<u8>)]) -> Vec<String> {
    let Some(check) = &w.manifest.check else {
        return Vec::new();
    };
    let Some(r) = references().iter().find(|r| r.name == check.reference) else {
        return Vec::new();
    };
    let Ok(ctx) = RefCtx::new(&w.manifest, &w.inputs) else {
        return Vec::new();
    };
    let expected = (r.compute)(&ctx.with_cluster(w.launch().cluster)).unwrap_or_default();
    let mut lines = Vec::new();
    for (name, bytes) in outputs {
        let Some(spec) = w.manifest.buffers.iter().find(|b| b.name == *name) else {
            continue;
        };
        let exp = expected.iter().find(|e| e.buffer == *name);
        let open: Vec<String> = bytes
            .chunks(spec.dtype.size())
            .enumerate()
            .filter(|(i, _)| {
                r.timing.contains(name)
                    || exp.is_some_and(|e| e.values.get(*i).is_some_and(Option::is_none))
            })
            .take(8)
            .map(|(i, c)| {
                format!(
                    "{name}[{i}] = {}",
                    spec.dtype.decode(spec.dtype.read_bits(c))
                )
            })
            .collect();
        if !open.is_empty() && (r.timing.contains(name) || spec.dtype.size() == 8) {
            lines.push(format!("  timing: {}", open.join(", ")));
        }
    }
    lines
}

fn check(dir: &Path, names: &[String]) -> std::io::Result<bool> {
    let mut all_pass = true;
    for name in selected(names) {
        let name = name.as_str();
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
        for line in timing_values(&w, &outputs) {
            println!("{line}");
        }
    }
    Ok(all_pass)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let names = args.get(3..).unwrap_or_default();
    let result = match (args.get(1).map(String::as_str), args.get(2)) {
        (Some("export"), Some(dir)) => export(Path::new(dir), names).map(|_| true),
        (Some("check"), Some(dir)) => check(Path::new(dir), names),
        _ => {
            eprintln!("usage: gpu_cross_check export|check DIR [NAME...]");
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
