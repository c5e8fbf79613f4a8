//! The runtime's state and the work behind each CUDA call, in safe Rust over plain values (the
//! C ABI and its raw pointers are `lib.rs`'s).
//!
//! One simulated device per process, shaped by the architecture configuration `warpsim exec`
//! hands over ([`crate::ENV_CONFIG`]; the H200 preset without it). Registered fatbinaries give
//! their PTX (lowered by `warpsim-isa`); registered host stubs and variables map to kernels and
//! device addresses by name. Device memory is the simulator's [`warpsim_sim::DeviceMemory`], kept
//! across launches, and a module's variables are placed once and shared by all its kernels
//! ([`warpsim_sim::kernel::load_symbols_into`]). Every launch runs at once, in the timing model
//! ([`warpsim_sim::engine::run`]), so work is complete when the call returns; streams and events
//! keep simulated time: one device timeline on which each kernel starts when the device is free
//! and its stream's earlier work is done, and takes `cycles / SM clock`. Copies and memsets take
//! no simulated time. Device `printf` output is written after each launch, through the C
//! library's `stdout` so that it interleaves with the program's own output in order.

use std::collections::HashMap;
use std::sync::Arc;

use warpsim_isa::program::{Program, SymKind};
use warpsim_sim::config::ArchConfig;
use warpsim_sim::engine::{self, RunOptions};
use warpsim_sim::kernel::{load_symbols_into, LaunchDims, Placed};
use warpsim_sim::watchdog::Limits;
use warpsim_sim::{FaultKind, Gpu};

use crate::error::{Error, Result};
use crate::error::code;
use crate::report::{LaunchRecord, Report};

/// What a fatbinary gives the simulator: its PTX, and the registers per thread ptxas allocated
/// each kernel in its cubin for the simulated compute capability (`cubin_arch`).
pub struct ModuleCode {
    pub ptx: String,
    pub registers: HashMap<String, u32>,
    pub cubin_arch: u32,
}

/// One registered fatbinary.
struct Module {
    /// Its kernels, lowered from the PTX; `Err`: why the PTX could not be used.
    programs: std::result::Result<Vec<Arc<Program>>, String>,
    /// ptxas's registers per thread by kernel (empty: the simulator estimates them).
    registers: HashMap<String, u32>,
    cubin_arch: u32,
    /// Its variables on the device.
    placed: Placed,
}

/// A registered host stub: which module's kernel it launches.
struct Function {
    module: usize,
    name: String,
}

/// A registered `__device__` / `__constant__` variable.
struct Var {
    name: String,
    size: u64,
    addr: u64,
}

/// A launch configuration pushed by `<<<...>>>`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CallConfig {
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub shared: u64,
    pub stream: usize,
}

/// Direction of a copy (`cudaMemcpyKind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    Host,
    Device,
}

/// The stream handle values that name the default stream (`0`, `cudaStreamLegacy`,
/// `cudaStreamPerThread`).
fn is_default_stream(s: usize) -> bool {
    s <= 2
}

pub struct Runtime {
    pub cfg: Arc<ArchConfig>,
    gpu: Gpu,
    modules: Vec<Module>,
    functions: HashMap<usize, Function>,
    vars: HashMap<usize, Var>,
    configs: Vec<CallConfig>,
    /// Simulated time (ns) at which each stream's work so far is done; the default stream is 0.
    streams: HashMap<usize, f64>,
    /// Each created stream's number in creation order, from 1 (the report's `stream`).
    stream_numbers: HashMap<usize, usize>,
    /// Recorded events: the simulated time (ns) they were reached, `None` before a record.
    events: HashMap<usize, Option<f64>>,
    next_handle: usize,
    /// When the device finishes the work issued so far (ns).
    device_ns: f64,
    pub last_error: i32,
    /// An error a failed launch left: every later call returns it, as CUDA's sticky errors do.
    pub sticky: Option<i32>,
    pub threads: usize,
    pub report: Report,
    mallocs: u64,
}

