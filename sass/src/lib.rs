//! warpsim-sass: the machine code ptxas produces, read from the listing of a cubin.
//!
//! One concern: SASS listing text in, a typed [`Module`] out. [`parse`] reads what
//! `nvdisasm -c -hex -gi -gp` (or `cuobjdump -sass`) prints for a Volta-to-Hopper cubin (sm_70,
//! sm_75, sm_80, sm_86, sm_89, sm_90, sm_90a): per kernel (`.text.<name>` section) each
//! instruction's byte offset, guard predicate, opcode and dot-modifiers, typed operands, raw
//! 128-bit encoding, the scheduling control bits decoded from it ([`control`]), and the CUDA and
//! PTX source lines the line-info comments give. [`abi`] says where the kernel parameters sit in
//! constant bank 0 per target; [`check`] verifies the control-bit decoding against the
//! dependences in the code (the scoreboard discipline ptxas follows); [`lower`] turns a kernel
//! into an `isa::Program` the simulator runs as it runs PTX (functional SASS).
//!
//! It knows nothing of timing (what a stall or a barrier costs is the simulator's business),
//! starts no programs (`warpsim-toolchain` runs ptxas and nvdisasm) and reads no files: callers
//! hand it the listing's text. Bad input is an error naming the listing's line and column and
//! the offending text, never a panic.

pub mod abi;
pub mod check;
pub mod control;
pub mod lower;
mod parse;
pub mod pipes;
mod show;

use std::collections::BTreeMap;

use serde::Serialize;

pub use control::Control;
pub use parse::{parse, SassError};
pub use show::{opcode_table, table};

/// A parsed listing: one cubin's kernels.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Module {
    /// The SASS target (`sm_90`), from `.target`, `.headerflags` or cuobjdump's `code for`.
    pub arch: Option<String>,
    pub kernels: Vec<Kernel>,
    /// Constant bank 3 (`.nv.constant3`): the module's `__constant__` variables.
    pub bank3: ConstSection,
    /// Constant bank 4 (`.nv.constant4`): the addresses of the module's `__device__` variables
    /// the code takes (sm_90).
    pub bank4: ConstSection,
}

impl Module {
    pub fn kernel(&self, name: &str) -> Option<&Kernel> {
        self.kernels.iter().find(|k| k.name == name)
    }

    /// How often each opcode (without modifiers) occurs, over every kernel.
    pub fn opcode_counts(&self) -> BTreeMap<String, usize> {
        let mut m = BTreeMap::new();
        for i in self.kernels.iter().flat_map(|k| &k.instructions) {
            *m.entry(i.opcode.clone()).or_insert(0) += 1;
        }
        m
    }
}

/// One `.text.<name>` section: a kernel and the subroutines ptxas placed in it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Kernel {
    pub name: String,
    /// `.other <name>,@"STO_CUDA_ENTRY ..."`: a `__global__` entry (else a device function).
    pub entry: bool,
    /// ptxas's registers per thread, where the listing gives them: `SHI_REGISTERS=<n>` of the
    /// section's `.sectioninfo` (older nvdisasm), or the `EIATTR_REGCOUNT` attribute of the
    /// module's `.nv.info` section (nvdisasm 13 without `-c`; the committed listings keep it).
    pub registers: Option<u32>,
    /// Labels (`.L_x_3`, subroutine names) and the pc they mark.
    pub labels: BTreeMap<String, u32>,
    pub instructions: Vec<Instruction>,
    /// Constant bank 2 (`.nv.constant2.<name>`, printed by nvdisasm without `-c`): the literals
    /// ptxas keeps out of the code (sm_75–89's 64-bit addends, `c[0x2][0x0]`, `BRX` offset
    /// tables). Empty when the listing has none.
    pub bank2: ConstSection,
}

/// A constant-bank section as nvdisasm prints it (without `-c`): bank 2 of a kernel
/// (`.nv.constant2.<name>`), or the module's bank 3 (`.nv.constant3`: the `__constant__`
/// variables, each a label at its offset) or bank 4 (`.nv.constant4`: one `.dword <symbol>` per
/// `__device__` variable whose address the code takes).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ConstSection {
    pub bytes: Vec<u8>,
    /// Where the loader patches in an address (a relocation, printed as a symbol: its bytes here
    /// are not the value).
    pub relocated: Vec<Reloc>,
    /// The variables the section holds (its labels) and their offsets, in order.
    pub symbols: Vec<(String, u32)>,
}

