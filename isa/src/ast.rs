//! The PTX syntax tree, as written.
//!
//! The parser produces this tree without interpreting opcodes: an instruction is its guard, its
//! opcode word, its dotted modifiers and its operands, each with a source position. Giving
//! instructions meaning (and rejecting unknown opcodes, modifiers and register misuse) is
//! lowering's job (`decode.rs`, `lower.rs`), so the tree can represent anything syntactically valid.

use crate::lexer::Pos;

/// A whole PTX file.
#[derive(Debug, Clone, Default)]
pub struct Module {
    /// `.version major.minor`
    pub version: (u32, u32),
    /// `.target sm_90a[, debug]` words.
    pub target: Vec<String>,
    /// `.address_size` (64 when absent).
    pub address_size: u32,
    /// `.file N "name"` entries.
    pub files: Vec<(u32, String)>,
    /// Module-scope variables (global, const, shared, extern shared…).
    pub vars: Vec<VarDecl>,
    /// Kernels (`.entry`) and device functions (`.func`), definitions and declarations.
    pub funcs: Vec<Function>,
}

/// Linkage of a module-scope symbol.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Linkage {
    None,
    Visible,
    Extern,
    Weak,
    Common,
}

/// A state space.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
pub enum Space {
    Reg,
    Sreg,
    Const,
    Global,
    Local,
    Param,
    Shared,
    /// `.shared::cluster` (distributed shared memory of the cluster).
    SharedCluster,
    Tex,
    /// No space named: generic addressing.
    Generic,
}

/// A variable declaration in any state space (including `.param` and `.reg` lists in bodies).
#[derive(Debug, Clone)]
pub struct VarDecl {
    pub pos: Pos,
    pub linkage: Linkage,
    pub space: Space,
    pub align: Option<u32>,
    /// Element type word without the dot (`b8`, `u32`, `f32`, `pred`); vectors in `vec`.
    pub ty: String,
    /// `.v2`/`.v4`/`.v8` element count, 1 for scalars.
    pub vec: u32,
    pub name: String,
    /// Array dimensions; `None` for an unsized `[]`.
    pub dims: Vec<Option<u64>>,
    /// `%r<N>`: declares `%r0 … %r{N-1}`.
    pub range: Option<u32>,
    pub init: Option<Init>,
    /// `.ptr.global.align 16` style parameter attributes, kept as written.
    pub attrs: Vec<String>,
}

/// An initializer.
#[derive(Debug, Clone, PartialEq)]
pub enum Init {
    Int(i128),
    F32(u32),
    F64(u64),
    Float(f64),
    /// Address of a symbol (optionally `generic(sym)`) plus a byte offset.
    Sym { name: String, offset: i64, generic: bool },
    List(Vec<Init>),
}

/// `.entry` or `.func`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FuncKind {
    Entry,
    Func,
}

#[derive(Debug, Clone)]
pub struct Function {
    pub pos: Pos,
    pub kind: FuncKind,
    pub linkage: Linkage,
    pub name: String,
    pub returns: Vec<VarDecl>,
    pub params: Vec<VarDecl>,
    /// Performance directives (`.maxntid 256, 1, 1`, `.reqnctapercluster 2`, `.noreturn`…).
    pub directives: Vec<(String, Vec<u64>)>,
    /// `None` for a declaration (prototype) without a body.
    pub body: Option<Vec<Stmt>>,
}

/// `.loc file line column` (inlining information kept as the innermost position only).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Loc {
    pub file: u32,
    pub line: u32,
    pub col: u32,
}

/// A statement in a function body.
#[derive(Debug, Clone)]
pub enum Stmt {
    Label(String, Pos),
    Var(VarDecl),
    Inst(Instruction),
    /// `{ … }`: a nested scope (inline asm, call sequences).
    Block(Vec<Stmt>),
    Loc(Loc),
    Pragma(Vec<String>, Pos),
    /// `label: .branchtargets L1, L2, …;`
    BranchTargets { label: String, targets: Vec<String>, pos: Pos },
    /// `label: .callprototype (.param .b32 _) _ (.param .b64 _);`
    CallPrototype { label: String, pos: Pos },
}

/// One instruction as written.
#[derive(Debug, Clone)]
pub struct Instruction {
    pub pos: Pos,
    /// `@%p` / `@!%p`: (negated, register name, position).
    pub guard: Option<(bool, String, Pos)>,
    pub opcode: String,
    /// Modifiers without the dot, each with its position.
    pub mods: Vec<(String, Pos)>,
    pub operands: Vec<Operand>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Operand {
    pub pos: Pos,
    pub kind: OperandKind,
}

#[derive(Debug, Clone, PartialEq)]
pub enum OperandKind {
    /// A register or symbol name, with an optional `.x`-style component (`%tid.x`).
    Name(String, Option<String>),
    /// `!%p` (negated predicate source).
    Not(String),
    /// `%r|%p` (a result and a predicate result).
    Pair(String, String),
    Int(i128),
    F32(u32),
    F64(u64),
    /// `[base + offset]` or `[base, {coords}]`; `base` may be a register, a symbol or absent
    /// (`[0x100]`, an absolute address in `offset`).
    Addr { base: Option<String>, offset: i64, coords: Option<Vec<Operand>> },
    Vector(Vec<Operand>),
    /// A parenthesized list (call return values and arguments).
    List(Vec<Operand>),
    Sink,
    /// `sym + off` outside brackets.
    SymOffset(String, i64),
}
