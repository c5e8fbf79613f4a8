//! The report `warpsim exec --report FILE.json` writes: the program, the preset, and every
//! kernel launch in order with its shape, simulated cycles and time (start and duration on the
//! device timeline, in µs) and the timing model's counters (Nsight Compute's names).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub program: String,
    pub arch: String,
    pub launches: Vec<LaunchRecord>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LaunchRecord {
    /// Demangled (`void scale<4>(float*, int)`); `mangled` is the PTX entry's name.
    pub kernel: String,
    pub mangled: String,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub dynamic_smem: u32,
    /// 0 for the default stream, else the stream's creation order from 1.
    pub stream: usize,
    pub regs_per_thread: u32,
    pub cycles: u64,
    pub start_us: f64,
    pub time_us: f64,
    pub warp_instructions: u64,
    pub occupancy_ctas_per_sm: u32,
    pub occupancy_limiter: String,
    pub counters: BTreeMap<String, f64>,
}

impl Report {
    /// Total simulated kernel time (µs) and cycles.
    pub fn totals(&self) -> (f64, u64) {
        (self.launches.iter().map(|l| l.time_us).sum(), self.launches.iter().map(|l| l.cycles).sum())
    }
}
