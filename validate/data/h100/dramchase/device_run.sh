#!/bin/bash
# One device call (from the repository root). Result: $OUT/dramchase.csv, $OUT/dramchase-gpu.txt
set -u
nvcc -arch=sm_90 -O3 -o /tmp/dramchase validate/data/h100/dramchase/dramchase.cu || exit 1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader > $OUT/dramchase-gpu.txt 2>&1
/tmp/dramchase > $OUT/dramchase.csv 2> $OUT/dramchase.err
