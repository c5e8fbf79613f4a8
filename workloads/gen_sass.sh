#!/usr/bin/env bash
# Regenerate workloads/suite/*/kernel.<target>.sass, the nvdisasm listing of each committed kernel.ptx.
#
# Usage: workloads/gen_sass.sh [REPO_ROOT]     (default: the repository containing this script)
#
# The target is the PTX's own `.target` (sm_90, or sm_90a for the kernels that need it). Each PTX is
# assembled with the ptxas that serves the H200 (CUDA 13.0.88, `tools/setup_cuda_wheels.sh /tmp/cuda13`)
# and disassembled with nvdisasm from `pip install nvidia-cuda-nvdisasm`:
#     ptxas -arch=<target> -lineinfo kernel.ptx -o kernel.cubin
#     nvdisasm -c -hex -gi -gp kernel.cubin > kernel.<target>.sass
# -c prints only code sections (the toolchain's own listings omit it: the code sections are the same
# either way), -hex the 128-bit encodings (control bits included), -gi the CUDA
# source line of each instruction (inlined call sites too) and -gp its line in the PTX
# (`.nv_debug_ptx_txt`, whose line numbers are kernel.ptx's own). Runs of blanks are squeezed to
# one (the parser does not care, and it halves the size). The constant banks the code reads besides
# the parameters (.nv.constant2: jump tables and literal pools, 3: __constant__ variables, 4: the
# addresses of __device__ variables) come from a second listing without -c and go in before the
# first code section, as nvdisasm orders them; a module without them gets the -c listing unchanged.
# So does the `EIATTR_REGCOUNT` attribute of each function from the `.nv.info` section (ptxas's
# registers per thread, which the code sections do not give), the section's other attributes left out. These listings let CI and users without
# the CUDA tools read the suite's SASS; `cargo test -p warpsim-sass` parses every one.
# PTXAS=... and NVDISASM=... pick the tools (default: /tmp/cuda13/bin/ptxas and nvdisasm on PATH);
# ONLY="dir ..." restricts the run to some suite directories.
set -euo pipefail
root="${1:-$(cd "$(dirname "$0")/.." && pwd)}"
suite="$root/workloads/suite"
ptxas="${PTXAS:-/tmp/cuda13/bin/ptxas}"
nvdisasm="${NVDISASM:-nvdisasm}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
status=0
for dir in "$suite"/*/; do
    [ -f "$dir/kernel.ptx" ] || continue
    name="$(basename "$dir")"
    if [ -n "${ONLY:-}" ] && ! [[ " $ONLY " == *" $name "* ]]; then continue; fi
    target="$(sed -nE 's|^\.target[[:space:]]+(sm_[0-9a-z]+).*|\1|p' "$dir/kernel.ptx" | head -n1)"
    rm -f "$dir"/kernel.sm_*.sass
    if "$ptxas" -arch="$target" -lineinfo "$dir/kernel.ptx" -o "$tmp/kernel.cubin" \
        && "$nvdisasm" -c -hex -gi -gp "$tmp/kernel.cubin" | tr -s ' ' > "$tmp/code.sass" \
        && "$nvdisasm" -hex "$tmp/kernel.cubin" | tr -s ' ' \
            | awk '/^\/\/-+ \./ { keep = ($2 ~ /^\.nv\.constant[1-9]/ || $2 == ".nv.info"); attr = "" }
                   /nvinfo : / { attr = $NF }
                   keep && (attr == "" || attr == "EIATTR_REGCOUNT")' > "$tmp/banks.sass" \
        && awk -v banks="$tmp/banks.sass" '!done && /^\/\/-+ \.text\./ { while ((getline l < banks) > 0) print l; done = 1 } { print }' \
            "$tmp/code.sass" > "$dir/kernel.$target.sass"; then
        echo "$name/kernel.$target.sass ($(wc -c < "$dir/kernel.$target.sass") bytes)"
    else
        echo "FAILED: $dir" >&2; status=1
    fi
done
exit $status
