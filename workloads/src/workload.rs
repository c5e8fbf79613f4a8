//! A loaded workload: the validated manifest, its PTX text, each launch's resolved shape and the
//! generated input bytes of every buffer, plus the bundled suite (embedded in the binary by `build.rs`).
//!
//! Bundled workloads live in `suite/<dir>/<case>.toml`; a workload's bundled name is the file
//! stem `<case>`, which must equal the manifest's `name`, so `Workload::bundled("vector_add")`
//! works from any directory. User manifests load from disk with [`Workload::load`], files named
//! relative to the manifest. `${...}` size expressions ([`crate::sized`]) expand with the
//! [`Target`] given to the `_for` loaders, or the H200's sizes ([`Target::default`]).

use crate::check::{self, CheckReport};
use crate::data::InitData;
use crate::error::{LoadError, Locator};
use crate::manifest::{self, BufferSpec, LaunchSpec, Manifest, PtxCheck};
use crate::sized::{self, Target};
use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};

include!(concat!(env!("OUT_DIR"), "/suite_files.rs"));

/// Where bundled paths appear to live, for error messages (the repository path).
const BUNDLED_ROOT: &str = "workloads/suite";

/// A launch's shape and resources, with defaults resolved (one per [`Manifest::launches`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Launch {
    pub grid: [u32; 3],
    pub block: [u32; 3],
    /// From the manifest, else the PTX's `.reqnctapercluster`, else [1, 1, 1].
    pub cluster: [u32; 3],
    /// Dynamic shared memory per block, bytes.
    pub dynamic_smem: u32,
    /// Registers per thread when known (the manifest's, or the compiler's once a caller has asked
    /// it); `None`: the simulator estimates them from the PTX. [`Launch::regs_source`] says which.
    pub regs_per_thread: Option<u32>,
    pub regs_source: RegsSource,
    /// The manifest's `maxrregcount`: the register limit the kernel is compiled under.
    pub maxrregcount: Option<u32>,
    /// Local-memory traffic of the compiler's register spills (zero unless the compiler said so).
    pub spills: Spills,
}

/// Where a launch's registers-per-thread figure comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RegsSource {
    /// The manifest's `regs_per_thread` (bundled workloads: ptxas's count for the H200's build).
    Manifest,
    /// The compiler's report for the simulated target, e.g. `ptxas 13.0.88, sm_90`.
    Compiler(String),
    /// Not given: estimated from the PTX (the simulator's register-liveness estimate).
    Estimate,
}

impl std::fmt::Display for RegsSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RegsSource::Manifest => f.write_str("manifest"),
            RegsSource::Compiler(tool) => f.write_str(tool),
            RegsSource::Estimate => f.write_str("estimated"),
        }
    }
}

/// Per-thread spill code as `ptxas -v` reports it: static bytes of spill stores and loads in the
/// machine code, and the stack frame they live in; a timing model issues them as local-memory
/// accesses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Spills {
    pub store_bytes: u32,
    pub load_bytes: u32,
    pub stack_bytes: u32,
}

impl Spills {
    pub fn any(&self) -> bool {
        self.store_bytes > 0 || self.load_bytes > 0
    }
}

impl Launch {
    pub fn threads_per_block(&self) -> u64 {
        self.block.iter().map(|&d| d as u64).product()
    }

    pub fn blocks(&self) -> u64 {
        self.grid.iter().map(|&d| d as u64).product()
    }
}

/// A workload ready to run: what both the simulator and the GPU runner consume.
#[derive(Clone, Debug)]
pub struct Workload {
    pub manifest: Manifest,
    /// The manifest's path (for bundled ones, its path in the repository).
    pub manifest_path: PathBuf,
    pub ptx: String,
    pub ptx_path: PathBuf,
    /// One per launch of the sequence, in [`Manifest::launches`] order.
    pub launches: Vec<Launch>,
    /// Initial contents of each buffer, in `manifest.buffers` order.
    pub inputs: Vec<InitData>,
}

impl Workload {
    /// Load a manifest from disk; the PTX and `file` inits are read relative to it.
    pub fn load(path: impl AsRef<Path>) -> Result<Self, LoadError> {
        Self::load_checked(path, &|_, _| Ok(()))
    }

