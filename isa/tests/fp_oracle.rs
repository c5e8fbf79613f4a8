//! Checks `warpsim_isa::fp` against what an H200 computed: `tests/hw/fp_oracle_h200.txt`, written by
//! `tests/hw/fp_oracle.cu` (see its header for the format and how to run it). Exact instructions
//! must match bit for bit; `.approx` instructions must lie within their documented tolerance, and
//! the largest error seen per instruction is printed. Without the file the test says it is skipped.

use std::collections::HashMap;
use warpsim_isa::fp::cvt::{self, FloatMods, FloatType, Fp8, IntType, PackedType};
use warpsim_isa::fp::{
    approx, bf16, bf16x2, f16, f16x2, f32, f64, CmpOp, IntRounding, Rounding, TestOp,
};

const FILE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/hw/fp_oracle_h200.txt");

/// Computes an instruction's result register from its operands.
type Eval = Box<dyn Fn(&[u64]) -> u64>;

/// How hardware and model must agree.
enum Check {
    Exact,
    /// Within this many units in the last place of the model (f64/f32/f16/bf16 of `width` bits).
    Ulps(u64),
    /// |hw − f(x)| ≤ bound(x) for the exact function f of the (single) operand (a relative bound is
    /// one scaled by |f(x)|), with x ↦ None meaning "no documented bound here": there the ulp
    /// distance to the model is reported, and enforced when `ulps_elsewhere` gives a budget.
    /// `model_abs`, if given, bounds |hw − model| on every input: the documented bound says little
    /// about the model, which evaluates the hardware's own argument reduction.
    Abs {
        f: fn(std::primitive::f64) -> std::primitive::f64,
        bound: fn(std::primitive::f64) -> Option<std::primitive::f64>,
        ulps_elsewhere: Option<u64>,
        model_abs: Option<std::primitive::f64>,
    },
}

struct Sem {
    eval: Eval,
    check: Check,
    /// Lane width for packed results (16) or the result width.
    lane: u32,
}

fn rounding(m: &[&str]) -> Option<Rounding> {
    m.iter().find_map(|t| match *t {
        "rn" => Some(Rounding::Rn),
        "rna" => Some(Rounding::Rna),
        "rz" => Some(Rounding::Rz),
        "rm" => Some(Rounding::Rm),
        "rp" => Some(Rounding::Rp),
        _ => None,
    })
}

fn int_rounding(m: &[&str]) -> Option<IntRounding> {
    m.iter().find_map(|t| match *t {
        "rni" => Some(IntRounding::Rni),
        "rzi" => Some(IntRounding::Rzi),
        "rmi" => Some(IntRounding::Rmi),
        "rpi" => Some(IntRounding::Rpi),
        _ => None,
    })
}

fn cmp_op(t: &str) -> Option<CmpOp> {
    Some(match t {
        "eq" => CmpOp::Eq,
        "ne" => CmpOp::Ne,
        "lt" => CmpOp::Lt,
        "le" => CmpOp::Le,
        "gt" => CmpOp::Gt,
        "ge" => CmpOp::Ge,
        "equ" => CmpOp::Equ,
        "neu" => CmpOp::Neu,
        "ltu" => CmpOp::Ltu,
        "leu" => CmpOp::Leu,
        "gtu" => CmpOp::Gtu,
        "geu" => CmpOp::Geu,
        "num" => CmpOp::Num,
        "nan" => CmpOp::Nan,
        _ => return None,
    })
}

fn test_op(t: &str) -> Option<TestOp> {
    Some(match t {
        "finite" => TestOp::Finite,
        "infinite" => TestOp::Infinite,
        "number" => TestOp::Number,
        "notanumber" => TestOp::NotANumber,
        "normal" => TestOp::Normal,
        "subnormal" => TestOp::Subnormal,
        _ => return None,
    })
}

fn float_type(t: &str) -> Option<FloatType> {
    Some(match t {
        "f16" => FloatType::F16,
        "bf16" => FloatType::Bf16,
        "f32" => FloatType::F32,
        "f64" => FloatType::F64,
        "tf32" => FloatType::Tf32,
        _ => return None,
    })
}