/// An entry the loader fills with an address: `.dword g_table` (`target` = `g_table`), or
/// `.dword fun@R_CUDA_FUNC_DESC_64(f)` (`target` as printed).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Reloc {
    pub offset: u32,
    pub size: u32,
    pub target: String,
}

impl ConstSection {
    /// The little-endian value of `size` bytes at `offset` of bank `bank`, or why not.
    pub fn read(&self, bank: u32, offset: u32, size: u32) -> Result<u64, String> {
        let (start, end) = (offset as u64, offset as u64 + size as u64);
        if self.relocated.iter().any(|r| (r.offset as u64) < end && start < r.offset as u64 + r.size as u64) {
            return Err(format!("c[{bank:#x}][{offset:#x}] holds an address the loader patches in (a relocation)"));
        }
        let b = self.bytes.get(start as usize..end as usize).ok_or_else(|| format!("c[{bank:#x}][{offset:#x}] is past the {} bytes of bank {bank}", self.bytes.len()))?;
        Ok(b.iter().rev().fold(0u64, |v, &x| v << 8 | x as u64))
    }

    /// The variable whose extent holds `offset` (up to the next label or the section's end),
    /// and `offset` from its start.
    pub fn symbol_at(&self, offset: u32) -> Option<(&str, u32)> {
        let i = self.symbols.partition_point(|(_, o)| *o <= offset).checked_sub(1)?;
        let end = self.symbols.get(i + 1).map_or(self.bytes.len() as u32, |(_, o)| *o);
        let (name, start) = &self.symbols[i];
        (offset < end).then_some((name.as_str(), offset - start))
    }

    /// The entry relocated at exactly `offset`.
    pub fn reloc_at(&self, offset: u32) -> Option<&Reloc> {
        self.relocated.iter().find(|r| r.offset == offset)
    }
}

impl Kernel {
    /// The instruction at byte offset `pc`.
    pub fn at(&self, pc: u32) -> Option<&Instruction> {
        self.instructions.binary_search_by_key(&pc, |i| i.pc).ok().map(|k| &self.instructions[k])
    }
}

/// One machine instruction.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Instruction {
    /// Byte offset in the kernel's section.
    pub pc: u32,
    pub guard: Option<Guard>,
    /// `IMAD` in `IMAD.WIDE.U32`.
    pub opcode: String,
    /// `["WIDE", "U32"]` in `IMAD.WIDE.U32`.
    pub modifiers: Vec<String>,
    pub operands: Vec<Operand>,
    /// The 128-bit instruction word (`None` when the listing was printed without `-hex`); JSON
    /// gives it as a `0x` hex string.
    #[serde(serialize_with = "hex128")]
    pub encoding: Option<u128>,
    /// Decoded from `encoding`.
    pub control: Option<Control>,
    /// The CUDA source line (innermost, with the inlining chain), from `-g`/`-gi` comments.
    pub source: Option<SourceLine>,
    /// The PTX line (1-based in the PTX ptxas compiled), from `-gp` comments.
    pub ptx_line: Option<u32>,
    /// The listing line the instruction came from (1-based).
    pub listing_line: usize,
}

impl Instruction {
    /// `IMAD.WIDE.U32`.
    pub fn mnemonic(&self) -> String {
        std::iter::once(self.opcode.as_str()).chain(self.modifiers.iter().map(String::as_str)).collect::<Vec<_>>().join(".")
    }

    pub fn has_modifier(&self, m: &str) -> bool {
        self.modifiers.iter().any(|x| x == m)
    }

    /// The instruction as nvdisasm prints it (`@!P0 IMAD.WIDE R2, R7, 0x4, R2`), from the parsed
    /// form.
    pub fn text(&self) -> String {
        let mut s = String::new();
        if let Some(g) = &self.guard {
            s.push_str(&format!("@{}{} ", if g.negated { "!" } else { "" }, g.pred));
        }
        s.push_str(&self.mnemonic());
        let ops: Vec<String> = self.operands.iter().map(Operand::to_string).collect();
        if !ops.is_empty() {
            s.push(' ');
            s.push_str(&ops.join(", "));
        }
        s
    }
}

fn hex128<S: serde::Serializer>(v: &Option<u128>, s: S) -> Result<S::Ok, S::Error> {
    match v {
        Some(v) => s.serialize_str(&format!("{v:#034x}")),
        None => s.serialize_none(),
    }
}

/// `@P0`, `@!PT`, `@UP1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Guard {
    pub negated: bool,
    pub pred: Pred,
}

