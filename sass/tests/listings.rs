//! The committed listings of the bundled suite (`workloads/suite/*/kernel.<target>.sass`, written
//! by `workloads/gen_sass.sh` from ptxas 13.0.88 + nvdisasm): real SASS for CI, which has no
//! CUDA tools. Every listing parses; every PTX entry has its kernel; line info points into the
//! PTX; the control bits pass `check`; the parameter base of `abi` is what the code reads.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use warpsim_sass::{abi, check, parse, Module};

struct Listing {
    dir: String,
    target: String,
    ptx: String,
    module: Module,
}

fn suite() -> Vec<Listing> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../workloads/suite");
    let mut out = Vec::new();
    let mut dirs: Vec<_> = std::fs::read_dir(&root).unwrap().flatten().map(|e| e.path()).filter(|p| p.join("kernel.ptx").is_file()).collect();
    dirs.sort();
    for d in dirs {
        let ptx = std::fs::read_to_string(d.join("kernel.ptx")).unwrap();
        let mut listings: Vec<_> = std::fs::read_dir(&d).unwrap().flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "sass")).collect();
        listings.sort();
        assert_eq!(listings.len(), 1, "{}: one committed listing expected (workloads/gen_sass.sh)", d.display());
        let path = &listings[0];
        let target = path.file_stem().unwrap().to_string_lossy().trim_start_matches("kernel.").to_string();
        let text = std::fs::read_to_string(path).unwrap();
        let module = parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        out.push(Listing { dir: d.file_name().unwrap().to_string_lossy().into_owned(), target, ptx, module });
    }
    assert!(out.len() >= 30, "{} listings", out.len());
    out
}

/// (name, [(size, align)]) of every `.entry`'s parameters, in order.
fn entries(ptx: &str) -> Vec<(String, Vec<(u32, u32)>)> {
    warpsim_sass::abi::entry_params(&warpsim_isa::parse(ptx, "kernel.ptx").unwrap())
}

#[test]
fn every_committed_listing_parses_and_has_every_entry() {
    let mut kernels = 0;
    let mut instructions = 0;
    for l in suite() {
        assert_eq!(l.module.arch.as_deref(), Some(l.target.as_str()), "{}", l.dir);
        let ptx_lines: Vec<&str> = l.ptx.lines().collect();
        for (name, _) in entries(&l.ptx) {
            let k = l.module.kernel(&name).unwrap_or_else(|| panic!("{}: entry {name} has no kernel in the listing", l.dir));
            assert!(k.entry, "{}: {name} not marked as an entry", l.dir);
            assert!(!k.instructions.is_empty());
            kernels += 1;
            for i in &k.instructions {
                instructions += 1;
                assert!(i.encoding.is_some() && i.control.is_some(), "{}: {name} pc {:#x}: no encoding", l.dir, i.pc);
                // The padding after the last EXIT (the self-branch and NOPs) has no line info.
                if i.opcode == "NOP" || i.opcode == "BRA" && i.source.is_none() {
                    continue;
                }
                let src = i.source.as_ref().unwrap_or_else(|| panic!("{}: {name} pc {:#x} `{}` has no source line", l.dir, i.pc, i.text()));
                assert!(src.line > 0);
                let p = i.ptx_line.unwrap_or_else(|| panic!("{}: {name} pc {:#x} has no PTX line", l.dir, i.pc)) as usize;
                let text = ptx_lines.get(p - 1).map_or("", |t| t.trim());
                assert!(!text.is_empty() && !text.starts_with("//") && !text.starts_with(".loc"), "{}: {name} pc {:#x} maps to PTX line {p} `{text}`", l.dir, i.pc);
            }
        }
    }
    eprintln!("{kernels} kernels, {instructions} instructions parsed");
    assert!(kernels >= 100);
}

/// Every entry carries ptxas's register count (`EIATTR_REGCOUNT`, which gen_sass.sh keeps): it
/// exceeds every register index the code names, and it is the count ncu reported for the H200's
/// build wherever a manifest records one (`regs_per_thread`).
#[test]
fn listings_give_ptxas_register_counts() {
    let mut compared = 0;
    for l in suite() {
        for (name, _) in entries(&l.ptx) {
            let k = l.module.kernel(&name).unwrap();
            let regs = k.registers.unwrap_or_else(|| panic!("{}: {name} has no EIATTR_REGCOUNT", l.dir));
            let used = k
                .instructions
                .iter()
                .flat_map(|i| i.text().split(|c: char| !c.is_ascii_alphanumeric()).filter_map(|w| w.strip_prefix('R')?.parse::<u32>().ok()).collect::<Vec<_>>())
                .max()
                .unwrap_or(0);
            assert!(used < regs && regs <= 255, "{}: {name}: {regs} registers, R{used} used", l.dir);
        }
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../workloads/suite").join(&l.dir);
        let mut manifests: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "toml")).collect();
        manifests.sort();
        for m in manifests {
            let Ok(w) = warpsim_workloads::Workload::load(&m) else { continue };
            for (spec, launch) in w.manifest.launches.iter().zip(&w.launches) {
                if let (warpsim_workloads::RegsSource::Manifest, Some(r)) = (&launch.regs_source, launch.regs_per_thread) {
                    let k = l.module.kernel(&spec.entry).unwrap();
                    assert_eq!(k.registers, Some(r), "{}: {} ({}) says {r}", l.dir, spec.entry, m.display());
                    compared += 1;
                }
            }
        }
    }
    eprintln!("{compared} manifest register counts equal the listings'");
    assert!(compared >= 150, "{compared}");
}

