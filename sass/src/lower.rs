//! SASS → `isa::Program`: a kernel's machine code, made executable by the simulator unchanged.
//!
//! One SASS instruction becomes one [`Inst`] at the same index (instruction `i` is the one at
//! byte offset `16 i`), so the simulator's warps, SIMT stack, memory, faults, watchdog and
//! counters run machine code as they run PTX, and per-instruction execution counts are
//! executed-SASS counts. What maps to what:
//! - **Registers.** `R0`–`R254`, `UR0`–`UR62`, `P0`–`P6`, `UP0`–`UP6` each become a dense
//!   32-bit register (predicates 0/1) when the kernel names them; uniform registers are
//!   ordinary ones (every lane holds the same value). `RZ`/`URZ` read as 0 and discard writes,
//!   `PT` reads as true; `@!PT` guards a register that is never written. A 64-bit operand
//!   (`R2.64`, an `IMAD.WIDE` destination or addend, `LDG.64`'s destination) is the pair R2:R3
//!   ([`Opnd::Pair`], `ld.v2.b32`).
//! - **Constant bank 0.** The launch's parameter buffer *is* bank 0 from the target's
//!   [`crate::abi::param_base`] up: the parameters sit at their bank offsets (the PTX layout
//!   moved to the base, each aligned in the bank), and `c[0x0][off]` reads it
//!   ([`Opnd::Param`], or `ld.param` for `LDC`/`ULDC`). The driver's fields below the base
//!   become what the driver puts there: `0x0`–`0x8` blockDim (`%ntid`), `0xc`–`0x14` gridDim
//!   (`%nctaid`), `0x28` the stack top (the frame size this kernel's `R1` decrements add up
//!   to), `0x208` the global-memory descriptor (0: addresses are used as they are; `0x118`
//!   before sm_90), and on sm_90 `0x140` whether the grid runs in clusters, `0x150` 1 / the
//!   cluster's width as an f32 and `0x188` its CTA count (measured on the cluster kernels).
//! - **Constant banks 2–4.** Bank 2 (`.nv.constant2.<kernel>`) holds ptxas's literals and
//!   `switch` offset tables, bank 3 (`.nv.constant3`) the module's `__constant__` variables,
//!   each a label at its bank offset, and bank 4 (`.nv.constant4`, sm_90) one relocated
//!   `.dword <var>` per `__device__` variable whose address the code takes. A literal read of
//!   bank 2 is its value; of bank 3 an `ld.const` of the variable holding the offset (the PTX
//!   program's symbol, placed by name as PTX mode places it), or as an ALU operand its
//!   initializer (constant memory is read-only to kernels); a 64-bit read of bank 4 is the
//!   variable's address (`mov.u64 %rd, var`). An indexed read (`c[0x2][R5]`, `c[0x3][R21+0x8]`:
//!   the register holds a bank offset, so the variable is known only at run time) is an
//!   `ld.const` of the whole bank placed as one read-only variable with the listing's bytes.
//!   A 32-bit half of a bank-4 address moved into a register (sm_80: `MOV R8, c[0x4][0x0]`) is
//!   the address shifted; one as an operand of arithmetic, an indexed bank 4 and banks holding
//!   relocations read with an index are errors.
//! - **Shared memory.** On sm_90 the CTA's window has 1 KiB reserved below the user's data and
//!   ptxas forms every shared address as `SR_CgaCtaId << 24 | 0x400 + offset` (`SR_CgaCtaId` is
//!   the CTA's rank in its cluster, 0 without one). A CTA-space access (`LDS`, `STS`, `SYNCS`)
//!   is taken 0x400 lower and the simulator ignores its rank bits; a `shared::cluster` one (a
//!   generic `LD`/`ST`/`ATOM` whose high word is `SR_SWINHI`, a TMA destination) keeps the
//!   hardware's form and the simulator reads the rank and the window from it (`PRMT … 0x654`
//!   is how ptxas writes `mapa`). Before sm_90 there is no reserved window and no rank.
//! - **Targets.** sm_70 to sm_90a. Before sm_90 the parameters start at 0x160, a 64-bit
//!   parameter can be an operand (`IMAD.WIDE …, c[0x0][0x160]`), shared indices can be scaled
//!   (`[R0.X4]`), a uniform register in a 64-bit address is a pair (`[UR4]`, `[R2.64+UR4]`),
//!   and ptxas keeps literals in constant bank 2 (`c[0x2][0x0]`, read from the listing's
//!   `.nv.constant2` section).
//! - **Operations.** PTX ops where one has the meaning (`IMAD` = `mad.lo`, `.WIDE` = `mad.wide`,
//!   `ISETP`/`FSETP` = `setp` with both destinations and the combining predicate, `FFMA` =
//!   `fma.f32` with the written rounding, `F2I`/`I2F` = `cvt`, `MUFU.RCP/RSQ/EX2/LG2` = the
//!   `.approx.ftz` ops, SHFL/VOTE/REDUX/ELECT/BAR/EXIT, loads, stores, atomics (64-bit ones on
//!   pairs; `ATOMS.CAST.SPIN`, ptxas's compare-and-store loop, returns whether it stored),
//!   `BAR.RED` + `B2R.RESULT` as `bar.red` (its result in a register of the barrier's), `LDGSTS` as
//!   `cp.async`, `SYNCS` as mbarrier ops in the hardware's encodings, `UTMALDG`/`UTMASTG` as
//!   tensor copies, `DFMA`/`DADD`/`DMUL` = `fma/add/mul.f64` on pairs (negated and absolute
//!   operands; a literal is the f64 it prints), `DSETP` = `setp.f64`, `F2I`/`I2F`/`F2F`/`FRND`
//!   between f64, f32, f16, bf16 and 8- to 64-bit integers = `cvt`, `I2I` (`.SAT`) = `cvt` between
//!   integers, `F2IP.U8.F32 d, RZ, b, RZ` = `cvt.rni.u8.f32`, a plain `HFMA2` = `fma.rn.f16x2`,
//!   `HADD2.F32 -RZ, Rb.H0_H0` = `cvt.f32.f16`, the one-value `F2FP` forms (`.MERGE_C` with an
//!   `RZ` merge source, TF32 `PACK_B`, the fp8 ↔ f16x2 `UNPACK_B`) = `cvt`, `USETMAXREG` =
//!   `setmaxnreg`, which succeeds); `isa::machine` for the rest (`ISETP.EX`, `DSETP.MIN/MAX`,
//!   `MUFU.RCP64H/RSQ64H` included, and the half-precision forms: `HADD2`/`HMUL2`/`HFMA2`/`HMNMX2`
//!   with operand half selectors `.H0_H0`/`.H1_H1`, negated and absolute halves, literal pairs,
//!   `.BF16_V2`, `.FTZ`, `.SAT`, `.RELU`, `.NAN`, `.F32` (`Half2`), `HSETP2` (`Hsetp2`, both
//!   lanes' predicates), `MUFU.EX2/TANH.F16` of an `.H1`/`.H0` half (`MufuHalf`), `F2FP…PACK_AB`
//!   of two f32 values into f16, bf16, e4m3 or e5m2 pairs (`F2fpPack`), all checked bit for bit
//!   against the H200 by `tests/hw_oracle.rs`). `HMMA` and `LDSM` take their form from the PTX instruction at their PTX line;
//!   an `HMMA` with no `mma.sync` there (ptxas's code for `wmma.mma`) takes it from its opcode
//!   (`hmma_form`: m16n8k16/k8/k4, f16, bf16 or tf32 in, f32 or f16 out), and `MOVM.16.MT88`
//!   (the transpose of a column-major wmma fragment) is `movmatrix.trans` (`tests/wmma.rs`);
//!   `HGMMA` (`wgmma.mma_async`, descriptors in uniform register pairs) from the entry's
//!   wgmma of its shape nearest that line, `WARPGROUP.ARRIVE` / `.DEPBAR` are `wgmma.fence` /
//!   `wait_group`.
//! - **Control.** `BRA` (guarded: divergent) as `bra`, `BRA.U.ANY` as a branch the warp takes
//!   together; reconvergence is the simulator's, at immediate post-dominators, which is where
//!   ptxas puts its `BSYNC`s, so `BSSY`/`BSYNC`/`BREAK`/`WARPSYNC`/`YIELD` are no-ops; a branch
//!   out of a region that holds a `YIELD` reconverges only the second time round (`RECONV_HOLD`). `CALL.REL` is a jump and
//!   `RET.REL Rn` an indexed jump through the table of return points (`Rn` holds the byte offset
//!   ptxas moved there before the call), both marked `flag::SUBROUTINE` so that the control-flow
//!   graph treats the call as returning to the next instruction and the return as leaving the
//!   code (a branch around the call to ptxas's division slow path reconverges at its `BSYNC`,
//!   not after the loop that holds every call's return point). `BRX Rn -off` (a `switch`: Rn + pc + 16 − off is the
//!   target, and ptxas makes off = pc + 16, Rn the offset from a bank-2 table) is an indexed
//!   jump through a table of the targets nvdisasm notes (`BRANCH_TARGETS`). `BRA.DIV` (the
//!   branch to ptxas's slow path for a divergent warp) is never taken: the fast path's
//!   SHFL/VOTE use the active lanes. `DEPBAR` outside `LDGSTS` kernels (`DEPBAR {5,4,…}`
//!   included) is a no-op. `QSPC.E.S/.D/.G/.L` is `isspacep` of the generic address (ptxas's
//!   check after a generic `ATOM`, whose predicate the simulator sets, so the check's shared
//!   path is not taken).
//!
//! Anything else is a [`LowerError`] naming the opcode, the kernel, the pc and the source line;
//! callers fall back to PTX mode with it. Not lowered yet: the f16 forms the oracle does not pin
//! down (`HMNMX2.XORSIGN`, `HSETP2.H_AND`, an `.F32`-typed operand, a half-selected destination,
//! `.F32` results with `.FTZ`/`.SAT`/`.RELU`, `F2FP` merging a register other than `RZ`, `F2IP`
//! packing a second value), relocated symbols (`32@lo(sym)`, addresses in bank 2), 32-bit
//! halves of bank-4 addresses (sm_80's ALU operands), bulk copies (`UBLKCP`), remote mbarrier
//! arrivals, calls through a register, texture and surface instructions, the integer and
//! binary tensor forms (`IMMA`, `BMMA`, `DMMA`).

use std::collections::BTreeMap;

use warpsim_isa::ast::Space;
use warpsim_isa::inst::{flag, AtomOp, BarOp, Base, CpOp, Guard as IGuard, Inst, MatrixOp, MbarOp, Mods, Op, Opnd, ShflMode, SrcLoc, VoteMode};
use warpsim_isa::lexer::Pos;
use warpsim_isa::machine::{HalfOp, HalfSel, MachineOp};
use warpsim_isa::program::{FuncInfo, Program, RegInfo, SymKind, Symbol, RECONV_HOLD};
use warpsim_isa::types::{BoolOp, Cmp, Rnd, SReg, Ty};

use crate::{Bank, Instruction, Kernel, Module, Operand, Pred, Reg, Value};

/// [`warpsim_isa::machine::SHARED_RESERVED`] as an address offset.
pub const SHARED_RESERVED: i64 = warpsim_isa::machine::SHARED_RESERVED as i64;

/// Why a kernel's SASS could not be lowered: the first instruction that could not, with where
/// it is.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("kernel `{kernel}`: {}{reason}", if text.is_empty() { String::new() } else { format!("SASS {pc:#06x} `{text}`{}: ", source_line.as_ref().map(|s| format!(" ({s})")).unwrap_or_default()) })]
pub struct LowerError {
    pub kernel: String,
    pub pc: u32,
    /// The instruction as nvdisasm prints it.
    pub text: String,
    /// The opcode (without modifiers) that could not be lowered, for coverage tables.
    pub opcode: String,
    pub source_line: Option<String>,
    pub reason: String,
}

/// Lowers `kernel` of `module` to a program. `ptx` is the PTX program ptxas compiled it from
/// (the same entry): it gives the parameters (their order, sizes and alignments), the shared
/// memory sizes and the source file table.
pub fn lower(module: &Module, kernel: &str, ptx: &Program) -> Result<Program, Box<LowerError>> {
    let arch = module.arch.clone().unwrap_or_default();
    let k = module.kernel(kernel).ok_or_else(|| LowerError {
        kernel: kernel.to_string(),
        pc: 0,
        text: String::new(),
        opcode: String::new(),
        source_line: None,
        reason: format!("the listing has no kernel `{kernel}` (it has {})", module.kernels.iter().map(|k| k.name.as_str()).collect::<Vec<_>>().join(", ")),
    })?;
    let base = crate::abi::param_base(&arch).ok_or_else(|| err(k, None, "", format!("no parameter ABI for target `{arch}`")))?;
    let mut lw = Lowerer::new(module, k, base, if arch.starts_with("sm_9") { SHARED_RESERVED } else { 0 }, ptx);
    lw.frame = frame_size(k);
    for (i, inst) in k.instructions.iter().enumerate() {
        if inst.pc as usize != i * 16 {
            return Err(err(k, Some(inst), &inst.opcode, format!("instructions are not contiguous (pc {:#x} at position {i})", inst.pc)));
        }
    }
    lw.return_table();
    for inst in &k.instructions {
        let li = lw.inst(inst).map_err(|reason| err(k, Some(inst), &inst.opcode, reason))?;
        lw.insts.push(li);
        lw.text.push(format!("{arch} {:#06x} {}", inst.pc, inst.text()));
        // Timing needs every instruction's control bits; a listing without encodings has none.
        lw.control = lw.control.take().and_then(|mut c| {
            c.push(crate::pipes::control_of(inst)?);
            Some(c)
        });
    }
    Ok(lw.finish())
}

/// Parses a listing and lowers its kernel `entry` ([`lower`]); a listing that does not parse is
/// reported as a [`LowerError`] too (opcode empty).
pub fn lower_listing(text: &str, entry: &str, ptx: &Program) -> Result<Program, Box<LowerError>> {
    let module = crate::parse(text).map_err(|e| LowerError {
        kernel: entry.to_string(),
        pc: 0,
        text: String::new(),
        opcode: String::new(),
        source_line: None,
        reason: format!("the listing does not parse: {e}"),
    })?;
    lower(&module, entry, ptx)
}

fn err(k: &Kernel, inst: Option<&Instruction>, opcode: &str, reason: String) -> Box<LowerError> {
    Box::new(LowerError {
        kernel: k.name.clone(),
        pc: inst.map_or(0, |i| i.pc),
        text: inst.map_or(String::new(), Instruction::text),
        opcode: opcode.to_string(),
        source_line: inst.and_then(|i| i.source.as_ref()).map(ToString::to_string),
        reason,
    })
}

/// Bytes of per-thread stack the kernel's code takes from `R1` (`IADD3`/`VIADD R1, R1, -N`).
fn frame_size(k: &Kernel) -> u64 {
    let r1 = |o: Option<&Operand>| matches!(o.map(|o| &o.value), Some(Value::Reg(Reg { uniform: false, index: 1 })));
    let mut total = 0u64;
    for i in &k.instructions {
        if matches!(i.opcode.as_str(), "IADD3" | "VIADD") && r1(i.operands.first()) && r1(i.operands.get(1)) {
            if let Some(Value::Int(v)) = i.operands.get(2).map(|o| &o.value) {
                if *v < 0 {
                    total += v.unsigned_abs();
                } else if *v > 0x7FFF_FFFF {
                    total += (v.wrapping_neg() as u32) as u64;
                }
            }
        }
    }
    total.div_ceil(16) * 16
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Key {
    R(u8),
    Ur(u8),
    P(u8),
    Up(u8),
    /// The register `@!PT` guards with: never written, so always false.
    False,
    /// The result of the warp's last `BAR.RED`, which `B2R.RESULT` reads.
    BarResult,
}

struct Lowerer<'a> {
    module: &'a Module,
    k: &'a Kernel,
    ptx: &'a Program,
    base: u32,
    regs: BTreeMap<Key, u32>,
    reg_info: Vec<RegInfo>,
    insts: Vec<Inst>,
    text: Vec<String>,
    /// Control bits and pipe per instruction so far; `None` once one has no encoding.
    control: Option<Vec<warpsim_isa::control::Control>>,
    /// The 32-bit immediate field of the instruction being lowered (bits 32-63 of its encoding):
    /// a NaN literal's bits, which nvdisasm prints only as `QNAN`.
    imm_field: Option<u32>,
    frame: u64,
    /// Table 0: return points of `RET.REL` (index = target byte offset).
    table: Vec<u32>,
    /// Tables 1…: each `BRX`'s targets (index = the register's value).
    brx_tables: Vec<Vec<u32>>,
    /// Whether the kernel makes `LDGSTS` copy groups (so `DEPBAR` waits on them).
    async_copies: bool,
    /// Bytes of the CTA's shared window below the user's data: [`SHARED_RESERVED`] on sm_90,
    /// none before (so also which ABI the driver constants follow).
    reserved: i64,
    /// The module's variables (the PTX program's `.global`/`.const` symbols, placed by name as
    /// PTX mode places them), then the constant banks read with a register index, after the
    /// parameters in the program's symbols; empty until a constant bank 2–4 read needs them.
    vars: Vec<Symbol>,
    vars_loaded: bool,
}

type R<T> = Result<T, String>;

impl<'a> Lowerer<'a> {
    fn new(module: &'a Module, k: &'a Kernel, base: u32, reserved: i64, ptx: &'a Program) -> Self {
        let async_copies = k.instructions.iter().any(|i| i.opcode == "LDGDEPBAR");
        Lowerer { module, k, ptx, base, regs: BTreeMap::new(), reg_info: Vec::new(), insts: Vec::new(), text: Vec::new(), control: Some(Vec::new()), frame: 0, imm_field: None, table: Vec::new(), brx_tables: Vec::new(), async_copies, reserved, vars: Vec::new(), vars_loaded: false }
    }

