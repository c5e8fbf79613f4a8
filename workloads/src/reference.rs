//! CPU references: for each named reference, a Rust function from a workload's inputs (buffers,
//! named scalar args, `[check.params]`) to the expected contents of its output buffers.
//!
//! Integer references are exact (wrapping like the GPU's 32-bit arithmetic). Float references
//! either mimic the kernel's f32 operation order (each `fmaf`/add rounded to f32, via Rust's
//! correctly rounded `f32::mul_add`) so that `bitwise = true` holds, or compute in f64 for a
//! `tolerance` check when the kernel's order or its `.approx` instructions cannot be mimicked.
//! Timing microbenchmarks check what is deterministic (the final chase index, the chain's value)
//! and declare their clock outputs in [`Reference::timing`]; those are never compared.
//! The table [`references`] is the registry; each entry also lists the buffers, scalars and params
//! it needs, which the manifest loader checks, so a reference never meets a missing input.

use crate::data::InitData;
use crate::dtype::{DType, Value};
use crate::manifest::{Arg, BufferSpec, Manifest, TensorMap};
use crate::reference_blind as blind;
use crate::reference_blind3 as blind3;
use crate::reference_blind4 as blind4;
use crate::reference_blind5 as blind5;
use crate::reference_blind6 as blind6;
use crate::reference_blind8 as blind8;
use crate::reference_multi as multi;
use crate::reference_hopper as hopper;
use crate::reference_membench as membench;
use crate::reference_micro as micro;

/// Why a reference could not compute (a manifest inconsistent with the reference's assumptions).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RefError {
    #[error("no buffer named `{0}`")]
    NoBuffer(String),
    #[error("no scalar arg named `{0}`")]
    NoScalar(String),
    #[error("no [check.params] key `{0}`")]
    NoParam(String),
    #[error("{0} input buffers given, the manifest declares {1}")]
    InputCount(usize, usize),
    #[error("input `{name}` has {got} bytes, expected {want}")]
    InputSize { name: String, got: u64, want: u64 },
    #[error("{0}")]
    Shape(String),
}

/// An input buffer as bytes, decoded one element at a time: a 16 M-element buffer costs its
/// 64 MB rather than 512 MB of decoded [`Value`]s (the streaming copies' references), and a
/// dense input's bytes are shared, not copied.
pub struct Column {
    dtype: DType,
    bytes: std::sync::Arc<Vec<u8>>,
}

impl Column {
    pub fn len(&self) -> usize {
        self.bytes.len() / self.dtype.size()
    }

    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// Element `i`, or `None` past the end.
    pub fn get(&self, i: usize) -> Option<Value> {
        let n = self.dtype.size();
        let start = i.checked_mul(n)?;
        let b = self.bytes.get(start..start.checked_add(n)?)?;
        Some(self.dtype.decode(self.dtype.read_bits(b)))
    }
}

/// Expected contents of one output buffer: `None` elements are not compared.
#[derive(Clone, Debug, PartialEq)]
pub struct Expected {
    pub buffer: String,
    pub values: Vec<Option<Value>>,
}

/// What a reference function reads: the manifest, the input bytes and the launch's cluster
/// shape, with typed accessors.
pub struct RefCtx<'a> {
    pub manifest: &'a Manifest,
    pub inputs: &'a [InitData],
    /// CTAs per cluster in x, y, z: the manifest's `cluster`, or what [`RefCtx::with_cluster`]
    /// sets (the resolved [`crate::Launch::cluster`], which also reads the PTX's
    /// `.reqnctapercluster`); [1, 1, 1] when neither says otherwise.
    pub cluster: [u32; 3],
}

impl<'a> RefCtx<'a> {
    /// Pair a manifest with input data, one [`InitData`] per buffer in declaration order.
    pub fn new(manifest: &'a Manifest, inputs: &'a [InitData]) -> Result<Self, RefError> {
        if inputs.len() != manifest.buffers.len() {
            return Err(RefError::InputCount(inputs.len(), manifest.buffers.len()));
        }
        for (b, d) in manifest.buffers.iter().zip(inputs) {
            if d.len_bytes() != b.bytes() {
                return Err(RefError::InputSize {
                    name: b.name.clone(),
                    got: d.len_bytes(),
                    want: b.bytes(),
                });
            }
        }
        Ok(RefCtx {
            manifest,
            inputs,
            cluster: manifest.launch().cluster.unwrap_or([1, 1, 1]),
        })
    }

    /// The same context with the launch's resolved cluster shape (for kernels whose cluster
    /// comes from `__cluster_dims__`, i.e. the PTX's `.reqnctapercluster`).
    pub fn with_cluster(mut self, cluster: [u32; 3]) -> Self {
        self.cluster = cluster;
        self
    }

    /// The tensor-map argument over buffer `name` (the first, if several).
    pub fn tensor_map(&self, name: &str) -> Result<&'a TensorMap, RefError> {
        let index = self
            .manifest
            .buffers
            .iter()
            .position(|b| b.name == name)
            .ok_or_else(|| RefError::NoBuffer(name.into()))?;
        self.manifest
            .args()
            .find_map(|a| match a {
                Arg::TensorMap(t) if t.buffer == index => Some(t),
                _ => None,
            })
            .ok_or_else(|| RefError::Shape(format!("no tensor_map arg over buffer `{name}`")))
    }

    fn buffer(&self, name: &str) -> Result<(&'a BufferSpec, &'a InitData), RefError> {
        let i = self
            .manifest
            .buffers
            .iter()
            .position(|b| b.name == name)
            .ok_or_else(|| RefError::NoBuffer(name.into()))?;
        Ok((&self.manifest.buffers[i], &self.inputs[i]))
    }

    /// Spec (dtype, len) of a buffer.
    pub fn spec(&self, name: &str) -> Result<&'a BufferSpec, RefError> {
        Ok(self.buffer(name)?.0)
    }

    /// Every element of an input buffer, decoded (materialises the buffer).
    pub fn values(&self, name: &str) -> Result<Vec<Value>, RefError> {
        let col = self.column(name)?;
        Ok((0..col.len()).filter_map(|i| col.get(i)).collect())
    }

    /// An input buffer's bytes, decoded element by element on demand.
    pub fn column(&self, name: &str) -> Result<Column, RefError> {
        let (spec, data) = self.buffer(name)?;
        let bytes = data.dense().map_or_else(|| std::sync::Arc::new(data.to_vec()), std::sync::Arc::clone);
        Ok(Column { dtype: spec.dtype, bytes })
    }

    /// One element, read without materialising the buffer (for huge sparse inputs).
    pub fn element(&self, name: &str, index: u64) -> Result<Value, RefError> {
        let (spec, data) = self.buffer(name)?;
        if index >= spec.len {
            return Err(RefError::Shape(format!(
                "index {index} out of `{name}` (len {})",
                spec.len
            )));
        }
        let mut b = [0u8; 8];
        let size = spec.dtype.size();
        data.read(index * size as u64, &mut b[..size]);
        Ok(spec.dtype.decode(spec.dtype.read_bits(&b)))
    }

    /// A named scalar arg's value.
    pub fn scalar(&self, name: &str) -> Result<Value, RefError> {
        self.manifest
            .args()
            .find_map(|a| match a {
                Arg::Scalar {
                    dtype,
                    bits,
                    name: Some(n),
                } if n == name => Some(dtype.decode(*bits)),
                _ => None,
            })
            .ok_or_else(|| RefError::NoScalar(name.into()))
    }

    /// A named scalar arg as an integer (floats truncate).
    pub fn scalar_int(&self, name: &str) -> Result<i64, RefError> {
        Ok(int(self.scalar(name)?) as i64)
    }

    /// A `[check.params]` value.
    pub fn param(&self, name: &str) -> Result<i64, RefError> {
        self.manifest
            .check
            .as_ref()
            .and_then(|c| c.params.get(name).copied())
            .ok_or_else(|| RefError::NoParam(name.into()))
    }

    /// A `[check.params]` value that must be a positive count.
    pub fn count_param(&self, name: &str) -> Result<usize, RefError> {
        let v = self.param(name)?;
        usize::try_from(v)
            .ok()
            .filter(|&v| v > 0)
            .ok_or_else(|| RefError::Shape(format!("param `{name}` must be positive, got {v}")))
    }
}

