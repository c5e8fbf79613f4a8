//! Executing the asynchronous machinery of Ampere and Hopper: `mbarrier` operations, Ampere
//! `cp.async` with commit groups, and the bulk copies of the TMA (`cp.async.bulk`, tensor tiles
//! with swizzle and out-of-bounds fill, multicast to a cluster, stores and reductions back to
//! global memory, `st.async`).
//!
//! Data moves when the instruction issues (execute-at-issue, like every other instruction);
//! what completes later — transaction bytes arriving at an mbarrier, arrivals after `cp.async`,
//! group completion — is returned as [`AsyncEvent`]s, which the functional runner applies at once
//! and the timing model applies when the copy's memory traffic completes.

use warpsim_isa::ast::Space;
use warpsim_isa::inst::{flag, AtomOp, Base, CpOp, Inst, MbarOp, Opnd};
use warpsim_isa::types::Ty;

use crate::exec::{lanes, AsyncEvent, AsyncGroup, Ctx, Step};
use crate::fault::{Fault, FaultKind};
use crate::mbarrier::{pending_count, Mbar};
use crate::memory;
use crate::tma::TensorMap;
use crate::warp::Warp;

/// Resolves a shared-memory operand (shared::cta, shared::cluster or generic) to (cluster CTA,
/// offset).
fn shared_operand(c: &Ctx<'_, '_>, w: &Warp, o: &Opnd, space: Space, lane: usize) -> Result<(usize, u64), Fault> {
    let (addr, sp) = c.address(w, o, space, lane);
    let (sp, addr) = match sp {
        Space::Generic if memory::window_of(addr) == memory::Window::Shared => (Space::SharedCluster, addr - memory::SHARED_WINDOW),
        Space::Generic => {
            return Err(c.fault(
                w,
                lane,
                FaultKind::OutOfBounds { space: "shared", write: false, addr, size: 8, detail: "not a shared-memory address".into() },
            ))
        }
        s => (s, addr),
    };
    c.shared_target(sp, addr).map_err(|d| c.fault(w, lane, FaultKind::OutOfBounds { space: "shared::cluster", write: false, addr, size: 8, detail: d }))
}

/// Reads, updates and writes back the mbarrier at (cta, off).
fn with_mbar<R>(c: &mut Ctx<'_, '_>, w: &Warp, lane: usize, cta: usize, off: u64, f: impl FnOnce(&mut Mbar) -> R) -> Result<R, Fault> {
    let smem = &mut c.env.ctas[cta].smem;
    if !off.is_multiple_of(8) || off + 8 > smem.len() as u64 {
        let size = smem.len();
        return Err(c.fault(
            w,
            lane,
            FaultKind::OutOfBounds {
                space: "shared",
                write: true,
                addr: off,
                size: 8,
                detail: format!("an mbarrier must be 8-byte aligned inside the CTA's {size} bytes of shared memory"),
            },
        ));
    }
    let r = off as usize..off as usize + 8;
    let mut b = Mbar::decode(u64::from_le_bytes(smem[r.clone()].try_into().unwrap_or([0; 8])));
    let out = f(&mut b);
    smem[r].copy_from_slice(&b.encode().to_le_bytes());
    Ok(out)
}

/// Applies an mbarrier completion event (used by the functional runner and the timing model).
pub fn apply_event(smem: &mut [u8], off: u64, ev: &AsyncEvent) -> bool {
    if !off.is_multiple_of(8) || off + 8 > smem.len() as u64 {
        return false;
    }
    let r = off as usize..off as usize + 8;
    let mut b = Mbar::decode(u64::from_le_bytes(smem[r.clone()].try_into().unwrap_or([0; 8])));
    let done = match ev {
        AsyncEvent::CompleteTx { bytes, .. } => b.transact(-(*bytes as i32)),
        AsyncEvent::ArriveAfterCopies { arrivals, .. } => b.arrive(*arrivals, 0, false).1,
        _ => false,
    };
    smem[r].copy_from_slice(&b.encode().to_le_bytes());
    done
}

/// The current phase parity of the barrier at (cta, off), for waking sleeping warps.
pub fn phase_of(smem: &[u8], off: u64) -> bool {
    let r = off as usize..(off as usize + 8).min(smem.len());
    let mut b = [0u8; 8];
    b[..r.len()].copy_from_slice(&smem[r]);
    Mbar::decode(u64::from_le_bytes(b)).phase
}

