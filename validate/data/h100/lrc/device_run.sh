#!/bin/bash
# One device call (from the repository root). Result: $OUT/lrc.csv, $OUT/lrc-ncu.csv, $OUT/lrc-gpu.txt
set -u
nvcc -arch=sm_90 -O3 -o /tmp/lrc validate/data/h100/lrc/lrc.cu || exit 1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader > $OUT/lrc-gpu.txt 2>&1
/tmp/lrc > $OUT/lrc.csv 2> $OUT/lrc.err
# Every launch (5 per configuration, in the csv's order): the L2's lookups from the SMs against what the SMs asked for.
timeout 300 ncu --clock-control none --metrics gpc__cycles_elapsed.max,lts__t_requests_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__t_sectors_op_read.sum,lts__t_requests_srcunit_ltcfabric.sum,lts__t_sectors_srcunit_ltcfabric.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__m_xbar2l1tex_read_sectors.sum,dram__bytes_read.sum --csv /tmp/lrc > $OUT/lrc-ncu.csv 2> $OUT/lrc-ncu.err
