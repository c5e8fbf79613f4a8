//! The listing parser: nvdisasm's (`-c -hex -gi -gp`, any subset of those flags) and
//! cuobjdump's (`-sass`) text, line by line.
//!
//! Only `.text.<name>` sections (nvdisasm) or `Function : <name>` blocks (cuobjdump) are read;
//! the contents of other sections (a listing printed without `-c`) are skipped. Inside a code
//! section every line must be one of: a directive nvdisasm prints there, a label, a line-info
//! comment (`//## File "kernel.cu", line 4 inlined at ...`, `//## File ".nv_debug_ptx_txt", line
//! 36`), an instruction (`/*0040*/ @P0 IMAD R7, R7, UR4, R0 ; /* 0x...low... */`) or the high
//! half of the encoding above (`/* 0x...high... */`). Anything else is a [`SassError`] with the
//! listing's line and column. Line info persists until the next comment changes it, as nvdisasm
//! prints it only on a change.

use std::collections::BTreeMap;

use crate::{AddrReg, Address, Bank, ConstSection, Control, Desc, Guard, Instruction, Kernel, Module, Operand, Pred, Reg, SourceLine, Value};

/// Text the parser does not understand, where it is.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}, column {column}: {message}: `{text}`")]
pub struct SassError {
    /// 1-based line of the listing.
    pub line: usize,
    /// 1-based column (in characters) where the offending text starts.
    pub column: usize,
    pub message: String,
    /// The offending text (at most 60 characters of it).
    pub text: String,
}

/// Parses a whole listing.
pub fn parse(listing: &str) -> Result<Module, SassError> {
    let mut p = Parser::default();
    for (n, raw) in listing.lines().enumerate() {
        p.line(n + 1, raw)?;
    }
    p.finish_kernel();
    p.finish_data();
    for k in &mut p.kernels {
        if let Some(b) = p.banks.remove(&DataSection::Bank2(k.name.clone())) {
            k.bank2 = b;
        }
        k.registers = k.registers.or_else(|| p.regcount.get(&k.name).copied());
    }
    let mut bank = |b| p.banks.remove(&b).unwrap_or_default();
    let (bank3, bank4) = (bank(DataSection::Bank3), bank(DataSection::Bank4));
    Ok(Module { arch: p.arch, kernels: p.kernels, bank3, bank4 })
}

#[derive(Default)]
struct Parser {
    arch: Option<String>,
    kernels: Vec<Kernel>,
    current: Option<Kernel>,
    /// Labels seen since the last instruction; they mark the next one's pc.
    pending_labels: Vec<String>,
    source: Option<SourceLine>,
    ptx_line: Option<u32>,
    /// The last instruction has its low encoding word and waits for the high one.
    awaiting_high: Option<u64>,
    /// Inside a data section (its `/*off*/ .byte …` lines are not instructions).
    in_data: bool,
    /// The constant-bank section being read.
    data: Option<(DataSection, ConstSection)>,
    banks: BTreeMap<DataSection, ConstSection>,
    /// Inside the module's `.nv.info` section: the attribute being read
    /// (`//----- nvinfo : EIATTR_REGCOUNT`) and the `.word`s it has had so far.
    info: Option<(String, Vec<String>)>,
    /// `EIATTR_REGCOUNT` of each function, by name: ptxas's registers per thread.
    regcount: BTreeMap<String, u32>,
}

/// The constant-bank sections the parser keeps.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord)]
enum DataSection {
    /// `.nv.constant2.<kernel>`.
    Bank2(String),
    /// `.nv.constant3`.
    Bank3,
    /// `.nv.constant4`.
    Bank4,
}

fn err(line: usize, column: usize, message: impl Into<String>, text: &str) -> SassError {
    SassError { line, column, message: message.into(), text: text.chars().take(60).collect() }
}

/// 1-based character column of `part` (a subslice of `whole`).
fn col(whole: &str, part: &str) -> usize {
    let off = (part.as_ptr() as usize).saturating_sub(whole.as_ptr() as usize).min(whole.len());
    whole[..off].chars().count() + 1
}

const IGNORED_DIRECTIVES: &[&str] = &[".elftype", ".align", ".global", ".weak", ".type", ".size", ".sectionflags", ".zero", ".byte", ".short", ".word", ".dword", ".nv.info"];

impl Parser {
    fn line(&mut self, n: usize, raw: &str) -> Result<(), SassError> {
        let l = raw.trim();
        if self.awaiting_high.is_some() && !l.starts_with("/* 0x") {
            return Err(err(n, col(raw, l), "expected the high 64 bits of the previous instruction's encoding", l));
        }
        if l.is_empty() {
            return Ok(());
        }
        if let Some(rest) = l.strip_prefix("//##") {
            return if self.current.is_some() { self.line_info(n, raw, rest.trim_start()) } else { Ok(()) };
        }
        if l.starts_with("//") {
            if let Some((attr, words)) = self.info.as_mut() {
                if let Some(a) = l.split_once("nvinfo :").map(|(_, a)| a.trim()) {
                    *attr = a.to_string();
                    words.clear();
                }
            }
            return Ok(());
        }
        // cuobjdump's headers.
        if let Some(arch) = l.strip_prefix("code for ") {
            self.set_arch(n, raw, arch.trim())?;
            return Ok(());
        }
        if let Some(name) = l.strip_prefix("Function : ") {
            self.start_kernel(name.trim().to_string(), true);
            return Ok(());
        }
        if let Some(comment) = l.strip_prefix("/*") {
            if self.info.is_some() {
                self.info_line(comment);
                return Ok(());
            }
            if self.current.is_none() && self.in_data {
                let (off, body) = comment.split_once("*/").unwrap_or(("", ""));
                if let (Some((_, bank)), Ok(off)) = (self.data.as_mut(), usize::from_str_radix(off.trim(), 16)) {
                    // The offset comment places the line (padding nvdisasm leaves to `.align`).
                    if off > bank.bytes.len() {
                        bank.bytes.resize(off, 0);
                    }
                }
                return self.data_line(n, raw, body.trim());
            }
            if self.current.is_none() {
                return Err(err(n, col(raw, l), "an instruction outside any code section", l));
            }
            return self.instruction_or_high(n, raw, l);
        }
        if !l.is_empty() && l.chars().all(|c| c == '.') {
            // cuobjdump's `..........` closes a function.
            self.finish_kernel();
            return Ok(());
        }
        if l.starts_with('.') && !l.ends_with(':') {
            return self.directive(n, raw, l);
        }
        if let Some(label) = l.strip_suffix(':') {
            if !label.is_empty() && label.chars().all(|c| c.is_ascii_alphanumeric() || "_.$".contains(c)) {
                if self.current.is_some() {
                    self.pending_labels.push(label.to_string());
                } else if let Some((_, bank)) = self.data.as_mut().filter(|_| !label.starts_with('.')) {
                    // A variable of a constant bank starts here.
                    bank.symbols.push((label.to_string(), bank.bytes.len() as u32));
                }
                return Ok(());
            }
        }
        if self.current.is_none() {
            // Outside code: cuobjdump's banner lines (`Fatbin elf code:`, `arch = sm_90`, ...) and
            // the contents of data sections.
            return Ok(());
        }
        Err(err(n, col(raw, l), "unknown syntax in a code section", l))
    }

