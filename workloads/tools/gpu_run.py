#!/usr/bin/env python3
"""Run workloads exported by `gpu_cross_check export DIR` on GPU 0 through the CUDA driver API.

For each DIR/<name>/launch.txt: load the PTX (JIT by the driver), allocate and zero every buffer,
copy the input chunks, launch once, and write each output buffer to out_<i>.bin. Also records the
kernel's register count (CU_FUNC_ATTRIBUTE_NUM_REGS) in regs.txt. Tensor-map arguments are encoded
with cuTensorMapEncodeTiled over their buffer and passed by value (128 bytes); a `cluster ... manifest`
line launches through cuLaunchKernelEx with CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION (a cluster that
comes from the PTX's .reqnctapercluster needs, and must get, a plain launch).
Workloads run in a child process, so a hung kernel (killed after GPU_RUN_TIMEOUT seconds, default 60)
or a faulting one (a poisoned context) costs only itself: the rest go on in a fresh child.
Usage: gpu_run.py DIR [REPO_ROOT]. No dependencies beyond python3 and libcuda.so.1.
"""
import ctypes
import os
import select
import struct
import subprocess
import sys

cu = ctypes.CDLL("libcuda.so.1")


class LaunchAttrValue(ctypes.Union):
    _fields_ = [("pad", ctypes.c_char * 64), ("clusterDim", ctypes.c_uint * 3)]


class LaunchAttr(ctypes.Structure):          # CUlaunchAttribute: id, 4 bytes pad, 64-byte value
    _fields_ = [("id", ctypes.c_int), ("pad", ctypes.c_char * 4), ("value", LaunchAttrValue)]


class LaunchConfig(ctypes.Structure):        # CUlaunchConfig
    _fields_ = [("gridDimX", ctypes.c_uint), ("gridDimY", ctypes.c_uint), ("gridDimZ", ctypes.c_uint),
                ("blockDimX", ctypes.c_uint), ("blockDimY", ctypes.c_uint), ("blockDimZ", ctypes.c_uint),
                ("sharedMemBytes", ctypes.c_uint), ("hStream", ctypes.c_void_p),
                ("attrs", ctypes.POINTER(LaunchAttr)), ("numAttrs", ctypes.c_uint)]


CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4


def tensor_map(fields, ptrs, holders):
    """`arg tensormap BUF DTYPE RANK dims.. strides.. box.. elem_strides.. IL SW L2 OOB` -> a 64-byte
    aligned 128-byte CUtensorMap (kept alive in `holders`), returned as a ctypes object."""
    buf, dtype, rank = int(fields[0]), int(fields[1]), int(fields[2])
    v = [int(x) for x in fields[3:]]
    dims, v = v[:rank], v[rank:]
    strides, v = v[:rank - 1], v[rank - 1:]
    box, v = v[:rank], v[rank:]
    elem, v = v[:rank], v[rank:]
    interleave, swizzle, l2, oob = v
    raw = ctypes.create_string_buffer(128 + 64)
    holders.append(raw)
    addr = (ctypes.addressof(raw) + 63) // 64 * 64
    obj = (ctypes.c_uint8 * 128).from_address(addr)
    u64 = ctypes.c_uint64
    u32 = ctypes.c_uint32
    ck(cu.cuTensorMapEncodeTiled(ctypes.c_void_p(addr), ctypes.c_int(dtype), u32(rank),
                                 ctypes.c_void_p(ptrs[buf].value), (u64 * rank)(*dims),
                                 (u64 * max(rank - 1, 1))(*strides), (u32 * rank)(*box), (u32 * rank)(*elem),
                                 ctypes.c_int(interleave), ctypes.c_int(swizzle), ctypes.c_int(l2),
                                 ctypes.c_int(oob)), "cuTensorMapEncodeTiled")
    return obj


def ck(rc, what):
    if rc != 0:
        s = ctypes.c_char_p()
        cu.cuGetErrorString(rc, ctypes.byref(s))
        raise RuntimeError("%s failed: %d %s" % (what, rc, s.value.decode() if s.value else ""))


