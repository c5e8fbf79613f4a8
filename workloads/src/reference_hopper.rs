//! CPU references of the Hopper workloads (TMA, mbarrier pipelines, clusters and distributed
//! shared memory, tensor cores); registered in [`crate::references`].
//!
//! The TMA references read the geometry from the manifest's `tensor_map` argument (dims, byte
//! strides, box, swizzle), so a wrong tile walk, out-of-bounds fill or swizzle in the simulator
//! shows up as a mismatch. They model the 2D tiled mode only (element strides 1, no interleave,
//! zero fill) and say so with a [`RefError::Shape`] otherwise. Tensor-core references compute in
//! exact integer arithmetic: their workloads use small-integer inputs, so every f32 partial sum is
//! exact and a bitwise check holds for any summation order.

use crate::dtype::{DType, Value};
use crate::manifest::{Interleave, OobFill, Swizzle, TensorMap};
use crate::reference::{int, Expected, RefCtx, RefError};

fn shape(msg: impl Into<String>) -> RefError {
    RefError::Shape(msg.into())
}

/// A 2D tiled tensor map, in elements: dims, box, row pitch, and the number of boxes per dim.
struct Tiles {
    d0: u64,
    d1: u64,
    b0: u64,
    b1: u64,
    pitch: u64,
    tiles_x: u64,
    tiles_y: u64,
    esize: u64,
    swizzle: Swizzle,
}

impl Tiles {
    fn of(t: &TensorMap) -> Result<Self, RefError> {
        if t.dims.len() != 2 {
            return Err(shape(format!(
                "the TMA references model 2D tensor maps, this one has rank {}",
                t.dims.len()
            )));
        }
        if t.elem_strides.iter().any(|&s| s != 1)
            || t.interleave != Interleave::None
            || t.oob_fill != OobFill::Zero
        {
            return Err(shape(
                "the TMA references model element strides 1, no interleave and zero OOB fill",
            ));
        }
        let esize = t.dtype.size() as u64;
        if !t.strides[0].is_multiple_of(esize) {
            return Err(shape("row stride is not a whole number of elements"));
        }
        let (b0, b1) = (t.box_dims[0] as u64, t.box_dims[1] as u64);
        let span = match t.swizzle {
            Swizzle::None => None,
            Swizzle::B32 => Some(32),
            Swizzle::B64 => Some(64),
            Swizzle::B128 => Some(128),
        };
        if let Some(span) = span {
            if b0 * esize != span {
                return Err(shape(format!(
                    "modelled swizzled boxes have inner rows of exactly the swizzle span ({span} B), not {} B",
                    b0 * esize
                )));
            }
        }
        Ok(Tiles {
            d0: t.dims[0],
            d1: t.dims[1],
            b0,
            b1,
            pitch: t.strides[0] / esize,
            tiles_x: t.dims[0].div_ceil(b0),
            tiles_y: t.dims[1].div_ceil(b1),
            esize,
            swizzle: t.swizzle,
        })
    }

    fn tiles(&self) -> u64 {
        self.tiles_x * self.tiles_y
    }

    fn box_elems(&self) -> u64 {
        self.b0 * self.b1
    }

    /// Element (x, y) of the tensor, or zero out of bounds (the TMA's zero fill).
    fn at(&self, input: &[Value], x: u64, y: u64) -> Result<Value, RefError> {
        if x >= self.d0 || y >= self.d1 {
            return Ok(Value::Int(0));
        }
        input
            .get((y * self.pitch + x) as usize)
            .copied()
            .ok_or_else(|| shape(format!("tensor element ({x}, {y}) is outside the buffer")))
    }
}

/// The byte offset at which the TMA writes box byte `off` into shared memory, for a destination
/// aligned to the swizzle pattern's repeat (1024 B for 128B): the 16-byte chunk index within
/// each 128-byte line is XORed with the line index modulo 2 (32B), 4 (64B) or 8 (128B), i.e.
/// address bits [4+s) ^= bits [7+s), s = 1, 2, 3.
pub fn swizzle_offset(off: u64, swizzle: Swizzle) -> u64 {
    let mask = match swizzle {
        Swizzle::None => return off,
        Swizzle::B32 => 1,
        Swizzle::B64 => 3,
        Swizzle::B128 => 7,
    };
    off ^ (((off >> 7) & mask) << 4)
}

