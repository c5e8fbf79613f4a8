//! Generated buffer contents: dense bytes for ordinary buffers, sparse writes over zeros for
//! large mostly-empty ones (a pointer chase over 512 MB holds a few thousand non-zero words).
//!
//! Consumers never need to know which: [`InitData::chunks`] yields the non-zero regions to copy
//! into device memory (everything else is zero), [`InitData::read`] reads any byte range, and
//! [`InitData::fnv1a64`] hashes the logical byte stream (the same value for either representation)
//! without walking the zeros one by one. Dense bytes are shared ([`std::sync::Arc`]): a
//! simulator may lend them to its device memory instead of copying them, and a cloned workload
//! does not copy its inputs.

use std::sync::Arc;

/// Contents of one buffer before the kernel runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InitData {
    /// Every byte, in order.
    Dense(Arc<Vec<u8>>),
    /// `len` bytes of zeros overwritten by `writes`: (byte offset, bytes), sorted by offset and
    /// non-overlapping.
    Sparse {
        len: u64,
        writes: Writes,
    },
}

/// The writes of a sparse buffer, stored flat: (offset, end in `bytes`) and one byte array, so
/// a pointer chase's millions of one-word writes cost 16 bytes each rather than a vector each.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Writes {
    at: Vec<(u64, usize)>,
    bytes: Vec<u8>,
}

impl Writes {
    /// Appends a write at `offset` (after every write already there).
    pub fn push(&mut self, offset: u64, data: &[u8]) {
        self.bytes.extend_from_slice(data);
        self.at.push((offset, self.bytes.len()));
    }

    pub fn len(&self) -> usize {
        self.at.len()
    }

    pub fn is_empty(&self) -> bool {
        self.at.is_empty()
    }

    /// Write `i`: its offset and bytes.
    pub fn get(&self, i: usize) -> (u64, &[u8]) {
        let start = if i == 0 { 0 } else { self.at[i - 1].1 };
        let (offset, end) = self.at[i];
        (offset, &self.bytes[start..end])
    }

    pub fn iter(&self) -> impl Iterator<Item = (u64, &[u8])> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }

    /// The first write that ends after `offset`.
    fn first_ending_after(&self, offset: u64) -> usize {
        let (mut lo, mut hi) = (0, self.len());
        while lo < hi {
            let mid = (lo + hi) / 2;
            let (o, b) = self.get(mid);
            if o + b.len() as u64 <= offset {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }
}

impl<B: AsRef<[u8]>> FromIterator<(u64, B)> for Writes {
    fn from_iter<I: IntoIterator<Item = (u64, B)>>(iter: I) -> Self {
        let mut w = Writes::default();
        for (o, b) in iter {
            w.push(o, b.as_ref());
        }
        w
    }
}

/// Granularity at which [`InitData::chunks`] skips all-zero stretches of a dense buffer.
const DENSE_CHUNK: usize = 64 * 1024;

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

impl InitData {
    /// All zeros, stored as nothing.
    pub fn zeros(len: u64) -> Self {
        InitData::Sparse {
            len,
            writes: Writes::default(),
        }
    }

    /// Length in bytes.
    pub fn len_bytes(&self) -> u64 {
        match self {
            InitData::Dense(v) => v.len() as u64,
            InitData::Sparse { len, .. } => *len,
        }
    }

    /// The regions that may be non-zero, as (byte offset, bytes), in increasing offset order;
    /// every byte outside them is zero. Dense buffers come in pieces of at most 64 KiB, all-zero
    /// pieces left out.
    pub fn chunks(&self) -> Box<dyn Iterator<Item = (u64, &[u8])> + '_> {
        match self {
            InitData::Dense(v) => Box::new(
                v.chunks(DENSE_CHUNK)
                    .enumerate()
                    .filter(|(_, c)| c.iter().any(|&b| b != 0))
                    .map(|(i, c)| ((i * DENSE_CHUNK) as u64, c)),
            ),
            InitData::Sparse { writes, .. } => Box::new(writes.iter()),
        }
    }

    /// Copy bytes `offset .. offset + out.len()` into `out` (bytes past the end read as zero).
    pub fn read(&self, offset: u64, out: &mut [u8]) {
        out.fill(0);
        let end = offset.saturating_add(out.len() as u64);
        match self {
            InitData::Dense(v) => {
                let lo = (offset.min(v.len() as u64)) as usize;
                let hi = (end.min(v.len() as u64)) as usize;
                out[..hi - lo].copy_from_slice(&v[lo..hi]);
            }
            InitData::Sparse { writes, .. } => {
                for (o, b) in (writes.first_ending_after(offset)..writes.len()).map(|i| writes.get(i)) {
                    if o >= end {
                        break;
                    }
                    let lo = o.max(offset);
                    let hi = (o + b.len() as u64).min(end);
                    out[(lo - offset) as usize..(hi - offset) as usize]
                        .copy_from_slice(&b[(lo - o) as usize..(hi - o) as usize]);
                }
            }
        }
    }

    /// The bytes of a dense buffer, without copying; `None` for a sparse one.
    pub fn dense(&self) -> Option<&Arc<Vec<u8>>> {
        match self {
            InitData::Dense(v) => Some(v),
            InitData::Sparse { .. } => None,
        }
    }

    /// The whole buffer as dense bytes (allocates `len_bytes`).
    pub fn to_vec(&self) -> Vec<u8> {
        match self {
            InitData::Dense(v) => v.to_vec(),
            InitData::Sparse { len, .. } => {
                let mut v = vec![0u8; *len as usize];
                self.read(0, &mut v);
                v
            }
        }
    }

    /// FNV-1a (64-bit) of the logical byte stream. A run of `n` zero bytes multiplies the state by
    /// `prime^n`, so sparse buffers hash in time proportional to their writes.
    pub fn fnv1a64(&self) -> u64 {
        let mut h = FNV_OFFSET;
        let mut pos = 0u64;
        for (off, bytes) in self.chunks() {
            h = h.wrapping_mul(pow_wrapping(FNV_PRIME, off - pos));
            h = fnv1a64_update(h, bytes);
            pos = off + bytes.len() as u64;
        }
        h.wrapping_mul(pow_wrapping(FNV_PRIME, self.len_bytes() - pos))
    }
}

