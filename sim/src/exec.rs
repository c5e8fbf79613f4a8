//! Executing one warp instruction: the functional heart of the simulator (execute-at-issue).
//!
//! [`step`] reads the warp's next instruction, evaluates it for the active (and guard-true)
//! lanes, updates registers and memory, advances the SIMT stack, and records the memory
//! accesses it made in a [`MemTrace`] for the timing model. Synchronization that involves other
//! warps (CTA and cluster barriers) is returned as a [`Step`] for the scheduler to resolve.
//! Every failure is a [`Fault`] naming the kernel, CTA, thread and PTX line.

use warpsim_isa::ast::Space;
use warpsim_isa::eval::{self, Unsupported};
use warpsim_isa::machine::{self, MachineOp};
use warpsim_isa::inst::{flag, AtomOp, BarOp, Base, ClusterBarOp, Inst, Op, Opnd, ShflMode, VoteMode};
use warpsim_isa::program::{SymKind, RECONV_EXIT};
use warpsim_isa::types::{SReg, Ty};

use crate::cta::{Arrival, CtaShared};
use crate::fault::{Fault, FaultKind};
use crate::kernel::Kernel;
use crate::memory::{self, window_of, DeviceMemory, Window, CLUSTER_RANK_SHIFT};
use crate::warp::{CallFrame, SimtEntry, Warp};

/// The memory space an access resolved to (for the timing model's routing).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TraceSpace {
    #[default]
    None,
    Global,
    Shared,
    /// Another CTA's shared memory in the cluster (DSMEM).
    Remote,
    Local,
    Const,
    Param,
}

/// The memory accesses of one warp instruction, lane by lane.
#[derive(Debug, Clone)]
pub struct MemTrace {
    pub space: TraceSpace,
    pub write: bool,
    pub atomic: bool,
    /// Bytes per lane.
    pub size: u32,
    pub mask: u32,
    pub addr: [u64; 32],
}

impl Default for MemTrace {
    fn default() -> Self {
        MemTrace { space: TraceSpace::None, write: false, atomic: false, size: 0, mask: 0, addr: [0; 32] }
    }
}

/// An atomic read-modify-write on global memory, as handed to a [`GlobalMem`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GlobalAtomic {
    pub addr: u64,
    pub op: AtomOp,
    pub ty: Ty,
    pub b: u64,
    pub c: u64,
    pub noftz: bool,
    /// Lane and destination register (None for `red`) of a deferred result; `dst_hi` the high
    /// word's register when the destination is a SASS register pair.
    pub lane: u8,
    pub dst: Option<u32>,
    pub dst_hi: Option<u32>,
}

impl GlobalAtomic {
    /// Performs the operation on memory, returning what the destination receives (the old
    /// value, [`AtomOp::returned`]).
    pub fn perform(&self, mem: &mut DeviceMemory) -> Result<u64, Unsupported> {
        let n = self.ty.bytes() as usize;
        let old = mem.read_uint(self.addr, n);
        let new = eval::atom(self.op, self.ty, old, self.b, self.c, self.noftz)?;
        mem.write_uint(self.addr, n, new);
        Ok(self.op.returned(self.ty, old, self.b))
    }
}

/// Global memory as one warp instruction sees it. The functional runner hands out the device
/// memory itself; the timing engine hands out an SM's view, which buffers writes and defers
/// atomics to the end of its time window so SMs can run in parallel deterministically.
pub trait GlobalMem {
    /// `Err` carries a description of the nearest allocation.
    fn check(&self, addr: u64, len: u64) -> Result<(), String>;
    fn read(&self, addr: u64, buf: &mut [u8]);
    /// Page `page` (of [`memory::PAGE`] bytes) as `read` sees it, where one slice holds it.
    fn page(&self, page: u64) -> PageRef<'_>;
    fn write(&mut self, addr: u64, data: &[u8]);
    /// Performs the atomic now (`Some(old)`) or defers it (`None`; its destination register is
    /// written when it is performed).
    fn atomic(&mut self, a: GlobalAtomic) -> Result<Option<u64>, Unsupported>;
}

/// A page of global memory as [`GlobalMem::page`] finds it.
pub enum PageRef<'a> {
    /// Its bytes, in one slice.
    Bytes(&'a [u8; memory::PAGE as usize]),
    /// Never written nor backed: it reads as zeros.
    Zeros,
    /// Pieced together from several places: read it with [`GlobalMem::read`].
    Mixed,
}

/// Describes where an out-of-bounds address lies relative to the allocations.
pub fn nearest_allocation(mem: &DeviceMemory, addr: u64) -> String {
    mem.allocations()
        .iter()
        .min_by_key(|a| if addr < a.base { a.base - addr } else { addr.saturating_sub(a.base + a.size) })
        .map(|a| format!("nearest allocation `{}` is [{:#x}, {:#x})", a.name, a.base, a.base + a.size))
        .unwrap_or_else(|| "no allocations".to_string())
}

impl GlobalMem for DeviceMemory {
    fn check(&self, addr: u64, len: u64) -> Result<(), String> {
        DeviceMemory::check(self, addr, len, 1).map_err(|_| nearest_allocation(self, addr))
    }
    fn read(&self, addr: u64, buf: &mut [u8]) {
        DeviceMemory::read(self, addr, buf)
    }
    fn page(&self, page: u64) -> PageRef<'_> {
        DeviceMemory::page(self, page).map_or(PageRef::Zeros, PageRef::Bytes)
    }
    fn write(&mut self, addr: u64, data: &[u8]) {
        DeviceMemory::write(self, addr, data)
    }
    fn atomic(&mut self, a: GlobalAtomic) -> Result<Option<u64>, Unsupported> {
        a.perform(self).map(Some)
    }
}

/// Completion of asynchronous work an instruction started. The functional runner applies these
/// at once; the timing model applies them when the copy's memory traffic has completed.
#[derive(Debug, Clone, PartialEq)]
pub enum AsyncEvent {
    /// `bytes` arrive at the mbarrier at shared offset `mbar` of cluster CTA `cta` (index into
    /// `Env::ctas`, or the rank when `remote`).
    CompleteTx { cta: usize, mbar: u64, bytes: u32 },
    /// `cp.async.mbarrier.arrive.noinc`: one arrival once the thread's earlier `cp.async`s complete.
    ArriveAfterCopies { cta: usize, mbar: u64, arrivals: u32 },
    /// An asynchronous copy's global traffic (for the timing model): the lines read or written,
    /// each with the mask of the sectors the copy touches, and which completion mechanism it
    /// belongs to.
    Traffic { global: Vec<(u64, u8)>, write: bool, group: AsyncGroup },
    /// `commit_group` of Ampere `cp.async` or of bulk copies.
    Commit { bulk: bool },
}

/// How an asynchronous copy signals completion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AsyncGroup {
    /// Ampere `cp.async` commit groups.
    CpAsync,
    /// Bulk async-groups (`.bulk_group`).
    Bulk,
    /// An mbarrier transaction count (`.mbarrier::complete_tx::bytes`): the event before this
    /// one in the list is its `CompleteTx`.
    Mbarrier,
}

/// What the scheduler must do after a step.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    Continue,
    /// `mbarrier.try_wait` found the phase incomplete: the warp sleeps (its pc stays on the
    /// instruction) until the barrier at `off` of cluster CTA `cta` leaves phase `phase`.
    MbarWait { cta: usize, off: u64, phase: bool },
    /// `cp.async.wait_group n` / `cp.async.bulk.wait_group n`: wait until at most `n` groups
    /// are pending (the functional runner has nothing pending).
    AsyncWait { bulk: bool, n: u32 },
    /// The warp arrived at a CTA barrier (and blocks if `blocking`).
    Barrier(Arrival),
    ClusterArrive,
    ClusterWait,
    /// Lanes exited; `done` when the whole warp has.
    Exited { lanes: u32, done: bool },
}

/// Everything an instruction may touch besides its warp.
pub struct Env<'a> {
    pub k: &'a Kernel,
    pub gmem: &'a mut dyn GlobalMem,
    /// The CTAs of the executing CTA's cluster, by rank (a single CTA without clusters).
    pub ctas: &'a mut [CtaShared],
    /// Index of the executing CTA in `ctas`.
    pub me: usize,
    /// The SM clock (`%clock`).
    pub clock: u64,
    pub trace: &'a mut MemTrace,
    /// Completions of asynchronous work started by the instruction.
    pub asyncs: &'a mut Vec<AsyncEvent>,
}

/// `%globaltimer`: nanoseconds of `cycles` SM cycles at `mhz`, in whole kHz so that integral
/// clocks divide exactly (1980 MHz: cycles × 1000 / 1980).
fn globaltimer_ns(cycles: u64, mhz: f64) -> u64 {
    let khz = ((mhz * 1000.0).round() as u128).max(1);
    u64::try_from(u128::from(cycles) * 1_000_000 / khz).unwrap_or(u64::MAX)
}

/// Iterates the set bits of a lane mask.
#[inline]
pub(crate) fn lanes(mut m: u32) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if m == 0 {
            None
        } else {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            Some(l)
        }
    })
}

fn thread_index(k: &Kernel, slot: u32, lane: usize) -> [u32; 3] {
    let lin = slot * 32 + lane as u32;
    let [bx, by, _] = k.dims.block;
    [lin % bx, (lin / bx) % by, lin / (bx * by)]
}

pub(crate) struct Ctx<'e, 'a> {
    pub(crate) env: &'e mut Env<'a>,
    pub(crate) pc: u32,
}

impl Ctx<'_, '_> {
    pub(crate) fn fault(&self, w: &Warp, lane: usize, kind: FaultKind) -> Fault {
        Fault::new(crate::fault::FaultInfo {
            kernel: self.env.k.prog.name.clone(),
            cta: self.env.ctas[self.env.me].id,
            thread: thread_index(self.env.k, w.slot, lane),
            location: self.env.k.prog.source_line(self.pc),
            kind,
        })
    }

