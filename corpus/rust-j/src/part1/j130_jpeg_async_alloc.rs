//! case: JPEG decoder allocates its DCT coefficient scratch with cuMemAllocAsync on its stream and, after cuStreamSynchronize, releases it with plain cuMemFree (allowed for stream-ordered allocations once their work is done); the pinned MCU readback from cuMemAllocHost goes back with cuMemFreeHost
//! expect: none

use std::ffi::c_void;
use std::ptr::null_mut;

use cudarc::driver::sys;

pub struct JpegFrame<'a> {
    pub width: u32,
    pub height: u32,
    /// Huffman-decoded coefficients, already on the device (from the entropy decoder stage).
    pub d_huffman_out: sys::CUdeviceptr,
    pub quant: &'a [u16; 64],
}

pub struct IdctStage {
    stream: sys::CUstream,
    idct: sys::CUfunction,
    h_pixels: *mut u8,
    capacity: usize,
}

#[derive(Debug)]
pub struct StageError(pub sys::CUresult);

impl From<sys::CUresult> for StageError {
    fn from(r: sys::CUresult) -> Self {
        StageError(r)
    }
}

fn ok(r: sys::CUresult) -> Result<(), StageError> {
    if r == sys::CUresult::CUDA_SUCCESS { Ok(()) } else { Err(StageError(r)) }
}

impl IdctStage {
    pub fn new(stream: sys::CUstream, idct: sys::CUfunction, max_pixels: usize) -> Result<Self, StageError> {
        let mut p: *mut c_void = null_mut();
        unsafe { ok(sys::cuMemAllocHost_v2(&mut p, max_pixels))? };
        Ok(Self { stream, idct, h_pixels: p.cast(), capacity: max_pixels })
    }

    pub fn decode(&mut self, frame: &JpegFrame<'_>) -> Result<&[u8], StageError> {
        let pixels = (frame.width * frame.height) as usize;
        assert!(pixels <= self.capacity);
        let mut coeffs: sys::CUdeviceptr = 0;
        let mut out: sys::CUdeviceptr = 0;
        unsafe {
            ok(sys::cuMemAllocAsync(&mut coeffs, pixels * 2, self.stream))?;
            ok(sys::cuMemAllocAsync(&mut out, pixels, self.stream))?;
            ok(sys::cuMemcpyDtoDAsync_v2(coeffs, frame.d_huffman_out, pixels * 2, self.stream))?;
            let mut q = [0u32; 32];
            for (i, w) in frame.quant.chunks(2).enumerate() {
                q[i] = w[0] as u32 | ((w[1] as u32) << 16);
            }
            let (mut c, mut o, mut w, mut h) = (coeffs, out, frame.width as i32, frame.height as i32);
            let mut params = [
                (&mut c as *mut sys::CUdeviceptr).cast::<c_void>(),
                (&mut o as *mut sys::CUdeviceptr).cast(),
                (&mut w as *mut i32).cast(),
                (&mut h as *mut i32).cast(),
                q.as_mut_ptr().cast(),
            ];
            ok(sys::cuLaunchKernel(self.idct, frame.width.div_ceil(8), frame.height.div_ceil(8), 1, 8, 8, 1, 0, self.stream, params.as_mut_ptr(), null_mut()))?;
            ok(sys::cuMemcpyDtoHAsync_v2(self.h_pixels.cast(), out, pixels, self.stream))?;
            ok(sys::cuStreamSynchronize(self.stream))?;
            // All work using the scratch is complete: a plain cuMemFree is fine here.
            ok(sys::cuMemFree_v2(coeffs))?;
            ok(sys::cuMemFree_v2(out))?;
            Ok(std::slice::from_raw_parts(self.h_pixels, pixels))
        }
    }
}

impl Drop for IdctStage {
    fn drop(&mut self) {
        unsafe {
            sys::cuStreamSynchronize(self.stream);
            sys::cuMemFreeHost(self.h_pixels.cast());
        }
    }
}
