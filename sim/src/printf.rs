//! Device `printf`: CUDA lowers `printf(fmt, ...)` in a kernel to a call of the external function
//! `vprintf(fmt, args)`, where `fmt` is the generic address of the format string (in global
//! memory) and `args` the generic address of a per-thread buffer holding the arguments, each at an
//! offset aligned to its size (`char`/`short`/`int` as 4 bytes, `float` promoted to `double`,
//! pointers and `long` as 8). This module formats such a call the way the C library does for the
//! conversions CUDA documents (`%d %i %u %o %x %X %c %s %p %f %F %e %E %g %G %a %A %%`, with flags,
//! width, precision and the `h hh l ll z t j` length modifiers), reading memory through a closure,
//! and collects the lines of a launch in a [`PrintfSink`] keyed by (CTA, warp), so the output is
//! the same whatever order the simulator's threads ran the warps in. A bad format (an unknown
//! conversion, `*` widths, which CUDA rejects too) prints the format's text from that point on.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// The `printf` output of one launch: per (linear CTA, warp slot), its lines in the order the warp
/// printed them (lanes in ascending order within one call), and how many calls (lanes) printed.
#[derive(Default, Debug)]
pub struct PrintfSink {
    lines: Mutex<BTreeMap<(u64, u32), Vec<u8>>>,
    calls: AtomicU64,
}

impl PrintfSink {
    /// Appends a warp's output of `calls` lanes' calls.
    pub fn push(&self, cta: u64, warp: u32, text: &[u8], calls: u32) {
        let mut m = self.lines.lock().unwrap_or_else(|e| e.into_inner());
        m.entry((cta, warp)).or_default().extend_from_slice(text);
        self.calls.fetch_add(u64::from(calls), Ordering::Relaxed);
    }

    /// The `vprintf` calls (one per lane) made so far, over every launch of the kernel.
    pub fn calls(&self) -> u64 {
        self.calls.load(Ordering::Relaxed)
    }

    /// Everything printed, in (CTA, warp) order, and empties the sink.
    pub fn take(&self) -> Vec<u8> {
        let m = std::mem::take(&mut *self.lines.lock().unwrap_or_else(|e| e.into_inner()));
        m.into_values().flatten().collect()
    }
}

/// Longest format or `%s` string read (a missing terminator stops there).
pub const MAX_STRING: usize = 4096;