    /// `RET.REL` jumps to the byte offset in a register: entry `offset` of a table holds the
    /// instruction there where it follows a `CALL` (a return point), else the `RET` itself (no
    /// control-flow edge; a wrong address loops there and the watchdog names it). Empty when
    /// the kernel returns from nothing.
    fn return_table(&mut self) {
        let n = self.k.instructions.len();
        let Some(ret) = self.k.instructions.iter().position(|i| i.opcode == "RET") else { return };
        let mut t = vec![ret as u32; n * 16];
        for (i, inst) in self.k.instructions.iter().enumerate() {
            if inst.opcode == "CALL" && i + 1 < n {
                t[(i + 1) * 16] = i as u32 + 1;
            }
        }
        self.table = t;
    }

    fn reg_of(&mut self, key: Key) -> u32 {
        if let Some(&r) = self.regs.get(&key) {
            return r;
        }
        let (name, ty) = match key {
            Key::R(i) => (format!("R{i}"), Ty::B32),
            Key::Ur(i) => (format!("UR{i}"), Ty::B32),
            Key::P(i) => (format!("P{i}"), Ty::Pred),
            Key::Up(i) => (format!("UP{i}"), Ty::Pred),
            Key::False => ("!PT".to_string(), Ty::Pred),
            Key::BarResult => ("B2R.RESULT".to_string(), Ty::B32),
        };
        let r = self.reg_info.len() as u32;
        self.reg_info.push(RegInfo { name, ty, func: 0 });
        self.regs.insert(key, r);
        r
    }

    fn gpr(&mut self, r: Reg) -> Option<u32> {
        if r.is_zero() {
            return None;
        }
        Some(self.reg_of(if r.uniform { Key::Ur(r.index) } else { Key::R(r.index) }))
    }

    fn pred(&mut self, p: Pred) -> Option<u32> {
        if p.is_true() {
            return None;
        }
        Some(self.reg_of(if p.uniform { Key::Up(p.index) } else { Key::P(p.index) }))
    }

    /// The (low, high) dense registers of the 64-bit pair starting at `r` (not RZ).
    fn gpr_pair(&mut self, r: Reg) -> R<(u32, u32)> {
        let lo = self.gpr(r).ok_or("zero register")?;
        let hi = self.gpr(Self::next(r)?).ok_or("zero register")?;
        Ok((lo, hi))
    }

    fn next(r: Reg) -> R<Reg> {
        let limit = if r.uniform { Reg::URZ - 1 } else { Reg::RZ - 1 };
        if r.index >= limit {
            return Err(format!("register pair {r} runs past the last register"));
        }
        Ok(Reg { uniform: r.uniform, index: r.index + 1 })
    }

    /// A 32-bit source (its `-`, `~`, `|…|` recorded in `m`, source position `i`).
    fn src(&mut self, o: &Operand, m: &mut Mods, i: usize, float: bool) -> R<Opnd> {
        if o.modifiers.iter().any(|x| x != "reuse") {
            return Err(format!("operand `{o}`: the `.{}` selector is not lowered", o.modifiers.join(".")));
        }
        let bit = 1u8 << i;
        let v = match &o.value {
            Value::Reg(r) => match self.gpr(*r) {
                Some(x) => Opnd::Reg(x),
                None => Opnd::Imm(0),
            },
            Value::Pred(p) => {
                return Ok(match (self.pred(*p), o.not) {
                    (None, false) => Opnd::Imm(1),
                    (None, true) => Opnd::Imm(0),
                    (Some(r), false) => Opnd::Reg(r),
                    (Some(r), true) => Opnd::NotReg(r),
                })
            }
            // nvdisasm prints a float operand's literal as its value (`-1`, `16777216`, `0.5`).
            Value::Int(v) if float => Opnd::Imm((*v as f32).to_bits() as u64),
            Value::Int(v) => Opnd::Imm(*v as u64 & 0xFFFF_FFFF),
            Value::Float(f) if float && f.is_nan() => Opnd::Imm(self.nan_literal(*f)? as u64),
            Value::Float(f) if float => Opnd::Imm((*f as f32).to_bits() as u64),
            Value::Float(f) => return Err(format!("float literal {f} where an integer is read")),
            Value::Const { bank: Bank::Index(0), addr } if addr.reg.is_none() && addr.ureg.is_none() => self.bank0(addr.offset)?,
            Value::Const { bank: Bank::Index(2), addr } if addr.reg.is_none() && addr.ureg.is_none() => Opnd::Imm(self.bank2(addr.offset, 4)?),
            Value::Const { bank: Bank::Index(3), addr } if addr.reg.is_none() && addr.ureg.is_none() => Opnd::Imm(self.bank3_value(addr.offset, 4)?),
            Value::Const { .. } => return Err(format!("constant operand `{o}` (only literal bank-0, bank-2 and bank-3 words are lowered as 32-bit operands)")),
            // The CTA's rank in its cluster (0 without clusters), which ptxas shifts into
            // every shared address.
            Value::Special(s) if s == "SR_CgaCtaId" => Opnd::Special(SReg::ClusterCtarank),
            Value::Special(s) if s == "SR_SWINHI" => Opnd::Special(SReg::SharedWindowHi),
            Value::Special(s) => Opnd::Special(special(s)?),
            other => return Err(format!("operand `{other}` where a value is read")),
        };
        // Literal operands carry their modifiers folded in; registers through `m`.
        match v {
            Opnd::Imm(x) => {
                let mut x = x;
                if o.abs {
                    x &= !0x8000_0000;
                }
                if o.neg {
                    x = if float { x ^ 0x8000_0000 } else { x.wrapping_neg() & 0xFFFF_FFFF };
                }
                if o.not {
                    x = !x & 0xFFFF_FFFF;
                }
                // `-RZ` in an integer add keeps its carry meaning (~0 + 1): leave it to IADD3.
                if matches!(o.value, Value::Reg(_)) && (o.neg || o.not) {
                    if o.neg {
                        m.neg |= bit;
                    }
                    if o.not {
                        m.not |= bit;
                    }
                    return Ok(Opnd::Imm(0));
                }
                Ok(Opnd::Imm(x))
            }
            v => {
                if o.neg {
                    m.neg |= bit;
                }
                if o.not {
                    m.not |= bit;
                }
                if o.abs {
                    m.abs |= bit;
                }
                Ok(v)
            }
        }
    }

    /// A 64-bit source: a register pair, zero, or a literal.
    fn src64(&mut self, o: &Operand) -> R<Opnd> {
        if o.neg || o.not || o.abs {
            return Err(format!("modifier on the 64-bit operand `{o}`"));
        }
        match &o.value {
            Value::Reg(r) if r.is_zero() => Ok(Opnd::Imm(0)),
            Value::Reg(r) => {
                let (lo, hi) = self.gpr_pair(*r)?;
                Ok(Opnd::Pair(lo, hi))
            }
            Value::Int(v) => Ok(Opnd::Imm(*v as u64 & 0xFFFF_FFFF)),
            // sm_75–89 read a 64-bit parameter straight from the bank (`IMAD.WIDE …, c[0x0][0x160]`).
            Value::Const { bank: Bank::Index(0), addr } if addr.reg.is_none() && addr.ureg.is_none() => match self.bank0(addr.offset)? {
                Opnd::Param(o) => Ok(Opnd::Param64(o)),
                Opnd::Imm(0) => Ok(Opnd::Imm(0)),
                _ => Err(format!("`{o}` as a 64-bit source")),
            },
            Value::Const { bank: Bank::Index(2), addr } if addr.reg.is_none() && addr.ureg.is_none() => Ok(Opnd::Imm(self.bank2(addr.offset, 8)?)),
            Value::Const { bank: Bank::Index(3), addr } if addr.reg.is_none() && addr.ureg.is_none() => Ok(Opnd::Imm(self.bank3_value(addr.offset, 8)?)),
            Value::Const { bank: Bank::Index(4), addr } if addr.reg.is_none() && addr.ureg.is_none() => Ok(Opnd::SymAddr(self.bank4(addr.offset)?, 0)),
            other => Err(format!("`{other}` as a 64-bit source")),
        }
    }

    /// A 64-bit float source: [`Self::src64`] with its `-`, `|…|` recorded in `m` (source
    /// position `i`), a literal read as the f64 it prints (`1`, `0.5`, `+INF`: the instruction
    /// encodes the upper word, nvdisasm prints the value).
    fn fsrc64(&mut self, o: &Operand, m: &mut Mods, i: usize) -> R<Opnd> {
        let bits = match o.value {
            Value::Int(v) => Some((v as f64).to_bits()),
            Value::Float(f) if f.is_nan() => Some((self.nan_literal(f)? as u64) << 32),
            Value::Float(f) => Some(f.to_bits()),
            _ => None,
        };
        if let Some(mut b) = bits {
            if o.abs {
                b &= !(1 << 63);
            }
            if o.neg {
                b ^= 1 << 63;
            }
            return Ok(Opnd::Imm(b));
        }
        if o.not || o.modifiers.iter().any(|x| x != "reuse") {
            return Err(format!("operand `{o}` of a 64-bit float instruction"));
        }
        let bit = 1u8 << i;
        if o.neg {
            m.neg |= bit;
        }
        if o.abs {
            m.abs |= bit;
        }
        let plain = Operand { neg: false, abs: false, ..o.clone() };
        self.src64(&plain)
    }

    /// The bits of a NaN literal: the instruction's immediate field (an f32, or an f64's upper
    /// word); nvdisasm prints `QNAN` for any of them (`FSEL R19, R13, -QNAN, P4` holds 0xfff00000).
    fn nan_literal(&self, f: f64) -> R<u32> {
        self.imm_field.ok_or_else(|| format!("`{}QNAN` in a listing without encodings (its bits are unknown)", if f.is_sign_negative() { "-" } else { "+" }))
    }

    /// The rounding modifiers of a float instruction (`.RN` when none); anything else is an error.
    fn rounding(inst: &Instruction) -> R<Rnd> {
        let mut r = Rnd::Rn;
        for x in &inst.modifiers {
            r = match x.as_str() {
                "RN" => Rnd::Rn,
                "RZ" => Rnd::Rz,
                "RM" => Rnd::Rm,
                "RP" => Rnd::Rp,
                other => return Err(format!("`{}.{other}` is not lowered", inst.opcode)),
            };
        }
        Ok(r)
    }

    fn dst(&mut self, o: &Operand) -> R<Opnd> {
        Ok(match &o.value {
            Value::Reg(r) => self.gpr(*r).map_or(Opnd::Sink, Opnd::Reg),
            Value::Pred(p) => self.pred(*p).map_or(Opnd::Sink, Opnd::Reg),
            other => return Err(format!("`{other}` as a destination")),
        })
    }

    fn dst64(&mut self, o: &Operand) -> R<Opnd> {
        match &o.value {
            Value::Reg(r) if r.is_zero() => Ok(Opnd::Sink),
            Value::Reg(r) => {
                let (lo, hi) = self.gpr_pair(*r)?;
                Ok(Opnd::Pair(lo, hi))
            }
            other => Err(format!("`{other}` as a 64-bit destination")),
        }
    }

    /// `n` consecutive registers from `o` (a vector load's destinations or a store's data).
    fn vector(&mut self, o: &Operand, n: usize, write: bool) -> R<Opnd> {
        let Value::Reg(r) = o.value else { return Err(format!("`{o}` as a register vector")) };
        let mut items = Vec::with_capacity(n);
        let mut cur = r;
        for i in 0..n {
            if i > 0 && !r.is_zero() {
                cur = Self::next(cur)?;
            }
            items.push(match self.gpr(cur) {
                Some(x) => Opnd::Reg(x),
                None if write => Opnd::Sink,
                None => Opnd::Imm(0),
            });
        }
        Ok(if n == 1 { items.remove(0) } else { Opnd::Vec(items) })
    }

    /// A bank-0 word: a parameter (at or above the base) or a driver field below it.
    fn bank0(&mut self, off: i64) -> R<Opnd> {
        let o = u32::try_from(off).map_err(|_| format!("c[0x0][{off:#x}]"))?;
        if o >= self.base {
            return Ok(Opnd::Param(o));
        }
        Ok(match o {
            0x0 | 0x4 | 0x8 => Opnd::Special(SReg::Ntid((o / 4) as u8)),
            0xc | 0x10 | 0x14 => Opnd::Special(SReg::Nctaid(((o - 0xc) / 4) as u8)),
            0x28 => Opnd::Imm(self.frame),
            // The generic addresses of shared offset 0 (sm_80: sm_90 forms them from SR_SWINHI)
            // and of local offset 0 (`cvta.local` of the stack pointer R1).
            0x18 | 0x1c if self.reserved == 0 => Opnd::Special(SReg::WindowBase { local: false, hi: o == 0x1c }),
            0x20 | 0x24 => Opnd::Special(SReg::WindowBase { local: true, hi: o == 0x24 }),
            0x208 | 0x20c | 0x118 | 0x11c => Opnd::Imm(0),
            // sm_90: whether the grid was launched in clusters (code without `__cluster_dims__`
            // tests it before a cluster barrier), the cluster's CTA count and 1 / its width
            // (measured: cluster_dsmem and tma_multicast read them for %cluster_nctarank and
            // %clusterid.x).
            0x140 if self.reserved != 0 => Opnd::Special(SReg::IsExplicitCluster),
            0x188 if self.reserved != 0 => Opnd::Special(SReg::ClusterNctarank),
            0x150 if self.reserved != 0 => Opnd::Special(SReg::ClusterNctaidRcp(0)),
            _ => return Err(format!("c[0x0][{o:#x}]: a driver constant that is not modelled")),
        })
    }

    /// `size` bytes of constant bank 2 at `off`: ptxas's literals, known when the listing is read.
    fn bank2(&self, off: i64, size: u32) -> R<u64> {
        let o = u32::try_from(off).map_err(|_| format!("c[0x2][{off:#x}]"))?;
        self.k.bank2.read(2, o, size)
    }

    /// The `__constant__` variable `size` bytes at `off` of constant bank 3 fall in (the
    /// listing's `.nv.constant3` labels), as its symbol and the offset in it.
    fn bank3(&mut self, off: i64, size: u32) -> R<(u32, u64)> {
        let o = u32::try_from(off).map_err(|_| format!("c[0x3][{off:#x}]"))?;
        let (name, at) = self.module.bank3.symbol_at(o).ok_or_else(|| format!("c[0x3][{o:#x}]: no `__constant__` variable of the listing's `.nv.constant3` holds it"))?;
        let s = self.module_var(name)?;
        let len = self.vars[s as usize - self.ptx.params.len()].size;
        if at as u64 + size as u64 > len {
            return Err(format!("c[0x3][{o:#x}]: {size} bytes at {at} of `{name}`, which has {len}"));
        }
        Ok((s, at as u64))
    }

    /// The value of a bank-3 word an ALU instruction reads as an operand: the variable's
    /// initializer, which is what its memory holds (constant memory is read-only to kernels, and
    /// SASS mode's launches write no `__constant__` variable between them).
    fn bank3_value(&mut self, off: i64, size: u32) -> R<u64> {
        let (s, at) = self.bank3(off, size)?;
        let v = &self.vars[s as usize - self.ptx.params.len()];
        if v.relocs.iter().any(|r| r.0 < at + size as u64 && at < r.0 + 8) {
            return Err(format!("c[0x3][{off:#x}] holds an address (`{}` is initialized with one)", v.name));
        }
        Ok((0..size as u64).rev().fold(0u64, |acc, i| acc << 8 | *v.init.get((at + i) as usize).unwrap_or(&0) as u64))
    }

    /// The `__device__` variable whose 64-bit address constant bank 4 holds at `off` (the
    /// listing's `.nv.constant4` entry there, a relocation naming it).
    fn bank4(&mut self, off: i64) -> R<u32> {
        match self.bank4_word(off)? {
            (s, false) => Ok(s),
            (_, true) => Err(format!("c[0x4][{off:#x}]: the high half of an address (only whole 64-bit reads of bank 4 are lowered here)")),
        }
    }

    /// The variable whose address bank 4 holds at `off`, a 64-bit entry or one of its 32-bit
    /// halves (sm_80 moves each half into a register): (symbol, whether `off` is the high half).
    fn bank4_word(&mut self, off: i64) -> R<(u32, bool)> {
        let o = u32::try_from(off).map_err(|_| format!("c[0x4][{off:#x}]"))?;
        let r = self.module.bank4.relocated.iter().find(|r| r.offset <= o && o < r.offset + r.size).ok_or_else(|| format!("c[0x4][{o:#x}]: the listing's `.nv.constant4` has no address there"))?;
        if r.size != 8 || (o - r.offset) % 4 != 0 {
            return Err(format!("c[0x4][{o:#x}]: part of the address of `{}` (only 64-bit reads and 32-bit halves of bank 4 are lowered)", r.target));
        }
        if !r.target.chars().all(|c| c.is_ascii_alphanumeric() || "_$.".contains(c)) {
            return Err(format!("c[0x4][{o:#x}] holds `{}` (only the addresses of variables are lowered)", r.target));
        }
        let hi = o != r.offset;
        Ok((self.module_var(&r.target)?, hi))
    }

    /// The program symbol of the module variable `name` (the PTX program's `.global` or `.const`
    /// symbol of that name, placed by name as PTX mode places it).
    fn module_var(&mut self, name: &str) -> R<u32> {
        self.load_module_vars()?;
        let i = self.vars.iter().position(|s| s.name == name && matches!(s.kind, SymKind::Global | SymKind::Const)).ok_or_else(|| format!("`{name}` is not a `.global` or `.const` variable of the PTX module"))?;
        Ok((self.ptx.params.len() + i) as u32)
    }

