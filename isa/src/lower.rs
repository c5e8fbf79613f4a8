//! Lowering: [`ast::Module`] → one [`Program`] per kernel entry.
//!
//! Resolves names in nested scopes (inline-asm blocks redeclare registers and labels), assigns
//! dense register indices, lays out kernel parameters, static shared memory, per-thread frames
//! (`.local` variables and `.param` call slots) and initialized globals, decodes every
//! instruction, checks each opcode's operand shapes (`validate.rs`) and register use against
//! instruction types, and finally builds the CFG and reconvergence points (`cfg.rs`). Every error
//! names file:line:column and the offending text.

use std::collections::HashMap;

use crate::ast::{self, FuncKind, Init, Space, Stmt, VarDecl};
use crate::cfg;
use crate::decode::{class_of, decode_op, dst_count, op_name};
use crate::error::PtxError;
use crate::inst::{flag, Base, Guard, Inst, Op, Opnd, SrcLoc};
use crate::lexer::Pos;
use crate::program::*;
use crate::types::{SReg, Ty};

/// Lowers every `.entry` of a module. `file` names the source in errors.
pub fn lower_module(m: &ast::Module, file: &str) -> Result<Vec<Program>, PtxError> {
    m.funcs.iter().filter(|f| f.kind == FuncKind::Entry && f.body.is_some()).map(|f| lower_kernel(m, f, file)).collect()
}

/// Parses and lowers in one step.
pub fn load(src: &str, file: &str) -> Result<Vec<Program>, PtxError> {
    let m = crate::parser::parse(src, file)?;
    lower_module(&m, file)
}

#[derive(Clone, Copy, Debug)]
enum Name {
    Reg(u32),
    Sym(u32),
    Label(u32),
    Table(u32),
    Proto,
}

struct Lowerer<'a> {
    file: &'a str,
    prog: Program,
    /// Module-scope names (symbols and functions).
    globals: HashMap<String, Name>,
    /// Label id → instruction index (u32::MAX until placed) and its position for errors.
    labels: Vec<(u32, Pos, String)>,
    raw_tables: Vec<Vec<(String, Pos)>>,
    table_scopes: Vec<Vec<HashMap<String, Name>>>,
    /// (parameters, return values) each function declares, by function index.
    arity: Vec<(usize, usize)>,
}

/// Virtual registers a kernel may declare, its device functions' included: 11× the most in the
/// corpus and the suite (1423), and at 256 bytes per register per warp already 4 MiB a warp.
pub const MAX_REGISTERS: u32 = 16384;
/// The constant bank kernels' `.const` variables share (64 KiB on every generation).
pub const CONST_BANK_BYTES: u64 = 64 * 1024;
/// The largest variable of any state space (its bytes live in the simulator's host memory
/// once written): 16 GiB, the manifests' limit for all buffers together too.
pub const MAX_VARIABLE_BYTES: u64 = 16 << 30;

fn perr(file: &str, pos: Pos, msg: String) -> PtxError {
    PtxError::new(file, pos, msg)
}

fn decl_ty(file: &str, d: &VarDecl) -> Result<Ty, PtxError> {
    Ty::parse(&d.ty).ok_or_else(|| perr(file, d.pos, format!("unsupported variable type `.{}` for `{}`", d.ty, d.name)))
}

/// Byte size of a declared variable (element type × vector × array dimensions); unsized arrays
/// count as zero.
fn decl_size(file: &str, d: &VarDecl) -> Result<u64, PtxError> {
    let elem = decl_ty(file, d)?.bytes() as u64 * d.vec as u64;
    let mut n = elem;
    for dim in &d.dims {
        match dim {
            Some(k) => n = n.checked_mul(*k).ok_or_else(|| perr(file, d.pos, format!("size of `{}` overflows", d.name)))?,
            None => return Ok(0),
        }
    }
    Ok(n)
}

fn align_up(v: u64, a: u64) -> u64 {
    v.div_ceil(a.max(1)) * a.max(1)
}

