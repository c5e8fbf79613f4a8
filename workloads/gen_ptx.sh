#!/usr/bin/env bash
# Regenerate workloads/suite/*/kernel.ptx from kernel.cu.
#
# Usage: workloads/gen_ptx.sh [REPO_ROOT]     (default: the repository containing this script)
#
# Committed PTX must come from nvcc 13 on the validation machine (the H200 host), or from the same
# nvcc build (13.0.88) laid out by tools/setup_cuda_wheels.sh in /tmp/cuda13:
#     nvcc -arch=sm_90 -lineinfo -ptx kernel.cu -o kernel.ptx
# run inside each suite directory, so the PTX's `.file` line names `kernel.cu`, not a host path.
# Kernels may include the suite's shared helpers (suite/include/*.cuh, e.g. `#include
# "../include/hopper.cuh"`); their `.file` lines are rewritten to `../include/<name>.cuh`.
# A line `// arch: sm_90a` in kernel.cu selects that architecture instead (wgmma and setmaxnreg need
# the arch-specific sm_90a target; the PTX then says `.target sm_90a`).
# Where nvcc is missing (CI, developer machines) set NVRTC=1 to use workloads/tools/nvrtc_ptx.py
# (NVRTC 13.0 from `pip install nvidia-cuda-nvrtc==13.0.88`, options
# --gpu-architecture=compute_90[a] -lineinfo): the same front end, for keeping manifests consistent
# until the lead regenerates the PTX with nvcc. Both compilers write the source's absolute path into
# `.file`; it is rewritten to `kernel.cu` (and `../include/<name>.cuh`) so the PTX does not depend on
# the checkout's location. Directories without a kernel.cu (suite/include) are skipped.
# With PTXAS=1 each result is also assembled (`ptxas -arch=<arch> -v`) so only PTX that the real
# assembler accepts is committed; its register counts are what regs_per_thread in the manifests
# should say (CUDA 13.0). NVCC=... picks the compiler (default: nvcc on PATH); ONLY="dir ..."
# restricts the run to some suite directories.
# regs_per_thread in the manifests comes from `nvcc -arch=sm_90 -cubin -Xptxas -v kernel.cu`
# (CUDA 13.0, driver 580, H200); update it when a kernel changes.
set -euo pipefail
root="${1:-$(cd "$(dirname "$0")/.." && pwd)}"
suite="$root/workloads/suite"
tool="$root/workloads/tools/nvrtc_ptx.py"
nvcc="${NVCC:-nvcc}"
ptxas="$(dirname "$(command -v "$nvcc" || echo nvcc)")/ptxas"
status=0
for dir in "$suite"/*/; do
    [ -f "$dir/kernel.cu" ] || continue
    name="$(basename "$dir")"
    if [ -n "${ONLY:-}" ] && ! [[ " $ONLY " == *" $name "* ]]; then continue; fi
    arch="$(sed -nE 's|^//[[:space:]]*arch:[[:space:]]*(sm_[0-9a-z]+).*|\1|p' "$dir/kernel.cu" | head -n1)"
    arch="${arch:-sm_90}"
    if [ "${NVRTC:-0}" = 1 ]; then
        (cd "$dir" && python3 "$tool" kernel.cu kernel.ptx "compute_${arch#sm_}") || { echo "FAILED: $dir" >&2; status=1; }
    else
        (cd "$dir" && "$nvcc" -arch="$arch" -lineinfo -ptx kernel.cu -o kernel.ptx) || { echo "FAILED: $dir" >&2; status=1; }
    fi
    sed -i -E -e 's|^(\s*\.file\s+[0-9]+\s+")[^"]*/kernel\.cu"|\1kernel.cu"|' \
        -e 's|^(\s*\.file\s+[0-9]+\s+")[^"]*/include/([^"/]+\.cuh)"|\1../include/\2"|' \
        -e 's|^(\s*\.file\s+[0-9]+\s+")[^"]*/include/([^"/]+\.(h\|hpp))"|\1/usr/local/cuda/bin/../targets/x86_64-linux/include/\2"|' "$dir/kernel.ptx"
    echo "$name/kernel.ptx ($arch)"
    if [ "${PTXAS:-0}" = 1 ]; then
        if log="$("$ptxas" -arch="$arch" -v "$dir/kernel.ptx" -o /dev/null 2>&1)"; then
            echo "$log" | grep -E "Compiling entry|Used [0-9]+ registers" | sed 's/^/    /'
        else
            echo "$log" >&2; echo "PTXAS FAILED: $dir" >&2; status=1
        fi
    fi
done
exit $status
