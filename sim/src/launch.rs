//! A workload on the simulator: the PTX lowered, buffers allocated and filled with the
//! workload's generated inputs, kernel parameters packed by the program's parameter layout, the
//! kernel run (functionally or in time), outputs read back and checked against the reference.
//!
//! Host memory stays near one copy of the inputs plus what the kernel writes: dense inputs are
//! lent to the device memory ([`crate::memory::DeviceMemory::back`]) rather than copied, only
//! output buffers are read back, and the device stays in the [`Outcome`] for whoever wants the
//! other buffers ([`Outcome::write_buffer`], which streams them).

use std::sync::Arc;
use std::time::Instant;

use warpsim_isa::program::Program;
use warpsim_workloads::{Arg, CheckReport, Workload};

use crate::config::ArchConfig;
use crate::engine::{self, RunOptions, TimingResult};
use crate::fault::Fault;
use crate::functional::{self, FunctionalStats};
use crate::gpu::Gpu;
use crate::kernel::{Kernel, LaunchDims};
use crate::watchdog::Limits;

/// Why a workload could not run.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error(transparent)]
    Ptx(#[from] warpsim_isa::PtxError),
    #[error("{file}: no kernel entry `{entry}` (entries: {available})")]
    NoEntry { file: String, entry: String, available: String },
    #[error("workload `{workload}`: {message}")]
    Args { workload: String, message: String },
    #[error("{0}")]
    Fault(Box<Fault>),
    #[error("{0}")]
    Feature(String),
}

impl From<Fault> for RunError {
    fn from(f: Fault) -> Self {
        RunError::Fault(Box::new(f))
    }
}

/// A workload placed in a fresh device.
pub struct Prepared {
    pub gpu: Gpu,
    pub prog: Arc<Program>,
    pub dims: LaunchDims,
    pub params: Vec<u8>,
    /// (name, device address, bytes) of every buffer, in manifest order.
    pub buffers: Vec<(String, u64, u64)>,
    /// Registers per thread the SM allocates ([`allocated_registers`]).
    pub regs_per_thread: u32,
}

/// Registers per thread the SM allocates for the launch: the figure the launch carries (the
/// manifest's, or ptxas's once `warpsim-toolchain` has asked it), else the register-liveness
/// estimate from the PTX under the kernel's limits; then the hardware's floor
/// ([`crate::occupancy::MIN_REGS_PER_THREAD`]).
///
/// The estimate is also held to what lets one CTA of the launch fit in a 64K register file (in
/// 8-register steps): the kernel the user launches does fit on the GPU (ptxas keeps it there,
/// spilling if it must), and a guess must not turn a working launch into a refused one.
pub fn allocated_registers(l: &warpsim_workloads::Launch, prog: &Program) -> u32 {
    let Ok(regs) = allocate(l, || Ok::<_, std::convert::Infallible>(warpsim_isa::liveness::estimate_registers(prog)));
    regs
}

/// The registers per thread a run of `w` will be given ([`allocated_registers`]), lowering the
/// PTX only when the launch carries no figure.
pub fn registers_of(w: &Workload) -> Result<u32, RunError> {
    allocate(&w.launch, || Ok(warpsim_isa::liveness::estimate_registers(&entry_program(w)?)))
}

/// [`allocated_registers`]'s rule, with the estimate asked for only when the launch has no figure.
fn allocate<E>(l: &warpsim_workloads::Launch, estimate: impl FnOnce() -> Result<u32, E>) -> Result<u32, E> {
    let regs = match l.regs_per_thread {
        Some(r) => r,
        None => {
            let fit = (65536 / (l.threads_per_block().div_ceil(32).max(1) as u32 * 32) / 8 * 8).min(255);
            let est = estimate()?;
            l.maxrregcount.map_or(est, |m| est.min(m)).min(fit)
        }
    };
    Ok(regs.max(crate::occupancy::MIN_REGS_PER_THREAD))
}

