//! Tests of the matrix instructions against naive references. Every fragment layout is written
//! here again, independently of the implementation, as the PTX ISA text states it (row and column
//! of element `i` of lane `l`, with groupID = l >> 2 and threadID_in_group = l % 4), or as CUTLASS
//! writes the `wgmma` register layouts; operands are distributed by those tables, the instruction
//! runs, and the result is collected by the table of D.

use super::*;

// ---- helpers -----------------------------------------------------------------------------------

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn int(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % (hi - lo + 1) as u64) as i64
    }
}

/// The register bits of `v` (exactly representable) as a `ty` element.
fn enc(ty: Ty, v: f64) -> u64 {
    match ty {
        Ty::S8 | Ty::U8 | Ty::S32 | Ty::S4 | Ty::U4 | Ty::B1 => (v as i64 as u64) & ty.mask(),
        _ => f2f(FloatType::F64, float_type(ty), v.to_bits(), Rounding::Rn, FloatMods::default()),
    }
}

/// The value of a `ty` element.
fn dec(ty: Ty, bits: u64) -> f64 {
    match ty {
        Ty::S8 | Ty::U8 | Ty::S32 | Ty::S4 | Ty::U4 | Ty::B1 => ty.extend(bits) as i64 as f64,
        _ => f64::from_bits(f2f(float_type(ty), FloatType::F64, bits, Rounding::Rn, FloatMods::default())),
    }
}

/// A small integer that every element type represents exactly.
fn small(rng: &mut Rng, ty: Ty) -> f64 {
    (match ty {
        Ty::S8 => rng.int(-128, 127),
        Ty::U8 => rng.int(0, 255),
        Ty::E4m3 | Ty::E5m2 => rng.int(-4, 4),
        Ty::S4 => rng.int(-8, 7),
        Ty::U4 => rng.int(0, 15),
        Ty::B1 => rng.int(0, 1),
        _ => rng.int(-8, 8),
    }) as f64
}

/// A matrix of values, row-major.
#[derive(Clone, Debug, PartialEq)]
struct M {
    rows: usize,
    cols: usize,
    v: Vec<f64>,
}

impl M {
    fn random(rng: &mut Rng, ty: Ty, rows: usize, cols: usize) -> M {
        M { rows, cols, v: (0..rows * cols).map(|_| small(rng, ty)).collect() }
    }
    fn at(&self, r: usize, c: usize) -> f64 {
        self.v[r * self.cols + c]
    }
    /// self · b + c, exactly (all values are small integers).
    fn mul_add(&self, b: &M, c: Option<&M>) -> M {
        self.mul_add_by(b, c, |x, y| x * y)
    }
    /// c + Σ_k term(self[i][k], b[k][j]).
    fn mul_add_by(&self, b: &M, c: Option<&M>, term: fn(f64, f64) -> f64) -> M {
        let v = (0..self.rows * b.cols)
            .map(|x| {
                let (i, j) = (x / b.cols, x % b.cols);
                c.map_or(0.0, |c| c.at(i, j)) + (0..self.cols).map(|k| term(self.at(i, k), b.at(k, j))).sum::<f64>()
            })
            .collect();
        M { rows: self.rows, cols: b.cols, v }
    }
}

/// Where element `i` of lane `l` lives: (matrix, row, col) of the PTX matrix (B as K×N).
type Layout = fn(usize, usize) -> (usize, usize, usize);

fn g(l: usize) -> usize {
    l >> 2
}
fn t(l: usize) -> usize {
    l % 4
}

/// Registers from matrices by a layout table: element `i` goes to register `i / pack` at bits
/// `(i % pack)·bits` ("elements low to high").
fn distribute(lay: Layout, per_lane: usize, ty: Ty, mats: &[M]) -> Vec<Lanes> {
    let pack = (32 / ty.bits().min(32)) as usize;
    let mut regs = vec![[0u64; 32]; per_lane / pack];
    for l in 0..32 {
        for i in 0..per_lane {
            let (m, r, c) = lay(l, i);
            regs[i / pack][l] |= enc(ty, mats[m].at(r, c)) << ((i % pack) as u32 * ty.bits());
        }
    }
    regs
}

/// Matrices from registers by a layout table (the inverse of [`distribute`]).
fn collect(lay: Layout, per_lane: usize, ty: Ty, regs: &[Lanes], count: usize, rows: usize, cols: usize) -> Vec<M> {
    let pack = (32 / ty.bits().min(32)) as usize;
    let mut mats = vec![M { rows, cols, v: vec![f64::NAN; rows * cols] }; count];
    for l in 0..32 {
        for i in 0..per_lane {
            let (m, r, c) = lay(l, i);
            mats[m].v[r * cols + c] = dec(ty, (regs[i / pack][l] >> ((i % pack) as u32 * ty.bits())) & ty.mask());
        }
    }
    mats
}

/// A flat byte memory for the closures.
struct Mem(Vec<u8>);

impl Mem {
    fn new(size: usize) -> Mem {
        Mem(vec![0; size])
    }
    fn read(&self, addr: u64, buf: &mut [u8]) -> Result<(), String> {
        let a = addr as usize;
        let src = self.0.get(a..a + buf.len()).ok_or(format!("read out of bounds at {addr}"))?;
        buf.copy_from_slice(src);
        Ok(())
    }
    fn write(&mut self, addr: u64, bytes: &[u8]) -> Result<(), String> {
        let a = addr as usize;
        self.0.get_mut(a..a + bytes.len()).ok_or(format!("write out of bounds at {addr}"))?.copy_from_slice(bytes);
        Ok(())
    }
    fn put(&mut self, addr: usize, ty: Ty, v: f64) {
        let n = (ty.bits() / 8) as usize;
        self.0[addr..addr + n].copy_from_slice(&enc(ty, v).to_le_bytes()[..n]);
    }
    /// Element `index` of an array of `ty` at `base`, sub-byte elements packed low to high.
    fn put_elem(&mut self, base: usize, index: usize, ty: Ty, v: f64) {
        let bits = ty.bits() as usize;
        if bits >= 8 {
            return self.put(base + index * bits / 8, ty, v);
        }
        let (byte, shift) = (base + index * bits / 8, index * bits % 8);
        self.0[byte] = (self.0[byte] & !((ty.mask() as u8) << shift)) | ((enc(ty, v) as u8) << shift);
    }
    fn get_elem(&self, base: usize, index: usize, ty: Ty) -> f64 {
        let bits = ty.bits() as usize;
        if bits >= 8 {
            return self.get(base + index * bits / 8, ty);
        }
        dec(ty, (self.0[base + index * bits / 8] >> (index * bits % 8)) as u64 & ty.mask())
    }
    fn get(&self, addr: usize, ty: Ty) -> f64 {
        let n = (ty.bits() / 8) as usize;
        let mut b = [0u8; 8];
        b[..n].copy_from_slice(&self.0[addr..addr + n]);
        dec(ty, u64::from_le_bytes(b))
    }
}

// ---- ldmatrix / stmatrix / movmatrix -----------------------------------------------------------

/// PTX ISA 9.7.14.5.15, figure 104: register j of lane l holds row l/4, columns 2(l%4), 2(l%4)+1
/// of matrix j.
fn ldm_layout(l: usize, i: usize) -> (usize, usize, usize) {
    (i / 2, g(l), 2 * t(l) + i % 2)
}

/// Puts matrices' rows at scattered 16-byte-aligned addresses; returns the per-lane row addresses.
fn place_rows(mem: &mut Mem, mats: &[M], rng: &mut Rng) -> Lanes {
    let mut addrs = [0u64; 32];
    let mut slots: Vec<usize> = (0..64).collect();
    for (j, m) in mats.iter().enumerate() {
        for r in 0..8 {
            let k = rng.int(0, slots.len() as i64 - 1) as usize;
            let at = 16 * slots.swap_remove(k);
            addrs[8 * j + r] = at as u64;
            for c in 0..8 {
                mem.put(at + 2 * c, Ty::F16, m.at(r, c));
            }
        }
    }
    addrs
}

fn transpose(m: &M) -> M {
    M { rows: m.cols, cols: m.rows, v: (0..m.v.len()).map(|x| m.at(x % m.rows, x / m.rows)).collect() }
}

#[test]
fn ldmatrix_follows_figure_104() {
    let mut rng = Rng(1);
    for num in [1u8, 2, 4] {
        let mats: Vec<M> = (0..num).map(|_| M::random(&mut rng, Ty::F16, 8, 8)).collect();
        let mut mem = Mem::new(1024);
        let addrs = place_rows(&mut mem, &mats, &mut rng);
        let regs = ldmatrix((8, 8, 0), num, false, Ty::B16, &addrs, &mut |_, a, b| mem.read(a, b)).unwrap();
        assert_eq!(regs.len(), num as usize);
        assert_eq!(collect(ldm_layout, 2 * num as usize, Ty::F16, &regs, num as usize, 8, 8), mats);
    }
}

