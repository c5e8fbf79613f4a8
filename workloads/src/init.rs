//! Initial contents of a buffer (`init = ...` in a manifest) and the deterministic generators
//! that turn them into bytes.
//!
//! Each generator is a pure function of (init, dtype, len): the PRNG is [`crate::rng::Rng`], float
//! values are computed in f64 and rounded once to the dtype (nearest-even), integers are exact.
//! The exact definitions, which the README repeats for other implementations:
//! - `zeros`: all zero (stored sparse: nothing).
//! - `const = v`: every element `v`.
//! - `iota = { start, step }`: element i is `start + i*step` (f64 then rounded for floats;
//!   exact, then wrapped to the dtype's width, for integers).
//! - `uniform = [lo, hi], seed`: element i, in order, is `lo + (hi-lo)*u` with `u = unit_f64()` for
//!   floats, `range_inclusive(lo, hi)` for integers; one stream per buffer, from `Rng::new(seed)`.
//! - `randint = [lo, hi], seed`: element i, in order, is the integer `range_inclusive(lo, hi)`
//!   (the same draws as an integer `uniform`), stored exactly in any dtype, floats included (the
//!   loader checks that every integer in `lo..=hi` is exact in the dtype). For tensor-core
//!   workloads whose f16/bf16 inputs must be small integers so that f32 results are exact.
//! - `chase = { footprint, stride }, seed`: `n = footprint/stride` slots at byte offsets
//!   `k*stride`; Sattolo's shuffle (for i = n-1 down to 1: j = below(i), swap a[i], a[j]) of
//!   `0..n` gives `next = a`, a single cycle through every slot (so it contains slot 0); slot k's
//!   first element holds `next[k]*stride/elem_size`, the element index of the next slot. All other
//!   bytes are zero and the data is sparse.
//! - `csr = { rows, cols, nnz, part }, seed`: a random sparsity pattern; each of the `nnz` entries
//!   picks a row with `below(rows)` (redrawn if that row is full), then each row, in order, picks
//!   its columns with Floyd's sampling (for j = cols-k .. cols: t = below(j+1); take t, or j if t
//!   is taken) and sorts them. `part = "row_ptr"` gives the `rows+1` offsets, `"col_idx"` the
//!   `nnz` column indices; the two parts of one matrix share (rows, cols, nnz, seed).
//! - `file = "x.bin"`: the file's bytes, which must be exactly `len * size` long.

use crate::data::InitData;
use crate::dtype::{DType, Value};
use crate::rng::Rng;
use std::collections::BTreeSet;
use std::sync::Arc;

/// Which array of a CSR matrix a `csr` init produces.
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CsrPart {
    RowPtr,
    ColIdx,
}

/// A validated `init` (values already typed for the buffer's dtype).
#[derive(Clone, Debug, PartialEq)]
pub enum Init {
    Zeros,
    Const(Value),
    Iota {
        start: Value,
        step: Value,
    },
    Uniform {
        lo: Value,
        hi: Value,
        seed: u64,
    },
    /// Random integers in `lo..=hi`, stored exactly in the dtype (floats included).
    RandInt {
        lo: i64,
        hi: i64,
        seed: u64,
    },
    Chase {
        footprint: u64,
        stride: u64,
        seed: u64,
    },
    Csr {
        rows: u64,
        cols: u64,
        nnz: u64,
        part: CsrPart,
        seed: u64,
    },
    /// Contents read from `path` (relative to the manifest) at load time.
    File {
        path: String,
        bytes: Arc<Vec<u8>>,
    },
}