pub(crate) fn mbarrier(w: &mut Warp, c: &mut Ctx<'_, '_>, inst: &Inst, op: MbarOp, exec: u32) -> Result<Step, Fault> {
    let sp = inst.m.space();
    let lane0 = (exec.trailing_zeros() as usize).min(31);
    match op {
        MbarOp::Init | MbarOp::ExpectTx | MbarOp::CompleteTx | MbarOp::Inval => {
            for l in lanes(exec) {
                let (cta, off) = shared_operand(c, w, &inst.ops[0], sp, l)?;
                let v = inst.ops.get(1).map_or(0, |o| c.read(w, o, l)) as u32;
                // SASS's init word holds 2^20 − count in bits 1..21.
                let v = if op == MbarOp::Init && inst.m.has(flag::MACHINE_FORM) { 0x10_0000 - ((v >> 1) & 0xF_FFFF) } else { v };
                with_mbar(c, w, l, cta, off, |b| match op {
                    MbarOp::Init => *b = Mbar::init(v & 0xF_FFFF),
                    MbarOp::ExpectTx => {
                        b.transact(v as i32);
                    }
                    MbarOp::CompleteTx => {
                        b.transact(-(v as i32));
                    }
                    _ => *b = Mbar::decode(0),
                })?;
            }
            Ok(Step::Continue)
        }
        MbarOp::Arrive | MbarOp::ArriveDrop => {
            let expect = inst.m.has(flag::EXPECT_TX);
            for l in lanes(exec) {
                let (cta, off) = shared_operand(c, w, &inst.ops[1], sp, l)?;
                let extra = inst.ops.get(2).map(|o| c.read(w, o, l) as u32);
                let (count, tx) = if expect { (1, extra.unwrap_or(0) as i32) } else { (extra.unwrap_or(1), 0) };
                let (token, _) = with_mbar(c, w, l, cta, off, |b| b.arrive(count, tx, op == MbarOp::ArriveDrop))?;
                c.write_dst(w, &inst.ops[0], l, token, 0);
            }
            Ok(Step::Continue)
        }
        MbarOp::TestWait | MbarOp::TryWait => {
            let (cta, off) = shared_operand(c, w, &inst.ops[1], sp, lane0)?;
            let v = inst.ops.get(2).map_or(0, |o| c.read(w, o, lane0));
            let (done, phase) = with_mbar(c, w, lane0, cta, off, |b| {
                // SASS passes the parity in bit 31.
                let v = if inst.m.has(flag::MACHINE_FORM) { v >> 31 } else { v };
                let d = if inst.m.has(flag::PARITY) { b.parity_done(v & 1 == 1) } else { b.phase_done(v) };
                (d, b.phase)
            })?;
            if !done && op == MbarOp::TryWait {
                return Ok(Step::MbarWait { cta, off, phase });
            }
            for l in lanes(exec) {
                c.write_dst(w, &inst.ops[0], l, done as u64, 0);
            }
            Ok(Step::Continue)
        }
        MbarOp::PendingCount => {
            for l in lanes(exec) {
                let state = c.read(w, &inst.ops[1], l);
                c.write_dst(w, &inst.ops[0], l, pending_count(state) as u64, 0);
            }
            Ok(Step::Continue)
        }
    }
}

/// The 128-byte lines a set of byte accesses touches, each with the mask of its 32-byte sectors
/// they touch, in address order (for the timing model's traffic).
fn lines_of(accesses: &[(u64, u32)]) -> Vec<(u64, u8)> {
    let mut lines: Vec<(u64, u8)> = Vec::new();
    for &(a, n) in accesses {
        let mut s = a & !31;
        while s < a + n as u64 {
            lines.push((s & !127, 1 << ((s & 127) / 32)));
            s += 32;
        }
    }
    lines.sort_unstable_by_key(|l| l.0);
    lines.dedup_by(|b, a| {
        let same = a.0 == b.0;
        if same {
            a.1 |= b.1;
        }
        same
    });
    lines
}

/// Ranks a copy writes to: the multicast mask's, or the destination's own.
fn targets(c: &Ctx<'_, '_>, inst: &Inst, dst_cta: usize, mask: Option<u64>) -> Vec<usize> {
    match mask {
        Some(m) if inst.m.has(flag::MULTICAST) => {
            c.env.ctas.iter().enumerate().filter(|(_, t)| (m >> t.rank) & 1 == 1).map(|(i, _)| i).collect()
        }
        _ => vec![dst_cta],
    }
}

