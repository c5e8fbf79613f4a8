//! Finding ptxas, nvdisasm and cuobjdump without a CUDA installation to lean on.
//!
//! Places are searched in a fixed order and every tool found is kept (a CUDA 13 ptxas for sm_75
//! and newer, a CUDA 12 one for Maxwell to Volta, an 11.8 one for Kepler can sit side by side):
//! 1. the root given by `--cuda-root DIR` or `WARPSIM_CUDA=DIR` (`DIR/bin`, then `DIR`);
//!    `WARPSIM_CUDA=none` turns discovery off altogether;
//! 2. `CUDA_HOME`, then `CUDA_PATH` (`/bin` under each);
//! 3. every directory on `PATH`;
//! 4. the NVIDIA wheels pip installs (`nvidia/cu13/bin`, `nvidia/cuda_nvcc/bin`,
//!    `nvidia/cuda_nvdisasm/bin`, `nvidia/cuda_cuobjdump/bin` under each of `python3`'s
//!    site-packages directories).
//!
//! A tool is asked its version (`--version`) and, for ptxas, the targets it accepts (`--help`'s
//! list of `--gpu-name` values). A binary that does not answer is reported as a problem and
//! skipped, never fatal.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The environment variable naming a CUDA root, or `none`.
pub const ENV_CUDA: &str = "WARPSIM_CUDA";

/// The one command that installs the H200's ptxas (CUDA 13.0.88) from PyPI, where discovery finds it.
pub const INSTALL_HINT: &str = "pip install nvidia-cuda-nvcc==13.0.88";

/// Which tool.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum ToolKind {
    Ptxas,
    Nvdisasm,
    Cuobjdump,
}

impl ToolKind {
    pub const ALL: [ToolKind; 3] = [ToolKind::Ptxas, ToolKind::Nvdisasm, ToolKind::Cuobjdump];

    pub fn binary(self) -> &'static str {
        match self {
            ToolKind::Ptxas => "ptxas",
            ToolKind::Nvdisasm => "nvdisasm",
            ToolKind::Cuobjdump => "cuobjdump",
        }
    }
}

/// One tool found on this machine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tool {
    pub kind: ToolKind,
    pub path: PathBuf,
    /// `13.0.88`, from `Cuda compilation tools, release 13.0, V13.0.88`.
    pub version: String,
    /// Release `(major, minor)`: `(13, 0)`.
    pub release: (u32, u32),
    /// Real targets it compiles for (`sm_75`, `sm_90`, `sm_90a`, ...); ptxas only.
    pub targets: Vec<String>,
    /// Where discovery found it: `--cuda-root`, `WARPSIM_CUDA`, `CUDA_HOME`, `CUDA_PATH`, `PATH`
    /// or `pip wheel`.
    pub found_by: &'static str,
}

impl Tool {
    /// `ptxas 13.0.88`.
    pub fn label(&self) -> String {
        format!("{} {}", self.kind.binary(), self.version)
    }

    pub fn accepts(&self, target: &str) -> bool {
        self.targets.iter().any(|t| t == target)
    }
}

/// Every tool discovery found, in search order, and what went wrong on the way.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Toolchain {
    pub tools: Vec<Tool>,
    /// True when `WARPSIM_CUDA=none` turned discovery off.
    pub disabled: bool,
    /// Binaries that were found but did not answer, one line each.
    pub problems: Vec<String>,
}

impl Toolchain {
    /// No tools: what `WARPSIM_CUDA=none` gives.
    pub fn none() -> Toolchain {
        Toolchain { disabled: true, ..Toolchain::default() }
    }

