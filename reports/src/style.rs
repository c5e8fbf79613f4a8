//! Paper style shared by every figure: the figure sizes (one or two paper columns at 300 dpi), the
//! text sizes in points, line widths, and the colour-blind-safe palettes (Okabe–Ito first, then Paul
//! Tol's "muted" set, and a viridis ramp for continuous values). Figures never pick a colour, a font
//! size or a line width of their own; they ask here, so one change restyles them all.

use std::sync::OnceLock;

use plotters::style::{FontDesc, FontFamily, FontStyle, RGBColor, ShapeStyle, TextStyle};

use crate::error::ReportError;

/// Resolution of the PNG output; SVG output uses the same pixel grid, declared in inches.
pub const DPI: f64 = 300.0;

/// The width of a figure on the page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub enum Column {
    /// One column of a two-column paper: 3.5 in wide (1050 px at 300 dpi).
    #[default]
    Single,
    /// The full text width of a two-column paper: 7 in wide (2100 px at 300 dpi).
    Double,
}

impl Column {
    /// Width in inches.
    pub fn width_in(self) -> f64 {
        match self {
            Column::Single => 3.5,
            Column::Double => 7.0,
        }
    }

    /// Default height in inches when [`FigureSpec::height_in`] is not given.
    pub fn default_height_in(self) -> f64 {
        match self {
            Column::Single => 2.6,
            Column::Double => 2.8,
        }
    }
}

/// What every figure needs besides its data: title, size and axes.
///
/// An empty `title` draws no title (papers usually caption figures outside the image); an empty
/// axis label is replaced by the figure's default where it has one (e.g. "Measured (cycles)").
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct FigureSpec {
    /// Title drawn above the plot; empty for none.
    pub title: String,
    /// One or two paper columns wide.
    pub width: Column,
    /// Height in inches; `None` takes [`Column::default_height_in`].
    pub height_in: Option<f64>,
    /// x-axis label, with its unit, e.g. `"L2 size (MiB)"`.
    pub x_label: String,
    /// y-axis label, with its unit, e.g. `"Speedup (×)"`.
    pub y_label: String,
    /// Logarithmic x axis (figures whose axis is intrinsically categorical or logarithmic say so).
    pub x_log: bool,
    /// Logarithmic y axis.
    pub y_log: bool,
}

impl FigureSpec {
    /// A spec with a title and a width; labels empty, linear axes.
    pub fn new(title: impl Into<String>, width: Column) -> Self {
        Self {
            title: title.into(),
            width,
            ..Self::default()
        }
    }

    /// Sets the x-axis label.
    pub fn x_label(mut self, label: impl Into<String>) -> Self {
        self.x_label = label.into();
        self
    }

    /// Sets the y-axis label.
    pub fn y_label(mut self, label: impl Into<String>) -> Self {
        self.y_label = label.into();
        self
    }

    /// Makes the x axis logarithmic.
    pub fn log_x(mut self) -> Self {
        self.x_log = true;
        self
    }

    /// Makes the y axis logarithmic.
    pub fn log_y(mut self) -> Self {
        self.y_log = true;
        self
    }

    /// Sets the height in inches.
    pub fn height_in(mut self, inches: f64) -> Self {
        self.height_in = Some(inches);
        self
    }

    /// Pixel size of the figure at [`DPI`], after checking the height.
    pub(crate) fn size_px(&self) -> Result<(u32, u32), ReportError> {
        let h = self
            .height_in
            .unwrap_or_else(|| self.width.default_height_in());
        if !(1.0..=10.0).contains(&h) {
            return Err(ReportError::InvalidSpec(format!(
                "height_in = {h}: must be between 1 and 10 inches"
            )));
        }
        Ok((
            (self.width.width_in() * DPI).round() as u32,
            (h * DPI).round() as u32,
        ))
    }

    /// The x label, or `default` when none was given.
    pub(crate) fn x_label_or<'a>(&'a self, default: &'a str) -> &'a str {
        if self.x_label.is_empty() {
            default
        } else {
            &self.x_label
        }
    }

    /// The y label, or `default` when none was given.
    pub(crate) fn y_label_or<'a>(&'a self, default: &'a str) -> &'a str {
        if self.y_label.is_empty() {
            default
        } else {
            &self.y_label
        }
    }
}