    pub(crate) fn unsupported(&self, w: &Warp, lane: usize, e: Unsupported) -> Fault {
        self.fault(w, lane, FaultKind::Unsupported(e.to_string()))
    }

    /// Address of a symbol for this warp (frame symbols are relative to the current frame).
    pub(crate) fn sym_addr(&self, w: &Warp, s: u32) -> u64 {
        let sym = &self.env.k.prog.symbols[s as usize];
        let a = self.env.k.sym_addr[s as usize];
        if sym.kind == SymKind::Frame {
            w.frame_base + a
        } else {
            a
        }
    }

    fn special(&self, w: &Warp, s: SReg, lane: usize) -> u64 {
        let k = self.env.k;
        let cta = &self.env.ctas[self.env.me];
        let d = &k.dims;
        let cl = d.cluster;
        match s {
            SReg::Tid(c) => thread_index(k, w.slot, lane)[c as usize] as u64,
            SReg::Ntid(c) => d.block[c as usize] as u64,
            SReg::Ctaid(c) => cta.id[c as usize] as u64,
            SReg::Nctaid(c) => d.grid[c as usize] as u64,
            SReg::Laneid => lane as u64,
            SReg::Warpid => w.slot as u64,
            SReg::Nwarpid => u64::from(self.env.k.max_warps),
            SReg::Smid => cta.smid as u64,
            SReg::Nsmid => k.nsm as u64,
            SReg::Gridid => 1,
            SReg::Clock => self.env.clock & 0xFFFF_FFFF,
            SReg::ClockHi => self.env.clock >> 32,
            SReg::Clock64 => self.env.clock,
            // The simulated SM clock in nanoseconds at 1.98 GHz (the timing model's clock).
            SReg::Globaltimer => globaltimer_ns(self.env.clock, self.env.k.sm_mhz),
            SReg::GlobaltimerLo => globaltimer_ns(self.env.clock, self.env.k.sm_mhz) & 0xFFFF_FFFF,
            SReg::GlobaltimerHi => globaltimer_ns(self.env.clock, self.env.k.sm_mhz) >> 32,
            SReg::LanemaskEq => 1u64 << lane,
            SReg::LanemaskLe => (1u64 << (lane + 1)) - 1,
            SReg::LanemaskLt => (1u64 << lane) - 1,
            SReg::LanemaskGe => (!((1u64 << lane) - 1)) & 0xFFFF_FFFF,
            SReg::LanemaskGt => (!((1u64 << (lane + 1)) - 1)) & 0xFFFF_FFFF,
            SReg::ClusterId(c) => (cta.id[c as usize] / cl[c as usize]) as u64,
            SReg::NclusterId(c) => (d.grid[c as usize] / cl[c as usize]) as u64,
            SReg::ClusterCtaid(c) => (cta.id[c as usize] % cl[c as usize]) as u64,
            SReg::ClusterNctaid(c) => cl[c as usize] as u64,
            SReg::ClusterCtarank => cta.rank as u64,
            SReg::ClusterNctarank => d.cluster_size() as u64,
            SReg::IsExplicitCluster => (d.cluster_size() > 1) as u64,
            SReg::SharedWindowHi => memory::SHARED_WINDOW >> 32,
            SReg::WindowBase { local, hi } => {
                let base = if local { memory::LOCAL_WINDOW } else { memory::SHARED_WINDOW };
                if hi {
                    base >> 32
                } else {
                    base & 0xFFFF_FFFF
                }
            }
            SReg::ClusterNctaidRcp(c) => {
                let n = cl[c as usize].max(1) as f64;
                let r = (1.0 / n) as f32;
                // Rounded up, so that truncating `ctaid * r` gives `ctaid / n` exactly.
                (if (r as f64) < 1.0 / n { f32::from_bits(r.to_bits() + 1) } else { r }).to_bits() as u64
            }
            SReg::DynamicSmemSize => d.dynamic_smem as u64,
            SReg::TotalSmemSize | SReg::AggrSmemSize => k.smem_bytes as u64,
            SReg::Envreg(_) | SReg::Pm(_) | SReg::ReservedSmem(_) => 0,
        }
    }

    /// A scalar source value for one lane.
    pub(crate) fn read(&self, w: &Warp, o: &Opnd, lane: usize) -> u64 {
        match o {
            Opnd::Reg(r) => w.reg(*r, lane),
            Opnd::NotReg(r) => (w.reg(*r, lane) == 0) as u64,
            Opnd::Imm(v) => *v,
            Opnd::Pair(lo, hi) => (w.reg(*hi, lane) << 32) | (w.reg(*lo, lane) & 0xFFFF_FFFF),
            Opnd::Param(off) | Opnd::Param64(off) => {
                let n = if matches!(o, Opnd::Param64(_)) { 8 } else { 4 };
                let o = *off as usize;
                self.env.k.params.get(o..o + n).map_or(0, |b| read_le(b, 0, n))
            }
            Opnd::Special(s) => self.special(w, *s, lane),
            Opnd::SymAddr(s, off) => self.sym_addr(w, *s).wrapping_add(*off as u64),
            Opnd::Func(f) => memory::FUNC_BASE + *f as u64 * 16,
            _ => 0,
        }
    }

    #[inline]
    pub(crate) fn write_reg(&self, w: &mut Warp, r: u32, lane: usize, v: u64) {
        let m = self.env.k.reg_mask[r as usize];
        w.set_reg(r, lane, if m == 0 { (v != 0) as u64 } else { v & m });
    }

    /// Source values of an operand for every lane in `mask` (others may be overwritten).
    #[inline]
    pub(crate) fn gather(&self, w: &Warp, o: &Opnd, mask: u32, out: &mut [u64; 32]) {
        if plain_lanes(w, o, out) {
            return;
        }
        match o {
            // The same for every lane: read once.
            Opnd::Param(_) | Opnd::Param64(_) | Opnd::SymAddr(..) | Opnd::Func(_) => out.fill(self.read(w, o, 0)),
            other => {
                for l in lanes(mask) {
                    out[l] = self.read(w, other, l);
                }
            }
        }
    }

    /// Writes a destination operand (a register, or the `p|q` / `r|p` pair's first element);
    /// sinks discard.
    pub(crate) fn write_dst(&self, w: &mut Warp, o: &Opnd, lane: usize, v: u64, v2: u64) {
        match o {
            Opnd::Reg(r) => self.write_reg(w, *r, lane, v),
            Opnd::Pair(lo, hi) => {
                self.write_reg(w, *lo, lane, v & 0xFFFF_FFFF);
                self.write_reg(w, *hi, lane, v >> 32);
            }
            Opnd::Vec(items) => {
                if let Some(Opnd::Reg(r)) = items.first() {
                    self.write_reg(w, *r, lane, v);
                }
                if let Some(Opnd::Reg(r)) = items.get(1) {
                    self.write_reg(w, *r, lane, v2);
                }
            }
            _ => {}
        }
    }

    /// Effective address of an address operand and the space it really lives in.
    pub(crate) fn address(&self, w: &Warp, o: &Opnd, space: Space, lane: usize) -> (u64, Space) {
        match o {
            Opnd::Addr { base, offset } => {
                let (b, sp) = match base {
                    Base::Sym(s) => {
                        let sym = &self.env.k.prog.symbols[*s as usize];
                        let sp = match sym.kind {
                            SymKind::Frame => Space::Local,
                            SymKind::KernelParam => Space::Param,
                            SymKind::Shared | SymKind::DynShared if space == Space::Generic => Space::Shared,
                            _ => space,
                        };
                        (self.sym_addr(w, *s), sp)
                    }
                    Base::SymIndex(s, r) => (self.sym_addr(w, *s).wrapping_add(w.reg(*r, lane) & 0xFFFF_FFFF), space),
                    b => (b.value(|r| w.reg(r, lane)).unwrap_or(0), space),
                };
                (b.wrapping_add(*offset as u64), sp)
            }
            other => (self.read(w, other, lane), space),
        }
    }

    /// Reads or writes `buf.len()` bytes at `addr` in `space` for `lane`.
    pub(crate) fn access(&mut self, w: &mut Warp, space: Space, addr: u64, buf: &mut [u8], write: bool, lane: usize) -> Result<TraceSpace, Fault> {
        let n = buf.len() as u64;
        let oob = |what: &'static str, detail: String| FaultKind::OutOfBounds { space: what, write, addr, size: n as u32, detail };
        let (space, addr) = match space {
            Space::Generic => match window_of(addr) {
                Window::Global => (Space::Global, addr),
                Window::Shared => (Space::SharedCluster, addr - memory::SHARED_WINDOW),
                Window::Local => (Space::Local, addr - memory::LOCAL_WINDOW),
                Window::Param => (Space::Param, addr - memory::PARAM_WINDOW),
            },
            s => (s, addr),
        };
        // Natural alignment up to 16 bytes; bulk copies (larger) need 16-byte alignment.
        if n > 1 && addr % n.min(16) != 0 {
            let sp = match space {
                Space::Global | Space::Const => "global",
                Space::Shared | Space::SharedCluster => "shared",
                Space::Local => "local",
                _ => "param",
            };
            return Err(self.fault(w, lane, FaultKind::Misaligned { space: sp, addr, size: n as u32 }));
        }
        match space {
            Space::Global | Space::Const => {
                let g = &mut *self.env.gmem;
                if let Err(near) = g.check(addr, n) {
                    let what = if space == Space::Const { "constant" } else { "global" };
                    return Err(self.fault(w, lane, oob(what, near)));
                }
                if write {
                    if space == Space::Const {
                        return Err(self.fault(w, lane, oob("constant", "constant memory is read-only".into())));
                    }
                    g.write(addr, buf);
                } else {
                    g.read(addr, buf);
                }
                Ok(if space == Space::Const { TraceSpace::Const } else { TraceSpace::Global })
            }
            Space::Shared | Space::SharedCluster => {
                let (cta, off) = self.shared_target(space, addr).map_err(|d| self.fault(w, lane, oob("shared::cluster", d)))?;
                let remote = cta != self.env.me;
                let smem = &mut self.env.ctas[cta].smem;
                let size = smem.len() as u64;
                if off.checked_add(n).is_none_or(|e| e > size) {
                    return Err(self.fault(w, lane, oob("shared", format!("the CTA has {size} bytes of shared memory"))));
                }
                let r = off as usize..(off + n) as usize;
                if write {
                    smem[r].copy_from_slice(buf);
                } else {
                    buf.copy_from_slice(&smem[r]);
                }
                Ok(if remote { TraceSpace::Remote } else { TraceSpace::Shared })
            }
            Space::Local => {
                let end = addr.saturating_add(n);
                let have = w.local.get(lane).map_or(0, |l| l.len() as u64);
                if end > have {
                    return Err(self.fault(w, lane, oob("local", format!("the thread's frame is {have} bytes"))));
                }
                let l = &mut w.local[lane];
                let r = addr as usize..end as usize;
                if write {
                    l[r].copy_from_slice(buf);
                } else {
                    buf.copy_from_slice(&l[r]);
                }
                Ok(TraceSpace::Local)
            }
            Space::Param => {
                if write {
                    return Err(self.fault(w, lane, oob("param", "kernel parameters are read-only".into())));
                }
                let p = &self.env.k.params;
                let end = addr.saturating_add(n);
                if end > p.len() as u64 {
                    return Err(self.fault(w, lane, oob("param", format!("the kernel has {} bytes of parameters", p.len()))));
                }
                buf.copy_from_slice(&p[addr as usize..end as usize]);
                Ok(TraceSpace::Param)
            }
            s => Err(self.fault(w, lane, FaultKind::Unsupported(format!("memory access to state space {s:?}")))),
        }
    }

