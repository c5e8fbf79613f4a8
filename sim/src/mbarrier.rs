//! `mbarrier` objects: the 64-bit shared-memory barriers of Ampere and Hopper.
//!
//! A barrier counts pending arrivals and an (signed) transaction byte count; a phase completes
//! when both reach zero, at which point the phase parity flips, the arrival count reloads from
//! the expected count and the transaction count resets. The state lives in the barrier's 8 bytes
//! of shared memory, encoded here, so reads and writes of those bytes by a program see a
//! consistent (if implementation-specific) value, and the "state" token `arrive` returns carries
//! the phase it arrived in.
//!
//! Layout: bits 0–19 pending arrivals, 20–39 expected arrivals, 40–60 transaction count (21-bit
//! two's complement), bit 63 phase parity.

const COUNT_MASK: u64 = (1 << 20) - 1;
const TX_BITS: u32 = 21;
const TX_MASK: u64 = (1 << TX_BITS) - 1;

/// A decoded barrier.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mbar {
    pub pending: u32,
    pub expected: u32,
    pub tx: i32,
    pub phase: bool,
}

impl Mbar {
    /// The barrier stored at `off` of `smem` (missing bytes read as zero).
    pub fn read(smem: &[u8], off: u64) -> Mbar {
        let mut b = [0u8; 8];
        let r = (off as usize).min(smem.len())..(off as usize).saturating_add(8).min(smem.len());
        b[..r.len()].copy_from_slice(&smem[r]);
        Mbar::decode(u64::from_le_bytes(b))
    }

    /// What a warp asleep on this barrier waits for, for deadlock reports: `where_` names the
    /// barrier's CTA.
    pub fn describe_wait(&self, off: u64, where_: &str, waiting_phase: bool) -> String {
        format!(
            "mbarrier at shared {off:#x} of {where_} in phase {} (parity now {}): {} of {} arrivals pending, tx-count {} bytes",
            waiting_phase as u8, self.phase as u8, self.pending, self.expected, self.tx
        )
    }

    pub fn decode(v: u64) -> Mbar {
        let raw_tx = (v >> 40) & TX_MASK;
        let tx = ((raw_tx << (64 - TX_BITS)) as i64 >> (64 - TX_BITS)) as i32;
        Mbar { pending: (v & COUNT_MASK) as u32, expected: ((v >> 20) & COUNT_MASK) as u32, tx, phase: v >> 63 == 1 }
    }

    pub fn encode(&self) -> u64 {
        (self.pending as u64 & COUNT_MASK)
            | (self.expected as u64 & COUNT_MASK) << 20
            | ((self.tx as i64 as u64) & TX_MASK) << 40
            | (self.phase as u64) << 63
    }

    /// `mbarrier.init` with the expected arrival count.
    pub fn init(count: u32) -> Mbar {
        Mbar { pending: count, expected: count, tx: 0, phase: false }
    }

    /// Completes the phase if nothing is pending; returns whether it did.
    fn settle(&mut self) -> bool {
        if self.pending == 0 && self.tx == 0 {
            self.phase = !self.phase;
            self.pending = self.expected;
            return true;
        }
        false
    }

    /// An arrive-on of `count` arrivals, optionally adding `tx` expected bytes first and dropping
    /// the arrivals from future phases (`arrive_drop`). Returns the state token (the barrier as
    /// it was) and whether a phase completed.
    pub fn arrive(&mut self, count: u32, tx: i32, drop: bool) -> (u64, bool) {
        let token = self.encode();
        self.tx = self.tx.wrapping_add(tx);
        self.pending = self.pending.saturating_sub(count);
        if drop {
            self.expected = self.expected.saturating_sub(count);
        }
        (token, self.settle())
    }

    /// `expect_tx` (positive) / `complete_tx` (negative): adjusts the transaction count.
    pub fn transact(&mut self, delta: i32) -> bool {
        self.tx = self.tx.wrapping_add(delta);
        self.settle()
    }

    /// Whether the phase a `state` token arrived in has completed.
    pub fn phase_done(&self, state: u64) -> bool {
        (state >> 63 == 1) != self.phase
    }

    /// Whether the phase with parity `parity` has completed (`test_wait.parity`): the current
    /// phase has the other parity.
    pub fn parity_done(&self, parity: bool) -> bool {
        parity != self.phase
    }
}

/// `mbarrier.pending_count`: the pending arrivals recorded in a state token.
pub fn pending_count(state: u64) -> u32 {
    (state & COUNT_MASK) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phase_completes_on_arrivals_and_bytes() {
        let mut b = Mbar::init(2);
        let (t0, done) = b.arrive(1, 8192, false);
        assert!(!done);
        assert!(!b.phase_done(t0));
        // The second arrival alone does not complete: 8192 bytes are outstanding.
        let (_, done) = b.arrive(1, 0, false);
        assert!(!done);
        assert!(!b.transact(-4096));
        assert!(b.transact(-4096));
        assert!(b.phase_done(t0));
        assert_eq!((b.pending, b.tx, b.phase), (2, 0, true));
    }

    #[test]
    fn expect_tx_of_two_copies_needs_all_bytes() {
        // expect_tx of 2 × 4096 bytes needs 8192 bytes to complete.
        let mut b = Mbar::init(1);
        b.transact(4096);
        b.transact(4096);
        assert!(!b.arrive(1, 0, false).1);
        assert!(!b.transact(-4096));
        assert!(b.transact(-4096));
    }

    #[test]
    fn parity_waits_in_a_three_stage_ring() {
        // Three stages, each barrier used every third iteration: the consumer waits on parity
        // (iteration / 3) & 1.
        let mut ring = [Mbar::init(1), Mbar::init(1), Mbar::init(1)];
        for it in 0..12u32 {
            let s = (it % 3) as usize;
            let parity = (it / 3) & 1 == 1;
            assert!(!ring[s].parity_done(parity), "iteration {it} must wait");
            ring[s].arrive(1, 0, false);
            assert!(ring[s].parity_done(parity), "iteration {it} completes");
        }
    }

    #[test]
    fn arrive_drop_and_encoding_roundtrip() {
        let mut b = Mbar::init(3);
        b.arrive(1, -5, true);
        assert_eq!(Mbar::decode(b.encode()), b);
        assert_eq!(b.expected, 2);
        assert_eq!(b.tx, -5);
        assert_eq!(pending_count(b.encode()), 2);
    }
}
