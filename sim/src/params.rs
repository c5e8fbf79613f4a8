//! The parameter table: every key of an [`ArchConfig`] declared once.
//!
//! Each row gives a key path (`l2.size_kib`), its type, its unit, its valid range (bounds,
//! power of two, enum values, a lower bound that holds only when a feature is present) and the
//! cross-key rules it must satisfy, a one-line doc, and which model reads it ([`Reads`]). From
//! the table come [`validate`] (what `ArchConfig::validate` runs), the expected-type text of
//! override errors ([`describe_type`]), the document shape `presets` checks files against, the
//! `warpsim config keys` listing and the key table of `sim/presets/README.md` ([`markdown`]),
//! and calibrate's integer/float choice per knob. The serde structs in `config` stay the
//! storage; a test keeps the table and the structs' key paths equal.
//!
//! This module knows nothing of files: the README table is returned as text.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::Serialize;
use toml::Value;
use warpsim_isa::costs::Class;

use crate::config::{ArchConfig, Coalescing, SchedulerPolicy};
use crate::presets::ConfigError;

/// The generations `generation` may name, oldest first.
pub const GENERATIONS: [&str; 10] =
    ["tesla", "fermi", "kepler", "maxwell", "pascal", "volta", "turing", "ampere", "ada", "hopper"];

/// Upper bound of every latency, penalty and overhead (cycles): far beyond any GPU, short of
/// the watchdog's budgets.
const MAX_CYCLES: u32 = 1_000_000;

/// A parameter's value type.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Ty {
    Int,
    Float,
    Bool,
    Str,
    /// A string from a fixed list (a serde enum's kebab-case names).
    Enum(&'static [&'static str]),
    /// An array of integers.
    IntList,
    /// An array of exactly two integers.
    IntPair,
}

impl Ty {
    /// The short name `config keys` shows.
    pub fn name(self) -> &'static str {
        match self {
            Ty::Int => "integer",
            Ty::Float => "float",
            Ty::Bool => "bool",
            Ty::Str => "string",
            Ty::Enum(_) => "enum",
            Ty::IntList => "integer list",
            Ty::IntPair => "integer pair",
        }
    }

    /// What an override of this type must be, as error messages say it.
    fn expected(self) -> String {
        match self {
            Ty::Int => "a non-negative integer".to_string(),
            Ty::Float => "a number".to_string(),
            Ty::Bool => "`true` or `false`".to_string(),
            Ty::Str => "a string".to_string(),
            Ty::Enum(values) => {
                format!("one of {}", values.iter().map(|v| format!("`{v}`")).collect::<Vec<_>>().join(", "))
            }
            Ty::IntList => "an array of integers, e.g. [0, 8, 16]".to_string(),
            Ty::IntPair => "an array of two integers, e.g. [9, 0]".to_string(),
        }
    }
}

/// Which part of the simulator reads a parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Reads {
    /// The timing model: the key moves simulated cycles.
    Timing,
    /// The timing model, for counters only (cycles do not depend on it).
    Counters,
    /// Functional execution and admission: which instructions are accepted, launch limits.
    Functional,
    /// Names and descriptions; nothing reads them to compute.
    Info,
}

