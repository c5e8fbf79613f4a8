//! Architecture presets and the machinery around them.
//!
//! Thirteen presets (`sim/presets/<name>.toml`, Tesla G80 to Hopper H200) are embedded in the
//! binary: `hopper-h200` is `hopper-h200-datasheet` calibrated against our H200
//! (`warpsim validate calibrate`), the others are datasheet and literature values.
//! Every number in them carries its source in a trailing comment (a test enforces it). A user file
//! is read with [`ArchConfig::from_toml`]; single parameters are changed with [`apply_overrides`]
//! (`--set l2.size_kib=51200`), which works on the preset's own key paths, parses the new value
//! to the type of the old one and validates the result ([`ArchConfig::validate`]). Every error
//! names the key path it is about, with a "did you mean" for near misses.
//!
//! This module reads no files: user TOML arrives as text.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;

use toml::Value;
use warpsim_workloads::line_col;

use crate::config::ArchConfig;

/// The embedded presets, oldest generation first.
const PRESETS: [(&str, &str); 13] = [
    ("tesla-g80", include_str!("../presets/tesla-g80.toml")),
    ("tesla-gt200", include_str!("../presets/tesla-gt200.toml")),
    ("fermi-gf100", include_str!("../presets/fermi-gf100.toml")),
    ("kepler-gk110", include_str!("../presets/kepler-gk110.toml")),
    ("maxwell-gm200", include_str!("../presets/maxwell-gm200.toml")),
    ("pascal-gp100", include_str!("../presets/pascal-gp100.toml")),
    ("volta-gv100", include_str!("../presets/volta-gv100.toml")),
    ("turing-tu102", include_str!("../presets/turing-tu102.toml")),
    ("ampere-ga100", include_str!("../presets/ampere-ga100.toml")),
    ("ada-ad102", include_str!("../presets/ada-ad102.toml")),
    ("hopper-h100", include_str!("../presets/hopper-h100.toml")),
    ("hopper-h200-datasheet", include_str!("../presets/hopper-h200-datasheet.toml")),
    ("hopper-h200", include_str!("../presets/hopper-h200.toml")),
];

const NAMES: [&str; 13] = [
    "tesla-g80",
    "tesla-gt200",
    "fermi-gf100",
    "kepler-gk110",
    "maxwell-gm200",
    "pascal-gp100",
    "volta-gv100",
    "turing-tu102",
    "ampere-ga100",
    "ada-ad102",
    "hopper-h100",
    "hopper-h200-datasheet",
    "hopper-h200",
];

/// Everything that can go wrong loading, overriding or validating a configuration. Every variant
/// about a parameter names its key path (`l1.sector`).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ConfigError {
    #[error("unknown preset `{name}`{}; the presets are: {}", did_you_mean(.suggestion), .available.join(", "))]
    UnknownPreset { name: String, suggestion: Option<String>, available: Vec<String> },

    /// A problem in a TOML text, located by line and column (1-based).
    #[error("{origin}:{line}:{column}: {message}")]
    Toml { origin: String, line: usize, column: usize, key: Option<String>, message: String },

    #[error("unknown key `{key}`{}", did_you_mean(.suggestion))]
    UnknownKey { key: String, suggestion: Option<String> },

    #[error("`{key}` is a table, not a value; set one of its keys: {}", .children.join(", "))]
    NotAValue { key: String, children: Vec<String> },

    #[error("`{key}` expects {expected}, but `{given}` is not one")]
    WrongType { key: String, expected: String, given: String },

    #[error("`{text}` is not an override: expected KEY=VALUE, e.g. `l2.size_kib=51200`")]
    BadOverride { text: String },

    #[error("invalid `{key}` = {value}: {reason}")]
    Invalid { key: String, value: String, reason: String },

    /// The base document of [`apply_overrides`] is not an `ArchConfig` at all.
    #[error("the base configuration does not describe an ArchConfig: {message}")]
    BadBase { message: String },
}

impl ConfigError {
    /// The key path the error is about, when there is one.
    pub fn key(&self) -> Option<&str> {
        match self {
            ConfigError::Toml { key, .. } => key.as_deref(),
            ConfigError::UnknownKey { key, .. }
            | ConfigError::NotAValue { key, .. }
            | ConfigError::WrongType { key, .. }
            | ConfigError::Invalid { key, .. } => Some(key),
            _ => None,
        }
    }
}

fn did_you_mean(s: &Option<String>) -> String {
    match s {
        Some(s) => format!(" (did you mean `{s}`?)"),
        None => String::new(),
    }
}

// ---------------------------------------------------------------------------------------------
// Presets

/// Names of the embedded presets, oldest generation first.
pub fn preset_names() -> &'static [&'static str] {
    &NAMES
}

/// The TOML text of an embedded preset, comments included.
pub fn preset_source(name: &str) -> Option<&'static str> {
    PRESETS.iter().find(|(n, _)| *n == name).map(|(_, text)| *text)
}

fn unknown_preset(name: &str) -> ConfigError {
    ConfigError::UnknownPreset {
        name: name.to_string(),
        suggestion: closest(name, NAMES.iter().copied()),
        available: NAMES.iter().map(|s| s.to_string()).collect(),
    }
}

