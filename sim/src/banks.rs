//! Shared-memory bank conflicts: how many wavefronts a warp's shared access takes.
//!
//! Shared memory is `banks` banks of `bank_bytes` each; one wavefront serves at most one distinct
//! word per bank, and lanes reading the same word share it (broadcast). Accesses wider than a
//! bank word are split into half-warp phases (8- and 16-byte accesses on 4-byte banks), each
//! taking as many wavefronts as its most-used bank has distinct words: a conflict-free 16-byte
//! half-warp moves 256 bytes in two wavefronts, and a 16-byte broadcast costs one per half-warp.
//! The H200 counts exactly that: 2 wavefronts per broadcast `LDS.128` (nbody_tile's and
//! cpasync_gemm's tile reads; quarter-warp phases would count 4). Tesla evaluates each half-warp
//! separately. Nsight Compute's
//! `l1tex__data_bank_conflicts_pipe_lsu_mem_shared` counts the wavefronts beyond the minimum,
//! which is what [`Conflicts::conflicts`] returns.

/// The result for one warp-wide shared access.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Conflicts {
    /// Wavefronts needed.
    pub wavefronts: u32,
    /// Wavefronts a conflict-free access of the same shape needs.
    pub ideal: u32,
}

impl Conflicts {
    pub fn conflicts(&self) -> u32 {
        self.wavefronts - self.ideal
    }
}

/// Computes the wavefronts of an access: `addr[l]` for each lane in `mask`, `size` bytes per lane.
pub fn wavefronts(addr: &[u64; 32], mask: u32, size: u32, banks: u32, bank_bytes: u32, half_warp: bool) -> Conflicts {
    if mask == 0 {
        return Conflicts { wavefronts: 0, ideal: 0 };
    }
    let size = size.max(1);
    let row = (banks * bank_bytes) as u64;
    // A warp whose access fits one row of banks is one phase; wider accesses go by half-warps.
    let per_phase: u32 = if half_warp || size as u64 * 32 > row { 16 } else { 32 };
    let mut total = 0;
    let mut ideal = 0;
    let mut lane0 = 0;
    while lane0 < 32 {
        let pmask = mask & phase_mask(lane0, per_phase);
        lane0 += per_phase;
        if pmask == 0 {
            continue;
        }
        let (w, least) = phase_wavefronts(addr, pmask, size, banks, bank_bytes);
        total += w;
        ideal += least;
    }
    Conflicts { wavefronts: total, ideal }
}

fn phase_mask(first: u32, n: u32) -> u32 {
    let m = if n >= 32 { u32::MAX } else { (1u32 << n) - 1 };
    m << first
}

/// Word and bank arithmetic of one configuration (shifts and masks when the sizes are powers of
/// two, as on every real GPU).
#[derive(Clone, Copy)]
struct Geometry {
    bank_bytes: u64,
    banks: u64,
    pow2: bool,
}

impl Geometry {
    #[inline(always)]
    fn word(self, addr: u64) -> u64 {
        if self.pow2 {
            addr >> self.bank_bytes.trailing_zeros()
        } else {
            addr / self.bank_bytes
        }
    }

    /// The bank of a word, folded to 64 counters.
    #[inline(always)]
    fn bank(self, word: u64) -> usize {
        let b = if self.pow2 { word & (self.banks - 1) } else { word % self.banks };
        b as usize % 64
    }

    /// The (word, bank) pairs the active lanes touch, lane by lane, `per_lane` words each.
    #[inline(always)]
    fn words(self, addr: &[u64; 32], mask: u32, per_lane: u64) -> impl Iterator<Item = (u64, usize)> + '_ {
        let lanes = std::iter::successors((mask != 0).then_some(mask), |m| Some(m & (m - 1)).filter(|&m| m != 0));
        lanes.flat_map(move |m| {
            let w0 = self.word(addr[m.trailing_zeros() as usize]);
            (w0..w0 + per_lane).map(move |w| (w, self.bank(w)))
        })
    }
}

/// Max over banks of the distinct words the phase touches in that bank, and the fewest
/// wavefronts that many distinct words could take (one word per bank each).
fn phase_wavefronts(addr: &[u64; 32], mask: u32, size: u32, banks: u32, bank_bytes: u32) -> (u32, u32) {
    let per_lane = size.div_ceil(bank_bytes).clamp(1, 4) as u64;
    let (bank_bytes, banks) = (bank_bytes as u64, banks as u64);
    let g = Geometry { bank_bytes, banks, pow2: bank_bytes.is_power_of_two() && banks.is_power_of_two() };
    // While every bank sees one distinct word (conflict-free or broadcast), one wavefront.
    let mut used = 0u64;
    let mut first = [0u64; 64];
    for (word, b) in g.words(addr, mask, per_lane) {
        if used >> b & 1 == 0 {
            used |= 1 << b;
            first[b] = word;
        } else if first[b] != word {
            return conflicted(addr, mask, per_lane, g);
        }
    }
    (1, 1)
}

