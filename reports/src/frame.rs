//! The drawing kit every figure is built from, so that all figures share one look: the page layout
//! (title band, legend band outside the data, chart area), the chart itself (axes, ticks, labels,
//! thin grid) over two [`Scale`]s, markers, a legend, free text, and a label placer that puts
//! annotations (outlier names, point labels, the statistics caption) where they cover neither data
//! nor each other.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::axis::{Scale, ScaleKind};
use crate::error::ReportError;
use crate::render::PixelRect;
use crate::style::{self, font, pt, px};

/// The chart type of every figure.
pub(crate) type Chart<'a, DB> = ChartContext<'a, DB, Cartesian2d<Scale, Scale>>;

/// Converts a plotters drawing error into ours, naming the figure.
pub(crate) fn drawing<E: std::error::Error + Send + Sync>(
    what: &'static str,
) -> impl Fn(DrawingAreaErrorKind<E>) -> ReportError {
    move |e| ReportError::Draw {
        what,
        message: e.to_string(),
    }
}

/// Marker shapes, cycled with the colours so series stay apart in greyscale print too.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Marker {
    Circle,
    Square,
    Triangle,
    Diamond,
    Cross,
}

impl Marker {
    /// The marker of the `i`-th series.
    pub(crate) fn nth(i: usize) -> Self {
        [
            Self::Circle,
            Self::Square,
            Self::Triangle,
            Self::Diamond,
            Self::Cross,
        ][i % 5]
    }
}

/// What a legend entry shows next to its name.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Mark {
    /// A line with a marker (line series).
    Line(RGBColor, Marker),
    /// A plain line (reference lines, roofs).
    Stroke(RGBColor),
    /// A filled square (bars, stacked segments, bands).
    Swatch(RGBColor),
}

/// One legend entry.
#[derive(Debug, Clone)]
pub(crate) struct LegendEntry {
    pub label: String,
    pub mark: Mark,
}

/// One legend entry per series, in series order: series `i` is labelled by the `i`-th label and
/// drawn with `mark(i)`.
pub(crate) fn series_legend(
    labels: impl IntoIterator<Item = String>,
    mark: impl Fn(usize) -> Mark,
) -> Vec<LegendEntry> {
    labels
        .into_iter()
        .enumerate()
        .map(|(i, label)| LegendEntry {
            label,
            mark: mark(i),
        })
        .collect()
}

/// Where the legend goes: always outside the data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Placement {
    /// A band between the title and the chart, entries in as many columns as fit.
    Top,
    /// A column right of the chart, entries top to bottom (stacked bars: same order as the stack).
    Right,
}

/// Measures text on `area`.
pub(crate) fn text_size<DB: DrawingBackend, CT: CoordTranslate>(
    area: &DrawingArea<DB, CT>,
    text: &str,
    style: &TextStyle,
    what: &'static str,
) -> Result<(i32, i32), ReportError> {
    let (w, h) = area
        .estimate_text_size(text, style)
        .map_err(drawing(what))?;
    Ok((w as i32, h as i32))
}

/// Draws text with its top-left corner at `pos` (pixels of `area`).
pub(crate) fn text_at<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    text: &str,
    style: &TextStyle,
    pos: (i32, i32),
    what: &'static str,
) -> Result<(), ReportError> {
    let style = style
        .pos(Pos::new(HPos::Left, VPos::Top))
        .color(&style::INK);
    area.draw_text(text, &style, pos).map_err(drawing(what))
}

