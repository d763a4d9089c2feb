//! case: a runtime-API port initialises a cudaMalloc'd weight buffer with a host loop writing through the device pointer
//! expect: host_deref_device_ptr=1
use std::ffi::c_void;
use std::ptr;

use cudarc::runtime::result::RuntimeError;
use cudarc::runtime::sys;

pub struct Layer {
    pub weights: *mut f32,
    pub fan_in: usize,
    pub fan_out: usize,
}

impl Layer {
    pub fn xavier(fan_in: usize, fan_out: usize, seed: u64) -> Result<Self, RuntimeError> {
        let n = fan_in * fan_out;
        let mut raw: *mut c_void = ptr::null_mut();
        unsafe { sys::cudaMalloc(&mut raw, n * std::mem::size_of::<f32>()) }.result()?;
        let weights = raw as *mut f32;
        let scale = (6.0 / (fan_in + fan_out) as f32).sqrt();
        let mut state = seed;
        for i in 0..n {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let u = (state >> 40) as f32 / (1u64 << 24) as f32;
            unsafe { *weights.add(i) = (2.0 * u - 1.0) * scale }; // EXPECT: host_deref_device_ptr
        }
        Ok(Self { weights, fan_in, fan_out })
    }
}

impl Drop for Layer {
    fn drop(&mut self) {
        unsafe { sys::cudaFree(self.weights.cast()) };
    }
}
