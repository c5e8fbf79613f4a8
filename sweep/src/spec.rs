//! Sweep specifications as written: presets, workloads, and the configuration keys to sweep with
//! their values, from a sweep file (TOML) and command-line arguments.
//!
//! A sweep file:
//! ```toml
//! title = "L2 size vs cycles"
//! arch = "hopper-h200"                           # or a list: presets or preset files
//! workloads = ["group:copy", "vector_add"]       # names, `group:<suite dir>`, manifests, "all"
//! [sweep]                                        # every combination of these values is run
//! l2.size_kib = {from = 4096, to = 65536, mul = 2}
//! sm.sub_partitions = {from = 1, to = 4, step = 1}
//! sm.scheduler = ["lrr", "gto"]
//! [set]                                          # fixed overrides for every design point
//! dram.channels = 8
//! [baseline]                                     # the reference point of the report
//! l2.size_kib = 65536
//! ```
//! Values stay text here (`"4096"`, `"gto"`): [`crate::plan`] parses them to each key's type
//! through the simulator's override machinery. Every error names the file:line:column (or the
//! command-line argument) and the key it is about; nothing is simulated before the whole
//! specification is valid.

use std::collections::BTreeMap;
use std::ops::Range;

use warpsim_sim::watchdog::parse_seconds;
use toml::de::{DeTable, DeValue};
use warpsim_workloads::line_col;

/// A problem with a sweep specification, located at `file:line:column` or a command-line argument.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{at}: {message}")]
pub struct SpecError {
    /// Where: `study.toml:7:15`, `--set l2.size_kib=`, `--shard`.
    pub at: String,
    pub message: String,
}

pub(crate) fn spec_error(at: impl Into<String>, message: impl Into<String>) -> SpecError {
    SpecError { at: at.into(), message: message.into() }
}

/// One swept configuration key and its values (as override text, in sweep order).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Axis {
    pub key: String,
    pub values: Vec<String>,
}

/// A sweep as written, before anything is resolved.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Spec {
    pub title: String,
    /// Preset names or preset files (empty: `hopper-h200`).
    pub archs: Vec<String>,
    /// Workload selectors (empty: every bundled workload).
    pub workloads: Vec<String>,
    pub axes: Vec<Axis>,
    /// Overrides applied to every design point.
    pub fixed: Vec<(String, String)>,
    /// The report's reference point: `arch` and swept keys with one of their values.
    pub baseline: Vec<(String, String)>,
    /// The watchdog's budgets for every run (`max_cycles`, `timeout` in seconds): unset keeps
    /// [`warpsim_sim::watchdog::Limits`]'s defaults.
    pub max_cycles: Option<u64>,
    pub timeout: Option<std::time::Duration>,
    /// Where each setting was written, for errors: `arch`, `workloads`, `<key>` (an axis or a fixed
    /// key), `<key>#<i>` (an axis value), `baseline.<key>`.
    origins: BTreeMap<String, String>,
}

/// Most values one range may expand to.
const MAX_RANGE: usize = 10_000;