/// Text sizes in points at final (printed) size; all at least 8 pt.
pub(crate) mod pt {
    pub const TITLE: f64 = 10.0;
    pub const AXIS_LABEL: f64 = 9.0;
    pub const TICK: f64 = 8.0;
    pub const LEGEND: f64 = 8.0;
    pub const NOTE: f64 = 8.0;
    /// Data lines.
    pub const LINE: f64 = 1.1;
    /// Axis lines and tick marks.
    pub const AXIS: f64 = 0.6;
    /// Major grid lines.
    pub const GRID: f64 = 0.4;
    /// Minor grid lines (log axes).
    pub const GRID_MINOR: f64 = 0.25;
    /// Marker radius.
    pub const MARKER: f64 = 2.2;
    /// Tick mark length.
    pub const TICK_LEN: f64 = 2.5;
    /// Generic gap between elements.
    pub const GAP: f64 = 3.0;
}

/// Points to pixels at [`DPI`].
pub(crate) fn px(points: f64) -> i32 {
    (points * DPI / 72.0).round() as i32
}

/// Registers the embedded DejaVu Sans under plotters' "sans-serif" family, once per process.
pub(crate) fn ensure_fonts() -> Result<(), ReportError> {
    static REGISTERED: OnceLock<bool> = OnceLock::new();
    let ok = *REGISTERED.get_or_init(|| {
        let regular = plotters::style::register_font(
            "sans-serif",
            FontStyle::Normal,
            dejavu::sans::regular(),
        );
        let bold =
            plotters::style::register_font("sans-serif", FontStyle::Bold, dejavu::sans::bold());
        regular.is_ok() && bold.is_ok()
    });
    if ok {
        Ok(())
    } else {
        Err(ReportError::Draw {
            what: "fonts",
            message: "embedded DejaVu Sans was rejected".into(),
        })
    }
}

/// A text style of `points` size. plotters' font size is the glyph box, 1.24 × the em size (its SVG
/// backend divides by 1.24), so the em comes out at exactly `points` on paper.
pub(crate) fn font(points: f64) -> TextStyle<'static> {
    FontDesc::new(
        FontFamily::SansSerif,
        points * DPI / 72.0 * 1.24,
        FontStyle::Normal,
    )
    .into()
}

/// The bold title font.
pub(crate) fn title_font() -> TextStyle<'static> {
    FontDesc::new(
        FontFamily::SansSerif,
        pt::TITLE * DPI / 72.0 * 1.24,
        FontStyle::Bold,
    )
    .into()
}

/// Solid stroke of `points` width.
pub(crate) fn stroke(color: RGBColor, points: f64) -> ShapeStyle {
    ShapeStyle {
        color: color.into(),
        filled: false,
        stroke_width: px(points).max(1) as u32,
    }
}

/// Solid fill.
pub(crate) fn fill(color: RGBColor) -> ShapeStyle {
    ShapeStyle {
        color: color.into(),
        filled: true,
        stroke_width: 0,
    }
}

/// Text and axes.
pub(crate) const INK: RGBColor = RGBColor(0x22, 0x22, 0x22);
/// Major grid lines.
pub(crate) const GRID: RGBColor = RGBColor(0xDD, 0xDD, 0xDD);
/// Minor grid lines, lighter than the major ones.
pub(crate) const GRID_MINOR: RGBColor = RGBColor(0xEE, 0xEE, 0xEE);
/// Reference lines (y = x, baseline at 1.0, roofs).
pub(crate) const REFERENCE: RGBColor = RGBColor(0x55, 0x55, 0x55);
/// Shaded bands.
pub(crate) const BAND: RGBColor = RGBColor(0xE4, 0xE4, 0xE4);
/// Background.
pub(crate) const PAPER: RGBColor = RGBColor(0xFF, 0xFF, 0xFF);