/// Formats one `vprintf(fmt, args)` call. `read(addr, buf)` fills `buf` from the generic address
/// `addr` and says whether it could (the bytes were inside memory the thread may read).
pub fn format(fmt: u64, args: u64, read: &mut dyn FnMut(u64, &mut [u8]) -> bool) -> Vec<u8> {
    let fmt = read_cstr(fmt, read);
    let mut out = Vec::new();
    let mut off = 0u64;
    let mut i = 0;
    let next_arg = |size: usize, off: &mut u64, read: &mut dyn FnMut(u64, &mut [u8]) -> bool| -> Option<u64> {
        *off = off.div_ceil(size as u64) * size as u64;
        let mut b = [0u8; 8];
        let ok = read(args.wrapping_add(*off), &mut b[..size]);
        *off += size as u64;
        ok.then(|| u64::from_le_bytes(b))
    };
    while i < fmt.len() {
        if fmt[i] != b'%' {
            out.push(fmt[i]);
            i += 1;
            continue;
        }
        let start = i;
        i += 1;
        let mut spec = Spec::default();
        while let Some(&c) = fmt.get(i) {
            match c {
                b'-' => spec.left = true,
                b'+' => spec.plus = true,
                b' ' => spec.space = true,
                b'#' => spec.alt = true,
                b'0' => spec.zero = true,
                _ => break,
            }
            i += 1;
        }
        spec.width = digits(&fmt, &mut i);
        if fmt.get(i) == Some(&b'.') {
            i += 1;
            spec.precision = Some(digits(&fmt, &mut i).unwrap_or(0));
        }
        let mut long = 0;
        while let Some(&c) = fmt.get(i) {
            match c {
                b'l' | b'z' | b't' | b'j' => long = long.max(if c == b'l' { long + 1 } else { 2 }),
                b'h' => {}
                _ => break,
            }
            i += 1;
        }
        let Some(&conv) = fmt.get(i) else {
            out.extend_from_slice(&fmt[start..]);
            break;
        };
        i += 1;
        let isize = if long > 0 { 8 } else { 4 };
        let text = match conv {
            b'%' => b"%".to_vec(),
            b'd' | b'i' => match next_arg(isize, &mut off, read) {
                Some(v) => {
                    let v = if isize == 4 { v as u32 as i32 as i64 } else { v as i64 };
                    spec.integer(v < 0, v.unsigned_abs().to_string(), "")
                }
                None => b"<missing>".to_vec(),
            },
            b'u' | b'o' | b'x' | b'X' => match next_arg(isize, &mut off, read) {
                Some(v) => {
                    let v = if isize == 4 { v as u32 as u64 } else { v };
                    let (digits, prefix) = match conv {
                        b'u' => (v.to_string(), ""),
                        b'o' => (format!("{v:o}"), if spec.alt && v != 0 { "0" } else { "" }),
                        b'x' => (format!("{v:x}"), if spec.alt && v != 0 { "0x" } else { "" }),
                        _ => (format!("{v:X}"), if spec.alt && v != 0 { "0X" } else { "" }),
                    };
                    spec.plus = false;
                    spec.space = false;
                    spec.integer(false, digits, prefix)
                }
                None => b"<missing>".to_vec(),
            },
            b'c' => match next_arg(4, &mut off, read) {
                Some(v) => spec.pad(vec![v as u8]),
                None => b"<missing>".to_vec(),
            },
            b'p' => match next_arg(8, &mut off, read) {
                Some(v) => spec.pad(format!("{v:#x}").into_bytes()),
                None => b"<missing>".to_vec(),
            },
            b's' => match next_arg(8, &mut off, read) {
                Some(0) => spec.pad(b"(null)".to_vec()),
                Some(a) => {
                    let mut s = read_cstr(a, read);
                    if let Some(p) = spec.precision {
                        s.truncate(p);
                    }
                    spec.pad(s)
                }
                None => b"<missing>".to_vec(),
            },
            b'f' | b'F' | b'e' | b'E' | b'g' | b'G' | b'a' | b'A' => match next_arg(8, &mut off, read) {
                Some(v) => spec.float(f64::from_bits(v), conv),
                None => b"<missing>".to_vec(),
            },
            _ => {
                out.extend_from_slice(&fmt[start..]);
                break;
            }
        };
        out.extend_from_slice(&text);
    }
    out
}

/// A NUL-terminated string at `addr` (at most [`MAX_STRING`] bytes; an unreadable byte ends it).
fn read_cstr(addr: u64, read: &mut dyn FnMut(u64, &mut [u8]) -> bool) -> Vec<u8> {
    let mut b = [0u8];
    (0..MAX_STRING as u64).map_while(|i| (read(addr.wrapping_add(i), &mut b) && b[0] != 0).then_some(b[0])).collect()
}

fn digits(fmt: &[u8], i: &mut usize) -> Option<usize> {
    let start = *i;
    while fmt.get(*i).is_some_and(u8::is_ascii_digit) {
        *i += 1;
    }
    std::str::from_utf8(&fmt[start..*i]).ok()?.parse().ok()
}

/// One conversion's flags, width and precision.
#[derive(Default)]
struct Spec {
    left: bool,
    plus: bool,
    space: bool,
    alt: bool,
    zero: bool,
    width: Option<usize>,
    precision: Option<usize>,
}

impl Spec {
    /// Pads `body` with spaces to the width.
    fn pad(&self, body: Vec<u8>) -> Vec<u8> {
        self.pad_parts(b"", body, false)
    }

    /// `sign`, then `body`, padded to the width: zeros between them when `zeros`, else spaces
    /// (after when left-justified).
    fn pad_parts(&self, sign: &[u8], body: Vec<u8>, zeros: bool) -> Vec<u8> {
        let len = sign.len() + body.len();
        let fill = self.width.unwrap_or(0).saturating_sub(len);
        let mut out = Vec::with_capacity(len + fill);
        if self.left {
            out.extend_from_slice(sign);
            out.extend_from_slice(&body);
            out.resize(out.len() + fill, b' ');
        } else if zeros {
            out.extend_from_slice(sign);
            out.resize(out.len() + fill, b'0');
            out.extend_from_slice(&body);
        } else {
            out.resize(fill, b' ');
            out.extend_from_slice(sign);
            out.extend_from_slice(&body);
        }
        out
    }

