//! The real-PTX corpus: every PTX file nvcc (on the H200 machine) and NVRTC produced for our test
//! kernels, and the bundled workloads' PTX, must parse and lower without error. Also reports the
//! parser's throughput on the corpus (run with `--nocapture` to see it).

use std::path::{Path, PathBuf};

fn ptx_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            ptx_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "ptx") {
            out.push(p);
        }
    }
}

fn corpus() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    let extra = std::env::var("WARPSIM_CORPUS").ok();
    let dirs: Vec<PathBuf> = match &extra {
        Some(d) => d.split(':').map(PathBuf::from).collect(),
        None => vec![root.join("tests/corpus"), root.join("../workloads/suite"), root.join("../sim/tests/ptx")],
    };
    for d in dirs {
        ptx_files(&d, &mut files);
    }
    files
}

#[test]
fn every_corpus_file_parses_and_lowers() {
    let files = corpus();
    assert!(!files.is_empty(), "no PTX corpus found");
    let mut failures = Vec::new();
    let mut bytes = 0usize;
    let mut kernels = 0usize;
    let mut insts = 0usize;
    let t = std::time::Instant::now();
    for f in &files {
        let src = std::fs::read_to_string(f).unwrap();
        bytes += src.len();
        match warpsim_isa::load(&src, &f.display().to_string()) {
            Ok(progs) => {
                kernels += progs.len();
                insts += progs.iter().map(|p| p.insts.len()).sum::<usize>();
            }
            Err(e) => failures.push(e.to_string()),
        }
    }
    let secs = t.elapsed().as_secs_f64();
    println!(
        "corpus: {} files, {:.1} MB, {kernels} kernels, {insts} instructions lowered in {secs:.3} s ({:.1} MB/s parse+lower)",
        files.len(),
        bytes as f64 / 1e6,
        bytes as f64 / 1e6 / secs
    );
    assert!(failures.is_empty(), "{} of {} files failed:\n{}", failures.len(), files.len(), failures.join("\n"));
}