    /// [`Workload::load`], with a PTX front end whose error is reported instead of the
    /// manifest's when the manifest disagrees with a PTX that does not parse ([`PtxCheck`]).
    pub fn load_checked(path: impl AsRef<Path>, check: PtxCheck<'_>) -> Result<Self, LoadError> {
        Self::load_for(path, check, &Target::default())
    }

    /// [`Workload::load_checked`], with the manifest's size expressions expanded for `target`.
    pub fn load_for(path: impl AsRef<Path>, check: PtxCheck<'_>, target: &Target) -> Result<Self, LoadError> {
        let path = path.as_ref();
        let io = |source| LoadError::Io { path: path.to_path_buf(), source };
        let bytes = std::fs::read(path).map_err(io)?;
        let src = String::from_utf8(bytes).map_err(|e| {
            let why = crate::error::not_utf8(e.as_bytes(), &e.utf8_error());
            io(io::Error::new(io::ErrorKind::InvalidData, why))
        })?;
        let dir = path.parent().unwrap_or(Path::new("")).to_path_buf();
        Self::parse_checked(&src, path, &|rel| std::fs::read(dir.join(rel)), check, target)
    }

    /// A workload of the bundled suite by name (see [`bundled_names`]), sized for the H200.
    pub fn bundled(name: &str) -> Result<Self, LoadError> {
        Self::bundled_for(name, &Target::default())
    }

    /// A workload of the bundled suite with its size expressions expanded for `target`.
    pub fn bundled_for(name: &str, target: &Target) -> Result<Self, LoadError> {
        let (path, bytes) = SUITE_FILES
            .iter()
            .find(|(p, _)| p.ends_with(".toml") && stem(p) == name)
            .ok_or_else(|| LoadError::UnknownBundled {
                name: name.to_string(),
                count: bundled_names().len(),
            })?;
        let shown = Path::new(BUNDLED_ROOT).join(path);
        let src = std::str::from_utf8(bytes).map_err(|e| LoadError::Io {
            path: shown.clone(),
            source: io::Error::new(io::ErrorKind::InvalidData, e),
        })?;
        let dir = path.rsplit_once('/').map_or("", |(d, _)| d);
        Self::parse_checked(src, &shown, &|rel| bundled_file(dir, rel), &|_, _| Ok(()), target)
    }

    /// Parse manifest text `src` (shown in errors as `path`), reading the files it names with `read`.
    pub fn parse(
        src: &str,
        path: &Path,
        read: &dyn Fn(&str) -> io::Result<Vec<u8>>,
    ) -> Result<Self, LoadError> {
        Self::parse_checked(src, path, read, &|_, _| Ok(()), &Target::default())
    }

    fn parse_checked(
        src: &str,
        path: &Path,
        read: &dyn Fn(&str) -> io::Result<Vec<u8>>,
        check: PtxCheck<'_>,
        target: &Target,
    ) -> Result<Self, LoadError> {
        let original = Locator { file: path.to_path_buf(), src };
        let src = &*sized::expand(src, target)
            .map_err(|e| original.error(crate::error::ErrorKind::Value, e.offset..e.offset + 2, e.message))?;
        let loc = Locator {
            file: path.to_path_buf(),
            src,
        };
        let parsed = manifest::parse(&loc, read, check)?;
        let m = parsed.manifest;
        let launches = m
            .launches
            .iter()
            .zip(&parsed.entries)
            .map(|(l, entry)| Launch {
                grid: l.grid,
                block: l.block,
                cluster: l.cluster.or(entry.reqnctapercluster).unwrap_or([1, 1, 1]),
                dynamic_smem: l.dynamic_smem,
                regs_per_thread: l.regs_per_thread,
                regs_source: if l.regs_per_thread.is_some() { RegsSource::Manifest } else { RegsSource::Estimate },
                maxrregcount: m.maxrregcount,
                spills: Spills::default(),
            })
            .collect();
        let inputs = m
            .buffers
            .iter()
            .map(|b| b.init.generate(b.dtype, b.len))
            .collect();
        let ptx_path = path.parent().unwrap_or(Path::new("")).join(&m.ptx);
        Ok(Workload {
            manifest: m,
            manifest_path: path.to_path_buf(),
            ptx: parsed.ptx,
            ptx_path,
            launches,
            inputs,
        })
    }

