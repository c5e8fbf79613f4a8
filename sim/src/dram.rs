//! DRAM / HBM: independent channels, each a bandwidth-limited queue in front of banks with
//! open rows.
//!
//! A transfer of some sectors of a line waits for its channel, occupies it for the aligned
//! `burst_bytes` blocks it touches (`blocks × burst_bytes / channel bandwidth` cycles: a lone
//! 32-byte sector costs a whole burst where bursts are longer, though only its 32 bytes count in
//! `dram__bytes_*`), and completes after the configured latency, plus a row-miss penalty when its
//! row is not open. Where a line lives comes from the L2 (each slice's lines on the channel
//! behind it, a row holding consecutive lines of one slice: [`Place`]); without an L2 a hash of
//! the line address spreads lines over the channels.
//!
//! The controllers reorder their queues to serve open rows first (first-ready scheduling):
//! requests arrive here one by one in time order, so a request for a row its bank opened within
//! `reorder_window` cycles of the row's latest request is a hit, served with that activation
//! (a bank keeps [`ROWS`] such rows), while any other opens a row, and a channel opens one row
//! per `activate_cycles` at most (the four-activation window of HBM): scattered 64-byte accesses,
//! one activation each, then move less than streams do.
//!
//! Under load every access takes longer still, before any channel saturates: the latency grows
//! by `loaded_latency` times the recent use of the whole device's bandwidth (bytes moved,
//! averaged with the time constant `load_window`, over the bandwidth): the queues of the
//! controllers and the crossbar that the channel queues alone do not show.

use crate::coalescer::{LINE, SECTOR};
use crate::config::Dram as DramCfg;

/// Rows a bank's queue serves hits for at once: a request for any of them within the reorder
/// window is a row hit.
const ROWS: usize = 4;

/// A line's place in DRAM: its channel and its index among the channel's lines (consecutive
/// indices share a row).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Place {
    pub channel: u32,
    pub index: u64,
}

/// A row a bank opened: the cycle of its activation and of its latest request.
#[derive(Debug, Clone, Copy)]
struct OpenRow {
    row: u64,
    opened: f64,
    last: u64,
}

const CLOSED: OpenRow = OpenRow { row: u64::MAX, opened: 0.0, last: 0 };

pub struct Dram {
    /// Bytes per SM cycle per channel.
    bytes_per_cycle: f64,
    channel_free: Vec<f64>,
    /// Rows recently opened per (channel, bank).
    open_rows: Vec<[OpenRow; ROWS]>,
    /// Cycle the channel may next activate a row.
    activate_free: Vec<f64>,
    activate_cycles: f64,
    reorder_window: u64,
    banks: u64,
    /// Lines of a channel per DRAM row.
    lines_per_row: u64,
    latency: u64,
    row_miss_penalty: u64,
    /// Sector masks of the aligned bursts of a line (`burst_bytes / 32` sectors each).
    bursts: Vec<u8>,
    burst_bytes: f64,
    /// Bytes per SM cycle of the whole device.
    total_bytes_per_cycle: f64,
    loaded_latency: f64,
    load_window: f64,
    /// Recent bytes per cycle (moving average over `load_window`) and the cycle it was last updated.
    recent: f64,
    recent_t: u64,
    pub bytes_read: u64,
    pub bytes_written: u64,
    pub row_hits: u64,
    pub row_misses: u64,
}

/// Spreads line addresses over channels (XOR-folding the upper bits like real address hashes).
pub fn hash_line(line: u64) -> u64 {
    let l = line >> 7;
    l ^ (l >> 7) ^ (l >> 13) ^ (l >> 19)
}

impl Dram {
    pub fn new(cfg: &DramCfg, sm_mhz: f64) -> Dram {
        let channels = cfg.channels.max(1) as usize;
        let total = cfg.bandwidth_gbs * 1e9 / (sm_mhz * 1e6);
        Dram {
            bytes_per_cycle: total / channels as f64,
            channel_free: vec![0.0; channels],
            open_rows: vec![[CLOSED; ROWS]; channels * cfg.banks.max(1) as usize],
            activate_free: vec![0.0; channels],
            activate_cycles: cfg.activate_cycles.max(0.0),
            reorder_window: u64::from(cfg.reorder_window),
            banks: cfg.banks.max(1) as u64,
            lines_per_row: (cfg.row_bytes as u64 / LINE).max(1),
            latency: cfg.latency as u64,
            row_miss_penalty: cfg.row_miss_penalty as u64,
            bursts: {
                let per = (cfg.burst_bytes / SECTOR as u32).clamp(1, 4);
                (0..4 / per).map(|k| (((1u32 << per) - 1) << (k * per)) as u8).collect()
            },
            burst_bytes: f64::from(cfg.burst_bytes.max(SECTOR as u32)),
            total_bytes_per_cycle: total,
            loaded_latency: f64::from(cfg.loaded_latency),
            load_window: f64::from(cfg.load_window.max(1)),
            recent: 0.0,
            recent_t: 0,
            bytes_read: 0,
            bytes_written: 0,
            row_hits: 0,
            row_misses: 0,
        }
    }

