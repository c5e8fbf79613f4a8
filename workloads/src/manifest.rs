//! The manifest schema: TOML in, a validated [`Manifest`] out, or a located [`ManifestError`].
//!
//! Parsing happens in two layers. Serde structs (`Raw*`, every one `deny_unknown_fields`, values
//! wrapped in `toml::Spanned`) take the TOML's shape; [`parse`] then checks meaning (names resolve,
//! ranges hold, inits fit their dtype, files exist, the `[[arg]]` list matches the PTX entry's
//! parameters, the check's reference exists and finds what it needs) and builds the typed
//! [`Manifest`]. A manifest's kernel launches are one sequence ([`Manifest::launches`]): the
//! `[[launch]]` tables in order, or, without any, the single launch the top-level `entry`,
//! `grid`, `block`, `cluster`, `dynamic_smem` and `[[arg]]`s describe; both are checked by the
//! same code. Nothing here panics on user input. The schema is documented in the crate's
//! README.md; keep the two in step.
//!
//! [`ManifestError`]: crate::ManifestError

use crate::dtype::{DType, Value};
use crate::error::{ErrorKind, LoadError, Locator};
use crate::init::{CsrPart, Init};
use crate::ptx::{self, PtxEntry};
use crate::reference;
use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt;
use toml::Spanned;

/// Most slots a `chase` init may have (the simulator's memory is sparse; keep chases sparse).
pub const MAX_CHASE_SLOTS: u64 = 1 << 24;

/// A validated manifest.
#[derive(Clone, Debug, PartialEq)]
pub struct Manifest {
    pub name: String,
    /// One line: what the workload measures (optional, shown by tools).
    pub description: Option<String>,
    /// PTX file, as written (relative to the manifest).
    pub ptx: String,
    /// The top-level `entry`: the kernel of a single-launch manifest, the default of `[[launch]]`.
    pub entry: String,
    /// As written: registers per thread as ptxas reported them for the GPU's build (bundled
    /// workloads: CUDA 13.0 for the H200, which the driver's `CU_FUNC_ATTRIBUTE_NUM_REGS` confirms).
    /// Absent: the compiler's count or the simulator's estimate ([`crate::RegsSource`]).
    pub regs_per_thread: Option<u32>,
    /// A register limit as `nvcc -maxrregcount N` / `ptxas --maxrregcount N` sets it: passed to
    /// ptxas and applied to the estimate. Absent: only the PTX's own `.maxnreg` and launch bounds.
    pub maxrregcount: Option<u32>,
    pub buffers: Vec<BufferSpec>,
    /// The launches, run in order over the shared buffers (at least one).
    pub launches: Vec<LaunchSpec>,
    pub check: Option<CheckSpec>,
    /// `[figure]`: how a microbenchmark's outputs become the figure a paper reports.
    pub figure: Option<FigureSpec>,
}

impl Manifest {
    /// Every launch's arguments, in sequence order (what references and figures look scalars
    /// and tensor maps up in: the first of a name wins).
    pub fn args(&self) -> impl Iterator<Item = &Arg> {
        self.launches.iter().flat_map(|l| &l.args)
    }

    /// The first launch: the only one of a single-launch manifest, whose shape the references of
    /// single-kernel workloads read.
    pub fn launch(&self) -> &LaunchSpec {
        &self.launches[0]
    }

    /// The kernel launches the sequence makes, in order, repetitions each their own: the
    /// launch's index in [`Manifest::launches`] and, per buffer name (manifest order), the
    /// buffer whose memory the name refers to then; and the same map after the last launch (what
    /// the check reads). Swaps apply after each repetition of their launch. Every runner (the
    /// simulator, the GPU) follows this one schedule.
    pub fn schedule(&self) -> (Vec<(usize, Vec<usize>)>, Vec<usize>) {
        let mut map: Vec<usize> = (0..self.buffers.len()).collect();
        let mut runs = Vec::new();
        for (i, l) in self.launches.iter().enumerate() {
            for _ in 0..l.repeat {
                runs.push((i, map.clone()));
                if let Some([a, b]) = l.swap {
                    map.swap(a, b);
                }
            }
        }
        (runs, map)
    }
}

/// Most repetitions of one `[[launch]]`.
pub const MAX_REPEAT: u32 = 100_000;

/// One kernel launch of the sequence (a `[[launch]]` table, or the top-level launch).
#[derive(Clone, Debug, PartialEq)]
pub struct LaunchSpec {
    /// A `.entry` of the manifest's PTX module.
    pub entry: String,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    /// As written; [`crate::Launch`] resolves the default from the PTX.
    pub cluster: Option<[u32; 3]>,
    pub dynamic_smem: u32,
    /// As written (or the top-level `regs_per_thread` for launches of the top-level entry).
    pub regs_per_thread: Option<u32>,
    /// One per kernel parameter, in PTX order.
    pub args: Vec<Arg>,
    /// Times the launch runs back to back (at least 1).
    pub repeat: u32,
    /// Two buffers (indices into `Manifest::buffers`) whose device memory the names exchange
    /// after each repetition: ping-pong.
    pub swap: Option<[usize; 2]>,
}

/// The unit a `[figure]` is reported in.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Deserialize)]
pub enum FigureUnit {
    /// Cycles per step of a dependent chain: timer cycles / work.
    #[serde(rename = "cycles")]
    Cycles,
    /// Bytes per clock per SM: work bytes (one block's) / timer cycles, one block per SM.
    #[serde(rename = "B/clk/SM")]
    BytesPerClockPerSm,
    /// Gigabytes per second: work bytes / (timer cycles / clock).
    #[serde(rename = "GB/s")]
    GigabytesPerSecond,
}

impl FigureUnit {
    /// As the papers write it (and the manifest spells it).
    pub fn as_str(self) -> &'static str {
        match self {
            FigureUnit::Cycles => "cycles",
            FigureUnit::BytesPerClockPerSm => "B/clk/SM",
            FigureUnit::GigabytesPerSecond => "GB/s",
        }
    }
}

/// The `[figure]` table: `unit`, the cycles it is computed from (`timer`: an element of an
/// output buffer holding a clock64 delta; absent: the kernel's cycles) and the work done in them,
/// `scale` × the scalar argument named `per` (steps, or bytes).
#[derive(Clone, Debug, PartialEq)]
pub struct FigureSpec {
    pub unit: FigureUnit,
    /// (buffer index, element index) of the timer, or `None` for the kernel's cycles.
    pub timer: Option<(usize, u64)>,
    /// The scalar argument counting the work.
    pub per: String,
    pub scale: f64,
}

