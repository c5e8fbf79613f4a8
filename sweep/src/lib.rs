//! warpsim-sweep: design-space studies over the simulator.
//!
//! A sweep crosses presets, configuration keys with lists or ranges of values, and workloads
//! ([`spec`]); it is resolved and validated as a whole before anything runs ([`plan`]); its runs
//! execute in parallel, each cached on disk so that an interrupted sweep resumes ([`execute`]);
//! shards of one sweep run anywhere (a Slurm array: [`slurm`]) and merge back ([`results`]), and
//! results become figures and a summary page through `warpsim-reports` ([`report`]).
//!
//! It owns the files of a study (cache entries, result tables) but no timing: simulations are
//! `warpsim_sim::launch::run_timed`, workloads come from `warpsim-workloads`, and drawing is
//! `warpsim-reports`'. It knows nothing of the command line either: the binary parses arguments,
//! draws the progress bar and prints.

pub mod execute;
pub mod lock;
pub mod plan;
pub mod report;
pub mod results;
pub mod slurm;
pub mod spec;

pub use execute::{execute, Cache, Summary};
pub use lock::DirLock;
pub use plan::{Header, Plan};
pub use report::{report, ReportFailure, ReportOptions};
pub use results::{Results, ResultsError, Row, Status};
pub use spec::{Axis, Shard, Spec, SpecError};
