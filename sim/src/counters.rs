//! The counter registry: every counter the timing model reports, declared once.
//!
//! Each [`Counter`] has its Nsight Compute name (`lts__t_sectors_op_read.sum`), a unit, a one-line
//! description and how it aggregates across SMs ([`Agg`]), like gem5's `ADD_STAT` and
//! `ncu --query-metrics`. The engine stores counters only through [`Counter`] values and readers
//! ask [`crate::engine::TimingResult::get`] with one, so a misspelt name is a compile error
//! rather than a silent 0. Warp states are the [`Stall`] enum, the index of the per-SM stall
//! cycle counters. `warpsim metrics` lists both; `validate/collect.sh` collects every name here
//! (a test in `warpsim-validate` checks it).
//!
//! A sequence of launches (a multi-launch workload) combines its launches' counters by one rule,
//! [`combine_launches`], used both for the simulator's counters and for ncu's of the same
//! launches (`validate merge`): sums, maxima over SMs and means over SMs add up launch after
//! launch (the launches run one after another); ratios are recomputed from the sums, each
//! launch's ratio weighted by its denominator ([`ratio_weight`]); launch properties (registers,
//! occupancy limits) take the largest launch's.

use std::collections::BTreeMap;

use serde::Serialize;

/// How a counter combines the SMs' (or slices') values into the GPU's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Agg {
    /// Summed over all units (ncu `.sum`).
    Sum,
    /// The largest unit's value (ncu `.max`).
    Max,
    /// The mean over SMs (ncu `.avg`).
    Avg,
    /// A ratio or percentage of sums (`.pct`, `.per_cycle_active`): computed from GPU-wide sums.
    Ratio,
    /// A property of the launch, the same on every SM.
    Launch,
}

macro_rules! counters {
    ($( $variant:ident = $name:literal, $unit:literal, $agg:ident, $doc:literal; )*) => {
        /// A counter the timing model produces (see the module doc).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Counter { $( #[doc = $doc] $variant, )* }

        impl Counter {
            /// Every counter, in the order `warpsim metrics` lists them.
            pub const ALL: &'static [Counter] = &[ $( Counter::$variant, )* ];

            /// The Nsight Compute metric name.
            pub const fn name(self) -> &'static str {
                match self { $( Counter::$variant => $name, )* }
            }

            pub fn unit(self) -> &'static str {
                match self { $( Counter::$variant => $unit, )* }
            }

            pub fn agg(self) -> Agg {
                match self { $( Counter::$variant => Agg::$agg, )* }
            }

            pub fn doc(self) -> &'static str {
                match self { $( Counter::$variant => $doc, )* }
            }
        }
    };
}

