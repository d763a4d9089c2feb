use std::ffi::{c_uint, c_void};

pub type CUresult = i32;
pub type CUdeviceptr = u64;
pub type CUstream = *mut c_void;
pub type CUfunction = *mut c_void;

#[allow(non_snake_case)]
unsafe extern "C" {
    pub fn cuMemAllocHost_v2(pp: *mut *mut c_void, bytes: usize) -> CUresult;
    pub fn cuMemFreeHost(p: *mut c_void) -> CUresult;
    pub fn cuMemcpyDtoHAsync_v2(dst: *mut c_void, src: CUdeviceptr, bytes: usize, stream: CUstream) -> CUresult;
    pub fn cuStreamSynchronize(stream: CUstream) -> CUresult;
    pub fn cuLaunchKernel(
        f: CUfunction, gx: c_uint, gy: c_uint, gz: c_uint, bx: c_uint, by: c_uint, bz: c_uint,
        shmem: c_uint, stream: CUstream, params: *mut *mut c_void, extra: *mut *mut c_void,
    ) -> CUresult;
}

pub fn ck(r: CUresult) -> Result<(), CUresult> {
    if r == 0 { Ok(()) } else { Err(r) }
}
