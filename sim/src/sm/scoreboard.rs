//! The scoreboard: when a warp's next instruction has its operands, and why it waits until then.
//!
//! In PTX mode the hardware's register interlock is modelled per register: each has a ready cycle
//! (`PENDING` while a memory response is outstanding) and the kind of producer it waits on, which
//! classifies the stall as Nsight Compute's warp states do (wait, short/long scoreboard, barrier).
//! In machine-code (SASS) mode there is no interlock: the control bits' stall count, the six
//! scoreboard barriers an instruction sets on writeback or operand read, and the wait mask or
//! `DEPBAR` of a later instruction decide. Stall cycles are attributed at each issue.

use crate::counters::Stall;

use super::Sm;

/// Register ready time meaning "waiting for a memory response".
pub const PENDING: u64 = u64::MAX;

/// What a warp waits on (for stall attribution).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Dep {
    #[default]
    None,
    /// A fixed-latency ALU result.
    Fixed,
    /// Shared memory, SFU, warp collectives (the MIO path).
    Short,
    /// Global/local memory through L1TEX.
    Long,
    Barrier,
    /// A divergent branch resolving its targets.
    Branch,
    /// The CTA was just launched.
    Launch,
}

/// The warp state a warp waiting on `d` is in (an index of `SmStats::stall_cycles`).
fn stall_index(d: Dep) -> usize {
    let s = match d {
        Dep::Fixed => Stall::Wait,
        Dep::Short => Stall::ShortScoreboard,
        Dep::Long => Stall::LongScoreboard,
        Dep::Barrier => Stall::Barrier,
        Dep::Branch => Stall::BranchResolving,
        Dep::None | Dep::Launch => Stall::Misc,
    };
    s as usize
}

/// The cycle from which at most `n` of a scoreboard barrier's counted releases are outstanding
/// (`PENDING` while that depends on a memory response).
fn barrier_free_at(times: &[u64], n: usize) -> u64 {
    if times.len() <= n {
        return 0;
    }
    if n == 0 {
        // A wait mask: every release (the common case, without sorting).
        return times.iter().copied().max().unwrap_or(0);
    }
    let mut t: Vec<u64> = times.to_vec();
    t.sort_unstable_by(|a, b| b.cmp(a));
    t[n]
}

impl Sm {
    /// Stall accounting for warp `wi` issuing at `now`: the cycles since its last issue go to
    /// what it waited on until it was ready, then to "not selected"; the issue cycle is
    /// "selected". Returns the warp's pc, CTA slot and sub-partition.
    pub(super) fn account_issue(&mut self, wi: usize, now: u64) -> (u32, usize, usize) {
        let tw = self.warps[wi].as_mut().expect("eligible warp exists");
        let ready = tw.next.min(now).max(tw.accounted);
        self.stats.stall_cycles[stall_index(tw.next_dep)] += ready - tw.accounted;
        self.stats.stall_cycles[Stall::NotSelected as usize] += now - ready;
        self.stats.stall_cycles[Stall::Selected as usize] += 1;
        tw.accounted = now + 1;
        (tw.w.pc(), tw.cta, tw.sp)
    }

    /// Earliest cycle the warp's next instruction may issue, from the scoreboard, and its pipe.
    pub(super) fn refresh(&mut self, wi: usize) {
        let Some(tw) = self.warps[wi].as_mut() else { return };
        let pc = tw.w.pc();
        tw.unit = self.table.unit(pc);
        let Some(info) = self.table.insts.get(pc as usize) else { return };
        tw.needs_mshr = info.needs_mshr;
        let (mut t, mut dep) = (tw.next, tw.next_dep);
        if let Some(c) = self.table.ctl.get(pc as usize) {
            // Machine code: the stall count is in `next`; the wait mask and a DEPBAR name the
            // scoreboard barriers that must be released (the hardware has no register interlock).
            let waits = (0..6u8).filter(|b| c.wait_mask >> b & 1 == 1).map(|b| (b, 0)).chain(c.depbar.map(|(b, n)| (b, n as usize)));
            for (b, n) in waits {
                let Some(times) = tw.sb.get_mut(b as usize) else { continue };
                let now = self.now;
                times.retain(|&x| x > now);
                let free = barrier_free_at(times, n);
                if free > t {
                    t = free;
                    dep = tw.sb_dep[b as usize];
                }
            }
            tw.next = t;
            tw.next_dep = dep;
            return;
        }
        for &r in &self.table.regs[info.regs.0 as usize..info.regs.1 as usize] {
            let rr = tw.reg_ready[r as usize];
            if rr > t {
                t = rr;
                dep = tw.reg_dep[r as usize];
            }
        }
        tw.next = t;
        tw.next_dep = dep;
    }

    /// Machine code: an issued instruction's result barrier releases at writeback (`PENDING`
    /// until its memory response, `token`, arrives), its operand barrier once the pipe has read
    /// the operands (`read_lat`); the next instruction waits out the stall count.
    pub(super) fn set_barriers(&mut self, wi: usize, c: &warpsim_isa::control::Control, done: Option<u64>, dep: Dep, read_lat: u64) {
        let now = self.now;
        let tw = self.warps[wi].as_mut().expect("warp exists");
        if let Some(b) = c.write_barrier {
            tw.sb[b as usize].push(done.unwrap_or(PENDING));
            tw.sb_dep[b as usize] = if dep == Dep::Long { Dep::Long } else { Dep::Short };
        }
        if let Some(b) = c.read_barrier {
            tw.sb[b as usize].push(now + read_lat);
            if tw.sb[b as usize].len() == 1 {
                tw.sb_dep[b as usize] = Dep::Short;
            }
        }
        tw.yielded = c.yields;
        let issue_done = now + u64::from(c.stall.max(1));
        if tw.next <= issue_done {
            tw.next = issue_done;
            tw.next_dep = Dep::Fixed;
        }
    }

    /// PTX mode: the instruction's destination registers become ready at `done` (`None`: when
    /// its memory response arrives), and the warp's next issue waits for the `busy` cycles this
    /// one takes to issue.
    pub(super) fn set_registers(&mut self, wi: usize, pc: u32, done: Option<u64>, dep: Dep, busy: u64) {
        let now = self.now;
        let tw = self.warps[wi].as_mut().expect("warp exists");
        for &r in &self.k.prog.insts[pc as usize].defs {
            tw.reg_ready[r as usize] = done.unwrap_or(PENDING);
            tw.reg_dep[r as usize] = dep;
        }
        // `timing` may have pushed `next` further (wgmma.wait_group): keep that and its cause.
        let issue_done = now + busy;
        if tw.next <= issue_done {
            tw.next = issue_done;
            tw.next_dep = Dep::Fixed;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scoreboard_barrier_counts_its_releases() {
        let t = [10, 30, 20];
        // A wait mask waits for every release; DEPBAR.LE n for all but n of them.
        assert_eq!(barrier_free_at(&t, 0), 30);
        assert_eq!(barrier_free_at(&t, 1), 20);
        assert_eq!(barrier_free_at(&t, 2), 10);
        assert_eq!(barrier_free_at(&t, 3), 0);
        // A release still waiting for a memory response holds the barrier until it arrives.
        assert_eq!(barrier_free_at(&[PENDING, 5], 0), PENDING);
        assert_eq!(barrier_free_at(&[PENDING, 5], 1), 5);
        assert_eq!(barrier_free_at(&[], 0), 0);
    }
}
