//! `timeline`: what every SM did during one run. x is the cycle, y the SM index. The CTA panel
//! draws each CTA as a bar from its start to its end cycle on its SM's row, with CTAs resident at
//! the same time on separate lanes of the row; alternating shades show where one CTA hands over
//! to the next. With occupancy samples, a second panel below (same x axis) colours each SM's row by
//! its active warps (viridis, white when idle) with a colour bar.

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::axis::{format_number, Scale};
use crate::error::ReportError;
use crate::frame::{self, drawing, Axes, Placement};
use crate::render::{render, Figure, PixelRect, Written};
use crate::style::{self, font, pt, px, FigureSpec};

/// One CTA's residency on an SM.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CtaSpan {
    /// SM index, below [`Timeline::num_sms`].
    pub sm: u32,
    /// Linear CTA id (for the caller's CSV; not drawn).
    pub cta: u64,
    /// Cycle the CTA was admitted.
    pub start_cycle: u64,
    /// Cycle its last warp retired (not before `start_cycle`).
    pub end_cycle: u64,
}

/// The active warps of one SM from `cycle` until its next sample (the last sample holds to the
/// end of the run).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct OccupancySample {
    /// SM index.
    pub sm: u32,
    /// Sample cycle.
    pub cycle: u64,
    /// Warps resident and not exited.
    pub active_warps: u32,
}

/// Sampled occupancy with its scale.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Occupancy {
    /// Warp slots per SM: the top of the colour scale.
    pub max_warps_per_sm: u32,
    /// Samples in any order.
    pub samples: Vec<OccupancySample>,
}

/// One run's SM activity.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Timeline {
    /// SMs on the GPU (rows, including idle ones).
    pub num_sms: u32,
    /// CTA residencies, in any order.
    pub ctas: Vec<CtaSpan>,
    /// Optional occupancy sampling, drawn as a second panel.
    pub occupancy: Option<Occupancy>,
}

const WHAT: &str = "timeline";

/// A drawable span: SM row, lane, lanes in the row, start, end, shade.
struct Bar {
    sm: u32,
    lane: usize,
    lanes: usize,
    start: f64,
    end: f64,
    shade: bool,
}

/// A run of equal colour level on one SM's row.
struct Run {
    sm: u32,
    start: f64,
    end: f64,
    level: f64,
}

struct TimelineFig {
    num_sms: u32,
    end: f64,
    bars: Vec<Bar>,
    heat: Option<(u32, Vec<Run>)>,
}

/// Colour levels of the occupancy heat map (runs of equal level are merged).
const LEVELS: f64 = 16.0;

/// Draws the timeline into `<stem>.png` and `<stem>.svg`. Labels default to "Cycle" and "SM";
/// log axes are refused.
pub fn timeline(
    data: &Timeline,
    spec: &FigureSpec,
    stem: impl AsRef<Path>,
) -> Result<Written, ReportError> {
    if data.ctas.is_empty() {
        return Err(ReportError::EmptyData { what: WHAT });
    }
    if spec.x_log || spec.y_log {
        return Err(ReportError::InvalidSpec(
            "timeline: cycles and SM indices take linear axes".into(),
        ));
    }
    if data.num_sms == 0 {
        return Err(ReportError::InvalidData {
            what: WHAT,
            message: "num_sms is 0".into(),
        });
    }
    let bad = |message: String| ReportError::InvalidData {
        what: WHAT,
        message,
    };
    for c in &data.ctas {
        if c.sm >= data.num_sms {
            return Err(bad(format!(
                "CTA {} is on SM {}, but num_sms = {}",
                c.cta, c.sm, data.num_sms
            )));
        }
        if c.end_cycle < c.start_cycle {
            return Err(bad(format!(
                "CTA {} ends (cycle {}) before it starts ({})",
                c.cta, c.end_cycle, c.start_cycle
            )));
        }
    }
    let mut end = data.ctas.iter().map(|c| c.end_cycle).max().unwrap_or(0);
    if let Some(occ) = &data.occupancy {
        if occ.max_warps_per_sm == 0 {
            return Err(bad("occupancy.max_warps_per_sm is 0".into()));
        }
        for s in &occ.samples {
            if s.sm >= data.num_sms {
                return Err(bad(format!(
                    "occupancy sample at cycle {} is on SM {}, but num_sms = {}",
                    s.cycle, s.sm, data.num_sms
                )));
            }
            if s.active_warps > occ.max_warps_per_sm {
                return Err(bad(format!(
                    "SM {} has {} active warps at cycle {}, above max_warps_per_sm = {}",
                    s.sm, s.active_warps, s.cycle, occ.max_warps_per_sm
                )));
            }
            end = end.max(s.cycle);
        }
    }
    let fig = TimelineFig {
        num_sms: data.num_sms,
        end: end.max(1) as f64,
        bars: lanes(&data.ctas),
        heat: data
            .occupancy
            .as_ref()
            .map(|o| (o.max_warps_per_sm, runs(o, end.max(1) as f64))),
    };
    render(&fig, spec, stem.as_ref())
}