impl Runtime {
    pub fn new(cfg: ArchConfig, threads: usize, program: String) -> Runtime {
        let gpu = Gpu::of(&cfg);
        let report = Report { program, arch: cfg.name.clone(), launches: Vec::new() };
        Runtime {
            cfg: Arc::new(cfg),
            gpu,
            modules: Vec::new(),
            functions: HashMap::new(),
            vars: HashMap::new(),
            configs: Vec::new(),
            streams: HashMap::from([(0, 0.0)]),
            stream_numbers: HashMap::new(),
            events: HashMap::new(),
            // Handles are opaque to the program: small aligned values that are never null.
            next_handle: 0x1000,
            device_ns: 0.0,
            last_error: 0,
            sticky: None,
            threads,
            report,
            mallocs: 0,
        }
    }

    fn handle(&mut self) -> usize {
        self.next_handle += 16;
        self.next_handle
    }

    /// The compute capability as nvcc writes targets (sm_90 → 90).
    pub fn cc(&self) -> u32 {
        self.cfg.compute_capability[0] * 10 + self.cfg.compute_capability[1]
    }

    /// Registers a fatbinary's PTX (already extracted); returns the module's index. A PTX the
    /// simulator cannot lower is kept as the reason, reported when one of its kernels launches.
    pub fn register_module(&mut self, code: std::result::Result<ModuleCode, String>, origin: &str) -> usize {
        let (programs, registers, cubin_arch) = match code {
            Ok(c) => {
                let p = warpsim_isa::load(&c.ptx, origin).map(|ps| ps.into_iter().map(Arc::new).collect()).map_err(|e| e.to_string());
                (p, c.registers, c.cubin_arch)
            }
            Err(e) => (Err(e), HashMap::new(), 0),
        };
        if let Err(e) = &programs {
            eprintln!("warpsim: {origin}: its kernels cannot run: {e}");
        }
        self.modules.push(Module { programs, registers, cubin_arch, placed: Placed::new() });
        self.modules.len() - 1
    }

    /// How many fatbinaries are registered.
    pub fn modules(&self) -> usize {
        self.modules.len()
    }

    pub fn register_function(&mut self, module: usize, host: usize, name: String) {
        self.functions.insert(host, Function { module, name });
    }

    /// Places a module's variable on the device (with its initializer, as every kernel of the
    /// module will see it) and maps the host shadow to it.
    pub fn register_var(&mut self, module: usize, host: usize, name: String, size: u64) {
        let Some(m) = self.modules.get_mut(module) else { return };
        if !m.placed.contains_key(&name) {
            // The first kernel declaring it places all the module's variables it declares.
            let owner = m.programs.as_ref().ok().and_then(|ps| {
                ps.iter().find(|p| p.symbols.iter().any(|s| s.name == name && matches!(s.kind, SymKind::Global | SymKind::Const)))
            });
            match owner {
                Some(p) => {
                    load_symbols_into(p, &mut self.gpu.mem, &mut m.placed);
                }
                None => {
                    let a = self.gpu.mem.alloc(&name, size, 256);
                    m.placed.insert(name.clone(), a);
                }
            }
        }
        let addr = m.placed[&name];
        self.vars.insert(host, Var { name, size, addr });
    }

    pub fn push_config(&mut self, c: CallConfig) {
        self.configs.push(c);
    }

    pub fn pop_config(&mut self) -> Result<CallConfig> {
        self.configs.pop().ok_or_else(|| Error::new(code::INVALID_CONFIGURATION, "no launch configuration was pushed"))
    }

    fn check_stream(&self, s: usize) -> Result<()> {
        if is_default_stream(s) || self.streams.contains_key(&s) {
            Ok(())
        } else {
            Err(Error::new(code::INVALID_RESOURCE_HANDLE, format!("{s:#x} is not a stream")))
        }
    }

    fn function(&self, host: usize) -> Result<(&Function, Arc<Program>)> {
        let f = self.functions.get(&host).ok_or_else(|| Error::new(code::INVALID_DEVICE_FUNCTION, format!("{host:#x} is not a registered kernel")))?;
        let progs = self.modules[f.module].programs.as_ref().map_err(|e| Error::new(code::INVALID_KERNEL_IMAGE, format!("kernel `{}`: {e}", f.name)))?;
        let p = progs
            .iter()
            .find(|p| p.name == f.name)
            .ok_or_else(|| Error::new(code::INVALID_DEVICE_FUNCTION, format!("kernel `{}` is not in the module's PTX", f.name)))?;
        Ok((f, Arc::clone(p)))
    }

