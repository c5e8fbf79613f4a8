//! The dataset: what one collection on a GPU measured, as JSON (the schema, documented in
//! validate/README.md) and as a flat CSV (one row per workload, one column per counter).
//!
//! `warpsim validate gpu-run` writes a dataset without counters; `warpsim validate merge` adds the
//! ncu counters (and `cycles` from `gpc__cycles_elapsed.max`). Datasets are committed under
//! `validate/data/<gpu>/<date>.json`; correlate and calibrate read them, so CI never needs a GPU.
//! Unknown fields are ignored on load and optional ones default, so older files keep loading.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};
use warpsim_workloads::line_col;

use crate::error::Error;

/// Bump when a field changes meaning (adding optional fields does not).
pub const SCHEMA_VERSION: u32 = 1;

/// One collection run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Dataset {
    pub schema: u32,
    /// UTC date of the run, `YYYY-MM-DD`.
    pub date: String,
    /// `warpsim <version>`.
    pub tool: String,
    pub device: DeviceInfo,
    pub method: Method,
    /// Unit of each ncu counter as ncu printed it (`--print-units base`: byte, cycle, nsecond, %...).
    #[serde(default)]
    pub counter_units: BTreeMap<String, String>,
    /// Free-form provenance (ncu version, nvidia-smi clocks) and merge warnings.
    #[serde(default)]
    pub notes: Vec<String>,
    pub workloads: Vec<WorkloadRecord>,
}

/// The device and software stack, from the driver.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DeviceInfo {
    pub name: String,
    /// `major.minor`, e.g. `9.0`.
    pub compute_capability: String,
    pub sm_count: u32,
    /// Maximum SM clock (`CU_DEVICE_ATTRIBUTE_CLOCK_RATE`), kHz.
    pub sm_clock_khz: u32,
    /// Peak memory clock, kHz.
    pub mem_clock_khz: u32,
    pub mem_bus_width_bits: u32,
    pub l2_bytes: u64,
    pub total_mem_bytes: u64,
    pub smem_per_sm: u32,
    /// Default per-block limit (48 KiB) and the opt-in maximum.
    pub smem_per_block: u32,
    pub smem_per_block_optin: u32,
    /// Shared memory the system reserves per block (1 KiB on Hopper).
    pub smem_reserved_per_block: u32,
    pub regs_per_sm: u32,
    pub regs_per_block: u32,
    pub max_threads_per_sm: u32,
    pub max_blocks_per_sm: u32,
    pub warp_size: u32,
    /// Kernel module version from /proc/driver/nvidia/version, e.g. `580.95.05`.
    pub driver_version: Option<String>,
    /// CUDA version the driver supports (`cuDriverGetVersion`), e.g. `13.0`.
    pub cuda_driver_api: String,
    /// CUDA API the runner's bindings were generated for (cudarc's `cuda-13000`).
    pub cuda_bindings: String,
}

/// How the numbers were taken.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Method {
    /// Timed launches per workload (each after an L2 flush, between two events); 0: none.
    pub reps: u32,
    /// Untimed launches (same flush) before the timed ones.
    #[serde(default)]
    pub warmup: u32,
    /// Bytes written to a scratch buffer before each timed launch to flush L2.
    pub l2_flush_bytes: u64,
    /// One launch per workload, no timing: the run ncu profiles.
    pub profile_pass: bool,
    /// Outputs compared bit for bit with the simulator's functional run.
    pub sim_compared: bool,
}