/// A scalar parameter that must be >= 0.
pub(crate) fn count(c: &RefCtx, name: &str) -> Result<usize, RefError> {
    let v = c.scalar_int(name)?;
    usize::try_from(v).map_err(|_| shape(format!("scalar `{name}` must be >= 0, got {v}")))
}

/// A scalar parameter as f32.
pub(crate) fn scalar_f32(c: &RefCtx, name: &str) -> Result<f32, RefError> {
    Ok(c.scalar(name)?.as_f64() as f32)
}

/// The initial contents of a buffer, as expected values (every element compared).
pub(crate) fn initial(c: &RefCtx, name: &str) -> Result<Vec<Option<Value>>, RefError> {
    let col = c.column(name)?;
    Ok((0..col.len()).map(|i| col.get(i)).collect())
}

/// Buffer `name` must hold at least `want` elements.
pub(crate) fn expect_min(c: &RefCtx, name: &str, want: usize) -> Result<(), RefError> {
    let got = c.spec(name)?.len as usize;
    if got < want {
        return Err(shape(format!("`{name}` has {got} elements, needs {want}")));
    }
    Ok(())
}

/// The `rows` × `cols` of a row-wise kernel whose `in` holds at least that many elements and whose
/// `out` exactly that many.
pub(crate) fn row_major(c: &RefCtx) -> Result<(usize, usize), RefError> {
    let (rows, cols) = (count(c, "rows")?, count(c, "cols")?);
    expect_min(c, "in", rows * cols)?;
    if c.spec("out")?.len as usize != rows * cols {
        return Err(shape(format!("`out` must have rows * cols = {} elements", rows * cols)));
    }
    Ok((rows, cols))
}

/// The `out` of a row-wise kernel ([`row_major`]): each `cols`-element row of `in`, its elements
/// read by `read(column, index)`, goes to `f`, which appends that row's output elements.
pub(crate) fn map_rows<T, U>(
    c: &RefCtx,
    read: impl Fn(&Column, usize) -> Result<T, RefError>,
    mut f: impl FnMut(&[T], &mut Vec<U>),
) -> Result<Vec<U>, RefError> {
    let (rows, cols) = row_major(c)?;
    let input = c.column("in")?;
    let (mut out, mut row) = (Vec::with_capacity(rows * cols), Vec::with_capacity(cols));
    for r in 0..rows {
        row.clear();
        for k in 0..cols {
            row.push(read(&input, r * cols + k)?);
        }
        f(&row, &mut out);
    }
    Ok(out)
}

/// A shape error (inputs that do not fit the reference).
pub(crate) fn shape(msg: impl Into<String>) -> RefError {
    RefError::Shape(msg.into())
}

/// Element `i` of a column read as f32 (blind4 and blind5 references).
pub(crate) fn f32_at(col: &Column, name: &str, i: usize) -> Result<f32, RefError> {
    col.get(i)
        .map(|v| v.as_f64() as f32)
        .ok_or_else(|| shape(format!("`{name}[{i}]` out of range (len {})", col.len())))
}

/// Element `i` of a column as an integer.
pub(crate) fn int_at(col: &Column, name: &str, i: usize) -> Result<i128, RefError> {
    col.get(i)
        .map(int)
        .ok_or_else(|| shape(format!("`{name}[{i}]` out of range (len {})", col.len())))
}

/// An index read from a buffer: >= 0 and below `len`.
pub(crate) fn index_at(col: &Column, name: &str, i: usize, len: usize) -> Result<usize, RefError> {
    let v = int_at(col, name, i)?;
    usize::try_from(v)
        .ok()
        .filter(|&j| j < len)
        .ok_or_else(|| shape(format!("`{name}[{i}]` = {v} outside 0..{len}")))
}

/// The integer in a value (floats truncate toward zero).
pub(crate) fn int(v: Value) -> i128 {
    match v {
        Value::Int(i) => i,
        Value::Float(f) => f as i128,
    }
}

pub(crate) fn f32v(v: Value) -> f32 {
    v.as_f64() as f32
}

pub(crate) fn u32v(v: Value) -> u32 {
    int(v) as u32
}

pub(crate) fn fl(x: f32) -> Option<Value> {
    Some(Value::Float(x as f64))
}

/// The expected values of one output buffer.
pub(crate) fn expected(buffer: &str, values: Vec<Option<Value>>) -> Expected {
    Expected { buffer: buffer.into(), values }
}

/// An integer expected value.
pub(crate) fn iv(x: i128) -> Option<Value> {
    Some(Value::Int(x))
}

pub(crate) fn ui(x: u32) -> Option<Value> {
    Some(Value::Int(x as i128))
}

/// A named reference and what it needs from the manifest.
pub struct Reference {
    pub name: &'static str,
    /// One line: what it computes.
    pub doc: &'static str,
    /// Buffers it reads.
    pub inputs: &'static [&'static str],
    /// Output buffers it predicts.
    pub outputs: &'static [&'static str],
    /// Output buffers that hold clock values: never compared.
    pub timing: &'static [&'static str],
    /// Scalar args (by `name`) it reads.
    pub scalars: &'static [&'static str],
    /// `[check.params]` keys it reads.
    pub params: &'static [&'static str],
    pub compute: fn(&RefCtx) -> Result<Vec<Expected>, RefError>,
}

/// Look a reference up by name.
pub fn find(name: &str) -> Option<&'static Reference> {
    references().iter().find(|r| r.name == name)
}

macro_rules! refs {
    ($( $name:literal : $doc:literal, in [$($i:literal),*], out [$($o:literal),*], timing [$($t:literal),*],
        scalars [$($s:literal),*], params [$($p:literal),*] => $f:expr ;)*) => {
        &[$(Reference {
            name: $name, doc: $doc, inputs: &[$($i),*], outputs: &[$($o),*], timing: &[$($t),*],
            scalars: &[$($s),*], params: &[$($p),*], compute: $f,
        }),*]
    };
}

