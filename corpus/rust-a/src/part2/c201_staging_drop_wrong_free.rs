//! case: a pinned upload staging buffer (cuMemAllocHost) whose Drop impl releases it with cuMemFree
//! expect: mismatched_free=1
use std::ffi::c_void;
use std::ptr::null_mut;
use std::sync::Arc;

use cudarc::driver::sys::{self, CUdeviceptr, CUstream};
use cudarc::driver::{CudaContext, DriverError};

/// Page-locked staging area used to stream tiles to the device.
pub struct HostStaging {
    ptr: *mut c_void,
    bytes: usize,
    stream: CUstream,
}

impl HostStaging {
    pub fn new(bytes: usize, stream: CUstream) -> Result<Self, DriverError> {
        let mut ptr: *mut c_void = null_mut();
        unsafe { sys::cuMemAllocHost_v2(&mut ptr, bytes) }.result()?;
        Ok(HostStaging { ptr, bytes, stream })
    }

    pub fn fill_with(&mut self, f: impl Fn(usize) -> f32) {
        let n = self.bytes / std::mem::size_of::<f32>();
        let host = unsafe { std::slice::from_raw_parts_mut(self.ptr as *mut f32, n) };
        for (i, v) in host.iter_mut().enumerate() {
            *v = f(i);
        }
    }

    pub fn upload(&self, dst: CUdeviceptr) -> Result<(), DriverError> {
        unsafe { sys::cuMemcpyHtoDAsync_v2(dst, self.ptr, self.bytes, self.stream) }.result()
    }
}

impl Drop for HostStaging {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuStreamSynchronize(self.stream);
            // The staging area goes back "to the driver" with the device free function.
            let _ = sys::cuMemFree_v2(self.ptr as CUdeviceptr); // EXPECT: mismatched_free
        }
    }
}

pub fn run() -> Result<(), Box<dyn std::error::Error>> {
    let ctx: Arc<CudaContext> = CudaContext::new(0)?;
    let stream = ctx.new_stream()?;
    let bytes = 1 << 20;
    let mut dev: CUdeviceptr = 0;
    unsafe { sys::cuMemAlloc_v2(&mut dev, bytes) }.result()?;
    {
        let mut staging = HostStaging::new(bytes, stream.cu_stream())?;
        staging.fill_with(|i| (i % 97) as f32);
        staging.upload(dev)?;
    } // staging dropped here: synchronizes, then frees
    unsafe { sys::cuMemFree_v2(dev) }.result()?;
    Ok(())
}