fn int_type(t: &str) -> Option<IntType> {
    Some(match t {
        "u8" => IntType::U8,
        "u16" => IntType::U16,
        "u32" => IntType::U32,
        "u64" => IntType::U64,
        "s8" => IntType::S8,
        "s16" => IntType::S16,
        "s32" => IntType::S32,
        "s64" => IntType::S64,
        _ => return None,
    })
}

fn fp8(t: &str) -> Option<Fp8> {
    match t {
        "e4m3x2" => Some(Fp8::E4m3),
        "e5m2x2" => Some(Fp8::E5m2),
        _ => None,
    }
}

fn exact(eval: impl Fn(&[u64]) -> u64 + 'static, lane: u32) -> Option<Sem> {
    Some(Sem {
        eval: Box::new(eval),
        check: Check::Exact,
        lane,
    })
}

fn approx_sem(eval: impl Fn(&[u64]) -> u64 + 'static, check: Check, lane: u32) -> Option<Sem> {
    Some(Sem {
        eval: Box::new(eval),
        check,
        lane,
    })
}

/// The IEEE-style ops shared by the four scalar modules, by module.
macro_rules! scalar_ops {
    ($m:ident, $b:ty, $op:expr, $mods:expr, $lane:expr) => {{
        let m: &[&str] = $mods;
        let r = rounding(m).unwrap_or(Rounding::Rn);
        let (ftz, sat, relu, nan) = (
            m.contains(&"ftz"),
            m.contains(&"sat"),
            m.contains(&"relu"),
            m.contains(&"NaN"),
        );
        let relu_of = move |x: $b| if relu { $m::relu(x) } else { x };
        match $op {
            "add" => exact(
                move |x| $m::add(x[0] as $b, x[1] as $b, r, ftz, sat) as u64,
                $lane,
            ),
            "sub" => exact(
                move |x| $m::sub(x[0] as $b, x[1] as $b, r, ftz, sat) as u64,
                $lane,
            ),
            "mul" => exact(
                move |x| $m::mul(x[0] as $b, x[1] as $b, r, ftz, sat) as u64,
                $lane,
            ),
            "fma" | "mad" => exact(
                move |x| relu_of($m::fma(x[0] as $b, x[1] as $b, x[2] as $b, r, ftz, sat)) as u64,
                $lane,
            ),
            "min" => exact(
                move |x| $m::min(x[0] as $b, x[1] as $b, ftz, nan) as u64,
                $lane,
            ),
            "max" => exact(
                move |x| $m::max(x[0] as $b, x[1] as $b, ftz, nan) as u64,
                $lane,
            ),
            "abs" => exact(move |x| $m::abs(x[0] as $b, ftz) as u64, $lane),
            "neg" => exact(move |x| $m::neg(x[0] as $b, ftz) as u64, $lane),
            _ => None,
        }
    }};
}

/// Checks of the f32 approximations (single operand unless noted).
fn f32_approx(op: &str, ftz: bool) -> Option<Sem> {
    use std::primitive::f64 as F;
    let ulps = |n| Check::Ulps(n);
    let (eval, check): (fn(u32, bool) -> u32, Check) = match op {
        "rcp" => (approx::rcp_f32, ulps(2)),
        "sqrt" => (approx::sqrt_f32, ulps(3)),
        "rsqrt" => (approx::rsqrt_f32, ulps(4)),
        "ex2" => (approx::ex2_f32, ulps(3)),
        "lg2" => (
            approx::lg2_f32,
            Check::Abs {
                f: libm::log2,
                bound: |x: F| (x > 0.5 && x < 2.0).then_some(2f64.powi(-22)),
                ulps_elsewhere: Some(5),
                model_abs: None,
            },
        ),
        "sin" => (
            approx::sin_f32,
            Check::Abs {
                f: libm::sin,
                bound: trig_bound,
                ulps_elsewhere: None,
                model_abs: SIN_COS_MODEL_ABS,
            },
        ),
        "cos" => (
            approx::cos_f32,
            Check::Abs {
                f: libm::cos,
                bound: trig_bound,
                ulps_elsewhere: None,
                model_abs: SIN_COS_MODEL_ABS,
            },
        ),
        _ => return None,
    };
    approx_sem(move |x| eval(x[0] as u32, ftz) as u64, check, 32)
}

/// |hw − model| for sin/cos on every input, beyond ±100π (no PTX bound) included: the model reduces
/// the argument as the SFU does, so the two differ by MUFU's evaluation error only (the oracle's
/// worst is 1.8e-7, 2^-22.4).
const SIN_COS_MODEL_ABS: Option<std::primitive::f64> =
    Some(1.0 / (1u64 << 22) as std::primitive::f64);

