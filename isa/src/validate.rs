//! Semantic checks of PTX beyond its grammar: the operands each opcode takes, and the targets and
//! ISA versions that exist.
//!
//! The parser accepts any list of operands after any opcode, and lowering used to take what it
//! was given: `add.f32 %f3, %f2;` lowered and ran with a missing source, `ld.global.f32 %f1, %rd8;`
//! read through a register that is not an address. Here every opcode whose operand list is fixed
//! has a shape — how many operands, and of each position whether it is a destination (a register,
//! a vector of registers, or `_`), a value (a register, an immediate, a special register or a
//! symbol's address), an address in brackets, or a branch target — and an instruction that does
//! not fit is an error at the offending operand (or the instruction) naming its text.
//!
//! Families whose operands depend on their modifiers have their own rules ([`forms`]): the
//! fragment registers of `wmma.load/store/mma`, `mma.sync` and `wgmma.mma_async` (how many, by
//! shape, fragment and element type, per the PTX ISA's fragment tables: a fragment of R×C elements
//! spreads R·C/32 over the lanes of a warp, packed 32/bits to a register, except Volta's
//! `mma.m8n8k4.f16` and `wmma`'s `.f16` A and B, eight registers at every shape; `wgmma`'s D takes
//! N/2 registers, N/4 for `.f16`, and A in registers four), `ldmatrix/stmatrix` (one register per
//! matrix, two per `m16n16` one), the operands of `cp.async`, `cp.async.bulk{.tensor}`,
//! `cp.reduce.async.bulk{.tensor}` by destination space (an mbarrier address when the destination
//! is shared memory; as many tensor coordinates as the `.Nd`; a copy size of 4, 8 or 16 for
//! `cp.async`), and of `call` (parameter lists whose lengths match the callee's declaration). Forms
//! the simulator does not execute (sparse `mma.sp`, block-scaled shapes) are left to the executor,
//! which names them. Texture and barrier instructions keep the checks their decoders make.
//! `.target` words must be PTX targets (`sm_10` … `sm_121f`, `debug`, `texmode_*`,
//! `map_f64_to_f32`) and `.version` an existing PTX ISA version.

use crate::ast::{self, OperandKind};
use crate::decode::op_name;
use crate::error::PtxError;
use crate::ast::Space;
use crate::inst::{CpOp, MatrixOp, MbarOp, Mods, Op, Opnd};
use crate::types::Ty;
use crate::lexer::Pos;

/// What an operand position takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum K {
    /// A destination: a register, a vector of registers, `_` or a `%r|%p` pair.
    D,
    /// A source value: a register (`!%p` too), an immediate, a special register, a symbol address.
    V,
    /// An address in brackets.
    A,
    /// A branch target label.
    L,
    /// Anything a source may be (moves and stores take vectors as well).
    X,
    /// A value or an address (`st.async`'s mbarrier, or a cache policy).
    Y,
}

use K::*;

/// The operand kinds of `op` by position, and how many of them are required (the rest are
/// optional); `None` for opcodes checked elsewhere.
fn shape(op: Op) -> Option<(&'static [K], usize)> {
    Some(match op {
        Op::Abs | Op::Neg | Op::Not | Op::Cnot | Op::Popc | Op::Clz | Op::Bfind | Op::Brev | Op::Rcp | Op::Sqrt | Op::Rsqrt
        | Op::Sin | Op::Cos | Op::Lg2 | Op::Ex2 | Op::Tanh | Op::Testp | Op::Cvta | Op::Isspacep | Op::Getctarank
        | Op::Elect => (&[D, V], 2),
        Op::Add | Op::Sub | Op::Mul | Op::Div | Op::Rem | Op::And | Op::Or | Op::Xor | Op::Shl | Op::Shr | Op::Mul24
        | Op::Addc | Op::Subc | Op::Copysign | Op::Bmsk | Op::Szext | Op::Mapa | Op::Redux(_) | Op::Match(_) => (&[D, V, V], 3),
        // Three-input forms (`max.s32 d, a, b, c`), and comparisons combined with a predicate.
        Op::Min | Op::Max | Op::Setp | Op::Set => (&[D, V, V, V], 3),
        Op::Mad | Op::Mad24 | Op::Sad | Op::Fma | Op::Selp | Op::Bfe | Op::Prmt | Op::Dp4a | Op::Dp2a | Op::Madc | Op::Shf
        | Op::Slct => (&[D, V, V, V], 4),
        Op::Bfi | Op::Lop3 => (&[D, V, V, V, V], 5),
        // Two sources pack (`cvt.rn.f16x2.f32 d, a, b`), a third is random bits (`.rs`).
        Op::Cvt => (&[D, V, V, V], 2),
        Op::Mov => (&[D, X], 2),
        Op::Activemask => (&[D], 1),
        // The optional last operand is an `.L2::cache_hint` policy.
        Op::Ld | Op::Ldu => (&[D, A, V], 2),
        Op::St => (&[A, X, Y], 2),
        // `cas` takes two values, and any may add a cache policy.
        Op::Atom(_) => (&[D, A, X, X, V], 3),
        // `red.async` ends with its mbarrier's address.
        Op::Red(_) => (&[A, X, Y], 2),
        // `discard` and `applypriority` add a size.
        Op::Prefetch => (&[A, V], 1),
        Op::Bra => (&[L], 1),
        Op::Ret | Op::Exit | Op::Trap | Op::Brkpt => (&[], 0),
        Op::Nanosleep => (&[V], 1),
        // The legacy form has no member mask.
        Op::Shfl(_) => (&[D, V, V, V, V], 4),
        Op::Vote(_) => (&[D, V, V], 2),
        Op::Mbarrier(m) => match m {
            MbarOp::Init | MbarOp::ExpectTx | MbarOp::CompleteTx => (&[A, V], 2),
            MbarOp::Inval => (&[A], 1),
            MbarOp::Arrive | MbarOp::ArriveDrop => (&[D, A, V], 2),
            // The optional last operand of `try_wait` is a suspend-time hint.
            MbarOp::TestWait | MbarOp::TryWait => (&[D, A, V, V], 3),
            MbarOp::PendingCount => (&[D, V], 2),
        },
        _ => return None,
    })
}

