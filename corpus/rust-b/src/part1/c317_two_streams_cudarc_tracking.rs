//! case: a cudarc producer/consumer on two streams synchronizes the wrong stream, but the pinned buffer's event (multi-stream mode) makes `as_slice` wait
//! expect: none
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PinnedHostSlice, PushKernelArg};

type Res<T> = Result<T, Box<dyn std::error::Error>>;

const FILL_SRC: &str = r#"
extern "C" __global__ void ramp(float* out, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = (float)i;
}
"#;

pub struct Pair {
    produce: Arc<CudaStream>,
    consume: Arc<CudaStream>,
    ramp: CudaFunction,
    dev: CudaSlice<f32>,
    host: PinnedHostSlice<f32>,
}

impl Pair {
    pub fn new(n: usize) -> Res<Self> {
        let ctx = CudaContext::new(0)?;
        let produce = ctx.new_stream()?;
        let consume = ctx.new_stream()?;
        let ramp = ctx.load_module(cudarc::nvrtc::compile_ptx(FILL_SRC)?)?.load_function("ramp")?;
        let dev = produce.alloc_zeros::<f32>(n)?;
        let host = unsafe { ctx.alloc_pinned_with_flags::<f32>(n, 0)? };
        Ok(Self { produce, consume, ramp, dev, host })
    }

    pub fn last(&mut self) -> Res<f32> {
        let n = self.dev.len() as u32;
        unsafe { self.produce.launch_builder(&self.ramp).arg(&mut self.dev).arg(&n).launch(LaunchConfig::for_num_elems(n)) }?;
        // `dev`'s write event makes `consume` wait for the kernel; the copy records `host`'s event.
        self.consume.memcpy_dtoh(&self.dev, &mut self.host)?;
        // Only the producer is synchronized here ...
        self.produce.synchronize()?;
        // ... but `as_slice` synchronizes the event recorded after the copy on `consume`.
        Ok(self.host.as_slice()?.last().copied().unwrap_or(0.0))
    }
}
