//! Summary pages: one directory holds `index.md` and `index.html`, each with a title and
//! sections of prose, figures (embedded by paths relative to the directory: PNG in Markdown, SVG in
//! HTML, each linking the other format) and tables. The HTML is a single self-contained,
//! XHTML-well-formed file with a small inline stylesheet; nothing is fetched from the network.

use std::path::{Component, Path, PathBuf};

use crate::error::ReportError;
use crate::render::Written;
use crate::table::{Table, TableOptions};

/// A figure to embed.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct FigureRef {
    /// The PNG file.
    pub png: PathBuf,
    /// The SVG file.
    pub svg: PathBuf,
    /// Caption, numbered "Figure N." on the page.
    pub caption: String,
}

impl FigureRef {
    /// A reference to what a figure function wrote.
    pub fn new(written: &Written, caption: impl Into<String>) -> Self {
        Self {
            png: written.png.clone(),
            svg: written.svg.clone(),
            caption: caption.into(),
        }
    }
}

/// One section of a summary page.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct Section {
    /// Section heading.
    pub heading: String,
    /// Prose; blank lines separate paragraphs. Written as plain text (escaped in HTML).
    pub text: String,
    /// Figures, in order.
    pub figures: Vec<FigureRef>,
    /// Tables, in order, after the figures.
    pub tables: Vec<Table>,
}

/// The two files a summary page consists of.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SummaryPaths {
    /// `<dir>/index.md`.
    pub markdown: PathBuf,
    /// `<dir>/index.html`.
    pub html: PathBuf,
}

/// Writes `index.md` and `index.html` into `dir` (created if missing). Figure files are referred
/// to by paths relative to `dir`; they should live inside it (or below its parent) so the page can
/// be moved together with them. Tables use `opts` (thousands separators).
pub fn summary_page(
    dir: impl AsRef<Path>,
    title: &str,
    sections: &[Section],
    opts: &TableOptions,
) -> Result<SummaryPaths, ReportError> {
    let dir = dir.as_ref();
    if sections.is_empty() {
        return Err(ReportError::EmptyData {
            what: "summary_page",
        });
    }
    for s in sections {
        for t in &s.tables {
            t.check("summary_page")?;
        }
    }
    std::fs::create_dir_all(dir).map_err(ReportError::io(dir))?;
    let abs_dir = std::path::absolute(dir).map_err(ReportError::io(dir))?;
    let rel = |p: &Path| -> Result<String, ReportError> {
        let abs = std::path::absolute(p).map_err(ReportError::io(p))?;
        Ok(relative(&abs_dir, &abs)
            .to_string_lossy()
            .replace('\\', "/"))
    };

    let mut md = format!("# {}\n", md_escape(title));
    let mut html = format!(
        "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n<meta charset=\"utf-8\" />\n\
         <title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<h1>{}</h1>\n",
        html_escape(title),
        html_escape(title)
    );
    let mut n_fig = 0;
    for s in sections {
        md.push_str(&format!("\n## {}\n", md_escape(&s.heading)));
        html.push_str(&format!("<h2>{}</h2>\n", html_escape(&s.heading)));
        for para in s
            .text
            .split("\n\n")
            .map(str::trim)
            .filter(|p| !p.is_empty())
        {
            md.push_str(&format!("\n{}\n", md_escape(para)));
            html.push_str(&format!("<p>{}</p>\n", html_escape(para)));
        }
        for f in &s.figures {
            n_fig += 1;
            let (png, svg) = (rel(&f.png)?, rel(&f.svg)?);
            md.push_str(&format!(
                "\n![{}]({})\n\n*Figure {n_fig}. {}* ([SVG]({}))\n",
                md_escape(&f.caption),
                md_url(&png),
                md_escape(&f.caption),
                md_url(&svg)
            ));
            html.push_str(&format!(
                "<figure>\n<img src=\"{}\" alt=\"{}\" />\n<figcaption>Figure {n_fig}. {} (<a href=\"{}\">PNG</a>)</figcaption>\n</figure>\n",
                html_escape(&svg),
                html_escape(&f.caption),
                html_escape(&f.caption),
                html_escape(&png)
            ));
        }
        for t in &s.tables {
            md.push('\n');
            md.push_str(&markdown_table(t, opts));
            html.push_str(&html_table(t, opts));
        }
    }
    html.push_str("</body>\n</html>\n");

    let paths = SummaryPaths {
        markdown: dir.join("index.md"),
        html: dir.join("index.html"),
    };
    std::fs::write(&paths.markdown, md).map_err(ReportError::io(&paths.markdown))?;
    std::fs::write(&paths.html, html).map_err(ReportError::io(&paths.html))?;
    Ok(paths)
}

