//! case: two cudarc UnifiedSlices: a host-attached journal (fine to touch) and a global metrics buffer read while a kernel that uses neither runs
//! expect: managed_concurrent_access=1
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaStream, DriverError, LaunchConfig, PushKernelArg, UnifiedSlice};
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void saxpy(float* y, const float* x, float a, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] += a * x[i];
}
"#;

struct Telemetry {
    journal: UnifiedSlice<u32>,
    metrics: UnifiedSlice<f32>,
}

impl Telemetry {
    fn new(ctx: &Arc<CudaContext>) -> Result<Telemetry, DriverError> {
        let mut journal = unsafe { ctx.alloc_unified::<u32>(128, false) }?;
        let mut metrics = unsafe { ctx.alloc_unified::<f32>(16, true) }?;
        journal.as_mut_slice()?.fill(0);
        metrics.as_mut_slice()?.fill(0.0);
        Ok(Telemetry { journal, metrics })
    }
}

pub fn run() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let mut tel = Telemetry::new(&ctx)?;
    let stream: Arc<CudaStream> = ctx.new_stream()?;
    let f = ctx.load_module(compile_ptx(SRC)?)?.load_function("saxpy")?;
    let x = stream.alloc_zeros::<f32>(1 << 20)?;
    let mut y = stream.alloc_zeros::<f32>(1 << 20)?;
    let n = x.len() as u32;
    let a = 2.0f32;
    unsafe { stream.launch_builder(&f).arg(&mut y).arg(&x).arg(&a).arg(&n).launch(LaunchConfig::for_num_elems(n)) }?;

    tel.journal.as_mut_slice()?[0] = 1; // host-attached: not reachable by kernels
    let last_throughput = tel.metrics.as_slice()?[3]; // EXPECT: managed_concurrent_access
    println!("previous throughput {last_throughput}");
    stream.synchronize()?;
    Ok(())
}