/// The valid values of a parameter, apart from its cross-key rules.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Range {
    /// Any value of the type.
    Any,
    /// A non-empty string.
    NonEmpty,
    /// One of these strings.
    OneOf(&'static [&'static str]),
    /// An integer in `min..=max`; `min` applies only while the key `when` names is true (a
    /// feature flag) or non-zero (`l2.size_kib`): a generation without the unit writes 0.
    Int { min: u32, max: u32, pow2: bool, when: Option<&'static str> },
    /// A pipe's lanes: 1, 2, 4, 8, 16 or 32.
    Lanes,
    /// A finite number in `lo..=hi`; 0 is allowed when `positive` is false or the key `when`
    /// names is false or zero.
    Float { lo: f64, hi: f64, positive: bool, when: Option<&'static str> },
}

impl Range {
    fn text(&self) -> String {
        let when = |w: &Option<&str>| w.map(|k| format!(" when {k}")).unwrap_or_default();
        match self {
            Range::Any => "any".to_string(),
            Range::NonEmpty => "non-empty".to_string(),
            Range::OneOf(v) => v.join(" | "),
            Range::Int { min, max, pow2, when: w } => {
                let base = match (*pow2, *max == u32::MAX) {
                    (true, true) => "power of two".to_string(),
                    (true, false) if *min > 1 => format!("power of two, {min}..={max}"),
                    (true, false) => format!("power of two ≤ {max}"),
                    (false, true) => format!("≥ {min}"),
                    (false, false) => format!("{min}..={max}"),
                };
                match (w, *min) {
                    (Some(_), m) if m > 0 => format!("{base} (≥ {m}{})", when(w)),
                    _ => base,
                }
            }
            Range::Lanes => "1 | 2 | 4 | 8 | 16 | 32".to_string(),
            Range::Float { lo, hi, positive, when: w } => {
                let zero = match (positive, w) {
                    (true, Some(k)) => format!(" (0 allowed unless {k})"),
                    (true, None) => String::new(),
                    (false, _) => " or 0".to_string(),
                };
                format!("{lo}..={hi}{zero}")
            }
        }
    }
}

/// A relation between keys, blamed on the key whose row carries it.
#[derive(Debug, Clone, Copy)]
pub struct Rule {
    /// The rule in words (`config keys` shows it).
    pub doc: &'static str,
    /// `Some(reason)` when the configuration breaks the rule; the reason names the other keys.
    pub fails: fn(&ArchConfig) -> Option<String>,
}

/// One configuration key.
#[derive(Debug, Clone)]
pub struct Param {
    /// Dotted key path (`pipes.fp32.lanes`), as `--set` takes it.
    pub key: String,
    pub ty: Ty,
    /// Unit of the value (`cycles`, `KiB`, `count`, …).
    pub unit: &'static str,
    pub range: Range,
    pub rules: Vec<Rule>,
    pub reads: Reads,
    /// One line saying what it is.
    pub doc: String,
}

impl Param {
    /// Whether the timing model reads it (for cycles or for counters).
    pub fn timing(&self) -> bool {
        matches!(self.reads, Reads::Timing | Reads::Counters)
    }

    /// The valid range with the cross-key rules, in words.
    pub fn range_text(&self) -> String {
        let mut parts = vec![self.range.text()];
        parts.extend(self.rules.iter().map(|r| r.doc.to_string()));
        parts.retain(|p| p != "any");
        if parts.is_empty() {
            "any".to_string()
        } else {
            parts.join("; ")
        }
    }

    fn rule(mut self, doc: &'static str, fails: fn(&ArchConfig) -> Option<String>) -> Param {
        self.rules.push(Rule { doc, fails });
        self
    }

    /// Why `v` is out of range, if it is (`values` resolves the `when` keys).
    fn violation(&self, v: &Value, values: &BTreeMap<String, Value>) -> Option<String> {
        let on = |w: &Option<&str>| match w.and_then(|k| values.get(k)) {
            None => w.is_none(),
            Some(Value::Boolean(b)) => *b,
            Some(Value::Integer(n)) => *n != 0,
            Some(_) => true,
        };
        match (self.range, v) {
            (Range::NonEmpty, Value::String(s)) if s.trim().is_empty() => Some("must not be empty".to_string()),
            (Range::OneOf(list), Value::String(s)) if !list.contains(&s.as_str()) => {
                Some(format!("must be one of {}", list.join(", ")))
            }
            (Range::Int { min, max, pow2, when }, Value::Integer(n)) => {
                let n = *n;
                if pow2 && !(n > 0 && (n as u64).is_power_of_two()) {
                    Some("must be a power of two".to_string())
                } else if n < i64::from(min) && on(&when) {
                    Some(format!("must be at least {min}"))
                } else if n > i64::from(max) {
                    Some(format!("must be at most {max}"))
                } else {
                    None
                }
            }
            (Range::Lanes, Value::Integer(n)) if !(1..=32).contains(n) || 32 % n != 0 => Some(
                "must divide 32 (1, 2, 4, 8, 16 or 32): a warp instruction occupies the pipe for 32 / lanes cycles"
                    .to_string(),
            ),
            (Range::Float { lo, hi, positive, when }, Value::Float(x)) => {
                let x = *x;
                if !x.is_finite() || (x <= 0.0 && positive && on(&when)) {
                    Some("must be a positive finite number".to_string())
                } else if x != 0.0 && !(lo..=hi).contains(&x) {
                    Some(format!("must be between {lo} and {hi}"))
                } else {
                    None
                }
            }
            _ => None,
        }
    }
}

/// A row under construction: key, type, unit, reader and doc; range and rules are added.
fn p(key: impl Into<String>, ty: Ty, unit: &'static str, reads: Reads, doc: impl Into<String>) -> Param {
    Param { key: key.into(), ty, unit, range: Range::Any, rules: Vec::new(), reads, doc: doc.into() }
}

/// An integer row in `min..=max`.
fn int(key: &str, unit: &'static str, min: u32, max: u32, reads: Reads, doc: &str) -> Param {
    Param { range: Range::Int { min, max, pow2: false, when: None }, ..p(key, Ty::Int, unit, reads, doc) }
}

/// An integer row whose lower bound holds only while `when` is on.
fn int_when(key: &str, unit: &'static str, min: u32, max: u32, when: &'static str, reads: Reads, doc: &str) -> Param {
    Param { range: Range::Int { min, max, pow2: false, when: Some(when) }, ..p(key, Ty::Int, unit, reads, doc) }
}

/// A power-of-two integer row.
fn pow2(key: &str, unit: &'static str, max: u32, reads: Reads, doc: &str) -> Param {
    Param { range: Range::Int { min: 1, max, pow2: true, when: None }, ..p(key, Ty::Int, unit, reads, doc) }
}

/// A latency (cycles) at most [`MAX_CYCLES`], at least `min` while `when` is on (always when None).
fn cycles(key: &str, min: u32, when: Option<&'static str>, reads: Reads, doc: &str) -> Param {
    Param { range: Range::Int { min, max: MAX_CYCLES, pow2: false, when }, ..p(key, Ty::Int, "cycles", reads, doc) }
}

/// A float row in `lo..=hi`, positive unless `when` is off (always, when None).
fn float(key: &str, unit: &'static str, (lo, hi): (f64, f64), when: Option<&'static str>, reads: Reads, doc: &str) -> Param {
    Param { range: Range::Float { lo, hi, positive: true, when }, ..p(key, Ty::Float, unit, reads, doc) }
}

fn flag(key: &str, reads: Reads, doc: &str) -> Param {
    p(key, Ty::Bool, "boolean", reads, doc)
}

/// The pipes of `pipes.*` with their docs (the tensor pipe is listed apart: its lanes are unused).
const PIPES: [(&str, &str); 11] = [
    ("fp32", "FP32 pipe (FADD, FMUL, FFMA)"),
    ("int", "integer pipe (IADD3, LOP3, shifts, comparisons)"),
    ("imul", "integer multiply / multiply-add (IMAD) when it is a separate or slower path"),
    ("fp64", "FP64 pipe (DADD, DMUL, DFMA)"),
    ("fp16", "half-precision pipe (HADD2, HMUL2, HFMA2)"),
    ("sfu", "special-function unit (MUFU: rcp, sqrt approximations, sin, ex2, lg2 …)"),
    ("conv", "conversions (`cvt`, often on the SFU/XU path)"),
    ("alu", "moves, selects, predicates and other simple ALU work"),
    ("branch", "branches and other control (the branch unit)"),
    ("warp", "warp-level shuffles, votes, reductions through the MIO"),
    ("lsu", "load/store unit address generation (lanes = addresses per cycle)"),
];

/// Every configuration key, in the order validation checks them (the first broken rule is
/// the error reported).
pub fn table() -> &'static [Param] {
    static TABLE: OnceLock<Vec<Param>> = OnceLock::new();
    TABLE.get_or_init(build)
}

