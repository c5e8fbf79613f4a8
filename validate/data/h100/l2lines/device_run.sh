#!/bin/bash
# One device call (from the repository root). Result: $OUT/l2lines.csv, $OUT/l2lines-ncu.csv, $OUT/l2lines-gpu.txt
set -u
nvcc -arch=sm_90 -O3 -o /tmp/l2lines validate/data/h100/l2lines/l2lines.cu || exit 1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader > $OUT/l2lines-gpu.txt 2>&1
/tmp/l2lines > $OUT/l2lines.csv 2> $OUT/l2lines.err
# The L2's view of the same launches (in the csv's order): requests and sectors from the SMs, lookups that hit.
timeout 300 ncu --clock-control none --metrics gpc__cycles_elapsed.max,lts__t_requests_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__m_xbar2l1tex_read_sectors.sum,l1tex__data_pipe_lsu_wavefronts_mem_lg.sum,dram__bytes_read.sum --csv /tmp/l2lines > $OUT/l2lines-ncu.csv 2> $OUT/l2lines-ncu.err
