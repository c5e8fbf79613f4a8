//! `Gpu`: device memory plus the entry points that run kernels on it.

use std::sync::Arc;

use warpsim_isa::Program;

use crate::fault::Fault;
use crate::functional::{self, FunctionalStats};
use crate::kernel::{load_symbols, Kernel, LaunchDims};
use crate::memory::DeviceMemory;

/// A simulated device: its memory and SM count.
pub struct Gpu {
    pub mem: DeviceMemory,
    pub nsm: u32,
}

impl Gpu {
    pub fn new(nsm: u32) -> Gpu {
        Gpu { mem: DeviceMemory::new(), nsm }
    }

    /// Allocates a buffer and copies `bytes` into it; returns its device address.
    pub fn upload(&mut self, name: &str, size: u64, bytes: &[u8]) -> u64 {
        let a = self.mem.alloc(name, size, 256);
        self.mem.write(a, &bytes[..bytes.len().min(size as usize)]);
        a
    }

    /// Copies `len` bytes back from the device.
    pub fn download(&self, addr: u64, len: u64) -> Vec<u8> {
        let mut v = vec![0u8; len as usize];
        self.mem.read(addr, &mut v);
        v
    }

    /// Loads the program's globals and builds a kernel for a launch.
    pub fn kernel(&mut self, prog: Arc<Program>, dims: LaunchDims, params: Vec<u8>) -> Result<Kernel, Fault> {
        let syms = load_symbols(&prog, &mut self.mem);
        Kernel::new(prog, dims, params, syms, self.nsm)
    }

    /// Runs a launch functionally (no timing), under the watchdog's default limits.
    pub fn run_functional(&mut self, prog: Arc<Program>, dims: LaunchDims, params: Vec<u8>) -> Result<FunctionalStats, Fault> {
        let k = self.kernel(prog, dims, params)?;
        functional::run(&k, &mut self.mem, &crate::watchdog::Limits::default())
    }
}
