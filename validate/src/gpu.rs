//! The CUDA driver as a [`Device`]: cudarc 0.19 with `dynamic-loading`, so nothing CUDA is
//! needed to build and `libcuda.so.1` is opened at run time.
//!
//! [`Cuda::open`] first asks cudarc whether the library can be loaded (`is_culib_present`) and
//! returns [`Error::NoDriver`] when it cannot, because any cudarc call would panic then. Every
//! driver call goes through cudarc's thin `result` wrappers or, where those do not reach
//! (`cuModuleLoadDataEx` with a JIT log, `cuLaunchKernel` with our own parameter array,
//! `cuLaunchKernelEx` with a cluster, `cuTensorMapEncodeTiled`, `cuDriverGetVersion`,
//! `cuDevicePrimaryCtxReset_v2`), the raw `sys` bindings; a panic inside cudarc (a missing
//! symbol) is caught and becomes [`Error::Panicked`].
//!
//! Per workload ([`Device::run`]): JIT the PTX text (the driver's compiler, no NVRTC), read each
//! launch's kernel's registers, static shared and local memory, raise the dynamic shared-memory
//! limit above 48 KiB, allocate and zero every buffer and copy the input chunks, pack each
//! kernel launch's parameters at the PTX layout's offsets against the buffers its names refer to
//! then (the manifest's schedule: swaps applied; tensor maps encoded against their buffer's
//! address) and pass the driver one pointer per parameter, run the launch sequence once (with
//! the cluster attribute when the manifest asks for clusters the kernel does not fix at compile
//! time), synchronize, read the outputs back, then time each run of the sequence after a
//! 256 MiB memset that flushes L2, every buffer the first run wrote restored before it, with an
//! event between launches (the run's time is the sum of its launches'). An
//! error that leaves the context unusable (an illegal address, say) resets the device's primary
//! context so the next workload starts clean.

use std::ffi::{c_void, CStr, CString};
use std::mem::MaybeUninit;
use std::panic::AssertUnwindSafe;
use std::ptr::null_mut;
use std::time::Instant;

use cudarc::driver::result::{self, DriverError};
use cudarc::driver::sys;
use warpsim_workloads::{DType, Interleave, L2Promotion, OobFill, Swizzle, TensorMap, Workload};

use crate::dataset::DeviceInfo;
use crate::error::Error;
use crate::params::{ParamLayout, TENSOR_MAP_BYTES};
use crate::runner::{Device, DeviceFailure, DeviceRun, KernelAttrs, Log, L2_FLUSH_BYTES, WARMUP_LAUNCHES};

/// The CUDA API the bindings are generated for (the `cuda-13000` feature).
const CUDA_BINDINGS: &str = "13.0";

/// Dynamic shared memory a block may use without raising `MAX_DYNAMIC_SHARED_SIZE_BYTES`.
const DEFAULT_DYNAMIC_SMEM: u32 = 48 << 10;

/// Bytes of JIT error log kept from `cuModuleLoadDataEx`.
const JIT_LOG_BYTES: usize = 16 << 10;

/// Whether `libcuda.so.1` (or another name cudarc tries) can be loaded on this machine.
pub fn driver_present() -> bool {
    // SAFETY: only tries to dlopen the library and closes it again.
    unsafe { sys::is_culib_present() }
}

/// Device 0 through the CUDA driver, its primary context current on this thread.
pub struct Cuda {
    dev: sys::CUdevice,
    info: DeviceInfo,
    /// Events and the L2 flush buffer, made at the first timed workload.
    timer: Option<Timer>,
    /// Set when a context reset failed: later workloads fail with this at once.
    broken: Option<String>,
}

impl Cuda {
    /// Initializes the driver and device 0 and reads the device attributes.
    pub fn open(log: Log) -> Result<Cuda, Error> {
        if !driver_present() {
            return Err(Error::NoDriver);
        }
        guarded(|| {
            result::init().map_err(driver("cuInit"))?;
            let mut version = 0;
            // SAFETY: writes one int.
            unsafe { sys::cuDriverGetVersion(&mut version) }.result().map_err(driver("cuDriverGetVersion"))?;
            if result::device::get_count().map_err(driver("cuDeviceGetCount"))? < 1 {
                return Err(Error::NoDevice);
            }
            let dev = result::device::get(0).map_err(driver("cuDeviceGet"))?;
            activate(dev)?;
            let info = device_info(dev, version, log)?;
            log(&format!(
                "device 0: {}, compute capability {}, {} SMs, max SM clock {} MHz, L2 {} MiB, {} GiB; driver {}, CUDA {} (bindings {})",
                info.name,
                info.compute_capability,
                info.sm_count,
                info.sm_clock_khz / 1000,
                info.l2_bytes >> 20,
                info.total_mem_bytes >> 30,
                info.driver_version.as_deref().unwrap_or("?"),
                info.cuda_driver_api,
                info.cuda_bindings
            ));
            Ok(Cuda { dev, info, timer: None, broken: None })
        })
    }

