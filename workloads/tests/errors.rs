//! One test per error kind: the message names file:line:column and the key path, and no input
//! (arbitrary or mutated TOML) makes the loader panic.

use proptest::prelude::*;
use std::path::Path;
use warpsim_workloads::{
    ErrorKind, Interleave, L2Promotion, ManifestError, OobFill, Swizzle, Workload,
};

const PTX: &str = ".version 9.0\n.target sm_90\n.address_size 64\n.visible .entry k(\n\t.param .u64 k_param_0,\n\t.param .u64 k_param_1,\n\t.param .u32 k_param_2\n)\n{\n\tret;\n}\n";

const GOOD: &str = r#"name = "t"
ptx = "k.ptx"
entry = "k"
grid = [4, 1, 1]
block = [32, 1, 1]

[[buffer]]
name = "in"
dtype = "f32"
len = 128
init = { uniform = [-1.0, 1.0], seed = 1 }

[[buffer]]
name = "out"
dtype = "f32"
len = 128
output = true

[[arg]]
buffer = "in"

[[arg]]
buffer = "out"

[[arg]]
scalar = { dtype = "s32", value = 128, name = "n" }

[check]
reference = "copy"
bitwise = true
"#;

fn read(rel: &str) -> std::io::Result<Vec<u8>> {
    match rel {
        "k.ptx" => Ok(PTX.as_bytes().to_vec()),
        "eight.bin" => Ok(vec![0; 8]),
        _ => Err(std::io::Error::new(
            std::io::ErrorKind::NotFound,
            "no such file",
        )),
    }
}

fn load(src: &str) -> Result<Workload, warpsim_workloads::LoadError> {
    Workload::parse(src, Path::new("dir/t.toml"), &read)
}

/// Load `src` (GOOD with `from` replaced by `to`), expect an error of `kind` at the first
/// occurrence of `at` in the edited source (plus `col_shift` characters), on key `key`.
fn expect(
    from: &str,
    to: &str,
    kind: ErrorKind,
    at: &str,
    col_shift: usize,
    key: &str,
) -> ManifestError {
    assert!(GOOD.contains(from), "{from:?} not in the base manifest");
    let src = GOOD.replacen(from, to, 1);
    let err = load(&src).expect_err("the edit must be rejected");
    let e = err
        .manifest_error()
        .unwrap_or_else(|| panic!("not a manifest error: {err}"))
        .clone();
    let offset = src
        .find(at)
        .unwrap_or_else(|| panic!("{at:?} not in the edited source"))
        + col_shift;
    let line = src[..offset].matches('\n').count() + 1;
    let column = offset - src[..offset].rfind('\n').map_or(0, |p| p + 1) + 1;
    assert_eq!(
        (e.kind, e.line, e.column, e.key.as_str()),
        (kind, line, column, key),
        "{e}"
    );
    let shown = e.to_string();
    assert!(
        shown.starts_with(&format!("dir/t.toml:{line}:{column}: ")),
        "{shown}"
    );
    if !key.is_empty() {
        assert!(shown.contains(&format!("`{key}`")), "{shown}");
    }
    e
}

#[test]
fn good_manifest_loads() {
    let w = load(GOOD).unwrap();
    assert_eq!(w.launch().cluster, [1, 1, 1]);
    assert_eq!(w.launch().regs_source, warpsim_workloads::RegsSource::Estimate);
    assert_eq!(w.launch().regs_per_thread, None);
}

#[test]
fn syntax_error() {
    // the parser notices the missing `]` at the next line's first token
    expect(
        "grid = [4, 1, 1]",
        "grid = [4, 1, 1",
        ErrorKind::Syntax,
        "\nblock",
        1,
        "grid",
    );
}

#[test]
fn unknown_key() {
    let e = expect(
        "output = true",
        "output = true\ncolour = 3",
        ErrorKind::UnknownKey,
        "colour",
        0,
        "buffer[1].colour",
    );
    assert!(e.message.contains("colour"));
}