/// Assigns overlapping CTAs of an SM to lanes (first free lane, in start order).
fn lanes(ctas: &[CtaSpan]) -> Vec<Bar> {
    let mut sorted: Vec<&CtaSpan> = ctas.iter().collect();
    sorted.sort_by_key(|c| (c.sm, c.start_cycle, c.end_cycle, c.cta));
    let mut bars = Vec::with_capacity(sorted.len());
    let mut i = 0;
    while i < sorted.len() {
        let sm = sorted[i].sm;
        let first = bars.len();
        // lane_end[l] = end cycle of the last CTA on lane l; count[l] = CTAs on it so far.
        let mut lane_end: Vec<u64> = Vec::new();
        let mut count: Vec<usize> = Vec::new();
        while i < sorted.len() && sorted[i].sm == sm {
            let c = sorted[i];
            let lane = match lane_end.iter().position(|e| *e <= c.start_cycle) {
                Some(l) => l,
                None => {
                    lane_end.push(0);
                    count.push(0);
                    lane_end.len() - 1
                }
            };
            lane_end[lane] = c.end_cycle;
            count[lane] += 1;
            bars.push(Bar {
                sm,
                lane,
                lanes: 0,
                start: c.start_cycle as f64,
                end: c.end_cycle as f64,
                // Neighbouring lanes and consecutive CTAs on a lane get different shades.
                shade: (count[lane] + lane).is_multiple_of(2),
            });
            i += 1;
        }
        for b in &mut bars[first..] {
            b.lanes = lane_end.len();
        }
    }
    bars
}

/// Turns samples into runs of equal colour level per SM (level 0 = idle, left white).
fn runs(occ: &Occupancy, end: f64) -> Vec<Run> {
    let mut samples: Vec<&OccupancySample> = occ.samples.iter().collect();
    samples.sort_by_key(|s| (s.sm, s.cycle));
    let mut runs: Vec<Run> = Vec::new();
    for (k, s) in samples.iter().enumerate() {
        let until = match samples.get(k + 1) {
            Some(n) if n.sm == s.sm => n.cycle as f64,
            _ => end,
        };
        let level =
            (f64::from(s.active_warps) / f64::from(occ.max_warps_per_sm) * LEVELS).round() / LEVELS;
        match runs.last_mut() {
            Some(r) if r.sm == s.sm && r.level == level && r.end == s.cycle as f64 => r.end = until,
            _ => runs.push(Run {
                sm: s.sm,
                start: s.cycle as f64,
                end: until,
                level,
            }),
        }
    }
    runs.retain(|r| r.level > 0.0 && r.end > r.start);
    runs
}

impl TimelineFig {
    fn axes<'s>(&self, x_label: &'s str, y_label: &'s str, right_margin: i32) -> Axes<'s> {
        Axes {
            x: Scale::linear(0.0, self.end),
            y: Scale::linear(-0.5, f64::from(self.num_sms) - 0.5),
            x_label,
            y_label,
            right_margin,
        }
    }
}

/// Height of the bars in an SM's row (the rest is a gap) when rows are at least [`GAP_MIN_PX`]
/// tall; thinner rows are filled completely, since a sub-pixel gap only adds moiré.
const ROW: f64 = 0.9;
const GAP_MIN_PX: i32 = 8;

/// The filled height of an SM's row on `chart`.
fn row_height<DB: DrawingBackend>(chart: &frame::Chart<'_, DB>, num_sms: u32) -> f64 {
    let r = frame::plot_rect(chart);
    if (r.bottom - r.top) / num_sms.max(1) as i32 >= GAP_MIN_PX {
        ROW
    } else {
        1.0
    }
}

impl Figure for TimelineFig {
    const NAME: &'static str = WHAT;