/// An embedded preset, parsed and validated.
pub fn preset(name: &str) -> Result<ArchConfig, ConfigError> {
    let text = preset_source(name).ok_or_else(|| unknown_preset(name))?;
    ArchConfig::from_toml(text, &format!("preset {name}"))
}

/// An embedded preset as a TOML value tree: the base for [`apply_overrides`].
pub fn preset_value(name: &str) -> Result<Value, ConfigError> {
    Ok(preset(name)?.to_value())
}

/// An embedded preset with `--set` style overrides applied, validated.
pub fn preset_with_overrides<K: AsRef<str>, V: AsRef<str>>(
    name: &str,
    overrides: &[(K, V)],
) -> Result<ArchConfig, ConfigError> {
    apply_overrides(&preset_value(name)?, overrides)
}

/// Splits one `--set` argument, `KEY=VALUE`, at its first `=`.
pub fn parse_set(text: &str) -> Result<(String, String), ConfigError> {
    match text.split_once('=') {
        Some((k, v)) if !k.trim().is_empty() => Ok((k.trim().to_string(), v.trim().to_string())),
        _ => Err(ConfigError::BadOverride { text: text.to_string() }),
    }
}

// ---------------------------------------------------------------------------------------------
// Key paths

/// The shape of an `ArchConfig` document: its leaf key paths and the tables above them.
struct Schema {
    leaves: Vec<String>,
    tables: BTreeSet<String>,
}

fn schema() -> &'static Schema {
    static SCHEMA: OnceLock<Schema> = OnceLock::new();
    SCHEMA.get_or_init(|| {
        let mut leaves: Vec<String> = crate::params::table().iter().map(|p| p.key.clone()).collect();
        leaves.sort();
        let tables = leaves
            .iter()
            .flat_map(|l| l.match_indices('.').map(move |(i, _)| l[..i].to_string()))
            .collect();
        Schema { leaves, tables }
    })
}

/// Every leaf key path of an `ArchConfig` (`sm.count`, `pipes.fp32.lanes`, …), sorted.
pub fn key_paths() -> Vec<String> {
    schema().leaves.clone()
}

/// Calls `f` on every node of a value tree (tables included) with its dotted path.
fn walk(v: &Value, path: &str, f: &mut dyn FnMut(&str, &Value)) {
    f(path, v);
    if let Value::Table(t) = v {
        for (k, child) in t {
            let p = if path.is_empty() { k.clone() } else { format!("{path}.{k}") };
            walk(child, &p, f);
        }
    }
}

/// Leaf paths and their values, sorted by path.
pub(crate) fn flatten(v: &Value) -> BTreeMap<String, Value> {
    let mut out = BTreeMap::new();
    walk(v, "", &mut |path, v| {
        if !matches!(v, Value::Table(_)) {
            out.insert(path.to_string(), v.clone());
        }
    });
    out
}

/// The candidate closest to `given`, if it is close enough to be a plausible typo.
fn closest<'a>(given: &str, candidates: impl Iterator<Item = &'a str> + Clone) -> Option<String> {
    let g = given.trim().to_ascii_lowercase();
    if g.is_empty() {
        return None;
    }
    if let Some(c) = candidates.clone().find(|c| c.to_ascii_lowercase() == g) {
        return Some(c.to_string());
    }
    // The last segment alone (`count` → `sm.count`) or a prefix (`l2.size` → `l2.size_kib`).
    let last = g.rsplit('.').next().unwrap_or(&g).to_string();
    let mut by_suffix: Vec<&str> =
        candidates.clone().filter(|c| c.rsplit('.').next() == Some(last.as_str())).collect();
    if by_suffix.len() == 1 {
        return by_suffix.pop().map(str::to_string);
    }
    if let Some(c) = candidates.clone().filter(|c| c.starts_with(g.as_str())).min_by_key(|c| c.len()) {
        return Some(c.to_string());
    }
    // A unique candidate containing the text (`h100` → `hopper-h100`).
    let mut containing = candidates.clone().filter(|c| c.contains(g.as_str()));
    if let (Some(c), None) = (containing.next(), containing.next()) {
        return Some(c.to_string());
    }
    let best =
        candidates.map(|c| (levenshtein(&g, &c.to_ascii_lowercase()), c)).min_by_key(|(d, c)| (*d, c.len()));
    match best {
        Some((d, c)) if d <= (g.chars().count() / 3).max(1) => Some(c.to_string()),
        _ => None,
    }
}

fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

// ---------------------------------------------------------------------------------------------
// Reading TOML

type DeTable<'i> = toml::de::DeTable<'i>;
type DeValue<'i> = toml::de::DeValue<'i>;

/// The span of the value at `path` in a parsed document, or of its deepest existing ancestor.
fn span_of(doc: &DeTable<'_>, path: &str) -> Option<std::ops::Range<usize>> {
    let mut table = doc;
    let mut found = None;
    for seg in path.split('.') {
        let (_, v) = table.iter().find(|(k, _)| k.get_ref().as_ref() == seg)?;
        found = Some(v.span());
        match v.get_ref() {
            DeValue::Table(t) => table = t,
            _ => break,
        }
    }
    found
}

