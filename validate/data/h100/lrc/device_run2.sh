#!/bin/bash
# One device call (from the repository root). Result: $OUT/lrc2.csv, $OUT/lrc2-smid.txt, $OUT/lrc2-ncu.csv
set -u
nvcc -arch=sm_90 -O3 -o /tmp/lrc2 validate/data/h100/lrc/lrc2.cu || exit 1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader > $OUT/lrc2-gpu.txt 2>&1
/tmp/lrc2 > $OUT/lrc2.csv 2> $OUT/lrc2-smid.txt
timeout 400 ncu --clock-control none --metrics lts__t_sectors_srcunit_tex_op_read.sum,lts__t_requests_srcunit_tex_op_read.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,gpc__cycles_elapsed.max --csv /tmp/lrc2 > $OUT/lrc2-ncu.csv 2> $OUT/lrc2-ncu.err
