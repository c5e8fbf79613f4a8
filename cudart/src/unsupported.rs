//! The rest of libcudart.so.13's entry points (graphs, arrays and textures, IPC, managed and
//! virtual memory, interop, libraries, ...): each answers `cudaErrorNotSupported` after one line
//! on stderr naming the call, so no program meets an unresolved symbol. And the
//! version every export carries: the real library's `libcudart.so.13` (`.symver`; the node
//! itself is defined by `cudart.map`, see `build.rs`).
//!
//! The lists are CUDA 13.0's exports (`objdump -T libcudart.so.13` of the nvidia-cuda-runtime
//! wheel, 422 functions), split into those `lib.rs` implements and the others (a test checks that
//! the two lists make the 422).

use std::ffi::c_int;

use crate::error::{code, Error};

/// `cudaErrorNotSupported`, after one line on stderr naming the call.
fn not_supported(name: &str) -> c_int {
    crate::with(name, |_| Err(Error::new(code::NOT_SUPPORTED, "not supported by the simulator (cudaErrorNotSupported)")))
}

macro_rules! unsupported {
    ($($name:ident),* $(,)?) => {
        /// Every entry point not implemented, by name.
        #[cfg(test)]
        pub const UNSUPPORTED: &[&str] = &[$(stringify!($name)),*];
        $(
            #[no_mangle]
            pub extern "C" fn $name() -> c_int {
                not_supported(stringify!($name))
            }
        )*
        versioned!($($name),*);
    };
}

macro_rules! versioned {
    ($($name:ident),* $(,)?) => {
        std::arch::global_asm!($(concat!(".symver ", stringify!($name), ", ", stringify!($name), "@@@libcudart.so.13")),*);
    };
}

/// The entry points lib.rs implements: versioned here, with the others.
macro_rules! implemented {
    ($($name:ident),* $(,)?) => {
        #[cfg(test)]
        pub const IMPLEMENTED: &[&str] = &[$(stringify!($name)),*];
        versioned!($($name),*);
    };
}

