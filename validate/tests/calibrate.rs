//! Calibration is reproducible: fitting `hopper-h200-datasheet` to the dataset the shipped
//! `hopper-h200` preset names regenerates that preset byte for byte.

use std::path::Path;

use warpsim_sim::presets::preset_source;
use warpsim_validate::calibrate::{calibrate, Inputs};
use warpsim_validate::Dataset;

#[test]
fn the_shipped_h200_preset_is_the_calibration_of_its_dataset() {
    let shipped = preset_source("hopper-h200").unwrap();
    // The header names the dataset: "# validate/data/h200/<date>.json (N workloads); ...".
    let label = shipped
        .lines()
        .take(4)
        .flat_map(|l| l.split_whitespace())
        .find(|w| w.starts_with("validate/data/") && w.ends_with(".json"))
        .expect("the shipped preset's header names its dataset");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let dataset = Dataset::load(&root.join(label)).unwrap();
    let inputs = Inputs {
        base_name: "hopper-h200-datasheet",
        base_text: preset_source("hopper-h200-datasheet").unwrap(),
        name: "hopper-h200",
        dataset: &dataset,
        dataset_label: label,
        threads: 2,
        code: &|_| None,
        isa: "ptx",
    };
    let c = calibrate(&inputs, &mut |_: &str| {}).unwrap();
    if c.text != shipped {
        let diff: Vec<String> = shipped
            .lines()
            .zip(c.text.lines())
            .filter(|(a, b)| a != b)
            .take(10)
            .map(|(a, b)| format!("- {a}\n+ {b}"))
            .collect();
        panic!(
            "calibrating again gives a different preset; rerun `warpsim validate calibrate --out \
             sim/presets/hopper-h200.toml` and commit it with the change that moved it:\n{}",
            diff.join("\n")
        );
    }
}