#[test]
fn wrong_type() {
    expect(
        "len = 128\ninit",
        "len = \"big\"\ninit",
        ErrorKind::Type,
        "\"big\"",
        0,
        "buffer[0].len",
    );
}

#[test]
fn unknown_dtype() {
    expect(
        "dtype = \"f32\"\nlen = 128\ninit",
        "dtype = \"f33\"\nlen = 128\ninit",
        ErrorKind::Value,
        "\"f33\"",
        0,
        "buffer[0].dtype",
    );
}

#[test]
fn unknown_buffer_in_arg() {
    let e = expect(
        "buffer = \"out\"",
        "buffer = \"outt\"",
        ErrorKind::UnknownBuffer,
        "\"outt\"",
        0,
        "arg[1].buffer",
    );
    assert!(e.message.contains("outt"));
}

#[test]
fn zero_length() {
    expect(
        "len = 128\ninit",
        "len = 0\ninit",
        ErrorKind::Value,
        "0\ninit",
        0,
        "buffer[0].len",
    );
}

#[test]
fn uniform_lo_above_hi() {
    expect(
        "[-1.0, 1.0]",
        "[1.0, -1.0]",
        ErrorKind::Value,
        "[1.0, -1.0]",
        0,
        "buffer[0].init.uniform",
    );
}

#[test]
fn chase_footprint_not_multiple_of_stride() {
    expect(
        "dtype = \"f32\"\nlen = 128\ninit = { uniform = [-1.0, 1.0], seed = 1 }",
        "dtype = \"u32\"\nlen = 128\ninit = { chase = { footprint = 500, stride = 64 }, seed = 1 }",
        ErrorKind::Value,
        "500",
        0,
        "buffer[0].init.chase.footprint",
    );
}

#[test]
fn init_does_not_match_dtype() {
    expect(
        "dtype = \"f32\"\nlen = 128\ninit",
        "dtype = \"u32\"\nlen = 128\ninit",
        ErrorKind::DTypeMismatch,
        "-1.0",
        0,
        "buffer[0].init.uniform[0]",
    );
    expect(
        "dtype = \"f32\"\nlen = 128\ninit = { uniform = [-1.0, 1.0], seed = 1 }",
        "dtype = \"s8\"\nlen = 128\ninit = { uniform = [0, 256], seed = 1 }",
        ErrorKind::DTypeMismatch,
        "256",
        0,
        "buffer[0].init.uniform[1]",
    );
}

#[test]
fn randint_bounds() {
    // integers exact in the dtype load (f16: up to 2048)
    let ok = GOOD.replacen(
        "dtype = \"f32\"\nlen = 128\ninit = { uniform = [-1.0, 1.0], seed = 1 }",
        "dtype = \"f16\"\nlen = 128\ninit = { randint = [-2048, 2048], seed = 1 }",
        1,
    );
    let ok = ok.replacen(
        "dtype = \"f32\"\nlen = 128\noutput",
        "dtype = \"f16\"\nlen = 128\noutput",
        1,
    );
    load(&ok).unwrap_or_else(|e| panic!("{e}"));
    expect(
        "dtype = \"f32\"\nlen = 128\ninit = { uniform = [-1.0, 1.0], seed = 1 }",
        "dtype = \"f16\"\nlen = 128\ninit = { randint = [-4, 4097], seed = 1 }",
        ErrorKind::DTypeMismatch,
        "[-4, 4097]",
        0,
        "buffer[0].init.randint",
    );
    expect(
        "dtype = \"f32\"\nlen = 128\ninit = { uniform = [-1.0, 1.0], seed = 1 }",
        "dtype = \"f16\"\nlen = 128\ninit = { randint = [-4, 4.5], seed = 1 }",
        ErrorKind::Value,
        "4.5",
        0,
        "buffer[0].init.randint[1]",
    );
    expect(
        "dtype = \"f32\"\nlen = 128\ninit = { uniform = [-1.0, 1.0], seed = 1 }",
        "dtype = \"s8\"\nlen = 128\ninit = { randint = [4, -4], seed = 1 }",
        ErrorKind::Value,
        "[4, -4]",
        0,
        "buffer[0].init.randint",
    );
}

