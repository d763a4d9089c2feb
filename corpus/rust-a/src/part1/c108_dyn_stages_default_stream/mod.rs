//! case: cudarc pipeline of Box<dyn Stage> kernels on the context's only stream (the default stream); the result is copied into a PinnedHostSlice whose as_slice() waits for nothing since cudarc records no event with one stream
//! expect: missing_sync=1
mod kernels;

use std::error::Error;
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

pub trait Stage {
    fn name(&self) -> &str;
    fn run(&self, stream: &Arc<CudaStream>, data: &mut CudaSlice<f32>) -> Result<(), DriverError>;
}

struct Affine {
    func: CudaFunction,
    param: f32,
    label: &'static str,
}

impl Stage for Affine {
    fn name(&self) -> &str {
        self.label
    }
    fn run(&self, stream: &Arc<CudaStream>, data: &mut CudaSlice<f32>) -> Result<(), DriverError> {
        let n = data.len() as u32;
        let mut b = stream.launch_builder(&self.func);
        b.arg(data).arg(&self.param).arg(&n);
        // SAFETY: (float*, float, unsigned) matches both stage kernels.
        unsafe { b.launch(LaunchConfig::for_num_elems(n)) }?;
        Ok(())
    }
}

pub fn run(input: &[f32]) -> Result<f32, Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let module = ctx.load_module(compile_ptx(kernels::STAGES_SRC)?)?;
    let stages: Vec<Box<dyn Stage>> = vec![
        Box::new(Affine { func: module.load_function("scale")?, param: 2.0, label: "scale" }),
        Box::new(Affine { func: module.load_function("offset")?, param: -1.0, label: "offset" }),
    ];

    // SAFETY: fully written before use.
    let mut upload = unsafe { ctx.alloc_pinned::<f32>(input.len())? };
    upload.as_mut_slice()?.copy_from_slice(input);
    let mut data = stream.clone_htod(&upload)?;
    for stage in &stages {
        stage.run(&stream, &mut data)?;
    }
    // SAFETY: written by the copy below. Flags 0: cached, not write-combined.
    let mut result = unsafe { ctx.alloc_pinned_with_flags::<f32>(input.len(), 0)? };
    stream.memcpy_dtoh(&data, &mut result)?;
    let max = result.as_slice()?.iter().cloned().fold(f32::MIN, f32::max); // EXPECT: missing_sync
    stream.synchronize()?;
    Ok(max)
}
