//! The SASS lowering, one opcode family at a time: hand-written sm_90 listings (the forms ptxas
//! emits, as nvdisasm prints them) run on the simulator, 32 threads writing one word each, checked
//! against the value computed here; plus the errors (an opcode not lowered, a fault) naming the
//! kernel, the pc and the instruction.

use std::sync::Arc;

use warpsim_sim::{Gpu, LaunchDims};

const PTX: &str = ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 out, .param .u32 n)\n{\n.reg .b32 %r<2>;\n.shared .align 4 .b8 s[256];\nmov.u32 %r1, s;\nret;\n}\n";

/// A listing of kernel `k`: the prologue (R0 = tid, R2:R3 = &out[tid]), `body` (which leaves its
/// result in R5), the store and the exit.
fn listing(body: &str) -> String {
    listing_for("sm_90", body)
}

/// [`listing`] for `target`: before sm_90 the parameters start at c[0x0][0x160] and the
/// prologue forms &out[tid] from it directly (a 64-bit constant addend); `data` is appended
/// (another section, such as constant bank 2).
fn listing_for(target: &str, body: &str) -> String {
    let hopper = target.starts_with("sm_9");
    let mut lines = if hopper {
        vec!["LDC R1, c[0x0][0x28]", "S2R R0, SR_TID.X", "LDC.64 R2, c[0x0][0x210]", "ULDC.64 UR4, c[0x0][0x208]", "IMAD.WIDE.U32 R2, R0, 0x4, R2"]
    } else {
        vec!["MOV R1, c[0x0][0x28]", "S2R R0, SR_TID.X", "MOV R3, 0x4", "IMAD.WIDE.U32 R2, R0, R3, c[0x0][0x160]"]
    };
    lines.extend(body.lines().map(str::trim).filter(|l| !l.is_empty()));
    lines.extend([if hopper { "STG.E desc[UR4][R2.64], R5" } else { "STG.E.SYS [R2.64], R5" }, "EXIT", ".L_x_end:", "BRA `(.L_x_end)"]);
    let mut text = format!("\t.target\t{target}\n\t.section\t.text.k,\"ax\",@progbits\n\t.other\tk,@\"STO_CUDA_ENTRY STV_DEFAULT\"\nk:\n.text.k:\n");
    let mut pc = 0;
    for l in lines {
        if l.ends_with(':') {
            text.push_str(l);
            text.push('\n');
        } else {
            text.push_str(&format!("        /*{pc:04x}*/ {l} ;\n"));
            pc += 16;
        }
    }
    text
}

fn lower(body: &str) -> Result<warpsim_isa::Program, Box<warpsim_sass::lower::LowerError>> {
    lower_text(&listing(body))
}

fn lower_text(text: &str) -> Result<warpsim_isa::Program, Box<warpsim_sass::lower::LowerError>> {
    let ptx = warpsim_isa::load(PTX, "k.ptx").unwrap().remove(0);
    warpsim_sass::lower::lower_listing(text, "k", &ptx)
}

/// Runs the kernel on one warp; the 32 words it stores, and the executed count per instruction.
fn run(body: &str) -> (Vec<u32>, Vec<u64>) {
    run_text(&listing(body), 0x210)
}

/// Runs a listing on one warp with the parameters at `base`.
fn run_text(text: &str, base: usize) -> (Vec<u32>, Vec<u64>) {
    let prog = lower_text(text).unwrap_or_else(|e| panic!("{e}"));
    let mut g = Gpu::new(1);
    let out = g.upload("out", 128, &[]);
    let mut params = vec![0u8; prog.param_bytes as usize];
    params[base..base + 8].copy_from_slice(&out.to_le_bytes());
    params[base + 8..base + 12].copy_from_slice(&7u32.to_le_bytes());
    let dims = LaunchDims { grid: [1, 1, 1], block: [32, 1, 1], cluster: [1, 1, 1], dynamic_smem: 0 };
    let st = g.run_functional(Arc::new(prog), dims, params).unwrap_or_else(|f| panic!("{f}"));
    let words = g.download(out, 128).chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
    (words, st.executed)
}

/// [`expect`] on a pre-Hopper target's listing, with `data` appended to it.
fn expect_on(target: &str, body: &str, data: &str, f: impl Fn(u32) -> u32) {
    let (got, _) = run_text(&(listing_for(target, body) + data), 0x160);
    let want: Vec<u32> = (0..32).map(f).collect();
    assert_eq!(got, want, "{target}: {body}");
}

fn expect(body: &str, f: impl Fn(u32) -> u32) {
    let (got, _) = run(body);
    let want: Vec<u32> = (0..32).map(f).collect();
    assert_eq!(got, want, "{body}");
}

#[test]
fn constant_bank_parameters_and_launch_fields() {
    // c[0x0][0x218] is the second parameter; c[0x0][0x0] is blockDim.x.
    expect("LDC R5, c[0x0][0x218]\nIMAD R5, R5, c[0x0][0x0], R0", |t| 7 * 32 + t);
    expect("ULDC UR6, c[0x0][0x218]\nIADD3 R5, R0, UR6, RZ", |t| t + 7);
}

#[test]
fn three_input_add_with_carries() {
    // (tid - 16) as a 64-bit value: the carry out of the low word is tid >= 16.
    expect("IADD3 R6, P0, R0, -0x10, RZ\nIADD3.X R5, RZ, RZ, RZ, P0, !PT", |t| (t >= 16) as u32);
    // 64-bit subtraction 5 - tid: the high word is 0 or all ones.
    expect("MOV R6, 0x5\nIADD3 R7, P0, R6, -R0, RZ\nIADD3.X R5, RZ, ~RZ, RZ, P0, !PT", |t| if t <= 5 { 0 } else { u32::MAX });
    expect("IADD3 R5, -R0, 0x3, R0", |_| 3);
}

#[test]
fn multiply_add_forms() {
    expect("IMAD.HI.U32 R5, R0, 0x40000000, RZ", |t| t >> 2);
    expect("IMAD.WIDE R6, R0, -0x1, RZ\nMOV R5, R7", |t| if t == 0 { 0 } else { u32::MAX });
    expect("IMAD.MOV.U32 R5, RZ, RZ, -R0", |t| t.wrapping_neg());
    expect("IMAD.SHL.U32 R5, R0, 0x8, RZ", |t| t << 3);
    expect("IADD3 R6, P0, R0, -0x10, RZ\nIMAD.X R5, RZ, RZ, 0x64, P0", |t| 100 + (t >= 16) as u32);
}

