//! warpsim-cudart: a stand-in for `libcudart.so.13` that runs an unmodified CUDA program (built
//! with `nvcc -cudart shared`) on the simulator, with no GPU and no driver.
//!
//! `warpsim exec` puts this library on the program's `LD_LIBRARY_PATH` under the real soname and
//! passes its options by environment ([`ENV_CONFIG`], [`ENV_REPORT`], [`ENV_THREADS`]). The
//! exported functions have the C ABI and the real library's symbol version (`libcudart.so.13`):
//! the registration calls nvcc's host stubs make (fatbinary, kernels, variables), `<<<>>>`
//! launches, memory, symbols, streams, events, device queries and errors are implemented in
//! [`runtime`]; every other entry point of the real library exists too, and answers
//! `cudaErrorNotSupported` after one line on stderr naming the call, so a program that uses one
//! fails the way a CUDA program handles failures, never with an unresolved symbol. No call
//! panics across the C boundary: a panic inside becomes `cudaErrorUnknown`.

// The exports are C entry points: the C program calling them holds the pointers' contract (the
// CUDA API's), which `unsafe fn` would not let a C caller see anyway.
#![allow(clippy::not_unsafe_ptr_arg_deref)]

pub mod error;
pub mod fatbin;
pub mod report;
pub mod runtime;
mod unsupported;

use std::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::sync::Mutex;

use error::{code, Error};
use runtime::{CallConfig, Runtime, Side};

/// Environment: the architecture configuration (a TOML file, as `--dump-config` writes) to
/// simulate; the H200 preset when unset.
pub const ENV_CONFIG: &str = "WARPSIM_EXEC_CONFIG";
/// Environment: where to write the JSON report at exit ([`report::Report`]).
pub const ENV_REPORT: &str = "WARPSIM_EXEC_REPORT";
/// Environment: worker threads of the timing model (results do not depend on it).
pub const ENV_THREADS: &str = "WARPSIM_EXEC_THREADS";
/// The file name of this library as cargo builds it, and the soname programs ask for.
pub const LIBRARY_FILE: &str = "libwarpsim_cudart.so";
pub const SONAME: &str = "libcudart.so.13";

type CudaError = c_int;

/// `dim3`, passed by value.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct Dim3 {
    pub x: c_uint,
    pub y: c_uint,
    pub z: c_uint,
}

impl Dim3 {
    fn arr(self) -> [u32; 3] {
        [self.x, self.y, self.z]
    }
}

/// The runtime, made on first use; `Err` when the configuration could not be read.
static RUNTIME: Mutex<Option<std::result::Result<Runtime, String>>> = Mutex::new(None);

fn start() -> std::result::Result<Runtime, String> {
    let cfg = match std::env::var_os(ENV_CONFIG) {
        Some(p) => {
            let path = std::path::PathBuf::from(p);
            let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            warpsim_sim::config::ArchConfig::from_toml(&text, &path.display().to_string()).map_err(|e| e.to_string())?
        }
        None => warpsim_sim::presets::preset("hopper-h200").map_err(|e| e.to_string())?,
    };
    let threads = match std::env::var(ENV_THREADS) {
        Ok(t) => t.parse().map_err(|_| format!("{ENV_THREADS}={t} is not a number of threads"))?,
        Err(_) => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    let program = std::env::args().next().unwrap_or_default();
    extern "C" {
        fn atexit(f: extern "C" fn()) -> c_int;
    }
    // SAFETY: registering a plain function with the C library.
    unsafe { atexit(write_report) };
    let rt = Runtime::new(cfg, threads, program);
    // The report exists from the start (no launches yet): a program that dies before exit leaves
    // it, and `warpsim exec` can tell that the library was loaded.
    save_report(&rt.report);
    Ok(rt)
}

/// Writes `report` where [`ENV_REPORT`] says, if it says.
fn save_report(report: &report::Report) {
    let Some(path) = std::env::var_os(ENV_REPORT) else { return };
    let text = serde_json::to_string_pretty(report).unwrap_or_default();
    if let Err(e) = std::fs::write(&path, text + "\n") {
        eprintln!("warpsim: cannot write the report {}: {e}", std::path::Path::new(&path).display());
    }
}

/// Writes the report at process exit.
extern "C" fn write_report() {
    let guard = RUNTIME.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(Ok(rt)) = guard.as_ref() {
        save_report(&rt.report);
    }
}

/// Writes bytes through the C library's `stdout`, so they interleave with the program's own
/// `printf`s in order.
pub(crate) fn write_stdout(bytes: &[u8]) {
    if bytes.is_empty() {
        return;
    }
    extern "C" {
        static mut stdout: *mut c_void;
        fn fwrite(p: *const c_void, size: usize, n: usize, f: *mut c_void) -> usize;
        fn fflush(f: *mut c_void) -> c_int;
    }
    // SAFETY: glibc's stdout stream, written with its own functions.
    unsafe {
        let f = stdout;
        fwrite(bytes.as_ptr().cast(), 1, bytes.len(), f);
        fflush(f);
    }
}

/// Runs `f` on the runtime for the call `name`: the error it returns is printed (one line),
/// becomes the last error and is returned as its code; a sticky error from a failed launch is
/// returned before anything runs; a panic is `cudaErrorUnknown`.
fn with(name: &str, f: impl FnOnce(&mut Runtime) -> Result<(), Error>) -> CudaError {
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let mut guard = RUNTIME.lock().unwrap_or_else(|e| e.into_inner());
        let rt = guard.get_or_insert_with(start);
        let rt = match rt {
            Ok(rt) => rt,
            Err(e) => {
                eprintln!("warpsim: {name}: cannot start the simulated device: {e}");
                return code::INITIALIZATION_ERROR;
            }
        };
        if let Some(s) = rt.sticky {
            return s;
        }
        match f(rt) {
            Ok(()) => code::SUCCESS,
            Err(e) => {
                eprintln!("warpsim: {name}: {}", e.message);
                rt.last_error = e.code;
                e.code
            }
        }
    }));
    r.unwrap_or_else(|p| {
        let msg = p.downcast_ref::<String>().map(String::as_str).or_else(|| p.downcast_ref::<&str>().copied()).unwrap_or("panic");
        eprintln!("warpsim: {name}: internal error: {msg}");
        code::UNKNOWN
    })
}