    fn run_inner(
        &mut self,
        w: &Workload,
        layouts: &[ParamLayout],
        reps: u32,
        log: Log,
        launched: &mut bool,
    ) -> Result<DeviceRun, Error> {
        let name = w.manifest.name.as_str();
        let t = Instant::now();
        let module = Module::load(name, &w.ptx, w.manifest.maxrregcount)?;
        log(&format!("  module: JIT {:.1} ms", t.elapsed().as_secs_f64() * 1e3));
        let mut launches = Vec::with_capacity(w.launches.len());
        let mut kernel = None;
        for (spec, l) in w.sequence() {
            let func = module.function(name, &spec.entry)?;
            let attrs = KernelAttrs {
                registers: func_attr(func, sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_NUM_REGS)?,
                static_smem: func_attr(func, sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)?,
                local_bytes: func_attr(func, sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES)?,
            };
            log(&format!(
                "  `{}`: {} registers/thread (manifest {}), {} B static shared, {} B local/thread",
                spec.entry,
                attrs.registers,
                l.regs_per_thread.map_or("none".to_string(), |r| r.to_string()),
                attrs.static_smem,
                attrs.local_bytes
            ));
            kernel.get_or_insert(attrs);
            if l.dynamic_smem > DEFAULT_DYNAMIC_SMEM {
                set_func_attr(func, sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, l.dynamic_smem)?;
                log(&format!("  dynamic shared memory limit raised to {} B", l.dynamic_smem));
            }
            launches.push(Launch { func, grid: l.grid, block: l.block, smem: l.dynamic_smem, cluster: cluster_attribute(name, func, l.cluster)? });
        }
        let kernel = kernel.unwrap_or_default();

        let t = Instant::now();
        let buffers = w
            .manifest
            .buffers
            .iter()
            .zip(&w.inputs)
            .map(|(spec, data)| {
                let buf = DevBuf::alloc(spec.bytes())?;
                buf.zero()?;
                for (offset, bytes) in data.chunks() {
                    buf.write(name, offset, bytes)?;
                }
                Ok(buf)
            })
            .collect::<Result<Vec<_>, Error>>()?;
        let total: usize = buffers.iter().map(|b| b.bytes).sum();
        log(&format!("  buffers: {} allocated ({} KiB), inputs copied in {:.1} ms", buffers.len(), total >> 10, t.elapsed().as_secs_f64() * 1e3));

        // The sequence's kernel launches, each with its arguments packed against the buffers
        // its names refer to then (swaps applied), the same every run.
        let (schedule, last) = w.manifest.schedule();
        let mut runs = Vec::with_capacity(schedule.len());
        for (i, map) in &schedule {
            let addrs: Vec<u64> = map.iter().map(|&j| buffers[j].ptr).collect();
            let packed = layouts[*i].pack(w, *i, &addrs, &mut |tm, addr| encode_tensor_map(name, tm, addr))?;
            runs.push((&launches[*i], Params::new(&packed, &layouts[*i])));
        }
        let t = Instant::now();
        for (launch, params) in &mut runs {
            launch.go(params)?;
            *launched = true;
        }
        result::ctx::synchronize().map_err(driver("cuCtxSynchronize after the first run"))?;
        for (i, (spec, l)) in w.sequence().enumerate() {
            log(&format!(
                "  launch `{}` x{}: grid {:?} block {:?} cluster {:?}, {} B dynamic smem, {} parameter bytes",
                spec.entry,
                spec.repeat,
                l.grid,
                l.block,
                launches[i].cluster.unwrap_or([1, 1, 1]),
                l.dynamic_smem,
                layouts[i].bytes
            ));
        }
        log(&format!("  first run: {} kernel launches ok in {:.3} ms", runs.len(), t.elapsed().as_secs_f64() * 1e3));
        let after: Vec<Vec<u8>> = buffers.iter().map(DevBuf::read).collect::<Result<_, Error>>()?;
        // Outputs by name: the memory each name refers to at the end of the sequence.
        let outputs = w
            .manifest
            .buffers
            .iter()
            .zip(&last)
            .filter(|(spec, _)| spec.output)
            .map(|(spec, &j)| (spec.name.clone(), after[j].clone()))
            .collect();
        // Every buffer the sequence changed is put back before each timed run, so each one
        // starts from the inputs the first did (a kernel that consumes its input, a BFS level
        // clearing its frontier, is otherwise timed on an emptied one).
        let initial: Vec<Vec<u8>> = w.manifest.buffers.iter().zip(&w.inputs).map(|(spec, data)| initial_bytes(spec.bytes(), data)).collect();
        let written = changed_buffers(&initial, &after);
        if !written.is_empty() {
            let names: Vec<&str> = written.iter().map(|&i| w.manifest.buffers[i].name.as_str()).collect();
            log(&format!("  restored before each timed run (the sequence writes them): {}", names.join(", ")));
        }
        let mut restore = || written.iter().try_for_each(|&i| buffers[i].write(name, 0, &initial[i]));

        // A timing failure (or a panic in it) keeps the outputs and attributes gathered so far.
        let times = if reps == 0 { Ok(Vec::new()) } else { guarded(|| self.time(&mut runs, reps, &mut restore, log)) };
        Ok(DeviceRun { outputs, kernel, times })
    }