#[test]
fn logic_shifts_and_scaled_adds() {
    expect("LOP3.LUT P0, R5, R0, 0x3, RZ, 0xc0, !PT\n@!P0 IADD3 R5, R5, 0x64, RZ", |t| if t & 3 == 0 { 100 } else { t & 3 });
    expect("LOP3.LUT R5, R0, 0x5, RZ, 0x3c, !PT", |t| t ^ 5);
    expect("LEA R5, R0, 0x7, 0x4", |t| t * 16 + 7);
    expect("LEA.HI R5, R0, 0x1, RZ, 0x1e", |t| (t >> 2) + 1);
    expect("SHF.R.U32.HI R5, RZ, 0x1, R0", |t| t >> 1);
    expect("SHF.L.U32 R5, R0, 0x1c, RZ", |t| t << 28);
    expect("IADD3 R6, R0, -0x10, RZ\nSHF.R.S32.HI R5, RZ, 0x1f, R6", |t| if t < 16 { u32::MAX } else { 0 });
    expect("PRMT R5, R0, 0x3210, RZ", |t| t);
    expect("POPC R5, R0", |t| t.count_ones());
    expect("BREV R5, R0", |t| t.reverse_bits());
    expect("FLO.U32 R5, R0", |t| if t == 0 { u32::MAX } else { 31 - t.leading_zeros() });
}

#[test]
fn bit_fields_and_lane_matches() {
    // t = lane index; R0 << 4 | 0xf gives the low byte t*16+15.
    expect("LEA R6, R0, 0xf, 0x4\nSGXT R5, R6, 0x8", |t| (((t * 16 + 15) as u8) as i8) as i32 as u32);
    expect("LEA R6, R0, 0xf, 0x4\nSGXT.U32 R5, R6, 0x6", |t| (t * 16 + 15) & 0x3f);
    expect("BMSK R5, R0, 0x3", |t| 7u32.checked_shl(t).unwrap_or(0));
    expect("BMSK.W R5, 0x4, R0", |t| if t % 32 == 0 { 0 } else { ((1u64 << (t % 32)) - 1) as u32 } << 4);
    // dp4a of (t, 1, 2, 3) bytes with (1, 1, 1, -1) signed, plus 5.
    expect("PRMT R6, R0, 0x7650, RZ\nLOP3.LUT R6, R6, 0x3020100, RZ, 0xfc, !PT\nMOV R7, 0xff010101\nIDP.4A.S8.S8 R5, R6, R7, 0x5", |t| (t + 1 + 2 - 3 + 5) as u32);
    // Lanes of equal t / 8 match: a mask of 8 lanes.
    expect("SHF.R.U32.HI R6, RZ, 0x3, R0\nMATCH.ANY R5, R6", |t| 0xffu32 << (t / 8 * 8));
    expect("MATCH.ALL P0, R6, RZ\nSEL R5, R6, 0x1, P0", |_| u32::MAX);
    expect("MATCH.ALL P0, R6, R0\nSEL R5, R6, 0x1, P0", |_| 1);
}

#[test]
fn generic_pointers_to_local_memory() {
    // A local variable's generic address is c[0x0][0x20]:c[0x0][0x24] + R1 (`cvta.local`).
    let body = "IADD3 R1, R1, -0x10, RZ
        IADD3 R6, P0, R1, c[0x0][0x20], RZ
        IADD3.X R7, RZ, c[0x0][0x24], RZ, P0, !PT
        ST.E desc[UR4][R6.64], R0
        LDL R5, [R1]";
    expect(body, |t| t);
}

#[test]
fn converged_branches_and_barrier_moves() {
    // BRA.CONV goes to the converged path; BMOV saves 0 and restores nothing.
    expect("MOV R5, 0x1\nBRA.CONV ~URZ, `(.L_x_c)\nMOV R5, 0x2\n.L_x_c:\nBMOV.32.CLEAR R6, B6\nBMOV.32 B6, R6\nIADD3 R5, R5, R6, RZ", |_| 1);
}

#[test]
fn generic_atomics_report_that_they_were_performed() {
    // `ATOM P0, d, …` (generic): P0 true, so ptxas's shared-memory fallback is not taken.
    expect("ATOM.E.ADD.STRONG.GPU P0, R6, desc[UR4][R2.64], R0\nSEL R5, 0x7, 0x9, P0\nIADD3 R5, R5, R6, RZ", |_| 7);
}

#[test]
fn space_queries_of_generic_addresses() {
    // `QSPC.E.S P, RZ, [R]` (`isspacep.shared`): a shared variable's generic address (the window
    // base from SR_SWINHI, as sm_90 forms it) is shared, the global `out` pointer in R2:R3 is not;
    // `.G` says the opposite.
    let body = "S2R R7, SR_SWINHI
        MOV R6, 0x10
        QSPC.E.S P0, RZ, [R6]
        QSPC.E.S P1, RZ, [R2]
        QSPC.E.G P2, RZ, [R2]
        SEL R5, 0x1, RZ, P0
        @P1 IADD3 R5, R5, 0x10, RZ
        @P2 IADD3 R5, R5, 0x100, RZ";
    expect(body, |_| 0x101);
}

#[test]
fn float_selects_carry_their_modifiers() {
    // FSEL d, |a|, -b, p on t as a float's bits: lanes < 16 take |−2.5|, the rest −(1.5).
    let body = "MOV R6, 0xc0200000\nMOV R7, 0x3fc00000\nISETP.LT.U32.AND P0, PT, R0, 0x10, PT\nFSEL R5, |R6|, -R7, P0";
    expect(body, |t| if t < 16 { 2.5f32.to_bits() } else { (-1.5f32).to_bits() });
}

#[test]
fn comparisons_selections_and_predicate_logic() {
    expect("ISETP.GT.U32.AND P0, P1, R0, 0x9, PT\nSEL R5, 0x1, 0x2, P1", |t| if t > 9 { 2 } else { 1 });
    expect("ISETP.LT.AND P0, PT, R0, 0x4, PT\nISETP.GT.OR P0, PT, R0, 0x1c, P0\nSEL R5, RZ, 0x1, !P0", |t| (t < 4 || t > 28) as u32);
    expect("PLOP3.LUT P0, PT, PT, PT, PT, 0x80, 0x0\nSEL R5, 0x7, RZ, P0", |_| 7);
    expect("VIADDMNMX R5, R0, 0x3, R0, !PT", |t| t + 3);
    expect("VIMNMX R5, R0, 0x5, PT", |t| t.min(5));
    expect("IADD3 R6, R0, -0x10, RZ\nIABS R5, R6", |t| (t as i32 - 16).unsigned_abs());
}

