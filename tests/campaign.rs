//! The bad-input campaign of the reliability issue (16), seeded and bounded so that it runs in CI:
//! mutated PTX over the whole corpus (opcode swaps, dropped and duplicated operands, brackets
//! removed, types swapped, huge numbers), mutated manifests of the whole suite, `--set` overrides
//! with extreme, negative, NaN and huge values for every configuration key, mutated sweep specs
//! and datasets, and a few command lines through the binary. Library calls run in-process under
//! `catch_unwind` (a panic is a finding); what loads is run under small watchdog budgets, so a
//! hang is a budget stop, not a stuck test; the command lines run as bounded subprocesses (an
//! abort or a signal is a finding). Every rejection must be an error, and PTX and manifest errors
//! must carry `file:line:column`. Each kind prints its counts (inputs tried, rejected with a
//! location, rejected otherwise, ran or loaded fine).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use warpsim_sim::watchdog::Limits;
use warpsim_workloads::Workload;

/// splitmix64: the campaign's only source of choices, so every run tries the same inputs.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        warpsim_workloads::rng::splitmix64(&mut self.0)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }
}

/// Counts of one kind, and its findings (each with the input that caused it).
#[derive(Default)]
struct Tally {
    tried: usize,
    located: usize,
    rejected: usize,
    fine: usize,
    findings: Vec<String>,
}

impl Tally {
    /// Runs `f` on one input; a panic or a slow answer is a finding.
    fn run<T>(&mut self, what: &str, f: impl FnOnce() -> T) -> Option<T> {
        self.tried += 1;
        let t = Instant::now();
        let r = catch_unwind(AssertUnwindSafe(f));
        if t.elapsed() > Duration::from_secs(20) {
            self.findings.push(format!("took {:?}: {what}", t.elapsed()));
        }
        match r {
            Ok(v) => Some(v),
            Err(p) => {
                let msg = p.downcast_ref::<String>().cloned().or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string())).unwrap_or_default();
                self.findings.push(format!("panic `{msg}`: {what}"));
                None
            }
        }
    }

    /// Files the outcome of one input: an error with a location, another error, or success.
    fn file(&mut self, outcome: Result<(), String>, located: impl Fn(&str) -> bool, need_location: bool, what: &str) {
        match outcome {
            Ok(()) => self.fine += 1,
            Err(e) if located(&e) => self.located += 1,
            Err(e) => {
                self.rejected += 1;
                if need_location {
                    self.findings.push(format!("error without a location `{e}`: {what}"));
                }
            }
        }
    }

    fn report(&self, kind: &str) {
        eprintln!("{kind}: {} tried, {} rejected with a location, {} rejected otherwise, {} fine", self.tried, self.located, self.rejected, self.fine);
        assert!(self.findings.is_empty(), "{kind}: {} findings:\n{}", self.findings.len(), self.findings.join("\n"));
    }
}

/// Whether `e` starts with `file:line:column: ` (line and column numbers).
fn at_location(e: &str, file: &str) -> bool {
    let Some(rest) = e.find(file).map(|i| &e[i + file.len()..]) else { return false };
    let mut parts = rest.splitn(3, ':');
    parts.next() == Some("") && parts.next().is_some_and(|l| !l.is_empty() && l.bytes().all(|b| b.is_ascii_digit())) && parts.next().is_some_and(|c| c.split(':').next().is_some_and(|c| !c.is_empty() && c.bytes().all(|b| b.is_ascii_digit())))
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn files_under(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            files_under(&p, ext, out);
        } else if p.extension().is_some_and(|x| x == ext) {
            out.push(p);
        }
    }
}

fn sorted_files(dirs: &[&str], ext: &str) -> Vec<PathBuf> {
    let mut v = Vec::new();
    for d in dirs {
        files_under(&root().join(d), ext, &mut v);
    }
    v.sort();
    v
}

/// Limits under which whatever still loads is run: small enough that a runaway costs little.
fn limits() -> Limits {
    Limits { max_cycles: 300_000, timeout: Some(Duration::from_secs(5)), ..Limits::default() }
}

// ---------------------------------------------------------------------------------------------
// PTX

const TYPES: &[&str] = &[".f32", ".f64", ".s32", ".u32", ".u64", ".s64", ".b32", ".b64", ".f16", ".pred", ".b8", ".u16", ".f16x2", ".b128"];
const HUGE: &[&str] = &["99999999999999999999", "4294967296", "-9223372036854775809", "18446744073709551615", "2147483648", "0x7fffffffffffffff", "100000000"];

