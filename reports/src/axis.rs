//! Axes: one coordinate type, [`Scale`], serves every figure — linear, logarithmic (decades with
//! 2–9 minor lines) and categorical (one slot per named group) — together with tick placement
//! ("nice" 1-2-2.5-5 steps) and tick labels with SI suffixes (`10k`, `2.5M`, `1T`). It implements
//! plotters' `Ranged`, so a chart is always `Cartesian2d<Scale, Scale>` and the axis code is
//! written once.

use std::ops::Range;

use plotters::coord::ranged1d::{KeyPointHint, NoDefaultFormatting, Ranged, ValueFormatter};

/// How values map to the axis.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ScaleKind {
    Linear,
    Log,
    /// Slots `0..n` named by the strings; value `i` is the centre of slot `i`.
    Category(Vec<String>),
}

/// One axis: a value range and how it is mapped and labelled.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Scale {
    lo: f64,
    hi: f64,
    kind: ScaleKind,
    /// Ticks chosen by the figure (e.g. the swept parameter values) instead of computed ones.
    ticks: Option<Vec<f64>>,
}

/// Fraction of the data span added on each side of a fitted axis.
const PAD: f64 = 0.05;

impl Scale {
    /// An axis that shows every value (all finite; all positive when `log`), padded by 5% of the span
    /// (in decades for a log axis). `include_zero` pins a linear axis to start at 0 (bars, fractions).
    /// A single value gets a span around it.
    pub(crate) fn fit(
        values: impl IntoIterator<Item = f64>,
        log: bool,
        include_zero: bool,
    ) -> Self {
        let (mut lo, mut hi) = values
            .into_iter()
            .filter(|v| v.is_finite() && (!log || *v > 0.0))
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
                (lo.min(v), hi.max(v))
            });
        if lo > hi {
            (lo, hi) = if log { (1.0, 10.0) } else { (0.0, 1.0) };
        }
        if log {
            let (mut a, mut b) = (lo.log10(), hi.log10());
            if b - a < 1e-9 {
                (a, b) = (a - 0.5, b + 0.5);
            }
            let pad = (b - a) * PAD;
            return Self::log(10f64.powf(a - pad), 10f64.powf(b + pad));
        }
        if include_zero {
            lo = lo.min(0.0);
            hi = hi.max(0.0);
        }
        if hi - lo < 1e-12 * hi.abs().max(1.0) {
            let half = if hi == 0.0 { 1.0 } else { hi.abs() * 0.1 };
            (lo, hi) = (lo - half, hi + half);
        }
        let pad = (hi - lo) * PAD;
        let lo = if include_zero && lo == 0.0 {
            0.0
        } else {
            lo - pad
        };
        let hi = if include_zero && hi == 0.0 {
            0.0
        } else {
            hi + pad
        };
        Self::linear(lo, hi)
    }

    /// A linear axis over `lo..hi`.
    pub(crate) fn linear(lo: f64, hi: f64) -> Self {
        Self {
            lo,
            hi,
            kind: ScaleKind::Linear,
            ticks: None,
        }
    }

    /// A log axis over `lo..hi` (both > 0).
    pub(crate) fn log(lo: f64, hi: f64) -> Self {
        Self {
            lo,
            hi,
            kind: ScaleKind::Log,
            ticks: None,
        }
    }

    /// A categorical axis with one slot per name.
    pub(crate) fn category(names: Vec<String>) -> Self {
        let n = names.len().max(1) as f64;
        Self {
            lo: -0.5,
            hi: n - 0.5,
            kind: ScaleKind::Category(names),
            ticks: None,
        }
    }

    /// Uses `ticks` (those inside the range) as the major ticks when there are 2 to `max` of them;
    /// the computed ones otherwise.
    pub(crate) fn with_ticks(mut self, ticks: Vec<f64>) -> Self {
        self.ticks = Some(ticks);
        self
    }

    pub(crate) fn kind(&self) -> &ScaleKind {
        &self.kind
    }

    pub(crate) fn lo(&self) -> f64 {
        self.lo
    }

    pub(crate) fn hi(&self) -> f64 {
        self.hi
    }

    /// Position of `v` along the axis, 0 at `lo` and 1 at `hi` (outside for values beyond).
    fn unit(&self, v: f64) -> f64 {
        let t = match self.kind {
            ScaleKind::Log => (v.ln() - self.lo.ln()) / (self.hi.ln() - self.lo.ln()),
            _ => (v - self.lo) / (self.hi - self.lo),
        };
        // Far outside values (or -inf from a log of 0) clamp so pixel maths never overflows.
        if t.is_nan() {
            0.0
        } else {
            t.clamp(-100.0, 100.0)
        }
    }

    /// Major ticks, at most `max` of them.
    pub(crate) fn major_ticks(&self, max: usize) -> Vec<f64> {
        if max == 0 {
            return Vec::new();
        }
        let max = max.max(2);
        if let Some(ticks) = &self.ticks {
            let inside: Vec<f64> = ticks
                .iter()
                .copied()
                .filter(|v| *v >= self.lo && *v <= self.hi)
                .collect();
            if (2..=max).contains(&inside.len()) {
                return inside;
            }
        }
        match &self.kind {
            ScaleKind::Linear => linear_ticks(self.lo, self.hi, max),
            ScaleKind::Log => log_ticks(self.lo, self.hi, max),
            ScaleKind::Category(names) => (0..names.len()).map(|i| i as f64).collect(),
        }
    }

    /// Minor grid positions: 2..9 × each decade on a log axis spanning few enough decades; none
    /// otherwise.
    fn minor_ticks(&self) -> Vec<f64> {
        if self.kind != ScaleKind::Log {
            return Vec::new();
        }
        let (a, b) = (
            self.lo.log10().floor() as i32,
            self.hi.log10().ceil() as i32,
        );
        if b - a > 6 {
            return Vec::new();
        }
        (a..=b)
            .flat_map(|e| (2..10).map(move |k| f64::from(k) * 10f64.powi(e)))
            .filter(|v| *v >= self.lo && *v <= self.hi)
            .collect()
    }

    /// The label of a tick at `v`.
    pub(crate) fn label(&self, v: f64) -> String {
        match &self.kind {
            ScaleKind::Category(names) => {
                let i = v.round();
                if i >= 0.0 && (i as usize) < names.len() {
                    names[i as usize].clone()
                } else {
                    String::new()
                }
            }
            ScaleKind::Linear if self.ticks.is_none() => {
                let ticks = self.major_ticks(8);
                let step = ticks
                    .windows(2)
                    .map(|w| w[1] - w[0])
                    .fold(f64::INFINITY, f64::min);
                format_number(v, if step.is_finite() { step } else { v.abs() })
            }
            // Log ticks and chosen ticks: three significant digits.
            _ => format_number(v, v.abs() / 100.0),
        }
    }
}

