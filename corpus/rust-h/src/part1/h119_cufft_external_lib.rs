//! case: real-to-complex FFT of a sensor trace through cuFFT declared in an own `extern "C"` block: the raw device pointers from `result::malloc_sync` are handed to the library (not a host access), the input and the spectrum move through `cuMemHostAlloc` pinned memory, the host reads only after the stream is synchronized, and every allocation is released by its own allocator's free
//! expect: none

use std::ffi::c_void;

use cudarc::driver::{result, sys, CudaContext, DriverError};

#[allow(non_camel_case_types)]
type cufftHandle = i32;
const CUFFT_R2C: i32 = 0x2a;

#[link(name = "cufft")]
unsafe extern "C" {
    fn cufftPlan1d(plan: *mut cufftHandle, nx: i32, kind: i32, batch: i32) -> i32;
    fn cufftSetStream(plan: cufftHandle, stream: sys::CUstream) -> i32;
    fn cufftExecR2C(plan: cufftHandle, idata: *mut f32, odata: *mut c_void) -> i32;
    fn cufftDestroy(plan: cufftHandle) -> i32;
}

#[derive(Debug)]
pub enum FftError {
    Driver(DriverError),
    Cufft(&'static str, i32),
}

impl From<DriverError> for FftError {
    fn from(e: DriverError) -> Self {
        FftError::Driver(e)
    }
}

fn cufft(code: i32, what: &'static str) -> Result<(), FftError> {
    if code == 0 { Ok(()) } else { Err(FftError::Cufft(what, code)) }
}

/// Magnitude spectrum of `trace` (length n, n even): n/2 + 1 bins.
pub fn magnitude_spectrum(trace: &[f32]) -> Result<Vec<f32>, FftError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.new_stream()?;
    let n = trace.len();
    let bins = n / 2 + 1;
    let in_bytes = n * 4;
    let out_bytes = bins * 8;

    unsafe {
        let h_in = result::malloc_host(in_bytes, 0)? as *mut f32;
        let h_out = result::malloc_host(out_bytes, 0)? as *mut f32;
        std::slice::from_raw_parts_mut(h_in, n).copy_from_slice(trace);

        let d_in = result::malloc_sync(in_bytes)?;
        let d_out = result::malloc_sync(out_bytes)?;
        result::memcpy_htod_async(d_in, std::slice::from_raw_parts(h_in, n), stream.cu_stream())?;

        let mut plan: cufftHandle = 0;
        cufft(cufftPlan1d(&mut plan, n as i32, CUFFT_R2C, 1), "plan")?;
        cufft(cufftSetStream(plan, stream.cu_stream()), "set stream")?;
        cufft(cufftExecR2C(plan, d_in as *mut f32, d_out as *mut c_void), "exec")?;

        result::memcpy_dtoh_async(std::slice::from_raw_parts_mut(h_out, 2 * bins), d_out, stream.cu_stream())?;
        stream.synchronize()?;

        let spectrum = std::slice::from_raw_parts(h_out, 2 * bins)
            .chunks_exact(2)
            .map(|c| (c[0] * c[0] + c[1] * c[1]).sqrt())
            .collect();

        cufftDestroy(plan);
        result::free_sync(d_in)?;
        result::free_sync(d_out)?;
        result::free_host(h_in as *mut c_void)?;
        result::free_host(h_out as *mut c_void)?;
        Ok(spectrum)
    }
}