/// Splits the operand list of an instruction line at its top-level commas.
fn split_operands(ops: &str) -> Vec<String> {
    let (mut out, mut cur, mut depth) = (Vec::new(), String::new(), 0i32);
    for c in ops.chars() {
        match c {
            '[' | '{' | '(' => depth += 1,
            ']' | '}' | ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(std::mem::take(&mut cur));
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    out.push(cur);
    out
}

/// One mutation of the instruction at line `n` of `lines` (kind chosen by `rng`), or of any line
/// for the huge-number kind; returns the mutation's name.
fn mutate_ptx(lines: &mut [String], insts: &[usize], rng: &mut Rng) -> &'static str {
    let n = *rng.pick(insts);
    let line = lines[n].clone();
    let body = line.trim_start();
    let indent = &line[..line.len() - body.len()];
    let (guard, body) = match body.strip_prefix('@') {
        Some(g) => {
            let (p, rest) = g.split_once(char::is_whitespace).unwrap_or((g, ""));
            (format!("@{p} "), rest.trim_start())
        }
        None => (String::new(), body),
    };
    let (opcode, rest) = body.split_once(char::is_whitespace).unwrap_or((body.trim_end_matches(';'), ""));
    let ops_text = rest.trim().trim_end_matches(';');
    let mut ops = if ops_text.is_empty() { Vec::new() } else { split_operands(ops_text) };
    let rebuild = |opcode: &str, ops: &[String]| format!("{indent}{guard}{opcode} {};", ops.iter().map(|o| o.trim()).collect::<Vec<_>>().join(", "));
    match rng.below(6) {
        0 => {
            // Another instruction's opcode (with its modifiers), from the same file.
            let other = lines[*rng.pick(insts)].trim_start().to_string();
            let word = other.split_whitespace().find(|w| !w.starts_with('@')).unwrap_or("add.s32").trim_end_matches(';').to_string();
            lines[n] = rebuild(&word, &ops);
            "opcode swap"
        }
        1 if !ops.is_empty() => {
            ops.remove(rng.below(ops.len()));
            lines[n] = rebuild(opcode, &ops);
            "dropped operand"
        }
        2 if !ops.is_empty() => {
            let i = rng.below(ops.len());
            ops.insert(i, ops[i].clone());
            lines[n] = rebuild(opcode, &ops);
            "duplicated operand"
        }
        3 if line.contains('[') || line.contains('{') => {
            let (a, b) = if line.contains('[') && (rng.below(2) == 0 || !line.contains('{')) { ('[', ']') } else { ('{', '}') };
            lines[n] = line.replace([a, b], " ");
            "brackets removed"
        }
        4 if TYPES.iter().any(|t| opcode.contains(t)) => {
            let from = TYPES.iter().find(|t| opcode.contains(*t)).copied().unwrap_or(".f32");
            let to = *rng.pick(TYPES);
            lines[n] = rebuild(&opcode.replacen(from, to, 1), &ops);
            "type swap"
        }
        _ => {
            // A huge number: in an operand, a register range or an array size anywhere.
            let huge = *rng.pick(HUGE);
            let decls: Vec<usize> = lines.iter().enumerate().filter(|(_, l)| l.contains('<') || l.trim_start().starts_with(".global") || l.trim_start().starts_with(".shared")).map(|(i, _)| i).collect();
            if !decls.is_empty() && rng.below(2) == 0 {
                let d = *rng.pick(&decls);
                let l = &lines[d];
                let digits: Vec<(usize, usize)> = digit_runs(l);
                if let Some(&(s, e)) = (!digits.is_empty()).then(|| rng.pick(&digits)) {
                    lines[d] = format!("{}{huge}{}", &l[..s], &l[e..]);
                }
            } else if let Some(&(s, e)) = Some(digit_runs(&line)).filter(|d| !d.is_empty()).as_ref().map(|d| rng.pick(d)) {
                lines[n] = format!("{}{huge}{}", &line[..s], &line[e..]);
            } else {
                ops.push(huge.to_string());
                lines[n] = rebuild(opcode, &ops);
            }
            "huge number"
        }
    }
}

/// Byte ranges of the decimal numbers of a line that are not part of a name.
fn digit_runs(l: &str) -> Vec<(usize, usize)> {
    let b = l.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_digit() && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || matches!(b[i - 1], b'_' | b'%' | b'$' | b'.'))) {
            let s = i;
            while i < b.len() && b[i].is_ascii_alphanumeric() {
                i += 1;
            }
            out.push((s, i));
        } else {
            i += 1;
        }
    }
    out
}

