//! Checks that decoded control bits describe the code they came from: the scoreboard
//! discipline ptxas follows holds only if the bit layout of [`crate::control`] is right.
//!
//! Rules, per kernel, along the listing's fall-through order (a scan stops at an unconditional
//! branch, exit or return; it does not follow branches):
//! - **result**: an instruction that sets write barrier *b* has its destination registers read
//!   or overwritten by a later instruction only once *b* is waited on (that instruction's wait
//!   mask, an earlier one's, or a `DEPBAR.LE SBb`);
//! - **operand**: an instruction that sets read barrier *b* has its general-register sources
//!   overwritten by a fixed-latency instruction only once *b* is waited on (uniform registers
//!   are read at issue, and a variable-latency overwrite queues behind the read: ptxas waits for
//!   neither, 5 of 5 such cases in the suite); a wait on the instruction's own write barrier
//!   covers its operands too;
//! - **wait**: a wait mask names only barriers some instruction of the kernel sets;
//! - **reuse**: the reuse flags set are as many as the operands nvdisasm marks `.reuse` (it
//!   derives the marks from the encoding independently of this crate);
//! - **top**: bits 126–127 are zero.
//!
//! It also measures, for fixed-latency results (no write barrier), the cycles the stall counts
//! put between a producer and its first consumer on a straight line ([`Report::fixed_latency`],
//! [`Report::fixed_latency_uniform`]): with the stall field decoded right they are never below
//! the pipeline's latency (4 cycles for general registers on Volta to Hopper, except 3 to the low
//! half of an `IMAD.WIDE`; 2 on the uniform datapath).
//!
//! Which operands an instruction writes is read off the operand list (leading predicates, then
//! the first register unless the opcode writes none); register widths from `.64`/`.128`-style
//! modifiers. Both are approximations that can only miss a dependence, never invent one.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::{Instruction, Kernel, Operand, Value};

/// One rule broken.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Violation {
    pub kernel: String,
    pub pc: u32,
    pub rule: &'static str,
    pub detail: String,
}

/// What the checks saw.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Report {
    pub instructions: usize,
    /// Instructions that set a write barrier and write a register.
    pub producers: usize,
    /// Dependences checked by the `result` and `operand` rules.
    pub dependences: usize,
    pub violations: Vec<Violation>,
    /// Fixed-latency producer → first consumer distances in stall cycles (distance → count), for
    /// producers writing general registers.
    pub fixed_latency: BTreeMap<u32, usize>,
    /// The same for producers writing uniform registers (the uniform datapath).
    pub fixed_latency_uniform: BTreeMap<u32, usize>,
}

impl Report {
    pub fn merge(&mut self, other: Report) {
        self.instructions += other.instructions;
        self.producers += other.producers;
        self.dependences += other.dependences;
        self.violations.extend(other.violations);
        for (d, n) in other.fixed_latency {
            *self.fixed_latency.entry(d).or_insert(0) += n;
        }
        for (d, n) in other.fixed_latency_uniform {
            *self.fixed_latency_uniform.entry(d).or_insert(0) += n;
        }
    }

    /// Violations per checked dependence-or-instruction, in percent.
    pub fn violation_rate(&self) -> f64 {
        100.0 * self.violations.len() as f64 / (self.dependences + self.instructions).max(1) as f64
    }

    /// Fixed-latency dependences on general registers whose distance is below `cycles`.
    pub fn fixed_below(&self, cycles: u32) -> usize {
        self.fixed_latency.range(..cycles).map(|(_, n)| n).sum()
    }

    /// Fixed-latency dependences on uniform registers whose distance is below `cycles`.
    pub fn fixed_uniform_below(&self, cycles: u32) -> usize {
        self.fixed_latency_uniform.range(..cycles).map(|(_, n)| n).sum()
    }
}

/// Registers as bit sets: 255 general, 63 uniform (RZ / URZ never included).
#[derive(Clone, Copy, Default, PartialEq, Eq)]
struct Regs {
    r: [u64; 4],
    ur: u64,
}

impl Regs {
    fn add(&mut self, uniform: bool, index: u8, width: u32) {
        for k in 0..width {
            let i = index as u32 + k;
            if uniform {
                if i < 63 {
                    self.ur |= 1 << i;
                }
            } else if i < 255 {
                self.r[(i / 64) as usize] |= 1 << (i % 64);
            }
        }
    }