    /// The cluster CTA (index into `env.ctas`) and offset a shared-space address names.
    pub(crate) fn shared_target(&self, space: Space, addr: u64) -> Result<(usize, u64), String> {
        let me = self.env.me;
        if self.env.k.prog.is_machine_code() {
            return self.machine_shared_target(space, addr);
        }
        if space == Space::SharedCluster && addr >> CLUSTER_RANK_SHIFT != 0 {
            let rank = (addr >> CLUSTER_RANK_SHIFT) - 1;
            match self.env.ctas.iter().position(|c| c.rank as u64 == rank) {
                Some(i) => Ok((i, addr & ((1 << CLUSTER_RANK_SHIFT) - 1))),
                None => Err(format!("no CTA of rank {rank} in this cluster")),
            }
        } else {
            Ok((me, addr))
        }
    }

    /// The `shared::cluster` address of offset `off` in cluster CTA `cta`: the inverse of
    /// [`Self::shared_target`], in the program's form.
    pub(crate) fn cluster_address(&self, cta: usize, off: u64) -> u64 {
        let rank = self.env.ctas[cta].rank as u64;
        if self.env.k.prog.is_machine_code() {
            rank << CLUSTER_RANK_SHIFT | (off + warpsim_isa::machine::SHARED_RESERVED)
        } else {
            (rank + 1) << CLUSTER_RANK_SHIFT | off
        }
    }

    /// [`Self::shared_target`] for machine code, which addresses shared memory as sm_90 does:
    /// `rank << 24 | (0x400 + offset)`, the CTA's rank in its cluster above the reserved 1 KiB
    /// window (`SR_CgaCtaId` is the rank; the lowering already took the window off a CTA-space
    /// access). A CTA-space access (`LDS`, `STS`) reaches the executing CTA whatever the rank
    /// bits; a generic one (`LD` with `SR_SWINHI` above) reaches the CTA the rank names.
    fn machine_shared_target(&self, space: Space, addr: u64) -> Result<(usize, u64), String> {
        let low = addr & ((1 << CLUSTER_RANK_SHIFT) - 1);
        if space != Space::SharedCluster {
            return Ok((self.env.me, low));
        }
        let rank = (addr >> CLUSTER_RANK_SHIFT) & 0xFF;
        let off = low.checked_sub(warpsim_isa::machine::SHARED_RESERVED).ok_or_else(|| format!("offset {low:#x} is in the reserved window below {:#x}", warpsim_isa::machine::SHARED_RESERVED))?;
        match self.env.ctas.iter().position(|c| c.rank as u64 == rank) {
            Some(i) => Ok((i, off)),
            None => Err(format!("no CTA of rank {rank} in this cluster")),
        }
    }

    pub(crate) fn trace(&mut self, space: TraceSpace, write: bool, atomic: bool, size: u32, mask: u32) {
        let t = &mut *self.env.trace;
        t.space = space;
        t.write = write;
        t.atomic = atomic;
        t.size = size;
        t.mask = mask;
    }
}

/// The registers of a destination or source that may be a vector.
pub(crate) fn elems(o: &Opnd) -> &[Opnd] {
    match o {
        Opnd::Vec(v) => v,
        other => std::slice::from_ref(other),
    }
}

/// Executes the warp's next instruction.
/// The lanes that execute `inst` now: the active lanes whose guard predicate holds.
pub fn exec_mask(w: &Warp, inst: &Inst) -> u32 {
    let active = w.active();
    match inst.guard {
        None => active,
        Some(g) => lanes(active).filter(|&l| (w.reg(g.reg, l) != 0) != g.neg).fold(0, |m, l| m | 1 << l),
    }
}

pub fn step(w: &mut Warp, env: &mut Env<'_>) -> Result<Step, Fault> {
    let pc = w.pc();
    env.trace.space = TraceSpace::None;
    env.trace.mask = 0;
    env.asyncs.clear();
    let k = env.k;
    let mut c = Ctx { env, pc };
    let Some(inst) = k.prog.insts.get(pc as usize) else {
        c.pc = (k.prog.insts.len() as u32).saturating_sub(1);
        let lane = (w.active().trailing_zeros() as usize).min(31);
        return Err(c.fault(w, lane, FaultKind::Unsupported(format!("control reached pc {pc} outside the program"))));
    };
    w.issued += 1;
    let active = w.active();
    let exec = exec_mask(w, inst);
    let lane0 = (exec.trailing_zeros() as usize).min(31);
    let op = inst.op;
    // Control instructions move the pc themselves; everything else advances by one.
    let (r, advance) = if eval::is_alu(op) {
        alu(w, &mut c, inst, exec)?;
        (Step::Continue, true)
    } else {
        match op {
            Op::Mov => (mov(w, &mut c, inst, exec).map(|_| Step::Continue)?, true),
            Op::Ld | Op::Ldu => (load(w, &mut c, inst, exec).map(|_| Step::Continue)?, true),
            Op::St if !inst.m.has(flag::ASYNC) => (store(w, &mut c, inst, exec).map(|_| Step::Continue)?, true),
            Op::Atom(a) | Op::Red(a) => (atomic(w, &mut c, inst, a, exec).map(|_| Step::Continue)?, true),
            Op::Bra => (branch(w, &c, inst, active, exec)?, false),
            Op::BrxIdx => (branch_indexed(w, &c, inst, active, exec)?, false),
            Op::Call => (call(w, &mut c, inst, exec)?, false),
            Op::Ret | Op::Exit => (finish(w, inst, exec), false),
            Op::Trap => return Err(c.fault(w, lane0, FaultKind::Trap)),
            Op::Bar(b) => (barrier(w, &c, inst, b, active, exec)?, true),
            Op::BarrierCluster(b) => (if b == ClusterBarOp::Arrive { Step::ClusterArrive } else { Step::ClusterWait }, true),
            Op::Shfl(mode) => (shfl(w, &c, inst, mode, exec).map(|_| Step::Continue)?, true),
            Op::Vote(mode) => (vote(w, &c, inst, mode, exec).map(|_| Step::Continue)?, true),
            Op::Match(all) => (match_sync(w, &c, inst, all, exec).map(|_| Step::Continue)?, true),
            Op::Redux(r) => (redux(w, &c, inst, r, exec).map(|_| Step::Continue)?, true),
            Op::Activemask => {
                for l in lanes(exec) {
                    c.write_dst(w, &inst.ops[0], l, active as u64, 0);
                }
                (Step::Continue, true)
            }
            Op::Elect => {
                let leader = exec.trailing_zeros() as u64;
                for l in lanes(exec) {
                    c.write_dst(w, &inst.ops[0], l, leader, (l as u64 == leader) as u64);
                }
                (Step::Continue, true)
            }
            Op::Cvta | Op::Isspacep | Op::Mapa | Op::Getctarank => (address_op(w, &c, inst, exec).map(|_| Step::Continue)?, true),
            Op::Mbarrier(m) => {
                let st = crate::exec_async::mbarrier(w, &mut c, inst, m, exec)?;
                let wait = matches!(st, Step::MbarWait { .. });
                (st, !wait)
            }
            Op::Cp(cp) => (crate::exec_async::copy(w, &mut c, inst, cp, exec)?, true),
            Op::Matrix(mx) => (crate::exec_tensor::matrix(w, &mut c, inst, mx, exec)?, true),
            Op::St if inst.m.has(flag::ASYNC) => (crate::exec_async::store_async(w, &mut c, inst, exec)?, true),
            Op::Createpolicy => {
                // Cache policies only steer L2 replacement; the value is opaque to programs.
                for l in lanes(exec) {
                    c.write_dst(w, &inst.ops[0], l, 0, 0);
                }
                (Step::Continue, true)
            }
            Op::BarWarpSync
            | Op::Membar
            | Op::Fence
            | Op::Prefetch
            | Op::Nanosleep
            | Op::Pmevent
            | Op::Brkpt
            | Op::Griddepcontrol
            | Op::Setmaxnreg
            | Op::Nop => (Step::Continue, true),
            _ => {
                return Err(c.fault(
                    w,
                    lane0,
                    FaultKind::Unsupported(format!("`{}` is not executed by this simulator yet", warpsim_isa::decode::op_name(op))),
                ))
            }
        }
    };
    if advance {
        w.jump(pc + 1);
    }
    settle(w, &mut c);
    Ok(match r {
        Step::Exited { lanes, .. } => Step::Exited { lanes, done: w.stack.is_empty() || (w.exited | !w.valid) == u32::MAX },
        other => other,
    })
}

