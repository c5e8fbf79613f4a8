//! Device memory: a sparse, paged 64-bit address space with 256-byte aligned allocations.
//!
//! Pages are allocated on first write, so a 512 MB pointer-chase buffer costs only the pages its
//! chain touches. A buffer's initial contents need not be copied in at all: [`DeviceMemory::back`]
//! lends the memory the input bytes (shared, read-only), which serve the whole pages they cover
//! until a write copies that one page; host memory is then the input once plus the pages the
//! kernel writes. Every access is checked against the allocation list: an access outside any
//! allocation is a fault (returned as a value), never a panic. The generic address space also
//! has windows for shared and local memory (their base addresses are constants here so `cvta`,
//! `isspacep` and generic loads agree with the rest of the simulator).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;

/// Page size of the sparse store.
pub const PAGE: u64 = 4096;
/// First global allocation (the value looks like a real CUDA device pointer).
pub const GLOBAL_BASE: u64 = 0x7f00_0000_0000;
/// Generic-address window of shared memory (`cvta.shared`): `SHARED_WINDOW + shared::cluster address`.
pub const SHARED_WINDOW: u64 = 0x7e00_0000_0000;
/// Size of the shared window (rank windows of a cluster each take `1 << CLUSTER_RANK_SHIFT`).
pub const SHARED_WINDOW_SIZE: u64 = 1 << 32;
/// Generic-address window of per-thread local memory (`cvta.local`).
pub const LOCAL_WINDOW: u64 = 0x7d00_0000_0000;
pub const LOCAL_WINDOW_SIZE: u64 = 1 << 32;
/// Generic addresses of device functions (function pointers): `FUNC_BASE + index * 16`.
pub const FUNC_BASE: u64 = 0x7c00_0000_0000;
/// Kernel parameter window (`cvta.param`, generic access to by-value struct parameters).
pub const PARAM_WINDOW: u64 = 0x7b00_0000_0000;
/// A `shared::cluster` address names CTA rank `r` as `(r + 1) << CLUSTER_RANK_SHIFT | offset`;
/// plain offsets below `1 << CLUSTER_RANK_SHIFT` name the executing CTA.
pub const CLUSTER_RANK_SHIFT: u32 = 24;

/// Which window a generic address falls in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Window {
    Global,
    Shared,
    Local,
    Param,
}

/// Classifies a generic address.
pub fn window_of(addr: u64) -> Window {
    if (SHARED_WINDOW..SHARED_WINDOW + SHARED_WINDOW_SIZE).contains(&addr) {
        Window::Shared
    } else if (LOCAL_WINDOW..LOCAL_WINDOW + LOCAL_WINDOW_SIZE).contains(&addr) {
        Window::Local
    } else if (PARAM_WINDOW..PARAM_WINDOW + (1 << 32)).contains(&addr) {
        Window::Param
    } else {
        Window::Global
    }
}

/// A fast hasher for page numbers (multiplicative; page numbers are already well spread).
#[derive(Default)]
pub struct PageHasher(u64);

impl Hasher for PageHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x100_0000_01b3);
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = v.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

pub type PageMap = HashMap<u64, Box<[u8; PAGE as usize]>, BuildHasherDefault<PageHasher>>;

/// One allocation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Allocation {
    pub name: String,
    pub base: u64,
    pub size: u64,
}

/// Why an access failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AccessError {
    /// No allocation covers the whole access.
    OutOfBounds,
    /// The address is not a multiple of the access size.
    Misaligned,
}

/// Read-only bytes behind whole pages not written yet: pages `first .. first + pages` read
/// `bytes[offset ..]`.
struct Backing {
    first: u64,
    pages: u64,
    offset: usize,
    bytes: Arc<Vec<u8>>,
}

/// The sparse global memory of the device.
#[derive(Default)]
pub struct DeviceMemory {
    pages: PageMap,
    /// Sorted by `first`, non-overlapping; a page in `pages` shadows its backing.
    backing: Vec<Backing>,
    allocs: Vec<Allocation>,
    next: u64,
    /// Writes that changed memory (the watchdog's sign of progress).
    changes: u64,
}

impl DeviceMemory {
    pub fn new() -> Self {
        DeviceMemory { pages: PageMap::default(), backing: Vec::new(), allocs: Vec::new(), next: GLOBAL_BASE, changes: 0 }
    }

