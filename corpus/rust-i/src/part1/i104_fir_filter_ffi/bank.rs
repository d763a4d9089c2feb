use std::ffi::c_void;
use std::ptr::null_mut;

use super::ffi::*;
use super::{check, CudaRtError};

pub const MAX_TAPS: usize = 512;

pub struct FilterBank {
    stream: CudaStream,
    d_signal: *mut c_void,
    d_taps: *mut c_void,
    d_out: *mut c_void,
    h_out: *mut f32,
    n: usize,
    max_taps: usize,
}

impl FilterBank {
    pub fn new(n: usize, max_taps: usize) -> Result<Self, CudaRtError> {
        let mut bank = FilterBank {
            stream: null_mut(),
            d_signal: null_mut(),
            d_taps: null_mut(),
            d_out: null_mut(),
            h_out: null_mut(),
            n,
            max_taps,
        };
        unsafe {
            check("cudaStreamCreateWithFlags", cudaStreamCreateWithFlags(&mut bank.stream, CUDA_STREAM_NON_BLOCKING))?;
            check("cudaMalloc", cudaMalloc(&mut bank.d_signal, n * 4))?;
            check("cudaMalloc", cudaMalloc(&mut bank.d_taps, MAX_TAPS * 4))?;
            check("cudaMalloc", cudaMalloc(&mut bank.d_out, n * 4))?;
            let mut h: *mut c_void = null_mut();
            check("cudaMallocHost", cudaMallocHost(&mut h, n * 4))?;
            bank.h_out = h.cast();
        }
        Ok(bank)
    }

    pub fn load_signal(&mut self, signal: &Vec<f32>) -> Result<(), CudaRtError> {
        let bytes = signal.len() * std::mem::size_of::<f32>();
        unsafe {
            check(
                "cudaMemcpyAsync",
                cudaMemcpyAsync(self.d_signal, signal.as_ptr().cast(), bytes, CUDA_MEMCPY_HOST_TO_DEVICE, self.stream), // EXPECT: pageable_async_copy
            )
        }
    }

    /// Runs one filter and returns the energy of the filtered signal.
    pub fn apply(&mut self, taps: &[f32]) -> Result<f32, CudaRtError> {
        assert!(taps.len() <= MAX_TAPS && taps.len() <= self.max_taps);
        // Taps are zero-padded to a fixed 2 KiB block on the stack: a small copy.
        let mut padded = [0.0f32; MAX_TAPS];
        padded[..taps.len()].copy_from_slice(taps);
        unsafe {
            check(
                "cudaMemcpyAsync",
                cudaMemcpyAsync(self.d_taps, padded.as_ptr().cast(), MAX_TAPS * 4, CUDA_MEMCPY_HOST_TO_DEVICE, self.stream),
            )?;
            let mut n = self.n as i32;
            let mut ntaps = taps.len() as i32;
            let mut args: [*mut c_void; 5] = [
                (&mut self.d_signal) as *mut _ as *mut c_void,
                (&mut self.d_taps) as *mut _ as *mut c_void,
                (&mut self.d_out) as *mut _ as *mut c_void,
                (&mut n) as *mut i32 as *mut c_void,
                (&mut ntaps) as *mut i32 as *mut c_void,
            ];
            let grid = Dim3 { x: (self.n as u32).div_ceil(256), y: 1, z: 1 };
            let block = Dim3 { x: 256, y: 1, z: 1 };
            check(
                "cudaLaunchKernel",
                cudaLaunchKernel(&raw const fir_direct as *const c_void, grid, block, args.as_mut_ptr(), 0, self.stream),
            )?;
            check(
                "cudaMemcpyAsync",
                cudaMemcpyAsync(self.h_out.cast(), self.d_out, self.n * 4, CUDA_MEMCPY_DEVICE_TO_HOST, self.stream),
            )?;
            check("cudaStreamSynchronize", cudaStreamSynchronize(self.stream))?;
            let out = std::slice::from_raw_parts(self.h_out, self.n);
            Ok(out.iter().map(|v| v * v).sum())
        }
    }
}

impl Drop for FilterBank {
    fn drop(&mut self) {
        unsafe {
            cudaStreamSynchronize(self.stream);
            cudaFree(self.d_signal);
            cudaFree(self.d_taps);
            cudaFree(self.d_out);
            cudaFree(self.h_out.cast()); // EXPECT: mismatched_free
            cudaStreamDestroy(self.stream);
        }
    }
}
