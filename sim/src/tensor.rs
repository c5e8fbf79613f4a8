//! Tensor-core and matrix-movement instructions as pure functions of per-lane register values:
//! `ldmatrix`, `stmatrix`, `movmatrix`, `mma.sync`, `wmma.{load,store,mma}` and
//! `wgmma.mma_async`.
//!
//! The executor gathers each operand register of the warp as a [`Lanes`] (lane `l`'s 64-bit
//! register bits at index `l`; a `.b32` register in the low 32 bits, higher bits ignored on input
//! and zero on output), calls one function, and writes the returned registers back. Memory comes
//! through closures ([`Read`], [`Write`]) that resolve the state space, check bounds and alignment,
//! and turn failures into the executor's own error type `E`. Nothing here knows about warps,
//! scheduling or timing: the `.sync.aligned` contract (every lane of the warp, or all four warps
//! of a warpgroup, present with the same operands) is the caller's to enforce. [`Mma::from_inst`],
//! [`WmmaMem::from_inst`] and [`Wgmma::from_inst`] read a form from a decoded instruction; the
//! movement instructions take `m.shape`, `m.num`, `.trans` and the type directly.
//!
//! Register fragments follow the PTX ISA figures exactly (section numbers of PTX ISA 8.7, where
//! the `mma` chapter is 9.7.14 and `wgmma` 9.7.15; later versions shift them by one or two):
//! - every `mma` shape of sm_80+ (9.7.14.5.2–5.10), `ldmatrix`/`stmatrix`/`movmatrix` (9.7.14.5.15–17)
//!   and the `wgmma` register operands (9.7.15.5.1.1, figures 148–153, whose text equivalents are
//!   CUTLASS's `CLayout_64xN`/`ALayout_64x{8,16,32}` in `cute/atom/mma_traits_sm90_gmma.hpp`) share
//!   one pattern: 8-row tiles in which lane `l` holds row `l/4` ("groupID") and `e` consecutive
//!   columns from `e·(l%4)` ("threadID_in_group"); consecutive elements of a lane fill a tile, and
//!   tiles follow each other row-tile first. One `Frag` mechanism covers them all;
//! - `mma.m8n8k4.f16` (Volta quad pairs, 9.7.14.5.1) has its own three formulas;
//! - `wmma` fragments are officially opaque (9.7.14.4.1: "the identity of individual matrix elements in
//!   the fragment is unspecified"). Ours are made of the sm_80+ `mma` fragments, the way CUTLASS
//!   composes larger tiles from them: A of `mma.m16n8kK` pieces (16 rows), B of 8-column pieces,
//!   C/D of 16×8 pieces (8 rows for M = 8); where the PTX fragment has more registers than the
//!   matrix has elements per lane (`.f16` A/B: always eight `.f16x2`) the fragment repeats, and f64
//!   C/D take two registers (64 elements over 32 lanes; the PTX table's "single register" cannot
//!   hold them). Only the internal consistency of load → mma → store matters for programs that use
//!   the API as PTX allows (uniform element-wise operations on fragments), and that is what the
//!   tests check; which register holds which element is unverified on H200.
//!
//! Shared-memory matrix descriptors of `wgmma` (9.7.15.5.1.2, "Shared Memory Matrix Layout",
//! canonical layouts table, and 9.7.15.5.1.2.2 "Matrix Descriptor Format") are decoded to byte
//! addresses of 16-byte chunks; swizzling XORs the chunk index (address bits 4–6) with the 128-byte
//! line (bits 7–9), masked to 3/2/1 bits for 128/64/32-byte swizzle, on the absolute shared address
//! (CUTLASS `Swizzle<3|2|1,4,3>`, the pattern TMA writes).
//!
//! Arithmetic: products of f16/bf16/tf32/fp8 inputs are exact in f64 and are summed in f64 starting
//! from C, in ascending k, then rounded once (to nearest even) to the accumulator type. Public
//! measurements of tensor cores (Fasi et al., "Numerical behavior of NVIDIA tensor cores", 2021,
//! V100–A100) report alignment to the largest exponent with truncation instead, so the last bit of
//! an f32 result can differ from the H200's; results agree exactly whenever the sum is
//! representable in the accumulator type. tf32 operands use the top 19 bits of the register (the
//! low 13 bits are ignored). f64 MMAs are a chain of correctly rounded FMAs in ascending k (PTX
//! gives no order). Integer MMAs are exact, wrapping to 32 bits or clamping with `.satfinite`. NaN
//! results are the canonical NaN of the accumulator type.
//!
//! Not modelled (an [`Unsupported`] error names the form): sparse `mma.sp`/`wgmma.sp`, single-bit
//! `wgmma` (`m64nNk256.b1`), the sm_100+ forms (`m16n16`/`m8n16` `.b8` shapes of
//! `ldmatrix`/`stmatrix`, `.e2m1`/`.e3m2`/`.e2m3` inputs, block-scaled `.kind::*`), and
//! descriptor base offsets other than 0 (the PTX text does not say how the hardware applies them).

use std::sync::OnceLock;

use thiserror::Error;
use warpsim_isa::eval::Unsupported;
use warpsim_isa::fp::cvt::{f2f, FloatMods, FloatType};
use warpsim_isa::fp::{self, Rounding};
use warpsim_isa::inst::{flag, Inst, Opnd};
use warpsim_isa::types::{BoolOp, Rnd, Ty};

/// One register of a warp: lane `l`'s bits at index `l`.
pub type Lanes = [u64; 32];

/// Reads `buf.len()` bytes at a byte address for a lane (the lane whose address it is; 0 for
/// `wgmma`'s descriptor reads). The closure resolves the state space and reports faults.
pub type Read<'a, E> = dyn FnMut(usize, u64, &mut [u8]) -> Result<(), E> + 'a;

/// Writes `bytes` at a byte address for a lane.
pub type Write<'a, E> = dyn FnMut(usize, u64, &[u8]) -> Result<(), E> + 'a;

/// Why a memory-touching matrix instruction failed.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum TensorError<E> {
    /// The form (shape, types, layouts, operand counts) is not one this module executes.
    #[error(transparent)]
    Form(#[from] Unsupported),
    /// The memory closure refused an access.
    #[error("{0}")]
    Memory(E),
}

/// An operand of a matrix multiply: A (M×K), B (K×N) or the accumulator C/D (M×N).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operand {
    A,
    B,
    C,
}

/// The types of a multiply, as PTX writes them: `.dtype.atype.btype.ctype`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MmaTypes {
    pub d: Ty,
    pub a: Ty,
    pub b: Ty,
    pub c: Ty,
}

impl MmaTypes {
    /// From the type modifiers in written order: four (`.dtype.atype.btype.ctype`), or two for the
    /// `.f16` forms of `wmma.mma` (`.dtype.ctype`, A and B being `.f16`).
    pub fn from_ptx(tys: &[Ty]) -> Result<MmaTypes, Unsupported> {
        match *tys {
            [d, a, b, c] => Ok(MmaTypes { d, a, b, c }),
            [d, c] => Ok(MmaTypes { d, a: Ty::F16, b: Ty::F16, c }),
            _ => Err(Unsupported(format!("matrix multiply with types {}", dotted(tys)))),
        }
    }
}

