//! `RunRecord`: what `warpsim run --json` prints about a timed run, and what `warpsim report`
//! reads back: one struct, so the writer and the reader cannot drift apart.
//!
//! Besides cycles it carries the SM clock and the GPU time (µs = cycles / MHz): cycles compare
//! runs of one preset, time compares presets whose clocks differ.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use warpsim_workloads::Workload;

use crate::config::ArchConfig;
use crate::engine::{CtaSpan, TimingResult};
use crate::launch::Outcome;

/// Bytes of register spills ptxas reports for the kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SpillBytes {
    pub store_bytes: u32,
    pub load_bytes: u32,
    pub stack_bytes: u32,
}

/// How many CTAs fit on an SM, and which resource limits them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OccupancyRecord {
    pub ctas_per_sm: u32,
    pub limiter: String,
}

/// One kernel launch of a workload's launch sequence (each repetition its own).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LaunchRun {
    pub entry: String,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub registers_per_thread: u32,
    pub cycles: u64,
    pub time_us: f64,
}

/// One timed run of a workload on a configuration: a multi-launch workload's totals (cycles and
/// counters of the whole sequence), the first launch's shape, every launch in `launches`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    pub workload: String,
    /// The configuration's `name` (a preset name, or the name inside a preset file).
    pub arch: String,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub num_sms: u32,
    pub max_warps_per_sm: u32,
    pub warps_per_cta: u32,
    pub registers_per_thread: u32,
    pub registers_source: String,
    pub spills: SpillBytes,
    pub ctas: Vec<CtaSpan>,
    /// Simulated SM cycles.
    pub cycles: u64,
    /// The SM clock the cycles are at (`clock.sm_mhz`, MHz).
    pub clock_mhz: f64,
    /// GPU time: cycles / clock (µs).
    pub time_us: f64,
    /// Counters under Nsight Compute's names.
    pub counters: BTreeMap<String, f64>,
    /// Fraction of warp-cycles per warp state.
    pub stalls: BTreeMap<String, f64>,
    pub warp_instructions: u64,
    /// Host seconds the simulation took.
    pub sim_seconds: f64,
    pub occupancy: OccupancyRecord,
    /// The output check's status (`Pass`, `Fail`, `NotChecked`).
    pub check: String,
    /// Every launch of the sequence (empty in records written before sequences existed).
    #[serde(default)]
    pub launches: Vec<LaunchRun>,
}

impl RunRecord {
    pub fn new(w: &Workload, cfg: &ArchConfig, o: &Outcome, t: &TimingResult) -> RunRecord {
        let l = w.launch();
        RunRecord {
            workload: w.manifest.name.clone(),
            arch: cfg.name.clone(),
            grid: l.grid,
            block: l.block,
            num_sms: cfg.sm.count,
            max_warps_per_sm: cfg.sm.max_warps,
            warps_per_cta: u32::try_from(l.threads_per_block().div_ceil(32)).unwrap_or(u32::MAX),
            registers_per_thread: o.regs_per_thread,
            registers_source: l.regs_source.to_string(),
            spills: SpillBytes {
                store_bytes: l.spills.store_bytes,
                load_bytes: l.spills.load_bytes,
                stack_bytes: l.spills.stack_bytes,
            },
            ctas: t.ctas.clone(),
            cycles: t.cycles,
            clock_mhz: cfg.clock.sm_mhz,
            time_us: gpu_time_us(t.cycles, cfg.clock.sm_mhz),
            counters: t.counters.clone(),
            stalls: t.stalls.iter().cloned().collect(),
            warp_instructions: t.warp_instructions,
            sim_seconds: o.seconds,
            occupancy: OccupancyRecord { ctas_per_sm: t.occupancy_ctas_per_sm, limiter: t.occupancy_limiter.clone() },
            check: format!("{:?}", o.check.status),
            launches: o
                .launches
                .iter()
                .map(|(i, r)| LaunchRun {
                    entry: w.manifest.launches[*i].entry.clone(),
                    grid: w.launches[*i].grid,
                    block: w.launches[*i].block,
                    registers_per_thread: o.device.launches[*i].regs_per_thread,
                    cycles: r.cycles,
                    time_us: gpu_time_us(r.cycles, cfg.clock.sm_mhz),
                })
                .collect(),
        }
    }
}

/// GPU time of `cycles` SM cycles at `mhz` (µs).
pub fn gpu_time_us(cycles: u64, mhz: f64) -> f64 {
    cycles as f64 / mhz
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_times_clock_is_cycles() {
        for (c, mhz) in [(83606u64, 1980.0), (1, 1530.0), (10_000_000, 1410.0)] {
            let t = gpu_time_us(c, mhz);
            assert!((t * mhz - c as f64).abs() <= 1e-9 * c as f64, "{c} at {mhz}: {t}");
        }
        assert_eq!(gpu_time_us(1980, 1980.0), 1.0);
    }

    #[test]
    fn a_record_round_trips_through_json() {
        let cfg = crate::presets::preset("volta-gv100").unwrap();
        let w = Workload::bundled("vector_add").unwrap();
        let o = crate::launch::run_timed(&w, &cfg, 1).unwrap();
        let r = RunRecord::new(&w, &cfg, &o, o.timing.as_ref().unwrap());
        assert_eq!(r.clock_mhz, cfg.clock.sm_mhz);
        assert!((r.time_us * r.clock_mhz - r.cycles as f64).abs() < 1e-6);
        let back: RunRecord = serde_json::from_str(&serde_json::to_string(&r).unwrap()).unwrap();
        assert_eq!(back, r);
    }
}
