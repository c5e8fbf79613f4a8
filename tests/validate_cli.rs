//! `warpsim validate` end to end through the binary, on a machine without a GPU: gpu-run must
//! fail cleanly (a message and a non-zero status, no panic); the self-check and merge work;
//! calibrating again regenerates the shipped H200 preset.

use std::process::Command;

fn warpsim(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_warpsim")).args(args).output().expect("the warpsim binary runs")
}

#[test]
fn gpu_run_without_a_driver_fails_cleanly() {
    if warpsim_validate::driver_present() {
        eprintln!("libcuda is present here: the no-driver path cannot be tested");
        return;
    }
    let out = warpsim(&["validate", "gpu-run", "--workloads", "vector_add"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "stderr: {stderr}");
    assert_eq!(stderr.trim(), "error: no CUDA driver (libcuda.so.1) on this machine");
    assert!(!stderr.contains("panicked"));
}

#[test]
fn self_check_passes_tensor_map_workloads() {
    // The dry run's device is the simulator, whose tensor-map bytes are the ones to compare.
    let out = warpsim(&["validate", "self-check", "--workloads", "tma_copy_double,tma_multicast"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("2 PASS, 0 FAIL, 0 not checked, 0 errors"), "{stdout}");
}

#[test]
fn self_check_then_merge() {
    let dir = std::env::temp_dir().join(format!("warpsim-validate-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let run = dir.join("run.json");
    let out = warpsim(&["validate", "self-check", "--workloads", "vector_add,copy_stride_1", "--out", run.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("2 workloads in") && stdout.contains("2 PASS, 0 FAIL"), "{stdout}");

    let header = r#""ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value""#;
    let row = |id: u32, kernel: &str, grid: u32, metric: &str, unit: &str, value: &str| {
        format!(r#""{id}","1","warpsim","h","{kernel}","1","7","(256, 1, 1)","({grid}, 1, 1)","0","9.0","Command line profiler metrics","{metric}","{unit}","{value}""#)
    };
    let csv = [
        header.to_string(),
        row(0, "vector_add", 256, "gpc__cycles_elapsed.max", "cycle", "7,021"),
        row(0, "vector_add", 256, "gpu__time_duration.sum", "nsecond", "5,120"),
        row(1, "copy_strided", 128, "gpc__cycles_elapsed.max", "cycle", "9,876"),
    ]
    .join("\n");
    let ncu = dir.join("ncu.csv");
    std::fs::write(&ncu, csv).unwrap();
    let merged = dir.join("merged.json");
    let out = warpsim(&[
        "validate", "merge", "--run", run.to_str().unwrap(), "--ncu", ncu.to_str().unwrap(), "--out", merged.to_str().unwrap(), "--note", "test",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    let d = warpsim_validate::Dataset::load(&merged).unwrap();
    let cycles: Vec<Option<u64>> = d.workloads.iter().map(|r| r.cycles).collect();
    assert_eq!(cycles, [Some(7021), Some(9876)]);
    assert_eq!(d.notes, ["test"]);
    assert!(dir.join("merged.csv").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Calibration is reproducible: fitting `hopper-h200-datasheet` to the dataset the shipped
/// `hopper-h200` preset names, with the code its header names (SASS mode, the default of `run`
/// and `correlate`: the knobs' microbenchmarks run as the machine code ptxas makes, from the
/// suite's committed listings), regenerates that preset byte for byte.
#[test]
fn the_shipped_h200_preset_is_the_calibration_of_its_dataset() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let shipped = std::fs::read_to_string(root.join("sim/presets/hopper-h200.toml")).unwrap();
    // The header names the dataset and the command: "# validate/data/h200/<date>.json (N
    // workloads); ..." and "#   warpsim validate calibrate --isa sass --out ...".
    let header: Vec<&str> = shipped.lines().take(4).collect();
    let label = header
        .iter()
        .flat_map(|l| l.split_whitespace())
        .find(|w| w.starts_with("validate/data/") && w.ends_with(".json"))
        .expect("the shipped preset's header names its dataset");
    let isa = if header.iter().any(|l| l.contains("calibrate --isa sass")) { "sass" } else { "ptx" };
    let out = std::env::temp_dir().join(format!("warpsim-calibrate-{}.toml", std::process::id()));
    let data = root.join(label);
    let run = Command::new(env!("CARGO_BIN_EXE_warpsim"))
        .current_dir(root)
        .env("WARPSIM_CUDA", "none")
        .args(["validate", "calibrate", "--isa", isa, "--data", data.to_str().unwrap(), "--out", out.to_str().unwrap()])
        .output()
        .expect("the warpsim binary runs");
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let text = std::fs::read_to_string(&out).unwrap();
    let _ = std::fs::remove_file(&out);
    if text != shipped {
        let diff: Vec<String> =
            shipped.lines().zip(text.lines()).filter(|(a, b)| a != b).take(10).map(|(a, b)| format!("- {a}\n+ {b}")).collect();
        panic!(
            "calibrating again gives a different preset; rerun `warpsim validate calibrate --isa {isa} --out \
             sim/presets/hopper-h200.toml` and commit it with the change that moved it:\n{}",
            diff.join("\n")
        );
    }
}