#[test]
fn ldmatrix_trans_equals_ldmatrix_of_the_transpose() {
    let mut rng = Rng(2);
    let mats: Vec<M> = (0..4).map(|_| M::random(&mut rng, Ty::F16, 8, 8)).collect();
    let trans: Vec<M> = mats.iter().map(transpose).collect();
    let mut mem = Mem::new(1024);
    let a = place_rows(&mut mem, &mats, &mut rng);
    let mut mem2 = Mem::new(1024);
    let b = place_rows(&mut mem2, &trans, &mut rng);
    let x = ldmatrix((8, 8, 0), 4, true, Ty::B16, &a, &mut |_, a, b| mem.read(a, b)).unwrap();
    let y = ldmatrix((8, 8, 0), 4, false, Ty::B16, &b, &mut |_, a, b| mem2.read(a, b)).unwrap();
    assert_eq!(x, y);
}

#[test]
fn stmatrix_inverts_ldmatrix_and_writes_rows() {
    let mut rng = Rng(3);
    for trans in [false, true] {
        let mats: Vec<M> = (0..4).map(|_| M::random(&mut rng, Ty::F16, 8, 8)).collect();
        let regs = distribute(ldm_layout, 8, Ty::F16, &mats);
        let mut mem = Mem::new(1024);
        let addrs = place_rows(&mut Mem::new(1024), &mats, &mut rng);
        stmatrix((8, 8, 0), 4, trans, Ty::B16, &addrs, &regs, &mut |_, a, b| mem.write(a, b)).unwrap();
        // Row r of matrix j (of its transpose with .trans) is at lane 8j + r's address.
        for (j, m) in mats.iter().enumerate() {
            let m = if trans { transpose(m) } else { m.clone() };
            for r in 0..8 {
                for c in 0..8 {
                    assert_eq!(mem.get(addrs[8 * j + r] as usize + 2 * c, Ty::F16), m.at(r, c));
                }
            }
        }
        let back = ldmatrix((8, 8, 0), 4, trans, Ty::B16, &addrs, &mut |_, a, b| mem.read(a, b)).unwrap();
        assert_eq!(back, regs);
    }
}

#[test]
fn movmatrix_transposes_the_fragment() {
    let mut rng = Rng(4);
    let m = M::random(&mut rng, Ty::F16, 8, 8);
    let a = distribute(ldm_layout, 2, Ty::F16, std::slice::from_ref(&m));
    let d = movmatrix((8, 8, 0), true, Ty::B16, &a[0]).unwrap();
    assert_eq!(collect(ldm_layout, 2, Ty::F16, &[d], 1, 8, 8), vec![transpose(&m)]);
    assert!(movmatrix((8, 8, 0), false, Ty::B16, &a[0]).is_err());
}

#[test]
fn movement_rejects_other_forms() {
    let mut read = |_: usize, _: u64, _: &mut [u8]| -> Result<(), String> { Ok(()) };
    assert!(matches!(ldmatrix((8, 8, 0), 3, false, Ty::B16, &[0; 32], &mut read), Err(TensorError::Form(_))));
    assert!(matches!(ldmatrix((16, 16, 0), 1, true, Ty::B8, &[0; 32], &mut read), Err(TensorError::Form(_))));
    let mut write = |_: usize, _: u64, _: &[u8]| -> Result<(), String> { Ok(()) };
    assert!(matches!(stmatrix((8, 8, 0), 2, false, Ty::B16, &[0; 32], &[[0; 32]], &mut write), Err(TensorError::Form(_))));
    // A refused access comes back as the closure's error.
    let mut refuse = |_: usize, a: u64, _: &mut [u8]| -> Result<(), String> { Err(format!("no {a}")) };
    assert_eq!(ldmatrix((8, 8, 0), 1, false, Ty::B16, &[48; 32], &mut refuse), Err(TensorError::Memory("no 48".into())));
}

// ---- mma.sync ----------------------------------------------------------------------------------
// PTX ISA 9.7.14.5.x, formulas transcribed.

// m16n8k16 .f16/.bf16 (9.7.14.5.8)
fn a16816(l: usize, i: usize) -> (usize, usize, usize) {
    let row = if i < 2 || (4..6).contains(&i) { g(l) } else { g(l) + 8 };
    let col = if i < 4 { t(l) * 2 + (i & 1) } else { t(l) * 2 + (i & 1) + 8 };
    (0, row, col)
}
fn b16816(l: usize, i: usize) -> (usize, usize, usize) {
    let row = if i < 2 { t(l) * 2 + (i & 1) } else { t(l) * 2 + (i & 1) + 8 };
    (0, row, g(l))
}
/// Accumulators of every m16n8kK (c0..c3).
fn c16n8(l: usize, i: usize) -> (usize, usize, usize) {
    (0, if i < 2 { g(l) } else { g(l) + 8 }, t(l) * 2 + (i & 1))
}
// m16n8k16 .f64
fn a16816_f64(l: usize, i: usize) -> (usize, usize, usize) {
    if i % 2 == 0 {
        (0, g(l), i * 2 + t(l))
    } else {
        (0, g(l) + 8, i * 2 - 2 + t(l))
    }
}
fn b16816_f64(l: usize, i: usize) -> (usize, usize, usize) {
    (0, t(l) + i * 4, g(l))
}
// m16n8k16 .s8/.u8/.e4m3/.e5m2 (9.7.14.5.9)
fn a16816_i8(l: usize, i: usize) -> (usize, usize, usize) {
    (0, if i < 4 { g(l) } else { g(l) + 8 }, t(l) * 4 + (i & 3))
}
fn b16816_i8(l: usize, i: usize) -> (usize, usize, usize) {
    (0, t(l) * 4 + i, g(l))
}
// m16n8k32 .s8/.u8/.e4m3/.e5m2 (9.7.14.5.10)
fn a16832_i8(l: usize, i: usize) -> (usize, usize, usize) {
    let row = if i < 4 || (8..12).contains(&i) { g(l) } else { g(l) + 8 };
    let col = if i < 8 { t(l) * 4 + (i & 3) } else { t(l) * 4 + (i & 3) + 16 };
    (0, row, col)
}
fn b16832_i8(l: usize, i: usize) -> (usize, usize, usize) {
    (0, if i < 4 { t(l) * 4 + (i & 3) } else { t(l) * 4 + (i & 3) + 16 }, g(l))
}
// m16n8k8 (9.7.14.5.7)
fn a1688_f16(l: usize, i: usize) -> (usize, usize, usize) {
    (0, if i < 2 { g(l) } else { g(l) + 8 }, t(l) * 2 + (i & 1))
}
fn b1688_f16(l: usize, i: usize) -> (usize, usize, usize) {
    (0, t(l) * 2 + i, g(l))
}
/// `.tf32` and `.f64` A.
fn a1688_32(l: usize, i: usize) -> (usize, usize, usize) {
    (0, if i == 0 || i == 2 { g(l) } else { g(l) + 8 }, if i < 2 { t(l) } else { t(l) + 4 })
}
fn b1688_32(l: usize, i: usize) -> (usize, usize, usize) {
    (0, if i == 0 { t(l) } else { t(l) + 4 }, g(l))
}
// m16n8k4 (9.7.14.5.6)
fn a1684(l: usize, i: usize) -> (usize, usize, usize) {
    (0, if i == 0 { g(l) } else { g(l) + 8 }, t(l))
}
fn b1684(l: usize, _: usize) -> (usize, usize, usize) {
    (0, t(l), g(l))
}
// m8n8k4 .f64 (9.7.14.5.2)
fn a884_f64(l: usize, _: usize) -> (usize, usize, usize) {
    (0, l >> 2, l % 4)
}
fn b884_f64(l: usize, _: usize) -> (usize, usize, usize) {
    (0, l % 4, l >> 2)
}
fn c8n8(l: usize, i: usize) -> (usize, usize, usize) {
    (0, g(l), t(l) * 2 + (i & 1))
}
// m8n8k16 .s8/.u8 (9.7.14.5.3)
fn a8816(l: usize, i: usize) -> (usize, usize, usize) {
    (0, g(l), t(l) * 4 + i)
}
fn b8816(l: usize, i: usize) -> (usize, usize, usize) {
    (0, t(l) * 4 + i, g(l))
}
// m8n8k32 .s4/.u4 (9.7.14.5.4)
fn a8832(l: usize, i: usize) -> (usize, usize, usize) {
    (0, g(l), t(l) * 8 + i)
}
fn b8832(l: usize, i: usize) -> (usize, usize, usize) {
    (0, t(l) * 8 + i, g(l))
}
// m16n8k32 .s4/.u4 (9.7.14.5.10)
fn a16832_i4(l: usize, i: usize) -> (usize, usize, usize) {
    (0, if i < 8 { g(l) } else { g(l) + 8 }, t(l) * 8 + (i & 0x7))
}
fn b16832_i4(l: usize, i: usize) -> (usize, usize, usize) {
    (0, t(l) * 8 + (i & 0x7), g(l))
}
// m16n8k64 .s4/.u4 (9.7.14.5.11)
fn a16864(l: usize, i: usize) -> (usize, usize, usize) {
    let row = if i < 8 || (16..24).contains(&i) { g(l) } else { g(l) + 8 };
    (0, row, if i < 16 { t(l) * 8 + (i & 0x7) } else { t(l) * 8 + (i & 0x7) + 32 })
}
fn b16864(l: usize, i: usize) -> (usize, usize, usize) {
    (0, if i < 8 { t(l) * 8 + (i & 0x7) } else { t(l) * 8 + (i & 0x7) + 32 }, g(l))
}
// m8n8k128 .b1 (9.7.14.5.5)
fn a88128(l: usize, i: usize) -> (usize, usize, usize) {
    (0, g(l), t(l) * 32 + i)
}
fn b88128(l: usize, i: usize) -> (usize, usize, usize) {
    (0, t(l) * 32 + i, g(l))
}
// m16n8k128 .b1 (9.7.14.5.12)
fn a168128(l: usize, i: usize) -> (usize, usize, usize) {
    (0, if i < 32 { g(l) } else { g(l) + 8 }, t(l) * 32 + (i & 0x1F))
}
fn b168128(l: usize, i: usize) -> (usize, usize, usize) {
    (0, t(l) * 32 + i, g(l))
}
// m16n8k256 .b1 (9.7.14.5.13; its "(threadID_in_group * 32) + i for i < 64" can only mean
// i & 0x1F: elements 32..63 are the g + 8 row of the same 32 columns).
fn a168256(l: usize, i: usize) -> (usize, usize, usize) {
    let row = if i < 32 || (64..96).contains(&i) { g(l) } else { g(l) + 8 };
    (0, row, if i < 64 { t(l) * 32 + (i & 0x1F) } else { t(l) * 32 + (i & 0x1F) + 128 })
}
fn b168256(l: usize, i: usize) -> (usize, usize, usize) {
    (0, if i < 32 { t(l) * 32 + (i & 0x1F) } else { t(l) * 32 + (i & 0x1F) + 128 }, g(l))
}
// m8n8k4 .f16 (9.7.14.5.1): quad pair (l >> 2) & 3 computes its own product; hi = l ≥ 16.
fn qp(l: usize) -> (usize, usize) {
    ((l >> 2) & 3, if l < 16 { 0 } else { 4 })
}
fn a884_row(l: usize, i: usize) -> (usize, usize, usize) {
    let (q, hi) = qp(l);
    (q, l % 4 + hi, i)
}
fn a884_col(l: usize, i: usize) -> (usize, usize, usize) {
    let (q, hi) = qp(l);
    (q, i % 4 + hi, l % 4)
}
fn b884_row(l: usize, i: usize) -> (usize, usize, usize) {
    let (q, hi) = qp(l);
    (q, l % 4, i + hi)
}
fn b884_col(l: usize, i: usize) -> (usize, usize, usize) {
    let (q, hi) = qp(l);
    (q, i, l % 4 + hi)
}
fn c884_f16(l: usize, i: usize) -> (usize, usize, usize) {
    let (q, hi) = qp(l);
    (q, l % 4 + hi, i)
}
fn c884_f32(l: usize, i: usize) -> (usize, usize, usize) {
    let (q, hi) = qp(l);
    (q, (l & 0b1) + (i & 0b10) + hi, (i & 0b100) + (l & 0b10) + (i & 0b1))
}

