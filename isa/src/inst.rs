//! Decoded instructions: what the simulator executes.
//!
//! An [`Inst`] is an opcode ([`Op`], with the family-specific verb folded in), its decoded
//! modifiers ([`Mods`]) and its operands in PTX order ([`Opnd`], registers as dense indices,
//! symbols and labels resolved). Which leading operands are destinations is fixed per opcode and
//! recorded in `ndst`, so the timing model's scoreboard reads `defs`/`uses` without knowing PTX.

use crate::ast::Space;
use crate::lexer::Pos;
use crate::types::*;
use serde::Serialize;

/// Atomic / reduction operations (`atom`, `red`, `redux`, `cp.reduce.async.bulk`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum AtomOp {
    Add,
    Min,
    Max,
    Inc,
    Dec,
    And,
    Or,
    Xor,
    Exch,
    Cas,
    /// SASS `ATOMS.CAST.SPIN`: `cas` that returns 1 when it stored and 0 when it did not,
    /// rather than the old value (ptxas's loop for a shared-memory atomic it has no unit for).
    CasFlag,
}

impl AtomOp {
    /// What the destination of an atomic receives, given the old memory value and the compare
    /// operand `b`: the old value, or `CasFlag`'s success.
    pub fn returned(self, ty: Ty, old: u64, b: u64) -> u64 {
        match self {
            AtomOp::CasFlag => (old & ty.mask() == b & ty.mask()) as u64,
            _ => old,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum ShflMode {
    Up,
    Down,
    Bfly,
    Idx,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum VoteMode {
    All,
    Any,
    Uni,
    Ballot,
}

/// `bar`/`barrier` CTA barriers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum BarOp {
    Sync,
    Arrive,
    /// `bar.red.popc.u32` / `.and.pred` / `.or.pred`.
    RedPopc,
    RedAnd,
    RedOr,
}

/// `barrier.cluster.arrive` / `.wait`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum ClusterBarOp {
    Arrive,
    Wait,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum MbarOp {
    Init,
    Arrive,
    ArriveDrop,
    ExpectTx,
    CompleteTx,
    TestWait,
    TryWait,
    PendingCount,
    Inval,
}

/// The `cp.async.bulk` family (Hopper's TMA) and Ampere `cp.async`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum CpOp {
    /// Ampere `cp.async.{ca,cg}.shared.global [dst], [src], size{, src_size}`.
    Async,
    AsyncCommit,
    /// `cp.async.wait_group N` (operand 0) / `wait_all` (no operand).
    AsyncWaitGroup,
    AsyncWaitAll,
    /// `cp.async.mbarrier.arrive{.noinc}.b64 [mbar]`.
    AsyncMbarArrive,
    /// `cp.async.bulk.<dst>.<src>…` non-tensor bulk copy.
    Bulk,
    /// `cp.async.bulk.tensor.Nd.<dst>.<src>…` (dims in `Mods::dims`).
    BulkTensor,
    /// `cp.async.bulk.prefetch.L2.global` and `.tensor` prefetch.
    BulkPrefetch,
    BulkPrefetchTensor,
    BulkCommit,
    /// `cp.async.bulk.wait_group{.read} N`.
    BulkWait,
    /// `cp.reduce.async.bulk{.tensor}`.
    ReduceBulk,
    ReduceBulkTensor,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum MatrixOp {
    /// `wmma.load.{a,b,c}`: fragment letter in `Mods::frag`.
    WmmaLoad,
    WmmaStore,
    WmmaMma,
    /// `mma.sync.aligned.mMnNkK…`
    Mma,
    Ldmatrix,
    Stmatrix,
    Movmatrix,
    WgmmaFence,
    WgmmaCommit,
    WgmmaWait,
    WgmmaMma,
}

/// SIMD video instructions (`vabsdiff4`, `vadd2`, …; scalar `vadd` forms have one lane).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum VideoOp {
    Add,
    Sub,
    Absdiff,
    Min,
    Max,
    Avrg,
}

/// An opcode with its family verb.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum Op {
    // Integer and bit ALU.
    Add,
    Sub,
    Mul,
    Mad,
    Mul24,
    Mad24,
    Sad,
    Div,
    Rem,
    Abs,
    Neg,
    Min,
    Max,
    Popc,
    Clz,
    Bfind,
    Brev,
    Bfe,
    Bfi,
    Fns,
    Prmt,
    Lop3,
    And,
    Or,
    Xor,
    Not,
    Cnot,
    Shl,
    Shr,
    Shf,
    Dp4a,
    Dp2a,
    Addc,
    Subc,
    Madc,
    Bmsk,
    Szext,
    // Floating point.
    Fma,
    Rcp,
    Sqrt,
    Rsqrt,
    Sin,
    Cos,
    Lg2,
    Ex2,
    Tanh,
    Copysign,
    Testp,
    // Comparison, selection, conversion, moves.
    Setp,
    Set,
    Selp,
    Slct,
    Cvt,
    CvtPack,
    Cvta,
    Mov,
    // Memory.
    Ld,
    Ldu,
    St,
    Atom(AtomOp),
    Red(AtomOp),
    Prefetch,
    Isspacep,
    Mapa,
    Getctarank,
    Alloca,
    Stacksave,
    Stackrestore,
    // Control.
    Bra,
    BrxIdx,
    Call,
    Ret,
    Exit,
    Trap,
    Brkpt,
    Nanosleep,
    Pmevent,
    // Synchronization and warp-level.
    Bar(BarOp),
    BarWarpSync,
    BarrierCluster(ClusterBarOp),
    Membar,
    Fence,
    Shfl(ShflMode),
    Vote(VoteMode),
    /// `match.any.sync` (false) / `match.all.sync` (true).
    Match(bool),
    Redux(AtomOp),
    Activemask,
    Elect,
    Mbarrier(MbarOp),
    Cp(CpOp),
    Matrix(MatrixOp),
    Setmaxnreg,
    Griddepcontrol,
    /// `tensormap.replace`, `prefetch.tensormap` folds into `Prefetch` with space `Param/Const`.
    Tensormap,
    /// `createpolicy`: makes an L2 cache-policy value for `.L2::cache_hint` operands.
    Createpolicy,
    /// Texture and surface instructions: parsed, not executed.
    Texture,
    /// `vabsdiff4` and the other SIMD video instructions (`m.num` lanes).
    Video(VideoOp),
    /// A machine (SASS) operation PTX has no instruction for ([`crate::machine`]): lowered
    /// SASS programs only.
    Machine(crate::machine::MachineOp),
    /// Does nothing (SASS `NOP`, and the convergence-barrier bookkeeping `BSSY`/`BSYNC`, which
    /// the SIMT stack's post-dominator reconvergence makes redundant).
    Nop,
}

/// Instruction classes used for statistics (`warpsim ptx stats`) and as the default mapping to
/// functional units in the timing model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Class {
    IntArith,
    IntMul,
    IntDiv,
    Logic,
    Fp32,
    Fp64,
    Fp16,
    Sfu,
    Conv,
    Move,
    LoadGlobal,
    StoreGlobal,
    LoadShared,
    StoreShared,
    LocalMem,
    ConstParam,
    Atomic,
    Control,
    Barrier,
    Warp,
    Async,
    Tensor,
    Misc,
}

