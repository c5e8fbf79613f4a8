//! Writes one sample of every figure, a CSV/JSON pair and a summary page into the directory given
//! as the first argument (default `target/report-samples`), from made-up but plausible data.
//! Run: `cargo run -p warpsim-reports --release --example samples -- DIR`.

use std::path::PathBuf;

use warpsim_reports::*;

fn main() -> Result<(), ReportError> {
    let dir = PathBuf::from(std::env::args().nth(1).unwrap_or_else(|| "target/report-samples".into()));
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
    .map(|(w, m, s)| ValidationPoint { workload: w.into(), measured_cycles: m, simulated_cycles: s })
    .collect();
    let spec = FigureSpec::new("", Column::Single);
    let w = validation_scatter(&points, &ScatterOptions::default(), &spec, dir.join("validation_scatter"))?;
    println!("{}", w.png.display());
    Ok(())
}
