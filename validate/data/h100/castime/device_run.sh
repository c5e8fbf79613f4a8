#!/bin/bash
# One device call (from the repository root): $OUT/castime.csv, $OUT/castime-bins.tgz, $OUT/castime-gpu.txt
set -u
cd validate/data/h100/castime && nvcc -arch=sm_90 -O3 -o /tmp/castime cas_time.cu || exit 1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader > $OUT/castime-gpu.txt 2>&1
mkdir -p /tmp/ct && /tmp/castime /tmp/ct && cp /tmp/ct/castime.csv $OUT/ && (cd /tmp/ct && tar czf $OUT/castime-bins.tgz castime_*.bin)
cat $OUT/castime.csv
