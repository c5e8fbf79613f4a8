//! `roofline`: the roofline model of one machine on log-log axes — arithmetic intensity (FLOP per
//! byte) against attained FLOP/s — with one slanted roof per memory level (DRAM, L2, … at their
//! bandwidths; coloured, named with their bandwidth in a legend above the plot), one flat grey roof
//! per compute peak (FP64, FP32, tensor…, labelled in place with its value), and each workload a
//! labelled point.

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::axis::{format_si, Scale};
use crate::error::{check_value, ReportError};
use crate::frame::{self, drawing, Axes, Labeler, Mark, Marker, Placement};
use crate::render::{render, Figure, PixelRect, Written};
use crate::style::{self, font, pt, px, FigureSpec};

/// A named roof: a compute peak in FLOP/s or a memory bandwidth in bytes/s.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Ceiling {
    /// Name drawn on the roof, e.g. `"FP32"` or `"HBM3e"`.
    pub name: String,
    /// FLOP/s for a compute peak, bytes/s for a bandwidth.
    pub value: f64,
}

impl Ceiling {
    /// A roof named `name` at `value` (FLOP/s or bytes/s).
    pub fn new(name: impl Into<String>, value: f64) -> Self {
        Self {
            name: name.into(),
            value,
        }
    }
}

/// The machine whose roofs are drawn.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Machine {
    /// Machine name (for the caller's title; not drawn).
    pub name: String,
    /// Compute peaks in FLOP/s, one per precision or unit.
    pub compute: Vec<Ceiling>,
    /// Bandwidths in bytes/s, one per memory level (DRAM, L2, …).
    pub memory: Vec<Ceiling>,
}

/// One workload on the roofline.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RooflinePoint {
    /// Workload name, drawn next to the point.
    pub workload: String,
    /// Arithmetic intensity in FLOP per byte (of the memory level the caller chose, usually DRAM).
    pub flop_per_byte: f64,
    /// Attained performance in FLOP/s.
    pub flops_per_s: f64,
}

const WHAT: &str = "roofline";

struct Roofline<'a> {
    machine: &'a Machine,
    points: &'a [RooflinePoint],
    /// Highest compute peak and highest bandwidth.
    top_peak: f64,
    top_bw: f64,
}

/// Draws the roofline into `<stem>.png` and `<stem>.svg`. Axes are always log-log; labels default
/// to "Arithmetic intensity (FLOP/byte)" and "Performance (FLOP/s)". The machine needs at least
/// one compute peak and one bandwidth; points may be empty (roofs only).
pub fn roofline(
    machine: &Machine,
    points: &[RooflinePoint],
    spec: &FigureSpec,
    stem: impl AsRef<Path>,
) -> Result<Written, ReportError> {
    if machine.compute.is_empty() || machine.memory.is_empty() {
        return Err(ReportError::InvalidData {
            what: WHAT,
            message: format!(
                "machine {:?} needs at least one compute peak and one bandwidth",
                machine.name
            ),
        });
    }
    for c in &machine.compute {
        check_value(WHAT, &c.name, "compute peak", Some(("y", true)), c.value)?;
    }
    for m in &machine.memory {
        check_value(WHAT, &m.name, "bandwidth", Some(("y", true)), m.value)?;
    }
    for p in points {
        check_value(
            WHAT,
            &p.workload,
            "flop_per_byte",
            Some(("x", true)),
            p.flop_per_byte,
        )?;
        check_value(
            WHAT,
            &p.workload,
            "flops_per_s",
            Some(("y", true)),
            p.flops_per_s,
        )?;
    }
    style::check_series_count(WHAT, machine.compute.len().max(machine.memory.len()))?;
    let top_peak = machine.compute.iter().map(|c| c.value).fold(0.0, f64::max);
    let top_bw = machine.memory.iter().map(|m| m.value).fold(0.0, f64::max);
    render(
        &Roofline {
            machine,
            points,
            top_peak,
            top_bw,
        },
        spec,
        stem.as_ref(),
    )
}

impl Roofline<'_> {
    /// Axis ranges: every point and every ridge, with room on both sides.
    fn scales(&self) -> (Scale, Scale) {
        let ridges = || {
            self.machine
                .compute
                .iter()
                .flat_map(|c| self.machine.memory.iter().map(move |m| c.value / m.value))
        };
        let xs: Vec<f64> = ridges()
            .chain(self.points.iter().map(|p| p.flop_per_byte))
            .collect();
        let x_lo = xs.iter().copied().fold(f64::INFINITY, f64::min) / 8.0;
        let x_hi = xs.iter().copied().fold(0.0, f64::max) * 8.0;
        let low_bw = self
            .machine
            .memory
            .iter()
            .map(|m| m.value)
            .fold(f64::INFINITY, f64::min);
        let low_peak = self
            .machine
            .compute
            .iter()
            .map(|c| c.value)
            .fold(f64::INFINITY, f64::min);
        let y_lo = self
            .points
            .iter()
            .map(|p| p.flops_per_s)
            .fold((low_bw * x_lo * 2.0).min(low_peak), f64::min);
        (
            Scale::fit([x_lo, x_hi], true, false),
            Scale::fit([y_lo, self.top_peak * 2.0], true, false),
        )
    }
}

