//! `launch::load_manifest` (what `warpsim run` and sweeps load manifests with): when the PTX is
//! malformed, the PTX front end's own error, at the PTX's file:line:column, is what is reported,
//! not the manifest check it breaks (`` `entry`: no `.entry k(` ``).

use warpsim_workloads::LoadError;

const MANIFEST: &str = "name = \"k\"\nptx = \"k.ptx\"\nentry = \"k\"\ngrid = [1, 1, 1]\nblock = [32, 1, 1]\n\
                        [[buffer]]\nname = \"x\"\ndtype = \"u32\"\nlen = 32\n[[arg]]\nbuffer = \"x\"\n";

fn load(ptx: &str) -> Result<warpsim_workloads::Workload, LoadError> {
    let dir = std::env::temp_dir().join(format!("warpsim-load-{}-{}", std::process::id(), ptx.len()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("k.toml"), MANIFEST).unwrap();
    std::fs::write(dir.join("k.ptx"), ptx).unwrap();
    let r = warpsim_sim::launch::load_manifest(&dir.join("k.toml"));
    std::fs::remove_dir_all(&dir).unwrap();
    r
}

#[test]
fn a_ptx_that_does_not_parse_is_reported_at_its_own_line_and_column() {
    let good = ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(\n\t.param .u64 k_param_0\n)\n{\n\t.reg .b32 %r<3>;\n\tadd.s32 %r1, %r2, 1;\n\tret;\n}\n";
    load(good).unwrap();
    // The closing brace gone: the light read finds no entry; the parser says where it ended.
    let e = load(good.trim_end().trim_end_matches('}')).unwrap_err();
    assert!(matches!(e, LoadError::Ptx { .. }), "{e}");
    let msg = e.to_string();
    assert!(msg.contains("k.ptx:10:6: expected `}` closing the body, found end of file (the PTX of "), "{msg}");
    // A parameter cut in half: the light read counts two parameters for one [[arg]].
    let e = load(&good.replace("\t.param .u64 k_param_0\n", "\t.param .u64 k_param_0,\n\t.param .u64\n")).unwrap_err().to_string();
    assert!(e.contains("k.ptx:7:1: expected a variable name, found `)`"), "{e}");
}
