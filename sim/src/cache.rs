//! A sectored, set-associative cache with LRU replacement: the tag store of both the L1 and the
//! L2 slices.
//!
//! Lines hold a valid-sector mask, a dirty-sector mask, a partial-sector mask and the cycle their
//! pending fill completes. A lookup that finds a line still being filled is a hit on an
//! outstanding miss (what an MSHR merge does in hardware): the caller completes it no earlier
//! than the fill. A *partial* sector was written without all of its bytes and never filled (a
//! byte-masked write-allocate): a later write may complete it, a read must fetch it (the fill
//! merges under the written bytes), and evicting it is a read-modify-write at the next level.
//!
//! A cache may limit the ways of a set that hold partial lines (the H200's L2 keeps about 9 MiB of
//! them: [`SectorCache::with_partial_ways`]), and may fill a read miss in aligned blocks of
//! sectors larger than one (the H200's L2 promotes a missing sector to its 64-byte pair:
//! [`SectorCache::with_fill_block`]).
//!
//! Sets are chosen by adding folded upper bits of the line number (not XOR), so that every
//! aligned run of `sets` consecutive lines covers every set exactly once: a contiguous footprint
//! spreads evenly, as the hardware's address hashes do, while power-of-two strides still fold
//! across sets.

/// One line's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Line {
    tag: u64,
    valid: u8,
    dirty: u8,
    /// Dirty sectors holding only the bytes written (never filled, not all bytes written).
    partial: u8,
    /// Cycle at which the line's requested sectors arrive (0 once filled).
    ready: u64,
    lru: u64,
}

const INVALID: u64 = u64::MAX;

/// One lookup: the line, its sectors, for a write the sectors it writes completely, whether a
/// miss allocates, and when a fill completes.
#[derive(Debug, Clone, Copy)]
struct Op {
    line: u64,
    sectors: u8,
    full: Option<u8>,
    allocate: bool,
    fill_ready: u64,
}

/// What a lookup found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Lookup {
    /// Sectors present (or pending); for a write, partly written ones too.
    pub hit: u8,
    /// Sectors that must be fetched.
    pub miss: u8,
    /// When the present sectors are usable (0: now).
    pub ready: u64,
    /// A dirty line evicted to make room.
    pub evicted: Option<Evicted>,
}

/// A dirty line leaving the cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Evicted {
    pub line: u64,
    /// Sectors to write back.
    pub dirty: u8,
    /// Of those, the sectors whose unwritten bytes must first be read (read-modify-write).
    pub partial: u8,
}

pub struct SectorCache {
    sets: u64,
    assoc: usize,
    /// Ways of a set that may hold lines with partial sectors.
    partial_ways: usize,
    /// Sectors a read miss fills together (aligned; 1: each its own).
    fill_block: u32,
    line: u64,
    lines: Vec<Line>,
    tick: u64,
}

/// `sectors` widened to the aligned blocks of `g` sectors they touch.
fn widen(g: u32, sectors: u8) -> u8 {
    let block = ((1u16 << g) - 1) as u8;
    (0..8 / g).map(|b| block << (b * g)).filter(|m| sectors & m != 0).fold(0, |a, m| a | m)
}

impl SectorCache {
    /// A cache of `bytes` capacity with `line`-byte lines and `assoc` ways (at least one set).
    pub fn new(bytes: u64, line: u32, assoc: u32) -> SectorCache {
        let assoc = assoc.max(1) as usize;
        let sets = (bytes / line.max(1) as u64 / assoc as u64).max(1);
        SectorCache {
            sets,
            assoc,
            partial_ways: assoc,
            fill_block: 1,
            line: line.max(1) as u64,
            lines: vec![Line { tag: INVALID, valid: 0, dirty: 0, partial: 0, ready: 0, lru: 0 }; sets as usize * assoc],
            tick: 0,
        }
    }

    /// Limits the ways of each set that may hold partially written lines (at least one): a
    /// partial write beyond it first writes back the set's least recently used partial line.
    pub fn with_partial_ways(mut self, ways: u32) -> SectorCache {
        self.partial_ways = (ways.max(1) as usize).min(self.assoc);
        self
    }

