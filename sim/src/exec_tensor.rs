//! Executing the matrix instructions (`ldmatrix`, `stmatrix`, `movmatrix`, `mma.sync`, `wmma.*`,
//! `wgmma.*`) through the pure fragment semantics of [`crate::tensor`]: registers are gathered
//! lane by lane, memory goes through the executor's checked accesses, results are written back
//! for the executing lanes.
//!
//! `wgmma.mma_async` belongs to a warpgroup of four warps, but a warp's accumulator rows depend
//! only on its own rows of A, so each warp computes its quarter when it issues: its registers sit
//! in its slot of the warpgroup-shaped arrays and only that slot is written back.

use warpsim_isa::ast::Space;
use warpsim_isa::inst::{flag, Inst, MatrixOp, Opnd};

use crate::exec::{elems, lanes, Ctx, Step};
use crate::fault::Fault;
use crate::tensor::{self, Lanes, TensorError, WgmmaA};
use crate::warp::Warp;

/// The registers of a (vector) operand, each as 32 lanes.
fn gather_all(c: &Ctx<'_, '_>, w: &Warp, o: &Opnd) -> Vec<Lanes> {
    elems(o)
        .iter()
        .map(|r| {
            let mut v = [0u64; 32];
            for (l, x) in v.iter_mut().enumerate() {
                *x = c.read(w, r, l);
            }
            v
        })
        .collect()
}

fn scatter(c: &Ctx<'_, '_>, w: &mut Warp, o: &Opnd, vals: &[Lanes], exec: u32) {
    for (r, v) in elems(o).iter().zip(vals) {
        if let Opnd::Reg(reg) = r {
            for l in lanes(exec) {
                c.write_reg(w, *reg, l, v[l]);
            }
        }
    }
}

/// Per-lane addresses of an address operand (and the space they are in).
fn addrs(c: &Ctx<'_, '_>, w: &Warp, o: &Opnd, space: Space) -> (Lanes, Space) {
    let mut a = [0u64; 32];
    let mut sp = space;
    for (l, x) in a.iter_mut().enumerate() {
        let (v, s) = c.address(w, o, space, l);
        *x = v;
        sp = s;
    }
    (a, sp)
}

fn form_fault(c: &Ctx<'_, '_>, w: &Warp, lane: usize, e: TensorError<Fault>) -> Fault {
    match e {
        TensorError::Memory(f) => f,
        TensorError::Form(u) => c.unsupported(w, lane, u),
    }
}

/// Records the 16-byte rows an `ldmatrix`/`stmatrix` moves (lanes 0..8·num give them) for the
/// timing model's bank-conflict count.
fn row_trace(c: &mut Ctx<'_, '_>, a: &Lanes, num: u8, write: bool) {
    let rows = (8 * num as u32).min(32);
    let mask = if rows >= 32 { u32::MAX } else { (1u32 << rows) - 1 };
    c.env.trace.addr = *a;
    c.trace(crate::exec::TraceSpace::Shared, write, false, 16, mask);
}

/// Records the memory a `wmma.load`/`wmma.store` moves for the timing model: the fragment's
/// elements sit in the registers in an order of the hardware's own, so the lanes of the trace
/// carry the distinct chunks the elements fall in instead, one each — 32-byte sectors of global
/// memory for the coalescer, 16-byte pieces of shared memory (an `LDS.128` lane's) for the banks
/// — and several consecutive ones per lane when there are more than 32, the lane then spanning
/// its first to its last.
fn fragment_trace(c: &mut Ctx<'_, '_>, space: crate::exec::TraceSpace, write: bool, touched: &mut Vec<u64>) {
    let chunk: u64 = if matches!(space, crate::exec::TraceSpace::Shared | crate::exec::TraceSpace::Remote) { 16 } else { 32 };
    for a in touched.iter_mut() {
        *a /= chunk;
    }
    touched.sort_unstable();
    touched.dedup();
    if touched.is_empty() {
        return;
    }
    let per = touched.len().div_ceil(32);
    let mut mask = 0u32;
    let mut size = 0u64;
    for (lane, run) in touched.chunks(per).enumerate() {
        c.env.trace.addr[lane] = run[0] * chunk;
        size = size.max((run[run.len() - 1] - run[0] + 1) * chunk);
        mask |= 1 << lane;
    }
    c.trace(space, write, false, size as u32, mask);
}

