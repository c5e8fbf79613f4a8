#!/bin/bash
# Which of a read's L2 lookups hit: ncu's lookup hit/miss split by source (tex: the SM's request
# at its near slice; ltcfabric: the request forwarded to the line's home in the other partition)
# on small and large streaming kernels of the main set, whose hit rates the model puts 10-23
# points low on the small ones (reduce_*, vector_add, chase_dram, copy_stride_32) and right on
# stream_copy. Needs the warpsim binary at $WS (default /tmp/ws). Output: $OUT/l2hit.tgz.
set -u
WS=${WS:-/tmp/ws}
mkdir -p /tmp/h && cd /tmp/h
F="--clock-control none --cache-control all --replay-mode kernel --print-units base --print-kernel-base function --csv"
W=reduce_sequential,vector_add,chase_dram,copy_stride_32,histogram_skewed,stream_copy,saxpy,copy_stride_1
M1=lts__t_sectors.sum,lts__t_sectors_lookup_hit.sum,lts__t_sectors_lookup_miss.sum,lts__t_sector_hit_rate.pct,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,dram__bytes_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum,lts__t_sectors_srcunit_ltcfabric.sum
M2=lts__t_sectors_srcunit_ltcfabric_lookup_hit.sum,lts__t_sectors_srcunit_ltcfabric_lookup_miss.sum,lts__t_sectors_srcunit_tex_lookup_hit.sum,lts__t_sectors_srcunit_tex_lookup_miss.sum,lts__t_sectors_srcunit_tex.sum
ncu $F --metrics $M1,$M2 $WS validate gpu-run --workloads $W --profile-pass --no-sim > ncu_hit.csv 2> ncu_hit.err \
  || ncu $F --metrics $M1 $WS validate gpu-run --workloads $W --profile-pass --no-sim > ncu_hit.csv 2>> ncu_hit.err
tar czf $OUT/l2hit.tgz ncu_hit.*