    /// Brings the module's variables into the program's symbols (once, before any bank copy):
    /// the PTX program's `.global` and `.const` symbols, and the symbols their address
    /// initializers name (a function's, as PTX mode writes it), renumbered.
    fn load_module_vars(&mut self) -> R<()> {
        if !self.vars_loaded {
            self.vars_loaded = true;
            let syms = &self.ptx.symbols;
            let mut keep: Vec<bool> = syms.iter().map(|s| matches!(s.kind, SymKind::Global | SymKind::Const)).collect();
            for s in syms.iter().filter(|s| matches!(s.kind, SymKind::Global | SymKind::Const)) {
                s.relocs.iter().for_each(|r| keep[r.1 as usize] = true);
            }
            let first = self.ptx.params.len() as u32;
            let index: BTreeMap<u32, u32> = (0u32..).zip(&keep).filter(|(_, k)| **k).enumerate().map(|(n, (i, _))| (i, first + n as u32)).collect();
            for &i in index.keys() {
                let mut s = syms[i as usize].clone();
                s.relocs.iter_mut().for_each(|r| r.1 = index[&r.1]);
                self.vars.push(s);
            }
        }
        Ok(())
    }

    /// A constant bank read with a register index (`c[0x2][R5]`, `c[0x3][R21+0x10]`: the
    /// register holds a bank offset, so which variable it reaches is known only at run time),
    /// placed whole as one read-only variable with the listing's bytes: the kernel's bank 2
    /// (`.nv.constant2.<kernel>`) or the module's bank 3 (`.nv.constant3`, the `__constant__`
    /// variables at their bank offsets, with their initializers, which constant memory keeps).
    fn bank_copy(&mut self, bank: u32) -> R<u32> {
        let (k, module) = (self.k, self.module);
        let (name, data) = match bank {
            2 => (format!(".nv.constant2.{}", k.name), &k.bank2),
            3 => (".nv.constant3".to_string(), &module.bank3),
            _ => return Err(format!("an indexed read of constant bank {bank}")),
        };
        if let Some(r) = data.relocated.first() {
            return Err(format!("an indexed read of constant bank {bank}, which holds an address at {:#x} (`{}`)", r.offset, r.target));
        }
        if data.bytes.is_empty() {
            return Err(format!("an indexed read of constant bank {bank}, which the listing does not give"));
        }
        let sym = Symbol { name, kind: SymKind::Const, space: Space::Const, size: data.bytes.len() as u64, align: 16, offset: 0, func: 0, init: data.bytes.clone(), relocs: Vec::new(), ty: Ty::B8 };
        self.load_module_vars()?;
        let first = self.ptx.params.len();
        Ok((first + match self.vars.iter().position(|s| s.name == sym.name) {
            Some(i) => i,
            None => {
                self.vars.push(sym);
                self.vars.len() - 1
            }
        }) as u32)
    }

    /// A memory operand: the address and, for shared memory, the reserved window taken off.
    fn address(&mut self, o: &Operand, wide_default: bool, shared: bool) -> R<Opnd> {
        let Value::Mem { addr, .. } = &o.value else { return Err(format!("`{o}` as an address")) };
        let reg = addr.reg.as_ref().filter(|r| !r.reg.is_zero());
        let ureg = addr.ureg.as_ref().filter(|r| !r.reg.is_zero());
        // `[R0.X4]`: an index scaled by 4, 8 or 16 (Turing to Ada).
        let scale = |r: &crate::AddrReg| -> R<Option<u8>> {
            let mut shift = None;
            for m in &r.modifiers {
                match m.as_str() {
                    "64" | "U32" => {}
                    "X4" => shift = Some(2),
                    "X8" => shift = Some(3),
                    "X16" => shift = Some(4),
                    _ => return Err(format!("address register `{}.{}`", r.reg, r.modifiers.join("."))),
                }
            }
            Ok(shift)
        };
        if let Some(r) = ureg {
            if scale(r)?.is_some() {
                return Err(format!("address register `{}.{}`", r.reg, r.modifiers.join(".")));
            }
        }
        let shift = reg.map(scale).transpose()?.flatten();
        let base = match (reg, ureg) {
            (Some(r), None) if shift.is_some() && !r.wide() => Base::Scaled(self.gpr(r.reg).ok_or("zero register")?, shift.unwrap_or(0)),
            (Some(r), _) if shift.is_some() => return Err(format!("address `{addr}`: a scaled {} register", if r.wide() { "64-bit" } else { "index plus a uniform" })),
            (None, None) => Base::None,
            (Some(r), None) | (None, Some(r)) => {
                // Before sm_90 a uniform register in a 64-bit address is a pair too (`[UR4]`).
                if r.wide() || (wide_default && (!r.reg.uniform || self.reserved == 0)) {
                    let (lo, hi) = self.gpr_pair(r.reg)?;
                    Base::Pair(lo, hi)
                } else {
                    Base::Reg(self.gpr(r.reg).ok_or("zero register")?)
                }
            }
            (Some(r), Some(u)) if !r.wide() && !u.wide() && !wide_default => {
                Base::Sum(self.gpr(r.reg).ok_or("zero register")?, self.gpr(u.reg).ok_or("zero register")?)
            }
            // Turing to Ada: `[R2.64+UR4]`, a 64-bit address plus the 64-bit base UR4:UR5.
            (Some(r), Some(u)) if wide_default && (r.wide() || !r.reg.uniform) && self.reserved == 0 => {
                let ((a, b), (c, d)) = (self.gpr_pair(r.reg)?, self.gpr_pair(u.reg)?);
                Base::PairSum(a, b, c, d)
            }
            _ => return Err(format!("address `{addr}`: a 64-bit register plus a uniform register")),
        };
        Ok(Opnd::Addr { base, offset: addr.offset - if shared { self.reserved } else { 0 } })
    }

    fn guard(&mut self, inst: &Instruction) -> Option<IGuard> {
        let g = inst.guard?;
        match (self.pred(g.pred), g.negated) {
            (None, false) => None,
            (None, true) => Some(IGuard { reg: self.reg_of(Key::False), neg: false }),
            (Some(r), neg) => Some(IGuard { reg: r, neg }),
        }
    }

    fn inst(&mut self, inst: &Instruction) -> R<Inst> {
        self.imm_field = inst.encoding.map(|e| (e >> 32) as u32);
        let mut guard = self.guard(inst);
        let (op, m, mut ops, ndst) = self.body(inst)?;
        // An unguarded `BRA P2, target` is guarded by P2 (a guard is what makes it conditional).
        if op == Op::Bra && guard.is_none() && ops.len() == 2 {
            guard = match ops.pop() {
                Some(Opnd::Reg(r)) => Some(IGuard { reg: r, neg: false }),
                Some(Opnd::NotReg(r)) => Some(IGuard { reg: r, neg: true }),
                Some(Opnd::Imm(0)) => Some(IGuard { reg: self.reg_of(Key::False), neg: false }),
                _ => None,
            };
        }
        let mut defs = Vec::new();
        let mut uses = Vec::new();
        for (i, o) in ops.iter().enumerate() {
            if i < ndst {
                match o {
                    Opnd::Reg(r) => defs.push(*r),
                    Opnd::Pair(a, b) => defs.extend([*a, *b]),
                    Opnd::Vec(v) => v.iter().for_each(|x| match x {
                        Opnd::Reg(r) => defs.push(*r),
                        Opnd::Pair(a, b) => defs.extend([*a, *b]),
                        _ => {}
                    }),
                    other => other.regs(&mut uses),
                }
            } else {
                o.regs(&mut uses);
            }
        }
        if let Some(g) = guard {
            uses.push(g.reg);
        }
        let class = warpsim_isa::decode::class_of(op, &m);
        let loc = SrcLoc {
            ptx: Pos { line: inst.ptx_line.unwrap_or(0), col: 1 },
            file: inst.source.as_ref().and_then(|s| self.ptx.files.iter().find(|(_, f)| f.ends_with(&s.file) || s.file.ends_with(f.as_str())).map(|(n, _)| *n)).unwrap_or(0),
            line: inst.source.as_ref().map_or(0, |s| s.line),
            col: 0,
        };
        Ok(Inst { op, m, guard, ops, ndst: ndst as u8, class, loc, defs, uses })
    }