fn c_layout(shape: (u16, u16, u16), ty: Ty) -> Layout {
    match (shape, ty) {
        ((8, 8, 4), Ty::F16) => c884_f16,
        ((8, 8, 4), Ty::F32) => c884_f32,
        ((8, 8, _), _) => c8n8,
        _ => c16n8,
    }
}

struct Case {
    shape: (u16, u16, u16),
    /// d, a, b, c
    tys: [Ty; 4],
    rows: (bool, bool),
    la: Layout,
    lb: Layout,
    popc: Option<BoolOp>,
}

/// Runs one `mma` form on random small-integer operands and compares with the exact product.
fn check_mma(case: &Case, rng: &mut Rng) {
    let (m, n, k) = (case.shape.0 as usize, case.shape.1 as usize, case.shape.2 as usize);
    let [dt, at, bt, ct] = case.tys;
    let groups = if case.shape == (8, 8, 4) && at == Ty::F16 { 4 } else { 1 };
    let per = |rows: usize, cols: usize| rows * cols * groups / 32;
    let a: Vec<M> = (0..groups).map(|_| M::random(rng, at, m, k)).collect();
    let b: Vec<M> = (0..groups).map(|_| M::random(rng, bt, k, n)).collect();
    let c: Vec<M> = (0..groups).map(|_| M::random(rng, if ct == Ty::S32 { Ty::S8 } else { ct }, m, n)).collect();
    let op = Mma {
        shape: case.shape,
        a_row: case.rows.0,
        b_row: case.rows.1,
        types: MmaTypes { d: dt, a: at, b: bt, c: ct },
        satfinite: false,
        rnd: Rounding::Rn,
        popc: case.popc,
    };
    let regs = |lay, rows, cols, ty, mats: &[M]| distribute(lay, per(rows, cols), ty, mats);
    let d = mma(&op, &regs(case.la, m, k, at, &a), &regs(case.lb, k, n, bt, &b), &regs(c_layout(case.shape, ct), m, n, ct, &c))
        .unwrap_or_else(|e| panic!("{e}"));
    let got = collect(c_layout(case.shape, dt), per(m, n), dt, &d, groups, m, n);
    let term: fn(f64, f64) -> f64 = match case.popc {
        Some(BoolOp::Xor) => |x, y| (x != y) as u8 as f64,
        _ => |x, y| x * y,
    };
    let want: Vec<M> = (0..groups).map(|q| a[q].mul_add_by(&b[q], Some(&c[q]), term)).collect();
    assert_eq!(got, want, "{}", op.name("mma"));
}

#[test]
fn mma_forms_match_the_ptx_fragments() {
    use Ty::*;
    let f16f32 = [[F32, F16, F16, F32], [F16, F16, F16, F16], [F32, F16, F16, F16], [F16, F16, F16, F32]];
    let mut cases = vec![];
    for tys in f16f32 {
        cases.push(Case { shape: (16, 8, 16), tys, rows: (true, false), la: a16816, lb: b16816, popc: None });
        cases.push(Case { shape: (16, 8, 8), tys, rows: (true, false), la: a1688_f16, lb: b1688_f16, popc: None });
        for (rows, la, lb) in [
            ((true, true), a884_row as Layout, b884_row as Layout),
            ((true, false), a884_row, b884_col),
            ((false, true), a884_col, b884_row),
            ((false, false), a884_col, b884_col),
        ] {
            cases.push(Case { shape: (8, 8, 4), tys, rows, la, lb, popc: None });
        }
    }
    let rc = (true, false);
    cases.extend([
        Case { shape: (16, 8, 16), tys: [F32, Bf16, Bf16, F32], rows: rc, la: a16816, lb: b16816, popc: None },
        Case { shape: (16, 8, 8), tys: [F32, Bf16, Bf16, F32], rows: rc, la: a1688_f16, lb: b1688_f16, popc: None },
        Case { shape: (16, 8, 8), tys: [F32, Tf32, Tf32, F32], rows: rc, la: a1688_32, lb: b1688_32, popc: None },
        Case { shape: (16, 8, 4), tys: [F32, Tf32, Tf32, F32], rows: rc, la: a1684, lb: b1684, popc: None },
        Case { shape: (8, 8, 4), tys: [F64, F64, F64, F64], rows: rc, la: a884_f64, lb: b884_f64, popc: None },
        Case { shape: (16, 8, 4), tys: [F64, F64, F64, F64], rows: rc, la: a1684, lb: b1684, popc: None },
        Case { shape: (16, 8, 8), tys: [F64, F64, F64, F64], rows: rc, la: a1688_32, lb: b1688_32, popc: None },
        Case { shape: (16, 8, 16), tys: [F64, F64, F64, F64], rows: rc, la: a16816_f64, lb: b16816_f64, popc: None },
        Case { shape: (8, 8, 16), tys: [S32, S8, U8, S32], rows: rc, la: a8816, lb: b8816, popc: None },
    ]);
    for (x, y) in [(S8, S8), (U8, S8), (S8, U8), (U8, U8)] {
        cases.push(Case { shape: (16, 8, 16), tys: [S32, x, y, S32], rows: rc, la: a16816_i8, lb: b16816_i8, popc: None });
        cases.push(Case { shape: (16, 8, 32), tys: [S32, x, y, S32], rows: rc, la: a16832_i8, lb: b16832_i8, popc: None });
    }
    for (x, y) in [(S4, S4), (U4, S4), (S4, U4), (U4, U4)] {
        cases.push(Case { shape: (8, 8, 32), tys: [S32, x, y, S32], rows: rc, la: a8832, lb: b8832, popc: None });
        cases.push(Case { shape: (16, 8, 32), tys: [S32, x, y, S32], rows: rc, la: a16832_i4, lb: b16832_i4, popc: None });
        cases.push(Case { shape: (16, 8, 64), tys: [S32, x, y, S32], rows: rc, la: a16864, lb: b16864, popc: None });
    }
    for popc in [Some(BoolOp::Xor), Some(BoolOp::And)] {
        let tys = [S32, B1, B1, S32];
        cases.push(Case { shape: (8, 8, 128), tys, rows: rc, la: a88128, lb: b88128, popc });
        cases.push(Case { shape: (16, 8, 128), tys, rows: rc, la: a168128, lb: b168128, popc });
        cases.push(Case { shape: (16, 8, 256), tys, rows: rc, la: a168256, lb: b168256, popc });
    }
    for (x, y) in [(E4m3, E4m3), (E4m3, E5m2), (E5m2, E4m3), (E5m2, E5m2)] {
        for acc in [F32, F16] {
            cases.push(Case { shape: (16, 8, 16), tys: [acc, x, y, acc], rows: rc, la: a16816_i8, lb: b16816_i8, popc: None });
            cases.push(Case { shape: (16, 8, 32), tys: [acc, x, y, acc], rows: rc, la: a16832_i8, lb: b16832_i8, popc: None });
        }
    }
    let mut rng = Rng(5);
    for case in &cases {
        for _ in 0..3 {
            check_mma(case, &mut rng);
        }
    }
}

