//! Running a plan: the runs of a shard in parallel across design points (each simulation on one
//! thread), each outcome cached on disk as a small JSON file named by the run's cache key, so a
//! rerun — after a crash, a kill or with more design points — simulates only what is missing.
//! Cache entries are written through a temporary file and a rename: a killed sweep leaves whole
//! entries or none. Each entry carries its key and a SHA-256 digest of its key and content, both
//! verified on load: an entry edited by hand, or another run's copied in, is simulated again with
//! a warning instead of being used. Outcomes are rows in run order whatever the thread scheduling.
//!
//! A run whose kernel needs a feature the preset lacks is an `unsupported` row, a fault, a
//! deadlock or a runaway the watchdog stopped an `error` row; none stops the sweep. A panic in
//! the simulator is an `error` row that is not cached (it is a simulator bug, and a fixed
//! simulator should run it again), and so is a run stopped by its cycle or wall-clock budget (a
//! larger budget, or a faster machine, may finish it); a run stopped for making no progress is
//! cached, as that verdict depends on nothing but the run.

use std::path::PathBuf;
use std::time::Instant;

use rayon::prelude::*;
use sha2::{Digest, Sha256};
use warpsim_sim::launch::{run_timed_with, run_timed_within, RunError};
use warpsim_sim::watchdog::{Limits, Stop};
use warpsim_sim::FaultKind;
use warpsim_workloads::CheckStatus;

use crate::plan::{simulator, Plan, Run};
use crate::results::{write_atomic, Measured, Results, ResultsError, Row, Status};
use crate::spec::Shard;

/// Where outcomes are cached.
#[derive(Debug, Clone)]
pub struct Cache {
    pub dir: PathBuf,
    /// Ignore existing entries (simulate everything again and overwrite them).
    pub fresh: bool,
}

/// What a cache entry records about its run.
#[derive(serde::Serialize, serde::Deserialize)]
struct Content {
    key: String,
    simulator: String,
    arch: String,
    workload: String,
    measured: Measured,
}

impl Content {
    /// SHA-256 of the content's JSON (floats round-trip exactly, maps are ordered: the same
    /// content always gives the same bytes).
    fn digest(&self) -> String {
        let bytes = serde_json::to_vec(self).unwrap_or_default();
        Sha256::digest(&bytes).iter().map(|b| format!("{b:02x}")).collect()
    }
}

/// A cache file: the content and its digest.
#[derive(serde::Serialize, serde::Deserialize)]
struct Entry {
    #[serde(flatten)]
    content: Content,
    digest: String,
}

/// What the cache holds for a key.
enum Cached {
    Hit(Measured),
    Missing,
    /// An entry that fails verification (why): simulated again, with a warning.
    Rejected(String),
}

impl Cache {
    fn path(&self, key: &str) -> PathBuf {
        self.dir.join(format!("{key}.json"))
    }

    /// The cached outcome of `key`, verified: the entry must name this key and its digest must
    /// match its content.
    fn load(&self, key: &str) -> Cached {
        if self.fresh {
            return Cached::Missing;
        }
        let Ok(text) = std::fs::read_to_string(self.path(key)) else { return Cached::Missing };
        let e = match serde_json::from_str::<Entry>(&text) {
            Ok(e) => e,
            Err(err) => return Cached::Rejected(format!("not a cache entry ({err})")),
        };
        if e.content.key != key {
            return Cached::Rejected(format!("it is the entry of run `{}`, not of this one", e.content.key));
        }
        if e.content.digest() != e.digest {
            return Cached::Rejected("its content does not match its digest (edited?)".into());
        }
        Cached::Hit(e.content.measured)
    }

    fn store(&self, entry: &Entry) -> Result<(), ResultsError> {
        let path = self.path(&entry.content.key);
        let bytes = serde_json::to_vec(entry).map_err(|e| ResultsError::Format { path: path.clone(), message: e.to_string() })?;
        write_atomic(&path, &bytes)
    }
}

