//! The L2 cache and everything behind it: crossbar, slices, partitions, DRAM.
//!
//! Lines are homed on one slice by an address hash measured on the H200
//! (`validate/data/h200/l2hash`): the line bits of `l2.slice_shared_line_bits` do not select the
//! slice (there lines k, k+1, k+4, k+5 share one, so 1 KiB of lines lives on 2 slices), and the
//! units the other bits number are spread by a hash that is even per block of
//! `slices × l2.placement_runs` consecutive units: a fixed permutation spreads the block's units
//! over its `placement_runs` runs of every slice (rotated per block), and a slice stores a line
//! by its run number. A contiguous footprint so fills slices and sets evenly (the 40 MiB
//! capacity sweep of `validate/data/h200/membench` hits 95% from its second pass, which a random
//! placement cannot reach: with 20 ways the sets overflow), while nearby units take distinct
//! slices as on the H200 (32 aligned consecutive quads always 32 slices, 128 of them all).
//!
//! Atomics are applied at the line's home by the slice's atomic unit, one sector lookup after
//! another (faster for lookups that update whole sectors); a returning atomic also holds its
//! line until its old value is out, a reduction does not. A returning atomic homed in the other
//! partition also passes its whole sectors through the near slice's atomic unit on the way, so
//! slices homing hot lines in one partition slow those homed in the other.
//!
//! In front of the slices each GPC has a request coalescer: a read of sectors that an earlier
//! read from the same GPC is still fetching rides it, up to `l2.coalescer_merge` requests on
//! one, and no slice serves or counts it (`validate/data/h100/lrc`: SMs of one GPC reading the
//! same lines at once make one lookup per 3-4 readers, SMs of different GPCs never merge).
//!
//! Each slice is a queue with a sector throughput in front of a sectored tag store (write-back,
//! write-allocate with byte-masked partial sectors). With two partitions (Ampere, Hopper), a
//! read from an SM first looks in its own partition, where lines homed in the other partition are replicated on use: a footprint under half the L2 hits "near", up to the
//! whole L2 hits "far" (extra latency), beyond it goes to DRAM — the three plateaus pointer-chase
//! measurements show. Requests arrive here in cycle order (the engine sorts them) and get their
//! completion cycle back.
//!
//! A read miss fetches the aligned `l2.promotion_bytes` block around each missing sector from
//! DRAM and fills all of it (sector promotion): on the H200 a one-sector-per-line read counts two
//! missed sectors and two sector fills per request and twice the DRAM bytes
//! (`lts__t_sectors_srcunit_tex_op_read_lookup_miss`, `lts__d_sectors_fill_device`,
//! `dram__bytes_read`: ld_stride_32, gathers, the capacity sweep), while reads of whole lines
//! are unchanged. A dirty sector evicted with bytes never written is first read from DRAM
//! (read-modify-write) and merged, one more write lookup at the slice, a miss (strided 4-byte stores:
//! DRAM reads ≈ DRAM writes of the evicted sectors, op_write ≈ 1.5 × stores + the evictions).
//!
//! Counters follow the slices a request visits, as Nsight Compute's `lts__t_*` do: a request for
//! a line homed in the other partition is looked up at its near slice and again at home, so it
//! counts twice (and a near miss that hits at home is one miss and one hit). With lines spread
//! evenly over two partitions that is the 1.5× the H200 shows over the sectors the L1 sends: ncu's
//! `lts__t_sectors_op_read/write.sum` are 1.50–1.54× the L1's misses on streaming kernels of
//! `validate/data/h200/blind3`, and 1.0× on a chase whose lines stay replicated near. A read the
//! near slice promoted counts once: ncu's op_read equals its tex-side lookups (promoted sectors
//! included) on every one-sector-per-line read of membench, but 1.5× them on whole-line reads.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::hash::BuildHasherDefault;

use crate::coalescer::{LINE, SECTOR};
use crate::cache::{Evicted, SectorCache};
use crate::config::ArchConfig;
use crate::dram::Dram;
use crate::memory::PageHasher;
use crate::placement::Layout;

/// A request from an SM's L1 to the memory system.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemReq {
    /// Cycle the request leaves the SM.
    pub t: u64,
    pub sm: u32,
    pub line: u64,
    pub sectors: u8,
    /// Writes: the sectors every byte of which the request writes (the others are partial).
    pub full: u8,
    pub kind: ReqKind,
    /// Atomics: the most lanes updating one address of the line (the request's rounds: round k
    /// updates every word with more than k lanes on it), and the distinct addresses.
    pub ops: u16,
    pub words: u16,
    /// Atomics: sector lookups summed over the rounds, and those of them that update only part
    /// of their sector (their read-modify-write merges bytes).
    pub lookups: u16,
    pub partial: u16,
    /// An atomic whose old value nothing reads: ptxas makes it a reduction (`RED`), which ncu
    /// counts apart (`lts__t_sectors_op_red`).
    pub red: bool,
}

/// How a warp's atomic lanes on one line go to the L2: the distinct addresses (`size` bytes
/// each), in rounds (round k updates every address with more than k lanes on it).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AtomShape {
    pub rounds: u16,
    pub words: u16,
    /// Sector lookups over all rounds.
    pub lookups: u16,
    /// Lookups that write only part of their sector.
    pub partial: u16,
}

