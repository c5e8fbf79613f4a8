//! WMMA in SASS mode: ptxas turns `wmma.mma` into `HMMA.16816` (f16 and bf16 inputs, f32 or f16
//! accumulators) and `HMMA.1684` (tf32) with no `mma.sync` in the PTX, so the lowering takes the
//! `mma.sync` form from the opcode (`lower::hmma_form`). `wmma/kernel.cu`'s four kernels (fragments
//! loaded straight from global memory, row- and column-major, loaded and zero accumulators) run
//! from their committed sm_80 and sm_90 listings and must match PTX mode bit for bit, and the
//! f16 → f32 kernel a host reference; small integer inputs keep every sum exact, so an element
//! in the wrong place cannot round into agreement.

use std::sync::Arc;

use warpsim_sim::{Gpu, LaunchDims};

const PTX: &str = include_str!("wmma/kernel.ptx");
const CTAS: u32 = 2;
const THREADS: u32 = 64;
const WARPS: usize = (CTAS * THREADS / 32) as usize;

/// Element kinds of the buffers.
#[derive(Clone, Copy)]
enum El {
    F16,
    Bf16,
    F32,
}

/// A small integer (-3..=3) as `el`'s bytes.
fn encode(el: El, v: i32) -> Vec<u8> {
    let f = v as f32;
    match el {
        El::F32 => f.to_le_bytes().to_vec(),
        El::Bf16 => ((f.to_bits() >> 16) as u16).to_le_bytes().to_vec(),
        El::F16 => {
            let h: u16 = match v.abs() {
                0 => 0,
                1 => 0x3c00,
                2 => 0x4000,
                _ => 0x4200,
            };
            (if v < 0 { h | 0x8000 } else { h }).to_le_bytes().to_vec()
        }
    }
}

/// Input `i` of a kernel: `n` values drawn from -3..=3 by a fixed pattern.
fn values(i: usize, n: usize) -> Vec<i32> {
    (0..n).map(|k| ((k * (5 + 2 * i) + 3 * i + k / 7) % 7) as i32 - 3).collect()
}

/// Runs `prog` with `inputs` (element kind and count each) and an output of `out` bytes; returns
/// the output's bytes.
fn run(prog: warpsim_isa::Program, base: usize, inputs: &[(El, usize)], out: usize) -> Vec<u8> {
    let mut g = Gpu::new(2);
    let mut ptrs: Vec<u64> = inputs
        .iter()
        .enumerate()
        .map(|(i, &(el, n))| {
            let bytes: Vec<u8> = values(i, n).into_iter().flat_map(|v| encode(el, v)).collect();
            g.upload("in", bytes.len() as u64, &bytes)
        })
        .collect();
    ptrs.push(g.upload("out", out as u64, &[]));
    let mut params = vec![0u8; prog.param_bytes as usize];
    for (i, p) in ptrs.iter().enumerate() {
        params[base + 8 * i..base + 8 * i + 8].copy_from_slice(&p.to_le_bytes());
    }
    let dims = LaunchDims { grid: [CTAS, 1, 1], block: [THREADS, 1, 1], cluster: [1, 1, 1], dynamic_smem: 0 };
    g.run_functional(Arc::new(prog), dims, params).unwrap_or_else(|e| panic!("{e}"));
    g.download(*ptrs.last().unwrap(), out as u64)
}

/// A kernel of `wmma/kernel.cu`: its entry, its inputs (element kind, count) and its output's bytes.
struct Kernel {
    entry: &'static str,
    inputs: Vec<(El, usize)>,
    out: usize,
}

fn kernels() -> Vec<Kernel> {
    let w = WARPS;
    let k = |entry, inputs, out| Kernel { entry, inputs, out };
    vec![
        k("wmma_f16_f32", vec![(El::F16, w * 512), (El::F16, w * 512), (El::F32, w * 256)], w * 256 * 4),
        k("wmma_f16_f16", vec![(El::F16, w * 256), (El::F16, w * 256)], w * 256 * 2),
        k("wmma_bf16", vec![(El::Bf16, w * 512), (El::Bf16, w * 128)], w * 256 * 4),
        k("wmma_tf32", vec![(El::F32, w * 128), (El::F32, w * 128), (El::F32, w * 256)], w * 256 * 4),
    ]
}

fn compare(target: &str, listing: &str) {
    let module = warpsim_isa::load(PTX, "wmma/kernel.ptx").unwrap();
    let base = warpsim_sass::abi::param_base(target).unwrap() as usize;
    for Kernel { entry, inputs, out } in kernels() {
        let ptx = module.iter().find(|p| p.name == entry).unwrap().clone();
        let sass = warpsim_sass::lower::lower_listing(listing, entry, &ptx).unwrap_or_else(|e| panic!("{target} {entry}: {e}"));
        assert!(sass.insts.iter().any(|i| i.op == warpsim_isa::inst::Op::Matrix(warpsim_isa::inst::MatrixOp::Mma)), "{target} {entry}: no HMMA lowered");
        let want = run(ptx, 0, &inputs, out);
        let got = run(sass, base, &inputs, out);
        assert!(want.iter().any(|&b| b != 0), "{target} {entry}: PTX mode wrote nothing");
        let bad: Vec<String> = got.chunks(4).zip(want.chunks(4)).enumerate().filter(|(_, (a, b))| a != b).take(6).map(|(i, (a, b))| format!("word {i}: SASS {a:02x?}, PTX {b:02x?}")).collect();
        assert!(bad.is_empty(), "{target} {entry}: {}", bad.join("; "));
        if entry == "wmma_f16_f32" {
            // D = C + A B per warp: A 16x32 row-major, B 32x16 column-major (ld 32), C and D 16x16
            // row-major.
            let (a, b, c) = (values(0, WARPS * 512), values(1, WARPS * 512), values(2, WARPS * 256));
            let d: Vec<f32> = got.chunks(4).map(|x| f32::from_le_bytes(x.try_into().unwrap())).collect();
            for w in 0..WARPS {
                for i in 0..16 {
                    for j in 0..16 {
                        let s: i32 = c[w * 256 + i * 16 + j] + (0..32).map(|k| a[w * 512 + i * 32 + k] * b[w * 512 + j * 32 + k]).sum::<i32>();
                        assert_eq!(d[w * 256 + i * 16 + j], s as f32, "{target}: warp {w} D[{i}][{j}]");
                    }
                }
            }
        }
    }
}

#[test]
fn sm_90_wmma_matches_ptx_mode() {
    compare("sm_90", include_str!("wmma/kernel.sm_90.sass"));
}

#[test]
fn sm_80_wmma_matches_ptx_mode() {
    compare("sm_80", include_str!("wmma/kernel.sm_80.sass"));
}
