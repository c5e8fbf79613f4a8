#!/usr/bin/env python3
"""Compile one CUDA C++ file to PTX with NVRTC (no GPU, no CUDA toolkit needed).

Stand-in for `nvcc -arch=sm_90 -lineinfo -ptx` on machines without nvcc: it loads libnvrtc.so.13
from the PyPI wheel `nvidia-cuda-nvrtc==13.0.88` (site-packages/nvidia/cu13/lib) through ctypes and
compiles with `--gpu-architecture=compute_90 -lineinfo` (or the architecture given as a third
argument, e.g. compute_90a for wgmma kernels). NVRTC ships no CUDA headers (no cuda_fp16.h), so
suite kernels include only the suite's own headers (`#include "../include/hopper.cuh"`, found
relative to the working directory, which gen_ptx.sh sets to the kernel's directory).
Usage: nvrtc_ptx.py kernel.cu kernel.ptx [compute_90a]
"""
import ctypes
import glob
import os
import re
import site
import sys


def load_nvrtc():
    dirs = [os.path.join(p, "nvidia", "cu13", "lib") for p in site.getsitepackages() + [site.getusersitepackages()]]
    for d in dirs:
        builtins = glob.glob(os.path.join(d, "libnvrtc-builtins.so.13*"))
        lib = os.path.join(d, "libnvrtc.so.13")
        if builtins and os.path.exists(lib):
            # libnvrtc dlopens the builtins by bare name: load them first, by absolute path.
            ctypes.CDLL(builtins[0], mode=ctypes.RTLD_GLOBAL)
            return ctypes.CDLL(lib, mode=ctypes.RTLD_GLOBAL)
    sys.exit("libnvrtc.so.13 not found: pip install nvidia-cuda-nvrtc==13.0.88")


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit("usage: nvrtc_ptx.py kernel.cu kernel.ptx [compute_90a]")
    arch = sys.argv[3] if len(sys.argv) == 4 else "compute_90"
    src_path, out_path = sys.argv[1], sys.argv[2]
    nvrtc = load_nvrtc()
    src = open(src_path, "rb").read()
    prog = ctypes.c_void_p()
    check(nvrtc, nvrtc.nvrtcCreateProgram(ctypes.byref(prog), src, os.path.basename(src_path).encode(), 0, None, None))
    opts = [("--gpu-architecture=" + arch).encode(), b"-lineinfo"]
    arr = (ctypes.c_char_p * len(opts))(*opts)
    rc = nvrtc.nvrtcCompileProgram(prog, len(opts), arr)
    size = ctypes.c_size_t()
    nvrtc.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
    log = ctypes.create_string_buffer(size.value)
    nvrtc.nvrtcGetProgramLog(prog, log)
    if log.value.strip():
        sys.stderr.write(log.value.decode(errors="replace"))
    check(nvrtc, rc)
    nvrtc.nvrtcGetPTXSize(prog, ctypes.byref(size))
    ptx = ctypes.create_string_buffer(size.value)
    check(nvrtc, nvrtc.nvrtcGetPTX(prog, ptx))
    # NVRTC writes the source's absolute path into `.file`; keep the PTX independent of the checkout:
    # the suite's shared headers become ../include/<name>.cuh (as gen_ptx.sh writes them), other
    # paths their file name.
    text = re.sub(rb'(\.file\s+\d+\s+")[^"]*/([^"/]+")', file_name, ptx.value)
    with open(out_path, "wb") as f:
        f.write(text)


def file_name(m):
    path = m.group(0)[len(m.group(1)):]
    if re.search(rb'(^|/)include/[^"/]+\.cuh"$', path):
        return m.group(1) + b"../include/" + m.group(2)
    return m.group(1) + m.group(2)


def check(nvrtc, rc):
    if rc != 0:
        nvrtc.nvrtcGetErrorString.restype = ctypes.c_char_p
        sys.exit("nvrtc error: " + nvrtc.nvrtcGetErrorString(rc).decode())


if __name__ == "__main__":
    main()
