//! End-to-end functional runs of NVRTC-generated PTX (sim/tests/ptx/basic.ptx, from the CUDA
//! source in its comments' kernels: vadd, reduce_shfl, calls, diverge; and kernels written by hand
//! there, as f64_ops).

use std::sync::Arc;

use warpsim_sim::{FaultKind, Gpu, LaunchDims};

fn program(name: &str) -> Arc<warpsim_isa::Program> {
    let src = include_str!("ptx/basic.ptx");
    let progs = warpsim_isa::load(src, "basic.ptx").unwrap();
    Arc::new(progs.into_iter().find(|p| p.name == name).unwrap())
}

fn dims(grid: u32, block: u32) -> LaunchDims {
    LaunchDims { grid: [grid, 1, 1], block: [block, 1, 1], cluster: [1, 1, 1], dynamic_smem: 0 }
}

fn params(vals: &[u64], sizes: &[usize]) -> Vec<u8> {
    let mut p = Vec::new();
    for (v, &n) in vals.iter().zip(sizes) {
        while p.len() % n != 0 {
            p.push(0);
        }
        p.extend_from_slice(&v.to_le_bytes()[..n]);
    }
    p
}

#[test]
fn vector_add_with_partial_block() {
    let n = 1000usize;
    let a: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
    let b: Vec<f32> = (0..n).map(|i| 1.0 - i as f32).collect();
    let bytes = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let mut g = Gpu::new(132);
    let pa = g.upload("a", 4 * n as u64, &bytes(&a));
    let pb = g.upload("b", 4 * n as u64, &bytes(&b));
    let pc = g.upload("c", 4 * n as u64, &[]);
    let st = g.run_functional(program("vadd"), dims(4, 256), params(&[pa, pb, pc, n as u64], &[8, 8, 8, 4])).unwrap();
    assert_eq!(st.ctas, 4);
    let c = g.download(pc, 4 * n as u64);
    for i in 0..n {
        let got = f32::from_le_bytes(c[4 * i..4 * i + 4].try_into().unwrap());
        assert_eq!(got, a[i] + b[i], "element {i}");
    }
}

#[test]
fn shuffle_reduction_with_barrier_and_atomics() {
    let n = 5000usize;
    let input: Vec<i32> = (0..n as i32).map(|i| (i * 7919) % 1000 - 500).collect();
    let mut g = Gpu::new(132);
    let pin = g.upload("in", 4 * n as u64, &input.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>());
    let pout = g.upload("out", 4, &[]);
    g.run_functional(program("reduce_shfl"), dims(20, 256), params(&[pin, pout, n as u64], &[8, 8, 4])).unwrap();
    let got = i32::from_le_bytes(g.download(pout, 4).try_into().unwrap());
    assert_eq!(got, input.iter().sum::<i32>());
}

fn fib(n: i32) -> i32 {
    if n < 2 {
        n
    } else {
        fib(n - 1) + fib(n - 2)
    }
}

#[test]
fn recursive_device_calls_under_divergence() {
    let mut g = Gpu::new(132);
    let pout = g.upload("out", 4 * 64, &[]);
    g.run_functional(program("calls"), dims(1, 64), params(&[pout], &[8])).unwrap();
    let out = g.download(pout, 4 * 64);
    for t in 0..64 {
        let want = if t & 1 == 1 { fib(t % 12) } else { -fib(t % 7) };
        assert_eq!(i32::from_le_bytes(out[4 * t as usize..4 * t as usize + 4].try_into().unwrap()), want, "thread {t}");
    }
}