    fn draw<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        spec: &FigureSpec,
    ) -> Result<PixelRect, ReportError> {
        let area = frame::page(root, &spec.title, &[], Placement::Top, WHAT)?;
        let x_label = spec.x_label_or("Cycle");
        let y_label = spec.y_label_or("SM");
        let Some((max_warps, heat)) = &self.heat else {
            let chart = frame::chart(&area, self.axes(x_label, y_label, 0), WHAT)?;
            self.draw_ctas(&chart)?;
            return Ok(frame::plot_rect(&chart));
        };
        // Both panels keep the same right margin (room for the colour bar), so their x axes align.
        let bar_room = colorbar_width(root, *max_warps)?;
        let (top, bottom) = area.split_vertically(area.dim_in_pixel().1 / 2);
        let top_chart = frame::chart(&top, self.axes("", y_label, bar_room), WHAT)?;
        self.draw_ctas(&top_chart)?;
        let chart = frame::chart(&bottom, self.axes(x_label, y_label, bar_room), WHAT)?;
        let plot = chart.plotting_area();
        let row = row_height(&chart, self.num_sms);
        for r in heat {
            let y = f64::from(r.sm) - row / 2.0;
            plot.draw(&Rectangle::new(
                [(r.start, y), (r.end, y + row)],
                style::fill(style::ramp(r.level)),
            ))
            .map_err(drawing(WHAT))?;
        }
        colorbar(root, frame::plot_rect(&chart), *max_warps)?;
        Ok(frame::plot_rect(&top_chart))
    }
}

impl TimelineFig {
    fn draw_ctas<DB: DrawingBackend>(
        &self,
        chart: &frame::Chart<'_, DB>,
    ) -> Result<(), ReportError> {
        let plot = chart.plotting_area();
        let row = row_height(chart, self.num_sms);
        for b in &self.bars {
            let h = row / b.lanes.max(1) as f64;
            let y = f64::from(b.sm) - row / 2.0 + b.lane as f64 * h;
            let color = if b.shade {
                style::series_color(5)
            } else {
                style::series_color(0)
            };
            plot.draw(&Rectangle::new(
                [(b.start, y), (b.end, y + h)],
                style::fill(color),
            ))
            .map_err(drawing(WHAT))?;
        }
        Ok(())
    }
}

/// Strip width of the colour bar.
fn strip_width() -> i32 {
    px(6.0)
}

/// Room the colour bar needs right of the plot: gap, strip, tick, widest label.
fn colorbar_width<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    max: u32,
) -> Result<i32, ReportError> {
    let (w, _) = frame::text_size(
        root,
        &format_number(f64::from(max), 1.0),
        &font(pt::TICK),
        WHAT,
    )?;
    let (_, h) = frame::text_size(root, "Xg", &font(pt::AXIS_LABEL), WHAT)?;
    Ok(3 * px(pt::GAP) + strip_width() + px(pt::TICK_LEN) + w + h)
}

/// A vertical viridis strip beside `plot`, labelled 0, max/2, max and "Active warps".
fn colorbar<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    plot: PixelRect,
    max: u32,
) -> Result<(), ReportError> {
    let x0 = plot.right + 2 * px(pt::GAP);
    let x1 = x0 + strip_width();
    let (top, bottom) = (plot.top, plot.bottom);
    let steps = 48;
    for k in 0..steps {
        let y_hi = bottom - (bottom - top) * (k + 1) / steps;
        let y_lo = bottom - (bottom - top) * k / steps;
        let t = (f64::from(k) + 0.5) / f64::from(steps);
        root.draw(&Rectangle::new(
            [(x0, y_hi), (x1, y_lo)],
            style::fill(style::ramp(t)),
        ))
        .map_err(drawing(WHAT))?;
    }
    let tick = style::stroke(style::INK, pt::AXIS);
    let f = font(pt::TICK);
    for v in [0, max / 2, max] {
        let y = bottom - ((bottom - top) as f64 * f64::from(v) / f64::from(max)).round() as i32;
        root.draw(&PathElement::new(
            vec![(x1, y), (x1 + px(pt::TICK_LEN), y)],
            tick,
        ))
        .map_err(drawing(WHAT))?;
        let label = format_number(f64::from(v), 1.0);
        let (_, h) = frame::text_size(root, &label, &f, WHAT)?;
        frame::text_at(
            root,
            &label,
            &f,
            (x1 + px(pt::TICK_LEN) + px(pt::GAP) / 2, y - h / 2),
            WHAT,
        )?;
    }
    let title = font(pt::AXIS_LABEL)
        .color(&style::INK)
        .transform(FontTransform::Rotate270)
        .pos(plotters::style::text_anchor::Pos::new(
            plotters::style::text_anchor::HPos::Center,
            plotters::style::text_anchor::VPos::Top,
        ));
    let (lw, _) = frame::text_size(root, &format_number(f64::from(max), 1.0), &f, WHAT)?;
    let x_title = x1 + px(pt::TICK_LEN) + px(pt::GAP) + lw + px(pt::GAP);
    root.draw_text("Active warps", &title, (x_title, (top + bottom) / 2))
        .map_err(drawing(WHAT))
}
