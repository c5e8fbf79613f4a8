//! Where the driver puts a kernel's parameters: constant bank 0, from a per-target base offset.
//!
//! The parameters, in the PTX `.param` order, start at a fixed offset of bank 0 and each sits at
//! the next offset its own alignment allows *in the bank* (a `.align 64` tensor map after a base
//! of 0x210 starts at 0x240). Below the base the driver keeps the launch constants ptxas reads
//! for special registers and the ABI (`c[0x0][0x0]` = blockDim.x, `c[0x0][0x28]` = the stack top,
//! `c[0x0][0x208]` / `0x118` = the global-memory descriptor). The bases were measured, not taken
//! from documentation: [`infer_param_base`] finds the offset that puts the constant reads of a
//! set of kernels on their parameters' bytes; run over the bundled suite compiled for every
//! target, it gives [`param_base`] (DESIGN.md, "The SASS front end", has the table;
//! `sass/tests/listings.rs` and `toolchain/tests/sass.rs` repeat the measurement).

use std::collections::BTreeSet;

use serde::Serialize;

use crate::{Bank, Kernel, Value};

/// Each `.entry`'s parameters in a parsed PTX module, in order: `(name, [(size, align)])` in
/// bytes, the shape [`layout`] places (arrays count their elements, vectors their lanes).
pub fn entry_params(m: &warpsim_isa::ast::Module) -> Vec<(String, Vec<(u32, u32)>)> {
    m.funcs
        .iter()
        .filter(|f| f.kind == warpsim_isa::ast::FuncKind::Entry && f.body.is_some())
        .map(|f| {
            let params = f
                .params
                .iter()
                .map(|p| {
                    let elem = warpsim_isa::types::Ty::parse(&p.ty).map_or(1, |t| t.bytes().max(1)) * p.vec.max(1);
                    let count: u64 = p.dims.iter().map(|d| d.unwrap_or(1)).product();
                    (elem * count as u32, p.align.unwrap_or(elem).max(1))
                })
                .collect();
            (f.name.clone(), params)
        })
        .collect()
}

/// Byte offset of the parameter block in constant bank 0 on `arch` (`sm_70` ... `sm_90a`), or
/// `None` for a target this crate does not read.
pub fn param_base(arch: &str) -> Option<u32> {
    let num: u32 = arch.strip_prefix("sm_")?.chars().take_while(char::is_ascii_digit).collect::<String>().parse().ok()?;
    match num {
        70..=89 => Some(0x160),
        90..=99 => Some(0x210),
        _ => None,
    }
}

/// Bank-0 offsets of parameters given as `(size, align)` in declaration order, laid out from
/// `base` with each aligned in the bank's address space.
pub fn layout(base: u32, params: &[(u32, u32)]) -> Vec<u32> {
    let mut at = base;
    params
        .iter()
        .map(|&(size, align)| {
            let align = align.max(1);
            at = at.div_ceil(align) * align;
            let off = at;
            at += size;
            off
        })
        .collect()
}

/// [`layout`] from `arch`'s [`param_base`].
pub fn param_offsets(arch: &str, params: &[(u32, u32)]) -> Option<Vec<u32>> {
    Some(layout(param_base(arch)?, params))
}

/// The literal offsets a kernel reads from constant bank 0 (`c[0x0][0x210]`; register-indexed
/// reads are left out).
pub fn bank0_reads(k: &Kernel) -> BTreeSet<u32> {
    k.instructions
        .iter()
        .flat_map(|i| &i.operands)
        .filter_map(|o| match &o.value {
            Value::Const { bank: Bank::Index(0), addr } if addr.reg.is_none() && addr.ureg.is_none() && addr.offset >= 0 => u32::try_from(addr.offset).ok(),
            _ => None,
        })
        .collect()
}

/// One kernel's evidence: its parameters (`(size, align)`, from the PTX) and its bank-0 reads.
#[derive(Clone, Debug)]
pub struct Evidence {
    pub name: String,
    pub params: Vec<(u32, u32)>,
    pub reads: BTreeSet<u32>,
}

/// What [`infer_param_base`] found.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Inference {
    pub base: u32,
    /// Reads that land on a parameter's bytes with this base.
    pub explained: usize,
    /// Reads at or above the base that land on no parameter: `(kernel, offset)`.
    pub unexplained: Vec<(String, u32)>,
    /// The offsets read below the base (driver constants).
    pub below: BTreeSet<u32>,
}

