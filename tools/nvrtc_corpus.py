#!/usr/bin/env python3
"""Compile the CUDA corpus (isa/tests/corpus/src/*.cu) to PTX with NVRTC, no nvcc needed.

Used on machines without the CUDA toolkit (the project's CPU machines, CI) to produce
isa/tests/corpus/ptx_nvrtc/<stem>.<sm_XX>[.lineinfo].ptx, the PTX the parser is tested on
until the nvcc outputs of tools/gen_corpus.sh arrive.

Needs libnvrtc.so.13 and libnvrtc-builtins.so.13.0 (PyPI wheel nvidia-cuda-nvrtc==13.0.88) and the
CUDA headers: nvidia-cuda-runtime==13.0.96 (cuda_fp16.h, cooperative_groups, cuda_pipeline.h ...),
nvidia-cuda-cccl==13.0.85 (include/cccl: cuda/barrier, cuda/ptx, cub) and nvidia-cuda-crt==13.0.88
(include/crt, needed by mma.h). tools/README.md shows how to lay them out as one CUDA root
(default --cuda-root: $CUDA_ROOT, else /tmp/cuda13, else /tmp/cudapy/site/nvidia/cu13).

Options: --cuda-root DIR (has lib/ or lib64/ with libnvrtc, and include/), --out DIR,
--only STEM[,STEM...], --archs 75,80,90,90a, --no-lineinfo, --check (also compile each
combination for the real sm_XX, which runs NVRTC's built-in ptxas over the PTX and so checks
inline asm, as nvcc -ptx does not), --log FILE.

File-name rule (same as tools/gen_corpus.sh):  *_sm90a.cu -> sm_90a only;  *_sm90.cu -> sm_90, sm_90a;
*_sm80.cu -> sm_80, sm_90, sm_90a;  anything else -> sm_75, sm_80, sm_90, sm_90a.
A line `// corpus-flags: ...` in a .cu adds those flags to every compile of that file (nvcc and NVRTC);
`// corpus-nvrtc-flags: ...` adds flags for NVRTC only (e.g. --device-int128, which nvcc does not need).
"""

import argparse
import ctypes
import os
import re
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SRC = REPO / "isa" / "tests" / "corpus" / "src"
ALL_ARCHS = ["75", "80", "90", "90a"]


def archs_for(stem):
    if stem.endswith("_sm90a"):
        return ["90a"]
    if stem.endswith("_sm90"):
        return ["90", "90a"]
    if stem.endswith("_sm80"):
        return ["80", "90", "90a"]
    return list(ALL_ARCHS)


def extra_flags(text, key="corpus-flags"):
    m = re.search(r"^// %s:(.*)$" % key, text, re.M)
    return m.group(1).split() if m else []