impl Spec {
    /// Reads a sweep file.
    pub fn from_file(path: &std::path::Path) -> Result<Spec, SpecError> {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| spec_error(&name, format!("cannot read the sweep file: {e}")))?;
        Spec::from_toml(&text, &name)
    }

    /// Parses a sweep file's text; `file` names it in errors.
    pub fn from_toml(text: &str, file: &str) -> Result<Spec, SpecError> {
        let at = |span: Range<usize>| {
            let (line, col) = line_col(text, span.start);
            format!("{file}:{line}:{col}")
        };
        let doc = DeTable::parse(text).map_err(|e| spec_error(at(e.span().unwrap_or(0..0)), e.message().trim()))?;
        let mut spec = Spec::default();
        for (k, v) in doc.get_ref().iter() {
            let here = at(v.span());
            match k.get_ref().as_ref() {
                "title" => spec.title = scalar(v.get_ref()).map_err(|m| spec_error(&here, format!("`title`: {m}")))?,
                "arch" => {
                    spec.archs = strings(v.get_ref()).map_err(|m| spec_error(&here, format!("`arch`: {m}")))?;
                    spec.origins.insert("arch".into(), here);
                }
                "workloads" => {
                    spec.workloads = strings(v.get_ref()).map_err(|m| spec_error(&here, format!("`workloads`: {m}")))?;
                    spec.origins.insert("workloads".into(), here);
                }
                "max_cycles" => {
                    let n = scalar(v.get_ref()).ok().and_then(|t| t.parse::<u64>().ok()).filter(|&n| n > 0);
                    spec.max_cycles = Some(n.ok_or_else(|| spec_error(&here, "`max_cycles`: expected a positive whole number of cycles"))?);
                }
                "timeout" => {
                    let t = scalar(v.get_ref()).and_then(|t| parse_seconds(&t)).map_err(|m| spec_error(&here, format!("`timeout`: {m}")))?;
                    spec.timeout = Some(t);
                }
                section @ ("sweep" | "set" | "baseline") => {
                    let DeValue::Table(t) = v.get_ref() else {
                        return Err(spec_error(here, format!("`{section}` must be a table ([{section}])")));
                    };
                    let mut leaves = Vec::new();
                    flatten(t, "", section == "sweep", &mut leaves);
                    // Tables iterate sorted by key; the sweep order is the order written.
                    leaves.sort_by_key(|(_, v)| v.span().start);
                    for (key, v) in leaves {
                        spec.add(section, &key, v.get_ref(), v.span(), &at)?;
                    }
                }
                other => {
                    return Err(spec_error(
                        at(k.span()),
                        format!("unknown setting `{other}`: a sweep file has title, arch, workloads, max_cycles, timeout, [sweep], [set] and [baseline]"),
                    ))
                }
            }
        }
        Ok(spec)
    }

    /// Adds one leaf of the `[sweep]`, `[set]` or `[baseline]` table.
    fn add(
        &mut self,
        section: &str,
        key: &str,
        v: &DeValue<'_>,
        span: Range<usize>,
        at: &dyn Fn(Range<usize>) -> String,
    ) -> Result<(), SpecError> {
        let here = at(span.clone());
        let bad = |m: String| spec_error(&here, format!("`{key}`: {m}"));
        match section {
            "sweep" => {
                let values: Vec<(String, String)> = match v {
                    DeValue::Array(items) => items
                        .into_iter()
                        .map(|item| Ok((scalar(item.get_ref()).map_err(&bad)?, at(item.span()))))
                        .collect::<Result<_, SpecError>>()?,
                    DeValue::Table(t) => range(t).map_err(bad)?.into_iter().map(|x| (x, here.clone())).collect(),
                    _ => {
                        return Err(bad(
                            "expected a list of values or a range {from, to, step} / {from, to, mul}; a single value goes under [set]"
                                .into(),
                        ))
                    }
                };
                self.origins.insert(key.to_string(), here.clone());
                for (i, (_, origin)) in values.iter().enumerate() {
                    self.origins.insert(format!("{key}#{i}"), origin.clone());
                }
                self.axes.push(Axis { key: key.to_string(), values: values.into_iter().map(|v| v.0).collect() });
            }
            "set" => {
                self.fixed.push((key.to_string(), scalar(v).map_err(bad)?));
                self.origins.insert(key.to_string(), here);
            }
            _ => {
                self.baseline.push((key.to_string(), scalar(v).map_err(bad)?));
                self.origins.insert(format!("baseline.{key}"), here);
            }
        }
        Ok(())
    }

    /// Adds (or replaces) an axis from a command-line `--set KEY=V1,V2,…`.
    pub fn set_axis(&mut self, arg: &str) -> Result<(), SpecError> {
        let at = format!("--set {arg}");
        let (key, list) = arg
            .split_once('=')
            .filter(|(k, _)| !k.trim().is_empty())
            .ok_or_else(|| spec_error(&at, "expected KEY=VALUE[,VALUE…], e.g. `l2.size_kib=12288,24576`"))?;
        let key = key.trim();
        let values: Vec<String> = split_top_level(list).into_iter().map(|v| v.trim().to_string()).collect();
        if values.iter().all(|v| v.is_empty()) {
            return Err(spec_error(&at, format!("`{key}`: the list of values is empty")));
        }
        if values.iter().any(|v| v.is_empty()) {
            return Err(spec_error(&at, format!("`{key}`: an empty value in `{list}`")));
        }
        self.axes.retain(|a| a.key != key);
        self.fixed.retain(|(k, _)| k != key);
        self.origins.insert(key.to_string(), at.clone());
        for i in 0..values.len() {
            self.origins.insert(format!("{key}#{i}"), at.clone());
        }
        self.axes.push(Axis { key: key.to_string(), values });
        Ok(())
    }

    /// Replaces the presets (`--arch a,b`).
    pub fn set_archs(&mut self, archs: Vec<String>) {
        self.origins.insert("arch".into(), format!("--arch {}", archs.join(",")));
        self.archs = archs;
    }

    /// Replaces the workload selection (`--workloads x,y`).
    pub fn set_workloads(&mut self, workloads: Vec<String>) {
        self.origins.insert("workloads".into(), format!("--workloads {}", workloads.join(",")));
        self.workloads = workloads;
    }

    /// Where a setting was written (see the field `origins`), or `fallback`.
    pub(crate) fn origin(&self, what: &str, fallback: &str) -> String {
        self.origins.get(what).cloned().unwrap_or_else(|| fallback.to_string())
    }

    /// The structural checks that need no simulator: lists not empty, no key swept twice or both
    /// swept and fixed, baseline values among the swept ones.
    pub(crate) fn check(&self) -> Result<(), SpecError> {
        for a in &self.axes {
            let at = self.origin(&a.key, "[sweep]");
            if a.values.is_empty() {
                return Err(spec_error(at, format!("`{}`: the list of values is empty", a.key)));
            }
            for (i, v) in a.values.iter().enumerate() {
                if a.values[..i].contains(v) {
                    let at = self.origin(&format!("{}#{i}", a.key), &at);
                    return Err(spec_error(at, format!("`{}`: value `{v}` is listed twice", a.key)));
                }
            }
            if self.axes.iter().filter(|b| b.key == a.key).count() > 1 {
                return Err(spec_error(at, format!("`{}` is swept twice", a.key)));
            }
            if self.fixed.iter().any(|(k, _)| *k == a.key) {
                return Err(spec_error(at, format!("`{}` is both swept and fixed under [set]", a.key)));
            }
        }
        for (what, list) in [("arch", &self.archs), ("workloads", &self.workloads)] {
            if list.is_empty() && self.origins.contains_key(what) {
                return Err(spec_error(self.origin(what, what), format!("`{what}`: the list is empty")));
            }
        }
        for (key, value) in &self.baseline {
            let at = self.origin(&format!("baseline.{key}"), "[baseline]");
            let values: Vec<&String> = if key == "arch" {
                self.archs.iter().collect()
            } else {
                match self.axes.iter().find(|a| a.key == *key) {
                    Some(a) => a.values.iter().collect(),
                    None => return Err(spec_error(at, format!("baseline `{key}` is not swept (only `arch` and swept keys may be)"))),
                }
            };
            if !values.iter().any(|v| same_value(v, value)) {
                let list: Vec<&str> = values.iter().map(|s| s.as_str()).collect();
                return Err(spec_error(at, format!("baseline `{key}` = {value} is not among its values ({})", list.join(", "))));
            }
        }
        Ok(())
    }
}

