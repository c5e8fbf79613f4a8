#!/bin/bash
# One device call (from the repository root): $OUT/caslines.csv, $OUT/caslines-gpu.txt
set -u
cd validate/data/h100/castime && nvcc -arch=sm_90 -O3 -o /tmp/caslines cas_lines.cu || exit 1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader > $OUT/caslines-gpu.txt 2>&1
/tmp/caslines $OUT/caslines.csv && python3 - $OUT/caslines.csv <<'PY'
import csv, sys, statistics as st
rows = list(csv.DictReader(open(sys.argv[1])))
for k in range(5):
    lo = [int(r['median']) for r in rows if r['kind'] == str(k) and int(r['line']) < 32 and r['launch'] == '2']
    hi = [int(r['median']) for r in rows if r['kind'] == str(k) and int(r['line']) >= 32 and r['launch'] == '2']
    print(k, 'lines 0-31 median', st.median(lo), 'lines 32-63', st.median(hi), 'min', min(lo + hi), 'max', max(lo + hi))
PY