fn lower_kernel(m: &ast::Module, entry: &ast::Function, file: &str) -> Result<Program, PtxError> {
    let mut lw = Lowerer {
        file,
        prog: Program {
            name: entry.name.clone(),
            target: m.target.clone(),
            version: m.version,
            insts: Vec::new(),
            regs: Vec::new(),
            symbols: Vec::new(),
            funcs: Vec::new(),
            tables: Vec::new(),
            params: Vec::new(),
            param_bytes: 0,
            static_smem: 0,
            dynamic_smem_base: 0,
            directives: KernelDirectives::default(),
            blocks: Vec::new(),
            reconv: Vec::new(),
            files: m.files.clone(),
            nounroll: Vec::new(),
            ptx_file: file.to_string(),
            machine: Vec::new(),
            control: Vec::new(),
        },
        globals: HashMap::new(),
        labels: Vec::new(),
        raw_tables: Vec::new(),
        table_scopes: Vec::new(),
        arity: Vec::new(),
    };
    // Functions: the kernel is 0, then every .func in module order.
    // A function both declared and defined keeps only its definition.
    let defined = |name: &str| m.funcs.iter().any(|g| g.kind == FuncKind::Func && g.name == name && g.body.is_some());
    // Other kernels are named (`mov.u64 %rd, other_kernel`) but never lowered here: they count as
    // declarations.
    let mut seen = std::collections::HashSet::new();
    let funcs: Vec<&ast::Function> = std::iter::once(entry)
        .chain(m.funcs.iter().filter(|f| match f.kind {
            FuncKind::Func => f.body.is_some() || !defined(&f.name),
            FuncKind::Entry => f.name != entry.name,
        }))
        .filter(|f| seen.insert(f.name.clone()))
        .collect();
    for (i, f) in funcs.iter().enumerate() {
        let sym = lw.add_symbol(Symbol {
            name: f.name.clone(),
            kind: SymKind::Func,
            space: Space::Generic,
            size: 0,
            align: 1,
            offset: i as u64,
            func: 0,
            init: Vec::new(),
            relocs: Vec::new(),
            ty: Ty::B64,
        });
        if lw.globals.insert(f.name.clone(), Name::Sym(sym)).is_some() {
            return Err(perr(file, f.pos, format!("function `{}` is defined twice", f.name)));
        }
        lw.arity.push((f.params.len(), f.returns.len()));
        lw.prog.funcs.push(FuncInfo {
            name: f.name.clone(),
            start: 0,
            end: 0,
            frame_size: 0,
            frame_align: 1,
            params: Vec::new(),
            rets: Vec::new(),
            regs: (0, 0),
            extern_decl: f.body.is_none() || (i > 0 && f.kind == FuncKind::Entry),
        });
    }
    // Module variables.
    for v in &m.vars {
        lw.module_var(v)?;
    }
    // Initializer relocations need every symbol first.
    for v in &m.vars {
        lw.relocate(v)?;
    }
    // Kernel parameters.
    let mut off = 0u64;
    for p in &entry.params {
        let ty = decl_ty(file, p)?;
        let size = decl_size(file, p)?;
        let align = p.align.unwrap_or(ty.bytes().max(1)) as u64;
        off = align_up(off, align);
        let s = lw.add_symbol(Symbol {
            name: p.name.clone(),
            kind: SymKind::KernelParam,
            space: Space::Param,
            size,
            align: align as u32,
            offset: off,
            func: 0,
            init: Vec::new(),
            relocs: Vec::new(),
            ty,
        });
        lw.prog.params.push(s);
        off += size;
    }
    lw.prog.param_bytes = off;
    lw.prog.directives = directives(file, entry)?;
    // Bodies.
    for (i, f) in funcs.iter().enumerate() {
        if i == 0 || f.kind == FuncKind::Func {
            lw.function(i as u32, &crate::unroll::function(f))?;
        }
    }
    lw.resolve_labels()?;
    lw.layout_shared();
    let (blocks, reconv) = cfg::analyze(&lw.prog);
    lw.prog.blocks = blocks;
    lw.prog.reconv = reconv;
    crate::schedule::schedule(&mut lw.prog);
    Ok(lw.prog)
}

fn directives(file: &str, f: &ast::Function) -> Result<KernelDirectives, PtxError> {
    let mut d = KernelDirectives::default();
    let dim3 = |v: &[u64]| -> Result<[u32; 3], PtxError> {
        if v.is_empty() || v.len() > 3 || v.iter().any(|&x| x == 0 || x > u32::MAX as u64) {
            return Err(perr(file, f.pos, format!("bad dimensions {v:?} in a directive of `{}`", f.name)));
        }
        let g = |i: usize| v.get(i).copied().unwrap_or(1) as u32;
        Ok([g(0), g(1), g(2)])
    };
    let one = |v: &[u64]| v.first().map(|&x| x.min(u32::MAX as u64) as u32);
    for (name, vals) in &f.directives {
        match name.as_str() {
            "maxntid" => d.maxntid = Some(dim3(vals)?),
            "reqntid" => d.reqntid = Some(dim3(vals)?),
            "reqnctapercluster" => d.reqnctapercluster = Some(dim3(vals)?),
            "minnctapersm" => d.minnctapersm = one(vals),
            "maxnreg" => d.maxnreg = one(vals),
            "maxclusterrank" => d.maxclusterrank = one(vals),
            "explicitcluster" => d.explicitcluster = true,
            _ => {}
        }
    }
    Ok(d)
}

