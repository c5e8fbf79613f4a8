#!/bin/bash
# One device call (from the repository root). Result: $OUT/stload.csv, $OUT/stload-gpu.txt
set -u
nvcc -arch=sm_90 -O3 -o /tmp/stload validate/data/h100/stload/stload.cu || exit 1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader > $OUT/stload-gpu.txt 2>&1
/tmp/stload > $OUT/stload.csv 2> $OUT/stload.err
