//! Text views of a parsed module for people: a kernel's decoded listing, an opcode table.

use std::collections::BTreeMap;
use std::fmt::Write;

use crate::Kernel;

/// One line per instruction: pc, control bits (`B--2---:R-:W1:Y:S04`), the instruction, its CUDA
/// source line and PTX line.
pub fn table(k: &Kernel) -> String {
    let mut s = String::new();
    let regs = k.registers.map_or(String::new(), |r| format!(", {r} registers"));
    let _ = writeln!(s, "{} {} ({} instructions{regs})", if k.entry { "kernel" } else { "function" }, k.name, k.instructions.len());
    let labels: BTreeMap<u32, Vec<&str>> = k.labels.iter().filter(|(l, _)| *l != &k.name && !l.starts_with(".text.")).fold(BTreeMap::new(), |mut m, (l, pc)| {
        m.entry(*pc).or_default().push(l.as_str());
        m
    });
    for i in &k.instructions {
        for l in labels.get(&i.pc).into_iter().flatten() {
            let _ = writeln!(s, "{l}:");
        }
        let ctl = i.control.map_or("-".repeat(19), |c| c.compact());
        let src = i.source.as_ref().map_or(String::new(), |p| p.to_string());
        let ptx = i.ptx_line.map_or(String::new(), |l| format!(" ptx:{l}"));
        let _ = writeln!(s, "  {:04x}  {ctl:<24} {:<52} {src}{ptx}", i.pc, i.text());
    }
    s
}

/// Opcodes by count (most frequent first) with their share, and the number of distinct ones.
pub fn opcode_table(counts: &BTreeMap<String, usize>) -> String {
    let total: usize = counts.values().sum();
    let mut v: Vec<(&String, &usize)> = counts.iter().collect();
    v.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    let mut s = format!("{} instructions, {} distinct opcodes\n", total, v.len());
    for (op, n) in v {
        let _ = writeln!(s, "  {op:<16} {n:>7}  {:5.2}%", 100.0 * *n as f64 / total.max(1) as f64);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shows_a_kernel() {
        let m = crate::parse(".target sm_90\n.section .text.k,\"ax\",@progbits\n.other k,@\"STO_CUDA_ENTRY STV_DEFAULT\"\n//## File \"k.cu\", line 3\n/*0000*/ EXIT ; /* 0x000000000000794d */\n/* 0x000fea0003800000 */\n.L_x_0:\n/*0010*/ BRA `(.L_x_0); /* 0xfffffffc00fc7947 */\n/* 0x000fc0000383ffff */\n").unwrap();
        let t = table(&m.kernels[0]);
        assert!(t.starts_with("kernel k (2 instructions)"), "{t}");
        assert!(t.contains("  0000  B------:R-:W-:Y:S05"), "{t}");
        assert!(t.contains("EXIT") && t.contains("k.cu:3") && t.contains(".L_x_0:\n"), "{t}");
        let o = opcode_table(&m.opcode_counts());
        assert!(o.starts_with("2 instructions, 2 distinct opcodes"), "{o}");
    }
}
