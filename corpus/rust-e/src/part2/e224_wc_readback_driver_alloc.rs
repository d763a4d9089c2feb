//! case: a particle simulation allocates its readback buffer with cuMemHostAlloc and CU_MEMHOSTALLOC_WRITECOMBINED ("fastest transfers"), then reads every position on the host after a correct synchronize to compute the bounding box
//! expect: write_combined_host_read=1

use std::ffi::c_void;
use std::ptr::null_mut;

use cudarc::driver::{sys, DriverError};

#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct Float3 {
    pub x: f32,
    pub y: f32,
    pub z: f32,
}

pub struct Readback {
    host: *mut Float3,
    len: usize,
}

impl Readback {
    pub fn new(len: usize) -> Result<Self, DriverError> {
        let mut p: *mut c_void = null_mut();
        let flags = sys::CU_MEMHOSTALLOC_WRITECOMBINED | sys::CU_MEMHOSTALLOC_PORTABLE;
        unsafe { sys::cuMemHostAlloc(&mut p, len * std::mem::size_of::<Float3>(), flags) }.result()?;
        Ok(Self { host: p as *mut Float3, len })
    }

    /// Copies `positions` (device, `len` Float3) back and returns the axis-aligned bounds.
    pub fn bounds(&mut self, positions: sys::CUdeviceptr, stream: sys::CUstream) -> Result<(Float3, Float3), DriverError> {
        let bytes = self.len * std::mem::size_of::<Float3>();
        unsafe {
            sys::cuMemcpyDtoHAsync_v2(self.host as *mut c_void, positions, bytes, stream).result()?;
            sys::cuStreamSynchronize(stream).result()?;
        }
        let init = (Float3 { x: f32::MAX, y: f32::MAX, z: f32::MAX }, Float3 { x: f32::MIN, y: f32::MIN, z: f32::MIN });
        let (lo, hi) = unsafe { std::slice::from_raw_parts(self.host, self.len) }.iter().fold(init, |(lo, hi), p| { // EXPECT: write_combined_host_read
            (
                Float3 { x: lo.x.min(p.x), y: lo.y.min(p.y), z: lo.z.min(p.z) },
                Float3 { x: hi.x.max(p.x), y: hi.y.max(p.y), z: hi.z.max(p.z) },
            )
        });
        Ok((lo, hi))
    }
}

impl Drop for Readback {
    fn drop(&mut self) {
        let _ = unsafe { sys::cuMemFreeHost(self.host as *mut c_void) };
    }
}
