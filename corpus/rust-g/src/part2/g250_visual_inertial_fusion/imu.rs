//! IMU side: samples land in a unified-memory ring that the preintegration kernel consumes.

use std::sync::Arc;

use cudarc::driver::{CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PushKernelArg, UnifiedSlice};

pub const IMU_SRC: &str = r#"
// Preintegrates gyro samples (x, y, z, dt) into a small-angle rotation increment.
extern "C" __global__ void preintegrate(const float4* samples, unsigned n, float* delta_rot) {
    if (blockIdx.x != 0 || threadIdx.x != 0) return;
    float rx = 0.f, ry = 0.f, rz = 0.f;
    for (unsigned i = 0; i < n; ++i) { float4 s = samples[i]; rx += s.x * s.w; ry += s.y * s.w; rz += s.z * s.w; }
    delta_rot[0] = rx; delta_rot[1] = ry; delta_rot[2] = rz;
}
"#;

#[derive(Clone, Copy, Debug)]
pub struct ImuSample {
    pub gyro: [f32; 3],
    pub dt: f32,
}

pub struct Preintegrator {
    pub stream: Arc<CudaStream>,
    pub kernel: CudaFunction,
    /// (x, y, z, dt) per sample, allocated with alloc_unified(.., true): attached globally.
    pub ring: UnifiedSlice<f32>,
    pub delta: CudaSlice<f32>,
}

impl Preintegrator {
    /// Copies the newest samples into the unified ring.
    pub fn stage(&mut self, samples: &[ImuSample]) -> Result<u32, DriverError> {
        let ring = self.ring.as_mut_slice()?;
        let n = samples.len().min(ring.len() / 4);
        for (dst, s) in ring.chunks_exact_mut(4).zip(samples.iter().take(n)) {
            dst.copy_from_slice(&[s.gyro[0], s.gyro[1], s.gyro[2], s.dt]); // EXPECT: managed_concurrent_access
        }
        Ok(n as u32)
    }

    pub fn enqueue(&mut self, n: u32) -> Result<(), DriverError> {
        let mut b = self.stream.launch_builder(&self.kernel);
        b.arg(&self.ring).arg(&n).arg(&mut self.delta);
        unsafe { b.launch(LaunchConfig { grid_dim: (1, 1, 1), block_dim: (1, 1, 1), shared_mem_bytes: 0 })? };
        Ok(())
    }
}