/// An `mma.sync` or `wmma.mma` instruction form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mma {
    /// `(M, N, K)` of `.mMnNkK`.
    pub shape: (u16, u16, u16),
    /// `.row` (true) or `.col` layout of A and of B.
    pub a_row: bool,
    pub b_row: bool,
    pub types: MmaTypes,
    /// `.satfinite` (integer forms): clamp to the s32 range instead of wrapping.
    pub satfinite: bool,
    /// Rounding of the f64 forms (`.rn` unless the instruction says otherwise).
    pub rnd: Rounding,
    /// `.xor.popc` / `.and.popc` of the single-bit (`.b1`) forms: D = C + popc(A op B).
    pub popc: Option<BoolOp>,
}

/// A `wmma.load.{a,b,c}` or `wmma.store.d` form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WmmaMem {
    pub shape: (u16, u16, u16),
    /// The matrix: `.a`, `.b`, or `.c` (also for `wmma.store.d`).
    pub operand: Operand,
    /// `.row` (true) or `.col`.
    pub row_major: bool,
    pub ty: Ty,
}

impl Mma {
    /// The form of a decoded `mma.sync` or `wmma.mma` (`d, a, b, c`; shape, layouts, types,
    /// `.satfinite`, `.xor/.and` + `.popc`, `.rnd`). Sparse `mma.sp` (six operands) is refused.
    pub fn from_inst(inst: &Inst) -> Result<Mma, Unsupported> {
        let m = &inst.m;
        let what = || Unsupported(format!("matrix multiply {m:?} with {} operands (sparse `mma.sp` is not modelled)", inst.ops.len()));
        let (a_row, b_row) = m.layout.filter(|_| inst.ops.len() == 4).ok_or_else(what)?;
        let rnd = match m.rnd {
            None | Some(Rnd::Rn) => Rounding::Rn,
            Some(Rnd::Rz) => Rounding::Rz,
            Some(Rnd::Rm) => Rounding::Rm,
            Some(Rnd::Rp) => Rounding::Rp,
            Some(_) => return Err(what()),
        };
        Ok(Mma {
            shape: m.shape.ok_or_else(what)?,
            a_row,
            b_row,
            types: MmaTypes::from_ptx(&m.types)?,
            satfinite: m.has(flag::SATFINITE),
            rnd,
            popc: m.bool_op.filter(|_| m.has(flag::POPC)),
        })
    }
}

impl WmmaMem {
    /// The form of a decoded `wmma.load.{a,b,c}` or `wmma.store.d` (fragment letter, shape, the
    /// single `.row`/`.col`, the type).
    pub fn from_inst(inst: &Inst) -> Result<WmmaMem, Unsupported> {
        let m = &inst.m;
        let what = || Unsupported(format!("wmma load/store {m:?}"));
        let operand = match m.frag {
            Some('a') => Operand::A,
            Some('b') => Operand::B,
            Some('c' | 'd') => Operand::C,
            _ => return Err(what()),
        };
        Ok(WmmaMem { shape: m.shape.ok_or_else(what)?, operand, row_major: m.layout.ok_or_else(what)?.0, ty: *m.types.first().ok_or_else(what)? })
    }
}

/// A `wgmma.mma_async` form and its immediate operands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Wgmma {
    /// `(64, N, K)` of `.m64nNkK`.
    pub shape: (u16, u16, u16),
    pub dtype: Ty,
    pub atype: Ty,
    pub btype: Ty,
    /// `.satfinite` (integer forms).
    pub satfinite: bool,
    /// `scale-d`: true gives D = A·B + D, false D = A·B (D is then not read).
    pub scale_d: bool,
    /// `imm-scale-a` / `imm-scale-b` = −1.
    pub negate_a: bool,
    pub negate_b: bool,
    /// `imm-trans-a` / `imm-trans-b` = 1: the shared-memory matrix is M-/N-major instead of K-major.
    pub trans_a: bool,
    pub trans_b: bool,
}

/// Where `wgmma` takes A from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WgmmaA<'a> {
    /// A shared-memory matrix descriptor (`a-desc`).
    Desc(u64),
    /// Four registers per thread (`{a0, a1, a2, a3}`): `regs[i][w]` is register `i` of warp `w`.
    Regs(&'a [[Lanes; 4]]),
}

// ------------------------------------------------------------------------------------------------
// Fragments: which lane and register hold which element.

/// A matrix of raw element bits, row-major.
#[derive(Debug, Clone, PartialEq)]
struct Mat {
    rows: usize,
    cols: usize,
    v: Vec<u64>,
}

impl Mat {
    fn new(rows: usize, cols: usize) -> Mat {
        Mat { rows, cols, v: vec![0; rows * cols] }
    }
    fn get(&self, r: usize, c: usize) -> u64 {
        self.v[r * self.cols + c]
    }
    fn set(&mut self, r: usize, c: usize, x: u64) {
        self.v[r * self.cols + c] = x;
    }
    fn transpose(&self) -> Mat {
        let mut t = Mat::new(self.cols, self.rows);
        for r in 0..self.rows {
            for c in 0..self.cols {
                t.set(c, r, self.get(r, c));
            }
        }
        t
    }
    /// Rows `from..from + n`.
    fn rows(&self, from: usize, n: usize) -> Mat {
        Mat { rows: n, cols: self.cols, v: self.v[from * self.cols..(from + n) * self.cols].to_vec() }
    }
    /// Stacks matrices of equal width.
    fn stack(parts: &[Mat]) -> Mat {
        let mut v = Vec::with_capacity(parts.iter().map(|p| p.v.len()).sum());
        parts.iter().for_each(|p| v.extend_from_slice(&p.v));
        Mat { rows: parts.iter().map(|p| p.rows).sum(), cols: parts.first().map_or(0, |p| p.cols), v }
    }
}