#[test]
fn divergent_loops_early_exit_and_barrier_count() {
    let mut g = Gpu::new(132);
    let pout = g.upload("out", 4 * 96, &[]);
    g.run_functional(program("diverge"), dims(1, 96), params(&[pout], &[8])).unwrap();
    let out = g.download(pout, 4 * 96);
    // Threads with t % 3 == 0 return before the barrier; the rest count odd threads among themselves.
    let odd_live = (0..96).filter(|t| t % 3 != 0 && t & 1 == 1).count() as i32;
    for t in 0..96i32 {
        let mut acc = 0;
        for i in 0..t % 5 {
            if i & 1 == 1 {
                acc += i * t
            } else {
                acc -= t
            }
        }
        let want = if t % 3 == 0 { acc } else { acc * 2 + odd_live };
        assert_eq!(i32::from_le_bytes(out[4 * t as usize..4 * t as usize + 4].try_into().unwrap()), want, "thread {t}");
    }
}

#[test]
fn out_of_bounds_store_names_thread_and_line() {
    let n = 1000usize;
    let mut g = Gpu::new(132);
    let pa = g.upload("a", 4 * n as u64, &[]);
    let pb = g.upload("b", 4 * n as u64, &[]);
    let pc = g.upload("c", 4 * 10, &[]);
    let e = g.run_functional(program("vadd"), dims(4, 256), params(&[pa, pb, pc, n as u64], &[8, 8, 8, 4])).unwrap_err();
    assert!(matches!(e.kind, FaultKind::OutOfBounds { write: true, .. }), "{e}");
    let msg = e.to_string();
    assert!(msg.contains("CTA (0,0,0), thread (10,0,0)"), "{msg}");
    assert!(msg.contains("basic.ptx:") && msg.contains("k.cu:3)"), "{msg}");
    assert!(msg.contains("nearest allocation `c`"), "{msg}");
}

/// An mbarrier that expects 4096 transaction bytes nobody sends: the wait is reported as a
/// deadlock naming the barrier's address, phase, pending arrivals and tx-count, in functional
/// and in timed runs, instead of hanging.
#[test]
fn an_mbarrier_whose_bytes_never_arrive_is_a_reported_deadlock() {
    let src = r#"
.version 8.0
.target sm_90
.address_size 64
.visible .entry starve()
{
    .reg .pred %p;
    .reg .b32 %r<3>;
    .reg .b64 %rd<2>;
    .shared .align 8 .b64 bar;
    mov.u32 %r1, bar;
    mbarrier.init.shared::cta.b64 [%r1], 1;
    mbarrier.arrive.expect_tx.shared::cta.b64 %rd1, [%r1], 4096;
$wait:
    mbarrier.try_wait.parity.shared::cta.b64 %p, [%r1], 0;
    @!%p bra $wait;
    ret;
}
"#;
    let prog = Arc::new(warpsim_isa::load(src, "starve.ptx").unwrap().remove(0));
    let mut g = Gpu::new(132);
    // One thread: one arrival (the expected count) and 4096 expected bytes.
    let e = g.run_functional(Arc::clone(&prog), dims(1, 1), Vec::new()).unwrap_err();
    let msg = e.to_string();
    assert!(matches!(e.kind, FaultKind::Deadlock(_)), "{msg}");
    assert!(msg.contains("mbarrier at shared 0x0") && msg.contains("phase 0"), "{msg}");
    assert!(msg.contains("0 of 1 arrivals pending, tx-count 4096 bytes"), "{msg}");
    // Reported at the try_wait (line 15 of the source above).
    assert!(msg.contains("starve.ptx:15"), "{msg}");

    let cfg = Arc::new(warpsim_sim::presets::preset("hopper-h200").unwrap());
    let k = Arc::new(g.kernel(prog, dims(1, 1), Vec::new()).unwrap());
    let opts = warpsim_sim::engine::RunOptions { threads: 1, regs_per_thread: 16, spills: Default::default(), limits: Default::default() };
    let e = warpsim_sim::engine::run(cfg, k, &mut g.mem, &opts).map(|_| ()).unwrap_err();
    let msg = e.to_string();
    assert!(matches!(e.kind, FaultKind::Deadlock(_)), "{msg}");
    assert!(msg.contains("tx-count 4096 bytes") && msg.contains("starve.ptx:15"), "{msg}");
}

