//! Semantic checks of PTX beyond its grammar: the operands each opcode takes, and the targets and
//! ISA versions that exist.
//!
//! The parser accepts any list of operands after any opcode, and lowering used to take what it
//! was given: `add.f32 %f3, %f2;` lowered and ran with a missing source, `ld.global.f32 %f1, %rd8;`
//! read through a register that is not an address. Here every opcode whose operand list is fixed
//! has a shape — how many operands, and of each position whether it is a destination (a register,
//! a vector of registers, or `_`), a value (a register, an immediate, a special register or a
//! symbol's address), an address in brackets, or a branch target — and an instruction that does
//! not fit is an error at the offending operand (or the instruction) naming its text. Families
//! whose forms vary more (tensor, bulk-copy, texture, barrier, call) keep the checks their
//! decoders and executors make. `.target` words must be PTX targets (`sm_10` … `sm_121f`,
//! `debug`, `texmode_*`, `map_f64_to_f32`) and `.version` an existing PTX ISA version.

use crate::ast::{self, OperandKind};
use crate::decode::op_name;
use crate::error::PtxError;
use crate::inst::{MbarOp, Op, Opnd};
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
    if ops.len() < required || ops.len() > kinds.len() {
        let want = match (required, kinds.len()) {
            (1, 1) => "1 operand".to_string(),
            (r, n) if r == n => format!("{r} operands"),
            (r, n) => format!("{r} to {n} operands"),
        };
        // Too many: at the first extra operand; too few: at the instruction.
        let pos = ai.operands.get(kinds.len()).map_or(ai.pos, |o| o.pos);
        return Err(PtxError::new(
            file,
            pos,
            format!("`{}`: `{name}` takes {want}, found {}", written(ai), ops.len()),
        ));
    }
    for (i, (o, &k)) in ops.iter().zip(kinds).enumerate() {
        if !fits(k, o) {
            let (pos, t) = ai.operands.get(i).map_or((ai.pos, String::new()), |a| (a.pos, clip(&text(a))));
            return Err(PtxError::new(
                file,
                pos,
                format!("`{}`: operand {} of `{name}` must be {}, found `{t}`", written(ai), i + 1, describe(k)),
            ));
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