fn instruction_lines(lines: &[String]) -> Vec<usize> {
    lines
        .iter()
        .enumerate()
        .filter(|(_, l)| {
            let t = l.trim_start();
            t.ends_with(';') && !t.starts_with('.') && !t.starts_with("//") && !t.starts_with('{') && !t.starts_with('}')
        })
        .map(|(i, _)| i)
        .collect()
}

#[test]
fn mutated_ptx_of_the_whole_corpus_is_rejected_at_a_location_or_lowers() {
    let files = sorted_files(&["isa/tests/corpus/ptx", "isa/tests/corpus/ptx_nvrtc", "workloads/suite"], "ptx");
    assert!(files.len() > 150, "{} PTX files", files.len());
    let mut rng = Rng(16);
    let mut t = Tally::default();
    let mut by_kind: std::collections::BTreeMap<&str, [usize; 2]> = Default::default();
    for path in &files {
        let src = std::fs::read_to_string(path).unwrap();
        let lines: Vec<String> = src.lines().map(String::from).collect();
        let insts = instruction_lines(&lines);
        if insts.is_empty() {
            continue;
        }
        for _ in 0..12 {
            let mut m = lines.clone();
            let kind = mutate_ptx(&mut m, &insts, &mut rng);
            let text = m.join("\n");
            let what = format!("{} ({kind}): {}", path.display(), first_diff(&lines, &m));
            if let Some(r) = t.run(&what, || warpsim_isa::load(&text, "m.ptx").map(|_| ()).map_err(|e| e.to_string())) {
                let entry = by_kind.entry(kind).or_default();
                entry[0] += 1;
                entry[1] += r.is_err() as usize;
                t.file(r, |e| at_location(e, "m.ptx"), true, &what);
            }
        }
    }
    for (k, [n, rej]) in &by_kind {
        eprintln!("  {k}: {n} tried, {rej} rejected");
    }
    t.report("mutated PTX");
}

/// The first line that differs, for findings.
fn first_diff(a: &[String], b: &[String]) -> String {
    a.iter().zip(b).enumerate().find(|(_, (x, y))| x != y).map_or_else(String::new, |(i, (x, y))| format!("line {}: `{}` -> `{}`", i + 1, x.trim(), y.trim()))
}

/// Suite workloads small enough to run many times (their buffers under 4 MiB).
fn small_workloads() -> Vec<(PathBuf, String)> {
    sorted_files(&["workloads/suite"], "toml")
        .into_iter()
        .filter_map(|p| {
            let src = std::fs::read_to_string(&p).ok()?;
            let w = Workload::load(&p).ok()?;
            let bytes: u64 = w.manifest.buffers.iter().map(|b| b.bytes()).sum();
            (bytes < 4 << 20 && w.launch().blocks() * w.launch().threads_per_block() <= 1 << 20).then_some((p, src))
        })
        .collect()
}

/// A manifest's text loaded as the file at `path`, its PTX replaced by `ptx` when given.
fn load_manifest(src: &str, path: &Path, ptx: Option<&str>) -> Result<Workload, String> {
    let dir = path.parent().unwrap().to_path_buf();
    let read = |rel: &str| -> std::io::Result<Vec<u8>> {
        match ptx {
            Some(p) if rel.ends_with(".ptx") => Ok(p.as_bytes().to_vec()),
            _ => std::fs::read(dir.join(rel)),
        }
    };
    Workload::parse(src, path, &read).map_err(|e| e.to_string())
}

/// Runs what loaded, functionally under small budgets: a fault or a watchdog stop is an answer.
fn run_small(w: &Workload) -> Result<(), String> {
    let cfg = warpsim_sim::presets::preset("hopper-h200").unwrap();
    warpsim_sim::launch::run_functional_within(w, &cfg, &limits()).map(|_| ()).map_err(|e| e.to_string())
}

