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
# until the lead regenerates the PTX with nvcc. Both compilers write the source's absolute path into
# `.file`; it is rewritten to `kernel.cu` so the PTX does not depend on the checkout's location.
# regs_per_thread in the manifests comes from `nvcc -arch=sm_90 -cubin -Xptxas -v kernel.cu`
# (CUDA 13.0, driver 580, H200); update it when a kernel changes.
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
    sed -i -E 's|^(\s*\.file\s+[0-9]+\s+")[^"]*/kernel\.cu"|\1kernel.cu"|' "$dir/kernel.ptx"
    echo "$(basename "$dir")/kernel.ptx"
done
exit $status
