//! Comparing a run's output buffers with the workload's reference: a [`CheckReport`] with a
//! PASS/FAIL verdict, per-buffer counts, and the first mismatches (buffer, index, expected and
//! got, as values and as raw bits).
//!
//! Bitwise checks compare the output bits with the expected value encoded in the buffer's dtype;
//! tolerance checks decode both and apply [`Compare::Tolerance`]'s rule. Elements a reference
//! leaves as `None` and whole timing buffers are counted as ignored, never compared.

use crate::data::InitData;
use crate::dtype::{DType, Value};
use crate::manifest::{Compare, Manifest};
use crate::reference::{self, RefCtx};
use std::collections::BTreeMap;
use std::fmt;

/// How many mismatches a report keeps (counts are always complete).
pub const MAX_REPORTED_MISMATCHES: usize = 16;

/// Verdict of a check.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum CheckStatus {
    Pass,
    Fail,
    /// The manifest has no `[check]`.
    NotChecked,
}

/// Counts for one output buffer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BufferCheck {
    pub buffer: String,
    pub compared: u64,
    pub mismatched: u64,
    /// Elements not compared: timing outputs and elements the reference leaves open.
    pub ignored: u64,
}

/// One differing element.
#[derive(Clone, Debug, PartialEq)]
pub struct Mismatch {
    pub buffer: String,
    pub index: u64,
    pub expected: Value,
    pub got: Value,
    /// The expected value encoded in the buffer's dtype.
    pub expected_bits: u64,
    pub got_bits: u64,
    pub dtype: DType,
}

/// Result of [`crate::Workload::check`].
#[derive(Clone, Debug, PartialEq)]
pub struct CheckReport {
    pub workload: String,
    pub status: CheckStatus,
    pub reference: Option<String>,
    pub compare: Option<Compare>,
    pub buffers: Vec<BufferCheck>,
    /// The first [`MAX_REPORTED_MISMATCHES`] mismatches, in buffer then index order.
    pub mismatches: Vec<Mismatch>,
    /// Problems that prevent or spoil the comparison (missing output, wrong size, reference error).
    pub problems: Vec<String>,
}

impl CheckReport {
    pub fn passed(&self) -> bool {
        self.status == CheckStatus::Pass
    }
}

fn equal(compare: Compare, dtype: DType, expected: Value, got_bits: u64) -> bool {
    match compare {
        Compare::Bitwise => dtype.encode(expected) == got_bits,
        Compare::Tolerance(tol) => {
            let (e, g) = (expected.as_f64(), dtype.decode(got_bits).as_f64());
            (e.is_nan() && g.is_nan()) || e == g || (g - e).abs() <= tol * e.abs().max(1.0)
        }
    }
}