impl AtomShape {
    /// The shape of the lanes `(address, lanes on it)` of one line.
    pub fn of(addrs: impl Iterator<Item = (u64, u16)> + Clone, size: u32) -> AtomShape {
        let (rounds, words) = addrs.clone().fold((0u16, 0u16), |(o, w), x| (o.max(x.1), w + 1));
        let (mut lookups, mut partial) = (0u16, 0u16);
        for k in 0..rounds {
            let mut bytes = [0u32; 4];
            for (a, _) in addrs.clone().filter(|x| x.1 > k) {
                bytes[(a % 128 / 32) as usize] += size;
            }
            lookups += bytes.iter().filter(|&&b| b > 0).count() as u16;
            partial += bytes.iter().filter(|&&b| b > 0 && b < 32).count() as u16;
        }
        AtomShape { rounds, words, lookups, partial }
    }
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

/// A read the coalescer holds: the sectors it fetches, when it is back, and the requests riding
/// on it.
struct InFlight {
    sectors: u8,
    done: u64,
    riders: u32,
}

/// Cycles between two sweeps of the coalescer's finished entries.
const PURGE_CYCLES: u64 = 4096;

struct Slice {
    tags: SectorCache,
    free: f64,
    /// The cycle the slice's atomic unit is free again: it applies atomics behind the tag
    /// pipeline (`free`), which requests passing through to the far partition use alone.
    atomic_free: f64,
    /// Return cycles of the slice's outstanding DRAM reads, earliest first: at most
    /// `l2.mshrs_per_slice` at once; a further miss waits for the earliest to return.
    misses: BinaryHeap<Reverse<u64>>,
}

/// Where a line is homed: its partition, its slice within the partition, and its run number
/// (the key it is stored under in that slice).
#[derive(Debug, Clone, Copy)]
struct Home {
    partition: u32,
    idx: u32,
    run: u64,
}

/// Tag-store keys carry the home partition above the run number, so a replica of a far line
/// never aliases a line homed in the replica's own slice.
const PARTITION_SHIFT: u32 = 56;

fn mix(run: u64) -> u64 {
    run.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32
}

/// A fixed pseudo-random permutation of `0..n` (Fisher–Yates on a SplitMix64 stream seeded
/// 0x5EED), the same on every run and machine.
fn permutation(n: usize) -> Vec<u32> {
    let mut state = 0x5EED_u64;
    let mut p: Vec<u32> = (0..n as u32).collect();
    for i in (1..n).rev() {
        p.swap(i, (warpsim_workloads::rng::splitmix64(&mut state) % (i as u64 + 1)) as usize);
    }
    p
}

/// The bits of a line number that do not select its slice (`l2.slice_shared_line_bits`): the
/// lines that differ only in them share one slice. A line number splits into its unit (the
/// other bits, squeezed together: what the placement spreads) and its low part (those bits).
#[derive(Debug, Clone, Copy)]
struct SharedBits {
    mask: u64,
    bits: u32,
}

impl SharedBits {
    fn new(mask: u32) -> SharedBits {
        SharedBits { mask: u64::from(mask), bits: mask.count_ones() }
    }

    /// (unit, low part) of line number `l`.
    fn split(self, l: u64) -> (u64, u64) {
        let (mut unit, mut low, mut m, mut k) = (l, 0, self.mask, 0);
        while m != 0 {
            let b = 63 - m.leading_zeros();
            low |= (l >> b & 1) << (self.bits - 1 - k);
            unit = (unit >> (b + 1) << b) | (unit & ((1 << b) - 1));
            m &= !(1 << b);
            k += 1;
        }
        (unit, low)
    }

    /// The line number of `unit` and `low` (inverse of `split`).
    fn join(self, unit: u64, low: u64) -> u64 {
        let (mut l, mut m, mut k) = (unit, self.mask, 0);
        while m != 0 {
            let b = m.trailing_zeros();
            l = (l >> b << (b + 1)) | (low >> k & 1) << b | (l & ((1 << b) - 1));
            m &= m - 1;
            k += 1;
        }
        l
    }
}

pub struct MemSys {
    slices: Vec<Slice>,
    partitions: u32,
    shared: SharedBits,
    /// Runs per slice in one placement block (`l2.placement_runs`), the block's slot of each
    /// of its lines (`place`: slot / slices is the run, slot % slices the slice before the
    /// block's rotation) and the inverse (`unplace`).
    runs: u64,
    place: Vec<u32>,
    unplace: Vec<u32>,
    sectors_per_cycle: f64,
    write_sectors_per_cycle: f64,
    requests_per_cycle: f64,
    atomics_per_cycle: f64,
    atomic_request_cycles: f64,
    atomic_partial_cycles: f64,
    atomic_sector_cycles: f64,
    atomic_far_passes: f64,
    /// Per line updated by returning atomics: the cycle its read-modify-write unit is free again.
    line_atomic_free: HashMap<u64, f64>,
    /// The request coalescers' in-flight reads, by line and requesting GPC; entries
    /// finished by `purge_at` are dropped then.
    in_flight: HashMap<u64, InFlight, BuildHasherDefault<PageHasher>>,
    purge_at: u64,
    coalescer_merge: u32,
    /// The SMs' GPCs: an SM's GPC is its coalescer's, and its partition is the GPC's.
    layout: Layout,
    /// Each GPC's near partition, by GPC (`l2.gpc_partition`, else GPC mod partitions).
    gpc_part: Vec<u32>,
    hit_latency: u64,
    far_extra: u64,
    atomic_extra: u64,
    mshrs_per_slice: usize,
    /// Without an L2 (Tesla) every request goes straight to DRAM.
    has_l2: bool,
    pub dram: Dram,
    pub stats: L2Stats,
}

/// Sector lookups a request makes at one slice: its sectors, and for atomics each round's
/// sectors (lanes on one address are applied one after another: ncu counts 32 red sectors per
/// warp for one address, 4 for 32 words of one line, and for random keys the rounds' sectors).
fn lookups(r: &MemReq) -> u64 {
    if r.kind == ReqKind::Atomic {
        u64::from(r.lookups.max(1))
    } else {
        u64::from(r.sectors.count_ones())
    }
}

/// The L2 requests an atomic line request makes: one when all its lanes are on one address
/// (they chain inside it), else one per round.
fn atomic_requests(r: &MemReq) -> u16 {
    if r.words <= 1 {
        1
    } else {
        r.ops.max(1)
    }
}

/// Each GPC's near L2 partition: `given` where it names one below `partitions` for every GPC
/// of the layout (measured on the H100 and H200: GPCs 0, 4, 5, 6 in one, 1, 2, 3, 7 in the
/// other), else GPC mod `partitions` (unmeasured presets, or GPCs or partitions swept away
/// from the list's).
fn near_partitions(layout: &Layout, partitions: u32, given: &[u32]) -> Vec<u32> {
    let n = layout.gpcs();
    if given.len() == n && given.iter().all(|&p| p < partitions) {
        given.to_vec()
    } else {
        (0..n as u32).map(|g| g % partitions).collect()
    }
}

impl MemSys {
    pub fn new(cfg: &ArchConfig) -> MemSys {
        let l2 = &cfg.l2;
        let partitions = l2.partitions.max(1);
        let slices = l2.slices.max(partitions).div_ceil(partitions) * partitions;
        let per_slice = l2.size_kib as u64 * 1024 / slices as u64;
        let fill_block = (l2.promotion_bytes as u64 / SECTOR).clamp(1, LINE / SECTOR) as u32;
        let tags = || SectorCache::new(per_slice, LINE as u32, l2.assoc).with_partial_ways(l2.partial_ways).with_fill_block(fill_block);
        let runs = l2.placement_runs.max(1);
        let layout = Layout::new(&cfg.sm);
        let place = permutation((slices * runs) as usize);
        let mut unplace = vec![0u32; place.len()];
        for (l, &slot) in place.iter().enumerate() {
            unplace[slot as usize] = l as u32;
        }
        MemSys {
            slices: (0..slices).map(|_| Slice { tags: tags(), free: 0.0, atomic_free: 0.0, misses: BinaryHeap::new() }).collect(),
            partitions,
            shared: SharedBits::new(l2.slice_shared_line_bits),
            runs: u64::from(runs),
            place,
            unplace,
            sectors_per_cycle: l2.sectors_per_cycle_per_slice.max(1e-3),
            write_sectors_per_cycle: l2.write_sectors_per_cycle_per_slice.max(1e-3),
            requests_per_cycle: l2.requests_per_cycle_per_slice.max(1e-3),
            atomics_per_cycle: l2.atomics_per_cycle_per_slice.max(1e-3),
            atomic_request_cycles: l2.atomic_request_cycles.max(0.0),
            atomic_partial_cycles: l2.atomic_partial_cycles.max(0.0),
            atomic_sector_cycles: l2.atomic_sector_cycles.max(0.0),
            atomic_far_passes: l2.atomic_far_passes.max(0.0),
            line_atomic_free: HashMap::new(),
            in_flight: HashMap::default(),
            purge_at: 0,
            coalescer_merge: l2.coalescer_merge.max(1),
            gpc_part: near_partitions(&layout, l2.partitions.max(1), &l2.gpc_partition),
            layout,
            hit_latency: l2.hit_latency as u64,
            far_extra: l2.far_extra_latency as u64,
            atomic_extra: cfg.misc.atomic_extra_latency as u64,
            mshrs_per_slice: l2.mshrs_per_slice.max(1) as usize,
            has_l2: l2.size_kib > 0,
            dram: Dram::new(&cfg.dram, cfg.clock.sm_mhz),
            stats: L2Stats::default(),
        }
    }

