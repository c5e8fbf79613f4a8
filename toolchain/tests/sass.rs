//! The real ptxas + nvdisasm on the bundled suite for every Volta-to-Hopper target: each listing
//! parses, its control bits pass `warpsim_sass::check`, and the kernel parameters sit where
//! `warpsim_sass::abi` says (measured again here per target). Without the tools every test says
//! so and passes, unless `WARPSIM_REQUIRE_NVDISASM` is set (CI installs them and sets it).
//! Targets whose ptxas is missing (sm_70 needs CUDA 12's: `pip install nvidia-cuda-nvcc-cu12`)
//! are skipped with a line.

use std::collections::{BTreeMap, BTreeSet};

use warpsim_sass::{abi, check};
use warpsim_toolchain::{sass, Toolchain, ToolKind};
use warpsim_workloads::{bundled_names, Workload};

fn toolchain(test: &str) -> Option<Toolchain> {
    let tc = Toolchain::discover(None);
    if tc.ptxas_for("sm_90").is_none() || tc.of(ToolKind::Nvdisasm).next().is_none() {
        assert!(std::env::var_os("WARPSIM_REQUIRE_NVDISASM").is_none(), "{test}: WARPSIM_REQUIRE_NVDISASM is set but ptxas/nvdisasm were not found: {tc:?}");
        eprintln!("{test}: skipped, no ptxas + nvdisasm on this machine ({} ; {})", warpsim_toolchain::discover::INSTALL_HINT, sass::NVDISASM_HINT);
        return None;
    }
    Some(tc)
}

/// One workload per distinct PTX of the suite.
fn suite_ptx() -> Vec<Workload> {
    let mut seen = BTreeSet::new();
    bundled_names().into_iter().map(|n| Workload::bundled(n).unwrap()).filter(|w| seen.insert(w.ptx_path.clone())).collect()
}

/// The target of compute capability `cc`, when this machine has a ptxas for it (else a line and `None`).
fn served(tc: &Toolchain, cc: [u32; 2]) -> Option<String> {
    let target = warpsim_toolchain::discover::sm_target(cc);
    if tc.ptxas_for(&target).is_none() {
        eprintln!("{target}: skipped, no ptxas serves it here");
        return None;
    }
    Some(target)
}

/// `w`'s listing for `cc`, or `None` where ptxas rejects its code for that target (Hopper-only
/// code — TMA, wgmma, clusters — or cp.async before sm_80).
fn listing_of(tc: &Toolchain, cc: [u32; 2], w: &Workload) -> Option<sass::Listing> {
    let t = sass::target_for(cc, &w.ptx);
    match sass::listing(tc, &w.ptx, &t) {
        Ok(l) => Some(l),
        Err(sass::SassError::Rejected { .. }) => None,
        Err(e) => panic!("{} for {t}: {e}", w.ptx_path.display()),
    }
}

fn params(ptx: &str) -> BTreeMap<String, Vec<(u32, u32)>> {
    warpsim_sass::abi::entry_params(&warpsim_isa::parse(ptx, "kernel.ptx").unwrap()).into_iter().collect()
}

#[test]
fn every_target_parses_checks_and_measures() {
    let Some(tc) = toolchain("every_target_parses_checks_and_measures") else { return };
    let suite = suite_ptx();
    let mut measured = 0;
    for cc in [[7, 0], [7, 5], [8, 0], [8, 6], [8, 9], [9, 0]] {
        let Some(target) = served(&tc, cc) else { continue };
        let mut report = check::Report::default();
        let mut evidence = Vec::new();
        let (mut compiled, mut rejected) = (0, 0);
        for w in &suite {
            let t = sass::target_for(cc, &w.ptx);
            let Some(listing) = listing_of(&tc, cc, w) else {
                rejected += 1;
                continue;
            };
            compiled += 1;
            let m = warpsim_sass::parse(&listing.text).unwrap_or_else(|e| panic!("{} for {t}: {e}", w.ptx_path.display()));
            assert_eq!(m.arch.as_deref(), Some(t.as_str()));
            for (name, ps) in params(&w.ptx) {
                let k = m.kernel(&name).unwrap_or_else(|| panic!("{}: {name} missing for {t}", w.ptx_path.display()));
                evidence.push(abi::Evidence { name: name.clone(), params: ps, reads: abi::bank0_reads(k) });
            }
            for k in &m.kernels {
                report.merge(check::kernel(k));
            }
        }
        let inf = abi::infer_param_base(&evidence).unwrap();
        let mut rules: BTreeMap<&str, usize> = BTreeMap::new();
        for v in &report.violations {
            *rules.entry(v.rule).or_insert(0) += 1;
        }
        let fixed: usize = report.fixed_latency.values().sum();
        eprintln!(
            "{target}: {compiled} PTX compiled ({rejected} rejected), {} instructions, {} dependences, {} violations {rules:?} ({:.3}%); fixed-latency below 4 cycles {}/{fixed}, uniform below 2 {}; parameters at {:#x} ({} reads explained, {} not; driver constants below: {:x?})",
            report.instructions,
            report.dependences,
            report.violations.len(),
            report.violation_rate(),
            report.fixed_below(4),
            report.fixed_uniform_below(2),
            inf.base,
            inf.explained,
            inf.unexplained.len(),
            inf.below
        );
        for v in report.violations.iter().take(10) {
            eprintln!("  {} {:#06x} {}: {}", v.kernel, v.pc, v.rule, v.detail);
        }
        assert_eq!(Some(inf.base), abi::param_base(&target), "{target}");
        assert!(inf.unexplained.is_empty(), "{target}: {:x?}", inf.unexplained);
        assert!(report.violations.is_empty(), "{target}");
        assert_eq!(report.fixed_below(3), 0, "{target}: {:?}", report.fixed_latency);
        measured += 1;
    }
    assert!(measured >= 5, "{measured} targets measured");
}

