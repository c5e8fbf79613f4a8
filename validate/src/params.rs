//! Kernel parameters as the PTX lays them out: one slot (offset, size) per `.param` of the
//! entry, read from the same lowering the simulator uses (`warpsim_isa::load`), and the packing
//! of a workload's arguments into those slots.
//!
//! Packing follows `warpsim_sim::launch::prepare` byte for byte: a buffer argument is its device
//! address and a scalar its bits, both little-endian, cut to the slot size; a tensor map is the
//! 128-byte `CUtensorMap` that an encoder returns (the driver's `cuTensorMapEncodeTiled` on the
//! GPU, a stand-in in the self-check). The GPU runner hands the driver one pointer per slot into
//! the packed bytes, so the driver copies each parameter with the size the kernel declares.

use warpsim_workloads::{Arg, TensorMap, Workload};

use crate::error::Error;

/// Bytes of a `CUtensorMap` (`.param .align 64 .b8 name[128]`).
pub const TENSOR_MAP_BYTES: usize = 128;

/// Turns a tensor map over a buffer (given the buffer's device address) into its 128 bytes.
pub type EncodeTensorMap<'a> = &'a mut dyn FnMut(&TensorMap, u64) -> Result<[u8; TENSOR_MAP_BYTES], Error>;

/// Where one kernel parameter lives in the packed parameter buffer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamSlot {
    pub name: String,
    pub offset: usize,
    pub size: usize,
}

/// The parameter layout of one launch's kernel entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamLayout {
    /// One per kernel parameter, in PTX order (= the launch's `args` order).
    pub slots: Vec<ParamSlot>,
    /// Size of the whole parameter buffer.
    pub bytes: usize,
}

impl ParamLayout {
    /// The layout of every launch of `w`'s sequence, in manifest order ([`ParamLayout::of`];
    /// the PTX lowered once).
    pub fn sequence(w: &Workload) -> Result<Vec<Self>, Error> {
        let file = w.ptx_path.display().to_string();
        let progs = warpsim_isa::load(&w.ptx, &file)?;
        (0..w.launches.len()).map(|i| Self::of(w, i, &progs)).collect()
    }

    /// Reads launch `i`'s entry's parameter symbols from `progs` (`w`'s PTX lowered). Fails when
    /// the entry is missing, the argument count differs, or a slot falls outside the parameter
    /// buffer.
    pub fn of(w: &Workload, i: usize, progs: &[warpsim_isa::program::Program]) -> Result<Self, Error> {
        let file = w.ptx_path.display().to_string();
        let bad = |message: String| Error::Workload { workload: w.manifest.name.clone(), message };
        let spec = &w.manifest.launches[i];
        let prog = progs
            .iter()
            .find(|p| p.name == spec.entry)
            .ok_or_else(|| bad(format!("no kernel entry `{}` in {file}", spec.entry)))?;
        if prog.params.len() != spec.args.len() {
            return Err(bad(format!("{} arguments for {} kernel parameters", spec.args.len(), prog.params.len())));
        }
        let bytes = usize::try_from(prog.param_bytes).map_err(|_| bad("parameter buffer too large".into()))?;
        let mut slots = Vec::with_capacity(prog.params.len());
        for &sym in &prog.params {
            let s = prog.symbols.get(sym as usize).ok_or_else(|| bad(format!("parameter symbol {sym} missing")))?;
            let (offset, size) = (s.offset as usize, s.size as usize);
            if offset.checked_add(size).is_none_or(|end| end > bytes) {
                return Err(bad(format!("parameter `{}` ({size} bytes at {offset}) outside the {bytes}-byte buffer", s.name)));
            }
            slots.push(ParamSlot { name: s.name.clone(), offset, size });
        }
        Ok(ParamLayout { slots, bytes })
    }

    /// Packs the arguments of `w`'s launch `launch`: `addrs[i]` is the device address buffer
    /// name `i` refers to then; `encode` makes each tensor map's bytes.
    pub fn pack(
        &self,
        w: &Workload,
        launch: usize,
        addrs: &[u64],
        encode: EncodeTensorMap,
    ) -> Result<Vec<u8>, Error> {
        let bad = |message: String| Error::Workload { workload: w.manifest.name.clone(), message };
        let args = &w.manifest.launches[launch].args;
        if args.len() != self.slots.len() {
            return Err(bad(format!("{} arguments for {} parameter slots", args.len(), self.slots.len())));
        }
        let addr = |index: usize| addrs.get(index).copied().ok_or_else(|| bad(format!("no device address for buffer {index}")));
        let mut out = vec![0u8; self.bytes];
        for (arg, slot) in args.iter().zip(&self.slots) {
            let dst = &mut out[slot.offset..slot.offset + slot.size];
            match arg {
                Arg::Buffer { index } => put(dst, &addr(*index)?.to_le_bytes()),
                Arg::Scalar { bits, .. } => put(dst, &bits.to_le_bytes()),
                Arg::TensorMap(tm) if slot.size == TENSOR_MAP_BYTES => dst.copy_from_slice(&encode(tm, addr(tm.buffer)?)?),
                Arg::TensorMap(_) => {
                    return Err(bad(format!("tensor map parameter `{}` has {} bytes, not {TENSOR_MAP_BYTES}", slot.name, slot.size)))
                }
            }
        }
        Ok(out)
    }
}

