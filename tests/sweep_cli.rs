//! `warpsim sweep`, `sweep merge` and `report` end to end through the binary: a rerun simulates
//! only what its cache lacks, shards merge to exactly the unsharded table, bad specifications fail
//! before anything is simulated, Slurm scripts are valid bash, and reports write real figures.

use std::path::{Path, PathBuf};
use std::process::Command;

fn warpsim(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_warpsim")).args(args).output().expect("the warpsim binary runs");
    (out.status.success(), String::from_utf8_lossy(&out.stdout).into(), String::from_utf8_lossy(&out.stderr).into())
}

fn dir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("sweep-cli").join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

const SWEEP: [&str; 6] = ["sweep", "--workloads", "vector_add,saxpy", "--set", "l2.size_kib=12288,49152", "-q"];

fn sweep(out: &Path, extra: &[&str]) -> String {
    let mut args: Vec<&str> = SWEEP.to_vec();
    args.extend(["-o", out.to_str().unwrap()]);
    args.extend(extra);
    let (ok, stdout, stderr) = warpsim(&args);
    assert!(ok, "{stdout}{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    stdout
}

fn read(p: PathBuf) -> String {
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn a_rerun_simulates_only_what_the_cache_lacks() {
    let out = dir("resume");
    let first = sweep(&out, &[]);
    assert!(first.contains("4 runs in") && first.contains("4 simulated, 0 cached; 4 ok"), "{first}");
    let csv = read(out.join("results.csv"));
    assert_eq!(csv.lines().count(), 5);

    let again = sweep(&out, &[]);
    assert!(again.contains("0 simulated, 4 cached"), "{again}");
    assert_eq!(read(out.join("results.csv")), csv);

    // A sweep killed part-way: two entries never written, one left half-written by something
    // else, and a temporary file of an interrupted write.
    let cache = out.join("cache");
    let mut entries: Vec<PathBuf> = std::fs::read_dir(&cache).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    assert_eq!(entries.len(), 4);
    std::fs::remove_file(&entries[0]).unwrap();
    std::fs::remove_file(&entries[1]).unwrap();
    std::fs::write(&entries[2], "{\"simulator\": \"warpsim").unwrap();
    std::fs::write(cache.join(".x.json.1.0.tmp"), "partial").unwrap();
    let resumed = sweep(&out, &[]);
    assert!(resumed.contains("3 simulated, 1 cached"), "{resumed}");
    assert_eq!(read(out.join("results.csv")), csv);
    assert!(sweep(&out, &["--fresh"]).contains("4 simulated, 0 cached"));
}

#[test]
fn shards_merge_into_the_unsharded_table() {
    let root = dir("shards");
    let whole = root.join("whole");
    sweep(&whole, &[]);
    let mut parts = Vec::new();
    for i in 0..3 {
        let d = root.join(format!("shard-{i}"));
        let stdout = sweep(&d, &["--shard", &format!("{i}/3")]);
        assert!(stdout.contains(&format!("shard {i}/3 of")), "{stdout}");
        parts.push(d.join("results.json").display().to_string());
    }
    let merged = root.join("merged");
    let mut args = vec!["sweep", "merge"];
    args.extend(parts.iter().map(String::as_str));
    args.extend(["-o", merged.to_str().unwrap()]);
    let (ok, stdout, stderr) = warpsim(&args);
    assert!(ok && stdout.contains("merged 3 files: 4 of 4 runs"), "{stdout}{stderr}");
    assert_eq!(read(merged.join("results.csv")), read(whole.join("results.csv")));
    assert_eq!(read(merged.join("results.json")), read(whole.join("results.json")));

    // The same shard twice, or a shard of another sweep, is refused.
    let (ok, _, stderr) = warpsim(&["sweep", "merge", &parts[0], &parts[0], "-o", merged.to_str().unwrap()]);
    assert!(!ok && stderr.contains("overlapping shards"), "{stderr}");
    let other = root.join("other");
    let (ok, _, stderr) =
        warpsim(&["sweep", "--workloads", "vector_add", "--set", "l2.size_kib=12288", "-q", "-o", other.to_str().unwrap()]);
    assert!(ok, "{stderr}");
    let other = other.join("results.json").display().to_string();
    let (ok, _, stderr) = warpsim(&["sweep", "merge", &parts[0], &other, "-o", merged.to_str().unwrap()]);
    assert!(!ok && stderr.contains("results of different sweeps"), "{stderr}");
}

#[test]
fn bad_specifications_fail_before_simulating() {
    let root = dir("bad");
    let spec = root.join("study.toml");
    let cases: [(&str, &[&str], &[&str]); 7] = [
        ("", &["--set", "sm.schedulers=2,4"], &["--set sm.schedulers=2,4", "unknown key `sm.schedulers`", "did you mean `sm.scheduler`"]),
        ("", &["--set", "l2.size_kib=4096,lots"], &["`l2.size_kib` expects a non-negative integer, but `lots`"]),
        ("", &["--set", "l2.size_kib="], &["`l2.size_kib`: the list of values is empty"]),
        ("[sweep]\nl2.size_kib = {from = 65536, to = 4096, mul = 2}\n", &[], &["study.toml:2:15: `l2.size_kib`: range `to` (4096) is below `from`"]),
        ("[sweep]\nsm.scheduler = [\"lrr\", \"fifo\"]\n", &[], &["study.toml:2:24: `sm.scheduler` expects one of `lrr`, `gto`, `two-level`"]),
        ("[sweep]\nl2.size_kib = []\n", &[], &["study.toml:2:15: `l2.size_kib`: the list of values is empty"]),
        ("", &["--shard", "3/3"], &["--shard 3/3: shard 3 of 3 does not exist"]),
    ];
    for (i, (file, args, wants)) in cases.iter().enumerate() {
        let out = root.join(format!("out-{i}"));
        let mut all = vec!["sweep", "--workloads", "vector_add", "-o", out.to_str().unwrap()];
        if !file.is_empty() {
            std::fs::write(&spec, file).unwrap();
            all.extend(["--spec", spec.to_str().unwrap()]);
        }
        all.extend(args.iter());
        let (ok, stdout, stderr) = warpsim(&all);
        assert!(!ok, "case {i} succeeded: {stdout}");
        for want in wants.iter() {
            assert!(stderr.contains(want), "case {i}: want {want:?} in {stderr}");
        }
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert!(!out.exists(), "case {i}: something was simulated or written");
    }
}

#[test]
fn slurm_scripts_are_valid_bash() {
    let out = dir("slurm");
    let mut args: Vec<&str> = SWEEP.to_vec();
    args.extend(["-o", out.to_str().unwrap(), "--emit", "slurm", "--shards", "3"]);
    let (ok, stdout, stderr) = warpsim(&args);
    assert!(ok, "{stdout}{stderr}");
    assert!(stdout.contains("sbatch --dependency=afterok:$jobid"), "{stdout}");
    let sweep = read(out.join("sweep.sbatch"));
    assert!(sweep.contains("#SBATCH --array=0-2\n"), "{sweep}");
    assert!(sweep.contains("--shard \"$SLURM_ARRAY_TASK_ID/3\""), "{sweep}");
    assert!(sweep.contains("--set l2.size_kib=12288,49152"), "{sweep}");
    assert!(read(out.join("merge.sbatch")).contains("shard-2/results.json"));
    for script in ["sweep.sbatch", "merge.sbatch"] {
        let st = Command::new("bash").arg("-n").arg(out.join(script)).status().expect("bash runs");
        assert!(st.success(), "{script} is not valid bash");
    }
    assert!(!out.join("cache").exists(), "--emit must not simulate");
}

/// Decodes a PNG: (width, height, pixels per metre, RGB bytes).
fn png(path: &Path) -> (u32, u32, Option<u32>, Vec<u8>) {
    let mut r = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap())).read_info().unwrap();
    let mut buf = vec![0; r.output_buffer_size()];
    let info = r.next_frame(&mut buf).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgb, "{}", path.display());
    buf.truncate(info.buffer_size());
    (info.width, info.height, r.info().pixel_dims.map(|d| d.xppu), buf)
}