    /// Whether `host` names a registered kernel.
    pub fn has_function(&self, host: usize) -> bool {
        self.functions.contains_key(&host)
    }

    /// Registers per thread the SM gives the kernel at this block size: ptxas's count from the
    /// module's cubin when it has one for the simulated target, else the simulator's estimate
    /// (the rule of [`warpsim_sim::launch::allocated_registers`]).
    fn registers(&self, module: usize, prog: &Program, grid: [u32; 3], block: [u32; 3], shared: u32) -> u32 {
        let m = &self.modules[module];
        let compiled = m.registers.get(&prog.name).copied();
        let l = warpsim_workloads::Launch {
            grid,
            block,
            cluster: prog.directives.reqnctapercluster.unwrap_or([1, 1, 1]),
            dynamic_smem: shared,
            regs_per_thread: compiled,
            regs_source: match compiled {
                Some(_) => warpsim_workloads::RegsSource::Compiler(format!("the program's sm_{} cubin", m.cubin_arch)),
                None => warpsim_workloads::RegsSource::Estimate,
            },
            maxrregcount: None,
            spills: Default::default(),
        };
        warpsim_sim::launch::allocated_registers(&l, prog)
    }

    /// Launches the kernel of host stub `host` with the arguments' bytes (one slice per kernel
    /// parameter, as the program's `void **args` point to them), runs it in time, prints its
    /// `printf` output and records it.
    pub fn launch(&mut self, host: usize, c: CallConfig, args: &dyn Fn(usize, usize) -> Vec<u8>) -> Result<()> {
        self.check_stream(c.stream)?;
        let (f, prog) = self.function(host)?;
        let module = f.module;
        let mut params = vec![0u8; prog.param_bytes as usize];
        for (i, &sym) in prog.params.iter().enumerate() {
            let s = &prog.symbols[sym as usize];
            let bytes = args(i, s.size as usize);
            params[s.offset as usize..][..bytes.len()].copy_from_slice(&bytes);
        }
        let shared = u32::try_from(c.shared).map_err(|_| Error::new(code::INVALID_VALUE, format!("{} bytes of dynamic shared memory", c.shared)))?;
        let cluster = prog.directives.reqnctapercluster.unwrap_or([1, 1, 1]);
        let dims = LaunchDims { grid: c.grid, block: c.block, cluster, dynamic_smem: shared };
        let regs = self.registers(module, &prog, c.grid, c.block, shared);
        warpsim_sim::features::check(&prog, &self.cfg).map_err(|e| Error::new(code::NO_KERNEL_IMAGE_FOR_DEVICE, e))?;
        let k = self.gpu.kernel_sharing(Arc::clone(&prog), dims, params, &mut self.modules[module].placed).map_err(|f| launch_error(&f))?;
        let k = Arc::new(k);
        let opts = RunOptions { threads: self.threads, regs_per_thread: regs, spills: Default::default(), limits: Limits::default() };
        let run = engine::run(Arc::clone(&self.cfg), Arc::clone(&k), &mut self.gpu.mem, &opts);
        crate::write_stdout(&k.printf.take());
        let t = match run {
            Ok(t) => t,
            Err(f) => {
                let e = launch_error(&f);
                if e.code != code::INVALID_CONFIGURATION && e.code != code::LAUNCH_OUT_OF_RESOURCES {
                    self.sticky = Some(e.code);
                }
                return Err(e);
            }
        };
        let ns = t.cycles as f64 * 1000.0 / self.cfg.clock.sm_mhz;
        let ready = self.stream_ready(c.stream);
        let start = self.device_ns.max(ready);
        self.device_ns = start + ns;
        self.streams.insert(if is_default_stream(c.stream) { 0 } else { c.stream }, self.device_ns);
        let stream = self.stream_numbers.get(&c.stream).copied().unwrap_or(0);
        self.report.launches.push(LaunchRecord {
            kernel: warpsim_isa::names::demangle(&prog.name),
            mangled: prog.name.clone(),
            grid: c.grid,
            block: c.block,
            dynamic_smem: shared,
            stream,
            regs_per_thread: regs,
            cycles: t.cycles,
            start_us: start / 1000.0,
            time_us: ns / 1000.0,
            warp_instructions: t.warp_instructions,
            occupancy_ctas_per_sm: t.occupancy_ctas_per_sm,
            occupancy_limiter: t.occupancy_limiter.clone(),
            counters: t.counters,
        });
        Ok(())
    }