    fn meets(&self, o: &Regs) -> bool {
        self.ur & o.ur != 0 || self.r.iter().zip(&o.r).any(|(a, b)| a & b != 0)
    }

    fn is_empty(&self) -> bool {
        *self == Regs::default()
    }
}

/// Opcodes with no register destination (their first operand is read).
const NO_DEST: &[&str] = &[
    "ST", "STG", "STS", "STL", "STSM", "STAS", "RED", "REDG", "REDAS", "BRA", "BRX", "JMP", "JMX", "EXIT", "RET", "CALL", "BAR", "BSSY", "BSYNC", "BREAK", "WARPSYNC", "NOP", "MEMBAR", "DEPBAR", "ERRBAR",
    "CGAERRBAR", "CCTL", "CCTLL", "FENCE", "LDGSTS", "LDGDEPBAR", "UTMALDG", "UTMASTG", "UTMAPF", "UTMACMDFLUSH", "UBLKCP", "UBLKRED", "YIELD", "KILL", "BPT", "WARPGROUP", "ENDCOLLECTIVE",
    "UCGABAR_ARV", "UCGABAR_WAIT", "USETMAXREG", "ACQBULK", "ARRIVES",
];

/// Opcodes whose destinations are predicates only.
const PRED_DEST: &[&str] = &["ISETP", "FSETP", "DSETP", "HSETP2", "PSETP", "PLOP3", "UISETP", "UPLOP3", "UPSETP", "FCHK", "R2P", "VOTEU"];

fn opcode_width(i: &Instruction) -> u32 {
    let mut w = 1;
    for m in &i.modifiers {
        match m.as_str() {
            "64" | "WIDE" => w = w.max(2),
            "128" => w = w.max(4),
            _ => {}
        }
    }
    if i.opcode.starts_with('D') && ["DADD", "DMUL", "DFMA", "DMNMX"].contains(&i.opcode.as_str()) {
        w = w.max(2);
    }
    w
}

/// The registers an instruction writes.
fn writes(i: &Instruction) -> Regs {
    let mut out = Regs::default();
    if NO_DEST.contains(&i.opcode.as_str()) || i.opcode == "SYNCS" && !i.has_modifier("EXCH") && !i.has_modifier("ARRIVE") {
        return out;
    }
    let width = match i.opcode.as_str() {
        "CS2R" if !i.has_modifier("32") => 2,
        "LDSM" => i.modifiers.iter().find_map(|m| m.parse::<u32>().ok().filter(|v| [1, 2, 4].contains(v))).unwrap_or(1),
        "HMMA" => {
            if i.has_modifier("F32") {
                4
            } else {
                2
            }
        }
        _ => opcode_width(i),
    };
    for o in &i.operands {
        match &o.value {
            Value::Pred(_) => continue,
            Value::Reg(r) if !PRED_DEST.contains(&i.opcode.as_str()) && !r.is_zero() => {
                out.add(r.uniform, r.index, width);
            }
            _ => {}
        }
        break;
    }
    out
}

/// How many leading operands are destinations.
fn dest_operands(i: &Instruction) -> usize {
    if NO_DEST.contains(&i.opcode.as_str()) {
        return 0;
    }
    let preds = i.operands.iter().take_while(|o| matches!(o.value, Value::Pred(_))).count();
    let reg = i.operands.get(preds).is_some_and(|o| matches!(o.value, Value::Reg(_))) && !PRED_DEST.contains(&i.opcode.as_str());
    preds + reg as usize
}

/// The registers an instruction reads (sources, address registers, descriptors).
fn reads(i: &Instruction) -> Regs {
    let mut out = Regs::default();
    let store = NO_DEST.contains(&i.opcode.as_str());
    let data_width = if store { opcode_width(i) } else { 1 };
    for o in i.operands.iter().skip(dest_operands(i)) {
        operand_reads(o, data_width, &mut out);
    }
    out
}

fn operand_reads(o: &Operand, data_width: u32, out: &mut Regs) {
    let addr = |a: &crate::Address, out: &mut Regs| {
        for r in [&a.reg, &a.ureg].into_iter().flatten() {
            if !r.reg.is_zero() {
                out.add(r.reg.uniform, r.reg.index, if r.wide() { 2 } else { 1 });
            }
        }
    };
    match &o.value {
        Value::Reg(r) if !r.is_zero() => {
            let w = if o.modifiers.iter().any(|m| m == "64") { 2 } else { data_width };
            out.add(r.uniform, r.index, w);
        }
        Value::Mem { desc, addr: a } => {
            if let Some(crate::Desc::Global(r)) = desc {
                if !r.is_zero() {
                    out.add(true, r.index, 2);
                }
            }
            addr(a, out);
        }
        Value::Const { bank, addr: a } => {
            if let crate::Bank::Reg(r) = bank {
                out.add(r.uniform, r.index, 1);
            }
            addr(a, out);
        }
        _ => {}
    }
}