/// The layout of one register operand. A matrix is held in storage coordinates `(row, col)`:
/// `(m, k)` for A, `(n, k)` for B (B transposed, as the PTX figures index it by `groupID` = n),
/// `(m, n)` for C/D.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Frag {
    rows: usize,
    cols: usize,
    /// Element width: 1, 4, 8, 16, 32 or 64 bits; narrower elements are packed low to high in a
    /// register.
    bits: u32,
    /// Distinct matrices in the operand (`ldmatrix .x2/.x4`, the four quad-pair products of
    /// `mma.m8n8k4.f16`).
    groups: usize,
    /// Identical copies of the groups (`wmma` `.f16` fragments hold their matrix more than once).
    copies: usize,
    map: Map,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Map {
    /// The groupID/threadID_in_group pattern: tiles of 8 rows × `4e` columns in which lane `l`
    /// holds row `l/4`, columns `e·(l%4)` … `e·(l%4) + e − 1`. Element `i` of a lane is element
    /// `i % e` of tile `i / e`; tiles fill a `piece` row-tile first, pieces fill a matrix likewise,
    /// then the next matrix (group, then copy).
    Tiles { e: usize, piece_rows: usize, piece_cols: usize },
    /// `mma.m8n8k4.f16`: lanes `4q..4q+3` and `16+4q..16+4q+3` form quad pair `q`, which holds
    /// group `q`; `hi` = lane ≥ 16.
    QuadPair(QuadPair),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum QuadPair {
    /// `(lane%4 + 4·hi, i)`: A `.row`, B `.col`, C/D `.f16`.
    LaneRow,
    /// `(i + 4·hi, lane%4)`: A `.col`, B `.row`.
    ElemRow,
    /// C/D `.f32`: row `(lane&1) + (i&2) + 4·hi`, column `(i&4) + (lane&2) + (i&1)`.
    AccF32,
}

impl Frag {
    /// One piece per matrix, no copies: `mma`, `wgmma` per warp, `ldmatrix`.
    fn tiles(rows: usize, cols: usize, bits: u32, e: usize, groups: usize) -> Frag {
        Frag { rows, cols, bits, groups, copies: 1, map: Map::Tiles { e, piece_rows: rows, piece_cols: cols } }
    }
    /// Elements per register.
    fn pack(&self) -> usize {
        pack(self.bits)
    }
    fn elems(&self) -> usize {
        self.rows * self.cols * self.groups * self.copies / 32
    }
    fn regs(&self) -> usize {
        self.elems() / self.pack()
    }
    fn mask(&self) -> u64 {
        u64::MAX >> (64 - self.bits)
    }
    /// Calls `f(lane, i, matrix, row, col)` for element `i` of every lane, where `matrix` is the
    /// group plus copy·groups. Tile coordinates are computed once per tile.
    fn each(&self, mut f: impl FnMut(usize, usize, usize, usize, usize)) {
        match self.map {
            Map::Tiles { e, piece_rows, piece_cols } => {
                let (tr, tc) = (piece_rows / 8, piece_cols / (4 * e));
                let pr = self.rows / piece_rows;
                let per_matrix = pr * (self.cols / piece_cols);
                for tile in 0..self.elems() / e {
                    let (piece, t) = (tile / (tr * tc), tile % (tr * tc));
                    let (matrix, p) = (piece / per_matrix, piece % per_matrix);
                    let row = (p % pr) * piece_rows + (t % tr) * 8;
                    let col = (p / pr) * piece_cols + (t / tr) * 4 * e;
                    for lane in 0..32 {
                        for j in 0..e {
                            f(lane, tile * e + j, matrix, row + lane / 4, col + (lane % 4) * e + j);
                        }
                    }
                }
            }
            Map::QuadPair(kind) => {
                for lane in 0..32 {
                    let hi = 4 * (lane / 16);
                    for i in 0..self.elems() {
                        let (row, col) = match kind {
                            QuadPair::LaneRow => (lane % 4 + hi, i),
                            QuadPair::ElemRow => (i + hi, lane % 4),
                            QuadPair::AccF32 => ((lane & 1) + (i & 2) + hi, (i & 4) + (lane & 2) + (i & 1)),
                        };
                        f(lane, i, (lane >> 2) & 3, row, col);
                    }
                }
            }
        }
    }
    /// The groups' matrices from registers (`regs.len()` must be [`Frag::regs`]); copies beyond
    /// the first are not read.
    fn gather(&self, regs: &[Lanes]) -> Vec<Mat> {
        self.gather_by(|r, lane| regs[r][lane])
    }
    /// [`Frag::gather`] from `reg(register, lane)`.
    fn gather_by(&self, reg: impl Fn(usize, usize) -> u64) -> Vec<Mat> {
        let mut mats = vec![Mat::new(self.rows, self.cols); self.groups];
        let (pack, mask) = (self.pack(), self.mask());
        self.each(|lane, i, m, r, c| {
            if m < self.groups {
                mats[m].set(r, c, (reg(i / pack, lane) >> ((i % pack) as u32 * self.bits)) & mask);
            }
        });
        mats
    }
    /// Registers holding the groups' matrices (`mats.len()` must be `groups`), copies included.
    fn scatter(&self, mats: &[Mat]) -> Vec<Lanes> {
        let mut regs = vec![[0u64; 32]; self.regs()];
        let (pack, mask) = (self.pack(), self.mask());
        self.each(|lane, i, m, r, c| {
            regs[i / pack][lane] |= (mats[m % self.groups].get(r, c) & mask) << ((i % pack) as u32 * self.bits);
        });
        regs
    }
}

/// Checks that `regs` has the fragment's register count.
fn check_regs(form: &dyn Fn() -> String, what: &str, f: &Frag, regs: usize) -> Result<(), Unsupported> {
    if regs == f.regs() {
        Ok(())
    } else {
        Err(Unsupported(format!("{}: {what} takes {} registers, got {regs}", form(), f.regs())))
    }
}

fn dotted(tys: &[Ty]) -> String {
    tys.iter().map(|t| format!(".{}", t.name())).collect()
}

fn shape_name((m, n, k): (u16, u16, u16)) -> String {
    if k == 0 {
        format!("m{m}n{n}")
    } else {
        format!("m{m}n{n}k{k}")
    }
}

// ------------------------------------------------------------------------------------------------
// ldmatrix / stmatrix / movmatrix (PTX ISA 9.7.14.5.15–17).

/// The fragment of `.m8n8 .x{num} .b16` (PTX ISA 9.7.14.5.15, figure 104): register `j` holds
/// matrix `j`; lane `l` holds row `l/4`, columns `2(l%4)` and `2(l%4)+1`.
fn movement_frag(op: &str, shape: (u16, u16, u16), num: u8, trans: bool, ty: Ty) -> Result<Frag, Unsupported> {
    if (shape.0, shape.1) != (8, 8) || !matches!(num, 1 | 2 | 4) || ty != Ty::B16 {
        return Err(Unsupported(movement_name(op, shape, num, trans, ty)));
    }
    Ok(Frag::tiles(8, 8, 16, 2, num as usize))
}

fn movement_name(op: &str, shape: (u16, u16, u16), num: u8, trans: bool, ty: Ty) -> String {
    format!("{op}.sync.aligned.{}.x{num}{}.{}", shape_name(shape), if trans { ".trans" } else { "" }, ty.name())
}

/// `ldmatrix.sync.aligned.m8n8.x{1,2,4}{.trans}{.shared}.b16 {r…}, [p]`: lanes `8j..8j+7` give
/// the row addresses of matrix `j` (`addrs`, the value of `[p]` per lane); each row is 16 bytes.
/// Returns the `num` destination registers. With `.trans` each matrix is delivered transposed.
pub fn ldmatrix<E>(shape: (u16, u16, u16), num: u8, trans: bool, ty: Ty, addrs: &Lanes, read: &mut Read<'_, E>) -> Result<Vec<Lanes>, TensorError<E>> {
    let frag = movement_frag("ldmatrix", shape, num, trans, ty)?;
    let mut mats = Vec::with_capacity(frag.groups);
    for g in 0..frag.groups {
        let mut m = Mat::new(8, 8);
        for r in 0..8 {
            let lane = 8 * g + r;
            let mut row = [0u8; 16];
            read(lane, addrs[lane], &mut row).map_err(TensorError::Memory)?;
            for c in 0..8 {
                m.set(r, c, u16::from_le_bytes([row[2 * c], row[2 * c + 1]]) as u64);
            }
        }
        mats.push(if trans { m.transpose() } else { m });
    }
    Ok(frag.scatter(&mats))
}

/// `stmatrix.sync.aligned.m8n8.x{1,2,4}{.trans}{.shared}.b16 [p], {r…}` (sm_90): the inverse of
/// [`ldmatrix`], writing row `r` of matrix `j` (16 bytes) at lane `8j + r`'s address.
pub fn stmatrix<E>(shape: (u16, u16, u16), num: u8, trans: bool, ty: Ty, addrs: &Lanes, src: &[Lanes], write: &mut Write<'_, E>) -> Result<(), TensorError<E>> {
    let frag = movement_frag("stmatrix", shape, num, trans, ty)?;
    check_regs(&|| movement_name("stmatrix", shape, num, trans, ty), "the source", &frag, src.len())?;
    for (g, m) in frag.gather(src).into_iter().enumerate() {
        let m = if trans { m.transpose() } else { m };
        for r in 0..8 {
            let lane = 8 * g + r;
            let row: Vec<u8> = (0..8).flat_map(|c| (m.get(r, c) as u16).to_le_bytes()).collect();
            write(lane, addrs[lane], &row).map_err(TensorError::Memory)?;
        }
    }
    Ok(())
}

/// `movmatrix.sync.aligned.m8n8.trans.b16 d, a`: transposes an 8×8 fragment across the warp.
pub fn movmatrix(shape: (u16, u16, u16), trans: bool, ty: Ty, a: &Lanes) -> Result<Lanes, Unsupported> {
    let frag = movement_frag("movmatrix", shape, 1, trans, ty)?;
    if !trans {
        return Err(Unsupported(format!("{}: `.trans` is mandatory", movement_name("movmatrix", shape, 1, trans, ty))));
    }
    let t: Vec<Mat> = frag.gather(std::slice::from_ref(a)).iter().map(Mat::transpose).collect();
    Ok(frag.scatter(&t)[0])
}

// ------------------------------------------------------------------------------------------------
// mma.sync and wmma.

fn is_f16_f32(t: Ty) -> bool {
    matches!(t, Ty::F16 | Ty::F32)
}
fn is_int8(t: Ty) -> bool {
    matches!(t, Ty::S8 | Ty::U8)
}
fn is_int4(t: Ty) -> bool {
    matches!(t, Ty::S4 | Ty::U4)
}
fn is_fp8(t: Ty) -> bool {
    matches!(t, Ty::E4m3 | Ty::E5m2)
}

impl Mma {
    fn name(&self, op: &str) -> String {
        let t = &self.types;
        let lay = |row: bool| if row { ".row" } else { ".col" };
        let sat = if self.satfinite { ".satfinite" } else { "" };
        let popc = match self.popc {
            Some(BoolOp::Xor) => ".xor.popc",
            Some(BoolOp::And) => ".and.popc",
            Some(BoolOp::Or) => ".or.popc",
            None => "",
        };
        format!("{op}{popc}.sync.aligned.{}{}{}{sat}{}", shape_name(self.shape), lay(self.a_row), lay(self.b_row), dotted(&[t.d, t.a, t.b, t.c]))
    }
    /// `mma.m8n8k4` with `.f16` inputs: the Volta quad-pair layout.
    fn volta(&self) -> bool {
        self.shape == (8, 8, 4) && self.types.a == Ty::F16
    }
    fn dims(&self) -> (usize, usize, usize) {
        (self.shape.0 as usize, self.shape.1 as usize, self.shape.2 as usize)
    }
    /// The input types, accumulators and `.satfinite` of a valid multiply (both APIs).
    fn types_ok(&self, valid_inputs: bool) -> bool {
        let t = &self.types;
        let popc_ok = match self.popc {
            None => t.a != Ty::B1,
            Some(op) => t.a == Ty::B1 && op != BoolOp::Or && !self.satfinite,
        };
        let acc = if is_int8(t.a) || is_int4(t.a) || t.a == Ty::B1 {
            t.c == Ty::S32 && t.d == Ty::S32
        } else {
            !self.satfinite
                && match t.a {
                    Ty::F16 | Ty::E4m3 | Ty::E5m2 => is_f16_f32(t.c) && is_f16_f32(t.d),
                    Ty::F64 => t.c == Ty::F64 && t.d == Ty::F64,
                    _ => t.c == Ty::F32 && t.d == Ty::F32,
                }
        };
        valid_inputs && acc && popc_ok
    }
    /// The operand fragment of `mma.sync` for an operand of type `ty` (PTX ISA 9.7.14.5.1–5.10).
    /// A and B tiles hold one register's worth of elements per lane (`e` = elements per 32 bits,
    /// 1 for f64); C/D tiles two.
    fn mma_frag(&self, which: Operand, ty: Ty) -> Frag {
        let (m, n, k) = self.dims();
        let (rows, cols) = match which {
            Operand::A => (m, k),
            Operand::B => (n, k),
            Operand::C => (m, n),
        };
        if self.volta() {
            let kind = match which {
                Operand::A if self.a_row => QuadPair::LaneRow,
                Operand::B if !self.b_row => QuadPair::LaneRow,
                Operand::A | Operand::B => QuadPair::ElemRow,
                Operand::C if ty == Ty::F32 => QuadPair::AccF32,
                Operand::C => QuadPair::LaneRow,
            };
            return Frag { rows, cols, bits: ty.bits(), groups: 4, copies: 1, map: Map::QuadPair(kind) };
        }
        let e = if which == Operand::C { 2 } else { pack(ty.bits()) };
        Frag::tiles(rows, cols, ty.bits(), e, 1)
    }
}

/// Elements of `bits` width per register (1 for f64).
fn pack(bits: u32) -> usize {
    (32 / bits.min(32)) as usize
}

/// The operand fragment of `wmma` (see the module documentation): A in pieces of 16 rows (8 for
/// M = 8), B in pieces of 8 columns of N, C/D in 16×8 pieces (8×8 for M = 8); `.f16` A and B
/// repeat to fill their eight registers.
fn wmma_frag((m, n, k): (u16, u16, u16), which: Operand, ty: Ty) -> Frag {
    let (m, n, k) = (m as usize, n as usize, k as usize);
    let (rows, cols, piece_rows, piece_cols) = match which {
        Operand::A => (m, k, m.min(16), k),
        Operand::B => (n, k, 8, k),
        Operand::C => (m, n, m.min(16), 8),
    };
    let e = if which == Operand::C { 2 } else { pack(ty.bits()) };
    let copies = if ty == Ty::F16 && which != Operand::C { 8 * pack(ty.bits()) * 32 / (rows * cols) } else { 1 };
    Frag { rows, cols, bits: ty.bits(), groups: 1, copies, map: Map::Tiles { e, piece_rows, piece_cols } }
}

/// Options of the arithmetic shared by all multiplies.
#[derive(Debug, Clone, Copy)]
struct Arith {
    negate_a: bool,
    negate_b: bool,
    satfinite: bool,
    rnd: Rounding,
    popc: Option<BoolOp>,
}

fn float_type(t: Ty) -> FloatType {
    match t {
        Ty::F16 => FloatType::F16,
        Ty::Bf16 => FloatType::Bf16,
        Ty::E4m3 => FloatType::E4m3,
        Ty::E5m2 => FloatType::E5m2,
        Ty::F64 => FloatType::F64,
        _ => FloatType::F32,
    }
}

/// The exact value of an input or accumulator element; tf32 keeps its top 19 bits. 8- and 16-bit
/// formats go through a table of their `cvt` values, built on first use.
fn to_f64(t: Ty, bits: u64) -> f64 {
    static TABLES: [OnceLock<Vec<f64>>; 4] = [const { OnceLock::new() }; 4];
    let slot = match t {
        Ty::F16 => 0,
        Ty::Bf16 => 1,
        Ty::E4m3 => 2,
        Ty::E5m2 => 3,
        Ty::Tf32 => return f32::from_bits(bits as u32 & 0xFFFF_E000) as f64,
        Ty::F32 => return f32::from_bits(bits as u32) as f64,
        _ => return f64::from_bits(bits),
    };
    let table = TABLES[slot].get_or_init(|| {
        let n = 1u64 << t.bits();
        (0..n).map(|x| f64::from_bits(f2f(float_type(t), FloatType::F64, x, Rounding::Rn, FloatMods::default()))).collect()
    });
    table[(bits & t.mask()) as usize]
}

/// An f64 rounded to nearest even as the accumulator type (`.f32`: the host conversion, which is
/// exactly that; NaN becomes the canonical NaN).
fn from_f64(t: Ty, v: f64) -> u64 {
    match t {
        Ty::F32 if v.is_nan() => 0x7FFF_FFFF,
        Ty::F32 => (v as f32).to_bits() as u64,
        _ => f2f(FloatType::F64, float_type(t), v.to_bits(), Rounding::Rn, FloatMods::default()),
    }
}

fn to_int(t: Ty, bits: u64) -> i64 {
    match t {
        Ty::S8 => bits as u8 as i8 as i64,
        Ty::U8 => bits as u8 as i64,
        Ty::S4 => ((bits as u8) << 4) as i8 as i64 >> 4,
        Ty::U4 => (bits & 0xF) as i64,
        Ty::B1 => (bits & 1) as i64,
        _ => bits as u32 as i32 as i64,
    }
}

/// `D = op(A)·op(B) + C` on storage-coordinate matrices: `a` is M×K, `b` N×K, `c` M×N or none
/// (D = A·B). Element bits in, element bits out. Operands are decoded once; every D element is
/// accumulated from its start value in ascending k.
fn multiply(t: &MmaTypes, a: &Mat, b: &Mat, c: Option<&Mat>, x: Arith) -> Mat {
    let cv = |i: usize, j: usize| c.map(|c| c.get(i, j));
    match t.d {
        Ty::S32 => {
            let term = |p: i64, q: i64| match x.popc {
                Some(BoolOp::Xor) => p ^ q,
                Some(_) => p & q,
                None => p * q,
            };
            let finish = |sum: i64| {
                let sum = if x.satfinite { sum.clamp(i32::MIN as i64, i32::MAX as i64) } else { sum };
                sum as i32 as u32 as u64
            };
            let start = |i, j| cv(i, j).map_or(0, |c| to_int(Ty::S32, c));
            accumulate(a, b, |is_a, e| to_int(if is_a { t.a } else { t.b }, e), start, |s, p, q| s + term(p, q), finish)
        }
        Ty::F64 => {
            let sign = |neg: bool| if neg { 1u64 << 63 } else { 0 };
            let mut d = Mat::new(a.rows, b.rows);
            for i in 0..a.rows {
                for j in 0..b.rows {
                    let fma = |s, kk| fp::f64::fma(a.get(i, kk) ^ sign(x.negate_a), b.get(j, kk) ^ sign(x.negate_b), s, x.rnd, false, false);
                    d.set(i, j, (0..a.cols).fold(cv(i, j).unwrap_or(sign(true)), fma));
                }
            }
            d
        }
        _ => {
            let value = |is_a: bool, e: u64| {
                let (ty, neg) = if is_a { (t.a, x.negate_a) } else { (t.b, x.negate_b) };
                if neg {
                    -to_f64(ty, e)
                } else {
                    to_f64(ty, e)
                }
            };
            // −0.0 is the identity of IEEE addition: D = A·B keeps the sign of an all-(−0) sum.
            let start = |i, j| cv(i, j).map_or(-0.0, |c| to_f64(t.c, c));
            accumulate(a, b, value, start, |s, p, q| s + p * q, |sum| from_f64(t.d, sum))
        }
    }
}

/// D\[i\]\[j\] = `finish`(`step`(… `step`(`start(i, j)`, a\[i\]\[0\], b\[j\]\[0\]) …, a\[i\]\[K−1\],
/// b\[j\]\[K−1\])) over values decoded by `value(is_a, bits)`; a row of D is accumulated at once
/// (k outer, j inner) so that independent sums proceed side by side.
fn accumulate<T: Copy>(
    a: &Mat,
    b: &Mat,
    value: impl Fn(bool, u64) -> T,
    start: impl Fn(usize, usize) -> T,
    step: impl Fn(T, T, T) -> T,
    finish: impl Fn(T) -> u64,
) -> Mat {
    let (n, k) = (b.rows, a.cols);
    let av: Vec<T> = a.v.iter().map(|&e| value(true, e)).collect();
    // B k-major: bt[kk·N + j].
    let bt: Vec<T> = (0..k * n).map(|x| value(false, b.get(x % n, x / n))).collect();
    let mut d = Mat::new(a.rows, n);
    for i in 0..a.rows {
        let mut acc: Vec<T> = (0..n).map(|j| start(i, j)).collect();
        for kk in 0..k {
            let p = av[i * k + kk];
            for (s, &q) in acc.iter_mut().zip(&bt[kk * n..(kk + 1) * n]) {
                *s = step(*s, p, q);
            }
        }
        for (j, s) in acc.into_iter().enumerate() {
            d.set(i, j, finish(s));
        }
    }
    d
}

/// Gathers A, B, C, multiplies each group, scatters D.
fn run_mma(op: &Mma, form: &dyn Fn() -> String, frags: [Frag; 4], a: &[Lanes], b: &[Lanes], c: &[Lanes]) -> Result<Vec<Lanes>, Unsupported> {
    let [fa, fb, fc, fd] = frags;
    check_regs(form, "A", &fa, a.len())?;
    check_regs(form, "B", &fb, b.len())?;
    check_regs(form, "C", &fc, c.len())?;
    let x = Arith { negate_a: false, negate_b: false, satfinite: op.satfinite, rnd: op.rnd, popc: op.popc };
    let (am, bm, cm) = (fa.gather(a), fb.gather(b), fc.gather(c));
    let d: Vec<Mat> = am.iter().zip(&bm).zip(&cm).map(|((a, b), c)| multiply(&op.types, a, b, Some(c), x)).collect();
    Ok(fd.scatter(&d))
}

/// `mma.sync.aligned.shape.alayout.blayout{.satfinite}.dtype.atype.btype.ctype d, a, b, c`:
/// `a`, `b`, `c` are the registers of the brace lists in order (`{a0..a3}` …); returns `{d…}`.
///
/// Forms: `m8n8k4` `.f16` (any layouts; `.f16`/`.f32` C and D) and `.f64`; `m16n8k4` `.tf32`,
/// `.f64`; `m16n8k8` `.f16`, `.bf16`, `.tf32`, `.f64`; `m16n8k16` `.f16`, `.bf16`, `.f64`,
/// `.s8/.u8`, `.e4m3/.e5m2`; `m16n8k32` `.s8/.u8`, `.e4m3/.e5m2`, `.s4/.u4`; `m8n8k16` `.s8/.u8`;
/// `m8n8k32` and `m16n8k64` `.s4/.u4`; `m8n8k128`, `m16n8k128`, `m16n8k256` `.b1` with
/// `.xor.popc`/`.and.popc`; all but `m8n8k4.f16` `.row.col` only.
pub fn mma(op: &Mma, a: &[Lanes], b: &[Lanes], c: &[Lanes]) -> Result<Vec<Lanes>, Unsupported> {
    let form = || op.name("mma");
    let t = &op.types;
    let inputs = match (op.shape, t.a, t.b) {
        ((8, 8, 4), Ty::F16, Ty::F16) => true,
        ((16, 8, 8) | (16, 8, 16), Ty::F16, Ty::F16) | ((16, 8, 8) | (16, 8, 16), Ty::Bf16, Ty::Bf16) => true,
        ((16, 8, 4) | (16, 8, 8), Ty::Tf32, Ty::Tf32) => true,
        ((8, 8, 4) | (16, 8, 4) | (16, 8, 8) | (16, 8, 16), Ty::F64, Ty::F64) => true,
        ((8, 8, 16) | (16, 8, 16) | (16, 8, 32), x, y) if is_int8(x) && is_int8(y) => true,
        ((16, 8, 16) | (16, 8, 32), x, y) if is_fp8(x) && is_fp8(y) => true,
        ((8, 8, 32) | (16, 8, 32) | (16, 8, 64), x, y) => is_int4(x) && is_int4(y),
        ((8, 8, 128) | (16, 8, 128) | (16, 8, 256), x, y) => x == Ty::B1 && y == Ty::B1,
        _ => false,
    };
    let layouts = (op.a_row && !op.b_row) || op.volta();
    if !layouts || !op.types_ok(inputs) {
        return Err(Unsupported(form()));
    }
    let frags = [op.mma_frag(Operand::A, t.a), op.mma_frag(Operand::B, t.b), op.mma_frag(Operand::C, t.c), op.mma_frag(Operand::C, t.d)];
    run_mma(op, &form, frags, a, b, c)
}

/// The `wmma` shapes and element types PTX defines (9.7.14.4.3 `wmma.load`): inputs of A and B,
/// accumulators of C and D.
fn wmma_type_ok(shape: (u16, u16, u16), which: Operand, ty: Ty) -> bool {
    let big = matches!(shape, (16, 16, 16) | (32, 8, 16) | (8, 32, 16));
    match which {
        Operand::A | Operand::B => {
            (big && matches!(ty, Ty::F16 | Ty::Bf16 | Ty::S8 | Ty::U8))
                || matches!((shape, ty), ((16, 16, 8), Ty::Tf32) | ((8, 8, 4), Ty::F64) | ((8, 8, 32), Ty::S4 | Ty::U4) | ((8, 8, 128), Ty::B1))
        }
        Operand::C => (big && matches!(ty, Ty::F16 | Ty::F32 | Ty::S32)) || matches!((shape, ty), ((16, 16, 8), Ty::F32) | ((8, 8, 4), Ty::F64) | ((8, 8, 32) | (8, 8, 128), Ty::S32)),
    }
}

/// `wmma.mma.sync.aligned.alayout.blayout.shape.dtype{.atype.btype}.ctype{.rnd}{.satfinite} d, a, b, c`
/// on fragments from [`wmma_load`]. Forms: `m16n16k16`/`m32n8k16`/`m8n32k16` with `.f16`
/// (`.f16`/`.f32` C and D), `.bf16` (`.f32`), `.s8/.u8` (`.s32`); `m16n16k8.tf32`; `m8n8k4.f64`;
/// `m8n8k32` `.s4/.u4` and `m8n8k128.b1` (`.xor.popc`/`.and.popc`), `.s32`.
/// The layouts do not change the fragments (the loads apply them).
pub fn wmma_mma(op: &Mma, a: &[Lanes], b: &[Lanes], c: &[Lanes]) -> Result<Vec<Lanes>, Unsupported> {
    let form = || op.name("wmma.mma");
    let t = &op.types;
    let inputs = wmma_type_ok(op.shape, Operand::A, t.a) && (t.a == t.b || is_int8(t.a) && is_int8(t.b) || is_int4(t.a) && is_int4(t.b));
    if !op.types_ok(inputs) || !wmma_type_ok(op.shape, Operand::C, t.c) {
        return Err(Unsupported(form()));
    }
    let frags = [wmma_frag(op.shape, Operand::A, t.a), wmma_frag(op.shape, Operand::B, t.b), wmma_frag(op.shape, Operand::C, t.c), wmma_frag(op.shape, Operand::C, t.d)];
    run_mma(op, &form, frags, a, b, c)
}

impl WmmaMem {
    fn name(&self, op: &str) -> String {
        format!("{op}.sync.aligned.{}.{}.{}", if self.row_major { "row" } else { "col" }, shape_name(self.shape), self.ty.name())
    }
    /// The PTX matrix's (row, col) of storage element (r, c), and the default leading dimension.
    fn logical(&self, f: &Frag, r: usize, c: usize) -> (u64, u64, u64) {
        let (row, col, rows, cols) = match self.operand {
            Operand::B => (c, r, f.cols, f.rows),
            _ => (r, c, f.rows, f.cols),
        };
        let ld = if self.row_major { cols } else { rows };
        (row as u64, col as u64, ld as u64)
    }
    /// Calls `access(lane, address, bit, r, c)` for every element of the fragment's first copy:
    /// the byte holding storage element (r, c) and the bit position of a sub-byte element in it
    /// (elements packed low to high). Stops at the first error.
    fn each_access<E>(&self, f: &Frag, base: &Lanes, stride: Option<&Lanes>, mut access: impl FnMut(usize, u64, u32, usize, usize) -> Result<(), E>) -> Result<(), E> {
        let mut out = Ok(());
        f.each(|lane, _, copy, r, c| {
            if copy == 0 && out.is_ok() {
                let (row, col, default_ld) = self.logical(f, r, c);
                let ld = stride.map_or(default_ld, |s| s[lane] & 0xFFFF_FFFF);
                let (major, minor) = if self.row_major { (row, col) } else { (col, row) };
                let bit = major.wrapping_mul(ld).wrapping_add(minor).wrapping_mul(f.bits as u64);
                out = access(lane, base[lane].wrapping_add(bit / 8), (bit % 8) as u32, r, c);
            }
        });
        out
    }
    fn check(&self, op: &str) -> Result<Frag, Unsupported> {
        // Sub-byte A and B exist only with K contiguous (`.row` A, `.col` B).
        let k_major = match self.operand {
            Operand::A => self.row_major,
            Operand::B => !self.row_major,
            Operand::C => true,
        };
        if !wmma_type_ok(self.shape, self.operand, self.ty) || (self.ty.bits() < 8 && !k_major) {
            return Err(Unsupported(self.name(op)));
        }
        Ok(wmma_frag(self.shape, self.operand, self.ty))
    }
}

/// `wmma.load.{a,b,c}.sync.aligned.layout.shape{.ss}.type r, [p]{, stride}`: each lane loads its
/// fragment elements from `base[lane] + (major·stride + minor)·size` (stride in elements, default
/// the matrix's row length for `.row`, column length for `.col`; sub-byte `.s4/.u4/.b1` elements
/// are packed low to high in memory and exist only as `.row` A and `.col` B). Returns the
/// fragment registers.
pub fn wmma_load<E>(op: &WmmaMem, base: &Lanes, stride: Option<&Lanes>, read: &mut Read<'_, E>) -> Result<Vec<Lanes>, TensorError<E>> {
    let f = op.check("wmma.load")?;
    let size = f.bits.div_ceil(8) as usize;
    let mut m = Mat::new(f.rows, f.cols);
    op.each_access(&f, base, stride, |lane, addr, shift, r, c| {
        let mut buf = [0u8; 8];
        read(lane, addr, &mut buf[..size])?;
        m.set(r, c, (u64::from_le_bytes(buf) >> shift) & f.mask());
        Ok(())
    })
    .map_err(TensorError::Memory)?;
    Ok(f.scatter(&[m]))
}

/// `wmma.store.d.sync.aligned.layout.shape{.ss}.type [p], r{, stride}`: the inverse of
/// [`wmma_load`] for an accumulator fragment (`op.operand` must be [`Operand::C`]).
pub fn wmma_store<E>(op: &WmmaMem, base: &Lanes, stride: Option<&Lanes>, d: &[Lanes], write: &mut Write<'_, E>) -> Result<(), TensorError<E>> {
    let f = op.check("wmma.store.d")?;
    let form = || op.name("wmma.store.d");
    if op.operand != Operand::C {
        return Err(Unsupported(format!("{}: only the accumulator is stored", form())).into());
    }
    check_regs(&form, "the source", &f, d.len())?;
    let m = f.gather(d);
    let size = (f.bits / 8) as usize;
    op.each_access(&f, base, stride, |lane, addr, _, r, c| write(lane, addr, &m[0].get(r, c).to_le_bytes()[..size])).map_err(TensorError::Memory)
}

// ------------------------------------------------------------------------------------------------
// wgmma.mma_async (PTX ISA 9.7.15).

/// A decoded shared-memory matrix descriptor (PTX ISA 9.7.15.5.1.2.2): bits 0–13 hold the start
/// address, 16–29 the leading-dimension byte offset (LBO), 32–45 the stride-dimension byte offset
/// (SBO), each shifted right by 4; 49–51 the base offset; 62–63 the swizzle (0 none, 1 128B,
/// 2 64B, 3 32B).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Desc {
    start: u64,
    lbo: u64,
    sbo: u64,
    base_offset: u64,
    /// Swizzle span in bytes (32, 64, 128), or 0 without swizzling.
    swizzle: u64,
}