fn trig_bound(x: std::primitive::f64) -> Option<std::primitive::f64> {
    use std::f64::consts::PI;
    if x.abs() <= 2.0 * PI {
        Some(2f64.powf(-20.5))
    } else if x.abs() <= 100.0 * PI {
        Some(2f64.powf(-14.7))
    } else {
        None
    }
}

fn semantics(name: &str) -> Option<Sem> {
    let t: Vec<&str> = name.split('.').collect();
    let (op, rest) = t.split_first()?;
    if *op == "cvt" {
        return cvt_semantics(
            &rest[..rest.len().checked_sub(2)?],
            rest[rest.len() - 2],
            rest[rest.len() - 1],
        );
    }
    let (ty, m) = rest.split_last()?;
    let ftz = m.contains(&"ftz");
    let is_approx = m.contains(&"approx");
    match (*op, *ty) {
        ("testp", ty) => {
            let k = test_op(m.first()?)?;
            match ty {
                "f32" => exact(move |x| f32::testp(k, x[0] as u32) as u64, 32),
                "f64" => exact(move |x| f64::testp(k, x[0]) as u64, 32),
                _ => None,
            }
        }
        ("setp", ty) => {
            let c = cmp_op(m.first()?)?;
            match ty {
                "f32" => exact(
                    move |x| f32::setp(c, x[0] as u32, x[1] as u32, ftz) as u64,
                    32,
                ),
                "f64" => exact(move |x| f64::setp(c, x[0], x[1], ftz) as u64, 32),
                "f16" => exact(
                    move |x| f16::setp(c, x[0] as u16, x[1] as u16, ftz) as u64,
                    32,
                ),
                "bf16" => exact(
                    move |x| bf16::setp(c, x[0] as u16, x[1] as u16, ftz) as u64,
                    32,
                ),
                _ => None,
            }
        }
        ("copysign", "f32") => exact(|x| f32::copysign(x[0] as u32, x[1] as u32) as u64, 32),
        ("copysign", "f64") => exact(|x| f64::copysign(x[0], x[1]), 64),
        ("div", "f32") if m.contains(&"full") => approx_sem(
            move |x| approx::div_full_f32(x[0] as u32, x[1] as u32, ftz) as u64,
            Check::Ulps(3),
            32,
        ),
        ("div", "f32") if is_approx => approx_sem(
            move |x| approx::div_f32(x[0] as u32, x[1] as u32, ftz) as u64,
            Check::Ulps(4),
            32,
        ),
        // PTX: relative error ≤ 2^-11 (MUFU.TANH is good to about 2^-16.6 on the oracle).
        ("tanh", "f32") => approx_sem(
            |x| approx::tanh_f32(x[0] as u32) as u64,
            Check::Abs {
                f: libm::tanh,
                bound: |x| Some(2f64.powi(-11) * libm::tanh(x).abs()),
                ulps_elsewhere: None,
                model_abs: None,
            },
            32,
        ),
        (_, "f32") if is_approx || *op == "rsqrt" => f32_approx(op, ftz),
        // One unit of the 20-bit upper word: where MUFU's own error crosses a truncation boundary.
        ("rcp", "f64") if is_approx => {
            approx_sem(|x| approx::rcp_ftz_f64(x[0]), Check::Ulps(1 << 32), 64)
        }
        ("rsqrt", "f64") if ftz => {
            approx_sem(|x| approx::rsqrt_ftz_f64(x[0]), Check::Ulps(1 << 32), 64)
        }
        ("rsqrt", "f64") => approx_sem(|x| approx::rsqrt_f64(x[0]), Check::Ulps(1 << 20), 64),
        ("ex2", "f16") => approx_sem(|x| approx::ex2_f16(x[0] as u16) as u64, Check::Ulps(3), 16),
        ("ex2", "bf16") => approx_sem(
            |x| approx::ex2_ftz_bf16(x[0] as u16) as u64,
            Check::Ulps(3),
            16,
        ),
        ("ex2", "f16x2") => approx_sem(
            |x| approx::ex2_f16x2(x[0] as u32) as u64,
            Check::Ulps(3),
            16,
        ),
        ("ex2", "bf16x2") => approx_sem(
            |x| approx::ex2_ftz_bf16x2(x[0] as u32) as u64,
            Check::Ulps(3),
            16,
        ),
        ("tanh", "f16") => approx_sem(
            |x| approx::tanh_f16(x[0] as u16) as u64,
            tanh16(-10.987),
            16,
        ),
        ("tanh", "bf16") => approx_sem(|x| approx::tanh_bf16(x[0] as u16) as u64, tanh16(-8.0), 16),
        ("tanh", "f16x2") => approx_sem(
            |x| approx::tanh_f16x2(x[0] as u32) as u64,
            tanh16(-10.987),
            16,
        ),
        ("tanh", "bf16x2") => approx_sem(
            |x| approx::tanh_bf16x2(x[0] as u32) as u64,
            tanh16(-8.0),
            16,
        ),
        (_, "f32") => {
            let r = rounding(m).unwrap_or(Rounding::Rn);
            match *op {
                "div" => exact(
                    move |x| f32::div(x[0] as u32, x[1] as u32, r, ftz) as u64,
                    32,
                ),
                "rcp" => exact(move |x| f32::rcp(x[0] as u32, r, ftz) as u64, 32),
                "sqrt" => exact(move |x| f32::sqrt(x[0] as u32, r, ftz) as u64, 32),
                _ => scalar_ops!(f32, u32, *op, m, 32),
            }
        }
        (_, "f64") => {
            let r = rounding(m).unwrap_or(Rounding::Rn);
            match *op {
                "div" => exact(move |x| f64::div(x[0], x[1], r, false), 64),
                "rcp" => exact(move |x| f64::rcp(x[0], r, false), 64),
                "sqrt" => exact(move |x| f64::sqrt(x[0], r, false), 64),
                _ => scalar_ops!(f64, u64, *op, m, 64),
            }
        }
        (_, "f16") => scalar_ops!(f16, u16, *op, m, 16),
        (_, "bf16") => scalar_ops!(bf16, u16, *op, m, 16),
        (_, "f16x2") => scalar_ops!(f16x2, u32, *op, m, 16),
        (_, "bf16x2") => scalar_ops!(bf16x2, u32, *op, m, 16),
        _ => None,
    }
}

