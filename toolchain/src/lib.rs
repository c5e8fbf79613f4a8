//! warpsim-toolchain: the CUDA compiler tools on this machine, and what ptxas says a kernel uses.
//!
//! A user's kernel arrives as PTX with no GPU in sight. ptxas runs without one (it is on PyPI), and
//! it is the only source of the figures the hardware's occupancy depends on: registers per thread,
//! spill stores and loads, stack frame, static shared memory and named barriers. This crate finds
//! the tools ([`discover`]: `--cuda-root`/`WARPSIM_CUDA`, `CUDA_HOME`/`CUDA_PATH`, `PATH`, then the
//! pip-installed NVIDIA wheels; `WARPSIM_CUDA=none` turns it off), runs ptxas on a workload's PTX
//! for the simulated target ([`ptxas`]), caches its answers under the user's cache directory, and
//! fills the workload's launch resources ([`resolve`]), and turns PTX into the SASS listing
//! nvdisasm prints for it ([`sass`]; `warpsim-sass` parses it). It is the only crate that starts external
//! programs for the simulator; it knows nothing of timing (the simulator estimates registers
//! itself when this crate has no answer) and nothing of GPUs at run time (`warpsim-validate`).

pub mod discover;
pub mod ptxas;
mod resolve;
pub mod sass;

pub use discover::{Tool, ToolKind, Toolchain};
pub use ptxas::{EntryResources, PtxasError};
pub use resolve::{resolve, Resolution};
