//! Output of figures: every figure is drawn twice by the same code, once onto an RGB buffer that
//! is encoded as PNG (with a 300 dpi pHYs chunk, so it imports at its paper size) and once into an
//! SVG whose `width`/`height` are given in inches over the same pixel `viewBox`, so both files have
//! the same physical size and the same layout.

use std::path::{Path, PathBuf};

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::error::ReportError;
use crate::frame::drawing;
use crate::style::{self, FigureSpec, DPI};

/// A rectangle in image pixels; `right` and `bottom` are exclusive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PixelRect {
    /// First column inside.
    pub left: i32,
    /// First row inside.
    pub top: i32,
    /// First column past the right edge.
    pub right: i32,
    /// First row past the bottom edge.
    pub bottom: i32,
}

impl PixelRect {
    /// Whether two rectangles share any pixel.
    pub fn intersects(&self, other: &PixelRect) -> bool {
        self.left < other.right
            && other.left < self.right
            && self.top < other.bottom
            && other.top < self.bottom
    }

    /// Whether the pixel `(x, y)` lies inside.
    pub fn contains(&self, (x, y): (i32, i32)) -> bool {
        x >= self.left && x < self.right && y >= self.top && y < self.bottom
    }
}

/// What a figure function wrote.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Written {
    /// `<stem>.png`.
    pub png: PathBuf,
    /// `<stem>.svg`.
    pub svg: PathBuf,
    /// Image size in pixels (PNG; the SVG's `viewBox` is the same).
    pub size_px: (u32, u32),
    /// The (first) plotting rectangle, inside the axes, in pixels.
    pub plot_area: PixelRect,
}

/// A figure: validated data that can draw itself on any plotters backend.
pub(crate) trait Figure {
    /// The public function's name, used in error messages.
    const NAME: &'static str;

    /// Draws on `root` (already filled white) and returns the main plotting rectangle.
    fn draw<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        spec: &FigureSpec,
    ) -> Result<PixelRect, ReportError>;
}

/// `<stem>.<ext>`, keeping any dots already in the stem's file name.
pub(crate) fn with_ext(stem: &Path, ext: &str) -> PathBuf {
    let mut s = stem.as_os_str().to_owned();
    s.push(".");
    s.push(ext);
    PathBuf::from(s)
}

/// Draws `figure` into `<stem>.png` and `<stem>.svg`, creating the parent directory.
pub(crate) fn render<F: Figure>(
    figure: &F,
    spec: &FigureSpec,
    stem: &Path,
) -> Result<Written, ReportError> {
    style::ensure_fonts()?;
    let (w, h) = spec.size_px()?;
    let png_path = with_ext(stem, "png");
    let svg_path = with_ext(stem, "svg");
    crate::write::ensure_parent(stem)?;

    let mut rgb = vec![255u8; w as usize * h as usize * 3];
    let plot_area = {
        let root = BitMapBackend::with_buffer(&mut rgb, (w, h)).into_drawing_area();
        root.fill(&style::PAPER).map_err(drawing(F::NAME))?;
        let plot = figure.draw(&root, spec)?;
        root.present().map_err(drawing(F::NAME))?;
        plot
    };
    write_png(&png_path, &rgb, (w, h))?;

    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (w, h)).into_drawing_area();
        root.fill(&style::PAPER).map_err(drawing(F::NAME))?;
        figure.draw(&root, spec)?;
        root.present().map_err(drawing(F::NAME))?;
    }
    let svg = physical_svg_size(&svg, (w, h)).ok_or_else(|| ReportError::Draw {
        what: F::NAME,
        message: "unexpected SVG header from plotters".into(),
    })?;
    std::fs::write(&svg_path, svg).map_err(ReportError::io(&svg_path))?;

    Ok(Written {
        png: png_path,
        svg: svg_path,
        size_px: (w, h),
        plot_area,
    })
}

/// Encodes 8-bit RGB as PNG, declaring [`DPI`].
fn write_png(path: &Path, rgb: &[u8], (w, h): (u32, u32)) -> Result<(), ReportError> {
    let file = std::fs::File::create(path).map_err(ReportError::io(path))?;
    let png_err = |source| ReportError::Png {
        path: path.to_path_buf(),
        source,
    };
    let mut enc = png::Encoder::new(std::io::BufWriter::new(file), w, h);
    enc.set_color(png::ColorType::Rgb);
    enc.set_depth(png::BitDepth::Eight);
    // Flat colours and thin lines: the adaptive filter with the best deflate roughly halves files.
    enc.set_compression(png::Compression::Best);
    enc.set_adaptive_filter(png::AdaptiveFilterType::Adaptive);
    let per_metre = (DPI / 0.0254).round() as u32;
    enc.set_pixel_dims(Some(png::PixelDimensions {
        xppu: per_metre,
        yppu: per_metre,
        unit: png::Unit::Meter,
    }));
    let mut writer = enc.write_header().map_err(png_err)?;
    writer.write_image_data(rgb).map_err(png_err)?;
    writer.finish().map_err(png_err)
}

/// Rewrites plotters' `<svg width="W" height="H"` (pixels) into inches at [`DPI`], keeping the
/// pixel `viewBox`, so the SVG prints at the same size as the PNG.
fn physical_svg_size(svg: &str, (w, h): (u32, u32)) -> Option<String> {
    let header = format!("<svg width=\"{w}\" height=\"{h}\"");
    let rest = svg.strip_prefix(&header)?;
    let inch = |p: u32| {
        let s = format!("{:.3}", f64::from(p) / DPI);
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    };
    Some(format!(
        "<svg width=\"{}in\" height=\"{}in\"{rest}",
        inch(w),
        inch(h)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn svg_header_becomes_inches() {
        let s = physical_svg_size(
            "<svg width=\"1050\" height=\"780\" viewBox=\"0 0 1050 780\">",
            (1050, 780),
        );
        assert_eq!(
            s.as_deref(),
            Some("<svg width=\"3.5in\" height=\"2.6in\" viewBox=\"0 0 1050 780\">")
        );
        assert!(physical_svg_size("<svg>", (1, 1)).is_none());
    }

    #[test]
    fn extension_keeps_dots_in_stem() {
        assert_eq!(
            with_ext(Path::new("out/fig.v2"), "png"),
            PathBuf::from("out/fig.v2.png")
        );
    }

    #[test]
    fn rect_geometry() {
        let a = PixelRect {
            left: 0,
            top: 0,
            right: 10,
            bottom: 10,
        };
        let b = PixelRect {
            left: 10,
            top: 0,
            right: 20,
            bottom: 10,
        };
        assert!(!a.intersects(&b));
        assert!(a.contains((9, 9)) && !a.contains((10, 9)));
    }
}