/// Appends the little-endian bytes of an initializer of element type `ty`.
fn init_bytes(
    file: &str,
    pos: Pos,
    ty: Ty,
    init: &Init,
    out: &mut Vec<u8>,
    syms: &mut Vec<(u64, String, i64, bool)>,
) -> Result<(), PtxError> {
    let n = ty.bytes() as usize;
    let push = |out: &mut Vec<u8>, v: u64| out.extend_from_slice(&v.to_le_bytes()[..n]);
    match init {
        Init::List(items) => {
            for it in items {
                init_bytes(file, pos, ty, it, out, syms)?;
            }
        }
        Init::Int(v) => push(out, *v as u64),
        Init::F32(b) => match ty {
            Ty::F64 => push(out, (f32::from_bits(*b) as f64).to_bits()),
            _ => push(out, *b as u64),
        },
        Init::F64(b) => match ty {
            Ty::F32 => push(out, (f64::from_bits(*b) as f32).to_bits() as u64),
            _ => push(out, *b),
        },
        Init::Float(f) => match ty {
            Ty::F32 => push(out, (*f as f32).to_bits() as u64),
            Ty::F64 => push(out, f.to_bits()),
            _ => return Err(perr(file, pos, format!("float initializer for a `.{}` variable", ty.name()))),
        },
        Init::Sym { name, offset, generic } => {
            if n < 4 {
                return Err(perr(file, pos, format!("address of `{name}` does not fit a `.{}` element", ty.name())));
            }
            syms.push((out.len() as u64, name.clone(), *offset, *generic));
            push(out, 0);
        }
    }
    Ok(())
}

impl<'a> Lowerer<'a> {
    fn add_symbol(&mut self, s: Symbol) -> u32 {
        self.prog.symbols.push(s);
        (self.prog.symbols.len() - 1) as u32
    }

    fn module_var(&mut self, v: &VarDecl) -> Result<(), PtxError> {
        let ty = decl_ty(self.file, v)?;
        let size = decl_size(self.file, v)?;
        let kind = match (v.space, v.linkage) {
            (Space::Shared, ast::Linkage::Extern) if v.dims.first() == Some(&None) => SymKind::DynShared,
            (Space::Shared, _) => SymKind::Shared,
            (Space::Global, _) => SymKind::Global,
            (Space::Const, _) => SymKind::Const,
            (s, _) => return Err(perr(self.file, v.pos, format!("module-scope variable `{}` in unsupported state space {s:?}", v.name))),
        };
        let mut init = Vec::new();
        if let Some(i) = &v.init {
            let mut syms = Vec::new();
            init_bytes(self.file, v.pos, ty, i, &mut init, &mut syms)?;
            if init.len() as u64 > size && size > 0 {
                return Err(perr(self.file, v.pos, format!("initializer of `{}` is larger than the variable", v.name)));
            }
        }
        if kind == SymKind::Const {
            let total = self.prog.symbols.iter().filter(|s| s.kind == SymKind::Const).map(|s| s.size).sum::<u64>() + size;
            if total > CONST_BANK_BYTES {
                return Err(perr(
                    self.file,
                    v.pos,
                    format!("`.const` variable `{}` ({size} bytes) brings the constant bank to {total} bytes; it holds {CONST_BANK_BYTES}", v.name),
                ));
            }
        }
        if size > MAX_VARIABLE_BYTES {
            return Err(perr(self.file, v.pos, format!("`{}` is {size} bytes; a variable may take at most {MAX_VARIABLE_BYTES} (16 GiB)", v.name)));
        }
        let s = self.add_symbol(Symbol {
            name: v.name.clone(),
            kind,
            space: v.space,
            size,
            align: v.align.unwrap_or(ty.bytes().max(1)),
            offset: 0,
            func: 0,
            init,
            relocs: Vec::new(),
            ty,
        });
        if self.globals.insert(v.name.clone(), Name::Sym(s)).is_some() {
            return Err(perr(self.file, v.pos, format!("`{}` is declared twice", v.name)));
        }
        Ok(())
    }

    fn relocate(&mut self, v: &VarDecl) -> Result<(), PtxError> {
        let Some(i) = &v.init else { return Ok(()) };
        let ty = decl_ty(self.file, v)?;
        let mut syms = Vec::new();
        init_bytes(self.file, v.pos, ty, i, &mut Vec::new(), &mut syms)?;
        let Some(Name::Sym(me)) = self.globals.get(&v.name).copied() else { return Ok(()) };
        for (off, name, add, generic) in syms {
            let Some(Name::Sym(target)) = self.globals.get(&name).copied() else {
                return Err(perr(self.file, v.pos, format!("initializer of `{}` names undeclared symbol `{name}`", v.name)));
            };
            self.prog.symbols[me as usize].relocs.push((off, target, add, generic));
        }
        Ok(())
    }

    fn new_label(&mut self, name: &str, pos: Pos) -> u32 {
        self.labels.push((u32::MAX, pos, name.to_string()));
        (self.labels.len() - 1) as u32
    }

