//! `sweep_curves`: a metric against a swept parameter (L2 size, HBM channels, scheduler count…),
//! one line with markers per workload, optionally each normalised to its value at a baseline
//! parameter value, on linear or log axes.

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::axis::Scale;
use crate::error::{check_value, ReportError};
use crate::figures::{check_unique, first_seen};
use crate::frame::{self, drawing, Axes, Mark, Marker, Placement};
use crate::render::{render, Figure, PixelRect, Written};
use crate::style::{self, pt, FigureSpec};

/// One observation of a sweep: `workload` at parameter value `x` gave metric `y`.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SweepPoint {
    /// Workload (one line per workload, in order of first appearance).
    pub workload: String,
    /// Value of the swept parameter.
    pub x: f64,
    /// Value of the metric.
    pub y: f64,
}

/// Options of [`sweep_curves`].
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct SweepOptions {
    /// Divide each workload's values by its value at this parameter value (which every workload
    /// must have); a reference line is drawn at 1.
    pub normalize_at: Option<f64>,
}

const WHAT: &str = "sweep_curves";

/// One prepared line.
struct Line {
    name: String,
    points: Vec<(f64, f64)>,
}

struct Sweep {
    lines: Vec<Line>,
    normalized: Option<f64>,
    y_default: String,
}

/// Draws one line per workload into `<stem>.png` and `<stem>.svg`. Points are joined in order of
/// `x`; a workload must not have two points at the same `x`. Log axes follow the spec.
pub fn sweep_curves(
    points: &[SweepPoint],
    opts: &SweepOptions,
    spec: &FigureSpec,
    stem: impl AsRef<Path>,
) -> Result<Written, ReportError> {
    if points.is_empty() {
        return Err(ReportError::EmptyData { what: WHAT });
    }
    let names = first_seen(points.iter().map(|p| p.workload.as_str()));
    style::check_series_count(WHAT, names.len())?;
    let xs: Vec<String> = points.iter().map(|p| p.x.to_string()).collect();
    check_unique(
        WHAT,
        points
            .iter()
            .zip(&xs)
            .map(|(p, x)| (p.workload.as_str(), x.as_str())),
    )?;
    if let Some(b) = opts.normalize_at {
        check_value(
            WHAT,
            "normalize_at",
            "normalize_at",
            Some(("x", spec.x_log)),
            b,
        )?;
    }
    let mut lines = Vec::with_capacity(names.len());
    for name in names {
        let mut pts: Vec<(f64, f64)> = Vec::new();
        for p in points.iter().filter(|p| p.workload == name) {
            let label = format!("{} at x = {}", p.workload, p.x);
            let x = check_value(WHAT, &label, "x", Some(("x", spec.x_log)), p.x)?;
            let y = check_value(WHAT, &label, "y", None, p.y)?;
            pts.push((x, y));
        }
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        if let Some(base_x) = opts.normalize_at {
            let base = pts
                .iter()
                .find(|(x, _)| (x - base_x).abs() <= 1e-9 * base_x.abs().max(1e-300))
                .map(|(_, y)| *y)
                .ok_or_else(|| ReportError::InvalidData {
                    what: WHAT,
                    message: format!("workload {name:?} has no point at the baseline x = {base_x}"),
                })?;
            if base == 0.0 {
                return Err(ReportError::InvalidData {
                    what: WHAT,
                    message: format!("workload {name:?} is 0 at the baseline x = {base_x}"),
                });
            }
            for p in &mut pts {
                p.1 /= base;
            }
        }
        for (x, y) in &pts {
            check_value(
                WHAT,
                &format!("{name} at x = {x}"),
                "y",
                Some(("y", spec.y_log)),
                *y,
            )?;
        }
        lines.push(Line {
            name: name.to_string(),
            points: pts,
        });
    }
    let y_default = match opts.normalize_at {
        Some(b) => format!("Normalised to x = {b}"),
        None => String::new(),
    };
    render(
        &Sweep {
            lines,
            normalized: opts.normalize_at,
            y_default,
        },
        spec,
        stem.as_ref(),
    )
}

impl Figure for Sweep {
    const NAME: &'static str = WHAT;

    fn draw<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        spec: &FigureSpec,
    ) -> Result<PixelRect, ReportError> {
        let legend = frame::series_legend(self.lines.iter().map(|l| l.name.clone()), |i| {
            Mark::Line(style::series_color(i), Marker::nth(i))
        });
        let area = frame::page(root, &spec.title, &legend, Placement::Top, WHAT)?;
        let all = || self.lines.iter().flat_map(|l| l.points.iter());
        // Few distinct parameter values: tick exactly those.
        let mut xs: Vec<f64> = all().map(|p| p.0).collect();
        xs.sort_by(f64::total_cmp);
        xs.dedup();
        let x = Scale::fit(xs.iter().copied(), spec.x_log, false).with_ticks(xs);
        let reference = self.normalized.map(|_| 1.0);
        let y = Scale::fit(all().map(|p| p.1).chain(reference), spec.y_log, false);
        let (x_lo, x_hi) = (x.lo(), x.hi());
        let chart = frame::chart(
            &area,
            Axes::new(x, y, &spec.x_label, spec.y_label_or(&self.y_default)),
            WHAT,
        )?;
        let plot = chart.plotting_area();
        if let Some(r) = reference {
            frame::reference_line(plot, (x_lo, r), (x_hi, r), WHAT)?;
        }
        for (i, line) in self.lines.iter().enumerate() {
            let color = style::series_color(i);
            plot.draw(&PathElement::new(
                line.points.clone(),
                style::stroke(color, pt::LINE),
            ))
            .map_err(drawing(WHAT))?;
            for p in &line.points {
                frame::draw_marker(plot, *p, Marker::nth(i), color, WHAT)?;
            }
        }
        Ok(frame::plot_rect(&chart))
    }
}
