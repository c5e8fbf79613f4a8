//! Each figure: size, non-empty plot, the right colours in the plot area, labels and legend names
//! in the SVG, and a different picture for different data.

use warpsim_reports::*;

use crate::common::*;

#[test]
fn validation_scatter_draws_band_points_outliers_and_stats() {
    let dir = out_dir("scatter");
    let pts = validation_points();
    let spec = FigureSpec::new("", Column::Single);
    let w =
        validation_scatter(&pts, &ScatterOptions::default(), &spec, dir.join("scatter")).unwrap();
    let (img, svg) = check_common(&w, Column::Single, 2.6);
    // Inliers are blue circles, the two outliers (beyond ±25%) vermillion triangles.
    assert!(img.count_color(&w.plot_area, BLUE) > 4 * 200, "blue points");
    assert!(
        img.count_color(&w.plot_area, VERMILLION) > 2 * 100,
        "vermillion outliers"
    );
    // The band is shaded.
    assert!(
        img.count_color(&w.plot_area, [0xE4, 0xE4, 0xE4]) > 10_000,
        "error band"
    );
    assert!(svg.has_text("Measured (cycles)") && svg.has_text("Simulated (cycles)"));
    assert!(svg.has_text("transpose_naive") && svg.has_text("histogram_atomics"));
    assert!(!svg.has_text("saxpy"), "inliers are not labelled");
    let stats = validation_stats(&pts).unwrap();
    assert!(
        svg.has_text(&format!("MAPE = {:.1}%", stats.mape_pct)),
        "{:?}",
        svg.texts
    );
    assert!(svg.has_text(&format!("Pearson r = {:.3}", stats.pearson_r.unwrap())));
    assert!(svg.has_text("within ±25%: 4/6"));
    assert!(svg.count("polygon") >= 1 && svg.count("circle") >= 4);

    // Different data, different picture.
    let mut moved = pts.clone();
    moved[0].simulated_cycles *= 3.0;
    let w2 =
        validation_scatter(&moved, &ScatterOptions::default(), &spec, dir.join("moved")).unwrap();
    assert_ne!(decode_png(&w2.png).rgb, img.rgb);
    // A wider band has no outliers and no labels.
    let wide = ScatterOptions {
        error_band: 0.5,
        label_outliers: true,
    };
    let w3 = validation_scatter(&pts, &wide, &spec, dir.join("wide")).unwrap();
    let svg3 = parse_svg(&w3.svg);
    assert!(!svg3.has_text("histogram_atomics"));
    assert_eq!(
        decode_png(&w3.png).count_color(&w3.plot_area, VERMILLION),
        0
    );
}

#[test]
fn sweep_curves_one_line_per_workload_with_legend() {
    let dir = out_dir("sweep");
    let mut pts = Vec::new();
    for (w, slope) in [("gemm", 0.1), ("stencil", 0.5), ("chase", 1.0)] {
        for x in [16.0, 32.0, 64.0, 128.0] {
            pts.push(SweepPoint {
                workload: w.into(),
                x,
                y: 1000.0 * (64.0f64 / x).powf(slope),
            });
        }
    }
    let spec = FigureSpec::new("L2 sweep", Column::Single)
        .x_label("L2 size (MiB)")
        .y_label("Cycles")
        .log_x();
    let w = sweep_curves(&pts, &SweepOptions::default(), &spec, dir.join("raw")).unwrap();
    let (img, svg) = check_common(&w, Column::Single, 2.6);
    for name in [
        "gemm",
        "stencil",
        "chase",
        "L2 size (MiB)",
        "Cycles",
        "L2 sweep",
    ] {
        assert!(svg.has_text(name), "missing {name}: {:?}", svg.texts);
    }
    // The swept values are the x ticks.
    for tick in ["16", "32", "64", "128"] {
        assert!(svg.has_text(tick), "tick {tick}: {:?}", svg.texts);
    }
    assert!(
        svg.count("polyline") + svg.count("path") >= 3,
        "{:?}",
        svg.elements
    );
    assert!(img.count_color(&w.plot_area, BLUE) > 500);
    assert!(img.count_color(&w.plot_area, VERMILLION) > 500);
    // The legend sits above the plot, not on it.
    assert!(
        img.count_color(
            &PixelRect {
                left: 0,
                top: 0,
                right: img.width as i32,
                bottom: w.plot_area.top
            },
            BLUE
        ) > 50
    );

    let norm = sweep_curves(
        &pts,
        &SweepOptions {
            normalize_at: Some(64.0),
        },
        &spec.clone().y_label(""),
        dir.join("norm"),
    )
    .unwrap();
    let nsvg = parse_svg(&norm.svg);
    assert!(nsvg.has_text("Normalised to x = 64"), "{:?}", nsvg.texts);
    assert_ne!(decode_png(&norm.png).rgb, img.rgb);
}