    fn function(&mut self, fi: u32, f: &ast::Function) -> Result<(), PtxError> {
        let reg_start = self.prog.regs.len() as u32;
        let start = self.prog.insts.len() as u32;
        let mut frame = Frame { size: 0, align: 1 };
        let mut scope: HashMap<String, Name> = HashMap::new();
        if fi > 0 {
            for (list, is_ret) in [(&f.params, false), (&f.returns, true)] {
                for p in list {
                    let s = self.frame_symbol(fi, p, &mut frame)?;
                    scope.insert(p.name.clone(), Name::Sym(s));
                    let fun = &mut self.prog.funcs[fi as usize];
                    if is_ret {
                        fun.rets.push(s);
                    } else {
                        fun.params.push(s);
                    }
                }
            }
        } else {
            for &s in &self.prog.params {
                scope.insert(self.prog.symbols[s as usize].name.clone(), Name::Sym(s));
            }
        }
        if let Some(body) = &f.body {
            let mut scopes = vec![scope];
            let mut loc = SrcLoc::default();
            self.block(fi, body, &mut scopes, &mut frame, &mut loc)?;
        }
        let end = self.prog.insts.len() as u32;
        let fun = &mut self.prog.funcs[fi as usize];
        fun.start = start;
        fun.end = end;
        fun.frame_size = align_up(frame.size, frame.align as u64);
        fun.frame_align = frame.align;
        fun.regs = (reg_start, self.prog.regs.len() as u32);
        Ok(())
    }

    fn frame_symbol(&mut self, fi: u32, v: &VarDecl, frame: &mut Frame) -> Result<u32, PtxError> {
        let ty = decl_ty(self.file, v)?;
        let size = decl_size(self.file, v)?;
        let align = v.align.unwrap_or(ty.bytes().max(1));
        frame.align = frame.align.max(align);
        let off = align_up(frame.size, align as u64);
        frame.size = off + size;
        Ok(self.add_symbol(Symbol {
            name: v.name.clone(),
            kind: SymKind::Frame,
            space: v.space,
            size,
            align,
            offset: off,
            func: fi,
            init: Vec::new(),
            relocs: Vec::new(),
            ty,
        }))
    }

    fn lookup(&self, scopes: &[HashMap<String, Name>], name: &str) -> Option<Name> {
        scopes.iter().rev().find_map(|s| s.get(name).copied()).or_else(|| self.globals.get(name).copied())
    }

    fn block(
        &mut self,
        fi: u32,
        body: &[Stmt],
        scopes: &mut Vec<HashMap<String, Name>>,
        frame: &mut Frame,
        loc: &mut SrcLoc,
    ) -> Result<(), PtxError> {
        // Labels of this scope are visible before their definition.
        let mut here: HashMap<String, Name> = HashMap::new();
        for s in body {
            match s {
                Stmt::Label(name, pos) => {
                    if here.contains_key(name) {
                        return Err(perr(self.file, *pos, format!("label `{name}` defined twice")));
                    }
                    let id = self.new_label(name, *pos);
                    here.insert(name.clone(), Name::Label(id));
                }
                Stmt::BranchTargets { label, targets, pos } => {
                    self.raw_tables.push(targets.iter().map(|t| (t.clone(), *pos)).collect());
                    self.prog.tables.push(Vec::new());
                    here.insert(label.clone(), Name::Table((self.raw_tables.len() - 1) as u32));
                }
                Stmt::CallPrototype { label, .. } => {
                    here.insert(label.clone(), Name::Proto);
                }
                _ => {}
            }
        }
        scopes.push(here);
        for s in body {
            match s {
                Stmt::Label(name, _) => {
                    if let Some(Name::Label(id)) = scopes.last().and_then(|h| h.get(name)).copied() {
                        self.labels[id as usize].0 = self.prog.insts.len() as u32;
                    }
                }
                Stmt::BranchTargets { .. } => {
                    // Resolve table targets in the scope where the table is declared.
                    let t = self.table_scopes.len();
                    if t < self.raw_tables.len() {
                        self.table_scopes.push(scopes.clone());
                    }
                }
                Stmt::Pragma(words, _) if words.iter().any(|w| w == "nounroll") => {
                    self.prog.nounroll.push(self.prog.insts.len() as u32);
                }
                Stmt::CallPrototype { .. } | Stmt::Pragma(..) => {}
                Stmt::Loc(l) => {
                    loc.file = l.file;
                    loc.line = l.line;
                    loc.col = l.col;
                }
                Stmt::Var(v) => self.body_var(fi, v, scopes, frame)?,
                Stmt::Block(b) => self.block(fi, b, scopes, frame, loc)?,
                Stmt::Inst(i) => {
                    let inst = self.inst(i, scopes, *loc)?;
                    self.prog.insts.push(inst);
                }
            }
        }
        scopes.pop();
        Ok(())
    }

