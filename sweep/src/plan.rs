//! A resolved sweep: every design point's configuration built and validated, every workload
//! loaded, and the runs (design point × workload) in their one stable order — presets outermost,
//! then the axes in the order written (the first varying slowest), workloads innermost. A run's
//! index in that order identifies it in shards, results and merges; its cache key is a hash of
//! what determines its outcome.

use std::collections::BTreeMap;

use sha2::{Digest, Sha256};
use warpsim_isa::Program;
use warpsim_sim::config::ArchConfig;
use warpsim_sim::presets;
use warpsim_sim::watchdog::Limits;
use warpsim_toolchain::{Resolution, Toolchain};
use warpsim_workloads::{RegsSource, Workload};

use crate::spec::{same_value, spec_error, Axis, Shard, Spec, SpecError};

/// The simulator's identity in cache keys and result files: the crate version and the timing
/// revision ([`warpsim_sim::TIMING_REVISION`]).
pub fn simulator() -> String {
    format!("warpsim {} timing r{}", env!("CARGO_PKG_VERSION"), warpsim_sim::TIMING_REVISION)
}

/// What identifies a sweep, written at the top of its results: merging checks that shards agree
/// on it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Header {
    pub title: String,
    /// Hash of the simulator, every design point's configuration and every workload.
    pub id: String,
    pub simulator: String,
    pub archs: Vec<String>,
    pub axes: Vec<Axis>,
    pub fixed: BTreeMap<String, String>,
    pub workloads: Vec<String>,
    /// The reference design point: `arch` and every swept key.
    pub baseline: BTreeMap<String, String>,
    /// Runs in the whole sweep.
    pub runs: usize,
    /// `I/N` when these results are one shard.
    pub shard: Option<String>,
    /// The code simulated: `ptx`, or `sass` where [`Plan::use_code`] gave a program (results
    /// written before SASS mode say nothing: PTX).
    #[serde(default = "ptx", skip_serializing_if = "is_ptx")]
    pub isa: String,
}

fn ptx() -> String {
    "ptx".into()
}

fn is_ptx(s: &str) -> bool {
    s == "ptx"
}

/// One design point: a preset (or preset file) with one value per axis.
pub struct Point {
    pub arch: String,
    pub values: Vec<String>,
    pub cfg: ArchConfig,
    /// Hash of the configuration's TOML.
    digest: [u8; 32],
}

impl Point {
    /// Where [`Plan::write_configs`] puts the point's resolved configuration, relative to the
    /// sweep's directory: named by the configuration's hash, so equal configurations share one.
    pub fn config_file(&self) -> String {
        format!("configs/{}.toml", hex(&self.digest[..8]))
    }
}

/// A workload's programs, one per launch of its sequence.
pub type Programs = Vec<Program>;

/// A loaded workload with the hash of what defines it.
pub struct Loaded {
    pub workload: Workload,
    /// When the manifest gives no registers: the workload with ptxas's figures (or left to the
    /// estimate) for each compute capability the sweep simulates.
    resolved: Vec<([u32; 2], Workload)>,
    /// Programs given by [`Plan::use_code`] per compute capability (one per launch), with the
    /// workload as they run it and a hash of the programs' machine code.
    programs: Vec<([u32; 2], Workload, Programs, [u8; 32])>,
    digest: [u8; 32],
}

impl Loaded {
    /// The workload as a run on a GPU of compute capability `cc` simulates it.
    pub fn for_cc(&self, cc: [u32; 2]) -> &Workload {
        if let Some((_, w, _, _)) = self.programs.iter().find(|p| p.0 == cc) {
            return w;
        }
        self.resolved.iter().find(|(c, _)| *c == cc).map_or(&self.workload, |(_, w)| w)
    }

    /// The programs (one per launch) a run on compute capability `cc` simulates instead of the
    /// PTX, if any.
    pub fn program_for(&self, cc: [u32; 2]) -> Option<&Programs> {
        self.programs.iter().find(|p| p.0 == cc).map(|p| &p.2)
    }
}

/// A validated sweep, ready to run.
pub struct Plan {
    pub header: Header,
    pub points: Vec<Point>,
    pub workloads: Vec<Loaded>,
    /// The watchdog's limits for every run (they stop runs, they never change a result).
    pub limits: Limits,
}

/// One run: a design point and a workload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Run {
    pub index: usize,
    pub point: usize,
    pub workload: usize,
}

