//! A light read of PTX text: the parameter list and performance directives of one `.entry`, and
//! the names of all of them.
//! Enough to check a manifest against its kernel without the `isa` crate's full parser (this crate
//! must stay independent of it). Registers are not estimated here: the simulator does that from
//! the lowered program (`warpsim_isa::liveness`), or asks ptxas (`warpsim-toolchain`).
//!
//! It understands `.visible .entry NAME( .param .u64 NAME_param_0, .param .align 64 .b8 X[128] )`
//! followed by directives (`.maxntid`, `.reqntid`, `.minnctapersm`, `.maxnreg`,
//! `.reqnctapercluster`).

/// One `.param` of an entry: its type suffix (`u64`, `f32`, `b8`, ...) and array length if any.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PtxParam {
    pub name: String,
    pub ty: String,
    pub array: Option<u32>,
}

impl PtxParam {
    /// Width in bytes of the parameter (element width times array length).
    pub fn bytes(&self) -> Option<u64> {
        let digits: String = self.ty.chars().filter(|c| c.is_ascii_digit()).collect();
        let bits: u64 = digits.parse().ok()?;
        Some(bits / 8 * self.array.unwrap_or(1) as u64)
    }

    /// `.f16`/`.f32`/`.f64` parameters hold floats.
    pub fn is_float(&self) -> bool {
        self.ty.starts_with('f')
    }
}

/// What the manifest loader needs to know about one entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PtxEntry {
    pub params: Vec<PtxParam>,
    pub maxntid: Option<[u32; 3]>,
    pub minnctapersm: Option<u32>,
    pub maxnreg: Option<u32>,
    pub reqnctapercluster: Option<[u32; 3]>,
}

/// Find `.entry name(` in `ptx` and read its parameters and directives.
pub fn find_entry(ptx: &str, name: &str) -> Option<PtxEntry> {
    let start = ptx.match_indices(".entry").find_map(|(i, _)| {
        let rest = ptx[i + ".entry".len()..].trim_start();
        let rest = rest.strip_prefix(name)?;
        rest.trim_start()
            .starts_with('(')
            .then(|| ptx.len() - rest.trim_start().len())
    })?;
    let close = start + ptx[start..].find(')')?;
    let params = ptx[start + 1..close]
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(parse_param)
        .collect::<Option<Vec<_>>>()?;
    let body_start = close + ptx[close..].find('{')?;
    let header = &ptx[close + 1..body_start];
    matching_brace(ptx, body_start)?;
    Some(PtxEntry {
        params,
        maxntid: directive(header, ".maxntid")
            .or_else(|| directive(header, ".reqntid"))
            .map(dims3),
        minnctapersm: directive(header, ".minnctapersm").and_then(|v| v.first().copied()),
        maxnreg: directive(header, ".maxnreg").and_then(|v| v.first().copied()),
        reqnctapercluster: directive(header, ".reqnctapercluster").map(dims3),
    })
}

/// The names of the `.entry`s in `ptx`, in order (for messages).
pub fn entry_names(ptx: &str) -> Vec<&str> {
    ptx.match_indices(".entry")
        .filter_map(|(i, _)| {
            let rest = ptx[i + ".entry".len()..].trim_start();
            let end = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '$'))?;
            (end > 0 && rest[end..].trim_start().starts_with('(')).then(|| &rest[..end])
        })
        .collect()
}

fn parse_param(text: &str) -> Option<PtxParam> {
    let tokens: Vec<&str> = text.split_whitespace().collect();
    if tokens.first() != Some(&".param") {
        return None;
    }
    let ty = tokens
        .iter()
        .filter_map(|t| t.strip_prefix('.'))
        .find(|t| {
            t.len() >= 2
                && matches!(&t[..1], "u" | "s" | "b" | "f")
                && t[1..].chars().all(|c| c.is_ascii_digit())
        })?;
    let last = tokens.last()?;
    let (name, array) = match last.find('[') {
        Some(i) => (&last[..i], last[i + 1..].trim_end_matches(']').parse().ok()),
        None => (*last, None),
    };
    Some(PtxParam {
        name: name.to_string(),
        ty: ty.to_string(),
        array,
    })
}

fn matching_brace(text: &str, open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in text[open..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(open + i);
                }
            }
            _ => {}
        }
    }
    None
}

/// Numbers after a directive on its line: `.maxntid 256, 1, 1` gives [256, 1, 1].
fn directive(header: &str, name: &str) -> Option<Vec<u32>> {
    let line = header.lines().map(str::trim).find(|l| {
        l.strip_prefix(name)
            .is_some_and(|rest| rest.starts_with(char::is_whitespace))
    })?;
    let nums = line[name.len()..]
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|s| !s.is_empty())
        .map(str::parse)
        .collect::<Result<Vec<u32>, _>>()
        .ok()?;
    (!nums.is_empty()).then_some(nums)
}

fn dims3(v: Vec<u32>) -> [u32; 3] {
    [
        v.first().copied().unwrap_or(1),
        v.get(1).copied().unwrap_or(1),
        v.get(2).copied().unwrap_or(1),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    const PTX: &str = r#"
.visible .entry other(
	.param .u64 other_param_0
)
{ ret; }
.visible .entry k(
	.param .u64 k_param_0,
	.param .f32 k_param_1,
	.param .align 64 .b8 k_param_2[128]
)
.maxntid 256, 1, 1
.minnctapersm 4
.reqnctapercluster 2, 1, 1
{
	.reg .pred 	%p<3>;
	.reg .f32 	%f<10>;
	.reg .b64 	%rd<8>;
	{
	.reg .b32 inner;
	}
	ret;
}
"#;

    #[test]
    fn reads_params_and_directives() {
        let e = find_entry(PTX, "k").unwrap();
        assert_eq!(e.params.len(), 3);
        assert_eq!(
            e.params[0],
            PtxParam {
                name: "k_param_0".into(),
                ty: "u64".into(),
                array: None
            }
        );
        assert!(e.params[1].is_float());
        assert_eq!(e.params[2].bytes(), Some(128));
        assert_eq!(e.maxntid, Some([256, 1, 1]));
        assert_eq!(e.minnctapersm, Some(4));
        assert_eq!(e.reqnctapercluster, Some([2, 1, 1]));
        assert_eq!(find_entry(PTX, "other").unwrap().params.len(), 1);
        assert!(find_entry(PTX, "missing").is_none());
        assert!(find_entry(PTX, "ot").is_none());
    }
}