    /// The launch sequence: each launch's manifest entry with its resolved shape.
    pub fn sequence(&self) -> impl Iterator<Item = (&LaunchSpec, &Launch)> {
        self.manifest.launches.iter().zip(&self.launches)
    }

    /// The first launch's resolved shape: a single-launch workload's only one.
    pub fn launch(&self) -> &Launch {
        &self.launches[0]
    }

    /// A buffer's spec and initial data by name.
    pub fn buffer(&self, name: &str) -> Option<(&BufferSpec, &InitData)> {
        let i = self.manifest.buffers.iter().position(|b| b.name == name)?;
        Some((&self.manifest.buffers[i], &self.inputs[i]))
    }

    /// Compare output buffers (name, bytes read back) with the reference computed from `inputs`
    /// (one per buffer, in `manifest.buffers` order; normally `&self.inputs`).
    pub fn check<'a>(
        &self,
        inputs: &[InitData],
        outputs: impl IntoIterator<Item = (&'a str, &'a [u8])>,
    ) -> CheckReport {
        let outputs: BTreeMap<&str, &[u8]> = outputs.into_iter().collect();
        check::check(&self.manifest, self.launch().cluster, inputs, &outputs)
    }
}

fn stem(path: &str) -> &str {
    let file = path.rsplit_once('/').map_or(path, |(_, f)| f);
    file.strip_suffix(".toml").unwrap_or(file)
}

impl Workload {
    /// The committed SASS listing for `target` (`kernel.sm_90.sass`, written by
    /// `workloads/gen_sass.sh`) beside a bundled workload's PTX, when the PTX is the committed
    /// one (a listing never describes other code than its own).
    pub fn committed_sass(&self, target: &str) -> Option<&'static str> {
        let rel = self.ptx_path.strip_prefix(BUNDLED_ROOT).ok()?.to_string_lossy().replace('\\', "/");
        let (_, committed_ptx) = SUITE_FILES.iter().find(|(p, _)| *p == rel)?;
        if *committed_ptx != self.ptx.as_bytes() {
            return None;
        }
        let dir = rel.rsplit_once('/').map_or("", |(d, _)| d);
        let want = if dir.is_empty() { format!("kernel.{target}.sass") } else { format!("{dir}/kernel.{target}.sass") };
        let (_, bytes) = SUITE_FILES.iter().find(|(p, _)| *p == want)?;
        std::str::from_utf8(bytes).ok()
    }
}

fn bundled_file(dir: &str, rel: &str) -> io::Result<Vec<u8>> {
    let rel = rel.trim_start_matches("./");
    let full = if dir.is_empty() {
        rel.to_string()
    } else {
        format!("{dir}/{rel}")
    };
    SUITE_FILES
        .iter()
        .find(|(p, _)| *p == full)
        .map(|(_, b)| b.to_vec())
        .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, format!("no bundled file `{full}`")))
}

/// The bundled workloads grouped by their suite directory (`reduce` → the six reductions,
/// `copy` → the coalescing copies, …): group names and members sorted.
pub fn bundled_groups() -> BTreeMap<&'static str, Vec<&'static str>> {
    let mut groups: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (p, _) in SUITE_FILES.iter().filter(|(p, _)| p.ends_with(".toml")) {
        let dir = p.rsplit_once('/').map_or("", |(d, _)| d);
        groups.entry(dir).or_default().push(stem(p));
    }
    for names in groups.values_mut() {
        names.sort_unstable();
    }
    groups
}

/// Names of the bundled workloads, sorted.
pub fn bundled_names() -> Vec<&'static str> {
    let mut names: Vec<&str> = SUITE_FILES
        .iter()
        .filter(|(p, _)| p.ends_with(".toml"))
        .map(|(p, _)| stem(p))
        .collect();
    names.sort_unstable();
    names
}
