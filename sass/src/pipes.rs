//! Which pipe each SASS opcode issues to, and the scheduling facts a lowered program carries.
//!
//! One table ([`pipe_of`]) for every opcode the suite's sm_90 listings hold (and the close
//! relatives nvcc emits), grouped as the SM sub-partition's datapaths are: FP32 (`FFMA`, `FADD`,
//! `FMUL`, `FSETP`, `FMNMX`, `FSEL`), INT32 (`IADD3`, `LOP3`, `SHF`, `LEA`, `ISETP`, `MOV`, ...),
//! the FMA-heavy pipe that runs every `IMAD` form (on Hopper `IMAD.MOV`/`.SHL`/`.IADD` included:
//! validate/data/h200/sass shows ptxas splitting adds between `IADD3` and `IMAD.IADD` to use both
//! pipes), FP64, FP16 (`HFMA2`), the MUFU, the conversion unit (`F2I`, `I2F`, `F2F`, `FRND`, and
//! `POPC`/`FLO`/`BREV`, which ptxas schedules as variable-latency like them), branches and
//! convergence, the warp-collective path (`SHFL`, `REDUX`, `MATCH`), the memory path (every load,
//! store, atomic, `LDC`, `LDGSTS`, `LDSM`, TMA, `SYNCS`, fences), the tensor cores and the uniform
//! datapath. Grouping follows Accel-Sim's SASS opcode tables (simulators-survey.md: "ISA-def
//! headers map SASS opcodes to units") and the pipe split of the reference notes
//! (hardware-figures.md §1.3: FP32 ×32, INT32 ×16, FP64 ×16 per SMSP; MUFU 16 per SM); the widths
//! and latencies themselves are the preset's `[pipes.*]`. An opcode not in the table issues to
//! the INT32 pipe, the most common one (a test keeps every opcode of the committed listings in the
//! table). `ULDC` reads the constant cache like `LDC` but into a uniform register: ptxas gives it
//! no scoreboard barrier, so it is a fixed-latency uniform instruction.

use warpsim_isa::control::{Control, Pipe, NO_REG};

use crate::{Instruction, Value};

/// The pipe of a SASS opcode (without modifiers), or `None` when the table does not list it.
pub fn listed_pipe(opcode: &str) -> Option<Pipe> {
    use Pipe::*;
    Some(match opcode {
        "FFMA" | "FFMA32I" | "FADD" | "FADD32I" | "FMUL" | "FMUL32I" | "FSETP" | "FSET" | "FMNMX" | "FSEL" | "FCHK" | "FSWZADD" | "FCMP" => Fp32,
        "IMAD" | "IMAD32I" | "IMUL" | "IMUL32I" | "IDP" | "IDP4A" => Imul,
        "IADD3" | "IADD" | "IADD32I" | "VIADD" | "LOP3" | "LOP" | "LOP32I" | "SHF" | "SHL" | "SHR" | "LEA" | "ISETP" | "IABS" | "IMNMX" | "VIMNMX"
        | "VIMNMX3" | "VIADDMNMX" | "SEL" | "MOV" | "MOV32I" | "PRMT" | "PLOP3" | "PSETP" | "SGXT" | "BMSK" | "ISCADD" | "I2FP" | "F2FP" | "IADD3X" => Int,
        "DFMA" | "DADD" | "DMUL" | "DSETP" | "DMNMX" => Fp64,
        "HFMA2" | "HADD2" | "HMUL2" | "HSETP2" | "HSET2" | "HMNMX2" => Fp16,
        "MUFU" => Sfu,
        "F2I" | "I2F" | "F2F" | "FRND" | "POPC" | "FLO" | "BREV" | "I2I" | "F2IP" => Conv,
        "S2R" | "CS2R" | "VOTE" | "P2R" | "R2P" | "NOP" | "B2R" | "R2B" | "PMTRIG" | "SETMAXREG" | "USETMAXREG" => Alu,
        "BRA" | "BRX" | "JMP" | "JMX" | "EXIT" | "CALL" | "RET" | "BSSY" | "BSYNC" | "BREAK" | "BPT" | "WARPSYNC" | "BAR" | "YIELD" | "KILL" | "ELECT"
        | "ENDCOLLECTIVE" | "WARPGROUP" | "ACQBULK" | "NANOSLEEP" => Branch,
        "SHFL" | "REDUX" | "MATCH" | "MOVM" => Warp,
        "LDG" | "STG" | "LDS" | "STS" | "LDL" | "STL" | "LD" | "ST" | "LDC" | "ATOM" | "ATOMG" | "ATOMS" | "RED" | "REDG" | "LDGSTS" | "LDGDEPBAR" | "DEPBAR"
        | "LDSM" | "STSM" | "MEMBAR" | "FENCE" | "ERRBAR" | "CGAERRBAR" | "CCTL" | "CCTLL" | "SYNCS" | "UTMALDG" | "UTMASTG" | "UTMACMDFLUSH" | "UTMAPF"
        | "UBLKCP" | "UBLKRED" | "QSPC" => Lsu,
        "HMMA" | "IMMA" | "DMMA" | "HGMMA" | "IGMMA" | "BMMA" => Tensor,
        _ if opcode.starts_with('U') || opcode == "S2UR" || opcode == "R2UR" || opcode == "VOTEU" => Uniform,
        _ => return None,
    })
}

