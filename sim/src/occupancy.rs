//! CTA admission: how many CTAs of a launch fit on one SM, and what limits them.
//!
//! All-or-nothing per CTA on threads, warps, CTA slots, registers (allocated per warp in units of
//! `reg_alloc_unit`, warps granted in multiples of the sub-partition count: each SMSP holds a
//! quarter of the register file, so 24-register single-warp CTAs fit 84 per H200 SM, not 85, as
//! ncu's `launch__occupancy_limit_registers` says) and shared memory (static + dynamic, rounded
//! to the allocation unit, plus the per-CTA system reservation). The shared-memory carve-out is the smallest configured one
//! that does not reduce occupancy below what the other limits allow — what the driver picks by
//! default — and the L1 gets the rest of the unified array.

use crate::config::ArchConfig;
use crate::sm::CtaRes;

/// The fewest registers per thread a launch is given, whatever ptxas used: on the H200 ncu's
/// `launch__registers_per_thread` reads 16 for all 29 workloads of
/// `validate/data/h200/2026-11-30.json` whose `ptxas -v` count is 10 to 15, and equals ptxas's
/// count for every one at 16 or above (50 of them, 16 to 168). Occupancy is unaffected above 8
/// registers (a warp's allocation is rounded to 256 registers either way); the figure is what
/// the counter reports. Measured on Hopper only; applied to every preset.
pub const MIN_REGS_PER_THREAD: u32 = 16;

/// Occupancy of a launch on one SM.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Occupancy {
    pub ctas_per_sm: u32,
    /// The binding limit: `threads`, `warps`, `ctas`, `registers` or `shared memory`.
    pub limiter: &'static str,
    pub res: CtaRes,
    /// Shared-memory carve-out chosen (KiB) and the L1 capacity it leaves (bytes).
    pub carveout_kib: u32,
    pub l1_bytes: u64,
    /// CTAs per SM each resource alone allows, as ncu's `launch__occupancy_limit_*` report them.
    pub limits: Limits,
}

/// CTAs per SM allowed by the CTA slots, warps (and threads), registers and shared memory alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    pub blocks: u32,
    pub warps: u32,
    pub registers: u32,
    /// The CTA slots when the kernel uses no shared memory (ncu's convention).
    pub shared_mem: u32,
}

/// Computes the occupancy, or explains why a CTA cannot fit at all.
pub fn occupancy(cfg: &ArchConfig, threads: u32, regs_per_thread: u32, smem_bytes: u32) -> Result<Occupancy, String> {
    let sm = &cfg.sm;
    let warps = threads.div_ceil(32);
    if threads > sm.max_threads.min(1024) {
        return Err(format!("{threads} threads per block exceed the {} threads an SM of {} holds", sm.max_threads.min(1024), cfg.name));
    }
    if regs_per_thread > sm.max_regs_per_thread {
        return Err(format!("{regs_per_thread} registers per thread exceed the {} allowed on {}", sm.max_regs_per_thread, cfg.name));
    }
    let unit = sm.reg_alloc_unit.max(1);
    let regs_per_warp = (regs_per_thread.max(1) * 32).div_ceil(unit) * unit;
    let regs = regs_per_warp * warps;
    let smem_unit = sm.smem_alloc_unit.max(1);
    let smem = if smem_bytes == 0 { 0 } else { smem_bytes.div_ceil(smem_unit) * smem_unit } + sm.smem_reserved_per_cta;
    if smem_bytes > sm.smem_per_cta_kib * 1024 {
        return Err(format!("{smem_bytes} bytes of shared memory per block exceed the {} KiB a block may use on {}", sm.smem_per_cta_kib, cfg.name));
    }
    if regs > sm.registers {
        return Err(format!("{regs} registers per block exceed the {} an SM of {} has", sm.registers, cfg.name));
    }
    let granule = sm.sub_partitions.max(1);
    let reg_warps = sm.registers / regs_per_warp.max(1) / granule * granule;
    let (by_threads, by_warps, by_regs) = (sm.max_threads / threads.max(1), sm.max_warps / warps.max(1), reg_warps / warps.max(1));
    let others = sm.max_ctas.min(by_threads).min(by_warps).min(by_regs);
    // Carve-out: the smallest option holding `others` CTAs' shared memory, else the largest.
    let options: Vec<u32> = if sm.smem_carveouts_kib.is_empty() { vec![sm.smem_kib] } else { sm.smem_carveouts_kib.clone() };
    let need = smem as u64 * others as u64;
    let carve = options.iter().copied().find(|&c| c as u64 * 1024 >= need).unwrap_or_else(|| options.iter().copied().max().unwrap_or(sm.smem_kib));
    let by_smem = if smem > 0 { (carve as u64 * 1024 / smem as u64) as u32 } else { sm.max_ctas };
    let (ctas, limiter) = [(sm.max_ctas, "ctas"), (by_threads, "threads"), (by_warps, "warps"), (by_regs, "registers"), (by_smem, "shared memory")]
        .into_iter()
        .min_by_key(|l| l.0)
        .unwrap_or((1, "ctas"));
    let limits = Limits {
        blocks: sm.max_ctas,
        warps: by_threads.min(by_warps),
        registers: by_regs,
        shared_mem: if smem_bytes == 0 { sm.max_ctas } else { by_smem },
    };
    if ctas == 0 {
        return Err(format!("a block needs {smem} bytes of shared memory; the largest carve-out on {} is {carve} KiB", cfg.name));
    }
    let l1_kib = if cfg.l1.fixed_kib > 0 { cfg.l1.fixed_kib } else { sm.unified_l1_kib.saturating_sub(carve) };
    Ok(Occupancy {
        ctas_per_sm: ctas,
        limiter,
        res: CtaRes { threads, warps, regs, smem },
        carveout_kib: carve,
        l1_bytes: l1_kib as u64 * 1024,
        limits,
    })
}