impl FigureSpec {
    /// The work in the timed cycles: `scale` × the scalar `per` of `args`.
    pub fn work<'a>(&self, args: impl IntoIterator<Item = &'a Arg>) -> Option<f64> {
        args.into_iter().find_map(|a| match a {
            Arg::Scalar { name: Some(n), dtype, bits } if *n == self.per => Some(dtype.decode(*bits).as_f64() * self.scale),
            _ => None,
        })
    }
}

/// One device allocation.
#[derive(Clone, Debug, PartialEq)]
pub struct BufferSpec {
    pub name: String,
    pub dtype: DType,
    /// Elements (not bytes).
    pub len: u64,
    pub init: Init,
    /// Read back after the kernel and compared by the check.
    pub output: bool,
}

impl BufferSpec {
    /// Size in bytes.
    pub fn bytes(&self) -> u64 {
        self.len * self.dtype.size() as u64
    }
}

/// One kernel parameter, in PTX order.
#[derive(Clone, Debug, PartialEq)]
pub enum Arg {
    /// The device address of `manifest.buffers[index]`.
    Buffer { index: usize },
    /// An immediate value: `bits` are its little-endian bits in `dtype`. `name` lets references
    /// refer to it.
    Scalar {
        dtype: DType,
        bits: u64,
        name: Option<String>,
    },
    /// A `CUtensorMap` passed by value (128 bytes, `.param .align 64 .b8 p[128]`).
    TensorMap(TensorMap),
}

/// Tensor-map swizzle mode (CU_TENSOR_MAP_SWIZZLE_*).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Deserialize)]
pub enum Swizzle {
    #[serde(rename = "none")]
    None,
    #[serde(rename = "32B")]
    B32,
    #[serde(rename = "64B")]
    B64,
    #[serde(rename = "128B")]
    B128,
}

/// Tensor-map interleave (CU_TENSOR_MAP_INTERLEAVE_*).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Deserialize)]
pub enum Interleave {
    #[serde(rename = "none")]
    None,
    #[serde(rename = "16B")]
    B16,
    #[serde(rename = "32B")]
    B32,
}

/// Out-of-bounds fill (CU_TENSOR_MAP_FLOAT_OOB_FILL_*): zeros, or NaN (NAN_REQUEST_ZERO_FMA).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OobFill {
    Zero,
    Nan,
}

/// L2 promotion (CU_TENSOR_MAP_L2_PROMOTION_*).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Deserialize)]
pub enum L2Promotion {
    #[serde(rename = "none")]
    None,
    #[serde(rename = "64B")]
    B64,
    #[serde(rename = "128B")]
    B128,
    #[serde(rename = "256B")]
    B256,
}

/// A tensor map over one buffer, with the fields of `cuTensorMapEncodeTiled`.
#[derive(Clone, Debug, PartialEq)]
pub struct TensorMap {
    pub buffer: usize,
    pub dtype: DType,
    /// Elements per dimension, innermost first (rank 1..=5).
    pub dims: Vec<u64>,
    /// Byte strides of dimensions 1.. (rank - 1 of them; multiples of 16).
    pub strides: Vec<u64>,
    /// Box (tile) size per dimension, each 1..=256.
    pub box_dims: Vec<u32>,
    /// Element strides per dimension, each 1..=8.
    pub elem_strides: Vec<u32>,
    pub swizzle: Swizzle,
    pub interleave: Interleave,
    pub oob_fill: OobFill,
    pub l2_promotion: L2Promotion,
}

/// How outputs are compared with the reference.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Compare {
    /// Raw bits equal (NaNs included).
    Bitwise,
    /// Pass when `|got - expected| <= tol * max(1, |expected|)`: relative error, with an absolute
    /// floor of `tol` for expected values below 1 in magnitude. NaN matches NaN.
    Tolerance(f64),
}

/// The `[check]` table.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckSpec {
    /// Name of a reference in [`crate::references`].
    pub reference: String,
    pub compare: Compare,
    /// `[check.params]`: integer parameters the reference needs (chain length, chunk size, ...).
    pub params: BTreeMap<String, i64>,
}

// ---------------------------------------------------------------------------------------------
// Raw (serde) layer

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawManifest {
    name: Spanned<String>,
    description: Option<String>,
    ptx: Spanned<String>,
    entry: Spanned<String>,
    grid: Option<Spanned<Vec<Spanned<u32>>>>,
    block: Option<Spanned<Vec<Spanned<u32>>>>,
    cluster: Option<Spanned<Vec<Spanned<u32>>>>,
    dynamic_smem: Option<Spanned<u32>>,
    regs_per_thread: Option<Spanned<u32>>,
    maxrregcount: Option<Spanned<u32>>,
    #[serde(default, rename = "buffer")]
    buffers: Vec<RawBuffer>,
    #[serde(default, rename = "arg")]
    args: Vec<Spanned<RawArg>>,
    #[serde(default, rename = "launch")]
    launches: Vec<Spanned<RawLaunch>>,
    check: Option<Spanned<RawCheck>>,
    figure: Option<Spanned<RawFigure>>,
}

/// A `[[launch]]` table; the top-level launch keys of a manifest without any become one too.
#[derive(Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLaunch {
    entry: Option<Spanned<String>>,
    grid: Spanned<Vec<Spanned<u32>>>,
    block: Spanned<Vec<Spanned<u32>>>,
    cluster: Option<Spanned<Vec<Spanned<u32>>>>,
    dynamic_smem: Option<Spanned<u32>>,
    regs_per_thread: Option<Spanned<u32>>,
    #[serde(default, rename = "arg")]
    args: Vec<Spanned<RawArg>>,
    repeat: Option<Spanned<u32>>,
    swap: Option<Spanned<Vec<Spanned<String>>>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFigure {
    unit: FigureUnit,
    timer: Option<Spanned<RawTimer>>,
    per: Spanned<String>,
    scale: Option<Spanned<f64>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTimer {
    buffer: Spanned<String>,
    index: u64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBuffer {
    name: Spanned<String>,
    dtype: Spanned<DType>,
    len: Spanned<u64>,
    init: Option<Spanned<RawInit>>,
    #[serde(default)]
    output: bool,
}

#[derive(Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawArg {
    buffer: Option<Spanned<String>>,
    scalar: Option<Spanned<RawScalar>>,
    tensor_map: Option<Spanned<RawTensorMap>>,
}

#[derive(Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawScalar {
    dtype: Spanned<DType>,
    value: Spanned<Num>,
    name: Option<String>,
}

