//! Embeds the bundled suite: every file under `suite/` becomes an entry of a generated table
//! `SUITE_FILES: &[(&str, &[u8])]` (path relative to `suite/`, bytes via `include_bytes!`), so
//! `Workload::bundled` works from any directory without the source tree.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, out);
        } else {
            out.push(path);
        }
    }
}

fn main() {
    let root =
        PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let suite = root.join("suite");
    println!("cargo:rerun-if-changed=suite");
    let mut files = Vec::new();
    collect(&suite, &mut files);
    files.sort();
    let out_path =
        PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("suite_files.rs");
    let mut out = fs::File::create(&out_path).expect("OUT_DIR is writable");
    writeln!(
        out,
        "/// Every file of the bundled suite: (path relative to `suite/`, contents)."
    )
    .unwrap();
    writeln!(out, "pub(crate) static SUITE_FILES: &[(&str, &[u8])] = &[").unwrap();
    for f in &files {
        let rel = f.strip_prefix(&suite).expect("collected under suite/");
        let rel = rel.to_string_lossy().replace('\\', "/");
        writeln!(
            out,
            "    ({:?}, include_bytes!({:?})),",
            rel,
            f.to_string_lossy()
        )
        .unwrap();
    }
    writeln!(out, "];").unwrap();
}
