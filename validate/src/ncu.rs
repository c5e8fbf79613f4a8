//! Reading Nsight Compute's CSV: `ncu --csv` on the default details page writes one row per
//! (kernel launch, metric) with the columns `"ID","Process ID","Process Name","Host Name",
//! "Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name",
//! "Metric Name","Metric Unit","Metric Value"`, every field quoted, numbers with thousands
//! separators (`"1,234,567"`), `n/a` where a metric has no value.
//!
//! [`parse`] groups the rows by launch ID (ncu numbers the profiled launches of a process from
//! 0 in launch order) and keeps each metric's value and unit. Lines before the header and lines
//! that are not CSV records (`==PROF==`, `==WARNING==`) are skipped; a missing column or a
//! malformed record is an error with its line number in the file.

use std::collections::BTreeMap;

use crate::error::Error;

/// One metric value as ncu printed it.
#[derive(Clone, Debug, PartialEq)]
pub struct Metric {
    pub unit: String,
    pub value: f64,
}

/// One profiled kernel launch.
#[derive(Clone, Debug, PartialEq)]
pub struct NcuLaunch {
    pub id: u64,
    /// As printed (`--print-kernel-base function` gives the bare entry name).
    pub kernel: String,
    pub block: Option<[u32; 3]>,
    pub grid: Option<[u32; 3]>,
    pub metrics: BTreeMap<String, Metric>,
}

impl NcuLaunch {
    /// The kernel's own name, however ncu printed it (mangled, demangled or its default
    /// function name): `void k<3>(int *)` → `k` ([`warpsim_isa::names::base_name`]).
    pub fn base_name(&self) -> String {
        warpsim_isa::names::base_name(&self.kernel)
    }
}

/// The launches of a CSV, by ascending ID, and the values that were not numbers.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NcuReport {
    pub launches: Vec<NcuLaunch>,
    /// `"launch ID: metric = text"` for every `n/a` or otherwise non-numeric value.
    pub skipped: Vec<String>,
}

const REQUIRED: [&str; 5] = ["ID", "Kernel Name", "Metric Name", "Metric Unit", "Metric Value"];

/// Parses the text of an `ncu --csv` details-page report.
pub fn parse(text: &str) -> Result<NcuReport, Error> {
    let lines: Vec<(usize, &str)> = text.lines().enumerate().map(|(i, l)| (i + 1, l.trim_end())).collect();
    let header_at = lines.iter().position(|(_, l)| l.starts_with("\"ID\"")).ok_or(Error::Ncu {
        line: 1,
        message: "no header row starting with \"ID\" (is this `ncu --csv` output?)".into(),
    })?;
    // The header and every later CSV record; the original line number of each, for messages.
    let kept: Vec<(usize, &str)> = lines[header_at..].iter().copied().filter(|(_, l)| l.starts_with('"')).collect();
    let body: String = kept.iter().map(|(_, l)| format!("{l}\n")).collect();
    let mut reader = csv::ReaderBuilder::new().has_headers(true).from_reader(body.as_bytes());
    let header_line = kept[0].0;
    let headers = reader.headers().map_err(|e| Error::Ncu { line: header_line, message: e.to_string() })?.clone();
    let col = |name: &str| headers.iter().position(|h| h == name);
    let mut idx = [0usize; REQUIRED.len()];
    for (slot, name) in idx.iter_mut().zip(REQUIRED) {
        *slot = col(name).ok_or_else(|| Error::Ncu {
            line: header_line,
            message: format!(
                "no \"{name}\" column (columns: {}); run ncu with --csv on the details page, not --page raw",
                headers.iter().collect::<Vec<_>>().join(", ")
            ),
        })?;
    }
    let [id_col, kernel_col, name_col, unit_col, value_col] = idx;
    let (block_col, grid_col) = (col("Block Size"), col("Grid Size"));

    let mut launches: BTreeMap<u64, NcuLaunch> = BTreeMap::new();
    let mut skipped = Vec::new();
    for (k, record) in reader.records().enumerate() {
        let line = kept.get(k + 1).map_or(header_line, |(n, _)| *n);
        let record = record.map_err(|e| Error::Ncu { line, message: e.to_string() })?;
        let field = |i: usize| record.get(i).ok_or_else(|| Error::Ncu { line, message: format!("record has only {} fields", record.len()) });
        let id: u64 = number(field(id_col)?)
            .filter(|v| v.fract() == 0.0 && *v >= 0.0)
            .ok_or_else(|| Error::Ncu { line, message: format!("launch ID `{}` is not a number", &record[id_col]) })?
            as u64;
        let kernel = field(kernel_col)?.to_string();
        let launch = launches.entry(id).or_insert_with(|| NcuLaunch {
            id,
            kernel: kernel.clone(),
            block: block_col.and_then(|c| record.get(c)).and_then(dims),
            grid: grid_col.and_then(|c| record.get(c)).and_then(dims),
            metrics: BTreeMap::new(),
        });
        if launch.kernel != kernel {
            return Err(Error::Ncu { line, message: format!("launch {id} is `{}` and `{kernel}`", launch.kernel) });
        }
        let (metric, unit, text) = (field(name_col)?, field(unit_col)?, field(value_col)?);
        match number(text) {
            Some(value) => {
                launch.metrics.insert(metric.to_string(), Metric { unit: unit.to_string(), value });
            }
            None => skipped.push(format!("launch {id}: {metric} = {text}")),
        }
    }
    Ok(NcuReport { launches: launches.into_values().collect(), skipped })
}