impl Desc {
    fn decode(d: u64) -> Desc {
        let field = |at: u32| ((d >> at) & 0x3FFF) << 4;
        let swizzle = match d >> 62 {
            1 => 128,
            2 => 64,
            3 => 32,
            _ => 0,
        };
        Desc { start: field(0), lbo: field(16), sbo: field(32), base_offset: (d >> 49) & 7, swizzle }
    }

    /// Shared address of the 16-byte chunk holding element (mn, k) of a matrix with `t` elements
    /// per 16 bytes, per the canonical layouts of PTX ISA 9.7.15.5.1.2.1.3 (T = `t`, W = swizzle
    /// span in chunks):
    /// - K-major, none: `((8,m),(T,2k)):((1T,SBO),(1,LBO))`; swizzled: `((8,m),(T,2k)):((WT,SBO),(1,T))`
    /// - MN-major, none: `((T,1,m),(8,k)):((1,T,SBO),(1T,LBO))`; swizzled: `((T,W,m),(8,k)):((1,T,LBO),(WT,SBO))`
    ///
    /// then, if swizzled, address bits 4.. ^= bits 7.. masked to log2 W bits (`Swizzle<log2 W,4,3>`).
    fn chunk_addr(&self, mn_major: bool, t: usize, mn: usize, k: usize) -> u64 {
        let w = self.swizzle / 16;
        let off = match (mn_major, w) {
            (false, 0) => 16 * (mn % 8) as u64 + (mn / 8) as u64 * self.sbo + (k / t) as u64 * self.lbo,
            (false, _) => self.swizzle * (mn % 8) as u64 + (mn / 8) as u64 * self.sbo + 16 * (k / t) as u64,
            (true, 0) => (mn / t) as u64 * self.sbo + 16 * (k % 8) as u64 + (k / 8) as u64 * self.lbo,
            (true, _) => {
                let chunk = (mn / t) as u64;
                16 * (chunk % w) + chunk / w * self.lbo + self.swizzle * (k % 8) as u64 + (k / 8) as u64 * self.sbo
            }
        };
        let addr = self.start.wrapping_add(off);
        match w {
            0 => addr,
            _ => addr ^ (((addr >> 7) & (w - 1)) << 4),
        }
    }
}

