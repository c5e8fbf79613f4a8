//! PTX tokens.
//!
//! A thin layer over `logos`: every token carries its byte span, and [`Lexer`] turns spans into
//! 1-based line/column positions for error messages. PTX is line-agnostic except for `.loc` and
//! `.file`, which the parser bounds by their fixed grammar, so newlines are skipped like other
//! whitespace. Dotted words (`.u32`, `.shared::cluster`, `.2d`, `.mbarrier::complete_tx::bytes`)
//! are one token; `%r1`, `$L__BB0_2`, `_Z3fooi` are identifiers; `_` alone is the sink operand.

use logos::Logos;

/// One PTX token. Text-carrying variants borrow from the source.
#[derive(Logos, Debug, Clone, Copy, PartialEq)]
#[logos(skip r"[ \t\r\n\f]+")]
#[logos(skip(r"//[^\n]*", allow_greedy = true))]
#[logos(skip r"/\*([^*]|\*+[^*/])*\*+/")]
pub enum Tok<'a> {
    /// `.word`, `.2d`, `.shared::cta`, `.L2::cache_hint` — directives and modifiers.
    #[regex(r"\.[A-Za-z0-9_$]+(::[A-Za-z0-9_$]+)*", |l| l.slice())]
    Dot(&'a str),
    /// Identifiers: `%r1`, `%tid`, `$L__BB0_1`, `_Z3fooi`, `add`, `param0`.
    #[regex(r"[A-Za-z][A-Za-z0-9_$]*|[_$%][A-Za-z0-9_$]+", |l| l.slice())]
    Ident(&'a str),
    /// Hexadecimal single-precision float `0f3F800000`.
    #[regex(r"0[fF][0-9A-Fa-f]{8}", |l| u32::from_str_radix(&l.slice()[2..], 16).ok())]
    F32Hex(u32),
    /// Hexadecimal double-precision float `0d3FF0000000000000`.
    #[regex(r"0[dD][0-9A-Fa-f]{16}", |l| u64::from_str_radix(&l.slice()[2..], 16).ok())]
    F64Hex(u64),
    /// Decimal float literal `1.5`, `1e-3`, `2.0E+4`.
    #[regex(r"[0-9]+\.[0-9]*([eE][+-]?[0-9]+)?|[0-9]+[eE][+-]?[0-9]+", |l| l.slice().parse::<f64>().ok())]
    Float(f64),
    /// Integer literal (decimal, hex `0x`, octal `0…`, binary `0b`), optional `U` suffix. The flag
    /// records the `U` suffix. Values beyond `u64` fail to lex.
    #[regex(r"0[xX][0-9A-Fa-f]+U?|0[bB][01]+U?|[0-9]+U?", lex_int)]
    Int((u64, bool)),
    #[regex(r#""([^"\\\n]|\\.)*""#, |l| { let s = l.slice(); &s[1..s.len() - 1] })]
    Str(&'a str),
    #[token(",")]
    Comma,
    #[token(";")]
    Semi,
    #[token(":")]
    Colon,
    #[token("{")]
    LBrace,
    #[token("}")]
    RBrace,
    #[token("[")]
    LBracket,
    #[token("]")]
    RBracket,
    #[token("(")]
    LParen,
    #[token(")")]
    RParen,
    #[token("<")]
    Lt,
    #[token(">")]
    Gt,
    #[token("+")]
    Plus,
    #[token("-")]
    Minus,
    #[token("!")]
    Bang,
    #[token("@")]
    At,
    #[token("|")]
    Pipe,
    #[token("=")]
    Eq,
    #[token("_")]
    Sink,
}

fn lex_int<'a>(l: &mut logos::Lexer<'a, Tok<'a>>) -> Option<(u64, bool)> {
    let s = l.slice();
    let (s, unsigned) = match s.strip_suffix('U') {
        Some(t) => (t, true),
        None => (s, false),
    };
    let v = if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        u64::from_str_radix(h, 16).ok()?
    } else if let Some(b) = s.strip_prefix("0b").or_else(|| s.strip_prefix("0B")) {
        u64::from_str_radix(b, 2).ok()?
    } else if s.len() > 1 && s.starts_with('0') {
        u64::from_str_radix(&s[1..], 8).ok()?
    } else {
        s.parse::<u64>().ok()?
    };
    Some((v, unsigned))
}

impl Tok<'_> {
    /// How the token reads in an error message.
    pub fn describe(&self) -> String {
        match self {
            Tok::Dot(s) | Tok::Ident(s) => format!("`{s}`"),
            Tok::F32Hex(v) => format!("`0f{v:08X}`"),
            Tok::F64Hex(v) => format!("`0d{v:016X}`"),
            Tok::Float(v) => format!("`{v}`"),
            Tok::Int((v, _)) => format!("`{v}`"),
            Tok::Str(s) => format!("`\"{s}\"`"),
            Tok::Comma => "`,`".into(),
            Tok::Semi => "`;`".into(),
            Tok::Colon => "`:`".into(),
            Tok::LBrace => "`{`".into(),
            Tok::RBrace => "`}`".into(),
            Tok::LBracket => "`[`".into(),
            Tok::RBracket => "`]`".into(),
            Tok::LParen => "`(`".into(),
            Tok::RParen => "`)`".into(),
            Tok::Lt => "`<`".into(),
            Tok::Gt => "`>`".into(),
            Tok::Plus => "`+`".into(),
            Tok::Minus => "`-`".into(),
            Tok::Bang => "`!`".into(),
            Tok::At => "`@`".into(),
            Tok::Pipe => "`|`".into(),
            Tok::Eq => "`=`".into(),
            Tok::Sink => "`_`".into(),
        }
    }
}

