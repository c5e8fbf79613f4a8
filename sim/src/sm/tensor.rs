//! Tensor-core timing: `mma.sync`/`wmma` and Hopper's warpgroup `wgmma` with its commit groups.
//!
//! The sub-partition's tensor pipe is busy for the warp's multiply-accumulates at the SM's rate
//! (split over sub-partitions, scaled by the input width); an `mma.sync` result comes after the
//! pipe latency scaled by the bytes of K, a `wgmma` result after `base + N / divisor`, and
//! `wgmma.wait_group` holds the warp until all but the newest groups are done (a group closes at
//! `wgmma.commit_group`, or in SASS at the `HGMMA` marked `gsb0`). The matrix data
//! movement itself (`ldmatrix`, shared operands) is timed as shared-memory access in `lsu`.

use warpsim_isa::control::Pipe as Unit;
use warpsim_isa::inst::MatrixOp;

use super::{Dep, Sm, TWarp};

impl TWarp {
    /// Closes the open wgmma group (`wgmma.commit_group`, or SASS `HGMMA … gsb0`): its
    /// completion time joins the committed groups `wgmma.wait_group` waits on.
    fn close_wgmma_group(&mut self) {
        let t = std::mem::take(&mut self.wgmma_open);
        self.wgmma_groups.push_back(t);
    }
}

impl Sm {
    /// Tensor-core timing: the pipe is busy for the warp's multiply-accumulates at the SM's rate
    /// (split over sub-partitions); `mma.sync` results come after the pipe latency scaled by the
    /// bytes of K, `wgmma` results after `base + N / divisor`; `wgmma.wait_group` waits for groups.
    pub(super) fn matrix_timing(&mut self, wi: usize, pc: u32, mx: MatrixOp) -> (u64, Dep, Option<u32>) {
        let now = self.now;
        let (cfg, inst) = (&*self.cfg, &self.k.prog.insts[pc as usize]);
        let (m, n, k) = inst.m.shape.unwrap_or((16, 8, 16));
        let abytes = inst.m.types.get(1).map_or(2, |t| t.bytes().max(1)) as u64;
        // Rate in multiply-accumulates per cycle per sub-partition for this input width.
        let per_sp = cfg.tensor.fp16_fma_per_cycle as f64 / cfg.sm.sub_partitions.max(1) as f64 * 2.0 / abytes as f64;
        let sp = self.warps[wi].as_ref().map_or(0, |t| t.sp);
        let busy = |macs: u64| (macs as f64 / per_sp.max(1.0)).ceil() as u64;
        match mx {
            MatrixOp::Mma | MatrixOp::WmmaMma => {
                let occ = busy(m as u64 * n as u64 * k as u64);
                let pf = &mut self.sps[sp].pipe_free[Unit::Tensor as usize];
                *pf = (*pf).max(now) + occ.saturating_sub(1);
                let kbytes = k as i64 * abytes as i64;
                let lat = (cfg.pipes.tensor.latency as i64 + (kbytes - 32) / 2).max(4) as u64 + occ;
                (lat, Dep::Short, None)
            }
            MatrixOp::WgmmaMma => {
                // This warp's quarter of the warpgroup's M = 64 rows.
                let occ = busy(16 * n as u64 * k as u64);
                let pf = &mut self.sps[sp].pipe_free[Unit::Tensor as usize];
                let start = (*pf).max(now);
                *pf = start + occ;
                let done = start + cfg.tensor.wgmma_base_latency as u64 + n as u64 / cfg.tensor.wgmma_n_divisor.max(1) as u64;
                let commit = inst.m.has(warpsim_isa::inst::flag::COMMIT);
                // The operands stream from shared memory through the data path once per warpgroup:
                // ncu counts (A's bytes, when A is not in registers, + B's) / 128 shared wavefronts
                // per wgmma on the H200 (wgmma_latency m64n8k16: 18 per MMA, 16 + 2; its n128
                // twin 48; wgmma_gemm m64n128k16: 48). Counted on the warpgroup's first warp.
                let a_in_smem = !matches!(inst.ops.get(1), Some(warpsim_isa::inst::Opnd::Vec(_)));
                let row = k as u64 * abytes;
                let bytes = if a_in_smem { m as u64 * row } else { 0 } + n as u64 * row;
                if self.warps[wi].as_ref().is_some_and(|t| t.w.slot % 4 == 0) {
                    self.stats.smem_wavefronts += bytes.div_ceil(128);
                }
                if let Some(tw) = self.warps[wi].as_mut() {
                    tw.wgmma_open = tw.wgmma_open.max(done);
                    if commit {
                        tw.close_wgmma_group();
                    }
                }
                (done - now, Dep::Short, None)
            }
            MatrixOp::WgmmaCommit => {
                if let Some(tw) = self.warps[wi].as_mut() {
                    tw.close_wgmma_group();
                }
                (1, Dep::Fixed, None)
            }
            MatrixOp::WgmmaWait => {
                let n_keep = inst.ops.first().map_or(0, |o| if let warpsim_isa::inst::Opnd::Imm(v) = o { *v as usize } else { 0 });
                if let Some(tw) = self.warps[wi].as_mut() {
                    let mut t = 0;
                    while tw.wgmma_groups.len() > n_keep {
                        t = t.max(tw.wgmma_groups.pop_front().unwrap_or(0));
                    }
                    tw.next = tw.next.max(t);
                    tw.next_dep = Dep::Short;
                }
                (1, Dep::Fixed, None)
            }
            _ => (cfg.pipes.alu.latency as u64, Dep::Fixed, None),
        }
    }
}