fn len(c: &RefCtx, name: &str) -> Result<usize, RefError> {
    Ok(c.spec(name)?.len as usize)
}

fn wrap(dtype: DType, v: i128) -> Value {
    dtype.decode(dtype.encode_int(v))
}

/// `out` = the boxes of `in`'s tensor map laid side by side: a `tiles_y*b1` x `tiles_x*b0`
/// row-major image, zeros where a box reaches past the tensor.
pub(crate) fn tma_tiles(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let t = Tiles::of(c.tensor_map("in")?)?;
    let input = c.values("in")?;
    let (w, h) = (t.tiles_x * t.b0, t.tiles_y * t.b1);
    if len(c, "out")? as u64 != w * h {
        return Err(shape(format!(
            "out must hold the {h} x {w} tile grid, has {} elements",
            len(c, "out")?
        )));
    }
    let mut values = Vec::with_capacity((w * h) as usize);
    for y in 0..h {
        for x in 0..w {
            values.push(Some(t.at(&input, x, y)?));
        }
    }
    Ok(vec![Expected {
        buffer: "out".into(),
        values,
    }])
}

/// `out` = `in` over the tensor (boxes must tile it exactly); `smem` = the shared-memory image of
/// every box, boxes in row-major order, each `b0*b1` elements with the map's swizzle applied.
pub(crate) fn tma_swizzle(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let t = Tiles::of(c.tensor_map("in")?)?;
    if t.d0 % t.b0 != 0 || t.d1 % t.b1 != 0 {
        return Err(shape(
            "tma_swizzle needs boxes that tile the tensor exactly",
        ));
    }
    let input = c.values("in")?;
    let mut out = vec![None; len(c, "out")?];
    for y in 0..t.d1 {
        for x in 0..t.d0 {
            let i = (y * t.pitch + x) as usize;
            *out.get_mut(i)
                .ok_or_else(|| shape("out is smaller than the tensor"))? =
                Some(t.at(&input, x, y)?);
        }
    }
    let n = t.box_elems();
    if len(c, "smem")? as u64 != t.tiles() * n {
        return Err(shape(format!(
            "smem must hold {} boxes of {n} elements",
            t.tiles()
        )));
    }
    let mut smem = vec![None; len(c, "smem")?];
    for tile in 0..t.tiles() {
        let (tx, ty) = (tile % t.tiles_x, tile / t.tiles_x);
        for r in 0..t.b1 {
            for col in 0..t.b0 {
                let off = swizzle_offset((r * t.b0 + col) * t.esize, t.swizzle) / t.esize;
                smem[(tile * n + off) as usize] =
                    Some(t.at(&input, tx * t.b0 + col, ty * t.b1 + r)?);
            }
        }
    }
    Ok(vec![
        Expected {
            buffer: "out".into(),
            values: out,
        },
        Expected {
            buffer: "smem".into(),
            values: smem,
        },
    ])
}

/// A TMA store through `out`'s tensor map of boxes computed as `in*a + b`, where `in` is the
/// box-padded `tiles_y*b1` x `tiles_x*b0` row-major source: in-bounds elements are written,
/// elements past the tensor (and the row padding between pitch and dims) keep `out`'s initial value.
pub(crate) fn tma_store_affine(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let t = Tiles::of(c.tensor_map("out")?)?;
    let (a, b) = (int(c.scalar("a")?), int(c.scalar("b")?));
    let input = c.values("in")?;
    let w = t.tiles_x * t.b0;
    if (input.len() as u64) < w * t.tiles_y * t.b1 {
        return Err(shape(format!(
            "in must hold the box-padded {} x {w} source",
            t.tiles_y * t.b1
        )));
    }
    let dtype = c.spec("out")?.dtype;
    let mut values: Vec<Option<Value>> = c.values("out")?.into_iter().map(Some).collect();
    // The H200 bounds-checks a store's inner dimension at 16-byte granularity (measured; see
    // warpsim-sim's `TensorMap::for_store`): a row is written up to the next 16-byte boundary.
    let stored_d0 = (t.d0 * t.esize).next_multiple_of(16) / t.esize;
    for y in 0..t.d1 {
        for x in 0..stored_d0 {
            let v = int(input[(y * w + x) as usize]);
            *values
                .get_mut((y * t.pitch + x) as usize)
                .ok_or_else(|| shape("out is smaller than its tensor map"))? =
                Some(wrap(dtype, v.wrapping_mul(a).wrapping_add(b)));
        }
    }
    Ok(vec![Expected {
        buffer: "out".into(),
        values,
    }])
}

