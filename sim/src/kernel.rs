//! A kernel ready to run: the program, its launch shape, its parameter buffer and where every
//! symbol lives. Immutable while the kernel runs, so SMs can share it across threads.

use std::sync::Arc;

use warpsim_isa::program::{Program, SymKind};

use crate::fault::{Fault, FaultKind};
use crate::memory::{DeviceMemory, FUNC_BASE};

/// Grid, block and cluster dimensions and dynamic shared memory of a launch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LaunchDims {
    pub grid: [u32; 3],
    pub block: [u32; 3],
    /// Cluster shape in CTAs (1,1,1 when the kernel uses no clusters).
    pub cluster: [u32; 3],
    pub dynamic_smem: u32,
}

impl LaunchDims {
    pub fn threads_per_cta(&self) -> u32 {
        self.block.iter().product()
    }
    pub fn warps_per_cta(&self) -> u32 {
        self.threads_per_cta().div_ceil(32)
    }
    pub fn ctas(&self) -> u64 {
        self.grid.iter().map(|&x| x as u64).product()
    }
    pub fn cluster_size(&self) -> u32 {
        self.cluster.iter().product()
    }
    /// 3-D index of a linear CTA id (x fastest).
    pub fn cta_index(&self, linear: u64) -> [u32; 3] {
        let [gx, gy, _] = self.grid;
        [(linear % gx as u64) as u32, ((linear / gx as u64) % gy as u64) as u32, (linear / (gx as u64 * gy as u64)) as u32]
    }
}

/// Per-thread local memory (CUDA's limit on every generation since Fermi: 512 KiB).
pub const LOCAL_LIMIT: u64 = 512 * 1024;

/// A loaded kernel.
pub struct Kernel {
    pub prog: Arc<Program>,
    pub dims: LaunchDims,
    pub params: Vec<u8>,
    /// Per symbol: device address (globals, constants), shared offset, parameter offset, frame
    /// offset, or function pointer value, by the symbol's kind.
    pub sym_addr: Vec<u64>,
    /// Shared memory per CTA (static + dynamic).
    pub smem_bytes: u32,
    /// Number of SMs (for `%nsmid`, `%smid`).
    pub nsm: u32,
    /// SM clock (MHz) that `%globaltimer` converts cycles to nanoseconds with.
    pub sm_mhz: f64,
    /// Warp slots per SM (`%nwarpid`).
    pub max_warps: u32,
    /// Per-thread local memory limit in bytes.
    pub local_limit: u64,
    /// Per register: the mask of its declared width, or 0 for predicates (stored as 0/1).
    pub reg_mask: Vec<u64>,
    /// What the launch's `printf` calls printed.
    pub printf: crate::printf::PrintfSink,
}

/// Module variables already in device memory, by name: the globals and constants of one PTX
/// module, which every kernel of the module (and every launch of a program) shares.
pub type Placed = std::collections::HashMap<String, u64>;

/// Places a program's globals and constants in device memory (with initial bytes and address
/// relocations) and computes every symbol's address. A global or constant named in `placed` (a
/// variable of the module already on the device) keeps its address and contents; the others are
/// placed, initialized and added.
pub fn load_symbols_into(prog: &Program, mem: &mut DeviceMemory, placed: &mut Placed) -> Vec<u64> {
    let mut addr = vec![0u64; prog.symbols.len()];
    let mut fresh = vec![false; prog.symbols.len()];
    for (i, s) in prog.symbols.iter().enumerate() {
        addr[i] = match s.kind {
            SymKind::Global | SymKind::Const => match placed.get(&s.name) {
                Some(&a) => a,
                None => {
                    let a = mem.alloc(&s.name, s.size, s.align as u64);
                    mem.write(a, &s.init);
                    placed.insert(s.name.clone(), a);
                    fresh[i] = true;
                    a
                }
            },
            SymKind::Func => FUNC_BASE + s.offset * 16,
            _ => s.offset,
        };
    }
    for (i, s) in prog.symbols.iter().enumerate().filter(|&(i, _)| fresh[i]) {
        for &(off, target, addend, _generic) in &s.relocs {
            let v = addr[target as usize].wrapping_add(addend as u64);
            let n = (s.ty.bytes() as usize).clamp(4, 8);
            mem.write_uint(addr[i] + off, n, v);
        }
    }
    addr
}

impl Kernel {
    /// Validates the launch shape against the program and builds the kernel.
    pub fn new(
        prog: Arc<Program>,
        dims: LaunchDims,
        params: Vec<u8>,
        sym_addr: Vec<u64>,
        nsm: u32,
    ) -> Result<Kernel, Fault> {
        let bad = |msg: String| Err(Fault::global(&prog.name, FaultKind::BadLaunch(msg)));
        if dims.grid.contains(&0) || dims.block.contains(&0) || dims.cluster.contains(&0) {
            return bad(format!("zero dimension in grid {:?} / block {:?} / cluster {:?}", dims.grid, dims.block, dims.cluster));
        }
        if dims.threads_per_cta() > 1024 {
            return bad(format!("{} threads per block exceed 1024", dims.threads_per_cta()));
        }
        if dims.block[2] > 64 {
            return bad(format!("block {:?}: its z extent exceeds 64", dims.block));
        }
        if dims.grid[0] > i32::MAX as u32 || dims.grid[1] > 65535 || dims.grid[2] > 65535 {
            return bad(format!("grid {:?} exceeds the largest a GPU launches ([2147483647, 65535, 65535])", dims.grid));
        }
        for k in 0..3 {
            if !dims.grid[k].is_multiple_of(dims.cluster[k]) {
                return bad(format!("grid {:?} is not a multiple of the cluster shape {:?}", dims.grid, dims.cluster));
            }
        }
        if let Some(r) = prog.directives.reqntid {
            if r != dims.block {
                return bad(format!("block {:?} differs from the kernel's .reqntid {:?}", dims.block, r));
            }
        }
        if let Some(m) = prog.directives.maxntid {
            if dims.threads_per_cta() > m.iter().product::<u32>() {
                return bad(format!("block {:?} exceeds the kernel's .maxntid {:?}", dims.block, m));
            }
        }
        if (params.len() as u64) < prog.param_bytes {
            return bad(format!("parameter buffer has {} bytes, the kernel takes {}", params.len(), prog.param_bytes));
        }
        let smem = prog.dynamic_smem_base + dims.dynamic_smem as u64;
        let Ok(smem_bytes) = u32::try_from(smem) else {
            return bad(format!("{smem} bytes of shared memory per block"));
        };
        let frame = prog.funcs.first().map_or(0, |f| f.frame_size);
        if frame > LOCAL_LIMIT {
            return bad(format!("{frame} bytes of local memory per thread exceed the {LOCAL_LIMIT} a thread may use"));
        }
        let reg_mask = prog.regs.iter().map(|r| if r.ty == warpsim_isa::types::Ty::Pred { 0 } else { r.ty.mask() }).collect();
        // The H200's clock and warp slots until the device sets its own (`Gpu::kernel`).
        Ok(Kernel { prog, dims, params, sym_addr, smem_bytes, nsm, sm_mhz: 1980.0, max_warps: 64, local_limit: LOCAL_LIMIT, reg_mask, printf: Default::default() })
    }
}