#[test]
fn mutated_suite_kernels_that_still_lower_run_without_a_panic() {
    let mut rng = Rng(1616);
    let mut t = Tally::default();
    let small = small_workloads();
    assert!(small.len() > 40, "{} small workloads", small.len());
    for (path, manifest) in &small {
        let ptx_path = path.parent().unwrap().join("kernel.ptx");
        let Ok(src) = std::fs::read_to_string(&ptx_path) else { continue };
        let lines: Vec<String> = src.lines().map(String::from).collect();
        let insts = instruction_lines(&lines);
        for _ in 0..4 {
            let mut m = lines.clone();
            let kind = mutate_ptx(&mut m, &insts, &mut rng);
            let text = m.join("\n");
            let what = format!("{} ({kind}): {}", path.display(), first_diff(&lines, &m));
            if let Some(r) = t.run(&what, || {
                let w = load_manifest(manifest, path, Some(&text))?;
                run_small(&w)
            }) {
                t.file(r, |_| true, false, &what);
            }
        }
    }
    t.report("mutated suite kernels, run");
}

// ---------------------------------------------------------------------------------------------
// Manifests

/// Values a mutated number becomes: none of them makes a legal buffer of more than a few bytes.
const EXTREME: &[&str] = &["0", "-1", "1", "3", "17179869185", "1e300", "nan", "inf", "-inf", "18446744073709551616", "1.5", "-2147483649", "\"x\"", "[]"];

/// One mutation of a TOML (or JSON) text: a number made extreme, a line dropped, duplicated or
/// swapped, a string garbled, a dtype changed, the text cut short.
fn mutate_text(src: &str, rng: &mut Rng) -> (String, &'static str) {
    let mut lines: Vec<String> = src.lines().map(String::from).collect();
    if lines.is_empty() {
        return (String::new(), "empty");
    }
    let n = rng.below(lines.len());
    let kind = match rng.below(7) {
        0 | 1 => {
            let runs = digit_runs(&lines[n]);
            match (!runs.is_empty()).then(|| *rng.pick(&runs)) {
                Some((s, e)) => {
                    lines[n] = format!("{}{}{}", &lines[n][..s], rng.pick(EXTREME), &lines[n][e..]);
                    "extreme number"
                }
                None => {
                    lines.remove(n);
                    "dropped line"
                }
            }
        }
        2 => {
            lines.remove(n);
            "dropped line"
        }
        3 => {
            let l = lines[n].clone();
            lines.insert(n, l);
            "duplicated line"
        }
        4 => {
            let m = rng.below(lines.len());
            lines.swap(n, m);
            "swapped lines"
        }
        5 => {
            let dtypes = ["f32", "u8", "f64", "bf16", "s64", "nope", "u4", ""];
            let l = &lines[n];
            lines[n] = match l.find('"').and_then(|a| l[a + 1..].find('"').map(|b| (a, a + 1 + b))) {
                Some((a, b)) => format!("{}\"{}\"{}", &l[..a], rng.pick(&dtypes), &l[b + 1..]),
                None => format!("{l} = \"{}\"", rng.pick(&dtypes)),
            };
            "string changed"
        }
        _ => {
            let cut = rng.below(src.len());
            let cut = (0..=cut).rev().find(|&c| src.is_char_boundary(c)).unwrap_or(0);
            return (src[..cut].to_string(), "cut short");
        }
    };
    (lines.join("\n") + "\n", kind)
}

#[test]
fn mutated_manifests_are_rejected_at_a_location_or_run() {
    let mut rng = Rng(160);
    let mut t = Tally::default();
    let manifests = sorted_files(&["workloads/suite"], "toml");
    let small: std::collections::BTreeSet<PathBuf> = small_workloads().into_iter().map(|(p, _)| p).collect();
    for path in &manifests {
        let src = std::fs::read_to_string(path).unwrap();
        for _ in 0..4 {
            let (m, kind) = mutate_text(&src, &mut rng);
            let what = format!("{} ({kind}): {}", path.display(), first_diff(&src.lines().map(String::from).collect::<Vec<_>>(), &m.lines().map(String::from).collect::<Vec<_>>()));
            let file = path.file_name().unwrap().to_string_lossy().to_string();
            let run = small.contains(path);
            if let Some(r) = t.run(&what, || match load_manifest(&m, path, None) {
                Err(e) => Err(format!("load: {e}")),
                Ok(w) if run => run_small(&w).map_err(|e| format!("run: {e}")),
                Ok(_) => Ok(()),
            }) {
                // Load errors carry the manifest's location (or a named file's); run errors are
                // the simulator's (faults, watchdog stops, launch limits).
                let need = r.as_ref().err().is_some_and(|e| e.starts_with("load: "));
                t.file(r, |e| e.starts_with("run: ") || at_location(e, &file) || at_location(e, ".ptx") || at_location(e, ".bin"), need, &what);
            }
        }
    }
    t.report("mutated manifests");
}

