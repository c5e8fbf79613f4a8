//! The CTA dispatcher: which GPC and SM each CTA of a launch runs on.
//!
//! SMs are numbered GPC by GPC (`sm.gpc_sms`), and an SM's GPC decides which L2 request
//! coalescer its reads share. The dispatcher fills the SMs level by level, a level giving each SM
//! with room its next CTA. A level the pending CTAs can fill is filled GPC after GPC, so
//! consecutive CTAs share a GPC (the H200 runs CTAs 0-15 of a 132-CTA grid in one GPC). A level
//! they cannot fill is spread: the `sm.lone_sms` at GPC 0's head take one CTA each, then the rest
//! goes round robin over the GPCs, at most one CTA per TPC, each GPC taking a contiguous run of
//! CTA indices: a grid of 16 puts 9 CTAs in GPC 0 and one in each other GPC, a grid of 64 puts
//! 12, 8, 8, 8, 7, 7, 7, 7 (`validate/data/h100/lrc` lrc7 on an H100 — `%smid` per CTA and which
//! CTAs' reads merge — and `validate/data/h200/placement` on the H200). CTA clusters do not go
//! through [`Layout::plan`]: a cluster goes whole to one GPC (the engine picks it).

use std::ops::Range;

use crate::config;

/// The SMs of each GPC.
#[derive(Debug, Clone)]
pub struct Layout {
    /// First SM id of each GPC, and one past the last SM's.
    starts: Vec<u32>,
    gpc_of: Vec<u32>,
    per_tpc: u32,
    lone: u32,
}

impl Layout {
    /// The preset's GPCs: `sm.gpc_sms`, or `sm.count` split as evenly as it goes (earlier GPCs
    /// take the remainder).
    pub fn new(sm: &config::Sm) -> Layout {
        let count = sm.count.max(1);
        let n = sm.gpcs.clamp(1, count);
        let sizes: Vec<u32> = if sm.gpc_sms.len() == n as usize && sm.gpc_sms.iter().sum::<u32>() == count {
            sm.gpc_sms.clone()
        } else {
            (0..n).map(|g| count / n + u32::from(g < count % n)).collect()
        };
        let mut starts = vec![0];
        let mut gpc_of = Vec::with_capacity(count as usize);
        for (g, &size) in sizes.iter().enumerate() {
            starts.push(starts[g] + size);
            gpc_of.extend(std::iter::repeat_n(g as u32, size as usize));
        }
        Layout { starts, gpc_of, per_tpc: sm.sms_per_tpc.max(1), lone: sm.lone_sms.min(sizes[0]) }
    }

    /// GPCs (count).
    pub fn gpcs(&self) -> usize {
        self.starts.len() - 1
    }

    /// The SM ids of GPC `g`.
    pub fn sms(&self, g: usize) -> Range<u32> {
        self.starts[g]..self.starts[g + 1]
    }

    /// The GPC of SM `sm`.
    pub fn gpc_of(&self, sm: u32) -> u32 {
        self.gpc_of[sm as usize]
    }