/// Two value texts denote the same value (`4096` and `4096.0`, or equal text).
pub fn same_value(a: &str, b: &str) -> bool {
    a == b || matches!((a.parse::<f64>(), b.parse::<f64>()), (Ok(x), Ok(y)) if x == y)
}

/// The leaves of a table with their dotted paths; in `[sweep]` a table with a `from` key is a
/// range, hence a leaf.
fn flatten<'a, 'i>(t: &'a DeTable<'i>, prefix: &str, ranges: bool, out: &mut Vec<(String, &'a toml::Spanned<DeValue<'i>>)>) {
    for (k, v) in t.iter() {
        let path = if prefix.is_empty() { k.get_ref().to_string() } else { format!("{prefix}.{}", k.get_ref()) };
        match v.get_ref() {
            DeValue::Table(child) if !(ranges && child.iter().any(|(k, _)| k.get_ref() == "from")) => {
                flatten(child, &path, ranges, out)
            }
            _ => out.push((path, v)),
        }
    }
}

/// A scalar (or array) value as override text: strings bare, numbers in their canonical form,
/// arrays in TOML syntax.
fn scalar(v: &DeValue<'_>) -> Result<String, String> {
    Ok(match v {
        DeValue::String(s) => s.to_string(),
        DeValue::Boolean(b) => b.to_string(),
        DeValue::Integer(i) => {
            let digits = i.as_str().replace('_', "");
            i64::from_str_radix(&digits, i.radix()).map_err(|e| format!("bad integer `{}`: {e}", i.as_str()))?.to_string()
        }
        DeValue::Float(f) => {
            let x: f64 = f.as_str().replace('_', "").parse().map_err(|e| format!("bad number `{}`: {e}", f.as_str()))?;
            x.to_string()
        }
        DeValue::Array(items) => {
            let parts: Vec<String> = items
                .into_iter()
                .map(|item| match item.get_ref() {
                    DeValue::String(s) => Ok(format!("{:?}", s.as_ref())),
                    other => scalar(other),
                })
                .collect::<Result<_, _>>()?;
            format!("[{}]", parts.join(", "))
        }
        other => return Err(format!("expected a number, string, boolean or array, not a {}", other.type_str())),
    })
}