/// Writes `v` through `p` unless it is null.
///
/// # Safety
/// `p` is null or valid for a write of `T`.
unsafe fn put<T>(p: *mut T, v: T) -> Result<(), Error> {
    if p.is_null() {
        return Err(Error::new(code::INVALID_VALUE, "null output pointer"));
    }
    unsafe { p.write_unaligned(v) };
    Ok(())
}

/// `count` bytes of host memory at `p`.
///
/// # Safety
/// `p` is valid for reads of `count` bytes (the CUDA contract of the call).
unsafe fn host<'a>(p: *const c_void, count: usize) -> Result<&'a [u8], Error> {
    if count == 0 {
        return Ok(&[]);
    }
    if p.is_null() {
        return Err(Error::new(code::INVALID_VALUE, "null host pointer"));
    }
    Ok(unsafe { std::slice::from_raw_parts(p.cast(), count) })
}

/// # Safety
/// As [`host`], for writes.
unsafe fn host_mut<'a>(p: *mut c_void, count: usize) -> Result<&'a mut [u8], Error> {
    if count == 0 {
        return Ok(&mut []);
    }
    if p.is_null() {
        return Err(Error::new(code::INVALID_VALUE, "null host pointer"));
    }
    Ok(unsafe { std::slice::from_raw_parts_mut(p.cast(), count) })
}

// ---------------------------------------------------------------------------------------------
// Registration (nvcc's host stubs call these from a static constructor).

/// `__fatBinC_Wrapper_t`.
#[repr(C)]
struct Wrapper {
    magic: c_int,
    version: c_int,
    data: *const u8,
    filename_or_fatbins: *const c_void,
}

/// The module handle the program keeps and passes back: a leaked cell holding the index.
fn module_of(handle: *mut *mut c_void) -> usize {
    if handle.is_null() {
        return usize::MAX;
    }
    // SAFETY: handles are the cells `__cudaRegisterFatBinary` returned.
    unsafe { *handle as usize }
}

/// The PTX of the fatbinary behind `wrapper` for the device's compute capability, and the
/// registers ptxas gave each kernel in the cubin for exactly that capability (empty without one).
///
/// # Safety
/// `wrapper` is what nvcc's registration code passes: a `__fatBinC_Wrapper_t` whose data
/// pointer addresses a whole fatbin.
unsafe fn fatbin_module(wrapper: *const c_void, cc: u32) -> Result<runtime::ModuleCode, String> {
    if wrapper.is_null() {
        return Err("null fatbinary".into());
    }
    let w = unsafe { &*(wrapper as *const Wrapper) };
    if w.magic as u32 != fatbin::WRAPPER_MAGIC {
        return Err(format!("wrapper magic {:#x}, not {:#x}", w.magic, fatbin::WRAPPER_MAGIC));
    }
    if w.version != 1 {
        return Err(format!("fatbinary wrapper version {} (relocatable device code, -rdc, is not supported)", w.version));
    }
    let header = unsafe { std::slice::from_raw_parts(w.data, 16) };
    let size = fatbin::total_size(header).map_err(|e| e.to_string())?;
    let bytes = unsafe { std::slice::from_raw_parts(w.data, size) };
    let entries = fatbin::parse(bytes).map_err(|e| e.to_string())?;
    let ptx = fatbin::pick_ptx(&entries, cc).ok_or("the fatbinary holds no PTX (build with -arch=sm_XY, which embeds it)")?;
    let registers = match fatbin::pick_cubin(&entries, cc) {
        Some(c) => fatbin::cubin_registers(&c.payload).map_err(|e| e.to_string())?,
        None => Default::default(),
    };
    Ok(runtime::ModuleCode { ptx: ptx.text().map_err(|e| e.to_string())?.to_string(), registers, cubin_arch: cc })
}

