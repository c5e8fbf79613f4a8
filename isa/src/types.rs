//! PTX scalar types, special registers and the small enums instruction modifiers decode into.

use serde::Serialize;

/// A PTX fundamental type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum Ty {
    B1,
    B8,
    B16,
    B32,
    B64,
    B128,
    U4,
    U8,
    U16,
    U16x2,
    U32,
    U64,
    S4,
    S8,
    S16,
    S16x2,
    S32,
    S64,
    F16,
    F16x2,
    Bf16,
    Bf16x2,
    Tf32,
    E4m3,
    E5m2,
    E4m3x2,
    E5m2x2,
    F32,
    F64,
    Pred,
}

impl Ty {
    pub fn parse(w: &str) -> Option<Ty> {
        Some(match w {
            "b1" => Ty::B1,
            "b8" => Ty::B8,
            "b16" => Ty::B16,
            "b32" => Ty::B32,
            "b64" => Ty::B64,
            "b128" => Ty::B128,
            "u4" => Ty::U4,
            "u8" => Ty::U8,
            "u16" => Ty::U16,
            "u16x2" => Ty::U16x2,
            "s16x2" => Ty::S16x2,
            "u32" => Ty::U32,
            "u64" => Ty::U64,
            "s4" => Ty::S4,
            "s8" => Ty::S8,
            "s16" => Ty::S16,
            "s32" => Ty::S32,
            "s64" => Ty::S64,
            "f16" => Ty::F16,
            "f16x2" => Ty::F16x2,
            "bf16" => Ty::Bf16,
            "bf16x2" => Ty::Bf16x2,
            "tf32" => Ty::Tf32,
            "e4m3" => Ty::E4m3,
            "e5m2" => Ty::E5m2,
            "e4m3x2" => Ty::E4m3x2,
            "e5m2x2" => Ty::E5m2x2,
            "f32" => Ty::F32,
            "f64" => Ty::F64,
            "pred" => Ty::Pred,
            _ => return None,
        })
    }

    /// Width in bits (a predicate counts as 1).
    #[inline]
    pub fn bits(self) -> u32 {
        match self {
            Ty::B1 | Ty::Pred => 1,
            Ty::U4 | Ty::S4 => 4,
            Ty::B8 | Ty::U8 | Ty::S8 | Ty::E4m3 | Ty::E5m2 => 8,
            Ty::B16 | Ty::U16 | Ty::S16 | Ty::F16 | Ty::Bf16 | Ty::E4m3x2 | Ty::E5m2x2 => 16,
            Ty::B32 | Ty::U32 | Ty::S32 | Ty::F32 | Ty::F16x2 | Ty::Bf16x2 | Ty::Tf32 | Ty::U16x2 | Ty::S16x2 => 32,
            Ty::B64 | Ty::U64 | Ty::S64 | Ty::F64 => 64,
            Ty::B128 => 128,
        }
    }

    #[inline]
    pub fn bytes(self) -> u32 {
        self.bits().div_ceil(8)
    }

    #[inline]
    pub fn is_signed(self) -> bool {
        matches!(self, Ty::S4 | Ty::S8 | Ty::S16 | Ty::S32 | Ty::S64)
    }

    pub fn is_float(self) -> bool {
        matches!(
            self,
            Ty::F16
                | Ty::F16x2
                | Ty::Bf16
                | Ty::Bf16x2
                | Ty::Tf32
                | Ty::E4m3
                | Ty::E5m2
                | Ty::E4m3x2
                | Ty::E5m2x2
                | Ty::F32
                | Ty::F64
        )
    }

    /// The bit mask of a value of this type held in a 64-bit lane register.
    #[inline]
    pub fn mask(self) -> u64 {
        match self.bits() {
            b if b >= 64 => u64::MAX,
            b => (1u64 << b) - 1,
        }
    }

    /// Sign- or zero-extends the low `bits()` of `v` to 64 bits, by signedness.
    #[inline]
    pub fn extend(self, v: u64) -> u64 {
        let b = self.bits();
        if b >= 64 {
            v
        } else if self.is_signed() {
            (((v << (64 - b)) as i64) >> (64 - b)) as u64
        } else {
            v & self.mask()
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Ty::B1 => "b1",
            Ty::B8 => "b8",
            Ty::B16 => "b16",
            Ty::B32 => "b32",
            Ty::B64 => "b64",
            Ty::B128 => "b128",
            Ty::U4 => "u4",
            Ty::U8 => "u8",
            Ty::U16 => "u16",
            Ty::U16x2 => "u16x2",
            Ty::S16x2 => "s16x2",
            Ty::U32 => "u32",
            Ty::U64 => "u64",
            Ty::S4 => "s4",
            Ty::S8 => "s8",
            Ty::S16 => "s16",
            Ty::S32 => "s32",
            Ty::S64 => "s64",
            Ty::F16 => "f16",
            Ty::F16x2 => "f16x2",
            Ty::Bf16 => "bf16",
            Ty::Bf16x2 => "bf16x2",
            Ty::Tf32 => "tf32",
            Ty::E4m3 => "e4m3",
            Ty::E5m2 => "e5m2",
            Ty::E4m3x2 => "e4m3x2",
            Ty::E5m2x2 => "e5m2x2",
            Ty::F32 => "f32",
            Ty::F64 => "f64",
            Ty::Pred => "pred",
        }
    }
}

