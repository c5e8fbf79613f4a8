//! The collection loop, independent of the device: for each workload, load it, lay out its
//! parameters, run it on a [`Device`] (once, outputs read back, then the timed launches), check
//! the outputs against the reference and, bit for bit, against the simulator's functional run,
//! and build the dataset record. A failing workload becomes a record with `error` set and the
//! loop goes on.
//!
//! Two devices implement [`Device`]: the CUDA driver (`crate::gpu::Cuda`) and [`DryRun`], which
//! does everything the GPU path does except the driver calls (it packs parameters against the
//! simulator's layout and takes the simulator's outputs as the device's), so `warpsim validate
//! self-check` exercises this whole loop on a machine without a GPU.

use std::collections::BTreeMap;
use std::time::Instant;

use warpsim_workloads::{CheckReport, CheckStatus, Workload};

use crate::dataset::{utc_date, Dataset, DeviceInfo, LaunchRecord, Method, OutputRecord, RefStatus, WorkloadRecord, SCHEMA_VERSION};
use crate::error::{chain, Error};
use crate::params::ParamLayout;

/// SM count the simulator's functional run is given (outputs do not depend on it).
const SIM_SMS: u32 = 132;

/// Bytes written before each timed launch to flush L2 (H200: 50 MiB of L2).
pub const L2_FLUSH_BYTES: u64 = 256 << 20;

/// Untimed launches (each after an L2 flush) before the timed ones: the clocks ramp up.
pub const WARMUP_LAUNCHES: u32 = 3;

/// Progress lines, one call each.
pub type Log<'a> = &'a mut dyn FnMut(&str);

/// What the driver says about the compiled kernel.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct KernelAttrs {
    pub registers: u32,
    pub static_smem: u32,
    pub local_bytes: u32,
}

/// A workload's run on a device.
#[derive(Debug)]
pub struct DeviceRun {
    /// Every output buffer after the first launch, in manifest order.
    pub outputs: Vec<(String, Vec<u8>)>,
    pub kernel: KernelAttrs,
    /// Timed runs of the whole sequence (empty when none were asked for), each the event time
    /// of every kernel launch in it, µs; or why timing failed.
    pub times: Result<Vec<Vec<f64>>, Error>,
}

/// A workload that failed on a device, and whether its kernel had been launched by then.
#[derive(Debug)]
pub struct DeviceFailure {
    pub launched: bool,
    pub error: Error,
}

/// Something that runs workloads: the GPU, or the dry run.
pub trait Device {
    fn info(&self) -> &DeviceInfo;
    /// Runs `w`'s launch sequence once (`layouts`: one per launch) and reads its outputs back,
    /// then times `reps` more runs of it (after [`WARMUP_LAUNCHES`] untimed ones), every buffer
    /// the sequence writes restored to its input bytes before each.
    fn run(&mut self, w: &Workload, layouts: &[ParamLayout], reps: u32, log: Log) -> Result<DeviceRun, DeviceFailure>;
}

/// How to run the workloads.
#[derive(Clone, Debug)]
pub struct Options {
    /// Timed launches per workload (0: none).
    pub reps: u32,
    /// Compare outputs with the simulator's functional run.
    pub compare_sim: bool,
    /// Recorded in the dataset: this is the run ncu profiles.
    pub profile_pass: bool,
}

/// Runs every workload named in `specs` (loaded with `load`) and collects the dataset.
pub fn run_all(
    device: &mut dyn Device,
    specs: &[String],
    load: &dyn Fn(&str) -> Result<Workload, String>,
    opts: &Options,
    log: Log,
) -> Dataset {
    let mut workloads = Vec::with_capacity(specs.len());
    for (i, spec) in specs.iter().enumerate() {
        log(&format!("[{}/{}] {spec}", i + 1, specs.len()));
        let t = Instant::now();
        let mut rec = match load(spec) {
            Ok(w) => run_one(device, &w, opts, log),
            Err(e) => WorkloadRecord { error: Some(e), ..blank(spec) },
        };
        rec.seconds = t.elapsed().as_secs_f64();
        log(&format!("  => {}", summary(&rec)));
        workloads.push(rec);
    }
    Dataset {
        schema: SCHEMA_VERSION,
        date: utc_date(),
        tool: format!("warpsim {}", env!("CARGO_PKG_VERSION")),
        device: device.info().clone(),
        method: Method {
            reps: opts.reps,
            warmup: if opts.reps > 0 { WARMUP_LAUNCHES } else { 0 },
            l2_flush_bytes: if opts.reps > 0 { L2_FLUSH_BYTES } else { 0 },
            profile_pass: opts.profile_pass,
            sim_compared: opts.compare_sim,
        },
        counter_units: BTreeMap::new(),
        notes: Vec::new(),
        workloads,
    }
}

