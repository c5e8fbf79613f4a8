#!/bin/bash
# One device call (from the repository root). Result: $OUT/lrc4.csv, $OUT/lrc4-ncu.csv
set -u
nvcc -arch=sm_90 -O3 -o /tmp/lrc4 validate/data/h100/lrc/lrc4.cu || exit 1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader > $OUT/lrc4-gpu.txt 2>&1
/tmp/lrc4 > $OUT/lrc4.csv 2> $OUT/lrc4.err
# One metric per replay pass would let the merging differ between passes: the lookups alone.
timeout 400 ncu --clock-control none --metrics lts__t_sectors_srcunit_tex_op_read.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,gpc__cycles_elapsed.max --csv /tmp/lrc4 > $OUT/lrc4-ncu.csv 2> $OUT/lrc4-ncu.err