/// The low bytes of a little-endian value into a slot (as many as fit).
fn put(dst: &mut [u8], src: &[u8]) {
    let n = dst.len().min(src.len());
    dst[..n].copy_from_slice(&src[..n]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    /// The simulator's own encoding, so the packed bytes can be compared with `prepare`'s.
    fn sim_tensor_maps(tm: &TensorMap, base: u64) -> Result<[u8; TENSOR_MAP_BYTES], Error> {
        warpsim_sim::launch::encode_tensor_map(tm, base).map_err(|message| Error::Workload { workload: "test".into(), message })
    }

    /// Same bytes as the simulator's `prepare` for every bundled workload, given the same buffer
    /// addresses; and different addresses change exactly the buffer slots.
    #[test]
    fn packing_matches_the_simulator_for_every_bundled_workload() {
        for name in warpsim_workloads::bundled_names() {
            let w = Workload::bundled(name).unwrap();
            let p = warpsim_sim::launch::prepare(&w, warpsim_sim::Gpu::new(132)).unwrap();
            for (i, layout) in ParamLayout::sequence(&w).unwrap().iter().enumerate() {
            let addrs: Vec<u64> = p.buffers.iter().map(|b| b.1).collect();
            let ours = layout.pack(&w, i, &addrs, &mut sim_tensor_maps).unwrap();
            assert_eq!(ours, p.params(i).unwrap(), "{name}: packed bytes differ from the simulator's");

            let moved: Vec<u64> = addrs.iter().map(|a| a + 0x7f00_0000_0000).collect();
            let other = layout.pack(&w, i, &moved, &mut sim_tensor_maps).unwrap();
            for (arg, slot) in w.manifest.launches[i].args.iter().zip(&layout.slots) {
                let (a, b) = (&ours[slot.offset..][..slot.size], &other[slot.offset..][..slot.size]);
                match arg {
                    Arg::Buffer { .. } | Arg::TensorMap(_) => assert_ne!(a, b, "{name}: `{}` ignores the address", slot.name),
                    _ => assert_eq!(a, b, "{name}: `{}` depends on addresses", slot.name),
                }
            }
            }
        }
    }

    const TMA_PTX: &str = r#"
.version 8.0
.target sm_90a
.address_size 64
.visible .entry tma(
    .param .u32 tma_n,
    .param .align 64 .b8 tma_map[128],
    .param .u64 tma_out
)
{
    ret;
}
"#;

    const TMA_TOML: &str = r#"
name = "tma"
ptx = "tma.ptx"
entry = "tma"
grid = [1, 1, 1]
block = [32, 1, 1]
[[buffer]]
name = "in"
dtype = "f32"
len = 4096
[[buffer]]
name = "out"
dtype = "f32"
len = 4096
output = true
[[arg]]
scalar = { dtype = "u32", value = 7 }
[[arg]]
tensor_map = { buffer = "in", dtype = "f32", dims = [64, 64], strides = [256], box = [32, 32] }
[[arg]]
buffer = "out"
"#;

    #[test]
    fn tensor_maps_land_in_their_aligned_slot() {
        let read = |rel: &str| match rel {
            "tma.ptx" => Ok(TMA_PTX.as_bytes().to_vec()),
            _ => Err(std::io::Error::new(std::io::ErrorKind::NotFound, rel.to_string())),
        };
        let w = Workload::parse(TMA_TOML, Path::new("tma.toml"), &read).unwrap();
        let layout = ParamLayout::sequence(&w).unwrap().remove(0);
        let offsets: Vec<(usize, usize)> = layout.slots.iter().map(|s| (s.offset, s.size)).collect();
        assert_eq!(offsets, [(0, 4), (64, 128), (192, 8)]);
        let mut seen = Vec::new();
        let mut encode = |tm: &TensorMap, addr: u64| {
            seen.push((tm.buffer, addr, tm.box_dims.clone()));
            Ok([0xAB; TENSOR_MAP_BYTES])
        };
        let bytes = layout.pack(&w, 0, &[0x1000, 0x2000], &mut encode).unwrap();
        let err = layout.pack(&w, 0, &[0x1000], &mut encode).unwrap_err();
        // Encoded once per pack, over buffer 0's address.
        assert_eq!(seen, [(0, 0x1000, vec![32, 32]), (0, 0x1000, vec![32, 32])]);
        assert_eq!(&bytes[0..4], &7u32.to_le_bytes());
        assert!(bytes[4..64].iter().all(|&b| b == 0));
        assert!(bytes[64..192].iter().all(|&b| b == 0xAB));
        assert_eq!(&bytes[192..200], &0x2000u64.to_le_bytes());
        // A missing address (buffer 1, packed after the tensor map) is an error, not a panic.
        assert!(err.to_string().contains("no device address for buffer 1"), "{err}");
    }
}
