//! case: a telemetry block in managed memory attached to its own stream (cuStreamAttachMemAsync, CU_MEM_ATTACH_SINGLE); the host updates it while a kernel on another stream runs
//! expect: none
use std::ffi::c_void;

use cudarc::driver::{sys, DriverError};

#[repr(C)]
#[derive(Default, Clone, Copy)]
pub struct Telemetry {
    frames: u64,
    dropped: u64,
    last_latency_us: f32,
}

pub struct Renderer {
    render_stream: sys::CUstream,
    telemetry_stream: sys::CUstream,
    telemetry: sys::CUdeviceptr,
    framebuffer: sys::CUdeviceptr,
    fb_bytes: usize,
    shade: sys::CUfunction,
}

impl Renderer {
    pub fn new(shade: sys::CUfunction, fb_bytes: usize) -> Result<Self, DriverError> {
        let mut r = Self {
            render_stream: std::ptr::null_mut(),
            telemetry_stream: std::ptr::null_mut(),
            telemetry: 0,
            framebuffer: 0,
            fb_bytes,
            shade,
        };
        let flags = sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32;
        unsafe {
            sys::cuStreamCreate(&mut r.render_stream, flags).result()?;
            sys::cuStreamCreate(&mut r.telemetry_stream, flags).result()?;
            sys::cuMemAlloc_v2(&mut r.framebuffer, fb_bytes).result()?;
            sys::cuMemAllocManaged(&mut r.telemetry, std::mem::size_of::<Telemetry>(), sys::CUmemAttach_flags::CU_MEM_ATTACH_GLOBAL as u32).result()?;
            // owned by the telemetry stream only: the host may use it whenever that stream is idle
            sys::cuStreamAttachMemAsync(r.telemetry_stream, r.telemetry, 0, sys::CUmemAttach_flags::CU_MEM_ATTACH_SINGLE as u32).result()?;
            sys::cuStreamSynchronize(r.telemetry_stream).result()?;
            std::ptr::write(r.telemetry as *mut Telemetry, Telemetry::default());
        }
        Ok(r)
    }

    pub fn frame(&mut self, latency_us: f32) -> Result<(), DriverError> {
        let mut fb = self.framebuffer;
        let mut n = (self.fb_bytes / 4) as u32;
        let mut params: [*mut c_void; 2] = [(&mut fb as *mut u64).cast(), (&mut n as *mut u32).cast()];
        unsafe {
            sys::cuLaunchKernel(self.shade, n.div_ceil(256), 1, 1, 256, 1, 1, 0, self.render_stream, params.as_mut_ptr(), std::ptr::null_mut()).result()?;
            let t = &mut *(self.telemetry as *mut Telemetry);
            t.frames += 1;
            t.last_latency_us = latency_us;
            sys::cuStreamSynchronize(self.render_stream).result()
        }
    }
}

impl Drop for Renderer {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuStreamSynchronize(self.render_stream);
            let _ = sys::cuMemFree_v2(self.framebuffer);
            let _ = sys::cuMemFree_v2(self.telemetry);
            let _ = sys::cuStreamDestroy_v2(self.render_stream);
            let _ = sys::cuStreamDestroy_v2(self.telemetry_stream);
        }
    }
}