/// The row of `key`, if there is one.
pub fn param(key: &str) -> Option<&'static Param> {
    table().iter().find(|p| p.key == key)
}

#[rustfmt::skip]
fn build() -> Vec<Param> {
    use Reads::*;
    let mut t = vec![
        Param { range: Range::NonEmpty, ..p("name", Ty::Str, "text", Info, "Preset name, as `--arch` takes it") },
        p("description", Ty::Str, "text", Info, "The card the preset models, in words"),
        Param { range: Range::OneOf(&GENERATIONS), ..p("generation", Ty::Str, "generation", Functional, "Architecture generation; named in the errors for features it lacks") },
        p("compute_capability", Ty::IntPair, "[major, minor]", Functional, "Compute capability; picks the ptxas target whose registers the launch uses")
            .rule("major ≥ 1", |c| (c.compute_capability[0] == 0).then(|| "major version must be at least 1".to_string())),
        float("clock.sm_mhz", "MHz", (1.0, 100_000.0), None, Timing, "SM (core) clock under load; simulated cycles are SM cycles, GPU time = cycles / clock"),
        int("sm.count", "count", 1, 1024, Timing, "Streaming multiprocessors"),
        int("sm.gpcs", "count", 1, u32::MAX, Timing, "Graphics processing clusters the SMs are grouped in; CTA clusters are co-scheduled within one GPC")
            .rule("≤ sm.count", |c| (c.sm.gpcs > c.sm.count).then(|| format!("must not exceed sm.count ({})", c.sm.count))),
        p("sm.gpc_sms", Ty::IntList, "count", Timing, "SMs in each GPC, in the CTA dispatcher's GPC order; used when it has sm.gpcs entries summing to sm.count, else (empty, or sm.count or sm.gpcs swept) sm.count split evenly")
            .rule("entries ≥ 1", |c| c.sm.gpc_sms.contains(&0).then(|| "entries must be at least 1".to_string())),
        int("sm.sms_per_tpc", "count", 1, 64, Timing, "SMs per texture processing cluster: a wave of CTAs too small to give every SM one is spread one CTA per TPC"),
        int("sm.lone_sms", "count", 0, 1024, Timing, "SMs at the head of GPC 0 the CTA dispatcher gives one CTA each before it splits the rest of a partly filled wave over the GPCs (at most GPC 0's SMs)"),
        int("sm.sub_partitions", "count", 1, 64, Timing, "Sub-partitions (processing blocks) per SM, each with its own scheduler"),
        int("sm.issue_width", "instructions/cycle", 1, 64, Timing, "Warp instructions each sub-partition's scheduler issues per cycle"),
        int("sm.register_banks", "banks", 0, 4, Timing, "Machine code: register-file banks (register index mod banks), one read each per cycle; a math instruction needing more reads of one bank holds dispatch a cycle per further read (0: no conflicts)")
            .rule("divides 4", |c| (c.sm.register_banks == 3).then(|| "banks are counted by register index mod 4: 0, 1, 2 or 4".to_string())),
        int("sm.max_warps", "warps", 1, 1024, Timing, "Resident warps per SM; also `%nwarpid`")
            .rule("≥ sm.sub_partitions", |c| (c.sm.max_warps < c.sm.sub_partitions).then(|| "must be at least sm.sub_partitions".to_string())),
        int("sm.max_ctas", "CTAs", 1, 1024, Timing, "Resident CTAs per SM"),
        p("sm.max_threads", Ty::Int, "threads", Timing, "Resident threads per SM")
            .rule("32 ≤ value ≤ sm.max_warps × 32", |c| {
                let top = c.sm.max_warps.saturating_mul(32);
                (c.sm.max_threads < 32 || c.sm.max_threads > top).then(|| format!("must be between 32 and sm.max_warps × 32 ({top})"))
            }),
        int("sm.registers", "registers", 1, 1 << 22, Timing, "32-bit registers per SM"),
        pow2("sm.reg_alloc_unit", "registers", u32::MAX, Timing, "Register allocation granularity per warp (registers × 32 lanes, e.g. 256)")
            .rule("≤ sm.registers", |c| (c.sm.reg_alloc_unit > c.sm.registers).then(|| "must not exceed sm.registers".to_string())),
        int("sm.max_regs_per_thread", "registers", 1, 255, Timing, "Maximum registers per thread")
            .rule("one warp at this many registers fits in sm.registers", |c| {
                (c.sm.max_regs_per_thread.saturating_mul(32) > c.sm.registers).then(|| "one warp at this many registers must fit in sm.registers".to_string())
            }),
        int("sm.smem_kib", "KiB", 1, 4096, Timing, "Shared memory per SM at the largest carve-out")
            .rule("≤ sm.unified_l1_kib when that is set", |c| {
                (c.sm.unified_l1_kib > 0 && c.sm.smem_kib > c.sm.unified_l1_kib).then(|| format!("must not exceed sm.unified_l1_kib ({})", c.sm.unified_l1_kib))
            }),
        p("sm.smem_per_cta_kib", Ty::Int, "KiB", Timing, "Shared memory one CTA may use")
            .rule("1 ≤ value ≤ sm.smem_kib", |c| {
                (c.sm.smem_per_cta_kib == 0 || c.sm.smem_per_cta_kib > c.sm.smem_kib).then(|| format!("must be between 1 and sm.smem_kib ({})", c.sm.smem_kib))
            }),
        p("sm.smem_carveouts_kib", Ty::IntList, "KiB", Timing, "Shared-memory carve-outs the driver picks from, ascending; empty: fixed sm.smem_kib")
            .rule("strictly ascending", |c| c.sm.smem_carveouts_kib.windows(2).any(|w| w[0] >= w[1]).then(|| "must be strictly ascending".to_string()))
            .rule("ends at sm.smem_kib", |c| {
                let s = &c.sm;
                (!s.smem_carveouts_kib.is_empty() && s.smem_carveouts_kib.last() != Some(&s.smem_kib)).then(|| format!("must end at sm.smem_kib ({})", s.smem_kib))
            }),
        p("sm.smem_reserved_per_cta", Ty::Int, "bytes", Timing, "Shared memory the system reserves per resident CTA (1024 on Ampere+)")
            .rule("< sm.smem_kib", |c| {
                (u64::from(c.sm.smem_reserved_per_cta) >= u64::from(c.sm.smem_kib) * 1024).then(|| "must be smaller than sm.smem_kib".to_string())
            }),
        pow2("sm.smem_alloc_unit", "bytes", 1 << 20, Timing, "Shared-memory allocation granularity"),
        int("sm.unified_l1_kib", "KiB", 0, 4096, Timing, "Unified L1 + shared capacity; the L1 gets what the carve-out leaves (0: separate arrays)"),
        p("sm.scheduler", Ty::Enum(&["lrr", "gto", "two-level"]), "policy", Timing, "Warp scheduling policy of each sub-partition: loose round robin, greedy-then-oldest or two-level"),
        int("sm.two_level_active", "warps", 1, u32::MAX, Timing, "Active-set size of the two-level scheduler, per sub-partition")
            .rule("≤ warps per sub-partition under two-level", |c| {
                let per_sp = c.sm.max_warps / c.sm.sub_partitions.max(1);
                (c.sm.scheduler == SchedulerPolicy::TwoLevel && c.sm.two_level_active > per_sp).then(|| format!("must not exceed the warps per sub-partition ({per_sp})"))
            }),
        cycles("sm.cta_launch_latency", 0, None, Timing, "Cycles an SM takes to launch one CTA; an SM launches its CTAs one at a time"),
    ];
    for (name, doc) in PIPES {
        t.push(Param { range: Range::Lanes, ..p(format!("pipes.{name}.lanes"), Ty::Int, "lanes/cycle", Timing, format!("Lanes per cycle per sub-partition of the {doc}; a warp instruction holds it 32 / lanes cycles")) });
        // A branch defines no register and issue does not wait behind one, so nothing reads
        // the branch pipe's latency; memory instructions take the L1's or shared memory's.
        let (reads, note) = match name {
            "branch" => (Info, "; not read: a branch defines no register and the warp's next issue does not wait for it"),
            "lsu" => (Timing, "; read in SASS mode only (when an LSU instruction's operand barrier clears): load latency is the L1's or shared memory's"),
            _ => (Timing, ""),
        };
        t.push(Param { range: Range::Int { min: 1, max: MAX_CYCLES, pow2: false, when: None }, ..p(format!("pipes.{name}.latency"), Ty::Int, "cycles", reads, format!("Dependent-issue latency of the {doc}{note}")) });
    }
    t.extend([
        int("pipes.tensor.lanes", "lanes/cycle", 0, 32, Info, "Unused: tensor throughput is tensor.fp16_fma_per_cycle"),
        cycles("pipes.tensor.latency", 1, Some("features.tensor_cores"), Timing, "Tensor-core latency of `mma.sync` m16n8k16"),
        flag("pipes.iadd_on_imad", Timing, "Integer adds issue to the IMAD pipe when the INT pipe is busy (Volta+: ptxas balances IADD3 and IMAD.IADD)"),
        int_when("tensor.fp16_fma_per_cycle", "FMA/cycle", 1, 1 << 20, "features.tensor_cores", Timing, "Dense FP16 multiply-accumulates per cycle per SM"),
        cycles("tensor.wgmma_base_latency", 1, Some("features.wgmma"), Timing, "`wgmma` m64nNk16 completion latency: base + N / tensor.wgmma_n_divisor"),
        int("tensor.wgmma_n_divisor", "N per cycle", 1, 256, Timing, "`wgmma` latency grows by one cycle per this many columns N"),
        pow2("smem.banks", "banks", 1024, Timing, "Shared-memory banks: 16 on Tesla, 32 since Fermi"),
        pow2("smem.bank_bytes", "bytes", 1024, Timing, "Shared-memory bank width: 4, or 8 on Kepler"),
        cycles("smem.latency", 1, None, Timing, "Shared-memory load-to-use latency without conflicts"),
        int("smem.wavefront_cycles", "cycles", 1, u32::MAX, Timing, "Extra cycles per additional bank-conflict wavefront"),
        int("smem.bank_cycles", "cycles", 1, 64, Timing, "Cycles each bank takes per access: the rate wavefronts leave the banks"),
        int("smem.wide_bytes_per_cycle", "bytes/cycle", 1, u32::MAX, Timing, "Shared-memory data path of 8- and 16-byte accesses per SM (Turing, Ada: 64); a row of banks or more: the banks set the rate"),
        flag("smem.half_warp", Timing, "Bank conflicts are evaluated per half-warp (Tesla) instead of per warp"),
        Param { range: Range::Int { min: 32, max: 128, pow2: true, when: None }, ..p("l1.sector", Ty::Int, "bytes", Timing, "Bytes the L1 fills and its data stage moves per sector: 32, or 64/128 (a block of 32-byte sectors; Fermi's L1 is not sectored)") },
        int("l1.assoc", "ways", 1, 1024, Timing, "L1 associativity"),
        cycles("l1.latency", 1, Some("features.l1_caches_global"), Timing, "L1 hit latency, load to use"),
        int("l1.mshrs", "count", 1, 65536, Timing, "Miss slots per SM: loads and atomics whose data returns in flight at once; a global or local load or atomic issues only while one is free"),
        int("l1.sectors_per_cycle", "sectors/cycle", 1, 4096, Timing, "Sectors the L1 returns per cycle"),
        int("l1.lines_per_cycle", "lines/cycle", 1, 4096, Timing, "Lines the L1 looks up per cycle: a warp access touching many lines takes one tag lookup each"),
        int("l1.request_cycles", "cycles", 0, 4096, Timing, "Further cycles the L1's tag stage takes for a load or store whose lanes touch more than two lines, beyond one lookup per line"),
        float("l1.atomic_line_cycles", "cycles", (1e-3, 1e4), None, Timing, "Cycles each line of a global reduction (RED) takes at the L1's stage on its way to the L2 (loads and stores queue behind it; returning atomics take l1.lines_per_cycle)"),
        int("l1.fixed_kib", "KiB", 0, 4096, Timing, "Fixed L1 size for generations without a unified L1/shared array (0: unified)")
            .rule("0 when sm.unified_l1_kib is set", |c| {
                (c.sm.unified_l1_kib > 0 && c.l1.fixed_kib > 0).then(|| "must be 0 when sm.unified_l1_kib is set (the L1 gets what the carve-out leaves)".to_string())
            })
            .rule("> 0 (or sm.unified_l1_kib > 0) when features.l1_caches_global", |c| {
                (c.features.l1_caches_global && c.sm.unified_l1_kib == 0 && c.l1.fixed_kib == 0).then(|| "global loads are cached in L1 (features.l1_caches_global), so the L1 needs a size here or in sm.unified_l1_kib".to_string())
            }),
        flag("l1.store_allocate", Timing, "Global stores allocate the bytes they write in the L1 (write-through, byte-masked write-allocate, Volta+); a store to a present sector is an L1 hit"),
        int("l2.slices", "slices", 1, 4096, Timing, "L2 slices; addresses are hashed across them"),
        int("l2.placement_runs", "runs", 1, 1024, Timing, "Runs of every slice a block of consecutive units (lines, or groups of l2.slice_shared_line_bits) fills evenly (1: every block of l2.slices units on distinct slices; more: nearby units may share slices)"),
        int("l2.slice_shared_line_bits", "mask", 0, 255, Timing, "Bits of the line number that do not select the L2 slice: lines differing only in them share one (0: each line placed on its own; H200: 0b101, lines k, k+1, k+4, k+5)"),
        int("l2.assoc", "ways", 1, 1024, Timing, "L2 associativity"),
        int("l2.partitions", "count", 1, u32::MAX, Timing, "Partitions the L2 slices are split into (Hopper and Ampere have 2)")
            .rule("divides l2.slices", |c| (c.l2.partitions > 0 && !c.l2.slices.is_multiple_of(c.l2.partitions)).then(|| format!("must divide l2.slices ({})", c.l2.slices))),
        Param { range: Range::Int { min: 32, max: 128, pow2: true, when: None }, ..p("l2.promotion_bytes", Ty::Int, "bytes", Timing, "Aligned block a read miss fetches from DRAM around each missing 32-byte sector (32: no promotion; 128: the line)") },
        p("l2.gpc_partition", Ty::IntList, "index", Timing, "The L2 partition each GPC's SMs are near, by GPC; used when it has one entry per GPC, each below l2.partitions, else (empty, or swept GPCs or partitions) GPC mod l2.partitions"),
        p("l2.partial_ways", Ty::Int, "ways", Timing, "Ways of a set that may hold partially written lines; beyond them a partial write evicts the LRU partial line (l2.assoc: no limit)")
            .rule("1 ≤ value ≤ l2.assoc", |c| (c.l2.partial_ways == 0 || c.l2.partial_ways > c.l2.assoc).then(|| format!("must lie between 1 and l2.assoc ({})", c.l2.assoc))),
        cycles("l2.far_extra_latency", 0, None, Timing, "Extra latency when the line's home is the far L2 partition (0 for a monolithic L2)")
            .rule("0 when l2.partitions = 1", |c| (c.l2.partitions == 1 && c.l2.far_extra_latency != 0).then(|| "must be 0 for a single-partition L2 (`l2.partitions` = 1)".to_string())),
        int("l2.size_kib", "KiB", 0, 1 << 20, Timing, "L2 capacity (0: no L2 for global data, as on Tesla)")
            .rule("≥ one set per slice", |c| {
                let l2 = &c.l2;
                let set_bytes = u64::from(l2.slices) * crate::coalescer::LINE * u64::from(l2.assoc);
                (l2.size_kib > 0 && u64::from(l2.size_kib) * 1024 < set_bytes).then(|| format!("must hold at least one set per slice: l2.slices × 128-byte lines × l2.assoc = {set_bytes} bytes"))
            }),
        cycles("l2.hit_latency", 1, Some("l2.size_kib"), Timing, "Load-to-use latency of an L2 hit seen by an SM, L1 miss included"),
        float("l2.sectors_per_cycle_per_slice", "sectors/cycle", (1e-3, 1e4), Some("l2.size_kib"), Timing, "Sectors each L2 slice serves per cycle"),
        float("l2.write_sectors_per_cycle_per_slice", "sectors/cycle", (1e-3, 1e4), Some("l2.size_kib"), Timing, "Sectors of stores each L2 slice absorbs per cycle"),
        float("l2.requests_per_cycle_per_slice", "requests/cycle", (1e-3, 1e4), Some("l2.size_kib"), Timing, "Requests (tag lookups) each L2 slice serves per cycle, whatever their sectors"),
        int_when("l2.mshrs_per_slice", "count", 1, 65536, "l2.size_kib", Timing, "DRAM reads in flight per L2 slice; a further miss waits for the earliest to return"),
        int("l2.coalescer_merge", "requests", 1, 65536, Timing, "Reads of one line from one GPC's SMs that ride one in-flight L2 read (the request coalescer: later ones are neither served nor counted by a slice; 1: no coalescer)"),
        float("l2.atomics_per_cycle_per_slice", "atomics/cycle", (1e-3, 1e4), Some("l2.size_kib"), Timing, "Sector lookups that update part of a sector (one address's lanes, scattered words) each L2 slice's atomic unit applies per cycle"),
        float("l2.atomic_request_cycles", "cycles", (1e-3, 1e4), Some("l2.size_kib"), Timing, "Least cycles between two returning atomic requests to one line (the next waits for the old value)"),
        Param { range: Range::Float { lo: 0.0, hi: 1e4, positive: false, when: None }, ..p("l2.atomic_partial_cycles", Ty::Float, "cycles", Timing, "Further cycles a returning atomic holds its line per sector it writes only in part (byte merge)") },
        Param { range: Range::Float { lo: 0.0, hi: 1e4, positive: false, when: None }, ..p("l2.atomic_sector_cycles", Ty::Float, "cycles", Timing, "Cycles the L2 slice's atomic unit spends on a sector lookup that updates the whole sector (coalesced words)") },
        Param { range: Range::Float { lo: 0.0, hi: 16.0, positive: false, when: None }, ..p("l2.atomic_far_passes", Ty::Float, "count", Timing, "Times a returning atomic's whole-sector work passes through its near slice's atomic unit when the line is homed in the other partition (operands in, old values out)") },
        int("l2.launch_read_sectors", "sectors", 0, 1 << 24, Counters, "L2 read sectors every launch costs apart from the kernel's accesses and code (constant banks, front end; hits)"),
        Param { range: Range::Float { lo: 0.0, hi: 1024.0, positive: false, when: None }, ..p("l2.code_read_sectors_per_instruction", Ty::Float, "sectors/instruction", Counters, "L2 read sectors per machine instruction of the kernel that a launch reads for instruction fetch") },
        int("dram.channels", "channels", 1, 1024, Timing, "Independent DRAM channels"),
        int("dram.banks", "banks", 1, 1024, Timing, "Banks per DRAM channel"),
        pow2("dram.row_bytes", "bytes", 1 << 20, Timing, "Row (page) size per DRAM bank"),
        float("dram.bandwidth_gbs", "GB/s", (1.0, 1e6), None, Timing, "Sustained DRAM bandwidth of the whole device"),
        cycles("dram.latency", 1, None, Timing, "Load-to-use latency of a DRAM access with a row hit, L2 miss included")
            .rule("> l2.hit_latency when there is an L2", |c| {
                (c.l2.size_kib > 0 && c.dram.latency <= c.l2.hit_latency).then(|| format!("must exceed l2.hit_latency ({}): it includes the L2 miss", c.l2.hit_latency))
            }),
        cycles("dram.row_miss_penalty", 0, None, Timing, "Extra cycles for a DRAM row miss (precharge + activate)"),
        Param { range: Range::Float { lo: 0.0, hi: 1e4, positive: false, when: None }, ..p("dram.activate_cycles", Ty::Float, "cycles", Timing, "Least cycles between two row activations in one DRAM channel (0: no limit)") },
        cycles("dram.reorder_window", 0, None, Timing, "Cycles after a DRAM row's latest request that a further request for it is still a row hit (the controller's first-ready reordering)"),
        cycles("dram.loaded_latency", 0, None, Timing, "Further DRAM latency at full bandwidth use, in proportion to the recent use (0: none)"),
        cycles("dram.load_window", 1, None, Timing, "Time constant of the recent DRAM bandwidth use that dram.loaded_latency scales with"),
        Param { range: Range::Int { min: 32, max: 128, pow2: true, when: None }, ..p("dram.burst_bytes", Ty::Int, "bytes", Timing, "Aligned block one DRAM access moves: a transfer of fewer 32-byte sectors still occupies its channel for the whole block") },
        p("coalescing", Ty::Enum(&["half-warp-strict", "half-warp-segments", "sectors"]), "rule", Timing, "Coalescing rules of the LSU: CC 1.0/1.1 strict half-warps, CC 1.2/1.3 half-warp segments, or Fermi+ sectors"),
        flag("features.shuffle", Timing, "Warp shuffles (`shfl`), Kepler+"),
        flag("features.warp_vote", Functional, "`vote.ballot` / `__syncthreads_count` style collectives, Fermi+"),
        flag("features.float_atomics", Functional, "Atomics on 64-bit values and floats, Fermi+"),
        flag("features.tensor_cores", Functional, "Warp-level matrix instructions (`wmma`, `mma.sync`), Volta+"),
        flag("features.ldmatrix", Functional, "`ldmatrix`, Turing+")
            .rule("needs features.tensor_cores", |c| (c.features.ldmatrix && !c.features.tensor_cores).then(|| "needs features.tensor_cores".to_string())),
        flag("features.cp_async", Functional, "`cp.async` (Ampere asynchronous copies) and `mbarrier`, Ampere+"),
        flag("features.redux", Functional, "`redux.sync`, Ampere+"),
        flag("features.tma", Functional, "TMA (`cp.async.bulk*`), Hopper")
            .rule("needs features.cp_async", |c| (c.features.tma && !c.features.cp_async).then(|| "needs features.cp_async (TMA completes on mbarriers)".to_string())),
        flag("features.clusters", Timing, "Thread-block clusters and distributed shared memory, Hopper"),
        flag("features.wgmma", Functional, "Warpgroup matrix multiply-accumulate (`wgmma`), Hopper")
            .rule("needs features.tensor_cores", |c| (c.features.wgmma && !c.features.tensor_cores).then(|| "needs features.tensor_cores".to_string())),
        flag("features.l1_caches_global", Timing, "Global loads are cached in L1 (false: Tesla, which has no L1 for global data)")
            .rule("false under half-warp coalescing", |c| {
                (matches!(c.coalescing, Coalescing::HalfWarpStrict | Coalescing::HalfWarpSegments) && c.features.l1_caches_global)
                    .then(|| "half-warp coalescing (compute capability 1.x) has no L1 for global data".to_string())
            }),
        cycles("misc.launch_overhead", 0, None, Timing, "Fixed kernel launch overhead included in the reported cycles"),
        cycles("misc.printf_launch_cycles", 0, None, Timing, "Cycles a launch that calls device printf pays once (the buffer's drain)"),
        cycles("misc.printf_line_cycles", 0, None, Timing, "Cycles each further device printf call (one lane's line) adds to its launch"),
        cycles("misc.barrier_latency", 0, None, Timing, "`bar.sync` release latency after the last arrival"),
        cycles("misc.atomic_extra_latency", 0, None, Timing, "Atomic latency at L2 beyond a load's"),
        cycles("misc.smem_atomic_latency", 0, None, Timing, "Shared-memory atomic latency"),
        cycles("misc.const_latency", 1, None, Timing, "Constant-cache hit latency"),
        cycles("misc.dsmem_latency", 1, Some("features.clusters"), Timing, "Remote (distributed) shared memory latency within a cluster"),
        cycles("misc.mbarrier_latency", 1, Some("features.cp_async"), Timing, "`mbarrier` arrive and successful `try_wait` latency"),
        cycles("misc.mbarrier_wake_latency", 0, Some("features.cp_async"), Timing, "SASS mode: cycles from an mbarrier phase completing until a warp asleep in its try_wait issues again"),
        cycles("misc.tma_latency", 1, Some("features.tma"), Timing, "TMA issue-to-completion overhead beyond the memory traffic"),
        cycles("misc.cluster_barrier_latency", 1, Some("features.clusters"), Timing, "Cluster barrier round trip"),
        cycles("misc.indexed_branch_cycles", 0, None, Timing, "Cycles a warp issues nothing after each pass of an indirect branch (BRX, brx.idx): ncu's branch_resolving"),
        cycles("misc.indexed_branch_split_cycles", 0, None, Timing, "Further cycles after an indirect-branch pass that peels off one of several targets' lanes"),
        cycles("misc.indexed_branch_issue_cycles", 0, None, Timing, "Cycles the SM's indirect-branch unit takes per pass (passes of its warps queue)"),
        cycles("misc.divergent_branch_cycles", 0, None, Timing, "Cycles a warp issues nothing after a direct branch that split its lanes: ncu's branch_resolving"),
        cycles("misc.divergent_branch_issue_cycles", 0, None, Timing, "Cycles a divergent direct branch holds the SM's branch unit (the indirect branches' queue)"),
    ]);
    for class in Class::ALL {
        t.push(int(&format!("machine_ops.{}", class.name()), "machine ops", 0, 255, Timing, &format!("Machine (SASS) instructions the timing model issues per PTX instruction of class {}: {}", class.name(), class.doc())));
    }
    t
}