/// Reads a `rows`×`cols` (MN × K) matrix of `ty` through a descriptor, 16 bytes at a time.
fn read_desc<E>(form: &dyn Fn() -> String, desc: u64, mn_major: bool, ty: Ty, rows: usize, cols: usize, read: &mut Read<'_, E>) -> Result<Mat, TensorError<E>> {
    let d = Desc::decode(desc);
    if d.base_offset != 0 && d.swizzle != 0 {
        return Err(Unsupported(format!("{}: matrix descriptor base offset {} (a swizzle pattern not starting at its {}-byte boundary)", form(), d.base_offset, d.swizzle * 8)).into());
    }
    let size = (ty.bits() / 8) as usize;
    let t = 16 / size;
    let mut m = Mat::new(rows, cols);
    // A chunk holds t consecutive k of one mn (K-major) or t consecutive mn of one k (MN-major).
    let (outer, inner) = if mn_major { (cols, rows / t) } else { (rows, cols / t) };
    let mut chunk = [0u8; 16];
    for o in 0..outer {
        for ch in 0..inner {
            let (mn, k) = if mn_major { (ch * t, o) } else { (o, ch * t) };
            read(0, d.chunk_addr(mn_major, t, mn, k), &mut chunk).map_err(TensorError::Memory)?;
            for e in 0..t {
                let mut b = [0u8; 8];
                b[..size].copy_from_slice(&chunk[e * size..(e + 1) * size]);
                let x = u64::from_le_bytes(b);
                if mn_major {
                    m.set(mn + e, k, x);
                } else {
                    m.set(mn, k + e, x);
                }
            }
        }
    }
    Ok(m)
}