unsupported!(
    __cudaGetProcAddress, __cudaRegisterHostVar, __cudaRegisterManagedVar, __cudaRegisterUnifiedTable,
    cudaArrayGetInfo, cudaArrayGetMemoryRequirements, cudaArrayGetPlane, cudaArrayGetSparseProperties,
    cudaChooseDevice, cudaCreateChannelDesc, cudaCreateSurfaceObject, cudaCreateTextureObject,
    cudaCtxResetPersistingL2Cache, cudaDestroyExternalMemory, cudaDestroyExternalSemaphore,
    cudaDestroySurfaceObject, cudaDestroyTextureObject, cudaDeviceCanAccessPeer, cudaDeviceDisablePeerAccess,
    cudaDeviceEnablePeerAccess, cudaDeviceFlushGPUDirectRDMAWrites, cudaDeviceGetByPCIBusId,
    cudaDeviceGetCacheConfig, cudaDeviceGetDefaultMemPool, cudaDeviceGetGraphMemAttribute,
    cudaDeviceGetHostAtomicCapabilities, cudaDeviceGetLimit, cudaDeviceGetMemPool,
    cudaDeviceGetNvSciSyncAttributes, cudaDeviceGetP2PAtomicCapabilities, cudaDeviceGetP2PAttribute,
    cudaDeviceGetPCIBusId, cudaDeviceGetSharedMemConfig, cudaDeviceGetStreamPriorityRange,
    cudaDeviceGetTexture1DLinearMaxWidth, cudaDeviceGraphMemTrim, cudaDeviceRegisterAsyncNotification,
    cudaDeviceSetGraphMemAttribute, cudaDeviceSetMemPool, cudaDeviceSetSharedMemConfig,
    cudaDeviceUnregisterAsyncNotification, cudaEGLStreamConsumerAcquireFrame, cudaEGLStreamConsumerConnect,
    cudaEGLStreamConsumerConnectWithFlags, cudaEGLStreamConsumerDisconnect, cudaEGLStreamConsumerReleaseFrame,
    cudaEGLStreamProducerConnect, cudaEGLStreamProducerDisconnect, cudaEGLStreamProducerPresentFrame,
    cudaEGLStreamProducerReturnFrame, cudaEventCreateFromEGLSync, cudaEventRecordWithFlags_ptsz,
    cudaEventRecord_ptsz, cudaExternalMemoryGetMappedBuffer, cudaExternalMemoryGetMappedMipmappedArray,
    cudaFreeArray, cudaFreeAsync, cudaFreeAsync_ptsz, cudaFreeMipmappedArray, cudaFuncGetName,
    cudaFuncGetParamInfo, cudaFuncSetSharedMemConfig, cudaGLGetDevices, cudaGLMapBufferObject,
    cudaGLMapBufferObjectAsync, cudaGLRegisterBufferObject, cudaGLSetBufferObjectMapFlags, cudaGLSetGLDevice,
    cudaGLUnmapBufferObject, cudaGLUnmapBufferObjectAsync, cudaGLUnregisterBufferObject, cudaGetChannelDesc,
    cudaGetDeviceFlags, cudaGetDriverEntryPoint, cudaGetDriverEntryPointByVersion,
    cudaGetDriverEntryPointByVersion_ptsz, cudaGetDriverEntryPoint_ptsz, cudaGetExportTable,
    cudaGetFuncBySymbol, cudaGetMipmappedArrayLevel, cudaGetSurfaceObjectResourceDesc,
    cudaGetTextureObjectResourceDesc, cudaGetTextureObjectResourceViewDesc, cudaGetTextureObjectTextureDesc,
    cudaGraphAddChildGraphNode, cudaGraphAddDependencies, cudaGraphAddEmptyNode, cudaGraphAddEventRecordNode,
    cudaGraphAddEventWaitNode, cudaGraphAddExternalSemaphoresSignalNode,
    cudaGraphAddExternalSemaphoresWaitNode, cudaGraphAddHostNode, cudaGraphAddKernelNode,
    cudaGraphAddMemAllocNode, cudaGraphAddMemFreeNode, cudaGraphAddMemcpyNode, cudaGraphAddMemcpyNode1D,
    cudaGraphAddMemcpyNodeFromSymbol, cudaGraphAddMemcpyNodeToSymbol, cudaGraphAddMemsetNode,
    cudaGraphAddNode, cudaGraphChildGraphNodeGetGraph, cudaGraphClone, cudaGraphConditionalHandleCreate,
    cudaGraphCreate, cudaGraphDebugDotPrint, cudaGraphDestroy, cudaGraphDestroyNode,
    cudaGraphEventRecordNodeGetEvent, cudaGraphEventRecordNodeSetEvent, cudaGraphEventWaitNodeGetEvent,
    cudaGraphEventWaitNodeSetEvent, cudaGraphExecChildGraphNodeSetParams, cudaGraphExecDestroy,
    cudaGraphExecEventRecordNodeSetEvent, cudaGraphExecEventWaitNodeSetEvent,
    cudaGraphExecExternalSemaphoresSignalNodeSetParams, cudaGraphExecExternalSemaphoresWaitNodeSetParams,
    cudaGraphExecGetFlags, cudaGraphExecHostNodeSetParams, cudaGraphExecKernelNodeSetParams,
    cudaGraphExecMemcpyNodeSetParams, cudaGraphExecMemcpyNodeSetParams1D,
    cudaGraphExecMemcpyNodeSetParamsFromSymbol, cudaGraphExecMemcpyNodeSetParamsToSymbol,
    cudaGraphExecMemsetNodeSetParams, cudaGraphExecNodeSetParams, cudaGraphExecUpdate,
    cudaGraphExternalSemaphoresSignalNodeGetParams, cudaGraphExternalSemaphoresSignalNodeSetParams,
    cudaGraphExternalSemaphoresWaitNodeGetParams, cudaGraphExternalSemaphoresWaitNodeSetParams,
    cudaGraphGetEdges, cudaGraphGetNodes, cudaGraphGetRootNodes, cudaGraphHostNodeGetParams,
    cudaGraphHostNodeSetParams, cudaGraphInstantiate, cudaGraphInstantiateWithFlags,
    cudaGraphInstantiateWithParams, cudaGraphInstantiateWithParams_ptsz, cudaGraphKernelNodeCopyAttributes,
    cudaGraphKernelNodeGetAttribute, cudaGraphKernelNodeGetParams, cudaGraphKernelNodeSetAttribute,
    cudaGraphKernelNodeSetParams, cudaGraphLaunch, cudaGraphLaunch_ptsz, cudaGraphMemAllocNodeGetParams,
    cudaGraphMemFreeNodeGetParams, cudaGraphMemcpyNodeGetParams, cudaGraphMemcpyNodeSetParams,
    cudaGraphMemcpyNodeSetParams1D, cudaGraphMemcpyNodeSetParamsFromSymbol,
    cudaGraphMemcpyNodeSetParamsToSymbol, cudaGraphMemsetNodeGetParams, cudaGraphMemsetNodeSetParams,
    cudaGraphNodeFindInClone, cudaGraphNodeGetDependencies, cudaGraphNodeGetDependentNodes,
    cudaGraphNodeGetEnabled, cudaGraphNodeGetType, cudaGraphNodeSetEnabled, cudaGraphNodeSetParams,
    cudaGraphReleaseUserObject, cudaGraphRemoveDependencies, cudaGraphRetainUserObject, cudaGraphUpload,
    cudaGraphUpload_ptsz, cudaGraphicsEGLRegisterImage, cudaGraphicsGLRegisterBuffer,
    cudaGraphicsGLRegisterImage, cudaGraphicsMapResources, cudaGraphicsResourceGetMappedEglFrame,
    cudaGraphicsResourceGetMappedMipmappedArray, cudaGraphicsResourceGetMappedPointer,
    cudaGraphicsResourceSetMapFlags, cudaGraphicsSubResourceGetMappedArray, cudaGraphicsUnmapResources,
    cudaGraphicsUnregisterResource, cudaGraphicsVDPAURegisterOutputSurface,
    cudaGraphicsVDPAURegisterVideoSurface, cudaHostGetDevicePointer, cudaHostGetFlags, cudaHostRegister,
    cudaHostUnregister, cudaImportExternalMemory, cudaImportExternalSemaphore, cudaIpcCloseMemHandle,
    cudaIpcGetEventHandle, cudaIpcGetMemHandle, cudaIpcOpenEventHandle, cudaIpcOpenMemHandle,
    cudaKernelSetAttributeForDevice, cudaLaunchCooperativeKernel, cudaLaunchCooperativeKernel_ptsz,
    cudaLaunchHostFunc, cudaLaunchHostFunc_ptsz, cudaLaunchKernelExC, cudaLaunchKernelExC_ptsz,
    cudaLibraryEnumerateKernels, cudaLibraryGetGlobal, cudaLibraryGetKernel, cudaLibraryGetKernelCount,
    cudaLibraryGetManaged, cudaLibraryGetUnifiedFunction, cudaLibraryLoadData, cudaLibraryLoadFromFile,
    cudaLibraryUnload, cudaLogsCurrent, cudaLogsDumpToFile, cudaLogsDumpToMemory, cudaLogsRegisterCallback,
    cudaLogsUnregisterCallback, cudaMalloc3D, cudaMalloc3DArray, cudaMallocArray, cudaMallocAsync,
    cudaMallocAsync_ptsz, cudaMallocFromPoolAsync, cudaMallocFromPoolAsync_ptsz, cudaMallocManaged,
    cudaMallocMipmappedArray, cudaMemAdvise, cudaMemDiscardAndPrefetchBatchAsync,
    cudaMemDiscardAndPrefetchBatchAsync_ptsz, cudaMemDiscardBatchAsync, cudaMemDiscardBatchAsync_ptsz,
    cudaMemGetDefaultMemPool, cudaMemGetMemPool, cudaMemPoolCreate, cudaMemPoolDestroy,
    cudaMemPoolExportPointer, cudaMemPoolExportToShareableHandle, cudaMemPoolGetAccess,
    cudaMemPoolGetAttribute, cudaMemPoolImportFromShareableHandle, cudaMemPoolImportPointer,
    cudaMemPoolSetAccess, cudaMemPoolSetAttribute, cudaMemPoolTrimTo, cudaMemPrefetchAsync,
    cudaMemPrefetchAsync_ptsz, cudaMemPrefetchBatchAsync, cudaMemPrefetchBatchAsync_ptsz,
    cudaMemRangeGetAttribute, cudaMemRangeGetAttributes, cudaMemSetMemPool, cudaMemcpy2DArrayToArray,
    cudaMemcpy2DArrayToArray_ptds, cudaMemcpy2DAsync_ptsz, cudaMemcpy2DFromArray, cudaMemcpy2DFromArrayAsync,
    cudaMemcpy2DFromArrayAsync_ptsz, cudaMemcpy2DFromArray_ptds, cudaMemcpy2DToArray,
    cudaMemcpy2DToArrayAsync, cudaMemcpy2DToArrayAsync_ptsz, cudaMemcpy2DToArray_ptds, cudaMemcpy2D_ptds,
    cudaMemcpy3D, cudaMemcpy3DAsync, cudaMemcpy3DAsync_ptsz, cudaMemcpy3DBatchAsync,
    cudaMemcpy3DBatchAsync_ptsz, cudaMemcpy3DPeer, cudaMemcpy3DPeerAsync, cudaMemcpy3DPeerAsync_ptsz,
    cudaMemcpy3DPeer_ptds, cudaMemcpy3D_ptds, cudaMemcpyArrayToArray, cudaMemcpyArrayToArray_ptds,
    cudaMemcpyAsync_ptsz, cudaMemcpyBatchAsync, cudaMemcpyBatchAsync_ptsz, cudaMemcpyFromArray,
    cudaMemcpyFromArrayAsync, cudaMemcpyFromArrayAsync_ptsz, cudaMemcpyFromArray_ptds,
    cudaMemcpyFromSymbolAsync_ptsz, cudaMemcpyFromSymbol_ptds, cudaMemcpyPeer, cudaMemcpyPeerAsync,
    cudaMemcpyToArray, cudaMemcpyToArrayAsync, cudaMemcpyToArrayAsync_ptsz, cudaMemcpyToArray_ptds,
    cudaMemcpyToSymbolAsync_ptsz, cudaMemcpyToSymbol_ptds, cudaMemcpy_ptds, cudaMemset2DAsync,
    cudaMemset2DAsync_ptsz, cudaMemset2D_ptds, cudaMemset3D, cudaMemset3DAsync, cudaMemset3DAsync_ptsz,
    cudaMemset3D_ptds, cudaMemsetAsync_ptsz, cudaMemset_ptds, cudaMipmappedArrayGetMemoryRequirements,
    cudaMipmappedArrayGetSparseProperties, cudaOccupancyAvailableDynamicSMemPerBlock,
    cudaOccupancyMaxActiveClusters, cudaOccupancyMaxPotentialClusterSize, cudaPointerGetAttributes,
    cudaProfilerStart, cudaProfilerStop, cudaSetValidDevices, cudaSignalExternalSemaphoresAsync,
    cudaSignalExternalSemaphoresAsync_ptsz, cudaStreamAddCallback, cudaStreamAddCallback_ptsz,
    cudaStreamAttachMemAsync, cudaStreamAttachMemAsync_ptsz, cudaStreamBeginCapture,
    cudaStreamBeginCaptureToGraph, cudaStreamBeginCaptureToGraph_ptsz, cudaStreamBeginCapture_ptsz,
    cudaStreamCopyAttributes, cudaStreamCopyAttributes_ptsz, cudaStreamEndCapture, cudaStreamEndCapture_ptsz,
    cudaStreamGetAttribute, cudaStreamGetAttribute_ptsz, cudaStreamGetCaptureInfo,
    cudaStreamGetCaptureInfo_ptsz, cudaStreamGetDevice, cudaStreamGetDevice_ptsz, cudaStreamGetFlags,
    cudaStreamGetFlags_ptsz, cudaStreamGetId, cudaStreamGetId_ptsz, cudaStreamGetPriority,
    cudaStreamGetPriority_ptsz, cudaStreamIsCapturing, cudaStreamIsCapturing_ptsz, cudaStreamQuery_ptsz,
    cudaStreamSetAttribute, cudaStreamSetAttribute_ptsz, cudaStreamSynchronize_ptsz,
    cudaStreamUpdateCaptureDependencies, cudaStreamUpdateCaptureDependencies_ptsz, cudaStreamWaitEvent_ptsz,
    cudaThreadExchangeStreamCaptureMode, cudaUserObjectCreate, cudaUserObjectRelease, cudaUserObjectRetain,
    cudaVDPAUGetDevice, cudaVDPAUSetVDPAUDevice, cudaWaitExternalSemaphoresAsync,
    cudaWaitExternalSemaphoresAsync_ptsz,
);

