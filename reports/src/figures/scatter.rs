//! `validation_scatter`: measured (x) against simulated (y) cycles, one point per workload, on
//! log-log axes sharing one range, with the y = x line, a shaded ±error band, the names of the
//! workloads outside the band, and n / MAPE / Pearson r in the emptiest corner.

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::axis::Scale;
use crate::error::ReportError;
use crate::frame::{self, drawing, Axes, Labeler, Marker, Placement};
use crate::render::{render, Figure, PixelRect, Written};
use crate::stats::{check_points, validation_stats, ValidationStats};
use crate::style::{self, font, pt, FigureSpec};

/// One workload's cycles, measured on hardware and simulated.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ValidationPoint {
    /// Workload name (the label drawn next to an outlier).
    pub workload: String,
    /// Cycles measured on the GPU.
    pub measured_cycles: f64,
    /// Cycles the simulator predicted.
    pub simulated_cycles: f64,
}

/// Options of [`validation_scatter`].
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ScatterOptions {
    /// Half-width of the shaded band as a fraction: 0.25 shades simulated within ±25% of measured.
    pub error_band: f64,
    /// Write the workload name next to each point outside the band.
    pub label_outliers: bool,
}

impl Default for ScatterOptions {
    fn default() -> Self {
        Self {
            error_band: 0.25,
            label_outliers: true,
        }
    }
}

struct Scatter<'a> {
    points: &'a [ValidationPoint],
    opts: &'a ScatterOptions,
    stats: ValidationStats,
}

const WHAT: &str = "validation_scatter";

/// Draws the validation scatter into `<stem>.png` and `<stem>.svg`. Axes are always log-log (the
/// spec's `x_log`/`y_log` are not consulted); labels default to "Measured (cycles)" and
/// "Simulated (cycles)".
pub fn validation_scatter(
    points: &[ValidationPoint],
    opts: &ScatterOptions,
    spec: &FigureSpec,
    stem: impl AsRef<Path>,
) -> Result<Written, ReportError> {
    if !(opts.error_band.is_finite() && opts.error_band > 0.0 && opts.error_band < 1.0) {
        return Err(ReportError::InvalidSpec(format!(
            "error_band = {}: must be a fraction in (0, 1)",
            opts.error_band
        )));
    }
    check_points(WHAT, points)?;
    let stats = validation_stats(points)?;
    render(
        &Scatter {
            points,
            opts,
            stats,
        },
        spec,
        stem.as_ref(),
    )
}

impl Scatter<'_> {
    fn outside_band(&self, p: &ValidationPoint) -> bool {
        (p.simulated_cycles / p.measured_cycles - 1.0).abs() > self.opts.error_band
    }

    fn caption(&self) -> Vec<String> {
        let s = &self.stats;
        let within = self.points.iter().filter(|p| !self.outside_band(p)).count();
        vec![
            format!("n = {}", s.n),
            format!("MAPE = {:.1}%", s.mape_pct),
            match s.pearson_r {
                Some(r) => format!("Pearson r = {r:.3}"),
                None => "Pearson r = n/a".into(),
            },
            format!(
                "within ±{:.0}%: {within}/{}",
                self.opts.error_band * 100.0,
                s.n
            ),
        ]
    }
}

impl Figure for Scatter<'_> {
    const NAME: &'static str = WHAT;

    fn draw<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        spec: &FigureSpec,
    ) -> Result<PixelRect, ReportError> {
        let all = self
            .points
            .iter()
            .flat_map(|p| [p.measured_cycles, p.simulated_cycles]);
        let scale = Scale::fit(all, true, false);
        let (lo, hi) = (scale.lo(), scale.hi());
        let area = frame::page(root, &spec.title, &[], Placement::Top, WHAT)?;
        let chart = frame::chart(
            &area,
            Axes::new(
                scale.clone(),
                scale,
                spec.x_label_or("Measured (cycles)"),
                spec.y_label_or("Simulated (cycles)"),
            ),
            WHAT,
        )?;
        let plot = frame::plot_rect(&chart);

        // Band: y within x·(1 ± b); straight edges in log-log, clipped to the axes.
        let b = self.opts.error_band;
        let corners = [
            (lo, lo * (1.0 - b)),
            (hi, hi * (1.0 - b)),
            (hi, hi * (1.0 + b)),
            (lo, lo * (1.0 + b)),
        ];
        let px: Vec<(f64, f64)> = corners
            .iter()
            .map(|c| {
                let (x, y) = chart.backend_coord(c);
                (f64::from(x), f64::from(y))
            })
            .collect();
        let band = frame::clip_polygon(&px, plot);
        root.draw(&Polygon::new(band, style::fill(style::BAND)))
            .map_err(drawing(WHAT))?;
        frame::reference_line(chart.plotting_area(), (lo, lo), (hi, hi), WHAT)?;

        let mut labeler = Labeler::new(plot);
        let pos: Vec<(i32, i32)> = self
            .points
            .iter()
            .map(|p| chart.backend_coord(&(p.measured_cycles, p.simulated_cycles)))
            .collect();
        for (p, at) in self.points.iter().zip(&pos) {
            labeler.point(*at);
            let (color, marker) = if self.outside_band(p) {
                (style::series_color(1), Marker::Triangle)
            } else {
                (style::series_color(0), Marker::Circle)
            };
            frame::draw_marker(root, *at, marker, color, WHAT)?;
        }
        let caption = self.caption();
        let size = frame::note_size(root, &caption, WHAT)?;
        let corner = labeler.corner(size);
        if self.opts.label_outliers {
            let f = font(pt::NOTE);
            for (p, at) in self
                .points
                .iter()
                .zip(&pos)
                .filter(|(p, _)| self.outside_band(p))
            {
                let size = frame::text_size(root, &p.workload, &f, WHAT)?;
                let spot = labeler.near(*at, size);
                frame::text_at(root, &p.workload, &f, spot, WHAT)?;
            }
        }
        frame::note_box(root, &caption, corner, WHAT)?;
        Ok(plot)
    }
}