impl Init {
    /// Generate `len` elements of `dtype`. The manifest loader has validated the combination
    /// (ranges, geometry, sizes), so this cannot fail.
    pub fn generate(&self, dtype: DType, len: u64) -> InitData {
        let size = dtype.size() as u64;
        match self {
            Init::Zeros => InitData::zeros(len * size),
            Init::Const(v) => {
                let bits = dtype.encode(*v);
                if bits == 0 {
                    InitData::zeros(len * size)
                } else {
                    dense(dtype, len, |_| bits)
                }
            }
            Init::Iota { start, step } => dense(dtype, len, |i| match (start, step) {
                (Value::Int(a), Value::Int(d)) if !dtype.is_float() => {
                    dtype.encode_int(a + i as i128 * d)
                }
                _ => dtype.encode_f64(start.as_f64() + i as f64 * step.as_f64()),
            }),
            Init::Uniform { lo, hi, seed } => {
                let mut rng = Rng::new(*seed);
                match (lo, hi) {
                    (Value::Int(a), Value::Int(b)) if !dtype.is_float() => {
                        dense(dtype, len, |_| {
                            dtype.encode_int(rng.range_inclusive(*a, *b))
                        })
                    }
                    _ => {
                        let (a, b) = (lo.as_f64(), hi.as_f64());
                        dense(dtype, len, |_| {
                            dtype.encode_f64(a + (b - a) * rng.unit_f64())
                        })
                    }
                }
            }
            Init::RandInt { lo, hi, seed } => {
                let mut rng = Rng::new(*seed);
                dense(dtype, len, |_| {
                    dtype.encode_int(rng.range_inclusive(*lo as i128, *hi as i128))
                })
            }
            Init::Chase {
                footprint,
                stride,
                seed,
            } => {
                let next = single_cycle(footprint / stride, *seed);
                let mut writes = crate::data::Writes::default();
                let mut b = Vec::with_capacity(size as usize);
                for (k, &n) in next.iter().enumerate() {
                    b.clear();
                    dtype.push_bits(dtype.encode_int((n * stride / size) as i128), &mut b);
                    writes.push(k as u64 * stride, &b);
                }
                InitData::Sparse {
                    len: len * size,
                    writes,
                }
            }
            Init::Csr {
                rows,
                cols,
                nnz,
                part,
                seed,
            } => {
                let pattern = csr_pattern(*rows, *cols, *nnz, *seed);
                let values: Vec<u64> = match part {
                    CsrPart::RowPtr => pattern.row_ptr,
                    CsrPart::ColIdx => pattern.col_idx,
                };
                dense(dtype, len, |i| dtype.encode_int(values[i as usize] as i128))
            }
            Init::File { bytes, .. } => InitData::Dense(Arc::clone(bytes)),
        }
    }
}

/// Dense bytes from a per-element bit generator called in index order.
fn dense(dtype: DType, len: u64, mut bits: impl FnMut(u64) -> u64) -> InitData {
    let mut v = Vec::with_capacity(len as usize * dtype.size());
    for i in 0..len {
        dtype.push_bits(bits(i), &mut v);
    }
    InitData::Dense(Arc::new(v))
}

/// Sattolo's algorithm: `next[k]` is the slot after slot k on one cycle through all `n` slots.
pub(crate) fn single_cycle(n: u64, seed: u64) -> Vec<u64> {
    let mut rng = Rng::new(seed);
    let mut a: Vec<u64> = (0..n).collect();
    for i in (1..n as usize).rev() {
        let j = rng.below(i as u64) as usize;
        a.swap(i, j);
    }
    a
}

/// A CSR sparsity pattern (see the module doc for the exact procedure).
pub(crate) struct CsrPattern {
    pub row_ptr: Vec<u64>,
    pub col_idx: Vec<u64>,
}