/// One line: verdicts, registers, times.
fn summary(r: &WorkloadRecord) -> String {
    if let Some(e) = &r.error {
        return format!("ERROR {e} ({:.2} s)", r.seconds);
    }
    if let Some(e) = &r.timing_error {
        return format!("{} {}, TIMING ERROR {e} ({:.2} s)", r.check.as_str(), r.name, r.seconds);
    }
    let sim = match r.sim_equal() {
        Some(true) => "sim equal".to_string(),
        Some(false) => {
            let diff: Vec<&str> = r.outputs.iter().filter(|(_, o)| o.sim_bitwise_equal == Some(false)).map(|(n, _)| n.as_str()).collect();
            format!("sim differs in {}", diff.join(", "))
        }
        None => r.sim_error.as_ref().map_or("sim not compared".into(), |e| format!("sim failed: {e}")),
    };
    let time = match (r.time_us_median, r.time_us_min) {
        (Some(med), Some(min)) => format!(", median {med:.2} us, min {min:.2} us over {}", r.timed_runs),
        _ => String::new(),
    };
    let regs = r.registers.map_or("?".into(), |v| v.to_string());
    format!("{} {}, {sim}, {regs} regs{time} ({:.2} s)", r.check.as_str(), r.name, r.seconds)
}

/// A record with only a name: nothing launched, measured or checked.
fn blank(name: &str) -> WorkloadRecord {
    WorkloadRecord {
        name: name.to_string(),
        entry: String::new(),
        grid: [0; 3],
        block: [0; 3],
        cluster: [0; 3],
        dynamic_smem: 0,
        manifest_registers: None,
        launched: false,
        cycles: None,
        clock_ghz: None,
        time_us_median: None,
        time_us_min: None,
        time_us_max: None,
        timed_runs: 0,
        timing_error: None,
        counters: BTreeMap::new(),
        registers: None,
        static_smem: None,
        local_bytes: None,
        check: RefStatus::NotChecked,
        check_detail: None,
        outputs: BTreeMap::new(),
        sim_error: None,
        error: None,
        seconds: 0.0,
        launches: Vec::new(),
    }
}

/// Runs one loaded workload on `device` and builds its record.
pub fn run_one(device: &mut dyn Device, w: &Workload, opts: &Options, log: Log) -> WorkloadRecord {
    let l = w.launch();
    let mut rec = blank(&w.manifest.name);
    rec.entry = w.manifest.launch().entry.clone();
    (rec.grid, rec.block, rec.cluster, rec.dynamic_smem) = (l.grid, l.block, l.cluster, l.dynamic_smem);
    rec.manifest_registers = l.regs_per_thread;
    let layouts = match ParamLayout::sequence(w) {
        Ok(layouts) => layouts,
        Err(e) => {
            rec.error = Some(chain(&e));
            return rec;
        }
    };
    let run = match device.run(w, &layouts, opts.reps, log) {
        Ok(run) => run,
        Err(f) => {
            rec.launched = f.launched;
            rec.error = Some(chain(&f.error));
            return rec;
        }
    };
    rec.launched = true;
    (rec.registers, rec.static_smem, rec.local_bytes) =
        (Some(run.kernel.registers), Some(run.kernel.static_smem), Some(run.kernel.local_bytes));
    match &run.times {
        Ok(runs) => {
            let (runs_of, _) = w.manifest.schedule();
            if runs_of.len() > 1 {
                rec.launches = runs_of
                    .iter()
                    .enumerate()
                    .map(|(k, &(i, _))| LaunchRecord {
                        entry: w.manifest.launches[i].entry.clone(),
                        grid: w.launches[i].grid,
                        block: w.launches[i].block,
                        time_us_median: stats(&runs.iter().filter_map(|r| r.get(k).copied()).collect::<Vec<_>>()).map(|s| s.0),
                    })
                    .collect();
            }
            let times: Vec<f64> = runs.iter().map(|r| r.iter().sum()).collect();
            if let Some((median, min, max)) = stats(&times) {
                (rec.time_us_median, rec.time_us_min, rec.time_us_max) = (Some(median), Some(min), Some(max));
                rec.timed_runs = times.len() as u32;
            }
        }
        Err(e) => rec.timing_error = Some(chain(e)),
    }
    let report = w.check(&w.inputs, run.outputs.iter().map(|(n, b)| (n.as_str(), b.as_slice())));
    rec.check = match report.status {
        CheckStatus::Pass => RefStatus::Pass,
        CheckStatus::Fail => RefStatus::Fail,
        CheckStatus::NotChecked => RefStatus::NotChecked,
    };
    rec.check_detail = (report.status == CheckStatus::Fail).then(|| report.to_string());
    let sim = if opts.compare_sim {
        match warpsim_sim::launch::run_functional(w, SIM_SMS) {
            Ok(o) => Some(o.outputs),
            Err(e) => {
                rec.sim_error = Some(chain(&Error::from(e)));
                None
            }
        }
    } else {
        None
    };
    for (name, bytes) in &run.outputs {
        let elem = w.buffer(name).map_or(1, |(spec, _)| spec.dtype.size());
        let sim_bytes = sim.as_ref().and_then(|s| s.iter().find(|(n, _)| n == name)).map(|(_, b)| b.as_slice());
        let differing = sim_bytes.map(|s| differing_elements(bytes, s, elem));
        rec.outputs.insert(name.clone(), output_record(&report, name, differing));
    }
    rec
}

