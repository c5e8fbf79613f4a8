//! The bundled suite: every workload loads, its `[[arg]]` list matches its PTX entry, its
//! reference runs on the real inputs and a check of the reference's own prediction passes (and
//! one flipped element fails), and the generated input bytes are pinned by FNV-1a hashes.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use warpsim_workloads::{bundled_groups, bundled_names, ptx, references, Arg, CheckStatus, RefCtx, Workload};

const GOLDEN: &str = "tests/golden_inputs.txt";

#[test]
fn suite_loads_and_names_match_files() {
    let names = bundled_names();
    assert!(names.len() >= 30, "only {} bundled workloads", names.len());
    let mut sorted = names.clone();
    sorted.dedup();
    assert_eq!(sorted.len(), names.len(), "duplicate bundled names");
    for name in names {
        let w = Workload::bundled(name).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            w.manifest.name,
            name,
            "{}: `name` must equal the file stem",
            w.manifest_path.display()
        );
        assert!(
            w.manifest.description.is_some(),
            "{name}: add a description"
        );
        assert!(w.manifest.check.is_some(), "{name}: add a [check]");
        assert!(w.manifest_path.starts_with("workloads/suite"));
    }
}

#[test]
fn groups_partition_the_suite_by_directory() {
    let groups = bundled_groups();
    let mut all: Vec<&str> = groups.values().flatten().copied().collect();
    all.sort_unstable();
    assert_eq!(all, bundled_names());
    assert_eq!(groups["reduce"].len(), 6);
    for (group, names) in &groups {
        for name in names {
            let w = Workload::bundled(name).unwrap();
            assert!(w.manifest_path.starts_with(format!("workloads/suite/{group}")), "{name} in {group}");
        }
    }
}

/// The manifest's args against a light read of the `.entry NAME(` parameter list.
#[test]
fn args_match_ptx_parameters() {
    for name in bundled_names() {
        let w = Workload::bundled(name).unwrap();
        for l in &w.manifest.launches {
        let entry = ptx::find_entry(&w.ptx, &l.entry)
            .unwrap_or_else(|| panic!("{name}: entry not found"));
        assert_eq!(
            entry.params.len(),
            l.args.len(),
            "{name}: parameter count"
        );
        for (i, (arg, p)) in l.args.iter().zip(&entry.params).enumerate() {
            let ok = match arg {
                Arg::Buffer { .. } => p.ty == "u64" && p.array.is_none(),
                Arg::Scalar { dtype, .. } => {
                    let want = if dtype.is_float() {
                        format!("f{}", 8 * dtype.size())
                    } else {
                        format!("u{}", 8 * dtype.size())
                    };
                    p.ty == want
                        || p.ty == format!("s{}", 8 * dtype.size())
                        || p.ty == format!("b{}", 8 * dtype.size())
                }
                Arg::TensorMap(_) => p.ty == "b8" && p.array == Some(128),
            };
            assert!(
                ok,
                "{name}: arg {i} ({arg:?}) does not match `.param .{} {}`",
                p.ty, p.name
            );
        }
        }
    }
}

/// Encode a reference's prediction as output bytes (open elements as zeros), and name the first
/// compared element (buffer, index).
fn predicted_outputs(w: &Workload) -> (BTreeMap<String, Vec<u8>>, (String, usize)) {
    let check = w.manifest.check.as_ref().unwrap();
    let reference = references()
        .iter()
        .find(|r| r.name == check.reference)
        .unwrap();
    let ctx = RefCtx::new(&w.manifest, &w.inputs)
        .unwrap()
        .with_cluster(w.launch().cluster);
    let expected = (reference.compute)(&ctx).unwrap_or_else(|e| panic!("{}: {e}", w.manifest.name));
    let mut out = BTreeMap::new();
    let first = expected
        .iter()
        .find_map(|e| Some((e.buffer.clone(), e.values.iter().position(Option::is_some)?)))
        .expect("the reference predicts something");
    for b in w.manifest.buffers.iter().filter(|b| b.output) {
        let mut bytes = Vec::with_capacity(b.bytes() as usize);
        match expected.iter().find(|e| e.buffer == b.name) {
            Some(e) => {
                assert_eq!(
                    e.values.len() as u64,
                    b.len,
                    "{}: expected length of `{}`",
                    w.manifest.name,
                    b.name
                );
                for v in &e.values {
                    b.dtype
                        .push_bits(v.map_or(0, |v| b.dtype.encode(v)), &mut bytes);
                }
            }
            None => bytes.resize(b.bytes() as usize, 0),
        }
        out.insert(b.name.clone(), bytes);
    }
    (out, first)
}

