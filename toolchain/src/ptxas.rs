//! Running `ptxas -arch=sm_XX -v` on a PTX text and reading what it reports per entry.
//!
//! ptxas prints, for every `.entry` it compiles:
//! ```text
//! ptxas info    : Compiling entry function 'k' for 'sm_90'
//! ptxas info    : Function properties for k
//!     440 bytes stack frame, 716 bytes spill stores, 744 bytes spill loads
//! ptxas info    : Used 32 registers, used 1 barriers, 8192 bytes smem, 440 bytes cumulative stack size
//! ```
//! Answers are cached by (PTX hash, target, ptxas version, `--maxrregcount`) in
//! `$WARPSIM_CACHE_DIR`, else `$XDG_CACHE_HOME/warpsim`, else `~/.cache/warpsim` (`ptxas/<sha256>.json`);
//! an unreadable or foreign entry is recomputed, an unwritable cache only costs the recompile.
//!
//! PTX written for a newer target than the simulated one (`.target sm_90` on an Ampere preset) is
//! retargeted: the copy handed to ptxas says `.target sm_80` (and, for an older ptxas, the newest
//! `.version` it reads); ptxas then rejects it only if the kernel really uses something the target
//! lacks, and the report says it was retargeted.

use std::path::PathBuf;
use std::process::Command;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::discover::{sm_number, Tool};

/// What ptxas reported for one entry function.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EntryResources {
    pub entry: String,
    pub registers: u32,
    pub spill_store_bytes: u32,
    pub spill_load_bytes: u32,
    pub stack_bytes: u32,
    pub smem_bytes: u32,
    pub barriers: u32,
}

impl EntryResources {
    /// The spill code as a launch carries it.
    pub fn spills(&self) -> warpsim_workloads::Spills {
        warpsim_workloads::Spills { store_bytes: self.spill_store_bytes, load_bytes: self.spill_load_bytes, stack_bytes: self.stack_bytes }
    }
}

/// One compilation's answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Report {
    /// `ptxas 13.0.88`.
    pub tool: String,
    pub target: String,
    /// The PTX's own `.target` when it was rewritten to `target`.
    pub retargeted_from: Option<String>,
    pub entries: Vec<EntryResources>,
}

impl Report {
    pub fn entry(&self, name: &str) -> Option<&EntryResources> {
        self.entries.iter().find(|e| e.entry == name)
    }
}

/// Why ptxas gave no answer.
#[derive(Debug, thiserror::Error)]
pub enum PtxasError {
    #[error("cannot run {tool}: {message}")]
    Run { tool: String, message: String },
    #[error("{tool} rejected the PTX for {target}: {log}")]
    Rejected { tool: String, target: String, log: String },
}

/// The resources of every entry in `ptx` for `target`, from the cache or a fresh ptxas run.
pub fn compile(tool: &Tool, ptx: &str, target: &str, maxrregcount: Option<u32>) -> Result<Report, PtxasError> {
    let key = cache_key(tool, ptx, target, maxrregcount);
    if let Some(r) = cache_get::<Report>("ptxas", &key).filter(|r| r.tool == tool.label() && r.target == target) {
        return Ok(r);
    }
    let (text, retargeted_from) = retarget(ptx, target, tool.release);
    let report = run(tool, &text, target, maxrregcount).map(|entries| Report { tool: tool.label(), target: target.to_string(), retargeted_from, entries })?;
    cache_put("ptxas", &key, &report);
    Ok(report)
}

fn run(tool: &Tool, ptx: &str, target: &str, maxrregcount: Option<u32>) -> Result<Vec<EntryResources>, PtxasError> {
    let err = |message: String| PtxasError::Run { tool: tool.label(), message };
    let dir = scratch_dir().map_err(|e| err(format!("no scratch directory: {e}")))?;
    let input = dir.join("kernel.ptx");
    let result = (|| {
        std::fs::write(&input, ptx).map_err(|e| err(format!("cannot write {}: {e}", input.display())))?;
        let mut cmd = Command::new(&tool.path);
        cmd.arg(format!("-arch={target}")).arg("-v").arg("-o").arg(dir.join("kernel.cubin"));
        if let Some(n) = maxrregcount {
            cmd.arg(format!("--maxrregcount={n}"));
        }
        let out = cmd.arg(&input).output().map_err(|e| err(e.to_string()))?;
        let log = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
        if !out.status.success() {
            let log = log.lines().filter(|l| !l.starts_with("ptxas info")).map(str::trim).collect::<Vec<_>>().join("; ");
            return Err(PtxasError::Rejected { tool: tool.label(), target: target.to_string(), log: log.replace(&input.display().to_string(), "<ptx>") });
        }
        Ok(parse_verbose(&log))
    })();
    let _ = std::fs::remove_dir_all(&dir);
    result
}