#[no_mangle]
pub extern "C" fn __cudaRegisterFatBinary(wrapper: *mut c_void) -> *mut *mut c_void {
    let mut module = usize::MAX;
    with("__cudaRegisterFatBinary", |rt| {
        // SAFETY: nvcc's registration passes its fatbinary wrapper.
        let code = unsafe { fatbin_module(wrapper, rt.cc()) };
        let origin = format!("{}[ptx {}]", rt.report.program, rt.modules());
        module = rt.register_module(code, &origin);
        Ok(())
    });
    Box::into_raw(Box::new(module as *mut c_void))
}

#[no_mangle]
pub extern "C" fn __cudaRegisterFatBinaryEnd(_handle: *mut *mut c_void) {}

#[no_mangle]
pub extern "C" fn __cudaUnregisterFatBinary(_handle: *mut *mut c_void) {}

#[no_mangle]
pub extern "C" fn __cudaInitModule(_handle: *mut *mut c_void) -> c_char {
    1
}

/// # Safety
/// `name` is a NUL-terminated string (nvcc passes the entry's mangled name).
unsafe fn c_string(name: *const c_char) -> Result<String, Error> {
    if name.is_null() {
        return Err(Error::new(code::INVALID_VALUE, "null name"));
    }
    Ok(unsafe { CStr::from_ptr(name) }.to_string_lossy().into_owned())
}

#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub extern "C" fn __cudaRegisterFunction(
    handle: *mut *mut c_void,
    host_fun: *const c_char,
    _device_fun: *mut c_char,
    device_name: *const c_char,
    _thread_limit: c_int,
    _tid: *mut c_void,
    _bid: *mut c_void,
    _bdim: *mut c_void,
    _gdim: *mut c_void,
    _wsize: *mut c_int,
) {
    with("__cudaRegisterFunction", |rt| {
        // SAFETY: nvcc's registration passes the entry's name.
        let name = unsafe { c_string(device_name)? };
        rt.register_function(module_of(handle), host_fun as usize, name);
        Ok(())
    });
}

#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub extern "C" fn __cudaRegisterVar(
    handle: *mut *mut c_void,
    host_var: *mut c_char,
    _device_address: *mut c_char,
    device_name: *const c_char,
    _ext: c_int,
    size: usize,
    _constant: c_int,
    _global: c_int,
) {
    with("__cudaRegisterVar", |rt| {
        // SAFETY: nvcc's registration passes the variable's name.
        let name = unsafe { c_string(device_name)? };
        rt.register_var(module_of(handle), host_var as usize, name, size as u64);
        Ok(())
    });
}

// ---------------------------------------------------------------------------------------------
// Launches.

#[no_mangle]
pub extern "C" fn __cudaPushCallConfiguration(grid: Dim3, block: Dim3, shared: usize, stream: *mut c_void) -> c_uint {
    with("__cudaPushCallConfiguration", |rt| {
        rt.push_config(CallConfig { grid: grid.arr(), block: block.arr(), shared: shared as u64, stream: stream as usize });
        Ok(())
    }) as c_uint
}

#[no_mangle]
pub extern "C" fn __cudaPopCallConfiguration(grid: *mut Dim3, block: *mut Dim3, shared: *mut usize, stream: *mut *mut c_void) -> CudaError {
    with("__cudaPopCallConfiguration", |rt| {
        let c = rt.pop_config()?;
        let d = |a: [u32; 3]| Dim3 { x: a[0], y: a[1], z: a[2] };
        // SAFETY: the launch stub passes its locals.
        unsafe {
            put(grid, d(c.grid))?;
            put(block, d(c.block))?;
            put(shared, c.shared as usize)?;
            put(stream, c.stream as *mut c_void)
        }
    })
}

