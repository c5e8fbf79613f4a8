//! warpsim-sim: the GPU model.
//!
//! Owns device memory, the functional execution of warps (SIMT stack, registers, shared/local/
//! param/const spaces, barriers, atomics, warp collectives), and — built on the same execution
//! step — the timing model of SMs and the memory system. It reads no files: programs come
//! lowered from `warpsim-isa`, launches as plain data.
//!
//! Where things live:
//! - configuration: `config` (`ArchConfig`), `params` (the key table), `presets`, `features`;
//! - functional execution: `warp` (architectural state), `exec` (one instruction), `exec_async`
//!   (mbarriers, `cp.async`, bulk and TMA copies), `exec_tensor` and `tensor` (matrix
//!   instructions), `tma` (tensor-map layout), `mbarrier`, `cta`, `memory`, `printf`, `fault`,
//!   `functional` (a whole grid without timing);
//! - the timing model: `engine` (time windows, SMs in parallel) → `gpc` (SMs in cycle order,
//!   clusters) → `sm` (one SM, split by hardware unit: `sm/scheduler.rs`, `sm/scoreboard.rs`,
//!   `sm/pipes.rs`, `sm/lsu.rs`, `sm/async_copy.rs`, `sm/tensor.rs`; map in `sm/mod.rs`) →
//!   `l2` (crossbar, slices, partitions) → `dram`; with `banks`, `coalescer`, `cache`,
//!   `overlay` (an SM's view of memory in a window), `cluster`, `occupancy`, `counters`, `flops`,
//!   `watchdog`;
//! - running workloads: `kernel`, `launch`, `gpu`, `record`.

pub mod config;
pub mod counters;
pub mod banks;
pub mod coalescer;
pub mod cache;
pub mod cluster;
pub mod cta;
pub mod dram;
pub mod l2;
pub mod exec;
pub mod exec_async;
pub mod exec_tensor;
pub mod mbarrier;
pub mod tma;
pub mod fault;
pub mod features;
pub mod flops;
pub mod kernel;
pub mod memory;
pub mod params;
pub mod presets;
pub mod printf;
pub mod record;
pub mod warp;
pub mod watchdog;

pub use fault::{Fault, FaultKind};
pub use kernel::{Kernel, LaunchDims};
pub use memory::DeviceMemory;
pub mod functional;
pub mod gpu;
pub use gpu::Gpu;
pub mod engine;
pub mod gpc;
pub mod occupancy;
pub mod overlay;
pub mod placement;
pub mod sm;
pub mod launch;
pub mod tensor;

/// Revision of the timing semantics: bump it with any change that alters simulated cycles or
/// counters, so that caches of simulated results (`warpsim sweep`) stop matching.
pub const TIMING_REVISION: u32 = 41;