const STYLE: &str =
    "body{font-family:sans-serif;max-width:60em;margin:2em auto;padding:0 1em;color:#222}\
figure{margin:1.5em 0}figure img{max-width:100%;height:auto}figcaption{font-size:90%}\
table{border-collapse:collapse;margin:1em 0}th,td{padding:0.2em 0.8em;border-bottom:1px solid #ddd}\
th{text-align:left}.num{text-align:right;font-variant-numeric:tabular-nums}";

/// `path` relative to `base` (both absolute), with `..` where needed.
fn relative(base: &Path, path: &Path) -> PathBuf {
    let b: Vec<Component> = base.components().collect();
    let p: Vec<Component> = path.components().collect();
    let common = b.iter().zip(&p).take_while(|(x, y)| x == y).count();
    if common == 0 {
        return path.to_path_buf();
    }
    let mut out = PathBuf::new();
    for _ in common..b.len() {
        out.push("..");
    }
    for c in &p[common..] {
        out.push(c);
    }
    out
}

fn html_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Escapes characters Markdown would interpret inside text and table cells.
fn md_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if matches!(c, '\\' | '|' | '*' | '_' | '[' | ']' | '`' | '<' | '>') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// A relative path as a Markdown link target (spaces and parentheses percent-encoded).
fn md_url(p: &str) -> String {
    p.replace(' ', "%20")
        .replace('(', "%28")
        .replace(')', "%29")
}

fn markdown_table(t: &Table, opts: &TableOptions) -> String {
    let cells = t.rendered(opts);
    let mut out = format!(
        "| {} |\n|",
        t.columns
            .iter()
            .map(|c| md_escape(c))
            .collect::<Vec<_>>()
            .join(" | ")
    );
    for c in 0..t.columns.len() {
        out.push_str(if t.numeric_column(c) {
            " ---: |"
        } else {
            " :--- |"
        });
    }
    out.push('\n');
    for row in cells {
        out.push_str(&format!(
            "| {} |\n",
            row.iter()
                .map(|c| md_escape(c))
                .collect::<Vec<_>>()
                .join(" | ")
        ));
    }
    out
}

fn html_table(t: &Table, opts: &TableOptions) -> String {
    let numeric: Vec<bool> = (0..t.columns.len()).map(|c| t.numeric_column(c)).collect();
    let class = |c: usize| if numeric[c] { " class=\"num\"" } else { "" };
    let mut out = String::from("<table>\n<thead><tr>");
    for (c, h) in t.columns.iter().enumerate() {
        out.push_str(&format!("<th{}>{}</th>", class(c), html_escape(h)));
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    for row in t.rendered(opts) {
        out.push_str("<tr>");
        for (c, v) in row.iter().enumerate() {
            out.push_str(&format!("<td{}>{}</td>", class(c), html_escape(v)));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths() {
        assert_eq!(
            relative(Path::new("/a/b"), Path::new("/a/b/fig/x.png")),
            PathBuf::from("fig/x.png")
        );
        assert_eq!(
            relative(Path::new("/a/b"), Path::new("/a/c/x.png")),
            PathBuf::from("../c/x.png")
        );
    }

    #[test]
    fn escaping() {
        assert_eq!(md_escape("a|b_c"), "a\\|b\\_c");
        assert_eq!(
            html_escape("<L2 & \"DRAM\">"),
            "&lt;L2 &amp; &quot;DRAM&quot;&gt;"
        );
        assert_eq!(md_url("my figs/a(1).png"), "my%20figs/a%281%29.png");
    }
}
