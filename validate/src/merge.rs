//! Merging ncu counters into a gpu-run dataset.
//!
//! ncu profiles the profile pass (`gpu-run --profile-pass`, possibly split over several
//! processes): one run of each workload's launch sequence (one launch for most), in the order
//! of that run's records, numbered by ncu from 0 in each process. Several workloads share a kernel
//! (`copy_stride_*` all launch `strided_copy`), so names alone cannot map launches to workloads;
//! order can. [`merge`] walks the profile pass's launched workloads in order and takes, for each,
//! the next run of ncu launches whose signatures (kernel base name, and grid and block where ncu
//! printed them) match its sequence's launches in order; launches skipped on the way and
//! workloads left without a match become warnings. A sequence's launches' counters are combined
//! into the workload's by the simulator's own rule (`warpsim_sim::counters::combine_launches`:
//! sums and cycles add, ratios are recomputed from the sums). Counters land on the timed run's
//! record of the same name; `cycles` is
//! `gpc__cycles_elapsed.max`, `clock_ghz` is cycles over `gpu__time_duration.sum`.

use std::collections::BTreeMap;

use crate::dataset::{Dataset, WorkloadRecord};
use crate::error::Error;
use crate::ncu::{NcuLaunch, NcuReport};

/// The ncu metric that gives a workload's cycles.
const CYCLES_METRIC: &str = "gpc__cycles_elapsed.max";
const DURATION_METRIC: &str = "gpu__time_duration.sum";
const REGISTERS_METRIC: &str = "launch__registers_per_thread";

/// A merged dataset and what did not line up.
#[derive(Debug)]
pub struct Merged {
    pub dataset: Dataset,
    pub warnings: Vec<String>,
}

/// Adds the counters of `reports` (ncu CSVs, in order) to `run`. `profiles` are the datasets
/// of the runs ncu profiled, in the same order (their launched workloads give the launch
/// order); with none, `run`'s own order is used. Fails when a metric comes with two different
/// units (ncu without `--print-units base` scales units per launch) or when the timed run lacks
/// a profiled workload.
pub fn merge(mut run: Dataset, profiles: &[Dataset], reports: &[NcuReport]) -> Result<Merged, Error> {
    let sources: Vec<&Dataset> = if profiles.is_empty() { vec![&run] } else { profiles.iter().collect() };
    let order: Vec<&WorkloadRecord> = sources.iter().flat_map(|d| &d.workloads).filter(|r| r.launched).collect();
    // (report index, launch), the reports one after the other.
    let launches: Vec<(usize, &NcuLaunch)> =
        reports.iter().enumerate().flat_map(|(k, r)| r.launches.iter().map(move |l| (k, l))).collect();
    let mut warnings = Vec::new();
    let mut pairs: Vec<(String, Vec<&NcuLaunch>)> = Vec::new();
    let mut next = 0;
    // No reports: nothing to pair (a dataset passed through, e.g. to `update`).
    for rec in order.into_iter().filter(|_| !reports.is_empty()) {
        let want = signatures(rec);
        let fits = |k: usize| launches.len() >= k + want.len() && want.iter().zip(&launches[k..]).all(|(sig, (_, l))| matches(sig, l));
        match (next..launches.len()).find(|&k| fits(k)) {
            Some(k) => {
                for (r, skipped) in &launches[next..k] {
                    warnings.push(format!("ncu report {r} launch {} (`{}`) matches no workload; skipped", skipped.id, skipped.kernel));
                }
                pairs.push((rec.name.clone(), launches[k..k + want.len()].iter().map(|(_, l)| *l).collect()));
                next = k + want.len();
            }
            None => {
                let what = if want.len() > 1 { format!("{} launches of its sequence (first `{}`)", want.len(), rec.entry) } else { format!("launch of `{}`", rec.entry) };
                warnings.push(format!("{}: no ncu {what} {:?}x{:?} left; no counters", rec.name, rec.grid, rec.block));
            }
        }
    }
    for (r, extra) in &launches[next..] {
        warnings.push(format!("ncu report {r} launch {} (`{}`) after the last workload; skipped", extra.id, extra.kernel));
    }
    for (name, seq) in pairs {
        let rec = run.workloads.iter_mut().find(|r| r.name == name).ok_or_else(|| {
            Error::Merge(format!("workload `{name}` was profiled but is not in the timed run"))
        })?;
        for launch in &seq {
            for (metric, m) in &launch.metrics {
                let unit = run.counter_units.entry(metric.clone()).or_insert_with(|| m.unit.clone());
                if *unit != m.unit {
                    return Err(Error::Merge(format!(
                        "`{metric}` comes in `{unit}` and `{}`; run ncu with --print-units base",
                        m.unit
                    )));
                }
            }
        }
        let values: Vec<BTreeMap<String, f64>> = seq.iter().map(|l| l.metrics.iter().map(|(k, m)| (k.clone(), m.value)).collect()).collect();
        rec.counters.extend(warpsim_sim::counters::combine_launches(&values));
        rec.cycles = rec.counters.get(CYCLES_METRIC).map(|&c| c.round() as u64);
        rec.clock_ghz = match (rec.cycles, rec.counters.get(DURATION_METRIC)) {
            (Some(c), Some(&ns)) if ns > 0.0 && run.counter_units.get(DURATION_METRIC).is_some_and(|u| u == "nsecond") => {
                Some(c as f64 / ns)
            }
            _ => None,
        };
        if let (Some(&ncu_regs), Some(regs)) = (rec.counters.get(REGISTERS_METRIC), rec.registers) {
            if ncu_regs != f64::from(regs) {
                warnings.push(format!("{name}: ncu reports {ncu_regs} registers/thread, the driver {regs}"));
            }
        }
    }
    for (k, r) in reports.iter().enumerate() {
        warnings.extend(r.skipped.iter().map(|s| format!("ncu report {k}: not a number: {s}")));
    }
    run.notes.extend(warnings.iter().map(|w| format!("merge: {w}")));
    Ok(Merged { dataset: run, warnings })
}

