//! `Program`: one kernel, lowered and ready to execute.
//!
//! Instructions of the kernel and of every device function it may call are concatenated (the
//! kernel first), registers are dense indices, labels are instruction indices, and every symbol
//! the code names is in one table with its state space and layout. Control-flow analysis results
//! (basic blocks and each branch's reconvergence point, the immediate post-dominator) live here so
//! the simulator's SIMT stack needs no graph code.

use crate::ast::Space;
use crate::inst::Inst;
use crate::types::Ty;
use serde::Serialize;

/// Sentinel reconvergence point: the end of the function (threads reconverge at `ret`/`exit`).
pub const RECONV_EXIT: u32 = u32::MAX;

/// Flag on a branch's reconvergence point (never on [`RECONV_EXIT`]): the branch leaves a
/// convergence region whose lanes yield (SASS: a `BSSY`…`BSYNC` region holding a `YIELD`), so its
/// paths do not wait for each other at the region's end the first time they reach it; each goes
/// on and they meet there the next time (a loop around the region brings them back) or at exit.
/// The H200 runs a CAS loop's successful lanes on alone: `cas_fadd_1_w1`, one warp of one-element
/// lanes, runs the code after the loop once per success (425 instructions).
pub const RECONV_HOLD: u32 = 1 << 31;

/// A register: its name (for messages), declared type and owning function.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RegInfo {
    pub name: String,
    pub ty: Ty,
    pub func: u32,
}

/// Where a symbol lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum SymKind {
    /// Device memory allocated at load (`.global`), with `init` bytes.
    Global,
    /// Constant bank (`.const`), with `init` bytes.
    Const,
    /// Static shared memory at `offset` in each CTA's shared window.
    Shared,
    /// `.extern .shared` arrays: all start at the dynamic shared region (`offset` = static size).
    DynShared,
    /// A kernel parameter at `offset` in the parameter buffer.
    KernelParam,
    /// A per-thread `.local` or function `.param` variable at `offset` in its function's frame.
    Frame,
    /// A device function (`offset` is its index in `Program::funcs`).
    Func,
}

/// A symbol named by the program.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Symbol {
    pub name: String,
    pub kind: SymKind,
    pub space: Space,
    pub size: u64,
    pub align: u32,
    pub offset: u64,
    /// Owning function of a `Frame` symbol.
    pub func: u32,
    /// The initializer's bytes (globals and constants); the rest of the variable is zero.
    pub init: Vec<u8>,
    /// Address initializers: (byte offset, symbol, addend, generic).
    pub relocs: Vec<(u64, u32, i64, bool)>,
    /// Element type as declared (for parameter listings).
    pub ty: Ty,
}

/// A function (the kernel is function 0).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FuncInfo {
    pub name: String,
    /// Instruction range `[start, end)`; empty for declarations without a body.
    pub start: u32,
    pub end: u32,
    /// Bytes of per-thread frame (formal parameters, `.param` call slots, `.local` variables).
    pub frame_size: u64,
    pub frame_align: u32,
    /// Formal parameter and return-value symbols, in order.
    pub params: Vec<u32>,
    pub rets: Vec<u32>,
    /// Dense register range owned by this function (saved across recursive calls).
    pub regs: (u32, u32),
    /// Whether the function only has a declaration (`vprintf`, external functions).
    pub extern_decl: bool,
}

/// A basic block `[start, end)` of instruction indices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Block {
    pub start: u32,
    pub end: u32,
}

/// Launch-relevant performance directives of the kernel.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct KernelDirectives {
    pub maxntid: Option<[u32; 3]>,
    pub reqntid: Option<[u32; 3]>,
    pub minnctapersm: Option<u32>,
    pub maxnreg: Option<u32>,
    pub reqnctapercluster: Option<[u32; 3]>,
    pub explicitcluster: bool,
    pub maxclusterrank: Option<u32>,
}

/// One kernel, lowered.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Program {
    pub name: String,
    /// `.target` words (`sm_90a`, `debug`).
    pub target: Vec<String>,
    pub version: (u32, u32),
    pub insts: Vec<Inst>,
    pub regs: Vec<RegInfo>,
    pub symbols: Vec<Symbol>,
    pub funcs: Vec<FuncInfo>,
    /// `.branchtargets` tables: instruction indices.
    pub tables: Vec<Vec<u32>>,
    /// Kernel parameter symbols in order, and the parameter buffer size.
    pub params: Vec<u32>,
    pub param_bytes: u64,
    /// Static shared memory bytes.
    pub static_smem: u64,
    /// Where the dynamic region starts: after the static variables, at the largest alignment an
    /// `.extern .shared` declaration asks for (at least 16).
    pub dynamic_smem_base: u64,
    pub directives: KernelDirectives,
    pub blocks: Vec<Block>,
    /// Reconvergence instruction index per instruction (meaningful for branches and calls):
    /// the immediate post-dominator, or [`RECONV_EXIT`].
    pub reconv: Vec<u32>,
    /// `.file` table for source lines.
    pub files: Vec<(u32, String)>,
    /// Instruction indices of the loops marked `.pragma "nounroll";` (the index of the first
    /// instruction after the pragma, which opens the loop body): ptxas leaves these loops rolled,
    /// which [`crate::liveness::estimate_registers`] needs to know.
    pub nounroll: Vec<u32>,
    /// The PTX file the program came from (for messages).
    pub ptx_file: String,
    /// For a program lowered from machine code (SASS), one instruction per machine instruction,
    /// and this says which: `sm_90 0x00d0 LDG.E R3, desc[UR4][R2.64]`, for messages (faults name
    /// the machine instruction, its address and its source line). Empty for PTX.
    pub machine: Vec<String>,
    /// For machine code, each instruction's control bits and pipe (the timing model issues by
    /// them); empty for PTX.
    pub control: Vec<crate::control::Control>,
}

impl Program {
    /// Whether the instructions are machine instructions (a lowered SASS listing): each is one
    /// machine op, with nothing for the PTX cost model to guess.
    pub fn is_machine_code(&self) -> bool {
        !self.machine.is_empty()
    }

    /// The function containing instruction `pc`.
    pub fn func_of(&self, pc: u32) -> u32 {
        self.funcs.iter().position(|f| f.start <= pc && pc < f.end).unwrap_or(0) as u32
    }

    /// `file:line` of the CUDA source for an instruction, when `.loc` information exists,
    /// else the PTX position.
    pub fn source_line(&self, pc: u32) -> String {
        let Some(inst) = self.insts.get(pc as usize) else {
            return format!("{}:?", self.ptx_file);
        };
        let ptx = format!("{}:{}", self.ptx_file, inst.loc.ptx);
        let at = match self.machine.get(pc as usize) {
            Some(m) => format!("{m} <- {ptx}"),
            None => ptx,
        };
        if inst.loc.line == 0 {
            return at;
        }
        let src = self.files.iter().find(|(n, _)| *n == inst.loc.file).map_or("?", |(_, s)| s.as_str());
        format!("{at} ({src}:{})", inst.loc.line)
    }
}