    /// Fills read misses in aligned blocks of `sectors` sectors (a power of two, at most 8): a
    /// read's `miss` is then every absent sector of the blocks its missing sectors fall in.
    pub fn with_fill_block(mut self, sectors: u32) -> SectorCache {
        self.fill_block = sectors.clamp(1, 8);
        self
    }

    /// The sectors widened to their aligned fill blocks.
    fn widen(&self, sectors: u8) -> u8 {
        widen(self.fill_block, sectors)
    }

    /// The aligned fill blocks `sectors` touch: the cache's own sectors, counted.
    pub fn blocks(&self, sectors: u8) -> u32 {
        self.widen(sectors).count_ones() / self.fill_block
    }

    pub fn capacity(&self) -> u64 {
        self.sets * self.assoc as u64 * self.line
    }

    fn set_of(&self, line_addr: u64) -> usize {
        let l = line_addr / self.line;
        // Fold upper bits in so power-of-two strides do not all map to one set.
        (l.wrapping_add(l / self.sets).wrapping_add(l / self.sets / self.sets) % self.sets) as usize
    }

    /// Looks up `sectors` of the line at `line_addr` at time `now`. With `allocate`, missing
    /// sectors are installed with their fill completing at `fill_ready` (set later with
    /// [`SectorCache::set_ready`] when unknown); `write` marks the sectors dirty, all of their
    /// bytes written (see [`SectorCache::write`] for byte-masked writes). A read's `miss` is
    /// widened to the fill block, and so is what it installs.
    pub fn access(&mut self, line_addr: u64, sectors: u8, write: bool, allocate: bool, fill_ready: u64) -> Lookup {
        self.lookup(Op { line: line_addr, sectors, full: write.then_some(sectors), allocate, fill_ready })
    }

    /// A write of `sectors`, of which `full` have every byte written; the others become partial
    /// unless already present.
    pub fn write(&mut self, line_addr: u64, sectors: u8, full: u8, allocate: bool) -> Lookup {
        self.lookup(Op { line: line_addr, sectors, full: Some(full & sectors), allocate, fill_ready: 0 })
    }

    fn lookup(&mut self, op: Op) -> Lookup {
        self.tick += 1;
        let base = self.set_of(op.line) * self.assoc;
        let ways = &mut self.lines[base..base + self.assoc];
        let own = ways.iter().position(|l| l.tag == op.line);
        let mut partial_victim = false;
        if let (Some(full), true) = (op.full, self.partial_ways < self.assoc) {
            let (partial, valid) = own.map_or((0, 0), |k| (ways[k].partial, ways[k].valid));
            let makes_partial = partial == 0 && op.sectors & !full & !valid != 0;
            // Over the partial-line limit: the least recently used other partial line is
            // written back (read-modify-write) and dropped, or becomes the victim of an
            // allocation.
            if makes_partial && ways.iter().filter(|l| l.partial != 0).count() >= self.partial_ways {
                if own.is_none() {
                    partial_victim = true;
                } else {
                    let k = (0..ways.len()).filter(|&k| ways[k].partial != 0).min_by_key(|&k| ways[k].lru).expect("partial lines exist");
                    let l = ways[k];
                    ways[k] = Line { tag: INVALID, valid: 0, dirty: 0, partial: 0, ready: 0, lru: 0 };
                    let look = self.lookup_in(base, own, op, false);
                    return Lookup { evicted: Some(Evicted { line: l.tag, dirty: l.dirty, partial: l.partial }), ..look };
                }
            }
        }
        self.lookup_in(base, own, op, partial_victim)
    }

