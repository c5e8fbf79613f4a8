//! `stacked_bars`: one bar per workload split into categories — typically the warp-state stall
//! breakdown in Nsight Compute's names (selected, long_scoreboard, barrier, …), though the names are
//! data. Each bar is normalised to sum to 1; the legend, right of the plot, lists categories in
//! stack order (top segment first) and omits categories that are zero in every bar.

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::axis::Scale;
use crate::error::{check_value, ReportError};
use crate::figures::{bars::GROUP_WIDTH, check_unique, first_seen, index_of};
use crate::frame::{self, drawing, Axes, LegendEntry, Mark, Placement};
use crate::render::{render, Figure, PixelRect, Written};
use crate::style::{self, FigureSpec};

/// One segment: how much of `bar` (a workload) falls in `category` (a warp state). Values are
/// non-negative weights (cycles, samples or fractions); each bar is scaled to sum to 1.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct StackSegment {
    /// The bar (a workload), in order of first appearance.
    pub bar: String,
    /// The category (stacked bottom to top in order of first appearance).
    pub category: String,
    /// Non-negative weight.
    pub value: f64,
}

const WHAT: &str = "stacked_bars";

struct Stacked {
    bars: Vec<String>,
    /// Categories that are non-zero somewhere, bottom to top, with their palette index.
    categories: Vec<(String, usize)>,
    /// fractions[bar][category position in `categories`].
    fractions: Vec<Vec<f64>>,
}

/// Draws normalised stacked bars into `<stem>.png` and `<stem>.svg`. The y label defaults to
/// "Fraction"; log axes are refused.
pub fn stacked_bars(
    segments: &[StackSegment],
    spec: &FigureSpec,
    stem: impl AsRef<Path>,
) -> Result<Written, ReportError> {
    if segments.is_empty() {
        return Err(ReportError::EmptyData { what: WHAT });
    }
    if spec.x_log || spec.y_log {
        return Err(ReportError::InvalidSpec(
            "stacked_bars: fractions take linear axes".into(),
        ));
    }
    check_unique(
        WHAT,
        segments
            .iter()
            .map(|s| (s.bar.as_str(), s.category.as_str())),
    )?;
    let bars = first_seen(segments.iter().map(|s| s.bar.as_str()));
    let all_categories = first_seen(segments.iter().map(|s| s.category.as_str()));
    let mut values = vec![vec![0.0; all_categories.len()]; bars.len()];
    for s in segments {
        let label = format!("{} / {}", s.bar, s.category);
        let v = check_value(WHAT, &label, "value", None, s.value)?;
        if v < 0.0 {
            return Err(ReportError::InvalidData {
                what: WHAT,
                message: format!("{label:?} is negative ({v})"),
            });
        }
        values[index_of(&bars, &s.bar)][index_of(&all_categories, &s.category)] = v;
    }
    for (bar, row) in bars.iter().zip(&values) {
        if row.iter().sum::<f64>() <= 0.0 {
            return Err(ReportError::InvalidData {
                what: WHAT,
                message: format!("bar {bar:?} sums to 0"),
            });
        }
    }
    // Keep the palette index of each category stable whether or not others are dropped.
    let kept: Vec<usize> = (0..all_categories.len())
        .filter(|&c| values.iter().any(|row| row[c] > 0.0))
        .collect();
    style::check_series_count(WHAT, all_categories.len())?;
    let fractions = values
        .iter()
        .map(|row| {
            let total: f64 = row.iter().sum();
            kept.iter().map(|&c| row[c] / total).collect()
        })
        .collect();
    let fig = Stacked {
        bars: bars.into_iter().map(String::from).collect(),
        categories: kept
            .iter()
            .map(|&c| (all_categories[c].to_string(), c))
            .collect(),
        fractions,
    };
    render(&fig, spec, stem.as_ref())
}

impl Figure for Stacked {
    const NAME: &'static str = WHAT;

    fn draw<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        spec: &FigureSpec,
    ) -> Result<PixelRect, ReportError> {
        let legend: Vec<LegendEntry> = self
            .categories
            .iter()
            .rev()
            .map(|(name, c)| LegendEntry {
                label: name.clone(),
                mark: Mark::Swatch(style::series_color(*c)),
            })
            .collect();
        let area = frame::page(root, &spec.title, &legend, Placement::Right, WHAT)?;
        let chart = frame::chart(
            &area,
            Axes::new(
                Scale::category(self.bars.clone()),
                Scale::linear(0.0, 1.0),
                &spec.x_label,
                spec.y_label_or("Fraction"),
            ),
            WHAT,
        )?;
        let plot = chart.plotting_area();
        for (b, row) in self.fractions.iter().enumerate() {
            let (left, right) = (b as f64 - GROUP_WIDTH / 2.0, b as f64 + GROUP_WIDTH / 2.0);
            let mut bottom = 0.0;
            for (f, (_, c)) in row.iter().zip(&self.categories) {
                if *f > 0.0 {
                    plot.draw(&Rectangle::new(
                        [(left, bottom), (right, bottom + f)],
                        style::fill(style::series_color(*c)),
                    ))
                    .map_err(drawing(WHAT))?;
                }
                bottom += f;
            }
        }
        Ok(frame::plot_rect(&chart))
    }
}
