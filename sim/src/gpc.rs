//! A GPC: a group of SMs stepped together in cycle order, owning the clusters that run on them.
//!
//! Within a window the GPC advances whichever of its SMs is earliest (ties by SM index), so an SM
//! only ever sees effects of other SMs from its past — which is what lets a cluster's CTAs on
//! different SMs read each other's shared memory and arrive on each other's barriers exactly.
//! After every step, SMs holding warps of a changed cluster check whether those warps may wake.

use crate::cluster::{Arena, Cluster};
use crate::cta::CtaShared;
use crate::fault::Fault;
use crate::kernel::LaunchDims;
use crate::memory::DeviceMemory;
use crate::sm::{CtaRes, Sm};

pub struct Gpc {
    pub sms: Vec<Sm>,
    pub arena: Arena,
}

impl Gpc {
    /// Runs every SM of the GPC up to `until`.
    pub fn run_window(&mut self, until: u64, base: &DeviceMemory) -> Result<(), Fault> {
        // A step moves only its own SM's clock, and always forward: stepping the SMs at the
        // earliest cycle in index order is the (cycle, SM) order.
        while let Some(t) = self.sms.iter().map(|s| s.now).filter(|&now| now < until).min() {
            for i in 0..self.sms.len() {
                if self.sms[i].now != t {
                    continue;
                }
                self.sms[i].cycle(until, base, &mut self.arena)?;
                while let Some(cl) = self.arena.dirty.pop() {
                    for sm in &mut self.sms {
                        sm.wake(&self.arena, cl);
                    }
                }
            }
        }
        Ok(())
    }

    /// The free CTA slots of the GPC's least loaded SM.
    pub fn most_free(&self, per_sm: usize) -> usize {
        self.sms.iter().map(|s| per_sm.saturating_sub(s.resident_ctas())).max().unwrap_or(0)
    }

    /// Free CTA slots on each SM (index within the GPC).
    fn free_slots(&self, per_sm: usize) -> Vec<(usize, usize)> {
        let mut v: Vec<(usize, usize)> =
            self.sms.iter().enumerate().map(|(i, s)| (i, per_sm.saturating_sub(s.resident_ctas()))).filter(|x| x.1 > 0).collect();
        // Least loaded first, then by index: clusters spread over the GPC's SMs.
        v.sort_by_key(|&(i, free)| (std::cmp::Reverse(free), i));
        v
    }

    /// SMs (index within the GPC) for a cluster of `n` CTAs, rank r on the r-th SM of the round
    /// robin over the least loaded SMs with free slots; `None` if the GPC has too few slots.
    pub fn room(&self, per_sm: usize, n: usize) -> Option<Vec<usize>> {
        let mut left = self.free_slots(per_sm);
        if left.iter().map(|f| f.1).sum::<usize>() < n {
            return None;
        }
        let mut sm_of = Vec::with_capacity(n);
        let mut k = 0;
        while sm_of.len() < n {
            let m = left.len();
            let (i, f) = &mut left[k % m];
            if *f > 0 {
                *f -= 1;
                sm_of.push(*i);
            }
            k += 1;
        }
        Some(sm_of)
    }

    /// Places a cluster (its CTAs `linear[r]` by rank, rank r on SM `sm_of[r]`, an index within
    /// the GPC); each CTA starts when its SM's launcher gives it a slot ([`Sm::launch_slot`]).
    /// Returns the (global SM id, CTA, assignment cycle) placements.
    pub fn place(&mut self, dims: &LaunchDims, linear: &[u64], sm_of: Vec<usize>, res: CtaRes, smem: u32) -> Vec<(u32, u64, u64)> {
        let threads = dims.threads_per_cta();
        let warps = dims.warps_per_cta();
        let ctas: Vec<CtaShared> = linear
            .iter()
            .enumerate()
            .map(|(r, &l)| CtaShared::new(dims.cta_index(l), l, smem, r as u32, self.sms[sm_of[r]].id, threads))
            .collect();
        let n = linear.len() as u32;
        let cl = self.arena.insert(Cluster { ctas, sm_of: sm_of.clone(), arrived: 0, phase: 0, live_warps: n * warps, running: n });
        let mut placed = Vec::with_capacity(linear.len());
        for (r, &l) in linear.iter().enumerate() {
            let sm = &mut self.sms[sm_of[r]];
            let start = sm.launch_slot();
            sm.admit(cl, r, res, start, l * warps as u64);
            placed.push((sm.id, l, sm.now));
        }
        placed
    }
}
