//! Load errors as values: every problem with a manifest names the file, the line and column, and
//! the dotted key path (`buffer[1].init.uniform`) of the offending TOML, then says what is wrong.
//!
//! Positions come from spans: the `toml` crate's for syntax and type errors, `toml::Spanned`
//! fields for semantic checks. The key path is recovered from the span by walking a spanned parse
//! of the same document ([`key_path_at`]), so serde errors and our own checks name keys the same way.

use std::fmt;
use std::ops::Range;
use std::path::PathBuf;
use toml::de::{DeTable, DeValue};
use toml::Spanned;

/// What kind of mistake a [`ManifestError`] reports (stable, for tools and tests to match on).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// Not valid TOML.
    Syntax,
    /// A key the schema does not have.
    UnknownKey,
    /// A value of the wrong TOML type, or a required key missing.
    Type,
    /// An argument, tensor map or check names a buffer the manifest does not declare.
    UnknownBuffer,
    /// A value out of its allowed range (zero length, lo > hi, chase geometry, launch shape, ...).
    Value,
    /// An init or scalar that cannot produce the declared dtype.
    DTypeMismatch,
    /// A referenced file (PTX, `init = { file }`) is missing, unreadable or the wrong size.
    File,
    /// The PTX has no such entry, or the `[[arg]]` list does not match its parameters.
    Ptx,
    /// `[check]` names an unknown reference or lacks what the reference needs.
    Reference,
}

/// One problem in one manifest, located at `file:line:column` and key path `key`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ManifestError {
    pub kind: ErrorKind,
    pub file: PathBuf,
    /// 1-based.
    pub line: usize,
    /// 1-based, in characters.
    pub column: usize,
    /// Dotted key path, arrays indexed: `buffer[1].init.uniform`; empty at the document root.
    pub key: String,
    pub message: String,
}

impl fmt::Display for ManifestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}: ", self.file.display(), self.line, self.column)?;
        if !self.key.is_empty() {
            write!(f, "`{}`: ", self.key)?;
        }
        f.write_str(&self.message)
    }
}

/// Everything [`crate::Workload::load`] and [`crate::Workload::bundled`] can fail with.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("{}: cannot read the manifest", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{0}")]
    Manifest(Box<ManifestError>),
    #[error(
        "no bundled workload named `{name}` (`warpsim workloads` lists the {count} bundled ones)"
    )]
    UnknownBundled { name: String, count: usize },
    /// The PTX itself is malformed: the PTX front end's error (`kernel.ptx:353:33: …`), which
    /// explains a manifest check against the PTX that failed.
    #[error("{message} (the PTX of {})", manifest.display())]
    Ptx { manifest: PathBuf, message: String },
}

impl LoadError {
    /// The located manifest error, if that is what this is.
    pub fn manifest_error(&self) -> Option<&ManifestError> {
        match self {
            LoadError::Manifest(e) => Some(e),
            _ => None,
        }
    }
}

/// Turns spans in one manifest's source into located errors.
pub(crate) struct Locator<'a> {
    pub file: PathBuf,
    pub src: &'a str,
}

impl Locator<'_> {
    /// A located error at byte span `span` of the source.
    pub fn error(
        &self,
        kind: ErrorKind,
        span: Range<usize>,
        message: impl Into<String>,
    ) -> LoadError {
        let (line, column) = line_col(self.src, span.start);
        LoadError::Manifest(Box::new(ManifestError {
            kind,
            file: self.file.clone(),
            line,
            column,
            key: key_path_at(self.src, span.start),
            message: message.into(),
        }))
    }

    /// A located error at the value of a spanned field.
    pub fn at<T>(&self, kind: ErrorKind, v: &Spanned<T>, message: impl Into<String>) -> LoadError {
        self.error(kind, v.span(), message)
    }

    /// Convert a `toml` deserialization error, classifying it by its message.
    pub fn toml_error(&self, e: &toml::de::Error) -> LoadError {
        let msg = e.message().trim().to_string();
        let kind = if msg.starts_with("unknown field") {
            ErrorKind::UnknownKey
        } else if msg.starts_with("unknown variant") {
            ErrorKind::Value
        } else if DeTable::parse(self.src).is_err() {
            ErrorKind::Syntax
        } else {
            ErrorKind::Type
        };
        let span = e.span().unwrap_or(0..0);
        let mut err = self.error(kind, span, msg);
        if let (ErrorKind::Syntax, LoadError::Manifest(m)) = (kind, &mut err) {
            // error recovery may read the next line as one more array element: name the array
            if m.key.ends_with(']') {
                if let Some(i) = m.key.rfind('[') {
                    m.key.truncate(i);
                }
            }
        }
        err
    }
}

