#!/usr/bin/env bash
# Regenerate workloads/suite/*/kernel.ptx from kernel.cu.
#
# Usage: workloads/gen_ptx.sh [REPO_ROOT]     (default: the repository containing this script)
#
# Committed PTX must come from nvcc 13 on the validation machine (the H200 host):
#     nvcc -arch=sm_90 -lineinfo -ptx kernel.cu -o kernel.ptx
# run inside each suite directory, so the PTX's `.file` line names `kernel.cu`, not a host path.
# Where nvcc is missing (CI, developer machines) set NVRTC=1 to use workloads/tools/nvrtc_ptx.py
# (NVRTC 13.0 from `pip install nvidia-cuda-nvrtc==13.0.88`, options
# --gpu-architecture=compute_90 -lineinfo): the same front end, for keeping manifests consistent
# until the lead regenerates the PTX with nvcc.
set -euo pipefail
root="${1:-$(cd "$(dirname "$0")/.." && pwd)}"
suite="$root/workloads/suite"
tool="$root/workloads/tools/nvrtc_ptx.py"
status=0
for dir in "$suite"/*/; do
    [ -f "$dir/kernel.cu" ] || continue
    if [ "${NVRTC:-0}" = 1 ]; then
        (cd "$dir" && python3 "$tool" kernel.cu kernel.ptx) || { echo "FAILED: $dir" >&2; status=1; }
    else
        (cd "$dir" && nvcc -arch=sm_90 -lineinfo -ptx kernel.cu -o kernel.ptx) || { echo "FAILED: $dir" >&2; status=1; }
    fi
    echo "$(basename "$dir")/kernel.ptx"
done
exit $status