/// Draws the title (if any) and the legend (if any) on `root`, and returns the area left for the
/// chart.
pub(crate) fn page<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    legend: &[LegendEntry],
    placement: Placement,
    what: &'static str,
) -> Result<DrawingArea<DB, Shift>, ReportError> {
    let margin = px(pt::GAP);
    let mut area = root.margin(margin, margin, margin, margin);
    if !title.trim().is_empty() {
        area = titled(&area, title, what)?;
    }
    if legend.is_empty() {
        return Ok(area);
    }
    let item = legend_item_size(&area, legend, what)?;
    let (w, h) = (area.dim_in_pixel().0 as i32, area.dim_in_pixel().1 as i32);
    match placement {
        Placement::Top => {
            let cols = (w / item.0).clamp(1, legend.len() as i32);
            let rows = (legend.len() as i32 + cols - 1) / cols;
            let band = rows * item.1 + margin;
            let (top, rest) = area.split_vertically(band);
            // Centre the block of columns.
            let x0 = (w - cols * item.0).max(0) / 2;
            for (i, entry) in legend.iter().enumerate() {
                let (r, c) = (i as i32 / cols, i as i32 % cols);
                draw_legend_entry(&top, entry, (x0 + c * item.0, r * item.1), item.1, what)?;
            }
            Ok(rest)
        }
        Placement::Right => {
            let width = item.0.min(w / 2);
            let (rest, right) = area.split_horizontally(w - width);
            // Top-align with the plot (the chart has a small top margin).
            let y0 = margin;
            for (i, entry) in legend.iter().enumerate() {
                let y = y0 + i as i32 * item.1;
                if y + item.1 > h {
                    return Err(ReportError::InvalidData {
                        what,
                        message: format!(
                            "{} legend entries do not fit the figure height; make it taller",
                            legend.len()
                        ),
                    });
                }
                draw_legend_entry(&right, entry, (margin, y), item.1, what)?;
            }
            Ok(rest)
        }
    }
}

/// Draws `title` centred at the top of `area`, wrapped at spaces onto as many lines as it needs,
/// and returns the area below it.
fn titled<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    title: &str,
    what: &'static str,
) -> Result<DrawingArea<DB, Shift>, ReportError> {
    let f = style::title_font().color(&style::INK);
    let width = area.dim_in_pixel().0 as i32;
    let mut lines: Vec<String> = Vec::new();
    for word in title.split_whitespace() {
        match lines.last_mut() {
            Some(line) if text_size(area, &format!("{line} {word}"), &f, what)?.0 <= width => {
                line.push(' ');
                line.push_str(word);
            }
            _ => lines.push(word.to_string()),
        }
    }
    let (_, line_h) = text_size(area, "Xg", &f, what)?;
    let centred = f.pos(Pos::new(HPos::Center, VPos::Top));
    for (i, line) in lines.iter().enumerate() {
        area.draw_text(line, &centred, (width / 2, i as i32 * line_h))
            .map_err(drawing(what))?;
    }
    let (_, rest) = area.split_vertically(lines.len() as i32 * line_h + px(pt::GAP));
    Ok(rest)
}

/// Width of the mark drawn before a legend label.
fn mark_width() -> i32 {
    px(14.0)
}

/// Size of one legend cell (mark, gap, the longest label, spacing).
fn legend_item_size<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    legend: &[LegendEntry],
    what: &'static str,
) -> Result<(i32, i32), ReportError> {
    let f = font(pt::LEGEND);
    let mut widest = 0;
    let mut tallest = 0;
    for e in legend {
        let (w, h) = text_size(area, &e.label, &f, what)?;
        widest = widest.max(w);
        tallest = tallest.max(h);
    }
    let gap = px(pt::GAP);
    Ok((mark_width() + gap + widest + 3 * gap, tallest + gap))
}

fn draw_legend_entry<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    entry: &LegendEntry,
    (x, y): (i32, i32),
    row_h: i32,
    what: &'static str,
) -> Result<(), ReportError> {
    let mid = y + row_h / 2;
    let mw = mark_width();
    match entry.mark {
        Mark::Line(color, marker) => {
            area.draw(&PathElement::new(
                vec![(x, mid), (x + mw, mid)],
                style::stroke(color, pt::LINE),
            ))
            .map_err(drawing(what))?;
            draw_marker(area, (x + mw / 2, mid), marker, color, what)?;
        }
        Mark::Stroke(color) => {
            area.draw(&PathElement::new(
                vec![(x, mid), (x + mw, mid)],
                style::stroke(color, pt::LINE),
            ))
            .map_err(drawing(what))?;
        }
        Mark::Swatch(color) => {
            let s = px(pt::LEGEND) * 3 / 4;
            area.draw(&Rectangle::new(
                [
                    (x + (mw - s) / 2, mid - s / 2),
                    (x + (mw + s) / 2, mid + s / 2),
                ],
                style::fill(color),
            ))
            .map_err(drawing(what))?;
        }
    }
    let f = font(pt::LEGEND);
    let (_, th) = text_size(area, &entry.label, &f, what)?;
    text_at(
        area,
        &entry.label,
        &f,
        (x + mw + px(pt::GAP), mid - th / 2),
        what,
    )
}

