//! Faults: what went wrong in a simulated kernel, reported like compute-sanitizer does.
//!
//! A fault names the kernel, the CTA and thread, the PTX position (and CUDA source line when
//! `.loc` information exists), and the specifics: the address and the nearest allocation for a
//! bad access, every waiting warp for a deadlock. Faults are values; the simulator never panics
//! on a bad program.

use std::fmt;

/// Waiting warps a deadlock report lists one by one (the rest are counted): a grid's worth ran
/// to thousands of lines.
pub const REPORTED_WAITERS: usize = 16;

/// What a waiting warp waits for (deadlock reports).
#[derive(Debug, Clone, PartialEq)]
pub struct Waiter {
    pub cta: [u32; 3],
    pub warp: u32,
    pub pc_line: String,
    pub what: String,
}

#[derive(Debug, Clone, PartialEq)]
pub enum FaultKind {
    /// An access outside every allocation / the shared or local segment.
    OutOfBounds { space: &'static str, write: bool, addr: u64, size: u32, detail: String },
    Misaligned { space: &'static str, addr: u64, size: u32 },
    /// `trap` or a failed `assert`.
    Trap,
    /// An instruction the simulator does not execute (or not on this architecture).
    Unsupported(String),
    /// No warp can make progress.
    Deadlock(Vec<Waiter>),
    /// A local-memory frame grew beyond the per-thread limit.
    StackOverflow { bytes: u64 },
    /// The launch itself is invalid (block too large, shared memory over the limit …).
    BadLaunch(String),
    /// The watchdog stopped the kernel: no forward progress, or its budget spent
    /// ([`crate::watchdog`]).
    Watchdog(Box<crate::watchdog::Runaway>),
}

/// A fault in a running kernel: boxed, so that the `Result<_, Fault>` every execution step
/// returns stays one pointer wide on its error side (fields read through `Deref`).
#[derive(Debug, Clone, PartialEq)]
pub struct Fault(Box<FaultInfo>);

/// Where a fault happened and what it is.
#[derive(Debug, Clone, PartialEq)]
pub struct FaultInfo {
    pub kernel: String,
    pub cta: [u32; 3],
    pub thread: [u32; 3],
    /// PTX position and source line of the faulting instruction.
    pub location: String,
    pub kind: FaultKind,
}

impl Fault {
    pub fn new(info: FaultInfo) -> Fault {
        Fault(Box::new(info))
    }

    /// A fault not tied to one thread (launch errors, deadlocks).
    pub fn global(kernel: &str, kind: FaultKind) -> Fault {
        Fault::new(FaultInfo { kernel: kernel.to_string(), cta: [0; 3], thread: [0; 3], location: String::new(), kind })
    }
}

impl std::ops::Deref for Fault {
    type Target = FaultInfo;
    fn deref(&self) -> &FaultInfo {
        &self.0
    }
}

impl std::ops::DerefMut for Fault {
    fn deref_mut(&mut self) -> &mut FaultInfo {
        &mut self.0
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let who = format!(
            "kernel `{}`, CTA ({},{},{}), thread ({},{},{})",
            self.kernel, self.cta[0], self.cta[1], self.cta[2], self.thread[0], self.thread[1], self.thread[2]
        );
        match &self.kind {
            FaultKind::OutOfBounds { space, write, addr, size, detail } => write!(
                f,
                "{who}: out-of-bounds {space} {} of {size} bytes at {addr:#x} ({}){}{detail}",
                if *write { "write" } else { "read" },
                self.location,
                if detail.is_empty() { "" } else { "; " }
            ),
            FaultKind::Misaligned { space, addr, size } => {
                write!(f, "{who}: misaligned {space} access of {size} bytes at {addr:#x} ({})", self.location)
            }
            FaultKind::Trap => write!(f, "{who}: trap ({})", self.location),
            FaultKind::Unsupported(what) => write!(f, "{who}: {what} ({})", self.location),
            FaultKind::StackOverflow { bytes } => {
                write!(f, "{who}: local-memory stack overflow ({bytes} bytes per thread) ({})", self.location)
            }
            FaultKind::BadLaunch(msg) => write!(f, "kernel `{}`: invalid launch: {msg}", self.kernel),
            FaultKind::Watchdog(r) => write!(f, "kernel `{}`: watchdog: {r}", self.kernel),
            FaultKind::Deadlock(waiters) => {
                writeln!(f, "kernel `{}`: deadlock: no warp can make progress; {} waiting:", self.kernel, waiters.len())?;
                for w in waiters.iter().take(REPORTED_WAITERS) {
                    writeln!(f, "  CTA ({},{},{}) warp {} at {}: {}", w.cta[0], w.cta[1], w.cta[2], w.warp, w.pc_line, w.what)?;
                }
                if waiters.len() > REPORTED_WAITERS {
                    writeln!(f, "  … and {} more waiting warps", waiters.len() - REPORTED_WAITERS)?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for Fault {}
