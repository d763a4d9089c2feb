//! case: a crate's own extern "C" cudaMemcpy uploads 2*N floats from a host array of N floats (the source is read past its end)
//! expect: copy_out_of_bounds=1

use std::ffi::c_void;
use std::mem::size_of;

#[link(name = "cudart")]
unsafe extern "C" {
    fn cudaMalloc(dev_ptr: *mut *mut c_void, size: usize) -> i32;
    fn cudaMemcpy(dst: *mut c_void, src: *const c_void, count: usize, kind: i32) -> i32;
    fn cudaFree(dev_ptr: *mut c_void) -> i32;
}

const CUDA_MEMCPY_HOST_TO_DEVICE: i32 = 1;
const N: usize = 1000;

pub struct DeviceSignal {
    ptr: *mut c_void,
}

pub fn upload_signal() -> Result<DeviceSignal, i32> {
    // real and imaginary parts interleaved on the device; the host array only holds the real part
    let samples = [0.25f32; N];
    let mut d_signal: *mut c_void = std::ptr::null_mut();
    let rc = unsafe { cudaMalloc(&mut d_signal, 2 * N * size_of::<f32>()) };
    if rc != 0 {
        return Err(rc);
    }
    let rc = unsafe { cudaMemcpy(d_signal, samples.as_ptr() as *const c_void, 2 * N * size_of::<f32>(), CUDA_MEMCPY_HOST_TO_DEVICE) }; // EXPECT: copy_out_of_bounds
    if rc != 0 {
        unsafe { cudaFree(d_signal) };
        return Err(rc);
    }
    Ok(DeviceSignal { ptr: d_signal })
}

impl Drop for DeviceSignal {
    fn drop(&mut self) {
        unsafe { cudaFree(self.ptr) };
    }
}
