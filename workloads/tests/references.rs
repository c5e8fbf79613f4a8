//! Every named reference on a tiny input whose answer is checked by hand.

use std::collections::BTreeMap;
use std::path::Path;
use warpsim_workloads::{references, DType, Expected, RefCtx, Value, Workload};

/// A tiny workload: buffers are (name, dtype, values or none for zeros, len, output); scalars are
/// (name, dtype, value). Buffer values are written to an in-memory `file` init.
struct Tiny<'a> {
    reference: &'a str,
    buffers: Vec<(&'a str, DType, Vec<f64>, u64, bool)>,
    scalars: Vec<(&'a str, DType, f64)>,
    params: &'a str,
    block: u32,
}

fn tiny(reference: &str) -> Tiny<'_> {
    Tiny {
        reference,
        buffers: Vec::new(),
        scalars: Vec::new(),
        params: "",
        block: 32,
    }
}

impl<'a> Tiny<'a> {
    fn input(mut self, name: &'a str, dtype: DType, values: &[f64]) -> Self {
        self.buffers
            .push((name, dtype, values.to_vec(), values.len() as u64, false));
        self
    }
    /// An input that the kernel also writes (in place).
    fn inout(mut self, name: &'a str, dtype: DType, values: &[f64]) -> Self {
        self.buffers
            .push((name, dtype, values.to_vec(), values.len() as u64, true));
        self
    }
    fn output(mut self, name: &'a str, dtype: DType, len: u64) -> Self {
        self.buffers.push((name, dtype, Vec::new(), len, true));
        self
    }
    fn scalar(mut self, name: &'a str, dtype: DType, v: f64) -> Self {
        self.scalars.push((name, dtype, v));
        self
    }
    fn params(mut self, p: &'a str) -> Self {
        self.params = p;
        self
    }

    fn run(&self) -> Vec<Expected> {
        let mut files: BTreeMap<String, Vec<u8>> = BTreeMap::new();
        let mut toml = format!("name = \"tiny\"\nptx = \"k.ptx\"\nentry = \"k\"\ngrid = [1, 1, 1]\nblock = [{}, 1, 1]\n", self.block);
        let mut params = Vec::new();
        for (name, dtype, values, len, output) in &self.buffers {
            toml += &format!(
                "[[buffer]]\nname = \"{name}\"\ndtype = \"{}\"\nlen = {len}\noutput = {output}\n",
                dtype.name()
            );
            if !values.is_empty() {
                let mut bytes = Vec::new();
                for &v in values {
                    let bits = if dtype.is_float() {
                        dtype.encode_f64(v)
                    } else {
                        dtype.encode_int(v as i128)
                    };
                    dtype.push_bits(bits, &mut bytes);
                }
                files.insert(format!("{name}.bin"), bytes);
                toml += &format!("init = {{ file = \"{name}.bin\" }}\n");
            }
        }
        for (name, ..) in &self.buffers {
            toml += &format!("[[arg]]\nbuffer = \"{name}\"\n");
            params.push(".param .u64 p".to_string());
        }
        for (name, dtype, v) in &self.scalars {
            let value = if dtype.is_float() {
                format!("{v:?}")
            } else {
                format!("{}", *v as i64)
            };
            toml += &format!(
                "[[arg]]\nscalar = {{ dtype = \"{}\", value = {value}, name = \"{name}\" }}\n",
                dtype.name()
            );
            params.push(format!(
                ".param .{}{} p",
                if dtype.is_float() { "f" } else { "u" },
                8 * dtype.size()
            ));
        }
        toml += &format!(
            "[check]\nreference = \"{}\"\nbitwise = true\n[check.params]\n{}\n",
            self.reference, self.params
        );
        let ptx = format!(
            ".visible .entry k(\n{}\n)\n{{\nret;\n}}\n",
            params.join(",\n")
        );
        files.insert("k.ptx".into(), ptx.into_bytes());
        let read = |rel: &str| {
            files
                .get(rel)
                .cloned()
                .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::NotFound))
        };
        let w = Workload::parse(&toml, Path::new("tiny.toml"), &read)
            .unwrap_or_else(|e| panic!("{e}\n{toml}"));
        let r = references()
            .iter()
            .find(|r| r.name == self.reference)
            .unwrap();
        (r.compute)(&RefCtx::new(&w.manifest, &w.inputs).unwrap()).unwrap()
    }

    /// The expected values of output `name`, as f64 (None as NaN).
    fn expect(&self, name: &str) -> Vec<f64> {
        let e = self.run();
        let e = e
            .iter()
            .find(|e| e.buffer == name)
            .unwrap_or_else(|| panic!("no prediction for {name}"));
        e.values
            .iter()
            .map(|v| v.map_or(f64::NAN, Value::as_f64))
            .collect()
    }
}

