//! The warp schedulers: each sub-partition picks, every cycle, one eligible warp of its own by
//! the policy of `sm.scheduler` (`gto`, `lrr`, `two-level`; `sm.issue_width` picks per cycle).
//!
//! A warp is eligible when it is not asleep (barrier, mbarrier, copy group), its next
//! instruction's operands are ready by the scoreboard (`next`), the pipe it issues to is free,
//! and, for a load that may miss, one of the L1's miss slots is free; nothing issues on a
//! sub-partition while its dispatch reads an earlier instruction's conflicting register banks.
//! When no warp is eligible the SM's clock skips to `next_event`, the earliest cycle any could be.

use crate::config::SchedulerPolicy;
use crate::warp::WarpState;

use super::pipes::SubPart;
use super::{Dep, Sm, PENDING};

impl Sm {
    /// The earliest cycle any warp could issue (PENDING when none can without a memory response).
    pub fn next_event(&self) -> u64 {
        let mut t = self.events.peek().map_or(PENDING, |r| r.0 .0);
        // A warp waiting for a miss slot waits for the earliest answered one (or, when all are
        // unanswered, for the memory system at the window's end).
        let slot = if self.mshrs_full() { self.mshr_release.peek().map_or(PENDING, |r| r.0) } else { 0 };
        for sp in &self.sps {
            for &wi in &sp.warps {
                if let Some(tw) = &self.warps[wi] {
                    if tw.w.state == WarpState::Ready && tw.next != PENDING {
                        let needs = slot > 0 && tw.needs_mshr;
                        t = t.min(tw.next.max(sp.free_at(tw.unit)).max(sp.dispatch_free).max(if needs { slot } else { 0 }));
                    }
                }
            }
        }
        t
    }

    fn eligible(&self, sp: &SubPart, wi: usize) -> bool {
        let Some(tw) = &self.warps[wi] else { return false };
        if tw.w.state != WarpState::Ready || tw.next > self.now {
            return false;
        }
        sp.free_at(tw.unit) <= self.now && !(tw.needs_mshr && self.mshrs_full())
    }

    fn age(&self, wi: usize) -> u64 {
        self.warps[wi].as_ref().map_or(u64::MAX, |t| t.age)
    }

    /// Greedy then oldest: the warp that issued last, while it stays eligible (and, in machine
    /// code, did not yield), else the oldest eligible one.
    fn pick_gto(&self, sp: &SubPart) -> Option<usize> {
        if sp.warps.get(sp.last).is_some_and(|&wi| self.eligible(sp, wi) && !self.warps[wi].as_ref().is_some_and(|t| t.yielded)) {
            Some(sp.last)
        } else {
            (0..sp.warps.len()).filter(|&i| self.eligible(sp, sp.warps[i])).min_by_key(|&i| self.age(sp.warps[i]))
        }
    }

    /// Loose round robin: the first eligible warp after the one that issued last.
    fn pick_lrr(&self, sp: &SubPart) -> Option<usize> {
        let n = sp.warps.len();
        let start = sp.last % n;
        (1..=n).map(|d| if start + d >= n { start + d - n } else { start + d }).find(|&i| self.eligible(sp, sp.warps[i]))
    }

    /// Two-level: round robin over an active set of the oldest warps not stalled on memory.
    fn pick_two_level(&self, sp: &SubPart) -> Option<usize> {
        let active = self.cfg.sm.two_level_active.max(1) as usize;
        let mut cand: Vec<usize> = sp
            .warps
            .iter()
            .copied()
            .filter(|&wi| self.warps[wi].as_ref().is_some_and(|t| t.next_dep != Dep::Long || t.next <= self.now))
            .collect();
        cand.sort_by_key(|&wi| self.age(wi));
        cand.truncate(active);
        let m = cand.len().max(1);
        let wi = (1..=m).filter_map(|d| cand.get((sp.last + d) % m).copied()).find(|&wi| self.eligible(sp, wi));
        wi.map(|wi| sp.warps.iter().position(|&x| x == wi).expect("candidates are warps of the list"))
    }

    /// Sub-partition `spi`'s pick this cycle by the configured policy: the chosen warp's index
    /// (the scheduler remembers its position in its list).
    pub(super) fn pick(&mut self, spi: usize) -> Option<usize> {
        let sp = &self.sps[spi];
        if sp.warps.is_empty() {
            return None;
        }
        // The chosen warp's position in the sub-partition's list.
        let chosen = match self.cfg.sm.scheduler {
            SchedulerPolicy::Gto => self.pick_gto(sp),
            SchedulerPolicy::Lrr => self.pick_lrr(sp),
            SchedulerPolicy::TwoLevel => self.pick_two_level(sp),
        }?;
        let sp = &mut self.sps[spi];
        sp.last = chosen;
        Some(sp.warps[chosen])
    }
}
