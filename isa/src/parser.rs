//! Recursive-descent PTX parser: tokens → [`ast::Module`].
//!
//! Accepts the PTX that nvcc 13 / NVRTC emit for sm_70…sm_90a (ISA 8.x/9.x), including `-G`
//! debug sections (kept opaque: their contents are checked to be balanced, then dropped) and
//! inline-asm scopes. Every error carries the position of the offending token and its text.

use crate::ast::*;
use crate::error::PtxError;
use crate::lexer::{tokenize, Pos, Tok, Token};

/// Parses PTX source text. `file` names the source in error messages.
pub fn parse(src: &str, file: &str) -> Result<Module, PtxError> {
    let toks = tokenize(src).map_err(|(pos, msg)| PtxError::new(file, pos, msg))?;
    let mut p = Parser { toks: &toks, i: 0, file, end: end_pos(src), depth: 0 };
    p.module()
}

fn end_pos(src: &str) -> Pos {
    let line = src.lines().count().max(1) as u32;
    let col = src.lines().last().map_or(0, |l| l.chars().count()) as u32 + 1;
    Pos { line, col }
}

struct Parser<'t, 'a> {
    toks: &'t [Token<'a>],
    i: usize,
    file: &'t str,
    end: Pos,
    /// Blocks, vectors, lists and initializers open around the current token.
    depth: u32,
}

/// Deepest nesting of blocks, operand vectors and lists, and initializers: far beyond what
/// compilers emit (inline-asm scopes nest a few deep), and an error, not a stack overflow,
/// past it.
pub const MAX_NESTING: u32 = 256;

type PResult<T> = Result<T, PtxError>;

const SPACES: &[(&str, Space)] = &[
    (".reg", Space::Reg),
    (".sreg", Space::Sreg),
    (".const", Space::Const),
    (".global", Space::Global),
    (".local", Space::Local),
    (".param", Space::Param),
    (".shared", Space::Shared),
    (".shared::cta", Space::Shared),
    (".shared::cluster", Space::SharedCluster),
    (".tex", Space::Tex),
];

fn space_of(word: &str) -> Option<Space> {
    SPACES.iter().find(|(w, _)| *w == word).map(|(_, s)| *s)
}

const VAR_TYPES: &[&str] = &[
    "b8", "b16", "b32", "b64", "b128", "u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "f16", "f16x2",
    "bf16", "bf16x2", "f32", "f64", "pred", "texref", "samplerref", "surfref",
];

