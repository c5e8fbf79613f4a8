//! CUDA runtime error codes (`cudaError_t`, the values of CUDA 13's `driver_types.h`) with their
//! names and descriptions as `cudaGetErrorName` / `cudaGetErrorString` return them, and the error
//! value the runtime's calls pass around: a code and the one line that explains it.

use std::ffi::CStr;

/// The codes this runtime returns.
pub mod code {
    pub const SUCCESS: i32 = 0;
    pub const INVALID_VALUE: i32 = 1;
    pub const MEMORY_ALLOCATION: i32 = 2;
    pub const INITIALIZATION_ERROR: i32 = 3;
    pub const INVALID_CONFIGURATION: i32 = 9;
    pub const INVALID_PITCH_VALUE: i32 = 12;
    pub const INVALID_SYMBOL: i32 = 13;
    pub const INVALID_DEVICE_POINTER: i32 = 17;
    pub const INVALID_MEMCPY_DIRECTION: i32 = 21;
    pub const INVALID_DEVICE_FUNCTION: i32 = 98;
    pub const NO_DEVICE: i32 = 100;
    pub const INVALID_DEVICE: i32 = 101;
    pub const INVALID_KERNEL_IMAGE: i32 = 200;
    pub const NO_KERNEL_IMAGE_FOR_DEVICE: i32 = 209;
    pub const INVALID_RESOURCE_HANDLE: i32 = 400;
    pub const NOT_READY: i32 = 600;
    pub const ILLEGAL_ADDRESS: i32 = 700;
    pub const LAUNCH_OUT_OF_RESOURCES: i32 = 701;
    pub const LAUNCH_TIMEOUT: i32 = 702;
    pub const ASSERT: i32 = 710;
    pub const MISALIGNED_ADDRESS: i32 = 716;
    pub const LAUNCH_FAILURE: i32 = 719;
    pub const NOT_SUPPORTED: i32 = 801;
    pub const UNKNOWN: i32 = 999;
}

/// (code, `cudaGetErrorName`, `cudaGetErrorString`), as libcudart.so.13 words them.
const TABLE: &[(i32, &CStr, &CStr)] = &[
    (code::SUCCESS, c"cudaSuccess", c"no error"),
    (code::INVALID_VALUE, c"cudaErrorInvalidValue", c"invalid argument"),
    (code::MEMORY_ALLOCATION, c"cudaErrorMemoryAllocation", c"out of memory"),
    (code::INITIALIZATION_ERROR, c"cudaErrorInitializationError", c"initialization error"),
    (code::INVALID_CONFIGURATION, c"cudaErrorInvalidConfiguration", c"invalid configuration argument"),
    (code::INVALID_PITCH_VALUE, c"cudaErrorInvalidPitchValue", c"invalid pitch argument"),
    (code::INVALID_SYMBOL, c"cudaErrorInvalidSymbol", c"invalid device symbol"),
    (code::INVALID_DEVICE_POINTER, c"cudaErrorInvalidDevicePointer", c"invalid device pointer"),
    (code::INVALID_MEMCPY_DIRECTION, c"cudaErrorInvalidMemcpyDirection", c"invalid copy direction for memcpy"),
    (code::INVALID_DEVICE_FUNCTION, c"cudaErrorInvalidDeviceFunction", c"invalid device function"),
    (code::NO_DEVICE, c"cudaErrorNoDevice", c"no CUDA-capable device is detected"),
    (code::INVALID_DEVICE, c"cudaErrorInvalidDevice", c"invalid device ordinal"),
    (code::INVALID_KERNEL_IMAGE, c"cudaErrorInvalidKernelImage", c"device kernel image is invalid"),
    (code::NO_KERNEL_IMAGE_FOR_DEVICE, c"cudaErrorNoKernelImageForDevice", c"no kernel image is available for execution on the device"),
    (code::INVALID_RESOURCE_HANDLE, c"cudaErrorInvalidResourceHandle", c"invalid resource handle"),
    (code::NOT_READY, c"cudaErrorNotReady", c"device not ready"),
    (code::ILLEGAL_ADDRESS, c"cudaErrorIllegalAddress", c"an illegal memory access was encountered"),
    (code::LAUNCH_OUT_OF_RESOURCES, c"cudaErrorLaunchOutOfResources", c"too many resources requested for launch"),
    (code::LAUNCH_TIMEOUT, c"cudaErrorLaunchTimeout", c"the launch timed out and was terminated"),
    (code::ASSERT, c"cudaErrorAssert", c"device-side assert triggered"),
    (code::MISALIGNED_ADDRESS, c"cudaErrorMisalignedAddress", c"misaligned address"),
    (code::LAUNCH_FAILURE, c"cudaErrorLaunchFailure", c"unspecified launch failure"),
    (code::NOT_SUPPORTED, c"cudaErrorNotSupported", c"operation not supported"),
    (code::UNKNOWN, c"cudaErrorUnknown", c"unknown error"),
];

/// `cudaGetErrorName`'s answer (`cudaErrorUnknown`'s for codes this runtime never returns).
pub fn name(c: i32) -> &'static CStr {
    TABLE.iter().find(|t| t.0 == c).map_or(c"cudaErrorUnknown", |t| t.1)
}

/// `cudaGetErrorString`'s answer.
pub fn description(c: i32) -> &'static CStr {
    TABLE.iter().find(|t| t.0 == c).map_or(c"unrecognized error code", |t| t.2)
}

/// A failed call: its code and what went wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub code: i32,
    pub message: String,
}

impl Error {
    pub fn new(code: i32, message: impl Into<String>) -> Error {
        Error { code, message: message.into() }
    }
}

pub type Result<T> = std::result::Result<T, Error>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_strings() {
        assert_eq!(name(code::ILLEGAL_ADDRESS), c"cudaErrorIllegalAddress");
        assert_eq!(description(code::INVALID_VALUE), c"invalid argument");
        assert_eq!(name(12345), c"cudaErrorUnknown");
        let codes: std::collections::BTreeSet<i32> = TABLE.iter().map(|t| t.0).collect();
        assert_eq!(codes.len(), TABLE.len(), "a code listed twice");
    }
}
