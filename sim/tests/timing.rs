//! Timing-model runs of NVRTC-generated PTX (sim/tests/ptx/basic.ptx): outputs equal the
//! functional run's, and cycles and counters do not depend on the number of threads.

use std::sync::Arc;

use warpsim_sim::config::*;
use warpsim_sim::engine::{run, RunOptions};
use warpsim_sim::{Gpu, LaunchDims};

fn pipe(lanes: u32, latency: u32) -> Pipe {
    Pipe { lanes, latency }
}

/// A Hopper-like configuration for tests that must not depend on preset tuning.
fn cfg() -> ArchConfig {
    ArchConfig {
        name: "test-hopper".into(),
        description: "test".into(),
        generation: "hopper".into(),
        compute_capability: [9, 0],
        clock: Clock { sm_mhz: 1980.0 },
        sm: Sm {
            count: 8,
            gpcs: 2,
            gpc_sms: vec![],
            sms_per_tpc: 2,
            lone_sms: 0,
            sub_partitions: 4,
            issue_width: 1,
            register_banks: 2,
            max_warps: 64,
            max_ctas: 32,
            max_threads: 2048,
            registers: 65536,
            reg_alloc_unit: 256,
            max_regs_per_thread: 255,
            smem_kib: 228,
            smem_per_cta_kib: 227,
            smem_carveouts_kib: vec![0, 8, 16, 32, 64, 100, 132, 164, 196, 228],
            smem_reserved_per_cta: 1024,
            smem_alloc_unit: 128,
            unified_l1_kib: 256,
            scheduler: SchedulerPolicy::Gto,
            two_level_active: 8,
            cta_launch_latency: 100,
        },
        pipes: Pipes {
            fp32: pipe(32, 4),
            int: pipe(16, 4),
            imul: pipe(16, 4),
            fp64: pipe(16, 8),
            fp16: pipe(32, 6),
            sfu: pipe(4, 23),
            conv: pipe(16, 6),
            alu: pipe(32, 4),
            branch: pipe(32, 4),
            warp: pipe(32, 20),
            lsu: pipe(32, 4),
            tensor: pipe(32, 24),
            iadd_on_imad: true,
        },
        tensor: Tensor { fp16_fma_per_cycle: 2048, wgmma_base_latency: 43, wgmma_n_divisor: 2 },
        smem: SharedMem { banks: 32, bank_bytes: 4, latency: 29, wavefront_cycles: 2, bank_cycles: 1, wide_bytes_per_cycle: 128, half_warp: false },
        l1: L1 { sector: 32, assoc: 4, latency: 38, mshrs: 256, sectors_per_cycle: 4, lines_per_cycle: 1, request_cycles: 0, atomic_line_cycles: 1.0, fixed_kib: 0, store_allocate: true },
        l2: L2 {
            size_kib: 61440,
            slices: 96,
            placement_runs: 8,
            slice_shared_line_bits: 0,
            assoc: 16,
            partial_ways: 16,
            promotion_bytes: 64,
            hit_latency: 263,
            far_extra_latency: 200,
            partitions: 2,
            gpc_partition: vec![],
            sectors_per_cycle_per_slice: 2.0,
            write_sectors_per_cycle_per_slice: 2.0,
            requests_per_cycle_per_slice: 1.0,
            mshrs_per_slice: 256,
            coalescer_merge: 1,
            atomics_per_cycle_per_slice: 1.0,
            atomic_request_cycles: 4.0,
            atomic_partial_cycles: 0.0,
            atomic_sector_cycles: 0.0,
            atomic_far_passes: 0.0,
            launch_read_sectors: 0,
            code_read_sectors_per_instruction: 0.0,
        },
        dram: Dram { channels: 48, banks: 16, row_bytes: 2048, bandwidth_gbs: 4000.0, latency: 600, row_miss_penalty: 40, activate_cycles: 0.0, reorder_window: 300, loaded_latency: 0, load_window: 1000, burst_bytes: 32 },
        coalescing: Coalescing::Sectors,
        features: Features {
            shuffle: true,
            warp_vote: true,
            float_atomics: true,
            tensor_cores: true,
            ldmatrix: true,
            cp_async: true,
            redux: true,
            tma: true,
            clusters: true,
            wgmma: true,
            l1_caches_global: true,
        },
        misc: Misc {
            launch_overhead: 3000,
            printf_launch_cycles: 0,
            printf_line_cycles: 0,
            barrier_latency: 20,
            atomic_extra_latency: 50,
            smem_atomic_latency: 40,
            const_latency: 20,
            dsmem_latency: 190,
            mbarrier_latency: 40,
            mbarrier_wake_latency: 0,
            tma_latency: 300,
            cluster_barrier_latency: 800,
            indexed_branch_cycles: 0,
            indexed_branch_split_cycles: 0,
            indexed_branch_issue_cycles: 0,
            divergent_branch_cycles: 0,
            divergent_branch_issue_cycles: 0,
        },
        machine_ops: Default::default(),
    }
}

