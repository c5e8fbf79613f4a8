#!/usr/bin/env bash
# Timing fingerprint: every bundled workload on each preset, one line per (preset, workload) with
# its cycles, warp instructions, counters, warp-state fractions, occupancy and check status (or the
# error, for workloads a preset cannot run). Two fingerprints of the same code must be identical;
# a speed-only change to the simulator must not change a byte of it.
#
#   tools/timing_fingerprint.sh > before.txt     # … change the simulator, rebuild …
#   tools/timing_fingerprint.sh > after.txt && diff before.txt after.txt
#
# Environment: WARPSIM (binary, default target/release/warpsim), PRESETS (default
# "hopper-h200 volta-gv100"), THREADS (timing-model worker threads, default 1), ONLY (workload
# names, default all), SET (overrides passed as `--set` to every run, space-separated, e.g.
# "sm.scheduler=gto"). Needs jq.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${WARPSIM:-target/release/warpsim}
presets=${PRESETS:-hopper-h200 volta-gv100}
threads=${THREADS:-1}
names=${ONLY:-$("$bin" workloads | awk '{print $1}')}
sets=()
for s in ${SET:-}; do sets+=(--set "$s"); done
for p in $presets; do
    for w in $names; do
        if json=$("$bin" run "$w" --arch "$p" --threads "$threads" "${sets[@]}" --json 2>/tmp/timing_fingerprint.err.$$); then
            echo "$p $w $(jq -cS 'del(.sim_seconds)' <<<"$json")"
        else
            echo "$p $w error: $(tr '\n' ' ' </tmp/timing_fingerprint.err.$$)"
        fi
    done
done
rm -f /tmp/timing_fingerprint.err.$$