/// Step `s` of the TMA latency loop loads box `s mod boxes` (row-major over the box grid) and
/// adds its element `s mod (b0*b1)` (row-major in the box) to a u32 sum: `result[0]` is the sum
/// after warmup+iters steps, `result[1]` the timed cycles (not compared).
pub(crate) fn tma_latency(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let t = Tiles::of(c.tensor_map("in")?)?;
    let input = c.values("in")?;
    let steps = c.scalar_int("warmup")?.max(0) as u64 + c.scalar_int("iters")?.max(0) as u64;
    let mut sum = 0u32;
    for s in 0..steps {
        let tile = s % t.tiles();
        let e = s % t.box_elems();
        let x = (tile % t.tiles_x) * t.b0 + e % t.b0;
        let y = (tile / t.tiles_x) * t.b1 + e / t.b0;
        sum = sum.wrapping_add(int(t.at(&input, x, y)?) as u32);
    }
    let mut values = vec![None; len(c, "result")?];
    *values.first_mut().ok_or_else(|| shape("result is empty"))? = Some(Value::Int(sum as i128));
    Ok(vec![Expected {
        buffer: "result".into(),
        values,
    }])
}

/// 1D clusters of `C` CTAs along x, each CTA owning slice `b` (`n = len(in)/blocks` elements) of
/// `in`: `pull[b]` = the slice of the next CTA in the cluster (rank + 1 mod C, read remotely),
/// `push[b]` = the slice of the previous one (written into this CTA remotely), `sums[k]` = the
/// wrapping sum of cluster k's slices (remote atomics into rank 0).
pub(crate) fn cluster_exchange(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let g = c.manifest.launch().grid;
    let cl = c.cluster;
    if g[1] != 1 || g[2] != 1 || cl[1] != 1 || cl[2] != 1 {
        return Err(shape("cluster_exchange models 1D grids and clusters"));
    }
    let (blocks, size) = (g[0] as usize, cl[0] as usize);
    let input = c.values("in")?;
    let n = input.len() / blocks;
    if n == 0 || blocks % size != 0 {
        return Err(shape(
            "in needs a slice per CTA and clusters must divide the grid",
        ));
    }
    let slice = |b: usize| &input[b * n..(b + 1) * n];
    let (mut pull, mut push) = (Vec::new(), Vec::new());
    for b in 0..blocks {
        let (r, base) = (b % size, b - b % size);
        pull.extend(slice(base + (r + 1) % size).iter().map(|&v| Some(v)));
        push.extend(slice(base + (r + size - 1) % size).iter().map(|&v| Some(v)));
    }
    let sums_dtype = c.spec("sums")?.dtype;
    let sums = (0..blocks / size)
        .map(|k| {
            let s: i128 = input[k * size * n..(k + 1) * size * n]
                .iter()
                .map(|&v| int(v))
                .sum();
            Some(wrap(sums_dtype, s))
        })
        .collect();
    for (name, v) in [("pull", &mut pull), ("push", &mut push)] {
        v.resize(len(c, name)?, None);
    }
    Ok(vec![
        Expected {
            buffer: "pull".into(),
            values: pull,
        },
        Expected {
            buffer: "push".into(),
            values: push,
        },
        Expected {
            buffer: "sums".into(),
            values: sums,
        },
    ])
}