fn same(got: Vec<f64>, want: &[f64]) {
    assert_eq!(got.len(), want.len(), "{got:?} vs {want:?}");
    for (g, w) in got.iter().zip(want) {
        assert!((g.is_nan() && w.is_nan()) || g == w, "{got:?} vs {want:?}");
    }
}

const F32: DType = DType::F32;
const U32: DType = DType::U32;
const S32: DType = DType::S32;
const U64: DType = DType::U64;
const NAN: f64 = f64::NAN;

#[test]
fn add() {
    let t = tiny("add")
        .input("a", F32, &[1.0, 0.5])
        .input("b", F32, &[2.0, 0.25])
        .output("c", F32, 2);
    same(t.expect("c"), &[3.0, 0.75]);
}

#[test]
fn saxpy_is_one_rounding() {
    // 3 * 0.1f + 1 in f32 with one rounding (fma)
    let x = 0.1f32;
    let want = 3.0f32.mul_add(x, 1.0) as f64;
    let t = tiny("saxpy")
        .input("x", F32, &[x as f64, 2.0])
        .inout("y", F32, &[1.0, 1.0])
        .scalar("a", F32, 3.0);
    same(t.expect("y"), &[want, 7.0]);
}

#[test]
fn copy() {
    same(
        tiny("copy")
            .input("in", U32, &[7.0, 8.0])
            .output("out", U32, 2)
            .expect("out"),
        &[7.0, 8.0],
    );
}

