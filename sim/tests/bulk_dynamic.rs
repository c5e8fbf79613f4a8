//! A legitimate bulk copy into an aligned dynamic shared buffer (reliability issue, point 8): the
//! dynamic region begins at the `.extern .shared` declaration's alignment after the static
//! variables, and `cp.async.bulk` needs its addresses 16-byte aligned, not aligned to its size.

use std::sync::Arc;

use warpsim_sim::{Gpu, LaunchDims};

#[test]
fn a_bulk_copy_fills_an_aligned_dynamic_buffer() {
    let progs = warpsim_isa::load(include_str!("ptx/bulk_dynamic.ptx"), "bulk_dynamic.ptx").unwrap();
    let prog = Arc::new(progs.into_iter().find(|p| p.name == "bulk_fill").unwrap());
    let buf = prog.symbols.iter().find(|s| s.name == "buf").unwrap();
    assert_eq!(buf.offset, 128, "dynamic buffer after an 8-byte mbarrier, at its 128-byte alignment");
    let words: Vec<u8> = (0..4096u32).flat_map(|v| (v * 7 + 1).to_le_bytes()).collect();
    let mut g = Gpu::new(1);
    let src = g.upload("src", words.len() as u64, &words);
    let out = g.upload("out", words.len() as u64, &[]);
    let dims = LaunchDims { grid: [1, 1, 1], block: [256, 1, 1], cluster: [1, 1, 1], dynamic_smem: 16384 };
    let params = [src.to_le_bytes(), out.to_le_bytes()].concat();
    g.run_functional(prog, dims, params).unwrap();
    assert_eq!(g.download(out, words.len() as u64), words);
}