/// A fresh private directory under the system's temporary directory.
pub(crate) fn scratch_dir() -> std::io::Result<PathBuf> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    let dir = std::env::temp_dir().join(format!("warpsim-ptxas-{}-{}", std::process::id(), N.fetch_add(1, Ordering::Relaxed)));
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

/// Reads `ptxas -v` output: one [`EntryResources`] per "Compiling entry function" block (device
/// functions' "Function properties" blocks without one are skipped).
pub fn parse_verbose(log: &str) -> Vec<EntryResources> {
    let mut entries: Vec<EntryResources> = Vec::new();
    let mut current: Option<usize> = None;
    for line in log.lines() {
        let l = line.trim();
        if let Some(rest) = l.split_once("Compiling entry function '").map(|(_, r)| r) {
            let name = rest.split('\'').next().unwrap_or("").to_string();
            entries.push(EntryResources { entry: name, ..EntryResources::default() });
            current = Some(entries.len() - 1);
        } else if let Some(rest) = l.split_once("Function properties for ").map(|(_, r)| r.trim()) {
            // A device function's block (ptxas lists them too) must not overwrite the entry's.
            current = entries.iter().position(|e| e.entry == rest);
        } else if let Some(e) = current.map(|i| &mut entries[i]) {
            for part in l.trim_start_matches("ptxas info    :").split(',') {
                let mut words = part.split_whitespace();
                let (Some(a), Some(b)) = (words.next(), words.next()) else { continue };
                let rest: Vec<&str> = words.collect();
                let (num, what) = match (a.parse::<u32>(), b.parse::<u32>()) {
                    (Ok(n), _) => (n, [b].into_iter().chain(rest).collect::<Vec<_>>().join(" ")),
                    (_, Ok(n)) if a == "Used" || a == "used" => (n, rest.join(" ")),
                    _ => continue,
                };
                match what.as_str() {
                    "registers" => e.registers = num,
                    "barriers" => e.barriers = num,
                    "bytes stack frame" => e.stack_bytes = num,
                    "bytes spill stores" => e.spill_store_bytes = num,
                    "bytes spill loads" => e.spill_load_bytes = num,
                    "bytes smem" => e.smem_bytes = num,
                    _ => {}
                }
            }
        }
    }
    entries
}

/// The PTX as ptxas will get it for `target`: `.target` lowered when the PTX asks for a newer
/// SM, `.version` lowered to the newest an older ptxas reads. Returns the original target when
/// it was rewritten.
pub(crate) fn retarget(ptx: &str, target: &str, release: (u32, u32)) -> (String, Option<String>) {
    let mut from = None;
    let max_isa = max_ptx_isa(release);
    let mut out = String::with_capacity(ptx.len());
    for line in ptx.split_inclusive('\n') {
        let t = line.trim_start();
        if let Some(rest) = t.strip_prefix(".target") {
            let own = rest.split([',', ' ', '\t', '\r', '\n']).find(|w| !w.is_empty()).unwrap_or("");
            if own != target && sm_number(own).zip(sm_number(target)).is_some_and(|(a, b)| a > b || (a == b && own != target)) {
                let tail: String = rest.trim_start().trim_start_matches(own).to_string();
                out.push_str(&format!(".target {target}{tail}"));
                from = Some(own.to_string());
                continue;
            }
        } else if let Some(rest) = t.strip_prefix(".version") {
            let own = rest.trim();
            let parse = |v: &str| v.split_once('.').and_then(|(a, b)| Some((a.parse::<u32>().ok()?, b.parse::<u32>().ok()?)));
            if let (Some(v), Some(m)) = (parse(own), max_isa) {
                if v > m {
                    out.push_str(&format!(".version {}.{}\n", m.0, m.1));
                    continue;
                }
            }
        }
        out.push_str(line);
    }
    (out, from)
}

/// The newest PTX ISA a CUDA release's ptxas reads (PTX ISA manual, "Release history").
fn max_ptx_isa(release: (u32, u32)) -> Option<(u32, u32)> {
    Some(match release {
        (11, m) => (7, m.min(8)),
        (12, m @ 0..=5) => (8, m),
        (12, 6) | (12, 7) => (8, 5),
        (12, m) => (8, (m - 1).min(8)),
        (13, _) => (9, 0),
        _ => return None,
    })
}