/// Every CTA b of cluster k = b / C writes the k-th slice of `in` (what a multicast load
/// delivered to all of them): `out[b*n + i] = in[k*n + i]`, `n = len(out)/blocks`.
pub(crate) fn cluster_replicate(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let blocks: usize = c.manifest.launch().grid.iter().map(|&d| d as usize).product();
    let size: usize = c.cluster.iter().map(|&d| d as usize).product();
    let input = c.values("in")?;
    let n = len(c, "out")? / blocks;
    if n == 0 || !blocks.is_multiple_of(size) || input.len() < blocks / size * n {
        return Err(shape(format!(
            "cluster_replicate needs in >= {} slices of len(out)/blocks elements",
            blocks / size.max(1)
        )));
    }
    let values = (0..blocks * n)
        .map(|j| Some(input[(j / n / size) * n + j % n]))
        .collect();
    Ok(vec![Expected {
        buffer: "out".into(),
        values,
    }])
}

/// `scale * A B^T` for A (m x k) and B (n x k), both row-major (K contiguous), in exact integer
/// arithmetic (the inputs must be integers; the workloads use `randint`).
fn gemm(c: &RefCtx, scale: i128) -> Result<Vec<Expected>, RefError> {
    let (m, n, k) = (
        c.count_param("m")?,
        c.count_param("n")?,
        c.count_param("k")?,
    );
    let (a, b) = (c.values("A")?, c.values("B")?);
    if a.len() < m * k || b.len() < n * k || len(c, "C")? < m * n {
        return Err(shape(format!(
            "gemm_nt {m} x {n} x {k} needs A >= {}, B >= {}, C >= {} elements",
            m * k,
            n * k,
            m * n
        )));
    }
    let exact = |v: Value| match v {
        Value::Int(i) => Ok(i),
        Value::Float(f) if f.fract() == 0.0 && f.abs() < 1e15 => Ok(f as i128),
        Value::Float(f) => Err(shape(format!("gemm_nt inputs must be integers, got {f}"))),
    };
    let a = a.into_iter().map(exact).collect::<Result<Vec<_>, _>>()?;
    let b = b.into_iter().map(exact).collect::<Result<Vec<_>, _>>()?;
    let mut values = vec![None; len(c, "C")?];
    for i in 0..m {
        for j in 0..n {
            let dot: i128 = (0..k).map(|x| a[i * k + x] * b[j * k + x]).sum();
            values[i * n + j] = Some(Value::Int(dot * scale));
        }
    }
    Ok(vec![Expected {
        buffer: "C".into(),
        values,
    }])
}

pub(crate) fn gemm_nt(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    gemm(c, 1)
}

pub(crate) fn gemm_nt_iters(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    gemm(c, c.scalar_int("iters")?.max(0) as i128)
}

/// After `iters` completed phases of an mbarrier: `out[0]` = iters, `out[1]` = 1 (test_wait.parity
/// of the last completed phase's parity succeeds), `out[2]` = 0 (the current phase is pending).
pub(crate) fn mbarrier_phases(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let iters = c.scalar_int("iters")?;
    let mut values = vec![None; len(c, "out")?];
    if values.len() < 3 {
        return Err(shape("out needs 3 elements"));
    }
    values[0] = Some(Value::Int(iters as i128));
    values[1] = Some(Value::Int(1));
    values[2] = Some(Value::Int(0));
    Ok(vec![Expected {
        buffer: "out".into(),
        values,
    }])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn swizzle_128b_by_hand() {
        // line 0 unchanged; line 1: chunk 0 -> 1; line 7: chunk 2 -> 5; line 8 repeats line 0
        assert_eq!(swizzle_offset(0x24, Swizzle::B128), 0x24);
        assert_eq!(swizzle_offset(0x80 + 0x04, Swizzle::B128), 0x80 + 0x14);
        assert_eq!(
            swizzle_offset(7 * 128 + 0x20, Swizzle::B128),
            7 * 128 + 0x50
        );
        assert_eq!(
            swizzle_offset(8 * 128 + 0x20, Swizzle::B128),
            8 * 128 + 0x20
        );
        assert_eq!(swizzle_offset(3 * 128 + 0x10, Swizzle::B64), 3 * 128 + 0x20);
        assert_eq!(swizzle_offset(128 + 0x10, Swizzle::B32), 128);
        assert_eq!(swizzle_offset(128 + 0x10, Swizzle::None), 128 + 0x10);
        // a permutation of each 1024-byte block
        let mut seen = [false; 1024];
        for o in 0..1024 {
            seen[swizzle_offset(o, Swizzle::B128) as usize] = true;
        }
        assert!(seen.iter().all(|&s| s));
    }
}
