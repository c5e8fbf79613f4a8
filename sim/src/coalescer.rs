//! The coalescer: a warp's per-lane global addresses → memory transactions.
//!
//! Fermi and later ([`Coalescing::Sectors`]): one request per 128-byte line touched, carrying the
//! mask of 32-byte sectors the warp needs. Tesla (compute capability 1.x) works per half-warp:
//! 1.0/1.1 ([`Coalescing::HalfWarpStrict`]) issue one 64/128-byte transaction only when thread k
//! accesses word k of an aligned segment, and one 32-byte transaction per thread otherwise;
//! 1.2/1.3 ([`Coalescing::HalfWarpSegments`]) issue one transaction per 32/64/128-byte segment
//! touched, shrunk to the half that is used. Transactions are expressed as line + sector mask so
//! the rest of the memory system counts sectors uniformly.
//!
//! The line ([`LINE`], 128 bytes) and the sector ([`SECTOR`], 32 bytes) are the memory system's
//! fixed geometry on every generation (the CUDA programming guide's global-memory sections, CC
//! 2.x to 9.x; Tesla's segments are expressed in the same units): the L2 tags lines of
//! [`LINE`] bytes and moves [`SECTOR`]s, DRAM is addressed in them. A cache that moves coarser
//! blocks says so in its own key (`l1.sector`, `l2.promotion_bytes`) and widens these masks.

use crate::config::Coalescing;

/// One memory transaction: the 128-byte line address, the 32-byte sectors it moves and the
/// bytes of the line the lanes address (for stores: which sectors are written whole).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Txn {
    pub line: u64,
    pub sectors: u8,
    pub bytes: u128,
}

impl Txn {
    pub fn sector_count(&self) -> u32 {
        self.sectors.count_ones()
    }

    /// Sectors every byte of which the lanes address.
    pub fn full_sectors(&self) -> u8 {
        (0..(LINE / SECTOR) as u32).filter(|&k| (self.bytes >> (k * SECTOR as u32)) as u32 == u32::MAX).fold(0, |m, k| m | 1 << k)
    }
}

/// Bytes of a line: the unit of coalescing, L1 and L2 tags and DRAM addressing.
pub const LINE: u64 = 128;
/// Bytes of a sector: the unit of a [`Txn`]'s mask and of L2 and DRAM transfers.
pub const SECTOR: u64 = 32;

/// Adds the sectors covering `[addr, addr+size)` to the transaction list (merging by line).
fn add_bytes(out: &mut Vec<Txn>, addr: u64, size: u64) {
    let end = addr + size.max(1);
    let mut a = addr;
    while a < end {
        let line = a - a % LINE;
        let (lo, hi) = (a - line, (end - line).min(LINE));
        let bytes = (u128::MAX >> (128 - (hi - lo))) << lo;
        let sectors = (lo / SECTOR..hi.div_ceil(SECTOR)).fold(0u8, |m, k| m | 1 << k);
        match out.iter_mut().find(|t| t.line == line) {
            Some(t) => {
                t.sectors |= sectors;
                t.bytes |= bytes;
            }
            None => out.push(Txn { line, sectors, bytes }),
        }
        a = line + hi;
    }
}

/// Coalesces a warp access (`size` bytes per lane) into `out` (cleared first), in first-touch order.
pub fn coalesce(mode: Coalescing, addr: &[u64; 32], mask: u32, size: u32, out: &mut Vec<Txn>) {
    out.clear();
    let size = size.max(1) as u64;
    match mode {
        Coalescing::Sectors => {
            let mut m = mask;
            while m != 0 {
                let l = m.trailing_zeros() as usize;
                m &= m - 1;
                add_bytes(out, addr[l], size);
            }
        }
        Coalescing::HalfWarpSegments => {
            for half in [mask & 0xFFFF, mask & 0xFFFF_0000] {
                segments_cc12(addr, half, size, out);
            }
        }
        Coalescing::HalfWarpStrict => {
            for (h, half) in [mask & 0xFFFF, mask & 0xFFFF_0000].into_iter().enumerate() {
                strict_cc10(addr, half, size, h as u32 * 16, out);
            }
        }
    }
}

/// Compute capability 1.2/1.3 rules for one half-warp.
fn segments_cc12(addr: &[u64; 32], mut m: u32, size: u64, out: &mut Vec<Txn>) {
    let seg = match size {
        1 => 32,
        2 => 64,
        _ => 128,
    };
    while m != 0 {
        let first = addr[m.trailing_zeros() as usize];
        let base = first - first % seg;
        let (mut lo, mut hi) = (u64::MAX, 0u64);
        let mut served = 0u32;
        let mut k = m;
        while k != 0 {
            let l = k.trailing_zeros() as usize;
            k &= k - 1;
            if addr[l] >= base && addr[l] < base + seg {
                served |= 1 << l;
                lo = lo.min(addr[l]);
                hi = hi.max(addr[l] + size);
            }
        }
        m &= !served;
        // Shrink 128 → 64 → 32 while the used bytes fit in one half.
        let (mut b, mut s) = (base, seg);
        while s > 32 {
            let half = s / 2;
            if hi <= b + half {
                s = half;
            } else if lo >= b + half {
                b += half;
                s = half;
            } else {
                break;
            }
        }
        add_bytes(out, b, s);
    }
}

