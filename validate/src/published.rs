//! Published figures against the presets: the dataset of microbenchmark figures the papers
//! report (`validate/data/published/*.toml`: value, unit, GPU, preset, paper, table or figure,
//! confidence P/R/S/U as `../shared/reference/published-microbenchmarks.md` labels them, M for
//! this project's own measurements of the hardware), each
//! tied to a `group:micro` workload whose `[figure]` table turns simulated cycles into the
//! paper's unit. [`compare`] simulates every anchor's workload on its preset (sized for that
//! preset's caches) and gives published vs simulated with the error; [`summarise`] counts, per
//! preset, the primary, reproduced and measured (P/R/M) anchors within 10% and 25%; [`figures`] draws one
//! page per generation (simulated ÷ published per figure, a line at 1).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use warpsim_sim::config::ArchConfig;
use warpsim_workloads::{FigureUnit, Workload};

use crate::error::Error;

/// How sure the source is (the reference file's labels).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Confidence {
    /// Primary: the paper's own table or figure.
    P,
    /// An independent reproduction.
    R,
    /// Secondary: a compilation citing the paper.
    S,
    /// Recalled, unverified.
    U,
    /// Measured by this project on the hardware: a dataset under `validate/data`, which
    /// `source` names.
    M,
}

impl Confidence {
    /// P, R and M: the anchors a preset must reproduce.
    pub fn anchors(self) -> bool {
        matches!(self, Confidence::P | Confidence::R | Confidence::M)
    }
}

/// One published figure.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Anchor {
    /// The preset it anchors.
    pub preset: String,
    /// The GPU the paper measured (may differ from the preset's: K80 for the K40 preset).
    pub gpu: String,
    /// What is measured, as the table of the reference file names it.
    pub figure: String,
    /// The `group:micro` workload that measures it.
    pub workload: String,
    /// A second workload whose figure is subtracted (a conflict penalty over the no-conflict
    /// latency).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub minus: Option<String>,
    pub value: f64,
    /// `cycles`, `B/clk/SM` or `GB/s`: the workload's figure unit.
    pub unit: String,
    pub confidence: Confidence,
    pub paper: String,
    /// Table or figure of the paper (or the log file of a reproduction).
    pub source: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub note: String,
    /// A measurement of this project that contradicts the figure (where it is and what it
    /// reads): the figure is still simulated and shown, but no longer counted as an anchor.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub superseded: String,
}

impl Anchor {
    /// Whether the preset must reproduce it: a P, R or M figure nothing here contradicts.
    pub fn counts(&self) -> bool {
        self.confidence.anchors() && self.superseded.is_empty()
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    anchor: Vec<Anchor>,
}

/// The published dataset: every anchor of every file, in file then line order.
#[derive(Clone, Debug, Default)]
pub struct Published {
    pub anchors: Vec<Anchor>,
}

/// The dataset shipped with this checkout.
pub fn default_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("data/published")
}

fn parse_error(file: &Path, message: impl Into<String>) -> Error {
    Error::Parse { file: file.display().to_string(), message: message.into() }
}

impl Published {
    /// Every `*.toml` of `dir` (sorted by name), or the one file `dir` names.
    pub fn load(dir: &Path) -> Result<Self, Error> {
        let io = |source| Error::Io { path: dir.to_path_buf(), source };
        let files: Vec<PathBuf> = if dir.is_dir() {
            let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
                .map_err(io)?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "toml"))
                .collect();
            v.sort();
            v
        } else {
            vec![dir.to_path_buf()]
        };
        let mut anchors = Vec::new();
        for f in &files {
            let text = std::fs::read_to_string(f).map_err(|source| Error::Io { path: f.clone(), source })?;
            anchors.extend(Self::parse(&text, f)?.anchors);
        }
        if anchors.is_empty() {
            return Err(parse_error(dir, "no published figures ([[anchor]] tables in *.toml)"));
        }
        Ok(Published { anchors })
    }

    /// One file's anchors, each checked against the presets and the workloads' figures; errors
    /// name the file and the anchor's line.
    pub fn parse(text: &str, file: &Path) -> Result<Self, Error> {
        let f: File = toml::from_str(text).map_err(|e| {
            let at = e.span().map(|s| warpsim_workloads::line_col(text, s.start));
            parse_error(file, match at {
                Some((l, c)) => format!("{l}:{c}: {}", e.message()),
                None => e.message().to_string(),
            })
        })?;
        let lines: Vec<usize> = text.match_indices("[[anchor]]").map(|(o, _)| warpsim_workloads::line_col(text, o).0).collect();
        for (i, a) in f.anchor.iter().enumerate() {
            let at = |m: String| parse_error(file, format!("{}: anchor {} ({}, {}): {m}", lines.get(i).copied().unwrap_or(0), i + 1, a.preset, a.figure));
            if warpsim_sim::presets::preset_source(&a.preset).is_none() {
                return Err(at(format!("no preset `{}`", a.preset)));
            }
            if !(a.value.is_finite() && (a.value > 0.0 || a.minus.is_some())) {
                return Err(at(format!("value {} must be a positive number", a.value)));
            }
            for w in std::iter::once(&a.workload).chain(&a.minus) {
                let unit = figure_unit(w).map_err(at)?;
                if unit.as_str() != a.unit {
                    return Err(at(format!("unit `{}`, but `{w}` reports {}", a.unit, unit.as_str())));
                }
            }
        }
        Ok(Published { anchors: f.anchor })
    }
}