/// `cudaKernel_t` handles are the host stubs' addresses.
#[no_mangle]
pub extern "C" fn __cudaGetKernel(kernel: *mut *mut c_void, host_fun: *const c_void) -> CudaError {
    with("__cudaGetKernel", |rt| {
        if !rt.has_function(host_fun as usize) {
            return Err(Error::new(code::INVALID_DEVICE_FUNCTION, format!("{host_fun:p} is not a registered kernel")));
        }
        // SAFETY: the stub passes its static handle.
        unsafe { put(kernel, host_fun as *mut c_void) }
    })
}

#[no_mangle]
pub extern "C" fn cudaGetKernel(kernel: *mut *mut c_void, host_fun: *const c_void) -> CudaError {
    __cudaGetKernel(kernel, host_fun)
}

fn launch(name: &str, func: *const c_void, grid: Dim3, block: Dim3, args: *mut *mut c_void, shared: usize, stream: *mut c_void) -> CudaError {
    with(name, |rt| {
        let c = CallConfig { grid: grid.arr(), block: block.arr(), shared: shared as u64, stream: stream as usize };
        let arg = |i: usize, size: usize| -> Vec<u8> {
            if args.is_null() || size == 0 {
                return vec![0; size];
            }
            // SAFETY: `args` holds one pointer per kernel parameter, each to the argument's bytes.
            unsafe {
                let p = *args.add(i);
                if p.is_null() {
                    vec![0; size]
                } else {
                    std::slice::from_raw_parts(p as *const u8, size).to_vec()
                }
            }
        };
        rt.launch(func as usize, c, &arg)
    })
}

/// The launch entry points: `<<<>>>`'s (`__cudaLaunchKernel`, given `__cudaGetKernel`'s handle,
/// the host stub), the explicit `cudaLaunchKernel`, and their per-thread-default-stream forms
/// (the simulator has one timeline, so these are the same).
macro_rules! launches {
    ($($name:ident),*) => {$(
        #[no_mangle]
        pub extern "C" fn $name(func: *const c_void, grid: Dim3, block: Dim3, args: *mut *mut c_void, shared: usize, stream: *mut c_void) -> CudaError {
            launch(stringify!($name), func, grid, block, args, shared, stream)
        }
    )*};
}

launches!(__cudaLaunchKernel, __cudaLaunchKernel_ptsz, cudaLaunchKernel, cudaLaunchKernel_ptsz);

// ---------------------------------------------------------------------------------------------
// Memory.

#[no_mangle]
pub extern "C" fn cudaMalloc(ptr: *mut *mut c_void, size: usize) -> CudaError {
    with("cudaMalloc", |rt| {
        let a = rt.malloc(size as u64);
        // SAFETY: the caller's output pointer.
        unsafe { put(ptr, a as *mut c_void) }
    })
}

#[no_mangle]
pub extern "C" fn cudaFree(ptr: *mut c_void) -> CudaError {
    with("cudaFree", |rt| rt.free(ptr as u64))
}

extern "C" {
    fn malloc(n: usize) -> *mut c_void;
    fn free(p: *mut c_void);
}

/// Page-locked host memory is plain host memory here.
#[no_mangle]
pub extern "C" fn cudaMallocHost(ptr: *mut *mut c_void, size: usize) -> CudaError {
    with("cudaMallocHost", |_| {
        // SAFETY: the C allocator; the caller's output pointer.
        let p = unsafe { malloc(size.max(1)) };
        if p.is_null() {
            return Err(Error::new(code::MEMORY_ALLOCATION, format!("{size} bytes of host memory")));
        }
        unsafe { put(ptr, p) }
    })
}

#[no_mangle]
pub extern "C" fn cudaHostAlloc(ptr: *mut *mut c_void, size: usize, _flags: c_uint) -> CudaError {
    cudaMallocHost(ptr, size)
}

#[no_mangle]
pub extern "C" fn cudaFreeHost(ptr: *mut c_void) -> CudaError {
    with("cudaFreeHost", |_| {
        // SAFETY: a pointer cudaMallocHost returned (the CUDA contract).
        unsafe { free(ptr) };
        Ok(())
    })
}

/// The sides of a copy of kind `kind` (`cudaMemcpyDefault` decides by the addresses).
fn sides(rt: &Runtime, kind: c_int, dst: u64, src: u64) -> Result<(Side, Side), Error> {
    use Side::*;
    Ok(match kind {
        0 => (Host, Host),
        1 => (Device, Host),
        2 => (Host, Device),
        3 => (Device, Device),
        4 => (if rt.is_device(dst) { Device } else { Host }, if rt.is_device(src) { Device } else { Host }),
        k => return Err(Error::new(code::INVALID_MEMCPY_DIRECTION, format!("copy kind {k}"))),
    })
}