/// Makes the report of `input` through the binary and through the library (which says where each
/// plot area is), and checks every figure: a PNG one or two paper columns wide at 300 dpi, with
/// dark ink (data, not only grid lines) inside its plot area, and a well-formed SVG of the same size.
fn check_report(input: &Path, out: &Path, expect: &[&str]) {
    let (ok, stdout, stderr) = warpsim(&["report", input.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert!(ok, "{stdout}{stderr}");
    let r = warpsim_sweep::report(input, &Default::default(), out).unwrap();
    for e in expect {
        assert!(r.figures.iter().any(|f| f.png.file_stem().unwrap() == *e), "no {e} in {stdout}");
    }
    for f in &r.figures {
        assert!(stdout.contains(&format!("wrote {}", f.png.display())), "{stdout}");
        let (w, h, ppm, rgb) = png(&f.png);
        assert_eq!((w, h), f.size_px, "{}", f.png.display());
        assert!(w == 1050 || w == 2100, "{}: width {w}", f.png.display());
        assert!((700..=1500).contains(&h), "{}: height {h}", f.png.display());
        assert_eq!(ppm, Some(11811), "{}: not 300 dpi", f.png.display());
        let p = f.plot_area;
        assert!(p.left > 0 && p.top >= 0 && p.right <= w as i32 && p.bottom <= h as i32, "{p:?}");
        assert!(p.right - p.left > w as i32 / 3 && p.bottom - p.top > h as i32 / 4, "{}: plot area too small: {p:?}", f.png.display());
        let ink = (p.top..p.bottom)
            .flat_map(|y| (p.left..p.right).map(move |x| (x, y)))
            .filter(|&(x, y)| {
                let i = ((y as u32 * w + x as u32) * 3) as usize;
                rgb[i..i + 3].iter().any(|c| *c < 0xC8)
            })
            .count();
        assert!(ink > 500, "{}: the plot area is empty ({ink} dark pixels)", f.png.display());
        let svg = read(f.svg.clone());
        assert!(svg.starts_with("<svg") && svg.contains(&format!("viewBox=\"0 0 {w} {h}\"")), "{}", f.svg.display());
    }
}

#[test]
fn reports_of_a_sweep_and_of_a_run() {
    let root = dir("report");
    let out = root.join("sweep");
    sweep(&out, &["--set", "sm.sub_partitions=2,4"]);
    let page = root.join("page");
    check_report(
        &out.join("results.csv"),
        &page,
        &["cycles_vs_l2_size_kib", "time_norm_vs_l2_size_kib", "ipc_vs_sm_sub_partitions", "speedup_l2_size_kib", "stalls", "roofline"],
    );
    let html = read(page.join("index.html"));
    assert!(html.contains("figures/roofline.svg") && html.contains("<table>"), "{html}");
    assert!(read(page.join("index.md")).contains("![Roofline of hopper-h200"));

    let (ok, _, stderr) = warpsim(&["report", out.join("results.csv").to_str().unwrap(), "-o", page.to_str().unwrap(), "--baseline", "l2.size_kib=7"]);
    assert!(!ok && stderr.contains("baseline `l2.size_kib` = 7 is not a value of the sweep"), "{stderr}");

    let (ok, json, stderr) = warpsim(&["run", "vector_add", "--json"]);
    assert!(ok, "{stderr}");
    let run = root.join("run.json");
    std::fs::write(&run, json).unwrap();
    check_report(&run, &root.join("run"), &["timeline", "stalls"]);
}

/// A sweep into a directory another sweep is writing fails at once, naming the holder, and
/// leaves that directory alone; the lock is gone once a sweep is done.
#[test]
fn a_second_sweep_into_a_busy_directory_is_refused() {
    let out = dir("locked");
    std::fs::write(out.join(".warpsim-sweep.lock"), format!("{}\n", std::process::id())).unwrap();
    let (ok, stdout, stderr) = warpsim(&["sweep", "--workloads", "vector_add", "-q", "-o", out.to_str().unwrap()]);
    assert!(!ok, "{stdout}");
    assert!(stderr.contains(&format!("is in use by another warpsim sweep (process {})", std::process::id())), "{stderr}");
    assert!(!out.join("results.csv").exists());
    std::fs::remove_file(out.join(".warpsim-sweep.lock")).unwrap();
    sweep(&out, &[]);
    assert!(out.join("results.csv").exists() && !out.join(".warpsim-sweep.lock").exists());
}

/// A sweep over three presets with different clocks (reports/examples/three_clocks.toml): every
/// row carries its preset's clock and the GPU time, time × clock = cycles, and the report's
/// cross-preset speedups are ratios of times (a ratio of cycles would be off by the clock ratio).
#[test]
fn sweeps_carry_time_and_cross_preset_speedups_use_it() {
    let out = dir("clocks");
    let spec = concat!(env!("CARGO_MANIFEST_DIR"), "/reports/examples/three_clocks.toml");
    let (ok, stdout, stderr) = warpsim(&["sweep", "--spec", spec, "-q", "-o", out.to_str().unwrap()]);
    assert!(ok, "{stdout}{stderr}");
    let results = warpsim_sweep::Results::read(&out.join("results.csv")).unwrap();
    assert_eq!(results.rows.len(), 6);
    let csv = read(out.join("results.csv"));
    assert!(csv.lines().next().unwrap().contains(",cycles,clock_mhz,time_us,"), "{csv}");
    for r in &results.rows {
        let cfg = warpsim_sim::presets::preset(&r.arch).unwrap();
        assert_eq!(r.clock_mhz, Some(cfg.clock.sm_mhz), "{}", r.arch);
        let (t, c) = (r.time_us().unwrap(), r.m.cycles.unwrap() as f64);
        assert!((t * cfg.clock.sm_mhz - c).abs() <= 1e-9 * c, "{} {}: {t} µs × {} MHz ≠ {c}", r.arch, r.workload, cfg.clock.sm_mhz);
        // Each row names its fully resolved configuration, which reads back as the preset.
        let dumped = read(out.join(&r.config));
        assert_eq!(warpsim_sim::config::ArchConfig::from_toml(&dumped, &r.config).unwrap(), cfg, "{}", r.config);
    }
    let page = out.join("report");
    let (ok, stdout, stderr) = warpsim(&["report", out.join("results.csv").to_str().unwrap(), "-o", page.to_str().unwrap()]);
    assert!(ok, "{stdout}{stderr}");
    let md = read(page.join("index.md"));
    assert!(md.contains("Speedup in GPU time") && md.contains("presets: hopper-h200, ampere-ga100, volta-gv100"), "{md}");
}