    fn set_arch(&mut self, n: usize, raw: &str, arch: &str) -> Result<(), SassError> {
        let num: String = arch.strip_prefix("sm_").unwrap_or("").chars().take_while(char::is_ascii_digit).collect();
        match num.parse::<u32>() {
            Ok(v) if v >= 70 => {
                self.arch = Some(arch.to_string());
                Ok(())
            }
            Ok(_) => Err(err(n, col(raw, arch), "SASS before Volta (sm_70) is not supported (64-bit encodings with separate control words)", arch)),
            Err(_) => Err(err(n, col(raw, arch), "expected an sm_XX target", arch)),
        }
    }

    fn directive(&mut self, n: usize, raw: &str, l: &str) -> Result<(), SassError> {
        let (word, rest) = l.split_once(|c: char| c.is_whitespace()).map_or((l, ""), |(w, r)| (w, r.trim()));
        match word {
            ".target" => {
                let t = rest.split_whitespace().next().unwrap_or("");
                self.set_arch(n, raw, t)
            }
            ".headerflags" => {
                // `@"EF_CUDA_64BIT_ADDRESS EF_CUDA_SM75 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM75)"`
                if self.arch.is_none() {
                    if let Some(pos) = rest.find("EF_CUDA_SM") {
                        let t = &rest[pos + "EF_CUDA_SM".len()..];
                        let digits: String = t.chars().take_while(|c| c.is_ascii_alphanumeric()).collect();
                        self.set_arch(n, raw, &format!("sm_{}", digits.to_ascii_lowercase()))?;
                    }
                }
                Ok(())
            }
            ".section" => {
                let name = rest.split(',').next().unwrap_or("").trim();
                self.finish_kernel();
                self.finish_data();
                self.in_data = !name.starts_with(".text.");
                self.info = (name == ".nv.info").then(|| (String::new(), Vec::new()));
                let section = match name {
                    ".nv.constant3" => Some(DataSection::Bank3),
                    ".nv.constant4" => Some(DataSection::Bank4),
                    _ => name.strip_prefix(".nv.constant2.").map(|k| DataSection::Bank2(k.to_string())),
                };
                self.data = section.map(|s| (s, ConstSection::default()));
                if let Some(k) = name.strip_prefix(".text.") {
                    if k.is_empty() {
                        return Err(err(n, col(raw, rest), "a code section without a name", rest));
                    }
                    self.start_kernel(k.to_string(), false);
                }
                Ok(())
            }
            ".other" => {
                if let Some(k) = self.current.as_mut() {
                    let name = rest.split(',').next().unwrap_or("").trim();
                    if name == k.name && rest.contains("STO_CUDA_ENTRY") {
                        k.entry = true;
                    }
                }
                Ok(())
            }
            ".sectioninfo" => {
                if let (Some(k), Some(pos)) = (self.current.as_mut(), rest.find("SHI_REGISTERS=")) {
                    let digits: String = rest[pos + 14..].chars().take_while(char::is_ascii_digit).collect();
                    k.registers = digits.parse().ok();
                }
                Ok(())
            }
            ".zero" if self.current.is_none() && self.data.is_some() => self.data_line(n, raw, l),
            ".align" if self.current.is_none() => {
                if let Some((_, bank)) = self.data.as_mut() {
                    let a = rest.parse::<usize>().map_err(|_| err(n, col(raw, rest), "expected an alignment", rest))?.max(1);
                    bank.bytes.resize(bank.bytes.len().div_ceil(a) * a, 0);
                }
                Ok(())
            }
            w if IGNORED_DIRECTIVES.contains(&w) || self.current.is_none() => Ok(()),
            _ => Err(err(n, col(raw, l), "unknown directive in a code section", word)),
        }
    }

    /// A data directive, `body` of a line `/*0010*/ .byte 0x08, 0x00` (or `.short`/`.word`/
    /// `.dword`, a literal or a symbol the loader patches in, or `.zero N`): kept for constant
    /// banks 2–4, skipped elsewhere.
    fn data_line(&mut self, n: usize, raw: &str, body: &str) -> Result<(), SassError> {
        let Some((_, bank)) = self.data.as_mut() else { return Ok(()) };
        let (word, rest) = body.split_once(|c: char| c.is_whitespace()).map_or((body, ""), |(w, r)| (w, r.trim()));
        let size = match word {
            ".byte" => 1,
            ".short" => 2,
            ".word" => 4,
            ".dword" => 8,
            ".zero" => {
                let count = rest.parse::<usize>().map_err(|_| err(n, col(raw, rest), "expected a byte count", rest))?;
                bank.bytes.resize(bank.bytes.len() + count, 0);
                return Ok(());
            }
            _ => return Err(err(n, col(raw, body), "unknown data directive in a constant bank", word)),
        };
        for item in rest.split(',').map(str::trim) {
            match item.strip_prefix("0x").and_then(|h| u64::from_str_radix(h, 16).ok()) {
                Some(v) => bank.bytes.extend_from_slice(&v.to_le_bytes()[..size]),
                None => {
                    bank.relocated.push(crate::Reloc { offset: bank.bytes.len() as u32, size: size as u32, target: item.to_string() });
                    bank.bytes.resize(bank.bytes.len() + size, 0);
                }
            }
        }
        Ok(())
    }

