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
//! them: [`SectorCache::with_partial_ways`]).
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

/// What a lookup found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Lookup {
    /// Sectors present (or pending).
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
    line: u64,
    lines: Vec<Line>,
    tick: u64,
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

    pub fn capacity(&self) -> u64 {
        self.sets * self.assoc as u64 * self.line
    }

    fn set_of(&self, line_addr: u64) -> usize {
        let l = line_addr / self.line;
        // Fold upper bits in so power-of-two strides do not all map to one set.
        (l.wrapping_add(l / self.sets).wrapping_add(l / self.sets / self.sets) % self.sets) as usize
    }

    /// The sectors of a line a read would find (valid and complete); 0 when absent.
    pub fn present(&self, line_addr: u64) -> u8 {
        let set = self.set_of(line_addr);
        self.lines[set * self.assoc..(set + 1) * self.assoc].iter().find(|l| l.tag == line_addr).map_or(0, |l| l.valid & !l.partial)
    }

    /// Looks up `sectors` of the line at `line_addr` at time `now`. With `allocate`, missing
    /// sectors are installed with their fill completing at `fill_ready` (set later with
    /// [`SectorCache::set_ready`] when unknown); `write` marks the sectors dirty, all of their
    /// bytes written (see [`SectorCache::write`] for byte-masked writes).
    pub fn access(&mut self, line_addr: u64, sectors: u8, write: bool, allocate: bool, fill_ready: u64) -> Lookup {
        self.lookup(line_addr, sectors, write.then_some(sectors), allocate, fill_ready)
    }

    /// A write of `sectors`, of which `full` have every byte written; the others become partial
    /// unless already present.
    pub fn write(&mut self, line_addr: u64, sectors: u8, full: u8, allocate: bool) -> Lookup {
        self.lookup(line_addr, sectors, Some(full & sectors), allocate, 0)
    }

    /// `full`: a write, with the sectors it writes completely.
    fn lookup(&mut self, line_addr: u64, sectors: u8, full: Option<u8>, allocate: bool, fill_ready: u64) -> Lookup {
        self.tick += 1;
        let set = self.set_of(line_addr);
        let ways = &mut self.lines[set * self.assoc..(set + 1) * self.assoc];
        let partial_lines = ways.iter().filter(|l| l.partial != 0).count();
        let makes_partial = |l: Option<&Line>| match full {
            Some(full) => l.map_or(0, |l| l.partial) == 0 && sectors & !full & !l.map_or(0, |l| l.valid) != 0,
            None => false,
        };
        let own = ways.iter().position(|l| l.tag == line_addr);
        // Over the partial-line limit: the least recently used other partial line is written
        // back (read-modify-write) and dropped, or becomes the victim of an allocation.
        let over = makes_partial(own.map(|k| &ways[k])) && partial_lines >= self.partial_ways;
        if over && own.is_some() {
            let k = (0..ways.len()).filter(|&k| ways[k].partial != 0).min_by_key(|&k| ways[k].lru).expect("partial lines exist");
            let l = ways[k];
            ways[k] = Line { tag: INVALID, valid: 0, dirty: 0, partial: 0, ready: 0, lru: 0 };
            let look = self.lookup_in(set, line_addr, sectors, full, allocate, fill_ready, false);
            return Lookup { evicted: Some(Evicted { line: l.tag, dirty: l.dirty, partial: l.partial }), ..look };
        }
        self.lookup_in(set, line_addr, sectors, full, allocate, fill_ready, over)
    }

    /// `lookup` in its set; `partial_victim`: an allocation evicts the LRU partial line.
    #[allow(clippy::too_many_arguments)]
    fn lookup_in(&mut self, set: usize, line_addr: u64, sectors: u8, full: Option<u8>, allocate: bool, fill_ready: u64, partial_victim: bool) -> Lookup {
        let ways = &mut self.lines[set * self.assoc..(set + 1) * self.assoc];
        if let Some(l) = ways.iter_mut().find(|l| l.tag == line_addr) {
            l.lru = self.tick;
            let complete = l.valid & !l.partial;
            let hit = complete & sectors;
            let miss = sectors & !complete;
            let ready = if hit != 0 { l.ready } else { 0 };
            match full {
                Some(full) => {
                    // Sectors not present before and not wholly written hold only their bytes.
                    l.partial = (l.partial | (sectors & !l.valid)) & !full;
                    l.dirty |= sectors;
                    l.valid |= sectors;
                }
                None if allocate && miss != 0 => {
                    // A fill merges under any written bytes.
                    l.valid |= miss;
                    l.partial &= !miss;
                    l.ready = l.ready.max(fill_ready);
                }
                None => {}
            }
            return Lookup { hit, miss, ready, evicted: None };
        }
        if !allocate {
            return Lookup { hit: 0, miss: sectors, ready: 0, evicted: None };
        }
        // Victim: an invalid way, else the least recently used (of the partial lines when
        // their limit is reached).
        let victim = ways
            .iter_mut()
            .filter(|l| !partial_victim || l.partial != 0)
            .min_by_key(|l| if l.tag == INVALID { 0 } else { l.lru + 1 })
            .expect("assoc ≥ 1; partial lines exist when over their limit");
        let evicted = (victim.tag != INVALID && victim.dirty != 0).then_some(Evicted { line: victim.tag, dirty: victim.dirty, partial: victim.partial });
        let (dirty, partial) = match full {
            Some(full) => (sectors, sectors & !full),
            None => (0, 0),
        };
        *victim = Line { tag: line_addr, valid: sectors, dirty, partial, ready: fill_ready, lru: self.tick };
        Lookup { hit: 0, miss: sectors, ready: 0, evicted }
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

    /// Whether the line holds all of `sectors`.
    pub fn contains(&self, line_addr: u64, sectors: u8) -> bool {
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
        assert_eq!(c.present(0), 0b10);
        let r = c.access(0, 0b11, false, true, 5);
        assert_eq!((r.hit, r.miss), (0b10, 0b01));
        // The fill completed it: evicting the line writes both back, neither needs a read; a
        // line evicted with a partial sector needs that sector read first.
        c.write(128, 0b100, 0, true);
        let r = c.access(256, 1, false, true, 0); // line 0 is LRU
        assert_eq!(r.evicted, Some(Evicted { line: 0, dirty: 0b11, partial: 0 }));
        let r = c.access(384, 1, false, true, 0);
        assert_eq!(r.evicted, Some(Evicted { line: 128, dirty: 0b100, partial: 0b100 }));
        // A partial sector written wholly later is complete.
        c.write(512, 1, 0, true);
        c.write(512, 1, 1, true);
        assert_eq!(c.present(512), 1);
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
