//! Everything the hardware loop can fail with, as values.
//!
//! One enum for the crate: the GPU runner records these per workload in the dataset (and goes
//! on with the next workload), the CLI prints them. [`chain`] renders an error with its causes
//! for those records, each cause once.

use std::path::PathBuf;

/// Why a validate step failed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// `libcuda.so.1` cannot be loaded: checked before any driver call, so nothing panics.
    #[error("no CUDA driver (libcuda.so.1) on this machine")]
    NoDriver,
    #[error("the CUDA driver reports no device")]
    NoDevice,
    /// A driver call returned an error: the call and `CUDA_ERROR_NAME (description)`.
    #[error("{call} failed: {detail}")]
    Driver { call: String, detail: String },
    /// A driver call panicked inside cudarc (a missing symbol, say); caught, never propagated.
    #[error("CUDA driver call panicked: {0}")]
    Panicked(String),
    /// The workload cannot run as written (argument list, buffer sizes, tensor-map fields).
    #[error("workload `{workload}`: {message}")]
    Workload { workload: String, message: String },
    /// Self-check: the runner's parameter bytes differ from the simulator's.
    #[error("workload `{workload}`: parameter bytes differ from the simulator's at offsets {offsets}")]
    ParamMismatch { workload: String, offsets: String },
    #[error(transparent)]
    Ptx(#[from] warpsim_isa::PtxError),
    #[error(transparent)]
    Sim(#[from] warpsim_sim::launch::RunError),
    #[error("{}: {source}", path.display())]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{}: {source}", path.display())]
    Json { path: PathBuf, source: serde_json::Error },
    #[error("{}: {source}", path.display())]
    Csv { path: PathBuf, source: csv::Error },
    /// The ncu CSV is not what `ncu --csv` (details page) writes; `line` is 1-based in the file.
    #[error("ncu CSV line {line}: {message}")]
    Ncu { line: usize, message: String },
    #[error("merge: {0}")]
    Merge(String),
    /// Drawing or writing a report (a figure, a table) failed.
    #[error("report: {0}")]
    Report(String),
    /// A file that is not what it should be, with its location (`file:line` where known).
    #[error("{file}: {message}")]
    Parse { file: String, message: String },
}

/// `e` and its causes, `: `-separated, skipping a cause whose text the previous one already ends
/// with (transparent wrappers and messages that embed their source).
pub fn chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut cur = e.source();
    while let Some(c) = cur {
        let text = c.to_string();
        if !out.ends_with(&text) {
            out.push_str(": ");
            out.push_str(&text);
        }
        cur = c.source();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chain_lists_causes_once() {
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "gone");
        let e = Error::Io { path: "x.json".into(), source: io };
        // Io's message embeds its source, which is also its `source()`: printed once.
        assert_eq!(chain(&e), "x.json: gone");
        assert_eq!(chain(&Error::NoDriver), "no CUDA driver (libcuda.so.1) on this machine");
    }
}
