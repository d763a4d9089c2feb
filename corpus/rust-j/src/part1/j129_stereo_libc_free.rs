//! case: stereo-depth module allocates its disparity readback with cuMemHostAlloc through a hand-written FFI block; when the following device allocation fails, the error path releases the pinned buffer with `libc::free`
//! expect: mismatched_free=1

use std::ffi::{c_uint, c_void};
use std::ptr::null_mut;

type CUresult = i32;
type CUdeviceptr = u64;
type CUstream = *mut c_void;

const CU_MEMHOSTALLOC_PORTABLE: c_uint = 1;

#[allow(non_snake_case)]
unsafe extern "C" {
    fn cuMemHostAlloc(pp: *mut *mut c_void, bytes: usize, flags: c_uint) -> CUresult;
    fn cuMemFreeHost(p: *mut c_void) -> CUresult;
    fn cuMemAlloc_v2(dptr: *mut CUdeviceptr, bytes: usize) -> CUresult;
    fn cuMemFree_v2(dptr: CUdeviceptr) -> CUresult;
    fn cuMemcpyDtoHAsync_v2(dst: *mut c_void, src: CUdeviceptr, bytes: usize, stream: CUstream) -> CUresult;
    fn cuStreamSynchronize(stream: CUstream) -> CUresult;
}

#[derive(Debug, Clone, Copy)]
pub struct Rectified {
    pub width: u32,
    pub height: u32,
    pub max_disparity: u32,
}

#[derive(Debug)]
pub enum DepthError {
    HostAlloc(CUresult),
    DeviceAlloc(CUresult),
    Copy(CUresult),
}

pub struct DepthBuffers {
    host_disp: *mut u16,
    dev_disp: CUdeviceptr,
    dev_cost: CUdeviceptr,
    pixels: usize,
}

impl DepthBuffers {
    pub fn allocate(geom: Rectified) -> Result<Self, DepthError> {
        let pixels = (geom.width * geom.height) as usize;
        let mut host: *mut c_void = null_mut();
        let r = unsafe { cuMemHostAlloc(&mut host, pixels * 2, CU_MEMHOSTALLOC_PORTABLE) };
        if r != 0 {
            return Err(DepthError::HostAlloc(r));
        }
        let mut dev_disp = 0;
        let r = unsafe { cuMemAlloc_v2(&mut dev_disp, pixels * 2) };
        if r != 0 {
            unsafe { libc::free(host) }; // EXPECT: mismatched_free
            return Err(DepthError::DeviceAlloc(r));
        }
        let mut dev_cost = 0;
        let r = unsafe { cuMemAlloc_v2(&mut dev_cost, pixels * geom.max_disparity as usize) };
        if r != 0 {
            unsafe {
                cuMemFree_v2(dev_disp);
                cuMemFreeHost(host);
            }
            return Err(DepthError::DeviceAlloc(r));
        }
        Ok(Self { host_disp: host.cast(), dev_disp, dev_cost, pixels })
    }

    /// Depth in metres from the disparity the SGM kernels left in `dev_disp`.
    pub fn depth(&mut self, stream: CUstream, focal_px: f32, baseline_m: f32, out: &mut Vec<f32>) -> Result<(), DepthError> {
        unsafe {
            let r = cuMemcpyDtoHAsync_v2(self.host_disp.cast(), self.dev_disp, self.pixels * 2, stream);
            if r != 0 {
                return Err(DepthError::Copy(r));
            }
            let r = cuStreamSynchronize(stream);
            if r != 0 {
                return Err(DepthError::Copy(r));
            }
            let disp = std::slice::from_raw_parts(self.host_disp, self.pixels);
            out.clear();
            out.extend(disp.iter().map(|&d| if d == 0 { f32::INFINITY } else { focal_px * baseline_m * 16.0 / d as f32 }));
        }
        Ok(())
    }
}

impl Drop for DepthBuffers {
    fn drop(&mut self) {
        unsafe {
            cuMemFree_v2(self.dev_cost);
            cuMemFree_v2(self.dev_disp);
            cuMemFreeHost(self.host_disp.cast());
        }
    }
}