fn program(name: &str) -> Arc<warpsim_isa::Program> {
    let src = include_str!("ptx/basic.ptx");
    Arc::new(warpsim_isa::load(src, "basic.ptx").unwrap().into_iter().find(|p| p.name == name).unwrap())
}

fn params(vals: &[(u64, usize)]) -> Vec<u8> {
    let mut p = Vec::new();
    for &(v, n) in vals {
        while p.len() % n != 0 {
            p.push(0);
        }
        p.extend_from_slice(&v.to_le_bytes()[..n]);
    }
    p
}

/// Runs the reduction on `threads` worker threads; returns (sum, cycles, counters).
fn reduce(threads: usize) -> (i32, u64, std::collections::BTreeMap<String, f64>) {
    let n = 20000usize;
    let input: Vec<i32> = (0..n as i32).map(|i| (i * 7919) % 1000 - 500).collect();
    let mut g = Gpu::new(8);
    let pin = g.upload("in", 4 * n as u64, &input.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>());
    let pout = g.upload("out", 4, &[]);
    let dims = LaunchDims { grid: [79, 1, 1], block: [256, 1, 1], cluster: [1, 1, 1], dynamic_smem: 0 };
    let k = g.kernel(program("reduce_shfl"), dims, params(&[(pin, 8), (pout, 8), (n as u64, 4)])).unwrap();
    let opts = RunOptions { threads, regs_per_thread: 32, spills: Default::default(), limits: Default::default() };
    let r = run(Arc::new(cfg()), Arc::new(k), &mut g.mem, &opts).unwrap();
    let sum = i32::from_le_bytes(g.download(pout, 4).try_into().unwrap());
    assert_eq!(sum, input.iter().sum::<i32>());
    (sum, r.cycles, r.counters)
}

#[test]
fn timed_reduction_is_correct_and_deterministic_across_threads() {
    let (s1, c1, k1) = reduce(1);
    let (s4, c4, k4) = reduce(4);
    assert_eq!(s1, s4);
    assert_eq!(c1, c4);
    assert_eq!(k1, k4);
    assert!(c1 > 3000, "{c1}");
}