/// A copy of `count` bytes between host and simulated device memory.
fn copy(rt: &mut Runtime, dst: *mut c_void, src: *const c_void, count: usize, kind: c_int) -> Result<(), Error> {
    let (d, s) = sides(rt, kind, dst as u64, src as u64)?;
    // SAFETY: host pointers are valid for `count` bytes (the CUDA contract of the copy).
    unsafe {
        match (d, s) {
            (Side::Host, Side::Host) => host_mut(dst, count)?.copy_from_slice(host(src, count)?),
            (Side::Device, Side::Host) => rt.write_device(dst as u64, host(src, count)?)?,
            (Side::Host, Side::Device) => rt.read_device(src as u64, host_mut(dst, count)?)?,
            (Side::Device, Side::Device) => {
                let mut tmp = vec![0u8; count];
                rt.read_device(src as u64, &mut tmp)?;
                rt.write_device(dst as u64, &tmp)?;
            }
        }
    }
    Ok(())
}

#[no_mangle]
pub extern "C" fn cudaMemcpy(dst: *mut c_void, src: *const c_void, count: usize, kind: c_int) -> CudaError {
    with("cudaMemcpy", |rt| copy(rt, dst, src, count, kind))
}

/// Asynchronous copies complete at once (launches already have).
#[no_mangle]
pub extern "C" fn cudaMemcpyAsync(dst: *mut c_void, src: *const c_void, count: usize, kind: c_int, stream: *mut c_void) -> CudaError {
    with("cudaMemcpyAsync", |rt| {
        rt.stream_sync(stream as usize)?;
        copy(rt, dst, src, count, kind)
    })
}

#[no_mangle]
pub extern "C" fn cudaMemset(ptr: *mut c_void, value: c_int, count: usize) -> CudaError {
    with("cudaMemset", |rt| rt.write_device(ptr as u64, &vec![value as u8; count]))
}

#[no_mangle]
pub extern "C" fn cudaMemsetAsync(ptr: *mut c_void, value: c_int, count: usize, stream: *mut c_void) -> CudaError {
    with("cudaMemsetAsync", |rt| {
        rt.stream_sync(stream as usize)?;
        rt.write_device(ptr as u64, &vec![value as u8; count])
    })
}

/// Row pitch of `cudaMallocPitch`: rows aligned to 512 bytes (the texture pitch alignment CUDA
/// devices report; the figure only has to be a valid pitch).
const PITCH_ALIGN: usize = 512;

#[no_mangle]
pub extern "C" fn cudaMallocPitch(ptr: *mut *mut c_void, pitch: *mut usize, width: usize, height: usize) -> CudaError {
    with("cudaMallocPitch", |rt| {
        let p = width.div_ceil(PITCH_ALIGN).max(1) * PITCH_ALIGN;
        let a = rt.malloc((p * height) as u64);
        // SAFETY: the caller's output pointers.
        unsafe {
            put(pitch, p)?;
            put(ptr, a as *mut c_void)
        }
    })
}

/// `height` rows of `width` bytes between pitched buffers, row by row as [`copy`] copies.
#[allow(clippy::too_many_arguments)]
fn copy_2d(rt: &mut Runtime, dst: *mut c_void, dpitch: usize, src: *const c_void, spitch: usize, width: usize, height: usize, kind: c_int) -> Result<(), Error> {
    if width > dpitch || width > spitch {
        return Err(Error::new(code::INVALID_PITCH_VALUE, format!("rows of {width} bytes, pitches {dpitch} and {spitch}")));
    }
    for row in 0..height {
        copy(rt, (dst as usize + row * dpitch) as *mut c_void, (src as usize + row * spitch) as *const c_void, width, kind)?;
    }
    Ok(())
}

#[no_mangle]
pub extern "C" fn cudaMemcpy2D(dst: *mut c_void, dpitch: usize, src: *const c_void, spitch: usize, width: usize, height: usize, kind: c_int) -> CudaError {
    with("cudaMemcpy2D", |rt| copy_2d(rt, dst, dpitch, src, spitch, width, height, kind))
}

#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub extern "C" fn cudaMemcpy2DAsync(dst: *mut c_void, dpitch: usize, src: *const c_void, spitch: usize, width: usize, height: usize, kind: c_int, stream: *mut c_void) -> CudaError {
    with("cudaMemcpy2DAsync", |rt| {
        rt.stream_sync(stream as usize)?;
        copy_2d(rt, dst, dpitch, src, spitch, width, height, kind)
    })
}