/// A dashed grey reference line (y = x, a baseline at 1.0) from `from` to `to`.
pub(crate) fn reference_line<DB: DrawingBackend, CT: CoordTranslate>(
    area: &DrawingArea<DB, CT>,
    from: CT::From,
    to: CT::From,
    what: &'static str,
) -> Result<(), ReportError>
where
    CT::From: Clone,
{
    let line = plotters::element::DashedPathElement::new(
        vec![from, to],
        px(3.0),
        px(2.0),
        style::stroke(style::REFERENCE, pt::AXIS),
    );
    area.draw(&line).map_err(drawing(what))
}

/// Draws a marker centred on `at` (in `area`'s coordinates).
pub(crate) fn draw_marker<DB: DrawingBackend, CT: CoordTranslate>(
    area: &DrawingArea<DB, CT>,
    at: CT::From,
    marker: Marker,
    color: RGBColor,
    what: &'static str,
) -> Result<(), ReportError>
where
    CT::From: Clone,
{
    let r = px(pt::MARKER);
    let fill = style::fill(color);
    let at = EmptyElement::at(at);
    let result = match marker {
        Marker::Circle => area.draw(&(at + Circle::new((0, 0), r, fill))),
        Marker::Square => {
            let s = r * 9 / 10;
            area.draw(&(at + Rectangle::new([(-s, -s), (s, s)], fill)))
        }
        Marker::Triangle => {
            let h = r * 6 / 5;
            area.draw(&(at + Polygon::new(vec![(0, -h), (h, h * 3 / 4), (-h, h * 3 / 4)], fill)))
        }
        Marker::Diamond => {
            let d = r * 6 / 5;
            area.draw(&(at + Polygon::new(vec![(0, -d), (d, 0), (0, d), (-d, 0)], fill)))
        }
        Marker::Cross => {
            let s = r;
            let line = style::stroke(color, pt::LINE);
            area.draw(
                &(at + PathElement::new(vec![(-s, -s), (s, s)], line)
                    + PathElement::new(vec![(-s, s), (s, -s)], line)),
            )
        }
    };
    result.map_err(drawing(what))
}

/// Axes for a chart: scales and their labels.
pub(crate) struct Axes<'s> {
    pub x: Scale,
    pub y: Scale,
    pub x_label: &'s str,
    pub y_label: &'s str,
    /// Room to keep free right of the plot (e.g. for roof labels), in pixels.
    pub right_margin: i32,
}

impl<'s> Axes<'s> {
    /// Scales and labels, with no room kept right of the plot.
    pub(crate) fn new(x: Scale, y: Scale, x_label: &'s str, y_label: &'s str) -> Self {
        Self {
            x,
            y,
            x_label,
            y_label,
            right_margin: 0,
        }
    }
}

/// Maximum number of major ticks for an axis of `len` pixels (≈ 3.5 per inch, at least 3).
fn tick_budget(len: i32) -> usize {
    ((len as f64 / style::DPI * 3.5).round() as usize).clamp(3, 12)
}

/// The tick budget for a numeric axis of `len` pixels, lowered until the labels fit side by side
/// (by width along x, by height along y) with a gap; and the widest label's width. Category axes
/// keep every slot.
fn fit_ticks<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    scale: &Scale,
    len: i32,
    horizontal: bool,
    what: &'static str,
) -> Result<(usize, i32), ReportError> {
    let f = font(pt::TICK);
    let mut budget = tick_budget(len);
    loop {
        let ticks = scale.major_ticks(budget);
        let (mut widest, mut tallest) = (0, 0);
        for v in &ticks {
            let (w, h) = text_size(area, &scale.label(*v), &f, what)?;
            widest = widest.max(w);
            tallest = tallest.max(h);
        }
        let extent = if horizontal { widest } else { tallest } + 2 * px(pt::GAP);
        let fits = ticks.len() as i32 * extent <= len;
        if fits || budget <= 2 || matches!(scale.kind(), ScaleKind::Category(_)) {
            return Ok((budget, widest));
        }
        budget -= 1;
    }
}

/// The smallest plot (inside the axes) a figure may have: half an inch each way.
const MIN_PLOT_PX: i32 = (style::DPI / 2.0) as i32;