#[test]
fn integer_out_of_dtype_range() {
    expect(
        "dtype = \"f32\"\nlen = 128\ninit = { uniform = [-1.0, 1.0], seed = 1 }",
        "dtype = \"u8\"\nlen = 512\ninit = { const = 300 }",
        ErrorKind::DTypeMismatch,
        "300",
        0,
        "buffer[0].init.const",
    );
}

#[test]
fn missing_init_file() {
    expect(
        "{ uniform = [-1.0, 1.0], seed = 1 }",
        "{ file = \"data.bin\" }",
        ErrorKind::File,
        "\"data.bin\"",
        0,
        "buffer[0].init.file",
    );
}

#[test]
fn init_file_of_wrong_size() {
    let e = expect(
        "{ uniform = [-1.0, 1.0], seed = 1 }",
        "{ file = \"eight.bin\" }",
        ErrorKind::File,
        "\"eight.bin\"",
        0,
        "buffer[0].init.file",
    );
    assert!(e.message.contains("512"), "{e}");
}

#[test]
fn missing_ptx() {
    expect(
        "ptx = \"k.ptx\"",
        "ptx = \"gone.ptx\"",
        ErrorKind::File,
        "\"gone.ptx\"",
        0,
        "ptx",
    );
}

#[test]
fn entry_not_in_ptx() {
    expect(
        "entry = \"k\"",
        "entry = \"kk\"",
        ErrorKind::Ptx,
        "\"kk\"",
        0,
        "entry",
    );
}

#[test]
fn arg_type_does_not_match_ptx() {
    expect(
        "dtype = \"s32\", value = 128",
        "dtype = \"f32\", value = 128",
        ErrorKind::Ptx,
        "{ dtype = \"f32\"",
        0,
        "arg[2].scalar",
    );
}

#[test]
fn arg_count_does_not_match_ptx() {
    let e = expect(
        "[check]",
        "[[arg]]\nbuffer = \"in\"\n\n[check]",
        ErrorKind::Ptx,
        "\"in\"\n\n[check]",
        0,
        "arg[3].buffer",
    );
    assert!(
        e.message.contains("4 [[arg]]") && e.message.contains("3 parameters"),
        "{e}"
    );
}

#[test]
fn unknown_reference() {
    expect(
        "reference = \"copy\"",
        "reference = \"cpy\"",
        ErrorKind::Reference,
        "\"cpy\"",
        0,
        "check.reference",
    );
}

#[test]
fn reference_missing_its_scalar() {
    let e = expect(
        "reference = \"copy\"",
        "reference = \"strided_copy\"",
        ErrorKind::Reference,
        "\"strided_copy\"",
        0,
        "check.reference",
    );
    assert!(e.message.contains("stride"), "{e}");
}

#[test]
fn bad_launch_shape() {
    expect(
        "grid = [4, 1, 1]",
        "grid = [4, 0, 1]",
        ErrorKind::Value,
        "0, 1]",
        0,
        "grid[1]",
    );
    expect(
        "block = [32, 1, 1]",
        "block = [32, 1, 1]\ncluster = [3, 1, 1]",
        ErrorKind::Value,
        "[3, 1, 1]",
        0,
        "cluster",
    );
}

#[test]
fn missing_required_key() {
    let e = expect("entry = \"k\"\n", "", ErrorKind::Type, "name", 0, "name");
    assert!(e.message.contains("entry"), "{e}");
}

#[test]
fn unreadable_manifest_is_an_io_error() {
    let err = Workload::load("/nonexistent/dir/x.toml").unwrap_err();
    assert!(err.to_string().contains("/nonexistent/dir/x.toml"));
}