#[test]
fn references_run_and_checks_pass_on_their_own_prediction() {
    for name in bundled_names() {
        let w = Workload::bundled(name).unwrap();
        let (mut outputs, (buffer, i)) = predicted_outputs(&w);
        let report = w.check(
            &w.inputs,
            outputs.iter().map(|(k, v)| (k.as_str(), v.as_slice())),
        );
        assert_eq!(report.status, CheckStatus::Pass, "{report}");
        assert!(
            report.buffers.iter().map(|b| b.compared).sum::<u64>() > 0,
            "{name}: nothing compared"
        );

        // corrupt the first compared element well beyond any tolerance: exactly one mismatch
        let b = w
            .manifest
            .buffers
            .iter()
            .find(|b| b.name == buffer)
            .unwrap();
        let size = b.dtype.size();
        let bytes = outputs.get_mut(&b.name).unwrap();
        let v = b.dtype.decode(b.dtype.read_bits(&bytes[i * size..]));
        let mut bad = Vec::new();
        b.dtype.push_bits(
            b.dtype.encode_f64(v.as_f64() + 1.0 + v.as_f64().abs()),
            &mut bad,
        );
        bytes[i * size..][..size].copy_from_slice(&bad);
        let report = w.check(
            &w.inputs,
            outputs.iter().map(|(k, v)| (k.as_str(), v.as_slice())),
        );
        assert_eq!(report.status, CheckStatus::Fail, "{name}");
        assert_eq!(report.mismatches.len(), 1, "{report}");
        assert_eq!(
            (
                report.mismatches[0].buffer.as_str(),
                report.mismatches[0].index
            ),
            (b.name.as_str(), i as u64)
        );
        assert!(
            report.to_string().contains(&format!("{}[{i}]", b.name)),
            "{report}"
        );
    }
}

/// Pins FNV-1a 64 of every bundled input: a generator change shows up as a diff of
/// tests/golden_inputs.txt. Regenerate with `UPDATE_GOLDEN=1 cargo test -p warpsim-workloads`.
#[test]
fn golden_input_hashes() {
    let mut text =
        String::from("# workload buffer fnv1a64-of-initial-bytes (generated by tests/suite.rs)\n");
    for name in bundled_names() {
        let w = Workload::bundled(name).unwrap();
        for (spec, data) in w.manifest.buffers.iter().zip(&w.inputs) {
            writeln!(text, "{name} {} {:016x}", spec.name, data.fnv1a64()).unwrap();
        }
    }
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(GOLDEN, &text).unwrap();
    }
    let pinned = std::fs::read_to_string(GOLDEN).unwrap_or_default();
    assert!(
        pinned == text,
        "generated inputs changed; review, then UPDATE_GOLDEN=1 to re-pin:\n{}",
        diff(&pinned, &text)
    );
}

fn diff(old: &str, new: &str) -> String {
    let mut out = String::new();
    for l in old.lines().filter(|l| !new.lines().any(|n| n == *l)) {
        writeln!(out, "- {l}").unwrap();
    }
    for l in new.lines().filter(|l| !old.lines().any(|o| o == *l)) {
        writeln!(out, "+ {l}").unwrap();
    }
    out
}

