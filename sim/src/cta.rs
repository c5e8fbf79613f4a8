//! Per-CTA shared state: shared memory and the 16 named CTA barriers.
//!
//! Barrier arrival counts threads the way the hardware does: without an explicit count a warp
//! contributes its existing threads and the barrier expects every thread of the CTA's live
//! warps; with a count (`bar.sync id, n`) each arriving warp counts as 32 threads. `bar.red`
//! accumulates the reduction over arrivals and hands it to every waiting warp on release.

use warpsim_isa::inst::BarOp;

/// One named barrier.
#[derive(Debug, Clone, Default)]
pub struct Barrier {
    pub arrived: u32,
    /// Explicit thread count of the current phase, if any.
    pub count: Option<u32>,
    /// Warps blocked in this phase (`bar.sync` / `bar.red`), by slot.
    pub waiting: Vec<u32>,
    pub popc: u32,
    pub all: bool,
    pub any: bool,
    /// Whether any arrival contributed to a reduction (so `all` starts true).
    pub reducing: bool,
}

impl Barrier {
    fn reset(&mut self) {
        *self = Barrier::default();
    }
}

/// What a completed barrier phase releases.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Release {
    pub warps: Vec<u32>,
    pub popc: u32,
    pub all: bool,
    pub any: bool,
}

/// An arrival at a barrier.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Arrival {
    pub id: u32,
    pub count: Option<u32>,
    /// The warp blocks until release (`sync`, `red`) or continues (`arrive`).
    pub blocking: bool,
    /// Threads this warp contributes when no count is given.
    pub threads: u32,
    /// Reduction contribution: (kind, number of active threads with a true predicate, active threads).
    pub red: Option<(BarOp, u32, u32)>,
    pub warp: u32,
}

pub struct CtaShared {
    pub id: [u32; 3],
    pub linear: u64,
    pub smem: Vec<u8>,
    pub bars: Vec<Barrier>,
    /// Rank within the cluster.
    pub rank: u32,
    pub smid: u32,
    /// Threads of warps that have not exited (the default barrier expectation).
    pub live_threads: u32,
    /// `barrier.cluster` arrivals (warps) in the current phase, and completed phases.
    pub cluster_arrived: u32,
    pub cluster_phase: u32,
}

impl CtaShared {
    pub fn new(id: [u32; 3], linear: u64, smem_bytes: u32, rank: u32, smid: u32, threads: u32) -> CtaShared {
        CtaShared {
            id,
            linear,
            smem: vec![0; smem_bytes as usize],
            bars: vec![Barrier::default(); 16],
            rank,
            smid,
            live_threads: threads,
            cluster_arrived: 0,
            cluster_phase: 0,
        }
    }

    /// Records an arrival; returns the release when the phase completes.
    pub fn arrive(&mut self, a: Arrival) -> Option<Release> {
        let b = &mut self.bars[a.id as usize];
        if a.count.is_some() {
            b.count = a.count;
        }
        b.arrived += if a.count.is_some() { 32 } else { a.threads };
        if let Some((_, t, n)) = a.red {
            if !b.reducing {
                b.reducing = true;
                b.all = true;
            }
            b.popc += t;
            b.all &= t == n;
            b.any |= t > 0;
        }
        if a.blocking {
            b.waiting.push(a.warp);
        }
        self.check(a.id)
    }

    /// Completes barrier `id` if enough threads have arrived (also called when warps exit).
    pub fn check(&mut self, id: u32) -> Option<Release> {
        let live = self.live_threads;
        let b = &mut self.bars[id as usize];
        let expected = b.count.unwrap_or(live);
        if b.arrived == 0 || b.arrived < expected {
            return None;
        }
        let r = Release { warps: std::mem::take(&mut b.waiting), popc: b.popc, all: b.all, any: b.any };
        b.reset();
        Some(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arr(warp: u32, blocking: bool) -> Arrival {
        Arrival { id: 0, count: None, blocking, threads: 32, red: None, warp }
    }

    #[test]
    fn completes_when_all_live_threads_arrive() {
        let mut c = CtaShared::new([0; 3], 0, 0, 0, 0, 64);
        assert_eq!(c.arrive(arr(0, true)), None);
        let r = c.arrive(arr(1, true)).unwrap();
        assert_eq!(r.warps, vec![0, 1]);
        // The barrier resets for the next phase.
        assert_eq!(c.arrive(arr(0, true)), None);
    }

    #[test]
    fn explicit_count_and_reduction() {
        let mut c = CtaShared::new([0; 3], 0, 0, 0, 0, 128);
        let a = Arrival { id: 3, count: Some(64), blocking: true, threads: 32, red: Some((BarOp::RedPopc, 5, 32)), warp: 2 };
        assert_eq!(c.arrive(a), None);
        let r = c.arrive(Arrival { warp: 3, red: Some((BarOp::RedPopc, 32, 32)), ..a }).unwrap();
        assert_eq!((r.popc, r.all, r.any), (37, false, true));
    }

    #[test]
    fn exits_release_waiters() {
        let mut c = CtaShared::new([0; 3], 0, 0, 0, 0, 64);
        assert_eq!(c.arrive(arr(0, true)), None);
        c.live_threads = 32;
        assert_eq!(c.check(0).unwrap().warps, vec![0]);
    }
}
