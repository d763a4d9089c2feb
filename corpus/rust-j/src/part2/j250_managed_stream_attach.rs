//! case: near-miss. Feature-store refresher attaches its managed feature table to one stream (`UnifiedSlice::attach(.., CU_MEM_ATTACH_SINGLE)`), updates it with a kernel on that stream, and reads it on the host after synchronizing that stream while an embedding kernel on another stream still runs: with single-stream attachment CUDA allows host access once the owning stream is idle
//! expect: none

use std::sync::Arc;

use cudarc::driver::{sys, CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PushKernelArg, UnifiedSlice};
use cudarc::nvrtc::compile_ptx;

const FEATURE_SRC: &str = r#"
extern "C" __global__ void decay_features(float* table, unsigned n, float factor) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) table[i] *= factor;
}
extern "C" __global__ void embed_batch(const float* x, float* y, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = tanhf(x[i]);
}
"#;

pub struct FeatureRefresher {
    table_stream: Arc<CudaStream>,
    model_stream: Arc<CudaStream>,
    decay: CudaFunction,
    embed: CudaFunction,
    table: UnifiedSlice<f32>,
}

impl FeatureRefresher {
    pub fn new(ctx: &Arc<CudaContext>, features: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let table_stream = ctx.new_stream()?;
        let model_stream = ctx.new_stream()?;
        let module = ctx.load_module(compile_ptx(FEATURE_SRC)?)?;
        let mut table = unsafe { ctx.alloc_unified::<f32>(features, true)? };
        table.as_mut_slice()?.fill(1.0);
        table.attach(&table_stream, sys::CUmemAttach_flags::CU_MEM_ATTACH_SINGLE)?;
        table_stream.synchronize()?;
        Ok(Self { decay: module.load_function("decay_features")?, embed: module.load_function("embed_batch")?, table_stream, model_stream, table })
    }

    /// Runs the model batch and the table decay side by side; returns the table's top feature.
    pub fn step(&mut self, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>, factor: f32) -> Result<Option<(usize, f32)>, DriverError> {
        let n = x.len() as u32;
        unsafe { self.model_stream.launch_builder(&self.embed).arg(x).arg(y).arg(&n).launch(LaunchConfig::for_num_elems(n)) }?;
        let m = self.table.len() as u32;
        unsafe { self.table_stream.launch_builder(&self.decay).arg(&mut self.table).arg(&m).arg(&factor).launch(LaunchConfig::for_num_elems(m)) }?;
        self.table_stream.synchronize()?;
        let top = self.table.as_slice()?.iter().copied().enumerate().max_by(|a, b| a.1.total_cmp(&b.1));
        Ok(top)
    }
}
