//! `warpsim run` end to end through the binary: the watchdog's budgets on the command line, and
//! what bad input is told.

use std::path::{Path, PathBuf};
use std::process::Command;

fn warpsim(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_warpsim")).args(args).env("WARPSIM_CUDA", "none").output().expect("the warpsim binary runs");
    (out.status.success(), String::from_utf8_lossy(&out.stdout).into(), String::from_utf8_lossy(&out.stderr).into())
}

fn dir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("run-cli").join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn max_cycles_and_timeout_stop_a_run_and_a_sweep_row() {
    let (ok, _, err) = warpsim(&["run", "vector_add", "--max-cycles", "500"]);
    assert!(!ok && err.contains("kernel `vector_add`: watchdog: still running after the budget of 500 cycles (--max-cycles)"), "{err}");
    let (ok, _, err) = warpsim(&["run", "vector_add", "--functional", "--max-cycles", "500"]);
    assert!(!ok && err.contains("the budget of 500 warp instructions"), "{err}");
    let (ok, _, err) = warpsim(&["run", "vector_add", "--timeout", "0.000001"]);
    assert!(!ok && err.contains("still running after the wall-clock budget of 0.000001 s (--timeout)"), "{err}");
    for bad in [["--timeout", "0"], ["--timeout", "soon"], ["--max-cycles", "0"]] {
        let (ok, _, err) = warpsim(&["run", "vector_add", bad[0], bad[1]]);
        assert!(!ok && err.contains(bad[0]), "{bad:?}: {err}");
    }
    // A sweep: the stopped run is an error row and the sweep finishes.
    let out = dir("sweep-budget");
    let (ok, stdout, err) = warpsim(&["sweep", "--workloads", "vector_add,saxpy", "--max-cycles", "500", "-q", "-o", out.to_str().unwrap()]);
    assert!(ok, "{stdout}{err}");
    assert!(stdout.contains("2 runs in") && stdout.contains("0 ok, 0 unsupported, 2 errors"), "{stdout}");
}

