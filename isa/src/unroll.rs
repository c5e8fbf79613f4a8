//! Loop unrolling the way ptxas does it to the loops nvcc leaves: the SASS of a counted loop holds
//! four copies of its PTX body, so four times the loads are in flight per trip (the membench
//! column walk `walk_sum` issues 16 `LDG`s per SASS trip from a PTX body of 4 loads, and
//! `ffma_lat`'s 4-step PTX loop runs 16 steps per SASS trip).
//!
//! The transformed loop is nvcc's count-down form, one block ending in
//! `add c, c, -K; … setp.ne p, c, 0; @p bra L` (the main loop of every loop nvcc unrolls by a
//! factor with a remainder). It becomes
//!
//! ```text
//! L:    setp.gt.s32 p, c, 3K;  @!p bra R;     // at least four more trips
//!       body ×4 (setp and branch only after the last);  @p bra L;  bra X;
//! R:    the original loop (as L before);
//! X:
//! ```
//!
//! which is exact: entering with `c > 3K` the three dropped tests would all have continued
//! (`c − jK > 0` for j ≤ 3), and otherwise the original loop runs. Registers the first three copies
//! write are renamed to fresh ones (the last copy writes the original names, so values leave the
//! loop and reach the next trip as before): ptxas's register renaming, without which the copies'
//! loads could not pass the previous copy's uses. The body may not read `p` except in the branch
//! (it is reused as the guard), nor hold guarded instructions, labels, other branches, barriers,
//! fences, atomics, calls, warp collectives or pragmas, and must load, storing only to state
//! spaces it does not load from (the loops the register estimate of [`crate::liveness`] unrolls);
//! loops marked `.pragma "nounroll"` and bodies over [`MAX_BODY`] instructions stay rolled. [`crate::schedule`]
//! then hoists the copies' loads together.

use std::borrow::Cow;
use std::collections::HashMap;

use crate::ast::{Function, Instruction, Linkage, Operand, OperandKind, Space, Stmt, VarDecl};
use crate::lexer::Pos;

/// Copies of the body per unrolled trip (what ptxas does to the loops it unrolls).
pub const FACTOR: i128 = 4;
/// Loops with more instructions (the branch included) stay rolled.
pub const MAX_BODY: usize = 64;

/// Opcodes a body may hold: arithmetic, moves, conversions, loads and stores.
const PLAIN: &[&str] = &[
    "add", "sub", "mul", "mad", "mul24", "mad24", "fma", "div", "rem", "abs", "neg", "min", "max", "and", "or", "xor", "not", "shl", "shr", "cvt",
    "cvta", "mov", "setp", "selp", "set", "slct", "ld", "ldu", "st", "rcp", "sqrt", "rsqrt", "ex2", "lg2", "sin", "cos", "tanh", "popc", "clz",
    "brev", "bfe", "bfi", "prmt", "lop3", "shf", "copysign", "testp", "cnot", "sad", "fns", "bfind", "dp4a", "dp2a",
];

fn name(o: &Operand) -> Option<&str> {
    match &o.kind {
        OperandKind::Name(n, None) => Some(n),
        _ => None,
    }
}

fn is(i: &Instruction, opcode: &str, mods: &[&str]) -> bool {
    i.opcode == opcode && i.mods.len() == mods.len() && i.mods.iter().zip(mods).all(|((m, _), w)| m == w)
}

