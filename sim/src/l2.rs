//! The L2 cache and everything behind it: crossbar, slices, partitions, DRAM.
//!
//! Lines are homed on one slice by an address hash. Each slice is a queue with a sector
//! throughput in front of a sectored tag store (write-back, write-allocate). With two partitions
//! (Ampere, Hopper), a read from an SM first looks in its own partition, where lines homed in the
//! other partition are replicated on use: a footprint under half the L2 hits "near", up to the
//! whole L2 hits "far" (extra latency), beyond it goes to DRAM — the three plateaus pointer-chase
//! measurements show. Requests arrive here in cycle order (the engine sorts them) and get their
//! completion cycle back.
//!
//! Counters follow the slices a request visits, as Nsight Compute's `lts__t_*` do: a request for
//! a line homed in the other partition is looked up at its near slice and again at home, so it
//! counts twice (and a near miss that hits at home is one miss and one hit). With lines spread
//! evenly over two partitions that is the 1.5× the H200 shows over the sectors the L1 sends: ncu's
//! `lts__t_sectors_op_read/write.sum` are 1.50–1.54× the L1's misses on streaming kernels of
//! `validate/data/h200/blind3`, and 1.0× on a chase whose lines stay replicated near.

use crate::cache::SectorCache;
use crate::config::ArchConfig;
use crate::dram::{hash_line, Dram};

/// A request from an SM's L1 to the memory system.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemReq {
    /// Cycle the request leaves the SM.
    pub t: u64,
    pub sm: u32,
    pub line: u64,
    pub sectors: u8,
    pub kind: ReqKind,
    /// Atomics: the most lanes updating one address (serialized), and the distinct addresses.
    pub ops: u16,
    pub words: u16,
    /// An atomic whose old value nothing reads: ptxas makes it a reduction (`RED`), which ncu
    /// counts apart (`lts__t_sectors_op_red`).
    pub red: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReqKind {
    Read,
    Write,
    Atomic,
}

/// L2 counters (Nsight Compute `lts__` names in `counters.rs`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct L2Stats {
    pub sectors_read: u64,
    pub sectors_write: u64,
    pub sectors_atom: u64,
    pub sectors_red: u64,
    pub sector_hits: u64,
    pub sector_misses: u64,
}

struct Slice {
    tags: SectorCache,
    free: f64,
}

pub struct MemSys {
    slices: Vec<Slice>,
    partitions: u32,
    per_partition: u32,
    sectors_per_cycle: f64,
    atomics_per_cycle: f64,
    atomic_words_per_cycle: f64,
    hit_latency: u64,
    far_extra: u64,
    atomic_extra: u64,
    sector: u64,
    /// Without an L2 (Tesla) every request goes straight to DRAM.
    has_l2: bool,
    pub dram: Dram,
    pub stats: L2Stats,
}

/// Sector lookups a request makes at one slice: its sectors, and for atomics once per lane
/// updating the same address (they are applied one after another: ncu counts 32 red sectors per
/// warp for one address, 4 for 32 words of one line).
fn lookups(r: &MemReq) -> u64 {
    let n = u64::from(r.sectors.count_ones());
    if r.kind == ReqKind::Atomic {
        n * u64::from(r.ops.max(1))
    } else {
        n
    }
}

impl MemSys {
    pub fn new(cfg: &ArchConfig) -> MemSys {
        let l2 = &cfg.l2;
        let partitions = l2.partitions.max(1);
        let slices = l2.slices.max(partitions).div_ceil(partitions) * partitions;
        let per_slice = l2.size_kib as u64 * 1024 / slices as u64;
        MemSys {
            slices: (0..slices).map(|_| Slice { tags: SectorCache::new(per_slice, l2.line, l2.assoc), free: 0.0 }).collect(),
            partitions,
            per_partition: slices / partitions,
            sectors_per_cycle: l2.sectors_per_cycle_per_slice.max(1e-3),
            atomics_per_cycle: l2.atomics_per_cycle_per_slice.max(1e-3),
            atomic_words_per_cycle: l2.atomic_words_per_cycle_per_slice.max(1e-3),
            hit_latency: l2.hit_latency as u64,
            far_extra: l2.far_extra_latency as u64,
            atomic_extra: cfg.misc.atomic_extra_latency as u64,
            sector: l2.sector.max(1) as u64,
            has_l2: l2.size_kib > 0,
            dram: Dram::new(&cfg.dram, cfg.clock.sm_mhz),
            stats: L2Stats::default(),
        }
    }

    fn home(&self, line: u64) -> (u32, u32) {
        let h = hash_line(line).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 17;
        ((h % self.partitions as u64) as u32, ((h / self.partitions as u64) % self.per_partition as u64) as u32)
    }

    fn slice_index(&self, partition: u32, idx: u32) -> usize {
        (partition * self.per_partition + idx) as usize
    }

    /// Waits for the slice and occupies it for `busy` cycles; returns the cycle service starts.
    fn queue(&mut self, s: usize, t: u64, busy: f64) -> u64 {
        let sl = &mut self.slices[s];
        let start = sl.free.max(t as f64);
        sl.free = start + busy;
        start.ceil() as u64
    }