    /// Counts the L2 reads a launch makes outside the kernel's own accesses: instruction fetch
    /// of its `code_instructions` machine instructions and the launch's fixed reads
    /// (`l2.launch_read_sectors`, `l2.code_read_sectors_per_instruction`). They hit (the
    /// H200's code_chain probes hit 74–83% of all their lookups with 96% of them such reads) and
    /// take no simulated time: the launch overhead already holds it.
    pub fn count_launch_reads(&mut self, cfg: &ArchConfig, code_instructions: u64) {
        if !self.has_l2 {
            return;
        }
        let l2 = &cfg.l2;
        let sectors = (l2.launch_read_sectors as f64 + l2.code_read_sectors_per_instruction * code_instructions as f64).round() as u64;
        self.stats.sectors_read += sectors;
        self.stats.sector_hits += sectors;
    }

    fn home(&self, line: u64) -> Home {
        let (unit, low) = self.shared.split(line / LINE);
        let n = self.slices.len() as u64;
        let per_block = n * self.runs;
        let block = unit / per_block;
        let slot = u64::from(self.place[(unit % per_block) as usize]);
        let run = (block * self.runs + slot / n) << self.shared.bits | low;
        let slice = (slot % n + mix(block) % n) % n;
        Home { partition: (slice % self.partitions as u64) as u32, idx: (slice / self.partitions as u64) as u32, run }
    }

    /// Where a line lives in DRAM: with the lines of the L2 numbered slice by slice within each
    /// run (run × slices + slice), channel by channel in turn, so each slice's lines go to the
    /// channel behind it (one per slice where there are as many; two slices per channel where
    /// half as many) and a DRAM row holds consecutive lines of one slice.
    fn dram_place(&self, line: u64) -> crate::dram::Place {
        let h = self.home(line);
        let n = self.slices.len() as u64;
        let linear = h.run * n + self.slice_index(h.partition, h.idx) as u64;
        let channels = self.dram.channels();
        crate::dram::Place { channel: (linear % channels) as u32, index: linear / channels }
    }

    fn slice_index(&self, partition: u32, idx: u32) -> usize {
        (idx * self.partitions + partition) as usize
    }

    fn key(h: Home) -> u64 {
        (h.run * LINE) | (u64::from(h.partition) << PARTITION_SHIFT)
    }

    /// The line address a slice's tag-store key stands for (inverse of `home` and `key`).
    fn line_of(&self, slice: usize, key: u64) -> u64 {
        let n = self.slices.len() as u64;
        let run = (key & ((1 << PARTITION_SHIFT) - 1)) / LINE;
        let (low, run) = (run & ((1 << self.shared.bits) - 1), run >> self.shared.bits);
        let home = self.slice_index((key >> PARTITION_SHIFT) as u32, slice as u32 / self.partitions) as u64;
        let block = run / self.runs;
        let slot = run % self.runs * n + (home + n - mix(block) % n) % n;
        self.shared.join(block * n * self.runs + u64::from(self.unplace[slot as usize]), low) * LINE
    }

    /// Waits for the slice's atomic unit and occupies it for `busy` cycles; returns the cycle
    /// the unit starts on the request.
    fn atomic_unit(&mut self, s: usize, t: u64, busy: f64) -> u64 {
        let unit = &mut self.slices[s].atomic_free;
        let start = unit.max(t as f64);
        *unit = start + busy;
        start.ceil() as u64
    }

    /// Waits for the slice and occupies it for `busy` cycles; returns the cycle service starts.
    fn queue(&mut self, s: usize, t: u64, busy: f64) -> u64 {
        let sl = &mut self.slices[s];
        let start = sl.free.max(t as f64);
        sl.free = start + busy;
        start.ceil() as u64
    }