#[derive(Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTensorMap {
    buffer: Spanned<String>,
    dtype: Spanned<DType>,
    dims: Spanned<Vec<u64>>,
    strides: Spanned<Vec<u64>>,
    #[serde(rename = "box")]
    box_dims: Spanned<Vec<u32>>,
    elem_strides: Option<Spanned<Vec<u32>>>,
    swizzle: Option<Swizzle>,
    interleave: Option<Interleave>,
    oob_fill: Option<OobFill>,
    l2_promotion: Option<L2Promotion>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCheck {
    reference: Spanned<String>,
    tolerance: Option<Spanned<f64>>,
    bitwise: Option<Spanned<bool>>,
    #[serde(default)]
    params: BTreeMap<String, i64>,
}

/// `init`: the string `"zeros"` or a table with exactly one generator key.
enum RawInit {
    Zeros,
    Table(Box<RawInitTable>),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawInitTable {
    #[serde(rename = "const")]
    konst: Option<Spanned<Num>>,
    iota: Option<Spanned<RawIota>>,
    uniform: Option<Spanned<Vec<Spanned<Num>>>>,
    randint: Option<Spanned<Vec<Spanned<Num>>>>,
    chase: Option<Spanned<RawChase>>,
    csr: Option<Spanned<RawCsr>>,
    file: Option<Spanned<String>>,
    seed: Option<Spanned<u64>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawIota {
    start: Spanned<Num>,
    step: Spanned<Num>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawChase {
    footprint: Spanned<u64>,
    stride: Spanned<u64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCsr {
    rows: Spanned<u64>,
    cols: Spanned<u64>,
    nnz: Spanned<u64>,
    part: CsrPart,
}

impl<'de> Deserialize<'de> for RawInit {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = RawInit;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str(
                    "\"zeros\" or a table with one of const, iota, uniform, randint, chase, csr, file",
                )
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<RawInit, E> {
                if s == "zeros" {
                    Ok(RawInit::Zeros)
                } else {
                    Err(E::invalid_value(de::Unexpected::Str(s), &self))
                }
            }
            fn visit_map<A: MapAccess<'de>>(self, m: A) -> Result<RawInit, A::Error> {
                RawInitTable::deserialize(de::value::MapAccessDeserializer::new(m))
                    .map(|t| RawInit::Table(Box::new(t)))
            }
        }
        d.deserialize_any(V)
    }
}

/// A TOML number as written: integer or float.
#[derive(Copy, Clone, Debug, PartialEq)]
enum Num {
    Int(i64),
    Float(f64),
}

impl<'de> Deserialize<'de> for Num {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Num;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a number")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Num, E> {
                Ok(Num::Int(v))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Num, E> {
                i64::try_from(v)
                    .map(Num::Int)
                    .map_err(|_| E::custom("integer out of range"))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Num, E> {
                Ok(Num::Float(v))
            }
        }
        d.deserialize_any(V)
    }
}

// ---------------------------------------------------------------------------------------------
// Semantic layer

/// All buffers of a manifest together: the simulator holds them in host memory (generated
/// inputs, device pages once written, the read-back copies), so 16 GiB, 32× the largest bundled
/// buffer (`chase_dram`'s 512 MiB) and what a workstation can hold two or three times over.
pub const MAX_BUFFER_BYTES: u64 = 16 << 30;
/// Dynamic shared memory of one block: the most any GPU allows (227 KiB on Hopper).
pub const MAX_DYNAMIC_SMEM: u32 = 227 * 1024;

/// What [`parse`] produces besides the manifest: the PTX text and what was read of each
/// launch's entry (in [`Manifest::launches`] order).
pub(crate) struct Parsed {
    pub manifest: Manifest,
    pub ptx: String,
    pub entries: Vec<PtxEntry>,
}

/// Checks PTX text (named as the second argument in messages) with a real PTX front end; `Err`
/// is its located error. This crate reads PTX only lightly ([`ptx`]), so callers that have a
/// front end pass it to [`parse`], and its error wins over the light read's.
pub type PtxCheck<'a> = &'a dyn Fn(&str, &str) -> Result<(), String>;

/// The launch keys a manifest with `[[launch]]` tables must not also have at the top level.
const TOP_LAUNCH_KEYS: &str = "`grid`, `block`, `cluster`, `dynamic_smem` and [[arg]] go in each [[launch]] of a launch sequence, not at the top level";

