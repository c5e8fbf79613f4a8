#!/bin/bash
# What one device call ran (from the repository root): the atom_chain sweep, atom_time, and ncu's
# L2 atomic counters on one contended configuration of each. Results bundled in $OUT/atomchain.tgz.
set -u
mkdir -p /tmp/r /tmp/n
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader > /tmp/r/gpu.txt 2>&1
cd validate/data/h200
nvcc -arch=sm_90 -O3 -lineinfo -o /tmp/ac atomchain/atom_chain.cu && nvcc -arch=sm_90 -O3 -lineinfo -o /tmp/at atomtime/atom_time.cu || exit 1
cd /tmp/r
/tmp/ac > atom_chain.csv 2> atom_chain.err
/tmp/at > atom_time.csv 2> atom_time.err
ncu --query-metrics > qm.txt 2>&1
M=$(grep -oE '^lts__[a-z0-9_]*(atom|red|cas)[a-z0-9_]*' qm.txt | grep -vE 'rate|pct|ratio' | sort -u | sed 's/$/.sum/' | paste -sd,)
BASE=gpc__cycles_elapsed.max,lts__t_requests.sum,lts__t_sectors.sum,lts__cycles_active.avg,lts__cycles_elapsed.avg
for cfg in "0 64 32" "0 4096 32" "1 64 32"; do
  set -- $cfg
  ncu --clock-control none --csv --metrics "$BASE,$M" /tmp/ac $1 $2 $3 > ncu_chain_$1_$2_$3.csv 2> ncu_chain_$1_$2_$3.err \
    || ncu --clock-control none --csv --metrics "$BASE" /tmp/ac $1 $2 $3 > ncu_chain_$1_$2_$3.csv 2>> ncu_chain_$1_$2_$3.err
done
(cd /tmp/n && ncu --clock-control none --csv -k atom_time --launch-skip 5 --launch-count 1 --metrics "$BASE,$M" /tmp/at > /tmp/r/ncu_atom_time_4096_g1024.csv 2> /tmp/r/ncu_at.err)
tar czf $OUT/atomchain.tgz *.csv *.err *.txt atom_time_*.bin
