//! A workload on the simulator: the PTX lowered, buffers allocated and filled with the
//! workload's generated inputs, each launch's parameters packed by its program's parameter
//! layout, the launch sequence run (functionally or in time) on the one device memory, outputs
//! read back and checked against the reference.
//!
//! A sequence is what `warpsim exec` runs for a program (`crate::Gpu::kernel_sharing`, the
//! module's variables placed once): launch after launch, each `repeat` times, a `swap` exchanging
//! two buffers' addresses after each repetition; a single-launch workload is a sequence of one.
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
use crate::kernel::{Kernel, LaunchDims, Placed};
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

/// One launch of a workload's sequence, ready to run.
pub struct PreparedLaunch {
    pub prog: Arc<Program>,
    pub dims: LaunchDims,
    /// The manifest's arguments, packed at each run against the buffers' addresses then.
    pub args: Vec<Arg>,
    /// Registers per thread the SM allocates ([`allocated_registers`]).
    pub regs_per_thread: u32,
    pub spills: warpsim_workloads::Spills,
}

/// A workload placed in a fresh device.
pub struct Prepared {
    pub gpu: Gpu,
    /// One per launch of the sequence, in manifest order.
    pub launches: Vec<PreparedLaunch>,
    /// (name, device address, bytes) of every buffer, in manifest order. A launch's `swap`
    /// exchanges two addresses here after each repetition, so a name always gives the memory it
    /// refers to now (after a run: at the end of the sequence).
    pub buffers: Vec<(String, u64, u64)>,
    /// The module's variables, placed once for all its launches.
    placed: Placed,
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

/// The registers per thread each launch of `w` will be given ([`allocated_registers`]), lowering
/// the PTX only when a launch carries no figure.
pub fn registers_of(w: &Workload) -> Result<Vec<u32>, RunError> {
    let mut progs = None;
    let mut regs = Vec::with_capacity(w.launches.len());
    for (i, l) in w.launches.iter().enumerate() {
        regs.push(allocate(l, || {
            if progs.is_none() {
                progs = Some(entry_programs(w)?);
            }
            Ok::<_, RunError>(warpsim_isa::liveness::estimate_registers(&progs.as_ref().expect("lowered above")[i]))
        })?);
    }
    Ok(regs)
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

/// The kernel of each launch of the workload, lowered (the module once).
pub fn entry_programs(w: &Workload) -> Result<Vec<Program>, RunError> {
    let file = w.ptx_path.display().to_string();
    let progs = warpsim_isa::load(&w.ptx, &file)?;
    w.manifest
        .launches
        .iter()
        .map(|l| {
            progs.iter().find(|p| p.name == l.entry).cloned().ok_or_else(|| RunError::NoEntry {
                file: file.clone(),
                entry: l.entry.clone(),
                available: progs.iter().map(|p| p.name.as_str()).collect::<Vec<_>>().join(", "),
            })
        })
        .collect()
}

/// Lowers the workload's kernels and lays out its device memory on `gpu`.
pub fn prepare(w: &Workload, gpu: Gpu) -> Result<Prepared, RunError> {
    prepare_with(w, gpu, entry_programs(w)?)
}

/// [`prepare`] with the programs given, one per launch: the kernels lowered some other way (from
/// the SASS ptxas made of them, `warpsim-sass`), whose parameter symbols say where each argument
/// goes.
pub fn prepare_with(w: &Workload, mut gpu: Gpu, progs: Vec<Program>) -> Result<Prepared, RunError> {
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
    if progs.len() != w.launches.len() {
        return Err(bad(format!("{} programs for {} launches", progs.len(), w.launches.len())));
    }
    let mut launches = Vec::with_capacity(progs.len());
    for ((spec, l), prog) in w.sequence().zip(progs) {
        if spec.args.len() != prog.params.len() {
            return Err(bad(format!("`{}`: {} arguments for {} kernel parameters", spec.entry, spec.args.len(), prog.params.len())));
        }
        let dims = LaunchDims { grid: l.grid, block: l.block, cluster: l.cluster, dynamic_smem: l.dynamic_smem };
        let regs_per_thread = allocated_registers(l, &prog);
        // A machine-code program's spill code is in its instructions: the compiler's figures add nothing.
        let spills = if prog.is_machine_code() { warpsim_workloads::Spills::default() } else { l.spills };
        launches.push(PreparedLaunch { prog: Arc::new(prog), dims, args: spec.args.clone(), regs_per_thread, spills });
    }
    let p = Prepared { gpu, launches, buffers, placed: Placed::new() };
    // Arguments that cannot be packed fail here, before anything runs.
    (0..p.launches.len()).try_for_each(|i| p.params(i).map(drop).map_err(bad))?;
    Ok(p)
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
    /// Buffer `i`'s contents now (manifest order), `None` past the last.
    pub fn read_buffer(&self, i: usize) -> Option<Vec<u8>> {
        self.buffers.get(i).map(|(_, a, b)| self.gpu.download(*a, *b))
    }

    /// Launch `i`'s parameter bytes, packed by its program's parameter layout against the
    /// buffers' addresses now.
    pub fn params(&self, i: usize) -> Result<Vec<u8>, String> {
        let l = &self.launches[i];
        let prog = &l.prog;
        let mut params = vec![0u8; prog.param_bytes as usize];
        for (a, (arg, &sym)) in l.args.iter().zip(&prog.params).enumerate() {
            let s = &prog.symbols[sym as usize];
            let (off, size) = (s.offset as usize, s.size as usize);
            let slot = &mut params[off..off + size];
            match arg {
                Arg::Buffer { index } => {
                    let addr = self.buffers.get(*index).map(|b| b.1).ok_or_else(|| format!("argument {a} names buffer {index}"))?;
                    let n = size.min(8);
                    slot[..n].copy_from_slice(&addr.to_le_bytes()[..n]);
                }
                Arg::Scalar { bits, .. } => {
                    let n = size.min(8);
                    slot[..n].copy_from_slice(&bits.to_le_bytes()[..n]);
                }
                Arg::TensorMap(t) => {
                    let base = self.buffers.get(t.buffer).map(|b| b.1).ok_or_else(|| format!("argument {a}: tensor map names buffer {}", t.buffer))?;
                    let bytes = encode_tensor_map(t, base).map_err(|e| format!("argument {a}: {e}"))?;
                    if size < 128 {
                        return Err(format!("argument {a}: a tensor map needs a 128-byte parameter, the kernel's has {size}"));
                    }
                    slot[..128].copy_from_slice(&bytes);
                }
            }
        }
        Ok(params)
    }

    /// Launch `i`'s kernel, its module's variables shared with the other launches.
    pub fn kernel(&mut self, i: usize) -> Result<Kernel, RunError> {
        let params = self.params(i).map_err(|message| RunError::Args { workload: self.launches[i].prog.name.clone(), message })?;
        let l = &self.launches[i];
        Ok(self.gpu.kernel_sharing(Arc::clone(&l.prog), l.dims, params, &mut self.placed)?)
    }

    /// Runs the sequence ([`warpsim_workloads::Manifest::schedule`]): before each kernel the
    /// buffers' addresses are those its names refer to then, and after the last they stay so;
    /// `each` runs one kernel (the launch, its kernel) on the device memory.
    fn run_sequence<T>(
        &mut self,
        w: &Workload,
        mut each: impl FnMut(&mut crate::memory::DeviceMemory, &PreparedLaunch, Kernel) -> Result<T, RunError>,
    ) -> Result<Vec<(usize, T)>, RunError> {
        let (runs, last) = w.manifest.schedule();
        let base: Vec<u64> = self.buffers.iter().map(|b| b.1).collect();
        let point = |buffers: &mut [(String, u64, u64)], map: &[usize]| buffers.iter_mut().zip(map).for_each(|(b, &j)| b.1 = base[j]);
        let mut out = Vec::with_capacity(runs.len());
        for (i, map) in &runs {
            point(&mut self.buffers, map);
            let k = self.kernel(*i)?;
            out.push((*i, each(&mut self.gpu.mem, &self.launches[*i], k)?));
        }
        point(&mut self.buffers, &last);
        Ok(out)
    }
}

/// How a run went.
pub struct Outcome {
    /// The output buffers' final contents, by name, in manifest order.
    pub outputs: Vec<(String, Vec<u8>)>,
    /// The device after the run (every buffer's contents: [`Outcome::write_buffer`]).
    pub device: Prepared,
    pub check: CheckReport,
    /// The whole sequence's, summed over its launches ([`FunctionalStats::executed`] over the
    /// launches of the first launch's kernel: instruction indices are a program's own).
    pub functional: Option<FunctionalStats>,
    /// The whole sequence's ([`TimingResult::sequence`]): cycles and counters summed over its
    /// launches, ratios recomputed from the sums.
    pub timing: Option<TimingResult>,
    /// One per kernel launch run, in order (repetitions included): the launch's index in the
    /// manifest and its own timing. Empty for functional runs.
    pub launches: Vec<(usize, TimingResult)>,
    /// The most registers per thread any launch allocates (a single launch's own).
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
    functional_outcome(w, prepare(w, Gpu::new(nsm))?, None, &Limits::default(), t)
}

/// [`run_functional`] of the workload's kernels as `progs` (see [`prepare_with`]).
pub fn run_functional_with(w: &Workload, nsm: u32, progs: Vec<Program>) -> Result<Outcome, RunError> {
    let t = Instant::now();
    functional_outcome(w, prepare_with(w, Gpu::new(nsm), progs)?, None, &Limits::default(), t)
}

/// Runs the workload functionally on a GPU of `cfg`'s shape (its SM count, and its launch
/// limits: threads, registers and shared memory per block, as a timed run checks them) under
/// `limits` (the clock is warp instructions).
pub fn run_functional_within(w: &Workload, cfg: &ArchConfig, limits: &Limits) -> Result<Outcome, RunError> {
    let t = Instant::now();
    functional_outcome(w, prepare(w, Gpu::of(cfg))?, Some(cfg), limits, t)
}

/// [`run_functional_within`] of the workload's kernels as `progs` (see [`prepare_with`]).
pub fn run_functional_program(w: &Workload, cfg: &ArchConfig, limits: &Limits, progs: Vec<Program>) -> Result<Outcome, RunError> {
    let t = Instant::now();
    functional_outcome(w, prepare_with(w, Gpu::of(cfg), progs)?, Some(cfg), limits, t)
}

/// Runs the sequence functionally; with `cfg`, each launch is first held to its launch limits.
fn functional_outcome(w: &Workload, mut p: Prepared, cfg: Option<&ArchConfig>, limits: &Limits, t: Instant) -> Result<Outcome, RunError> {
    let runs = p.run_sequence(w, |mem, l, k| {
        if let Some(cfg) = cfg {
            crate::occupancy::occupancy(cfg, k.dims.threads_per_cta(), l.regs_per_thread, k.smem_bytes)
                .map_err(|m| Fault::global(&k.prog.name, crate::FaultKind::BadLaunch(m)))?;
        }
        Ok(functional::run(&k, mem, limits)?)
    })?;
    let mut stats = FunctionalStats::default();
    for (i, s) in runs {
        stats.warp_instructions += s.warp_instructions;
        stats.ctas += s.ctas;
        stats.warps += s.warps;
        if p.launches[i].prog.name == p.launches[0].prog.name {
            stats.executed.resize(s.executed.len().max(stats.executed.len()), 0);
            stats.executed.iter_mut().zip(&s.executed).for_each(|(a, b)| *a += b);
        }
    }
    let (outputs, check) = finish(w, &p);
    let regs_per_thread = max_registers(&p);
    Ok(Outcome { outputs, check, functional: Some(stats), timing: None, launches: Vec::new(), regs_per_thread, seconds: t.elapsed().as_secs_f64(), device: p })
}

fn max_registers(p: &Prepared) -> u32 {
    p.launches.iter().map(|l| l.regs_per_thread).max().unwrap_or(0)
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

/// [`run_timed_within`] of the workload's kernels as `progs` (see [`prepare_with`]).
pub fn run_timed_with(w: &Workload, cfg: &ArchConfig, threads: usize, limits: &Limits, progs: Vec<Program>) -> Result<Outcome, RunError> {
    let t = Instant::now();
    timed(w, cfg, threads, limits, prepare_with(w, Gpu::of(cfg), progs)?, t)
}

/// Runs the sequence in time: each launch as a single launch is timed (launch overhead
/// included), one after another on the same device memory; `limits` hold for each launch.
fn timed(w: &Workload, cfg: &ArchConfig, threads: usize, limits: &Limits, mut p: Prepared, t: Instant) -> Result<Outcome, RunError> {
    for l in &p.launches {
        crate::features::check(&l.prog, cfg).map_err(RunError::Feature)?;
    }
    let cfg = Arc::new(cfg.clone());
    let launches = p.run_sequence(w, |mem, l, k| {
        let opts = RunOptions { threads, regs_per_thread: l.regs_per_thread, spills: l.spills, limits: *limits };
        Ok(engine::run(Arc::clone(&cfg), Arc::new(k), mem, &opts)?)
    })?;
    let total = TimingResult::sequence(launches.iter().map(|(_, r)| r));
    let (outputs, check) = finish(w, &p);
    let regs_per_thread = max_registers(&p);
    Ok(Outcome { outputs, check, functional: None, timing: Some(total), launches, regs_per_thread, seconds: t.elapsed().as_secs_f64(), device: p })
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
/// `code` gives the programs to simulate a workload with, one per launch (`None`: its PTX): the
/// binary's `--isa`.
pub fn bench(names: &[&str], cfg: &ArchConfig, threads: usize, code: &dyn Fn(&mut Workload) -> Option<Vec<Program>>) -> Result<Vec<BenchRow>, RunError> {
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