/// The base offset that explains the most bank-0 reads as parameter reads (ties: the lowest);
/// `None` without any read.
pub fn infer_param_base(kernels: &[Evidence]) -> Option<Inference> {
    let mut candidates = BTreeSet::new();
    for k in kernels {
        let rel = layout(0, &k.params);
        for &x in &k.reads {
            candidates.extend(rel.iter().filter(|&&o| o <= x).map(|&o| x - o));
        }
    }
    let hits = |base: u32, k: &Evidence, x: u32| layout(base, &k.params).iter().zip(&k.params).any(|(&o, &(size, _))| x >= o && x < o + size);
    let score = |base: u32| -> usize { kernels.iter().map(|k| k.reads.iter().filter(|&&x| hits(base, k, x)).count()).sum() };
    // Ties go to the base where most reads start a parameter, then to the most aligned one (a
    // base 2 bytes below the true one lays out every kernel whose first parameter is 4-byte
    // aligned identically), then to the lowest.
    let starts = |base: u32| -> usize { kernels.iter().map(|k| k.reads.iter().filter(|&&x| layout(base, &k.params).contains(&x)).count()).sum() };
    let base = candidates.into_iter().max_by_key(|&b| (score(b), starts(b), b.trailing_zeros().min(8), std::cmp::Reverse(b)))?;
    let mut inf = Inference { base, explained: score(base), unexplained: Vec::new(), below: BTreeSet::new() };
    for k in kernels {
        for &x in &k.reads {
            if x < base {
                inf.below.insert(x);
            } else if !hits(base, k, x) {
                inf.unexplained.push((k.name.clone(), x));
            }
        }
    }
    Some(inf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bases() {
        assert_eq!(param_base("sm_70"), Some(0x160));
        assert_eq!(param_base("sm_86"), Some(0x160));
        assert_eq!(param_base("sm_90"), Some(0x210));
        assert_eq!(param_base("sm_90a"), Some(0x210));
        assert_eq!(param_base("sm_61"), None);
        assert_eq!(param_base("compute_90"), None);
    }

    #[test]
    fn a_base_that_lays_out_the_same_loses_to_the_aligned_one() {
        // (u64, u32) read at 0x160 and 0x168, and (u16, u16, u32) read at 0x160 and 0x164: from
        // 0x15e every read starts a parameter as well as from 0x160 (the first kernel's layout is
        // the same, the second reads its second half-word instead of its first).
        let ev = |params: Vec<(u32, u32)>, reads: &[u32]| Evidence { name: String::new(), params, reads: reads.iter().copied().collect() };
        let kernels = [ev(vec![(8, 8), (4, 4)], &[0x160, 0x168]), ev(vec![(2, 2), (2, 2), (4, 4)], &[0x160, 0x164])];
        assert_eq!(infer_param_base(&kernels).map(|i| (i.base, i.explained)), Some((0x160, 4)));
    }

    #[test]
    fn alignment_is_in_the_bank() {
        // tma_copy_double(CUtensorMap .align 64 [128], u64, u32) on sm_90
        assert_eq!(param_offsets("sm_90", &[(128, 64), (8, 8), (4, 4)]), Some(vec![0x240, 0x2c0, 0x2c8]));
        // saxpy(f32, u64, u64, u32) on sm_80
        assert_eq!(param_offsets("sm_80", &[(4, 4), (8, 8), (8, 8), (4, 4)]), Some(vec![0x160, 0x168, 0x170, 0x178]));
    }

    #[test]
    fn infers_a_base() {
        let ev = |reads: &[u32]| Evidence { name: "k".into(), params: vec![(4, 4), (8, 8), (8, 8), (4, 4)], reads: reads.iter().copied().collect() };
        let inf = infer_param_base(&[ev(&[0x0, 0x28, 0x210, 0x218, 0x220, 0x228]), ev(&[0x208, 0x228])]).unwrap();
        assert_eq!((inf.base, inf.explained, inf.unexplained.len()), (0x210, 5, 0));
        assert_eq!(inf.below, [0x0, 0x28, 0x208].into_iter().collect());
        assert!(infer_param_base(&[ev(&[])]).is_none());
    }
}
