//! warpsim-workloads: the contract between the simulator and the hardware.
//!
//! A workload is a TOML manifest naming a PTX kernel, its launch shape, every device buffer with
//! a deterministic initialiser, the kernel's arguments in PTX order, and how to check the outputs.
//! This crate parses and validates manifests (errors are values located at file:line:column and
//! a key path), generates input bytes that the simulator and the GPU runner reproduce exactly,
//! computes CPU references and compares outputs with them, and embeds the bundled suite
//! (`suite/<dir>/{kernel.cu, kernel.ptx, <case>.toml}`). It knows nothing of timing, of the
//! simulator, or of CUDA: it never runs a kernel. The manifest schema is in README.md.

mod check;
mod data;
mod dtype;
mod error;
mod init;
mod manifest;
pub mod ptx;
mod reference;
mod reference_blind;
mod reference_blind3;
mod reference_blind4;
mod reference_blind5;
mod reference_blind6;
mod reference_blind8;
mod reference_multi;
mod reference_membench;
mod reference_micro;
mod reference_hopper;
pub mod rng;
pub mod sized;
mod workload;

pub use check::{BufferCheck, CheckReport, CheckStatus, Mismatch, MAX_REPORTED_MISMATCHES};
pub use data::{fnv1a64, InitData, Writes};
pub use dtype::{DType, Value};
pub use error::{line_col, ErrorKind, LoadError, ManifestError};
pub use init::{CsrPart, Init};
pub use manifest::{
    Arg, BufferSpec, LaunchSpec, MAX_REPEAT, CheckSpec, Compare, FigureSpec, FigureUnit, Interleave, L2Promotion, Manifest, OobFill, PtxCheck,
    Swizzle, TensorMap, MAX_CHASE_SLOTS,
};
pub use reference::{references, Expected, RefCtx, RefError, Reference};
pub use sized::Target;
pub use workload::{bundled_groups, bundled_names, Launch, RegsSource, Spills, Workload};
