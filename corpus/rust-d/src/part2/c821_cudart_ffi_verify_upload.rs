//! case: a small libcudart FFI wrapper uploads weights with a blocking `cudaMemcpy` and, in debug builds, "verifies" the upload by building a host slice over the `cudaMalloc` pointer and comparing it with the source: a host read of device memory
//! expect: host_deref_device_ptr=1

use std::ffi::c_void;

#[allow(non_camel_case_types)]
type cudaError_t = i32;
const CUDA_MEMCPY_HOST_TO_DEVICE: i32 = 1;

#[link(name = "cudart")]
unsafe extern "C" {
    fn cudaMalloc(dev_ptr: *mut *mut c_void, size: usize) -> cudaError_t;
    fn cudaFree(dev_ptr: *mut c_void) -> cudaError_t;
    fn cudaMemcpy(dst: *mut c_void, src: *const c_void, count: usize, kind: i32) -> cudaError_t;
    fn cudaGetErrorString(err: cudaError_t) -> *const std::ffi::c_char;
}

#[derive(Debug)]
pub struct CudaError(pub cudaError_t);

impl std::fmt::Display for CudaError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let msg = unsafe { std::ffi::CStr::from_ptr(cudaGetErrorString(self.0)) };
        write!(f, "CUDA error {}: {}", self.0, msg.to_string_lossy())
    }
}

fn check(e: cudaError_t) -> Result<(), CudaError> {
    if e == 0 { Ok(()) } else { Err(CudaError(e)) }
}

pub struct DeviceWeights {
    ptr: *mut f32,
    len: usize,
}

impl DeviceWeights {
    pub fn upload(name: &str, host: &[f32]) -> Result<DeviceWeights, CudaError> {
        let bytes = std::mem::size_of_val(host);
        let mut raw: *mut c_void = std::ptr::null_mut();
        check(unsafe { cudaMalloc(&mut raw, bytes) })?;
        check(unsafe { cudaMemcpy(raw, host.as_ptr() as *const c_void, bytes, CUDA_MEMCPY_HOST_TO_DEVICE) })?;
        let ptr = raw as *mut f32;

        if cfg!(debug_assertions) {
            let on_device = unsafe { std::slice::from_raw_parts(ptr as *const f32, host.len()) }; // EXPECT: host_deref_device_ptr
            if let Some((i, (a, b))) = on_device.iter().zip(host).enumerate().find(|(_, (a, b))| a != b) {
                eprintln!("{name}: upload mismatch at {i}: {a} != {b}");
            }
        }
        Ok(DeviceWeights { ptr, len: host.len() })
    }

    pub fn as_device_ptr(&self) -> *mut f32 {
        self.ptr
    }

    pub fn len(&self) -> usize {
        self.len
    }
}

impl Drop for DeviceWeights {
    fn drop(&mut self) {
        unsafe { cudaFree(self.ptr as *mut c_void) };
    }
}