    /// Cycles an atomic request occupies its home slice's atomic unit: one sector lookup after
    /// another, rounds included, each `atomic_sector_cycles` when it updates whole sectors and
    /// `1 / atomics_per_cycle_per_slice` when it merges words into part of one (one address's
    /// lanes, random keys). H200: 1.4 cycles per lookup for random keys over 2 to 32 lines
    /// (membench red_keyed_64..1024 with the measured slice map), 1.2 for whole sectors (red_32).
    fn atomic_busy(&self, r: &MemReq) -> f64 {
        let lookups = r.lookups.max(1);
        let partial = r.partial.min(lookups);
        f64::from(partial) / self.atomics_per_cycle + f64::from(lookups - partial) * self.atomic_sector_cycles
    }

    /// Cycles a returning atomic homed in the other partition spends in its near slice's atomic
    /// unit on the way: its whole sectors `l2.atomic_far_passes` times (operands in, old values
    /// out) at `atomic_sector_cycles`, behind that slice's own atomics. Sectors updated in part
    /// (single lanes, CAS, random keys) and reductions pass free: the H200's whole-line atomics
    /// over 64 to 65536 lines run at 40-65% of what their home slices allow, the same requests
    /// over 1-16 lines (homed in one partition, their near slices idle) at 100%
    /// (`validate/data/h200/atomchain`).
    fn atomic_far_pass(&self, r: &MemReq) -> f64 {
        if r.kind != ReqKind::Atomic || r.red {
            return 0.0;
        }
        let lookups = r.lookups.max(1);
        self.atomic_far_passes * f64::from(lookups - r.partial.min(lookups)) * self.atomic_sector_cycles
    }

    /// Cycles a returning atomic (`ATOM`, `CAS`) holds its line: the next one to the line waits
    /// for its old value. Lanes on one address chain inside the request at the same-address
    /// rate; otherwise each round is a request of its own (ncu's `lts__t_requests` counts one
    /// per round), each at least `atomic_request_cycles`, and each sector it updates in part
    /// merges bytes (`atomic_partial_cycles`). A reduction (`RED`) returns nothing and holds
    /// nothing: the slice's atomic unit alone orders it.
    fn atomic_hold(&self, r: &MemReq) -> f64 {
        if r.red {
            return 0.0;
        }
        let (arc, pc) = (self.atomic_request_cycles, self.atomic_partial_cycles);
        if r.words <= 1 {
            (f64::from(r.ops) / self.atomics_per_cycle).max(arc + if r.partial > 0 { pc } else { 0.0 })
        } else {
            f64::from(atomic_requests(r)) * arc + f64::from(r.partial) * pc
        }
    }

    /// A lookup costs its sectors' data cycles, and at least one request slot.
    fn sector_cycles(&self, sectors: u8) -> f64 {
        self.lookup_cycles(ReqKind::Read, sectors)
    }

    /// Cycles a slice spends taking in a request of kind `kind`: its sectors at the write rate
    /// (stores) or the read rate (reads and atomics), at least one request slot.
    fn lookup_cycles(&self, kind: ReqKind, sectors: u8) -> f64 {
        let rate = if kind == ReqKind::Write { self.write_sectors_per_cycle } else { self.sectors_per_cycle };
        (sectors.count_ones() as f64 / rate).max(1.0 / self.requests_per_cycle)
    }