    /// Where a line lives when no cache sits in front of the channels (Tesla): its channel by a
    /// hash of the line address, its index the line number over the channel count, so a row
    /// holds lines of one neighbourhood of addresses.
    pub fn place_hashed(&self, line_addr: u64) -> Place {
        let channels = self.channel_free.len() as u64;
        let line = line_addr / LINE;
        let h = hash_line(line_addr);
        Place { channel: (h % channels) as u32, index: line / channels }
    }

    /// The channels' count.
    pub fn channels(&self) -> u64 {
        self.channel_free.len() as u64
    }

    /// A transfer of the `sectors` of the line at `line_addr` arriving at cycle `t`; returns the
    /// cycle the data is back at the requesting SM (reads) or written (writes).
    pub fn access(&mut self, t: u64, line_addr: u64, sectors: u8, write: bool) -> u64 {
        let at = self.place_hashed(line_addr);
        self.transfer(t, at, sectors, write).1
    }

    /// A transfer of the `sectors` of the line at `at` arriving at cycle `t`: the cycle the
    /// channel starts moving it, and the cycle the data is back (reads) or written (writes).
    pub fn transfer(&mut self, t: u64, at: Place, sectors: u8, write: bool) -> (u64, u64) {
        let bytes = sectors.count_ones() * SECTOR as u32;
        let bursts = self.bursts.iter().filter(|&&b| sectors & b != 0).count();
        let ch = at.channel as usize;
        let row = at.index / self.lines_per_row;
        let bank = (hash_line(row << 7) % self.banks) as usize;
        let slot = ch * self.banks as usize + bank;
        let start = self.channel_free[ch].max(t as f64);
        let moved = bursts as f64 * self.burst_bytes;
        self.channel_free[ch] = start + moved / self.bytes_per_cycle;
        let rows = &mut self.open_rows[slot];
        let window = self.reorder_window;
        let (penalty, ready) = if let Some(r) = rows.iter_mut().find(|r| r.row == row && t <= r.last + window) {
            // The controller serves it with the row's activation (first-ready scheduling).
            r.last = r.last.max(t);
            self.row_hits += 1;
            (0, start.max(r.opened))
        } else {
            // A new activation, after the channel's previous one.
            self.row_misses += 1;
            let opened = self.activate_free[ch].max(t as f64);
            self.activate_free[ch] = opened + self.activate_cycles;
            // It replaces a closed or expired row, else the least recently requested.
            let stale = rows.iter_mut().min_by_key(|r| (r.row != CLOSED.row && t <= r.last + window, r.last)).expect("ROWS > 0");
            *stale = OpenRow { row, opened, last: t };
            (self.row_miss_penalty, start.max(opened))
        };
        let load = self.load(t, moved);
        if write {
            self.bytes_written += bytes as u64;
        } else {
            self.bytes_read += bytes as u64;
        }
        (ready.ceil() as u64, ready.ceil() as u64 + self.latency + penalty + load)
    }