#[test]
fn vector_add_counts_sectors_by_coalescing_arithmetic() {
    let n = 8192usize;
    let bytes: Vec<u8> = (0..n).flat_map(|i| (i as f32).to_le_bytes()).collect();
    let mut g = Gpu::new(8);
    let pa = g.upload("a", 4 * n as u64, &bytes);
    let pb = g.upload("b", 4 * n as u64, &bytes);
    let pc = g.upload("c", 4 * n as u64, &[]);
    let dims = LaunchDims { grid: [32, 1, 1], block: [256, 1, 1], cluster: [1, 1, 1], dynamic_smem: 0 };
    let k = g.kernel(program("vadd"), dims, params(&[(pa, 8), (pb, 8), (pc, 8), (n as u64, 4)])).unwrap();
    let r = run(Arc::new(cfg()), Arc::new(k), &mut g.mem, &RunOptions { threads: 2, regs_per_thread: 16, spills: Default::default(), limits: Default::default() }).unwrap();
    let out = g.download(pc, 4 * n as u64);
    for i in 0..n {
        assert_eq!(f32::from_le_bytes(out[4 * i..4 * i + 4].try_into().unwrap()), 2.0 * i as f32);
    }
    // Two loads of 8192 floats: 2 × 32 KiB = 2048 sectors; stores 1024 sectors. The L2 counts
    // each at every slice it visits: lines homed in the other of the two partitions twice.
    assert_eq!(r.counters["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"], 2048.0);
    let (w, rd) = (r.counters["lts__t_sectors_op_write.sum"], r.counters["lts__t_sectors_op_read.sum"]);
    assert!(w > 1.3 * 1024.0 && w < 1.7 * 1024.0, "{w}");
    assert!(rd > 1.3 * 2048.0 && rd < 1.7 * 2048.0, "{rd}");
    let mut one = cfg();
    one.l2.partitions = 1;
    let k = g.kernel(program("vadd"), dims, params(&[(pa, 8), (pb, 8), (pc, 8), (n as u64, 4)])).unwrap();
    let r1 = run(Arc::new(one), Arc::new(k), &mut g.mem, &RunOptions { threads: 2, regs_per_thread: 16, spills: Default::default(), limits: Default::default() }).unwrap();
    assert_eq!(r1.counters["lts__t_sectors_op_write.sum"], 1024.0);
    assert_eq!(r1.counters["lts__t_sectors_op_read.sum"], 2048.0);
    assert!(r.cycles > 3000);
    println!("vadd cycles {} counters {:?} stalls {:?}", r.cycles, r.counters, r.stalls);
}

#[test]
#[ignore]
fn speed_probe() {
    let n = 1 << 22;
    let mut g = Gpu::new(132);
    let pa = g.upload("a", 4 * n as u64, &[]);
    let pb = g.upload("b", 4 * n as u64, &[]);
    let pc = g.upload("c", 4 * n as u64, &[]);
    let dims = LaunchDims { grid: [(n / 256) as u32, 1, 1], block: [256, 1, 1], cluster: [1, 1, 1], dynamic_smem: 0 };
    let mut c = cfg();
    c.sm.count = 132;
    let k = g.kernel(program("vadd"), dims, params(&[(pa, 8), (pb, 8), (pc, 8), (n as u64, 4)])).unwrap();
    let t = std::time::Instant::now();
    let r = run(Arc::new(c), Arc::new(k), &mut g.mem, &RunOptions { threads: 1, regs_per_thread: 16, spills: Default::default(), limits: Default::default() }).unwrap();
    let s = t.elapsed().as_secs_f64();
    println!("timed: {} warp insts in {:.2}s = {:.2} M/s, cycles {}", r.warp_instructions, s, r.warp_instructions as f64 / s / 1e6, r.cycles);
    let k = g.kernel(program("vadd"), dims, params(&[(pa, 8), (pb, 8), (pc, 8), (n as u64, 4)])).unwrap();
    let t = std::time::Instant::now();
    let st = warpsim_sim::functional::run(&k, &mut g.mem, &Default::default()).unwrap();
    let s = t.elapsed().as_secs_f64();
    println!("functional: {} warp insts in {:.2}s = {:.2} M/s", st.warp_instructions, s, st.warp_instructions as f64 / s / 1e6);
}

/// Runs a bundled workload on the hopper-h200 preset with `edit` applied.
fn bundled_on_h200(name: &str, edit: impl FnOnce(&mut ArchConfig)) -> warpsim_sim::engine::TimingResult {
    let mut cfg = warpsim_sim::presets::preset("hopper-h200").unwrap();
    edit(&mut cfg);
    let w = warpsim_workloads::Workload::bundled(name).unwrap();
    let out = warpsim_sim::launch::run_timed(&w, &cfg, 1).unwrap();
    assert!(out.check.passed(), "{name}: {:?}", out.check);
    out.timing.unwrap()
}

