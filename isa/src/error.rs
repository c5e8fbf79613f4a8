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

/// PTX file bytes as text: bytes that are not UTF-8 are an error at their line and column,
/// naming the byte and its offset.
pub fn utf8<'a>(bytes: &'a [u8], file: &str) -> Result<&'a str, PtxError> {
    std::str::from_utf8(bytes).map_err(|e| {
        let off = e.valid_up_to();
        let before = String::from_utf8_lossy(&bytes[..off]);
        let line = before.matches('\n').count() as u32 + 1;
        let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) as u32 + 1;
        PtxError::new(file, Pos { line, col }, format!("not UTF-8 text: byte {:#04x} at byte offset {off}", bytes[off]))
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn bytes_that_are_not_utf8_are_located() {
        let e = super::utf8(b".version 9.0\n// caf\xe9\n", "x.ptx").unwrap_err().to_string();
        assert_eq!(e, "x.ptx:2:7: not UTF-8 text: byte 0xe9 at byte offset 19");
        assert_eq!(super::utf8("é".as_bytes(), "x.ptx").unwrap(), "é");
    }
}
