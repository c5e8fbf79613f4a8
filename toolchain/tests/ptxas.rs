//! The real ptxas, where this machine has one (`tools/setup_cuda_wheels.sh`, or
//! `pip install nvidia-cuda-nvcc==13.0.88`; `.ci/run` installs it). Without one every test says so
//! and passes, unless `WARPSIM_REQUIRE_PTXAS` is set (CI): these check the compiler's answers,
//! which nothing here can fake.

use warpsim_toolchain::{ptxas, resolve, Resolution, Toolchain};
use warpsim_workloads::{bundled_names, RegsSource, Workload};

/// The toolchain from the environment, or `None` (with a message) when it has no ptxas for sm_90.
fn toolchain(test: &str) -> Option<Toolchain> {
    let tc = Toolchain::discover(None);
    if tc.ptxas_for("sm_90").is_none() {
        // CI installs ptxas for these tests and sets this: there a missing ptxas is a failure.
        assert!(std::env::var_os("WARPSIM_REQUIRE_PTXAS").is_none(), "{test}: WARPSIM_REQUIRE_PTXAS is set but no ptxas was found: {tc:?}");
        eprintln!("{test}: skipped, no ptxas for sm_90 on this machine ({})", warpsim_toolchain::discover::INSTALL_HINT);
        return None;
    }
    Some(tc)
}

/// Every bundled manifest's `regs_per_thread` is what ptxas reported for the H200's build (the
/// driver's `CU_FUNC_ATTRIBUTE_NUM_REGS` agrees); ptxas 13.0.88 here must give the same figure.
#[test]
fn bundled_manifests_agree_with_ptxas() {
    let Some(tc) = toolchain("bundled_manifests_agree_with_ptxas") else { return };
    let mut checked = 0;
    let mut wrong = Vec::new();
    for name in bundled_names() {
        let mut w = Workload::bundled(name).unwrap();
        let Some(manifest) = w.launches[0].regs_per_thread else { continue };
        w.launches[0].regs_per_thread = None;
        w.launches[0].regs_source = RegsSource::Estimate;
        assert_eq!(resolve(&mut w, [9, 0], &tc), Resolution::Compiler, "{name}");
        let got = w.launches[0].regs_per_thread.unwrap();
        if got != manifest {
            wrong.push(format!("{name}: manifest {manifest}, {} says {got}", w.launches[0].regs_source));
        }
        checked += 1;
    }
    eprintln!("{checked} bundled manifests checked against ptxas");
    assert!(checked >= 80, "{checked}");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn spills_and_launch_bounds_come_through() {
    let Some(tc) = toolchain("spills_and_launch_bounds_come_through") else { return };
    let mut w = Workload::bundled("occ_regs_capped").unwrap();
    w.launches[0].regs_per_thread = None;
    w.launches[0].regs_source = RegsSource::Estimate;
    assert_eq!(resolve(&mut w, [9, 0], &tc), Resolution::Compiler);
    // __launch_bounds__(256, 8): 32 registers, and ptxas spills to stay there.
    assert_eq!(w.launches[0].regs_per_thread, Some(32));
    assert!(w.launches[0].spills.store_bytes > 0 && w.launches[0].spills.load_bytes > 0, "{:?}", w.launches[0].spills);
    assert!(w.launches[0].regs_source.to_string().starts_with("ptxas 13.0"), "{}", w.launches[0].regs_source);
}

#[test]
fn maxrregcount_is_passed_to_ptxas() {
    let Some(tc) = toolchain("maxrregcount_is_passed_to_ptxas") else { return };
    let mut w = Workload::bundled("occ_regs_free").unwrap();
    w.launches[0].regs_per_thread = None;
    w.launches[0].regs_source = RegsSource::Estimate;
    // The module compiles once, under the manifest's limit; each launch keeps a copy for the estimate.
    w.manifest.maxrregcount = Some(24);
    w.launches[0].maxrregcount = Some(24);
    assert_eq!(resolve(&mut w, [9, 0], &tc), Resolution::Compiler);
    assert!(w.launches[0].regs_per_thread.unwrap() <= 24, "{:?}", w.launches[0].regs_per_thread);
    assert!(w.launches[0].spills.any(), "56 registers squeezed into 24 must spill: {:?}", w.launches[0].spills);
}

#[test]
fn sm90_ptx_is_retargeted_for_ampere() {
    let Some(tc) = toolchain("sm90_ptx_is_retargeted_for_ampere") else { return };
    let mut w = Workload::bundled("vector_add").unwrap();
    w.launches[0].regs_per_thread = None;
    w.launches[0].regs_source = RegsSource::Estimate;
    assert_eq!(resolve(&mut w, [8, 0], &tc), Resolution::Compiler);
    let src = w.launches[0].regs_source.to_string();
    assert!(src.contains("sm_80") && src.contains("retargeted from sm_90"), "{src}");
}

#[test]
fn rejected_ptx_is_an_error_with_the_log() {
    let Some(tc) = toolchain("rejected_ptx_is_an_error_with_the_log") else { return };
    let tool = tc.ptxas_for("sm_90").unwrap();
    let bad = ".version 9.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n\tadd.f32 %f1, %f2;\n}\n";
    match ptxas::compile(tool, bad, "sm_90", None) {
        Err(e @ ptxas::PtxasError::Rejected { .. }) => {
            let text = e.to_string();
            assert!(text.contains("sm_90") && text.contains("<ptx>"), "{text}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn answers_are_cached_by_content() {
    let Some(tc) = toolchain("answers_are_cached_by_content") else { return };
    let dir = std::env::temp_dir().join(format!("warpsim-ptxas-cache-{}", std::process::id()));
    // The cache directory is read from the environment on every call; only this test sets it.
    std::env::set_var("WARPSIM_CACHE_DIR", &dir);
    let tool = tc.ptxas_for("sm_90").unwrap();
    let w = Workload::bundled("saxpy").unwrap();
    let first = ptxas::compile(tool, &w.ptx, "sm_90", None).unwrap();
    let path = ptxas::cache_path(tool, &w.ptx, "sm_90", None).unwrap();
    assert!(path.starts_with(&dir) && path.is_file(), "{}", path.display());
    assert_ne!(path, ptxas::cache_path(tool, &w.ptx, "sm_90", Some(32)).unwrap());
    // A damaged entry is recomputed, not believed.
    std::fs::write(&path, "{ not json").unwrap();
    assert_eq!(ptxas::compile(tool, &w.ptx, "sm_90", None).unwrap(), first);
    assert!(std::fs::read_to_string(&path).unwrap().contains("\"registers\""));
    std::env::remove_var("WARPSIM_CACHE_DIR");
    std::fs::remove_dir_all(&dir).unwrap();
}
