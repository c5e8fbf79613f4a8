#!/usr/bin/env bash
# One device call: builds wfcheck.cu with the machine's nvcc and profiles its six launches with ncu
# (the GPU's own clocks, caches flushed before each pass). Writes $OUT/ncu.csv, ncu.err, gpu.txt.
set -u
cd "$(dirname "$0")"
OUT=${OUT:-/tmp/wfcheck-out}; mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$OUT/gpu.txt"
nvcc -arch=sm_90 -O3 -lineinfo wfcheck.cu -o /tmp/wfcheck 2>&1 | tail -3
M=gpc__cycles_elapsed.max,smsp__inst_executed.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,\
l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,\
l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,lts__t_sectors_op_read.sum
ncu --clock-control none --print-units base --csv --metrics "$M" /tmp/wfcheck > "$OUT/ncu.csv" 2> "$OUT/ncu.err"
echo "ncu rc=$?"; tail -3 "$OUT/ncu.err"