counters! {
    CyclesElapsed = "gpc__cycles_elapsed.max", "cycle", Max, "Cycles from launch to the last CTA's end, launch overhead included";
    InstExecuted = "smsp__inst_executed.sum", "inst", Sum, "Warp-level machine instructions issued";
    WarpsActivePct = "sm__warps_active.avg.pct_of_peak_sustained_active", "%", Ratio, "Resident warps per active SM cycle, as a percentage of sm.max_warps";
    SmCyclesActive = "sm__cycles_active.avg", "cycle", Avg, "Cycles an SM had at least one resident warp, averaged over SMs";
    DramBytesRead = "dram__bytes_read.sum", "byte", Sum, "Bytes read from DRAM";
    DramBytesWrite = "dram__bytes_write.sum", "byte", Sum, "Bytes written to DRAM";
    L2SectorsRead = "lts__t_sectors_op_read.sum", "sector", Sum, "L2 sectors accessed by reads (launch and code reads included)";
    L2SectorsWrite = "lts__t_sectors_op_write.sum", "sector", Sum, "L2 sectors accessed by writes";
    L2SectorsAtom = "lts__t_sectors_op_atom.sum", "sector", Sum, "L2 sectors accessed by atomics that return a value";
    L2SectorsRed = "lts__t_sectors_op_red.sum", "sector", Sum, "L2 sectors accessed by reductions (atomics without a return value)";
    L2SectorHitRate = "lts__t_sector_hit_rate.pct", "%", Ratio, "L2 sector hits over sector lookups";
    L1SectorsGlobalLd = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "sector", Sum, "L1 sectors requested by global loads";
    L1RequestsGlobalLd = "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "request", Sum, "L1 requests (warp instructions) of global loads";
    L1SectorsGlobalSt = "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "sector", Sum, "L1 sectors written by global stores";
    L1SectorsGlobalAtom = "l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum", "sector", Sum, "L1 sectors of global atomics that return a value (one per lookup at the L2)";
    L1SectorsGlobalRed = "l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum", "sector", Sum, "L1 sectors of global reductions (atomics without a return value)";
    L1SectorHitRate = "l1tex__t_sector_hit_rate.pct", "%", Ratio, "L1 sector hits (global loads, and stores to sectors present) over the sectors of global loads, stores, atomics and reductions";
    SmemBankConflicts = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum", "conflict", Sum, "Shared-memory bank conflicts: wavefronts beyond the first of each access";
    SmemWavefronts = "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum", "wavefront", Sum, "Shared-memory data wavefronts";
    RegistersPerThread = "launch__registers_per_thread", "register", Launch, "Registers per thread the launch allocates";
    OccupancyLimitBlocks = "launch__occupancy_limit_blocks", "block", Launch, "CTAs per SM allowed by the CTA slot limit";
    OccupancyLimitWarps = "launch__occupancy_limit_warps", "block", Launch, "CTAs per SM allowed by the warp slots";
    OccupancyLimitRegisters = "launch__occupancy_limit_registers", "block", Launch, "CTAs per SM allowed by the register file";
    OccupancyLimitSharedMem = "launch__occupancy_limit_shared_mem", "block", Launch, "CTAs per SM allowed by shared memory";
    FlopsHadd = "smsp__sass_thread_inst_executed_op_hadd_pred_on.sum", "inst", Sum, "Thread-level half-precision adds executed";
    FlopsHmul = "smsp__sass_thread_inst_executed_op_hmul_pred_on.sum", "inst", Sum, "Thread-level half-precision multiplies executed";
    FlopsHfma = "smsp__sass_thread_inst_executed_op_hfma_pred_on.sum", "inst", Sum, "Thread-level half-precision fused multiply-adds executed";
    FlopsFadd = "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum", "inst", Sum, "Thread-level single-precision adds executed";
    FlopsFmul = "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum", "inst", Sum, "Thread-level single-precision multiplies executed";
    FlopsFfma = "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", "inst", Sum, "Thread-level single-precision fused multiply-adds executed";
    FlopsDadd = "smsp__sass_thread_inst_executed_op_dadd_pred_on.sum", "inst", Sum, "Thread-level double-precision adds executed";
    FlopsDmul = "smsp__sass_thread_inst_executed_op_dmul_pred_on.sum", "inst", Sum, "Thread-level double-precision multiplies executed";
    FlopsDfma = "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum", "inst", Sum, "Thread-level double-precision fused multiply-adds executed";
    IpcActive = "sm__inst_executed.avg.per_cycle_active", "inst/cycle", Ratio, "Machine instructions per active SM cycle (IPC per SM)";
}

impl Counter {
    /// The counter of an Nsight Compute name, if the simulator produces it.
    pub fn from_name(name: &str) -> Option<Counter> {
        Counter::ALL.iter().copied().find(|c| c.name() == name)
    }
}

/// L2 sector lookups, hits and misses (ncu's name): what the L2 hit rate is a ratio of. Not a
/// registered counter (the model's own lookups are [`crate::engine::TimingResult::l2_lookups`]),
/// but ncu collects it (`validate/collect.sh`).
pub const L2_LOOKUPS: &str = "lts__t_sectors.sum";

/// The sectors the L1 hit rate is a ratio of: global loads, stores, atomics and reductions.
const L1_LOOKUPS: &[&str] = &[
    Counter::L1SectorsGlobalLd.name(),
    Counter::L1SectorsGlobalSt.name(),
    Counter::L1SectorsGlobalAtom.name(),
    Counter::L1SectorsGlobalRed.name(),
];

/// The metrics whose sum weights a ratio metric `name` when launches are combined: its
/// denominator, or a fixed multiple of it (warps active per cycle and IPC are per active SM
/// cycle, a hit rate per lookup, a stall ratio per issued instruction); `None` for a metric
/// that is not a ratio. Ratios nothing here knows are weighted by the launch's cycles.
pub fn ratio_weight(name: &str) -> Option<&'static [&'static str]> {
    match Counter::from_name(name) {
        Some(Counter::WarpsActivePct | Counter::IpcActive) => Some(const { &[Counter::SmCyclesActive.name()] }),
        Some(Counter::L2SectorHitRate) => Some(&[L2_LOOKUPS]),
        Some(Counter::L1SectorHitRate) => Some(L1_LOOKUPS),
        Some(c) => (c.agg() == Agg::Ratio).then_some(const { &[Counter::CyclesElapsed.name()] }),
        None if name.ends_with(".ratio") => Some(const { &[Counter::InstExecuted.name()] }),
        None if name.starts_with("launch__") || [".sum", ".max", ".avg"].iter().any(|s| name.ends_with(s)) => None,
        None => Some(const { &[Counter::CyclesElapsed.name()] }),
    }
}