/// A manifest whose PTX does not parse: `run` reports the PTX's error at its own
/// file:line:column, not the manifest check the broken PTX fails (`no `.entry k(``).
#[test]
fn run_reports_the_ptx_error_of_a_broken_ptx() {
    let d = dir("broken-ptx");
    std::fs::write(
        d.join("k.toml"),
        "name = \"k\"\nptx = \"k.ptx\"\nentry = \"k\"\ngrid = [1, 1, 1]\nblock = [32, 1, 1]\n[[buffer]]\nname = \"x\"\ndtype = \"u32\"\nlen = 32\n[[arg]]\nbuffer = \"x\"\n",
    )
    .unwrap();
    // The body's closing brace is missing.
    std::fs::write(d.join("k.ptx"), ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(\n\t.param .u64 k_param_0\n)\n{\n\tret;\n").unwrap();
    let (ok, _, err) = warpsim(&["run", d.join("k.toml").to_str().unwrap()]);
    assert!(!ok, "{err}");
    assert!(err.contains("k.ptx:8:6: expected `}` closing the body, found end of file (the PTX of "), "{err}");
    assert!(!err.contains("no `.entry"), "{err}");
}

/// Sizes given on the command line are checked before anything is built: worker threads, and
/// configuration overrides that would make the model allocate without bound or overflow.
#[test]
fn threads_and_overrides_are_bounded() {
    let (ok, _, err) = warpsim(&["run", "vector_add", "--threads", "5000"]);
    assert!(!ok && err.contains("--threads") && err.contains("5000 is not in 1..=256"), "{err}");
    for (set, want) in [
        ("sm.count=100000", "invalid `sm.count` = 100000: must be at most 1024"),
        ("l2.size_kib=4294967295", "invalid `l2.size_kib` = 4294967295: must be at most 1048576"),
        ("dram.banks=4294967295", "invalid `dram.banks` = 4294967295: must be at most 1024"),
        ("dram.bandwidth_gbs=1e-300", "invalid `dram.bandwidth_gbs` = 1e-300: must be between 1 and 1000000"),
    ] {
        let (ok, _, err) = warpsim(&["run", "vector_add", "--set", set]);
        assert!(!ok && err.contains(want), "{set}: {err}");
    }
}

/// `ptx check` on a file with bytes that are not UTF-8 names the byte, its offset and position.
#[test]
fn ptx_check_locates_invalid_utf8() {
    let d = dir("utf8");
    std::fs::write(d.join("k.ptx"), b".version 9.0\n.target sm_90\n// \xff\n").unwrap();
    let (ok, _, err) = warpsim(&["ptx", "check", d.join("k.ptx").to_str().unwrap()]);
    assert!(!ok && err.contains("k.ptx:3:4: not UTF-8 text: byte 0xff at byte offset 30"), "{err}");
}

/// `--dump` writes every buffer, inputs too, streamed from the device: the input as generated,
/// the output as the check saw it; its note goes to stderr, so `--json`'s stdout stays one document.
#[test]
fn dump_writes_every_buffer() {
    let d = dir("dump");
    let (ok, out, err) = warpsim(&["run", "saxpy", "--json", "--dump", d.to_str().unwrap()]);
    assert!(ok && err.contains("dumped 2 buffers"), "{out}{err}");
    serde_json::from_str::<serde_json::Value>(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    let w = warpsim_workloads::Workload::bundled("saxpy").unwrap();
    assert_eq!(std::fs::read(d.join("x.bin")).unwrap(), w.inputs[0].to_vec());
    let y = std::fs::read(d.join("y.bin")).unwrap();
    assert_eq!(y.len() as u64, w.manifest.buffers[1].bytes());
    assert!(w.check(&w.inputs, [("y", y.as_slice())]).passed());
}

/// `run --dump-config FILE` writes the fully resolved configuration, overrides applied, and
/// `--arch FILE` reproduces the run from it; `run` reports the clock and the GPU time.
#[test]
fn dump_config_reproduces_the_run() {
    let d = dir("dump-config");
    let file = d.join("resolved.toml");
    let (ok, first, stderr) = warpsim(&["run", "vector_add", "--arch", "volta-gv100", "--set", "l2.size_kib=3072", "--json", "--dump-config", file.to_str().unwrap()]);
    assert!(ok, "{stderr}");
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.contains("size_kib = 3072") && text.starts_with("# The fully resolved configuration"), "{text}");
    let (ok, again, stderr) = warpsim(&["run", "vector_add", "--arch", file.to_str().unwrap(), "--json"]);
    assert!(ok, "{stderr}");
    let (a, b): (serde_json::Value, serde_json::Value) = (serde_json::from_str(&first).unwrap(), serde_json::from_str(&again).unwrap());
    assert_eq!(a["cycles"], b["cycles"]);
    assert_eq!(a["clock_mhz"], 1530.0);
    let (t, c) = (a["time_us"].as_f64().unwrap(), a["cycles"].as_f64().unwrap());
    assert!((t * 1530.0 - c).abs() < 1e-6 * c, "{t} µs, {c} cycles");
}

/// Keys read only in SASS mode (sim/tests/knobs.rs lists them as SASS_ONLY) move a committed
/// listing's run, halved and doubled: `pipes.lsu.latency` vector_add's, `sm.register_banks`
/// ffma_tput's (one bank: every second read conflicts; four: fewer do), the indirect-branch
/// costs switch_table_d2's (the BRX jump tables are ptxas's: its PTX has a tree of BRAs), and
/// the mbarrier wake mbarrier_pingpong's (PTX mode's wake is `misc.mbarrier_latency`).
#[test]
fn sass_mode_reads_its_own_keys() {
    let cycles = |workload: &str, set: &[String]| {
        let mut args = vec!["run", workload, "--isa", "sass", "--json"];
        args.extend(set.iter().flat_map(|s| ["--set", s.as_str()]));
        let (ok, out, err) = warpsim(&args);
        assert!(ok, "{err}");
        serde_json::from_str::<serde_json::Value>(&out).expect("run --json prints JSON")["cycles"].as_u64().expect("cycles")
    };
    let rows = [
        ("pipes.lsu.latency", 4, "vector_add"),
        ("sm.register_banks", 2, "ffma_tput"),
        ("misc.indexed_branch_cycles", 95, "switch_table_d2"),
        ("misc.indexed_branch_split_cycles", 130, "switch_table_d2"),
        ("misc.indexed_branch_issue_cycles", 7, "switch_table_d2"),
        ("misc.mbarrier_wake_latency", 28, "mbarrier_pingpong"),
    ];
    for (key, value, workload) in rows {
        let base = cycles(workload, &[format!("{key}={value}")]);
        for moved in [value / 2, value * 2] {
            assert_ne!(cycles(workload, &[format!("{key}={moved}")]), base, "{key}={moved} on {workload}");
        }
    }
}

/// A SASS `RED` is a reduction at the L2 as PTX mode's result-less atomic is: both modes count
/// histogram_uniform's sectors as `lts__t_sectors_op_red`, the same number, and none as atomics.
#[test]
fn sass_reductions_count_as_red_sectors() {
    let counters = |isa: &str| {
        let (ok, out, err) = warpsim(&["run", "histogram_uniform", "--isa", isa, "--json"]);
        assert!(ok, "{err}");
        let v: serde_json::Value = serde_json::from_str(&out).expect("run --json prints JSON");
        let get = |k: &str| v["counters"][k].as_f64().unwrap_or_else(|| panic!("{isa}: no {k}"));
        (get("lts__t_sectors_op_red.sum"), get("lts__t_sectors_op_atom.sum"))
    };
    let (ptx, sass) = (counters("ptx"), counters("sass"));
    assert!(ptx.0 > 0.0, "{ptx:?}");
    assert_eq!(sass, ptx);
}

/// `WARPGROUP.DEPBAR` waits for the group its `HGMMA … gsb0` closed: SASS mode's wgmma_latency
/// (a chain of dependent wgmma groups) takes within 15% of PTX mode's cycles, not the issue time
/// of the instructions alone (40% of them when nothing closed the groups).
#[test]
fn sass_warpgroup_waits_for_committed_groups() {
    let cycles = |isa: &str| {
        let (ok, out, err) = warpsim(&["run", "wgmma_latency", "--isa", isa, "--json"]);
        assert!(ok, "{err}");
        serde_json::from_str::<serde_json::Value>(&out).expect("run --json prints JSON")["cycles"].as_f64().expect("cycles")
    };
    let (ptx, sass) = (cycles("ptx"), cycles("sass"));
    assert!((sass / ptx - 1.0).abs() < 0.15, "SASS {sass} against PTX {ptx} cycles");
}