#[test]
fn unknown_bundled_name() {
    let err = Workload::bundled("no_such_workload").unwrap_err();
    assert!(err.to_string().contains("no_such_workload"));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn arbitrary_text_never_panics(src in "\\PC{0,400}") {
        let _ = load(&src);
    }

    #[test]
    fn mutated_manifest_never_panics(edits in proptest::collection::vec((any::<prop::sample::Index>(), 0u8..4, "[ -~\\n]{0,6}"), 1..6)) {
        let mut src = GOOD.to_string();
        for (at, op, text) in edits {
            let mut pos = at.index(src.len() + 1);
            while !src.is_char_boundary(pos) { pos -= 1; }
            match op {
                0 => src.insert_str(pos, &text),
                1 => { let end = (pos + text.len()).min(src.len()); if src.is_char_boundary(end) { src.replace_range(pos..end, ""); } }
                2 => { let end = (pos + text.len()).min(src.len()); if src.is_char_boundary(end) { src.replace_range(pos..end, &text); } }
                _ => { let digits = "0-1e99nan"; src.insert_str(pos, &digits[..text.len().min(digits.len())]); }
            }
        }
        if let Err(e) = load(&src) {
            if let Some(m) = e.manifest_error() {
                prop_assert!(m.line >= 1 && m.column >= 1);
            }
        }
    }
}

const TMA_PTX: &str = ".visible .entry t(\n\t.param .align 64 .b8 t_param_0[128],\n\t.param .u64 t_param_1\n)\n{\n\tret;\n}\n";

const TMA: &str = r#"name = "tma"
ptx = "t.ptx"
entry = "t"
grid = [4, 4, 1]
block = [128, 1, 1]
cluster = [2, 1, 1]

[[buffer]]
name = "in"
dtype = "f32"
len = 65536

[[buffer]]
name = "out"
dtype = "f32"
len = 65536
output = true

[[arg]]
tensor_map = { buffer = "in", dtype = "f32", dims = [256, 256], strides = [1024], box = [64, 64], swizzle = "128B", l2_promotion = "256B" }

[[arg]]
buffer = "out"
"#;

fn load_tma(src: &str) -> Result<Workload, warpsim_workloads::LoadError> {
    let read = |rel: &str| match rel {
        "t.ptx" => Ok(TMA_PTX.as_bytes().to_vec()),
        _ => Err(std::io::Error::from(std::io::ErrorKind::NotFound)),
    };
    Workload::parse(src, Path::new("tma.toml"), &read)
}

#[test]
fn tensor_map_arg_loads_with_defaults() {
    let w = load_tma(TMA).unwrap();
    let warpsim_workloads::Arg::TensorMap(t) = &w.manifest.launch().args[0] else {
        panic!("not a tensor map")
    };
    assert_eq!(
        (
            t.buffer,
            t.dims.as_slice(),
            t.strides.as_slice(),
            t.box_dims.as_slice()
        ),
        (0, &[256u64, 256][..], &[1024u64][..], &[64u32, 64][..])
    );
    assert_eq!(t.elem_strides, vec![1, 1]);
    assert_eq!(
        (t.swizzle, t.interleave, t.oob_fill, t.l2_promotion),
        (
            Swizzle::B128,
            Interleave::None,
            OobFill::Zero,
            L2Promotion::B256
        )
    );
    assert_eq!(w.launch().cluster, [2, 1, 1]);
}