impl Ranged for Scale {
    type FormatOption = NoDefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        let span = f64::from(limit.1 - limit.0);
        limit.0 + (span * self.unit(*value)).round() as i32
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            // Light mesh lines: only a log axis has them, and only when asked for some.
            if hint.max_num_points() == 0 {
                Vec::new()
            } else {
                self.minor_ticks()
            }
        } else {
            self.major_ticks(hint.max_num_points())
        }
    }

    fn range(&self) -> Range<f64> {
        self.lo..self.hi
    }
}

impl ValueFormatter<f64> for Scale {
    fn format_ext(&self, value: &f64) -> String {
        self.label(*value)
    }
}

/// Ticks at a "nice" step (1, 2, 2.5 or 5 × 10^k) inside `lo..=hi`, at most `max` of them.
fn linear_ticks(lo: f64, hi: f64, max: usize) -> Vec<f64> {
    let span = hi - lo;
    if span.is_nan() || span <= 0.0 {
        return vec![lo];
    }
    let raw = span / (max - 1) as f64;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 2.5, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| ((span / s).floor() as usize) < max)
        .unwrap_or(10.0 * mag);
    let first = (lo / step).ceil() as i64;
    let last = (hi / step).floor() as i64;
    // Multiply from integers so ticks are exact multiples (no 0.30000000000000004).
    (first..=last).map(|k| k as f64 * step).collect()
}

/// Ticks on a log axis: every decade (or every n-th when there are too many); within a range
/// narrower than two decades, 1-2-5 (or 1..9) × 10^k so there are at least two labels.
fn log_ticks(lo: f64, hi: f64, max: usize) -> Vec<f64> {
    if !(lo > 0.0 && hi > lo) {
        return vec![lo];
    }
    let (a, b) = (lo.log10().floor() as i32, hi.log10().ceil() as i32);
    let inside = |v: &f64| *v >= lo * (1.0 - 1e-9) && *v <= hi * (1.0 + 1e-9);
    for mantissas in [
        &[1.0][..],
        &[1.0, 2.0, 5.0][..],
        &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0][..],
    ] {
        let ticks: Vec<f64> = (a..=b)
            .flat_map(|e| mantissas.iter().map(move |m| m * 10f64.powi(e)))
            .filter(inside)
            .collect();
        if ticks.len() >= 2 {
            // Too many decades: keep every n-th one.
            let every = ticks.len().div_ceil(max).max(1);
            return ticks.into_iter().step_by(every).collect();
        }
    }
    vec![lo, hi]
}