/// Compute capability 1.0/1.1 rules for one half-warp (`lane0` = 0 or 16).
fn strict_cc10(addr: &[u64; 32], m: u32, size: u64, lane0: u32, out: &mut Vec<Txn>) {
    if m == 0 {
        return;
    }
    let seg = 16 * size;
    let first_lane = m.trailing_zeros();
    let base = addr[first_lane as usize] - (first_lane - lane0) as u64 * size;
    let coalesced = matches!(size, 4 | 8 | 16)
        && base.is_multiple_of(seg)
        && (0..16).all(|i| {
            let l = (lane0 + i) as usize;
            m >> l & 1 == 0 || addr[l] == base + i as u64 * size
        });
    if coalesced {
        add_bytes(out, base, seg);
    } else {
        let mut k = m;
        while k != 0 {
            let l = k.trailing_zeros() as usize;
            k &= k - 1;
            // One 32-byte transaction per thread, never merged.
            let at = addr[l] % LINE;
            let bytes = (u128::MAX >> (128 - size.min(LINE - at))) << at;
            out.push(Txn { line: addr[l] - at, sectors: 1 << (at / SECTOR), bytes });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lanes(f: impl Fn(u64) -> u64) -> [u64; 32] {
        std::array::from_fn(|l| f(l as u64))
    }

    fn sectors(v: &[Txn]) -> u32 {
        v.iter().map(|t| t.sector_count()).sum()
    }

    #[test]
    fn sector_arithmetic_for_strided_copies() {
        let mut out = Vec::new();
        // Unit-stride floats: 128 bytes = 1 line, 4 sectors.
        coalesce(Coalescing::Sectors, &lanes(|l| 0x1000 + 4 * l), u32::MAX, 4, &mut out);
        assert_eq!((out.len(), sectors(&out)), (1, 4));
        // Stride 2 floats: 256 bytes spanned = 2 lines, 8 sectors.
        coalesce(Coalescing::Sectors, &lanes(|l| 0x1000 + 8 * l), u32::MAX, 4, &mut out);
        assert_eq!((out.len(), sectors(&out)), (2, 8));
        // Stride 8 floats (32 B): one sector per lane.
        coalesce(Coalescing::Sectors, &lanes(|l| 0x1000 + 32 * l), u32::MAX, 4, &mut out);
        assert_eq!((out.len(), sectors(&out)), (8, 32));
        // Misaligned by 4 bytes: 5 sectors over 2 lines.
        coalesce(Coalescing::Sectors, &lanes(|l| 0x1004 + 4 * l), u32::MAX, 4, &mut out);
        assert_eq!((out.len(), sectors(&out)), (2, 5));
        // float4 per lane: 512 bytes = 4 lines, 16 sectors.
        coalesce(Coalescing::Sectors, &lanes(|l| 0x1000 + 16 * l), u32::MAX, 16, &mut out);
        assert_eq!((out.len(), sectors(&out)), (4, 16));
        // Same address in every lane: one sector.
        coalesce(Coalescing::Sectors, &lanes(|_| 0x1000), u32::MAX, 4, &mut out);
        assert_eq!(sectors(&out), 1);
    }

    #[test]
    fn whole_sectors_of_a_store() {
        let mut out = Vec::new();
        // Unit stride: every sector whole. Stride 2: every sector half written.
        coalesce(Coalescing::Sectors, &lanes(|l| 0x1000 + 4 * l), u32::MAX, 4, &mut out);
        assert_eq!(out[0].full_sectors(), 0xF);
        coalesce(Coalescing::Sectors, &lanes(|l| 0x1000 + 8 * l), u32::MAX, 4, &mut out);
        assert!(out.iter().all(|t| t.sectors == 0xF && t.full_sectors() == 0));
        // One byte per lane: 32 bytes = sector 0 whole; half the lanes: nothing whole.
        coalesce(Coalescing::Sectors, &lanes(|l| 0x1000 + l), u32::MAX, 1, &mut out);
        assert_eq!((out[0].sectors, out[0].full_sectors()), (1, 1));
        coalesce(Coalescing::Sectors, &lanes(|l| 0x1000 + l), 0xFFFF, 1, &mut out);
        assert_eq!(out[0].full_sectors(), 0);
        // A 16-byte access straddling two lines.
        coalesce(Coalescing::Sectors, &lanes(|_| 0x1078), 1, 16, &mut out);
        assert_eq!(out.iter().map(|t| (t.line, t.sectors)).collect::<Vec<_>>(), vec![(0x1000, 0b1000), (0x1080, 0b0001)]);
    }

    #[test]
    fn tesla_cc12_segments_shrink() {
        let mut out = Vec::new();
        // Unit-stride 4-byte words: each half-warp uses 64 contiguous bytes → one 64-byte transaction.
        coalesce(Coalescing::HalfWarpSegments, &lanes(|l| 0x1000 + 4 * l), u32::MAX, 4, &mut out);
        assert_eq!(sectors(&out), 4);
        // Half-warp spread over two 128-byte segments: two transactions.
        coalesce(Coalescing::HalfWarpSegments, &lanes(|l| 0x1000 + 16 * l), 0xFFFF, 4, &mut out);
        assert_eq!(out.len(), 2);
    }

    #[test]
    fn tesla_cc10_requires_perfect_pattern() {
        let mut out = Vec::new();
        coalesce(Coalescing::HalfWarpStrict, &lanes(|l| 0x1000 + 4 * l), u32::MAX, 4, &mut out);
        assert_eq!(sectors(&out), 4);
        // Permuted within the segment: 16 transactions per half-warp.
        coalesce(Coalescing::HalfWarpStrict, &lanes(|l| 0x1000 + 4 * (l ^ 1)), u32::MAX, 4, &mut out);
        assert_eq!(out.len(), 32);
        // Misaligned base: uncoalesced.
        coalesce(Coalescing::HalfWarpStrict, &lanes(|l| 0x1004 + 4 * l), 0xFFFF, 4, &mut out);
        assert_eq!(out.len(), 16);
    }
}