#[test]
fn float_arithmetic_conversions_and_sfu() {
    let f = |x: f32| x.to_bits();
    expect("I2FP.F32.U32 R4, R0\nFFMA R5, R4, 0.5, 1", |t| f(t as f32 * 0.5 + 1.0));
    expect("I2F.U32.RP R4, R0\nFADD R5, -R4, 2", |t| f(2.0 - t as f32));
    expect("I2FP.F32.U32 R4, R0\nFMUL R4, R4, 0.25\nF2I.FTZ.U32.TRUNC.NTZ R5, R4", |t| t / 4);
    expect("I2FP.F32.U32 R4, R0\nFSETP.GEU.AND P0, PT, R4, 10, PT\nFSEL R5, R4, RZ, P0", |t| if t >= 10 { f(t as f32) } else { 0 });
    expect("I2FP.F32.U32 R4, R0\nFMNMX R5, R4, 3, !PT", |t| f((t as f32).max(3.0)));
    expect("HFMA2.MMA R5, -RZ, RZ, 1.875, 0", |_| f(1.0));
    // MUFU.RCP is rcp.approx.ftz; MUFU.SIN of t turns is sin.approx of 2πt as the PTX mode has it.
    expect("I2FP.F32.U32 R4, R0\nFADD R4, R4, 1\nMUFU.RCP R5, R4", |t| warpsim_isa::fp::approx::rcp_f32(f(t as f32 + 1.0), true));
    expect("I2FP.F32.U32 R4, R0\nFMUL.RZ R4, R4, 0.15915493667125701904\nMUFU.SIN R5, R4", |t| warpsim_isa::fp::approx::sin_f32(f(t as f32), true));
}

#[test]
fn the_constant_move_hfma2_is_marked_as_the_fma_it_executes() {
    // `HFMA2.MMA d, -RZ, RZ, a, b` lowers to a move (bit exact) that ncu still counts as an HFMA.
    use warpsim_isa::inst::{flag, Op};
    let p = lower("HFMA2.MMA R5, -RZ, RZ, 1.875, 0").unwrap();
    let moves: Vec<_> = p.insts.iter().filter(|i| i.m.has(flag::FMA_MOVE)).collect();
    assert_eq!(moves.len(), 1);
    assert_eq!(moves[0].op, Op::Mov);
    let p = lower("MOV R6, 0x3c013c01\nHFMA2 R5, R6, R6, RZ").unwrap();
    assert!(p.insts.iter().all(|i| !i.m.has(flag::FMA_MOVE)));
}

#[test]
fn sixty_four_bit_compare_chains() {
    // (hi:tid) >= (0:16) as ptxas compares 64-bit values: the low words, then `.EX` on the high
    // words with the low result chained in.
    let ge = |hi: &str, signed: bool| {
        let ty = if signed { "" } else { ".U32" };
        format!("MOV R6, 0x10\nMOV R7, {hi}\nISETP.GE.U32.AND P0, PT, R0, R6, PT\nISETP.GE{ty}.AND.EX P0, PT, R7, RZ, PT, P0\nSEL R5, 0x1, RZ, P0")
    };
    expect(&ge("RZ", false), |t| (t >= 16) as u32);
    expect(&ge("0x1", false), |_| 1);
    // All-ones high word: the largest unsigned value, a negative signed one.
    expect(&ge("0xffffffff", false), |_| 1);
    expect(&ge("0xffffffff", true), |_| 0);
    // Equality: both words; the second destination is the complement.
    expect("ISETP.EQ.U32.AND P0, PT, R0, 0x3, PT\nISETP.EQ.U32.AND.EX P0, P1, RZ, RZ, PT, P0\nSEL R5, 0x1, 0x2, P1", |t| if t == 3 { 2 } else { 1 });
    expect("ISETP.NE.U32.AND P0, PT, R0, 0x3, PT\nISETP.NE.U32.AND.EX P0, PT, RZ, RZ, PT, P0\nSEL R5, 0x1, RZ, P0", |t| (t != 3) as u32);
}

#[test]
fn double_and_half_arithmetic() {
    // DFMA on register pairs, one of them uniform: (1 + t·2^-20)·2 + 1, exact; the result's
    // two words xor-ed.
    let dfma = "MOV R10, RZ\nIADD3 R11, R0, 0x3ff00000, RZ\nMOV R6, RZ\nMOV R7, 0x3ff00000\nUMOV UR6, URZ\nUMOV UR7, 0x40000000\nDFMA R12, R10, UR6, R6\nLOP3.LUT R5, R12, R13, RZ, 0x96, !PT";
    expect(dfma, |t| {
        let x = f64::from_bits((0x3ff0_0000u64 + t as u64) << 32).mul_add(2.0, 1.0).to_bits();
        (x as u32) ^ (x >> 32) as u32
    });
    // HFMA2 / HFMA2.MMA: both halves (1 + t·2^-10)·2 + 0.5 = 2.5 + t·2^-9, exact in half.
    for op in ["HFMA2", "HFMA2.MMA"] {
        expect(&format!("IADD3 R6, R0, 0x3c003c00, RZ\nMOV R7, 0x40004000\nMOV R8, 0x38003800\n{op} R5, R6, R7, R8"), |t| 0x4100_4100 + t);
    }
    // Rounding: (1 + 2^-10)·(1 + 2^-10) + 0 = 1 + 2^-9 + 2^-20, to nearest 1 + 2^-9 (0x3c02).
    expect("MOV R6, 0x3c013c01\nHFMA2 R5, R6, R6, RZ", |_| 0x3c02_3c02);
}