#[test]
fn ctas_spread_evenly_over_sms_of_unequal_gpcs() {
    // 264 CTAs, 4 fit per SM, 132 SMs in 8 GPCs of 16 or 18 SMs: every SM runs two, as on the
    // H200 (ncu: launch__waves_per_multiprocessor 0.5 and 2 CTAs' worth of active warps).
    let r = bundled_on_h200("occ_regs_free", |_| {});
    let mut per_sm = vec![0u32; 132];
    for s in &r.ctas {
        per_sm[s.sm as usize] += 1;
    }
    assert!(per_sm.iter().all(|&n| n == 2), "{per_sm:?}");
}

#[test]
fn integer_adds_share_the_imad_pipe_when_the_preset_says_so() {
    // occ_regs_free is INT-pipe bound: adds that may also issue as IMAD.IADD finish it sooner.
    let both = bundled_on_h200("occ_regs_free", |_| {});
    let int_only = bundled_on_h200("occ_regs_free", |c| c.pipes.iadd_on_imad = false);
    assert_eq!(both.counters["smsp__inst_executed.sum"], int_only.counters["smsp__inst_executed.sum"]);
    assert!(both.cycles * 10 < int_only.cycles * 9, "{} vs {}", both.cycles, int_only.cycles);
}

/// ptxas's spill code (its `-v` figures, given here as ptxas 13.0.88 reports them for
/// `occ_regs_capped` on sm_90) is issued as local-memory traffic: one machine op per 4-byte spill
/// access per warp in straight-line code, spill stores written through to L2, reloads served by
/// the L1 where the stored line still sits, and the kernel slower for it; results unchanged.
#[test]
fn spill_code_costs_instructions_l2_writes_and_time() {
    let cfg = warpsim_sim::presets::preset("hopper-h200").unwrap();
    let mut w = warpsim_workloads::Workload::bundled("occ_regs_capped").unwrap();
    let plain = warpsim_sim::launch::run_timed(&w, &cfg, 1).unwrap();
    w.launches[0].spills = warpsim_workloads::Spills { store_bytes: 716, load_bytes: 744, stack_bytes: 440 };
    let spilled = warpsim_sim::launch::run_timed(&w, &cfg, 1).unwrap();
    assert!(spilled.check.passed(), "{}", spilled.check);
    let (a, b) = (plain.timing.unwrap(), spilled.timing.unwrap());
    let c = |t: &warpsim_sim::engine::TimingResult, k: &str| t.counters[k];
    let warps = 264.0 * 8.0;
    // One op per spill access per warp, but for the few placed on instructions a warp skips.
    let extra = c(&b, "smsp__inst_executed.sum") - c(&a, "smsp__inst_executed.sum");
    assert!(extra <= (179.0 + 186.0) * warps && extra >= 0.99 * (179.0 + 186.0) * warps, "{extra}");
    // Every spill store writes its 4 sectors (a warp's 32 lanes × 4 bytes) to L2, counted at the
    // near and the home slice for lines homed in the other partition (about half).
    let writes = c(&b, "lts__t_sectors_op_write.sum") - c(&a, "lts__t_sectors_op_write.sum");
    assert!(writes > 1.3 * 0.99 * 179.0 * 4.0 * warps && writes < 1.7 * 179.0 * 4.0 * warps, "{writes}");
    // Reloads mostly hit the L1: far fewer extra L2 reads than reload sectors.
    assert!(c(&b, "lts__t_sectors_op_read.sum") - c(&a, "lts__t_sectors_op_read.sum") < 0.1 * 186.0 * 4.0 * warps);
    assert!(b.cycles as f64 > 1.3 * a.cycles as f64, "{} vs {}", b.cycles, a.cycles);
}

#[test]
fn miss_slots_bound_the_misses_in_flight() {
    // copy_stride_1 streams 128 CTAs of loads: with two L1 miss slots per SM, or two outstanding
    // DRAM reads per L2 slice, the same copy waits on memory far longer.
    let free = bundled_on_h200("copy_stride_1", |_| {});
    let l1 = bundled_on_h200("copy_stride_1", |c| c.l1.mshrs = 2);
    let l2 = bundled_on_h200("copy_stride_1", |c| c.l2.mshrs_per_slice = 2);
    for (name, r) in [("l1.mshrs = 2", &l1), ("l2.mshrs_per_slice = 2", &l2)] {
        assert_eq!(r.counters["dram__bytes_read.sum"], free.counters["dram__bytes_read.sum"], "{name}");
        assert!(r.cycles > free.cycles * 5 / 4, "{name}: {} vs {}", r.cycles, free.cycles);
    }
}

