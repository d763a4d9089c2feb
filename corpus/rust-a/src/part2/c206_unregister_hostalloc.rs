//! case: a mapped pinned buffer from cuMemHostAlloc whose Drop "unpins" it with cuMemHostUnregister before cuMemFreeHost
//! expect: mismatched_free=1
use std::ffi::c_void;
use std::ptr::null_mut;

use cudarc::driver::sys;
use cudarc::driver::{CudaContext, DriverError};

/// Zero-copy host buffer that kernels read through its mapped device address.
pub struct MappedHostBuffer<T> {
    host: *mut T,
    len: usize,
}

impl<T: Copy + Default> MappedHostBuffer<T> {
    pub fn new(len: usize) -> Result<Self, DriverError> {
        let mut p: *mut c_void = null_mut();
        let flags = sys::CU_MEMHOSTALLOC_DEVICEMAP | sys::CU_MEMHOSTALLOC_PORTABLE;
        unsafe { sys::cuMemHostAlloc(&mut p, len * std::mem::size_of::<T>(), flags) }.result()?;
        let host = p as *mut T;
        for i in 0..len {
            unsafe { host.add(i).write(T::default()) };
        }
        Ok(MappedHostBuffer { host, len })
    }

    pub fn device_ptr(&self) -> Result<sys::CUdeviceptr, DriverError> {
        let mut d: sys::CUdeviceptr = 0;
        unsafe { sys::cuMemHostGetDevicePointer_v2(&mut d, self.host as *mut c_void, 0) }.result()?;
        Ok(d)
    }

    pub fn as_mut_slice(&mut self) -> &mut [T] {
        unsafe { std::slice::from_raw_parts_mut(self.host, self.len) }
    }
}

impl<T> Drop for MappedHostBuffer<T> {
    fn drop(&mut self) {
        unsafe {
            // Unpin first, then hand the pages back.
            let _ = sys::cuMemHostUnregister(self.host as *mut c_void); // EXPECT: mismatched_free
            let _ = sys::cuMemFreeHost(self.host as *mut c_void);
        }
    }
}

pub fn run() -> Result<(), Box<dyn std::error::Error>> {
    let _ctx = CudaContext::new(0)?;
    let mut weights = MappedHostBuffer::<f32>::new(1024)?;
    weights.as_mut_slice().iter_mut().enumerate().for_each(|(i, w)| *w = 1.0 / (1 + i) as f32);
    let d = weights.device_ptr()?;
    println!("weights visible to the device at {d:#x}");
    Ok(())
}