    /// Writes an evicted dirty line back to DRAM, reading first the sectors written only in
    /// part; returns the cycle its channel takes the data (0 when nothing was evicted). The
    /// request that evicted it is done no sooner: a slice has no room for a line whose victim
    /// cannot leave, so stores that evict faster than DRAM drains wait for it.
    fn writeback(&mut self, slice: usize, t: u64, evicted: Option<Evicted>) -> u64 {
        let Some(e) = evicted else { return 0 };
        let at = self.dram_place(self.line_of(slice, e.line));
        if e.partial != 0 {
            // The merge's lookup misses: it fetches the sectors' unwritten bytes.
            self.stats.sectors_write += u64::from(e.partial.count_ones());
            self.stats.sector_misses += u64::from(e.partial.count_ones());
            self.dram.transfer(t, at, e.partial, false);
        }
        self.dram.transfer(t, at, e.dirty, true).0
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

    /// Counts a read lookup that found `hit` and fetches `fetch`.
    fn count_read(&mut self, hit: u8, fetch: u8) {
        let (h, m) = (u64::from(hit.count_ones()), u64::from(fetch.count_ones()));
        self.stats.sectors_read += h + m;
        self.stats.sector_hits += h;
        self.stats.sector_misses += m;
    }

    /// Services one request; returns the cycle its data (or acknowledgement) is back at the SM.
    pub fn access(&mut self, r: &MemReq) -> u64 {
        let n = r.sectors.count_ones();
        if !self.has_l2 {
            self.count(r);
            return self.dram.access(r.t, r.line, r.sectors, r.kind == ReqKind::Write);
        }
        let h = self.home(r.line);
        let key = Self::key(h);
        let home = self.slice_index(h.partition, h.idx);
        let gpc = self.layout.gpc_of(r.sm);
        let near_p = self.gpc_part[gpc as usize];
        let far = near_p != h.partition;
        match r.kind {
            ReqKind::Write | ReqKind::Atomic => {
                // Writes and atomics are performed at the line's home (the point of coherence);
                // a replica in the SM's partition is dropped.
                let lookups = lookups(r);
                self.count(r);
                let mut t = r.t;
                if far {
                    // The near slice passes the request on: looked up (a hit) there too, in turn
                    // behind the requests queued there. A store then takes a request slot as any
                    // lookup does; an atomic takes none (its work is at home; a returning one's
                    // data passes the near atomic unit, `atomic_far_pass`): H200 REDs to 32
                    // lines run at 5.2 updates per cycle, one per 1.5 cycles on each of their 8
                    // home slices, which charging the near slices as well would halve (membench
                    // red_lines_32/96, atom_lines_96, red_keyed_1024: +53/+15/+14/+19% ->
                    // +1/-3/-2/-3%, validate/data/h200/membench/2026-12-01-lines.json,
                    // -probes.json). Without the turn in the queue, REDs over thousands of lines
                    // run up to 2x fast (red_keyed_8192 -54%).
                    let near = self.slice_index(near_p, h.idx);
                    self.slices[near].tags.invalidate(key);
                    self.count(r);
                    self.stats.sector_hits += lookups;
                    let busy = if r.kind == ReqKind::Write { self.lookup_cycles(r.kind, r.sectors) } else { 0.0 };
                    t = self.queue(near, t, busy);
                    let pass = self.atomic_far_pass(r);
                    if pass > 0.0 {
                        t = self.atomic_unit(near, t, pass);
                    }
                }
                let mut start = self.queue(home, t, self.lookup_cycles(r.kind, r.sectors));
                let far = if far { self.far_extra } else { 0 };
                if r.kind == ReqKind::Atomic {
                    start = self.atomic_unit(home, start, self.atomic_busy(r));
                    // One line's read-modify-writes follow one another; other lines of the
                    // slice proceed meanwhile.
                    let hold = self.atomic_hold(r);
                    let free = self.line_atomic_free.entry(r.line).or_insert(0.0);
                    let line_start = free.max(start as f64);
                    *free = line_start + hold;
                    start = line_start.ceil() as u64;
                    let look = self.slices[home].tags.access(key, r.sectors, true, true, 0);
                    start = start.max(self.writeback(home, start, look.evicted));
                    // Same-address lanes after the first find the line there.
                    self.stats.sector_hits += look.hit.count_ones() as u64 + lookups - n as u64;
                    let data = if look.miss != 0 {
                        self.stats.sector_misses += u64::from(look.miss.count_ones());
                        let done = self.dram_read(home, start, r.line, look.miss);
                        self.slices[home].tags.set_ready(key, done);
                        done
                    } else {
                        start.max(look.ready)
                    };
                    data.max(start + self.hit_latency) + far + self.atomic_extra
                } else {
                    let look = self.slices[home].tags.write(key, r.sectors, r.full, true);
                    let wb = self.writeback(home, start, look.evicted);
                    self.stats.sector_hits += n as u64;
                    (start + far + self.hit_latency / 2).max(wb)
                }
            }
            ReqKind::Read => {
                let slot = (r.line / LINE) | (u64::from(gpc) << PARTITION_SHIFT);
                if let Some(done) = self.coalesce(slot, r) {
                    return done;
                }
                let done = if far { self.read_far(r, h, key, home, near_p) } else { self.read_near(r, key, home) };
                self.track(slot, r, done);
                done
            }
        }
    }

    /// The GPC's request coalescer: a read of a line whose earlier read from the same GPC is
    /// still in flight, for sectors that read asked for, rides it (up to `l2.coalescer_merge`
    /// requests on one) and returns with it, neither queued at nor counted by a slice.
    fn coalesce(&mut self, slot: u64, r: &MemReq) -> Option<u64> {
        let e = self.in_flight.get_mut(&slot)?;
        let hit = self.hit_latency;
        (r.t < e.done && r.sectors & !e.sectors == 0 && e.riders + 1 < self.coalescer_merge).then(|| {
            e.riders += 1;
            e.done.max(r.t + hit)
        })
    }

    /// Enters a read that went to a slice as the line's in-flight read (replacing a full or
    /// finished one); drops finished entries now and then.
    fn track(&mut self, slot: u64, r: &MemReq, done: u64) {
        if self.coalescer_merge <= 1 {
            return;
        }
        if r.t >= self.purge_at {
            self.in_flight.retain(|_, e| e.done > r.t);
            self.purge_at = r.t + PURGE_CYCLES;
        }
        self.in_flight.insert(slot, InFlight { sectors: r.sectors, done, riders: 0 });
    }

    /// A read of a line homed in the other partition: looked up at the SM's near slice, and on a
    /// miss fetched from home and replicated near.
    fn read_far(&mut self, r: &MemReq, h: Home, key: u64, home: usize, near_p: u32) -> u64 {
        let near = self.slice_index(near_p, h.idx);
        let start = self.queue(near, r.t, self.sector_cycles(r.sectors));
        let look = self.slices[near].tags.access(key, r.sectors, false, false, 0);
        if look.miss == 0 {
            self.count_read(r.sectors, 0);
            return (start + self.hit_latency).max(look.ready);
        }
        // A near miss: fetch the missing blocks from the home partition and keep a
        // replica near. The home lookup counts as well unless the near slice promoted.
        // An uncounted lookup takes no request slot there (the request rate is derived
        // from counted lookups), only its data cycles.
        let fetch = look.miss;
        self.count_read(look.hit, fetch);
        let counted = fetch == r.sectors & !look.hit;
        let busy = if counted { self.sector_cycles(fetch) } else { fetch.count_ones() as f64 / self.sectors_per_cycle };
        let hs = self.queue(home, start, busy);
        let done = self.read_home(home, hs, key, r.line, fetch, counted) + self.far_extra;
        let look = self.slices[near].tags.access(key, fetch, false, true, done);
        done.max(self.writeback(near, start, look.evicted))
    }

    /// A read of a line homed in the SM's own partition.
    fn read_near(&mut self, r: &MemReq, key: u64, home: usize) -> u64 {
        let start = self.queue(home, r.t, self.sector_cycles(r.sectors));
        self.read_home(home, start, key, r.line, r.sectors, true)
    }

    /// A read at the home slice that already started service at `start`: hits, or fetches the
    /// missing sectors' promotion blocks from DRAM. `counted`: the lookup counts in `lts__t_*`.
    fn read_home(&mut self, home: usize, start: u64, key: u64, line: u64, sectors: u8, counted: bool) -> u64 {
        let look = self.slices[home].tags.access(key, sectors, false, true, 0);
        let fetch = look.miss;
        if counted {
            self.count_read(look.hit, fetch);
        }
        let wb = self.writeback(home, start, look.evicted);
        let hit_done = (start + self.hit_latency).max(look.ready);
        let hit_done = hit_done.max(wb);
        if fetch == 0 {
            return hit_done;
        }
        let done = self.dram_read(home, start, line, fetch).max(hit_done);
        self.slices[home].tags.set_ready(key, done);
        done
    }

    /// A slice's read from DRAM, started at `start` or, with all its miss slots taken, when
    /// the earliest outstanding read returns; returns when the data is back.
    fn dram_read(&mut self, slice: usize, start: u64, line: u64, sectors: u8) -> u64 {
        let q = &mut self.slices[slice].misses;
        while q.peek().is_some_and(|r| r.0 <= start) {
            q.pop();
        }
        let start = if q.len() >= self.mshrs_per_slice { q.pop().map_or(start, |r| r.0.max(start)) } else { start };
        let done = self.dram.transfer(start, self.dram_place(line), sectors, false).1;
        self.slices[slice].misses.push(Reverse(done));
        done
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn memsys(preset: &str) -> MemSys {
        MemSys::new(&crate::presets::preset(preset).expect("preset"))
    }

    #[test]
    fn atomic_rounds_follow_the_most_lanes_on_one_word() {
        // 32 lanes on one word: 32 rounds of one partial sector.
        let one = AtomShape::of([(0u64, 32u16)].into_iter(), 4);
        assert_eq!(one, AtomShape { rounds: 32, words: 1, lookups: 32, partial: 32 });
        // 32 distinct words of a line: one round, four whole sectors.
        let line: Vec<(u64, u16)> = (0..32).map(|w| (w * 4, 1)).collect();
        assert_eq!(AtomShape::of(line.iter().copied(), 4), AtomShape { rounds: 1, words: 32, lookups: 4, partial: 0 });
        // Words 0 (3 lanes), 1 (1 lane) and 40 (2 lanes): round 0 touches sectors 0 and 1,
        // round 1 both again (words 0 and 40), round 2 sector 0 only; every lookup partial.
        let mixed = [(0u64, 3u16), (4, 1), (160, 2)];
        assert_eq!(AtomShape::of(mixed.iter().copied(), 4), AtomShape { rounds: 3, words: 3, lookups: 5, partial: 5 });
        // 16 words in sectors 0 and 1, 2 in sector 3: two whole lookups, one partial.
        let some: Vec<(u64, u16)> = (0..16).chain([24, 25]).map(|w| (w * 4, 1)).collect();
        assert_eq!(AtomShape::of(some.iter().copied(), 4), AtomShape { rounds: 1, words: 18, lookups: 3, partial: 1 });
        // 8-byte atomics fill a sector with four words.
        let u64s: Vec<(u64, u16)> = (0..4).map(|w| (w * 8, 1)).collect();
        assert_eq!(AtomShape::of(u64s.iter().copied(), 8).partial, 0);
    }

    /// The last completion of `n` atomic requests like `req` sent at cycle 10 000 to a line
    /// already in the L2, from SM 0.
    fn flood(cfg: &ArchConfig, req: MemReq, n: usize) -> u64 {
        let mut m = MemSys::new(cfg);
        m.access(&MemReq { t: 0, ..req });
        (0..n).map(|_| m.access(&MemReq { t: 10_000, ..req })).max().unwrap()
    }

    /// An atomic request of `lookups` sector lookups: whole ones are a warp's 32 words of the
    /// line (one round), partial ones as many lanes on word 0 (a round each).
    fn atom(red: bool, lookups: u16, partial: u16) -> MemReq {
        let (ops, words, sectors) = if partial == 0 { (1, 32, 0xF) } else { (lookups, 1, 0x1) };
        MemReq { t: 0, sm: 0, line: 0, sectors, full: 0, kind: ReqKind::Atomic, ops, words, lookups, partial, red }
    }

    #[test]
    fn stores_take_the_write_rate_and_loads_the_read_rate() {
        // One line flooded from SM 0: whole-line stores queue at 4 / write rate cycles each
        // (twice over where the home is far: the near slice passes them on), reads at
        // 4 / read rate; the request rate high enough not to bind.
        let mut cfg = crate::presets::preset("hopper-h200").expect("preset");
        cfg.l2.requests_per_cycle_per_slice = 100.0;
        cfg.l2.sectors_per_cycle_per_slice = 2.0;
        cfg.l2.write_sectors_per_cycle_per_slice = 1.0;
        cfg.l2.coalescer_merge = 1;
        let req = |kind| MemReq { t: 0, sm: 0, line: 0, sectors: 0xF, full: 0xF, kind, ops: 0, words: 0, lookups: 0, partial: 0, red: false };
        let (one_w, one_r) = (flood(&cfg, req(ReqKind::Write), 1), flood(&cfg, req(ReqKind::Read), 1));
        let writes = flood(&cfg, req(ReqKind::Write), 101) - one_w;
        let reads = flood(&cfg, req(ReqKind::Read), 101) - one_r;
        assert_eq!(writes, 400, "100 stores of 4 sectors at 1 sector per cycle");
        assert_eq!(reads, 200, "100 reads of 4 sectors at 2 sectors per cycle");
    }

    #[test]
    fn partial_lookups_hold_a_returning_atomics_line_longer() {
        let mut cfg = crate::presets::preset("hopper-h200").expect("preset");
        // Set here, so the calibrated preset values do not move the test; the slice's atomic
        // unit fast enough not to matter.
        cfg.l2.atomics_per_cycle_per_slice = 100.0;
        cfg.l2.atomic_request_cycles = 4.0;
        cfg.l2.atomic_partial_cycles = 0.0;
        let whole = flood(&cfg, atom(false, 1, 1), 64);
        cfg.l2.atomic_partial_cycles = 2.5;
        let (one, partial) = (flood(&cfg, atom(false, 1, 1), 1), flood(&cfg, atom(false, 1, 1), 64));
        // The last of 64 waits for 63 holds of 4 + 2.5 cycles each, 2.5 more each than whole ones.
        assert!(partial >= one + 409, "{one} -> {partial}");
        assert!(partial >= whole + 157, "{whole} -> {partial}");
        // A reduction holds nothing: only the slice's tag pipeline and atomic unit order it.
        let red = flood(&cfg, atom(true, 1, 1), 64);
        assert!(red + 100 < whole, "{red} vs {whole}");
    }

    #[test]
    fn far_returning_atomics_pass_the_near_slices_atomic_unit() {
        let mut cfg = crate::presets::preset("hopper-h200").expect("preset");
        cfg.l2.atomic_sector_cycles = 1.0;
        cfg.l2.atomic_request_cycles = 0.0;
        cfg.l2.requests_per_cycle_per_slice = 100.0;
        cfg.l2.sectors_per_cycle_per_slice = 100.0;
        // Line `far` is homed in partition 1 (far from SM 0), line `near` in partition 0 at the
        // same slice index: the slice `far`'s requests from SM 0 pass on their way home.
        let m = MemSys::new(&cfg);
        let lines = || (0..4096u64).map(|l| l * LINE);
        let far = lines().find(|&l| m.home(l).partition == 1).unwrap();
        let near = lines().find(|&l| m.home(l).partition == 0 && m.home(l).idx == m.home(far).idx).unwrap();
        // 100 whole-line ATOMs to each, interleaved, from SM 0; the last of `near`'s returns.
        let run = |passes: f64, red: bool| {
            let mut cfg = cfg.clone();
            cfg.l2.atomic_far_passes = passes;
            let mut m = MemSys::new(&cfg);
            let req = |line| MemReq { line, ..atom(red, 4, 0) };
            m.access(&req(far));
            m.access(&req(near));
            let mut last = 0;
            for _ in 0..100 {
                m.access(&MemReq { t: 10_000, ..req(far) });
                last = last.max(m.access(&MemReq { t: 10_000, ..req(near) }));
            }
            last
        };
        let (alone, passed) = (run(0.0, false), run(2.0, false));
        // Each of `far`'s requests holds the near slice's unit 2 x 4 sectors x 1 cycle.
        assert!(passed >= alone + 700, "{alone} -> {passed}");
        // Reductions return nothing: no old values pass back, nothing is charged.
        assert_eq!(run(2.0, true), run(0.0, true));
    }

    #[test]
    fn the_slice_atomic_unit_takes_each_lookup_at_its_rate() {
        let mut cfg = crate::presets::preset("hopper-h200").expect("preset");
        cfg.l2.atomics_per_cycle_per_slice = 0.5;
        cfg.l2.atomic_sector_cycles = 1.0;
        cfg.l2.requests_per_cycle_per_slice = 100.0;
        cfg.l2.sectors_per_cycle_per_slice = 100.0;
        let one = flood(&cfg, atom(true, 4, 0), 1);
        // 100 REDs of four whole sectors: 4 cycles each; of four partial ones: 8 each.
        let whole = flood(&cfg, atom(true, 4, 0), 101) - one;
        let partial = flood(&cfg, atom(true, 4, 4), 101) - one;
        assert!((399..=401).contains(&whole), "{whole}");
        assert!((799..=801).contains(&partial), "{partial}");
    }

    #[test]
    fn placement_is_invertible_and_even_per_block() {
        let m = memsys("hopper-h200");
        let n = m.slices.len();
        let quad = 1u64 << m.shared.bits;
        let block = n as u64 * m.runs * quad;
        let mut per_slice = vec![0u64; n];
        for l in 3 * block..5 * block {
            let line = l * LINE;
            let h = m.home(line);
            let s = m.slice_index(h.partition, h.idx);
            per_slice[s] += 1;
            assert_eq!(m.line_of(s, MemSys::key(h)), line);
            // A replica in the other partition decodes to the same line.
            let near = m.slice_index(1 - h.partition, h.idx);
            assert_eq!(m.line_of(near, MemSys::key(h)), line);
        }
        assert!(per_slice.iter().all(|&c| c == 2 * m.runs * quad), "{per_slice:?}");
    }

    #[test]
    fn lines_share_slices_in_quads_as_the_h200_hash_puts_them() {
        // validate/data/h200/l2hash: lines k, k+1, k+4, k+5 (k = 8j or 8j + 2) share a slice,
        // 32 aligned consecutive quads take 32 distinct slices, 128 of them all 94 seen.
        let m = memsys("hopper-h200");
        let slice = |l: u64| {
            let h = m.home(l * LINE);
            m.slice_index(h.partition, h.idx)
        };
        for k in (0..4096u64).map(|j| 8 * j + 2 * (j % 2)) {
            assert!([1, 4, 5].iter().all(|d| slice(k + d) == slice(k)), "quad at line {k}");
            assert_ne!(slice(k), slice(k ^ 2), "lines {k} and {}", k ^ 2);
        }
        let n = m.slices.len() as u64;
        let quads = |first: u64, count: u64| (first..first + count).map(|q| slice(q / 2 * 8 + q % 2 * 2)).collect::<std::collections::HashSet<_>>().len() as u64;
        assert!((0..64).all(|w| quads(w * n, 32) == 32));
        assert!((0..64).all(|w| quads(w * n, n) == n));
        // Without shared bits every line is placed on its own.
        let cfg = crate::presets::preset_with_overrides("hopper-h200", &[("l2.slice_shared_line_bits", "0")]).expect("config");
        let own = MemSys::new(&cfg);
        let seen: std::collections::HashSet<_> = (0..n).map(|l| own.home(l * LINE)).map(|h| own.slice_index(h.partition, h.idx)).collect();
        assert_eq!(seen.len() as u64, n);
    }

    #[test]
    fn shared_bits_split_and_join() {
        let b = SharedBits::new(0b101);
        assert_eq!(b.split(0b1101_0110), (0b11_0101, 0b10));
        for l in 0..4096 {
            let (u, low) = b.split(l);
            assert_eq!(b.join(u, low), l);
        }
    }

    fn read(m: &mut MemSys, t: u64, sm: u32, line: u64, sectors: u8) -> u64 {
        m.access(&MemReq { t, sm, line, sectors, full: 0, kind: ReqKind::Read, ops: 0, words: 0, lookups: 0, partial: 0, red: false })
    }

    /// The GPCs near partition `p`.
    fn gpcs_in(m: &MemSys, p: u32) -> impl Iterator<Item = usize> + '_ {
        (0..m.layout.gpcs()).filter(move |&g| m.gpc_part[g] == p)
    }

    /// The first SM in partition `p`.
    fn sm_in(m: &MemSys, p: u32) -> u32 {
        m.layout.sms(gpcs_in(m, p).next().expect("a GPC in the partition")).start
    }

    #[test]
    fn gpcs_are_near_the_partition_the_preset_measured() {
        // H200: GPCs 0, 4, 5, 6 on one side (66 SMs), 1, 2, 3, 7 on the other (66 SMs).
        let m = memsys("hopper-h200");
        assert_eq!(m.gpc_part, vec![0, 1, 1, 1, 0, 0, 0, 1]);
        let side = |p: u32| gpcs_in(&m, p).map(|g| m.layout.sms(g).len()).sum::<usize>();
        assert_eq!((side(0), side(1)), (66, 66));
        // A list that does not fit the GPCs (swept away) or names a missing partition falls
        // back to GPC mod partitions.
        let layout = Layout::new(&crate::presets::preset_with_overrides("hopper-h200", &[("sm.gpcs", "4")]).expect("config").sm);
        assert_eq!(near_partitions(&layout, 2, &[0, 1, 1, 1, 0, 0, 0, 1]), vec![0, 1, 0, 1]);
        let h200 = Layout::new(&crate::presets::preset("hopper-h200").expect("preset").sm);
        assert_eq!(near_partitions(&h200, 2, &[0, 2, 1, 1, 0, 0, 0, 1]), vec![0, 1, 0, 1, 0, 1, 0, 1]);
    }

    #[test]
    fn reads_in_flight_from_one_gpc_merge_four_to_a_lookup() {
        let mut m = memsys("hopper-h200");
        let line = 5 * LINE;
        let p = m.home(line).partition;
        let gpcs: Vec<usize> = gpcs_in(&m, p).collect();
        let gpc0: Vec<u32> = m.layout.sms(gpcs[0]).collect();
        // Six SMs of one GPC at once: two lookups (4 requests ride one); they return together.
        let done: Vec<u64> = gpc0[..6].iter().map(|&s| read(&mut m, 100, s, line, 0xF)).collect();
        assert_eq!(m.stats.sectors_read, 8);
        assert!(done[..4].iter().all(|&d| d == done[0]), "{done:?}");
        // An SM of another GPC in the same partition does not ride them.
        let other = m.layout.sms(gpcs[1]).start;
        read(&mut m, 101, other, line, 0xF);
        assert_eq!(m.stats.sectors_read, 12);
        // A read after the first one returned is looked up again (a hit now).
        read(&mut m, done[0] + 1, gpc0[0], line, 0xF);
        assert_eq!(m.stats.sectors_read, 16);
    }

    #[test]
    fn a_one_sector_miss_fetches_its_pair_and_the_pair_then_hits() {
        let mut m = memsys("hopper-h200");
        // An SM in the line's home partition: one lookup per request.
        let line = 77 * LINE;
        let sm = sm_in(&m, m.home(line).partition);
        read(&mut m, 0, sm, line, 0b0001);
        assert_eq!(m.dram.bytes_read, 64);
        assert_eq!((m.stats.sectors_read, m.stats.sector_misses), (2, 2));
        read(&mut m, 10_000, sm, line, 0b0010);
        assert_eq!(m.dram.bytes_read, 64);
        assert_eq!((m.stats.sectors_read, m.stats.sector_hits), (3, 1));
    }

    #[test]
    fn evicting_a_partial_sector_reads_it_first() {
        // One set of 20 ways per slice.
        let cfg = crate::presets::preset_with_overrides("hopper-h200", &[("l2.size_kib", "240")]).expect("config");
        let mut m = MemSys::new(&cfg);
        let h = m.home(0);
        let sm = sm_in(&m, h.partition);
        m.access(&MemReq { t: 0, sm, line: 0, sectors: 0b0001, full: 0, kind: ReqKind::Write, ops: 0, words: 0, lookups: 0, partial: 0, red: false });
        // Twenty more whole-line reads homed on the same slice evict it.
        let same: Vec<u64> = (1..).map(|l| l * LINE).filter(|&l| { let g = m.home(l); (g.partition, g.idx) == (h.partition, h.idx) }).take(20).collect();
        for (k, &l) in same.iter().enumerate() {
            read(&mut m, k as u64 * 10, sm, l, 0xF);
        }
        assert_eq!(m.dram.bytes_written, 32);
        // The partial sector was read back (32 B) besides the whole-line reads.
        assert_eq!(m.dram.bytes_read, 20 * 128 + 32);
        // The store's own lookup hits (write-allocate); the merge misses, as do the 20 reads.
        assert_eq!(m.stats.sectors_write, 2);
        assert_eq!((m.stats.sector_hits, m.stats.sector_misses), (1, 20 * 4 + 1));
    }

    #[test]
    fn each_slice_keeps_its_lines_on_one_channel_in_rows_of_consecutive_runs() {
        // As many channels as slices (the H200): a slice's lines all go to one channel, and the
        // lines a slice homes one after another share rows.
        let m = memsys("hopper-h200");
        let mut channel_of = HashMap::new();
        let mut rows = std::collections::HashSet::new();
        // 128 placement blocks of 96 quads: 512 lines on every slice.
        for l in 0..128 * 96 * 4u64 {
            let h = m.home(l * LINE);
            let s = m.slice_index(h.partition, h.idx);
            let at = m.dram_place(l * LINE);
            assert_eq!(*channel_of.entry(s).or_insert(at.channel), at.channel, "slice {s}");
            rows.insert((at.channel, at.index / 16));
        }
        // 6 MiB in 2 KiB rows: 3072 of them, every one full.
        assert_eq!(rows.len(), 3072);
    }

    #[test]
    fn a_store_that_evicts_waits_for_dram_to_take_the_victim() {
        // One set of 20 ways per slice, a DRAM of one channel at 1 GB/s: each dirty line
        // evicted holds the channel for about 250 cycles, so the stores that evict wait for it.
        let cfg = crate::presets::preset_with_overrides("hopper-h200", &[("l2.size_kib", "240"), ("dram.channels", "1"), ("dram.bandwidth_gbs", "1.0")]).expect("config");
        let mut m = MemSys::new(&cfg);
        let h = m.home(0);
        let same: Vec<u64> = (0..).map(|l| l * LINE).filter(|&l| { let g = m.home(l); (g.partition, g.idx) == (h.partition, h.idx) }).take(30).collect();
        let store = |m: &mut MemSys, line| m.access(&MemReq { t: 0, sm: h.partition, line, sectors: 0xF, full: 0xF, kind: ReqKind::Write, ops: 0, words: 0, lookups: 0, partial: 0, red: false });
        let done: Vec<u64> = same.iter().map(|&l| store(&mut m, l)).collect();
        // The first 20 fill the set and return at once; each later one evicts a dirty line.
        assert!(done[..20].iter().all(|&d| d < 1000), "{done:?}");
        assert!(done[29] > 9 * 250, "{done:?}");
    }
}
