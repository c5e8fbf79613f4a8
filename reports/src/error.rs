//! The one error type of the crate. Every way a report can fail — data that cannot be drawn (empty,
//! NaN, a non-positive value on a log axis, mismatched lengths), a figure spec that makes no sense, or
//! a file that cannot be written — is a [`ReportError`] value naming the figure and the offending
//! point, never a panic.

use std::path::PathBuf;

/// Everything that can go wrong while drawing or writing a report.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// The figure or table was given nothing to show.
    #[error("{what}: no data to draw")]
    EmptyData {
        /// The figure or writer that was called.
        what: &'static str,
    },
    /// A value that must be placed on a logarithmic axis is zero or negative.
    #[error("{what}: point {label:?} has {axis} = {value}, but the {axis} axis is logarithmic and needs values > 0")]
    NonPositiveOnLogAxis {
        /// The figure that was called.
        what: &'static str,
        /// The point, named by its workload (and position where that helps).
        label: String,
        /// `"x"` or `"y"`.
        axis: &'static str,
        /// The offending value.
        value: f64,
    },
    /// A value is NaN or infinite.
    #[error("{what}: point {label:?} has a non-finite {field} ({value})")]
    NotFinite {
        /// The figure that was called.
        what: &'static str,
        /// The point, named by its workload (and position where that helps).
        label: String,
        /// Which field of the point.
        field: &'static str,
        /// The offending value.
        value: f64,
    },
    /// The data are well-formed numbers but inconsistent (lengths differ, a baseline is missing, a
    /// stacked bar sums to zero, more series than the palette can tell apart, …).
    #[error("{what}: {message}")]
    InvalidData {
        /// The figure or writer that was called.
        what: &'static str,
        /// What is wrong, naming the offending item.
        message: String,
    },
    /// The [`FigureSpec`](crate::FigureSpec) or a figure option is out of range.
    #[error("invalid figure spec: {0}")]
    InvalidSpec(String),
    /// plotters failed while drawing (a font could not be used, a backend error).
    #[error("{what}: drawing failed: {message}")]
    Draw {
        /// The figure that was being drawn.
        what: &'static str,
        /// plotters' message.
        message: String,
    },
    /// A file or directory could not be created or written.
    #[error("writing {path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The PNG encoder failed.
    #[error("encoding PNG {path}: {source}")]
    Png {
        /// The PNG file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: png::EncodingError,
    },
    /// The CSV writer failed (including a row type that is not flat).
    #[error("writing CSV {path}: {source}")]
    Csv {
        /// The CSV file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: csv::Error,
    },
    /// The JSON serialiser failed.
    #[error("writing JSON {path}: {source}")]
    Json {
        /// The JSON file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: serde_json::Error,
    },
}

impl ReportError {
    /// Wraps an I/O error with the path it happened on.
    pub(crate) fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> Self {
        let path = path.into();
        move |source| Self::Io { path, source }
    }
}

/// Checks one value of a point: finite, and positive when it sits on a log axis. Every figure
/// validates its input through this, so the messages agree.
pub(crate) fn check_value(
    what: &'static str,
    label: &str,
    field: &'static str,
    axis: Option<(&'static str, bool)>,
    value: f64,
) -> Result<f64, ReportError> {
    if !value.is_finite() {
        return Err(ReportError::NotFinite {
            what,
            label: label.to_string(),
            field,
            value,
        });
    }
    if let Some((axis, true)) = axis {
        if value <= 0.0 {
            return Err(ReportError::NonPositiveOnLogAxis {
                what,
                label: label.to_string(),
                axis,
                value,
            });
        }
    }
    Ok(value)
}
