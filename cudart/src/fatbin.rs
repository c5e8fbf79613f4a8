//! The fatbinary nvcc embeds in a host program, read from the pointer that
//! `__cudaRegisterFatBinary` receives.
//!
//! That pointer is a wrapper (`__fatBinC_Wrapper_t`: magic `0x466243b1`, version 1, a pointer to
//! the fatbin, an unused pointer). The fatbin is a header (magic `0xBA55ED50`, version, header
//! size, size of the entries) and a run of entries, each a header of its own (kind 1 = PTX,
//! 2 = ELF cubin; header size; padded payload size; payload size; the target `sm_XY`; flags that
//! say whether the payload is compressed, with zstd or LZ4, and its size uncompressed) and its
//! payload. nvcc 13 compresses by default (zstd). The layout follows the headers nvcc writes
//! (checked against `nvcc -keep` output); every size is checked against the bytes available, so a
//! damaged or unknown container is a located error, never a read out of bounds.

use std::fmt;

/// `__fatBinC_Wrapper_t.magic`.
pub const WRAPPER_MAGIC: u32 = 0x466243b1;
/// The fatbin header's magic.
pub const FATBIN_MAGIC: u32 = 0xBA55ED50;
/// Entry kinds.
pub const KIND_PTX: u16 = 1;
pub const KIND_ELF: u16 = 2;
/// Entry flags: the payload is LZ4- or zstd-compressed.
const FLAG_LZ4: u64 = 0x2000;
const FLAG_ZSTD: u64 = 0x8000;

/// One entry of a fatbin, its payload decompressed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub kind: u16,
    /// The target: 90 for sm_90 / compute_90.
    pub arch: u32,
    pub payload: Vec<u8>,
}

impl Entry {
    /// The payload as text (PTX), without the NUL padding nvcc leaves at the end.
    pub fn text(&self) -> Result<&str, FatbinError> {
        let end = self.payload.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
        std::str::from_utf8(&self.payload[..end]).map_err(|e| FatbinError::at(0, format!("PTX entry (sm_{}) is not UTF-8: {e}", self.arch)))
    }
}

/// Why a fatbin could not be read: what, and at which byte offset of the fatbin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FatbinError {
    pub offset: usize,
    pub message: String,
}

impl FatbinError {
    fn at(offset: usize, message: String) -> FatbinError {
        FatbinError { offset, message }
    }
}

impl fmt::Display for FatbinError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "fatbinary, byte {}: {}", self.offset, self.message)
    }
}

impl std::error::Error for FatbinError {}

fn u16_at(b: &[u8], o: usize) -> Option<u16> {
    Some(u16::from_le_bytes(b.get(o..o + 2)?.try_into().ok()?))
}
fn u32_at(b: &[u8], o: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(o..o + 4)?.try_into().ok()?))
}
fn u64_at(b: &[u8], o: usize) -> Option<u64> {
    Some(u64::from_le_bytes(b.get(o..o + 8)?.try_into().ok()?))
}

/// The size of the fatbin that starts `bytes` (its header and entries), read from the header's
/// first 16 bytes.
pub fn total_size(header: &[u8]) -> Result<usize, FatbinError> {
    let magic = u32_at(header, 0).ok_or_else(|| FatbinError::at(0, "shorter than a header".into()))?;
    if magic != FATBIN_MAGIC {
        return Err(FatbinError::at(0, format!("magic {magic:#x}, not a fatbin ({FATBIN_MAGIC:#x})")));
    }
    let hsize = u16_at(header, 6).unwrap_or(0) as usize;
    let body = u64_at(header, 8).unwrap_or(0) as usize;
    hsize.checked_add(body).ok_or_else(|| FatbinError::at(8, "size overflows".into()))
}