/// One workload's measurements.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WorkloadRecord {
    pub name: String,
    /// The kernel entry (the name ncu reports).
    pub entry: String,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub cluster: [u32; 3],
    pub dynamic_smem: u32,
    /// `regs_per_thread` of the manifest (what ncu reported when the suite was made); null when
    /// the manifest gives none.
    #[serde(default)]
    pub manifest_registers: Option<u32>,
    /// The kernel was launched (an error may still have come after).
    pub launched: bool,
    /// Elapsed GPC cycles of the launch (ncu `gpc__cycles_elapsed.max`), after merge.
    pub cycles: Option<u64>,
    /// `cycles` over `gpu__time_duration.sum`: the clock the kernel ran at, GHz.
    #[serde(default)]
    pub clock_ghz: Option<f64>,
    pub time_us_median: Option<f64>,
    pub time_us_min: Option<f64>,
    #[serde(default)]
    pub time_us_max: Option<f64>,
    /// Number of timed launches behind the times.
    #[serde(default)]
    pub timed_runs: u32,
    /// Why the timed launches failed (outputs and verdicts are still valid).
    #[serde(default)]
    pub timing_error: Option<String>,
    /// ncu counters by metric name (units in [`Dataset::counter_units`]).
    #[serde(default)]
    pub counters: BTreeMap<String, f64>,
    /// From the driver: `CU_FUNC_ATTRIBUTE_NUM_REGS`, `SHARED_SIZE_BYTES`, `LOCAL_SIZE_BYTES`.
    pub registers: Option<u32>,
    pub static_smem: Option<u32>,
    #[serde(default)]
    pub local_bytes: Option<u32>,
    /// The workload's overall reference verdict.
    pub check: RefStatus,
    /// The check report when it is not PASS (mismatches, problems).
    #[serde(default)]
    pub check_detail: Option<String>,
    /// Per output buffer.
    pub outputs: BTreeMap<String, OutputRecord>,
    /// Why the simulator could not give functional outputs to compare with.
    #[serde(default)]
    pub sim_error: Option<String>,
    /// Why the workload failed on the device (the run went on with the next one).
    pub error: Option<String>,
    /// Wall time spent on this workload, seconds.
    #[serde(default)]
    pub seconds: f64,
    /// A launch sequence's kernel launches in order, repetitions each their own (empty for a
    /// single launch, whose `entry`, `grid` and `block` above say it all; those are the first
    /// launch's otherwise). The record's times are of the whole sequence: each timed run is the
    /// sum of its launches' event times; ncu's counters are summed over them ([`crate::merge`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub launches: Vec<LaunchRecord>,
}

/// One kernel launch of a workload's sequence on the device.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LaunchRecord {
    pub entry: String,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    /// Median over the timed runs of this launch's event time, µs.
    pub time_us_median: Option<f64>,
}

/// One output buffer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OutputRecord {
    /// Every byte equals the simulator's functional output; None when not compared.
    pub sim_bitwise_equal: Option<bool>,
    /// Elements (of the buffer's dtype) whose bytes differ from the simulator's.
    #[serde(default)]
    pub sim_differing_elements: Option<u64>,
    pub reference: RefStatus,
    #[serde(default)]
    pub compared: u64,
    #[serde(default)]
    pub mismatched: u64,
    /// Elements the reference does not predict (clock values).
    #[serde(default)]
    pub ignored: u64,
}

/// A reference verdict.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum RefStatus {
    Pass,
    Fail,
    /// Only timing elements: nothing compared.
    Ignored,
    /// The manifest has no `[check]`, or the kernel never produced outputs.
    NotChecked,
}

impl RefStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            RefStatus::Pass => "PASS",
            RefStatus::Fail => "FAIL",
            RefStatus::Ignored => "IGNORED",
            RefStatus::NotChecked => "NOT_CHECKED",
        }
    }
}

impl WorkloadRecord {
    /// Every compared output equals the simulator's (None when none was compared).
    pub fn sim_equal(&self) -> Option<bool> {
        let v: Vec<bool> = self.outputs.values().filter_map(|o| o.sim_bitwise_equal).collect();
        (!v.is_empty()).then(|| v.iter().all(|&e| e))
    }
}

impl Dataset {
    /// The newest dataset in `dir`: the last `*.json` by name (names are dates). Subdirectories
    /// (`blind/`, `repeat/`, `sass/`) are not looked into.
    pub fn newest_in(dir: &Path) -> Result<std::path::PathBuf, Error> {
        let io = |source| Error::Io { path: dir.into(), source };
        let mut files = Vec::new();
        for e in std::fs::read_dir(dir).map_err(io)? {
            let p = e.map_err(io)?.path();
            if p.extension().is_some_and(|x| x == "json") {
                files.push(p);
            }
        }
        files.sort();
        files.pop().ok_or_else(|| Error::Parse { file: dir.display().to_string(), message: "no dataset (*.json) here".into() })
    }