/// Whether a lowered operand is of kind `k`.
fn fits(k: K, o: &Opnd) -> bool {
    let value = |o: &Opnd| matches!(o, Opnd::Reg(_) | Opnd::NotReg(_) | Opnd::Imm(_) | Opnd::Special(_) | Opnd::SymAddr(..) | Opnd::Func(_));
    match k {
        D => match o {
            Opnd::Reg(_) | Opnd::Sink => true,
            Opnd::Vec(v) => v.iter().all(|x| matches!(x, Opnd::Reg(_) | Opnd::Sink)),
            _ => false,
        },
        V => value(o),
        A => matches!(o, Opnd::Addr { .. }),
        L => matches!(o, Opnd::Label(_)),
        X => value(o) || matches!(o, Opnd::Vec(v) if v.iter().all(value)),
        Y => value(o) || matches!(o, Opnd::Addr { .. }),
    }
}

fn describe(k: K) -> &'static str {
    match k {
        D => "a destination register",
        V => "a register or an immediate",
        A => "an address in brackets",
        L => "a label",
        X => "a register, an immediate or a vector",
        Y => "a register, an immediate or an address",
    }
}

/// The source text of an operand (reconstructed: spacing normalized, floats by value).
pub(crate) fn text(o: &ast::Operand) -> String {
    match &o.kind {
        OperandKind::Name(n, Some(c)) => format!("{n}.{c}"),
        OperandKind::Name(n, None) => n.clone(),
        OperandKind::Not(n) => format!("!{n}"),
        OperandKind::Pair(a, b) => format!("{a}|{b}"),
        OperandKind::Int(v) => v.to_string(),
        OperandKind::F32(b) => f32::from_bits(*b).to_string(),
        OperandKind::F64(b) => f64::from_bits(*b).to_string(),
        OperandKind::Addr { base, offset, coords } => {
            let mut s = base.clone().unwrap_or_default();
            if *offset != 0 || base.is_none() {
                s += &if base.is_some() { format!("{offset:+}") } else { offset.to_string() };
            }
            if let Some(cs) = coords {
                s += &format!(", {{{}}}", cs.iter().map(text).collect::<Vec<_>>().join(", "));
            }
            format!("[{s}]")
        }
        OperandKind::Vector(v) => format!("{{{}}}", v.iter().map(text).collect::<Vec<_>>().join(", ")),
        OperandKind::List(v) => format!("({})", v.iter().map(text).collect::<Vec<_>>().join(", ")),
        OperandKind::Sink => "_".to_string(),
        OperandKind::SymOffset(n, off) => format!("{n}{off:+}"),
    }
}

/// The instruction as written (opcode, modifiers, operands), at most 100 characters of it.
fn written(ai: &ast::Instruction) -> String {
    let mods: String = ai.mods.iter().map(|(m, _)| format!(".{m}")).collect();
    let ops: Vec<String> = ai.operands.iter().map(text).collect();
    clip(format!("{}{mods} {}", ai.opcode, ops.join(", ")).trim_end())
}