// ---------------------------------------------------------------------------------------------
// Configuration overrides

const SET_VALUES: &[&str] = &["-1", "0", "nan", "inf", "-inf", "1e300", "1e-300", "4294967295", "4294967296", "18446744073709551615", "1e20", "-0.0", "2147483648", "0.5"];

#[test]
fn extreme_overrides_of_every_key_are_rejected_with_the_key_or_run() {
    let keys = warpsim_sim::presets::key_paths();
    assert!(keys.len() > 100, "{} keys", keys.len());
    let w = Workload::bundled("launch_tiny").unwrap();
    let mut t = Tally::default();
    for key in &keys {
        for v in SET_VALUES {
            let what = format!("--set {key}={v}");
            if let Some(r) = t.run(&what, || {
                let cfg = warpsim_sim::presets::preset_with_overrides("hopper-h200", &[(key.as_str(), *v)]).map_err(|e| format!("config: {e}"))?;
                warpsim_sim::launch::run_timed_within(&w, &cfg, 1, &limits()).map(|_| ()).map_err(|e| format!("run: {e}"))
            }) {
                let need = r.as_ref().err().is_some_and(|e| e.starts_with("config: "));
                t.file(r, |e| e.starts_with("run: ") || e.contains(key.as_str()), need, &what);
            }
        }
    }
    // Pairs of keys, each extreme: limits that are fine alone but not together.
    let mut rng = Rng(6016);
    for _ in 0..400 {
        let set = [(rng.pick(&keys).clone(), rng.pick(SET_VALUES).to_string()), (rng.pick(&keys).clone(), rng.pick(&["1", "2", "7", "1024", "0.25"]).to_string())];
        let what = format!("--set {}={} --set {}={}", set[0].0, set[0].1, set[1].0, set[1].1);
        if let Some(r) = t.run(&what, || {
            let cfg = warpsim_sim::presets::preset_with_overrides("hopper-h200", &set).map_err(|e| format!("config: {e}"))?;
            warpsim_sim::launch::run_timed_within(&w, &cfg, 1, &limits()).map(|_| ()).map_err(|e| format!("run: {e}"))
        }) {
            let need = r.as_ref().err().is_some_and(|e| e.starts_with("config: "));
            t.file(r, |e| e.starts_with("run: ") || set.iter().any(|(k, _)| e.contains(k.as_str())), need, &what);
        }
    }
    t.report("config overrides");
}

// ---------------------------------------------------------------------------------------------
// Sweep specs and datasets

const SPEC: &str = "title = \"campaign\"\narch = [\"hopper-h200\", \"ampere-ga100\"]\nworkloads = [\"launch_tiny\", \"vector_add\"]\nmax_cycles = 1_000_000\ntimeout = 30.0\n[sweep]\nl2.size_kib = {from = 16384, to = 65536, mul = 2}\nsm.sub_partitions = [2, 4]\n\"sm.scheduler\" = [\"lrr\", \"gto\"]\nclock.sm_mhz = {from = 1000.0, to = 1000.1, step = 0.1}\n[set]\ndram.channels = 8\n[baseline]\nl2.size_kib = 65536\n";

#[test]
fn mutated_sweep_specs_are_rejected_at_a_location_or_plan() {
    let mut rng = Rng(1606);
    let mut t = Tally::default();
    for _ in 0..300 {
        let (mut m, kind) = mutate_text(SPEC, &mut rng);
        // Without a `workloads` line a sweep plans the whole suite (seconds each): kept small.
        if !m.contains("workloads") {
            m.insert_str(0, "workloads = \"launch_tiny\"\n");
        }
        let what = format!("({kind}):\n{m}");
        if let Some(r) = t.run(&what, || {
            let spec = warpsim_sweep::spec::Spec::from_toml(&m, "s.toml").map_err(|e| e.to_string())?;
            warpsim_sweep::plan::Plan::new(&spec).map(|_| ()).map_err(|e| e.to_string())
        }) {
            t.file(r, |e| at_location(e, "s.toml") || e.contains("--arch") || e.contains("--workloads"), true, &what);
        }
    }
    t.report("sweep specs");
}

