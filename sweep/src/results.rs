//! Sweep results as a tidy table: one row per run, in run order, written as CSV and as JSON
//! (the same columns, plus the sweep's [`Header`]), read back from either, and merged from shards.
//!
//! Columns: `run`, `arch`, one column per swept key, `workload`, `status` (`ok`, `unsupported`,
//! `error`), `check` (`pass`, `fail`, `not checked`), `cycles`, `clock_mhz` (the run's SM clock,
//! `clock.sm_mhz`), `time_us` (GPU time, cycles / clock: the figure to compare across presets),
//! `ipc` (machine ops per active SM
//! cycle, `sm__inst_executed.avg.per_cycle_active`), `warp_instructions`, every counter under its
//! Nsight Compute name, `stall_<state>` (fraction of warp-cycles per warp state) and `message`
//! (why a run is unsupported or failed), after `config`: the run's fully resolved configuration,
//! a file relative to the results' directory. Numbers are written in their shortest exact form, so a
//! table read back and written again is byte-identical.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::ser::SerializeMap;

use crate::plan::Header;

/// Why results could not be read, written or merged.
#[derive(Debug, thiserror::Error)]
pub enum ResultsError {
    #[error("{}: {source}", path.display())]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{}: {message}", path.display())]
    Format { path: PathBuf, message: String },
    #[error("{message}")]
    Merge { message: String },
    #[error("cannot start {jobs} worker threads: {message}")]
    Threads { jobs: usize, message: String },
    #[error("{} is in use by another warpsim sweep ({holder}): two sweeps into one directory would overwrite each other's results; wait for it, write to another directory (-o), or delete {} if that sweep is gone", dir.display(), lock.display())]
    Locked { dir: PathBuf, holder: String, lock: PathBuf },
}

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Simulated to the end (the output check is reported separately).
    Ok,
    /// The preset lacks a feature the kernel uses.
    Unsupported,
    /// A fault, a deadlock, a launch the configuration cannot hold, or a simulator failure.
    Error,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Unsupported => "unsupported",
            Status::Error => "error",
        }
    }
}

/// What one run produced (what the cache stores).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Measured {
    pub status: Status,
    /// `pass`, `fail` or `not checked`; empty when the run did not finish.
    pub check: String,
    pub cycles: Option<u64>,
    pub ipc: Option<f64>,
    pub warp_instructions: Option<u64>,
    pub counters: BTreeMap<String, f64>,
    pub stalls: BTreeMap<String, f64>,
    pub message: String,
}

/// One run of a sweep.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub run: usize,
    pub arch: String,
    /// One value per swept key, in [`Results::keys`] order.
    pub values: Vec<String>,
    pub workload: String,
    /// The run's SM clock (MHz); absent in results written before the column existed.
    pub clock_mhz: Option<f64>,
    /// The run's fully resolved configuration, relative to the results' directory
    /// (`configs/<hash>.toml`); empty in results written before the column existed.
    pub config: String,
    pub m: Measured,
}

impl Row {
    /// GPU time (µs): cycles / clock. Compare presets by this, not by cycles.
    pub fn time_us(&self) -> Option<f64> {
        match (self.m.cycles, self.clock_mhz) {
            (Some(c), Some(mhz)) if mhz > 0.0 => Some(c as f64 / mhz),
            _ => None,
        }
    }
}

/// A sweep's table.
#[derive(Debug, Clone, PartialEq)]
pub struct Results {
    /// Absent when read from CSV.
    pub header: Option<Header>,
    pub keys: Vec<String>,
    pub rows: Vec<Row>,
}

/// One cell, typed for JSON.
enum Cell<'a> {
    Int(u64),
    Num(f64),
    Text(&'a str),
    Empty,
}

impl Cell<'_> {
    fn text(&self) -> String {
        match self {
            Cell::Int(i) => i.to_string(),
            Cell::Num(x) => x.to_string(),
            Cell::Text(s) => s.to_string(),
            Cell::Empty => String::new(),
        }
    }
}