/// Pops finished SIMT entries, completing returns from calls.
fn settle(w: &mut Warp, c: &mut Ctx<'_, '_>) {
    let k = c.env.k;
    w.settle(|w, frame| {
        // Copy return values from the callee's formals to the caller's return slots.
        let callee = &k.prog.funcs[frame.func as usize];
        let mask = w.active();
        for (i, &ret) in frame.ret_syms.iter().enumerate() {
            let Some(&formal) = callee.rets.get(i) else { break };
            let fs = &k.prog.symbols[formal as usize];
            let src = w.frame_base + k.sym_addr[formal as usize];
            let dst = frame.caller_base + k.sym_addr[ret as usize];
            let n = fs.size as usize;
            for l in lanes(mask) {
                let lm = &mut w.local[l];
                if src as usize + n <= lm.len() && dst as usize + n <= lm.len() {
                    lm.copy_within(src as usize..src as usize + n, dst as usize);
                }
            }
        }
        if let Some(saved) = frame.saved_regs {
            let (a, b) = callee.regs;
            w.regs[a as usize * 32..b as usize * 32].copy_from_slice(&saved);
        }
        w.frame_base = frame.caller_base;
    });
}

/// A register's 32 lanes, a register pair's (SASS's 64-bit operands) or an immediate broadcast
/// to them (the operands of the fast paths).
fn plain_lanes(w: &Warp, o: &Opnd, out: &mut [u64; 32]) -> bool {
    match o {
        Opnd::Reg(r) => *out = *w.lanes(*r),
        Opnd::Imm(v) => *out = [*v; 32],
        Opnd::Pair(lo, hi) => {
            let (lo, hi) = (w.lanes(*lo), w.lanes(*hi));
            for (l, v) in out.iter_mut().enumerate() {
                *v = (hi[l] << 32) | (lo[l] & 0xFFFF_FFFF);
            }
        }
        _ => return false,
    }
    true
}

/// The first three sources of `inst` as plain columns (registers, pairs, immediates), operand
/// modifiers applied; false when a source is of another kind or a later one carries a modifier.
fn plain_sources(w: &Warp, inst: &Inst, exec: u32, s: &mut [[u64; 32]; 3]) -> bool {
    let mods = inst.m.neg | inst.m.not | inst.m.abs;
    if mods >> 3 != 0 {
        return false;
    }
    for (i, o) in inst.src().iter().take(3).enumerate() {
        if !plain_lanes(w, o, &mut s[i]) {
            return false;
        }
        if mods >> i & 1 != 0 {
            for l in lanes(exec) {
                s[i][l] = machine::modify_operand(inst, i, s[i][l]);
            }
        }
    }
    true
}

/// A fast path's destination: a register or (SASS's 64-bit results) a register pair, each with
/// its width mask (`Kernel::reg_mask`).
#[derive(Clone, Copy)]
enum Dest {
    Reg(u32, u64),
    Pair((u32, u64), (u32, u64)),
}

/// The fast paths' destination for operand `o`, if it is a register or a register pair.
fn dest_of(c: &Ctx<'_, '_>, o: &Opnd) -> Option<Dest> {
    let reg = |r: u32| (r, c.env.k.reg_mask[r as usize]);
    match *o {
        Opnd::Reg(r) => Some(Dest::Reg(r, c.env.k.reg_mask[r as usize])),
        Opnd::Pair(lo, hi) => Some(Dest::Pair(reg(lo), reg(hi))),
        _ => None,
    }
}

/// Writes `f(a, b, c)` of each lane in `exec` to `d` (as [`Ctx::write_dst`] does: masked to the
/// register's width, predicates as 0/1, a pair's low word first). A full warp writing one
/// register is one loop over 32 lanes.
#[inline(always)]
fn map_lanes(w: &mut Warp, d: Dest, exec: u32, s: &[[u64; 32]; 3], f: impl Fn(u64, u64, u64) -> u64) {
    let fit = |v: u64, mask: u64| if mask == 0 { (v != 0) as u64 } else { v & mask };
    match d {
        Dest::Reg(r, mask) => {
            let out = w.lanes_mut(r);
            if exec == u32::MAX {
                for l in 0..32 {
                    out[l] = fit(f(s[0][l], s[1][l], s[2][l]), mask);
                }
            } else {
                for l in lanes(exec) {
                    out[l] = fit(f(s[0][l], s[1][l], s[2][l]), mask);
                }
            }
        }
        Dest::Pair((lo, lo_mask), (hi, hi_mask)) => {
            for l in lanes(exec) {
                let v = f(s[0][l], s[1][l], s[2][l]);
                w.lanes_mut(lo)[l] = fit(v & 0xFFFF_FFFF, lo_mask);
                w.lanes_mut(hi)[l] = fit(v >> 32, hi_mask);
            }
        }
    }
}

/// The most frequent ALU forms, each as one tight loop over the lanes (no per-lane dispatch).
/// Returns false when the instruction is not one of them; results equal `eval::eval`'s.
fn fast_alu(w: &mut Warp, c: &Ctx<'_, '_>, inst: &Inst, exec: u32) -> bool {
    use warpsim_isa::fp::{self, Rounding};
    let m = &inst.m;
    let Some(d) = inst.ops.first().and_then(|o| dest_of(c, o)) else { return false };
    if inst.ndst != 1 || m.flags & (flag::CC | flag::SAT | flag::FTZ | flag::APPROX | flag::FULL) != 0 {
        return false;
    }
    if m.rnd.is_some_and(|r| r != warpsim_isa::types::Rnd::Rn) {
        return false;
    }
    let ty = m.ty();
    let wide = m.has(flag::WIDE);
    let hi = m.has(flag::HI);
    let int = matches!(ty, Ty::U32 | Ty::S32 | Ty::B32 | Ty::U64 | Ty::S64 | Ty::B64);
    let bits = matches!(ty, Ty::B32 | Ty::B64 | Ty::U32 | Ty::U64);
    let f32 = ty == Ty::F32;
    let float = f32 || ty == Ty::F64;
    let cmp32 = matches!(ty, Ty::S32 | Ty::U32 | Ty::B32) && m.bool_op.is_none();
    // Decide first, so that operands are only gathered for the forms handled here.
    let handled = match inst.op {
        Op::Add | Op::Sub => int || float,
        Op::Mul => matches!(ty, Ty::U32 | Ty::S32) && (!hi || wide) || float,
        Op::Mad => matches!(ty, Ty::U32 | Ty::S32) && !hi || float,
        Op::Fma => float,
        Op::And | Op::Or | Op::Xor => bits,
        Op::Shl => matches!(ty, Ty::B32 | Ty::U32 | Ty::S32),
        Op::Shr => matches!(ty, Ty::B32 | Ty::U32 | Ty::S32),
        Op::Selp => true,
        Op::Setp => cmp32 && m.cmp.is_some(),
        _ => false,
    };
    if !handled {
        return false;
    }
    let mut s = [[0u64; 32]; 3];
    if !plain_sources(w, inst, exec, &mut s) {
        return false;
    }
    let rn = Rounding::Rn;
    let signed = ty == Ty::S32;
    let wide_product = |a: u64, b: u64| {
        if signed {
            ((a as u32 as i32 as i64) * (b as u32 as i32 as i64)) as u64
        } else {
            (a & 0xFFFF_FFFF) * (b & 0xFFFF_FFFF)
        }
    };
    match (inst.op, ty) {
        (Op::Add, Ty::F32) => map_lanes(w, d, exec, &s, |a, b, _| fp::f32::add(a as u32, b as u32, rn, false, false) as u64),
        (Op::Sub, Ty::F32) => map_lanes(w, d, exec, &s, |a, b, _| fp::f32::sub(a as u32, b as u32, rn, false, false) as u64),
        (Op::Mul, Ty::F32) => map_lanes(w, d, exec, &s, |a, b, _| fp::f32::mul(a as u32, b as u32, rn, false, false) as u64),
        (Op::Fma | Op::Mad, Ty::F32) => {
            map_lanes(w, d, exec, &s, |a, b, c| fp::f32::fma(a as u32, b as u32, c as u32, rn, false, false) as u64)
        }
        (Op::Add, Ty::F64) => map_lanes(w, d, exec, &s, |a, b, _| fp::f64::add(a, b, rn, false, false)),
        (Op::Sub, Ty::F64) => map_lanes(w, d, exec, &s, |a, b, _| fp::f64::sub(a, b, rn, false, false)),
        (Op::Mul, Ty::F64) => map_lanes(w, d, exec, &s, |a, b, _| fp::f64::mul(a, b, rn, false, false)),
        (Op::Fma | Op::Mad, Ty::F64) => map_lanes(w, d, exec, &s, |a, b, c| fp::f64::fma(a, b, c, rn, false, false)),
        (Op::Add, _) => map_lanes(w, d, exec, &s, |a, b, _| a.wrapping_add(b)),
        (Op::Sub, _) => map_lanes(w, d, exec, &s, |a, b, _| a.wrapping_sub(b)),
        (Op::Mul, _) if wide => map_lanes(w, d, exec, &s, |a, b, _| wide_product(a, b)),
        (Op::Mad, _) if wide => map_lanes(w, d, exec, &s, |a, b, c| wide_product(a, b).wrapping_add(c)),
        (Op::Mul, _) => map_lanes(w, d, exec, &s, |a, b, _| a.wrapping_mul(b)),
        (Op::Mad, _) => map_lanes(w, d, exec, &s, |a, b, c| a.wrapping_mul(b).wrapping_add(c)),
        (Op::And, _) => map_lanes(w, d, exec, &s, |a, b, _| a & b),
        (Op::Or, _) => map_lanes(w, d, exec, &s, |a, b, _| a | b),
        (Op::Xor, _) => map_lanes(w, d, exec, &s, |a, b, _| a ^ b),
        (Op::Shl, _) => map_lanes(w, d, exec, &s, |a, b, _| if b < 32 { a << b } else { 0 }),
        (Op::Shr, Ty::S32) => map_lanes(w, d, exec, &s, |a, b, _| ((a as u32 as i32) >> b.min(31)) as u32 as u64),
        (Op::Shr, _) => map_lanes(w, d, exec, &s, |a, b, _| if b < 32 { (a & 0xFFFF_FFFF) >> b } else { 0 }),
        (Op::Selp, _) => map_lanes(w, d, exec, &s, |a, b, c| if c != 0 { a } else { b }),
        (Op::Setp, _) => {
            let cmp = m.cmp.expect("checked above");
            map_lanes(w, d, exec, &s, |a, b, _| warpsim_isa::int::compare(ty, cmp, a, b) as u64)
        }
        _ => unreachable!("forms are decided above"),
    }
    true
}