/// A string or a list of strings.
fn strings(v: &DeValue<'_>) -> Result<Vec<String>, String> {
    match v {
        DeValue::String(s) => Ok(vec![s.to_string()]),
        DeValue::Array(items) => items
            .into_iter()
            .map(|item| match item.get_ref() {
                DeValue::String(s) => Ok(s.to_string()),
                other => Err(format!("expected strings, found a {}", other.type_str())),
            })
            .collect(),
        other => Err(format!("expected a string or a list of strings, not a {}", other.type_str())),
    }
}

/// A number of a range table, and whether it was written as an integer.
fn number(t: &DeTable<'_>, key: &str) -> Result<Option<(f64, bool)>, String> {
    let Some((_, v)) = t.iter().find(|(k, _)| k.get_ref() == key) else { return Ok(None) };
    let text = scalar(v.get_ref()).map_err(|e| format!("`{key}`: {e}"))?;
    match (v.get_ref(), text.parse::<f64>()) {
        (DeValue::Integer(_), Ok(x)) => Ok(Some((x, true))),
        (DeValue::Float(_), Ok(x)) if x.is_finite() => Ok(Some((x, false))),
        _ => Err(format!("`{key}` must be a finite number, not `{text}`")),
    }
}

/// Expands `{from, to, step}` (arithmetic) or `{from, to, mul}` (geometric), both inclusive.
fn range(t: &DeTable<'_>) -> Result<Vec<String>, String> {
    if let Some((k, _)) = t.iter().find(|(k, _)| !["from", "to", "step", "mul"].contains(&k.get_ref().as_ref())) {
        return Err(format!("unknown range field `{}`: a range has from, to and step or mul", k.get_ref()));
    }
    let (from, to) = match (number(t, "from")?, number(t, "to")?) {
        (Some(f), Some(t)) => (f, t),
        _ => return Err("a range needs both `from` and `to`".into()),
    };
    let (by, geometric) = match (number(t, "step")?, number(t, "mul")?) {
        (Some(s), None) => (s, false),
        (None, Some(m)) => (m, true),
        _ => return Err("a range needs exactly one of `step` (from, from+step, …) and `mul` (from, from×mul, …)".into()),
    };
    if to.0 < from.0 {
        return Err(format!("range `to` ({}) is below `from` ({})", to.0, from.0));
    }
    if geometric && (by.0 <= 1.0 || from.0 <= 0.0) {
        return Err(format!("a geometric range needs `mul` > 1 and `from` > 0 (mul = {}, from = {})", by.0, from.0));
    }
    if !geometric && by.0 <= 0.0 {
        return Err(format!("range `step` must be positive, not {}", by.0));
    }
    let integers = from.1 && to.1 && by.1;
    let mut out = Vec::new();
    for i in 0.. {
        let x = if geometric { from.0 * by.0.powi(i) } else { from.0 + i as f64 * by.0 };
        if x > to.0 * (1.0 + 1e-12) + 1e-12 {
            break;
        }
        if out.len() == MAX_RANGE {
            return Err(format!("the range has more than {MAX_RANGE} values"));
        }
        // Twelve significant digits hide the rounding of repeated float steps (0.1 + 0.2).
        out.push(if integers { format!("{}", x.round() as i64) } else { format!("{}", format!("{x:.12e}").parse::<f64>().unwrap_or(x)) });
    }
    Ok(out)
}