#[test]
fn tensor_map_errors_are_located() {
    let cases = [
        (
            "strides = [1024]",
            "strides = [1000]",
            "[1000]",
            "arg[0].tensor_map.strides",
        ),
        (
            "box = [64, 64]",
            "box = [64, 512]",
            "[64, 512]",
            "arg[0].tensor_map.box",
        ),
        (
            "dims = [256, 256]",
            "dims = [256, 512]",
            "[256, 512]",
            "arg[0].tensor_map.dims",
        ),
        (
            "buffer = \"in\", dtype",
            "buffer = \"nope\", dtype",
            "\"nope\"",
            "arg[0].tensor_map.buffer",
        ),
    ];
    for (from, to, at, key) in cases {
        let src = TMA.replacen(from, to, 1);
        let err = load_tma(&src).expect_err(to);
        let e = err.manifest_error().unwrap();
        let offset = src.find(at).unwrap();
        let column = offset - src[..offset].rfind('\n').unwrap();
        assert_eq!(
            (e.line, e.column, e.key.as_str()),
            (src[..offset].matches('\n').count() + 1, column, key),
            "{e}"
        );
    }
    // a tensor map where the PTX has a pointer, and a pointer where it has a tensor map
    let swapped = TMA
        .replacen(
            "[[arg]]\ntensor_map",
            "[[arg]]\nbuffer = \"in\"\n\n[[arg]]\ntensor_map",
            1,
        )
        .replacen("\n[[arg]]\nbuffer = \"out\"\n", "", 1);
    let e = load_tma(&swapped).unwrap_err();
    assert_eq!(e.manifest_error().unwrap().kind, ErrorKind::Ptx, "{e}");
}

