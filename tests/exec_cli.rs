//! `warpsim exec` end to end: the example programs of workloads/programs (binaries committed,
//! built by its build.sh with nvcc -cudart shared) run unmodified on the simulator through
//! warpsim-cudart, print PASS, and their reports list every launch with its cycles.

use std::path::{Path, PathBuf};
use std::process::Command;

fn program(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("workloads/programs/bin").join(name)
}

fn report_path(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("exec-cli");
    std::fs::create_dir_all(&d).unwrap();
    d.join(format!("{name}.json"))
}

/// Runs `warpsim exec [extra] --report R -- program`; (success, stdout, stderr, report).
fn exec(name: &str, extra: &[&str]) -> (bool, String, String, serde_json::Value) {
    let report = report_path(&format!("{name}{}", extra.join("")));
    let _ = std::fs::remove_file(&report);
    let out = Command::new(env!("CARGO_BIN_EXE_warpsim"))
        .arg("exec")
        .args(extra)
        .arg("--report")
        .arg(&report)
        .arg("--")
        .arg(program(name))
        .output()
        .expect("the warpsim binary runs");
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned());
    let r = std::fs::read_to_string(&report).map(|t| serde_json::from_str(&t).expect("the report is JSON")).unwrap_or(serde_json::Value::Null);
    (out.status.success(), stdout, stderr, r)
}

fn launches(r: &serde_json::Value) -> &Vec<serde_json::Value> {
    r["launches"].as_array().expect("a launches list")
}

/// Every launch has cycles and a time, and launches follow each other on the device timeline.
fn check_timeline(r: &serde_json::Value, mhz: f64) {
    let mut end = 0.0;
    for l in launches(r) {
        let (cycles, start, time) = (l["cycles"].as_u64().unwrap(), l["start_us"].as_f64().unwrap(), l["time_us"].as_f64().unwrap());
        assert!(cycles > 0, "{l}");
        assert!((time - cycles as f64 / mhz).abs() < 1e-6, "time is cycles at the preset's clock: {l}");
        assert!(start >= end - 1e-9, "launch starts before the previous one ends: {l}");
        end = start + time;
        assert!(l["counters"]["smsp__inst_executed.sum"].as_f64().unwrap() > 0.0, "{l}");
    }
}

fn h200_mhz() -> f64 {
    warpsim_sim::presets::preset("hopper-h200").unwrap().clock.sm_mhz
}

#[test]
fn two_pass_reduction() {
    let (ok, out, err, r) = exec("reduce", &[]);
    assert!(ok && out.contains("PASS"), "{out}{err}");
    assert!(out.contains("device: NVIDIA H200, 132 SMs, sm_90"), "{out}");
    let kernels: Vec<&str> = launches(&r).iter().map(|l| l["kernel"].as_str().unwrap()).collect();
    assert_eq!(kernels, ["partial_sums(int const*, long long*, int)", "final_sum(long long const*, long long*, int)"]);
    assert_eq!(launches(&r)[0]["grid"], serde_json::json!([264, 1, 1]));
    assert_eq!(launches(&r)[0]["dynamic_smem"], 64);
    check_timeline(&r, h200_mhz());
    // The events measured the two kernels' simulated time.
    let us: f64 = launches(&r).iter().map(|l| l["time_us"].as_f64().unwrap()).sum();
    assert!(out.contains(&format!("{us:.3} us")), "{out} vs {us}");
    assert!(err.contains("warpsim exec: 2 launches on hopper-h200"), "{err}");
}

#[test]
fn stencil_over_two_streams() {
    let (ok, out, err, r) = exec("stencil", &[]);
    assert!(ok && out.contains("PASS"), "{out}{err}");
    let l = launches(&r);
    assert_eq!(l.len(), 20);
    assert!(l.iter().all(|l| l["mangled"] == "_Z6jacobiPKfPfiif" && l["grid"] == serde_json::json!([4, 12, 1])));
    let streams: Vec<u64> = l.iter().map(|l| l["stream"].as_u64().unwrap()).collect();
    assert_eq!(&streams[..4], [1, 2, 1, 2]);
    check_timeline(&r, h200_mhz());
}

#[test]
fn bfs_with_templates_constant_memory_and_printf() {
    let (ok, out, err, r) = exec("bfs", &[]);
    assert!(ok && out.contains("PASS"), "{out}{err}");
    let l = launches(&r);
    let levels = l.len() / 2;
    assert!(levels > 3 && l.len() % 2 == 0, "{}", l.len());
    // Device printf: one line per level, in order, before the host's summary line.
    let printed: Vec<&str> = out.lines().filter(|s| s.starts_with("level ")).collect();
    let expect: Vec<String> = (0..levels).map(|i| format!("level {i}: expanding")).collect();
    assert_eq!(printed, expect);
    assert!(out.find("level 0:").unwrap() < out.find("BFS over").unwrap());
    assert_eq!(l[0]["kernel"], "void expand<int>(int const*, int const*, int*, unsigned char const*, unsigned char*, int)");
    assert_eq!(l[1]["kernel"], "clear(unsigned char*, int)");
    check_timeline(&r, h200_mhz());
}

/// Another preset through --arch and --set: its SM count reaches the program, its clock the
/// report; the worker threads change nothing.
#[test]
fn presets_and_threads() {
    let (ok, out, err, r) = exec("reduce", &["--arch", "ampere-ga100", "--set", "sm.count=54", "--threads", "1"]);
    assert!(ok && out.contains("PASS") && out.contains("54 SMs, sm_80"), "{out}{err}");
    assert_eq!(r["arch"], "ampere-ga100");
    assert_eq!(launches(&r)[0]["grid"], serde_json::json!([108, 1, 1]));
    let (_, _, _, r4) = exec("reduce", &["--arch", "ampere-ga100", "--set", "sm.count=54", "--threads", "4"]);
    let cycles = |r: &serde_json::Value| launches(r).iter().map(|l| l["cycles"].as_u64().unwrap()).collect::<Vec<_>>();
    assert_eq!(cycles(&r), cycles(&r4));
}

/// A program that is not a CUDA program (it never loads libcudart.so.13) is told apart from one
/// that ran; a program that is not there is an error naming it.
#[test]
fn programs_that_cannot_be_simulated_are_clear_errors() {
    let out = Command::new(env!("CARGO_BIN_EXE_warpsim")).args(["exec", "--", "true"]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("did not load the simulator's libcudart.so.13") && err.contains("-cudart shared"), "{err}");
}

#[test]
fn a_program_that_is_not_there_is_a_clear_error() {
    let (ok, _, err, _) = exec("no-such-program", &[]);
    assert!(!ok && err.contains("cannot run") && err.contains("no-such-program"), "{err}");
}

/// `warpsim report` on an exec report (the stencil's 20 launches over two streams): a timeline
/// image with a bar per launch, and the launch table on the page.
#[test]
fn report_draws_the_exec_timeline() {
    let (ok, out, err, _) = exec("stencil", &[]);
    assert!(ok, "{out}{err}");
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("exec-cli/stencil-report");
    let _ = std::fs::remove_dir_all(&dir);
    let r = Command::new(env!("CARGO_BIN_EXE_warpsim")).arg("report").arg(report_path("stencil")).arg("--out").arg(&dir).output().unwrap();
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let png = dir.join("figures/launches.png");
    assert!(std::fs::metadata(&png).map(|m| m.len() > 1000).unwrap_or(false), "{png:?}");
    let page = std::fs::read_to_string(dir.join("index.md")).unwrap();
    assert!(page.contains("20 kernel launches") || page.contains("kernel launches"), "{page}");
}
