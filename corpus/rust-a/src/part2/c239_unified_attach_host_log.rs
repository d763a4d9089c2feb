//! case: a cudarc UnifiedSlice allocated with attach_global = false (CU_MEM_ATTACH_HOST) used as a host-side event log while kernels run
//! expect: none
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DriverError, LaunchConfig, PushKernelArg, UnifiedSlice};
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void relu(float* x, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && x[i] < 0.0f) x[i] = 0.0f;
}
"#;

pub struct HostLog {
    entries: UnifiedSlice<u32>,
    next: usize,
}

impl HostLog {
    pub fn new(ctx: &Arc<CudaContext>, cap: usize) -> Result<HostLog, DriverError> {
        // attached to the host: kernels never take it, so the CPU may use it at any time
        let entries = unsafe { ctx.alloc_unified::<u32>(cap, false) }?;
        Ok(HostLog { entries, next: 0 })
    }

    pub fn record(&mut self, code: u32) -> Result<(), DriverError> {
        let cap = self.entries.len();
        let slots = self.entries.as_mut_slice()?;
        slots[self.next % cap] = code;
        self.next += 1;
        Ok(())
    }

    pub fn last(&self) -> Result<Option<u32>, DriverError> {
        if self.next == 0 {
            return Ok(None);
        }
        Ok(Some(self.entries.as_slice()?[(self.next - 1) % self.entries.len()]))
    }
}

pub fn run() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let stream: Arc<CudaStream> = ctx.new_stream()?;
    let f = ctx.load_module(compile_ptx(SRC)?)?.load_function("relu")?;
    let mut x: CudaSlice<f32> = stream.alloc_zeros(1 << 20)?;
    let mut log = HostLog::new(&ctx, 256)?;
    for layer in 0..12u32 {
        let n = x.len() as u32;
        unsafe { stream.launch_builder(&f).arg(&mut x).arg(&n).launch(LaunchConfig::for_num_elems(n)) }?;
        log.record(layer)?;
        println!("queued layer {:?}", log.last()?);
    }
    stream.synchronize()?;
    Ok(())
}
