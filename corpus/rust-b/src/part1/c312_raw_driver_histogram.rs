//! case: a histogram tool on raw `driver::sys` reads its pinned result after a readback it only waits for when `verbose` is set
//! expect: missing_sync=1
use std::ffi::c_void;
use std::ptr;

use cudarc::driver::sys::{self, CUdeviceptr, CUstream};
use cudarc::driver::DriverError;

pub struct HostBins {
    ptr: *mut u32,
    len: usize,
}

impl HostBins {
    pub fn new(len: usize) -> Result<Self, DriverError> {
        let mut p: *mut c_void = ptr::null_mut();
        // Portable, cached pinned memory.
        unsafe { sys::cuMemHostAlloc(&mut p, len * 4, sys::CU_MEMHOSTALLOC_PORTABLE) }.result()?;
        Ok(Self { ptr: p.cast(), len })
    }

    pub fn as_slice(&self) -> &[u32] {
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

impl Drop for HostBins {
    fn drop(&mut self) {
        unsafe { sys::cuMemFreeHost(self.ptr.cast()) };
    }
}

pub fn report(stream: CUstream, d_bins: CUdeviceptr, bins: &mut HostBins, verbose: bool) -> Result<u32, DriverError> {
    unsafe { sys::cuMemcpyDtoHAsync_v2(bins.ptr.cast(), d_bins, bins.len * 4, stream) }.result()?;
    if verbose {
        unsafe { sys::cuStreamSynchronize(stream) }.result()?;
        eprintln!("bins ready");
    }
    // Without `verbose`, the copy into the pinned bins may still be running.
    let peak = bins.as_slice().iter().copied().max().unwrap_or(0); // EXPECT: missing_sync
    Ok(peak)
}