pub(crate) fn csr_pattern(rows: u64, cols: u64, nnz: u64, seed: u64) -> CsrPattern {
    let mut rng = Rng::new(seed);
    let mut counts = vec![0u64; rows as usize];
    for _ in 0..nnz {
        loop {
            let r = rng.below(rows) as usize;
            if counts[r] < cols {
                counts[r] += 1;
                break;
            }
        }
    }
    let mut row_ptr = Vec::with_capacity(rows as usize + 1);
    let mut col_idx = Vec::with_capacity(nnz as usize);
    row_ptr.push(0);
    for &k in &counts {
        let mut taken = BTreeSet::new();
        for j in cols - k..cols {
            let t = rng.below(j + 1);
            if !taken.insert(t) {
                taken.insert(j);
            }
        }
        col_idx.extend(taken);
        row_ptr.push(col_idx.len() as u64);
    }
    CsrPattern { row_ptr, col_idx }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn elems(d: &InitData, dtype: DType) -> Vec<Value> {
        d.to_vec()
            .chunks(dtype.size())
            .map(|c| dtype.decode(dtype.read_bits(c)))
            .collect()
    }

    #[test]
    fn iota_and_const() {
        let d = Init::Iota {
            start: Value::Int(250),
            step: Value::Int(3),
        }
        .generate(DType::U8, 3);
        assert_eq!(d.to_vec(), vec![250, 253, 0]); // wraps
        let f = Init::Iota {
            start: Value::Float(0.5),
            step: Value::Float(0.25),
        }
        .generate(DType::F32, 3);
        assert_eq!(
            elems(&f, DType::F32),
            vec![Value::Float(0.5), Value::Float(0.75), Value::Float(1.0)]
        );
        assert_eq!(
            Init::Const(Value::Int(0))
                .generate(DType::S32, 1 << 30)
                .chunks()
                .count(),
            0
        );
        assert_eq!(
            Init::Const(Value::Float(1.0))
                .generate(DType::F16, 2)
                .to_vec(),
            vec![0, 0x3c, 0, 0x3c]
        );
    }

    #[test]
    fn chase_small_by_hand() {
        // 4 slots of 16 bytes over u32: indices are multiples of 4
        let d = Init::Chase {
            footprint: 64,
            stride: 16,
            seed: 1,
        }
        .generate(DType::U32, 32);
        assert_eq!(d.len_bytes(), 128);
        let v = elems(&d, DType::U32);
        let mut slot = 0usize;
        let mut seen = vec![];
        for _ in 0..4 {
            seen.push(slot);
            let Value::Int(next) = v[slot * 4] else {
                unreachable!()
            };
            slot = next as usize / 4;
        }
        assert_eq!(slot, 0);
        seen.sort();
        assert_eq!(seen, vec![0, 1, 2, 3]);
    }

    #[test]
    fn csr_pattern_is_consistent() {
        let p = csr_pattern(5, 4, 12, 3);
        assert_eq!(p.row_ptr.len(), 6);
        assert_eq!(*p.row_ptr.last().unwrap(), 12);
        for r in 0..5 {
            let cols = &p.col_idx[p.row_ptr[r] as usize..p.row_ptr[r + 1] as usize];
            assert!(cols.windows(2).all(|w| w[0] < w[1]) && cols.iter().all(|&c| c < 4));
        }
        // a full matrix is possible
        assert_eq!(csr_pattern(2, 3, 6, 9).col_idx, vec![0, 1, 2, 0, 1, 2]);
    }

    #[test]
    fn randint_is_integer_uniform_in_any_dtype() {
        // the same draws as an integer uniform, stored exactly in a float dtype
        let ints = Init::Uniform {
            lo: Value::Int(-4),
            hi: Value::Int(4),
            seed: 7,
        }
        .generate(DType::S32, 64);
        let halves = Init::RandInt {
            lo: -4,
            hi: 4,
            seed: 7,
        }
        .generate(DType::F16, 64);
        let want: Vec<f64> = elems(&ints, DType::S32)
            .into_iter()
            .map(Value::as_f64)
            .collect();
        let got: Vec<f64> = elems(&halves, DType::F16)
            .into_iter()
            .map(Value::as_f64)
            .collect();
        assert_eq!(got, want);
        assert!(want
            .iter()
            .all(|v| (-4.0..=4.0).contains(v) && v.fract() == 0.0));
        assert!(want.contains(&-4.0) && want.contains(&4.0));
    }

    proptest! {
        #[test]
        fn generation_is_deterministic(seed in any::<u64>(), len in 0u64..64) {
            let init = Init::Uniform { lo: Value::Float(-1.0), hi: Value::Float(1.0), seed };
            prop_assert_eq!(init.generate(DType::Bf16, len), init.generate(DType::Bf16, len));
            let chase = Init::Chase { footprint: 256, stride: 8, seed };
            prop_assert_eq!(chase.generate(DType::U64, 40), chase.generate(DType::U64, 40));
        }

        #[test]
        fn chase_is_one_cycle_through_slot_0(seed in any::<u64>(), n in 1u64..200) {
            let next = single_cycle(n, seed);
            let mut seen = vec![false; n as usize];
            let mut k = 0u64;
            for _ in 0..n {
                prop_assert!(!seen[k as usize]);
                seen[k as usize] = true;
                k = next[k as usize];
            }
            prop_assert_eq!(k, 0);
            prop_assert!(seen.iter().all(|&s| s));
        }

        #[test]
        fn uniform_in_range(seed in any::<u64>(), lo in -1000i64..1000, w in 0i64..1000,
                            flo in -10.0f64..10.0, fw in 0.0f64..10.0) {
            for dtype in [DType::U16, DType::S16, DType::S32, DType::U64] {
                let lo = if dtype.int_range().unwrap().0 == 0 { lo.abs() } else { lo };
                let d = Init::Uniform { lo: Value::Int(lo as i128), hi: Value::Int((lo + w) as i128), seed }.generate(dtype, 50);
                for v in elems(&d, dtype) {
                    let Value::Int(v) = v else { unreachable!() };
                    prop_assert!(lo as i128 <= v && v <= (lo + w) as i128);
                }
            }
            for dtype in [DType::F16, DType::Bf16, DType::F32, DType::F64] {
                let d = Init::Uniform { lo: Value::Float(flo), hi: Value::Float(flo + fw), seed }.generate(dtype, 50);
                // rounding is monotone: values stay within the rounded bounds
                let rlo = dtype.decode(dtype.encode_f64(flo)).as_f64();
                let rhi = dtype.decode(dtype.encode_f64(flo + fw)).as_f64();
                for v in elems(&d, dtype) {
                    prop_assert!(rlo <= v.as_f64() && v.as_f64() <= rhi);
                }
            }
        }
    }
}