    /// The operation, modifiers, operands (destinations first) and destination count.
    fn body(&mut self, inst: &Instruction) -> R<(Op, Mods, Vec<Opnd>, usize)> {
        let o = &inst.operands;
        let has = |x: &str| inst.has_modifier(x);
        let n = o.len();
        let need = |k: usize| if n < k { Err(format!("{} operands, {} needs {k}", n, inst.mnemonic())) } else { Ok(()) };
        let mut m = Mods { vec: 1, ..Mods::default() };
        let int_ty = |signed_default: bool| if has("U32") { Ty::U32 } else if has("S32") || signed_default { Ty::S32 } else { Ty::U32 };
        macro_rules! srcs {
            ($m:expr, $float:expr, [$($i:expr),*]) => {{
                let mut v = Vec::new();
                let mut k = 0usize;
                $( v.push(self.src(&o[$i], $m, k, $float)?); k += 1; )*
                let _ = k;
                v
            }};
        }
        let op_name = inst.opcode.as_str();
        // sm_80 moves a 32-bit half of a bank-4 address into a register (`MOV R8, c[0x4][0x0]`,
        // `IMAD.MOV.U32 R9, RZ, RZ, c[0x4][0x4]`): the variable's address shifted, as b64, into
        // the 32-bit register.
        let moved = match (op_name, &o[..]) {
            ("MOV", [_, c]) => Some(c),
            ("IMAD", [_, a, b, c]) if has("MOV") && [a, b].iter().all(|x| matches!(x.value, Value::Reg(r) if r.is_zero())) => Some(c),
            _ => None,
        };
        if let Some(Operand { value: Value::Const { bank: Bank::Index(4), addr }, neg: false, abs: false, not: false, .. }) = moved {
            if addr.reg.is_none() && addr.ureg.is_none() {
                let (sym, hi) = self.bank4_word(addr.offset)?;
                m.types = vec![Ty::B64];
                let d = self.dst(&o[0])?;
                return Ok((Op::Shr, m, vec![d, Opnd::SymAddr(sym, 0), Opnd::Imm(if hi { 32 } else { 0 })], 1));
            }
        }
        let out = match op_name {
            // `DEPBAR.LE SB0, n` in a kernel with `LDGSTS`: wait until at most n copy groups
            // are pending (`cp.async.wait_group n`); elsewhere a scoreboard wait (no-op).
            "DEPBAR" if self.async_copies && has("LE") => {
                need(2)?;
                let k = self.src(&o[1], &mut m, 0, false)?;
                (Op::Cp(CpOp::AsyncWaitGroup), m, vec![k], 0)
            }
            "LDGDEPBAR" => (Op::Cp(CpOp::AsyncCommit), m, vec![], 0),
            "LDGSTS" => {
                // `LDGSTS.E.BYPASS.128 [Rs], desc[UR][Rg.64]`: cp.async of 4, 8 or 16 bytes.
                need(2)?;
                let size = if has("128") {
                    16
                } else if has("64") {
                    8
                } else {
                    4
                };
                if inst.modifiers.iter().any(|x| !matches!(x.as_str(), "E" | "BYPASS" | "LTC64B" | "LTC128B" | "LTC256B" | "64" | "128")) {
                    return Err(format!("`{}`", inst.mnemonic()));
                }
                m.spaces = vec![Space::Shared, Space::Global];
                let d = self.address(&o[0], false, true)?;
                let a = self.address(&o[1], has("E"), false)?;
                (Op::Cp(CpOp::Async), m, vec![d, a, Opnd::Imm(size)], 0)
            }
            // Tensor-core forms take their shape, layouts and types from the PTX instruction
            // they came from (same PTX line), their register vectors' lengths too.
            "HMMA" => {
                need(4)?;
                let ((l0, l1, l2, l3), m) = match self.ptx_form(inst, Op::Matrix(MatrixOp::Mma)) {
                    Ok(pi) => {
                        let len = |i: usize| match pi.ops.get(i) {
                            Some(Opnd::Vec(v)) => v.len(),
                            _ => 1,
                        };
                        ((len(0), len(1), len(2), len(3)), pi.m.clone())
                    }
                    // `wmma.mma` (and `mma.sync` forms ptxas split or merged) has no `mma.sync`
                    // of this shape at its line: the opcode gives the form.
                    Err(e) => hmma_form(inst).ok_or(e)?,
                };
                let d = self.vector(&o[0], l0, true)?;
                let ops = vec![d, self.vector(&o[1], l1, false)?, self.vector(&o[2], l2, false)?, self.vector(&o[3], l3, false)?];
                (Op::Matrix(MatrixOp::Mma), m, ops, 1)
            }
            // Warpgroup MMA: `WARPGROUP.ARRIVE` is `wgmma.fence`, `WARPGROUP.DEPBAR.LE gsb0, n`
            // `wgmma.wait_group n`; `HGMMA` is `wgmma.mma_async` in the PTX instruction's form
            // (same PTX line: shape, types, scales, transposes) on the SASS registers.
            "WARPGROUP" if has("ARRIVE") => (Op::Matrix(MatrixOp::WgmmaFence), m, vec![], 0),
            "WARPGROUP" if has("DEPBAR") && has("LE") => {
                need(2)?;
                let Value::Int(k) = o[1].value else { return Err(format!("`{}` without a group count", inst.mnemonic())) };
                (Op::Matrix(MatrixOp::WgmmaWait), m, vec![Opnd::Imm(k as u64)], 0)
            }
            "HGMMA" => {
                need(3)?;
                self.hgmma(inst)?
            }
            // `QSPC.E.S P0, RZ, [R4]`: whether a generic address lies in the shared window
            // (`isspacep.shared`; `.D` the cluster's, `.G`, `.L` global and local). ptxas asks it after a generic
            // `ATOM` whose predicate says the address was not global, to pick the shared path.
            "QSPC" => {
                need(3)?;
                let sp = if has("S") {
                    Space::Shared
                } else if has("D") {
                    Space::SharedCluster
                } else if has("G") {
                    Space::Global
                } else if has("L") {
                    Space::Local
                } else {
                    return Err(format!("`{}`: which window it asks about", inst.mnemonic()));
                };
                if !matches!(o[1].value, Value::Reg(r) if r.is_zero()) {
                    return Err(format!("`{}` writing a register", inst.mnemonic()));
                }
                let Value::Mem { addr, .. } = &o[2].value else { return Err(format!("`{}` as an address", o[2])) };
                let r = match (&addr.reg, &addr.ureg, addr.offset) {
                    (Some(r), None, 0) if r.modifiers.iter().all(|x| x == "64") && !r.reg.is_zero() => r.reg,
                    _ => return Err(format!("`{}`: only a plain register address is lowered", o[2])),
                };
                let a = if has("E") {
                    let (lo, hi) = self.gpr_pair(r)?;
                    Opnd::Pair(lo, hi)
                } else {
                    Opnd::Reg(self.gpr(r).ok_or("zero register")?)
                };
                m.spaces = vec![sp];
                m.types = vec![Ty::U64];
                let d = self.dst(&o[0])?;
                (Op::Isspacep, m, vec![d, a], 1)
            }
            // `MOVM.16.MT88 Rd, Ra`: `movmatrix.sync.aligned.m8n8.trans.b16` (ptxas transposes
            // a column-major wmma fragment with it).
            "MOVM" if has("16") && has("MT88") => {
                need(2)?;
                m.shape = Some((8, 8, 0));
                m.flags |= flag::TRANS;
                m.types = vec![Ty::B16];
                let d = self.dst(&o[0])?;
                let a = self.src(&o[1], &mut m, 0, false)?;
                (Op::Matrix(MatrixOp::Movmatrix), m, vec![d, a], 1)
            }
            "LDSM" => {
                need(2)?;
                let pi = self.ptx_form(inst, Op::Matrix(MatrixOp::Ldmatrix))?;
                let n = match pi.ops.first() {
                    Some(Opnd::Vec(v)) => v.len(),
                    _ => 1,
                };
                let mut m = pi.m.clone();
                m.spaces = vec![Space::Shared];
                let d = self.vector(&o[0], n, true)?;
                let a = self.address(&o[1], false, true)?;
                (Op::Matrix(MatrixOp::Ldmatrix), m, vec![d, a], 1)
            }
            // mbarriers (shared memory), in the hardware's operand encodings
            // (`flag::MACHINE_FORM`): `SYNCS.EXCH.64` writes the init word ptxas computes from the
            // count, arrivals are of one with no transaction bytes (`.A1T0`) or with the
            // expected bytes, phase checks take the parity in bit 31.
            "SYNCS" if has("EXCH") && has("64") => {
                need(3)?;
                if !matches!(o[0].value, Value::Reg(r) if r.is_zero()) {
                    return Err("SYNCS.EXCH returning the old value".into());
                }
                m.spaces = vec![Space::Shared];
                m.types = vec![Ty::B64];
                m.flags |= flag::MACHINE_FORM;
                let a = self.address(&o[1], false, true)?;
                let word = self.src(&o[2], &mut m, 0, false)?;
                (Op::Mbarrier(MbarOp::Init), m, vec![a, word], 0)
            }
            "SYNCS" if has("ARRIVE") && has("TRANS64") && !has("RED") => {
                need(3)?;
                m.spaces = vec![Space::Shared];
                m.types = vec![Ty::B64];
                let d = self.dst64(&o[0])?;
                let a = self.address(&o[1], false, true)?;
                if has("A1T0") {
                    (Op::Mbarrier(MbarOp::Arrive), m, vec![d, a, Opnd::Imm(1)], 1)
                } else {
                    m.flags |= flag::EXPECT_TX;
                    let tx = self.src(&o[2], &mut m, 0, false)?;
                    (Op::Mbarrier(MbarOp::Arrive), m, vec![d, a, tx], 1)
                }
            }
            "SYNCS" if has("CCTL") && has("IV") => {
                need(1)?;
                m.spaces = vec![Space::Shared];
                m.types = vec![Ty::B64];
                let a = self.address(&o[0], false, true)?;
                (Op::Mbarrier(MbarOp::Inval), m, vec![a], 0)
            }
            "SYNCS" if has("PHASECHK") && has("TRANS64") => {
                need(3)?;
                m.spaces = vec![Space::Shared];
                m.types = vec![Ty::B64];
                m.flags |= flag::PARITY | flag::MACHINE_FORM;
                let p = self.dst(&o[0])?;
                let a = self.address(&o[1], false, true)?;
                let parity = self.src(&o[2], &mut m, 0, false)?;
                let op = if has("TRYWAIT") { MbarOp::TryWait } else { MbarOp::TestWait };
                (Op::Mbarrier(op), m, vec![p, a, parity], 1)
            }
            "UTMALDG" | "UTMASTG" if inst.modifiers.iter().all(|x| matches!(x.as_str(), "1D" | "2D" | "3D" | "4D" | "5D" | "MULTICAST")) => {
                // `UTMALDG.2D [URd], [URt]`: URd the shared destination, URd+1 the mbarrier,
                // URd+2... the coordinates (`UTMASTG`: URd the shared source, URd+1... the
                // coordinates); URt:URt+1 the tensor map's generic address; `.MULTICAST` a third
                // operand with the CTA mask in its high half. A load's shared addresses are
                // `shared::cluster` ones as the hardware forms them (the simulator reads the rank
                // and the reserved window from them). The form (dimensions, completion) is the
                // PTX instruction's at the line.
                need(2)?;
                let pi = self.ptx_form(inst, Op::Cp(CpOp::BulkTensor))?;
                let Some(Opnd::Tensor { coords, .. }) = pi.ops.iter().find(|x| matches!(x, Opnd::Tensor { .. })) else {
                    return Err("the PTX tensor copy has no tensor operand".into());
                };
                let multicast = has("MULTICAST");
                if multicast != pi.m.has(flag::MULTICAST) || (multicast && op_name == "UTMASTG") {
                    return Err("UTMALDG.MULTICAST against a PTX copy of another form".into());
                }
                let ureg = |x: &Operand| match &x.value {
                    Value::Mem { addr, .. } if addr.reg.is_none() && addr.offset == 0 => addr.ureg.as_ref().map(|u| u.reg).filter(|r| !r.is_zero()),
                    _ => None,
                };
                let (Some(d), Some(t)) = (ureg(&o[0]), ureg(&o[1])) else { return Err("UTMALDG operands other than two uniform registers".into()) };
                let mut regs = vec![d];
                for _ in 0..coords.len() + 1 {
                    regs.push(Self::next(*regs.last().ok_or("no register")?)?);
                }
                let mut r = Vec::new();
                for x in &regs {
                    r.push(self.gpr(*x).ok_or("zero register")?);
                }
                let (tlo, thi) = self.gpr_pair(t)?;
                let mut m = pi.m.clone();
                let dst = Opnd::Addr { base: Base::Reg(r[0]), offset: 0 };
                let mbar = Opnd::Addr { base: Base::Reg(r[1]), offset: 0 };
                let store = op_name == "UTMASTG";
                let first = if store { 1 } else { 2 };
                let tensor = Opnd::Tensor { base: Base::Pair(tlo, thi), coords: r[first..first + coords.len()].iter().map(|&x| Opnd::Reg(x)).collect() };
                if store {
                    // The source is read in the CTA's own space: the reserved window taken off.
                    let src = Opnd::Addr { base: Base::Reg(r[0]), offset: -SHARED_RESERVED };
                    (Op::Cp(CpOp::BulkTensor), m, vec![tensor, src], 0)
                } else if multicast {
                    need(3)?;
                    // The mask register holds the CTA mask in its high 16 bits (MACHINE_FORM).
                    m.flags |= flag::MACHINE_FORM;
                    let mask = self.src(&o[2], &mut m, 0, false)?;
                    (Op::Cp(CpOp::BulkTensor), m, vec![dst, tensor, mbar, mask], 0)
                } else {
                    (Op::Cp(CpOp::BulkTensor), m, vec![dst, tensor, mbar], 0)
                }
            }
            "UTMACMDFLUSH" => (Op::Cp(CpOp::BulkCommit), m, vec![], 0),
            "NOP" | "BSSY" | "BSYNC" | "YIELD" | "DEPBAR" | "ERRBAR" | "CGAERRBAR" | "CCTL" | "ENDCOLLECTIVE" => (Op::Nop, m, vec![], 0),
            // A loop's early exit: `@P BREAK Bn` drops the lanes from the barrier and the `@P BRA`
            // after it takes them out; reconvergence is the simulator's (see the module doc).
            "BREAK" => (Op::Nop, m, vec![], 0),
            "WARPSYNC" if has("COLLECTIVE") => (Op::Nop, m, vec![], 0),
            "WARPSYNC" => (Op::BarWarpSync, m, vec![], 0),
            "BRA" if has("DIV") => (Op::Nop, m, vec![], 0),
            // `BRA.CONV ~URZ, target`: to ptxas's fast path when the warp is converged, which the
            // model takes always (as it never takes `BRA.DIV`'s slow path).
            "BRA" if has("CONV") => {
                let t = o.iter().find_map(|x| if let Value::Target { pc, .. } = &x.value { *pc } else { None });
                let pc = t.ok_or("branch without a resolved target")?;
                (Op::Bra, m, vec![Opnd::Label(pc / 16)], 0)
            }
            // `BMOV.32.CLEAR Rd, Bn` / `BMOV.32 Bn, Rs`: a convergence barrier saved to and
            // restored from a register around a recursive call (or cleared before a BSSY, on
            // Turing); `BSSY`/`BSYNC` are no-ops here, so the saved value is 0 and the restore
            // nothing.
            "BMOV" if matches!(o.first().map(|x| &x.value), Some(Value::Reg(_))) => {
                need(2)?;
                m.types = vec![Ty::B32];
                let d = self.dst(&o[0])?;
                (Op::Mov, m, vec![d, Opnd::Imm(0)], 1)
            }
            "BMOV" => (Op::Nop, m, vec![], 0),
            "MEMBAR" => (Op::Membar, m, vec![], 0),
            "FENCE" => (Op::Fence, m, vec![], 0),
            // The cluster barrier, in its two halves (`barrier.cluster.arrive` / `.wait`).
            "UCGABAR_ARV" => (Op::BarrierCluster(warpsim_isa::inst::ClusterBarOp::Arrive), m, vec![], 0),
            "UCGABAR_WAIT" => (Op::BarrierCluster(warpsim_isa::inst::ClusterBarOp::Wait), m, vec![], 0),
            "EXIT" => (Op::Exit, m, vec![], 0),
            "BRA" | "CALL" => {
                if inst.opcode == "CALL" && !has("REL") {
                    return Err("an absolute CALL (an external function)".into());
                }
                if inst.modifiers.iter().any(|x| !matches!(x.as_str(), "U" | "ANY" | "REL" | "NOINC")) {
                    return Err(format!("`{}` is not lowered", inst.mnemonic()));
                }
                let t = o.iter().find_map(|x| if let Value::Target { pc, label } = &x.value { Some((*pc, label.clone())) } else { None });
                let Some((Some(pc), _)) = t else { return Err("branch without a resolved target".into()) };
                if has("ANY") {
                    m.flags |= flag::ANY;
                }
                if inst.opcode == "CALL" {
                    m.flags |= flag::SUBROUTINE;
                }
                // `@!P0 BRA P2, target`: a second predicate the guard is and-ed with.
                let mut ops = vec![Opnd::Label(pc / 16)];
                for x in o.iter().filter(|x| !matches!(x.value, Value::Target { .. })) {
                    if !matches!(x.value, Value::Pred(_)) || ops.len() > 1 || inst.opcode == "CALL" {
                        return Err(format!("`{}` with the operand `{x}`", inst.mnemonic()));
                    }
                    let p = self.src(x, &mut m, 0, false)?;
                    ops.push(p);
                }
                (Op::Bra, m, ops, 0)
            }
            // `BRX R2 -0x160 (*"BRANCH_TARGETS .L_x_35,…"*)` (a `switch`): a jump to byte offset
            // R2 + pc + 16 − 0x160. ptxas writes −(pc + 16) and loads R2 (sign-extended into R3)
            // from a bank-2 table of the targets' offsets, so R2 is the target's offset. An
            // indexed branch through a table of the listed targets (index: R2's value); any
            // other value stays on the BRX (no control-flow edge; the watchdog names the loop).
            "BRX" => {
                need(3)?;
                let (Value::Reg(_), Value::Int(imm), Value::BranchTargets(targets)) = (&o[0].value, &o[1].value, &o[2].value) else {
                    return Err(format!("`{}` other than `BRX Rn -offset (*\"BRANCH_TARGETS …\"*)`", inst.mnemonic()));
                };
                if !inst.modifiers.is_empty() {
                    return Err(format!("`{}` is not lowered", inst.mnemonic()));
                }
                let base = inst.pc as i64 + 16 + imm;
                let mut entries = Vec::new();
                for (label, pc) in targets {
                    let pc = pc.ok_or_else(|| format!("BRX target `{label}` is not a label of the kernel"))?;
                    let i = usize::try_from(pc as i64 - base).map_err(|_| format!("BRX target `{label}` lies below the jump's base {base:#x}"))?;
                    entries.push((i, pc / 16));
                }
                let mut t = vec![inst.pc / 16; entries.iter().map(|e| e.0 + 1).max().unwrap_or(0)];
                for (i, target) in entries {
                    t[i] = target;
                }
                self.brx_tables.push(t);
                let r = self.src(&o[0], &mut m, 0, false)?;
                (Op::BrxIdx, m, vec![r, Opnd::Table(self.brx_tables.len() as u32)], 0)
            }
            "RET" => {
                need(1)?;
                let r = self.src(&o[0], &mut m, 0, false)?;
                if !has("REL") {
                    return Err("an absolute RET".into());
                }
                m.flags |= flag::SUBROUTINE;
                (Op::BrxIdx, m, vec![r, Opnd::Table(0)], 0)
            }
            "MOV" | "UMOV" | "R2UR" | "S2R" | "S2UR" | "MOV32I" => {
                need(2)?;
                if n > 2 && !matches!(o[2].value, Value::Int(0xf) | Value::Int(0xffffffff)) {
                    return Err(format!("`{}` with a lane mask", inst.mnemonic()));
                }
                m.types = vec![Ty::B32];
                if op_name == "R2UR" {
                    m.flags |= flag::BROADCAST;
                }
                let d = self.dst(&o[0])?;
                let s = self.src(&o[1], &mut m, 0, false)?;
                (Op::Mov, m, vec![d, s], 1)
            }
            "CS2R" => {
                need(2)?;
                m.types = vec![Ty::B64];
                let d = self.dst64(&o[0])?;
                let s = match &o[1].value {
                    Value::Special(s) if s == "SRZ" => Opnd::Imm(0),
                    Value::Special(s) if s == "SR_CLOCKLO" => Opnd::Special(SReg::Clock64),
                    Value::Special(s) if s == "SR_GLOBALTIMERLO" => Opnd::Special(SReg::Globaltimer),
                    other => return Err(format!("CS2R of `{other}`")),
                };
                (Op::Mov, m, vec![d, s], 1)
            }
            "LDC" | "ULDC" => {
                need(2)?;
                let width = mem_width(inst)?;
                let Value::Const { bank, addr } = &o[1].value else { return Err("LDC without a constant operand".into()) };
                let regs = addr.reg.iter().chain(&addr.ureg).filter(|r| !r.reg.is_zero()).count();
                if *bank == Bank::Index(2) && regs == 0 && width.1 <= 2 && width.0 == Ty::B32 {
                    // ptxas's literals: known when the listing is read.
                    let (ty, d) = if width.1 == 2 { (Ty::B64, self.dst64(&o[0])?) } else { (Ty::B32, self.dst(&o[0])?) };
                    m.types = vec![ty];
                    (Op::Mov, m, vec![d, Opnd::Imm(self.bank2(addr.offset, 4 * width.1 as u32)?)], 1)
                } else if *bank == Bank::Index(3) && regs == 0 {
                    // A `__constant__` variable: `ld.const` of it, as PTX mode reads it.
                    let (s, at) = self.bank3(addr.offset, width.0.bytes() * width.1 as u32)?;
                    m.types = vec![width.0];
                    m.vec = width.1 as u8;
                    m.spaces = vec![Space::Const];
                    let d = self.vector(&o[0], width.1, true)?;
                    (Op::Ld, m, vec![d, Opnd::Addr { base: Base::Sym(s), offset: at as i64 }], 1)
                } else if matches!(bank, Bank::Index(2 | 3)) && regs == 1 {
                    // A table indexed by a thread's value (a `switch`'s jump offsets, a
                    // `__constant__` array): `ld.const` of the bank placed whole.
                    let Bank::Index(b) = *bank else { unreachable!() };
                    let r = addr.reg.iter().chain(&addr.ureg).find(|r| !r.reg.is_zero()).ok_or("zero register")?;
                    if !r.modifiers.is_empty() {
                        return Err(format!("constant address register `{}.{}`", r.reg, r.modifiers.join(".")));
                    }
                    let s = self.bank_copy(b)?;
                    let r = self.gpr(r.reg).ok_or("zero register")?;
                    m.types = vec![width.0];
                    m.vec = width.1 as u8;
                    m.spaces = vec![Space::Const];
                    let d = self.vector(&o[0], width.1, true)?;
                    (Op::Ld, m, vec![d, Opnd::Addr { base: Base::SymIndex(s, r), offset: addr.offset }], 1)
                } else if *bank == Bank::Index(4) && regs == 0 && width == (Ty::B32, 2) {
                    // The address of a `__device__` variable (`mov.u64 %rd, var`).
                    m.types = vec![Ty::B64];
                    let d = self.dst64(&o[0])?;
                    (Op::Mov, m, vec![d, Opnd::SymAddr(self.bank4(addr.offset)?, 0)], 1)
                } else if *bank != Bank::Index(0) {
                    return Err(format!("`{}` (only bank 0, literal offsets of banks 2 and 3, and 64-bit literal reads of bank 4 are lowered)", o[1]));
                } else if regs == 0 && addr.offset == 0x198 && width.1 == 2 {
                    // The parameter block's generic address (TMA instructions are handed the
                    // tensor map's address in it): `cvta.param` of the bank base.
                    m.types = vec![Ty::U64];
                    m.spaces = vec![Space::Param];
                    let d = self.dst64(&o[0])?;
                    (Op::Cvta, m, vec![d, Opnd::Imm(self.base as u64)], 1)
                } else if regs == 0 && (addr.offset as u64) < self.base as u64 {
                    // A driver field: what the driver puts there.
                    if width.1 > 2 || width.0 != Ty::B32 {
                        return Err(format!("{}-word read of driver constant c[0x0][{:#x}]", width.1, addr.offset));
                    }
                    m.types = vec![Ty::B32];
                    let s0 = self.bank0(addr.offset)?;
                    if width.1 == 1 {
                        let d = self.dst(&o[0])?;
                        (Op::Mov, m, vec![d, s0], 1)
                    } else {
                        let (Opnd::Imm(lo), Opnd::Imm(hi)) = (s0, self.bank0(addr.offset + 4)?) else {
                            return Err(format!("64-bit read of launch constants c[0x0][{:#x}]", addr.offset));
                        };
                        m.types = vec![Ty::B64];
                        let d = self.dst64(&o[0])?;
                        (Op::Mov, m, vec![d, Opnd::Imm(hi << 32 | lo)], 1)
                    }
                } else {
                    let base = match (addr.reg.as_ref().filter(|r| !r.reg.is_zero()), addr.ureg.as_ref().filter(|r| !r.reg.is_zero())) {
                        (None, None) => Base::None,
                        (Some(r), None) | (None, Some(r)) => Base::Reg(self.gpr(r.reg).ok_or("zero register")?),
                        (Some(a), Some(b)) => Base::Sum(self.gpr(a.reg).ok_or("zero register")?, self.gpr(b.reg).ok_or("zero register")?),
                    };
                    m.types = vec![width.0];
                    m.vec = width.1 as u8;
                    m.spaces = vec![Space::Param];
                    let d = self.vector(&o[0], width.1, true)?;
                    (Op::Ld, m, vec![d, Opnd::Addr { base, offset: addr.offset }], 1)
                }
            }
            "LDG" | "LDS" | "LDL" | "LD" | "STG" | "STS" | "STL" | "ST" => {
                need(2)?;
                let store = op_name.starts_with("ST");
                let space = match &op_name[2..] {
                    "G" => Space::Global,
                    "S" => Space::Shared,
                    "L" => Space::Local,
                    _ => Space::Generic,
                };
                let (ty, v) = mem_width(inst)?;
                m.types = vec![ty];
                m.vec = v as u8;
                m.spaces = vec![space];
                // A load coherent at GPU or system scope (`.STRONG.GPU`: ptxas's `ld.global.cg`,
                // `ld.relaxed.gpu`; `.STRONG.SYS`: `ld.volatile`) is not served by the L1.
                if !store && has("STRONG") && (has("GPU") || has("SYS")) {
                    m.cache = Some(warpsim_isa::types::CacheOp::Cg);
                }
                let wide = has("E") || matches!(space, Space::Generic);
                let (ai, di) = if store { (0, 1) } else { (1, 0) };
                let a = self.address(&o[ai], wide, space == Space::Shared)?;
                let d = self.vector(&o[di], v, !store)?;
                if store {
                    (Op::St, m, vec![a, d], 0)
                } else {
                    (Op::Ld, m, vec![d, a], 1)
                }
            }
            "ATOMG" | "ATOM" | "REDG" | "RED" | "ATOMS" => {
                let red = op_name.starts_with("RED");
                let space = match op_name {
                    "ATOMS" => Space::Shared,
                    "ATOM" | "RED" => Space::Generic,
                    _ => Space::Global,
                };
                // `ATOMS.CAST.SPIN{.64} d, [a], cmp, new`: store `new` if memory holds `cmp`, `d` =
                // whether it did (ptxas's loop for shared 64-bit and float atomics).
                let aop = if has("POPC") {
                    AtomOp::Add
                } else if has("CAST") && has("SPIN") && space == Space::Shared {
                    AtomOp::CasFlag
                } else {
                    atom_op(inst)?
                };
                let ty = if has("F32") {
                    Ty::F32
                } else if has("F64") {
                    Ty::F64
                } else if has("S64") {
                    Ty::S64
                } else if has("64") && matches!(aop, AtomOp::Add | AtomOp::Min | AtomOp::Max | AtomOp::Inc | AtomOp::Dec) {
                    Ty::U64
                } else if has("64") {
                    Ty::B64
                } else if has("S32") {
                    Ty::S32
                } else {
                    Ty::U32
                };
                if ty == Ty::F32 && aop == AtomOp::Add && !(has("FTZ") && has("RN")) || ty == Ty::F64 && !has("RN") {
                    return Err(format!("`{}`", inst.mnemonic()));
                }
                let wide_data = ty.bits() == 64;
                m.types = vec![ty];
                m.spaces = vec![space];
                let wide = has("E") || matches!(space, Space::Generic);
                let shared = space == Space::Shared;
                // `ATOMG.E.ADD PT, R7, [R2.64], R5`: a leading predicate destination, whether the
                // operation was performed (a generic `ATOM P0, …` falls back to shared-memory code
                // when not); the simulator performs it in any space, so it is true.
                let (performed, o): (Option<Opnd>, Vec<Operand>) = match o.first().map(|x| &x.value) {
                    Some(Value::Pred(p)) if p.is_true() => (None, o[1..].to_vec()),
                    Some(Value::Pred(_)) if !red => (Some(self.dst(&o[0])?), o[1..].to_vec()),
                    Some(Value::Pred(_)) => return Err("a reduction writing a predicate".into()),
                    _ => (None, o.to_vec()),
                };
                let n = o.len();
                let need = |k: usize| if n < k { Err(format!("{} operands, {} needs {k}", n, inst.mnemonic())) } else { Ok(()) };
                if has("POPC") && has("INC") {
                    // `ATOMS.POPC.INC.32 d, [a]`: the warp adds one per lane (the hardware adds the
                    // population count of each address's lanes at once; the lane-serial adds give
                    // every lane the same old value plus its rank among them).
                    need(2)?;
                    m.types = vec![Ty::U32];
                    let d = self.dst(&o[0])?;
                    let a = self.address(&o[1], wide, shared)?;
                    return Ok((Op::Atom(AtomOp::Add), m, vec![d, a, Opnd::Imm(1)], 1));
                }
                // 64-bit data and results are register pairs.
                let data = |lw: &mut Self, x: &Operand, m: &mut Mods, i: usize| if wide_data { lw.src64(x) } else { lw.src(x, m, i, false) };
                if red {
                    need(2)?;
                    let a = self.address(&o[0], wide, shared)?;
                    let b = data(self, &o[1], &mut m, 0)?;
                    (Op::Red(aop), m, vec![a, b], 0)
                } else {
                    need(3)?;
                    let d = if wide_data { self.dst64(&o[0])? } else { self.dst(&o[0])? };
                    let d = match performed {
                        Some(p) => Opnd::Vec(vec![d, p]),
                        None => d,
                    };
                    let a = self.address(&o[1], wide, shared)?;
                    let b = data(self, &o[2], &mut m, 0)?;
                    let mut ops = vec![d, a, b];
                    if matches!(aop, AtomOp::Cas | AtomOp::CasFlag) {
                        need(4)?;
                        ops.push(data(self, &o[3], &mut m, 1)?);
                    }
                    if m.neg | m.not != 0 {
                        return Err("negated atomic operand".into());
                    }
                    (Op::Atom(aop), m, ops, 1)
                }
            }
            "ELECT" => {
                // `ELECT P0, URx, PT`: the leader lane's index and whether this lane is it.
                need(3)?;
                if !matches!(&o[2].value, Value::Pred(p) if p.is_true() && !o[2].not) {
                    return Err("ELECT over a predicate's lanes".into());
                }
                let p = self.dst(&o[0])?;
                let d = self.dst(&o[1])?;
                m.types = vec![Ty::B32];
                (Op::Elect, m, vec![Opnd::Vec(vec![d, p])], 1)
            }
            "REDUX" => {
                need(2)?;
                // `REDUX` without an operation is `redux.sync.and` (ptxas writes nothing for it).
                let r = if has("SUM") {
                    AtomOp::Add
                } else if inst.modifiers.iter().all(|x| x == "S32") {
                    AtomOp::And
                } else {
                    atom_op(inst)?
                };
                m.types = vec![if has("S32") { Ty::S32 } else { Ty::U32 }];
                let d = self.dst(&o[0])?;
                let s = self.src(&o[1], &mut m, 0, false)?;
                (Op::Redux(r), m, vec![d, s], 1)
            }
            "FCHK" => {
                need(3)?;
                m.types = vec![Ty::B32];
                let d = self.dst(&o[0])?;
                let s = srcs!(&mut m, false, [1, 2]);
                if m.neg | m.not | m.abs != 0 {
                    return Err("modified FCHK operand".into());
                }
                (Op::Machine(MachineOp::Fchk), m, [vec![d], s].concat(), 1)
            }
            // `BAR.RED.POPC/AND/OR id, {count,} p` is `bar.red` whose result goes to a register of
            // the barrier's that `B2R.RESULT d, {q}` then reads (`d` the count, `q` whether it is
            // non-zero: the and/or).
            "BAR" if has("RED") => {
                need(2)?;
                let bop = if has("POPC") {
                    BarOp::RedPopc
                } else if has("AND") {
                    BarOp::RedAnd
                } else if has("OR") {
                    BarOp::RedOr
                } else {
                    return Err(format!("`{}`", inst.mnemonic()));
                };
                let mut ops = vec![Opnd::Reg(self.reg_of(Key::BarResult))];
                for (i, x) in o.iter().enumerate() {
                    ops.push(self.src(x, &mut m, i, false)?);
                }
                m.types = vec![if bop == BarOp::RedPopc { Ty::U32 } else { Ty::Pred }];
                (Op::Bar(bop), m, ops, 1)
            }
            "BAR" => {
                let bop = if has("SYNC") {
                    BarOp::Sync
                } else if has("ARV") {
                    BarOp::Arrive
                } else {
                    return Err(format!("`{}`", inst.mnemonic()));
                };
                need(1)?;
                let mut ops = vec![self.src(&o[0], &mut m, 0, false)?];
                if n > 1 {
                    ops.push(self.src(&o[1], &mut m, 1, false)?);
                }
                (Op::Bar(bop), m, ops, 0)
            }
            "B2R" if has("RESULT") => {
                need(1)?;
                let r = Opnd::Reg(self.reg_of(Key::BarResult));
                let d = self.dst(&o[0])?;
                let q = if n > 1 { self.dst(&o[1])? } else { Opnd::Sink };
                match (d, q) {
                    (d, Opnd::Sink) => {
                        m.types = vec![Ty::B32];
                        (Op::Mov, m, vec![d, r], 1)
                    }
                    (Opnd::Sink, q) => {
                        m.types = vec![Ty::U32];
                        m.cmp = Some(Cmp::Ne);
                        (Op::Setp, m, vec![Opnd::Vec(vec![q, Opnd::Sink]), r, Opnd::Imm(0)], 1)
                    }
                    _ => return Err("B2R.RESULT writing both a register and a predicate".into()),
                }
            }
            "SHFL" => {
                need(5)?;
                let mode = if has("BFLY") {
                    ShflMode::Bfly
                } else if has("DOWN") {
                    ShflMode::Down
                } else if has("UP") {
                    ShflMode::Up
                } else if has("IDX") {
                    ShflMode::Idx
                } else {
                    return Err(format!("`{}`", inst.mnemonic()));
                };
                m.types = vec![Ty::B32];
                let p = self.dst(&o[0])?;
                let d = self.dst(&o[1])?;
                let s = srcs!(&mut m, false, [2, 3, 4]);
                (Op::Shfl(mode), m, [vec![Opnd::Vec(vec![d, p])], s].concat(), 1)
            }
            "VOTE" | "VOTEU" => {
                need(2)?;
                let mode = if has("ALL") {
                    VoteMode::All
                } else if has("ANY") {
                    VoteMode::Any
                } else if has("EQ") {
                    VoteMode::Uni
                } else {
                    return Err(format!("`{}`", inst.mnemonic()));
                };
                m.types = vec![Ty::B32];
                // `VOTEU.ALL UP0, P0` (a predicate), `VOTE.ANY R3, PT, P0` (the ballot; the
                // predicate result, if any, is the second destination).
                let s = self.src(&o[n - 1], &mut m, 0, false)?;
                let d = self.dst(&o[0])?;
                if n == 2 {
                    (Op::Vote(mode), m, vec![d, s], 1)
                } else {
                    match (d, self.dst(&o[1])?) {
                        (d, Opnd::Sink) if mode == VoteMode::Any => (Op::Vote(VoteMode::Ballot), m, vec![d, s], 1),
                        (Opnd::Sink, pd) => (Op::Vote(mode), m, vec![pd, s], 1),
                        _ => return Err("VOTE writing both a ballot and a predicate".into()),
                    }
                }
            }
            "ISETP" | "UISETP" | "FSETP" => {
                need(5)?;
                let float = op_name == "FSETP";
                if has("EX") && !float {
                    // `ISETP.GE.U32.AND.EX P0, PT, R3, UR9, PT, P0`: the high words of a 64-bit
                    // compare, the low words' result chained in.
                    need(6)?;
                    let cmp = inst.modifiers.iter().find_map(|x| cmp_of(x)).filter(|c| matches!(c, Cmp::Eq | Cmp::Ne | Cmp::Lt | Cmp::Le | Cmp::Gt | Cmp::Ge));
                    let cmp = cmp.ok_or("ISETP.EX without an integer comparison")?;
                    let bop = inst.modifiers.iter().find_map(|x| match x.as_str() {
                        "AND" => Some(BoolOp::And),
                        "OR" => Some(BoolOp::Or),
                        "XOR" => Some(BoolOp::Xor),
                        _ => None,
                    });
                    m.types = vec![Ty::B32];
                    let p = self.dst(&o[0])?;
                    let q = self.dst(&o[1])?;
                    let s = srcs!(&mut m, false, [2, 3, 4, 5]);
                    if m.neg | m.not | m.abs != 0 {
                        return Err("ISETP.EX with a modified register operand".into());
                    }
                    let op = MachineOp::IsetpEx { cmp, signed: !has("U32"), bop: bop.unwrap_or(BoolOp::And) };
                    return Ok((Op::Machine(op), m, [vec![Opnd::Vec(vec![p, q])], s].concat(), 1));
                }
                let cmp = inst.modifiers.iter().find_map(|x| cmp_of(x)).ok_or("no comparison")?;
                let bop = inst.modifiers.iter().find_map(|x| match x.as_str() {
                    "AND" => Some(BoolOp::And),
                    "OR" => Some(BoolOp::Or),
                    "XOR" => Some(BoolOp::Xor),
                    _ => None,
                });
                m.types = vec![if float { Ty::F32 } else { int_ty(true) }];
                m.cmp = Some(cmp);
                m.bool_op = bop;
                if float && has("FTZ") {
                    m.flags |= flag::FTZ;
                }
                let p = self.dst(&o[0])?;
                let q = self.dst(&o[1])?;
                let s = srcs!(&mut m, float, [2, 3, 4]);
                (Op::Setp, m, [vec![Opnd::Vec(vec![p, q])], s].concat(), 1)
            }
            "PLOP3" | "UPLOP3" => {
                need(7)?;
                let p = self.dst(&o[0])?;
                let q = self.dst(&o[1])?;
                let s = srcs!(&mut m, false, [2, 3, 4, 5, 6]);
                (Op::Machine(MachineOp::Plop3), m, [vec![Opnd::Vec(vec![p, q])], s].concat(), 1)
            }
            "LOP3" | "ULOP3" => {
                m.types = vec![Ty::B32];
                let (d, p, first) = match &o.first().map(|x| &x.value) {
                    Some(Value::Pred(_)) => {
                        need(7)?;
                        (self.dst(&o[1])?, self.dst(&o[0])?, 2)
                    }
                    _ => {
                        need(6)?;
                        (self.dst(&o[0])?, Opnd::Sink, 1)
                    }
                };
                let s = srcs!(&mut m, false, [first, first + 1, first + 2, first + 3, first + 4]);
                (Op::Machine(MachineOp::Lop3), m, [vec![Opnd::Vec(vec![d, p])], s].concat(), 1)
            }
            "IADD3" | "UIADD3" => {
                let x = has("X");
                m.types = vec![Ty::U32];
                // Forms: d, a, b, c | d, p0, a, b, c | d, p0, p1, a, b, c (+ two carries with .X).
                let preds = o.iter().skip(1).take_while(|x| matches!(x.value, Value::Pred(_))).count().min(2);
                let nsrc = if x { 5 } else { 3 };
                need(1 + preds + nsrc)?;
                let d = self.dst(&o[0])?;
                let p0 = if preds >= 1 { self.dst(&o[1])? } else { Opnd::Sink };
                let p1 = if preds >= 2 { self.dst(&o[2])? } else { Opnd::Sink };
                let f = 1 + preds;
                let s = if x { srcs!(&mut m, false, [f, f + 1, f + 2, f + 3, f + 4]) } else { srcs!(&mut m, false, [f, f + 1, f + 2]) };
                (Op::Machine(MachineOp::Iadd3 { x }), m, [vec![Opnd::Vec(vec![d, p0, p1])], s].concat(), 1)
            }
            "VIADD" | "UIADD" => {
                need(3)?;
                m.types = vec![Ty::U32];
                let d = self.dst(&o[0])?;
                let s = srcs!(&mut m, false, [1, 2]);
                (Op::Add, m, [vec![d], s].concat(), 1)
            }
            "IMAD" | "UIMAD" => {
                if has("WIDE") {
                    need(4)?;
                    m.types = vec![if has("U32") { Ty::U32 } else { Ty::S32 }];
                    m.flags |= flag::WIDE;
                    let d = self.dst64(&o[0])?;
                    let s = srcs!(&mut m, false, [1, 2]);
                    let c = self.src64(&o[3])?;
                    (Op::Mad, m, [vec![d], s, vec![c]].concat(), 1)
                } else if has("HI") {
                    need(4)?;
                    let d = self.dst(&o[0])?;
                    let s = srcs!(&mut m, false, [1, 2]);
                    let c = self.src64(&o[3])?;
                    (Op::Machine(MachineOp::ImadHi { signed: !has("U32") }), m, [vec![d], s, vec![c]].concat(), 1)
                } else if has("X") {
                    need(5)?;
                    m.types = vec![Ty::U32];
                    let d = self.dst(&o[0])?;
                    let s = srcs!(&mut m, false, [1, 2, 3, 4]);
                    (Op::Machine(MachineOp::ImadX), m, [vec![d], s].concat(), 1)
                } else {
                    need(4)?;
                    if o.get(1).is_some_and(|x| matches!(x.value, Value::Pred(_))) {
                        return Err("IMAD with a carry-out predicate".into());
                    }
                    m.types = vec![Ty::U32];
                    let d = self.dst(&o[0])?;
                    let s = srcs!(&mut m, false, [1, 2, 3]);
                    (Op::Mad, m, [vec![d], s].concat(), 1)
                }
            }
            "LEA" | "ULEA" => {
                let hi = has("HI");
                let x = has("X");
                let sx32 = has("SX32");
                let preds = o.iter().skip(1).take_while(|x| matches!(x.value, Value::Pred(_))).count().min(1);
                let d = self.dst(&o[0])?;
                let p = if preds == 1 { self.dst(&o[1])? } else { Opnd::Sink };
                let f = 1 + preds;
                // Sources a, b, [c (hi, not sx32)], shift, [cin (x)].
                let with_c = hi && !sx32;
                need(f + 3 + with_c as usize + x as usize)?;
                m.types = vec![Ty::U32];
                let a = self.src(&o[f], &mut m, 0, false)?;
                let b = self.src(&o[f + 1], &mut m, 1, false)?;
                let mut k = f + 2;
                let c = if with_c {
                    k += 1;
                    self.src(&o[k - 1], &mut m, 2, false)?
                } else {
                    Opnd::Imm(0)
                };
                let sh = self.src(&o[k], &mut m, 3, false)?;
                let cin = if x { self.src(&o[k + 1], &mut m, 4, false)? } else { Opnd::Imm(0) };
                (Op::Machine(MachineOp::Lea { hi, x, sx32 }), m, vec![Opnd::Vec(vec![d, p]), a, b, c, sh, cin], 1)
            }
            "SHF" | "USHF" => {
                need(4)?;
                let left = has("L");
                if !left && !has("R") {
                    return Err("SHF without a direction".into());
                }
                let signed = has("S32") || has("S64");
                let wide = has("U64") || has("S64");
                m.types = vec![Ty::U32];
                let d = self.dst(&o[0])?;
                let s = srcs!(&mut m, false, [1, 2, 3]);
                (Op::Machine(MachineOp::Shf { left, hi: has("HI"), signed, wide, wrap: has("W") }), m, [vec![d], s].concat(), 1)
            }
            // `FSEL d, |a|, -b, p`: `selp.f32`, the float modifiers applied to the chosen value.
            "SEL" | "USEL" | "FSEL" => {
                need(4)?;
                let float = op_name == "FSEL";
                m.types = vec![if float { Ty::F32 } else { Ty::B32 }];
                let d = self.dst(&o[0])?;
                let s = srcs!(&mut m, float, [1, 2, 3]);
                if m.not != 0 || (!float && m.neg | m.abs != 0) {
                    return Err("modified SEL operand".into());
                }
                (Op::Selp, m, [vec![d], s].concat(), 1)
            }
            "IABS" => {
                need(2)?;
                m.types = vec![Ty::S32];
                let d = self.dst(&o[0])?;
                let s = srcs!(&mut m, false, [1]);
                (Op::Abs, m, [vec![d], s].concat(), 1)
            }
            // `SGXT{.U32}{.W} d, a, n`: `szext` (the low n bits of a, sign- or zero-extended);
            // `BMSK{.W} d, start, n`: `bmsk` (n ones from bit start); clamped unless `.W`.
            "SGXT" | "USGXT" | "BMSK" | "UBMSK" => {
                need(3)?;
                let sgxt = op_name.ends_with("SGXT");
                m.types = vec![if !sgxt { Ty::B32 } else if has("U32") { Ty::U32 } else { Ty::S32 }];
                if has("W") {
                    m.flags |= flag::WRAP;
                }
                let d = self.dst(&o[0])?;
                let s = srcs!(&mut m, false, [1, 2]);
                if m.neg | m.not | m.abs != 0 {
                    return Err(format!("`{}` with a modified operand", inst.mnemonic()));
                }
                (if sgxt { Op::Szext } else { Op::Bmsk }, m, [vec![d], s].concat(), 1)
            }
            // `IDP.4A.{S8,U8}.{S8,U8} d, a, b, c`: `dp4a` (a's and b's byte signedness);
            // `IDP.2A.{LO,HI}.{S16,U16}.{S8,U8} d, a, b, c`: `dp2a` (a's halves, b's bytes).
            "IDP" if has("4A") || has("2A") => {
                need(4)?;
                let signed: Vec<bool> = inst.modifiers.iter().filter_map(|x| match x.as_str() {
                    "S8" | "S16" => Some(true),
                    "U8" | "U16" => Some(false),
                    _ => None,
                }).collect();
                let [sa, sb] = signed[..] else { return Err(format!("`{}`: operand types", inst.mnemonic())) };
                let ty = |s: bool| if s { Ty::S32 } else { Ty::U32 };
                m.types = vec![ty(sa), ty(sb)];
                let op = if has("4A") {
                    Op::Dp4a
                } else {
                    if has("HI") {
                        m.flags |= flag::HI;
                    }
                    Op::Dp2a
                };
                let d = self.dst(&o[0])?;
                let s = srcs!(&mut m, false, [1, 2, 3]);
                if m.neg | m.not | m.abs != 0 {
                    return Err(format!("`{}` with a modified operand", inst.mnemonic()));
                }
                (op, m, [vec![d], s].concat(), 1)
            }
            // `MATCH.ANY{.U64} d, a` / `MATCH.ALL{.U64} p, d, a`: `match.sync` over the active lanes.
            "MATCH" => {
                let all = has("ALL");
                if !all && !has("ANY") {
                    return Err(format!("`{}`", inst.mnemonic()));
                }
                need(if all { 3 } else { 2 })?;
                let wide = has("U64");
                m.types = vec![if wide { Ty::B64 } else { Ty::B32 }];
                let (dst, a) = if all {
                    let p = self.dst(&o[0])?;
                    (Opnd::Vec(vec![self.dst(&o[1])?, p]), &o[2])
                } else {
                    (self.dst(&o[0])?, &o[1])
                };
                let a = if wide { self.src64(a)? } else { self.src(a, &mut m, 0, false)? };
                (Op::Match(all), m, vec![dst, a], 1)
            }
            "POPC" | "UPOPC" | "BREV" | "UBREV" | "FLO" | "UFLO" => {
                need(2)?;
                let (op, ty) = match op_name.trim_start_matches('U') {
                    "POPC" => (Op::Popc, Ty::B32),
                    "BREV" => (Op::Brev, Ty::B32),
                    _ => {
                        if has("SH") {
                            m.flags |= flag::SHIFTAMT;
                        }
                        (Op::Bfind, int_ty(true))
                    }
                };
                m.types = vec![ty];
                let d = self.dst(&o[0])?;
                let s = srcs!(&mut m, false, [1]);
                (op, m, [vec![d], s].concat(), 1)
            }
            "PRMT" | "UPRMT" => {
                need(4)?;
                if !inst.modifiers.is_empty() {
                    return Err(format!("`{}` (a PRMT mode)", inst.mnemonic()));
                }
                m.types = vec![Ty::B32];
                let d = self.dst(&o[0])?;
                let a = self.src(&o[1], &mut m, 0, false)?;
                let sel = self.src(&o[2], &mut m, 2, false)?;
                let b = self.src(&o[3], &mut m, 1, false)?;
                (Op::Prmt, m, vec![d, a, b, sel], 1)
            }
            "VIMNMX" | "IMNMX" | "FMNMX" | "VIADDMNMX" | "VIMNMX3" => {
                let float = op_name == "FMNMX";
                let k = match op_name {
                    "VIADDMNMX" | "VIMNMX3" => 4,
                    _ => 3,
                };
                need(k + 1)?;
                let max = match &o[k].value {
                    Value::Pred(p) if p.is_true() => o[k].not,
                    _ => return Err(format!("`{}` choosing min or max by a predicate register", inst.mnemonic())),
                };
                let signed = !has("U32");
                m.types = vec![if float { Ty::F32 } else if signed { Ty::S32 } else { Ty::U32 }];
                if has("NAN") {
                    m.flags |= flag::NAN;
                }
                if has("FTZ") {
                    m.flags |= flag::FTZ;
                }
                let d = self.dst(&o[0])?;
                let s = if k == 4 { srcs!(&mut m, float, [1, 2, 3]) } else { srcs!(&mut m, float, [1, 2]) };
                let op = match op_name {
                    "VIADDMNMX" => Op::Machine(MachineOp::AddMinMax { max, signed }),
                    "VIMNMX3" => Op::Machine(MachineOp::MinMax3 { max, signed }),
                    _ if max => Op::Max,
                    _ => Op::Min,
                };
                (op, m, [vec![d], s].concat(), 1)
            }
            "FADD" | "FMUL" | "FFMA" => {
                let k = if op_name == "FFMA" { 3 } else { 2 };
                need(k + 1)?;
                for x in &inst.modifiers {
                    match x.as_str() {
                        "FTZ" => m.flags |= flag::FTZ,
                        "SAT" => m.flags |= flag::SAT,
                        "RN" => m.rnd = Some(Rnd::Rn),
                        "RZ" => m.rnd = Some(Rnd::Rz),
                        "RM" => m.rnd = Some(Rnd::Rm),
                        "RP" => m.rnd = Some(Rnd::Rp),
                        other => return Err(format!("`{op_name}.{other}` is not lowered")),
                    }
                }
                m.types = vec![Ty::F32];
                let d = self.dst(&o[0])?;
                let s = if k == 3 { srcs!(&mut m, true, [1, 2, 3]) } else { srcs!(&mut m, true, [1, 2]) };
                let op = match op_name {
                    "FADD" => Op::Add,
                    "FMUL" => Op::Mul,
                    _ => Op::Fma,
                };
                (op, m, [vec![d], s].concat(), 1)
            }
            "MUFU" if has("RCP64H") || has("RSQ64H") => {
                need(2)?;
                m.types = vec![Ty::B32];
                let d = self.dst(&o[0])?;
                let s = srcs!(&mut m, false, [1]);
                if m.neg | m.not | m.abs != 0 {
                    return Err(format!("`{}` with a modified operand", inst.mnemonic()));
                }
                (Op::Machine(MachineOp::Mufu64H { rsqrt: has("RSQ64H") }), m, [vec![d], s].concat(), 1)
            }
            // `MUFU.fn{.F16,.BF16}`: the `.approx` op of that type (f32 ones flush subnormals).
            "MUFU" => {
                need(2)?;
                let ty = if has("F16") {
                    Ty::F16
                } else if has("BF16") {
                    Ty::Bf16
                } else {
                    Ty::F32
                };
                m.types = vec![ty];
                m.flags |= flag::APPROX;
                if ty != Ty::F16 {
                    m.flags |= flag::FTZ;
                }
                let f = inst.modifiers.first().map(String::as_str).unwrap_or("");
                if ty != Ty::F32 && !matches!(f, "EX2" | "TANH") {
                    return Err(format!("`{}`", inst.mnemonic()));
                }
                // `MUFU.EX2.F16 d, a.H1`: one half of a register ([`MachineOp::MufuHalf`]).
                let sel: Vec<&str> = o[1].modifiers.iter().map(String::as_str).filter(|x| *x != "reuse").collect();
                if ty != Ty::F32 && matches!(sel[..], ["H0"] | ["H1"]) {
                    m.types = vec![if ty == Ty::F16 { Ty::F16x2 } else { Ty::Bf16x2 }];
                    let d = self.dst(&o[0])?;
                    let mut plain = o[1].clone();
                    plain.modifiers.clear();
                    let s = self.src(&plain, &mut m, 0, false)?;
                    return Ok((Op::Machine(MachineOp::MufuHalf { tanh: f == "TANH", hi: sel == ["H1"] }), m, vec![d, s], 1));
                }
                let op = match f {
                    "TANH" => Op::Tanh,
                    "RCP" => Op::Rcp,
                    "RSQ" => Op::Rsqrt,
                    "EX2" => Op::Ex2,
                    "LG2" => Op::Lg2,
                    "SQRT" => Op::Sqrt,
                    "SIN" => Op::Machine(MachineOp::MufuSinCos { cos: false }),
                    "COS" => Op::Machine(MachineOp::MufuSinCos { cos: true }),
                    _ => return Err(format!("MUFU.{f} is not lowered")),
                };
                let d = self.dst(&o[0])?;
                let s = srcs!(&mut m, true, [1]);
                (op, m, [vec![d], s].concat(), 1)
            }
            // Turing's half conversions: `F2F.F16.F32` (`cvt.rn.f16.f32`, low half, high half
            // zero) and `F2F.F32.F16` (`cvt.f32.f16` of the low half).
            "F2F" if inst.modifiers.iter().all(|x| matches!(x.as_str(), "F16" | "F32" | "FTZ")) && has("F16") && has("F32") => {
                need(2)?;
                let to_half = inst.modifiers.iter().position(|x| x == "F16") < inst.modifiers.iter().position(|x| x == "F32");
                if has("FTZ") {
                    m.flags |= flag::FTZ;
                }
                m.types = if to_half { vec![Ty::F16, Ty::F32] } else { vec![Ty::F32, Ty::F16] };
                if to_half {
                    m.rnd = Some(Rnd::Rn);
                }
                let d = self.dst(&o[0])?;
                let s = srcs!(&mut m, true, [1]);
                if m.neg | m.not | m.abs != 0 || o[1].modifiers.iter().any(|x| x != "reuse") {
                    return Err("F2F with a modified or half-selected operand".into());
                }
                (Op::Cvt, m, [vec![d], s].concat(), 1)
            }
            // Conversions: `F2I.{int}.{float}`, `I2F.{float}.{int}`, `F2F.{to}.{from}`,
            // `FRND.{float}` (the float type F32 and the integer S32 when not written; 64-bit
            // types on register pairs), with the rounding written: `cvt`.
            "F2I" | "I2F" | "I2FP" | "F2F" | "FRND" => {
                need(2)?;
                let mut ints = Vec::new();
                let mut floats = Vec::new();
                for x in &inst.modifiers {
                    match x.as_str() {
                        "FTZ" => m.flags |= flag::FTZ,
                        "NTZ" => {}
                        "TRUNC" => m.rnd = Some(if op_name == "F2I" || op_name == "FRND" { Rnd::Rzi } else { Rnd::Rz }),
                        "FLOOR" => m.rnd = Some(Rnd::Rmi),
                        "CEIL" => m.rnd = Some(Rnd::Rpi),
                        "RP" => m.rnd = Some(Rnd::Rp),
                        "RM" => m.rnd = Some(Rnd::Rm),
                        "RZ" => m.rnd = Some(Rnd::Rz),
                        "RN" => m.rnd = Some(Rnd::Rn),
                        "U32" => ints.push(Ty::U32),
                        "S32" => ints.push(Ty::S32),
                        "U64" => ints.push(Ty::U64),
                        "S64" => ints.push(Ty::S64),
                        "U16" => ints.push(Ty::U16),
                        "S16" => ints.push(Ty::S16),
                        "U8" => ints.push(Ty::U8),
                        "S8" => ints.push(Ty::S8),
                        "F32" => floats.push(Ty::F32),
                        "F64" => floats.push(Ty::F64),
                        "F16" => floats.push(Ty::F16),
                        "BF16" => floats.push(Ty::Bf16),
                        other => return Err(format!("`{}` (.{other})", inst.mnemonic())),
                    }
                }
                let int = match ints[..] {
                    [] => Ty::S32,
                    [t] => t,
                    _ => return Err(format!("`{}`: two integer types", inst.mnemonic())),
                };
                let float = |i: usize| floats.get(i).copied().unwrap_or(Ty::F32);
                m.types = match op_name {
                    "F2I" if floats.len() <= 1 => vec![int, float(0)],
                    "FRND" if floats.len() <= 1 => vec![float(0), float(0)],
                    // `F2F.F32.F64`: to, from (the half forms are the arm above).
                    "F2F" if floats.len() == 2 && ints.is_empty() => floats.clone(),
                    "I2F" | "I2FP" if floats.len() <= 1 => vec![float(0), int],
                    _ => return Err(format!("`{}`", inst.mnemonic())),
                };
                if m.rnd.is_none() {
                    let to_int = op_name == "F2I" || op_name == "FRND";
                    let narrowing = op_name != "F2F" || m.types[0] == Ty::F32;
                    m.rnd = match (to_int, narrowing) {
                        (true, _) => Some(Rnd::Rni),
                        (false, true) => Some(Rnd::Rn),
                        // f32 to f64 is exact: no rounding.
                        (false, false) => None,
                    };
                }
                let (to, from) = (m.types[0], m.types[1]);
                let d = if to.bits() == 64 { self.dst64(&o[0])? } else { self.dst(&o[0])? };
                let s = if from == Ty::F64 {
                    self.fsrc64(&o[1], &mut m, 0)?
                } else if from.bits() == 64 {
                    if o[1].neg || o[1].abs || o[1].not {
                        return Err(format!("`{}` with a modified 64-bit operand", inst.mnemonic()));
                    }
                    self.src64(&o[1])?
                } else {
                    self.src(&o[1], &mut m, 0, from.is_float())?
                };
                (Op::Cvt, m, vec![d, s], 1)
            }
            // `DFMA d, a, b, c`, `DADD d, a, b`, `DMUL d, a, b` on register pairs (uniform ones
            // too), sources negated or absolute, literals as f64: `fma/add/mul.f64`.
            "DFMA" | "DADD" | "DMUL" => {
                let k = if op_name == "DFMA" { 3 } else { 2 };
                need(k + 1)?;
                m.rnd = Some(Self::rounding(inst)?);
                m.types = vec![Ty::F64];
                let d = self.dst64(&o[0])?;
                let mut ops = vec![d];
                for i in 0..k {
                    ops.push(self.fsrc64(&o[i + 1], &mut m, i)?);
                }
                let op = match op_name {
                    "DADD" => Op::Add,
                    "DMUL" => Op::Mul,
                    _ => Op::Fma,
                };
                (op, m, ops, 1)
            }
            // `DSETP.cmp.bop p, q, a, b, c` as `FSETP` on f64 pairs; `DSETP.MIN/MAX.AND p, q, a,
            // b, PT` is ptxas's `min/max.f64` ([`MachineOp::DminMax`]).
            "DSETP" => {
                need(5)?;
                let minmax = has("MIN") || has("MAX");
                let bop = inst.modifiers.iter().find_map(|x| match x.as_str() {
                    "AND" => Some(BoolOp::And),
                    "OR" => Some(BoolOp::Or),
                    "XOR" => Some(BoolOp::Xor),
                    _ => None,
                });
                m.types = vec![Ty::F64];
                let p = self.dst(&o[0])?;
                let q = self.dst(&o[1])?;
                let a = self.fsrc64(&o[2], &mut m, 0)?;
                let b = self.fsrc64(&o[3], &mut m, 1)?;
                if minmax {
                    if bop != Some(BoolOp::And) || !matches!(o[4].value, Value::Pred(c) if c.is_true() && !o[4].not) {
                        return Err(format!("`{}` combined with a predicate", inst.mnemonic()));
                    }
                    return Ok((Op::Machine(MachineOp::DminMax { max: has("MAX") }), m, vec![Opnd::Vec(vec![p, q]), a, b], 1));
                }
                m.cmp = Some(inst.modifiers.iter().find_map(|x| cmp_of(x)).ok_or("no comparison")?);
                m.bool_op = bop;
                let c = self.src(&o[4], &mut m, 2, false)?;
                (Op::Setp, m, vec![Opnd::Vec(vec![p, q]), a, b, c], 1)
            }
            "F2FP" => self.f2fp(inst)?,
            "I2I" => {
                // `I2I.{S8,U8,S16,U16}.S32{.SAT} d, a`: `cvt{.sat}.to.s32` (a narrow signed
                // result sign-extended, as `cvt` writes it).
                need(2)?;
                let mut tys = Vec::new();
                for x in &inst.modifiers {
                    match x.as_str() {
                        "SAT" => m.flags |= flag::SAT,
                        "S8" => tys.push(Ty::S8),
                        "U8" => tys.push(Ty::U8),
                        "S16" => tys.push(Ty::S16),
                        "U16" => tys.push(Ty::U16),
                        "S32" => tys.push(Ty::S32),
                        "U32" => tys.push(Ty::U32),
                        other => return Err(format!("`{}` (.{other})", inst.mnemonic())),
                    }
                }
                if tys.len() != 2 {
                    return Err(format!("`{}`: I2I needs a destination and a source type", inst.mnemonic()));
                }
                m.types = tys;
                let d = self.dst(&o[0])?;
                let s = srcs!(&mut m, false, [1]);
                if m.neg | m.not | m.abs != 0 {
                    return Err("I2I with a modified operand".into());
                }
                (Op::Cvt, m, [vec![d], s].concat(), 1)
            }
            // `F2IP.{U8,S8}.F32.NTZ d, RZ, b, RZ`: `b` converted to the 8-bit integer (rounded to
            // nearest even, saturated) in the low byte, as `cvt.rni.u8.f32`. The other operands
            // pack a second value and merge a register; only their `RZ` form is lowered (which
            // byte each fills is unverified).
            "F2IP" => {
                need(4)?;
                let ty = if has("U8") {
                    Ty::U8
                } else if has("S8") {
                    Ty::S8
                } else {
                    return Err(format!("`{}`", inst.mnemonic()));
                };
                if !inst.modifiers.iter().all(|x| matches!(x.as_str(), "U8" | "S8" | "F32" | "NTZ")) {
                    return Err(format!("`{}`", inst.mnemonic()));
                }
                let zero = |x: &Operand| matches!(x.value, Value::Reg(r) if r.is_zero()) && !x.neg && !x.not && !x.abs;
                if !zero(&o[1]) || !zero(&o[3]) {
                    return Err("F2IP packing a second value or merging a register (only `F2IP d, RZ, b, RZ` is lowered)".into());
                }
                m.types = vec![ty, Ty::F32];
                m.rnd = Some(Rnd::Rni);
                let d = self.dst(&o[0])?;
                let s = srcs!(&mut m, true, [2]);
                (Op::Cvt, m, [vec![d], s].concat(), 1)
            }
            // `HADD2.F32 d, -RZ, Rb.H0_H0`: -0 + the low half widened, i.e. `cvt.f32.f16`.
            "HADD2" if inst.modifiers.iter().map(String::as_str).eq(["F32"]) && Self::widening(inst) => {
                need(3)?;
                fn sel(x: &Operand) -> Vec<&str> {
                    x.modifiers.iter().map(String::as_str).filter(|m| *m != "reuse").collect()
                }
                let neg_zero = |x: &Operand| matches!(x.value, Value::Reg(r) if r.is_zero()) && x.neg && !x.abs && matches!(sel(x)[..], [] | ["H0_H0"]);
                let low_half = |x: &Operand| matches!(x.value, Value::Reg(_)) && !x.neg && !x.abs && sel(x) == ["H0_H0"];
                // The operands in either order (sm_90 `-RZ, Rb.H0_H0`; sm_75 `Rb.H0_H0, -RZ.H0_H0`).
                let b = match (neg_zero(&o[1]) && low_half(&o[2]), low_half(&o[1]) && neg_zero(&o[2])) {
                    (true, _) => &o[2],
                    (_, true) => &o[1],
                    _ => return Err("HADD2.F32 other than the widening of a low half (-RZ, Rb.H0_H0)".into()),
                };
                m.types = vec![Ty::F32, Ty::F16];
                let d = self.dst(&o[0])?;
                let Value::Reg(r) = b.value else { return Err("HADD2.F32 source".into()) };
                let s = self.gpr(r).map_or(Opnd::Imm(0), Opnd::Reg);
                (Op::Cvt, m, vec![d, s], 1)
            }
            // `USETMAXREG.TRY_ALLOC.CTAPOOL UP0, n` / `USETMAXREG.DEALLOC.CTAPOOL n`: the
            // register-count change of `setmaxnreg`, which (as in PTX mode) always succeeds and
            // changes nothing the simulator models: the allocation's predicate is true.
            "USETMAXREG" if has("TRY_ALLOC") => {
                need(2)?;
                m.types = vec![Ty::Pred];
                let p = self.dst(&o[0])?;
                (Op::Mov, m, vec![p, Opnd::Imm(1)], 1)
            }
            "USETMAXREG" if has("DEALLOC") || has("RELEASE") => (Op::Nop, m, vec![], 0),
            "HFMA2" if (has("MMA") || inst.modifiers.is_empty()) && n == 5 && [&o[1], &o[2]].iter().all(|x| matches!(x.value, Value::Reg(r) if r.is_zero()) && x.modifiers.iter().all(|s| s == "reuse")) => {
                // The constant-move form: HFMA2 d, -RZ, RZ, h1, h0 = the two halves.
                let half = |x: &Operand| -> R<u64> {
                    match x.value {
                        Value::Float(f) => Ok(f16_bits(f)),
                        Value::Int(i) => Ok(f16_bits(i as f64)),
                        _ => Err("HFMA2 operand".into()),
                    }
                };
                m.types = vec![Ty::B32];
                m.flags |= flag::FMA_MOVE;
                let d = self.dst(&o[0])?;
                let v = (half(&o[3])? << 16) | half(&o[4])?;
                (Op::Mov, m, vec![d, Opnd::Imm(v)], 1)
            }
            "HADD2" | "HMUL2" | "HFMA2" | "HMNMX2" => self.half2(inst)?,
            "HSETP2" => self.hsetp2(inst)?,
            _ => return Err(format!("opcode `{}` is not lowered", inst.mnemonic())),
        };
        Ok(out)
    }