/// Every named reference.
pub fn references() -> &'static [Reference] {
    static REFS: &[Reference] = refs! {
        "add": "c[i] = a[i] + b[i] in f32", in ["a", "b"], out ["c"], timing [], scalars [], params []
            => |c| map(c, &["a", "b"], "c", |v| fl(f32v(v[0]) + f32v(v[1])));
        "saxpy": "y[i] = fmaf(a, x[i], y[i]) (y in place)", in ["x", "y"], out ["y"], timing [], scalars ["a"], params []
            => |c| { let a = f32v(c.scalar("a")?); map(c, &["x", "y"], "y", |v| fl(a.mul_add(f32v(v[0]), f32v(v[1])))) };
        "copy": "out[i] = in[i]", in ["in"], out ["out"], timing [], scalars [], params []
            => |c| map(c, &["in"], "out", |v| Some(v[0]));
        "strided_copy": "out[i] = in[i*stride + offset]", in ["in"], out ["out"], timing [], scalars ["stride", "offset"], params []
            => strided_copy;
        "pointer_chase": "result = [index after warmup+iters steps from 0, cycles (timing)]",
            in ["chain"], out ["result"], timing [], scalars ["warmup", "iters"], params [] => pointer_chase;
        "smem_chain": "out[t] = (lane(t)*stride) mod 1024 (a chain j = s[j] over s[k] = k)",
            in [], out ["out"], timing ["cycles"], scalars ["stride"], params [] => smem_chain;
        "ffma_chain": "per thread: chains v_c = x + c iterated v = fmaf(v, a, b), summed in f32",
            in ["x"], out ["out"], timing ["cycles"], scalars ["a", "b", "iters"], params ["chains"] => |c| {
                let (a, b) = (f32v(c.scalar("a")?), f32v(c.scalar("b")?));
                chain(c, |x, k| f32v(x) + k as f32, |v| v.mul_add(a, b), |s, v| s + v, fl)
            };
        "imad_chain": "per thread: chains v_c = x + c iterated v = v*a + b (u32 wrapping), summed",
            in ["x"], out ["out"], timing ["cycles"], scalars ["a", "b", "iters"], params ["chains"] => |c| {
                let (a, b) = (u32v(c.scalar("a")?), u32v(c.scalar("b")?));
                chain(c, |x, k| u32v(x).wrapping_add(k as u32), |v| v.wrapping_mul(a).wrapping_add(b), u32::wrapping_add, ui)
            };
        "sfu_sin": "per thread: chains v_c = x + c/4 iterated v = sin(v), summed (f64)",
            in ["x"], out ["out"], timing ["cycles"], scalars ["iters"], params ["chains"]
            => |c| chain(c, sfu_start, f64::sin, |s, v| s + v, |v| Some(Value::Float(v)));
        "sfu_ex2": "per thread: chains v_c = x + c/4 iterated v = 2^(-v/2), summed (f64)",
            in ["x"], out ["out"], timing ["cycles"], scalars ["iters"], params ["chains"]
            => |c| chain(c, sfu_start, |v| (-0.5 * v).exp2(), |s, v| s + v, |v| Some(Value::Float(v)));
        "sfu_rsqrt": "per thread: chains v_c = x + c/4 iterated v = 1/sqrt(v), summed (f64)",
            in ["x"], out ["out"], timing ["cycles"], scalars ["iters"], params ["chains"]
            => |c| chain(c, sfu_start, |v| 1.0 / v.sqrt(), |s, v| s + v, |v| Some(Value::Float(v)));
        "matmul": "C = A B (n x n, row-major), f32 fmaf in k order from 0", in ["A", "B"], out ["C"], timing [],
            scalars ["n"], params [] => matmul;
        "block_sum": "out[b] = sum of in's b-th chunk of len(in)/len(out) (wrapping for ints, f64 for floats)",
            in ["in"], out ["out"], timing [], scalars [], params [] => block_sum;
        "transpose": "out (width x height) = transpose of in (height x width), row-major", in ["in"], out ["out"],
            timing [], scalars ["width", "height"], params [] => transpose;
        "histogram": "bins[in[i] mod len(bins)] += 1", in ["in"], out ["bins"], timing [], scalars [], params []
            => |c| bin_add(c, "bins", |_| 1, |_, v| int(v) as usize);
        "atomic_bins": "counters[i mod nbins] += in[i]", in ["in"], out ["counters"], timing [], scalars ["nbins"], params []
            => |c| { let nb = c.scalar_int("nbins")?.max(1) as usize; bin_add(c, "counters", int, |i, _| i % nb) };
        "atomic_lines": "counters[(i mod nlines) * w] += in[i], w counters per 128-byte line (32 of u32, 16 of u64)", in ["in"],
            out ["counters"], timing [], scalars ["nlines"], params []
            => |c| { let (nl, w) = membench::line_counters(c)?; bin_add(c, "counters", int, |i, _| (i % nl) * w) };
        "atomic_max_lines": "counters[(i mod nlines) * w] = max(itself, 3 in[i] - 2^40), w counters per 128-byte line", in ["in", "counters"],
            out ["counters"], timing [], scalars ["nlines"], params [] => membench::atomic_max_lines;
        "block_scan": "out = inclusive prefix sums of in restarted every `chunk` elements", in ["in"], out ["out"],
            timing [], scalars [], params ["chunk"] => block_scan;
        "spmv_csr": "y = A x for CSR (row_ptr, col_idx, vals), f64", in ["row_ptr", "col_idx", "vals", "x"], out ["y"],
            timing [], scalars [], params [] => spmv_csr;
        "stencil5": "out = c0*in + c1*(4 neighbours) inside, in on the border (f64)", in ["in"], out ["out"], timing [],
            scalars ["width", "height", "c0", "c1"], params [] => stencil5;
        "divergent": "out[i] = one of four integer loops chosen by in[i]&3 (mode 0) or (i>>5)&3 (mode 1)",
            in ["in"], out ["out"], timing [], scalars ["mode"], params [] => divergent;
        "device_call": "out[i] = mix applied `rounds` times to in[i] (the kernel's __noinline__ hash)", in ["in"], out ["out"],
            timing [], scalars ["rounds"], params [] => |c| {
                let rounds = c.scalar_int("rounds")?.max(0) as u32;
                map(c, &["in"], "out", |v| ui((0..rounds).fold(u32v(v[0]), mix)))
            };
        "reg_pressure": "out[i] = the 48-value register-pressure mix of in[i]", in ["in"], out ["out"], timing [], scalars [],
            params [] => |c| map(c, &["in"], "out", |v| ui(reg_pressure(u32v(v[0]))));
        "chunk_reverse": "out = in with every `words`-element chunk reversed", in ["in"], out ["out"], timing [],
            scalars ["words"], params [] => chunk_reverse;
        "tma_tiles": "out = the tile grid of in's 2D tensor map (ceil(dim/box) boxes per dim), box-padded row-major; OOB elements zero",
            in ["in"], out ["out"], timing [], scalars [], params [] => hopper::tma_tiles;
        "tma_swizzle": "out = in (tensor region); smem = each box's shared-memory image (tensor map's swizzle, 1024-B aligned), boxes row-major",
            in ["in"], out ["out", "smem"], timing [], scalars [], params [] => hopper::tma_swizzle;
        "tma_store_affine": "out = in*a + b (wrapping) where out's 2D tensor map is in bounds, out's initial value elsewhere; in is box-padded",
            in ["in", "out"], out ["out"], timing [], scalars ["a", "b"], params [] => hopper::tma_store_affine;
        "tma_latency": "result = [sum over warmup+iters steps of one element of box (step mod boxes), cycles (timing)]",
            in ["in"], out ["result"], timing [], scalars ["warmup", "iters"], params [] => hopper::tma_latency;
        "cluster_exchange": "1D clusters of C: pull = right neighbour's slice of in, push = left neighbour's, sums[cluster] = sum of its slices",
            in ["in"], out ["pull", "push", "sums"], timing [], scalars [], params [] => hopper::cluster_exchange;
        "cluster_replicate": "out[b*n + i] = in[(b / C)*n + i]: every CTA of cluster k holds the k-th slice of in",
            in ["in"], out ["out"], timing [], scalars [], params [] => hopper::cluster_replicate;
        "gemm_nt": "C (m x n) = A (m x k) times B (n x k) transposed, exact (small-integer inputs)",
            in ["A", "B"], out ["C"], timing [], scalars [], params ["m", "n", "k"] => hopper::gemm_nt;
        "gemm_nt_iters": "C = iters * A B^T (a chain of `iters` accumulating MMAs), exact",
            in ["A", "B"], out ["C"], timing ["cycles"], scalars ["iters"], params ["m", "n", "k"] => hopper::gemm_nt_iters;
        "mbarrier_phases": "out = [iters (phases waited), 1 (test_wait of the last completed parity), 0 (of the current one)]",
            in [], out ["out"], timing ["cycles"], scalars ["iters"], params [] => hopper::mbarrier_phases;
        "softmax_rows": "out = softmax of each `cols`-element row of in (`rows` rows), f64",
            in ["in"], out ["out"], timing [], scalars ["rows"], params ["cols"] => blind::softmax_rows;
        "layernorm_rows": "out = (x - mean) / sqrt(var + eps) * gamma + beta over each `cols`-element row of in, f64",
            in ["in", "gamma", "beta"], out ["out"], timing [], scalars ["eps"], params ["cols"] => blind::layernorm_rows;
        "conv2d_3x3": "out = 3x3 convolution of the width x height image in with weights w (zero padding), f32 fmaf in tap order",
            in ["in", "w"], out ["out"], timing [], scalars ["width", "height"], params [] => blind::conv2d_3x3;
        "sort_chunks": "out = in with every `chunk`-element chunk sorted ascending",
            in ["in"], out ["out"], timing [], scalars [], params ["chunk"] => blind::sort_chunks;
        "gemv_rows": "y = A x (rows x cols, row-major), f32: 32 lane-strided fmaf sums and a shfl.xor butterfly",
            in ["A", "x"], out ["y"], timing [], scalars ["rows", "cols"], params [] => blind::gemv_rows;
        "spmv_ell": "y = A x for ELLPACK (cols, vals: `width` entries per row, column-major), f32 fmaf in entry order",
            in ["cols", "vals", "x"], out ["y"], timing [], scalars ["rows"], params ["width"] => blind::spmv_ell;
        "nbody_tile": "acc = all-pairs accelerations sum_j m_j d / (|d|^2 + eps2)^1.5 of the n bodies (x, y, z, m) of pos, f64",
            in ["pos"], out ["acc"], timing [], scalars ["n", "eps2"], params [] => blind::nbody_tile;
        "kmeans_assign": "labels = index of the nearest of `k` centroids for each 2-D point, f32 fmaf(dy, dy, dx * dx), ties to the lowest",
            in ["points", "centroids"], out ["labels"], timing [], scalars ["n"], params ["k"] => blind::kmeans_assign;
        "chase_threads": "out[t] = the index reached from t * start_stride after `steps` steps j = next[j] (u32)",
            in ["next"], out ["out"], timing [], scalars ["steps", "start_stride"], params [] => blind3::chase_threads;
        "ffma_chains": "per thread: `chains` chains x + k (f32) stepped `iters` times by fmaf(v, a, b), summed from 0",
            in ["x"], out ["out"], timing [], scalars ["a", "b", "iters"], params ["chains"] => blind3::ffma_chains;
        "shfl_block_sums": "out[b] = block b's sum of its grid-stride elements of in[..n]: f32 thread sums, shfl_down trees per warp, then of the warp sums",
            in ["in"], out ["out"], timing [], scalars ["n"], params [] => blind3::shfl_block_sums;
        "spill_mix64": "out[i] = the 64-value, 10-round f32 mix of spill_launch_bounds applied to in[i]",
            in ["in"], out ["out"], timing [], scalars [], params [] => blind3::spill_mix64;
        "row_dots": "tmp = A x (nx x ny, row-major), f32 fmaf chain along each row from 0",
            in ["A", "x"], out ["tmp"], timing [], scalars ["nx", "ny"], params [] => blind3::row_dots;
        "syrk": "C = alpha A A^T + beta C (A n x m), f32: C * beta, then fmaf(A[i][k] * alpha, A[j][k], c) in k order",
            in ["A", "C"], out ["C"], timing [], scalars ["alpha", "beta", "n", "m"], params [] => blind3::syrk;
        "column_center": "mean = column sums of data (n x m, f32 from 0) / float_n; data -= mean per column",
            in ["data"], out ["data", "mean"], timing [], scalars ["float_n", "m", "n"], params [] => blind3::column_center;
        "hotspot_step": "out = one explicit hotspot step of temp with power (5-point, edges clamped), f64",
            in ["temp", "power"], out ["out"], timing [], scalars ["width", "height", "step_div_cap", "rx_1", "ry_1", "rz_1", "amb"], params []
            => blind3::hotspot_step;
        "pathfinder": "dst = src after `iteration` rows of the min-path DP over wall (least of 3 upper neighbours, clamped, + wall)",
            in ["wall", "src"], out ["dst"], timing [], scalars ["cols", "iteration"], params [] => blind3::pathfinder;
        "nw_scores": "score = the Needleman-Wunsch matrices ((n+1)^2 each) of the pairs of n-residue sequences, subst alphabet^2, linear gap penalty",
            in ["seq_a", "seq_b", "subst"], out ["score"], timing [], scalars ["penalty"], params ["n", "alphabet"] => blind3::nw_scores;
        "layer_forward": "out[j] = sigmoid (f64) of bias[j] + w[j] . in: 256 strided f32 fmaf sums and a shared-memory tree",
            in ["w", "bias", "in"], out ["out"], timing [], scalars ["n_in"], params [] => blind3::layer_forward;
        "bfs_level": "one BFS level over CSR: unvisited (level < 0) neighbours of level-cur nodes get cur + 1 and next = 1",
            in ["row_ptr", "col_idx", "level"], out ["level", "next"], timing [], scalars ["n", "cur"], params [] => blind3::bfs_level;
        "srad_coeffs": "dN, dS, dW, dE (neighbour differences, edges clamped) and the SRAD diffusion coefficient c in [0, 1] of J, f64",
            in ["J"], out ["dN", "dS", "dW", "dE", "c"], timing [], scalars ["rows", "cols", "q0sqr"], params [] => blind3::srad_coeffs;
        "col_dots": "s = A^T r (A nrows x ncols, row-major), f32 fmaf(r[i], A[i][j], acc) down each column from 0",
            in ["A", "r"], out ["s"], timing [], scalars ["nrows", "ncols"], params [] => blind4::col_dots;
        "window_gather": "out[i] = table[(i / per_window) * window + local[i]] for i < n",
            in ["local", "table", "out"], out ["out"], timing [], scalars ["n", "per_window", "window"], params [] => blind4::window_gather;
        "stencil7_3d": "out = c0*in + c1*(6 neighbours) inside the nx x ny x nz grid, in on its faces, f32",
            in ["in"], out ["out"], timing [], scalars ["nx", "ny", "nz", "c0", "c1"], params [] => blind4::stencil7_3d;
        "keyed_sum": "bins[keys[i]] += w[i] for i < n (f64 sums from bins' initial values)",
            in ["keys", "w", "bins"], out ["bins"], timing [], scalars ["n"], params [] => blind4::keyed_sum;
        "slot_max": "maxes[i % nslots] = max(maxes[i % nslots], vals[i]) for i < n (f32)",
            in ["vals", "maxes"], out ["maxes"], timing [], scalars ["n", "nslots"], params [] => blind4::slot_max;
        "aos_field_axpy": "p[4i+3] = fmaf(p[4i], dt, p[4i+3]) for i < n (struct {x, y, z, w}: w += x*dt), the rest unchanged",
            in ["p"], out ["p"], timing [], scalars ["n", "dt"], params [] => blind4::aos_field_axpy;
        "two_pass_sum": "partial[b] = block b's tree sum of its 2 x block inputs, out[0] = the partials' sum (f32, the kernels' order)",
            in ["in"], out ["partial", "out"], timing [], scalars ["n", "m"], params [] => multi::two_pass_sum;
        "jacobi_sweeps": "the launch's `repeat` Jacobi sweeps of a over nx x ny, a and b swapped after each: a the last, b the one before",
            in ["a", "b"], out ["a", "b"], timing [], scalars ["nx", "ny"], params [] => multi::jacobi_sweeps;
        "row_l2_normalize": "out = in * (1 / sqrt(row sum of squares)) per cols-element row (f32)",
            in ["in"], out ["out"], timing [], scalars ["rows", "cols"], params [] => blind4::row_l2_normalize;
        "affine_inplace": "a[i] = fmaf(a[i], c, d) for i < n (in place)",
            in ["a"], out ["a"], timing [], scalars ["n", "c", "d"], params [] => blind5::affine_inplace;
        "pair_val_add": "kv[2i+1] += kv[2i] & mask (u32) for i < n: one word of each {key, val} pair",
            in ["kv"], out ["kv"], timing [], scalars ["n", "mask"], params [] => blind5::pair_val_add;
        "quad_smooth": "part[g] = sum of in[4g..4g+4]; out[g] = part[g-1] + 2 part[g] + part[g+1] inside each tile (ends use their own), u32",
            in ["in", "part", "out"], out ["part", "out"], timing [], scalars ["ntiles"], params ["tile"] => blind5::quad_smooth;
        "softmax_shift_rows": "per row: e = (v - max) + 128, out = e * (1 / sum e), f32",
            in ["in"], out ["out"], timing [], scalars ["rows", "cols"], params [] => blind5::softmax_shift_rows;
        "col_sums": "sums[j] = u32 sum of column j of A (rows x cols, row-major)",
            in ["A", "sums"], out ["sums"], timing [], scalars ["rows", "cols"], params [] => blind5::col_sums;
        "keyed_max": "maxes[keys[i]] = max(maxes[keys[i]], vals[i]) for i < n (u32)",
            in ["keys", "vals", "maxes"], out ["maxes"], timing [], scalars ["n"], params [] => blind5::keyed_max;
        "bucket_fill": "counts[k] = min(cap, counts[k] + items of key k); claimed slots fill[k*cap + j] = k + 1",
            in ["keys", "counts", "fill"], out ["counts", "fill"], timing [], scalars ["n", "cap"], params [] => blind5::bucket_fill;
        "spmv_ellr": "y[r] = sum over k < row_len[r] of vals[k*rows + r] * x[cols[k*rows + r]] (ELLPACK-R, f32 fmaf chain)",
            in ["row_len", "cols", "vals", "x"], out ["y"], timing [], scalars ["rows"], params [] => blind5::spmv_ellr;
        "gemm_f64": "c = beta c + sum_k fma(alpha a[i][k], b[k][j], .) (ni x nk times nk x nj, row-major), f64",
            in ["a", "b", "c"], out ["c"], timing [], scalars ["ni", "nj", "nk", "alpha", "beta"], params [] => blind6::gemm_f64;
        "jacobi2d_f64": "B = 0.2 (5-point sum of A) inside the ny x nx grid, f64; conv[tile] = all |B - A| <= tol over each 32 x 32 tile",
            in ["A", "B", "conv"], out ["B", "conv"], timing [], scalars ["nx", "ny", "tol"], params [] => blind6::jacobi2d_f64;
        "col_stats_f64": "mean, stddev of each column of data (n x m f32): sum / float_n, sqrt(fma chain of squared deviations / float_n), 1 if <= eps",
            in ["data", "mean", "stddev"], out ["mean", "stddev"], timing [], scalars ["m", "n", "float_n", "eps"], params [] => blind6::col_stats_f64;
        "kmeans_const": "membership = nearest of kernel.cu's constant centres (feature-major points, f32), score = its distance times the centre's constant weight",
            in ["features", "membership", "score"], out ["membership", "score"], timing [], scalars ["npoints", "nclusters", "nfeatures"], params [] => blind6::kmeans_const;
        "opcode_interp": "out[i] = vals[i] after the nops opcodes ops[k*n + i] of the switch interpreter (u32)",
            in ["ops", "vals", "out"], out ["out"], timing [], scalars ["n", "nops"], params [] => blind6::opcode_interp;
        "histo_u64": "bins[k % nbins] += k + 2^32 (u64), maxes[k % nbins] = max(., 3k - 3e9) (s64) for each key k of keys[..n]",
            in ["keys", "bins", "maxes"], out ["bins", "maxes"], timing [], scalars ["n", "nbins"], params [] => blind6::histo_u64;
        "dot_f64": "result = [r0 + x.y, r1 + x.x, (r0 + x.y) / sqrt(r1 + x.x)] over n elements, f64",
            in ["x", "y", "result"], out ["result"], timing [], scalars ["n"], params [] => blind6::dot_f64;
        "bfs_level_sync": "one BFS level over CSR (unvisited neighbours of level-cur nodes get cur + 1); flags[0] = 1 if any did, flags[1] += frontier size",
            in ["row_ptr", "col_idx", "level", "flags"], out ["level", "flags"], timing [], scalars ["n", "cur"], params [] => blind6::bfs_level_sync;
        "nbody_f64": "vel += dt * all-pairs accelerations of pos (x, y, z, m; softening eps2), pos_out = pos + vel dt, f64",
            in ["pos", "vel", "pos_out"], out ["vel", "pos_out"], timing [], scalars ["n", "eps2", "dt"], params [] => blind6::nbody_f64;
        "blackscholes_f64": "call, put (f32) of options S, X, T (f32), rate by class from kernel.cu's constant table, computed in f64",
            in ["S", "X", "T", "cls", "call", "put"], out ["call", "put"], timing [], scalars ["n"], params [] => blind6::blackscholes_f64;
        "cell_cas64": "cells[cell of particle i] = (count + 1) << 32 | min(low word, i) for i < n (u64, cell from (int)(p * g))",
            in ["px", "py", "cells"], out ["cells"], timing [], scalars ["n", "gx", "gy"], params [] => blind6::cell_cas64;
        "gesummv": "tmp = A x, y = B x (fma chains along each row from their initial values), then y = fma(alpha, tmp, beta y), f32",
            in ["a", "b", "x", "y", "tmp"], out ["y", "tmp"], timing [], scalars ["n", "alpha", "beta"], params [] => blind8::gesummv;
        "fdtd_hz": "hz[i][j] = fma(ex[i][j+1] - ex[i][j] + ey[i+1][j] - ey[i][j], -0.7f, hz[i][j]) for i < nx-1, j < ny-1 (f32)",
            in ["ex", "ey", "hz"], out ["hz"], timing [], scalars ["nx", "ny"], params [] => blind8::fdtd_hz;
        "gauss_fan2": "a[i][j] -= m[i][t] a[t][j] (j >= t), b[i] -= m[i][t] b[t] for rows i > t of the size x size system, one rounding (f32)",
            in ["m", "a", "b"], out ["a", "b"], timing [], scalars ["size", "t"], params [] => blind8::gauss_fan2;
        "nn_euclid": "distances[r] = sqrtf((lat - lat_r)^2 + (lng - lng_r)^2) of the {lat, lng} records, f32 (fma, correctly rounded sqrt)",
            in ["locations", "distances"], out ["distances"], timing [], scalars ["numRecords", "lat", "lng"], params [] => blind8::nn_euclid;
        "bpnn_adjust": "dw = fma(0.3 delta[k], ly[j], 0.3 oldw[j][k]); w += dw; oldw = dw over the (in+1) x (hid+1) weights (rows 1..=in and the bias row), f32",
            in ["delta", "ly", "w", "oldw"], out ["w", "oldw"], timing [], scalars ["hid", "in"], params [] => blind8::bpnn_adjust;
        "spmv_jds": "dst[perm[i]] = f32 fma chain over sorted row i's jagged-diagonal entries data[jds_ptr[d] + i] x[index[..]]",
            in ["data", "index", "perm", "x", "jds_ptr", "dst"], out ["dst"], timing [], scalars ["dim", "ndiags"], params [] => blind8::spmv_jds;
        "md_lj": "force[i] = Lennard-Jones force over atom i's neighbour list (neighbour-major) within the cutoff, f32 as the SASS computes it",
            in ["position", "neighList", "force"], out ["force"], timing [], scalars ["neighCount", "inum", "cutsq", "lj1", "lj2"], params [] => blind8::md_lj;
        "sssp_push": "dist_out[u] = min(dist_out[u], dist_in[v] + weight[e]) over the edges e = (v, u) of frontier nodes v (s32)",
            in ["row_ptr", "col_idx", "weight", "frontier", "dist_in", "dist_out"], out ["dist_out"], timing [], scalars ["n"], params [] => blind8::sssp_push;
        "pagerank_push": "next[u] += rank[v] / outdeg(v) (u32) over the edges (v, u) of every node v < n",
            in ["row_ptr", "col_idx", "rank", "next"], out ["next"], timing [], scalars ["n"], params [] => blind8::pagerank_push;
        "byte_histogram": "hist[b] += the number of bytes b in the first 4 dataCount bytes of data (u32)",
            in ["data", "hist"], out ["hist"], timing [], scalars ["dataCount"], params [] => blind8::byte_histogram;
        "strided_store": "out[i*stride] = in[i] for i < n, truncated to out's dtype; the rest of out unchanged",
            in ["in", "out"], out ["out"], timing [], scalars ["n", "stride"], params [] => membench::strided_store;
        "walk_sum": "out[t] = u32 sum over k < len of a[(t % m)*s0 + (t / m)*s1 + k*ks], t < threads (row / column walks)",
            in ["a", "out"], out ["out"], timing [], scalars ["threads", "m", "s0", "s1", "len", "ks"], params [] => membench::walk_sum;
        "gather": "out[i] = in[idx[i]] for i < n",
            in ["idx", "in", "out"], out ["out"], timing [], scalars ["n"], params [] => membench::gather;
        "scatter": "out[perm[i]] = in[i] for i < n (perm must not repeat a target)",
            in ["perm", "in", "out"], out ["out"], timing [], scalars ["n"], params [] => membench::scatter;
        "atomic_ticket": "t = counters[i % nbins]++ for i < n, out[b + t*nbins] = b + 1: counters += counts, out[b + t*nbins] = b + 1 for each ticket (order-free)",
            in ["counters", "out"], out ["counters", "out"], timing [], scalars ["n", "nbins"], params [] => membench::atomic_ticket;
        "line_sweep": "out[t] = reps * u32 sum of buf[l*stride] over thread t's grid-stride lines l < lines (T = grid*block threads)",
            in ["buf", "out"], out ["out"], timing [], scalars ["lines", "reps", "stride"], params [] => membench::line_sweep;
        "switch_tree": "out[i] = i after iters cases (sel[i] + k) & 15 of kernel.cu's 12-case switch (u32)",
            in ["sel", "out"], out ["out"], timing [], scalars ["n", "iters"], params [] => |c| membench::switch_ops(c, false);
        "switch_table": "out[i] = i after iters cases sel[(k & 3) * n + i] of kernel.cu's 12-case switch (u32)",
            in ["sel", "out"], out ["out"], timing [], scalars ["n", "iters"], params [] => |c| membench::switch_ops(c, true);
        "stream_fill": "out[i] = i ^ 0x9E3779B9 (u32) for i < n; the rest of out unchanged",
            in ["out"], out ["out"], timing [], scalars ["n", "reps"], params [] => membench::stream_fill;
        "row_xor_max": "out = in ^ (max of the row) per cols-element row (u32)",
            in ["in"], out ["out"], timing [], scalars ["rows", "cols"], params [] => membench::row_xor_max;
        "dfma_chain": "per thread: chains v_c = x + c iterated v = fma(v, a, b) (f64), summed",
            in ["x"], out ["out"], timing ["cycles"], scalars ["a", "b", "iters"], params ["chains"] => micro::dfma_chain;
        "hfma2_chain": "per thread: one chain of f16x2 words v = x iterated v = fma.rn.f16x2(v, a, b)",
            in ["x"], out ["out"], timing ["cycles"], scalars ["a", "b", "iters"], params ["chains"] => micro::hfma2_chain;
        "ex2_chain": "per thread: chains v_c = x + c iterated v = 2^-v, summed (f64)",
            in ["x"], out ["out"], timing ["cycles"], scalars ["iters"], params ["chains"] => micro::ex2_chain;
        "cvt_chain": "per thread: chains v_c = x + c iterated v = f32(f16(v)) (nearest-even), summed",
            in ["x"], out ["out"], timing ["cycles"], scalars ["iters"], params ["chains"] => micro::cvt_chain;
        "shfl_chain": "out[t] = x of lane (lane + iters*a) mod 32 of t's warp (v = shfl.idx(v, lane + a) iterated)",
            in ["x"], out ["out"], timing ["cycles"], scalars ["a", "iters"], params [] => micro::shfl_chain;
        "smem_ways": "out[t] = 4 * ((lane / ways) + (lane % ways) * row_words): each lane's word holds its own address",
            in [], out ["out"], timing ["cycles"], scalars ["ways", "row_words"], params [] => micro::smem_ways;
        "smem_bw": "out[t] = XOR of lane's 16 loads of `width` bytes over s[k] = k * 2654435761, if iters is odd (else 0)",
            in [], out ["out"], timing ["cycles"], scalars ["iters"], params ["width"] => micro::smem_bw;
        "l1_bw": "out[t] = XOR of lane's 16 KiB words of in over 1 + iters passes",
            in ["in"], out ["out"], timing ["cycles"], scalars ["iters"], params [] => micro::l1_bw;
        "l2_bw": "out[t] = XOR of the thread's words of its block's `chunk` of in over 1 + iters passes",
            in ["in"], out ["out"], timing ["cycles"], scalars ["chunk", "iters"], params [] => micro::l2_bw;
    };
    REFS
}