/// Builds a chart on `area` with the house style: tick labels, axis labels, thin grid lines
/// (minor ones on log axes), no chart junk. Category labels too long to sit side by side are
/// written vertically.
pub(crate) fn chart<'a, DB: DrawingBackend>(
    area: &'a DrawingArea<DB, Shift>,
    axes: Axes<'_>,
    what: &'static str,
) -> Result<Chart<'a, DB>, ReportError> {
    let (w, h) = (area.dim_in_pixel().0 as i32, area.dim_in_pixel().1 as i32);
    let tick_font = font(pt::TICK);
    let desc_font = font(pt::AXIS_LABEL);
    let gap = px(pt::GAP);
    let tick_len = px(pt::TICK_LEN);
    let (_, desc_h) = text_size(area, "Xg", &desc_font, what)?;
    let (_, tick_h) = text_size(area, "0g", &tick_font, what)?;

    // y labels: as wide as the widest tick label. The tick budget is for the plot's height, which
    // is the area less (at least) one row of x labels and the x axis label.
    let (n_y, _) = fit_ticks(area, &axes.y, h - 2 * (tick_h + desc_h), false, what)?;
    let mut y_tick_w = 0;
    for v in axes.y.major_ticks(n_y) {
        y_tick_w = y_tick_w.max(text_size(area, &axes.y.label(v), &tick_font, what)?.0);
    }
    let y_area = y_tick_w
        + 2 * tick_len
        + gap
        + if axes.y_label.is_empty() {
            0
        } else {
            desc_h + gap
        };

    // x labels: horizontal if they fit their slots (numbers: fewer ticks until they do),
    // categories vertical otherwise.
    let plot_w = (w - y_area - axes.right_margin).max(1);
    let (n_x, x_tick_w) = fit_ticks(area, &axes.x, plot_w, true, what)?;
    let x_ticks = axes.x.major_ticks(n_x);
    let vertical = matches!(axes.x.kind(), ScaleKind::Category(_))
        && x_tick_w + gap > plot_w / x_ticks.len().max(1) as i32;
    let x_tick_h = if vertical { x_tick_w } else { tick_h };
    let x_area = x_tick_h
        + 2 * tick_len
        + gap
        + if axes.x_label.is_empty() {
            0
        } else {
            desc_h + gap
        };

    // Half a tick label of room at the top and right, so end labels are not cut.
    let margin_top = tick_h / 2 + gap;
    let margin_right =
        (if vertical { tick_h / 2 } else { x_tick_w / 2 } + gap).max(axes.right_margin);
    let plot = (w - y_area - margin_right, h - x_area - margin_top);
    if plot.0 < MIN_PLOT_PX || plot.1 < MIN_PLOT_PX {
        return Err(ReportError::InvalidSpec(format!(
            "{what}: figure too small for its labels and legend: the plot would be {} × {} px \
             (at least {MIN_PLOT_PX} × {MIN_PLOT_PX}); make the figure larger or the names shorter",
            plot.0.max(0),
            plot.1.max(0)
        )));
    }
    let mut chart = ChartBuilder::on(area)
        .margin_top(margin_top)
        .margin_right(margin_right)
        .x_label_area_size(x_area)
        .y_label_area_size(y_area)
        .build_cartesian_2d(axes.x.clone(), axes.y.clone())
        .map_err(drawing(what))?;

    let x_log = *axes.x.kind() == ScaleKind::Log;
    let y_log = *axes.y.kind() == ScaleKind::Log;
    let is_cat = matches!(axes.x.kind(), ScaleKind::Category(_));
    let mut mesh = chart.configure_mesh();
    mesh.x_labels(if vertical { 0 } else { n_x })
        .y_labels(n_y)
        .x_max_light_lines(if x_log { 10 } else { 0 })
        .y_max_light_lines(if y_log { 10 } else { 0 })
        .label_style(tick_font.color(&style::INK))
        .axis_desc_style(desc_font.color(&style::INK))
        .bold_line_style(style::stroke(style::GRID, pt::GRID))
        .light_line_style(style::stroke(style::GRID_MINOR, pt::GRID_MINOR))
        .axis_style(style::stroke(style::INK, pt::AXIS))
        .set_all_tick_mark_size(tick_len);
    if !axes.x_label.is_empty() {
        mesh.x_desc(axes.x_label);
    }
    if !axes.y_label.is_empty() {
        mesh.y_desc(axes.y_label);
    }
    if is_cat {
        mesh.disable_x_mesh();
    }
    mesh.draw().map_err(drawing(what))?;

    if vertical {
        vertical_x_labels(&chart, area, &x_ticks, tick_len, what)?;
    }
    Ok(chart)
}