    fn body_var(
        &mut self,
        fi: u32,
        v: &VarDecl,
        scopes: &mut [HashMap<String, Name>],
        frame: &mut Frame,
    ) -> Result<(), PtxError> {
        let scope = scopes.last_mut().expect("a scope is open");
        match v.space {
            Space::Reg => {
                let ty = decl_ty(self.file, v)?;
                let ty = if v.vec > 1 {
                    return Err(perr(self.file, v.pos, format!("vector registers (`.v{}`) are not supported", v.vec)));
                } else {
                    ty
                };
                let declared = self.prog.regs.len() as u64 + u64::from(v.range.unwrap_or(1));
                if declared > MAX_REGISTERS as u64 {
                    let what = v.range.map_or(v.name.clone(), |n| format!("{}<{n}>", v.name));
                    return Err(perr(
                        self.file,
                        v.pos,
                        format!("`.reg .{} {what}` makes {declared} registers; a kernel and its functions may declare at most {MAX_REGISTERS}", v.ty),
                    ));
                }
                let mut add = |name: String, regs: &mut Vec<RegInfo>| {
                    regs.push(RegInfo { name: name.clone(), ty, func: fi });
                    scope.insert(name, Name::Reg((regs.len() - 1) as u32));
                };
                match v.range {
                    Some(n) => {
                        for k in 0..n {
                            add(format!("{}{}", v.name, k), &mut self.prog.regs);
                        }
                    }
                    None => add(v.name.clone(), &mut self.prog.regs),
                }
                Ok(())
            }
            Space::Local | Space::Param => {
                let s = self.frame_symbol(fi, v, frame)?;
                scopes.last_mut().expect("a scope is open").insert(v.name.clone(), Name::Sym(s));
                Ok(())
            }
            Space::Shared | Space::Global | Space::Const => {
                self.module_var(v)?;
                // module_var registers the name globally; function-scope statics are unique
                // (nvcc mangles them), so the global table is where they belong.
                Ok(())
            }
            s => Err(perr(self.file, v.pos, format!("variable `{}` in unsupported state space {s:?}", v.name))),
        }
    }

    fn inst(&mut self, ai: &ast::Instruction, scopes: &[HashMap<String, Name>], loc: SrcLoc) -> Result<Inst, PtxError> {
        let (op, m) = decode_op(&ai.opcode, &ai.mods, self.file, ai.pos)?;
        let guard = match &ai.guard {
            None => None,
            Some((neg, name, pos)) => match self.lookup(scopes, name) {
                Some(Name::Reg(r)) if self.prog.regs[r as usize].ty == Ty::Pred => Some(Guard { reg: r, neg: *neg }),
                Some(Name::Reg(_)) => return Err(perr(self.file, *pos, format!("guard `{name}` is not a predicate register"))),
                _ => return Err(perr(self.file, *pos, format!("undeclared guard predicate `{name}`"))),
            },
        };
        let mut ops = Vec::with_capacity(ai.operands.len());
        for o in &ai.operands {
            ops.push(self.operand(o, op, &m, scopes)?);
        }
        crate::validate::operands(self.file, ai, op, &ops)?;
        crate::validate::forms(self.file, ai, op, &m, &ops, &|f| self.arity.get(f as usize).copied())?;
        let ndst = dst_count(op, &m).min(ops.len() as u8);
        self.check_types(ai, op, &m, &ops)?;
        let mut defs = Vec::new();
        let mut uses = Vec::new();
        for (i, o) in ops.iter().enumerate() {
            if i < ndst as usize {
                match o {
                    Opnd::Reg(r) => defs.push(*r),
                    Opnd::Vec(v) => v.iter().for_each(|x| {
                        if let Opnd::Reg(r) = x {
                            defs.push(*r)
                        }
                    }),
                    other => other.regs(&mut uses),
                }
            } else {
                o.regs(&mut uses);
            }
        }
        // mma/wgmma accumulate into their destination registers: they read them too.
        if matches!(op, Op::Matrix(crate::inst::MatrixOp::WgmmaMma)) {
            uses.extend(defs.iter().copied());
        }
        if let Some(g) = guard {
            uses.push(g.reg);
        }
        let class = class_of(op, &m);
        Ok(Inst { op, m, guard, ops, ndst, class, loc: SrcLoc { ptx: ai.pos, ..loc }, defs, uses })
    }