    /// A data line of `.nv.info` (after its `/*`): an `EIATTR_REGCOUNT` attribute is two words,
    /// `index@(<function>)` then the count (`0x0000001a`).
    fn info_line(&mut self, comment: &str) {
        let Some((attr, words)) = self.info.as_mut() else { return };
        let body = comment.split_once("*/").map_or("", |(_, b)| b.trim());
        let Some(word) = body.strip_prefix(".word") else { return };
        if attr != "EIATTR_REGCOUNT" {
            return;
        }
        words.push(word.trim().to_string());
        if let [func, count] = words.as_slice() {
            let name = func.strip_prefix("index@(").and_then(|f| f.strip_suffix(')'));
            let count = count.strip_prefix("0x").and_then(|h| u32::from_str_radix(h, 16).ok());
            if let (Some(name), Some(count)) = (name, count) {
                self.regcount.insert(name.to_string(), count);
            }
            words.clear();
        }
    }

    fn finish_data(&mut self) {
        if let Some((name, bank)) = self.data.take() {
            self.banks.insert(name, bank);
        }
    }

    fn start_kernel(&mut self, name: String, entry: bool) {
        self.finish_kernel();
        self.current = Some(Kernel { name, entry, registers: None, labels: BTreeMap::new(), instructions: Vec::new(), bank2: ConstSection::default() });
    }

    fn finish_kernel(&mut self) {
        let Some(mut k) = self.current.take() else { return };
        let end = k.instructions.last().map_or(0, |i| i.pc + 16);
        for l in self.pending_labels.drain(..) {
            k.labels.entry(l).or_insert(end);
        }
        for i in &mut k.instructions {
            for o in &mut i.operands {
                match &mut o.value {
                    Value::Target { label, pc } => *pc = k.labels.get(label.as_str()).copied(),
                    Value::BranchTargets(t) => t.iter_mut().for_each(|(label, pc)| *pc = k.labels.get(label.as_str()).copied()),
                    _ => {}
                }
            }
        }
        self.source = None;
        self.ptx_line = None;
        self.kernels.push(k);
    }

    /// `File "kernel.cu", line 13 inlined at "kernel.cu", line 20` (after `//##`).
    fn line_info(&mut self, n: usize, raw: &str, text: &str) -> Result<(), SassError> {
        let bad = |at: &str, what: &str| err(n, col(raw, at), what, at);
        let mut rest = text.strip_prefix("File ").ok_or_else(|| bad(text, "expected `File \"...\", line N`"))?;
        let mut chain: Vec<(String, u32)> = Vec::new();
        loop {
            let r = rest.trim_start().strip_prefix('"').ok_or_else(|| bad(rest, "expected a quoted file name"))?;
            let (file, r) = r.split_once('"').ok_or_else(|| bad(r, "unterminated file name"))?;
            let r = r.trim_start().strip_prefix(", line ").ok_or_else(|| bad(r, "expected `, line N`"))?;
            let digits: String = r.chars().take_while(char::is_ascii_digit).collect();
            let line: u32 = digits.parse().map_err(|_| bad(r, "expected a line number"))?;
            chain.push((file.to_string(), line));
            rest = r[digits.len()..].trim_start();
            if rest.is_empty() {
                break;
            }
            rest = rest.strip_prefix("inlined at ").ok_or_else(|| bad(rest, "expected `inlined at` or the end of the line"))?;
        }
        let (file, line) = chain.remove(0);
        if file == ".nv_debug_ptx_txt" {
            self.ptx_line = Some(line);
        } else {
            self.source = Some(SourceLine { file, line, inlined_at: chain });
        }
        Ok(())
    }

    fn instruction_or_high(&mut self, n: usize, raw: &str, l: &str) -> Result<(), SassError> {
        if let Some(hi) = l.strip_prefix("/* 0x") {
            let word = parse_word_comment(hi).ok_or_else(|| err(n, col(raw, l), "expected `/* 0x<16 hex digits> */`", l))?;
            let Some(lo) = self.awaiting_high.take() else {
                return Err(err(n, col(raw, l), "an encoding word without an instruction (SASS before Volta, whose control words stand alone, is not supported)", l));
            };
            let enc = (word as u128) << 64 | lo as u128;
            let i = self.current.as_mut().and_then(|k| k.instructions.last_mut()).expect("awaiting_high implies an instruction");
            i.encoding = Some(enc);
            i.control = Some(Control::decode(enc));
            return Ok(());
        }
        // `/*0040*/ <instruction> ; /* 0x<low> */`
        let after = &l[2..];
        let (off, body) = after.split_once("*/").ok_or_else(|| err(n, col(raw, l), "unterminated offset comment", l))?;
        let pc = u32::from_str_radix(off.trim(), 16).map_err(|_| err(n, col(raw, off), "expected a hex byte offset", off))?;
        let (text, tail) = body.split_once(';').ok_or_else(|| err(n, col(raw, body), "expected `;` after the instruction", body))?;
        let tail = tail.trim();
        let low = if tail.is_empty() {
            None
        } else {
            let w = tail.strip_prefix("/* 0x").and_then(parse_word_comment).ok_or_else(|| err(n, col(raw, tail), "expected `/* 0x<16 hex digits> */` after `;`", tail))?;
            Some(w)
        };
        let k = self.current.as_mut().expect("checked by the caller");
        if let Some(prev) = k.instructions.last() {
            if pc <= prev.pc {
                return Err(err(n, col(raw, off), format!("offset {pc:#x} does not follow {:#x}", prev.pc), off));
            }
        }
        let mut inst = parse_instruction(text, raw, n)?;
        inst.pc = pc;
        inst.source = self.source.clone();
        inst.ptx_line = self.ptx_line;
        inst.listing_line = n;
        for label in self.pending_labels.drain(..) {
            k.labels.entry(label).or_insert(pc);
        }
        k.instructions.push(inst);
        self.awaiting_high = low;
        Ok(())
    }
}

