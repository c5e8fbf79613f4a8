//! The tensor memory accelerator's data layout: tensor maps and tile copies.
//!
//! A tensor map (`CUtensorMap`, 128 opaque bytes passed by value) describes a tensor in global
//! memory: base address, element size, rank, dimensions, byte strides, the box (tile) a copy
//! moves, element strides within the box, the shared-memory swizzle and the out-of-bounds fill.
//! The simulator encodes its own 128-byte layout (`encode`/`decode`; the GPU runner uses the
//! driver's). A tile copy walks the box innermost dimension first, lays it densely in shared
//! memory, applies the swizzle to the shared address (16-byte chunk bits 4..4+B XOR address bits
//! 7..7+B, B = 1, 2, 3 for 32/64/128-byte swizzle, CUTLASS's `Swizzle<B,4,3>`), and fills
//! elements outside the tensor with zeros (or NaN); the transaction byte count is always the full
//! box.

/// Magic number identifying the simulator's tensor-map encoding.
const MAGIC: u32 = 0x4d54_5357; // "WSTM"

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Swizzle {
    None,
    B32,
    B64,
    B128,
}

impl Swizzle {
    /// Number of XOR-ed chunk bits.
    fn bits(self) -> u32 {
        match self {
            Swizzle::None => 0,
            Swizzle::B32 => 1,
            Swizzle::B64 => 2,
            Swizzle::B128 => 3,
        }
    }

    /// The physical shared-memory address of logical address `a`.
    pub fn apply(self, a: u64) -> u64 {
        let b = self.bits();
        if b == 0 {
            return a;
        }
        let mask = (1u64 << b) - 1;
        a ^ (((a >> 7) & mask) << 4)
    }
}

/// A decoded tensor map.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TensorMap {
    pub base: u64,
    pub elem_bytes: u32,
    pub rank: u32,
    pub dims: [u64; 5],
    /// Byte strides of dimensions 1..rank (index 0 is dimension 1).
    pub strides: [u64; 4],
    pub box_dims: [u32; 5],
    pub elem_strides: [u32; 5],
    pub swizzle: Swizzle,
    /// Fill out-of-bounds float elements with NaN instead of zero.
    pub oob_nan: bool,
}

/// Why a tensor map is unusable.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TensorMapError {
    #[error("the tensor map was not encoded by warpsim (bad magic); pass tensor maps through the workload manifest")]
    BadMagic,
    #[error("tensor map: {0}")]
    Invalid(String),
}

impl TensorMap {
    /// Checks the geometry rules of `cuTensorMapEncodeTiled`.
    pub fn validate(&self) -> Result<(), TensorMapError> {
        let bad = |m: String| Err(TensorMapError::Invalid(m));
        if !(1..=5).contains(&self.rank) {
            return bad(format!("rank {} is not 1..5", self.rank));
        }
        if !matches!(self.elem_bytes, 1 | 2 | 4 | 8) {
            return bad(format!("element size {} bytes", self.elem_bytes));
        }
        for i in 0..self.rank as usize {
            if self.box_dims[i] == 0 || self.box_dims[i] > 256 {
                return bad(format!("box dimension {i} is {} (1..256)", self.box_dims[i]));
            }
            if !(1..=8).contains(&self.elem_strides[i]) {
                return bad(format!("element stride {i} is {} (1..8)", self.elem_strides[i]));
            }
        }
        if self.swizzle != Swizzle::None {
            let inner = self.box_dims[0] as u64 * self.elem_bytes as u64;
            let span = 16u64 << self.swizzle.bits();
            if inner > span {
                return bad(format!("inner box of {inner} bytes exceeds the {span}-byte swizzle span"));
            }
        }
        Ok(())
    }

    /// Elements a copy moves along dimension `i`.
    fn extent(&self, i: usize) -> u64 {
        (self.box_dims[i] as u64).div_ceil(self.elem_strides[i] as u64)
    }

    /// Bytes one tile copy moves (the transaction count, whatever is out of bounds).
    pub fn box_bytes(&self) -> u64 {
        (0..self.rank as usize).map(|i| self.extent(i)).product::<u64>() * self.elem_bytes as u64
    }

    pub fn encode(&self) -> [u8; 128] {
        let mut b = [0u8; 128];
        b[0..4].copy_from_slice(&MAGIC.to_le_bytes());
        b[4] = self.rank as u8;
        b[5] = self.elem_bytes as u8;
        b[6] = self.swizzle.bits() as u8;
        b[7] = self.oob_nan as u8;
        b[8..16].copy_from_slice(&self.base.to_le_bytes());
        for i in 0..5 {
            b[16 + 8 * i..24 + 8 * i].copy_from_slice(&self.dims[i].to_le_bytes());
            b[56 + 2 * i..58 + 2 * i].copy_from_slice(&(self.box_dims[i] as u16).to_le_bytes());
            b[66 + i] = self.elem_strides[i] as u8;
        }
        for i in 0..4 {
            b[72 + 8 * i..80 + 8 * i].copy_from_slice(&self.strides[i].to_le_bytes());
        }
        b
    }

