//! warpsim-validate: the hardware loop.
//!
//! Runs the same workloads the simulator runs (same PTX text, launch and input bytes) on a real
//! GPU through the CUDA driver, loaded at run time by cudarc, so this crate builds and its tests
//! pass on machines without CUDA. For each workload the [`runner`] records in a [`Dataset`]
//! whether the outputs pass the reference and equal the simulator's functional outputs bit for
//! bit, the kernel's registers and memory, and launch times after an L2 flush; [`ncu`] reads
//! Nsight Compute's CSV and [`merge`] adds its counters (cycles first). The dataset schema is
//! documented in README.md; `collect.sh` is the script that runs it all on a GPU machine.
//!
//! Modules: [`params`] (PTX parameter layout and packing), [`runner`] (the per-workload loop
//! and the dry-run device of the self-check), [`gpu`] (the CUDA driver device), [`dataset`],
//! [`ncu`], [`merge`], [`sass`] (executed SASS per workload, behind the machine-op classes), [`correlate`],
//! [`published`] (the papers' microbenchmark figures against every preset),
//! [`error`].

pub mod calibrate;
pub mod correlate;
pub mod dataset;
pub mod error;
pub mod gpu;
pub mod merge;
pub mod ncu;
pub mod params;
pub mod published;
pub mod runner;
pub mod sass;

pub use dataset::{Dataset, DeviceInfo, OutputRecord, RefStatus, WorkloadRecord};
pub use error::{chain, Error};
pub use gpu::{driver_present, Cuda};
pub use runner::{run_all, DryRun, Options};