/// The key path whose key or value contains byte offset `at`, deepest first.
fn path_at(doc: &DeTable<'_>, at: usize) -> Option<String> {
    fn inner(t: &DeTable<'_>, at: usize, prefix: &str) -> Option<String> {
        for (k, v) in t.iter() {
            let (ks, vs) = (k.span(), v.span());
            let path =
                if prefix.is_empty() { k.get_ref().to_string() } else { format!("{prefix}.{}", k.get_ref()) };
            if let DeValue::Table(child) = v.get_ref() {
                if let Some(p) = inner(child, at, &path) {
                    return Some(p);
                }
            }
            if ks.contains(&at) || vs.contains(&at) {
                return Some(path);
            }
        }
        None
    }
    inner(doc, at, "")
}

/// Unknown and missing keys of a document, against the schema. Returns the first problem.
fn check_shape(doc: &DeTable<'_>) -> Option<(String, Option<std::ops::Range<usize>>, String)> {
    let schema = schema();
    let mut seen = BTreeSet::new();
    fn visit(
        t: &DeTable<'_>,
        prefix: &str,
        schema: &Schema,
        seen: &mut BTreeSet<String>,
    ) -> Option<(String, Option<std::ops::Range<usize>>, String)> {
        for (k, v) in t.iter() {
            let path =
                if prefix.is_empty() { k.get_ref().to_string() } else { format!("{prefix}.{}", k.get_ref()) };
            if schema.leaves.contains(&path) {
                seen.insert(path);
            } else if schema.tables.contains(&path) {
                if let DeValue::Table(child) = v.get_ref() {
                    if let Some(p) = visit(child, &path, schema, seen) {
                        return Some(p);
                    }
                } else {
                    let msg = format!("`{path}` must be a table");
                    return Some((path, Some(v.span()), msg));
                }
            } else {
                let known = schema.leaves.iter().chain(schema.tables.iter());
                let s = closest(&path, known.map(String::as_str));
                let msg = format!("unknown key `{path}`{}", did_you_mean(&s));
                return Some((path, Some(k.span()), msg));
            }
        }
        None
    }
    if let Some(p) = visit(doc, "", schema, &mut seen) {
        return Some(p);
    }
    // `machine_ops` lists only the classes a preset fits; the rest keep their defaults.
    schema.leaves.iter().find(|l| !seen.contains(*l) && !l.starts_with("machine_ops.")).map(|l| {
        let parent = l.rsplit_once('.').map(|(p, _)| p).unwrap_or("");
        let span = if parent.is_empty() { None } else { span_of(doc, parent) };
        (l.clone(), span, format!("missing key `{l}`"))
    })
}

impl ArchConfig {
    /// Parses and validates a configuration written in TOML (a preset or a user's file).
    /// `origin` names the text in errors (a file name); errors carry line, column and key path.
    pub fn from_toml(text: &str, origin: &str) -> Result<ArchConfig, ConfigError> {
        let at = |span: Option<std::ops::Range<usize>>, key: Option<String>, message: String| {
            let (line, column) = span.map(|s| line_col(text, s.start)).unwrap_or((1, 1));
            ConfigError::Toml { origin: origin.to_string(), line, column, key, message }
        };
        let doc =
            toml::de::DeTable::parse(text).map_err(|e| at(e.span(), None, e.message().trim().to_string()))?;
        let doc = doc.get_ref();
        if let Some((key, span, message)) = check_shape(doc) {
            return Err(at(span, Some(key), message));
        }
        let cfg: ArchConfig = toml::from_str(text).map_err(|e| {
            let key = e.span().and_then(|s| path_at(doc, s.start));
            let message = match &key {
                Some(k) => format!("`{k}`: {}", e.message().trim()),
                None => e.message().trim().to_string(),
            };
            at(e.span(), key, message)
        })?;
        cfg.validate().map_err(|e| {
            let key = e.key().map(str::to_string);
            let span = key.as_deref().and_then(|k| span_of(doc, k));
            at(span, key, e.to_string())
        })?;
        Ok(cfg)
    }

    /// The configuration as a TOML value tree (the base for [`apply_overrides`]).
    pub fn to_value(&self) -> Value {
        Value::try_from(self).unwrap_or(Value::Table(Default::default()))
    }
}

/// The fully resolved configuration of a run (gem5's `config.ini`): every key, overrides
/// applied, as a TOML file that `--arch FILE` reads back, under a comment saying what it is.
pub fn dump_config(cfg: &ArchConfig, what: &str) -> String {
    format!(
        "# The fully resolved configuration of {what} (warpsim {}, timing revision {}): every key,\n# overrides applied; `warpsim run --arch THIS_FILE` reproduces it.\n{}",
        env!("CARGO_PKG_VERSION"),
        crate::TIMING_REVISION,
        to_toml(cfg)
    )
}

/// The configuration as a TOML document (no source comments: those live in the preset files).
pub fn to_toml(cfg: &ArchConfig) -> String {
    toml::to_string(cfg).unwrap_or_else(|e| format!("# cannot serialize: {e}\n"))
}

// ---------------------------------------------------------------------------------------------
// Overrides