impl Class {
    pub fn name(self) -> &'static str {
        match self {
            Class::IntArith => "int-arith",
            Class::IntMul => "int-mul",
            Class::IntDiv => "int-div",
            Class::Logic => "logic",
            Class::Fp32 => "fp32",
            Class::Fp64 => "fp64",
            Class::Fp16 => "fp16",
            Class::Sfu => "sfu",
            Class::Conv => "conversion",
            Class::Move => "move",
            Class::LoadGlobal => "load-global",
            Class::StoreGlobal => "store-global",
            Class::LoadShared => "load-shared",
            Class::StoreShared => "store-shared",
            Class::LocalMem => "local-memory",
            Class::ConstParam => "const-param",
            Class::Atomic => "atomic",
            Class::Control => "control",
            Class::Barrier => "barrier",
            Class::Warp => "warp",
            Class::Async => "async-copy",
            Class::Tensor => "tensor",
            Class::Misc => "misc",
        }
    }
}

/// Boolean modifiers.
pub mod flag {
    pub const FTZ: u64 = 1 << 0;
    pub const SAT: u64 = 1 << 1;
    pub const APPROX: u64 = 1 << 2;
    pub const FULL: u64 = 1 << 3;
    pub const CC: u64 = 1 << 4;
    pub const NAN: u64 = 1 << 5;
    pub const XORSIGN: u64 = 1 << 6;
    pub const ABS: u64 = 1 << 7;
    pub const RELU: u64 = 1 << 8;
    pub const SATFINITE: u64 = 1 << 9;
    pub const UNI: u64 = 1 << 10;
    pub const SYNC: u64 = 1 << 11;
    pub const ALIGNED: u64 = 1 << 12;
    pub const HI: u64 = 1 << 13;
    pub const LO: u64 = 1 << 14;
    pub const WIDE: u64 = 1 << 15;
    /// `bfe/bfind .shiftamt`, `shf .wrap` / `.clamp`.
    pub const SHIFTAMT: u64 = 1 << 16;
    pub const WRAP: u64 = 1 << 17;
    pub const CLAMP: u64 = 1 << 18;
    /// `.to` (cvta.to.global / isspacep).
    pub const TO: u64 = 1 << 19;
    pub const PARITY: u64 = 1 << 20;
    pub const EXPECT_TX: u64 = 1 << 21;
    pub const NOINC: u64 = 1 << 22;
    pub const MULTICAST: u64 = 1 << 23;
    /// `.read` of `cp.async.bulk.wait_group.read`.
    pub const READ: u64 = 1 << 24;
    pub const TRANS: u64 = 1 << 25;
    pub const NOFTZ: u64 = 1 << 26;
    /// `.L2::cache_hint` (an extra 64-bit cache-policy operand).
    pub const CACHE_HINT: u64 = 1 << 27;
    /// `.shared::cluster` destination of a bulk copy, `mbarrier … .shared::cluster` addresses.
    pub const CLUSTER: u64 = 1 << 28;
    /// `.left` / `.right` of `shf`.
    pub const LEFT: u64 = 1 << 29;
    /// `.noreturn` hint of `call`.
    pub const NORETURN: u64 = 1 << 30;
    /// `.mmio`, `.volatile` memory accesses.
    pub const VOLATILE: u64 = 1 << 31;
    /// `.im2col` tensor mode.
    pub const IM2COL: u64 = 1 << 32;
    /// `.ignore-src` / `.src_size` style optional operand present (`cp.async`).
    pub const SRC_SIZE: u64 = 1 << 33;
    /// `.bulk_group` completion mechanism.
    pub const BULK_GROUP: u64 = 1 << 34;
    /// `.mbarrier::complete_tx::bytes` completion mechanism.
    pub const MBAR_TX: u64 = 1 << 35;
    /// `.proxy` fences (`fence.proxy.async`, `.proxy.tensormap`).
    pub const PROXY: u64 = 1 << 36;
    /// `.sync` flavour of `bar.warp` etc. is `SYNC`; `.all`/`.any` of `wgmma.fence` unused.
    pub const ARRIVE_DROP: u64 = 1 << 37;
    pub const SPLIT: u64 = 1 << 38;
    pub const SCALE_D: u64 = 1 << 39;
    pub const OOB_NAN: u64 = 1 << 40;
    pub const NOCOMPLETE: u64 = 1 << 41;
    /// `st.async` / `red.async` (completion through an mbarrier).
    pub const ASYNC: u64 = 1 << 42;
    /// `.popc` accumulation of single-bit `mma`/`wmma`.
    pub const POPC: u64 = 1 << 43;
    /// `.add` secondary operation of video instructions.
    pub const VIDEO_ADD: u64 = 1 << 44;
    /// SASS `BRA.U.ANY`: every active lane takes the branch when any lane's guard holds.
    pub const ANY: u64 = 1 << 45;
    /// SASS operand encodings of an mbarrier instruction: `SYNCS.EXCH.64`'s operand is the
    /// hardware's init word (low word: (2^20 − count) << 1), a phase check's parity is bit 31.
    /// On `wgmma.mma_async` (SASS `HGMMA`): the descriptors' start addresses are the hardware's
    /// shared addresses, 1 KiB (the CTA window's reserved bytes on sm_90) above the simulator's.
    /// On a multicast tensor copy (SASS `UTMALDG.MULTICAST`): the CTA mask is the operand's high
    /// 16 bits.
    pub const MACHINE_FORM: u64 = 1 << 46;
    /// SASS `R2UR`: a uniform register is one per warp, so the first executing lane's value is
    /// written to every lane.
    pub const BROADCAST: u64 = 1 << 47;
    /// SASS `HGMMA … gsb0`: the MMA that closes its warpgroup group, committing it as PTX's
    /// separate `wgmma.commit_group` does (SASS has no commit instruction).
    pub const COMMIT: u64 = 1 << 48;
    /// SASS `CALL.REL` (a `bra` into a subroutine of the kernel's code) and `RET.REL` (a
    /// `brx.idx` back to a return point): for reconvergence a call returns to the next
    /// instruction and a return leaves the code as `ret` does, so a branch around a call
    /// reconverges where ptxas's `BSYNC` says, not past every other call's return point.
    pub const SUBROUTINE: u64 = 1 << 49;
    /// `fence.mbarrier_init` (orders only mbarrier initialisation, ptxas emits no `MEMBAR`).
    pub const MBAR_INIT: u64 = 1 << 50;
    /// SASS `HFMA2.MMA d, -RZ, RZ, a, b`: ptxas's constant move, lowered to a move but executed
    /// as a half-precision FMA (ncu counts it under `op_hfma`).
    pub const FMA_MOVE: u64 = 1 << 51;
}