    /// When the work issued to `s` so far is done: the default (legacy) stream waits for every
    /// stream; another stream for its own work and the default stream's.
    fn stream_ready(&self, s: usize) -> f64 {
        if is_default_stream(s) {
            self.streams.values().copied().fold(0.0, f64::max)
        } else {
            self.streams.get(&s).copied().unwrap_or(0.0).max(self.streams.get(&0).copied().unwrap_or(0.0))
        }
    }

    pub fn malloc(&mut self, size: u64) -> u64 {
        self.mallocs += 1;
        self.gpu.mem.alloc(&format!("cudaMalloc #{}", self.mallocs), size, 256)
    }

    /// `cudaFree`: the pointer must start an allocation (memory is not reused: addresses stay
    /// unique for the process, which keeps a stale pointer's fault readable).
    pub fn free(&mut self, addr: u64) -> Result<()> {
        if addr == 0 || self.gpu.mem.allocations().iter().any(|a| a.base == addr) {
            Ok(())
        } else {
            Err(Error::new(code::INVALID_VALUE, format!("{addr:#x} is not a device allocation")))
        }
    }

    /// Checks that `[addr, addr + len)` is device memory.
    fn device_range(&self, addr: u64, len: u64) -> Result<()> {
        if len == 0 || self.gpu.mem.check(addr, len, 1).is_ok() {
            Ok(())
        } else {
            Err(Error::new(code::INVALID_VALUE, format!("[{addr:#x}, +{len}) is not inside one device allocation")))
        }
    }

    /// Whether `addr` lies in device memory (for `cudaMemcpyDefault`).
    pub fn is_device(&self, addr: u64) -> bool {
        self.gpu.mem.allocation_of(addr).is_some()
    }

    pub fn write_device(&mut self, addr: u64, data: &[u8]) -> Result<()> {
        self.device_range(addr, data.len() as u64)?;
        self.gpu.mem.write(addr, data);
        Ok(())
    }

    pub fn read_device(&self, addr: u64, out: &mut [u8]) -> Result<()> {
        self.device_range(addr, out.len() as u64)?;
        self.gpu.mem.read(addr, out);
        Ok(())
    }

    /// The device address of a registered variable and its size.
    pub fn symbol(&self, host: usize) -> Result<(u64, u64)> {
        let v = self.vars.get(&host).ok_or_else(|| Error::new(code::INVALID_SYMBOL, format!("{host:#x} is not a registered __device__ or __constant__ variable")))?;
        Ok((v.addr, v.size))
    }

    /// The device range `[offset, offset + count)` of variable `host`.
    pub fn symbol_range(&self, host: usize, count: u64, offset: u64) -> Result<u64> {
        let (addr, size) = self.symbol(host)?;
        if offset.checked_add(count).is_none_or(|e| e > size) {
            let name = &self.vars[&host].name;
            return Err(Error::new(code::INVALID_VALUE, format!("{count} bytes at offset {offset} of `{name}`, a variable of {size} bytes")));
        }
        Ok(addr + offset)
    }

    pub fn stream_create(&mut self) -> usize {
        let h = self.handle();
        let now = self.device_ns;
        self.streams.insert(h, now);
        let n = self.stream_numbers.len() + 1;
        self.stream_numbers.insert(h, n);
        h
    }

    pub fn stream_destroy(&mut self, s: usize) -> Result<()> {
        self.check_stream(s)?;
        if !is_default_stream(s) {
            self.streams.remove(&s);
        }
        Ok(())
    }

    pub fn stream_sync(&self, s: usize) -> Result<()> {
        self.check_stream(s)
    }

    pub fn event_create(&mut self) -> usize {
        let h = self.handle();
        self.events.insert(h, None);
        h
    }