/// Registers an instruction reads (operands after the first, addresses, guard).
fn reads<'a>(i: &'a Instruction) -> impl Iterator<Item = &'a str> + 'a {
    let srcs = i.operands.iter().skip(if i.opcode == "st" { 0 } else { 1 });
    fn names<'b>(o: &'b Operand, out: &mut Vec<&'b str>) {
        match &o.kind {
            OperandKind::Name(n, _) | OperandKind::Not(n) => out.push(n),
            OperandKind::Addr { base: Some(b), coords, .. } => {
                out.push(b);
                coords.iter().flatten().for_each(|c| names(c, out));
            }
            OperandKind::Vector(v) | OperandKind::List(v) => v.iter().for_each(|c| names(c, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    srcs.for_each(|o| names(o, &mut out));
    out.extend(i.guard.iter().map(|g| g.1.as_str()));
    out.into_iter()
}

/// The register an instruction writes first, if it writes one.
fn writes(i: &Instruction) -> Option<&str> {
    if i.opcode == "st" {
        return None;
    }
    match i.operands.first().map(|o| &o.kind) {
        Some(OperandKind::Name(n, None)) => Some(n),
        Some(OperandKind::Pair(a, _)) => Some(a),
        _ => None,
    }
}

/// A loop body (the statements after its label, the branch last) in the count-down form, every
/// register it writes declared in `types`: the predicate, the counter and the step.
fn counted(body: &[Stmt], label: &str, types: &RegTypes) -> Option<(String, String, i128)> {
    let insts: Vec<&Instruction> = body.iter().filter_map(|s| if let Stmt::Inst(i) = s { Some(i) } else { None }).collect();
    if body.iter().any(|s| !matches!(s, Stmt::Inst(_) | Stmt::Loc(_))) || insts.len() > MAX_BODY {
        return None;
    }
    let (bra, rest) = insts.split_last()?;
    let (false, p, _) = bra.guard.as_ref()? else { return None };
    if bra.opcode != "bra" || !bra.mods.is_empty() || bra.operands.len() != 1 || name(&bra.operands[0]) != Some(label) {
        return None;
    }
    if rest.iter().any(|i| !PLAIN.contains(&i.opcode.as_str()) || i.guard.is_some() || i.mods.iter().any(|(m, _)| m == "volatile" || m == "acquire" || m == "relaxed")) {
        return None;
    }
    // Every instruction but stores writes one declared scalar register (renamable).
    let declared = |i: &&Instruction| i.opcode == "st" || matches!(i.operands.first().map(|o| &o.kind), Some(OperandKind::Name(w, None)) if types.of(w).is_some());
    if !rest.iter().all(declared) {
        return None;
    }
    // As the register estimate's rule (`liveness`): loads in the body, stores only to state
    // spaces no load reads (ptxas leaves loops of pure arithmetic, or loads behind aliasing
    // stores, to its own devices).
    let space = |i: &Instruction| ["global", "shared", "local", "const", "param"].into_iter().find(|w| i.mods.iter().any(|(m, _)| m == w || m.starts_with(&format!("{w}::"))));
    let loads: Vec<Option<&str>> = rest.iter().filter(|i| i.opcode == "ld" || i.opcode == "ldu").map(|i| space(i)).collect();
    let disjoint = rest.iter().filter(|i| i.opcode == "st").all(|st| {
        let s = space(st);
        s.is_some() && loads.iter().all(|&l| l == Some("const") || (l.is_some() && l != s))
    });
    if loads.is_empty() || !disjoint {
        return None;
    }
    // The test: the last instruction writing p, `setp.ne.s32 p, c, 0`, and nothing else reads p.
    let t = rest.iter().rposition(|i| writes(i) == Some(p.as_str()))?;
    let test = rest[t];
    if !is(test, "setp", &["ne", "s32"]) || test.guard.is_some() || test.operands.len() != 3 || test.operands[2].kind != OperandKind::Int(0) {
        return None;
    }
    let c = name(&test.operands[1])?.to_string();
    if rest.iter().any(|i| reads(i).any(|r| r == p)) || rest[..t].iter().any(|i| writes(i) == Some(p.as_str())) {
        return None;
    }
    // The counter: written once, before the test, by `add.s32 c, c, -K` or `sub.s32 c, c, K`.
    let defs: Vec<usize> = rest.iter().enumerate().filter(|(_, i)| writes(i) == Some(c.as_str())).map(|(k, _)| k).collect();
    let [d] = defs[..] else { return None };
    let step = rest[d];
    if d > t || step.guard.is_some() || step.operands.len() != 3 || name(&step.operands[1]) != Some(c.as_str()) {
        return None;
    }
    let k = match (&step.operands[2].kind, is(step, "add", &["s32"]), is(step, "sub", &["s32"])) {
        (OperandKind::Int(v), true, _) => -v,
        (OperandKind::Int(v), _, true) => *v,
        _ => return None,
    };
    (k > 0 && k < 1 << 28).then(|| (p.clone(), c, k))
}

/// The register declarations of a function body: single names and `%r<N>` families.
struct RegTypes<'a> {
    single: HashMap<&'a str, &'a str>,
    ranges: Vec<(&'a str, u32, &'a str)>,
}

impl<'a> RegTypes<'a> {
    fn new(body: &'a [Stmt]) -> RegTypes<'a> {
        let mut t = RegTypes { single: HashMap::new(), ranges: Vec::new() };
        for s in body {
            if let Stmt::Var(v) = s {
                if v.space == Space::Reg && v.vec == 1 && v.dims.is_empty() {
                    match v.range {
                        Some(n) => t.ranges.push((&v.name, n, &v.ty)),
                        None => {
                            t.single.insert(&v.name, &v.ty);
                        }
                    }
                }
            }
        }
        t
    }

    fn of(&self, reg: &str) -> Option<&'a str> {
        if let Some(t) = self.single.get(reg) {
            return Some(t);
        }
        let member = |p: &str, n: u32| {
            let k = reg.strip_prefix(p).unwrap_or("");
            let canonical = !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit()) && (k == "0" || !k.starts_with('0'));
            canonical && k.parse::<u32>().is_ok_and(|k| k < n)
        };
        self.ranges.iter().find(|(p, n, _)| member(p, *n)).map(|r| r.2)
    }
}

/// Renames registers in an operand.
fn rename(o: &mut Operand, map: &HashMap<String, String>) {
    let sub = |n: &mut String| {
        if let Some(m) = map.get(n.as_str()) {
            *n = m.clone();
        }
    };
    match &mut o.kind {
        OperandKind::Name(n, _) | OperandKind::Not(n) => sub(n),
        OperandKind::Pair(a, b) => {
            sub(a);
            sub(b);
        }
        OperandKind::Addr { base, coords, .. } => {
            if let Some(b) = base {
                sub(b);
            }
            coords.iter_mut().flatten().for_each(|c| rename(c, map));
        }
        OperandKind::Vector(v) | OperandKind::List(v) => v.iter_mut().for_each(|c| rename(c, map)),
        _ => {}
    }
}

fn inst(pos: Pos, guard: Option<(bool, &str)>, opcode: &str, mods: &[&str], operands: Vec<OperandKind>) -> Stmt {
    Stmt::Inst(Instruction {
        pos,
        guard: guard.map(|(neg, p)| (neg, p.to_string(), pos)),
        opcode: opcode.to_string(),
        mods: mods.iter().map(|m| (m.to_string(), pos)).collect(),
        operands: operands.into_iter().map(|kind| Operand { pos, kind }).collect(),
    })
}

fn label_ref(l: &str) -> OperandKind {
    OperandKind::Name(l.to_string(), None)
}

/// Unrolls the function's count-down loops; borrowed unchanged when it has none.
pub fn function(f: &Function) -> Cow<'_, Function> {
    let Some(body) = &f.body else { return Cow::Borrowed(f) };
    let types = RegTypes::new(body);
    // Names for the labels and registers this adds: a prefix no declaration or label of the
    // function starts with, so none can collide with the program's own.
    let mut tag = String::from("__warpsim_u");
    let taken = |tag: &str| {
        body.iter().any(|s| match s {
            Stmt::Var(v) => v.name.contains(tag),
            Stmt::Label(l, _) => l.contains(tag),
            _ => false,
        })
    };
    while taken(&tag) {
        tag.push('_');
    }
    let mut decls: Vec<VarDecl> = Vec::new();
    let mut out: Vec<Stmt> = Vec::with_capacity(body.len());
    let mut changed = 0usize;
    let mut i = 0;
    while i < body.len() {
        let (Stmt::Label(label, lpos), false) = (&body[i], i > 0 && matches!(&body[i - 1], Stmt::Pragma(w, _) if w.iter().any(|w| w == "nounroll"))) else {
            out.push(body[i].clone());
            i += 1;
            continue;
        };
        // The loop: statements up to the first branch back to this label.
        let end = body[i + 1..].iter().position(|s| matches!(s, Stmt::Label(..)) || matches!(s, Stmt::Inst(x) if x.opcode == "bra")).map(|e| i + 1 + e);
        let Some((p, c, k)) = end.and_then(|e| counted(&body[i + 1..=e], label, &types)) else {
            out.push(body[i].clone());
            i += 1;
            continue;
        };
        let end = end.expect("counted");
        let loop_body = &body[i + 1..=end];
        let (rem, exit) = (format!("{label}{tag}rest"), format!("{label}{tag}exit"));
        let pos = *lpos;
        out.push(Stmt::Label(label.clone(), pos));
        out.push(inst(pos, None, "setp", &["gt", "s32"], vec![OperandKind::Name(p.clone(), None), OperandKind::Name(c.clone(), None), OperandKind::Int(k * (FACTOR - 1))]));
        out.push(inst(pos, Some((true, &p)), "bra", &[], vec![label_ref(&rem)]));
        let test = loop_body.iter().rposition(|s| matches!(s, Stmt::Inst(x) if writes(x) == Some(p.as_str()))).expect("counted: a test");
        // Copies: uses read the latest name, and every write but the last copy's is renamed;
        // the last copy's too for registers local to the body (written before read, named
        // nowhere else), so the remainder keeps the only definition of each original name (what
        // `costs` needs to fold address arithmetic into the loads).
        let outside: std::collections::HashSet<&str> =
            body[..i].iter().chain(&body[end + 1..]).filter_map(|s| if let Stmt::Inst(x) = s { Some(x) } else { None }).flat_map(|x| reads(x).chain(writes(x))).collect();
        let mut seen: std::collections::HashSet<&str> = std::collections::HashSet::new();
        let mut local: std::collections::HashSet<String> = std::collections::HashSet::new();
        for s in loop_body {
            if let Stmt::Inst(x) = s {
                for r in reads(x) {
                    seen.insert(r);
                }
                if let Some(w) = writes(x) {
                    if seen.insert(w) && !outside.contains(w) {
                        local.insert(w.to_string());
                    }
                }
            }
        }
        // The predicate is the guard and the closing branch's: never renamed in the last copy.
        local.remove(&p);
        let mut map: HashMap<String, String> = HashMap::new();
        for copy in 0..FACTOR {
            for (j, s) in loop_body[..loop_body.len() - 1].iter().enumerate() {
                if j == test && copy != FACTOR - 1 {
                    continue;
                }
                let mut s = s.clone();
                if let Stmt::Inst(x) = &mut s {
                    let w = writes(x).map(str::to_string);
                    let skip = usize::from(x.opcode != "st" && w.is_some());
                    x.operands.iter_mut().skip(skip).for_each(|o| rename(o, &map));
                    if let Some(w) = w {
                        let last = copy == FACTOR - 1 && !local.contains(&w);
                        if last {
                            map.remove(&w);
                        } else {
                            let ty = types.of(&w).expect("checked: every written register is declared");
                            let fresh = format!("%{tag}{}", decls.len());
                            decls.push(VarDecl {
                                pos,
                                linkage: Linkage::None,
                                space: Space::Reg,
                                align: None,
                                ty: ty.to_string(),
                                vec: 1,
                                name: fresh.clone(),
                                dims: Vec::new(),
                                range: None,
                                init: None,
                                attrs: Vec::new(),
                            });
                            map.insert(w, fresh);
                        }
                        if let Some(o) = x.operands.first_mut() {
                            if !last {
                                rename(o, &map);
                            }
                        }
                    }
                }
                out.push(s);
            }
        }
        out.push(inst(pos, Some((false, &p)), "bra", &[], vec![label_ref(label)]));
        out.push(inst(pos, None, "bra", &["uni"], vec![label_ref(&exit)]));
        out.push(Stmt::Label(rem.clone(), pos));
        let mut original: Vec<Stmt> = loop_body.to_vec();
        if let Some(Stmt::Inst(b)) = original.last_mut() {
            b.operands[0].kind = label_ref(&rem);
        }
        out.extend(original);
        out.push(Stmt::Label(exit, pos));
        changed += 1;
        i = end + 1;
    }
    if changed == 0 {
        return Cow::Borrowed(f);
    }
    let mut body: Vec<Stmt> = decls.into_iter().map(Stmt::Var).collect();
    body.extend(out);
    Cow::Owned(Function { body: Some(body), ..f.clone() })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SUM: &str = r#"
.version 8.0
.target sm_90
.address_size 64
.visible .entry sum(.param .u64 a, .param .u64 out, .param .u32 n)
{
    .reg .pred %p<3>;
    .reg .b32 %r<12>;
    .reg .b64 %rd<6>;
    ld.param.u64 %rd1, [a];
    ld.param.u64 %rd2, [out];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, 0;
$L__BB0_1:
    ld.global.u32 %r3, [%rd1];
    add.s32 %r2, %r2, %r3;
    add.s64 %rd1, %rd1, 4;
    add.s32 %r1, %r1, -1;
    setp.ne.s32 %p1, %r1, 0;
    @%p1 bra $L__BB0_1;
    st.global.u32 [%rd2], %r2;
    ret;
}
"#;

    fn body(src: &str) -> Vec<String> {
        let m = crate::parser::parse(src, "t.ptx").expect("parse");
        let f = &m.funcs[0];
        function(f).body.as_ref().unwrap().iter().filter_map(|s| if let Stmt::Inst(i) = s { Some(i.opcode.clone()) } else { None }).collect()
    }

    #[test]
    fn count_down_loops_get_four_copies_and_the_original_as_remainder() {
        let ops = body(SUM);
        assert_eq!(ops.iter().filter(|o| *o == "ld").count(), 3 + 4 + 1, "{ops:?}");
        assert_eq!(ops.iter().filter(|o| *o == "setp").count(), 1 + 1 + 1);
    }

    #[test]
    fn the_copies_write_fresh_registers_and_the_last_the_original_ones() {
        let m = crate::parser::parse(SUM, "t.ptx").expect("parse");
        let f = function(&m.funcs[0]).into_owned();
        let b = f.body.unwrap();
        let fresh = b.iter().filter(|s| matches!(s, Stmt::Var(v) if v.name.starts_with("%__warpsim_u"))).count();
        // Four registers written per copy: %r3 is local (all four copies renamed), %r2, %rd1 and
        // %r1 leave the loop (three copies renamed).
        assert_eq!(fresh, 4 + 3 * 3);
        // The program still lowers and computes the same sum (the functional tests run it).
        let text = SUM.to_string();
        assert!(crate::load(&text, "t.ptx").is_ok());
    }

    #[test]
    fn added_names_never_collide_with_the_programs() {
        // The program already uses the names the pass would pick: it picks others, and the
        // result still lowers (a collision would be a duplicate label or a shared register).
        let src = SUM.replace(".reg .b64 %rd<6>;", ".reg .b64 %rd<6>;\n    .reg .b32 %__warpsim_u0;\n    mov.u32 %__warpsim_u0, 1;")
            .replace("st.global.u32 [%rd2], %r2;", "st.global.u32 [%rd2], %r2;\n$L__BB0_1__warpsim_urest:");
        let m = crate::parser::parse(&src, "t.ptx").expect("parse");
        let f = function(&m.funcs[0]).into_owned();
        let names: Vec<String> = f.body.unwrap().iter().filter_map(|s| if let Stmt::Var(v) = s { Some(v.name.clone()) } else { None }).collect();
        assert!(names.iter().any(|n| n.starts_with("%__warpsim_u_")), "{names:?}");
        assert_eq!(names.iter().filter(|n| *n == "%__warpsim_u0").count(), 1);
        assert!(crate::load(&src, "t.ptx").is_ok());
    }

    #[test]
    fn marked_and_other_loops_stay_rolled() {
        let nounroll = SUM.replace("$L__BB0_1:", ".pragma \"nounroll\";\n$L__BB0_1:");
        assert_eq!(body(&nounroll).iter().filter(|o| *o == "ld").count(), 4);
        let count_up = SUM.replace("add.s32 %r1, %r1, -1;", "add.s32 %r1, %r1, 1;");
        assert_eq!(body(&count_up).iter().filter(|o| *o == "ld").count(), 4);
        let reads_p = SUM.replace("add.s32 %r2, %r2, %r3;", "selp.b32 %r4, 1, 0, %p1;");
        assert_eq!(body(&reads_p).iter().filter(|o| *o == "ld").count(), 4);
        let guarded = SUM.replace("add.s32 %r2, %r2, %r3;", "@%p2 add.s32 %r2, %r2, %r3;");
        assert_eq!(body(&guarded).iter().filter(|o| *o == "ld").count(), 4);
        let vector = SUM.replace("ld.global.u32 %r3, [%rd1];", "ld.global.v2.u32 {%r3, %r5}, [%rd1];");
        assert_eq!(body(&vector).iter().filter(|o| *o == "ld").count(), 4);
        let barrier = SUM.replace("add.s64 %rd1, %rd1, 4;", "add.s64 %rd1, %rd1, 4;\n    bar.sync 0;");
        assert_eq!(body(&barrier).iter().filter(|o| *o == "ld").count(), 4);
    }
}
