//! Data writers: tidy CSV (one row per observation, the header taken from the row struct's field
//! names) and pretty JSON. Any `serde::Serialize` row type works; the figure inputs
//! ([`ValidationPoint`](crate::ValidationPoint), [`SweepPoint`](crate::SweepPoint), …) are already
//! flat rows, so the data behind a figure can be written next to it unchanged.

use std::path::Path;

use serde::Serialize;

use crate::error::ReportError;

/// Creates the parent directory of `path` if it has one.
pub(crate) fn ensure_parent(path: &Path) -> Result<(), ReportError> {
    match path.parent().filter(|d| !d.as_os_str().is_empty()) {
        Some(dir) => std::fs::create_dir_all(dir).map_err(ReportError::io(dir)),
        None => Ok(()),
    }
}

/// Writes `rows` as CSV with a header row of field names. Rows must be flat (no nested structs or
/// sequences); an empty slice is an error, since the header comes from the rows.
pub fn write_csv<T: Serialize>(path: impl AsRef<Path>, rows: &[T]) -> Result<(), ReportError> {
    let path = path.as_ref();
    if rows.is_empty() {
        return Err(ReportError::EmptyData { what: "write_csv" });
    }
    ensure_parent(path)?;
    let csv_err = |source| ReportError::Csv {
        path: path.to_path_buf(),
        source,
    };
    let mut w = csv::Writer::from_path(path).map_err(csv_err)?;
    for row in rows {
        w.serialize(row).map_err(csv_err)?;
    }
    w.flush().map_err(ReportError::io(path))
}

/// Writes `value` as pretty-printed JSON with a trailing newline.
pub fn write_json<T: Serialize + ?Sized>(
    path: impl AsRef<Path>,
    value: &T,
) -> Result<(), ReportError> {
    let path = path.as_ref();
    ensure_parent(path)?;
    let mut text = serde_json::to_string_pretty(value).map_err(|source| ReportError::Json {
        path: path.to_path_buf(),
        source,
    })?;
    text.push('\n');
    std::fs::write(path, text).map_err(ReportError::io(path))
}