    /// `lookup` in the set at `base`, where the line is way `own`; `partial_victim`: an
    /// allocation evicts the LRU partial line.
    fn lookup_in(&mut self, base: usize, own: Option<usize>, op: Op, partial_victim: bool) -> Lookup {
        let block = if op.full.is_none() { self.fill_block } else { 1 };
        let widen = |m: u8| widen(block, m);
        let (tick, sectors) = (self.tick, op.sectors);
        let ways = &mut self.lines[base..base + self.assoc];
        if let Some(k) = own {
            let l = &mut ways[k];
            l.lru = tick;
            let complete = l.valid & !l.partial;
            let hit = if op.full.is_some() { l.valid } else { complete } & sectors;
            let miss = widen(sectors & !complete) & !complete;
            let ready = if hit != 0 { l.ready } else { 0 };
            match op.full {
                Some(full) => {
                    // Sectors not present before and not wholly written hold only their bytes.
                    l.partial = (l.partial | (sectors & !l.valid)) & !full;
                    l.dirty |= sectors;
                    l.valid |= sectors;
                }
                None if op.allocate && miss != 0 => {
                    // A fill merges under any written bytes.
                    l.valid |= miss;
                    l.partial &= !miss;
                    l.ready = l.ready.max(op.fill_ready);
                }
                None => {}
            }
            return Lookup { hit, miss, ready, evicted: None };
        }
        let miss = widen(sectors);
        if !op.allocate {
            return Lookup { hit: 0, miss, ready: 0, evicted: None };
        }
        // Victim: an invalid way, else the least recently used (of the partial lines when
        // their limit is reached).
        let victim = ways
            .iter_mut()
            .filter(|l| !partial_victim || l.partial != 0)
            .min_by_key(|l| if l.tag == INVALID { 0 } else { l.lru + 1 })
            .expect("assoc ≥ 1; partial lines exist when over their limit");
        let evicted = (victim.tag != INVALID && victim.dirty != 0).then_some(Evicted { line: victim.tag, dirty: victim.dirty, partial: victim.partial });
        let (dirty, partial) = match op.full {
            Some(full) => (sectors, sectors & !full),
            None => (0, 0),
        };
        *victim = Line { tag: op.line, valid: miss, dirty, partial, ready: op.fill_ready, lru: tick };
        Lookup { hit: 0, miss, ready: 0, evicted }
    }

    /// Sets the fill-completion time of a line's pending sectors (replacing an unknown time,
    /// [`u64::MAX`], or extending a known one).
    pub fn set_ready(&mut self, line_addr: u64, ready: u64) {
        let set = self.set_of(line_addr);
        if let Some(l) = self.lines[set * self.assoc..(set + 1) * self.assoc].iter_mut().find(|l| l.tag == line_addr) {
            l.ready = if l.ready == u64::MAX { ready } else { l.ready.max(ready) };
        }
    }

    /// Drops a line (write-evict policies, invalidations).
    pub fn invalidate(&mut self, line_addr: u64) {
        let set = self.set_of(line_addr);
        if let Some(l) = self.lines[set * self.assoc..(set + 1) * self.assoc].iter_mut().find(|l| l.tag == line_addr) {
            *l = Line { tag: INVALID, valid: 0, dirty: 0, partial: 0, ready: 0, lru: 0 };
        }
    }

