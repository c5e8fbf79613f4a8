#!/usr/bin/env bash
# On the H200 machine (through the `device` tool): runs the example CUDA programs of
# workloads/programs natively, the committed binaries (the very files `warpsim exec` simulates)
# and a fresh build with the machine's nvcc, each under ncu for per-launch cycles and time.
# Everything lands in $OUT: env.txt, <p>.native.txt (program output), ncu-<p>.csv, ncu-<p>.log.
# Compare here: warpsim exec --report R.json -- workloads/programs/bin/<p>, then
#   python3 tools/compare_programs.py R.json ncu-<p>.csv
set -u
out="${OUT:-/tmp/h200_programs}"
mkdir -p "$out"
{ date -u; nvidia-smi; nvcc --version; ncu --version; } > "$out/env.txt" 2>&1
metrics=gpc__cycles_elapsed.max,gpu__time_duration.sum,smsp__inst_executed.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active
for p in reduce stencil bfs; do
    bin="workloads/programs/bin/$p"
    { echo "== committed binary"; "$bin"; echo "exit $?"; } > "$out/$p.native.txt" 2>&1
    if nvcc -O3 -arch=sm_90 -cudart shared -o "/tmp/$p" "workloads/programs/$p.cu" >> "$out/$p.native.txt" 2>&1; then
        { echo "== rebuilt with this machine's nvcc"; "/tmp/$p"; echo "exit $?"; } >> "$out/$p.native.txt" 2>&1
    fi
    ncu --clock-control none --cache-control all --replay-mode kernel --print-units base \
        --print-kernel-base function --csv --metrics "$metrics" "$bin" > "$out/ncu-$p.csv" 2> "$out/ncu-$p.log"
done
grep -H -E "PASS|FAIL|exit" "$out"/*.native.txt
ls -la "$out"