fn read_tensor_map(c: &mut Ctx<'_, '_>, w: &mut Warp, o: &Opnd, lane: usize) -> Result<(TensorMap, Vec<i64>), Fault> {
    let Opnd::Tensor { base, coords } = o else {
        return Err(c.fault(w, lane, FaultKind::Unsupported("tensor copy without a `[tensorMap, {coords}]` operand".into())));
    };
    let (addr, sp) = c.address(w, &Opnd::Addr { base: *base, offset: 0 }, Space::Generic, lane);
    let sp = if matches!(base, Base::Sym(_)) { sp } else { Space::Generic };
    let mut b = [0u8; 128];
    c.access(w, sp, addr, &mut b, false, lane)?;
    let map = TensorMap::decode(&b).map_err(|e| c.fault(w, lane, FaultKind::Unsupported(e.to_string())))?;
    let coords = coords.iter().map(|x| c.read(w, x, lane) as u32 as i32 as i64).collect();
    Ok((map, coords))
}

fn fill_value(map: &TensorMap, n: usize) -> u64 {
    if !map.oob_nan {
        return 0;
    }
    match n {
        2 => 0x7FFF,
        4 => 0x7FFF_FFFF,
        8 => 0x7FF8_0000_0000_0000,
        _ => 0,
    }
}

pub(crate) fn copy(w: &mut Warp, c: &mut Ctx<'_, '_>, inst: &Inst, op: CpOp, exec: u32) -> Result<Step, Fault> {
    let m = &inst.m;
    let hint = m.has(flag::CACHE_HINT) as usize;
    match op {
        CpOp::AsyncCommit => {
            c.env.asyncs.push(AsyncEvent::Commit { bulk: false });
            Ok(Step::Continue)
        }
        CpOp::BulkCommit => {
            c.env.asyncs.push(AsyncEvent::Commit { bulk: true });
            Ok(Step::Continue)
        }
        CpOp::AsyncWaitAll => Ok(Step::AsyncWait { bulk: false, n: 0 }),
        CpOp::AsyncWaitGroup | CpOp::BulkWait => {
            let lane0 = (exec.trailing_zeros() as usize).min(31);
            let n = inst.ops.first().map_or(0, |o| c.read(w, o, lane0)) as u32;
            Ok(Step::AsyncWait { bulk: op == CpOp::BulkWait, n })
        }
        CpOp::BulkPrefetch | CpOp::BulkPrefetchTensor => Ok(Step::Continue),
        CpOp::AsyncMbarArrive => {
            for l in lanes(exec) {
                let (cta, off) = shared_operand(c, w, &inst.ops[0], Space::Shared, l)?;
                if !m.has(flag::NOINC) {
                    // Without .noinc the pending count goes up now and comes down on completion.
                    with_mbar(c, w, l, cta, off, |b| b.pending += 1)?;
                }
                c.env.asyncs.push(AsyncEvent::ArriveAfterCopies { cta, mbar: off, arrivals: 1 });
            }
            Ok(Step::Continue)
        }
        CpOp::Async => {
            // cp.async.{ca,cg}.shared.global [dst], [src], cp-size{, src-size}{, cache-policy}
            let extra = inst.ops.len().saturating_sub(3 + hint);
            let mut traffic = Vec::new();
            for l in lanes(exec) {
                let (dst, dsp) = c.address(w, &inst.ops[0], Space::Shared, l);
                let (src, ssp) = c.address(w, &inst.ops[1], Space::Global, l);
                let size = (c.read(w, &inst.ops[2], l) as usize).min(16);
                let src_size = if extra > 0 { (c.read(w, &inst.ops[3], l) as usize).min(size) } else { size };
                let src_size = if m.has(flag::SRC_SIZE) { 0 } else { src_size };
                let mut buf = [0u8; 16];
                if src_size > 0 {
                    c.access(w, ssp, src, &mut buf[..src_size], false, l)?;
                    traffic.push((src, src_size as u32));
                }
                c.access(w, dsp, dst, &mut buf[..size], true, l)?;
            }
            c.env.asyncs.push(AsyncEvent::Traffic { global: lines_of(&traffic), write: false, group: AsyncGroup::CpAsync });
            Ok(Step::Continue)
        }
        CpOp::Bulk | CpOp::ReduceBulk => bulk(w, c, inst, op, exec),
        CpOp::BulkTensor | CpOp::ReduceBulkTensor => tensor(w, c, inst, op, exec),
    }
}

