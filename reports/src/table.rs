//! Tables of numbers: one [`Table`] value rendered three ways — aligned plain text for the
//! terminal ([`text_table`]), and Markdown and HTML for the summary page. Numbers are
//! right-aligned, text left-aligned, integers optionally with thousands separators.

use crate::error::ReportError;

/// One table cell.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Cell {
    /// Text, left-aligned.
    Text(String),
    /// An integer, right-aligned.
    Int(i128),
    /// A number shown with a fixed number of decimals, right-aligned.
    Float {
        /// The value (NaN and infinities are printed as `NaN`, `inf`, `-inf`).
        value: f64,
        /// Digits after the decimal point.
        decimals: usize,
    },
    /// Nothing.
    Empty,
}

impl Cell {
    /// A number with `decimals` digits after the point.
    pub fn float(value: f64, decimals: usize) -> Self {
        Cell::Float { value, decimals }
    }

    fn is_number(&self) -> bool {
        matches!(self, Cell::Int(_) | Cell::Float { .. })
    }

    /// The cell as text, with `,` between thousands when asked.
    pub fn render(&self, thousands: bool) -> String {
        match self {
            Cell::Text(s) => s.clone(),
            Cell::Empty => String::new(),
            Cell::Int(i) => {
                let digits = i.unsigned_abs().to_string();
                let sign = if *i < 0 { "-" } else { "" };
                format!("{sign}{}", if thousands { group(&digits) } else { digits })
            }
            Cell::Float { value, decimals } => {
                if !value.is_finite() {
                    return if value.is_nan() {
                        "NaN".into()
                    } else if *value > 0.0 {
                        "inf".into()
                    } else {
                        "-inf".into()
                    };
                }
                let s = format!("{:.*}", decimals, value.abs());
                let (int, frac) = s
                    .split_once('.')
                    .map_or((s.as_str(), None), |(a, b)| (a, Some(b)));
                let int = if thousands {
                    group(int)
                } else {
                    int.to_string()
                };
                // No "-0.00": the sign only when the printed digits are not all zero.
                let negative = *value < 0.0 && s.chars().any(|c| c.is_ascii_digit() && c != '0');
                let sign = if negative { "-" } else { "" };
                match frac {
                    Some(f) => format!("{sign}{int}.{f}"),
                    None => format!("{sign}{int}"),
                }
            }
        }
    }
}

