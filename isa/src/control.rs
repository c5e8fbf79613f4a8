//! What a machine instruction tells the scheduler about itself: its control bits and the pipe it
//! issues to.
//!
//! A program lowered from SASS (`Program::is_machine_code`) carries one [`Control`] per
//! instruction, so the timing model issues machine code as ptxas scheduled it instead of guessing
//! with [`crate::costs`]: on Volta and later the hardware does not interlock fixed-latency
//! results (the stall count of the producer covers them), and variable-latency results (memory,
//! MUFU, conversions, shuffles) release a scoreboard barrier that their consumers' wait masks
//! name. The SASS front end (warpsim-sass) decodes the bits and picks the [`Pipe`] from its
//! opcode table; this module only holds the values, so `isa` stays free of SASS syntax and of
//! timing figures (the pipes' widths and latencies are the preset's).

use serde::Serialize;

/// The functional unit a machine instruction occupies. Every pipe but [`Pipe::Uniform`] is one of
/// a preset's `[pipes.*]`, whose `lanes` give the cycles a warp instruction holds it and whose
/// `latency` is the result latency of a variable-latency instruction that is not a memory access.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Pipe {
    /// FFMA, FADD, FMUL, FSETP, FMNMX, FSEL: the FP32 datapath.
    Fp32,
    /// IADD3, LOP3, SHF, LEA, ISETP, SEL, MOV, PRMT, ...: the INT32 datapath.
    Int,
    /// IMAD in all its forms (`.MOV`, `.SHL`, `.IADD`, `.WIDE`, `.HI`): the FMA-heavy datapath.
    Imul,
    Fp64,
    /// HFMA2, HADD2, HMUL2, HSETP2.
    Fp16,
    /// MUFU: the special-function unit.
    Sfu,
    /// F2I, I2F, F2F, FRND and the bit counters that share the XU (POPC, FLO, BREV).
    Conv,
    /// S2R, CS2R, VOTE, P2R/R2P, NOP-like bookkeeping with a slot of its own.
    Alu,
    /// BRA, EXIT, CALL, RET, BSSY/BSYNC, WARPSYNC, BAR, YIELD.
    Branch,
    /// SHFL, REDUX, MATCH: the warp-collective path.
    Warp,
    /// Loads, stores, atomics, LDC, LDGSTS, LDSM, TMA, SYNCS, fences: the MIO/LSU path.
    Lsu,
    /// HMMA, IMMA, DMMA, HGMMA.
    Tensor,
    /// The uniform datapath (U* opcodes, S2UR, R2UR, VOTEU): one per SM sub-partition, beside the
    /// vector pipes; an instruction holds it for its issue cycle.
    Uniform,
}

/// The control bits of one machine instruction, as the scheduler uses them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Control {
    /// Cycles the warp waits before its next instruction may issue (at least one is taken).
    pub stall: u8,
    /// The encoding's yield bit is clear: after this instruction the scheduler switches to
    /// another warp (Jia et al. 2018 §2.1: a set bit keeps the current warp).
    pub yields: bool,
    /// The scoreboard barrier (0–5) set at issue and released when the result is written.
    pub write_barrier: Option<u8>,
    /// The scoreboard barrier (0–5) set at issue and released once the operands are read.
    pub read_barrier: Option<u8>,
    /// Barriers (bit *i* = barrier *i*) that must all be released before the instruction issues.
    pub wait_mask: u8,
    /// `DEPBAR.LE SBi, n` outside copy-group waits: issue once at most `n` results of barrier `i`
    /// are outstanding.
    pub depbar: Option<(u8, u8)>,
    pub pipe: Pipe,
    /// A math instruction's source slots (A, B, C, D): the vector register each reads from the
    /// register file, [`NO_REG`] for none (RZ, a uniform register, a constant, an immediate, a
    /// predicate, or not a math instruction); the scheduler charges register-bank conflicts and
    /// keeps each warp's operand reuse cache from them.
    pub srcs: [u8; 4],
    /// Source slots (bit *i* = slot *i*) holding a 64-bit register pair (both registers read).
    pub wide: u8,
    /// Source slots (bit *i* = slot *i*) whose register the operand reuse cache keeps (`.reuse`).
    pub reuse: u8,
}

/// No vector register in a source slot ([`Control::srcs`]).
pub const NO_REG: u8 = 255;
