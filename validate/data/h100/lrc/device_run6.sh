#!/bin/bash
# One device call (from the repository root). Result: $OUT/lrc6.csv, $OUT/lrc6-ncu.csv
set -u
nvcc -arch=sm_90 -O3 -o /tmp/lrc6 validate/data/h100/lrc/lrc6.cu || exit 1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader > $OUT/lrc6-gpu.txt 2>&1
/tmp/lrc6 > $OUT/lrc6.csv 2> $OUT/lrc6.err
timeout 400 ncu --clock-control none --metrics lts__t_sectors_srcunit_tex_op_read.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,gpc__cycles_elapsed.max --csv /tmp/lrc6 > $OUT/lrc6-ncu.csv 2> $OUT/lrc6-ncu.err