#[test]
fn strided_copy() {
    let t = tiny("strided_copy")
        .input("in", F32, &[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
        .output("out", F32, 3);
    same(
        t.scalar("stride", S32, 2.0)
            .scalar("offset", S32, 1.0)
            .expect("out"),
        &[1.0, 3.0, 5.0],
    );
}

#[test]
fn pointer_chase() {
    // 0 -> 2 -> 1 -> 0 ...: after 1 + 3 steps, index 2; element 1 (cycles) is not checked
    let t = tiny("pointer_chase")
        .input("chain", U32, &[2.0, 0.0, 1.0])
        .output("result", U64, 2);
    same(
        t.scalar("warmup", S32, 1.0)
            .scalar("iters", S32, 3.0)
            .expect("result"),
        &[2.0, NAN],
    );
}

#[test]
fn smem_chain() {
    let t = tiny("smem_chain")
        .output("out", U32, 34)
        .output("cycles", U64, 2)
        .scalar("stride", S32, 33.0);
    let got = t.expect("out");
    assert_eq!(
        (got[0], got[1], got[31], got[32], got[33]),
        (0.0, 33.0, (31 * 33) as f64, 0.0, 33.0)
    );
}

#[test]
fn ffma_chain() {
    // chains start at x + c; one step v = v*a + b; sum of chain 0 and 1
    let t = tiny("ffma_chain")
        .input("x", F32, &[1.0])
        .output("out", F32, 1)
        .output("cycles", U64, 1);
    let t = t
        .scalar("a", F32, 2.0)
        .scalar("b", F32, 0.5)
        .scalar("iters", S32, 2.0)
        .params("chains = 2");
    // chain 0: 1 -> 2.5 -> 5.5; chain 1: 2 -> 4.5 -> 9.5
    same(t.expect("out"), &[15.0]);
}

#[test]
fn imad_chain_wraps() {
    let t = tiny("imad_chain")
        .input("x", U32, &[4294967295.0])
        .output("out", U32, 1)
        .output("cycles", U64, 1);
    let t = t
        .scalar("a", U32, 3.0)
        .scalar("b", U32, 1.0)
        .scalar("iters", S32, 1.0)
        .params("chains = 1");
    // (2^32 - 1) * 3 + 1 = -3 + 1 = 2^32 - 2
    same(t.expect("out"), &[4294967294.0]);
}

#[test]
fn sfu_references() {
    let run = |r| {
        let t = tiny(r)
            .input("x", F32, &[1.0])
            .output("out", F32, 1)
            .output("cycles", U64, 1);
        t.scalar("iters", S32, 1.0)
            .params("chains = 2")
            .expect("out")[0]
    };
    // chains start at 1.0 and 1.25
    assert!((run("sfu_sin") - (1f64.sin() + 1.25f64.sin())).abs() < 1e-12);
    assert!((run("sfu_ex2") - (2f64.powf(-0.5) + 2f64.powf(-0.625))).abs() < 1e-12);
    assert!((run("sfu_rsqrt") - (1.0 + 1.0 / 1.25f64.sqrt())).abs() < 1e-12);
}

#[test]
fn matmul() {
    // [1 2; 3 4] x [5 6; 7 8] = [19 22; 43 50]
    let t = tiny("matmul")
        .input("A", F32, &[1.0, 2.0, 3.0, 4.0])
        .input("B", F32, &[5.0, 6.0, 7.0, 8.0])
        .output("C", F32, 4);
    same(
        t.scalar("n", S32, 2.0).expect("C"),
        &[19.0, 22.0, 43.0, 50.0],
    );
}

#[test]
fn block_sum() {
    let t = tiny("block_sum")
        .input("in", S32, &[1.0, 2.0, 3.0, -4.0, 2147483647.0, 1.0])
        .output("out", S32, 3);
    same(t.expect("out"), &[3.0, -1.0, -2147483648.0]); // int32 wraps
}

#[test]
fn transpose() {
    // in: 2 rows x 3 columns
    let t = tiny("transpose")
        .input("in", F32, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
        .output("out", F32, 6);
    same(
        t.scalar("width", S32, 3.0)
            .scalar("height", S32, 2.0)
            .expect("out"),
        &[1.0, 4.0, 2.0, 5.0, 3.0, 6.0],
    );
}

#[test]
fn histogram() {
    let t = tiny("histogram")
        .input("in", U32, &[0.0, 3.0, 3.0, 5.0])
        .output("bins", U32, 4);
    same(t.expect("bins"), &[1.0, 1.0, 0.0, 2.0]); // 5 mod 4 = 1
}

#[test]
fn atomic_bins() {
    let t = tiny("atomic_bins")
        .input("in", U32, &[1.0, 2.0, 3.0, 4.0, 5.0])
        .output("counters", U32, 2);
    same(t.scalar("nbins", S32, 2.0).expect("counters"), &[9.0, 6.0]);
}

#[test]
fn block_scan() {
    let t = tiny("block_scan")
        .input("in", S32, &[1.0, 2.0, 3.0, 4.0, 5.0])
        .output("out", S32, 5)
        .params("chunk = 2");
    same(t.expect("out"), &[1.0, 3.0, 3.0, 7.0, 5.0]);
}

#[test]
fn spmv_csr() {
    // [1 0 2; 0 0 0; 0 3 0] x [1 2 3] = [7 0 6]
    let t = tiny("spmv_csr")
        .input("row_ptr", S32, &[0.0, 2.0, 2.0, 3.0])
        .input("col_idx", S32, &[0.0, 2.0, 1.0])
        .input("vals", F32, &[1.0, 2.0, 3.0])
        .input("x", F32, &[1.0, 2.0, 3.0])
        .output("y", F32, 3);
    same(t.expect("y"), &[7.0, 0.0, 6.0]);
}

#[test]
fn stencil5() {
    // 3 x 3 grid: only the centre is interior: 0.5*5 + 0.25*(2+8+4+6) = 7.5
    let t = tiny("stencil5")
        .input("in", F32, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0])
        .output("out", F32, 9);
    let t = t
        .scalar("width", S32, 3.0)
        .scalar("height", S32, 3.0)
        .scalar("c0", F32, 0.5)
        .scalar("c1", F32, 0.25);
    same(
        t.expect("out"),
        &[1.0, 2.0, 3.0, 4.0, 7.5, 6.0, 7.0, 8.0, 9.0],
    );
}

#[test]
fn divergent() {
    // mode 0: path by value. 3 -> path 3: 3*3 = 9; 7 -> path 3: 21
    let t = tiny("divergent")
        .input("in", U32, &[3.0, 7.0])
        .output("out", U32, 2)
        .scalar("mode", S32, 0.0);
    same(t.expect("out"), &[9.0, 21.0]);
    // mode 1: path by warp index: thread 0 is in warp 0 -> path 0, eight LCG steps from 1
    let lcg = (0..8).fold(1u32, |r, _| {
        r.wrapping_mul(1664525).wrapping_add(1013904223)
    });
    let t = tiny("divergent")
        .input("in", U32, &[1.0])
        .output("out", U32, 1)
        .scalar("mode", S32, 1.0);
    same(t.expect("out"), &[lcg as f64]);
}

#[test]
fn device_call() {
    // one round of mix(x, 0) from 0 is 0 (0 ^ 0 = 0, 0 * c = 0, shifts of 0)
    let t = tiny("device_call")
        .input("in", U32, &[0.0, 1.0])
        .output("out", U32, 2)
        .scalar("rounds", S32, 1.0);
    let mut x: u32 = 1u32.wrapping_mul(0x85eb_ca6b);
    x ^= x >> 13;
    x = x.wrapping_mul(0xc2b2_ae35);
    x ^= x >> 16;
    same(t.expect("out"), &[0.0, x as f64]);
}

#[test]
fn reg_pressure() {
    // x = 0: v[k] = k; each round, in order, v[k] += v[k+1] ^ (v[k+7] >> 3) (indices mod 48);
    // the result XORs v[k] + k. Re-derived here with plain indexing.
    let mut v: Vec<u32> = (0..48).collect();
    for _ in 0..4 {
        for k in 0..48 {
            v[k] = v[k].wrapping_add(v[(k + 1) % 48] ^ (v[(k + 7) % 48] >> 3));
        }
    }
    let want = v
        .iter()
        .enumerate()
        .fold(0u32, |s, (k, x)| s ^ x.wrapping_add(k as u32));
    same(
        tiny("reg_pressure")
            .input("in", U32, &[0.0])
            .output("out", U32, 1)
            .expect("out"),
        &[want as f64],
    );
}

#[test]
fn chunk_reverse() {
    let t = tiny("chunk_reverse")
        .input("in", U32, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
        .output("out", U32, 6);
    same(
        t.scalar("words", S32, 3.0).expect("out"),
        &[3.0, 2.0, 1.0, 6.0, 5.0, 4.0],
    );
}

#[test]
fn every_reference_has_a_test_here() {
    let src = include_str!("references.rs");
    for r in references() {
        assert!(
            src.contains(&format!("tiny(\"{}\")", r.name))
                || src.contains(&format!("run(\"{}\")", r.name)),
            "no tiny test for `{}`",
            r.name
        );
    }
}