/// One m16n8k16 .f32.f16.f16.f32 with operands from random bits.
fn mma_f16_bits(a: &[Lanes], b: &[Lanes], c: &[Lanes]) -> Vec<Lanes> {
    let op = Mma { shape: (16, 8, 16), a_row: true, b_row: false, types: MmaTypes { d: Ty::F32, a: Ty::F16, b: Ty::F16, c: Ty::F32 }, satfinite: false, rnd: Rounding::Rn, popc: None };
    mma(&op, a, b, c).unwrap()
}

#[test]
fn mma_f16_fractions_round_once_to_f32() {
    // Non-integer values: the reference is the exact sum (f64 holds products of f16 exactly; these
    // magnitudes keep the sum exact too) rounded once to f32: equal bits.
    let mut rng = Rng(6);
    for _ in 0..20 {
        let frac = |rng: &mut Rng, rows, cols| M { rows, cols, v: (0..rows * cols).map(|_| rng.int(-1024, 1024) as f64 / 512.0).collect() };
        let (a, b) = (frac(&mut rng, 16, 16), frac(&mut rng, 16, 8));
        let c = M { rows: 16, cols: 8, v: (0..128).map(|_| rng.int(-1 << 20, 1 << 20) as f64 / 3.0).map(|v| v as f32 as f64).collect() };
        let d = mma_f16_bits(&distribute(a16816, 8, Ty::F16, std::slice::from_ref(&a)), &distribute(b16816, 4, Ty::F16, std::slice::from_ref(&b)), &distribute(c16n8, 4, Ty::F32, std::slice::from_ref(&c)));
        let got = collect(c16n8, 4, Ty::F32, &d, 1, 16, 8);
        let want = a.mul_add(&b, Some(&c));
        let want = M { v: want.v.iter().map(|&v| v as f32 as f64).collect(), ..want };
        assert_eq!(got[0], want);
    }
}

#[test]
fn f32_rounding_matches_cvt() {
    // The host f64 → f32 conversion used for f32 accumulators equals `cvt.rn.f32.f64`, including
    // ties, subnormals and overflow. NaN differs by design: `cvt` keeps an f64 NaN's payload (H200
    // oracle), an accumulator NaN is canonical (`mma_special_values`).
    let mut rng = Rng(13);
    let special = [0.0, -0.0, f64::INFINITY, f64::NEG_INFINITY, f64::NAN, f64::MAX, 1.0 + f64::EPSILON, 3.4028235677973366e38, 1.401298464324817e-45, 7.006492321624085e-46, 2.0f64.powi(-150)];
    let mut random: Vec<f64> = (0..100_000).map(|_| f64::from_bits(rng.next())).collect();
    random.extend((0..100_000).map(|_| (rng.next() as i64 as f64) * 2f64.powi(rng.int(-200, 100) as i32)));
    for v in special.into_iter().chain(random).filter(|v| !v.is_nan()) {
        let want = f2f(FloatType::F64, FloatType::F32, v.to_bits(), Rounding::Rn, FloatMods::default());
        assert_eq!(from_f64(Ty::F32, v), want, "{v:e}");
    }
}

#[test]
fn mma_special_values() {
    // A row of +inf times a zero column gives NaN (the canonical f32 NaN); inf times a positive
    // column gives inf; tf32 ignores the low 13 bits of its operands.
    let mut a = M { rows: 16, cols: 16, v: vec![1.0; 256] };
    a.v[..16].fill(f64::INFINITY);
    let mut b = M { rows: 16, cols: 8, v: vec![1.0; 128] };
    for k in 0..16 {
        b.v[k * 8] = 0.0;
    }
    let c = M { rows: 16, cols: 8, v: vec![0.0; 128] };
    let d = mma_f16_bits(&distribute(a16816, 8, Ty::F16, &[a]), &distribute(b16816, 4, Ty::F16, &[b]), &distribute(c16n8, 4, Ty::F32, &[c]));
    // Element (0, 0) is c0 of lane 0, (0, 1) c1 of lane 0.
    assert_eq!(d[0][0], 0x7FFF_FFFF);
    assert_eq!(d[1][0], f32::INFINITY.to_bits() as u64);

    let op = Mma { shape: (16, 8, 4), a_row: true, b_row: false, types: MmaTypes { d: Ty::F32, a: Ty::Tf32, b: Ty::Tf32, c: Ty::F32 }, satfinite: false, rnd: Rounding::Rn, popc: None };
    let one_plus = (1.0f32.to_bits() | 0x1FFF) as u64; // 1 + (low bits a tf32 does not have)
    let d = mma(&op, &[[one_plus; 32]; 2], &[[one_plus; 32]], &[[0; 32]; 4]).unwrap();
    assert_eq!(d[0][0], 4.0f32.to_bits() as u64);
}

#[test]
fn mma_integer_wraps_or_saturates() {
    for (satfinite, want) in [(false, i32::MIN as u32), (true, i32::MAX as u32)] {
        let op = Mma { shape: (16, 8, 16), a_row: true, b_row: false, types: MmaTypes { d: Ty::S32, a: Ty::S8, b: Ty::S8, c: Ty::S32 }, satfinite, rnd: Rounding::Rn, popc: None };
        // Every product 1·1; sum 16 on top of i32::MAX − 15 overflows by one.
        let ones = 0x0101_0101u64;
        let d = mma(&op, &[[ones; 32]; 2], &[[ones; 32]], &[[(i32::MAX - 15) as u32 as u64; 32]; 4]).unwrap();
        assert!(d.iter().all(|r| r.iter().all(|&x| x == want as u64)), "satfinite {satfinite}");
    }
}

#[test]
fn mma_rejects_other_forms() {
    let op = |shape, tys: [Ty; 4], a_row, b_row| Mma { shape, a_row, b_row, types: MmaTypes { d: tys[0], a: tys[1], b: tys[2], c: tys[3] }, satfinite: false, rnd: Rounding::Rn, popc: None };
    use Ty::*;
    let regs = [[0u64; 32]; 8];
    for bad in [
        op((16, 8, 16), [F32, F16, F16, F32], false, false),
        op((16, 8, 16), [F16, Bf16, Bf16, F32], true, false),
        op((16, 8, 32), [F32, F16, F16, F32], true, false),
        op((16, 8, 16), [F32, F16, Bf16, F32], true, false),
        op((8, 8, 128), [S32, B1, B1, S32], true, false), // no .popc
        op((16, 8, 64), [S32, S8, S8, S32], true, false),
        op((16, 8, 8), [F32, Tf32, Tf32, F16], true, false),
    ] {
        let e = mma(&bad, &regs[..4], &regs[..2], &regs[..4]).unwrap_err();
        assert!(e.0.starts_with("mma.sync.aligned.m"), "{e}");
    }
    // Wrong register counts name the operand.
    let good = op((16, 8, 16), [F32, F16, F16, F32], true, false);
    let e = mma(&good, &regs[..3], &regs[..2], &regs[..4]).unwrap_err();
    assert_eq!(e.0, "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32: A takes 4 registers, got 3");
    assert!(MmaTypes::from_ptx(&[F32]).is_err());
    assert_eq!(MmaTypes::from_ptx(&[F32, F16]).unwrap(), MmaTypes { d: F32, a: F16, b: F16, c: F16 });
}

// ---- wmma --------------------------------------------------------------------------------------

/// Stores `m` (a PTX matrix) at `base` with the layout and leading dimension `ld` (elements).
fn store_matrix(mem: &mut Mem, base: usize, m: &M, ty: Ty, row_major: bool, ld: usize) {
    for r in 0..m.rows {
        for c in 0..m.cols {
            mem.put_elem(base, if row_major { r * ld + c } else { c * ld + r }, ty, m.at(r, c));
        }
    }
}

fn load_matrix(mem: &Mem, base: usize, rows: usize, cols: usize, ty: Ty, row_major: bool, ld: usize) -> M {
    let v = (0..rows * cols).map(|x| (x / cols, x % cols)).map(|(r, c)| mem.get_elem(base, if row_major { r * ld + c } else { c * ld + r }, ty)).collect();
    M { rows, cols, v }
}

