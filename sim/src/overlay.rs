//! An SM's view of global memory during one time window of the parallel engine.
//!
//! Reads see the device memory as it was at the window's start plus this SM's own writes (kept
//! in copy-on-write pages, filled from the device memory one 64-byte block at a time as writes
//! reach them, so a store copies 64 bytes, not a page); writes and atomics are logged as effects
//! in issue order. At the end of the window the engine applies every SM's effects to the device
//! memory in (cycle, SM, issue order) — the same order whatever the number of threads — and
//! returns atomic results to the issuing warps. Other SMs' writes become visible at the next
//! window, which is no earlier than hardware makes them visible (a window is shorter than any
//! cross-SM latency).

use std::collections::HashMap;
use std::hash::BuildHasherDefault;

use warpsim_isa::eval::Unsupported;

use crate::exec::{nearest_allocation, GlobalAtomic, GlobalMem, PageRef};
use crate::memory::{DeviceMemory, PageHasher, PAGE};

/// Bytes of a page filled from the device memory at once (one bit of [`CowPage::valid`]).
const BLOCK: usize = PAGE as usize / 64;

/// A page this SM wrote in the window: `bytes` hold its writes and, where `valid` has the
/// block's bit, the device memory's bytes around them; elsewhere the device memory shows.
pub struct CowPage {
    valid: u64,
    bytes: Box<[u8; PAGE as usize]>,
}

impl CowPage {
    /// Copies the bytes at `off` (within the page `base_addr` starts) into `out`, each block
    /// from this page where valid, else from `base`.
    fn read(&self, base: &DeviceMemory, base_addr: u64, off: usize, out: &mut [u8]) {
        if self.valid == u64::MAX {
            out.copy_from_slice(&self.bytes[off..off + out.len()]);
            return;
        }
        let mut done = 0;
        while done < out.len() {
            let o = off + done;
            let n = (BLOCK - o % BLOCK).min(out.len() - done);
            if self.valid >> (o / BLOCK) & 1 == 1 {
                out[done..done + n].copy_from_slice(&self.bytes[o..o + n]);
            } else {
                base.read(base_addr + o as u64, &mut out[done..done + n]);
            }
            done += n;
        }
    }

    /// Writes `data` at `off`, first filling from `base` the blocks it covers only in part.
    fn write(&mut self, base: &DeviceMemory, base_addr: u64, off: usize, data: &[u8]) {
        let end = off + data.len();
        let (first, last) = (off / BLOCK, (end - 1) / BLOCK);
        // Only the end blocks can be covered in part; marking each valid as it is filled keeps
        // a one-block write (first == last) from filling it twice.
        for b in [first, last] {
            let (lo, hi) = (b * BLOCK, (b + 1) * BLOCK);
            if self.valid >> b & 1 == 0 && (off > lo || end < hi) {
                base.read(base_addr + lo as u64, &mut self.bytes[lo..hi]);
            }
            self.valid |= 1 << b;
        }
        self.valid |= (u64::MAX >> (63 - last)) & (u64::MAX << first);
        self.bytes[off..end].copy_from_slice(data);
    }
}

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
    pub pages: HashMap<u64, CowPage, BuildHasherDefault<PageHasher>>,
    pub effects: Vec<Effect>,
    pub arena: Vec<u8>,
    /// Page buffers of past windows, reused for the next copies.
    spare: Vec<Box<[u8; PAGE as usize]>>,
}

impl Log {
    pub fn clear(&mut self) {
        if !self.pages.is_empty() {
            self.spare.extend(self.pages.drain().map(|(_, p)| p.bytes));
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
                Some(p) => p.read(self.base, page * PAGE, off, &mut buf[done..done + n]),
                None => self.base.read(a, &mut buf[done..done + n]),
            }
            done += n;
        }
    }

    fn page(&self, page: u64) -> PageRef<'_> {
        match self.log.pages.get(&page) {
            Some(p) if p.valid == u64::MAX => PageRef::Bytes(&p.bytes),
            Some(_) => PageRef::Mixed,
            None => GlobalMem::page(self.base, page),
        }
    }

    fn write(&mut self, addr: u64, data: &[u8]) {
        let mut done = 0;
        while done < data.len() {
            let a = addr + done as u64;
            let (page, off) = (a / PAGE, (a % PAGE) as usize);
            let n = (PAGE as usize - off).min(data.len() - done);
            let Log { pages, spare, .. } = &mut *self.log;
            let p = pages.entry(page).or_insert_with(|| CowPage { valid: 0, bytes: spare.pop().unwrap_or_else(|| Box::new([0u8; PAGE as usize])) });
            p.write(self.base, page * PAGE, off, &data[done..done + n]);
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

    /// Writes that cover blocks in part fill them from the device memory; the rest of the
    /// page shows the device memory until written, also to the gather's whole-page reads.
    #[test]
    fn partial_blocks_fill_from_the_device_memory() {
        let mut mem = DeviceMemory::new();
        let a = mem.alloc("x", 2 * PAGE, PAGE);
        let init: Vec<u8> = (0..2 * PAGE).map(|i| (i * 7 % 251) as u8).collect();
        mem.write(a, &init);
        let mut log = Log::default();
        let mut v = View { base: &mem, log: &mut log, cycle: 0, warp: 0 };
        let mut expect = init.clone();
        // Inside one block, across two blocks, and over whole blocks with ragged ends.
        for (off, len) in [(5usize, 3usize), (60, 10), (200, 300), (PAGE as usize - 2, 4)] {
            let data: Vec<u8> = (0..len).map(|i| 200u8.wrapping_add(i as u8)).collect();
            GlobalMem::write(&mut v, a + off as u64, &data);
            expect[off..off + len].copy_from_slice(&data);
        }
        let mut got = vec![0u8; 2 * PAGE as usize];
        GlobalMem::read(&v, a, &mut got);
        assert_eq!(got, expect);
        for i in [0usize, 63, 64, 127, 511, 512, 4000, 4095, 4096, 4097, 5000] {
            let mut b = [0u8; 1];
            GlobalMem::read(&v, a + i as u64, &mut b);
            assert_eq!(b[0], expect[i], "byte {i}");
        }
        assert!(matches!(GlobalMem::page(&v, a / PAGE), PageRef::Mixed));
        let whole: Vec<u8> = vec![9; PAGE as usize];
        GlobalMem::write(&mut v, a, &whole);
        match GlobalMem::page(&v, a / PAGE) {
            PageRef::Bytes(p) => assert_eq!(&p[..], &whole[..]),
            _ => panic!("a page written whole is one slice"),
        }
        assert_eq!(mem.read_uint(a, 4), u64::from(u32::from_le_bytes([init[0], init[1], init[2], init[3]])));
    }
}