fn output_record(report: &CheckReport, name: &str, sim_differing: Option<u64>) -> OutputRecord {
    let counts = report.buffers.iter().find(|b| b.buffer == name);
    let reference = match (report.status, counts) {
        (CheckStatus::NotChecked, _) => RefStatus::NotChecked,
        (_, Some(b)) if b.mismatched > 0 => RefStatus::Fail,
        (_, Some(b)) if b.compared == 0 => RefStatus::Ignored,
        (_, Some(_)) => RefStatus::Pass,
        // No counts: the check could not compare this buffer (its problems are in the report).
        (_, None) => RefStatus::Fail,
    };
    OutputRecord {
        sim_bitwise_equal: sim_differing.map(|d| d == 0),
        sim_differing_elements: sim_differing,
        reference,
        compared: counts.map_or(0, |b| b.compared),
        mismatched: counts.map_or(0, |b| b.mismatched),
        ignored: counts.map_or(0, |b| b.ignored),
    }
}

/// Elements of `elem` bytes that differ (a length difference counts its elements as differing).
fn differing_elements(a: &[u8], b: &[u8], elem: usize) -> u64 {
    let elem = elem.max(1);
    let same_len = a.len().min(b.len());
    let differing = a[..same_len].chunks(elem).zip(b[..same_len].chunks(elem)).filter(|(x, y)| x != y).count();
    (differing + a.len().abs_diff(b.len()).div_ceil(elem)) as u64
}

/// (median, min, max) of `v`, None when empty.
fn stats(v: &[f64]) -> Option<(f64, f64, f64)> {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let n = s.len();
    let median = match n {
        0 => return None,
        _ if n % 2 == 1 => s[n / 2],
        _ => (s[n / 2 - 1] + s[n / 2]) / 2.0,
    };
    Some((median, s[0], s[n - 1]))
}

/// The device of `warpsim validate self-check`: the simulator stands in for the GPU.
pub struct DryRun {
    info: DeviceInfo,
}

impl Default for DryRun {
    fn default() -> Self {
        DryRun {
            info: DeviceInfo { name: "dry run (simulator outputs, no GPU)".into(), sm_count: SIM_SMS, ..DeviceInfo::default() },
        }
    }
}

impl Device for DryRun {
    fn info(&self) -> &DeviceInfo {
        &self.info
    }