    /// `reps` timed runs of the sequence, µs per kernel launch; events and the flush buffer are
    /// made the first time.
    fn time(&mut self, runs: &mut [(&Launch, Params)], reps: u32, restore: &mut dyn FnMut() -> Result<(), Error>, log: Log) -> Result<Vec<Vec<f64>>, Error> {
        let mut timer = match self.timer.take() {
            Some(t) => t,
            None => {
                let t = Timer::new()?;
                log(&format!("  timer: events and a {} MiB L2 flush buffer created", L2_FLUSH_BYTES >> 20));
                t
            }
        };
        let times = timer.time(runs, reps, restore);
        self.timer = Some(timer);
        times
    }

    /// After an error: if the context no longer works, reset the primary context and make it
    /// current again (buffers of the failed workload are already freed or lost with it).
    fn recover(&mut self, log: Log) {
        if result::ctx::synchronize().is_ok() {
            return;
        }
        log("  the context is unusable after this error: resetting the primary context");
        self.timer = None;
        let dev = self.dev;
        let reset = guarded(|| {
            // SAFETY: no handle of the old context is used after this.
            unsafe { sys::cuDevicePrimaryCtxReset_v2(dev) }.result().map_err(driver("cuDevicePrimaryCtxReset_v2"))?;
            activate(dev)
        });
        if let Err(e) = reset {
            log(&format!("  reset failed ({e}); the remaining workloads are skipped"));
            self.broken = Some(e.to_string());
        }
    }
}

impl Device for Cuda {
    fn info(&self) -> &DeviceInfo {
        &self.info
    }

    fn run(&mut self, w: &Workload, layouts: &[ParamLayout], reps: u32, log: Log) -> Result<DeviceRun, DeviceFailure> {
        if let Some(b) = &self.broken {
            let error = Error::Driver { call: "an earlier context reset".into(), detail: b.clone() };
            return Err(DeviceFailure { launched: false, error });
        }
        let mut launched = false;
        match guarded(|| self.run_inner(w, layouts, reps, log, &mut launched)) {
            Ok(run) => {
                if let Err(e) = &run.times {
                    log(&format!("  timing error: {e}"));
                    self.recover(log);
                }
                Ok(run)
            }
            Err(error) => {
                log(&format!("  error: {error}"));
                self.recover(log);
                Err(DeviceFailure { launched, error })
            }
        }
    }
}

/// Runs `f`, turning a panic inside cudarc into an error.
fn guarded<T>(f: impl FnOnce() -> Result<T, Error>) -> Result<T, Error> {
    std::panic::catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|p| {
        let text = p.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| p.downcast_ref::<String>().cloned());
        Err(Error::Panicked(text.unwrap_or_else(|| "(no message)".into())))
    })
}

/// Maps a driver error of `call` to [`Error::Driver`] with the error's name and description.
fn driver(call: impl Into<String>) -> impl FnOnce(DriverError) -> Error {
    move |e| {
        let text = |r: Result<&CStr, DriverError>| r.ok().map(|c| c.to_string_lossy().into_owned());
        let detail = match (text(e.error_name()), text(e.error_string())) {
            (Some(n), Some(s)) => format!("{n} ({s})"),
            (Some(n), None) => n,
            _ => format!("{:?}", e.0),
        };
        Error::Driver { call: call.into(), detail }
    }
}

/// Retains the device's primary context and makes it current.
fn activate(dev: sys::CUdevice) -> Result<(), Error> {
    // SAFETY: `dev` came from cuDeviceGet.
    let ctx = unsafe { result::primary_ctx::retain(dev) }.map_err(driver("cuDevicePrimaryCtxRetain"))?;
    // SAFETY: a live, retained context.
    unsafe { result::ctx::set_current(ctx) }.map_err(driver("cuCtxSetCurrent"))
}

