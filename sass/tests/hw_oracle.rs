//! SASS mode against the H200 itself: the kernels of the floating-point oracle
//! (`isa/tests/hw/fp_oracle.cu`, one inline-PTX instruction each, run on an H200 into
//! `isa/tests/hw/fp_oracle_h200.txt`) lowered from their sm_90 SASS and run on the same inputs.
//! Each result must be the H200's, or else PTX mode's (whose error against the H200 the isa
//! oracle test bounds: the MUFU approximations), or for a MUFU-based approximation within 2 units
//! in the last place of the H200's; the exact count is pinned so that a lowering that
//! loses exactness fails. Kernels with an opcode not lowered yet (SASS mode would run them as
//! PTX) are counted, and their number may only fall.
//!
//! The PTX and SASS are committed compressed (CUDA 13.0.88, the H200's build, from
//! `tools/setup_cuda_wheels.sh`):
//!   nvcc -arch=sm_90 -ptx -o fpo.ptx isa/tests/hw/fp_oracle.cu && ptxas -arch=sm_90 -o fpo.cubin fpo.ptx
//!   nvdisasm -c -hex fpo.cubin | tr -s ' ' > fpo.sass; gzip -9 -n fpo.ptx fpo.sass
//! (to sass/tests/oracle/fp_oracle.sm_90.{ptx,sass}.gz).

use std::collections::HashMap;
use std::io::Read;
use std::sync::Arc;

use warpsim_sim::{Gpu, LaunchDims};

const ORACLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../isa/tests/hw/fp_oracle_h200.txt");
const SOURCE: &str = include_str!("../../isa/tests/hw/fp_oracle.cu");

fn gunzip(bytes: &[u8]) -> String {
    let mut s = String::new();
    flate2::read::GzDecoder::new(bytes).read_to_string(&mut s).expect("a gzip'd text file");
    s
}

struct Op {
    name: String,
    set: String,
    bits: usize,
    want: Vec<u64>,
}

/// The oracle file: its input sets (arity, operands per input) and its instructions' results.
fn read_oracle(text: &str) -> (HashMap<String, (usize, Vec<Vec<u64>>)>, Vec<Op>) {
    let hex = |s: &str| u64::from_str_radix(s, 16).expect("hex");
    let mut lines = text.lines().filter(|l| !l.starts_with('#'));
    let (mut sets, mut ops) = (HashMap::new(), Vec::new());
    while let Some(l) = lines.next() {
        let w: Vec<&str> = l.split_whitespace().collect();
        match w[..] {
            ["set", name, arity, n] => {
                let v: Vec<Vec<u64>> = (0..n.parse::<usize>().unwrap()).map(|_| lines.next().unwrap().split_whitespace().map(hex).collect()).collect();
                sets.insert(name.to_string(), (arity.parse().unwrap(), v));
            }
            ["op", name, set, bits] => {
                let want = (0..sets[set].1.len()).map(|_| hex(lines.next().unwrap().trim())).collect();
                ops.push(Op { name: name.to_string(), set: set.to_string(), bits: bits.parse().unwrap(), want });
            }
            _ => panic!("oracle line `{l}`"),
        }
    }
    (sets, ops)
}

/// Each registered instruction, in order: its source line (the kernels are named `op_<line>`),
/// its name and the bytes of its source operands (register kind `F_`, `D_`, `H_`, `R_`, `L_`; the
/// 8-bit forms `U8D`/`U8S` pass 16-bit registers).
fn registered() -> Vec<(usize, String, usize)> {
    SOURCE
        .lines()
        .enumerate()
        .filter_map(|(i, l)| {
            let t = l.trim_start();
            let rest = ["U(\"", "B(\"", "T(\"", "PU(\"", "PB(\"", "U8D(\"", "U8S(\""].iter().find_map(|p| t.strip_prefix(p))?;
            let (name, args) = rest.split_once('"')?;
            let kinds: Vec<&str> = args.split(',').map(str::trim).filter(|a| a.ends_with('_')).collect();
            let width = match kinds.last().copied() {
                Some("D_" | "L_") => 8,
                Some("F_" | "R_") => 4,
                _ => 2,
            };
            Some((i + 1, name.to_string(), width))
        })
        .collect()
}