/// Category labels written bottom-to-top under their slots, ending at the axis.
fn vertical_x_labels<DB: DrawingBackend>(
    chart: &Chart<'_, DB>,
    area: &DrawingArea<DB, Shift>,
    ticks: &[f64],
    tick_len: i32,
    what: &'static str,
) -> Result<(), ReportError> {
    let (x_range, y_range) = chart.plotting_area().get_pixel_range();
    let base = area.get_base_pixel();
    let f = font(pt::TICK).color(&style::INK);
    let rotated = f
        .transform(FontTransform::Rotate270)
        .pos(Pos::new(HPos::Right, VPos::Center));
    let x_scale = chart.as_coord_spec().x_spec();
    for v in ticks {
        let x = x_scale.map(v, (x_range.start, x_range.end)) - base.0;
        let y = y_range.end - base.1 + 2 * tick_len;
        area.draw_text(&x_scale.label(*v), &rotated, (x, y))
            .map_err(drawing(what))?;
    }
    Ok(())
}

/// The plotting rectangle of a chart, in backend pixels.
pub(crate) fn plot_rect<DB: DrawingBackend>(chart: &Chart<'_, DB>) -> PixelRect {
    let (x, y) = chart.plotting_area().get_pixel_range();
    PixelRect {
        left: x.start,
        top: y.start,
        right: x.end,
        bottom: y.end,
    }
}

/// Places annotation boxes inside a rectangle so they overlap neither the data (registered as
/// obstacles) nor each other.
pub(crate) struct Labeler {
    bounds: PixelRect,
    /// Covered boxes with the cost of covering them: text must never cover text, should not
    /// hide a marker, and may cross a line where nothing better is left.
    taken: Vec<(PixelRect, usize)>,
    /// The data points marked, to keep each label nearer its own point than any other.
    points: Vec<(i32, i32)>,
}

/// Cost of covering a line segment's box, a marker, a placed label.
const COVER_LINE: usize = 1;
const COVER_POINT: usize = 100;
const COVER_TEXT: usize = 10_000;
/// Cost of a label that sits nearer another point than its own (it would name the wrong one).
const AMBIGUOUS: usize = 50;

/// Squared distance from a pixel to the nearest pixel of a box.
fn distance2((x, y): (i32, i32), r: &PixelRect) -> i64 {
    let dx = i64::from((r.left - x).max(x - r.right).max(0));
    let dy = i64::from((r.top - y).max(y - r.bottom).max(0));
    dx * dx + dy * dy
}

impl Labeler {
    pub(crate) fn new(bounds: PixelRect) -> Self {
        Self {
            bounds,
            taken: Vec::new(),
            points: Vec::new(),
        }
    }

    /// Marks a box around a data point (marker radius plus a little) as covered.
    pub(crate) fn point(&mut self, (x, y): (i32, i32)) {
        self.points.push((x, y));
        let r = px(pt::MARKER) + 2;
        self.taken.push((
            PixelRect {
                left: x - r,
                top: y - r,
                right: x + r,
                bottom: y + r,
            },
            COVER_POINT,
        ));
    }

    /// Marks a drawn line segment (backend pixels) as covered, as a chain of small boxes.
    pub(crate) fn line(&mut self, from: (i32, i32), to: (i32, i32)) {
        let half = px(pt::LINE).max(2);
        let (dx, dy) = (f64::from(to.0 - from.0), f64::from(to.1 - from.1));
        let steps = (dx.hypot(dy) / f64::from(2 * half)).ceil().max(1.0) as i32;
        for k in 0..=steps {
            let t = f64::from(k) / f64::from(steps);
            let (x, y) = (
                from.0 + (dx * t).round() as i32,
                from.1 + (dy * t).round() as i32,
            );
            self.taken.push((
                PixelRect {
                    left: x - half,
                    top: y - half,
                    right: x + half,
                    bottom: y + half,
                },
                COVER_LINE,
            ));
        }
    }

    /// The cost of covering what `r` would cover.
    fn overlaps(&self, r: &PixelRect) -> usize {
        self.taken.iter().filter(|t| t.0.intersects(r)).map(|t| t.1).sum()
    }

    fn fits(&self, r: &PixelRect) -> bool {
        r.left >= self.bounds.left
            && r.top >= self.bounds.top
            && r.right <= self.bounds.right
            && r.bottom <= self.bounds.bottom
    }

