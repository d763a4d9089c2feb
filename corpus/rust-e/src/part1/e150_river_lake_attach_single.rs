//! case: coupled river-routing and lake model on two streams with cudarc UnifiedSlices; the lake level is attached to the lake stream with CU_MEM_ATTACH_SINGLE, so the coupler may read it (as_slice synchronizes that stream) while the river kernel on the other stream still runs, and the globally attached inflow is only written after both streams are idle
//! expect: none

use std::sync::Arc;

use cudarc::driver::{sys, CudaContext, CudaFunction, CudaStream, DriverError, LaunchConfig, PushKernelArg, UnifiedSlice};
use cudarc::nvrtc::compile_ptx;

const HYDRO_SRC: &str = r#"
extern "C" __global__ void lake_balance(float* level, const float* inflow, const float* area, int n, float dt) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float outflow = level[i] > 1.0f ? 0.02f * (level[i] - 1.0f) : 0.0f;
    level[i] = fmaxf(level[i] + dt * (inflow[i] / area[i] - outflow), 0.0f);
}
extern "C" __global__ void route_rivers(const int* downstream, float* discharge, float* storage, int n, float dt) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float q = 0.1f * storage[i];
    storage[i] -= dt * q;
    int d = downstream[i];
    if (d >= 0) atomicAdd(&storage[d], dt * q);
    discharge[i] = q;
}
"#;

pub struct Hydrology {
    lake_stream: Arc<CudaStream>,
    river_stream: Arc<CudaStream>,
    lake_fn: CudaFunction,
    river_fn: CudaFunction,
    level: UnifiedSlice<f32>,
    inflow: UnifiedSlice<f32>,
    area: UnifiedSlice<f32>,
    downstream: UnifiedSlice<i32>,
    discharge: UnifiedSlice<f32>,
    storage: UnifiedSlice<f32>,
    outlet_of_lake: Vec<usize>,
}

impl Hydrology {
    pub fn new(lake_area: &[f32], downstream: &[i32], outlet_of_lake: Vec<usize>) -> Result<Self, Box<dyn std::error::Error>> {
        let ctx = CudaContext::new(0)?;
        let module = ctx.load_module(compile_ptx(HYDRO_SRC)?)?;
        let lake_stream = ctx.new_stream()?;
        let river_stream = ctx.new_stream()?;
        let (lakes, reaches) = (lake_area.len(), downstream.len());
        let mut level = unsafe { ctx.alloc_unified::<f32>(lakes, true)? };
        let mut inflow = unsafe { ctx.alloc_unified::<f32>(lakes, true)? };
        let mut area = unsafe { ctx.alloc_unified::<f32>(lakes, true)? };
        let mut ds = unsafe { ctx.alloc_unified::<i32>(reaches, true)? };
        let mut discharge = unsafe { ctx.alloc_unified::<f32>(reaches, true)? };
        let mut storage = unsafe { ctx.alloc_unified::<f32>(reaches, true)? };
        level.as_mut_slice()?.fill(1.0);
        inflow.as_mut_slice()?.fill(0.0);
        area.as_mut_slice()?.copy_from_slice(lake_area);
        ds.as_mut_slice()?.copy_from_slice(downstream);
        discharge.as_mut_slice()?.fill(0.0);
        storage.as_mut_slice()?.fill(10.0);
        // the lake level belongs to the lake stream only
        level.attach(&lake_stream, sys::CUmemAttach_flags::CU_MEM_ATTACH_SINGLE)?;
        Ok(Hydrology {
            lake_fn: module.load_function("lake_balance")?,
            river_fn: module.load_function("route_rivers")?,
            lake_stream,
            river_stream,
            level,
            inflow,
            area,
            downstream: ds,
            discharge,
            storage,
            outlet_of_lake,
        })
    }

    /// One coupled step; returns the highest lake level.
    pub fn step(&mut self, dt: f32) -> Result<f32, DriverError> {
        let (lakes, reaches) = (self.level.len() as i32, self.storage.len() as i32);
        let mut lake = self.lake_stream.launch_builder(&self.lake_fn);
        lake.arg(&mut self.level).arg(&self.inflow).arg(&self.area).arg(&lakes).arg(&dt);
        unsafe { lake.launch(LaunchConfig::for_num_elems(lakes as u32)) }?;
        let mut river = self.river_stream.launch_builder(&self.river_fn);
        river.arg(&self.downstream).arg(&mut self.discharge).arg(&mut self.storage).arg(&reaches).arg(&dt);
        unsafe { river.launch(LaunchConfig::for_num_elems(reaches as u32)) }?;
        // attached to the lake stream: readable once that stream is idle, rivers still routing
        let highest = self.level.as_slice()?.iter().copied().fold(0.0f32, f32::max);
        self.river_stream.synchronize()?;
        let q = self.discharge.as_slice()?.to_vec();
        for (lake_idx, inflow) in self.inflow.as_mut_slice()?.iter_mut().enumerate() {
            *inflow = self.outlet_of_lake.get(lake_idx).map_or(0.0, |&r| q[r]);
        }
        Ok(highest)
    }
}