/// `000fe20000000800 */` (after `/* 0x`): the 64-bit word.
fn parse_word_comment(s: &str) -> Option<u64> {
    let (hex, rest) = s.split_once("*/")?;
    if !rest.trim().is_empty() {
        return None;
    }
    let hex = hex.trim();
    if hex.is_empty() || hex.len() > 16 {
        return None;
    }
    u64::from_str_radix(hex, 16).ok()
}

/// One instruction's text (guard, mnemonic, operands; no `;`).
pub(crate) fn parse_instruction(text: &str, raw: &str, line: usize) -> Result<Instruction, SassError> {
    let mut c = Cursor { s: text, pos: 0, raw, line };
    c.skip_ws();
    let guard = if c.eat('@') {
        let at = c.pos;
        let negated = c.eat('!');
        let w = c.word();
        let Some(Value::Pred(pred)) = register(w) else {
            return Err(c.error_at(at, "expected a predicate after `@`"));
        };
        c.skip_ws();
        Some(Guard { negated, pred })
    } else {
        None
    };
    let at = c.pos;
    let mnemonic = c.word();
    let mut parts = mnemonic.split('.');
    let opcode = parts.next().unwrap_or("");
    if opcode.is_empty() || !opcode.starts_with(|ch: char| ch.is_ascii_uppercase()) || !opcode.chars().all(|ch| ch.is_ascii_uppercase() || ch.is_ascii_digit() || ch == '_') {
        return Err(c.error_at(at, "expected an opcode"));
    }
    let modifiers: Vec<String> = parts.map(str::to_string).collect();
    if modifiers.iter().any(String::is_empty) {
        return Err(c.error_at(at, "empty modifier"));
    }
    let mut operands = Vec::new();
    c.skip_ws();
    while !c.done() {
        operands.push(c.operand()?);
        c.skip_ws();
        if c.eat(',') {
            c.skip_ws();
            if c.done() {
                return Err(c.error_at(c.pos, "expected an operand after `,`"));
            }
        }
    }
    Ok(Instruction {
        pc: 0,
        guard,
        opcode: opcode.to_string(),
        modifiers,
        operands,
        encoding: None,
        control: None,
        source: None,
        ptx_line: None,
        listing_line: line,
    })
}

/// `R7`, `RZ`, `UR4`, `URZ`, `P0`, `PT`, `UP1`, `UPT` (a bare word).
fn register(w: &str) -> Option<Value> {
    let num = |s: &str, max: u8| -> Option<u8> {
        if s.is_empty() || s.len() > 3 || !s.chars().all(|c| c.is_ascii_digit()) || (s.len() > 1 && s.starts_with('0')) {
            return None;
        }
        s.parse::<u16>().ok().filter(|v| *v <= max as u16).map(|v| v as u8)
    };
    Some(match w {
        "RZ" => Value::Reg(Reg { uniform: false, index: Reg::RZ }),
        "URZ" => Value::Reg(Reg { uniform: true, index: Reg::URZ }),
        "PT" => Value::Pred(Pred { uniform: false, index: Pred::TRUE_INDEX }),
        "UPT" => Value::Pred(Pred { uniform: true, index: Pred::TRUE_INDEX }),
        _ => {
            if let Some(i) = w.strip_prefix("UR").and_then(|s| num(s, 62)) {
                Value::Reg(Reg { uniform: true, index: i })
            } else if let Some(i) = w.strip_prefix("UP").and_then(|s| num(s, 6)) {
                Value::Pred(Pred { uniform: true, index: i })
            } else if let Some(i) = w.strip_prefix('R').and_then(|s| num(s, 254)) {
                Value::Reg(Reg { uniform: false, index: i })
            } else if let Some(i) = w.strip_prefix('P').and_then(|s| num(s, 6)) {
                Value::Pred(Pred { uniform: false, index: i })
            } else {
                return None;
            }
        }
    })
}

struct Cursor<'a> {
    s: &'a str,
    pos: usize,
    raw: &'a str,
    line: usize,
}

impl<'a> Cursor<'a> {
    fn done(&self) -> bool {
        self.pos >= self.s.len()
    }

    fn peek(&self) -> Option<char> {
        self.s[self.pos..].chars().next()
    }