fn cache_key(tool: &Tool, ptx: &str, target: &str, maxrregcount: Option<u32>) -> String {
    let mut h = Sha256::new();
    for part in [ptx, target, &tool.label(), &format!("{maxrregcount:?}"), "ptxas-report-1"] {
        h.update(part.as_bytes());
        h.update([0u8]);
    }
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// `$WARPSIM_CACHE_DIR`, else `$XDG_CACHE_HOME/warpsim`, else `$HOME/.cache/warpsim`.
pub fn cache_dir() -> Option<PathBuf> {
    let var = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty()).map(PathBuf::from);
    var("WARPSIM_CACHE_DIR")
        .or_else(|| var("XDG_CACHE_HOME").map(|d| d.join("warpsim")))
        .or_else(|| var("HOME").map(|d| d.join(".cache").join("warpsim")))
}

/// Where [`compile`]'s answer for these inputs is cached.
pub fn cache_path(tool: &Tool, ptx: &str, target: &str, maxrregcount: Option<u32>) -> Option<PathBuf> {
    Some(cache_dir()?.join("ptxas").join(format!("{}.json", cache_key(tool, ptx, target, maxrregcount))))
}

/// A cached answer of one kind of tool run (`kind`: the cache's subdirectory), if present and
/// readable; a damaged entry reads as absent and is recomputed.
pub(crate) fn cache_get<T: serde::de::DeserializeOwned>(kind: &str, key: &str) -> Option<T> {
    let text = std::fs::read_to_string(cache_dir()?.join(kind).join(format!("{key}.json"))).ok()?;
    serde_json::from_str(&text).ok()
}

/// Stores an answer under `kind/key.json`, written to a temporary file and renamed so a reader
/// never sees half of it; a cache that cannot be written is skipped.
pub(crate) fn cache_put<T: serde::Serialize>(kind: &str, key: &str, value: &T) {
    let Some(dir) = cache_dir().map(|d| d.join(kind)) else { return };
    let Ok(text) = serde_json::to_string_pretty(value) else { return };
    if std::fs::create_dir_all(&dir).is_ok() {
        let tmp = dir.join(format!("{key}.{}.tmp", std::process::id()));
        if std::fs::write(&tmp, text).is_ok() && std::fs::rename(&tmp, dir.join(format!("{key}.json"))).is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOG: &str = "ptxas info    : 0 bytes gmem
ptxas info    : Function properties for helper
    8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads
ptxas info    : Compiling entry function 'occ_regs_capped' for 'sm_90'
ptxas info    : Function properties for occ_regs_capped
    440 bytes stack frame, 716 bytes spill stores, 744 bytes spill loads
ptxas info    : Used 32 registers, used 0 barriers, 440 bytes cumulative stack size
ptxas info    : Compile time = 31.972 ms
ptxas info    : Compiling entry function 'matmul_tiled32' for 'sm_90'
ptxas info    : Function properties for matmul_tiled32
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 32 registers, used 1 barriers, 8192 bytes smem
ptxas info    : Compile time = 4.699 ms
";

    #[test]
    fn reads_every_entry() {
        let e = parse_verbose(LOG);
        assert_eq!(e.len(), 2);
        assert_eq!(
            e[0],
            EntryResources { entry: "occ_regs_capped".into(), registers: 32, spill_store_bytes: 716, spill_load_bytes: 744, stack_bytes: 440, smem_bytes: 0, barriers: 0 }
        );
        assert_eq!((e[1].registers, e[1].barriers, e[1].smem_bytes), (32, 1, 8192));
    }

    #[test]
    fn retargets_newer_ptx() {
        let ptx = ".version 9.0\n.target sm_90\n.address_size 64\n";
        let (t, from) = retarget(ptx, "sm_80", (13, 0));
        assert_eq!(t, ".version 9.0\n.target sm_80\n.address_size 64\n");
        assert_eq!(from.as_deref(), Some("sm_90"));
        let (t, from) = retarget(ptx, "sm_70", (12, 8));
        assert_eq!(t, ".version 8.7\n.target sm_70\n.address_size 64\n");
        assert_eq!(from.as_deref(), Some("sm_90"));
        let (t, from) = retarget(".target sm_80\n", "sm_90", (13, 0));
        assert_eq!((t.as_str(), from), (".target sm_80\n", None));
        let (t, _) = retarget(".target sm_90a\n", "sm_90", (13, 0));
        assert_eq!(t, ".target sm_90\n");
    }
}