/// Every entry of the fatbin in `bytes`, in order.
pub fn parse(bytes: &[u8]) -> Result<Vec<Entry>, FatbinError> {
    let end = total_size(bytes)?;
    if end > bytes.len() {
        return Err(FatbinError::at(8, format!("header says {end} bytes, {} given", bytes.len())));
    }
    let mut off = u16_at(bytes, 6).unwrap_or(0) as usize;
    let mut out = Vec::new();
    while off < end {
        let short = || FatbinError::at(off, "entry header runs past the end".into());
        let kind = u16_at(bytes, off).ok_or_else(short)?;
        let hsize = u32_at(bytes, off + 4).ok_or_else(short)? as usize;
        let padded = u64_at(bytes, off + 8).ok_or_else(short)? as usize;
        let size = u32_at(bytes, off + 16).ok_or_else(short)? as usize;
        let arch = u32_at(bytes, off + 28).ok_or_else(short)?;
        let flags = u64_at(bytes, off + 40).ok_or_else(short)?;
        let raw = u64_at(bytes, off + 56).unwrap_or(0) as usize;
        let start = off.checked_add(hsize).ok_or_else(short)?;
        let next = start.checked_add(padded).filter(|&n| n <= end).ok_or_else(|| FatbinError::at(off, format!("entry of {padded} bytes runs past the fatbin's {end}")))?;
        // ELF entries carry their size in the padded field only.
        let size = if size == 0 || size > padded { padded } else { size };
        let data = &bytes[start..start + size];
        let payload = if flags & FLAG_ZSTD != 0 {
            let mut d = ruzstd::decoding::StreamingDecoder::new(data).map_err(|e| FatbinError::at(start, format!("zstd entry: {e}")))?;
            let mut v = Vec::with_capacity(raw);
            std::io::Read::read_to_end(&mut d, &mut v).map_err(|e| FatbinError::at(start, format!("zstd entry: {e}")))?;
            v
        } else if flags & FLAG_LZ4 != 0 {
            lz4_flex::block::decompress(data, raw).map_err(|e| FatbinError::at(start, format!("LZ4 entry: {e}")))?
        } else {
            data.to_vec()
        };
        out.push(Entry { kind, arch, payload });
        off = next;
    }
    Ok(out)
}

/// The PTX to simulate: the entry for the highest target at most `cc` (the device's compute
/// capability as 90), else the lowest above it (a JIT would refuse it; the simulator runs it).
pub fn pick_ptx(entries: &[Entry], cc: u32) -> Option<&Entry> {
    let ptx = || entries.iter().filter(|e| e.kind == KIND_PTX);
    ptx().filter(|e| e.arch <= cc).max_by_key(|e| e.arch).or_else(|| ptx().min_by_key(|e| e.arch))
}

/// The cubin compiled for exactly `cc`, if the fatbin holds one.
pub fn pick_cubin(entries: &[Entry], cc: u32) -> Option<&Entry> {
    entries.iter().find(|e| e.kind == KIND_ELF && e.arch == cc)
}

/// `EIATTR_REGCOUNT` in a cubin's `.nv.info`: (function symbol index, registers per thread).
const EIATTR_REGCOUNT: u8 = 0x2f;
/// `EIFMT_SVAL`: an attribute with a 16-bit size and that many bytes of value.
const EIFMT_SVAL: u8 = 0x04;

/// `SHT_SYMTAB`, and the size of one `Elf64_Sym`.
const SHT_SYMTAB: u32 = 2;
const SHT_NOBITS: u32 = 8;
const SYM_SIZE: usize = 24;

/// One section of a cubin: its name's offset, type, bytes and linked section.
struct Section<'a> {
    name: usize,
    kind: u32,
    bytes: &'a [u8],
    link: usize,
}