/// Parse and validate manifest source `src`. `read` fetches a file named relative to the
/// manifest (the PTX, `init = { file }`); `check` is asked about the PTX when the light read
/// finds no entry or parameters that disagree with the `[[arg]]`s.
pub(crate) fn parse(
    loc: &Locator<'_>,
    read: &dyn Fn(&str) -> std::io::Result<Vec<u8>>,
    check: PtxCheck<'_>,
) -> Result<Parsed, LoadError> {
    let raw: RawManifest = toml::from_str(loc.src).map_err(|e| loc.toml_error(&e))?;
    let v = Validator { loc, read };

    // The sequence: the [[launch]] tables, or the top-level keys as one launch.
    let top_launch;
    let sequence: Vec<(&RawLaunch, std::ops::Range<usize>)> = if raw.launches.is_empty() {
        let missing = |key: &str| {
            loc.at(ErrorKind::Type, &raw.entry, format!("missing `{key}`: a manifest launches `{}` with top-level `grid` and `block`, or has [[launch]] tables", raw.entry.get_ref()))
        };
        top_launch = RawLaunch {
            entry: Some(raw.entry.clone()),
            grid: raw.grid.clone().ok_or_else(|| missing("grid"))?,
            block: raw.block.clone().ok_or_else(|| missing("block"))?,
            cluster: raw.cluster.clone(),
            dynamic_smem: raw.dynamic_smem.clone(),
            regs_per_thread: None,
            args: raw.args.clone(),
            repeat: None,
            swap: None,
        };
        vec![(&top_launch, raw.entry.span())]
    } else {
        let stray = [raw.grid.as_ref().map(Spanned::span), raw.block.as_ref().map(Spanned::span), raw.cluster.as_ref().map(Spanned::span), raw.dynamic_smem.as_ref().map(Spanned::span), raw.args.first().map(Spanned::span)];
        if let Some(span) = stray.into_iter().flatten().next() {
            return Err(loc.error(ErrorKind::Value, span, TOP_LAUNCH_KEYS));
        }
        raw.launches.iter().map(|l| (l.get_ref(), l.span())).collect()
    };
    // Launch shapes first: they need nothing else.
    let mut shapes = Vec::with_capacity(sequence.len());
    for (l, _) in &sequence {
        shapes.push(v.shape(l)?);
    }

    let ptx_bytes = read(raw.ptx.get_ref()).map_err(|e| {
        loc.at(
            ErrorKind::File,
            &raw.ptx,
            format!("cannot read PTX `{}`: {e}", raw.ptx.get_ref()),
        )
    })?;
    let ptx = String::from_utf8(ptx_bytes).map_err(|e| {
        let why = crate::error::not_utf8(e.as_bytes(), &e.utf8_error());
        loc.at(ErrorKind::File, &raw.ptx, format!("PTX `{}` is {why}", raw.ptx.get_ref()))
    })?;
    // A disagreement with the PTX may be the PTX's own fault: then its error is the one to see.
    let ptx_name = loc.file.parent().unwrap_or(std::path::Path::new("")).join(raw.ptx.get_ref());
    let ptx_error = |e: LoadError| match check(&ptx, &ptx_name.display().to_string()) {
        Err(message) => LoadError::Ptx { manifest: loc.file.clone(), message },
        Ok(()) => e,
    };
    let find_entry = |name: &str, span: std::ops::Range<usize>| {
        ptx::find_entry(&ptx, name).ok_or_else(|| {
            let known = ptx::entry_names(&ptx);
            ptx_error(loc.error(
                ErrorKind::Ptx,
                span,
                format!("no `.entry {name}(` in `{}` (entries: {})", raw.ptx.get_ref(), if known.is_empty() { "none".into() } else { known.join(", ") }),
            ))
        })
    };
    // The top-level entry is the default of every launch: it must exist.
    find_entry(raw.entry.get_ref(), raw.entry.span())?;

    for (key, value) in [("regs_per_thread", &raw.regs_per_thread), ("maxrregcount", &raw.maxrregcount)]
        .into_iter()
        .chain(sequence.iter().map(|(l, _)| ("regs_per_thread", &l.regs_per_thread)))
    {
        if let Some(r) = value.as_ref().filter(|r| !(1..=255).contains(r.get_ref())) {
            return Err(loc.at(
                ErrorKind::Value,
                r,
                format!("`{key}` must be between 1 and 255 (the most a thread can address), got {}", r.get_ref()),
            ));
        }
    }

    let mut buffers: Vec<BufferSpec> = Vec::new();
    let mut total = 0u64;
    for b in &raw.buffers {
        if buffers.iter().any(|x| x.name == *b.name.get_ref()) {
            return Err(loc.at(
                ErrorKind::Value,
                &b.name,
                format!("buffer `{}` declared twice", b.name.get_ref()),
            ));
        }
        let spec = v.buffer(b)?;
        total += spec.bytes();
        if total > MAX_BUFFER_BYTES {
            return Err(loc.at(
                ErrorKind::Value,
                &b.len,
                format!("the buffers take {total} bytes with `{}`; together they may take at most {MAX_BUFFER_BYTES} (16 GiB)", spec.name),
            ));
        }
        buffers.push(spec);
    }
    let find_buffer = |name: &Spanned<String>| {
        buffers
            .iter()
            .position(|b| b.name == *name.get_ref())
            .ok_or_else(|| {
                let known: Vec<&str> = buffers.iter().map(|b| b.name.as_str()).collect();
                loc.at(
                    ErrorKind::UnknownBuffer,
                    name,
                    format!(
                        "no buffer named `{}` (declared: {})",
                        name.get_ref(),
                        known.join(", ")
                    ),
                )
            })
    };

    let mut launches = Vec::with_capacity(sequence.len());
    let mut entries = Vec::with_capacity(sequence.len());
    for ((l, span), (grid, block, cluster)) in sequence.iter().zip(shapes) {
        let (entry_name, entry_span) = match &l.entry {
            Some(e) => (e.get_ref().clone(), e.span()),
            None => (raw.entry.get_ref().clone(), span.clone()),
        };
        let entry = find_entry(&entry_name, entry_span.clone())?;
        let mut args = Vec::new();
        for a in &l.args {
            let arg = match (
                &a.get_ref().buffer,
                &a.get_ref().scalar,
                &a.get_ref().tensor_map,
            ) {
                (Some(b), None, None) => Arg::Buffer {
                    index: find_buffer(b)?,
                },
                (None, Some(s), None) => v.scalar(s)?,
                (None, None, Some(t)) => {
                    Arg::TensorMap(v.tensor_map(t, find_buffer(&t.get_ref().buffer)?, &buffers)?)
                }
                _ => {
                    return Err(loc.at(
                        ErrorKind::Type,
                        a,
                        "an [[arg]] needs exactly one of `buffer`, `scalar`, `tensor_map`",
                    ))
                }
            };
            args.push(arg);
        }
        check_args_against_ptx(loc, (&entry_name, entry_span), &l.args, &args, &entry).map_err(ptx_error)?;
        let repeat = match &l.repeat {
            Some(r) if !(1..=MAX_REPEAT).contains(r.get_ref()) => {
                return Err(loc.at(ErrorKind::Value, r, format!("`repeat` must be between 1 and {MAX_REPEAT}, got {}", r.get_ref())))
            }
            Some(r) => *r.get_ref(),
            None => 1,
        };
        let swap = l.swap.as_ref().map(|s| v.swap(s, &buffers, &find_buffer)).transpose()?;
        let regs_per_thread = l
            .regs_per_thread
            .as_ref()
            .map(|r| *r.get_ref())
            .or_else(|| raw.regs_per_thread.as_ref().filter(|_| entry_name == *raw.entry.get_ref()).map(|r| *r.get_ref()));
        launches.push(LaunchSpec {
            entry: entry_name,
            grid,
            block,
            cluster,
            dynamic_smem: l.dynamic_smem.as_ref().map_or(0, |d| *d.get_ref()),
            regs_per_thread,
            args,
            repeat,
            swap,
        });
        entries.push(entry);
    }
    let all_args: Vec<Arg> = launches.iter().flat_map(|l| l.args.iter().cloned()).collect();

    let check = raw
        .check
        .as_ref()
        .map(|c| v.check(c, &buffers, &all_args))
        .transpose()?;
    let figure = raw.figure.as_ref().map(|f| v.figure(f, &buffers, &all_args)).transpose()?;
    let manifest = Manifest {
        name: raw.name.into_inner(),
        description: raw.description,
        ptx: raw.ptx.into_inner(),
        entry: raw.entry.into_inner(),
        regs_per_thread: raw.regs_per_thread.map(|r| r.into_inner()),
        maxrregcount: raw.maxrregcount.map(|r| r.into_inner()),
        buffers,
        launches,
        check,
        figure,
    };
    Ok(Parsed {
        manifest,
        ptx,
        entries,
    })
}