const STALL: &str = "stall_";

impl Results {
    /// The column names, in order.
    pub fn columns(&self) -> Vec<String> {
        let counters: BTreeSet<&String> = self.rows.iter().flat_map(|r| r.m.counters.keys()).collect();
        let stalls: BTreeSet<&String> = self.rows.iter().flat_map(|r| r.m.stalls.keys()).collect();
        let mut c: Vec<String> = vec!["run".into(), "arch".into()];
        c.extend(self.keys.iter().cloned());
        c.extend(["workload", "status", "check", "cycles", "clock_mhz", "time_us", "ipc", "warp_instructions"].map(String::from));
        c.extend(counters.into_iter().cloned());
        c.extend(stalls.into_iter().map(|s| format!("{STALL}{s}")));
        c.push("config".into());
        c.push("message".into());
        c
    }

    fn cell<'a>(&self, r: &'a Row, column: &str) -> Cell<'a> {
        let num = |x: Option<f64>| x.map_or(Cell::Empty, Cell::Num);
        match column {
            "run" => Cell::Int(r.run as u64),
            "arch" => Cell::Text(&r.arch),
            "workload" => Cell::Text(&r.workload),
            "status" => Cell::Text(r.m.status.as_str()),
            "check" => Cell::Text(&r.m.check),
            "cycles" => r.m.cycles.map_or(Cell::Empty, Cell::Int),
            "clock_mhz" => num(r.clock_mhz),
            "time_us" => num(r.time_us()),
            "ipc" => num(r.m.ipc),
            "warp_instructions" => r.m.warp_instructions.map_or(Cell::Empty, Cell::Int),
            "message" => Cell::Text(&r.m.message),
            "config" => Cell::Text(&r.config),
            c => match self.keys.iter().position(|k| k == c) {
                Some(i) => Cell::Text(&r.values[i]),
                None => match c.strip_prefix(STALL) {
                    Some(s) => num(r.m.stalls.get(s).copied()),
                    None => num(r.m.counters.get(c).copied()),
                },
            },
        }
    }

    /// Writes `results.csv` and `results.json` into `dir` (each atomically).
    pub fn write(&self, dir: &Path) -> Result<(PathBuf, PathBuf), ResultsError> {
        let columns = self.columns();
        let mut w = csv::Writer::from_writer(Vec::new());
        let csv_err = |e: csv::Error| ResultsError::Format { path: dir.join("results.csv"), message: e.to_string() };
        w.write_record(&columns).map_err(csv_err)?;
        for r in &self.rows {
            w.write_record(columns.iter().map(|c| self.cell(r, c).text())).map_err(csv_err)?;
        }
        let csv = w.into_inner().map_err(|e| csv_err(e.into_error().into()))?;
        let json = serde_json::to_vec_pretty(&JsonOut { results: self, columns: &columns })
            .map_err(|e| ResultsError::Format { path: dir.join("results.json"), message: e.to_string() })?;
        let paths = (dir.join("results.csv"), dir.join("results.json"));
        write_atomic(&paths.0, &csv)?;
        write_atomic(&paths.1, &[json, b"\n".to_vec()].concat())?;
        Ok(paths)
    }

    /// Reads a `results.csv` or `results.json`.
    pub fn read(path: &Path) -> Result<Results, ResultsError> {
        let text = std::fs::read_to_string(path).map_err(|source| ResultsError::Io { path: path.into(), source })?;
        let bad = |message: String| ResultsError::Format { path: path.into(), message };
        if path.extension().is_some_and(|e| e == "json") {
            let doc: JsonIn = serde_json::from_str(&text).map_err(|e| bad(format!("not a sweep result: {e}")))?;
            let keys: Vec<String> = doc.sweep.axes.iter().map(|a| a.key.clone()).collect();
            let records = doc.rows.into_iter().map(|row| row.into_iter().map(|(k, v)| (k, json_text(v))).collect()).collect();
            Ok(Results { rows: rows(records, &keys).map_err(bad)?, keys, header: Some(doc.sweep) })
        } else {
            let mut r = csv::Reader::from_reader(text.as_bytes());
            let columns: Vec<String> = r.headers().map_err(|e| bad(e.to_string()))?.iter().map(String::from).collect();
            let keys = swept_keys(&columns).ok_or_else(|| bad("not a sweep result: no `arch` … `workload` columns".into()))?;
            let records = r
                .records()
                .map(|rec| rec.map(|rec| columns.iter().cloned().zip(rec.iter().map(String::from)).collect()))
                .collect::<Result<_, _>>()
                .map_err(|e| bad(e.to_string()))?;
            Ok(Results { header: None, rows: rows(records, &keys).map_err(bad)?, keys })
        }
    }

    /// Joins shards of one sweep: they must share the sweep id and no run may appear twice.
    /// Returns the merged results and the number of runs still missing.
    pub fn merge(parts: &[(PathBuf, Results)]) -> Result<(Results, usize), ResultsError> {
        let err = |message: String| ResultsError::Merge { message };
        let Some((first_path, first)) = parts.first() else { return Err(err("nothing to merge".into())) };
        let Some(header) = &first.header else {
            return Err(err(format!("{}: merging needs the JSON results (they carry the sweep id)", first_path.display())));
        };
        let mut owner: BTreeMap<usize, &Path> = BTreeMap::new();
        let mut rows = Vec::new();
        for (path, part) in parts {
            let Some(h) = &part.header else {
                return Err(err(format!("{}: merging needs the JSON results (they carry the sweep id)", path.display())));
            };
            if h.id != header.id {
                return Err(err(format!(
                    "{} and {} are results of different sweeps (ids {} and {}): same presets, values, workloads and simulator needed",
                    first_path.display(),
                    path.display(),
                    header.id,
                    h.id
                )));
            }
            for r in &part.rows {
                if let Some(other) = owner.insert(r.run, path) {
                    return Err(err(format!(
                        "run {} ({} {} on {}) is in both {} and {}: overlapping shards",
                        r.run,
                        r.arch,
                        r.values.join(" "),
                        r.workload,
                        other.display(),
                        path.display()
                    )));
                }
                rows.push(r.clone());
            }
        }
        rows.sort_by_key(|r| r.run);
        let missing = header.runs - rows.len().min(header.runs);
        let header = Header { shard: None, ..header.clone() };
        Ok((Results { keys: first.keys.clone(), header: Some(header), rows }, missing))
    }
}