fn figure_unit(workload: &str) -> Result<FigureUnit, String> {
    let w = Workload::bundled(workload).map_err(|e| e.to_string())?;
    w.manifest.figure.map(|f| f.unit).ok_or_else(|| format!("workload `{workload}` has no [figure]"))
}

/// A workload's figure on `cfg`: simulated with its sizes expanded for the preset, checked, and
/// its `[figure]` applied to the simulated timer (or the kernel's cycles).
pub fn measure(workload: &str, cfg: &ArchConfig) -> Result<f64, Error> {
    let bad = |message: String| Error::Workload { workload: workload.to_string(), message };
    let w = Workload::bundled_for(workload, &warpsim_sim::launch::target(cfg)).map_err(|e| bad(e.to_string()))?;
    let fig = w.manifest.figure.clone().ok_or_else(|| bad("no [figure] table".into()))?;
    let o = warpsim_sim::launch::run_timed(&w, cfg, 1)?;
    if !o.check.passed() {
        return Err(bad(format!("the simulated outputs fail the check on {}:\n{}", cfg.name, o.check)));
    }
    let cycles = match fig.timer {
        None => o.timing.as_ref().map_or(0, |t| t.cycles) as f64,
        Some((buffer, index)) => {
            let name = &w.manifest.buffers[buffer].name;
            let bytes = o.outputs.iter().find(|(n, _)| n == name).map(|(_, b)| b).ok_or_else(|| bad(format!("no output `{name}`")))?;
            let at = index as usize * 8;
            let word = bytes.get(at..at + 8).ok_or_else(|| bad(format!("`{name}` has no element {index}")))?;
            u64::from_le_bytes(word.try_into().unwrap_or_default()) as f64
        }
    };
    let work = fig.work(w.manifest.args()).ok_or_else(|| bad(format!("no scalar `{}`", fig.per)))?;
    if cycles <= 0.0 || work <= 0.0 {
        return Err(bad(format!("{cycles} cycles for {work} units of work: no figure")));
    }
    Ok(match fig.unit {
        FigureUnit::Cycles => cycles / work,
        FigureUnit::BytesPerClockPerSm => work / cycles,
        FigureUnit::GigabytesPerSecond => work * cfg.clock.sm_mhz / cycles / 1e3,
    })
}

/// One anchor, published and simulated.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Row {
    #[serde(flatten)]
    pub anchor: Anchor,
    pub simulated: f64,
    /// (simulated − published) / published, in percent.
    pub error_pct: f64,
}

/// Simulates every anchor of `presets` (all of the dataset's when empty), each workload once per
/// preset, `threads` at a time; rows in dataset order.
pub fn compare(p: &Published, presets: &[String], threads: usize) -> Result<Vec<Row>, Error> {
    let chosen: Vec<&Anchor> = p.anchors.iter().filter(|a| presets.is_empty() || presets.contains(&a.preset)).collect();
    let mut jobs: Vec<(String, String)> = Vec::new();
    for a in &chosen {
        for w in std::iter::once(&a.workload).chain(&a.minus) {
            let job = (a.preset.clone(), w.clone());
            if !jobs.contains(&job) {
                jobs.push(job);
            }
        }
    }
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads.max(1)).build().map_err(|e| Error::Report(e.to_string()))?;
    let results: Vec<Result<f64, Error>> = pool.install(|| {
        use rayon::prelude::*;
        jobs.par_iter()
            .map(|(preset, w)| {
                let cfg = warpsim_sim::presets::preset(preset).map_err(|e| parse_error(Path::new(preset), e.to_string()))?;
                measure(w, &cfg)
            })
            .collect()
    });
    let mut value = BTreeMap::new();
    for (job, r) in jobs.into_iter().zip(results) {
        value.insert(job, r?);
    }
    Ok(chosen
        .into_iter()
        .map(|a| {
            let get = |w: &String| value[&(a.preset.clone(), w.clone())];
            let simulated = get(&a.workload) - a.minus.as_ref().map_or(0.0, get);
            Row { anchor: a.clone(), simulated, error_pct: (simulated - a.value) / a.value * 100.0 }
        })
        .collect())
}