/// Folds a newer partial dataset into an older one: each of `newer`'s workloads replaces the
/// record of the same name or joins the dataset, and `newer`'s counter units and notes are
/// added (a note first records which workloads were re-measured on which date). Fails when the
/// two were measured on different devices or a counter changes unit.
pub fn update(mut base: Dataset, newer: Dataset) -> Result<Dataset, Error> {
    if (base.device.name.as_str(), base.device.sm_count) != (newer.device.name.as_str(), newer.device.sm_count) {
        return Err(Error::Merge(format!(
            "the datasets come from different devices: {} ({} SMs) and {} ({} SMs)",
            base.device.name, base.device.sm_count, newer.device.name, newer.device.sm_count
        )));
    }
    for (metric, unit) in newer.counter_units {
        let old = base.counter_units.entry(metric.clone()).or_insert_with(|| unit.clone());
        if *old != unit {
            return Err(Error::Merge(format!("`{metric}` is in `{old}` in one dataset and `{unit}` in the other")));
        }
    }
    let names: Vec<&str> = newer.workloads.iter().map(|r| r.name.as_str()).collect();
    base.notes.push(format!("update {} ({}): {}", newer.date, newer.tool, names.join(", ")));
    base.notes.extend(newer.notes.into_iter().map(|n| format!("update {}: {n}", newer.date)));
    for rec in newer.workloads {
        match base.workloads.iter_mut().find(|r| r.name == rec.name) {
            Some(old) => *old = rec,
            None => base.workloads.push(rec),
        }
    }
    base.workloads.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(base)
}

/// A kernel launch as a record names it: entry, grid, block.
type Signature<'a> = (&'a str, [u32; 3], [u32; 3]);

/// The kernel launches of `rec`'s sequence in order: its `launches`, or its one launch.
fn signatures(rec: &WorkloadRecord) -> Vec<Signature<'_>> {
    if rec.launches.is_empty() {
        vec![(rec.entry.as_str(), rec.grid, rec.block)]
    } else {
        rec.launches.iter().map(|l| (l.entry.as_str(), l.grid, l.block)).collect()
    }
}