/// `setp` on 32-bit integers or f32 with its destinations `p` and `q` (SASS `ISETP`/`FSETP`
/// write both, combined with a predicate) as one loop over the lanes per destination. Returns
/// false when the instruction is not of this form; results equal `eval::eval`'s.
fn fast_setp(w: &mut Warp, c: &Ctx<'_, '_>, inst: &Inst, exec: u32) -> bool {
    let m = &inst.m;
    let ty = m.ty();
    let Some(cmp) = m.cmp else { return false };
    if inst.op != Op::Setp || !matches!(ty, Ty::S32 | Ty::U32 | Ty::B32 | Ty::F32) {
        return false;
    }
    let reg = |o: &Opnd| match o {
        Opnd::Reg(r) => Some(Some(*r)),
        Opnd::Sink => Some(None),
        _ => None,
    };
    let (p, q) = match inst.ops.first() {
        Some(Opnd::Reg(p)) => (Some(*p), None),
        Some(Opnd::Vec(items)) if items.len() == 2 => match (reg(&items[0]), reg(&items[1])) {
            (Some(p), Some(q)) => (p, q),
            _ => return false,
        },
        _ => return false,
    };
    let mut s = [[0u64; 32]; 3];
    if !plain_sources(w, inst, exec, &mut s) {
        return false;
    }
    let (bop, ftz, fop) = (m.bool_op, m.has(flag::FTZ), eval::fcmp(cmp));
    for (d, negate) in [(p, false), (q, true)] {
        let Some(r) = d else { continue };
        let d = Dest::Reg(r, c.env.k.reg_mask[r as usize]);
        let pred = |x: bool, c: u64| eval::combine(bop, x != negate, c != 0) as u64;
        if ty == Ty::F32 {
            map_lanes(w, d, exec, &s, |a, b, c| pred(warpsim_isa::fp::f32::setp(fop, a as u32, b as u32, ftz), c));
        } else {
            map_lanes(w, d, exec, &s, |a, b, c| pred(warpsim_isa::int::compare(ty, cmp, a, b), c));
        }
    }
    true
}

/// Runs a machine operation's lane function (decoded once by [`machine::dispatch`]) over a
/// warp's lanes.
struct WarpLanes<'a> {
    s: &'a [[u64; 32]; 6],
    exec: u32,
    out: &'a mut [machine::Results; 32],
}

impl machine::Apply for WarpLanes<'_> {
    #[inline(always)]
    fn apply(self, f: impl Fn(&[u64; 6]) -> machine::Results) {
        let s = self.s;
        let lane = |l: usize| [s[0][l], s[1][l], s[2][l], s[3][l], s[4][l], s[5][l]];
        if self.exec == u32::MAX {
            for (l, o) in self.out.iter_mut().enumerate() {
                *o = f(&lane(l));
            }
        } else {
            for l in lanes(self.exec) {
                self.out[l] = f(&lane(l));
            }
        }
    }
}

/// A machine operation (`s`: its gathered sources, operand modifiers applied) as one loop over
/// the lanes: the operation's lane function, then each destination (the register and the
/// predicates) written for all lanes.
fn machine_alu(w: &mut Warp, c: &Ctx<'_, '_>, inst: &Inst, op: MachineOp, exec: u32, s: &[[u64; 32]; 6]) {
    let mut out = [(0u64, 0u64, 0u64); 32];
    machine::dispatch(op, inst, WarpLanes { s, exec, out: &mut out });
    let Some(dst) = inst.ops.first() else { return };
    for (j, d) in elems(dst).iter().enumerate().take(3) {
        let value = |o: &machine::Results| [o.0, o.1, o.2][j];
        match (d, dest_of(c, d)) {
            (Opnd::Sink, _) => {}
            (_, Some(dest)) => {
                let mut col = [[0u64; 32]; 3];
                for l in lanes(exec) {
                    col[0][l] = value(&out[l]);
                }
                map_lanes(w, dest, exec, &col, |v, _, _| v);
            }
            (_, None) => {
                for l in lanes(exec) {
                    c.write_dst(w, d, l, value(&out[l]), 0);
                }
            }
        }
    }
}

fn alu(w: &mut Warp, c: &mut Ctx<'_, '_>, inst: &Inst, exec: u32) -> Result<(), Fault> {
    if fast_alu(w, c, inst, exec) || fast_setp(w, c, inst, exec) {
        return Ok(());
    }
    let src = inst.src();
    let cc = inst.m.has(flag::CC) || matches!(inst.op, Op::Addc | Op::Subc | Op::Madc);
    let mut vals = [[0u64; 32]; 6];
    for (i, o) in src.iter().take(6).enumerate() {
        c.gather(w, o, exec, &mut vals[i]);
    }
    // Operand modifiers source by source (SASS's `-R`, `|R|`; IADD3's belong to its carries).
    let mods = inst.m.neg | inst.m.not | inst.m.abs;
    if mods != 0 && !matches!(inst.op, Op::Machine(MachineOp::Iadd3 { .. })) {
        for (i, col) in vals.iter_mut().enumerate().filter(|(i, _)| mods >> i & 1 != 0) {
            for l in lanes(exec) {
                col[l] = machine::modify_operand(inst, i, col[l]);
            }
        }
    }
    if let Op::Machine(op) = inst.op {
        machine_alu(w, c, inst, op, exec, &vals);
        return Ok(());
    }
    let dst = inst.ops.first();
    for l in lanes(exec) {
        let s = [vals[0][l], vals[1][l], vals[2][l], vals[3][l], vals[4][l], vals[5][l]];
        let out = eval::eval_modified(inst, &s, (w.carry >> l) & 1 == 1).map_err(|e| c.unsupported(w, l, e))?;
        match dst {
            Some(Opnd::Reg(r)) => c.write_reg(w, *r, l, out.v),
            // SASS: a register and two predicates (`IADD3 R4, P0, P1, ...`).
            Some(Opnd::Vec(items)) if items.len() == 3 => {
                for (item, v) in items.iter().zip([out.v, out.v2, out.v3]) {
                    c.write_dst(w, item, l, v, 0);
                }
            }
            Some(d) => c.write_dst(w, d, l, out.v, out.v2),
            None => {}
        }
        if cc {
            w.carry = (w.carry & !(1 << l)) | ((out.carry as u32) << l);
        }
    }
    Ok(())
}

fn mov(w: &mut Warp, c: &mut Ctx<'_, '_>, inst: &Inst, exec: u32) -> Result<(), Fault> {
    let (Some(d), Some(s)) = (inst.ops.first(), inst.ops.get(1)) else { return Ok(()) };
    let bits = inst.m.ty().bits().min(64);
    match (d, s) {
        (Opnd::Vec(parts), _) => {
            // Unpack: low part into the first register.
            let n = parts.len() as u32;
            let w_part = bits / n.max(1);
            for l in lanes(exec) {
                let v = c.read(w, s, l);
                for (i, p) in parts.iter().enumerate() {
                    if let Opnd::Reg(r) = p {
                        let part = if w_part >= 64 { v } else { (v >> (w_part * i as u32)) & ((1u64 << w_part) - 1) };
                        c.write_reg(w, *r, l, part);
                    }
                }
            }
        }
        (_, Opnd::Vec(parts)) => {
            let n = parts.len() as u32;
            let w_part = bits / n.max(1);
            for l in lanes(exec) {
                let mut v = 0u64;
                for (i, p) in parts.iter().enumerate() {
                    let part = c.read(w, p, l) & if w_part >= 64 { u64::MAX } else { (1u64 << w_part) - 1 };
                    v |= part << (w_part * i as u32);
                }
                c.write_dst(w, d, l, v, 0);
            }
        }
        _ if inst.m.has(flag::BROADCAST) => {
            if exec != 0 {
                let v = c.read(w, s, exec.trailing_zeros() as usize);
                for l in lanes(w.valid) {
                    c.write_dst(w, d, l, v, 0);
                }
            }
        }
        _ => {
            let mut v = [0u64; 32];
            c.gather(w, s, exec, &mut v);
            for l in lanes(exec) {
                c.write_dst(w, d, l, v[l], 0);
            }
        }
    }
    Ok(())
}

/// Element type, element bytes and vector width of a memory instruction.
fn mem_shape(inst: &Inst) -> (Ty, usize, usize) {
    let ty = inst.m.ty();
    (ty, ty.bytes() as usize, inst.m.vec.max(1) as usize)
}

/// Little-endian load of `n` ∈ {1, 2, 4, 8} bytes at `a`.
#[inline(always)]
fn read_le(mem: &[u8], a: usize, n: usize) -> u64 {
    match n {
        1 => mem[a] as u64,
        2 => u16::from_le_bytes(mem[a..a + 2].try_into().expect("2 bytes")) as u64,
        4 => u32::from_le_bytes(mem[a..a + 4].try_into().expect("4 bytes")) as u64,
        _ => u64::from_le_bytes(mem[a..a + 8].try_into().expect("8 bytes")),
    }
}