/// One preset's agreement with its P/R/M anchors.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Summary {
    pub preset: String,
    /// P, R and M anchors (not superseded).
    pub anchors: usize,
    pub within_10: usize,
    pub within_25: usize,
    /// The P/R/M anchor with the largest |error|, and the error (percent).
    pub worst: Option<(String, f64)>,
    /// S, U and superseded figures compared but not counted.
    pub unanchored: usize,
}

/// Per preset, in the order presets first appear in `rows`.
pub fn summarise(rows: &[Row]) -> Vec<Summary> {
    let mut out: Vec<Summary> = Vec::new();
    for r in rows {
        let i = out.iter().position(|s| s.preset == r.anchor.preset).unwrap_or_else(|| {
            out.push(Summary { preset: r.anchor.preset.clone(), anchors: 0, within_10: 0, within_25: 0, worst: None, unanchored: 0 });
            out.len() - 1
        });
        let s = &mut out[i];
        if !r.anchor.counts() {
            s.unanchored += 1;
            continue;
        }
        let e = r.error_pct.abs();
        s.anchors += 1;
        s.within_10 += usize::from(e <= 10.0);
        s.within_25 += usize::from(e <= 25.0);
        if s.worst.as_ref().is_none_or(|(_, w)| e > w.abs()) {
            s.worst = Some((r.anchor.figure.clone(), r.error_pct));
        }
    }
    out
}

/// The markdown tables: the per-preset summary, then every anchor.
pub fn markdown(rows: &[Row]) -> String {
    let mut s = String::from("| preset | P/R/M anchors | within 10% | within 25% | worst | S/U/superseded (not counted) |\n|---|---|---|---|---|---|\n");
    for x in summarise(rows) {
        let worst = x.worst.map_or("-".to_string(), |(f, e)| format!("{f} {e:+.1}%"));
        s += &format!("| {} | {} | {} | {} | {worst} | {} |\n", x.preset, x.anchors, x.within_10, x.within_25, x.unanchored);
    }
    s += "\n| preset | figure | unit | published | simulated | error | conf. | source |\n|---|---|---|---|---|---|---|---|\n";
    for r in rows {
        let a = &r.anchor;
        let conf = if a.superseded.is_empty() { format!("{:?}", a.confidence) } else { format!("{:?}, superseded: {}", a.confidence, a.superseded) };
        s += &format!(
            "| {} | {} | {} | {} | {:.1} | {:+.1}% | {conf} | {}, {} |\n",
            a.preset, a.figure, a.unit, a.value, r.simulated, r.error_pct, a.paper, a.source
        );
    }
    s
}

/// One figure per preset (a generation) under `dir`: `published-<preset>.png/.svg`, a bar of
/// simulated ÷ published per figure and a line at 1. Returns the stems written.
pub fn figures(rows: &[Row], dir: &Path) -> Result<Vec<PathBuf>, Error> {
    use warpsim_reports::{bars, BarOptions, BarValue, Column, FigureSpec};
    std::fs::create_dir_all(dir).map_err(|source| Error::Io { path: dir.to_path_buf(), source })?;
    let mut stems = Vec::new();
    for s in summarise(rows) {
        let mut values: Vec<BarValue> = Vec::new();
        for r in rows.iter().filter(|r| r.anchor.preset == s.preset) {
            // Two sources of one figure get one bar each: a repeated label is numbered.
            let mark = if r.anchor.superseded.is_empty() { "" } else { ", superseded" };
            let label = format!("{} [{:?}{mark}]", r.anchor.figure, r.anchor.confidence);
            let seen = values.iter().filter(|v| v.group == label || v.group.starts_with(&format!("{label} ("))).count();
            let group = if seen == 0 { label } else { format!("{label} ({})", seen + 1) };
            values.push(BarValue { group, series: "simulated ÷ published".into(), value: r.simulated / r.anchor.value });
        }
        let title = format!("{}: {} of {} P/R/M figures within 10%", s.preset, s.within_10, s.anchors);
        // Crowded category labels are written vertically: the figure grows with the longest.
        let longest = values.iter().map(|v| v.group.chars().count()).max().unwrap_or(0);
        let spec = FigureSpec::new(title, Column::Double).y_label("Simulated ÷ published (×)").height_in(2.8_f64.max(1.6 + 0.08 * longest as f64));
        let stem = dir.join(format!("published-{}", s.preset));
        bars(&values, &BarOptions { baseline: Some(1.0) }, &spec, &stem).map_err(|e| Error::Report(e.to_string()))?;
        stems.push(stem);
    }
    Ok(stems)
}