    /// Takes the first candidate top-left corner whose `size` box fits the bounds and is free,
    /// else the fitting one that covers the least (text before markers before lines), else the
    /// first; returns it.
    pub(crate) fn choose(
        &mut self,
        candidates: impl IntoIterator<Item = (i32, i32)>,
        size: (i32, i32),
    ) -> (i32, i32) {
        self.choose_with(candidates, size, |_| 0)
    }

    /// [`Labeler::choose`] with an extra cost per candidate box.
    fn choose_with(
        &mut self,
        candidates: impl IntoIterator<Item = (i32, i32)>,
        (w, h): (i32, i32),
        extra: impl Fn(&PixelRect) -> usize,
    ) -> (i32, i32) {
        let boxed = |(x, y): (i32, i32)| PixelRect {
            left: x,
            top: y,
            right: x + w,
            bottom: y + h,
        };
        let mut first = None;
        let mut best: Option<(usize, PixelRect)> = None;
        for c in candidates {
            let r = boxed(c);
            first.get_or_insert(r);
            if !self.fits(&r) {
                continue;
            }
            let n = self.overlaps(&r) + extra(&r);
            if best.as_ref().is_none_or(|(m, _)| n < *m) {
                best = Some((n, r));
                if n == 0 {
                    break;
                }
            }
        }
        let r = best
            .map(|(_, r)| r)
            .or(first)
            .unwrap_or_else(|| boxed((self.bounds.left, self.bounds.top)));
        self.taken.push((r, COVER_TEXT));
        (r.left, r.top)
    }

    /// A spot for a `size` box next to the point at `anchor`: right, left, the diagonals, above,
    /// below, stepping outwards (see [`Labeler::choose`]), preferring spots nearer `anchor` than
    /// any other marked point.
    pub(crate) fn near(&mut self, anchor: (i32, i32), size: (i32, i32)) -> (i32, i32) {
        let (w, h) = size;
        // Clear of the widest marker (triangles reach 1.2 r), plus a small gap.
        let d = px(pt::MARKER) * 3 / 2 + px(1.0);
        let candidates = (0..6).flat_map(|step| {
            let e = d + step * h / 2;
            [
                (anchor.0 + e, anchor.1 - h / 2),
                (anchor.0 - e - w, anchor.1 - h / 2),
                (anchor.0 + e, anchor.1 + e / 2),
                (anchor.0 - e - w, anchor.1 - e / 2 - h),
                (anchor.0 + e, anchor.1 - e / 2 - h),
                (anchor.0 - e - w, anchor.1 + e / 2),
                (anchor.0 - w / 2, anchor.1 - e - h),
                (anchor.0 - w / 2, anchor.1 + e),
            ]
        });
        let others: Vec<(i32, i32)> = self.points.iter().copied().filter(|p| *p != anchor).collect();
        // Each half text height further out costs as much as crossing two line segments' boxes.
        let step = f64::from((h / 2).max(1));
        self.choose_with(candidates, size, |r| {
            let own = distance2(anchor, r);
            let far = (2.0 * (own as f64).sqrt() / step) as usize;
            far + if others.iter().any(|p| distance2(*p, r) < own) { AMBIGUOUS } else { 0 }
        })
    }

    /// The emptiest corner of the bounds for a `size` box (top-left, bottom-right, top-right,
    /// bottom-left on ties).
    pub(crate) fn corner(&mut self, size: (i32, i32)) -> (i32, i32) {
        let pad = px(pt::GAP);
        let b = self.bounds;
        let xs = [b.left + pad, b.right - pad - size.0];
        let ys = [b.top + pad, b.bottom - pad - size.1];
        self.choose(
            [
                (xs[0], ys[0]),
                (xs[1], ys[1]),
                (xs[1], ys[0]),
                (xs[0], ys[1]),
            ],
            size,
        )
    }
}