/// The addresses of a fast-path access (a register + offset operand) into the trace for the lanes
/// in `exec`, with their lowest and highest; `None` when the operand has another form, a lane is
/// not aligned to the access's `bytes` or the access would pass the end of the address space.
fn lane_addresses(w: &Warp, c: &mut Ctx<'_, '_>, o: Option<&Opnd>, exec: u32, bytes: u64) -> Option<(u64, u64)> {
    let (b, b_hi, offset) = match o {
        Some(&Opnd::Addr { base: Base::Reg(b), offset }) => (b, None, offset),
        Some(&Opnd::Addr { base: Base::Pair(b, h), offset }) => (b, Some(h), offset),
        _ => return None,
    };
    let addr = &mut c.env.trace.addr;
    let (mut lo, mut hi, mut misaligned) = (u64::MAX, 0, 0);
    let base = w.lanes(b);
    let high = b_hi.map(|h| w.lanes(h));
    for l in lanes(exec) {
        let base_l = match high {
            Some(h) => (h[l] << 32) | (base[l] & 0xFFFF_FFFF),
            None => base[l],
        };
        let a = base_l.wrapping_add(offset as u64);
        addr[l] = a;
        misaligned |= a & (bytes - 1);
        lo = lo.min(a);
        hi = hi.max(a);
    }
    (misaligned == 0 && hi.checked_add(bytes).is_some()).then_some((lo, hi))
}

/// `ld` of 1-, 2-, 4- or 8-byte elements (scalar or vector) with a register (+ offset) address,
/// every lane aligned and inside the CTA's shared memory or inside one global allocation: the
/// common cases, without the general path's per-lane dispatch and bounds checks. Returns false
/// to fall back (which also reports any fault).
fn fast_load(w: &mut Warp, c: &mut Ctx<'_, '_>, inst: &Inst, exec: u32) -> bool {
    let (_, n, v) = mem_shape(inst);
    if exec == 0 || !matches!(n, 1 | 2 | 4 | 8) || !matches!(v, 1 | 2 | 4) {
        return false;
    }
    let bytes = (n * v) as u64;
    let Some((lo, hi)) = lane_addresses(w, c, inst.ops.get(1), exec, bytes) else { return false };
    let (addr, k) = (&c.env.trace.addr, c.env.k);
    let space = match inst.m.space() {
        Space::Shared => {
            let smem = &c.env.ctas[c.env.me].smem;
            if hi + bytes > smem.len() as u64 {
                return false;
            }
            load_lanes(w, k, inst, exec, addr, |a| read_le(smem, a as usize, n));
            TraceSpace::Shared
        }
        // Allocations lie above every generic window, so a generic address there is global.
        Space::Global | Space::Generic if lo >= memory::GLOBAL_BASE => {
            let g = &*c.env.gmem;
            if g.check(lo, hi + bytes - lo).is_err() {
                return false;
            }
            // An aligned element never straddles a page: one page lookup per page touched.
            let mut page = (u64::MAX, PageRef::Zeros);
            load_lanes(w, k, inst, exec, addr, |a| {
                if a / memory::PAGE != page.0 {
                    page = (a / memory::PAGE, g.page(a / memory::PAGE));
                }
                match page.1 {
                    PageRef::Bytes(p) => read_le(p, (a % memory::PAGE) as usize, n),
                    PageRef::Zeros => 0,
                    PageRef::Mixed => {
                        let mut b = [0u8; 8];
                        g.read(a, &mut b[..n]);
                        u64::from_le_bytes(b)
                    }
                }
            });
            TraceSpace::Global
        }
        _ => return false,
    };
    c.trace(space, false, false, bytes as u32, exec);
    true
}

/// Writes each element of a load to its destination register for the lanes in `exec`, as the
/// general path's `write_dst` does; `fetch(a)` reads the element's bytes at address `a`.
#[inline(always)]
fn load_lanes(w: &mut Warp, k: &Kernel, inst: &Inst, exec: u32, addr: &[u64; 32], mut fetch: impl FnMut(u64) -> u64) {
    let (ty, n, v) = mem_shape(inst);
    let signed = ty.is_signed();
    for (i, d) in elems(&inst.ops[0]).iter().enumerate().take(v) {
        let Opnd::Reg(r) = *d else { continue };
        let dmask = k.reg_mask[r as usize];
        let out = w.lanes_mut(r);
        for l in lanes(exec) {
            let raw = fetch(addr[l] + (i * n) as u64);
            let val = if signed { ty.extend(raw) } else { raw };
            out[l] = if dmask == 0 { (val != 0) as u64 } else { val & dmask };
        }
    }
}

fn load(w: &mut Warp, c: &mut Ctx<'_, '_>, inst: &Inst, exec: u32) -> Result<(), Fault> {
    if fast_load(w, c, inst, exec) {
        return Ok(());
    }
    let (ty, n, v) = mem_shape(inst);
    let space = inst.m.space();
    let dsts = elems(&inst.ops[0]);
    let mut buf = [0u8; 64];
    let mut tspace = TraceSpace::None;
    for l in lanes(exec) {
        let (addr, sp) = c.address(w, &inst.ops[1], space, l);
        c.env.trace.addr[l] = addr;
        tspace = c.access(w, sp, addr, &mut buf[..n * v], false, l)?;
        for (i, d) in dsts.iter().enumerate().take(v) {
            let mut b8 = [0u8; 8];
            b8[..n.min(8)].copy_from_slice(&buf[i * n..i * n + n.min(8)]);
            let raw = u64::from_le_bytes(b8);
            let val = if ty.is_signed() { ty.extend(raw) } else { raw };
            c.write_dst(w, d, l, val, 0);
        }
    }
    c.trace(tspace, false, false, (n * v) as u32, exec);
    Ok(())
}

/// `st` of 1-, 2-, 4- or 8-byte elements (scalar or vector) of registers or immediates, under the
/// same conditions as [`fast_load`]. Lanes are written in lane order; a global store writes each
/// run of lanes with consecutive addresses as one write. Returns false to fall back.
fn fast_store(w: &mut Warp, c: &mut Ctx<'_, '_>, inst: &Inst, exec: u32) -> bool {
    let (_, n, v) = mem_shape(inst);
    if exec == 0 || !matches!(n, 1 | 2 | 4 | 8) || !matches!(v, 1 | 2 | 4) {
        return false;
    }
    let srcs = elems(&inst.ops[1]);
    if srcs.len() < v || !srcs[..v].iter().all(|o| matches!(o, Opnd::Reg(_) | Opnd::Imm(_))) {
        return false;
    }
    let bytes = (n * v) as u64;
    let Some((lo, hi)) = lane_addresses(w, c, inst.ops.first(), exec, bytes) else { return false };
    // The bytes lane `l` stores.
    let data = |l: usize| {
        let mut b = [0u8; 32];
        for (i, s) in srcs[..v].iter().enumerate() {
            let val = match *s {
                Opnd::Reg(r) => w.reg(r, l),
                Opnd::Imm(x) => x,
                _ => unreachable!("checked above"),
            };
            b[i * n..i * n + n].copy_from_slice(&val.to_le_bytes()[..n]);
        }
        b
    };
    let (addr, bytes_us) = (&c.env.trace.addr, bytes as usize);
    let space = match inst.m.space() {
        Space::Shared => {
            let smem = &mut c.env.ctas[c.env.me].smem;
            if hi + bytes > smem.len() as u64 {
                return false;
            }
            for l in lanes(exec) {
                let a = addr[l] as usize;
                smem[a..a + bytes_us].copy_from_slice(&data(l)[..bytes_us]);
            }
            TraceSpace::Shared
        }
        // Allocations lie above every generic window, so a generic address there is global.
        Space::Global | Space::Generic if lo >= memory::GLOBAL_BASE => {
            let g = &mut *c.env.gmem;
            if g.check(lo, hi + bytes - lo).is_err() {
                return false;
            }
            let mut run = [0u8; 32 * 32];
            let (mut start, mut len) = (0u64, 0usize);
            for l in lanes(exec) {
                if len > 0 && addr[l] != start + len as u64 {
                    g.write(start, &run[..len]);
                    len = 0;
                }
                if len == 0 {
                    start = addr[l];
                }
                run[len..len + bytes_us].copy_from_slice(&data(l)[..bytes_us]);
                len += bytes_us;
            }
            g.write(start, &run[..len]);
            TraceSpace::Global
        }
        _ => return false,
    };
    c.trace(space, true, false, bytes as u32, exec);
    true
}

fn store(w: &mut Warp, c: &mut Ctx<'_, '_>, inst: &Inst, exec: u32) -> Result<(), Fault> {
    if fast_store(w, c, inst, exec) {
        return Ok(());
    }
    let (_, n, v) = mem_shape(inst);
    let space = inst.m.space();
    let srcs = elems(&inst.ops[1]);
    let mut buf = [0u8; 64];
    let mut tspace = TraceSpace::None;
    for l in lanes(exec) {
        let (addr, sp) = c.address(w, &inst.ops[0], space, l);
        c.env.trace.addr[l] = addr;
        for (i, s) in srcs.iter().enumerate().take(v) {
            let val = c.read(w, s, l);
            buf[i * n..i * n + n.min(8)].copy_from_slice(&val.to_le_bytes()[..n.min(8)]);
        }
        tspace = c.access(w, sp, addr, &mut buf[..n * v], true, l)?;
    }
    c.trace(tspace, true, false, (n * v) as u32, exec);
    Ok(())
}

