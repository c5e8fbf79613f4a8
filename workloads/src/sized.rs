//! Target-sized manifests: a manifest may write any value as `${expr}`, an integer expression over
//! the simulated GPU's sizes ([`Target`]), expanded before the TOML is parsed. Microbenchmarks use
//! it to size footprints from the target's own caches (an L1 chase at a quarter of the L1, a DRAM
//! chase over four times the L2, one block per SM), so one manifest measures the same level on
//! every preset.
//!
//! Expressions: unsigned 64-bit integers, the variables of [`Target::vars`], `+ - * /` with the
//! usual precedence, parentheses, and `min(a, b)` / `max(a, b)`. Division rounds down; overflow,
//! a negative result and division by zero are errors, located at the expression.

use std::fmt;

/// The sizes a manifest's `${...}` expressions may read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    /// L1 data cache bytes of a kernel without shared memory (0 where global loads skip the L1).
    pub l1: u64,
    /// L2 bytes (0: no L2).
    pub l2: u64,
    /// L2 partitions (1 for a monolithic L2).
    pub l2_partitions: u64,
    /// Streaming multiprocessors.
    pub sms: u64,
    /// Bytes of one row of shared-memory banks (banks × bank width).
    pub smem_row: u64,
}

impl Default for Target {
    /// The H200's, the GPU the bundled suite was measured on (256 KiB L1 without a shared-memory
    /// carve-out, 60 MiB of L2 in two partitions, 132 SMs, 32 banks of 4 bytes): what
    /// [`crate::Workload::bundled`] and [`crate::Workload::load`] expand with.
    fn default() -> Self {
        Target { l1: 256 << 10, l2: 60 << 20, l2_partitions: 2, sms: 132, smem_row: 128 }
    }
}

impl Target {
    /// The variables expressions may name, with their values.
    pub fn vars(&self) -> [(&'static str, u64); 6] {
        [
            ("l1", self.l1),
            ("l2", self.l2),
            ("l2_near", self.l2 / self.l2_partitions.max(1)),
            ("l2_partitions", self.l2_partitions),
            ("sms", self.sms),
            ("smem_row", self.smem_row),
        ]
    }
}

/// A failed expansion: the byte offset in the manifest and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SizeError {
    pub offset: usize,
    pub message: String,
}

impl fmt::Display for SizeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// `src` with every `${expr}` replaced by its value on `target` (text without `${` comes back
/// unchanged, borrowed).
pub fn expand<'a>(src: &'a str, target: &Target) -> Result<std::borrow::Cow<'a, str>, SizeError> {
    if !src.contains("${") {
        return Ok(src.into());
    }
    let mut out = String::with_capacity(src.len());
    let mut rest = 0;
    while let Some(found) = src[rest..].find("${") {
        let start = rest + found;
        let body = start + 2;
        let end = src[body..].find('}').map(|e| body + e).ok_or_else(|| SizeError {
            offset: start,
            message: "`${` without its closing `}`".into(),
        })?;
        let value = Parser { src, pos: body, end, target }.expression()?;
        out.push_str(&src[rest..start]);
        out.push_str(&value.to_string());
        rest = end + 1;
    }
    out.push_str(&src[rest..]);
    Ok(out.into())
}

struct Parser<'a> {
    src: &'a str,
    pos: usize,
    end: usize,
    target: &'a Target,
}