#[test]
fn wmma_load_mma_store_computes_the_product() {
    use Ty::*;
    let mut forms = vec![];
    for shape in [(16, 16, 16), (32, 8, 16), (8, 32, 16)] {
        forms.extend([(shape, [F32, F16, F16, F32]), (shape, [F16, F16, F16, F16]), (shape, [F32, F16, F16, F16]), (shape, [F16, F16, F16, F32])]);
        forms.extend([(shape, [F32, Bf16, Bf16, F32]), (shape, [S32, S8, S8, S32]), (shape, [S32, U8, U8, S32])]);
    }
    forms.extend([((16, 16, 8), [F32, Tf32, Tf32, F32]), ((8, 8, 4), [F64, F64, F64, F64]), ((8, 8, 32), [S32, U4, U4, S32]), ((8, 8, 32), [S32, S4, S4, S32])]);
    let mut forms: Vec<_> = forms.into_iter().map(|(shape, tys)| (shape, tys, None)).collect();
    forms.extend([Some(BoolOp::Xor), Some(BoolOp::And)].map(|popc| ((8, 8, 128), [S32, B1, B1, S32], popc)));
    let mut rng = Rng(7);
    for (shape, [dt, at, bt, ct], popc) in forms {
        let (m, n, k) = (shape.0 as usize, shape.1 as usize, shape.2 as usize);
        let term: fn(f64, f64) -> f64 = if popc == Some(BoolOp::Xor) { |x, y| (x != y) as u8 as f64 } else { |x, y| x * y };
        // Sub-byte A and B exist only as .row A and .col B (layout 1).
        for lay in (0..4).filter(|&lay| at.bits() >= 8 || lay == 1) {
            let (a_row, b_row) = (lay & 1 == 1, lay & 2 == 2);
            let (c_row, d_row) = (lay != 1, lay != 2);
            let a = M::random(&mut rng, at, m, k);
            let b = M::random(&mut rng, bt, k, n);
            let c = M::random(&mut rng, if ct == S32 { S8 } else { ct }, m, n);
            // Leading dimensions: the default for layout 0, padded otherwise.
            let pad = if lay == 0 { 0 } else { 8 };
            let ld = |rows: usize, cols: usize, row: bool| if row { cols } else { rows } + pad;
            let mut mem = Mem::new(1 << 16);
            let (pa, pb, pc, pd) = (0x0000, 0x2000, 0x4000, 0x8000);
            store_matrix(&mut mem, pa, &a, at, a_row, ld(m, k, a_row));
            store_matrix(&mut mem, pb, &b, bt, b_row, ld(k, n, b_row));
            store_matrix(&mut mem, pc, &c, ct, c_row, ld(m, n, c_row));
            let stride = |rows, cols, row| (pad != 0).then_some([ld(rows, cols, row) as u64; 32]);
            let load = |mem: &Mem, operand, row_major, ty, at: usize, stride: Option<Lanes>| {
                let op = WmmaMem { shape, operand, row_major, ty };
                wmma_load(&op, &[at as u64; 32], stride.as_ref(), &mut |_, a, b| mem.read(a, b)).unwrap_or_else(|e| panic!("{e}"))
            };
            let fa = load(&mem, Operand::A, a_row, at, pa, stride(m, k, a_row));
            let fb = load(&mem, Operand::B, b_row, bt, pb, stride(k, n, b_row));
            let fc = load(&mem, Operand::C, c_row, ct, pc, stride(m, n, c_row));
            let op = Mma { shape, a_row, b_row, types: MmaTypes { d: dt, a: at, b: bt, c: ct }, satfinite: false, rnd: Rounding::Rn, popc };
            let fd = wmma_mma(&op, &fa, &fb, &fc).unwrap_or_else(|e| panic!("{e}"));
            let st = WmmaMem { shape, operand: Operand::C, row_major: d_row, ty: dt };
            let sd = stride(m, n, d_row);
            wmma_store(&st, &[pd as u64; 32], sd.as_ref(), &fd, &mut |_, a, b| mem.write(a, b)).unwrap_or_else(|e| panic!("{e}"));
            let got = load_matrix(&mem, pd, m, n, dt, d_row, ld(m, n, d_row));
            assert_eq!(got, a.mul_add_by(&b, Some(&c), term), "{} layout {lay}", op.name("wmma.mma"));
            // Loading C and storing it again reproduces it.
            let mut mem2 = Mem::new(1 << 16);
            let st = WmmaMem { shape, operand: Operand::C, row_major: c_row, ty: ct };
            wmma_store(&st, &[0; 32], stride(m, n, c_row).as_ref(), &fc, &mut |_, a, b| mem2.write(a, b)).unwrap();
            assert_eq!(load_matrix(&mem2, 0, m, n, ct, c_row, ld(m, n, c_row)), c);
        }
    }
}

#[test]
fn wmma_fragment_sizes_follow_the_ptx_table() {
    // PTX ISA 9.7.14.4.1: registers per fragment.
    use Ty::*;
    let mut mem = Mem::new(1 << 14);
    for (shape, operand, ty, regs) in [
        ((16, 16, 16), Operand::A, F16, 8),
        ((16, 16, 16), Operand::B, F16, 8),
        ((32, 8, 16), Operand::B, F16, 8),
        ((16, 16, 16), Operand::C, F16, 4),
        ((16, 16, 16), Operand::C, F32, 8),
        ((16, 16, 16), Operand::A, Bf16, 4),
        ((8, 32, 16), Operand::A, Bf16, 2),
        ((8, 32, 16), Operand::B, Bf16, 8),
        ((32, 8, 16), Operand::A, Bf16, 8),
        ((32, 8, 16), Operand::B, Bf16, 2),
        ((16, 16, 16), Operand::A, S8, 2),
        ((8, 32, 16), Operand::A, U8, 1),
        ((8, 32, 16), Operand::B, U8, 4),
        ((32, 8, 16), Operand::A, S8, 4),
        ((32, 8, 16), Operand::B, S8, 1),
        ((8, 32, 16), Operand::C, S32, 8),
        ((16, 16, 8), Operand::A, Tf32, 4),
        ((16, 16, 8), Operand::B, Tf32, 4),
        ((8, 8, 4), Operand::A, F64, 1),
        ((8, 8, 4), Operand::C, F64, 2),
        ((8, 8, 32), Operand::A, U4, 1),
        ((8, 8, 128), Operand::A, B1, 1),
        ((8, 8, 128), Operand::C, S32, 2),
    ] {
        let op = WmmaMem { shape, operand, row_major: true, ty };
        let f = wmma_load(&op, &[0; 32], None, &mut |_, a, b| mem.read(a, b)).unwrap();
        assert_eq!(f.len(), regs, "{shape:?} {operand:?} {ty:?}");
    }
    for bad in [
        WmmaMem { shape: (16, 16, 8), operand: Operand::A, row_major: true, ty: F16 },
        WmmaMem { shape: (8, 8, 32), operand: Operand::A, row_major: false, ty: S4 },
        WmmaMem { shape: (8, 8, 128), operand: Operand::B, row_major: true, ty: B1 },
    ] {
        assert!(matches!(wmma_load(&bad, &[0; 32], None, &mut |_, a, b| mem.read(a, b)), Err(TensorError::Form(_))));
    }
    let store_a = WmmaMem { shape: (16, 16, 16), operand: Operand::A, row_major: true, ty: F16 };
    assert!(wmma_store(&store_a, &[0; 32], None, &[[0; 32]; 8], &mut |_, a, b| mem.write(a, b)).is_err());
}

// ---- wgmma -------------------------------------------------------------------------------------

fn desc(start: u64, lbo: u64, sbo: u64, swizzle: u64) -> u64 {
    ((start & 0x3FFFF) >> 4) | ((lbo & 0x3FFFF) >> 4) << 16 | ((sbo & 0x3FFFF) >> 4) << 32 | swizzle << 62
}

#[test]
fn descriptor_fields_and_swizzle_positions() {
    let d = Desc::decode(desc(0x1_2340, 0x80, 0x400, 1) | 3 << 49);
    assert_eq!(d, Desc { start: 0x1_2340, lbo: 0x80, sbo: 0x400, base_offset: 3, swizzle: 128 });
    // 128B swizzle, K-major f16 (8 per chunk), tile at 0: element (row 1, chunk 0) is in chunk 1 of
    // row 1 → byte 128 + 16; (row 1, chunk 1) in chunk 0 → 128; (row 7, chunk 0) → 7·128 + 7·16;
    // row 9 (next 8-row group, SBO 1024) chunk 1 → 1024 + 128 + 0.
    let sw128 = Desc::decode(desc(0, 16, 1024, 1));
    assert_eq!(sw128.chunk_addr(false, 8, 1, 0), 128 + 16);
    assert_eq!(sw128.chunk_addr(false, 8, 1, 8), 128);
    assert_eq!(sw128.chunk_addr(false, 8, 7, 0), 7 * 128 + 7 * 16);
    assert_eq!(sw128.chunk_addr(false, 8, 9, 8), 1024 + 128);
    // Advancing K by 16 f16 = 32 bytes inside the atom (start + 32): chunk 2 of row 3 → chunk 1.
    let k16 = Desc::decode(desc(32, 16, 1024, 1));
    assert_eq!(k16.chunk_addr(false, 8, 3, 0), 3 * 128 + 16);
    // 64B swizzle: rows of 64 bytes; row 2 starts at 128 where bit 7 flips chunk 0 → 1.
    let sw64 = Desc::decode(desc(0, 16, 512, 2));
    assert_eq!(sw64.chunk_addr(false, 8, 1, 8), 64 + 16);
    assert_eq!(sw64.chunk_addr(false, 8, 2, 0), 128 + 16);
    assert_eq!(sw64.chunk_addr(false, 8, 6, 8), (6 * 64) ^ (3 << 4) ^ 16);
    // 32B swizzle: rows of 32 bytes; rows 4–7 (bit 7 set) swap their two chunks.
    let sw32 = Desc::decode(desc(0, 16, 256, 3));
    assert_eq!(sw32.chunk_addr(false, 8, 3, 8), 3 * 32 + 16);
    assert_eq!(sw32.chunk_addr(false, 8, 4, 0), 4 * 32 + 16);
    assert_eq!(sw32.chunk_addr(false, 8, 5, 8), 5 * 32);
    // No swizzle, K-major: core matrices of 8 rows × 16 bytes; K neighbours LBO apart.
    let none = Desc::decode(desc(0x100, 256, 128, 0));
    assert_eq!(none.chunk_addr(false, 8, 3, 8), 0x100 + 3 * 16 + 256);
    assert_eq!(none.chunk_addr(false, 8, 11, 0), 0x100 + 3 * 16 + 128);
    // MN-major 128B: k row r is 128 bytes of 64 MN elements; (mn 8, k 1) is chunk 1 of row 1 → 128.
    let mn = Desc::decode(desc(0, 8192, 1024, 1));
    assert_eq!(mn.chunk_addr(true, 8, 8, 1), 128);
    assert_eq!(mn.chunk_addr(true, 8, 64, 0), 8192);
    assert_eq!(mn.chunk_addr(true, 8, 0, 9), 1024 + 128 + 16);
}