/// Splits at commas outside brackets and quotes (`[0, 228],[0, 100, 228]` is two values).
fn split_top_level(s: &str) -> Vec<&str> {
    let (mut depth, mut quote, mut start, mut out) = (0i32, None, 0, Vec::new());
    for (i, c) in s.char_indices() {
        match (c, quote) {
            ('"' | '\'', None) => quote = Some(c),
            (c, Some(q)) if c == q => quote = None,
            ('[', None) => depth += 1,
            (']', None) => depth -= 1,
            (',', None) if depth == 0 => {
                out.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&s[start..]);
    out
}

/// A slice of a sweep: the runs whose index mod `count` is `index`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl std::str::FromStr for Shard {
    type Err = SpecError;

    /// `I/N` with `0 ≤ I < N`.
    fn from_str(s: &str) -> Result<Shard, SpecError> {
        let bad = |why: &str| spec_error(format!("--shard {s}"), format!("{why}: expected I/N with 0 ≤ I < N, e.g. 0/4"));
        let (i, n) = s.split_once('/').ok_or_else(|| bad("no `/`"))?;
        let (index, count): (usize, usize) = match (i.trim().parse(), n.trim().parse()) {
            (Ok(i), Ok(n)) => (i, n),
            _ => return Err(bad("not two non-negative integers")),
        };
        if count == 0 || index >= count {
            return Err(bad(&format!("shard {index} of {count} does not exist")));
        }
        Ok(Shard { index, count })
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Spec, SpecError> {
        Spec::from_toml(text, "study.toml")
    }

    #[test]
    fn lists_ranges_fixed_and_baseline() {
        let s = parse(
            "title = \"t\"\narch = [\"hopper-h200\", \"ampere-ga100\"]\nworkloads = \"vector_add\"\n[sweep]\n\
             l2.size_kib = {from = 4096, to = 65536, mul = 2}\nsm.sub_partitions = {from=1, to=4, step=1}\n\
             \"sm.scheduler\" = [\"lrr\", \"gto\"]\nclock.sm_mhz = {from = 1000.0, to = 1000.3, step = 0.1}\n\
             [set]\ndram.channels = 8\n[baseline]\nl2.size_kib = 65536\n",
        )
        .unwrap();
        assert_eq!(s.title, "t");
        assert_eq!(s.archs, ["hopper-h200", "ampere-ga100"]);
        assert_eq!(s.workloads, ["vector_add"]);
        let axes: Vec<(&str, Vec<&str>)> =
            s.axes.iter().map(|a| (a.key.as_str(), a.values.iter().map(String::as_str).collect())).collect();
        assert_eq!(
            axes,
            [
                ("l2.size_kib", vec!["4096", "8192", "16384", "32768", "65536"]),
                ("sm.sub_partitions", vec!["1", "2", "3", "4"]),
                ("sm.scheduler", vec!["lrr", "gto"]),
                ("clock.sm_mhz", vec!["1000", "1000.1", "1000.2", "1000.3"]),
            ]
        );
        assert_eq!(s.fixed, [("dram.channels".to_string(), "8".to_string())]);
        assert_eq!(s.baseline, [("l2.size_kib".to_string(), "65536".to_string())]);
        s.check().unwrap();
        assert_eq!(s.origin("sm.scheduler#1", ""), "study.toml:7:26");
        let s = parse("max_cycles = 1_000_000\ntimeout = 90.5\n").unwrap();
        assert_eq!((s.max_cycles, s.timeout), (Some(1_000_000), Some(std::time::Duration::from_secs_f64(90.5))));
    }

    #[test]
    fn errors_name_file_line_and_key() {
        let cases = [
            ("[sweep]\nl2.size_kib = []\n", "study.toml:2:15", "`l2.size_kib`: the list of values is empty"),
            ("[sweep]\nl2.size_kib = 4096\n", "study.toml:2:15", "a single value goes under [set]"),
            ("[sweep]\nl2.size_kib = {from = 8, to = 4, step = 1}\n", "study.toml:2:15", "below `from`"),
            ("[sweep]\nl2.size_kib = {from = 1, to = 4, step = 0}\n", "study.toml:2:15", "`step` must be positive"),
            ("[sweep]\nl2.size_kib = {from = 1, to = 4, mul = 1}\n", "study.toml:2:15", "`mul` > 1"),
            ("[sweep]\nl2.size_kib = {from = 1, to = 4}\n", "study.toml:2:15", "exactly one of `step`"),
            ("[sweep]\nl2.size_kib = {from = 1, to = 4, stride = 1}\n", "study.toml:2:15", "unknown range field `stride`"),
            ("[sweep]\nl2.size_kib = {from = \"a\", to = 4, step = 1}\n", "study.toml:2:15", "`from` must be a finite number"),
            ("[sweep]\nl2.size_kib = [1, 2, 1]\n", "study.toml:2:22", "value `1` is listed twice"),
            ("[sweep]\nl2.size_kib = [1, {a = 1}]\n", "study.toml:2:15", "`l2.size_kib`: expected a number"),
            ("arch = []\n", "study.toml:1:8", "`arch`: the list is empty"),
            ("arch = [1]\n", "study.toml:1:8", "`arch`: expected strings"),
            ("archs = \"x\"\n", "study.toml:1:1", "unknown setting `archs`"),
            ("sweep = 3\n", "study.toml:1:9", "`sweep` must be a table"),
            ("[sweep]\nl2.size_kib = [1, 2]\n[set]\nl2.size_kib = 3\n", "study.toml:2:15", "both swept and fixed"),
            ("[sweep]\nl2.size_kib = [1, 2]\n[baseline]\nl2.size_kib = 3\n", "study.toml:4:15", "not among its values (1, 2)"),
            ("[baseline]\nsm.count = 3\n", "study.toml:2:12", "baseline `sm.count` is not swept"),
            ("[sweep\n", "study.toml:1:7", ""),
            ("max_cycles = 0\n", "study.toml:1:14", "`max_cycles`: expected a positive whole number"),
            ("max_cycles = 1.5\n", "study.toml:1:14", "`max_cycles`: expected a positive whole number"),
            ("timeout = \"soon\"\n", "study.toml:1:11", "`timeout`: `soon`: expected a positive number of seconds"),
            ("timeout = -1\n", "study.toml:1:11", "`timeout`: `-1`"),
        ];
        for (text, at, want) in cases {
            let e = parse(text).and_then(|s| s.check().map(|_| s)).unwrap_err();
            assert_eq!(e.at, at, "{text}: {e}");
            assert!(e.message.contains(want), "{text}: {e}");
        }
    }

    #[test]
    fn command_line_axes() {
        let mut s = parse("[sweep]\nl2.size_kib = [1, 2]\n").unwrap();
        s.set_axis("l2.size_kib=12288, 24576,49152").unwrap();
        s.set_axis("sm.smem_carveouts_kib=[0, 228],[0, 100, 228]").unwrap();
        assert_eq!(s.axes[0].values, ["12288", "24576", "49152"]);
        assert_eq!(s.axes[1].values, ["[0, 228]", "[0, 100, 228]"]);
        assert_eq!(s.origin("l2.size_kib#2", ""), "--set l2.size_kib=12288, 24576,49152");
        for (arg, want) in [("l2.size_kib=", "empty"), ("l2.size_kib=1,,2", "an empty value"), ("=3", "expected KEY=VALUE"), ("x", "expected KEY=VALUE")] {
            let e = s.set_axis(arg).unwrap_err();
            assert_eq!(e.at, format!("--set {arg}"));
            assert!(e.message.contains(want), "{arg}: {e}");
        }
    }

    #[test]
    fn shards() {
        assert_eq!("1/4".parse::<Shard>().unwrap(), Shard { index: 1, count: 4 });
        for bad in ["4/4", "0/0", "1", "a/b", "-1/2", "1/2/3"] {
            let e = bad.parse::<Shard>().unwrap_err();
            assert!(e.to_string().starts_with(&format!("--shard {bad}: ")) && e.message.contains("I/N"), "{e}");
        }
    }
}