/// The `[[arg]]`s of a launch of `entry` (its name, and the span errors about it point at)
/// against the entry's parameters.
fn check_args_against_ptx(
    loc: &Locator<'_>,
    (name, entry_span): (&str, std::ops::Range<usize>),
    raw_args: &[Spanned<RawArg>],
    args: &[Arg],
    entry: &PtxEntry,
) -> Result<(), LoadError> {
    if args.len() != entry.params.len() {
        let msg = format!(
            "{} [[arg]] given, but `.entry {name}` has {} parameters",
            args.len(),
            entry.params.len()
        );
        return Err(match raw_args.get(entry.params.len()) {
            Some(extra) => loc.error(ErrorKind::Ptx, arg_span(extra.get_ref()), msg),
            None => loc.error(ErrorKind::Ptx, entry_span, msg),
        });
    }
    for ((arg, raw_arg), p) in args.iter().zip(raw_args).zip(&entry.params) {
        let span = arg_span(raw_arg.get_ref());
        let ok = match arg {
            Arg::Buffer { .. } => p.array.is_none() && p.bytes() == Some(8) && !p.is_float(),
            Arg::Scalar { dtype, .. } => {
                p.array.is_none()
                    && p.bytes() == Some(dtype.size() as u64)
                    && (p.ty.starts_with('b') || p.is_float() == dtype.is_float())
            }
            Arg::TensorMap(_) => p.array.is_some() && p.bytes() == Some(128),
        };
        if !ok {
            let what = match arg {
                Arg::Buffer { .. } => "a buffer (64-bit address)".to_string(),
                Arg::Scalar { dtype, .. } => format!("a {dtype} scalar"),
                Arg::TensorMap(_) => "a tensor map (128-byte .b8 array)".to_string(),
            };
            let arr = p.array.map(|n| format!("[{n}]")).unwrap_or_default();
            return Err(loc.error(
                ErrorKind::Ptx,
                span,
                format!(
                    "{what} does not match PTX parameter `.{} {}{arr}`",
                    p.ty, p.name
                ),
            ));
        }
    }
    Ok(())
}

/// The span of an arg's value (`buffer = ...`, `scalar = ...` or `tensor_map = ...`).
fn arg_span(a: &RawArg) -> std::ops::Range<usize> {
    a.buffer
        .as_ref()
        .map(Spanned::span)
        .or_else(|| a.scalar.as_ref().map(Spanned::span))
        .or_else(|| a.tensor_map.as_ref().map(Spanned::span))
        .unwrap_or_default()
}

/// A launch's grid, block and cluster as written.
type Shape = ([u32; 3], [u32; 3], Option<[u32; 3]>);

struct Validator<'a, 'b> {
    loc: &'a Locator<'b>,
    read: &'a dyn Fn(&str) -> std::io::Result<Vec<u8>>,
}

impl Validator<'_, '_> {
    /// A 1-to-3-dimensional shape, each extent at least 1 and at most `max`, their product at
    /// most `product`.
    fn dims(&self, d: &Spanned<Vec<Spanned<u32>>>, what: &str, max: [u32; 3], product: u64) -> Result<[u32; 3], LoadError> {
        let v = d.get_ref();
        if v.is_empty() || v.len() > 3 {
            return Err(self.loc.at(
                ErrorKind::Value,
                d,
                format!("expected 1 to 3 dimensions, got {}", v.len()),
            ));
        }
        let mut out = [1u32; 3];
        for (i, x) in v.iter().enumerate() {
            if *x.get_ref() == 0 {
                return Err(self
                    .loc
                    .at(ErrorKind::Value, x, "dimension must be at least 1"));
            }
            if *x.get_ref() > max[i] {
                return Err(self.loc.at(
                    ErrorKind::Value,
                    x,
                    format!("{what} {} extent {} exceeds {}, the most a launch allows", ["x", "y", "z"][i], x.get_ref(), max[i]),
                ));
            }
            out[i] = *x.get_ref();
        }
        let n: u64 = out.iter().map(|&x| x as u64).product();
        if n > product {
            return Err(self.loc.at(ErrorKind::Value, d, format!("{what} {out:?} has {n} {}; a launch allows {product}", if what == "block" { "threads" } else { "CTAs" })));
        }
        Ok(out)
    }

    /// A launch's grid, block and cluster: CUDA's launch limits, the same on every GPU since
    /// compute capability 3.0 (a preset's own, such as its threads per SM, are the simulator's
    /// to check); dynamic shared memory within the most any GPU gives.
    fn shape(&self, l: &RawLaunch) -> Result<Shape, LoadError> {
        let loc = self.loc;
        let grid = self.dims(&l.grid, "grid", [i32::MAX as u32, 65535, 65535], u64::MAX)?;
        let block = self.dims(&l.block, "block", [1024, 1024, 64], 1024)?;
        let cluster = l.cluster.as_ref().map(|c| self.dims(c, "cluster", [16; 3], 16)).transpose()?;
        if let Some(d) = l.dynamic_smem.as_ref().filter(|d| *d.get_ref() > MAX_DYNAMIC_SMEM) {
            return Err(loc.at(
                ErrorKind::Value,
                d,
                format!("{} bytes of dynamic shared memory; no GPU gives a block more than {MAX_DYNAMIC_SMEM} (227 KiB)", d.get_ref()),
            ));
        }
        if let (Some(c), Some(raw_c)) = (cluster, &l.cluster) {
            if (0..3).any(|i| grid[i] % c[i] != 0) {
                return Err(loc.at(
                    ErrorKind::Value,
                    raw_c,
                    format!("cluster {c:?} does not divide grid {grid:?}"),
                ));
            }
        }
        Ok((grid, block, cluster))
    }

