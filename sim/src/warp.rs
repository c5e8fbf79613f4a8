//! A warp's architectural state: registers (structure of arrays: one register is 32 lanes side
//! by side), the SIMT reconvergence stack, the call stack, and per-lane local memory.
//!
//! The SIMT stack follows the immediate-post-dominator scheme: the top entry is what executes;
//! a divergent branch turns the top into the reconvergence entry and pushes one entry per path;
//! an entry whose `pc` reaches its `rpc` pops. Calls push a frame that remembers the stack depth
//! at the call, so `ret` (a jump to the function's exit) pops back into the caller.

use warpsim_isa::program::{Program, RECONV_EXIT, RECONV_HOLD};

/// One SIMT stack entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SimtEntry {
    pub pc: u32,
    pub rpc: u32,
    pub mask: u32,
    /// The entry's first arrival at `rpc` goes on instead of reconverging ([`RECONV_HOLD`]).
    pub hold: bool,
}

/// An active call.
#[derive(Debug, Clone, PartialEq)]
pub struct CallFrame {
    pub func: u32,
    /// SIMT stack depth below the callee's entries: when the stack shrinks to it, the call returned.
    pub depth: usize,
    /// Caller's frame base (restored on return); the callee's frame starts at the caller's end.
    pub caller_base: u64,
    /// Caller-side `.param` symbols receiving return values (copied from the callee's formals).
    pub ret_syms: Vec<u32>,
    /// Callee registers saved because the callee was already active (recursion).
    pub saved_regs: Option<Vec<u64>>,
}

/// Why a warp is not issuing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WarpState {
    Ready,
    /// Waiting at CTA barrier `id`.
    AtBarrier(u32),
    /// Waiting in `barrier.cluster.wait` for the cluster's arrival phase to complete.
    AtClusterBarrier,
    /// Asleep in `mbarrier.try_wait` until the barrier at `off` of cluster CTA `cta` leaves `phase`.
    AtMbarrier { cta: u32, off: u64, phase: bool },
    /// Waiting for asynchronous copy groups (`cp.async.wait_group`, bulk `wait_group`).
    AtAsyncWait,
    Done,
}

impl WarpState {
    /// The instruction a warp in this state waits at, given its pc: a sleeping `mbarrier.try_wait`
    /// runs again on waking, so it is at the pc; the other waits are behind it.
    pub fn waiting_pc(self, pc: u32) -> u32 {
        match self {
            WarpState::AtMbarrier { .. } => pc,
            _ => pc.saturating_sub(1),
        }
    }
}

pub struct Warp {
    /// Warp index within its CTA.
    pub slot: u32,
    pub regs: Vec<u64>,
    /// CC.CF carry flag per lane.
    pub carry: u32,
    pub stack: Vec<SimtEntry>,
    pub calls: Vec<CallFrame>,
    /// Lanes that exist (a CTA whose size is not a multiple of 32 has a partial last warp).
    pub valid: u32,
    /// Lanes that executed `exit`/kernel `ret`.
    pub exited: u32,
    /// Per-lane local memory (frames of `.local` and `.param` variables), grown on demand.
    pub local: Vec<Vec<u8>>,
    /// Base of the current function's frame in local space.
    pub frame_base: u64,
    pub state: WarpState,
    /// Warp instructions issued (the functional clock).
    pub issued: u64,
    /// Destination register of a pending `bar.red` and its kind.
    pub pending_red: Option<(u32, warpsim_isa::inst::BarOp)>,
    /// `barrier.cluster` phase this warp has arrived for.
    pub cluster_phase: u32,
}

impl Warp {
    pub fn new(slot: u32, threads: u32, prog: &Program) -> Warp {
        let mut w = Warp {
            slot,
            regs: Vec::new(),
            carry: 0,
            stack: Vec::new(),
            calls: Vec::new(),
            valid: 0,
            exited: 0,
            local: Vec::new(),
            frame_base: 0,
            state: WarpState::Ready,
            issued: 0,
            pending_red: None,
            cluster_phase: 0,
        };
        w.reset(slot, threads, prog);
        w
    }

    /// Makes this a fresh warp `slot` of a CTA of `threads` threads (registers zero, at the
    /// entry), keeping its buffers: the timing model recycles retired warps this way.
    pub fn reset(&mut self, slot: u32, threads: u32, prog: &Program) {
        let first = slot * 32;
        let n = threads.saturating_sub(first).min(32);
        let valid = if n == 32 { u32::MAX } else { (1u32 << n) - 1 };
        self.slot = slot;
        self.regs.clear();
        self.regs.resize(prog.regs.len() * 32, 0);
        self.carry = 0;
        self.stack.clear();
        self.stack.push(SimtEntry { pc: 0, rpc: RECONV_EXIT, mask: valid, hold: false });
        self.calls.clear();
        self.valid = valid;
        self.exited = 0;
        self.local.clear();
        self.frame_base = 0;
        self.state = WarpState::Ready;
        self.issued = 0;
        self.pending_red = None;
        self.cluster_phase = 0;
    }

    #[inline]
    pub fn pc(&self) -> u32 {
        self.stack.last().map_or(RECONV_EXIT, |e| e.pc)
    }

    #[inline]
    pub fn active(&self) -> u32 {
        self.stack.last().map_or(0, |e| e.mask)
    }

    #[inline]
    pub fn reg(&self, r: u32, lane: usize) -> u64 {
        self.regs[r as usize * 32 + lane]
    }

    #[inline]
    pub fn set_reg(&mut self, r: u32, lane: usize, v: u64) {
        self.regs[r as usize * 32 + lane] = v;
    }