    /// Adds `moved` bytes at cycle `t` to the recent use; returns the latency that use adds.
    fn load(&mut self, t: u64, moved: f64) -> u64 {
        if self.loaded_latency == 0.0 {
            return 0;
        }
        if t > self.recent_t {
            self.recent *= (-((t - self.recent_t) as f64) / self.load_window).exp();
            self.recent_t = t;
        }
        self.recent += moved / self.load_window;
        (self.loaded_latency * (self.recent / self.total_bytes_per_cycle).min(1.0)).round() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg() -> DramCfg {
        DramCfg { channels: 2, banks: 4, row_bytes: 2048, bandwidth_gbs: 2.0 * 64.0, latency: 100, row_miss_penalty: 20, activate_cycles: 0.0, reorder_window: 0, burst_bytes: 32, loaded_latency: 0, load_window: 1000 }
    }

    #[test]
    fn latency_bandwidth_and_rows() {
        // 128 GB/s at 1000 MHz = 128 B/cycle total, 64 per channel.
        let mut d = Dram::new(&cfg(), 1000.0);
        let first = d.access(0, 0, 0b1111, false);
        assert_eq!(first, 100 + 20); // row miss
        // The same line again right away: the channel is busy for 2 cycles, the row is open.
        let again = d.access(0, 0, 0b1111, false);
        assert_eq!(again, 2 + 100);
        assert_eq!((d.row_hits, d.row_misses), (1, 1));
        assert_eq!(d.bytes_read, 256);
    }

    #[test]
    fn streaming_is_bandwidth_bound() {
        let mut d = Dram::new(&cfg(), 1000.0);
        let mut last = 0;
        for i in 0..1000u64 {
            last = last.max(d.access(0, i * 128, 0b1111, false));
        }
        // 128 000 bytes at 128 B/cycle ≈ 1000 cycles plus latency.
        assert!((1000..1300).contains(&last), "{last}");
    }

    #[test]
    fn latency_grows_with_recent_use() {
        // 128 B/cycle in all, a 1000-cycle window, 200 cycles more at full use. Idle, an access
        // costs the plain latency. Moving 64 B per cycle (half the bandwidth), the use after
        // 1000 cycles is 0.5 × (1 - 1/e) and adds 63; long after, 0.5 adds 100.
        let loaded = DramCfg { loaded_latency: 200, row_miss_penalty: 0, ..cfg() };
        let mut d = Dram::new(&loaded, 1000.0);
        assert_eq!(d.access(0, 0, 0b1111, false), 100);
        let mut d = Dram::new(&loaded, 1000.0);
        let run = |d: &mut Dram, from: u64, to: u64| (from..to).step_by(2).map(|t| d.load(t, 128.0)).last().unwrap();
        assert_eq!(run(&mut d, 0, 1000), 63);
        assert_eq!(run(&mut d, 1000, 20_000), 100);
        // An idle spell lets it decay: 1000 cycles later a single access adds 100/e.
        assert_eq!(d.load(21_000, 0.0), 37);
        // Off (0), nothing is added whatever the use.
        let mut d = Dram::new(&DramCfg { row_miss_penalty: 0, ..cfg() }, 1000.0);
        assert_eq!(run(&mut d, 0, 20_000), 0);
    }

    #[test]
    fn a_lone_sector_costs_a_whole_burst() {
        // 64 B per channel-cycle, eight transfers at once: the last starts after seven. A lone
        // sector takes half a cycle of the bus with 32-byte bursts and a whole one with 64-byte
        // bursts; two sectors of one burst cost one burst, of two bursts two. Only the sectors'
        // bytes count.
        let cost = |burst_bytes, sectors: &[u8]| {
            let mut d = Dram::new(&DramCfg { burst_bytes, row_miss_penalty: 0, ..cfg() }, 1000.0);
            let last = sectors.iter().map(|&s| d.access(0, 0, s, true)).max().unwrap();
            (last - 100, d.bytes_written)
        };
        assert_eq!(cost(32, &[0b0001; 8]), (4, 256));
        assert_eq!(cost(64, &[0b0001; 8]), (7, 256));
        assert_eq!(cost(64, &[0b0011; 8]), (7, 512));
        assert_eq!(cost(64, &[0b0101; 8]), (14, 512));
        assert_eq!(cost(128, &[0b0001; 8]), (14, 256));
    }

    #[test]
    fn a_channel_opens_one_row_per_activate_cycles() {
        // 64 B per channel-cycle; 16 lines per row. Sixteen accesses to sixteen rows of one
        // channel at once: with a row every 10 cycles the last opens 150 cycles after the first.
        let at = |row: u64| Place { channel: 0, index: row * 16 };
        let last = |activate_cycles| {
            let mut d = Dram::new(&DramCfg { activate_cycles, reorder_window: 1000, ..cfg() }, 1000.0);
            (0..16).map(|r| d.transfer(0, at(r), 0b1111, false).1).max().unwrap()
        };
        assert_eq!(last(0.0), 30 + 100 + 20, "bandwidth-bound: 16 × 2 cycles");
        assert_eq!(last(10.0), 150 + 100 + 20);
        // The sixteen lines of one row need one activation: the limit does not bind.
        let mut d = Dram::new(&DramCfg { activate_cycles: 10.0, reorder_window: 1000, ..cfg() }, 1000.0);
        let one_row = (0..16).map(|i| d.transfer(0, Place { channel: 0, index: i }, 0b1111, false).1).max().unwrap();
        assert_eq!(one_row, 30 + 100, "the last is a row hit");
        assert_eq!((d.row_hits, d.row_misses), (15, 1));
    }

    #[test]
    fn requests_for_a_recently_opened_row_are_served_with_it() {
        // Two rows of one bank requested in turn (A B A B ...): first-ready reordering serves
        // each row's requests together, so within the window only the first two open a row.
        let bank = |d: &Dram, row: u64| hash_line(row << 7) % d.banks;
        let d = Dram::new(&cfg(), 1000.0);
        let b = (1..).find(|&r| bank(&d, r) == bank(&d, 0)).unwrap();
        let run = |reorder_window| {
            let mut d = Dram::new(&DramCfg { reorder_window, ..cfg() }, 1000.0);
            for k in 0..8u64 {
                let row = if k % 2 == 0 { 0 } else { b };
                d.transfer(k * 10, Place { channel: 1, index: row * 16 + k }, 0b0001, false);
            }
            (d.row_hits, d.row_misses)
        };
        assert_eq!(run(100), (6, 2));
        // A window shorter than the gap between a row's requests: every one opens its row.
        assert_eq!(run(5), (0, 8));
    }
}