    /// Whether the line holds all of `sectors` (complete).
    #[cfg(test)]
    fn contains(&self, line_addr: u64, sectors: u8) -> bool {
        let set = self.set_of(line_addr);
        self.lines[set * self.assoc..(set + 1) * self.assoc].iter().any(|l| l.tag == line_addr && (l.valid & !l.partial) & sectors == sectors)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hits_misses_and_sectors() {
        let mut c = SectorCache::new(4096, 128, 4);
        let r = c.access(0x1000, 0b0011, false, true, 100);
        assert_eq!((r.hit, r.miss), (0, 0b0011));
        let r = c.access(0x1000, 0b0111, false, true, 200);
        assert_eq!((r.hit, r.miss, r.ready), (0b0011, 0b0100, 100));
        assert!(c.contains(0x1000, 0b0111));
        assert!(!c.contains(0x1000, 0b1000));
        // An unknown fill time is replaced once known.
        c.access(0x2000, 1, false, true, u64::MAX);
        c.set_ready(0x2000, 300);
        assert!(c.contains(0x2000, 1));
    }

    #[test]
    fn lru_evicts_the_oldest_and_reports_dirty_data() {
        // One set of two ways.
        let mut c = SectorCache::new(256, 128, 2);
        c.access(0, 1, true, true, 0);
        c.access(128, 1, false, true, 0);
        c.access(0, 1, false, true, 0); // touch line 0: line 128 is now LRU
        let r = c.access(256, 1, false, true, 0);
        assert_eq!(r.evicted, None);
        assert!(!c.contains(128, 1));
        let r = c.access(384, 1, false, true, 0);
        assert_eq!(r.evicted, Some(Evicted { line: 0, dirty: 1, partial: 0 }));
    }

    #[test]
    fn partial_writes_are_completed_by_writes_or_fills() {
        let mut c = SectorCache::new(256, 128, 2);
        // Sector 0 partly written, sector 1 wholly: a read of both misses sector 0 only.
        c.write(0, 0b11, 0b10, true);
        assert!(c.contains(0, 0b10) && !c.contains(0, 0b01));
        let r = c.access(0, 0b11, false, true, 5);
        assert_eq!((r.hit, r.miss), (0b10, 0b01));
        // The fill completed it: evicting the line writes both back, neither needs a read; a
        // line evicted with a partial sector needs that sector read first.
        c.write(128, 0b100, 0, true);
        let r = c.access(256, 1, false, true, 0); // line 0 is LRU
        assert_eq!(r.evicted, Some(Evicted { line: 0, dirty: 0b11, partial: 0 }));
        let r = c.access(384, 1, false, true, 0);
        assert_eq!(r.evicted, Some(Evicted { line: 128, dirty: 0b100, partial: 0b100 }));
        // A partial sector written wholly later is complete; the second write found it present.
        assert_eq!(c.write(512, 1, 0, true).hit, 0);
        assert_eq!(c.write(512, 1, 1, true).hit, 1);
        assert!(c.contains(512, 1));
    }

    #[test]
    fn partial_lines_beyond_their_ways_are_written_back() {
        // One set of four ways, at most two partial lines.
        let mut c = SectorCache::new(512, 128, 4).with_partial_ways(2);
        c.write(0, 1, 0, true);
        c.write(128, 1, 0, true);
        // A third partial line takes the LRU partial line's way.
        let r = c.write(256, 1, 0, true);
        assert_eq!(r.evicted, Some(Evicted { line: 0, dirty: 1, partial: 1 }));
        // A whole-sector write is not limited.
        assert_eq!(c.write(384, 1, 1, true).evicted, None);
        // A resident complete line turning partial writes back the LRU partial line (128).
        c.access(0, 2, false, true, 0);
        let r = c.write(0, 4, 0, true);
        assert_eq!(r.evicted, Some(Evicted { line: 128, dirty: 1, partial: 1 }));
        assert!(c.contains(0, 2) && !c.contains(128, 1));
    }

    #[test]
    fn read_misses_fill_whole_blocks() {
        let mut c = SectorCache::new(4096, 128, 4).with_fill_block(2);
        assert_eq!(c.widen(0b0001), 0b0011);
        assert_eq!(c.widen(0b0100), 0b1100);
        assert_eq!(c.widen(0b1001), 0b1111);
        assert_eq!(c.widen(0), 0);
        // One missing sector fetches and installs its pair; the partner then hits.
        assert_eq!(c.access(0, 0b0001, false, true, 0).miss, 0b0011);
        let r = c.access(0, 0b0010, false, true, 0);
        assert_eq!((r.hit, r.miss), (0b0010, 0));
        // Only absent sectors of a block are fetched; writes are not widened.
        assert_eq!(c.access(0, 0b0110, false, false, 0).miss, 0b1100);
        assert_eq!(c.write(128, 0b0001, 0b0001, true).miss, 0b0001);
    }

    #[test]
    fn contiguous_lines_fill_every_set_evenly() {
        // 8 sets × 2 ways: 16 consecutive lines from any multiple of 8 fit exactly.
        for start in [0u64, 8, 1000, 12344] {
            let mut c = SectorCache::new(16 * 128, 128, 2);
            for l in start..start + 16 {
                c.access(l * 128, 1, false, true, 0);
            }
            assert!((start..start + 16).all(|l| c.contains(l * 128, 1)), "start {start}");
        }
    }

    #[test]
    fn no_allocate_leaves_the_cache_alone() {
        let mut c = SectorCache::new(4096, 128, 4);
        c.access(0x80, 0xF, true, false, 0);
        assert!(!c.contains(0x80, 1));
    }
}
