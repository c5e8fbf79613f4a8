//! `launch_timeline`: a whole program's kernel launches on the simulated device timeline (the
//! report of `warpsim exec --report`). x is device time in µs, y the stream (the default
//! stream, then streams in creation order); each launch is a bar from its start to its end on its
//! stream's row, coloured by kernel (the legend names each: its demangled name; kernels beyond
//! the palette share one colour as "other kernels"), outlined so back-to-back launches stay
//! apart, and with its kernel's name inside where it fits.

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::axis::Scale;
use crate::error::ReportError;
use crate::frame::{self, drawing, Axes, Mark, Placement};
use crate::render::{render, Figure, PixelRect, Written};
use crate::style::{self, font, pt, px, FigureSpec};

/// One kernel launch on the device timeline.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct LaunchSpan {
    /// The stream's row: 0 the default stream, else its creation order from 1.
    pub stream: usize,
    /// The bar's label (a demangled kernel name).
    pub kernel: String,
    pub start_us: f64,
    pub time_us: f64,
}

const WHAT: &str = "launch timeline";

struct LaunchFig {
    launches: Vec<LaunchSpan>,
    rows: usize,
    end: f64,
    /// The legend's kernel names, in order of first launch (colour `i` each).
    kernels: Vec<String>,
}

/// Draws `launches` (in any order) as PNG and SVG at `stem`.
pub fn launch_timeline(launches: &[LaunchSpan], spec: &FigureSpec, stem: impl AsRef<Path>) -> Result<Written, ReportError> {
    if launches.is_empty() {
        return Err(ReportError::EmptyData { what: WHAT });
    }
    if spec.x_log || spec.y_log {
        return Err(ReportError::InvalidSpec("launch timeline: time and streams take linear axes".into()));
    }
    if let Some(l) = launches.iter().find(|l| !(l.start_us.is_finite() && l.time_us.is_finite() && l.start_us >= 0.0 && l.time_us >= 0.0)) {
        return Err(ReportError::InvalidData {
            what: WHAT,
            message: format!("`{}` starts at {} µs and takes {} µs: both must be finite and not negative", l.kernel, l.start_us, l.time_us),
        });
    }
    let end = launches.iter().map(|l| l.start_us + l.time_us).fold(0.0, f64::max);
    let rows = launches.iter().map(|l| l.stream).max().unwrap_or(0) + 1;
    let mut sorted = launches.to_vec();
    sorted.sort_by(|a, b| a.start_us.total_cmp(&b.start_us));
    let mut kernels: Vec<String> = crate::figures::first_seen(sorted.iter().map(|l| l.kernel.as_str())).into_iter().map(str::to_string).collect();
    if kernels.len() > style::MAX_SERIES {
        kernels.truncate(style::MAX_SERIES - 1);
        kernels.push("other kernels".into());
    }
    render(&LaunchFig { launches: sorted, rows, end: if end > 0.0 { end } else { 1.0 }, kernels }, spec, stem.as_ref())
}

impl Figure for LaunchFig {
    const NAME: &'static str = WHAT;

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>, spec: &FigureSpec) -> Result<PixelRect, ReportError> {
        let legend = frame::series_legend(self.kernels.iter().cloned(), |i| Mark::Swatch(style::series_color(i)));
        let area = frame::page(root, &spec.title, &legend, Placement::Top, WHAT)?;
        let streams = (0..self.rows).map(|s| if s == 0 { "default".to_string() } else { format!("stream {s}") }).collect();
        let axes = Axes::new(Scale::linear(0.0, self.end), Scale::category(streams), spec.x_label_or("Device time (µs)"), spec.y_label_or("Stream"));
        let chart = frame::chart(&area, axes, WHAT)?;
        let plot = chart.plotting_area();
        let rect = frame::plot_rect(&chart);
        let px_per_us = f64::from(rect.right - rect.left) / self.end;
        let label = font(pt::TICK);
        let last = self.kernels.len() - 1;
        for l in &self.launches {
            let (y, h) = (l.stream as f64 - 0.4, 0.8);
            let color = style::series_color(self.kernels.iter().position(|k| *k == l.kernel).unwrap_or(last));
            let corners = [(l.start_us, y), (l.start_us + l.time_us, y + h)];
            plot.draw(&Rectangle::new(corners, style::fill(color))).map_err(drawing(WHAT))?;
            plot.draw(&Rectangle::new(corners, style::stroke(WHITE, pt::AXIS))).map_err(drawing(WHAT))?;
            let (w, th) = frame::text_size(root, &l.kernel, &label, WHAT)?;
            if f64::from(w + 2 * px(pt::GAP)) <= l.time_us * px_per_us {
                let (x, yc) = chart.backend_coord(&(l.start_us, l.stream as f64));
                frame::text_at(root, &l.kernel, &label, (x + px(pt::GAP), yc - th / 2), WHAT)?;
            }
        }
        Ok(rect)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_spans_are_refused() {
        let spec = FigureSpec::new("", crate::Column::Single);
        let dir = std::env::temp_dir().join(format!("warpsim-launches-{}", std::process::id()));
        assert!(matches!(launch_timeline(&[], &spec, dir.join("a")), Err(ReportError::EmptyData { .. })));
        let bad = LaunchSpan { stream: 0, kernel: "k".into(), start_us: f64::NAN, time_us: 1.0 };
        assert!(launch_timeline(&[bad], &spec, dir.join("b")).unwrap_err().to_string().contains("finite"));
        let ok = [
            LaunchSpan { stream: 0, kernel: "void scale<4>(float*, int)".into(), start_us: 0.0, time_us: 30.0 },
            LaunchSpan { stream: 2, kernel: "jacobi".into(), start_us: 30.0, time_us: 2.0 },
        ];
        let w = launch_timeline(&ok, &spec, dir.join("c")).unwrap();
        assert!(w.png.exists() && w.svg.exists());
        let _ = std::fs::remove_dir_all(dir);
    }
}
