//! The device the program queries: `cudaDeviceProp` (CUDA 13's layout, field for field from
//! `driver_types.h`: 1008 bytes) and `cudaDeviceGetAttribute` answers filled from the preset, and
//! `cudaFuncAttributes` from a kernel's PTX. Fields the presets do not model carry the values of
//! the H200 for Hopper presets and neutral ones (0, or the CUDA limits every device since Fermi
//! shares) otherwise; the names below are CUDA's, to keep the layout checkable against the header.

#![allow(non_snake_case)]

use std::ffi::c_int;

use warpsim_sim::config::ArchConfig;

use crate::runtime::FuncAttributes;

/// `struct cudaDeviceProp` (CUDA 13).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct CudaDeviceProp {
    pub name: [u8; 256],
    pub uuid: [u8; 16],
    pub luid: [u8; 8],
    pub luidDeviceNodeMask: u32,
    pub totalGlobalMem: usize,
    pub sharedMemPerBlock: usize,
    pub regsPerBlock: i32,
    pub warpSize: i32,
    pub memPitch: usize,
    pub maxThreadsPerBlock: i32,
    pub maxThreadsDim: [i32; 3],
    pub maxGridSize: [i32; 3],
    pub totalConstMem: usize,
    pub major: i32,
    pub minor: i32,
    pub textureAlignment: usize,
    pub texturePitchAlignment: usize,
    pub multiProcessorCount: i32,
    pub integrated: i32,
    pub canMapHostMemory: i32,
    pub maxTexture1D: i32,
    pub maxTexture1DMipmap: i32,
    pub maxTexture2D: [i32; 2],
    pub maxTexture2DMipmap: [i32; 2],
    pub maxTexture2DLinear: [i32; 3],
    pub maxTexture2DGather: [i32; 2],
    pub maxTexture3D: [i32; 3],
    pub maxTexture3DAlt: [i32; 3],
    pub maxTextureCubemap: i32,
    pub maxTexture1DLayered: [i32; 2],
    pub maxTexture2DLayered: [i32; 3],
    pub maxTextureCubemapLayered: [i32; 2],
    pub maxSurface1D: i32,
    pub maxSurface2D: [i32; 2],
    pub maxSurface3D: [i32; 3],
    pub maxSurface1DLayered: [i32; 2],
    pub maxSurface2DLayered: [i32; 3],
    pub maxSurfaceCubemap: i32,
    pub maxSurfaceCubemapLayered: [i32; 2],
    pub surfaceAlignment: usize,
    pub concurrentKernels: i32,
    pub ECCEnabled: i32,
    pub pciBusID: i32,
    pub pciDeviceID: i32,
    pub pciDomainID: i32,
    pub tccDriver: i32,
    pub asyncEngineCount: i32,
    pub unifiedAddressing: i32,
    pub memoryBusWidth: i32,
    pub l2CacheSize: i32,
    pub persistingL2CacheMaxSize: i32,
    pub maxThreadsPerMultiProcessor: i32,
    pub streamPrioritiesSupported: i32,
    pub globalL1CacheSupported: i32,
    pub localL1CacheSupported: i32,
    pub sharedMemPerMultiprocessor: usize,
    pub regsPerMultiprocessor: i32,
    pub managedMemory: i32,
    pub isMultiGpuBoard: i32,
    pub multiGpuBoardGroupID: i32,
    pub hostNativeAtomicSupported: i32,
    pub pageableMemoryAccess: i32,
    pub concurrentManagedAccess: i32,
    pub computePreemptionSupported: i32,
    pub canUseHostPointerForRegisteredMem: i32,
    pub cooperativeLaunch: i32,
    pub sharedMemPerBlockOptin: usize,
    pub pageableMemoryAccessUsesHostPageTables: i32,
    pub directManagedMemAccessFromHost: i32,
    pub maxBlocksPerMultiProcessor: i32,
    pub accessPolicyMaxWindowSize: i32,
    pub reservedSharedMemPerBlock: usize,
    pub hostRegisterSupported: i32,
    pub sparseCudaArraySupported: i32,
    pub hostRegisterReadOnlySupported: i32,
    pub timelineSemaphoreInteropSupported: i32,
    pub memoryPoolsSupported: i32,
    pub gpuDirectRDMASupported: i32,
    pub gpuDirectRDMAFlushWritesOptions: u32,
    pub gpuDirectRDMAWritesOrdering: i32,
    pub memoryPoolSupportedHandleTypes: u32,
    pub deferredMappingCudaArraySupported: i32,
    pub ipcEventSupported: i32,
    pub clusterLaunch: i32,
    pub unifiedFunctionPointers: i32,
    pub deviceNumaConfig: i32,
    pub deviceNumaId: i32,
    pub mpsEnabled: i32,
    pub hostNumaId: i32,
    pub gpuPciDeviceID: u32,
    pub gpuPciSubsystemID: u32,
    pub hostNumaMultinodeIpcSupported: i32,
    pub reserved: [i32; 56],
}

