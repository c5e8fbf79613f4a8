//! `bars` and `speedup_bars`: grouped bar charts, one group per workload and one bar per
//! configuration, with an optional horizontal reference line (1.0 for speedups). `speedup_bars`
//! takes raw cycles and a baseline configuration and plots baseline cycles / cycles.

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::axis::{Scale, ScaleKind};
use crate::error::{check_value, ReportError};
use crate::figures::{check_unique, first_seen, index_of};
use crate::frame::{self, drawing, Axes, Mark, Placement};
use crate::render::{render, Figure, PixelRect, Written};
use crate::style::{self, FigureSpec};

/// One bar: the value of `series` (a configuration) for `group` (a workload).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct BarValue {
    /// The group on the x axis (a workload), in order of first appearance.
    pub group: String,
    /// The bar within the group (a configuration), coloured and named in the legend.
    pub series: String,
    /// The bar's height.
    pub value: f64,
}

/// Options of [`bars`].
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct BarOptions {
    /// Draw a horizontal reference line at this value (e.g. 1.0 for speedups).
    pub baseline: Option<f64>,
}

const WHAT: &str = "bars";

struct Bars {
    groups: Vec<String>,
    series: Vec<String>,
    /// (group index, series index, value).
    cells: Vec<(usize, usize, f64)>,
    baseline: Option<f64>,
    y_default: String,
}

/// Draws grouped bars into `<stem>.png` and `<stem>.svg`. A (group, series) pair without a row
/// leaves a gap. The x axis is categorical (`x_log` must be off); `y_log` starts bars at the
/// bottom of the axis.
pub fn bars(
    values: &[BarValue],
    opts: &BarOptions,
    spec: &FigureSpec,
    stem: impl AsRef<Path>,
) -> Result<Written, ReportError> {
    let fig = Bars::new(values, opts.baseline, spec, String::new())?;
    render(&fig, spec, stem.as_ref())
}

/// Draws speedups over `baseline` into `<stem>.png` and `<stem>.svg`: for each group, every other
/// series' bar is (baseline cycles / its cycles), with a reference line at 1.0. The baseline series
/// itself is not drawn (it would be 1.0 everywhere). Every group with any other series needs a
/// positive baseline value.
pub fn speedup_bars(
    cycles: &[BarValue],
    baseline: &str,
    spec: &FigureSpec,
    stem: impl AsRef<Path>,
) -> Result<Written, ReportError> {
    const WHAT: &str = "speedup_bars";
    let mut speedups = Vec::new();
    for v in cycles.iter().filter(|v| v.series != baseline) {
        let base = cycles
            .iter()
            .find(|b| b.series == baseline && b.group == v.group)
            .ok_or_else(|| ReportError::InvalidData {
                what: WHAT,
                message: format!("group {:?} has no baseline {baseline:?}", v.group),
            })?;
        let label = format!("{} / {}", v.group, v.series);
        check_value(WHAT, &label, "value", Some(("y", true)), v.value)?;
        check_value(
            WHAT,
            &format!("{} / {baseline}", v.group),
            "value",
            Some(("y", true)),
            base.value,
        )?;
        speedups.push(BarValue {
            value: base.value / v.value,
            ..v.clone()
        });
    }
    if speedups.is_empty() {
        return Err(ReportError::EmptyData { what: WHAT });
    }
    let fig = Bars::new(
        &speedups,
        Some(1.0),
        spec,
        format!("Speedup over {baseline} (×)"),
    )?;
    render(&fig, spec, stem.as_ref())
}

impl Bars {
    fn new(
        values: &[BarValue],
        baseline: Option<f64>,
        spec: &FigureSpec,
        y_default: String,
    ) -> Result<Self, ReportError> {
        if values.is_empty() {
            return Err(ReportError::EmptyData { what: WHAT });
        }
        if spec.x_log {
            return Err(ReportError::InvalidSpec(
                "bars: the x axis is categorical, x_log must be off".into(),
            ));
        }
        check_unique(
            WHAT,
            values.iter().map(|v| (v.group.as_str(), v.series.as_str())),
        )?;
        let groups = first_seen(values.iter().map(|v| v.group.as_str()));
        let series = first_seen(values.iter().map(|v| v.series.as_str()));
        style::check_series_count(WHAT, series.len())?;
        if let Some(b) = baseline {
            check_value(WHAT, "baseline", "baseline", Some(("y", spec.y_log)), b)?;
        }
        let mut cells = Vec::with_capacity(values.len());
        for v in values {
            let label = format!("{} / {}", v.group, v.series);
            let value = check_value(WHAT, &label, "value", Some(("y", spec.y_log)), v.value)?;
            cells.push((
                index_of(&groups, &v.group),
                index_of(&series, &v.series),
                value,
            ));
        }
        Ok(Self {
            groups: groups.into_iter().map(String::from).collect(),
            series: series.into_iter().map(String::from).collect(),
            cells,
            baseline,
            y_default,
        })
    }
}

/// Fraction of a category slot that a group of bars fills.
pub(crate) const GROUP_WIDTH: f64 = 0.8;

impl Figure for Bars {
    const NAME: &'static str = WHAT;

    fn draw<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        spec: &FigureSpec,
    ) -> Result<PixelRect, ReportError> {
        let legend = frame::series_legend(self.series.iter().cloned(), |i| {
            Mark::Swatch(style::series_color(i))
        });
        // One series needs no legend: the axis label says what the bars are.
        let legend = if legend.len() > 1 { legend } else { Vec::new() };
        let area = frame::page(root, &spec.title, &legend, Placement::Top, WHAT)?;
        let y = Scale::fit(
            self.cells.iter().map(|c| c.2).chain(self.baseline),
            spec.y_log,
            !spec.y_log,
        );
        let floor = if *y.kind() == ScaleKind::Log {
            y.lo()
        } else {
            0.0
        };
        let x = Scale::category(self.groups.clone());
        let (x_lo, x_hi) = (x.lo(), x.hi());
        let chart = frame::chart(
            &area,
            Axes::new(x, y, &spec.x_label, spec.y_label_or(&self.y_default)),
            WHAT,
        )?;
        let plot = chart.plotting_area();
        let width = GROUP_WIDTH / self.series.len() as f64;
        for &(g, s, v) in &self.cells {
            let left = g as f64 - GROUP_WIDTH / 2.0 + s as f64 * width;
            plot.draw(&Rectangle::new(
                [(left, floor), (left + width, v)],
                style::fill(style::series_color(s)),
            ))
            .map_err(drawing(WHAT))?;
        }
        if let Some(b) = self.baseline {
            frame::reference_line(plot, (x_lo, b), (x_hi, b), WHAT)?;
        }
        Ok(frame::plot_rect(&chart))
    }
}