impl Wgmma {
    /// The form of a decoded `wgmma.mma_async` (operands `d, a, b-desc, scale-d, imm…`), with the
    /// value of its `scale-d` operand (a predicate or an immediate, so the caller's to evaluate).
    /// The immediates that follow are read by type: `imm-scale-a, imm-scale-b` (±1) for
    /// floating-point inputs, then `imm-trans-a` (A from a descriptor) and `imm-trans-b` (0/1) for
    /// `.f16`/`.bf16`; none for integer inputs.
    pub fn from_inst(inst: &Inst, scale_d: bool) -> Result<Wgmma, Unsupported> {
        let m = &inst.m;
        let what = || Unsupported(format!("wgmma.mma_async {m:?} with operands {:?}", inst.ops));
        let (dtype, atype, btype) = match *m.types.as_slice() {
            [d, a, b] => (d, a, b),
            _ => return Err(what()),
        };
        let a_desc = !matches!(inst.ops.get(1), Some(Opnd::Vec(_)));
        let imms: Vec<u64> = inst.ops.iter().skip(4).map(|o| if let Opnd::Imm(v) = o { Ok(*v) } else { Err(what()) }).collect::<Result<_, _>>()?;
        let n = match (atype.bits(), is_int8(atype)) {
            (_, true) => 0,
            (16, _) if a_desc => 4,
            (16, _) => 3,
            _ => 2,
        };
        if imms.len() != n {
            return Err(what());
        }
        let neg = |v: u64| match v {
            1 => Ok(false),
            u64::MAX => Ok(true),
            _ => Err(what()),
        };
        let bit = |v: u64| match v {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(what()),
        };
        Ok(Wgmma {
            shape: m.shape.ok_or_else(what)?,
            dtype,
            atype,
            btype,
            satfinite: m.has(flag::SATFINITE),
            scale_d,
            negate_a: imms.first().map_or(Ok(false), |&v| neg(v))?,
            negate_b: imms.get(1).map_or(Ok(false), |&v| neg(v))?,
            trans_a: if n == 4 { bit(imms[2])? } else { false },
            trans_b: if n >= 3 { bit(imms[n - 1])? } else { false },
        })
    }
    fn name(&self) -> String {
        format!("wgmma.mma_async.sync.aligned.{}{}{}", shape_name(self.shape), dotted(&[self.dtype, self.atype, self.btype]), if self.satfinite { ".satfinite" } else { "" })
    }
    /// The forms of PTX ISA 9.7.15.5.1.1 / "Matrix Shape": M = 64; N a multiple of 8 up to 256
    /// (integer: 8, 16, 24, then multiples of 16); transposes for 16-bit inputs only.
    fn valid(&self) -> bool {
        let (m, n, k) = self.shape;
        let (a, b, d) = (self.atype, self.btype, self.dtype);
        let int = is_int8(a) && is_int8(b);
        let types = match k {
            16 => (a, b) == (Ty::F16, Ty::F16) && is_f16_f32(d) || (a, b, d) == (Ty::Bf16, Ty::Bf16, Ty::F32),
            8 => (a, b, d) == (Ty::Tf32, Ty::Tf32, Ty::F32),
            32 => is_fp8(a) && is_fp8(b) && is_f16_f32(d) || int && d == Ty::S32,
            _ => false,
        };
        let n_ok = (8..=256).contains(&n) && n % 8 == 0 && (!int || n <= 24 || n % 16 == 0);
        let trans_ok = k == 16 || !(self.trans_a || self.trans_b);
        m == 64 && types && n_ok && trans_ok && (int || !self.satfinite)
    }
}