    fn operand(&mut self, o: &ast::Operand, op: Op, m: &crate::inst::Mods, scopes: &[HashMap<String, Name>]) -> Result<Opnd, PtxError> {
        use ast::OperandKind as K;
        let reg_or_err = |lw: &Self, name: &str| -> Result<u32, PtxError> {
            match lw.lookup(scopes, name) {
                Some(Name::Reg(r)) => Ok(r),
                Some(_) => Err(perr(lw.file, o.pos, format!("`{name}` is not a register"))),
                None => Err(perr(lw.file, o.pos, format!("undeclared register `{name}`"))),
            }
        };
        Ok(match &o.kind {
            K::Name(name, comp) => {
                if let Some(s) = SReg::parse(name, comp.as_deref()) {
                    return Ok(Opnd::Special(s));
                }
                if comp.is_some() {
                    return Err(perr(self.file, o.pos, format!("unknown special register or component `{name}.{}`", comp.as_deref().unwrap_or(""))));
                }
                match self.lookup(scopes, name) {
                    Some(Name::Reg(r)) => Opnd::Reg(r),
                    Some(Name::Sym(s)) => {
                        if self.prog.symbols[s as usize].kind == SymKind::Func && matches!(op, Op::Call) {
                            Opnd::Func(self.prog.symbols[s as usize].offset as u32)
                        } else {
                            Opnd::SymAddr(s, 0)
                        }
                    }
                    Some(Name::Label(l)) => Opnd::Label(l),
                    Some(Name::Table(t)) => Opnd::Table(t),
                    Some(Name::Proto) => Opnd::Sink,
                    None if name.starts_with('%') => {
                        return Err(perr(self.file, o.pos, format!("undeclared register `{name}`")))
                    }
                    None => return Err(perr(self.file, o.pos, format!("undeclared symbol or label `{name}`"))),
                }
            }
            K::Not(name) => Opnd::NotReg(reg_or_err(self, name)?),
            K::Pair(a, b) => {
                let first = if a == "_" { Opnd::Sink } else { Opnd::Reg(reg_or_err(self, a)?) };
                Opnd::Vec(vec![first, Opnd::Reg(reg_or_err(self, b)?)])
            }
            K::Int(v) => {
                if *v < i64::MIN as i128 || *v > u64::MAX as i128 {
                    return Err(perr(self.file, o.pos, format!("immediate {v} does not fit 64 bits")));
                }
                Opnd::Imm(*v as u64)
            }
            K::F32(b) => Opnd::Imm(match m.ty() {
                Ty::F64 => (f32::from_bits(*b) as f64).to_bits(),
                _ => *b as u64,
            }),
            K::F64(b) => Opnd::Imm(match m.ty() {
                Ty::F32 => (f64::from_bits(*b) as f32).to_bits() as u64,
                _ => *b,
            }),
            K::Addr { base, offset, coords } => {
                let b = match base {
                    None => Base::None,
                    Some(n) => match self.lookup(scopes, n) {
                        Some(Name::Reg(r)) => Base::Reg(r),
                        Some(Name::Sym(s)) => Base::Sym(s),
                        Some(_) => return Err(perr(self.file, o.pos, format!("`{n}` cannot be an address"))),
                        None => return Err(perr(self.file, o.pos, format!("undeclared address base `{n}`"))),
                    },
                };
                match coords {
                    None => Opnd::Addr { base: b, offset: *offset },
                    Some(cs) => {
                        let mut v = Vec::new();
                        for c in cs {
                            v.push(self.operand(c, op, m, scopes)?);
                        }
                        Opnd::Tensor { base: b, coords: v }
                    }
                }
            }
            K::Vector(items) | K::List(items) => {
                let mut v = Vec::new();
                for c in items {
                    v.push(self.operand(c, op, m, scopes)?);
                }
                if matches!(o.kind, K::Vector(_)) {
                    Opnd::Vec(v)
                } else {
                    Opnd::List(v)
                }
            }
            K::Sink => Opnd::Sink,
            K::SymOffset(name, off) => match self.lookup(scopes, name) {
                Some(Name::Sym(s)) => Opnd::SymAddr(s, *off),
                _ => return Err(perr(self.file, o.pos, format!("`{name}` is not a symbol, so `{name}{off:+}` is meaningless"))),
            },
        })
    }

