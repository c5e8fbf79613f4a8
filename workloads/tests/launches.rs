//! `[[launch]]` sequences: what loads, and one located error per way a sequence can be wrong
//! (unknown entry, arguments that do not match the entry, `repeat = 0`, bad `swap`s, top-level
//! launch keys beside a sequence, a manifest with neither).

use std::path::Path;
use warpsim_workloads::{ErrorKind, Workload};

const PTX: &str = ".version 9.0\n.target sm_90\n.address_size 64\n\
.visible .entry step(\n\t.param .u64 step_param_0,\n\t.param .u64 step_param_1\n)\n{\n\tret;\n}\n\
.visible .entry total(\n\t.param .u64 total_param_0,\n\t.param .u64 total_param_1,\n\t.param .u32 total_param_2\n)\n{\n\tret;\n}\n";

const SEQ: &str = r#"name = "t"
ptx = "k.ptx"
entry = "step"

[[buffer]]
name = "a"
dtype = "f32"
len = 128
output = true

[[buffer]]
name = "b"
dtype = "f32"
len = 128
output = true

[[buffer]]
name = "sum"
dtype = "f32"
len = 1
output = true

[[launch]]
grid = [4, 1, 1]
block = [32, 1, 1]
repeat = 3
swap = ["a", "b"]
[[launch.arg]]
buffer = "a"
[[launch.arg]]
buffer = "b"

[[launch]]
entry = "total"
grid = [1, 1, 1]
block = [32, 1, 1]
[[launch.arg]]
buffer = "a"
[[launch.arg]]
buffer = "sum"
[[launch.arg]]
scalar = { dtype = "s32", value = 128, name = "n" }
"#;

fn load(src: &str) -> Result<Workload, warpsim_workloads::LoadError> {
    let read = |rel: &str| match rel {
        "k.ptx" => Ok(PTX.as_bytes().to_vec()),
        _ => Err(std::io::Error::new(std::io::ErrorKind::NotFound, "no such file")),
    };
    Workload::parse(src, Path::new("dir/t.toml"), &read)
}

/// SEQ with `from` replaced by `to` is refused with `kind` at the first `at` of the edited
/// source, the message containing `says`.
fn expect(from: &str, to: &str, kind: ErrorKind, at: &str, says: &str) {
    assert!(SEQ.contains(from), "{from:?} not in the base manifest");
    let src = SEQ.replacen(from, to, 1);
    let err = load(&src).expect_err("the edit must be rejected");
    let e = err.manifest_error().unwrap_or_else(|| panic!("not a manifest error: {err}")).clone();
    let offset = src.find(at).unwrap_or_else(|| panic!("{at:?} not in the edited source"));
    let line = src[..offset].matches('\n').count() + 1;
    let column = offset - src[..offset].rfind('\n').map_or(0, |p| p + 1) + 1;
    assert_eq!((e.kind, e.line, e.column), (kind, line, column), "{e}");
    assert!(e.to_string().starts_with(&format!("dir/t.toml:{line}:{column}: ")) && e.message.contains(says), "{e}");
}

#[test]
fn a_sequence_loads_and_schedules_its_swaps() {
    let w = load(SEQ).unwrap();
    let m = &w.manifest;
    assert_eq!((m.launches.len(), w.launches.len()), (2, 2));
    assert_eq!((m.launches[0].entry.as_str(), m.launches[0].repeat, m.launches[0].swap), ("step", 3, Some([0, 1])));
    assert_eq!((m.launches[1].entry.as_str(), m.launches[1].repeat, m.launches[1].swap), ("total", 1, None));
    assert_eq!(w.launches[1].grid, [1, 1, 1]);
    let (runs, last) = m.schedule();
    let launched: Vec<(usize, Vec<usize>)> = vec![(0, vec![0, 1, 2]), (0, vec![1, 0, 2]), (0, vec![0, 1, 2]), (1, vec![1, 0, 2])];
    assert_eq!(runs, launched, "a swap applies after each repetition");
    assert_eq!(last, [1, 0, 2], "after three swaps `a` names b's memory");
    assert_eq!(m.args().count(), 5);
}

#[test]
fn a_single_launch_is_a_sequence_of_one() {
    let single = "name = \"s\"\nptx = \"k.ptx\"\nentry = \"step\"\ngrid = [2]\nblock = [32]\n[[buffer]]\nname = \"a\"\ndtype = \"f32\"\nlen = 4\n[[arg]]\nbuffer = \"a\"\n[[arg]]\nbuffer = \"a\"\n";
    let w = load(single).unwrap();
    assert_eq!((w.manifest.launches.len(), w.manifest.launch().repeat, w.manifest.launch().entry.as_str()), (1, 1, "step"));
    assert_eq!(w.manifest.schedule().0, [(0, vec![0])]);
}

#[test]
fn unknown_entry() {
    expect("entry = \"total\"", "entry = \"totl\"", ErrorKind::Ptx, "\"totl\"", "no `.entry totl(` in `k.ptx` (entries: step, total)");
}

#[test]
fn args_must_match_the_launch_entry() {
    // The second launch's entry takes three parameters; two given.
    expect("[[launch.arg]]\nscalar", "[[launch.x]]\nscalar", ErrorKind::UnknownKey, "x]]", "x");
    let src_from = "[[launch.arg]]\nscalar = { dtype = \"s32\", value = 128, name = \"n\" }\n";
    expect(src_from, "", ErrorKind::Ptx, "\"total\"", "2 [[arg]] given, but `.entry total` has 3 parameters");
    expect("[[launch.arg]]\nbuffer = \"b\"\n", "[[launch.arg]]\nscalar = { dtype = \"s32\", value = 1 }\n", ErrorKind::Ptx, "{ dtype = \"s32\", value = 1 }", "does not match PTX parameter `.u64 step_param_1`");
}

#[test]
fn repeat_zero() {
    expect("repeat = 3", "repeat = 0", ErrorKind::Value, "0\nswap", "`repeat` must be between 1 and 100000, got 0");
}

#[test]
fn swap_names_two_different_buffers_of_one_shape() {
    expect("swap = [\"a\", \"b\"]", "swap = [\"a\", \"c\"]", ErrorKind::UnknownBuffer, "\"c\"", "no buffer named `c`");
    expect("swap = [\"a\", \"b\"]", "swap = [\"a\", \"sum\"]", ErrorKind::Value, "[\"a\", \"sum\"]", "`a` is 128 × f32, `sum` is 1 × f32");
    expect("swap = [\"a\", \"b\"]", "swap = [\"a\", \"a\"]", ErrorKind::Value, "\"a\"]", "names `a` twice");
    expect("swap = [\"a\", \"b\"]", "swap = [\"a\"]", ErrorKind::Value, "[\"a\"]", "`swap` names two buffers, got 1");
}

#[test]
fn top_level_launch_keys_beside_a_sequence() {
    expect("entry = \"step\"\n", "entry = \"step\"\ngrid = [4]\n", ErrorKind::Value, "[4]", "go in each [[launch]]");
}

#[test]
fn no_launch_at_all() {
    let start = SEQ.find("[[launch]]").unwrap();
    let src = &SEQ[..start];
    let e = load(src).unwrap_err();
    let e = e.manifest_error().unwrap();
    assert_eq!((e.kind, e.line, e.column), (ErrorKind::Type, 3, 9), "{e}");
    assert!(e.message.contains("missing `grid`"), "{e}");
}