/// What an override of `key` must be, from the parameter table.
fn describe_type(key: &str) -> String {
    crate::params::describe_type(key).unwrap_or_else(|| "a value of the type the key has".to_string())
}

/// Parses `text` to the type of `old`.
fn parse_like(key: &str, old: &Value, text: &str) -> Result<Value, ConfigError> {
    let wrong = || ConfigError::WrongType {
        key: key.to_string(),
        expected: describe_type(key),
        given: text.to_string(),
    };
    let t = text.trim();
    match old {
        Value::Integer(_) => {
            let digits: String = t.chars().filter(|c| *c != '_').collect();
            digits.parse::<i64>().map(Value::Integer).map_err(|_| wrong())
        }
        Value::Float(_) => {
            let digits: String = t.chars().filter(|c| *c != '_').collect();
            match digits.parse::<f64>() {
                Ok(x) if x.is_finite() => Ok(Value::Float(x)),
                _ => Err(wrong()),
            }
        }
        Value::Boolean(_) => match t {
            "true" => Ok(Value::Boolean(true)),
            "false" => Ok(Value::Boolean(false)),
            _ => Err(wrong()),
        },
        Value::String(_) => {
            let unquoted = t
                .strip_prefix('"')
                .and_then(|s| s.strip_suffix('"'))
                .or_else(|| t.strip_prefix('\'').and_then(|s| s.strip_suffix('\'')))
                .unwrap_or(t);
            Ok(Value::String(unquoted.to_string()))
        }
        Value::Array(old_items) => {
            let body = if t.starts_with('[') { t.to_string() } else { format!("[{t}]") };
            let doc: toml::Table = format!("v = {body}").parse().map_err(|_| wrong())?;
            let Some(Value::Array(items)) = doc.get("v") else { return Err(wrong()) };
            let mut out = Vec::with_capacity(items.len());
            for item in items {
                let item = match (old_items.first(), item) {
                    (Some(Value::Float(_)), Value::Integer(i)) => Value::Float(*i as f64),
                    (Some(proto), item) if !proto.same_type(item) => return Err(wrong()),
                    (None, Value::Table(_) | Value::Array(_)) => return Err(wrong()),
                    (_, item) => item.clone(),
                };
                out.push(item);
            }
            Ok(Value::Array(out))
        }
        _ => Err(wrong()),
    }
}

/// The part of a serde message after "expected", if it lists the accepted values.
fn serde_expectation(message: &str) -> Option<String> {
    message.split_once("expected one of ").map(|(_, rest)| format!("one of {}", rest.trim()))
}

/// Applies `--set` overrides (key path, value text) to a configuration given as a TOML value tree
/// (from [`preset_value`] or [`ArchConfig::to_value`]), then deserializes and validates the result.
///
/// Each value is parsed to the type of the value it replaces. Errors name the key path: an unknown
/// path comes with the closest existing one, a wrong type with the expected type and the text.
pub fn apply_overrides<K: AsRef<str>, V: AsRef<str>>(
    base: &Value,
    overrides: &[(K, V)],
) -> Result<ArchConfig, ConfigError> {
    let mut doc = base.clone();
    doc.clone()
        .try_into::<ArchConfig>()
        .map_err(|e| ConfigError::BadBase { message: e.message().trim().to_string() })?;
    let leaves: Vec<String> = flatten(base).into_keys().collect();
    let unknown = |key: &str| ConfigError::UnknownKey {
        key: key.to_string(),
        suggestion: closest(key, leaves.iter().map(String::as_str)),
    };

    for (key, text) in overrides {
        let key = key.as_ref().trim();
        let text = text.as_ref();
        let mut segments = key.split('.').peekable();
        let mut slot = &mut doc;
        while let Some(seg) = segments.next() {
            let Value::Table(t) = slot else { return Err(unknown(key)) };
            let Some(child) = t.get_mut(seg) else { return Err(unknown(key)) };
            slot = child;
            if segments.peek().is_some() && !matches!(slot, Value::Table(_)) {
                return Err(unknown(key));
            }
        }
        if let Value::Table(t) = slot {
            let children = t.keys().map(|k| format!("{key}.{k}")).collect();
            return Err(ConfigError::NotAValue { key: key.to_string(), children });
        }
        let old = slot.clone();
        *slot = parse_like(key, &old, text)?;
        // Deserialize now, so that a value the type rejects (negative, too large, unknown
        // variant, wrong array length) is blamed on this key.
        if let Err(e) = doc.clone().try_into::<ArchConfig>() {
            let expected = serde_expectation(e.message()).unwrap_or_else(|| describe_type(key));
            return Err(ConfigError::WrongType { key: key.to_string(), expected, given: text.to_string() });
        }
    }
    let cfg: ArchConfig =
        doc.try_into().map_err(|e| ConfigError::BadBase { message: e.message().trim().to_string() })?;
    cfg.validate()?;
    Ok(cfg)
}

// ---------------------------------------------------------------------------------------------
// Diff

/// A value as diffs and errors show it: strings bare, arrays bracketed.
pub(crate) fn render(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(a) => format!("[{}]", a.iter().map(render).collect::<Vec<_>>().join(", ")),
        other => other.to_string(),
    }
}