pub(crate) fn matrix(w: &mut Warp, c: &mut Ctx<'_, '_>, inst: &Inst, op: MatrixOp, exec: u32) -> Result<Step, Fault> {
    let m = &inst.m;
    let lane0 = (exec.trailing_zeros() as usize).min(31);
    match op {
        MatrixOp::WgmmaFence | MatrixOp::WgmmaCommit | MatrixOp::WgmmaWait => Ok(Step::Continue),
        MatrixOp::Ldmatrix => {
            let (a, sp) = addrs(c, w, &inst.ops[1], m.space());
            let shape = m.shape.unwrap_or((8, 8, 0));
            let out = {
                let mut read = |lane: usize, addr: u64, buf: &mut [u8]| c.access(w, sp, addr, buf, false, lane).map(|_| ());
                tensor::ldmatrix(shape, m.num.max(1), m.has(flag::TRANS), m.ty(), &a, &mut read)
            }
            .map_err(|e| form_fault(c, w, lane0, e))?;
            scatter(c, w, &inst.ops[0], &out, exec);
            row_trace(c, &a, m.num.max(1), false);
            Ok(Step::Continue)
        }
        MatrixOp::Stmatrix => {
            let (a, sp) = addrs(c, w, &inst.ops[0], m.space());
            let src = gather_all(c, w, &inst.ops[1]);
            let shape = m.shape.unwrap_or((8, 8, 0));
            {
                let mut write = |lane: usize, addr: u64, buf: &[u8]| {
                    let mut b = buf.to_vec();
                    c.access(w, sp, addr, &mut b, true, lane).map(|_| ())
                };
                tensor::stmatrix(shape, m.num.max(1), m.has(flag::TRANS), m.ty(), &a, &src, &mut write)
            }
            .map_err(|e| form_fault(c, w, lane0, e))?;
            row_trace(c, &a, m.num.max(1), true);
            Ok(Step::Continue)
        }
        MatrixOp::Movmatrix => {
            let a = gather_all(c, w, &inst.ops[1]);
            let d = tensor::movmatrix(m.shape.unwrap_or((8, 8, 0)), m.has(flag::TRANS), m.ty(), &a[0]).map_err(|e| c.unsupported(w, lane0, e))?;
            scatter(c, w, &inst.ops[0], &[d], exec);
            Ok(Step::Continue)
        }
        MatrixOp::Mma | MatrixOp::WmmaMma => {
            let f = tensor::Mma::from_inst(inst).map_err(|e| c.unsupported(w, lane0, e))?;
            let (a, b, cc) = (gather_all(c, w, &inst.ops[1]), gather_all(c, w, &inst.ops[2]), gather_all(c, w, &inst.ops[3]));
            let d = if op == MatrixOp::Mma { tensor::mma(&f, &a, &b, &cc) } else { tensor::wmma_mma(&f, &a, &b, &cc) }
                .map_err(|e| c.unsupported(w, lane0, e))?;
            scatter(c, w, &inst.ops[0], &d, exec);
            Ok(Step::Continue)
        }
        MatrixOp::WmmaLoad | MatrixOp::WmmaStore => {
            let f = tensor::WmmaMem::from_inst(inst).map_err(|e| c.unsupported(w, lane0, e))?;
            let (addr_op, regs_op) = if op == MatrixOp::WmmaLoad { (1, 0) } else { (0, 1) };
            let (base, sp) = addrs(c, w, &inst.ops[addr_op], m.space());
            let stride = inst.ops.get(2).map(|o| {
                let mut s = [0u64; 32];
                for (l, x) in s.iter_mut().enumerate() {
                    *x = c.read(w, o, l);
                }
                s
            });
            // The addresses the fragment touches, for the timing model (the space of the last).
            let mut touched: Vec<u64> = Vec::new();
            let mut tspace = crate::exec::TraceSpace::None;
            if op == MatrixOp::WmmaLoad {
                let out = {
                    let mut read = |lane: usize, addr: u64, buf: &mut [u8]| {
                        touched.push(addr);
                        tspace = c.access(w, sp, addr, buf, false, lane)?;
                        Ok(())
                    };
                    tensor::wmma_load(&f, &base, stride.as_ref(), &mut read)
                }
                .map_err(|e| form_fault(c, w, lane0, e))?;
                scatter(c, w, &inst.ops[regs_op], &out, exec);
            } else {
                let d = gather_all(c, w, &inst.ops[regs_op]);
                let mut write = |lane: usize, addr: u64, buf: &[u8]| {
                    let mut b = buf.to_vec();
                    touched.push(addr);
                    tspace = c.access(w, sp, addr, &mut b, true, lane)?;
                    Ok(())
                };
                tensor::wmma_store(&f, &base, stride.as_ref(), &d, &mut write).map_err(|e| form_fault(c, w, lane0, e))?;
            }
            fragment_trace(c, tspace, op == MatrixOp::WmmaStore, &mut touched);
            Ok(Step::Continue)
        }
        MatrixOp::WgmmaMma => {
            // d, {a | a-desc}, b-desc, scale-d, imm…
            let scale_d = inst.ops.get(3).is_none_or(|o| c.read(w, o, lane0) != 0);
            let f = tensor::Wgmma::from_inst(inst, scale_d).map_err(|e| c.unsupported(w, lane0, e))?;
            let slot = (w.slot % 4) as usize;
            let put = |regs: Vec<Lanes>| -> Vec<[Lanes; 4]> {
                regs.into_iter()
                    .map(|r| {
                        let mut g = [[0u64; 32]; 4];
                        g[slot] = r;
                        g
                    })
                    .collect()
            };
            let mut d = put(gather_all(c, w, &inst.ops[0]));
            let a_regs = match &inst.ops[1] {
                Opnd::Vec(_) => Some(put(gather_all(c, w, &inst.ops[1]))),
                _ => None,
            };
            let a = match &a_regs {
                Some(r) => WgmmaA::Regs(r),
                None => WgmmaA::Desc(c.read(w, &inst.ops[1], lane0)),
            };
            let b = c.read(w, &inst.ops[2], lane0);
            // Machine code's descriptors hold the hardware's shared addresses, which on sm_90
            // include the CTA window's reserved 1 KiB (SASS `HGMMA`, `flag::MACHINE_FORM`).
            let window = if inst.m.has(flag::MACHINE_FORM) { warpsim_isa::machine::SHARED_RESERVED } else { 0 };
            {
                let mut read = |_: usize, addr: u64, buf: &mut [u8]| c.access(w, Space::Shared, addr.wrapping_sub(window), buf, false, lane0).map(|_| ());
                tensor::wgmma(&f, a, b, &mut d, slot..slot + 1, &mut read)
            }
            .map_err(|e| form_fault(c, w, lane0, e))?;
            let mine: Vec<Lanes> = d.iter().map(|g| g[slot]).collect();
            scatter(c, w, &inst.ops[0], &mine, exec);
            Ok(Step::Continue)
        }
    }
}