    fn sign(&self, negative: bool) -> &'static [u8] {
        if negative {
            b"-"
        } else if self.plus {
            b"+"
        } else if self.space {
            b" "
        } else {
            b""
        }
    }

    /// An integer's digits with its sign or radix prefix, under the precision (minimum digits).
    fn integer(&self, negative: bool, mut digits: String, prefix: &str) -> Vec<u8> {
        if let Some(p) = self.precision {
            if p == 0 && digits == "0" {
                digits.clear();
            }
            while digits.len() < p {
                digits.insert(0, '0');
            }
        }
        let mut sign = self.sign(negative).to_vec();
        sign.extend_from_slice(prefix.as_bytes());
        self.pad_parts(&sign, digits.into_bytes(), self.zero && !self.left && self.precision.is_none())
    }

    /// A floating-point conversion (`f e g a` and their upper-case forms).
    fn float(&self, v: f64, conv: u8) -> Vec<u8> {
        let upper = conv.is_ascii_uppercase();
        let negative = v.is_sign_negative() && !v.is_nan();
        let a = v.abs();
        let body = if !a.is_finite() {
            let s = if a.is_nan() { "nan" } else { "inf" };
            return self.pad_parts(self.sign(negative), if upper { s.to_uppercase() } else { s.to_string() }.into_bytes(), false);
        } else {
            let p = self.precision.unwrap_or(6);
            match conv.to_ascii_lowercase() {
                b'f' => fixed(a, p, self.alt),
                b'e' => exponent(a, p, self.alt),
                b'a' => hex_float(a, self.precision),
                _ => general(a, p.max(1), self.alt),
            }
        };
        let body = if upper { body.to_uppercase() } else { body };
        self.pad_parts(self.sign(negative), body.into_bytes(), self.zero && !self.left)
    }
}

fn fixed(a: f64, p: usize, alt: bool) -> String {
    let mut s = format!("{a:.p$}");
    if alt && p == 0 {
        s.push('.');
    }
    s
}