/// Compare `outputs` (buffer name to bytes read back) against the manifest's reference.
pub(crate) fn check(
    manifest: &Manifest,
    cluster: [u32; 3],
    inputs: &[InitData],
    outputs: &BTreeMap<&str, &[u8]>,
) -> CheckReport {
    let mut report = CheckReport {
        workload: manifest.name.clone(),
        status: CheckStatus::NotChecked,
        reference: None,
        compare: None,
        buffers: Vec::new(),
        mismatches: Vec::new(),
        problems: Vec::new(),
    };
    let Some(spec) = &manifest.check else {
        return report;
    };
    report.reference = Some(spec.reference.clone());
    report.compare = Some(spec.compare);
    let Some(reference) = reference::find(&spec.reference) else {
        report
            .problems
            .push(format!("unknown reference `{}`", spec.reference));
        report.status = CheckStatus::Fail;
        return report;
    };
    let expected = match RefCtx::new(manifest, inputs)
        .and_then(|ctx| (reference.compute)(&ctx.with_cluster(cluster)))
    {
        Ok(e) => e,
        Err(e) => {
            report
                .problems
                .push(format!("reference `{}` failed: {e}", spec.reference));
            report.status = CheckStatus::Fail;
            return report;
        }
    };
    for buf in manifest.buffers.iter().filter(|b| b.output) {
        let mut counts = BufferCheck {
            buffer: buf.name.clone(),
            compared: 0,
            mismatched: 0,
            ignored: 0,
        };
        let Some(got) = outputs.get(buf.name.as_str()) else {
            report
                .problems
                .push(format!("output buffer `{}` was not given", buf.name));
            continue;
        };
        if got.len() as u64 != buf.bytes() {
            report.problems.push(format!(
                "output `{}` has {} bytes, expected {}",
                buf.name,
                got.len(),
                buf.bytes()
            ));
            continue;
        }
        let exp = expected.iter().find(|e| e.buffer == buf.name);
        let size = buf.dtype.size();
        for (i, chunk) in got.chunks(size).enumerate() {
            let Some(e) = exp.and_then(|e| e.values.get(i).copied().flatten()) else {
                counts.ignored += 1;
                continue;
            };
            counts.compared += 1;
            let got_bits = buf.dtype.read_bits(chunk);
            if !equal(spec.compare, buf.dtype, e, got_bits) {
                counts.mismatched += 1;
                if report.mismatches.len() < MAX_REPORTED_MISMATCHES {
                    report.mismatches.push(Mismatch {
                        buffer: buf.name.clone(),
                        index: i as u64,
                        expected: e,
                        got: buf.dtype.decode(got_bits),
                        expected_bits: buf.dtype.encode(e),
                        got_bits,
                        dtype: buf.dtype,
                    });
                }
            }
        }
        report.buffers.push(counts);
    }
    let failed = !report.problems.is_empty() || report.buffers.iter().any(|b| b.mismatched > 0);
    report.status = if failed {
        CheckStatus::Fail
    } else {
        CheckStatus::Pass
    };
    report
}

impl fmt::Display for CheckReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let verdict = match self.status {
            CheckStatus::Pass => "PASS",
            CheckStatus::Fail => "FAIL",
            CheckStatus::NotChecked => "NOT CHECKED",
        };
        write!(f, "{verdict} {}", self.workload)?;
        match (&self.reference, self.compare) {
            (Some(r), Some(Compare::Bitwise)) => write!(f, " (reference `{r}`, bitwise)")?,
            (Some(r), Some(Compare::Tolerance(t))) => {
                write!(f, " (reference `{r}`, tolerance {t:e})")?
            }
            _ => {}
        }
        writeln!(f)?;
        for b in &self.buffers {
            writeln!(
                f,
                "  {}: {} compared, {} mismatched, {} ignored",
                b.buffer, b.compared, b.mismatched, b.ignored
            )?;
        }
        for m in &self.mismatches {
            let w = 2 * m.dtype.size();
            writeln!(
                f,
                "  {}[{}]: expected {} (0x{:0w$x}), got {} (0x{:0w$x})",
                m.buffer, m.index, m.expected, m.expected_bits, m.got, m.got_bits
            )?;
        }
        for p in &self.problems {
            writeln!(f, "  problem: {p}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tolerance_rule() {
        let t = Compare::Tolerance(1e-3);
        let bits = |x: f32| x.to_bits() as u64;
        assert!(equal(t, DType::F32, Value::Float(1000.0), bits(1000.9)));
        assert!(!equal(t, DType::F32, Value::Float(1000.0), bits(1001.1)));
        assert!(equal(t, DType::F32, Value::Float(0.0), bits(0.0009))); // absolute floor
        assert!(!equal(t, DType::F32, Value::Float(0.0), bits(0.0011)));
        assert!(equal(t, DType::F32, Value::Float(f64::NAN), bits(f32::NAN)));
        assert!(equal(
            Compare::Bitwise,
            DType::S32,
            Value::Int(-1),
            0xffff_ffff
        ));
        assert!(!equal(
            Compare::Bitwise,
            DType::F32,
            Value::Float(0.0),
            bits(-0.0)
        ));
    }
}
