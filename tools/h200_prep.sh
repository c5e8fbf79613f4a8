#!/usr/bin/env bash
# First call of a validation session on the H200 machine (through the `device` tool): records the
# environment, runs the floating-point oracle, and regenerates the bundled suite's PTX and the
# parser corpus with the machine's own nvcc. Everything lands in $OUT (at most 8 files):
#   env.txt, logs.txt, fp_oracle_h200.txt, suite_ptx.tar.gz, corpus_{log,summary}.txt, corpus_ptx.tar.gz
# Needs nothing carried: it builds only CUDA code. The second call runs validate/collect.sh.
set -u
out="${OUT:-/tmp/h200_prep}"
mkdir -p "$out"
log="$out/logs.txt"
{ date -u; nvidia-smi; nvcc --version; ncu --version; nproc; } > "$out/env.txt" 2>&1
echo "== fp oracle" >> "$log"
t0=$(date +%s)
if nvcc -arch=sm_90 -O2 -o /tmp/fp_oracle isa/tests/hw/fp_oracle.cu >> "$log" 2>&1; then
    /tmp/fp_oracle "$out/fp_oracle_h200.txt" >> "$log" 2>&1 || echo "fp oracle run failed: $?" >> "$log"
else
    echo "fp oracle build failed" >> "$log"
fi
echo "fp oracle: $(( $(date +%s) - t0 )) s" >> "$log"
echo "== suite PTX" >> "$log"
t0=$(date +%s)
PTXAS=1 bash workloads/gen_ptx.sh >> "$log" 2>&1 || echo "gen_ptx failed: $?" >> "$log"
tar czf "$out/suite_ptx.tar.gz" workloads/suite/*/kernel.ptx
echo "suite PTX: $(( $(date +%s) - t0 )) s" >> "$log"
echo "== corpus" >> "$log"
t0=$(date +%s)
JOBS="$(nproc)" bash tools/gen_corpus.sh >> "$log" 2>&1 || echo "gen_corpus failed: $?" >> "$log"
echo "corpus: $(( $(date +%s) - t0 )) s" >> "$log"
grep -E "^fp oracle|^suite PTX|^corpus:|failed|FAILED" "$log" | tail -20
ls -la "$out"