    /// `swap = ["a", "b"]`: two different buffers of one dtype and length.
    fn swap(
        &self,
        s: &Spanned<Vec<Spanned<String>>>,
        buffers: &[BufferSpec],
        find_buffer: &dyn Fn(&Spanned<String>) -> Result<usize, LoadError>,
    ) -> Result<[usize; 2], LoadError> {
        let [a, b] = s.get_ref().as_slice() else {
            return Err(self.loc.at(ErrorKind::Value, s, format!("`swap` names two buffers, got {}", s.get_ref().len())));
        };
        let (i, j) = (find_buffer(a)?, find_buffer(b)?);
        if i == j {
            return Err(self.loc.at(ErrorKind::Value, b, format!("`swap` names `{}` twice; it exchanges two different buffers", a.get_ref())));
        }
        let (x, y) = (&buffers[i], &buffers[j]);
        if (x.dtype, x.len) != (y.dtype, y.len) {
            return Err(self.loc.at(
                ErrorKind::Value,
                s,
                format!("`swap` exchanges buffers of one dtype and length: `{}` is {} × {}, `{}` is {} × {}", x.name, x.len, x.dtype, y.name, y.len, y.dtype),
            ));
        }
        Ok([i, j])
    }

    fn buffer(&self, b: &RawBuffer) -> Result<BufferSpec, LoadError> {
        let dtype = *b.dtype.get_ref();
        let len = *b.len.get_ref();
        if len == 0 {
            return Err(self.loc.at(
                ErrorKind::Value,
                &b.len,
                "buffer length must be at least 1 element",
            ));
        }
        if len
            .checked_mul(dtype.size() as u64)
            .is_none_or(|bytes| bytes > MAX_BUFFER_BYTES)
        {
            return Err(self.loc.at(
                ErrorKind::Value,
                &b.len,
                format!("{len} × {dtype} is more than the {MAX_BUFFER_BYTES} bytes (16 GiB) a manifest's buffers may take together"),
            ));
        }
        let init = match &b.init {
            None => Init::Zeros,
            Some(i) => match i.get_ref() {
                RawInit::Zeros => Init::Zeros,
                RawInit::Table(t) => self.init(i, t, dtype, len)?,
            },
        };
        Ok(BufferSpec {
            name: b.name.get_ref().clone(),
            dtype,
            len,
            init,
            output: b.output,
        })
    }

    /// A number as a value of `dtype`: integers must be written as integers and fit.
    fn typed(&self, n: &Spanned<Num>, dtype: DType, what: &str) -> Result<Value, LoadError> {
        match (*n.get_ref(), dtype.int_range()) {
            (Num::Float(f), None) => Ok(Value::Float(f)),
            (Num::Int(i), None) => Ok(Value::Float(i as f64)),
            (Num::Int(i), Some((lo, hi))) if (lo..=hi).contains(&(i as i128)) => {
                Ok(Value::Int(i as i128))
            }
            (Num::Int(i), Some((lo, hi))) => Err(self.loc.at(
                ErrorKind::DTypeMismatch,
                n,
                format!("{what} {i} does not fit {dtype} ({lo}..={hi})"),
            )),
            (Num::Float(f), Some(_)) => Err(self.loc.at(
                ErrorKind::DTypeMismatch,
                n,
                format!("{what} {f} is a float but the dtype is {dtype}"),
            )),
        }
    }

    fn init(
        &self,
        span: &Spanned<RawInit>,
        t: &RawInitTable,
        dtype: DType,
        len: u64,
    ) -> Result<Init, LoadError> {
        let loc = self.loc;
        let kinds = [
            t.konst.is_some(),
            t.iota.is_some(),
            t.uniform.is_some(),
            t.randint.is_some(),
            t.chase.is_some(),
            t.csr.is_some(),
            t.file.is_some(),
        ];
        if kinds.iter().filter(|&&k| k).count() != 1 {
            return Err(loc.at(
                ErrorKind::Type,
                span,
                "init needs exactly one of const, iota, uniform, randint, chase, csr, file",
            ));
        }
        let seed = t.seed.as_ref().map_or(0, |s| *s.get_ref());
        if let (Some(s), false) = (
            &t.seed,
            t.uniform.is_some() || t.randint.is_some() || t.chase.is_some() || t.csr.is_some(),
        ) {
            return Err(loc.at(
                ErrorKind::Value,
                s,
                "`seed` applies only to uniform, randint, chase and csr",
            ));
        }
        if let Some(c) = &t.konst {
            return Ok(Init::Const(self.typed(c, dtype, "const")?));
        }
        if let Some(io) = &t.iota {
            let io = io.get_ref();
            return Ok(Init::Iota {
                start: self.typed(&io.start, dtype, "iota start")?,
                step: self.typed(&io.step, dtype, "iota step")?,
            });
        }
        if let Some(u) = &t.uniform {
            let [lo, hi] = u.get_ref().as_slice() else {
                return Err(loc.at(ErrorKind::Value, u, "uniform needs [lo, hi]"));
            };
            let (lo_v, hi_v) = (
                self.typed(lo, dtype, "uniform bound")?,
                self.typed(hi, dtype, "uniform bound")?,
            );
            if lo_v.as_f64() > hi_v.as_f64()
                || !lo_v.as_f64().is_finite()
                || !hi_v.as_f64().is_finite()
            {
                return Err(loc.at(
                    ErrorKind::Value,
                    u,
                    format!("uniform needs finite lo <= hi, got [{lo_v}, {hi_v}]"),
                ));
            }
            return Ok(Init::Uniform {
                lo: lo_v,
                hi: hi_v,
                seed,
            });
        }
        if let Some(r) = &t.randint {
            return self.randint(r, dtype, seed);
        }
        if let Some(c) = &t.chase {
            return self.chase(c, dtype, len, seed);
        }
        if let Some(c) = &t.csr {
            return self.csr(c, dtype, len, seed);
        }
        let f = t.file.as_ref().expect("exactly one init kind is set");
        let bytes = (self.read)(f.get_ref()).map_err(|e| {
            loc.at(
                ErrorKind::File,
                f,
                format!("cannot read `{}`: {e}", f.get_ref()),
            )
        })?;
        let want = len * dtype.size() as u64;
        if bytes.len() as u64 != want {
            return Err(loc.at(
                ErrorKind::File,
                f,
                format!(
                    "`{}` has {} bytes; {len} x {dtype} needs {want}",
                    f.get_ref(),
                    bytes.len()
                ),
            ));
        }
        Ok(Init::File {
            path: f.get_ref().clone(),
            bytes: std::sync::Arc::new(bytes),
        })
    }

