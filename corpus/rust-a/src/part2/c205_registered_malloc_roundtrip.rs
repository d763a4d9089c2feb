//! case: libc::malloc'd host memory page-locked with cuMemHostRegister, unregistered and freed with free: all matched
//! expect: none
use std::ffi::c_void;

use cudarc::driver::sys::{self, CUdeviceptr};
use cudarc::driver::{CudaContext, DriverError};

/// Host memory the application owns (from the C heap), pinned for the duration of a transfer.
struct PinnedRegion {
    ptr: *mut c_void,
    bytes: usize,
}

impl PinnedRegion {
    fn new(bytes: usize) -> Result<Self, DriverError> {
        let ptr = unsafe { libc::malloc(bytes) };
        assert!(!ptr.is_null(), "out of host memory");
        let r = unsafe { sys::cuMemHostRegister_v2(ptr, bytes, 0) }.result();
        if let Err(e) = r {
            unsafe { libc::free(ptr) };
            return Err(e);
        }
        Ok(PinnedRegion { ptr, bytes })
    }
}

impl Drop for PinnedRegion {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuMemHostUnregister(self.ptr);
            libc::free(self.ptr);
        }
    }
}

pub fn run() -> Result<f64, Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.new_stream()?;
    let bytes = 4 << 20;
    let region = PinnedRegion::new(bytes)?;
    let mut dev: CUdeviceptr = 0;
    unsafe { sys::cuMemAlloc_v2(&mut dev, bytes) }.result()?;
    unsafe { sys::cuMemsetD8Async(dev, 1, bytes, stream.cu_stream()) }.result()?;
    unsafe { sys::cuMemcpyDtoHAsync_v2(region.ptr, dev, bytes, stream.cu_stream()) }.result()?;
    stream.synchronize()?;
    let data = unsafe { std::slice::from_raw_parts(region.ptr as *const u8, region.bytes) };
    let mean = data.iter().map(|&b| b as f64).sum::<f64>() / data.len() as f64;
    unsafe { sys::cuMemFree_v2(dev) }.result()?;
    drop(region);
    Ok(mean)
}