/// Evaluates a CuTe layout `(shape):(stride)` (each mode a list, colexicographic) at a coordinate.
fn cute(shape: &[usize], stride: &[usize], mut x: usize) -> usize {
    shape.iter().zip(stride).map(|(&s, &d)| {
        let v = x % s;
        x /= s;
        v * d
    }).sum()
}

/// CUTLASS `Swizzle<b,4,3>` on a byte offset.
fn swizzle(b: u32, off: usize) -> usize {
    off ^ ((off >> 3) & (((1 << b) - 1) << 4))
}

/// (row, col) of value `v` of thread `thread` (0..128) of a warpgroup.
type WgLayout = fn(usize, usize) -> (usize, usize);

/// Accumulator (and 16-bit A) register layout of a warpgroup, CUTLASS `CLayout_64xN`:
/// `((4,8,4),(2,2,N/8)):((128,1,16),(64,8,512))` over column-major (m + 64n), thread = 32w + lane.
fn wg_c(thread: usize, v: usize) -> (usize, usize) {
    let off = cute(&[4, 8, 4], &[128, 1, 16], thread) + cute(&[2, 2, 64], &[64, 8, 512], v);
    (off % 64, off / 64)
}
/// `ALayout_64x8` (tf32): `((4,8,4),(2,2)):((64,1,16),(8,256))`.
fn wg_a32(thread: usize, v: usize) -> (usize, usize) {
    let off = cute(&[4, 8, 4], &[64, 1, 16], thread) + cute(&[2, 2], &[8, 256], v);
    (off % 64, off / 64)
}
/// `ALayout_64x32` (8-bit): `((4,8,4),(4,2,2)):((256,1,16),(64,8,1024))`.
fn wg_a8(thread: usize, v: usize) -> (usize, usize) {
    let off = cute(&[4, 8, 4], &[256, 1, 16], thread) + cute(&[4, 2, 2], &[64, 8, 1024], v);
    (off % 64, off / 64)
}

/// Warpgroup registers `[reg][warp]` from a 64-row matrix by a thread/value layout.
fn wg_distribute(lay: WgLayout, per_thread: usize, ty: Ty, m: &M) -> Vec<[Lanes; 4]> {
    let pack = (32 / ty.bits()) as usize;
    let mut regs = vec![[[0u64; 32]; 4]; per_thread / pack];
    for th in 0..128 {
        for v in 0..per_thread {
            let (r, c) = lay(th, v);
            regs[v / pack][th / 32][th % 32] |= enc(ty, m.at(r, c)) << ((v % pack) as u32 * ty.bits());
        }
    }
    regs
}

fn wg_collect(per_thread: usize, ty: Ty, regs: &[[Lanes; 4]], n: usize) -> M {
    let pack = (32 / ty.bits()) as usize;
    let mut m = M { rows: 64, cols: n, v: vec![f64::NAN; 64 * n] };
    for th in 0..128 {
        for v in 0..per_thread {
            let (r, c) = wg_c(th, v);
            m.v[r * n + c] = dec(ty, (regs[v / pack][th / 32][th % 32] >> ((v % pack) as u32 * ty.bits())) & ty.mask());
        }
    }
    m
}

/// Writes an MN×K operand as TMA does with 128B swizzle, K-major: row r (of MN) is 128 bytes of K
/// at `base + 128 r`, its 16-byte chunk c stored at chunk c ^ (r % 8). `base` is 1024-aligned.
fn tma_k_sw128(mem: &mut Mem, base: usize, m: &M, ty: Ty) {
    let size = (ty.bits() / 8) as usize;
    for r in 0..m.rows {
        for k in 0..m.cols {
            let (chunk, within) = (k * size / 16, k * size % 16);
            mem.put(base + 128 * r + 16 * (chunk ^ (r % 8)) + within, ty, m.at(r, k));
        }
    }
}

struct Wg {
    op: Wgmma,
    a: M,
    b: M,
}

impl Wg {
    fn new(shape: (u16, u16, u16), [d, a, b]: [Ty; 3], rng: &mut Rng) -> Wg {
        let (n, k) = (shape.1 as usize, shape.2 as usize);
        let op = Wgmma { shape, dtype: d, atype: a, btype: b, satfinite: d == Ty::S32, scale_d: true, negate_a: false, negate_b: false, trans_a: false, trans_b: false };
        Wg { op, a: M::random(rng, a, 64, k), b: M::random(rng, b, k, n) }
    }
    fn d_regs(&self) -> usize {
        self.op.shape.1 as usize * 64 / 128
    }
    /// Runs with the given D and returns it; each warp run alone must get its part the same.
    fn run(&self, a: WgmmaA<'_>, b_desc: u64, mem: &Mem, d: &M) -> M {
        let n = self.op.shape.1 as usize;
        let start = wg_distribute(wg_c, self.d_regs(), self.op.dtype, d);
        let mut regs = start.clone();
        wgmma(&self.op, a, b_desc, &mut regs, 0..4, &mut |_, a, b| mem.read(a, b)).unwrap_or_else(|e| panic!("{e}"));
        for w in 0..4 {
            let mut alone = start.clone();
            wgmma(&self.op, a, b_desc, &mut alone, w..w + 1, &mut |_, a, b| mem.read(a, b)).unwrap_or_else(|e| panic!("{e}"));
            assert!(alone.iter().zip(&regs).all(|(x, y)| x[w] == y[w]), "{} warp {w} alone", self.op.name());
        }
        wg_collect(self.d_regs(), self.op.dtype, &regs, n)
    }
    fn want(&self, d: &M) -> M {
        let sa = if self.op.negate_a { -1.0 } else { 1.0 };
        let sb = if self.op.negate_b { -1.0 } else { 1.0 };
        let a = M { v: self.a.v.iter().map(|x| x * sa).collect(), ..self.a.clone() };
        let b = M { v: self.b.v.iter().map(|x| x * sb).collect(), ..self.b.clone() };
        a.mul_add(&b, self.op.scale_d.then_some(d))
    }
}

#[test]
fn wgmma_smem_k_major_sw128_as_tma_writes_it() {
    use Ty::*;
    let mut rng = Rng(8);
    for (k, tys) in [(16, [F32, F16, F16]), (16, [F16, F16, F16]), (16, [F32, Bf16, Bf16]), (8, [F32, Tf32, Tf32]), (32, [F32, E4m3, E5m2]), (32, [F16, E5m2, E5m2]), (32, [S32, S8, U8]), (32, [S32, U8, U8])] {
        for n in [8, 24, 64, 256] {
            let wg = Wg::new((64, n as u16, k), tys, &mut rng);
            let mut mem = Mem::new(1 << 17);
            tma_k_sw128(&mut mem, 0, &wg.a, tys[1]);
            tma_k_sw128(&mut mem, 0x8000, &transpose(&wg.b), tys[2]);
            let d = M::random(&mut rng, if tys[0] == S32 { S8 } else { tys[0] }, 64, n);
            let got = wg.run(WgmmaA::Desc(desc(0, 16, 1024, 1)), desc(0x8000, 16, 1024, 1), &mem, &d);
            assert_eq!(got, wg.want(&d), "{} n{n}", wg.op.name());
        }
    }
}

#[test]
fn wgmma_accumulates_k_blocks_inside_a_swizzle_atom() {
    // The CUTLASS/fast.cu loop: a 64×64 f16 tile, four k16 steps at start + 32·kb, scale-d 0 first.
    let mut rng = Rng(9);
    let (a, b) = (M::random(&mut rng, Ty::F16, 64, 64), M::random(&mut rng, Ty::F16, 64, 128));
    let mut mem = Mem::new(1 << 17);
    tma_k_sw128(&mut mem, 0x400, &a, Ty::F16);
    tma_k_sw128(&mut mem, 0x4000, &transpose(&b), Ty::F16);
    let mut regs = vec![[[0x7FC0_0000u64; 32]; 4]; 64]; // NaN garbage: scale-d 0 must not read it
    for kb in 0..4u64 {
        let op = Wgmma { shape: (64, 128, 16), dtype: Ty::F32, atype: Ty::F16, btype: Ty::F16, satfinite: false, scale_d: kb > 0, negate_a: false, negate_b: false, trans_a: false, trans_b: false };
        wgmma(&op, WgmmaA::Desc(desc(0x400 + 32 * kb, 16, 1024, 1)), desc(0x4000 + 32 * kb, 16, 1024, 1), &mut regs, 0..4, &mut |_, a, b| mem.read(a, b)).unwrap();
    }
    assert_eq!(wg_collect(64, Ty::F32, &regs, 128), a.mul_add(&b, None));
}

