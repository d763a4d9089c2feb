use super::Plugin;
use cudarc::driver::sys::{self, CUdeviceptr, CUresult, CUstream};
use std::ffi::c_void;
use std::ptr;

fn ok(r: CUresult) -> Result<(), CUresult> {
    if r == CUresult::CUDA_SUCCESS { Ok(()) } else { Err(r) }
}

/// Host-only: expands the container's run-length coded frame in a malloc'd scratch area.
#[derive(Default)]
pub struct DecoderPlugin {
    scratch: *mut u8,
    len: usize,
}

unsafe impl Send for DecoderPlugin {}

impl Plugin for DecoderPlugin {
    fn name(&self) -> &'static str {
        "decoder"
    }
    fn init(&mut self, frame_bytes: usize) -> Result<(), CUresult> {
        self.scratch = unsafe { libc::malloc(frame_bytes) as *mut u8 };
        self.len = frame_bytes;
        if self.scratch.is_null() { Err(CUresult::CUDA_ERROR_OUT_OF_MEMORY) } else { Ok(()) }
    }
    fn process(&mut self, frame: &mut [u8]) -> Result<(), CUresult> {
        let scratch = unsafe { std::slice::from_raw_parts_mut(self.scratch, self.len) };
        let n = frame.len().min(self.len);
        scratch[..n].copy_from_slice(&frame[..n]);
        for (dst, src) in frame.iter_mut().zip(scratch.iter()) {
            *dst = src.wrapping_sub(128);
        }
        Ok(())
    }
    fn shutdown(&mut self) {
        if !self.scratch.is_null() {
            unsafe { libc::free(self.scratch as *mut c_void) };
            self.scratch = ptr::null_mut();
        }
    }
}

/// Copies frames to the device through a page-locked staging area.
pub struct UploadPlugin {
    stream: CUstream,
    staging: *mut c_void,
    device: CUdeviceptr,
    len: usize,
}

unsafe impl Send for UploadPlugin {}

impl UploadPlugin {
    pub fn new(stream: CUstream) -> Self {
        UploadPlugin { stream, staging: ptr::null_mut(), device: 0, len: 0 }
    }
}

impl Plugin for UploadPlugin {
    fn name(&self) -> &'static str {
        "upload"
    }
    fn init(&mut self, frame_bytes: usize) -> Result<(), CUresult> {
        let mut staging: *mut c_void = ptr::null_mut();
        let mut device: CUdeviceptr = 0;
        unsafe {
            ok(sys::cuMemHostAlloc(&mut staging, frame_bytes, sys::CU_MEMHOSTALLOC_PORTABLE))?;
            if let Err(e) = ok(sys::cuMemAlloc_v2(&mut device, frame_bytes)) {
                // Out of device memory: undo the host side before reporting.
                libc::free(staging); // EXPECT: mismatched_free
                return Err(e);
            }
        }
        self.staging = staging;
        self.device = device;
        self.len = frame_bytes;
        Ok(())
    }
    fn process(&mut self, frame: &mut [u8]) -> Result<(), CUresult> {
        let n = frame.len().min(self.len);
        unsafe {
            std::slice::from_raw_parts_mut(self.staging as *mut u8, n).copy_from_slice(&frame[..n]);
            ok(sys::cuMemcpyHtoDAsync_v2(self.device, self.staging, n, self.stream))?;
            ok(sys::cuStreamSynchronize(self.stream))
        }
    }
    fn shutdown(&mut self) {
        unsafe {
            sys::cuStreamSynchronize(self.stream);
            if self.device != 0 {
                sys::cuMemFree_v2(self.device);
                self.device = 0;
            }
            if !self.staging.is_null() {
                sys::cuMemFreeHost(self.staging);
                self.staging = ptr::null_mut();
            }
        }
    }
}

/// Runs the denoise filter on a device copy of the frame.
pub struct GpuFilterPlugin {
    stream: CUstream,
    work: CUdeviceptr,
    len: usize,
}

unsafe impl Send for GpuFilterPlugin {}

impl GpuFilterPlugin {
    pub fn new(stream: CUstream) -> Self {
        GpuFilterPlugin { stream, work: 0, len: 0 }
    }
}

impl Plugin for GpuFilterPlugin {
    fn name(&self) -> &'static str {
        "gpu-filter"
    }
    fn init(&mut self, frame_bytes: usize) -> Result<(), CUresult> {
        self.len = frame_bytes;
        unsafe { ok(sys::cuMemAlloc_v2(&mut self.work, frame_bytes)) }
    }
    fn process(&mut self, _frame: &mut [u8]) -> Result<(), CUresult> {
        unsafe { ok(sys::cuMemsetD8Async(self.work, 0, self.len, self.stream)) }
    }
    fn shutdown(&mut self) {
        unsafe {
            sys::cuStreamSynchronize(self.stream);
            if self.work != 0 {
                sys::cuMemFree_v2(self.work);
                self.work = 0;
            }
        }
    }
}