    /// Whether `HADD2.F32 d, a, b` is the widening of a low half (`-RZ, Rb.H0_H0`, either order).
    fn widening(inst: &Instruction) -> bool {
        let o = &inst.operands;
        if o.len() != 3 {
            return false;
        }
        fn sel(x: &Operand) -> Vec<&str> {
            x.modifiers.iter().map(String::as_str).filter(|m| *m != "reuse").collect()
        }
        let neg_zero = |x: &Operand| matches!(x.value, Value::Reg(r) if r.is_zero()) && x.neg && !x.abs && matches!(sel(x)[..], [] | ["H0_H0"]);
        let low_half = |x: &Operand| matches!(x.value, Value::Reg(_)) && !x.neg && !x.abs && sel(x) == ["H0_H0"];
        (neg_zero(&o[1]) && low_half(&o[2])) || (low_half(&o[1]) && neg_zero(&o[2]))
    }

    /// The half-precision sources `ops` (source positions from 0): each a register or bank word
    /// with its selector ([`HalfSel`]; negation and absolute value recorded in `m` for the packed
    /// type `m` carries), or two literals nvdisasm prints for one packed operand (upper half
    /// first, as the f16 or bf16 values they are).
    fn half_srcs(&mut self, ops: &[Operand], bf16: bool, m: &mut Mods) -> R<Vec<(Opnd, HalfSel)>> {
        let lit = |x: &Operand| match x.value {
            Value::Int(v) if !x.neg && !x.abs => Some(v as f64),
            Value::Float(f) if !x.neg && !x.abs => Some(f),
            _ => None,
        };
        let bits = |f: f64| if bf16 { bf16_bits(f) } else { f16_bits(f) };
        let mut out = Vec::new();
        let mut k = 0;
        while k < ops.len() {
            let o = &ops[k];
            if let (Some(hi), Some(lo)) = (lit(o), ops.get(k + 1).and_then(lit)) {
                out.push((Opnd::Imm(bits(hi) << 16 | bits(lo)), HalfSel::Both));
                k += 2;
                continue;
            }
            let mut sel = HalfSel::Both;
            for x in &o.modifiers {
                match x.as_str() {
                    "reuse" => {}
                    "H0_H0" => sel = HalfSel::Lo,
                    "H1_H1" => sel = HalfSel::Hi,
                    other => return Err(format!("half operand `{o}`: the `.{other}` selector is not lowered")),
                }
            }
            if !matches!(o.value, Value::Reg(_)) && (o.neg || o.abs || o.not) {
                return Err(format!("half operand `{o}`: a modified literal or constant"));
            }
            if matches!(o.value, Value::Int(_) | Value::Float(_)) {
                return Err(format!("half operand `{o}`: a single literal"));
            }
            let mut plain = o.clone();
            plain.modifiers.clear();
            out.push((self.src(&plain, m, out.len(), false)?, sel));
            k += 1;
        }
        Ok(out)
    }