/// tanh.approx.{f16,bf16}: absolute error ≤ 2^exp2 everywhere.
fn tanh16(exp2: std::primitive::f64) -> Check {
    // Only two bounds exist; fn pointers cannot capture, so pick by value.
    if exp2 < -9.0 {
        Check::Abs {
            f: libm::tanh,
            bound: |_| Some(2f64.powf(-10.987)),
            ulps_elsewhere: None,
            model_abs: None,
        }
    } else {
        Check::Abs {
            f: libm::tanh,
            bound: |_| Some(2f64.powf(-8.0)),
            ulps_elsewhere: None,
            model_abs: None,
        }
    }
}

fn cvt_semantics(m: &[&str], dst: &str, src: &str) -> Option<Sem> {
    let ftz = m.contains(&"ftz");
    let sat = m.contains(&"sat");
    let mods = FloatMods {
        ftz,
        sat,
        satfinite: m.contains(&"satfinite"),
        relu: m.contains(&"relu"),
    };
    let r = rounding(m);
    let ir = int_rounding(m);
    // Packed forms first.
    match (dst, src) {
        ("f16x2" | "bf16x2" | "e4m3x2" | "e5m2x2", "f32") => {
            let p = match dst {
                "f16x2" => PackedType::F16x2,
                "bf16x2" => PackedType::Bf16x2,
                "e4m3x2" => PackedType::E4m3x2,
                _ => PackedType::E5m2x2,
            };
            let r = r?;
            return exact(
                move |x| cvt::pack2_f32(p, x[0] as u32, x[1] as u32, r, mods) as u64,
                32,
            );
        }
        (d, "f16x2") => {
            let f = fp8(d)?;
            return exact(
                move |x| cvt::f8x2_from_f16x2(f, x[0] as u32, mods.relu) as u64,
                16,
            );
        }
        ("f16x2", s) => {
            let f = fp8(s)?;
            return exact(
                move |x| cvt::f16x2_from_f8x2(f, x[0] as u16, mods.relu) as u64,
                32,
            );
        }
        _ => {}
    }
    match (
        float_type(dst),
        int_type(dst),
        float_type(src),
        int_type(src),
    ) {
        (Some(d), None, Some(s), None) if d == s && ir.is_some() => {
            let ir = ir?;
            exact(move |x| cvt::f2f_integral(d, x[0], ir, ftz, sat), 64)
        }
        (Some(d), None, Some(s), None) => {
            let r = r.unwrap_or(Rounding::Rn);
            exact(move |x| cvt::f2f(s, d, x[0], r, mods), 64)
        }
        (None, Some(d), Some(s), None) => {
            let ir = ir?;
            exact(move |x| cvt::f2i(s, d, x[0], ir, ftz), 64)
        }
        (Some(d), None, None, Some(s)) => {
            let r = r?;
            exact(move |x| cvt::i2f(s, d, x[0], r, mods), 64)
        }
        (None, Some(d), None, Some(s)) => exact(move |x| cvt::i2i(s, d, x[0], sat), 64),
        _ => None,
    }
}