class Nvrtc:
    def __init__(self, libdir):
        # libnvrtc dlopens the builtins by bare name: load them first, by absolute path.
        ctypes.CDLL(str(libdir / "libnvrtc-builtins.so.13.0"), mode=ctypes.RTLD_GLOBAL)
        self.lib = ctypes.CDLL(str(libdir / "libnvrtc.so.13"), mode=ctypes.RTLD_GLOBAL)
        L = self.lib
        L.nvrtcGetErrorString.restype = ctypes.c_char_p
        maj, mi = ctypes.c_int(), ctypes.c_int()
        L.nvrtcVersion(ctypes.byref(maj), ctypes.byref(mi))
        self.version = f"{maj.value}.{mi.value}"

    def compile(self, src, name, opts, want_ptx=True):
        L = self.lib
        prog = ctypes.c_void_p()
        r = L.nvrtcCreateProgram(ctypes.byref(prog), src.encode(), name.encode(), 0, None, None)
        if r:
            return False, None, "nvrtcCreateProgram: " + L.nvrtcGetErrorString(r).decode()
        copts = (ctypes.c_char_p * len(opts))(*[o.encode() for o in opts])
        rc = L.nvrtcCompileProgram(prog, len(opts), copts)
        n = ctypes.c_size_t()
        L.nvrtcGetProgramLogSize(prog, ctypes.byref(n))
        buf = ctypes.create_string_buffer(n.value)
        L.nvrtcGetProgramLog(prog, buf)
        log = buf.value.decode(errors="replace")
        ptx = None
        if rc == 0 and want_ptx:
            L.nvrtcGetPTXSize(prog, ctypes.byref(n))
            buf = ctypes.create_string_buffer(n.value)
            L.nvrtcGetPTX(prog, buf)
            ptx = buf.value.decode()
        elif rc == 0:
            # real-arch compile: the cubin exists iff ptxas accepted the PTX
            L.nvrtcGetCUBINSize(prog, ctypes.byref(n))
            if n.value == 0:
                rc = -1
                log += "\n(no CUBIN produced)"
        if rc:
            log = (L.nvrtcGetErrorString(rc).decode() if rc > 0 else "no cubin") + "\n" + log
        L.nvrtcDestroyProgram(ctypes.byref(prog))
        return rc == 0, ptx, log


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    default_root = os.environ.get("CUDA_ROOT") or next(
        (d for d in ("/tmp/cuda13", "/tmp/cudapy/site/nvidia/cu13") if os.path.isdir(d)), "/tmp/cuda13")
    ap.add_argument("--cuda-root", default=default_root)
    ap.add_argument("--out", default=str(REPO / "isa" / "tests" / "corpus" / "ptx_nvrtc"))
    ap.add_argument("--only", default="")
    ap.add_argument("--archs", default=",".join(ALL_ARCHS))
    ap.add_argument("--no-lineinfo", action="store_true")
    ap.add_argument("--check", action="store_true", help="also assemble for sm_XX (runs ptxas)")
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--log", default="")
    a = ap.parse_args()

    root = Path(a.cuda_root)
    libdir = next((d for d in (root / "lib", root / "lib64") if (d / "libnvrtc.so.13").exists()), None)
    if libdir is None:
        sys.exit(f"libnvrtc.so.13 not found under {root}/lib or {root}/lib64")
    inc = root / "include"
    nv = Nvrtc(libdir)
    out = Path(a.out)
    if not a.no_write:
        out.mkdir(parents=True, exist_ok=True)
    want_archs = a.archs.split(",")
    only = set(s for s in a.only.split(",") if s)
    base = ["-std=c++17", f"-I{inc}", f"-I{inc / 'cccl'}"]

    rows, logf = [], []
    files = sorted(SRC.glob("*.cu"))
    for f in files:
        stem = f.stem
        if only and stem not in only:
            continue
        text = f.read_text()
        xf = extra_flags(text) + extra_flags(text, "corpus-nvrtc-flags")
        for arch in archs_for(stem):
            if arch not in want_archs:
                continue
            for variant in ([""] if a.no_lineinfo else ["", "lineinfo"]):
                opts = base + xf + [f"--gpu-architecture=compute_{arch}"]
                if variant:
                    opts.append("-lineinfo")
                t0 = time.time()
                ok, ptx, log = nv.compile(text, f.name, opts)
                dt = time.time() - t0
                name = f"{stem}.sm_{arch}" + (f".{variant}" if variant else "") + ".ptx"
                status = "ok" if ok else "FAIL"
                chk = "-"
                if ok and a.check and not variant:
                    ok2, _, log2 = nv.compile(text, f.name, base + xf + [f"--gpu-architecture=sm_{arch}"], want_ptx=False)
                    chk = "ok" if ok2 else "FAIL"
                    if not ok2:
                        log += "\n[ptxas check sm_%s]\n%s" % (arch, log2)
                if ok and not a.no_write:
                    (out / name).write_text(ptx)
                rows.append((stem, "sm_" + arch, variant or "-", status, chk, dt, len(ptx or "")))
                logf.append(f"=== {name}: {status} (check {chk}) {dt:.2f}s opts={' '.join(opts)}\n{log.strip()}\n")
                if log.strip() and not variant:
                    print(f"--- {name}: {status}\n{log.strip()[:3000]}", file=sys.stderr)
    print(f"NVRTC {nv.version}; {len(rows)} compiles")
    print(f"{'file':28} {'arch':7} {'flags':9} {'ptx':5} {'ptxas':5} {'sec':>5} {'bytes':>8}")
    for r in rows:
        print(f"{r[0]:28} {r[1]:7} {r[2]:9} {r[3]:5} {r[4]:5} {r[5]:5.2f} {r[6]:8}")
    nfail = sum(1 for r in rows if r[3] != "ok" or r[4] == "FAIL")
    print(f"{len(rows) - nfail} passed, {nfail} failed")
    if a.log:
        Path(a.log).write_text("\n".join(logf))
    return 1 if nfail else 0


if __name__ == "__main__":
    sys.exit(main())
