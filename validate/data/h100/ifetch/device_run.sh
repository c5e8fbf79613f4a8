#!/bin/bash
# One device call (from the repository root). Results under $OUT: ifetch.csv (timed run), ifetch-ncu.csv
# (ncu raw page, WarpStateStats + SchedulerStats, the same launches at 1/8 the reps), ifetch-gpu.txt,
# ncu-metrics.txt (the chip's metrics on instruction fetch, for later probes).
set -u
nvcc -arch=sm_90 -O3 -o /tmp/ifetch validate/data/h100/ifetch/ifetch.cu || exit 1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader > $OUT/ifetch-gpu.txt 2>&1
/tmp/ifetch > $OUT/ifetch.csv 2> $OUT/ifetch.err
ncu --query-metrics 2>/dev/null | grep -i -E "icc|inst_fetch|no_instruction|branch_target|imc" > $OUT/ncu-metrics.txt
timeout 420 ncu --clock-control none --section WarpStateStats --section SchedulerStats \
  --metrics smsp__inst_executed.sum,sm__cycles_active.avg,gpc__cycles_elapsed.max,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_op_read.sum \
  --csv --page raw /tmp/ifetch 0.125 > $OUT/ifetch-ncu.csv 2> $OUT/ifetch-ncu.err
gzip -f $OUT/ifetch-ncu.csv