/// Non-tensor bulk copies.
fn bulk(w: &mut Warp, c: &mut Ctx<'_, '_>, inst: &Inst, op: CpOp, exec: u32) -> Result<Step, Fault> {
    let m = &inst.m;
    let dst_space = m.spaces.first().copied().unwrap_or(Space::SharedCluster);
    let src_space = m.spaces.get(1).copied().unwrap_or(Space::Global);
    for l in lanes(exec) {
        let size = c.read(w, &inst.ops[2], l) as usize;
        let (src, ssp) = c.address(w, &inst.ops[1], src_space, l);
        let mut data = vec![0u8; size];
        c.access(w, ssp, src, &mut data, false, l)?;
        if dst_space == Space::Global {
            // Shared → global (bulk group), optionally reducing.
            let (dst, dsp) = c.address(w, &inst.ops[0], Space::Global, l);
            if op == CpOp::ReduceBulk {
                let ty = m.ty();
                let n = ty.bytes() as usize;
                let aop = reduce_op(m.num);
                for (i, chunk) in data.chunks(n.max(1)).enumerate() {
                    let a = dst + (i * n) as u64;
                    let mut old = [0u8; 8];
                    c.access(w, dsp, a, &mut old[..n], false, l)?;
                    let mut v = [0u8; 8];
                    v[..chunk.len()].copy_from_slice(chunk);
                    let new = warpsim_isa::eval::atom(aop, ty, u64::from_le_bytes(old), u64::from_le_bytes(v), 0, true)
                        .map_err(|e| c.unsupported(w, l, e))?;
                    c.access(w, dsp, a, &mut new.to_le_bytes()[..n], true, l)?;
                }
            } else {
                c.access(w, dsp, dst, &mut data, true, l)?;
            }
            c.env.asyncs.push(AsyncEvent::Traffic { global: lines_of(&[(dst, size as u32)]), write: true, group: AsyncGroup::Bulk });
            continue;
        }
        // → shared memory of one or more CTAs, completing bytes on their mbarriers.
        let (dst_cta, dst_off) = shared_operand(c, w, &inst.ops[0], dst_space, l)?;
        let (mbar_cta, mbar_off) = shared_operand(c, w, &inst.ops[3], Space::SharedCluster, l)?;
        let mask = m.has(flag::MULTICAST).then(|| inst.ops.get(4).map_or(0, |o| c.read(w, o, l)));
        let dests = targets(c, inst, dst_cta, mask);
        for &t in &dests {
            let a = c.cluster_address(t, dst_off);
            c.access(w, Space::SharedCluster, a, &mut data, true, l)?;
            let mbar_target = if dests.len() > 1 { t } else { mbar_cta };
            c.env.asyncs.push(AsyncEvent::CompleteTx { cta: mbar_target, mbar: mbar_off, bytes: size as u32 });
        }
        if src_space == Space::Global {
            c.env.asyncs.push(AsyncEvent::Traffic { global: lines_of(&[(src, size as u32)]), write: false, group: AsyncGroup::Mbarrier });
        }
    }
    Ok(Step::Continue)
}

fn reduce_op(num: u8) -> AtomOp {
    [AtomOp::Add, AtomOp::Min, AtomOp::Max, AtomOp::Inc, AtomOp::Dec, AtomOp::And, AtomOp::Or, AtomOp::Xor]
        .get(num as usize)
        .copied()
        .unwrap_or(AtomOp::Add)
}

