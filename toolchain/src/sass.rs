//! The SASS ptxas makes of a PTX text, as nvdisasm lists it: PTX → cubin → listing.
//!
//! `ptxas -arch=<target> -lineinfo -o kernel.cubin` then `nvdisasm -hex -gi -gp kernel.cubin` (without
//! `-c`: the data sections come too, for constant bank 2's literals): the code, the 128-bit encodings (whose control bits `warpsim-sass` decodes), CUDA
//! source lines with their inlining chains, and PTX lines. `-lineinfo` is what makes ptxas keep
//! both line tables (`.debug_line` for the CUDA file, `.nv_debug_line_sass` with the PTX text in
//! `.nv_debug_ptx_txt`, whose line numbers are those of the PTX handed to ptxas — retargeting
//! rewrites lines in place, so they are the workload's own).
//!
//! CUDA 13's nvdisasm (the only one on PyPI) no longer reads sm_70 cubins; Volta's encoding is
//! the subset of Turing's without the uniform datapath, so an sm_70 cubin is handed to it marked
//! sm_75 (two bytes of the ELF header) and the listing says so in its first line.
//!
//! Listings are cached like ptxas reports (`sass/<sha256>.json` under [`crate::ptxas::cache_dir`],
//! keyed by PTX, target and both tools' versions). Bundled workloads fall back to the listing
//! committed beside their PTX when this machine has no tools ([`for_workload`]).

use std::process::Command;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::discover::{Tool, ToolKind, Toolchain};
use crate::ptxas::{retarget, scratch_dir};

/// The one pip command that installs nvdisasm where discovery finds it.
pub const NVDISASM_HINT: &str = "pip install nvidia-cuda-nvdisasm";

/// A SASS listing and where it came from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Listing {
    /// nvdisasm's text.
    pub text: String,
    pub target: String,
    /// `ptxas 13.0.88 + nvdisasm 13.2.78`, or `committed listing (workloads/gen_sass.sh)`.
    pub source: String,
    /// The PTX's own `.target` when ptxas was handed it retargeted.
    pub retargeted_from: Option<String>,
}