/// Every kernel of the bundled suite that ptxas compiles for a Volta-to-Hopper target lowers
/// from that target's listing and passes its workload's check on the simulator (functionally).
/// One workload per distinct set of kernels (the others differ only in sizes and inputs), and
/// sm_86 left out (its listings are sm_89's); code ptxas rejects for the target (TMA, wgmma,
/// clusters, cp.async before their generation) is counted.
#[test]
fn every_target_runs_the_suite_in_sass_mode() {
    let Some(tc) = toolchain("every_target_runs_the_suite_in_sass_mode") else { return };
    let mut kernels = BTreeSet::new();
    let names: Vec<&str> = bundled_names()
        .into_iter()
        .filter(|n| {
            let w = Workload::bundled(n).unwrap();
            kernels.insert((w.ptx_path.clone(), w.manifest.launches.iter().map(|l| l.entry.clone()).collect::<Vec<_>>()))
        })
        .collect();
    let mut ran = 0;
    for cc in [[7, 0], [7, 5], [8, 0], [8, 9], [9, 0]] {
        let Some(target) = served(&tc, cc) else { continue };
        let (mut passed, mut rejected, mut failed) = (0, 0, Vec::new());
        for name in &names {
            let w = Workload::bundled(name).unwrap();
            let Some(listing) = listing_of(&tc, cc, &w) else {
                rejected += 1;
                continue;
            };
            let file = w.ptx_path.display().to_string();
            let module = warpsim_isa::load(&w.ptx, &file).unwrap();
            let progs: Result<Vec<_>, _> = w
                .manifest
                .launches
                .iter()
                .map(|l| warpsim_sass::lower::lower_listing(&listing.text, &l.entry, module.iter().find(|p| p.name == l.entry).unwrap()))
                .collect();
            match progs.map_err(|e| e.to_string()).and_then(|p| warpsim_sim::launch::run_functional_with(&w, 132, p).map_err(|e| e.to_string())) {
                Ok(o) if o.check.passed() => passed += 1,
                Ok(o) => failed.push(format!("{name}: {}", o.check)),
                Err(e) => failed.push(format!("{name}: {e}")),
            }
        }
        eprintln!("{target}: {passed} workloads pass in SASS mode, {rejected} are code ptxas rejects for {target}, {} fail", failed.len());
        assert!(failed.is_empty(), "{target}:\n{}", failed.join("\n"));
        assert!(passed > 100, "{target}: {passed} pass");
        ran += 1;
    }
    assert!(ran >= 4, "{ran} targets run");
}

/// SASS mode beyond the suite: every kernel of the PTX parser corpus (`isa/tests/corpus/ptx*`,
/// the `-G` builds left out) in its sm_80 and sm_90 listings. The kernels that lower are counted
/// and may only grow (767 when this was written; the first opcode of each of the rest is printed,
/// `-- --nocapture`), and the corpus's switches (`BRX` jump tables), module variables (constant
/// banks 3 and 4), f64 and f16 arithmetic and 64-bit atomics all lower.
#[test]
fn corpus_kernels_lower() {
    let Some(tc) = toolchain("corpus_kernels_lower") else { return };
    let root = format!("{}/../isa/tests/corpus", env!("CARGO_MANIFEST_DIR"));
    let (mut lowered, mut missing) = (BTreeSet::new(), BTreeMap::<String, Vec<String>>::new());
    for dir in ["ptx", "ptx_nvrtc"] {
        let mut files: Vec<_> = std::fs::read_dir(format!("{root}/{dir}")).unwrap().flatten().map(|e| e.path()).filter(|p| !p.to_string_lossy().contains(".G.")).collect();
        files.sort();
        for path in files {
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            let ptx = std::fs::read_to_string(&path).unwrap();
            let Ok(progs) = warpsim_isa::load(&ptx, &name) else { continue };
            for cc in [[8, 0], [9, 0]] {
                let t = sass::target_for(cc, &ptx);
                // ptxas rejects Hopper-only code for sm_80 and unresolved externs (-rdc builds).
                let Ok(l) = sass::listing(&tc, &ptx, &t) else { continue };
                let m = warpsim_sass::parse(&l.text).unwrap_or_else(|e| panic!("{name} for {t}: {e}"));
                for p in progs.iter().filter(|p| m.kernel(&p.name).is_some()) {
                    match warpsim_sass::lower::lower(&m, &p.name, p) {
                        Ok(_) => {
                            lowered.insert(format!("{name} {t} {} ({dir})", p.name));
                        }
                        Err(e) => missing.entry(e.opcode.clone()).or_default().push(format!("{name} {t} {}: {}", p.name, e.reason)),
                    }
                }
            }
        }
    }
    println!("{} corpus kernels lower; the rest, by first opcode not lowered:", lowered.len());
    for (op, ks) in &missing {
        println!("  {op}: {} ({})", ks.len(), ks[0]);
    }
    for must in ["branches_switch.sm_90.ptx sm_90", "double_math.sm_90.ptx sm_90 double_", "half_bf16.sm_90.ptx sm_90 bf16_math", "atomics.sm_90.ptx sm_90 global_atomics_int"] {
        assert!(lowered.iter().any(|k| k.starts_with(must)), "no kernel `{must}…` lowers");
    }
    let bank = missing.values().flatten().filter(|k| k.starts_with("memory_spaces") && k.contains("constant bank")).count();
    assert_eq!(bank, 0, "memory_spaces kernels fail on a constant bank: {missing:?}");
    assert!(lowered.len() >= 819, "{} corpus kernels lower (819 when written)", lowered.len());
}