/// [`phase_wavefronts`] of a phase with a bank conflict: distinct words counted per bank, the
/// words beyond the first of their bank kept in `extra` to recognise repeats.
fn conflicted(addr: &[u64; 32], mask: u32, per_lane: u64, g: Geometry) -> (u32, u32) {
    let mut used = 0u64;
    let mut first = [0u64; 64];
    let mut count = [0u32; 64];
    let mut extra = [0u64; 128];
    let mut n = 0;
    let mut max = 1;
    for (word, b) in g.words(addr, mask, per_lane) {
        if used >> b & 1 == 0 {
            used |= 1 << b;
            first[b] = word;
            count[b] = 1;
        } else if first[b] != word && !extra[..n].contains(&word) {
            extra[n] = word;
            n += 1;
            count[b] += 1;
            max = max.max(count[b]);
        }
    }
    let distinct = used.count_ones() as u64 + n as u64;
    (max, distinct.div_ceil(g.banks).max(1) as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strided(stride_words: u64, size: u64) -> [u64; 32] {
        std::array::from_fn(|l| l as u64 * stride_words * size)
    }

    #[test]
    fn stride_conflicts_match_the_textbook() {
        // 4-byte accesses with a stride of s words: gcd(s, 32)-way conflicts.
        for (s, way) in [(1, 1), (2, 2), (4, 4), (8, 8), (16, 16), (32, 32), (3, 1), (33, 1)] {
            let c = wavefronts(&strided(s, 4), u32::MAX, 4, 32, 4, false);
            assert_eq!(c.wavefronts, way, "stride {s}");
            assert_eq!(c.conflicts(), way - 1);
        }
    }

    #[test]
    fn broadcast_is_free() {
        let same = [0u64; 32];
        assert_eq!(wavefronts(&same, u32::MAX, 4, 32, 4, false).wavefronts, 1);
        // Two distinct words in one bank: 2-way.
        let two: [u64; 32] = std::array::from_fn(|l| if l < 16 { 0 } else { 128 });
        assert_eq!(wavefronts(&two, u32::MAX, 4, 32, 4, false).wavefronts, 2);
    }

    #[test]
    fn wide_accesses_take_phases() {
        // 8-byte unit stride: two half-warp phases, conflict-free.
        let c = wavefronts(&strided(1, 8), u32::MAX, 8, 32, 4, false);
        assert_eq!((c.wavefronts, c.ideal), (2, 2));
        // 16-byte unit stride: two half-warps of two wavefronts each, no conflict.
        let c = wavefronts(&strided(1, 16), u32::MAX, 16, 32, 4, false);
        assert_eq!((c.wavefronts, c.ideal), (4, 4));
        // 16-byte broadcast: one wavefront per half-warp, as the H200 counts `LDS.128` broadcasts.
        let c = wavefronts(&[0; 32], u32::MAX, 16, 32, 4, false);
        assert_eq!((c.wavefronts, c.ideal), (2, 2));
        // 16-byte stride of 2 (32 bytes): each half-warp touches every bank four times.
        let c = wavefronts(&strided(2, 16), u32::MAX, 16, 32, 4, false);
        assert_eq!((c.wavefronts, c.conflicts()), (8, 4));
    }

    #[test]
    fn tesla_half_warps_with_16_banks() {
        // Stride 1 over 16 banks: each half-warp is conflict-free.
        let c = wavefronts(&strided(1, 4), u32::MAX, 4, 16, 4, true);
        assert_eq!((c.wavefronts, c.ideal), (2, 2));
        // Stride 16: all 16 lanes of a half-warp in one bank.
        let c = wavefronts(&strided(16, 4), u32::MAX, 4, 16, 4, true);
        assert_eq!(c.wavefronts, 32);
    }

    /// Distinct words per bank by sorting, and their count over the banks: the definition, for
    /// the property test.
    fn reference(addr: &[u64; 32], mask: u32, size: u32, banks: u32, bank_bytes: u32) -> (u32, u32) {
        let per_lane = size.div_ceil(bank_bytes).clamp(1, 4) as u64;
        let mut words: Vec<u64> =
            (0..32).filter(|l| mask >> l & 1 == 1).flat_map(|l| (0..per_lane).map(move |k| addr[l] / bank_bytes as u64 + k)).collect();
        words.sort_unstable();
        words.dedup();
        let mut per_bank = [0u32; 64];
        for &w in &words {
            per_bank[(w % banks as u64) as usize % 64] += 1;
        }
        (per_bank.into_iter().max().unwrap_or(0).max(1), (words.len() as u32).div_ceil(banks).max(1))
    }

    proptest::proptest! {
        #[test]
        fn phases_count_distinct_words_per_bank(
            words in proptest::collection::vec(0u64..96, 32),
            mask in 1u32..=u32::MAX,
            size in proptest::sample::select(vec![1u32, 2, 4, 8, 16]),
            (banks, bank_bytes) in proptest::sample::select(vec![(32u32, 4u32), (16, 4), (32, 8)]),
        ) {
            let addr: [u64; 32] = std::array::from_fn(|l| words[l] * size as u64);
            proptest::prop_assert_eq!(phase_wavefronts(&addr, mask, size, banks, bank_bytes), reference(&addr, mask, size, banks, bank_bytes));
        }
    }

    #[test]
    fn kepler_eight_byte_banks() {
        // 8-byte banks: 8-byte unit stride is conflict-free in one wavefront.
        let c = wavefronts(&strided(1, 8), u32::MAX, 8, 32, 8, false);
        assert_eq!(c.wavefronts, 1);
    }
}