/// `s`, cut to 100 characters with `…` when longer.
fn clip(s: &str) -> String {
    match s.char_indices().nth(100) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

/// Checks the operands of a decoded instruction against its opcode's shape.
pub(crate) fn operands(file: &str, ai: &ast::Instruction, op: Op, ops: &[Opnd]) -> Result<(), PtxError> {
    let Some((kinds, required)) = shape(op) else { return Ok(()) };
    let name = op_name(op);
    operand_count(file, ai, name, required, kinds.len(), ops.len(), "")?;
    for (i, (o, &k)) in ops.iter().zip(kinds).enumerate() {
        if !fits(k, o) {
            return Err(at(file, ai, i, |w, t| format!("`{w}`: operand {} of `{name}` must be {}, found `{t}`", i + 1, describe(k))));
        }
    }
    Ok(())
}

/// An error unless `found` lies between `required` and `max` operands; `here` qualifies the
/// count (a modifier-dependent form says " here"). Too many: at the first extra operand; too
/// few: at the instruction.
fn operand_count(file: &str, ai: &ast::Instruction, name: &str, required: usize, max: usize, found: usize, here: &str) -> Result<(), PtxError> {
    if (required..=max).contains(&found) {
        return Ok(());
    }
    let want = match (required, max) {
        (1, 1) => "1 operand".to_string(),
        (r, n) if r == n => format!("{r} operands"),
        (r, n) => format!("{r} to {n} operands"),
    };
    Err(at(file, ai, max, |w, _| format!("`{w}`: `{name}` takes {want}{here}, found {found}")))
}

/// What an operand position of a modifier-dependent form takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum F {
    /// `n` destination registers in braces (a bare register when `n` is 1).
    Dv(usize),
    /// `n` source registers in braces (a bare register when `n` is 1).
    Sv(usize),
    /// An address in brackets.
    A,
    /// A tensor-map address with `n` coordinates: `[map, {c0, …}]`.
    T(usize),
    /// A register or an immediate.
    V,
    /// A value or a vector (`im2col` offsets).
    X,
}

fn fits_form(f: F, o: &Opnd) -> bool {
    let value = |o: &Opnd| matches!(o, Opnd::Reg(_) | Opnd::NotReg(_) | Opnd::Imm(_) | Opnd::Special(_) | Opnd::SymAddr(..));
    let regs = |n: usize, dst: bool| match o {
        Opnd::Vec(v) => v.len() == n && v.iter().all(|x| matches!(x, Opnd::Reg(_)) || dst && matches!(x, Opnd::Sink)),
        Opnd::Reg(_) => n == 1,
        _ => false,
    };
    match f {
        F::Dv(n) => regs(n, true),
        F::Sv(n) => regs(n, false),
        F::A => matches!(o, Opnd::Addr { .. }),
        F::T(n) => matches!(o, Opnd::Tensor { coords, .. } if coords.len() == n && coords.iter().all(value)),
        F::V => value(o),
        F::X => value(o) || matches!(o, Opnd::Vec(v) if v.iter().all(value)),
    }
}

fn describe_form(f: F) -> String {
    let regs = |n: usize| if n == 1 { "1 register".to_string() } else { format!("{{…}} of {n} registers") };
    match f {
        F::Dv(n) | F::Sv(n) => regs(n),
        F::A => "an address in brackets".into(),
        F::T(n) => format!("a tensor map and {n} coordinate{} `[map, {{…}}]`", if n == 1 { "" } else { "s" }),
        F::V => "a register or an immediate".into(),
        F::X => "a register, an immediate or a vector".into(),
    }
}

/// Bits of one element of a matrix of type `t`, `None` for types no matrix instruction takes.
fn elem_bits(t: Ty) -> Option<u32> {
    Some(match t {
        Ty::B1 => 1,
        Ty::S4 | Ty::U4 => 4,
        Ty::S8 | Ty::U8 | Ty::E4m3 | Ty::E5m2 => 8,
        Ty::F16 | Ty::Bf16 | Ty::B16 => 16,
        Ty::F32 | Ty::Tf32 | Ty::S32 | Ty::B32 => 32,
        Ty::F64 => 64,
        _ => return None,
    })
}

/// Registers per lane of a `rows`×`cols` fragment of `t` spread over a warp: rows·cols/32
/// elements, packed 32/bits to a register (one element per register from 32 bits).
fn frag_regs(rows: u16, cols: u16, t: Ty) -> Option<usize> {
    let per_lane = rows as usize * cols as usize / 32;
    let pack = (32 / elem_bits(t)?).max(1) as usize;
    (per_lane > 0 && per_lane.is_multiple_of(pack)).then_some(per_lane / pack)
}

/// Registers of `wmma` fragment `frag` (`a`, `b`, `c`/`d`) of shape `(m, n, k)` and type `t`.
fn wmma_regs((m, n, k): (u16, u16, u16), frag: char, t: Ty) -> Option<usize> {
    match frag {
        // `.f16` A and B are eight `.f16x2` registers at every shape (PTX ISA, wmma fragments).
        'a' | 'b' if t == Ty::F16 => Some(8),
        'a' => frag_regs(m, k, t),
        'b' => frag_regs(k, n, t),
        _ => frag_regs(m, n, t),
    }
}

/// Registers of the A, B, C and D operands of `mma.sync` of shape `(m, n, k)` and types `d.a.b.c`.
fn mma_regs((m, n, k): (u16, u16, u16), [d, a, b, c]: [Ty; 4]) -> Option<[usize; 4]> {
    if (m, n, k) == (8, 8, 4) && a == Ty::F16 {
        // Volta's quad-pair form: A and B two `.f16x2`, C/D four `.f16x2` or eight `.f32`.
        let acc = |t: Ty| if t == Ty::F16 { 4 } else { 8 };
        return Some([acc(d), 2, 2, acc(c)]);
    }
    Some([frag_regs(m, n, d)?, frag_regs(m, k, a)?, frag_regs(k, n, b)?, frag_regs(m, n, c)?])
}