    /// Reads a dataset and checks what serde cannot: the schema is this warpsim's, no workload
    /// is recorded twice, and no record claims zero cycles (a launch takes at least one; zero
    /// made correlate print a MAPE and then fail in its plot). Errors name `file:line:column`.
    pub fn load(path: &Path) -> Result<Self, Error> {
        let text = read_text(path)?;
        let ds: Dataset = serde_json::from_str(&text).map_err(|source| Error::Json { path: path.into(), source })?;
        let at = |key: &str, value: &str, nth: usize, message: String| {
            let (line, col) = find_member(&text, key, value, nth).map_or((1, 1), |o| line_col(&text, o));
            Error::Parse { file: format!("{}:{line}:{col}", path.display()), message }
        };
        if ds.schema != SCHEMA_VERSION {
            return Err(at("schema", &ds.schema.to_string(), 0, format!("schema {} is not {SCHEMA_VERSION}, the schema this warpsim reads", ds.schema)));
        }
        for (i, w) in ds.workloads.iter().enumerate() {
            let quoted = serde_json::to_string(&w.name).unwrap_or_default();
            if let Some(first) = ds.workloads[..i].iter().position(|x| x.name == w.name) {
                let nth = ds.workloads[..i].iter().filter(|x| x.name == w.name).count();
                return Err(at("name", &quoted, nth + usize::from(ds.device.name == w.name), format!("workload `{}` is recorded twice (records {} and {})", w.name, first + 1, i + 1)));
            }
            if w.cycles == Some(0) {
                let nth = ds.workloads[..i].iter().filter(|x| x.cycles == Some(0)).count();
                return Err(at("cycles", "0", nth, format!("workload `{}` records 0 cycles: a launch takes at least one", w.name)));
            }
        }
        Ok(ds)
    }

    /// Writes pretty JSON (creating the parent directory).
    pub fn save(&self, path: &Path) -> Result<(), Error> {
        write_json(self, path)
    }

    /// Writes one row per workload: identity, verdicts, driver attributes, times, cycles, then
    /// every counter any workload has (sorted by name; empty where a workload lacks it).
    pub fn save_csv(&self, path: &Path) -> Result<(), Error> {
        create_parent(path)?;
        let err = |source| Error::Csv { path: path.into(), source };
        let mut w = csv::Writer::from_path(path).map_err(err)?;
        let counters: std::collections::BTreeSet<&str> =
            self.workloads.iter().flat_map(|r| r.counters.keys().map(String::as_str)).collect();
        let fixed = [
            "name", "entry", "launched", "error", "timing_error", "check", "sim_equal", "registers", "static_smem", "local_bytes",
            "time_us_median", "time_us_min", "cycles", "clock_ghz",
        ];
        w.write_record(fixed.iter().copied().chain(counters.iter().copied())).map_err(err)?;
        let opt = |v: Option<String>| v.unwrap_or_default();
        for r in &self.workloads {
            let mut row = vec![
                r.name.clone(),
                r.entry.clone(),
                r.launched.to_string(),
                opt(r.error.clone()),
                opt(r.timing_error.clone()),
                r.check.as_str().to_string(),
                opt(r.sim_equal().map(|e| e.to_string())),
                opt(r.registers.map(|v| v.to_string())),
                opt(r.static_smem.map(|v| v.to_string())),
                opt(r.local_bytes.map(|v| v.to_string())),
                opt(r.time_us_median.map(|v| v.to_string())),
                opt(r.time_us_min.map(|v| v.to_string())),
                opt(r.cycles.map(|v| v.to_string())),
                opt(r.clock_ghz.map(|v| v.to_string())),
            ];
            row.extend(counters.iter().map(|c| opt(r.counters.get(*c).map(|v| v.to_string()))));
            w.write_record(&row).map_err(err)?;
        }
        w.flush().map_err(|source| Error::Io { path: path.into(), source })
    }
}

/// A JSON file as `T`, errors naming the file.
pub(crate) fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, Error> {
    let text = read_text(path)?;
    serde_json::from_str(&text).map_err(|source| Error::Json { path: path.into(), source })
}

