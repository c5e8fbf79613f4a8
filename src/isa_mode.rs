//! `--isa sass|ptx`: which code a run simulates, the one place `run`, `bench`, `sweep` and
//! `validate correlate` choose it. `ptx` lowers the workload's PTX; `sass` (the default) runs the
//! machine code ptxas makes of it (issue 12): functionally instruction by instruction, and in
//! time as ptxas scheduled it (the SM model issues by each instruction's control bits — stall
//! counts, scoreboard barriers, yield — and its opcode's pipe, `warpsim_sass::pipes`). The
//! listing comes from the toolchain (ptxas + nvdisasm) or, for a bundled workload without one,
//! the committed listing; a kernel that does not lower (an opcode not covered yet) runs as PTX,
//! with the reason in one line.

use warpsim_isa::program::Program;
use warpsim_workloads::Workload;

/// The code a run simulates.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Isa {
    Ptx,
    Sass,
}

impl Isa {
    pub fn name(self) -> &'static str {
        match self {
            Isa::Ptx => "ptx",
            Isa::Sass => "sass",
        }
    }
}

/// The programs to simulate `w` with under `isa` on a preset of compute capability `cc`, one per
/// launch: `None` for the workload's own PTX (`--isa ptx`, or a kernel SASS mode cannot run yet:
/// `note` gets `(true, the reason in one line)`; one such kernel runs the whole sequence as PTX),
/// else the lowered SASS (`note` gets `(false, where the listing came from)`), with ptxas's
/// register counts filled in where the workload gives none.
pub fn program_for(w: &mut Workload, cc: [u32; 2], isa: Isa, note: &mut dyn FnMut(bool, &str)) -> Option<Vec<Program>> {
    if isa == Isa::Ptx {
        return None;
    }
    match sass_programs(w, cc) {
        Ok(ks) => {
            let k = &ks[0];
            let insts: usize = ks.iter().map(|k| k.prog.insts.len()).sum();
            note(false, &format!("isa: sass ({} listing from {}; {insts} instructions)", k.target, k.source));
            for (l, k) in w.launches.iter_mut().zip(&ks) {
                if let (None, Some(r)) = (l.regs_per_thread, k.registers) {
                    l.regs_per_thread = Some(r);
                    l.regs_source = warpsim_workloads::RegsSource::Compiler(format!("{} SASS, {}", k.target, k.source));
                }
            }
            Some(ks.into_iter().map(|k| k.prog).collect())
        }
        Err(reason) => {
            note(true, &format!("note: {}: running PTX: {reason}", w.manifest.name));
            None
        }
    }
}

/// [`program_for`] without its notes, as `validate calibrate` and `correlate` take it (each row
/// says which code ran).
pub fn quiet(cc: [u32; 2], isa: Isa) -> impl Fn(&mut Workload) -> Option<Vec<Program>> + Sync {
    move |w| program_for(w, cc, isa, &mut |_, _| {})
}

/// A launch's kernel as SASS, lowered.
pub struct SassKernel {
    pub prog: Program,
    /// Where the listing came from (`ptxas 13.0.88 + nvdisasm 13.2.78`, a committed listing).
    pub source: String,
    pub target: String,
    /// ptxas's registers per thread (`EIATTR_REGCOUNT` or `SHI_REGISTERS`), when the listing
    /// gives them.
    pub registers: Option<u32>,
}

/// Each launch's kernel lowered from the SASS for compute capability `cc` (one listing for the
/// module), or why not (one line).
pub fn sass_programs(w: &Workload, cc: [u32; 2]) -> Result<Vec<SassKernel>, String> {
    use warpsim_toolchain::sass;
    let target = sass::target_for(cc, &w.ptx);
    let listing = sass::for_workload(warpsim_toolchain::Toolchain::from_env(), w, &target).map_err(|e| e.to_string())?;
    let module = warpsim_sass::parse(&listing.text).map_err(|e| format!("the {target} listing does not parse: {e}"))?;
    let file = w.ptx_path.display().to_string();
    let ptx = warpsim_isa::load(&w.ptx, &file).map_err(|e| e.to_string())?;
    w.manifest
        .launches
        .iter()
        .map(|l| {
            let entry = &l.entry;
            let ptx = ptx.iter().find(|p| p.name == *entry).ok_or_else(|| format!("no kernel `{entry}` in {file}"))?;
            let registers = module.kernel(entry).and_then(|k| k.registers);
            let prog = warpsim_sass::lower::lower(&module, entry, ptx).map_err(|e| e.to_string())?;
            Ok(SassKernel { prog, source: listing.source.clone(), target: target.clone(), registers })
        })
        .collect()
}
