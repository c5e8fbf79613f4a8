//! Filling each launch's compiler-decided resources before it is simulated.
//!
//! A manifest's `regs_per_thread` is kept as it is (ptxas, where present, still supplies the
//! spill code of the same build). Otherwise ptxas is asked for the simulated target; its registers, spills and stack frame go into the launch with
//! their provenance (`ptxas 13.0.88, sm_90`). Without a ptxas for the target, or when ptxas
//! rejects the PTX, the launch is left to the simulator's estimate and the caller gets one line
//! saying so, with the command that installs ptxas.

use warpsim_workloads::{RegsSource, Workload};

use crate::discover::{sm_number, sm_target, wheel_hint, Toolchain};
use crate::ptxas;

/// What [`resolve`] did, for the run's header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Resolution {
    /// The manifest gives the registers: nothing to do.
    Manifest,
    /// ptxas answered.
    Compiler,
    /// The simulator will estimate; the line says why and how to get ptxas.
    Estimate(String),
}

/// The real target to compile `ptx` for on a GPU of compute capability `cc`: `sm_XY`, or the
/// PTX's own `sm_XYa` when it asks for the arch-specific variant of the same SM (wgmma and
/// setmaxnreg need `sm_90a`).
pub fn target_for(ptx: &str, cc: [u32; 2]) -> String {
    let sm = sm_target(cc);
    let own = ptx
        .lines()
        .find_map(|l| l.trim_start().strip_prefix(".target"))
        .and_then(|rest| rest.split([',', ' ', '\t', '\r']).find(|w| !w.is_empty()))
        .unwrap_or("");
    if own.len() > sm.len() && own.starts_with(&sm) && sm_number(own) == sm_number(&sm) {
        own.to_string()
    } else {
        sm
    }
}

/// Fills each launch's registers and spills from ptxas for compute capability `cc` unless the
/// manifest gives them (the module compiled once: every launch's entry is in it). The result is
/// [`Resolution::Manifest`] when the manifest gives every launch's, else what happened to the
/// launches it does not.
pub fn resolve(w: &mut Workload, cc: [u32; 2], tc: &Toolchain) -> Resolution {
    let target = target_for(&w.ptx, cc);
    let tool = tc.ptxas_for(&target);
    let report = tool.map(|t| ptxas::compile(t, &w.ptx, &target, w.manifest.maxrregcount));
    let hint = wheel_hint(cc).map_or("no PyPI ptxas targets this generation".to_string(), |h| format!("for ptxas's figures: {h}"));
    let estimate = |why: String| Resolution::Estimate(format!("registers estimated from the PTX ({why}); {hint}"));
    let mut resolution = Resolution::Manifest;
    for (spec, l) in w.manifest.launches.iter().zip(&mut w.launches) {
        let entry = report.as_ref().and_then(|r| r.as_ref().ok()).and_then(|r| r.entry(&spec.entry));
        if let (RegsSource::Manifest, Some(regs)) = (&l.regs_source, l.regs_per_thread) {
            // The manifest's registers stand; ptxas, where present, still says what spill code
            // the same build has (when its register count agrees, it is the same build).
            if let Some(e) = entry.filter(|e| e.registers == regs) {
                l.spills = e.spills();
            }
            continue;
        }
        if tc.disabled {
            return estimate("WARPSIM_CUDA=none".into());
        }
        let report = match &report {
            None => {
                let found: Vec<String> = tc.of(crate::ToolKind::Ptxas).map(|t| t.label()).collect();
                let why = if found.is_empty() { "no ptxas found".to_string() } else { format!("no ptxas for {target}: found {}", found.join(", ")) };
                return estimate(why);
            }
            Some(Err(e)) => return estimate(e.to_string()),
            Some(Ok(r)) => r,
        };
        let Some(e) = entry else {
            return estimate(format!("{} reported no entry `{}`", report.tool, spec.entry));
        };
        let retarget = report.retargeted_from.as_ref().map_or(String::new(), |from| format!(", retargeted from {from}"));
        l.regs_per_thread = Some(e.registers);
        l.regs_source = RegsSource::Compiler(format!("{}, {target}{retarget}", report.tool));
        l.spills = e.spills();
        resolution = Resolution::Compiler;
    }
    resolution
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arch_specific_targets_are_kept() {
        assert_eq!(target_for(".version 9.0\n.target sm_90a\n", [9, 0]), "sm_90a");
        assert_eq!(target_for(".target sm_90\n", [9, 0]), "sm_90");
        assert_eq!(target_for(".target sm_90a\n", [8, 0]), "sm_80");
        assert_eq!(target_for(".target sm_80, debug\n", [9, 0]), "sm_90");
    }

    #[test]
    fn without_tools_the_estimate_is_named() {
        let mut w = Workload::bundled("vector_add").unwrap();
        assert_eq!(resolve(&mut w, [9, 0], &Toolchain::none()), Resolution::Manifest);
        w.launches[0].regs_per_thread = None;
        w.launches[0].regs_source = RegsSource::Estimate;
        match resolve(&mut w, [9, 0], &Toolchain::none()) {
            Resolution::Estimate(line) => assert!(line.contains("WARPSIM_CUDA=none") && line.contains(crate::discover::INSTALL_HINT), "{line}"),
            r => panic!("{r:?}"),
        }
        assert_eq!(w.launch().regs_per_thread, None);
    }
}
