//! 64-bit atomics (`ATOMG/REDG .64/.S64/.F64`, `CAS.64`), ptxas's shared-memory loops on
//! `ATOMS.CAST.SPIN.64` and the barrier reductions (`BAR.RED.POPC/AND/OR` + `B2R.RESULT`) in SASS
//! mode: `atomics/kernel.cu` from its committed sm_80 and sm_90 listings, compared bit for bit with
//! PTX mode over two CTAs of 96 threads (three warps each).

use std::sync::Arc;

use warpsim_sim::{Gpu, LaunchDims};

const PTX: &str = include_str!("atomics/kernel.ptx");
const CTAS: usize = 2;
const THREADS: usize = 96;

/// The kernel's outputs: `out` (8 words a thread) and the three atomic arrays afterwards.
fn run(prog: warpsim_isa::Program, base: usize) -> Vec<Vec<u8>> {
    let n = CTAS * THREADS;
    let mut g = Gpu::new(2);
    let sel: Vec<u8> = (0..n).flat_map(|i| (((i * 7) % 11) as i32 - 3).to_le_bytes()).collect();
    let sizes = [8 * 512, 8 * 64, 8 * 128, 8 * 8 * n, 4 * n];
    let ptrs: Vec<u64> = sizes.iter().enumerate().map(|(i, &s)| g.upload("buf", s as u64, if i == 4 { &sel } else { &[] })).collect();
    let mut params = vec![0u8; prog.param_bytes as usize];
    for (i, p) in ptrs.iter().enumerate() {
        params[base + 8 * i..base + 8 * i + 8].copy_from_slice(&p.to_le_bytes());
    }
    let dims = LaunchDims { grid: [CTAS as u32, 1, 1], block: [THREADS as u32, 1, 1], cluster: [1, 1, 1], dynamic_smem: 0 };
    g.run_functional(Arc::new(prog), dims, params).unwrap_or_else(|e| panic!("{e}"));
    ptrs.iter().zip(sizes).take(4).map(|(&p, s)| g.download(p, s as u64)).collect()
}

fn compare(target: &str, listing: &str) {
    let ptx = warpsim_isa::load(PTX, "atomics/kernel.ptx").unwrap().remove(0);
    let sass = warpsim_sass::lower::lower_listing(listing, "atomics64", &ptx).unwrap_or_else(|e| panic!("{target}: {e}"));
    let want = run(ptx, 0);
    let got = run(sass, warpsim_sass::abi::param_base(target).unwrap() as usize);
    for (k, name) in ["u", "s", "d", "out"].iter().enumerate() {
        let words = |b: &[u8]| b.chunks(8).map(|c| u64::from_le_bytes(c.try_into().unwrap())).collect::<Vec<_>>();
        let (g, w) = (words(&got[k]), words(&want[k]));
        let bad: Vec<String> = g.iter().zip(&w).enumerate().filter(|(_, (a, b))| a != b).take(8).map(|(i, (a, b))| format!("{name}[{i}]: SASS {a:#x}, PTX {b:#x}")).collect();
        assert!(bad.is_empty(), "{target}: {}", bad.join("; "));
    }
    // The reductions really ran: the CTA's count of sel > 0 (and, or) in every thread's word.
    let out = &got[3];
    let c = u64::from_le_bytes(out[6 * 8..7 * 8].try_into().unwrap());
    assert!(c > 0 && c < 200_000, "{target}: barrier reduction result {c}");
}

#[test]
fn sm_90_atomics_match_ptx_mode() {
    compare("sm_90", include_str!("atomics/kernel.sm_90.sass"));
}

#[test]
fn sm_80_atomics_match_ptx_mode() {
    compare("sm_80", include_str!("atomics/kernel.sm_80.sass"));
}