/// The operand forms of `op` (and how many are required), `None` where the executor decides.
fn form(op: Op, m: &Mods, ai: &ast::Instruction, ops: &[Opnd]) -> Option<(Vec<F>, usize)> {
    use F::*;
    // Tensor coordinates: as many as the `.Nd` (gather and scatter forms take more: unchecked).
    let dims = || -> Option<usize> {
        if ai.mods.iter().any(|(w, _)| w.starts_with("tile::")) {
            return None;
        }
        ai.mods.iter().find_map(|(w, _)| ["1d", "2d", "3d", "4d", "5d"].iter().position(|d| d == w).map(|i| i + 1))
    };
    let shared = |s: Option<&Space>| matches!(s, Some(Space::Shared | Space::SharedCluster));
    let dst = m.spaces.first();
    Some(match op {
        Op::Matrix(MatrixOp::WmmaLoad) => {
            let n = wmma_regs(m.shape?, m.frag?, *m.types.first()?)?;
            (vec![Dv(n), A, V], 2)
        }
        Op::Matrix(MatrixOp::WmmaStore) => {
            let n = wmma_regs(m.shape?, 'c', *m.types.first()?)?;
            (vec![A, Sv(n), V], 2)
        }
        Op::Matrix(MatrixOp::WmmaMma) => {
            let [d, a, b, c] = match *m.types.as_slice() {
                [d, c] => [d, Ty::F16, Ty::F16, c],
                [d, a, b, c] => [d, a, b, c],
                _ => return None,
            };
            let shape = m.shape?;
            let regs = [wmma_regs(shape, 'd', d)?, wmma_regs(shape, 'a', a)?, wmma_regs(shape, 'b', b)?, wmma_regs(shape, 'c', c)?];
            (vec![Dv(regs[0]), Sv(regs[1]), Sv(regs[2]), Sv(regs[3])], 4)
        }
        // Sparse `mma.sp` adds metadata and a selector, and halves A: left to the executor.
        Op::Matrix(MatrixOp::Mma) if ops.len() > 4 => return None,
        Op::Matrix(MatrixOp::Mma) => {
            let types: [Ty; 4] = m.types.as_slice().try_into().ok()?;
            let r = mma_regs(m.shape?, types)?;
            (vec![Dv(r[0]), Sv(r[1]), Sv(r[2]), Sv(r[3])], 4)
        }
        Op::Matrix(MatrixOp::Ldmatrix | MatrixOp::Stmatrix) => {
            let per = if m.shape? == (16, 16, 0) { 2 } else { 1 };
            let n = per * m.num as usize;
            if !matches!(n, 1 | 2 | 4 | 8) {
                return None;
            }
            if op == Op::Matrix(MatrixOp::Ldmatrix) { (vec![Dv(n), A], 2) } else { (vec![A, Sv(n)], 2) }
        }
        Op::Matrix(MatrixOp::Movmatrix) => (vec![Dv(1), Sv(1)], 2),
        Op::Matrix(MatrixOp::WgmmaFence | MatrixOp::WgmmaCommit) => (vec![], 0),
        Op::Matrix(MatrixOp::WgmmaWait) => (vec![V], 1),
        Op::Matrix(MatrixOp::WgmmaMma) => {
            let (d, a) = match *m.types.as_slice() {
                [d, a, _] => (d, a),
                _ => return None,
            };
            let (_, n, _) = m.shape?;
            let acc = if d == Ty::F16 { n as usize / 4 } else { n as usize / 2 };
            let a_regs = matches!(ops.get(1), Some(Opnd::Vec(_)));
            let imms = match elem_bits(a)? {
                _ if matches!(a, Ty::S8 | Ty::U8) => 0,
                16 if a_regs => 3,
                16 => 4,
                _ => 2,
            };
            let mut f = vec![Dv(acc), if a_regs { Sv(4) } else { V }, V, V];
            f.extend(std::iter::repeat_n(V, imms));
            let len = f.len();
            (f, len)
        }
        // `[dst], [src], cp-size{, src-size | ignore-src}{, cache-policy}`.
        Op::Cp(CpOp::Async) => (vec![A, A, V, V, V], 3),
        Op::Cp(CpOp::AsyncCommit | CpOp::AsyncWaitAll | CpOp::BulkCommit) => (vec![], 0),
        Op::Cp(CpOp::AsyncWaitGroup | CpOp::BulkWait) => (vec![V], 1),
        Op::Cp(CpOp::AsyncMbarArrive) => (vec![A], 1),
        // Into shared memory: `[dst], [src], size, [mbar]{, cta-mask}{, cache-policy}`; into global
        // memory (bulk group): `[dst], [src], size{, cache-policy}`.
        Op::Cp(CpOp::Bulk) if shared(dst) => (vec![A, A, V, A, V, V], 4),
        Op::Cp(CpOp::Bulk) => (vec![A, A, V, V], 3),
        Op::Cp(CpOp::BulkTensor) if shared(dst) => (vec![A, T(dims()?), A, X, X, X], 3),
        Op::Cp(CpOp::BulkTensor) => (vec![T(dims()?), A, V], 2),
        Op::Cp(CpOp::BulkPrefetch) => (vec![A, V, V], 2),
        Op::Cp(CpOp::BulkPrefetchTensor) => (vec![T(dims()?), X, X], 1),
        Op::Cp(CpOp::ReduceBulk) if shared(dst) => (vec![A, A, V, A, V], 4),
        Op::Cp(CpOp::ReduceBulk) => (vec![A, A, V, V], 3),
        Op::Cp(CpOp::ReduceBulkTensor) => (vec![T(dims()?), A, V], 2),
        _ => return None,
    })
}