/// A file's text; bytes that are not UTF-8 are an error at their byte offset and line.
fn read_text(path: &Path) -> Result<String, Error> {
    let bytes = std::fs::read(path).map_err(|source| Error::Io { path: path.into(), source })?;
    String::from_utf8(bytes).map_err(|e| {
        let off = e.utf8_error().valid_up_to();
        let (line, col) = line_col(&String::from_utf8_lossy(&e.as_bytes()[..off]), off);
        Error::Parse {
            file: format!("{}:{line}:{col}", path.display()),
            message: format!("not UTF-8 text: byte {:#04x} at byte offset {off}", e.as_bytes()[off]),
        }
    })
}

/// Byte offset of the `nth` (0-based) `"key": value` member of a JSON text (value as JSON).
fn find_member(text: &str, key: &str, value: &str, nth: usize) -> Option<usize> {
    let needle = format!("\"{key}\"");
    let mut seen = 0;
    for (i, _) in text.match_indices(&needle) {
        let rest = text[i + needle.len()..].trim_start();
        let Some(rest) = rest.strip_prefix(':') else { continue };
        let rest = rest.trim_start();
        let follows = rest.strip_prefix(value).and_then(|r| r.chars().next());
        if rest.starts_with(value) && !follows.is_some_and(|c| c.is_ascii_alphanumeric() || c == '.') {
            if seen == nth {
                return Some(i);
            }
            seen += 1;
        }
    }
    None
}

/// `v` as pretty JSON with a final newline, creating the parent directory.
pub(crate) fn write_json<T: serde::Serialize>(v: &T, path: &Path) -> Result<(), Error> {
    let text = serde_json::to_string_pretty(v).map_err(|source| Error::Json { path: path.into(), source })?;
    create_parent(path)?;
    std::fs::write(path, text + "\n").map_err(|source| Error::Io { path: path.into(), source })
}

fn create_parent(path: &Path) -> Result<(), Error> {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => {
            std::fs::create_dir_all(dir).map_err(|source| Error::Io { path: dir.into(), source })
        }
        _ => Ok(()),
    }
}

/// Today's UTC date, `YYYY-MM-DD` (civil-from-days over the Unix epoch; no time-zone data).
pub fn utc_date() -> String {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    civil_date(secs / 86_400)
}

