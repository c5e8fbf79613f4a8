//! Opcode and modifier decoding: `add.rn.ftz.f32` → ([`Op::Add`], [`Mods`]).
//!
//! Each family first takes its verb words (`atom.add`, `mbarrier.try_wait`, `cp.async.bulk.tensor`),
//! then every remaining modifier is classified generically (types, rounding, comparison, state
//! spaces, cache operators, memory semantics and scope, boolean flags, shapes). A word nothing
//! claims is an error naming it and its position, so misspelled or unsupported modifiers never
//! pass silently. Which operands are destinations and which instruction class an opcode belongs
//! to are decided here too, from the opcode alone.

use crate::ast::Space;
use crate::error::PtxError;
use crate::inst::{flag, AtomOp, BarOp, Class, ClusterBarOp, CpOp, MatrixOp, MbarOp, Mods, Op, ShflMode, VideoOp, VoteMode};
use crate::machine::MachineOp;
use crate::lexer::Pos;
use crate::types::*;

/// The modifier words of one instruction, consumed as they are recognized.
struct Words<'a> {
    w: Vec<(&'a str, Pos)>,
}

impl<'a> Words<'a> {
    /// Removes the first word that is in `set`, returning it.
    fn take(&mut self, set: &[&'static str]) -> Option<&'static str> {
        let i = self.w.iter().position(|(w, _)| set.contains(w))?;
        let (w, _) = self.w.remove(i);
        set.iter().copied().find(|s| *s == w)
    }
    fn take1(&mut self, word: &str) -> bool {
        match self.w.iter().position(|(w, _)| *w == word) {
            Some(i) => {
                self.w.remove(i);
                true
            }
            None => false,
        }
    }
}

fn err(file: &str, pos: Pos, msg: String) -> PtxError {
    PtxError::new(file, pos, msg)
}

const ATOM_OPS: &[&str] = &["add", "min", "max", "inc", "dec", "and", "or", "xor", "exch", "cas"];

fn atom_op(w: &str) -> AtomOp {
    match w {
        "add" => AtomOp::Add,
        "min" => AtomOp::Min,
        "max" => AtomOp::Max,
        "inc" => AtomOp::Inc,
        "dec" => AtomOp::Dec,
        "and" => AtomOp::And,
        "or" => AtomOp::Or,
        "xor" => AtomOp::Xor,
        "exch" => AtomOp::Exch,
        _ => AtomOp::Cas,
    }
}

/// Decodes an opcode word and its modifiers.
pub fn decode_op(opcode: &str, mods: &[(String, Pos)], file: &str, pos: Pos) -> Result<(Op, Mods), PtxError> {
    let mut w = Words { w: mods.iter().map(|(s, p)| (s.as_str(), *p)).collect() };
    let mut m = Mods { vec: 1, ..Default::default() };
    let need = |w: Option<&'static str>, what: &str| -> Result<&'static str, PtxError> {
        w.ok_or_else(|| err(file, pos, format!("`{opcode}` needs {what}")))
    };
    let op = match opcode {
        "add" => Op::Add,
        "sub" => Op::Sub,
        "mul" => Op::Mul,
        "mad" => Op::Mad,
        "mul24" => Op::Mul24,
        "mad24" => Op::Mad24,
        "sad" => Op::Sad,
        "div" => Op::Div,
        "rem" => Op::Rem,
        "abs" => Op::Abs,
        "neg" => Op::Neg,
        "min" => Op::Min,
        "max" => Op::Max,
        "popc" => Op::Popc,
        "clz" => Op::Clz,
        "bfind" => Op::Bfind,
        "brev" => Op::Brev,
        "bfe" => Op::Bfe,
        "bfi" => Op::Bfi,
        "fns" => Op::Fns,
        "prmt" => {
            m.num = match w.take(&["f4e", "b4e", "rc8", "ecl", "ecr", "rc16"]) {
                Some("f4e") => 1,
                Some("b4e") => 2,
                Some("rc8") => 3,
                Some("ecl") => 4,
                Some("ecr") => 5,
                Some("rc16") => 6,
                _ => 0,
            };
            Op::Prmt
        }
        "lop3" => Op::Lop3,
        "and" => Op::And,
        "or" => Op::Or,
        "xor" => Op::Xor,
        "not" => Op::Not,
        "cnot" => Op::Cnot,
        "shl" => Op::Shl,
        "shr" => Op::Shr,
        "shf" => {
            let dir = need(w.take(&["l", "r"]), "`.l` or `.r`")?;
            if dir == "l" {
                m.flags |= flag::LEFT;
            }
            Op::Shf
        }
        "dp4a" => Op::Dp4a,
        "dp2a" => {
            if w.take(&["lo", "hi"]) == Some("hi") {
                m.flags |= flag::HI;
            }
            Op::Dp2a
        }
        "addc" => Op::Addc,
        "subc" => Op::Subc,
        "madc" => Op::Madc,
        "bmsk" => Op::Bmsk,
        "szext" => Op::Szext,
        "fma" => Op::Fma,
        "rcp" => Op::Rcp,
        "sqrt" => Op::Sqrt,
        "rsqrt" => Op::Rsqrt,
        "sin" => Op::Sin,
        "cos" => Op::Cos,
        "lg2" => Op::Lg2,
        "ex2" => Op::Ex2,
        "tanh" => Op::Tanh,
        "copysign" => Op::Copysign,
        "testp" => {
            let k = need(
                w.take(&["finite", "infinite", "number", "notanumber", "normal", "subnormal"]),
                "a test (`.finite`, `.infinite`, `.number`, `.notanumber`, `.normal`, `.subnormal`)",
            )?;
            m.num = ["finite", "infinite", "number", "notanumber", "normal", "subnormal"]
                .iter()
                .position(|x| *x == k)
                .unwrap_or(0) as u8;
            Op::Testp
        }
        "setp" => Op::Setp,
        "set" => Op::Set,
        "selp" => Op::Selp,
        "slct" => Op::Slct,
        "cvt" => {
            if w.take1("pack") {
                Op::CvtPack
            } else {
                Op::Cvt
            }
        }
        "cvta" => Op::Cvta,
        "mov" => Op::Mov,
        "ld" => Op::Ld,
        "ldu" => Op::Ldu,
        "st" => Op::St,
        "atom" => Op::Atom(atom_op(need(w.take(ATOM_OPS), "an operation such as `.add`")?)),
        "red" => Op::Red(atom_op(need(w.take(ATOM_OPS), "an operation such as `.add`")?)),
        // Cache management: `discard` (data becomes undefined, so keeping it is correct) and
        // `applypriority` only steer L2 replacement; they are modelled as prefetch-class hints.
        "prefetch" | "prefetchu" | "discard" | "applypriority" => {
            if w.take1("tensormap") {
                m.spaces.push(Space::Param);
            }
            Op::Prefetch
        }
        "isspacep" => Op::Isspacep,
        "mapa" => Op::Mapa,
        "getctarank" => Op::Getctarank,
        "alloca" => Op::Alloca,
        "stacksave" => Op::Stacksave,
        "stackrestore" => Op::Stackrestore,
        "bra" => Op::Bra,
        "brx" => {
            need(w.take(&["idx"]), "`.idx`")?;
            Op::BrxIdx
        }
        "call" => Op::Call,
        "ret" => Op::Ret,
        "exit" => Op::Exit,
        "trap" => Op::Trap,
        "brkpt" => Op::Brkpt,
        "nanosleep" => Op::Nanosleep,
        "pmevent" => Op::Pmevent,
        "bar" | "barrier" => {
            if w.take1("warp") {
                Op::BarWarpSync
            } else if w.take1("cluster") {
                match need(w.take(&["arrive", "wait"]), "`.arrive` or `.wait`")? {
                    "arrive" => Op::BarrierCluster(ClusterBarOp::Arrive),
                    _ => Op::BarrierCluster(ClusterBarOp::Wait),
                }
            } else {
                w.take1("cta");
                match need(w.take(&["sync", "arrive", "red"]), "`.sync`, `.arrive` or `.red`")? {
                    "sync" => Op::Bar(BarOp::Sync),
                    "arrive" => Op::Bar(BarOp::Arrive),
                    _ => match need(w.take(&["popc", "and", "or"]), "`.popc`, `.and` or `.or`")? {
                        "popc" => Op::Bar(BarOp::RedPopc),
                        "and" => Op::Bar(BarOp::RedAnd),
                        _ => Op::Bar(BarOp::RedOr),
                    },
                }
            }
        }
        "membar" => {
            let s = need(w.take(&["cta", "gl", "sys", "proxy"]), "a level (`.cta`, `.gl`, `.sys`)")?;
            m.scope = Some(match s {
                "cta" => Scope::Cta,
                "gl" => Scope::Gpu,
                _ => Scope::Sys,
            });
            Op::Membar
        }
        "fence" => {
            if w.take1("proxy") {
                m.flags |= flag::PROXY;
                w.take(&["async", "alias", "tensormap::generic", "async::generic", "async::global", "async::shared::cta", "async::shared::cluster"]);
            }
            if w.take1("mbarrier_init") {
                m.flags |= flag::MBAR_INIT;
            }
            Op::Fence
        }
        "shfl" => Op::Shfl(match need(w.take(&["up", "down", "bfly", "idx"]), "a mode (`.up`, `.down`, `.bfly`, `.idx`)")? {
            "up" => ShflMode::Up,
            "down" => ShflMode::Down,
            "bfly" => ShflMode::Bfly,
            _ => ShflMode::Idx,
        }),
        "vote" => Op::Vote(match need(w.take(&["all", "any", "uni", "ballot"]), "a mode (`.all`, `.any`, `.uni`, `.ballot`)")? {
            "all" => VoteMode::All,
            "any" => VoteMode::Any,
            "uni" => VoteMode::Uni,
            _ => VoteMode::Ballot,
        }),
        "match" => Op::Match(need(w.take(&["any", "all"]), "`.any` or `.all`")? == "all"),
        "redux" => Op::Redux(atom_op(need(w.take(&["add", "min", "max", "and", "or", "xor"]), "an operation")?)),
        "activemask" => Op::Activemask,
        "elect" => Op::Elect,
        "mbarrier" => Op::Mbarrier(
            match need(
                w.take(&["init", "arrive", "arrive_drop", "expect_tx", "complete_tx", "test_wait", "try_wait", "pending_count", "inval"]),
                "an operation such as `.arrive`",
            )? {
                "init" => MbarOp::Init,
                "arrive" => {
                    if w.take1("expect_tx") {
                        m.flags |= flag::EXPECT_TX;
                    }
                    MbarOp::Arrive
                }
                "arrive_drop" => {
                    if w.take1("expect_tx") {
                        m.flags |= flag::EXPECT_TX;
                    }
                    MbarOp::ArriveDrop
                }
                "expect_tx" => MbarOp::ExpectTx,
                "complete_tx" => MbarOp::CompleteTx,
                "test_wait" => MbarOp::TestWait,
                "try_wait" => MbarOp::TryWait,
                "pending_count" => MbarOp::PendingCount,
                _ => MbarOp::Inval,
            },
        ),
        "cp" => Op::Cp(decode_cp(&mut w, &mut m, file, pos)?),
        "wmma" => Op::Matrix(match need(w.take(&["load", "store", "mma"]), "`.load`, `.store` or `.mma`")? {
            "load" => {
                m.frag = Some(need(w.take(&["a", "b", "c"]), "a fragment (`.a`, `.b`, `.c`)")?.chars().next().unwrap_or('a'));
                MatrixOp::WmmaLoad
            }
            "store" => {
                need(w.take(&["d"]), "`.d`")?;
                m.frag = Some('d');
                MatrixOp::WmmaStore
            }
            _ => MatrixOp::WmmaMma,
        }),
        "mma" => Op::Matrix(MatrixOp::Mma),
        "ldmatrix" => Op::Matrix(MatrixOp::Ldmatrix),
        "stmatrix" => Op::Matrix(MatrixOp::Stmatrix),
        "movmatrix" => Op::Matrix(MatrixOp::Movmatrix),
        "wgmma" => Op::Matrix(match need(w.take(&["fence", "commit_group", "wait_group", "mma_async"]), "an operation")? {
            "fence" => MatrixOp::WgmmaFence,
            "commit_group" => MatrixOp::WgmmaCommit,
            "wait_group" => MatrixOp::WgmmaWait,
            _ => MatrixOp::WgmmaMma,
        }),
        "setmaxnreg" => {
            let k = need(w.take(&["inc", "dec"]), "`.inc` or `.dec`")?;
            m.num = (k == "inc") as u8;
            Op::Setmaxnreg
        }
        "griddepcontrol" => {
            let k = need(w.take(&["launch_dependents", "wait"]), "`.launch_dependents` or `.wait`")?;
            m.num = (k == "wait") as u8;
            Op::Griddepcontrol
        }
        "tensormap" => {
            need(w.take(&["replace", "cp_fenceproxy"]), "`.replace`")?;
            w.take(&["tile", "im2col"]);
            w.take(&[
                "global_address",
                "rank",
                "box_dim",
                "global_dim",
                "global_stride",
                "element_stride",
                "elemtype",
                "interleave_layout",
                "swizzle_mode",
                "fill_mode",
                "global::shared::cta",
                "tensormap::generic",
            ]);
            w.take(&["b1024"]);
            Op::Tensormap
        }
        // Textures and surfaces parse (their modifiers are not checked) and fault when executed.
        "tex" | "tld4" | "txq" | "suld" | "sust" | "sured" | "suq" | "istypeof" => return Ok((Op::Texture, m)),
        "multimem" | "tcgen05" => {
            return Err(err(file, pos, format!("unsupported instruction `{opcode}`: multimem and tcgen05 (sm_100) are not modelled")))
        }
        "createpolicy" => {
            w.take(&["fractional", "range"]);
            Op::Createpolicy
        }
        "vadd" | "vsub" | "vabsdiff" | "vmin" | "vmax" | "vadd2" | "vsub2" | "vavrg2" | "vabsdiff2" | "vmin2" | "vmax2" | "vadd4" | "vsub4"
        | "vavrg4" | "vabsdiff4" | "vmin4" | "vmax4" => {
            let (name, lanes) = match opcode.strip_suffix('4') {
                Some(n) => (n, 4),
                None => match opcode.strip_suffix('2') {
                    Some(n) => (n, 2),
                    None => (opcode, 1),
                },
            };
            m.num = lanes;
            if w.take1("add") {
                m.flags |= flag::VIDEO_ADD;
            }
            Op::Video(match name {
                "vadd" => VideoOp::Add,
                "vsub" => VideoOp::Sub,
                "vabsdiff" => VideoOp::Absdiff,
                "vmin" => VideoOp::Min,
                "vmax" => VideoOp::Max,
                _ => VideoOp::Avrg,
            })
        }
        _ => return Err(err(file, pos, format!("unknown opcode `{opcode}`"))),
    };
    generic_mods(op, &mut w, &mut m, file, pos)?;
    Ok((op, m))
}

fn decode_cp(w: &mut Words<'_>, m: &mut Mods, file: &str, pos: Pos) -> Result<CpOp, PtxError> {
    let reduce = w.take1("reduce");
    if !w.take1("async") {
        return Err(err(file, pos, "`cp` must be `cp.async…` or `cp.reduce.async…`".into()));
    }
    let op = if w.take1("bulk") {
        if w.take1("commit_group") {
            CpOp::BulkCommit
        } else if w.take1("wait_group") {
            if w.take1("read") {
                m.flags |= flag::READ;
            }
            CpOp::BulkWait
        } else {
            let prefetch = w.take1("prefetch");
            let tensor = w.take1("tensor");
            if tensor {
                let d = w.take(&["1d", "2d", "3d", "4d", "5d"]).ok_or_else(|| err(file, pos, "tensor copy needs a dimensionality `.1d`…`.5d`".into()))?;
                m.num = d.as_bytes()[0] - b'0';
                match w.take(&["tile", "im2col", "im2col_no_offs", "tile::gather4", "tile::scatter4"]) {
                    Some("im2col") | Some("im2col_no_offs") => m.flags |= flag::IM2COL,
                    _ => {}
                }
            }
            if w.take1("mbarrier::complete_tx::bytes") {
                m.flags |= flag::MBAR_TX;
            }
            if w.take1("bulk_group") {
                m.flags |= flag::BULK_GROUP;
            }
            if w.take1("multicast::cluster") {
                m.flags |= flag::MULTICAST;
            }
            w.take1("L2");
            match (reduce, prefetch, tensor) {
                (true, _, false) => CpOp::ReduceBulk,
                (true, _, true) => CpOp::ReduceBulkTensor,
                (false, true, false) => CpOp::BulkPrefetch,
                (false, true, true) => CpOp::BulkPrefetchTensor,
                (false, false, false) => CpOp::Bulk,
                (false, false, true) => CpOp::BulkTensor,
            }
        }
    } else if w.take1("commit_group") {
        CpOp::AsyncCommit
    } else if w.take1("wait_group") {
        CpOp::AsyncWaitGroup
    } else if w.take1("wait_all") {
        CpOp::AsyncWaitAll
    } else if w.take1("mbarrier") {
        if !w.take1("arrive") {
            return Err(err(file, pos, "`cp.async.mbarrier` must be `cp.async.mbarrier.arrive`".into()));
        }
        if w.take1("noinc") {
            m.flags |= flag::NOINC;
        }
        CpOp::AsyncMbarArrive
    } else {
        CpOp::Async
    };
    if reduce {
        if let Some(o) = w.take(&["add", "min", "max", "inc", "dec", "and", "or", "xor"]) {
            m.num = atom_op(o) as u8;
        }
    }
    Ok(op)
}

/// Words that are harmless hints to the hardware (cache eviction priorities, prefetch sizes).
const HINTS: &[&str] = &[
    "L1::evict_normal",
    "L1::evict_unchanged",
    "L1::evict_first",
    "L1::evict_last",
    "L2::evict_unchanged",
    "L1::no_allocate",
    "L2::evict_normal",
    "L2::evict_first",
    "L2::evict_last",
    "L2::64B",
    "L2::128B",
    "L2::256B",
    "L1",
    "L2",
    "level::eviction_priority",
];

/// `pos`: the opcode's position, for errors about the instruction as a whole.
fn generic_mods(op: Op, w: &mut Words<'_>, m: &mut Mods, file: &str, pos: Pos) -> Result<(), PtxError> {
    let is_cmp_op = matches!(op, Op::Setp | Op::Set | Op::Slct);
    for (word, pos) in std::mem::take(&mut w.w) {
        if let Some(t) = Ty::parse(word) {
            m.types.push(t);
            continue;
        }
        if is_cmp_op {
            if let Some(c) = Cmp::parse(word) {
                if m.cmp.is_some() {
                    return Err(err(file, pos, format!("second comparison `.{word}`")));
                }
                m.cmp = Some(c);
                continue;
            }
        }
        if let Some(r) = Rnd::parse(word) {
            m.rnd = Some(r);
            continue;
        }
        if let Some(s) = space_word(word) {
            m.spaces.push(s);
            continue;
        }
        if let Some(shape) = parse_shape(word) {
            m.shape = Some(shape);
            continue;
        }
        let f = match word {
            "ftz" => flag::FTZ,
            "sat" => flag::SAT,
            "approx" => flag::APPROX,
            "full" => flag::FULL,
            "cc" => flag::CC,
            "NaN" => flag::NAN,
            "xorsign" => flag::XORSIGN,
            "abs" => flag::ABS,
            "relu" => flag::RELU,
            "satfinite" => flag::SATFINITE,
            "uni" => flag::UNI,
            "sync" => flag::SYNC,
            "aligned" => flag::ALIGNED,
            "hi" => flag::HI,
            "lo" => flag::LO,
            "wide" => flag::WIDE,
            "shiftamt" => flag::SHIFTAMT,
            "wrap" => flag::WRAP,
            "clamp" => flag::CLAMP,
            "to" => flag::TO,
            "parity" => flag::PARITY,
            "trans" => flag::TRANS,
            "noftz" => flag::NOFTZ,
            "noreturn" => flag::NORETURN,
            "L2::cache_hint" => flag::CACHE_HINT,
            "noComplete" => flag::NOCOMPLETE,
            "async" => flag::ASYNC,
            "mbarrier::complete_tx::bytes" => flag::MBAR_TX,
            "popc" if matches!(op, Op::Matrix(_)) => flag::POPC,
            "and" | "xor" if matches!(op, Op::Matrix(_)) => {
                m.bool_op = Some(if word == "and" { BoolOp::And } else { BoolOp::Xor });
                0
            }
            "split" => flag::SPLIT,
            "oob_nan" => flag::OOB_NAN,
            "and" | "or" | "xor" if matches!(op, Op::Setp | Op::Set | Op::Vote(_)) => {
                m.bool_op = Some(match word {
                    "and" => BoolOp::And,
                    "or" => BoolOp::Or,
                    _ => BoolOp::Xor,
                });
                0
            }
            "ca" | "cg" | "cs" | "lu" | "cv" | "wb" | "wt" | "nc" => {
                m.cache = Some(match word {
                    "ca" => CacheOp::Ca,
                    "cg" => CacheOp::Cg,
                    "cs" => CacheOp::Cs,
                    "lu" => CacheOp::Lu,
                    "cv" => CacheOp::Cv,
                    "wb" => CacheOp::Wb,
                    "wt" => CacheOp::Wt,
                    _ => CacheOp::Nc,
                });
                0
            }
            "v2" | "v4" | "v8" => {
                m.vec = word.as_bytes()[1] - b'0';
                0
            }
            "relaxed" | "acquire" | "release" | "acq_rel" | "weak" | "volatile" | "sc" | "mmio" => {
                m.sem = Some(match word {
                    "relaxed" => Sem::Relaxed,
                    "acquire" => Sem::Acquire,
                    "release" => Sem::Release,
                    "acq_rel" => Sem::AcqRel,
                    "weak" => Sem::Weak,
                    "volatile" => Sem::Volatile,
                    "sc" => Sem::Sc,
                    _ => Sem::Mmio,
                });
                0
            }
            "cta" | "cluster" | "gpu" | "sys" => {
                m.scope = Some(match word {
                    "cta" => Scope::Cta,
                    "cluster" => Scope::Cluster,
                    "gpu" => Scope::Gpu,
                    _ => Scope::Sys,
                });
                0
            }
            "row" | "col" => {
                let row = word == "row";
                m.layout = Some(match m.layout {
                    None => (row, row),
                    Some((a, _)) if matches!(op, Op::Matrix(MatrixOp::WmmaMma) | Op::Matrix(MatrixOp::Mma)) => (a, row),
                    Some(_) => (row, row),
                });
                0
            }
            "x1" | "x2" | "x4" | "x16" => {
                m.num = word[1..].parse().unwrap_or(1);
                0
            }
            "ignore-src" => flag::SRC_SIZE,
            "unified" | "kind::f16" | "kind::tf32" | "kind::f8f6f4" | "kind::i8" | "sp" | "ordered_metadata" => 0,
            w if HINTS.contains(&w) => 0,
            _ => return Err(err(file, pos, format!("unknown modifier `.{word}` for `{}`", op_name(op)))),
        };
        m.flags |= f;
    }
    if is_cmp_op && m.cmp.is_none() {
        return Err(err(file, pos, format!("`{}` needs a comparison operator", op_name(op))));
    }
    Ok(())
}

fn space_word(w: &str) -> Option<Space> {
    Some(match w {
        "global" => Space::Global,
        "shared" | "shared::cta" => Space::Shared,
        "shared::cluster" => Space::SharedCluster,
        "local" => Space::Local,
        "const" => Space::Const,
        "param" | "param::entry" | "param::func" => Space::Param,
        "generic" => Space::Generic,
        _ => return None,
    })
}

/// `m16n8k16` → (16, 8, 16); `m8n8` → (8, 8, 0).
fn parse_shape(w: &str) -> Option<(u16, u16, u16)> {
    let rest = w.strip_prefix('m')?;
    let (m, rest) = rest.split_once('n')?;
    let (n, k) = match rest.split_once('k') {
        Some((n, k)) => (n, k.parse().ok()?),
        None => (rest, 0),
    };
    Some((m.parse().ok()?, n.parse().ok()?, k))
}

/// The opcode's PTX spelling (for messages).
pub fn op_name(op: Op) -> &'static str {
    match op {
        Op::Add => "add",
        Op::Sub => "sub",
        Op::Mul => "mul",
        Op::Mad => "mad",
        Op::Mul24 => "mul24",
        Op::Mad24 => "mad24",
        Op::Sad => "sad",
        Op::Div => "div",
        Op::Rem => "rem",
        Op::Abs => "abs",
        Op::Neg => "neg",
        Op::Min => "min",
        Op::Max => "max",
        Op::Popc => "popc",
        Op::Clz => "clz",
        Op::Bfind => "bfind",
        Op::Brev => "brev",
        Op::Bfe => "bfe",
        Op::Bfi => "bfi",
        Op::Fns => "fns",
        Op::Prmt => "prmt",
        Op::Lop3 => "lop3",
        Op::And => "and",
        Op::Or => "or",
        Op::Xor => "xor",
        Op::Not => "not",
        Op::Cnot => "cnot",
        Op::Shl => "shl",
        Op::Shr => "shr",
        Op::Shf => "shf",
        Op::Dp4a => "dp4a",
        Op::Dp2a => "dp2a",
        Op::Addc => "addc",
        Op::Subc => "subc",
        Op::Madc => "madc",
        Op::Bmsk => "bmsk",
        Op::Szext => "szext",
        Op::Fma => "fma",
        Op::Rcp => "rcp",
        Op::Sqrt => "sqrt",
        Op::Rsqrt => "rsqrt",
        Op::Sin => "sin",
        Op::Cos => "cos",
        Op::Lg2 => "lg2",
        Op::Ex2 => "ex2",
        Op::Tanh => "tanh",
        Op::Copysign => "copysign",
        Op::Testp => "testp",
        Op::Setp => "setp",
        Op::Set => "set",
        Op::Selp => "selp",
        Op::Slct => "slct",
        Op::Cvt => "cvt",
        Op::CvtPack => "cvt.pack",
        Op::Cvta => "cvta",
        Op::Mov => "mov",
        Op::Ld => "ld",
        Op::Ldu => "ldu",
        Op::St => "st",
        Op::Atom(_) => "atom",
        Op::Red(_) => "red",
        Op::Prefetch => "prefetch",
        Op::Isspacep => "isspacep",
        Op::Mapa => "mapa",
        Op::Getctarank => "getctarank",
        Op::Alloca => "alloca",
        Op::Stacksave => "stacksave",
        Op::Stackrestore => "stackrestore",
        Op::Bra => "bra",
        Op::BrxIdx => "brx.idx",
        Op::Call => "call",
        Op::Ret => "ret",
        Op::Exit => "exit",
        Op::Trap => "trap",
        Op::Brkpt => "brkpt",
        Op::Nanosleep => "nanosleep",
        Op::Pmevent => "pmevent",
        Op::Bar(_) => "bar",
        Op::BarWarpSync => "bar.warp.sync",
        Op::BarrierCluster(_) => "barrier.cluster",
        Op::Membar => "membar",
        Op::Fence => "fence",
        Op::Shfl(_) => "shfl.sync",
        Op::Vote(_) => "vote.sync",
        Op::Match(_) => "match.sync",
        Op::Redux(_) => "redux.sync",
        Op::Activemask => "activemask",
        Op::Machine(m) => m.name(),
        Op::Nop => "nop",
        Op::Elect => "elect.sync",
        Op::Mbarrier(_) => "mbarrier",
        Op::Cp(CpOp::Async) => "cp.async",
        Op::Cp(CpOp::AsyncCommit) => "cp.async.commit_group",
        Op::Cp(CpOp::AsyncWaitGroup) => "cp.async.wait_group",
        Op::Cp(CpOp::AsyncWaitAll) => "cp.async.wait_all",
        Op::Cp(CpOp::AsyncMbarArrive) => "cp.async.mbarrier.arrive",
        Op::Cp(CpOp::Bulk) => "cp.async.bulk",
        Op::Cp(CpOp::BulkTensor) => "cp.async.bulk.tensor",
        Op::Cp(CpOp::BulkPrefetch) => "cp.async.bulk.prefetch",
        Op::Cp(CpOp::BulkPrefetchTensor) => "cp.async.bulk.prefetch.tensor",
        Op::Cp(CpOp::BulkCommit) => "cp.async.bulk.commit_group",
        Op::Cp(CpOp::BulkWait) => "cp.async.bulk.wait_group",
        Op::Cp(CpOp::ReduceBulk) => "cp.reduce.async.bulk",
        Op::Cp(CpOp::ReduceBulkTensor) => "cp.reduce.async.bulk.tensor",
        Op::Matrix(MatrixOp::WmmaLoad) => "wmma.load",
        Op::Matrix(MatrixOp::WmmaStore) => "wmma.store",
        Op::Matrix(MatrixOp::WmmaMma) => "wmma.mma",
        Op::Matrix(MatrixOp::Mma) => "mma.sync",
        Op::Matrix(MatrixOp::Ldmatrix) => "ldmatrix",
        Op::Matrix(MatrixOp::Stmatrix) => "stmatrix",
        Op::Matrix(MatrixOp::Movmatrix) => "movmatrix",
        Op::Matrix(MatrixOp::WgmmaFence) => "wgmma.fence",
        Op::Matrix(MatrixOp::WgmmaCommit) => "wgmma.commit_group",
        Op::Matrix(MatrixOp::WgmmaWait) => "wgmma.wait_group",
        Op::Matrix(MatrixOp::WgmmaMma) => "wgmma.mma_async",
        Op::Setmaxnreg => "setmaxnreg",
        Op::Griddepcontrol => "griddepcontrol",
        Op::Tensormap => "tensormap.replace",
        Op::Createpolicy => "createpolicy",
        Op::Texture => "tex/surface",
        Op::Video(_) => "video (vabsdiff4 …)",
    }
}

/// How many leading operands an instruction writes.
pub fn dst_count(op: Op, m: &Mods) -> u8 {
    match op {
        Op::St
        | Op::Red(_)
        | Op::Prefetch
        | Op::Bra
        | Op::BrxIdx
        | Op::Call
        | Op::Ret
        | Op::Exit
        | Op::Trap
        | Op::Brkpt
        | Op::Nanosleep
        | Op::Pmevent
        | Op::Bar(BarOp::Sync | BarOp::Arrive)
        | Op::BarWarpSync
        | Op::BarrierCluster(_)
        | Op::Membar
        | Op::Fence
        | Op::Stackrestore
        | Op::Setmaxnreg
        | Op::Griddepcontrol
        | Op::Tensormap
        | Op::Cp(_) => 0,
        Op::Texture => 1,
        Op::Mbarrier(MbarOp::Init | MbarOp::ExpectTx | MbarOp::CompleteTx | MbarOp::Inval) => 0,
        Op::Matrix(MatrixOp::WmmaStore | MatrixOp::Stmatrix | MatrixOp::WgmmaFence | MatrixOp::WgmmaCommit | MatrixOp::WgmmaWait) => 0,
        Op::Shfl(_) | Op::Elect => 1,
        Op::Setp if m.bool_op.is_some() => 1,
        _ => 1,
    }
}

/// The instruction class of an opcode (statistics and the default functional unit).
pub fn class_of(op: Op, m: &Mods) -> Class {
    let ty = m.ty();
    let float_class = || match ty {
        Ty::F64 => Class::Fp64,
        Ty::F16 | Ty::F16x2 | Ty::Bf16 | Ty::Bf16x2 => Class::Fp16,
        _ => Class::Fp32,
    };
    match op {
        Op::Add | Op::Sub | Op::Min | Op::Max | Op::Abs | Op::Neg | Op::Fma if ty.is_float() => float_class(),
        Op::Mul | Op::Mad if ty.is_float() => float_class(),
        Op::Div | Op::Rem if ty.is_float() => {
            if m.has(flag::APPROX) || m.has(flag::FULL) {
                Class::Sfu
            } else {
                float_class()
            }
        }
        Op::Div | Op::Rem => Class::IntDiv,
        Op::Mul | Op::Mad | Op::Mul24 | Op::Mad24 | Op::Madc | Op::Dp4a | Op::Dp2a | Op::Sad => Class::IntMul,
        Op::Add | Op::Sub | Op::Min | Op::Max | Op::Abs | Op::Neg | Op::Addc | Op::Subc => Class::IntArith,
        Op::Fma => float_class(),
        Op::Popc | Op::Clz | Op::Bfind | Op::Brev | Op::Bfe | Op::Bfi | Op::Fns | Op::Prmt | Op::Lop3 | Op::And | Op::Or
        | Op::Xor | Op::Not | Op::Cnot | Op::Shl | Op::Shr | Op::Shf | Op::Bmsk | Op::Szext => Class::Logic,
        Op::Rcp | Op::Sqrt | Op::Rsqrt if m.has(flag::APPROX) => Class::Sfu,
        Op::Rcp | Op::Sqrt | Op::Rsqrt => float_class(),
        Op::Sin | Op::Cos | Op::Lg2 | Op::Ex2 | Op::Tanh => Class::Sfu,
        Op::Copysign | Op::Testp => float_class(),
        Op::Setp | Op::Set | Op::Selp | Op::Slct => {
            if m.ty2().is_float() || ty.is_float() {
                float_class()
            } else {
                Class::IntArith
            }
        }
        Op::Cvt | Op::CvtPack => Class::Conv,
        Op::Cvta | Op::Mov | Op::Isspacep | Op::Mapa | Op::Getctarank | Op::Stacksave => Class::Move,
        Op::Ld | Op::Ldu => match m.space() {
            Space::Shared | Space::SharedCluster => Class::LoadShared,
            Space::Local => Class::LocalMem,
            Space::Const | Space::Param => Class::ConstParam,
            _ => Class::LoadGlobal,
        },
        Op::St => match m.space() {
            Space::Shared | Space::SharedCluster => Class::StoreShared,
            Space::Local => Class::LocalMem,
            Space::Param => Class::ConstParam,
            _ => Class::StoreGlobal,
        },
        Op::Atom(_) | Op::Red(_) => Class::Atomic,
        Op::Prefetch | Op::Alloca | Op::Stackrestore | Op::Nanosleep | Op::Pmevent | Op::Trap | Op::Brkpt | Op::Setmaxnreg
        | Op::Griddepcontrol | Op::Tensormap | Op::Createpolicy => Class::Misc,
        Op::Texture => Class::LoadGlobal,
        Op::Video(_) => Class::IntArith,
        Op::Bra | Op::BrxIdx | Op::Call | Op::Ret | Op::Exit => Class::Control,
        Op::Bar(_) | Op::BarrierCluster(_) | Op::Membar | Op::Fence | Op::Mbarrier(_) => Class::Barrier,
        Op::BarWarpSync | Op::Shfl(_) | Op::Vote(_) | Op::Match(_) | Op::Redux(_) | Op::Activemask | Op::Elect => Class::Warp,
        Op::Cp(_) => Class::Async,
        Op::Matrix(MatrixOp::Ldmatrix | MatrixOp::Stmatrix) => Class::LoadShared,
        Op::Matrix(_) => Class::Tensor,
        Op::Machine(MachineOp::MufuSinCos { .. }) => Class::Sfu,
        Op::Machine(MachineOp::Fchk) => Class::Fp32,
        Op::Machine(MachineOp::ImadHi { .. } | MachineOp::ImadX) => Class::IntMul,
        Op::Machine(MachineOp::Lop3 | MachineOp::Plop3 | MachineOp::Shf { .. }) => Class::Logic,
        Op::Machine(_) => Class::IntArith,
        Op::Nop => Class::Misc,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dec(op: &str, mods: &[&str]) -> Result<(Op, Mods), PtxError> {
        let mods: Vec<(String, Pos)> = mods.iter().map(|s| (s.to_string(), Pos { line: 1, col: 9 })).collect();
        decode_op(op, &mods, "t.ptx", Pos { line: 1, col: 1 })
    }

    #[test]
    fn arithmetic_modifiers() {
        let (op, m) = dec("add", &["rz", "ftz", "sat", "f32"]).unwrap();
        assert_eq!(op, Op::Add);
        assert_eq!(m.types, vec![Ty::F32]);
        assert_eq!(m.rnd, Some(Rnd::Rz));
        assert!(m.has(flag::FTZ) && m.has(flag::SAT));
        let (_, m) = dec("mul", &["wide", "s32"]).unwrap();
        assert!(m.has(flag::WIDE));
        let (_, m) = dec("setp", &["lo", "u32"]).unwrap();
        assert_eq!(m.cmp, Some(Cmp::Lo));
        let (_, m) = dec("setp", &["ne", "and", "s32"]).unwrap();
        assert_eq!(m.bool_op, Some(BoolOp::And));
        // A comparison without its operator is reported at the opcode.
        let e = dec("setp", &["s32"]).unwrap_err();
        assert_eq!((e.pos.line, e.pos.col), (1, 1), "{e}");
    }

    #[test]
    fn families() {
        assert_eq!(dec("atom", &["global", "add", "f32"]).unwrap().0, Op::Atom(AtomOp::Add));
        assert_eq!(dec("bar", &["red", "popc", "u32"]).unwrap().0, Op::Bar(BarOp::RedPopc));
        assert_eq!(dec("barrier", &["cluster", "wait", "aligned"]).unwrap().0, Op::BarrierCluster(ClusterBarOp::Wait));
        let (op, m) = dec("mbarrier", &["try_wait", "parity", "shared::cta", "b64"]).unwrap();
        assert_eq!(op, Op::Mbarrier(MbarOp::TryWait));
        assert!(m.has(flag::PARITY));
        let (op, m) = dec(
            "cp",
            &["async", "bulk", "tensor", "2d", "shared::cluster", "global", "tile", "mbarrier::complete_tx::bytes", "multicast::cluster"],
        )
        .unwrap();
        assert_eq!(op, Op::Cp(CpOp::BulkTensor));
        assert_eq!(m.num, 2);
        assert_eq!(m.spaces, vec![Space::SharedCluster, Space::Global]);
        assert!(m.has(flag::MBAR_TX) && m.has(flag::MULTICAST));
        let (op, m) = dec("mma", &["sync", "aligned", "m16n8k16", "row", "col", "f32", "f16", "f16", "f32"]).unwrap();
        assert_eq!(op, Op::Matrix(MatrixOp::Mma));
        assert_eq!(m.shape, Some((16, 8, 16)));
        assert_eq!(m.layout, Some((true, false)));
        assert_eq!(m.types.len(), 4);
        assert_eq!(dec("cp", &["async", "bulk", "wait_group", "read"]).unwrap().0, Op::Cp(CpOp::BulkWait));
    }

    #[test]
    fn unknown_words_are_errors_naming_them() {
        let e = dec("add", &["f32", "bogus"]).unwrap_err();
        assert!(e.msg.contains("`.bogus`"), "{}", e.msg);
        assert_eq!(e.pos.col, 9);
        let e = dec("frobnicate", &[]).unwrap_err();
        assert!(e.msg.contains("unknown opcode `frobnicate`"));
        assert!(dec("atom", &["global", "u32"]).is_err());
        assert!(dec("setp", &["s32"]).is_err());
        assert_eq!(dec("tex", &["2d", "v4", "f32", "f32"]).unwrap().0, Op::Texture);
        assert!(dec("multimem", &["ld_reduce"]).unwrap_err().msg.contains("not modelled"));
    }
}