#[test]
fn mutated_datasets_are_rejected_at_a_location_or_load() {
    let path = root().join("validate/data/h200/blind/2026-11-30.json");
    let src = std::fs::read_to_string(&path).unwrap();
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("campaign-datasets");
    std::fs::create_dir_all(&dir).unwrap();
    let mut rng = Rng(61);
    let mut t = Tally::default();
    for i in 0..200 {
        let (m, kind) = mutate_text(&src, &mut rng);
        let file = dir.join(format!("d{i}.json"));
        std::fs::write(&file, &m).unwrap();
        let what = format!("{} ({kind})", file.display());
        if let Some(r) = t.run(&what, || {
            let ds = warpsim_validate::dataset::Dataset::load(&file).map_err(|e| e.to_string())?;
            ds.save_csv(&dir.join(format!("d{i}.csv"))).map_err(|e| e.to_string())
        }) {
            t.file(r, |e| at_location(e, &format!("d{i}.json")) || e.contains("line"), true, &what);
        }
    }
    t.report("datasets");
}

// ---------------------------------------------------------------------------------------------
// Command lines

/// Runs the binary with a deadline; `(exit code, stderr)`, the code `None` for a signal.
fn bounded(args: &[&str], deadline: Duration) -> (Option<i32>, String) {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_warpsim"))
        .args(args)
        .env("WARPSIM_CUDA", "none")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let t = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let mut err = String::new();
            std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err).unwrap();
            return (status.code(), err);
        }
        if t.elapsed() > deadline {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("hang: warpsim {args:?} still running after {deadline:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn bad_command_lines_end_in_an_error_not_an_abort() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("campaign-cli");
    std::fs::create_dir_all(&dir).unwrap();
    let kernel = std::fs::read_to_string(root().join("workloads/suite/vector_add/kernel.ptx")).unwrap();
    let manifest = std::fs::read_to_string(root().join("workloads/suite/vector_add/vector_add.toml")).unwrap();
    let write = |name: &str, ptx: &str, toml: &str| {
        let d = dir.join(name);
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("kernel.ptx"), ptx).unwrap();
        std::fs::write(d.join("w.toml"), toml).unwrap();
        d.join("w.toml").display().to_string()
    };
    let nested = kernel.replacen("ret;", &format!("{}ret;{}", "{".repeat(10_000), "}".repeat(10_000)), 1);
    let regs = kernel.replacen(".reg .b32 \t%r<", ".reg .b32 %q<100000000>;\n\t.reg .b32 \t%r<", 1);
    let cases: Vec<(Vec<String>, &str)> = vec![
        (vec!["run".into(), write("nested", &nested, &manifest)], "kernel.ptx:"),
        (vec!["run".into(), write("regs", &regs, &manifest)], "kernel.ptx:"),
        (vec!["run".into(), write("len", &kernel, &manifest.replacen("len = 65536", "len = 4294967297", 1))], "w.toml:"),
        (vec!["run".into(), write("grid", &kernel, &manifest.replacen("grid = [256, 1, 1]", "grid = [256, 65536, 1]", 1))], "w.toml:"),
        (vec!["run".into(), "vector_add".into(), "--set".into(), "sm.count=100000".into()], "sm.count"),
        (vec!["run".into(), "vector_add".into(), "--set".into(), "l2.size_kib=4294967295".into()], "l2.size_kib"),
        (vec!["run".into(), "vector_add".into(), "--threads".into(), "5000".into()], "--threads"),
        (vec!["ptx".into(), "check".into(), write("utf8", "\u{0}", &manifest).replace("w.toml", "kernel.ptx")], "kernel.ptx"),
    ];
    std::fs::write(dir.join("utf8/kernel.ptx"), b".version 9.0\n\xff\xfe\n").unwrap();
    let mut t = Tally::default();
    for (args, want) in &cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, err) = bounded(&args, Duration::from_secs(60));
        t.tried += 1;
        match code {
            // 1: an error; 2: a usage error (clap's).
            Some(1 | 2) if err.contains(want) => t.located += 1,
            Some(1 | 2) => t.findings.push(format!("{args:?}: error does not name `{want}`: {err}")),
            other => t.findings.push(format!("{args:?}: exit {other:?} (an abort, a signal or success): {err}")),
        }
    }
    t.report("command lines");
}
