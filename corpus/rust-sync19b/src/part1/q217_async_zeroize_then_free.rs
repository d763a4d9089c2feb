//! case: key material is scrubbed with `memset_d8_async` and freed with `free_sync` right away, while the memset is still queued
//! expect: relies_on_implicit_sync=1

use std::error::Error;
use std::ffi::c_void;

use cudarc::driver::{result, sys, CudaContext, DriverError};
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void xor_stream(unsigned char* data, const unsigned char* key, int n, int key_len) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] ^= key[i % key_len];
}
"#;

/// Device copy of a secret; scrubbed before its memory goes back to the driver.
pub struct DeviceKey {
    ptr: sys::CUdeviceptr,
    len: usize,
    stream: sys::CUstream,
}

impl DeviceKey {
    pub fn upload(key: &[u8], stream: sys::CUstream) -> Result<Self, DriverError> {
        let ptr = unsafe { result::malloc_sync(key.len())? };
        let k = Self { ptr, len: key.len(), stream };
        unsafe { result::memcpy_htod_sync(k.ptr, key)? };
        Ok(k)
    }

    pub fn destroy(self) -> Result<(), DriverError> {
        let (ptr, len, stream) = (self.ptr, self.len, self.stream);
        std::mem::forget(self);
        let scrubbed = unsafe { result::memset_d8_async(ptr, 0, len, stream) };
        let freed = unsafe { result::free_sync(ptr) }; // EXPECT: relies_on_implicit_sync
        scrubbed.and(freed)
    }
}

impl Drop for DeviceKey {
    fn drop(&mut self) {
        unsafe {
            let _ = result::memset_d8_sync(self.ptr, 0, self.len);
            let _ = result::free_sync(self.ptr);
        }
    }
}

struct Dev(sys::CUdeviceptr);

impl Drop for Dev {
    fn drop(&mut self) {
        unsafe {
            let _ = result::free_sync(self.0);
        }
    }
}

pub fn xor_encrypt(data: &mut [u8], key: &[u8]) -> Result<(), Box<dyn Error>> {
    assert!(!key.is_empty());
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let cs = stream.cu_stream();
    let func = ctx.load_module(compile_ptx(SRC)?)?.load_function("xor_stream")?;

    let d_key = DeviceKey::upload(key, cs)?;
    let d_data = Dev(unsafe { result::malloc_sync(data.len())? });
    unsafe { result::memcpy_htod_sync(d_data.0, data)? };

    let (mut d, mut k, mut n, mut kl) = (d_data.0, d_key.ptr, data.len() as i32, key.len() as i32);
    let mut args: [*mut c_void; 4] = [
        &mut d as *mut _ as *mut c_void,
        &mut k as *mut _ as *mut c_void,
        &mut n as *mut _ as *mut c_void,
        &mut kl as *mut _ as *mut c_void,
    ];
    unsafe {
        result::launch_kernel(func.cu_function(), ((data.len() as u32).div_ceil(256), 1, 1), (256, 1, 1), 0, cs, &mut args)?;
    }
    stream.synchronize()?;
    unsafe { result::memcpy_dtoh_sync(data, d_data.0)? };

    d_key.destroy()?;
    Ok(())
}
