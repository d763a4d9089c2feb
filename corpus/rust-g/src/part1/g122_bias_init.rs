//! case: linear-layer construction on the CUDA runtime API: weights are uploaded from `cudaMallocHost` memory with `cudaMemcpyAsync`, but the freshly `cudaMalloc`ed bias is zero-initialised by making a host slice of the device pointer and filling it
//! expect: host_deref_device_ptr=1

use std::ffi::c_void;

use cudarc::runtime::{result, sys};

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

pub struct Linear {
    pub weight: *mut c_void,
    pub bias: *mut c_void,
    pub in_features: usize,
    pub out_features: usize,
}

impl Linear {
    pub fn from_host(weights: &[f32], in_features: usize, out_features: usize, stream: sys::cudaStream_t) -> Result<Self> {
        assert_eq!(weights.len(), in_features * out_features);
        let w_bytes = weights.len() * 4;
        let mut staging: *mut c_void = std::ptr::null_mut();
        let mut weight: *mut c_void = std::ptr::null_mut();
        let mut bias: *mut c_void = std::ptr::null_mut();
        unsafe {
            sys::cudaMallocHost(&mut staging, w_bytes).result()?;
            std::slice::from_raw_parts_mut(staging as *mut f32, weights.len()).copy_from_slice(weights);
            sys::cudaMalloc(&mut weight, w_bytes).result()?;
            sys::cudaMalloc(&mut bias, out_features * 4).result()?;
            sys::cudaMemcpyAsync(weight, staging, w_bytes, sys::cudaMemcpyKind::cudaMemcpyHostToDevice, stream).result()?;
        }

        let b = unsafe { std::slice::from_raw_parts_mut(bias as *mut f32, out_features) }; // EXPECT: host_deref_device_ptr
        b.fill(0.0);

        unsafe {
            result::stream::synchronize(stream)?;
            sys::cudaFreeHost(staging).result()?;
        }
        Ok(Linear { weight, bias, in_features, out_features })
    }
}

impl Drop for Linear {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cudaFree(self.weight);
            let _ = sys::cudaFree(self.bias);
        }
    }
}

pub fn build_mlp(dims: &[usize], init: impl Fn(usize, usize) -> Vec<f32>) -> Result<Vec<Linear>> {
    let stream = result::stream::create(result::stream::StreamKind::NonBlocking)?;
    let layers = dims
        .windows(2)
        .map(|io| Linear::from_host(&init(io[0], io[1]), io[0], io[1], stream))
        .collect::<Result<Vec<_>>>()?;
    unsafe { result::stream::destroy(stream)? };
    Ok(layers)
}