/// Sign-magnitude bits of a `w`-bit float to an integer ordered like the values.
fn ordered(bits: u64, w: u32) -> i128 {
    let sign = 1u64 << (w - 1);
    let mag = (bits & (sign - 1)) as i128;
    if bits & sign != 0 {
        -mag
    } else {
        mag
    }
}

fn is_nan(bits: u64, w: u32) -> bool {
    let exp_bits = match w {
        64 => 11,
        32 => 8,
        _ => 5, // f16; bf16 lanes are told apart by the caller
    };
    let man = w - 1 - exp_bits;
    (bits >> man) & ((1 << exp_bits) - 1) == (1 << exp_bits) - 1 && bits & ((1 << man) - 1) != 0
}

/// A 16-bit lane's value as f64 (f16 when `bf` is false).
fn value(bits: u64, w: u32, bf: bool) -> std::primitive::f64 {
    match (w, bf) {
        (64, _) => std::primitive::f64::from_bits(bits),
        (32, _) => std::primitive::f32::from_bits(bits as u32) as std::primitive::f64,
        (_, true) => std::primitive::f32::from_bits((bits as u32) << 16) as std::primitive::f64,
        (_, false) => {
            let b = cvt::f2f(
                FloatType::F16,
                FloatType::F64,
                bits,
                Rounding::Rn,
                FloatMods::default(),
            );
            std::primitive::f64::from_bits(b)
        }
    }
}

#[derive(Default)]
struct Tally {
    n: usize,
    bad: Vec<String>,
    worst_ulps: u64,
    worst_abs: std::primitive::f64,
    worst_model_abs: std::primitive::f64,
}

fn compare(sem: &Sem, name: &str, ops: &[u64], hw: u64, model: u64, t: &mut Tally) {
    t.n += 1;
    let lanes = if sem.lane == 16 && name.ends_with("x2") {
        2
    } else {
        1
    };
    let bf = name.contains("bf16");
    let w = sem.lane;
    let mut fail = None;
    for l in 0..lanes {
        let sh = 16 * l;
        let mask = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
        let (h, m) = ((hw >> sh) & mask, (model >> sh) & mask);
        let nan = |x: u64| {
            if bf {
                is_nan(x << 16, 32)
            } else {
                is_nan(x, w)
            }
        };
        match &sem.check {
            _ if nan(h) || nan(m) => {
                if h != m {
                    fail = Some("NaN differs".to_string());
                }
            }
            Check::Exact | Check::Ulps(_) if h == m => {}
            Check::Exact => fail = Some("differs".to_string()),
            Check::Ulps(budget) => {
                let wo = if bf { 32 } else { w };
                let (hh, mm) = if bf { (h << 16, m << 16) } else { (h, m) };
                let d = (ordered(hh, wo) - ordered(mm, wo)).unsigned_abs() as u64
                    >> if bf { 16 } else { 0 };
                t.worst_ulps = t.worst_ulps.max(d);
                if d > *budget {
                    fail = Some(format!("{d} ulps > {budget}"));
                }
            }
            Check::Abs {
                f,
                bound,
                ulps_elsewhere,
                model_abs,
            } => {
                let x = value((ops[0] >> sh) & mask, w, bf);
                if let Some(b) = model_abs {
                    let d = (value(h, w, bf) - value(m, w, bf)).abs();
                    t.worst_model_abs = t.worst_model_abs.max(d);
                    if d > *b {
                        fail = Some(format!("{d:e} from the model > {b:e}"));
                    }
                }
                match bound(x) {
                    Some(b) => {
                        let hv = value(h, w, bf);
                        let err = (hv - f(x)).abs();
                        t.worst_abs = t.worst_abs.max(err);
                        // The model's own rounding adds at most half an ulp of the result.
                        let half_ulp = (value(h + 1, w, bf) - hv).abs() / 2.0;
                        if err > b + half_ulp {
                            fail = Some(format!("abs error {err:e} > {b:e}"));
                        }
                    }
                    None => {
                        let d = (ordered(h, w) - ordered(m, w)).unsigned_abs() as u64;
                        t.worst_ulps = t.worst_ulps.max(d);
                        if let Some(budget) = ulps_elsewhere {
                            if d > *budget {
                                fail = Some(format!("{d} ulps > {budget}"));
                            }
                        }
                    }
                }
            }
        }
    }
    if let Some(why) = fail {
        t.bad
            .push(format!("{ops:x?} -> hw {hw:#x} model {model:#x} ({why})"));
    }
}

