//! Helpers shared by the integration tests: decoding written PNGs, parsing written SVGs, and
//! sample data.

use std::path::{Path, PathBuf};

use warpsim_reports::*;

/// A fresh directory for one test under cargo's per-target temp dir.
pub fn out_dir(test: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("reports-tests")
        .join(test);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create test dir");
    dir
}

/// A decoded 8-bit RGB PNG.
pub struct Image {
    pub width: u32,
    pub height: u32,
    pub rgb: Vec<u8>,
    pub pixels_per_metre: Option<u32>,
}

impl Image {
    pub fn pixel(&self, x: i32, y: i32) -> [u8; 3] {
        let i = (y as usize * self.width as usize + x as usize) * 3;
        [self.rgb[i], self.rgb[i + 1], self.rgb[i + 2]]
    }

    /// Pixels inside `r` satisfying `pred`.
    pub fn count_in(&self, r: &PixelRect, pred: impl Fn([u8; 3]) -> bool) -> usize {
        let mut n = 0;
        for y in r.top.max(0)..r.bottom.min(self.height as i32) {
            for x in r.left.max(0)..r.right.min(self.width as i32) {
                if pred(self.pixel(x, y)) {
                    n += 1;
                }
            }
        }
        n
    }

    /// Pixels inside `r` of exactly this colour.
    pub fn count_color(&self, r: &PixelRect, rgb: [u8; 3]) -> usize {
        self.count_in(r, |p| p == rgb)
    }

    /// Pixels inside `r` that are neither white nor a light grey (grid lines, bands).
    pub fn count_ink(&self, r: &PixelRect) -> usize {
        self.count_in(r, |p| p.iter().any(|c| *c < 0xC8))
    }
}

pub fn decode_png(path: &Path) -> Image {
    let file = std::fs::File::open(path).expect("open png");
    let decoder = png::Decoder::new(std::io::BufReader::new(file));
    let mut reader = decoder.read_info().expect("png header");
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).expect("png frame");
    assert_eq!(info.color_type, png::ColorType::Rgb);
    assert_eq!(info.bit_depth, png::BitDepth::Eight);
    buf.truncate(info.buffer_size());
    let ppm = reader.info().pixel_dims.map(|d| d.xppu);
    Image {
        width: info.width,
        height: info.height,
        rgb: buf,
        pixels_per_metre: ppm,
    }
}

/// The parsed parts of an SVG that the tests look at.
pub struct Svg {
    pub width: String,
    pub height: String,
    pub view_box: String,
    pub texts: Vec<String>,
    pub font_sizes: Vec<f64>,
    /// Element name → count.
    pub elements: std::collections::HashMap<String, usize>,
}

impl Svg {
    pub fn count(&self, name: &str) -> usize {
        self.elements.get(name).copied().unwrap_or(0)
    }

    pub fn has_text(&self, s: &str) -> bool {
        self.texts.iter().any(|t| t == s)
    }
}

pub fn parse_svg(path: &Path) -> Svg {
    let text = std::fs::read_to_string(path).expect("read svg");
    let doc = roxmltree::Document::parse(&text).expect("SVG must be well-formed XML");
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "svg");
    let mut elements = std::collections::HashMap::new();
    let mut texts = Vec::new();
    let mut font_sizes = Vec::new();
    for n in doc.descendants().filter(|n| n.is_element()) {
        *elements.entry(n.tag_name().name().to_string()).or_insert(0) += 1;
        if n.tag_name().name() == "text" {
            texts.push(n.text().unwrap_or("").trim().to_string());
            if let Some(fs) = n.attribute("font-size") {
                font_sizes.push(fs.parse().expect("numeric font-size"));
            }
        }
    }
    Svg {
        width: root.attribute("width").unwrap_or("").into(),
        height: root.attribute("height").unwrap_or("").into(),
        view_box: root.attribute("viewBox").unwrap_or("").into(),
        texts,
        font_sizes,
        elements,
    }
}

/// Checks what every figure must satisfy: PNG of the column's size at 300 dpi, white corners, ink
/// inside the plot area, an SVG of the same physical size whose text is at least 8 pt.
pub fn check_common(w: &Written, column: Column, height_in: f64) -> (Image, Svg) {
    let img = decode_png(&w.png);
    let expect_w = (column.width_in() * 300.0).round() as u32;
    let expect_h = (height_in * 300.0).round() as u32;
    assert_eq!((img.width, img.height), (expect_w, expect_h));
    assert_eq!(w.size_px, (expect_w, expect_h));
    assert_eq!(img.pixels_per_metre, Some(11811), "300 dpi pHYs");
    assert_eq!(img.pixel(0, 0), [255, 255, 255]);
    assert_eq!(
        img.pixel(img.width as i32 - 1, img.height as i32 - 1),
        [255, 255, 255]
    );
    let p = w.plot_area;
    assert!(
        p.left > 0 && p.top >= 0 && p.right <= img.width as i32 && p.bottom <= img.height as i32,
        "{p:?}"
    );
    assert!(
        (p.right - p.left) > img.width as i32 / 3,
        "plot too narrow: {p:?}"
    );
    assert!(
        (p.bottom - p.top) > img.height as i32 / 4,
        "plot too short: {p:?}"
    );
    assert!(img.count_ink(&p) > 500, "plot area is empty");

    let svg = parse_svg(&w.svg);
    let inch = |v: f64| format!("{}in", (v * 1000.0).round() / 1000.0);
    assert_eq!(svg.width, inch(column.width_in()));
    assert_eq!(svg.height, inch(height_in));
    assert_eq!(svg.view_box, format!("0 0 {expect_w} {expect_h}"));
    assert!(!svg.font_sizes.is_empty());
    let min_px = 8.0 * 300.0 / 72.0 - 1e-6;
    assert!(
        svg.font_sizes.iter().all(|s| *s >= min_px),
        "text below 8 pt: {:?}",
        svg.font_sizes
    );
    (img, svg)
}

/// The first two palette colours (Okabe–Ito blue and vermillion).
pub const BLUE: [u8; 3] = [0x00, 0x72, 0xB2];
pub const VERMILLION: [u8; 3] = [0xD5, 0x5E, 0x00];

pub fn validation_points() -> Vec<ValidationPoint> {
    [
        ("vector_add", 9_800.0, 10_400.0),
        ("saxpy", 12_100.0, 11_300.0),
        ("matmul_naive", 1_450_000.0, 1_610_000.0),
        ("reduce_shared", 41_000.0, 47_500.0),
        ("transpose_naive", 120_000.0, 71_000.0),
        ("histogram_atomics", 210_000.0, 305_000.0),
    ]
    .into_iter()
    .map(|(w, m, s)| ValidationPoint {
        workload: w.into(),
        measured_cycles: m,
        simulated_cycles: s,
    })
    .collect()
}
