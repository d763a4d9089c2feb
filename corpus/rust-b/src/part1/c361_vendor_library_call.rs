//! case: an FFT wrapper passes device pointers from cudarc slices to an opaque vendor C library; the host itself never touches them
//! expect: none
use std::ffi::c_void;
use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream, DevicePtr, DevicePtrMut};

#[repr(C)]
pub struct VendorPlan {
    _private: [u8; 0],
}

#[link(name = "vendorfft")]
unsafe extern "C" {
    fn vfft_plan_1d(n: u32, out: *mut *mut VendorPlan) -> i32;
    fn vfft_exec_c2c(plan: *mut VendorPlan, input: u64, output: u64, stream: *mut c_void) -> i32;
    fn vfft_destroy(plan: *mut VendorPlan);
}

pub struct Fft {
    plan: *mut VendorPlan,
    stream: Arc<CudaStream>,
}

impl Fft {
    pub fn new(stream: Arc<CudaStream>, n: u32) -> Option<Self> {
        let mut plan = std::ptr::null_mut();
        (unsafe { vfft_plan_1d(n, &mut plan) } == 0).then_some(Self { plan, stream })
    }

    pub fn forward(&self, input: &CudaSlice<[f32; 2]>, output: &mut CudaSlice<[f32; 2]>) -> bool {
        let (src, _r) = input.device_ptr(&self.stream);
        let (dst, _w) = output.device_ptr_mut(&self.stream);
        unsafe { vfft_exec_c2c(self.plan, src, dst, self.stream.cu_stream().cast()) == 0 }
    }
}

impl Drop for Fft {
    fn drop(&mut self) {
        unsafe { vfft_destroy(self.plan) };
    }
}
