//! case: a kernel writes a cudarc UnifiedSlice on the default stream and the host reads it through as_slice() with no explicit synchronize: the launch recorded the slice's event and as_slice waits on it
//! expect: none
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaStream, DriverError, LaunchConfig, PushKernelArg, UnifiedSlice};
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void prefix_len(unsigned* lens, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) lens[i] = (i * 7u) % 13u;
}
"#;

pub struct Lengths {
    stream: Arc<CudaStream>,
    f: CudaFunction,
    lens: UnifiedSlice<u32>,
}

impl Lengths {
    pub fn new(ctx: &Arc<CudaContext>, n: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let f = ctx.load_module(compile_ptx(SRC)?)?.load_function("prefix_len")?;
        let lens = unsafe { ctx.alloc_unified::<u32>(n, true) }?;
        Ok(Lengths { stream: ctx.default_stream(), f, lens })
    }

    pub fn compute_total(&mut self) -> Result<u64, DriverError> {
        let n = self.lens.len() as u32;
        unsafe { self.stream.launch_builder(&self.f).arg(&mut self.lens).arg(&n).launch(LaunchConfig::for_num_elems(n)) }?;
        let lens = self.lens.as_slice()?; // waits on the event the launch recorded
        Ok(lens.iter().map(|&l| l as u64).sum())
    }
}

pub fn run() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let mut l = Lengths::new(&ctx, 1 << 16)?;
    println!("total {}", l.compute_total()?);
    Ok(())
}
