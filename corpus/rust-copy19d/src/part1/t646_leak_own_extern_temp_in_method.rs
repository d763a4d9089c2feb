//! case: a weight loader using its own extern "C" runtime declarations cudaMalloc's a temporary fp32 buffer in a method, copies it device-to-device into the struct's weights, and never frees the temporary.
//! expect: device_memory_leak=1
use std::ffi::c_void;
use std::mem::size_of;

#[allow(non_camel_case_types)]
type cudaError_t = i32;
const CUDA_MEMCPY_HOST_TO_DEVICE: i32 = 1;
const CUDA_MEMCPY_DEVICE_TO_DEVICE: i32 = 3;

unsafe extern "C" {
    fn cudaMalloc(dev_ptr: *mut *mut c_void, size: usize) -> cudaError_t;
    fn cudaMemcpy(dst: *mut c_void, src: *const c_void, count: usize, kind: i32) -> cudaError_t;
    fn cudaFree(dev_ptr: *mut c_void) -> cudaError_t;
}

const WEIGHTS: usize = 1 << 20;

pub struct Linear {
    d_weights: *mut c_void,
}

impl Linear {
    pub fn new() -> Result<Self, cudaError_t> {
        let mut d_weights: *mut c_void = std::ptr::null_mut();
        let st = unsafe { cudaMalloc(&mut d_weights, WEIGHTS * size_of::<f32>()) };
        if st != 0 {
            return Err(st);
        }
        Ok(Self { d_weights })
    }

    pub fn load(&mut self, host: &[f32; WEIGHTS]) -> Result<(), cudaError_t> {
        let mut d_tmp: *mut c_void = std::ptr::null_mut();
        unsafe {
            let st = cudaMalloc(&mut d_tmp, WEIGHTS * size_of::<f32>()); // EXPECT: device_memory_leak
            if st != 0 {
                return Err(st);
            }
            cudaMemcpy(d_tmp, host.as_ptr() as *const c_void, WEIGHTS * size_of::<f32>(), CUDA_MEMCPY_HOST_TO_DEVICE);
            let st = cudaMemcpy(self.d_weights, d_tmp, WEIGHTS * size_of::<f32>(), CUDA_MEMCPY_DEVICE_TO_DEVICE);
            if st != 0 {
                return Err(st);
            }
        }
        Ok(())
    }
}

impl Drop for Linear {
    fn drop(&mut self) {
        unsafe {
            cudaFree(self.d_weights);
        }
    }
}

pub fn build_layer(host: &[f32; WEIGHTS]) -> Result<Linear, cudaError_t> {
    let mut layer = Linear::new()?;
    layer.load(host)?;
    Ok(layer)
}