/// The sizes a manifest's `${...}` expressions read on `cfg`: the L1 a kernel without shared
/// memory gets (the fixed L1, or the unified array less its smallest carve-out; 0 where global
/// loads skip the L1), the L2 and its partitions, the SMs and a row of shared-memory banks.
pub fn target(cfg: &ArchConfig) -> warpsim_workloads::Target {
    let sm = &cfg.sm;
    let least_carve = sm.smem_carveouts_kib.iter().copied().min().unwrap_or(sm.smem_kib);
    let l1_kib = if !cfg.features.l1_caches_global {
        0
    } else if cfg.l1.fixed_kib > 0 {
        cfg.l1.fixed_kib
    } else {
        sm.unified_l1_kib.saturating_sub(least_carve)
    };
    warpsim_workloads::Target {
        l1: l1_kib as u64 * 1024,
        l2: cfg.l2.size_kib as u64 * 1024,
        l2_partitions: cfg.l2.partitions.max(1) as u64,
        sms: sm.count as u64,
        smem_row: cfg.smem.banks as u64 * cfg.smem.bank_bytes as u64,
    }
}

/// Loads a manifest from disk, its sizes expanded for `cfg` ([`target`]), with the PTX front end
/// as its [`warpsim_workloads::PtxCheck`] (see [`load_manifest`]).
pub fn load_manifest_for(path: &std::path::Path, cfg: &ArchConfig) -> Result<Workload, warpsim_workloads::LoadError> {
    Workload::load_for(path, &ptx_check, &target(cfg))
}

/// Loads a manifest from disk with the PTX front end as its [`warpsim_workloads::PtxCheck`]:
/// when the manifest's entry or `[[arg]]`s disagree with a PTX that does not parse or lower, the
/// PTX's own error (its file:line:column) is reported, not the disagreement it causes.
pub fn load_manifest(path: &std::path::Path) -> Result<Workload, warpsim_workloads::LoadError> {
    Workload::load_checked(path, &ptx_check)
}

/// The PTX front end as a manifest's [`warpsim_workloads::PtxCheck`].
fn ptx_check(text: &str, file: &str) -> Result<(), String> {
    warpsim_isa::load(text, file).map(|_| ()).map_err(|e| e.to_string())
}

/// The workload's kernel, lowered.
fn entry_program(w: &Workload) -> Result<Program, RunError> {
    let file = w.ptx_path.display().to_string();
    let progs = warpsim_isa::load(&w.ptx, &file)?;
    let names: Vec<String> = progs.iter().map(|p| p.name.clone()).collect();
    progs.into_iter().find(|p| p.name == w.manifest.entry).ok_or_else(|| RunError::NoEntry {
        file,
        entry: w.manifest.entry.clone(),
        available: names.join(", "),
    })
}

/// Lowers the workload's kernel and lays out its device memory and parameters on `gpu`.
pub fn prepare(w: &Workload, gpu: Gpu) -> Result<Prepared, RunError> {
    prepare_with(w, gpu, entry_program(w)?)
}

