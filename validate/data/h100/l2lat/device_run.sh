#!/bin/bash
# One device call (from the repository root). Result: $OUT/l2lat2.csv (two launches per row), $OUT/l2lat-gpu.txt
set -u
nvcc -arch=sm_90 -O3 -o /tmp/l2lat validate/data/h100/l2lat/l2lat.cu || exit 1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader > $OUT/l2lat-gpu.txt 2>&1
/tmp/l2lat > $OUT/l2lat2.csv 2> $OUT/l2lat.err