fn atomic(w: &mut Warp, c: &mut Ctx<'_, '_>, inst: &Inst, a: AtomOp, exec: u32) -> Result<(), Fault> {
    let (ty, n, _) = mem_shape(inst);
    let is_red = matches!(inst.op, Op::Red(_));
    let (addr_op, first_src) = if is_red { (0, 1) } else { (1, 2) };
    let space = inst.m.space();
    let noftz = inst.m.has(flag::NOFTZ);
    // A SASS generic `ATOM P, d, …` also writes whether it was performed (else ptxas's code
    // falls back to a shared-memory loop); the simulator performs it in any space: true.
    let (value_dst, performed) = match inst.ops.first() {
        Some(Opnd::Vec(v)) if !is_red && v.len() == 2 => (&v[0], Some(&v[1])),
        Some(o) => (o, None),
        None => (&Opnd::Sink, None),
    };
    if let Some(p) = performed {
        for l in lanes(exec) {
            c.write_dst(w, p, l, 1, 0);
        }
    }
    let (dst, dst_hi) = match value_dst {
        Opnd::Reg(r) if !is_red => (Some(*r), None),
        Opnd::Pair(lo, hi) if !is_red => (Some(*lo), Some(*hi)),
        _ => (None, None),
    };
    let mut tspace = TraceSpace::None;
    // Lanes are serialized in lane order (the hardware order is unspecified; this one is fixed).
    for l in lanes(exec) {
        let (addr, sp) = c.address(w, &inst.ops[addr_op], space, l);
        c.env.trace.addr[l] = addr;
        let b = inst.ops.get(first_src).map_or(0, |o| c.read(w, o, l));
        let cval = inst.ops.get(first_src + 1).map_or(0, |o| c.read(w, o, l));
        let global = match sp {
            Space::Global => true,
            Space::Generic => window_of(addr) == Window::Global,
            _ => false,
        };
        let old = if global {
            if addr % n as u64 != 0 {
                return Err(c.fault(w, l, FaultKind::Misaligned { space: "global", addr, size: n as u32 }));
            }
            if let Err(near) = c.env.gmem.check(addr, n as u64) {
                return Err(c.fault(w, l, FaultKind::OutOfBounds { space: "global", write: true, addr, size: n as u32, detail: near }));
            }
            tspace = TraceSpace::Global;
            let op = GlobalAtomic { addr, op: a, ty, b, c: cval, noftz, lane: l as u8, dst, dst_hi };
            c.env.gmem.atomic(op).map_err(|e| c.unsupported(w, l, e))?
        } else {
            let mut buf = [0u8; 8];
            c.access(w, sp, addr, &mut buf[..n], false, l)?;
            let old = u64::from_le_bytes(buf);
            let new = eval::atom(a, ty, old, b, cval, noftz).map_err(|e| c.unsupported(w, l, e))?;
            tspace = c.access(w, sp, addr, &mut new.to_le_bytes()[..n], true, l)?;
            Some(a.returned(ty, old, b))
        };
        if let (Some(old), false) = (old, is_red) {
            let old = if ty.is_signed() { ty.extend(old) } else { old };
            c.write_dst(w, value_dst, l, old, 0);
        }
    }
    c.trace(tspace, true, true, n as u32, exec);
    Ok(())
}

fn branch(w: &mut Warp, c: &Ctx<'_, '_>, inst: &Inst, active: u32, taken: u32) -> Result<Step, Fault> {
    let Some(Opnd::Label(target)) = inst.ops.first() else {
        return Err(c.fault(w, 0, FaultKind::Unsupported("`bra` without a label target".into())));
    };
    let pc = c.pc;
    // SASS `BRA P2, target`: lanes whose guard and second predicate both hold.
    let taken = match inst.ops.get(1) {
        Some(p) => lanes(taken).filter(|&l| c.read(w, p, l) != 0).fold(0, |m, l| m | 1 << l),
        None => taken,
    };
    // `BRA.U.ANY`: the warp goes together when any lane's guard holds.
    let taken = if inst.m.has(flag::ANY) && taken != 0 { active } else { taken };
    if taken == active {
        w.jump(*target);
    } else if taken == 0 {
        w.jump(pc + 1);
    } else {
        w.diverge(taken, *target, pc + 1, c.env.k.prog.reconv[pc as usize]);
    }
    Ok(Step::Continue)
}

fn branch_indexed(w: &mut Warp, c: &Ctx<'_, '_>, inst: &Inst, active: u32, exec: u32) -> Result<Step, Fault> {
    let table = match inst.ops.get(1) {
        Some(Opnd::Table(t)) => &c.env.k.prog.tables[*t as usize],
        _ => return Err(c.fault(w, 0, FaultKind::Unsupported("`brx.idx` without a target table".into()))),
    };
    let pc = c.pc;
    if exec != active {
        return Err(c.fault(w, 0, FaultKind::Unsupported("predicated `brx.idx`".into())));
    }
    let mut target_of = [0u32; 32];
    for l in lanes(exec) {
        let i = c.read(w, &inst.ops[0], l) as usize;
        target_of[l] = *table.get(i).ok_or_else(|| {
            c.fault(w, l, FaultKind::Unsupported(format!("`brx.idx` index {i} beyond its {}-entry table", table.len())))
        })?;
    }
    let first = target_of[exec.trailing_zeros() as usize];
    let same: u32 = lanes(exec).filter(|&l| target_of[l] == first).fold(0, |m, l| m | 1 << l);
    if same == exec {
        w.jump(first);
    } else {
        // Peel off the lanes going to `first`; the rest re-execute the brx.
        w.diverge(same, first, pc, c.env.k.prog.reconv[pc as usize]);
    }
    Ok(Step::Continue)
}

fn call(w: &mut Warp, c: &mut Ctx<'_, '_>, inst: &Inst, exec: u32) -> Result<Step, Fault> {
    let k = c.env.k;
    let pc = c.pc;
    let (rets, rest) = match inst.ops.first() {
        Some(Opnd::List(r)) => (r.as_slice(), &inst.ops[1..]),
        _ => (&[][..], &inst.ops[..]),
    };
    let args: &[Opnd] = match rest.get(1) {
        Some(Opnd::List(a)) => a,
        _ => &[],
    };
    let lane0 = exec.trailing_zeros() as usize;
    if exec == 0 {
        w.jump(pc + 1);
        return Ok(Step::Continue);
    }
    let func_of = |v: u64| -> Option<u32> {
        let f = v.checked_sub(memory::FUNC_BASE)? / 16;
        (f < k.prog.funcs.len() as u64).then_some(f as u32)
    };
    let mut target = [0u32; 32];
    for l in lanes(exec) {
        target[l] = match rest.first() {
            Some(Opnd::Func(f)) => *f,
            Some(o) => func_of(c.read(w, o, l))
                .ok_or_else(|| c.fault(w, l, FaultKind::Unsupported(format!("indirect call to {:#x}, not a function", c.read(w, o, l)))))?,
            None => return Err(c.fault(w, l, FaultKind::Unsupported("`call` without a target".into()))),
        };
    }
    let f = target[lane0];
    let same: u32 = lanes(exec).filter(|&l| target[l] == f).fold(0, |m, l| m | 1 << l);
    if same != exec {
        w.diverge(same, pc, pc, pc + 1);
        return Ok(Step::Continue);
    }
    let callee = &k.prog.funcs[f as usize];
    if callee.extern_decl {
        // External functions: `vprintf` prints into the kernel's sink and returns 0; anything
        // else is unknown.
        if callee.name != "vprintf" {
            return Err(c.fault(w, lane0, FaultKind::Unsupported(format!("call to external function `{}`", callee.name))));
        }
        let mut text = Vec::new();
        for l in lanes(exec) {
            let pointer = |o: Option<&Opnd>, c: &mut Ctx<'_, '_>, w: &mut Warp| -> u64 {
                match o {
                    Some(Opnd::SymAddr(s, _)) if k.prog.symbols[*s as usize].kind == SymKind::Frame => {
                        let mut b = [0u8; 8];
                        let a = c.sym_addr(w, *s);
                        c.access(w, Space::Local, a, &mut b, false, l).map_or(0, |_| u64::from_le_bytes(b))
                    }
                    Some(o) => c.read(w, o, l),
                    None => 0,
                }
            };
            let (fmt, buf) = (pointer(args.first(), c, w), pointer(args.get(1), c, w));
            let mut read = |a: u64, out: &mut [u8]| c.access(w, Space::Generic, a, out, false, l).is_ok();
            text.extend(crate::printf::format(fmt, buf, &mut read));
        }
        k.printf.push(c.env.ctas[c.env.me].linear, w.slot, &text, exec.count_ones());
        for r in rets {
            if let Opnd::SymAddr(s, _) = r {
                let a = c.sym_addr(w, *s);
                for l in lanes(exec) {
                    let mut z = [0u8; 4];
                    c.access(w, Space::Local, a, &mut z, true, l)?;
                }
            }
        }
        w.jump(pc + 1);
        return Ok(Step::Continue);
    }
    let caller = k.prog.func_of(pc);
    let caller_size = k.prog.funcs[caller as usize].frame_size;
    let base = (w.frame_base + caller_size).div_ceil(16) * 16;
    let need = base + callee.frame_size;
    if need > k.local_limit {
        return Err(c.fault(w, lane0, FaultKind::StackOverflow { bytes: need }));
    }
    w.ensure_local(need);
    // Arguments: caller `.param` slots → callee formals.
    for (i, a) in args.iter().enumerate() {
        let Some(&formal) = callee.params.get(i) else { break };
        let fsym = &k.prog.symbols[formal as usize];
        let dst = base + k.sym_addr[formal as usize];
        let n = fsym.size as usize;
        for l in lanes(exec) {
            match a {
                Opnd::SymAddr(s, _) if k.prog.symbols[*s as usize].kind == SymKind::Frame => {
                    let src = (w.frame_base + k.sym_addr[*s as usize]) as usize;
                    let lm = &mut w.local[l];
                    if src + n <= lm.len() {
                        lm.copy_within(src..src + n, dst as usize);
                    }
                }
                other => {
                    let v = c.read(w, other, l);
                    let lm = &mut w.local[l];
                    lm[dst as usize..dst as usize + n.min(8)].copy_from_slice(&v.to_le_bytes()[..n.min(8)]);
                }
            }
        }
    }
    let recursive = caller == f || w.calls.iter().any(|fr| fr.func == f);
    let saved_regs = recursive.then(|| w.regs[callee.regs.0 as usize * 32..callee.regs.1 as usize * 32].to_vec());
    let ret_syms = rets.iter().filter_map(|r| if let Opnd::SymAddr(s, _) = r { Some(*s) } else { None }).collect();
    w.jump(pc + 1);
    let depth = w.stack.len();
    w.calls.push(CallFrame { func: f, depth, caller_base: w.frame_base, ret_syms, saved_regs });
    w.stack.push(SimtEntry { pc: callee.start, rpc: RECONV_EXIT, mask: exec, hold: false });
    w.frame_base = base;
    Ok(Step::Continue)
}