/// The PTX ISA's canonical-layout examples (9.7.15.5.1.2.1.3), exact layouts in elements with the
/// LBO/SBO it gives, swizzled on byte offsets.
#[test]
fn wgmma_smem_layouts_of_the_ptx_examples() {
    use Ty::*;
    struct Ex {
        ty: Ty,
        trans: bool,
        swz: (u32, u64),
        shape: [&'static [usize]; 2],
        stride: [&'static [usize]; 2],
        lbo: u64,
        sbo: u64,
    }
    let examples = [
        // K-major, no swizzle, tf32: ((8,2),(4,4)):((4,32),(1,64)), LBO 64·4, SBO 32·4.
        Ex { ty: Tf32, trans: false, swz: (0, 0), shape: [&[8, 2], &[4, 4]], stride: [&[4, 32], &[1, 64]], lbo: 256, sbo: 128 },
        // K-major, 32B, tf32: Swizzle<1,4,3> o ((8,2),(4,4)):((8,64),(1,4)), SBO 64·4.
        Ex { ty: Tf32, trans: false, swz: (1, 3), shape: [&[8, 2], &[4, 4]], stride: [&[8, 64], &[1, 4]], lbo: 16, sbo: 256 },
        // MN-major, no swizzle, bf16: ((8,1,2),(8,2)):((1,8,64),(8,128)), LBO 128·2, SBO 64·2.
        Ex { ty: Bf16, trans: true, swz: (0, 0), shape: [&[8, 1, 2], &[8, 2]], stride: [&[1, 8, 64], &[8, 128]], lbo: 256, sbo: 128 },
        // MN-major, 32B, bf16: Swizzle<1,4,3> o ((8,2,2),(8,2)):((1,8,128),(16,256)), LBO 128·2, SBO 256·2.
        Ex { ty: Bf16, trans: true, swz: (1, 3), shape: [&[8, 2, 2], &[8, 2]], stride: [&[1, 8, 128], &[16, 256]], lbo: 256, sbo: 512 },
        // MN-major, 64B, bf16: Swizzle<2,4,3> o ((8,4,2),(8,2)):((1,8,256),(32,512)), LBO 256·2, SBO 512·2.
        Ex { ty: Bf16, trans: true, swz: (2, 2), shape: [&[8, 4, 2], &[8, 2]], stride: [&[1, 8, 256], &[32, 512]], lbo: 512, sbo: 1024 },
    ];
    let mut rng = Rng(10);
    for ex in &examples {
        let mn: usize = ex.shape[0].iter().product();
        let k = if ex.ty == Tf32 { 8 } else { 16 };
        // B (N = the example's MN extent) in the example layout at 0x2000; A from registers.
        let mut wg = Wg::new((64, mn as u16, k as u16), [F32, ex.ty, ex.ty], &mut rng);
        wg.op.trans_b = ex.trans;
        let mut mem = Mem::new(1 << 15);
        let size = (ex.ty.bits() / 8) as usize;
        for x in 0..mn {
            for y in 0..k {
                let off = (cute(ex.shape[0], ex.stride[0], x) + cute(ex.shape[1], ex.stride[1], y)) * size;
                mem.put(swizzle(ex.swz.0, 0x2000 + off), ex.ty, wg.b.at(y, x));
            }
        }
        let (lay, per): (WgLayout, usize) = if ex.ty == Tf32 { (wg_a32, 4) } else { (wg_c, 8) };
        let a = wg_distribute(lay, per, ex.ty, &wg.a);
        let d = M::random(&mut rng, F32, 64, mn);
        let got = wg.run(WgmmaA::Regs(&a), desc(0x2000, ex.lbo, ex.sbo, ex.swz.1), &mem, &d);
        assert_eq!(got, wg.want(&d), "{:?} trans {} swizzle {}", ex.ty, ex.trans, ex.swz.1);
    }
}

#[test]
fn wgmma_mn_major_sw128_negation_and_registers() {
    use Ty::*;
    let mut rng = Rng(11);
    // A M-major 128B (k rows of 64 M values), B N-major 128B with two 64-wide N blocks (LBO).
    let mut wg = Wg::new((64, 128, 16), [F32, F16, F16], &mut rng);
    wg.op.trans_a = true;
    wg.op.trans_b = true;
    wg.op.negate_a = true;
    let mut mem = Mem::new(1 << 17);
    tma_k_sw128(&mut mem, 0x1000, &transpose(&wg.a), F16);
    for blk in 0..2 {
        let part = M { rows: 16, cols: 64, v: (0..16 * 64).map(|x| wg.b.at(x / 64, blk * 64 + x % 64)).collect() };
        tma_k_sw128(&mut mem, 0x4000 + 0x2000 * blk, &part, F16);
    }
    let d = M::random(&mut rng, F32, 64, 128);
    assert_eq!(wg.run(WgmmaA::Desc(desc(0x1000, 0x4000, 1024, 1)), desc(0x4000, 0x2000, 1024, 1), &mem, &d), wg.want(&d));

    // A from registers for each input width, with imm-scale-b = −1 and scale-d = 0.
    for (k, tys, lay, per) in [(16u16, [F32, F16, F16], wg_c as WgLayout, 8), (8, [F32, Tf32, Tf32], wg_a32, 4), (32, [S32, S8, S8], wg_a8, 16), (32, [F32, E4m3, E4m3], wg_a8, 16)] {
        let mut wg = Wg::new((64, 16, k), tys, &mut rng);
        wg.op.scale_d = false;
        wg.op.negate_b = tys[0] != S32;
        wg.op.satfinite = false; // optional for integer forms
        let mut mem = Mem::new(1 << 15);
        tma_k_sw128(&mut mem, 0x2000, &transpose(&wg.b), tys[2]);
        let a = wg_distribute(lay, per, tys[1], &wg.a);
        let d = M::random(&mut rng, S8, 64, 16);
        assert_eq!(wg.run(WgmmaA::Regs(&a), desc(0x2000, 16, 1024, 1), &mem, &d), wg.want(&d), "{}", wg.op.name());
    }
}

#[test]
fn wgmma_rejects_other_forms_and_keeps_d_on_errors() {
    use Ty::*;
    let base = Wgmma { shape: (64, 64, 16), dtype: F32, atype: F16, btype: F16, satfinite: false, scale_d: true, negate_a: false, negate_b: false, trans_a: false, trans_b: false };
    let mem = Mem::new(1 << 15);
    let mut d = vec![[[7u64; 32]; 4]; 32];
    let run = |op: &Wgmma, b: u64, d: &mut Vec<[Lanes; 4]>| wgmma(op, WgmmaA::Desc(0), b, d, 0..4, &mut |_, a, b| mem.read(a, b));
    for bad in [
        Wgmma { shape: (64, 12, 16), ..base },
        Wgmma { shape: (64, 264, 16), ..base },
        Wgmma { shape: (32, 64, 16), ..base },
        Wgmma { dtype: F16, atype: Bf16, btype: Bf16, ..base },
        Wgmma { shape: (64, 64, 8), atype: Tf32, btype: Tf32, trans_b: true, ..base },
        Wgmma { shape: (64, 40, 32), dtype: S32, atype: S8, btype: S8, satfinite: true, ..base },
        Wgmma { satfinite: true, ..base },
    ] {
        assert!(matches!(run(&bad, 0, &mut d), Err(TensorError::Form(_))), "{}", bad.name());
    }
    // Wrong D count; a non-zero base offset with swizzling; an access outside memory.
    assert!(matches!(run(&base, 0, &mut vec![[[0; 32]; 4]; 31]), Err(TensorError::Form(_))));
    let e = run(&base, desc(0, 16, 1024, 1) | 2 << 49, &mut d).unwrap_err();
    assert!(e.to_string().contains("base offset 2"), "{e}");
    assert!(matches!(run(&base, desc(0x3_0000, 16, 1024, 0), &mut d), Err(TensorError::Memory(_))));
    assert!(d.iter().all(|r| r.iter().all(|w| w.iter().all(|&x| x == 7))));
}

// ---- robustness --------------------------------------------------------------------------------

#[test]
fn arbitrary_forms_and_operands_never_panic() {
    use Ty::*;
    let tys = [B1, B8, B16, B32, B64, B128, U4, U8, U16, U16x2, U32, U64, S4, S8, S16, S16x2, S32, S64, F16, F16x2, Bf16, Bf16x2, Tf32, E4m3, E5m2, E4m3x2, E5m2x2, F32, F64, Pred];
    let shapes = [(8, 8, 4), (16, 8, 4), (16, 8, 8), (16, 8, 16), (16, 8, 32), (8, 8, 16), (8, 8, 32), (16, 16, 16), (32, 8, 16), (8, 32, 16), (16, 16, 8), (64, 8, 16), (64, 256, 32), (64, 96, 8), (8, 8, 0), (0, 0, 0), (16, 16, 0), (64, 0, 16)];
    let mut rng = Rng(12);
    let pick = |n: usize, rng: &mut Rng| rng.int(0, n as i64 - 1) as usize;
    // Mostly the types the instructions take, so that some random forms are valid.
    let common = [F16, F32, Bf16, Tf32, S8, U8, S32, E4m3, E5m2, F64, B16];
    let known = [[F32, F16, F16, F32], [F16, F16, F16, F16], [F32, Bf16, Bf16, F32], [F32, Tf32, Tf32, F32], [S32, S8, U8, S32], [F32, E4m3, E5m2, F32], [F64; 4], [S32, B1, B1, S32], [S32, S4, U4, S32]];
    let regs: Vec<Lanes> = (0..16).map(|_| std::array::from_fn(|_| rng.next())).collect();
    let zeros = |_: usize, a: u64, b: &mut [u8]| -> Result<(), String> {
        if a > 1 << 20 {
            return Err("far".into());
        }
        b.iter_mut().enumerate().for_each(|(i, x)| *x = (a as usize + i) as u8);
        Ok(())
    };
    let mut ok = 0;
    for _ in 0..5000 {
        let shape = shapes[pick(shapes.len(), &mut rng)];
        let t = if rng.next() & 1 == 1 {
            known[pick(known.len(), &mut rng)]
        } else {
            [0; 4].map(|_| if rng.next() % 8 == 0 { tys[pick(tys.len(), &mut rng)] } else { common[pick(common.len(), &mut rng)] })
        };
        let op = Mma {
            shape,
            a_row: rng.next() & 1 == 1,
            b_row: rng.next() & 1 == 1,
            types: MmaTypes { d: t[0], a: t[1], b: t[2], c: t[3] },
            satfinite: rng.next() & 1 == 1,
            rnd: Rounding::Rz,
            popc: match pick(8, &mut rng) {
                0 => [None, Some(BoolOp::Xor), Some(BoolOp::And), Some(BoolOp::Or)][pick(4, &mut rng)],
                _ => (t[1] == B1).then_some(BoolOp::Xor),
            },
        };
        // A valid form with the wrong register counts says so; then run it with the right ones.
        let all = &regs[..16];
        let takes = |r: Result<Vec<Lanes>, Unsupported>| matches!(r, Err(e) if e.0.contains(" takes "));
        if takes(mma(&op, all, all, all)) {
            let [fa, fb, fc] = [(Operand::A, t[1]), (Operand::B, t[2]), (Operand::C, t[3])].map(|(w, ty)| op.mma_frag(w, ty).regs());
            ok += mma(&op, &regs[..fa], &regs[..fb], &regs[..fc]).is_ok() as usize;
        }
        if takes(wmma_mma(&op, all, all, all)) {
            let [fa, fb, fc] = [(Operand::A, t[1]), (Operand::B, t[2]), (Operand::C, t[3])].map(|(w, ty)| wmma_frag(shape, w, ty).regs());
            ok += wmma_mma(&op, &regs[..fa], &regs[..fb], &regs[..fc]).is_ok() as usize;
        }
        let na = pick(17, &mut rng);
        let operand = [Operand::A, Operand::B, Operand::C][pick(3, &mut rng)];
        let mem_op = WmmaMem { shape, operand, row_major: op.a_row, ty: t[0] };
        let base = [rng.next() % (1 << 21); 32];
        let stride = [rng.next(); 32];
        ok += wmma_load(&mem_op, &base, Some(&stride), &mut zeros.clone()).is_ok() as usize;
        ok += wmma_store(&mem_op, &base, None, &regs[..na], &mut |_, a, _| if a > 1 << 20 { Err("far".to_string()) } else { Ok(()) }).is_ok() as usize;
        let num = pick(6, &mut rng) as u8;
        ok += ldmatrix(shape, num, op.a_row, t[0], &regs[0], &mut zeros.clone()).is_ok() as usize;
        ok += movmatrix(shape, op.a_row, t[0], &regs[1]).is_ok() as usize;
        let wg = Wgmma { shape, dtype: t[0], atype: t[1], btype: t[2], satfinite: op.satfinite, scale_d: op.b_row, negate_a: op.a_row, negate_b: true, trans_a: op.a_row, trans_b: op.b_row };
        let n_d = [shape.1 as usize / 2, shape.1 as usize / 4, pick(129, &mut rng)][pick(3, &mut rng)];
        let mut d = vec![[regs[2]; 4]; n_d];
        let a_regs = vec![[regs[3]; 4]; pick(6, &mut rng)];
        let a = if rng.next() & 1 == 1 { WgmmaA::Desc(rng.next()) } else { WgmmaA::Regs(&a_regs) };
        ok += wgmma(&wg, a, rng.next() & !(7 << 49), &mut d, 0..4, &mut zeros.clone()).is_ok() as usize;
    }
    // Some of the random forms are valid and ran to completion.
    assert!(ok > 100, "{ok}");
}


// ---- the forms nvcc emits ----------------------------------------------------------------------

/// Every matrix instruction in the ISA test corpus (nvcc 13 and NVRTC output for sm_75…sm_90a)
/// decodes to a form this module accepts, with the operand counts nvcc wrote.
#[test]
fn corpus_forms_run_with_their_operand_counts() {
    use warpsim_isa::inst::MatrixOp;
    use warpsim_isa::Op;
    let len = |o: &Opnd| if let Opnd::Vec(v) = o { v.len() } else { 1 };
    let regs = |n: usize| vec![[0u64; 32]; n];
    let mut read = |_: usize, _: u64, b: &mut [u8]| -> Result<(), String> {
        b.fill(0);
        Ok(())
    };
    let mut write = |_: usize, _: u64, _: &[u8]| -> Result<(), String> { Ok(()) };
    let mut seen = std::collections::BTreeSet::new();
    for dir in ["ptx", "ptx_nvrtc"] {
        let dir = format!("{}/../isa/tests/corpus/{dir}", env!("CARGO_MANIFEST_DIR"));
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if !["mma", "wmma", "wgmma"].iter().any(|p| name.starts_with(p)) {
                continue;
            }
            for p in warpsim_isa::load(&std::fs::read_to_string(&path).unwrap(), &name).unwrap() {
                for inst in &p.insts {
                    let Op::Matrix(op) = inst.op else { continue };
                    let (m, o) = (&inst.m, &inst.ops);
                    let at = format!("{name}: {op:?} {m:?}");
                    let ok = match op {
                        MatrixOp::Mma | MatrixOp::WmmaMma => {
                            if o.len() != 4 {
                                // mma.sp: refused by name.
                                assert!(Mma::from_inst(inst).unwrap_err().0.contains("sparse"), "{at}");
                                continue;
                            }
                            let f = Mma::from_inst(inst).unwrap_or_else(|e| panic!("{at}: {e}"));
                            let run = if op == MatrixOp::Mma { mma } else { wmma_mma };
                            let d = run(&f, &regs(len(&o[1])), &regs(len(&o[2])), &regs(len(&o[3]))).unwrap_or_else(|e| panic!("{at}: {e}"));
                            d.len() == len(&o[0])
                        }
                        MatrixOp::WmmaLoad => {
                            let f = WmmaMem::from_inst(inst).unwrap_or_else(|e| panic!("{at}: {e}"));
                            wmma_load(&f, &[0; 32], None, &mut read).unwrap_or_else(|e| panic!("{at}: {e}")).len() == len(&o[0])
                        }
                        MatrixOp::WmmaStore => {
                            let f = WmmaMem::from_inst(inst).unwrap_or_else(|e| panic!("{at}: {e}"));
                            wmma_store(&f, &[0; 32], None, &regs(len(&o[1])), &mut write).is_ok()
                        }
                        MatrixOp::Ldmatrix => ldmatrix(m.shape.unwrap_or_default(), m.num, m.has(flag::TRANS), m.ty(), &[0; 32], &mut read).map(|r| r.len()) == Ok(len(&o[0])),
                        MatrixOp::Stmatrix => stmatrix(m.shape.unwrap_or_default(), m.num, m.has(flag::TRANS), m.ty(), &[0; 32], &regs(len(&o[1])), &mut write).is_ok(),
                        MatrixOp::Movmatrix => movmatrix(m.shape.unwrap_or_default(), m.has(flag::TRANS), m.ty(), &[0; 32]).is_ok(),
                        MatrixOp::WgmmaMma => {
                            let f = Wgmma::from_inst(inst, true).unwrap_or_else(|e| panic!("{at}: {e}"));
                            let a_regs = vec![[[0u64; 32]; 4]; len(&o[1])];
                            let a = if matches!(o[1], Opnd::Vec(_)) { WgmmaA::Regs(&a_regs) } else { WgmmaA::Desc(0) };
                            let mut d = vec![[[0u64; 32]; 4]; len(&o[0])];
                            wgmma(&f, a, 0, &mut d, 0..4, &mut read).is_ok()
                        }
                        _ => continue,
                    };
                    assert!(ok, "{at}");
                    seen.insert(format!("{op:?} {:?} {:?}", m.shape, m.types));
                }
            }
        }
    }
    assert!(seen.len() >= 40, "{seen:?}");
}