#[test]
fn control_bits_pass_the_scoreboard_checks() {
    let mut total = check::Report::default();
    for l in suite() {
        for k in &l.module.kernels {
            total.merge(check::kernel(k));
        }
    }
    let mut by_rule: BTreeMap<&str, usize> = BTreeMap::new();
    for v in &total.violations {
        *by_rule.entry(v.rule).or_insert(0) += 1;
    }
    eprintln!(
        "sm_90 suite: {} instructions, {} barrier producers, {} dependences checked, {} violations {by_rule:?} ({:.3}%); fixed-latency distances {:?}, uniform {:?}",
        total.instructions,
        total.producers,
        total.dependences,
        total.violations.len(),
        total.violation_rate(),
        total.fixed_latency,
        total.fixed_latency_uniform
    );
    for v in total.violations.iter().take(20) {
        eprintln!("  {} {:#06x} {}: {}", v.kernel, v.pc, v.rule, v.detail);
    }
    assert!(total.dependences > 1000, "{}", total.dependences);
    assert!(total.violations.is_empty());
    assert_eq!(total.fixed_below(3), 0);
    // 3 cycles occurs only rarely (an IMAD.WIDE's low half): under 1% of the dependences.
    let fixed: usize = total.fixed_latency.values().sum();
    assert!(total.fixed_below(4) * 100 < fixed, "{:?}", total.fixed_latency);
    assert_eq!(total.fixed_uniform_below(2), 0);
}

#[test]
fn parameters_sit_where_abi_says() {
    let mut evidence = Vec::new();
    let mut targets = BTreeSet::new();
    for l in suite() {
        targets.insert(l.target.clone());
        for (name, params) in entries(&l.ptx) {
            let reads = abi::bank0_reads(l.module.kernel(&name).unwrap());
            evidence.push(abi::Evidence { name: format!("{}/{name}", l.dir), params, reads });
        }
    }
    let inf = abi::infer_param_base(&evidence).unwrap();
    eprintln!("{targets:?}: parameters at c[0x0][{:#x}] ({} reads land on parameters, {} at or above the base outside them: {:x?}); below it the code reads {:x?}", inf.base, inf.explained, inf.unexplained.len(), inf.unexplained, inf.below);
    for t in &targets {
        assert_eq!(Some(inf.base), abi::param_base(t), "{t}");
    }
    assert!(inf.explained > 300, "{}", inf.explained);
    assert!(inf.unexplained.is_empty());
}

#[test]
fn a_bundled_workload_finds_its_committed_listing() {
    let w = warpsim_workloads::Workload::bundled("saxpy").unwrap();
    let m = parse(w.committed_sass("sm_90").unwrap()).unwrap();
    assert!(m.kernel("saxpy").is_some());
    assert!(w.committed_sass("sm_80").is_none());
    let mut changed = w.clone();
    changed.ptx.push_str("\n// edited\n");
    assert!(changed.committed_sass("sm_90").is_none(), "a listing of other PTX");
}

mod never_panics {
    use proptest::prelude::*;

    fn sample() -> String {
        let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../workloads/suite/saxpy/kernel.sm_90.sass");
        std::fs::read_to_string(root).unwrap()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn on_arbitrary_text(s in "\\PC{0,400}") {
            let _ = warpsim_sass::parse(&s);
        }

        #[test]
        fn on_mutated_listings(edits in proptest::collection::vec((any::<prop::sample::Index>(), 0..4u8, "[ -~]{0,3}"), 1..6)) {
            let mut text = sample();
            for (at, kind, ins) in edits {
                let mut pos = at.index(text.len() + 1);
                while !text.is_char_boundary(pos) { pos -= 1; }
                match kind {
                    0 => text.insert_str(pos, &ins),
                    1 => { let end = (pos + ins.len().max(1)).min(text.len()); if text.is_char_boundary(end) { text.replace_range(pos..end, ""); } }
                    2 => { let end = (pos + ins.len()).min(text.len()); if text.is_char_boundary(end) { text.replace_range(pos..end, &ins); } }
                    _ => text.insert(pos, '\n'),
                }
            }
            if let Err(e) = warpsim_sass::parse(&text) {
                prop_assert!(e.line >= 1 && e.column >= 1, "{e}");
            }
        }
    }
}