/// Decoded modifiers. Fields not used by an opcode stay at their defaults.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Mods {
    /// Type modifiers in written order (`cvt.f32.s32` → [F32, S32]; `mma … .f32.f16.f16.f32`).
    pub types: Vec<Ty>,
    pub rnd: Option<Rnd>,
    pub flags: u64,
    pub cmp: Option<Cmp>,
    pub bool_op: Option<BoolOp>,
    /// State space(s) in written order (`ld.shared`, `cvta.to.global`, `cp.async.bulk.shared::cluster.global`).
    pub spaces: Vec<Space>,
    pub cache: Option<CacheOp>,
    /// Vector width of `ld/st/atom` (`.v2`, `.v4`, `.v8`), 1 for scalars.
    pub vec: u8,
    pub sem: Option<Sem>,
    pub scope: Option<Scope>,
    /// `mMnNkK` of `mma`/`wmma`/`wgmma`, `m8n8` of `ldmatrix`.
    pub shape: Option<(u16, u16, u16)>,
    /// Row/col layouts of A and B (`true` = row).
    pub layout: Option<(bool, bool)>,
    /// `ldmatrix .x1/.x2/.x4`, tensor copy dimensionality, wgmma/cp.async group counts.
    pub num: u8,
    /// `wmma.load.a/b/c` fragment.
    pub frag: Option<char>,
    /// Source-operand modifiers of machine (SASS) instructions, bit i = source i: `-R` (integer
    /// negation or a float's sign flipped), `~R` (bitwise complement), `|R|` (float absolute
    /// value). PTX has none (always 0). Applied by [`crate::eval::eval`] before the operation;
    /// `IADD3`'s carries see a negated source as `~x + 1`.
    pub neg: u8,
    pub not: u8,
    pub abs: u8,
}