/// Checks every row's range and rules against `cfg`, in table order; the first problem found is
/// the error, naming its key path (and, for a rule, the other key).
pub fn validate(cfg: &ArchConfig) -> Result<(), ConfigError> {
    let values = crate::presets::flatten(&cfg.to_value());
    for p in table() {
        let Some(v) = values.get(&p.key) else { continue };
        let reason = p.violation(v, &values).or_else(|| p.rules.iter().find_map(|r| (r.fails)(cfg)));
        if let Some(reason) = reason {
            return Err(ConfigError::Invalid { key: p.key.clone(), value: shown(v), reason });
        }
    }
    Ok(())
}

/// A value as an error message shows it.
fn shown(v: &Value) -> String {
    match v {
        Value::String(s) if s.trim().is_empty() => "\"\"".to_string(),
        Value::Float(x) if !(1e-4..1e15).contains(x) => format!("{x:e}"),
        other => crate::presets::render(other),
    }
}

/// What an override of `key` must be (`one of `lrr`, `gto`, `two-level``), from its row.
pub fn describe_type(key: &str) -> Option<String> {
    param(key).map(|p| p.ty.expected())
}

/// One key as `warpsim config keys --json` lists it.
#[derive(Debug, Clone, Serialize)]
pub struct KeyInfo {
    pub key: String,
    #[serde(rename = "type")]
    pub ty: String,
    pub unit: String,
    pub doc: String,
    pub range: String,
    /// Whether the timing model reads the key.
    pub timing: bool,
    /// What reads it: `timing`, `counters`, `functional` or `info`.
    pub reads: Reads,
    /// The value in the preset given with `--arch`, rendered as TOML.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
}