/// The proleptic Gregorian date of day `days` since 1970-01-01 (H. Hinnant's algorithm).
fn civil_date(days: u64) -> String {
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::path::PathBuf;

    /// A small dataset with every kind of field filled (shared with the merge tests).
    pub(crate) fn sample() -> Dataset {
        let out = OutputRecord {
            sim_bitwise_equal: Some(true),
            sim_differing_elements: Some(0),
            reference: RefStatus::Pass,
            compared: 65536,
            mismatched: 0,
            ignored: 0,
        };
        let rec = |name: &str, entry: &str| WorkloadRecord {
            name: name.into(),
            entry: entry.into(),
            grid: [256, 1, 1],
            block: [256, 1, 1],
            cluster: [1, 1, 1],
            dynamic_smem: 0,
            manifest_registers: Some(16),
            launched: true,
            cycles: None,
            clock_ghz: None,
            time_us_median: Some(5.25),
            time_us_min: Some(4.75),
            time_us_max: Some(9.0),
            timed_runs: 20,
            timing_error: None,
            counters: BTreeMap::new(),
            registers: Some(16),
            static_smem: Some(0),
            local_bytes: Some(0),
            check: RefStatus::Pass,
            check_detail: None,
            outputs: BTreeMap::from([("c".to_string(), out.clone())]),
            sim_error: None,
            error: None,
            seconds: 0.5,
            launches: Vec::new(),
        };
        let mut failed = rec("copy_stride_2", "strided_copy");
        failed.launched = false;
        failed.error = Some("cuModuleLoadDataEx failed: CUDA_ERROR_INVALID_PTX (a PTX JIT compilation failed)".into());
        failed.check = RefStatus::NotChecked;
        failed.outputs.clear();
        Dataset {
            schema: SCHEMA_VERSION,
            date: "2026-12-01".into(),
            tool: "warpsim 0.1.0".into(),
            device: DeviceInfo { name: "NVIDIA H200".into(), sm_count: 132, ..DeviceInfo::default() },
            method: Method { reps: 20, warmup: 3, l2_flush_bytes: 256 << 20, profile_pass: false, sim_compared: true },
            counter_units: BTreeMap::new(),
            notes: vec![],
            workloads: vec![rec("vector_add", "vector_add"), rec("copy_stride_1", "strided_copy"), failed, rec("copy_stride_4", "strided_copy")],
        }
    }

    #[test]
    fn json_round_trip_keeps_everything() {
        let mut d = sample();
        d.workloads[0].counters.insert("dram__bytes_read.sum".into(), 524288.0);
        d.workloads[0].cycles = Some(12345);
        d.counter_units.insert("dram__bytes_read.sum".into(), "byte".into());
        let path = std::env::temp_dir().join(format!("warpsim-dataset-{}/d.json", std::process::id()));
        d.save(&path).unwrap();
        assert_eq!(Dataset::load(&path).unwrap(), d);
        let csv_path = path.with_extension("csv");
        d.save_csv(&csv_path).unwrap();
        let text = std::fs::read_to_string(&csv_path).unwrap();
        let mut lines = text.lines();
        assert!(lines.next().unwrap().ends_with(",cycles,clock_ghz,dram__bytes_read.sum"));
        assert!(lines.next().unwrap().starts_with("vector_add,vector_add,true,,,PASS,true,16,0,0,5.25,4.75,12345,,524288"));
        assert_eq!(text.lines().count(), 1 + d.workloads.len());
        std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
    }

    #[test]
    fn loading_bad_json_is_an_error_naming_the_file() {
        let path = std::env::temp_dir().join(format!("warpsim-bad-{}.json", std::process::id()));
        std::fs::write(&path, "{\"schema\": 1}").unwrap();
        let e = Dataset::load(&path).unwrap_err().to_string();
        assert!(e.contains("warpsim-bad-") && e.contains("missing field"), "{e}");
        std::fs::remove_file(&path).unwrap();
        assert!(Dataset::load(&path).is_err());
    }

    /// A dataset of another schema, a workload recorded twice, a record of zero cycles, and
    /// bytes that are not UTF-8 are errors at their file:line:column.
    #[test]
    fn datasets_that_cannot_be_right_are_located_errors() {
        let mut d = Dataset::load(&PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("data/h200/blind/2026-11-30.json")).unwrap();
        d.workloads.truncate(2);
        let dir = std::env::temp_dir().join(format!("warpsim-dscheck-{}", std::process::id()));
        let path = dir.join("d.json");
        let load = |d: &Dataset| {
            d.save(&path).unwrap();
            Dataset::load(&path).map(|_| ()).unwrap_err().to_string()
        };
        let mut bad = d.clone();
        bad.schema = 2;
        assert_eq!(load(&bad), format!("{}:2:3: schema 2 is not 1, the schema this warpsim reads", path.display()));
        let mut bad = d.clone();
        bad.workloads.push(d.workloads[0].clone());
        let e = load(&bad);
        let text = std::fs::read_to_string(&path).unwrap();
        let third = text.match_indices(&format!("\"name\": \"{}\"", d.workloads[0].name)).nth(1).unwrap().0;
        let (line, col) = line_col(&text, third);
        assert_eq!(e, format!("{}:{line}:{col}: workload `{}` is recorded twice (records 1 and 3)", path.display(), d.workloads[0].name));
        let mut bad = d.clone();
        bad.workloads[1].cycles = Some(0);
        let e = load(&bad);
        assert!(e.contains(&format!("workload `{}` records 0 cycles: a launch takes at least one", d.workloads[1].name)), "{e}");
        let text = std::fs::read_to_string(&path).unwrap();
        let (line, _) = line_col(&text, text.find("\"cycles\": 0").unwrap());
        assert!(e.starts_with(&format!("{}:{line}:", path.display())), "{e}");
        std::fs::write(&path, b"{\n  \"schema\": 1,\n  \"date\": \"\xff\"").unwrap();
        let e = Dataset::load(&path).unwrap_err().to_string();
        assert_eq!(e, format!("{}:3:12: not UTF-8 text: byte 0xff at byte offset 28", path.display()));
        d.save(&path).unwrap();
        Dataset::load(&path).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn civil_dates() {
        assert_eq!(civil_date(0), "1970-01-01");
        assert_eq!(civil_date(11_016), "2000-02-29");
        assert_eq!(civil_date(20_819), "2027-01-01");
        assert_eq!(utc_date().len(), 10);
    }
}