fn device_info(dev: sys::CUdevice, version: i32, log: Log) -> Result<DeviceInfo, Error> {
    use sys::CUdevice_attribute::*;
    // An attribute the driver refuses is logged and recorded as 0: it never stops the run.
    let mut get = |a: sys::CUdevice_attribute| {
        // SAFETY: `dev` came from cuDeviceGet.
        match unsafe { result::device::get_attribute(dev, a) } {
            Ok(v) => v.max(0) as u32,
            Err(e) => {
                log(&format!("warning: {}; recorded as 0", driver(format!("cuDeviceGetAttribute({a:?})"))(e)));
                0
            }
        }
    };
    let cc = format!(
        "{}.{}",
        get(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR),
        get(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)
    );
    Ok(DeviceInfo {
        name: result::device::get_name(dev).map_err(driver("cuDeviceGetName"))?,
        compute_capability: cc,
        sm_count: get(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT),
        sm_clock_khz: get(CU_DEVICE_ATTRIBUTE_CLOCK_RATE),
        mem_clock_khz: get(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE),
        mem_bus_width_bits: get(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH),
        l2_bytes: u64::from(get(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)),
        // SAFETY: `dev` came from cuDeviceGet.
        total_mem_bytes: unsafe { result::device::total_mem(dev) }.map_err(driver("cuDeviceTotalMem_v2"))? as u64,
        smem_per_sm: get(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR),
        smem_per_block: get(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK),
        smem_per_block_optin: get(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN),
        smem_reserved_per_block: get(CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK),
        regs_per_sm: get(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR),
        regs_per_block: get(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK),
        max_threads_per_sm: get(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR),
        max_blocks_per_sm: get(CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR),
        warp_size: get(CU_DEVICE_ATTRIBUTE_WARP_SIZE),
        driver_version: std::fs::read_to_string("/proc/driver/nvidia/version").ok().as_deref().and_then(kernel_module_version),
        cuda_driver_api: format!("{}.{}", version / 1000, version % 1000 / 10),
        cuda_bindings: CUDA_BINDINGS.into(),
    })
}

/// `580.95.05` from `/proc/driver/nvidia/version` ("NVRM version: NVIDIA UNIX ... Kernel Module
/// 580.95.05  Release Build ...").
fn kernel_module_version(text: &str) -> Option<String> {
    let line = text.lines().find(|l| l.starts_with("NVRM version"))?;
    line.split_whitespace()
        .find(|t| t.contains('.') && t.starts_with(|c: char| c.is_ascii_digit()) && t.chars().all(|c| c.is_ascii_digit() || c == '.'))
        .map(str::to_string)
}

fn func_attr(f: sys::CUfunction, a: sys::CUfunction_attribute) -> Result<u32, Error> {
    // SAFETY: `f` belongs to a loaded module.
    let v = unsafe { result::function::get_function_attribute(f, a) }.map_err(driver(format!("cuFuncGetAttribute({a:?})")))?;
    Ok(v.max(0) as u32)
}

fn set_func_attr(f: sys::CUfunction, a: sys::CUfunction_attribute, value: u32) -> Result<(), Error> {
    let v = i32::try_from(value).unwrap_or(i32::MAX);
    // SAFETY: `f` belongs to a loaded module.
    unsafe { result::function::set_function_attribute(f, a, v) }.map_err(driver(format!("cuFuncSetAttribute({a:?}, {v})")))
}

/// The cluster dimensions to pass at launch: None for a plain launch (no clusters, or the
/// kernel fixes them at compile time with `.reqnctapercluster`, which must then agree).
fn cluster_attribute(workload: &str, f: sys::CUfunction, cluster: [u32; 3]) -> Result<Option<[u32; 3]>, Error> {
    use sys::CUfunction_attribute::*;
    if cluster == [1, 1, 1] {
        return Ok(None);
    }
    let fixed = [
        func_attr(f, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH)?,
        func_attr(f, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT)?,
        func_attr(f, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH)?,
    ];
    if fixed[0] > 0 {
        return if fixed == cluster {
            Ok(None)
        } else {
            Err(Error::Workload {
                workload: workload.into(),
                message: format!("the kernel fixes clusters of {fixed:?} but the manifest asks for {cluster:?}"),
            })
        };
    }
    if cluster.iter().product::<u32>() > 8 {
        set_func_attr(f, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1)?;
    }
    Ok(Some(cluster))
}

/// A loaded module, unloaded on drop.
struct Module(sys::CUmodule);

impl Module {
    /// JIT-compiles PTX text; on failure the error carries the JIT's log.
    /// JIT-compiles `ptx`; `max_registers` is the manifest's `maxrregcount` (`CU_JIT_MAX_REGISTERS`,
    /// what `ptxas --maxrregcount` is for the simulator).
    fn load(workload: &str, ptx: &str, max_registers: Option<u32>) -> Result<Module, Error> {
        let image = CString::new(ptx)
            .map_err(|_| Error::Workload { workload: workload.into(), message: "the PTX contains a NUL byte".into() })?;
        let mut jit_log = vec![0u8; JIT_LOG_BYTES];
        let mut options = [
            sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER,
            sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
            sys::CUjit_option::CU_JIT_MAX_REGISTERS,
        ];
        // Option values travel in pointer-sized slots; sizes and counts are plain integers there.
        let mut values: [*mut c_void; 3] = [
            jit_log.as_mut_ptr().cast(),
            std::ptr::without_provenance_mut(jit_log.len()),
            std::ptr::without_provenance_mut(max_registers.unwrap_or(0) as usize),
        ];
        let n = if max_registers.is_some() { 3 } else { 2 };
        let mut module = MaybeUninit::uninit();
        // SAFETY: a NUL-terminated image; `n` options with their values; the log outlives the call.
        let r = unsafe {
            sys::cuModuleLoadDataEx(module.as_mut_ptr(), image.as_ptr().cast(), n, options.as_mut_ptr(), values.as_mut_ptr())
        };
        match r.result() {
            // SAFETY: set by a successful call.
            Ok(()) => Ok(Module(unsafe { module.assume_init() })),
            Err(e) => {
                let text = CStr::from_bytes_until_nul(&jit_log).map(|c| c.to_string_lossy().trim().to_string()).unwrap_or_default();
                let call = if text.is_empty() { "cuModuleLoadDataEx".to_string() } else { format!("cuModuleLoadDataEx (JIT log: {text})") };
                Err(driver(call)(e))
            }
        }
    }

