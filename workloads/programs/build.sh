#!/usr/bin/env bash
# Rebuilds the committed example binaries (bin/) from their sources with the CUDA 13 wheel's nvcc,
# as a user builds a program for `warpsim exec`: nvcc -O3 -arch=sm_90 -cudart shared.
#   bash workloads/programs/build.sh            # NVCC=/tmp/cuda13/bin/nvcc by default
# The wheel ships libcudart.so.13 but no libcudart.so for the linker: a temporary directory
# holds that link. The binaries need no CUDA to run under warpsim exec.
set -euo pipefail
cd "$(dirname "$0")"
NVCC="${NVCC:-/tmp/cuda13/bin/nvcc}"
root="$(cd "$(dirname "$NVCC")/.." && pwd)"
link="$(mktemp -d)"
trap 'rm -rf "$link"' EXIT
ln -s "$root/lib/libcudart.so.13" "$link/libcudart.so"
ln -s "$root/lib/libcudadevrt.a" "$link/libcudadevrt.a"
mkdir -p bin
for src in *.cu; do
    "$NVCC" -O3 -arch=sm_90 -cudart shared -L"$link" -o "bin/${src%.cu}" "$src"
    strip "bin/${src%.cu}"
done
ls -l bin