/// A number with optional thousands separators (`1,234,567.5`); None for `n/a` and the like.
fn number(text: &str) -> Option<f64> {
    let plain: String = text.trim().chars().filter(|&c| c != ',').collect();
    plain.parse::<f64>().ok().filter(|v| v.is_finite())
}

/// `(256, 1, 1)` → `[256, 1, 1]`.
fn dims(text: &str) -> Option<[u32; 3]> {
    let inner = text.trim().strip_prefix('(')?.strip_suffix(')')?;
    let v: Vec<u32> = inner.split(',').map(|p| p.trim().parse().ok()).collect::<Option<_>>()?;
    v.try_into().ok()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The shape `ncu --csv --print-units base --print-kernel-base function --metrics ...` writes
    /// (Nsight Compute 2025), with progress lines from a run without --log-file mixed in.
    pub(crate) const SAMPLE: &str = r#"==PROF== Connected to process 4242 (/work/target/release/warpsim)
[1/3] vector_add
==PROF== Profiling "vector_add" - 0: 0%....50%....100% - 9 passes
==PROF== Profiling "strided_copy" - 1: 0%....50%....100% - 9 passes
==PROF== Profiling "strided_copy" - 2: 0%....50%....100% - 9 passes
==PROF== Disconnected from process 4242
"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"
"0","4242","warpsim","127.0.0.1","vector_add","1","7","(256, 1, 1)","(256, 1, 1)","0","9.0","Command line profiler metrics","dram__bytes_read.sum","byte","524,288"
"0","4242","warpsim","127.0.0.1","vector_add","1","7","(256, 1, 1)","(256, 1, 1)","0","9.0","Command line profiler metrics","gpc__cycles_elapsed.max","cycle","6,913"
"0","4242","warpsim","127.0.0.1","vector_add","1","7","(256, 1, 1)","(256, 1, 1)","0","9.0","Command line profiler metrics","gpu__time_duration.sum","nsecond","4,960"
"0","4242","warpsim","127.0.0.1","vector_add","1","7","(256, 1, 1)","(256, 1, 1)","0","9.0","Command line profiler metrics","launch__registers_per_thread","register/thread","16"
"0","4242","warpsim","127.0.0.1","vector_add","1","7","(256, 1, 1)","(256, 1, 1)","0","9.0","Command line profiler metrics","sm__warps_active.avg.pct_of_peak_sustained_active","%","71.93"
"0","4242","warpsim","127.0.0.1","vector_add","1","7","(256, 1, 1)","(256, 1, 1)","0","9.0","Command line profiler metrics","smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio","","n/a"
"1","4242","warpsim","127.0.0.1","strided_copy","1","7","(256, 1, 1)","(128, 1, 1)","0","9.0","Command line profiler metrics","dram__bytes_read.sum","byte","1,048,576"
"1","4242","warpsim","127.0.0.1","strided_copy","1","7","(256, 1, 1)","(128, 1, 1)","0","9.0","Command line profiler metrics","gpc__cycles_elapsed.max","cycle","8,120"
"1","4242","warpsim","127.0.0.1","strided_copy","1","7","(256, 1, 1)","(128, 1, 1)","0","9.0","Command line profiler metrics","gpu__time_duration.sum","nsecond","5,792"
"2","4242","warpsim","127.0.0.1","strided_copy","1","7","(256, 1, 1)","(128, 1, 1)","0","9.0","Command line profiler metrics","dram__bytes_read.sum","byte","4,194,304"
"2","4242","warpsim","127.0.0.1","strided_copy","1","7","(256, 1, 1)","(128, 1, 1)","0","9.0","Command line profiler metrics","gpc__cycles_elapsed.max","cycle","12,345,678"
"2","4242","warpsim","127.0.0.1","strided_copy","1","7","(256, 1, 1)","(128, 1, 1)","0","9.0","Command line profiler metrics","gpu__time_duration.sum","nsecond","6,235,001.5"
==WARNING== Some trailing note
"#;

    #[test]
    fn parses_the_details_page() {
        let r = parse(SAMPLE).unwrap();
        assert_eq!(r.launches.len(), 3);
        let l0 = &r.launches[0];
        assert_eq!((l0.id, l0.kernel.as_str(), l0.block, l0.grid), (0, "vector_add", Some([256, 1, 1]), Some([256, 1, 1])));
        assert_eq!(l0.metrics["dram__bytes_read.sum"], Metric { unit: "byte".into(), value: 524_288.0 });
        assert_eq!(l0.metrics["launch__registers_per_thread"].value, 16.0);
        assert_eq!(l0.metrics["sm__warps_active.avg.pct_of_peak_sustained_active"].value, 71.93);
        assert_eq!(l0.metrics.len(), 5);
        assert_eq!(r.skipped, ["launch 0: smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio = n/a"]);
        assert_eq!(r.launches[2].metrics["gpc__cycles_elapsed.max"].value, 12_345_678.0);
        assert_eq!(r.launches[2].metrics["gpu__time_duration.sum"].value, 6_235_001.5);
        assert_eq!(r.launches[1].grid, Some([128, 1, 1]));
    }

    #[test]
    fn errors_name_the_line() {
        assert!(matches!(parse("==PROF== nothing profiled\n"), Err(Error::Ncu { line: 1, .. })));
        let raw_page = "\"ID\",\"Kernel Name\",\"gpu__time_duration.sum\"\n\"0\",\"k\",\"12\"\n";
        let e = parse(raw_page).unwrap_err().to_string();
        assert!(e.contains("line 1") && e.contains("\"Metric Name\"") && e.contains("--page raw"), "{e}");
        let bad_id = SAMPLE.replacen("\"2\",\"4242\"", "\"two\",\"4242\"", 1);
        let e = parse(&bad_id).unwrap_err().to_string();
        assert!(e.starts_with("ncu CSV line 17:") && e.contains("`two`"), "{e}");
        let short = format!("{}\"3\",\"4242\"\n", SAMPLE.lines().take(8).map(|l| format!("{l}\n")).collect::<String>());
        assert!(parse(&short).unwrap_err().to_string().starts_with("ncu CSV line 9:"));
    }

    #[test]
    fn numbers_and_dims() {
        assert_eq!(number("1,234,567"), Some(1_234_567.0));
        assert_eq!(number(" 0.5 "), Some(0.5));
        assert_eq!(number("n/a"), None);
        assert_eq!(number("inf"), None);
        assert_eq!(dims("(32, 8, 1)"), Some([32, 8, 1]));
        assert_eq!(dims("(32, 8)"), None);
        assert_eq!(dims("32"), None);
    }
}
