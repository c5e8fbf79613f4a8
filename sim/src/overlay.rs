//! An SM's view of global memory during one time window of the parallel engine.
//!
//! Reads see the device memory as it was at the window's start plus this SM's own writes (kept
//! in copy-on-write pages); writes and atomics are logged as effects in issue order. At the end
//! of the window the engine applies every SM's effects to the device memory in (cycle, SM,
//! issue order) — the same order whatever the number of threads — and returns atomic results to
//! the issuing warps. Other SMs' writes become visible at the next window, which is no earlier
//! than hardware makes them visible (a window is shorter than any cross-SM latency).

use warpsim_isa::eval::Unsupported;

use crate::exec::{nearest_allocation, GlobalAtomic, GlobalMem};
use crate::memory::{DeviceMemory, PageMap, PAGE};

/// A global-memory side effect of one SM.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Effect {
    /// `len` bytes at `addr`, stored in the SM's arena at `off`.
    Write { cycle: u64, addr: u64, off: u32, len: u8 },
    /// An atomic whose result goes to warp slot `warp`.
    Atomic { cycle: u64, warp: u32, a: GlobalAtomic },
}

impl Effect {
    pub fn cycle(&self) -> u64 {
        match self {
            Effect::Write { cycle, .. } | Effect::Atomic { cycle, .. } => *cycle,
        }
    }
}

/// The per-SM buffers that outlive a window.
#[derive(Default)]
pub struct Log {
    pub pages: PageMap,
    pub effects: Vec<Effect>,
    pub arena: Vec<u8>,
    /// Page buffers of past windows, reused for the next copies.
    spare: Vec<Box<[u8; PAGE as usize]>>,
}

impl Log {
    pub fn clear(&mut self) {
        if !self.pages.is_empty() {
            self.spare.extend(self.pages.drain().map(|(_, p)| p));
        }
        self.effects.clear();
        self.arena.clear();
    }
}

/// The view handed to one warp instruction.
pub struct View<'a> {
    pub base: &'a DeviceMemory,
    pub log: &'a mut Log,
    pub cycle: u64,
    pub warp: u32,
}

impl GlobalMem for View<'_> {
    fn check(&self, addr: u64, len: u64) -> Result<(), String> {
        self.base.check(addr, len, 1).map_err(|_| nearest_allocation(self.base, addr))
    }

    fn read(&self, addr: u64, buf: &mut [u8]) {
        let mut done = 0;
        while done < buf.len() {
            let a = addr + done as u64;
            let (page, off) = (a / PAGE, (a % PAGE) as usize);
            let n = (PAGE as usize - off).min(buf.len() - done);
            match self.log.pages.get(&page) {
                Some(p) => buf[done..done + n].copy_from_slice(&p[off..off + n]),
                None => self.base.read(a, &mut buf[done..done + n]),
            }
            done += n;
        }
    }

    fn page(&self, page: u64) -> Option<&[u8; PAGE as usize]> {
        self.log.pages.get(&page).map(|p| &**p).or_else(|| self.base.page(page))
    }

    fn write(&mut self, addr: u64, data: &[u8]) {
        let mut done = 0;
        while done < data.len() {
            let a = addr + done as u64;
            let (page, off) = (a / PAGE, (a % PAGE) as usize);
            let n = (PAGE as usize - off).min(data.len() - done);
            let base = self.base;
            let Log { pages, spare, .. } = &mut *self.log;
            let p = pages.entry(page).or_insert_with(|| {
                let mut b = spare.pop().unwrap_or_else(|| Box::new([0u8; PAGE as usize]));
                base.read(page * PAGE, &mut b[..]);
                b
            });
            p[off..off + n].copy_from_slice(&data[done..done + n]);
            done += n;
        }
        for (i, chunk) in data.chunks(255).enumerate() {
            let off = self.log.arena.len() as u32;
            self.log.arena.extend_from_slice(chunk);
            self.log.effects.push(Effect::Write { cycle: self.cycle, addr: addr + 255 * i as u64, off, len: chunk.len() as u8 });
        }
    }

    fn atomic(&mut self, a: GlobalAtomic) -> Result<Option<u64>, Unsupported> {
        // Check the operation is meaningful now, so errors surface at the faulting instruction.
        warpsim_isa::eval::atom(a.op, a.ty, 0, a.b, a.c, a.noftz)?;
        self.log.effects.push(Effect::Atomic { cycle: self.cycle, warp: self.warp, a });
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn own_writes_visible_base_untouched_until_applied() {
        let mut mem = DeviceMemory::new();
        let a = mem.alloc("x", 8192, 256);
        mem.write_uint(a, 4, 7);
        let mut log = Log::default();
        let mut v = View { base: &mem, log: &mut log, cycle: 5, warp: 0 };
        GlobalMem::write(&mut v, a + 4, &[1, 2, 3, 4]);
        let mut b = [0u8; 8];
        GlobalMem::read(&v, a, &mut b);
        assert_eq!(b, [7, 0, 0, 0, 1, 2, 3, 4]);
        assert_eq!(mem.read_uint(a + 4, 4), 0);
        assert_eq!(log.effects.len(), 1);
        assert!(matches!(log.effects[0], Effect::Write { cycle: 5, len: 4, .. }));
    }
}