/// A 1-based source position.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash, serde::Serialize)]
pub struct Pos {
    pub line: u32,
    pub col: u32,
}

impl std::fmt::Display for Pos {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}

/// A lexed token with its position and source text.
#[derive(Debug, Clone, Copy)]
pub struct Token<'a> {
    pub tok: Tok<'a>,
    pub pos: Pos,
    pub text: &'a str,
}

/// Tokenizes the whole source up front. A byte sequence that is no token becomes an error
/// with its position and text.
pub fn tokenize(src: &str) -> Result<Vec<Token<'_>>, (Pos, String)> {
    let mut out = Vec::with_capacity(src.len() / 5);
    let mut lex = Tok::lexer(src);
    // Incremental line tracking: spans only move forward.
    let mut line = 1u32;
    let mut line_start = 0usize;
    let mut scanned = 0usize;
    let bytes = src.as_bytes();
    while let Some(r) = lex.next() {
        let span = lex.span();
        for (i, &b) in bytes[scanned..span.start].iter().enumerate() {
            if b == b'\n' {
                line += 1;
                line_start = scanned + i + 1;
            }
        }
        scanned = span.start;
        let pos = Pos { line, col: (src[line_start..span.start].chars().count() + 1) as u32 };
        match r {
            Ok(tok) => out.push(Token { tok, pos, text: lex.slice() }),
            Err(()) => {
                let bad: String = src[span.start..].chars().take_while(|c| !c.is_whitespace()).take(24).collect();
                return Err((pos, format!("unrecognized text `{bad}`")));
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<Tok<'_>> {
        tokenize(s).unwrap().into_iter().map(|t| t.tok).collect()
    }

    #[test]
    fn dotted_modifiers_are_single_tokens() {
        assert_eq!(
            toks("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"),
            vec![
                Tok::Ident("cp"),
                Tok::Dot(".async"),
                Tok::Dot(".bulk"),
                Tok::Dot(".tensor"),
                Tok::Dot(".2d"),
                Tok::Dot(".shared::cluster"),
                Tok::Dot(".global"),
                Tok::Dot(".mbarrier::complete_tx::bytes"),
            ]
        );
    }

    #[test]
    fn literals() {
        assert_eq!(toks("0f3F800000"), vec![Tok::F32Hex(0x3F80_0000)]);
        assert_eq!(toks("0d3FF0000000000000"), vec![Tok::F64Hex(0x3FF0_0000_0000_0000)]);
        assert_eq!(toks("0x1fU 017 0b101 42"), vec![
            Tok::Int((31, true)),
            Tok::Int((15, false)),
            Tok::Int((5, false)),
            Tok::Int((42, false))
        ]);
        assert_eq!(toks("1.5 2e3"), vec![Tok::Float(1.5), Tok::Float(2000.0)]);
        assert_eq!(toks("-1"), vec![Tok::Minus, Tok::Int((1, false))]);
    }

    #[test]
    fn identifiers_sinks_and_comments() {
        assert_eq!(
            toks("%r12|%p3, _ // c\n $L__BB0_2 /* x */ _Z3fooi %tid.x"),
            vec![
                Tok::Ident("%r12"),
                Tok::Pipe,
                Tok::Ident("%p3"),
                Tok::Comma,
                Tok::Sink,
                Tok::Ident("$L__BB0_2"),
                Tok::Ident("_Z3fooi"),
                Tok::Ident("%tid"),
                Tok::Dot(".x"),
            ]
        );
    }

    #[test]
    fn positions_are_one_based_lines_and_columns() {
        let t = tokenize("a\n  b;\n\tc").unwrap();
        assert_eq!(t[0].pos, Pos { line: 1, col: 1 });
        assert_eq!(t[1].pos, Pos { line: 2, col: 3 });
        assert_eq!(t[2].pos, Pos { line: 2, col: 4 });
        assert_eq!(t[3].pos, Pos { line: 3, col: 2 });
    }

    #[test]
    fn bad_bytes_are_errors_with_position() {
        let e = tokenize("add.s32 %r1, %r2;\n  # oops").unwrap_err();
        assert_eq!(e.0, Pos { line: 2, col: 3 });
        assert!(e.1.contains("#"), "{}", e.1);
    }

    #[test]
    fn huge_integer_is_an_error_not_a_panic() {
        assert!(tokenize("99999999999999999999999").is_err());
    }
}