    /// Allocates `size` bytes (at least one byte is reserved), 256-byte aligned like cudaMalloc.
    pub fn alloc(&mut self, name: &str, size: u64, align: u64) -> u64 {
        let align = align.max(256);
        let base = self.next.div_ceil(align) * align;
        self.allocs.push(Allocation { name: name.to_string(), base, size });
        self.next = base + size.max(1);
        base
    }

    pub fn allocations(&self) -> &[Allocation] {
        &self.allocs
    }

    /// Checks that `[addr, addr+len)` lies inside one allocation and is aligned to `align`.
    pub fn check(&self, addr: u64, len: u64, align: u64) -> Result<(), AccessError> {
        if align > 1 && !addr.is_multiple_of(align) {
            return Err(AccessError::Misaligned);
        }
        let i = self.allocs.partition_point(|a| a.base <= addr);
        if i == 0 {
            return Err(AccessError::OutOfBounds);
        }
        let a = &self.allocs[i - 1];
        if addr.checked_add(len).is_some_and(|end| end <= a.base + a.size) {
            Ok(())
        } else {
            Err(AccessError::OutOfBounds)
        }
    }

    /// The allocation containing `addr`, if any.
    pub fn allocation_of(&self, addr: u64) -> Option<&Allocation> {
        let i = self.allocs.partition_point(|a| a.base <= addr);
        self.allocs.get(i.checked_sub(1)?).filter(|a| addr < a.base + a.size.max(1))
    }

    /// Reads bytes without bounds checks (unwritten memory reads as zero).
    pub fn read(&self, addr: u64, out: &mut [u8]) {
        let mut done = 0;
        while done < out.len() {
            let a = addr + done as u64;
            let (page, off) = (a / PAGE, (a % PAGE) as usize);
            let n = (PAGE as usize - off).min(out.len() - done);
            match self.page(page) {
                Some(p) => out[done..done + n].copy_from_slice(&p[off..off + n]),
                None => out[done..done + n].fill(0),
            }
            done += n;
        }
    }

    /// Page `page` (the bytes from `page * PAGE`), `None` when neither written nor backed (it
    /// reads as zeros).
    #[inline]
    pub fn page(&self, page: u64) -> Option<&[u8; PAGE as usize]> {
        match self.pages.get(&page) {
            Some(p) => Some(&**p),
            None => backed(&self.backing, page),
        }
    }

    /// Puts `bytes` at `addr` (inside an allocation), sharing them instead of copying where they
    /// cover whole pages: the partial pages at either end are written, the pages between read
    /// from `bytes` until written. Memory there must not have been written before.
    pub fn back(&mut self, addr: u64, bytes: Arc<Vec<u8>>) {
        let end = addr + bytes.len() as u64;
        let (first, last) = (addr.div_ceil(PAGE), end / PAGE);
        if first >= last {
            return self.write(addr, &bytes);
        }
        let head = ((first * PAGE - addr) as usize).min(bytes.len());
        let tail = (last * PAGE - addr) as usize;
        self.write(addr, &bytes[..head]);
        self.write(last * PAGE, &bytes[tail..]);
        let at = self.backing.partition_point(|b| b.first < first);
        self.backing.insert(at, Backing { first, pages: last - first, offset: head, bytes });
    }

    /// Writes bytes without bounds checks.
    pub fn write(&mut self, addr: u64, data: &[u8]) {
        let mut done = 0;
        while done < data.len() {
            let a = addr + done as u64;
            let (page, off) = (a / PAGE, (a % PAGE) as usize);
            let n = (PAGE as usize - off).min(data.len() - done);
            let backing = &self.backing;
            let p = self.pages.entry(page).or_insert_with(|| Box::new(backed(backing, page).copied().unwrap_or([0u8; PAGE as usize])));
            if p[off..off + n] != data[done..done + n] {
                p[off..off + n].copy_from_slice(&data[done..done + n]);
                self.changes += 1;
            }
            done += n;
        }
    }

    /// Reads a little-endian value of `n ≤ 8` bytes.
    pub fn read_uint(&self, addr: u64, n: usize) -> u64 {
        let mut b = [0u8; 8];
        self.read(addr, &mut b[..n]);
        u64::from_le_bytes(b)
    }

    pub fn write_uint(&mut self, addr: u64, n: usize, v: u64) {
        self.write(addr, &v.to_le_bytes()[..n]);
    }