    fn function(&self, workload: &str, entry: &str) -> Result<sys::CUfunction, Error> {
        let name = CString::new(entry)
            .map_err(|_| Error::Workload { workload: workload.into(), message: "entry name contains a NUL byte".into() })?;
        // SAFETY: a loaded module.
        unsafe { result::module::get_function(self.0, name) }.map_err(driver(format!("cuModuleGetFunction({entry})")))
    }
}

impl Drop for Module {
    fn drop(&mut self) {
        // SAFETY: loaded once, unloaded once; an error (dead context) leaves nothing to free.
        let _ = unsafe { result::module::unload(self.0) };
    }
}

/// Device memory, freed on drop.
struct DevBuf {
    ptr: sys::CUdeviceptr,
    bytes: usize,
}

impl DevBuf {
    fn alloc(bytes: u64) -> Result<DevBuf, Error> {
        let bytes = usize::try_from(bytes).unwrap_or(usize::MAX);
        // SAFETY: plain allocation; the contents are set before use.
        let ptr = unsafe { result::malloc_sync(bytes.max(1)) }.map_err(driver(format!("cuMemAlloc_v2({bytes} bytes)")))?;
        Ok(DevBuf { ptr, bytes })
    }

    fn zero(&self) -> Result<(), Error> {
        // SAFETY: within the allocation.
        unsafe { result::memset_d8_sync(self.ptr, 0, self.bytes) }.map_err(driver("cuMemsetD8_v2"))
    }

    fn write(&self, workload: &str, offset: u64, data: &[u8]) -> Result<(), Error> {
        if offset.checked_add(data.len() as u64).is_none_or(|end| end > self.bytes as u64) {
            let message = format!("input chunk of {} bytes at {offset} outside a {}-byte buffer", data.len(), self.bytes);
            return Err(Error::Workload { workload: workload.into(), message });
        }
        // SAFETY: bounds checked above.
        unsafe { result::memcpy_htod_sync(self.ptr + offset, data) }.map_err(driver("cuMemcpyHtoD_v2"))
    }

    fn read(&self) -> Result<Vec<u8>, Error> {
        let mut out = vec![0u8; self.bytes];
        // SAFETY: `out` has the allocation's size.
        unsafe { result::memcpy_dtoh_sync(&mut out, self.ptr) }.map_err(driver("cuMemcpyDtoH_v2"))?;
        Ok(out)
    }
}

impl Drop for DevBuf {
    fn drop(&mut self) {
        // SAFETY: allocated once, freed once; an error (dead context) leaves nothing to free.
        let _ = unsafe { result::free_sync(self.ptr) };
    }
}

/// A 128-byte-aligned block (a `CUtensorMap`'s alignment; every parameter's is at most that).
#[derive(Clone, Copy)]
#[repr(C, align(128))]
struct Aligned([u8; 128]);

/// The packed parameters in aligned memory and the `kernelParams` array: one pointer per
/// parameter, at its offset.
struct Params {
    _storage: Vec<Aligned>,
    ptrs: Vec<*mut c_void>,
}

impl Params {
    fn new(packed: &[u8], layout: &ParamLayout) -> Params {
        let mut storage = vec![Aligned([0; 128]); packed.len().div_ceil(128).max(1)];
        for (dst, src) in storage.iter_mut().zip(packed.chunks(128)) {
            dst.0[..src.len()].copy_from_slice(src);
        }
        // The heap block does not move when `storage` does: the pointers stay valid.
        let base = storage.as_mut_ptr().cast::<u8>();
        let ptrs = layout.slots.iter().map(|s| base.wrapping_add(s.offset).cast::<c_void>()).collect();
        Params { _storage: storage, ptrs }
    }

    fn kernel_params(&mut self) -> *mut *mut c_void {
        if self.ptrs.is_empty() {
            null_mut()
        } else {
            self.ptrs.as_mut_ptr()
        }
    }
}

/// One kernel launch's shape, on the legacy default stream.
struct Launch {
    func: sys::CUfunction,
    grid: [u32; 3],
    block: [u32; 3],
    smem: u32,
    cluster: Option<[u32; 3]>,
}

