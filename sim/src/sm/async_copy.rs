//! Asynchronous copies in time: Ampere `cp.async` commit groups, Hopper's bulk copies and the
//! tensor memory accelerator (TMA), and the mbarrier events they complete.
//!
//! An instruction's functional step (`exec_async`, `tma` for the tile layout) moves the data at
//! once and reports what the hardware would do later as [`AsyncEvent`]s: the global lines it
//! reads or writes, group commits, and mbarrier `complete_tx`/arrive events. Here those lines
//! become L2 requests on a token; when the token's last response arrives the copy's group retires
//! (waking `cp.async.wait_group` sleepers and `cp.async.mbarrier.arrive`) and its mbarrier
//! events are applied `misc.tma_latency` later through a timed event queue. Warps sleeping on an
//! mbarrier phase or a cluster barrier wake here when their cluster's state moves on.

use crate::cluster::Arena;
use crate::exec::{AsyncEvent, AsyncGroup};
use crate::exec_async::{apply_event, phase_of};
use crate::l2::{MemReq, ReqKind};
use crate::warp::WarpState;

use super::lsu::{OutReq, Token};
use super::{Dep, Sm, TWarp};

/// One asynchronous copy group of a warp.
#[derive(Debug, Clone, Copy)]
pub(super) struct Group {
    id: u64,
    outstanding: u32,
    committed: bool,
}

impl TWarp {
    /// Committed groups still in flight of one kind.
    pub(super) fn pending_groups(&self, kind: usize) -> u32 {
        self.groups[kind].iter().filter(|g| g.committed && g.outstanding > 0).count() as u32
    }

    /// The open (uncommitted) group of a kind, created on demand.
    fn open_group(&mut self, kind: usize, id: u64) -> &mut Group {
        if self.groups[kind].back().is_none_or(|g| g.committed) {
            self.groups[kind].push_back(Group { id, outstanding: 0, committed: false });
        }
        self.groups[kind].back_mut().expect("just pushed")
    }

    /// Whether every Ampere `cp.async` copy of the warp has arrived.
    fn copies_done(&self) -> bool {
        self.groups[0].iter().all(|g| g.outstanding == 0)
    }
}

impl Sm {
    /// Turns an instruction's asynchronous copies into memory requests whose completion applies
    /// their mbarrier events or retires their copy group.
    pub(super) fn start_async(&mut self, wi: usize, cl: usize) {
        let now = self.now;
        let mut mbar_events = Vec::new();
        for ev in std::mem::take(&mut self.asyncs) {
            match ev {
                AsyncEvent::CompleteTx { .. } => mbar_events.push(ev),
                AsyncEvent::ArriveAfterCopies { .. } => {
                    let tw = self.warps[wi].as_mut().expect("warp exists");
                    if tw.copies_done() {
                        self.schedule(now, cl, ev);
                    } else {
                        tw.after_copies.push(ev);
                    }
                }
                AsyncEvent::Commit { bulk } => {
                    let id = self.next_group;
                    self.next_group += 1;
                    let tw = self.warps[wi].as_mut().expect("warp exists");
                    tw.open_group(bulk as usize, id).committed = true;
                }
                AsyncEvent::Traffic { global, write, group } => self.copy_traffic(wi, cl, &global, write, group, &mut mbar_events),
            }
        }
        // Events without traffic (shared → shared copies, st.async) complete after the latency.
        let lat = self.cfg.misc.dsmem_latency as u64;
        for ev in mbar_events {
            self.schedule(now + lat, cl, ev);
        }
    }

    /// One copy's global lines: a token counting their responses, in the warp's open copy group
    /// or (for an mbarrier-completed copy) carrying the mbarrier events seen so far, and one
    /// full-line request per line.
    fn copy_traffic(&mut self, wi: usize, cl: usize, global: &[(u64, u8)], write: bool, group: AsyncGroup, mbar_events: &mut Vec<AsyncEvent>) {
        let now = self.now;
        if group == AsyncGroup::CpAsync && !global.is_empty() {
            // ncu counts an Ampere `cp.async` (LDGSTS) among the L1's global loads: one request
            // per warp instruction, the sectors its lanes touch (H200 cpasync_gemm: 1024 requests,
            // 16384 sectors of 16-byte copies).
            self.stats.l1_requests_global_ld += 1;
            self.stats.l1_sectors_global_ld += global.iter().map(|l| u64::from(l.1.count_ones())).sum::<u64>();
        }
        let group_ref = match group {
            AsyncGroup::Mbarrier => None,
            AsyncGroup::CpAsync | AsyncGroup::Bulk => {
                let kind = (group == AsyncGroup::Bulk) as usize;
                let id = self.next_group;
                self.next_group += 1;
                let tw = self.warps[wi].as_mut().expect("warp exists");
                let g = tw.open_group(kind, id);
                g.outstanding += 1;
                Some((kind, g.id))
            }
        };
        let actions = if group == AsyncGroup::Mbarrier { std::mem::take(mbar_events) } else { Vec::new() };
        let t = self.new_token(Token { warp: wi, regs: Vec::new(), outstanding: global.len() as u32, ready: now, dep: Dep::Long, actions, group: group_ref, sb: None });
        if global.is_empty() {
            self.complete_token(t, cl);
        }
        let kind = if write { ReqKind::Write } else { ReqKind::Read };
        for &(line, _) in global {
            let req = MemReq { t: now, sm: self.id, line, sectors: 0xF, full: 0xF, kind, ops: 0, words: 0, lookups: 0, partial: 0, red: false };
            self.outbox.push(OutReq { req, token: Some(t), mshr: false });
        }
    }

