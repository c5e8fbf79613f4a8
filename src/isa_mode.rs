//! `--isa sass|ptx`: which code a run simulates. `ptx` lowers the workload's PTX (the default in
//! this stage); `sass` runs the machine code ptxas makes of it (issue 12, stage 2: functional
//! SASS; the timing model issues each SASS instruction as one machine op with the PTX mode's
//! per-class latencies and pipes). The listing comes from the toolchain (ptxas + nvdisasm) or,
//! for a bundled workload without one, the committed listing; a kernel that does not lower
//! (an opcode not covered yet) runs as PTX, with the reason in one line.

use warpsim_isa::program::Program;
use warpsim_workloads::Workload;

/// The code a run simulates.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Isa {
    Ptx,
    Sass,
}

/// A workload's kernel as SASS, lowered.
pub struct SassKernel {
    pub prog: Program,
    /// Where the listing came from (`ptxas 13.0.88 + nvdisasm 13.2.78`, a committed listing).
    pub source: String,
    pub target: String,
    /// ptxas's registers per thread (`SHI_REGISTERS`), when the listing gives them.
    pub registers: Option<u32>,
}

/// The workload's kernel lowered from the SASS for compute capability `cc`, or why not (one line).
pub fn sass_program(w: &Workload, cc: [u32; 2]) -> Result<SassKernel, String> {
    use warpsim_toolchain::sass;
    let target = sass::target_for(cc, &w.ptx);
    let listing = sass::for_workload(warpsim_toolchain::Toolchain::from_env(), w, &target).map_err(|e| e.to_string())?;
    let module = warpsim_sass::parse(&listing.text).map_err(|e| format!("the {target} listing does not parse: {e}"))?;
    let file = w.ptx_path.display().to_string();
    let ptx = warpsim_isa::load(&w.ptx, &file).map_err(|e| e.to_string())?;
    let ptx = ptx.into_iter().find(|p| p.name == w.manifest.entry).ok_or_else(|| format!("no kernel `{}` in {file}", w.manifest.entry))?;
    let registers = module.kernel(&w.manifest.entry).and_then(|k| k.registers);
    let prog = warpsim_sass::lower::lower(&module, &w.manifest.entry, &ptx).map_err(|e| e.to_string())?;
    Ok(SassKernel { prog, source: listing.source, target, registers })
}