impl Launch {
    fn go(&self, params: &mut Params) -> Result<(), Error> {
        let ([gx, gy, gz], [bx, by, bz]) = (self.grid, self.block);
        let kp = params.kernel_params();
        let stream: sys::CUstream = null_mut();
        match self.cluster {
            // SAFETY: one pointer per kernel parameter, each to a value of the parameter's size.
            None => unsafe { sys::cuLaunchKernel(self.func, gx, gy, gz, bx, by, bz, self.smem, stream, kp, null_mut()) }
                .result()
                .map_err(driver("cuLaunchKernel")),
            Some([x, y, z]) => {
                // SAFETY: a plain C struct; all-zero is the IGNORE attribute.
                let mut attr: sys::CUlaunchAttribute = unsafe { std::mem::zeroed() };
                attr.id = sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
                attr.value.clusterDim = sys::CUlaunchAttributeValue_union__bindgen_ty_1 { x, y, z };
                let config = sys::CUlaunchConfig {
                    gridDimX: gx,
                    gridDimY: gy,
                    gridDimZ: gz,
                    blockDimX: bx,
                    blockDimY: by,
                    blockDimZ: bz,
                    sharedMemBytes: self.smem,
                    hStream: stream,
                    attrs: &mut attr,
                    numAttrs: 1,
                };
                // SAFETY: as above; `config` and `attr` outlive the call.
                unsafe { sys::cuLaunchKernelEx(&config, self.func, kp, null_mut()) }
                    .result()
                    .map_err(driver(format!("cuLaunchKernelEx(cluster {x}x{y}x{z})")))
            }
        }
    }
}

/// An event, destroyed on drop.
struct Event(sys::CUevent);

impl Event {
    fn new() -> Result<Event, Error> {
        result::event::create(sys::CUevent_flags::CU_EVENT_DEFAULT).map(Event).map_err(driver("cuEventCreate"))
    }

    fn record(&self) -> Result<(), Error> {
        // SAFETY: a live event, the legacy default stream.
        unsafe { result::event::record(self.0, null_mut()) }.map_err(driver("cuEventRecord"))
    }
}

impl Drop for Event {
    fn drop(&mut self) {
        // SAFETY: created once, destroyed once.
        let _ = unsafe { result::event::destroy(self.0) };
    }
}

/// Times runs of a launch sequence: L2 flushed by a memset of a buffer larger than L2, then
/// an event before the first kernel launch and after each, so every launch has its own event
/// time; the first few runs warm the clocks up and are not kept.
struct Timer {
    /// One more than the longest sequence timed so far.
    events: Vec<Event>,
    flush: DevBuf,
}

impl Timer {
    fn new() -> Result<Timer, Error> {
        Ok(Timer { events: vec![Event::new()?], flush: DevBuf::alloc(L2_FLUSH_BYTES)? })
    }

    /// `reps` timed runs of `runs` (the sequence's launches with their parameters), µs per
    /// launch, after [`WARMUP_LAUNCHES`] untimed ones; `restore` runs before each (synchronous
    /// copies, outside the events).
    fn time(&mut self, runs: &mut [(&Launch, Params)], reps: u32, restore: &mut dyn FnMut() -> Result<(), Error>) -> Result<Vec<Vec<f64>>, Error> {
        while self.events.len() <= runs.len() {
            self.events.push(Event::new()?);
        }
        let events = &self.events[..=runs.len()];
        let mut times = Vec::with_capacity(reps as usize);
        for i in 0..WARMUP_LAUNCHES + reps {
            restore()?;
            // SAFETY: within the flush buffer; stream-ordered before the first event.
            unsafe { result::memset_d8_async(self.flush.ptr, i as u8, self.flush.bytes, null_mut()) }
                .map_err(driver("cuMemsetD8Async (L2 flush)"))?;
            events[0].record()?;
            for ((launch, params), stop) in runs.iter_mut().zip(&events[1..]) {
                launch.go(params)?;
                stop.record()?;
            }
            let last = events.last().expect("at least one event");
            // SAFETY: recorded events.
            unsafe { result::event::synchronize(last.0) }.map_err(driver("cuEventSynchronize"))?;
            let run = events
                .windows(2)
                .map(|pair| {
                    // SAFETY: both events recorded and complete.
                    let ms = unsafe { result::event::elapsed(pair[0].0, pair[1].0) }.map_err(driver("cuEventElapsedTime_v2"))?;
                    Ok(f64::from(ms) * 1e3)
                })
                .collect::<Result<Vec<f64>, Error>>()?;
            if i >= WARMUP_LAUNCHES {
                times.push(run);
            }
        }
        Ok(times)
    }
}

/// The arguments of `cuTensorMapEncodeTiled` for a manifest tensor map (no driver needed to
/// build them; the self-check builds them for every tensor map too).
#[derive(Debug)]
pub(crate) struct TensorMapArgs {
    dtype: sys::CUtensorMapDataType,
    dims: Vec<u64>,
    strides: Vec<u64>,
    box_dims: Vec<u32>,
    elem_strides: Vec<u32>,
    interleave: sys::CUtensorMapInterleave,
    swizzle: sys::CUtensorMapSwizzle,
    l2_promotion: sys::CUtensorMapL2promotion,
    oob_fill: sys::CUtensorMapFloatOOBfill,
}

