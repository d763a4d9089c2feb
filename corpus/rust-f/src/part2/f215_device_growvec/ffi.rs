//! Just the driver entry points the vector needs, declared by hand.
#![allow(non_snake_case)]
pub use cudarc::driver::sys::{
    CUdevice, CUdeviceptr, CUmemAccessDesc, CUmemAllocationGranularity_flags, CUmemAllocationProp,
    CUmemGenericAllocationHandle, CUresult, CUstream,
};

unsafe extern "C" {
    pub fn cuMemCreate(handle: *mut CUmemGenericAllocationHandle, size: usize, prop: *const CUmemAllocationProp, flags: u64) -> CUresult;
    pub fn cuMemRelease(handle: CUmemGenericAllocationHandle) -> CUresult;
    pub fn cuMemAddressReserve(ptr: *mut CUdeviceptr, size: usize, alignment: usize, addr: CUdeviceptr, flags: u64) -> CUresult;
    pub fn cuMemAddressFree(ptr: CUdeviceptr, size: usize) -> CUresult;
    pub fn cuMemMap(ptr: CUdeviceptr, size: usize, offset: usize, handle: CUmemGenericAllocationHandle, flags: u64) -> CUresult;
    pub fn cuMemUnmap(ptr: CUdeviceptr, size: usize) -> CUresult;
    #[link_name = "cuMemSetAccess"]
    pub fn set_access(ptr: CUdeviceptr, size: usize, desc: *const CUmemAccessDesc, count: usize) -> CUresult;
    #[link_name = "cuMemGetAllocationGranularity"]
    pub fn granularity(gran: *mut usize, prop: *const CUmemAllocationProp, option: CUmemAllocationGranularity_flags) -> CUresult;
    #[link_name = "cuMemcpyDtoDAsync_v2"]
    pub fn copy_dtod_async(dst: CUdeviceptr, src: CUdeviceptr, bytes: usize, stream: CUstream) -> CUresult;
    pub fn cuStreamSynchronize(stream: CUstream) -> CUresult;
}

pub fn check(r: CUresult, what: &'static str) -> Result<(), String> {
    if r == CUresult::CUDA_SUCCESS { Ok(()) } else { Err(format!("{what} failed: {r:?}")) }
}