/// FNV-1a over `bytes`, continuing from state `h`.
pub fn fnv1a64_update(mut h: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(FNV_PRIME);
    }
    h
}

/// FNV-1a (64-bit) of a byte slice.
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    fnv1a64_update(FNV_OFFSET, bytes)
}

fn pow_wrapping(mut base: u64, mut exp: u64) -> u64 {
    let mut acc = 1u64;
    while exp > 0 {
        if exp & 1 == 1 {
            acc = acc.wrapping_mul(base);
        }
        base = base.wrapping_mul(base);
        exp >>= 1;
    }
    acc
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn fnv_reference_vectors() {
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a64(b"foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn sparse_read_and_chunks() {
        let d = InitData::Sparse {
            len: 16,
            writes: [(2, vec![1, 2]), (8, vec![9])].into_iter().collect(),
        };
        let mut out = [0xffu8; 6];
        d.read(1, &mut out);
        assert_eq!(out, [0, 1, 2, 0, 0, 0]);
        assert_eq!(
            d.to_vec(),
            vec![0, 0, 1, 2, 0, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0]
        );
        assert_eq!(d.chunks().count(), 2);
        let mut tail = [7u8; 4];
        d.read(14, &mut tail);
        assert_eq!(tail, [0; 4]);
    }

    proptest! {
        /// The hash and the bytes do not depend on the representation.
        #[test]
        fn representation_independent(len in 0u64..300, writes in proptest::collection::vec((0u64..300, proptest::collection::vec(any::<u8>(), 1..5)), 0..6)) {
            let mut sorted: Vec<(u64, Vec<u8>)> = Vec::new();
            let mut next_free = 0u64;
            let mut ws = writes;
            ws.sort_by_key(|w| w.0);
            for (o, b) in ws {
                if o >= next_free && o + b.len() as u64 <= len {
                    next_free = o + b.len() as u64;
                    sorted.push((o, b));
                }
            }
            let sparse = InitData::Sparse { len, writes: sorted.into_iter().collect() };
            let dense = InitData::Dense(Arc::new(sparse.to_vec()));
            prop_assert_eq!(sparse.fnv1a64(), dense.fnv1a64());
            prop_assert_eq!(dense.fnv1a64(), fnv1a64(&dense.to_vec()));
            let mut a = vec![0u8; 40];
            let mut b = vec![0u8; 40];
            for off in [0u64, 3, 100, 290] {
                sparse.read(off, &mut a);
                dense.read(off, &mut b);
                prop_assert_eq!(&a, &b);
            }
        }
    }
}