/// [`prepare`] with the program given: the workload's kernel lowered some other way (from the
/// SASS ptxas made of it, `warpsim-sass`), whose parameter symbols say where each argument goes.
pub fn prepare_with(w: &Workload, mut gpu: Gpu, prog: Program) -> Result<Prepared, RunError> {
    let mut buffers = Vec::new();
    for (spec, data) in w.manifest.buffers.iter().zip(&w.inputs) {
        let addr = gpu.mem.alloc(&spec.name, spec.bytes(), 256);
        match data.dense() {
            Some(bytes) => gpu.mem.back(addr, Arc::clone(bytes)),
            None => data.chunks().for_each(|(off, bytes)| gpu.mem.write(addr + off, bytes)),
        }
        buffers.push((spec.name.clone(), addr, spec.bytes()));
    }
    let bad = |message: String| RunError::Args { workload: w.manifest.name.clone(), message };
    if w.manifest.args.len() != prog.params.len() {
        return Err(bad(format!("{} arguments for {} kernel parameters", w.manifest.args.len(), prog.params.len())));
    }
    let mut params = vec![0u8; prog.param_bytes as usize];
    for (i, (arg, &sym)) in w.manifest.args.iter().zip(&prog.params).enumerate() {
        let s = &prog.symbols[sym as usize];
        let (off, size) = (s.offset as usize, s.size as usize);
        let slot = &mut params[off..off + size];
        match arg {
            Arg::Buffer { index } => {
                let addr = buffers.get(*index).map(|b| b.1).ok_or_else(|| bad(format!("argument {i} names buffer {index}")))?;
                let n = size.min(8);
                slot[..n].copy_from_slice(&addr.to_le_bytes()[..n]);
            }
            Arg::Scalar { bits, .. } => {
                let n = size.min(8);
                slot[..n].copy_from_slice(&bits.to_le_bytes()[..n]);
            }
            Arg::TensorMap(t) => {
                let base = buffers.get(t.buffer).map(|b| b.1).ok_or_else(|| bad(format!("argument {i}: tensor map names buffer {}", t.buffer)))?;
                let bytes = encode_tensor_map(t, base).map_err(|e| bad(format!("argument {i}: {e}")))?;
                if size < 128 {
                    return Err(bad(format!("argument {i}: a tensor map needs a 128-byte parameter, the kernel's has {size}")));
                }
                slot[..128].copy_from_slice(&bytes);
            }
        }
    }
    let l = &w.launch;
    let dims = LaunchDims { grid: l.grid, block: l.block, cluster: l.cluster, dynamic_smem: l.dynamic_smem };
    let regs_per_thread = allocated_registers(l, &prog);
    Ok(Prepared { gpu, prog: Arc::new(prog), dims, params, buffers, regs_per_thread })
}

/// The simulator's 128-byte encoding of a manifest's tensor map over a buffer at `base`.
pub fn encode_tensor_map(t: &warpsim_workloads::TensorMap, base: u64) -> Result<[u8; 128], String> {
    use crate::tma::Swizzle;
    use warpsim_workloads::{Interleave, OobFill, Swizzle as S};
    if t.interleave != Interleave::None {
        return Err("interleaved tensor maps are not modelled".into());
    }
    let mut dims = [1u64; 5];
    let mut strides = [0u64; 4];
    let mut box_dims = [1u32; 5];
    let mut elem_strides = [1u32; 5];
    for (i, d) in t.dims.iter().take(5).enumerate() {
        dims[i] = *d;
    }
    for (i, s) in t.strides.iter().take(4).enumerate() {
        strides[i] = *s;
    }
    for (i, b) in t.box_dims.iter().take(5).enumerate() {
        box_dims[i] = *b;
    }
    for (i, e) in t.elem_strides.iter().take(5).enumerate() {
        elem_strides[i] = *e;
    }
    let map = crate::tma::TensorMap {
        base,
        elem_bytes: t.dtype.size() as u32,
        rank: t.dims.len() as u32,
        dims,
        strides,
        box_dims,
        elem_strides,
        swizzle: match t.swizzle {
            S::None => Swizzle::None,
            S::B32 => Swizzle::B32,
            S::B64 => Swizzle::B64,
            S::B128 => Swizzle::B128,
        },
        oob_nan: t.oob_fill == OobFill::Nan,
    };
    map.validate().map_err(|e| e.to_string())?;
    Ok(map.encode())
}

impl Prepared {
    /// Buffer `i`'s contents (manifest order), `None` past the last.
    pub fn read_buffer(&self, i: usize) -> Option<Vec<u8>> {
        self.buffers.get(i).map(|(_, a, b)| self.gpu.download(*a, *b))
    }

    pub fn kernel(&mut self) -> Result<Kernel, Fault> {
        self.gpu.kernel(Arc::clone(&self.prog), self.dims, self.params.clone())
    }
}

