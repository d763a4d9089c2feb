//! case: CUDA runtime API (cudarc::runtime::sys): a histogram cleared with cudaMemset in cudaMalloc memory is summed on the host through slice::from_raw_parts after cudaDeviceSynchronize
//! expect: host_deref_device_ptr=1
use std::ffi::c_void;
use std::ptr;

use cudarc::runtime::sys::{self, cudaError};

pub struct Histogram {
    bins: *mut c_void,
    n_bins: usize,
}

impl Histogram {
    pub unsafe fn zeroed(n_bins: usize) -> Result<Self, cudaError> {
        let mut bins = ptr::null_mut();
        unsafe {
            let e = sys::cudaMalloc(&mut bins, n_bins * 4);
            if e != cudaError::cudaSuccess {
                return Err(e);
            }
            let e = sys::cudaMemset(bins, 0, n_bins * 4);
            if e != cudaError::cudaSuccess {
                return Err(e);
            }
        }
        Ok(Self { bins, n_bins })
    }
}

pub unsafe fn cleared_total(n_bins: usize) -> Result<u64, cudaError> {
    let h = unsafe { Histogram::zeroed(n_bins)? };
    unsafe {
        let e = sys::cudaDeviceSynchronize();
        if e != cudaError::cudaSuccess {
            return Err(e);
        }
    }
    let dev_bins = h.bins as *const u32;
    let counts = unsafe { std::slice::from_raw_parts(dev_bins, n_bins) }; // EXPECT: host_deref_device_ptr
    let total = counts.iter().map(|&c| c as u64).sum();
    unsafe { sys::cudaFree(h.bins) };
    Ok(total)
}