// --- generic helpers -------------------------------------------------------------------------

/// Elementwise: `out[i] = f([in_0[i], in_1[i], ...])` over the output's length.
fn map(
    c: &RefCtx,
    ins: &[&str],
    out: &str,
    f: impl Fn(&[Value]) -> Option<Value>,
) -> Result<Vec<Expected>, RefError> {
    let n = c.spec(out)?.len as usize;
    let cols = ins
        .iter()
        .map(|i| c.column(i))
        .collect::<Result<Vec<_>, _>>()?;
    if let Some((name, col)) = ins.iter().zip(&cols).find(|(_, col)| col.len() < n) {
        return Err(RefError::Shape(format!(
            "input `{name}` has {} elements, output `{out}` {n}",
            col.len()
        )));
    }
    let mut row = Vec::with_capacity(ins.len());
    let values = (0..n)
        .map(|i| {
            row.clear();
            row.extend(cols.iter().filter_map(|col| col.get(i)));
            f(&row)
        })
        .collect();
    Ok(vec![Expected {
        buffer: out.into(),
        values,
    }])
}

/// Counting/atomic accumulation over buffer `in`: `out[bin(i, in[i])] += weight(in[i])`,
/// wrapping in the output's width (bins taken modulo the output's length).
fn bin_add(
    c: &RefCtx,
    out: &str,
    weight: impl Fn(Value) -> i128,
    bin: impl Fn(usize, Value) -> usize,
) -> Result<Vec<Expected>, RefError> {
    let spec = c.spec(out)?;
    let mut acc = vec![0i128; spec.len as usize];
    for (i, v) in c.values("in")?.into_iter().enumerate() {
        let b = bin(i, v) % acc.len();
        acc[b] += weight(v);
    }
    Ok(vec![Expected {
        buffer: out.into(),
        values: acc.into_iter().map(|v| wrap_int(spec.dtype, v)).collect(),
    }])
}