/// The columns between `arch` and `workload`.
fn swept_keys(columns: &[String]) -> Option<Vec<String>> {
    let a = columns.iter().position(|c| c == "arch")?;
    let w = columns.iter().position(|c| c == "workload")?;
    (a < w).then(|| columns[a + 1..w].to_vec())
}

fn json_text(v: serde_json::Value) -> String {
    match v {
        serde_json::Value::Null => String::new(),
        serde_json::Value::String(s) => s,
        serde_json::Value::Number(n) => match n.as_u64() {
            Some(i) => i.to_string(),
            None => n.as_f64().map_or_else(|| n.to_string(), |x| x.to_string()),
        },
        other => other.to_string(),
    }
}

/// Rows from records of text cells.
fn rows(records: Vec<BTreeMap<String, String>>, keys: &[String]) -> Result<Vec<Row>, String> {
    records
        .into_iter()
        .enumerate()
        .map(|(i, rec)| {
            let get = |c: &str| rec.get(c).cloned().ok_or_else(|| format!("row {}: no column `{c}`", i + 1));
            let parse_num = |c: &str, s: &str| s.parse::<f64>().map_err(|_| format!("row {}: `{c}` = `{s}` is not a number", i + 1));
            let opt_int = |c: &str| -> Result<Option<u64>, String> {
                let s = get(c)?;
                if s.is_empty() { Ok(None) } else { s.parse().map(Some).map_err(|_| format!("row {}: `{c}` = `{s}` is not an integer", i + 1)) }
            };
            let status = match get("status")?.as_str() {
                "ok" => Status::Ok,
                "unsupported" => Status::Unsupported,
                "error" => Status::Error,
                s => return Err(format!("row {}: unknown status `{s}`", i + 1)),
            };
            let (mut counters, mut stalls) = (BTreeMap::new(), BTreeMap::new());
            for (c, s) in &rec {
                if s.is_empty() {
                    continue;
                }
                if let Some(name) = c.strip_prefix(STALL) {
                    stalls.insert(name.to_string(), parse_num(c, s)?);
                } else if c.contains("__") && !keys.contains(c) {
                    counters.insert(c.clone(), parse_num(c, s)?);
                }
            }
            let ipc = get("ipc")?;
            let clock = rec.get("clock_mhz").filter(|s| !s.is_empty());
            Ok(Row {
                clock_mhz: clock.map(|s| parse_num("clock_mhz", s)).transpose()?,
                config: rec.get("config").cloned().unwrap_or_default(),
                run: opt_int("run")?.ok_or_else(|| format!("row {}: `run` is empty", i + 1))? as usize,
                arch: get("arch")?,
                values: keys.iter().map(|k| get(k)).collect::<Result<_, _>>()?,
                workload: get("workload")?,
                m: Measured {
                    status,
                    check: get("check")?,
                    cycles: opt_int("cycles")?,
                    ipc: if ipc.is_empty() { None } else { Some(parse_num("ipc", &ipc)?) },
                    warp_instructions: opt_int("warp_instructions")?,
                    counters,
                    stalls,
                    message: get("message")?,
                },
            })
        })
        .collect()
}