/// A predicate register: `P0`–`P6`, `PT` (index 7), or their uniform forms `UP0`–`UP6`, `UPT`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Pred {
    pub uniform: bool,
    pub index: u8,
}

impl Pred {
    pub const TRUE_INDEX: u8 = 7;

    pub fn is_true(&self) -> bool {
        self.index == Self::TRUE_INDEX
    }
}

impl std::fmt::Display for Pred {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let u = if self.uniform { "U" } else { "" };
        if self.is_true() {
            write!(f, "{u}PT")
        } else {
            write!(f, "{u}P{}", self.index)
        }
    }
}

/// A general register `R0`–`R254` / `RZ` (index 255) or a uniform one `UR0`–`UR62` / `URZ` (63).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Reg {
    pub uniform: bool,
    pub index: u8,
}

impl Reg {
    pub const RZ: u8 = 255;
    pub const URZ: u8 = 63;

    pub fn is_zero(&self) -> bool {
        self.index == if self.uniform { Self::URZ } else { Self::RZ }
    }
}

impl std::fmt::Display for Reg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.uniform, self.is_zero()) {
            (false, true) => write!(f, "RZ"),
            (true, true) => write!(f, "URZ"),
            (false, false) => write!(f, "R{}", self.index),
            (true, false) => write!(f, "UR{}", self.index),
        }
    }
}

/// One operand with its prefix and suffix decorations.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Operand {
    pub value: Value,
    /// `-R2`, `-|R2|`.
    pub neg: bool,
    /// `|R2|`.
    pub abs: bool,
    /// `!P0` (predicate negation) or `~R2` (bitwise complement).
    pub not: bool,
    /// `R2.reuse`: the register is kept in the operand reuse cache.
    pub reuse: bool,
    /// Other dot-suffixes (`.H1`, `.B1`, `.X`, `.64` outside an address): kept as written.
    pub modifiers: Vec<String>,
}

impl std::fmt::Display for Operand {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let prefix = match (self.neg, self.not) {
            (true, _) => "-",
            (_, true) => if matches!(self.value, Value::Pred(_)) { "!" } else { "~" },
            _ => "",
        };
        let body = if self.abs { format!("|{}|", self.value) } else { self.value.to_string() };
        write!(f, "{prefix}{body}")?;
        for m in &self.modifiers {
            write!(f, ".{m}")?;
        }
        if self.reuse {
            write!(f, ".reuse")?;
        }
        Ok(())
    }
}

/// What an operand is.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum Value {
    Reg(Reg),
    Pred(Pred),
    /// An integer written in hex or decimal (`0x10`, `-0x1`, `4096`).
    Int(i64),
    /// A floating-point literal (`0.5`, `1.4426950216293334961`, `+INF`, `-QNAN`); the sign is
    /// part of the value.
    Float(f64),
    /// `c[0x0][0x210]`, `c[0x3][UR4+0x10]`, `c[0x0][R2]`; `cx[UR4][...]` has a register bank.
    Const { bank: Bank, addr: Address },
    /// A memory address: `[R2.64+0x10]`, `[UR4]`, `desc[UR4][R2.64]` (global memory through the
    /// memory descriptor in a uniform register pair), `gdesc[UR8]` (a wgmma matrix descriptor).
    Mem { desc: Option<Desc>, addr: Address },
    /// A branch or call target: `` `(.L_x_3) `` with the pc the label marks in this kernel.
    Target { label: String, pc: Option<u32> },
    /// nvdisasm's note of an indirect branch's possible targets, `(*"BRANCH_TARGETS .L_x_35,
    /// .L_x_36"*)` after `BRX R2 -0x160`: each label with the pc it marks in this kernel.
    BranchTargets(Vec<(String, Option<u32>)>),
    /// A special register: `SR_TID.X`, `SR_CTAID.Y`, `SR_LANEID`, `SRZ`.
    Special(String),
    /// A convergence barrier register `B0`–`B15` (BSSY/BSYNC/BREAK).
    ConvBarrier(u8),
    /// A scoreboard `SB0`–`SB5` (DEPBAR).
    Scoreboard(u8),
    /// A set of scoreboards, `{5,4,3,2,1,0}` (`DEPBAR {…}` waits on each), as written.
    Scoreboards(Vec<u8>),
    /// A memory descriptor alone, `desc[UR10]` (`UBLKCP`'s last operand).
    Descriptor(Reg),
    /// A relocated symbol half: `32@lo(sym)`, `32@hi(sym)`.
    Symbol { bits: u32, part: String, name: String },
    /// Any other bare word nvdisasm prints as an operand (`PR`, `gsb0`, `2D`, `ARRAY_2D`).
    Word(String),
}