/// `%e`: d.ddde±XX (at least two exponent digits).
fn exponent(a: f64, p: usize, alt: bool) -> String {
    let s = format!("{a:.p$e}");
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let dot = if alt && p == 0 { "." } else { "" };
    format!("{mant}{dot}e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs())
}

/// `%g`: `%e` or `%f` by the exponent, trailing zeros removed unless `#`.
fn general(a: f64, p: usize, alt: bool) -> String {
    let x = if a == 0.0 {
        0
    } else {
        let s = format!("{a:.prec$e}", prec = p - 1);
        s.split_once('e').and_then(|(_, e)| e.parse::<i64>().ok()).unwrap_or(0)
    };
    let s = if x < -4 || x >= p as i64 { exponent(a, p - 1, alt) } else { fixed(a, (p as i64 - 1 - x) as usize, alt) };
    if alt {
        return s;
    }
    let (mant, exp) = match s.find('e') {
        Some(i) => s.split_at(i),
        None => (s.as_str(), ""),
    };
    let mant = if mant.contains('.') { mant.trim_end_matches('0').trim_end_matches('.') } else { mant };
    format!("{mant}{exp}")
}

/// `%a`: 0x1.hhhp±d (glibc's form).
fn hex_float(a: f64, precision: Option<usize>) -> String {
    if a == 0.0 {
        return match precision {
            Some(p) if p > 0 => format!("0x0.{}p+0", "0".repeat(p)),
            _ => "0x0p+0".into(),
        };
    }
    let bits = a.to_bits();
    let (mut e, mut m) = (((bits >> 52) & 0x7ff) as i64, bits & ((1 << 52) - 1));
    let lead = if e == 0 { 0 } else { 1 };
    e = if e == 0 { -1022 } else { e - 1023 };
    let mut digits = format!("{m:013x}");
    if let Some(p) = precision.filter(|&p| p < 13) {
        let shift = 4 * (13 - p) as u32;
        let round = (m >> (shift - 1)) & 1;
        m = (m >> shift) + round;
        digits = if p == 0 { String::new() } else { format!("{m:0p$x}") };
    } else if precision.is_none() {
        digits = digits.trim_end_matches('0').to_string();
    }
    let dot = if digits.is_empty() { "" } else { "." };
    format!("0x{lead}{dot}{digits}p{}{}", if e < 0 { '-' } else { '+' }, e.abs())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Formats `fmt` with the arguments laid out as nvcc does (each aligned to its size).
    fn run(fmt: &str, args: &[(usize, u64)], strings: &[(u64, &str)]) -> String {
        let mut buf = Vec::new();
        for &(size, v) in args {
            while buf.len() % size != 0 {
                buf.push(0xAA);
            }
            buf.extend_from_slice(&v.to_le_bytes()[..size]);
        }
        let mut mem: BTreeMap<u64, u8> = BTreeMap::new();
        for (i, &b) in buf.iter().enumerate() {
            mem.insert(0x8000 + i as u64, b);
        }
        for (i, b) in fmt.bytes().chain([0]).enumerate() {
            mem.insert(0x1000 + i as u64, b);
        }
        for &(a, s) in strings {
            for (i, b) in s.bytes().chain([0]).enumerate() {
                mem.insert(a + i as u64, b);
            }
        }
        let mut read = |a: u64, out: &mut [u8]| {
            (0..out.len()).all(|i| mem.get(&(a + i as u64)).map(|&b| out[i] = b).is_some())
        };
        String::from_utf8(format(0x1000, 0x8000, &mut read)).unwrap()
    }

    #[test]
    fn conversions_match_the_c_library() {
        let d = |v: f64| (8, v.to_bits());
        assert_eq!(run("n=%d, %5d|%-5d|%05d|%+d", &[(4, -7i32 as u32 as u64), (4, 42), (4, 42), (4, 42), (4, 3)], &[]), "n=-7,    42|42   |00042|+3");
        assert_eq!(run("%u %x %X %#x %o %lld %lu", &[(4, u32::MAX as u64), (4, 255), (4, 255), (4, 255), (4, 8), (8, -5i64 as u64), (8, 1 << 40)], &[]), "4294967295 ff FF 0xff 10 -5 1099511627776");
        assert_eq!(run("%f %.2f %e %g %g %g", &[d(1.5), d(3.14159), d(12345.678), d(0.0001), d(1e-5), d(123456789.0)], &[]), "1.500000 3.14 1.234568e+04 0.0001 1e-05 1.23457e+08");
        assert_eq!(run("%8.3f|%-8.1e|%G", &[d(-2.5), d(0.5), d(f64::INFINITY)], &[]), "  -2.500|5.0e-01 |INF");
        assert_eq!(run("[%s] [%.3s] [%c] %%", &[(8, 0x2000), (8, 0x2000), (4, b'z' as u64)], &[(0x2000, "hello")]), "[hello] [hel] [z] %");
        assert_eq!(run("%a %.1a", &[d(1.0), d(1.5)], &[]), "0x1p+0 0x1.8p+0");
        // Mixed sizes: a 4-byte int then a double lands at offset 8.
        assert_eq!(run("%d %f", &[(4, 1), d(2.0)], &[]), "1 2.000000");
    }

    #[test]
    fn bad_formats_print_their_text() {
        assert_eq!(run("a %q b", &[], &[]), "a %q b");
        assert_eq!(run("tail %", &[], &[]), "tail %");
        assert_eq!(run("%d %d", &[(4, 1)], &[]), "1 <missing>");
    }

    #[test]
    fn the_sink_orders_by_cta_then_warp() {
        let s = PrintfSink::default();
        s.push(1, 0, b"c\n", 1);
        s.push(0, 1, b"b\n", 1);
        s.push(0, 0, b"a\n", 1);
        s.push(0, 0, b"a2\n", 1);
        assert_eq!(s.take(), b"a\na2\nb\nc\n");
        assert!(s.take().is_empty());
    }
}
