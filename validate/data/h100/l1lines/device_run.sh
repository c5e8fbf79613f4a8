#!/bin/bash
# One device call (from the repository root). Result: $OUT/l1lines.csv, $OUT/l1lines-gpu.txt
set -u
nvcc -arch=sm_90 -O3 -o /tmp/l1lines validate/data/h100/l1lines/l1lines.cu || exit 1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader > $OUT/l1lines-gpu.txt 2>&1
/tmp/l1lines > $OUT/l1lines.csv 2> $OUT/l1lines.err