/// How a run went.
pub struct Outcome {
    /// The output buffers' final contents, by name, in manifest order.
    pub outputs: Vec<(String, Vec<u8>)>,
    /// The device after the run (every buffer's contents: [`Outcome::write_buffer`]).
    pub device: Prepared,
    pub check: CheckReport,
    pub functional: Option<FunctionalStats>,
    pub timing: Option<TimingResult>,
    pub regs_per_thread: u32,
    pub seconds: f64,
}

impl Outcome {
    /// Writes buffer `i`'s final contents (manifest order; nothing past the last) to `out`, a
    /// megabyte at a time.
    pub fn write_buffer(&self, i: usize, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        let Some(&(_, addr, len)) = self.device.buffers.get(i) else { return Ok(()) };
        let mut chunk = vec![0u8; (len as usize).min(1 << 20)];
        let mut done = 0;
        while done < len {
            let n = (len - done).min(chunk.len() as u64) as usize;
            self.device.gpu.mem.read(addr + done, &mut chunk[..n]);
            out.write_all(&chunk[..n])?;
            done += n as u64;
        }
        Ok(())
    }
}

/// The output buffers read back, and the check of them against the reference.
fn finish(w: &Workload, p: &Prepared) -> (Vec<(String, Vec<u8>)>, CheckReport) {
    let outputs: Vec<(String, Vec<u8>)> = w
        .manifest
        .buffers
        .iter()
        .enumerate()
        .filter(|(_, spec)| spec.output)
        .filter_map(|(i, spec)| Some((spec.name.clone(), p.read_buffer(i)?)))
        .collect();
    let check = w.check(&w.inputs, outputs.iter().map(|(n, b)| (n.as_str(), b.as_slice())));
    (outputs, check)
}

/// Runs the workload functionally (no timing), under the watchdog's default limits.
pub fn run_functional(w: &Workload, nsm: u32) -> Result<Outcome, RunError> {
    let t = Instant::now();
    let mut p = prepare(w, Gpu::new(nsm))?;
    let k = p.kernel()?;
    functional_outcome(w, p, k, &Limits::default(), t)
}

/// [`run_functional`] of the workload's kernel as `prog` (see [`prepare_with`]).
pub fn run_functional_with(w: &Workload, nsm: u32, prog: Program) -> Result<Outcome, RunError> {
    let t = Instant::now();
    let mut p = prepare_with(w, Gpu::new(nsm), prog)?;
    let k = p.kernel()?;
    functional_outcome(w, p, k, &Limits::default(), t)
}

/// Runs the workload functionally on a GPU of `cfg`'s shape (its SM count, and its launch
/// limits: threads, registers and shared memory per block, as a timed run checks them) under
/// `limits` (the clock is warp instructions).
pub fn run_functional_within(w: &Workload, cfg: &ArchConfig, limits: &Limits) -> Result<Outcome, RunError> {
    let t = Instant::now();
    let mut p = prepare(w, Gpu::of(cfg))?;
    let k = p.kernel()?;
    crate::occupancy::occupancy(cfg, k.dims.threads_per_cta(), p.regs_per_thread, k.smem_bytes)
        .map_err(|m| Fault::global(&k.prog.name, crate::FaultKind::BadLaunch(m)))?;
    functional_outcome(w, p, k, limits, t)
}

fn functional_outcome(w: &Workload, mut p: Prepared, k: Kernel, limits: &Limits, t: Instant) -> Result<Outcome, RunError> {
    let stats = functional::run(&k, &mut p.gpu.mem, limits)?;
    let (outputs, check) = finish(w, &p);
    Ok(Outcome { outputs, check, functional: Some(stats), timing: None, regs_per_thread: p.regs_per_thread, seconds: t.elapsed().as_secs_f64(), device: p })
}