    /// Packs the parameters with the simulator's buffer addresses and requires the simulator's
    /// exact parameter bytes, builds every tensor map's driver arguments (as the GPU path does
    /// before `cuTensorMapEncodeTiled`), then returns the simulator's functional outputs.
    fn run(&mut self, w: &Workload, layouts: &[ParamLayout], _reps: u32, log: Log) -> Result<DeviceRun, DeviceFailure> {
        let fail = |error: Error| DeviceFailure { launched: false, error };
        // The simulator is the device here, so its encoding stands in for the driver's (the
        // bytes of a real `CUtensorMap` are the driver's own and differ).
        let mut encode = |tm: &warpsim_workloads::TensorMap, addr: u64| {
            crate::gpu::TensorMapArgs::new(&w.manifest.name, tm)?;
            warpsim_sim::launch::encode_tensor_map(tm, addr).map_err(|message| Error::Workload { workload: w.manifest.name.clone(), message })
        };
        let prepared = warpsim_sim::launch::prepare(w, warpsim_sim::Gpu::new(SIM_SMS)).map_err(|e| fail(e.into()))?;
        let addrs: Vec<u64> = prepared.buffers.iter().map(|b| b.1).collect();
        for (i, layout) in layouts.iter().enumerate() {
            let ours = layout.pack(w, i, &addrs, &mut encode).map_err(fail)?;
            let sim = prepared.params(i).map_err(|message| fail(Error::Workload { workload: w.manifest.name.clone(), message }))?;
            if ours != sim {
                let offsets: Vec<String> = ours.iter().zip(&sim).enumerate().filter(|(_, (a, b))| a != b).map(|(i, _)| i.to_string()).collect();
                return Err(fail(Error::ParamMismatch { workload: w.manifest.name.clone(), offsets: offsets.join(", ") }));
            }
            log(&format!("  params of `{}`: {} bytes in {} slots, equal to the simulator's", w.manifest.launches[i].entry, ours.len(), layout.slots.len()));
        }
        let o = warpsim_sim::launch::run_functional(w, SIM_SMS).map_err(|e| DeviceFailure { launched: true, error: e.into() })?;
        let outputs = o.outputs;
        let kernel = KernelAttrs { registers: o.regs_per_thread, ..KernelAttrs::default() };
        Ok(DeviceRun { outputs, kernel, times: Ok(Vec::new()) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quiet() -> impl FnMut(&str) {
        |_: &str| {}
    }

    #[test]
    fn median_min_max() {
        assert_eq!(stats(&[]), None);
        assert_eq!(stats(&[3.0, 1.0, 2.0]), Some((2.0, 1.0, 3.0)));
        assert_eq!(stats(&[4.0, 1.0, 2.0, 3.0]), Some((2.5, 1.0, 4.0)));
    }

    #[test]
    fn element_differences() {
        assert_eq!(differing_elements(&[1, 2, 3, 4], &[1, 2, 3, 4], 4), 0);
        assert_eq!(differing_elements(&[1, 2, 3, 4, 5, 6, 7, 8], &[1, 2, 3, 4, 5, 6, 7, 9], 4), 1);
        assert_eq!(differing_elements(&[1, 2, 3, 4], &[1, 2, 3, 4, 0, 0, 0, 0], 4), 1);
    }

    /// The dry run over a few bundled workloads: records as the GPU run builds them.
    #[test]
    fn dry_run_records() {
        let mut dev = DryRun::default();
        let specs: Vec<String> = ["vector_add", "chase_l1", "sfu_sin", "no_such_workload"].map(String::from).into();
        let load = |s: &str| Workload::bundled(s).map_err(|e| chain(&e));
        let opts = Options { reps: 0, compare_sim: true, profile_pass: false };
        let mut lines = Vec::new();
        let d = run_all(&mut dev, &specs, &load, &opts, &mut |l: &str| lines.push(l.to_string()));
        let [va, chase, sfu, missing] = &d.workloads[..] else { panic!("{} records", d.workloads.len()) };
        assert_eq!((va.check, va.sim_equal(), va.launched, va.error.as_deref()), (RefStatus::Pass, Some(true), true, None));
        assert_eq!(va.outputs["c"].compared, 65536);
        // chase_l1's `result` holds the index (compared) and a cycle count (ignored).
        assert_eq!(chase.outputs["result"].reference, RefStatus::Pass);
        assert!(chase.outputs["result"].ignored > 0);
        assert_eq!(sfu.check, RefStatus::Pass);
        assert_eq!((missing.launched, missing.check), (false, RefStatus::NotChecked));
        assert!(missing.error.as_deref().unwrap().contains("no_such_workload"));
        assert!(lines.iter().any(|l| l == "[1/4] vector_add"));
        assert!(lines.iter().any(|l| l.starts_with("  => PASS vector_add, sim equal")), "{lines:?}");
        assert!(lines.iter().any(|l| l.starts_with("  => ERROR")));
        assert_eq!((d.method.reps, d.method.l2_flush_bytes), (0, 0));
    }

    /// A device that reports made-up outputs and times: verdicts come from the outputs.
    struct Fake(DeviceInfo);

    impl Device for Fake {
        fn info(&self) -> &DeviceInfo {
            &self.0
        }
        fn run(&mut self, w: &Workload, _: &[ParamLayout], reps: u32, _: Log) -> Result<DeviceRun, DeviceFailure> {
            if w.manifest.name == "saxpy" {
                return Err(DeviceFailure { launched: true, error: Error::Driver { call: "cuCtxSynchronize".into(), detail: "CUDA_ERROR_ILLEGAL_ADDRESS".into() } });
            }
            let outputs = w.manifest.buffers.iter().filter(|b| b.output).map(|b| (b.name.clone(), vec![0xFF; b.bytes() as usize])).collect();
            let times = match w.manifest.name.as_str() {
                "copy_stride_1" => Err(Error::Panicked("Missing symbol cuEventElapsedTime_v2".into())),
                // A sequence's runs: each launch's share of 10, 11, ... µs.
                _ => {
                    let n = w.manifest.schedule().0.len() as f64;
                    Ok((0..reps).map(|i| vec![(10.0 + f64::from(i)) / n; n as usize]).collect())
                }
            };
            Ok(DeviceRun { outputs, kernel: KernelAttrs { registers: 16, static_smem: 0, local_bytes: 0 }, times })
        }
    }

    /// A launch sequence through the loop: the dry run packs every launch's parameters and
    /// passes the check on the simulator's outputs; with timings, the record's time is the sum
    /// of each run's launches and `launches` lists each kernel launch's median.
    #[test]
    fn sequences_are_run_and_timed_whole() {
        let load = |s: &str| Workload::bundled(s).map_err(|e| chain(&e));
        let specs: Vec<String> = ["reduce_two_pass", "jacobi_pingpong"].map(String::from).into();
        let mut lines = Vec::new();
        let opts = Options { reps: 0, compare_sim: true, profile_pass: false };
        let d = run_all(&mut DryRun::default(), &specs, &load, &opts, &mut |l: &str| lines.push(l.to_string()));
        for r in &d.workloads {
            assert_eq!((r.check, r.sim_equal(), r.error.as_deref()), (RefStatus::Pass, Some(true), None), "{}: {lines:?}", r.name);
        }
        assert!(lines.iter().any(|l| l.contains("params of `final_sum`")), "{lines:?}");
        let opts = Options { reps: 4, compare_sim: false, profile_pass: false };
        let d = run_all(&mut Fake(DeviceInfo::default()), &specs[1..], &load, &opts, &mut quiet());
        let r = &d.workloads[0];
        let near = |a: Option<f64>, b: f64| a.is_some_and(|a| (a - b).abs() < 1e-9);
        assert_eq!(r.timed_runs, 4);
        assert!(near(r.time_us_min, 10.0) && near(r.time_us_max, 13.0) && near(r.time_us_median, 11.5), "{r:?}");
        assert_eq!(r.launches.len(), 20);
        assert!(r.launches.iter().all(|l| l.entry == "jacobi" && l.grid == [4, 4, 1] && near(l.time_us_median, 11.5 / 20.0)), "{:?}", r.launches[0]);
    }

    #[test]
    fn wrong_outputs_and_device_errors_are_recorded() {
        let mut dev = Fake(DeviceInfo::default());
        let specs: Vec<String> = ["vector_add", "saxpy", "copy_stride_1"].map(String::from).into();
        let load = |s: &str| Workload::bundled(s).map_err(|e| chain(&e));
        let opts = Options { reps: 5, compare_sim: true, profile_pass: false };
        let d = run_all(&mut dev, &specs, &load, &opts, &mut quiet());
        let va = &d.workloads[0];
        assert_eq!((va.check, va.sim_equal()), (RefStatus::Fail, Some(false)));
        assert_eq!(va.outputs["c"].sim_differing_elements, Some(65536));
        assert!(va.check_detail.as_deref().unwrap().starts_with("FAIL vector_add"));
        assert_eq!((va.time_us_median, va.time_us_min, va.time_us_max, va.timed_runs), (Some(12.0), Some(10.0), Some(14.0), 5));
        let sx = &d.workloads[1];
        assert_eq!((sx.launched, sx.error.as_deref()), (true, Some("cuCtxSynchronize failed: CUDA_ERROR_ILLEGAL_ADDRESS")));
        // A timing failure keeps the outputs' verdicts.
        let cs = &d.workloads[2];
        assert_eq!((cs.launched, cs.error.as_deref(), cs.time_us_median), (true, None, None));
        assert_eq!(cs.timing_error.as_deref(), Some("CUDA driver call panicked: Missing symbol cuEventElapsedTime_v2"));
        assert_eq!(cs.outputs["out"].mismatched, 32768);
        assert_eq!(d.method.l2_flush_bytes, L2_FLUSH_BYTES);
    }
}