/// `ret` / `exit`: lanes leave the current function (or the kernel). Lanes that do not execute
/// (guard false) continue after the instruction.
fn finish(w: &mut Warp, inst: &Inst, exec: u32) -> Step {
    let pc = w.pc();
    let depth = if inst.op == Op::Ret { w.calls.last().map_or(0, |f| f.depth) } else { 0 };
    w.jump(pc + 1);
    for e in &mut w.stack[depth..] {
        e.mask &= !exec;
    }
    if depth == 0 && exec != 0 {
        w.exited |= exec;
        return Step::Exited { lanes: exec, done: false };
    }
    Step::Continue
}

fn barrier(w: &mut Warp, c: &Ctx<'_, '_>, inst: &Inst, b: BarOp, active: u32, exec: u32) -> Result<Step, Fault> {
    let red = matches!(b, BarOp::RedPopc | BarOp::RedAnd | BarOp::RedOr);
    // Operands: [d,] a [, b] [, {!}c]
    let srcs = if red { &inst.ops[1..] } else { &inst.ops[..] };
    let lane0 = active.trailing_zeros() as usize;
    let id = srcs.first().map_or(0, |o| c.read(w, o, lane0)) as u32;
    if id >= 16 {
        return Err(c.fault(w, lane0, FaultKind::Unsupported(format!("barrier id {id} is beyond the 16 named barriers"))));
    }
    let (count_op, pred_op) = if red {
        match srcs.len() {
            3 => (srcs.get(1), srcs.get(2)),
            _ => (None, srcs.get(1)),
        }
    } else {
        (srcs.get(1), None)
    };
    let count = count_op.map(|o| c.read(w, o, lane0) as u32);
    let red_contrib = pred_op.map(|p| {
        let t = lanes(exec).filter(|&l| c.read(w, p, l) != 0).count() as u32;
        (b, t, exec.count_ones())
    });
    if red {
        if let Some(Opnd::Reg(d)) = inst.ops.first() {
            w.pending_red = Some((*d, b));
        }
    }
    Ok(Step::Barrier(Arrival {
        id,
        count,
        blocking: b != BarOp::Arrive,
        threads: (w.valid & !w.exited).count_ones(),
        red: red_contrib,
        warp: w.slot,
    }))
}

fn shfl(w: &mut Warp, c: &Ctx<'_, '_>, inst: &Inst, mode: ShflMode, exec: u32) -> Result<(), Fault> {
    // shfl.sync.mode.b32 d[|p], a, b, c, membermask
    let (a, b, cc) = (&inst.ops[1], &inst.ops[2], &inst.ops[3]);
    let mut vals = [0u64; 32];
    for (l, v) in vals.iter_mut().enumerate() {
        *v = c.read(w, a, l);
    }
    let mut res = [(0u64, 0u64); 32];
    for l in lanes(exec) {
        let bval = (c.read(w, b, l) & 0x1F) as i32;
        let cv = c.read(w, cc, l);
        let cval = (cv & 0x1F) as i32;
        let segmask = ((cv >> 8) & 0x1F) as i32;
        let lane = l as i32;
        let max_lane = (lane & segmask) | (cval & !segmask);
        let min_lane = lane & segmask;
        let (j, ok) = match mode {
            ShflMode::Up => (lane - bval, lane - bval >= max_lane),
            ShflMode::Down => (lane + bval, lane + bval <= max_lane),
            ShflMode::Bfly => (lane ^ bval, (lane ^ bval) <= max_lane),
            ShflMode::Idx => {
                let j = min_lane | (bval & !segmask);
                (j, j <= max_lane)
            }
        };
        let j = if ok && (0..32).contains(&j) { j as usize } else { l };
        res[l] = (vals[j], ok as u64);
    }
    for l in lanes(exec) {
        c.write_dst(w, &inst.ops[0], l, res[l].0, res[l].1);
    }
    Ok(())
}

fn vote(w: &mut Warp, c: &Ctx<'_, '_>, inst: &Inst, mode: VoteMode, exec: u32) -> Result<(), Fault> {
    let p = &inst.ops[1];
    let ballot: u32 = lanes(exec).filter(|&l| c.read(w, p, l) != 0).fold(0, |m, l| m | 1 << l);
    let v = match mode {
        VoteMode::All => (ballot == exec) as u64,
        VoteMode::Any => (ballot != 0) as u64,
        VoteMode::Uni => (ballot == 0 || ballot == exec) as u64,
        VoteMode::Ballot => ballot as u64,
    };
    for l in lanes(exec) {
        c.write_dst(w, &inst.ops[0], l, v, 0);
    }
    Ok(())
}

fn match_sync(w: &mut Warp, c: &Ctx<'_, '_>, inst: &Inst, all: bool, exec: u32) -> Result<(), Fault> {
    let a = &inst.ops[1];
    let mut vals = [0u64; 32];
    for l in lanes(exec) {
        vals[l] = c.read(w, a, l);
    }
    let first = vals[exec.trailing_zeros() as usize & 31];
    let all_same = lanes(exec).all(|l| vals[l] == first);
    for l in lanes(exec) {
        let (d, p) = if all {
            (if all_same { exec as u64 } else { 0 }, all_same as u64)
        } else {
            (lanes(exec).filter(|&m| vals[m] == vals[l]).fold(0u64, |acc, m| acc | 1 << m), 0)
        };
        c.write_dst(w, &inst.ops[0], l, d, p);
    }
    Ok(())
}

fn redux(w: &mut Warp, c: &Ctx<'_, '_>, inst: &Inst, r: AtomOp, exec: u32) -> Result<(), Fault> {
    let ty = inst.m.ty();
    let a = &inst.ops[1];
    let mut acc: Option<u64> = None;
    for l in lanes(exec) {
        let v = c.read(w, a, l) & 0xFFFF_FFFF;
        acc = Some(match acc {
            None => v,
            Some(x) => match r {
                AtomOp::Add => (x + v) & 0xFFFF_FFFF,
                AtomOp::And => x & v,
                AtomOp::Or => x | v,
                AtomOp::Xor => x ^ v,
                AtomOp::Min | AtomOp::Max => warpsim_isa::int::minmax(ty, r == AtomOp::Max, x, v, false),
                _ => return Err(c.fault(w, l, FaultKind::Unsupported(format!("redux operation {r:?}")))),
            },
        });
    }
    for l in lanes(exec) {
        c.write_dst(w, &inst.ops[0], l, acc.unwrap_or(0), 0);
    }
    Ok(())
}

fn address_op(w: &mut Warp, c: &Ctx<'_, '_>, inst: &Inst, exec: u32) -> Result<(), Fault> {
    let sp = inst.m.space();
    let to = inst.m.has(flag::TO);
    let me_rank = c.env.ctas[c.env.me].rank as u64;
    let window = |s: Space| match s {
        Space::Shared | Space::SharedCluster => Some(memory::SHARED_WINDOW),
        Space::Local => Some(memory::LOCAL_WINDOW),
        Space::Param => Some(memory::PARAM_WINDOW),
        _ => None,
    };
    for l in lanes(exec) {
        let a = c.read(w, &inst.ops[1], l);
        let v = match inst.op {
            Op::Cvta => match window(sp) {
                Some(base) if to => a.wrapping_sub(base),
                Some(base) => base.wrapping_add(a),
                None => a,
            },
            Op::Isspacep => {
                let win = window_of(a);
                (match sp {
                    Space::Global => win == Window::Global,
                    Space::Shared | Space::SharedCluster => win == Window::Shared,
                    Space::Local => win == Window::Local,
                    Space::Param => win == Window::Param,
                    Space::Const => win == Window::Global,
                    _ => false,
                }) as u64
            }
            Op::Mapa => {
                let rank = c.read(w, &inst.ops[2], l);
                let generic = sp == Space::Generic;
                let off = if generic { a.wrapping_sub(memory::SHARED_WINDOW) } else { a } & ((1 << CLUSTER_RANK_SHIFT) - 1);
                let cl = ((rank + 1) << CLUSTER_RANK_SHIFT) | off;
                if generic {
                    memory::SHARED_WINDOW + cl
                } else {
                    cl
                }
            }
            _ => {
                // getctarank
                let off = if sp == Space::Generic { a.wrapping_sub(memory::SHARED_WINDOW) } else { a };
                match off >> CLUSTER_RANK_SHIFT {
                    0 => me_rank,
                    r => r - 1,
                }
            }
        };
        c.write_dst(w, &inst.ops[0], l, v, 0);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::globaltimer_ns;

    #[test]
    fn globaltimer_counts_nanoseconds_of_the_presets_clock() {
        for c in [0u64, 1, 1979, 1980, 123_456_789] {
            assert_eq!(globaltimer_ns(c, 1980.0), c * 1000 / 1980, "the H200's clock as before");
        }
        assert_eq!(globaltimer_ns(1530, 1530.0), 1000);
        assert_eq!(globaltimer_ns(1_410_000, 1410.0), 1_000_000);
        assert_eq!(globaltimer_ns(u64::MAX, 1.0), u64::MAX);
    }
}
