//! warpsim-reports: figures, tables and summary pages for warpsim results.
//!
//! This crate only draws and writes. It takes plain data structs defined here
//! ([`ValidationPoint`], [`SweepPoint`], [`BarValue`], [`StackSegment`], [`Machine`] and
//! [`RooflinePoint`], [`Timeline`], [`Table`]) and produces paper-ready figures (PNG at 300 dpi
//! plus SVG of the same physical size, one or two paper columns wide, embedded DejaVu Sans, no
//! system fonts), tidy CSV and JSON, aligned text tables, and a Markdown + HTML summary page. It
//! knows nothing of the simulator, of PTX, of CUDA or of how the numbers were obtained: the `sim`
//! and `validate` crates convert their results into these structs. Every failure is a
//! [`ReportError`] value that names the offending point; nothing here panics on user data.
//!
//! Every figure function takes its data as flat rows (which [`write_csv`] writes as tidy CSV
//! unchanged), figure-specific options, a [`FigureSpec`] (title, one or two paper columns, axis
//! labels with units, log axes) and an output stem, and writes `<stem>.png` and `<stem>.svg`:
//!
//! ```no_run
//! use warpsim_reports::*;
//!
//! let points = vec![
//!     ValidationPoint { workload: "vector_add".into(), measured_cycles: 9_800.0, simulated_cycles: 10_400.0 },
//!     ValidationPoint { workload: "matmul_tiled16".into(), measured_cycles: 380_000.0, simulated_cycles: 341_000.0 },
//! ];
//! let spec = FigureSpec::new("", Column::Single);
//! let fig = validation_scatter(&points, &ScatterOptions::default(), &spec, "out/validation")?;
//! write_csv("out/validation.csv", &points)?;
//! let section = Section {
//!     heading: "Validation".into(),
//!     figures: vec![FigureRef::new(&fig, "Simulated vs measured cycles.")],
//!     tables: vec![validation_table(&points)?],
//!     ..Section::default()
//! };
//! summary_page("out", "warpsim validation", &[section], &TableOptions { thousands: true })?;
//! # Ok::<(), ReportError>(())
//! ```
//!
//! `cargo run -p warpsim-reports --release --example samples -- DIR` draws one of each figure.

mod axis;
mod error;
mod figures;
mod frame;
mod render;
mod stats;
mod style;
mod summary;
mod table;
mod write;

pub use error::ReportError;
pub use figures::bars::{bars, speedup_bars, BarOptions, BarValue};
pub use figures::launches::{launch_timeline, LaunchSpan};
pub use figures::roofline::{roofline, Ceiling, Machine, RooflinePoint};
pub use figures::scatter::{validation_scatter, ScatterOptions, ValidationPoint};
pub use figures::stacked::{stacked_bars, StackSegment};
pub use figures::sweep::{sweep_curves, SweepOptions, SweepPoint};
pub use figures::timeline::{timeline, CtaSpan, Occupancy, OccupancySample, Timeline};
pub use render::{PixelRect, Written};
pub use stats::{error_pct, pearson, validation_stats, validation_table, ValidationStats};
pub use style::{Column, FigureSpec, DPI, MAX_SERIES};
pub use summary::{summary_page, FigureRef, Section, SummaryPaths};
pub use table::{text_table, Cell, Table, TableOptions};
pub use write::{write_csv, write_json};