/// Counts of one execution.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Summary {
    pub runs: usize,
    pub simulated: usize,
    pub cached: usize,
    /// Cache entries that failed verification (and were simulated again).
    pub rejected: usize,
    pub ok: usize,
    pub unsupported: usize,
    pub errors: usize,
    pub check_failures: usize,
    pub seconds: f64,
}

impl std::fmt::Display for Summary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} runs in {:.1} s: {} simulated, {} cached; {} ok, {} unsupported, {} errors, {} failed their output check",
            self.runs, self.seconds, self.simulated, self.cached, self.ok, self.unsupported, self.errors, self.check_failures
        )?;
        if self.rejected > 0 {
            write!(f, "; {} cache entries failed verification and were simulated again", self.rejected)?;
        }
        Ok(())
    }
}

/// Runs one workload on one configuration; `false` when the outcome must not be cached.
fn measure(w: &warpsim_workloads::Workload, cfg: &warpsim_sim::config::ArchConfig, limits: &Limits, prog: Option<&Vec<warpsim_isa::Program>>) -> (Measured, bool) {
    let failed = |status: Status, message: String| Measured {
        status,
        check: String::new(),
        cycles: None,
        ipc: None,
        warp_instructions: None,
        counters: Default::default(),
        stalls: Default::default(),
        message,
    };
    let run = || match prog {
        Some(p) => run_timed_with(w, cfg, 1, limits, p.clone()),
        None => run_timed_within(w, cfg, 1, limits),
    };
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(run)) {
        Ok(Ok(o)) => match o.timing {
            Some(t) => {
                let check = match o.check.status {
                    CheckStatus::Pass => "pass",
                    CheckStatus::Fail => "fail",
                    CheckStatus::NotChecked => "not checked",
                };
                let m = Measured {
                    status: Status::Ok,
                    check: check.into(),
                    cycles: Some(t.cycles),
                    ipc: Some(t.get(warpsim_sim::counters::Counter::IpcActive)),
                    warp_instructions: Some(t.warp_instructions),
                    counters: t.counters,
                    stalls: t.stalls.into_iter().collect(),
                    message: String::new(),
                };
                (m, true)
            }
            None => (failed(Status::Error, "the timed run returned no timing".into()), false),
        },
        Ok(Err(RunError::Feature(m))) => (failed(Status::Unsupported, m), true),
        Ok(Err(RunError::Fault(f))) => {
            let budget = matches!(&f.kind, FaultKind::Watchdog(r) if !matches!(r.stop, Stop::NoProgress { .. }));
            (failed(Status::Error, f.to_string()), !budget)
        }
        Ok(Err(e)) => (failed(Status::Error, e.to_string()), true),
        Err(panic) => {
            let what = panic.downcast_ref::<String>().cloned().or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()));
            (failed(Status::Error, format!("the simulator panicked: {}", what.unwrap_or_default())), false)
        }
    }
}

