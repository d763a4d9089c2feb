//! case: the same cudarc readback into a PinnedHostSlice as a single-stream program, but the context has a second stream, so memcpy_dtoh records the slice's event and as_slice() waits for it
//! expect: none
use std::error::Error;
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const SQUARE_SRC: &str = r#"
extern "C" __global__ void square(float* x, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = x[i] * x[i];
}
"#;

pub struct Squarer {
    ctx: Arc<CudaContext>,
    compute: Arc<CudaStream>,
    func: cudarc::driver::CudaFunction,
}

impl Squarer {
    pub fn new() -> Result<Self, Box<dyn Error>> {
        let ctx = CudaContext::new(0)?;
        // a non-default stream: the context is now in multi-stream mode with event tracking on
        let compute = ctx.new_stream()?;
        let func = ctx.load_module(compile_ptx(SQUARE_SRC)?)?.load_function("square")?;
        Ok(Self { ctx, compute, func })
    }

    pub fn square_sum(&self, x: &mut CudaSlice<f32>) -> Result<f32, Box<dyn Error>> {
        let n = x.len() as u32;
        let mut b = self.compute.launch_builder(&self.func);
        b.arg(&mut *x).arg(&n);
        // SAFETY: square(float*, unsigned) over x's n floats.
        unsafe { b.launch(LaunchConfig::for_num_elems(n)) }?;
        // SAFETY: written by the copy below before any read. Flags 0: not write-combined.
        let mut host = unsafe { self.ctx.alloc_pinned_with_flags::<f32>(x.len(), 0)? };
        self.compute.memcpy_dtoh(&*x, &mut host)?;
        // as_slice() synchronizes the event memcpy_dtoh recorded after the copy
        let sum = host.as_slice()?.iter().sum();
        Ok(sum)
    }
}