impl Mods {
    pub fn has(&self, f: u64) -> bool {
        self.flags & f != 0
    }
    /// The first (instruction) type; `B32` when absent (opcodes that take none).
    pub fn ty(&self) -> Ty {
        self.types.first().copied().unwrap_or(Ty::B32)
    }
    /// The second type (source type of `cvt`, comparison type of `set`).
    pub fn ty2(&self) -> Ty {
        self.types.get(1).copied().unwrap_or_else(|| self.ty())
    }
    pub fn space(&self) -> Space {
        self.spaces.first().copied().unwrap_or(Space::Generic)
    }
}

/// Where an address operand's base comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Base {
    /// An absolute address.
    None,
    Reg(u32),
    Sym(u32),
    /// A 64-bit address in two 32-bit registers (low, high): SASS `[R2.64]`.
    Pair(u32, u32),
    /// The 32-bit sum of two registers: SASS `[R2+UR4]`.
    Sum(u32, u32),
    /// The 64-bit sum of two register pairs: Turing to Ada's `[R2.64+UR4]` (a 64-bit address
    /// plus a 64-bit uniform base, each a (low, high) pair).
    PairSum(u32, u32, u32, u32),
    /// A 32-bit register shifted left: SASS `[R0.X4]` (Turing to Ada scale an index by 4, 8
    /// or 16 in the address).
    Scaled(u32, u8),
    /// A symbol's address plus a 32-bit register: SASS `c[0x2][R5]`, an indexed read of a
    /// constant bank the lowering places as one variable.
    SymIndex(u32, u32),
}

impl Base {
    /// The registers the base reads.
    pub fn regs(&self, out: &mut Vec<u32>) {
        match *self {
            Base::Reg(r) => out.push(r),
            Base::Pair(a, b) | Base::Sum(a, b) => out.extend([a, b]),
            Base::Scaled(r, _) | Base::SymIndex(_, r) => out.push(r),
            Base::PairSum(a, b, c, d) => out.extend([a, b, c, d]),
            Base::None | Base::Sym(_) => {}
        }
    }