/// Runs (or takes from the cache) every run of `shard` on `jobs` threads; `on_done` is called
/// after each run with its row and whether it came from the cache.
pub fn execute(
    plan: &Plan,
    shard: Option<Shard>,
    cache: &Cache,
    jobs: usize,
    on_done: &(dyn Fn(&Row, bool) + Sync),
) -> Result<(Results, Summary), ResultsError> {
    let t0 = Instant::now();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.max(1))
        .build()
        .map_err(|e| ResultsError::Threads { jobs, message: e.to_string() })?;
    let runs = plan.runs(shard);
    let rejected = std::sync::atomic::AtomicUsize::new(0);
    let one = |r: &Run| -> Result<(Row, bool), ResultsError> {
        let key = plan.cache_key(r);
        let (point, loaded) = (&plan.points[r.point], &plan.workloads[r.workload]);
        let workload = loaded.workload.manifest.name.clone();
        let hit = match cache.load(&key) {
            Cached::Hit(m) => Some(m),
            Cached::Missing => None,
            Cached::Rejected(why) => {
                eprintln!("warning: cache entry {} ({} on {}): {why}; simulating it again", cache.path(&key).display(), workload, point.arch);
                rejected.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                None
            }
        };
        let (m, cached) = match hit {
            Some(m) => (m, true),
            None => {
                let cc = point.cfg.compute_capability;
                let (m, cacheable) = measure(loaded.for_cc(cc), &point.cfg, &plan.limits, loaded.program_for(cc));
                if cacheable {
                    let content = Content { key, simulator: simulator(), arch: point.arch.clone(), workload: workload.clone(), measured: m };
                    let entry = Entry { digest: content.digest(), content };
                    cache.store(&entry)?;
                    (entry.content.measured, false)
                } else {
                    (m, false)
                }
            }
        };
        let row = Row { run: r.index, arch: point.arch.clone(), values: point.values.clone(), workload, clock_mhz: Some(point.cfg.clock.sm_mhz), config: point.config_file(), m };
        on_done(&row, cached);
        Ok((row, cached))
    };
    let done: Vec<(Row, bool)> = pool.install(|| runs.par_iter().map(one).collect::<Result<_, _>>())?;
    let count = |f: &dyn Fn(&Row) -> bool| done.iter().filter(|(r, _)| f(r)).count();
    let summary = Summary {
        runs: done.len(),
        simulated: done.iter().filter(|d| !d.1).count(),
        cached: done.iter().filter(|d| d.1).count(),
        rejected: rejected.into_inner(),
        ok: count(&|r| r.m.status == Status::Ok),
        unsupported: count(&|r| r.m.status == Status::Unsupported),
        errors: count(&|r| r.m.status == Status::Error),
        check_failures: count(&|r| r.m.check == "fail"),
        seconds: t0.elapsed().as_secs_f64(),
    };
    let header = crate::plan::Header { shard: shard.map(|s| s.to_string()), ..plan.header.clone() };
    let keys = plan.header.axes.iter().map(|a| a.key.clone()).collect();
    Ok((Results { header: Some(header), keys, rows: done.into_iter().map(|d| d.0).collect() }, summary))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::Spec;

    #[test]
    fn unsupported_runs_are_rows_and_are_cached() {
        let spec = Spec::from_toml("arch = [\"tesla-g80\", \"kepler-gk110\"]\nworkloads = [\"reduce_shuffle\"]\n", "t.toml").unwrap();
        let plan = Plan::new(&spec).unwrap();
        let dir = std::env::temp_dir().join(format!("warpsim-execute-{}", std::process::id()));
        let cache = Cache { dir: dir.clone(), fresh: false };
        let seen = std::sync::Mutex::new(Vec::new());
        let (r, s) = execute(&plan, None, &cache, 2, &|row, cached| seen.lock().unwrap().push((row.run, cached))).unwrap();
        assert_eq!((s.simulated, s.cached, s.ok, s.unsupported), (2, 0, 1, 1));
        assert_eq!(r.rows[0].m.status, Status::Unsupported);
        assert!(r.rows[0].m.message.contains("warp shuffles") && r.rows[0].m.message.contains("tesla-g80"), "{}", r.rows[0].m.message);
        assert_eq!((r.rows[1].m.status, r.rows[1].m.check.as_str()), (Status::Ok, "pass"));
        assert_eq!(seen.lock().unwrap().len(), 2);
        let (again, s) = execute(&plan, None, &cache, 1, &|_, _| {}).unwrap();
        assert_eq!((s.simulated, s.cached), (0, 2));
        assert_eq!(again.rows, r.rows);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A cache entry edited by hand, or another run's entry copied in, fails verification: the
    /// run is simulated again (and its entry rewritten) instead of the entry being used.
    #[test]
    fn tampered_or_misplaced_cache_entries_are_simulated_again() {
        let spec = Spec::from_toml("workloads = [\"vector_add\", \"saxpy\"]\n", "t.toml").unwrap();
        let plan = Plan::new(&spec).unwrap();
        let dir = std::env::temp_dir().join(format!("warpsim-verify-{}", std::process::id()));
        let cache = Cache { dir: dir.clone(), fresh: false };
        let (first, _) = execute(&plan, None, &cache, 1, &|_, _| {}).unwrap();
        let runs = plan.runs(None);
        let (a, b) = (cache.path(&plan.cache_key(&runs[0])), cache.path(&plan.cache_key(&runs[1])));
        let cycles = first.rows[0].m.cycles.unwrap();
        let text = std::fs::read_to_string(&a).unwrap();
        std::fs::write(&a, text.replace(&format!("\"cycles\":{cycles}"), "\"cycles\":1")).unwrap();
        std::fs::copy(&a, &b).unwrap();
        let (again, s) = execute(&plan, None, &cache, 1, &|_, _| {}).unwrap();
        assert_eq!((s.simulated, s.cached, s.rejected), (2, 0, 2));
        assert!(s.to_string().ends_with("; 2 cache entries failed verification and were simulated again"), "{s}");
        assert_eq!(again.rows, first.rows);
        let (_, s) = execute(&plan, None, &cache, 1, &|_, _| {}).unwrap();
        assert_eq!((s.simulated, s.cached, s.rejected), (0, 2, 0));
        std::fs::write(&a, "{").unwrap();
        assert!(matches!(cache.load(&plan.cache_key(&runs[0])), Cached::Rejected(why) if why.starts_with("not a cache entry")));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A kernel that branches to itself, among real workloads: its row is the watchdog's error,
    /// the sweep finishes, and the verdict is cached (a restart does not hang on it either). A
    /// run stopped by its cycle budget is an error row too, but not cached.
    #[test]
    fn a_runaway_is_an_error_row_and_the_sweep_finishes() {
        let dir = std::env::temp_dir().join(format!("warpsim-runaway-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("spin.ptx"),
            ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry spin(\n.param .u64 spin_param_0\n)\n{\n$L:\nbra.uni $L;\nret;\n}\n",
        )
        .unwrap();
        std::fs::write(
            dir.join("spin.toml"),
            "name = \"spin\"\nptx = \"spin.ptx\"\nentry = \"spin\"\ngrid = [264, 1, 1]\nblock = [128, 1, 1]\nregs_per_thread = 16\n\
             [[buffer]]\nname = \"x\"\ndtype = \"u32\"\nlen = 1\n[[arg]]\nbuffer = \"x\"\n",
        )
        .unwrap();
        let manifest = dir.join("spin.toml").display().to_string();
        let spec = Spec::from_toml(&format!("workloads = [{manifest:?}, \"vector_add\"]\n"), "t.toml").unwrap();
        let plan = Plan::new(&spec).unwrap();
        let cache = Cache { dir: dir.join("cache"), fresh: false };
        let t = Instant::now();
        let (r, s) = execute(&plan, None, &cache, 2, &|_, _| {}).unwrap();
        assert!(t.elapsed().as_secs() < 120, "{:?}", t.elapsed());
        assert_eq!((s.runs, s.ok, s.errors), (2, 1, 1));
        assert_eq!(r.rows[0].m.status, Status::Error);
        let msg = &r.rows[0].m.message;
        assert!(msg.contains("kernel `spin`: watchdog: no forward progress") && msg.contains("spin.ptx:9-9"), "{msg}");
        let (again, s) = execute(&plan, None, &cache, 1, &|_, _| {}).unwrap();
        assert_eq!((s.simulated, s.cached), (0, 2));
        assert_eq!(again.rows, r.rows);

        let spec = Spec::from_toml("workloads = [\"vector_add\"]\nmax_cycles = 500\n", "t.toml").unwrap();
        let plan = Plan::new(&spec).unwrap();
        // A fresh cache: the limits are not in the key (a finished run is the same under any).
        let cache = Cache { dir: dir.join("cache2"), fresh: false };
        let (r, s) = execute(&plan, None, &cache, 1, &|_, _| {}).unwrap();
        assert_eq!((s.errors, s.simulated), (1, 1));
        assert!(r.rows[0].m.message.contains("still running after the budget of 500 cycles"), "{}", r.rows[0].m.message);
        // Not cached: the same sweep simulates it again.
        let (_, s) = execute(&plan, None, &cache, 1, &|_, _| {}).unwrap();
        assert_eq!((s.simulated, s.cached), (1, 0));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