/// An error at operand `i` (at the instruction when there is none).
fn at(file: &str, ai: &ast::Instruction, i: usize, msg: impl FnOnce(&str, String) -> String) -> PtxError {
    let (pos, t) = ai.operands.get(i).map_or((ai.pos, String::new()), |a| (a.pos, clip(&text(a))));
    PtxError::new(file, pos, msg(&written(ai), t))
}

/// Checks the operands of the modifier-dependent families (module doc): tensor-core fragments,
/// matrix movement, async and bulk copies, and calls (`arity(f)`: the parameters and return
/// values function `f` declares).
pub(crate) fn forms(file: &str, ai: &ast::Instruction, op: Op, m: &Mods, ops: &[Opnd], arity: &dyn Fn(u32) -> Option<(usize, usize)>) -> Result<(), PtxError> {
    if op == Op::Call {
        return call(file, ai, ops, arity);
    }
    let Some((kinds, required)) = form(op, m, ai, ops) else { return Ok(()) };
    let name = op_name(op);
    operand_count(file, ai, name, required, kinds.len(), ops.len(), " here")?;
    for (i, (o, &k)) in ops.iter().zip(&kinds).enumerate() {
        if !fits_form(k, o) {
            return Err(at(file, ai, i, |w, t| format!("`{w}`: operand {} of `{name}` must be {}, found `{t}`", i + 1, describe_form(k))));
        }
    }
    if op == Op::Cp(CpOp::Async) {
        let sizes: &[u64] = if m.cache == Some(crate::types::CacheOp::Cg) { &[16] } else { &[4, 8, 16] };
        if let Opnd::Imm(v) = ops[2] {
            if !sizes.contains(&v) {
                let allowed = if sizes.len() == 1 { "16 with `.cg`" } else { "4, 8 or 16" };
                return Err(at(file, ai, 2, |w, t| format!("`{w}`: the copy size of `cp.async` must be {allowed}, found `{t}`")));
            }
        }
    }
    Ok(())
}

/// `call`: `{(rets),} target{, (args)}{, prototype | targets}`; a direct call's lists as long as
/// the callee's declaration.
fn call(file: &str, ai: &ast::Instruction, ops: &[Opnd], arity: &dyn Fn(u32) -> Option<(usize, usize)>) -> Result<(), PtxError> {
    let list = |o: Option<&Opnd>| match o {
        Some(Opnd::List(v)) => Some(v.len()),
        _ => None,
    };
    let rets = list(ops.first());
    let t = rets.is_some() as usize;
    let args = list(ops.get(t + 1));
    let rest = t + 1 + args.is_some() as usize;
    let (declared, direct) = match ops.get(t) {
        Some(Opnd::Func(f)) => (arity(*f), true),
        Some(Opnd::Reg(_)) => (None, false),
        _ => return Err(at(file, ai, t, |w, x| format!("`{w}`: the target of `call` must be a function or a register, found `{x}`"))),
    };
    // An indirect call names its prototype or `.calltargets`; a direct one nothing more.
    let extra = ops.len() - rest.min(ops.len());
    let fits_extra = if direct { extra == 0 } else { extra <= 1 && ops[rest..].iter().all(|o| matches!(o, Opnd::Sink | Opnd::Table(_))) };
    if !fits_extra || rest > ops.len() {
        return Err(at(file, ai, rest, |w, x| format!("`{w}`: unexpected operand `{x}` of `call` (`call (rets), f, (args)`, or `call (rets), %r, (args), prototype`)")));
    }
    for (i, o) in ops.iter().enumerate().filter(|(i, _)| *i == 0 && rets.is_some() || *i == t + 1 && args.is_some()) {
        let Opnd::List(items) = o else { continue };
        if let Some(j) = items.iter().position(|x| !matches!(x, Opnd::Reg(_) | Opnd::SymAddr(..) | Opnd::Imm(_))) {
            let shown = match &ai.operands[i].kind {
                OperandKind::List(v) => v.get(j).map(|x| clip(&text(x))).unwrap_or_default(),
                _ => String::new(),
            };
            return Err(at(file, ai, i, |w, _| format!("`{w}`: `call` passes registers, immediates or `.param` variables, found `{shown}`")));
        }
    }
    if let Some((params, returns)) = declared {
        for (what, got, want, i) in [("return values", rets.unwrap_or(0), returns, 0), ("parameters", args.unwrap_or(0), params, t + 1)] {
            if got != want {
                let callee = ai.operands.get(t).map(text).unwrap_or_default();
                return Err(at(file, ai, i.min(ops.len()), |w, _| format!("`{w}`: `{callee}` declares {want} {what}, the call passes {got}")));
            }
        }
    }
    Ok(())
}