/// Writes a file through a temporary name and a rename, so that a reader (or a killed writer)
/// never sees a partial file.
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), ResultsError> {
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let name = path.file_name().map_or_else(String::new, |f| f.to_string_lossy().into_owned());
    let tmp = path.with_file_name(format!(".{name}.{}.{n}.tmp", std::process::id()));
    let io = |p: &Path| {
        let p = p.to_path_buf();
        move |source| ResultsError::Io { path: p, source }
    };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(io(dir))?;
    }
    std::fs::write(&tmp, bytes).map_err(io(&tmp))?;
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        io(path)(e)
    })
}

struct JsonOut<'a> {
    results: &'a Results,
    columns: &'a [String],
}

/// One row as a JSON object with its keys in column order.
struct JsonRow<'a> {
    results: &'a Results,
    row: &'a Row,
    columns: &'a [String],
}

impl serde::Serialize for JsonOut<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(3))?;
        m.serialize_entry("sweep", &self.results.header)?;
        m.serialize_entry("columns", self.columns)?;
        let rows: Vec<JsonRow> = self.results.rows.iter().map(|row| JsonRow { results: self.results, row, columns: self.columns }).collect();
        m.serialize_entry("rows", &rows)?;
        m.end()
    }
}

impl serde::Serialize for JsonRow<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.columns.len()))?;
        for c in self.columns {
            match self.results.cell(self.row, c) {
                Cell::Int(i) => m.serialize_entry(c, &i)?,
                Cell::Num(x) => m.serialize_entry(c, &x)?,
                Cell::Text(t) => m.serialize_entry(c, t)?,
                Cell::Empty => m.serialize_entry(c, &())?,
            }
        }
        m.end()
    }
}