    /// `randint = [lo, hi]`: integer bounds, lo <= hi, every integer between exact in `dtype`.
    fn randint(
        &self,
        r: &Spanned<Vec<Spanned<Num>>>,
        dtype: DType,
        seed: u64,
    ) -> Result<Init, LoadError> {
        let loc = self.loc;
        let [lo, hi] = r.get_ref().as_slice() else {
            return Err(loc.at(ErrorKind::Value, r, "randint needs [lo, hi]"));
        };
        let int = |n: &Spanned<Num>| match *n.get_ref() {
            Num::Int(i) => Ok(i),
            Num::Float(f) => Err(loc.at(
                ErrorKind::Value,
                n,
                format!("randint bounds are integers, got {f}"),
            )),
        };
        let (lo, hi) = (int(lo)?, int(hi)?);
        if lo > hi {
            return Err(loc.at(
                ErrorKind::Value,
                r,
                format!("randint needs lo <= hi, got [{lo}, {hi}]"),
            ));
        }
        // largest magnitude up to which every integer is exact in the dtype
        let (min, max) = match (dtype, dtype.int_range()) {
            (_, Some(range)) => range,
            (DType::F16, None) => (-2048, 2048),
            (DType::Bf16, None) => (-256, 256),
            (DType::F32, None) => (-(1 << 24), 1 << 24),
            (_, None) => (-(1 << 53), 1 << 53),
        };
        if (lo as i128) < min || (hi as i128) > max {
            return Err(loc.at(
                ErrorKind::DTypeMismatch,
                r,
                format!("randint [{lo}, {hi}] is not exact in {dtype} ({min}..={max})"),
            ));
        }
        Ok(Init::RandInt { lo, hi, seed })
    }

    fn index_dtype(
        &self,
        span: &Spanned<impl Sized>,
        dtype: DType,
        max_index: u64,
        what: &str,
    ) -> Result<(), LoadError> {
        match dtype.int_range() {
            Some((_, hi)) if max_index as i128 <= hi => Ok(()),
            Some(_) => Err(self.loc.at(
                ErrorKind::DTypeMismatch,
                span,
                format!("{what} index {max_index} does not fit {dtype}"),
            )),
            None => Err(self.loc.at(
                ErrorKind::DTypeMismatch,
                span,
                format!("{what} needs an integer dtype, not {dtype}"),
            )),
        }
    }

    fn chase(
        &self,
        c: &Spanned<RawChase>,
        dtype: DType,
        len: u64,
        seed: u64,
    ) -> Result<Init, LoadError> {
        let loc = self.loc;
        let (fp, st) = (&c.get_ref().footprint, &c.get_ref().stride);
        let (footprint, stride) = (*fp.get_ref(), *st.get_ref());
        let size = dtype.size() as u64;
        if stride == 0 || stride % size != 0 {
            return Err(loc.at(
                ErrorKind::Value,
                st,
                format!("chase stride must be a positive multiple of the {size}-byte element"),
            ));
        }
        if footprint == 0 || footprint % stride != 0 {
            return Err(loc.at(
                ErrorKind::Value,
                fp,
                format!(
                    "chase footprint {footprint} is not a positive multiple of the stride {stride}"
                ),
            ));
        }
        if footprint > len * size {
            return Err(loc.at(
                ErrorKind::Value,
                fp,
                format!(
                    "chase footprint {footprint} exceeds the buffer's {} bytes",
                    len * size
                ),
            ));
        }
        if footprint / stride > MAX_CHASE_SLOTS {
            return Err(loc.at(
                ErrorKind::Value,
                fp,
                format!(
                    "chase has {} slots; at most {MAX_CHASE_SLOTS}",
                    footprint / stride
                ),
            ));
        }
        self.index_dtype(c, dtype, footprint / size - 1, "chase")?;
        Ok(Init::Chase {
            footprint,
            stride,
            seed,
        })
    }

    fn csr(
        &self,
        c: &Spanned<RawCsr>,
        dtype: DType,
        len: u64,
        seed: u64,
    ) -> Result<Init, LoadError> {
        let r = c.get_ref();
        let (rows, cols, nnz) = (*r.rows.get_ref(), *r.cols.get_ref(), *r.nnz.get_ref());
        if rows == 0 || cols == 0 || rows > 1 << 26 || cols > 1 << 32 {
            return Err(self.loc.at(
                ErrorKind::Value,
                c,
                "csr needs 1 <= rows <= 2^26 and 1 <= cols <= 2^32",
            ));
        }
        if rows.checked_mul(cols).is_none_or(|cap| nnz > cap) || nnz > 1 << 28 {
            return Err(self.loc.at(
                ErrorKind::Value,
                &r.nnz,
                format!("nnz {nnz} exceeds rows x cols or 2^28"),
            ));
        }
        let (want, max) = match r.part {
            CsrPart::RowPtr => (rows + 1, nnz),
            CsrPart::ColIdx => (nnz, cols - 1),
        };
        if len != want {
            return Err(self.loc.at(
                ErrorKind::Value,
                c,
                format!("this csr part has {want} elements but the buffer len is {len}"),
            ));
        }
        self.index_dtype(c, dtype, max, "csr")?;
        Ok(Init::Csr {
            rows,
            cols,
            nnz,
            part: r.part,
            seed,
        })
    }

    fn scalar(&self, s: &Spanned<RawScalar>) -> Result<Arg, LoadError> {
        let r = s.get_ref();
        let dtype = *r.dtype.get_ref();
        let value = self.typed(&r.value, dtype, "scalar")?;
        Ok(Arg::Scalar {
            dtype,
            bits: dtype.encode(value),
            name: r.name.clone(),
        })
    }