#[no_mangle]
pub extern "C" fn cudaMemset2D(ptr: *mut c_void, pitch: usize, value: c_int, width: usize, height: usize) -> CudaError {
    with("cudaMemset2D", |rt| {
        if width > pitch {
            return Err(Error::new(code::INVALID_PITCH_VALUE, format!("rows of {width} bytes, pitch {pitch}")));
        }
        (0..height).try_for_each(|row| rt.write_device(ptr as u64 + (row * pitch) as u64, &vec![value as u8; width]))
    })
}

/// Which way a symbol copy goes: into the variable, or out of it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum SymbolCopy {
    To,
    From,
}

/// `count` bytes between `other` and variable `symbol` at `offset`, after the stream's work. The
/// kind names the other side (host or device); the variable's side is the device.
#[allow(clippy::too_many_arguments)]
fn symbol_copy(name: &str, way: SymbolCopy, other: *mut c_void, symbol: *const c_void, count: usize, offset: usize, kind: c_int, stream: usize) -> CudaError {
    with(name, |rt| {
        rt.stream_sync(stream)?;
        let a = rt.symbol_range(symbol as usize, count as u64, offset as u64)? as *mut c_void;
        match way {
            SymbolCopy::To => copy(rt, a, other, count, if kind == 4 { 4 } else { kind | 1 }),
            SymbolCopy::From => copy(rt, other, a, count, if kind == 4 { 4 } else { kind | 2 }),
        }
    })
}

#[no_mangle]
pub extern "C" fn cudaMemcpyToSymbol(symbol: *const c_void, src: *const c_void, count: usize, offset: usize, kind: c_int) -> CudaError {
    symbol_copy("cudaMemcpyToSymbol", SymbolCopy::To, src as *mut c_void, symbol, count, offset, kind, 0)
}

#[no_mangle]
pub extern "C" fn cudaMemcpyToSymbolAsync(symbol: *const c_void, src: *const c_void, count: usize, offset: usize, kind: c_int, stream: *mut c_void) -> CudaError {
    symbol_copy("cudaMemcpyToSymbolAsync", SymbolCopy::To, src as *mut c_void, symbol, count, offset, kind, stream as usize)
}

#[no_mangle]
pub extern "C" fn cudaMemcpyFromSymbol(dst: *mut c_void, symbol: *const c_void, count: usize, offset: usize, kind: c_int) -> CudaError {
    symbol_copy("cudaMemcpyFromSymbol", SymbolCopy::From, dst, symbol, count, offset, kind, 0)
}

#[no_mangle]
pub extern "C" fn cudaMemcpyFromSymbolAsync(dst: *mut c_void, symbol: *const c_void, count: usize, offset: usize, kind: c_int, stream: *mut c_void) -> CudaError {
    symbol_copy("cudaMemcpyFromSymbolAsync", SymbolCopy::From, dst, symbol, count, offset, kind, stream as usize)
}

#[no_mangle]
pub extern "C" fn cudaGetSymbolAddress(ptr: *mut *mut c_void, symbol: *const c_void) -> CudaError {
    with("cudaGetSymbolAddress", |rt| {
        let (a, _) = rt.symbol(symbol as usize)?;
        // SAFETY: the caller's output pointer.
        unsafe { put(ptr, a as *mut c_void) }
    })
}

#[no_mangle]
pub extern "C" fn cudaGetSymbolSize(size: *mut usize, symbol: *const c_void) -> CudaError {
    with("cudaGetSymbolSize", |rt| {
        let (_, n) = rt.symbol(symbol as usize)?;
        // SAFETY: the caller's output pointer.
        unsafe { put(size, n as usize) }
    })
}

#[no_mangle]
pub extern "C" fn cudaMemGetInfo(free_bytes: *mut usize, total: *mut usize) -> CudaError {
    with("cudaMemGetInfo", |rt| {
        let t = device_memory_bytes(&rt.cfg) as usize;
        // SAFETY: the caller's output pointers.
        unsafe {
            put(free_bytes, t)?;
            put(total, t)
        }
    })
}

// ---------------------------------------------------------------------------------------------
// Streams and events.

/// Makes a stream or event with `make` and writes its handle through `out`.
fn create(name: &str, out: *mut *mut c_void, make: fn(&mut Runtime) -> usize) -> CudaError {
    with(name, |rt| {
        let h = make(rt);
        // SAFETY: the caller's output pointer.
        unsafe { put(out, h as *mut c_void) }
    })
}

#[no_mangle]
pub extern "C" fn cudaStreamCreate(stream: *mut *mut c_void) -> CudaError {
    create("cudaStreamCreate", stream, Runtime::stream_create)
}

