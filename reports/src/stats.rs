//! The summary statistics printed on validation figures and tables: mean absolute percentage error
//! (MAPE), Pearson's correlation coefficient, and the worst case. They are computed from the same
//! [`ValidationPoint`](crate::ValidationPoint)s that are plotted, so a caption can never disagree
//! with its figure.

use crate::error::{check_value, ReportError};
use crate::figures::scatter::ValidationPoint;
use crate::table::{Cell, Table};

/// Agreement between measured and simulated cycles over a set of workloads.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ValidationStats {
    /// Number of workloads.
    pub n: usize,
    /// Mean of |simulated − measured| / measured, in percent.
    pub mape_pct: f64,
    /// Pearson's r of measured vs simulated cycles (linear, not log); `None` with fewer than two
    /// points or when either side has no variance.
    pub pearson_r: Option<f64>,
    /// The workload with the largest absolute error.
    pub worst_workload: String,
    /// Its signed error, (simulated − measured) / measured, in percent.
    pub worst_error_pct: f64,
}

/// Checks validation points for `what`: at least one, every cycle count finite and positive
/// (both sit on log axes).
pub(crate) fn check_points(
    what: &'static str,
    points: &[ValidationPoint],
) -> Result<(), ReportError> {
    if points.is_empty() {
        return Err(ReportError::EmptyData { what });
    }
    for p in points {
        check_value(
            what,
            &p.workload,
            "measured_cycles",
            Some(("x", true)),
            p.measured_cycles,
        )?;
        check_value(
            what,
            &p.workload,
            "simulated_cycles",
            Some(("y", true)),
            p.simulated_cycles,
        )?;
    }
    Ok(())
}

/// Signed relative error of one point, in percent.
pub fn error_pct(p: &ValidationPoint) -> f64 {
    (p.simulated_cycles - p.measured_cycles) / p.measured_cycles * 100.0
}

/// Computes [`ValidationStats`]; every cycle count must be finite and positive.
pub fn validation_stats(points: &[ValidationPoint]) -> Result<ValidationStats, ReportError> {
    const WHAT: &str = "validation_stats";
    check_points(WHAT, points)?;
    let n = points.len();
    let mape_pct = points.iter().map(|p| error_pct(p).abs()).sum::<f64>() / n as f64;
    let worst = points
        .iter()
        .max_by(|a, b| error_pct(a).abs().total_cmp(&error_pct(b).abs()))
        .ok_or(ReportError::EmptyData { what: WHAT })?;
    Ok(ValidationStats {
        n,
        mape_pct,
        pearson_r: pearson(
            points
                .iter()
                .map(|p| (p.measured_cycles, p.simulated_cycles)),
        ),
        worst_workload: worst.workload.clone(),
        worst_error_pct: error_pct(worst),
    })
}

/// The per-workload table behind a validation figure: workload, measured cycles, simulated
/// cycles, signed error in percent (one decimal).
pub fn validation_table(points: &[ValidationPoint]) -> Result<Table, ReportError> {
    validation_stats(points)?;
    let mut t = Table::new([
        "workload",
        "measured (cycles)",
        "simulated (cycles)",
        "error (%)",
    ]);
    for p in points {
        t = t.row([
            Cell::from(p.workload.as_str()),
            Cell::float(p.measured_cycles, 0),
            Cell::float(p.simulated_cycles, 0),
            Cell::float(error_pct(p), 1),
        ]);
    }
    Ok(t)
}

/// Pearson's r of the pairs; `None` with fewer than two pairs or zero variance on either side.
pub fn pearson(pairs: impl Iterator<Item = (f64, f64)> + Clone) -> Option<f64> {
    let n = pairs.clone().count();
    if n < 2 {
        return None;
    }
    let (sx, sy) = pairs
        .clone()
        .fold((0.0, 0.0), |(a, b), (x, y)| (a + x, b + y));
    let (mx, my) = (sx / n as f64, sy / n as f64);
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (x, y) in pairs {
        sxy += (x - mx) * (y - my);
        sxx += (x - mx) * (x - mx);
        syy += (y - my) * (y - my);
    }
    let r = sxy / (sxx * syy).sqrt();
    r.is_finite().then_some(r.clamp(-1.0, 1.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pt(w: &str, m: f64, s: f64) -> ValidationPoint {
        ValidationPoint {
            workload: w.into(),
            measured_cycles: m,
            simulated_cycles: s,
        }
    }

    #[test]
    fn mape_and_worst() {
        let s = validation_stats(&[pt("a", 100.0, 110.0), pt("b", 200.0, 150.0)]).unwrap();
        assert!((s.mape_pct - 17.5).abs() < 1e-12);
        assert_eq!(s.worst_workload, "b");
        assert!((s.worst_error_pct + 25.0).abs() < 1e-12);
        assert!((s.pearson_r.unwrap() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn pearson_edge_cases() {
        assert_eq!(pearson([(1.0, 2.0)].into_iter()), None);
        assert_eq!(pearson([(1.0, 2.0), (1.0, 3.0)].into_iter()), None);
        let r = pearson([(1.0, 3.0), (2.0, 2.0), (3.0, 1.0)].into_iter()).unwrap();
        assert!((r + 1.0).abs() < 1e-12);
    }

    #[test]
    fn rejects_bad_points() {
        assert!(matches!(
            validation_stats(&[]),
            Err(ReportError::EmptyData { .. })
        ));
        let e = validation_stats(&[pt("zero", 0.0, 1.0)]).unwrap_err();
        assert!(e.to_string().contains("zero"), "{e}");
        assert!(matches!(
            validation_stats(&[pt("nan", 1.0, f64::NAN)]),
            Err(ReportError::NotFinite {
                field: "simulated_cycles",
                ..
            })
        ));
    }
}