    fn tensor_map(
        &self,
        t: &Spanned<RawTensorMap>,
        buffer: usize,
        buffers: &[BufferSpec],
    ) -> Result<TensorMap, LoadError> {
        let loc = self.loc;
        let r = t.get_ref();
        let dims = r.dims.get_ref().clone();
        let rank = dims.len();
        if !(1..=5).contains(&rank) || dims.contains(&0) {
            return Err(loc.at(
                ErrorKind::Value,
                &r.dims,
                "tensor map needs 1 to 5 non-zero dims",
            ));
        }
        let strides = r.strides.get_ref().clone();
        if strides.len() != rank - 1 || strides.iter().any(|s| s % 16 != 0) {
            return Err(loc.at(
                ErrorKind::Value,
                &r.strides,
                format!(
                    "tensor map needs {} byte strides, each a multiple of 16",
                    rank - 1
                ),
            ));
        }
        let box_dims = r.box_dims.get_ref().clone();
        if box_dims.len() != rank || box_dims.iter().any(|&b| b == 0 || b > 256) {
            return Err(loc.at(
                ErrorKind::Value,
                &r.box_dims,
                format!("tensor map needs {rank} box sizes in 1..=256"),
            ));
        }
        let elem_strides = match &r.elem_strides {
            Some(e)
                if e.get_ref().len() != rank || e.get_ref().iter().any(|&s| s == 0 || s > 8) =>
            {
                return Err(loc.at(
                    ErrorKind::Value,
                    e,
                    format!("tensor map needs {rank} element strides in 1..=8"),
                ));
            }
            Some(e) => e.get_ref().clone(),
            None => vec![1; rank],
        };
        let dtype = *r.dtype.get_ref();
        let elem = dtype.size() as u64;
        let extent = dims[0] * elem
            + dims[1..]
                .iter()
                .zip(&strides)
                .map(|(d, s)| (d - 1) * s)
                .sum::<u64>();
        if extent > buffers[buffer].bytes() {
            return Err(loc.at(
                ErrorKind::Value,
                &r.dims,
                format!(
                    "tensor map spans {extent} bytes but buffer `{}` has {}",
                    buffers[buffer].name,
                    buffers[buffer].bytes()
                ),
            ));
        }
        Ok(TensorMap {
            buffer,
            dtype,
            dims,
            strides,
            box_dims,
            elem_strides,
            swizzle: r.swizzle.unwrap_or(Swizzle::None),
            interleave: r.interleave.unwrap_or(Interleave::None),
            oob_fill: r.oob_fill.unwrap_or(OobFill::Zero),
            l2_promotion: r.l2_promotion.unwrap_or(L2Promotion::None),
        })
    }

    fn check(
        &self,
        c: &Spanned<RawCheck>,
        buffers: &[BufferSpec],
        args: &[Arg],
    ) -> Result<CheckSpec, LoadError> {
        let loc = self.loc;
        let r = c.get_ref();
        let compare = match (&r.tolerance, &r.bitwise) {
            (Some(t), None) if *t.get_ref() >= 0.0 => Compare::Tolerance(*t.get_ref()),
            (Some(t), None) => return Err(loc.at(ErrorKind::Value, t, "tolerance must be >= 0")),
            (None, Some(b)) if *b.get_ref() => Compare::Bitwise,
            _ => {
                return Err(loc.at(
                    ErrorKind::Value,
                    c,
                    "[check] needs exactly one of `tolerance = x` or `bitwise = true`",
                ))
            }
        };
        let name = r.reference.get_ref();
        let reference = reference::find(name).ok_or_else(|| {
            let known: Vec<&str> = reference::references().iter().map(|r| r.name).collect();
            loc.at(
                ErrorKind::Reference,
                &r.reference,
                format!("unknown reference `{name}` (known: {})", known.join(", ")),
            )
        })?;
        let scalar_names: Vec<&str> = args
            .iter()
            .filter_map(|a| match a {
                Arg::Scalar { name: Some(n), .. } => Some(n.as_str()),
                _ => None,
            })
            .collect();
        let need =
            |what: &str, names: &[&str], have: &dyn Fn(&str) -> bool| -> Result<(), LoadError> {
                match names.iter().find(|n| !have(n)) {
                    Some(missing) => Err(loc.at(
                        ErrorKind::Reference,
                        &r.reference,
                        format!("reference `{name}` needs {what} `{missing}`"),
                    )),
                    None => Ok(()),
                }
            };
        need("an input buffer", reference.inputs, &|n| {
            buffers.iter().any(|b| b.name == n)
        })?;
        let is_output = |n: &str| buffers.iter().any(|b| b.name == n && b.output);
        need("an output buffer", reference.outputs, &is_output)?;
        need("an output buffer", reference.timing, &is_output)?;
        need("a scalar arg named", reference.scalars, &|n| {
            scalar_names.contains(&n)
        })?;
        need("[check.params] key", reference.params, &|n| {
            r.params.contains_key(n)
        })?;
        Ok(CheckSpec {
            reference: name.clone(),
            compare,
            params: r.params.clone(),
        })
    }

    fn figure(&self, f: &Spanned<RawFigure>, buffers: &[BufferSpec], args: &[Arg]) -> Result<FigureSpec, LoadError> {
        let (loc, r) = (self.loc, f.get_ref());
        let timer = match &r.timer {
            None => None,
            Some(t) => {
                let t_ref = t.get_ref();
                let i = buffers.iter().position(|b| b.name == *t_ref.buffer.get_ref()).ok_or_else(|| {
                    loc.at(ErrorKind::UnknownBuffer, &t_ref.buffer, format!("no buffer named `{}`", t_ref.buffer.get_ref()))
                })?;
                let b = &buffers[i];
                if !b.output || !matches!(b.dtype, DType::U64 | DType::S64) || t_ref.index >= b.len {
                    return Err(loc.at(
                        ErrorKind::Value,
                        t,
                        format!("the timer must be an element of a u64 output buffer: `{}` is {} of {} elements{}", b.name, b.dtype, b.len, if b.output { "" } else { ", not an output" }),
                    ));
                }
                Some((i, t_ref.index))
            }
        };
        let per = r.per.get_ref();
        if !args.iter().any(|a| matches!(a, Arg::Scalar { name: Some(n), .. } if n == per)) {
            return Err(loc.at(ErrorKind::Value, &r.per, format!("`per` must name a scalar argument; there is no scalar `{per}`")));
        }
        let scale = match &r.scale {
            Some(s) if !(s.get_ref().is_finite() && *s.get_ref() > 0.0) => return Err(loc.at(ErrorKind::Value, s, "`scale` must be a positive number")),
            Some(s) => *s.get_ref(),
            None => 1.0,
        };
        Ok(FigureSpec { unit: r.unit, timer, per: per.clone(), scale })
    }
}
