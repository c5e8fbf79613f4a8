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