impl std::fmt::Display for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Value::Reg(r) => write!(f, "{r}"),
            Value::Pred(p) => write!(f, "{p}"),
            Value::Int(v) if *v < 0 => write!(f, "-{:#x}", v.unsigned_abs()),
            Value::Int(v) => write!(f, "{v:#x}"),
            Value::Float(v) if v.is_nan() => write!(f, "{}QNAN", if v.is_sign_negative() { "-" } else { "+" }),
            Value::Float(v) if v.is_infinite() => write!(f, "{}INF", if *v < 0.0 { "-" } else { "+" }),
            Value::Float(v) => write!(f, "{v:?}"),
            Value::Const { bank, addr } => write!(f, "{}[{}][{addr}]", if matches!(bank, Bank::Reg(_)) { "cx" } else { "c" }, bank),
            Value::Mem { desc: None, addr } => write!(f, "[{addr}]"),
            Value::Mem { desc: Some(Desc::Global(r)), addr } => write!(f, "desc[{r}][{addr}]"),
            Value::Mem { desc: Some(Desc::Matrix), addr } => write!(f, "gdesc[{addr}]"),
            Value::Target { label, .. } => write!(f, "`({label})"),
            Value::BranchTargets(t) => write!(f, "(*\"BRANCH_TARGETS {}\"*)", t.iter().map(|(l, _)| l.as_str()).collect::<Vec<_>>().join(",")),
            Value::Scoreboards(v) => write!(f, "{{{}}}", v.iter().map(u8::to_string).collect::<Vec<_>>().join(",")),
            Value::Descriptor(r) => write!(f, "desc[{r}]"),
            Value::Special(s) | Value::Word(s) => write!(f, "{s}"),
            Value::ConvBarrier(b) => write!(f, "B{b}"),
            Value::Scoreboard(b) => write!(f, "SB{b}"),
            Value::Symbol { bits, part, name } => write!(f, "{bits}@{part}({name})"),
        }
    }
}

/// A constant bank: a literal index, or a uniform register (`cx[UR4]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Bank {
    Index(u32),
    Reg(Reg),
}

impl std::fmt::Display for Bank {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Bank::Index(i) => write!(f, "{i:#x}"),
            Bank::Reg(r) => write!(f, "{r}"),
        }
    }
}

/// The descriptor prefix of a memory operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Desc {
    /// `desc[URn]`: the global-memory descriptor (Ampere and later).
    Global(Reg),
    /// `gdesc[...]`: a wgmma shared-memory matrix descriptor (Hopper); the register is in `addr`.
    Matrix,
}

/// `R2.64+UR4+-0x10`: a register, a uniform register and a byte offset, each optional.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Address {
    pub reg: Option<AddrReg>,
    pub ureg: Option<AddrReg>,
    pub offset: i64,
}

/// A register inside an address, with its width and scaling suffixes (`.64`, `.U32`, `.X4`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AddrReg {
    pub reg: Reg,
    pub modifiers: Vec<String>,
}

impl AddrReg {
    /// `R2.64`: a 64-bit address in the pair R2:R3.
    pub fn wide(&self) -> bool {
        self.modifiers.iter().any(|m| m == "64")
    }
}

impl std::fmt::Display for Address {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut parts: Vec<String> = Vec::new();
        for r in [&self.reg, &self.ureg].into_iter().flatten() {
            parts.push(std::iter::once(r.reg.to_string()).chain(r.modifiers.iter().cloned()).collect::<Vec<_>>().join("."));
        }
        if self.offset != 0 || parts.is_empty() {
            parts.push(if self.offset < 0 { format!("-{:#x}", self.offset.unsigned_abs()) } else { format!("{:#x}", self.offset) });
        }
        write!(f, "{}", parts.join("+"))
    }
}

/// A CUDA source position: the innermost file and line, and the call sites it was inlined at
/// (innermost first).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SourceLine {
    pub file: String,
    pub line: u32,
    pub inlined_at: Vec<(String, u32)>,
}

impl std::fmt::Display for SourceLine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.file, self.line)?;
        for (file, line) in &self.inlined_at {
            write!(f, " <- {file}:{line}")?;
        }
        Ok(())
    }
}