/// Sizes stay simulator-friendly: at most ~131K threads and 16 MiB of non-zero input, except the
/// workloads whose point is size: `stream_copy` and `micro_dram_copy` (DRAM bandwidth needs a
/// copy far larger than the caches), `micro_chase_dram` (a sparse chase over 4x the L2, flushed by
/// 2x the L2 of zeros) and `launch_wide` (32 one-warp CTAs per SM on all 132 SMs), and the
/// `membench`, `blind4`, `blind5`, `blind6` and `micro` groups, whose point is working sets beyond
/// the 50 MiB L2 (see [`MEMBENCH`]; blind4, blind5 and blind6 are the memory-heavy blind batches,
/// held to the same limits). blind7 and blind8 are held to [`BLIND7`]: blind7's grids are one
/// thread per element of 8 Mi-element matrices, blind8's one per record, grid point or weight of
/// 4 M-element arrays (nn, fdtd-2d, backprop), as first written (a blind batch is not cut to suit
/// the simulator).
#[test]
fn sizes_are_simulator_friendly() {
    const LARGE: [&str; 5] = ["stream_copy", "stream_copy_vec4", "launch_wide", "micro_dram_copy", "micro_chase_dram"];
    let groups = bundled_groups();
    let large: Vec<&str> = ["membench", "blind4", "blind5", "blind6", "micro"].iter().flat_map(|g| groups[g].iter().copied()).collect();
    for name in bundled_names().into_iter().filter(|n| !LARGE.contains(n)) {
        let limits = if groups["blind7"].contains(&name) || groups["blind8"].contains(&name) { Some(&BLIND7) } else if large.contains(&name) { Some(&MEMBENCH) } else { None };
        let w = Workload::bundled(name).unwrap();
        let threads = w.launches.iter().map(|l| l.blocks() * l.threads_per_block()).max().unwrap_or(0);
        let dense: u64 = w
            .inputs
            .iter()
            .flat_map(|d| d.chunks())
            .map(|(_, b)| b.len() as u64)
            .sum();
        if let Some(lim) = limits {
            let allocated: u64 = w.manifest.buffers.iter().map(|b| b.bytes()).sum();
            let outputs: u64 = w.manifest.buffers.iter().filter(|b| b.output).map(|b| b.len).sum();
            assert!(threads <= lim.threads, "{name}: {threads} threads");
            assert!(dense <= lim.dense_bytes, "{name}: {dense} bytes of non-zero input");
            assert!(allocated <= lim.allocated_bytes, "{name}: {allocated} bytes of buffers");
            assert!(outputs <= lim.output_elements, "{name}: {outputs} output elements");
            continue;
        }
        assert!(threads <= 1 << 17, "{name}: {threads} threads");
        assert!(dense <= 16 << 20, "{name}: {dense} bytes of non-zero input");
    }
}

/// Limits of the `membench` group (suite/membench: memory-shape microbenchmarks over 1 to 128 MiB
/// working sets). Footprint is cheap where the bytes are zeros or sparse (`chase` inits store only
/// their slots; untouched simulator pages cost nothing), so the caps are on what costs time and
/// memory: threads, dense input bytes, the address range allocated (simulator pages once written,
/// and the reference's copy of each input), and output elements (the check holds an expected value
/// of 32 bytes per output element: 16 Mi of them is 512 MiB). Each membench workload simulates in
/// under ~6 s and peaks under ~1 GB of memory (the largest, scatter_u64: 48 MiB of input, 6 s).
/// Dense input reaches 66 MiB in the `mlp_*_dram` streams: one pass over more than the L2 holds,
/// every word read (an iota, so the sum checks every load).
struct Limits {
    threads: u64,
    dense_bytes: u64,
    allocated_bytes: u64,
    output_elements: u64,
}

const MEMBENCH: Limits = Limits {
    threads: 1 << 20,
    dense_bytes: 66 << 20,
    allocated_bytes: 160 << 20,
    output_elements: 16 << 20,
};

/// Limits of blind7 (suite/blind7): MEMBENCH's, with a thread per element of an 8 Mi-element
/// matrix (transpose, stencil). blind8 (suite/blind8) uses them too (4 M threads at most).
const BLIND7: Limits = Limits { threads: 1 << 23, ..MEMBENCH };