/// `1234567` → `1,234,567`.
fn group(digits: &str) -> String {
    let n = digits.len();
    let mut out = String::with_capacity(n + n / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (n - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

impl From<&str> for Cell {
    fn from(s: &str) -> Self {
        Cell::Text(s.to_string())
    }
}

impl From<String> for Cell {
    fn from(s: String) -> Self {
        Cell::Text(s)
    }
}

impl From<i64> for Cell {
    fn from(i: i64) -> Self {
        Cell::Int(i.into())
    }
}

impl From<u64> for Cell {
    fn from(i: u64) -> Self {
        Cell::Int(i.into())
    }
}

impl From<usize> for Cell {
    fn from(i: usize) -> Self {
        Cell::Int(i as i128)
    }
}

/// A table: column names and rows of cells (every row as long as `columns`).
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct Table {
    /// Column headers.
    pub columns: Vec<String>,
    /// Rows of cells.
    pub rows: Vec<Vec<Cell>>,
}

/// Options of [`text_table`] (and of the tables on summary pages).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct TableOptions {
    /// Put `,` between thousands in numbers.
    pub thousands: bool,
}

impl Table {
    /// A table with these column headers and no rows.
    pub fn new<S: Into<String>>(columns: impl IntoIterator<Item = S>) -> Self {
        Self {
            columns: columns.into_iter().map(Into::into).collect(),
            rows: Vec::new(),
        }
    }

    /// Appends a row.
    pub fn row(mut self, cells: impl IntoIterator<Item = Cell>) -> Self {
        self.rows.push(cells.into_iter().collect());
        self
    }

    /// Checks the shape; `what` names the caller in the error.
    pub(crate) fn check(&self, what: &'static str) -> Result<(), ReportError> {
        if self.columns.is_empty() {
            return Err(ReportError::EmptyData { what });
        }
        for (i, row) in self.rows.iter().enumerate() {
            if row.len() != self.columns.len() {
                return Err(ReportError::InvalidData {
                    what,
                    message: format!(
                        "row {i} has {} cells for {} columns",
                        row.len(),
                        self.columns.len()
                    ),
                });
            }
        }
        Ok(())
    }

    /// Whether column `c` is numeric (every non-empty cell is a number, and there is one).
    pub(crate) fn numeric_column(&self, c: usize) -> bool {
        let mut cells = self
            .rows
            .iter()
            .map(|r| &r[c])
            .filter(|x| **x != Cell::Empty)
            .peekable();
        cells.peek().is_some() && cells.all(Cell::is_number)
    }

    /// Every cell rendered, row-major.
    pub(crate) fn rendered(&self, opts: &TableOptions) -> Vec<Vec<String>> {
        self.rows
            .iter()
            .map(|r| r.iter().map(|c| c.render(opts.thousands)).collect())
            .collect()
    }
}

/// Renders `table` as aligned plain text: a header, a rule, one line per row; columns separated by
/// two spaces; numbers right-aligned, text left-aligned. Widths count characters, not bytes.
pub fn text_table(table: &Table, opts: &TableOptions) -> Result<String, ReportError> {
    table.check("text_table")?;
    let cells = table.rendered(opts);
    let width = |s: &str| s.chars().count();
    let widths: Vec<usize> = (0..table.columns.len())
        .map(|c| {
            cells
                .iter()
                .map(|r| width(&r[c]))
                .chain([width(&table.columns[c])])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let right: Vec<bool> = (0..table.columns.len())
        .map(|c| table.numeric_column(c))
        .collect();
    let line = |row: &[String], numeric_cell: &dyn Fn(usize) -> bool| {
        let parts: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(c, s)| {
                let pad = " ".repeat(widths[c] - width(s));
                if numeric_cell(c) {
                    format!("{pad}{s}")
                } else {
                    format!("{s}{pad}")
                }
            })
            .collect();
        parts.join("  ").trim_end().to_string()
    };
    let mut out = line(&table.columns, &|c| right[c]);
    out.push('\n');
    out.push_str(
        &widths
            .iter()
            .map(|w| "-".repeat(*w))
            .collect::<Vec<_>>()
            .join("  "),
    );
    out.push('\n');
    for (r, row) in cells.iter().enumerate() {
        out.push_str(&line(row, &|c| table.rows[r][c].is_number()));
        out.push('\n');
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_render_with_separators() {
        assert_eq!(Cell::Int(1_234_567).render(true), "1,234,567");
        assert_eq!(Cell::Int(-1_000).render(true), "-1,000");
        assert_eq!(Cell::Int(999).render(true), "999");
        assert_eq!(Cell::float(12345.678, 2).render(true), "12,345.68");
        assert_eq!(Cell::float(-0.001, 2).render(false), "0.00");
        assert_eq!(Cell::float(-2.5, 1).render(false), "-2.5");
        assert_eq!(Cell::float(f64::NAN, 2).render(false), "NaN");
        assert_eq!(Cell::float(f64::NEG_INFINITY, 2).render(false), "-inf");
    }

    #[test]
    fn text_table_aligns() {
        let t = Table::new(["workload", "cycles", "error %"])
            .row(["vector_add".into(), Cell::Int(10_400), Cell::float(6.1, 1)])
            .row([
                "matmul_naive".into(),
                Cell::Int(1_610_000),
                Cell::float(-11.0, 1),
            ]);
        let s = text_table(&t, &TableOptions { thousands: true }).unwrap();
        let expected = "\
workload         cycles  error %
------------  ---------  -------
vector_add       10,400      6.1
matmul_naive  1,610,000    -11.0
";
        assert_eq!(s, expected);
    }

    #[test]
    fn ragged_rows_are_errors() {
        let t = Table::new(["a", "b"]).row([Cell::Int(1)]);
        let e = text_table(&t, &TableOptions::default()).unwrap_err();
        assert!(
            e.to_string().contains("row 0 has 1 cells for 2 columns"),
            "{e}"
        );
        assert!(text_table(&Table::default(), &TableOptions::default()).is_err());
    }
}