/// Whether an ncu launch can be the launch `sig`: same kernel (compared by the function's own
/// name, so a C++ entry's mangled name meets ncu's demangled or function-only one), and same grid
/// and block where known.
fn matches(&(entry, grid, block): &Signature<'_>, l: &NcuLaunch) -> bool {
    l.base_name() == warpsim_isa::names::base_name(entry) && l.grid.is_none_or(|g| g == grid) && l.block.is_none_or(|b| b == block)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::tests::sample;
    use crate::ncu::{parse, tests::SAMPLE};

    #[test]
    fn launches_map_by_order_and_signature() {
        // The sample dataset: vector_add, copy_stride_1, copy_stride_2 (failed, not launched),
        // copy_stride_4; ncu saw vector_add then two strided_copy launches (grid 128).
        let mut run = sample();
        for r in &mut run.workloads[1..] {
            r.grid = [128, 1, 1];
        }
        let ncu = parse(SAMPLE).unwrap();
        let m = merge(run, &[], &[ncu]).unwrap();
        let w = &m.dataset.workloads;
        assert_eq!(w[0].cycles, Some(6913));
        assert_eq!(w[0].counters["dram__bytes_read.sum"], 524_288.0);
        assert!((w[0].clock_ghz.unwrap() - 6913.0 / 4960.0).abs() < 1e-12);
        assert_eq!(w[1].cycles, Some(8120));
        assert_eq!((w[2].cycles, w[2].counters.len()), (None, 0), "a workload that never launched gets nothing");
        assert_eq!(w[3].cycles, Some(12_345_678));
        assert_eq!(m.dataset.counter_units["gpu__time_duration.sum"], "nsecond");
        assert_eq!(m.warnings, ["ncu report 0: not a number: launch 0: smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio = n/a"]);
        assert_eq!(m.dataset.notes.len(), 1);
    }

    /// C++ kernels: the records carry the PTX's mangled entries, ncu prints its function name
    /// (`Kernel`) or the demangled signature; both meet.
    #[test]
    fn mangled_entries_match_ncu_names() {
        let mut run = sample();
        run.workloads[0].entry = "_Z6KernelP4NodePiPbS2_S2_S1_i".into();
        for r in &mut run.workloads[1..] {
            r.grid = [128, 1, 1];
            r.entry = "_Z12strided_copyIfEvPKfPfi".into();
        }
        let csv = SAMPLE
            .replace("\"127.0.0.1\",\"vector_add\"", "\"127.0.0.1\",\"Kernel\"")
            .replace("\"127.0.0.1\",\"strided_copy\"", "\"127.0.0.1\",\"void strided_copy<float>(const float *, float *, int)\"");
        let m = merge(run, &[], &[parse(&csv).unwrap()]).unwrap();
        let w = &m.dataset.workloads;
        assert_eq!(w[0].cycles, Some(6913));
        assert_eq!(w[0].counters["dram__bytes_read.sum"], 524_288.0);
        assert_eq!(w[1].cycles, Some(8120));
        assert_eq!(w[3].cycles, Some(12_345_678));
        assert!(m.warnings.iter().all(|w| !w.contains("no counters")), "{:?}", m.warnings);
    }

    /// A 3-launch sequence (a two-pass reduction whose second pass runs twice) between two
    /// single-launch workloads: its three ncu launches are summed into its record, the hit rate
    /// recomputed from the lookups, registers the largest launch's.
    #[test]
    fn a_sequence_sums_its_launches() {
        let mut run = sample();
        run.workloads.truncate(2);
        run.workloads[1].grid = [128, 1, 1];
        let mut seq = run.workloads[0].clone();
        seq.name = "reduce_seq".into();
        (seq.entry, seq.registers) = ("partial_sums".into(), Some(14));
        seq.launches = vec![
            crate::dataset::LaunchRecord { entry: "partial_sums".into(), grid: [128, 1, 1], block: [256, 1, 1], time_us_median: Some(2.0) },
            crate::dataset::LaunchRecord { entry: "_Z9final_sumPKfPfi".into(), grid: [1, 1, 1], block: [256, 1, 1], time_us_median: Some(1.5) },
            crate::dataset::LaunchRecord { entry: "_Z9final_sumPKfPfi".into(), grid: [1, 1, 1], block: [256, 1, 1], time_us_median: Some(1.5) },
        ];
        run.workloads.insert(1, seq);
        let header = r#""ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value""#;
        let mut rows = vec![header.to_string()];
        let launches: [(&str, &str, [f64; 6]); 5] = [
            ("vector_add", "(256, 1, 1)", [6913.0, 4960.0, 16.0, 50.0, 100.0, 10.0]),
            ("partial_sums", "(128, 1, 1)", [1000.0, 700.0, 14.0, 20.0, 300.0, 5.0]),
            ("final_sum(const float *, float *, int)", "(1, 1, 1)", [500.0, 300.0, 12.0, 80.0, 50.0, 1.0]),
            ("final_sum(const float *, float *, int)", "(1, 1, 1)", [500.0, 300.0, 12.0, 80.0, 50.0, 1.0]),
            ("strided_copy", "(128, 1, 1)", [8120.0, 5792.0, 16.0, 10.0, 10.0, 2.0]),
        ];
        let metrics = [("gpc__cycles_elapsed.max", "cycle"), ("gpu__time_duration.sum", "nsecond"), ("launch__registers_per_thread", "register/thread"), ("lts__t_sector_hit_rate.pct", "%"), ("lts__t_sectors.sum", "sector"), ("dram__bytes_read.sum", "byte")];
        for (id, (kernel, grid, values)) in launches.iter().enumerate() {
            for ((metric, unit), v) in metrics.iter().zip(values) {
                rows.push(format!(r#""{id}","1","warpsim","h","{kernel}","1","7","(256, 1, 1)","{grid}","0","9.0","s","{metric}","{unit}","{v}""#));
            }
        }
        let m = merge(run, &[], &[parse(&rows.join("\n")).unwrap()]).unwrap();
        assert!(m.warnings.is_empty(), "{:?}", m.warnings);
        let w = &m.dataset.workloads;
        assert_eq!((w[0].cycles, w[2].cycles), (Some(6913), Some(8120)));
        let c = &w[1].counters;
        assert_eq!(w[1].cycles, Some(2000));
        assert_eq!((c["gpu__time_duration.sum"], c["dram__bytes_read.sum"], c["lts__t_sectors.sum"]), (1300.0, 7.0, 400.0));
        assert_eq!(c["lts__t_sector_hit_rate.pct"], (20.0 * 300.0 + 80.0 * 50.0 * 2.0) / 400.0);
        assert_eq!(c["launch__registers_per_thread"], 14.0);
        assert!((w[1].clock_ghz.unwrap() - 2000.0 / 1300.0).abs() < 1e-12);
    }

    #[test]
    fn update_replaces_and_adds_records() {
        let base = sample();
        let mut newer = sample();
        newer.date = "2030-01-02".into();
        newer.workloads.truncate(1);
        newer.workloads[0].cycles = Some(42);
        let mut extra = newer.workloads[0].clone();
        extra.name = "added".into();
        newer.workloads.push(extra);
        let n = base.workloads.len();
        let u = update(base, newer).unwrap();
        assert_eq!(u.workloads.len(), n + 1);
        assert_eq!(u.workloads.iter().find(|r| r.name == "vector_add").unwrap().cycles, Some(42));
        assert!(u.workloads.windows(2).all(|w| w[0].name < w[1].name));
        assert!(u.notes.iter().any(|s| s.starts_with("update 2030-01-02") && s.contains("vector_add, added")));

        let mut other = sample();
        other.device.sm_count += 1;
        assert!(update(sample(), other).unwrap_err().to_string().contains("different devices"));
    }

    #[test]
    fn mismatches_become_warnings() {
        // Grid 256 for the copies: ncu's strided_copy launches (grid 128) match none of them.
        let ncu = parse(SAMPLE).unwrap();
        let m = merge(sample(), &[], &[ncu]).unwrap();
        let w = &m.dataset.workloads;
        assert_eq!(w[0].cycles, Some(6913));
        assert!(w[1..].iter().all(|r| r.cycles.is_none()));
        assert!(m.warnings.iter().any(|s| s.starts_with("copy_stride_1: no ncu launch of `strided_copy`")), "{:?}", m.warnings);
        assert!(m.warnings.iter().any(|s| s.contains("ncu report 0 launch 2 (`strided_copy`) after the last workload")));
    }

    #[test]
    fn the_profile_pass_gives_the_order() {
        // The profile pass launched only copy_stride_4: the first strided_copy launch is its.
        let mut run = sample();
        for r in &mut run.workloads[1..] {
            r.grid = [128, 1, 1];
        }
        let mut profile = run.clone();
        for r in &mut profile.workloads {
            r.launched = r.name == "copy_stride_4";
        }
        let m = merge(run, &[profile], &[parse(SAMPLE).unwrap()]).unwrap();
        let w = &m.dataset.workloads;
        assert_eq!((w[0].cycles, w[1].cycles, w[3].cycles), (None, None, Some(8120)));
        assert!(m.warnings.iter().any(|s| s.contains("ncu report 0 launch 0 (`vector_add`) matches no workload")));
    }

    #[test]
    fn several_processes_concatenate() {
        // Two profiled processes: vector_add in the first, the copies in the second (IDs from 0).
        let mut run = sample();
        for r in &mut run.workloads[1..] {
            r.grid = [128, 1, 1];
        }
        let (mut first, mut second) = (run.clone(), run.clone());
        first.workloads.truncate(1);
        second.workloads.remove(0);
        let lines: Vec<&str> = SAMPLE.lines().collect();
        let header_at = lines.iter().position(|l| l.starts_with("\"ID\"")).unwrap();
        let pick = |id: &str, new_id: &str| -> String {
            let rows: Vec<String> = lines[header_at + 1..]
                .iter()
                .filter(|l| l.starts_with(&format!("\"{id}\",")))
                .map(|l| l.replacen(&format!("\"{id}\","), &format!("\"{new_id}\","), 1))
                .collect();
            format!("{}\n{}\n", lines[header_at], rows.join("\n"))
        };
        let a = parse(&pick("0", "0")).unwrap();
        let b = parse(&format!("{}{}", pick("1", "0"), pick("2", "1").lines().skip(1).map(|l| format!("{l}\n")).collect::<String>())).unwrap();
        assert_eq!((a.launches.len(), b.launches.len()), (1, 2));
        let m = merge(run, &[first, second], &[a, b]).unwrap();
        let cycles: Vec<Option<u64>> = m.dataset.workloads.iter().map(|r| r.cycles).collect();
        assert_eq!(cycles, [Some(6913), Some(8120), None, Some(12_345_678)]);
    }

    #[test]
    fn mixed_units_are_refused() {
        let scaled = SAMPLE.replacen("\"byte\",\"1,048,576\"", "\"Mbyte\",\"1.05\"", 1);
        let mut run = sample();
        for r in &mut run.workloads[1..] {
            r.grid = [128, 1, 1];
        }
        let e = merge(run, &[], &[parse(&scaled).unwrap()]).unwrap_err().to_string();
        assert!(e.contains("dram__bytes_read.sum") && e.contains("--print-units base"), "{e}");
    }

    #[test]
    fn a_profiled_workload_missing_from_the_run_is_an_error() {
        let mut run = sample();
        let profile = run.clone();
        run.workloads.remove(0);
        let e = merge(run, &[profile], &[parse(SAMPLE).unwrap()]).unwrap_err().to_string();
        assert!(e.contains("`vector_add` was profiled but is not in the timed run"), "{e}");
    }
}
