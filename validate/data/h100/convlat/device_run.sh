#!/bin/bash
# One device call (from the repository root): $OUT/convlat.csv, $OUT/convlat-gpu.txt, $OUT/convlat.sass
set -u
cd validate/data/h100/convlat && nvcc -arch=sm_90 -O3 -o /tmp/convlat convlat.cu || exit 1
nvcc -arch=sm_90 -O3 -cubin -o /tmp/convlat.cubin convlat.cu && cuobjdump -sass /tmp/convlat.cubin > $OUT/convlat.sass
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader > $OUT/convlat-gpu.txt 2>&1
/tmp/convlat > $OUT/convlat.csv; cat $OUT/convlat.csv