/// Rounding modifiers: IEEE directions for float results, integer rounding for float→int and
/// float→integral-float conversions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum Rnd {
    Rn,
    Rz,
    Rm,
    Rp,
    Rna,
    Rni,
    Rzi,
    Rmi,
    Rpi,
    Rs,
}

impl Rnd {
    pub fn parse(w: &str) -> Option<Rnd> {
        Some(match w {
            "rn" => Rnd::Rn,
            "rz" => Rnd::Rz,
            "rm" => Rnd::Rm,
            "rp" => Rnd::Rp,
            "rna" => Rnd::Rna,
            "rni" => Rnd::Rni,
            "rzi" => Rnd::Rzi,
            "rmi" => Rnd::Rmi,
            "rpi" => Rnd::Rpi,
            "rs" => Rnd::Rs,
            _ => return None,
        })
    }
}

/// Comparison operators of `setp`/`set`/`slct`-style instructions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum Cmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Lo,
    Ls,
    Hi,
    Hs,
    Equ,
    Neu,
    Ltu,
    Leu,
    Gtu,
    Geu,
    Num,
    Nan,
}

impl Cmp {
    pub fn parse(w: &str) -> Option<Cmp> {
        Some(match w {
            "eq" => Cmp::Eq,
            "ne" => Cmp::Ne,
            "lt" => Cmp::Lt,
            "le" => Cmp::Le,
            "gt" => Cmp::Gt,
            "ge" => Cmp::Ge,
            "lo" => Cmp::Lo,
            "ls" => Cmp::Ls,
            "hi" => Cmp::Hi,
            "hs" => Cmp::Hs,
            "equ" => Cmp::Equ,
            "neu" => Cmp::Neu,
            "ltu" => Cmp::Ltu,
            "leu" => Cmp::Leu,
            "gtu" => Cmp::Gtu,
            "geu" => Cmp::Geu,
            "num" => Cmp::Num,
            "nan" => Cmp::Nan,
            _ => return None,
        })
    }
}

/// `.and/.or/.xor` combining of `setp`, `bar.red`, `vote`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum BoolOp {
    And,
    Or,
    Xor,
}

/// Memory consistency semantics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum Sem {
    Relaxed,
    Acquire,
    Release,
    AcqRel,
    Weak,
    Volatile,
    Sc,
    Mmio,
}

/// Memory scopes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum Scope {
    Cta,
    Cluster,
    Gpu,
    Sys,
}

/// Cache operators of `ld`/`st`/`cp.async`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum CacheOp {
    Ca,
    Cg,
    Cs,
    Lu,
    Cv,
    Wb,
    Wt,
    /// `.nc` (non-coherent, read-only data path).
    Nc,
}

/// Special registers. Components (`.x/.y/.z`) are folded in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum SReg {
    Tid(u8),
    Ntid(u8),
    Ctaid(u8),
    Nctaid(u8),
    Laneid,
    Warpid,
    Nwarpid,
    Smid,
    Nsmid,
    Gridid,
    Clock,
    ClockHi,
    Clock64,
    Globaltimer,
    GlobaltimerLo,
    GlobaltimerHi,
    LanemaskEq,
    LanemaskLe,
    LanemaskLt,
    LanemaskGe,
    LanemaskGt,
    ClusterId(u8),
    NclusterId(u8),
    ClusterCtaid(u8),
    ClusterNctaid(u8),
    ClusterCtarank,
    ClusterNctarank,
    IsExplicitCluster,
    /// SASS `SR_SWINHI` (no PTX name): the high 32 bits of the generic addresses of the shared
    /// window, which ptxas pairs with a `shared::cluster` address to reach another CTA's memory.
    SharedWindowHi,
    /// The driver constants `c[0x0][0x18]`/`[0x1c]` (`local` false) and `[0x20]`/`[0x24]` (true),
    /// no PTX name: the low (`hi` false) and high word of the generic address of offset 0 of the
    /// CTA's shared memory or the thread's local memory, which ptxas adds an offset (the stack
    /// pointer `R1`) to where the PTX has `cvta.shared` / `cvta.local`.
    WindowBase { local: bool, hi: bool },
    /// sm_90's driver constant `c[0x0][0x150]` (no PTX name): 1 / `%cluster_nctaid.x` as an f32
    /// rounded up, which ptxas multiplies `%ctaid.x` by and truncates to get `%clusterid.x`.
    ClusterNctaidRcp(u8),
    DynamicSmemSize,
    TotalSmemSize,
    AggrSmemSize,
    /// `%reserved_smem_offset_<n>` (begin = 254, end = 255, cap = 253): offsets into the
    /// driver-reserved shared-memory window, which is empty in this simulator.
    ReservedSmem(u8),
    Envreg(u8),
    Pm(u8),
}

