//! case: coupled climate toy model; ocean and atmosphere components keep their state in cudarc UnifiedSlices (attached globally) and step on two streams; the coupler reads the sea-surface temperature with `as_slice` (which waits for the ocean step) while the atmosphere kernel, which does not use it, may still be running
//! expect: managed_concurrent_access=1

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaStream, DriverError, LaunchConfig, PushKernelArg, UnifiedSlice};
use cudarc::nvrtc::compile_ptx;

const CLIMATE_SRC: &str = r#"
extern "C" __global__ void ocean_step(float* sst, const float* flux, int n, float dt) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) sst[i] += dt * (flux[i] - 0.01f * (sst[i] - 288.0f));
}
extern "C" __global__ void atmosphere_step(float* air_t, float* humidity, int n, float dt) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int l = (i + n - 1) % n, r = (i + 1) % n;
    air_t[i] += dt * 0.1f * (air_t[l] + air_t[r] - 2.0f * air_t[i]);
    humidity[i] = fminf(humidity[i] * (1.0f + 0.001f * dt), 1.0f);
}
"#;

pub struct Component {
    stream: Arc<CudaStream>,
    kernel: CudaFunction,
}

pub struct CoupledModel {
    ocean: Component,
    atmos: Component,
    sst: UnifiedSlice<f32>,
    flux: UnifiedSlice<f32>,
    air_t: UnifiedSlice<f32>,
    humidity: UnifiedSlice<f32>,
    cells: usize,
}

impl CoupledModel {
    pub fn new(cells: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let ctx = CudaContext::new(0)?;
        let module = ctx.load_module(compile_ptx(CLIMATE_SRC)?)?;
        let ocean = Component { stream: ctx.new_stream()?, kernel: module.load_function("ocean_step")? };
        let atmos = Component { stream: ctx.new_stream()?, kernel: module.load_function("atmosphere_step")? };
        let alloc = |init: f32| -> Result<UnifiedSlice<f32>, DriverError> {
            let mut s = unsafe { ctx.alloc_unified::<f32>(cells, true)? };
            s.as_mut_slice()?.fill(init);
            Ok(s)
        };
        Ok(CoupledModel { ocean, atmos, sst: alloc(290.0)?, flux: alloc(0.0)?, air_t: alloc(285.0)?, humidity: alloc(0.5)?, cells })
    }

    /// One coupling interval: both components step, then the coupler exchanges fluxes.
    pub fn couple(&mut self, dt: f32) -> Result<f32, DriverError> {
        let n = self.cells as i32;
        let cfg = LaunchConfig::for_num_elems(self.cells as u32);
        let mut o = self.ocean.stream.launch_builder(&self.ocean.kernel);
        o.arg(&mut self.sst).arg(&self.flux).arg(&n).arg(&dt);
        unsafe { o.launch(cfg) }?;
        let mut a = self.atmos.stream.launch_builder(&self.atmos.kernel);
        a.arg(&mut self.air_t).arg(&mut self.humidity).arg(&n).arg(&dt);
        unsafe { a.launch(cfg) }?;
        let mean_sst = self.sst.as_slice()?.iter().sum::<f32>() / self.cells as f32; // EXPECT: managed_concurrent_access
        self.atmos.stream.synchronize()?;
        let air = self.air_t.as_slice()?.to_vec();
        for (f, (t_air, t_sea)) in self.flux.as_mut_slice()?.iter_mut().zip(air.iter().zip(self.sst.as_slice()?)) {
            *f = 0.05 * (t_air - t_sea);
        }
        Ok(mean_sst)
    }
}