impl TensorMapArgs {
    /// Fails when the ranks disagree (the manifest loader checks the rest; the driver checks
    /// alignment and limits). Signed 8/16-bit elements map to the unsigned types: a tiled copy
    /// moves bits.
    pub(crate) fn new(workload: &str, tm: &TensorMap) -> Result<TensorMapArgs, Error> {
        use sys::CUtensorMapDataType::*;
        let rank = tm.dims.len();
        if !(1..=5).contains(&rank) || tm.strides.len() + 1 != rank || tm.box_dims.len() != rank || tm.elem_strides.len() != rank {
            let message = format!(
                "tensor map of rank {rank} with {} strides, {} box sizes, {} element strides",
                tm.strides.len(),
                tm.box_dims.len(),
                tm.elem_strides.len()
            );
            return Err(Error::Workload { workload: workload.into(), message });
        }
        let dtype = match tm.dtype {
            DType::U8 | DType::S8 => CU_TENSOR_MAP_DATA_TYPE_UINT8,
            DType::U16 | DType::S16 => CU_TENSOR_MAP_DATA_TYPE_UINT16,
            DType::U32 => CU_TENSOR_MAP_DATA_TYPE_UINT32,
            DType::S32 => CU_TENSOR_MAP_DATA_TYPE_INT32,
            DType::U64 => CU_TENSOR_MAP_DATA_TYPE_UINT64,
            DType::S64 => CU_TENSOR_MAP_DATA_TYPE_INT64,
            DType::F16 => CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
            DType::Bf16 => CU_TENSOR_MAP_DATA_TYPE_BFLOAT16,
            DType::F32 => CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
            DType::F64 => CU_TENSOR_MAP_DATA_TYPE_FLOAT64,
        };
        Ok(TensorMapArgs {
            dtype,
            dims: tm.dims.clone(),
            strides: tm.strides.clone(),
            box_dims: tm.box_dims.clone(),
            elem_strides: tm.elem_strides.clone(),
            interleave: match tm.interleave {
                Interleave::None => sys::CUtensorMapInterleave::CU_TENSOR_MAP_INTERLEAVE_NONE,
                Interleave::B16 => sys::CUtensorMapInterleave::CU_TENSOR_MAP_INTERLEAVE_16B,
                Interleave::B32 => sys::CUtensorMapInterleave::CU_TENSOR_MAP_INTERLEAVE_32B,
            },
            swizzle: match tm.swizzle {
                Swizzle::None => sys::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_NONE,
                Swizzle::B32 => sys::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_32B,
                Swizzle::B64 => sys::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_64B,
                Swizzle::B128 => sys::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_128B,
            },
            l2_promotion: match tm.l2_promotion {
                L2Promotion::None => sys::CUtensorMapL2promotion::CU_TENSOR_MAP_L2_PROMOTION_NONE,
                L2Promotion::B64 => sys::CUtensorMapL2promotion::CU_TENSOR_MAP_L2_PROMOTION_L2_64B,
                L2Promotion::B128 => sys::CUtensorMapL2promotion::CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                L2Promotion::B256 => sys::CUtensorMapL2promotion::CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
            },
            oob_fill: match tm.oob_fill {
                OobFill::Zero => sys::CUtensorMapFloatOOBfill::CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
                OobFill::Nan => sys::CUtensorMapFloatOOBfill::CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA,
            },
        })
    }
}

/// `cuTensorMapEncodeTiled` over the buffer at `addr`: the 128 bytes of the `CUtensorMap`.
fn encode_tensor_map(workload: &str, tm: &TensorMap, addr: u64) -> Result<[u8; TENSOR_MAP_BYTES], Error> {
    let a = TensorMapArgs::new(workload, tm)?;
    let mut map = MaybeUninit::<sys::CUtensorMap>::zeroed();
    // SAFETY: the arrays have rank (strides rank - 1) entries, as TensorMapArgs::new checked.
    unsafe {
        sys::cuTensorMapEncodeTiled(
            map.as_mut_ptr(),
            a.dtype,
            a.dims.len() as u32,
            std::ptr::without_provenance_mut(addr as usize),
            a.dims.as_ptr(),
            a.strides.as_ptr(),
            a.box_dims.as_ptr(),
            a.elem_strides.as_ptr(),
            a.interleave,
            a.swizzle,
            a.l2_promotion,
            a.oob_fill,
        )
    }
    .result()
    .map_err(driver(format!("cuTensorMapEncodeTiled(dims {:?}, box {:?})", tm.dims, tm.box_dims)))?;
    // SAFETY: zero-initialized plain data, filled by the driver.
    let map = unsafe { map.assume_init() };
    let mut out = [0u8; TENSOR_MAP_BYTES];
    for (dst, word) in out.chunks_exact_mut(8).zip(map.opaque) {
        dst.copy_from_slice(&word.to_ne_bytes());
    }
    Ok(out)
}