#[test]
fn half_conversions() {
    // The integer t as f32, to half in the low word (RZ converted in the high one), and back.
    let half = |t: u32| if t == 0 { 0 } else { let e = 31 - t.leading_zeros(); ((e + 15) << 10) | ((t << (10 - e)) & 0x3ff) };
    expect("I2FP.F32.U32 R4, R0\nF2FP.F16.F32.PACK_AB R5, RZ, R4", half);
    expect("I2FP.F32.U32 R4, R0\nF2FP.F16.F32.PACK_AB R4, RZ, R4\nHADD2.F32 R5, -RZ, R4.H0_H0", |t| (t as f32).to_bits());
    // 1/3 rounds to nearest: 0x3555 (0.33325195).
    expect("MOV R4, 0x3eaaaaab\nF2FP.F16.F32.PACK_AB R5, RZ, R4", |_| 0x3555);
    // Two values: a into the high half, b into the low.
    expect("I2FP.F32.U32 R4, R0\nMOV R6, 0x3f800000\nF2FP.F16.F32.PACK_AB R5, R6, R4", |t| 0x3c00_0000 | half(t));
    // A merge source other than RZ is not lowered (which half it keeps is unverified).
    let e = lower("F2FP.F16.F32.MERGE_C R5, R4, R6").unwrap_err();
    assert!(e.reason.contains("merge"), "{e}");
}

/// f16 bits of `x` (rounded to nearest), as the isa crate converts.
fn h(x: f32) -> u32 {
    use warpsim_isa::fp::{cvt, Rounding};
    cvt::f2f(cvt::FloatType::F32, cvt::FloatType::F16, x.to_bits() as u64, Rounding::Rn, cvt::FloatMods::default()) as u32
}

/// Half-precision arithmetic on selected halves: R7 holds 2.0 in its high half and the thread
/// index t in its low one, and each instruction reads them through `.H0_H0` (the low half in
/// both lanes), `.H1_H1` (the high), no selector (each lane its own), negated or not.
#[test]
fn half_operand_selectors() {
    let pre = "I2FP.F32.U32 R6, R0\nMOV R8, 0x40000000\nF2FP.F16.F32.PACK_AB R7, R8, R6\n";
    let both = |x: f32| h(x) * 0x1_0001;
    let pair = |hi: f32, lo: f32| h(hi) << 16 | h(lo);
    expect(&format!("{pre}HADD2 R5, R7.H0_H0, R7.H1_H1"), |t| both(t as f32 + 2.0));
    expect(&format!("{pre}HADD2 R5, R7.H1_H1, -R7.H0_H0"), |t| both(2.0 - t as f32));
    expect(&format!("{pre}HMUL2 R5, R7, R7.H1_H1"), |t| pair(4.0, 2.0 * t as f32));
    expect(&format!("{pre}HFMA2 R5, -R7.H1_H1, R7.H0_H0, R7"), |t| pair(2.0 - 2.0 * t as f32, -2.0 * t as f32 + t as f32));
    // |x|: the sign of both halves cleared before the selection.
    expect(&format!("{pre}HADD2 R9, -RZ.H0_H0, -R7.H0_H0\nHADD2 R5, |R9|.H1_H1, -RZ.H0_H0"), |t| both(t as f32));
    // A literal pair (upper half first) and .F32 (the low lanes widened, added in f32).
    expect(&format!("{pre}HFMA2.MMA R5, R7, 1, 0.5, -R7.H1_H1"), |t| pair(0.0, t as f32 * 0.5 - 2.0));
    expect(&format!("{pre}HADD2.F32 R5, R7.H1_H1, R7.H0_H0"), |t| (t as f32 + 2.0).to_bits());
    // .SAT clamps to [0, 1]; .RELU takes negatives to +0.
    expect(&format!("{pre}HADD2.SAT R5, R7.H1_H1, -R7.H0_H0"), |t| both((2.0 - t as f32).clamp(0.0, 1.0)));
    expect(&format!("{pre}HFMA2.RELU R5, R7.H0_H0, -R7.H1_H1, R7.H1_H1"), |t| both((2.0 - 2.0 * t as f32).max(0.0)));
    // min (PT) / max (!PT) per lane.
    expect(&format!("{pre}HMNMX2 R5, R7, R7.H1_H1, PT"), |t| pair(2.0, (t as f32).min(2.0)));
    expect(&format!("{pre}HMNMX2 R5, R7.H0_H0, R7.H1_H1, !PT"), |t| both((t as f32).max(2.0)));
    // bf16 lanes: 2.0 and t as bf16 (exact for t < 256), t·2 + t.
    let pre_b = "I2FP.F32.U32 R6, R0\nMOV R8, 0x40000000\nF2FP.BF16.F32.PACK_AB R7, R8, R6\n";
    expect(&format!("{pre_b}HFMA2.BF16_V2 R5, R7.H0_H0, R7.H1_H1, R7.H0_H0"), |t| ((t as f32 * 3.0).to_bits() >> 16) * 0x1_0001);
    // HSETP2: p from the low lanes (t > 2), q from the high ones (2 > 2: false).
    expect(&format!("{pre}HSETP2.GT.AND P0, P1, R7, R7.H1_H1, PT\nSEL R5, 0x1, RZ, P0\n@P1 IADD3 R5, R5, 0x2, RZ"), |t| (t > 2) as u32);
    expect(&format!("{pre}HSETP2.GT.AND P0, P1, R7.H1_H1, R7.H0_H0, PT\nSEL R5, 0x1, RZ, P0\n@P1 IADD3 R5, R5, 0x2, RZ"), |t| if t < 2 { 3 } else { 0 });
    // MUFU on the upper half: 2^2.
    expect(&format!("{pre}MUFU.EX2.F16 R5, R7.H1"), |_| h(4.0));
    // A selector that is not a half's is an error naming it.
    let e = lower("HADD2 R5, R7.B1, R7").unwrap_err();
    assert!(e.reason.contains(".B1"), "{e}");
}

#[test]
fn register_reallocation_succeeds() {
    // setmaxnreg: the allocation's predicate is true; the release changes nothing.
    expect("USETMAXREG.TRY_ALLOC.CTAPOOL UP0, 0xe8\nPLOP3.LUT P0, PT, PT, PT, UP0, 0x80, 0x0\nSEL R5, 0x1, 0x2, P0", |_| 1);
    expect("USETMAXREG.DEALLOC.CTAPOOL 0x28\nMOV R5, 0x7", |_| 7);
}