/// `struct cudaFuncAttributes`.
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub struct CudaFuncAttributes {
    pub sharedSizeBytes: usize,
    pub constSizeBytes: usize,
    pub localSizeBytes: usize,
    pub maxThreadsPerBlock: i32,
    pub numRegs: i32,
    pub ptxVersion: i32,
    pub binaryVersion: i32,
    pub cacheModeCA: i32,
    pub maxDynamicSharedSizeBytes: i32,
    pub preferredShmemCarveout: i32,
    pub clusterDimMustBeSet: i32,
    pub requiredClusterWidth: i32,
    pub requiredClusterHeight: i32,
    pub requiredClusterDepth: i32,
    pub clusterSchedulingPolicyPreference: i32,
    pub nonPortableClusterSizeAllowed: i32,
    pub reserved: [i32; 16],
}

/// The preset's figures CUDA reports in several places.
struct Figures {
    smem_per_block: i32,
    smem_per_block_optin: i32,
    smem_per_sm: i32,
    /// DRAM clock (kHz) and bus width (bits) whose product gives the preset's bandwidth with
    /// HBM's two transfers per clock: the H200's 2619 MHz × 6144 bits for Hopper.
    mem_khz: i32,
    bus_bits: i32,
}

fn figures(cfg: &ArchConfig) -> Figures {
    let optin = (cfg.sm.smem_per_cta_kib * 1024) as i32;
    let bus_bits = (cfg.dram.channels * 64).max(64) as i32;
    // bandwidth (GB/s) = 2 × clock × bus bytes
    let mem_khz = (cfg.dram.bandwidth_gbs * 1e6 / (2.0 * bus_bits as f64 / 8.0)).round() as i32;
    Figures { smem_per_block: optin.min(48 * 1024), smem_per_block_optin: optin, smem_per_sm: (cfg.sm.smem_kib * 1024) as i32, mem_khz, bus_bits }
}

/// The device's name as CUDA spells it: the preset's description up to its first comma or
/// parenthesis (`NVIDIA H200`), else the preset's name.
fn device_name(cfg: &ArchConfig) -> String {
    let d = cfg.description.split([',', '(', ':']).next().unwrap_or("").trim();
    if d.is_empty() { cfg.name.clone() } else { d.to_string() }
}

/// `cudaGetDeviceProperties` for the preset.
pub fn properties(cfg: &ArchConfig, memory: u64) -> CudaDeviceProp {
    // SAFETY: all-zero bytes are a valid CudaDeviceProp (integers and byte arrays only).
    let mut p: CudaDeviceProp = unsafe { std::mem::zeroed() };
    let name = device_name(cfg);
    let n = name.len().min(255);
    p.name[..n].copy_from_slice(&name.as_bytes()[..n]);
    let f = figures(cfg);
    let sm = &cfg.sm;
    p.totalGlobalMem = memory as usize;
    p.sharedMemPerBlock = f.smem_per_block as usize;
    p.regsPerBlock = sm.registers.min(65536) as i32;
    p.warpSize = 32;
    p.memPitch = i32::MAX as usize;
    p.maxThreadsPerBlock = sm.max_threads.min(1024) as i32;
    p.maxThreadsDim = [1024, 1024, 64];
    p.maxGridSize = [i32::MAX, 65535, 65535];
    p.totalConstMem = 64 * 1024;
    p.major = cfg.compute_capability[0] as i32;
    p.minor = cfg.compute_capability[1] as i32;
    p.textureAlignment = 512;
    p.texturePitchAlignment = 32;
    p.multiProcessorCount = sm.count as i32;
    p.concurrentKernels = 1;
    p.asyncEngineCount = 2;
    p.unifiedAddressing = 1;
    p.memoryBusWidth = f.bus_bits;
    p.l2CacheSize = (cfg.l2.size_kib * 1024) as i32;
    p.maxThreadsPerMultiProcessor = sm.max_threads as i32;
    p.globalL1CacheSupported = cfg.features.l1_caches_global as i32;
    p.localL1CacheSupported = 1;
    p.sharedMemPerMultiprocessor = f.smem_per_sm as usize;
    p.regsPerMultiprocessor = sm.registers as i32;
    p.sharedMemPerBlockOptin = f.smem_per_block_optin as usize;
    p.maxBlocksPerMultiProcessor = sm.max_ctas as i32;
    p.reservedSharedMemPerBlock = sm.smem_reserved_per_cta as usize;
    p.clusterLaunch = cfg.features.clusters as i32;
    p.cooperativeLaunch = 1;
    p.pciBusID = 1;
    p
}