impl Parser<'_> {
    fn fail<T>(&self, at: usize, message: String) -> Result<T, SizeError> {
        Err(SizeError { offset: at, message })
    }

    fn skip(&mut self) {
        while self.pos < self.end && self.src.as_bytes()[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.skip();
        (self.pos < self.end).then(|| self.src.as_bytes()[self.pos])
    }

    fn expect(&mut self, c: u8) -> Result<(), SizeError> {
        match self.peek() {
            Some(x) if x == c => {
                self.pos += 1;
                Ok(())
            }
            _ => self.fail(self.pos, format!("expected `{}` in the size expression", c as char)),
        }
    }

    fn expression(mut self) -> Result<u64, SizeError> {
        let v = self.sum()?;
        match self.peek() {
            None => Ok(v),
            Some(c) => self.fail(self.pos, format!("unexpected `{}` in the size expression", c as char)),
        }
    }

    fn sum(&mut self) -> Result<u64, SizeError> {
        let mut v = self.product()?;
        while let Some(op @ (b'+' | b'-')) = self.peek() {
            let at = self.pos;
            self.pos += 1;
            let r = self.product()?;
            v = match op {
                b'+' => v.checked_add(r),
                _ => v.checked_sub(r),
            }
            .map_or_else(|| self.fail(at, format!("{v} {} {r} is out of range (0 to 2^64-1)", op as char)), Ok)?;
        }
        Ok(v)
    }

    fn product(&mut self) -> Result<u64, SizeError> {
        let mut v = self.atom()?;
        while let Some(op @ (b'*' | b'/')) = self.peek() {
            let at = self.pos;
            self.pos += 1;
            let r = self.atom()?;
            v = match op {
                b'*' => v.checked_mul(r).map_or_else(|| self.fail(at, format!("{v} * {r} overflows 64 bits")), Ok)?,
                _ if r == 0 => return self.fail(at, format!("{v} / 0: division by zero")),
                _ => v / r,
            };
        }
        Ok(v)
    }

    fn atom(&mut self) -> Result<u64, SizeError> {
        let start = match self.peek() {
            Some(_) => self.pos,
            None => return self.fail(self.pos, "a size expression ends where a value is expected".into()),
        };
        let bytes = self.src.as_bytes();
        if bytes[start] == b'(' {
            self.pos += 1;
            let v = self.sum()?;
            self.expect(b')')?;
            return Ok(v);
        }
        let mut p = start;
        while p < self.end && (bytes[p].is_ascii_alphanumeric() || bytes[p] == b'_') {
            p += 1;
        }
        let word = &self.src[start..p];
        self.pos = p;
        if word.is_empty() {
            return self.fail(start, format!("unexpected `{}` in the size expression", bytes[start] as char));
        }
        if word.as_bytes()[0].is_ascii_digit() {
            return word.parse().map_or_else(|_| self.fail(start, format!("`{word}` is not an unsigned 64-bit integer")), Ok);
        }
        if word == "min" || word == "max" {
            self.expect(b'(')?;
            let a = self.sum()?;
            self.expect(b',')?;
            let b = self.sum()?;
            self.expect(b')')?;
            return Ok(if word == "min" { a.min(b) } else { a.max(b) });
        }
        let vars = self.target.vars();
        vars.iter().find(|(n, _)| *n == word).map(|(_, v)| *v).map_or_else(
            || {
                let known: Vec<&str> = vars.iter().map(|(n, _)| *n).collect();
                self.fail(start, format!("unknown size `{word}` (known: {}, min, max)", known.join(", ")))
            },
            Ok,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t() -> Target {
        Target { l1: 48 << 10, l2: 1536 << 10, l2_partitions: 2, sms: 15, smem_row: 256 }
    }

    #[test]
    fn expands_arithmetic_over_the_target() {
        let s = "a = ${l1 / 4}\nb = ${ max(l2_near / 4, 1) * (2 + sms) }\nc = ${min(l1, l2)-1}\n";
        assert_eq!(expand(s, &t()).unwrap(), "a = 12288\nb = 3342336\nc = 49151\n");
        assert!(matches!(expand("x = 3", &t()).unwrap(), std::borrow::Cow::Borrowed(_)));
    }

    #[test]
    fn errors_are_located_at_the_expression() {
        let e = |s: &str| expand(s, &t()).unwrap_err();
        assert_eq!(e("a = ${l3}").offset, 6);
        assert!(e("a = ${l3}").message.contains("unknown size `l3`"), "{}", e("a = ${l3}"));
        assert!(e("a = ${l1 / (sms - 15)}").message.contains("division by zero"));
        assert!(e("a = ${1 - 2}").message.contains("out of range"));
        assert!(e("a = ${l2 * l2 * l2 * l2}").message.contains("overflows"));
        assert!(e("a = ${l1 4}").message.contains("unexpected `4`"));
        assert!(e("a = ${min(l1 l2)}").message.contains("expected `,`"));
        assert!(e("a = ${l1").message.contains("closing"));
        assert!(e("a = ${}").message.contains("ends where a value"));
        assert!(e("a = ${99999999999999999999}").message.contains("not an unsigned"));
    }
}