    /// The SMs (ids) of the next CTAs, in CTA order, for at most `pending` CTAs; `resident[s]` is
    /// SM s's CTA count, at most `per_sm`, and counts the CTAs placed.
    pub fn plan(&self, resident: &mut [u32], per_sm: u32, mut pending: u64) -> Vec<u32> {
        let mut out = Vec::new();
        while pending > 0 {
            let Some(level) = resident.iter().copied().filter(|&r| r < per_sm).min() else { break };
            let open: Vec<u32> = (0..resident.len() as u32).filter(|&s| resident[s as usize] == level).collect();
            let mut take = |s: u32, out: &mut Vec<u32>| {
                resident[s as usize] += 1;
                out.push(s);
            };
            if pending >= open.len() as u64 {
                pending -= open.len() as u64;
                open.iter().for_each(|&s| take(s, &mut out));
                continue;
            }
            for &s in open.iter().filter(|&&s| s < self.lone).take(pending as usize) {
                take(s, &mut out);
                pending -= 1;
            }
            // The first open SM of each TPC (the lone SMs excluded), GPC by GPC.
            let units: Vec<Vec<u32>> = (0..self.gpcs())
                .map(|g| {
                    let first = if g == 0 { self.lone } else { 0 };
                    let sms = self.sms(g);
                    let mut v: Vec<u32> = Vec::new();
                    for s in open.iter().copied().filter(|&s| s >= sms.start + first && s < sms.end) {
                        let tpc = (s - sms.start - first) / self.per_tpc;
                        if v.last().is_none_or(|&l| (l - sms.start - first) / self.per_tpc != tpc) {
                            v.push(s);
                        }
                    }
                    v
                })
                .collect();
            let mut quota = vec![0usize; units.len()];
            let mut left = pending;
            while left > 0 {
                let before = left;
                for (q, u) in quota.iter_mut().zip(&units) {
                    if left > 0 && *q < u.len() {
                        *q += 1;
                        left -= 1;
                    }
                }
                if left == before {
                    break;
                }
            }
            for (u, &q) in units.iter().zip(&quota) {
                u[..q].iter().for_each(|&s| take(s, &mut out));
                pending -= q as u64;
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h200() -> Layout {
        Layout::new(&crate::presets::preset("hopper-h200").unwrap().sm)
    }

    /// Each GPC's CTAs as runs of consecutive CTA indices: (GPC, count).
    fn runs(l: &Layout, grid: u64, per_sm: u32) -> Vec<(u32, usize)> {
        let mut resident = vec![0u32; 132];
        let mut v: Vec<(u32, usize)> = Vec::new();
        for s in l.plan(&mut resident, per_sm, grid) {
            match v.last_mut() {
                Some((g, n)) if *g == l.gpc_of(s) => *n += 1,
                _ => v.push((l.gpc_of(s), 1)),
            }
        }
        v
    }

    #[test]
    fn small_grids_spread_as_the_h100_and_h200_place_them() {
        // validate/data/h100/lrc (lrc7 part C, H100) and validate/data/h200/placement (grid 66).
        let l = h200();
        assert_eq!(runs(&l, 16, 16), [(0, 9), (1, 1), (2, 1), (3, 1), (4, 1), (5, 1), (6, 1), (7, 1)]);
        assert_eq!(runs(&l, 64, 16), [(0, 12), (1, 8), (2, 8), (3, 8), (4, 7), (5, 7), (6, 7), (7, 7)]);
        assert_eq!(runs(&l, 66, 8), [(0, 12), (1, 8), (2, 8), (3, 8), (4, 8), (5, 8), (6, 7), (7, 7)]);
    }

    #[test]
    fn a_full_wave_fills_one_gpc_after_another_and_the_rest_spreads() {
        // The H200's 192- and 200-CTA grids: 132 GPC by GPC, then the remainder spread.
        let l = h200();
        let full = [(0, 16), (1, 16), (2, 16), (3, 16), (4, 16), (5, 16), (6, 18), (7, 18)];
        let r = runs(&l, 192, 8);
        assert_eq!(r[..8], full);
        assert_eq!(r[8..], [(0, 12), (1, 7), (2, 7), (3, 7), (4, 7), (5, 7), (6, 7), (7, 6)]);
        assert_eq!(runs(&l, 200, 8)[8..], [(0, 12), (1, 8), (2, 8), (3, 8), (4, 8), (5, 8), (6, 8), (7, 8)]);
    }

    #[test]
    fn every_sm_gets_its_share_and_no_more_than_fits() {
        let l = h200();
        let mut resident = vec![0u32; 132];
        assert_eq!(l.plan(&mut resident, 2, 1000).len(), 264);
        assert!(resident.iter().all(|&r| r == 2));
        let mut resident = vec![0u32; 132];
        resident[5] = 1;
        // The SMs behind fill first.
        assert!(l.plan(&mut resident, 2, 131).iter().all(|&s| s != 5));
    }

    #[test]
    fn an_even_split_when_the_preset_lists_no_gpcs() {
        let mut sm = crate::presets::preset("volta-gv100").unwrap().sm;
        sm.gpc_sms.clear();
        let l = Layout::new(&sm);
        let sizes: Vec<usize> = (0..l.gpcs()).map(|g| l.sms(g).len()).collect();
        assert_eq!(sizes.iter().sum::<usize>(), sm.count as usize);
        assert!(sizes.iter().max().unwrap() - sizes.iter().min().unwrap() <= 1, "{sizes:?}");
    }
}
