#!/bin/bash
# One device call (from the repository root): atom_inval's timing rows, then ncu's L1 lookup
# hits/misses by op and L2 sectors for each of its 8 inval launches (op x word), and the
# same_word latency table. Results bundled in $OUT/atominval.tgz.
set -u
mkdir -p /tmp/r && cd /tmp/r
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader > gpu.txt 2>&1
nvcc -arch=sm_90 -O3 -lineinfo -o /tmp/ai "$OLDPWD/validate/data/h200/atominval/atom_inval.cu" || exit 1
/tmp/ai > atom_inval.csv 2> atom_inval.err
ncu --query-metrics > qm.txt 2>&1
L1=$(grep -oE '^l1tex__t_(sectors|requests)_pipe_lsu_mem_global_op_(ld|atom|red)(_lookup_hit|_lookup_miss)?' qm.txt | sort -u | sed 's/$/.sum/' | paste -sd,)
M="gpc__cycles_elapsed.max,l1tex__t_sector_hit_rate.pct,lts__t_sectors_op_read.sum,lts__t_sectors_op_atom.sum,lts__t_sectors_op_red.sum,lts__t_requests_srcunit_tex_op_read.sum,$L1"
ncu --clock-control none --csv -k atom_inval --metrics "$M" /tmp/ai > ncu_inval.csv 2> ncu_inval.err \
  || ncu --clock-control none --csv -k atom_inval --metrics "gpc__cycles_elapsed.max,l1tex__t_sector_hit_rate.pct,lts__t_sectors_op_read.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_miss.sum" /tmp/ai > ncu_inval.csv 2>> ncu_inval.err
tar czf $OUT/atominval.tgz *.csv *.err gpu.txt