/// Ends the fall-through path: an unguarded branch, exit or return.
fn ends_path(i: &Instruction) -> bool {
    let unguarded = i.guard.is_none_or(|g| g.pred.is_true() && !g.negated);
    unguarded && matches!(i.opcode.as_str(), "BRA" | "BRX" | "JMP" | "JMX" | "EXIT" | "RET")
}

/// `DEPBAR.LE SBb, N` counts as a wait on `b`, `DEPBAR {5,4,…}` on each scoreboard named.
fn depbar_waits(i: &Instruction, b: u8) -> bool {
    i.opcode == "DEPBAR"
        && i.operands.first().is_some_and(|o| match &o.value {
            Value::Scoreboard(x) => *x == b,
            Value::Scoreboards(v) => v.contains(&b),
            _ => false,
        })
}

/// Runs every rule over one kernel.
pub fn kernel(k: &Kernel) -> Report {
    let mut rep = Report { instructions: k.instructions.len(), ..Report::default() };
    let ins = &k.instructions;
    let ctl: Vec<_> = ins.iter().map(|i| i.control).collect();
    let label_pcs: std::collections::BTreeSet<u32> = k.labels.values().copied().collect();
    let mut set_anywhere = 0u8;
    for c in ctl.iter().flatten() {
        for b in [c.write_barrier, c.read_barrier].into_iter().flatten() {
            set_anywhere |= 1 << b;
        }
    }
    let mut violation = |pc: u32, rule: &'static str, detail: String| rep_push(&mut rep.violations, &k.name, pc, rule, detail);
    let mut producers = 0;
    let mut dependences = 0;
    let mut fixed: BTreeMap<u32, usize> = BTreeMap::new();
    let mut fixed_uniform: BTreeMap<u32, usize> = BTreeMap::new();
    for (n, i) in ins.iter().enumerate() {
        let Some(c) = ctl[n] else { continue };
        if let Some(enc) = i.encoding {
            if !crate::control::top_bits_clear(enc) {
                violation(i.pc, "top", format!("bits 126-127 set in {enc:#034x}"));
            }
        }
        let marked = i.operands.iter().filter(|o| o.reuse).count() as u32;
        if c.reuse.count_ones() != marked {
            violation(i.pc, "reuse", format!("{} reuse flags, {marked} `.reuse` operands in `{}`", c.reuse.count_ones(), i.text()));
        }
        let unset = c.wait_mask & !set_anywhere;
        if unset != 0 {
            violation(i.pc, "wait", format!("waits on barrier mask {unset:#b}, which no instruction sets"));
        }
        // result: write barrier
        if let Some(b) = c.write_barrier {
            let w = writes(i);
            if !w.is_empty() {
                producers += 1;
                if let Some((j, waited)) = first_touch(ins, &ctl, n, &[b], |j| reads(j).meets(&w) || writes(j).meets(&w)) {
                    dependences += 1;
                    if !waited {
                        violation(ins[j].pc, "result", format!("`{}` uses a result of `{}` (pc {:#x}, write barrier {b}) without waiting on it", ins[j].text(), i.text(), i.pc));
                    }
                }
            }
        }
        // operand: read barrier
        if let Some(b) = c.read_barrier {
            let mut r = reads(i);
            r.ur = 0;
            if !r.is_empty() {
                let overwrites = |j: &Instruction| writes(j).meets(&r) && j.control.is_none_or(|cj| cj.write_barrier.is_none());
                // The result is written after the operands are read: a wait on it covers them.
                let covering: Vec<u8> = [Some(b), c.write_barrier].into_iter().flatten().collect();
                if let Some((j, waited)) = first_touch(ins, &ctl, n, &covering, overwrites) {
                    dependences += 1;
                    if !waited {
                        violation(ins[j].pc, "operand", format!("`{}` overwrites an operand of `{}` (pc {:#x}, read barrier {b}) before it is read", ins[j].text(), i.text(), i.pc));
                    }
                }
            }
        }
        // fixed latency: distance in stall cycles to the first consumer on a straight line.
        if c.write_barrier.is_none() && !NO_DEST.contains(&i.opcode.as_str()) {
            let w = writes(i);
            if w.is_empty() {
                continue;
            }
            let mut dist = c.stall as u32;
            for j in n + 1..ins.len() {
                if label_pcs.contains(&ins[j].pc) || ends_path(&ins[j - 1]) {
                    break;
                }
                let cj = ctl[j].unwrap_or(c);
                if reads(&ins[j]).meets(&w) {
                    if cj.wait_mask == 0 {
                        let hist = if w.ur != 0 { &mut fixed_uniform } else { &mut fixed };
                        *hist.entry(dist).or_insert(0) += 1;
                    }
                    break;
                }
                if writes(&ins[j]).meets(&w) || cj.wait_mask != 0 {
                    break;
                }
                dist += cj.stall as u32;
            }
        }
    }
    rep.producers = producers;
    rep.dependences = dependences;
    rep.fixed_latency = fixed;
    rep.fixed_latency_uniform = fixed_uniform;
    rep
}