/// A launch sequence on one device: its cycles are its launches' sums, the reduction's second
/// pass reads what the first wrote (the check passes), and the result is the same on any
/// number of threads.
#[test]
fn launch_sequences_sum_their_launches_deterministically() {
    let cfg = warpsim_sim::presets::preset("hopper-h200").unwrap();
    for name in ["reduce_two_pass", "jacobi_pingpong"] {
        let w = warpsim_workloads::Workload::bundled(name).unwrap();
        let one = warpsim_sim::launch::run_timed(&w, &cfg, 1).unwrap();
        let four = warpsim_sim::launch::run_timed(&w, &cfg, 4).unwrap();
        assert!(one.check.passed(), "{name}: {}", one.check);
        let (t1, t4) = (one.timing.unwrap(), four.timing.unwrap());
        assert_eq!((t1.cycles, &t1.counters, &t1.stalls), (t4.cycles, &t4.counters, &t4.stalls), "{name}: thread count changed the result");
        assert_eq!(one.launches.len() as u64, w.manifest.schedule().0.len() as u64);
        let sum: u64 = one.launches.iter().map(|(_, r)| r.cycles).sum();
        assert_eq!(t1.cycles, sum, "{name}");
        assert_eq!(t1.get(warpsim_sim::counters::Counter::CyclesElapsed), sum as f64, "{name}");
        let insts: f64 = one.launches.iter().map(|(_, r)| r.get(warpsim_sim::counters::Counter::InstExecuted)).sum();
        assert_eq!(t1.get(warpsim_sim::counters::Counter::InstExecuted), insts, "{name}");
    }
}

/// One warp adds 1.0 to shared floats `iters` times, each lane to word `lane % words`, then
/// writes lane 0's final word; returns (cycles, machine ops, the word).
fn shared_float_adds(words: u32) -> (u64, f64, f32) {
    let src = format!(
        ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 out)\n{{\n.reg .b32 %r<4>;\n.reg .f32 %f<3>;\n.reg .b64 %rd<3>;\n\
         .shared .align 4 .b8 s[128];\nmov.u32 %r1, %tid.x;\nrem.u32 %r2, %r1, {words};\nshl.b32 %r2, %r2, 2;\nmov.u32 %r3, s;\nadd.u32 %r2, %r2, %r3;\n\
         st.shared.f32 [%r2], 0f00000000;\nbar.sync 0;\natom.shared.add.f32 %f1, [%r2], 0f3F800000;\nbar.sync 0;\nld.shared.f32 %f2, [%r3];\n\
         ld.param.u64 %rd1, [out];\nst.global.f32 [%rd1], %f2;\nret;\n}}\n"
    );
    let prog = Arc::new(warpsim_isa::load(&src, "k.ptx").unwrap().remove(0));
    let mut g = Gpu::new(1);
    let out = g.upload("out", 4, &[]);
    let dims = LaunchDims { grid: [1, 1, 1], block: [32, 1, 1], cluster: [1, 1, 1], dynamic_smem: 0 };
    let k = g.kernel(prog, dims, params(&[(out, 8)])).unwrap();
    let cfg = warpsim_sim::presets::preset("hopper-h200").unwrap();
    let opts = RunOptions { threads: 1, regs_per_thread: 32, spills: Default::default(), limits: Default::default() };
    let r = run(Arc::new(cfg), Arc::new(k), &mut g.mem, &opts).unwrap();
    let v = f32::from_le_bytes(g.download(out, 4).try_into().unwrap());
    (r.cycles, r.counters["smsp__inst_executed.sum"], v)
}