/// Every key, with the values of `cfg` when one is given.
pub fn key_infos(cfg: Option<&ArchConfig>) -> Vec<KeyInfo> {
    let values = cfg.map(|c| crate::presets::flatten(&c.to_value()));
    table()
        .iter()
        .map(|p| KeyInfo {
            key: p.key.clone(),
            ty: match p.ty {
                Ty::Enum(v) => format!("enum ({})", v.join(" | ")),
                t => t.name().to_string(),
            },
            unit: p.unit.to_string(),
            doc: p.doc.clone(),
            range: p.range_text(),
            timing: p.timing(),
            reads: p.reads,
            default: values.as_ref().and_then(|m| m.get(&p.key)).map(|v| v.to_string()),
        })
        .collect()
}

/// The key table as Markdown (the one in `sim/presets/README.md`, or with a preset's values).
pub fn markdown(cfg: Option<&ArchConfig>) -> String {
    let mut out = String::new();
    let esc = |s: &str| s.replace('|', "\\|");
    match cfg {
        Some(c) => {
            out.push_str(&format!("| key | {} | unit | range | read by | doc |\n|---|---|---|---|---|---|\n", c.name))
        }
        None => out.push_str("| key | type | unit | range | read by | doc |\n|---|---|---|---|---|---|\n"),
    }
    for k in key_infos(cfg) {
        let second = match cfg {
            Some(_) => k.default.clone().unwrap_or_default(),
            None => k.ty.clone(),
        };
        let reads = serde_json::to_value(k.reads).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
        out.push_str(&format!(
            "| `{}` | {} | {} | {} | {} | {} |\n",
            k.key,
            esc(&second),
            esc(&k.unit),
            esc(&k.range),
            reads,
            esc(&k.doc)
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::presets::{flatten, preset, preset_names, preset_with_overrides};

    #[test]
    fn table_and_structs_have_the_same_keys() {
        let mut keys: Vec<&str> = table().iter().map(|p| p.key.as_str()).collect();
        keys.sort();
        let mut unique = keys.clone();
        unique.dedup();
        assert_eq!(keys, unique, "a key declared twice");
        for name in preset_names() {
            let have: Vec<String> = flatten(&preset(name).unwrap().to_value()).into_keys().collect();
            assert_eq!(have, keys, "{name}");
        }
    }

    #[test]
    fn every_key_has_a_unit_and_a_doc() {
        assert!(table().len() >= 100, "{} keys", table().len());
        for p in table() {
            assert!(!p.unit.trim().is_empty(), "{} has no unit", p.key);
            assert!(p.doc.trim().len() >= 8, "{} has no doc", p.key);
            assert!(!p.doc.contains('\n'), "{}: the doc is one line", p.key);
        }
    }

    #[test]
    fn types_match_the_presets_values() {
        let values = flatten(&preset("hopper-h200").unwrap().to_value());
        for p in table() {
            let v = &values[&p.key];
            let ok = match p.ty {
                Ty::Int => v.is_integer(),
                Ty::Float => v.is_float(),
                Ty::Bool => v.is_bool(),
                Ty::Str | Ty::Enum(_) => v.is_str(),
                Ty::IntList => v.as_array().is_some_and(|a| a.iter().all(Value::is_integer)),
                Ty::IntPair => v.as_array().is_some_and(|a| a.len() == 2),
            };
            assert!(ok, "{}: {:?} vs {v}", p.key, p.ty);
        }
    }

    #[test]
    fn enum_values_are_the_serde_names() {
        for p in table() {
            let Ty::Enum(values) = p.ty else { continue };
            for v in values {
                // Accepted by serde (a cross-key rule may still reject it: half-warp coalescing).
                let r = preset_with_overrides("hopper-h200", &[(p.key.as_str(), *v)]);
                assert!(!matches!(r, Err(ConfigError::WrongType { .. })), "{}={v}: {r:?}", p.key);
            }
            let e = preset_with_overrides("hopper-h200", &[(p.key.as_str(), "no-such")]).unwrap_err();
            for v in values {
                assert!(e.to_string().contains(v), "{}: {e}", p.key);
            }
        }
    }

    #[test]
    fn ranges_reject_their_bounds_naming_the_key() {
        for p in table() {
            if let Range::Int { max, .. } = p.range {
                if max < u32::MAX {
                    let e = preset_with_overrides("hopper-h200", &[(p.key.as_str(), (u64::from(max) + 1).to_string())]).unwrap_err();
                    assert_eq!(e.key(), Some(p.key.as_str()), "{e}");
                }
            }
        }
        let e = preset_with_overrides("hopper-h200", &[("sm.gpcs", "200")]).unwrap_err();
        assert!(e.to_string().contains("sm.gpcs") && e.to_string().contains("sm.count"), "{e}");
        let e = preset_with_overrides("hopper-h200", &[("l2.code_read_sectors_per_instruction", "-1")]).unwrap_err();
        assert_eq!(e.key(), Some("l2.code_read_sectors_per_instruction"), "{e}");
    }

    #[test]
    fn key_infos_carry_the_presets_values() {
        let c = preset("ampere-ga100").unwrap();
        let infos = key_infos(Some(&c));
        let count = infos.iter().find(|k| k.key == "sm.count").unwrap();
        assert_eq!(count.default.as_deref(), Some("108"));
        assert_eq!(count.unit, "count");
        assert!(count.timing);
        assert!(key_infos(None).iter().all(|k| k.default.is_none()));
        assert!(markdown(Some(&c)).contains("| `sm.count` | 108 |"));
    }

    /// `sim/presets/README.md`'s key table is `markdown(None)`; `WARPSIM_BLESS=1` rewrites it.
    #[test]
    fn presets_readme_key_table_is_current() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/presets/README.md");
        let text = std::fs::read_to_string(path).unwrap();
        let (begin, end) = ("<!-- keys:begin (generated by `warpsim config keys --markdown`; WARPSIM_BLESS=1 cargo test -p warpsim-sim params rewrites it) -->\n", "<!-- keys:end -->");
        let (head, rest) = text.split_once(begin).expect("README.md has the keys:begin marker");
        let (_, tail) = rest.split_once(end).expect("README.md has the keys:end marker");
        let want = format!("{head}{begin}{}{end}{tail}", markdown(None));
        if std::env::var_os("WARPSIM_BLESS").is_some() {
            std::fs::write(path, &want).unwrap();
        } else {
            assert!(text == want, "sim/presets/README.md's key table is stale: rerun with WARPSIM_BLESS=1");
        }
    }
}
