//! Executed SASS per workload: what ptxas made of each kernel and how often the H200 ran each
//! machine instruction, from Nsight Compute's source page (`ncu --section SourceCounters --page
//! source --print-source sass --csv`, collected by `validate/sass.sh`).
//!
//! The source page lists, per profiled launch, a `"Kernel Name"` line, a header, then one row per
//! SASS instruction with its warp-level `Instructions Executed`. Launches carry no workload name,
//! so [`import`] pairs them in order with the workloads the profiled `gpu-run` printed (`=> PASS
//! name, ...` lines of its log). The result, a [`SassDataset`], shows what ptxas made of each PTX
//! instruction; the machine-op classes of `warpsim_isa::costs` and their default counts are read
//! off it (`warpsim validate calibrate` then fits the counts to ncu's instruction totals).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::error::Error;

/// One SASS instruction of a kernel and the warp instructions the H200 executed of it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SassInst {
    /// The disassembly, e.g. `@P0 EXIT` or `IMAD.WIDE R2, R7, 0x4, R2`.
    pub text: String,
    pub executed: u64,
}

impl SassInst {
    /// The opcode without predicate or modifiers: `IMAD` for `@!P0 IMAD.WIDE ...`.
    pub fn opcode(&self) -> &str {
        let t = self.text.trim_start();
        let t = if t.starts_with('@') { t.split_once(char::is_whitespace).map_or("", |(_, r)| r.trim_start()) } else { t };
        let word = t.split(char::is_whitespace).next().unwrap_or("");
        word.split('.').next().unwrap_or("")
    }
}

/// The executed SASS of one workload's kernel launch.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SassWorkload {
    pub name: String,
    pub kernel: String,
    pub sass: Vec<SassInst>,
}

impl SassWorkload {
    /// Warp instructions executed (= ncu's `smsp__inst_executed.sum`).
    pub fn executed(&self) -> u64 {
        self.sass.iter().map(|i| i.executed).sum()
    }

    /// Executed warp instructions per opcode.
    pub fn by_opcode(&self) -> BTreeMap<&str, u64> {
        let mut m = BTreeMap::new();
        for i in &self.sass {
            *m.entry(i.opcode()).or_default() += i.executed;
        }
        m
    }
}

/// Executed SASS of a suite, with provenance.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SassDataset {
    pub notes: Vec<String>,
    pub workloads: Vec<SassWorkload>,
}

impl SassDataset {
    pub fn load(path: &std::path::Path) -> Result<Self, Error> {
        crate::dataset::read_json(path)
    }

    /// Writes pretty JSON (creating the parent directory).
    pub fn save(&self, path: &std::path::Path) -> Result<(), Error> {
        crate::dataset::write_json(self, path)
    }
}

/// One launch of the source page: kernel name and its instructions.
fn parse_source_page(text: &str, file: &str) -> Result<Vec<(String, Vec<SassInst>)>, Error> {
    // ncu's own `==PROF==` lines become blank ones, so line numbers stay the file's.
    let body: String = text.lines().map(|l| if l.starts_with("==") { "\n".to_string() } else { format!("{l}\n") }).collect();
    let mut reader = csv::ReaderBuilder::new().has_headers(false).flexible(true).from_reader(body.as_bytes());
    let bad = |line: u64, message: String| Error::Parse { file: format!("{file}:{line}"), message };
    let mut out: Vec<(String, Vec<SassInst>)> = Vec::new();
    let mut columns: Option<(usize, usize)> = None;
    for row in reader.records() {
        let row = row.map_err(|e| bad(e.position().map_or(0, |p| p.line()), e.to_string()))?;
        let line = row.position().map_or(0, |p| p.line());
        match row.get(0) {
            Some("Kernel Name") => {
                out.push((row.get(1).unwrap_or("").to_string(), Vec::new()));
                columns = None;
            }
            Some("Address") => {
                let col = |name: &str| row.iter().position(|c| c == name).ok_or_else(|| bad(line, format!("no `{name}` column")));
                columns = Some((col("Source")?, col("Instructions Executed")?));
            }
            Some(_) => {
                let (Some((src, exe)), Some((_, insts))) = (columns, out.last_mut()) else {
                    return Err(bad(line, "an instruction row before the kernel's header".into()));
                };
                let executed = match row.get(exe).unwrap_or("").replace(',', "").as_str() {
                    "" => 0,
                    v => v.parse::<u64>().map_err(|e| bad(line, format!("`Instructions Executed` = {v}: {e}")))?,
                };
                insts.push(SassInst { text: row.get(src).unwrap_or("").trim().to_string(), executed });
            }
            None => {}
        }
    }
    Ok(out)
}