#[derive(serde::Deserialize)]
struct JsonIn {
    sweep: Header,
    rows: Vec<BTreeMap<String, serde_json::Value>>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Results {
        let m = |cycles: u64, status: Status| Measured {
            status,
            check: if status == Status::Ok { "pass".into() } else { String::new() },
            cycles: (status == Status::Ok).then_some(cycles),
            ipc: (status == Status::Ok).then_some(cycles as f64 / 3.0),
            warp_instructions: (status == Status::Ok).then_some(7),
            counters: if status == Status::Ok { [("dram__bytes_read.sum".to_string(), 0.1 + 0.2)].into() } else { BTreeMap::new() },
            stalls: if status == Status::Ok { [("selected".to_string(), 1.0 / 3.0)].into() } else { BTreeMap::new() },
            message: if status == Status::Ok { String::new() } else { "uses \"tma\", which, …".into() },
        };
        let header = Header {
            title: "t".into(),
            id: "abc".into(),
            simulator: "warpsim".into(),
            archs: vec!["hopper-h200".into(), "tesla-g80".into()],
            axes: vec![crate::spec::Axis { key: "l2.size_kib".into(), values: vec!["4096".into()] }],
            fixed: BTreeMap::new(),
            workloads: vec!["a".into(), "b".into()],
            baseline: BTreeMap::new(),
            runs: 3,
            shard: None,
            isa: "ptx".into(),
        };
        Results {
            header: Some(header),
            keys: vec!["l2.size_kib".into()],
            rows: vec![
                Row { run: 0, arch: "hopper-h200".into(), values: vec!["4096".into()], workload: "a".into(), clock_mhz: Some(1980.0), config: "configs/a.toml".into(), m: m(100, Status::Ok) },
                Row { run: 1, arch: "tesla-g80".into(), values: vec!["4096".into()], workload: "b".into(), clock_mhz: Some(1350.0), config: "configs/b.toml".into(), m: m(0, Status::Unsupported) },
            ],
        }
    }

    #[test]
    fn csv_and_json_round_trip_byte_identical() {
        let dir = std::env::temp_dir().join(format!("warpsim-results-{}", std::process::id()));
        let r = sample();
        let (csv, json) = r.write(&dir).unwrap();
        let text = std::fs::read_to_string(&csv).unwrap();
        assert!(text.starts_with("run,arch,l2.size_kib,workload,status,check,cycles,clock_mhz,time_us,ipc,warp_instructions,dram__bytes_read.sum,stall_selected,config,message\n"), "{text}");
        assert!(text.contains("0,hopper-h200,4096,a,ok,pass,100,1980,0.050505050505050504,33.333333333333336,7,0.30000000000000004,0.3333333333333333,configs/a.toml,\n"), "{text}");
        let from_csv = Results::read(&csv).unwrap();
        assert_eq!((from_csv.header, &from_csv.rows), (None, &r.rows));
        let from_json = Results::read(&json).unwrap();
        assert_eq!(from_json, r);
        let again = dir.join("again");
        from_json.write(&again).unwrap();
        assert_eq!(std::fs::read(again.join("results.csv")).unwrap(), std::fs::read(&csv).unwrap());
        assert_eq!(std::fs::read(again.join("results.json")).unwrap(), std::fs::read(&json).unwrap());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn merge_checks_ids_and_overlaps() {
        let r = sample();
        let part = |rows: &[usize]| Results { rows: rows.iter().map(|&i| r.rows[i].clone()).collect(), ..r.clone() };
        let a = (PathBuf::from("a.json"), part(&[1]));
        let b = (PathBuf::from("b.json"), part(&[0]));
        let (merged, missing) = Results::merge(&[a.clone(), b.clone()]).unwrap();
        assert_eq!((merged.rows, missing), (r.rows.clone(), 1));
        let e = Results::merge(&[a.clone(), a.clone()]).unwrap_err().to_string();
        assert!(e.contains("run 1 (tesla-g80 4096 on b) is in both a.json and a.json"), "{e}");
        let mut other = b.clone();
        other.1.header.as_mut().unwrap().id = "xyz".into();
        let e = Results::merge(&[a.clone(), other]).unwrap_err().to_string();
        assert!(e.contains("a.json and b.json are results of different sweeps (ids abc and xyz)"), "{e}");
        let csv_only = (PathBuf::from("c.csv"), Results { header: None, ..part(&[0]) });
        assert!(Results::merge(&[a, csv_only]).unwrap_err().to_string().contains("c.csv: merging needs the JSON results"));
    }
}