    /// `HADD2`, `HMUL2`, `HFMA2` (`.MMA`: issued to the tensor datapath, the same sum) and
    /// `HMNMX2 d, a, b, p` (`p` true: min), `.BF16_V2`, `.FTZ`, `.SAT`, `.RELU`, `.NAN`, `.F32`:
    /// [`MachineOp::Half2`]; a plain `HFMA2 d, a, b, c` (no selector or modifier) is
    /// `fma.rn.f16x2`.
    fn half2(&mut self, inst: &Instruction) -> R<(Op, Mods, Vec<Opnd>, usize)> {
        let o = &inst.operands;
        let mut m = Mods { vec: 1, ..Mods::default() };
        let (mut bf16, mut f32) = (false, false);
        for x in &inst.modifiers {
            match x.as_str() {
                "MMA" => {}
                "BF16_V2" => bf16 = true,
                "F32" => f32 = true,
                "FTZ" => m.flags |= flag::FTZ,
                "SAT" => m.flags |= flag::SAT,
                "RELU" => m.flags |= flag::RELU,
                "NAN" if inst.opcode == "HMNMX2" => m.flags |= flag::NAN,
                other => return Err(format!("`{}` (.{other}) is not lowered", inst.mnemonic())),
            }
        }
        if f32 && m.flags != 0 {
            return Err(format!("`{}`: .F32 with .FTZ/.SAT/.RELU/.NAN is not lowered", inst.mnemonic()));
        }
        let pty = if bf16 { Ty::Bf16x2 } else { Ty::F16x2 };
        m.types = vec![pty];
        let (op, k) = match inst.opcode.as_str() {
            "HADD2" => (HalfOp::Add, 2),
            "HMUL2" => (HalfOp::Mul, 2),
            "HFMA2" => (HalfOp::Fma, 3),
            _ => (HalfOp::MinMax, 2),
        };
        if o.len() < 2 {
            return Err(format!("`{}` without sources", inst.mnemonic()));
        }
        let d = self.dst(&o[0])?;
        let (srcs, pred) = if op == HalfOp::MinMax {
            let (last, rest) = o[1..].split_last().ok_or("HMNMX2 without its predicate")?;
            let Value::Pred(_) = last.value else { return Err(format!("`{}`: the last operand is not a predicate", inst.mnemonic())) };
            (self.half_srcs(rest, bf16, &mut m)?, Some(last))
        } else {
            (self.half_srcs(&o[1..], bf16, &mut m)?, None)
        };
        if srcs.len() != k {
            return Err(format!("`{}` with {} sources ({k} expected)", inst.mnemonic(), srcs.len()));
        }
        let mut ops = vec![d];
        let mut sel = [HalfSel::Both; 3];
        for (i, (v, s)) in srcs.into_iter().enumerate() {
            ops.push(v);
            sel[i] = s;
        }
        if let Some(p) = pred {
            let mut pm = Mods::default();
            ops.push(self.src(p, &mut pm, 2, false)?);
        }
        // The plain packed fma is PTX's.
        if op == HalfOp::Fma && !bf16 && !f32 && m.flags == 0 && m.neg | m.abs | m.not == 0 && sel == [HalfSel::Both; 3] {
            m.rnd = Some(Rnd::Rn);
            return Ok((Op::Fma, m, ops, 1));
        }
        if m.not != 0 {
            return Err(format!("`{}` with a complemented operand", inst.mnemonic()));
        }
        Ok((Op::Machine(MachineOp::Half2 { op, sel, f32 }), m, ops, 1))
    }