#[test]
fn bars_and_speedups() {
    let dir = out_dir("bars");
    let mut cycles = Vec::new();
    for (g, base) in [("vector_add", 100.0), ("matmul", 400.0), ("reduce", 250.0)] {
        for (s, f) in [("LRR", 1.0), ("GTO", 0.8), ("two-level", 0.5)] {
            cycles.push(BarValue {
                group: g.into(),
                series: s.into(),
                value: base * f,
            });
        }
    }
    let w = speedup_bars(
        &cycles,
        "LRR",
        &FigureSpec::new("", Column::Single),
        dir.join("speedup"),
    )
    .unwrap();
    let (img, svg) = check_common(&w, Column::Single, 2.6);
    for name in [
        "GTO",
        "two-level",
        "vector_add",
        "matmul",
        "reduce",
        "Speedup over LRR (×)",
    ] {
        assert!(svg.has_text(name), "missing {name}: {:?}", svg.texts);
    }
    assert!(!svg.has_text("LRR"), "the baseline series is not drawn");
    // GTO = 1.25×, two-level = 2× everywhere: the vermillion bars have more area than the blue.
    let (blue, verm) = (
        img.count_color(&w.plot_area, BLUE),
        img.count_color(&w.plot_area, VERMILLION),
    );
    assert!(
        blue > 1000 && verm as f64 > 1.4 * blue as f64,
        "blue {blue}, vermillion {verm}"
    );
    assert!(svg.count("rect") > 6, "six bars and the background");

    let raw = bars(
        &cycles,
        &BarOptions::default(),
        &FigureSpec::new("", Column::Double).y_label("Cycles"),
        dir.join("raw"),
    )
    .unwrap();
    let (_, rsvg) = check_common(&raw, Column::Double, 2.8);
    assert!(rsvg.has_text("LRR") && rsvg.has_text("Cycles"));
}

#[test]
fn stacked_bars_normalise_and_list_categories_in_stack_order() {
    let dir = out_dir("stacked");
    let states = ["selected", "long_scoreboard", "barrier", "sleeping", "misc"];
    let mut segs = Vec::new();
    for (b, w) in [
        ("gemm", [2.0, 6.0, 1.0, 0.0, 1.0]),
        ("reduce", [1.0, 1.0, 7.0, 0.0, 1.0]),
    ] {
        for (c, v) in states.iter().zip(w) {
            segs.push(StackSegment {
                bar: b.into(),
                category: (*c).into(),
                value: v,
            });
        }
    }
    let w = stacked_bars(
        &segs,
        &FigureSpec::new("", Column::Single),
        dir.join("stalls"),
    )
    .unwrap();
    let (img, svg) = check_common(&w, Column::Single, 2.6);
    for name in [
        "selected",
        "long_scoreboard",
        "barrier",
        "misc",
        "gemm",
        "reduce",
        "Fraction",
    ] {
        assert!(svg.has_text(name), "missing {name}: {:?}", svg.texts);
    }
    assert!(
        !svg.has_text("sleeping"),
        "all-zero categories are left out"
    );
    // Legend order = stack order, top first.
    let pos = |n: &str| svg.texts.iter().position(|t| t == n).unwrap();
    assert!(
        pos("misc") < pos("barrier")
            && pos("barrier") < pos("long_scoreboard")
            && pos("long_scoreboard") < pos("selected")
    );
    // Both bars reach the top of the axis (fractions sum to 1): the column at each bar's centre is
    // coloured from the bottom to the top of the plot.
    let p = w.plot_area;
    let plot_w = p.right - p.left;
    for centre in [p.left + plot_w / 4, p.left + 3 * plot_w / 4] {
        let near_top = img.pixel(centre, p.top + 2);
        assert_ne!(
            near_top,
            [255, 255, 255],
            "bar at x={centre} does not reach 1.0"
        );
    }
    // selected = 20% of gemm, 10% of reduce: blue area of gemm ≈ 2× reduce's.
    let half = |l: i32, r: i32| PixelRect {
        left: l,
        right: r,
        ..p
    };
    let blue_l = img.count_color(&half(p.left, p.left + plot_w / 2), BLUE) as f64;
    let blue_r = img.count_color(&half(p.left + plot_w / 2, p.right), BLUE) as f64;
    assert!((blue_l / blue_r - 2.0).abs() < 0.15, "{blue_l} vs {blue_r}");
}