    /// How many writes changed memory so far (a write of the bytes already there does not).
    pub fn changes(&self) -> u64 {
        self.changes
    }

    /// Bytes of host memory held by pages (backing bytes are the lender's).
    pub fn resident_bytes(&self) -> u64 {
        self.pages.len() as u64 * PAGE
    }
}

/// The backed bytes of `page`, if a backing covers it.
#[inline]
fn backed(backing: &[Backing], page: u64) -> Option<&[u8; PAGE as usize]> {
    if backing.is_empty() {
        return None;
    }
    let b = &backing[backing.partition_point(|b| b.first <= page).checked_sub(1)?];
    if page - b.first >= b.pages {
        return None;
    }
    let off = b.offset + ((page - b.first) * PAGE) as usize;
    b.bytes.get(off..off + PAGE as usize)?.try_into().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sparse_pages_and_bounds() {
        let mut m = DeviceMemory::new();
        let a = m.alloc("a", 512 << 20, 256);
        let b = m.alloc("b", 10, 256);
        assert_eq!(a % 256, 0);
        assert_eq!(b % 256, 0);
        assert!(b >= a + (512 << 20));
        m.write_uint(a + (300 << 20), 4, 0xDEAD_BEEF);
        assert_eq!(m.read_uint(a + (300 << 20), 4), 0xDEAD_BEEF);
        assert_eq!(m.read_uint(a + 8, 8), 0);
        assert_eq!(m.resident_bytes(), PAGE);
        assert_eq!(m.check(b + 8, 2, 2), Ok(()));
        assert_eq!(m.check(b + 8, 4, 4), Err(AccessError::OutOfBounds));
        assert_eq!(m.check(b + 1, 4, 4), Err(AccessError::Misaligned));
        assert_eq!(m.check(GLOBAL_BASE - 8, 4, 4), Err(AccessError::OutOfBounds));
        assert_eq!(m.allocation_of(b + 3).map(|x| x.name.as_str()), Some("b"));
    }

    #[test]
    fn accesses_straddle_pages() {
        let mut m = DeviceMemory::new();
        let a = m.alloc("a", 3 * PAGE, 256);
        let data: Vec<u8> = (0..100).collect();
        m.write(a + PAGE - 50, &data);
        let mut back = vec![0u8; 100];
        m.read(a + PAGE - 50, &mut back);
        assert_eq!(back, data);
    }

    #[test]
    fn backed_pages_are_shared_until_written() {
        let mut m = DeviceMemory::new();
        let _ = m.alloc("pad", 100, 256);
        let a = m.alloc("a", 5 * PAGE, 256);
        assert_ne!(a % PAGE, 0, "the test wants a buffer that starts inside a page");
        let data: Arc<Vec<u8>> = Arc::new((0..5 * PAGE).map(|i| (i * 7 % 251) as u8 + 1).collect());
        m.back(a, Arc::clone(&data));
        // Only the partial first and last pages are copied; the four whole pages are lent.
        assert_eq!(m.resident_bytes(), 2 * PAGE);
        let mut back = vec![0u8; data.len()];
        m.read(a, &mut back);
        assert_eq!(back, *data);
        let whole = a.div_ceil(PAGE);
        assert_eq!(m.page(whole + 1).map(|p| p[0]), Some(data[(PAGE * (whole + 1) - a) as usize]));
        // A write copies its page and leaves the lender's bytes alone.
        m.write_uint(a + 2 * PAGE, 4, 0);
        assert_eq!(m.read_uint(a + 2 * PAGE, 4), 0);
        assert_eq!(m.read_uint(a + 2 * PAGE + 4, 4), u32::from_le_bytes(data[2 * PAGE as usize + 4..][..4].try_into().unwrap()) as u64);
        assert_eq!(m.resident_bytes(), 3 * PAGE);
        // Past the backing, memory is zero again.
        assert_eq!(m.read_uint(a + 5 * PAGE + 8, 4), 0);
        // Short buffers inside one page are simply written.
        let b = m.alloc("b", 10, 256);
        m.back(b, Arc::new(vec![9; 10]));
        assert_eq!(m.read_uint(b + 6, 4), 0x0909_0909);
    }

    #[test]
    fn windows() {
        assert_eq!(window_of(SHARED_WINDOW + 5), Window::Shared);
        assert_eq!(window_of(LOCAL_WINDOW), Window::Local);
        assert_eq!(window_of(GLOBAL_BASE), Window::Global);
    }
}
