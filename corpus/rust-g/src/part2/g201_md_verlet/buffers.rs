//! Device arrays and page-locked host mirrors of the MD system.

use cudarc::driver::result::DriverError;
use cudarc::driver::sys::{self, CUdeviceptr, CUstream};

/// `len` floats of device memory (`cuMemAlloc_v2`), zeroed on the simulation stream.
pub struct DeviceArray {
    pub ptr: CUdeviceptr,
    pub len: usize,
}

impl DeviceArray {
    pub fn zeroed(len: usize, stream: CUstream) -> Result<Self, DriverError> {
        let mut ptr: CUdeviceptr = 0;
        unsafe {
            sys::cuMemAlloc_v2(&mut ptr, len * std::mem::size_of::<f32>()).result()?;
            sys::cuMemsetD32Async(ptr, 0, len, stream).result()?;
        }
        Ok(Self { ptr, len })
    }

    pub fn bytes(&self) -> usize {
        self.len * std::mem::size_of::<f32>()
    }
}

impl Drop for DeviceArray {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuMemFree_v2(self.ptr);
        }
    }
}

/// Page-locked host memory (`cuMemAllocHost_v2`) the simulation copies results into.
pub struct HostMirror {
    pub ptr: *mut f32,
    pub len: usize,
}

impl HostMirror {
    pub fn new(len: usize) -> Result<Self, DriverError> {
        let mut raw = std::ptr::null_mut();
        unsafe { sys::cuMemAllocHost_v2(&mut raw, len * std::mem::size_of::<f32>()).result()? };
        Ok(Self { ptr: raw.cast(), len })
    }

    pub fn as_mut_slice(&mut self) -> &mut [f32] {
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }
    }

    pub fn as_slice(&self) -> &[f32] {
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

impl Drop for HostMirror {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuMemFreeHost(self.ptr.cast());
        }
    }
}