#[test]
fn shared_float_atomics_loop_once_per_lane_on_an_address() {
    // ptxas makes `atom.shared.add.f32` an LDS / FADD / ATOMS.CAST.SPIN loop: 32 lanes on one
    // word go round 32 times (seven more machine ops and one more round trip each), 32 lanes on
    // 32 words once.
    let (c1, i1, v1) = shared_float_adds(1);
    let (c32, i32_, v32) = shared_float_adds(32);
    assert_eq!((v1, v32), (32.0, 1.0));
    assert_eq!(i1 - i32_, 31.0 * 6.0, "{i1} vs {i32_}");
    assert!(c1 > c32 + 31 * 90, "{c1} vs {c32}");
}

/// `l1tex__data_pipe_lsu_wavefronts_mem_shared` of a kernel that touches no shared memory: three
/// CTAs of `block`, each warp storing to global memory under a guard that holds in `lanes` of its
/// lanes, then one `bar.sync`.
fn shared_pipe_wavefronts(block: [u32; 3], lanes: u32) -> f64 {
    let src = format!(
        ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 out)\n{{\n.reg .pred %p<2>;\n.reg .b32 %r<3>;\n.reg .b64 %rd<2>;\n\
         mov.u32 %r1, %tid.x;\nand.b32 %r2, %r1, 31;\nsetp.lt.u32 %p1, %r2, {lanes};\nld.param.u64 %rd1, [out];\n@%p1 st.global.u32 [%rd1], %r1;\nbar.sync 0;\nret;\n}}\n"
    );
    let prog = Arc::new(warpsim_isa::load(&src, "k.ptx").unwrap().remove(0));
    let mut g = Gpu::new(1);
    let out = g.upload("out", 4, &[]);
    let dims = LaunchDims { grid: [3, 1, 1], block, cluster: [1, 1, 1], dynamic_smem: 0 };
    let k = g.kernel(prog, dims, params(&[(out, 8)])).unwrap();
    let cfg = warpsim_sim::presets::preset("hopper-h200").unwrap();
    let opts = RunOptions { threads: 1, regs_per_thread: 32, spills: Default::default(), limits: Default::default() };
    run(Arc::new(cfg), Arc::new(k), &mut g.mem, &opts).unwrap().counters["l1tex__data_pipe_lsu_wavefronts_mem_shared.sum"]
}

#[test]
fn the_shared_pipe_counts_exits_barriers_and_guarded_off_accesses() {
    // As ncu counts them on the H200 (sim/src/sm/mod.rs, pipes.rs): one wavefront per warp's exit
    // (two in a 2-D block), one per CTA per completed barrier, one per memory access whose guard
    // is off in every lane. Six warps in three CTAs.
    assert_eq!(shared_pipe_wavefronts([64, 1, 1], 1), 6.0 + 3.0);
    assert_eq!(shared_pipe_wavefronts([32, 2, 1], 1), 12.0 + 3.0);
    assert_eq!(shared_pipe_wavefronts([64, 1, 1], 0), 6.0 + 3.0 + 6.0);
    assert_eq!(shared_pipe_wavefronts([32, 2, 1], 0), 12.0 + 3.0 + 6.0);
}

#[test]
fn wgmma_operands_pass_the_shared_pipe_once_per_warpgroup() {
    // wgmma_latency: 1024 dependent m64n8k16 f16 MMAs with A and B in shared memory: 2 KiB of A
    // and 256 B of B each, 18 wavefronts of 128 B (the H200: 18518 in all, with the four warps'
    // exits, barriers and setup).
    let r = bundled_on_h200("wgmma_latency", |_| {});
    let w = r.counters["l1tex__data_pipe_lsu_wavefronts_mem_shared.sum"];
    assert!((1024.0 * 18.0..1024.0 * 18.0 + 100.0).contains(&w), "{w}");
}

#[test]
fn copies_and_remote_loads_count_where_ncu_counts_them() {
    // cpasync_gemm's `cp.async` (LDGSTS, 16 bytes a lane) are L1 global-load requests to ncu:
    // 1024 requests of 16 sectors on the H200. dsmem_latency's 4096 loads from the peer CTA's
    // shared memory are no shared wavefronts of either SM (H200: 266 in all).
    let r = bundled_on_h200("cpasync_gemm", |_| {});
    assert_eq!(r.counters["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"], 1024.0);
    assert_eq!(r.counters["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"], 16384.0);
    let r = bundled_on_h200("dsmem_latency", |_| {});
    assert!(r.counters["l1tex__data_pipe_lsu_wavefronts_mem_shared.sum"] < 300.0);
}