/// Base `sm_` numbers of the PTX targets.
const TARGETS: &[u32] = &[10, 11, 12, 13, 20, 21, 30, 32, 35, 37, 50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86, 87, 88, 89, 90, 100, 101, 103, 110, 120, 121];

/// Checks one `.target` word.
pub(crate) fn target(file: &str, pos: Pos, word: &str) -> Result<(), PtxError> {
    if matches!(word, "debug" | "texmode_unified" | "texmode_independent" | "map_f64_to_f32") {
        return Ok(());
    }
    let known = word.strip_prefix("sm_").is_some_and(|n| {
        let (digits, suffix) = n.split_at(n.find(|c: char| !c.is_ascii_digit()).unwrap_or(n.len()));
        digits.parse::<u32>().is_ok_and(|v| {
            TARGETS.contains(&v)
                && match suffix {
                    "" => true,
                    "a" => v >= 90,
                    "f" => v >= 100,
                    _ => false,
                }
        })
    });
    if known {
        Ok(())
    } else {
        Err(PtxError::new(
            file,
            pos,
            format!("`.target {word}`: no such PTX target (sm_10 … sm_121, with `a` from sm_90 and `f` from sm_100; debug, texmode_unified, texmode_independent, map_f64_to_f32)"),
        ))
    }
}

/// Minor versions of each PTX ISA major version (1.0–1.5, …, 8.0–8.8, 9.0–9.1).
const VERSIONS: &[(u32, u32)] = &[(1, 5), (2, 3), (3, 2), (4, 3), (5, 0), (6, 5), (7, 8), (8, 8), (9, 1)];

/// Checks the `.version` directive.
pub(crate) fn version(file: &str, pos: Pos, text: &str, (major, minor): (u32, u32)) -> Result<(), PtxError> {
    if VERSIONS.iter().any(|&(m, last)| m == major && minor <= last) {
        Ok(())
    } else {
        Err(PtxError::new(file, pos, format!("`.version {text}`: no such PTX ISA version (1.0 … 9.1)")))
    }
}

#[cfg(test)]
mod tests {
    fn err(src: &str) -> String {
        crate::load(src, "v.ptx").map(|_| ()).unwrap_err().to_string()
    }

    fn body(line: &str) -> String {
        format!(
            ".version 9.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 p)\n{{\n.reg .pred %p<2>;\n.reg .f32 %f<4>;\n.reg .b32 %r<4>;\n.reg .b64 %rd<9>;\n{line}\nret;\n}}\n"
        )
    }

    #[test]
    fn operand_counts_and_kinds_are_located_with_their_text() {
        let cases = [
            ("add.f32 %f3, %f2;", "v.ptx:10:1: `add.f32 %f3, %f2`: `add` takes 3 operands, found 2"),
            ("add.f32 %f3, %f2, %f1, %f0;", "v.ptx:10:24: `add.f32 %f3, %f2, %f1, %f0`: `add` takes 3 operands, found 4"),
            ("ld.global.f32 %f1, %rd8;", "v.ptx:10:20: `ld.global.f32 %f1, %rd8`: operand 2 of `ld` must be an address in brackets, found `%rd8`"),
            ("st.global.f32 %rd8, %f1;", "v.ptx:10:15: `st.global.f32 %rd8, %f1`: operand 1 of `st` must be an address in brackets, found `%rd8`"),
            ("add.f32 %f3, [%rd1], %f1;", "operand 2 of `add` must be a register or an immediate, found `[%rd1]`"),
            ("mov.f32 3.0, %f1;", "operand 1 of `mov` must be a destination register, found `3`"),
            ("fma.rn.f32 %f1, %f2, %f3;", "`fma` takes 4 operands, found 3"),
            ("setp.lt.s32 %p1, %r1;", "`setp` takes 3 to 4 operands, found 2"),
            ("ld.global.f32 %f1, [%rd1], %rd2, %rd3;", "`ld` takes 2 to 3 operands, found 4"),
            ("bra.uni [%rd1];", "operand 1 of `bra` must be a label, found `[%rd1]`"),
            ("mbarrier.try_wait.parity.shared::cta.b64 %p1, %r1, %r2;", "operand 2 of `mbarrier` must be an address in brackets, found `%r1`"),
        ];
        for (line, want) in cases {
            let e = err(&body(line));
            assert!(e.contains(want), "{line}\n  got: {e}\n want: {want}");
        }
        // The well-formed versions lower.
        for line in ["add.f32 %f3, %f2, %f1;", "ld.global.f32 %f1, [%rd8];", "st.global.v2.f32 [%rd8+8], {%f1, %f2};", "max.s32 %r1, %r2, %r3, 4;"] {
            crate::load(&body(line), "v.ptx").unwrap();
        }
    }