#[test]
fn roofline_labels_roofs_and_points() {
    let dir = out_dir("roofline");
    let m = Machine {
        name: "H200".into(),
        compute: vec![Ceiling::new("FP32", 67e12), Ceiling::new("FP64", 34e12)],
        memory: vec![Ceiling::new("HBM3e", 4.8e12), Ceiling::new("L2", 12e12)],
    };
    let pts = vec![
        RooflinePoint {
            workload: "vector_add".into(),
            flop_per_byte: 0.083,
            flops_per_s: 0.38e12,
        },
        RooflinePoint {
            workload: "matmul".into(),
            flop_per_byte: 8.0,
            flops_per_s: 21e12,
        },
    ];
    let w = roofline(
        &m,
        &pts,
        &FigureSpec::new("", Column::Single),
        dir.join("roof"),
    )
    .unwrap();
    let (img, svg) = check_common(&w, Column::Single, 2.6);
    for name in [
        "HBM3e 4.8 TB/s",
        "L2 12 TB/s",
        "FP32 67 TFLOP/s",
        "FP64 34 TFLOP/s",
        "vector_add",
        "matmul",
        "Arithmetic intensity (FLOP/byte)",
        "Performance (FLOP/s)",
    ] {
        assert!(svg.has_text(name), "missing {name}: {:?}", svg.texts);
    }
    // Memory roofs in the first two palette colours.
    assert!(
        img.count_color(&w.plot_area, BLUE) > 1000
            && img.count_color(&w.plot_area, VERMILLION) > 1000
    );
    let w2 = roofline(
        &m,
        &pts[..1],
        &FigureSpec::new("", Column::Single),
        dir.join("one"),
    )
    .unwrap();
    assert_ne!(decode_png(&w2.png).rgb, img.rgb);
}

#[test]
fn timeline_with_and_without_occupancy() {
    let dir = out_dir("timeline");
    let num_sms = 8;
    let mut ctas = Vec::new();
    for cta in 0..24u64 {
        let sm = (cta % 8) as u32;
        let start = (cta / 8) * 1000;
        ctas.push(CtaSpan {
            sm,
            cta,
            start_cycle: start,
            end_cycle: start + 1500,
        });
    }
    let plain = Timeline {
        num_sms,
        ctas: ctas.clone(),
        occupancy: None,
    };
    let spec = FigureSpec::new("", Column::Double);
    let w = timeline(&plain, &spec, dir.join("plain")).unwrap();
    let (img, svg) = check_common(&w, Column::Double, 2.8);
    assert!(svg.has_text("Cycle") && svg.has_text("SM") && !svg.has_text("Active warps"));
    // Overlapping CTAs (1500 cycles every 1000) go to two lanes in two shades.
    let sky = [0x56, 0xB4, 0xE9];
    assert!(
        img.count_color(&w.plot_area, BLUE) > 5000 && img.count_color(&w.plot_area, sky) > 5000
    );
    assert!(svg.count("rect") >= 24);

    let samples = (0..num_sms)
        .flat_map(|sm| {
            (0..8u64).map(move |k| OccupancySample {
                sm,
                cycle: k * 500,
                active_warps: (k as u32 * 8).min(64),
            })
        })
        .collect();
    let occ = Timeline {
        num_sms,
        ctas,
        occupancy: Some(Occupancy {
            max_warps_per_sm: 64,
            samples,
        }),
    };
    let w2 = timeline(&occ, &spec.clone().height_in(3.5), dir.join("occ")).unwrap();
    let (img2, svg2) = check_common(&w2, Column::Double, 3.5);
    assert!(svg2.has_text("Active warps") && svg2.has_text("64"));
    // The heat map is in the lower half of the image, in viridis colours (blue-green-yellow).
    let lower = PixelRect {
        left: w2.plot_area.left,
        top: img2.height as i32 / 2,
        right: w2.plot_area.right,
        bottom: img2.height as i32,
    };
    let viridis_like = img2.count_in(&lower, |p| {
        p[1] > p[0] && p[2] > 0x30 && p != [255, 255, 255]
    });
    assert!(viridis_like > 20_000, "{viridis_like}");
}