implemented!(
    __cudaGetKernel, __cudaInitModule, __cudaLaunchKernel, __cudaLaunchKernel_ptsz,
    __cudaPopCallConfiguration, __cudaPushCallConfiguration, __cudaRegisterFatBinary,
    __cudaRegisterFatBinaryEnd, __cudaRegisterFunction, __cudaRegisterVar, __cudaUnregisterFatBinary,
    cudaDeviceGetAttribute, cudaDeviceReset, cudaDeviceSetCacheConfig, cudaDeviceSetLimit,
    cudaDeviceSynchronize, cudaDriverGetVersion, cudaEventCreate, cudaEventCreateWithFlags, cudaEventDestroy,
    cudaEventElapsedTime, cudaEventQuery, cudaEventRecord, cudaEventRecordWithFlags, cudaEventSynchronize,
    cudaFree, cudaFreeHost, cudaFuncGetAttributes, cudaFuncSetAttribute, cudaFuncSetCacheConfig,
    cudaGetDevice, cudaGetDeviceCount, cudaGetDeviceProperties, cudaGetErrorName, cudaGetErrorString,
    cudaGetKernel, cudaGetLastError, cudaGetSymbolAddress, cudaGetSymbolSize, cudaHostAlloc, cudaInitDevice,
    cudaLaunchKernel, cudaLaunchKernel_ptsz, cudaMalloc, cudaMallocHost, cudaMallocPitch, cudaMemGetInfo,
    cudaMemcpy, cudaMemcpy2D, cudaMemcpy2DAsync, cudaMemcpyAsync, cudaMemcpyFromSymbol,
    cudaMemcpyFromSymbolAsync, cudaMemcpyToSymbol, cudaMemcpyToSymbolAsync, cudaMemset, cudaMemset2D,
    cudaMemsetAsync, cudaOccupancyMaxActiveBlocksPerMultiprocessor,
    cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags, cudaPeekAtLastError, cudaRuntimeGetVersion,
    cudaSetDevice, cudaSetDeviceFlags, cudaStreamCreate, cudaStreamCreateWithFlags,
    cudaStreamCreateWithPriority, cudaStreamDestroy, cudaStreamQuery, cudaStreamSynchronize,
    cudaStreamWaitEvent,
);

#[cfg(test)]
mod tests {
    #[test]
    fn every_export_is_listed_once() {
        let mut all: Vec<&str> = super::UNSUPPORTED.iter().chain(super::IMPLEMENTED).copied().collect();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), super::UNSUPPORTED.len() + super::IMPLEMENTED.len(), "a name both implemented and not");
        assert_eq!(all.len(), 422, "libcudart.so.13 exports 422 functions");
    }
}