/// The pipe an instruction issues to ([`listed_pipe`]; the INT32 pipe for an unlisted opcode).
pub fn pipe_of(opcode: &str) -> Pipe {
    listed_pipe(opcode).unwrap_or(Pipe::Int)
}

/// The scheduling facts of one instruction for the timing model: its decoded control bits (see
/// [`crate::control`]) and pipe. `None` when the listing has no encodings (printed without
/// `-hex`).
pub fn control_of(inst: &Instruction) -> Option<Control> {
    let c = inst.control?;
    let (srcs, wide, reuse) = source_slots(inst);
    let depbar = match (inst.opcode.as_str(), inst.operands.first().map(|o| &o.value), inst.operands.get(1).map(|o| &o.value)) {
        ("DEPBAR", Some(Value::Scoreboard(b)), Some(Value::Int(n))) if inst.has_modifier("LE") => Some((*b, (*n).clamp(0, 63) as u8)),
        _ => None,
    };
    Some(Control {
        stall: c.stall,
        yields: !c.yield_flag,
        write_barrier: c.write_barrier,
        read_barrier: c.read_barrier,
        wait_mask: c.wait_mask,
        depbar,
        pipe: pipe_of(&inst.opcode),
        srcs,
        wide,
        reuse,
    })
}

/// A math instruction's source slots ([`Control::srcs`], `wide`, `reuse`): its destinations are the
/// first operand and the predicates right after it (`ISETP P0, PT, …`, `IADD3 R4, P0, PT, …`), or
/// a predicate and the register after it (`LOP3.LUT P0, R5, …`); the operands after them are
/// slots A, B, C, D in order. Memory, branch and other instructions read their operands on paths
/// of their own: no slots.
fn source_slots(inst: &Instruction) -> ([u8; 4], u8, u8) {
    let (mut srcs, mut wide, mut reuse) = ([NO_REG; 4], 0u8, 0u8);
    if !matches!(pipe_of(&inst.opcode), Pipe::Fp32 | Pipe::Int | Pipe::Imul | Pipe::Fp64 | Pipe::Fp16) {
        return (srcs, wide, reuse);
    }
    let ops = &inst.operands;
    let mut first = 1;
    if matches!(ops.first().map(|o| &o.value), Some(Value::Pred(_))) && matches!(ops.get(1).map(|o| &o.value), Some(Value::Reg(_))) {
        first = 2;
    }
    while matches!(ops.get(first).map(|o| &o.value), Some(Value::Pred(_))) && !ops.get(first).is_some_and(|o| o.not) && first < 3 {
        first += 1;
    }
    for (slot, o) in ops.iter().skip(first).take(4).enumerate() {
        if let Value::Reg(r) = o.value {
            if !r.uniform && r.index != crate::Reg::RZ {
                srcs[slot] = r.index;
                wide |= u8::from(o.modifiers.iter().any(|m| m == "64")) << slot;
                reuse |= u8::from(o.reuse) << slot;
            }
        }
    }
    (srcs, wide, reuse)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_opcode_of_the_committed_listings_is_in_the_table() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../workloads/suite");
        let mut missing = std::collections::BTreeSet::new();
        let mut seen = 0;
        for d in std::fs::read_dir(dir).expect("the suite directory") {
            let d = d.expect("a suite entry").path();
            for f in std::fs::read_dir(&d).into_iter().flatten().flatten() {
                let p = f.path();
                if p.extension().is_some_and(|e| e == "sass") {
                    let text = std::fs::read_to_string(&p).expect("a committed listing");
                    let m = crate::parse(&text).expect("committed listings parse");
                    for i in m.kernels.iter().flat_map(|k| &k.instructions) {
                        seen += 1;
                        if listed_pipe(&i.opcode).is_none() {
                            missing.insert(i.opcode.clone());
                        }
                    }
                }
            }
        }
        assert!(seen > 10_000, "only {seen} instructions found");
        assert!(missing.is_empty(), "opcodes without a pipe: {missing:?}");
    }

    #[test]
    fn pipes_by_datapath() {
        assert_eq!(pipe_of("FFMA"), Pipe::Fp32);
        assert_eq!(pipe_of("IMAD"), Pipe::Imul);
        assert_eq!(pipe_of("IADD3"), Pipe::Int);
        assert_eq!(pipe_of("MUFU"), Pipe::Sfu);
        assert_eq!(pipe_of("UIADD3"), Pipe::Uniform);
        assert_eq!(pipe_of("ULDC"), Pipe::Uniform);
        assert_eq!(pipe_of("LDG"), Pipe::Lsu);
        assert_eq!(pipe_of("HMMA"), Pipe::Tensor);
        assert_eq!(pipe_of("NOTANOP"), Pipe::Int);
    }

    #[test]
    fn control_carries_the_bits_and_the_depbar_count() {
        let decoded = |text: &str, enc: u128| {
            let mut i = crate::parse::parse_instruction(text, text, 1).expect("parses");
            i.control = Some(crate::Control::decode(enc));
            control_of(&i).expect("encoded")
        };
        // From the atomics listing: stall 1, write barrier 2, read barrier 0, yield bit set.
        let c = decoded("LDG.E R9, desc[UR4][R2.64]", 0x0000a2000c1e1900_0000000402097981);
        assert_eq!((c.stall, c.write_barrier, c.read_barrier, c.wait_mask, c.yields, c.pipe), (1, Some(2), Some(0), 0, false, Pipe::Lsu));
        // ISETP feeding a predicated EXIT: stall 13, yield bit clear.
        let c = decoded("ISETP.GE.AND P0, PT, R7, UR4, PT", 0x000fda000bf06270_0000000407007c0c);
        assert_eq!((c.stall, c.yields, c.write_barrier, c.pipe), (13, true, None, Pipe::Int));
        // IMAD.WIDE waiting on barrier 0 (the LDC of the parameter).
        let c = decoded("IMAD.WIDE R2, R7, 0x4, R2", 0x001fca00078e0202_0000000407027825);
        assert_eq!((c.stall, c.wait_mask, c.pipe, c.depbar), (5, 1, Pipe::Imul, None));
        let c = decoded("DEPBAR.LE SB0, 0x1", 0x000fe20000000000_000080000000791a);
        assert_eq!(c.depbar, Some((0, 1)));
    }

    #[test]
    fn source_slots_follow_the_destinations() {
        let slots = |text: &str| source_slots(&crate::parse::parse_instruction(text, text, 1).expect("parses"));
        const N: u8 = NO_REG;
        // code_chain's FFMA: A = R6, B = R2, C = R3.
        assert_eq!(slots("FFMA R6, R6, R2, R3"), ([6, 2, 3, N], 0, 0));
        // RZ, uniform registers and immediates are no register reads; `.reuse` marks its slot.
        assert_eq!(slots("FFMA R20, R20, UR5, 0.5"), ([20, N, N, N], 0, 0));
        assert_eq!(slots("FFMA R14, R14, R2.reuse, R3.reuse"), ([14, 2, 3, N], 0, 0b110));
        // Predicate destinations before the sources; a predicate source stays a (non-register) slot.
        assert_eq!(slots("ISETP.NE.AND P1, PT, R6, RZ, PT"), ([6, N, N, N], 0, 0));
        assert_eq!(slots("IADD3 R4, P0, PT, R2, R3, RZ"), ([2, 3, N, N], 0, 0));
        assert_eq!(slots("LOP3.LUT P0, R5, R7, 0x3, RZ, 0xc0, !PT"), ([7, N, N, N], 0, 0));
        // A 64-bit source reads both registers of its pair; memory instructions have no slots.
        assert_eq!(slots("DFMA R4, R6.64, R8.64, RZ"), ([6, 8, N, N], 0b11, 0));
        assert_eq!(slots("LDG.E R9, desc[UR4][R2.64]"), ([N; 4], 0, 0));
    }
}