    /// Schedules an mbarrier event of cluster `cl` (the event names the CTA by rank).
    pub(super) fn schedule(&mut self, t: u64, cl: usize, ev: AsyncEvent) {
        let i = self.event_slab.len() as u64;
        self.event_slab.push(Some((cl, ev)));
        self.events.push(std::cmp::Reverse((t, i)));
    }

    /// Applies the mbarrier events that are due; returns whether any was.
    pub(super) fn process_events(&mut self, arena: &mut Arena) -> bool {
        let mut applied = false;
        while let Some(&std::cmp::Reverse((t, i))) = self.events.peek() {
            if t > self.now {
                break;
            }
            self.events.pop();
            applied = true;
            let Some((cl, ev)) = self.event_slab[i as usize].take() else { continue };
            if let AsyncEvent::CompleteTx { cta, mbar, .. } | AsyncEvent::ArriveAfterCopies { cta, mbar, .. } = ev {
                if let Some(c) = arena.clusters.get_mut(cl).and_then(|c| c.as_mut()) {
                    if let Some(shared) = c.ctas.get_mut(cta) {
                        apply_event(&mut shared.smem, mbar, &ev);
                    }
                }
                arena.touch(cl);
            }
        }
        if self.events.is_empty() {
            self.event_slab.clear();
        }
        applied
    }

    /// Wakes this SM's warps of cluster `cl` whose mbarrier phase or cluster barrier has moved
    /// on (the GPC calls it for every SM after a change to the cluster).
    pub fn wake(&mut self, arena: &Arena, cl: usize) {
        let now = self.now;
        // A woken `try_wait` runs again. In machine code its `SYNCS ... TRYWAIT` then pays the
        // round trip itself, through its scoreboard barrier, after the release has reached the
        // sleeping warp (`misc.mbarrier_wake_latency`); PTX mode charges the round trip here.
        let m = &self.cfg.misc;
        let wake_lat = u64::from(if self.table.ctl.is_empty() { m.mbarrier_latency } else { m.mbarrier_wake_latency });
        let (mbar_t, cbar_t) = (now + wake_lat, now + u64::from(m.cluster_barrier_latency));
        let Some(c) = arena.clusters.get(cl).and_then(|c| c.as_ref()) else { return };
        for slot in self.ctas.iter().flatten().filter(|s| s.cluster == cl) {
            for &w in &slot.warps {
                let Some(tw) = self.warps[w].as_mut() else { continue };
                let wake = match tw.w.state {
                    WarpState::AtMbarrier { cta, off, phase } => {
                        c.ctas.get(cta as usize).is_some_and(|x| phase_of(&x.smem, off) != phase).then_some((mbar_t, Dep::Long))
                    }
                    WarpState::AtClusterBarrier if c.phase >= tw.w.cluster_phase => Some((cbar_t, Dep::Barrier)),
                    _ => None,
                };
                if let Some((t, dep)) = wake {
                    tw.w.state = WarpState::Ready;
                    tw.next = tw.next.max(t);
                    tw.next_dep = dep;
                }
            }
        }
    }

    /// A copy token's data has all arrived at `t`: schedule its mbarrier events or retire its
    /// group (waking `wait_group` sleepers and `cp.async.mbarrier.arrive`).
    pub(super) fn complete_token(&mut self, ti: u32, cl: usize) {
        let Some(tok) = self.tokens[ti as usize].take() else { return };
        self.free_tokens.push(ti);
        let t = tok.ready.max(self.now) + self.cfg.misc.tma_latency as u64;
        for ev in tok.actions {
            self.schedule(t, cl, ev);
        }
        let Some((kind, id)) = tok.group else { return };
        let Some(tw) = self.warps[tok.warp].as_mut() else { return };
        if let Some(g) = tw.groups[kind].iter_mut().find(|g| g.id == id) {
            g.outstanding = g.outstanding.saturating_sub(1);
        }
        while tw.groups[kind].front().is_some_and(|g| g.committed && g.outstanding == 0) {
            tw.groups[kind].pop_front();
        }
        if let Some((k, n)) = tw.waiting_groups {
            if tw.pending_groups(k) <= n {
                tw.waiting_groups = None;
                tw.w.state = WarpState::Ready;
                tw.next = tw.next.max(tok.ready);
                tw.next_dep = Dep::Long;
            }
        }
        if kind == 0 && tw.copies_done() {
            let evs = std::mem::take(&mut tw.after_copies);
            for ev in evs {
                self.schedule(tok.ready, cl, ev);
            }
        }
    }

    /// Whether copies or mbarrier events are in flight (their completion changes state).
    pub fn copies_in_flight(&self) -> bool {
        !self.events.is_empty() || self.tokens.iter().flatten().any(|t| !t.actions.is_empty() || t.group.is_some())
    }
}