/// Draws a block of text lines with a white backing box at `pos` (top-left, backend pixels).
pub(crate) fn note_box<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    lines: &[String],
    pos: (i32, i32),
    what: &'static str,
) -> Result<(), ReportError> {
    let (w, h) = note_size(root, lines, what)?;
    let pad = px(pt::GAP);
    root.draw(&Rectangle::new(
        [pos, (pos.0 + w, pos.1 + h)],
        style::fill(style::PAPER).filled(),
    ))
    .map_err(drawing(what))?;
    root.draw(&Rectangle::new(
        [pos, (pos.0 + w, pos.1 + h)],
        style::stroke(style::GRID, pt::GRID),
    ))
    .map_err(drawing(what))?;
    let f = font(pt::NOTE);
    let line_h = (h - 2 * pad) / lines.len().max(1) as i32;
    for (i, line) in lines.iter().enumerate() {
        text_at(
            root,
            line,
            &f,
            (pos.0 + pad, pos.1 + pad + i as i32 * line_h),
            what,
        )?;
    }
    Ok(())
}

/// Size of [`note_box`] for these lines.
pub(crate) fn note_size<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    lines: &[String],
    what: &'static str,
) -> Result<(i32, i32), ReportError> {
    let f = font(pt::NOTE);
    let pad = px(pt::GAP);
    let mut w = 0;
    let mut line_h = 0;
    for line in lines {
        let (lw, lh) = text_size(root, line, &f, what)?;
        w = w.max(lw);
        line_h = line_h.max(lh);
    }
    Ok((w + 2 * pad, line_h * lines.len() as i32 + 2 * pad))
}

/// Clips a polygon (backend pixels, as floats) to `rect` (Sutherland–Hodgman), for shaded regions
/// whose corners fall outside the axes.
pub(crate) fn clip_polygon(points: &[(f64, f64)], rect: PixelRect) -> Vec<(i32, i32)> {
    let (l, t, r, b) = (
        f64::from(rect.left),
        f64::from(rect.top),
        f64::from(rect.right),
        f64::from(rect.bottom),
    );
    // Each edge: is a point inside, and where does a segment cross the edge.
    type Inside = fn((f64, f64), f64) -> bool;
    let edges: [(Inside, bool, f64); 4] = [
        (|p, v| p.0 >= v, true, l),
        (|p, v| p.0 <= v, true, r),
        (|p, v| p.1 >= v, false, t),
        (|p, v| p.1 <= v, false, b),
    ];
    let mut poly = points.to_vec();
    for (inside, vertical, v) in edges {
        let input = std::mem::take(&mut poly);
        let Some(&last) = input.last() else { break };
        let cross = |a: (f64, f64), c: (f64, f64)| {
            if vertical {
                let f = (v - a.0) / (c.0 - a.0);
                (v, a.1 + f * (c.1 - a.1))
            } else {
                let f = (v - a.1) / (c.1 - a.1);
                (a.0 + f * (c.0 - a.0), v)
            }
        };
        let mut prev = last;
        for p in input {
            match (inside(p, v), inside(prev, v)) {
                (true, true) => poly.push(p),
                (true, false) => {
                    poly.push(cross(prev, p));
                    poly.push(p);
                }
                (false, true) => poly.push(cross(prev, p)),
                (false, false) => {}
            }
            prev = p;
        }
    }
    poly.into_iter()
        .map(|(x, y)| (x.round() as i32, y.round() as i32))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Three close points beside a roof line (the G80 roofline of stencil5, matmul_naive and
    /// vector_add): labels must not cover each other, and each must sit nearer its own point
    /// than any other, however crowded.
    #[test]
    fn crowded_labels_stay_apart_and_next_to_their_points() {
        let bounds = PixelRect { left: 0, top: 0, right: 2000, bottom: 1000 };
        let mut l = Labeler::new(bounds);
        l.line((300, 900), (1100, 100));
        let points = [((663, 601), (138, 33)), ((636, 634), (251, 33)), ((676, 641), (197, 33)), ((756, 573), (104, 33))];
        for (at, _) in &points {
            l.point(*at);
        }
        let boxes: Vec<PixelRect> = points
            .iter()
            .map(|(at, (w, h))| {
                let (x, y) = l.near(*at, (*w, *h));
                PixelRect { left: x, top: y, right: x + w, bottom: y + h }
            })
            .collect();
        for (i, b) in boxes.iter().enumerate() {
            for other in &boxes[i + 1..] {
                assert!(!b.intersects(other), "{b:?} covers {other:?}");
            }
            let own = distance2(points[i].0, b);
            for (j, (p, _)) in points.iter().enumerate() {
                assert!(j == i || distance2(*p, b) >= own, "label {i} {b:?} is nearer point {j}");
            }
            // Within 60 px (5 pt at 300 dpi).
            assert!(own <= 60 * 60, "label {i} {b:?} is far from its point");
        }
    }
}
