//! case: HDR tonemapper allocates its luminance-histogram readback with cuMemHostAlloc(CU_MEMHOSTALLOC_WRITECOMBINED) through its own FFI block (copied from an upload path), synchronizes, then scans the histogram on the host to find the exposure key: host reads of write-combined memory
//! expect: write_combined_host_read=1

use std::ffi::{c_uint, c_void};
use std::ptr::null_mut;

type CUresult = i32;
type CUdeviceptr = u64;
type CUstream = *mut c_void;

const CU_MEMHOSTALLOC_WRITECOMBINED: c_uint = 0x04;

#[allow(non_snake_case)]
unsafe extern "C" {
    fn cuMemHostAlloc(pp: *mut *mut c_void, bytes: usize, flags: c_uint) -> CUresult;
    fn cuMemFreeHost(p: *mut c_void) -> CUresult;
    fn cuMemcpyDtoHAsync_v2(dst: *mut c_void, src: CUdeviceptr, bytes: usize, stream: CUstream) -> CUresult;
    fn cuStreamSynchronize(stream: CUstream) -> CUresult;
}

pub const LUMA_BINS: usize = 1024;

pub struct ExposureMeter {
    hist: *mut u32,
    adapted_key: f32,
}

impl ExposureMeter {
    pub fn new() -> Result<Self, CUresult> {
        let mut p: *mut c_void = null_mut();
        let r = unsafe { cuMemHostAlloc(&mut p, LUMA_BINS * 4, CU_MEMHOSTALLOC_WRITECOMBINED) };
        if r != 0 {
            return Err(r);
        }
        Ok(Self { hist: p.cast(), adapted_key: 0.18 })
    }

    /// `d_hist` is filled by the luminance-histogram pass of the frame graph on `stream`.
    pub fn update(&mut self, stream: CUstream, d_hist: CUdeviceptr, dt: f32) -> Result<f32, CUresult> {
        unsafe {
            let r = cuMemcpyDtoHAsync_v2(self.hist.cast(), d_hist, LUMA_BINS * 4, stream);
            if r != 0 {
                return Err(r);
            }
            let r = cuStreamSynchronize(stream);
            if r != 0 {
                return Err(r);
            }
        }
        let hist = unsafe { std::slice::from_raw_parts(self.hist, LUMA_BINS) };
        let total: u64 = hist.iter().map(|&c| c as u64).sum(); // EXPECT: write_combined_host_read
        let mut acc = 0u64;
        let mut log_sum = 0.0f64;
        for (bin, &c) in hist.iter().enumerate() {
            acc += c as u64;
            if acc * 100 < total * 2 || acc * 100 > total * 98 {
                continue;
            }
            let log_l = -10.0 + 20.0 * (bin as f64 + 0.5) / LUMA_BINS as f64;
            log_sum += log_l * c as f64;
        }
        let avg = (log_sum / total.max(1) as f64).exp2() as f32;
        let target = 0.18 / avg.max(1e-4);
        self.adapted_key += (target - self.adapted_key) * (1.0 - (-dt * 1.5).exp());
        Ok(self.adapted_key)
    }
}

impl Drop for ExposureMeter {
    fn drop(&mut self) {
        unsafe {
            cuMemFreeHost(self.hist.cast());
        }
    }
}