    /// Register width checks for instructions whose operand types follow from their type
    /// modifier. `ld`, `st` and `cvt` may use wider registers (PTX's relaxed rule).
    fn check_types(&self, ai: &ast::Instruction, op: Op, m: &crate::inst::Mods, ops: &[Opnd]) -> Result<(), PtxError> {
        let Some(&ty) = m.types.first() else { return Ok(()) };
        let w = ty.bits();
        let wide = m.has(flag::WIDE);
        // Expected width per operand position (0 = unchecked, 1 = predicate).
        let expect: Vec<u32> = match op {
            Op::Add | Op::Sub | Op::Min | Op::Max | Op::And | Op::Or | Op::Xor | Op::Not | Op::Cnot | Op::Abs | Op::Neg
            | Op::Div | Op::Rem | Op::Rcp | Op::Sqrt | Op::Rsqrt | Op::Sin | Op::Cos | Op::Lg2 | Op::Ex2 | Op::Tanh
            | Op::Fma | Op::Copysign | Op::Popc | Op::Brev | Op::Addc | Op::Subc => {
                let mut e = vec![w; ops.len()];
                if matches!(op, Op::Popc) && !e.is_empty() {
                    e[0] = 32;
                }
                e
            }
            Op::Mul | Op::Mad => {
                let mut e = vec![w; ops.len()];
                if wide && !e.is_empty() {
                    e[0] = 2 * w;
                    if op == Op::Mad && e.len() > 3 {
                        e[3] = 2 * w;
                    }
                }
                e
            }
            Op::Shl | Op::Shr => vec![w, w, 32],
            Op::Setp => {
                let mut e = vec![1, w, w];
                e.extend(std::iter::repeat_n(1, ops.len().saturating_sub(3)));
                e
            }
            Op::Selp => vec![w, w, w, 1],
            _ => return Ok(()),
        };
        for (i, (o, &want)) in ops.iter().zip(expect.iter()).enumerate() {
            let regs: Vec<u32> = match o {
                Opnd::Reg(r) | Opnd::NotReg(r) => vec![*r],
                Opnd::Vec(v) if i == 0 => v.iter().filter_map(|x| if let Opnd::Reg(r) = x { Some(*r) } else { None }).take(1).collect(),
                _ => continue,
            };
            for r in regs {
                let info = &self.prog.regs[r as usize];
                let have = info.ty.bits();
                let bad = if want == 1 { info.ty != Ty::Pred } else { info.ty == Ty::Pred || have != want };
                if bad {
                    let pos = ai.operands.get(i).map_or(ai.pos, |o| o.pos);
                    let what = if want == 1 { "a predicate".to_string() } else { format!("a {want}-bit register") };
                    return Err(perr(
                        self.file,
                        pos,
                        format!(
                            "type mismatch: `{}` is declared `.{}` but operand {} of `{}.{}` needs {what}",
                            info.name,
                            info.ty.name(),
                            i + 1,
                            op_name(op),
                            ty.name()
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    fn resolve_labels(&mut self) -> Result<(), PtxError> {
        for (id, (pc, pos, name)) in self.labels.iter().enumerate() {
            if *pc == u32::MAX {
                return Err(perr(self.file, *pos, format!("label `{name}` (#{id}) is not placed")));
            }
        }
        for inst in &mut self.prog.insts {
            for o in &mut inst.ops {
                if let Opnd::Label(l) = o {
                    *l = self.labels[*l as usize].0;
                }
            }
        }
        for (t, raw) in self.raw_tables.iter().enumerate() {
            let scopes = self.table_scopes.get(t).cloned().unwrap_or_default();
            let mut out = Vec::new();
            for (name, pos) in raw {
                match scopes.iter().rev().find_map(|s| s.get(name).copied()) {
                    Some(Name::Label(l)) => out.push(self.labels[l as usize].0),
                    _ => return Err(perr(self.file, *pos, format!("branch target `{name}` is not a label"))),
                }
            }
            self.prog.tables[t] = out;
        }
        Ok(())
    }

    /// Static shared layout: the variables the program names, in declaration order.
    fn layout_shared(&mut self) {
        let mut used = vec![false; self.prog.symbols.len()];
        for inst in &self.prog.insts {
            for o in &inst.ops {
                mark(o, &mut used);
            }
        }
        for s in &self.prog.symbols {
            for r in &s.relocs {
                used[r.1 as usize] = true;
            }
        }
        let mut off = 0u64;
        for (i, s) in self.prog.symbols.iter_mut().enumerate() {
            if s.kind == SymKind::Shared && used[i] {
                off = align_up(off, s.align as u64);
                s.offset = off;
                off += s.size;
            }
        }
        self.prog.static_smem = off;
        let align = self.prog.symbols.iter().filter(|s| s.kind == SymKind::DynShared).map(|s| s.align as u64).fold(16, u64::max);
        let dyn_base = align_up(off, align);
        self.prog.dynamic_smem_base = dyn_base;
        for s in self.prog.symbols.iter_mut().filter(|s| s.kind == SymKind::DynShared) {
            s.offset = dyn_base;
        }
    }
}

fn mark(o: &Opnd, used: &mut [bool]) {
    match o {
        Opnd::SymAddr(s, _) | Opnd::Addr { base: Base::Sym(s), .. } | Opnd::Tensor { base: Base::Sym(s), .. } => used[*s as usize] = true,
        Opnd::Vec(v) | Opnd::List(v) => v.iter().for_each(|x| mark(x, used)),
        _ => {}
    }
}

struct Frame {
    size: u64,
    align: u32,
}

#[cfg(test)]
mod tests {
    use super::*;

    const K: &str = r#"
.version 9.0
.target sm_90
.address_size 64
.global .align 4 .u32 g[2] = {7, 9};
.global .align 8 .u64 gp = g;
.func (.param .b32 r) f(.param .b32 a)
{
	.reg .b32 %r<3>;
	ld.param.u32 %r1, [a];
	add.s32 %r2, %r1, 1;
	st.param.b32 [r], %r2;
	ret;
}
.visible .entry k(.param .u64 p0, .param .u32 p1)
{
	.reg .pred %p<2>;
	.reg .b32 %r<4>;
	.reg .b64 %rd<3>;
	.shared .align 8 .b8 sm[100];
	ld.param.u32 %r1, [p1];
	setp.lt.s32 %p1, %r1, 5;
	@%p1 bra $L1;
	{
	.reg .b32 %r1;
	mov.u32 %r1, 3;
$L1:
	add.s32 %r1, %r1, 1;
	}
$L1:
	{
	.param .b32 q;
	.param .b32 rv;
	st.param.b32 [q], %r1;
	call.uni (rv), f, (q);
	ld.param.b32 %r2, [rv];
	}
	mov.u64 %rd1, sm;
	ret;
}
"#;

    #[test]
    fn lowers_scopes_labels_frames_and_symbols() {
        let progs = load(K, "k.ptx").unwrap();
        assert_eq!(progs.len(), 1);
        let p = &progs[0];
        assert_eq!(p.name, "k");
        assert_eq!(p.funcs.len(), 2);
        assert_eq!(p.param_bytes, 12);
        // The inner `%r1` is a different register from the outer one.
        let regs_named_r1: Vec<_> = p.regs.iter().filter(|r| r.name == "%r1").collect();
        assert_eq!(regs_named_r1.len(), 3);
        // `@%p1 bra $L1` inside the kernel body targets the outer label (after the block).
        let bra = p.insts.iter().position(|i| i.op == Op::Bra).unwrap();
        let Opnd::Label(t) = p.insts[bra].ops[0] else { panic!() };
        assert_eq!(p.insts[t as usize].op, Op::St);
        // Call resolves the function and its frame layout.
        let call = p.insts.iter().find(|i| i.op == Op::Call).unwrap();
        assert!(matches!(call.ops[1], Opnd::Func(1)));
        assert_eq!(p.funcs[1].params.len(), 1);
        assert_eq!(p.funcs[1].rets.len(), 1);
        assert_eq!(p.funcs[0].frame_size, 8);
        // Static shared memory is laid out; the global pointer is relocated.
        assert_eq!(p.static_smem, 100);
        let gp = p.symbols.iter().find(|s| s.name == "gp").unwrap();
        assert_eq!(gp.relocs.len(), 1);
        let g = p.symbols.iter().find(|s| s.name == "g").unwrap();
        assert_eq!(g.init, vec![7, 0, 0, 0, 9, 0, 0, 0]);
        assert!(p.insts.iter().all(|i| i.loc.ptx.line > 0));
    }

    fn lower_err(body: &str) -> String {
        let src = format!(".version 9.0\n.target sm_90\n.entry k()\n{{\n.reg .b32 %r<4>;\n.reg .b64 %rd<2>;\n.reg .pred %p;\n{body}\n}}\n");
        load(&src, "e.ptx").unwrap_err().to_string()
    }

    #[test]
    fn errors_have_positions_and_names() {
        let e = lower_err("add.s32 %r1, %r9, 1;");
        assert!(e.starts_with("e.ptx:8:14:") && e.contains("undeclared register `%r9`"), "{e}");
        let e = lower_err("add.s64 %rd1, %r1, 1;");
        assert!(e.contains("type mismatch") && e.contains("%r1"), "{e}");
        let e = lower_err("frob.s32 %r1;");
        assert!(e.contains("unknown opcode `frob`"), "{e}");
        let e = lower_err("bra $nowhere;");
        assert!(e.contains("undeclared symbol or label `$nowhere`"), "{e}");
        let e = lower_err("@%r1 bra $x;\n$x:\nret;");
        assert!(e.contains("not a predicate"), "{e}");
        let e = lower_err("setp.eq.s32 %r1, %r2, %r3;");
        assert!(e.contains("needs a predicate"), "{e}");
    }

    /// Sizes from the input are checked before anything is allocated: a register range of 10^8
    /// is an error at its declaration (it took 90 s and 3.9 GB to fail), a 4 GiB global
    /// is not materialized as 4 GiB of zeros, and the constant bank holds 64 KiB.
    #[test]
    fn sizes_are_bounded_before_allocation() {
        let e = lower_err(".reg .b32 %q<100000000>;");
        assert_eq!(e, "e.ptx:8:1: `.reg .b32 %q<100000000>` makes 100000007 registers; a kernel and its functions may declare at most 16384");
        // 16384 in all (7 declared by the test's body) is fine: the error is the next line's.
        assert!(lower_err(".reg .b32 %q<16377>;\nfrob;").contains("unknown opcode `frob`"));
        let module = |decl: &str| format!(".version 9.0\n.target sm_90\n{decl}\n.entry k()\n{{\nret;\n}}\n");
        let t = std::time::Instant::now();
        let p = load(&module(".global .b8 g[4294967295];"), "e.ptx").unwrap().remove(0);
        assert!(p.symbols.iter().any(|s| s.name == "g" && s.size == 4294967295 && s.init.is_empty()));
        assert!(t.elapsed().as_secs() < 5);
        let e = load(&module(".global .b8 g[17179869185];"), "e.ptx").unwrap_err().to_string();
        assert_eq!(e, "e.ptx:3:1: `g` is 17179869185 bytes; a variable may take at most 17179869184 (16 GiB)");
        let e = load(&module(".const .b8 c0[40000];\n.const .b8 c1[40000];"), "e.ptx").unwrap_err().to_string();
        assert!(e.starts_with("e.ptx:4:1: `.const` variable `c1` (40000 bytes) brings the constant bank to 80000 bytes; it holds 65536"), "{e}");
        load(&module(".const .b8 c0[65536];"), "e.ptx").unwrap();
    }
}