    pub fn decode(b: &[u8; 128]) -> Result<TensorMap, TensorMapError> {
        if u32::from_le_bytes([b[0], b[1], b[2], b[3]]) != MAGIC {
            return Err(TensorMapError::BadMagic);
        }
        let u64_at = |o: usize| u64::from_le_bytes(b[o..o + 8].try_into().unwrap_or([0; 8]));
        let t = TensorMap {
            base: u64_at(8),
            elem_bytes: b[5] as u32,
            rank: b[4] as u32,
            dims: std::array::from_fn(|i| u64_at(16 + 8 * i)),
            strides: std::array::from_fn(|i| u64_at(72 + 8 * i)),
            box_dims: std::array::from_fn(|i| u16::from_le_bytes([b[56 + 2 * i], b[57 + 2 * i]]) as u32),
            elem_strides: std::array::from_fn(|i| b[66 + i] as u32),
            swizzle: match b[6] {
                1 => Swizzle::B32,
                2 => Swizzle::B64,
                3 => Swizzle::B128,
                _ => Swizzle::None,
            },
            oob_nan: b[7] != 0,
        };
        t.validate()?;
        Ok(t)
    }

    /// The map as a tile store (global ← shared) sees it: the H200 bounds-checks a store's
    /// innermost dimension at 16-byte granularity, so elements past `dims[0]` up to the next
    /// 16-byte boundary are written too (measured: `tma_store_oob` on a 250-wide u32 tensor writes
    /// columns 250 and 251, validate/data/h200/2026-11-30.json). Loads check every element.
    pub fn for_store(&self) -> TensorMap {
        let e = self.elem_bytes as u64;
        TensorMap { dims: [(self.dims[0] * e).next_multiple_of(16) / e, self.dims[1], self.dims[2], self.dims[3], self.dims[4]], ..self.clone() }
    }

    /// Visits every element of the box at `coords`: `f(global address or None when out of
    /// bounds, logical shared offset)` in shared-memory order.
    #[allow(clippy::needless_range_loop)] // lane/dimension-indexed arrays side by side
    pub fn for_each(&self, coords: &[i64], mut f: impl FnMut(Option<u64>, u64)) {
        let r = self.rank as usize;
        let ext: Vec<u64> = (0..r).map(|i| self.extent(i)).collect();
        let total: u64 = ext.iter().product();
        let mut idx = vec![0u64; r];
        for n in 0..total {
            // Decompose n into the box index, innermost fastest.
            let mut rem = n;
            for i in 0..r {
                idx[i] = rem % ext[i];
                rem /= ext[i];
            }
            let mut addr = self.base;
            let mut inside = true;
            for i in 0..r {
                let c = coords.get(i).copied().unwrap_or(0) + (idx[i] * self.elem_strides[i] as u64) as i64;
                if c < 0 || c as u64 >= self.dims[i] {
                    inside = false;
                    break;
                }
                addr += if i == 0 { c as u64 * self.elem_bytes as u64 } else { c as u64 * self.strides[i - 1] };
            }
            f(inside.then_some(addr), n * self.elem_bytes as u64);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map2d(swizzle: Swizzle) -> TensorMap {
        TensorMap {
            base: 0x1000,
            elem_bytes: 4,
            rank: 2,
            dims: [100, 50, 1, 1, 1],
            strides: [400, 0, 0, 0],
            box_dims: [32, 8, 1, 1, 1],
            elem_strides: [1, 1, 1, 1, 1],
            swizzle,
            oob_nan: false,
        }
    }

    #[test]
    fn swizzle_128b_byte_positions() {
        // Row 1 (bytes 128..255), 16-byte chunk 0 moves to chunk 1: byte offset 128 + 16.
        assert_eq!(Swizzle::B128.apply(128), 128 + 16);
        // Row 3, chunk 2 → chunk 2 ^ 3 = 1.
        assert_eq!(Swizzle::B128.apply(3 * 128 + 2 * 16 + 4), 3 * 128 + 16 + 4);
        // Row 8 wraps the pattern (only bits 7..9 take part).
        assert_eq!(Swizzle::B128.apply(8 * 128 + 16), 8 * 128 + 16);
        // 64B swizzle uses two bits; 32B one.
        assert_eq!(Swizzle::B64.apply(3 * 128), 3 * 128 + 3 * 16);
        assert_eq!(Swizzle::B32.apply(3 * 128), 3 * 128 + 16);
        assert_eq!(Swizzle::None.apply(3 * 128), 3 * 128);
    }

    #[test]
    fn stores_bound_the_inner_dimension_at_16_bytes() {
        let mut t = map2d(Swizzle::None);
        t.dims[0] = 250;
        assert_eq!(t.for_store().dims[0], 252);
        t.elem_bytes = 2;
        assert_eq!(t.for_store().dims[0], 256);
        t.dims[0] = 248;
        assert_eq!(t.for_store().dims[..2], [248, 50]);
    }

    #[test]
    fn box_walk_with_out_of_bounds() {
        let t = map2d(Swizzle::None);
        assert_eq!(t.box_bytes(), 32 * 8 * 4);
        let mut oob = 0;
        let mut last = 0;
        // Box at (80, 45): columns 100.. and rows 50.. fall outside.
        t.for_each(&[80, 45], |g, s| {
            if g.is_none() {
                oob += 1;
            }
            last = s;
        });
        let inside = 20 * 5;
        assert_eq!(oob, 32 * 8 - inside);
        assert_eq!(last, (32 * 8 - 1) * 4);
        let mut first = None;
        t.for_each(&[3, 2], |g, s| {
            if s == 0 {
                first = g;
            }
        });
        assert_eq!(first, Some(0x1000 + 2 * 400 + 3 * 4));
    }

    #[test]
    fn encode_decode_and_validation() {
        let t = map2d(Swizzle::B128);
        assert_eq!(TensorMap::decode(&t.encode()), Ok(t.clone()));
        assert_eq!(TensorMap::decode(&[0u8; 128]), Err(TensorMapError::BadMagic));
        let mut wide = t;
        wide.box_dims[0] = 64;
        assert!(wide.validate().is_err(), "64 × 4 bytes exceed the 128-byte swizzle span");
    }
}