#[test]
fn warp_shuffles_and_votes() {
    expect("SHFL.BFLY PT, R5, R0, 0x1, 0x1f", |t| t ^ 1);
    expect("SHFL.DOWN P0, R5, R0, 0x4, 0x1f\n@!P0 MOV R5, 0x63", |t| if t + 4 < 32 { t + 4 } else { 0x63 });
    expect("ISETP.GE.U32.AND P0, PT, R0, 0x8, PT\nVOTE.ANY R5, PT, P0", |_| 0xFFFF_FF00);
    expect("ISETP.GE.U32.AND P0, PT, R0, 0x0, PT\nVOTEU.ALL UP0, P0\nSEL R5, 0x1, 0x2, UP0", |_| 1);
    expect("REDUX.SUM UR6, R0\nMOV R5, UR6", |_| (0..32).sum());
    expect("LOP3.LUT R6, R0, 0x30, RZ, 0xfc, !PT\nREDUX UR6, R6\nMOV R5, UR6", |_| 0x30);
}

#[test]
fn divergence_reconverges_after_bsync_each_path_executing_it() {
    let body = "ISETP.GE.U32.AND P0, PT, R0, 0x10, PT
        BSSY B0, `(.L_x_1)
        @P0 BRA `(.L_x_0)
        IADD3 R5, R0, 0x100, RZ
        BRA `(.L_x_1)
        .L_x_0:
        IADD3 R5, R0, 0x200, RZ
        .L_x_1:
        BSYNC B0
        SHFL.BFLY PT, R5, R5, 0x10, 0x1f";
    let (got, executed) = run(body);
    // The shuffle after the BSYNC sees the whole warp again.
    let want: Vec<u32> = (0..32).map(|t: u32| (t ^ 16) + if t ^ 16 >= 16 { 0x200 } else { 0x100 }).collect();
    assert_eq!(got, want);
    // BSYNC (instruction 11) runs once per path, the shuffle once.
    assert_eq!((executed[11], executed[12]), (2, 1));
}

#[test]
fn shared_memory_and_barriers() {
    // The shared window's first 0x400 bytes are reserved: user data starts at 0x400.
    expect(
        "S2R R8, SR_CgaCtaId
        MOV R9, 0x400
        LEA R8, R8, R9, 0x18
        LEA R7, R0, R8, 0x2
        STS [R7], R0
        BAR.SYNC.DEFER_BLOCKING 0x0
        SHF.L.U32 R6, R0, 0x2, RZ
        LOP3.LUT R6, R6, 0x7c, RZ, 0x3c, !PT
        LDS R5, [R6+0x400]",
        |t| t ^ 31,
    );
    expect("IMAD.SHL.U32 R7, R0, 0x4, RZ\nMOV R5, 0x1\nATOMS.POPC.INC.32 RZ, [R7+0x400]\nATOMS.POPC.INC.32 RZ, [R7+0x400]\nLDS R5, [R7+0x400]", |_| 2);
}

#[test]
fn local_memory_through_the_stack_pointer() {
    expect("IADD3 R1, R1, -0x10, RZ\nSTL [R1+0x4], R0\nLDL R5, [R1+0x4]", |t| t);
}

#[test]
fn calls_return_through_the_address_they_were_given() {
    let body = "MOV R20, 0x80
        CALL.REL.NOINC `(.L_x_sub)
        BRA `(.L_x_done)
        .L_x_sub:
        IADD3 R5, R0, 0x7, RZ
        RET.REL.NODEC R20 `(k)
        .L_x_done:
        NOP";
    // MOV is at 0x50, CALL at 0x60, the BRA after it at 0x70: the return address. Fix it up.
    let body = body.replace("0x80", "0x70");
    expect(&body, |t| t + 7);
}

#[test]
fn a_branch_around_a_call_reconverges_at_its_bsync() {
    // Lanes below 16 call the subroutine (R7 = tid + 7), the others skip it; every lane calls
    // it again after the join. The second call's return point must not make the branch
    // reconverge at the subroutine: the shuffle after the BSYNC runs once, for the whole warp
    // (ptxas's division slow path, called from each unrolled copy of a loop, is the case).
    let body = "ISETP.GE.U32.AND P0, PT, R0, 0x10, PT
        BSSY B0, `(.L_x_1)
        @P0 BRA `(.L_x_1)
        MOV R20, 0xa0
        CALL.REL.NOINC `(.L_x_sub)
        .L_x_1:
        BSYNC B0
        SHFL.BFLY PT, R5, R7, 0x10, 0x1f
        MOV R20, 0xe0
        CALL.REL.NOINC `(.L_x_sub)
        BRA `(.L_x_done)
        .L_x_sub:
        IADD3 R7, R0, 0x7, RZ
        RET.REL.NODEC R20 `(k)
        .L_x_done:
        NOP";
    let (got, executed) = run(body);
    let want: Vec<u32> = (0..32).map(|t: u32| if t >= 16 { (t ^ 16) + 7 } else { 0 }).collect();
    assert_eq!(got, want);
    // The SHFL (instruction 11) runs once; the subroutine's add (15) twice: the first call by
    // half the warp, the second by all of it.
    assert_eq!((executed[11], executed[15]), (1, 2));
}

#[test]
fn a_call_that_never_returns_is_a_branch() {
    // sm_80's ptxas closes a loop with `@P0 CALL.REL` to code that only exits: the call is the
    // loop's exit, so the lanes leaving it early wait for the others there and the shuffle
    // after it sees the whole warp (lane t loops t + 1 times).
    let body = "MOV R5, RZ
        .L_x_loop:
        IADD3 R5, R5, 0x1, RZ
        ISETP.GT.U32.AND P0, PT, R5, R0, PT
        @P0 CALL.REL.NOINC `(.L_x_done)
        BRA `(.L_x_loop)
        .L_x_done:
        SHFL.BFLY PT, R5, R5, 0x10, 0x1f";
    let (got, executed) = run(body);
    let want: Vec<u32> = (0..32).map(|t: u32| (t ^ 16) + 1).collect();
    assert_eq!(got, want);
    // The SHFL (instruction 10) runs once.
    assert_eq!(executed[10], 1);
}