impl<'t, 'a> Parser<'t, 'a> {
    fn peek(&self) -> Option<Tok<'a>> {
        self.toks.get(self.i).map(|t| t.tok)
    }
    fn peek_at(&self, k: usize) -> Option<Tok<'a>> {
        self.toks.get(self.i + k).map(|t| t.tok)
    }
    fn pos(&self) -> Pos {
        self.toks.get(self.i).map_or(self.end, |t| t.pos)
    }
    fn bump(&mut self) -> Option<Token<'a>> {
        let t = self.toks.get(self.i).copied();
        self.i += 1;
        t
    }
    fn err<T>(&self, msg: impl Into<String>) -> PResult<T> {
        let msg = msg.into();
        let found = match self.toks.get(self.i) {
            Some(t) => format!("found {}", t.tok.describe()),
            None => "found end of file".to_string(),
        };
        Err(PtxError::new(self.file, self.pos(), format!("{msg}, {found}")))
    }
    fn eat(&mut self, t: Tok<'_>) -> bool {
        if self.peek() == Some(t) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    fn expect(&mut self, t: Tok<'_>, what: &str) -> PResult<()> {
        if self.eat(t) {
            Ok(())
        } else {
            self.err(format!("expected {what}"))
        }
    }
    fn eat_dot(&mut self, word: &str) -> bool {
        if self.peek() == Some(Tok::Dot(word)) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    /// Runs `f` one nesting level deeper; `pos` is the opening bracket's position.
    fn nested<T>(&mut self, pos: Pos, what: &str, f: impl FnOnce(&mut Self) -> PResult<T>) -> PResult<T> {
        if self.depth >= MAX_NESTING {
            return Err(PtxError::new(self.file, pos, format!("{what} nested more than {MAX_NESTING} deep")));
        }
        self.depth += 1;
        let r = f(self);
        self.depth -= 1;
        r
    }

    /// One or more items separated by `,`.
    fn comma_separated<T>(&mut self, mut item: impl FnMut(&mut Self) -> PResult<T>) -> PResult<Vec<T>> {
        let mut items = vec![item(self)?];
        while self.eat(Tok::Comma) {
            items.push(item(self)?);
        }
        Ok(items)
    }
    /// Items separated by `,` up to and including `close` (none when `close` comes first); `what`
    /// names the expected separator in the error.
    fn list_until<T>(
        &mut self,
        close: Tok<'_>,
        what: &str,
        mut item: impl FnMut(&mut Self) -> PResult<T>,
    ) -> PResult<Vec<T>> {
        let mut items = Vec::new();
        if self.eat(close) {
            return Ok(items);
        }
        loop {
            items.push(item(self)?);
            if self.eat(close) {
                return Ok(items);
            }
            self.expect(Tok::Comma, what)?;
        }
    }
    /// Kernel-parameter attributes that follow `.ptr` (`.align N`, state spaces; and `.ptr`
    /// itself when `ptr_too`), pushed to `attrs` as in the AST (`align 16`, `global`, `ptr`).
    fn ptr_attrs(&mut self, attrs: &mut Vec<String>, ptr_too: bool) -> PResult<()> {
        while let Some(Tok::Dot(w)) = self.peek() {
            if ptr_too && w == ".ptr" {
                self.i += 1;
                attrs.push("ptr".to_string());
            } else if w == ".align" {
                self.i += 1;
                let a = self.uint32("an alignment")?;
                attrs.push(format!("align {a}"));
            } else if space_of(w).is_some() {
                self.i += 1;
                attrs.push(w[1..].to_string());
            } else {
                break;
            }
        }
        Ok(())
    }
    fn ident(&mut self, what: &str) -> PResult<String> {
        match self.peek() {
            Some(Tok::Ident(s)) => {
                self.i += 1;
                Ok(s.to_string())
            }
            _ => self.err(format!("expected {what}")),
        }
    }
    fn uint(&mut self, what: &str) -> PResult<u64> {
        match self.peek() {
            Some(Tok::Int((v, _))) => {
                self.i += 1;
                Ok(v)
            }
            _ => self.err(format!("expected {what}")),
        }
    }
    fn uint32(&mut self, what: &str) -> PResult<u32> {
        let pos = self.pos();
        let v = self.uint(what)?;
        u32::try_from(v).map_err(|_| PtxError::new(self.file, pos, format!("{what} {v} is out of range")))
    }

    fn module(&mut self) -> PResult<Module> {
        let mut m = Module { address_size: 64, ..Default::default() };
        let mut seen_version = false;
        while let Some(tok) = self.peek() {
            match tok {
                Tok::Dot(".version") => {
                    self.i += 1;
                    match self.bump().map(|t| (t.tok, t.text, t.pos)) {
                        Some((Tok::Float(_), text, pos)) => {
                            let (a, b) = text.split_once('.').unwrap_or((text, "0"));
                            m.version = (a.parse().unwrap_or(0), b.parse().unwrap_or(0));
                            crate::validate::version(self.file, pos, text, m.version)?;
                        }
                        _ => {
                            self.i -= 1;
                            return self.err("expected a version number like 9.0 after .version");
                        }
                    }
                    seen_version = true;
                }
                Tok::Dot(".target") => {
                    self.i += 1;
                    let targets = self.comma_separated(|p| {
                        let pos = p.pos();
                        p.ident("a target name such as sm_90").map(|t| (t, pos))
                    })?;
                    for (t, pos) in targets {
                        crate::validate::target(self.file, pos, &t)?;
                        m.target.push(t);
                    }
                }
                Tok::Dot(".address_size") => {
                    self.i += 1;
                    m.address_size = self.uint32("an address size")?;
                }
                Tok::Dot(".file") => {
                    let (n, name) = self.file_directive()?;
                    m.files.push((n, name));
                }
                Tok::Dot(".loc") => {
                    self.loc()?;
                }
                Tok::Dot(".section") => self.section()?,
                Tok::Dot(".pragma") => {
                    self.pragma()?;
                }
                _ => self.module_item(&mut m)?,
            }
        }
        if !seen_version {
            return Err(PtxError::new(self.file, Pos { line: 1, col: 1 }, "missing `.version` directive".into()));
        }
        Ok(m)
    }

    fn file_directive(&mut self) -> PResult<(u32, String)> {
        self.i += 1; // .file
        let n = self.uint32("a file number")?;
        let name = match self.peek() {
            Some(Tok::Str(s)) => {
                self.i += 1;
                s.to_string()
            }
            _ => return self.err("expected a file name string"),
        };
        // Optional `, timestamp, size`.
        while self.eat(Tok::Comma) {
            self.uint("a file timestamp or size")?;
        }
        Ok((n, name))
    }

    fn loc(&mut self) -> PResult<Loc> {
        self.i += 1; // .loc
        let file = self.uint32("a file number")?;
        let line = self.uint32("a line number")?;
        let col = self.uint32("a column number")?;
        // `, function_name $L__info_string0, inlined_at 1 2 3`
        while self.peek() == Some(Tok::Comma) && matches!(self.peek_at(1), Some(Tok::Ident(_))) {
            self.i += 1;
            let key = self.ident("a .loc attribute")?;
            match key.as_str() {
                "function_name" => {
                    self.ident("a function name label")?;
                    if self.eat(Tok::Plus) {
                        self.uint("an offset")?;
                    }
                }
                "inlined_at" => {
                    for what in ["a file number", "a line number", "a column number"] {
                        self.uint(what)?;
                    }
                }
                _ => {
                    self.i -= 1;
                    return self.err("unknown .loc attribute");
                }
            }
        }
        Ok(Loc { file, line, col })
    }

    /// `.section .debug_x { … }` — kept opaque.
    fn section(&mut self) -> PResult<()> {
        self.i += 1;
        match self.peek() {
            Some(Tok::Dot(_)) | Some(Tok::Ident(_)) => self.i += 1,
            _ => return self.err("expected a section name"),
        }
        self.expect(Tok::LBrace, "`{` opening the section")?;
        let mut depth = 1;
        while depth > 0 {
            match self.bump().map(|t| t.tok) {
                Some(Tok::LBrace) => depth += 1,
                Some(Tok::RBrace) => depth -= 1,
                Some(_) => {}
                None => return self.err("unterminated .section"),
            }
        }
        Ok(())
    }

    fn pragma(&mut self) -> PResult<Vec<String>> {
        let pos = self.pos();
        self.i += 1;
        let words = self.comma_separated(|p| match p.peek() {
            Some(Tok::Str(s)) => {
                p.i += 1;
                Ok(s.to_string())
            }
            _ => p.err("expected a pragma string"),
        })?;
        if !self.eat(Tok::Semi) {
            return Err(PtxError::new(self.file, pos, "expected `;` after .pragma".into()));
        }
        Ok(words)
    }

    fn linkage(&mut self) -> Linkage {
        let l = match self.peek() {
            Some(Tok::Dot(".visible")) => Linkage::Visible,
            Some(Tok::Dot(".extern")) => Linkage::Extern,
            Some(Tok::Dot(".weak")) => Linkage::Weak,
            Some(Tok::Dot(".common")) => Linkage::Common,
            _ => return Linkage::None,
        };
        self.i += 1;
        l
    }

    fn module_item(&mut self, m: &mut Module) -> PResult<()> {
        let pos = self.pos();
        let linkage = self.linkage();
        match self.peek() {
            Some(Tok::Dot(".entry")) | Some(Tok::Dot(".func")) => {
                let f = self.function(pos, linkage)?;
                m.funcs.push(f);
                Ok(())
            }
            Some(Tok::Dot(w)) if space_of(w).is_some() => {
                let vars = self.var_decl(pos, linkage, true)?;
                m.vars.extend(vars);
                Ok(())
            }
            _ => self.err("expected a directive, variable or function at module scope"),
        }
    }

    /// A variable declaration starting at its state space, through `;` (when `terminated`).
    /// `.reg .b32 %r<5>, %x;` can declare several names.
    fn var_decl(&mut self, pos: Pos, linkage: Linkage, terminated: bool) -> PResult<Vec<VarDecl>> {
        let space = match self.peek() {
            Some(Tok::Dot(w)) => match space_of(w) {
                Some(s) => s,
                None => return self.err("expected a state space"),
            },
            _ => return self.err("expected a state space"),
        };
        self.i += 1;
        let mut align = None;
        let mut vec = 1;
        let mut attrs = Vec::new();
        let ty;
        loop {
            match self.peek() {
                Some(Tok::Dot(".align")) => {
                    self.i += 1;
                    align = Some(self.uint32("an alignment")?);
                }
                Some(Tok::Dot(".v2")) => {
                    self.i += 1;
                    vec = 2
                }
                Some(Tok::Dot(".v4")) => {
                    self.i += 1;
                    vec = 4
                }
                Some(Tok::Dot(".v8")) => {
                    self.i += 1;
                    vec = 8
                }
                Some(Tok::Dot(".attribute")) => {
                    // `.attribute(.managed)`
                    self.i += 1;
                    self.expect(Tok::LParen, "`(` after .attribute")?;
                    while let Some(Tok::Dot(a)) = self.peek() {
                        self.i += 1;
                        attrs.push(a[1..].to_string());
                        if !self.eat(Tok::Comma) {
                            break;
                        }
                    }
                    self.expect(Tok::RParen, "`)` closing .attribute")?;
                }
                Some(Tok::Dot(".ptr")) => {
                    // `.ptr .global .align 16` (kernel parameter attributes)
                    self.i += 1;
                    attrs.push("ptr".to_string());
                    self.ptr_attrs(&mut attrs, false)?;
                }
                Some(Tok::Dot(w)) if VAR_TYPES.contains(&&w[1..]) => {
                    self.i += 1;
                    ty = w[1..].to_string();
                    // `.param .u64 .ptr .global .align 1 name` puts attributes after the type.
                    self.ptr_attrs(&mut attrs, true)?;
                    break;
                }
                _ => return self.err("expected a variable type such as .b32"),
            }
        }
        let mut out = Vec::new();
        loop {
            let npos = self.pos();
            let name = match self.peek() {
                Some(Tok::Ident(s)) => {
                    self.i += 1;
                    s.to_string()
                }
                Some(Tok::Sink) => {
                    self.i += 1;
                    "_".to_string()
                }
                _ => return self.err("expected a variable name"),
            };
            let mut range = None;
            if self.eat(Tok::Lt) {
                range = Some(self.uint32("a register count")?);
                self.expect(Tok::Gt, "`>`")?;
            }
            let mut dims = Vec::new();
            while self.eat(Tok::LBracket) {
                if self.eat(Tok::RBracket) {
                    dims.push(None);
                } else {
                    dims.push(Some(self.uint("an array size")?));
                    self.expect(Tok::RBracket, "`]`")?;
                }
            }
            let init = if self.eat(Tok::Eq) { Some(self.init()?) } else { None };
            out.push(VarDecl {
                pos: if out.is_empty() { pos } else { npos },
                linkage,
                space,
                align,
                ty: ty.clone(),
                vec,
                name,
                dims,
                range,
                init,
                attrs: attrs.clone(),
            });
            if !terminated || !self.eat(Tok::Comma) {
                break;
            }
        }
        if terminated {
            self.expect(Tok::Semi, "`;` after the declaration")?;
        }
        Ok(out)
    }

    fn init(&mut self) -> PResult<Init> {
        let pos = self.pos();
        if self.eat(Tok::LBrace) {
            let items = self.nested(pos, "initializer lists", |p| p.list_until(Tok::RBrace, "`,` or `}` in the initializer", |p| p.init()))?;
            return Ok(Init::List(items));
        }
        let neg = self.eat(Tok::Minus);
        match self.peek() {
            Some(Tok::Int((v, _))) => {
                self.i += 1;
                let v = v as i128;
                Ok(Init::Int(if neg { -v } else { v }))
            }
            Some(Tok::F32Hex(b)) if !neg => {
                self.i += 1;
                Ok(Init::F32(b))
            }
            Some(Tok::F64Hex(b)) if !neg => {
                self.i += 1;
                Ok(Init::F64(b))
            }
            Some(Tok::Float(f)) => {
                self.i += 1;
                Ok(Init::Float(if neg { -f } else { f }))
            }
            Some(Tok::Ident(w)) if !neg => {
                self.i += 1;
                let (name, generic) = if (w == "generic" || w == "generic_ptr") && self.eat(Tok::LParen) {
                    let n = self.ident("a symbol name")?;
                    self.expect(Tok::RParen, "`)`")?;
                    (n, true)
                } else {
                    (w.to_string(), false)
                };
                let offset = self.opt_offset()?;
                Ok(Init::Sym { name, offset, generic })
            }
            _ => self.err("expected an initializer value"),
        }
    }

    /// `+ N`, `+ -N`, `- N` after a symbol; 0 when absent.
    fn opt_offset(&mut self) -> PResult<i64> {
        let sign = if self.eat(Tok::Plus) {
            if self.eat(Tok::Minus) {
                -1
            } else {
                1
            }
        } else if self.peek() == Some(Tok::Minus) && matches!(self.peek_at(1), Some(Tok::Int(_))) {
            self.i += 1;
            -1
        } else {
            return Ok(0);
        };
        let pos = self.pos();
        let v = self.uint("an offset")?;
        let v = i64::try_from(v).map_err(|_| PtxError::new(self.file, pos, "offset out of range".into()))?;
        Ok(sign * v)
    }

    fn function(&mut self, pos: Pos, linkage: Linkage) -> PResult<Function> {
        let kind = if self.eat_dot(".entry") {
            FuncKind::Entry
        } else {
            self.i += 1; // .func
            FuncKind::Func
        };
        let mut returns = Vec::new();
        if kind == FuncKind::Func && self.peek() == Some(Tok::LParen) {
            returns = self.param_list()?;
        }
        let name = self.ident("a function name")?;
        let params = if self.peek() == Some(Tok::LParen) { self.param_list()? } else { Vec::new() };
        let mut directives = Vec::new();
        let mut body = None;
        loop {
            match self.peek() {
                Some(Tok::Dot(w))
                    if matches!(
                        w,
                        ".maxntid"
                            | ".reqntid"
                            | ".minnctapersm"
                            | ".maxnctapersm"
                            | ".maxnreg"
                            | ".reqnctapercluster"
                            | ".explicitcluster"
                            | ".maxclusterrank"
                            | ".noreturn"
                            | ".blocksareclusters"
                            | ".abi_preserve"
                            | ".abi_preserve_control"
                    ) =>
                {
                    self.i += 1;
                    let mut vals = Vec::new();
                    if let Some(Tok::Int(_)) = self.peek() {
                        vals = self.comma_separated(|p| p.uint("a directive value"))?;
                    }
                    directives.push((w[1..].to_string(), vals));
                }
                Some(Tok::Dot(".pragma")) => {
                    let words = self.pragma()?;
                    directives.push((format!("pragma {}", words.join(" ")), Vec::new()));
                }
                Some(Tok::LBrace) => {
                    self.i += 1;
                    body = Some(self.stmts()?);
                    break;
                }
                Some(Tok::Semi) => {
                    self.i += 1;
                    break;
                }
                _ => return self.err("expected a function body `{`, `;` or a performance directive"),
            }
        }
        Ok(Function { pos, kind, linkage, name, returns, params, directives, body })
    }

    fn param_list(&mut self) -> PResult<Vec<VarDecl>> {
        self.expect(Tok::LParen, "`(`")?;
        let decls = self.list_until(Tok::RParen, "`,` or `)` in the parameter list", |p| {
            let pos = p.pos();
            p.var_decl(pos, Linkage::None, false)
        })?;
        Ok(decls.into_iter().flatten().collect())
    }

    /// Statements up to and including the closing `}`.
    fn stmts(&mut self) -> PResult<Vec<Stmt>> {
        let mut out = Vec::new();
        loop {
            let pos = self.pos();
            match self.peek() {
                None => return self.err("expected `}` closing the body"),
                Some(Tok::RBrace) => {
                    self.i += 1;
                    return Ok(out);
                }
                Some(Tok::LBrace) => {
                    self.i += 1;
                    out.push(Stmt::Block(self.nested(pos, "`{` blocks", |p| p.stmts())?));
                }
                Some(Tok::Dot(".loc")) => out.push(Stmt::Loc(self.loc()?)),
                Some(Tok::Dot(".pragma")) => {
                    let w = self.pragma()?;
                    out.push(Stmt::Pragma(w, pos));
                }
                Some(Tok::Dot(".file")) => {
                    self.file_directive()?;
                }
                Some(Tok::Dot(w)) if space_of(w).is_some() || matches!(w, ".extern" | ".visible" | ".weak") => {
                    let linkage = self.linkage();
                    for v in self.var_decl(pos, linkage, true)? {
                        out.push(Stmt::Var(v));
                    }
                }
                Some(Tok::Ident(name)) if self.peek_at(1) == Some(Tok::Colon) => {
                    self.i += 2;
                    match self.peek() {
                        Some(Tok::Dot(".branchtargets")) => {
                            self.i += 1;
                            let targets = self.comma_separated(|p| p.ident("a branch target label"))?;
                            self.expect(Tok::Semi, "`;`")?;
                            out.push(Stmt::BranchTargets { label: name.to_string(), targets, pos });
                        }
                        Some(Tok::Dot(".callprototype")) => {
                            self.i += 1;
                            // `( .param .b32 _ ) _ ( .param … )` — the prototype's shape is not
                            // needed to execute indirect calls, but it must be well formed.
                            if self.peek() == Some(Tok::LParen) {
                                self.param_list()?;
                            }
                            self.expect(Tok::Sink, "`_` in the call prototype")?;
                            if self.peek() == Some(Tok::LParen) {
                                self.param_list()?;
                            }
                            while self.eat_dot(".noreturn") {}
                            self.expect(Tok::Semi, "`;`")?;
                            out.push(Stmt::CallPrototype { label: name.to_string(), pos });
                        }
                        _ => out.push(Stmt::Label(name.to_string(), pos)),
                    }
                }
                Some(Tok::At) | Some(Tok::Ident(_)) => out.push(Stmt::Inst(self.instruction()?)),
                Some(_) => return self.err("expected an instruction, label or declaration"),
            }
        }
    }

    fn instruction(&mut self) -> PResult<Instruction> {
        let pos = self.pos();
        let guard = if self.eat(Tok::At) {
            let neg = self.eat(Tok::Bang);
            let gpos = self.pos();
            let name = self.ident("a guard predicate")?;
            Some((neg, name, gpos))
        } else {
            None
        };
        let opcode = self.ident("an opcode")?;
        let mut mods = Vec::new();
        while let Some(Tok::Dot(w)) = self.peek() {
            mods.push((w[1..].to_string(), self.pos()));
            self.i += 1;
        }
        let operands = self.list_until(Tok::Semi, "`,` or `;` after an operand", |p| p.operand())?;
        Ok(Instruction { pos, guard, opcode, mods, operands })
    }

    fn operand(&mut self) -> PResult<Operand> {
        let pos = self.pos();
        let kind = match self.peek() {
            Some(Tok::Ident(name)) => {
                self.i += 1;
                if self.eat(Tok::Pipe) {
                    let p = self.ident("a predicate after `|`")?;
                    OperandKind::Pair(name.to_string(), p)
                } else if let Some(Tok::Dot(c)) = self.peek() {
                    self.i += 1;
                    OperandKind::Name(name.to_string(), Some(c[1..].to_string()))
                } else if self.peek() == Some(Tok::Plus)
                    || (self.peek() == Some(Tok::Minus) && matches!(self.peek_at(1), Some(Tok::Int(_))))
                {
                    let off = self.opt_offset()?;
                    OperandKind::SymOffset(name.to_string(), off)
                } else {
                    OperandKind::Name(name.to_string(), None)
                }
            }
            Some(Tok::Bang) => {
                self.i += 1;
                OperandKind::Not(self.ident("a predicate after `!`")?)
            }
            Some(Tok::Sink) => {
                self.i += 1;
                if self.eat(Tok::Pipe) {
                    OperandKind::Pair("_".to_string(), self.ident("a predicate after `|`")?)
                } else {
                    OperandKind::Sink
                }
            }
            Some(Tok::Minus) | Some(Tok::Int(_)) | Some(Tok::F32Hex(_)) | Some(Tok::F64Hex(_)) | Some(Tok::Float(_)) => {
                self.number()?
            }
            Some(Tok::LBracket) => {
                self.i += 1;
                let (base, offset) = match self.peek() {
                    Some(Tok::Ident(n)) => {
                        self.i += 1;
                        (Some(n.to_string()), self.opt_offset()?)
                    }
                    Some(Tok::Int(_)) | Some(Tok::Minus) => {
                        let OperandKind::Int(v) = self.number()? else {
                            return self.err("expected an integer address");
                        };
                        let off = i64::try_from(v).or_else(|_| u64::try_from(v).map(|u| u as i64)).map_err(|_| {
                            PtxError::new(self.file, pos, "address out of range".into())
                        })?;
                        (None, off)
                    }
                    _ => return self.err("expected an address"),
                };
                let coords = if self.eat(Tok::Comma) {
                    let v = self.nested(pos, "operands", |p| p.operand())?;
                    match v.kind {
                        OperandKind::Vector(items) => Some(items),
                        _ => Some(vec![v]),
                    }
                } else {
                    None
                };
                self.expect(Tok::RBracket, "`]` closing the address")?;
                OperandKind::Addr { base, offset, coords }
            }
            Some(Tok::LBrace) => {
                self.i += 1;
                OperandKind::Vector(self.nested(pos, "operand vectors", |p| p.list_until(Tok::RBrace, "`,` or `}` in the vector", |p| p.operand()))?)
            }
            Some(Tok::LParen) => {
                self.i += 1;
                OperandKind::List(self.nested(pos, "operand lists", |p| p.list_until(Tok::RParen, "`,` or `)` in the list", |p| p.operand()))?)
            }
            _ => return self.err("expected an operand"),
        };
        Ok(Operand { pos, kind })
    }

    fn number(&mut self) -> PResult<OperandKind> {
        let neg = self.eat(Tok::Minus);
        match self.peek() {
            Some(Tok::Int((v, _))) => {
                self.i += 1;
                let v = v as i128;
                Ok(OperandKind::Int(if neg { -v } else { v }))
            }
            Some(Tok::F32Hex(b)) => {
                self.i += 1;
                Ok(OperandKind::F32(if neg { b ^ 0x8000_0000 } else { b }))
            }
            Some(Tok::F64Hex(b)) => {
                self.i += 1;
                Ok(OperandKind::F64(if neg { b ^ (1 << 63) } else { b }))
            }
            Some(Tok::Float(f)) => {
                self.i += 1;
                let f = if neg { -f } else { f };
                Ok(OperandKind::F64(f.to_bits()))
            }
            _ => self.err("expected a number"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMALL: &str = r#"
.version 9.0
.target sm_90
.address_size 64
.const .align 4 .b8 cc[16] = {0, 0, 128, 63, 0, 0, 0, 64, 0, 0, 96, 64, 0, 0, 128, 191};
.extern .shared .align 16 .b8 dyn[];
.global .align 8 .u64 ptrs[2] = {generic(cc), cc+4};
.func  (.param .b32 func_retval0) _Z3fooii(
	.param .b32 _Z3fooii_param_0,
	.param .b32 _Z3fooii_param_1
)
{
	.reg .b32 	%r<5>;
	ld.param.u32 	%r1, [_Z3fooii_param_0];
	st.param.b32 	[func_retval0+0], %r1;
	ret;
}
.visible .entry k(
	.param .u64 k_param_0,
	.param .align 64 .b8 k_param_1[128]
)
.maxntid 256, 1, 1
.reqnctapercluster 2, 1, 1
{
	.reg .pred 	%p<10>;
	.reg .b32 	%r<28>;
	.reg .b64 	%rd<30>;
	.loc	1 3 0
	.shared .align 4 .b8 _ZZ1kE1s[1024];
	mov.u32 	%r4, %ntid.x;
	@!%p1 bra 	$L__BB1_2;
	shfl.sync.down.b32 	%r12|%p2, %r7, %r10, %r9, %r11;
$L__BB1_2:
	{ // callseq 0, 0
	.param .b32 param0;
	st.param.b32 	[param0+0], %r2;
	.param .b32 retval0;
	call.uni (retval0), _Z3fooii, (param0, param1);
	}
	cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r2, %r3}], [%r4];
	st.global.v4.f32 [%rd1+-16], {%f1, %f2, _, %f4};
	mov.f32 %f1, 0fBF800000;
	.loc	1 6 3, function_name $L__info_string0, inlined_at 1 9 1
	ret;
}
.file	1 "/tmp/k.cu"
"#;

    #[test]
    fn parses_a_representative_module() {
        let m = parse(SMALL, "t.ptx").unwrap();
        assert_eq!(m.version, (9, 0));
        assert_eq!(m.target, vec!["sm_90"]);
        assert_eq!(m.vars.len(), 3);
        assert_eq!(m.vars[0].dims, vec![Some(16)]);
        assert_eq!(m.vars[1].dims, vec![None]);
        assert_eq!(
            m.vars[2].init,
            Some(Init::List(vec![
                Init::Sym { name: "cc".into(), offset: 0, generic: true },
                Init::Sym { name: "cc".into(), offset: 4, generic: false }
            ]))
        );
        assert_eq!(m.funcs.len(), 2);
        let k = &m.funcs[1];
        assert_eq!(k.kind, FuncKind::Entry);
        assert_eq!(k.params[1].align, Some(64));
        assert_eq!(k.params[1].dims, vec![Some(128)]);
        assert_eq!(k.directives[1], ("reqnctapercluster".to_string(), vec![2, 1, 1]));
        assert_eq!(m.files, vec![(1, "/tmp/k.cu".to_string())]);
        let body = k.body.as_ref().unwrap();
        let insts: Vec<&Instruction> = body
            .iter()
            .filter_map(|s| match s {
                Stmt::Inst(i) => Some(i),
                _ => None,
            })
            .collect();
        assert_eq!(insts[1].guard.as_ref().map(|g| g.0), Some(true));
        assert_eq!(insts[2].operands[0].kind, OperandKind::Pair("%r12".into(), "%p2".into()));
        let tma = insts[3];
        assert_eq!(tma.opcode, "cp");
        assert_eq!(tma.mods.len(), 7);
        match &tma.operands[1].kind {
            OperandKind::Addr { base, coords: Some(c), .. } => {
                assert_eq!(base.as_deref(), Some("%rd1"));
                assert_eq!(c.len(), 2);
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(insts[4].operands[0].kind, OperandKind::Addr { base: Some("%rd1".into()), offset: -16, coords: None });
        assert_eq!(insts[5].operands[1].kind, OperandKind::F32(0xBF80_0000));
        assert!(body.iter().any(|s| matches!(s, Stmt::Block(b) if b.len() == 4)));
    }

    #[test]
    fn errors_name_line_column_and_token() {
        let src = ".version 9.0\n.target sm_90\n.entry k()\n{\n  add.s32 %r1, %r2 %r3;\n}\n";
        let e = parse(src, "bad.ptx").unwrap_err().to_string();
        assert!(e.starts_with("bad.ptx:5:20:"), "{e}");
        assert!(e.contains("`%r3`"), "{e}");
    }

    #[test]
    fn truncated_input_is_an_error() {
        for cut in [20, 60, 200, 400, SMALL.len() - 5] {
            let src = &SMALL[..cut];
            assert!(parse(src, "t.ptx").is_err(), "cut at {cut} parsed");
        }
    }

    /// 10,000 nested braces, vectors or initializers: an error at the first bracket past the
    /// limit, not a stack overflow.
    #[test]
    fn deep_nesting_is_an_error_with_a_position() {
        let head = ".version 9.0\n.target sm_90\n.address_size 64\n";
        let deep = |open: &str, close: &str| format!("{}x{}", open.repeat(10_000), close.repeat(10_000));
        let cases = [
            (format!("{head}.entry k()\n{{\n{}\nret;\n}}\n", deep("{", "}")), "x.ptx:6:257: `{` blocks nested more than 256 deep"),
            (format!("{head}.entry k()\n{{\n.reg .b32 %r<2>;\nmov.b32 %r1, {};\n}}\n", deep("{", "}").replace('x', "%r1")), "x.ptx:7:270: operand vectors nested more than 256 deep"),
            (format!("{head}.entry k()\n{{\ncall f, {};\n}}\n", deep("(", ")")), "x.ptx:6:265: operand lists nested more than 256 deep"),
            (format!("{head}.global .b32 g[1] = {};\n", deep("{", "}").replace('x', "1")), "x.ptx:4:277: initializer lists nested more than 256 deep"),
        ];
        for (src, want) in cases {
            let e = parse(&src, "x.ptx").unwrap_err().to_string();
            assert_eq!(e, want);
        }
        // 256 levels are fine.
        let ok = format!("{head}.entry k()\n{{\n{}ret;{}\n}}\n", "{".repeat(255), "}".repeat(255));
        parse(&ok, "x.ptx").unwrap();
    }

    #[test]
    fn missing_version_is_an_error() {
        let e = parse(".target sm_90\n", "x.ptx").unwrap_err().to_string();
        assert!(e.contains(".version"), "{e}");
    }
}