/// `v` wrapped to the width of `dtype`, as the device's integer arithmetic leaves it.
pub(crate) fn wrap_int(dtype: DType, v: i128) -> Option<Value> {
    Some(dtype.decode(dtype.encode_int(v)))
}

/// The chain microbenchmarks: per thread t, `chains` values `start(x[t], c)`, each stepped
/// `iters` times, then folded left to right with `add`.
pub(crate) fn chain<T: Copy>(
    c: &RefCtx,
    start: impl Fn(Value, usize) -> T,
    step: impl Fn(T) -> T,
    add: impl Fn(T, T) -> T,
    out: impl Fn(T) -> Option<Value>,
) -> Result<Vec<Expected>, RefError> {
    let (chains, iters) = (c.count_param("chains")?, c.scalar_int("iters")?.max(0));
    map(c, &["x"], "out", |v| {
        let vals: Vec<T> = (0..chains)
            .map(|k| (0..iters).fold(start(v[0], k), |acc, _| step(acc)))
            .collect();
        out(vals[1..].iter().fold(vals[0], |s, &x| add(s, x)))
    })
}

fn sfu_start(x: Value, k: usize) -> f64 {
    (f32v(x) + k as f32 * 0.25) as f64
}

// --- specific references ---------------------------------------------------------------------

