//! The figures, one module each. Every figure takes plain data (defined next to it, as flat rows
//! that also serialise as tidy CSV), a [`FigureSpec`](crate::FigureSpec) and an output stem,
//! validates the data into a private figure value, and hands that to the renderer to be drawn as
//! PNG and SVG.

pub mod bars;
pub mod launches;
pub mod roofline;
pub mod scatter;
pub mod stacked;
pub mod sweep;
pub mod timeline;

use crate::error::ReportError;

/// The distinct keys in order of first appearance (the order the caller listed them in).
pub(crate) fn first_seen<'a>(keys: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let mut seen: Vec<&'a str> = Vec::new();
    for k in keys {
        if !seen.contains(&k) {
            seen.push(k);
        }
    }
    seen
}

/// Index of `key` in `keys` (which came from [`first_seen`] over the same rows, so it is present).
pub(crate) fn index_of(keys: &[&str], key: &str) -> usize {
    keys.iter().position(|k| *k == key).unwrap_or(0)
}

/// Refuses a second row for the same (group, series) cell.
pub(crate) fn check_unique<'a>(
    what: &'static str,
    cells: impl IntoIterator<Item = (&'a str, &'a str)>,
) -> Result<(), ReportError> {
    let mut seen = std::collections::HashSet::new();
    for (a, b) in cells {
        if !seen.insert((a, b)) {
            return Err(ReportError::InvalidData {
                what,
                message: format!("two values for ({a:?}, {b:?})"),
            });
        }
    }
    Ok(())
}