#[test]
fn unlowered_opcodes_and_faults_are_located() {
    let e = lower("VABSDIFF R4, R4, R4, RZ\nMOV R5, RZ").unwrap_err();
    assert_eq!((e.kernel.as_str(), e.pc, e.opcode.as_str()), ("k", 0x50, "VABSDIFF"));
    assert!(e.to_string().contains("kernel `k`: SASS 0x0050 `VABSDIFF R4, R4, R4, RZ`"), "{e}");
    // A store to a bad address faults, naming the SASS instruction.
    let prog = lower("MOV R2, 0x10\nMOV R3, RZ\nMOV R5, RZ").unwrap();
    let mut g = Gpu::new(1);
    let params = vec![0u8; prog.param_bytes as usize];
    let dims = LaunchDims { grid: [1, 1, 1], block: [32, 1, 1], cluster: [1, 1, 1], dynamic_smem: 0 };
    let f = g.run_functional(Arc::new(prog), dims, params).unwrap_err().to_string();
    assert!(f.contains("sm_90 0x0080 STG.E desc[UR4][R2.64], R5"), "{f}");
}

#[test]
fn warpgroup_mma_takes_the_ptx_form_on_the_uniform_descriptors() {
    use warpsim_isa::inst::{flag, MatrixOp, Op, Opnd};
    let ptx = ".version 8.0\n.target sm_90a\n.address_size 64\n.visible .entry k()\n{\n.reg .f32 %f<5>;\n.reg .b64 %rd<3>;\n.reg .b32 %r<2>;\nwgmma.fence.sync.aligned;\n{\n.reg .pred p;\nsetp.ne.b32 p, %r1, 0;\nwgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1, %f2, %f3, %f4}, %rd1, %rd2, p, 1, 1, 0, 0;\n}\nwgmma.commit_group.sync.aligned;\nwgmma.wait_group.sync.aligned 0;\nret;\n}\n";
    let prog = warpsim_isa::load(ptx, "k.ptx").unwrap().remove(0);
    let line = prog.insts.iter().find(|i| i.op == Op::Matrix(MatrixOp::WgmmaMma)).map(|i| i.loc.ptx.line).unwrap();
    let mut text = String::from("\t.target\tsm_90a\n\t.section\t.text.k,\"ax\",@progbits\n\t.other\tk,@\"STO_CUDA_ENTRY STV_DEFAULT\"\nk:\n.text.k:\n");
    // ptxas puts the HGMMA on a line near the wgmma's, not always on it.
    let body = ["WARPGROUP.ARRIVE", "HGMMA.64x8x16.F32 R24, gdesc[UR8], R24, gsb0", "HGMMA.64x8x16.F32 R24, gdesc[UR8], RZ, !UPT", "HGMMA.64x8x16.F32 R24, gdesc[UR8], R24, UP0", "WARPGROUP.DEPBAR.LE gsb0, 0x0", "EXIT"];
    for (i, l) in body.iter().enumerate() {
        text.push_str(&format!("\t//## File \".nv_debug_ptx_txt\", line {}\n        /*{:04x}*/ {l} ;\n", line + 2, i * 16));
    }
    let p = warpsim_sass::lower::lower_listing(&text, "k", &prog).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(p.insts[0].op, Op::Matrix(MatrixOp::WgmmaFence));
    assert_eq!((p.insts[4].op, &p.insts[4].ops), (Op::Matrix(MatrixOp::WgmmaWait), &vec![Opnd::Imm(0)]));
    let reg = |name: &str| p.regs.iter().position(|r| r.name == name).unwrap() as u32;
    let mma = &p.insts[1];
    assert_eq!((mma.op, mma.m.shape, mma.m.has(flag::MACHINE_FORM)), (Op::Matrix(MatrixOp::WgmmaMma), Some((64, 8, 16)), true));
    assert_eq!(mma.ops[0], Opnd::Vec(["R24", "R25", "R26", "R27"].iter().map(|r| Opnd::Reg(reg(r))).collect()));
    assert_eq!(mma.ops[1..4], [Opnd::Pair(reg("UR8"), reg("UR9")), Opnd::Pair(reg("UR10"), reg("UR11")), Opnd::Imm(1)]);
    assert_eq!(mma.ops[4..], [Opnd::Imm(1), Opnd::Imm(1), Opnd::Imm(0), Opnd::Imm(0)]);
    // RZ as the accumulator: D = A·B; a predicate: scale-d.
    assert_eq!(p.insts[2].ops[3], Opnd::Imm(0));
    assert_eq!(p.insts[3].ops[3], Opnd::Reg(reg("UP0")));
    // `gsb0` closes the group (the timing model's commit); the others leave it open.
    assert_eq!([1, 2, 3].map(|i| p.insts[i].m.has(flag::COMMIT)), [true, false, false]);
}

/// Turing to Ada: parameters from c[0x0][0x160] (the prologue's 64-bit constant addend), scaled
/// shared indices, a 64-bit address plus a uniform 64-bit base, a uniform-pair address, and no
/// reserved shared window.
#[test]
fn pre_hopper_addressing() {
    for target in ["sm_75", "sm_80", "sm_89"] {
        expect_on(target, "STS [R0.X4], R0\nBAR.SYNC 0x0\nLOP3.LUT R4, R0, 0x1, RZ, 0x3c, !PT\nLDS R5, [R4.X4]", "", |t| t ^ 1);
        expect_on(target, "IMAD.SHL.U32 R4, R0, 0x2, RZ\nSTS.64 [R0.X8], R4\nLDS R5, [R0.X8+0x4]", "", |_| 0);
        let store_load = "ULDC.64 UR4, c[0x0][0x160]\nMOV R7, RZ\nIMAD.SHL.U32 R6, R0, 0x4, RZ\nIMAD R8, R0, 0x3, RZ\nSTG.E.SYS [R6.64+UR4], R8\nLDG.E.SYS R5, [R6.64+UR4]";
        expect_on(target, store_load, "", |t| 3 * t);
        expect_on(target, &format!("{store_load}\nLDG.E.SYS R5, [UR4+0x8]"), "", |_| 6);
        expect_on(target, "LDC R5, c[0x0][0x168]\nBMOV.32.CLEAR RZ, B0\nIADD3 R5, R5, R0, RZ", "", |t| t + 7);
    }
    // The same scaled form is an error where it would need an unlowered combination.
    let e = lower_text(&listing_for("sm_80", "LDS R5, [R0.X4+UR4]")).unwrap_err();
    assert!(e.reason.contains("scaled"), "{e}");
}