/// The workloads a `gpu-run` log reports, in order (`  => PASS name, ...`).
fn workloads_of_log(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.trim_start().strip_prefix("=> "))
        .filter_map(|l| l.split_whitespace().nth(1))
        .map(|w| w.trim_end_matches(',').to_string())
        .collect()
}

/// Pairs the launches of each `(source page CSV, gpu-run log)` chunk with the log's workloads.
pub fn import(chunks: &[(String, String, String)], notes: Vec<String>) -> Result<SassDataset, Error> {
    let mut workloads = Vec::new();
    for (file, csv_text, log_text) in chunks {
        let launches = parse_source_page(csv_text, file)?;
        let names = workloads_of_log(log_text);
        if launches.len() != names.len() {
            return Err(Error::Parse {
                file: file.clone(),
                message: format!("{} launches on the source page, {} workloads in the run's log", launches.len(), names.len()),
            });
        }
        for (name, (kernel, sass)) in names.into_iter().zip(launches) {
            workloads.push(SassWorkload { name, kernel, sass });
        }
    }
    workloads.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(SassDataset { notes, workloads })
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: &str = "==PROF== Connected to process 1\n\
\"Kernel Name\",\"vector_add\",\n\
\"Address\",\"Source\",\"Warp Stall Sampling (All Samples)\",\"Instructions Executed\",\"Thread Instructions Executed\"\n\
\"0x7f00\",\"      LDC R1, c[0x0][0x28]\",\"13\",\"2048\",\"65536\"\n\
\"0x7f10\",\"      @P0   EXIT\",\"0\",\"2,048\",\"65536\"\n\
\"0x7f20\",\"      BRA 0x7f20\",\"0\",\"0\",\"0\"\n\
\"Kernel Name\",\"copy_strided\",\n\
\"Address\",\"Source\",\"Instructions Executed\"\n\
\"0x7f00\",\"      IMAD.WIDE R2, R7, 0x4, R2\",\"1024\"\n";

    const LOG: &str = "  => PASS vector_add, sim not compared, 12 regs (0.5 s)\nnoise\n  => FAIL copy_stride_1, sim not compared, 10 regs (0.2 s)\n";

    #[test]
    fn pairs_launches_with_the_logged_workloads() {
        let d = import(&[("chunk-0.csv".into(), PAGE.into(), LOG.into())], vec!["n".into()]).unwrap();
        assert_eq!(d.workloads.len(), 2);
        let get = |n: &str| d.workloads.iter().find(|w| w.name == n).unwrap();
        let c = get("copy_stride_1");
        assert_eq!((c.kernel.as_str(), c.executed()), ("copy_strided", 1024));
        let v = get("vector_add");
        assert_eq!(v.executed(), 4096);
        assert_eq!(v.sass[1].text, "@P0   EXIT");
        assert_eq!(v.by_opcode().into_iter().collect::<Vec<_>>(), [("BRA", 0), ("EXIT", 2048), ("LDC", 2048)]);
        assert_eq!(c.sass[0].opcode(), "IMAD");
        // The JSON round trip `sass-import` writes and readers load.
        let path = std::env::temp_dir().join(format!("warpsim-sass-{}/d.json", std::process::id()));
        d.save(&path).unwrap();
        assert_eq!(SassDataset::load(&path).unwrap(), d);
        std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
    }

    #[test]
    fn a_count_mismatch_or_bad_number_is_an_error() {
        let e = import(&[("c.csv".into(), PAGE.into(), "=> PASS only_one,\n".into())], vec![]).unwrap_err();
        assert!(e.to_string().contains("2 launches on the source page, 1 workloads"), "{e}");
        let bad = PAGE.replace("\"1024\"", "\"many\"");
        let e = import(&[("c.csv".into(), bad, LOG.into())], vec![]).unwrap_err();
        assert!(e.to_string().contains("c.csv:9") && e.to_string().contains("many"), "{e}");
    }
}