    fn event(&self, e: usize) -> Result<Option<f64>> {
        self.events.get(&e).copied().ok_or_else(|| Error::new(code::INVALID_RESOURCE_HANDLE, format!("{e:#x} is not an event")))
    }

    pub fn event_destroy(&mut self, e: usize) -> Result<()> {
        self.event(e)?;
        self.events.remove(&e);
        Ok(())
    }

    pub fn event_record(&mut self, e: usize, s: usize) -> Result<()> {
        self.event(e)?;
        self.check_stream(s)?;
        let t = self.stream_ready(s);
        self.events.insert(e, Some(t));
        Ok(())
    }

    pub fn event_sync(&self, e: usize) -> Result<()> {
        self.event(e).map(|_| ())
    }

    /// `cudaStreamWaitEvent`: the stream's later work starts after the event.
    pub fn stream_wait_event(&mut self, s: usize, e: usize) -> Result<()> {
        self.check_stream(s)?;
        let t = self.event(e)?.unwrap_or(0.0);
        let key = if is_default_stream(s) { 0 } else { s };
        let r = self.streams.entry(key).or_insert(0.0);
        *r = r.max(t);
        Ok(())
    }

    /// Milliseconds of simulated time from `a` to `b`.
    pub fn elapsed_ms(&self, a: usize, b: usize) -> Result<f32> {
        match (self.event(a)?, self.event(b)?) {
            (Some(x), Some(y)) => Ok(((y - x) / 1e6) as f32),
            _ => Err(Error::new(code::INVALID_RESOURCE_HANDLE, "an event has not been recorded")),
        }
    }

    /// `cudaFuncGetAttributes`' figures: (static shared bytes, constant bytes, local bytes per
    /// thread, max threads per block, registers per thread, PTX version × 10).
    pub fn func_attributes(&self, host: usize) -> Result<FuncAttributes> {
        let (f, p) = self.function(host)?;
        let module = f.module;
        let constant = p.symbols.iter().filter(|s| s.kind == SymKind::Const).map(|s| s.size).sum();
        let max_threads = p.directives.maxntid.map_or(1024, |m| m.iter().product::<u32>().min(1024));
        let regs = self.registers(module, &p, [1, 1, 1], [max_threads, 1, 1], 0);
        Ok(FuncAttributes {
            shared: p.dynamic_smem_base,
            constant,
            local: p.funcs.first().map_or(0, |f| f.frame_size),
            max_threads: max_threads.min(self.cfg.sm.max_threads),
            regs,
        })
    }

    /// Blocks of the kernel one SM holds at once (`cudaOccupancyMaxActiveBlocksPerMultiprocessor`).
    pub fn occupancy(&self, host: usize, block: u32, dynamic: u64) -> Result<u32> {
        let (f, p) = self.function(host)?;
        let regs = self.registers(f.module, &p, [1, 1, 1], [block, 1, 1], dynamic as u32);
        let smem = (p.dynamic_smem_base + dynamic) as u32;
        warpsim_sim::occupancy::occupancy(&self.cfg, block, regs, smem).map(|o| o.ctas_per_sm).or(Ok(0))
    }
}

/// What `cudaFuncGetAttributes` reports.
pub struct FuncAttributes {
    pub shared: u64,
    pub constant: u64,
    pub local: u64,
    pub max_threads: u32,
    pub regs: u32,
}

/// The CUDA error a simulator fault stands for, with the fault's report as its message.
fn launch_error(f: &warpsim_sim::Fault) -> Error {
    let c = match &f.kind {
        FaultKind::BadLaunch(m) if m.contains("register") || m.contains("shared memory") => code::LAUNCH_OUT_OF_RESOURCES,
        FaultKind::BadLaunch(_) => code::INVALID_CONFIGURATION,
        FaultKind::OutOfBounds { .. } => code::ILLEGAL_ADDRESS,
        FaultKind::Misaligned { .. } => code::MISALIGNED_ADDRESS,
        FaultKind::Watchdog(_) | FaultKind::Deadlock(_) => code::LAUNCH_TIMEOUT,
        FaultKind::Trap => code::ASSERT,
        _ => code::LAUNCH_FAILURE,
    };
    Error::new(c, f.to_string())
}