fn strided_copy(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let (stride, offset) = (c.scalar_int("stride")?, c.scalar_int("offset")?);
    let input = c.column("in")?;
    let n = c.spec("out")?.len as i64;
    let values = (0..n)
        .map(|i| {
            let j = i * stride + offset;
            usize::try_from(j)
                .ok()
                .and_then(|j| input.get(j))
                .map(Some)
                .ok_or_else(|| RefError::Shape(format!("in[{j}] out of range")))
        })
        .collect::<Result<_, _>>()?;
    Ok(vec![Expected {
        buffer: "out".into(),
        values,
    }])
}

fn pointer_chase(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let steps = c.scalar_int("warmup")?.max(0) + c.scalar_int("iters")?.max(0);
    let mut j = 0u64;
    for _ in 0..steps {
        j = int(c.element("chain", j)?) as u64;
    }
    let mut values = vec![None; c.spec("result")?.len as usize];
    values[0] = Some(Value::Int(j as i128));
    Ok(vec![Expected {
        buffer: "result".into(),
        values,
    }])
}

fn smem_chain(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let stride = c.scalar_int("stride")?;
    let n = c.spec("out")?.len;
    let values = (0..n)
        .map(|t| ui((((t % 32) as i64 * stride) & 1023) as u32))
        .collect();
    Ok(vec![Expected {
        buffer: "out".into(),
        values,
    }])
}