fn sha(parts: &[&[u8]]) -> [u8; 32] {
    let mut h = Sha256::new();
    for p in parts {
        h.update((p.len() as u64).to_le_bytes());
        h.update(p);
    }
    h.finalize().into()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

impl Plan {
    /// Resolves and validates everything: presets, workloads, every design point's overrides.
    /// Errors name where the offending setting was written.
    pub fn new(spec: &Spec) -> Result<Plan, SpecError> {
        spec.check()?;
        let archs = if spec.archs.is_empty() { vec!["hopper-h200".to_string()] } else { spec.archs.clone() };
        let arch_at = spec.origin("arch", "--arch");
        let mut bases = Vec::new();
        for a in &archs {
            bases.push(base_config(a).map_err(|m| spec_error(&arch_at, m))?);
        }
        let mut workloads = resolve_workloads(&spec.workloads).map_err(|m| spec_error(spec.origin("workloads", "--workloads"), m))?;

        let mut points = Vec::new();
        let combos = product(&spec.axes);
        for (arch, base) in archs.iter().zip(&bases) {
            for (ci, combo) in combos.iter().enumerate() {
                let mut overrides = spec.fixed.clone();
                overrides.extend(spec.axes.iter().zip(combo).map(|(a, v)| (a.key.clone(), v.clone())));
                let cfg = presets::apply_overrides(base, &overrides).map_err(|e| {
                    let at = match e.key().and_then(|k| spec.axes.iter().position(|a| a.key == k)) {
                        Some(ax) => {
                            let vi = spec.axes[ax].values.iter().position(|v| *v == combo[ax]).unwrap_or(0);
                            spec.origin(&format!("{}#{vi}", spec.axes[ax].key), "[sweep]")
                        }
                        None => e.key().map_or(arch_at.clone(), |k| spec.origin(k, &arch_at)),
                    };
                    let point: Vec<String> = spec.axes.iter().zip(combo).map(|(a, v)| format!("{}={v}", a.key)).collect();
                    let point = if point.is_empty() { String::new() } else { format!(", {}", point.join(", ")) };
                    spec_error(at, format!("{e} (design point {}: arch={arch}{point})", ci + 1))
                })?;
                let digest = sha(&[presets::to_toml(&cfg).as_bytes()]);
                points.push(Point { arch: arch.clone(), values: combo.clone(), cfg, digest });
            }
        }
        let mut ccs: Vec<[u32; 2]> = points.iter().map(|p| p.cfg.compute_capability).collect();
        ccs.sort_unstable();
        ccs.dedup();
        for l in workloads.iter_mut().filter(|l| l.workload.launches.iter().any(|l| l.regs_source != RegsSource::Manifest)) {
            for &cc in &ccs {
                let mut w = l.workload.clone();
                if let Resolution::Estimate(line) = warpsim_toolchain::resolve(&mut w, cc, Toolchain::from_env()) {
                    eprintln!("note: {} (compute capability {}.{}): {line}", w.manifest.name, cc[0], cc[1]);
                }
                l.resolved.push((cc, w));
            }
        }

        let mut baseline: BTreeMap<String, String> = BTreeMap::new();
        baseline.insert("arch".into(), archs[0].clone());
        for a in &spec.axes {
            baseline.insert(a.key.clone(), a.values[0].clone());
        }
        for (k, v) in &spec.baseline {
            // Keep the value's spelling from the axis, so that rows match it textually.
            let values = if k == "arch" { &archs } else { &spec.axes.iter().find(|a| a.key == *k).map(|a| a.values.clone()).unwrap_or_default() };
            let canonical = values.iter().find(|x| same_value(x, v)).cloned().unwrap_or_else(|| v.clone());
            baseline.insert(k.clone(), canonical);
        }

        let sim = simulator();
        let mut id = Sha256::new();
        id.update(sim.as_bytes());
        for p in &points {
            id.update(p.digest);
        }
        for w in &workloads {
            id.update(w.digest);
        }
        let header = Header {
            title: spec.title.clone(),
            id: hex(&id.finalize()[..16]),
            simulator: sim,
            archs,
            axes: spec.axes.clone(),
            fixed: spec.fixed.iter().cloned().collect(),
            workloads: workloads.iter().map(|w| w.workload.manifest.name.clone()).collect(),
            baseline,
            runs: points.len() * workloads.len(),
            shard: None,
            isa: ptx(),
        };
        let mut limits = Limits::default();
        if let Some(n) = spec.max_cycles {
            limits.max_cycles = n;
        }
        if let Some(t) = spec.timeout {
            limits.timeout = Some(t);
        }
        Ok(Plan { header, points, workloads, limits })
    }

    /// Simulates the programs `code` gives (per workload, as resolved for a compute capability)
    /// instead of the workloads' PTX: the binary's `--isa sass`. A workload `code` gives nothing
    /// for keeps its PTX; the header's `isa` becomes `name` when any program was given, and each
    /// run's cache key covers its program.
    pub fn use_code(&mut self, name: &str, code: &dyn Fn(&mut Workload, [u32; 2]) -> Option<Programs>) {
        let mut ccs: Vec<[u32; 2]> = self.points.iter().map(|p| p.cfg.compute_capability).collect();
        ccs.sort_unstable();
        ccs.dedup();
        let mut any = false;
        for l in &mut self.workloads {
            for &cc in &ccs {
                let mut w = l.for_cc(cc).clone();
                if let Some(p) = code(&mut w, cc) {
                    let digest = sha(&p.iter().flat_map(|p| &p.machine).map(|m| m.as_bytes()).collect::<Vec<_>>());
                    l.programs.push((cc, w, p, digest));
                    any = true;
                }
            }
        }
        if any {
            self.header.isa = name.to_string();
        }
    }

    /// The runs of a shard (all runs without one), in index order.
    pub fn runs(&self, shard: Option<Shard>) -> Vec<Run> {
        let n = self.workloads.len();
        (0..self.header.runs)
            .filter(|i| shard.is_none_or(|s| i % s.count == s.index))
            .map(|index| Run { index, point: index / n, workload: index % n })
            .collect()
    }

    /// The cache key of a run: a hash of the simulator, the full configuration and the workload.
    /// Writes every design point's fully resolved configuration to `dir/`[`Point::config_file`]
    /// (the file each result row's `config` column names).
    pub fn write_configs(&self, dir: &std::path::Path) -> Result<(), crate::ResultsError> {
        for p in &self.points {
            let what = format!("a sweep point ({}{})", p.arch, p.values.iter().map(|v| format!(", {v}")).collect::<String>());
            crate::results::write_atomic(&dir.join(p.config_file()), presets::dump_config(&p.cfg, &what).as_bytes())?;
        }
        Ok(())
    }

    pub fn cache_key(&self, r: &Run) -> String {
        let sim = simulator();
        let point = &self.points[r.point];
        let loaded = &self.workloads[r.workload];
        let resources: String = loaded
            .for_cc(point.cfg.compute_capability)
            .launches
            .iter()
            .map(|l| format!("{:?} {} {:?}", l.regs_per_thread, l.regs_source, l.spills))
            .collect::<Vec<_>>()
            .join("; ");
        match loaded.programs.iter().find(|p| p.0 == point.cfg.compute_capability) {
            Some((_, _, _, code)) => hex(&sha(&[sim.as_bytes(), &point.digest, &loaded.digest, resources.as_bytes(), code])[..16]),
            None => hex(&sha(&[sim.as_bytes(), &point.digest, &loaded.digest, resources.as_bytes()])[..16]),
        }
    }
}

/// Every combination of axis values, the first axis varying slowest.
fn product(axes: &[Axis]) -> Vec<Vec<String>> {
    let mut out = vec![Vec::new()];
    for a in axes {
        out = out.iter().flat_map(|prefix| a.values.iter().map(move |v| [prefix.clone(), vec![v.clone()]].concat())).collect();
    }
    out
}

/// A preset by name, or a preset file (`*.toml`), as the value tree overrides apply to.
fn base_config(arch: &str) -> Result<toml::Value, String> {
    if arch.ends_with(".toml") {
        let text = std::fs::read_to_string(arch).map_err(|e| format!("cannot read preset file {arch}: {e}"))?;
        Ok(ArchConfig::from_toml(&text, arch).map_err(|e| e.to_string())?.to_value())
    } else {
        presets::preset_value(arch).map_err(|e| e.to_string())
    }
}

/// Loads the selected workloads (empty or `all`: the bundled suite), in order, without repeats.
fn resolve_workloads(selectors: &[String]) -> Result<Vec<Loaded>, String> {
    let groups = warpsim_workloads::bundled_groups();
    let all = warpsim_workloads::bundled_names();
    let mut names: Vec<String> = Vec::new();
    let selectors: Vec<&str> = if selectors.is_empty() { vec!["all"] } else { selectors.iter().map(|s| s.trim()).collect() };
    for s in selectors {
        let add: Vec<String> = if s == "all" {
            all.iter().map(|n| n.to_string()).collect()
        } else if let Some(g) = s.strip_prefix("group:") {
            let members = groups.get(g).ok_or_else(|| {
                format!("no workload group `{g}`; the groups are: {}", groups.keys().copied().collect::<Vec<_>>().join(", "))
            })?;
            members.iter().map(|n| n.to_string()).collect()
        } else {
            vec![s.to_string()]
        };
        for n in add {
            if !names.contains(&n) {
                names.push(n);
            }
        }
    }
    names
        .iter()
        .map(|n| {
            let w = if n.ends_with(".toml") { warpsim_sim::launch::load_manifest(n.as_ref()) } else { Workload::bundled(n) }.map_err(|e| e.to_string())?;
            let digest = sha(&[w.manifest.name.as_bytes(), format!("{:?}", w.manifest).as_bytes(), w.ptx.as_bytes()]);
            Ok(Loaded { workload: w, resolved: Vec::new(), programs: Vec::new(), digest })
        })
        .collect::<Result<Vec<_>, String>>()
        .and_then(|ws| {
            let mut seen = BTreeMap::new();
            for w in &ws {
                if let Some(first) = seen.insert(w.workload.manifest.name.clone(), w.workload.manifest_path.display().to_string()) {
                    return Err(format!("two workloads are named `{}` ({first} and {})", w.workload.manifest.name, w.workload.manifest_path.display()));
                }
            }
            Ok(ws)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(text: &str) -> Spec {
        Spec::from_toml(text, "s.toml").unwrap()
    }

    #[test]
    fn order_shards_and_keys() {
        let s = spec("arch = [\"hopper-h200\", \"ampere-ga100\"]\nworkloads = [\"vector_add\", \"saxpy\"]\n[sweep]\nl2.size_kib = [12288, 24576]\nsm.scheduler = [\"lrr\", \"gto\"]\n");
        let p = Plan::new(&s).unwrap();
        assert_eq!(p.header.runs, 16);
        let pts: Vec<String> = p.points.iter().map(|x| format!("{} {}", x.arch, x.values.join(" "))).collect();
        assert_eq!(pts[..3], ["hopper-h200 12288 lrr", "hopper-h200 12288 gto", "hopper-h200 24576 lrr"]);
        assert_eq!(p.points[5].cfg.l2.size_kib, 12288);
        assert_eq!(p.points[5].cfg.name, "ampere-ga100");
        let all = p.runs(None);
        assert_eq!((all[3].point, all[3].workload), (1, 1));
        let mut merged: Vec<usize> = (0..3).flat_map(|i| p.runs(Some(Shard { index: i, count: 3 }))).map(|r| r.index).collect();
        merged.sort();
        assert_eq!(merged, (0..16).collect::<Vec<_>>());
        // The key depends on the configuration and the workload, not on the run's position.
        let keys: Vec<String> = all.iter().map(|r| p.cache_key(r)).collect();
        let distinct: std::collections::BTreeSet<&String> = keys.iter().collect();
        assert_eq!(distinct.len(), 16);
        assert_eq!(Plan::new(&s).unwrap().header.id, p.header.id);
        assert_eq!(p.header.baseline["arch"], "hopper-h200");
        assert_eq!(p.header.baseline["sm.scheduler"], "lrr");
    }

    #[test]
    fn invalid_points_fail_before_running_naming_the_value() {
        let cases = [
            ("[sweep]\nsm.schedulers = [2, 4]\n", "s.toml:2:18", "unknown key `sm.schedulers`"),
            ("[sweep]\nl2.size_kib = [4096, \"big\"]\n", "s.toml:2:22", "`l2.size_kib` expects a non-negative integer"),
            ("[sweep]\nl2.size_kib = {from = 1.5, to = 3, step = 1}\n", "s.toml:2:15", "`l2.size_kib` expects"),
            ("[sweep]\nsmem.banks = [32, 24]\n", "s.toml:2:19", "invalid `smem.banks` = 24"),
            ("[set]\nsm.count = 0\n", "s.toml:2:12", "invalid `sm.count`"),
            ("arch = \"hopper-h20\"\n", "s.toml:1:8", "did you mean `hopper-h200`"),
            ("workloads = [\"vector_ad\"]\n", "s.toml:1:13", "no bundled workload named `vector_ad`"),
            ("workloads = \"group:nope\"\n", "s.toml:1:13", "the groups are: atomics"),
        ];
        for (text, at, want) in cases {
            let e = Plan::new(&spec(text)).err().unwrap();
            assert_eq!(e.at, at, "{text}: {e}");
            assert!(e.message.contains(want), "{text}: {e}");
        }
        let e = Plan::new(&spec("[sweep]\nsmem.banks = [32, 24]\n")).err().unwrap();
        assert!(e.message.contains("design point 2: arch=hopper-h200, smem.banks=24"), "{e}");
    }

    #[test]
    fn groups_and_baseline_spelling() {
        let s = spec("workloads = [\"group:reduce\", \"reduce_shuffle\"]\n[sweep]\nclock.sm_mhz = [1500.0, 1755.0]\n[baseline]\nclock.sm_mhz = 1755\n");
        let p = Plan::new(&s).unwrap();
        assert_eq!(p.workloads.len(), 6);
        assert_eq!(p.header.baseline["clock.sm_mhz"], "1755");
    }
}