/// What is wrong with bytes that are not UTF-8 text: the first bad byte, its offset, line and
/// column.
pub(crate) fn not_utf8(bytes: &[u8], e: &std::str::Utf8Error) -> String {
    let off = e.valid_up_to();
    let before = String::from_utf8_lossy(&bytes[..off]);
    let (line, column) = line_col(&before, before.len());
    format!("not UTF-8 text: byte {:#04x} at byte offset {off} (line {line}, column {column})", bytes[off])
}

/// 1-based line and character column of byte `offset` in `src` (an offset past the end, or
/// inside a character, is clamped, never a panic). The one helper every parser that reports
/// `file:line:column` uses: manifests here, presets in `warpsim-sim`, sweep files, datasets.
pub fn line_col(src: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(src.len());
    let before = &src.as_bytes()[..offset];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |p| p + 1);
    let column = String::from_utf8_lossy(&before[line_start..])
        .chars()
        .count()
        + 1;
    (line, column)
}

/// The dotted key path of the innermost key or value whose span contains byte `offset`.
pub(crate) fn key_path_at(src: &str, offset: usize) -> String {
    let (root, _) = DeTable::parse_recoverable(src);
    let mut path = String::new();
    walk_table(root.get_ref(), offset, &mut path);
    path
}

fn walk_table(table: &DeTable<'_>, offset: usize, path: &mut String) -> bool {
    for (key, value) in table.iter() {
        let in_key = key.span().contains(&offset);
        let in_value = value.span().contains(&offset)
            || value.span().end == offset && offset > value.span().start;
        if in_key || in_value || spans_table_body(value.get_ref(), offset) {
            if !path.is_empty() {
                path.push('.');
            }
            path.push_str(key.get_ref());
            if !in_key {
                walk_value(value.get_ref(), offset, path);
            }
            return true;
        }
    }
    false
}

/// Tables written as `[section]` or `[[array]]` headers have spans that cover only the header, so
/// look inside them for a key that contains the offset.
fn spans_table_body(value: &DeValue<'_>, offset: usize) -> bool {
    match value {
        DeValue::Table(t) => t.iter().any(|(k, v)| {
            k.span().contains(&offset)
                || v.span().contains(&offset)
                || spans_table_body(v.get_ref(), offset)
        }),
        DeValue::Array(a) => a
            .iter()
            .any(|v| v.span().contains(&offset) || spans_table_body(v.get_ref(), offset)),
        _ => false,
    }
}

fn walk_value(value: &DeValue<'_>, offset: usize, path: &mut String) {
    match value {
        DeValue::Table(t) => {
            walk_table(t, offset, path);
        }
        DeValue::Array(a) => {
            for (i, item) in a.iter().enumerate() {
                if item.span().contains(&offset) || spans_table_body(item.get_ref(), offset) {
                    path.push_str(&format!("[{i}]"));
                    walk_value(item.get_ref(), offset, path);
                    return;
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_and_column() {
        let src = "a = 1\nbb = \"é\" x";
        assert_eq!(line_col(src, 0), (1, 1));
        assert_eq!(line_col(src, 6), (2, 1));
        let x = src.find('x').unwrap();
        assert_eq!(line_col(src, x), (2, 10));
    }

    #[test]
    fn key_paths() {
        let src = "name = \"x\"\ngrid = [1, 2, 3]\n[[buffer]]\nname = \"a\"\n[[buffer]]\nname = \"b\"\ninit = { uniform = [1, 0] }\n[check]\nreference = \"r\"\n";
        assert_eq!(key_path_at(src, src.find("[1, 2").unwrap() + 4), "grid[1]");
        assert_eq!(
            key_path_at(src, src.find("\"b\"").unwrap()),
            "buffer[1].name"
        );
        assert_eq!(
            key_path_at(src, src.find("[1, 0]").unwrap()),
            "buffer[1].init.uniform"
        );
        assert_eq!(
            key_path_at(src, src.find("reference").unwrap()),
            "check.reference"
        );
        assert_eq!(key_path_at(src, 0), "name");
    }
}
