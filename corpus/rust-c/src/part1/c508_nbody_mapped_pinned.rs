//! case: the n-body diagnostic done with zero-copy memory: velocities live in `cuMemHostAlloc(DEVICEMAP)` memory, the kernel gets the mapped device pointer, the host reads through the host pointer after a stream synchronize, and the memory goes back with `cuMemFreeHost`
//! expect: none
use std::ffi::c_void;
use std::ptr::null_mut;

use cudarc::driver::{result, sys};

pub struct MappedVelocities {
    host: *mut f32,
    dev: sys::CUdeviceptr,
    n: usize,
    stream: sys::CUstream,
}

fn check(r: sys::CUresult) -> Result<(), result::DriverError> {
    r.result()
}

impl MappedVelocities {
    pub fn new(n: usize, stream: sys::CUstream) -> Result<Self, result::DriverError> {
        let mut host: *mut c_void = null_mut();
        let mut dev: sys::CUdeviceptr = 0;
        unsafe {
            check(sys::cuMemHostAlloc(&mut host, n * 4, sys::CU_MEMHOSTALLOC_DEVICEMAP | sys::CU_MEMHOSTALLOC_PORTABLE))?;
            check(sys::cuMemHostGetDevicePointer_v2(&mut dev, host, 0))?;
            std::ptr::write_bytes(host as *mut f32, 0, n);
        }
        Ok(Self { host: host as *mut f32, dev, n, stream })
    }

    /// The kernel writes through the mapped device address.
    pub fn integrate(&mut self, kick: sys::CUfunction, acc: sys::CUdeviceptr, dt: f32) -> Result<(), result::DriverError> {
        let n = self.n as i32;
        let mut acc = acc;
        let mut params: [*mut c_void; 4] = [
            &mut self.dev as *mut _ as *mut c_void,
            &mut acc as *mut _ as *mut c_void,
            &dt as *const f32 as *mut c_void,
            &n as *const i32 as *mut c_void,
        ];
        let blocks = (self.n as u32).div_ceil(256);
        unsafe {
            check(sys::cuLaunchKernel(kick, blocks, 1, 1, 256, 1, 1, 0, self.stream, params.as_mut_ptr(), null_mut()))
        }
    }

    /// Host side reads through the host address of the same pinned pages.
    pub fn kinetic_energy(&self) -> Result<f64, result::DriverError> {
        unsafe { check(sys::cuStreamSynchronize(self.stream))? };
        let vel = unsafe { std::slice::from_raw_parts(self.host as *const f32, self.n) };
        Ok(vel.iter().map(|&v| 0.5 * (v as f64) * (v as f64)).sum())
    }
}

impl Drop for MappedVelocities {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuStreamSynchronize(self.stream);
            let _ = sys::cuMemFreeHost(self.host as *mut c_void);
        }
    }
}