/// A number as a tick label, with the precision a tick spacing of `step` needs: SI suffixes from
/// 1000 up (`2k`, `2.5M`, `1.2G`, `3T`), plain decimals below, scientific below 0.001.
pub(crate) fn format_number(v: f64, step: f64) -> String {
    if v == 0.0 {
        return "0".into();
    }
    let a = v.abs();
    const SI: [(f64, &str); 5] = [(1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")];
    for (scale, suffix) in SI {
        if a >= scale {
            return format!("{}{suffix}", trim(v / scale, step / scale));
        }
    }
    if a < 1e-3 {
        return trim_exp(format!("{v:.1e}"));
    }
    trim(v, step)
}

/// A quantity with an SI prefix and three significant digits: `format_si(4.8e12, "B/s")` is
/// `"4.8 TB/s"`.
pub(crate) fn format_si(v: f64, unit: &str) -> String {
    let a = v.abs();
    let (scale, prefix) = [(1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")]
        .into_iter()
        .find(|(s, _)| a >= *s)
        .unwrap_or((1.0, ""));
    let m = v / scale;
    let digits = if m.abs() >= 100.0 {
        0
    } else if m.abs() >= 10.0 {
        1
    } else {
        2
    };
    let s = format!("{m:.digits$}");
    let s = if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    };
    format!("{s} {prefix}{unit}")
}

/// `v` with enough decimals to tell ticks `step` apart (max 4), trailing zeros removed.
fn trim(v: f64, step: f64) -> String {
    let step = if step > 0.0 && step.is_finite() {
        step
    } else {
        v.abs()
    };
    let decimals = (-(step.log10().floor()) + 1.0).clamp(0.0, 4.0) as usize;
    let s = format!("{v:.decimals$}");
    let s = if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    };
    if s == "-0" {
        "0".into()
    } else {
        s
    }
}

/// `1.0e-4` → `1e-4`.
fn trim_exp(s: String) -> String {
    s.replace(".0e", "e")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_ticks_are_nice() {
        assert_eq!(
            linear_ticks(0.0, 10.0, 6),
            vec![0.0, 2.0, 4.0, 6.0, 8.0, 10.0]
        );
        assert_eq!(linear_ticks(0.0, 1.0, 5), vec![0.0, 0.25, 0.5, 0.75, 1.0]);
        let t = linear_ticks(0.1, 0.7, 7);
        assert!(
            t.iter()
                .all(|v| (v * 10.0 - (v * 10.0).round()).abs() < 1e-9),
            "{t:?}"
        );
    }

    #[test]
    fn log_ticks_cover_decades_and_narrow_ranges() {
        assert_eq!(log_ticks(1.0, 1000.0, 6), vec![1.0, 10.0, 100.0, 1000.0]);
        assert_eq!(log_ticks(150.0, 900.0, 6), vec![200.0, 500.0]);
        let many = log_ticks(1e-3, 1e12, 6);
        assert!(many.len() <= 6 && many.len() >= 3, "{many:?}");
    }

    #[test]
    fn labels_use_si_suffixes() {
        assert_eq!(format_number(10_000.0, 10_000.0), "10k");
        assert_eq!(format_number(2_500_000.0, 500_000.0), "2.5M");
        assert_eq!(format_number(3e12, 1e12), "3T");
        assert_eq!(format_number(0.25, 0.25), "0.25");
        assert_eq!(format_number(1.5, 0.5), "1.5");
        assert_eq!(format_number(2.0, 0.5), "2");
        assert_eq!(format_number(1e-4, 1e-4), "1e-4");
        assert_eq!(format_number(-0.0001, 1.0), "-1e-4");
    }

    #[test]
    fn si_quantities() {
        assert_eq!(format_si(4.8e12, "B/s"), "4.8 TB/s");
        assert_eq!(format_si(66.9e12, "FLOP/s"), "66.9 TFLOP/s");
        assert_eq!(format_si(989e12, "FLOP/s"), "989 TFLOP/s");
        assert_eq!(format_si(12.0, "B"), "12 B");
    }

    #[test]
    fn fit_pads_and_handles_degenerate_input() {
        let s = Scale::fit([1.0, 100.0], true, false);
        assert!(s.lo() < 1.0 && s.hi() > 100.0);
        let z = Scale::fit([5.0, 10.0], false, true);
        assert_eq!(z.lo(), 0.0);
        let one = Scale::fit([7.0], false, false);
        assert!(one.lo() < 7.0 && one.hi() > 7.0);
        let none = Scale::fit([f64::NAN], true, false);
        assert!(none.lo() > 0.0 && none.hi() > none.lo());
    }

    #[test]
    fn map_is_monotone_and_clamped() {
        let s = Scale::log(1.0, 100.0);
        assert_eq!(s.map(&1.0, (0, 100)), 0);
        assert_eq!(s.map(&10.0, (0, 100)), 50);
        assert_eq!(s.map(&100.0, (0, 100)), 100);
        assert_eq!(s.map(&0.0, (0, 100)), -10_000);
        let chosen = Scale::log(10.0, 300.0).with_ticks(vec![12.5, 25.0, 50.0, 400.0]);
        assert_eq!(chosen.major_ticks(6), vec![12.5, 25.0, 50.0]);
        assert_eq!(chosen.label(12.5), "12.5");
        assert_eq!(chosen.major_ticks(0), Vec::<f64>::new());
        let c = Scale::category(vec!["a".into(), "b".into()]);
        assert_eq!(c.label(1.0), "b");
        assert_eq!(c.label(5.0), "");
    }
}