/// Constant bank 2 (`.nv.constant2.k`, nvdisasm without `-c`): ptxas's literals, read where the
/// code names them; an entry the loader relocates is refused.
#[test]
fn constant_bank_two_literals() {
    let bank = "\t.section\t.nv.constant2.k,\"a\",@progbits\n.nv.constant2.k:\n        /*0000*/ \t.byte\t0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00\n        /*0008*/ \t.word\t0x00000010\n        /*000c*/ \t.dword\tk\n";
    expect_on("sm_80", "MOV R4, 0x5\nIMAD.WIDE.U32 R6, R0, R4, c[0x2][0x0]\nMOV R5, R6", bank, |t| 5 * t + 8);
    expect_on("sm_80", "ULDC UR6, c[0x2][0x8]\nIADD3 R5, R0, UR6, RZ", bank, |t| t + 16);
    expect_on("sm_80", "ULDC.64 UR6, c[0x2][0x0]\nIADD3 R5, R0, UR6, RZ", bank, |t| t + 8);
    let m = warpsim_sass::parse(&(listing_for("sm_80", "") + bank)).unwrap();
    assert_eq!(m.kernels[0].bank2.bytes.len(), 20);
    let e = lower_text(&(listing_for("sm_80", "ULDC UR6, c[0x2][0xc]\nMOV R5, UR6") + bank)).unwrap_err();
    assert!(e.reason.contains("relocation"), "{e}");
    let e = lower_text(&(listing_for("sm_80", "ULDC UR6, c[0x2][0x40]\nMOV R5, UR6") + bank)).unwrap_err();
    assert!(e.reason.contains("past the 20 bytes"), "{e}");
}

/// Turing and Ampere's half conversions: `F2F.F16.F32` / `F2FP.PACK_AB` and the widening
/// `HADD2.F32` with its operands in Turing's order.
#[test]
fn pre_hopper_half_conversions() {
    let half = |t: u32| if t == 0 { 0 } else { let e = 31 - t.leading_zeros(); ((e + 15) << 10) | ((t << (10 - e)) & 0x3ff) };
    expect_on("sm_75", "I2F.U32 R4, R0\nF2F.F16.F32 R5, R4", "", half);
    expect_on("sm_80", "I2F.U32 R4, R0\nF2FP.PACK_AB R5, RZ, R4", "", half);
    expect_on("sm_75", "I2F.U32 R4, R0\nF2F.F16.F32 R4, R4\nHADD2.F32 R5, R4.H0_H0, -RZ.H0_H0", "", |t| (t as f32).to_bits());
}

/// sm_90 clusters in machine code: `SR_CgaCtaId` is the CTA's rank and shared addresses carry it
/// (`rank << 24 | 0x400 + offset`); `PRMT … 0x654` retargets one at another CTA, reached by a
/// generic load with `SR_SWINHI` above it; `UCGABAR_ARV`/`_WAIT` are the cluster barrier;
/// c[0x0][0x188] is the cluster's CTA count and c[0x0][0x150] the reciprocal of its width
/// (`%clusterid.x` = trunc(ctaid.x × it)). Four CTAs in clusters of two, each lane reading its
/// partner CTA's word: 100 × partner rank + tid + 1000 × cluster size + 10000 × cluster id.
#[test]
fn cluster_shared_memory_through_machine_addresses() {
    let body = "S2R R6, SR_CgaCtaId
        S2R R20, SR_CTAID.X
        MOV R8, 0x400
        LEA R9, R6, R8, 0x18
        IMAD R10, R0, 0x4, R9
        IMAD R11, R6, 0x64, R0
        STS [R10], R11
        UCGABAR_ARV
        UCGABAR_WAIT
        LOP3.LUT R12, R6, 0x1, RZ, 0x3c, !PT
        PRMT R14, R12, 0x654, R10
        S2R R15, SR_SWINHI
        LD.E R5, [R14.64]
        ULDC UR7, c[0x0][0x188]
        IMAD.U32 R22, RZ, RZ, UR7
        IMAD R5, R22, 0x3e8, R5
        I2FP.F32.U32 R18, R20
        FMUL R18, R18, c[0x0][0x150]
        F2I.U32.TRUNC.NTZ R19, R18
        IMAD R5, R19, 0x2710, R5
        IMAD R21, R20, 0x20, R0
        IMAD.WIDE.U32 R2, R21, 0x4, R2
        UCGABAR_ARV
        UCGABAR_WAIT";
    let mut text = listing(body);
    // The prologue's &out[tid] becomes &out[ctaid * 32 + tid] (the base from the parameters).
    text = text.replace("IMAD.WIDE.U32 R2, R0, 0x4, R2 ;", "MOV R2, R2 ;");
    let prog = lower_text(&text).unwrap_or_else(|e| panic!("{e}"));
    let mut g = Gpu::new(4);
    let out = g.upload("out", 4 * 128, &[]);
    let mut params = vec![0u8; prog.param_bytes as usize];
    params[0x210..0x218].copy_from_slice(&out.to_le_bytes());
    let dims = LaunchDims { grid: [4, 1, 1], block: [32, 1, 1], cluster: [2, 1, 1], dynamic_smem: 0 };
    g.run_functional(Arc::new(prog), dims, params).unwrap_or_else(|f| panic!("{f}"));
    let got: Vec<u32> = g.download(out, 4 * 128).chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
    let want: Vec<u32> = (0..128u32).map(|i| (i / 32 % 2 ^ 1) * 100 + i % 32 + 2 * 1000 + i / 64 * 10000).collect();
    assert_eq!(got, want);
}