/// Tensor tile copies (`cp.async.bulk.tensor` and its reduce form).
fn tensor(w: &mut Warp, c: &mut Ctx<'_, '_>, inst: &Inst, op: CpOp, exec: u32) -> Result<Step, Fault> {
    let m = &inst.m;
    if m.has(flag::IM2COL) {
        return Err(c.fault(w, exec.trailing_zeros().min(31) as usize, FaultKind::Unsupported("im2col tensor copies are not modelled".into())));
    }
    let to_global = m.spaces.first() == Some(&Space::Global);
    for l in lanes(exec) {
        if to_global {
            // [tensorMap, coords], [src smem]
            let (map, coords) = read_tensor_map(c, w, &inst.ops[0], l)?;
            let (src, ssp) = c.address(w, &inst.ops[1], Space::Shared, l);
            let n = map.elem_bytes as usize;
            let mut accesses = Vec::new();
            let mut elems = Vec::new();
            map.for_store().for_each(&coords, |g, off| elems.push((g, off)));
            for (g, off) in elems {
                let Some(g) = g else { continue };
                let mut v = [0u8; 8];
                c.access(w, ssp, map.swizzle.apply(src + off), &mut v[..n], false, l)?;
                if op == CpOp::ReduceBulkTensor {
                    let mut old = [0u8; 8];
                    c.access(w, Space::Global, g, &mut old[..n], false, l)?;
                    let ty = match n {
                        2 => Ty::U16,
                        4 => m.types.first().copied().unwrap_or(Ty::U32),
                        _ => m.types.first().copied().unwrap_or(Ty::U64),
                    };
                    let new = warpsim_isa::eval::atom(reduce_op(m.num), ty, u64::from_le_bytes(old), u64::from_le_bytes(v), 0, true)
                        .map_err(|e| c.unsupported(w, l, e))?;
                    v = new.to_le_bytes();
                }
                c.access(w, Space::Global, g, &mut v[..n], true, l)?;
                accesses.push((g, n as u32));
            }
            c.env.asyncs.push(AsyncEvent::Traffic { global: lines_of(&accesses), write: true, group: AsyncGroup::Bulk });
        } else {
            // [dst smem], [tensorMap, coords], [mbar]{, ctaMask}
            let (map, coords) = read_tensor_map(c, w, &inst.ops[1], l)?;
            let (dst_cta, dst_off) = shared_operand(c, w, &inst.ops[0], Space::SharedCluster, l)?;
            let (mbar_cta, mbar_off) = shared_operand(c, w, &inst.ops[2], Space::SharedCluster, l)?;
            // SASS's mask register holds the mask in its high half (`flag::MACHINE_FORM`).
            let mask = m.has(flag::MULTICAST).then(|| inst.ops.get(3).map_or(0, |o| c.read(w, o, l)) >> if m.has(flag::MACHINE_FORM) { 16 } else { 0 });
            let n = map.elem_bytes as usize;
            let fill = fill_value(&map, n);
            let mut elems = Vec::new();
            map.for_each(&coords, |g, off| elems.push((g, off)));
            let mut tile = vec![0u8; map.box_bytes() as usize];
            let mut accesses = Vec::new();
            for &(g, off) in &elems {
                let dst = &mut tile[off as usize..off as usize + n];
                match g {
                    Some(g) => {
                        c.access(w, Space::Global, g, dst, false, l)?;
                        accesses.push((g, n as u32));
                    }
                    None => dst.copy_from_slice(&fill.to_le_bytes()[..n]),
                }
            }
            let dests = targets(c, inst, dst_cta, mask);
            for &t in &dests {
                let base = c.cluster_address(t, dst_off);
                for chunk in 0..tile.len() / 16 {
                    let off = (chunk * 16) as u64;
                    let phys = map.swizzle.apply(dst_off + off) - dst_off;
                    let mut bytes = [0u8; 16];
                    bytes.copy_from_slice(&tile[chunk * 16..chunk * 16 + 16]);
                    c.access(w, Space::SharedCluster, base + phys, &mut bytes, true, l)?;
                }
                let rest = tile.len() % 16;
                if rest != 0 {
                    let start = tile.len() - rest;
                    let phys = map.swizzle.apply(dst_off + start as u64) - dst_off;
                    let mut bytes = tile[start..].to_vec();
                    c.access(w, Space::SharedCluster, base + phys, &mut bytes, true, l)?;
                }
                let mbar_target = if dests.len() > 1 { t } else { mbar_cta };
                c.env.asyncs.push(AsyncEvent::CompleteTx { cta: mbar_target, mbar: mbar_off, bytes: map.box_bytes() as u32 });
            }
            c.env.asyncs.push(AsyncEvent::Traffic { global: lines_of(&accesses), write: false, group: AsyncGroup::Mbarrier });
        }
    }
    Ok(Step::Continue)
}

/// `st.async{.sem}{.scope}.shared::cluster.mbarrier::complete_tx::bytes{.v2,.v4}.type [addr], value, [mbar]`.
pub(crate) fn store_async(w: &mut Warp, c: &mut Ctx<'_, '_>, inst: &Inst, exec: u32) -> Result<Step, Fault> {
    let ty = inst.m.ty();
    let n = ty.bytes() as usize;
    let vals = crate::exec::elems(&inst.ops[1]);
    let size = n * vals.len();
    for l in lanes(exec) {
        let (addr, sp) = c.address(w, &inst.ops[0], Space::SharedCluster, l);
        let mut buf = vec![0u8; size];
        for (i, v) in vals.iter().enumerate() {
            let x = c.read(w, v, l);
            buf[i * n..(i + 1) * n].copy_from_slice(&x.to_le_bytes()[..n]);
        }
        c.access(w, sp, addr, &mut buf, true, l)?;
        let (mbar_cta, mbar_off) = shared_operand(c, w, &inst.ops[2], Space::SharedCluster, l)?;
        c.env.asyncs.push(AsyncEvent::CompleteTx { cta: mbar_cta, mbar: mbar_off, bytes: size as u32 });
    }
    Ok(Step::Continue)
}