impl SReg {
    /// Parses a special register name and optional component (`%tid`, `Some("x")`).
    pub fn parse(name: &str, comp: Option<&str>) -> Option<SReg> {
        let c = match comp {
            None => None,
            Some("x") => Some(0u8),
            Some("y") => Some(1),
            Some("z") => Some(2),
            Some(_) => return None,
        };
        let dim = |f: fn(u8) -> SReg| c.map(f);
        let plain = |r: SReg| if c.is_none() { Some(r) } else { None };
        match name {
            "%tid" => dim(SReg::Tid),
            "%ntid" => dim(SReg::Ntid),
            "%ctaid" => dim(SReg::Ctaid),
            "%nctaid" => dim(SReg::Nctaid),
            "%clusterid" => dim(SReg::ClusterId),
            "%nclusterid" => dim(SReg::NclusterId),
            "%cluster_ctaid" => dim(SReg::ClusterCtaid),
            "%cluster_nctaid" => dim(SReg::ClusterNctaid),
            "%laneid" => plain(SReg::Laneid),
            "%warpid" => plain(SReg::Warpid),
            "%nwarpid" => plain(SReg::Nwarpid),
            "%smid" => plain(SReg::Smid),
            "%nsmid" => plain(SReg::Nsmid),
            "%gridid" => plain(SReg::Gridid),
            "%clock" => plain(SReg::Clock),
            "%clock_hi" => plain(SReg::ClockHi),
            "%clock64" => plain(SReg::Clock64),
            "%globaltimer" => plain(SReg::Globaltimer),
            "%globaltimer_lo" => plain(SReg::GlobaltimerLo),
            "%globaltimer_hi" => plain(SReg::GlobaltimerHi),
            "%lanemask_eq" => plain(SReg::LanemaskEq),
            "%lanemask_le" => plain(SReg::LanemaskLe),
            "%lanemask_lt" => plain(SReg::LanemaskLt),
            "%lanemask_ge" => plain(SReg::LanemaskGe),
            "%lanemask_gt" => plain(SReg::LanemaskGt),
            "%cluster_ctarank" => plain(SReg::ClusterCtarank),
            "%cluster_nctarank" => plain(SReg::ClusterNctarank),
            "%is_explicit_cluster" => plain(SReg::IsExplicitCluster),
            "%dynamic_smem_size" => plain(SReg::DynamicSmemSize),
            "%total_smem_size" => plain(SReg::TotalSmemSize),
            "%aggr_smem_size" => plain(SReg::AggrSmemSize),
            "%reserved_smem_offset_begin" => plain(SReg::ReservedSmem(254)),
            "%reserved_smem_offset_end" => plain(SReg::ReservedSmem(255)),
            "%reserved_smem_offset_cap" => plain(SReg::ReservedSmem(253)),
            _ => {
                if let Some(n) = name.strip_prefix("%reserved_smem_offset_") {
                    n.parse::<u8>().ok().filter(|&n| n < 253 && c.is_none()).map(SReg::ReservedSmem)
                } else if let Some(n) = name.strip_prefix("%envreg") {
                    n.parse::<u8>().ok().filter(|&n| n < 32 && c.is_none()).map(SReg::Envreg)
                } else if let Some(n) = name.strip_prefix("%pm") {
                    n.parse::<u8>().ok().filter(|&n| n < 8 && c.is_none()).map(SReg::Pm)
                } else {
                    None
                }
            }
        }
    }

    /// Width of the register in bits.
    pub fn bits(self) -> u32 {
        match self {
            SReg::Clock64 | SReg::Globaltimer | SReg::Gridid => 64,
            SReg::IsExplicitCluster => 1,
            _ => 32,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extend_respects_signedness() {
        assert_eq!(Ty::S8.extend(0x80), 0xFFFF_FFFF_FFFF_FF80);
        assert_eq!(Ty::U8.extend(0x180), 0x80);
        assert_eq!(Ty::S32.extend(0xFFFF_FFFF), u64::MAX);
        assert_eq!(Ty::U64.extend(5), 5);
    }

    #[test]
    fn special_registers() {
        assert_eq!(SReg::parse("%tid", Some("y")), Some(SReg::Tid(1)));
        assert_eq!(SReg::parse("%tid", None), None);
        assert_eq!(SReg::parse("%laneid", Some("x")), None);
        assert_eq!(SReg::parse("%envreg3", None), Some(SReg::Envreg(3)));
        assert_eq!(SReg::parse("%envreg99", None), None);
        assert_eq!(SReg::parse("%r1", None), None);
    }
}