#[test]
fn degenerate_but_valid_inputs_draw() {
    let dir = out_dir("degenerate");
    let spec = FigureSpec::new(
        "A rather long title with ünïcödé, <angle brackets> & ampersands",
        Column::Single,
    );
    // One point, exactly on y = x.
    let one = [ValidationPoint {
        workload: "only".into(),
        measured_cycles: 1000.0,
        simulated_cycles: 1000.0,
    }];
    let w = validation_scatter(&one, &ScatterOptions::default(), &spec, dir.join("one")).unwrap();
    let (_, svg) = check_common(&w, Column::Single, 2.6);
    assert!(svg.has_text("Pearson r = n/a"));
    // The long title is wrapped onto lines that, read in order, give it back.
    let joined = svg.texts.join(" ");
    assert!(
        joined.contains("A rather long title with ünïcödé, <angle brackets> & ampersands"),
        "{joined}"
    );
    assert!(
        !svg.has_text("A rather long title with ünïcödé, <angle brackets> & ampersands"),
        "not wrapped"
    );
    // Enormous range.
    let wide = [
        ValidationPoint {
            workload: "tiny".into(),
            measured_cycles: 1e-3,
            simulated_cycles: 2e-3,
        },
        ValidationPoint {
            workload: "huge".into(),
            measured_cycles: 1e15,
            simulated_cycles: 1e15,
        },
    ];
    check_common(
        &validation_scatter(&wide, &ScatterOptions::default(), &spec, dir.join("wide")).unwrap(),
        Column::Single,
        2.6,
    );
    // A single sweep point; a flat line.
    let sp = [SweepPoint {
        workload: "w".into(),
        x: 3.0,
        y: 7.0,
    }];
    check_common(
        &sweep_curves(&sp, &SweepOptions::default(), &spec, dir.join("sweep1")).unwrap(),
        Column::Single,
        2.6,
    );
    // Negative bars on a linear axis, one series (no legend).
    let neg = [
        BarValue {
            group: "a".into(),
            series: "delta".into(),
            value: -3.0,
        },
        BarValue {
            group: "b".into(),
            series: "delta".into(),
            value: 2.0,
        },
    ];
    let w = bars(
        &neg,
        &BarOptions {
            baseline: Some(0.0),
        },
        &spec,
        dir.join("neg"),
    )
    .unwrap();
    let (_, svg) = check_common(&w, Column::Single, 2.6);
    assert!(!svg.has_text("delta"));
    // Roofs only.
    let m = Machine {
        name: "m".into(),
        compute: vec![Ceiling::new("FP32", 1e13)],
        memory: vec![Ceiling::new("DRAM", 1e12)],
    };
    check_common(
        &roofline(&m, &[], &spec, dir.join("roofs")).unwrap(),
        Column::Single,
        2.6,
    );
    // One SM, one zero-length CTA at cycle 0.
    let t = Timeline {
        num_sms: 1,
        ctas: vec![CtaSpan {
            sm: 0,
            cta: 0,
            start_cycle: 0,
            end_cycle: 0,
        }],
        occupancy: None,
    };
    let w = timeline(&t, &spec, dir.join("tl")).unwrap();
    assert_eq!(decode_png(&w.png).width, 1050);
}
