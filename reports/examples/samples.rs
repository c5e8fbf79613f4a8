//! Writes one sample of every figure, a CSV/JSON pair and a summary page into the directory given
//! as the first argument (default `target/report-samples`), from made-up but plausible data.
//! Run: `cargo run -p warpsim-reports --release --example samples -- DIR`.
//! A subset of its output is committed in `examples/samples/` (PNGs of the scatter, roofline,
//! speedup bars and timeline; SVGs of the sweep and the stall breakdown) to show the house style.

use std::path::PathBuf;

use warpsim_reports::*;

fn main() -> Result<(), ReportError> {
    let dir = PathBuf::from(
        std::env::args()
            .nth(1)
            .unwrap_or_else(|| "target/report-samples".into()),
    );
    let points: Vec<ValidationPoint> = [
        ("vector_add", 9_800.0, 10_400.0),
        ("saxpy", 12_100.0, 11_300.0),
        ("matmul_naive", 1_450_000.0, 1_610_000.0),
        ("matmul_tiled16", 380_000.0, 341_000.0),
        ("reduce_shared", 41_000.0, 47_500.0),
        ("reduce_warp_shuffle", 23_500.0, 21_900.0),
        ("transpose_naive", 120_000.0, 71_000.0),
        ("transpose_padded", 64_000.0, 66_800.0),
        ("histogram_atomics", 210_000.0, 305_000.0),
        ("stencil_2d", 88_000.0, 93_000.0),
        ("pointer_chase_l2", 640_000.0, 602_000.0),
        ("tma_copy_2d", 31_000.0, 33_900.0),
    ]
    .into_iter()
    .map(|(w, m, s)| ValidationPoint {
        workload: w.into(),
        measured_cycles: m,
        simulated_cycles: s,
    })
    .collect();
    let spec = FigureSpec::new("", Column::Single);
    let mut written = vec![validation_scatter(
        &points,
        &ScatterOptions::default(),
        &spec,
        dir.join("validation_scatter"),
    )?];

    // L2 size sweep, normalised to the H200's 50 MiB.
    let sizes = [12.5, 25.0, 50.0, 100.0, 200.0];
    let sweep: Vec<SweepPoint> = [
        ("matmul_tiled16", 0.02),
        ("stencil_2d", 0.25),
        ("histogram_atomics", 0.4),
        ("pointer_chase_l2", 0.9),
    ]
    .into_iter()
    .flat_map(|(w, sens)| {
        sizes.iter().map(move |&mib: &f64| SweepPoint {
            workload: w.into(),
            x: mib,
            y: 1.0e5 * (1.0 + sens * (50.0f64 / mib).ln().max(-1.0)),
        })
    })
    .collect();
    let sweep_spec = FigureSpec::new("", Column::Single)
        .x_label("L2 size (MiB)")
        .y_label("Cycles (normalised to 50 MiB)")
        .log_x();
    written.push(sweep_curves(
        &sweep,
        &SweepOptions {
            normalize_at: Some(50.0),
        },
        &sweep_spec,
        dir.join("sweep_curves"),
    )?);

    // Scheduler comparison as speedups over LRR.
    let workloads = [
        "vector_add",
        "matmul_tiled16",
        "reduce_shared",
        "transpose_padded",
        "histogram_atomics",
        "stencil_2d",
    ];
    let mut cycles = Vec::new();
    for (i, w) in workloads.iter().enumerate() {
        for (j, sched) in ["LRR", "GTO", "two-level"].iter().enumerate() {
            let f =
                1.0 - 0.04 * (j as f64) * ((i % 3) as f64) + 0.03 * (j as f64) * ((i % 2) as f64);
            cycles.push(BarValue {
                group: (*w).into(),
                series: (*sched).into(),
                value: 1.0e5 * (i + 1) as f64 * f,
            });
        }
    }
    written.push(speedup_bars(
        &cycles,
        "LRR",
        &FigureSpec::new("", Column::Single),
        dir.join("speedup_bars"),
    )?);

    // Stall breakdown in Nsight Compute's warp-state names.
    let states = [
        "selected",
        "not_selected",
        "math_pipe_throttle",
        "long_scoreboard",
        "short_scoreboard",
        "barrier",
        "membar",
        "wait",
        "no_instruction",
        "dispatch_stall",
        "lg_throttle",
        "mio_throttle",
        "tex_throttle",
        "drain",
        "sleeping",
        "branch_resolving",
        "misc",
    ];
    let mut segs = Vec::new();
    for (i, w) in workloads.iter().enumerate() {
        for (k, st) in states.iter().enumerate() {
            let v = match k {
                0 => 1.0,
                3 => 1.0 + 3.0 * ((i * 7) % 5) as f64,
                5 => {
                    if i % 2 == 1 {
                        2.0
                    } else {
                        0.0
                    }
                }
                14 => 0.0,
                _ => ((i + 3 * k) % 7) as f64 * 0.15,
            };
            segs.push(StackSegment {
                bar: (*w).into(),
                category: (*st).into(),
                value: v,
            });
        }
    }
    written.push(stacked_bars(
        &segs,
        &FigureSpec::new("", Column::Double).height_in(3.2),
        dir.join("stall_breakdown"),
    )?);

    // H200 roofline.
    let h200 = Machine {
        name: "H200 SXM".into(),
        compute: vec![
            Ceiling::new("FP16 tensor", 989e12),
            Ceiling::new("FP32", 67e12),
            Ceiling::new("FP64", 34e12),
        ],
        memory: vec![Ceiling::new("HBM3e", 4.8e12), Ceiling::new("L2", 12e12)],
    };
    let rpoints: Vec<RooflinePoint> = [
        ("vector_add", 0.083, 0.38e12),
        ("saxpy", 0.167, 0.78e12),
        ("stencil_2d", 1.1, 4.1e12),
        ("matmul_tiled16", 8.0, 21e12),
        ("gemm_wgmma", 120.0, 610e12),
    ]
    .into_iter()
    .map(|(w, ai, f)| RooflinePoint {
        workload: w.into(),
        flop_per_byte: ai,
        flops_per_s: f,
    })
    .collect();
    written.push(roofline(
        &h200,
        &rpoints,
        &FigureSpec::new("", Column::Single),
        dir.join("roofline"),
    )?);

    // A 132-SM timeline: 2 CTAs per SM at a time, uneven CTA lengths, occupancy every 400 cycles.
    let num_sms = 132u32;
    let mut ctas = Vec::new();
    let mut free = vec![[0u64; 2]; num_sms as usize];
    for cta in 0..700u64 {
        let (sm, lane) = (0..num_sms as usize)
            .flat_map(|s| [(s, 0usize), (s, 1usize)])
            .min_by_key(|&(s, l)| (free[s][l], s))
            .unwrap_or((0, 0));
        let start = free[sm][lane];
        let end = start + 3_000 + (cta * 7919 % 2_500);
        free[sm][lane] = end;
        ctas.push(CtaSpan {
            sm: sm as u32,
            cta,
            start_cycle: start,
            end_cycle: end,
        });
    }
    let end = ctas.iter().map(|c| c.end_cycle).max().unwrap_or(0);
    let mut samples = Vec::new();
    for sm in 0..num_sms {
        for cycle in (0..=end).step_by(400) {
            let resident = ctas
                .iter()
                .filter(|c| c.sm == sm && c.start_cycle <= cycle && cycle < c.end_cycle)
                .count() as u32;
            samples.push(OccupancySample {
                sm,
                cycle,
                active_warps: (resident * 16)
                    .saturating_sub((cycle / 400 % 3) as u32 * 2 * resident.min(1)),
            });
        }
    }
    let tl = Timeline {
        num_sms,
        ctas,
        occupancy: Some(Occupancy {
            max_warps_per_sm: 64,
            samples,
        }),
    };
    written.push(timeline(
        &tl,
        &FigureSpec::new("", Column::Double).height_in(3.4),
        dir.join("timeline"),
    )?);

    write_csv(dir.join("validation.csv"), &points)?;
    write_json(dir.join("validation.json"), &validation_stats(&points)?)?;
    let table = validation_table(&points)?;
    print!("{}", text_table(&table, &TableOptions { thousands: true })?);
    let captions = [
        "Simulated vs measured cycles (H200).",
        "Cycles vs L2 size, normalised to 50 MiB.",
        "Scheduler speedups over LRR.",
        "Warp-state breakdown.",
        "H200 roofline.",
        "SM timeline: CTA residency (top) and active warps (bottom).",
    ];
    let sections = vec![
        Section {
            heading: "Validation".into(),
            text: "Made-up numbers that show the layout of a warpsim report.".into(),
            figures: vec![FigureRef::new(&written[0], captions[0])],
            tables: vec![table],
        },
        Section {
            heading: "Figures".into(),
            figures: written
                .iter()
                .zip(captions)
                .skip(1)
                .map(|(w, c)| FigureRef::new(w, c))
                .collect(),
            ..Section::default()
        },
    ];
    let page = summary_page(
        &dir,
        "warpsim report samples",
        &sections,
        &TableOptions { thousands: true },
    )?;
    for w in &written {
        println!("{}", w.png.display());
    }
    println!("{}", page.html.display());
    Ok(())
}
