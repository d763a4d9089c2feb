//! case: the same initialisation done right: cudaMallocManaged memory written by a host loop before any kernel uses it
//! expect: none
use std::ffi::c_void;
use std::ptr;

use cudarc::runtime::result::RuntimeError;
use cudarc::runtime::sys;

pub struct ManagedLayer {
    weights: *mut f32,
    len: usize,
}

impl ManagedLayer {
    pub fn xavier(fan_in: usize, fan_out: usize, seed: u64) -> Result<Self, RuntimeError> {
        let len = fan_in * fan_out;
        let mut raw: *mut c_void = ptr::null_mut();
        unsafe { sys::cudaMallocManaged(&mut raw, len * 4, sys::cudaMemAttachGlobal) }.result()?;
        let weights = raw as *mut f32;
        let scale = (6.0 / (fan_in + fan_out) as f32).sqrt();
        let host = unsafe { std::slice::from_raw_parts_mut(weights, len) };
        let mut state = seed;
        for w in host.iter_mut() {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            *w = ((state >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0) * scale;
        }
        Ok(Self { weights, len })
    }

    pub fn device_ptr(&self) -> *mut c_void {
        self.weights.cast()
    }

    pub fn len(&self) -> usize {
        self.len
    }
}

impl Drop for ManagedLayer {
    fn drop(&mut self) {
        unsafe {
            sys::cudaDeviceSynchronize();
            sys::cudaFree(self.weights.cast());
        }
    }
}