    /// Register `r`, all 32 lanes.
    #[inline(always)]
    pub fn lanes(&self, r: u32) -> &[u64; 32] {
        self.regs[r as usize * 32..][..32].try_into().expect("a register has 32 lanes")
    }

    #[inline(always)]
    pub fn lanes_mut(&mut self, r: u32) -> &mut [u64; 32] {
        (&mut self.regs[r as usize * 32..][..32]).try_into().expect("a register has 32 lanes")
    }

    /// Moves the top entry to `pc`.
    #[inline]
    pub fn jump(&mut self, pc: u32) {
        if let Some(t) = self.stack.last_mut() {
            t.pc = pc;
        }
    }

    /// Splits the top entry at a divergent branch: `taken` lanes go to `target`, the rest to
    /// `fall`, both reconverging at `rpc`.
    /// An `rpc` flagged [`RECONV_HOLD`] makes both paths hold (pass their first arrival); a
    /// path already holding for that point splits into two that hold as it did.
    pub fn diverge(&mut self, taken: u32, target: u32, fall: u32, rpc: u32) {
        let Some(top) = self.stack.last_mut() else { return };
        let not_taken = top.mask & !taken;
        let (rpc, hold) = if rpc != RECONV_EXIT && rpc & RECONV_HOLD != 0 {
            let end = rpc & !RECONV_HOLD;
            if top.rpc == end {
                let hold = top.hold;
                self.stack.pop();
                (end, hold)
            } else {
                top.pc = end;
                (end, true)
            }
        } else {
            top.pc = rpc;
            (rpc, false)
        };
        self.stack.push(SimtEntry { pc: fall, rpc, mask: not_taken, hold });
        self.stack.push(SimtEntry { pc: target, rpc, mask: taken, hold });
    }

    /// Pops finished entries. Returns true while the warp has work left. Returned calls are
    /// reported through `on_return` (with the frame) so the caller can copy return values.
    pub fn settle(&mut self, mut on_return: impl FnMut(&mut Warp, CallFrame)) -> bool {
        loop {
            let Some(top) = self.stack.last().copied() else {
                return false;
            };
            if top.mask != 0 && top.pc != top.rpc {
                return true;
            }
            if top.mask != 0 && top.hold {
                if let Some(t) = self.stack.last_mut() {
                    t.hold = false;
                }
                return true;
            }
            self.stack.pop();
            if let Some(frame) = self.calls.last() {
                if self.stack.len() == frame.depth {
                    if let Some(frame) = self.calls.pop() {
                        on_return(self, frame);
                    }
                }
            }
        }
    }

    /// Bytes of per-lane local memory available.
    pub fn ensure_local(&mut self, bytes: u64) {
        if self.local.is_empty() {
            self.local = vec![Vec::new(); 32];
        }
        for l in &mut self.local {
            if (l.len() as u64) < bytes {
                l.resize(bytes as usize, 0);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use warpsim_isa::program::RECONV_HOLD;

    fn prog() -> Program {
        warpsim_isa::load(".version 9.0\n.target sm_90\n.entry k()\n{\n.reg .b32 %r<3>;\nret;\n}\n", "t.ptx").unwrap().remove(0)
    }

    #[test]
    fn partial_last_warp() {
        let p = prog();
        assert_eq!(Warp::new(0, 48, &p).valid, u32::MAX);
        assert_eq!(Warp::new(1, 48, &p).valid, 0xFFFF);
        assert_eq!(Warp::new(0, 48, &p).regs.len(), 3 * 32);
    }

    #[test]
    fn diverge_and_reconverge() {
        let p = prog();
        let mut w = Warp::new(0, 32, &p);
        w.jump(1);
        w.diverge(0x0000_FFFF, 10, 2, 20);
        assert_eq!(w.pc(), 10);
        assert_eq!(w.active(), 0xFFFF);
        w.jump(20);
        assert!(w.settle(|_, _| {}));
        assert_eq!(w.pc(), 2);
        assert_eq!(w.active(), 0xFFFF_0000);
        w.jump(20);
        assert!(w.settle(|_, _| {}));
        assert_eq!((w.pc(), w.active()), (20, u32::MAX));
        w.jump(RECONV_EXIT);
        assert!(!w.settle(|_, _| {}));
    }

    #[test]
    fn held_paths_pass_their_first_arrival_and_meet_at_the_next() {
        let p = prog();
        let mut w = Warp::new(0, 32, &p);
        w.jump(1);
        // A loop exit out of a yielding region ending at 20: lane 0 leaves, the rest loop.
        w.diverge(!1, 5, 19, 20 | RECONV_HOLD);
        assert_eq!((w.pc(), w.active()), (5, !1));
        // The looping lanes split again: each part holds as they did.
        w.diverge(!3, 5, 19, 20 | RECONV_HOLD);
        assert_eq!(w.stack.len(), 4);
        w.jump(20);
        assert!(w.settle(|_, _| {}));
        assert_eq!((w.pc(), w.active()), (20, !3), "the first arrival goes on");
        w.jump(30);
        assert!(w.settle(|_, _| {}));
        w.jump(20);
        assert!(w.settle(|_, _| {}));
        assert_eq!((w.pc(), w.active()), (19, 2), "the second arrival waits");
        for _ in 0..2 {
            w.jump(20);
            assert!(w.settle(|_, _| {}));
        }
        assert_eq!((w.pc(), w.active()), (19, 1));
        w.jump(20);
        assert!(w.settle(|_, _| {}));
        w.jump(20);
        assert!(w.settle(|_, _| {}));
        assert_eq!((w.pc(), w.active()), (20, u32::MAX), "all meet where the region ends");
    }
}
