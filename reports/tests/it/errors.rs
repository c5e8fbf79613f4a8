//! Bad input is an error value that names the problem, never a panic, and writes nothing.

use warpsim_reports::*;

use crate::common::*;

fn spec() -> FigureSpec {
    FigureSpec::new("", Column::Single)
}

#[test]
fn scatter_errors_name_the_point() {
    let dir = out_dir("errors-scatter");
    let opts = ScatterOptions::default();
    let e = validation_scatter(&[], &opts, &spec(), dir.join("a")).unwrap_err();
    assert!(
        matches!(
            e,
            ReportError::EmptyData {
                what: "validation_scatter"
            }
        ),
        "{e}"
    );

    let mut pts = validation_points();
    pts[2].measured_cycles = 0.0;
    let e = validation_scatter(&pts, &opts, &spec(), dir.join("b")).unwrap_err();
    assert!(
        matches!(e, ReportError::NonPositiveOnLogAxis { axis: "x", .. }),
        "{e}"
    );
    assert!(e.to_string().contains("matmul_naive"), "{e}");

    let mut pts = validation_points();
    pts[1].simulated_cycles = f64::NAN;
    let e = validation_scatter(&pts, &opts, &spec(), dir.join("c")).unwrap_err();
    assert!(
        matches!(
            e,
            ReportError::NotFinite {
                field: "simulated_cycles",
                ..
            }
        ),
        "{e}"
    );
    assert!(e.to_string().contains("saxpy"), "{e}");

    let bad_band = ScatterOptions {
        error_band: 1.5,
        label_outliers: true,
    };
    assert!(matches!(
        validation_scatter(&validation_points(), &bad_band, &spec(), dir.join("d")),
        Err(ReportError::InvalidSpec(_))
    ));
    let bad_height = spec().height_in(0.1);
    assert!(matches!(
        validation_scatter(&validation_points(), &opts, &bad_height, dir.join("e")),
        Err(ReportError::InvalidSpec(_))
    ));
    assert!(
        std::fs::read_dir(&dir).unwrap().next().is_none(),
        "nothing written on error"
    );
}

#[test]
fn sweep_errors() {
    let dir = out_dir("errors-sweep");
    let p = |w: &str, x: f64, y: f64| SweepPoint {
        workload: w.into(),
        x,
        y,
    };
    let log = spec().log_x();
    let e = sweep_curves(
        &[p("a", 0.0, 1.0), p("a", 1.0, 2.0)],
        &SweepOptions::default(),
        &log,
        dir.join("a"),
    )
    .unwrap_err();
    assert!(
        e.to_string().contains("a at x = 0") && e.to_string().contains("logarithmic"),
        "{e}"
    );
    let e = sweep_curves(
        &[p("a", 1.0, 1.0), p("b", 2.0, 2.0)],
        &SweepOptions {
            normalize_at: Some(1.0),
        },
        &spec(),
        dir.join("b"),
    )
    .unwrap_err();
    assert!(
        e.to_string()
            .contains("\"b\" has no point at the baseline x = 1"),
        "{e}"
    );
    let e = sweep_curves(
        &[p("a", 1.0, 1.0), p("a", 1.0, 2.0)],
        &SweepOptions::default(),
        &spec(),
        dir.join("c"),
    )
    .unwrap_err();
    assert!(e.to_string().contains("two values"), "{e}");
    let many: Vec<SweepPoint> = (0..=MAX_SERIES)
        .map(|i| p(&format!("w{i}"), 1.0, 1.0))
        .collect();
    assert!(matches!(
        sweep_curves(&many, &SweepOptions::default(), &spec(), dir.join("d")),
        Err(ReportError::InvalidData { .. })
    ));
    let e = sweep_curves(
        &[p("a", 1.0, f64::INFINITY)],
        &SweepOptions::default(),
        &spec(),
        dir.join("e"),
    )
    .unwrap_err();
    assert!(
        matches!(e, ReportError::NotFinite { field: "y", .. }),
        "{e}"
    );
    let e = sweep_curves(
        &[p("a", 1.0, -1.0)],
        &SweepOptions::default(),
        &spec().log_y(),
        dir.join("f"),
    )
    .unwrap_err();
    assert!(
        matches!(e, ReportError::NonPositiveOnLogAxis { axis: "y", .. }),
        "{e}"
    );
}

#[test]
fn bar_errors() {
    let dir = out_dir("errors-bars");
    let v = |g: &str, s: &str, value: f64| BarValue {
        group: g.into(),
        series: s.into(),
        value,
    };
    let e = speedup_bars(
        &[v("a", "base", 1.0), v("b", "new", 1.0)],
        "base",
        &spec(),
        dir.join("a"),
    )
    .unwrap_err();
    assert!(
        e.to_string()
            .contains("group \"b\" has no baseline \"base\""),
        "{e}"
    );
    let e = speedup_bars(
        &[v("a", "base", 1.0), v("a", "new", 0.0)],
        "base",
        &spec(),
        dir.join("b"),
    )
    .unwrap_err();
    assert!(e.to_string().contains("a / new"), "{e}");
    assert!(matches!(
        speedup_bars(&[v("a", "base", 1.0)], "base", &spec(), dir.join("c")),
        Err(ReportError::EmptyData { .. })
    ));
    assert!(matches!(
        bars(
            &[v("a", "s", 1.0)],
            &BarOptions::default(),
            &spec().log_x(),
            dir.join("d")
        ),
        Err(ReportError::InvalidSpec(_))
    ));
    assert!(matches!(
        bars(&[], &BarOptions::default(), &spec(), dir.join("e")),
        Err(ReportError::EmptyData { .. })
    ));
    let e = bars(
        &[v("a", "s", 0.0)],
        &BarOptions::default(),
        &spec().log_y(),
        dir.join("f"),
    )
    .unwrap_err();
    assert!(matches!(e, ReportError::NonPositiveOnLogAxis { .. }), "{e}");
}