/// A manifest that disagrees with its PTX because the PTX itself is broken (its body's closing
/// brace missing, so the light read finds no entry; a parameter cut in half, so the counts
/// differ): with a PTX front end to ask, its located error is the one reported.
#[test]
fn a_broken_ptx_reports_its_own_error_through_the_check() {
    let dir = std::env::temp_dir().join(format!("warpsim-ptxcheck-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("t.toml"), GOOD).unwrap();
    let manifest = dir.join("t.toml");
    let front_end = |text: &str, file: &str| -> Result<(), String> {
        match text.matches('{').count() == text.matches('}').count() {
            true => Ok(()),
            false => Err(format!("{file}:11:1: expected `}}` closing the body")),
        }
    };
    std::fs::write(dir.join("k.ptx"), PTX.trim_end().trim_end_matches('}')).unwrap();
    let e = Workload::load(&manifest).unwrap_err();
    assert_eq!(e.manifest_error().map(|m| m.kind), Some(ErrorKind::Ptx), "{e}");
    let e = Workload::load_checked(&manifest, &front_end).unwrap_err().to_string();
    let ptx = dir.join("k.ptx").display().to_string();
    assert_eq!(e, format!("{ptx}:11:1: expected `}}` closing the body (the PTX of {})", manifest.display()));
    // The check finds nothing wrong: the manifest's own error stands.
    let e = Workload::load_checked(&manifest, &|_, _| Ok(())).unwrap_err();
    assert!(e.to_string().contains("no `.entry k(`"), "{e}");
    // Parameters that disagree with the [[arg]]s are asked about too.
    std::fs::write(dir.join("k.ptx"), PTX.replace("\t.param .u32 k_param_2\n", "\t.param .u32 k_param_2,\n\t.param .u32 {\n")).unwrap();
    assert!(Workload::load(&manifest).unwrap_err().to_string().contains("3 [[arg]] given, but `.entry k` has 4 parameters"));
    assert!(Workload::load_checked(&manifest, &front_end).unwrap_err().to_string().starts_with(&format!("{ptx}:11:1:")));
    // A manifest that agrees with its PTX never asks.
    std::fs::write(dir.join("k.ptx"), PTX).unwrap();
    Workload::load_checked(&manifest, &|_, _| panic!("asked about a PTX the manifest agrees with")).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
}

/// CUDA's launch limits, at the manifest's line and column: threads per block (1025 was a
/// kernel fault without a location), a block's z extent, grid y and z, the cluster size, and
/// dynamic shared memory.
#[test]
fn launch_limits_are_located() {
    let e = expect("block = [32, 1, 1]", "block = [1025, 1, 1]", ErrorKind::Value, "1025", 0, "block[0]");
    assert!(e.message.contains("block x extent 1025 exceeds 1024"), "{e}");
    let e = expect("block = [32, 1, 1]", "block = [64, 32, 1]", ErrorKind::Value, "[64", 0, "block");
    assert!(e.message.contains("block [64, 32, 1] has 2048 threads; a launch allows 1024"), "{e}");
    expect("block = [32, 1, 1]", "block = [1, 1, 65]", ErrorKind::Value, "65]", 0, "block[2]");
    let e = expect("grid = [4, 1, 1]", "grid = [4, 65536, 1]", ErrorKind::Value, "65536", 0, "grid[1]");
    assert!(e.message.contains("grid y extent 65536 exceeds 65535"), "{e}");
    expect("grid = [4, 1, 1]", "grid = [2147483648, 1, 1]", ErrorKind::Value, "2147483648", 0, "grid[0]");
    let e = expect("grid = [4, 1, 1]", "grid = [4, 1, 1]\ndynamic_smem = 300000", ErrorKind::Value, "300000", 0, "dynamic_smem");
    assert!(e.message.contains("300000 bytes of dynamic shared memory; no GPU gives a block more than 232448"), "{e}");
    expect("grid = [4, 1, 1]", "grid = [32, 1, 1]\ncluster = [32, 1, 1]", ErrorKind::Value, "cluster = [32", 11, "cluster[0]");
    assert!(load(&GOOD.replacen("grid = [4, 1, 1]", "grid = [2147483647, 65535, 65535]\ndynamic_smem = 232448", 1)).is_ok());
}

/// Buffer sizes are bounded before anything is generated: one buffer of 4294967297 × f32, or
/// buffers that together pass 16 GiB.
#[test]
fn buffer_sizes_are_bounded_before_generation() {
    let e = expect("len = 128\ninit", "len = 4294967297\ninit", ErrorKind::Value, "4294967297", 0, "buffer[0].len");
    assert!(e.message.contains("4294967297 × f32 is more than the 17179869184 bytes (16 GiB)"), "{e}");
    let src = GOOD.replacen("len = 128\ninit", "len = 3000000000\ninit", 1).replacen("len = 128\noutput", "len = 3000000000\noutput", 1);
    let e = load(&src).unwrap_err();
    let m = e.manifest_error().unwrap();
    assert_eq!((m.key.as_str(), m.kind), ("buffer[1].len", ErrorKind::Value), "{e}");
    assert!(m.message.contains("the buffers take 24000000000 bytes with `out`; together they may take at most 17179869184"), "{e}");
}

/// Bytes that are not UTF-8, in the manifest or in its PTX, are named with their byte offset.
#[test]
fn invalid_utf8_is_located_by_byte_offset() {
    let e = Workload::parse(GOOD, Path::new("dir/t.toml"), &|rel| match rel {
        "k.ptx" => Ok(b".version 9.0\n// \xff\n".to_vec()),
        _ => read(rel),
    })
    .unwrap_err();
    let m = e.manifest_error().unwrap();
    assert_eq!(m.kind, ErrorKind::File);
    assert!(m.message.contains("PTX `k.ptx` is not UTF-8 text: byte 0xff at byte offset 16 (line 2, column 4)"), "{e}");
    let dir = std::env::temp_dir().join(format!("warpsim-utf8-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("t.toml"), [GOOD.as_bytes(), b"# \xc3\x28\n"].concat()).unwrap();
    let e = Workload::load(dir.join("t.toml")).unwrap_err();
    let why = std::error::Error::source(&e).map(|s| s.to_string()).unwrap_or_default();
    assert_eq!(why, format!("not UTF-8 text: byte 0xc3 at byte offset {} (line {}, column 3)", GOOD.len() + 2, GOOD.lines().count() + 1));
    std::fs::remove_dir_all(&dir).unwrap();
}
