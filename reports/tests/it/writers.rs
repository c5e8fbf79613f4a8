//! CSV, JSON, text tables and the summary page, read back.

use warpsim_reports::*;

use crate::common::*;

#[test]
fn csv_is_tidy_and_round_trips() {
    let dir = out_dir("csv");
    let pts = validation_points();
    let path = dir.join("sub/validation.csv");
    write_csv(&path, &pts).unwrap();
    let mut r = csv::Reader::from_path(&path).unwrap();
    assert_eq!(
        r.headers().unwrap(),
        vec!["workload", "measured_cycles", "simulated_cycles"]
    );
    let back: Vec<ValidationPoint> = r.deserialize().collect::<Result<_, _>>().unwrap();
    assert_eq!(back, pts);
    assert!(matches!(
        write_csv::<ValidationPoint>(dir.join("e.csv"), &[]),
        Err(ReportError::EmptyData { .. })
    ));
    // Nested rows cannot be tidy CSV: an error, not a panic.
    let e = write_csv(
        dir.join("nested.csv"),
        &[Timeline {
            num_sms: 1,
            ctas: vec![],
            occupancy: None,
        }],
    )
    .unwrap_err();
    assert!(matches!(e, ReportError::Csv { .. }), "{e}");
}

#[test]
fn json_round_trips() {
    let dir = out_dir("json");
    let stats = validation_stats(&validation_points()).unwrap();
    write_json(dir.join("stats.json"), &stats).unwrap();
    let text = std::fs::read_to_string(dir.join("stats.json")).unwrap();
    let back: ValidationStats = serde_json::from_str(&text).unwrap();
    assert_eq!(back, stats);
    assert!(text.ends_with("}\n"));
}

#[test]
fn summary_page_embeds_figures_relatively_and_tabulates() {
    let dir = out_dir("summary");
    let pts = validation_points();
    let w = validation_scatter(
        &pts,
        &ScatterOptions::default(),
        &FigureSpec::new("", Column::Single),
        dir.join("figs/scatter"),
    )
    .unwrap();
    let table = validation_table(&pts).unwrap();
    let sections = vec![Section {
        heading: "Validation <H200> & friends".into(),
        text: "First paragraph.\n\nSecond | paragraph.".into(),
        figures: vec![FigureRef::new(&w, "Measured vs simulated")],
        tables: vec![table],
    }];
    let paths = summary_page(
        &dir,
        "warpsim report",
        &sections,
        &TableOptions { thousands: true },
    )
    .unwrap();

    let md = std::fs::read_to_string(&paths.markdown).unwrap();
    assert!(md.starts_with("# warpsim report\n"));
    assert!(
        md.contains("![Measured vs simulated](figs/scatter.png)"),
        "{md}"
    );
    assert!(md.contains("([SVG](figs/scatter.svg))"));
    assert!(md.contains("| workload | measured (cycles) | simulated (cycles) | error (%) |"));
    assert!(md.contains("| :--- | ---: | ---: | ---: |"));
    assert!(
        md.contains("| matmul\\_naive | 1,450,000 | 1,610,000 | 11.0 |"),
        "{md}"
    );
    assert!(md.contains("Second \\| paragraph."));
    assert!(
        !md.contains(dir.to_str().unwrap()),
        "paths must be relative"
    );

    let html = std::fs::read_to_string(&paths.html).unwrap();
    let doc = roxmltree::Document::parse_with_options(
        &html,
        roxmltree::ParsingOptions {
            allow_dtd: true,
            ..Default::default()
        },
    )
    .expect("HTML is well-formed XHTML");
    let img = doc.descendants().find(|n| n.has_tag_name("img")).unwrap();
    assert_eq!(img.attribute("src"), Some("figs/scatter.svg"));
    assert!(doc
        .descendants()
        .any(|n| n.has_tag_name("a") && n.attribute("href") == Some("figs/scatter.png")));
    let h2 = doc.descendants().find(|n| n.has_tag_name("h2")).unwrap();
    assert_eq!(h2.text(), Some("Validation <H200> & friends"));
    let num_cells = doc
        .descendants()
        .filter(|n| n.has_tag_name("td") && n.attribute("class") == Some("num"))
        .count();
    assert_eq!(num_cells, 3 * pts.len());
    assert_eq!(doc.descendants().filter(|n| n.has_tag_name("p")).count(), 2);

    let ragged = vec![Section {
        tables: vec![Table::new(["a"]).row([])],
        ..Section::default()
    }];
    assert!(matches!(
        summary_page(&dir, "x", &ragged, &TableOptions::default()),
        Err(ReportError::InvalidData { .. })
    ));
    assert!(matches!(
        summary_page(&dir, "x", &[], &TableOptions::default()),
        Err(ReportError::EmptyData { .. })
    ));
}

#[test]
fn text_table_from_validation() {
    let t = validation_table(&validation_points()).unwrap();
    let s = text_table(&t, &TableOptions { thousands: true }).unwrap();
    let lines: Vec<&str> = s.lines().collect();
    assert_eq!(lines.len(), 2 + 6);
    assert!(lines[0].starts_with("workload "));
    // Numbers right-aligned: every data line ends at the same column.
    let ends: Vec<usize> = lines[2..].iter().map(|l| l.chars().count()).collect();
    assert!(ends.windows(2).all(|w| w[0] == w[1]), "{s}");
    assert!(s.contains("1,450,000"));
}