fn rep_push(v: &mut Vec<Violation>, kernel: &str, pc: u32, rule: &'static str, detail: String) {
    v.push(Violation { kernel: kernel.to_string(), pc, rule, detail });
}

/// The first instruction after `n` on its fall-through path that `touches`, and whether one of
/// `barriers` was waited on by then (at it, or before it).
fn first_touch(ins: &[Instruction], ctl: &[Option<crate::Control>], n: usize, barriers: &[u8], touches: impl Fn(&Instruction) -> bool) -> Option<(usize, bool)> {
    if ends_path(&ins[n]) {
        return None;
    }
    for j in n + 1..ins.len() {
        let waited = barriers.iter().any(|&b| ctl[j].is_some_and(|c| c.waits_on(b)) || depbar_waits(&ins[j], b));
        if touches(&ins[j]) {
            return Some((j, waited));
        }
        if waited || ends_path(&ins[j]) {
            return None;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listing(body: &str) -> Kernel {
        let mut s = String::from(".target sm_90\n.section .text.k,\"ax\",@progbits\n");
        for (n, (text, hi)) in body.lines().filter(|l| !l.trim().is_empty()).map(|l| l.split_once('|').unwrap()).enumerate() {
            s.push_str(&format!("/*{:04x}*/ {text} ; /* 0x0000000000000000 */\n/* {} */\n", n * 16, hi.trim()));
        }
        crate::parse(&s).unwrap().kernels.remove(0)
    }

    #[test]
    fn a_waited_load_passes_and_an_unwaited_one_fails() {
        // LDG sets W2; FFMA waits on barrier 2.
        let ok = listing("LDG.E R2, desc[UR4][R2.64] | 0x000ea2000c1e1900\nFFMA R7, R2, UR6, R7 | 0x004fca0008000007\nEXIT | 0x000fea0003800000");
        let r = kernel(&ok);
        assert_eq!((r.producers, r.dependences, r.violations.len()), (1, 1, 0), "{:?}", r.violations);
        let bad = listing("LDG.E R2, desc[UR4][R2.64] | 0x000ea2000c1e1900\nFFMA R7, R2, UR6, R7 | 0x000fca0008000007\nEXIT | 0x000fea0003800000");
        let r = kernel(&bad);
        assert_eq!(r.violations.iter().map(|v| v.rule).collect::<Vec<_>>(), ["result"]);
    }

    #[test]
    fn waits_on_unset_barriers_and_reuse_mismatches_are_reported() {
        let k = listing("FFMA R7, R2.reuse, UR6, R7 | 0x004fca0008000007\nEXIT | 0x000fea0003800000");
        let rules: Vec<_> = kernel(&k).violations.iter().map(|v| v.rule).collect();
        assert_eq!(rules, ["reuse", "wait"]);
    }

    #[test]
    fn fixed_latency_distance_adds_stalls() {
        // IMAD stall 1, MOV stall 4, then the consumer: distance 5.
        let k = listing("IMAD R2, R3, R4, R5 | 0x000fe20000000000\nMOV R6, R7 | 0x000fe80000000000\nFADD R8, R2, R2 | 0x000fca0000000000");
        let r = kernel(&k);
        assert_eq!(r.fixed_latency.get(&5), Some(&1), "{:?}", r.fixed_latency);
        assert_eq!(r.fixed_below(5), 0);
        assert_eq!(r.fixed_below(6), 1);
    }
}