/// Why no listing.
#[derive(Debug, thiserror::Error)]
pub enum SassError {
    #[error("no {tool} for {target} on this machine (`warpsim toolchain` lists what was found); install it with: {hint}")]
    Missing { tool: &'static str, target: String, hint: String },
    #[error("cannot run {tool}: {message}")]
    Run { tool: String, message: String },
    #[error("{tool} failed for {target}: {log}")]
    Rejected { tool: String, target: String, log: String },
}

/// The SASS target for a compute capability and a PTX: `sm_90a` where the PTX asks for the
/// arch-specific Hopper target (wgmma, setmaxnreg) and the capability is 9.0, else `sm_XY`.
pub fn target_for(cc: [u32; 2], ptx: &str) -> String {
    let plain = crate::discover::sm_target(cc);
    let own = ptx.lines().find_map(|l| l.trim_start().strip_prefix(".target")).and_then(|r| r.split([',', ' ', '\t']).find(|w| !w.is_empty()));
    match own {
        Some(t) if t == format!("{plain}a") => t.to_string(),
        _ => plain,
    }
}

/// The listing of `ptx` compiled for `target`, from the cache or a fresh ptxas + nvdisasm run.
pub fn listing(tc: &Toolchain, ptx: &str, target: &str) -> Result<Listing, SassError> {
    let num = crate::discover::sm_number(target).unwrap_or(0);
    let ptxas = tc.ptxas_for(target).ok_or_else(|| SassError::Missing {
        tool: "ptxas",
        target: target.to_string(),
        hint: crate::discover::wheel_hint([num / 10, num % 10]).unwrap_or(crate::discover::INSTALL_HINT).to_string(),
    })?;
    let nvdisasm = tc.of(ToolKind::Nvdisasm).next().ok_or_else(|| SassError::Missing { tool: "nvdisasm", target: target.to_string(), hint: NVDISASM_HINT.to_string() })?;
    let key = cache_key(ptxas, nvdisasm, ptx, target);
    if let Some(l) = crate::ptxas::cache_get::<Listing>("sass", &key) {
        return Ok(l);
    }
    let (text, retargeted_from) = retarget(ptx, target, ptxas.release);
    let listing = run(ptxas, nvdisasm, &text, target).map(|text| Listing { text, target: target.to_string(), source: format!("{} + {}", ptxas.label(), nvdisasm.label()), retargeted_from })?;
    crate::ptxas::cache_put("sass", &key, &listing);
    Ok(listing)
}

/// The listing of a workload for `target`: compiled here when the toolchain can, else the one
/// committed beside a bundled workload's PTX; the error says what to install otherwise.
pub fn for_workload(tc: &Toolchain, w: &warpsim_workloads::Workload, target: &str) -> Result<Listing, SassError> {
    match listing(tc, &w.ptx, target) {
        Err(SassError::Missing { tool, target, hint }) => w
            .committed_sass(&target)
            .map(|text| Listing { text: text.to_string(), target: target.clone(), source: "committed listing (workloads/gen_sass.sh)".into(), retargeted_from: None })
            .ok_or(SassError::Missing { tool, target, hint }),
        other => other,
    }
}

fn run(ptxas: &Tool, nvdisasm: &Tool, ptx: &str, target: &str) -> Result<String, SassError> {
    let err = |tool: &Tool, message: String| SassError::Run { tool: tool.label(), message };
    let dir = scratch_dir().map_err(|e| err(ptxas, format!("no scratch directory: {e}")))?;
    let input = dir.join("kernel.ptx");
    let cubin = dir.join("kernel.cubin");
    let result = (|| {
        std::fs::write(&input, ptx).map_err(|e| err(ptxas, format!("cannot write {}: {e}", input.display())))?;
        let out = Command::new(&ptxas.path).arg(format!("-arch={target}")).arg("-lineinfo").arg("-o").arg(&cubin).arg(&input).output().map_err(|e| err(ptxas, e.to_string()))?;
        if !out.status.success() {
            let log = String::from_utf8_lossy(&out.stderr).lines().map(str::trim).collect::<Vec<_>>().join("; ");
            return Err(SassError::Rejected { tool: ptxas.label(), target: target.to_string(), log: log.replace(&input.display().to_string(), "<ptx>") });
        }
        let disasm = |path: &std::path::Path| Command::new(&nvdisasm.path).args(["-hex", "-gi", "-gp"]).arg(path).output().map_err(|e| err(nvdisasm, e.to_string()));
        let out = disasm(&cubin)?;
        if out.status.success() {
            return Ok(String::from_utf8_lossy(&out.stdout).into_owned());
        }
        let log = String::from_utf8_lossy(&out.stderr).trim().to_string();
        if crate::discover::sm_number(target).is_some_and(|n| n < 75) {
            // CUDA 13's nvdisasm refuses Volta: read the same code as Turing's.
            let bytes = std::fs::read(&cubin).map_err(|e| err(ptxas, format!("cannot read the cubin: {e}")))?;
            let relabelled = relabel_sm75(bytes).ok_or_else(|| err(ptxas, "the cubin is not a 64-bit ELF".into()))?;
            let path = dir.join("kernel.sm75.cubin");
            std::fs::write(&path, relabelled).map_err(|e| err(nvdisasm, format!("cannot write {}: {e}", path.display())))?;
            let out = disasm(&path)?;
            if out.status.success() {
                let head = format!("// warpsim: {target} code; {} reads no {target}, so the cubin was marked sm_75 for it (Volta's encoding is Turing's without the uniform datapath)\n\t.target\t{target}\n", nvdisasm.label());
                return Ok(head + &String::from_utf8_lossy(&out.stdout));
            }
        }
        Err(SassError::Rejected { tool: nvdisasm.label(), target: target.to_string(), log })
    })();
    let _ = std::fs::remove_dir_all(&dir);
    result
}

/// The cubin with its ELF `e_flags` SM fields (bits 0–7 and 16–23) set to 75.
fn relabel_sm75(mut elf: Vec<u8>) -> Option<Vec<u8>> {
    if elf.len() < 0x34 || &elf[..4] != b"\x7fELF" || elf[4] != 2 {
        return None;
    }
    let flags = u32::from_le_bytes(elf[0x30..0x34].try_into().ok()?);
    let flags = (flags & !0x00ff_00ff) | 0x004b_004b;
    elf[0x30..0x34].copy_from_slice(&flags.to_le_bytes());
    Some(elf)
}

fn cache_key(ptxas: &Tool, nvdisasm: &Tool, ptx: &str, target: &str) -> String {
    let mut h = Sha256::new();
    for part in [ptx, target, &ptxas.label(), &nvdisasm.label(), "sass-listing-2"] {
        h.update(part.as_bytes());
        h.update([0u8]);
    }
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets() {
        assert_eq!(target_for([9, 0], ".version 9.0\n.target sm_90a\n"), "sm_90a");
        assert_eq!(target_for([9, 0], ".target sm_90\n"), "sm_90");
        assert_eq!(target_for([8, 0], ".target sm_90a\n"), "sm_80");
    }

    #[test]
    fn missing_tools_say_what_to_install() {
        let e = listing(&Toolchain::none(), ".target sm_90\n", "sm_90").unwrap_err();
        assert!(e.to_string().contains("pip install nvidia-cuda-nvcc"), "{e}");
        let w = warpsim_workloads::Workload::bundled("saxpy").unwrap();
        let l = for_workload(&Toolchain::none(), &w, "sm_90").unwrap();
        assert!(l.source.starts_with("committed"), "{}", l.source);
        assert!(l.text.contains(".text.saxpy"));
        let e = for_workload(&Toolchain::none(), &w, "sm_80").unwrap_err();
        assert!(e.to_string().contains("no ptxas for sm_80"), "{e}");
    }

    #[test]
    fn relabels_only_elf64() {
        let mut elf = vec![0u8; 0x40];
        elf[..5].copy_from_slice(b"\x7fELF\x02");
        elf[0x30..0x34].copy_from_slice(&0x0046_0546u32.to_le_bytes());
        let r = relabel_sm75(elf).unwrap();
        assert_eq!(u32::from_le_bytes(r[0x30..0x34].try_into().unwrap()), 0x004b_054b);
        assert!(relabel_sm75(vec![0; 8]).is_none());
    }
}