fn matmul(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let n = c.scalar_int("n")?.max(0) as usize;
    let (a, b) = (c.values("A")?, c.values("B")?);
    if a.len() < n * n || b.len() < n * n || (c.spec("C")?.len as usize) < n * n {
        return Err(RefError::Shape(format!(
            "matmul n = {n} needs {} elements per matrix",
            n * n
        )));
    }
    let (a, b): (Vec<f32>, Vec<f32>) = (
        a.into_iter().map(f32v).collect(),
        b.into_iter().map(f32v).collect(),
    );
    let mut values = vec![None; c.spec("C")?.len as usize];
    for row in 0..n {
        for col in 0..n {
            values[row * n + col] =
                fl((0..n).fold(0.0f32, |acc, k| a[row * n + k].mul_add(b[k * n + col], acc)));
        }
    }
    Ok(vec![Expected {
        buffer: "C".into(),
        values,
    }])
}

fn block_sum(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let input = c.values("in")?;
    let out = c.spec("out")?;
    let chunk = input.len() / out.len as usize;
    let values = input
        .chunks(chunk.max(1))
        .take(out.len as usize)
        .map(|ch| {
            Some(if out.dtype.is_float() {
                Value::Float(ch.iter().map(|v| v.as_f64()).sum())
            } else {
                out.dtype
                    .decode(out.dtype.encode_int(ch.iter().map(|&v| int(v)).sum()))
            })
        })
        .collect();
    Ok(vec![Expected {
        buffer: "out".into(),
        values,
    }])
}

