//! Static summaries of lowered kernels: what `warpsim ptx check` and `warpsim ptx stats` print.

use std::collections::BTreeMap;
use std::fmt;

use crate::decode::op_name;
use crate::inst::Class;
use crate::program::Program;

/// One kernel at a glance.
#[derive(Debug, Clone, PartialEq)]
pub struct KernelSummary {
    pub name: String,
    /// Instructions of the kernel body (excluding called functions).
    pub insts: usize,
    /// Instructions of device functions lowered alongside it.
    pub func_insts: usize,
    pub regs: usize,
    /// Registers per thread ptxas is estimated to allocate ([`crate::liveness::estimate_registers`]).
    pub pressure: u32,
    /// (name, type, bytes) of each parameter.
    pub params: Vec<(String, String, u64)>,
    pub static_smem: u64,
    pub target: String,
}

pub fn summarize(p: &Program) -> KernelSummary {
    let body = p.funcs.first().map_or(0, |f| (f.end - f.start) as usize);
    KernelSummary {
        name: p.name.clone(),
        insts: body,
        func_insts: p.insts.len() - body,
        regs: p.regs.len(),
        pressure: crate::liveness::estimate_registers(p),
        params: p
            .params
            .iter()
            .map(|&s| {
                let sym = &p.symbols[s as usize];
                let ty = if sym.size > sym.ty.bytes() as u64 {
                    format!("{}[{}]", sym.ty.name(), sym.size / sym.ty.bytes().max(1) as u64)
                } else {
                    sym.ty.name().to_string()
                };
                (sym.name.clone(), ty, sym.size)
            })
            .collect(),
        static_smem: p.static_smem,
        target: p.target.join(", "),
    }
}

impl fmt::Display for KernelSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {} instructions ({} in device functions), {} virtual registers (~{} registers/thread estimated for ptxas), {} B static shared, target {}",
            self.name, self.insts, self.func_insts, self.regs, self.pressure, self.static_smem, self.target
        )?;
        for (n, t, b) in &self.params {
            write!(f, "\n    param {n}: .{t} ({b} B)")?;
        }
        Ok(())
    }
}

/// Static instruction mix of a kernel (and its device functions).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Mix {
    pub name: String,
    pub total: usize,
    pub by_class: BTreeMap<Class, usize>,
    pub by_opcode: BTreeMap<String, usize>,
}

pub fn mix(p: &Program) -> Mix {
    let mut m = Mix { name: p.name.clone(), total: p.insts.len(), ..Default::default() };
    for i in &p.insts {
        *m.by_class.entry(i.class).or_default() += 1;
        *m.by_opcode.entry(op_name(i.op).to_string()).or_default() += 1;
    }
    m
}

impl fmt::Display for Mix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}: {} instructions", self.name, self.total)?;
        let mut classes: Vec<_> = self.by_class.iter().collect();
        classes.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        for (c, n) in classes {
            writeln!(f, "  {:<14} {:>7} {:>6.1}%", c.name(), n, 100.0 * *n as f64 / self.total.max(1) as f64)?;
        }
        let mut ops: Vec<_> = self.by_opcode.iter().collect();
        ops.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        let top: Vec<String> = ops.iter().take(12).map(|(o, n)| format!("{o} {n}")).collect();
        write!(f, "  top opcodes: {}", top.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_and_mix() {
        let src = ".version 9.0\n.target sm_90\n.entry k(.param .u64 p, .param .align 64 .b8 t[128])\n{\n.reg .b32 %r<3>;\n.reg .f32 %f<2>;\nadd.s32 %r1, %r2, 1;\nadd.f32 %f1, %f1, %f1;\nret;\n}\n";
        let p = &crate::load(src, "t.ptx").unwrap()[0];
        let s = summarize(p);
        assert_eq!(s.insts, 3);
        assert_eq!(s.params[1], ("t".to_string(), "b8[128]".to_string(), 128));
        let m = mix(p);
        assert_eq!(m.by_class[&Class::IntArith], 1);
        assert_eq!(m.by_class[&Class::Fp32], 1);
        assert_eq!(m.by_opcode["add"], 2);
        assert!(m.to_string().contains("fp32"));
    }
}