    /// Slice cycles a request occupies.
    fn busy(&self, r: &MemReq) -> f64 {
        if r.kind == ReqKind::Atomic {
            (r.ops as f64 / self.atomics_per_cycle).max(r.words as f64 / self.atomic_words_per_cycle)
        } else {
            r.sectors.count_ones() as f64 / self.sectors_per_cycle
        }
    }

    /// Fills missing sectors from DRAM; returns when they are back at the SM.
    fn fill(&mut self, t: u64, line: u64, miss: u8) -> u64 {
        self.stats.sector_misses += miss.count_ones() as u64;
        self.dram.access(t, line, miss.count_ones() * self.sector as u32, false)
    }

    fn writeback(&mut self, t: u64, evicted: Option<(u64, u8)>) {
        if let Some((line, dirty)) = evicted {
            self.dram.access(t, line, dirty.count_ones() * self.sector as u32, true);
        }
    }

    /// Counts one slice lookup of the request's sectors (`lts__t_sectors_op_*`: every slice a
    /// request passes through counts it, so a line homed in the other partition counts twice).
    fn count(&mut self, r: &MemReq) {
        let n = lookups(r);
        match r.kind {
            ReqKind::Read => self.stats.sectors_read += n,
            ReqKind::Write => self.stats.sectors_write += n,
            ReqKind::Atomic if r.red => self.stats.sectors_red += n,
            ReqKind::Atomic => self.stats.sectors_atom += n,
        }
    }

    /// Services one request; returns the cycle its data (or acknowledgement) is back at the SM.
    pub fn access(&mut self, r: &MemReq) -> u64 {
        let n = r.sectors.count_ones();
        let lookups = lookups(r);
        self.count(r);
        if !self.has_l2 {
            return self.dram.access(r.t, r.line, n * self.sector as u32, r.kind == ReqKind::Write);
        }
        let (home_p, idx) = self.home(r.line);
        let home = self.slice_index(home_p, idx);
        let near_p = r.sm % self.partitions;
        match r.kind {
            ReqKind::Write | ReqKind::Atomic => {
                // Writes and atomics are performed at the line's home (the point of coherence);
                // a replica in the SM's partition is dropped.
                let mut t = r.t;
                if near_p != home_p {
                    // The near slice passes the request on: looked up (a hit) there too, and busy
                    // for it as for any lookup.
                    let near = self.slice_index(near_p, idx);
                    self.slices[near].tags.invalidate(r.line);
                    self.count(r);
                    self.stats.sector_hits += lookups;
                    t = self.queue(near, t, self.busy(r));
                }
                let atomic = r.kind == ReqKind::Atomic;
                let start = self.queue(home, t, self.busy(r));
                let far = if near_p != home_p { self.far_extra } else { 0 };
                if atomic {
                    let look = self.slices[home].tags.access(r.line, r.sectors, true, true, 0);
                    self.writeback(start, look.evicted);
                    // Same-address lanes after the first find the line there.
                    self.stats.sector_hits += look.hit.count_ones() as u64 + lookups - n as u64;
                    let data = if look.miss != 0 {
                        let done = self.fill(start, r.line, look.miss);
                        self.slices[home].tags.set_ready(r.line, done);
                        done
                    } else {
                        start.max(look.ready)
                    };
                    data.max(start + self.hit_latency) + far + self.atomic_extra
                } else {
                    let look = self.slices[home].tags.access(r.line, r.sectors, true, true, 0);
                    self.writeback(start, look.evicted);
                    self.stats.sector_hits += n as u64;
                    start + far + self.hit_latency / 2
                }
            }
            ReqKind::Read => {
                if near_p != home_p {
                    let near = self.slice_index(near_p, idx);
                    let start = self.queue(near, r.t, self.busy(r));
                    if self.slices[near].tags.contains(r.line, r.sectors) {
                        let look = self.slices[near].tags.access(r.line, r.sectors, false, false, 0);
                        self.stats.sector_hits += n as u64;
                        return (start + self.hit_latency).max(look.ready);
                    }
                    // A near miss: fetch from the home partition and keep a replica near.
                    self.stats.sector_misses += n as u64;
                    self.count(r);
                    let hs = self.queue(home, start, self.busy(r));
                    let done = self.read_home(home, hs, r.line, r.sectors) + self.far_extra;
                    let look = self.slices[near].tags.access(r.line, r.sectors, false, true, done);
                    self.writeback(start, look.evicted);
                    return done;
                }
                let start = self.queue(home, r.t, self.busy(r));
                self.read_home(home, start, r.line, r.sectors)
            }
        }
    }

    /// A read at the home slice that already started service at `start`.
    fn read_home(&mut self, home: usize, start: u64, line: u64, sectors: u8) -> u64 {
        let look = self.slices[home].tags.access(line, sectors, false, true, 0);
        self.writeback(start, look.evicted);
        self.stats.sector_hits += look.hit.count_ones() as u64;
        let hit_done = (start + self.hit_latency).max(look.ready);
        if look.miss == 0 {
            return hit_done;
        }
        let done = self.fill(start, line, look.miss).max(hit_done);
        self.slices[home].tags.set_ready(line, done);
        done
    }
}
