//! case: a pipeline struct's `step` launches a kernel that writes the field `d_out` and its `release` frees it; no code in the crate calls either, and the pointer arrives through a field, so nothing is known unread
//! expect: none
use cudarc::driver::sys::{self, CUdeviceptr, CUresult};
use cudarc::driver::{CudaFunction, CudaStream, DriverError, LaunchConfig, PushKernelArg};
use std::sync::Arc;

pub const FILL_SRC: &str = r#"
extern "C" __global__ void fill(float* out, float v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = v;
}
"#;

pub struct Pipeline {
    pub stream: Arc<CudaStream>,
    pub fill: CudaFunction,
    pub d_out: CUdeviceptr,
    pub len: usize,
}

impl Pipeline {
    pub fn step(&mut self, value: f32) -> Result<(), DriverError> {
        let n = self.len as i32;
        let mut b = self.stream.launch_builder(&self.fill);
        b.arg(&self.d_out).arg(&value).arg(&n);
        unsafe { b.launch(LaunchConfig::for_num_elems(self.len as u32)) }?;
        Ok(())
    }

    pub fn release(self) -> CUresult {
        let _ = self.stream.synchronize();
        unsafe { sys::cuMemFree_v2(self.d_out) }
    }
}