/// The module's variables: `__constant__` arrays in bank 3 (`.nv.constant3`, each a label at its
/// bank offset) read directly (`ld.const` of the variable), as an ALU operand and through a
/// register holding a bank offset, and a `__device__` variable's address from bank 4
/// (`.nv.constant4`, one relocated `.dword` per variable), against the same kernel in PTX mode.
#[test]
fn constant_banks_three_and_four_read_the_module_variables() {
    let ptx = ".version 8.0\n.target sm_90\n.address_size 64\n.const .align 4 .b8 c_a[8] = {1, 0, 0, 0, 2};\n.const .align 4 .b8 c_tab[16] = {10, 0, 0, 0, 20, 0, 0, 0, 30, 0, 0, 0, 40};\n.global .align 4 .u32 g_val = 5;\n.visible .entry k(.param .u64 out, .param .u32 n)\n{\n.reg .b32 %r<8>;\n.reg .b64 %rd<6>;\nld.param.u64 %rd1, [out];\nmov.u32 %r1, %tid.x;\nld.const.u32 %r2, [c_tab+4];\nand.b32 %r3, %r1, 3;\nshl.b32 %r3, %r3, 2;\nmov.u64 %rd2, c_tab;\ncvt.u64.u32 %rd3, %r3;\nadd.u64 %rd2, %rd2, %rd3;\nld.const.u32 %r4, [%rd2];\nld.const.u32 %r5, [c_a+4];\nmov.u64 %rd4, g_val;\nld.global.u32 %r6, [%rd4];\nadd.u32 %r7, %r2, %r4;\nadd.u32 %r7, %r7, %r5;\nadd.u32 %r7, %r7, %r6;\nmul.wide.u32 %rd5, %r1, 4;\nadd.u64 %rd5, %rd1, %rd5;\nst.global.u32 [%rd5], %r7;\nret;\n}\n";
    let banks = "\t.section\t.nv.constant3,\"a\",@progbits\n\t.align\t8\n.nv.constant3:\nc_a:\n        /*0000*/ \t.byte\t0x01, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00\nc_tab:\n        /*0008*/ \t.byte\t0x0a, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x1e, 0x00, 0x00, 0x00, 0x28, 0x00, 0x00, 0x00\n\t.section\t.nv.constant4,\"a\",@progbits\n\t.align\t8\n.nv.constant4:\n        /*0000*/ \t.dword\tg_val\n";
    let body = "LDC R4, c[0x3][0xc]\nLOP3.LUT R6, R0, 0x3, RZ, 0xc0, !PT\nIMAD.SHL.U32 R6, R6, 0x4, RZ\nIADD3 R6, R6, 0x8, RZ\nLDC R7, c[0x3][R6]\nIADD3 R5, R4, R7, c[0x3][0x4]\nLDC.64 R8, c[0x4][0x0]\nLDG.E R9, desc[UR4][R8.64]\nIADD3 R5, R5, R9, RZ";
    let ptx = warpsim_isa::load(ptx, "k.ptx").unwrap().remove(0);
    let run_prog = |prog: warpsim_isa::Program, base: usize| {
        let mut g = Gpu::new(1);
        let out = g.upload("out", 128, &[]);
        let mut params = vec![0u8; prog.param_bytes as usize];
        params[base..base + 8].copy_from_slice(&out.to_le_bytes());
        let dims = LaunchDims { grid: [1, 1, 1], block: [32, 1, 1], cluster: [1, 1, 1], dynamic_smem: 0 };
        g.run_functional(Arc::new(prog), dims, params).unwrap_or_else(|f| panic!("{f}"));
        g.download(out, 128).chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect::<Vec<u32>>()
    };
    let sass = warpsim_sass::lower::lower_listing(&(listing(body) + banks), "k", &ptx).unwrap_or_else(|e| panic!("{e}"));
    let want: Vec<u32> = (0..32).map(|t| 20 + 10 * (t % 4 + 1) + 2 + 5).collect();
    assert_eq!(run_prog(ptx.clone(), 0), want, "PTX mode");
    assert_eq!(run_prog(sass, 0x210), want, "SASS mode");
    // Forms whose variable is not known exactly are errors naming them.
    for (body, what) in [("LDC R5, c[0x4][0x4]", "64-bit literal reads of bank 4"), ("IADD3 R5, R0, c[0x4][0x4], RZ", "`c[0x4][0x4]`"), ("LDC R5, c[0x3][0x18]", "no `__constant__` variable"), ("LDC.64 R4, c[0x3][0x14]", "8 bytes at 12 of `c_tab`")] {
        let e = warpsim_sass::lower::lower_listing(&(listing(body) + banks), "k", &ptx).unwrap_err();
        assert!(e.reason.contains(what), "{body}: {e}");
    }
}

/// A `switch` through a jump table: `LDC` of the target's offset from bank 2, indexed by the
/// case, and `BRX R10 -(pc + 16)` to it (nvdisasm notes the targets); the lanes of one warp take
/// three cases and meet after them.
#[test]
fn brx_jumps_through_the_bank_two_table() {
    let bank = "\t.section\t.nv.constant2.k,\"a\",@progbits\n.nv.constant2.k:\n        /*0000*/ \t.byte\t0xa0, 0x00, 0x00, 0x00, 0xc0, 0x00, 0x00, 0x00, 0xe0, 0x00, 0x00, 0x00, 0xa0, 0x00, 0x00, 0x00\n";
    let body = "LOP3.LUT R6, R0, 0x3, RZ, 0xc0, !PT\nIMAD.SHL.U32 R6, R6, 0x4, RZ\nLDC R10, c[0x2][R6]\nSHF.R.S32.HI R11, RZ, 0x1f, R10\nBRX R10 -0xa0 (*\"BRANCH_TARGETS .L_x_1,.L_x_2,.L_x_3\"*)\n.L_x_1:\nIMAD.MOV.U32 R5, RZ, RZ, 0x64\nBRA `(.L_x_9)\n.L_x_2:\nIMAD.MOV.U32 R5, RZ, RZ, 0xc8\nBRA `(.L_x_9)\n.L_x_3:\nIADD3 R5, R0, 0x7, RZ\n.L_x_9:\nDEPBAR {5,4,3,2,1,0}";
    let text = listing(body) + bank;
    let m = warpsim_sass::parse(&text).unwrap();
    let brx = m.kernels[0].instructions.iter().find(|i| i.opcode == "BRX").unwrap();
    assert_eq!(brx.text(), "BRX R10, -0xa0, (*\"BRANCH_TARGETS .L_x_1,.L_x_2,.L_x_3\"*)");
    assert_eq!(brx.operands[2].value, warpsim_sass::Value::BranchTargets(vec![(".L_x_1".into(), Some(0xa0)), (".L_x_2".into(), Some(0xc0)), (".L_x_3".into(), Some(0xe0))]));
    let (got, _) = run_text(&text, 0x210);
    let want: Vec<u32> = (0..32).map(|t| [100, 200, t + 7, 100][t as usize % 4]).collect();
    assert_eq!(got, want);
    // A bulk copy's lone descriptor parses; the copy itself is not lowered.
    let e = lower("UBLKCP.S.G [UR6], [UR8], UR4, desc[UR10]\nMOV R5, RZ").unwrap_err();
    assert!(e.text.contains("desc[UR10]") && e.reason.contains("UBLKCP"), "{e}");
}
