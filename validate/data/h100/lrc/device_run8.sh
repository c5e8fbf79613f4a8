#!/bin/bash
# One device call (from the repository root). Result: $OUT/lrc8.csv (launches), $OUT/lrc8-ncu.csv, $OUT/lrc8-gpu.txt
set -u
cd validate/data/h100/lrc && nvcc -arch=sm_90 -O3 -o /tmp/lrc8 lrc8.cu || exit 1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader > $OUT/lrc8-gpu.txt 2>&1
/tmp/lrc8 > $OUT/lrc8.csv
timeout 300 ncu --clock-control none -k pairbg --metrics lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_op_read.sum,gpc__cycles_elapsed.max --csv /tmp/lrc8 > $OUT/lrc8-ncu.csv 2> $OUT/lrc8-ncu.err
tail -3 $OUT/lrc8-ncu.err; wc -l $OUT/lrc8-ncu.csv; cat $OUT/lrc8.csv