/// Runs `prog` (parameters from byte `base`) over an input set; the `bits`-wide results.
fn run(prog: warpsim_isa::Program, base: usize, arity: usize, inputs: &[Vec<u64>], w: usize, bits: usize) -> Vec<u64> {
    let n = inputs.len();
    let dw = bits.div_ceil(8);
    let mut g = Gpu::new(2);
    let mut ptrs: Vec<u64> = (0..arity)
        .map(|k| {
            let b: Vec<u8> = inputs.iter().flat_map(|v| v[k].to_le_bytes()[..w].to_vec()).collect();
            g.upload("in", (n * w) as u64, &b)
        })
        .collect();
    let out = g.upload("out", (n * dw.max(4)) as u64, &[]);
    ptrs.push(out);
    let mut params = vec![0u8; prog.param_bytes as usize];
    for (i, q) in ptrs.iter().enumerate() {
        params[base + 8 * i..base + 8 * i + 8].copy_from_slice(&q.to_le_bytes());
    }
    let at = base + 8 * ptrs.len();
    params[at..at + 4].copy_from_slice(&(n as u32).to_le_bytes());
    let dims = LaunchDims { grid: [n.div_ceil(128) as u32, 1, 1], block: [128, 1, 1], cluster: [1, 1, 1], dynamic_smem: 0 };
    g.run_functional(Arc::new(prog), dims, params).unwrap_or_else(|e| panic!("{e}"));
    let got = g.download(out, (n * dw) as u64);
    got.chunks(dw)
        .map(|c| {
            let mut b = [0u8; 8];
            b[..dw].copy_from_slice(c);
            u64::from_le_bytes(b)
        })
        .collect()
}

#[test]
fn oracle_kernels_in_sass_mode_compute_what_the_h200_did() {
    let Ok(text) = std::fs::read_to_string(ORACLE) else {
        eprintln!("hw_oracle: skipped, {ORACLE} is absent");
        return;
    };
    let (sets, ops) = read_oracle(&text);
    let lines = registered();
    assert_eq!(ops.len(), lines.len(), "one oracle block per registered instruction");
    let ptx = gunzip(include_bytes!("oracle/fp_oracle.sm_90.ptx.gz"));
    let module = warpsim_sass::parse(&gunzip(include_bytes!("oracle/fp_oracle.sm_90.sass.gz"))).expect("the listing parses");
    let progs = warpsim_isa::load(&ptx, "fp_oracle.ptx").expect("the PTX loads");
    let (mut exact, mut near, mut unlowered, mut wrong) = (0, 0, Vec::new(), Vec::new());
    for (op, (line, name, w)) in ops.iter().zip(&lines) {
        assert_eq!(&op.name, name, "oracle order");
        let tag = format!("I6op_{line}E");
        let p = progs.iter().find(|p| p.name.contains(&tag)).unwrap_or_else(|| panic!("no kernel for {name}"));
        let sass = match warpsim_sass::lower::lower(&module, &p.name, p) {
            Ok(s) => s,
            Err(e) => {
                unlowered.push(format!("{name} ({})", e.reason));
                continue;
            }
        };
        let (arity, inputs) = &sets[&op.set];
        let got = run(sass, 0x210, *arity, inputs, *w, op.bits);
        if got == op.want {
            exact += 1;
            continue;
        }
        let ptx_mode = run(p.clone(), 0, *arity, inputs, *w, op.bits);
        // MUFU-based approximations (`.approx`, `div.full`) may also land within 2 units in the
        // last place of the H200 (PTX: div.full's bound), as MUFU's own model allows.
        let approx = name.contains(".approx") || name.contains(".full");
        let close = |a: u64, b: u64| approx && (a >> (op.bits - 1)) == (b >> (op.bits - 1)) && a.abs_diff(b) <= 2;
        let bad: Vec<String> = (0..inputs.len())
            .filter(|&i| got[i] != op.want[i] && got[i] != ptx_mode[i] && !close(got[i], op.want[i]))
            .take(3)
            .map(|i| format!("in {:x?}: SASS {:#x}, H200 {:#x}, PTX mode {:#x}", inputs[i], got[i], op.want[i], ptx_mode[i]))
            .collect();
        if bad.is_empty() {
            let i = (0..inputs.len()).find(|&i| got[i] != op.want[i]).unwrap_or(0);
            println!("  as PTX mode: {name} in {:x?} SASS {:#x} H200 {:#x}", inputs[i], got[i], op.want[i]);
            near += 1;
        } else {
            wrong.push(format!("{name}: {}", bad.join("; ")));
        }
    }
    println!("{exact} instructions bit-exact against the H200 in SASS mode, {near} with PTX mode's approximation, {} not lowered:", unlowered.len());
    for u in &unlowered {
        println!("  {u}");
    }
    assert!(wrong.is_empty(), "SASS mode computes neither the H200's nor PTX mode's result:\n{}", wrong.join("\n"));
    assert!(exact >= 388, "only {exact} instructions bit-exact (388 since the f16 forms lowered; 307 before)");
    assert!(unlowered.is_empty(), "{} not lowered (none since the f16 forms lowered; 85 before)", unlowered.len());
}