fn transpose(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let (w, h) = (
        c.scalar_int("width")?.max(0) as usize,
        c.scalar_int("height")?.max(0) as usize,
    );
    let input = c.values("in")?;
    if input.len() < w * h || (c.spec("out")?.len as usize) < w * h {
        return Err(RefError::Shape(format!(
            "transpose of {h} x {w} needs {} elements",
            w * h
        )));
    }
    let mut values = vec![None; c.spec("out")?.len as usize];
    for y in 0..h {
        for x in 0..w {
            values[x * h + y] = Some(input[y * w + x]);
        }
    }
    Ok(vec![Expected {
        buffer: "out".into(),
        values,
    }])
}

fn block_scan(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let chunk = c.count_param("chunk")?;
    let out = c.spec("out")?;
    let input = c.values("in")?;
    let mut values = Vec::with_capacity(input.len());
    for ch in input.chunks(chunk) {
        let mut acc = 0i128;
        for &v in ch {
            acc = int(out.dtype.decode(out.dtype.encode_int(acc + int(v))));
            values.push(Some(Value::Int(acc)));
        }
    }
    values.resize(out.len as usize, None);
    Ok(vec![Expected {
        buffer: "out".into(),
        values,
    }])
}

fn spmv_csr(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let (rp, ci, vals, x) = (
        c.values("row_ptr")?,
        c.values("col_idx")?,
        c.values("vals")?,
        c.values("x")?,
    );
    let rows = rp.len().saturating_sub(1).min(c.spec("y")?.len as usize);
    let mut values = Vec::with_capacity(rows);
    for r in 0..rows {
        let (lo, hi) = (int(rp[r]) as usize, int(rp[r + 1]) as usize);
        let mut sum = 0.0f64;
        for j in lo..hi {
            let col = ci
                .get(j)
                .map(|&v| int(v) as usize)
                .ok_or_else(|| RefError::Shape(format!("col_idx[{j}] out of range")))?;
            let xv = x
                .get(col)
                .ok_or_else(|| RefError::Shape(format!("x[{col}] out of range")))?;
            let v = vals
                .get(j)
                .ok_or_else(|| RefError::Shape(format!("vals[{j}] out of range")))?;
            sum += v.as_f64() * xv.as_f64();
        }
        values.push(Some(Value::Float(sum)));
    }
    values.resize(c.spec("y")?.len as usize, None);
    Ok(vec![Expected {
        buffer: "y".into(),
        values,
    }])
}

fn stencil5(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let (w, h) = (
        c.scalar_int("width")?.max(0) as usize,
        c.scalar_int("height")?.max(0) as usize,
    );
    let (c0, c1) = (f32v(c.scalar("c0")?) as f64, f32v(c.scalar("c1")?) as f64);
    let input: Vec<f64> = c.values("in")?.into_iter().map(Value::as_f64).collect();
    if input.len() < w * h {
        return Err(RefError::Shape(format!(
            "stencil of {h} x {w} needs {} elements",
            w * h
        )));
    }
    let mut values = vec![None; c.spec("out")?.len as usize];
    for y in 0..h {
        for x in 0..w {
            let i = y * w + x;
            let v = if x == 0 || y == 0 || x + 1 == w || y + 1 == h {
                input[i]
            } else {
                c0 * input[i] + c1 * (input[i - w] + input[i + w] + input[i - 1] + input[i + 1])
            };
            if let Some(slot) = values.get_mut(i) {
                *slot = Some(Value::Float(v));
            }
        }
    }
    Ok(vec![Expected {
        buffer: "out".into(),
        values,
    }])
}

fn divergent(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let mode = c.scalar_int("mode")?;
    let input = c.values("in")?;
    let n = c.spec("out")?.len as usize;
    let values = input
        .iter()
        .take(n)
        .enumerate()
        .map(|(i, &v)| {
            ui(divergent_path(
                u32v(v),
                if mode == 0 {
                    u32v(v) & 3
                } else {
                    (i as u32 >> 5) & 3
                },
            ))
        })
        .collect();
    Ok(vec![Expected {
        buffer: "out".into(),
        values,
    }])
}

/// The four paths of `suite/divergent/kernel.cu` (keep in step).
fn divergent_path(v: u32, path: u32) -> u32 {
    match path {
        0 => (0..8).fold(v, |r, _| {
            r.wrapping_mul(1_664_525).wrapping_add(1_013_904_223)
        }),
        1 => (0..16u32).fold(v ^ 0x9e37_79b9, |r, k| (r << 5) ^ (r >> 3) ^ k),
        2 => (0..32u32).fold(!v, |r, k| r.wrapping_add((r >> 1) ^ k)),
        _ => v.wrapping_mul(3),
    }
}

/// The `__noinline__` hash of `suite/device_call/kernel.cu` (keep in step).
fn mix(x: u32, k: u32) -> u32 {
    let mut x = (x ^ k).wrapping_mul(0x85eb_ca6b);
    x ^= x >> 13;
    x = x.wrapping_mul(0xc2b2_ae35);
    x ^ (x >> 16)
}

/// Live values and rounds of `suite/occupancy/kernel.cu`'s register-pressure body (keep in step).
const PRESSURE_VALUES: usize = 48;
const PRESSURE_ROUNDS: usize = 4;

fn reg_pressure(x: u32) -> u32 {
    let mut v: Vec<u32> = (0..PRESSURE_VALUES as u32)
        .map(|k| x.wrapping_mul(2 * k + 1).wrapping_add(k))
        .collect();
    for _ in 0..PRESSURE_ROUNDS {
        for k in 0..PRESSURE_VALUES {
            let t = v[(k + 1) % PRESSURE_VALUES] ^ (v[(k + 7) % PRESSURE_VALUES] >> 3);
            v[k] = v[k].wrapping_add(t);
        }
    }
    v.iter()
        .enumerate()
        .fold(0u32, |s, (k, &x)| s ^ x.wrapping_add(k as u32))
}

fn chunk_reverse(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let words = c.scalar_int("words")?.max(1) as usize;
    let input = c.values("in")?;
    let n = c.spec("out")?.len as usize;
    let mut values = vec![None; n];
    for (b, ch) in input.chunks(words).enumerate() {
        if ch.len() < words {
            break;
        }
        for (k, &v) in ch.iter().rev().enumerate() {
            if let Some(slot) = values.get_mut(b * words + k) {
                *slot = Some(v);
            }
        }
    }
    Ok(vec![Expected {
        buffer: "out".into(),
        values,
    }])
}