    /// The base's value from its registers (`reg` reads one), or `None` for a symbol's, which
    /// only the simulator knows.
    #[inline]
    pub fn value(&self, reg: impl Fn(u32) -> u64) -> Option<u64> {
        Some(match *self {
            Base::None => 0,
            Base::Reg(r) => reg(r),
            Base::Pair(lo, hi) => (reg(hi) << 32) | (reg(lo) & 0xFFFF_FFFF),
            Base::Sum(a, b) => reg(a).wrapping_add(reg(b)) & 0xFFFF_FFFF,
            Base::Scaled(r, shift) => (reg(r) << shift) & 0xFFFF_FFFF,
            Base::PairSum(a, b, c, d) => ((reg(b) << 32) | (reg(a) & 0xFFFF_FFFF)).wrapping_add((reg(d) << 32) | (reg(c) & 0xFFFF_FFFF)),
            Base::Sym(_) | Base::SymIndex(..) => return None,
        })
    }
}

/// An operand with names resolved.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum Opnd {
    Reg(u32),
    /// A predicate source negated with `!`.
    NotReg(u32),
    /// A 64-bit value in two 32-bit registers (low, high): SASS `R2` of an `IMAD.WIDE` (its
    /// destination and its addend are the pair R2:R3). Written as two halves.
    Pair(u32, u32),
    /// The 32-bit word at this byte offset of the parameter buffer: a SASS `c[0x0][off]` source
    /// (a lowered SASS program lays its parameter buffer out as constant bank 0).
    Param(u32),
    /// The 64-bit word there: a 64-bit `c[0x0][off]` source (sm_75–89's `IMAD.WIDE` addend).
    Param64(u32),
    /// An immediate, as raw bits of the instruction's operand type (floats converted).
    Imm(u64),
    Special(SReg),
    /// The address of a symbol plus a byte offset (`mov.u64 %rd, sym;`, `sym+8`).
    SymAddr(u32, i64),
    Addr {
        base: Base,
        offset: i64,
    },
    /// `[tmap, {c0, c1, …}]`: a tensor-map address and coordinates.
    Tensor {
        base: Base,
        coords: Vec<Opnd>,
    },
    Vec(Vec<Opnd>),
    /// An instruction index (branch target), resolved after lowering.
    Label(u32),
    /// A `.branchtargets` table index into `Program::tables`.
    Table(u32),
    /// A function index into `Program::funcs`.
    Func(u32),
    /// Call argument / return lists (`.param` symbols or registers).
    List(Vec<Opnd>),
    Sink,
}

impl Opnd {
    /// Registers this operand reads when used as a source (address bases included).
    pub fn regs(&self, out: &mut Vec<u32>) {
        match self {
            Opnd::Reg(r) | Opnd::NotReg(r) => out.push(*r),
            Opnd::Pair(a, b) => out.extend([*a, *b]),
            Opnd::Addr { base, .. } => base.regs(out),
            Opnd::Tensor { base, coords } => {
                base.regs(out);
                coords.iter().for_each(|c| c.regs(out));
            }
            Opnd::Vec(v) | Opnd::List(v) => v.iter().for_each(|c| c.regs(out)),
            _ => {}
        }
    }
}

/// A guard predicate: register and negation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Guard {
    pub reg: u32,
    pub neg: bool,
}

/// Where an instruction came from: its PTX position and the `.loc` source line in effect.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct SrcLoc {
    pub ptx: Pos,
    /// (file number, line, column) from the latest `.loc`, if any.
    pub file: u32,
    pub line: u32,
    pub col: u32,
}

/// One decoded instruction.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Inst {
    pub op: Op,
    pub m: Mods,
    pub guard: Option<Guard>,
    /// Operands in PTX order; the first `ndst` are written.
    pub ops: Vec<Opnd>,
    pub ndst: u8,
    pub class: Class,
    pub loc: SrcLoc,
    /// Registers written (destinations, flattened) and read (sources, address bases, guard).
    pub defs: Vec<u32>,
    pub uses: Vec<u32>,
}

impl Inst {
    pub fn dst(&self) -> &[Opnd] {
        &self.ops[..self.ndst as usize]
    }
    pub fn src(&self) -> &[Opnd] {
        &self.ops[self.ndst as usize..]
    }
}
