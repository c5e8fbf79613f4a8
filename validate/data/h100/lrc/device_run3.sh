#!/bin/bash
# One device call (from the repository root). Result: $OUT/lrc3.csv, $OUT/lrc3-ncu.csv
set -u
nvcc -arch=sm_90 -O3 -o /tmp/lrc3 validate/data/h100/lrc/lrc3.cu || exit 1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader > $OUT/lrc3-gpu.txt 2>&1
/tmp/lrc3 > $OUT/lrc3.csv 2> $OUT/lrc3.err
timeout 400 ncu --clock-control none --metrics lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,gpc__cycles_elapsed.max --csv /tmp/lrc3 > $OUT/lrc3-ncu.csv 2> $OUT/lrc3-ncu.err
