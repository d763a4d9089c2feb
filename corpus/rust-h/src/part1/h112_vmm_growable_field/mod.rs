//! case: growable device array for a particle field built on the raw VMM driver API (reserve once, map a new chunk per growth); `grow` zeroes the fresh chunk with `cuMemsetD32Async` before `cuMemSetAccess` has granted access to it, and a debug `peek` dereferences the VMM address on the host; teardown unmaps, releases and frees in order
//! expect: vmm_lifecycle=1, host_deref_device_ptr=1

pub mod growable;
pub mod props;

use std::sync::Arc;

use cudarc::driver::{CudaContext, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

pub use growable::GrowableDeviceArray;

const DRIFT_SRC: &str = r#"
extern "C" __global__ void drift(float* xyz, int n, float dx) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < 3 * n) xyz[i] += dx;
}
"#;

/// Particle positions that grow as the emitter spawns new particles.
pub struct ParticleField {
    ctx: Arc<CudaContext>,
    positions: GrowableDeviceArray,
    count: usize,
}

impl ParticleField {
    pub fn new(ctx: &Arc<CudaContext>, max_particles: usize) -> Result<Self, DriverError> {
        let positions = GrowableDeviceArray::reserve(ctx, max_particles * 3 * std::mem::size_of::<f32>())?;
        Ok(Self { ctx: ctx.clone(), positions, count: 0 })
    }

    pub fn spawn_and_drift(&mut self, new_particles: usize, dx: f32) -> Result<f32, Box<dyn std::error::Error>> {
        let stream = self.ctx.new_stream()?;
        self.count += new_particles;
        self.positions.ensure_capacity(self.count * 3 * std::mem::size_of::<f32>(), stream.cu_stream())?;

        let kernel = self.ctx.load_module(compile_ptx(DRIFT_SRC)?)?.load_function("drift")?;
        let (ptr, n) = (self.positions.base(), self.count as i32);
        let mut launch = stream.launch_builder(&kernel);
        launch.arg(&ptr).arg(&n).arg(&dx);
        unsafe { launch.launch(LaunchConfig::for_num_elems(3 * self.count as u32)) }?;
        stream.synchronize()?;
        Ok(self.positions.peek_first())
    }
}
