//! case: music source separation hands cuMemAlloc'd spectrogram buffers to a vendor DSP library through its C API (passing device pointers to a library is not a host access), but the post-run sanity check dereferences the vocals mask's device pointer on the host
//! expect: host_deref_device_ptr=1

use std::ffi::{c_int, c_void};

use cudarc::driver::{sys, DriverError};

// Vendor SDK (libvdsp), C API; pointers are device pointers.
unsafe extern "C" {
    fn vdsp_unmix_create(bins: c_int, frames: c_int, handle: *mut *mut c_void) -> c_int;
    fn vdsp_unmix_run(handle: *mut c_void, mix_mag: sys::CUdeviceptr, vocals_mask: sys::CUdeviceptr, stream: sys::CUstream) -> c_int;
    fn vdsp_unmix_destroy(handle: *mut c_void) -> c_int;
}

pub struct Separator {
    handle: *mut c_void,
    bins: usize,
    frames: usize,
    stream: sys::CUstream,
    mix_mag: sys::CUdeviceptr,
    vocals_mask: sys::CUdeviceptr,
}

#[derive(Debug)]
pub enum SepError {
    Cuda(DriverError),
    Vendor(c_int),
    BadMask(f32),
}

impl From<DriverError> for SepError {
    fn from(e: DriverError) -> Self {
        SepError::Cuda(e)
    }
}

impl Separator {
    pub fn new(bins: usize, frames: usize, stream: sys::CUstream) -> Result<Self, SepError> {
        let mut s = Separator { handle: std::ptr::null_mut(), bins, frames, stream, mix_mag: 0, vocals_mask: 0 };
        unsafe {
            sys::cuMemAlloc_v2(&mut s.mix_mag, bins * frames * 4).result()?;
            sys::cuMemAlloc_v2(&mut s.vocals_mask, bins * frames * 4).result()?;
            let rc = vdsp_unmix_create(bins as c_int, frames as c_int, &mut s.handle);
            if rc != 0 {
                return Err(SepError::Vendor(rc));
            }
        }
        Ok(s)
    }

    /// `mag` is a device spectrogram produced by the STFT stage (same layout), copied in.
    pub fn separate(&mut self, mag: sys::CUdeviceptr) -> Result<(), SepError> {
        unsafe {
            sys::cuMemcpyDtoDAsync_v2(self.mix_mag, mag, self.bins * self.frames * 4, self.stream).result()?;
            let rc = vdsp_unmix_run(self.handle, self.mix_mag, self.vocals_mask, self.stream);
            if rc != 0 {
                return Err(SepError::Vendor(rc));
            }
            sys::cuStreamSynchronize(self.stream).result()?;
            // A soft mask must lie in [0, 1].
            let first = *(self.vocals_mask as *const f32); // EXPECT: host_deref_device_ptr
            if !(0.0..=1.0).contains(&first) {
                return Err(SepError::BadMask(first));
            }
        }
        Ok(())
    }
}

impl Drop for Separator {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuStreamSynchronize(self.stream);
            vdsp_unmix_destroy(self.handle);
            let _ = sys::cuMemFree_v2(self.mix_mag);
            let _ = sys::cuMemFree_v2(self.vocals_mask);
        }
    }
}