#[test]
fn wmma_fragments_from_global_memory_move_their_sectors() {
    // `wmma.load`/`wmma.store` on global memory (sass/tests/wmma's f16 -> f32 kernel: per warp a
    // 16x32 f16 A, 32x16 f16 B, a 16x16 f32 C in, D out) go through L1 and L2 as the sectors
    // they touch: 1 KiB each of A, B and C read (96 sectors) and 1 KiB written per warp, the
    // reads from DRAM. (PTX mode moved none of it before: the fragments took the ALU's time.)
    let src = include_str!("../../sass/tests/wmma/kernel.ptx");
    let prog = Arc::new(warpsim_isa::load(src, "kernel.ptx").unwrap().into_iter().find(|p| p.name == "wmma_f16_f32").unwrap());
    let warps = 264u64;
    let mut g = Gpu::new(1);
    let bufs: Vec<u64> = (0..4).map(|_| g.upload("buf", 1024 * warps, &[])).collect();
    let dims = LaunchDims { grid: [33, 1, 1], block: [256, 1, 1], cluster: [1, 1, 1], dynamic_smem: 0 };
    let k = g.kernel(prog, dims, params(&bufs.iter().map(|&b| (b, 8)).collect::<Vec<_>>())).unwrap();
    let cfg = warpsim_sim::presets::preset("hopper-h200").unwrap();
    let opts = RunOptions { threads: 1, regs_per_thread: 64, spills: Default::default(), limits: Default::default() };
    let r = run(Arc::new(cfg), Arc::new(k), &mut g.mem, &opts).unwrap();
    assert_eq!(r.counters["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"], (96 * warps) as f64);
    assert_eq!(r.counters["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"], (32 * warps) as f64);
    assert!(r.counters["dram__bytes_read.sum"] >= (3072 * warps) as f64, "{}", r.counters["dram__bytes_read.sum"]);
}

#[test]
fn a_global_atomic_drops_its_line_from_the_l1() {
    // One warp loads a line's 4 sectors, lane 0 adds to word 0 with a RED, and the warp loads
    // the line again: the L2 performs the RED, so the L1 drops the line and the reload misses
    // all 4 sectors (4 more L2 read sectors per line), as on an H100
    // (validate/data/h200/atominval: 4 of 4 missed after an ATOM, RED or CAS on one word).
    let reads = |atomic: u64| {
        let lines = 64u64;
        let mut g = Gpu::new(1);
        let buf = g.upload("buf", 128 * lines, &[]);
        let dims = LaunchDims { grid: [1, 1, 1], block: [32, 1, 1], cluster: [1, 1, 1], dynamic_smem: 0 };
        let k = g.kernel(program("reload_after_atomic"), dims, params(&[(buf, 8), (lines, 4), (atomic, 4)])).unwrap();
        let mut one = cfg();
        one.l2.partitions = 1;
        let opts = RunOptions { threads: 1, regs_per_thread: 16, spills: Default::default(), limits: Default::default() };
        let r = run(Arc::new(one), Arc::new(k), &mut g.mem, &opts).unwrap();
        let words = g.download(buf, 128 * lines);
        assert_eq!(words[0], atomic as u8);
        (r.counters["lts__t_sectors_op_read.sum"], r.counters["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"])
    };
    let (plain, plain_l1) = reads(0);
    let (after, after_l1) = reads(1);
    assert_eq!((plain_l1, after_l1), (64.0 * 8.0, 64.0 * 8.0));
    assert_eq!(after - plain, 4.0 * 64.0, "{plain} {after}");
}