impl Figure for Roofline<'_> {
    const NAME: &'static str = WHAT;

    fn draw<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        spec: &FigureSpec,
    ) -> Result<PixelRect, ReportError> {
        // Memory roofs are told apart by colour (legend above the plot), compute roofs are grey
        // and labelled in place.
        let labels = self
            .machine
            .memory
            .iter()
            .map(|m| format!("{} {}", m.name, format_si(m.value, "B/s")));
        let legend = frame::series_legend(labels, |i| Mark::Stroke(style::series_color(i)));
        let area = frame::page(root, &spec.title, &legend, Placement::Top, WHAT)?;
        let (x, y) = self.scales();
        let (x_lo, x_hi, y_lo) = (x.lo(), x.hi(), y.lo());
        let chart = frame::chart(
            &area,
            Axes::new(
                x,
                y,
                spec.x_label_or("Arithmetic intensity (FLOP/byte)"),
                spec.y_label_or("Performance (FLOP/s)"),
            ),
            WHAT,
        )?;
        let plot = chart.plotting_area();
        let rect = frame::plot_rect(&chart);
        let mut labeler = Labeler::new(rect);
        let f = font(pt::NOTE);
        let pad = px(pt::GAP);

        // Slanted roofs: from where they enter the plot up to the highest peak.
        for (i, m) in self.machine.memory.iter().enumerate() {
            let start = x_lo.max(y_lo / m.value);
            let ridge = self.top_peak / m.value;
            let ends = [(start, start * m.value), (ridge, self.top_peak)];
            plot.draw(&PathElement::new(
                ends.to_vec(),
                style::stroke(style::series_color(i), pt::LINE),
            ))
            .map_err(drawing(WHAT))?;
            labeler.line(chart.backend_coord(&ends[0]), chart.backend_coord(&ends[1]));
        }
        for c in &self.machine.compute {
            let ridge = c.value / self.top_bw;
            labeler.line(
                chart.backend_coord(&(ridge, c.value)),
                chart.backend_coord(&(x_hi, c.value)),
            );
        }
        // Points are marked before any label is placed, so that no label hides one.
        let pos: Vec<(i32, i32)> = self
            .points
            .iter()
            .map(|p| chart.backend_coord(&(p.flop_per_byte, p.flops_per_s)))
            .collect();
        for at in &pos {
            labeler.point(*at);
        }
        // Flat roofs: from the ridge with the fastest memory to the right edge; the label sits
        // right-aligned above the roof, or below it, or further left, whichever hides nothing.
        let mut peaks: Vec<&Ceiling> = self.machine.compute.iter().collect();
        peaks.sort_by(|a, b| b.value.total_cmp(&a.value));
        for c in peaks {
            let ridge = c.value / self.top_bw;
            plot.draw(&PathElement::new(
                vec![(ridge, c.value), (x_hi, c.value)],
                style::stroke(style::REFERENCE, pt::LINE),
            ))
            .map_err(drawing(WHAT))?;
            let label = format!("{} {}", c.name, format_si(c.value, "FLOP/s"));
            let (w, h) = frame::text_size(root, &label, &f, WHAT)?;
            let (_, py) = chart.backend_coord(&(x_hi, c.value));
            // Right-aligned if free, else shifted left in steps of half its width.
            let candidates = (0..4).flat_map(|k| {
                let x = rect.right - w - pad - k * w / 2;
                [(x, py - h - pad), (x, py + pad)]
            });
            let spot = labeler.choose(candidates, (w, h));
            frame::text_at(root, &label, &f, spot, WHAT)?;
        }

        let color = style::series_color(6);
        for p in self.points {
            frame::draw_marker(
                plot,
                (p.flop_per_byte, p.flops_per_s),
                Marker::Circle,
                color,
                WHAT,
            )?;
        }
        for (p, at) in self.points.iter().zip(&pos) {
            let size = frame::text_size(root, &p.workload, &f, WHAT)?;
            let spot = labeler.near(*at, size);
            frame::text_at(root, &p.workload, &f, spot, WHAT)?;
        }
        Ok(rect)
    }
}