/// A buffer's contents before the first launch: zeros with the input's chunks written over.
fn initial_bytes(bytes: u64, data: &warpsim_workloads::InitData) -> Vec<u8> {
    let mut v = vec![0u8; bytes as usize];
    for (offset, chunk) in data.chunks() {
        let o = offset as usize;
        let n = chunk.len().min(v.len().saturating_sub(o));
        v[o..o + n].copy_from_slice(&chunk[..n]);
    }
    v
}

/// The buffers whose contents after the first launch differ from before it.
fn changed_buffers(before: &[Vec<u8>], after: &[Vec<u8>]) -> Vec<usize> {
    before.iter().zip(after).enumerate().filter(|(_, (b, a))| b != a).map(|(i, _)| i).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_driver_is_an_error_not_a_panic() {
        if driver_present() {
            eprintln!("libcuda is present here: the NoDriver path cannot be tested");
            return;
        }
        let mut lines = Vec::new();
        let r = Cuda::open(&mut |l: &str| lines.push(l.to_string()));
        assert!(matches!(r, Err(Error::NoDriver)));
        assert!(lines.is_empty());
    }

    #[test]
    fn module_versions() {
        let text = "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.95.05  Release Build  (dvs-builder@U16-I3-B03-4-3)  Tue Sep 23 09:21:35 UTC 2025\nGCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n";
        assert_eq!(kernel_module_version(text).as_deref(), Some("580.95.05"));
        assert_eq!(kernel_module_version("GCC version: 12.2.0"), None);
    }

    #[test]
    fn params_point_at_their_offsets_in_aligned_memory() {
        let layout = ParamLayout {
            slots: vec![
                crate::params::ParamSlot { name: "n".into(), offset: 0, size: 4 },
                crate::params::ParamSlot { name: "map".into(), offset: 128, size: 128 },
                crate::params::ParamSlot { name: "out".into(), offset: 256, size: 8 },
            ],
            bytes: 264,
        };
        let packed: Vec<u8> = (0..264u32).map(|i| i as u8).collect();
        let mut p = Params::new(&packed, &layout);
        assert_eq!(p.ptrs[0] as usize % 128, 0);
        assert_eq!(p.ptrs[1] as usize - p.ptrs[0] as usize, 128);
        // SAFETY: the pointers point into `p`'s storage, which holds `packed`.
        let read = |ptr: *mut c_void, n: usize| unsafe { std::slice::from_raw_parts(ptr.cast::<u8>(), n) }.to_vec();
        assert_eq!(read(p.ptrs[2], 8), packed[256..264]);
        assert_eq!(read(p.ptrs[1], 128), packed[128..256]);
        assert!(!p.kernel_params().is_null());
        let empty = ParamLayout { slots: vec![], bytes: 0 };
        assert!(Params::new(&[], &empty).kernel_params().is_null());
    }

    /// What gpu-run restores: the buffers the first launch changed, to their bytes before it
    /// (dense and sparse inputs alike, zeros where an input says nothing).
    #[test]
    fn written_buffers_are_restored_to_their_inputs() {
        let dense = warpsim_workloads::InitData::Dense(std::sync::Arc::new(vec![1, 2, 3, 4]));
        assert_eq!(initial_bytes(6, &dense), [1, 2, 3, 4, 0, 0]);
        let mut writes = warpsim_workloads::Writes::default();
        writes.push(2, &[7, 7]);
        writes.push(6, &[9]);
        let sparse = warpsim_workloads::InitData::Sparse { len: 8, writes };
        assert_eq!(initial_bytes(8, &sparse), [0, 0, 7, 7, 0, 0, 9, 0]);
        let before = vec![vec![1, 2], vec![0, 0], vec![5]];
        let after = vec![vec![1, 2], vec![0, 1], vec![4]];
        assert_eq!(changed_buffers(&before, &after), [1, 2]);
        assert!(changed_buffers(&before, &before).is_empty());
    }

    #[test]
    fn tensor_map_ranks_must_agree() {
        let tm = TensorMap {
            buffer: 0,
            dtype: DType::S8,
            dims: vec![64, 64],
            strides: vec![64],
            box_dims: vec![32, 32],
            elem_strides: vec![1, 1],
            swizzle: Swizzle::B128,
            interleave: Interleave::None,
            oob_fill: OobFill::Nan,
            l2_promotion: L2Promotion::B256,
        };
        let a = TensorMapArgs::new("t", &tm).unwrap();
        assert_eq!(a.dtype, sys::CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_UINT8);
        assert_eq!(a.swizzle, sys::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_128B);
        assert_eq!(a.oob_fill, sys::CUtensorMapFloatOOBfill::CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA);
        let bad = TensorMap { strides: vec![], ..tm };
        assert!(TensorMapArgs::new("t", &bad).unwrap_err().to_string().contains("rank 2 with 0 strides"));
    }
}