/// `cudaDeviceGetAttribute(attr)` for the preset; `None` for attributes not modelled.
pub fn attribute(cfg: &ArchConfig, attr: c_int) -> Option<c_int> {
    let p = properties(cfg, 0);
    let f = figures(cfg);
    Some(match attr {
        1 => p.maxThreadsPerBlock,
        2..=4 => p.maxThreadsDim[attr as usize - 2],
        5..=7 => p.maxGridSize[attr as usize - 5],
        8 => p.sharedMemPerBlock as c_int,
        9 => p.totalConstMem as c_int,
        10 => 32,
        11 => p.memPitch as c_int,
        12 => p.regsPerBlock,
        13 => (cfg.clock.sm_mhz * 1000.0).round() as c_int,
        14 => p.textureAlignment as c_int,
        15 => 1,
        16 => p.multiProcessorCount,
        17..=18 => 0,
        19 => 1,
        20 => 0,
        31 => 1,
        32 => 0,
        33 => p.pciBusID,
        34..=35 => 0,
        36 => f.mem_khz,
        37 => f.bus_bits,
        38 => p.l2CacheSize,
        39 => p.maxThreadsPerMultiProcessor,
        40 => p.asyncEngineCount,
        41 => 1,
        50 => 0,
        75 => p.major,
        76 => p.minor,
        78 => 1,
        79 => p.globalL1CacheSupported,
        80 => 1,
        81 => p.sharedMemPerMultiprocessor as c_int,
        82 => p.regsPerMultiprocessor,
        83 => 0,
        84..=85 => 0,
        86 => 0,
        87 => 2,
        88..=89 => 0,
        90 => 1,
        95 => 1,
        97 => p.sharedMemPerBlockOptin as c_int,
        106 => p.maxBlocksPerMultiProcessor,
        111 => p.reservedSharedMemPerBlock as c_int,
        120 => p.clusterLaunch,
        _ => return None,
    })
}

/// `cudaFuncGetAttributes` of a kernel.
pub fn func_attributes(a: &FuncAttributes, cfg: &ArchConfig) -> CudaFuncAttributes {
    let cc = (cfg.compute_capability[0] * 10 + cfg.compute_capability[1]) as i32;
    let optin = figures(cfg).smem_per_block_optin;
    CudaFuncAttributes {
        sharedSizeBytes: a.shared as usize,
        constSizeBytes: a.constant as usize,
        localSizeBytes: a.local as usize,
        maxThreadsPerBlock: a.max_threads as i32,
        numRegs: a.regs as i32,
        ptxVersion: cc,
        binaryVersion: cc,
        maxDynamicSharedSizeBytes: (optin - a.shared as i32).max(0),
        preferredShmemCarveout: -1,
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sizes and offsets of CUDA 13's `driver_types.h` (printed with `offsetof` from the header).
    #[test]
    fn layouts_match_cuda_13() {
        assert_eq!(std::mem::size_of::<CudaDeviceProp>(), 1008);
        assert_eq!(std::mem::offset_of!(CudaDeviceProp, totalGlobalMem), 288);
        assert_eq!(std::mem::offset_of!(CudaDeviceProp, sharedMemPerBlockOptin), 672);
        assert_eq!(std::mem::offset_of!(CudaDeviceProp, reserved), 784);
        assert_eq!(std::mem::size_of::<CudaFuncAttributes>(), 24 + 13 * 4 + 64 + 4);
    }

    #[test]
    fn h200_figures() {
        let cfg = warpsim_sim::presets::preset("hopper-h200").unwrap();
        let p = properties(&cfg, 141 << 30);
        assert_eq!((p.major, p.minor, p.multiProcessorCount), (9, 0, 132));
        assert_eq!(attribute(&cfg, 16), Some(132));
        assert_eq!(attribute(&cfg, 75), Some(9));
        assert_eq!(attribute(&cfg, 13), Some((cfg.clock.sm_mhz * 1000.0).round() as i32));
        assert_eq!(attribute(&cfg, 10), Some(32));
        assert_eq!(attribute(&cfg, 9999), None);
        let name = std::ffi::CStr::from_bytes_until_nul(&p.name).unwrap().to_str().unwrap();
        assert!(!name.is_empty() && name.len() < 64, "{name}");
    }
}