/// Launches past the hardware's limits are refused before anything is allocated: grid y of
/// 65536, 4 GiB of local memory per thread, and (functional runs too check the preset's
/// limits) more dynamic shared memory than the preset gives a block.
#[test]
fn launches_past_the_limits_are_refused_before_allocation() {
    let mut g = Gpu::new(132);
    let big = LaunchDims { grid: [1, 65536, 1], ..dims(1, 32) };
    let e = g.kernel(program("vadd"), big, vec![0; 64]).map(|_| ()).unwrap_err();
    assert!(e.to_string().contains("grid [1, 65536, 1] exceeds the largest a GPU launches"), "{e}");
    let src = ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n.local .b8 big[4294967295];\nret;\n}\n";
    let prog = Arc::new(warpsim_isa::load(src, "k.ptx").unwrap().remove(0));
    let e = g.kernel(prog, dims(1, 32), Vec::new()).map(|_| ()).unwrap_err();
    assert!(e.to_string().contains("4294967295 bytes of local memory per thread exceed the 524288"), "{e}");

    let mut w = warpsim_workloads::Workload::bundled("vector_add").unwrap();
    w.launches[0].dynamic_smem = 100_000;
    let volta = warpsim_sim::presets::preset("volta-gv100").unwrap();
    let e = warpsim_sim::launch::run_functional_within(&w, &volta, &Default::default()).map(|_| ()).unwrap_err().to_string();
    assert!(e.contains("invalid launch: 100000 bytes of shared memory per block exceed the 96 KiB a block may use on volta-gv100"), "{e}");
    let h200 = warpsim_sim::presets::preset("hopper-h200").unwrap();
    assert!(warpsim_sim::launch::run_functional_within(&w, &h200, &Default::default()).unwrap().check.passed());
}

#[test]
fn f64_arithmetic_rounds_as_ieee_under_split_warps() {
    // Every lane of 45 threads (the second warp partial, each warp split odd/even) against the
    // host's IEEE double arithmetic: sums and products that round, an FMA whose fused rounding
    // differs from a*b+c, subnormals, signed zeros, magnitudes near overflow.
    let n = 45usize;
    let special = [0.1, -0.0, 5e-324, -2.5e-310, 1.0 + f64::EPSILON, 1.7e308, -3.0, 1e-300];
    let a: Vec<f64> = (0..n).map(|i| special[i % 8] * (1.0 + i as f64 / 7.0)).collect();
    let b: Vec<f64> = (0..n).map(|i| special[(i * 3 + 1) % 8] - i as f64 / 3.0).collect();
    let c: Vec<f64> = (0..n).map(|i| special[(i * 5 + 2) % 8] / (i as f64 + 0.5)).collect();
    let bytes = |v: &[f64]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let mut g = Gpu::new(132);
    let pa = g.upload("a", 8 * n as u64, &bytes(&a));
    let pb = g.upload("b", 8 * n as u64, &bytes(&b));
    let pc = g.upload("c", 8 * n as u64, &bytes(&c));
    let pout = g.upload("out", 32 * n as u64, &[]);
    g.run_functional(program("f64_ops"), dims(1, 64), params(&[pa, pb, pc, pout, n as u64], &[8, 8, 8, 8, 4])).unwrap();
    let out = g.download(pout, 32 * n as u64);
    for t in 0..n {
        let (x, y, z) = (a[t], b[t], c[t]);
        let want = if t % 2 == 1 { [x + y, x - y, x * y, x.mul_add(y, z)] } else { [y.mul_add(z, x), z * z, z - x, y + z] };
        for (k, w) in want.iter().enumerate() {
            let got = f64::from_le_bytes(out[32 * t + 8 * k..32 * t + 8 * k + 8].try_into().unwrap());
            assert_eq!(got.to_bits(), w.to_bits(), "thread {t}, result {k}: {got:e} against {w:e}");
        }
    }
}