    fn peek2(&self) -> Option<char> {
        self.s[self.pos..].chars().nth(1)
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.pos += c.len_utf8();
            true
        } else {
            false
        }
    }

    fn skip_ws(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.pos += self.peek().map_or(1, char::len_utf8);
        }
    }

    /// A run of `[A-Za-z0-9_.$]`.
    fn word(&mut self) -> &'a str {
        let start = self.pos;
        while self.peek().is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '$') {
            self.pos += 1;
        }
        let s: &'a str = self.s;
        &s[start..self.pos]
    }

    /// A run of `[A-Za-z0-9_]`.
    fn ident(&mut self) -> &'a str {
        let start = self.pos;
        while self.peek().is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
            self.pos += 1;
        }
        let s: &'a str = self.s;
        &s[start..self.pos]
    }

    fn error_at(&self, at: usize, message: &str) -> SassError {
        let at = at.min(self.s.len());
        let at = (0..=at).rev().find(|&i| self.s.is_char_boundary(i)).unwrap_or(0);
        let text = self.s[at..].trim_end();
        let text = if text.is_empty() { "<end of instruction>" } else { text };
        err(self.line, col(self.raw, &self.s[at..]), message, text)
    }

    fn expect(&mut self, c: char) -> Result<(), SassError> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(self.error_at(self.pos, &format!("expected `{c}`")))
        }
    }

    fn operand(&mut self) -> Result<Operand, SassError> {
        let start = self.pos;
        let mut op = Operand { value: Value::Word(String::new()), neg: false, abs: false, not: false, reuse: false, modifiers: Vec::new() };
        let sign = if self.eat('-') {
            -1.0
        } else if self.eat('+') {
            1.0
        } else {
            0.0
        };
        if sign != 0.0 && self.peek().is_some_and(|c| c.is_ascii_digit() || "IQN".contains(c)) {
            // A signed literal: `-0x1`, `-0.5`, `-QNAN`, `+INF`.
            op.value = self.number(sign < 0.0, start)?;
        } else {
            op.neg = sign < 0.0;
            if sign > 0.0 {
                return Err(self.error_at(start, "`+` before an operand that is not a number"));
            }
            op.not = self.eat('!') || self.eat('~');
            if self.eat('|') {
                op.abs = true;
                op.value = self.primary()?;
                self.suffixes(&mut op)?;
                self.expect('|')?;
            } else {
                op.value = self.primary()?;
            }
        }
        self.suffixes(&mut op)?;
        if op.not && !matches!(op.value, Value::Pred(_) | Value::Reg(_) | Value::Const { .. }) {
            return Err(self.error_at(start, "`!`/`~` before an operand that is not a register, predicate or constant"));
        }
        if op.reuse && !matches!(op.value, Value::Reg(_)) {
            return Err(self.error_at(start, "`.reuse` on an operand that is not a register"));
        }
        Ok(op)
    }

    fn suffixes(&mut self, op: &mut Operand) -> Result<(), SassError> {
        while self.peek() == Some('.') && self.peek2().is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
            self.pos += 1;
            let w = self.ident().to_string();
            if w == "reuse" {
                op.reuse = true;
            } else {
                op.modifiers.push(w);
            }
        }
        Ok(())
    }

    /// A literal after its sign (or unsigned): hex/decimal integer, float, `INF`/`QNAN`, or
    /// `32@lo(sym)`.
    fn number(&mut self, negative: bool, start: usize) -> Result<Value, SassError> {
        let at = self.pos;
        if self.s[self.pos..].starts_with("0x") {
            self.pos += 2;
            let digits = self.ident();
            let v = u64::from_str_radix(digits, 16).map_err(|_| self.error_at(at, "bad hex literal"))?;
            let v = v as i64;
            return Ok(Value::Int(if negative { v.wrapping_neg() } else { v }));
        }
        if self.peek().is_some_and(|c| c.is_ascii_alphabetic()) {
            let w = self.ident();
            let v = match w {
                "INF" => f64::INFINITY,
                "QNAN" | "NAN" => f64::NAN,
                _ => return Err(self.error_at(at, "expected a number")),
            };
            return Ok(Value::Float(if negative { -v } else { v }));
        }
        let mut float = false;
        while let Some(c) = self.peek() {
            if c.is_ascii_digit() {
                self.pos += 1;
            } else if c == '.' && self.peek2().is_some_and(|d| d.is_ascii_digit()) {
                float = true;
                self.pos += 1;
            } else if (c == 'e' || c == 'E') && self.pos > at {
                float = true;
                self.pos += 1;
                if self.peek().is_some_and(|s| s == '+' || s == '-') {
                    self.pos += 1;
                }
            } else {
                break;
            }
        }
        let text = &self.s[at..self.pos];
        if float {
            let v: f64 = text.parse().map_err(|_| self.error_at(at, "bad floating-point literal"))?;
            return Ok(Value::Float(if negative { -v } else { v }));
        }
        if !negative && self.eat('@') {
            let bits: u32 = text.parse().map_err(|_| self.error_at(at, "bad relocation width"))?;
            let part = self.ident().to_string();
            self.expect('(')?;
            let name_start = self.pos;
            while self.peek().is_some_and(|c| c != ')') {
                self.pos += self.peek().map_or(1, char::len_utf8);
            }
            let name = self.s[name_start..self.pos].to_string();
            self.expect(')')?;
            if part.is_empty() || name.is_empty() {
                return Err(self.error_at(start, "expected `N@lo(symbol)`"));
            }
            return Ok(Value::Symbol { bits, part, name });
        }
        let v: i64 = text.parse().map_err(|_| self.error_at(at, "bad integer literal"))?;
        Ok(Value::Int(if negative { -v } else { v }))
    }

    fn primary(&mut self) -> Result<Value, SassError> {
        let at = self.pos;
        match self.peek() {
            None => Err(self.error_at(at, "expected an operand")),
            Some('[') => {
                self.pos += 1;
                let addr = self.address()?;
                Ok(Value::Mem { desc: None, addr })
            }
            Some('`') => {
                self.pos += 1;
                self.expect('(')?;
                let s = self.pos;
                while self.peek().is_some_and(|c| c != ')') {
                    self.pos += self.peek().map_or(1, char::len_utf8);
                }
                let label = self.s[s..self.pos].to_string();
                self.expect(')')?;
                if label.is_empty() {
                    return Err(self.error_at(at, "empty branch target"));
                }
                Ok(Value::Target { label, pc: None })
            }
            Some('(') => {
                // `(*"BRANCH_TARGETS .L_x_35,.L_x_36"*)`
                let rest = &self.s[at..];
                let body = rest.strip_prefix("(*\"BRANCH_TARGETS").and_then(|r| r.split_once("\"*)")).map(|(b, _)| b);
                let Some(body) = body else { return Err(self.error_at(at, "expected `(*\"BRANCH_TARGETS …\"*)`")) };
                self.pos += "(*\"BRANCH_TARGETS".len() + body.len() + "\"*)".len();
                let labels: Vec<(String, Option<u32>)> = body.split(',').map(|l| (l.trim().to_string(), None)).collect();
                if labels.iter().any(|(l, _)| l.is_empty()) {
                    return Err(self.error_at(at, "an empty label in BRANCH_TARGETS"));
                }
                Ok(Value::BranchTargets(labels))
            }
            Some('{') => {
                // `{5,4,3,2,1,0}`: scoreboards.
                self.pos += 1;
                let mut set = Vec::new();
                loop {
                    self.skip_ws();
                    let b = self.pos;
                    let d = self.ident();
                    set.push(d.parse::<u8>().ok().filter(|v| *v <= 5).ok_or_else(|| self.error_at(b, "expected a scoreboard 0-5"))?);
                    self.skip_ws();
                    if self.eat('}') {
                        return Ok(Value::Scoreboards(set));
                    }
                    self.expect(',')?;
                }
            }
            Some(c) if c.is_ascii_digit() => self.number(false, at),
            Some(c) if c.is_ascii_alphabetic() || c == '_' => {
                let w = self.ident().to_string();
                if self.peek() == Some('[') {
                    return self.bracketed(&w, at);
                }
                if let Some(v) = register(&w) {
                    return Ok(v);
                }
                if w.starts_with("SR_") || w == "SRZ" {
                    let mut name = w;
                    while self.peek() == Some('.') && self.peek2().is_some_and(|c| c.is_ascii_alphanumeric()) {
                        self.pos += 1;
                        name.push('.');
                        name.push_str(self.ident());
                    }
                    return Ok(Value::Special(name));
                }
                let small = |s: &str, max: u8| s.parse::<u8>().ok().filter(|v| *v <= max && !(s.len() > 1 && s.starts_with('0')));
                if let Some(b) = w.strip_prefix("SB").and_then(|s| small(s, 5)) {
                    return Ok(Value::Scoreboard(b));
                }
                if let Some(b) = w.strip_prefix('B').and_then(|s| small(s, 15)) {
                    return Ok(Value::ConvBarrier(b));
                }
                let reg_like = ["UR", "UP", "R", "P"].iter().any(|p| w.strip_prefix(p).is_some_and(|d| !d.is_empty() && d.chars().all(|c| c.is_ascii_digit())));
                if reg_like {
                    return Err(self.error_at(at, "register or predicate out of range (R0-R254, UR0-UR62, P0-P6, UP0-UP6)"));
                }
                match w.as_str() {
                    "INF" => Ok(Value::Float(f64::INFINITY)),
                    "QNAN" => Ok(Value::Float(f64::NAN)),
                    _ if w.starts_with(|c: char| c.is_ascii_uppercase() || c.is_ascii_lowercase()) => Ok(Value::Word(w)),
                    _ => Err(self.error_at(at, "expected an operand")),
                }
            }
            Some(_) => Err(self.error_at(at, "expected an operand")),
        }
    }

    /// `c[..][..]`, `cx[..][..]`, `desc[..][..]`, `gdesc[..]` (the word already read).
    fn bracketed(&mut self, w: &str, at: usize) -> Result<Value, SassError> {
        self.pos += 1; // '['
        match w {
            "c" | "cx" => {
                self.skip_ws();
                let bank = if self.peek().is_some_and(|c| c.is_ascii_digit()) {
                    let b = self.pos;
                    match self.number(false, b)? {
                        Value::Int(v) if (0..=0xffff).contains(&v) => Bank::Index(v as u32),
                        _ => return Err(self.error_at(b, "expected a constant bank number")),
                    }
                } else {
                    let b = self.pos;
                    match register(self.ident()) {
                        Some(Value::Reg(r)) => Bank::Reg(r),
                        _ => return Err(self.error_at(b, "expected a constant bank number or register")),
                    }
                };
                self.skip_ws();
                self.expect(']')?;
                // nvdisasm writes `c[0x0] [0x17c]` for some sm_75 operands (HFMA2's third).
                self.skip_ws();
                self.expect('[')?;
                let addr = self.address()?;
                Ok(Value::Const { bank, addr })
            }
            "desc" => {
                let b = self.pos;
                let Some(Value::Reg(r)) = register(self.ident()) else {
                    return Err(self.error_at(b, "expected a uniform register in `desc[...]`"));
                };
                self.expect(']')?;
                if self.peek() != Some('[') {
                    return Ok(Value::Descriptor(r));
                }
                self.expect('[')?;
                let addr = self.address()?;
                Ok(Value::Mem { desc: Some(Desc::Global(r)), addr })
            }
            "gdesc" => {
                let addr = self.address()?;
                Ok(Value::Mem { desc: Some(Desc::Matrix), addr })
            }
            _ => Err(self.error_at(at, "unknown bracketed operand")),
        }
    }

    /// The inside of `[...]` up to and including `]`: `R2.64+UR4+-0x10`.
    fn address(&mut self) -> Result<Address, SassError> {
        let mut a = Address::default();
        let mut first = true;
        loop {
            self.skip_ws();
            if self.eat(']') {
                if first {
                    return Err(self.error_at(self.pos - 1, "empty address"));
                }
                return Ok(a);
            }
            if !first {
                if !self.eat('+') && self.peek() != Some('-') {
                    return Err(self.error_at(self.pos, "expected `+` or `]` in an address"));
                }
                self.skip_ws();
            }
            first = false;
            let at = self.pos;
            let negative = self.eat('-');
            if self.peek().is_some_and(|c| c.is_ascii_digit()) {
                let Value::Int(v) = self.number(negative, at)? else {
                    return Err(self.error_at(at, "expected an integer offset"));
                };
                a.offset = a.offset.checked_add(v).ok_or_else(|| self.error_at(at, "offset overflows"))?;
                continue;
            }
            if negative {
                return Err(self.error_at(at, "expected an offset after `-`"));
            }
            let w = self.ident().to_string();
            let Some(Value::Reg(reg)) = register(&w) else {
                return Err(self.error_at(at, "expected a register or an offset in an address"));
            };
            let mut modifiers = Vec::new();
            while self.peek() == Some('.') && self.peek2().is_some_and(|c| c.is_ascii_alphanumeric()) {
                self.pos += 1;
                modifiers.push(self.ident().to_string());
            }
            let slot = if reg.uniform { &mut a.ureg } else { &mut a.reg };
            if slot.is_some() {
                // `[UR4+UR6]` style pairs do not occur; two of a kind is a listing we do not know.
                if reg.uniform && a.reg.is_none() {
                    a.reg = Some(AddrReg { reg, modifiers });
                    continue;
                }
                return Err(self.error_at(at, "a second register of the same kind in an address"));
            }
            *slot = Some(AddrReg { reg, modifiers });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAXPY: &str = r#"	.target	sm_90

	.elftype	@"ET_EXEC"


//--------------------- .text.saxpy               --------------------------
	.section	.text.saxpy,"ax",@progbits
	.sectioninfo	@"SHI_REGISTERS=10"
	.align	128
        .global         saxpy
        .type           saxpy,@function
        .size           saxpy,(.L_x_1 - saxpy)
        .other          saxpy,@"STO_CUDA_ENTRY STV_DEFAULT"
saxpy:
.text.saxpy:
	//## File "kernel.cu", line 2
	//## File ".nv_debug_ptx_txt", line 21
        /*0000*/                   LDC R1, c[0x0][0x28] ;              /* 0x00000a00ff017b82 */
                                                                       /* 0x000fe20000000800 */
	//## File "kernel.cu", line 4 inlined at "kernel.cu", line 9
	//## File ".nv_debug_ptx_txt", line 36
        /*0010*/                   S2R R0, SR_TID.X ;                  /* 0x0000000000007919 */
                                                                       /* 0x000e2e0000002100 */
        /*0020*/               @P0 EXIT ;                              /* 0x000000000000094d */
                                                                       /* 0x000fea0003800000 */
        /*0030*/                   LDG.E R2, desc[UR4][R2.64+-0x10] ;  /* 0x0000000402027981 */
                                                                       /* 0x000ea2000c1e1900 */
        /*0040*/                   FFMA R7, -R2.reuse, UR6, |R7| ;     /* 0x0000000602077c23 */
                                                                       /* 0x004fca0008000007 */
.L_x_0:
        /*0050*/                   BRA `(.L_x_0);                      /* 0xfffffffc00fc7947 */
                                                                       /* 0x000fc0000383ffff */
.L_x_1:
"#;

    #[test]
    fn reads_a_kernel() {
        let m = parse(SAXPY).unwrap();
        assert_eq!(m.arch.as_deref(), Some("sm_90"));
        let k = &m.kernels[0];
        assert_eq!((k.name.as_str(), k.entry, k.registers), ("saxpy", true, Some(10)));
        assert_eq!(k.instructions.len(), 6);
        let i = &k.instructions[0];
        assert_eq!((i.pc, i.opcode.as_str(), i.ptx_line), (0, "LDC", Some(21)));
        assert_eq!(i.source.as_ref().map(|s| (s.file.as_str(), s.line)), Some(("kernel.cu", 2)));
        assert_eq!(i.operands[1].value, Value::Const { bank: Bank::Index(0), addr: Address { offset: 0x28, ..Address::default() } });
        assert_eq!(i.encoding, Some(0x000fe20000000800_00000a00ff017b82));
        let s2r = &k.instructions[1];
        assert_eq!(s2r.operands[1].value, Value::Special("SR_TID.X".into()));
        assert_eq!(s2r.source.as_ref().unwrap().to_string(), "kernel.cu:4 <- kernel.cu:9");
        // line info persists until changed
        assert_eq!(k.instructions[2].ptx_line, Some(36));
        assert_eq!(k.instructions[2].guard, Some(Guard { negated: false, pred: Pred { uniform: false, index: 0 } }));
        let ldg = &k.instructions[3];
        assert_eq!(ldg.mnemonic(), "LDG.E");
        let Value::Mem { desc: Some(Desc::Global(d)), addr } = &ldg.operands[1].value else { panic!("{:?}", ldg.operands[1]) };
        assert_eq!((d.to_string(), addr.reg.as_ref().unwrap().wide(), addr.offset), ("UR4".into(), true, -0x10));
        assert_eq!(ldg.control.unwrap().write_barrier, Some(2));
        let ffma = &k.instructions[4];
        assert!(ffma.operands[1].neg && ffma.operands[1].reuse && ffma.operands[3].abs);
        assert_eq!(ffma.text(), "FFMA R7, -R2.reuse, UR6, |R7|");
        assert_eq!(k.instructions[5].operands[0].value, Value::Target { label: ".L_x_0".into(), pc: Some(0x50) });
        assert_eq!(k.labels.get(".L_x_1"), Some(&0x60));
        assert_eq!(k.at(0x40).map(|i| i.opcode.as_str()), Some("FFMA"));
    }

    #[test]
    fn reads_register_counts_from_nv_info() {
        // nvdisasm 13 prints no `.sectioninfo`: the count is the REGCOUNT attribute of `.nv.info`,
        // two words (the function, the count) after the attribute's header bytes.
        let info = "\t.target\tsm_90\n//--------------------- .nv.info --------------------------\n\t.section\t.nv.info,\"\",@\"SHT_CUDA_INFO\"\n\t.align\t4\n\t//----- nvinfo : EIATTR_FRAME_SIZE\n /*0000*/ \t.byte\t0x04, 0x11\n /*0004*/ \t.word\tindex@(saxpy)\n /*0008*/ \t.word\t0x00000040\n\t//----- nvinfo : EIATTR_REGCOUNT\n\t.align\t\t4\n /*000c*/ \t.byte\t0x04, 0x2f\n /*000e*/ \t.short\t(.L_7 - .L_6)\n\t.align\t\t4\n.L_6:\n /*0010*/ \t.word\tindex@(saxpy)\n /*0014*/ \t.word\t0x0000001a\n";
        let listing = SAXPY.replace("\t.sectioninfo\t@\"SHI_REGISTERS=10\"\n", "").replacen("\t.target\tsm_90\n", info, 1);
        assert_eq!(parse(&listing).unwrap().kernels[0].registers, Some(26));
        // Without either, no count.
        let bare = SAXPY.replace("\t.sectioninfo\t@\"SHI_REGISTERS=10\"\n", "");
        assert_eq!(parse(&bare).unwrap().kernels[0].registers, None);
    }

    #[test]
    fn reads_operand_forms() {
        let one = |t: &str| parse_instruction(t, t, 1).unwrap();
        // sm_75 listings put a space between a constant's bank and offset.
        let i = one("HFMA2 R10, R10, R7, c[0x0] [0x17c]");
        assert_eq!(i.operands[3].value, Value::Const { bank: Bank::Index(0), addr: Address { offset: 0x17c, ..Address::default() } });
        assert!(one("IADD3.X R5, ~c[0x0][0x164], RZ, RZ, P0, !PT").operands[1].not);
        let i = one("@!UP0 SYNCS.EXCH.64 URZ, [UR6+0x8], UR4");
        assert_eq!(i.guard.unwrap().to_string_pair(), (true, "UP0".to_string()));
        let i = one("HFMA2.MMA R5, -RZ, RZ, 0.96630859375, -0.0022525787353515625");
        assert_eq!(i.operands[4].value, Value::Float(-0.0022525787353515625));
        let i = one("FSETP.GEU.AND P0, PT, |R3|, +INF, PT");
        assert_eq!(i.operands[3].value, Value::Float(f64::INFINITY));
        let i = one("MOV R2, 32@lo(srad_coeffs)");
        assert_eq!(i.operands[1].value, Value::Symbol { bits: 32, part: "lo".into(), name: "srad_coeffs".into() });
        let i = one("RET.REL.NODEC R20 `(srad_coeffs)");
        assert_eq!(i.operands.len(), 2);
        let i = one("LDC R0, c[0x3][UR4+0x10]");
        let Value::Const { bank: Bank::Index(3), addr } = &i.operands[1].value else { panic!() };
        assert_eq!((addr.ureg.as_ref().unwrap().reg.to_string(), addr.offset), ("UR4".into(), 0x10));
        let i = one("LDS R0, [R2+UR4+-0x4]");
        assert_eq!(i.operands[1].value.to_string(), "[R2+UR4+-0x4]");
        let i = one("DEPBAR.LE SB0, 0x0");
        assert_eq!(i.operands[0].value, Value::Scoreboard(0));
        let i = one("BSSY B1, `(.L_x_103)");
        assert_eq!(i.operands[0].value, Value::ConvBarrier(1));
        let i = one("LOP3.LUT R0, ~R3, R2, RZ, 0xc0, !PT");
        assert!(i.operands[1].not && i.operands[5].not);
        let i = one("HGMMA.64x128x16.F32 R24, gdesc[UR8], R24, gsb0");
        assert_eq!(i.modifiers, ["64x128x16", "F32"]);
        assert_eq!(i.operands[1].value.to_string(), "gdesc[UR8]");
        assert_eq!(i.operands[3].value, Value::Word("gsb0".into()));
        let i = one("IMAD.MOV.U32 R4, RZ, RZ, -0x1");
        assert_eq!(i.operands[3].value, Value::Int(-1));
        let i = one("PRMT R2, R3.B1, 0x7610, R2.H1");
        assert_eq!(i.operands[1].modifiers, ["B1"]);
        let i = one("NOP");
        assert!(i.operands.is_empty());
        let i = one("CS2R R4, SRZ");
        assert_eq!(i.operands[1].value, Value::Special("SRZ".into()));
    }

    impl Guard {
        fn to_string_pair(&self) -> (bool, String) {
            (self.negated, self.pred.to_string())
        }
    }

    #[test]
    fn errors_are_located() {
        let bad = SAXPY.replace("FFMA R7, -R2.reuse", "FFMA R7, -R2.reuse?");
        let e = parse(&bad).unwrap_err();
        let line = SAXPY.lines().position(|l| l.contains("FFMA")).unwrap() + 1;
        assert_eq!(e.line, line);
        assert!(e.text.starts_with('?'), "{e}");
        let bad_line = bad.lines().nth(line - 1).unwrap();
        assert_eq!(bad_line.chars().nth(e.column - 1), Some('?'), "{e}");
        for (from, to, what) in [
            ("R255", "R255", ""),
            ("LDC R1, c[0x0][0x28]", "LDC R1, c[0x0][0x28", "`]`"),
            ("`(.L_x_0)", "`(.L_x_0", "expected `)`"),
            ("@P0 EXIT", "@Q0 EXIT", "predicate"),
            ("S2R R0, SR_TID.X", "S2R R0, R256", "out of range"),
            ("/* 0x000fea0003800000 */", "/* 0x000fea00038000zz */", "16 hex digits"),
            ("\t//## File \"kernel.cu\", line 2\n", "\t//## File \"kernel.cu\", line two\n", "line number"),
            ("\t.align\t128", "\t.bogus 1", "unknown directive"),
        ] {
            if what.is_empty() {
                continue;
            }
            let e = parse(&SAXPY.replace(from, to)).unwrap_err();
            assert!(e.message.contains(what), "{from} -> {to}: {e}");
        }
        assert!(parse(".target sm_61\n").unwrap_err().message.contains("Volta"));
        // the high word must follow
        let e = parse(&SAXPY.replace("                                                                       /* 0x000fe20000000800 */\n", "")).unwrap_err();
        assert!(e.message.contains("high 64 bits"), "{e}");
    }

    #[test]
    fn reads_cuobjdump() {
        let text = "\nFatbin elf code:\n================\narch = sm_80\ncode version = [1,7]\nhost = linux\ncompile_size = 64bit\n\n\tcode for sm_80\n\t\tFunction : saxpy\n\t.headerflags\t@\"EF_CUDA_TEXMODE_UNIFIED EF_CUDA_64BIT_ADDRESS EF_CUDA_SM80 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM80)\"\n        /*0000*/                   MOV R1, c[0x0][0x28] ;           /* 0x00000a0000017a02 */\n                                                                    /* 0x000fe40000000f00 */\n        /*0010*/                   EXIT ;                           /* 0x000000000000794d */\n                                                                    /* 0x000fea0003800000 */\n\t\t..........\n\n";
        let m = parse(text).unwrap();
        assert_eq!(m.arch.as_deref(), Some("sm_80"));
        assert_eq!(m.kernels.len(), 1);
        assert_eq!(m.kernels[0].instructions.len(), 2);
    }
}
