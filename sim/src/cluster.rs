//! Thread block clusters in the timing model.
//!
//! A cluster's CTAs (their shared memory and named barriers), the SM each runs on, and the
//! cluster barrier live here rather than in the SMs, and a GPC owns the clusters running on its
//! SMs. Every cross-SM effect inside a cluster — distributed shared memory loads and stores,
//! remote mbarrier arrivals, multicast copies, the cluster barrier — therefore happens inside one
//! GPC's time-ordered loop, and GPCs step in parallel. A CTA launched without clusters is a
//! cluster of one.

use crate::cta::CtaShared;

pub struct Cluster {
    /// CTAs by rank.
    pub ctas: Vec<CtaShared>,
    /// The SM (index within the GPC) each rank runs on.
    pub sm_of: Vec<usize>,
    /// `barrier.cluster`: warps arrived in the current phase, completed phases, live warps.
    pub arrived: u32,
    pub phase: u32,
    pub live_warps: u32,
    /// CTAs not finished yet; the cluster is dropped when none is left.
    pub running: u32,
}

/// The clusters of one GPC, and which of them changed in a way that may wake warps.
#[derive(Default)]
pub struct Arena {
    pub clusters: Vec<Option<Cluster>>,
    pub dirty: Vec<usize>,
}

impl Arena {
    /// Stores a cluster; returns its index.
    pub fn insert(&mut self, c: Cluster) -> usize {
        match self.clusters.iter().position(|x| x.is_none()) {
            Some(i) => {
                self.clusters[i] = Some(c);
                i
            }
            None => {
                self.clusters.push(Some(c));
                self.clusters.len() - 1
            }
        }
    }

    pub fn get(&mut self, i: usize) -> &mut Cluster {
        self.clusters[i].as_mut().expect("a resident CTA's cluster exists")
    }

    /// Marks a cluster as changed (mbarrier phases, cluster barrier) so sleeping warps are checked.
    pub fn touch(&mut self, i: usize) {
        if !self.dirty.contains(&i) {
            self.dirty.push(i);
        }
    }
}
