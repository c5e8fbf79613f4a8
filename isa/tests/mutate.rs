//! Mutated real PTX (the corpus's smaller nvcc files, isa/tests/corpus/ptx) is either rejected
//! with an error at a file:line:column inside the file, or still lowers — never a panic — and an
//! opcode swapped for one that takes a different number of operands is always rejected.

use proptest::prelude::*;
use std::path::PathBuf;

/// The corpus files under 15 kB (64 of the 140), sorted, with their text.
fn corpus() -> Vec<(PathBuf, String)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/ptx");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|e| e == "ptx")).collect();
    files.sort();
    files.into_iter().map(|p| (p.clone(), std::fs::read_to_string(&p).unwrap())).filter(|(_, s)| s.len() < 15_000).collect()
}

/// Splits text into words and the separators between them (so that joining gives it back).
fn tokens(src: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, c) in src.char_indices() {
        if !(c.is_alphanumeric() || matches!(c, '_' | '%' | '$' | '.' | ':')) {
            if start < i {
                out.push(&src[start..i]);
            }
            out.push(&src[i..i + c.len_utf8()]);
            start = i + c.len_utf8();
        }
    }
    if start < src.len() {
        out.push(&src[start..]);
    }
    out
}

const OPCODES: &[&str] = &["add", "mad", "fma", "ld", "st", "mov", "setp", "selp", "bra", "cvt", "shl", "neg", "atom", "bar", "ret", "shfl"];
const JUNK: &[&str] = &["[", "]", "{", "}", ",", ";", "(", ")", "99999999999999999999", "-1", "%r1", "0f7FC00000", "@%p1", ".global", "|"];

/// Applies one mutation, chosen by `kind`, at token `at`.
fn mutate(toks: &mut Vec<String>, kind: u8, at: usize, pick: usize) {
    if toks.is_empty() {
        return;
    }
    let i = at % toks.len();
    match kind % 6 {
        0 => {
            toks.remove(i);
        }
        1 => {
            let t = toks[i].clone();
            toks.insert(i, t);
        }
        2 => {
            let j = pick % toks.len();
            toks.swap(i, j);
        }
        3 => toks[i] = OPCODES[pick % OPCODES.len()].to_string(),
        4 => toks.insert(i, JUNK[pick % JUNK.len()].to_string()),
        _ => {
            // Drop a bracket pair's opening or closing bracket.
            if let Some(j) = (i..toks.len()).find(|&j| toks[j] == "[" || toks[j] == "]") {
                toks.remove(j);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 384, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn mutated_corpus_ptx_is_rejected_with_a_location_or_still_lowers(
        file in any::<prop::sample::Index>(),
        muts in prop::collection::vec((any::<u8>(), any::<usize>(), any::<usize>()), 1..4),
    ) {
        let files = corpus();
        let (path, src) = &files[file.index(files.len())];
        let mut toks: Vec<String> = tokens(src).into_iter().map(String::from).collect();
        for (kind, at, pick) in muts {
            mutate(&mut toks, kind, at, pick);
        }
        let text = toks.concat();
        if let Err(e) = warpsim_isa::load(&text, "m.ptx") {
            let lines = text.lines().count().max(1) as u32;
            prop_assert_eq!(&e.file, "m.ptx");
            prop_assert!(e.pos.line >= 1 && e.pos.line <= lines + 1 && e.pos.col >= 1, "{} ({}): {}", path.display(), lines, e);
            prop_assert!(e.to_string().starts_with(&format!("m.ptx:{}:{}: ", e.pos.line, e.pos.col)), "{}", e);
            prop_assert!(!e.msg.is_empty());
        }
    }
}

/// Every instruction of the small corpus files whose opcode is one of a pair taking different
/// operand counts, swapped for the other (operands kept), is rejected at its line.
#[test]
fn opcode_swaps_that_change_the_operand_count_are_rejected() {
    // (opcode, replacement): 3 ↔ 4 and 2 ↔ 3 operands, types kept valid for both.
    let swaps = [("add.f32", "fma.rn.f32"), ("fma.rn.f32", "add.f32"), ("mul.lo.s32", "mad.lo.s32"), ("mad.lo.s32", "mul.lo.s32"), ("neg.f32", "sub.f32"), ("sub.f32", "neg.f32"), ("selp.b32", "and.b32")];
    let (mut tried, mut rejected) = (0, 0);
    for (path, src) in corpus() {
        for (from, to) in swaps {
            for (n, line) in src.lines().enumerate() {
                let body = line.trim_start();
                let body = body.strip_prefix('@').map_or(body, |g| g.split_once(char::is_whitespace).map_or(g, |x| x.1.trim_start()));
                if !body.starts_with(&format!("{from} ")) && !body.starts_with(&format!("{from}\t")) {
                    continue;
                }
                let mutated: String = src
                    .lines()
                    .enumerate()
                    .map(|(i, l)| if i == n { l.replacen(from, to, 1) } else { l.to_string() })
                    .collect::<Vec<_>>()
                    .join("\n");
                tried += 1;
                match warpsim_isa::load(&mutated, "m.ptx") {
                    Err(e) if e.pos.line == n as u32 + 1 => rejected += 1,
                    other => panic!("{}:{}: `{from}` → `{to}` gave {:?}", path.display(), n + 1, other.map(|p| p.len())),
                }
            }
        }
    }
    eprintln!("{rejected} of {tried} opcode swaps rejected");
    assert!(tried > 100, "only {tried} swaps tried");
}