#[test]
fn stacked_errors() {
    let dir = out_dir("errors-stacked");
    let s = |b: &str, c: &str, value: f64| StackSegment {
        bar: b.into(),
        category: c.into(),
        value,
    };
    let e = stacked_bars(
        &[s("a", "x", 1.0), s("a", "y", -0.5)],
        &spec(),
        dir.join("a"),
    )
    .unwrap_err();
    assert!(e.to_string().contains("negative"), "{e}");
    let e = stacked_bars(&[s("a", "x", 0.0)], &spec(), dir.join("b")).unwrap_err();
    assert!(e.to_string().contains("bar \"a\" sums to 0"), "{e}");
    assert!(matches!(
        stacked_bars(&[s("a", "x", f64::NAN)], &spec(), dir.join("c")),
        Err(ReportError::NotFinite { .. })
    ));
    assert!(matches!(
        stacked_bars(&[s("a", "x", 1.0)], &spec().log_y(), dir.join("d")),
        Err(ReportError::InvalidSpec(_))
    ));
    // More categories than a short figure can list.
    let many: Vec<StackSegment> = (0..MAX_SERIES)
        .map(|i| s("a", &format!("category_{i}"), 1.0))
        .collect();
    let e = stacked_bars(&many, &spec().height_in(1.0), dir.join("e")).unwrap_err();
    assert!(e.to_string().contains("do not fit"), "{e}");
}

#[test]
fn roofline_and_timeline_errors() {
    let dir = out_dir("errors-roof");
    let m = Machine {
        name: "m".into(),
        compute: vec![],
        memory: vec![Ceiling::new("DRAM", 1e12)],
    };
    assert!(matches!(
        roofline(&m, &[], &spec(), dir.join("a")),
        Err(ReportError::InvalidData { .. })
    ));
    let m = Machine {
        compute: vec![Ceiling::new("FP32", 1e13)],
        ..m
    };
    let bad = [RooflinePoint {
        workload: "k".into(),
        flop_per_byte: -1.0,
        flops_per_s: 1e9,
    }];
    let e = roofline(&m, &bad, &spec(), dir.join("b")).unwrap_err();
    assert!(
        matches!(e, ReportError::NonPositiveOnLogAxis { axis: "x", .. })
            && e.to_string().contains("\"k\""),
        "{e}"
    );

    let span = |sm, start, end| CtaSpan {
        sm,
        cta: 7,
        start_cycle: start,
        end_cycle: end,
    };
    let t = |ctas: Vec<CtaSpan>| Timeline {
        num_sms: 2,
        ctas,
        occupancy: None,
    };
    assert!(matches!(
        timeline(&t(vec![]), &spec(), dir.join("c")),
        Err(ReportError::EmptyData { .. })
    ));
    let e = timeline(&t(vec![span(2, 0, 1)]), &spec(), dir.join("d")).unwrap_err();
    assert!(
        e.to_string().contains("CTA 7 is on SM 2, but num_sms = 2"),
        "{e}"
    );
    let e = timeline(&t(vec![span(0, 5, 1)]), &spec(), dir.join("e")).unwrap_err();
    assert!(
        e.to_string()
            .contains("ends (cycle 1) before it starts (5)"),
        "{e}"
    );
    let occ = Timeline {
        num_sms: 2,
        ctas: vec![span(0, 0, 10)],
        occupancy: Some(Occupancy {
            max_warps_per_sm: 4,
            samples: vec![OccupancySample {
                sm: 1,
                cycle: 3,
                active_warps: 5,
            }],
        }),
    };
    let e = timeline(&occ, &spec(), dir.join("f")).unwrap_err();
    assert!(
        e.to_string().contains("SM 1 has 5 active warps at cycle 3"),
        "{e}"
    );
    assert!(
        std::fs::read_dir(&dir).unwrap().next().is_none(),
        "nothing written on error"
    );
}

#[test]
fn crowded_small_figures_are_errors_not_garbage() {
    let dir = out_dir("errors-crowded");
    let small = FigureSpec::new("", Column::Single).height_in(1.0);
    let long = "a_workload_name_that_is_much_longer_than_any_sensible_label_would_be";
    let vals: Vec<BarValue> = (0..MAX_SERIES)
        .map(|i| BarValue {
            group: format!("{long}_{i}"),
            series: format!("{long}_series_{i}"),
            value: 1.0 + i as f64,
        })
        .collect();
    let e = bars(&vals, &BarOptions::default(), &small, dir.join("bars")).unwrap_err();
    assert!(
        matches!(e, ReportError::InvalidSpec(_)) && e.to_string().contains("too small"),
        "{e}"
    );
    let pts: Vec<SweepPoint> = (0..MAX_SERIES)
        .map(|i| SweepPoint {
            workload: format!("{long}{i}"),
            x: 1.0,
            y: 1.0,
        })
        .collect();
    let e = sweep_curves(&pts, &SweepOptions::default(), &small, dir.join("sweep")).unwrap_err();
    assert!(e.to_string().contains("too small"), "{e}");
    // The same data fit a full-size double-column figure.
    let roomy = FigureSpec::new("", Column::Double).height_in(4.0);
    sweep_curves(&pts, &SweepOptions::default(), &roomy, dir.join("roomy")).unwrap();
}
