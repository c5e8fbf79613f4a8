//! The one error type of the front end: a message at a position in a PTX file.

use crate::lexer::Pos;

/// An error in PTX input, reported as `file:line:column: message`. The message names the
/// offending text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{pos}: {msg}")]
pub struct PtxError {
    pub file: String,
    pub pos: Pos,
    pub msg: String,
}

impl PtxError {
    pub fn new(file: &str, pos: Pos, msg: String) -> Self {
        PtxError { file: file.to_string(), pos, msg }
    }
}