/// Categorical palette: Okabe–Ito (ordered so neighbours contrast and yellow, weak on white, comes
/// last), then Paul Tol's "muted" scheme and its pale grey. Beyond [`MAX_SERIES`] colours repeat,
/// so figures refuse more series than that.
const PALETTE: [RGBColor; 18] = [
    RGBColor(0x00, 0x72, 0xB2), // Okabe–Ito blue
    RGBColor(0xD5, 0x5E, 0x00), // vermillion
    RGBColor(0x00, 0x9E, 0x73), // bluish green
    RGBColor(0xE6, 0x9F, 0x00), // orange
    RGBColor(0xCC, 0x79, 0xA7), // reddish purple
    RGBColor(0x56, 0xB4, 0xE9), // sky blue
    RGBColor(0x00, 0x00, 0x00), // black
    RGBColor(0xF0, 0xE4, 0x42), // yellow
    RGBColor(0x33, 0x22, 0x88), // Tol muted indigo
    RGBColor(0x88, 0xCC, 0xEE), // cyan
    RGBColor(0x44, 0xAA, 0x99), // teal
    RGBColor(0x11, 0x77, 0x33), // green
    RGBColor(0x99, 0x99, 0x33), // olive
    RGBColor(0xDD, 0xCC, 0x77), // sand
    RGBColor(0xCC, 0x66, 0x77), // rose
    RGBColor(0x88, 0x22, 0x55), // wine
    RGBColor(0xAA, 0x44, 0x99), // purple
    RGBColor(0xBB, 0xBB, 0xBB), // grey
];

/// How many series or categories one figure can tell apart by colour.
pub const MAX_SERIES: usize = PALETTE.len();

/// The `i`-th categorical colour.
pub(crate) fn series_color(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

/// Refuses more series than the palette has colours.
pub(crate) fn check_series_count(what: &'static str, n: usize) -> Result<(), ReportError> {
    if n > MAX_SERIES {
        return Err(ReportError::InvalidData {
            what,
            message: format!(
                "{n} series/categories, but only {MAX_SERIES} can be told apart by colour"
            ),
        });
    }
    Ok(())
}

/// Viridis, sampled at ten evenly spaced stops (perceptually uniform, colour-blind safe, prints
/// in grey as a monotone ramp).
const VIRIDIS: [(u8, u8, u8); 10] = [
    (0x44, 0x01, 0x54),
    (0x48, 0x28, 0x78),
    (0x3E, 0x4A, 0x89),
    (0x31, 0x68, 0x8E),
    (0x26, 0x82, 0x8E),
    (0x1F, 0x9E, 0x89),
    (0x35, 0xB7, 0x79),
    (0x6D, 0xCD, 0x59),
    (0xB4, 0xDE, 0x2C),
    (0xFD, 0xE7, 0x25),
];

/// The viridis colour at `t` in [0, 1] (clamped; NaN maps to 0).
pub(crate) fn ramp(t: f64) -> RGBColor {
    let t = if t.is_nan() { 0.0 } else { t.clamp(0.0, 1.0) };
    let pos = t * (VIRIDIS.len() - 1) as f64;
    let i = (pos.floor() as usize).min(VIRIDIS.len() - 2);
    let f = pos - i as f64;
    let (a, b) = (VIRIDIS[i], VIRIDIS[i + 1]);
    let mix = |x: u8, y: u8| (f64::from(x) + (f64::from(y) - f64::from(x)) * f).round() as u8;
    RGBColor(mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_match_paper_columns() {
        let single = FigureSpec::new("", Column::Single).size_px().unwrap();
        let double = FigureSpec::new("", Column::Double)
            .height_in(3.0)
            .size_px()
            .unwrap();
        assert_eq!(single, (1050, 780));
        assert_eq!(double, (2100, 900));
        assert!(FigureSpec::new("", Column::Single)
            .height_in(0.2)
            .size_px()
            .is_err());
        assert!(FigureSpec::new("", Column::Single)
            .height_in(f64::NAN)
            .size_px()
            .is_err());
    }

    #[test]
    fn fonts_are_at_least_8pt() {
        for p in [pt::TICK, pt::LEGEND, pt::NOTE, pt::AXIS_LABEL, pt::TITLE] {
            assert!(p >= 8.0);
        }
        assert_eq!(px(8.0), 33);
    }

    #[test]
    fn ramp_ends_and_palette_limits() {
        assert_eq!(ramp(0.0), RGBColor(0x44, 0x01, 0x54));
        assert_eq!(ramp(1.0), RGBColor(0xFD, 0xE7, 0x25));
        assert_eq!(ramp(f64::NAN), ramp(0.0));
        assert!(check_series_count("t", MAX_SERIES).is_ok());
        assert!(check_series_count("t", MAX_SERIES + 1).is_err());
    }
}
