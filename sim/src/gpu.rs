//! `Gpu`: device memory plus the entry points that run kernels on it.

use std::sync::Arc;

use warpsim_isa::Program;

use crate::fault::Fault;
use crate::functional::{self, FunctionalStats};
use crate::kernel::{load_symbols_into, Kernel, LaunchDims, Placed};
use crate::memory::DeviceMemory;

/// A simulated device: its memory, SM count, and what special registers read of its shape.
pub struct Gpu {
    pub mem: DeviceMemory,
    pub nsm: u32,
    /// SM clock (MHz): `%globaltimer` counts nanoseconds of it.
    pub sm_mhz: f64,
    /// Warp slots per SM: `%nwarpid`.
    pub max_warps: u32,
}

impl Gpu {
    /// A device of `nsm` SMs, otherwise shaped like the H200 (1980 MHz, 64 warps per SM).
    pub fn new(nsm: u32) -> Gpu {
        Gpu { mem: DeviceMemory::new(), nsm, sm_mhz: 1980.0, max_warps: 64 }
    }

    /// A device of `cfg`'s shape: its SM count, clock and warp slots.
    pub fn of(cfg: &crate::config::ArchConfig) -> Gpu {
        Gpu { mem: DeviceMemory::new(), nsm: cfg.sm.count, sm_mhz: cfg.clock.sm_mhz, max_warps: cfg.sm.max_warps }
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
        self.kernel_sharing(prog, dims, params, &mut Placed::new())
    }

    /// [`Gpu::kernel`] for a kernel of a module whose variables may already be on the device
    /// (`placed`, see [`load_symbols_into`]): a program's launches share them.
    pub fn kernel_sharing(&mut self, prog: Arc<Program>, dims: LaunchDims, params: Vec<u8>, placed: &mut Placed) -> Result<Kernel, Fault> {
        let syms = load_symbols_into(&prog, &mut self.mem, placed);
        let mut k = Kernel::new(prog, dims, params, syms, self.nsm)?;
        (k.sm_mhz, k.max_warps) = (self.sm_mhz, self.max_warps);
        Ok(k)
    }

    /// Runs a launch functionally (no timing), under the watchdog's default limits.
    pub fn run_functional(&mut self, prog: Arc<Program>, dims: LaunchDims, params: Vec<u8>) -> Result<FunctionalStats, Fault> {
        let k = self.kernel(prog, dims, params)?;
        functional::run(&k, &mut self.mem, &crate::watchdog::Limits::default())
    }
}