#[no_mangle]
pub extern "C" fn cudaStreamCreateWithFlags(stream: *mut *mut c_void, _flags: c_uint) -> CudaError {
    cudaStreamCreate(stream)
}

#[no_mangle]
pub extern "C" fn cudaStreamCreateWithPriority(stream: *mut *mut c_void, _flags: c_uint, _priority: c_int) -> CudaError {
    cudaStreamCreate(stream)
}

#[no_mangle]
pub extern "C" fn cudaStreamDestroy(stream: *mut c_void) -> CudaError {
    with("cudaStreamDestroy", |rt| rt.stream_destroy(stream as usize))
}

#[no_mangle]
pub extern "C" fn cudaStreamSynchronize(stream: *mut c_void) -> CudaError {
    with("cudaStreamSynchronize", |rt| rt.stream_sync(stream as usize))
}

#[no_mangle]
pub extern "C" fn cudaStreamQuery(stream: *mut c_void) -> CudaError {
    with("cudaStreamQuery", |rt| rt.stream_sync(stream as usize))
}

#[no_mangle]
pub extern "C" fn cudaStreamWaitEvent(stream: *mut c_void, event: *mut c_void, _flags: c_uint) -> CudaError {
    with("cudaStreamWaitEvent", |rt| rt.stream_wait_event(stream as usize, event as usize))
}

#[no_mangle]
pub extern "C" fn cudaEventCreate(event: *mut *mut c_void) -> CudaError {
    create("cudaEventCreate", event, Runtime::event_create)
}

#[no_mangle]
pub extern "C" fn cudaEventCreateWithFlags(event: *mut *mut c_void, _flags: c_uint) -> CudaError {
    cudaEventCreate(event)
}

#[no_mangle]
pub extern "C" fn cudaEventDestroy(event: *mut c_void) -> CudaError {
    with("cudaEventDestroy", |rt| rt.event_destroy(event as usize))
}

#[no_mangle]
pub extern "C" fn cudaEventRecord(event: *mut c_void, stream: *mut c_void) -> CudaError {
    with("cudaEventRecord", |rt| rt.event_record(event as usize, stream as usize))
}

#[no_mangle]
pub extern "C" fn cudaEventRecordWithFlags(event: *mut c_void, stream: *mut c_void, _flags: c_uint) -> CudaError {
    with("cudaEventRecordWithFlags", |rt| rt.event_record(event as usize, stream as usize))
}

#[no_mangle]
pub extern "C" fn cudaEventSynchronize(event: *mut c_void) -> CudaError {
    with("cudaEventSynchronize", |rt| rt.event_sync(event as usize))
}

#[no_mangle]
pub extern "C" fn cudaEventQuery(event: *mut c_void) -> CudaError {
    with("cudaEventQuery", |rt| rt.event_sync(event as usize))
}

#[no_mangle]
pub extern "C" fn cudaEventElapsedTime(ms: *mut f32, start: *mut c_void, end: *mut c_void) -> CudaError {
    with("cudaEventElapsedTime", |rt| {
        let t = rt.elapsed_ms(start as usize, end as usize)?;
        // SAFETY: the caller's output pointer.
        unsafe { put(ms, t) }
    })
}

// ---------------------------------------------------------------------------------------------
// Device management and queries.

/// Calls that succeed with nothing to do: the device runs each launch to completion at once,
/// holds no state to reset, and picks cache carve-outs, printf FIFO, heap and stack sizes itself.
macro_rules! accepted {
    ($($name:ident($($arg:ident: $ty:ty),*)),* $(,)?) => {$(
        #[no_mangle]
        pub extern "C" fn $name($($arg: $ty),*) -> CudaError {
            $(let _ = $arg;)*
            with(stringify!($name), |_| Ok(()))
        }
    )*};
}

accepted!(
    cudaDeviceSynchronize(),
    cudaDeviceReset(),
    cudaSetDeviceFlags(flags: c_uint),
    cudaDeviceSetCacheConfig(config: c_int),
    cudaFuncSetCacheConfig(func: *const c_void, config: c_int),
    cudaDeviceSetLimit(limit: c_int, value: usize),
);

/// Calls that answer one integer: one device, numbered 0, of CUDA 13.0.
macro_rules! answers {
    ($($name:ident = $v:expr),* $(,)?) => {$(
        #[no_mangle]
        pub extern "C" fn $name(out: *mut c_int) -> CudaError {
            // SAFETY: the caller's output pointer.
            with(stringify!($name), |_| unsafe { put(out, $v) })
        }
    )*};
}

answers!(cudaGetDeviceCount = 1, cudaGetDevice = 0, cudaDriverGetVersion = 13000, cudaRuntimeGetVersion = 13000);