/// Cycles of `chain_lines` on one CTA of `warps` warps: each chains 200 dependent loads whose
/// lanes touch `n` lines (L1 hits after the first pass).
fn chain_lines_cycles(c: ArchConfig, warps: u32, n: u64) -> u64 {
    let iters = 200u64;
    let mut g = Gpu::new(1);
    let buf = g.upload("buf", 128 * 32, &[]);
    let dims = LaunchDims { grid: [1, 1, 1], block: [32 * warps, 1, 1], cluster: [1, 1, 1], dynamic_smem: 0 };
    let k = g.kernel(program("chain_lines"), dims, params(&[(buf, 8), (n, 4), (iters, 4)])).unwrap();
    let opts = RunOptions { threads: 1, regs_per_thread: 16, spills: Default::default(), limits: Default::default() };
    run(Arc::new(c), Arc::new(k), &mut g.mem, &opts).unwrap().cycles
}

#[test]
fn a_load_over_more_lines_waits_for_its_last_line() {
    // The L1's tag stage takes a warp load's lines one per cycle (`l1.lines_per_cycle`), and
    // each line's hit is ready `l1.latency` after its own turn: a chain of loads over 32 lines
    // (L1 hits) takes about 31 cycles more per load than over one (33 here; 2 when the lines
    // all left together). An H100 waits ~2.2 cycles more per further line, L2 hits
    // (validate/data/h200/gatherlat).
    let cycles = |n: u64| chain_lines_cycles(cfg(), 1, n);
    let (one, all) = (cycles(1), cycles(32));
    let per_load = (all - one) as f64 / 200.0;
    assert!((30.0..=35.0).contains(&per_load), "{one} {all}: {per_load} cycles more per load");
}

#[test]
fn a_load_over_more_than_two_lines_holds_the_tag_stage_longer() {
    // 32 warps chain loads over n lines (L1 hits), so the tag stage bounds them: with
    // `l1.request_cycles` = 2 an 8-line load holds it 10 cycles instead of 8 (an H100 takes
    // about n + 2: validate/data/h100/l1lines); a two-line load keeps its two.
    let cycles = |n: u64, extra: u32| {
        let mut c = cfg();
        c.l1.request_cycles = extra;
        chain_lines_cycles(c, 32, n)
    };
    let (plain, held) = (cycles(8, 0), cycles(8, 2));
    let ratio = held as f64 / plain as f64;
    assert!((1.18..=1.26).contains(&ratio), "{plain} -> {held}: {ratio}");
    assert_eq!(cycles(2, 0), cycles(2, 2));
}

fn split_loop_cycles(c: ArchConfig, warps: u32, mask: u64) -> u64 {
    let mut g = Gpu::new(1);
    let dims = LaunchDims { grid: [1, 1, 1], block: [32 * warps, 1, 1], cluster: [1, 1, 1], dynamic_smem: 0 };
    let k = g.kernel(program("split_loop"), dims, params(&[(100, 4), (mask, 4)])).unwrap();
    let opts = RunOptions { threads: 1, regs_per_thread: 16, spills: Default::default(), limits: Default::default() };
    run(Arc::new(c), Arc::new(k), &mut g.mem, &opts).unwrap().cycles
}

#[test]
fn a_branch_that_splits_the_warp_waits_for_the_branch_unit() {
    // 100 rounds of an if/else on the lane's parity: every round's branch splits the warp.
    // `misc.divergent_branch_cycles` = 100 keeps one warp from issuing 100 cycles after each
    // split; a warp that stays together does not pay it.
    let cycles = |warps: u32, mask: u64, fixed: u32, unit: u32| {
        let mut c = cfg();
        c.misc.divergent_branch_cycles = fixed;
        c.misc.divergent_branch_issue_cycles = unit;
        split_loop_cycles(c, warps, mask)
    };
    let per_split = (cycles(1, 1, 100, 0) - cycles(1, 1, 0, 0)) as f64 / 100.0;
    assert!((95.0..=105.0).contains(&per_split), "{per_split} cycles more per split");
    assert_eq!(cycles(1, 0, 0, 0), cycles(1, 0, 100, 40));
    // The splits of 32 warps queue at the SM's branch unit, 40 cycles each: 3200 of them take
    // at least 128000 cycles, where the branches alone take a few thousand.
    let (free, queued) = (cycles(32, 1, 0, 0), cycles(32, 1, 0, 40));
    assert!(free < 20_000 && (128_000..=140_000).contains(&queued), "{free} -> {queued}");
}
