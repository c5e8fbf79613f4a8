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
    grid: u32,
    cluster: Option<u32>,
    /// Inline TOML tables of `tensor_map` args.
    tmaps: Vec<String>,
}

fn tiny(reference: &str) -> Tiny<'_> {
    Tiny {
        reference,
        buffers: Vec::new(),
        scalars: Vec::new(),
        params: "",
        block: 32,
        grid: 1,
        cluster: None,
        tmaps: Vec::new(),
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
    /// A 1D grid of `grid` CTAs in 1D clusters of `cluster`.
    fn clusters(mut self, grid: u32, cluster: u32) -> Self {
        self.grid = grid;
        self.cluster = Some(cluster);
        self
    }
    /// A 2D tensor map over `buffer`: dims, row stride in bytes, box, swizzle.
    fn tmap(
        mut self,
        buffer: &str,
        dtype: DType,
        dims: [u64; 2],
        stride: u64,
        bx: [u32; 2],
        swizzle: &str,
    ) -> Self {
        self.tmaps.push(format!(
            "{{ buffer = \"{buffer}\", dtype = \"{}\", dims = {dims:?}, strides = [{stride}], box = {bx:?}, swizzle = \"{swizzle}\" }}",
            dtype.name()
        ));
        self
    }

    fn run(&self) -> Vec<Expected> {
        let mut files: BTreeMap<String, Vec<u8>> = BTreeMap::new();
        let mut toml = format!(
            "name = \"tiny\"\nptx = \"k.ptx\"\nentry = \"k\"\ngrid = [{}, 1, 1]\nblock = [{}, 1, 1]\n",
            self.grid, self.block
        );
        if let Some(c) = self.cluster {
            toml += &format!("cluster = [{c}, 1, 1]\n");
        }
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
        for t in &self.tmaps {
            toml += &format!("[[arg]]\ntensor_map = {t}\n");
            params.push(".param .align 64 .b8 p[128]".to_string());
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
const F64: DType = DType::F64;
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
fn atomic_lines() {
    // Two lines of 32 words: updates land on word 0 of each, the rest stay zero.
    let t = tiny("atomic_lines")
        .input("in", U32, &[1.0, 2.0, 3.0, 4.0, 5.0])
        .output("counters", U32, 64);
    let mut want = vec![0.0; 64];
    (want[0], want[32]) = (9.0, 6.0);
    same(t.scalar("nlines", S32, 2.0).expect("counters"), &want);
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

const U16: DType = DType::U16;
const F16: DType = DType::F16;

fn iota(n: usize) -> Vec<f64> {
    (0..n).map(|i| i as f64).collect()
}

#[test]
fn tma_tiles() {
    // a 3-row x 5-column u32 tensor at a pitch of 8 elements, boxes of 2 rows x 4 columns: a
    // 2 x 2 grid of boxes, so a 4 x 8 image with zeros past the tensor
    let input: Vec<f64> = (0..24).map(|i| (10 * (i / 8) + i % 8) as f64).collect();
    let t = tiny("tma_tiles")
        .input("in", U32, &input)
        .output("out", U32, 32)
        .tmap("in", U32, [5, 3], 32, [4, 2], "none");
    #[rustfmt::skip]
    let want = [
        0.0, 1.0, 2.0, 3.0, 4.0, 0.0, 0.0, 0.0,
        10.0, 11.0, 12.0, 13.0, 14.0, 0.0, 0.0, 0.0,
        20.0, 21.0, 22.0, 23.0, 24.0, 0.0, 0.0, 0.0,
        0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
    ];
    same(t.expect("out"), &want);
}

#[test]
fn tma_swizzle() {
    // 32B swizzle, u32 boxes of 8 rows x 8 columns (32-byte rows) over a 16 x 8 tensor: in each
    // box, rows 4..7 (the second 128-byte line) swap their two 16-byte halves
    let t = tiny("tma_swizzle")
        .input("in", U32, &iota(128))
        .output("out", U32, 128)
        .output("smem", U32, 128)
        .tmap("in", U32, [8, 16], 32, [8, 8], "32B");
    same(t.expect("out"), &iota(128));
    let smem = t.expect("smem");
    assert_eq!(&smem[0..8], &[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]);
    assert_eq!(
        &smem[32..40],
        &[36.0, 37.0, 38.0, 39.0, 32.0, 33.0, 34.0, 35.0]
    );
    assert_eq!(smem[64 + 32], 100.0); // box 1 (rows 8..15), row 4, column 4 = element 12*8 + 4
                                      // 128B swizzle, u16 boxes of 8 rows x 64 columns: row r's 16-byte chunk j lands at j ^ (r % 8)
    let t = tiny("tma_swizzle")
        .input("in", U16, &iota(512))
        .output("out", U16, 512)
        .output("smem", U16, 512)
        .tmap("in", U16, [64, 8], 128, [64, 8], "128B");
    let smem = t.expect("smem");
    assert_eq!(&smem[0..2], &[0.0, 1.0]);
    assert_eq!(&smem[64 + 8..64 + 10], &[64.0, 65.0]); // row 1, chunk 0 -> chunk 1
    assert_eq!(smem[7 * 64 + 8 * 7], 7.0 * 64.0); // row 7, chunk 0 -> chunk 7
    assert_eq!(smem[7 * 64], 7.0 * 64.0 + 56.0); // and chunk 7 -> chunk 0
}

#[test]
fn tma_store_affine() {
    // out: 3 x 3 u32 tensor at pitch 8, boxes 2 x 4; in: the box-padded 4 x 4 source. Stores
    // bound the inner dimension at 16 bytes: columns 0..3 of rows 0..2 become in*2 + 1 (column 3
    // is past the tensor but inside its last 16-byte chunk), the rest keep out's initial 7
    let t = tiny("tma_store_affine")
        .input("in", U32, &iota(16))
        .inout("out", U32, &[7.0; 24])
        .scalar("a", U32, 2.0)
        .scalar("b", U32, 1.0)
        .tmap("out", U32, [3, 3], 32, [4, 2], "none");
    let want: Vec<f64> = (0..24)
        .map(|i| if i % 8 < 4 { (2 * (i / 8 * 4 + i % 8) + 1) as f64 } else { 7.0 })
        .collect();
    same(t.expect("out"), &want);
}

#[test]
fn tma_latency() {
    // 4 x 4 tensor (element = 4y + x), 2 x 2 boxes: step s reads box s mod 4, element s mod 4:
    // (0,0) = 0, box 1 element 1 = (3,0) = 3, box 2 element 2 = (0,3) = 12, box 3 element 3 =
    // (3,3) = 15, then (0,0) again: 30 after 1 warm-up + 4 steps
    let t = tiny("tma_latency")
        .input("in", U32, &iota(16))
        .output("result", U64, 2)
        .scalar("warmup", S32, 1.0)
        .scalar("iters", S32, 4.0)
        .tmap("in", U32, [4, 4], 16, [2, 2], "none");
    same(t.expect("result"), &[30.0, NAN]);
}

#[test]
fn cluster_exchange() {
    // 4 CTAs in one cluster, 2 elements each
    let t = tiny("cluster_exchange")
        .clusters(4, 4)
        .input("in", U32, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0])
        .output("pull", U32, 8)
        .output("push", U32, 8)
        .output("sums", U32, 1);
    same(t.expect("pull"), &[3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 1.0, 2.0]);
    same(t.expect("push"), &[7.0, 8.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    same(t.expect("sums"), &[36.0]);
    // two clusters of 2: left and right neighbour coincide
    let t = tiny("cluster_exchange")
        .clusters(4, 2)
        .input("in", U32, &[1.0, 2.0, 3.0, 4.0])
        .output("pull", U32, 4)
        .output("push", U32, 4)
        .output("sums", U32, 2);
    same(t.expect("pull"), &[2.0, 1.0, 4.0, 3.0]);
    same(t.expect("push"), &[2.0, 1.0, 4.0, 3.0]);
    same(t.expect("sums"), &[3.0, 7.0]);
}

#[test]
fn cluster_replicate() {
    let t = tiny("cluster_replicate")
        .clusters(4, 2)
        .input("in", U32, &[1.0, 2.0, 3.0, 4.0])
        .output("out", U32, 8);
    same(t.expect("out"), &[1.0, 2.0, 1.0, 2.0, 3.0, 4.0, 3.0, 4.0]);
}

#[test]
fn gemm_nt() {
    // [1 2 3; 4 5 6] x [1 0 -1; 2 1 0]^T = [-2 4; -2 13]
    let t = tiny("gemm_nt")
        .input("A", F16, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
        .input("B", F16, &[1.0, 0.0, -1.0, 2.0, 1.0, 0.0])
        .output("C", F32, 4)
        .params("m = 2\nn = 2\nk = 3");
    same(t.expect("C"), &[-2.0, 4.0, -2.0, 13.0]);
    let t = tiny("gemm_nt_iters")
        .input("A", F16, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
        .input("B", F16, &[1.0, 0.0, -1.0, 2.0, 1.0, 0.0])
        .output("C", F32, 4)
        .output("cycles", U64, 1)
        .scalar("iters", S32, 3.0)
        .params("m = 2\nn = 2\nk = 3");
    same(t.expect("C"), &[-6.0, 12.0, -6.0, 39.0]);
}

#[test]
fn mbarrier_phases() {
    let t = tiny("mbarrier_phases")
        .output("out", U32, 4)
        .output("cycles", U64, 1)
        .scalar("iters", S32, 5.0);
    same(t.expect("out"), &[5.0, 1.0, 0.0, NAN]);
}

#[test]
fn softmax_rows() {
    // rows [0, ln 3] and [1, 1]: [1/4, 3/4] and [1/2, 1/2]
    let t = tiny("softmax_rows")
        .input("in", F32, &[0.0, 3f32.ln() as f64, 1.0, 1.0])
        .output("out", F32, 4)
        .scalar("rows", S32, 2.0)
        .params("cols = 2");
    let got = t.expect("out");
    for (g, w) in got.iter().zip([0.25, 0.75, 0.5, 0.5]) {
        assert!((g - w).abs() < 1e-7, "{got:?}");
    }
}

#[test]
fn layernorm_rows() {
    // row [1, 3]: mean 2, variance 1 -> [-1, 1] (eps 0); gamma [2, 1], beta [0, 10]
    let t = tiny("layernorm_rows")
        .input("in", F32, &[1.0, 3.0, 5.0, 5.0])
        .input("gamma", F32, &[2.0, 1.0])
        .input("beta", F32, &[0.0, 10.0])
        .output("out", F32, 4)
        .scalar("eps", F32, 0.0)
        .params("cols = 2");
    // the second row is constant: 0 / sqrt(0 + 0) is NaN without eps
    let got = t.expect("out");
    same(got[..2].to_vec(), &[-2.0, 11.0]);
    assert!(got[2].is_nan() && got[3].is_nan(), "{got:?}");
}

#[test]
fn conv2d_3x3() {
    // 3 x 3 image, all-ones weights: sums over the in-bounds 3 x 3 neighbourhoods
    let t = tiny("conv2d_3x3")
        .input("in", F32, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0])
        .input("w", F32, &[1.0; 9])
        .output("out", F32, 9)
        .scalar("width", S32, 3.0)
        .scalar("height", S32, 3.0);
    same(
        t.expect("out"),
        &[12.0, 21.0, 16.0, 27.0, 45.0, 33.0, 24.0, 39.0, 28.0],
    );
}

#[test]
fn sort_chunks() {
    let t = tiny("sort_chunks")
        .input("in", U32, &[3.0, 1.0, 4.0, 1.0, 4294967295.0, 9.0, 2.0, 6.0])
        .output("out", U32, 8)
        .params("chunk = 4");
    same(
        t.expect("out"),
        &[1.0, 1.0, 3.0, 4.0, 2.0, 6.0, 9.0, 4294967295.0],
    );
}

#[test]
fn gemv_rows() {
    // [1 2 3; 4 5 6] [1 0 -1] = [-2 -2]
    let t = tiny("gemv_rows")
        .input("A", F32, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
        .input("x", F32, &[1.0, 0.0, -1.0])
        .output("y", F32, 2)
        .scalar("rows", S32, 2.0)
        .scalar("cols", S32, 3.0);
    same(t.expect("y"), &[-2.0, -2.0]);
}

#[test]
fn spmv_ell() {
    // 3 rows x 2 entries, column-major: row 0 = 1*x0 + 2*x2, row 1 = 3*x1 + 0*x0, row 2 = -1*x2 + 4*x1
    let t = tiny("spmv_ell")
        .input("cols", S32, &[0.0, 1.0, 2.0, 2.0, 0.0, 1.0])
        .input("vals", F32, &[1.0, 3.0, -1.0, 2.0, 0.0, 4.0])
        .input("x", F32, &[1.0, 2.0, 3.0])
        .output("y", F32, 3)
        .scalar("rows", S32, 3.0)
        .params("width = 2");
    same(t.expect("y"), &[7.0, 6.0, 5.0]);
}

#[test]
fn nbody_tile() {
    // mass 1 at the origin and mass 2 at (3, 4, 0), eps2 = 0: |d| = 5, a_0 = 2 (3, 4, 0) / 125,
    // a_1 = -(3, 4, 0) / 125
    let t = tiny("nbody_tile")
        .input("pos", F32, &[0.0, 0.0, 0.0, 1.0, 3.0, 4.0, 0.0, 2.0])
        .output("acc", F32, 8)
        .scalar("n", S32, 2.0)
        .scalar("eps2", F32, 0.0);
    // the self term is 0 / 0 without softening: NaN, like the kernel's 0 * rsqrt(0)^3
    let got = t.expect("acc");
    assert!(got[0].is_nan(), "{got:?}");
    let t = tiny("nbody_tile")
        .input("pos", F32, &[0.0, 0.0, 0.0, 1.0, 3.0, 4.0, 0.0, 2.0])
        .output("acc", F32, 8)
        .scalar("n", S32, 2.0)
        .scalar("eps2", F32, 1e-30);
    let want = [6.0 / 125.0, 8.0 / 125.0, 0.0, 0.0, -3.0 / 125.0, -4.0 / 125.0, 0.0, 0.0];
    for (g, w) in t.expect("acc").iter().zip(want) {
        assert!((g - w).abs() < 1e-12, "{g} vs {w}");
    }
}

#[test]
fn kmeans_assign() {
    // centroids (0, 0), (1, 0), (0, 1); the point (0.5, 0) is equidistant from the first two:
    // lowest index
    let t = tiny("kmeans_assign")
        .input("points", F32, &[0.9, 0.1, 0.1, 0.8, -1.0, -1.0, 0.5, 0.0])
        .input("centroids", F32, &[0.0, 0.0, 1.0, 0.0, 0.0, 1.0])
        .output("labels", U32, 4)
        .scalar("n", S32, 4.0)
        .params("k = 3");
    same(t.expect("labels"), &[1.0, 2.0, 0.0, 0.0]);
}

#[test]
fn chase_threads() {
    // cycle 0 -> 2 -> 3 -> 1 -> 0; thread t starts at t * 1, three steps
    let t = tiny("chase_threads")
        .input("next", U32, &[2.0, 0.0, 3.0, 1.0])
        .output("out", U32, 2)
        .scalar("steps", S32, 3.0)
        .scalar("start_stride", U32, 1.0);
    same(t.expect("out"), &[1.0, 3.0]);
}

#[test]
fn ffma_chains() {
    // x = 1: chains 1 -> 3 -> 7 and 2 -> 5 -> 11 (v = 2v + 1), sum 18; x = 0.5: 5 + 9
    let t = tiny("ffma_chains")
        .input("x", F32, &[1.0, 0.5])
        .output("out", F32, 2)
        .scalar("a", F32, 2.0)
        .scalar("b", F32, 1.0)
        .scalar("iters", S32, 2.0)
        .params("chains = 2");
    same(t.expect("out"), &[18.0, 14.0]);
}

#[test]
fn shfl_block_sums() {
    // 2 blocks of 64 threads, in[i] = i: block 0 owns i mod 128 < 64, block 1 the rest
    let mut t = tiny("shfl_block_sums")
        .input("in", F32, &iota(256))
        .output("out", F32, 2)
        .scalar("n", S32, 256.0);
    (t.grid, t.block) = (2, 64);
    same(t.expect("out"), &[12224.0, 20416.0]);
    // only the first n elements count
    let mut t = tiny("shfl_block_sums")
        .input("in", F32, &iota(256))
        .output("out", F32, 2)
        .scalar("n", S32, 100.0);
    (t.grid, t.block) = (2, 64);
    same(t.expect("out"), &[(0..64).sum::<i32>() as f64, (64..100).sum::<i32>() as f64]);
    // the shuffle tree's order: 2^24 in thread 0, 1 in threads 1 and 16 of one warp: thread 0
    // adds thread 16's 1 first (rounds away), then thread 1's (rounds away again)
    let mut x = vec![0.0; 32];
    (x[0], x[1], x[16]) = (16_777_216.0, 1.0, 1.0);
    let t = tiny("shfl_block_sums")
        .input("in", F32, &x)
        .output("out", F32, 1)
        .scalar("n", S32, 32.0);
    same(t.expect("out"), &[16_777_216.0]);
}

#[test]
fn spill_mix64() {
    // the kernel restated: 64 values fmaf(x, k + 1, k), 10 sweeps of
    // v[k] = v[k] / 2 + v[(k + 11) % 64] / 4 in place, then s = fmaf(v[k], (k & 7) + 1, s)
    let mix = |x: f32| {
        let mut v = [0.0f32; 64];
        for (k, vk) in v.iter_mut().enumerate() {
            *vk = x.mul_add((k + 1) as f32, k as f32);
        }
        for _ in 0..10 {
            for k in 0..64 {
                let w = v[(k + 11) % 64] * 0.25;
                v[k] = v[k].mul_add(0.5, w);
            }
        }
        let mut s = 0.0f32;
        for (k, vk) in v.iter().enumerate() {
            s = vk.mul_add(((k & 7) + 1) as f32, s);
        }
        s as f64
    };
    let t = tiny("spill_mix64").input("in", F32, &[0.0, 1.0, -0.5]).output("out", F32, 3);
    let got = t.expect("out");
    same(got.clone(), &[mix(0.0), mix(1.0), mix(-0.5)]);
    // a contraction (weights 3/4 per sweep) of values that grow with x
    assert!(got[1] > got[0] && got[0] > got[2], "{got:?}");
}

#[test]
fn row_dots() {
    // [1 2; 3 4; 5 7] [1 -1] = [-1 -1 -2]
    let t = tiny("row_dots")
        .input("A", F32, &[1.0, 2.0, 3.0, 4.0, 5.0, 7.0])
        .input("x", F32, &[1.0, -1.0])
        .output("tmp", F32, 3)
        .scalar("nx", S32, 3.0)
        .scalar("ny", S32, 2.0);
    same(t.expect("tmp"), &[-1.0, -1.0, -2.0]);
    // an fmaf chain in column order: 2^24 + 1 + 1 rounds to 2^24 twice
    let t = tiny("row_dots")
        .input("A", F32, &[16_777_216.0, 1.0, 1.0])
        .input("x", F32, &[1.0, 1.0, 1.0])
        .output("tmp", F32, 1)
        .scalar("nx", S32, 1.0)
        .scalar("ny", S32, 3.0);
    same(t.expect("tmp"), &[16_777_216.0]);
}

#[test]
fn syrk() {
    // A = [1 2; 3 4]: A Aᵀ = [5 11; 11 25]; C = 2 A Aᵀ + 3 I
    let t = tiny("syrk")
        .input("A", F32, &[1.0, 2.0, 3.0, 4.0])
        .inout("C", F32, &[1.0, 0.0, 0.0, 1.0])
        .scalar("alpha", F32, 2.0)
        .scalar("beta", F32, 3.0)
        .scalar("n", S32, 2.0)
        .scalar("m", S32, 2.0);
    same(t.expect("C"), &[13.0, 22.0, 22.0, 53.0]);
}

#[test]
fn column_center() {
    // 2 rows x 3 columns [1 2 3; 3 6 9]: means [2 4 6]
    let t = tiny("column_center")
        .inout("data", F32, &[1.0, 2.0, 3.0, 3.0, 6.0, 9.0])
        .output("mean", F32, 3)
        .scalar("float_n", F32, 2.0)
        .scalar("m", S32, 3.0)
        .scalar("n", S32, 2.0);
    same(t.expect("mean"), &[2.0, 4.0, 6.0]);
    same(t.expect("data"), &[-1.0, -2.0, -3.0, 1.0, 2.0, 3.0]);
}

#[test]
fn hotspot_step() {
    let run = |temp: &[f64], power: &[f64], width: f64, height: f64| {
        tiny("hotspot_step")
            .input("temp", F32, temp)
            .input("power", F32, power)
            .output("out", F32, temp.len() as u64)
            .scalar("width", S32, width)
            .scalar("height", S32, height)
            .scalar("step_div_cap", F32, 0.5)
            .scalar("rx_1", F32, 0.25)
            .scalar("ry_1", F32, 0.125)
            .scalar("rz_1", F32, 0.01)
            .scalar("amb", F32, 200.0)
            .expect("out")
    };
    // uniform 300 K, 2 x 2: only power and the ambient term; 300 + 0.5 (p + (200 - 300) 0.01)
    let got = run(&[300.0; 4], &[1.0, 0.0, 0.0, 3.0], 2.0, 2.0);
    let rz = 0.01f32 as f64;
    let want = [1.0, 0.0, 0.0, 3.0].map(|p| 300.0 + 0.5 * (p - 100.0 * rz));
    for (g, w) in got.iter().zip(want) {
        assert!((g - w).abs() < 1e-9, "{got:?} vs {want:?}");
    }
    // one row [0 10 20], no power, ambient 200: edges reuse themselves (x: rx_1 = 1/4)
    let got = run(&[0.0, 10.0, 20.0], &[0.0; 3], 3.0, 1.0);
    let want = [0.0 + 0.5 * (10.0 * 0.25 + 200.0 * rz), 10.0 + 0.5 * 190.0 * rz, 20.0 + 0.5 * (-10.0 * 0.25 + 180.0 * rz)];
    for (g, w) in got.iter().zip(want) {
        assert!((g - w).abs() < 1e-9, "{got:?} vs {want:?}");
    }
}

#[test]
fn pathfinder() {
    // src [4 8 6], rows [0 0 0] and [3 0 9]: [4 4 6], then [7 4 13]
    let t = tiny("pathfinder")
        .input("wall", S32, &[0.0, 0.0, 0.0, 3.0, 0.0, 9.0])
        .input("src", S32, &[4.0, 8.0, 6.0])
        .output("dst", S32, 3)
        .scalar("cols", S32, 3.0)
        .scalar("iteration", S32, 2.0);
    same(t.expect("dst"), &[7.0, 4.0, 13.0]);
}

#[test]
fn nw_scores() {
    // match +1, mismatch -1, gap 1; pair 0: "01" vs "01", pair 1: "00" vs "11"
    let t = tiny("nw_scores")
        .input("seq_a", S32, &[0.0, 1.0, 0.0, 0.0])
        .input("seq_b", S32, &[0.0, 1.0, 1.0, 1.0])
        .input("subst", S32, &[1.0, -1.0, -1.0, 1.0])
        .output("score", S32, 18)
        .scalar("penalty", S32, 1.0)
        .params("n = 2\nalphabet = 2");
    same(
        t.expect("score"),
        &[0.0, -1.0, -2.0, -1.0, 1.0, 0.0, -2.0, 0.0, 2.0, 0.0, -1.0, -2.0, -1.0, -1.0, -2.0, -2.0, -2.0, -2.0],
    );
}

#[test]
fn layer_forward() {
    // unit 0: 1 + 2 + bias 0 = 3; unit 1: 0 + bias -1
    let t = tiny("layer_forward")
        .input("w", F32, &[1.0, 2.0, 0.0, 0.0])
        .input("bias", F32, &[0.0, -1.0])
        .input("in", F32, &[1.0, 1.0])
        .output("out", F32, 2)
        .scalar("n_in", S32, 2.0);
    let got = t.expect("out");
    let want = [1.0 / (1.0 + (-3f64).exp()), 1.0 / (1.0 + 1f64.exp())];
    for (g, w) in got.iter().zip(want) {
        assert!((g - w).abs() < 1e-12, "{got:?}");
    }
}

#[test]
fn bfs_level() {
    // 0 -> 1, 2; 1 -> 3; 2 -> 0; 3 -> 0; levels [0, -1, 1, -1], frontier level 0
    let t = tiny("bfs_level")
        .input("row_ptr", S32, &[0.0, 2.0, 3.0, 4.0, 5.0])
        .input("col_idx", S32, &[1.0, 2.0, 3.0, 0.0, 0.0])
        .inout("level", S32, &[0.0, -1.0, 1.0, -1.0])
        .output("next", DType::U8, 4)
        .scalar("n", S32, 4.0)
        .scalar("cur", S32, 0.0);
    same(t.expect("level"), &[0.0, 1.0, 1.0, -1.0]);
    same(t.expect("next"), &[0.0, 1.0, 0.0, 0.0]);
}

#[test]
fn srad_coeffs() {
    // 3 x 3 image of ones with a 3 in the middle, q0sqr = 0.25
    let mut img = [1.0; 9];
    img[4] = 3.0;
    let t = tiny("srad_coeffs")
        .input("J", F32, &img)
        .output("dN", F32, 9)
        .output("dS", F32, 9)
        .output("dW", F32, 9)
        .output("dE", F32, 9)
        .output("c", F32, 9)
        .scalar("rows", S32, 3.0)
        .scalar("cols", S32, 3.0)
        .scalar("q0sqr", F32, 0.25);
    same(t.expect("dS"), &[0.0, 2.0, 0.0, 0.0, -2.0, 0.0, 0.0, 0.0, 0.0]);
    same(t.expect("dE"), &[0.0, 0.0, 0.0, 2.0, -2.0, 0.0, 0.0, 0.0, 0.0]);
    let c = t.expect("c");
    // corners see no gradient: q = 0, c = 1 / (1 - 1 / 1.25) = 5, clamped to 1
    assert_eq!((c[0], c[8]), (1.0, 1.0));
    // the centre: d = -2 all round, G2 = 16/9, L = -8/3, q² = (8/9 - 4/9) / (1/3)² = 4
    let want = 1.0 / (1.0 + (4.0 - 0.25) / (0.25 * 1.25));
    assert!((c[4] - want).abs() < 1e-12, "{c:?}");
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

#[test]
fn strided_store_truncates_and_keeps_the_rest() {
    let t = tiny("strided_store")
        .input("in", U32, &[257.0, 2.0, 511.0, 7.0])
        .output("out", DType::U8, 8)
        .scalar("n", S32, 3.0)
        .scalar("stride", S32, 2.0);
    same(t.expect("out"), &[1.0, 0.0, 2.0, 0.0, 255.0, 0.0, 0.0, 0.0]);
    let t = tiny("strided_store")
        .input("in", U32, &[5.0, 6.0])
        .inout("out", U32, &[9.0; 5])
        .scalar("n", S32, 2.0)
        .scalar("stride", S32, 3.0);
    same(t.expect("out"), &[5.0, 9.0, 9.0, 6.0, 9.0]);
}

#[test]
fn walk_sum_rows_and_columns() {
    // a 3 x 4 row-major matrix 0..12
    let a: Vec<f64> = (0..12).map(f64::from).collect();
    // row walk: 2-word segments, lanes on adjacent rows
    let rows = tiny("walk_sum")
        .input("a", U32, &a)
        .output("out", U32, 7)
        .scalar("threads", S32, 6.0)
        .scalar("m", S32, 3.0)
        .scalar("s0", S32, 4.0)
        .scalar("s1", S32, 2.0)
        .scalar("len", S32, 2.0)
        .scalar("ks", S32, 1.0);
    same(rows.expect("out"), &[1.0, 9.0, 17.0, 5.0, 13.0, 21.0, 0.0]);
    // column walk: whole columns
    let cols = tiny("walk_sum")
        .input("a", U32, &a)
        .output("out", U32, 4)
        .scalar("threads", S32, 4.0)
        .scalar("m", S32, 4.0)
        .scalar("s0", S32, 1.0)
        .scalar("s1", S32, 12.0)
        .scalar("len", S32, 3.0)
        .scalar("ks", S32, 4.0);
    same(cols.expect("out"), &[12.0, 15.0, 18.0, 21.0]);
    // u32 wrapping
    let wrap = tiny("walk_sum")
        .input("a", U32, &[4294967295.0, 2.0])
        .output("out", U32, 1)
        .scalar("threads", S32, 1.0)
        .scalar("m", S32, 1.0)
        .scalar("s0", S32, 0.0)
        .scalar("s1", S32, 0.0)
        .scalar("len", S32, 2.0)
        .scalar("ks", S32, 1.0);
    same(wrap.expect("out"), &[1.0]);
}

#[test]
fn gather_and_scatter() {
    let g = tiny("gather")
        .input("idx", U32, &[2.0, 0.0, 2.0])
        .input("in", U32, &[10.0, 20.0, 30.0])
        .output("out", U32, 4)
        .scalar("n", S32, 3.0);
    same(g.expect("out"), &[30.0, 10.0, 30.0, 0.0]);
    let s = tiny("scatter")
        .input("perm", U32, &[2.0, 0.0, 1.0])
        .input("in", U32, &[10.0, 20.0, 30.0])
        .output("out", U32, 3)
        .scalar("n", S32, 3.0);
    same(s.expect("out"), &[20.0, 30.0, 10.0]);
}

#[test]
#[should_panic(expected = "not a permutation")]
fn scatter_refuses_a_repeated_target() {
    tiny("scatter")
        .input("perm", U32, &[1.0, 1.0])
        .input("in", U32, &[10.0, 20.0])
        .output("out", U32, 2)
        .scalar("n", S32, 2.0)
        .run();
}

#[test]
fn atomic_ticket_slots_follow_the_counters() {
    // 5 updates on 2 counters starting at 0 and 3: counter 0 hands out tickets 0..3, counter 1
    // tickets 3..5
    let t = tiny("atomic_ticket")
        .inout("counters", U32, &[0.0, 3.0])
        .output("out", U32, 12)
        .scalar("n", S32, 5.0)
        .scalar("nbins", S32, 2.0);
    same(t.expect("counters"), &[3.0, 5.0]);
    let mut want = [0.0; 12];
    for j in [0, 2, 4] {
        want[j] = 1.0;
    }
    for j in [7, 9] {
        want[j] = 2.0;
    }
    same(t.expect("out"), &want);
}

#[test]
fn row_xor_max_uses_each_rows_own_max() {
    // rows [1 6 3] (max 6) and [8 0 2] (max 8)
    let t = tiny("row_xor_max")
        .input("in", U32, &[1.0, 6.0, 3.0, 8.0, 0.0, 2.0])
        .output("out", U32, 6)
        .scalar("rows", S32, 2.0)
        .scalar("cols", S32, 3.0);
    same(t.expect("out"), &[7.0, 0.0, 5.0, 0.0, 8.0, 10.0]);
}

#[test]
fn line_sweep_sums_grid_stride_lines() {
    // 40 lines 2 words apart (line l holds l + 1, the odd words 100, never read), 3 passes, one
    // 32-thread CTA: thread t reads lines t and t + 32
    let mut buf = vec![100.0; 80];
    for l in 0..40 {
        buf[2 * l] = (l + 1) as f64;
    }
    let t = tiny("line_sweep")
        .input("buf", U32, &buf)
        .output("out", U32, 32)
        .scalar("lines", S32, 40.0)
        .scalar("reps", S32, 3.0)
        .scalar("stride", S32, 2.0);
    let want: Vec<f64> = (0..32)
        .map(|t| 3.0 * ((t + 1) as f64 + if t < 8 { (t + 33) as f64 } else { 0.0 }))
        .collect();
    same(t.expect("out"), &want);
}

#[test]
fn stream_fill_writes_each_index_hashed() {
    // 5 of out's 7 words written (i ^ 0x9E3779B9), 2 passes; the last two keep their 3.
    let t = tiny("stream_fill").inout("out", U32, &[3.0; 7]).scalar("n", S32, 5.0).scalar("reps", S32, 2.0);
    let want: Vec<f64> = (0..7u32).map(|i| if i < 5 { f64::from(i ^ 0x9E37_79B9) } else { 3.0 }).collect();
    same(t.expect("out"), &want);
}

// --- blind4 ------------------------------------------------------------------------------------

#[test]
fn col_dots() {
    // [1 2; 3 4; 5 7]ᵀ [1 -1 2] = [1 - 3 + 10, 2 - 4 + 14] = [8 12]
    let t = tiny("col_dots")
        .input("A", F32, &[1.0, 2.0, 3.0, 4.0, 5.0, 7.0])
        .input("r", F32, &[1.0, -1.0, 2.0])
        .output("s", F32, 2)
        .scalar("nrows", S32, 3.0)
        .scalar("ncols", S32, 2.0);
    same(t.expect("s"), &[8.0, 12.0]);
    // an fmaf chain down the column: 2^24 + 1 + 1 rounds to 2^24 twice
    let t = tiny("col_dots")
        .input("A", F32, &[16_777_216.0, 1.0, 1.0])
        .input("r", F32, &[1.0, 1.0, 1.0])
        .output("s", F32, 1)
        .scalar("nrows", S32, 3.0)
        .scalar("ncols", S32, 1.0);
    same(t.expect("s"), &[16_777_216.0]);
}

#[test]
fn window_gather() {
    // windows of 4 words, 2 reads per window: out[i] = table[(i / 2) * 4 + local[i]]
    let t = tiny("window_gather")
        .input("local", DType::U16, &[3.0, 0.0, 1.0, 1.0, 2.0])
        .input("table", U32, &(0..12).map(|v| (v * 10) as f64).collect::<Vec<_>>())
        .output("out", U32, 6)
        .scalar("n", S32, 5.0)
        .scalar("per_window", S32, 2.0)
        .scalar("window", S32, 4.0);
    same(t.expect("out"), &[30.0, 0.0, 50.0, 50.0, 100.0, 0.0]);
}

#[test]
fn stencil7_3d() {
    // 3 x 3 x 3 grid of k (its index): the one interior cell (13) has neighbours 12 + 14 + 10 +
    // 16 + 4 + 22 = 78, so 0.5 * 13 + 0.25 * 78 = 26; every face cell is copied
    let vals: Vec<f64> = (0..27).map(|k| k as f64).collect();
    let t = tiny("stencil7_3d")
        .input("in", F32, &vals)
        .output("out", F32, 27)
        .scalar("nx", S32, 3.0)
        .scalar("ny", S32, 3.0)
        .scalar("nz", S32, 3.0)
        .scalar("c0", F32, 0.5)
        .scalar("c1", F32, 0.25);
    let mut want = vals.clone();
    want[13] = 26.0;
    same(t.expect("out"), &want);
}

#[test]
fn keyed_sum() {
    let t = tiny("keyed_sum")
        .input("keys", U32, &[1.0, 0.0, 1.0, 2.0, 1.0])
        .input("w", F32, &[1.5, 2.0, 3.0, 4.0, 100.0])
        .inout("bins", F32, &[10.0, 0.0, 0.0])
        .scalar("n", S32, 4.0);
    same(t.expect("bins"), &[12.0, 4.5, 4.0]);
}

#[test]
fn slot_max() {
    let t = tiny("slot_max")
        .input("vals", F32, &[3.0, 1.0, 7.0, -2.0, 5.0, 9.0])
        .inout("maxes", F32, &[4.0, -5.0])
        .scalar("n", S32, 5.0)
        .scalar("nslots", S32, 2.0);
    // slot 0: max(4, 3, 7, 5) = 7; slot 1: max(-5, 1, -2) = 1 (vals[5] is past n)
    same(t.expect("maxes"), &[7.0, 1.0]);
}

#[test]
fn aos_field_axpy() {
    // two structs {x, y, z, w}: w += x * dt for the first only (n = 1)
    let t = tiny("aos_field_axpy")
        .inout("p", F32, &[2.0, 7.0, 8.0, 1.0, 4.0, 5.0, 6.0, 3.0])
        .scalar("n", S32, 1.0)
        .scalar("dt", F32, 0.5);
    same(t.expect("p"), &[2.0, 7.0, 8.0, 2.0, 4.0, 5.0, 6.0, 3.0]);
}

#[test]
fn row_l2_normalize() {
    // rows [3 4] (norm 5) and [0 -2] (norm 2)
    let t = tiny("row_l2_normalize")
        .input("in", F32, &[3.0, 4.0, 0.0, -2.0])
        .output("out", F32, 4)
        .scalar("rows", S32, 2.0)
        .scalar("cols", S32, 2.0);
    let inv5 = 1.0f32 / 5.0;
    same(t.expect("out"), &[(3.0 * inv5) as f64, (4.0 * inv5) as f64, 0.0, -1.0]);
}

// --- blind5 ------------------------------------------------------------------------------------

#[test]
fn affine_inplace() {
    // a[i] = a[i] * 3 - 7 for the first 3, the 4th unchanged
    let t = tiny("affine_inplace")
        .inout("a", F32, &[1.0, -2.0, 3.5, 10.0])
        .scalar("n", S32, 3.0)
        .scalar("c", F32, 3.0)
        .scalar("d", F32, -7.0);
    same(t.expect("a"), &[-4.0, -13.0, 3.5, 10.0]);
    // one fmaf: (1 + 2^-23)^2 - (1 + 2^-22) = 2^-46 (a rounded product would give 0)
    let x = 1.0 + f64::powi(2.0, -23);
    let t = tiny("affine_inplace")
        .inout("a", F32, &[x])
        .scalar("n", S32, 1.0)
        .scalar("c", F32, x)
        .scalar("d", F32, -(1.0 + f64::powi(2.0, -22)));
    same(t.expect("a"), &[f64::powi(2.0, -46)]);
}

#[test]
fn pair_val_add() {
    // {key, val} pairs: val += key & 15 for the first two (the second wraps), the third unchanged
    let t = tiny("pair_val_add")
        .inout("kv", U32, &[17.0, 5.0, 3.0, 4_294_967_295.0, 8.0, 1.0])
        .scalar("n", S32, 2.0)
        .scalar("mask", U32, 15.0);
    same(t.expect("kv"), &[17.0, 6.0, 3.0, 2.0, 8.0, 1.0]);
}

#[test]
fn quad_smooth() {
    // two tiles of 2: part = sums of 4 = [10 26 | 42 58]; out = l + 2s + r, ends use their own
    let t = tiny("quad_smooth")
        .input("in", U32, &(1..=16).map(f64::from).collect::<Vec<_>>())
        .output("part", U32, 4)
        .output("out", U32, 4)
        .scalar("ntiles", S32, 2.0)
        .params("tile = 2");
    same(t.expect("part"), &[10.0, 26.0, 42.0, 58.0]);
    same(t.expect("out"), &[56.0, 88.0, 184.0, 216.0]);
}

#[test]
fn softmax_shift_rows() {
    // row [1 3]: max 3, e = [126 128], sum 254; row [-2 -2]: e = [128 128], sum 256
    let t = tiny("softmax_shift_rows")
        .input("in", F32, &[1.0, 3.0, -2.0, -2.0])
        .output("out", F32, 4)
        .scalar("rows", S32, 2.0)
        .scalar("cols", S32, 2.0);
    let inv = 1.0f32 / 254.0;
    same(t.expect("out"), &[f64::from(126.0 * inv), f64::from(128.0 * inv), 0.5, 0.5]);
}

#[test]
fn col_sums() {
    // 2 x 3 u16, column sums in u32 (the last past u16)
    let t = tiny("col_sums")
        .input("A", DType::U16, &[1.0, 2.0, 3.0, 4.0, 5.0, 65535.0])
        .output("sums", U32, 3)
        .scalar("rows", S32, 2.0)
        .scalar("cols", S32, 3.0);
    same(t.expect("sums"), &[5.0, 7.0, 65538.0]);
}

#[test]
fn keyed_max() {
    // slot 0: max(10, 7); slot 1: max(0, 5, 9); slot 2 untouched (vals[3] is past n)
    let t = tiny("keyed_max")
        .input("keys", U32, &[1.0, 0.0, 1.0, 2.0])
        .input("vals", U32, &[5.0, 7.0, 9.0, 100.0])
        .inout("maxes", U32, &[10.0, 0.0, 3.0])
        .scalar("n", S32, 3.0);
    same(t.expect("maxes"), &[10.0, 9.0, 3.0]);
}

#[test]
fn bucket_fill() {
    // cap 2: bucket 0 gets 3 items (2 claimed), bucket 1 starts at 1 and gets 2 (1 claimed)
    let t = tiny("bucket_fill")
        .input("keys", U32, &[0.0, 1.0, 0.0, 0.0, 1.0])
        .inout("counts", U32, &[0.0, 1.0])
        .output("fill", U32, 4)
        .scalar("n", S32, 5.0)
        .scalar("cap", U32, 2.0);
    same(t.expect("counts"), &[2.0, 2.0]);
    same(t.expect("fill"), &[1.0, 1.0, 0.0, 2.0]);
}

#[test]
fn spmv_ellr() {
    // 2 rows, width 3, column-major (entry k of row r at 2k + r); row 1 has one entry, its
    // padding (column 9, outside x) is never read
    let t = tiny("spmv_ellr")
        .input("row_len", S32, &[3.0, 1.0])
        .input("cols", S32, &[0.0, 2.0, 1.0, 9.0, 2.0, 9.0])
        .input("vals", F32, &[1.0, 4.0, 2.0, 100.0, 3.0, 100.0])
        .input("x", F32, &[10.0, 20.0, 30.0])
        .output("y", F32, 2)
        .scalar("rows", S32, 2.0);
    same(t.expect("y"), &[140.0, 120.0]);
}

#[test]
fn micro_chains() {
    // dfma: 1 -> 1*2 + 0.5 = 2.5 -> 5.5 (f64)
    let t = tiny("dfma_chain").input("x", F64, &[1.0]).output("out", F64, 1).output("cycles", U64, 1);
    let t = t.scalar("a", F64, 2.0).scalar("b", F64, 0.5).scalar("iters", S32, 2.0).params("chains = 1");
    same(t.expect("out"), &[5.5]);
    // hfma2 on the words (1.5, 1) * (2, 1) + (0.25, 1) -> (3.25, 2): 0x4000_4280
    let t = tiny("hfma2_chain").input("x", U32, &[f64::from(0x3c00_3e00u32)]).output("out", U32, 1).output("cycles", U64, 1);
    let t = t.scalar("a", U32, f64::from(0x3c00_4000u32)).scalar("b", U32, f64::from(0x3c00_3400u32)).scalar("iters", S32, 1.0).params("chains = 1");
    same(t.expect("out"), &[f64::from(0x4000_4280u32)]);
    // ex2: 1 -> 2^-1 = 0.5 -> 2^-0.5
    let t = tiny("ex2_chain").input("x", F32, &[1.0]).output("out", F32, 1).output("cycles", U64, 1);
    let got = t.scalar("iters", S32, 2.0).params("chains = 1").expect("out");
    assert!((got[0] - 0.5f64.sqrt()).abs() < 1e-12, "{got:?}");
    // cvt: 1 + 2^-12 is not an f16 (10 fraction bits): rounds to 1; 0.1 to 0.0999755859375
    let t = tiny("cvt_chain").input("x", F32, &[1.0 + 1.0 / 4096.0, 0.1]).output("out", F32, 2).output("cycles", U64, 1);
    same(t.scalar("iters", S32, 3.0).params("chains = 1").expect("out"), &[1.0, 0.0999755859375]);
    // shfl: each step takes lane + a's value: after 3 steps of a = 2, lane l holds x[(l + 6) % 32]
    let x: Vec<f64> = (0..64).map(|i| (i * 10) as f64).collect();
    let t = tiny("shfl_chain").input("x", U32, &x).output("out", U32, 64).output("cycles", U64, 2);
    let got = t.scalar("a", U32, 2.0).scalar("iters", S32, 3.0).expect("out");
    assert_eq!((got[0], got[26], got[31], got[32], got[63]), (60.0, 0.0, 50.0, 380.0, 370.0));
}

#[test]
fn micro_smem() {
    // 4-way: lane l's word is l/4 + (l%4)*32
    let t = tiny("smem_ways").output("out", U32, 32).output("cycles", U64, 1);
    let got = t.scalar("ways", S32, 4.0).scalar("row_words", S32, 32.0).expect("out");
    assert_eq!((got[0], got[1], got[5], got[31]), (0.0, 128.0, 4.0 * (1.0 + 32.0), 4.0 * (7.0 + 96.0)));
    // smem_bw, 4 bytes, one iteration: lane 0 XORs s[32u] for u < 16; an even count cancels
    let s = |k: u32| k.wrapping_mul(2654435761);
    let want = (0..16).fold(0u32, |a, u| a ^ s(32 * u));
    let t = tiny("smem_bw").output("out", U32, 32).output("cycles", U64, 1).params("width = 4");
    assert_eq!(t.scalar("iters", S32, 1.0).expect("out")[0], f64::from(want));
    let t = tiny("smem_bw").output("out", U32, 32).output("cycles", U64, 1).params("width = 4");
    assert_eq!(t.scalar("iters", S32, 2.0).expect("out")[0], 0.0);
    let want16 = (0..16).flat_map(|u| (0..4).map(move |j| 31 * 4 + u * 128 + j)).fold(0u32, |a, k| a ^ s(k));
    let t = tiny("smem_bw").output("out", U32, 32).output("cycles", U64, 1).params("width = 16");
    assert_eq!(t.scalar("iters", S32, 3.0).expect("out")[31], f64::from(want16));
}

#[test]
fn micro_bandwidth_xors() {
    // l1_bw: lane 1 XORs words 4..8 + 128u + 2048h of in[k] = k over 1 + iters passes
    let input: Vec<f64> = (0..4096).map(f64::from).collect();
    let want = (0..2).flat_map(|h| (0..16).flat_map(move |u| (0..4).map(move |j| 4 + h * 2048 + u * 128 + j))).fold(0u32, |a, k| a ^ k);
    let t = tiny("l1_bw").input("in", U32, &input).output("out", U32, 32).output("cycles", U64, 1);
    assert_eq!(t.scalar("iters", S32, 2.0).expect("out")[1], f64::from(want));
    // l2_bw: one warp, chunk 4096: offsets 0 and 2048
    let t = tiny("l2_bw").input("in", U32, &input).output("out", U32, 32).output("cycles", U64, 1);
    let got = t.scalar("chunk", S32, 4096.0).scalar("iters", S32, 4.0).expect("out");
    assert_eq!(got[1], f64::from(want));
}

/// The two-pass sum: blocks of 4 threads sum 8 inputs each (two per thread, then the tree), the
/// second pass sums the partials.
#[test]
fn two_pass_sum() {
    let mut t = tiny("two_pass_sum")
        .input("in", F32, &(1..=16).map(f64::from).collect::<Vec<_>>())
        .output("partial", F32, 2)
        .output("out", F32, 1)
        .scalar("n", S32, 16.0)
        .scalar("m", S32, 2.0);
    t.block = 4;
    same(t.expect("partial"), &[36.0, 100.0]);
    same(t.expect("out"), &[136.0]);
}

/// One Jacobi sweep of a 3 x 3 grid (a sequence of one launch, so one swap): `a` names the new
/// grid (boundary kept, centre the mean of its four neighbours), `b` the grid before.
#[test]
fn jacobi_sweeps() {
    let before = [1.0, 2.0, 3.0, 4.0, 100.0, 6.0, 7.0, 8.0, 9.0];
    let t = tiny("jacobi_sweeps").inout("a", F32, &before).output("b", F32, 9).scalar("nx", S32, 3.0).scalar("ny", S32, 3.0);
    same(t.expect("a"), &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]);
    same(t.expect("b"), &before);
}

// --- blind6 ------------------------------------------------------------------------------------

#[test]
fn gemm_f64() {
    // 2 x 2 times 2 x 1: c = 2 c + 1.5 (a . b)
    let t = tiny("gemm_f64")
        .input("a", F64, &[1.0, 2.0, 3.0, 4.0])
        .input("b", F64, &[5.0, -1.0])
        .inout("c", F64, &[1.0, -1.0])
        .scalar("ni", S32, 2.0)
        .scalar("nj", S32, 1.0)
        .scalar("nk", S32, 2.0)
        .scalar("alpha", F64, 1.5)
        .scalar("beta", F64, 2.0);
    same(t.expect("c"), &[2.0 + 1.5 * 3.0, -2.0 + 1.5 * 11.0]);
}

#[test]
fn jacobi2d_f64() {
    // 3 x 3: only the centre is interior: 0.2 * (5 + 4 + 6 + 8 + 2) = 5, |5 - 5| <= tol: converged
    let a = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0];
    let t = tiny("jacobi2d_f64").input("A", F64, &a).output("B", F64, 9).output("conv", S32, 1);
    let t = t.scalar("nx", S32, 3.0).scalar("ny", S32, 3.0).scalar("tol", F64, 0.5);
    same(t.expect("B"), &[0.0, 0.0, 0.0, 0.0, 5.0, 0.0, 0.0, 0.0, 0.0]);
    same(t.expect("conv"), &[1.0]);
    // a spike at the centre: 0.2 * 120 = 24, 76 away from 100: not converged
    let mut a = a;
    a[4] = 100.0;
    let t = tiny("jacobi2d_f64").input("A", F64, &a).output("B", F64, 9).output("conv", S32, 1);
    let t = t.scalar("nx", S32, 3.0).scalar("ny", S32, 3.0).scalar("tol", F64, 0.5);
    same(t.expect("conv"), &[0.0]);
}

#[test]
fn col_stats_f64() {
    // 3 x 2: column 0 = [1 2 6] (mean 3, variance (4 + 1 + 9) / 3), column 1 constant (sd 0 -> 1)
    let t = tiny("col_stats_f64")
        .input("data", F32, &[1.0, 7.0, 2.0, 7.0, 6.0, 7.0])
        .output("mean", F64, 2)
        .output("stddev", F64, 2)
        .scalar("m", S32, 2.0)
        .scalar("n", S32, 3.0)
        .scalar("float_n", F64, 3.0)
        .scalar("eps", F64, 0.1);
    same(t.expect("mean"), &[3.0, 7.0]);
    same(t.expect("stddev"), &[(14.0f64 / 3.0).sqrt(), 1.0]);
}

#[test]
fn kmeans_const() {
    // two points of 16 features: exactly centre 1, and centre 3 plus 1 in every feature (distance
    // 16, weight 4); only the first 4 clusters considered
    let centre = |k: usize| (0..16).map(move |f| ((k * 5 + f * 3 + (k * f) % 7) % 16) as f64);
    let (c1, c3): (Vec<f64>, Vec<f64>) = (centre(1).collect(), centre(3).map(|v| v + 1.0).collect());
    // feature-major: features[l * 2 + p]
    let features: Vec<f64> = (0..16).flat_map(|l| [c1[l], c3[l]]).collect();
    let t = tiny("kmeans_const")
        .input("features", F32, &features)
        .output("membership", S32, 2)
        .output("score", F32, 2)
        .scalar("npoints", S32, 2.0)
        .scalar("nclusters", S32, 4.0)
        .scalar("nfeatures", S32, 16.0);
    same(t.expect("membership"), &[1.0, 3.0]);
    same(t.expect("score"), &[0.0, 64.0]);
}

#[test]
fn opcode_interp() {
    // element 0: b = 0: ops 2 (x3), 8 (not); element 1: b = 2654435761: ops 0 (+b), 10 (nothing)
    let t = tiny("opcode_interp")
        .input("ops", S32, &[2.0, 0.0, 8.0, 10.0])
        .input("vals", U32, &[5.0, 1.0])
        .output("out", U32, 2)
        .scalar("n", S32, 2.0)
        .scalar("nops", S32, 2.0);
    same(t.expect("out"), &[f64::from(!15u32), f64::from(1u32.wrapping_add(2_654_435_761))]);
}

#[test]
fn histo_u64() {
    // keys 1, 4, 7 into 3 bins: all in bin 1 (+ 2^32 each); max of 3k - 3e9
    let t = tiny("histo_u64")
        .input("keys", U32, &[1.0, 4.0, 7.0, 2.0])
        .output("bins", U64, 3)
        .inout("maxes", DType::S64, &[-1e18, -1e18, -1e18])
        .scalar("n", S32, 3.0)
        .scalar("nbins", S32, 3.0);
    same(t.expect("bins"), &[0.0, 12.0 + 3.0 * 4_294_967_296.0, 0.0]);
    same(t.expect("maxes"), &[-1e18, 21.0 - 3e9, -1e18]);
}

#[test]
fn dot_f64() {
    let t = tiny("dot_f64")
        .input("x", F64, &[3.0, 4.0, 100.0])
        .input("y", F64, &[2.0, -1.0, 100.0])
        .output("result", F64, 3)
        .scalar("n", S32, 2.0);
    same(t.expect("result"), &[2.0, 25.0, 0.4]);
}

#[test]
fn bfs_level_sync() {
    // 0 -> 1, 2; 1 -> 3; 2 -> 0; 3 -> 0: levels [0, -1, 1, -1], cur 0: node 1 reached, 1 frontier node
    let t = tiny("bfs_level_sync")
        .input("row_ptr", S32, &[0.0, 2.0, 3.0, 4.0, 5.0])
        .input("col_idx", S32, &[1.0, 2.0, 3.0, 0.0, 0.0])
        .inout("level", S32, &[0.0, -1.0, 1.0, -1.0])
        .inout("flags", S32, &[0.0, 5.0])
        .scalar("n", S32, 4.0)
        .scalar("cur", S32, 0.0);
    same(t.expect("level"), &[0.0, 1.0, 1.0, -1.0]);
    same(t.expect("flags"), &[1.0, 6.0]);
    // from level 1 (node 2, whose only neighbour is visited): nothing changes, flags[0] stays
    let t = tiny("bfs_level_sync")
        .input("row_ptr", S32, &[0.0, 2.0, 3.0, 4.0, 5.0])
        .input("col_idx", S32, &[1.0, 2.0, 3.0, 0.0, 0.0])
        .inout("level", S32, &[0.0, -1.0, 1.0, -1.0])
        .output("flags", S32, 2)
        .scalar("n", S32, 4.0)
        .scalar("cur", S32, 1.0);
    same(t.expect("flags"), &[0.0, 1.0]);
}

#[test]
fn nbody_f64() {
    // two bodies of mass 1 at x = 0 and x = 1, eps2 0: a = +-1 (each body's own term is 0)
    let t = tiny("nbody_f64")
        .input("pos", F64, &[0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0])
        .inout("vel", F64, &[0.0, 0.0, 0.0, 7.0, 0.0, 0.0, 0.0, 7.0])
        .output("pos_out", F64, 8)
        .scalar("n", S32, 2.0)
        .scalar("eps2", F64, 0.0)
        .scalar("dt", F64, 0.5);
    // the self term is 0 / 0 in the reference as in the kernel (rsqrt(0) = inf, 0 * inf): NaN
    let v = t.expect("vel");
    assert!(v[0].is_nan() && v[3] == 7.0, "{v:?}");
    // with softening the self term is 0: a = 1 / 1.25^1.5 toward the other body
    let t = tiny("nbody_f64")
        .input("pos", F64, &[0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0])
        .inout("vel", F64, &[0.0, 0.0, 0.0, 7.0, 0.0, 0.0, 0.0, 7.0])
        .output("pos_out", F64, 8)
        .scalar("n", S32, 2.0)
        .scalar("eps2", F64, 0.25)
        .scalar("dt", F64, 0.5);
    let a = 1.0 / (1.25f64 * 1.25f64.sqrt());
    same(t.expect("vel"), &[a * 0.5, 0.0, 0.0, 7.0, -a * 0.5, 0.0, 0.0, 7.0]);
    same(t.expect("pos_out"), &[a * 0.25, 0.0, 0.0, 1.0, 1.0 - a * 0.25, 0.0, 0.0, 1.0]);
}

#[test]
fn blackscholes_f64() {
    // at the money, class 0 (r = 1%), T = 1: put-call parity C - P = S - X e^{-rT}
    let t = tiny("blackscholes_f64")
        .output("call", F32, 1)
        .output("put", F32, 1)
        .input("S", F32, &[20.0])
        .input("X", F32, &[20.0])
        .input("T", F32, &[1.0])
        .input("cls", DType::U8, &[8.0])
        .scalar("n", S32, 1.0);
    let (c, p) = (t.expect("call")[0], t.expect("put")[0]);
    assert!((c - p - (20.0 - 20.0 * (-0.01f64).exp())).abs() < 1e-5, "{c} {p}");
    // S = X = 20, sigma 0.3, r 0.01: C = 2.47365 in closed form (the CND polynomial is within 1e-7)
    assert!((c - 2.473_653).abs() < 1e-5, "{c}");
}

#[test]
fn cell_cas64() {
    // 2 x 2 cells: particles 0 and 2 in cell (1, 0), particle 1 in cell (0, 1); (1.0 clamps to 1)
    let t = tiny("cell_cas64")
        .input("px", F64, &[0.75, 0.25, 1.0])
        .input("py", F64, &[0.0, 0.5, 0.4])
        .inout("cells", U64, &[4_294_967_295.0; 4])
        .scalar("n", S32, 3.0)
        .scalar("gx", S32, 2.0)
        .scalar("gy", S32, 2.0);
    let empty = 4_294_967_295.0;
    same(t.expect("cells"), &[empty, 2.0 * 4_294_967_296.0, 4_294_967_296.0 + 1.0, empty]);
}

#[test]
fn switch_references_step_the_cases_in_order() {
    // Two elements, three iterations. switch_tree: element 0 has sel 0 (cases 0, 1, 2), element 1
    // has sel 15 (cases 15 = default, 0, 1). switch_table: sel[(k & 3) * n + i] picks cases 8, 4,
    // 12 (default) for element 0 and 10, 3, 11 for element 1.
    let tree = tiny("switch_tree")
        .input("sel", S32, &[0.0, 15.0])
        .output("out", U32, 2)
        .scalar("n", S32, 2.0)
        .scalar("iters", S32, 3.0);
    let (a, b) = (0u32 * 3 + 1, 1u32 - (1 >> 2));
    let a = a ^ (a >> 3);
    let a = a.wrapping_add(0x9E37);
    let b = b * 3 + 1;
    let b = b ^ (b >> 3);
    same(tree.expect("out"), &[a as f64, b as f64]);
    let table = tiny("switch_table")
        .input("sel", S32, &[8.0, 10.0, 4.0, 3.0, 12.0, 11.0, 0.0, 0.0])
        .output("out", U32, 2)
        .scalar("n", S32, 2.0)
        .scalar("iters", S32, 3.0);
    let a = !0u32; // case 8 of 0
    let a = a - 1; // case 4, k = 1
    let a = a - (a >> 2); // default
    let b = 1u32.min(0xC000_0000) + 5; // case 10 of 1
    let b = b.rotate_left(5); // case 3
    let b = (b >> 7).wrapping_add(b.wrapping_mul(9)); // case 11
    same(table.expect("out"), &[a as f64, b as f64]);
}

#[test]
fn line_references_take_one_counter_per_128_byte_line() {
    // Five updates over two lines: u64 counters sit 16 apart (u32 ones 32 apart), and the max is
    // signed, from the counters' initial values (3 * 0 - 2^40 loses to the initial -5).
    let add = tiny("atomic_lines").input("in", U32, &[1.0, 2.0, 3.0, 4.0, 5.0]).output("counters", U64, 32).scalar("nlines", S32, 2.0);
    let mut want = vec![0.0; 32];
    (want[0], want[16]) = (9.0, 6.0);
    same(add.expect("counters"), &want);
    let mut init = vec![-5.0; 32];
    init[16] = -(2f64.powi(41));
    let max = tiny("atomic_max_lines")
        .input("in", U32, &[0.0, 7.0, 0.0, 2.0, 0.0])
        .inout("counters", DType::S64, &init)
        .scalar("nlines", S32, 2.0);
    let mut want = init.clone();
    want[16] = 21.0 - 2f64.powi(40);
    same(max.expect("counters"), &want);
}

// --- blind8 -----------------------------------------------------------------------------------

#[test]
fn gesummv() {
    // A = [[1, 2], [3, 4]], B = [[0, 1], [1, 0]], x = (1, 2): tmp = (5, 11), B x = (2, 1);
    // y = 2 tmp + 3 B x
    let t = tiny("gesummv")
        .input("a", F32, &[1.0, 2.0, 3.0, 4.0])
        .input("b", F32, &[0.0, 1.0, 1.0, 0.0])
        .input("x", F32, &[1.0, 2.0])
        .output("y", F32, 2)
        .output("tmp", F32, 2)
        .scalar("n", S32, 2.0)
        .scalar("alpha", F32, 2.0)
        .scalar("beta", F32, 3.0);
    same(t.expect("tmp"), &[5.0, 11.0]);
    same(t.expect("y"), &[16.0, 25.0]);
    // y = fma(alpha, tmp, beta * y), one rounding: (1 - 2^-24)(1 + 2^-23) - 1 = 2^-24 - 2^-47
    // (a rounded product first would give 1 - 1 = 0)
    let t = tiny("gesummv")
        .input("a", F32, &[1.0])
        .input("b", F32, &[0.0])
        .input("x", F32, &[1.0 + 1.0 / 8_388_608.0])
        .inout("y", F32, &[-1.0])
        .output("tmp", F32, 1)
        .scalar("n", S32, 1.0)
        .scalar("alpha", F32, 1.0 - 1.0 / 16_777_216.0)
        .scalar("beta", F32, 1.0);
    same(t.expect("y"), &[2f64.powi(-24) - 2f64.powi(-47)]);
}

#[test]
fn fdtd_hz() {
    // nx = ny = 2: only hz[0][0] is inside; s = (4 - 1) + 5 - 2 = 6, hz = fma(6, -0.7f, 10)
    let t = tiny("fdtd_hz")
        .input("ex", F32, &[1.0, 4.0, 0.0, 0.0, 0.0, 0.0])
        .input("ey", F32, &[2.0, 0.0, 5.0, 0.0, 0.0, 0.0])
        .inout("hz", F32, &[10.0, 7.0, 8.0, 9.0])
        .scalar("nx", S32, 2.0)
        .scalar("ny", S32, 2.0);
    same(t.expect("hz"), &[6.0f32.mul_add(-0.7, 10.0) as f64, 7.0, 8.0, 9.0]);
}

#[test]
fn gauss_fan2() {
    // t = 0 of a 3 x 3 system: rows 1 and 2 lose m[i][0] times row 0, b likewise
    let t = tiny("gauss_fan2")
        .input("m", F32, &[0.0, 0.0, 0.0, 2.0, 0.0, 0.0, -1.0, 0.0, 0.0])
        .inout("a", F32, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0])
        .inout("b", F32, &[1.0, 2.0, 3.0])
        .scalar("size", S32, 3.0)
        .scalar("t", S32, 0.0);
    same(t.expect("a"), &[1.0, 2.0, 3.0, 2.0, 1.0, 0.0, 8.0, 10.0, 12.0]);
    same(t.expect("b"), &[1.0, 0.0, 4.0]);
    // t = 1: only row 2, columns 1 and 2 (column 0 and rows 0, 1 stay)
    let t = tiny("gauss_fan2")
        .input("m", F32, &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 3.0, 0.0])
        .inout("a", F32, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0])
        .inout("b", F32, &[1.0, 2.0, 3.0])
        .scalar("size", S32, 3.0)
        .scalar("t", S32, 1.0);
    same(t.expect("a"), &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, -7.0, -9.0]);
    same(t.expect("b"), &[1.0, 2.0, -3.0]);
}

#[test]
fn nn_euclid() {
    // records (3, 4), (1, 1), (9, 9) to (0, 0); the third is past numRecords
    let t = tiny("nn_euclid")
        .input("locations", F32, &[3.0, 4.0, 1.0, 1.0, 9.0, 9.0])
        .output("distances", F32, 3)
        .scalar("numRecords", S32, 2.0)
        .scalar("lat", F32, 0.0)
        .scalar("lng", F32, 0.0);
    same(t.expect("distances"), &[5.0, 2.0f32.sqrt() as f64, 0.0]);
}

#[test]
fn bpnn_adjust() {
    // in = hid = 1: w and oldw are 2 x 2; (1, 1) gets dw = 0.3 * 2 * 3 + 0.3 * 20, the bias row's
    // (0, 1) db = 0.3 * 2 + 0.3 * 10; column 0 stays
    let t = tiny("bpnn_adjust")
        .input("delta", F32, &[0.0, 2.0])
        .input("ly", F32, &[0.0, 3.0])
        .inout("w", F32, &[1.0, 1.0, 1.0, 1.0])
        .inout("oldw", F32, &[0.0, 10.0, 0.0, 20.0])
        .scalar("hid", S32, 1.0)
        .scalar("in", S32, 1.0);
    let dw = (0.3f32 * 2.0).mul_add(3.0, 0.3 * 20.0);
    let db = 2.0f32.mul_add(0.3, 0.3 * 10.0);
    assert!((dw - 7.8).abs() < 1e-5 && (db - 3.6).abs() < 1e-5);
    same(t.expect("oldw"), &[0.0, db as f64, 0.0, dw as f64]);
    same(t.expect("w"), &[1.0, (1.0 + db) as f64, 1.0, (1.0 + dw) as f64]);
}

#[test]
fn spmv_jds() {
    // sorted rows of lengths 2, 1, 1: diagonal 0 = entries 0..3, diagonal 1 = entry 3 (row 0);
    // sorted row r goes to dst[perm[r]]
    let t = tiny("spmv_jds")
        .input("data", F32, &[1.0, 2.0, 3.0, 4.0])
        .input("index", S32, &[0.0, 1.0, 2.0, 2.0])
        .input("perm", S32, &[2.0, 0.0, 1.0])
        .input("x", F32, &[10.0, 20.0, 30.0])
        .input("jds_ptr", S32, &[0.0, 3.0, 4.0])
        .output("dst", F32, 3)
        .scalar("dim", S32, 3.0)
        .scalar("ndiags", S32, 2.0);
    same(t.expect("dst"), &[40.0, 90.0, 130.0]);
}

#[test]
fn md_lj() {
    // two atoms 1 apart on x, each the other's neighbour and its own (skipped): r2inv = r6inv = 1,
    // forceC = 1.5 - 2 = -0.5, so f_0 = (-1)(-0.5) = 0.5 on x and f_1 = -0.5; w is 0
    let run = |cutsq: f64| {
        tiny("md_lj")
            .input("position", F32, &[0.0, 0.0, 0.0, 7.0, 1.0, 0.0, 0.0, 7.0])
            .input("neighList", S32, &[1.0, 0.0, 0.0, 1.0])
            .output("force", F32, 8)
            .scalar("neighCount", S32, 2.0)
            .scalar("inum", S32, 2.0)
            .scalar("cutsq", F32, cutsq)
            .scalar("lj1", F32, 1.5)
            .scalar("lj2", F32, 2.0)
            .expect("force")
    };
    same(run(16.0), &[0.5, 0.0, 0.0, 0.0, -0.5, 0.0, 0.0, 0.0]);
    // beyond the cutoff: nothing
    same(run(0.5), &[0.0; 8]);
}

#[test]
fn sssp_push() {
    // 0 -> 1 (5), 0 -> 2 (1), 1 -> 2 (1), 2 -> 0 (7); nodes 0 and 1 in the frontier
    let t = tiny("sssp_push")
        .input("row_ptr", S32, &[0.0, 2.0, 3.0, 4.0])
        .input("col_idx", S32, &[1.0, 2.0, 2.0, 0.0])
        .input("weight", S32, &[5.0, 1.0, 1.0, 7.0])
        .input("frontier", DType::U8, &[1.0, 1.0, 0.0])
        .input("dist_in", S32, &[0.0, 3.0, 100.0])
        .inout("dist_out", S32, &[0.0, 100.0, 100.0])
        .scalar("n", S32, 3.0);
    same(t.expect("dist_out"), &[0.0, 5.0, 1.0]);
}

#[test]
fn pagerank_push() {
    // the same graph plus node 3 without edges: shares 10/2 to 1 and 2, 7 to 2, 4 to 0
    let t = tiny("pagerank_push")
        .input("row_ptr", S32, &[0.0, 2.0, 3.0, 4.0, 4.0])
        .input("col_idx", S32, &[1.0, 2.0, 2.0, 0.0])
        .input("rank", U32, &[11.0, 7.0, 4.0, 100.0])
        .inout("next", U32, &[1.0, 0.0, 0.0, 0.0])
        .scalar("n", S32, 4.0);
    same(t.expect("next"), &[5.0, 5.0, 12.0, 0.0]);
}

#[test]
fn byte_histogram() {
    // two words of bytes (1, 1, 2, 255), (0, 0, 0, 0); the ninth byte is past dataCount
    let mut hist = vec![0.0; 256];
    hist[1] = 10.0;
    let t = tiny("byte_histogram")
        .input("data", DType::U8, &[1.0, 1.0, 2.0, 255.0, 0.0, 0.0, 0.0, 0.0, 9.0])
        .inout("hist", U32, &hist)
        .scalar("dataCount", S32, 2.0);
    let got = t.expect("hist");
    assert_eq!((got[0], got[1], got[2], got[9], got[255]), (4.0, 12.0, 1.0, 0.0, 1.0));
    assert_eq!(got.iter().sum::<f64>(), 18.0);
    // a u32 word is its four little-endian bytes
    let t = tiny("byte_histogram").input("data", U32, &[f64::from(0x0403_0201u32)]).output("hist", U32, 256).scalar("dataCount", S32, 1.0);
    let got = t.expect("hist");
    assert_eq!((got[1], got[2], got[3], got[4], got.iter().sum::<f64>()), (1.0, 1.0, 1.0, 1.0, 4.0));
}