    /// The process's toolchain, discovered once from the environment (`WARPSIM_CUDA`, `CUDA_HOME`,
    /// `CUDA_PATH`, `PATH`, pip's site-packages). The binary turns `--cuda-root` into
    /// `WARPSIM_CUDA` before anything asks.
    pub fn from_env() -> &'static Toolchain {
        static TC: OnceLock<Toolchain> = OnceLock::new();
        TC.get_or_init(|| Toolchain::discover(None))
    }

    /// Searches the places in the module's order; `root` stands for `--cuda-root`.
    pub fn discover(root: Option<&Path>) -> Toolchain {
        let env_root = std::env::var_os(ENV_CUDA).filter(|v| !v.is_empty());
        if root.is_none() && env_root.as_deref().is_some_and(|v| v.eq_ignore_ascii_case("none")) {
            return Toolchain::none();
        }
        let mut dirs: Vec<(PathBuf, &'static str)> = Vec::new();
        let explicit = root.map(|r| (r.to_path_buf(), "--cuda-root")).or_else(|| env_root.map(|r| (PathBuf::from(r), ENV_CUDA)));
        if let Some((r, by)) = explicit {
            dirs.push((r.join("bin"), by));
            dirs.push((r, by));
        }
        for var in ["CUDA_HOME", "CUDA_PATH"] {
            if let Some(r) = std::env::var_os(var).filter(|v| !v.is_empty()) {
                dirs.push((PathBuf::from(r).join("bin"), var));
            }
        }
        if let Some(path) = std::env::var_os("PATH") {
            dirs.extend(std::env::split_paths(&path).map(|d| (d, "PATH")));
        }
        for site in python_site_dirs() {
            for sub in ["nvidia/cu13/bin", "nvidia/cuda_nvcc/bin", "nvidia/cuda_nvdisasm/bin", "nvidia/cuda_cuobjdump/bin"] {
                dirs.push((site.join(sub), "pip wheel"));
            }
        }
        let mut tc = Toolchain::default();
        let mut seen: Vec<PathBuf> = Vec::new();
        for (dir, by) in dirs {
            for kind in ToolKind::ALL {
                let path = dir.join(kind.binary());
                if !path.is_file() {
                    continue;
                }
                let canon = path.canonicalize().unwrap_or_else(|_| path.clone());
                if seen.contains(&canon) {
                    continue;
                }
                seen.push(canon);
                match probe(kind, &path, by) {
                    Ok(t) => tc.tools.push(t),
                    Err(e) => tc.problems.push(format!("{}: {e}", path.display())),
                }
            }
        }
        tc
    }

    /// The first ptxas (in search order) that compiles for `target` (`sm_90`, `sm_90a`, ...).
    pub fn ptxas_for(&self, target: &str) -> Option<&Tool> {
        self.of(ToolKind::Ptxas).find(|t| t.accepts(target))
    }

    /// Every tool of one kind, in search order.
    pub fn of(&self, kind: ToolKind) -> impl Iterator<Item = &Tool> {
        self.tools.iter().filter(move |t| t.kind == kind)
    }
}

/// The one pip command that installs a ptxas serving compute capability `cc` where discovery
/// finds it: CUDA 13 for sm_75 and newer, CUDA 12.9 for Maxwell to Volta (CUDA 13 dropped
/// sm_50–sm_72), CUDA 11.8 for Kepler; none for Tesla and Fermi (no PyPI ptxas targets them).
pub fn wheel_hint(cc: [u32; 2]) -> Option<&'static str> {
    match cc[0] * 10 + cc[1] {
        75.. => Some(INSTALL_HINT),
        50..=74 => Some("pip install nvidia-cuda-nvcc-cu12==12.9.86"),
        30..=49 => Some("pip install nvidia-cuda-nvcc-cu11==11.8.89"),
        _ => None,
    }
}

/// `sm_90` for compute capability 9.0.
pub fn sm_target(cc: [u32; 2]) -> String {
    format!("sm_{}{}", cc[0], cc[1])
}

/// site-packages directories of `python3` (system, user, and whatever `sys.path` holds), or none
/// when there is no Python.
fn python_site_dirs() -> Vec<PathBuf> {
    let script = "import site, sys\nfor p in site.getsitepackages() + [site.getusersitepackages()] + sys.path: print(p)";
    let Ok(out) = Command::new("python3").args(["-c", script]).output() else {
        return Vec::new();
    };
    let mut dirs: Vec<PathBuf> = Vec::new();
    for line in String::from_utf8_lossy(&out.stdout).lines().map(str::trim).filter(|l| !l.is_empty()) {
        let p = PathBuf::from(line);
        if p.is_dir() && !dirs.contains(&p) {
            dirs.push(p);
        }
    }
    dirs
}