/// The counters of a sequence of launches, from each launch's (metric name → value) in order:
/// see the module doc. A metric missing from a launch counts as 0 there (as a weight too); a
/// ratio whose weights are all 0 is the launches' mean.
pub fn combine_launches<'a>(launches: impl IntoIterator<Item = &'a BTreeMap<String, f64>>) -> BTreeMap<String, f64> {
    let launches: Vec<&BTreeMap<String, f64>> = launches.into_iter().collect();
    let names: std::collections::BTreeSet<&String> = launches.iter().flat_map(|m| m.keys()).collect();
    let value = |m: &BTreeMap<String, f64>, k: &str| m.get(k).copied().unwrap_or(0.0);
    names
        .into_iter()
        .map(|name| {
            let values = launches.iter().map(|m| value(m, name));
            let v = if Counter::from_name(name).map_or(name.starts_with("launch__"), |c| c.agg() == Agg::Launch) {
                values.fold(f64::MIN, f64::max)
            } else if let Some(w) = ratio_weight(name) {
                let weight = |m: &BTreeMap<String, f64>| w.iter().map(|k| value(m, k)).sum::<f64>();
                let total: f64 = launches.iter().map(|m| weight(m)).sum();
                if total > 0.0 {
                    launches.iter().map(|m| value(m, name) * weight(m)).sum::<f64>() / total
                } else {
                    values.sum::<f64>() / launches.len() as f64
                }
            } else {
                values.sum()
            };
            (name.clone(), v)
        })
        .collect()
}

/// A warp state (Nsight Compute's stall reasons): the index of the per-SM stall-cycle counters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Stall {
    /// The warp issued this cycle.
    Selected,
    /// Ready, but the scheduler picked another warp.
    NotSelected,
    /// Waiting on a fixed-latency dependence.
    Wait,
    /// Waiting on an MIO result (shared memory, SFU, warp collectives).
    ShortScoreboard,
    /// Waiting on an L1TEX result (global or local memory).
    LongScoreboard,
    /// Waiting at a barrier.
    Barrier,
    /// Waiting for a busy pipe.
    MathPipeThrottle,
    /// Waiting for a divergent branch to resolve its targets.
    BranchResolving,
    /// Anything else (just launched, no dependence).
    Misc,
}

impl Stall {
    /// Every state, in the order of the stall-cycle arrays.
    pub const ALL: [Stall; 9] = [
        Stall::Selected,
        Stall::NotSelected,
        Stall::Wait,
        Stall::ShortScoreboard,
        Stall::LongScoreboard,
        Stall::Barrier,
        Stall::MathPipeThrottle,
        Stall::BranchResolving,
        Stall::Misc,
    ];

    /// The warp state's name as Nsight Compute writes it (`long_scoreboard`).
    pub fn name(self) -> &'static str {
        match self {
            Stall::Selected => "selected",
            Stall::NotSelected => "not_selected",
            Stall::Wait => "wait",
            Stall::ShortScoreboard => "short_scoreboard",
            Stall::LongScoreboard => "long_scoreboard",
            Stall::Barrier => "barrier",
            Stall::MathPipeThrottle => "math_pipe_throttle",
            Stall::BranchResolving => "branch_resolving",
            Stall::Misc => "misc",
        }
    }

    /// The ncu metric of the state: average warps in it per issue-active cycle.
    pub fn ncu_metric(self) -> String {
        format!("smsp__average_warps_issue_stalled_{}_per_issue_active.ratio", self.name())
    }

    pub fn doc(self) -> &'static str {
        match self {
            Stall::Selected => "The warp issued this cycle",
            Stall::NotSelected => "Ready, but the scheduler picked another warp",
            Stall::Wait => "Waiting on a fixed-latency dependence",
            Stall::ShortScoreboard => "Waiting on an MIO result (shared memory, SFU, warp collectives)",
            Stall::LongScoreboard => "Waiting on an L1TEX result (global or local memory)",
            Stall::Barrier => "Waiting at a barrier",
            Stall::MathPipeThrottle => "Waiting for a busy pipe",
            Stall::BranchResolving => "Waiting for a divergent branch to resolve its targets",
            Stall::Misc => "Anything else (just launched, no dependence)",
        }
    }
}

/// One line of `warpsim metrics`: a counter, or a warp state (`stall_<state>` in sweep tables,
/// a fraction of warp-cycles).
#[derive(Debug, Clone, Serialize)]
pub struct MetricInfo {
    pub name: String,
    pub unit: String,
    pub aggregation: Agg,
    pub doc: String,
}

