//! case: raw driver API: results copied into cuMemHostAlloc(CU_MEMHOSTALLOC_WRITECOMBINED) memory, then scanned for the maximum on the host
//! expect: write_combined_host_read=1
use std::ffi::c_void;
use std::ptr::null_mut;

use cudarc::driver::sys::{self, CUdeviceptr};
use cudarc::driver::{CudaContext, DriverError};

struct HostResults {
    ptr: *mut f32,
    len: usize,
}

impl HostResults {
    fn alloc(len: usize) -> Result<Self, DriverError> {
        let mut p: *mut c_void = null_mut();
        unsafe { sys::cuMemHostAlloc(&mut p, len * 4, sys::CU_MEMHOSTALLOC_WRITECOMBINED) }.result()?;
        Ok(HostResults { ptr: p as *mut f32, len })
    }
}

impl Drop for HostResults {
    fn drop(&mut self) {
        unsafe { let _ = sys::cuMemFreeHost(self.ptr as *mut c_void); }
    }
}

fn argmax(ptr: *const f32, len: usize) -> (usize, f32) {
    let scores = unsafe { std::slice::from_raw_parts(ptr, len) };
    scores.iter().copied().enumerate().fold((0, f32::MIN), |best, (i, s)| if s > best.1 { (i, s) } else { best }) // EXPECT: write_combined_host_read
}

pub fn run() -> Result<(usize, f32), Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.new_stream()?;
    let n = 1 << 16;
    let mut scores: CUdeviceptr = 0;
    unsafe { sys::cuMemAlloc_v2(&mut scores, n * 4) }.result()?;
    unsafe { sys::cuMemsetD32Async(scores, 0x3f00_0000, n, stream.cu_stream()) }.result()?;
    let host = HostResults::alloc(n)?;
    unsafe { sys::cuMemcpyDtoHAsync_v2(host.ptr as *mut c_void, scores, n * 4, stream.cu_stream()) }.result()?;
    stream.synchronize()?;
    let best = argmax(host.ptr, host.len);
    unsafe { sys::cuMemFree_v2(scores) }.result()?;
    Ok(best)
}