/// Registers per thread of each kernel of a cubin, by name, as ptxas allocated them: the
/// `EIATTR_REGCOUNT` records of its `.nv.info` section name functions by symbol index (into
/// `.symtab`, whose names are in the string table it links to).
pub fn cubin_registers(elf: &[u8]) -> Result<std::collections::HashMap<String, u32>, FatbinError> {
    let bad = |o: usize, m: &str| FatbinError::at(o, format!("cubin: {m}"));
    if !elf.starts_with(b"\x7fELF") || elf.get(4) != Some(&2) {
        return Err(bad(0, "not a 64-bit ELF file"));
    }
    let shoff = u64_at(elf, 0x28).ok_or_else(|| bad(0x28, "short header"))? as usize;
    let (entsize, count, strndx) = (u16_at(elf, 0x3a).unwrap_or(0) as usize, u16_at(elf, 0x3c).unwrap_or(0) as usize, u16_at(elf, 0x3e).unwrap_or(0) as usize);
    let section = |i: usize| -> Result<Section<'_>, FatbinError> {
        let h = i.checked_mul(entsize).and_then(|o| shoff.checked_add(o)).ok_or_else(|| bad(shoff, "section headers overflow"))?;
        let short = || bad(h, "section header runs past the end");
        let kind = u32_at(elf, h + 4).ok_or_else(short)?;
        let (off, size) = (u64_at(elf, h + 0x18).ok_or_else(short)? as usize, u64_at(elf, h + 0x20).ok_or_else(short)? as usize);
        // SHT_NOBITS (.nv.shared.*, .bss) occupy no file bytes.
        let size = if kind == SHT_NOBITS { 0 } else { size };
        let bytes = off.checked_add(size).and_then(|e| elf.get(off..e)).ok_or_else(|| bad(off, "section runs past the end"))?;
        Ok(Section { name: u32_at(elf, h).ok_or_else(short)? as usize, kind, bytes, link: u32_at(elf, h + 0x28).ok_or_else(short)? as usize })
    };
    let cstr = |table: &[u8], o: usize| -> Option<String> {
        let s = table.get(o..)?;
        Some(String::from_utf8_lossy(&s[..s.iter().position(|&b| b == 0)?]).into_owned())
    };
    let names = section(strndx)?.bytes;
    let mut symtab: Option<(&[u8], &[u8])> = None;
    let mut counts = Vec::new();
    for i in 0..count {
        let sh = section(i)?;
        if sh.kind == SHT_SYMTAB {
            symtab = Some((sh.bytes, section(sh.link)?.bytes));
        } else if cstr(names, sh.name).as_deref() == Some(".nv.info") {
            let b = sh.bytes;
            let mut at = 0;
            while at + 4 <= b.len() {
                let (fmt, attr) = (b[at], b[at + 1]);
                let len = if fmt == EIFMT_SVAL { u16_at(b, at + 2).unwrap_or(0) as usize } else { 0 };
                if fmt == EIFMT_SVAL && attr == EIATTR_REGCOUNT && len == 8 {
                    counts.push((u32_at(b, at + 4).unwrap_or(0) as usize, u32_at(b, at + 8).unwrap_or(0)));
                }
                at += 4 + len;
            }
        }
    }
    let Some((syms, strs)) = symtab else { return Err(bad(shoff, "no symbol table")) };
    let name_of = |sym: usize| -> Option<String> { cstr(strs, u32_at(syms, sym.checked_mul(SYM_SIZE)?)? as usize) };
    Ok(counts.into_iter().filter_map(|(sym, regs)| Some((name_of(sym)?, regs))).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fatbin of the given (kind, arch, flags, payload, uncompressed size) entries, laid out as
    /// nvcc does (64-byte ELF headers, 80-byte PTX headers, payloads padded to 8 bytes).
    fn build(entries: &[(u16, u32, u64, Vec<u8>, usize)]) -> Vec<u8> {
        let mut body = Vec::new();
        for (kind, arch, flags, payload, raw) in entries {
            let hsize = if *kind == KIND_PTX { 80 } else { 64 };
            let padded = payload.len().div_ceil(8) * 8;
            let mut h = vec![0u8; hsize];
            h[0..2].copy_from_slice(&kind.to_le_bytes());
            h[2..4].copy_from_slice(&0x0101u16.to_le_bytes());
            h[4..8].copy_from_slice(&(hsize as u32).to_le_bytes());
            h[8..16].copy_from_slice(&(padded as u64).to_le_bytes());
            h[16..20].copy_from_slice(&(payload.len() as u32).to_le_bytes());
            h[28..32].copy_from_slice(&arch.to_le_bytes());
            h[40..48].copy_from_slice(&(flags | 0x11).to_le_bytes());
            if hsize == 80 {
                h[56..64].copy_from_slice(&(*raw as u64).to_le_bytes());
            }
            body.extend(h);
            body.extend(payload);
            body.resize(body.len().div_ceil(8) * 8, 0);
        }
        let mut f = Vec::new();
        f.extend(FATBIN_MAGIC.to_le_bytes());
        f.extend(1u16.to_le_bytes());
        f.extend(16u16.to_le_bytes());
        f.extend((body.len() as u64).to_le_bytes());
        f.extend(body);
        f
    }

    #[test]
    fn plain_and_lz4_entries() {
        let ptx = b".version 9.0\n.target sm_90\n".to_vec();
        let packed = lz4_flex::block::compress(&ptx);
        let f = build(&[(KIND_ELF, 90, 0, vec![0x7f, b'E', b'L', b'F'], 0), (KIND_PTX, 80, 0, ptx.clone(), 0), (KIND_PTX, 90, FLAG_LZ4, packed, ptx.len())]);
        let e = parse(&f).unwrap();
        assert_eq!(e.len(), 3);
        assert_eq!(e[0].kind, KIND_ELF);
        assert_eq!(&e[0].payload[..4], b"\x7fELF");
        assert_eq!(e[2].payload, ptx);
        assert_eq!(pick_ptx(&e, 90).map(|e| e.arch), Some(90));
        assert_eq!(pick_ptx(&e, 86).map(|e| e.arch), Some(80));
        assert_eq!(pick_ptx(&e, 70).map(|e| e.arch), Some(80));
        assert_eq!(e[1].text().unwrap(), ".version 9.0\n.target sm_90\n");
    }

    /// The sm_90 cubin nvcc 13.0 made of tests/data/template_k.cu (`nvcc -keep`); ptxas -v said
    /// "Used 24 registers" for `k<3>`.
    #[test]
    fn registers_from_a_real_cubin() {
        let elf = include_bytes!("../tests/data/template_k.sm_90.cubin");
        let regs = cubin_registers(elf).unwrap();
        assert_eq!(regs.len(), 1);
        assert_eq!(regs["_Z1kILi3EEvPi"], 24);
        assert!(cubin_registers(&elf[..40]).is_err());
        // Two kernels whose symbols' order differs from their sections' (workloads/programs/
        // reduce.cu; ptxas -v: 14 and 20 registers).
        let regs = cubin_registers(include_bytes!("../tests/data/reduce.sm_90.cubin")).unwrap();
        assert_eq!((regs["_Z9final_sumPKxPxi"], regs["_Z12partial_sumsPKiPxi"]), (14, 20));
        assert!(cubin_registers(b"not an elf").unwrap_err().message.contains("64-bit ELF"));
    }

    #[test]
    fn damaged_containers_are_located_errors() {
        let f = build(&[(KIND_PTX, 90, 0, b"abc".to_vec(), 0)]);
        assert!(parse(&f[..f.len() - 8]).unwrap_err().message.contains("header says"));
        let mut bad = f.clone();
        bad[0] = 0;
        assert!(parse(&bad).unwrap_err().message.contains("not a fatbin"));
        let mut long = f.clone();
        long[16 + 8] = 0xff; // the entry's padded size
        let e = parse(&long).unwrap_err();
        assert_eq!(e.offset, 16);
        assert!(e.message.contains("runs past"), "{e}");
        let mut z = build(&[(KIND_PTX, 90, FLAG_ZSTD, b"not zstd".to_vec(), 100)]);
        assert!(parse(&z).unwrap_err().message.contains("zstd"));
        z.truncate(10);
        assert!(parse(&z).is_err());
    }
}