fn check_device(device: c_int) -> Result<(), Error> {
    if device == 0 {
        Ok(())
    } else {
        Err(Error::new(code::INVALID_DEVICE, format!("device {device}: the simulator has one device, 0")))
    }
}

#[no_mangle]
pub extern "C" fn cudaSetDevice(device: c_int) -> CudaError {
    with("cudaSetDevice", |_| check_device(device))
}

#[no_mangle]
pub extern "C" fn cudaInitDevice(device: c_int, _flags: c_uint, _more: c_uint) -> CudaError {
    with("cudaInitDevice", |_| check_device(device))
}


/// `cudaFuncAttributeMaxDynamicSharedMemorySize` and the carve-out preference: launches are
/// checked against the preset's per-block limit whatever the program asked.
#[no_mangle]
pub extern "C" fn cudaFuncSetAttribute(func: *const c_void, _attr: c_int, _value: c_int) -> CudaError {
    with("cudaFuncSetAttribute", |rt| {
        if rt.has_function(func as usize) {
            Ok(())
        } else {
            Err(Error::new(code::INVALID_DEVICE_FUNCTION, format!("{func:p} is not a registered kernel")))
        }
    })
}


/// Device memory the preset's device has: the H200's 141 GB for Hopper, 80 GB otherwise (the
/// presets model no capacity; no simulated allocation comes near either).
fn device_memory_bytes(cfg: &warpsim_sim::config::ArchConfig) -> u64 {
    if cfg.generation == "hopper" {
        141 << 30
    } else {
        80 << 30
    }
}

pub mod props;

#[no_mangle]
pub extern "C" fn cudaGetDeviceProperties(prop: *mut props::CudaDeviceProp, device: c_int) -> CudaError {
    with("cudaGetDeviceProperties", |rt| {
        check_device(device)?;
        // SAFETY: the caller's output pointer to a cudaDeviceProp.
        unsafe { put(prop, props::properties(&rt.cfg, device_memory_bytes(&rt.cfg))) }
    })
}

#[no_mangle]
pub extern "C" fn cudaDeviceGetAttribute(value: *mut c_int, attr: c_int, device: c_int) -> CudaError {
    with("cudaDeviceGetAttribute", |rt| {
        check_device(device)?;
        let v = props::attribute(&rt.cfg, attr).ok_or_else(|| Error::new(code::NOT_SUPPORTED, format!("device attribute {attr} is not modelled")))?;
        // SAFETY: the caller's output pointer.
        unsafe { put(value, v) }
    })
}

#[no_mangle]
pub extern "C" fn cudaFuncGetAttributes(attr: *mut props::CudaFuncAttributes, func: *const c_void) -> CudaError {
    with("cudaFuncGetAttributes", |rt| {
        let a = rt.func_attributes(func as usize)?;
        // SAFETY: the caller's output pointer.
        unsafe { put(attr, props::func_attributes(&a, &rt.cfg)) }
    })
}

#[no_mangle]
pub extern "C" fn cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks: *mut c_int, func: *const c_void, block: c_int, dynamic: usize) -> CudaError {
    with("cudaOccupancyMaxActiveBlocksPerMultiprocessor", |rt| {
        let n = rt.occupancy(func as usize, block.max(1) as u32, dynamic as u64)?;
        // SAFETY: the caller's output pointer.
        unsafe { put(blocks, n as c_int) }
    })
}

#[no_mangle]
pub extern "C" fn cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(blocks: *mut c_int, func: *const c_void, block: c_int, dynamic: usize, _flags: c_uint) -> CudaError {
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, func, block, dynamic)
}

// ---------------------------------------------------------------------------------------------
// Errors.

#[no_mangle]
pub extern "C" fn cudaGetLastError() -> CudaError {
    let mut last = code::SUCCESS;
    let sticky = with("cudaGetLastError", |rt| {
        last = std::mem::take(&mut rt.last_error);
        Ok(())
    });
    if sticky != code::SUCCESS {
        sticky
    } else {
        last
    }
}

#[no_mangle]
pub extern "C" fn cudaPeekAtLastError() -> CudaError {
    let mut last = code::SUCCESS;
    let sticky = with("cudaPeekAtLastError", |rt| {
        last = rt.last_error;
        Ok(())
    });
    if sticky != code::SUCCESS {
        sticky
    } else {
        last
    }
}

#[no_mangle]
pub extern "C" fn cudaGetErrorString(e: c_int) -> *const c_char {
    error::description(e).as_ptr()
}

#[no_mangle]
pub extern "C" fn cudaGetErrorName(e: c_int) -> *const c_char {
    error::name(e).as_ptr()
}
