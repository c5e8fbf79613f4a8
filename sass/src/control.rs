//! The scheduling control bits every Volta+ instruction carries in its 128-bit encoding.
//!
//! ptxas, not the hardware, resolves most hazards on Volta and later: each instruction says how
//! long the warp must stall before issuing the next one, which scoreboard barrier (of six) its
//! variable-latency result or operand read releases, and which barriers it waits on. Jia et al.
//! 2018 ("Dissecting the NVIDIA Volta GPU Architecture via Microbenchmarking", §2.1) give the
//! layout: bits 105–125 of the instruction word, least significant first,
//!
//! | bits    | width | field                                               |
//! |---------|-------|-----------------------------------------------------|
//! | 105–108 | 4     | stall cycles                                        |
//! | 109     | 1     | yield flag                                          |
//! | 110–112 | 3     | write scoreboard barrier (7 = none)                 |
//! | 113–115 | 3     | read scoreboard barrier (7 = none)                  |
//! | 116–121 | 6     | wait mask (bit *i*: wait on barrier *i*)            |
//! | 122–125 | 4     | operand reuse flags (bit *i*: source slot *i*)      |
//!
//! and bits 126–127 are zero. The same layout holds for sm_75, sm_80, sm_86, sm_89 and sm_90
//! (and for sm_70, the paper's subject): DESIGN.md ("The SASS front end") says how that was
//! verified on every target, and `check` is the verifier. This module only decodes; what the
//! fields cost in time is the timing model's business.

use serde::Serialize;

/// The decoded control bits of one instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Control {
    /// Cycles the warp waits before its next instruction may issue (0–15).
    pub stall: u8,
    /// The yield flag as encoded (CuAssembler prints `Y` when it is set).
    pub yield_flag: bool,
    /// The scoreboard barrier (0–5) the instruction's result releases when written.
    pub write_barrier: Option<u8>,
    /// The scoreboard barrier (0–5) released once the instruction has read its operands.
    pub read_barrier: Option<u8>,
    /// Barriers (bit *i* = barrier *i*) that must be released before this instruction issues.
    pub wait_mask: u8,
    /// Operand reuse-cache flags (bit *i* = source operand slot *i*).
    pub reuse: u8,
}

/// The first bit of the control field in the 128-bit word.
pub const CONTROL_SHIFT: u32 = 105;

impl Control {
    /// Decodes bits 105–125 of a Volta-to-Hopper instruction word.
    pub fn decode(encoding: u128) -> Control {
        let c = (encoding >> CONTROL_SHIFT) as u32 & 0x1f_ffff;
        let barrier = |v: u32| (v != 7).then_some(v as u8);
        Control {
            stall: (c & 0xf) as u8,
            yield_flag: c >> 4 & 1 == 1,
            write_barrier: barrier(c >> 5 & 7),
            read_barrier: barrier(c >> 8 & 7),
            wait_mask: (c >> 11 & 0x3f) as u8,
            reuse: (c >> 17 & 0xf) as u8,
        }
    }

    /// Waits on barrier `b`?
    pub fn waits_on(&self, b: u8) -> bool {
        b < 6 && self.wait_mask >> b & 1 == 1
    }

    /// CuAssembler's notation, `B--2---:R-:W1:Y:S04`, with `:U0-2-` appended when reuse flags are
    /// set (the source slots whose operand is kept in the reuse cache).
    pub fn compact(&self) -> String {
        let mut s = String::from("B");
        for b in 0..6 {
            s.push(if self.waits_on(b) { char::from(b'0' + b) } else { '-' });
        }
        let idx = |b: Option<u8>| b.map_or('-', |b| char::from(b'0' + b));
        s.push_str(&format!(":R{}:W{}:{}:S{:02}", idx(self.read_barrier), idx(self.write_barrier), if self.yield_flag { 'Y' } else { '-' }, self.stall));
        if self.reuse != 0 {
            s.push_str(":U");
            for slot in 0..4 {
                s.push(if self.reuse >> slot & 1 == 1 { char::from(b'0' + slot) } else { '-' });
            }
        }
        s
    }
}

/// True when bits 126–127 (above the control field) are zero, as on every instruction ptxas
/// emits for Volta to Hopper.
pub fn top_bits_clear(encoding: u128) -> bool {
    encoding >> 126 == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn word(lo: u64, hi: u64) -> u128 {
        (hi as u128) << 64 | lo as u128
    }

    #[test]
    fn decodes_sm90_words() {
        // LDG.E R2, desc[UR4][R2.64]: sets write barrier 2, stall 1.
        let c = Control::decode(word(0x0000000402027981, 0x000ea2000c1e1900));
        assert_eq!(c, Control { stall: 1, yield_flag: true, write_barrier: Some(2), read_barrier: None, wait_mask: 0, reuse: 0 });
        // FFMA R7, R2, UR6, R7 waits on barrier 2.
        let c = Control::decode(word(0x0000000602077c23, 0x004fca0008000007));
        assert_eq!((c.stall, c.write_barrier, c.wait_mask), (5, None, 0b100));
        assert_eq!(c.compact(), "B--2---:R-:W-:-:S05");
        // EXIT: stall 5, yield set, nothing else.
        let c = Control::decode(word(0x000000000000794d, 0x000fea0003800000));
        assert_eq!(c.compact(), "B------:R-:W-:Y:S05");
        assert!(top_bits_clear(word(0, 0x000fea0003800000)));
        assert!(!top_bits_clear(word(0, 0x4000000000000000)));
    }

    #[test]
    fn reuse_flags_are_the_top_four_bits() {
        let c = Control::decode(word(0, 0b0101 << 58));
        assert_eq!(c.reuse, 0b0101);
        assert!(c.compact().ends_with(":U0-2-"), "{}", c.compact());
    }
}
