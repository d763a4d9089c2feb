//! case: near miss: an integrator's step() writes `forces` and its finish() frees them without a readback, but no code in the crate calls either method (their callers are unknown)
//! expect: none

use cudarc::driver::sys;
use cudarc::driver::{CudaFunction, CudaStream, LaunchConfig, PushKernelArg};
use std::sync::Arc;

pub const SRC: &str = r#"
extern "C" __global__ void gravity(const float4* pos, float4* force, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 p = pos[i];
    float fx = 0.0f, fy = 0.0f, fz = 0.0f;
    for (int j = 0; j < n; ++j) {
        float4 q = pos[j];
        float dx = q.x - p.x, dy = q.y - p.y, dz = q.z - p.z;
        float inv = rsqrtf(dx * dx + dy * dy + dz * dz + 1e-3f);
        float s = q.w * inv * inv * inv;
        fx += dx * s; fy += dy * s; fz += dz * s;
    }
    force[i] = make_float4(fx, fy, fz, 0.0f);
}
"#;

pub struct Integrator {
    pub stream: Arc<CudaStream>,
    pub gravity: CudaFunction,
    pub pos: sys::CUdeviceptr,
    pub forces: sys::CUdeviceptr,
    pub n: i32,
}

impl Integrator {
    pub fn step(&mut self) -> Result<(), cudarc::driver::DriverError> {
        let mut b = self.stream.launch_builder(&self.gravity);
        b.arg(&self.pos).arg(&self.forces).arg(&self.n);
        unsafe { b.launch(LaunchConfig::for_num_elems(self.n as u32))? };
        Ok(())
    }

    pub fn finish(self) {
        self.stream.synchronize().ok();
        unsafe {
            sys::cuMemFree_v2(self.forces);
            sys::cuMemFree_v2(self.pos);
        }
    }
}
