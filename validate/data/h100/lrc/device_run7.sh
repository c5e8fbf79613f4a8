#!/bin/bash
# One device call (from the repository root). Result: $OUT/lrc7.csv (launch order),
# $OUT/lrc7-stamp.txt (part C: each CTA's %smid and start), $OUT/lrc7-ncu.csv, $OUT/lrc7-gpu.txt
set -u
cd validate/data/h100/lrc && nvcc -arch=sm_90 -O3 -o /tmp/lrc7 lrc7.cu || exit 1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader > $OUT/lrc7-gpu.txt 2>&1
/tmp/lrc7 > $OUT/lrc7.csv 2> $OUT/lrc7-stamp.txt
timeout 300 ncu --clock-control none -k regex:'^(pair|mma|cpasync|matmul)' --metrics lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_op_read.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,gpc__cycles_elapsed.max --csv /tmp/lrc7 > $OUT/lrc7-ncu.csv 2> $OUT/lrc7-ncu.err
tail -3 $OUT/lrc7-ncu.err; wc -l $OUT/lrc7-ncu.csv