    /// `HSETP2{.BF16_V2}.cmp{.FTZ}.bop p, q, a, b, c`: [`MachineOp::Hsetp2`].
    fn hsetp2(&mut self, inst: &Instruction) -> R<(Op, Mods, Vec<Opnd>, usize)> {
        let o = &inst.operands;
        // `p, q, a, b, c`, or `b` a literal pair (`…, 8.5e-06, 8.5e-06, PT`): six.
        if !(5..=6).contains(&o.len()) {
            return Err(format!("{} operands, {} needs 5", o.len(), inst.mnemonic()));
        }
        let last = o.len() - 1;
        let mut m = Mods { vec: 1, ..Mods::default() };
        let (mut bf16, mut cmp, mut bop) = (false, None, None);
        for x in &inst.modifiers {
            match x.as_str() {
                "BF16_V2" => bf16 = true,
                "FTZ" => m.flags |= flag::FTZ,
                "AND" => bop = Some(BoolOp::And),
                "OR" => bop = Some(BoolOp::Or),
                "XOR" => bop = Some(BoolOp::Xor),
                c if cmp_of(c).is_some() && cmp.is_none() => cmp = cmp_of(c),
                other => return Err(format!("`{}` (.{other}) is not lowered", inst.mnemonic())),
            }
        }
        let (Some(cmp), Some(bop)) = (cmp, bop) else { return Err(format!("`{}` without a comparison and a combining operation", inst.mnemonic())) };
        m.types = vec![if bf16 { Ty::Bf16x2 } else { Ty::F16x2 }];
        let p = self.dst(&o[0])?;
        let q = self.dst(&o[1])?;
        let srcs = self.half_srcs(&o[2..last], bf16, &mut m)?;
        if srcs.len() != 2 || m.not != 0 {
            return Err(format!("`{}` sources", inst.mnemonic()));
        }
        let mut pm = Mods::default();
        let c = self.src(&o[last], &mut pm, 2, false)?;
        let sel = [srcs[0].1, srcs[1].1];
        Ok((Op::Machine(MachineOp::Hsetp2 { cmp, bop, sel }), m, vec![Opnd::Vec(vec![p, q]), srcs[0].0.clone(), srcs[1].0.clone(), c], 1))
    }

    /// `F2FP`: the f32 → f16/bf16/tf32/fp8 packs and the fp8 ↔ f16x2 unpacks.
    /// - `F2FP{.RELU}{.SATFINITE}.{F16,BF16,E4M3,E5M2}.F32.PACK_AB{_MERGE_C}{.RZ} d, a, b{, RZ}`
    ///   (sm_80–89 `F2FP.PACK_AB`, `F2FP.BF16.PACK_AB`): `a` into the upper element, `b` the
    ///   lower, as `cvt.{f16x2,…}.f32 d, a, b` ([`MachineOp::F2fpPack`]).
    /// - `F2FP{.RELU}{.SATFINITE}.{F16,BF16}.F32.MERGE_C{.RZ} d, a, RZ`: `a` into the low half,
    ///   the upper zero, as `cvt.frnd.{f16,bf16}.f32`.
    /// - `F2FP{.RELU}.TF32.F32.PACK_B{.RZ} d, b`: `cvt.frnd.tf32.f32`.
    /// - `F2FP.SATFINITE{.RELU}.{E4M3,E5M2}.F16.UNPACK_B_MERGE_C d, b, RZ`: `cvt.rn.satfinite.
    ///   {e4m3x2,e5m2x2}.f16x2` (the low 16 bits); `F2FP{.RELU}.F16.{E4M3,E5M2}.UNPACK_B d, b`:
    ///   `cvt.rn.f16x2.{e4m3x2,e5m2x2}` of `b`'s low 16 bits.
    ///
    /// A merge source other than `RZ` is an error (which half it keeps is unverified).
    fn f2fp(&mut self, inst: &Instruction) -> R<(Op, Mods, Vec<Opnd>, usize)> {
        let o = &inst.operands;
        let mut m = Mods { vec: 1, ..Mods::default() };
        let mut tys = Vec::new();
        let mut form = None;
        for x in &inst.modifiers {
            match x.as_str() {
                "RELU" => m.flags |= flag::RELU,
                "SATFINITE" => m.flags |= flag::SATFINITE,
                "RZ" => m.rnd = Some(Rnd::Rz),
                "F16" => tys.push(Ty::F16),
                "BF16" => tys.push(Ty::Bf16),
                "F32" => tys.push(Ty::F32),
                "TF32" => tys.push(Ty::Tf32),
                "E4M3" => tys.push(Ty::E4m3),
                "E5M2" => tys.push(Ty::E5m2),
                "PACK_AB" | "MERGE_C" | "PACK_B" | "PACK_AB_MERGE_C" | "UNPACK_B" | "UNPACK_B_MERGE_C" if form.is_none() => form = Some(x.as_str()),
                other => return Err(format!("`{}` (.{other}) is not lowered", inst.mnemonic())),
            }
        }
        // sm_80–89 print `F2FP.PACK_AB` (f16) and `F2FP.BF16.PACK_AB` without the source type.
        if form == Some("PACK_AB") && tys.len() == 1 && tys[0] != Ty::F32 {
            tys.push(Ty::F32);
        } else if form == Some("PACK_AB") && tys.is_empty() {
            tys = vec![Ty::F16, Ty::F32];
        }
        let zero = |x: &Operand| matches!(x.value, Value::Reg(r) if r.is_zero()) && !x.neg && !x.not && !x.abs;
        let merge = |k: usize| -> R<()> {
            match o.get(k) {
                Some(c) if zero(c) => Ok(()),
                Some(c) => Err(format!("F2FP merging `{c}` (only an RZ merge source is lowered)")),
                None => Err(format!("`{}` without its merge source", inst.mnemonic())),
            }
        };
        let packed = |t: Ty| match t {
            Ty::F16 => Some(Ty::F16x2),
            Ty::Bf16 => Some(Ty::Bf16x2),
            Ty::E4m3 => Some(Ty::E4m3x2),
            Ty::E5m2 => Some(Ty::E5m2x2),
            _ => None,
        };
        let d = self.dst(o.first().ok_or("F2FP without operands")?)?;
        let unmodified = |m: &Mods| if m.neg | m.not | m.abs != 0 { Err(format!("`{}` with a modified operand", inst.mnemonic())) } else { Ok(()) };
        match (form, &tys[..]) {
            (Some("PACK_AB" | "PACK_AB_MERGE_C"), &[to, Ty::F32]) if packed(to).is_some() && o.len() >= 3 => {
                if form == Some("PACK_AB_MERGE_C") {
                    merge(3)?;
                } else if matches!(to, Ty::E4m3 | Ty::E5m2) {
                    return Err(format!("`{}`", inst.mnemonic()));
                }
                m.types = vec![Ty::F32];
                let a = self.src(&o[1], &mut m, 0, true)?;
                let b = self.src(&o[2], &mut m, 1, true)?;
                unmodified(&m)?;
                let to = packed(to).unwrap_or(Ty::F16x2);
                Ok((Op::Machine(MachineOp::F2fpPack { to }), m, vec![d, a, b], 1))
            }
            (Some("MERGE_C"), &[to @ (Ty::F16 | Ty::Bf16), Ty::F32]) if o.len() == 3 => {
                merge(2)?;
                m.types = vec![to, Ty::F32];
                m.rnd = m.rnd.or(Some(Rnd::Rn));
                let a = self.src(&o[1], &mut m, 0, true)?;
                unmodified(&m)?;
                Ok((Op::Cvt, m, vec![d, a], 1))
            }
            (Some("PACK_B"), &[Ty::Tf32, Ty::F32]) if o.len() == 2 => {
                m.types = vec![Ty::Tf32, Ty::F32];
                m.rnd = m.rnd.or(Some(Rnd::Rn));
                let a = self.src(&o[1], &mut m, 0, true)?;
                unmodified(&m)?;
                Ok((Op::Cvt, m, vec![d, a], 1))
            }
            (Some("UNPACK_B_MERGE_C"), &[to @ (Ty::E4m3 | Ty::E5m2), Ty::F16]) if o.len() == 3 && m.has(flag::SATFINITE) && m.rnd.is_none() => {
                merge(2)?;
                m.types = vec![packed(to).unwrap_or(Ty::E4m3x2), Ty::F16x2];
                m.rnd = Some(Rnd::Rn);
                let a = self.src(&o[1], &mut m, 0, true)?;
                unmodified(&m)?;
                Ok((Op::Cvt, m, vec![d, a], 1))
            }
            (Some("UNPACK_B"), &[Ty::F16, from @ (Ty::E4m3 | Ty::E5m2)]) if o.len() == 2 && !m.has(flag::SATFINITE) && m.rnd.is_none() => {
                m.types = vec![Ty::F16x2, packed(from).unwrap_or(Ty::E4m3x2)];
                m.rnd = Some(Rnd::Rn);
                let a = self.src(&o[1], &mut m, 0, true)?;
                unmodified(&m)?;
                Ok((Op::Cvt, m, vec![d, a], 1))
            }
            _ => Err(format!("`{}` is not lowered", inst.mnemonic())),
        }
    }

