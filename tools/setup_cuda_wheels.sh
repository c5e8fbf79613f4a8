#!/usr/bin/env bash
# Lay out a CUDA 13.0 toolkit subset from PyPI wheels in one directory (default /tmp/cuda13), on a
# machine without CUDA: nvcc + cicc + ptxas (host compiler: the system g++), NVRTC, and the headers
# (runtime, crt, CCCL), and nvdisasm (warpsim's SASS mode reads its listings). This is the same compiler build as the H200 machine's nvcc (V13.0.88,
# CL-36424714), so tools/gen_corpus.sh gives the same PTX here as there. About 450 MB unpacked.
#
#   bash tools/setup_cuda_wheels.sh [DIR]
#   NVCC=/tmp/cuda13/bin/nvcc JOBS=1 bash tools/gen_corpus.sh
#   python3 tools/nvrtc_corpus.py --cuda-root /tmp/cuda13 --check
set -eu
DIR="${1:-/tmp/cuda13}"
STAGE="$(mktemp -d /tmp/cudawheels.XXXXXX)"
# Pin every wheel: nvidia-cuda-nvcc depends on nvidia-nvvm and nvidia-cuda-runtime without an upper
# bound, and an unpinned nvvm (cicc) silently turns this into a newer compiler (.version 9.x > 9.0).
python3 -m pip install --quiet --no-deps --target "$STAGE/a" \
    nvidia-cuda-nvcc==13.0.88 nvidia-nvvm==13.0.88 nvidia-cuda-crt==13.0.88 \
    nvidia-cuda-runtime==13.0.96 nvidia-cuda-nvrtc==13.0.88 nvidia-cuda-cccl==13.0.85
# nvdisasm in a stage of its own: a second --target install into one directory replaces its nvidia/.
# 13.2.51 is the oldest nvdisasm wheel on PyPI (none for 13.0); it reads sm_90 cubins of ptxas 13.0.
python3 -m pip install --quiet --no-deps --target "$STAGE/b" nvidia-cuda-nvdisasm==13.2.51
mkdir -p "$DIR"
cp -a "$STAGE/a/nvidia/cu13/." "$DIR/"
cp -a "$STAGE/b/nvidia/cu13/." "$DIR/"
rm -rf "$STAGE"
"$DIR/bin/nvcc" --version | tail -2
echo "CUDA root ready: $DIR (NVCC=$DIR/bin/nvcc)"