/// [`run_functional_within`] of the workload's kernel as `prog` (see [`prepare_with`]).
pub fn run_functional_program(w: &Workload, cfg: &ArchConfig, limits: &Limits, prog: Program) -> Result<Outcome, RunError> {
    let t = Instant::now();
    let mut p = prepare_with(w, Gpu::of(cfg), prog)?;
    let k = p.kernel()?;
    crate::occupancy::occupancy(cfg, k.dims.threads_per_cta(), p.regs_per_thread, k.smem_bytes)
        .map_err(|m| Fault::global(&k.prog.name, crate::FaultKind::BadLaunch(m)))?;
    functional_outcome(w, p, k, limits, t)
}

/// Runs the workload in time on `cfg`, under the watchdog's default limits.
pub fn run_timed(w: &Workload, cfg: &ArchConfig, threads: usize) -> Result<Outcome, RunError> {
    run_timed_within(w, cfg, threads, &Limits::default())
}

/// Runs the workload in time on `cfg` under `limits`.
pub fn run_timed_within(w: &Workload, cfg: &ArchConfig, threads: usize, limits: &Limits) -> Result<Outcome, RunError> {
    let t = Instant::now();
    timed(w, cfg, threads, limits, prepare(w, Gpu::of(cfg))?, t)
}

/// [`run_timed_within`] of the workload's kernel as `prog` (see [`prepare_with`]). A machine-code
/// program's spill code is in its instructions, so the compiler's spill figures add nothing.
pub fn run_timed_with(w: &Workload, cfg: &ArchConfig, threads: usize, limits: &Limits, prog: Program) -> Result<Outcome, RunError> {
    let t = Instant::now();
    timed(w, cfg, threads, limits, prepare_with(w, Gpu::of(cfg), prog)?, t)
}

fn timed(w: &Workload, cfg: &ArchConfig, threads: usize, limits: &Limits, mut p: Prepared, t: Instant) -> Result<Outcome, RunError> {
    crate::features::check(&p.prog, cfg).map_err(RunError::Feature)?;
    let k = p.kernel()?;
    let spills = if p.prog.is_machine_code() { warpsim_workloads::Spills::default() } else { w.launch.spills };
    let opts = RunOptions { threads, regs_per_thread: p.regs_per_thread, spills, limits: *limits };
    let r = engine::run(Arc::new(cfg.clone()), Arc::new(k), &mut p.gpu.mem, &opts)?;
    let (outputs, check) = finish(w, &p);
    Ok(Outcome { outputs, check, functional: None, timing: Some(r), regs_per_thread: p.regs_per_thread, seconds: t.elapsed().as_secs_f64(), device: p })
}

/// One workload's simulation speed.
#[derive(Debug, Clone, serde::Serialize)]
pub struct BenchRow {
    pub workload: String,
    pub warp_instructions: u64,
    pub cycles: u64,
    pub seconds: f64,
}

/// Simulates each workload in time and measures simulation speed (warp instructions per second).
/// `code` gives the program to simulate a workload with (`None`: its PTX): the binary's `--isa`.
pub fn bench(names: &[&str], cfg: &ArchConfig, threads: usize, code: &dyn Fn(&mut Workload) -> Option<Program>) -> Result<Vec<BenchRow>, RunError> {
    let mut rows = Vec::new();
    for name in names {
        let mut w = Workload::bundled(name).map_err(|e| RunError::Args { workload: name.to_string(), message: e.to_string() })?;
        let o = match code(&mut w) {
            Some(p) => run_timed_with(&w, cfg, threads, &Limits::default(), p)?,
            None => run_timed(&w, cfg, threads)?,
        };
        let t = o.timing.as_ref().map_or((0, 0, 0.0), |t| (t.warp_instructions, t.cycles, t.sim_seconds));
        rows.push(BenchRow { workload: name.to_string(), warp_instructions: t.0, cycles: t.1, seconds: t.2 });
    }
    Ok(rows)
}

/// Peak resident memory of this process in bytes (Linux `VmHWM`), if known.
pub fn peak_rss() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}