/// Every counter and then every warp state, as `warpsim metrics` lists them.
pub fn metric_infos() -> Vec<MetricInfo> {
    let counters = Counter::ALL.iter().map(|c| MetricInfo {
        name: c.name().to_string(),
        unit: c.unit().to_string(),
        aggregation: c.agg(),
        doc: c.doc().to_string(),
    });
    let stalls = Stall::ALL.iter().map(|s| MetricInfo {
        name: s.ncu_metric(),
        unit: "fraction of warp-cycles".to_string(),
        aggregation: Agg::Ratio,
        doc: format!("Warp state `{}` (the run's `stalls`): {}", s.name(), s.doc()),
    });
    counters.chain(stalls).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(pairs: &[(&str, f64)]) -> BTreeMap<String, f64> {
        pairs.iter().map(|&(k, v)| (k.to_string(), v)).collect()
    }

    /// Three launches: sums and cycles add, the hit rate is hits over lookups of all three (not
    /// the mean of the rates), registers the largest, a stall ratio per issued instruction.
    #[test]
    fn launches_combine_sums_and_recompute_ratios() {
        let hit = Counter::L2SectorHitRate.name();
        let stall = Stall::Barrier.ncu_metric();
        let a = map(&[("gpc__cycles_elapsed.max", 100.0), ("dram__bytes_read.sum", 10.0), (hit, 50.0), (L2_LOOKUPS, 100.0), ("launch__registers_per_thread", 32.0), ("smsp__inst_executed.sum", 10.0), (&stall, 1.0)]);
        let b = map(&[("gpc__cycles_elapsed.max", 200.0), ("dram__bytes_read.sum", 20.0), (hit, 100.0), (L2_LOOKUPS, 300.0), ("launch__registers_per_thread", 40.0), ("smsp__inst_executed.sum", 30.0), (&stall, 3.0)]);
        let c = map(&[("gpc__cycles_elapsed.max", 300.0), ("dram__bytes_read.sum", 30.0), (hit, 0.0), (L2_LOOKUPS, 0.0), ("launch__registers_per_thread", 16.0), ("smsp__inst_executed.sum", 0.0), (&stall, 9.0)]);
        let m = combine_launches([&a, &b, &c]);
        assert_eq!(m["gpc__cycles_elapsed.max"], 600.0);
        assert_eq!(m["dram__bytes_read.sum"], 60.0);
        assert_eq!(m[L2_LOOKUPS], 400.0);
        assert_eq!(m[hit], (50.0 + 300.0) / 400.0 * 100.0);
        assert_eq!(m["launch__registers_per_thread"], 40.0);
        assert_eq!(m[&stall], (10.0 + 90.0) / 40.0);
        assert_eq!(combine_launches([&a]), a, "one launch is itself");
        // The L1 hit rate weighs each launch by all its L1 sectors (loads, stores, atomics).
        let l1 = Counter::L1SectorHitRate.name();
        let d = map(&[(l1, 50.0), (Counter::L1SectorsGlobalLd.name(), 100.0), (Counter::L1SectorsGlobalSt.name(), 100.0)]);
        let e = map(&[(l1, 0.0), (Counter::L1SectorsGlobalLd.name(), 100.0), (Counter::L1SectorsGlobalAtom.name(), 200.0)]);
        assert_eq!(combine_launches([&d, &e])[l1], 100.0 / 500.0 * 100.0);
        let zero = map(&[(hit, 10.0)]);
        assert_eq!(combine_launches([&zero, &map(&[(hit, 30.0)])])[hit], 20.0, "no weights: the mean");
    }

    #[test]
    fn names_are_unique_and_documented() {
        let mut names: Vec<&str> = Counter::ALL.iter().map(|c| c.name()).collect();
        names.sort();
        let n = names.len();
        names.dedup();
        assert_eq!(names.len(), n, "a counter name declared twice");
        for c in Counter::ALL {
            assert_eq!(Counter::from_name(c.name()), Some(*c));
            assert!(!c.unit().is_empty() && c.doc().len() > 8, "{c:?}");
        }
        for (i, s) in Stall::ALL.iter().enumerate() {
            assert_eq!(*s as usize, i, "Stall::ALL is in discriminant order");
        }
    }

    #[test]
    fn a_run_produces_exactly_the_registered_counters() {
        let cfg = crate::presets::preset("hopper-h200").unwrap();
        let w = warpsim_workloads::Workload::bundled("vector_add").unwrap();
        let t = crate::launch::run_timed(&w, &cfg, 1).unwrap().timing.unwrap();
        let produced: Vec<&str> = t.counters.keys().map(String::as_str).collect();
        let mut registered: Vec<&str> = Counter::ALL.iter().map(|c| c.name()).collect();
        registered.sort();
        assert_eq!(produced, registered);
        assert_eq!(t.get(Counter::CyclesElapsed), t.cycles as f64);
        let states: Vec<&str> = t.stalls.iter().map(|(s, _)| s.as_str()).collect();
        assert_eq!(states, Stall::ALL.map(Stall::name));
    }
}
