#!/bin/bash
# One device call (from the repository root). Result: $OUT/gpcpart.csv (rep,gpc,smid,line,cycles), $OUT/gpcpart-gpu.txt
set -u
cd validate/data/h100/lrc && nvcc -arch=sm_90 -O3 -o /tmp/gpcpart gpcpart.cu || exit 1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader > $OUT/gpcpart-gpu.txt 2>&1
/tmp/gpcpart > $OUT/gpcpart.csv; tail -2 $OUT/gpcpart.csv