def run_one(wdir, root):
    lines = [l.split() for l in open(os.path.join(wdir, "launch.txt")).read().splitlines()]
    info = {l[0]: l[1:] for l in lines if l[0] in ("entry", "ptx", "grid", "block", "smem", "cluster")}
    bufs = [l[1:] for l in lines if l[0] == "buffer"]
    args = [l[1:] for l in lines if l[0] == "arg"]
    ptx_path = os.path.join(root, info["ptx"][0])
    ptx = open(ptx_path, "rb").read() + b"\0"
    mod = ctypes.c_void_p()
    ck(cu.cuModuleLoadData(ctypes.byref(mod), ptx), "cuModuleLoadData " + ptx_path)
    fn = ctypes.c_void_p()
    ck(cu.cuModuleGetFunction(ctypes.byref(fn), mod, info["entry"][0].encode()), "cuModuleGetFunction")
    smem = int(info["smem"][0])
    if smem > 48 * 1024:
        ck(cu.cuFuncSetAttribute(fn, 8, smem), "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)")
    regs = ctypes.c_int()
    ck(cu.cuFuncGetAttribute(ctypes.byref(regs), 4, fn), "cuFuncGetAttribute(NUM_REGS)")
    lmem = ctypes.c_int()
    ck(cu.cuFuncGetAttribute(ctypes.byref(lmem), 3, fn), "cuFuncGetAttribute(LOCAL_SIZE_BYTES)")
    open(os.path.join(wdir, "regs.txt"), "w").write("%d %d\n" % (regs.value, lmem.value))
    ptrs = []
    for i, (name, size, output) in enumerate(bufs):
        size = int(size)
        p = ctypes.c_uint64()
        ck(cu.cuMemAlloc_v2(ctypes.byref(p), ctypes.c_size_t(size)), "cuMemAlloc")
        ck(cu.cuMemsetD8_v2(p, ctypes.c_ubyte(0), ctypes.c_size_t(size)), "cuMemsetD8")
        data = open(os.path.join(wdir, "in_%d.bin" % i), "rb").read()
        pos = 0
        while pos < len(data):
            off, n = struct.unpack_from("<QQ", data, pos)
            pos += 16
            chunk = data[pos:pos + n]
            pos += n
            ck(cu.cuMemcpyHtoD_v2(ctypes.c_uint64(p.value + off), chunk, ctypes.c_size_t(n)), "cuMemcpyHtoD")
        ptrs.append(p)
    holders = []
    keep = []
    for a in args:
        if a[0] == "buffer":
            holders.append(ctypes.c_uint64(ptrs[int(a[1])].value))
        elif a[0] == "tensormap":
            holders.append(tensor_map(a[1:], ptrs, keep))
        else:
            size, bits = int(a[1]), int(a[2], 16)
            holders.append({1: ctypes.c_uint8, 2: ctypes.c_uint16, 4: ctypes.c_uint32, 8: ctypes.c_uint64}[size](bits))
    params = (ctypes.c_void_p * len(holders))(*[ctypes.cast(ctypes.byref(h), ctypes.c_void_p) for h in holders])
    g = [int(x) for x in info["grid"]]
    b = [int(x) for x in info["block"]]
    cluster = info.get("cluster", ["1", "1", "1", "ptx"])
    if cluster[3] == "manifest":
        attr = LaunchAttr()
        attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
        for i in range(3):
            attr.value.clusterDim[i] = int(cluster[i])
        cfg = LaunchConfig(g[0], g[1], g[2], b[0], b[1], b[2], smem, None, ctypes.pointer(attr), 1)
        ck(cu.cuLaunchKernelEx(ctypes.byref(cfg), fn, params, None), "cuLaunchKernelEx")
    else:
        ck(cu.cuLaunchKernel(fn, g[0], g[1], g[2], b[0], b[1], b[2], smem, None, params, None), "cuLaunchKernel")
    ck(cu.cuCtxSynchronize(), "cuCtxSynchronize")
    for i, (name, size, output) in enumerate(bufs):
        if output == "1":
            out = ctypes.create_string_buffer(int(size))
            ck(cu.cuMemcpyDtoH_v2(out, ptrs[i], ctypes.c_size_t(int(size))), "cuMemcpyDtoH")
            open(os.path.join(wdir, "out_%d.bin" % i), "wb").write(out.raw)
        ck(cu.cuMemFree_v2(ptrs[i]), "cuMemFree")
    ck(cu.cuModuleUnload(mod), "cuModuleUnload")
    return regs.value, lmem.value


def child(d, root, names):
    """Run `names` in order in this process, one result line each; stop at the first error (a
    kernel fault poisons the context, so the parent goes on in a fresh process)."""
    ck(cu.cuInit(0), "cuInit")
    dev = ctypes.c_int()
    ck(cu.cuDeviceGet(ctypes.byref(dev), 0), "cuDeviceGet")
    ctx = ctypes.c_void_p()
    ck(cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev), "cuDevicePrimaryCtxRetain")
    ck(cu.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")
    for name in names:
        try:
            regs, lmem = run_one(os.path.join(d, name), root)
            print("ran %-32s regs %3d local %d" % (name, regs, lmem), flush=True)
        except Exception as e:
            print("ERROR %s: %s" % (name, e), flush=True)
            sys.exit(3)


def main():
    """Run every workload of DIR in a child process; a workload that gives no result within
    GPU_RUN_TIMEOUT seconds (default 60: a hung kernel, e.g. an mbarrier that never completes) is
    killed and reported as HUNG, one that fails is reported as ERROR, and the rest go on in a fresh
    child (a fresh CUDA context)."""
    if sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3], sys.argv[4:])
        return
    d = sys.argv[1]
    root = sys.argv[2] if len(sys.argv) > 2 else "."
    timeout = float(os.environ.get("GPU_RUN_TIMEOUT", "60"))
    names = sorted(os.listdir(d))
    failed = 0
    while names:
        p = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--child", d, root] + names,
                             stdout=subprocess.PIPE)
        fd, pending = p.stdout.fileno(), b""
        while names:
            if b"\n" not in pending:   # wait for more output (the child prints one line per workload)
                ready, _, _ = select.select([fd], [], [], timeout)
                chunk = os.read(fd, 65536) if ready else None
                if chunk is None:
                    p.kill()
                    p.wait()
                    print("HUNG %s: no result after %g s; killed" % (names[0], timeout), flush=True)
                    failed += 1
                    names = names[1:]
                    break
                if not chunk:   # the child died without a result line for names[0]
                    rc = p.wait()
                    print("ERROR %s: the runner exited with status %d" % (names[0], rc), flush=True)
                    failed += 1
                    names = names[1:]
                    break
                pending += chunk
                continue
            line, pending = pending.split(b"\n", 1)
            line = line.decode(errors="replace")
            print(line, flush=True)
            if line.startswith(("ran ", "ERROR ")):
                names = names[1:]
                if line.startswith("ERROR "):
                    failed += 1
                    p.wait()
                    break
        else:
            p.wait()
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