/// How many differing rows to print per instruction: `FP_ORACLE_SHOW` (default 6).
fn shown_per_op() -> usize {
    std::env::var("FP_ORACLE_SHOW")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(6)
}

#[test]
fn h200_matches_model() {
    let Ok(text) = std::fs::read_to_string(FILE) else {
        eprintln!("fp_oracle: skipped, {FILE} is absent (build and run tests/hw/fp_oracle.cu on an H200 to make it)");
        return;
    };
    let mut sets: HashMap<&str, Vec<Vec<u64>>> = HashMap::new();
    let mut lines = text.lines().filter(|l| !l.starts_with('#'));
    let hex = |s: &str| u64::from_str_radix(s, 16).unwrap_or_else(|e| panic!("bad hex {s:?}: {e}"));
    let mut failures = Vec::new();
    let mut report = Vec::new();
    while let Some(head) = lines.next() {
        let f: Vec<&str> = head.split_whitespace().collect();
        match f.as_slice() {
            ["set", name, _arity, count] => {
                let n: usize = count.parse().expect("set count");
                let rows = (0..n)
                    .map(|_| {
                        lines
                            .next()
                            .expect("set row")
                            .split_whitespace()
                            .map(hex)
                            .collect()
                    })
                    .collect();
                sets.insert(name, rows);
            }
            ["op", name, set, bits] => {
                let rows = &sets[set];
                let width: u32 = bits.parse().expect("op width");
                let results: Vec<u64> = (0..rows.len())
                    .map(|_| hex(lines.next().expect("op row")))
                    .collect();
                let Some(sem) = semantics(name) else {
                    failures.push(format!("{name}: no model for this instruction"));
                    continue;
                };
                let mask = if width == 64 {
                    u64::MAX
                } else {
                    (1u64 << width) - 1
                };
                let mut t = Tally::default();
                for (ops, &hw) in rows.iter().zip(&results) {
                    let model = (sem.eval)(ops) & mask;
                    compare(&sem, name, ops, hw, model, &mut t);
                }
                if !matches!(sem.check, Check::Exact) {
                    let from_model = match sem.check {
                        Check::Abs {
                            model_abs: Some(_), ..
                        } => format!(", max {:.3e} from the model", t.worst_model_abs),
                        _ => String::new(),
                    };
                    report.push(format!(
                        "{name:<32} max {} ulps, max abs error {:.3e}{from_model}",
                        t.worst_ulps, t.worst_abs
                    ));
                }
                if !t.bad.is_empty() {
                    let shown: Vec<&String> = t.bad.iter().take(shown_per_op()).collect();
                    failures.push(format!(
                        "{name}: {} of {} differ, e.g.\n    {}",
                        t.bad.len(),
                        t.n,
                        shown
                            .iter()
                            .map(|s| s.as_str())
                            .collect::<Vec<_>>()
                            .join("\n    ")
                    ));
                }
            }
            _ => panic!("unexpected line {head:?}"),
        }
    }
    eprintln!(
        "approximate instructions (hardware against model):\n  {}",
        report.join("\n  ")
    );
    assert!(
        failures.is_empty(),
        "{} instructions differ from the H200:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