    /// `HGMMA.64xNx16.F32 Rd, gdesc[URa], Rc{, UPp}{, gsb0}`: URa:URa+1 is A's shared-memory
    /// descriptor and URa+2:URa+3 B's; `Rc` is `Rd` (accumulate, while the optional predicate
    /// holds: `scale-d`) or `RZ` (D = A·B). The descriptors hold the hardware's shared
    /// addresses, [`SHARED_RESERVED`] above the simulator's ([`flag::MACHINE_FORM`]). `gsb0`
    /// (the group's last MMA) commits the group ([`flag::COMMIT`]): the timing model's
    /// `WARPGROUP.DEPBAR` waits for the committed groups, as PTX mode's `wgmma.wait_group`.
    fn hgmma(&mut self, inst: &Instruction) -> R<(Op, Mods, Vec<Opnd>, usize)> {
        let o = &inst.operands;
        let op = Op::Matrix(MatrixOp::WgmmaMma);
        let shape = inst.modifiers.iter().find_map(|x| {
            let mut it = x.split('x').map(|v| v.parse::<u16>().ok());
            match (it.next(), it.next(), it.next(), it.next()) {
                (Some(Some(m)), Some(Some(n)), Some(Some(k)), None) => Some((m, n, k)),
                _ => None,
            }
        });
        // ptxas attributes an HGMMA to a nearby PTX line (the wait after it, the descriptor
        // arithmetic before), not always the `wgmma.mma_async`'s: the form is that of the entry's
        // wgmma of the same shape nearest to the line.
        let line = inst.ptx_line.ok_or_else(|| format!("`{}` without a PTX line to take its form from", inst.mnemonic()))?;
        let pi = self
            .ptx
            .insts
            .iter()
            .filter(|i| i.op == op && shape.is_some() && i.m.shape == shape)
            .min_by_key(|i| i.loc.ptx.line.abs_diff(line))
            .ok_or_else(|| format!("`{}`: the PTX has no wgmma.mma_async of that shape", inst.mnemonic()))?;
        let Some(Opnd::Vec(acc)) = pi.ops.first() else { return Err("the PTX wgmma has no accumulator vector".into()) };
        let d = self.vector(&o[0], acc.len(), true)?;
        let Value::Mem { desc: Some(crate::Desc::Matrix), addr } = &o[1].value else {
            return Err(format!("`{}` with A in registers", inst.mnemonic()));
        };
        let a = match (&addr.reg, &addr.ureg, addr.offset) {
            (None, Some(u), 0) if !u.reg.is_zero() => u.reg,
            _ => return Err(format!("descriptor operand `{}`", o[1])),
        };
        let mut regs = vec![a];
        for _ in 0..3 {
            regs.push(Self::next(*regs.last().ok_or("no register")?)?);
        }
        let r: Vec<u32> = regs.iter().map(|&x| self.gpr(x).ok_or("zero register")).collect::<Result<_, _>>()?;
        let mut m = pi.m.clone();
        m.flags |= flag::MACHINE_FORM;
        if o.iter().any(|x| x.value == Value::Word("gsb0".into())) {
            m.flags |= flag::COMMIT;
        }
        let scale_d = match (&o[2].value, &o[0].value) {
            (Value::Reg(c), _) if c.is_zero() => Opnd::Imm(0),
            (Value::Reg(c), Value::Reg(dr)) if c == dr => match o.get(3) {
                Some(p @ Operand { value: Value::Pred(_), .. }) => self.src(p, &mut m, 0, false)?,
                _ => Opnd::Imm(1),
            },
            _ => return Err(format!("`{}`: an accumulator other than the destination or RZ", inst.mnemonic())),
        };
        let mut ops = vec![d, Opnd::Pair(r[0], r[1]), Opnd::Pair(r[2], r[3]), scale_d];
        ops.extend(pi.ops.iter().skip(4).cloned());
        Ok((op, m, ops, 1))
    }

    /// The PTX instruction of opcode `op` at the SASS instruction's PTX line.
    fn ptx_form(&self, inst: &Instruction, op: Op) -> R<&'a Inst> {
        let line = inst.ptx_line.ok_or_else(|| format!("`{}` without a PTX line to take its form from", inst.mnemonic()))?;
        self.ptx.insts.iter().find(|i| i.op == op && i.loc.ptx.line == line).ok_or_else(|| format!("`{}`: no `{}` at PTX line {line}", inst.mnemonic(), warpsim_isa::decode::op_name(op)))
    }

    fn finish(self) -> Program {
        let ptx = self.ptx;
        let n = self.insts.len() as u32;
        // Parameters at their bank-0 offsets: the PTX order, sizes and alignments from the base.
        let mut symbols = Vec::new();
        let mut params = Vec::new();
        let layout: Vec<(u32, u32)> = ptx.params.iter().map(|&s| (ptx.symbols[s as usize].size as u32, ptx.symbols[s as usize].align.max(1))).collect();
        let offsets = crate::abi::layout(self.base, &layout);
        let mut param_bytes = self.base as u64;
        for (&s, off) in ptx.params.iter().zip(offsets) {
            let mut sym = ptx.symbols[s as usize].clone();
            sym.kind = SymKind::KernelParam;
            sym.offset = off as u64;
            param_bytes = param_bytes.max(off as u64 + sym.size);
            params.push(symbols.len() as u32);
            symbols.push(sym);
        }
        symbols.extend(self.vars);
        let mut p = Program {
            name: ptx.name.clone(),
            target: ptx.target.clone(),
            version: ptx.version,
            insts: self.insts,
            regs: self.reg_info,
            symbols,
            funcs: vec![FuncInfo {
                name: ptx.name.clone(),
                start: 0,
                end: n,
                frame_size: self.frame,
                frame_align: 16,
                params: params.clone(),
                rets: Vec::new(),
                regs: (0, 0),
                extern_decl: false,
            }],
            tables: std::iter::once(self.table).chain(self.brx_tables).collect(),
            params,
            param_bytes,
            static_smem: ptx.static_smem,
            dynamic_smem_base: ptx.dynamic_smem_base,
            directives: ptx.directives.clone(),
            blocks: Vec::new(),
            reconv: Vec::new(),
            files: ptx.files.clone(),
            nounroll: Vec::new(),
            ptx_file: ptx.ptx_file.clone(),
            machine: self.text,
            control: self.control.unwrap_or_default(),
        };
        p.funcs[0].regs = (0, p.regs.len() as u32);
        let (blocks, mut reconv) = warpsim_isa::cfg::analyze(&p);
        // A warp's diverged paths each execute the BSYNC they reconverge at (the H200 counts it
        // once per arriving path), so they meet just after it.
        for r in &mut reconv {
            if self.k.instructions.get(*r as usize).is_some_and(|i| i.opcode == "BSYNC") && *r + 1 < n {
                *r += 1;
            }
        }
        release_yielding_regions(&self.k.instructions, &mut reconv);
        p.blocks = blocks;
        p.reconv = reconv;
        p
    }
}

/// Flags [`RECONV_HOLD`] on the branches that leave a `BSSY`…`BSYNC` region holding a `YIELD`:
/// lanes that yielded do not hold the region's `BSYNC`, so the lanes that leave go on without
/// the ones still looping, and they meet at the region's end the next time round.
fn release_yielding_regions(ins: &[Instruction], reconv: &mut [u32]) {
    for (s, i) in ins.iter().enumerate().filter(|(_, i)| i.opcode == "BSSY") {
        let Some(end) = i.operands.iter().find_map(|o| match o.value {
            Value::Target { pc: Some(pc), .. } => Some((pc / 16) as usize),
            _ => None,
        }) else {
            continue;
        };
        let region = s + 1..end.min(ins.len());
        if !ins[region.clone()].iter().any(|i| i.opcode == "YIELD") {
            continue;
        }
        for pc in region {
            if ins[pc].opcode == "BRA" && reconv[pc] == end as u32 {
                reconv[pc] = end as u32 | RECONV_HOLD;
            }
        }
    }
}

/// IEEE half bits of a literal nvdisasm prints for an `HFMA2` constant (exact: it came from
/// half bits).
fn f16_bits(f: f64) -> u64 {
    use warpsim_isa::fp::{cvt, Rounding};
    cvt::f2f(cvt::FloatType::F64, cvt::FloatType::F16, f.to_bits(), Rounding::Rn, cvt::FloatMods::default()) & 0xFFFF
}

/// [`f16_bits`] for a `.BF16_V2` instruction's literal.
fn bf16_bits(f: f64) -> u64 {
    use warpsim_isa::fp::{cvt, Rounding};
    cvt::f2f(cvt::FloatType::F64, cvt::FloatType::Bf16, f.to_bits(), Rounding::Rn, cvt::FloatMods::default()) & 0xFFFF
}

fn special(s: &str) -> R<SReg> {
    let comp = |c: &str| match c {
        "X" => Ok(0u8),
        "Y" => Ok(1),
        "Z" => Ok(2),
        _ => Err(format!("special register `{s}`")),
    };
    Ok(match s.split_once('.') {
        Some(("SR_TID", c)) => SReg::Tid(comp(c)?),
        Some(("SR_CTAID", c)) => SReg::Ctaid(comp(c)?),
        _ => match s {
            "SR_LANEID" => SReg::Laneid,
            "SR_CLOCKLO" => SReg::Clock,
            "SR_CLOCKHI" => SReg::ClockHi,
            "SR_GLOBALTIMERLO" => SReg::GlobaltimerLo,
            "SR_GLOBALTIMERHI" => SReg::GlobaltimerHi,
            "SR_EQMASK" => SReg::LanemaskEq,
            "SR_LEMASK" => SReg::LanemaskLe,
            "SR_LTMASK" => SReg::LanemaskLt,
            "SR_GEMASK" => SReg::LanemaskGe,
            "SR_GTMASK" => SReg::LanemaskGt,
            "SR_VIRTUALSMID" | "SR_SMID" => SReg::Smid,
            "SR_VIRTID" | "SR_WARPID" => SReg::Warpid,
            _ => return Err(format!("special register `{s}` is not lowered")),
        },
    })
}

fn cmp_of(x: &str) -> Option<Cmp> {
    Some(match x {
        "EQ" => Cmp::Eq,
        "NE" => Cmp::Ne,
        "LT" => Cmp::Lt,
        "LE" => Cmp::Le,
        "GT" => Cmp::Gt,
        "GE" => Cmp::Ge,
        "EQU" => Cmp::Equ,
        "NEU" => Cmp::Neu,
        "LTU" => Cmp::Ltu,
        "LEU" => Cmp::Leu,
        "GTU" => Cmp::Gtu,
        "GEU" => Cmp::Geu,
        "NUM" => Cmp::Num,
        "NAN" => Cmp::Nan,
        _ => return None,
    })
}

fn atom_op(inst: &Instruction) -> R<AtomOp> {
    for x in &inst.modifiers {
        return Ok(match x.as_str() {
            "ADD" => AtomOp::Add,
            "MIN" => AtomOp::Min,
            "MAX" => AtomOp::Max,
            "INC" => AtomOp::Inc,
            "DEC" => AtomOp::Dec,
            "AND" => AtomOp::And,
            "OR" => AtomOp::Or,
            "XOR" => AtomOp::Xor,
            "EXCH" => AtomOp::Exch,
            "CAS" => AtomOp::Cas,
            "POPC" => return Err(format!("`{}` (warp-aggregated atomic)", inst.mnemonic())),
            _ => continue,
        });
    }
    Err(format!("`{}`: no atomic operation", inst.mnemonic()))
}

/// Element type and vector width of a load, store or `LDC`.
fn mem_width(inst: &Instruction) -> R<(Ty, usize)> {
    let mut w = (Ty::B32, 1);
    for x in &inst.modifiers {
        w = match x.as_str() {
            "U8" => (Ty::U8, 1),
            "S8" => (Ty::S8, 1),
            "U16" => (Ty::U16, 1),
            "S16" => (Ty::S16, 1),
            "64" => (Ty::B32, 2),
            "128" => (Ty::B32, 4),
            "E" | "U" | "CONSTANT" | "STRONG" | "GPU" | "SM" | "CTA" | "SYS" | "LU" | "EF" | "EL" | "NA" | "LTC64B" | "LTC128B" | "LTC256B" | "BYPASS" | "WEAK" | "PRIVATE" | "ZFILL" => w,
            other => return Err(format!("`{}` (.{other})", inst.mnemonic())),
        };
    }
    Ok(w)
}

/// The `mma.sync` an `HMMA` performs, from its opcode alone (Ampere to Hopper): the shape
/// (`.16816` is m16n8k16, `.1688` m16n8k8, `.1684` m16n8k4), A and B row- and column-major as the
/// fragments of `mma.sync.aligned.…row.col` sit in registers, the accumulator type (`.F32` or
/// `.F16`) and the input type (`.BF16`, `.TF32`, else f16); and the registers of D, A, B and C
/// (32 lanes hold each matrix: M·K, K·N and M·N elements of their width). Volta's `HMMA.884`
/// (quad-pair fragments) and the sparse forms are not `mma.sync` of this kind.
fn hmma_form(inst: &Instruction) -> Option<((usize, usize, usize, usize), Mods)> {
    let has = |x: &str| inst.modifiers.iter().any(|m| m == x);
    let shape = if has("16816") {
        (16, 8, 16)
    } else if has("1688") {
        (16, 8, 8)
    } else if has("1684") {
        (16, 8, 4)
    } else {
        return None;
    };
    if has("SP") {
        return None;
    }
    let acc = if has("F32") {
        Ty::F32
    } else if has("F16") {
        Ty::F16
    } else {
        return None;
    };
    let (input, bits) = if has("TF32") {
        (Ty::Tf32, 32)
    } else if has("BF16") {
        (Ty::Bf16, 16)
    } else {
        (Ty::F16, 16)
    };
    let k_fits = if input == Ty::Tf32 { matches!(shape.2, 4 | 8) } else { matches!(shape.2, 8 | 16) };
    if !k_fits || acc == Ty::F16 && input != Ty::F16 {
        return None;
    }
    let (mm, n, k) = (usize::from(shape.0), usize::from(shape.1), usize::from(shape.2));
    let regs = |elems: usize, bits: usize| elems * bits / (32 * 32);
    let acc_bits = if acc == Ty::F32 { 32 } else { 16 };
    let lens = (regs(mm * n, acc_bits), regs(mm * k, bits), regs(k * n, bits), regs(mm * n, acc_bits));
    let m = Mods { types: vec![acc, input, input, acc], shape: Some(shape), layout: Some((true, false)), ..Mods::default() };
    Some((lens, m))
}
