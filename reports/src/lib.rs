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