fn probe(kind: ToolKind, path: &Path, found_by: &'static str) -> Result<Tool, String> {
    let out = Command::new(path).arg("--version").output().map_err(|e| format!("cannot run: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    let (version, release) = parse_version(&text).ok_or_else(|| {
        let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("no output");
        format!("`--version` printed no CUDA release (`{}`)", first.trim())
    })?;
    let targets = if kind == ToolKind::Ptxas {
        let help = Command::new(path).arg("--help").output().map_err(|e| format!("cannot run `--help`: {e}"))?;
        let targets = parse_targets(&String::from_utf8_lossy(&help.stdout));
        if targets.is_empty() {
            return Err("`--help` lists no sm_XX targets".into());
        }
        targets
    } else {
        Vec::new()
    };
    Ok(Tool { kind, path: path.to_path_buf(), version, release, targets, found_by })
}

/// `13.0.88` and `(13, 0)` from `Cuda compilation tools, release 13.0, V13.0.88`.
pub fn parse_version(text: &str) -> Option<(String, (u32, u32))> {
    let line = text.lines().find(|l| l.contains("release"))?;
    let v = line.rsplit_once(", V").map(|(_, v)| v.trim().to_string())?;
    let mut parts = v.split('.').map(|p| p.parse::<u32>().ok());
    let (major, minor) = (parts.next()??, parts.next()??);
    Some((v, (major, minor)))
}

/// The real `sm_XX[a|f]` targets in ptxas's `--help` (the `--gpu-name` allowed values), sorted by
/// number.
pub fn parse_targets(help: &str) -> Vec<String> {
    // Only the values listed under `--gpu-name` (elsewhere the help mentions retired targets).
    let section = help.split_once("--gpu-name").map_or("", |(_, rest)| rest);
    let section = section.split_once("Allowed values for this option:").map_or("", |(_, rest)| rest);
    let section = section.split("\n--").next().unwrap_or("");
    let section = section.split("Default value").next().unwrap_or("");
    let mut t: Vec<String> = section
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| w.strip_prefix("sm_").is_some_and(|n| n.len() >= 2 && n.as_bytes()[0].is_ascii_digit() && n.as_bytes()[1].is_ascii_digit()))
        .map(str::to_string)
        .collect();
    t.sort_by_key(|s| (sm_number(s).unwrap_or(0), s.clone()));
    t.dedup();
    t
}

/// 90 for `sm_90` / `sm_90a`, 100 for `sm_100f`.
pub fn sm_number(target: &str) -> Option<u32> {
    let digits: String = target.strip_prefix("sm_")?.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_and_targets() {
        let v = "ptxas: NVIDIA (R) Ptx optimizing assembler\nCuda compilation tools, release 13.0, V13.0.88\nBuild cuda_13.0.r13.0/compiler.36424714_0\n";
        assert_eq!(parse_version(v), Some(("13.0.88".to_string(), (13, 0))));
        assert_eq!(parse_version("ptxas: something else"), None);
        let help = "--gpu-name <gpu name>  (-arch)\n        Specify ... sm_XY\n        Allowed values for this option:  'compute_90','compute_90a','lto_90','sm_100','sm_75','sm_80',\n        'sm_90','sm_90a'.\n\n--maxrregcount  (-maxrregcount)\n        for sm_70 or higher";
        assert_eq!(parse_targets(help), ["sm_75", "sm_80", "sm_90", "sm_90a", "sm_100"]);
        assert_eq!(sm_number("sm_90a"), Some(90));
        assert_eq!(sm_target([8, 6]), "sm_86");
    }

    #[test]
    fn none_finds_nothing() {
        let tc = Toolchain::none();
        assert!(tc.disabled && tc.tools.is_empty());
        assert!(tc.ptxas_for("sm_90").is_none());
    }

    #[test]
    fn an_explicit_root_without_tools_finds_none_there() {
        let dir = std::env::temp_dir().join(format!("warpsim-tc-empty-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("bin")).unwrap();
        let tc = Toolchain::discover(Some(&dir));
        assert!(tc.tools.iter().all(|t| !t.path.starts_with(&dir)));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_broken_binary_is_a_problem_not_a_panic() {
        let dir = std::env::temp_dir().join(format!("warpsim-tc-broken-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("bin")).unwrap();
        std::fs::write(dir.join("bin/ptxas"), "not an executable").unwrap();
        let tc = Toolchain::discover(Some(&dir));
        assert!(tc.problems.iter().any(|p| p.contains("bin/ptxas")), "{:?}", tc.problems);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