    /// A kernel with registers of every class the tensor, copy and call forms name, and a
    /// device function `f(.param .b32 a, .param .b32 b) -> .param .b32 r`.
    fn hopper(line: &str) -> String {
        format!(
            ".version 8.5\n.target sm_90a\n.address_size 64\n.func (.param .b32 r) f(.param .b32 a, .param .b32 b)\n{{\nret;\n}}\n.visible .entry k(.param .u64 p)\n{{\n.reg .pred %p<2>;\n.reg .f32 %f<140>;\n.reg .b32 %r<40>;\n.reg .b64 %rd<9>;\n.reg .f64 %fd<9>;\n.shared .align 128 .b8 s[4096];\n.param .b32 a0;\n.param .b32 a1;\n.param .b32 r0;\n{line}\nret;\n}}\n"
        )
    }

    #[test]
    fn tensor_copy_and_call_forms_are_checked_at_the_operand() {
        let r = |n: usize, p: &str| format!("{{{}}}", (0..n).map(|i| format!("%{p}{i}")).collect::<Vec<_>>().join(", "));
        let good = [
            format!("wmma.load.a.sync.aligned.row.m16n16k16.shared.f16 {}, [%rd1], %r1;", r(8, "r")),
            format!("wmma.load.c.sync.aligned.row.m16n16k16.global.f32 {}, [%rd1], %r1;", r(8, "f")),
            format!("wmma.load.a.sync.aligned.row.m8n32k16.global.bf16 {}, [%rd1];", r(2, "r")),
            format!("wmma.store.d.sync.aligned.row.m16n16k16.global.f16 [%rd1], {}, %r1;", r(4, "r")),
            format!("wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {}, {}, {}, {};", r(8, "f"), r(8, "r"), r(8, "r"), r(8, "f")),
            "wmma.mma.sync.aligned.row.col.m8n8k4.f64.f64.f64.f64 {%fd0, %fd1}, {%fd2}, {%fd3}, {%fd4, %fd5};".to_string(),
            format!("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {}, {}, {}, {};", r(4, "f"), r(4, "r"), r(2, "r"), r(4, "f")),
            format!("mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32 {}, {}, {}, {};", r(8, "f"), r(2, "r"), r(2, "r"), r(8, "f")),
            format!("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {}, {}, {}, {};", r(4, "r"), r(4, "r"), r(2, "r"), r(4, "r")),
            format!("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {}, [%r1];", r(4, "r")),
            format!("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%r1], {};", r(2, "r")),
            format!("wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {}, %rd1, %rd2, %p1, 1, 1, 0, 0;", r(32, "f")),
            format!("wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {}, {}, %rd2, 1, 1, 1, 0;", r(32, "f"), r(4, "r")),
            format!("wgmma.mma_async.sync.aligned.m64n64k16.f16.f16.f16 {}, %rd1, %rd2, 1, 1, 1, 0, 0;", r(16, "r")),
            format!("wgmma.mma_async.sync.aligned.m64n32k32.s32.s8.s8 {}, %rd1, %rd2, 1;", r(16, "r")),
            "cp.async.ca.shared.global [%r1], [%rd1], 8;".into(),
            "cp.async.cg.shared.global [%r1], [%rd1], 16, %r2;".into(),
            "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd1], 256, [%r2];".into(),
            "cp.async.bulk.global.shared::cta.bulk_group [%rd1], [%r1], 256;".into(),
            "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r2, %r3}], [%r4];".into(),
            "cp.async.bulk.tensor.1d.global.shared::cta.tile.bulk_group [%rd1, {%r2}], [%r1];".into(),
            "cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group [%rd1, {%r1, %r2}], [%r3];".into(),
            "call.uni (r0), f, (a0, a1);".into(),
        ];
        for line in &good {
            crate::load(&hopper(line), "v.ptx").unwrap_or_else(|e| panic!("{line}: {e}"));
        }
        let bad = [
            (format!("wmma.load.a.sync.aligned.row.m16n16k16.shared.f16 {}, [%rd1], %r1;", r(4, "r")), "v.ptx:19:51: `wmma.load.a.sync.aligned.row.m16n16k16.shared.f16 {%r0, %r1, %r2, %r3}, [%rd1], %r1`: operand 1 of `wmma.load` must be {…} of 8 registers, found `{%r0, %r1, %r2, %r3}`"),
            (format!("wmma.load.a.sync.aligned.row.m16n16k16.shared.f16 {}, %rd1;", r(8, "r")), "operand 2 of `wmma.load` must be an address in brackets, found `%rd1`"),
            (format!("wmma.store.d.sync.aligned.row.m16n16k16.global.f32 [%rd1], {};", r(4, "f")), "operand 2 of `wmma.store` must be {…} of 8 registers"),
            (format!("wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {}, {}, {};", r(8, "f"), r(8, "r"), r(8, "r")), "`wmma.mma` takes 4 operands here, found 3"),
            (format!("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {}, {}, {}, {};", r(4, "f"), r(2, "r"), r(2, "r"), r(4, "f")), "operand 2 of `mma.sync` must be {…} of 4 registers, found `{%r0, %r1}`"),
            (format!("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {}, {}, {}, 0;", r(4, "f"), r(4, "r"), r(2, "r")), "operand 4 of `mma.sync` must be {…} of 4 registers, found `0`"),
            (format!("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {}, [%r1];", r(2, "r")), "operand 1 of `ldmatrix` must be {…} of 4 registers"),
            ("ldmatrix.sync.aligned.m8n8.x1.shared.b16 %r1, %r2;".to_string(), "operand 2 of `ldmatrix` must be an address in brackets, found `%r2`"),
            (format!("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%r1], {};", r(2, "r")), "operand 2 of `stmatrix` must be {…} of 4 registers"),
            (format!("wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {}, %rd1, %rd2, 1, 1, 1, 0, 0;", r(16, "f")), "operand 1 of `wgmma.mma_async` must be {…} of 32 registers"),
            (format!("wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {}, %rd1, %rd2, 1, 1, 1;", r(32, "f")), "`wgmma.mma_async` takes 8 operands here, found 6"),
            ("cp.async.ca.shared.global [%r1], [%rd1], 12;".into(), "v.ptx:19:42: `cp.async.ca.shared.global [%r1], [%rd1], 12`: the copy size of `cp.async` must be 4, 8 or 16, found `12`"),
            ("cp.async.cg.shared.global [%r1], [%rd1], 8;".into(), "the copy size of `cp.async` must be 16 with `.cg`, found `8`"),
            ("cp.async.ca.shared.global [%r1], %rd1, 8;".into(), "operand 2 of `cp.async` must be an address in brackets, found `%rd1`"),
            ("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd1], 256;".into(), "`cp.async.bulk` takes 4 to 6 operands here, found 3"),
            ("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd1], 256, %r2;".into(), "operand 4 of `cp.async.bulk` must be an address in brackets, found `%r2`"),
            ("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r2}], [%r4];".into(), "operand 2 of `cp.async.bulk.tensor` must be a tensor map and 2 coordinates `[map, {…}]`, found `[%rd1, {%r2}]`"),
            ("cp.async.bulk.tensor.1d.global.shared::cta.tile.bulk_group [%rd1], [%r1];".into(), "operand 1 of `cp.async.bulk.tensor` must be a tensor map and 1 coordinate"),
            ("call.uni (r0), f, (a0);".into(), "`call.uni (r0), f, (a0)`: `f` declares 2 parameters, the call passes 1"),
            ("call.uni f, (a0, a1);".into(), "`f` declares 1 return values, the call passes 0"),
            ("call.uni (r0), f, (a0, [%rd1]);".into(), "`call` passes registers, immediates or `.param` variables, found `[%rd1]`"),
            ("call.uni (r0), 5, (a0, a1);".into(), "the target of `call` must be a function or a register, found `5`"),
            ("call.uni (r0), f, (a0, a1), %r1;".into(), "unexpected operand `%r1` of `call`"),
        ];
        for (line, want) in &bad {
            let e = err(&hopper(line));
            assert!(e.contains(want), "{line}\n  got: {e}\n want: {want}");
            assert!(e.starts_with("v.ptx:19:"), "{e}");
        }
    }

    #[test]
    fn targets_and_versions_that_do_not_exist() {
        let with = |v: &str, t: &str| format!(".version {v}\n.target {t}\n.address_size 64\n.visible .entry k()\n{{\nret;\n}}\n");
        assert_eq!(err(&with("9.0", "sm_999")), "v.ptx:2:9: `.target sm_999`: no such PTX target (sm_10 … sm_121, with `a` from sm_90 and `f` from sm_100; debug, texmode_unified, texmode_independent, map_f64_to_f32)");
        assert!(err(&with("9.0", "sm_90, bebug")).starts_with("v.ptx:2:16: `.target bebug`"));
        assert!(err(&with("9.0", "sm_75a")).contains("`.target sm_75a`: no such PTX target"));
        assert!(err(&with("8.9", "sm_90")).starts_with("v.ptx:1:10: `.version 8.9`: no such PTX ISA version"));
        assert!(err(&with("10.0", "sm_90")).contains("no such PTX ISA version"));
        for (v, t) in [("9.0", "sm_90a, debug"), ("8.0", "sm_80"), ("7.8", "sm_75"), ("9.0", "sm_100f"), ("6.0", "sm_61, texmode_independent")] {
            crate::load(&with(v, t), "v.ptx").unwrap();
        }
    }
}