/// The parameters that differ between two configurations: (key path, value in `a`, value in `b`),
/// sorted by key path.
pub fn diff(a: &ArchConfig, b: &ArchConfig) -> Vec<(String, String, String)> {
    let (fa, fb) = (flatten(&a.to_value()), flatten(&b.to_value()));
    let keys: BTreeSet<&String> = fa.keys().chain(fb.keys()).collect();
    keys.into_iter()
        .filter_map(|k| {
            let (va, vb) = (fa.get(k), fb.get(k));
            if va == vb {
                return None;
            }
            let show = |v: Option<&Value>| v.map(render).unwrap_or_else(|| "-".to_string());
            Some((k.clone(), show(va), show(vb)))
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Validation

impl ArchConfig {
    /// Checks the ranges and relations the timing model relies on, as the parameter table
    /// ([`crate::params`]) declares them. The first problem found is returned, naming its key path.
    pub fn validate(&self) -> Result<(), ConfigError> {
        crate::params::validate(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Coalescing, SchedulerPolicy};
    use crate::params::GENERATIONS;
    use proptest::prelude::*;

    fn set(name: &str, overrides: &[(&str, &str)]) -> Result<ArchConfig, ConfigError> {
        preset_with_overrides(name, overrides)
    }

    #[test]
    fn every_preset_loads_and_validates() {
        assert_eq!(preset_names().len(), 13);
        for name in preset_names() {
            let cfg = preset(name).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(cfg.name, *name, "the name inside {name}.toml");
            cfg.validate().unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    }

    #[test]
    fn every_number_in_a_preset_has_a_source_comment() {
        for (name, text) in PRESETS {
            for (i, line) in text.lines().enumerate() {
                let l = line.trim();
                if l.is_empty() || l.starts_with('#') || l.starts_with('[') {
                    continue;
                }
                let Some((_, rest)) = l.split_once('=') else { continue };
                // the value ends at the first `#` outside a string
                let mut in_str = false;
                let mut comment = None;
                for (j, ch) in rest.char_indices() {
                    match ch {
                        '"' => in_str = !in_str,
                        '#' if !in_str => {
                            comment = Some(&rest[j + 1..]);
                            break;
                        }
                        _ => {}
                    }
                }
                let value = rest.split('#').next().unwrap_or("").trim();
                let numeric = !value.starts_with('"') && value.chars().any(|c| c.is_ascii_digit());
                if numeric {
                    let ok = comment.map(|c| c.trim().len() >= 3).unwrap_or(false);
                    assert!(ok, "{name}.toml:{}: a number without a source comment: {line}", i + 1);
                }
            }
        }
    }

    #[test]
    fn presets_round_trip_through_to_toml() {
        for name in preset_names() {
            let cfg = preset(name).unwrap();
            let back = ArchConfig::from_toml(&to_toml(&cfg), "round trip").unwrap();
            assert_eq!(back, cfg, "{name}");
        }
    }

    #[test]
    fn a_dumped_config_reads_back_equal() {
        let c = set("ampere-ga100", &[("l2.size_kib", "20480"), ("sm.scheduler", "gto")]).unwrap();
        let text = dump_config(&c, "a test");
        assert!(text.starts_with("# The fully resolved configuration of a test"), "{text}");
        assert_eq!(ArchConfig::from_toml(&text, "dump").unwrap(), c);
    }

    #[test]
    fn hopper_h200_matches_the_device() {
        let c = preset("hopper-h200").unwrap();
        assert_eq!(c.generation, "hopper");
        assert_eq!(c.compute_capability, [9, 0]);
        assert_eq!(c.sm.count, 132);
        assert_eq!(c.l2.size_kib, 61440);
        assert_eq!(c.sm.smem_kib, 228);
        assert_eq!(c.sm.smem_per_cta_kib, 227);
        assert_eq!(c.sm.smem_reserved_per_cta, 1024);
        assert_eq!(c.sm.smem_carveouts_kib.last(), Some(&228));
        assert_eq!(c.sm.unified_l1_kib, 256);
        assert_eq!(c.sm.registers, 65536);
        assert_eq!(c.sm.max_warps, 64);
        assert_eq!(c.sm.max_ctas, 32);
        assert_eq!(c.sm.max_threads, 2048);
        assert_eq!(c.sm.sub_partitions, 4);
        assert!((c.clock.sm_mhz - 1980.0).abs() < 1.0);
        // Latencies: the datasheet preset's from hardware-figures.md §5, the calibrated one's
        // (fitted in SASS mode, where a chase is the bare load chain) within the ranges measured
        // on the H200 (L1 30–41: the dependent LDG chain of validate/data/h200/micro 32.0; L2
        // 260–290, DRAM 480–670 cycles).
        let d = preset("hopper-h200-datasheet").unwrap();
        assert!((38..=41).contains(&d.l1.latency), "L1 {}", d.l1.latency);
        assert!((258..=272).contains(&d.l2.hit_latency), "L2 {}", d.l2.hit_latency);
        assert!((480..=660).contains(&d.dram.latency), "DRAM {}", d.dram.latency);
        assert!((30..=41).contains(&c.l1.latency), "L1 {}", c.l1.latency);
        assert!((260..=290).contains(&c.l2.hit_latency), "L2 {}", c.l2.hit_latency);
        assert!((480..=670).contains(&c.dram.latency), "DRAM {}", c.dram.latency);
        // Calibrated on smem_stride_1, whose launch and stores move it a little: within two
        // cycles of the H200's dependent LDS chain (micro_smem_ways_1: 23.0 cycles per hop; the
        // literature's 28.6–29.9 are chases with their address arithmetic).
        assert!((21..=25).contains(&c.smem.latency), "shared {}", c.smem.latency);
        assert_eq!((c.smem.banks, c.smem.bank_bytes), (32, 4));
        assert_eq!(c.pipes.fp32.latency, 4);
        assert_eq!(c.pipes.fp64.latency, 8);
        assert_eq!((c.pipes.fp32.lanes, c.pipes.int.lanes, c.pipes.fp64.lanes), (32, 16, 16));
        assert_eq!((c.pipes.sfu.lanes, c.pipes.lsu.lanes), (4, 8));
        assert!((3800.0..=4800.0).contains(&d.dram.bandwidth_gbs), "datasheet {}", d.dram.bandwidth_gbs);
        // Calibrated to stream_copy_vec4 (64 MiB copied by one wave of CTAs): the sustained bandwidth.
        assert!((2000.0..=4800.0).contains(&c.dram.bandwidth_gbs), "calibrated {}", c.dram.bandwidth_gbs);
        assert!(c.features.tma && c.features.clusters && c.features.wgmma);
    }

    #[test]
    fn volta_gv100_carries_the_volta_figures() {
        let c = preset("volta-gv100").unwrap();
        assert!((28..=34).contains(&c.l1.latency), "L1 {}", c.l1.latency);
        assert!((19..=27).contains(&c.smem.latency), "smem {}", c.smem.latency);
        assert!((193..=215).contains(&c.l2.hit_latency), "L2 {}", c.l2.hit_latency);
        assert!((300..=440).contains(&c.dram.latency), "DRAM {}", c.dram.latency);
        assert!(c.features.tensor_cores && !c.features.ldmatrix);
    }

    #[test]
    fn generation_features_and_memory_rules() {
        let order = |g: &str| GENERATIONS.iter().position(|x| *x == g).unwrap();
        for name in preset_names() {
            let c = preset(name).unwrap();
            let g = order(&c.generation);
            let f = c.features;
            assert_eq!(f.shuffle, g >= order("kepler"), "{name} shuffle");
            assert_eq!(f.warp_vote, g >= order("fermi"), "{name} warp_vote");
            assert_eq!(f.float_atomics, g >= order("fermi"), "{name} float_atomics");
            assert_eq!(f.tensor_cores, g >= order("volta"), "{name} tensor_cores");
            assert_eq!(f.ldmatrix, g >= order("turing"), "{name} ldmatrix");
            assert_eq!(f.cp_async, g >= order("ampere"), "{name} cp_async");
            assert_eq!(f.redux, g >= order("ampere"), "{name} redux");
            for (flag, what) in [(f.tma, "tma"), (f.clusters, "clusters"), (f.wgmma, "wgmma")] {
                assert_eq!(flag, g >= order("hopper"), "{name} {what}");
            }
            assert_eq!(f.l1_caches_global, g >= order("fermi"), "{name} l1_caches_global");
            let tesla = c.generation == "tesla";
            assert_eq!(c.smem.half_warp, tesla, "{name} half_warp");
            assert_eq!(c.smem.banks, if tesla { 16 } else { 32 }, "{name} banks");
            assert_eq!(c.smem.bank_bytes, if c.generation == "kepler" { 8 } else { 4 }, "{name}");
        }
        assert_eq!(preset("tesla-g80").unwrap().coalescing, Coalescing::HalfWarpStrict);
        assert_eq!(preset("tesla-gt200").unwrap().coalescing, Coalescing::HalfWarpSegments);
        assert_eq!(preset("fermi-gf100").unwrap().coalescing, Coalescing::Sectors);
        assert_eq!(preset("kepler-gk110").unwrap().sm.issue_width, 2);
    }

    #[test]
    fn unknown_preset_lists_names_and_suggests() {
        let e = preset("hopper-h20").unwrap_err();
        let ConfigError::UnknownPreset { suggestion, available, .. } = &e else { panic!("{e}") };
        assert_eq!(suggestion.as_deref(), Some("hopper-h200"));
        assert_eq!(available.len(), 13);
        let msg = e.to_string();
        assert!(msg.contains("did you mean `hopper-h200`") && msg.contains("tesla-g80"), "{msg}");
        let e = preset("h100").unwrap_err();
        assert!(e.to_string().contains("did you mean `hopper-h100`"), "{e}");
    }

    #[test]
    fn set_sm_count() {
        let (k, v) = parse_set("sm.count=64").unwrap();
        let c = set("hopper-h200", &[(k.as_str(), v.as_str())]).unwrap();
        assert_eq!(c.sm.count, 64);
        let base = preset("hopper-h200").unwrap();
        assert_eq!(diff(&base, &c), vec![("sm.count".to_string(), "132".to_string(), "64".to_string())]);
    }

    #[test]
    fn set_several_types() {
        let c = set(
            "hopper-h200",
            &[
                ("l2.size_kib", "51200"),
                ("clock.sm_mhz", "1755"),
                ("features.tma", "false"),
                ("features.clusters", "false"),
                ("features.wgmma", "false"),
                ("sm.scheduler", "gto"),
                ("sm.smem_carveouts_kib", "[0, 100, 228]"),
                ("l2.sectors_per_cycle_per_slice", "2"),
                ("description", "what if"),
            ],
        )
        .unwrap();
        assert_eq!(c.l2.size_kib, 51200);
        assert_eq!(c.clock.sm_mhz, 1755.0);
        assert!(!c.features.tma);
        assert_eq!(c.sm.scheduler, SchedulerPolicy::Gto);
        assert_eq!(c.sm.smem_carveouts_kib, vec![0, 100, 228]);
        assert_eq!(c.l2.sectors_per_cycle_per_slice, 2.0);
        assert_eq!(c.description, "what if");
        let c = set("hopper-h200", &[("sm.smem_carveouts_kib", "0, 228")]).unwrap();
        assert_eq!(c.sm.smem_carveouts_kib, vec![0, 228]);
    }

    #[test]
    fn set_unknown_key_suggests() {
        let e = set("hopper-h200", &[("sm.cont", "64")]).unwrap_err();
        assert_eq!(e, ConfigError::UnknownKey { key: "sm.cont".into(), suggestion: Some("sm.count".into()) });
        assert!(e.to_string().contains("did you mean `sm.count`"), "{e}");
        for (given, want) in
            [("l2.size", "l2.size_kib"), ("count", "sm.count"), ("pipes.fp32.lane", "pipes.fp32.lanes")]
        {
            let e = set("hopper-h200", &[(given, "1")]).unwrap_err();
            assert_eq!(e.key(), Some(given));
            assert!(e.to_string().contains(want), "{given}: {e}");
        }
        let e = set("hopper-h200", &[("pipes.fp32", "1")]).unwrap_err();
        assert!(matches!(e, ConfigError::NotAValue { .. }), "{e}");
        assert!(e.to_string().contains("pipes.fp32.lanes"), "{e}");
        let e = set("hopper-h200", &[("sm.count.x", "1")]).unwrap_err();
        assert!(matches!(e, ConfigError::UnknownKey { .. }), "{e}");
    }

    #[test]
    fn set_wrong_type_names_key_type_and_text() {
        let e = set("hopper-h200", &[("sm.count", "abc")]).unwrap_err();
        assert_eq!(e.key(), Some("sm.count"));
        let msg = e.to_string();
        assert!(msg.contains("sm.count") && msg.contains("integer") && msg.contains("abc"), "{msg}");
        for (k, v, want) in [
            ("sm.count", "-1", "integer"),
            ("sm.count", "99999999999", "integer"),
            ("clock.sm_mhz", "fast", "number"),
            ("features.tma", "yes", "true"),
            ("sm.scheduler", "fifo", "gto"),
            ("coalescing", "none", "sectors"),
            ("compute_capability", "[9]", "two"),
            ("sm.smem_carveouts_kib", "[1.5]", "integer"),
        ] {
            let e = set("hopper-h200", &[(k, v)]).unwrap_err();
            assert!(matches!(e, ConfigError::WrongType { .. }), "{k}={v}: {e}");
            assert_eq!(e.key(), Some(k));
            assert!(e.to_string().contains(want), "{k}={v}: {e}");
        }
    }

    #[test]
    fn set_invalid_values_fail_validation_naming_the_key() {
        let e = set("hopper-h200", &[("l1.sector", "48")]).unwrap_err();
        assert!(matches!(e, ConfigError::Invalid { .. }), "{e}");
        assert_eq!(e.key(), Some("l1.sector"));
        assert!(e.to_string().contains("l1.sector"), "{e}");
        for (k, v) in [
            ("sm.count", "0"),
            ("smem.banks", "24"),
            ("l1.sector", "256"),
            ("pipes.fp32.lanes", "48"),
            ("sm.smem_per_cta_kib", "300"),
            ("sm.smem_kib", "300"),
            ("clock.sm_mhz", "0"),
            ("sm.smem_carveouts_kib", "[0, 228, 100]"),
            ("sm.smem_carveouts_kib", "[0, 100]"),
            ("dram.latency", "100"),
            ("generation", "blackwell"),
            // Bounds: what the model would allocate, or overflow on.
            ("sm.count", "100000"),
            ("l2.size_kib", "4294967295"),
            ("dram.banks", "4294967295"),
            ("dram.channels", "1025"),
            ("sm.max_warps", "5000"),
            ("dram.latency", "1000001"),
            ("pipes.fp32.latency", "4000000000"),
            ("misc.launch_overhead", "2000000"),
            ("dram.row_miss_penalty", "4294967295"),
            ("dram.bandwidth_gbs", "1e-300"),
            ("dram.bandwidth_gbs", "1e300"),
            ("clock.sm_mhz", "0.000001"),
            ("l2.sectors_per_cycle_per_slice", "1e-9"),
        ] {
            let e = set("hopper-h200", &[(k, v)]).unwrap_err();
            assert!(matches!(e, ConfigError::Invalid { .. }), "{k}={v}: {e}");
            assert!(e.key().is_some(), "{k}={v}: {e}");
        }
    }

    #[test]
    fn parse_set_rejects_malformed() {
        assert!(matches!(parse_set("sm.count"), Err(ConfigError::BadOverride { .. })));
        assert!(matches!(parse_set("=3"), Err(ConfigError::BadOverride { .. })));
        assert_eq!(parse_set(" l2.size_kib = 51200 ").unwrap(), ("l2.size_kib".into(), "51200".into()));
    }

    #[test]
    fn diff_h100_h200_lists_memory_differences() {
        let d = diff(&preset("hopper-h100").unwrap(), &preset("hopper-h200").unwrap());
        let keys: Vec<&str> = d.iter().map(|(k, _, _)| k.as_str()).collect();
        for k in ["name", "l2.size_kib", "l2.slices", "dram.channels", "dram.bandwidth_gbs"] {
            assert!(keys.contains(&k), "missing {k} in {keys:?}");
        }
        assert!(!keys.contains(&"sm.count"), "{keys:?}");
        assert!(!keys.contains(&"smem.banks"), "{keys:?}");
        assert!(d.iter().any(|(k, a, b)| k == "l2.size_kib" && a == "51200" && b == "61440"), "{d:?}");
        assert!(diff(&preset("hopper-h200").unwrap(), &preset("hopper-h200").unwrap()).is_empty());
    }

    #[test]
    fn from_toml_errors_carry_line_column_and_key() {
        let good = preset_source("hopper-h200").unwrap();
        // syntax error
        let bad = good.replacen("count = 132", "count = = 132", 1);
        let e = ArchConfig::from_toml(&bad, "my.toml").unwrap_err();
        let ConfigError::Toml { origin, line, .. } = &e else { panic!("{e}") };
        assert_eq!(origin, "my.toml");
        let want_line = good.lines().position(|l| l.starts_with("count = 132")).unwrap() + 1;
        assert_eq!(*line, want_line, "{e}");
        assert!(e.to_string().starts_with(&format!("my.toml:{want_line}:")), "{e}");
        // unknown key, with a suggestion and its position
        let bad = good.replacen("count = 132", "cont = 132", 1);
        let e = ArchConfig::from_toml(&bad, "my.toml").unwrap_err();
        assert_eq!(e.key(), Some("sm.cont"));
        assert!(e.to_string().contains(&format!("my.toml:{want_line}:1:")), "{e}");
        assert!(e.to_string().contains("sm.count"), "{e}");
        // missing key
        let bad = good.replacen("count = 132", "", 1);
        let e = ArchConfig::from_toml(&bad, "my.toml").unwrap_err();
        assert_eq!(e.key(), Some("sm.count"), "{e}");
        // wrong type
        let bad = good.replacen("count = 132", "count = \"many\"", 1);
        let e = ArchConfig::from_toml(&bad, "my.toml").unwrap_err();
        assert_eq!(e.key(), Some("sm.count"), "{e}");
        assert!(e.to_string().contains(&format!("my.toml:{want_line}:")), "{e}");
        // fails validation
        let bad = good.replacen("count = 132", "count = 0", 1);
        let e = ArchConfig::from_toml(&bad, "my.toml").unwrap_err();
        assert_eq!(e.key(), Some("sm.count"), "{e}");
        assert!(e.to_string().contains(&format!("my.toml:{want_line}:")), "{e}");
    }

    #[test]
    fn key_paths_cover_the_struct() {
        let paths = key_paths();
        for k in [
            "sm.count",
            "l2.size_kib",
            "pipes.fp32.lanes",
            "pipes.tensor.latency",
            "features.tma",
            "misc.cluster_barrier_latency",
            "coalescing",
            "compute_capability",
        ] {
            assert!(paths.iter().any(|p| p == k), "{k}");
        }
        let value = preset("tesla-g80").unwrap().to_value();
        assert_eq!(flatten(&value).len(), paths.len());
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        #[test]
        fn overrides_never_panic(
            key in prop_oneof![
                proptest::sample::select(key_paths()),
                "[a-z_.0-9]{0,24}",
                ".{0,12}",
            ],
            value in prop_oneof![
                ".{0,16}",
                "-?[0-9]{1,12}",
                "-?[0-9]{0,6}\\.[0-9]{0,4}(e-?[0-9]{1,3})?",
                "\\[[0-9, .\\-\"a-z\\[\\]]{0,20}\\]?",
                proptest::sample::select(vec!["true", "false", "lrr", "gto", "two-level", "sectors", "nan", "inf", "[]", "[[1]]", "\"x\""]).prop_map(str::to_string),
            ],
            name in proptest::sample::select(NAMES.to_vec()),
        ) {
            let _ = preset_with_overrides(name, &[(key.as_str(), value.as_str())]);
            let _ = parse_set(&format!("{key}={value}"));
            let _ = ArchConfig::from_toml(&format!("{key} = {value}"), "fuzz");
        }
    }
}