/// `wgmma.mma_async.sync.aligned.m64nNkK.dtype.atype.btype d, {a-desc | a}, b-desc, scale-d,
/// imm-scale-a, imm-scale-b{, imm-trans-a}{, imm-trans-b}` for the warps `warps` of the
/// warpgroup (`0..4`: the whole group, once its four warps have arrived). `d[i][w]` is
/// accumulator register `i` of warp `w` of the group (N/2 registers for `.f32`/`.s32`, N/4 for
/// `.f16`), updated in place for the warps in `warps` (the rows of D they hold, from their rows
/// of A); on an error it is unchanged. Shared memory is read 16 bytes at a time through `read`
/// (lane argument 0), all 64 rows of an A descriptor included.
///
/// Forms: `k16` `.f16` (`.f16`/`.f32` D) and `.bf16` (`.f32`); `k8.tf32`; `k32` `.e4m3/.e5m2`
/// (`.f16`/`.f32`) and `.s8/.u8` (`.s32`, optionally `.satfinite`, which only integer forms take).
pub fn wgmma<E>(
    op: &Wgmma,
    a: WgmmaA<'_>,
    b_desc: u64,
    d: &mut [[Lanes; 4]],
    warps: std::ops::Range<usize>,
    read: &mut Read<'_, E>,
) -> Result<(), TensorError<E>> {
    let form = || op.name();
    if !op.valid() {
        return Err(Unsupported(form()).into());
    }
    let (n, k) = (op.shape.1 as usize, op.shape.2 as usize);
    let types = MmaTypes { d: op.dtype, a: op.atype, b: op.btype, c: op.dtype };
    let fd = Frag::tiles(16, n, op.dtype.bits(), 2, 1);
    let fa = Frag::tiles(16, k, op.atype.bits(), pack(op.atype.bits()), 1);
    check_regs(&form, "D", &fd, d.len())?;
    // The rows of `warps` of a per-warp fragment: warp w holds rows 16w..16w+15.
    let stack = |f: &Frag, regs: &[[Lanes; 4]]| Mat::stack(&warps.clone().flat_map(|w| f.gather_by(|r, lane| regs[r][w][lane])).collect::<Vec<_>>());
    let am = match a {
        WgmmaA::Desc(desc) => read_desc(&form, desc, op.trans_a, op.atype, 64, k, read)?.rows(16 * warps.start, 16 * warps.len()),
        WgmmaA::Regs(regs) => {
            check_regs(&form, "A", &fa, regs.len())?;
            stack(&fa, regs)
        }
    };
    let bm = read_desc(&form, b_desc, op.trans_b, op.btype, n, k, read)?;
    let cm = op.scale_d.then(|| stack(&fd, d));
    let x = Arith { negate_a: op.negate_a, negate_b: op.negate_b, satfinite: op.satfinite, rnd: Rounding::Rn, popc: None };
    let dm = multiply(&types, &am, &bm, cm.as_ref(), x);
    for (row, w) in warps.enumerate() {
        for (i, reg) in fd.scatter(&[dm.rows(16 * row, 16)]).into_iter().enumerate() {
            d[i][w] = reg;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
